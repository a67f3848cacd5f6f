//! `instrument calibrate`: measure this machine's probe, clock-read and
//! lock costs (the overhead analysis's training set) and store them where
//! `instrument overhead` finds them for compensation.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

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
    /// Operations per timed batch (a repetition times 15 batches of each
    /// cost and keeps their median).
    #[arg(long, default_value_t = 1_000)]
    pub ops: u64,
    /// Short repetitions per attempt; the stored costs are the lowest tenth
    /// of those the scheduler did not interrupt (thread CPU time against
    /// wall time).
    #[arg(long, default_value_t = 41)]
    pub repetitions: u32,
    /// Widest spread stored, in percent: how far the probe cost of the
    /// undisturbed repetitions' highest tenth lies above their lowest
    /// tenth (the stored figure). A wider one is measured again (see
    /// --attempts), then refused with nothing stored.
    #[arg(
        long,
        default_value_t = 25.0,
        env = "REGIO_CALIBRATE_MAX_SPREAD",
        value_name = "PERCENT"
    )]
    pub max_spread: f64,
    /// Attempts before giving up on a busy machine.
    #[arg(long, default_value_t = 3)]
    pub attempts: u32,
}

/// The stored training set.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Calibration {
    pub host: String,
    pub probe_pair_ns: f64,
    pub clock_read_ns: f64,
    pub lock_pair_ns: f64,
    /// How far the highest tenth of the undisturbed repetitions lay above
    /// `probe_pair_ns`, in percent (absent in older calibrations).
    #[serde(default)]
    pub probe_pair_spread_percent: f64,
    /// Undisturbed repetitions the figures come from, and all taken.
    #[serde(default)]
    pub repetitions_used: u32,
    #[serde(default)]
    pub repetitions: u32,
}

/// One short repetition: the costs it measured (ns: probe pair, clock
/// read, lock pair) and how long it took in wall and in thread CPU time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub costs: [f64; 3],
    pub wall_ns: u64,
    pub cpu_ns: u64,
}

impl Sample {
    /// The thread had the CPU for at least half the repetition's wall
    /// time. A repetition's costs are medians of 15 timed batches, so a
    /// short preemption spoils one batch and not the median; a thread that
    /// waited longer than it ran had many batches stretched by another
    /// program's time slices.
    fn undisturbed(&self) -> bool {
        self.wall_ns > 0 && self.cpu_ns.saturating_mul(2) >= self.wall_ns
    }
}

/// What a set of repetitions gives: costs (lowest tenth of the
/// undisturbed repetitions) and the probe cost's spread (to the highest
/// tenth).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub costs: [f64; 3],
    pub high_probe_ns: f64,
    pub spread_percent: f64,
    pub used: usize,
    pub taken: usize,
}

/// Why a set of repetitions cannot be stored.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refused {
    #[error("the machine is too busy to calibrate: only {used} of {taken} repetitions ran without being descheduled (at least {needed} needed)")]
    Busy {
        used: usize,
        taken: usize,
        needed: usize,
    },
    #[error("the probe cost varied too much to be trusted: {low:.1} ns in the lowest tenth of {used} undisturbed repetitions, {high:.1} ns in the highest (spread {spread:.0} %, at most {max:.0} % accepted)")]
    Spread {
        low: f64,
        high: f64,
        spread: f64,
        max: f64,
        used: usize,
    },
}

/// The value at quantile `q` of sorted `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    let i = ((v.len().saturating_sub(1)) as f64 * q).round() as usize;
    v.get(i).copied().unwrap_or(0.0)
}

/// Repetitions the scheduler interrupted are left out; of the rest each
/// cost's lowest tenth is kept (load only ever adds time, so the low end
/// is the machine's own cost), and the probe cost's spread is how far the
/// highest tenth lies above it: the repetitions must agree, or the
/// machine's load is in every one of them. Refused when too few repetitions ran undisturbed
/// or the spread exceeds `max_spread` percent.
pub fn decide(samples: &[Sample], max_spread: f64) -> Result<Measured, Refused> {
    let kept: Vec<&Sample> = samples.iter().filter(|s| s.undisturbed()).collect();
    let needed = (samples.len() / 4).max(3);
    if kept.len() < needed {
        return Err(Refused::Busy {
            used: kept.len(),
            taken: samples.len(),
            needed,
        });
    }
    let sorted = |k: usize| -> Vec<f64> {
        let mut v: Vec<f64> = kept.iter().map(|s| s.costs[k]).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let costs = [0, 1, 2].map(|k| quantile(&sorted(k), 0.1));
    let probe = sorted(0);
    let (low, high) = (quantile(&probe, 0.1), quantile(&probe, 0.9));
    let spread = if low > 0.0 {
        (high - low) / low * 100.0
    } else {
        f64::INFINITY
    };
    if spread > max_spread || !low.is_finite() || low <= 0.0 {
        return Err(Refused::Spread {
            low,
            high,
            spread,
            max: max_spread,
            used: kept.len(),
        });
    }
    Ok(Measured {
        costs,
        high_probe_ns: high,
        spread_percent: spread,
        used: kept.len(),
        taken: samples.len(),
    })
}

/// CPU time of the calling thread, ns.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid pointer to a timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

/// `repetitions` short measurements.
fn sample(ops: u64, repetitions: u32) -> Vec<Sample> {
    (0..repetitions.max(1))
        .map(|_| {
            let (t0, c0) = (Instant::now(), thread_cpu_ns());
            let c = regio::training::measure(ops);
            let cpu_ns = thread_cpu_ns().saturating_sub(c0);
            let wall_ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
            Sample {
                costs: [c.probe_pair_ns, c.clock_read_ns, c.lock_pair_ns],
                wall_ns,
                cpu_ns,
            }
        })
        .collect()
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
    if args.max_spread.is_nan() || args.max_spread < 0.0 {
        anyhow::bail!(
            "error: --max-spread must be a percentage, not {}",
            args.max_spread
        );
    }
    let attempts = args.attempts.max(1);
    let mut outcome = Err(Refused::Busy {
        used: 0,
        taken: 0,
        needed: 0,
    });
    for attempt in 1..=attempts {
        outcome = decide(&sample(args.ops, args.repetitions), args.max_spread);
        match &outcome {
            Ok(_) => break,
            Err(why) if attempt < attempts => {
                eprintln!("note: attempt {attempt} of {attempts}: {why}; measuring again");
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            Err(_) => {}
        }
    }
    let m = outcome.map_err(|why| {
        anyhow::anyhow!(
            "error: {why}; nothing was stored. Run `instrument calibrate` again when the machine is quieter, or accept a wider spread with --max-spread PERCENT (REGIO_CALIBRATE_MAX_SPREAD)"
        )
    })?;
    let c = Calibration {
        host: host(),
        probe_pair_ns: m.costs[0],
        clock_read_ns: m.costs[1],
        lock_pair_ns: m.costs[2],
        probe_pair_spread_percent: m.spread_percent,
        repetitions_used: m.used as u32,
        repetitions: m.taken as u32,
    };
    let text = serde_json::to_string_pretty(&c)? + "\n";
    regio_instrumenter::driver::write_atomically(&path, text.as_bytes())?;
    println!(
        "probe enter+exit {:.1} ns, clock read {:.1} ns, lock+unlock {:.1} ns\n\
         lowest tenth of {} undisturbed repetitions of {}; probe spread {:.0} % (highest tenth {:.1} ns)\n\
         stored in {}",
        c.probe_pair_ns,
        c.clock_read_ns,
        c.lock_pair_ns,
        m.used,
        m.taken,
        m.spread_percent,
        m.high_probe_ns,
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(probe: f64, disturbed: bool) -> Sample {
        Sample {
            costs: [probe, probe / 2.0, probe / 4.0],
            wall_ns: 1_000_000,
            cpu_ns: if disturbed { 400_000 } else { 990_000 },
        }
    }

    fn samples(probes: &[(f64, bool)]) -> Vec<Sample> {
        probes.iter().map(|&(p, d)| at(p, d)).collect()
    }

    /// `n` undisturbed repetitions cycling through `values`.
    fn cycling(values: &[f64], n: usize) -> Vec<Sample> {
        values
            .iter()
            .cycle()
            .take(n)
            .map(|&p| at(p, false))
            .collect()
    }

    #[test]
    fn the_low_end_of_undisturbed_repetitions_is_kept() {
        // 20 quiet repetitions between 48 and 52 ns, and 10 descheduled
        // ones far above: those do not count.
        let mut probes: Vec<(f64, bool)> =
            (0..20).map(|i| (48.0 + (i % 5) as f64, false)).collect();
        probes.extend((0..10).map(|i| (91.0 + i as f64, true)));
        let m = decide(&samples(&probes), 25.0).unwrap();
        assert_eq!(m.costs, [48.0, 24.0, 12.0]);
        assert_eq!(m.high_probe_ns, 52.0);
        assert!((m.spread_percent - 4.0 / 48.0 * 100.0).abs() < 1e-9);
        assert_eq!((m.used, m.taken), (20, 30));
    }

    #[test]
    fn a_wide_spread_is_refused_unless_accepted() {
        // The three figures of issue 12 item 18 (48, 55 and 91 ns), as
        // repetitions that all kept their CPU: the load is in the costs.
        let e = decide(&cycling(&[48.0, 55.0, 91.0], 30), 25.0).unwrap_err();
        assert_eq!(
            e,
            Refused::Spread {
                low: 48.0,
                high: 91.0,
                spread: 43.0 / 48.0 * 100.0,
                max: 25.0,
                used: 30
            }
        );
        assert_eq!(
            e.to_string(),
            "the probe cost varied too much to be trusted: 48.0 ns in the lowest tenth of 30 undisturbed repetitions, 91.0 ns in the highest (spread 90 %, at most 25 % accepted)"
        );
        // Accepted when a wider spread is: the lowest tenth is stored.
        let m = decide(&cycling(&[48.0, 55.0, 91.0], 30), 100.0).unwrap();
        assert_eq!(m.costs[0], 48.0);
        // A calm machine: 48 to 51 ns.
        let m = decide(&cycling(&[48.0, 49.0, 51.0, 50.0], 40), 25.0).unwrap();
        assert_eq!((m.costs[0], m.high_probe_ns), (48.0, 51.0));
    }

    #[test]
    fn too_few_undisturbed_repetitions_are_refused() {
        let mut probes: Vec<(f64, bool)> = vec![(48.0, false); 4];
        probes.extend(vec![(60.0, true); 36]);
        assert_eq!(
            decide(&samples(&probes), 25.0),
            Err(Refused::Busy {
                used: 4,
                taken: 40,
                needed: 10
            })
        );
        assert!(matches!(
            decide(&[], 25.0),
            Err(Refused::Busy { needed: 3, .. })
        ));
        // A zero cost (a broken clock) is never stored.
        assert!(decide(&samples(&[(0.0, false); 5]), 25.0).is_err());
    }
}
