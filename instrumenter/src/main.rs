//! `instrument`: the command line of Regio (SPEC.md "Command line").

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use regio_instrumenter::driver;
use regio_instrumenter::filter::Filter;
use regio_instrumenter::selection::{Selection, DEFAULT_REGIONS};

mod calibrate;
mod demo;
mod experiment;
mod overhead_cmd;

#[derive(Parser, Debug)]
#[command(
    name = "instrument",
    version,
    about = "Instrument C, Fortran and Rust sources with Regio probes, and report on measured runs",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    instrument: InstrumentArgs,
}

#[derive(Args, Debug)]
struct InstrumentArgs {
    /// Files and directory trees to instrument.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output directory: a mirrored tree plus regio.idf.json.
    #[arg(long, default_value = "regio-out")]
    out: PathBuf,
    /// Comma list of functions, loops, calls, io, omp, mpi, user, all, none.
    #[arg(long, default_value = DEFAULT_REGIONS)]
    regions: String,
    /// Include/exclude rules by file glob and region-name glob.
    #[arg(long)]
    filter: Option<PathBuf>,
    /// Treat Fortran files matching GLOB as fixed form (repeatable).
    #[arg(long, value_name = "GLOB")]
    fixed: Vec<String>,
    /// Treat Fortran files matching GLOB as free form (repeatable).
    #[arg(long, value_name = "GLOB")]
    free: Vec<String>,
    /// The `regio` dependency added to Cargo.toml files that lack one:
    /// `path:DIR` or a version requirement (default: this build's runtime
    /// sources, else its version).
    #[arg(long, value_name = "SPEC")]
    rust_regio: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the DRG of measured runs.
    Report(ReportArgs),
    /// Print compiler and linker flags for building instrumented code.
    Flags(FlagsArgs),
    /// Instrument, build, run and report on a bundled C example.
    Demo(demo::DemoArgs),
    /// Overhead table (T_p - T_s/p by category) of existing run directories.
    Overhead(overhead_cmd::OverheadArgs),
    /// Run a scaling experiment and print its overhead table.
    Experiment(experiment::ExperimentArgs),
    /// Measure this machine's probe, clock and lock costs for compensation.
    Calibrate(calibrate::CalibrateArgs),
}

#[derive(Args, Debug)]
struct ReportArgs {
    /// text, json, csv, collapsed (folded stacks for flamegraph tools) or
    /// html (one self-contained page with a foldable tree).
    #[arg(long, default_value = "text")]
    format: String,
    /// Use this IDF instead of the one in the run directory.
    #[arg(long)]
    idf: Option<PathBuf>,
    /// Run directories written by instrumented programs.
    #[arg(required = true)]
    run_dirs: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct FlagsArgs {
    /// Flags for the C compiler.
    #[arg(long)]
    cflags: bool,
    /// Flags for the Fortran compiler.
    #[arg(long)]
    fflags: bool,
    /// Flags for the linker.
    #[arg(long)]
    libs: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Report(args)) => report(args),
        Some(Command::Flags(args)) => flags(args),
        Some(Command::Demo(args)) => demo::run(args),
        Some(Command::Overhead(args)) => overhead_cmd::run(args),
        Some(Command::Experiment(args)) => experiment::run(args),
        Some(Command::Calibrate(args)) => calibrate::run(args),
        None => instrument(cli.instrument),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Our error values already carry `file:line:col: error:` or
            // `error:`; anyhow context adds the outer story.
            let text = format!("{e:#}");
            if text.contains("error:") {
                eprintln!("{text}");
            } else {
                eprintln!("error: {text}");
            }
            ExitCode::FAILURE
        }
    }
}

fn instrument(args: InstrumentArgs) -> Result<ExitCode> {
    let selection: Selection = args.regions.parse()?;
    let (filter, filter_path) = match &args.filter {
        None => (Filter::default(), None),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("{}: cannot read filter file", p.display()))?;
            let shown = p.display().to_string();
            (Filter::parse(&shown, &text)?, Some(shown))
        }
    };
    use regio_instrumenter::fortran::SourceForm;
    // Order among --fixed and --free is clap's per-option order; a file
    // matched by both kinds is taken as --free/--fixed in the order below.
    let mut form_overrides = Vec::new();
    for (globs, form) in [
        (&args.fixed, SourceForm::Fixed),
        (&args.free, SourceForm::Free),
    ] {
        for g in globs {
            form_overrides.push(
                driver::FormOverride::new(g, form)
                    .with_context(|| format!("error: bad glob `{g}` for --fixed/--free"))?,
            );
        }
    }
    let rust_regio = match &args.rust_regio {
        Some(spec) => spec
            .parse()
            .map_err(|e| anyhow::anyhow!("error: --rust-regio `{spec}`: {e}"))?,
        None => Default::default(),
    };
    let opts = driver::Options {
        paths: args.paths,
        out: args.out,
        selection,
        filter,
        filter_path,
        form_overrides,
        rust_regio,
    };
    let outcome = driver::run(&opts)?;
    for d in &outcome.diagnostics {
        eprintln!("{d}");
    }
    let manifests = match outcome.cargo_manifests {
        0 => String::new(),
        n => format!(", {n} Cargo.toml given a regio dependency"),
    };
    eprintln!(
        "instrument: {} file(s) instrumented, {} source(s) without regions, {} copied{manifests}, {} failed; {} region(s); IDF: {}",
        outcome.instrumented,
        outcome.unchanged_sources,
        outcome.copied,
        outcome.failed,
        outcome.regions,
        outcome.idf_path.display()
    );
    Ok(if outcome.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn report(args: ReportArgs) -> Result<ExitCode> {
    let format: regio_analysis::Format = args.format.parse()?;
    let mut reports = Vec::new();
    for dir in &args.run_dirs {
        let run = regio_analysis::load_run(dir, args.idf.as_deref())?;
        reports.push(regio_analysis::merge(&run));
    }
    print!("{}", regio_analysis::render(&reports, format));
    Ok(ExitCode::SUCCESS)
}

fn flags(args: FlagsArgs) -> Result<ExitCode> {
    let rt = regio_instrumenter::runtime_locator::locate()?;
    let mut parts = Vec::new();
    if args.cflags || args.fflags {
        parts.push(rt.cflags());
    }
    if args.libs {
        parts.push(rt.libs());
    }
    if parts.is_empty() {
        anyhow::bail!("error: say which flags: --cflags, --fflags and/or --libs");
    }
    println!("{}", parts.join(" "));
    Ok(ExitCode::SUCCESS)
}
