//! Overhead analysis end to end (issue 7), through the `instrument` CLI:
//! programs with injected, known overheads (wall-clock spins, see the
//! header comments of testdata/scaling/overheads.c and mpi_imbalance.c) are
//! instrumented, built and run by `instrument experiment`; at p = 2 each
//! category must be within 20 % of the injected amount and the six must add
//! up to T_o. `instrument overhead` must give the same figures from the
//! stored run directories and refuse runs of differently instrumented
//! programs.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;
use crate::common::{compile, instrument_bin, instrument_flags, require_tool, run, run_ok, Run};
use crate::common::{machine, testdata, TestDir};

const MS: f64 = 1e6;
/// Each category must be within this fraction of the injected amount.
const TOLERANCE: f64 = 0.2;

/// Injected amounts of testdata/scaling/overheads.c at p = 2 (its header).
const OMP_LOSS_MS: f64 = 100.0;
const OMP_SYNC_MS: f64 = 150.0;
const OMP_BARRIER_MS: f64 = 50.0;
/// testdata/scaling/mpi_imbalance.c at 2 ranks (its header).
const MPI_SYNC_MS: f64 = 50.0;
const MPI_BCAST_WAIT_MS: f64 = 50.0;

const CATEGORIES: [&str; 6] = [
    "data_movement",
    "synchronization",
    "control_of_parallelism",
    "additional_computation",
    "loss_of_parallelism",
    "unidentified",
];

fn instrument() -> Command {
    let mut c = Command::new(instrument_bin());
    // Never pick up a calibration of the machine's user: tests that want
    // compensation pass --calibration.
    c.env("REGIO_CALIBRATION", "/nonexistent/regio-calibration.json");
    c
}

/// Instruments `source` (a testdata/scaling file) with `regions` into
/// `tmp/<tag>` and builds it with `compiler` and `flags`.
fn build(tmp: &TestDir, source: &str, regions: &str, compiler: &str, flags: &[&str]) -> PathBuf {
    let tag = regions.replace(',', "_");
    let src_dir = tmp.join(format!("src-{tag}"));
    std::fs::create_dir_all(&src_dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let copy = src_dir.join(source);
    std::fs::copy(testdata().join("scaling").join(source), &copy)
        .unwrap_or_else(|e| panic!("copy {source}: {e}"));
    let out = tmp.join(format!("inst-{tag}"));
    run_ok(
        instrument()
            .arg(&copy)
            .arg("--out")
            .arg(&out)
            .args(["--regions", regions]),
    );
    let mut all: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
    all.extend(instrument_flags("--cflags"));
    let exe = tmp.join(format!("prog-{tag}"));
    compile(
        compiler,
        &all,
        &[out.join(source)],
        &instrument_flags("--libs"),
        &exe,
    );
    exe
}

/// `cmd` (an `instrument()`) running `experiment OPTIONS --format json
/// [--baseline DIR] --out OUT -- PROG`, which must succeed.
fn experiment(
    cmd: &mut Command,
    options: &[&str],
    baseline: Option<&Path>,
    out: &Path,
    prog: &Path,
) -> Run {
    cmd.arg("experiment")
        .args(options)
        .args(["--format", "json"]);
    if let Some(dir) = baseline {
        cmd.arg("--baseline").arg(dir);
    }
    run_ok(cmd.arg("--out").arg(out).arg("--").arg(prog))
}

fn json(text: &str, what: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON ({e}):\n{text}"))
}

fn ns(v: &Value, key: &str) -> i64 {
    v[key]
        .as_i64()
        .unwrap_or_else(|| panic!("`{key}` is not an integer in {v}"))
}

/// `category` of `of` (a run or a region) is within `TOLERANCE` of
/// `want_ms`.
fn within(what: &str, of: &Value, category: &str, want_ms: f64) {
    let got = ns(&of["categories"], category) as f64 / MS;
    assert!(
        (got - want_ms).abs() <= TOLERANCE * want_ms,
        "{what}: {got:.1} ms, want {want_ms} ms ± {:.0} %\n{of:#}",
        TOLERANCE * 100.0
    );
}

/// `r` failed, saying `message` on stderr.
fn refused_saying(r: &Run, message: &str) {
    assert!(!r.status.success(), "{}", r.describe());
    says(&r.stderr, message, r);
}

/// `stream` (`r`'s stdout or stderr) contains `want`.
fn says(stream: &str, want: &str, r: &Run) {
    assert!(stream.contains(want), "want `{want}`: {}", r.describe());
}

/// `instrument overhead [--format json] [--calibration FILE] BASELINE RUN`,
/// which must succeed.
fn overhead(json: bool, calibration: Option<&Path>, baseline: &Path, run: &Path) -> Run {
    let mut c = instrument();
    c.arg("overhead");
    if json {
        c.args(["--format", "json"]);
    }
    if let Some(file) = calibration {
        c.arg("--calibration").arg(file);
    }
    run_ok(c.arg(baseline).arg(run))
}

/// SPEC fields of one parallel run, and the six categories adding up to
/// T_o (each is rounded on its own, so allow a few ns).
fn check_shape(run: &Value) {
    for key in [
        "processors",
        "wall_ns",
        "baseline_wall_ns",
        "total_overhead_ns",
    ] {
        assert!(run[key].is_number(), "no `{key}` in {run:#}");
    }
    let sum: i64 = CATEGORIES.iter().map(|c| ns(&run["categories"], c)).sum();
    let total = ns(run, "total_overhead_ns");
    assert!(
        (sum - total).abs() <= CATEGORIES.len() as i64,
        "categories add up to {sum}, T_o is {total}: {run:#}"
    );
    let regions = run["regions"].as_array().expect("regions array");
    assert!(!regions.is_empty());
    for r in regions {
        for key in ["region", "name", "kind", "file", "line"] {
            assert!(!r[key].is_null(), "region without `{key}`: {r}");
        }
        let sum: i64 = CATEGORIES.iter().map(|c| ns(&r["categories"], c)).sum();
        assert!((sum - ns(r, "total_overhead_ns")).abs() <= 6, "{r:#}");
    }
}

/// The report's one parallel run, checked by `check_shape`.
fn only_parallel_run(report: &Value) -> &Value {
    let runs = report["runs"].as_array().expect("runs array");
    assert_eq!(runs.len(), 1, "{report:#}");
    check_shape(&runs[0]);
    &runs[0]
}

fn region_of_kind<'a>(run: &'a Value, kind: &str) -> &'a Value {
    run["regions"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["kind"] == kind))
        .unwrap_or_else(|| panic!("no {kind} region in {run:#}"))
}

fn omp_toolchain() -> bool {
    require_tool(&common::cc(), "gcc (with libgomp)")
}

/// overheads.c at 1 and 2 threads: `experiment --format json`, the same
/// figures from `overhead --format json` on the stored run directories,
/// the text table, compensation with a calibration, `--repeat` and
/// `--baseline`.
#[test]
fn omp_injected_overheads_at_two_threads() {
    if !omp_toolchain() {
        return;
    }
    let _machine = machine::hold();
    let tmp = TestDir::new("overhead-omp");
    let prog = build(
        &tmp,
        "overheads.c",
        "omp,functions",
        &common::cc(),
        &["-fopenmp", "-O1"],
    );
    let out = tmp.join("exp");
    // Three runs per configuration, the median kept: a 2-core machine
    // running other tests can take a spinning thread off its core in one.
    let exp = experiment(
        &mut instrument(),
        &["--threads", "1,2", "--repeat", "3"],
        None,
        &out,
        &prog,
    );
    // Progress on stderr, one line per run; JSON alone on stdout.
    says(&exp.stderr, "[1/6] t1 run 1/3", &exp);
    says(&exp.stderr, "[6/6] t2 run 3/3", &exp);
    let (t1, t2) = (out.join("t1"), out.join("t2"));
    for d in [&t1, &t2] {
        let profiles = common::walk(d)
            .into_iter()
            .filter(|f| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("profile"))
            })
            .count();
        assert!(profiles > 0, "no profile in {}", d.display());
        assert!(
            d.join("stdout.txt").is_file(),
            "program output kept in {}",
            d.display()
        );
    }
    let report = json(&exp.stdout, "experiment --format json");
    let p2 = only_parallel_run(&report);
    println!("experiment: {}", p2["categories"]);
    assert_eq!(p2["processors"], 2);
    let cats = &p2["categories"];
    within(
        "loss of parallelism",
        p2,
        "loss_of_parallelism",
        OMP_LOSS_MS,
    );
    within("synchronisation", p2, "synchronization", OMP_SYNC_MS);
    // Work is the same at both team sizes: nothing big is unexplained.
    let t_o = ns(p2, "total_overhead_ns");
    assert!(
        ns(cats, "unidentified").abs() as f64 <= 0.2 * t_o as f64,
        "unidentified is a large part of T_o: {p2:#}"
    );
    let barrier = region_of_kind(p2, "omp_barrier");
    within(
        "explicit barrier region",
        barrier,
        "synchronization",
        OMP_BARRIER_MS,
    );

    // The same from the stored run directories.
    let again = json(
        &overhead(true, None, &t1, &t2).stdout,
        "overhead --format json",
    );
    assert_eq!(again["runs"][0]["categories"], p2["categories"]);
    assert_eq!(
        again["runs"][0]["total_overhead_ns"],
        p2["total_overhead_ns"]
    );

    // The text table: rows per category and subcategory, a column per p.
    let text = overhead(false, None, &t1, &t2).stdout;
    for row in [
        "wall time T_p",
        "speedup",
        "efficiency",
        "total overhead T_o",
        "  synchronisation",
        "    barrier",
        "    critical",
        "  loss of parallelism",
        "    sequential",
        "  data movement",
        "  control of parallelism",
        "  additional computation",
        "  unidentified",
        "p=2",
        "baseline",
        "region main;parallel@",
        "note: not compensated: no calibration",
    ] {
        assert!(text.contains(row), "no `{row}` in\n{text}");
    }

    // With a calibration the probe cost is subtracted; few probes here, so
    // the figures barely move.
    let cal = tmp.join("calibration.json");
    let c = run_ok(
        instrument()
            // Any spread: this machine is busy with other tests.
            .args([
                "calibrate",
                "--ops",
                "1000",
                "--max-spread",
                "100000",
                "--out",
            ])
            .arg(&cal),
    );
    says(&c.stdout, "probe enter+exit", &c);
    let comp = overhead(false, Some(&cal), &t1, &t2);
    says(&comp.stdout, "note: compensated: ", &comp);
    let comp_json = overhead(true, Some(&cal), &t1, &t2);
    let comp_json = json(&comp_json.stdout, "compensated overhead");
    let cr = only_parallel_run(&comp_json);
    within(
        "compensated synchronisation",
        cr,
        "synchronization",
        OMP_SYNC_MS,
    );

    // --repeat keeps one run (the median) per configuration; --baseline
    // compares every configuration with a given sequential run.
    let out2 = tmp.join("exp2");
    let rep = experiment(
        &mut instrument(),
        &["--threads", "2", "--repeat", "3"],
        Some(&t1),
        &out2,
        &prog,
    );
    for k in 1..=3 {
        says(&rep.stderr, &format!("t2 run {k}/3"), &rep);
    }
    let kept: Vec<String> = std::fs::read_dir(&out2)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    assert_eq!(kept, ["t2"], "one directory per configuration");
    let rep = json(&rep.stdout, "experiment --repeat");
    assert!(
        rep["baseline"].as_str().is_some_and(|b| b.ends_with("t1")),
        "{rep:#}"
    );
    let r = only_parallel_run(&rep);
    within(
        "synchronisation (repeat)",
        r,
        "synchronization",
        OMP_SYNC_MS,
    );
}

/// `overhead` refuses a run of a differently instrumented program and names
/// the differing regions.
#[test]
fn overhead_refuses_differently_instrumented_runs() {
    if !omp_toolchain() {
        return;
    }
    let tmp = TestDir::new("overhead-refuse");
    let flags = ["-fopenmp", "-O1"];
    let with_functions = build(&tmp, "overheads.c", "omp,functions", &common::cc(), &flags);
    let omp_only = build(&tmp, "overheads.c", "omp", &common::cc(), &flags);
    let measure = |exe: &Path, dir: &Path| {
        run_ok(
            Command::new(exe)
                .env("REGIO_DIR", dir)
                .env("OMP_NUM_THREADS", "2"),
        );
    };
    let (a, b) = (tmp.join("run-functions"), tmp.join("run-omp"));
    measure(&with_functions, &a);
    measure(&omp_only, &b);
    let r = run(instrument().arg("overhead").arg(&a).arg(&b));
    refused_saying(&r, "not instrumented like the baseline");
    assert!(r.stdout.is_empty(), "{}", r.describe());
    says(
        &r.stderr,
        "only in the baseline: function `spin` at overheads.c:",
        &r,
    );
}

/// mpi_imbalance.c at 1 and 2 ranks through a launcher: the barrier wait of
/// the imbalance is synchronisation, the broadcast wait data movement.
#[test]
fn mpi_rank_imbalance_at_two_ranks() {
    if !(require_tool("mpicc", "libopenmpi-dev") && require_tool("mpirun", "openmpi-bin")) {
        return;
    }
    let _machine = machine::hold();
    let tmp = TestDir::new("overhead-mpi");
    let prog = build(&tmp, "mpi_imbalance.c", "mpi,functions", "mpicc", &["-O1"]);
    let out = tmp.join("exp");
    let exp = experiment(
        instrument()
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        &[
            "--ranks",
            "1,2",
            "--repeat",
            "3",
            "--launcher",
            "mpirun --oversubscribe -np {n}",
        ],
        None,
        &out,
        &prog,
    );
    says(&exp.stderr, "[6/6] r2 run 3/3", &exp);
    let report = json(&exp.stdout, "experiment --ranks");
    let p2 = only_parallel_run(&report);
    println!("experiment: {}", p2["categories"]);
    assert_eq!(p2["processors"], 2);
    let cats = &p2["categories"];
    within("synchronisation", p2, "synchronization", MPI_SYNC_MS);
    within(
        "data movement (broadcast wait)",
        p2,
        "data_movement",
        MPI_BCAST_WAIT_MS,
    );
    assert_eq!(
        p2["subcategories"]["synchronization"]["mpi_barrier"], cats["synchronization"],
        "{p2:#}"
    );
    // No OpenMP: loss of parallelism cannot be told and says so.
    assert_eq!(ns(cats, "loss_of_parallelism"), 0);
    assert!(
        p2["notes"].to_string().contains("loss of parallelism: 0"),
        "{p2:#}"
    );
}

/// Command-line mistakes are refused with a message, before anything runs.
#[test]
fn experiment_refuses_bad_command_lines() {
    let tmp = TestDir::new("overhead-cli");
    let out = tmp.join("exp");
    let cases: [(&[&str], &str); 4] = [
        (
            &["experiment", "--", "true"],
            "--threads LIST and/or --ranks LIST",
        ),
        (
            &["experiment", "--threads", "0,2", "--", "true"],
            "at least 1",
        ),
        (
            &[
                "experiment",
                "--ranks",
                "2",
                "--launcher",
                "mpirun -np 2",
                "--",
                "true",
            ],
            "no `{n}`",
        ),
        (
            &[
                "experiment",
                "--threads",
                "1",
                "--format",
                "xml",
                "--",
                "true",
            ],
            "unknown format `xml`",
        ),
    ];
    for (args, message) in cases {
        refused_saying(
            &run(instrument().args(args).current_dir(tmp.path())),
            message,
        );
    }
    // One configuration and no --baseline: nothing to compare.
    let r = run(instrument()
        .args(["experiment", "--threads", "1", "--out"])
        .arg(&out)
        .args(["--", "true"]));
    refused_saying(&r, "nothing to compare");
    assert!(!out.exists(), "nothing ran");
}
