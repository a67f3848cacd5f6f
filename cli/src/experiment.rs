//! `instrument experiment --threads 1,2,4 [--ranks 1,2] -- CMD...`: run a
//! scaling experiment (each configuration `--repeat` times, keeping the
//! run with the median wall time), store the run directories under
//! `--out`, and print the overhead table against the first configuration
//! (or `--baseline`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::overhead_cmd::{self, CompensationArgs};

#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// Thread counts (OMP_NUM_THREADS), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<u32>,
    /// MPI rank counts, comma-separated (run through --launcher).
    #[arg(long, value_delimiter = ',')]
    pub ranks: Vec<u32>,
    /// How to start N ranks; `{n}` is replaced by the rank count.
    // clap turns every `{n}` of a help text into a line break, so the help
    // is given with a zero-width style reset inside the placeholder (see
    // `launcher_help`); the doc comment above is for readers of the code.
    #[arg(long, default_value = "mpirun -np {n}", help = launcher_help())]
    pub launcher: String,
    /// Runs per configuration; the one with the median wall time is kept.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Where the run directories go.
    #[arg(long, default_value = "regio-experiment")]
    pub out: PathBuf,
    /// A sequential run directory to use as T_s instead of the first
    /// configuration.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    #[command(flatten)]
    pub compensation: CompensationArgs,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// The help of `--launcher`. clap replaces `{n}` in help texts by a line
/// break and has no escape for it; a style reset between `{` and `n`
/// keeps the text from matching, and clap strips it again where no colour
/// is written (and a terminal shows nothing for it).
fn launcher_help() -> clap::builder::StyledStr {
    let reset = clap::builder::styling::Reset;
    format!("How to start N ranks; `{{{reset}n}}` is replaced by the rank count").into()
}

/// One point of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Config {
    threads: Option<u32>,
    ranks: Option<u32>,
}

impl Config {
    fn processors(self) -> u32 {
        self.threads.unwrap_or(1) * self.ranks.unwrap_or(1)
    }

    fn label(self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = self.threads {
            parts.push(format!("t{t}"));
        }
        if let Some(r) = self.ranks {
            parts.push(format!("r{r}"));
        }
        parts.join("-")
    }
}

fn configs(threads: &[u32], ranks: &[u32]) -> Result<Vec<Config>> {
    if threads.iter().chain(ranks).any(|&n| n == 0) {
        bail!("error: thread and rank counts must be at least 1");
    }
    let ts: Vec<Option<u32>> = if threads.is_empty() {
        vec![None]
    } else {
        threads.iter().copied().map(Some).collect()
    };
    let rs: Vec<Option<u32>> = if ranks.is_empty() {
        vec![None]
    } else {
        ranks.iter().copied().map(Some).collect()
    };
    if threads.is_empty() && ranks.is_empty() {
        bail!("error: say what to scale: --threads LIST and/or --ranks LIST");
    }
    let mut all: Vec<Config> = rs
        .iter()
        .flat_map(|&r| {
            ts.iter().map(move |&t| Config {
                threads: t,
                ranks: r,
            })
        })
        .collect();
    // The first configuration is the baseline (T_s): the one with the
    // fewest processors, whatever order the lists were given in.
    all.sort_by_key(|c| c.processors());
    Ok(all)
}

/// The command line of one run: the launcher (for ranks) then the program.
fn command_for(args: &ExperimentArgs, c: Config) -> Result<Command> {
    let mut words: Vec<String> = Vec::new();
    if let Some(n) = c.ranks {
        words.extend(
            args.launcher
                .split_whitespace()
                .map(|w| w.replace("{n}", &n.to_string())),
        );
    }
    words.extend(args.command.iter().cloned());
    let (program, rest) = words
        .split_first()
        .context("error: no command to run after `--`")?;
    let mut cmd = Command::new(program);
    cmd.args(rest);
    if let Some(t) = c.threads {
        cmd.env("OMP_NUM_THREADS", t.to_string());
    }
    Ok(cmd)
}

/// Runs one repetition into `run_dir`, program output into files there.
fn run_once(args: &ExperimentArgs, c: Config, run_dir: &Path) -> Result<f64> {
    if run_dir.exists() {
        std::fs::remove_dir_all(run_dir)
            .with_context(|| format!("error: cannot clear {}", run_dir.display()))?;
    }
    std::fs::create_dir_all(run_dir)
        .with_context(|| format!("error: cannot create {}", run_dir.display()))?;
    let stdout = std::fs::File::create(run_dir.join("stdout.txt"))?;
    let stderr = std::fs::File::create(run_dir.join("stderr.txt"))?;
    let mut cmd = command_for(args, c)?;
    cmd.env("REGIO_DIR", run_dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    if c.ranks.is_some() && args.launcher.starts_with("mpirun") {
        // Open MPI forwards only variables it is told about.
        cmd.env("OMPI_MCA_mca_base_env_list", "REGIO_DIR;OMP_NUM_THREADS");
    }
    let t0 = Instant::now();
    let status = cmd
        .status()
        .with_context(|| format!("error: cannot run {:?}", args.command))?;
    let wall = t0.elapsed().as_secs_f64();
    if !status.success() {
        bail!(
            "error: {} ended with {status} (output in {})",
            c.label(),
            run_dir.display()
        );
    }
    Ok(wall)
}

/// The run with the median wall time (the lower middle one of an even
/// count, so an outlier never gets kept).
fn median_index(runs: &[(f64, PathBuf)]) -> usize {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|&a, &b| runs[a].0.total_cmp(&runs[b].0));
    order[(runs.len() - 1) / 2]
}

pub fn run(mut args: ExperimentArgs) -> Result<ExitCode> {
    let json = overhead_cmd::check_format(&args.format)?;
    let configs = configs(&args.threads, &args.ranks)?;
    if !args.threads.is_sorted() || !args.ranks.is_sorted() {
        let labels: Vec<String> = configs.iter().map(|c| c.label()).collect();
        eprintln!(
            "note: configurations run in order of processor count ({}); the first is the baseline",
            labels.join(", ")
        );
    }
    if !args.ranks.is_empty() && !args.launcher.contains("{n}") {
        bail!(
            "error: --launcher `{}` has no `{{n}}` where the rank count goes",
            args.launcher
        );
    }
    if configs.len() < 2 && args.baseline.is_none() {
        bail!("error: nothing to compare with the baseline: give at least two configurations or --baseline");
    }
    // The program may change directory (a launcher may start it
    // elsewhere): give it an absolute run directory.
    args.out = std::path::absolute(&args.out)
        .with_context(|| format!("error: bad --out {}", args.out.display()))?;
    let repeat = args.repeat.max(1);
    let total = configs.len() as u32 * repeat;
    let mut kept: Vec<(PathBuf, u32)> = Vec::new();
    let mut done = 0;
    for &c in &configs {
        let mut runs: Vec<(f64, PathBuf)> = Vec::new();
        for k in 1..=repeat {
            done += 1;
            let dir = args.out.join(format!("{}-run{k}", c.label()));
            eprint!("[{done}/{total}] {} run {k}/{repeat} ... ", c.label());
            let _ = std::io::stderr().flush();
            let wall = run_once(&args, c, &dir)?;
            eprintln!("{wall:.3} s");
            runs.push((wall, dir));
        }
        let (_, median) = runs.swap_remove(median_index(&runs));
        let keep = args.out.join(c.label());
        if keep.exists() {
            std::fs::remove_dir_all(&keep)?;
        }
        std::fs::rename(&median, &keep)
            .with_context(|| format!("error: cannot keep {}", median.display()))?;
        for (_, other) in runs {
            let _ = std::fs::remove_dir_all(other);
        }
        kept.push((keep, c.processors()));
    }
    let (baseline, parallel): (PathBuf, &[(PathBuf, u32)]) = match &args.baseline {
        Some(b) => (b.clone(), &kept[..]),
        None => (kept[0].0.clone(), &kept[1..]),
    };
    if parallel.is_empty() {
        bail!("error: nothing to compare with the baseline: give at least two configurations or --baseline");
    }
    let runs: Vec<(PathBuf, Option<u32>)> = parallel
        .iter()
        .map(|(d, p)| (d.clone(), Some(*p)))
        .collect();
    print!(
        "{}",
        overhead_cmd::analyse(&baseline, &runs, &args.compensation, json)?
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_help_shows_the_placeholder() {
        use clap::Args as _;
        let mut cmd = ExperimentArgs::augment_args(clap::Command::new("experiment"));
        let help = cmd.render_help().to_string();
        assert!(
            help.contains("How to start N ranks; `{n}` is replaced by the rank count"),
            "{help}"
        );
        assert!(help.contains("[default: \"mpirun -np {n}\"]"), "{help}");
        assert!(!help.contains('\u{1b}'), "{help:?}");
        // The long help (--help) as well.
        let long = cmd.render_long_help().to_string();
        assert!(
            long.contains("`{n}` is replaced by the rank count"),
            "{long}"
        );
    }

    #[test]
    fn configurations_combine_threads_and_ranks() {
        let c = configs(&[1, 2], &[1, 4]).unwrap();
        let labels: Vec<String> = c.iter().map(|c| c.label()).collect();
        assert_eq!(labels, ["t1-r1", "t2-r1", "t1-r4", "t2-r4"]);
        assert_eq!(c[3].processors(), 8);
        assert!(configs(&[], &[]).is_err());
        // The baseline comes first whatever the order given (issue 12
        // item 15: `--threads 4,1` measured against 4 threads).
        let c = configs(&[4, 1, 2], &[]).unwrap();
        let labels: Vec<String> = c.iter().map(|c| c.label()).collect();
        assert_eq!(labels, ["t1", "t2", "t4"]);
        assert!(configs(&[0], &[]).is_err());
    }

    #[test]
    fn the_median_run_is_kept() {
        let runs = |walls: &[f64]| -> Vec<(f64, PathBuf)> {
            walls
                .iter()
                .map(|w| (*w, PathBuf::from(w.to_string())))
                .collect()
        };
        assert_eq!(median_index(&runs(&[3.0, 1.0, 2.0])), 2);
        assert_eq!(median_index(&runs(&[5.0, 9.0, 1.0, 2.0])), 3);
        assert_eq!(median_index(&runs(&[4.0])), 0);
    }
}
