use super::*;
use crate::filter::Filter;
use crate::selection::Selection;

fn run(src: &str, regions: &str) -> Result<Instrumented, Vec<Diagnostic>> {
    let filter = Filter::default();
    let input = SourceInput {
        text: src,
        display_path: "t.rs",
        rel_path: "t.rs",
        idf_path: "/o/regio.idf.json",
        selection: regions.parse::<Selection>().unwrap(),
        filter: &filter,
        first_id: 1,
    };
    instrument(&input)
}

#[test]
fn functions_get_the_attribute_on_their_own_line() {
    let src = "/// doc\n#[inline]\npub fn f() {}\nconst fn c() -> u32 { 1 }\n#[regio::skip]\nfn s() {}\nimpl X { pub(crate) fn m(&self) {} }\ntrait T { fn d(&self) {} fn n(&self); }\n";
    let out = run(src, "functions").unwrap();
    assert_eq!(
        out.text,
        "/// doc\n#[inline]\n#[::regio::traced] pub fn f() {}\nconst fn c() -> u32 { 1 }\n#[regio::skip]\nfn s() {}\nimpl X { #[::regio::traced] pub(crate) fn m(&self) {} }\ntrait T { #[::regio::traced] fn d(&self) {} fn n(&self); }\n"
    );
    assert!(out.regions.is_empty());
}

#[test]
fn loops_are_wrapped_keeping_labels_and_values() {
    let src = "fn f() -> u32 {\n    'outer: for i in 0..3 {\n        while i > 5 {}\n    }\n    let v = loop { break 7; };\n    v\n}\n";
    let out = run(src, "loops").unwrap();
    assert_eq!(
        out.text,
        "fn f() -> u32 {\n    { let __regio_loop = ::regio::guard!(Loop, \"for@2\"); 'outer: for i in 0..3 {\n        { let __regio_loop = ::regio::guard!(Loop, \"while@3\"); while i > 5 {} }\n    } }\n    let v = { let __regio_loop = ::regio::guard!(Loop, \"loop@5\"); loop { break 7; } };\n    v\n}\n"
    );
}

#[test]
fn loops_in_async_and_const_code_are_left_with_a_warning() {
    let src = "async fn a() { for _ in 0..2 {} }\nconst N: usize = { let mut i = 0; while i < 3 { i += 1; } i };\n";
    let out = run(src, "loops").unwrap();
    assert_eq!(out.text, src);
    assert_eq!(out.warnings.len(), 2);
    assert!(out.warnings[0].message.contains("async code"));
}

#[test]
fn directives_become_a_guard_and_a_drop() {
    let src = "fn f() {\n    // regio: begin solve\n    let x = 1;\n    // regio: end solve\n    // regio: disable\n    println!(\"{x}\");\n}\n";
    let out = run(src, "none").unwrap();
    assert_eq!(
        out.text,
        "fn f() {\n    let __regio_user_0 = ::regio::guard!(User, \"solve\"); // regio: begin solve\n    let x = 1;\n    drop(__regio_user_0); // regio: end solve\n    ::regio::disable(); // regio: disable\n    println!(\"{x}\");\n}\n"
    );
}

#[test]
fn bad_directives_are_located_errors() {
    let cross = "fn f() {\n    // regio: begin a\n    // regio: begin b\n    // regio: end a\n}\n";
    let e = run(cross, "none").unwrap_err();
    assert!(
        e.iter().any(|d| d
            .to_string()
            .contains("does not match the innermost open region `b`")),
        "{e:?}"
    );
    let blocks = "fn f() {\n    // regio: begin a\n    {\n    // regio: end a\n    }\n}\n";
    let e = run(blocks, "none").unwrap_err();
    assert!(
        e[0].to_string().contains("not in the block of its `begin`"),
        "{e:?}"
    );
    let unclosed = "fn f() {\n    // regio: begin a\n}\n";
    assert!(run(unclosed, "none").unwrap_err()[0]
        .to_string()
        .starts_with("t.rs:2:5: error: `// regio: begin a` is never closed"));
    let inside = "fn f() {\n    let x = (1,\n    // regio: disable\n    2);\n}\n";
    assert!(run(inside, "none").unwrap_err()[0]
        .to_string()
        .contains("between the statements"));
}

#[test]
fn unparsable_files_are_left_alone_with_a_warning() {
    let src = "fn f( {\n";
    let out = run(src, "functions").unwrap();
    assert_eq!(out.text, src);
    assert!(out.warnings[0].message.contains("syn cannot parse"));
}
