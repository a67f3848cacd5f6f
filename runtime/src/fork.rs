//! `fork()` without `exec`: the child starts with a copy of everything the
//! parent measured. Left alone, the child's profile would repeat the
//! parent's measurements (counted twice in the merged report) and list the
//! parent's other threads, which do not exist in the child, as still
//! running (an incomplete run). A `pthread_atfork` child handler makes the
//! child start from zero: every node's figures are cleared, the forking
//! thread's open regions restart at the fork, and the other threads are
//! closed at the fork with nothing measured. The parent is untouched.
//!
//! Counters (`REGIO_COUNTERS`) are not carried over: the child's inherited
//! perf events count the parent task, so the child lists them as
//! unavailable and writes no counter values.

use std::sync::atomic::{AtomicBool, Ordering::*};

use crate::clock;
use crate::registry;

static FORKED: AtomicBool = AtomicBool::new(false);

/// Whether this process is a measured process's forked child.
pub fn forked() -> bool {
    FORKED.load(Relaxed)
}

/// Registers the child handler (once, at start-up).
pub fn install() {
    // SAFETY: registering a plain extern "C" function.
    unsafe {
        libc::pthread_atfork(None, None, Some(restart_in_child));
    }
}

/// Runs in the child right after `fork`, on its only thread: no locks, no
/// allocation, only stores into the copied state.
extern "C" fn restart_in_child() {
    FORKED.store(true, Relaxed);
    // The child's trace files carry its pid: its registrations file too.
    crate::idf::record_if_tracing(true);
    let now = clock::ticks();
    let me = registry::current();
    let mut t = registry::head();
    while !t.is_null() {
        // SAFETY: registered states are leaked and never freed; the child
        // has no other thread that could touch them.
        unsafe {
            (*t).restart_after_fork(now, std::ptr::eq(t, me));
            if let Some(tb) = (*t).trace() {
                tb.restart_after_fork(now);
            }
            t = (*t).next.load(Acquire);
        }
    }
}
