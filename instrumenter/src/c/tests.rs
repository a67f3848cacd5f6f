//! Unit tests of small pure functions of the C front end. Whole files
//! (errors, warnings, probes, prelude) are golden fixtures:
//! instrumenter/tests/golden/fixtures/c/.

use super::*;

#[test]
fn cplusplus_guards_without_extern_c_are_kept() {
    assert_eq!(
        parse::mask_cplusplus_guards("#ifdef __cplusplus\nint x;\n#endif\n"),
        "#ifdef __cplusplus\nint x;\n#endif\n"
    );
}

#[test]
fn function_like_macros_are_those_defined_with_parameters() {
    let src =
        "#define array_new() { 0, 0 }\n#define  twice(x) ((x) * 2)\n#define ONE 1\nint g(int);\n";
    let macros = function_like_macros(src);
    let mut names: Vec<&str> = macros
        .iter()
        .map(String::as_str)
        .filter(|k| !k.contains(" as "))
        .collect();
    names.sort();
    assert_eq!(names, vec!["array_new", "twice"]);
    // Whether each can bring a function body (macro_uses.rs).
    assert!(macros.contains("array_new as block"));
    assert!(macros.contains("twice as blockless"));
}

fn header(text: &str) -> Option<u32> {
    let filter = crate::filter::Filter::default();
    cplusplus_header(&SourceInput {
        text,
        display_path: "x.h",
        rel_path: "x.h",
        idf_path: "regio.idf.json",
        selection: crate::selection::Selection::default(),
        filter: &filter,
        first_id: 1,
    })
}

#[test]
fn cplusplus_headers_are_told_by_lines_only_cplusplus_has() {
    assert_eq!(
        header("#include <x>\nclass gzbuf : public streambuf {\n};\n"),
        Some(2)
    );
    assert_eq!(header("class izstream\n{\n};\n"), Some(1));
    assert_eq!(header("template <class T> class M {};\n"), Some(1));
    assert_eq!(header("namespace z {\n}\n"), Some(1));
    // C: a parameter named `class`, a declaration.
    assert_eq!(
        header("int f(int a,\n  class size,\n  int b);\nclass x;\n"),
        None
    );
    // C++ only under `#ifdef __cplusplus`: a C header.
    assert_eq!(
        header("#ifdef __cplusplus\nclass W {\n};\n#endif\nint f(void);\n"),
        None
    );
}

#[test]
fn macros_that_start_a_statement_are_known_by_what_they_start() {
    let src =
        "#define vmcase(l) case l:\n#define jump(l)  L_##l:\n#define vmdispatch(o)\tswitch(o)\n\
               #define each(x) for (x = 0; x < 9; x++)\n#define pick(a) ((a) ? 1 : 0)\n\
               #define two(o) switch (o)\n#define two(o) goto *t[o];\n";
    let macros = function_like_macros(src);
    let word = |n: &str| super::calls::control_macro(&macros, n);
    assert_eq!(word("vmcase"), Some("label"));
    assert_eq!(word("jump"), Some("label"));
    assert_eq!(word("vmdispatch"), Some("switch"));
    assert_eq!(word("each"), Some("for"));
    assert_eq!(word("pick"), None);
    assert_eq!(word("two"), None, "definitions that disagree");
    assert!(macros.contains("two"));
}

/// The second reading re-parses the first reading's tree with only the
/// masked ranges edited; what it gets must be what a fresh parse of the
/// masked text gets (tree and errors), or the reading would depend on
/// how it was parsed. The masked text here is what `recover::mask` makes
/// of a function with `#if` alternatives in a loop head, in a file with a
/// readable function before and after it.
#[test]
fn an_incremental_parse_of_a_masked_text_is_a_fresh_parse() {
    let src = "int a(int x) { return x + 1; }\n\
               void f(int n) {\n\
               #ifdef UP\n    for (int i = 0; i < n; i++) {\n#else\n    for (int i = n; i > 0; i--) {\n#endif\n        a(i);\n    }\n}\n\
               int b(void) { return a(2); }\n";
    let first = parse::parse("t.c", src).expect("parses");
    assert!(!first.errors.is_empty(), "the alternatives are unreadable");
    // `#ifdef UP`, the `#else` branch and `#endif` blanked, as the first
    // branch's reading does.
    let mut masked = src.to_string();
    for cut in [
        "#ifdef UP",
        "#else\n    for (int i = n; i > 0; i--) {",
        "#endif",
    ] {
        let at = masked.find(cut).expect("in the text");
        let blanks: String = cut
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        masked.replace_range(at..at + cut.len(), &blanks);
    }
    let fresh = parse::parse_text("t.c", &masked, src).expect("parses");
    let again = parse::parse_text_again("t.c", &masked, src, Some(&first)).expect("parses");
    assert!(fresh.errors.is_empty(), "{:?}", fresh.errors);
    assert_eq!(
        again.tree.root_node().to_sexp(),
        fresh.tree.root_node().to_sexp()
    );
    assert_eq!(format!("{:?}", again.errors), format!("{:?}", fresh.errors));
    assert_eq!(again.text, masked);
}
