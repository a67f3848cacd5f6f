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
    let mut names: Vec<&str> = macros.iter().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, vec!["array_new", "twice"]);
}
