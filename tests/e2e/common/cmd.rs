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
pub fn measure_everything(cmd: &mut Command) {
    if !cmd.get_envs().any(|(k, _)| k == "REGIO_THROTTLE") {
        cmd.env("REGIO_THROTTLE", "off");
    }
}

/// Like [`run`], but a non-zero exit is a test failure.
pub fn run_ok(cmd: &mut Command) -> Run {
    let r = run(cmd);
    assert!(r.status.success(), "command failed: {}", r.describe());
    r
}
