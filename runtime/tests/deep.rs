//! Deep chains of distinct regions (f1 calls f2 ... calls fN) cost time
//! linear in N: entering them, writing a profile while they are all open
//! (from a flush and from a signal handler on the alternate stack), and
//! writing it at exit.
//!
//! Each scenario runs in a child with a deadline; the quadratic runtime
//! this guards against took minutes at this depth.

mod common;

use common::{check_invariants, spawn, Run, SCENARIO};
use std::time::{Duration, Instant};

const ENTRY: &str = "child_entry";
const DEPTH: u32 = 100_000;
/// Generous for a debug build on a loaded machine; the linear code takes
/// well under a second.
const DEADLINE: Duration = Duration::from_secs(60);

/// Entry point of the child processes; does nothing in a normal test run.
#[test]
#[ignore = "entry point for child processes spawned by the other tests"]
fn child_entry() {
    let Ok(s) = std::env::var(SCENARIO) else {
        return;
    };
    for r in 1..=DEPTH {
        regio::enter(r);
    }
    match s.as_str() {
        // Written with every frame open, then at exit with all closed.
        "flush_then_exit" => {
            assert!(regio::flush());
            for r in (1..=DEPTH).rev() {
                regio::exit(r);
            }
            // The chain again: every node exists now.
            for r in 1..=DEPTH {
                regio::enter(r);
            }
            regio::exit(1);
        }
        // Written from the signal handler with every frame open.
        "sigterm" => {
            // SAFETY: raising a signal in our own process.
            unsafe { libc::raise(libc::SIGTERM) };
            unreachable!("SIGTERM should have killed the process");
        }
        // The same chain under two roots: the second one's nodes are
        // created while nodes of the same regions exist elsewhere.
        "two_roots" => {
            regio::exit(1);
            regio::enter(DEPTH + 1);
            for r in 2..=DEPTH {
                regio::enter(r);
            }
            regio::exit(DEPTH + 1);
        }
        other => panic!("unknown scenario {other}"),
    }
}

fn run_with_deadline(scenario: &str) -> Run {
    let (mut child, dir, tmp) = spawn(ENTRY, scenario, &[]);
    let t0 = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if t0.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{scenario}: a {DEPTH}-deep chain took over {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    common::finish(child, dir, tmp)
}

/// The nodes form one chain 1 -> 2 -> ... -> DEPTH under `root_parent`.
fn assert_chain(t: &regio_idf::rundir::ThreadProfile, first_id: usize, open: u32, calls: u64) {
    let nodes = &t.nodes[first_id..first_id + DEPTH as usize - 1];
    for (k, n) in nodes.iter().enumerate() {
        assert_eq!(n.open, open, "{n:?}");
        assert_eq!(n.calls, calls, "{n:?}");
        assert_eq!(n.recursive_calls, 0, "{n:?}");
        if k > 0 {
            assert_eq!(n.parent, Some(n.id - 1), "{n:?}");
            let p = &nodes[k - 1];
            assert!(n.inclusive_ns <= p.inclusive_ns, "{n:?} under {p:?}");
        }
    }
}

#[test]
fn a_deep_chain_is_entered_flushed_and_written_in_linear_time() {
    let r = run_with_deadline("flush_then_exit");
    assert!(r.status.success(), "{:?}\n{}", r.status, r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(p.complete);
    let t = &p.threads[0];
    assert_eq!(t.nodes.len(), DEPTH as usize);
    assert_chain(t, 0, 0, 2);
}

#[test]
fn a_deep_chain_is_written_from_a_signal_handler() {
    let r = run_with_deadline("sigterm");
    assert_eq!(
        r.signal(),
        Some(libc::SIGTERM),
        "{:?}\n{}",
        r.status,
        r.stderr
    );
    let p = r.profile();
    check_invariants(&p);
    assert!(!p.complete);
    let t = &p.threads[0];
    assert_eq!(t.nodes.len(), DEPTH as usize);
    assert_chain(t, 0, 1, 1);
}

#[test]
fn a_deep_chain_under_a_second_root_is_linear_too() {
    let r = run_with_deadline("two_roots");
    assert!(r.status.success(), "{:?}\n{}", r.status, r.stderr);
    let p = r.profile();
    check_invariants(&p);
    let t = &p.threads[0];
    // DEPTH nodes of the first chain, then the second root and its
    // DEPTH - 1 nodes.
    assert_eq!(t.nodes.len(), 2 * DEPTH as usize);
    assert_chain(t, 0, 0, 1);
    let second = DEPTH as usize + 1;
    assert_eq!(t.nodes[second].parent, Some(DEPTH));
    assert_chain(t, second, 0, 1);
}
