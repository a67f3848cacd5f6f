//! Throttling (`REGIO_THROTTLE`) in whole processes: each scenario runs in
//! a fresh child (the throttle is process-wide state) with the setting the
//! test names; the test reads the profile it leaves.
//!
//! - A brief region on two threads stops on both (process-wide; a thread
//!   that gets there later makes no node for it), its nodes are marked
//!   with the calls they counted, no frame stays open, and the
//!   regions around it keep exact counts; a long region past the call
//!   threshold stays measured.
//! - A recursive brief region whose exits cannot tell whether their entry
//!   was recorded (`regio::exit`, Rust guards) is throttled at its
//!   outermost exit, so no frame of it is left open to be closed late.
//! - One whose exits are made only for recorded entries (instrumented C:
//!   the gate read before `regio_enter_gated`, `regio_guard_exit` only for
//!   a made entry) stops at the first exit past CALLS, in the middle of
//!   its recursion; its open frames close at their own exits.
//! - A brief region called from four places, each fewer than CALLS
//!   times but more together, is throttled per region and thread (its
//!   nodes summed at every 1024th call of one of them).
//! - `off` counts everything.

mod common;

use common::{check_invariants, node, run, run_scenario};
use regio_idf::rundir::Profile;
use std::hint::black_box;

const ENTRY: &str = "child_entry";

/// Entry point of the child processes; does nothing in a normal test run.
#[test]
#[ignore = "entry point for child processes spawned by the other tests"]
fn child_entry() {
    run_scenario(&[
        ("hot_threads", hot_threads),
        ("recursive", recursive),
        ("recursive_guarded", recursive_guarded),
        ("spread", spread),
    ]);
}

fn work(n: u64) -> u64 {
    (0..n).fold(0u64, |a, i| black_box(a.wrapping_mul(31).wrapping_add(i)))
}

const TINY: u32 = 50;
const LONG: u32 = 60;
const LOOP: u32 = 40;
const TINY_CALLS: u64 = 5000;
const LONG_CALLS: u64 = 1500;

/// Two threads, each: region LOOP around TINY_CALLS calls of the empty
/// region TINY and LONG_CALLS calls of LONG (tens of microseconds each).
fn hot_threads() {
    regio::enter(1);
    let workers: Vec<_> = (0..2)
        .map(|_| {
            std::thread::spawn(|| {
                let _l = regio::Guard::new(LOOP);
                for i in 0..TINY_CALLS {
                    let _t = regio::Guard::new(TINY);
                    black_box(i);
                }
                for _ in 0..LONG_CALLS {
                    let _s = regio::Guard::new(LONG);
                    black_box(work(20_000));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    regio::exit(1);
}

/// Settings for the tests about *when* a region is throttled by its call
/// count: a 1 s mean-time limit, so every call is brief however loaded the
/// machine is (with 10 µs, a fib(16) descheduled under load passed the
/// limit and was decided 1500 calls late).
const COUNT_ONLY: &str = "1000,1000000000";
const SPREAD_COUNT_ONLY: &str = "3000,1000000000";

fn profile(throttle: &str, scenario: &str) -> Profile {
    let r = run(ENTRY, scenario, &[("REGIO_THROTTLE", throttle)]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    p
}

#[test]
fn a_brief_region_stops_on_every_thread_and_the_rest_stays_exact() {
    // 1000 calls, 10 µs: TINY is brief, LONG (tens of µs) is not.
    let p = profile("1000,10000", "hot_threads");
    let setting = p.throttle.expect("the profile records the setting");
    assert_eq!((setting.calls, setting.ns), (1000, 10000));
    assert!(p.complete, "no frame left open");
    let mut at_least_one_decided = false;
    for t in &p.threads[1..] {
        assert_eq!(node(t, &[LOOP]).calls, 1);
        // A thread that started after the region was throttled never
        // made a node for it.
        let lp = node(t, &[LOOP]);
        if let Some(tiny) = t
            .nodes
            .iter()
            .find(|n| n.region == TINY && n.parent == Some(lp.id))
        {
            assert_eq!(tiny.throttled_at, Some(tiny.calls), "{tiny:?}");
            assert!(tiny.calls < TINY_CALLS, "{tiny:?}");
            at_least_one_decided |= tiny.calls >= 1000;
        }
        let long = node(t, &[LOOP, LONG]);
        assert_eq!((long.calls, long.throttled_at), (LONG_CALLS, None));
        for n in &t.nodes {
            assert_eq!(n.open, 0, "{n:?}");
        }
        // The calls after the throttle are in the parent's exclusive time.
        assert!(lp.exclusive_ns > 0);
    }
    assert!(at_least_one_decided, "{:#?}", p.threads);
    assert_eq!(node(&p.threads[0], &[1]).throttled_at, None);
}

#[test]
fn off_counts_every_call() {
    let p = profile("off", "hot_threads");
    assert_eq!(p.throttle, None);
    for t in &p.threads[1..] {
        let tiny = node(t, &[LOOP, TINY]);
        assert_eq!((tiny.calls, tiny.throttled_at), (TINY_CALLS, None));
        assert_eq!(node(t, &[LOOP, LONG]).calls, LONG_CALLS);
    }
}

const FIB: u32 = 70;
/// Calls of `fib(16)`: fib_calls(n) = fib_calls(n-1) + fib_calls(n-2) + 1.
const FIB16_CALLS: u64 = 3193;

fn fib(n: u32) -> u64 {
    let _g = regio::Guard::new(FIB);
    if n < 2 {
        n as u64
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

fn recursive() {
    let _main = regio::Guard::new(1);
    for _ in 0..10 {
        black_box(fib(black_box(16)));
    }
}

#[test]
fn a_recursive_region_is_throttled_at_its_outermost_exit() {
    let p = profile(COUNT_ONLY, "recursive");
    assert!(p.complete);
    let t = &p.threads[0];
    let f = node(t, &[1, FIB]);
    // The first outermost call ran whole (3193 calls, past 1000): at its
    // exit, with no frame of it open, the region stopped.
    assert_eq!((f.calls, f.throttled_at), (FIB16_CALLS, Some(FIB16_CALLS)));
    assert_eq!(f.recursive_calls, FIB16_CALLS - 1);
    assert_eq!(f.open, 0);
    assert_eq!(node(t, &[1]).calls, 1);
}

const CFIB: u32 = 71;

/// `fib` as instrumented C runs it (the prelude's `regio__guard` and
/// `regio__leave`): the entry is made only while the region's gate
/// (`regio_gates`) is open, and the guard's exit only for a made entry.
fn cfib(gates: *const u8, n: u32) -> u64 {
    // SAFETY: the block has a byte per local id below GATED_LOCAL_IDS.
    let guard: u32 = if unsafe { *gates.add(CFIB as usize) } == 0 {
        regio::regio_enter_gated(CFIB);
        CFIB
    } else {
        0
    };
    let r = if n < 2 {
        n as u64
    } else {
        cfib(gates, n - 1) + cfib(gates, n - 2)
    };
    if guard != 0 {
        // SAFETY: a readable u32.
        unsafe { regio::regio_guard_exit(&guard) };
    }
    r
}

fn recursive_guarded() {
    let _main = regio::Guard::new(1);
    let gates = regio::regio_gates(0);
    assert!(!gates.is_null(), "base 0 has gates");
    for _ in 0..10 {
        black_box(cfib(gates, black_box(16)));
    }
}

#[test]
fn a_guarded_recursive_region_stops_in_the_middle_of_its_recursion() {
    let p = profile(COUNT_ONLY, "recursive_guarded");
    assert!(p.complete, "every frame closed");
    let t = &p.threads[0];
    let f = node(t, &[1, CFIB]);
    // Decided at the first exit with 1000 closed calls, inside the first
    // fib(16) (3193 calls), at most 16 frames of it open then; no call is
    // counted after it, and the open frames closed at their own exits.
    assert_eq!(f.throttled_at, Some(f.calls), "{f:?}");
    assert!((1000..=1016).contains(&f.calls), "{f:?}");
    assert_eq!(f.recursive_calls, f.calls - 1, "one outermost call: {f:?}");
    assert_eq!(f.open, 0, "{f:?}");
    assert!(f.inclusive_ns >= f.max_ns && f.max_ns > 0, "{f:?}");
    assert_eq!(node(t, &[1]).calls, 1);
}

#[test]
fn a_guarded_recursive_region_is_exact_when_off() {
    let p = profile("off", "recursive_guarded");
    let f = node(&p.threads[0], &[1, CFIB]);
    assert_eq!(
        (f.calls, f.recursive_calls, f.throttled_at, f.open),
        (10 * FIB16_CALLS, 10 * (FIB16_CALLS - 1), None, 0)
    );
}

const SPREAD_PARENTS: [u32; 4] = [81, 82, 83, 84];
const SPREAD_TINY: u32 = 85;
const SPREAD_ROUNDS: u64 = 1500;

/// The empty region SPREAD_TINY under four parents in turn, SPREAD_ROUNDS
/// times each: 6000 calls in four nodes of 1500.
fn spread() {
    let _main = regio::Guard::new(1);
    for i in 0..SPREAD_ROUNDS {
        for p in SPREAD_PARENTS {
            let _p = regio::Guard::new(p);
            let _t = regio::Guard::new(SPREAD_TINY);
            black_box(i);
        }
    }
}

#[test]
fn a_region_spread_over_parents_is_throttled_per_region() {
    // 3000 calls: no node of SPREAD_TINY gets there (1500 each), the
    // region does (after 750 rounds); decided at the first node's 1024th
    // call, when the four nodes hold 4093-4096 calls.
    let p = profile(SPREAD_COUNT_ONLY, "spread");
    assert!(p.complete);
    let t = &p.threads[0];
    let mut total = 0;
    for parent in SPREAD_PARENTS {
        let n = node(t, &[1, parent, SPREAD_TINY]);
        assert_eq!(n.throttled_at, Some(n.calls), "{n:?}");
        assert!((1023..=1024).contains(&n.calls), "{n:?}");
        total += n.calls;
        // The parents, one node each under 3000 calls, stay measured.
        let pn = node(t, &[1, parent]);
        assert_eq!((pn.calls, pn.throttled_at), (SPREAD_ROUNDS, None));
    }
    assert!(total >= 3000, "{total}");
}

#[test]
fn a_region_spread_over_parents_is_exact_when_off() {
    let p = profile("off", "spread");
    for parent in SPREAD_PARENTS {
        let n = node(&p.threads[0], &[1, parent, SPREAD_TINY]);
        assert_eq!((n.calls, n.throttled_at), (SPREAD_ROUNDS, None));
    }
}
