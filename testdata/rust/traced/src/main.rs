//! Every item kind `#[regio::traced]` supports, each called a number of
//! times the end-to-end test knows by construction (the constants below).
//! Stdout is deterministic and must be the same with the `regio/off`
//! feature, which compiles every macro away.

mod exec;
mod shapes;

use std::num::ParseIntError;

use shapes::{Area, Circle, Square};

pub const FIB_N: u32 = 15;
pub const PARSES: usize = 5;
pub const THREADS: usize = 3;
pub const PER_THREAD: u64 = 4;
pub const ASYNC_JOBS: u64 = 3;
pub const YIELDS: u32 = 2;
pub const RAYON_ITEMS: u64 = 20;

#[regio::traced]
fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64; // early return
    }
    fib(n - 1) + fib(n - 2)
}

/// Mutual recursion: is_even/is_odd.
#[regio::traced]
fn is_even(n: u32) -> bool {
    if n == 0 {
        true
    } else {
        is_odd(n - 1)
    }
}

#[regio::traced]
fn is_odd(n: u32) -> bool {
    n != 0 && is_even(n - 1)
}

/// `?` leaves the region early on the error path.
#[regio::traced]
fn parse_sum(a: &str, b: &str) -> Result<i64, ParseIntError> {
    let x: i64 = a.trim().parse()?;
    let y: i64 = b.trim().parse()?;
    Ok(x + y)
}

#[regio::traced(name = "solve")]
fn solve_internal(n: u64) -> u64 {
    (1..=n).map(|i| i * i).sum()
}

#[regio::traced(skip)]
fn not_measured(x: u64) -> u64 {
    x + 1
}

#[regio::traced]
fn largest<T: PartialOrd + Copy>(xs: &[T]) -> T {
    let mut best = xs[0];
    for &x in xs {
        if x > best {
            best = x;
        }
    }
    best
}

#[regio::traced]
fn evens(limit: u32) -> impl Iterator<Item = u32> {
    (0..limit).filter(|x| x % 2 == 0)
}

/// # Safety
/// `p` must be valid for reads.
#[regio::traced]
unsafe fn read_raw(p: *const u64) -> u64 {
    *p
}

#[regio::traced]
fn may_panic(fail: bool) -> u32 {
    if fail {
        panic!("deliberate");
    }
    7
}

#[regio::traced]
async fn fetch(job: u64) -> Result<u64, ParseIntError> {
    for _ in 0..YIELDS {
        exec::yield_now().await;
    }
    let base: u64 = "10".parse()?;
    Ok(base * job + leaf(job))
}

#[regio::traced]
fn leaf(x: u64) -> u64 {
    x * 3
}

/// Also a user event per thread: values 0..THREADS merge into one node.
#[regio::traced]
fn worker(id: usize) -> u64 {
    regio::event!("worker_id", id);
    (0..PER_THREAD).map(|k| leaf(k + id as u64)).sum()
}

/// Run on rayon's pool workers.
#[regio::traced]
fn rayon_item(x: u64) -> u64 {
    x * x
}

fn main() {
    // The caught panic below must not print a message: stdout/stderr of the
    // plain and traced builds are compared.
    std::panic::set_hook(Box::new(|_| {}));

    println!("fib({FIB_N}) = {}", fib(FIB_N));
    println!("is_even(7) = {}", is_even(7));

    for (a, b) in [
        ("1", "2"),
        ("x", "3"),
        ("40", "2"),
        ("5", "y"),
        (" 7", "8 "),
    ]
    .iter()
    .take(PARSES)
    {
        match parse_sum(a, b) {
            Ok(v) => println!("parse_sum({a:?}, {b:?}) = {v}"),
            Err(e) => println!("parse_sum({a:?}, {b:?}) failed: {e}"),
        }
    }

    println!("solve(10) = {}", solve_internal(10));
    println!("not_measured(1) = {}", not_measured(1));
    println!(
        "largest = {} {}",
        largest(&[3, 9, 2]),
        largest(&[1.5, -2.0])
    );
    println!("evens = {:?}", evens(9).collect::<Vec<_>>());
    let v = 99u64;
    // SAFETY: `&v` is valid for reads.
    println!("read_raw = {}", unsafe { read_raw(&v) });

    let shapes: [&dyn Area; 2] = [&Square(2.0), &Circle(1.0)];
    for s in shapes {
        println!("{} area {:.3}", s.label(), s.area());
    }
    println!("square describe: {}", Square(3.0).describe());

    let caught = std::panic::catch_unwind(|| may_panic(true));
    println!("panic caught: {}", caught.is_err());
    println!("may_panic(false) = {}", may_panic(false));

    let total: u64 = (1..=ASYNC_JOBS)
        .map(|j| exec::block_on(fetch(j)).unwrap_or(0))
        .sum();
    println!("async total = {total}");

    let sums: Vec<u64> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..THREADS).map(|i| s.spawn(move || worker(i))).collect();
        hs.into_iter().map(|h| h.join().unwrap_or(0)).collect()
    });
    println!("thread sums = {sums:?}");

    use rayon::prelude::*;
    let par: u64 = (0..RAYON_ITEMS).into_par_iter().map(rayon_item).sum();
    println!("rayon sum = {par}");

    let squares = regio::region!("squares", {
        let mut acc = 0u64;
        for i in 0..5u64 {
            acc += i * i;
        }
        acc
    });
    println!("squares = {squares}");
    println!("other crate's leaf = {}", traced_lib::leaf(1));
}
