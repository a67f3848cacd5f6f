//! MPI end to end: instrument the programs of `testdata/mpi` with
//! `--regions mpi,functions`, build the original and the instrumented copy
//! with the MPI compiler wrappers, run both under `mpirun --oversubscribe
//! -np 1, 2, 4`, and require the same stdout and exit status; then hold the
//! merged report against per-rank call counts known by construction and
//! the barrier wait built into `comm.c` and `comm.f90`.
//!
//! Open MPI (`mpicc`, `mpif90`, `mpirun`) and MPICH (`mpicc.mpich`,
//! `mpirun.mpich`) are required under `REGIO_REQUIRE_TOOLCHAINS=1`
//! (`common::mpis`); without, a line says what is skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::mpis::{mpich, mpich_fortran, open_mpi, open_mpi_fortran, Mpi, MPICH, OPEN_MPI};
use crate::common::report::{only_run, report_json, str_field, visit};
use crate::common::{compile, instrument_bin, instrument_flags, run, run_ok};
use crate::common::{machine, testdata, Run, TestDir};

/// Per-rank calls expected for one MPI routine (kind without `mpi_`),
/// given the rank and the number of ranks.
type Expect = fn(&str, u32, u32) -> Option<u64>;

/// `testdata/mpi/comm.c`.
fn expect_comm_c(call: &str, _rank: u32, size: u32) -> Option<u64> {
    let iter = 5;
    let p2p = if size > 1 { iter } else { 0 };
    Some(match call {
        "init" | "comm_rank" | "comm_size" | "finalize" => 1,
        "send" | "recv" => p2p,
        "irecv" | "isend" => iter + 1,
        "waitall" => iter,
        "wait" => 2,
        "sendrecv" => iter,
        "bcast" | "reduce" | "allreduce" | "gather" | "barrier" => 1,
        "abort" => 0,
        _ => return None,
    })
}

/// `testdata/mpi/comm.f90`.
fn expect_comm_f90(call: &str, _rank: u32, _size: u32) -> Option<u64> {
    Some(match call {
        "init" | "comm_rank" | "comm_size" | "finalize" => 1,
        "sendrecv" | "irecv" | "isend" | "waitall" => 5,
        "allreduce" | "bcast" | "barrier" => 1,
        _ => return None,
    })
}

/// `testdata/mpi/comm_f08.f90`.
fn expect_comm_f08(call: &str, _rank: u32, _size: u32) -> Option<u64> {
    Some(match call {
        "init" | "comm_rank" | "comm_size" | "finalize" => 1,
        "irecv" | "isend" | "waitall" => 5,
        "allreduce" | "barrier" => 1,
        _ => return None,
    })
}

/// `testdata/mpi/comm_fixed.f`.
fn expect_comm_fixed(call: &str, _rank: u32, _size: u32) -> Option<u64> {
    Some(match call {
        "init" | "comm_rank" | "comm_size" | "finalize" => 1,
        "sendrecv" => 5,
        "reduce" | "barrier" => 1,
        _ => return None,
    })
}

/// Runs `exe` on `np` ranks with the run directory `run_dir` (None: no
/// measurement environment at all).
fn mpirun(mpi: &Mpi, np: u32, exe: &Path, dir: &Path, run_dir: Option<&Path>) -> Run {
    let mut c = Command::new(mpi.run);
    c.current_dir(dir)
        .env_remove("LD_LIBRARY_PATH")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(mpi.args)
        .args(["-np", &np.to_string()]);
    if let Some(d) = run_dir {
        c.env("REGIO_DIR", d);
        if mpi.is_open_mpi() {
            c.args(["-x", "REGIO_DIR"]);
        }
    }
    c.arg(exe);
    run(&mut c)
}

/// Builds `source` plain and instrumented; returns (plain, instrumented).
fn build(mpi: &Mpi, source: &Path, tmp: &TestDir) -> (PathBuf, PathBuf) {
    let fortran = source.extension().is_some_and(|e| e != "c");
    let compiler = if fortran { mpi.fc } else { mpi.cc };
    let name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let src_dir = tmp.join("src");
    std::fs::create_dir_all(&src_dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let copy = src_dir.join(&name);
    std::fs::copy(source, &copy).unwrap_or_else(|e| panic!("copy {}: {e}", source.display()));
    let out = tmp.join("inst");
    run_ok(
        Command::new(instrument_bin())
            .arg(&src_dir)
            .arg("--out")
            .arg(&out)
            .args(["--regions", "mpi,functions"]),
    );
    let plain = tmp.join("plain");
    compile(
        compiler,
        &["-Wall".into(), "-O1".into()],
        &[copy],
        &[],
        &plain,
    );
    let inst = tmp.join("instrumented");
    let mut flags = vec!["-Wall".to_string(), "-O1".to_string()];
    if !fortran {
        flags.extend(instrument_flags("--cflags"));
    }
    compile(
        compiler,
        &flags,
        &[out.join(&name)],
        &instrument_flags("--libs"),
        &inst,
    );
    (plain, inst)
}

/// Per (kind, rank): calls, summed over the DRG nodes of that kind.
fn calls_by_kind_and_rank(run: &Value) -> BTreeMap<(String, u32), u64> {
    let mut out = BTreeMap::new();
    visit(run, &mut |n, _| {
        let kind = str_field(n, "kind");
        if let Some(call) = kind.strip_prefix("mpi_") {
            for r in n["per_rank"].as_array().map_or(&[][..], Vec::as_slice) {
                let rank = r["rank"].as_u64().unwrap_or(u64::MAX) as u32;
                let calls = r["calls"].as_u64().unwrap_or(0);
                *out.entry((call.to_string(), rank)).or_default() += calls;
            }
        }
    });
    out
}

/// Barrier time per rank (inclusive, summed over nodes).
fn barrier_ns_by_rank(run: &Value) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    visit(run, &mut |n, _| {
        if str_field(n, "kind") == "mpi_barrier" {
            for r in n["per_rank"].as_array().map_or(&[][..], Vec::as_slice) {
                let rank = r["rank"].as_u64().unwrap_or(u64::MAX) as u32;
                *out.entry(rank).or_default() += r["inclusive_ns"].as_u64().unwrap_or(0);
            }
        }
    });
    out
}

fn check_program(mpi: &Mpi, file: &str, expect: Expect, spin_ms: Option<f64>) {
    // MPI runs oversubscribe the machine; one program at a time, and no
    // other test's commands, keeps the measured waits close to the ones
    // built in.
    let _machine = machine::hold();
    let source = testdata().join("mpi").join(file);
    let tmp = TestDir::new("mpi");
    let (plain, inst) = build(mpi, &source, &tmp);
    let mut problems = Vec::new();
    for np in [1u32, 2, 4] {
        let want = mpirun(mpi, np, &plain, tmp.path(), None);
        let run_dir = tmp.join(format!("run-{np}"));
        let got = mpirun(mpi, np, &inst, tmp.path(), Some(&run_dir));
        assert_eq!(want.outcome(), "exit 0", "{}", want.describe());
        assert_eq!(got.outcome(), want.outcome(), "{}", got.describe());
        assert_eq!(got.stdout, want.stdout, "{file} np {np}: stdout differs");

        let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
        let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run["processes"], np, "{file} np {np}: one profile per rank");
        assert_eq!(run["complete"], true, "{file} np {np}");
        let counts = calls_by_kind_and_rank(run);
        for ((call, rank), got) in &counts {
            match expect(call, *rank, np) {
                Some(want) if want == *got => {}
                Some(want) => problems.push(format!(
                    "{file} np {np} rank {rank}: MPI_{call} {got} calls, expected {want}"
                )),
                None => problems.push(format!(
                    "{file} np {np} rank {rank}: unexpected region mpi_{call} ({got} calls)"
                )),
            }
        }
        // Every expected routine is there on every rank.
        for rank in 0..np {
            for call in [
                "init",
                "comm_rank",
                "comm_size",
                "finalize",
                "send",
                "recv",
                "irecv",
                "isend",
                "waitall",
                "wait",
                "sendrecv",
                "bcast",
                "reduce",
                "allreduce",
                "gather",
                "barrier",
            ] {
                let want = expect(call, rank, np).unwrap_or(0);
                let got = counts.get(&(call.to_string(), rank)).copied().unwrap_or(0);
                if want != got && !counts.contains_key(&(call.to_string(), rank)) {
                    problems.push(format!(
                        "{file} np {np} rank {rank}: MPI_{call} missing, expected {want} calls"
                    ));
                }
            }
        }
        // The imbalance: rank r spins (r + 1) * D before the barrier, so it
        // waits (np - 1 - r) * D there. Checked where that is at least D.
        if let Some(d) = spin_ms {
            let waits = barrier_ns_by_rank(run);
            for rank in 0..np.saturating_sub(1) {
                let want = f64::from(np - 1 - rank) * d * 1e6;
                let got = waits.get(&rank).copied().unwrap_or(0) as f64;
                // 20 %, but at least 30 ms: with 4 ranks busy on 2 cores, the
                // last rank's spin can end a scheduler slice late (22 ms
                // seen on a clean CI run, with the runtime of before as
                // well as now).
                if (got - want).abs() > (0.2 * want).max(30e6) {
                    problems.push(format!(
                        "{file} np {np} rank {rank}: barrier wait {:.1} ms, built-in {:.1} ms",
                        got / 1e6,
                        want / 1e6
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn c_calls_are_counted_per_rank_and_the_barrier_shows_the_imbalance() {
    if open_mpi() {
        check_program(&OPEN_MPI, "comm.c", expect_comm_c, Some(100.0));
    }
}

#[test]
fn fortran_use_mpi_calls_are_counted_per_rank() {
    if open_mpi_fortran() {
        check_program(&OPEN_MPI, "comm.f90", expect_comm_f90, Some(100.0));
    }
}

#[test]
fn fortran_mpi_f08_calls_are_counted_per_rank() {
    if open_mpi_fortran() {
        check_program(&OPEN_MPI, "comm_f08.f90", expect_comm_f08, None);
    }
}

#[test]
fn fixed_form_mpif_h_calls_are_counted_per_rank() {
    if open_mpi_fortran() {
        check_program(&OPEN_MPI, "comm_fixed.f", expect_comm_fixed, None);
    }
}

#[test]
fn mpich_runs_the_c_program_too() {
    if mpich() {
        check_program(&MPICH, "comm.c", expect_comm_c, Some(100.0));
    }
}

#[test]
fn mpich_runs_the_fortran_programs_too() {
    if mpich_fortran() {
        check_program(&MPICH, "comm.f90", expect_comm_f90, Some(100.0));
        check_program(&MPICH, "comm_f08.f90", expect_comm_f08, None);
        check_program(&MPICH, "comm_fixed.f", expect_comm_fixed, None);
    }
}

on_both_mpis!(
    an_aborting_run_leaves_every_ranks_profile,
    an_aborting_run_leaves_every_ranks_profile_with_mpich,
    aborting_run_leaves_every_ranks_profile,
    open_mpi,
    mpich
);

fn aborting_run_leaves_every_ranks_profile(mpi: &Mpi) {
    let _machine = machine::hold();
    let source = testdata().join("mpi").join("abort.c");
    let tmp = TestDir::new(&format!("mpi-abort-{}", mpi.name));
    let (plain, inst) = build(mpi, &source, &tmp);
    let want = mpirun(mpi, 2, &plain, tmp.path(), None);
    let run_dir = tmp.join("run");
    let got = mpirun(mpi, 2, &inst, tmp.path(), Some(&run_dir));
    assert_ne!(want.outcome(), "exit 0", "{}", want.describe());
    assert_eq!(got.outcome(), want.outcome(), "{}", got.describe());
    assert_eq!(got.stdout, want.stdout);
    let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let ranks: Vec<u64> = run["per_process"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|p| p["rank"].as_u64())
        .collect();
    assert_eq!(ranks, [0, 1], "every rank wrote its profile: {run}");
    // The run ended by the abort: the last rank (which called it) says
    // so, not complete; the other says so too, or, when the launcher's
    // SIGTERM reached it before the abort's own signal, `signal`.
    for p in run["per_process"].as_array().map_or(&[][..], Vec::as_slice) {
        let reason = p["reason"].as_str();
        assert_eq!(p["complete"].as_bool(), Some(false), "{p}");
        match p["rank"].as_u64() {
            Some(1) => assert_eq!(reason, Some("abort"), "{p}"),
            _ => assert!(matches!(reason, Some("abort" | "signal")), "{p}"),
        }
    }
    // Both ranks measured the allreduce before the abort.
    let counts = calls_by_kind_and_rank(run);
    for rank in 0..2 {
        assert_eq!(
            counts.get(&("allreduce".to_string(), rank)),
            Some(&1),
            "{counts:?}"
        );
    }
}

/// Sender x receiver -> (messages, bytes) of `testdata/mpi/matrix.c` on
/// `n` ranks, by construction (see the program's comment).
fn expected_matrix(n: u32) -> BTreeMap<(u32, u32), (u64, u64)> {
    let mut m: BTreeMap<(u32, u32), (u64, u64)> = BTreeMap::new();
    let mut add = |s: u32, d: u32, msgs: u64, bytes_each: u64| {
        let c = m.entry((s, d)).or_default();
        c.0 += msgs;
        c.1 += msgs * bytes_each;
    };
    if n > 1 {
        for s in 0..n {
            add(s, (s + 1) % n, u64::from(s + 1), 2 * u64::from(s + 1) * 4);
        }
        for d in 1..n {
            add(0, d, 1, u64::from(d) * 100 * 8);
        }
        add(1, 0, 3, 16);
    }
    for parity in 0..2 {
        let group: Vec<u32> = (0..n).filter(|r| r % 2 == parity).collect();
        if group.len() > 1 {
            for (i, &s) in group.iter().enumerate() {
                add(s, group[(i + 1) % group.len()], 1, 3);
            }
        }
    }
    m
}

/// The run's matrix from the report: `communication.matrix` (sends), and
/// the same figures rebuilt from the receive records of every node.
type Matrix = BTreeMap<(u32, u32), (u64, u64)>;

fn reported_matrices(run: &Value) -> (Matrix, Matrix) {
    let mut sent = Matrix::new();
    for c in run["communication"]["matrix"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
    {
        let key = (
            c["sender"].as_u64().unwrap_or(u64::MAX) as u32,
            c["receiver"].as_u64().unwrap_or(u64::MAX) as u32,
        );
        let cell = sent.entry(key).or_default();
        cell.0 += c["messages"].as_u64().unwrap_or(0);
        cell.1 += c["bytes"].as_u64().unwrap_or(0);
    }
    let mut received = Matrix::new();
    visit(run, &mut |n, _| {
        for m in n["messages"].as_array().map_or(&[][..], Vec::as_slice) {
            if m["direction"] == "recv" {
                let key = (
                    m["peer"].as_i64().unwrap_or(-9) as u32,
                    m["rank"].as_u64().unwrap_or(u64::MAX) as u32,
                );
                let cell = received.entry(key).or_default();
                cell.0 += m["messages"].as_u64().unwrap_or(0);
                cell.1 += m["bytes"].as_u64().unwrap_or(0);
            }
        }
    });
    (sent, received)
}

fn check_matrix(mpi: &Mpi) {
    let _machine = machine::hold();
    let source = testdata().join("mpi").join("matrix.c");
    let tmp = TestDir::new(&format!("mpi-matrix-{}", mpi.name));
    let (plain, inst) = build(mpi, &source, &tmp);
    let mut problems = Vec::new();
    for np in [2u32, 3, 4] {
        let want = mpirun(mpi, np, &plain, tmp.path(), None);
        let run_dir = tmp.join(format!("run-{np}"));
        let got = mpirun(mpi, np, &inst, tmp.path(), Some(&run_dir));
        assert_eq!(want.outcome(), "exit 0", "{}", want.describe());
        assert_eq!(got.outcome(), want.outcome(), "{}", got.describe());
        assert_eq!(got.stdout, want.stdout, "np {np}: stdout differs");
        let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
        let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
        let expected = expected_matrix(np);
        let (sent, received) = reported_matrices(run);
        if sent != expected {
            problems.push(format!(
                "{} np {np}: sent matrix {sent:?}, built {expected:?}",
                mpi.name
            ));
        }
        // Receives name their senders too: wildcard sources read from the
        // status, sub-communicator ranks translated to world ranks.
        if received != expected {
            problems.push(format!(
                "{} np {np}: received matrix {received:?}, built {expected:?}",
                mpi.name
            ));
        }
        assert_eq!(run["communication"]["messages_dropped"], 0, "{run}");
        let what = format!("{} np {np}", mpi.name);
        problems.extend(message_time_problems(run, &what));
        // The text report shows the same matrix.
        let text = run_ok(Command::new(instrument_bin()).arg("report").arg(&run_dir)).stdout;
        let shown = text_matrix(&text);
        if shown != expected {
            problems.push(format!(
                "{what}: text matrix {shown:?}, built {expected:?}\n{text}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The time of each blocking point-to-point call's messages (Send, Recv,
/// Sendrecv: the call's own duration, one peer per call) is there and
/// within the call's inclusive time, per rank and direction.
fn message_time_problems(run: &Value, what: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut checked = 0;
    visit(run, &mut |n, _| {
        let name = str_field(n, "name");
        if !["MPI_Send", "MPI_Recv", "MPI_Sendrecv"].contains(&name) {
            return;
        }
        checked += 1;
        let mut time: BTreeMap<(u64, String), (u64, u64)> = BTreeMap::new();
        for m in n["messages"].as_array().map_or(&[][..], Vec::as_slice) {
            let key = (
                m["rank"].as_u64().unwrap_or(u64::MAX),
                str_field(m, "direction").to_string(),
            );
            let t = time.entry(key).or_default();
            t.0 += m["messages"].as_u64().unwrap_or(0);
            t.1 += m["time_ns"].as_u64().unwrap_or(0);
        }
        for ((rank, direction), (messages, ns)) in time {
            let inclusive = n["per_rank"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["rank"].as_u64() == Some(rank))
                .and_then(|r| r["inclusive_ns"].as_u64())
                .unwrap_or(0);
            // 1 us for the two figures' tick-to-ns roundings.
            if messages == 0 || ns == 0 || ns > inclusive + 1_000 {
                problems.push(format!(
                    "{what}: {name} rank {rank} {direction}: {messages} messages in {ns} ns, \
                     the calls took {inclusive} ns"
                ));
            }
        }
    });
    if checked < 3 {
        problems.push(format!("{what}: {checked} blocking send/receive nodes"));
    }
    problems
}

/// The matrix of the text report (`communication matrix:`, sender rows
/// by receiver columns, cells `messages / bytes` or `-`).
fn text_matrix(text: &str) -> Matrix {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with("communication matrix:"))
        .skip(1);
    let cells = |l: &str| -> Vec<String> {
        l.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect()
    };
    let receivers: Vec<u32> = match lines.next() {
        Some(head) => cells(head)
            .iter()
            .skip(1)
            .filter_map(|c| c.parse().ok())
            .collect(),
        None => return Matrix::new(),
    };
    let mut m = Matrix::new();
    for row in lines.take(receivers.len()).map(cells) {
        let Some(sender) = row.first().and_then(|c| c.parse::<u32>().ok()) else {
            break;
        };
        for (cell, &receiver) in row.iter().skip(1).zip(&receivers) {
            if let Some((messages, bytes)) = cell.split_once(" / ") {
                let parse = |v: &str| v.trim().parse::<u64>().unwrap_or(u64::MAX);
                m.insert((sender, receiver), (parse(messages), parse(bytes)));
            }
        }
    }
    m
}

on_both_mpis!(
    the_communication_matrix_is_what_the_program_sends,
    the_communication_matrix_is_what_the_program_sends_with_mpich,
    check_matrix,
    open_mpi,
    mpich
);

/// Rank 1's clock runs `OFFSET_NS` ahead of rank 0's and gains
/// `DRIFT_PPM` (REGIO_TEST_CLOCK_SKEW); the measurements at MPI_Init and
/// MPI_Finalize must find both back.
fn check_clock_skew(mpi: &Mpi) {
    const OFFSET_NS: f64 = 5_000_000.0;
    const DRIFT_PPM: f64 = 2_000.0;
    let _machine = machine::hold();
    let source = testdata().join("mpi").join("matrix.c");
    let tmp = TestDir::new(&format!("mpi-skew-{}", mpi.name));
    let (_, inst) = build(mpi, &source, &tmp);
    let run_dir = tmp.join("run");
    let mut c = Command::new(mpi.run);
    c.current_dir(tmp.path())
        .env_remove("LD_LIBRARY_PATH")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("REGIO_DIR", &run_dir)
        .env(
            "REGIO_TEST_CLOCK_SKEW",
            format!("1:{OFFSET_NS}:{DRIFT_PPM}"),
        )
        .args(mpi.args)
        .args(["-np", "2"]);
    if mpi.is_open_mpi() {
        c.args(["-x", "REGIO_DIR", "-x", "REGIO_TEST_CLOCK_SKEW"]);
    }
    c.arg(&inst).arg("1");
    let got = run(&mut c);
    assert_eq!(got.outcome(), "exit 0", "{}", got.describe());
    let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let clocks = run["communication"]["clock_sync"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let rank1 = clocks
        .iter()
        .find(|k| k["rank"] == 1)
        .unwrap_or_else(|| panic!("no clock measurement of rank 1: {run}"));
    let duration = run["per_process"][1]["duration_ns"].as_f64().unwrap_or(0.0);
    let (init, fin) = (&rank1["init"], &rank1["finalize"]);
    let o1 = init["offset_ns"].as_f64().unwrap_or(f64::NAN);
    let o2 = fin["offset_ns"].as_f64().unwrap_or(f64::NAN);
    let rtt = init["round_trip_ns"]
        .as_f64()
        .unwrap_or(0.0)
        .max(fin["round_trip_ns"].as_f64().unwrap_or(0.0));
    // Rank 0 minus rank 1: minus the skew, which by MPI_Init has grown by
    // the drift over at most the process's lifetime. A measurement is off
    // by at most half its round trip (Cristian); 20 us on top for rounding.
    let slack = rtt / 2.0 + 20_000.0;
    let lowest = -(OFFSET_NS + DRIFT_PPM * 1e-6 * duration) - slack;
    assert!(
        (lowest..=-OFFSET_NS + slack).contains(&o1),
        "offset at MPI_Init {o1} ns, expected about -{OFFSET_NS} ns: {rank1}"
    );
    // Rank 0's clock against rank 1's: -DRIFT / (1 + DRIFT).
    let want_ppm = -DRIFT_PPM / (1.0 + DRIFT_PPM * 1e-6);
    let got_ppm = rank1["drift_ppm"].as_f64().unwrap_or(f64::NAN);
    let span = fin["local_ns"].as_f64().unwrap_or(0.0) - init["local_ns"].as_f64().unwrap_or(0.0);
    assert!(
        span >= 0.4e9,
        "the measurements are {span} ns apart: {rank1}"
    );
    let tolerance_ppm = 2.0 * slack / span * 1e6;
    assert!(
        (got_ppm - want_ppm).abs() <= tolerance_ppm,
        "drift {got_ppm} ppm, injected {want_ppm} ppm (+- {tolerance_ppm}): {rank1}"
    );
    // Each offset is off by up to `slack`, so the difference by up to twice
    // that (on a loaded machine the best round trip can be milliseconds).
    assert!(
        o2 - o1 < -DRIFT_PPM * 1e-6 * span + 2.0 * slack,
        "rank 1 gains on rank 0: {o1} then {o2} (+- {slack} each): {rank1}"
    );
    // Rank 0 measures against itself.
    let rank0 = clocks.iter().find(|k| k["rank"] == 0);
    assert_eq!(
        rank0.map(|k| &k["init"]["offset_ns"]),
        Some(&Value::from(0))
    );
}

on_both_mpis!(
    clock_sync_recovers_an_injected_skew,
    clock_sync_recovers_an_injected_skew_with_mpich,
    check_clock_skew,
    open_mpi,
    mpich
);

/// Fortran capture: `comm.f90` (`use mpi`) and `comm_f08.f90` send to the
/// right neighbour only, 8 bytes x (5 Sendrecv + 5 Isend) and 4 bytes x 5
/// Isend respectively; the reported matrix must say so.
fn check_fortran_matrix(mpi: &Mpi) {
    const ITER_F08: u64 = 5;
    let _machine = machine::hold();
    for (file, messages, bytes_each) in [("comm.f90", 10u64, 8u64), ("comm_f08.f90", ITER_F08, 4)] {
        let source = testdata().join("mpi").join(file);
        let tmp = TestDir::new(&format!("mpi-fmatrix-{}", mpi.name));
        let (_, inst) = build(mpi, &source, &tmp);
        let np = 3u32;
        let run_dir = tmp.join("run");
        let got = mpirun(mpi, np, &inst, tmp.path(), Some(&run_dir));
        assert_eq!(got.outcome(), "exit 0", "{}", got.describe());
        let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
        let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
        let expected: Matrix = (0..np)
            .map(|s| ((s, (s + 1) % np), (messages, messages * bytes_each)))
            .collect();
        let (sent, received) = reported_matrices(run);
        assert_eq!(sent, expected, "{} {file}: sent", mpi.name);
        assert_eq!(received, expected, "{} {file}: received", mpi.name);
    }
}

on_both_mpis!(
    fortran_messages_make_the_matrix,
    fortran_messages_make_the_matrix_with_mpich,
    check_fortran_matrix,
    open_mpi_fortran,
    mpich_fortran
);
