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
//!
//! The first two also run in trace mode (`REGIO_MODE=trace`, a 64 KiB
//! `REGIO_TRACE_BUFFER`, written out every few steps): after SIGKILL the
//! last snapshot is there as in profile mode and the trace file reads up
//! to its last complete block (several blocks, every whole step in it with
//! its 1000 `inner` calls, nested, in time order); a normal run ends with
//! the final profile, a whole trace that holds every call the profile
//! counts, and the program's output unchanged by the snapshots.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use regio_idf::rundir::{Profile, OBJECT_ID_STRIDE};
use serde_json::Value;

use regio_trace_format::{decode, Event, TraceFile};

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

/// `REGIO_MODE` of a run: snapshots are the same in both.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Profile,
    Trace,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Profile => "profile",
            Mode::Trace => "trace",
        }
    }
}

/// Trace mode's buffer: the smallest, about 8 steps of records, so blocks
/// are written out while the program runs.
const TRACE_BUFFER: &str = "64K";

fn program(exe: &Path, run_dir: &Path, snapshot: Option<&str>) -> Command {
    program_in(Mode::Profile, exe, run_dir, snapshot)
}

fn program_in(mode: Mode, exe: &Path, run_dir: &Path, snapshot: Option<&str>) -> Command {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_SNAPSHOT")
        .env("REGIO_MODE", mode.name())
        .env("REGIO_TRACE_BUFFER", TRACE_BUFFER)
        // `inner`, hot and brief, would be throttled after 10 000 calls;
        // the trace tests count every call.
        .env("REGIO_THROTTLE", "off")
        .env("REGIO_DIR", run_dir);
    if let Some(s) = snapshot {
        c.env("REGIO_SNAPSHOT", s);
    }
    c
}

/// The run directory's trace files, decoded (a file cut by SIGKILL reads
/// up to its last complete block), by name.
fn traces(run_dir: &Path) -> Vec<(String, TraceFile)> {
    let mut out: Vec<(String, TraceFile)> = std::fs::read_dir(run_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("trace-") && n.ends_with(".rtrace"))
        .map(|n| {
            let data = std::fs::read(run_dir.join(&n)).unwrap_or_else(|e| panic!("{n}: {e}"));
            let f = decode(&data).unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, f)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Enter records per IDF region id of one trace file, the regions open at
/// its end (innermost last), and the `inner` enters of each step that
/// ends in it; panics on an exit that closes another region's enter or a
/// record earlier than the one before.
struct Walk {
    enters: BTreeMap<u64, u64>,
    open: Vec<u64>,
    inner_per_step: Vec<u64>,
}

fn walk(name: &str, f: &TraceFile, step: u64, inner: u64) -> Walk {
    let mut w = Walk {
        enters: BTreeMap::new(),
        open: Vec::new(),
        inner_per_step: Vec::new(),
    };
    let mut last = 0;
    let mut in_step = 0;
    for (i, r) in f.records.iter().enumerate() {
        assert!(r.ticks >= last, "{name}: record {i} goes back in time");
        last = r.ticks;
        match r.event {
            Event::Enter { region } => {
                let id = u64::from(region % OBJECT_ID_STRIDE);
                *w.enters.entry(id).or_default() += 1;
                w.open.push(id);
                if id == step {
                    in_step = 0;
                } else if id == inner {
                    in_step += 1;
                }
            }
            Event::Exit { region } => {
                let id = u64::from(region % OBJECT_ID_STRIDE);
                assert_eq!(
                    w.open.pop(),
                    Some(id),
                    "{name}: record {i}: exit without its enter"
                );
                if id == step {
                    w.inner_per_step.push(in_step);
                }
            }
            _ => {}
        }
    }
    w
}

/// The region id of `step` in the IDF.
fn step_id(idf: &Path) -> u64 {
    region_id(idf, "step")
}

/// The region id of function `name` in the IDF.
fn region_id(idf: &Path, name: &str) -> u64 {
    let text = std::fs::read_to_string(idf).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    v["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["name"] == name)
        .and_then(|r| r["id"].as_u64())
        .unwrap_or_else(|| panic!("no region `{name}` in {}", idf.display()))
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

/// A program the test SIGKILLs: killed (and reaped) when a failed
/// assertion unwinds first, so it does not outlive the test.
struct KillOnDrop(Option<Child>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
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
    sigkilled_program_leaves_its_last_snapshot_in(Mode::Profile);
}

#[test]
fn sigkilled_trace_mode_program_leaves_its_last_snapshot_and_readable_traces() {
    sigkilled_program_leaves_its_last_snapshot_in(Mode::Trace);
}

fn sigkilled_program_leaves_its_last_snapshot_in(mode: Mode) {
    let tmp = TestDir::new(&format!("snapshot-kill-{}", mode.name()));
    let (exe, idf) = build(&tmp);
    let step = step_id(&idf);
    let run_dir = tmp.join("run");
    let mut child = KillOnDrop(Some(spawn_until_ready(&mut program_in(
        mode,
        &exe,
        &run_dir,
        Some(PERIOD),
    ))));
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
    if mode == Mode::Trace {
        // And blocks written out (about every 8 steps): waited for, not
        // timed.
        while traces(&run_dir).iter().map(|(_, f)| f.blocks).sum::<u32>() < 2 {
            assert!(Instant::now() < end, "no trace blocks written out");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    if let Some(c) = child.0.take() {
        sigkill(c);
    }
    let p = profile(&run_dir).unwrap_or_else(|| panic!("no profile after SIGKILL"));
    assert_snapshot(&p);
    assert_eq!(p.mode, mode.name());
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

    let files = traces(&run_dir);
    if mode == Mode::Profile {
        assert!(
            files.is_empty(),
            "{:?}",
            files.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        return;
    }
    // The program's one thread (the snapshot thread records nothing):
    // one file, read up to its last complete block; what the buffer held
    // at the kill is lost. Whole blocks hold whole steps but the last:
    // each with its 1000 `inner` calls, nested, in time order.
    assert_eq!(
        files.len(),
        1,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let (name, f) = &files[0];
    assert!(f.blocks >= 2, "{name}: {} blocks", f.blocks);
    let w = walk(name, f, step, region_id(&idf, "inner"));
    assert!(
        w.inner_per_step.len() >= 8,
        "{name}: {:?}",
        w.inner_per_step
    );
    assert!(
        w.inner_per_step.iter().all(|&n| n == 1000),
        "{name}: inner calls per whole step {:?}",
        w.inner_per_step
    );
    let main = region_id(&idf, "main");
    assert_eq!(w.open.first(), Some(&main), "{name}: {:?}", w.open);
    assert!(w.open.len() <= 3, "main, step, inner at most: {:?}", w.open);
}

#[test]
fn normal_run_ends_with_the_final_profile_and_same_output() {
    normal_run_ends_with_the_final_profile_and_same_output_in(Mode::Profile);
}

#[test]
fn normal_trace_mode_run_ends_with_the_final_profile_whole_traces_and_same_output() {
    normal_run_ends_with_the_final_profile_and_same_output_in(Mode::Trace);
}

fn normal_run_ends_with_the_final_profile_and_same_output_in(mode: Mode) {
    let tmp = TestDir::new(&format!("snapshot-final-{}", mode.name()));
    let (exe, idf) = build(&tmp);
    let step = step_id(&idf);
    let steps = 50u64;
    let plain = run(program_in(mode, &exe, &tmp.join("plain"), None).arg(steps.to_string()));
    assert_eq!(plain.code(), Some(0), "{}", plain.describe());

    let run_dir = tmp.join("run");
    let mut child = program_in(mode, &exe, &run_dir, Some(PERIOD))
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

    let files = traces(&run_dir);
    if mode == Mode::Profile {
        assert!(files.is_empty());
        return;
    }
    // Snapshots write the profile only: the trace, written out while the
    // program ran and finished at its exit, is whole and holds every call
    // the final profile counts, nothing left open.
    assert_eq!(p.mode, "trace");
    assert_eq!(
        files.len(),
        1,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let (name, f) = &files[0];
    assert!(f.truncated.is_none(), "{name}: {:?}", f.truncated);
    assert!(
        f.blocks >= 3,
        "{name}: written out during the run: {} blocks",
        f.blocks
    );
    let inner = region_id(&idf, "inner");
    let w = walk(name, f, step, inner);
    assert!(w.open.is_empty(), "{name}: open at the end {:?}", w.open);
    let mut want: BTreeMap<u64, u64> = BTreeMap::new();
    for (_, _, n) in profiles::nodes(std::slice::from_ref(&p)) {
        *want.entry(u64::from(profiles::local_id(n))).or_default() += n.calls;
    }
    assert_eq!(
        w.enters, want,
        "{name}: enter records per region vs the profile"
    );
    assert_eq!(w.inner_per_step, vec![1000; steps as usize]);
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
