//! OpenMP 5.x end to end (issue 8, C part): every C program of
//! `testdata/omp5` is instrumented with `--regions omp,functions,loops`,
//! built plain and instrumented with `gcc -fopenmp -Wall` (plus each
//! `/* variant: FLAGS */` the source names, e.g. the other `#if` branches),
//! run at OMP_NUM_THREADS 1, 2 and 3: same output and status, no new
//! warnings, and the visits the `expect` comments give. Where `opari2` is
//! installed, a table shows which of the programs OPARI2 fails on.
//!
//! Only `.c` files: the Fortran programs of the same directory belong to
//! tests/e2e/omp5_fortran.rs.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;
use crate::common::omp::{
    compare_runs, compile_opari2_output, copy_and_instrument, expectations, instrument_tree,
    print_opari2_table, run_opari2,
};
use crate::common::{find_on_path, instrument_flags, run};
use crate::common::{testdata, Run, TestDir};

/// Extra compiler flags of each build variant: the default build plus one
/// per `/* variant: FLAGS */` line of the source.
fn variants(source: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("{e}"));
    let mut out = vec![Vec::new()];
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("/* variant:") {
            let flags = rest.trim_end_matches("*/").split_whitespace();
            out.push(flags.map(str::to_string).collect());
        }
    }
    out
}

fn omp5_c_programs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(testdata().join("omp5"))
        .unwrap_or_else(|e| panic!("testdata/omp5: {e}"))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".c"))
        .collect();
    names.sort();
    names
}

/// gcc with OpenMP, or a `SKIPPED` line (a panic under
/// REGIO_REQUIRE_TOOLCHAINS=1).
fn toolchain(tmp: &TestDir) -> bool {
    let cc = common::cc();
    if !common::require_tool(&cc, "gcc") {
        return false;
    }
    let probe = tmp.join("probe.c");
    std::fs::write(
        &probe,
        "#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = run(Command::new(&cc)
        .args(["-fopenmp", "-o"])
        .arg(tmp.join("probe"))
        .arg(&probe));
    if r.status.success() {
        return true;
    }
    if std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() == Ok("1") {
        panic!(
            "`{cc} -fopenmp` cannot build a program; REGIO_REQUIRE_TOOLCHAINS=1\n{}",
            r.describe()
        );
    }
    println!("SKIPPED: needs gcc with OpenMP");
    false
}

/// Instruments testdata/omp5/`file` alone into `tmp`/inst; returns the
/// copy of the source and the instrumented file.
fn instrument(file: &str, tmp: &TestDir) -> (PathBuf, PathBuf) {
    let (copy, out) = copy_and_instrument("omp5", file, tmp.path());
    (copy, out.join(file))
}

/// Warnings of a compiler run as (line, message) with file and column
/// left out, sorted: the instrumented file keeps every line number.
fn warnings(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("warning:"))
        .map(|l| {
            let parts: Vec<&str> = l.splitn(4, ':').collect();
            match parts.as_slice() {
                [_, line, _, rest] if line.parse::<u32>().is_ok() => format!("{line}:{rest}"),
                _ => l.to_string(),
            }
        })
        .collect();
    out.sort();
    out
}

fn compile(sources: &Path, flags: &[String], libs: &[String], exe: &Path) -> Run {
    let r = run(Command::new(common::cc())
        .args(flags)
        .arg(sources)
        .args(libs)
        .arg("-o")
        .arg(exe));
    assert!(r.status.success(), "{}", r.describe());
    r
}

#[test]
fn omp5_programs_keep_output_warnings_and_are_visited_as_expected() {
    let tmp = TestDir::new("omp5");
    if !toolchain(&tmp) {
        return;
    }
    let programs = omp5_c_programs();
    assert!(
        programs.len() >= 6,
        "testdata/omp5 holds {programs:?}, expected the six C programs"
    );
    let base: Vec<String> = ["-fopenmp", "-Wall", "-O1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut problems = Vec::new();
    for file in &programs {
        let dir = TestDir::new("omp5-prog");
        let (plain_src, inst_src) = instrument(file, &dir);
        let source = testdata().join("omp5").join(file);
        let expect = expectations(&source);
        assert!(!expect.is_empty(), "{file}: no expect comments");
        for (v, extra) in variants(&source).iter().enumerate() {
            let mut flags = base.clone();
            flags.extend(extra.iter().cloned());
            let plain = dir.join(format!("plain-{v}"));
            let p = compile(&plain_src, &flags, &["-lm".into()], &plain);
            let mut iflags = flags.clone();
            iflags.extend(instrument_flags("--cflags"));
            let mut libs = instrument_flags("--libs");
            libs.push("-lm".into());
            let inst = dir.join(format!("inst-{v}"));
            let i = compile(&inst_src, &iflags, &libs, &inst);
            let (pw, iw) = (warnings(&p.stderr), warnings(&i.stderr));
            if pw != iw {
                problems.push(format!(
                    "{file} {extra:?}: warnings differ\n plain: {pw:?}\n instrumented: {iw:?}"
                ));
            }
            // The expectations hold for the default build.
            compare_runs(
                &format!("{file} {extra:?}"),
                &plain,
                &inst,
                &dir.join(format!("runs-{v}")),
                (v == 0).then_some(&expect),
                Some("main"),
                &mut problems,
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The IDF lists every OpenMP directive of the programs, measured or not,
/// and says why when it is not.
#[test]
fn every_directive_is_listed_with_a_reason_when_not_measured() {
    let tmp = TestDir::new("omp5-idf");
    let src = tmp.join("src");
    std::fs::create_dir_all(&src).unwrap_or_else(|e| panic!("{e}"));
    let mut directive_lines: Vec<(String, u64)> = Vec::new();
    for file in omp5_c_programs() {
        let text = std::fs::read_to_string(testdata().join("omp5").join(&file))
            .unwrap_or_else(|e| panic!("{e}"));
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            let directive = t
                .strip_prefix('#')
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix("pragma"))
                .is_some_and(|r| r.trim_start().starts_with("omp"));
            if directive {
                directive_lines.push((file.clone(), i as u64 + 1));
            }
        }
        std::fs::copy(testdata().join("omp5").join(&file), src.join(&file))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let out = tmp.join("inst");
    instrument_tree(&src, &out);
    let idf: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("regio.idf.json")).unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let regions = idf["regions"].as_array().map_or(&[][..], Vec::as_slice);
    let mut missing = Vec::new();
    for (file, line) in &directive_lines {
        let here: Vec<&Value> = regions
            .iter()
            .filter(|r| r["file"].as_str() == Some(file.as_str()))
            .filter(|r| r["start"]["line"].as_u64() == Some(*line))
            .filter(|r| r["kind"].as_str().is_some_and(|k| k.starts_with("omp_")))
            .collect();
        // Alternatives in #if branches share the first one's regions and
        // are listed in its `aux.alternatives`.
        let alternative = regions.iter().any(|r| {
            r["file"].as_str() == Some(file.as_str())
                && r["aux"]["alternatives"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x["line"].as_u64() == Some(*line)))
        });
        if here.is_empty() && !alternative {
            missing.push(format!("{file}:{line}: no omp_* region"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    for r in regions {
        if let Some(why) = r["aux"]["not_measured"].as_str() {
            assert!(!why.is_empty(), "{r}");
        }
    }
    let target = regions
        .iter()
        .find(|r| r["kind"] == "omp_target")
        .unwrap_or_else(|| panic!("no omp_target region"));
    assert_eq!(
        target["aux"]["not_measured"],
        "target region: runs on the device"
    );
}

/// What OPARI2 does with one program: `ok`, or how it failed.
fn opari2_outcome(opari: &Path, file: &str, dir: &Path) -> String {
    let src = testdata().join("omp5").join(file);
    std::fs::copy(&src, dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
    let modified = file.replace(".c", ".mod.c");
    if let Err(failed) = run_opari2(opari, dir, file, &modified) {
        return failed;
    }
    compile_opari2_output(&common::cc(), "--cflags", dir, &modified, "error: ")
}

/// OPARI2 is a reference, not a requirement: without it this test only
/// says so. It records which programs OPARI2 cannot handle, and asserts
/// that ours instruments every one into a file that compiles.
#[test]
fn opari2_failures_are_recorded_and_ours_has_none() {
    let tmp = TestDir::new("omp5-opari2");
    let Some(opari) = find_on_path("opari2") else {
        println!("SKIPPED: needs opari2");
        return;
    };
    let gcc = toolchain(&tmp);
    let mut rows = Vec::new();
    let mut ours_failed = Vec::new();
    for file in omp5_c_programs() {
        let dir = TestDir::new("omp5-opari2-prog");
        let theirs = if gcc {
            opari2_outcome(&opari, &file, dir.path())
        } else {
            "not compiled (no gcc)".to_string()
        };
        let (_, inst) = instrument(&file, &dir);
        let ours = if gcc {
            let mut flags: Vec<String> = vec!["-fopenmp".into(), "-Wall".into(), "-c".into()];
            flags.extend(instrument_flags("--cflags"));
            let r = run(Command::new(common::cc())
                .args(&flags)
                .arg(&inst)
                .arg("-o")
                .arg(dir.join("ours.o")));
            if r.status.success() {
                "ok".to_string()
            } else {
                ours_failed.push(format!("{file}: {}", r.describe()));
                "output does not compile".to_string()
            }
        } else {
            "instrumented".to_string()
        };
        rows.push((file, theirs, ours));
    }
    print_opari2_table(&rows);
    assert!(ours_failed.is_empty(), "{}", ours_failed.join("\n"));
}
