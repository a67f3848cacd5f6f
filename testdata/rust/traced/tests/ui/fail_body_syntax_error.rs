// The body does not parse: the macro passes the tokens through, so rustc
// reports the user's own syntax error, not one from the macro.
#[regio::traced]
fn f() -> u32 {
    let x = ;
    x
}

fn main() {
    f();
}
