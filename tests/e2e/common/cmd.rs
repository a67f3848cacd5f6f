//! Running commands and describing what they did.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// What a finished command did.
#[derive(Debug, Clone)]
pub struct Run {
    pub command: String,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// Wall time from spawn to exit, as seen by the test.
    pub wall: Duration,
}

impl Run {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// The signal that killed the process, if any.
    pub fn signal(&self) -> Option<i32> {
        self.status.signal()
    }

    /// `exit N` or `signal N`, for comparisons and messages.
    pub fn outcome(&self) -> String {
        match (self.code(), self.signal()) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(s)) => format!("signal {s}"),
            (None, None) => "unknown status".to_string(),
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "`{}` ended with {} after {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.command,
            self.outcome(),
            self.wall,
            self.stdout,
            self.stderr
        )
    }
}

fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    if let Some(dir) = cmd.get_current_dir() {
        s.push_str(&format!("  (in {})", dir.display()));
    }
    s
}

/// Run `cmd` to completion, capturing stdout and stderr. Panics only if
/// the command cannot be started at all.
pub fn run(cmd: &mut Command) -> Run {
    measure_everything(cmd);
    let command = show(cmd);
    let _turn = super::machine::command_turn();
    let start = Instant::now();
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{command}`: {e}"));
    let wall = start.elapsed();
    Run {
        command,
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        wall,
    }
}

/// The tests compare exact call counts of hot code with ground truth, so
/// every command runs with automatic throttling off (`REGIO_THROTTLE=off`)
/// unless the test set or removed `REGIO_THROTTLE` itself (the throttle
/// tests, `throttle.rs`).
///
/// Likewise they count calls of small functions, which `instrument` leaves
/// unmeasured by default: every `instrument PATH...` command gets
/// `--small-functions` and every command `REGIO_WRAP_SMALL_FUNCTIONS=1`
/// (for `instrument wrap` under make and CMake), unless the test set
/// `REGIO_WRAP_SMALL_FUNCTIONS` itself (any value: the tests of the rule,
/// `small_functions.rs`, set it to 0 to get the default).
pub fn measure_everything(cmd: &mut Command) {
    let has = |cmd: &Command, var: &str| cmd.get_envs().any(|(k, _)| k == var);
    if !has(cmd, "REGIO_THROTTLE") {
        cmd.env("REGIO_THROTTLE", "off");
    }
    if !has(cmd, SMALL_FUNCTIONS_ENV) {
        cmd.env(SMALL_FUNCTIONS_ENV, "1");
        if instruments_a_tree(cmd) {
            cmd.arg("--small-functions");
        }
    }
}

/// `instrument wrap`'s setting, also the tests' marker (see above).
pub const SMALL_FUNCTIONS_ENV: &str = "REGIO_WRAP_SMALL_FUNCTIONS";

/// `instrument PATH...` (tree mode), not a subcommand.
fn instruments_a_tree(cmd: &Command) -> bool {
    const SUBCOMMANDS: &[&str] = &[
        "report",
        "flags",
        "demo",
        "overhead",
        "experiment",
        "calibrate",
        "wrap",
        "export",
        "score",
        "help",
    ];
    let first = cmd
        .get_args()
        .next()
        .map(|a| a.to_string_lossy().into_owned());
    std::path::Path::new(cmd.get_program()) == super::instrument_bin()
        && first.is_some_and(|a| !SUBCOMMANDS.contains(&a.as_str()) && a != "--help")
        && !cmd.get_args().any(|a| a == "--small-functions")
}

/// Like [`run`], but a non-zero exit is a test failure.
pub fn run_ok(cmd: &mut Command) -> Run {
    let r = run(cmd);
    assert!(r.status.success(), "command failed: {}", r.describe());
    r
}

/// Starts `cmd` with its stdout piped and waits for the program's first
/// line, which must be `ready`: the point from which the tests that kill a
/// program know it has recorded something.
pub fn spawn_until_ready(cmd: &mut Command) -> std::process::Child {
    use std::io::{BufRead, BufReader};
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.get_program()));
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        BufReader::new(out)
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(line.trim(), "ready");
    child
}

/// SIGKILLs a child and reaps it, as the OOM killer or a batch system's
/// time limit would end a run.
pub fn sigkill(mut child: std::process::Child) {
    child.kill().unwrap_or_else(|e| panic!("{e}"));
    let _ = child.wait();
}
