//! The C ABI (`include/regio.h`) and its Fortran-callable twins (arguments
//! by reference, trailing underscore, hidden CHARACTER lengths by value at
//! the end as gfortran passes them).

use std::ffi::{c_char, c_void, CStr};

use crate::api;
use crate::clock;
use crate::config;
use crate::dynsym::{find, Lazy};
use crate::idf;
use crate::lifecycle::{self, DEAD, MODE, ON};
use crate::mpi;
use crate::mpi::probes::MsgArgs;
use crate::omp;
use crate::registry;
use crate::teams;
use crate::thread::ThreadState;
use crate::ticks::Ticks;

/// Enters region `id` on the calling thread.
#[no_mangle]
pub extern "C" fn regio_enter(id: u32) {
    api::enter(id);
}

/// `regio_enter` for instrumented C, which has read the region's gate
/// (`regio_gates`) as open, or whose region has none: the runtime does not
/// read it again.
#[no_mangle]
pub extern "C" fn regio_enter_gated(id: u32) {
    if MODE.load(std::sync::atomic::Ordering::Relaxed) == ON {
        let t = registry::current();
        if !t.is_null() {
            // SAFETY: `t` is this thread's own, leaked state.
            unsafe { (*t).enter_gated(id, &Ticks) };
            return;
        }
    }
    // Start-up, a new thread, or measurement off.
    api::enter(id);
}

/// Leaves region `id` on the calling thread.
#[no_mangle]
pub extern "C" fn regio_exit(id: u32) {
    api::exit(id);
}

/// Cleanup hook of instrumented C guard variables: `regio_exit(*id)` for
/// a guard whose entry was made (the prelude's `regio__leave` skips a
/// guard whose entry was gated), so the exit is paired with its frame
/// (`api::exit_paired`).
///
/// # Safety
/// `id` must point to a readable u32.
#[no_mangle]
pub unsafe extern "C" fn regio_guard_exit(id: *const u32) {
    if !id.is_null() {
        api::exit_paired(*id);
    }
}

/// Depth of the calling thread's region stack.
#[no_mangle]
pub extern "C" fn regio_scope_open() -> u32 {
    api::scope_open()
}

/// Closes every region the calling thread opened above `*depth`.
///
/// # Safety
/// `depth` must point to a readable u32.
#[no_mangle]
pub unsafe extern "C" fn regio_scope_close(depth: *const u32) {
    if !depth.is_null() {
        api::scope_close(*depth);
    }
}

/// Stops measuring (process-wide) until `regio_enable`.
#[no_mangle]
pub extern "C" fn regio_disable() {
    api::disable();
}

/// Measures again after `regio_disable`.
#[no_mangle]
pub extern "C" fn regio_enable() {
    api::enable();
}

/// Remembers the absolute path of an IDF (NUL-terminated).
///
/// # Safety
/// `path` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn regio_register_idf(path: *const c_char) {
    if !path.is_null() {
        api::register_idf_bytes(CStr::from_ptr(path).to_bytes());
    }
}

/// Registers the IDF (absolute path, NUL-terminated) of an instrumented
/// object from its constructor and returns the base its probes add to
/// their local ids (`UNREGISTERED_BASE` when the path is unusable or the
/// table is full).
///
/// # Safety
/// `path` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn regio_register_object(path: *const c_char) -> u32 {
    if path.is_null() {
        return regio_idf::rundir::UNREGISTERED_BASE;
    }
    api::register_object_bytes(CStr::from_ptr(path).to_bytes())
}

/// The probe gates of the object with base `base` (from
/// `regio_register_object`), read by its C probes before they call
/// `regio_enter`/`regio_exit` (see `select`); never null (a base without
/// gates gets `regio_no_gates`, all open). Call after
/// the registration (which starts the runtime, so `REGIO_DISABLE` is
/// known).
#[no_mangle]
pub extern "C" fn regio_gates(base: u32) -> *const u8 {
    crate::select::gates(base, lifecycle::ensure_init_fast() == DEAD)
}

/// `regio_event("residual", r)`: a user event (see `api::event`).
///
/// # Safety
/// `name` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn regio_event(name: *const c_char, value: f64) {
    if !name.is_null() {
        api::event_bytes(CStr::from_ptr(name).to_bytes(), value);
    }
}

/// Fortran `call regio_event(name, value)` with a REAL(8) value; `len` is
/// the hidden length of `name` (trailing blanks trimmed).
///
/// # Safety
/// `name` must be null or point to `len` bytes; `value` to a double.
#[no_mangle]
pub unsafe extern "C" fn regio_event_(name: *const c_char, value: *const f64, len: usize) {
    if !name.is_null() && !value.is_null() {
        let s = std::slice::from_raw_parts(name.cast::<u8>(), len);
        api::event_bytes(idf::trim_fortran(s), *value);
    }
}

/// `regio_set_events("functions,mpi")`: see `api::set_events`. Returns 0,
/// or -1 for a wrong list (reported on stderr; nothing changed).
///
/// # Safety
/// `list` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn regio_set_events(list: *const c_char) -> i32 {
    if list.is_null() {
        return -1;
    }
    set_events_bytes(CStr::from_ptr(list).to_bytes())
}

/// Fortran `call regio_set_events(list)` (`len`: the hidden length).
///
/// # Safety
/// `list` must be null or point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn regio_set_events_(list: *const c_char, len: usize) {
    if !list.is_null() {
        let s = std::slice::from_raw_parts(list.cast::<u8>(), len);
        set_events_bytes(idf::trim_fortran(s));
    }
}

fn set_events_bytes(list: &[u8]) -> i32 {
    let list = String::from_utf8_lossy(list);
    match api::set_events(&list) {
        Ok(()) => 0,
        Err(e) => {
            crate::out::warn(&[b"regio_set_events: ", e.as_bytes()], None);
            -1
        }
    }
}

/// Writes the profile now.
#[no_mangle]
pub extern "C" fn regio_flush() {
    api::flush();
}

/// Fortran `call regio_enter(id)`.
///
/// # Safety
/// `id` must point to a readable INTEGER(4).
#[no_mangle]
pub unsafe extern "C" fn regio_enter_(id: *const i32) {
    if !id.is_null() {
        api::enter(*id as u32);
    }
}

/// Fortran `call regio_exit(id)`.
///
/// # Safety
/// `id` must point to a readable INTEGER(4).
#[no_mangle]
pub unsafe extern "C" fn regio_exit_(id: *const i32) {
    if !id.is_null() {
        api::exit(*id as u32);
    }
}

/// Fortran `call regio_disable()`.
#[no_mangle]
pub extern "C" fn regio_disable_() {
    api::disable();
}

/// Fortran `call regio_enable()`.
#[no_mangle]
pub extern "C" fn regio_enable_() {
    api::enable();
}

/// Before `MPI_Abort`: writes this rank's profile and those of the other
/// ranks on this host.
#[no_mangle]
pub extern "C" fn regio_mpi_abort() {
    api::mpi_abort_flush();
}

/// Fortran `call regio_mpi_abort()`.
#[no_mangle]
pub extern "C" fn regio_mpi_abort_() {
    api::mpi_abort_flush();
}

/// Fortran `call regio_flush()`.
#[no_mangle]
pub extern "C" fn regio_flush_() {
    api::flush();
}

/// Fortran `call regio_register_idf(path)`: `len` is the hidden length;
/// trailing blanks are trimmed.
///
/// # Safety
/// `path` must be null or point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn regio_register_idf_(path: *const c_char, len: usize) {
    if !path.is_null() {
        let s = std::slice::from_raw_parts(path.cast::<u8>(), len);
        api::register_idf_bytes(idf::trim_fortran(s));
    }
}

/// Fortran `if (regio_b == 0) call regio_register_base(regio_b, path)`:
/// the per-object registration for Fortran, which has no constructors.
/// Sets `*base` (the IDF's base, as `regio_register_object` returns it)
/// when it is still 0, so the caller's variable (a COMMON block named
/// after the IDF) is set once and read by every probe as `regio_b + id`.
/// Two threads may both find 0 and both call: the runtime gives one path
/// one base, so both store the same value. `len` is the hidden length;
/// trailing blanks are trimmed.
///
/// # Safety
/// `base` must be null or point to a writable default INTEGER; `path` null or
/// `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn regio_register_base_(base: *mut i32, path: *const c_char, len: usize) {
    if base.is_null() || path.is_null() || *base != 0 {
        return;
    }
    let s = std::slice::from_raw_parts(path.cast::<u8>(), len);
    // Bases are below 2^31 (`UNREGISTERED_BASE` is the largest): a
    // default INTEGER holds them.
    *base = api::register_object_bytes(idf::trim_fortran(s)) as i32;
}

/// The calling thread's state if the runtime is measuring, registering the
/// thread if needed.
fn measuring_thread() -> Option<&'static ThreadState> {
    use std::sync::atomic::Ordering::Relaxed;
    if MODE.load(Relaxed) != ON && lifecycle::ensure_init_fast() != ON {
        return None;
    }
    // SAFETY: thread states are leaked, so the reference stays valid.
    Some(unsafe { &*registry::current_or_register() })
}

/// The calling thread's state if it ever measured anything.
fn known_thread() -> Option<&'static ThreadState> {
    let t = registry::current();
    // SAFETY: thread states are leaked, so the reference stays valid.
    (!t.is_null()).then(|| unsafe { &*t })
}

/// Before `#pragma omp parallel`: enters parallel region `id` and returns
/// the team token the region's threads pass to `regio_omp_begin/end`.
#[no_mangle]
pub extern "C" fn regio_omp_fork(id: u32) -> u64 {
    match measuring_thread() {
        // SAFETY: `t` is the calling thread's own state.
        Some(t) => unsafe { omp::fork(t, id, &Ticks) },
        None => 0,
    }
}

/// First statement of a parallel region, on every thread of the team.
#[no_mangle]
pub extern "C" fn regio_omp_begin(team: u64, fork_id: u32) {
    if team == 0 {
        return;
    }
    let now = clock::ticks();
    if let Some(t) = measuring_thread() {
        // SAFETY: `t` is the calling thread's own state.
        unsafe { omp::begin(t, team, fork_id, now) };
    }
}

/// Last statement of a parallel region, on every thread of the team.
#[no_mangle]
pub extern "C" fn regio_omp_end(team: u64, join_id: u32) {
    if let (Some(t), true) = (known_thread(), team != 0) {
        // SAFETY: `t` is the calling thread's own state.
        unsafe { omp::end(t, team, join_id, &Ticks) };
    }
}

/// After the parallel construct, on the thread that forked the team.
#[no_mangle]
pub extern "C" fn regio_omp_join(team: u64) {
    if let (Some(t), true) = (known_thread(), team != 0) {
        // SAFETY: `t` is the calling thread's own state.
        unsafe { omp::join(t, team, &Ticks) };
    }
}

/// Fortran `call regio_omp_fork(id, team)` with INTEGER(4) id and
/// INTEGER(8) team.
///
/// # Safety
/// `id` must be readable, `team` writable.
#[no_mangle]
pub unsafe extern "C" fn regio_omp_fork_(id: *const i32, team: *mut i64) {
    if !id.is_null() && !team.is_null() {
        *team = regio_omp_fork(*id as u32) as i64;
    }
}

/// Fortran `call regio_omp_begin(team, fork_id)`.
///
/// # Safety
/// Both arguments must be readable.
#[no_mangle]
pub unsafe extern "C" fn regio_omp_begin_(team: *const i64, fork_id: *const i32) {
    if !team.is_null() && !fork_id.is_null() {
        regio_omp_begin(*team as u64, *fork_id as u32);
    }
}

/// Fortran `call regio_omp_end(team, join_id)`.
///
/// # Safety
/// Both arguments must be readable.
#[no_mangle]
pub unsafe extern "C" fn regio_omp_end_(team: *const i64, join_id: *const i32) {
    if !team.is_null() && !join_id.is_null() {
        regio_omp_end(*team as u64, *join_id as u32);
    }
}

/// First statement of a host `teams` construct's body: enters the body
/// region `body` and this team's `team <k>` region inside it.
#[no_mangle]
pub extern "C" fn regio_omp_teams_begin(body: u32) {
    teams::begin(body);
}

/// Last statement of the body: leaves the team's region and `body`.
#[no_mangle]
pub extern "C" fn regio_omp_teams_end(body: u32) {
    teams::end(body);
}

/// Fortran `call regio_omp_teams_begin(id)` with INTEGER(4) id.
///
/// # Safety
/// `body` must point to a readable INTEGER(4).
#[no_mangle]
pub unsafe extern "C" fn regio_omp_teams_begin_(body: *const i32) {
    if !body.is_null() {
        teams::begin(*body as u32);
    }
}

/// Fortran `call regio_omp_teams_end(id)` with INTEGER(4) id.
///
/// # Safety
/// `body` must point to a readable INTEGER(4).
#[no_mangle]
pub unsafe extern "C" fn regio_omp_teams_end_(body: *const i32) {
    if !body.is_null() {
        teams::end(*body as u32);
    }
}

/// Fortran `regio_tl(id, lock)`: the instrumenter's stand-in for
/// `omp_test_lock(lock)` inside an expression (a condition, a DO WHILE):
/// calls the OpenMP library's Fortran `omp_test_lock` inside region `id`
/// (plus the base its frame set, [`crate::lock_base`]) and returns its
/// LOGICAL result. The library is looked up at run time (the runtime does
/// not link one); without it the test fails (.false.).
///
/// The exported symbols `regio_tl_`, `regio_tnl_` and `regio_tl_base_`
/// are entry stubs (below) that add the caller's stack pointer as an
/// argument and jump here.
///
/// # Safety
/// `id` must be readable; `lock` is passed on unchanged to the library.
unsafe extern "C" fn regio_tl_at(id: *const i32, lock: *mut c_void, sp: usize) -> i32 {
    static TEST: Lazy = Lazy::new(c"omp_test_lock_");
    lock_test(id, lock, &TEST, sp)
}

/// Fortran `regio_tnl(id, lock)`: the same for `omp_test_nest_lock`
/// (INTEGER result: the new nesting count, 0 when not acquired).
///
/// # Safety
/// As [`regio_tl_at`].
unsafe extern "C" fn regio_tnl_at(id: *const i32, lock: *mut c_void, sp: usize) -> i32 {
    static TEST: Lazy = Lazy::new(c"omp_test_nest_lock_");
    lock_test(id, lock, &TEST, sp)
}

/// Fortran `call regio_tl_base(regio_b)`, before a statement with lock
/// tests: their wrappers (`regio_tl(ID, lock)`, written in place of
/// `omp_test_lock(` and no longer than it) pass the local id, and the
/// base this call's frame set is added to it.
///
/// # Safety
/// `base` must be null or readable.
unsafe extern "C" fn regio_tl_base_at(base: *const i32, sp: usize) {
    if !base.is_null() {
        crate::lock_base::set(*base as u32, sp);
    }
}

// Entry stubs: the caller's stack pointer at its `call` (x86_64: just
// above the return address; aarch64: `sp` itself) as one more argument,
// then a tail jump, so the function returns straight to the Fortran code.
#[cfg(target_arch = "x86_64")]
mod entry {
    use std::ffi::c_void;

    /// # Safety
    /// As `regio_tl_at`.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn regio_tl_(_id: *const i32, _lock: *mut c_void) -> i32 {
        core::arch::naked_asm!("lea rdx, [rsp + 8]", "jmp {f}", f = sym super::regio_tl_at)
    }

    /// # Safety
    /// As `regio_tnl_at`.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn regio_tnl_(_id: *const i32, _lock: *mut c_void) -> i32 {
        core::arch::naked_asm!("lea rdx, [rsp + 8]", "jmp {f}", f = sym super::regio_tnl_at)
    }

    /// # Safety
    /// As `regio_tl_base_at`.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn regio_tl_base_(_base: *const i32) {
        core::arch::naked_asm!("lea rsi, [rsp + 8]", "jmp {f}", f = sym super::regio_tl_base_at)
    }
}

#[cfg(target_arch = "aarch64")]
mod entry {
    use std::ffi::c_void;

    /// # Safety
    /// As `regio_tl_at`.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn regio_tl_(_id: *const i32, _lock: *mut c_void) -> i32 {
        core::arch::naked_asm!("mov x2, sp", "b {f}", f = sym super::regio_tl_at)
    }

    /// # Safety
    /// As `regio_tnl_at`.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn regio_tnl_(_id: *const i32, _lock: *mut c_void) -> i32 {
        core::arch::naked_asm!("mov x2, sp", "b {f}", f = sym super::regio_tnl_at)
    }

    /// # Safety
    /// As `regio_tl_base_at`.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn regio_tl_base_(_base: *const i32) {
        core::arch::naked_asm!("mov x1, sp", "b {f}", f = sym super::regio_tl_base_at)
    }
}

/// Elsewhere: no frame (0), every lock test takes the base set last.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod entry {
    use std::ffi::c_void;

    /// # Safety
    /// As `regio_tl_at`.
    #[no_mangle]
    pub unsafe extern "C" fn regio_tl_(id: *const i32, lock: *mut c_void) -> i32 {
        super::regio_tl_at(id, lock, 0)
    }

    /// # Safety
    /// As `regio_tnl_at`.
    #[no_mangle]
    pub unsafe extern "C" fn regio_tnl_(id: *const i32, lock: *mut c_void) -> i32 {
        super::regio_tnl_at(id, lock, 0)
    }

    /// # Safety
    /// As `regio_tl_base_at`.
    #[no_mangle]
    pub unsafe extern "C" fn regio_tl_base_(base: *const i32) {
        super::regio_tl_base_at(base, 0)
    }
}

unsafe fn lock_test(id: *const i32, lock: *mut c_void, test: &Lazy, sp: usize) -> i32 {
    let Some(f) = test.get() else {
        return 0;
    };
    type Test = unsafe extern "C" fn(*mut c_void) -> i32;
    // SAFETY: libgomp's Fortran lock tests take the lock argument's address
    // and return INTEGER(4)/LOGICAL(4).
    let test = std::mem::transmute::<usize, Test>(f);
    let region = if id.is_null() {
        None
    } else {
        Some((*id as u32).wrapping_add(crate::lock_base::get(sp)))
    };
    if let Some(r) = region {
        api::enter(r);
    }
    let got = test(lock);
    if let Some(r) = region {
        api::exit(r);
    }
    got
}

/// Fortran `call regio_omp_join(team)`.
///
/// # Safety
/// `team` must be readable.
#[no_mangle]
pub unsafe extern "C" fn regio_omp_join_(team: *const i64) {
    if !team.is_null() {
        regio_omp_join(*team as u64);
    }
}

/// After `MPI_Init` returns: the rank and world size MPI reports
/// (`MPI_COMM_WORLD`). They name this process's profile.
#[no_mangle]
pub extern "C" fn regio_mpi_rank(rank: i32, size: i32) {
    if rank >= 0 && size > 0 && lifecycle::ensure_init_fast() != DEAD {
        config::confirm_rank(rank as u32, size as u32);
        if let Some(cfg) = config::config() {
            mpi::spawn::at_init(cfg, rank as u32);
        }
        // The ranks' clocks against rank 0, while MPI is fresh.
        mpi::sync::at_init();
    }
}

/// After a blocking MPI send, receive or collective returned, before its
/// region is left: the arguments the instrumenter's routine table names
/// (`kind` 0 send, 1 receive, 2 collective with `peer` its root or -1).
/// Handles are widened to 64 bits; `status` is null, MPI_STATUS_IGNORE or
/// the receive's status.
///
/// # Safety
/// `status` must be null, MPI_STATUS_IGNORE or point to an MPI_Status.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_msg(
    id: u32,
    kind: i32,
    peer: i32,
    tag: i32,
    comm: u64,
    count: i64,
    datatype: u64,
    status: *const c_void,
) {
    let a = MsgArgs {
        id,
        kind,
        peer,
        tag,
        comm,
        count,
        datatype,
    };
    mpi::probes::message(&a, status);
}

/// After a call that posted a non-blocking message (`kind` as for
/// `regio_mpi_msg`, plus 4 for a persistent request) with the request
/// handle it returned.
///
/// # Safety
/// None beyond the C ABI.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_post(
    id: u32,
    kind: i32,
    peer: i32,
    tag: i32,
    comm: u64,
    count: i64,
    datatype: u64,
    request: u64,
) {
    let a = MsgArgs {
        id,
        kind,
        peer,
        tag,
        comm,
        count,
        datatype,
    };
    mpi::probes::post(&a, request);
}

/// Before an MPI_Wait*/MPI_Test* call: its `n` requests of `elem` bytes.
///
/// # Safety
/// `reqs` must point to `n` handles of `elem` bytes.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_reqs(n: i32, reqs: *const c_void, elem: i32) {
    mpi::probes::requests_before(n, reqs, elem);
}

/// After an MPI_Wait*/MPI_Test* call: every request completed (`all`
/// non-zero) or those whose handle changed; `statuses` null,
/// MPI_STATUS(ES)_IGNORE or one status per request.
///
/// # Safety
/// As for `regio_mpi_reqs`; `statuses` null, the ignore marker or `n`
/// statuses.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_done(
    id: u32,
    n: i32,
    reqs: *const c_void,
    elem: i32,
    all: i32,
    statuses: *const c_void,
) {
    mpi::probes::requests_after(id, n, reqs, elem, all, statuses);
}

/// Before MPI_Request_free: the request's handle.
#[no_mangle]
pub extern "C" fn regio_mpi_request_free(request: u64) {
    mpi::probes::request_free(request);
}

/// After `MPI_Start`/`MPI_Startall` returned: its `n` persistent requests
/// (`elem` bytes each), whose messages start here.
///
/// # Safety
/// `reqs` must point to `n` handles of `elem` bytes.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_start(id: u32, n: i32, reqs: *const c_void, elem: i32) {
    mpi::probes::start(id, n, reqs, elem);
}

/// Fortran `call regio_mpi_start(id, n, requests)`: INTEGER(4) handles.
///
/// # Safety
/// `reqs` must hold `*n` handles.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_start_(id: *const i32, n: *const i32, reqs: *const i32) {
    mpi::probes::start(*id as u32, *n, reqs as *const c_void, 4);
}

/// After a collective returned, before its region is left: region id,
/// `shape` (how this process's bytes follow from the arguments: flags of
/// the send side, the receive side's shifted by 8, bit 16 for 64-bit count
/// arrays; the instrumenter's `mpi_routines.rs` writes it), root in
/// `comm` (-1: none), and per side a count or (as the shape says) an
/// array of one count per rank, and the datatype. Handles widened to 64
/// bits.
///
/// # Safety
/// An array side must hold one count per rank of `comm`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_coll(
    id: u32,
    shape: i32,
    root: i32,
    comm: u64,
    send_count: i64,
    send_counts: *const c_void,
    send_type: u64,
    recv_count: i64,
    recv_counts: *const c_void,
    recv_type: u64,
) {
    mpi::probes::collective(&mpi::probes::CollArgs {
        id,
        shape,
        root,
        comm,
        send: mpi::probes::CollSide {
            count: send_count,
            counts: send_counts,
            datatype: send_type,
        },
        recv: mpi::probes::CollSide {
            count: recv_count,
            counts: recv_counts,
            datatype: recv_type,
        },
    });
}

/// Fortran `call regio_mpi_coll(id, shape, root, comm, scount, stype,
/// rcount, rtype)`: INTEGER(4) arguments and Fortran handles; a count
/// the shape marks as an array is the array (its first element).
///
/// # Safety
/// Every argument must be readable; array counts one per rank of `comm`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_coll_(
    id: *const i32,
    shape: *const i32,
    root: *const i32,
    comm: *const i32,
    send_count: *const i32,
    send_type: *const i32,
    recv_count: *const i32,
    recv_type: *const i32,
) {
    if let Some(a) = mpi::probes::CollArgs::fortran(
        id, shape, root, comm, send_count, send_type, recv_count, recv_type,
    ) {
        mpi::probes::collective(&a);
    }
}

/// Fortran `call regio_mpi_msg(id, kind, peer, tag, comm, count, datatype)`
/// with INTEGER(4) arguments; `comm` and `datatype` are Fortran handles
/// (`MPI_Fint`, or `%MPI_VAL` of the `mpi_f08` types). No status: a
/// receive from MPI_ANY_SOURCE keeps the wildcard.
///
/// # Safety
/// Every argument must be readable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_msg_(
    id: *const i32,
    kind: *const i32,
    peer: *const i32,
    tag: *const i32,
    comm: *const i32,
    count: *const i32,
    datatype: *const i32,
) {
    if let Some(a) = MsgArgs::fortran(id, kind, peer, tag, comm, count, datatype) {
        mpi::probes::message(&a, std::ptr::null());
    }
}

/// Fortran `call regio_mpi_post(id, kind, peer, tag, comm, count,
/// datatype, request)`, INTEGER(4) arguments and handles.
///
/// # Safety
/// Every argument must be readable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_post_(
    id: *const i32,
    kind: *const i32,
    peer: *const i32,
    tag: *const i32,
    comm: *const i32,
    count: *const i32,
    datatype: *const i32,
    request: *const i32,
) {
    if let Some(a) = MsgArgs::fortran(id, kind, peer, tag, comm, count, datatype) {
        mpi::probes::post(&a, u64::from(*request as u32));
    }
}

/// Fortran `call regio_mpi_reqs(n, requests)`: before a Wait/Test call,
/// its INTEGER(4) request handles.
///
/// # Safety
/// `reqs` must hold `*n` handles.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_reqs_(n: *const i32, reqs: *const i32) {
    mpi::probes::requests_before(*n, reqs as *const c_void, 4);
}

/// Fortran `call regio_mpi_done(id, n, requests, all)` after it.
///
/// # Safety
/// As for `regio_mpi_reqs_`.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_done_(
    id: *const i32,
    n: *const i32,
    reqs: *const i32,
    all: *const i32,
) {
    mpi::probes::requests_after(
        *id as u32,
        *n,
        reqs as *const c_void,
        4,
        *all,
        std::ptr::null(),
    );
}

/// Fortran `call regio_mpi_test(id, n, requests, flag)` after an
/// `MPI_Test`/`MPI_Testall` (with `regio_mpi_reqs` before it): every
/// request completed when the call's LOGICAL `flag` is true (non-zero),
/// else those whose handle changed.
///
/// # Safety
/// As for `regio_mpi_reqs_`; `flag` a default LOGICAL.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_test_(
    id: *const i32,
    n: *const i32,
    reqs: *const i32,
    flag: *const i32,
) {
    mpi::probes::requests_after(
        *id as u32,
        *n,
        reqs as *const c_void,
        4,
        i32::from(*flag != 0),
        std::ptr::null(),
    );
}

/// Fortran `call regio_mpi_test_status(id, n, requests, flag, statuses)`:
/// `regio_mpi_test` with the call's status argument(s) (read only when
/// `flag` is true; the ignore markers are recognised).
///
/// # Safety
/// As for `regio_mpi_test_`; `statuses` `*n` statuses or the marker.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_test_status_(
    id: *const i32,
    n: *const i32,
    reqs: *const i32,
    flag: *const i32,
    statuses: *const i32,
) {
    mpi::probes::requests_after(
        *id as u32,
        *n,
        reqs as *const c_void,
        4,
        i32::from(*flag != 0),
        mpi::probes::fortran_status(statuses as *const c_void),
    );
}

/// Fortran `call regio_mpi_coll_buf(id, shape, root, comm, scount, stype,
/// rcount, rtype, loc(buffer))`: `regio_mpi_coll` with the address of the
/// argument that may be `MPI_IN_PLACE` (a buffer dummy argument can be
/// handed it: only its address tells), as `LOC` gives it.
///
/// # Safety
/// As for `regio_mpi_coll_`; `buffer` an INTEGER(8).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_coll_buf_(
    id: *const i32,
    shape: *const i32,
    root: *const i32,
    comm: *const i32,
    send_count: *const i32,
    send_type: *const i32,
    recv_count: *const i32,
    recv_type: *const i32,
    buffer: *const i64,
) {
    if let Some(mut a) = mpi::probes::CollArgs::fortran(
        id, shape, root, comm, send_count, send_type, recv_count, recv_type,
    ) {
        a.shape |= mpi::probes::fortran_in_place_shape(*buffer as usize);
        mpi::probes::collective(&a);
    }
}

/// After a call that created communicator `new` from `parent` (C
/// handles widened to 64 bits): its run-wide trace id
/// (`mpi::probes::comm_created`).
#[no_mangle]
pub extern "C" fn regio_mpi_comm_new(parent: u64, new: u64) {
    mpi::probes::comm_created(parent, new);
}

/// After `MPI_Comm_idup` (`how` 1) or `MPI_Comm_create_group` (`how` 2,
/// with its `tag`): communicator `new` made from `parent` gets its
/// run-wide trace id (`mpi::probes::comm_made`).
#[no_mangle]
pub extern "C" fn regio_mpi_comm_made(how: i32, parent: u64, new: u64, tag: i32) {
    mpi::probes::comm_made(how, parent, new, tag);
}

/// Fortran `call regio_mpi_comm_made(how, parent, new, tag)`: Fortran
/// handles.
///
/// # Safety
/// Every argument must be readable.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_comm_made_(
    how: *const i32,
    parent: *const i32,
    new: *const i32,
    tag: *const i32,
) {
    if let (Some(p), Some(n)) = (mpi::pmpi::comm_f2c(*parent), mpi::pmpi::comm_f2c(*new)) {
        mpi::probes::comm_made(*how, p, n, *tag);
    }
}

/// Fortran `call regio_mpi_comm_new(parent, new)`: Fortran handles.
///
/// # Safety
/// Both arguments must be readable.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_comm_new_(parent: *const i32, new: *const i32) {
    if let (Some(p), Some(n)) = (mpi::pmpi::comm_f2c(*parent), mpi::pmpi::comm_f2c(*new)) {
        mpi::probes::comm_created(p, n);
    }
}

/// Fortran `call regio_mpi_msg_status(id, kind, peer, tag, comm, count,
/// datatype, status)`: `regio_mpi_msg` for a receive with its status
/// argument (an INTEGER array or `TYPE(MPI_Status)`; the ignore marker
/// is recognised), which names the source of an `MPI_ANY_SOURCE`
/// receive and the bytes that arrived.
///
/// # Safety
/// Every argument must be readable; `status` a status or the marker.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn regio_mpi_msg_status_(
    id: *const i32,
    kind: *const i32,
    peer: *const i32,
    tag: *const i32,
    comm: *const i32,
    count: *const i32,
    datatype: *const i32,
    status: *const i32,
) {
    if let Some(a) = MsgArgs::fortran(id, kind, peer, tag, comm, count, datatype) {
        mpi::probes::message(&a, mpi::probes::fortran_status(status as *const c_void));
    }
}

/// Fortran `call regio_mpi_done_status(id, n, requests, all, statuses)`:
/// `regio_mpi_done` with the statuses of a Wait/Waitall (the ignore
/// markers recognised).
///
/// # Safety
/// As for `regio_mpi_reqs_`; `statuses` `*n` statuses or the marker.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_done_status_(
    id: *const i32,
    n: *const i32,
    reqs: *const i32,
    all: *const i32,
    statuses: *const i32,
) {
    mpi::probes::requests_after(
        *id as u32,
        *n,
        reqs as *const c_void,
        4,
        *all,
        mpi::probes::fortran_status(statuses as *const c_void),
    );
}

/// Before `MPI_Finalize`: the second clock measurement (`mpi::sync`).
#[no_mangle]
pub extern "C" fn regio_mpi_finalize() {
    if lifecycle::ensure_init_fast() != DEAD {
        mpi::sync::at_finalize();
    }
}

/// Fortran `call regio_mpi_finalize()`.
#[no_mangle]
pub extern "C" fn regio_mpi_finalize_() {
    regio_mpi_finalize();
}

/// Fortran `call regio_mpi_rank(rank, size)` with INTEGER(4) arguments.
///
/// # Safety
/// Both arguments must be readable.
#[no_mangle]
pub unsafe extern "C" fn regio_mpi_rank_(rank: *const i32, size: *const i32) {
    if !rank.is_null() && !size.is_null() {
        regio_mpi_rank(*rank, *size);
    }
}

/// After `MPI_Init` in code that cannot call PMPI itself (Fortran): asks
/// the MPI library in this process for the rank and world size through the
/// C profiling interface, found at run time (the runtime does not link
/// MPI). Open MPI (MPI_COMM_WORLD is the address of `ompi_mpi_comm_world`)
/// and MPICH-ABI libraries (an `int` handle, 0x44000000) are recognised;
/// with any other library this does nothing and the launcher's environment
/// stands.
#[no_mangle]
pub extern "C" fn regio_mpi_init_done() {
    let (Some(rank_fn), Some(size_fn)) = (find(c"PMPI_Comm_rank"), find(c"PMPI_Comm_size")) else {
        return;
    };
    let (mut rank, mut size) = (-1i32, 0i32);
    if let Some(ompi_world) = find(c"ompi_mpi_comm_world") {
        type F = unsafe extern "C" fn(*mut c_void, *mut i32) -> i32;
        // SAFETY: Open MPI's PMPI_Comm_rank/size take a communicator
        // pointer; `ompi_world` is MPI_COMM_WORLD.
        unsafe {
            let (r, s): (F, F) = (
                std::mem::transmute::<usize, F>(rank_fn),
                std::mem::transmute::<usize, F>(size_fn),
            );
            r(ompi_world as *mut c_void, &mut rank);
            s(ompi_world as *mut c_void, &mut size);
        }
    } else if find(c"MPIR_Err_create_code").is_some() {
        type F = unsafe extern "C" fn(i32, *mut i32) -> i32;
        const MPICH_COMM_WORLD: i32 = 0x4400_0000;
        // SAFETY: MPICH's ABI passes communicators as int handles.
        unsafe {
            let (r, s): (F, F) = (
                std::mem::transmute::<usize, F>(rank_fn),
                std::mem::transmute::<usize, F>(size_fn),
            );
            r(MPICH_COMM_WORLD, &mut rank);
            s(MPICH_COMM_WORLD, &mut size);
        }
    }
    regio_mpi_rank(rank, size);
}

/// Fortran `call regio_mpi_init_done()`.
#[no_mangle]
pub extern "C" fn regio_mpi_init_done_() {
    regio_mpi_init_done();
}
