//! `instrument` over a Rust crate: the copy of `testdata/rust/smallcrate`
//! (functions, loops, a user region) gets `regio` added to its Cargo.toml,
//! builds with `cargo build`, prints what the original prints, and its run
//! directory reports every function and loop with exact call counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::report::{only_run, report_json, str_field, u64_field, visit};
use crate::common::{copy_tree, instrument_bin, run, run_ok, testdata, workspace_root, TestDir};

fn cargo_build(manifest_dir: &Path, flavour: &str) -> PathBuf {
    let target = workspace_root()
        .join("target")
        .join("rust-e2e")
        .join(flavour);
    run_ok(
        Command::new(env!("CARGO"))
            .current_dir(manifest_dir)
            .args(["build", "--quiet"])
            .arg("--target-dir")
            .arg(&target),
    );
    target.join("debug").join("smallcrate")
}

/// `<keyword>@<line>` of the first line of `file` containing `needle`.
fn loop_name(file: &Path, needle: &str, keyword: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
    let line = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in {}", file.display()));
    format!("{keyword}@{}", line + 1)
}

#[test]
fn an_instrumented_crate_builds_runs_the_same_and_reports_its_regions() {
    let tmp = TestDir::new("rust-crate");
    let src = tmp.join("smallcrate");
    copy_tree(&testdata().join("rust").join("smallcrate"), &src);
    let out = tmp.join("inst");
    let r = run_ok(
        Command::new(instrument_bin())
            .arg(&src)
            .arg("--out")
            .arg(&out)
            .args(["--regions", "functions,loops,user"]),
    );
    assert!(
        r.stderr.contains("1 Cargo.toml given a regio dependency"),
        "{}",
        r.stderr
    );
    let manifest =
        std::fs::read_to_string(out.join("Cargo.toml")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        manifest.contains("regio = { package = \"regio-rt\", path = "),
        "{manifest}"
    );
    // The user's comments survive.
    assert!(manifest.starts_with("# A small crate"), "{manifest}");

    let plain = cargo_build(&src, "smallcrate-plain");
    let inst = cargo_build(&out, "smallcrate-instrumented");
    let want = run(Command::new(&plain).env_remove("REGIO_DIR"));
    let run_dir = tmp.join("run");
    let got = run(Command::new(&inst).env("REGIO_DIR", &run_dir));
    assert_eq!(want.outcome(), "exit 0", "{}", want.describe());
    assert_eq!(got.outcome(), want.outcome(), "{}", got.describe());
    assert_eq!(got.stdout, want.stdout);

    let json = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let report = only_run(&json).unwrap_or_else(|e| panic!("{e}"));
    let mut calls: BTreeMap<String, u64> = BTreeMap::new();
    let mut kinds: BTreeMap<String, String> = BTreeMap::new();
    visit(report, &mut |n, _| {
        let name = str_field(n, "name").to_string();
        *calls.entry(name.clone()).or_default() += u64_field(n, "calls");
        kinds.insert(name, str_field(n, "kind").to_string());
    });
    let main_rs = src.join("src/main.rs");
    let grid_rs = src.join("src/grid.rs");
    let expected: Vec<(String, u64, &str)> = vec![
        ("main".into(), 1, "program"),
        ("cell".into(), 12, "function"),
        ("collatz_steps".into(), 6, "function"),
        ("first_square_above".into(), 1, "function"),
        ("fill".into(), 1, "function"),
        ("sum".into(), 1, "function"),
        ("label".into(), 1, "function"),
        ("name".into(), 1, "function"),
        ("collatz".into(), 1, "user"),
        (loop_name(&main_rs, "for n in 1..=6u64", "for"), 1, "loop"),
        (loop_name(&main_rs, "while n != 1", "while"), 6, "loop"),
        (loop_name(&main_rs, "let found = loop", "loop"), 1, "loop"),
        (loop_name(&grid_rs, "'rows: for r", "for"), 1, "loop"),
        (loop_name(&grid_rs, "for c in 0..cols", "for"), 3, "loop"),
    ];
    let mut problems = Vec::new();
    for (name, want, kind) in &expected {
        let got = calls.get(name).copied().unwrap_or(0);
        if got != *want || kinds.get(name).map(String::as_str) != Some(kind) {
            problems.push(format!(
                "{name}: {got} calls as {:?}, expected {want} as {kind}",
                kinds.get(name)
            ));
        }
    }
    assert!(problems.is_empty(), "{}\n{calls:?}", problems.join("\n"));
}
