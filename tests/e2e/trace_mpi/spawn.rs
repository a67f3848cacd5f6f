//! MPI dynamic processes: `testdata/trace/mpi_spawn.c` on 2 ranks spawns
//! 2 children (`MPI_Comm_spawn`), which inherit `REGIO_DIR` and have an
//! `MPI_COMM_WORLD` of their own (ranks 0 and 1 again). In profile and
//! trace mode: the program's output is the plain build's; every process
//! writes its own files (4 profiles with distinct pids, all readable; in
//! trace mode 4 trace files, each decoding with its own pid), the
//! children also a spawn marker each; `report` shows the 2 parents only
//! with a warning naming the children left out, and the collectives of
//! the parents alone; `export` (Perfetto, OTF2) has the parents' 2
//! locations, warns of the children left out and of the 4 messages with
//! them (not paired, nothing "without a partner"), and the OTF2 archive
//! reads back in `otf2-print` without warnings and with no `INTER_COMM`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use regio_trace_format::decode;
use serde_json::Value;

use super::{build, mpi_launcher, Mpi, MPICH, OPEN_MPI};
use crate::common::report::{only_run, report_json};
use crate::common::{compile, instrument_bin, machine, require_tool, run, run_ok, Run, TestDir};

const PARENTS: u32 = 2;

/// Processes as (rank, pid).
type Procs = BTreeSet<(u64, u64)>;
const FILE: &str = "mpi_spawn.c";

/// Runs `exe` on the parents' ranks with `env` (passed on to spawned
/// processes as well), at most two minutes.
fn mpirun(mpi: &Mpi, exe: &Path, env: &[(&str, &Path)]) -> Run {
    let mut c = mpi_launcher("timeout");
    c.arg("120")
        .arg(mpi.run)
        .args(mpi.args)
        .args(["-np", &PARENTS.to_string()]);
    for (k, v) in env {
        c.env(k, v);
        if mpi.is_open_mpi() {
            c.args(["-x", k]);
        }
    }
    c.arg(exe);
    run(&mut c)
}

/// The plain build's output, or None (SKIPPED) when `MPI_Comm_spawn`
/// does not run under `mpi` here; under `REGIO_REQUIRE_TOOLCHAINS=1`
/// Open MPI's must.
fn plain_output(mpi: &Mpi, tmp: &TestDir) -> Option<String> {
    let exe = tmp.join("plain");
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/trace")
        .join(FILE);
    compile(mpi.cc, &["-O1".to_string()], &[src], &[], &exe);
    let got = mpirun(mpi, &exe, &[]);
    if got.status.success() && got.stdout.contains("mpi_spawn done") {
        return Some(got.stdout);
    }
    if mpi.is_open_mpi() && std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() == Ok("1") {
        panic!(
            "MPI_Comm_spawn does not run under {}; REGIO_REQUIRE_TOOLCHAINS=1\n{}",
            mpi.name,
            got.describe()
        );
    }
    println!(
        "SKIPPED: needs an {} that runs MPI_Comm_spawn here ({})",
        mpi.name,
        got.stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
    );
    None
}

fn names(dir: &Path, prefix: &str, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(prefix) && n.ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// (rank, pid) of the parents and of the children, from the profiles
/// (the children's command line ends with "child"), after checking there
/// are 2 of each, all readable, and that the children's markers name the
/// children.
fn processes(run_dir: &Path) -> (Procs, Procs) {
    let mut parents = BTreeSet::new();
    let mut children = BTreeSet::new();
    for name in names(run_dir, "profile-", ".json") {
        let text = std::fs::read_to_string(run_dir.join(&name)).unwrap_or_else(|e| panic!("{e}"));
        let p: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let key = (
            p["rank"].as_u64().unwrap_or(u64::MAX),
            p["pid"].as_u64().unwrap_or(u64::MAX),
        );
        assert_eq!(name, format!("profile-r{}-p{}.json", key.0, key.1));
        let child = p["command"]
            .as_array()
            .and_then(|c| c.last())
            .is_some_and(|a| a == "child");
        if child {
            children.insert(key);
        } else {
            parents.insert(key);
        }
    }
    let ranks = |s: &Procs| s.iter().map(|k| k.0).collect::<Vec<_>>();
    assert_eq!(ranks(&parents), [0, 1], "parents {parents:?}");
    assert_eq!(ranks(&children), [0, 1], "children {children:?}");
    let markers: BTreeSet<String> = names(run_dir, "regio.spawned-", ".txt")
        .into_iter()
        .collect();
    let want: BTreeSet<String> = children
        .iter()
        .map(|(r, p)| format!("regio.spawned-r{r}-p{p}.txt"))
        .collect();
    assert_eq!(markers, want);
    (parents, children)
}

/// The left-out warning names exactly the children.
fn check_left_out(text: &str, children: &Procs) {
    let list: Vec<String> = children
        .iter()
        .map(|(r, p)| format!("rank {r} pid {p}"))
        .collect();
    let want = format!(
        "2 process(es) started by MPI_Comm_spawn left out ({})",
        list.join(", ")
    );
    assert!(text.contains(&want), "want `{want}` in:\n{text}");
}

/// `report --format json`: the parents only, with the warning; the
/// collectives per rank are the parents' (a Reduce of one long to rank
/// 0), not mixed with the children's Allreduce.
fn check_report(run_dir: &Path, parents: &Procs, children: &Procs) {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let r = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r["processes"], 2, "{r}");
    let shown: Procs = r["per_process"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["rank"].as_u64().unwrap_or(0),
                p["pid"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(&shown, parents);
    let warnings = r["warnings"].to_string();
    check_left_out(&warnings, children);
    let colls: Vec<(u64, u64, u64, u64)> = r["communication"]["collectives"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let n = |k: &str| c[k].as_u64().unwrap_or(u64::MAX);
            (
                n("rank"),
                n("operations"),
                n("bytes_sent"),
                n("bytes_received"),
            )
        })
        .collect();
    assert_eq!(colls, [(0, 1, 8, 16), (1, 1, 8, 0)], "{r}");
    // Messages with the children name no rank of this run: no matrix.
    assert_eq!(r["communication"]["matrix"], Value::Array(vec![]), "{r}");
    // The text report says it too.
    let text = run_ok(Command::new(instrument_bin()).arg("report").arg(run_dir)).stdout;
    check_left_out(&text, children);
}

/// Every trace file decodes and carries the pid of its name.
fn check_trace_files(run_dir: &Path, all: &Procs) {
    let mut seen = BTreeSet::new();
    for name in names(run_dir, "trace-", ".rtrace") {
        let data = std::fs::read(run_dir.join(&name)).unwrap_or_else(|e| panic!("{e}"));
        let t = decode(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let h = &t.header;
        assert_eq!(name, format!("trace-r{}-p{}-t0.rtrace", h.rank, h.pid));
        assert!(t.truncated.is_none(), "{name} cut short");
        seen.insert((u64::from(h.rank), u64::from(h.pid)));
    }
    assert_eq!(&seen, all, "one trace file per process");
}

/// `instrument export` of the trace: the parents' locations only, the
/// two warnings, nothing unmatched.
fn check_export(run_dir: &Path, tmp: &TestDir, children: &Procs) {
    let json = tmp.join("t.json");
    let r = run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "perfetto"])
            .arg(run_dir)
            .arg("--out")
            .arg(&json),
    );
    check_export_warnings(&r.stderr, children);
    assert!(r.stdout.contains(": 2 locations,"), "{}", r.stdout);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    let events = v["traceEvents"].as_array().map_or(&[][..], Vec::as_slice);
    let tracks = events
        .iter()
        .filter(|e| e["name"] == "process_name")
        .count();
    assert_eq!(tracks, 2, "process tracks");
    check_left_out(&v["otherData"]["left_out"].to_string(), children);
    // The 4 messages with the children stay instants on the parents'
    // tracks, no flow.
    let instants = events
        .iter()
        .filter(|e| e["name"] == "unmatched message")
        .count();
    assert_eq!(instants, 4);
    assert!(!events.iter().any(|e| e["ph"] == "s"), "no flows");

    if !require_tool("otf2-print", "otf2-tools") {
        return;
    }
    let archive = tmp.join("otf2");
    let r = run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "otf2"])
            .arg(run_dir)
            .arg("--out")
            .arg(&archive),
    );
    check_export_warnings(&r.stderr, children);
    let anchor = archive.join("traces.otf2");
    let defs = run_ok(Command::new("otf2-print").arg("-G").arg(&anchor));
    assert!(!defs.stderr.contains("warning"), "{}", defs.stderr);
    assert!(
        !defs.stdout.lines().any(|l| l.starts_with("INTER_COMM")),
        "{}",
        defs.stdout
    );
    let locations = defs
        .stdout
        .lines()
        .filter(|l| l.starts_with("LOCATION "))
        .count();
    assert_eq!(locations, 2, "{}", defs.stdout);
    let printed = run_ok(Command::new("otf2-print").arg(&anchor));
    assert!(!printed.stderr.contains("warning"), "{}", printed.stderr);
    let p2p = printed
        .stdout
        .lines()
        .filter(|l| l.starts_with("MPI_SEND") || l.starts_with("MPI_RECV"))
        .count();
    assert_eq!(p2p, 4, "{}", printed.stdout);
}

fn check_export_warnings(stderr: &str, children: &Procs) {
    check_left_out(stderr, children);
    assert!(
        stderr.contains(
            "warning: 4 send(s) and receive(s) with processes outside this run's MPI_COMM_WORLD"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("without a partner"), "{stderr}");
    let warnings = stderr.lines().filter(|l| l.contains("warning:")).count();
    assert_eq!(warnings, 2, "{stderr}");
}

fn check_spawn_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let tmp = TestDir::new(&format!("trace-mpi-spawn-{}", mpi.name));
    let Some(plain) = plain_output(mpi, &tmp) else {
        return;
    };
    let exe = build(mpi, FILE, &tmp);
    for mode in ["profile", "trace"] {
        let run_dir = tmp.join(mode);
        let got = mpirun(
            mpi,
            &exe,
            &[("REGIO_MODE", Path::new(mode)), ("REGIO_DIR", &run_dir)],
        );
        assert_eq!(got.outcome(), "exit 0", "{}", got.describe());
        assert_eq!(got.stdout, plain, "{mode}: output against the plain build");
        let (parents, children) = processes(&run_dir);
        check_report(&run_dir, &parents, &children);
        if mode == "trace" {
            let all: Procs = parents.union(&children).copied().collect();
            check_trace_files(&run_dir, &all);
            check_export(&run_dir, &tmp, &children);
        }
    }
}

on_both_mpis!(
    spawned_processes_keep_their_files_and_are_left_out_of_reports_and_exports,
    spawned_processes_keep_their_files_and_are_left_out_of_reports_and_exports_with_mpich,
    check_spawn_program,
    open_mpi_spawn,
    mpich_spawn
);

fn open_mpi_spawn() -> bool {
    super::open_mpi()
}

fn mpich_spawn() -> bool {
    super::mpich()
}
