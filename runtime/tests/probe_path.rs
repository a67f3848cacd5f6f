//! The probe path makes no system call and no allocation, in profile and
//! trace mode (issue 15: "no lock, allocation or system call on the probe
//! path except the flush"), observed rather than taken from review.
//!
//! System calls: the scenario runs under `strace -f`. Each probing thread
//! warms up (its first pair registers it: thread state, trace buffer, DRG
//! nodes, all allowed to make system calls), then marks a window with two
//! writes to fd -1 that strace shows (`write(-1, "regio-window-begin",
//! ...) = -1 EBADF`) and makes N probe pairs inside it. The test counts the
//! system calls *that thread* made between its own two markers: none, for
//! N = 10 000 and N = 200 000, whatever libtest's other threads do
//! meanwhile (counting the whole process would also count their
//! scheduling-dependent futex waits, and could not tell the probes' calls
//! from theirs). The trace buffer is large enough that nothing is written
//! out in the window (checked: no `buffer_flush` record); with a small one
//! the flush's `write` appears in the window, which shows the method sees
//! what a probe-path system call would look like.
//!
//! Locks: an uncontended lock makes no system call and cannot be seen
//! from outside; a contended one waits in `futex`. Two threads probing at
//! once (their windows overlapping, started by a barrier) would contend on
//! any lock the probes shared, and make no system call either.
//!
//! Allocations: this test binary's global allocator counts the calls the
//! probing thread makes while a thread-local flag is up (set after the
//! first pair, cleared after the last); 100 000 pairs make none, with and
//! without write-outs of a small trace buffer (the flush, which opens the
//! file, builds its path in a mapping, not on the heap).
//!
//! Without strace: `SKIPPED: needs strace` and pass, unless
//! `REGIO_REQUIRE_TOOLCHAINS=1` (CI), where it fails.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::OsStr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use common::{count_trace, finish, only_trace, run, run_scenario, spawn_under};

/// Counts allocations (and frees, reallocations) made by a thread whose
/// `COUNTING` flag is up; otherwise the system allocator, untouched.
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // `const`, no destructor: reading it never allocates, even from
    // inside the allocator.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        ALLOCS.fetch_add(1, Relaxed);
    }
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note();
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const ENTRY: &str = "child_entry";
const BEGIN: &[u8] = b"regio-window-begin";
const END: &[u8] = b"regio-window-end";
const ALLOCS_LINE: &str = "allocations in the window: ";

/// Entry point of the child processes; does nothing in a normal test run.
#[test]
#[ignore = "entry point for child processes spawned by the other tests"]
fn child_entry() {
    run_scenario(&[("window", window), ("allocs", allocs)]);
}

fn env_number(name: &str) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name} unset"))
}

/// `n` pairs of region 2 nested in region 1 (the probes' common case:
/// a known node, one level deeper and back).
fn pairs(n: u64) {
    for _ in 0..n {
        regio::enter(1);
        regio::enter(2);
        regio::exit(2);
        regio::exit(1);
    }
}

/// A write strace shows with its text; fails (EBADF) and does nothing.
fn marker(text: &[u8]) {
    // SAFETY: writing a static buffer to an invalid descriptor.
    unsafe { libc::write(-1, text.as_ptr().cast(), text.len()) };
}

/// REGIO_TEST_THREADS threads, each: a warm-up pair, a barrier (so the
/// windows overlap), then REGIO_TEST_PAIRS pairs between its markers.
fn window() {
    let n = env_number("REGIO_TEST_PAIRS");
    let threads = env_number("REGIO_TEST_THREADS") as usize;
    let barrier = std::sync::Barrier::new(threads);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                pairs(1);
                barrier.wait();
                marker(BEGIN);
                pairs(n);
                marker(END);
            });
        }
    });
}

/// A warm-up pair, then REGIO_TEST_PAIRS pairs with this thread's
/// allocations counted; prints the count.
fn allocs() {
    let n = env_number("REGIO_TEST_PAIRS");
    pairs(1);
    COUNTING.with(|c| c.set(true));
    pairs(n);
    COUNTING.with(|c| c.set(false));
    println!("\n{ALLOCS_LINE}{}", ALLOCS.load(Relaxed));
}

/// Whether strace runs here (SKIPPED line, or a panic under
/// REGIO_REQUIRE_TOOLCHAINS=1, when not).
fn strace_works() -> bool {
    let out = std::process::Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .output();
    let problem = match out {
        Err(_) => "needs strace",
        Ok(o) if !o.status.success() => "needs strace allowed to trace (ptrace)",
        Ok(_) => return true,
    };
    if std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() == Ok("1") {
        panic!("strace does not run ({problem}); REGIO_REQUIRE_TOOLCHAINS=1");
    }
    println!("SKIPPED: {problem}");
    false
}

/// What one traced run gave: per probing thread, the system calls it made
/// between its markers (strace's lines), and the run itself.
struct Traced {
    windows: Vec<Vec<String>>,
    run: common::Run,
}

/// Runs the `window` scenario under `strace -f` with `env` besides.
fn traced_window(pairs: u64, threads: u64, env: &[(&str, &str)]) -> Traced {
    let out_dir = tempfile::tempdir().unwrap();
    let log = out_dir.path().join("strace.txt");
    let wrapper = [
        OsStr::new("strace"),
        OsStr::new("-f"),
        OsStr::new("-qq"),
        OsStr::new("-o"),
        log.as_os_str(),
    ];
    let (pairs, threads) = (pairs.to_string(), threads.to_string());
    let mut all = vec![
        ("REGIO_TEST_PAIRS", pairs.as_str()),
        ("REGIO_TEST_THREADS", threads.as_str()),
    ];
    all.extend_from_slice(env);
    let (child, dir, tmp) = spawn_under(&wrapper, ENTRY, "window", &all);
    let run = finish(child, dir, tmp);
    assert!(run.status.success(), "{:?}\n{}", run.status, run.stderr);
    let text = std::fs::read_to_string(&log).unwrap();
    Traced {
        windows: windows(&text),
        run,
    }
}

/// From `strace -f` output: for each thread that wrote both markers, the
/// lines of the system calls it made between them. A line is `TID
/// call(...) = result`; a call another thread's line interrupted shows as
/// `TID call(... <unfinished ...>` then `TID <... call resumed> ...`
/// (counted once, at its start); signals (`--- SIG...`) are not calls.
fn windows(text: &str) -> Vec<Vec<String>> {
    let begin = String::from_utf8_lossy(BEGIN).into_owned();
    let end = String::from_utf8_lossy(END).into_owned();
    let mut open: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    let mut done = Vec::new();
    for line in text.lines() {
        let Some((tid, call)) = line.split_once(' ') else {
            continue;
        };
        let call = call.trim_start();
        if call.contains(&begin) {
            open.insert(tid, Vec::new());
        } else if call.contains(&end) {
            if let Some(w) = open.remove(tid) {
                done.push(w);
            }
        } else if let Some(w) = open.get_mut(tid) {
            if !call.starts_with("<...") && !call.starts_with("---") && !call.starts_with("+++") {
                w.push(call.to_string());
            }
        }
    }
    assert!(open.is_empty(), "a window without its end marker");
    done
}

/// Big enough that 200 000 pairs (800 000 records, about 3.2 MB) are
/// never written out: the window holds no flush.
const BIG_BUFFER: &str = "32M";

fn mode_env(mode: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![("REGIO_MODE", mode), ("REGIO_TRACE_BUFFER", BIG_BUFFER)]
}

/// The trace holds every pair and was not written out in the window.
fn check_whole_trace(r: &common::Run, pairs: u64, threads: usize) {
    let files = common::trace_files(&r.dir);
    assert_eq!(files.len(), threads, "{files:?}");
    if threads == 1 {
        let c = count_trace(&only_trace(r));
        let want = [(1, pairs + 1), (2, pairs + 1)];
        assert_eq!(c.enters.into_iter().collect::<Vec<_>>(), want);
        assert_eq!(c.flushes, 0, "no write-out: a flush may make system calls");
    }
}

#[test]
fn probe_pairs_make_no_system_call_in_profile_or_trace_mode() {
    if !strace_works() {
        return;
    }
    for mode in ["profile", "trace"] {
        for pairs in [10_000u64, 200_000] {
            let t = traced_window(pairs, 1, &mode_env(mode));
            assert_eq!(t.windows.len(), 1, "{mode}: one probing thread");
            assert_eq!(
                t.windows[0],
                Vec::<String>::new(),
                "{mode}, {pairs} pairs: system calls on the probe path"
            );
            if mode == "trace" {
                check_whole_trace(&t.run, pairs, 1);
            }
        }
    }
}

#[test]
fn two_threads_probing_at_once_make_no_system_call_not_even_a_futex() {
    if !strace_works() {
        return;
    }
    for mode in ["profile", "trace"] {
        let t = traced_window(200_000, 2, &mode_env(mode));
        assert_eq!(t.windows.len(), 2, "{mode}: two probing threads");
        for w in &t.windows {
            assert_eq!(w, &Vec::<String>::new(), "{mode}: system calls");
        }
        if mode == "trace" {
            check_whole_trace(&t.run, 200_000, 2);
        }
    }
}

#[test]
fn the_flush_is_the_one_system_call_the_window_can_show() {
    if !strace_works() {
        return;
    }
    // The smallest buffer holds about 16 000 records: 200 000 pairs write
    // it out many times, each a `write` of the owner (its first one also
    // opens the file).
    let env = [("REGIO_MODE", "trace"), ("REGIO_TRACE_BUFFER", "64K")];
    let t = traced_window(200_000, 1, &env);
    assert_eq!(t.windows.len(), 1);
    let writes = t.windows[0]
        .iter()
        .filter(|c| c.starts_with("write("))
        .count();
    assert!(writes >= 10, "{:?}", t.windows[0]);
    let c = count_trace(&only_trace(&t.run));
    assert!(c.flushes as usize >= writes - 1, "{c:?}");
}

/// Allocations the `allocs` scenario counted in its window.
fn allocations(env: &[(&str, &str)]) -> u64 {
    let mut all = vec![("REGIO_TEST_PAIRS", "100000")];
    all.extend_from_slice(env);
    let r = run(ENTRY, "allocs", &all);
    assert!(r.status.success(), "{:?}\n{}", r.status, r.stderr);
    r.stdout
        .lines()
        .find_map(|l| l.split_once(ALLOCS_LINE))
        .and_then(|(_, n)| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count in:\n{}", r.stdout))
}

#[test]
fn probe_pairs_allocate_nothing_after_the_first() {
    assert_eq!(allocations(&[("REGIO_MODE", "profile")]), 0, "profile mode");
    assert_eq!(
        allocations(&[("REGIO_MODE", "trace"), ("REGIO_TRACE_BUFFER", BIG_BUFFER)]),
        0,
        "trace mode"
    );
    // The flush too: writing a full buffer out (and opening the file the
    // first time) takes no heap memory.
    assert_eq!(
        allocations(&[("REGIO_MODE", "trace"), ("REGIO_TRACE_BUFFER", "64K")]),
        0,
        "trace mode with write-outs"
    );
}
