#[regio::skip(x)]
fn f() {}

fn main() {
    f();
}
