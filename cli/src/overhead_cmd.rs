//! `instrument overhead BASELINE RUN...`: the SCALEA overhead table of
//! existing run directories.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use regio_analysis::overhead;

#[derive(Args, Debug, Clone)]
pub struct CompensationArgs {
    /// Do not subtract the probe cost of instrumented descendants.
    #[arg(long)]
    pub no_compensation: bool,
    /// Calibration file of `instrument calibrate` (default: where it stores it).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct OverheadArgs {
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    /// Processor count of each run, comma-separated in the order of RUN
    /// (default: ranks x the most threads a process measured).
    #[arg(long, value_delimiter = ',')]
    pub processors: Vec<u32>,
    #[command(flatten)]
    pub compensation: CompensationArgs,
    /// The sequential run (T_s).
    pub baseline: PathBuf,
    /// The parallel runs.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
}

/// Probe cost to compensate with, and a line saying what was done.
pub fn probe_cost(args: &CompensationArgs) -> Result<(f64, String)> {
    if args.no_compensation {
        return Ok((0.0, "not compensated (--no-compensation)".into()));
    }
    let path = args
        .calibration
        .clone()
        .or_else(crate::calibrate::default_path);
    let Some(path) = path else {
        return Ok((
            0.0,
            "not compensated: no calibration (run `instrument calibrate`)".into(),
        ));
    };
    match crate::calibrate::load(&path)? {
        Some(c) => Ok((
            c.probe_pair_ns,
            format!(
                "compensated: {:.1} ns per instrumented call (from {})",
                c.probe_pair_ns,
                path.display()
            ),
        )),
        None => Ok((
            0.0,
            format!(
                "not compensated: no calibration of this host in {} (run `instrument calibrate`)",
                path.display()
            ),
        )),
    }
}

/// Loads, checks, merges, compensates and analyses; returns the rendered
/// output.
/// Processes of `MPI_Comm_spawn` left out of a run: said on stderr, the
/// figures being those of the spawning job alone.
fn warn_spawned(dir: &Path, run: &regio_analysis::RunDir) {
    if let Some(w) = regio_analysis::spawned::warning(&run.spawned) {
        eprintln!("{}: warning: {w}", dir.display());
    }
}

pub fn analyse(
    baseline: &Path,
    runs: &[(PathBuf, Option<u32>)],
    compensation: &CompensationArgs,
    json: bool,
) -> Result<String> {
    let (probe_ns, how) = probe_cost(compensation)?;
    let base = regio_analysis::load_run(baseline, None)?;
    warn_spawned(baseline, &base);
    let mut base_report = regio_analysis::merge(&base);
    overhead::compensate(&mut base_report, probe_ns);
    let mut loaded = Vec::new();
    for (dir, p) in runs {
        let run = regio_analysis::load_run(dir, None)?;
        warn_spawned(dir, &run);
        overhead::check_same_regions(&base, &run)?;
        let p = match p {
            Some(p) => *p,
            None => overhead::processors_of(&run),
        };
        if p == 0 {
            return Err(overhead::OverheadError::NoProcessors(dir.display().to_string()).into());
        }
        loaded.push((run, p));
    }
    // Runs are analysed by processor count; a baseline larger than a run
    // is refused (README "Overhead analysis").
    let named: Vec<(String, u32)> = loaded
        .iter()
        .map(|(run, p)| (run.path.display().to_string(), *p))
        .collect();
    let order = overhead::order_runs(
        &baseline.display().to_string(),
        overhead::processors_of(&base),
        &named,
    )?;
    if order.iter().enumerate().any(|(k, &i)| k != i) {
        let shown: Vec<String> = order
            .iter()
            .map(|&i| format!("p={} {}", named[i].1, named[i].0))
            .collect();
        eprintln!(
            "note: runs taken in order of processor count: {}",
            shown.join(", ")
        );
    }
    let mut reports = Vec::new();
    for i in order {
        let (run, p) = &loaded[i];
        let mut report = regio_analysis::merge(run);
        overhead::compensate(&mut report, probe_ns);
        reports.push((report, *p));
    }
    let pairs: Vec<(&regio_analysis::Report, u32)> = reports.iter().map(|(r, p)| (r, *p)).collect();
    let result = overhead::overhead(&base_report, &pairs);
    Ok(if json {
        serde_json::to_string_pretty(&result).context("error: cannot render JSON")? + "\n"
    } else {
        format!("{}note: {how}\n", overhead::text::render(&result))
    })
}

fn is_json(format: &str) -> Result<bool> {
    match format {
        "text" => Ok(false),
        "json" => Ok(true),
        other => anyhow::bail!("error: unknown format `{other}` (expected text or json)"),
    }
}

pub fn run(args: OverheadArgs) -> Result<ExitCode> {
    let json = is_json(&args.format)?;
    if !args.processors.is_empty() && args.processors.len() != args.runs.len() {
        anyhow::bail!(
            "error: --processors lists {} counts for {} runs",
            args.processors.len(),
            args.runs.len()
        );
    }
    let runs: Vec<(PathBuf, Option<u32>)> = args
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.clone(), args.processors.get(i).copied()))
        .collect();
    print!(
        "{}",
        analyse(&args.baseline, &runs, &args.compensation, json)?
    );
    Ok(ExitCode::SUCCESS)
}

pub fn check_format(format: &str) -> Result<bool> {
    is_json(format)
}
