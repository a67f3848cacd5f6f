//! The global list of thread states and the thread-local pointer to the
//! calling thread's own.
//!
//! States are pushed with a CAS on an append-only list and leaked, so a
//! thread that has finished keeps its data until the process writes. Each
//! state's number is its predecessor's plus one, fixed inside the CAS loop,
//! which makes numbers dense and the list ordered newest first.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering::*};

use crate::altstack;
use crate::clock;
use crate::counters;
use crate::sys;
use crate::thread::ThreadState;
use crate::trace::TraceBuf;

static HEAD: AtomicPtr<ThreadState> = AtomicPtr::new(ptr::null_mut());

thread_local! {
    /// Separate key whose destructor marks the state finished; touched once
    /// per thread, at registration.
    static FINISH: FinishGuard = const { FinishGuard(Cell::new(ptr::null())) };
}

/// The calling thread's state pointer: the probe fast path's only TLS
/// access.
///
/// On x86_64 Linux it is a TLS variable of our own, read with the
/// initial-exec model: one `%fs`-relative load through a GOT offset, in
/// `libregio.so` too. Rust's `thread_local!` uses the general-dynamic model
/// in a shared library, a call to `__tls_get_addr` on every probe (and a
/// function that may allocate on first use, which a signal handler must
/// not do). Initial-exec needs the library loaded at start-up or a few
/// bytes of glibc's static TLS reserve when it is `dlopen`ed; 8 bytes fit.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod slot {
    use std::arch::{asm, global_asm};

    use super::ThreadState;

    global_asm!(
        ".pushsection .tbss,\"awT\",@nobits",
        ".p2align 3",
        ".globl regio_current_thread",
        ".hidden regio_current_thread",
        ".type regio_current_thread,@object",
        ".size regio_current_thread,8",
        "regio_current_thread:",
        ".zero 8",
        ".popsection",
    );

    #[inline(always)]
    pub fn get() -> *const ThreadState {
        let p: *const ThreadState;
        // SAFETY: reads this thread's 8-byte slot defined above.
        unsafe {
            asm!(
                "mov {p}, qword ptr [rip + regio_current_thread@GOTTPOFF]",
                "mov {p}, qword ptr fs:[{p}]",
                p = out(reg) p,
                options(nostack, readonly, preserves_flags),
            );
        }
        p
    }

    pub fn set(v: *const ThreadState) {
        // SAFETY: writes this thread's 8-byte slot defined above.
        unsafe {
            asm!(
                "mov {off}, qword ptr [rip + regio_current_thread@GOTTPOFF]",
                "mov qword ptr fs:[{off}], {v}",
                off = out(reg) _,
                v = in(reg) v,
                options(nostack, preserves_flags),
            );
        }
    }
}

/// Elsewhere: a const-initialised `thread_local!` without a destructor.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod slot {
    use std::cell::Cell;
    use std::ptr;

    use super::ThreadState;

    thread_local! {
        static CURRENT: Cell<*const ThreadState> = const { Cell::new(ptr::null()) };
    }

    #[inline(always)]
    pub fn get() -> *const ThreadState {
        CURRENT.with(Cell::get)
    }

    pub fn set(v: *const ThreadState) {
        CURRENT.with(|c| c.set(v));
    }
}

struct FinishGuard(Cell<*const ThreadState>);

impl Drop for FinishGuard {
    fn drop(&mut self) {
        let s = self.0.get();
        if !s.is_null() {
            // SAFETY: states are leaked, never freed.
            let s = unsafe { &*s };
            s.finished_at.store(clock::ticks(), Relaxed);
            if !s.counters.is_null() {
                // SAFETY: counter states are leaked like thread states.
                unsafe { (*s.counters).finish(s.os_tid == sys::getpid()) };
            }
            s.finished.store(true, Release);
        }
    }
}

/// The calling thread's state, or null if it never entered a region.
#[inline(always)]
pub fn current() -> *const ThreadState {
    slot::get()
}

/// The calling thread's state, created and registered if needed.
#[cold]
#[inline(never)]
pub fn current_or_register() -> *const ThreadState {
    let c = current();
    if !c.is_null() {
        return c;
    }
    let tid = sys::gettid();
    let mut fresh = ThreadState::new(tid);
    fresh.set_counters(counters::open_thread());
    let state: &'static ThreadState = Box::leak(Box::new(fresh));
    let me = state as *const ThreadState as *mut ThreadState;
    let mut head = HEAD.load(Acquire);
    loop {
        let number = if head.is_null() {
            0
        } else {
            // SAFETY: published states are never freed.
            unsafe { (*head).number.load(Relaxed) + 1 }
        };
        state.number.store(number, Relaxed);
        state.next.store(head, Relaxed);
        match HEAD.compare_exchange_weak(head, me, Release, Acquire) {
            Ok(_) => break,
            Err(h) => head = h,
        }
    }
    if let Some(tb) = TraceBuf::new(state.number.load(Relaxed), tid) {
        state.set_trace(tb);
    }
    slot::set(me);
    // Fails only when the thread is already tearing down its TLS; then it
    // is about to end and simply stays unmarked.
    let _ = FINISH.try_with(|g| g.0.set(me));
    altstack::install();
    me
}

/// Newest registered state (follow `next` for older ones).
pub fn head() -> *const ThreadState {
    HEAD.load(Acquire)
}

/// Number of registered threads.
pub fn count() -> u32 {
    let h = head();
    if h.is_null() {
        0
    } else {
        // SAFETY: published states are never freed.
        unsafe { (*h).number.load(Relaxed) + 1 }
    }
}
