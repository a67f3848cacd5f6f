//! Region ids unique across objects (SPEC.md "Compiler wrapper": "Region
//! ids are unique across every object and library linked into one program,
//! however they were instrumented"). An application, a library and a plugin
//! loaded with `dlopen` (`testdata/objects/`) are instrumented separately,
//! so their local region ids overlap, and linked with the library as an
//! archive or as a shared library, instrumented by three `instrument` calls
//! or three wrapped builds with build directories of their own. The report
//! must name every region with its file and line and count its calls; the
//! probes `app_early` runs from a constructor before the application's IDF
//! is registered are counted under ids of no IDF.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::cmd::{sigkill, spawn_until_ready};
use crate::common::report::{only_run, report_json, visit};
use crate::common::{
    copy_tree, instrument_bin, instrument_flags, require_tool, run_ok, testdata, TestDir,
};

/// How the three parts are instrumented.
#[derive(Clone, Copy, Debug)]
enum Instrumented {
    /// `instrument SRC --out OUT` per part.
    Tree,
    /// `instrument wrap cc ...` per part, each with its own REGIO_WRAP_DIR.
    Wrap,
}

/// How the library is linked into the application.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Library {
    Archive,
    Shared,
}

fn cc() -> String {
    crate::common::cc()
}

/// The 1-based line of `file` that holds `text`.
fn line_of(file: &Path, text: &str) -> u64 {
    let src = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    src.lines()
        .position(|l| l.contains(text))
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("{} has no line with `{text}`", file.display()))
}

/// Runs `cmd` (a compiler or `instrument wrap` command) in `dir`.
fn build(dir: &Path, program: &str, args: &[String], wrap_dir: Option<&Path>) {
    let mut c = match wrap_dir {
        Some(w) => {
            let mut c = Command::new(instrument_bin());
            c.env("REGIO_WRAP_DIR", w).arg("wrap").arg(program);
            c
        }
        None => Command::new(program),
    };
    run_ok(c.current_dir(dir).args(args));
}

fn s(x: impl AsRef<Path>) -> String {
    x.as_ref().display().to_string()
}

/// Builds `app` (and `libobjlib.*`, `plugin.so`) in `tmp/<label>` from the
/// parts in `src`, plain or measured: returns the program and the plugin.
fn build_all(
    tmp: &TestDir,
    label: &str,
    how: Option<Instrumented>,
    lib: Library,
) -> (PathBuf, PathBuf) {
    let src = tmp.join("src");
    let out = tmp.join(label);
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    // Where each part's sources are compiled from, and whether the
    // compiler is wrapped (with the part's own build directory).
    let part = |name: &str| -> (PathBuf, Option<PathBuf>) {
        match how {
            None => (src.join(name), None),
            Some(Instrumented::Tree) => {
                let inst = out.join(format!("inst-{name}"));
                run_ok(
                    Command::new(instrument_bin())
                        .arg(src.join(name))
                        .arg("--out")
                        .arg(&inst)
                        .args(["--regions", "functions,loops"]),
                );
                (inst, None)
            }
            Some(Instrumented::Wrap) => {
                let w = out.join(format!("wrapdir-{name}"));
                std::fs::create_dir_all(&w).unwrap_or_else(|e| panic!("{e}"));
                (src.join(name), Some(w))
            }
        }
    };
    let cflags: Vec<String> = if matches!(how, Some(Instrumented::Tree)) {
        instrument_flags("--cflags")
    } else {
        Vec::new()
    };
    let libs: Vec<String> = if matches!(how, Some(Instrumented::Tree)) {
        instrument_flags("--libs")
    } else {
        Vec::new()
    };
    let (lib_dir, lib_wrap) = part("lib");
    let (plugin_dir, plugin_wrap) = part("plugin");
    let (app_dir, app_wrap) = part("app");
    let c = cc();

    // The library.
    let lib_src = s(lib_dir.join("objlib.c"));
    match lib {
        Library::Archive => {
            let obj = s(out.join("objlib.o"));
            let mut a = cflags.clone();
            a.extend(["-O1".into(), "-c".into(), lib_src, "-o".into(), obj.clone()]);
            build(&lib_dir, &c, &a, lib_wrap.as_deref());
            run_ok(Command::new("ar").args(["rcs", &s(out.join("libobjlib.a")), &obj]));
        }
        Library::Shared => {
            let mut a = cflags.clone();
            a.extend([
                "-O1".into(),
                "-fPIC".into(),
                "-shared".into(),
                lib_src,
                "-o".into(),
                s(out.join("libobjlib.so")),
            ]);
            a.extend(libs.clone());
            build(&lib_dir, &c, &a, lib_wrap.as_deref());
        }
    }

    // The plugin.
    let plugin = out.join("plugin.so");
    let mut a = cflags.clone();
    a.extend([
        "-O1".into(),
        "-fPIC".into(),
        "-shared".into(),
        s(plugin_dir.join("plugin.c")),
        "-o".into(),
        s(&plugin),
    ]);
    a.extend(libs.clone());
    build(&plugin_dir, &c, &a, plugin_wrap.as_deref());

    // The application.
    let app = out.join("app");
    let mut a = cflags;
    a.extend([
        "-O1".into(),
        format!("-I{}", s(src.join("lib"))),
        s(app_dir.join("app.c")),
        format!("-L{}", s(&out)),
        "-lobjlib".into(),
        format!("-Wl,-rpath,{}", s(&out)),
        "-ldl".into(),
        "-o".into(),
        s(&app),
    ]);
    a.extend(libs);
    build(&app_dir, &c, &a, app_wrap.as_deref());
    (app, plugin)
}

/// Calls per (name, file name, line) over the run's DRG, and the calls of
/// regions no IDF describes, by id.
type Calls = BTreeMap<(String, String, u64), u64>;

fn calls(run_dir: &Path) -> (Calls, BTreeMap<u64, u64>) {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let mut named = Calls::new();
    let mut unnamed = BTreeMap::new();
    visit(run, &mut |n: &Value, _| {
        let name = n["name"].as_str().unwrap_or("").to_string();
        let c = n["calls"].as_u64().unwrap_or(0);
        if let Some(id) = name.strip_prefix("region#") {
            let id: u64 = id.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
            *unnamed.entry(id).or_default() += c;
            return;
        }
        let file = n["file"].as_str().unwrap_or("");
        let file = Path::new(file)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let line = n["line"].as_u64().unwrap_or(0);
        *named.entry((name, file, line)).or_default() += c;
    });
    (named, unnamed)
}

/// Local ids of an IDF.
fn idf_ids(idf: &Path) -> BTreeSet<u32> {
    let idf = regio_idf::Idf::read(idf).unwrap_or_else(|e| panic!("{e}"));
    idf.regions.iter().map(|r| r.id).collect()
}

/// Copies testdata/objects to TMP/src and instruments its parts `lib` and
/// `main` by two separate `instrument` calls (into TMP/inst-PART) with
/// `--regions REGIONS`. The two IDFs must share ids, else a test of
/// separate objects tests nothing. Returns the copy and the two outputs.
fn instrument_parts_separately(
    tmp: &TestDir,
    regions: &str,
    lib: &str,
    main: &str,
) -> (PathBuf, PathBuf, PathBuf) {
    let src = tmp.join("src");
    copy_tree(&testdata().join("objects"), &src);
    let inst = |part: &str| {
        let out = tmp.join(format!("inst-{part}"));
        run_ok(
            Command::new(instrument_bin())
                .arg(src.join(part))
                .arg("--out")
                .arg(&out)
                .args(["--regions", regions]),
        );
        out
    };
    let (lib, main) = (inst(lib), inst(main));
    let ids = [
        idf_ids(&lib.join("regio.idf.json")),
        idf_ids(&main.join("regio.idf.json")),
    ];
    assert!(
        ids[0].intersection(&ids[1]).next().is_some(),
        "the parts' ids do not overlap: the test tests nothing"
    );
    (src, lib, main)
}

fn check(how: Instrumented, lib: Library) {
    if !require_tool("ar", "binutils") {
        return;
    }
    let tmp = TestDir::new(&format!("objects-{how:?}-{lib:?}").to_lowercase());
    let src = tmp.join("src");
    copy_tree(&testdata().join("objects"), &src);

    let (plain, plain_plugin) = build_all(&tmp, "plain", None, lib);
    let want_out = run_ok(Command::new(&plain).arg(&plain_plugin)).stdout;
    let (app, plugin) = build_all(&tmp, "measured", Some(how), lib);
    let run_dir = tmp.join("run");
    let got_out = run_ok(Command::new(&app).env("REGIO_DIR", &run_dir).arg(&plugin)).stdout;
    assert_eq!(got_out, want_out, "the measured program's output differs");

    // The parts were instrumented separately: their local ids overlap.
    let idfs: Vec<PathBuf> = match how {
        Instrumented::Tree => ["app", "lib", "plugin"]
            .iter()
            .map(|p| tmp.join(format!("measured/inst-{p}/regio.idf.json")))
            .collect(),
        Instrumented::Wrap => ["app", "lib", "plugin"]
            .iter()
            .map(|p| tmp.join(format!("measured/wrapdir-{p}/regio.idf.json")))
            .collect(),
    };
    let ids: Vec<BTreeSet<u32>> = idfs.iter().map(|p| idf_ids(p)).collect();
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            assert!(
                a.intersection(b).next().is_some(),
                "the parts' ids do not overlap ({a:?} / {b:?}): the test tests nothing"
            );
        }
    }
    let copies = std::fs::read_dir(&run_dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("regio.idf-") && n.ends_with(".json")
        })
        .count();
    assert_eq!(copies, 3, "one IDF copy per part in the run directory");

    let (named, unnamed) = calls(&run_dir);
    let at = |part: &str, file: &str, text: &str| line_of(&src.join(part).join(file), text);
    let want = [
        ("main", "app.c", at("app", "app.c", "int main("), 1),
        (
            "app_step",
            "app.c",
            at("app", "app.c", "static int app_step"),
            3,
        ),
        (
            "lib_work",
            "objlib.c",
            at("lib", "objlib.c", "int lib_work"),
            3,
        ),
        (
            "lib_helper",
            "objlib.c",
            at("lib", "objlib.c", "static int lib_helper"),
            12,
        ),
        (
            "plugin_run",
            "plugin.c",
            at("plugin", "plugin.c", "int plugin_run"),
            2,
        ),
        (
            "plugin_inner",
            "plugin.c",
            at("plugin", "plugin.c", "static int plugin_inner"),
            7,
        ),
    ];
    let mut problems = call_problems(&named, &want);
    // Every named region belongs to the file it names (no id of one part
    // was read as another part's).
    for (name, file, _) in named.keys() {
        let expected = match name.split('_').next() {
            Some("app") | Some("main") => "app.c",
            Some("lib") => "objlib.c",
            Some("plugin") => "plugin.c",
            _ => continue, // loops: named after their line
        };
        if file != expected {
            problems.push(format!("{name} named in {file}"));
        }
    }
    // app_early and its call of app_step, before the application's
    // constructor registered its IDF: counted, under ids of no IDF.
    let unregistered = u64::from(regio_idf::rundir::UNREGISTERED_BASE);
    let early: u64 = unnamed
        .iter()
        .filter(|(&id, _)| id >= unregistered)
        .map(|(_, c)| c)
        .sum();
    if early != 2 {
        problems.push(format!(
            "expected 2 calls before registration (app_early, app_step), got {unnamed:?}"
        ));
    }
    if unnamed.keys().any(|&id| id < unregistered) {
        problems.push(format!("regions without description: {unnamed:?}"));
    }
    assert!(problems.is_empty(), "{}\n{named:#?}", problems.join("\n"));

    // The score reads the run through the same mapping.
    let score = run_ok(Command::new(instrument_bin()).arg("score").arg(&run_dir)).stdout;
    for name in ["lib_helper", "plugin_inner", "app_step"] {
        assert!(score.contains(name), "score lacks {name}:\n{score}");
    }
}

#[test]
fn separately_instrumented_trees_with_an_archive_and_a_plugin() {
    check(Instrumented::Tree, Library::Archive);
}

#[test]
fn separately_instrumented_trees_with_a_shared_library_and_a_plugin() {
    check(Instrumented::Tree, Library::Shared);
}

#[test]
fn separate_wrapped_builds_with_an_archive_and_a_plugin() {
    check(Instrumented::Wrap, Library::Archive);
}

#[test]
fn separate_wrapped_builds_with_a_shared_library_and_a_plugin() {
    check(Instrumented::Wrap, Library::Shared);
}

/// A Fortran program (its IDF registered without a base, as Fortran does)
/// and the C library instrumented separately (with a base), overlapping
/// local ids: both parts' regions are named and counted.
#[test]
fn a_fortran_program_with_a_separately_instrumented_c_library() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("objects-fortran");
    let (src, lib, fortran) =
        instrument_parts_separately(&tmp, "functions,loops", "lib", "fortran");
    let libs = instrument_flags("--libs");
    let so = tmp.join("libobjlib.so");
    let mut a: Vec<String> = vec!["-O1".into(), "-fPIC".into(), "-shared".into()];
    a.extend([s(lib.join("objlib.c")), "-o".into(), s(&so)]);
    a.extend(libs.clone());
    build(tmp.path(), &cc(), &a, None);
    let exe = tmp.join("fmain");
    let link = |source: &Path, out: &Path, extra: &[String]| {
        let mut a: Vec<String> = vec!["-O1".into(), s(source)];
        a.extend([
            format!("-L{}", s(tmp.path())),
            "-lobjlib".into(),
            format!("-Wl,-rpath,{}", s(tmp.path())),
            "-o".into(),
            s(out),
        ]);
        a.extend(extra.iter().cloned());
        build(tmp.path(), "gfortran", &a, None);
    };
    link(&fortran.join("fmain.f90"), &exe, &libs);
    let run_dir = tmp.join("run");
    let got = run_ok(Command::new(&exe).env("REGIO_DIR", &run_dir)).stdout;
    // 3 x lib_work(4) = 3 x 16, plus f_step(0..2) = -1 + 0 + 1.
    assert_eq!(got.trim(), "total 48");

    let (named, unnamed) = calls(&run_dir);
    let at = |part: &str, file: &str, text: &str| line_of(&src.join(part).join(file), text);
    let want = [
        (
            "f_step",
            "fmain.f90",
            at("fortran", "fmain.f90", "integer function f_step"),
            3,
        ),
        (
            "lib_work",
            "objlib.c",
            at("lib", "objlib.c", "int lib_work"),
            3,
        ),
        (
            "lib_helper",
            "objlib.c",
            at("lib", "objlib.c", "static int lib_helper"),
            12,
        ),
    ];
    let mut problems = call_problems(&named, &want);
    if !named
        .keys()
        .any(|(n, f, _)| n == "fmain" && f == "fmain.f90")
    {
        problems.push("program fmain missing".into());
    }
    if !unnamed.is_empty() {
        problems.push(format!("regions without description: {unnamed:?}"));
    }
    assert!(problems.is_empty(), "{}\n{named:#?}", problems.join("\n"));
}

/// A wrapped compile whose regions would take the build's ids to the
/// limit of one IDF (2^22, the runtime's base stride) fails with an error
/// naming the build's IDF and the count, writes no object and leaves the
/// IDF as it was. The build's IDF is synthetic: one region of another
/// file already holds the last id below the limit.
#[test]
fn a_wrapped_build_past_the_id_limit_is_refused() {
    let tmp = TestDir::new("objects-id-limit");
    let src = tmp.join("src");
    copy_tree(&testdata().join("objects"), &src);
    let wrap_dir = tmp.join("wrapdir");
    std::fs::create_dir_all(&wrap_dir).unwrap_or_else(|e| panic!("{e}"));
    let last = regio_idf::rundir::OBJECT_ID_STRIDE - 1;
    let mut idf = regio_instrumenter::build_idf::empty();
    regio_instrumenter::build_idf::merge(
        &mut idf,
        regio_idf::SourceFile {
            path: "other.c".into(),
            original: "other.c".into(),
            hash: "sha256:0".into(),
            lines: 3,
            max_line_len: 20,
        },
        vec![regio_idf::Region {
            id: last,
            kind: regio_idf::RegionKind::Function,
            name: "other".into(),
            file: "other.c".into(),
            unit: "other".into(),
            start: regio_idf::Pos::new(1, 1),
            end: regio_idf::Pos::new(3, 1),
            parent: None,
            aux: Default::default(),
        }],
    );
    let idf_file = std::fs::canonicalize(&wrap_dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .join("regio.idf.json");
    std::fs::write(&idf_file, idf.to_json()).unwrap_or_else(|e| panic!("{e}"));
    let obj = tmp.join("objlib.o");
    let lib = src.join("lib");
    let r = crate::common::run(
        Command::new(instrument_bin())
            .env("REGIO_WRAP_DIR", &wrap_dir)
            .current_dir(&lib)
            .args(["wrap", &cc(), "-c", "objlib.c", "-o"])
            .arg(&obj),
    );
    assert!(!r.status.success(), "{}", r.describe());
    let want = format!("{}: error: ", idf_file.display());
    assert!(
        r.stderr.contains(&want) && r.stderr.contains("regions need ids up to"),
        "{}",
        r.describe()
    );
    assert!(!obj.exists(), "an object was written");
    let after = std::fs::read_to_string(&idf_file).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(after, idf.to_json(), "the build's IDF changed");
}

/// A traced program of two separately instrumented parts (overlapping
/// local ids, both registered with a base) killed with SIGKILL writes no
/// profile, so no `idfs` table: `instrument export` maps its ids with the
/// registrations the runtime recorded in the run directory when they
/// happened, and names every region without `--idf`.
#[test]
fn a_sigkilled_trace_of_two_objects_is_exported_with_region_names() {
    let tmp = TestDir::new("objects-killed");
    let (src, lib, main) = instrument_parts_separately(&tmp, "functions", "lib", "killed");
    let cflags = instrument_flags("--cflags");
    let libs = instrument_flags("--libs");
    let obj = tmp.join("objlib.o");
    let mut a = cflags.clone();
    a.extend([
        "-O1".into(),
        "-c".into(),
        s(lib.join("objlib.c")),
        "-o".into(),
    ]);
    a.push(s(&obj));
    build(tmp.path(), &cc(), &a, None);
    let exe = tmp.join("killed");
    let mut a = cflags;
    a.extend([
        "-O1".into(),
        format!("-I{}", s(src.join("lib"))),
        s(main.join("killed_main.c")),
        s(&obj),
        "-o".into(),
        s(&exe),
    ]);
    a.extend(libs);
    build(tmp.path(), &cc(), &a, None);

    let run_dir = tmp.join("run");
    let mut cmd = Command::new(&exe);
    cmd.env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env("REGIO_MODE", "trace")
        .env("REGIO_TRACE_BUFFER", "64K")
        .env("REGIO_DIR", &run_dir);
    crate::common::cmd::measure_everything(&mut cmd);
    sigkill(spawn_until_ready(&mut cmd));
    let names: Vec<String> = std::fs::read_dir(&run_dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("profile-")),
        "a profile was written: {names:?}"
    );
    let recorded: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with(regio_idf::rundir::OBJECTS_PREFIX))
        .collect();
    assert_eq!(recorded.len(), 1, "{names:?}");
    let text = std::fs::read_to_string(run_dir.join(recorded[0])).unwrap_or_else(|e| panic!("{e}"));
    let bases: BTreeSet<u32> = text
        .lines()
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(bases.len(), 2, "two IDFs, each with a base: {text}");
    assert!(bases.iter().all(|&b| b > 0), "{text}");

    // The trace files hold at least the first flushed blocks (64K holds
    // ~20000 records): enough to have entered every region.
    let export = |dir: &Path| -> BTreeMap<String, u64> {
        let out = tmp.join("t.json");
        run_ok(
            Command::new(instrument_bin())
                .args(["export", "--format", "perfetto"])
                .arg(dir)
                .arg("--out")
                .arg(&out),
        );
        let json = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
        let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        let mut entered: BTreeMap<String, u64> = BTreeMap::new();
        for e in v["traceEvents"].as_array().into_iter().flatten() {
            if e["ph"] == "B" {
                let name = e["name"].as_str().unwrap_or("").to_string();
                *entered.entry(name).or_default() += 1;
            }
        }
        entered
    };
    let entered = export(&run_dir);
    let unnamed: Vec<&String> = entered.keys().filter(|n| n.contains("region#")).collect();
    assert!(unnamed.is_empty(), "unnamed: {entered:?}");
    for want in ["main", "killed_step", "lib_work", "lib_helper"] {
        assert!(
            entered
                .keys()
                .any(|n| n == want || n.starts_with(&format!("{want} "))),
            "{want} missing: {entered:?}"
        );
    }
    // Without the recorded registrations the same traces name nothing:
    // the names above came from them.
    std::fs::remove_file(run_dir.join(recorded[0])).unwrap_or_else(|e| panic!("{e}"));
    let bare = export(&run_dir);
    assert!(
        bare.keys().all(|n| n.contains("region#")),
        "named without the registrations: {bare:?}"
    );
    assert_eq!(
        bare.values().sum::<u64>(),
        entered.values().sum::<u64>(),
        "the same events"
    );
}

/// Which program uses the separately instrumented Fortran library.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FortranMain {
    /// `fprog/fprog.f90`, a Fortran program (instrumented on its own).
    Fortran,
    /// `cmain/cmain.c`, a C program: no Fortran main program registers
    /// anything, the library's procedures register its IDF themselves.
    C,
}

/// Two Fortran parts instrumented separately (a library of a fixed-form
/// file and a free-form module, and a program; their local ids overlap),
/// or the library with a C program, linked with the library as an
/// archive or a shared library: every region is named with its file and
/// line and counted, nothing is left as `region#<id>`.
fn check_fortran(main: FortranMain, lib: Library) {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new(&format!("objects-fortran-{main:?}-{lib:?}").to_lowercase());
    let main_part = match main {
        FortranMain::Fortran => "fprog",
        FortranMain::C => "cmain",
    };
    let (src, flib, prog) = instrument_parts_separately(&tmp, "functions", "flib", main_part);
    let libs = instrument_flags("--libs");
    let mods = tmp.join("mod");
    std::fs::create_dir_all(&mods).unwrap_or_else(|e| panic!("{e}"));
    let sources = [s(flib.join("flmod.f90")), s(flib.join("flib.f"))];
    let dir = tmp.path();
    match lib {
        Library::Archive => {
            let mut objs = Vec::new();
            for (k, source) in sources.iter().enumerate() {
                let obj = s(tmp.join(format!("flib{k}.o")));
                let a: Vec<String> = vec![
                    "-O1".into(),
                    "-c".into(),
                    format!("-J{}", s(&mods)),
                    source.clone(),
                    "-o".into(),
                    obj.clone(),
                ];
                build(dir, "gfortran", &a, None);
                objs.push(obj);
            }
            let mut a = vec!["rcs".to_string(), s(tmp.join("libflib.a"))];
            a.extend(objs);
            run_ok(Command::new("ar").args(&a));
        }
        Library::Shared => {
            let mut a: Vec<String> = vec![
                "-O1".into(),
                "-fPIC".into(),
                "-shared".into(),
                format!("-J{}", s(&mods)),
            ];
            a.extend(sources.iter().cloned());
            a.extend(["-o".into(), s(tmp.join("libflib.so"))]);
            a.extend(libs.clone());
            build(dir, "gfortran", &a, None);
        }
    }
    let exe = tmp.join("prog");
    let link_lib = [
        format!("-L{}", s(dir)),
        "-lflib".into(),
        format!("-Wl,-rpath,{}", s(dir)),
        "-o".into(),
        s(&exe),
    ];
    match main {
        FortranMain::Fortran => {
            let mut a: Vec<String> = vec![
                "-O1".into(),
                format!("-I{}", s(&mods)),
                s(prog.join("fprog.f90")),
            ];
            a.extend(link_lib.iter().cloned());
            a.extend(libs.iter().cloned());
            build(dir, "gfortran", &a, None);
        }
        FortranMain::C => {
            let mut a = instrument_flags("--cflags");
            a.extend(["-O1".into(), s(prog.join("cmain.c"))]);
            a.extend(link_lib.iter().cloned());
            a.push("-lgfortran".into());
            a.extend(libs.iter().cloned());
            build(dir, &cc(), &a, None);
        }
    }
    let run_dir = tmp.join("run");
    let got = run_ok(Command::new(&exe).env("REGIO_DIR", &run_dir)).stdout;
    // flwork(4) = 2 * (1 + 2 + 3 + 4) = 20, three times; the Fortran
    // program adds fp_step(1..3) = 0 + 3 + 8.
    let want_total = match main {
        FortranMain::Fortran => "total 71",
        FortranMain::C => "total 60",
    };
    assert_eq!(got.trim(), want_total);

    let (named, unnamed) = calls(&run_dir);
    let at = |part: &str, file: &str, text: &str| line_of(&src.join(part).join(file), text);
    let mut want = vec![
        (
            "FLWORK",
            "flib.f",
            at("flib", "flib.f", "INTEGER FUNCTION FLWORK"),
            3,
        ),
        (
            "FLHELP",
            "flib.f",
            at("flib", "flib.f", "INTEGER FUNCTION FLHELP"),
            12,
        ),
    ];
    match main {
        FortranMain::Fortran => want.extend([
            (
                "fprog",
                "fprog.f90",
                at("fprog", "fprog.f90", "program fprog"),
                1,
            ),
            (
                "fp_step",
                "fprog.f90",
                at("fprog", "fprog.f90", "integer function fp_step"),
                3,
            ),
            (
                "flsquare",
                "flmod.f90",
                at("flib", "flmod.f90", "integer function flsquare"),
                3,
            ),
        ]),
        FortranMain::C => {
            want.push(("main", "cmain.c", at("cmain", "cmain.c", "int main"), 1));
        }
    }
    let mut problems = call_problems(&named, &want);
    if !unnamed.is_empty() {
        problems.push(format!("regions without description: {unnamed:?}"));
    }
    // Two IDFs registered, each with a base of its own.
    let copies = std::fs::read_dir(&run_dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("regio.idf-"))
        .count();
    if copies != 2 {
        problems.push(format!(
            "{copies} IDF copies in the run directory, expected 2"
        ));
    }
    assert!(problems.is_empty(), "{}\n{named:#?}", problems.join("\n"));
}

#[test]
fn two_separately_instrumented_fortran_trees_with_an_archive() {
    check_fortran(FortranMain::Fortran, Library::Archive);
}

#[test]
fn two_separately_instrumented_fortran_trees_with_a_shared_library() {
    check_fortran(FortranMain::Fortran, Library::Shared);
}

#[test]
fn a_separately_instrumented_fortran_library_with_a_c_main() {
    check_fortran(FortranMain::C, Library::Shared);
}

/// The 1-based line of `file` that is `text` (a definition, where a
/// declaration line starts alike).
fn definition_line(file: &Path, text: &str) -> u64 {
    let src = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    src.lines()
        .position(|l| l == text)
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("{} has no line `{text}`", file.display()))
}

/// Which units of the library's tree include its instrumented header.
#[derive(Clone, Copy, Debug)]
enum HeaderUse {
    /// Only the application's unit compiles `hdr_scale` (`sum_plain.c`).
    AppOnly,
    /// The library's unit does too (`sum_inline.c`).
    Both,
}

/// A library whose public header (`testdata/objects/hdrlib/hdrlib.h`) has
/// an inline function with a region, and an application that includes the
/// header from the library's instrumented tree, the two trees instrumented
/// separately (overlapping local ids): the header's region is the
/// library's (named from the library's IDF at the header's file and
/// line), with the calls of every unit that compiled it, whichever unit's
/// base would have been the application's.
fn check_header(use_: HeaderUse) {
    let tmp = TestDir::new(&format!("objects-header-{use_:?}").to_lowercase());
    let (src, lib, app) = instrument_parts_separately(&tmp, "functions", "hdrlib", "hdrapp");
    // The header's region has a local id the application's IDF uses too.
    let lib_idf =
        regio_idf::Idf::read(&lib.join("regio.idf.json")).unwrap_or_else(|e| panic!("{e}"));
    let scale_id = lib_idf
        .regions
        .iter()
        .find(|r| r.name == "hdr_scale")
        .map(|r| r.id)
        .unwrap_or_else(|| panic!("no hdr_scale in the library's IDF"));
    assert!(
        idf_ids(&app.join("regio.idf.json")).contains(&scale_id),
        "hdr_scale's local id {scale_id} is not an id of the application: the test tests nothing"
    );
    let lib_file = match use_ {
        HeaderUse::AppOnly => "sum_plain.c",
        HeaderUse::Both => "sum_inline.c",
    };
    let strict = ["-O1".to_string(), "-Wall".into(), "-Werror".into()];
    let build_pair =
        |lib_dir: &Path, app_dir: &Path, label: &str, flags: &[String], libs: &[String]| {
            let out = tmp.join(label);
            std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
            let mut a: Vec<String> = flags.to_vec();
            a.extend(strict.iter().cloned());
            a.extend(["-fPIC".into(), "-shared".into(), s(lib_dir.join(lib_file))]);
            a.extend(["-o".into(), s(out.join("libhdrlib.so"))]);
            a.extend(libs.iter().cloned());
            build(lib_dir, &cc(), &a, None);
            let exe = out.join("hdrapp");
            let mut a: Vec<String> = flags.to_vec();
            a.extend(strict.iter().cloned());
            a.extend([
                format!("-I{}", s(lib_dir)),
                s(app_dir.join("hdrapp.c")),
                format!("-L{}", s(&out)),
                "-lhdrlib".into(),
                format!("-Wl,-rpath,{}", s(&out)),
                "-o".into(),
                s(&exe),
            ]);
            a.extend(libs.iter().cloned());
            build(app_dir, &cc(), &a, None);
            exe
        };
    let plain = build_pair(&src.join("hdrlib"), &src.join("hdrapp"), "plain", &[], &[]);
    let measured = build_pair(
        &lib,
        &app,
        "measured",
        &instrument_flags("--cflags"),
        &instrument_flags("--libs"),
    );
    let want_out = run_ok(&mut Command::new(&plain)).stdout;
    let run_dir = tmp.join("run");
    let got_out = run_ok(Command::new(&measured).env("REGIO_DIR", &run_dir)).stdout;
    assert_eq!(got_out, want_out, "the measured program's output differs");

    let (named, unnamed) = calls(&run_dir);
    let at = |part: &str, file: &str, text: &str| line_of(&src.join(part).join(file), text);
    let scale_calls = match use_ {
        HeaderUse::AppOnly => 4,
        HeaderUse::Both => 4 + 3,
    };
    let want = [
        ("main", "hdrapp.c", at("hdrapp", "hdrapp.c", "int main("), 1),
        (
            "app_twice",
            "hdrapp.c",
            at("hdrapp", "hdrapp.c", "static int app_twice"),
            4,
        ),
        (
            "hdrlib_sum",
            lib_file,
            definition_line(&src.join("hdrlib").join(lib_file), "int hdrlib_sum(int n)"),
            1,
        ),
        (
            "hdr_scale",
            "hdrlib.h",
            at("hdrlib", "hdrlib.h", "static inline int hdr_scale"),
            scale_calls,
        ),
    ];
    let mut problems = call_problems(&named, &want);
    if named.len() != want.len() {
        problems.push(format!("expected exactly {} regions", want.len()));
    }
    if !unnamed.is_empty() {
        problems.push(format!("regions without description: {unnamed:?}"));
    }
    assert!(problems.is_empty(), "{}\n{named:#?}", problems.join("\n"));
}

#[test]
fn a_library_header_instrumented_in_its_own_tree_keeps_its_ids_in_the_application() {
    check_header(HeaderUse::AppOnly);
}

#[test]
fn a_library_header_included_by_both_trees_is_one_region_of_the_library() {
    check_header(HeaderUse::Both);
}

/// Two ranks of a multi-host run that share a pid (two processes in pid
/// namespaces of their own, `unshare --pid`, with `REGIO_TEST_HOST`
/// standing for their hosts) load the library and the plugin in opposite
/// orders, so each IDF has another base in each process; their profiles
/// are gone (as after SIGKILL), so the export maps ids through the
/// recorded registrations alone: each process's file, named after its
/// host, names its own regions.
#[test]
fn traces_of_two_hosts_sharing_a_pid_map_their_own_registrations() {
    let probe = Command::new("unshare")
        .args(["--pid", "--fork", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        println!("SKIPPED: needs `unshare --pid` (util-linux, and root or user namespaces)");
        return;
    }
    let tmp = TestDir::new("objects-hosts");
    let (src, lib, plugin) = instrument_parts_separately(&tmp, "functions", "lib", "plugin");
    let hosts = tmp.join("inst-hosts");
    run_ok(
        Command::new(instrument_bin())
            .arg(src.join("hosts"))
            .arg("--out")
            .arg(&hosts)
            .args(["--regions", "functions"]),
    );
    let cflags = instrument_flags("--cflags");
    let libs = instrument_flags("--libs");
    let shared = |source: PathBuf, name: &str| -> PathBuf {
        let out = tmp.join(name);
        let mut a = cflags.clone();
        a.extend(["-O1".into(), "-fPIC".into(), "-shared".into(), s(source)]);
        a.extend(["-o".into(), s(&out)]);
        a.extend(libs.clone());
        build(tmp.path(), &cc(), &a, None);
        out
    };
    let lib_so = shared(lib.join("objlib.c"), "libobjlib.so");
    let plugin_so = shared(plugin.join("plugin.c"), "plugin.so");
    let exe = tmp.join("hosts_main");
    let mut a = cflags;
    a.extend(["-O1".into(), s(hosts.join("hosts_main.c")), "-ldl".into()]);
    a.extend(["-o".into(), s(&exe)]);
    a.extend(libs);
    build(tmp.path(), &cc(), &a, None);

    let run_dir = tmp.join("run");
    let (lib_args, plugin_args) = (
        [s(&lib_so), "lib_work".to_string(), "3".to_string()],
        [s(&plugin_so), "plugin_run".to_string(), "5".to_string()],
    );
    for (rank, host, first, second) in [
        ("0", "alpha", &lib_args, &plugin_args),
        ("1", "beta", &plugin_args, &lib_args),
    ] {
        let mut cmd = Command::new("unshare");
        cmd.args(["--pid", "--fork"])
            .arg(&exe)
            .args(first.iter().chain(second.iter()))
            .env_remove("REGIO_EVENTS")
            .env_remove("REGIO_FILTER")
            .env("REGIO_MODE", "trace")
            .env("REGIO_DIR", &run_dir)
            .env("REGIO_TEST_HOST", host)
            .env("OMPI_COMM_WORLD_RANK", rank)
            .env("OMPI_COMM_WORLD_SIZE", "2");
        crate::common::cmd::measure_everything(&mut cmd);
        let out = run_ok(&mut cmd).stdout;
        assert_eq!(out.trim(), "total 34", "rank {rank}");
    }
    let names: Vec<String> = std::fs::read_dir(&run_dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // Both processes had the same pid: two trace files of one pid.
    let pids: BTreeSet<&str> = names
        .iter()
        .filter(|n| n.starts_with("trace-r"))
        .filter_map(|n| n.split('-').nth(2))
        .collect();
    assert_eq!(pids.len(), 1, "the processes' pids differ: {names:?}");
    let recorded: BTreeSet<&String> = names
        .iter()
        .filter(|n| n.starts_with(regio_idf::rundir::OBJECTS_PREFIX))
        .collect();
    let pid = pids.iter().next().copied().unwrap_or_default();
    let want: BTreeSet<String> = ["alpha", "beta"]
        .iter()
        .map(|h| format!("regio.objects-{pid}-{h}.txt"))
        .collect();
    assert_eq!(
        recorded
            .iter()
            .map(|n| n.to_string())
            .collect::<BTreeSet<_>>(),
        want,
        "one objects file per host"
    );
    // No profiles: the export has only the recorded registrations.
    for n in names.iter().filter(|n| n.starts_with("profile-")) {
        std::fs::remove_file(run_dir.join(n)).unwrap_or_else(|e| panic!("{e}"));
    }

    let out = tmp.join("t.json");
    run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "perfetto"])
            .arg(&run_dir)
            .arg("--out")
            .arg(&out),
    );
    let json = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    // Entries per (process, name): every process ran lib_work(3) and
    // plugin_run(5).
    let mut entered: BTreeMap<(u64, String), u64> = BTreeMap::new();
    for e in v["traceEvents"].as_array().into_iter().flatten() {
        if e["ph"] == "B" {
            let name = e["name"].as_str().unwrap_or("");
            let name = name.split(' ').next().unwrap_or("").to_string();
            *entered
                .entry((e["pid"].as_u64().unwrap_or(u64::MAX), name))
                .or_default() += 1;
        }
    }
    let processes: BTreeSet<u64> = entered.keys().map(|(p, _)| *p).collect();
    assert_eq!(processes.len(), 2, "{entered:?}");
    let mut problems = Vec::new();
    for p in processes {
        for (name, calls) in [
            ("main", 1),
            ("lib_work", 1),
            ("lib_helper", 3),
            ("plugin_run", 1),
            ("plugin_inner", 5),
        ] {
            let got = entered.get(&(p, name.to_string())).copied().unwrap_or(0);
            if got != calls {
                problems.push(format!(
                    "process {p}: {name} entered {got} times, expected {calls}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}\n{entered:#?}", problems.join("\n"));
}

/// A lock test in a `do while` condition (`testdata/objects/flocka`) is
/// evaluated again after every iteration; the loop body runs the lock
/// test of a separately instrumented Fortran object (`flockb`), which
/// hands the runtime its own base. Every evaluation of the condition is
/// still counted as `flocka`'s region (iterations ending by CYCLE and by
/// END DO), and `flockb`'s as its own.
#[test]
fn a_fortran_lock_test_in_a_loop_condition_keeps_its_base_after_another_objects_lock_test() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("objects-fortran-locks");
    let (src, b, a) = instrument_parts_separately(&tmp, "functions,omp", "flockb", "flocka");
    let build_prog = |dir_a: &Path, dir_b: &Path, out: &Path, libs: &[String]| {
        let mut args: Vec<String> = vec!["-O1".into(), "-fopenmp".into()];
        args.extend([s(dir_a.join("flocka.f90")), s(dir_b.join("flockb.f90"))]);
        args.extend(["-o".into(), s(out)]);
        args.extend(libs.iter().cloned());
        build(tmp.path(), "gfortran", &args, None);
    };
    let plain = tmp.join("plain");
    build_prog(&src.join("flocka"), &src.join("flockb"), &plain, &[]);
    let measured = tmp.join("measured");
    build_prog(&a, &b, &measured, &instrument_flags("--libs"));
    let want_out = run_ok(&mut Command::new(&plain)).stdout;
    assert_eq!(want_out.trim(), "iterations 3");
    let run_dir = tmp.join("run");
    let got_out = run_ok(Command::new(&measured).env("REGIO_DIR", &run_dir)).stdout;
    assert_eq!(got_out, want_out, "the measured program's output differs");

    let (named, unnamed) = calls(&run_dir);
    let test_a = line_of(
        &src.join("flocka/flocka.f90"),
        "do while (.not. omp_test_lock(l))",
    );
    let test_b = line_of(&src.join("flockb/flockb.f90"), "if (omp_test_lock(m))");
    let lock_tests: BTreeMap<(String, u64), u64> = named
        .iter()
        .filter(|((name, _, _), _)| name.starts_with("omp_test_lock"))
        .map(|((_, file, line), c)| ((file.clone(), *line), *c))
        .collect();
    let want: BTreeMap<(String, u64), u64> = [
        (("flocka.f90".to_string(), test_a), 4),
        (("flockb.f90".to_string(), test_b), 3),
    ]
    .into_iter()
    .collect();
    assert_eq!(lock_tests, want, "lock tests by file and line\n{named:#?}");
    assert!(
        unnamed.is_empty(),
        "regions without description: {unnamed:?}"
    );
}

/// A `.c` file included by a `.c` file of another tree
/// (`testdata/objects/unityapp/unity_app.c` has `#include "unity_part.c"`
/// from the library's instrumented tree, SQLite-amalgamation style, and
/// `#include "unity_local.c"` of its own tree, a unity build): the trees
/// are instrumented separately (overlapping local ids), and the included
/// library file's regions are the library's (named from its IDF at its
/// file and line, its calls counted there), the same-tree file's the
/// application's. Built with `-Wall -Werror`, output equal to the plain
/// build's, nothing unnamed.
#[test]
fn a_c_file_included_by_another_trees_c_file_keeps_its_own_ids() {
    let tmp = TestDir::new("objects-included-c");
    let (src, lib, app) = instrument_parts_separately(&tmp, "functions", "unitylib", "unityapp");
    let lib_ids = idf_ids(&lib.join("regio.idf.json"));
    let app_ids = idf_ids(&app.join("regio.idf.json"));
    assert!(
        lib_ids.iter().all(|id| app_ids.contains(id)),
        "every local id of the library is one of the application's too: {lib_ids:?} {app_ids:?}"
    );
    let build_app =
        |lib_dir: &Path, app_dir: &Path, label: &str, flags: &[String], libs: &[String]| {
            let exe = tmp.join(label);
            let mut a: Vec<String> = flags.to_vec();
            a.extend(["-O1".into(), "-Wall".into(), "-Werror".into()]);
            a.extend([format!("-I{}", s(lib_dir)), s(app_dir.join("unity_app.c"))]);
            a.extend(["-o".into(), s(&exe)]);
            a.extend(libs.iter().cloned());
            build(app_dir, &cc(), &a, None);
            exe
        };
    let plain = build_app(
        &src.join("unitylib"),
        &src.join("unityapp"),
        "plain",
        &[],
        &[],
    );
    let measured = build_app(
        &lib,
        &app,
        "measured",
        &instrument_flags("--cflags"),
        &instrument_flags("--libs"),
    );
    let want_out = run_ok(&mut Command::new(&plain)).stdout;
    assert_eq!(want_out.trim(), "total 37");
    let run_dir = tmp.join("run");
    let got_out = run_ok(Command::new(&measured).env("REGIO_DIR", &run_dir)).stdout;
    assert_eq!(got_out, want_out, "the measured program's output differs");

    let at = |part: &str, file: &str, text: &str| line_of(&src.join(part).join(file), text);
    let want = [
        (
            "main",
            "unity_app.c",
            at("unityapp", "unity_app.c", "int main("),
            1,
        ),
        (
            "app_loop",
            "unity_app.c",
            at("unityapp", "unity_app.c", "static int app_loop"),
            1,
        ),
        (
            "local_square",
            "unity_local.c",
            at("unityapp", "unity_local.c", "static int local_square"),
            5,
        ),
        (
            "part_total",
            "unity_part.c",
            at("unitylib", "unity_part.c", "int part_total"),
            1,
        ),
        (
            "part_weight",
            "unity_part.c",
            at("unitylib", "unity_part.c", "static int part_weight"),
            4,
        ),
    ];
    check_calls(&run_dir, &want);

    // The same unit built with `instrument wrap`: its preprocessed text
    // holds the library's instrumented file, whose regions stay the
    // library's; `unity_local.c` is the original (a wrapped build does not
    // instrument what a unit includes), so only the unit's own functions
    // and the library's are measured.
    let wrapped = tmp.join("wrapped");
    copy_tree(&src.join("unityapp"), &wrapped);
    let exe = wrapped.join("app");
    build(
        &wrapped,
        &cc(),
        &[
            "-O1".into(),
            "-Wall".into(),
            "-Werror".into(),
            format!("-I{}", s(&lib)),
            "unity_app.c".into(),
            "-o".into(),
            s(&exe),
        ],
        Some(&wrapped),
    );
    let run_dir = tmp.join("run-wrapped");
    let got_out = run_ok(Command::new(&exe).env("REGIO_DIR", &run_dir)).stdout;
    assert_eq!(got_out, want_out, "the wrapped program's output differs");
    let want: Vec<_> = want
        .into_iter()
        .filter(|(name, ..)| *name != "local_square")
        .collect();
    check_calls(&run_dir, &want);
}

/// What differs from `want` (name, file name, line, calls) among the
/// run's named regions: a region missing or with other calls.
fn call_problems(named: &Calls, want: &[(&str, &str, u64, u64)]) -> Vec<String> {
    let mut problems = Vec::new();
    for &(name, file, line, calls) in want {
        let key = (name.to_string(), file.to_string(), line);
        match named.get(&key) {
            Some(&c) if c == calls => {}
            Some(&c) => problems.push(format!("{key:?}: {c} calls, expected {calls}")),
            None => problems.push(format!("{key:?} missing")),
        }
    }
    problems
}

/// The run's regions are exactly `want` (name, file name, line, calls),
/// every region named.
fn check_calls(run_dir: &Path, want: &[(&str, &str, u64, u64)]) {
    let (named, unnamed) = calls(run_dir);
    let mut problems = call_problems(&named, want);
    if named.len() != want.len() {
        problems.push(format!("expected exactly {} regions", want.len()));
    }
    if !unnamed.is_empty() {
        problems.push(format!("regions without description: {unnamed:?}"));
    }
    assert!(problems.is_empty(), "{}\n{named:#?}", problems.join("\n"));
}

/// Within one statement: the lock argument of `flockc`'s lock test in a
/// `do while` condition (`testdata/objects/flockc`) calls `flockd_pick`
/// of a separately instrumented object (`flockd`), whose own lock test
/// hands the runtime its base between `flockc`'s `regio_tl_base` and its
/// lock test. Each lock test is still counted at its own file and line
/// (the runtime keys the base by the caller's frame), and every region of
/// both objects has its own calls.
#[test]
fn a_fortran_lock_test_keeps_its_base_when_its_own_statement_runs_another_objects_lock_test() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("objects-fortran-locks-stmt");
    let (src, d, c) = instrument_parts_separately(&tmp, "functions,omp", "flockd", "flockc");
    for opt in ["-O0", "-O2"] {
        check_lock_bases_within_a_statement(&tmp, &src, &c, &d, opt);
    }
}

/// One build (`opt`) of `flockc` + `flockd`, plain and measured, compared.
fn check_lock_bases_within_a_statement(tmp: &TestDir, src: &Path, c: &Path, d: &Path, opt: &str) {
    let build_prog = |dir_c: &Path, dir_d: &Path, out: &Path, libs: &[String]| {
        let mut args: Vec<String> = vec![opt.into(), "-fopenmp".into()];
        args.extend([s(dir_c.join("flockc.f90")), s(dir_d.join("flockd.f90"))]);
        args.extend(["-o".into(), s(out)]);
        args.extend(libs.iter().cloned());
        build(tmp.path(), "gfortran", &args, None);
    };
    let plain = tmp.join(format!("plain{opt}"));
    build_prog(&src.join("flockc"), &src.join("flockd"), &plain, &[]);
    let measured = tmp.join(format!("measured{opt}"));
    build_prog(c, d, &measured, &instrument_flags("--libs"));
    let want_out = run_ok(&mut Command::new(&plain)).stdout;
    assert_eq!(want_out.trim(), "iterations 3");
    let run_dir = tmp.join(format!("run{opt}"));
    let got_out = run_ok(Command::new(&measured).env("REGIO_DIR", &run_dir)).stdout;
    assert_eq!(
        got_out, want_out,
        "{opt}: the measured program's output differs"
    );

    let (named, unnamed) = calls(&run_dir);
    let test_c = line_of(
        &src.join("flockc/flockc.f90"),
        "do while (.not. omp_test_lock(",
    );
    let test_d = line_of(&src.join("flockd/flockd.f90"), "if (omp_test_lock(m))");
    let unset_c = line_of(
        &src.join("flockc/flockc.f90"),
        "if (n == 3) call omp_unset_lock",
    );
    let by_place: BTreeMap<(String, String, u64), u64> = named
        .iter()
        .filter(|((name, _, _), _)| name.starts_with("omp_"))
        .map(|((name, file, line), c)| {
            let op = name.split('@').next().unwrap_or(name).to_string();
            ((op, file.clone(), *line), *c)
        })
        .collect();
    // Four evaluations of the condition (three fail: the thread holds the
    // lock; the fourth, after the unset at n == 3, succeeds), each after
    // one call of flockd_pick and its lock test (the lock is free: taken
    // and unset every time).
    for (op, file, line, calls) in [
        ("omp_test_lock", "flockc.f90", test_c, 4),
        ("omp_test_lock", "flockd.f90", test_d, 4),
        ("omp_unset_lock", "flockd.f90", test_d, 4),
        ("omp_unset_lock", "flockc.f90", unset_c, 1),
    ] {
        let key = (op.to_string(), file.to_string(), line);
        assert_eq!(
            by_place.get(&key),
            Some(&calls),
            "{opt}: {key:?}\n{by_place:#?}\n{named:#?}"
        );
    }
    assert!(
        unnamed.is_empty(),
        "regions without description: {unnamed:?}"
    );
}
