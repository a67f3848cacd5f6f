//! End to end for the runtime under signals (issue 12, items 11 and 12):
//! instrumented C programs from testdata/c/ built against the runtime.
//!
//! - `sigalrm/`: a SIGALRM handler every 50 us calls an instrumented
//!   function while the main loop runs instrumented functions. The DRG must
//!   stay exact: the main loop's calls equal the program's own counters,
//!   children never exceed their parents, every handler invocation is
//!   either recorded (under the region it interrupted) or counted as
//!   dropped, and the handler's share of the run is sane.
//! - `termwrite/`: SIGTERM or SIGINT arrives while the exit-time profile
//!   is being written (the writer is held up by REGIO_TEST_WRITE_PAUSE_MS):
//!   the profile is complete, the program's buffered output is all there,
//!   and the process dies by the signal.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{
    cc, compile, instrument_bin, instrument_flags, machine, require_tool, run, testdata, Run,
    TestDir,
};
use regio_idf::rundir::{NodeRecord, Profile};
use serde_json::Value;

use crate::common::profiles;

const FLAGS: &[&str] = &["-O2", "-g", "-Wall", "-Wextra", "-Werror"];
const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// Sends `sig` to `pid` with kill(1).
fn kill(pid: u32, sig: i32) {
    let r = run(Command::new("kill")
        .args(["-s", if sig == SIGTERM { "TERM" } else { "INT" }])
        .arg(pid.to_string()));
    assert!(r.status.success(), "{}", r.describe());
}

fn have_c_toolchain() -> bool {
    require_tool(&cc(), "a C compiler (gcc)")
}

/// Builds testdata/c/NAME/NAME.c as it is and instrumented (functions).
fn build(name: &str, tmp: &TestDir) -> (PathBuf, PathBuf) {
    let file = testdata().join("c").join(name).join(format!("{name}.c"));
    let inst = tmp.join("inst");
    let r = run(Command::new(instrument_bin())
        .arg(&file)
        .arg("--out")
        .arg(&inst)
        .args(["--regions", "functions"]));
    assert!(r.status.success(), "instrumenting failed: {}", r.describe());
    let flags: Vec<String> = FLAGS.iter().map(|s| s.to_string()).collect();
    let plain = tmp.join(format!("{name}-plain"));
    compile(&cc(), &flags, &[file], &[], &plain);
    let mut iflags = flags;
    iflags.extend(instrument_flags("--cflags"));
    let bin = tmp.join(format!("{name}-instrumented"));
    compile(
        &cc(),
        &iflags,
        &[inst.join(format!("{name}.c"))],
        &instrument_flags("--libs"),
        &bin,
    );
    (plain, bin)
}

fn command(bin: &Path, cwd: &Path) -> Command {
    let mut c = Command::new(bin);
    c.current_dir(cwd);
    for var in ["REGIO_DIR", "REGIO_MODE", "REGIO_DISABLE"] {
        c.env_remove(var);
    }
    c
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The only profile in `dir`, parsed.
fn profile(dir: &Path) -> Profile {
    profiles::only(dir).unwrap_or_else(|| panic!("no profile in {:?}", files(dir)))
}

/// A node's region as its id in the IDF (the program has one IDF).
fn local_id(n: &NodeRecord) -> u64 {
    u64::from(profiles::local_id(n))
}

/// Region id -> function name, from the run directory's IDF.
fn region_names(dir: &Path) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(dir.join("regio.idf.json")).unwrap();
    let idf: Value = serde_json::from_str(&text).unwrap();
    idf["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_u64().unwrap(),
                r["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `word N` in the program's output line.
fn counter(stdout: &str, word: &str) -> u64 {
    let mut it = stdout.split_whitespace();
    while let Some(w) = it.next() {
        if w == word {
            return it.next().unwrap().parse().unwrap();
        }
    }
    panic!("no `{word}` in {stdout:?}")
}

#[test]
fn a_signal_handler_with_regions_leaves_the_drg_exact() {
    if !have_c_toolchain() {
        return;
    }
    let tmp = TestDir::new("sigalrm");
    let (_, bin) = build("sigalrm", &tmp);
    let dir = tmp.join("run");
    let r = run(command(&bin, tmp.path())
        .arg("200000")
        .env("REGIO_DIR", &dir));
    assert!(r.status.success(), "{}", r.describe());
    let (work, step, ticks) = (
        counter(&r.stdout, "work"),
        counter(&r.stdout, "step"),
        counter(&r.stdout, "ticks"),
    );
    assert_eq!((work, step), (200_000, 800_000));
    assert!(ticks > 0, "no SIGALRM arrived: {}", r.describe());

    let names = region_names(&dir);
    let p = profile(&dir);
    assert!(p.complete);
    let duration = p.duration_ns;
    assert_eq!(p.threads.len(), 1);
    let t = &p.threads[0];
    let dropped = t.dropped_calls;
    let nodes = &t.nodes;

    let mut calls: BTreeMap<&str, u64> = BTreeMap::new();
    let mut recursive: BTreeMap<&str, u64> = BTreeMap::new();
    let mut handler_inclusive = 0;
    for n in nodes {
        let name = names[&local_id(n)].as_str();
        *calls.entry(name).or_default() += n.calls;
        *recursive.entry(name).or_default() += n.recursive_calls;
        let (incl, excl) = (n.inclusive_ns, n.exclusive_ns);
        assert!(excl <= incl + 1, "{n:?}");
        assert!(
            incl <= duration + duration / 100,
            "{n:?} in a run of {duration} ns"
        );
        if let Some(parent) = n.parent {
            let par = &nodes[parent as usize];
            assert!(
                incl <= par.inclusive_ns + 1,
                "child {n:?}\nexceeds parent {par:?}"
            );
        }
        if name == "handler" {
            handler_inclusive += incl;
        }
    }
    let summary =
        format!("calls {calls:?} recursive {recursive:?} dropped {dropped} ticks {ticks}");
    // The main loop's figures are exact.
    assert_eq!(calls["main"], 1, "{summary}");
    assert_eq!(calls["work"], work, "{summary}");
    assert_eq!(calls["step"], step, "{summary}");
    for f in ["main", "work", "step"] {
        assert_eq!(recursive[f], 0, "{f}: {summary}");
    }
    // Every handler invocation enters `handler` and `on_tick`: recorded
    // together, or both dropped (it interrupted a probe).
    let recorded = calls.get("handler").copied().unwrap_or(0);
    assert_eq!(
        calls.get("on_tick").copied().unwrap_or(0),
        recorded,
        "{summary}"
    );
    assert_eq!(recorded * 2 + dropped, 2 * ticks, "{summary}");
    assert_eq!(
        recursive.get("handler").copied().unwrap_or(0),
        0,
        "{summary}"
    );
    // The handler took a part of the run, not a multiple of it.
    assert!(
        handler_inclusive < duration,
        "handler {handler_inclusive} ns of {duration} ns: {summary}"
    );
}

/// Runs termwrite with the profile writer held up, sends `signals` once its
/// temporary profile exists, and returns the run and its run directory.
fn killed_while_writing(bin: &Path, tmp: &TestDir, label: &str, signals: &[i32]) -> (Run, PathBuf) {
    let dir = tmp.join(format!("run-{label}"));
    // Spawned here rather than through `run` (the signals need its pid).
    let _turn = machine::command_turn();
    let start = Instant::now();
    let mut cmd = command(bin, tmp.path());
    // A shell starts background jobs with SIGINT ignored, and a child
    // inherits that: the program (and so the runtime, which keeps the
    // program's disposition) would rightly ignore the SIGINT this test
    // sends. The test is about the default disposition.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            for sig in [libc::SIGINT, libc::SIGTERM] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    let child = cmd
        .env("REGIO_DIR", &dir)
        .env("REGIO_TEST_WRITE_PAUSE_MS", "1500")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    loop {
        if files(&dir).iter().any(|n| n.contains(".tmp")) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary profile appeared: {:?}",
            files(&dir)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    for &sig in signals {
        kill(pid, sig);
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let r = Run {
        command: format!("{}", bin.display()),
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        wall: start.elapsed(),
    };
    (r, dir)
}

fn check_killed_while_writing(label: &str, signals: &[i32]) {
    if !have_c_toolchain() {
        return;
    }
    let tmp = TestDir::new(&format!("termwrite-{label}"));
    let (plain, bin) = build("termwrite", &tmp);
    let expected = run(&mut command(&plain, tmp.path()));
    assert!(expected.status.success(), "{}", expected.describe());
    let (r, dir) = killed_while_writing(&bin, &tmp, label, signals);
    // Dies by the (first) signal, after the write.
    assert_eq!(r.signal(), Some(signals[0]), "{}", r.describe());
    // The program's buffered output was flushed as exit() would have.
    assert_eq!(r.stdout, expected.stdout, "{}", r.describe());
    // The profile is the complete exit-time one, and nothing is left over.
    let leftovers: Vec<String> = files(&dir)
        .into_iter()
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let p = profile(&dir);
    assert_eq!(p.reason, "exit", "{}", r.describe());
    assert!(p.complete);
    let names = region_names(&dir);
    let nodes = &p.threads[0].nodes;
    assert!(nodes.len() > 1000, "{} nodes", nodes.len());
    let visits: u64 = nodes
        .iter()
        .filter(|n| ["f0", "f1", "f2", "f3", "f4", "f5"].contains(&names[&local_id(n)].as_str()))
        .map(|n| n.calls)
        .sum();
    assert_eq!(visits, counter(&expected.stdout, "visits"));
    for n in nodes {
        assert_eq!(n.open, 0, "{n:?}");
    }
}

#[test]
fn sigterm_during_the_exit_write_keeps_profile_and_output() {
    check_killed_while_writing("term", &[SIGTERM]);
}

#[test]
fn sigint_during_the_exit_write_keeps_profile_and_output() {
    check_killed_while_writing("int", &[SIGINT]);
}

#[test]
fn repeated_termination_signals_during_the_exit_write_change_nothing() {
    check_killed_while_writing("repeated", &[SIGTERM, SIGTERM, SIGINT, SIGTERM]);
}
