//! User events in profiles end to end (`regio_event` in C,
//! `regio_event_` from Fortran): count, min, max and sum per DRG node,
//! checked exactly in the profile files the runtime wrote, in
//! `instrument report --format json` (merged over the processes of a
//! forked program) and in the text report's "user events" section. The
//! Rust macro is checked by tests/e2e/rust_traced.rs.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common::profiles;
use crate::common::report::{only_run, report_json, visit};
use crate::common::{
    cc, compile, instrument_bin, instrument_flags, instrument_testdata, require_tool, run, run_ok,
    TestDir,
};

/// Instruments `testdata/events/<file>` (functions) into `tmp/inst`.
fn instrument(tmp: &TestDir, file: &str) -> PathBuf {
    let inst = instrument_testdata(tmp, "events", file, "functions");
    inst.join(file)
}

/// Runs `exe` with a clean measuring environment into `run_dir`.
fn measure(exe: &Path, run_dir: &Path, mode: &str) -> crate::common::Run {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_SNAPSHOT")
        .env("REGIO_MODE", mode)
        .env("REGIO_DIR", run_dir);
    run(&mut c)
}

/// (path of names, user_events) of every report node that has events.
fn events_by_path(run: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    visit(run, &mut |n, path| {
        if let Some(e) = n.get("user_events") {
            let names: Vec<&str> = path
                .iter()
                .chain(std::iter::once(&n))
                .filter_map(|p| p["name"].as_str())
                .collect();
            out.push((names.join(";"), e.clone()));
        }
    });
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn c_events_in(mode: &str) {
    let tmp = TestDir::new(&format!("user-events-c-{mode}"));
    let inst = instrument(&tmp, "events.c");
    let mut flags: Vec<String> = vec!["-O1".into()];
    flags.extend(instrument_flags("--cflags"));
    let exe = tmp.join("prog");
    compile(&cc(), &flags, &[inst], &instrument_flags("--libs"), &exe);
    let run_dir = tmp.join("run");
    let r = measure(&exe, &run_dir, mode);
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    assert_eq!(r.stdout, "done\n");

    // The parent's profile, as the runtime wrote it: node ids, exact
    // values, the names it could not keep.
    let all = profiles::read_all(&run_dir);
    assert_eq!(all.len(), 2, "parent and forked child");
    let parent = all
        .iter()
        .find(|p| p.user_events_lost != 0)
        .unwrap_or_else(|| panic!("no profile counts lost events: {all:?}"));
    assert_eq!(parent.user_events_lost, 47, "300 + 3 names, 256 slots");
    let t = &parent.threads[0];
    assert_eq!(t.user_events_dropped, 0);
    let events = &t.user_events;
    assert_eq!(events.len(), 3 + 253, "{t:?}");
    let node_region = |id: Option<u32>| Some(t.nodes.get(id? as usize)?.region);
    let residual = events
        .iter()
        .find(|e| e.name == "residual")
        .unwrap_or_else(|| panic!("{t:?}"));
    assert_eq!(residual.count, 10);
    assert_eq!(residual.min, Some(1.0 / 512.0));
    assert_eq!(residual.max, Some(1.0));
    assert_eq!(residual.sum, Some(2.0 - 1.0 / 512.0));
    let size = events
        .iter()
        .find(|e| e.name == "size")
        .unwrap_or_else(|| panic!("{t:?}"));
    assert_ne!(
        node_region(residual.node),
        node_region(size.node),
        "two nodes"
    );
    assert!(node_region(residual.node).is_some(), "{residual:?}");

    // The report merges the parent and the child.
    let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let by_path = events_by_path(run);
    let get = |path: &str| {
        by_path
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, e)| e.clone())
            .unwrap_or_else(|| panic!("no events at {path}: {by_path:?}"))
    };
    assert_eq!(
        get("main;setup"),
        json!([{"name": "size", "count": 3, "min": -50.5, "max": 300.0, "sum": 349.5,
                "mean": 116.5}])
    );
    assert_eq!(
        get("main;solve"),
        json!([{"name": "residual", "count": 12, "min": 1.0 / 2048.0, "max": 1.0,
                "sum": 2.0 - 1.0 / 2048.0, "mean": (2.0 - 1.0 / 2048.0) / 12.0}])
    );
    let main = get("main");
    let main = main.as_array().cloned().unwrap_or_default();
    assert_eq!(main.len(), 1 + 253, "phase and the names that got a slot");
    let phase = main.iter().find(|e| e["name"] == "phase").cloned();
    assert_eq!(
        phase,
        Some(json!({"name": "phase", "count": 2, "min": 1.0, "max": 2.0, "sum": 3.0, "mean": 1.5}))
    );
    assert_eq!(
        run["user_events"],
        json!({"outside_regions": [], "dropped": 0, "lost": 47})
    );

    // The text report's section.
    let text = run_ok(Command::new(instrument_bin()).arg("report").arg(&run_dir));
    let section = text
        .stdout
        .split("\nuser events: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no user events section:\n{}", text.stdout));
    let line = |start: &str| {
        section
            .lines()
            .find(|l| l.starts_with(start))
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .unwrap_or_else(|| panic!("no line {start}:\n{section}"))
    };
    assert_eq!(
        line("main;setup"),
        ["main;setup", "size", "3", "-50.5", "116.5", "300", "349.5"]
    );
    assert_eq!(
        line("main;solve")[..4],
        ["main;solve", "residual", "12", "4.88281e-4"]
    );
    assert!(
        section
            .contains("47 user events recorded nowhere: a process's table of event names was full"),
        "{section}"
    );
}

#[test]
fn c_events_keep_count_min_max_sum_per_node_in_profile_mode() {
    c_events_in("profile");
}

#[test]
fn c_events_keep_count_min_max_sum_per_node_in_trace_mode() {
    c_events_in("trace");
}

#[test]
fn fortran_events_reach_the_profile() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("user-events-fortran");
    let inst = instrument(&tmp, "events.f90");
    let exe = tmp.join("prog");
    run_ok(
        Command::new("gfortran")
            .args(instrument_flags("--fflags"))
            .arg(&inst)
            .args(instrument_flags("--libs"))
            .arg("-o")
            .arg(&exe),
    );
    let run_dir = tmp.join("run");
    let r = measure(&exe, &run_dir, "profile");
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    assert_eq!(r.stdout, "done\n");
    let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        events_by_path(run),
        vec![
            (
                "events".to_string(),
                json!([{"name": "phase", "count": 1, "min": 1.0, "max": 1.0, "sum": 1.0,
                        "mean": 1.0}])
            ),
            (
                "events;step".to_string(),
                json!([{"name": "step_size", "count": 4, "min": 0.5, "max": 2.0, "sum": 5.0,
                        "mean": 1.25}])
            ),
        ]
    );
}
