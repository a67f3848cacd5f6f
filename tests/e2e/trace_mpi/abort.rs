//! `MPI_Abort` in trace mode (`testdata/trace/mpi_abort.c` on 3 ranks,
//! `REGIO_TRACE_BUFFER=64K`): every rank has written its buffer out
//! several times when the last rank aborts the job; the others wait inside
//! a synchronous send the aborting rank has seen (MPI_Probe), so none
//! makes a probe after the abort begins. Open MPI ends the other ranks
//! with SIGTERM, MPICH with SIGKILL: either way each rank has written its
//! trace before, when the aborting rank asked it to (`peers`).
//!
//! For every rank: its trace file exists and decodes whole (the end-of-run
//! writer wrote it, nothing cut), holds the blocks written out before the
//! abort, and its records are its profile's: enter records per region ==
//! the profile's calls, the regions open at its end the ones the program
//! was in (`main`, `wait_forever`, `MPI_Ssend`; the aborting rank `main`),
//! time never going back. One exception, by design: the aborting rank's
//! trace is written by `regio_mpi_abort()`, which the instrumented code
//! calls *before* the enter probe of `MPI_Abort` (its own region), so that
//! region has no enter record while the profile, rewritten by the exit or
//! signal that ends the process, may count its call.

use std::collections::BTreeMap;
use std::path::Path;

use regio_idf::rundir::OBJECT_ID_STRIDE;
use regio_trace_format::Event;
use serde_json::Value;

use super::{build, mpi_launcher, mpich, open_mpi, Mpi, MPICH, OPEN_MPI};
use crate::common::traces::{decode_all, walk};
use crate::common::{profiles, run, TestDir};

const FILE: &str = "mpi_abort.c";
const RANKS: u32 = 3;
/// `CALLS` of the program.
const LEAF_CALLS: u64 = 30_000;

/// Runs the instrumented program traced on `RANKS` ranks (at most two
/// minutes: a broken abort must not hang the test run).
fn run_traced(mpi: &Mpi, exe: &Path, run_dir: &Path) -> crate::common::Run {
    let mut c = mpi_launcher("timeout");
    c.current_dir(run_dir.parent().unwrap_or(Path::new(".")))
        .env("REGIO_MODE", "trace")
        .env("REGIO_DIR", run_dir)
        .env("REGIO_TRACE_BUFFER", "64K")
        .arg("120")
        .arg(mpi.run)
        .args(mpi.args)
        .args(["-np", &RANKS.to_string()]);
    if mpi.is_open_mpi() {
        for n in ["REGIO_MODE", "REGIO_DIR", "REGIO_TRACE_BUFFER"] {
            c.args(["-x", n]);
        }
    }
    c.arg(exe);
    run(&mut c)
}

/// IDF id -> (name, kind) from the IDF copied into the run directory.
fn idf_regions(run_dir: &Path) -> BTreeMap<u32, (String, String)> {
    let text = std::fs::read_to_string(run_dir.join("regio.idf.json"))
        .unwrap_or_else(|e| panic!("regio.idf.json: {e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    v["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
            (r["id"].as_u64().unwrap_or(0) as u32, (s("name"), s("kind")))
        })
        .collect()
}

fn check_abort(mpi: &Mpi) {
    let tmp = TestDir::new(&format!("trace-mpi-abort-{}", mpi.name));
    let exe = build(mpi, FILE, &tmp);
    let run_dir = tmp.join("run");
    let got = run_traced(mpi, &exe, &run_dir);
    // The launcher reports the abort (timeout's 124 would be a hang).
    assert!(
        !got.status.success() && got.code() != Some(124),
        "{}",
        got.describe()
    );
    let regions = idf_regions(&run_dir);
    let name_of = |id: u32| {
        regions
            .get(&(id % OBJECT_ID_STRIDE))
            .map_or("?", |(n, _)| n.as_str())
    };
    let kind_of = |id: u32| {
        regions
            .get(&(id % OBJECT_ID_STRIDE))
            .map_or("?", |(_, k)| k.as_str())
    };

    let profiles = profiles::read_all(&run_dir);
    let mut profile_ranks: Vec<u32> = profiles.iter().map(|p| p.rank).collect();
    profile_ranks.sort_unstable();
    assert_eq!(
        profile_ranks,
        (0..RANKS).collect::<Vec<_>>(),
        "a profile per rank\n{}",
        got.describe()
    );
    let files = decode_all(&run_dir);
    let mut trace_ranks: Vec<u32> = files.values().map(|f| f.header.rank).collect();
    trace_ranks.sort_unstable();
    assert_eq!(
        trace_ranks,
        (0..RANKS).collect::<Vec<_>>(),
        "one trace file per rank (one thread each): {:?}\n{}",
        files.keys().collect::<Vec<_>>(),
        got.describe()
    );

    let aborter = RANKS - 1;
    let mut problems = Vec::new();
    for (name, f) in &files {
        let rank = f.header.rank;
        if f.truncated.is_some() {
            problems.push(format!("{name}: cut short: {:?}", f.truncated));
        }
        let flushes = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::BufferFlush { .. }))
            .count();
        // 60 000 leaf records at 3-4 bytes fill a 64 KiB buffer (7/8 of
        // it before a write-out) more than twice.
        if flushes < 2 || f.blocks < 3 {
            problems.push(format!(
                "{name}: {flushes} flushes, {} blocks: the buffer was meant to be written out before the abort",
                f.blocks
            ));
        }
        let (enters, open) = walk(name, f, &mut problems);
        let Some(p) = profiles.iter().find(|p| p.rank == rank) else {
            continue;
        };
        let mut calls: BTreeMap<u32, u64> = BTreeMap::new();
        for (_, _, n) in profiles::nodes(std::slice::from_ref(p)) {
            *calls.entry(n.region).or_default() += n.calls;
        }
        let leaf = enters
            .iter()
            .filter(|(r, _)| name_of(**r) == "leaf")
            .map(|(_, n)| *n)
            .sum::<u64>();
        if leaf != LEAF_CALLS {
            problems.push(format!("{name}: {leaf} enters of leaf"));
        }
        let all: std::collections::BTreeSet<u32> =
            calls.keys().chain(enters.keys()).copied().collect();
        for region in &all {
            let (e, c) = (
                enters.get(region).copied().unwrap_or(0),
                calls.get(region).copied().unwrap_or(0),
            );
            let abort_call = rank == aborter && kind_of(*region) == "mpi_abort";
            if abort_call {
                // Written before the call's enter probe (see the module
                // doc); the profile counts it only if written after.
                if e != 0 || c > 1 {
                    problems.push(format!("{name}: MPI_Abort: {e} enter records, {c} calls"));
                }
            } else if e != c {
                problems.push(format!(
                    "{name}: region {} ({region}): {e} enter records, {c} calls in the profile (reason {})",
                    name_of(*region),
                    p.reason
                ));
            }
        }
        let open: Vec<&str> = open.iter().map(|&r| name_of(r)).collect();
        let want: &[&str] = if rank == aborter {
            &["main"]
        } else {
            &["main", "wait_forever", "MPI_Ssend"]
        };
        if open != want {
            problems.push(format!("{name}: open at its end: {open:?}, want {want:?}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n{}",
        problems.join("\n"),
        got.describe()
    );
}

on_both_mpis!(
    an_aborting_job_leaves_every_ranks_trace_up_to_the_abort,
    an_aborting_job_leaves_every_ranks_trace_up_to_the_abort_with_mpich,
    check_abort,
    open_mpi,
    mpich
);
