//! Every item kind `#[regio::traced]` supports compiles.

use std::num::ParseIntError;

#[regio::traced]
fn free(x: u32) -> u32 {
    x + 1
}

#[regio::traced]
fn generic<T: Clone>(x: &T) -> T {
    x.clone()
}

#[regio::traced]
fn returns_impl(n: u32) -> impl Iterator<Item = u32> {
    0..n
}

/// # Safety
/// `p` must be valid.
#[regio::traced]
unsafe fn raw(p: *const u32) -> u32 {
    unsafe { *p }
}

#[regio::traced]
async fn parse(s: &str) -> Result<u32, ParseIntError> {
    let v: u32 = s.parse()?;
    Ok(v)
}

#[regio::traced(name = "renamed")]
fn named() {}

#[regio::traced(skip)]
fn skipped() {}

#[regio::skip]
fn marked() {}

trait Shape {
    #[regio::traced]
    fn describe(&self) -> String {
        String::from("shape")
    }
}

struct Unit;

impl Shape for Unit {}

impl Unit {
    #[regio::traced]
    fn method(&self, k: u32) -> u32 {
        #![allow(clippy::let_and_return)]
        let v = k * 2;
        v
    }
}

#[regio::traced]
fn main() {
    let _ = free(1) + generic(&2) + returns_impl(3).sum::<u32>();
    let v = 5;
    // SAFETY: `&v` is valid.
    let _ = unsafe { raw(&v) };
    let _fut = parse("7");
    named();
    skipped();
    marked();
    let _ = Unit.describe();
    let _ = Unit.method(3);
}
