#[regio::traced(level = "debug")]
fn f() {}

fn main() {
    f();
}
