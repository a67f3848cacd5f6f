//! Regio's measurement runtime.
//!
//! Instrumented C, Fortran and Rust code calls [`enter`] and [`exit`] (or
//! their C/Fortran twins in `include/regio.h`) with a region id. Per thread
//! the runtime builds a sub-DRG, a dynamic code-region call graph whose
//! nodes are (parent node, region) pairs carrying calls, inclusive and
//! exclusive time and min/max, and at process end writes one profile per
//! process into the run directory (format: `regio_idf::rundir`).
//!
//! # Design
//!
//! **Probe fast path.** One relaxed load of the global mode (initialised
//! and measuring), one const-initialised TLS load, the parent node's
//! one-entry child cache, one clock read, and plain stores. No lock, no
//! allocation, no system call once a node exists; a cache miss goes to a
//! per-thread open-addressing map, and only creating a node allocates.
//!
//! **Chunked node storage.** A thread's nodes live in chunks that double
//! in size and never move, reached through a fixed array of chunk pointers.
//! Frames and caches hold plain pointers to nodes, and another thread or a
//! signal handler can read any node below the published count (Release)
//! while the owner keeps creating nodes. Counters are atomics the owner
//! updates with a relaxed load and store: readers see whole values and the
//! owner pays no `lock` prefix. Thread states are leaked on purpose so a
//! thread that has finished keeps its data until the process writes.
//!
//! **Recursion folding.** When the child (P, R) is first created, P's
//! ancestor chain (P included) is searched for a node of region R; if there
//! is one, (P, R) maps to it instead of a new node, so recursion, direct or
//! mutual, never grows the graph. An entry into a node that already has a
//! frame open is recursive: it counts in `calls` and `recursive_calls` but
//! its duration is not added to inclusive time or min/max (the outermost
//! frame covers it). Exclusive time stays exact: every frame subtracts the
//! time of its child frames, and the sum of all exclusive times equals the
//! measured time.
//!
//! **Fixed-width numbers.** Profiles are written by hand from a static
//! buffer (a signal handler may not allocate), every number right-aligned
//! in a fixed width. A profile's size therefore depends on its DRG and
//! metadata only, never on how long the program ran, and rewriting it
//! (flush, then exit) never leaves a torn or shorter file.
//!
//! **Clock.** Raw ticks (invariant TSC, else CLOCK_MONOTONIC ns) are stored;
//! conversion to ns happens when writing, with the TSC calibrated against
//! CLOCK_MONOTONIC over the whole run.
//!
//! See `profile.rs` for when a profile is `complete`.

mod childmap;
pub mod clock;
mod counters;
mod dynsym;
mod ffi;
mod fork;
mod idf;
mod init;
mod node;
mod omp;
mod out;
mod peers;
mod profile;
mod region;
mod registry;
mod signals;
mod sys;
mod teams;
mod thread;
pub mod training;

use std::sync::atomic::Ordering::{AcqRel, Relaxed};

pub use ffi::*;
pub use regio_macros::{skip, traced};
pub use region::{Kind, Region, FIRST_DESCRIPTOR_ID};

mod future;
pub use future::Instrumented;

/// The runtime's clock, as the probe logic sees it.
struct Ticks;

impl thread::Clock for Ticks {
    #[inline(always)]
    fn now(&self) -> u64 {
        clock::ticks()
    }
}

/// Enters region `id` on the calling thread.
#[inline(always)]
pub fn enter(id: u32) {
    if init::MODE.load(Relaxed) == init::ON {
        let t = registry::current();
        if !t.is_null() {
            // SAFETY: `t` is this thread's own, leaked state.
            unsafe { (*t).enter(id, &Ticks) };
            return;
        }
    }
    enter_cold(id);
}

#[cold]
#[inline(never)]
fn enter_cold(id: u32) {
    if init::ensure_init_fast() != init::ON {
        return;
    }
    let t = registry::current_or_register();
    // SAFETY: `t` is this thread's own, leaked state.
    unsafe { (*t).enter(id, &Ticks) };
}

/// Enters region `id` for one poll of a future (see [`Instrumented`]):
/// counted as a call only when `first`. Returns the entry tick to pass back
/// to [`exit_poll`] when the future completes, 0 if nothing was recorded.
#[inline]
pub fn enter_poll(id: u32, first: bool) -> u64 {
    if init::MODE.load(Relaxed) != init::ON && init::ensure_init_fast() != init::ON {
        return 0;
    }
    let t = registry::current_or_register();
    // SAFETY: `t` is this thread's own, leaked state.
    unsafe { (*t).enter_poll(id, &Ticks, first) }
}

/// Leaves region `id` after a poll; `first_poll` (the tick [`enter_poll`]
/// returned for the first poll) when the future has completed.
#[inline]
pub fn exit_poll(id: u32, first_poll: Option<u64>) {
    let t = registry::current();
    if !t.is_null() {
        // SAFETY: `t` is this thread's own, leaked state.
        unsafe { (*t).exit_poll(id, &Ticks, first_poll) };
    }
}

/// Leaves region `id` on the calling thread. If `id` is not the innermost
/// open region, every region above its innermost frame is closed too (they
/// missed their exit); if it is not open at all (entered while measurement
/// was disabled), nothing happens.
#[inline(always)]
pub fn exit(id: u32) {
    let t = registry::current();
    if !t.is_null() {
        // SAFETY: `t` is this thread's own, leaked state.
        unsafe { (*t).exit(id, &Ticks) };
    }
}

/// Number of regions open on the calling thread, for [`scope_close`].
pub fn scope_open() -> u32 {
    let t = registry::current();
    if t.is_null() {
        0
    } else {
        // SAFETY: `t` is this thread's own, leaked state.
        unsafe { (*t).depth() as u32 - 1 }
    }
}

/// Closes every region the calling thread opened above `depth` (a value
/// from [`scope_open`]), all at the same moment.
pub fn scope_close(depth: u32) {
    let t = registry::current();
    if !t.is_null() {
        let now = clock::ticks();
        // SAFETY: `t` is this thread's own, leaked state.
        unsafe { (*t).pop_to(depth as usize + 1, now) };
    }
}

/// Stops measuring, process-wide, until [`enable`]. Regions entered while
/// disabled are not recorded; regions entered before still close normally.
pub fn disable() {
    if init::ensure_init_fast() == init::DEAD {
        return;
    }
    let _ = init::MODE.compare_exchange(init::ON, init::OFF, AcqRel, Relaxed);
}

/// Measures again after [`disable`] (no effect under `REGIO_DISABLE`).
pub fn enable() {
    if init::ensure_init_fast() == init::DEAD {
        return;
    }
    let _ = init::MODE.compare_exchange(init::OFF, init::ON, AcqRel, Relaxed);
}

/// Writes the profile now (reason `flush`); a later write replaces it.
/// Returns whether a profile was written.
pub fn flush() -> bool {
    if init::ensure_init_fast() == init::DEAD {
        return false;
    }
    profile::write(profile::Reason::Flush)
}

/// Before `MPI_Abort`: writes this process's profile and has the other
/// ranks of the job on this host write theirs (see `peers`), since some
/// launchers end them with SIGKILL.
pub fn mpi_abort_flush() {
    if init::ensure_init_fast() == init::DEAD {
        return;
    }
    if let Some(cfg) = init::config() {
        peers::abort_flush(cfg);
    }
}

/// Remembers the absolute path of an IDF; the first one registered is
/// copied into the run directory as `regio.idf.json` whenever the profile
/// is written.
pub fn register_idf(path: &str) {
    register_idf_bytes(path.as_bytes());
}

fn register_idf_bytes(path: &[u8]) {
    if init::ensure_init_fast() != init::DEAD {
        idf::register(path);
    }
}

/// A region open for the guard's lifetime.
///
/// ```no_run
/// {
///     let _g = regio::Guard::new(7);
///     // ... region 7 ...
/// } // exits region 7
/// ```
#[must_use = "the region closes when the guard is dropped"]
pub struct Guard {
    id: u32,
}

impl Guard {
    #[inline(always)]
    pub fn new(id: u32) -> Guard {
        enter(id);
        Guard { id }
    }

    /// Opens a descriptor region (what the macros expand to).
    #[inline(always)]
    pub fn region(region: &'static Region) -> Guard {
        Guard::new(region.id())
    }
}

/// Measures a block as a `user` region and evaluates to its value:
///
/// ```
/// # // Measure nothing here: a doctest must not leave a run directory.
/// # std::env::set_var("REGIO_DISABLE", "1");
/// let n = regio::region!("setup", { 6 * 7 });
/// assert_eq!(n, 42);
/// ```
///
/// `return`, `?` and `break` inside the block leave the region, as does a
/// panic that unwinds. NAME must be a string literal.
#[cfg(not(feature = "off"))]
#[macro_export]
macro_rules! region {
    ($name:literal, $body:block) => {{
        let __regio_region = $crate::guard!(User, $name);
        $body
    }};
}

/// With the `off` feature the block is left as it is.
#[cfg(feature = "off")]
#[macro_export]
macro_rules! region {
    ($name:literal, $body:block) => {
        $body
    };
}

/// A [`Guard`] for a static descriptor made here, of kind `Function`,
/// `Loop`, `User` or `Program`: `let _g = regio::guard!(Loop, "for@12");`.
/// This is what `instrument` inserts into Rust sources for loops and
/// `// regio: begin` directives.
#[cfg(not(feature = "off"))]
#[macro_export]
macro_rules! guard {
    ($kind:ident, $name:literal) => {
        $crate::Guard::region({
            static __REGIO_REGION: $crate::Region = $crate::Region::new(
                $name,
                $crate::Kind::$kind,
                ::core::file!(),
                ::core::line!(),
                ::core::column!(),
                ::core::module_path!(),
            );
            &__REGIO_REGION
        })
    };
}

/// With the `off` feature no region is made.
#[cfg(feature = "off")]
#[macro_export]
macro_rules! guard {
    ($kind:ident, $name:literal) => {
        $crate::Guard::none()
    };
}

#[cfg(feature = "off")]
impl Guard {
    /// A guard that does nothing (`off` feature).
    #[doc(hidden)]
    pub const fn none() -> Guard {
        Guard { id: u32::MAX }
    }
}

impl Drop for Guard {
    #[inline(always)]
    fn drop(&mut self) {
        exit(self.id);
    }
}
