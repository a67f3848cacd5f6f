//! `REGIO_SNAPSHOT=SECONDS` end to end (testdata/events/snapshot.c):
//!
//! - a program SIGKILLed after several snapshot periods leaves a readable
//!   profile marked as a snapshot (`snapshot: true`, reason `snapshot`,
//!   incomplete), whose counts grew between snapshots and are > 0, and
//!   `instrument report` says it is one;
//! - every profile read while a program runs parses (written by rename),
//!   its counts never exceed the final ones, and a normal run ends with the
//!   final, complete, non-snapshot profile; the program's output is the
//!   same with and without snapshots;
//! - the snapshot thread does not keep a process alive whose last program
//!   thread leaves by `pthread_exit`;
//! - children forked while snapshots are written every 10 ms all leave
//!   their final profile (the writer lock a snapshot held at the fork is
//!   released in the child).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use regio_idf::rundir::Profile;
use serde_json::Value;

use crate::common::cmd::{sigkill, spawn_until_ready};
use crate::common::profiles;
use crate::common::{
    cc, compile, instrument_bin, instrument_flags, instrument_testdata, run, run_ok, TestDir,
};

const PERIOD: &str = "0.2";

/// Instruments and builds testdata/events/snapshot.c; returns the binary
/// and the IDF.
fn build(tmp: &TestDir) -> (PathBuf, PathBuf) {
    let inst = instrument_testdata(tmp, "events", "snapshot.c", "functions");
    let mut flags: Vec<String> = vec!["-O1".into(), "-pthread".into()];
    flags.extend(instrument_flags("--cflags"));
    let exe = tmp.join("prog");
    let mut libs = instrument_flags("--libs");
    libs.push("-pthread".into());
    compile(&cc(), &flags, &[inst.join("snapshot.c")], &libs, &exe);
    (exe, inst.join("regio.idf.json"))
}

fn program(exe: &Path, run_dir: &Path, snapshot: Option<&str>) -> Command {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_SNAPSHOT")
        .env("REGIO_MODE", "profile")
        .env("REGIO_DIR", run_dir);
    if let Some(s) = snapshot {
        c.env("REGIO_SNAPSHOT", s);
    }
    c
}

/// The region id of `step` in the IDF.
fn step_id(idf: &Path) -> u64 {
    let text = std::fs::read_to_string(idf).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    v["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["name"] == "step")
        .and_then(|r| r["id"].as_u64())
        .unwrap_or_else(|| panic!("no region `step` in {}", idf.display()))
}

/// The run directory's profile, if one was written yet; every profile
/// that exists must parse (it is renamed into place whole).
fn profile(run_dir: &Path) -> Option<Profile> {
    profiles::only(run_dir)
}

/// Calls of IDF region `id` over the profile's threads and nodes (C ids
/// in profiles are the object's base + the IDF id).
fn calls(p: &Profile, id: u64) -> u64 {
    profiles::nodes(std::slice::from_ref(p))
        .filter(|(_, _, n)| u64::from(profiles::local_id(n)) == id)
        .map(|(_, _, n)| n.calls)
        .sum()
}

fn assert_snapshot(p: &Profile) {
    assert!(p.snapshot, "{p:?}");
    assert_eq!(p.reason, "snapshot");
    assert!(!p.complete);
}

/// Waits for `child` up to `limit`; kills it and fails after that.
fn wait_for(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let end = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap_or_else(|e| panic!("{e}")) {
            return status;
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the program did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigkilled_program_leaves_its_last_snapshot() {
    let tmp = TestDir::new("snapshot-kill");
    let (exe, idf) = build(&tmp);
    let step = step_id(&idf);
    let run_dir = tmp.join("run");
    let child = spawn_until_ready(&mut program(&exe, &run_dir, Some(PERIOD)));
    // Two snapshots with growing counts: the profile is rewritten while
    // the program runs.
    let end = Instant::now() + Duration::from_secs(30);
    let mut seen: Vec<u64> = Vec::new();
    while seen.len() < 2 || seen[0] == seen[seen.len() - 1] {
        assert!(Instant::now() < end, "snapshots seen: {seen:?}");
        if let Some(p) = profile(&run_dir) {
            assert_snapshot(&p);
            let n = calls(&p, step);
            if seen.last() != Some(&n) {
                seen.push(n);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    sigkill(child);
    let p = profile(&run_dir).unwrap_or_else(|| panic!("no profile after SIGKILL"));
    assert_snapshot(&p);
    let last = calls(&p, step);
    assert!(
        last > 0 && last >= seen[seen.len() - 1],
        "last snapshot {last} calls, seen before {seen:?}"
    );
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");

    // The report reads it and says what it is (the IDF is copied with
    // every snapshot).
    let text = run_ok(Command::new(instrument_bin()).arg("report").arg(&run_dir));
    assert!(
        text.stdout
            .contains("INCOMPLETE: a snapshot (REGIO_SNAPSHOT) written while the program ran"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("step"), "{}", text.stdout);
}

#[test]
fn normal_run_ends_with_the_final_profile_and_same_output() {
    let tmp = TestDir::new("snapshot-final");
    let (exe, idf) = build(&tmp);
    let step = step_id(&idf);
    let steps = 50u64;
    let plain = run(program(&exe, &tmp.join("plain"), None).arg(steps.to_string()));
    assert_eq!(plain.code(), Some(0), "{}", plain.describe());

    let run_dir = tmp.join("run");
    let mut child = program(&exe, &run_dir, Some(PERIOD))
        .arg(steps.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
    let mut snapshots: Vec<u64> = Vec::new();
    let end = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap_or_else(|e| panic!("{e}")).is_none() {
        assert!(Instant::now() < end, "the program did not end");
        if let Some(p) = profile(&run_dir) {
            if p.snapshot {
                assert_snapshot(&p);
                snapshots.push(calls(&p, step));
            }
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), plain.stdout);
    assert_eq!(String::from_utf8_lossy(&out.stderr), plain.stderr);

    let p = profile(&run_dir).unwrap_or_else(|| panic!("no final profile"));
    assert!(!p.snapshot, "{p:?}");
    assert_eq!(p.reason, "exit");
    assert!(p.complete);
    assert_eq!(calls(&p, step), steps);
    // 50 steps of 20 ms or more span several 0.2 s periods.
    assert!(!snapshots.is_empty(), "no snapshot seen during the run");
    assert!(
        snapshots.iter().all(|&n| n > 0 && n <= steps),
        "snapshot counts {snapshots:?}, final {steps}"
    );
}

#[test]
fn snapshot_thread_does_not_keep_the_process_alive() {
    let tmp = TestDir::new("snapshot-thread-exit");
    let (exe, idf) = build(&tmp);
    let step = step_id(&idf);
    let run_dir = tmp.join("run");
    let mut child = program(&exe, &run_dir, Some(PERIOD))
        .arg("thread-exit")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
    let status = wait_for(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(0), "{status:?}");
    let p = profile(&run_dir).unwrap_or_else(|| panic!("no profile"));
    assert!(!p.snapshot, "{p:?}");
    assert_eq!(p.reason, "exit");
    assert_eq!(calls(&p, step), 5);
}

#[test]
fn children_forked_during_snapshots_write_their_profiles() {
    let tmp = TestDir::new("snapshot-forks");
    let (exe, idf) = build(&tmp);
    let step = step_id(&idf);
    let run_dir = tmp.join("run");
    let mut child = program(&exe, &run_dir, Some("0.01"))
        .arg("forks")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
    let status = wait_for(&mut child, Duration::from_secs(60));
    assert_eq!(status.code(), Some(0), "{status:?}");
    let mut children = 0;
    for path in profiles::paths(&run_dir) {
        let p = profiles::read(&path);
        assert!(!p.snapshot, "{}: {p:?}", path.display());
        if calls(&p, step) == 1 {
            children += 1;
        }
    }
    assert_eq!(children, 20, "every child's final profile");
}
