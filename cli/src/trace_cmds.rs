//! `instrument export` and `instrument score`: thin wrappers over
//! `regio_analysis::export` and `regio_analysis::score` (SPEC.md "Trace mode
//! and exports").

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum ExportFormatArg {
    Otf2,
    Perfetto,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// otf2 (an archive directory for Vampir, Scalasca, otf2-print) or
    /// perfetto (Chrome Trace Event JSON for ui.perfetto.dev).
    #[arg(long, value_enum)]
    pub format: ExportFormatArg,
    /// OTF2: a new directory (the archive; open OUT/traces.otf2).
    /// Perfetto: the JSON file. Default: RUNDIR.otf2 / RUNDIR.json.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Use this IDF instead of the one in the run directory.
    #[arg(long)]
    pub idf: Option<PathBuf>,
    /// A run directory written with REGIO_MODE=trace.
    pub run_dir: PathBuf,
}

/// `RUNDIR.otf2` / `RUNDIR.json` next to the run directory.
fn default_out(run_dir: &std::path::Path, format: ExportFormatArg) -> PathBuf {
    let ext = match format {
        ExportFormatArg::Otf2 => "otf2",
        ExportFormatArg::Perfetto => "json",
    };
    // Trailing slashes (`regio-run-x/`) must not turn into `regio-run-x/.json`.
    let trimmed: PathBuf = run_dir.components().collect();
    let mut name = trimmed.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    use regio_analysis::export::{export_run, ExportFormat};
    let format = match args.format {
        ExportFormatArg::Otf2 => ExportFormat::Otf2,
        ExportFormatArg::Perfetto => ExportFormat::Perfetto,
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&args.run_dir, args.format));
    // ExportError already names the file it failed on.
    let s = export_run(&args.run_dir, args.idf.as_deref(), format, &out)?;
    for n in &s.notes {
        eprintln!("{}: note: {n}", args.run_dir.display());
    }
    for w in &s.warnings {
        eprintln!("{}: warning: {w}", args.run_dir.display());
    }
    for p in &s.message_problems {
        eprintln!("{}: warning: {p}", args.run_dir.display());
    }
    println!(
        "{}: {} locations, {} events, {} messages",
        s.written.display(),
        s.locations,
        s.events,
        s.messages
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    /// Write the suggested filter (`--filter` / REGIO_FILTER syntax) here.
    #[arg(long)]
    pub filter_out: Option<PathBuf>,
    /// A region with a mean call shorter than this (ns) counts as cheap
    /// (default: 10 calibrated probe pairs, 1000 without a calibration).
    #[arg(long)]
    pub cheap_ns: Option<f64>,
    /// ... and as hot when called at least this often.
    #[arg(long, default_value_t = 1000)]
    pub min_calls: u64,
    /// Calibration file of `instrument calibrate` (default: where it stores it).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Trace buffer bytes per thread to estimate flushes for (default:
    /// REGIO_TRACE_BUFFER, else 8 MiB).
    #[arg(long, env = "REGIO_TRACE_BUFFER")]
    pub trace_buffer: Option<u64>,
    /// Use this IDF instead of the one in the run directory.
    #[arg(long)]
    pub idf: Option<PathBuf>,
    /// A run directory (profile or trace mode).
    pub run_dir: PathBuf,
}

/// SPEC.md: `REGIO_TRACE_BUFFER` defaults to 8 MiB.
const DEFAULT_TRACE_BUFFER: u64 = 8 << 20;

pub fn score(args: ScoreArgs) -> Result<ExitCode> {
    use regio_analysis::score::{score, ScoreOptions};
    if !matches!(args.format.as_str(), "text" | "json") {
        anyhow::bail!("error: unknown --format `{}` (text or json)", args.format);
    }
    let run = regio_analysis::load_run(&args.run_dir, args.idf.as_deref())?;
    if let Some(w) = regio_analysis::spawned::warning(&run.spawned) {
        eprintln!("{}: warning: {w}", args.run_dir.display());
    }
    let calibration = match args
        .calibration
        .clone()
        .or_else(crate::calibrate::default_path)
    {
        Some(p) => crate::calibrate::load(&p)?,
        None => None,
    };
    let s = score(
        &run,
        &ScoreOptions {
            probe_pair_ns: calibration.map(|c| c.probe_pair_ns),
            cheap_ns: args.cheap_ns,
            min_calls: args.min_calls,
            buffer_bytes: args.trace_buffer.unwrap_or(DEFAULT_TRACE_BUFFER),
        },
    );
    if args.format == "json" {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print!("{}", s.to_text());
    }
    if let Some(path) = &args.filter_out {
        std::fs::write(path, s.filter_text())
            .with_context(|| format!("error: cannot write {}", path.display()))?;
    } else if args.format == "text" {
        print!(
            "\nSuggested filter (write it with --filter-out FILE):\n{}",
            s.filter_text()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_out_is_next_to_the_run_directory() {
        assert_eq!(
            default_out(
                std::path::Path::new("runs/regio-run-a-1/"),
                ExportFormatArg::Perfetto
            ),
            PathBuf::from("runs/regio-run-a-1.json")
        );
        assert_eq!(
            default_out(std::path::Path::new("regio-run-a-1"), ExportFormatArg::Otf2),
            PathBuf::from("regio-run-a-1.otf2")
        );
    }
}
