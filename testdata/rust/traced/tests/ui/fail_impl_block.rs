struct S;

#[regio::traced]
impl S {
    fn f(&self) {}
}

fn main() {
    S.f();
}
