//! An alternate signal stack for every measured thread, large enough for
//! the fatal-signal handler (`signals`): it writes the profile and, in
//! trace mode, every thread's last trace buffer (encoding its raw records
//! first) from the thread that got the signal. Set up when a thread
//! registers (`registry`), which can happen before the handlers are
//! installed.
//!
//! A thread may have none (C threads: a stack overflow could not run the
//! handler) or a small one: Rust's std gives each of its threads a few KiB
//! (`SIGSTKSZ`), of which the kernel's signal frame takes more than 3 KiB
//! on a CPU with AVX state, and the end-of-run trace write did not fit in
//! the rest (a fault in a std thread then died by a second SIGSEGV inside
//! the handler, its traces' last buffers lost; tests/signals.rs
//! `*_in_trace_mode_keeps_the_written_blocks_and_the_last_buffer`).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering::*};

use crate::sys;

/// Large enough for the profile writer's and the trace writer's frames
/// (unoptimised builds included) after the kernel's signal frame.
const ALT_SIZE: usize = 64 * 1024;
/// A guard page below a mapped alternate stack: overflowing it faults
/// instead of writing over whatever lies below.
const GUARD: usize = 4096;

struct AltStack(UnsafeCell<[u8; ALT_SIZE]>);
// SAFETY: handed to the kernel once, for one thread; Rust never touches it.
unsafe impl Sync for AltStack {}
static ALT_STACK: AltStack = AltStack(UnsafeCell::new([0; ALT_SIZE]));
static ALT_USED: AtomicBool = AtomicBool::new(false);

/// Gives the calling thread an alternate signal stack of `ALT_SIZE` bytes
/// unless it has one at least that large: the static one for the first
/// thread (the main thread, usually: it needs no system call to get it),
/// a mapping for the others. A mapping is never freed: like the thread's
/// state and trace buffer, it lives as long as the process (a thread's
/// TLS destructors, std's included, may still take a signal on it).
pub fn install() {
    // SAFETY: sigaltstack with valid structures; ALT_STACK is handed to
    // the kernel at most once; a mapping is handed to it once, whole.
    unsafe {
        let mut cur: libc::stack_t = std::mem::zeroed();
        if libc::sigaltstack(std::ptr::null(), &mut cur) != 0 {
            return;
        }
        if cur.ss_flags & libc::SS_ONSTACK != 0
            || (cur.ss_flags & libc::SS_DISABLE == 0 && cur.ss_size >= ALT_SIZE)
        {
            return;
        }
        let sp: *mut u8 = if !ALT_USED.swap(true, AcqRel) {
            ALT_STACK.0.get().cast()
        } else {
            let Some(p) = sys::map_anonymous(GUARD + ALT_SIZE) else {
                return;
            };
            libc::mprotect(p.cast(), GUARD, libc::PROT_NONE);
            p.add(GUARD)
        };
        let ss = libc::stack_t {
            ss_sp: sp.cast(),
            ss_flags: 0,
            ss_size: ALT_SIZE,
        };
        libc::sigaltstack(&ss, std::ptr::null_mut());
    }
}
