//! Probe cost: regio enter+exit of an existing node against the floor (two
//! reads of the clock the runtime uses) and against `tracing` and `puffin`,
//! in the same run.
//!
//! `cargo bench -p regio-benches --bench probe`
//!
//! The same regio probes in trace mode (`REGIO_MODE=trace`, group
//! `probe_trace_mode`) run in a child process the bench starts after the
//! profile-mode group, in the same `cargo bench` run: the mode is read
//! once per process. Its buffers flush to a temporary run directory, so
//! the figure includes the amortised flush cost.
//!
//! Throttling is off (`REGIO_THROTTLE=off`, set by `main` for both
//! processes): these are figures of recorded probes.
//!
//! With counters on (one `read(2)` per counter group at each enter and
//! exit): `REGIO_COUNTERS=task-clock cargo bench -p regio-benches --bench probe --
//! probe/regio_enter_exit`.

use criterion::{black_box, criterion_group, Criterion};
use std::time::{Duration, Instant};
use tracing_subscriber::layer::SubscriberExt;

mod timing {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use tracing::span::Id;
    use tracing::Subscriber;
    use tracing_subscriber::layer::{Context, Layer};

    thread_local! {
        static ENTERED: Cell<u64> = const { Cell::new(0) };
    }
    pub static TOTAL: AtomicU64 = AtomicU64::new(0);

    /// Reads the runtime's clock at every span enter and exit.
    pub struct Timing;

    impl<S: Subscriber> Layer<S> for Timing {
        fn on_enter(&self, _: &Id, _: Context<'_, S>) {
            ENTERED.with(|e| e.set(regio::clock::ticks()));
        }
        fn on_exit(&self, _: &Id, _: Context<'_, S>) {
            let d = regio::clock::ticks().wrapping_sub(ENTERED.with(Cell::get));
            TOTAL.store(TOTAL.load(Relaxed).wrapping_add(d), Relaxed);
        }
    }
}

fn probe(c: &mut Criterion) {
    let mut g = c.benchmark_group("probe");

    #[cfg(target_arch = "x86_64")]
    g.bench_function("two_rdtsc", |b| {
        b.iter(|| {
            let t0 = regio::clock::rdtsc();
            let t1 = regio::clock::rdtsc();
            black_box(t1.wrapping_sub(t0))
        })
    });

    g.bench_function("two_clock_gettime", |b| {
        b.iter(|| {
            let t0 = regio::clock::monotonic_ns();
            let t1 = regio::clock::monotonic_ns();
            black_box(t1.wrapping_sub(t0))
        })
    });

    // Creates the node (and starts the runtime) outside the measurement.
    regio::enter(1);
    regio::exit(1);
    eprintln!("regio clock source: {}", regio::clock::source_name());
    eprintln!(
        "REGIO_COUNTERS: {}",
        std::env::var("REGIO_COUNTERS").unwrap_or_else(|_| "unset (no counters)".into())
    );

    g.bench_function("two_runtime_clock_reads", |b| {
        b.iter(|| {
            let t0 = regio::clock::ticks();
            let t1 = regio::clock::ticks();
            black_box(t1.wrapping_sub(t0))
        })
    });

    g.bench_function("regio_enter_exit", |b| {
        b.iter(|| {
            regio::enter(black_box(1));
            regio::exit(black_box(1));
        })
    });

    // A user event on an open node: count/min/max/sum of (node, name) in
    // the thread's table (the name's id found by hash, no lock).
    regio::enter(1);
    g.bench_function("regio_event", |b| {
        b.iter(|| regio::event(black_box("residual"), black_box(1.5)))
    });
    regio::exit(1);

    // What instrumented C and Fortran pay is not measured here: these
    // calls inline into the bench (objdump shows no call), so they time the
    // Rust path again. scripts/bench_c_probe.sh builds real C and Fortran
    // programs with `instrument flags` instead.

    let subscriber = tracing_subscriber::registry::Registry::default();
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!("bench");
        g.bench_function("tracing_span_enter_exit", |b| {
            b.iter(|| {
                let _g = span.enter();
            })
        });
    });

    // Not one of the targets: the Registry alone keeps no time, so this
    // adds the least a tracing-based profiler does (a clock read at enter
    // and at exit) to show the like-for-like cost.
    let subscriber = tracing_subscriber::registry::Registry::default().with(timing::Timing);
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!("bench");
        g.bench_function("tracing_span_enter_exit_timed_layer", |b| {
            b.iter(|| {
                let _g = span.enter();
            })
        });
    });

    puffin::set_scopes_on(true);
    g.bench_function("puffin_scope", |b| {
        b.iter_custom(|iters| {
            const FRAME: u64 = 10_000;
            let mut total = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let n = left.min(FRAME);
                let t = Instant::now();
                for _ in 0..n {
                    puffin::profile_scope!("bench");
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

/// The trace-mode child's group: the floor and the probes again.
fn probe_trace_mode(c: &mut Criterion) {
    let mut g = c.benchmark_group("probe_trace_mode");
    regio::enter(1);
    regio::exit(1);
    eprintln!(
        "REGIO_MODE: {}, REGIO_TRACE_BUFFER: {}",
        std::env::var("REGIO_MODE").unwrap_or_default(),
        std::env::var("REGIO_TRACE_BUFFER").unwrap_or_else(|_| "default (8M)".into())
    );
    g.bench_function("two_runtime_clock_reads", |b| {
        b.iter(|| {
            let t0 = regio::clock::ticks();
            let t1 = regio::clock::ticks();
            black_box(t1.wrapping_sub(t0))
        })
    });
    g.bench_function("regio_enter_exit", |b| {
        b.iter(|| {
            regio::enter(black_box(1));
            regio::exit(black_box(1));
        })
    });
    // No `regio_enter`/`regio_exit` row: called from Rust they inline into
    // the bench (no call, as objdump showed for the profile group's row,
    // removed 2026-11-24); what C and Fortran pay in trace mode is
    // `scripts/bench_trace_probe.sh`'s.
    // A user event: statistics plus a `user` record in the trace.
    regio::enter(1);
    g.bench_function("regio_event", |b| {
        b.iter(|| regio::event(black_box("residual"), black_box(1.5)))
    });
    regio::exit(1);
    g.finish();
}

criterion_group! {
    name = trace_benches;
    config = config();
    targets = probe_trace_mode
}

/// Set in the child that runs `probe_trace_mode`.
const TRACE_CHILD: &str = "REGIO_BENCH_TRACE_CHILD";

criterion_group! {
    name = benches;
    config = config();
    targets = probe
}

fn main() {
    // The runtime writes a profile at exit; keep it out of the source tree.
    std::env::set_var(
        "REGIO_DIR",
        std::env::temp_dir().join(format!("regio-bench-{}", std::process::id())),
    );
    // Measured probes: with throttling on (the default) the bench's region
    // is throttled after its first 100,000 calls (an empty region is as
    // brief as they come), and every later iteration would time the
    // throttled path, which records nothing, in both modes. (The
    // throttled path has its own figures: scripts/bench_c_probe.sh.)
    std::env::set_var("REGIO_THROTTLE", "off");
    if std::env::var_os(TRACE_CHILD).is_some() {
        trace_benches();
        Criterion::default().configure_from_args().final_summary();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    let child = std::env::current_exe().and_then(|exe| {
        std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(TRACE_CHILD, "1")
            .env("REGIO_MODE", "trace")
            .status()
    });
    match child {
        Ok(s) if s.success() => {}
        Ok(s) => eprintln!("trace-mode probes: child ended with {s}"),
        Err(e) => eprintln!("trace-mode probes: cannot start the child: {e}"),
    }
}
