//! OpenMP end to end for Fortran, free and fixed form: instrument the
//! Fortran programs of `testdata/omp` with `--regions omp,functions,loops`,
//! build original and instrumented copy with `gfortran -fopenmp -Wall`,
//! run both at OMP_NUM_THREADS 1, 2 and 3, require the same output and
//! status, and hold the report against the visits each construct must have
//! (the `expect` comments in the sources). Also coverage against OPARI2
//! where it is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use crate::common::omp::{
    compare_runs, copy_and_instrument, coverage_problems, expectations, idf_regions, opari_regions,
};
use crate::common::{
    compile, find_on_path, instrument_bin, instrument_flags, require_tool, run, run_ok,
};
use crate::common::{testdata, TestDir};

const FILES: &[&str] = &["constructs.f90", "constructs_fixed.f"];

fn toolchain() -> bool {
    require_tool("gfortran", "gfortran")
}

/// Builds `file` of testdata/`dir` plain and instrumented; also returns
/// the compiler's messages for the instrumented copy.
/// Builds testdata/`dir`/`file` plain and instrumented with `flags`:
/// (plain binary, instrumented binary, each build's compiler output).
fn build_both(
    dir: &str,
    file: &str,
    tmp: &TestDir,
    flags: &[&str],
) -> (PathBuf, PathBuf, common::Run, common::Run) {
    let (copy, out) = copy_and_instrument(dir, file, tmp.path());
    let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
    let plain = tmp.join("plain");
    let p = compile("gfortran", &flags, &[copy], &[], &plain);
    let mut iflags = flags.clone();
    iflags.extend(instrument_flags("--fflags"));
    let inst = tmp.join("instrumented");
    let i = compile(
        "gfortran",
        &iflags,
        &[out.join(file)],
        &instrument_flags("--libs"),
        &inst,
    );
    (plain, inst, p, i)
}

fn build(dir: &str, file: &str, tmp: &TestDir) -> (PathBuf, PathBuf, String) {
    let (plain, inst, p, i) = build_both(dir, file, tmp, &["-fopenmp", "-Wall", "-O1"]);
    assert_eq!(
        p.stderr.trim(),
        "",
        "{file}: the original has compiler warnings"
    );
    (plain, inst, i.stderr)
}

fn check(file: &str) {
    check_in("omp", file, 40);
}

/// `file` of testdata/`dir`, which has more than `min_expect` `expect`
/// items: same output, the visits expected.
fn check_in(dir: &str, file: &str, min_expect: usize) {
    let tmp = TestDir::new("omp-fortran");
    let (plain, inst, warnings) = build(dir, file, &tmp);
    assert_eq!(
        warnings.trim(),
        "",
        "{file}: instrumented copy has compiler warnings"
    );
    let expect = expectations(&testdata().join(dir).join(file));
    assert!(
        expect.len() > min_expect,
        "{file}: expectations not found: {expect:?}"
    );
    let mut problems = Vec::new();
    compare_runs(
        file,
        &plain,
        &inst,
        &tmp.join("runs"),
        Some(&expect),
        None,
        &mut problems,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn free_form_constructs_keep_output_and_are_visited_as_expected() {
    if toolchain() {
        check("constructs.f90");
    }
}

#[test]
fn fixed_form_constructs_keep_output_and_are_visited_as_expected() {
    if toolchain() {
        check("constructs_fixed.f");
    }
}

/// Directive names written without their optional blanks (`enddo
/// nowait`, `endparalleldo`, fixed-form `C$OMP END PARALLELDO`, ...).
#[test]
fn blank_optional_directive_names_keep_output_and_are_visited_as_expected() {
    if toolchain() {
        check_in("fortran/omp", "blank_optional.f90", 30);
        check_in("fortran/omp", "blank_optional_fixed.f", 15);
    }
}

/// A `declare target` in an interface body leaves the main program
/// around it measured (it declares the interface's procedure only): the
/// run directory is written and the program and its loop are visited.
#[test]
fn declare_target_in_an_interface_body_leaves_the_program_measured() {
    if toolchain() {
        check_in("fortran/omp", "declare_interface.f90", 1);
    }
}

/// The `Warning:` lines of a compiler's messages, sorted.
fn warnings_of(stderr: &str) -> Vec<String> {
    let mut v: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("Warning:"))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Conditional-compilation lines (`!$ `; fixed form also `c$`, `*$` in
/// columns 1-2): an `!$omp do` binds to a DO loop written on them, their
/// calls are measured and their jumps leave regions through exit probes
/// on such lines. With -fopenmp the visits are as expected at 1, 2 and 3
/// threads; without, those lines are comments, and the instrumented copy
/// builds with the original's warnings and prints what it prints.
#[test]
fn conditional_compilation_lines_work_with_and_without_openmp() {
    if !toolchain() {
        return;
    }
    for file in ["conditional.f90", "conditional_fixed.f"] {
        check_in("fortran/omp", file, 5);
        let tmp = TestDir::new("omp-fortran-off");
        let (plain, inst, p, i) = build_both("fortran/omp", file, &tmp, &["-Wall", "-O1"]);
        let strip = |w: Vec<String>| -> Vec<String> {
            w.into_iter()
                .map(|l| l[l.find("Warning:").unwrap_or(0)..].to_string())
                .collect()
        };
        assert_eq!(
            strip(warnings_of(&i.stderr)),
            strip(warnings_of(&p.stderr)),
            "{file} without -fopenmp: other warnings than the original's"
        );
        let want = common::omp::exec(&plain, 1, None);
        let run_dir = tmp.join("run");
        let got = common::omp::exec(&inst, 1, Some(&run_dir));
        assert_eq!(want.outcome(), "exit 0", "{file}: {}", want.describe());
        assert_eq!(got.outcome(), want.outcome(), "{file}: {}", got.describe());
        assert_eq!(
            got.stdout, want.stdout,
            "{file} without -fopenmp: stdout differs"
        );
        assert!(
            run_dir.join("regio.idf.json").is_file(),
            "{file} without -fopenmp: no run directory"
        );
    }
}

/// OPARI2 region descriptions of `file` (run in `dir`).
fn opari(opari: &Path, file: &str, dir: &Path) -> Vec<(String, u64)> {
    let out = match file.rsplit_once('.') {
        Some((stem, "f")) => format!("{stem}.mod.F"),
        Some((stem, _)) => format!("{stem}.mod.F90"),
        None => format!("{file}.mod.F90"),
    };
    let r = run(Command::new("timeout")
        .arg("120")
        .arg(opari)
        .current_dir(dir)
        .arg(file)
        .arg(&out));
    assert!(r.status.success(), "opari2 {file} failed: {}", r.describe());
    opari_regions(dir)
}

/// OPARI2 is a reference, not a requirement: CI does not install it, so
/// this test skips without it even under REGIO_REQUIRE_TOOLCHAINS=1.
#[test]
fn every_region_opari2_describes_is_ours_too() {
    let Some(opari2) = find_on_path("opari2") else {
        println!("SKIPPED: needs opari2");
        return;
    };
    let mut missing = Vec::new();
    for file in FILES {
        let tmp = TestDir::new("opari2-fortran");
        let src = tmp.join("src");
        std::fs::create_dir_all(&src).unwrap_or_else(|e| panic!("{e}"));
        std::fs::copy(testdata().join("omp").join(file), src.join(file))
            .unwrap_or_else(|e| panic!("{e}"));
        let theirs = opari(&opari2, file, &src);
        assert!(
            theirs.len() > 20,
            "{file}: too few OPARI2 region descriptions: {theirs:?}"
        );
        let out = tmp.join("inst");
        run_ok(
            Command::new(instrument_bin())
                .arg(src.join(file))
                .arg("--out")
                .arg(&out)
                .args(["--regions", "omp"]),
        );
        let ours = idf_regions(&out.join("regio.idf.json"));
        missing.extend(
            coverage_problems(&theirs, &ours, true)
                .into_iter()
                .map(|m| format!("{file}: {m}")),
        );
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
