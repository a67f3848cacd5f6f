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
mod runtime_locator;
mod trace_cmds;
mod wrap;

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
    /// Measure small functions too: by default a function whose body is
    /// straight-line and a few statements long gets no probes (they would
    /// cost more than it does) and is only listed in the IDF; `--regions
    /// all` measures them as well.
    #[arg(long)]
    small_functions: bool,
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
    /// Make code left as written (`warning: not measured: ...`) an error
    /// that fails its file, for CI that wants everything measured.
    #[arg(long)]
    strict: bool,
    /// Instrument C sources as the compiler sees them: run `CC -E` with
    /// `--cflags` on each `.c` file, so functions that macros define are
    /// measured too (the copy is then the preprocessed unit).
    #[arg(long)]
    preprocess: bool,
    /// The compile flags for `--preprocess` (`-D`, `-I`, `-std`, ...), as
    /// one string split at blanks.
    #[arg(
        long,
        value_name = "FLAGS",
        allow_hyphen_values = true,
        requires = "preprocess"
    )]
    cflags: Option<String>,
    /// The compiler whose preprocessor `--preprocess` runs.
    #[arg(long, env = "CC", default_value = "cc", value_name = "CC")]
    cc: String,
    /// Neither instrument nor copy files or directories matching GLOB,
    /// relative to the input tree (`build/**`, `*.o`; a GLOB without `/`
    /// matches a name anywhere). Repeatable. Version control, Cargo
    /// `target/` and Regio's run and output directories are always left
    /// out.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
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
    /// Run a compiler command with its C and Fortran sources instrumented
    /// (`make CC="instrument wrap gcc"`).
    Wrap(wrap::WrapArgs),
    /// Export a REGIO_MODE=trace run to OTF2 (Vampir) or Perfetto JSON.
    Export(trace_cmds::ExportArgs),
    /// Per region: calls, measurement cost, trace bytes; a suggested filter.
    Score(trace_cmds::ScoreArgs),
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
    // Like every Unix filter, die quietly when the reader of our output
    // goes away (`instrument report RUN | head`): Rust ignores SIGPIPE, and
    // print! then panics on EPIPE.
    // SAFETY: no other thread runs yet; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Report(args)) => report(args),
        Some(Command::Flags(args)) => flags(args),
        Some(Command::Demo(args)) => demo::run(args),
        Some(Command::Overhead(args)) => overhead_cmd::run(args),
        Some(Command::Experiment(args)) => experiment::run(args),
        Some(Command::Calibrate(args)) => calibrate::run(args),
        Some(Command::Wrap(args)) => wrap::run(args),
        Some(Command::Export(args)) => trace_cmds::export(args),
        Some(Command::Score(args)) => trace_cmds::score(args),
        None => instrument(cli.instrument),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Our error values already carry `file:line:col: error:` or
            // `error:`; anyhow context adds the outer story.
            let text = error_text(&e);
            if text.contains("error:") {
                eprintln!("{text}");
            } else {
                eprintln!("error: {text}");
            }
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, `outer: inner`, leaving out a
/// cause whose text the line already holds (error values that print their
/// source, e.g. an io::Error, would otherwise show it twice).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if part.is_empty() || text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// A progress bar on stderr while a tree is instrumented, only when stderr
/// is a terminal (nothing in logs and pipes).
fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    let style = indicatif::ProgressStyle::with_template(
        "instrumenting {bar:30} {pos}/{len} files  {wide_msg}",
    )
    .ok()?;
    bar.set_style(style);
    Some(bar)
}

fn instrument(args: InstrumentArgs) -> Result<ExitCode> {
    let mut selection: Selection = args.regions.parse()?;
    selection.small_functions |= args.small_functions;
    let (filter, filter_path) = match &args.filter {
        None => (Filter::default(), None),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("{}: error: cannot read filter file", p.display()))?;
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
    let exclude = driver::Exclude::new(&args.exclude)
        .map_err(|e| anyhow::anyhow!("error: bad glob for --exclude: {e}"))?;
    let opts = driver::Options {
        paths: args.paths,
        out: args.out,
        selection,
        filter,
        filter_path,
        form_overrides,
        rust_regio,
        exclude,
        strict: args.strict,
        preprocess: args.preprocess.then(|| driver::Preprocess {
            cc: args.cc.clone(),
            cflags: args
                .cflags
                .as_deref()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_string)
                .collect(),
        }),
    };
    let bar = progress_bar();
    let outcome = driver::run_with_progress(&opts, &mut |p| {
        let Some(bar) = &bar else { return };
        match p {
            driver::Progress::Start { files } => bar.set_length(files as u64),
            driver::Progress::File { rel } => {
                bar.inc(1);
                bar.set_message(rel.to_string());
            }
            driver::Progress::Done => bar.finish_and_clear(),
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let outcome = outcome?;
    for d in &outcome.diagnostics {
        eprintln!("{d}");
    }
    let manifests = match outcome.cargo_manifests {
        0 => String::new(),
        n => format!(", {n} Cargo.toml given a regio dependency"),
    };
    let skipped = outcome
        .skipped_summary()
        .map_or(String::new(), |s| format!(", {s}"));
    let unmeasured = match (outcome.not_measured, outcome.left_as_written) {
        (0, _) => String::new(),
        (n, 0) => format!(", {n} place(s) left as written (not measured)"),
        (n, f) => {
            format!(", {n} place(s) left as written (not measured; {f} file(s) copied unchanged)")
        }
    };
    let small = match outcome.small_functions {
        0 => String::new(),
        n => format!(", {n} small function(s) left unmeasured (--small-functions measures them)"),
    };
    eprintln!(
        "instrument: {} file(s) instrumented, {} source(s) without regions, {} copied{manifests}{skipped}{unmeasured}{small}, {} failed; {} region(s); IDF: {}",
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
    use std::io::Write as _;
    // Streamed (JSON of a million nodes is gigabytes); a reader that
    // stops early (`| head`) is no error.
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match regio_analysis::render_to(&reports, format, &mut out).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write the report")?
        }
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}

fn flags(args: FlagsArgs) -> Result<ExitCode> {
    use crate::runtime_locator;
    let mut parts = Vec::new();
    if args.libs {
        let rt = runtime_locator::locate()?;
        if args.cflags || args.fflags {
            parts.push(rt.cflags());
        }
        parts.push(rt.libs());
    } else if args.cflags || args.fflags {
        // The compiler needs the header only; no library has to exist yet.
        parts.push(runtime_locator::cflags_for(
            &runtime_locator::locate_include()?,
        ));
    }
    if parts.is_empty() {
        anyhow::bail!("error: say which flags: --cflags, --fflags and/or --libs");
    }
    println!("{}", parts.join(" "));
    Ok(ExitCode::SUCCESS)
}
