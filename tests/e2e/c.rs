//! End to end for C: instrument the programs in testdata/c/, build them with
//! the same flags as the originals, run them, and hold the report against
//! ground truth.
//!
//! - stdout and exit status: the original built with the same flags.
//! - Procedure calls: the original built with gcc's -finstrument-functions
//!   and tests/e2e/support/count_hook.c, which rebuilds the call graph with the
//!   runtime's rule for recursion; the report's procedure nodes (other kinds
//!   projected away) must give the same calls and recursive calls on every
//!   call path, and so the same total per procedure.
//! - Loops and user regions: counted by construction. A loop statement is
//!   marked `/* @loop NAME */` on its line in the source; each program below says
//!   how many times each marked loop and each user region is entered.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use crate::common::profiles;
use crate::common::report::{self, Counts};
use crate::common::{
    cc, compile, copy_tree, instrument_bin, instrument_flags, require_tool, run, run_ok, snapshot,
    testdata, truth, Run, TestDir,
};
use serde_json::Value;

/// Flags of every build of a program, instrumented or not.
const BASE_FLAGS: &[&str] = &["-O2", "-g", "-Wall", "-Wextra", "-Werror"];
/// Originals holding `#pragma regio` need this under -Wall; the
/// instrumented copies must compile with the same flags.
const PRAGMAS: &str = "-Wno-unknown-pragmas";
const REGIONS: &str = "functions,loops,user";
const PROCEDURE_KINDS: &[&str] = &["function", "program"];

enum Build {
    /// `cc FLAGS sources... -o prog`, sources relative to the program dir.
    Cc(&'static [&'static str]),
    /// `make` in (a copy of) the program dir, producing this binary.
    Make(&'static str),
}

struct Program {
    /// Directory under testdata/c/.
    dir: &'static str,
    build: Build,
    /// Added to every build (defines, warning switches).
    flags: &'static [&'static str],
    /// Exit status of the original.
    status: i32,
    /// Entries per `@loop` marker; 0 = the loop must not run (e.g. it is in
    /// a branch the build leaves out).
    loops: &'static [(&'static str, u64)],
    /// Entries per user region name.
    users: &'static [(&'static str, u64)],
    /// Functions under `#pragma regio skip`: no region of their own.
    skipped: &'static [&'static str],
    /// Calls on a call path made while measurement was disabled.
    unrecorded: &'static [(&'static str, u64)],
    /// More `instrument` options (e.g. `--preprocess`).
    options: &'static [&'static str],
}

const NONE: &[(&str, u64)] = &[];

// exits.c: the program ends with exit(3) from die_with, called inside the
// loop and the user region of finish.
const EXITS: Program = Program {
    dir: "exits",
    build: Build::Cc(&["exits.c"]),
    flags: &[PRAGMAS],
    status: 3,
    loops: &[
        ("sum_squares", 1),    // sum_squares is called once
        ("main_fall", 1),      // main runs once
        ("find_first", 2),     // find_first is called twice (hit, miss)
        ("break_continue", 1), // one call
        ("switch_in_loop", 1), // one call; switch breaks stay in the loop
        ("ern_outer", 2),      // early_return_nested is called twice
        // first call returns at i=2 (inner loop started for i=0,1,2),
        // second finds nothing (inner loop started for i=0,1,2)
        ("ern_inner", 6),
        ("do_loop", 1),
        ("do_loop_tail", 1),
        ("finish", 1), // finish is called once and exits in its 3rd iteration
        // a goto from outside jumps into its body: no region by design
        ("into_loop", 0),
        ("retry_for", 3),     // started once, re-entered by two gotos back
        ("retry_forever", 1), // left by return
    ],
    users: &[
        ("search", 2), // find_first called twice; left by goto or normal end
        // iterations i=0..7 enter it: 0, 3, 6 leave by continue, 7 by break
        ("bc_body", 8),
        ("classify_body", 3), // classify called 3 times: return, goto, end
        ("finish_step", 3),   // i=0,1,2; exit() inside the third
    ],
    skipped: &[],
    unrecorded: &[],
    options: &[],
};

const RECURSION: Program = Program {
    dir: "recursion",
    build: Build::Cc(&["recursion.c"]),
    flags: &[],
    status: 6, // fib(10) % 7
    loops: &[
        // the loop runs in every call with depth > 0: 1 + 2 + 4 + 8 calls
        ("tree_sum", 15),
        ("main_parity", 1),
    ],
    users: NONE,
    skipped: &[],
    unrecorded: &[],
    options: &[],
};

const MACROS: Program = Program {
    dir: "macros",
    build: Build::Cc(&["macros.c"]),
    flags: &[],
    status: 5, // TWICE(inc, 1) + 1
    loops: &[
        ("sum_squares_twice", 3), // called for k = 1, 2, 3
        ("main", 1),
        // loops inside macro bodies (SUM_UPTO, FIND_OR_RETURN) are not
        // visible in the source, hence no regions.
    ],
    users: NONE,
    skipped: &[],
    unrecorded: &[],
    options: &[],
};

const IFDEF_OFF: Program = Program {
    dir: "ifdef",
    build: Build::Cc(&["ifdef.c"]),
    flags: &[],
    status: 5,
    loops: &[
        ("plain_work", 1),
        ("mixed_plain", 1),
        ("main", 1),
        ("feature_work", 0), // compiled out
        ("mixed_feature", 0),
    ],
    users: NONE,
    skipped: &[],
    unrecorded: &[],
    options: &[],
};

const IFDEF_ON: Program = Program {
    dir: "ifdef",
    build: Build::Cc(&["ifdef.c"]),
    flags: &["-DFEATURE"],
    status: 4,
    loops: &[
        ("feature_work", 1),
        ("mixed_feature", 1),
        ("main", 1),
        ("plain_work", 0), // compiled out
        ("mixed_plain", 0),
    ],
    users: NONE,
    skipped: &[],
    unrecorded: &[],
    options: &[],
};

const KINDS: Program = Program {
    dir: "kinds",
    build: Build::Cc(&["kinds.c", "knr.c"]),
    flags: &[],
    status: 9, // clamp(42, 0, 9)
    loops: &[("sum_ints", 1), ("checksum", 1), ("knr_scale", 1)],
    users: NONE,
    skipped: &[],
    unrecorded: &[],
    options: &[],
};

const DIRECTIVES: Program = Program {
    dir: "directives",
    build: Build::Cc(&["directives.c"]),
    flags: &[PRAGMAS],
    status: 3, // 241 % 7
    loops: &[
        ("skipped", 1), // skip leaves the loops of a skipped function
        // the outer loop is skipped; the inner one starts for i = 0..3
        ("skip_outer_loop_inner", 4),
        ("nested_regions", 2), // two calls
        ("spelled", 1),
    ],
    users: &[
        ("main_work", 1),
        ("outer_r", 2), // two calls of nested_regions
        // n=5: i=0,1,2,3 (continue at 1, goto at 3); n=2: i=0,1
        ("inner_r", 6),
        ("early_a", 2), // early(4) returns inside, early(-4) runs through
        ("early_b", 2),
        ("Mixed.Case-1", 3), // s = 4, 8, 12: break in the third entry
    ],
    skipped: &["skipped"],
    unrecorded: &[
        ("main/half_measured/leaf", 1), // the call between disable and enable
        ("main/switch_off/leaf", 1),    // the call after disable
        ("main/leaf", 1),               // leaf(100), before main's enable
    ],
    options: &[],
};

const TREE: Program = Program {
    dir: "tree",
    build: Build::Make("tree"),
    flags: &[],
    status: 2, // (int)max % 10
    loops: &[
        ("vec_sum_dots", 2), // via norm_total and directly from main
        ("stats_of", 1),
        ("main_fill", 1),
        ("main_scale", 1),
        ("scale_all", 2), // called in both iterations of main_scale
    ],
    users: NONE,
    skipped: &[],
    unrecorded: &[],
    options: &[],
};

// Shapes of real code the C parser reads only the second time (issue 13):
// each program is built in every configuration its conditionals select,
// and every function it defines in the text is measured.
const fn shape(
    dir: &'static str,
    file: &'static [&'static str],
    flags: &'static [&'static str],
    status: i32,
    loops: &'static [(&'static str, u64)],
) -> Program {
    Program {
        dir,
        build: Build::Cc(file),
        flags,
        status,
        loops,
        users: NONE,
        skipped: &[],
        unrecorded: &[],
        options: &[],
    }
}

const PP_BETWEEN_LOOPS: &[(&str, u64)] = &[("alt_body", 1), ("diag_body", 1), ("plain", 1)];

#[test]
fn shape_preprocessor_lines_between_head_and_body() {
    let files: &[&str] = &["pp_between.c"];
    check_program(&shape("shapes/pp_between", files, &[], 0, PP_BETWEEN_LOOPS));
    check_program(&shape(
        "shapes/pp_between",
        files,
        &["-DWIDE"],
        3,
        PP_BETWEEN_LOOPS,
    ));
}

#[test]
fn shape_conditionals_inside_expressions_and_headers() {
    let files: &[&str] = &["pp_inside.c"];
    let loops: &[(&str, u64)] = &[("main", 1)];
    check_program(&shape("shapes/pp_inside", files, &[], 3, loops));
    let all: &[&str] = &["-DWIDE", "-DBIG", "-DEXTRA"];
    check_program(&shape("shapes/pp_inside", files, all, 0, loops));
}

#[test]
fn shape_statement_macros_without_semicolons() {
    let files: &[&str] = &["stmt_macros.c"];
    check_program(&shape("shapes/stmt_macros", files, &[], 5, NONE));
    check_program(&shape("shapes/stmt_macros", files, &["-DSTRICT"], 9, NONE));
}

#[test]
fn shape_knr_and_implicit_int() {
    let files: &[&str] = &["oldstyle.c"];
    let loops: &[(&str, u64)] = &[("count_down", 1), ("scale", 1)];
    check_program(&shape(
        "shapes/oldstyle",
        files,
        &["-Wno-implicit-int"],
        0,
        loops,
    ));
}

#[test]
fn shape_macro_words_and_macro_arguments() {
    let loops: &[(&str, u64)] = &[("sum_args", 1), ("each_macro", 1)];
    check_program(&shape(
        "shapes/macro_words",
        &["macro_words.c"],
        &[],
        5,
        loops,
    ));
}

#[test]
fn shape_interpreter_loop_of_macros_is_no_nest_of_functions() {
    // 1000 runs: the loop is entered once per run and left by `return`
    // from inside a macro-made case; a probe pair per case block would
    // have left 4000 frames open.
    let loops: &[(&str, u64)] = &[("vm_loop", 1000), ("runs", 1)];
    check_program(&shape("shapes/dispatch", &["dispatch.c"], &[], 5, loops));
}

#[test]
fn shape_functions_after_an_unreadable_place_are_read_one_by_one() {
    let files: &[&str] = &["swallowed.c"];
    let loops: &[(&str, u64)] = &[("set_mode", 1)];
    check_program(&shape("shapes/swallowed", files, &[], 0, loops));
    check_program(&shape("shapes/swallowed", files, &["-DWIDECHAR"], 0, loops));
}

#[test]
fn shape_macro_words_before_type_names_and_branches_of_no_c() {
    // Every function gcc compiles is measured (ground truth), those under
    // `_MSC_VER` / `__cplusplus` are not compiled at all.
    let loops: &[(&str, u64)] = &[
        ("write_table", 1),
        ("count_in", 1),
        ("run_script", 1),
        ("fill", 1),
        ("pick", 1),
    ];
    check_program(&shape("shapes/heads", &["heads.c"], &[], 3, loops));
}

/// Loop visits of `nested_groups.c`: without `-DW`, with it, and with it
/// and `-DDISABLE_DIRSYNC`.
const NESTED_PLAIN: &[(&str, u64)] = &[
    ("braid", 0),
    ("tail", 1),
    ("sync_each", 1),
    ("read_each", 1),
    ("retry", 2),
];
const NESTED_BRAIDED: &[(&str, u64)] = &[
    ("braid", 1),
    ("tail", 1),
    ("sync_each", 1),
    ("read_each", 1),
    ("retry", 2),
];
const NESTED_NO_SYNC: &[(&str, u64)] = &[
    ("braid", 1),
    ("tail", 1),
    ("sync_each", 0),
    ("read_each", 1),
    ("retry", 2),
];

#[test]
fn shape_conditional_groups_nested_in_branches() {
    let files: &[&str] = &["nested_groups.c"];
    let dir = "shapes/nested_groups";
    check_program(&shape(dir, files, &[], 6, NESTED_PLAIN));
    let braided: &[&str] = &["-DMEMORY_MANAGEMENT", "-DW"];
    check_program(&shape(dir, files, braided, 1, NESTED_BRAIDED));
    let vx: &[&str] = &["-DW", "-DN=1", "-DVXWORKS", "-DFLOAT_INPUT"];
    check_program(&shape(dir, files, vx, 1, NESTED_BRAIDED));
    let flags: &[&str] = &["-DDISABLE_DIRSYNC", "-DMEMORY_MANAGEMENT", "-DW", "-DN=2"];
    check_program(&shape(dir, files, flags, 3, NESTED_NO_SYNC));
}

const OLD_HEADS: &[(&str, u64)] = &[("scan", 1), ("scan_fold", 1), ("row_sum", 1), ("last", 1)];

#[test]
fn shape_knr_functions_read_as_pieces_and_alternative_heads() {
    // Every configuration the heads' conditionals select, in C89 and C11
    // (`register n;` needs -Wno-implicit-int under -Werror).
    let files: &[&str] = &["old_heads.c"];
    let dir = "shapes/old_heads";
    check_program(&shape(dir, files, &["-Wno-implicit-int"], 1, OLD_HEADS));
    let c89: &[&str] = &["-std=gnu89", "-Wno-implicit-int"];
    check_program(&shape(dir, files, c89, 1, OLD_HEADS));
    let ansi: &[&str] = &["-std=gnu89", "-Wno-implicit-int", "-DANSI_C", "-DWIDE"];
    check_program(&shape(dir, files, ansi, 1, OLD_HEADS));
    let mex: &[&str] = &["-Wno-implicit-int", "-DMEX", "-DUSE_LIBIO"];
    let no_row_sum: &[(&str, u64)] = &[("scan", 1), ("scan_fold", 1), ("row_sum", 0), ("last", 1)];
    check_program(&shape(dir, files, mex, 0, no_row_sum));
}

#[test]
fn shape_omp_directive_in_ifdef_read_the_second_time() {
    // Without OpenMP the repeated `#ifdef _OPENMP` drops both halves of
    // the construct; with it, the program runs the construct measured.
    let files: &[&str] = &["omp_read_again.c"];
    let dir = "shapes/omp_read_again";
    let loops: &[(&str, u64)] = &[("work_sum", 1)];
    check_program(&shape(dir, files, &[], 1, loops));
    check_program(&shape(dir, files, &["-DWIDE"], 2, loops));
    check_program(&shape(dir, files, &["-fopenmp"], 1, loops));
}

#[test]
fn shape_statement_macros_after_a_head_and_declaring_macros() {
    // `if (...) ERR_EXIT(x)`: the macro use is the head's body; the
    // file-scope `DDEC(...;)` declares only and is not listed.
    let loops: &[(&str, u64)] = &[("step_for", 2), ("step_while", 2), ("scan", 2)];
    let dir = "shapes/head_macros";
    check_program(&shape(dir, &["head_macros.c"], &[], 2, loops));
}

/// Loop visits of `pp_heads.c`, the same in both configurations.
const PP_HEADS_LOOPS: &[(&str, u64)] = &[
    ("w_alt", 1),
    ("for_diag", 1),
    ("for_define", 1),
    ("while_define", 1),
    ("for_null", 1),
    ("while_null", 1),
];

#[test]
fn shape_every_head_with_every_preprocessor_line_before_its_body() {
    let files: &[&str] = &["pp_heads.c"];
    let dir = "shapes/pp_heads";
    check_program(&shape(dir, files, &[], 6, PP_HEADS_LOOPS));
    check_program(&shape(dir, files, &["-DWIDE"], 0, PP_HEADS_LOOPS));
}

#[test]
fn shape_functions_measured_without_the_kinds_that_cross_a_group() {
    // `--regions all` (group_parts.c says what each function keeps). A
    // loop left out would show up as a loop region without a marker; the
    // marked ones must be measured.
    let loops: &[(&str, u64)] = &[("tally", 1), ("sparse", 1)];
    let dir = "shapes/group_parts";
    let files: &[&str] = &["group_parts.c"];
    let all: &[&str] = &["--regions", "all"];
    let configurations: [&[&str]; 3] = [
        &["-Wno-implicit-int", PRAGMAS],
        &["-Wno-implicit-int", "-fopenmp"],
        &["-Wno-implicit-int", PRAGMAS, "-DPERSISTENT"],
    ];
    for flags in configurations {
        check_program(&Program {
            options: all,
            ..shape(dir, files, flags, 2, loops)
        });
    }
}

#[test]
fn shape_gnu_and_c11_syntax() {
    check_program(&shape("shapes/gnu", &["gnu.c"], &[], 5, NONE));
}

#[test]
fn shape_file_scope_macros_defining_functions() {
    // The functions the macros expand to exist only after preprocessing:
    // the text path leaves them unmeasured (with a warning each), so the
    // ground truth is taken without them.
    let p = Program {
        skipped: &["get_int", "add", "mul", "adder_impl"],
        ..shape("shapes/macro_items", &["macro_items.c"], &[], 2, NONE)
    };
    check_program(&p);
}

#[test]
fn shape_macro_defined_functions_measured_through_the_preprocessor() {
    // `--preprocess`: the unit as the compiler sees it, so the functions
    // the macros define are measured (at the line of the macro use), and
    // the counts match the ground truth without exceptions; `adder_impl`
    // is the function of SQLite's `IOMETHODS(...)` shape, which the text
    // path leaves as written.
    let p = Program {
        options: &["--preprocess", "--cflags", "-O2 -Wall"],
        ..shape("shapes/macro_items", &["macro_items.c"], &[], 2, NONE)
    };
    check_program(&p);
    let p = Program {
        options: &["--preprocess", "--cflags", "-DWIDE"],
        ..shape(
            "shapes/pp_between",
            &["pp_between.c"],
            &["-DWIDE"],
            3,
            PP_BETWEEN_LOOPS,
        )
    };
    check_program(&p);
    // `va_arg` and `offsetof` reach the parser as GCC's
    // `__builtin_va_arg(ap, int)` / `__builtin_offsetof(...)`.
    let loops: &[(&str, u64)] = &[("sum_args", 1), ("each_macro", 1)];
    let p = Program {
        options: &["--preprocess", "--cflags", ""],
        ..shape("shapes/macro_words", &["macro_words.c"], &[], 5, loops)
    };
    check_program(&p);
}

/// `--cflags` with a relative `-I`: the preprocessor runs where
/// `instrument` runs, so the header is found and the function the macro
/// defines is measured.
#[test]
fn preprocess_flags_are_relative_to_where_instrument_runs() {
    if !have_c_toolchain() {
        return;
    }
    let src = program_dir("pp_tree");
    let tmp = TestDir::new("pp-tree");
    let out = tmp.join("inst");
    let r = run(Command::new(instrument_bin())
        .current_dir(&src)
        .arg("src")
        .arg("--out")
        .arg(&out)
        .args(["--preprocess", "--cflags", "-I inc"]));
    assert!(r.status.success(), "{}", r.describe());
    assert!(
        !r.stderr.contains("preprocessor failed"),
        "{}",
        r.describe()
    );
    let idf = std::fs::read_to_string(out.join("regio.idf.json")).unwrap_or_default();
    assert!(idf.contains("\"name\": \"twice\""), "{idf}");
}

#[test]
fn exits() {
    check_program(&EXITS);
}

#[test]
fn recursion() {
    check_program(&RECURSION);
}

#[test]
fn macros() {
    check_program(&MACROS);
}

#[test]
fn ifdef_without_feature() {
    check_program(&IFDEF_OFF);
}

#[test]
fn ifdef_with_feature() {
    check_program(&IFDEF_ON);
}

#[test]
fn function_kinds_and_knr() {
    check_program(&KINDS);
}

#[test]
fn directives() {
    check_program(&DIRECTIVES);
}

#[test]
fn multi_file_tree_with_makefile() {
    if !require_tool("make", "make") {
        return;
    }
    check_program(&TREE);
}

fn have_c_toolchain() -> bool {
    require_tool(&cc(), "a C compiler (gcc)") && require_tool("nm", "binutils")
}

fn program_dir(dir: &str) -> PathBuf {
    testdata().join("c").join(dir)
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Instrument `src` into `out`; the sources must stay as they were.
fn instrument_tree_with(src: &Path, out: &Path, options: &[&str]) -> Run {
    let before = snapshot(src);
    // A program's own `--regions` replaces the default (clap takes one).
    let regions: &[&str] = if options.contains(&"--regions") {
        &[]
    } else {
        &["--regions", REGIONS]
    };
    let r = run(Command::new(instrument_bin())
        .arg(src)
        .arg("--out")
        .arg(out)
        .args(regions)
        .args(options));
    assert!(r.status.success(), "instrumenting failed: {}", r.describe());
    assert!(
        snapshot(src) == before,
        "instrument modified its input {}",
        src.display()
    );
    assert!(out.join("regio.idf.json").is_file(), "no regio.idf.json");
    // Everything that is not C source is mirrored byte for byte, so the
    // same build (Makefile) works in the copy.
    for (file, bytes) in &before {
        let rel = file.strip_prefix(src).unwrap_or(file);
        let is_c = matches!(file.extension().and_then(|e| e.to_str()), Some("c" | "h"));
        let copy = std::fs::read(out.join(rel)).ok();
        if is_c {
            assert!(copy.is_some(), "{} missing in the output", rel.display());
        } else {
            assert!(
                copy.as_ref() == Some(bytes),
                "{} not copied unchanged",
                rel.display()
            );
        }
    }
    r
}

#[derive(Clone, Copy)]
enum Variant {
    Plain,
    Truth,
    Instrumented,
}

/// Build one variant of a program; returns the binary.
fn build(p: &Program, variant: Variant, src: &Path, inst: &Path, tmp: &TestDir) -> PathBuf {
    let mut flags: Vec<String> = match variant {
        Variant::Truth => strings(truth::TRUTH_CFLAGS),
        _ => strings(BASE_FLAGS),
    };
    flags.extend(strings(p.flags));
    let (tag, libs) = match variant {
        Variant::Plain => ("plain", vec![]),
        Variant::Truth => {
            flags.extend(strings(truth::TRUTH_LDFLAGS));
            ("truth", vec![truth::hook_object().display().to_string()])
        }
        Variant::Instrumented => {
            flags.extend(instrument_flags("--cflags"));
            ("instrumented", instrument_flags("--libs"))
        }
    };
    match p.build {
        Build::Cc(sources) => {
            let root = match variant {
                Variant::Instrumented => inst,
                _ => src,
            };
            let files: Vec<PathBuf> = sources.iter().map(|s| root.join(s)).collect();
            let bin = tmp.join(format!("{}-{tag}", p.dir.replace('/', "-")));
            compile(&cc(), &flags, &files, &libs, &bin);
            bin
        }
        Build::Make(target) => {
            let dir = match variant {
                Variant::Instrumented => inst.to_path_buf(),
                _ => {
                    let d = tmp.join(format!("src-{tag}"));
                    copy_tree(src, &d);
                    d
                }
            };
            // Linker-only flags go to LDFLAGS, CFLAGS is used for both.
            let (ldflags, cflags): (Vec<String>, Vec<String>) =
                flags.into_iter().partition(|f| f == "-no-pie");
            run_ok(
                Command::new("make")
                    .arg("-C")
                    .arg(&dir)
                    .arg(format!("CC={}", cc()))
                    .arg(format!("CFLAGS={}", cflags.join(" ")))
                    .arg(format!("LDFLAGS={}", ldflags.join(" ")))
                    .arg(format!("LDLIBS={}", libs.join(" "))),
            );
            dir.join(target)
        }
    }
}

/// Run a test program with a clean Regio environment.
fn run_program(bin: &Path, cwd: &Path, env: &[(&str, &Path)]) -> Run {
    let mut c = Command::new(bin);
    c.current_dir(cwd);
    for var in [
        "REGIO_DIR",
        "REGIO_MODE",
        "REGIO_DISABLE",
        truth::COUNT_FILE_VAR,
    ] {
        c.env_remove(var);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c)
}

/// `@loop NAME` markers of the program's sources: name -> (file, line),
/// with the file relative to the program dir (= the instrumented root).
fn loop_markers(src: &Path) -> BTreeMap<String, (String, u64)> {
    const MARKER: &str = "/* @loop ";
    let mut out = BTreeMap::new();
    for file in common::walk(src) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let rel = file
            .strip_prefix(src)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find(MARKER) {
                let name = line[pos + MARKER.len()..]
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let old = out.insert(name.clone(), (rel.clone(), i as u64 + 1));
                assert!(old.is_none(), "marker @loop {name} used twice in {rel}");
            }
        }
    }
    out
}

/// Differences between two count maps, one line each.
fn diff_counts<K: Ord + std::fmt::Debug>(
    what: &str,
    expected: &BTreeMap<K, Counts>,
    got: &BTreeMap<K, Counts>,
) -> Vec<String> {
    let keys: BTreeSet<&K> = expected.keys().chain(got.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let e = expected.get(k).copied().unwrap_or_default();
            let g = got.get(k).copied().unwrap_or_default();
            (e != g).then(|| {
                format!(
                    "{what} {k:?}: expected {} calls ({} recursive), report has {} ({} recursive)",
                    e.calls, e.recursive, g.calls, g.recursive
                )
            })
        })
        .collect()
}

/// Loop entries per marker against the report's loop regions; every loop
/// region the report shows must be a marked one.
fn loop_problems(p: &Program, src: &Path, run: &Value) -> Vec<String> {
    let markers = loop_markers(src);
    let by_pos = report::totals_by_position(run, "loop");
    let mut problems = Vec::new();
    let expected: BTreeMap<&str, u64> = p.loops.iter().copied().collect();
    for name in markers.keys() {
        if !expected.contains_key(name.as_str()) {
            problems.push(format!(
                "test bug: @loop {name} has no expectation in {}",
                p.dir
            ));
        }
    }
    for (name, want) in &expected {
        let Some((file, line)) = markers.get(*name) else {
            problems.push(format!("test bug: no @loop {name} marker in {}", p.dir));
            continue;
        };
        let got = by_pos.get(&(file.clone(), *line)).map_or(0, |c| c.calls);
        if got != *want {
            problems.push(format!(
                "loop {name} ({file}:{line}): expected {want} entries, report has {got}"
            ));
        }
    }
    let marked: BTreeSet<(String, u64)> = markers.values().cloned().collect();
    for ((file, line), c) in &by_pos {
        if !marked.contains(&(file.clone(), *line)) {
            problems.push(format!(
                "report has a loop region at {file}:{line} ({} calls) where the source has no marked loop",
                c.calls
            ));
        }
    }
    problems
}

fn user_problems(p: &Program, run: &Value) -> Vec<String> {
    let got = report::totals_by_name(run, &["user"]);
    let expected: BTreeMap<String, Counts> = p
        .users
        .iter()
        .map(|(n, c)| {
            (
                n.to_string(),
                Counts {
                    calls: *c,
                    recursive: 0,
                },
            )
        })
        .collect();
    diff_counts("user region", &expected, &got)
}

/// A procedure node's file and line must point at its definition in the
/// original source (the name within the first lines of the definition).
fn position_problems(src: &Path, run: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    report::visit(run, &mut |n, _| {
        if !PROCEDURE_KINDS.contains(&report::str_field(n, "kind")) {
            return;
        }
        let name = report::str_field(n, "name");
        let (Some(file), Some(line)) = (n["file"].as_str(), n["line"].as_u64()) else {
            problems.push(format!("{name}: no file/line in the report"));
            return;
        };
        let text = std::fs::read_to_string(src.join(file)).unwrap_or_default();
        let first = line.saturating_sub(1) as usize;
        let found = text
            .lines()
            .skip(first)
            .take(3)
            .any(|l| l.contains(&format!("{name}(")) || l.contains(&format!("{name} (")))
            || text
                .lines()
                .nth(first)
                .is_some_and(|l| made_by_macro_use(l, name));
        if line == 0 || !found {
            problems.push(format!(
                "{name}: report says {file}:{line}, but the definition is not there"
            ));
        }
    });
    problems
}

/// Whether `line` is a macro use (`DEFINE_OP(add, +)`) whose arguments
/// name a part of `name`: where `--preprocess` places a function a macro
/// defines.
fn made_by_macro_use(line: &str, name: &str) -> bool {
    let Some((head, args)) = line.trim().split_once('(') else {
        return false;
    };
    let is_macro = !head.is_empty()
        && head
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    is_macro
        && args
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| w.len() >= 3 && name.contains(w))
}

fn check_program(p: &Program) {
    if !have_c_toolchain() {
        return;
    }
    let src = program_dir(p.dir);
    let tmp = TestDir::new(&p.dir.replace('/', "-"));
    let inst = tmp.join("inst");
    instrument_tree_with(&src, &inst, p.options);

    let plain_bin = build(p, Variant::Plain, &src, &inst, &tmp);
    let truth_bin = build(p, Variant::Truth, &src, &inst, &tmp);
    let inst_bin = build(p, Variant::Instrumented, &src, &inst, &tmp);

    let plain = run_program(&plain_bin, tmp.path(), &[]);
    let counts_file = tmp.join("counts.txt");
    let truth_run = run_program(
        &truth_bin,
        tmp.path(),
        &[(truth::COUNT_FILE_VAR, &counts_file)],
    );
    let run_dir = tmp.join("run");
    let measured = run_program(&inst_bin, tmp.path(), &[("REGIO_DIR", &run_dir)]);

    // The reference builds must agree with each other and with the test's
    // expectation before the instrumented one is judged.
    assert_eq!(
        plain.outcome(),
        format!("exit {}", p.status),
        "original: {}",
        plain.describe()
    );
    assert_eq!(
        (truth_run.outcome(), &truth_run.stdout),
        (plain.outcome(), &plain.stdout),
        "ground-truth build behaves differently: {}",
        truth_run.describe()
    );

    let mut problems = Vec::new();
    problems.extend(same_behaviour(&plain, &measured));
    let report = match report::report_json(&[&run_dir]).and_then(|r| {
        report::only_run(&r)?;
        Ok(r)
    }) {
        Ok(r) => r,
        Err(e) => panic!("{}\n{e}", problems.join("\n")),
    };
    let run = &report["runs"][0];
    if run["complete"] != Value::Bool(true) {
        problems.push(format!("run not complete: complete = {}", run["complete"]));
    }
    problems.extend(report::time_problems(
        run,
        measured.wall.as_nanos().try_into().unwrap_or(u64::MAX),
    ));

    let mut expected = truth::read_call_paths(&counts_file, &truth_bin);
    for name in p.skipped {
        expected = truth::splice(&expected, name);
    }
    for (path, calls) in p.unrecorded {
        truth::unrecorded(&mut expected, path, *calls);
    }
    let got_paths = report::call_paths(run, PROCEDURE_KINDS);
    let got_totals = report::totals_by_name(run, PROCEDURE_KINDS);
    problems.extend(diff_counts(
        "procedure",
        &truth::totals(&expected),
        &got_totals,
    ));
    problems.extend(diff_counts("call path", &expected, &got_paths));
    let programs = report::totals_by_name(run, &["program"]);
    if programs.keys().collect::<Vec<_>>() != ["main"] {
        problems.push(format!(
            "expected one `program` region named main, got {programs:?}"
        ));
    }
    problems.extend(position_problems(&src, run));
    problems.extend(loop_problems(p, &src, run));
    problems.extend(user_problems(p, run));

    assert!(
        problems.is_empty(),
        "{} (flags {:?}): {} problem(s):\n{}",
        p.dir,
        p.flags,
        problems.len(),
        problems.join("\n")
    );
}

/// Build the original and the instrumented copy of the single-file program
/// testdata/c/DIR/DIR.c, instrumenting the file (not the directory): it must
/// land at OUT/DIR.c.
fn build_single(dir: &str, tmp: &TestDir) -> (PathBuf, PathBuf) {
    let file = program_dir(dir).join(format!("{dir}.c"));
    let before = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let inst = tmp.join("inst");
    let r = run(Command::new(instrument_bin())
        .arg(&file)
        .arg("--out")
        .arg(&inst)
        .args(["--regions", REGIONS]));
    assert!(r.status.success(), "instrumenting failed: {}", r.describe());
    assert!(
        std::fs::read(&file).ok() == Some(before),
        "instrument modified {}",
        file.display()
    );
    let mut flags = strings(BASE_FLAGS);
    flags.push(PRAGMAS.to_string());
    let plain = tmp.join(format!("{dir}-plain"));
    compile(&cc(), &flags, &[file], &[], &plain);
    flags.extend(instrument_flags("--cflags"));
    let bin = tmp.join(format!("{dir}-instrumented"));
    compile(
        &cc(),
        &flags,
        &[inst.join(format!("{dir}.c"))],
        &instrument_flags("--libs"),
        &bin,
    );
    (plain, bin)
}

/// Same stdout and the same way of ending, or why not.
fn same_behaviour(plain: &Run, measured: &Run) -> Option<String> {
    (measured.stdout != plain.stdout || measured.outcome() != plain.outcome()).then(|| {
        format!(
            "instrumented program differs from the original ({}, stdout {:?})\n{}",
            plain.outcome(),
            plain.stdout,
            measured.describe()
        )
    })
}

const SIGSEGV: i32 = 11;

#[test]
fn crash_leaves_incomplete_profile() {
    if !have_c_toolchain() {
        return;
    }
    let tmp = TestDir::new("crash");
    let (plain_bin, bin) = build_single("crash", &tmp);
    let plain = run_program(&plain_bin, tmp.path(), &[]);
    let run_dir = tmp.join("run");
    let measured = run_program(&bin, tmp.path(), &[("REGIO_DIR", &run_dir)]);
    assert_eq!(plain.signal(), Some(SIGSEGV), "{}", plain.describe());
    if let Some(p) = same_behaviour(&plain, &measured) {
        panic!("{p}");
    }
    assert_eq!(
        measured.signal(),
        Some(SIGSEGV),
        "expected death by SIGSEGV: {}",
        measured.describe()
    );
    let profiles = profiles::paths(&run_dir);
    assert_eq!(
        profiles.len(),
        1,
        "profiles in {}: {profiles:?}",
        run_dir.display()
    );

    let report = report::report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = report::only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    if run["complete"] != Value::Bool(false) {
        problems.push(format!("complete = {}, expected false", run["complete"]));
    }
    if !run["signal"].is_null() && run["signal"] != SIGSEGV {
        problems.push(format!("signal = {}, expected {SIGSEGV}", run["signal"]));
    }
    problems.extend(report::time_problems(
        run,
        measured.wall.as_nanos().try_into().unwrap_or(u64::MAX),
    ));
    // Entries counted up to the crash, by construction of crash.c: warm
    // runs 5 times; main's second loop enters crash_zone and level1 for
    // i = 0, 1, 2; level1(i) calls level2 i+1 times (1 + 2 + 3); level3
    // once, and dies.
    let procs = report::totals_by_name(run, PROCEDURE_KINDS);
    for (name, want) in [
        ("main", 1),
        ("warm", 5),
        ("level1", 3),
        ("level2", 6),
        ("level3", 1),
    ] {
        let got = procs.get(name).map_or(0, |c| c.calls);
        if got != want {
            problems.push(format!("{name}: expected {want} calls, report has {got}"));
        }
    }
    let users = report::totals_by_name(run, &["user"]);
    if users.get("crash_zone").map(|c| c.calls) != Some(3) {
        problems.push(format!("crash_zone: expected 3 entries, got {users:?}"));
    }
    let markers = loop_markers(&program_dir("crash"));
    let loops = report::totals_by_position(run, "loop");
    for (name, want) in [("main_warm", 1), ("main_crash", 1), ("level1", 3)] {
        let got = markers
            .get(name)
            .and_then(|pos| loops.get(pos))
            .map_or(0, |c| c.calls);
        if got != want {
            problems.push(format!(
                "loop {name}: expected {want} entries, report has {got}"
            ));
        }
    }
    // Open frames at the crash, where the report says (`open` is not a
    // SPEC field, so only checked when present).
    let open_loops: BTreeSet<(String, u64)> = ["main_crash", "level1"]
        .iter()
        .filter_map(|m| markers.get(*m).cloned())
        .collect();
    report::visit(run, &mut |n, _| {
        let Some(open) = n["open"].as_u64() else {
            return;
        };
        let name = report::str_field(n, "name");
        let pos = (
            n["file"].as_str().unwrap_or_default().to_string(),
            n["line"].as_u64().unwrap_or_default(),
        );
        let want = u64::from(
            ["main", "crash_zone", "level1", "level2", "level3"].contains(&name)
                || open_loops.contains(&pos),
        );
        if open != want {
            problems.push(format!("{name}: open = {open}, expected {want}"));
        }
    });
    // The crash path is one chain in the DRG.
    let paths = report::call_paths(run, PROCEDURE_KINDS);
    if !paths.contains_key("main/level1/level2/level3") {
        problems.push(format!(
            "no call path main/level1/level2/level3 in {paths:?}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
/// A profile's size is bounded by its DRG: 10x the run length gives the
/// same nodes, and each number of a node row grows by at most one digit
/// (rows have variable-width numbers since profile version 2; every other
/// number is fixed-width).
fn profile_size_is_bounded_by_the_drg_not_the_run_length() {
    if !have_c_toolchain() {
        return;
    }
    let tmp = TestDir::new("size");
    let (plain_bin, bin) = build_single("size", &tmp);
    let measure = |iters: &str| {
        let run_dir = tmp.join(format!("run-{iters}"));
        let mut c = Command::new(&bin);
        c.current_dir(tmp.path())
            .env("REGIO_DIR", &run_dir)
            .env("REGIO_TEST_ITERS", iters)
            .env_remove("REGIO_MODE")
            .env_remove("REGIO_DISABLE");
        let r = run(&mut c);
        assert!(r.status.success(), "{}", r.describe());
        let mut c = Command::new(&plain_bin);
        c.current_dir(tmp.path()).env("REGIO_TEST_ITERS", iters);
        let plain = run(&mut c);
        if let Some(p) = same_behaviour(&plain, &r) {
            panic!("{p}");
        }
        let profiles: Vec<(PathBuf, u64)> = profiles::paths(&run_dir)
            .into_iter()
            .map(|p| {
                let len = p.metadata().map(|m| m.len()).unwrap_or(0);
                (p, len)
            })
            .collect();
        assert_eq!(profiles.len(), 1, "{profiles:?}");
        let report = report::report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
        let run = report::only_run(&report)
            .unwrap_or_else(|e| panic!("{e}"))
            .clone();
        (profiles[0].clone(), run)
    };
    let ((small_file, small_len), small) = measure("2000");
    let ((big_file, big_len), big) = measure("20000");
    // The longer run really did 10x the work.
    let inner = |run: &Value| {
        report::totals_by_name(run, PROCEDURE_KINDS)
            .get("inner")
            .map_or(0, |c| c.calls)
    };
    assert_eq!((inner(&small), inner(&big)), (2000, 20000));
    assert_eq!(
        report::call_paths(&small, PROCEDURE_KINDS)
            .keys()
            .collect::<Vec<_>>(),
        report::call_paths(&big, PROCEDURE_KINDS)
            .keys()
            .collect::<Vec<_>>(),
        "the DRG shape should not depend on the iteration count"
    );
    let nodes = |file: &Path| -> Vec<(Option<u32>, u32)> {
        profiles::read(file).threads[0]
            .nodes
            .iter()
            .map(|n| (n.parent, n.region))
            .collect()
    };
    let shape = nodes(&small_file);
    assert_eq!(shape, nodes(&big_file), "the same DRG nodes");
    let numbers = (shape.len() * regio_idf::rundir::node_rows::ROW_NUMBERS) as u64;
    assert!(
        small_len.abs_diff(big_len) <= numbers,
        "profile sizes differ by more than a digit per node number ({numbers}): {} ({small_len} bytes) vs {} ({big_len} bytes)",
        small_file.display(),
        big_file.display()
    );
}

/// Where an `instrument` error line points: (file, line, col).
fn error_positions(stderr: &str) -> Vec<(String, u64, u64)> {
    stderr
        .lines()
        .filter_map(|l| {
            let (loc, _) = l.split_once(": error: ")?;
            let mut parts = loc.rsplitn(3, ':');
            let col = parts.next()?.parse().ok()?;
            let line = parts.next()?.parse().ok()?;
            Some((parts.next()?.to_string(), line, col))
        })
        .collect()
}

/// `instrument` must refuse `name` (content `bytes`) with an error on one
/// of `lines` (any line if empty), write nothing for it and leave it alone.
fn check_rejected(name: &str, bytes: &[u8], lines: &[u64]) {
    let tmp = TestDir::new("bad");
    let input_dir = tmp.join("in");
    std::fs::create_dir_all(&input_dir).unwrap_or_else(|e| panic!("{e}"));
    let input = input_dir.join(name);
    std::fs::write(&input, bytes).unwrap_or_else(|e| panic!("{e}"));
    let out = tmp.join("out");
    let r = run(Command::new(instrument_bin())
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .args(["--regions", REGIONS]));
    assert!(!r.status.success(), "accepted bad input: {}", r.describe());
    let here: Vec<(String, u64, u64)> = error_positions(&r.stderr)
        .into_iter()
        .filter(|(f, _, _)| f.ends_with(name))
        .collect();
    assert!(
        !here.is_empty(),
        "no `{name}:line:col: error:` line: {}",
        r.describe()
    );
    if !lines.is_empty() {
        assert!(
            here.iter().any(|(_, l, c)| lines.contains(l) && *c >= 1),
            "error should point at line {lines:?}: {}",
            r.describe()
        );
    }
    assert!(
        !out.join(name).exists(),
        "output written for the rejected file"
    );
    assert_eq!(
        std::fs::read(&input).unwrap_or_default(),
        bytes,
        "input modified"
    );
}

fn bad(name: &str) -> Vec<u8> {
    let path = program_dir("bad").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn unreadable_code_is_left_as_written_and_the_rest_measured() {
    let src = program_dir("unreadable").join("syntax.c");
    let bytes = std::fs::read(&src).unwrap_or_else(|e| panic!("{e}"));
    let tmp = TestDir::new("unreadable");
    let input_dir = tmp.join("in");
    std::fs::create_dir_all(&input_dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(input_dir.join("syntax.c"), &bytes).unwrap_or_else(|e| panic!("{e}"));
    // A file of which nothing can be read: copied unchanged, with a warning.
    let nothing = b"int broken(void)\n{\n    x = 1 ) 2;\n}\n";
    std::fs::write(input_dir.join("nothing.c"), nothing).unwrap_or_else(|e| panic!("{e}"));
    let out = tmp.join("out");
    let instrument = |extra: &[&str], out: &Path| {
        run(Command::new(instrument_bin())
            .arg(&input_dir)
            .arg("--out")
            .arg(out)
            .args(["--regions", REGIONS])
            // `fine` is one statement long: measured only on request.
            .arg("--small-functions")
            .args(extra))
    };
    let r = instrument(&[], &out);
    assert!(r.status.success(), "refused: {}", r.describe());
    assert!(
        r.stderr
            .contains("syntax.c:6:15: warning: not measured: function `ok` left as written"),
        "{}",
        r.describe()
    );
    assert!(
        r.stderr
            .contains("nothing.c:3:11: warning: not measured: function `broken` left as written"),
        "{}",
        r.describe()
    );
    assert_eq!(
        std::fs::read(out.join("nothing.c")).unwrap_or_default(),
        nothing,
        "a file with nothing measured is copied unchanged"
    );
    // The summary line counts the places and the files copied unchanged.
    assert!(
        r.stderr
            .contains("2 place(s) left as written (not measured; 1 file(s) copied unchanged)"),
        "{}",
        r.describe()
    );
    let written = std::fs::read_to_string(out.join("syntax.c")).unwrap_or_default();
    assert!(written.contains("int ok(int x)\n{\n    int y = x;\n    return y + ;\n}"));
    assert!(written.contains("= regio__guard("), "`fine` is measured");
    let idf: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("regio.idf.json")).unwrap_or_default(),
    )
    .unwrap_or(Value::Null);
    let listed = idf["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| r["name"] == "ok" && r["aux"]["not_measured"].is_string());
    assert!(
        listed,
        "the unit left as written is listed in the IDF: {idf}"
    );

    // --strict makes it an error and writes nothing for the file.
    let strict_out = tmp.join("strict");
    let r = instrument(&["--strict"], &strict_out);
    assert!(
        !r.status.success(),
        "--strict accepted it: {}",
        r.describe()
    );
    assert!(
        r.stderr.contains("syntax.c:6:15: error: not measured"),
        "{}",
        r.describe()
    );
    assert!(!strict_out.join("syntax.c").exists());
    assert_eq!(
        std::fs::read(input_dir.join("syntax.c")).unwrap_or_default(),
        bytes
    );
}

#[test]
fn rejects_unbalanced_begin() {
    check_rejected("unbalanced_begin.c", &bad("unbalanced_begin.c"), &[5]);
}

#[test]
fn rejects_unbalanced_end() {
    check_rejected("unbalanced_end.c", &bad("unbalanced_end.c"), &[5]);
}

#[test]
fn rejects_mismatched_end() {
    check_rejected("mismatched_end.c", &bad("mismatched_end.c"), &[7]);
}

#[test]
fn rejects_crossing_user_regions() {
    check_rejected("crossing_user.c", &bad("crossing_user.c"), &[8]);
}

#[test]
fn rejects_region_crossing_a_loop() {
    // Either end of the region may be named: its begin inside the loop
    // body or its end after the loop.
    check_rejected("crossing_loop.c", &bad("crossing_loop.c"), &[7, 10]);
}

#[test]
fn rejects_binary_file() {
    // An ELF-like header: NUL bytes and invalid UTF-8.
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    bytes.extend((0u8..=255).rev());
    check_rejected("x.c", &bytes, &[]);
}

/// The corpus runner (`scripts/corpus.sh`, README "Trying Regio on a code
/// base") on a small tree of its own: a clean C file, a Fortran file and
/// a C file with a place left as written give a summary table and exit 0;
/// a file gcc accepts but `instrument` refuses (an unbalanced `#pragma
/// regio`) makes it exit 1; so does a copy that no longer compiles (an
/// `instrument` stand-in that breaks the copies: the runner's own check is
/// what is tested there, not the instrumenter).
#[test]
fn corpus_runner_reports_refusals_and_broken_copies() {
    if !have_c_toolchain()
        || !require_tool("python3", "python3")
        || !require_tool("gfortran", "gfortran")
    {
        return;
    }
    let script = common::workspace_root().join("scripts/corpus.sh");
    let tmp = TestDir::new("corpus-runner");
    let tree = tmp.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap_or_else(|e| panic!("{e}"));
    let write = |rel: &str, text: &str| {
        std::fs::write(tree.join(rel), text).unwrap_or_else(|e| panic!("{rel}: {e}"))
    };
    write(
        "sum.c",
        "int sum(int n)\n{\n    int s = 0, i;\n    for (i = 0; i < n; i++)\n        s += i;\n    return s;\n}\n",
    );
    // A loop head with `#if` alternatives and a `}`/`else` split by
    // `#endif`: read the second time, nothing left as written.
    write(
        "sub/alt.c",
        "int pick(int n)\n{\n    int i, t = 0;\n    for (i = 0; i < n; i++)\n#ifdef WIDE\n        t += 2;\n#else\n        t += 1;\n#endif\n    return t;\n}\n",
    );
    write(
        "sub/scale.f90",
        "subroutine scale(a, n)\n  integer :: n, i\n  real :: a(n)\n  do i = 1, n\n    a(i) = 2 * a(i)\n  end do\nend subroutine scale\n",
    );
    // `--json -`: the results on stdout, the summary table on stderr.
    let corpus = |instrument: &Path| {
        let r = run(Command::new("bash")
            .arg(&script)
            .arg(&tree)
            .arg("--instrument")
            .arg(instrument)
            .args(["-j", "1", "--json", "-"]));
        let doc: Value = serde_json::from_str(&r.stdout).unwrap_or(Value::Null);
        (r, doc)
    };
    let (r, doc) = corpus(&instrument_bin());
    assert!(r.status.success(), "clean tree: {}", r.describe());
    let s = &doc["summary"];
    for (key, want) in [
        ("files", 3),
        ("c", 2),
        ("fortran", 1),
        ("refused", 0),
        ("originals_compile", 3),
        ("copies_compile", 3),
        ("broken_copies", 0),
        ("not_measured_units", 0),
    ] {
        assert_eq!(s[key], want, "{key}: {}", r.describe());
    }
    for label in [
        "refused",
        "broken copies",
        "copies compile",
        "corpus tree: ok",
    ] {
        assert!(
            r.stderr.contains(label),
            "summary table lacks {label:?}: {}",
            r.describe()
        );
    }

    // A directive error: gcc accepts the file, instrument refuses it.
    write(
        "sub/open.c",
        "void open_only(void)\n{\n#pragma regio begin never_closed\n}\n",
    );
    let (r, doc) = corpus(&instrument_bin());
    assert_eq!(
        r.status.code(),
        Some(1),
        "refusal not failed: {}",
        r.describe()
    );
    assert_eq!(
        doc["summary"]["refused_but_compiles"],
        1,
        "{}",
        r.describe()
    );
    assert!(
        r.stderr.contains("REFUSED (compiler accepts it)"),
        "{}",
        r.describe()
    );
    std::fs::remove_file(tree.join("sub/open.c")).unwrap_or_else(|e| panic!("{e}"));

    // A stand-in for `instrument` that writes copies that do not compile.
    let stub = tmp.join("breaking-instrument");
    std::fs::write(
        &stub,
        "#!/bin/sh\n[ \"$1\" = flags ] && exit 0\n\
         while [ $# -gt 1 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n\
         mkdir -p \"$out\" && cp -r \"$1\"/. \"$out\" && \
         for f in $(find \"$out\" -name '*.c'); do echo 'int broken = ;' >> \"$f\"; done\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run_ok(Command::new("chmod").arg("+x").arg(&stub));
    let (r, doc) = corpus(&stub);
    assert_eq!(
        r.status.code(),
        Some(1),
        "broken copies not failed: {}",
        r.describe()
    );
    assert_eq!(doc["summary"]["broken_copies"], 2, "{}", r.describe());
    assert!(r.stderr.contains("BROKEN COPY"), "{}", r.describe());
}
