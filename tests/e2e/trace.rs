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

use std::path::{Path, PathBuf};
use std::process::Command;

use regio_trace_format::Event;

use crate::common::cmd::{sigkill, spawn_until_ready};
use crate::common::profiles;
use crate::common::traces::{self, enters, nesting_problems};
use crate::common::{cc, compile, instrument_flags, instrument_testdata, run, TestDir};

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

/// `instrument export --format perfetto`: the JSON's begin events.
fn export_perfetto(run_dir: &Path, out: &Path) -> u64 {
    export_perfetto_with(run_dir, out, &[])
}

fn export_perfetto_with(run_dir: &Path, out: &Path, extra: &[&std::ffi::OsStr]) -> u64 {
    let json = traces::export_perfetto(run_dir, out, extra);
    traces::perfetto_events(&json, "B").count() as u64
}

/// `instrument export --format otf2`, ENTER lines counted by `otf2-print`
/// (nesting per location checked); None when the tools are missing
/// (SKIPPED).
fn export_otf2(run_dir: &Path, out: &Path) -> Option<u64> {
    let printed = traces::otf2_printed(run_dir, out)?;
    Some(traces::otf2_enters_by_name(&printed).values().sum())
}

#[test]
fn c_program_trace_matches_its_profile() {
    let tmp = TestDir::new("trace-c");
    let exe = build(&tmp, "trace", "calls.c", "functions", &[]);
    let run_dir = tmp.join("run");
    let r = run(traced(&exe, &run_dir).env("REGIO_TRACE_BUFFER", "64K"));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    let files = traces::decode_all(&run_dir);
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
    let _ = traces::assert_counts_match(&run_dir, &files);
    let leaf = enters(&files).into_values().max().unwrap_or(0);
    assert_eq!(leaf, 30010, "leaf: 30000 + 10 calls, 100 masked");
    let masks = traces::masks(&files);
    assert_eq!(masks.len(), 2, "{masks:?}");
    assert_eq!(masks[0], 0, "`none`");
    let values: Vec<f64> = files
        .values()
        .flat_map(|f| traces::user_values(f, "progress"))
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
    let files = traces::decode_all(&run_dir);
    assert_eq!(files.len(), 3, "one file per thread: {:?}", files.keys());
    assert_eq!(nesting_problems(&files), Vec::<String>::new());
    let _ = traces::check_teams(&run_dir, &files, 3);
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
    let files = traces::decode_all(&run_dir);
    let _ = traces::assert_counts_match(&run_dir, &files);
    let calls = traces::profile_calls(&run_dir);
    assert_eq!(calls.len(), 2, "main and mid only: {calls:?}");
    assert!(calls.values().any(|&c| c == 3000), "mid: {calls:?}");

    let run_dir = tmp.join("run2");
    let r = run(traced(&exe, &run_dir).env("REGIO_EVENTS", "none"));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    let calls = traces::profile_calls(&run_dir);
    // The program itself turns everything back on for its last 10 calls.
    assert_eq!(calls.values().sum::<u64>(), 10, "{calls:?}");
    let _ = traces::assert_counts_match(&run_dir, &traces::decode_all(&run_dir));
}

/// `REGIO_EVENTS` without `user` leaves user events out of the trace and
/// the profile while the regions are recorded; with `user` they are there
/// (calls.c makes its 10 events before its own mask change).
#[test]
fn event_list_without_user_drops_user_events() {
    let tmp = TestDir::new("trace-no-user");
    let exe = build(&tmp, "trace", "calls.c", "functions", &[]);
    for (list, want) in [("functions", 0), ("functions,user", 10)] {
        let run_dir = tmp.join(list.replace(',', "-"));
        let r = run(traced(&exe, &run_dir).env("REGIO_EVENTS", list));
        assert_eq!(r.code(), Some(0), "{}", r.describe());
        let files = traces::decode_all(&run_dir);
        let _ = traces::assert_counts_match(&run_dir, &files);
        let calls = traces::profile_calls(&run_dir);
        assert_eq!(
            calls.values().sum::<u64>(),
            1 + 3000 + 30010,
            "{list}: main, mid, leaf: {calls:?}"
        );
        assert_eq!(traces::user_records(&files), want, "{list}: user records");
        let profiled: u64 = profiles::read_all(&run_dir)
            .iter()
            .flat_map(|p| &p.threads)
            .flat_map(|t| &t.user_events)
            .map(|e| e.count)
            .sum();
        assert_eq!(profiled, want as u64, "{list}: user events in the profile");
    }
}

/// Host `teams` make a descriptor region per team at run time (kind
/// `omp_team`, testdata/omp5/teams.c: two teams, run one after the other):
/// `REGIO_EVENTS` without `omp` leaves them out with the IDF's OpenMP
/// regions, in the profile and the trace.
#[test]
fn event_list_without_omp_leaves_host_team_regions_out() {
    let tmp = TestDir::new("trace-teams");
    let exe = build(&tmp, "omp5", "teams.c", "omp,functions", &["-fopenmp"]);
    for (list, want) in [("all", 2), ("functions", 0)] {
        let run_dir = tmp.join(list);
        let r = run(traced(&exe, &run_dir)
            .env("REGIO_EVENTS", list)
            .env("OMP_NUM_THREADS", "3"));
        assert_eq!(r.code(), Some(0), "{}", r.describe());
        let files = traces::decode_all(&run_dir);
        assert_eq!(nesting_problems(&files), Vec::<String>::new());
        let _ = traces::assert_counts_match(&run_dir, &files);
        let teams: Vec<u32> = profiles::read_all(&run_dir)
            .iter()
            .flat_map(|p| &p.regions)
            .filter(|r| r.kind == "omp_team")
            .map(|r| r.id)
            .collect();
        let calls = traces::profile_calls(&run_dir);
        let team_calls: u64 = teams.iter().filter_map(|id| calls.get(id)).sum();
        assert_eq!(team_calls, want, "{list}: calls of omp_team regions");
        if list == "functions" {
            let kinds = traces::idf_field(&run_dir, "kind");
            let local = |id: &u32| id % regio_idf::rundir::OBJECT_ID_STRIDE;
            let other: Vec<_> = calls
                .keys()
                .filter(|id| {
                    !matches!(
                        kinds.get(&local(id)).map(String::as_str),
                        Some("function" | "program")
                    )
                })
                .collect();
            assert_eq!(
                other,
                Vec::<&u32>::new(),
                "only functions and main: {kinds:?}"
            );
        }
    }
}

#[test]
fn sigkilled_program_leaves_readable_traces() {
    let tmp = TestDir::new("trace-kill");
    let exe = build(&tmp, "trace", "killed.c", "functions", &[]);
    let run_dir = tmp.join("run");
    sigkill(spawn_until_ready(
        traced(&exe, &run_dir).env("REGIO_TRACE_BUFFER", "64K"),
    ));
    let files = traces::decode_all(&run_dir);
    assert_eq!(files.len(), 1, "{:?}", files.keys());
    let f = files.values().next().map(|f| (f.blocks, f.records.len()));
    // 100 000 enter/exit records at about 3 bytes need several 64K blocks;
    // what was still in the buffer at the kill is lost.
    assert!(
        matches!(f, Some((b, n)) if b >= 3 && n > 40_000),
        "blocks and records of the flushed part: {f:?}"
    );
    let total: u64 = enters(&traces::decode_all(&run_dir)).values().sum();
    assert!(total > 10_000, "{total}");
    // The exporter reads it and closes the regions left open; the IDF is
    // copied with the profile, which a SIGKILL prevents.
    let idf = tmp.join("inst").join("regio.idf.json");
    let extra = [std::ffi::OsStr::new("--idf"), idf.as_os_str()];
    assert!(export_perfetto_with(&run_dir, &tmp.join("t.json"), &extra) >= total);
}
