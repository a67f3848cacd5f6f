//! End to end for Fortran: instrument the programs in `testdata/fortran`
//! with the `instrument` binary, build the original and the instrumented
//! copy with the same gfortran flags, run both, and require the same
//! output and exit status. The report must match ground truth exactly:
//! the procedure call graph (paths, calls, recursive calls) against the
//! original built with `-finstrument-functions` and the counting hook of
//! `tests/e2e/support`, and every loop, user, I/O and call region against the
//! `! expect N` annotation on its first line (known by construction).
//!
//! Without gfortran (or nm, a C compiler) the tests print
//! `SKIPPED: needs gfortran` and pass, unless `REGIO_REQUIRE_TOOLCHAINS=1`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;
use crate::common::report::{call_paths, only_run, report_json, visit, Counts};
use crate::common::truth::{
    hook_object, read_call_paths, COUNT_FILE_VAR, TRUTH_CFLAGS, TRUTH_LDFLAGS,
};
use crate::common::{
    instrument_bin, instrument_flags, require_tool, run, run_ok, testdata, Run, TestDir,
};

fn toolchain() -> bool {
    require_tool("gfortran", "gfortran")
        && require_tool("nm", "binutils")
        && require_tool(&common::cc(), "a C compiler")
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// Runs a program built in this test. cargo's LD_LIBRARY_PATH may name a
/// stale copy of libregio.so ahead of the -rpath of `instrument flags`.
fn exec(exe: &Path, dir: &Path, env: &[(&str, &Path)]) -> Run {
    let mut c = Command::new(exe);
    c.current_dir(dir).env_remove("LD_LIBRARY_PATH");
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c)
}

/// The Fortran procedure (lower case) a symbol of a gfortran binary
/// belongs to: `MAIN__` is the main program, `__m_MOD_f` a module
/// procedure, `f.0` an internal one, `f_` an external one. None for
/// symbols that are not a procedure of their own: the C `main` gfortran
/// adds, and `master.0.f`, the body of a procedure with ENTRY statements
/// (its `f_` and `e_` wrappers are the entry points the regions match).
fn procedure_of(sym: &str, program: &str) -> Option<String> {
    if sym == "MAIN__" {
        return Some(program.to_string());
    }
    if sym == "main" || sym.starts_with("master.") {
        return None;
    }
    let name = if let Some((_, n)) = sym.split_once("_MOD_") {
        n
    } else if let Some((n, _)) = sym.split_once('.') {
        n
    } else {
        sym.strip_suffix('_').unwrap_or(sym)
    };
    Some(name.to_ascii_lowercase())
}

/// Ground-truth call paths in Fortran names, without the procedures the
/// front end leaves alone (PURE, ELEMENTAL).
fn truth_paths(
    raw: &BTreeMap<String, Counts>,
    program: &str,
    left_alone: &HashSet<String>,
) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for (path, c) in raw {
        let parts: Vec<&str> = path.split('/').collect();
        let last = parts.last().and_then(|s| procedure_of(s, program));
        match last {
            Some(n) if !left_alone.contains(&n) => {}
            // The node is not a region: its callees stay, its own calls go.
            _ => continue,
        }
        let names: Vec<String> = parts
            .iter()
            .filter_map(|s| procedure_of(s, program))
            .filter(|n| !left_alone.contains(n))
            .collect();
        *out.entry(names.join("/")).or_default() += *c;
    }
    out
}

/// `! expect N` annotations: line (1-based) -> N.
fn expectations(src: &str) -> HashMap<u64, u64> {
    let mut out = HashMap::new();
    for (i, line) in src.lines().enumerate() {
        if let Some(p) = line.find("! expect ") {
            let n = line[p + 9..]
                .split_whitespace()
                .next()
                .and_then(|w| w.parse().ok());
            if let Some(n) = n {
                out.insert(i as u64 + 1, n);
            }
        }
    }
    out
}

struct Case {
    file: &'static str,
    flags: &'static str,
    regions: &'static str,
}

const CASES: &[Case] = &[
    Case {
        file: "free/shapes.f90",
        flags: "-Wall -Werror",
        regions: "functions,loops,user",
    },
    Case {
        // Shared DO termination is a deleted feature: -std=legacy.
        file: "free/exits.f90",
        flags: "-Wall -Werror -std=legacy",
        regions: "functions,loops,user",
    },
    Case {
        file: "free/io_calls.f90",
        flags: "-Wall -Werror",
        regions: "functions,loops,user,io,calls",
    },
    Case {
        file: "free/openmp.f90",
        flags: "-Wall -Werror",
        regions: "functions,loops,user",
    },
    Case {
        file: "free/errstop.f90",
        flags: "-Wall -Werror",
        regions: "functions,loops,user",
    },
    Case {
        file: "free/preproc.F90",
        flags: "-Wall -Werror",
        regions: "functions,loops,user",
    },
    Case {
        file: "free/preproc.F90",
        flags: "-Wall -Werror -DVERBOSE",
        regions: "functions,loops,user",
    },
    Case {
        file: "fixed/legacy.f",
        flags: "-Wall -Werror -std=legacy",
        regions: "functions,loops,user",
    },
    Case {
        file: "fixed/legacy.f",
        flags: "-Wall -Werror -std=legacy",
        regions: "functions,loops,user,io,calls",
    },
    Case {
        file: "fixed/terminals.f",
        flags: "-Wall -Werror -std=legacy",
        regions: "functions,loops,user,io",
    },
];

/// Instrument, build both ways, run, compare, check the report. `run_env`
/// is set for every run of the case's programs (never on this process: the
/// other test modules share its environment).
fn check_case(case: &Case, extra_flags: &[&str], run_env: &[(&str, &Path)]) {
    let name = Path::new(case.file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = TestDir::new("fortran");
    let src_dir = dir.join("src");
    std::fs::create_dir_all(&src_dir).expect("src dir");
    let original = std::fs::read_to_string(testdata().join("fortran").join(case.file))
        .expect("testdata is readable");
    let src = src_dir.join(&name);
    std::fs::write(&src, &original).expect("copy source");
    let out_dir = dir.join("out");
    run_ok(
        Command::new(instrument_bin())
            .arg(&src_dir)
            .arg("--out")
            .arg(&out_dir)
            .args(["--regions", case.regions]),
    );
    let mut fflags = words(case.flags);
    fflags.extend(extra_flags.iter().map(|s| s.to_string()));

    // The original and the instrumented copy, same flags.
    let orig = dir.join("orig");
    run_ok(
        Command::new("gfortran")
            .args(&fflags)
            .arg(&src)
            .arg("-o")
            .arg(&orig)
            .current_dir(dir.path()),
    );
    let want = exec(&orig, dir.path(), run_env);
    let inst = dir.join("inst");
    let build = run_ok(
        Command::new("gfortran")
            .args(&fflags)
            .args(instrument_flags("--fflags"))
            .arg(out_dir.join(&name))
            .args(instrument_flags("--libs"))
            .arg("-o")
            .arg(&inst)
            .current_dir(dir.path()),
    );
    assert!(
        !build.stderr.contains("Warning"),
        "{}: the instrumented build warns:\n{}",
        case.file,
        build.stderr
    );
    let run_dir = dir.join("run");
    let got = exec(
        &inst,
        dir.path(),
        &[run_env, &[("REGIO_DIR", run_dir.as_path())]].concat(),
    );
    assert_eq!(
        got.stdout,
        want.stdout,
        "{}: stdout differs\n{}",
        case.file,
        got.describe()
    );
    assert_eq!(
        got.outcome(),
        want.outcome(),
        "{}: exit status differs",
        case.file
    );

    let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let runrep = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let idf: Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.join("regio.idf.json")).expect("IDF written"),
    )
    .expect("IDF is JSON");
    let regions = idf["regions"].as_array().cloned().unwrap_or_default();

    // Procedures: the call graph equals ground truth.
    let program = regions
        .iter()
        .find(|r| r["kind"] == "program")
        .and_then(|r| r["name"].as_str())
        .unwrap_or("main")
        .to_ascii_lowercase();
    let left_alone: HashSet<String> = regions
        .iter()
        .filter(|r| r["aux"]["instrumented"] == Value::Bool(false))
        .filter_map(|r| r["name"].as_str().map(str::to_ascii_lowercase))
        .collect();
    let gt_exe = dir.join("gt");
    run_ok(
        Command::new("gfortran")
            .args(&fflags)
            .args(TRUTH_CFLAGS)
            .args(TRUTH_LDFLAGS)
            .arg(&src)
            .arg(hook_object())
            .arg("-o")
            .arg(&gt_exe)
            .current_dir(dir.path()),
    );
    let counts = dir.join("counts.txt");
    exec(
        &gt_exe,
        dir.path(),
        &[run_env, &[(COUNT_FILE_VAR, counts.as_path())]].concat(),
    );
    let want_paths = truth_paths(&read_call_paths(&counts, &gt_exe), &program, &left_alone);
    let got_paths: BTreeMap<String, Counts> = call_paths(runrep, &["program", "function"])
        .into_iter()
        .fold(BTreeMap::new(), |mut m, (p, c)| {
            *m.entry(p.to_ascii_lowercase()).or_default() += c;
            m
        });
    assert!(!want_paths.is_empty(), "{}: no ground truth", case.file);
    assert_eq!(got_paths, want_paths, "{}: procedure call graph", case.file);

    // Loops, user, I/O and call regions: the annotations.
    let mut by_region: HashMap<u64, u64> = HashMap::new();
    visit(runrep, &mut |n, _| {
        *by_region
            .entry(n["region"].as_u64().unwrap_or(0))
            .or_default() += n["calls"].as_u64().unwrap_or(0);
    });
    let expect = expectations(&original);
    let mut checked = 0;
    for r in &regions {
        let kind = r["kind"].as_str().unwrap_or("");
        if matches!(kind, "program" | "function") {
            continue;
        }
        let id = r["id"].as_u64().unwrap_or(0);
        let line = r["start"]["line"].as_u64().unwrap_or(0);
        let Some(&want) = expect.get(&line) else {
            panic!(
                "{}: region {id} ({kind} `{}`, line {line}) has no `! expect N`",
                case.file, r["name"]
            );
        };
        let got = by_region.get(&id).copied().unwrap_or(0);
        assert_eq!(
            got, want,
            "{}: calls of {kind} `{}` at line {line}",
            case.file, r["name"]
        );
        checked += 1;
    }
    println!(
        "{} ({}): {} call paths and {checked} other regions as expected",
        case.file,
        case.regions,
        want_paths.len()
    );
}

#[test]
fn programs_behave_the_same_and_count_exactly() {
    if !toolchain() {
        return;
    }
    for case in CASES {
        check_case(case, &[], &[]);
    }
}

/// The OpenMP program also compiled with OpenMP: the conditional lines are
/// code then, and the loop runs on several threads.
#[test]
fn openmp_build_behaves_the_same() {
    if !toolchain() {
        return;
    }
    let case = Case {
        file: "free/openmp.f90",
        flags: "-Wall -Werror",
        regions: "functions,loops,user",
    };
    check_case(&case, &["-fopenmp"], &[("OMP_NUM_THREADS", Path::new("3"))]);
}

/// Warning lines of a build: `file:line` of each diagnostic (columns move
/// where free-form probes share a line) and the scanner's tab warnings.
fn warning_lines(file: &Path, shown: &Path, flags: &[String], obj: &Path) -> Vec<String> {
    let o = run_ok(
        Command::new("gfortran")
            .args(flags)
            .args(["-c", "-o"])
            .arg(obj)
            .arg(file),
    );
    let shown = shown.to_string_lossy();
    let mut v: Vec<String> = o
        .stderr
        .lines()
        .filter_map(|l| {
            if l.starts_with(&*shown) {
                l.rsplitn(3, ':').nth(2).map(str::to_string)
            } else if l.contains("Warning: Nonconforming tab") {
                Some(l.to_string())
            } else {
                None
            }
        })
        .collect();
    v.sort();
    v
}

/// Tab-formatted lines make gfortran warn under -Wall (-Wtabs), so this one
/// is built without -Werror: the same warnings, at the same original lines.
#[test]
fn tab_format_builds_with_the_same_warnings() {
    if !toolchain() {
        return;
    }
    let dir = TestDir::new("fortran-tabs");
    let src = dir.join("tabs.f");
    std::fs::copy(testdata().join("fortran/fixed/tabs.f"), &src).expect("copy");
    let out = dir.join("out");
    run_ok(
        Command::new(instrument_bin())
            .arg(&src)
            .arg("--out")
            .arg(&out)
            .args(["--regions", "functions,loops,user"]),
    );
    let flags = words("-Wall -std=legacy");
    let a = warning_lines(&src, &src, &flags, &dir.join("a.o"));
    let mut f2 = flags.clone();
    f2.extend(instrument_flags("--fflags"));
    let b = warning_lines(&out.join("tabs.f"), &src, &f2, &dir.join("b.o"));
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

/// Compiler diagnostics and run-time error locations name the original
/// file and line, in both source forms.
#[test]
fn diagnostics_and_runtime_errors_keep_original_lines() {
    if !toolchain() {
        return;
    }
    let dir = TestDir::new("fortran-lines");
    let free = "program lines\n  implicit none\n  integer :: i, unused_a\n  real :: x(3)\n  integer :: k\n  k = 0\n  do i = 1, 3\n    x(i) = i\n  end do\n  call touch(x, 4)\ncontains\n  subroutine touch(v, n)\n    real, intent(inout) :: v(:)\n    integer, intent(in) :: n\n    integer :: j, unused_b\n    do j = 1, n\n      v(j) = v(j) + 1.0\n    end do\n  end subroutine touch\nend program lines\n";
    let fixed = "      PROGRAM LINES\n      INTEGER I, IUNUSED\n      REAL X(3)\n      DO 10 I = 1, 3\n         X(I) = I\n   10 CONTINUE\n      CALL TOUCH(X, 4)\n      END\n      SUBROUTINE TOUCH(V, N)\n      INTEGER N, J, JUNUSED\n      REAL V(3)\n      DO 20 J = 1, N\n         V(J) = V(J) + 1.0\n   20 CONTINUE\n      END\n";
    for (name, body) in [("lines.f90", free), ("lines.f", fixed)] {
        let src = dir.join(name);
        std::fs::write(&src, body).expect("write");
        let out = dir.join(format!("out-{name}"));
        run_ok(
            Command::new(instrument_bin())
                .arg(&src)
                .arg("--out")
                .arg(&out)
                .args(["--regions", "functions,loops"]),
        );
        let inst_src = out.join(name);
        let plain = words("-Wall");
        let mut with_rt = plain.clone();
        with_rt.extend(instrument_flags("--fflags"));
        let a = warning_lines(&src, &src, &plain, &dir.join("a.o"));
        assert!(a.len() >= 2, "expected unused-variable warnings: {a:?}");
        let b = warning_lines(&inst_src, &src, &with_rt, &dir.join("b.o"));
        assert_eq!(a, b, "{name}: warning locations");
        // A bounds error at run time: the same `At line N of file F`.
        let at_line = |file: &Path, extra: &[String], libs: &[String]| {
            let exe = dir.join("bounds");
            run_ok(
                Command::new("gfortran")
                    .args(["-g", "-fcheck=bounds", "-fbacktrace"])
                    .args(extra)
                    .arg(file)
                    .args(libs)
                    .arg("-o")
                    .arg(&exe),
            );
            let o = exec(&exe, dir.path(), &[("REGIO_DIR", &dir.join("run"))]);
            assert!(!o.status.success());
            o.stderr
                .lines()
                .find(|l| l.starts_with("At line"))
                .map(str::to_string)
                .unwrap_or_default()
        };
        let want = at_line(&src, &[], &[]);
        assert!(want.starts_with("At line"), "no run-time error location");
        let got = at_line(
            &inst_src,
            &instrument_flags("--fflags"),
            &instrument_flags("--libs"),
        );
        assert_eq!(want, got, "{name}: run-time error location");
    }
}

/// A tree as old benchmarks ship it: fixed-form code including a Fortran
/// file named `.h`, and a file the scanner cannot follow. `instrument`
/// succeeds, the `.h` reaches the copy unchanged (it is no C), the
/// unreadable file is copied unchanged with a warning and listed in the
/// IDF, and the program builds and runs from the copy as from the original.
#[test]
fn fortran_headers_and_unreadable_files_pass_through() {
    if !toolchain() {
        return;
    }
    let src = testdata().join("fortran/legacy_include");
    let dir = TestDir::new("fortran-legacy-include");
    let out = dir.join("inst");
    let o = run(Command::new(instrument_bin())
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .args(["--regions", "functions,loops"]));
    assert!(o.status.success(), "{}", o.describe());
    assert!(
        o.stderr.contains("broken.f90:5:")
            && o.stderr
                .contains("warning: not measured: this file left as written"),
        "{}",
        o.describe()
    );
    assert!(
        o.stderr
            .contains("left as written (not measured; 1 file(s) copied unchanged)"),
        "{}",
        o.describe()
    );
    for name in ["params.h", "broken.f90"] {
        assert_eq!(
            std::fs::read(out.join(name)).ok(),
            std::fs::read(src.join(name)).ok(),
            "{name} not copied unchanged"
        );
    }
    let idf = std::fs::read_to_string(out.join("regio.idf.json")).unwrap_or_default();
    assert!(
        idf.contains("\"not_measured\""),
        "broken.f90 not listed: {idf}"
    );

    let build = |from: &Path, flags: &[String], libs: &[String], exe: &Path| {
        run_ok(
            Command::new("gfortran")
                .current_dir(from)
                .args(flags)
                .arg("main.f")
                .args(libs)
                .arg("-o")
                .arg(exe),
        );
    };
    let plain = dir.join("plain");
    build(&src, &[], &[], &plain);
    let inst = dir.join("measured");
    build(
        &out,
        &instrument_flags("--fflags"),
        &instrument_flags("--libs"),
        &inst,
    );
    let want = exec(&plain, dir.path(), &[]);
    let got = exec(&inst, dir.path(), &[("REGIO_DIR", &dir.join("run"))]);
    assert_eq!((got.outcome(), &got.stdout), (want.outcome(), &want.stdout));
    assert!(want.stdout.contains("total"), "{}", want.describe());
    let report = report_json(&[&dir.join("run")]).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = call_paths(&report["runs"][0], &["function", "program"])
        .into_keys()
        .collect();
    assert!(names.iter().any(|p| p == "MAIN/ADDUP"), "{names:?}");
}

/// Bad input: an error per problem in `file:line:col: error:` form, a
/// non-zero exit status and no output file.
#[test]
fn bad_input_is_rejected_without_output() {
    let dir = TestDir::new("fortran-bad");
    let bad: PathBuf = testdata().join("fortran/bad");
    for name in [
        "split.f90",
        "mismatched.f90",
        "unbalanced_end.f90",
        "fixed_mismatch.f",
        "crossing.f90",
        "unbalanced_begin.f90",
    ] {
        let src = bad.join(name);
        let out = dir.join(format!("out-{name}"));
        let o = run(Command::new(instrument_bin())
            .arg(&src)
            .arg("--out")
            .arg(&out));
        assert!(!o.status.success(), "{name} was accepted");
        let shown = format!("{}:", src.display());
        assert!(
            o.stderr
                .lines()
                .any(|l| l.starts_with(&shown) && l.contains(": error: ")),
            "{name}: no located error:\n{}",
            o.stderr
        );
        assert!(
            !out.join(name).exists(),
            "{name}: output written for a failed file"
        );
    }
}

/// Builds `src` (original and instrumented copy `inst`) with `flags` and
/// the default line-length limits, runs both with OMP_NUM_THREADS=3, and
/// requires no compiler warning, the same output and status, and a run
/// directory holding the IDF the program registered. `label` names the
/// case in messages.
fn same_run_with_default_limits(label: &str, src: &Path, inst: &Path, flags: &[&str], dir: &Path) {
    let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
    let orig = dir.join("orig");
    run_ok(
        Command::new("gfortran")
            .args(&flags)
            .arg(src)
            .arg("-o")
            .arg(&orig),
    );
    let exe = dir.join("inst");
    let build = run_ok(
        Command::new("gfortran")
            .args(&flags)
            .args(instrument_flags("--fflags"))
            .arg(inst)
            .args(instrument_flags("--libs"))
            .arg("-o")
            .arg(&exe),
    );
    assert!(
        !build.stderr.contains("Warning") && !build.stderr.contains("Error"),
        "{label}: the instrumented build complains:\n{}",
        build.stderr
    );
    // (exec takes paths: a team of three.)
    let threads = Path::new("3");
    let want = exec(&orig, dir, &[("OMP_NUM_THREADS", threads)]);
    let run_dir = dir.join("run");
    let _ = std::fs::remove_dir_all(&run_dir);
    let got = exec(
        &exe,
        dir,
        &[("REGIO_DIR", &run_dir), ("OMP_NUM_THREADS", threads)],
    );
    assert_eq!(got.stdout, want.stdout, "{label}: {}", got.describe());
    assert_eq!(got.outcome(), want.outcome(), "{label}: exit status");
    assert!(
        run_dir.join("regio.idf.json").is_file(),
        "{label}: no IDF in the run directory: {}",
        got.describe()
    );
}

/// Every line Regio writes fits 132 columns (free form) or 72 (fixed
/// form): deeply indented programs of testdata/fortran/long instrumented
/// with every region kind into an `--out` directory whose path is longer
/// than 200 characters build with gfortran's default line-length limits
/// (no -ffree-line-length-none), with and without -fopenmp, and run as the
/// originals do.
#[test]
fn long_out_path_and_deep_indentation_fit_the_line_limits() {
    if !toolchain() {
        return;
    }
    let dir = TestDir::new("fortran-long");
    let src_dir = dir.join("src");
    std::fs::create_dir_all(&src_dir).expect("src dir");
    let names = ["deep_indent.f90", "deep_indent_fixed.f"];
    for name in names {
        std::fs::copy(
            testdata().join("fortran/long").join(name),
            src_dir.join(name),
        )
        .expect("copy source");
    }
    let out = dir.join("o".repeat(120)).join("p".repeat(90));
    assert!(out.to_string_lossy().len() > 200);
    run_ok(
        Command::new(instrument_bin())
            .arg(&src_dir)
            .arg("--out")
            .arg(&out)
            .args(["--regions", "all"]),
    );
    for name in names {
        let inst = out.join(name);
        let text = std::fs::read_to_string(&inst).expect("instrumented copy");
        let limit = if name.ends_with(".f") { 72 } else { 132 };
        let long: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with("# ") && l.len() > limit)
            .collect();
        assert!(
            long.is_empty(),
            "{name}: lines past column {limit}: {long:#?}"
        );
        for omp in [true, false] {
            let mut flags = vec!["-Wall", "-Wline-truncation"];
            if omp {
                flags.push("-fopenmp");
            }
            let case = dir.join(format!("{name}-{omp}"));
            std::fs::create_dir_all(&case).expect("case dir");
            let label = format!("{name} (-fopenmp: {omp})");
            same_run_with_default_limits(&label, &src_dir.join(name), &inst, &flags, &case);
        }
    }
}
