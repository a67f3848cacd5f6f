//! A process killed by a fatal signal leaves a readable, incomplete profile
//! and still dies by that signal.

mod common;

use common::{check_invariants, finish, node, run, spawn, wait_for_line, SCENARIO};
use std::io::Write;

const ENTRY: &str = "child_entry";

/// Entry point of the child processes; does nothing in a normal test run.
#[test]
#[ignore = "entry point for child processes spawned by the other tests"]
fn child_entry() {
    let Ok(s) = std::env::var(SCENARIO) else {
        return;
    };
    regio::enter(1);
    regio::enter(2);
    match s.as_str() {
        "segv" => {
            let p = std::hint::black_box(std::ptr::null_mut::<u32>());
            // SAFETY: deliberately not: this is the crash under test.
            unsafe { p.write_volatile(1) };
        }
        "abort" => std::process::abort(),
        "wait" => wait_for_kill(),
        // A flush held up by REGIO_TEST_WRITE_PAUSE_MS; the parent sends
        // SIGTERM while it writes.
        "slow_flush" => {
            regio::flush();
            // The deferred SIGTERM is raised when the flush is done.
            std::process::exit(98)
        }
        "worker_segv" => {
            std::thread::spawn(|| {
                regio::enter(50);
                let p = std::hint::black_box(std::ptr::null_mut::<u32>());
                // SAFETY: deliberately not: the crash under test.
                unsafe { p.write_volatile(1) };
            })
            .join()
            .ok();
        }
        "worker_overflow" => {
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(|| overflow(0))
                .unwrap()
                .join()
                .ok();
        }
        other => panic!("unknown scenario {other}"),
    }
    unreachable!("scenario {s} should have died");
}

/// Recurses inside a region until the stack runs out.
fn overflow(depth: u64) -> u64 {
    let _g = regio::Guard::new(60);
    if std::hint::black_box(depth) == u64::MAX {
        return 0;
    }
    let pad = std::hint::black_box([depth; 64]);
    overflow(depth + 1) + pad[7]
}

/// Tells the parent it may send its signal, then waits for it (bounded, so
/// a broken parent never leaves a process behind).
fn wait_for_kill() -> ! {
    println!("\n{READY}");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(60));
    std::process::exit(99)
}

const READY: &str = "regio-test-child-ready";

/// A program whose own SIGTERM handler exists before the runtime starts.
#[test]
#[ignore = "entry point for child processes spawned by the other tests"]
fn child_with_handler() {
    if std::env::var(SCENARIO).is_err() {
        return;
    }
    extern "C" fn on_term(_: libc::c_int) {
        let msg = b"user handler ran\n";
        // SAFETY: write and _exit are async-signal-safe.
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(42);
        }
    }
    // SAFETY: installing a plain handler.
    unsafe { libc::signal(libc::SIGTERM, on_term as *const () as libc::sighandler_t) };
    regio::enter(1);
    wait_for_kill();
}

fn assert_killed_profile(r: &common::Run, sig: i32) -> regio_idf::rundir::Profile {
    assert_eq!(r.signal(), Some(sig), "status {:?}\n{}", r.status, r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(!p.complete);
    assert_eq!(p.reason, "signal");
    assert_eq!(p.signal, Some(sig));
    let t = &p.threads[0];
    assert_eq!(node(t, &[1]).open, 1);
    assert_eq!(node(t, &[1, 2]).open, 1);
    assert_eq!(node(t, &[1, 2]).calls, 1);
    p
}

#[test]
fn segfault_leaves_an_incomplete_profile_and_dies_by_sigsegv() {
    let r = run(ENTRY, "segv", &[]);
    assert_killed_profile(&r, libc::SIGSEGV);
}

#[test]
fn abort_leaves_an_incomplete_profile_and_dies_by_sigabrt() {
    let r = run(ENTRY, "abort", &[]);
    assert_killed_profile(&r, libc::SIGABRT);
}

#[test]
fn sigterm_during_a_flush_waits_for_it_and_then_kills() {
    let (child, dir, tmp) = spawn(
        ENTRY,
        "slow_flush",
        &[("REGIO_TEST_WRITE_PAUSE_MS", "1000")],
    );
    let t0 = std::time::Instant::now();
    while !common::list(&dir).iter().any(|n| n.contains(".tmp")) {
        assert!(t0.elapsed().as_secs() < 60, "the flush never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: signalling our own child, not yet reaped.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let r = finish(child, dir, tmp);
    // The flush finished (its file was renamed), then the signal's own
    // profile replaced it and the process died by SIGTERM.
    assert!(
        !common::list(&r.dir).iter().any(|n| n.contains(".tmp")),
        "{:?}",
        common::list(&r.dir)
    );
    assert_killed_profile(&r, libc::SIGTERM);
}

fn killed_by(sig: i32) -> common::Run {
    let (mut child, dir, tmp) = spawn(ENTRY, "wait", &[]);
    wait_for_line(&mut child, READY);
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
    finish(child, dir, tmp)
}

#[test]
fn sigterm_leaves_an_incomplete_profile_and_dies_by_sigterm() {
    let r = killed_by(libc::SIGTERM);
    assert_killed_profile(&r, libc::SIGTERM);
}

#[test]
fn sigint_leaves_an_incomplete_profile_and_dies_by_sigint() {
    let r = killed_by(libc::SIGINT);
    assert_killed_profile(&r, libc::SIGINT);
}

#[test]
fn a_crashing_worker_thread_is_written_with_the_rest() {
    let r = run(ENTRY, "worker_segv", &[]);
    let p = assert_killed_profile(&r, libc::SIGSEGV);
    assert_eq!(p.threads.len(), 2);
    assert_eq!(node(&p.threads[1], &[50]).open, 1);
}

#[test]
fn a_previous_handler_of_the_program_is_chained_to() {
    let (mut child, dir, tmp) = spawn("child_with_handler", "handler", &[]);
    wait_for_line(&mut child, READY);
    // SAFETY: signalling our own child.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let r = finish(child, dir, tmp);
    assert_eq!(r.status.code(), Some(42), "{}", r.stderr);
    assert!(r.stderr.contains("user handler ran"), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(!p.complete);
    assert_eq!(p.signal, Some(libc::SIGTERM));
}

#[test]
fn stack_overflow_in_a_thread_still_writes_the_profile() {
    // The handler runs on the thread's (small) alternate signal stack.
    let r = run(ENTRY, "worker_overflow", &[]);
    // Rust's own overflow handler, chained to, reports and aborts.
    assert!(
        [Some(libc::SIGSEGV), Some(libc::SIGABRT)].contains(&r.signal()),
        "{:?}\n{}",
        r.status,
        r.stderr
    );
    let p = r.profile();
    check_invariants(&p);
    assert!(!p.complete);
    assert_eq!(p.signal, Some(libc::SIGSEGV));
    let t = &p.threads[1];
    assert_eq!(t.nodes.len(), 1, "recursion folds onto one node");
    let n = node(t, &[60]);
    assert!(n.open > 100, "{n:?}");
    assert_eq!(n.calls, n.open as u64);
    assert_eq!(n.recursive_calls, n.calls - 1);
}
