//! `instrument calibrate`: measure this machine's probe, clock-read and
//! lock costs (the overhead analysis's training set) and store them where
//! `instrument overhead` finds them for compensation.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Where to store the result (default: $REGIO_CALIBRATION, else
    /// $XDG_CONFIG_HOME/regio/calibration.json, else
    /// ~/.config/regio/calibration.json).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Operations per timed batch.
    #[arg(long, default_value_t = 200_000)]
    pub ops: u64,
}

/// The stored training set.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Calibration {
    pub host: String,
    pub probe_pair_ns: f64,
    pub clock_read_ns: f64,
    pub lock_pair_ns: f64,
}

/// Where the calibration lives unless `--out` / `--calibration` says.
pub fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("REGIO_CALIBRATION") {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("regio").join("calibration.json"))
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Reads a stored calibration; None when there is none for this host.
pub fn load(path: &std::path::Path) -> Result<Option<Calibration>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("error: cannot read {}", path.display())),
    };
    let c: Calibration = serde_json::from_str(&text)
        .with_context(|| format!("error: {} is not a Regio calibration", path.display()))?;
    Ok((c.host == host()).then_some(c))
}

pub fn run(args: CalibrateArgs) -> Result<ExitCode> {
    let path = args
        .out
        .or_else(default_path)
        .context("error: no place to store the calibration: give --out")?;
    let costs = regio::training::measure(args.ops);
    let c = Calibration {
        host: host(),
        probe_pair_ns: costs.probe_pair_ns,
        clock_read_ns: costs.clock_read_ns,
        lock_pair_ns: costs.lock_pair_ns,
    };
    let text = serde_json::to_string_pretty(&c)? + "\n";
    regio_instrumenter::driver::write_atomically(&path, text.as_bytes())?;
    println!(
        "probe enter+exit {:.1} ns, clock read {:.1} ns, lock+unlock {:.1} ns\nstored in {}",
        c.probe_pair_ns,
        c.clock_read_ns,
        c.lock_pair_ns,
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
