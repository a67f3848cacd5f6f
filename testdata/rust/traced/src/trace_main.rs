//! Trace mode from Rust (tests/e2e/rust_trace.rs): `#[regio::traced]`
//! functions on `THREADS` spawned threads, a user event per step, and a
//! run-time mask change from the main thread. Known by construction:
//! - `worker` THREADS calls, one per thread; `step` STEPS per worker, each
//!   with the user event "step" = 100 * thread + step, in order, and
//!   LEAVES calls of `leaf`;
//! - then `regio::set_events("none")`: HIDDEN calls of `hidden` (each
//!   calling `leaf` and making a "hidden" event), none recorded;
//! - `regio::set_events("all")` and one more `leaf` on the main thread.
//!
//! So `leaf` has THREADS * STEPS * LEAVES + 1 recorded calls, `hidden` and
//! "hidden" none, and the main thread's trace two `mask` records.

pub const THREADS: u64 = 3;
pub const STEPS: u64 = 5;
pub const LEAVES: u64 = 4;
pub const HIDDEN: u64 = 7;

#[regio::traced]
fn leaf(x: u64) -> u64 {
    x * 3
}

#[regio::traced]
fn step(thread: u64, s: u64) -> u64 {
    regio::event!("step", 100 * thread + s);
    (0..LEAVES).map(|k| leaf(k + s)).sum()
}

#[regio::traced]
fn worker(thread: u64) -> u64 {
    (0..STEPS).map(|s| step(thread, s)).sum()
}

#[regio::traced]
fn hidden(x: u64) -> u64 {
    regio::event!("hidden", x);
    leaf(x) + 1
}

fn main() {
    let work: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS).map(|t| s.spawn(move || worker(t))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .sum()
    });
    if let Err(e) = regio::set_events("none") {
        eprintln!("{e}");
        std::process::exit(2);
    }
    let masked: u64 = (0..HIDDEN).map(hidden).sum();
    if let Err(e) = regio::set_events("all") {
        eprintln!("{e}");
        std::process::exit(2);
    }
    println!("{work} {masked} {}", leaf(1));
}
