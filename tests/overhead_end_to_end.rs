//! Overhead analysis end to end (issue 7), through the `instrument` CLI:
//! programs with injected, known overheads (wall-clock spins, see the
//! header comments of testdata/scaling/overheads.c and mpi_imbalance.c) are
//! instrumented, built and run by `instrument experiment`; at p = 2 each
//! category must be within 20 % of the injected amount and the six must add
//! up to T_o. `instrument overhead` must give the same figures from the
//! stored run directories and refuse runs of differently instrumented
//! programs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use common::{compile, instrument_bin, instrument_flags, require_tool, run, run_ok};
use common::{testdata, TestDir};

const MS: f64 = 1e6;

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

fn json(text: &str, what: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON ({e}):\n{text}"))
}

fn ns(v: &Value, key: &str) -> i64 {
    v[key]
        .as_i64()
        .unwrap_or_else(|| panic!("`{key}` is not an integer in {v}"))
}

fn within(what: &str, got_ns: i64, want_ms: f64, tolerance: f64, context: &Value) {
    let got = got_ns as f64 / MS;
    assert!(
        (got - want_ms).abs() <= tolerance * want_ms,
        "{what}: {got:.1} ms, want {want_ms} ms ± {:.0} %\n{context:#}",
        tolerance * 100.0
    );
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

fn only_parallel_run(report: &Value) -> &Value {
    let runs = report["runs"].as_array().expect("runs array");
    assert_eq!(runs.len(), 1, "{report:#}");
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
    let tmp = TestDir::new("overhead-omp");
    let prog = build(
        &tmp,
        "overheads.c",
        "omp,functions",
        &common::cc(),
        &["-fopenmp", "-O1"],
    );
    let out = tmp.join("exp");
    let exp = run_ok(
        instrument()
            .args([
                "experiment",
                "--threads",
                "1,2",
                "--format",
                "json",
                "--out",
            ])
            .arg(&out)
            .arg("--")
            .arg(&prog),
    );
    // Progress on stderr, one line per run; JSON alone on stdout.
    assert!(
        exp.stderr.contains("[1/2] t1 run 1/1"),
        "{}",
        exp.describe()
    );
    assert!(
        exp.stderr.contains("[2/2] t2 run 1/1"),
        "{}",
        exp.describe()
    );
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
    check_shape(p2);
    let cats = &p2["categories"];
    within(
        "loss of parallelism",
        ns(cats, "loss_of_parallelism"),
        OMP_LOSS_MS,
        0.2,
        p2,
    );
    within(
        "synchronisation",
        ns(cats, "synchronization"),
        OMP_SYNC_MS,
        0.2,
        p2,
    );
    // Work is the same at both team sizes: nothing big is unexplained.
    let t_o = ns(p2, "total_overhead_ns");
    assert!(
        ns(cats, "unidentified").abs() as f64 <= 0.2 * t_o as f64,
        "unidentified is a large part of T_o: {p2:#}"
    );
    let barrier = region_of_kind(p2, "omp_barrier");
    within(
        "explicit barrier region",
        ns(&barrier["categories"], "synchronization"),
        OMP_BARRIER_MS,
        0.2,
        barrier,
    );

    // The same from the stored run directories.
    let again = run_ok(
        instrument()
            .args(["overhead", "--format", "json"])
            .arg(&t1)
            .arg(&t2),
    );
    let again = json(&again.stdout, "overhead --format json");
    assert_eq!(again["runs"][0]["categories"], p2["categories"]);
    assert_eq!(
        again["runs"][0]["total_overhead_ns"],
        p2["total_overhead_ns"]
    );

    // The text table: rows per category and subcategory, a column per p.
    let text = run_ok(instrument().arg("overhead").arg(&t1).arg(&t2)).stdout;
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
            .args(["calibrate", "--ops", "20000", "--out"])
            .arg(&cal),
    );
    assert!(c.stdout.contains("probe enter+exit"), "{}", c.describe());
    let comp = run_ok(
        instrument()
            .arg("overhead")
            .arg("--calibration")
            .arg(&cal)
            .arg(&t1)
            .arg(&t2),
    );
    assert!(
        comp.stdout.contains("note: compensated: "),
        "{}",
        comp.describe()
    );
    let comp_json = run_ok(
        instrument()
            .args(["overhead", "--format", "json", "--calibration"])
            .arg(&cal)
            .arg(&t1)
            .arg(&t2),
    );
    let comp_json = json(&comp_json.stdout, "compensated overhead");
    let cr = only_parallel_run(&comp_json);
    check_shape(cr);
    within(
        "compensated synchronisation",
        ns(&cr["categories"], "synchronization"),
        OMP_SYNC_MS,
        0.2,
        cr,
    );

    // --repeat keeps one run (the median) per configuration; --baseline
    // compares every configuration with a given sequential run.
    let out2 = tmp.join("exp2");
    let rep = run_ok(
        instrument()
            .args([
                "experiment",
                "--threads",
                "2",
                "--repeat",
                "3",
                "--format",
                "json",
            ])
            .arg("--baseline")
            .arg(&t1)
            .arg("--out")
            .arg(&out2)
            .arg("--")
            .arg(&prog),
    );
    for k in 1..=3 {
        assert!(
            rep.stderr.contains(&format!("t2 run {k}/3")),
            "{}",
            rep.describe()
        );
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
    check_shape(r);
    within(
        "synchronisation (repeat)",
        ns(&r["categories"], "synchronization"),
        OMP_SYNC_MS,
        0.2,
        r,
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
    assert!(!r.status.success(), "{}", r.describe());
    assert!(r.stdout.is_empty(), "{}", r.describe());
    assert!(
        r.stderr.contains("not instrumented like the baseline"),
        "{}",
        r.describe()
    );
    assert!(
        r.stderr
            .contains("only in the baseline: function `spin` at overheads.c:"),
        "{}",
        r.describe()
    );
}

/// mpi_imbalance.c at 1 and 2 ranks through a launcher: the barrier wait of
/// the imbalance is synchronisation, the broadcast wait data movement.
#[test]
fn mpi_rank_imbalance_at_two_ranks() {
    if !(require_tool("mpicc", "libopenmpi-dev") && require_tool("mpirun", "openmpi-bin")) {
        return;
    }
    let tmp = TestDir::new("overhead-mpi");
    let prog = build(&tmp, "mpi_imbalance.c", "mpi,functions", "mpicc", &["-O1"]);
    let out = tmp.join("exp");
    let exp = run_ok(
        instrument()
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(["experiment", "--ranks", "1,2", "--format", "json"])
            .args(["--launcher", "mpirun --oversubscribe -np {n}", "--out"])
            .arg(&out)
            .arg("--")
            .arg(&prog),
    );
    assert!(
        exp.stderr.contains("[2/2] r2 run 1/1"),
        "{}",
        exp.describe()
    );
    let report = json(&exp.stdout, "experiment --ranks");
    let p2 = only_parallel_run(&report);
    println!("experiment: {}", p2["categories"]);
    assert_eq!(p2["processors"], 2);
    check_shape(p2);
    let cats = &p2["categories"];
    within(
        "synchronisation",
        ns(cats, "synchronization"),
        MPI_SYNC_MS,
        0.2,
        p2,
    );
    within(
        "data movement (broadcast wait)",
        ns(cats, "data_movement"),
        MPI_BCAST_WAIT_MS,
        0.2,
        p2,
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
        let r = run(instrument().args(args).current_dir(tmp.path()));
        assert!(!r.status.success(), "{}", r.describe());
        assert!(
            r.stderr.contains(message),
            "want `{message}`: {}",
            r.describe()
        );
    }
    // One configuration and no --baseline: nothing to compare.
    let r = run(instrument()
        .args(["experiment", "--threads", "1", "--out"])
        .arg(&out)
        .args(["--", "true"]));
    assert!(!r.status.success(), "{}", r.describe());
    assert!(r.stderr.contains("nothing to compare"), "{}", r.describe());
    assert!(!out.exists(), "nothing ran");
}
