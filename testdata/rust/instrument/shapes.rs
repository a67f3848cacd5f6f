// Shapes the Rust front end must handle (golden test only: not built).
#![allow(dead_code)]

use std::future::Future;

/// Doc comments stay above the attribute we add.
#[inline]
pub fn generic<T: Clone>(xs: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    for x in xs {
        out.push(x.clone());
    }
    out
}

pub fn returns_impl() -> impl Iterator<Item = u32> {
    (0..3).map(|x| {
        let mut y = x;
        while y > 10 { y -= 1; }
        y
    })
}

pub unsafe fn raw(p: *const u8) -> u8 { *p }

pub async fn fetch() -> u32 {
    let mut n = 0;
    for i in 0..3 { n += i; } // left alone: async code
    n
}

pub const fn const_fn() -> u32 {
    let mut i = 0;
    while i < 3 { i += 1; } // left alone: const context
    i
}

const TABLE: [u8; { let mut n = 0; while n < 4 { n += 1; } n }] = [0; 4];

#[regio::skip]
fn skipped() {}

#[regio::traced(name = "custom")]
fn already() {}

fn labelled() -> u32 {
    let v = 'search: loop {
        for k in 0..10 {
            if k == 7 { break 'search k; }
        }
    };
    v
}

trait Shape {
    fn area(&self) -> f64;
    fn twice(&self) -> f64 { 2.0 * self.area() }
}

extern "C" {
    fn abs(x: i32) -> i32;
}

fn nested() -> impl Future<Output = ()> {
    fn inner() {}
    inner();
    async { for _ in 0..1 {} }
}

macro_rules! not_parsed {
    () => { fn hidden() { for _ in 0..1 {} } };
}

fn user_regions(n: u32) -> u32 {
    // regio: begin setup
    let base = n * 2;
    // regio: end setup
    // REGIO: Disable
    let r = base + 1;
    // regio: enable
    r
}
