//! Small functions left unmeasured by default (issue 16 §2), end to end on
//! testdata/small/small.c: `half` and `clamp01` (straight-line, 1 and 3
//! statements) are called 1000 times each from `accumulate` (a loop).
//!
//! - Default: both are listed in the IDF with `aux.skipped: "small"` and
//!   their statement count, the summary line counts them, they get no
//!   probe and no DRG node, the program's output is unchanged, and the
//!   report says their callers' exclusive time includes them.
//! - `--small-functions` and `--regions all` measure them (exact counts,
//!   same output); `instrument wrap` does with `REGIO_WRAP_SMALL_FUNCTIONS`.
//!
//! Every other e2e test measures small functions
//! (`common::cmd::measure_everything`); these tests set
//! `REGIO_WRAP_SMALL_FUNCTIONS` on their commands to state their setting.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::cmd::SMALL_FUNCTIONS_ENV;
use crate::common::report::{only_run, report_json, totals_by_name};
use crate::common::{cc, compile, instrument_bin, instrument_flags, run_ok, testdata, TestDir};

const SMALL: [(&str, u64); 2] = [("half", 1), ("clamp01", 3)];

/// `instrument src --out inst EXTRA...` with the default for small
/// functions unless `EXTRA` asks otherwise; returns (inst, stderr).
fn instrument(tmp: &TestDir, name: &str, extra: &[&str]) -> (PathBuf, String) {
    let src = tmp.join("src");
    if !src.exists() {
        std::fs::create_dir_all(&src).unwrap_or_else(|e| panic!("{e}"));
        std::fs::copy(testdata().join("small/small.c"), src.join("small.c"))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let inst = tmp.join(name);
    let r = run_ok(
        Command::new(instrument_bin())
            .arg(&src)
            .arg("--out")
            .arg(&inst)
            .args(extra)
            .env(SMALL_FUNCTIONS_ENV, "0"),
    );
    (inst, r.stderr)
}

/// The IDF's small-function entries: (name, statements).
fn skipped(idf_dir: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(idf_dir.join("regio.idf.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", idf_dir.display()));
    let idf: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    idf["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["aux"]["skipped"] == "small")
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default().to_string(),
                r["aux"]["statements"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect()
}

/// Builds `inst/small.c`, runs it into `tmp/<name>.run`: (stdout, calls by
/// function name).
fn build_and_run(tmp: &TestDir, inst: &Path, name: &str) -> (String, Vec<(String, u64)>) {
    let exe = tmp.join(format!("{name}.exe"));
    let mut flags = vec!["-O2".to_string()];
    flags.extend(instrument_flags("--cflags"));
    compile(
        &cc(),
        &flags,
        &[inst.join("small.c")],
        &instrument_flags("--libs"),
        &exe,
    );
    let run_dir = tmp.join(format!("{name}.run"));
    let r = run_ok(
        Command::new(&exe)
            .env_remove("REGIO_FILTER")
            .env_remove("REGIO_DISABLE")
            .env("REGIO_DIR", &run_dir),
    );
    let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let calls = totals_by_name(run, &["function", "program"])
        .into_iter()
        .map(|(n, c)| (n, c.calls))
        .collect();
    (r.stdout, calls)
}

fn plain_output(tmp: &TestDir) -> String {
    let exe = tmp.join("plain.exe");
    compile(
        &cc(),
        &["-O2".to_string()],
        &[testdata().join("small/small.c")],
        &[],
        &exe,
    );
    run_ok(&mut Command::new(&exe)).stdout
}

fn owned(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    list.iter().map(|(n, c)| (n.to_string(), *c)).collect()
}

#[test]
fn default_lists_small_functions_without_measuring_them() {
    let tmp = TestDir::new("small-default");
    let (inst, stderr) = instrument(&tmp, "inst", &[]);
    assert!(
        stderr.contains("2 small function(s) left unmeasured (--small-functions measures them)"),
        "{stderr}"
    );
    assert_eq!(skipped(&inst), owned(&SMALL));
    let text = std::fs::read_to_string(inst.join("small.c")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        text.matches("= regio__guard(").count(),
        2,
        "only accumulate and main get a guard:\n{text}"
    );
    let (out, calls) = build_and_run(&tmp, &inst, "default");
    assert_eq!(out, plain_output(&tmp));
    assert_eq!(calls, owned(&[("accumulate", 1), ("main", 1)]));
    // The report says where their time went.
    let report = run_ok(
        Command::new(instrument_bin())
            .arg("report")
            .arg(tmp.join("default.run")),
    );
    assert!(
        report.stdout.contains(
            "2 small function(s) left unmeasured by `instrument` (IDF aux.skipped \"small\"): their callers' exclusive time includes them"
        ),
        "{}",
        report.stdout
    );
}

#[test]
fn small_functions_option_and_regions_all_measure_them() {
    let tmp = TestDir::new("small-measured");
    let plain = plain_output(&tmp);
    for (name, extra) in [
        ("small", &["--small-functions"][..]),
        ("all", &["--regions", "all"][..]),
    ] {
        let (inst, stderr) = instrument(&tmp, name, extra);
        assert!(!stderr.contains("small function"), "{name}: {stderr}");
        assert_eq!(skipped(&inst), Vec::new(), "{name}");
        let (out, calls) = build_and_run(&tmp, &inst, name);
        assert_eq!(out, plain, "{name}");
        let want = [
            ("accumulate", 1),
            ("clamp01", 1000),
            ("half", 1000),
            ("main", 1),
        ];
        assert_eq!(calls, owned(&want), "{name}");
    }
}

#[test]
fn wrap_follows_regio_wrap_small_functions() {
    let tmp = TestDir::new("small-wrap");
    std::fs::copy(testdata().join("small/small.c"), tmp.join("small.c"))
        .unwrap_or_else(|e| panic!("{e}"));
    for (setting, want) in [("0", owned(&SMALL)), ("1", Vec::new())] {
        let build = tmp.join(format!("build{setting}"));
        std::fs::create_dir_all(&build).unwrap_or_else(|e| panic!("{e}"));
        run_ok(
            Command::new(instrument_bin())
                .args(["wrap", &cc(), "-O2", "-c"])
                .arg(tmp.join("small.c"))
                .arg("-o")
                .arg(build.join("small.o"))
                .current_dir(&build)
                .env("REGIO_WRAP_DIR", &build)
                .env_remove("REGIO_WRAP_REGIONS")
                .env(SMALL_FUNCTIONS_ENV, setting),
        );
        assert_eq!(
            skipped(&build),
            want,
            "REGIO_WRAP_SMALL_FUNCTIONS={setting}"
        );
    }
}
