//! Fatal-signal handling: write what was measured, then let the signal do
//! what it would have done without us.
//!
//! The handler writes an incomplete profile, puts the previous disposition
//! back, and then either calls the previous handler (if the program or its
//! runtime had installed one) or re-raises the signal so the process dies
//! by it, with the exit status a shell or a parent expects. For a fault
//! (SIGSEGV, SIGBUS, SIGFPE) returning re-executes the faulting
//! instruction under the restored disposition.
//!
//! Trace mode: a signal that reaches a thread while it encodes or writes
//! out its own trace buffer would find that buffer mid-use, and its
//! records would be lost. Unless it is a fault the thread itself caused
//! (which cannot wait: returning re-executes the faulting instruction),
//! the handler leaves it to the thread (`TraceBuf::defer_signal`) and
//! returns; the thread sends it to itself again, with its original
//! siginfo, as soon as its records are encoded, and this handler then
//! runs as it would have.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};

use libc::{c_int, c_void, siginfo_t};

use crate::profile::{self, Reason};
use crate::registry;
use crate::sys;

const SIGNALS: [c_int; 6] = [
    libc::SIGSEGV,
    libc::SIGABRT,
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGBUS,
    libc::SIGFPE,
];

struct Saved {
    old: [UnsafeCell<MaybeUninit<libc::sigaction>>; SIGNALS.len()],
    installed: [AtomicBool; SIGNALS.len()],
}

// SAFETY: `old[i]` is written once before `installed[i]` is set (Release)
// and our handler is installed; afterwards it is only read.
unsafe impl Sync for Saved {}

static SAVED: Saved = Saved {
    old: [const { UnsafeCell::new(MaybeUninit::uninit()) }; SIGNALS.len()],
    installed: [const { AtomicBool::new(false) }; SIGNALS.len()],
};

/// OS thread id of the thread inside the handler, 0 when none.
static HANDLING: AtomicU64 = AtomicU64::new(0);

/// Installs the handler for every fatal signal whose disposition is not
/// SIG_IGN (a program started with SIGINT ignored, e.g. under nohup, must
/// keep ignoring it).
pub fn install() {
    for (i, &sig) in SIGNALS.iter().enumerate() {
        // SAFETY: plain sigaction calls on valid structures; old[i] is not
        // read until installed[i] is set.
        unsafe {
            let old = &mut *SAVED.old[i].get();
            if libc::sigaction(sig, std::ptr::null(), old.as_mut_ptr()) != 0 {
                continue;
            }
            if old.assume_init_ref().sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = handler as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
            libc::sigemptyset(&mut new.sa_mask);
            for &s in &SIGNALS {
                libc::sigaddset(&mut new.sa_mask, s);
            }
            SAVED.installed[i].store(true, Release);
            if libc::sigaction(sig, &new, std::ptr::null_mut()) != 0 {
                SAVED.installed[i].store(false, Release);
            }
        }
    }
}

fn index_of(sig: c_int) -> Option<usize> {
    SIGNALS.iter().position(|&s| s == sig)
}

extern "C" fn handler(sig: c_int, info: *mut siginfo_t, ctx: *mut c_void) {
    let errno = sys::errno();
    if (sig == libc::SIGTERM || sig == libc::SIGINT) && profile::defer_termination(sig) {
        // A profile is being written at exit or by a flush: the writer
        // raises the signal again when it is done (profile::write).
        // SAFETY: restoring errno as the interrupted code left it.
        unsafe { *libc::__errno_location() = errno };
        return;
    }
    // SAFETY: `info` is the kernel's siginfo for this delivery.
    if unsafe { can_wait(sig, info) } && deferred_to_own_encoding(sig, info) {
        // SAFETY: restoring errno as the interrupted code left it.
        unsafe { *libc::__errno_location() = errno };
        return;
    }
    let me = sys::gettid();
    loop {
        match HANDLING.compare_exchange(0, me, Acquire, Relaxed) {
            Ok(_) => break,
            Err(owner) if owner == me => {
                // A fatal signal while this thread was handling one: give
                // up on writing and die by it.
                // SAFETY: async-signal-safe calls.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                    libc::raise(sig);
                }
                return;
            }
            Err(_) => {
                // Another thread is writing; it will kill the process or
                // hand over when done.
                let ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 1_000_000,
                };
                // SAFETY: nanosleep is async-signal-safe.
                unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) };
            }
        }
    }
    // After the exit-time profile, keep it: it is complete, this one would
    // not be.
    if !profile::exit_written() {
        profile::write(Reason::Signal(sig));
    }
    // SAFETY: restores what install() saved and hands the signal on.
    unsafe { chain(sig, info, ctx) };
    HANDLING.store(0, Release);
    // SAFETY: restoring errno as the interrupted code left it.
    unsafe { *libc::__errno_location() = errno };
}

/// Whether `sig` may be handled a little later than delivered: anything
/// but a fault the thread caused itself. Termination signals always; the
/// fault signals when sent (`kill`, `tgkill`, `sigqueue`: `si_code` <= 0,
/// where a fault the kernel reports has a positive one); SIGABRT when
/// sent by another process (`abort()` sends it to its own thread, and
/// kills the process without our handler if it returns).
unsafe fn can_wait(sig: c_int, info: *const siginfo_t) -> bool {
    if sig == libc::SIGTERM || sig == libc::SIGINT {
        return true;
    }
    let Some(info) = info.as_ref() else {
        return false;
    };
    let sent = info.si_code <= 0;
    if sig == libc::SIGABRT {
        return sent && info.si_pid() as u64 != sys::getpid();
    }
    sent
}

/// Leaves `sig` to this thread's own trace buffer if the signal
/// interrupted the thread while it encodes or writes it out (see the
/// module doc). False when not (or no trace).
fn deferred_to_own_encoding(sig: c_int, info: *const siginfo_t) -> bool {
    let me = registry::current();
    if me.is_null() {
        return false;
    }
    // SAFETY: this thread's own leaked state and buffer.
    unsafe {
        match (*me).trace() {
            Some(tb) => tb.defer_signal(sig, info),
            None => false,
        }
    }
}

/// Restores the previous disposition of `sig` and passes the signal on.
unsafe fn chain(sig: c_int, info: *mut siginfo_t, ctx: *mut c_void) {
    let Some(i) = index_of(sig).filter(|&i| SAVED.installed[i].load(Acquire)) else {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
        return;
    };
    let old = (*SAVED.old[i].get()).assume_init_ref();
    libc::sigaction(sig, old, std::ptr::null_mut());
    let h = old.sa_sigaction;
    if h == libc::SIG_DFL || h == libc::SIG_IGN {
        // Blocked while we run: delivered, with the restored (default)
        // action, as soon as the handler returns.
        libc::raise(sig);
    } else if old.sa_flags & libc::SA_SIGINFO != 0 {
        let f: extern "C" fn(c_int, *mut siginfo_t, *mut c_void) = std::mem::transmute(h);
        f(sig, info, ctx);
    } else {
        let f: extern "C" fn(c_int) = std::mem::transmute(h);
        f(sig);
    }
}
