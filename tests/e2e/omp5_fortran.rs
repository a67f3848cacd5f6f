//! OpenMP 5.x end to end for Fortran (issue 8, Fortran part): every
//! Fortran program of `testdata/omp5` (free and fixed form) is
//! instrumented with `--regions omp,functions,loops`, built plain and
//! instrumented with `gfortran -fopenmp -Wall`, run at OMP_NUM_THREADS 1, 2
//! and 3: same output and status, no new warnings, and the visits the
//! `expect` comments give. Programs that say `! not compiled:` hold
//! constructs gfortran 12 rejects even uninstrumented: they are only
//! instrumented and checked for their IDF entries. Where `opari2` is
//! installed, a table shows which programs OPARI2 fails on.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::omp::{
    compare_runs, compile_opari2_output, copy_and_instrument, expectations, print_opari2_table,
    run_opari2,
};
use crate::common::{compile, find_on_path, instrument_flags, require_tool, run};
use crate::common::{testdata, TestDir};

fn source(file: &str) -> PathBuf {
    testdata().join("omp5").join(file)
}

fn fortran_programs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(testdata().join("omp5"))
        .unwrap_or_else(|e| panic!("testdata/omp5: {e}"))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".f90") || n.ends_with(".f"))
        .collect();
    names.sort();
    names
}

/// Why gfortran cannot build `file` even uninstrumented, if it says so in
/// a `! not compiled: REASON` line.
fn not_compiled(file: &str) -> Option<String> {
    let text = std::fs::read_to_string(source(file)).unwrap_or_else(|e| panic!("{e}"));
    text.lines().find_map(|l| {
        let rest = l.get(1..)?.trim_start().strip_prefix("not compiled:")?;
        Some(rest.trim().to_string())
    })
}

/// Instruments testdata/omp5/`file` alone into `tmp`/inst; returns the
/// copy of the source, the instrumented file and the IDF.
fn instrument(file: &str, tmp: &TestDir) -> (PathBuf, PathBuf, PathBuf) {
    let (copy, out) = copy_and_instrument("omp5", file, tmp.path());
    (copy, out.join(file), out.join("regio.idf.json"))
}

/// gfortran's warning messages (the `Warning:` lines), sorted: positions
/// left out, as the instrumented file reports its own line numbers only
/// through markers.
fn warnings(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = stderr
        .lines()
        .filter(|l| l.starts_with("Warning:"))
        .map(str::to_string)
        .collect();
    out.sort();
    out
}

fn flags() -> Vec<String> {
    ["-fopenmp", "-Wall", "-O1"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Builds, runs and checks one program; problems go to `problems`.
fn check(file: &str, problems: &mut Vec<String>) {
    let tmp = TestDir::new("omp5-fortran");
    let (plain_src, inst_src, _) = instrument(file, &tmp);
    let expect = expectations(&source(file));
    assert!(!expect.is_empty(), "{file}: no expect comments");
    let plain = tmp.join("plain");
    let p = compile("gfortran", &flags(), &[plain_src], &[], &plain);
    let mut iflags = flags();
    iflags.extend(instrument_flags("--fflags"));
    let inst = tmp.join("instrumented");
    let i = compile(
        "gfortran",
        &iflags,
        &[inst_src],
        &instrument_flags("--libs"),
        &inst,
    );
    let (pw, iw) = (warnings(&p.stderr), warnings(&i.stderr));
    if pw != iw {
        problems.push(format!(
            "{file}: warnings differ\n plain: {pw:?}\n instrumented: {iw:?}\n{}",
            i.stderr
        ));
    }
    compare_runs(
        file,
        &plain,
        &inst,
        &tmp.join("runs"),
        Some(&expect),
        None,
        problems,
    );
}

#[test]
fn omp5_fortran_programs_keep_output_warnings_and_are_visited_as_expected() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let programs = fortran_programs();
    let compiled: Vec<&String> = programs
        .iter()
        .filter(|f| not_compiled(f).is_none())
        .collect();
    assert!(
        compiled.iter().any(|f| f.ends_with(".f")) && compiled.len() >= 4,
        "testdata/omp5 holds {programs:?}: expected free- and fixed-form programs"
    );
    let mut problems = Vec::new();
    for file in compiled {
        check(file, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Lines of `!$omp` directives that start a directive (not continuation
/// lines, not end directives) in either source form.
fn directive_lines(file: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(source(file)).unwrap_or_else(|e| panic!("{e}"));
    let fixed = file.ends_with(".f");
    let mut out = Vec::new();
    let mut continued = false;
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let body = if fixed {
            let head = lower.get(..5).unwrap_or("");
            if !matches!(head, "!$omp" | "c$omp" | "*$omp") {
                continue;
            }
            if !matches!(lower.as_bytes().get(5), None | Some(b' ') | Some(b'0')) {
                continue;
            }
            lower[5..].trim().to_string()
        } else {
            let t = lower.trim_start();
            let Some(rest) = t.strip_prefix("!$omp") else {
                continue;
            };
            let was_continued = continued;
            continued = rest.trim_end().ends_with('&');
            if was_continued {
                continue;
            }
            rest.trim().to_string()
        };
        // `end ...` closes a construct: not a region of its own.
        let end = body.split_whitespace().next() == Some("end");
        if !end {
            out.push(i as u64 + 1);
        }
    }
    out
}

/// The IDF lists every OpenMP directive of the programs, measured or not,
/// and says why when it is not; nothing inside a target region or a
/// `declare target` procedure is measured.
#[test]
fn every_directive_is_listed_with_a_reason_when_not_measured() {
    let mut missing = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    for file in fortran_programs() {
        let tmp = TestDir::new("omp5-fortran-idf");
        let (_, _, idf) = instrument(&file, &tmp);
        let idf: Value =
            serde_json::from_str(&std::fs::read_to_string(&idf).unwrap_or_else(|e| panic!("{e}")))
                .unwrap_or_else(|e| panic!("{e}"));
        let regions = idf["regions"].as_array().map_or(&[][..], Vec::as_slice);
        for line in directive_lines(&file) {
            let here = regions.iter().any(|r| {
                r["start"]["line"].as_u64() == Some(line)
                    && r["kind"].as_str().is_some_and(|k| k.starts_with("omp_"))
            });
            if !here {
                missing.push(format!("{file}:{line}: no omp_* region"));
            }
        }
        for r in regions {
            if let Some(why) = r["aux"]["not_measured"].as_str() {
                assert!(!why.is_empty(), "{r}");
            }
            kinds.push(r["kind"].as_str().unwrap_or("").to_string());
        }
        // Regions not measured come after the measured ones.
        let first_listed = regions
            .iter()
            .position(|r| r["aux"]["not_measured"].is_string())
            .unwrap_or(regions.len());
        assert!(
            regions[first_listed..]
                .iter()
                .all(|r| r["aux"]["not_measured"].is_string()),
            "{file}: measured regions after listed ones"
        );
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    for k in [
        "omp_target",
        "omp_simd",
        "omp_declare_simd",
        "omp_scan",
        "omp_teams",
        "omp_teams_body",
        "omp_distribute",
        "omp_taskloop",
        "omp_taskloop_body",
        "omp_masked",
        "omp_loop",
        "omp_metadirective",
        "omp_assume",
    ] {
        assert!(kinds.iter().any(|x| x == k), "no {k} region in any program");
    }
}

/// What OPARI2 does with one program: `ok`, or how it failed; its output
/// is compiled only when `compile` (gfortran can build the original).
fn opari2_outcome(opari: &Path, file: &str, dir: &Path, compile: bool) -> String {
    std::fs::copy(source(file), dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
    let modified = match file.rsplit_once('.') {
        Some((stem, "f")) => format!("{stem}.mod.F"),
        Some((stem, _)) => format!("{stem}.mod.F90"),
        None => format!("{file}.mod.F90"),
    };
    if let Err(failed) = run_opari2(opari, dir, file, &modified) {
        return failed;
    }
    if !compile {
        return "ran; output not compiled".to_string();
    }
    compile_opari2_output("gfortran", "--fflags", dir, &modified, "Error: ")
}

/// OPARI2 is a reference, not a requirement: without it this test only
/// says so. It records which programs OPARI2 cannot handle, and asserts
/// that ours instruments every compiled one into a file that compiles.
#[test]
fn opari2_failures_are_recorded_and_ours_has_none() {
    let Some(opari) = find_on_path("opari2") else {
        println!("SKIPPED: needs opari2");
        return;
    };
    let gfortran = require_tool("gfortran", "gfortran");
    let mut rows = Vec::new();
    let mut ours_failed = Vec::new();
    for file in fortran_programs() {
        let dir = TestDir::new("omp5-fortran-opari2");
        let (theirs, ours) = match not_compiled(&file) {
            Some(why) => {
                let theirs = opari2_outcome(&opari, &file, dir.path(), false);
                instrument(&file, &dir);
                (theirs, format!("instrumented (not compiled: {why})"))
            }
            None if gfortran => {
                let theirs = opari2_outcome(&opari, &file, dir.path(), true);
                let (_, inst, _) = instrument(&file, &dir);
                let mut flags: Vec<String> = vec!["-fopenmp".into(), "-Wall".into(), "-c".into()];
                flags.extend(instrument_flags("--fflags"));
                let r = run(Command::new("gfortran")
                    .current_dir(dir.path())
                    .args(&flags)
                    .arg(&inst)
                    .arg("-o")
                    .arg(dir.join("ours.o")));
                let ours = if r.status.success() {
                    "ok".to_string()
                } else {
                    ours_failed.push(format!("{file}: {}", r.describe()));
                    "output does not compile".to_string()
                };
                (theirs, ours)
            }
            None => {
                let theirs = opari2_outcome(&opari, &file, dir.path(), false);
                instrument(&file, &dir);
                (theirs, "instrumented (no gfortran)".into())
            }
        };
        rows.push((file, theirs, ours));
    }
    print_opari2_table(&rows);
    assert!(ours_failed.is_empty(), "{}", ours_failed.join("\n"));
}
