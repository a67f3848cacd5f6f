//! `#[regio::traced]` and `regio::region!` end to end: build the workspace
//! test crate `testdata/rust/traced` twice (as written, and with the
//! `regio/off` feature that compiles every macro away), run both, and hold
//! the traced run's JSON report against call counts known by construction.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use crate::common::report;
use crate::common::{run, run_ok, workspace_root, TestDir};
use serde_json::Value;

const PACKAGE: &str = "regio-testdata-traced";
const BIN: &str = "traced-demo";

/// Builds `traced-demo` (see [`build_bin`]).
fn build(features: &[&str], flavour: &str) -> PathBuf {
    build_bin(BIN, features, flavour)
}

/// Builds a binary of the test crate into its own target directory (so
/// this never waits on the lock of the `cargo test` that runs us) and
/// returns it.
pub fn build_bin(bin: &str, features: &[&str], flavour: &str) -> PathBuf {
    let target = workspace_root()
        .join("target")
        .join("rust-e2e")
        .join(flavour);
    let mut c = Command::new(env!("CARGO"));
    c.current_dir(workspace_root())
        .args(["build", "--quiet", "-p", PACKAGE, "--bin", bin])
        .arg("--target-dir")
        .arg(&target);
    for f in features {
        c.args(["--features", f]);
    }
    run_ok(&mut c);
    target.join("debug").join(bin)
}

fn run_demo(bin: &Path, run_dir: &Path) -> common::Run {
    let mut c = Command::new(bin);
    c.env_remove("REGIO_MODE")
        .env_remove("REGIO_DISABLE")
        .env("REGIO_DIR", run_dir);
    run(&mut c)
}

/// Nodes of `name` in the report, anywhere in the DRG.
fn nodes_named<'a>(run: &'a Value, name: &str) -> Vec<&'a Value> {
    let mut found = Vec::new();
    report::visit(run, &mut |n, _| {
        if report::str_field(n, "name") == name {
            found.push(n);
        }
    });
    found
}

fn total_calls(run: &Value, name: &str) -> u64 {
    nodes_named(run, name)
        .iter()
        .map(|n| report::u64_field(n, "calls"))
        .sum()
}

#[test]
fn traced_items_keep_output_and_count_exactly() {
    let plain_bin = build(&["regio/off"], "off");
    let traced_bin = build(&[], "traced");
    let tmp = TestDir::new("rust-traced");
    let plain = run_demo(&plain_bin, &tmp.join("plain-run"));
    let traced = run_demo(&traced_bin, &tmp.join("run"));
    assert_eq!(plain.outcome(), "exit 0", "{}", plain.describe());
    assert_eq!(traced.outcome(), plain.outcome(), "{}", traced.describe());
    assert_eq!(traced.stdout, plain.stdout, "stdout differs");
    assert_eq!(traced.stderr, plain.stderr, "stderr differs");
    assert!(
        !tmp.join("plain-run").exists(),
        "the `off` build must not measure anything"
    );

    let json = report::report_json(&[&tmp.join("run")]).unwrap_or_else(|e| panic!("{e}"));
    let run = report::only_run(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run["complete"], true, "{run}");

    // Constants of testdata/rust/traced/src/main.rs.
    let (fib_n, parses, threads, per_thread, jobs, yields) = (15u32, 5, 3, 4, 3, 2);
    let fib_calls = {
        // fib(n) makes 2 * F(n + 1) - 1 calls.
        let (mut a, mut b) = (0u64, 1u64);
        for _ in 0..=fib_n {
            (a, b) = (b, a + b);
        }
        2 * a - 1
    };
    let expected: &[(&str, u64)] = &[
        ("fib", fib_calls),
        ("is_even", 4),
        ("is_odd", 4),
        ("parse_sum", parses),
        ("solve", 1),
        ("largest", 2),
        ("evens", 1),
        ("read_raw", 1),
        ("label", 2),
        ("area", 4),
        ("describe", 1),
        ("may_panic", 2),
        ("fetch", jobs),
        // 1 per fetch, per_thread per worker, 1 from the library crate.
        ("leaf", jobs + threads * per_thread + 1),
        ("worker", threads),
        ("squares", 1),
        ("rayon_item", 20),
    ];
    let mut problems = Vec::new();
    for &(name, want) in expected {
        let got = total_calls(run, name);
        if got != want {
            problems.push(format!("{name}: expected {want} calls, report has {got}"));
        }
    }
    for absent in ["not_measured", "solve_internal", "main"] {
        if !nodes_named(run, absent).is_empty() {
            problems.push(format!("{absent} must not be a region"));
        }
    }
    assert!(problems.is_empty(), "{}\n{run:#}", problems.join("\n"));

    // Recursion folds onto one node per context.
    let fib = nodes_named(run, "fib");
    assert_eq!(fib.len(), 1);
    assert_eq!(report::u64_field(fib[0], "recursive_calls"), fib_calls - 1);

    // Kinds: functions, a user region from region!.
    assert_eq!(
        report::str_field(nodes_named(run, "squares")[0], "kind"),
        "user"
    );
    assert_eq!(report::str_field(fib[0], "kind"), "function");

    // The panicking call closed its region.
    for n in nodes_named(run, "may_panic") {
        assert_eq!(report::u64_field(n, "open"), 0);
    }

    // Each worker ran on its own spawned thread; they merge into one node.
    let workers = nodes_named(run, "worker");
    assert_eq!(workers.len(), 1);
    assert_eq!(workers[0]["threads"]["count"], threads);
    // `regio::event!("worker_id", id)` in each worker: one node, three
    // threads, values 0, 1, 2.
    assert_eq!(
        workers[0]["user_events"],
        serde_json::json!([{"name": "worker_id", "count": threads, "min": 0.0,
            "max": (threads - 1) as f64, "sum": 3.0, "mean": 1.0}]),
        "{}",
        workers[0]
    );
    let worker_leaf: u64 = report::children(workers[0])
        .iter()
        .filter(|c| report::str_field(c, "name") == "leaf")
        .map(|c| report::u64_field(c, "calls"))
        .sum();
    assert_eq!(worker_leaf, threads * per_thread);

    // rayon's pool workers measure into their own sub-DRGs: never the main
    // thread's (number 0), which only waits for them.
    for n in nodes_named(run, "rayon_item") {
        for t in n["per_thread"].as_array().map_or(&[][..], Vec::as_slice) {
            assert_ne!(t["thread"], 0, "rayon_item ran on the main thread: {n}");
        }
    }

    // The async fn: one call per future, one poll per yield plus the last,
    // and the time inside polls never exceeds the span.
    let fetch = nodes_named(run, "fetch");
    assert_eq!(fetch.len(), 1);
    let a = &fetch[0]["async"];
    assert_eq!(a["polls"], jobs * (yields + 1), "{}", fetch[0]);
    let (span, busy, wait) = (
        report::u64_field(a, "span_ns"),
        report::u64_field(a, "busy_ns"),
        report::u64_field(a, "wait_ns"),
    );
    assert!(busy <= span && wait == span - busy, "{a}");
    assert_eq!(busy, report::u64_field(fetch[0], "inclusive_ns"));
    // What the future called while polled nests under it.
    assert!(report::children(fetch[0])
        .iter()
        .any(|c| report::str_field(c, "name") == "leaf"));

    // Methods are told apart by position, and two crates' `leaf` stay two
    // regions.
    let area_positions: BTreeSet<(String, u64)> = nodes_named(run, "area")
        .iter()
        .map(|n| {
            (
                report::str_field(n, "file").to_string(),
                report::u64_field(n, "line"),
            )
        })
        .collect();
    assert_eq!(area_positions.len(), 2, "{area_positions:?}");
    let leaf_files: BTreeSet<&str> = nodes_named(run, "leaf")
        .iter()
        .map(|n| report::str_field(n, "file"))
        .collect();
    assert_eq!(leaf_files.len(), 2, "{leaf_files:?}");
    let leaf_lib = nodes_named(run, "leaf")
        .into_iter()
        .filter(|n| report::str_field(n, "file").ends_with("lib.rs"))
        .collect::<Vec<_>>();
    assert_eq!(leaf_lib.len(), 1);
    assert_eq!(report::u64_field(leaf_lib[0], "line"), 5);
}
