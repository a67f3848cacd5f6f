//! Error and edge-case tests of the C front end on small inline inputs.
//! Whole programs are covered by tests/c_golden.rs.

use regio_idf::RegionKind;

use super::*;
use crate::filter::Filter;
use crate::selection::Selection;

fn input<'a>(text: &'a str, sel: &str, filter: &'a Filter) -> SourceInput<'a> {
    SourceInput {
        text,
        display_path: "src/t.c",
        rel_path: "t.c",
        idf_path: "/out/regio.idf.json",
        selection: sel.parse::<Selection>().unwrap(),
        filter,
        first_id: 1,
    }
}

fn run(text: &str, sel: &str) -> Result<Instrumented, Vec<String>> {
    let filter = Filter::default();
    instrument(&input(text, sel, &filter)).map_err(|es| es.iter().map(|e| e.to_string()).collect())
}

fn errors(text: &str) -> Vec<String> {
    match run(text, "functions,loops,user") {
        Ok(out) => panic!("expected errors, got:\n{}", out.text),
        Err(e) => e,
    }
}

/// The instrumented text without the prelude.
fn body(out: &Instrumented) -> &str {
    let at = out.text.find("#line 1 ").expect("prelude ends with #line");
    let rest = &out.text[at..];
    &rest[rest.find('\n').unwrap() + 1..]
}

#[test]
fn end_with_another_name_than_the_innermost_begin() {
    let e = errors("void f(void) {\n#pragma regio begin a\n#pragma regio end b\n}\n");
    assert_eq!(
        e,
        vec![
            "src/t.c:2:1: error: `#pragma regio begin a` is never closed",
            "src/t.c:3:1: error: `#pragma regio end b` does not match the innermost open region `a` (begun at 2:1)",
        ]
    );
}

#[test]
fn begin_never_closed() {
    let e = errors("void f(void) {\n  int x = 0;\n  #pragma regio begin work\n  x++;\n}\n");
    assert_eq!(
        e,
        vec!["src/t.c:3:3: error: `#pragma regio begin work` is never closed"]
    );
}

#[test]
fn end_without_begin() {
    let e = errors("void f(void) {\n#pragma regio end a\n}\n");
    assert_eq!(
        e,
        vec!["src/t.c:2:1: error: `#pragma regio end a` has no matching `#pragma regio begin a`"]
    );
}

#[test]
fn regions_that_cross_each_other() {
    let src = "void f(void) {\n#pragma regio begin a\n#pragma regio begin b\n#pragma regio end a\n#pragma regio end b\n}\n";
    assert_eq!(
        errors(src),
        vec!["src/t.c:4:1: error: `#pragma regio end a` crosses user region `b` (begun at 3:1), which is still open"]
    );
}

#[test]
fn region_that_crosses_a_loop_or_block() {
    let src =
        "void f(int n) {\n  while (n--) {\n#pragma regio begin a\n  }\n#pragma regio end a\n}\n";
    assert_eq!(
        errors(src),
        vec!["src/t.c:5:1: error: user region `a` (begun at 3:1) crosses a block boundary: its `begin` and `end` must be in the same block"]
    );
    let src = "void f(int n) {\n#ifdef X\n#pragma regio begin a\n#endif\n  n++;\n#pragma regio end a\n}\n";
    assert_eq!(
        errors(src),
        vec!["src/t.c:6:1: error: user region `a` (begun at 3:1) crosses a block boundary: its `begin` and `end` must be in the same block"]
    );
}

#[test]
fn directives_outside_functions() {
    let src = "#pragma regio begin a\nint x;\n#pragma regio disable\n";
    assert_eq!(
        errors(src),
        vec![
            "src/t.c:1:1: error: `#pragma regio begin` outside a function",
            "src/t.c:3:1: error: `#pragma regio disable` outside a function",
        ]
    );
}

#[test]
fn directive_that_is_not_between_statements() {
    let src = "void f(void) {\n  struct { int a;\n#pragma regio enable\n  int b; } s;\n  s.a = s.b = 0;\n}\n";
    assert_eq!(
        errors(src),
        vec!["src/t.c:3:1: error: `#pragma regio enable` must stand between the statements of a block"]
    );
}

#[test]
fn malformed_directives() {
    let src = "void f(void) {\n#pragma regio frobnicate\n#pragma regio begin 9lives\n#pragma regio end\n#pragma regio\n#pragma regio disable now\n#pragma regio begin a b\n}\n";
    assert_eq!(
        errors(src),
        vec![
            "src/t.c:2:15: error: unknown regio directive `frobnicate` (expected begin, end, disable, enable or skip)",
            "src/t.c:3:21: error: invalid region name `9lives` (a NAME is [A-Za-z_][A-Za-z0-9_.-]*)",
            "src/t.c:4:15: error: `#pragma regio end` needs a region NAME",
            "src/t.c:5:9: error: missing regio directive after `#pragma regio` (expected begin, end, disable, enable or skip)",
            "src/t.c:6:23: error: unexpected `now` after `#pragma regio disable`",
            "src/t.c:7:23: error: unexpected `b` after `#pragma regio begin a`",
        ]
    );
}

#[test]
fn jumps_into_a_user_region_from_outside() {
    let src = "int f(int n) {\n  if (n) goto in;\n#pragma regio begin a\n  n++;\nin:\n  n--;\n#pragma regio end a\n  return n;\n}\n";
    assert_eq!(
        errors(src),
        vec!["src/t.c:2:10: error: `goto in` jumps into user region `a` (begun at 3:1) from outside it"]
    );
    let src = "int f(int n) {\n  switch (n) {\n  case 0:\n#pragma regio begin a\n    n++;\n  case 1:\n    n--;\n#pragma regio end a\n  }\n  return n;\n}\n";
    assert_eq!(
        errors(src),
        vec!["src/t.c:6:3: error: case label inside user region `a` (begun at 4:1) belongs to the `switch` at 2:3 outside it"]
    );
}

/// What `instrument` says about a file: warnings and errors as lines.
fn said(text: &str) -> (Instrumented, Vec<String>) {
    let out = run(text, "functions,loops,user").unwrap_or_else(|e| panic!("refused: {e:?}"));
    let w = out.warnings.iter().map(|w| w.to_string()).collect();
    (out, w)
}

#[test]
fn unreadable_functions_are_left_as_written_and_named() {
    let src = "int f(void) {\n  return 1 +;\n}\nint g(void) { int x = 3 return x; }\nint h(void) { return 3; }\n";
    let (out, w) = said(src);
    assert_eq!(
        w,
        vec![
            "src/t.c:2:13: warning: not measured: function `f` left as written (the C parser expected identifier here)",
            "src/t.c:4:24: warning: not measured: function `g` left as written (the C parser expected `;` here)",
        ]
    );
    // h is measured; f and g are listed, unmeasured, after it.
    let listed: Vec<(&str, Option<&str>)> = out
        .regions
        .iter()
        .map(|r| {
            (
                r.name.as_str(),
                r.aux.get("not_measured").and_then(|v| v.as_str()),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![
            ("h", None),
            ("f", Some("the C parser expected identifier here")),
            ("g", Some("the C parser expected `;` here")),
        ]
    );
    let text = body(&out);
    assert!(
        text.starts_with("int f(void) {\n  return 1 +;\n}\nint g(void) { int x = 3 return x; }\n")
    );
    assert!(text.contains("int h(void) {const unsigned int regio__g1"));
}

#[test]
fn a_file_with_nothing_readable_is_copied_unchanged() {
    let src = "int f(void) {\n  x = 1 ) 2;\n}\n";
    let (out, w) = said(src);
    assert_eq!(out.text, src);
    assert_eq!(
        w,
        vec!["src/t.c:2:9: warning: not measured: function `f` left as written (the C parser cannot read `)`)"]
    );
}

#[test]
fn a_directive_right_after_a_label_is_explained() {
    // A label needs a statement; a directive is none, and a `;` cannot be
    // added for the parser without moving the directive off its line.
    let src = "int f(int n) {\n  if (n) goto L;\nL:\n#pragma regio begin a\n  n--;\n#pragma regio end a\n  return n;\n}\n";
    let (out, w) = said(src);
    assert_eq!(
        w,
        vec!["src/t.c:3:3: warning: not measured: function `f` left as written (a preprocessor line stands where a statement is expected)"]
    );
    assert_eq!(out.text, src);
}

#[test]
fn binary_files_are_refused() {
    assert_eq!(
        errors("int x;\0\0"),
        vec!["src/t.c:1:1: error: binary file (contains NUL bytes); cannot instrument it"]
    );
}

#[test]
fn files_without_regions_or_directives_are_unchanged() {
    let src = "#include <stdio.h>\nstatic int x;\nint f(void) { for (;;) return x; }\n";
    let out = run(src, "none").unwrap();
    assert_eq!(out.text, src);
    assert!(out.regions.is_empty());
    let out = run("struct s { int a; };\n", "all").unwrap();
    assert_eq!(out.text, "struct s { int a; };\n");
}

#[test]
fn prelude_declares_probes_registers_the_idf_and_restores_lines() {
    let src = "int main(void)\n{\n  return 0;\n}\n";
    let out = run(src, "functions").unwrap();
    assert!(out.text.starts_with("#ifndef REGIO_PROBES_DECLARED\n"));
    assert!(out.text.contains(
        "static void regio__register_idf(void) { regio_register_idf(\"/out/regio.idf.json\"); }\n"
    ));
    assert_eq!(
        body(&out),
        "int main(void)\n{const unsigned int regio__g1 __attribute__((cleanup(regio_guard_exit), unused)) = (regio_enter(1u), 1u);\n  return 0;\n}\n"
    );
    assert!(out.text.contains("#line 1 \"src/t.c\"\n"));
    let r = &out.regions[0];
    assert_eq!(r.kind, RegionKind::Program);
    assert_eq!(
        (r.start.line, r.start.col, r.end.line, r.end.col),
        (1, 1, 4, 1)
    );
}

#[test]
fn headers_get_no_registration_and_paths_are_escaped() {
    let filter = Filter::default();
    let src = "static inline int f(void) { return 1; }\n";
    let mut inp = input(src, "functions", &filter);
    inp.rel_path = "inc/t.h";
    inp.display_path = "C:\\src\\\"t\".h";
    let out = instrument(&inp).unwrap();
    assert!(!out.text.contains("regio__register_idf"));
    assert!(out.text.contains("#line 1 \"C:\\\\src\\\\\\\"t\\\".h\"\n"));
    assert_eq!(out.regions[0].file, "inc/t.h");
}

#[test]
fn directives_alone_get_the_prelude_but_no_registration() {
    let src = "void f(void) {\n#pragma regio disable\n#pragma regio enable\n}\n";
    let out = run(src, "none").unwrap();
    assert!(out.regions.is_empty());
    assert!(!out.text.contains("regio__register_idf"));
    assert_eq!(
        body(&out),
        "void f(void) {\nregio_disable();\nregio_enable();\n}\n"
    );
}

#[test]
fn ids_start_at_first_id_and_parents_come_first() {
    let filter = Filter::default();
    let src = "int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++)\n    while (s < i) s++;\n  return s;\n}\n";
    let mut inp = input(src, "functions,loops", &filter);
    inp.first_id = 40;
    let out = instrument(&inp).unwrap();
    let ids: Vec<(u32, Option<u32>)> = out.regions.iter().map(|r| (r.id, r.parent)).collect();
    assert_eq!(ids, vec![(40, None), (41, Some(40)), (42, Some(41))]);
    assert_eq!(out.regions[1].name, "for@3");
    assert_eq!(out.regions[1].aux.get("var"), Some(&"i".into()));
    assert_eq!(out.regions[2].name, "while@4");
}

#[test]
fn filtered_out_function_keeps_its_loops_and_user_regions_get_a_scope_guard() {
    let filter = Filter::parse("flt", "exclude region f\nexclude region b\n").unwrap();
    let src = "int f(int n) {\n#pragma regio begin a\n  while (n > 3) n--;\n#pragma regio end a\n#pragma regio begin b\n  n++;\n#pragma regio end b\n  return n;\n}\n";
    let out = instrument(&input(src, "functions,loops,user", &filter)).unwrap();
    let names: Vec<(&str, Option<u32>)> = out
        .regions
        .iter()
        .map(|r| (r.name.as_str(), r.parent))
        .collect();
    assert_eq!(names, vec![("a", None), ("while@3", Some(1))]);
    assert_eq!(
        body(&out),
        "int f(int n) {const unsigned int regio__s __attribute__((cleanup(regio_scope_close), unused)) = regio_scope_open();\nregio_enter(1u);\n  { const unsigned int regio__g2 __attribute__((cleanup(regio_guard_exit), unused)) = (regio_enter(2u), 2u); while (n > 3) n--; }\nregio_exit(1u);\n\n  n++;\n\n  return n;\n}\n"
    );
}

#[test]
fn skip_that_applies_to_nothing_warns() {
    let src = "#pragma regio skip\nint x;\nint f(void) { return x; }\n";
    let out = run(src, "functions").unwrap();
    let w: Vec<String> = out.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        w,
        vec!["src/t.c:1:1: warning: `#pragma regio skip` is not followed by a function definition or loop; ignored"]
    );
    assert_eq!(out.regions.len(), 1);
}

#[test]
fn skip_through_a_label_reaches_the_loop() {
    let src =
        "void f(int n) {\n#pragma regio skip\nagain:\n  while (n) n--;\n  if (n) goto again;\n}\n";
    let out = run(src, "loops").unwrap();
    assert!(out.regions.is_empty());
    assert!(out.warnings.is_empty());
}

#[test]
fn loops_entered_from_outside_are_left_alone_with_a_warning() {
    let src = "void f(int n) {\n  goto in;\n  while (n) {\nin:\n    n--;\n  }\n}\n";
    let out = run(src, "loops").unwrap();
    assert!(out.regions.is_empty());
    assert_eq!(
        out.warnings[0].to_string(),
        "src/t.c:3:3: warning: loop `while@3` not instrumented: label `in` inside it is the target of the `goto` at 2:3 outside it"
    );
}

#[test]
fn continuation_lines_keep_their_newlines() {
    let src =
        "void f(void) {\n#pragma regio \\\n  begin a /* why */\n#pragma regio end a // done\n}\n";
    let out = run(src, "user").unwrap();
    assert_eq!(
        body(&out),
        "void f(void) {const unsigned int regio__s __attribute__((cleanup(regio_scope_close), unused)) = regio_scope_open();\nregio_enter(1u);\n\nregio_exit(1u);\n}\n"
    );
    let r = &out.regions[0];
    assert_eq!(
        (r.start.line, r.start.col, r.end.line, r.end.col),
        (2, 1, 4, 19)
    );
}

#[test]
fn crlf_files_keep_their_line_ends() {
    let src =
        "void f(int n)\r\n{\r\n#pragma regio begin a\r\n  n++;\r\n#pragma regio end a\r\n}\r\n";
    let out = run(src, "functions,user").unwrap();
    assert_eq!(
        body(&out),
        "void f(int n)\r\n{const unsigned int regio__g1 __attribute__((cleanup(regio_guard_exit), unused)) = (regio_enter(1u), 1u);\r\nregio_enter(2u);\r\n  n++;\r\nregio_exit(2u);\r\n}\r\n"
    );
    assert_eq!(out.regions[1].end.col, 19);
}

#[test]
fn a_byte_order_mark_stays_first() {
    let src = "\u{feff}int f(void) { return 0; }\n";
    let out = run(src, "functions").unwrap();
    assert!(out
        .text
        .starts_with("\u{feff}#ifndef REGIO_PROBES_DECLARED"));
}

#[test]
fn call_forms_follow_how_the_value_is_used() {
    let src = "int g(int);\nvoid v(void);\nint f(int x) {\n  v();\n  x = g(x);\n  (void)g(x);\n  for (; x; x--, v()) ;\n  return x ? g(x) : 0;\n}\n";
    let out = run(src, "calls").unwrap();
    assert_eq!(
        body(&out),
        "int g(int);\nvoid v(void);\nint f(int x) {\n  { regio_enter(1u); v(); regio_exit(1u); }\n  x = __extension__ ({ const unsigned int regio__c2 __attribute__((cleanup(regio_guard_exit), unused)) = (regio_enter(2u), 2u); g(x); });\n  (void)(regio_enter(3u), g(x), regio_exit(3u));\n  for (; x; x--, (regio_enter(4u), v(), regio_exit(4u))) ;\n  return x ? g(x) : 0;\n}\n"
    );
    let names: Vec<&str> = out.regions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["v", "g", "g", "v"]);
}

#[test]
fn io_calls_are_their_own_kind_and_macros_builtins_and_probes_are_not_calls() {
    let src = "#include <stdio.h>\nvoid f(int x) {\n  printf(\"%d\\n\", x);\n  ASSERT(x);\n  __builtin_prefetch(&x);\n  regio_enable();\n  x = (int)sizeof(puts(\"no\"));\n}\n";
    let out = run(src, "io,calls").unwrap();
    let kinds: Vec<(RegionKind, &str)> = out
        .regions
        .iter()
        .map(|r| (r.kind.clone(), r.name.as_str()))
        .collect();
    assert_eq!(kinds, vec![(RegionKind::Io, "printf")]);
    let out = run(src, "calls").unwrap();
    assert!(out.regions.is_empty());
}

#[test]
fn a_break_out_of_several_user_regions_closes_them_innermost_first() {
    let src = "void f(int n) {\n  while (n--) {\n#pragma regio begin a\n#pragma regio begin b\n    if (n == 3) break;\n#pragma regio end b\n#pragma regio end a\n  }\n}\n";
    let out = run(src, "user").unwrap();
    assert!(body(&out).contains("if (n == 3) { regio_exit(2u); regio_exit(1u); break; }\n"));
    assert!(body(&out).starts_with(
        "void f(int n) {const unsigned int regio__s __attribute__((cleanup(regio_scope_close), unused)) = regio_scope_open();\n"
    ));
}

#[test]
fn extern_c_guards_of_headers_parse() {
    let src = "#ifndef H\n#define H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\nstatic inline int g(int x) { return x; }\n#if defined(__cplusplus)\n} /* extern C */\n#endif\n#endif\n";
    let out = run(src, "functions").unwrap();
    assert_eq!(out.regions.len(), 1);
    assert!(body(&out).contains(
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\nstatic inline int g(int x) {const unsigned"
    ));
    assert_eq!(
        parse::mask_cplusplus_guards("#ifdef __cplusplus\nint x;\n#endif\n"),
        "#ifdef __cplusplus\nint x;\n#endif\n"
    );
}

#[test]
fn lower_case_macros_and_brace_initializers_are_not_calls() {
    let src = "#define array_new() { 0, 0 }\n#define  twice(x) ((x) * 2)\n#define ONE 1\nstruct a { int n, c; };\nint g(int);\nvoid f(void) {\n  struct a x = array_new();\n  struct a y = { g(1), g(2) };\n  int z = twice(g(3)) + other_new();\n  g(4);\n  (void)x; (void)y; (void)z;\n}\n";
    let macros = function_like_macros(src);
    let mut names: Vec<&str> = macros.iter().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, vec!["array_new", "twice"]);
    let out = run(src, "calls").unwrap();
    let called: Vec<&str> = out.regions.iter().map(|r| r.name.as_str()).collect();
    // g(1) and g(2) are in a brace initializer, g(3) is a macro argument
    // (a macro may stringify it): left alone.
    assert_eq!(called, vec!["other_new", "g"]);
    let filter = Filter::default();
    let known: std::collections::HashSet<String> = ["other_new".to_string()].into();
    let out = instrument_with_macros(&input(src, "calls", &filter), &known).unwrap();
    let called: Vec<&str> = out.regions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(called, vec!["g"]);
    assert!(body(&out).contains(
        "  int z = twice(g(3)) + other_new();\n  { regio_enter(1u); g(4); regio_exit(1u); }\n"
    ));
}

#[test]
fn cplusplus_headers_are_left_whole() {
    let filter = Filter::default();
    let src = "#include <streambuf>\nclass gzbuf : public std::streambuf {\n  int fd;\n public:\n  int get() { return fd; }\n};\n";
    let mut i = input(src, "functions", &filter);
    i.rel_path = "gz.h";
    let out = instrument(&i).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(out.text, src);
    let w: Vec<String> = out.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        w,
        ["src/t.c:2:1: warning: not measured: a C++ header (Regio's C front end reads C); left as written"]
    );
    // A C header with a `class` member name is C.
    let c =
        "struct s { int class_id; };\nstatic inline int f(struct s *p) { return p->class_id; }\n";
    let mut i = input(c, "functions", &filter);
    i.rel_path = "c.h";
    assert!(instrument(&i)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .warnings
        .is_empty());
}

/// Nothing is lost silently: every function of these misread shapes is
/// either measured or listed as left as written (a unit the second
/// reading "took" without giving its function a region once vanished).
#[test]
fn every_function_is_measured_or_listed() {
    let cases = [
        "static SQLITE_WSD struct S {\n  int n[9];\n} s = { {0,} };\n#define wsd s\nSQLITE_PRIVATE int value(int op){\n  return wsd.n[op];\n}\nSQLITE_PRIVATE void add(int op, int N){\n  wsd.n[op] += N;\n}\n",
        "typedef struct S S;\nstatic SQLITE_WSD struct S {\n  int now[9];\n} st = { {0,}, };\n#ifdef OMIT_WSD\n# define stInit  S *x = &GLOBAL(S,st)\n# define stv x[0]\n#else\n# define stInit\n# define stv st\n#endif\nSQLITE_PRIVATE int value(int op){\n  stInit;\n  assert( op>=0 && op<ArraySize(stv.now) );\n  return stv.now[op];\n}\nSQLITE_PRIVATE void add(int op, int N){\n  stInit;\n  stv.now[op] += N;\n  if( stv.now[op]>0 ){\n    stv.now[op] = 0;\n  }\n}\n",
        "typedef int Expr;\nSQLITE_PRIVATE Expr *expr(int n){ return 0; }\nint ZEXPORT deflate(int x) { return x; }\n",
        "int f(void) {\n  return 1 +;\n}\nint g(void) { return 2; }\n",
    ];
    for src in cases {
        let out = run(src, "functions").unwrap_or_else(|e| panic!("{e:?}"));
        let names = ["value", "add", "expr", "deflate", "f", "g"];
        for name in names.iter().filter(|n| src.contains(&format!(" {n}("))) {
            assert!(
                out.regions.iter().any(|r| r.name == *name),
                "`{name}` neither measured nor listed in:\n{src}\n{:?}",
                out.regions
            );
        }
    }
}
