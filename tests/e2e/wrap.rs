//! `instrument wrap` (SPEC.md "Compiler wrapper"): real builds with the
//! wrapper in place of the compiler, in place, with the projects' own flags.
//! Each is built plain and wrapped, run, and compared: same output, the
//! regions of every object (library and program) in the profile with their
//! file and line, dependency files that name the original sources (and
//! equal the plain build's), commands the wrapper must not touch unchanged.
//!
//! gfortran, cmake and mpicc are required under REGIO_REQUIRE_TOOLCHAINS=1.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::report::{only_run, report_json, visit};
use crate::common::{copy_tree, instrument_bin, require_tool, run, run_ok, testdata, TestDir};

/// `instrument wrap COMPILER` as one string, the way a Makefile gets it.
fn wrapped(compiler: &str) -> String {
    format!("{} wrap {compiler}", instrument_bin().display())
}

/// The single run directory a program left in `dir`.
pub(crate) fn run_dir_in(dir: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("regio-run-"))
        })
        .collect();
    match dirs.as_slice() {
        [one] => one.clone(),
        _ => panic!("expected one run directory in {}: {dirs:?}", dir.display()),
    }
}

/// (name, kind, file, line) of every node of a run's DRG.
pub(crate) fn nodes(run_dir: &Path) -> BTreeSet<(String, String, String, u64)> {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let mut out = BTreeSet::new();
    visit(run, &mut |n: &Value, _| {
        out.insert((
            n["name"].as_str().unwrap_or("").to_string(),
            n["kind"].as_str().unwrap_or("").to_string(),
            n["file"].as_str().unwrap_or("").to_string(),
            n["line"].as_u64().unwrap_or(0),
        ));
    });
    out
}

/// The 1-based line of `file` (under `dir`) that holds `text`.
pub(crate) fn line_of(dir: &Path, file: &str, text: &str) -> u64 {
    let src = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    src.lines()
        .position(|l| l.contains(text))
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("{file} has no line with `{text}`"))
}

fn make(dir: &Path, args: &[&str]) -> crate::common::Run {
    run_ok(Command::new("make").current_dir(dir).args(args))
}

fn make_tools() -> bool {
    require_tool("make", "make") && require_tool("gfortran", "gfortran")
}

/// The plain build of `testdata/wrap/make` in `<tmp>/plain`: its output.
fn plain_make_build(tmp: &TestDir) -> (PathBuf, String) {
    let plain = tmp.join("plain");
    copy_tree(&testdata().join("wrap/make"), &plain);
    make(&plain, &["-s"]);
    let out = run_ok(Command::new(plain.join("prog")).current_dir(&plain)).stdout;
    (plain, out)
}

/// What the Make project's run must show: the functions of the library
/// (C, including the one a macro writes, and Fortran), of the program,
/// and the OpenMP parallel region, each at its own file and line.
pub(crate) fn check_make_regions(src: &Path, run_dir: &Path) {
    let got = nodes(run_dir);
    let want = [
        ("main", "program", "app/main.c", "int main(void)"),
        ("fill", "function", "app/main.c", "static void fill"),
        ("vec_scaled", "function", "lib/vec.c", "SCALER(vec_scaled"),
        ("vec_sum", "function", "lib/vec.c", "double vec_sum"),
        (
            "stats_mean",
            "function",
            "lib/stats.f90",
            "function stats_mean",
        ),
    ];
    let mut missing = Vec::new();
    for (name, kind, file, text) in want {
        let key = (
            name.into(),
            kind.into(),
            file.into(),
            line_of(src, file, text),
        );
        if !got.contains(&key) {
            missing.push(format!("{key:?}"));
        }
    }
    let pragma = line_of(src, "lib/vec.c", "#pragma omp parallel for");
    if !got.iter().any(|(n, k, f, l)| {
        k == "omp_parallel"
            && f == "lib/vec.c"
            && *l == pragma
            && *n == format!("parallel@{pragma}")
    }) {
        missing.push(format!("omp_parallel at lib/vec.c:{pragma}"));
    }
    assert!(
        missing.is_empty(),
        "missing {missing:?}; the DRG has {got:#?}"
    );
}

#[test]
fn a_make_project_builds_in_place_with_the_wrapper_and_matches_the_plain_build() {
    if !make_tools() {
        return;
    }
    let tmp = TestDir::new("wrap-make");
    let (plain, plain_out) = plain_make_build(&tmp);
    let src = tmp.join("wrapped");
    copy_tree(&testdata().join("wrap/make"), &src);
    let cc = format!("CC={}", wrapped("gcc"));
    let fc = format!("FC={}", wrapped("gfortran"));
    make(&src, &["-s", &cc, &fc]);
    let r = run_ok(Command::new(src.join("prog")).current_dir(&src));
    assert_eq!(r.stdout, plain_out, "output differs from the plain build");
    let run_dir = run_dir_in(&src);
    check_make_regions(&src, &run_dir);

    // The build's IDF reached the run directory by itself (the user copied
    // nothing): the report reads the copy there, even with the build's IDF
    // gone.
    let build_idf = src.join("regio.idf.json");
    let copy =
        std::fs::read(run_dir.join("regio.idf.json")).expect("IDF copy in the run directory");
    assert_eq!(copy, std::fs::read(&build_idf).expect("build IDF"));
    let moved = src.join("moved.idf.json");
    std::fs::rename(&build_idf, &moved).expect("move the build IDF away");
    check_make_regions(&src, &run_dir);
    std::fs::rename(&moved, &build_idf).expect("put the build IDF back");

    // Dependency files are the plain build's, byte for byte: the original
    // sources and headers, no temporary copy.
    for d in ["lib/vec.d", "app/main.d"] {
        let ours = std::fs::read_to_string(src.join(d)).unwrap_or_else(|e| panic!("{d}: {e}"));
        let theirs = std::fs::read_to_string(plain.join(d)).unwrap_or_else(|e| panic!("{d}: {e}"));
        assert_eq!(ours, theirs, "{d}");
        assert!(ours.contains("lib/vec.h"), "{d}: {ours}");
    }
    // The Fortran module went where the project said (-Jlib).
    assert!(src.join("lib/stats.mod").is_file());

    // An edited header rebuilds both C objects through those files; the
    // recompiled files keep their ids, so objects not rebuilt still match.
    let idf_before = std::fs::read_to_string(src.join("regio.idf.json")).expect("build IDF");
    let up_to_date = run(Command::new("make")
        .current_dir(&src)
        .args(["-q", &cc, &fc]));
    assert_eq!(up_to_date.code(), Some(0), "{}", up_to_date.describe());
    let header = src.join("lib/vec.h");
    let text = std::fs::read_to_string(&header).expect("vec.h");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&header, format!("{text}/* edited */\n")).expect("edit vec.h");
    let rebuilt = make(&src, &[&cc, &fc]);
    for obj in ["lib/vec.o", "app/main.o"] {
        assert!(
            rebuilt.stdout.contains(obj),
            "{obj} not rebuilt: {}",
            rebuilt.describe()
        );
    }
    let idf_after = std::fs::read_to_string(src.join("regio.idf.json")).expect("build IDF");
    let ids = |text: &str| -> Vec<(u64, String)> {
        let v: Value = serde_json::from_str(text).expect("IDF JSON");
        v["regions"]
            .as_array()
            .expect("regions")
            .iter()
            .map(|r| {
                (
                    r["id"].as_u64().unwrap_or(0),
                    r["name"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    assert_eq!(ids(&idf_before), ids(&idf_after));
}

#[test]
fn a_parallel_make_shares_one_idf_without_clashing_ids() {
    if !make_tools() {
        return;
    }
    let tmp = TestDir::new("wrap-make-j2");
    let (_, plain_out) = plain_make_build(&tmp);
    let src = tmp.join("wrapped");
    copy_tree(&testdata().join("wrap/make"), &src);
    let cc = format!("CC={}", wrapped("gcc"));
    let fc = format!("FC={}", wrapped("gfortran"));
    make(&src, &["-s", "-j2", &cc, &fc]);
    let r = run_ok(Command::new(src.join("prog")).current_dir(&src));
    assert_eq!(r.stdout, plain_out);
    check_make_regions(&src, &run_dir_in(&src));
    let idf = regio_idf::Idf::read(&src.join("regio.idf.json")).unwrap_or_else(|e| panic!("{e}"));
    let files: BTreeSet<&str> = idf.header.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        files,
        BTreeSet::from(["app/main.c", "lib/stats.f90", "lib/vec.c"])
    );
}

#[test]
fn commands_that_do_not_compile_run_as_the_plain_compiler() {
    let tmp = TestDir::new("wrap-pass");
    let src = tmp.join("p.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#define TWO 2\nint main(void){return TWO;}\n",
    )
    .expect("write p.c");
    let plain = |args: &[&str]| run(Command::new("gcc").current_dir(tmp.path()).args(args));
    let ours = |args: &[&str]| {
        run(Command::new(instrument_bin())
            .current_dir(tmp.path())
            .arg("wrap")
            .arg("gcc")
            .args(args))
    };
    for args in [
        &["--version"][..],
        &["-dumpversion"],
        &["-dumpmachine"],
        &["-print-prog-name=ld"],
        &["-E", "p.c"],
        &["-M", "p.c"],
        &["-MM", "p.c"],
        &["-c", "missing.c"],
        &["-fsyntax-only", "p.c"],
        &["-x", "c", "-c", "p.c", "-o", "x.o"],
        &["-xc", "-c", "p.c", "-o", "x.o"],
    ] {
        let (p, o) = (plain(args), ours(args));
        assert_eq!(
            (p.code(), &p.stdout, &p.stderr),
            (o.code(), &o.stdout, &o.stderr),
            "{args:?}"
        );
    }
    // Nothing was written: no IDF, no object.
    assert!(!tmp.join("regio.idf.json").exists());
    assert!(!tmp.join("p.o").exists());
    // A command the wrapper does not read (`-x LANG`: the language is not
    // the suffix's) runs as written: the object is the plain compiler's.
    let object = |run: &dyn Fn(&[&str]) -> crate::common::Run| {
        let _ = std::fs::remove_file(tmp.join("x.o"));
        let r = run(&["-x", "c", "-c", "p.c", "-o", "x.o"]);
        assert_eq!(r.code(), Some(0), "{}", r.describe());
        std::fs::read(tmp.join("x.o")).expect("x.o")
    };
    assert_eq!(object(&ours), object(&plain), "-x c: the object differs");
    assert!(!tmp.join("regio.idf.json").exists());
}

#[test]
fn a_cmake_project_builds_with_the_compiler_and_linker_launchers() {
    if !(require_tool("cmake", "cmake") && require_tool("gfortran", "gfortran")) {
        return;
    }
    let tmp = TestDir::new("wrap-cmake");
    let src = tmp.join("src");
    copy_tree(&testdata().join("wrap/cmake"), &src);
    let configure = |build: &Path, launcher: bool| {
        let mut c = Command::new("cmake");
        c.arg("-S").arg(&src).arg("-B").arg(build);
        if launcher {
            let l = format!("{};wrap", instrument_bin().display());
            c.arg(format!("-DCMAKE_C_COMPILER_LAUNCHER={l}"))
                .arg(format!("-DCMAKE_Fortran_COMPILER_LAUNCHER={l}"))
                .arg(format!("-DCMAKE_C_LINKER_LAUNCHER={l}"));
        }
        run_ok(&mut c);
        run_ok(Command::new("cmake").arg("--build").arg(build));
        run_ok(Command::new(build.join("shapes_app")).current_dir(build)).stdout
    };
    let plain_out = configure(&tmp.join("plain"), false);
    let build = tmp.join("build");
    let out = configure(&build, true);
    assert_eq!(out, plain_out);
    assert!(build.join("libshapes.so").is_file());
    let got = nodes(&run_dir_in(&build));
    // Out of source: files are named by absolute path.
    let abs = std::fs::canonicalize(&src).expect("src");
    let want = [
        ("main", "program", "src/app.c", "int main(void)"),
        ("area", "function", "src/area.c", "double area"),
        (
            "perimeter",
            "function",
            "src/perimeter.f90",
            "function perimeter",
        ),
    ];
    for (name, kind, file, text) in want {
        let path = abs.join(file).display().to_string();
        let key = (name.into(), kind.into(), path, line_of(&src, file, text));
        assert!(got.contains(&key), "missing {key:?} in {got:#?}");
    }
    // CMake's dependency file names the original source and header.
    let d = std::fs::read_to_string(build.join("CMakeFiles/shapes.dir/src/area.c.o.d"))
        .expect("area.c.o.d");
    assert!(
        d.contains(&format!("{}", abs.join("src/area.c").display())),
        "{d}"
    );
    // (the copies are `<temporary>/<n>/<name>`)
    assert!(d.contains("shapes.h") && !d.contains("/0/area.c"), "{d}");
}

/// Builds `args` in `dir` twice with the MPI compiler wrapper `mpi_cc`,
/// plainly and through `instrument wrap` with `REGIO_WRAP_REGIONS=regions`,
/// runs both on 2 ranks (Open MPI's mpirun) and returns their outputs
/// (plain, wrapped).
fn plain_and_wrapped_mpi_runs(
    dir: &Path,
    mpi_cc: &str,
    regions: &str,
    args: &[&str],
) -> (String, String) {
    plain_and_wrapped_mpi_runs_with(dir, mpi_cc, regions, args, mpirun_on_2)
}

/// [`plain_and_wrapped_mpi_runs`] with the launcher `run(dir, exe)`.
fn plain_and_wrapped_mpi_runs_with(
    dir: &Path,
    mpi_cc: &str,
    regions: &str,
    args: &[&str],
    mpirun: fn(&Path, &Path) -> String,
) -> (String, String) {
    let build = |out: &str, wrap: bool| {
        let mut c = match wrap {
            true => {
                let mut c = Command::new(instrument_bin());
                c.args(["wrap", mpi_cc]).env("REGIO_WRAP_REGIONS", regions);
                c
            }
            false => Command::new(mpi_cc),
        };
        run_ok(c.current_dir(dir).args(args).args(["-o", out]));
    };
    build("plain", false);
    build("wrapped", true);
    (
        mpirun(dir, &dir.join("plain")),
        mpirun(dir, &dir.join("wrapped")),
    )
}

/// Runs `exe` on 2 ranks from `dir` and returns its output.
fn mpirun_on_2(dir: &Path, exe: &Path) -> String {
    run_ok(
        Command::new("mpirun")
            .current_dir(dir)
            .env_remove("LD_LIBRARY_PATH")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(["--oversubscribe", "-np", "2"])
            .arg(exe),
    )
    .stdout
}

#[test]
fn an_mpi_program_builds_with_wrapped_mpicc() {
    if !(require_tool("mpicc", "libopenmpi-dev") && require_tool("mpirun", "openmpi-bin")) {
        return;
    }
    let tmp = TestDir::new("wrap-mpi");
    std::fs::copy(testdata().join("mpi/comm.c"), tmp.join("comm.c")).expect("copy comm.c");
    let (plain, wrapped) = plain_and_wrapped_mpi_runs(
        tmp.path(),
        "mpicc",
        "mpi",
        &["-O1", "-DSPIN_MS=5", "comm.c"],
    );
    assert_eq!(wrapped, plain);
    let got = nodes(&run_dir_in(tmp.path()));
    let kinds: BTreeSet<&str> = got.iter().map(|(_, k, _, _)| k.as_str()).collect();
    for k in ["mpi_barrier", "mpi_send", "mpi_recv"] {
        assert!(kinds.contains(k), "no {k} in {kinds:?}");
    }
    // REGIO_WRAP_REGIONS=mpi: no function regions.
    assert!(!kinds.contains("function"), "{kinds:?}");
    assert!(
        got.iter()
            .all(|(_, k, f, _)| !k.starts_with("mpi_") || f == "comm.c"),
        "{got:#?}"
    );
}

/// `instrument wrap mpicc.mpich`: the same program with MPICH's compiler
/// wrapper and launcher (as in `mpi::`: SKIPPED without MPICH, unless
/// REGIO_REQUIRE_TOOLCHAINS=1).
#[test]
fn an_mpi_program_builds_with_wrapped_mpich_mpicc() {
    if !crate::common::mpis::mpich() {
        return;
    }
    let tmp = TestDir::new("wrap-mpich");
    std::fs::copy(testdata().join("mpi/comm.c"), tmp.join("comm.c")).expect("copy comm.c");
    let mpich_on_2 = |dir: &Path, exe: &Path| -> String {
        run_ok(
            Command::new("mpirun.mpich")
                .current_dir(dir)
                .env_remove("LD_LIBRARY_PATH")
                .args(["-np", "2"])
                .arg(exe),
        )
        .stdout
    };
    let (plain, wrapped) = plain_and_wrapped_mpi_runs_with(
        tmp.path(),
        "mpicc.mpich",
        "mpi,functions",
        &["-O1", "-DSPIN_MS=5", "comm.c"],
        mpich_on_2,
    );
    assert!(!plain.trim().is_empty(), "the plain build printed nothing");
    assert_eq!(wrapped, plain);
    let got = nodes(&run_dir_in(tmp.path()));
    let kinds: BTreeSet<&str> = got.iter().map(|(_, k, _, _)| k.as_str()).collect();
    for k in ["mpi_barrier", "mpi_send", "mpi_recv", "mpi_allreduce"] {
        assert!(kinds.contains(k), "no {k} in {kinds:?}");
    }
    assert!(
        got.iter()
            .any(|(n, k, f, _)| n == "main" && k == "program" && f == "comm.c"),
        "no main at comm.c: {got:#?}"
    );
}

/// `instrument wrap mpif90`: the Fortran MPI program (`use mpi`) built
/// wrapped runs under mpirun as the plain build does, and its MPI regions
/// are in the profile at the Fortran file.
#[test]
fn an_mpi_fortran_program_builds_with_wrapped_mpif90() {
    if !(require_tool("mpif90", "libopenmpi-dev")
        && require_tool("mpirun", "openmpi-bin")
        && require_tool("gfortran", "gfortran"))
    {
        return;
    }
    let tmp = TestDir::new("wrap-mpif90");
    std::fs::copy(testdata().join("mpi/comm.f90"), tmp.join("comm.f90")).expect("copy comm.f90");
    let (plain, wrapped) =
        plain_and_wrapped_mpi_runs(tmp.path(), "mpif90", "mpi,functions", &["-O1", "comm.f90"]);
    assert!(!plain.trim().is_empty(), "the plain build printed nothing");
    assert_eq!(wrapped, plain);
    let got = nodes(&run_dir_in(tmp.path()));
    let kinds: BTreeSet<&str> = got.iter().map(|(_, k, _, _)| k.as_str()).collect();
    for k in [
        "mpi_sendrecv",
        "mpi_isend",
        "mpi_irecv",
        "mpi_waitall",
        "mpi_barrier",
        "mpi_allreduce",
        "mpi_bcast",
    ] {
        assert!(kinds.contains(k), "no {k} in {kinds:?}");
    }
    let spin = line_of(tmp.path(), "comm.f90", "subroutine spin(ms)");
    assert!(
        got.iter()
            .any(|(n, k, f, l)| n == "spin" && k == "function" && f == "comm.f90" && *l == spin),
        "no function spin at comm.f90:{spin}: {got:#?}"
    );
    assert!(
        got.iter()
            .all(|(_, k, f, _)| !k.starts_with("mpi_") || f == "comm.f90"),
        "{got:#?}"
    );
}

#[test]
fn a_source_with_a_directive_error_is_compiled_as_written() {
    let tmp = TestDir::new("wrap-bad");
    std::fs::write(
        tmp.join("bad.c"),
        "int f(void)\n{\n#pragma regio begin never_ended\n    return 1;\n}\n",
    )
    .expect("write bad.c");
    let r = run_ok(
        Command::new(instrument_bin())
            .current_dir(tmp.path())
            .args(["wrap", "gcc", "-c", "bad.c"]),
    );
    assert!(r.stderr.contains("bad.c:3:"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("bad.c is compiled as written (not measured)"),
        "{}",
        r.stderr
    );
    assert!(tmp.join("bad.o").is_file());
}

/// A recursive build compiles in several directories: with REGIO_WRAP_DIR
/// they share one IDF, so the library's and the program's ids differ and
/// the profile names both files.
#[test]
fn compiles_in_several_directories_share_the_idf_of_regio_wrap_dir() {
    let tmp = TestDir::new("wrap-dirs");
    let root = tmp.join("proj");
    copy_tree(&testdata().join("wrap/make"), &root);
    // The Fortran part is left out: a C library and program of their own.
    let main = std::fs::read_to_string(root.join("app/main.c")).expect("main.c");
    std::fs::write(
        root.join("app/main.c"),
        main.replace("stats_mean(x, 1000)", "x[999] / 2"),
    )
    .expect("edit main.c");
    let wrap_gcc = |dir: &str, args: &[&str]| {
        run_ok(
            Command::new(instrument_bin())
                .current_dir(root.join(dir))
                .env("REGIO_WRAP_DIR", &root)
                .args(["wrap", "gcc", "-O2", "-std=c99", "-fopenmp", "-DSCALE=3"])
                .args(args),
        )
    };
    wrap_gcc("lib", &["-c", "vec.c"]);
    wrap_gcc("app", &["-I../lib", "-c", "main.c"]);
    wrap_gcc(".", &["app/main.o", "lib/vec.o", "-o", "prog", "-lm"]);
    assert!(!root.join("lib/regio.idf.json").exists());
    assert!(!root.join("app/regio.idf.json").exists());
    let idf = regio_idf::Idf::read(&root.join("regio.idf.json")).unwrap_or_else(|e| panic!("{e}"));
    let files: BTreeSet<&str> = idf.header.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, BTreeSet::from(["app/main.c", "lib/vec.c"]));
    run_ok(Command::new(root.join("prog")).current_dir(&root));
    let got = nodes(&run_dir_in(&root));
    for (name, file) in [("main", "app/main.c"), ("vec_sum", "lib/vec.c")] {
        assert!(
            got.iter().any(|(n, _, f, _)| n == name && f == file),
            "{name} in {file} missing: {got:#?}"
        );
    }
}

/// Fortran's dependency file comes from the compile of the copy with the
/// copy's name replaced: the same file as the plain compile's.
#[test]
fn a_fortran_dependency_file_is_the_plain_compilers() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("wrap-fdeps");
    std::fs::create_dir_all(tmp.join("src")).expect("mkdir");
    std::fs::write(
        tmp.join("src/m.F90"),
        "subroutine s(x)\n  real :: x\n#include \"k.h\"\n  x = x * K\nend subroutine s\n",
    )
    .expect("write m.F90");
    std::fs::write(tmp.join("src/k.h"), "#define K 2.0\n").expect("write k.h");
    let args = ["-cpp", "-MD", "-c", "src/m.F90", "-o", "m.o"];
    run_ok(Command::new("gfortran").current_dir(tmp.path()).args(args));
    let plain = std::fs::read_to_string(tmp.join("m.d")).expect("m.d");
    std::fs::remove_file(tmp.join("m.d")).expect("rm m.d");
    run_ok(
        Command::new(instrument_bin())
            .current_dir(tmp.path())
            .args(["wrap", "gfortran"])
            .args(args),
    );
    let ours = std::fs::read_to_string(tmp.join("m.d")).expect("m.d");
    assert_eq!(ours, plain);
    assert!(ours.contains("src/k.h"), "{ours}");
}

/// Builds that cannot pass options to the wrapper set
/// `REGIO_WRAP_REGIONS` and `REGIO_WRAP_FILTER`: the build's IDF holds
/// the regions they select, here without the filter's excluded function.
/// The options `--regions` and `--filter` (before the compiler) select
/// the same.
#[test]
fn regio_wrap_regions_and_filter_select_the_regions_of_a_build() {
    let tmp = TestDir::new("wrap-filter");
    copy_tree(&testdata().join("wrap/make/lib"), tmp.path());
    std::fs::write(tmp.join("filter.txt"), "exclude region vec_scaled\n").expect("filter");
    let by_env = |filter: Option<&str>, c: &mut Command| {
        c.env("REGIO_WRAP_REGIONS", "functions").arg("wrap");
        if let Some(f) = filter {
            c.env("REGIO_WRAP_FILTER", tmp.join(f));
        }
    };
    let by_options = |filter: Option<&str>, c: &mut Command| {
        c.env_remove("REGIO_WRAP_REGIONS")
            .env_remove("REGIO_WRAP_FILTER")
            .args(["wrap", "--regions", "functions"]);
        if let Some(f) = filter {
            c.arg("--filter").arg(tmp.join(f));
        }
    };
    let functions_with = |how: &dyn Fn(Option<&str>, &mut Command),
                          filter: Option<&str>,
                          build: &str|
     -> BTreeSet<String> {
        let dir = tmp.join(build);
        std::fs::create_dir_all(&dir).expect("build dir");
        let mut c = Command::new(instrument_bin());
        c.current_dir(tmp.path()).env("REGIO_WRAP_DIR", &dir);
        how(filter, &mut c);
        run_ok(
            c.args(["gcc", "-O2", "-fopenmp", "-DSCALE=3", "-c", "vec.c"])
                .args(["-o", &format!("{build}/vec.o")]),
        );
        let idf =
            regio_idf::Idf::read(&dir.join("regio.idf.json")).unwrap_or_else(|e| panic!("{e}"));
        idf.regions
            .iter()
            .map(|r| format!("{} {}", r.kind, r.name))
            .collect()
    };
    let all = functions_with(&by_env, None, "all");
    assert_eq!(
        all,
        BTreeSet::from([
            "function vec_scaled".to_string(),
            "function vec_sum".to_string()
        ]),
        "REGIO_WRAP_REGIONS=functions: the two functions, no loop or OpenMP region"
    );
    let filtered = functions_with(&by_env, Some("filter.txt"), "filtered");
    assert_eq!(filtered, BTreeSet::from(["function vec_sum".to_string()]));
    assert_eq!(functions_with(&by_options, None, "opt-all"), all);
    assert_eq!(
        functions_with(&by_options, Some("filter.txt"), "opt-filtered"),
        filtered
    );
}

/// `instrument wrap mpicxx`: a C++ MPI program whose C part is compiled
/// with `instrument wrap mpicc`. The wrapper does not instrument C++ (a C++
/// driver compiles even `.c` files as C++): the C++ compile runs as
/// written, the C++ link gets the runtime, and the C part linked in is
/// measured (its function and MPI regions, at halo.c), nothing at
/// main.cpp. Output equal to the plain build's on 2 ranks.
#[test]
fn a_cxx_mpi_program_links_the_runtime_with_wrapped_mpicxx_and_measures_its_c_part() {
    if !(require_tool("mpicc", "libopenmpi-dev")
        && require_tool("mpicxx", "libopenmpi-dev")
        && require_tool("mpirun", "openmpi-bin")
        && require_tool("make", "make"))
    {
        return;
    }
    let tmp = TestDir::new("wrap-mpicxx");
    let mpirun = |dir: &Path| mpirun_on_2(dir, &dir.join("prog"));
    let plain = tmp.join("plain");
    copy_tree(&testdata().join("wrap/mpicxx"), &plain);
    make(&plain, &["-s"]);
    let plain_out = mpirun(&plain);
    assert!(plain_out.contains("ranks 2"), "{plain_out}");

    let src = tmp.join("wrapped");
    copy_tree(&testdata().join("wrap/mpicxx"), &src);
    let cc = format!("CC={}", wrapped("mpicc"));
    let cxx = format!("CXX={}", wrapped("mpicxx"));
    make(&src, &["-s", &cc, &cxx]);
    // The C++ object is the plain compiler's, byte for byte.
    let obj = |dir: &Path| std::fs::read(dir.join("main.o")).expect("main.o");
    assert_eq!(
        obj(&src),
        obj(&plain),
        "main.o differs: the C++ compile was changed"
    );
    assert_eq!(mpirun(&src), plain_out);

    let got = nodes(&run_dir_in(&src));
    let halo = line_of(&src, "halo.c", "double halo_steps");
    assert!(
        got.iter().any(|(n, k, f, l)| n == "halo_steps"
            && k == "function"
            && f == "halo.c"
            && *l == halo),
        "no function halo_steps at halo.c:{halo}: {got:#?}"
    );
    let kinds: BTreeSet<&str> = got
        .iter()
        .filter(|(_, _, f, _)| f == "halo.c")
        .map(|(_, k, _, _)| k.as_str())
        .collect();
    for k in ["mpi_sendrecv", "mpi_allreduce"] {
        assert!(kinds.contains(k), "no {k} at halo.c: {got:#?}");
    }
    assert!(
        got.iter().all(|(_, _, f, _)| !f.contains("main.cpp")),
        "a region at main.cpp: {got:#?}"
    );

    // A `.c` file given to the C++ driver is C++: compiled as written.
    std::fs::write(
        src.join("both.c"),
        "extern \"C\" int both(void) { return 1; }\n",
    )
    .expect("write both.c");
    let r = run_ok(
        Command::new(instrument_bin())
            .current_dir(&src)
            .args(["wrap", "mpicxx", "-c", "both.c", "-o", "both.o"]),
    );
    assert!(src.join("both.o").is_file(), "{}", r.describe());
    let idf = std::fs::read_to_string(src.join("regio.idf.json")).expect("build IDF");
    assert!(!idf.contains("both.c"), "both.c was instrumented: {idf}");
}

/// `cc -E` writes line markers inside an expression around a system
/// header's macro (`fp == NULL`, `!= EOF`, `fprintf(stderr, ...)`): the
/// wrapper's preprocessed path measures these functions (it left each of
/// them as written, "the C parser cannot read `if`", found on NPB's LU),
/// the copy keeps the markers (so the program's lines stay right), and the
/// wrapped program prints and exits as the plain one.
#[test]
fn functions_using_system_macros_inside_statements_are_measured() {
    let tmp = TestDir::new("wrap-sysmacros");
    copy_tree(&testdata().join("wrap/sysmacros"), tmp.path());
    let plain = tmp.join("plain");
    let build = |cmd: &mut Command| run_ok(cmd.current_dir(tmp.path()));
    build(
        Command::new("gcc")
            .args(["-O2", "-Wall", "reader.c", "-o"])
            .arg(&plain),
    );
    let wrapped_build = build(
        Command::new(instrument_bin())
            .args([
                "wrap",
                "--regions",
                "all",
                "gcc",
                "-O2",
                "-Wall",
                "reader.c",
                "-o",
            ])
            .arg(tmp.join("reader")),
    );
    assert!(
        !wrapped_build.stderr.contains("not measured") && !wrapped_build.stderr.contains("warning"),
        "{}",
        wrapped_build.describe()
    );
    let input = ["reader.c", "reader.c"];
    let p = run(Command::new(&plain).current_dir(tmp.path()).args(input));
    let w = run(Command::new(tmp.join("reader"))
        .current_dir(tmp.path())
        .args(input));
    assert_eq!(
        (p.status.code(), &p.stdout, &p.stderr),
        (w.status.code(), &w.stdout, &w.stderr)
    );
    let got = nodes(&run_dir_in(tmp.path()));
    for (name, kind, text) in [
        ("count_lines", "function", "static int count_lines"),
        ("report", "function", "static void report"),
        ("main", "program", "int main"),
        ("fprintf", "io", "fprintf(stderr"),
    ] {
        let line = line_of(tmp.path(), "reader.c", text);
        assert!(
            got.iter().any(|(n, k, f, l)| n == name
                && k == kind
                && f.ends_with("reader.c")
                && *l == line),
            "{name} ({kind}) at reader.c:{line} missing from {got:?}"
        );
    }
}

/// A compile-and-link with `-MD` and `-o` (`gcc -MD m.c -o sub/prog.x`):
/// GCC names the dependency file after `-o` (`sub/prog.d`, rule target
/// `sub/prog.x`); the wrapped command writes the same file, byte for byte,
/// naming the original source and header, for C (the separate `-M` run)
/// and Fortran (the copy's file rewritten). It wrote `m.d` (target
/// `m.o`) before, and left Fortran's file naming the temporary copy.
#[test]
fn a_compile_and_link_dependency_file_is_the_plain_compilers() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("wrap-link-deps");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    std::fs::write(dir.join("m.h"), "#define ANSWER 42\n").expect("m.h");
    std::fs::write(
        dir.join("m.c"),
        "#include <stdio.h>\n#include \"m.h\"\n\nint main(void)\n{\n    for (int i = 0; i < 2; i++)\n        printf(\"%d\\n\", ANSWER + i);\n    return 0;\n}\n",
    )
    .expect("m.c");
    std::fs::write(dir.join("k.h"), "#define K 2\n").expect("k.h");
    std::fs::write(
        dir.join("f.F90"),
        "program f\n  integer :: i\n#include \"k.h\"\n  do i = 1, K\n    print '(i0)', i\n  end do\nend program f\n",
    )
    .expect("f.F90");
    for (compiler, args, dep, exe) in [
        (
            "gcc",
            &["-MD", "m.c", "-o", "sub/prog.x"][..],
            "sub/prog.d",
            "sub/prog.x",
        ),
        (
            "gfortran",
            &["-cpp", "-MD", "f.F90", "-o", "fprog"][..],
            "fprog.d",
            "fprog",
        ),
    ] {
        run_ok(Command::new(compiler).current_dir(dir).args(args));
        let plain = std::fs::read_to_string(dir.join(dep)).unwrap_or_else(|e| panic!("{dep}: {e}"));
        let plain_out = run_ok(&mut Command::new(dir.join(exe))).stdout;
        std::fs::remove_file(dir.join(dep)).expect("remove the plain dependency file");
        let r = run_ok(
            Command::new(instrument_bin())
                .current_dir(dir)
                .arg("wrap")
                .arg(compiler)
                .args(args),
        );
        let ours = std::fs::read_to_string(dir.join(dep)).unwrap_or_else(|e| {
            panic!(
                "{dep} not written by the wrapped build: {e}; {}",
                r.describe()
            )
        });
        assert_eq!(ours, plain, "{compiler}: {dep}");
        let header = if compiler == "gcc" { "m.h" } else { "k.h" };
        assert!(ours.contains(header), "{dep}: {ours}");
        let out = run_ok(Command::new(dir.join(exe)).current_dir(dir)).stdout;
        assert_eq!(out, plain_out, "{compiler}: output");
    }
    // Both were built by the wrapper: their sources are in the build's IDF.
    let idf = regio_idf::Idf::read(&dir.join("regio.idf.json")).unwrap_or_else(|e| panic!("{e}"));
    let files: BTreeSet<&str> = idf.header.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, BTreeSet::from(["f.F90", "m.c"]));
}
