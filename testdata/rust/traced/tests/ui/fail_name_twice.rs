#[regio::traced(name = "a", name = "b")]
fn f() {}

fn main() {
    f();
}
