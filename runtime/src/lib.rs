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
//! **Bounded profiles.** Profiles are written by hand from a static
//! buffer (a signal handler may not allocate), under a temporary name and
//! then renamed, so a rewrite (flush, then exit) never leaves a torn file.
//! Each DRG node is one row of at most eleven numbers (ids implicit,
//! trailing zeros left out: `regio_idf::rundir::node_rows`), so a
//! profile's size is bounded by its DRG and metadata, never by how long
//! the program ran (a number grows by a digit when its value grows 10x).
//!
//! **Clock.** Raw ticks (invariant TSC, else CLOCK_MONOTONIC ns) are stored;
//! conversion to ns happens when writing, with the TSC calibrated against
//! CLOCK_MONOTONIC over the whole run.
//!
//! See `profile.rs` for when a profile is `complete`.

// Which module may use which: the layer order in tests/layering.rs (lower
// modules never use higher ones; the crate root only declares and
// re-exports).
mod altstack;
mod api;
mod childmap;
pub mod clock;
mod config;
mod counters;
mod dynsym;
mod ffi;
mod fork;
mod frames;
mod future;
mod idf;
mod lifecycle;
mod lock_base;
mod mpi;
mod node;
mod omp;
mod out;
mod peers;
mod profile;
mod region;
mod registry;
mod select;
mod signals;
mod snapshot;
mod sys;
mod teams;
mod thread;
mod throttle;
mod ticks;
mod trace;
pub mod training;
mod user_events;

pub use api::*;
pub use ffi::*;
pub use future::Instrumented;
pub use regio_macros::{skip, traced};
pub use region::{Kind, Region, FIRST_DESCRIPTOR_ID};

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
