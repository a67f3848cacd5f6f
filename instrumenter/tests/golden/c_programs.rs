//! The C test programs of testdata/c/ instrumented as a tree (ids
//! numbered across files as the driver does): the copies must compile
//! without warnings wherever the originals do, and the programs of
//! testdata/c/frontend/ must behave exactly as before when linked with a
//! checking stand-in for the runtime.

use std::path::{Path, PathBuf};
use std::process::Command;

use regio_instrumenter::c;
use regio_instrumenter::filter::Filter;
use regio_instrumenter::frontend::{Instrumented, SourceInput};
use regio_instrumenter::selection::Selection;

const DEFAULT_SELECTION: &str = "functions,loops,user";
const IDF_PATH: &str = "/regio-out/regio.idf.json";

fn testdata_c() -> PathBuf {
    crate::fixtures::workspace().join("testdata/c")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("c" | "h")) {
            out.push(p);
        }
    }
}

/// Paths relative to testdata/c/, with `/` separators, sorted, without the
/// deliberately wrong files of `bad/`.
fn c_files() -> Vec<String> {
    all_c_files()
        .into_iter()
        .filter(|f| !f.starts_with("bad/"))
        .collect()
}

fn all_c_files() -> Vec<String> {
    let root = testdata_c();
    let mut files = Vec::new();
    walk(&root, &mut files);
    files
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect()
}

fn instrument_from(
    rel: &str,
    text: &str,
    selection: &str,
    first_id: u32,
) -> Result<Instrumented, Vec<String>> {
    let filter = Filter::default();
    let display = format!("testdata/c/{rel}");
    let input = SourceInput {
        text,
        display_path: &display,
        rel_path: rel,
        idf_path: IDF_PATH,
        selection: selection.parse::<Selection>().unwrap(),
        filter: &filter,
        first_id,
    };
    c::instrument(&input).map_err(|es| es.iter().map(|e| e.to_string()).collect())
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(testdata_c().join(rel)).unwrap()
}

fn have_cc() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("regio-c-golden-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Instruments all of testdata/c/ into `dir` (other files are copied),
/// numbering regions across files as the driver does.
fn instrument_tree(dir: &Path, selection: &str) {
    let mut next_id = 1;
    for rel in c_files() {
        let dest = dir.join(&rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        let out = instrument_from(&rel, &read(&rel), selection, next_id).unwrap();
        next_id += out.regions.len() as u32;
        std::fs::write(&dest, out.text).unwrap();
    }
    copy_other_files(&testdata_c(), dir);
}

fn copy_other_files(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_other_files(&p, &dest);
        } else if !matches!(p.extension().and_then(|e| e.to_str()), Some("c" | "h")) {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

fn cc(args: &[&str], file: &Path) -> Result<(), String> {
    let dir = file.parent().unwrap();
    let out = Command::new("cc")
        .args(args)
        .arg("-I")
        .arg(dir)
        .arg(file)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Warning flags under which original and instrumented files are compared.
/// `#pragma regio` is an unknown pragma to the compiler, so unknown
/// pragmas are not warned about in either.
const FLAG_SETS: &[&[&str]] = &[
    &[
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unknown-pragmas",
    ],
    &[
        "-fsyntax-only",
        "-std=c89",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unknown-pragmas",
    ],
    &[
        "-fsyntax-only",
        "-std=c99",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unknown-pragmas",
    ],
    &[
        "-fsyntax-only",
        "-std=c11",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unknown-pragmas",
    ],
    &[
        "-fsyntax-only",
        "-std=gnu89",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unknown-pragmas",
    ],
    &[
        "-fsyntax-only",
        "-std=gnu11",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unknown-pragmas",
    ],
];

#[test]
fn instrumented_testdata_compiles_without_warnings_where_the_original_does() {
    if !have_cc() {
        println!("SKIPPED: needs gcc (cc)");
        return;
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for selection in [DEFAULT_SELECTION, "all"] {
        let dir = scratch_dir(&selection.replace(',', "_"));
        instrument_tree(&dir, selection);
        for rel in c_files().iter().filter(|r| r.ends_with(".c")) {
            for flags in FLAG_SETS {
                if cc(flags, &testdata_c().join(rel)).is_err() {
                    continue;
                }
                checked += 1;
                if let Err(e) = cc(flags, &dir.join(rel)) {
                    failures.push(format!("{rel} [{selection}] {}:\n{e}", flags.join(" ")));
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(checked > 0, "no original file compiled");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The compiler's warnings about `file` (one per line that names one).
fn warnings(file: &Path) -> Vec<String> {
    let out = Command::new("cc")
        .args(["-fsyntax-only", "-Wall", "-I"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/include"))
        .arg(file)
        .output()
        .expect("run cc");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("warning:"))
        .map(|l| l.split("warning:").nth(1).unwrap_or("").trim().to_string())
        .collect()
}

#[test]
fn implicitly_declared_functions_are_warned_about_as_often_as_in_the_original() {
    same_warnings_as_the_original("implicit_declaration.c", 3);
}

/// The first call of an undeclared function is the unbraced body of an
/// `if`, a loop and an `else`.
#[test]
fn implicitly_declared_functions_in_unbraced_bodies_are_warned_about_as_often() {
    same_warnings_as_the_original("implicit_declaration_in_a_body.c", 4);
}

/// Instruments fixture `name` with `--regions io,calls` (at least
/// `regions` regions) and compares gcc's warnings on original and copy.
fn same_warnings_as_the_original(name: &str, regions: usize) {
    if !have_cc() {
        println!("SKIPPED: needs gcc (cc)");
        return;
    }
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/fixtures/c")
        .join(name);
    let text = std::fs::read_to_string(&fixture).unwrap();
    let out = instrument_from(name, &text, "io,calls", 1).unwrap();
    assert!(out.regions.len() >= regions, "the calls are measured");
    let dir = scratch_dir(&format!("implicit-{}", name.trim_end_matches(".c")));
    let copy = dir.join(name);
    std::fs::write(&copy, format!("#include <regio.h>\n{}", out.text)).unwrap();
    let before = warnings(&fixture);
    let after = warnings(&copy);
    assert!(
        !before.is_empty(),
        "the fixture should make the compiler warn"
    );
    assert_eq!(
        before, after,
        "warnings of the original and of the instrumented copy"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Stand-in for the runtime: keeps the region stack and fails loudly on an
/// exit that does not match the innermost open region. Guard and scope
/// exits unwind what is above them (that is how `return` inside a user
/// region closes it); the number of regions unwound that way is written to
/// `$REGIO_STUB_REPORT`, so a `break` or `goto` that should have closed a
/// user region explicitly shows up as an unexpected unwind.
const STUB_RUNTIME: &str = r#"
#include <stdio.h>
#include <stdlib.h>
static unsigned stack[4096];
static unsigned depth, disabled;
static unsigned long enters, unwound;
static void fail(const char *what, unsigned id) {
    fprintf(stderr, "stub runtime: %s %u (depth %u)\n", what, id, depth);
    exit(90);
}
void regio_enter(unsigned id) {
    /* The base regio_register_object handed out: a probe that did not add
       it (or ran before the constructor) has a smaller id. */
    if (id < (1u << 22)) fail("id without its object's base:", id);
    if (depth == 4096) fail("stack overflow at", id);
    stack[depth++] = id;
    enters++;
}
void regio_exit(unsigned id) {
    if (depth == 0 || stack[depth - 1] != id) fail("exit of region that is not innermost:", id);
    depth--;
}
void regio_guard_exit(const unsigned *id) {
    unsigned d = depth;
    while (d > 0 && stack[d - 1] != *id) d--;
    if (d == 0) fail("guard exit of region not entered:", *id);
    unwound += depth - d;
    depth = d - 1;
}
unsigned regio_scope_open(void) { return depth; }
void regio_scope_close(const unsigned *mark) {
    if (*mark > depth) fail("scope closed twice at", *mark);
    unwound += depth - *mark;
    depth = *mark;
}
void regio_disable(void) { disabled++; }
void regio_enable(void) { if (disabled == 0) fail("enable without disable", 0); disabled--; }
void regio_register_idf(const char *path) { if (path == NULL) fail("no IDF path", 0); }
unsigned regio_register_object(const char *path) {
    if (path == NULL) fail("no IDF path", 0);
    return 1u << 22;
}
void regio_enter_gated(unsigned id) { regio_enter(id); }
/* With REGIO_STUB_GATES set, gates as the runtime keeps them for filtered
   regions (REGIO_GATE_NO_EXIT): every third local id is gated, so its
   entries and exits must both be skipped, or the stack above fails.
   Without, the runtime's all-open block (every probe calls the stub). */
static unsigned char gates[131072];
const unsigned char regio_no_gates[131072];
const unsigned char *regio_gates(unsigned base) {
    if (base != 1u << 22) fail("gates of a base not handed out:", base);
    if (getenv("REGIO_STUB_GATES") == NULL) return regio_no_gates;
    for (unsigned i = 0; i < sizeof gates; i++) gates[i] = i % 3 == 0;
    return gates;
}
__attribute__((destructor)) static void regio_stub_done(void) {
    const char *report = getenv("REGIO_STUB_REPORT");
    if (depth != 0) fail("regions still open at exit:", depth);
    if (enters == 0 && getenv("REGIO_STUB_GATES") == NULL) fail("no region entered", 0);
    if (report != NULL) {
        FILE *f = fopen(report, "w");
        if (f == NULL) fail("cannot write report", 0);
        fprintf(f, "%lu\n", unwound);
        fclose(f);
    }
}
"#;

/// Regions a correct instrumentation leaves to unwinding: only `return`
/// inside a user region (frontend/exits.c returns from `tail` once and from
/// `early` once).
fn expected_unwinds(rel: &str) -> u64 {
    if rel == "frontend/exits.c" {
        2
    } else {
        0
    }
}

fn build_and_run(sources: &[PathBuf], exe: &Path, report: &Path) -> (String, Option<i32>) {
    let out = Command::new("cc")
        .args(["-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas", "-o"])
        .arg(exe)
        .args(sources)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cc {sources:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    run(exe, report, false)
}

/// Runs `exe`; `gated`: the stub hands out gates that skip every third
/// region (`REGIO_STUB_GATES`).
fn run(exe: &Path, report: &Path, gated: bool) -> (String, Option<i32>) {
    let mut cmd = Command::new(exe);
    cmd.env("REGIO_STUB_REPORT", report);
    if gated {
        cmd.env("REGIO_STUB_GATES", "1");
    }
    let run = cmd.output().unwrap();
    assert!(
        run.stderr.is_empty(),
        "{exe:?}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    (
        String::from_utf8_lossy(&run.stdout).into_owned(),
        run.status.code(),
    )
}

#[test]
fn frontend_programs_behave_the_same_and_keep_probes_balanced() {
    if !have_cc() {
        println!("SKIPPED: needs gcc (cc)");
        return;
    }
    for selection in [DEFAULT_SELECTION, "all", "io", "calls"] {
        let dir = scratch_dir(&format!("run-{}", selection.replace(',', "_")));
        instrument_tree(&dir, selection);
        let stub = dir.join("regio_stub_runtime.c");
        std::fs::write(&stub, STUB_RUNTIME).unwrap();
        let programs = c_files()
            .into_iter()
            .filter(|r| r.starts_with("frontend/") && r.ends_with(".c"));
        for rel in programs {
            let exe_orig = dir.join(format!("{}.orig", rel.replace('/', "_")));
            let exe_inst = dir.join(format!("{}.inst", rel.replace('/', "_")));
            let report = dir.join("unwound.txt");
            let want = build_and_run(&[testdata_c().join(&rel)], &exe_orig, &report);
            let got = build_and_run(&[dir.join(&rel), stub.clone()], &exe_inst, &report);
            assert_eq!(got, want, "{rel} [{selection}] behaves differently");
            let unwound: u64 = std::fs::read_to_string(&report)
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            assert_eq!(
                unwound,
                expected_unwinds(&rel),
                "{rel} [{selection}]: regions closed by unwinding"
            );
            std::fs::remove_file(&report).unwrap();
            // Gated probes: entries and exits skipped in pairs (the stub
            // fails on an exit of a region that is not innermost), the
            // program's behaviour unchanged.
            let gated = run(&exe_inst, &report, true);
            assert_eq!(gated, want, "{rel} [{selection}] with gates");
            let _ = std::fs::remove_file(&report);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
