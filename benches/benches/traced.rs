//! `#[regio::traced]` on an empty function against the same function
//! plain, `#[tracing::instrument]` under tracing_subscriber's Registry, and
//! `puffin::profile_function!()`, all in one criterion run.
//!
//! `cargo bench -p regio-benches --bench traced`

use criterion::{black_box, criterion_group, Criterion};
use std::time::{Duration, Instant};

#[inline(never)]
fn plain(x: u64) -> u64 {
    black_box(x)
}

#[inline(never)]
#[regio::traced]
fn traced(x: u64) -> u64 {
    black_box(x)
}

#[inline(never)]
#[tracing::instrument(skip_all)]
fn with_tracing(x: u64) -> u64 {
    black_box(x)
}

#[inline(never)]
fn with_puffin(x: u64) -> u64 {
    puffin::profile_function!();
    black_box(x)
}

fn empty_function(c: &mut Criterion) {
    let mut g = c.benchmark_group("empty_function");
    g.bench_function("plain", |b| b.iter(|| plain(black_box(1))));

    // Registers the region and creates its node outside the measurement.
    traced(0);
    g.bench_function("regio_traced", |b| b.iter(|| traced(black_box(1))));

    let subscriber = tracing_subscriber::registry::Registry::default();
    tracing::subscriber::with_default(subscriber, || {
        g.bench_function("tracing_instrument_registry", |b| {
            b.iter(|| with_tracing(black_box(1)))
        });
    });

    puffin::set_scopes_on(true);
    g.bench_function("puffin_profile_function", |b| {
        b.iter_custom(|iters| {
            const FRAME: u64 = 10_000;
            let mut total = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let n = left.min(FRAME);
                let t = Instant::now();
                for _ in 0..n {
                    with_puffin(black_box(1));
                }
                total += t.elapsed();
                // Outside the timed part: hand the frame over so memory
                // stays bounded.
                puffin::GlobalProfiler::lock().new_frame();
                left -= n;
            }
            total
        })
    });
    puffin::set_scopes_on(false);
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = empty_function
}

fn main() {
    // The runtime writes a profile at exit; keep it out of the source tree.
    std::env::set_var(
        "REGIO_DIR",
        std::env::temp_dir().join(format!("regio-bench-traced-{}", std::process::id())),
    );
    benches();
    Criterion::default().configure_from_args().final_summary();
}
