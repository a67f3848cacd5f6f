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

/// `--rust-regio VERSION` points the copy at the published runtime: the
/// dependency is `regio = { package = "regio-rt", version = VERSION }`
/// (user code keeps `regio::...`), and that requirement resolves to this
/// workspace's runtime package, by name and version. Checked offline:
/// crates.io is patched with the runtime's path, which cargo applies only
/// to a dependency whose package name and version requirement match it.
#[test]
fn rust_regio_version_names_the_runtime_package_under_the_name_regio() {
    let tmp = TestDir::new("rust-regio-version");
    let src = tmp.join("smallcrate");
    copy_tree(&testdata().join("rust").join("smallcrate"), &src);
    let out = tmp.join("inst");
    let version = env!("CARGO_PKG_VERSION");
    run_ok(
        Command::new(instrument_bin())
            .arg(&src)
            .arg("--out")
            .arg(&out)
            .args(["--rust-regio", version]),
    );
    let manifest_path = out.join("Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap_or_else(|e| panic!("{e}"));
    let line = format!("regio = {{ package = \"regio-rt\", version = \"{version}\" }}");
    assert!(manifest.contains(&line), "no `{line}` in:\n{manifest}");

    let runtime = workspace_root().join("runtime");
    std::fs::write(
        &manifest_path,
        format!(
            "{manifest}\n[patch.crates-io]\nregio-rt = {{ path = \"{}\" }}\n",
            runtime.display()
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Versions of the runtime's own dependencies as this workspace has them.
    std::fs::copy(workspace_root().join("Cargo.lock"), out.join("Cargo.lock"))
        .unwrap_or_else(|e| panic!("{e}"));
    let meta = run_ok(Command::new(env!("CARGO")).current_dir(&out).args([
        "metadata",
        "--offline",
        "--format-version",
        "1",
    ]));
    let meta: serde_json::Value =
        serde_json::from_str(&meta.stdout).unwrap_or_else(|e| panic!("{e}"));
    let node = meta["resolve"]["nodes"]
        .as_array()
        .and_then(|nodes| {
            nodes
                .iter()
                .find(|n| n["id"].as_str().is_some_and(|id| id.contains("smallcrate")))
        })
        .unwrap_or_else(|| panic!("smallcrate not resolved: {meta}"));
    let deps: Vec<(String, String)> = node["deps"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|d| {
                    (
                        d["name"].as_str().unwrap_or("").to_string(),
                        d["pkg"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let want_pkg = format!("regio-rt@{version}");
    assert!(
        deps.iter()
            .any(|(name, pkg)| name == "regio" && pkg.ends_with(&want_pkg)),
        "`regio` does not resolve to {want_pkg}: {deps:?}"
    );
}
