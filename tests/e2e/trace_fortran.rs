//! Trace mode from Fortran (testdata/events/trace.f90, REGIO_MODE=trace):
//! the trace files decode, enter/exit records nest strictly per thread
//! and each region's enter records equal the calls known by construction
//! and the profile's; the calls made while `regio_set_events('none')` is
//! in force are in neither, and the switch is two `mask` records;
//! `instrument export --format perfetto` gives one begin per enter and
//! every begin its end in order; with `otf2-print` installed, the OTF2
//! export's ENTER/LEAVE lines nest too and count the profile's calls
//! (SKIPPED otherwise). Without gfortran: SKIPPED
//! (REGIO_REQUIRE_TOOLCHAINS=1 fails).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use regio_trace_format::Event;

use crate::common::traces::{self, profile_calls};
use crate::common::{
    instrument_flags, instrument_testdata, require_tool, run, run_ok, Run, TestDir,
};

/// Region names by id, from the IDF copied into the run directory
/// (Fortran is case-insensitive: lower case).
fn names(run_dir: &Path) -> BTreeMap<u32, String> {
    let mut names = traces::idf_field(run_dir, "name");
    names.values_mut().for_each(|n| *n = n.to_lowercase());
    names
}

/// Instruments `testdata/<dir>/<file>` with `regions` and builds it with
/// gfortran and `extra` flags; None without gfortran (SKIPPED).
fn build(tmp: &TestDir, dir: &str, file: &str, regions: &str, extra: &[&str]) -> Option<PathBuf> {
    if !require_tool("gfortran", "gfortran") {
        return None;
    }
    let inst = instrument_testdata(tmp, dir, file, regions);
    let exe = tmp.join("prog");
    run_ok(
        Command::new("gfortran")
            .args(extra)
            .args(instrument_flags("--fflags"))
            .arg(inst.join(file))
            .args(instrument_flags("--libs"))
            .arg("-o")
            .arg(&exe)
            .current_dir(tmp.path()),
    );
    Some(exe)
}

/// Runs `exe` in trace mode into `run_dir`, with `env` set.
fn run_traced(exe: &Path, run_dir: &Path, env: &[(&str, &str)]) -> Run {
    let r = run(Command::new(exe)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_SNAPSHOT")
        .env("REGIO_MODE", "trace")
        .env("REGIO_DIR", run_dir)
        .envs(env.iter().copied()));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    r
}

/// `names` keyed by the ids the probes wrote (base + local id).
fn name_of(names: &BTreeMap<u32, String>, region: u32) -> String {
    let local = region % regio_idf::rundir::OBJECT_ID_STRIDE;
    names.get(&local).cloned().unwrap_or_default()
}

/// Per region name, the enter records of the trace and the profile's
/// calls must agree; returns them.
fn counts_by_name(run_dir: &Path, files: &traces::Files) -> BTreeMap<String, u64> {
    let names = names(run_dir);
    let by_name = |ids: BTreeMap<u32, u64>| {
        let mut out: BTreeMap<String, u64> = BTreeMap::new();
        for (id, n) in ids {
            *out.entry(name_of(&names, id)).or_default() += n;
        }
        out
    };
    let enters = by_name(traces::enters(files));
    assert_eq!(enters, by_name(profile_calls(run_dir)), "trace vs profile");
    enters
}

/// OTF2, when the tools are there: as many LEAVE as ENTER lines, and the
/// ENTER lines are the profile's calls.
fn check_otf2(run_dir: &Path, out: &Path) {
    let Some(printed) = traces::otf2_printed(run_dir, out) else {
        return;
    };
    let entered: u64 = traces::otf2_enters_by_name(&printed).values().sum();
    let calls: u64 = profile_calls(run_dir).values().sum();
    assert_eq!(entered, calls, "otf2-print ENTER lines vs profile calls");
}

#[test]
fn fortran_program_trace_nests_and_exports() {
    let tmp = TestDir::new("trace-fortran");
    let Some(exe) = build(&tmp, "events", "trace.f90", "functions", &[]) else {
        return;
    };
    let run_dir = tmp.join("run");
    let r = run_traced(&exe, &run_dir, &[]);
    assert_eq!(r.stdout.trim(), "160.0", "60 + the masked call's 100");

    let files = traces::decode_all(&run_dir);
    assert_eq!(files.len(), 1, "one thread, one file");
    assert_eq!(traces::nesting_problems(&files), Vec::<String>::new());
    let mut open = 0usize;
    let mut max_depth = 0;
    for rec in files.values().flat_map(|f| &f.records) {
        match rec.event {
            Event::Enter { .. } => {
                open += 1;
                max_depth = max_depth.max(open);
            }
            Event::Exit { .. } => open = open.saturating_sub(1),
            _ => {}
        }
    }
    assert_eq!(max_depth, 3, "tracef > outer > inner");
    // The fourth outer and its 4 inner calls ran under `none`.
    let want: BTreeMap<String, u64> = [("tracef", 1), ("outer", 3), ("inner", 12)]
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
    assert_eq!(counts_by_name(&run_dir, &files), want);
    let inner_j: Vec<f64> = files
        .values()
        .flat_map(|f| traces::user_values(f, "inner_j"))
        .collect();
    let want_j: Vec<f64> = (0..3).flat_map(|_| (1..=4).map(f64::from)).collect();
    assert_eq!(inner_j, want_j, "user event values in order, none masked");
    let masks = traces::masks(&files);
    assert_eq!(masks.len(), 2, "regio_set_events twice: {masks:?}");
    assert_eq!(masks[0], 0, "`none`");
    assert_ne!(masks[1], 0, "`all`");

    // Perfetto: a begin per enter, every end closes the last begin.
    let json = traces::export_perfetto(&run_dir, &tmp.join("t.json"), &[]);
    let begins: BTreeMap<String, u64> = traces::perfetto_begins_by_name(&json)
        .into_iter()
        .map(|(n, c)| (n.to_lowercase(), c))
        .collect();
    assert_eq!(begins, want, "perfetto begins per region");
    check_otf2(&run_dir, &tmp.join("t.otf2"));
}

/// Fortran OpenMP (testdata/trace/omp_trace.f90, 3 threads): a file per
/// thread, strict nesting, enter records per region equal to the
/// profile's calls (join spans included), two forks of teams of three,
/// and `work` entered 24 times over the threads.
#[test]
fn fortran_openmp_trace_has_teams_and_matches_its_profile() {
    let tmp = TestDir::new("trace-fortran-omp");
    let Some(exe) = build(
        &tmp,
        "trace",
        "omp_trace.f90",
        "omp,functions",
        &["-fopenmp"],
    ) else {
        return;
    };
    let run_dir = tmp.join("run");
    let r = run_traced(&exe, &run_dir, &[("OMP_NUM_THREADS", "3")]);
    assert_eq!(r.stdout.trim(), "156.0");
    let files = traces::decode_all(&run_dir);
    assert_eq!(files.len(), 3, "one file per thread: {:?}", files.keys());
    assert_eq!(traces::nesting_problems(&files), Vec::<String>::new());
    assert_eq!(traces::check_teams(&run_dir, &files, 3), 2, "forks");
    let names = names(&run_dir);
    let work: u64 = traces::enters(&files)
        .into_iter()
        .filter(|&(id, _)| name_of(&names, id) == "work")
        .map(|(_, n)| n)
        .sum();
    assert_eq!(work, 24, "work over all threads");
    check_otf2(&run_dir, &tmp.join("t.otf2"));
}
