//! The process lifecycle, in one place: the process-wide switch, lazy
//! start-up, and the order of what happens at start and at exit.
//!
//! One atomic, `MODE`, answers both "is the runtime initialised" and "is
//! measurement on", so the probe fast path pays a single relaxed load for
//! both. Start-up happens on the first probe or API call: configuration
//! (`config`), clock, counters, then the hooks that write the profile
//! later: the exit hook (here), fatal signals (`signals`), fork
//! (`fork`), the peer marker of an MPI rank (`peers`), and the snapshot
//! thread (`snapshot`, `REGIO_SNAPSHOT`). At exit the
//! profile is written with termination signals deferred, then the peer
//! marker is removed.

use std::sync::atomic::{AtomicU8, Ordering::*};

use crate::clock;
use crate::config;
use crate::counters;
use crate::fork;
use crate::idf;
use crate::out::warn;
use crate::peers;
use crate::profile::{self, Reason};
use crate::select;
use crate::signals;
use crate::snapshot;
use crate::throttle;
use crate::trace;

/// Not started yet.
pub const UNINIT: u8 = 0;
/// Measuring.
pub const ON: u8 = 1;
/// Switched off by `disable()`; `enable()` turns it back on.
pub const OFF: u8 = 2;
/// Off for good (`REGIO_DISABLE`): no hooks, no files.
pub const DEAD: u8 = 3;

pub static MODE: AtomicU8 = AtomicU8::new(UNINIT);

const IDLE: u8 = 0;
const RUNNING: u8 = 1;
const DONE: u8 = 2;
static INIT: AtomicU8 = AtomicU8::new(IDLE);

/// The mode, running start-up first if needed.
#[inline]
pub fn ensure_init_fast() -> u8 {
    match MODE.load(Acquire) {
        UNINIT => ensure_init(),
        m => m,
    }
}

/// Runs start-up if nobody has; returns the mode afterwards.
#[cold]
#[inline(never)]
pub fn ensure_init() -> u8 {
    loop {
        match INIT.compare_exchange(IDLE, RUNNING, Acquire, Acquire) {
            Ok(_) => {
                let mode = start();
                MODE.store(mode, Release);
                INIT.store(DONE, Release);
                return mode;
            }
            Err(DONE) => return MODE.load(Acquire),
            // Another thread is starting up: it takes microseconds.
            Err(_) => std::thread::yield_now(),
        }
    }
}

fn start() -> u8 {
    if config::disabled() {
        return DEAD;
    }
    clock::init();
    counters::init(config::counters_spec().as_deref());
    let Some(cfg) = config::load() else {
        return DEAD;
    };
    select::configure(
        cfg.events.as_deref(),
        cfg.filter.as_ref().map(|(p, t)| (p.as_str(), t.as_str())),
    );
    throttle::configure(cfg.throttle);
    if cfg.mode == "trace" {
        // Before any thread registers: registration maps the buffers.
        trace::init(
            cfg.trace_buffer,
            &cfg.run_dir,
            &cfg.host,
            cfg.rank,
            cfg.size,
            cfg.start_unix_ns,
        );
        if cfg.test_signal_in_encoding != 0 {
            trace::signal_in_first_encoding(cfg.test_signal_in_encoding);
        }
        idf::trace_into(&cfg.run_dir, &cfg.host);
    }
    // SAFETY: registering a plain extern "C" function.
    if unsafe { libc::atexit(at_exit) } != 0 {
        warn(
            &[b"cannot register the exit hook; the profile is written only by regio_flush or a signal"],
            None,
        );
    }
    signals::install();
    fork::install();
    peers::announce(cfg);
    snapshot::start(cfg.snapshot_ms);
    ON
}

extern "C" fn at_exit() {
    // SIGTERM or SIGINT during the write (or the rest of this hook) waits
    // until the profile is complete; then the program's stdio is flushed,
    // as the exit() it called would have done after this hook, and the
    // signal is raised so the process still dies by it.
    profile::begin_deferring();
    profile::write(Reason::Exit);
    peers::retire();
    if let Some(sig) = profile::end_deferring() {
        // SAFETY: not in a signal handler: exit() called us.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::raise(sig);
        }
    }
}
