//! `instrument demo`: the whole workflow of SPEC.md on a bundled C program,
//! printing each command as a user would type it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use clap::Args;
use regio_instrumenter::{driver, filter::Filter};

use crate::runtime_locator;

const HEAT_C: &str = include_str!("../demo/heat.c");

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Working directory for the demo (default: a new directory under the
    /// system temporary directory).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// C compiler to use.
    #[arg(long, env = "CC", default_value = "cc")]
    cc: String,
}

fn show(cmd: &Command) {
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    eprintln!(
        "$ {} {}",
        cmd.get_program().to_string_lossy(),
        args.join(" ")
    );
}

fn run_checked(mut cmd: Command, what: &str) -> Result<std::process::Output> {
    show(&cmd);
    let out = cmd
        .output()
        .with_context(|| format!("cannot start {what} ({:?})", cmd.get_program()))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out)
}

pub fn run(args: DemoArgs) -> Result<ExitCode> {
    let work = match args.dir {
        Some(d) => d,
        None => std::env::temp_dir().join(format!("regio-demo-{}", std::process::id())),
    };
    let src = work.join("src");
    std::fs::create_dir_all(&src).with_context(|| format!("{}: cannot create", src.display()))?;
    driver::write_atomically(&src.join("heat.c"), HEAT_C.as_bytes())?;
    eprintln!("demo: working in {}", work.display());

    // 1. instrument src/ --out inst --regions functions,loops,user
    let inst = work.join("inst");
    eprintln!(
        "$ instrument {} --out {} --regions functions,loops,user",
        src.display(),
        inst.display()
    );
    let outcome = driver::run(&driver::Options {
        strict: false,
        preprocess: None,
        paths: vec![src.clone()],
        out: inst.clone(),
        selection: "functions,loops,user".parse()?,
        filter: Filter::default(),
        filter_path: None,
        form_overrides: Vec::new(),
        rust_regio: Default::default(),
        exclude: Default::default(),
    })?;
    for d in &outcome.diagnostics {
        eprintln!("{d}");
    }
    if outcome.failed > 0 {
        bail!("instrumenting the demo failed");
    }
    eprintln!(
        "   {} regions, IDF {}",
        outcome.regions,
        outcome.idf_path.display()
    );

    // 2. cc $(instrument flags --cflags) inst/heat.c $(instrument flags --libs)
    let rt = runtime_locator::locate()?;
    let exe = work.join("heat");
    let mut cc = Command::new(&args.cc);
    cc.arg("-O2")
        .args(rt.cflags().split_whitespace())
        .arg(inst.join("heat.c"))
        .arg("-o")
        .arg(&exe)
        .args(rt.libs().split_whitespace());
    run_checked(cc, "the C compiler")?;

    // 3. REGIO_DIR=run ./heat
    let run_dir = work.join("run");
    let _ = std::fs::remove_dir_all(&run_dir);
    eprintln!("$ REGIO_DIR={} {}", run_dir.display(), exe.display());
    let mut prog = Command::new(&exe);
    prog.env("REGIO_DIR", &run_dir);
    let out = run_checked(prog, "the instrumented demo program")?;
    print!("{}", String::from_utf8_lossy(&out.stdout));

    // 4. instrument report run
    eprintln!("$ instrument report {}", run_dir.display());
    print_report(&run_dir)?;
    Ok(ExitCode::SUCCESS)
}

fn print_report(run_dir: &Path) -> Result<()> {
    let run = regio_analysis::load_run(run_dir, None)?;
    let report = regio_analysis::merge(&run);
    print!(
        "{}",
        regio_analysis::render(&[report], regio_analysis::Format::Text)
    );
    Ok(())
}
