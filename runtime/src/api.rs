//! The Rust API: probes (`enter`, `exit`, polls, scopes, `Guard`) and the
//! process controls (`disable`, `enable`, `flush`, `mpi_abort_flush`,
//! `register_idf`). The C and Fortran entry points (`ffi`) call these.

use std::sync::atomic::Ordering::{AcqRel, Relaxed};

use crate::clock;
use crate::config;
use crate::idf;
use crate::lifecycle::{self, DEAD, MODE, OFF, ON};
use crate::peers;
use crate::profile::{self, Reason};
use crate::region::Region;
use crate::registry;
use crate::select;
use crate::ticks::Ticks;

/// Enters region `id` on the calling thread. The region's gate (filter,
/// event mask, throttling) is read before the thread's state, so an entry
/// that is not recorded costs the mode and that load (Fortran's and the C
/// API's probes read no gate themselves; instrumented C reads it inline).
#[inline(always)]
pub fn enter(id: u32) {
    match MODE.load(Relaxed) {
        ON => {
            if !select::recorded(id) {
                return;
            }
            let t = registry::current();
            if !t.is_null() {
                // SAFETY: `t` is this thread's own, leaked state; the gate
                // was read open just now.
                unsafe { (*t).enter_gated(id, &Ticks) };
                return;
            }
        }
        // REGIO_DISABLE or regio_disable(): nothing to do, and nothing
        // more to pay than this load.
        DEAD | OFF => return,
        _ => {}
    }
    // Reads the gate after the start-up (which sets the gates).
    enter_cold(id);
}

#[cold]
#[inline(never)]
fn enter_cold(id: u32) {
    if lifecycle::ensure_init_fast() != ON {
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
    if MODE.load(Relaxed) != ON && lifecycle::ensure_init_fast() != ON {
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

/// [`exit`] made only because the entry of `id` was recorded (the C
/// guards' `regio_guard_exit`: a guard whose entry was gated makes no
/// exit), so it always closes its own frame and the region may be
/// throttled at it while recursive frames of it are open.
#[inline(always)]
pub fn exit_paired(id: u32) {
    let t = registry::current();
    if !t.is_null() {
        // SAFETY: `t` is this thread's own, leaked state.
        unsafe { (*t).exit_paired(id, &Ticks) };
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
    if lifecycle::ensure_init_fast() == DEAD {
        return;
    }
    let _ = MODE.compare_exchange(ON, OFF, AcqRel, Relaxed);
}

/// Measures again after [`disable`] (no effect under `REGIO_DISABLE`).
pub fn enable() {
    if lifecycle::ensure_init_fast() == DEAD {
        return;
    }
    let _ = MODE.compare_exchange(OFF, ON, AcqRel, Relaxed);
}

/// Writes the profile now (reason `flush`); a later write replaces it.
/// Returns whether a profile was written.
pub fn flush() -> bool {
    if lifecycle::ensure_init_fast() == DEAD {
        return false;
    }
    profile::write(Reason::Flush)
}

/// Before `MPI_Abort`: writes this process's profile and has the other
/// ranks of the job on this host write theirs (see `peers`), since some
/// launchers end them with SIGKILL.
pub fn mpi_abort_flush() {
    if lifecycle::ensure_init_fast() == DEAD {
        return;
    }
    if let Some(cfg) = config::config() {
        peers::abort_flush(cfg);
    }
}

/// A user event: `name` with `value` at this moment, on the calling
/// thread (`REGIO_EVENTS` class `user`). In the profile, count, min, max
/// and sum per DRG node (the innermost open region) and name; in the trace
/// a `user` record. At most 256 distinct names per process and 1024
/// (node, name) pairs per thread: further events are counted as lost
/// (`user_events_lost`, `user_events_dropped` in the profile).
pub fn event(name: &str, value: f64) {
    event_bytes(name.as_bytes(), value);
}

pub(crate) fn event_bytes(name: &[u8], value: f64) {
    use crate::user_events;
    if lifecycle::ensure_init_fast() != ON || !select::class_on(select::USER) {
        return;
    }
    let t = registry::current_or_register();
    let (Some(id), Some(table)) = (user_events::intern(name), user_events::mine(t as usize)) else {
        user_events::note_lost();
        return;
    };
    let text = user_events::name(id).unwrap_or("");
    // SAFETY: `t` is this thread's own, leaked state.
    unsafe { (*t).record_user(table, id, text, value, &Ticks) };
}

/// A user event (see [`event`]): `regio::event!("residual", r)`; VALUE
/// is anything `as f64` takes.
#[cfg(not(feature = "off"))]
#[macro_export]
macro_rules! event {
    ($name:expr, $value:expr) => {
        $crate::event($name, ($value) as f64)
    };
}

/// With the `off` feature nothing is recorded; NAME and VALUE are still
/// evaluated, once, as with the feature off.
#[cfg(feature = "off")]
#[macro_export]
macro_rules! event {
    ($name:expr, $value:expr) => {{
        let _ = ($name, $value);
    }};
}

/// Changes which region kinds and event classes are recorded from now on
/// (the `REGIO_EVENTS` words: functions, loops, calls, io, omp, mpi, user,
/// messages, all, none), for the profile and the trace; the change is a
/// `mask` event in the calling thread's trace. Err: the list is wrong
/// (nothing changed).
pub fn set_events(list: &str) -> Result<(), String> {
    if lifecycle::ensure_init_fast() == DEAD {
        return Ok(());
    }
    let mask = select::set_events(list)?;
    let t = registry::current_or_register();
    // SAFETY: `t` is this thread's own, leaked state.
    unsafe { (*t).record_event(clock::ticks(), &regio_trace_format::Event::Mask { mask }) };
    Ok(())
}

/// Records `event` in the calling thread's trace at `ticks` (a
/// `clock::ticks()` reading), in `REGIO_MODE=trace` only: the entry point
/// for the MPI capture's message, collective and clock-sync events
/// (`Event::MpiSend`, `MpiIsend`, `MpiCollectiveEnd`, `ClockSync`, ...).
/// These events carry no heap data, so recording them neither allocates
/// nor locks; `Event::String`/`Comm` do and belong to cold paths.
pub fn trace_event(ticks: u64, event: &regio_trace_format::Event) {
    if MODE.load(Relaxed) != ON {
        return;
    }
    if crate::mpi::events::is_message(event) && !select::class_on(select::MESSAGES) {
        return;
    }
    let t = registry::current();
    if !t.is_null() {
        // SAFETY: `t` is this thread's own, leaked state.
        unsafe { (*t).record_event(ticks, event) };
    }
}

/// Remembers the absolute path of an IDF; the first one registered is
/// copied into the run directory as `regio.idf.json` whenever the profile
/// is written.
pub fn register_idf(path: &str) {
    register_idf_bytes(path.as_bytes());
}

pub(crate) fn register_idf_bytes(path: &[u8]) {
    if lifecycle::ensure_init_fast() != DEAD && idf::register(path) {
        select::idf_registered();
        idf::record_if_tracing(false);
    }
}

/// Registers the IDF of an instrumented object and returns the base its
/// probes add to their local ids (the same for every object of one IDF).
pub(crate) fn register_object_bytes(path: &[u8]) -> u32 {
    let alive = lifecycle::ensure_init_fast() != DEAD;
    let (base, new) = idf::register_object(path);
    if alive && new {
        select::idf_registered();
        idf::record_if_tracing(false);
    }
    base
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
        Guard::new(crate::select::descriptor_id(region))
    }
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
