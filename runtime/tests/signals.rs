//! A process killed by a fatal signal leaves a readable, incomplete profile
//! and still dies by that signal.

mod common;

use common::{
    calls_by_region, check_invariants, count_trace, finish, node, only_trace, open_frames, run,
    spawn, wait_for_line, TraceCounts, SCENARIO,
};
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
        // Trace mode, a fault the kernel raises (not a sent signal) with
        // regions open, after enough records that full buffers were
        // written out before it: the file must hold those blocks, the last
        // buffer, and the regions left open.
        "trace_segv" => {
            pairs(FAULT_PAIRS);
            regio::enter(4);
            let p = std::hint::black_box(std::ptr::null_mut::<u32>());
            // SAFETY: deliberately not: this is the crash under test.
            unsafe { p.write_volatile(1) };
        }
        "trace_abort" => {
            pairs(FAULT_PAIRS);
            regio::enter(4);
            std::process::abort()
        }
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
        // Trace mode with REGIO_TEST_SIGNAL_IN_ENCODING: the signal comes
        // in the middle of the encoding before the user event. These run
        // on a libtest thread, whose alternate signal stack (std's) is a
        // few KiB: the handler's end-of-run trace write must fit in it
        // (it failed when the trace file's path and header were built on
        // the stack).
        "trace_event" => {
            pairs(TRACE_PAIRS);
            regio::event("phase", 1.0);
        }
        // ... or of the encoding that makes room when a batch of raw
        // records is full.
        "trace_full" => {
            pairs(1_000_000);
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

fn pairs(n: u64) {
    for _ in 0..n {
        regio::enter(3);
        regio::exit(3);
    }
}

/// Fewer records than a batch of raw ones (1024: the runtime's
/// `RAW_BATCH` of 16 KiB), so the first encoding is the one before the
/// user event.
const TRACE_PAIRS: u64 = 400;

/// Pairs before the fault in the `trace_*` fault scenarios: with a 64 KiB
/// buffer (`FAULT_BUFFER`, about 7/8 of it filled before a write-out) and
/// 3-4 bytes per record, several write-outs.
const FAULT_PAIRS: u64 = 60_000;
const FAULT_BUFFER: &str = "64K";

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

/// Trace mode, a program whose own SA_SIGINFO handler for SIGTERM exists
/// before the runtime starts; the signal comes inside the encoding.
#[test]
#[ignore = "entry point for child processes spawned by the other tests"]
fn child_trace_with_handler() {
    if std::env::var(SCENARIO).is_err() {
        return;
    }
    extern "C" fn on_term(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel's siginfo; write and _exit are
        // async-signal-safe.
        unsafe {
            let ok = sig == libc::SIGTERM && (*info).si_code == libc::SI_QUEUE;
            let msg: &[u8] = if ok {
                b"user handler ran with the sender's siginfo\n"
            } else {
                b"user handler ran with another siginfo\n"
            };
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(42);
        }
    }
    // SAFETY: installing a handler on a zeroed, filled-in sigaction.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_term as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
    regio::enter(1);
    regio::enter(2);
    pairs(TRACE_PAIRS);
    regio::event("phase", 1.0);
    unreachable!("the handler exits");
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

/// Trace mode, the owner sends itself `sig` in the middle of its first
/// encoding (REGIO_TEST_SIGNAL_IN_ENCODING): the process dies by it, and
/// its trace file, decoded, holds the records of the scenario up to the
/// signal, by region: enters, exits, and the regions still open.
fn killed_inside_the_encoding(
    scenario: &str,
    sig: i32,
    extra: &[(&str, &str)],
) -> (common::Run, TraceCounts) {
    let sig_text = sig.to_string();
    let mut env = vec![
        ("REGIO_MODE", "trace"),
        ("REGIO_THROTTLE", "off"),
        ("REGIO_TEST_SIGNAL_IN_ENCODING", sig_text.as_str()),
    ];
    env.extend_from_slice(extra);
    let r = run(ENTRY, scenario, &env);
    assert_eq!(r.signal(), Some(sig), "status {:?}\n{}", r.status, r.stderr);
    let c = trace_counts(&r);
    (r, c)
}

/// The run's only trace file, decoded (whole) and counted.
fn trace_counts(r: &common::Run) -> TraceCounts {
    count_trace(&only_trace(r))
}

/// `assert_killed_profile` for a trace-mode run.
fn assert_killed_trace_profile(r: &common::Run, sig: i32) -> regio_idf::rundir::Profile {
    let p = r.profile();
    assert_eq!(p.mode, "trace");
    assert!(!p.complete);
    assert_eq!((p.reason.as_str(), p.signal), ("signal", Some(sig)));
    let t = &p.threads[0];
    assert_eq!(node(t, &[1]).open, 1);
    assert_eq!(node(t, &[1, 2]).open, 1);
    assert_eq!(node(t, &[1, 2]).calls, 1);
    p
}

fn check_trace_event_run(sig: i32) {
    let (r, c) = killed_inside_the_encoding("trace_event", sig, &[]);
    let p = assert_killed_trace_profile(&r, sig);
    assert_eq!(node(&p.threads[0], &[1, 2, 3]).calls, TRACE_PAIRS);
    // Every pair recorded before the signal, the record whose encoding
    // it interrupted (the user event's name, defined before its first
    // value; the value is not recorded: the signal came first), and the
    // end-of-run tail.
    let want: Vec<(u32, u64)> = vec![(1, 1), (2, 1), (3, TRACE_PAIRS)];
    assert_eq!(c.enters.clone().into_iter().collect::<Vec<_>>(), want);
    assert_eq!(
        c.exits.clone().into_iter().collect::<Vec<_>>(),
        [(3, TRACE_PAIRS)]
    );
    assert_eq!(c.open, [1, 2]);
    assert_eq!((c.strings, c.user, c.clock_rate), (1, 0, 1), "{c:?}");
}

#[test]
fn sigterm_inside_the_encoding_before_an_event_loses_no_record() {
    check_trace_event_run(libc::SIGTERM);
}

#[test]
fn a_sent_sigfpe_inside_the_encoding_waits_for_it_too() {
    // Sent (sigqueue), not a fault: nothing re-executes, it can wait. (Not
    // SIGSEGV: libtest's std handler, chained to, ignores a sent one.)
    check_trace_event_run(libc::SIGFPE);
}

#[test]
fn sigint_inside_the_encoding_of_a_full_batch_loses_no_record() {
    let (r, c) = killed_inside_the_encoding("trace_full", libc::SIGINT, &[]);
    let p = assert_killed_trace_profile(&r, libc::SIGINT);
    let n = node(&p.threads[0], &[1, 2, 3]);
    // The probe whose record found the buffer full, the signal's instant,
    // is recorded too: the trace holds what the profile counted.
    let enters = c.enters.get(&3).copied().unwrap_or(0);
    assert_eq!(enters, n.calls, "{c:?}");
    // The profile may not show that probe's frame open yet (its depth is
    // published after the record); the trace is whole and nested.
    assert!(c.open == [1, 2] || c.open == [1, 2, 3], "{c:?}");
    let still_open = c.open.len() as u64 - 2;
    assert_eq!(c.exits.get(&3).copied().unwrap_or(0), enters - still_open);
    // A batch is 1024 raw records (16 KiB): all of them, not fewer.
    assert!(enters * 2 + 2 >= 1024, "{c:?}");
    assert_eq!(c.clock_rate, 1);
}

#[test]
fn a_signal_deferred_inside_the_encoding_reaches_the_programs_handler() {
    let env = [
        ("REGIO_MODE", "trace"),
        ("REGIO_THROTTLE", "off"),
        ("REGIO_TEST_SIGNAL_IN_ENCODING", "15"),
    ];
    let r = run("child_trace_with_handler", "handler", &env);
    assert_eq!(r.status.code(), Some(42), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("user handler ran with the sender's siginfo"),
        "{}",
        r.stderr
    );
    let c = trace_counts(&r);
    let want: Vec<(u32, u64)> = vec![(1, 1), (2, 1), (3, TRACE_PAIRS)];
    assert_eq!(c.enters.into_iter().collect::<Vec<_>>(), want);
    assert_eq!(c.exits.into_iter().collect::<Vec<_>>(), [(3, TRACE_PAIRS)]);
}

/// Trace mode, a fault the kernel raises (`scenario`: a null write, or
/// `abort()`) in the middle of the program with regions 1, 2 and 4 open,
/// after `FAULT_PAIRS` pairs of region 3 have filled the buffer several
/// times: the process dies by the signal, its profile is the signal's,
/// and its trace file decodes whole (the blocks written out before the
/// fault, then the last buffer the handler wrote) with every record the
/// profile counted: enters per region == calls per region, the regions
/// open at its end == the profile's open frames, time never going back.
fn fault_in_trace_mode(scenario: &str, sig: i32) {
    let env = [
        ("REGIO_MODE", "trace"),
        ("REGIO_TRACE_BUFFER", FAULT_BUFFER),
    ];
    let r = run(ENTRY, scenario, &env);
    // Not a second fault inside the handler (the end-of-run write on a
    // small alternate stack) either.
    assert_eq!(r.signal(), Some(sig), "status {:?}\n{}", r.status, r.stderr);
    let p = assert_killed_trace_profile(&r, sig);
    let t = &p.threads[0];
    assert_eq!(node(t, &[1, 2, 3]).calls, FAULT_PAIRS);
    assert_eq!(node(t, &[1, 2, 4]).open, 1);
    let file = only_trace(&r);
    let c = count_trace(&file);
    // Written out before the fault: the flush records and whole blocks
    // of a full buffer each (a 64 KiB buffer holds fewer than 20 000
    // records); the handler's own write adds the last buffer and the
    // clock-rate block.
    assert!(c.flushes >= 3, "{c:?}");
    assert!(file.blocks >= 5, "{} blocks", file.blocks);
    assert_eq!(
        c.enters.clone().into_iter().collect::<Vec<_>>(),
        calls_by_region(t).into_iter().collect::<Vec<_>>(),
        "enter records per region against the profile's calls"
    );
    assert_eq!(c.exits.get(&3).copied(), Some(FAULT_PAIRS));
    assert_eq!(c.open, open_frames(t), "open at the fault");
    assert_eq!(c.open, [1, 2, 4]);
    assert_eq!(c.clock_rate, 1, "the end-of-run tail");
}

#[test]
fn a_segfault_in_trace_mode_keeps_the_written_blocks_and_the_last_buffer() {
    fault_in_trace_mode("trace_segv", libc::SIGSEGV);
}

#[test]
fn abort_in_trace_mode_keeps_the_written_blocks_and_the_last_buffer() {
    fault_in_trace_mode("trace_abort", libc::SIGABRT);
}
