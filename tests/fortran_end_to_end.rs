//! End to end for Fortran: instrument the programs in `testdata/fortran`
//! with the `instrument` binary, build the original and the instrumented
//! copy with the same gfortran flags, run both, and require the same
//! output and exit status. The report's call counts must equal ground
//! truth: gfortran `-finstrument-functions` with a counting hook for
//! procedures, and for loop, user, I/O and call regions the `! expect N`
//! annotations in the sources (known by construction).
//!
//! Without gfortran (or gcc, nm) the tests print `SKIPPED: needs gfortran`
//! and pass, unless `REGIO_REQUIRE_TOOLCHAINS=1`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn instrument_cmd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_instrument"))
}

fn works(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// True when the tool chain is there. Otherwise prints why the test is
/// skipped, or fails under `REGIO_REQUIRE_TOOLCHAINS=1`.
fn toolchain() -> bool {
    let missing: Vec<&str> = ["gfortran", "gcc", "nm"]
        .into_iter()
        .filter(|t| !works(t))
        .collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() == Ok("1") {
        panic!("REGIO_REQUIRE_TOOLCHAINS=1 but these tools are missing: {missing:?}");
    }
    println!("SKIPPED: needs {}", missing.join(", "));
    false
}

fn run(cmd: &mut Command, what: &str) -> Output {
    // cargo's LD_LIBRARY_PATH may name a stale copy of libregio.so ahead of
    // the -rpath that `instrument flags --libs` gives.
    cmd.env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"))
}

fn ok(cmd: &mut Command, what: &str) -> Output {
    let out = run(cmd, what);
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("regio-fortran-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn flags(which: &str) -> Vec<String> {
    let out = ok(instrument_cmd().args(["flags", which]), "instrument flags");
    words(&text(&out.stdout))
}

/// Counting hook for `-finstrument-functions`: function address and
/// number of entries, written at exit (gfortran's STOP calls exit).
const HOOK: &str = r#"
#include <stdio.h>
#include <stdlib.h>
static struct { void *fn; unsigned long n; } tab[4096];
static int ntab;
__attribute__((no_instrument_function))
void __cyg_profile_func_enter(void *fn, void *site) {
    (void)site;
    for (int i = 0; i < ntab; i++)
        if (tab[i].fn == fn) { tab[i].n++; return; }
    if (ntab < 4096) { tab[ntab].fn = fn; tab[ntab].n = 1; ntab++; }
}
__attribute__((no_instrument_function))
void __cyg_profile_func_exit(void *fn, void *site) { (void)fn; (void)site; }
__attribute__((no_instrument_function, destructor))
static void regio_gt_dump(void) {
    const char *p = getenv("REGIO_GT_OUT");
    FILE *f = p ? fopen(p, "w") : NULL;
    if (!f) return;
    for (int i = 0; i < ntab; i++) fprintf(f, "%lx %lu\n", (unsigned long)tab[i].fn, tab[i].n);
    fclose(f);
}
"#;

/// The Fortran procedure a symbol belongs to (lower case): `MAIN__` is the
/// main program, `__m_MOD_f` a module procedure, `f_` an external one,
/// `f.0` an internal one, `master.0.f` the body of a procedure with ENTRY
/// statements (its `f_` and `e_` are then the entry wrappers).
fn procedure_of(sym: &str) -> Option<(String, bool)> {
    if sym == "MAIN__" {
        return Some(("<main>".into(), false));
    }
    if let Some(rest) = sym.strip_prefix("master.") {
        let name = rest.split_once('.').map_or(rest, |(_, n)| n);
        return Some((name.to_string(), true));
    }
    if let Some((_, n)) = sym.split_once("_MOD_") {
        return Some((n.to_string(), false));
    }
    if let Some((n, _)) = sym.split_once('.') {
        return Some((n.to_string(), false));
    }
    sym.strip_suffix('_')
        .filter(|n| !n.is_empty() && !n.starts_with('_'))
        .map(|n| (n.to_string(), false))
}

/// Ground truth: calls per procedure symbol of a `-finstrument-functions`
/// build of the original program.
struct Truth {
    calls: HashMap<String, u64>,
    masters: HashMap<String, u64>,
}

fn ground_truth(dir: &Path, src: &Path, fflags: &[String], hook_o: &Path) -> Truth {
    let exe = dir.join("gt");
    ok(
        Command::new("gfortran")
            .args(fflags)
            .args(["-O0", "-finstrument-functions", "-no-pie"])
            .arg(src)
            .arg(hook_o)
            .arg("-o")
            .arg(&exe)
            .current_dir(dir),
        "ground-truth build",
    );
    let gt_out = dir.join("gt.txt");
    run(
        Command::new(&exe).env("REGIO_GT_OUT", &gt_out).current_dir(dir),
        "ground-truth run",
    );
    let nm = ok(Command::new("nm").arg(&exe), "nm");
    let mut names: HashMap<u64, String> = HashMap::new();
    for line in text(&nm.stdout).lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if let [addr, _, sym] = w[..] {
            if let Ok(a) = u64::from_str_radix(addr, 16) {
                names.insert(a, sym.to_string());
            }
        }
    }
    let mut calls = HashMap::new();
    let mut masters = HashMap::new();
    let dump = std::fs::read_to_string(&gt_out).expect("ground-truth counts written at exit");
    for line in dump.lines() {
        let Some((a, n)) = line.split_once(' ') else { continue };
        let (Ok(a), Ok(n)) = (u64::from_str_radix(a, 16), n.parse::<u64>()) else {
            continue;
        };
        let Some(sym) = names.get(&a) else { continue };
        let Some((proc_name, master)) = procedure_of(sym) else { continue };
        let map = if master { &mut masters } else { &mut calls };
        *map.entry(proc_name).or_insert(0) += n;
    }
    Truth { calls, masters }
}

/// Calls per region id over the whole DRG of every run in a JSON report.
fn report_calls(report: &Value) -> HashMap<u64, u64> {
    fn walk(n: &Value, out: &mut HashMap<u64, u64>) {
        if let (Some(r), Some(c)) = (n["region"].as_u64(), n["calls"].as_u64()) {
            *out.entry(r).or_insert(0) += c;
        }
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, out);
        }
    }
    let mut out = HashMap::new();
    for run in report["runs"].as_array().into_iter().flatten() {
        for n in run["drg"].as_array().into_iter().flatten() {
            walk(n, &mut out);
        }
    }
    out
}

/// `! expect N` annotations: line (1-based) -> N.
fn expectations(src: &str) -> HashMap<u32, u64> {
    let mut out = HashMap::new();
    for (i, line) in src.lines().enumerate() {
        if let Some(p) = line.find("! expect ") {
            let n = line[p + 9..].split_whitespace().next().and_then(|w| w.parse().ok());
            if let Some(n) = n {
                out.insert(i as u32 + 1, n);
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

/// Instrument, build both ways, run, compare, check the counts.
fn check_case(case: &Case, hook_o: &Path, extra_flags: &[&str], tag: &str) {
    let name = Path::new(case.file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = scratch(&format!("{tag}-{}", name.replace('.', "_")));
    let src_dir = dir.join("src");
    std::fs::create_dir_all(&src_dir).expect("src dir");
    let original = std::fs::read_to_string(root().join("testdata/fortran").join(case.file))
        .expect("testdata is readable");
    let src = src_dir.join(&name);
    std::fs::write(&src, &original).expect("copy source");
    let out_dir = dir.join("out");
    ok(
        instrument_cmd()
            .arg(&src_dir)
            .arg("--out")
            .arg(&out_dir)
            .args(["--regions", case.regions]),
        &format!("instrument {}", case.file),
    );
    let mut fflags = words(case.flags);
    fflags.extend(extra_flags.iter().map(|s| s.to_string()));

    // The original.
    let orig = dir.join("orig");
    ok(
        Command::new("gfortran").args(&fflags).arg(&src).arg("-o").arg(&orig).current_dir(&dir),
        &format!("original build of {}", case.file),
    );
    let want = run(Command::new(&orig).current_dir(&dir), "original run");

    // The instrumented copy, same flags plus the runtime.
    let inst = dir.join("inst");
    let build = ok(
        Command::new("gfortran")
            .args(&fflags)
            .args(flags("--fflags"))
            .arg(out_dir.join(&name))
            .args(flags("--libs"))
            .arg("-o")
            .arg(&inst)
            .current_dir(&dir),
        &format!("instrumented build of {}", case.file),
    );
    assert!(
        !text(&build.stderr).contains("Warning"),
        "instrumented build warns:\n{}",
        text(&build.stderr)
    );
    let run_dir = dir.join("run");
    let got = run(
        Command::new(&inst).env("REGIO_DIR", &run_dir).current_dir(&dir),
        "instrumented run",
    );
    assert_eq!(
        text(&got.stdout),
        text(&want.stdout),
        "{}: stdout differs (stderr: {})",
        case.file,
        text(&got.stderr)
    );
    assert_eq!(got.status.code(), want.status.code(), "{}: exit status differs", case.file);

    // The report against ground truth.
    let report = ok(
        instrument_cmd().args(["report", "--format", "json"]).arg(&run_dir),
        "instrument report",
    );
    let report: Value = serde_json::from_slice(&report.stdout).expect("report is JSON");
    let calls = report_calls(&report);
    let idf: Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.join("regio.idf.json")).expect("IDF written"),
    )
    .expect("IDF is JSON");
    let regions = idf["regions"].as_array().cloned().unwrap_or_default();
    assert!(!regions.is_empty(), "{}: no regions", case.file);
    let truth = ground_truth(&dir, &src, &fflags, hook_o);
    let expect = expectations(&original);
    let mut checked = 0;
    for r in &regions {
        let id = r["id"].as_u64().unwrap_or(0);
        let kind = r["kind"].as_str().unwrap_or("");
        let rname = r["name"].as_str().unwrap_or("").to_ascii_lowercase();
        let line = r["start"]["line"].as_u64().unwrap_or(0) as u32;
        let got = calls.get(&id).copied().unwrap_or(0);
        let aux = &r["aux"];
        match kind {
            "program" | "function" => {
                if aux["instrumented"] == Value::Bool(false) {
                    continue;
                }
                let key = if kind == "program" { "<main>".to_string() } else { rname.clone() };
                let want = truth.calls.get(&key).copied().unwrap_or(0);
                assert_eq!(got, want, "{}: calls of {kind} `{rname}` (line {line})", case.file);
                if aux["procedure"] != "entry" {
                    if let Some(&m) = truth.masters.get(&rname) {
                        // ENTRY: the procedure and its entries together
                        // are the calls of gfortran's master function.
                        let entries: u64 = regions
                            .iter()
                            .filter(|e| e["aux"]["entry_of"].as_str().map(str::to_ascii_lowercase) == Some(rname.clone()))
                            .map(|e| calls.get(&e["id"].as_u64().unwrap_or(0)).copied().unwrap_or(0))
                            .sum();
                        assert_eq!(got + entries, m, "{}: `{rname}` with its ENTRY points", case.file);
                    }
                }
            }
            _ => {
                let Some(&want) = expect.get(&line) else {
                    panic!("{}: region {id} ({kind} `{rname}`, line {line}) has no `! expect N`", case.file);
                };
                assert_eq!(got, want, "{}: calls of {kind} `{rname}` at line {line}", case.file);
            }
        }
        checked += 1;
    }
    assert!(checked > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

fn hook(dir: &Path) -> PathBuf {
    let c = dir.join("hook.c");
    std::fs::write(&c, HOOK).expect("write hook");
    let o = dir.join("hook.o");
    ok(
        Command::new("gcc").args(["-O2", "-c"]).arg(&c).arg("-o").arg(&o),
        "hook build",
    );
    o
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

#[test]
fn programs_behave_the_same_and_count_exactly() {
    if !toolchain() {
        return;
    }
    let dir = scratch("hook");
    let hook_o = hook(&dir);
    for (i, case) in CASES.iter().enumerate() {
        check_case(case, &hook_o, &[], &format!("c{i}"));
    }
}

/// The OpenMP program also compiled with OpenMP (the conditional lines are
/// code then, and the loop runs on several threads).
#[test]
fn openmp_build_behaves_the_same() {
    if !toolchain() {
        return;
    }
    let dir = scratch("hook-omp");
    let hook_o = hook(&dir);
    std::env::set_var("OMP_NUM_THREADS", "3");
    let case = Case {
        file: "free/openmp.f90",
        flags: "-Wall -Werror",
        regions: "functions,loops,user",
    };
    check_case(&case, &hook_o, &["-fopenmp"], "omp");
}

/// Tab-formatted lines make gfortran warn under -Wall (-Wtabs), so this one
/// is built without -Werror; the warnings must be the same, at the same
/// original lines.
#[test]
fn tab_format_builds_with_the_same_warnings() {
    if !toolchain() {
        return;
    }
    let dir = scratch("tabs");
    let src = dir.join("tabs.f");
    std::fs::copy(root().join("testdata/fortran/fixed/tabs.f"), &src).expect("copy");
    let out = dir.join("out");
    ok(
        instrument_cmd().arg(&src).arg("--out").arg(&out).args(["--regions", "functions,loops,user"]),
        "instrument tabs.f",
    );
    let warn = |file: &Path, extra: &[String]| {
        let o = ok(
            Command::new("gfortran")
                .args(["-Wall", "-std=legacy", "-c", "-o"])
                .arg(dir.join("x.o"))
                .args(extra)
                .arg(file),
            "tabs build",
        );
        let mut w: Vec<String> = text(&o.stderr)
            .lines()
            .filter(|l| l.contains("Warning") || l.starts_with(&*src.to_string_lossy()))
            .map(str::to_string)
            .collect();
        w.sort();
        w
    };
    let a = warn(&src, &[]);
    let b = warn(&out.join("tabs.f"), &flags("--fflags"));
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

/// Compiler diagnostics and run-time error locations name the original file
/// and line, in both source forms.
#[test]
fn diagnostics_and_runtime_errors_keep_original_lines() {
    if !toolchain() {
        return;
    }
    let dir = scratch("lines");
    let free = "program lines\n  implicit none\n  integer :: i, unused_a\n  real :: x(3)\n  integer :: k\n  k = 0\n  do i = 1, 3\n    x(i) = i\n  end do\n  call touch(x, 4)\ncontains\n  subroutine touch(v, n)\n    real, intent(inout) :: v(:)\n    integer, intent(in) :: n\n    integer :: j, unused_b\n    do j = 1, n\n      v(j) = v(j) + 1.0\n    end do\n  end subroutine touch\nend program lines\n";
    let fixed = "      PROGRAM LINES\n      INTEGER I, IUNUSED\n      REAL X(3)\n      DO 10 I = 1, 3\n         X(I) = I\n   10 CONTINUE\n      CALL TOUCH(X, 4)\n      END\n      SUBROUTINE TOUCH(V, N)\n      INTEGER N, J, JUNUSED\n      REAL V(3)\n      DO 20 J = 1, N\n         V(J) = V(J) + 1.0\n   20 CONTINUE\n      END\n";
    for (name, body) in [("lines.f90", free), ("lines.f", fixed)] {
        let src = dir.join(name);
        std::fs::write(&src, body).expect("write");
        let out = dir.join(format!("out-{name}"));
        ok(
            instrument_cmd().arg(&src).arg("--out").arg(&out).args(["--regions", "functions,loops"]),
            "instrument",
        );
        let inst_src = out.join(name);
        // Warnings: same file:line.
        let locations = |file: &Path, extra: &[String]| {
            let o = ok(
                Command::new("gfortran")
                    .args(["-Wall", "-c", "-o"])
                    .arg(dir.join("x.o"))
                    .args(extra)
                    .arg(file),
                "build with warnings",
            );
            let mut v: Vec<String> = text(&o.stderr)
                .lines()
                .filter(|l| l.starts_with(&*src.to_string_lossy()))
                .map(|l| l.rsplitn(3, ':').nth(2).unwrap_or(l).to_string())
                .collect();
            v.sort();
            v
        };
        let a = locations(&src, &[]);
        assert!(a.len() >= 2, "expected unused-variable warnings: {a:?}");
        assert_eq!(a, locations(&inst_src, &flags("--fflags")), "{name}: warning locations");
        // A bounds error at run time: same `At line N of file F`.
        let at_line = |file: &Path, extra: &[String], libs: &[String]| {
            let exe = dir.join("bounds");
            ok(
                Command::new("gfortran")
                    .args(["-g", "-fcheck=bounds", "-fbacktrace"])
                    .args(extra)
                    .arg(file)
                    .args(libs)
                    .arg("-o")
                    .arg(&exe),
                "bounds build",
            );
            let o = run(Command::new(&exe).env("REGIO_DIR", dir.join("run")), "bounds run");
            assert!(!o.status.success());
            text(&o.stderr)
                .lines()
                .find(|l| l.starts_with("At line"))
                .map(str::to_string)
                .unwrap_or_default()
        };
        let want = at_line(&src, &[], &[]);
        assert!(want.starts_with("At line"), "no run-time error location");
        assert_eq!(
            want,
            at_line(&inst_src, &flags("--fflags"), &flags("--libs")),
            "{name}: run-time error location"
        );
    }
}

/// Bad input: an error per problem in `file:line:col: error:` form, a
/// non-zero exit status and no output file.
#[test]
fn bad_input_is_rejected_without_output() {
    let dir = scratch("bad");
    for name in ["split.f90", "mismatched.f90", "syntax.f90", "fixed_mismatch.f", "crossing.f90"] {
        let src = root().join("testdata/fortran/bad").join(name);
        let out = dir.join(format!("out-{name}"));
        let o = run(
            instrument_cmd().arg(&src).arg("--out").arg(&out),
            "instrument bad input",
        );
        assert!(!o.status.success(), "{name} was accepted");
        let err = text(&o.stderr);
        let shown = src.display().to_string();
        assert!(
            err.lines().any(|l| l.starts_with(&format!("{shown}:")) && l.contains(": error: ")),
            "{name}: no located error:\n{err}"
        );
        assert!(!out.join(name).exists(), "{name}: output written for a failed file");
    }
}
