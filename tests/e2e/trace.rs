//! Trace mode end to end: programs of testdata/trace/ and testdata/omp/
//! run with REGIO_MODE=trace; the trace files are decoded directly (what
//! the runtime wrote, before any repair by the exporter) and exported with
//! `instrument export`.
//!
//! - Every region's enter records, summed over threads, equal the
//!   profile's calls of that region (the trace and the profile are built
//!   by the same probes), the OpenMP join regions too: the master records
//!   their calls in the profile for the whole team after the fact, and
//!   each team thread writes its own join span into its trace.
//! - Per thread, every exit closes the innermost open enter of the same
//!   region, and no thread ends with a region open.
//! - A run-time mask change (`regio_set_events`) is a `mask` record and
//!   hides the calls made under it from both.
//! - A SIGKILLed program leaves trace files readable up to their last
//!   block.
//! - Perfetto export always; OTF2 export checked with `otf2-print` when
//!   installed (SKIPPED otherwise, unless REGIO_REQUIRE_TOOLCHAINS=1).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use regio_trace_format::{decode, Event, TraceFile};
use serde_json::Value;

use crate::common::cmd::{sigkill, spawn_until_ready};
use crate::common::profiles;
use crate::common::{
    cc, compile, instrument_bin, instrument_flags, instrument_testdata, require_tool, run, run_ok,
    TestDir,
};

/// Instruments `testdata/<dir>/<file>` with `regions` and builds it.
fn build(tmp: &TestDir, dir: &str, file: &str, regions: &str, extra: &[&str]) -> PathBuf {
    let inst = instrument_testdata(tmp, dir, file, regions);
    let mut flags: Vec<String> = vec!["-O1".into(), "-g".into()];
    flags.extend(extra.iter().map(|s| s.to_string()));
    flags.extend(instrument_flags("--cflags"));
    let exe = tmp.join("prog");
    compile(
        &cc(),
        &flags,
        &[inst.join(file)],
        &instrument_flags("--libs"),
        &exe,
    );
    exe
}

/// The command running `exe` in trace mode into `run_dir`.
fn traced(exe: &Path, run_dir: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env("REGIO_MODE", "trace")
        .env("REGIO_DIR", run_dir);
    // Also for the commands started without `common::cmd::run`.
    crate::common::cmd::measure_everything(&mut c);
    c
}

/// The run directory's trace files, decoded, by file name.
fn traces(run_dir: &Path) -> BTreeMap<String, TraceFile> {
    let mut out = BTreeMap::new();
    let entries = std::fs::read_dir(run_dir).unwrap_or_else(|e| panic!("{e}"));
    for e in entries {
        let path = e.unwrap_or_else(|e| panic!("{e}")).path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".rtrace") {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let file = decode(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
            out.insert(name, file);
        }
    }
    out
}

/// Enter records per region id over all files.
fn enters(files: &BTreeMap<String, TraceFile>) -> BTreeMap<u32, u64> {
    let mut n = BTreeMap::new();
    for f in files.values() {
        for r in &f.records {
            if let Event::Enter { region } = r.event {
                *n.entry(region).or_default() += 1;
            }
        }
    }
    n
}

/// Problems with the nesting of each file's enter/exit records.
fn nesting_problems(files: &BTreeMap<String, TraceFile>) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, f) in files {
        let mut open: Vec<u32> = Vec::new();
        let mut last = 0u64;
        for (i, r) in f.records.iter().enumerate() {
            if r.ticks < last {
                problems.push(format!("{name}: record {i} goes back in time"));
            }
            last = r.ticks;
            match r.event {
                Event::Enter { region } => open.push(region),
                Event::Exit { region } => match open.pop() {
                    Some(top) if top == region => {}
                    other => problems.push(format!(
                        "{name}: record {i}: exit of {region} closes {other:?}"
                    )),
                },
                _ => {}
            }
        }
        if !open.is_empty() {
            problems.push(format!("{name}: ends with regions {open:?} open"));
        }
    }
    problems
}

/// Profile calls per region id (all processes, threads and nodes), and
/// each region's kind from the IDF copied into the run directory.
fn profile_calls(run_dir: &Path) -> (BTreeMap<u32, u64>, BTreeMap<u32, String>) {
    let mut calls = BTreeMap::new();
    for (_, _, n) in profiles::nodes(&profiles::read_all(run_dir)) {
        *calls.entry(n.region).or_default() += n.calls;
    }
    let idf = std::fs::read_to_string(run_dir.join("regio.idf.json"))
        .unwrap_or_else(|e| panic!("regio.idf.json: {e}"));
    let idf: Value = serde_json::from_str(&idf).unwrap_or_else(|e| panic!("{e}"));
    let kinds = idf["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["id"].as_u64().unwrap_or(0) as u32,
                r["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (calls, kinds)
}

/// Enter records equal profile calls, region by region (the join regions
/// too: every team thread's join wait is a span in its own trace). Returns
/// the regions of kind `omp_join` with their calls.
fn assert_counts_match(run_dir: &Path, files: &BTreeMap<String, TraceFile>) -> BTreeMap<u32, u64> {
    let (calls, kinds) = profile_calls(run_dir);
    let enters = enters(files);
    let mut problems = Vec::new();
    let mut joins = BTreeMap::new();
    for (region, &c) in &calls {
        // The profile (and the trace) write C ids as base + local id; the
        // program has one IDF, whose local ids the kinds are keyed by.
        let local = region % regio_idf::rundir::OBJECT_ID_STRIDE;
        if kinds.get(&local).map(String::as_str) == Some("omp_join") {
            joins.insert(*region, c);
        }
        let e = enters.get(region).copied().unwrap_or(0);
        if e != c {
            problems.push(format!("region {region}: {e} enter records, {c} calls"));
        }
    }
    for (region, &e) in &enters {
        if !calls.contains_key(region) {
            problems.push(format!(
                "region {region}: {e} enter records, not in the profile"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    joins
}

/// `instrument export --format perfetto`: the JSON's begin events.
fn export_perfetto(run_dir: &Path, out: &Path) -> u64 {
    export_perfetto_with(run_dir, out, &[])
}

fn export_perfetto_with(run_dir: &Path, out: &Path, extra: &[&std::ffi::OsStr]) -> u64 {
    run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "perfetto"])
            .args(extra)
            .arg(run_dir)
            .arg("--out")
            .arg(out),
    );
    let text = std::fs::read_to_string(out).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    v["traceEvents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["ph"] == "B")
        .count() as u64
}

/// `instrument export --format otf2`, counted by `otf2-print`; None when
/// the tools are missing (SKIPPED).
fn export_otf2(run_dir: &Path, out: &Path) -> Option<u64> {
    if !require_tool("otf2-print", "otf2-tools") {
        return None;
    }
    run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "otf2"])
            .arg(run_dir)
            .arg("--out")
            .arg(out),
    );
    let printed = run_ok(Command::new("otf2-print").arg(out.join("traces.otf2")));
    Some(
        printed
            .stdout
            .lines()
            .filter(|l| l.starts_with("ENTER "))
            .count() as u64,
    )
}

#[test]
fn c_program_trace_matches_its_profile() {
    let tmp = TestDir::new("trace-c");
    let exe = build(&tmp, "trace", "calls.c", "functions", &[]);
    let run_dir = tmp.join("run");
    let r = run(traced(&exe, &run_dir).env("REGIO_TRACE_BUFFER", "64K"));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    let files = traces(&run_dir);
    assert_eq!(files.len(), 1, "one thread, one file: {:?}", files.keys());
    let f = files
        .values()
        .next()
        .map(|f| (f.blocks, f.truncated.clone()));
    assert!(
        matches!(f, Some((b, None)) if b >= 3),
        "several whole blocks (64K buffer): {f:?}"
    );
    assert_eq!(nesting_problems(&files), Vec::<String>::new());
    let _ = assert_counts_match(&run_dir, &files);
    let leaf = enters(&files).into_values().max().unwrap_or(0);
    assert_eq!(leaf, 30010, "leaf: 30000 + 10 calls, 100 masked");
    let masks: Vec<u64> = files
        .values()
        .flat_map(|f| &f.records)
        .filter_map(|r| match r.event {
            Event::Mask { mask } => Some(mask),
            _ => None,
        })
        .collect();
    assert_eq!(masks.len(), 2, "{masks:?}");
    assert_eq!(masks[0], 0, "`none`");
    let strings: Vec<_> = files.values().flat_map(|f| f.strings()).collect();
    let progress = strings
        .iter()
        .find(|(_, s)| *s == "progress")
        .map(|(id, _)| *id);
    assert!(
        progress.is_some(),
        "a string record names the event: {strings:?}"
    );
    let values: Vec<f64> = files
        .values()
        .flat_map(|f| &f.records)
        .filter_map(|r| match r.event {
            Event::User { name, value } if Some(name) == progress => Some(value),
            _ => None,
        })
        .collect();
    let want: Vec<f64> = (0..10).map(|i| f64::from(i * 300)).collect();
    assert_eq!(values, want, "user event values in order");
    let flushes = files
        .values()
        .flat_map(|f| &f.records)
        .filter(|r| matches!(r.event, Event::BufferFlush { .. }))
        .count();
    assert!(flushes >= 1, "a 64K buffer flushes during this run");

    let total: u64 = enters(&files).values().sum();
    assert_eq!(export_perfetto(&run_dir, &tmp.join("t.json")), total);
    if let Some(n) = export_otf2(&run_dir, &tmp.join("t.otf2")) {
        assert_eq!(n, total, "otf2-print ENTER lines");
    }
}

#[test]
fn openmp_trace_has_teams_and_matches_its_profile() {
    let tmp = TestDir::new("trace-omp");
    let exe = build(&tmp, "omp", "imbalance.c", "omp,functions", &["-fopenmp"]);
    let run_dir = tmp.join("run");
    let r = run(traced(&exe, &run_dir).env("OMP_NUM_THREADS", "3"));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    let files = traces(&run_dir);
    assert_eq!(files.len(), 3, "one file per thread: {:?}", files.keys());
    assert_eq!(nesting_problems(&files), Vec::<String>::new());
    let joins = assert_counts_match(&run_dir, &files);
    // The members' join waits are in their own traces: every thread's
    // file has as many join spans as teams it ended.
    assert!(!joins.is_empty(), "no omp_join region in the profile");
    for (name, f) in &files {
        let spans = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::Enter { region } if joins.contains_key(&region)))
            .count();
        let ended = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::OmpTeamEnd { .. }))
            .count();
        assert_eq!(spans, ended, "{name}: join spans vs teams ended");
    }
    let count = |want: fn(&Event) -> bool| {
        files
            .values()
            .flat_map(|f| &f.records)
            .filter(|r| want(&r.event))
            .count()
    };
    let forks = count(|e| matches!(e, Event::OmpFork { .. }));
    let joins = count(|e| matches!(e, Event::OmpJoin { .. }));
    let begins = count(|e| matches!(e, Event::OmpTeamBegin { .. }));
    let ends = count(|e| matches!(e, Event::OmpTeamEnd { .. }));
    assert!(forks >= 1 && forks == joins, "{forks} forks, {joins} joins");
    assert_eq!(begins, 3 * forks, "every member of every team begins");
    assert_eq!(ends, begins);
    // Team numbers and thread numbers as OpenMP gave them.
    let mut members: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for r in files.values().flat_map(|f| &f.records) {
        if let Event::OmpTeamBegin {
            team,
            thread_num,
            team_size,
        } = r.event
        {
            assert_eq!(team_size, 3);
            members.entry(team).or_default().push(thread_num);
        }
    }
    for (team, mut m) in members {
        m.sort_unstable();
        assert_eq!(m, vec![0, 1, 2], "team {team}");
    }
    let total: u64 = enters(&files).values().sum();
    assert_eq!(export_perfetto(&run_dir, &tmp.join("t.json")), total);
    if let Some(n) = export_otf2(&run_dir, &tmp.join("t.otf2")) {
        assert_eq!(n, total, "otf2-print ENTER lines");
    }
}

#[test]
fn run_time_filter_and_event_list_apply_to_profile_and_trace() {
    let tmp = TestDir::new("trace-select");
    let exe = build(&tmp, "trace", "calls.c", "functions", &[]);
    let filter = tmp.join("leaf.filter");
    std::fs::write(&filter, "exclude region leaf\n").unwrap_or_else(|e| panic!("{e}"));
    let run_dir = tmp.join("run");
    let r = run(traced(&exe, &run_dir).env("REGIO_FILTER", &filter));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    let files = traces(&run_dir);
    let _ = assert_counts_match(&run_dir, &files);
    let (calls, _) = profile_calls(&run_dir);
    assert_eq!(calls.len(), 2, "main and mid only: {calls:?}");
    assert!(calls.values().any(|&c| c == 3000), "mid: {calls:?}");

    let run_dir = tmp.join("run2");
    let r = run(traced(&exe, &run_dir).env("REGIO_EVENTS", "none"));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    let (calls, _) = profile_calls(&run_dir);
    // The program itself turns everything back on for its last 10 calls.
    assert_eq!(calls.values().sum::<u64>(), 10, "{calls:?}");
    let _ = assert_counts_match(&run_dir, &traces(&run_dir));
}

#[test]
fn sigkilled_program_leaves_readable_traces() {
    let tmp = TestDir::new("trace-kill");
    let exe = build(&tmp, "trace", "killed.c", "functions", &[]);
    let run_dir = tmp.join("run");
    sigkill(spawn_until_ready(
        traced(&exe, &run_dir).env("REGIO_TRACE_BUFFER", "64K"),
    ));
    let files = traces(&run_dir);
    assert_eq!(files.len(), 1, "{:?}", files.keys());
    let f = files.values().next().map(|f| (f.blocks, f.records.len()));
    // 100 000 enter/exit records at about 3 bytes need several 64K blocks;
    // what was still in the buffer at the kill is lost.
    assert!(
        matches!(f, Some((b, n)) if b >= 3 && n > 40_000),
        "blocks and records of the flushed part: {f:?}"
    );
    let total: u64 = enters(&traces(&run_dir)).values().sum();
    assert!(total > 10_000, "{total}");
    // The exporter reads it and closes the regions left open; the IDF is
    // copied with the profile, which a SIGKILL prevents.
    let idf = tmp.join("inst").join("regio.idf.json");
    let extra = [std::ffi::OsStr::new("--idf"), idf.as_os_str()];
    assert!(export_perfetto_with(&run_dir, &tmp.join("t.json"), &extra) >= total);
}
