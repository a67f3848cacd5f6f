//! What `#[regio::traced]` refuses, and what it accepts, checked by
//! compiling small programs (trybuild). The `.stderr` files are the exact
//! messages users see.

#[test]
fn refused_items_get_clear_errors_and_supported_ones_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail_*.rs");
    t.pass("tests/ui/pass_*.rs");
}
