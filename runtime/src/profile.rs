//! Writes `profile-r<rank>-p<pid>.json` (format: `regio_idf::rundir`) and
//! copies the registered IDF next to it.
//!
//! Runs at exit, on `regio_flush` and inside fatal-signal handlers, so it
//! allocates nothing: text goes through a static buffer guarded by the
//! writer lock, paths are built in static buffers too, and files are
//! written under a temporary name and renamed.
//!
//! `complete` rule: true when the profile is written by a normal exit or a
//! flush and no thread other than the writing one has a frame open. At exit
//! the writing thread's own frames are closed first (so `exit()` from deep
//! inside the program leaves a complete profile); at a flush they stay open
//! and are reported with `open` > 0. A profile written from a signal
//! handler is never complete.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};

use crate::clock::{self, Calibration};
use crate::config::{self, Config};
use crate::counters;
use crate::fork;
use crate::frames::{totals, StackIndex};
use crate::idf;
use crate::mpi;
use crate::node::ROOT;
use crate::out::{warn, Cat, Out, W32, W64, WI32};
use crate::region;
use crate::registry;
use crate::select;
use crate::sys;
use crate::thread::ThreadState;
use crate::throttle;
use crate::user_events;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Exit,
    Flush,
    Signal(i32),
    /// `MPI_Abort`: this rank is about to call it, or another rank of the
    /// job is (peers). An end of the run, never complete.
    Abort,
    /// `REGIO_SNAPSHOT`: written while the program runs (`snapshot`).
    Snapshot,
}

// Snapshots (`REGIO_SNAPSHOT`): once a write at the end of the run has
// begun (exit, fatal signal, MPI_Abort), no snapshot may replace it.
static FINAL_BEGUN: AtomicBool = AtomicBool::new(false);

/// In a forked child: the writer lock held by another thread of the
/// parent (the snapshot thread, typically) has no holder any more; left
/// set, the child's own write at exit would wait for it and give up.
pub fn release_writer_in_child() {
    if WRITER.load(Acquire) != sys::gettid() {
        WRITER.store(0, Release);
    }
}

/// Whether a write for `reason` may go ahead as far as snapshots are
/// concerned: a snapshot only while no end-of-run write has begun; an
/// end-of-run write first stops every later snapshot.
fn snapshot_gate(reason: Reason) -> bool {
    match reason {
        Reason::Snapshot => !FINAL_BEGUN.load(Acquire),
        Reason::Flush => true,
        _ => {
            FINAL_BEGUN.store(true, Release);
            true
        }
    }
}

/// Static storage used only while holding the writer lock.
struct Scratch<const N: usize>(UnsafeCell<[u8; N]>);
// SAFETY: accessed only by the thread holding WRITER.
unsafe impl<const N: usize> Sync for Scratch<N> {}

const PATH_BUF: usize = idf::MAX_PATH + 128;
static TEXT: Scratch<65536> = Scratch(UnsafeCell::new([0; 65536]));
static DIR: Scratch<PATH_BUF> = Scratch(UnsafeCell::new([0; PATH_BUF]));
static FINAL: Scratch<PATH_BUF> = Scratch(UnsafeCell::new([0; PATH_BUF]));
static TEMP: Scratch<PATH_BUF> = Scratch(UnsafeCell::new([0; PATH_BUF]));

/// Scratch of the stack index (`frames::StackIndex`) for stacks up to this
/// deep; deeper ones map their own, and without memory it scans.
const SCAN_SLOTS: usize = 1 << 16;
struct ScanScratch(UnsafeCell<[u32; SCAN_SLOTS]>);
// SAFETY: accessed only by the thread holding WRITER.
unsafe impl Sync for ScanScratch {}
static SCAN: ScanScratch = ScanScratch(UnsafeCell::new([0; SCAN_SLOTS]));

/// Scratch for a stack index of `depth` entries: the static one, or an
/// anonymous mapping (no heap: this runs in signal handlers) released on
/// drop; null when neither is available.
struct ScanSpace {
    ptr: *mut u32,
    /// The mapping behind `ptr` for a deep stack; unmapped on drop.
    _mapped: Option<sys::Mapping>,
}

impl ScanSpace {
    /// # Safety
    /// Only the holder of the writer lock, one at a time.
    unsafe fn new(depth: usize) -> ScanSpace {
        if depth <= SCAN_SLOTS {
            return ScanSpace {
                ptr: SCAN.0.get().cast(),
                _mapped: None,
            };
        }
        let mut mapped = sys::Mapping::new(depth.saturating_mul(4));
        ScanSpace {
            ptr: mapped
                .as_mut()
                .map_or(std::ptr::null_mut(), |m| m.as_mut_ptr().cast()),
            _mapped: mapped,
        }
    }
}

/// Threads written in number order through this table; numbers beyond it
/// (more threads than slots) are found by walking the list.
const ORDER_SLOTS: usize = 8192;
struct Order(UnsafeCell<[*const ThreadState; ORDER_SLOTS]>);
// SAFETY: accessed only by the thread holding WRITER.
unsafe impl Sync for Order {}
static ORDER: Order = Order(UnsafeCell::new([std::ptr::null(); ORDER_SLOTS]));

/// OS thread id of the thread writing, 0 when free.
static WRITER: AtomicU64 = AtomicU64::new(0);

/// How long a writer waits for another thread's write to finish.
const WAIT_NS: u64 = 2_000_000_000;

/// Termination signals (SIGTERM, SIGINT) that arrive while a profile is
/// written at exit or by a flush wait until the write is done (`signals`
/// defers them): bits 0-15 count the sections that defer them, bits 16 and
/// up hold the first signal deferred.
static DEFER: AtomicU32 = AtomicU32::new(0);
const DEFER_COUNT: u32 = 0xffff;

/// The exit-time profile has been written: a signal after it (a deferred
/// one, or one during the rest of `exit()`) leaves it as it is instead of
/// replacing a complete profile with an incomplete one.
static EXIT_WRITTEN: AtomicBool = AtomicBool::new(false);

/// Starts a section in which termination signals are deferred.
pub fn begin_deferring() {
    DEFER.fetch_add(1, AcqRel);
}

/// Ends a section begun by `begin_deferring`; the last one out takes the
/// deferred signal, if any, for its caller to raise.
pub fn end_deferring() -> Option<i32> {
    let mut s = DEFER.load(Acquire);
    loop {
        let last = s & DEFER_COUNT <= 1;
        let new = if last { 0 } else { s - 1 };
        match DEFER.compare_exchange_weak(s, new, AcqRel, Acquire) {
            Ok(_) => return (last && s >> 16 != 0).then_some((s >> 16) as i32),
            Err(v) => s = v,
        }
    }
}

/// From the signal handler: whether termination signal `sig` is deferred
/// (a deferring section is running; the first signal is kept).
pub fn defer_termination(sig: i32) -> bool {
    let mut s = DEFER.load(Acquire);
    loop {
        if s & DEFER_COUNT == 0 {
            return false;
        }
        if s >> 16 != 0 {
            return true;
        }
        match DEFER.compare_exchange_weak(s, s | (sig as u32) << 16, AcqRel, Acquire) {
            Ok(_) => return true,
            Err(v) => s = v,
        }
    }
}

/// Whether the exit-time profile has been written.
pub fn exit_written() -> bool {
    EXIT_WRITTEN.load(Acquire)
}

/// Writes the profile now. Returns false if it could not (runtime off, a
/// write already in progress on this thread, or an I/O error, which is
/// reported on stderr).
///
/// At exit and on a flush, SIGTERM and SIGINT wait for the write to end: a
/// large profile takes a while, and dying halfway would leave nothing. A
/// flush then raises the signal it deferred (the exit hook does so
/// itself, after flushing stdio).
pub fn write(reason: Reason) -> bool {
    if !matches!(reason, Reason::Exit | Reason::Flush) {
        return write_now(reason);
    }
    begin_deferring();
    let ok = write_now(reason);
    if let Some(sig) = end_deferring() {
        // SAFETY: raising a signal in our own thread; our handler (or the
        // program's) takes it from here.
        unsafe { libc::raise(sig) };
    }
    ok
}

fn write_now(reason: Reason) -> bool {
    let Some(cfg) = config::config() else {
        return false;
    };
    if !snapshot_gate(reason) {
        return false;
    }
    let me = sys::gettid();
    let t0 = clock::monotonic_ns();
    loop {
        match WRITER.compare_exchange(0, me, Acquire, Relaxed) {
            Ok(_) => break,
            // A signal interrupted this thread's own write: the buffers are
            // mid-use, so leave the profile to the interrupted write.
            Err(owner) if owner == me => return false,
            Err(_) => {
                if clock::monotonic_ns().saturating_sub(t0) > WAIT_NS {
                    return false;
                }
                // SAFETY: sched_yield has no preconditions.
                unsafe { libc::sched_yield() };
            }
        }
    }
    // Checked again under the lock: an end-of-run write that began while
    // this snapshot waited for the lock has the last word.
    if !snapshot_gate(reason) {
        WRITER.store(0, Release);
        return false;
    }
    // SAFETY: we hold the writer lock, which owns the scratch buffers.
    let ok = unsafe { write_locked(cfg, reason) };
    if !matches!(reason, Reason::Flush | Reason::Snapshot) {
        // The end of the run: the traces after the profile, which matters
        // more when a signal leaves little time.
        write_traces();
    }
    if ok && reason == Reason::Exit {
        EXIT_WRITTEN.store(true, Release);
    }
    WRITER.store(0, Release);
    ok
}

unsafe fn write_locked(cfg: &Config, reason: Reason) -> bool {
    // The end of the run and the tick rate, from one pair of readings.
    let at = clock::calibrate();
    let (cal, now, mono) = (at.cal, at.ticks, at.mono_ns);
    let me = registry::current();
    if !me.is_null() {
        // glibc's exit() runs the calling thread's TLS destructors before
        // the exit hooks, which marks it finished; it is still running.
        (*me).finished.store(false, Relaxed);
        if reason == Reason::Exit {
            (*me).pop_to(1, now);
        }
    }
    let complete = !matches!(reason, Reason::Signal(_) | Reason::Abort | Reason::Snapshot) && {
        let mut others_open = false;
        let mut t = registry::head();
        while !t.is_null() {
            if t != me && (*t).depth() > 1 {
                others_open = true;
            }
            t = (*t).next.load(Acquire);
        }
        !others_open
    };

    let pid = sys::getpid();
    let mut dir = Cat::new(&mut *DIR.0.get());
    dir.push(&cfg.run_dir);
    let Some(dir) = dir.finish() else {
        warn(&[b"run directory path too long: ", &cfg.run_dir], None);
        return false;
    };
    if let Err(e) = sys::mkdir_p(dir) {
        warn(&[b"cannot create run directory ", &cfg.run_dir], Some(e));
        return false;
    }
    let dir = &cfg.run_dir;
    let (rank, _) = config::rank_size(cfg);
    let mut fin = Cat::new(&mut *FINAL.0.get());
    fin.push(dir).push(b"/profile-r").num(rank as u64);
    fin.push(b"-p").num(pid).push(b".json");
    let mut tmp = Cat::new(&mut *TEMP.0.get());
    tmp.push(dir).push(b"/.profile-r").num(rank as u64);
    tmp.push(b"-p").num(pid).push(b".json.tmp.").num(pid);
    let (Some(fin), Some(tmp)) = (fin.finish(), tmp.finish()) else {
        warn(&[b"profile path too long in ", dir], None);
        return false;
    };
    let ok = match sys::open_write(tmp) {
        Err(e) => {
            warn(&[b"cannot create ", until_nul(tmp)], Some(e));
            false
        }
        Ok(fd) => {
            pause(cfg.test_write_pause_ms);
            let mut out = Out::new(fd, &mut *TEXT.0.get());
            emit(&mut out, cfg, reason, complete, pid, now, mono, cal);
            out.flush();
            let closed = sys::close(fd);
            match out.error.or(closed.err()) {
                Some(e) => {
                    warn(&[b"cannot write ", until_nul(tmp)], Some(e));
                    sys::unlink(tmp);
                    false
                }
                None => match sys::rename(tmp, fin) {
                    Ok(()) => true,
                    Err(e) => {
                        warn(&[b"cannot rename ", until_nul(tmp)], Some(e));
                        sys::unlink(tmp);
                        false
                    }
                },
            }
        }
    };
    let mut copied = true;
    for i in 0..idf::count() {
        if idf::first_of_path(i) {
            let mut name = [0; 32];
            copied &= copy_idf(dir, pid, i, idf::copy_name(i, &mut name));
        }
    }
    // The first IDF also under the name readers of one IDF look for.
    if idf::count() > 0 {
        copied &= copy_idf(dir, pid, 0, b"regio.idf.json");
    }
    copied && ok
}

/// Writes every thread's trace buffer up to its last whole record and
/// closes the trace files (REGIO_MODE=trace; nothing otherwise). For the
/// end of the process only (exit, fatal signal, MPI_Abort): afterwards
/// threads record into their buffers but no longer write them.
pub fn write_traces() {
    let at = clock::calibrate();
    let (span_ticks, span_ns) = at.cal.span();
    let mut t = registry::head();
    while !t.is_null() {
        // SAFETY: registered states are leaked and never freed.
        unsafe {
            if let Some(tb) = (*t).trace() {
                tb.write_at_end(at.ticks, span_ticks, span_ns);
            }
            t = (*t).next.load(Acquire);
        }
    }
}

/// `REGIO_TEST_WRITE_PAUSE_MS`: the tests' stand-in for a profile that
/// takes long to write (a signal can be sent while the temporary file
/// exists). Sleeps through interruptions.
fn pause(ms: u64) {
    if ms == 0 {
        return;
    }
    let end = clock::monotonic_ns().saturating_add(ms.saturating_mul(1_000_000));
    loop {
        let left = end.saturating_sub(clock::monotonic_ns());
        if left == 0 {
            return;
        }
        let ts = libc::timespec {
            tv_sec: (left / 1_000_000_000) as libc::time_t,
            tv_nsec: (left % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: nanosleep is async-signal-safe.
        unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) };
    }
}

fn until_nul(s: &[u8]) -> &[u8] {
    s.strip_suffix(&[0]).unwrap_or(s)
}

#[allow(clippy::too_many_arguments)]
unsafe fn emit(
    o: &mut Out,
    cfg: &Config,
    reason: Reason,
    complete: bool,
    pid: u64,
    now: u64,
    mono: u64,
    cal: Calibration,
) {
    o.raw(b"{\"format\":");
    o.string(b"regio-profile");
    o.raw(b",\"version\":2,\"mode\":");
    o.string(cfg.mode.as_bytes());
    o.raw(b",\"complete\":");
    o.boolean(complete);
    o.raw(b",\"reason\":");
    let (name, signal): (&[u8], Option<i32>) = match reason {
        Reason::Exit => (b"exit", None),
        Reason::Flush => (b"flush", None),
        Reason::Signal(s) => (b"signal", Some(s)),
        Reason::Abort => (b"abort", None),
        Reason::Snapshot => (b"snapshot", None),
    };
    o.string(name);
    o.pad(b"snapshot".len() - name.len());
    o.raw(b",\"signal\":");
    match signal {
        Some(s) => o.int(s as i64, WI32),
        None => o.null(WI32),
    }
    o.raw(b",\"pid\":");
    o.uint(pid, W32);
    o.raw(b",\"rank\":");
    let (rank, size) = config::rank_size(cfg);
    o.uint(rank as u64, W32);
    o.raw(b",\"size\":");
    o.uint(size as u64, W32);
    o.raw(b",\"host\":");
    o.string(&cfg.host);
    o.raw(b",\"command\":[");
    for (i, arg) in cfg.command.iter().enumerate() {
        if i > 0 {
            o.raw(b",");
        }
        o.string(arg);
    }
    o.raw(b"],\"start_unix_ns\":");
    o.uint(cfg.start_unix_ns, W64);
    o.raw(b",\"duration_ns\":");
    o.uint(mono.saturating_sub(clock::start_monotonic_ns()), W64);
    o.raw(b",\"clock\":{\"source\":");
    o.string(clock::source_name().as_bytes());
    o.raw(b",\"ticks_per_second\":");
    o.fixed6(cal.ticks_per_second());
    o.raw(b"}");
    mpi::write::clock_sync(o);
    // REGIO_THROTTLE in force (absent: off).
    if let Some((calls, ns)) = throttle::in_force() {
        o.raw(b",\"throttle\":{\"calls\":");
        o.uint(calls, W64);
        o.raw(b",\"ns\":");
        o.uint(ns, W64);
        o.raw(b"}");
    }
    o.raw(b",\"idf\":");
    if idf::count() > 0 {
        o.string(idf::get(0));
    } else {
        o.raw(b"null");
    }
    o.raw(b",\"idfs\":[");
    for i in 0..idf::count() {
        if i > 0 {
            o.raw(b",");
        }
        o.raw(b"{\"base\":");
        o.uint(u64::from(idf::base(i)), W32);
        o.raw(b",\"path\":");
        o.string(idf::get(i));
        o.raw(b",\"copy\":");
        let mut name = [0; 32];
        o.string(idf::copy_name(i, &mut name));
        o.raw(b"}");
    }
    o.raw(b"]");
    emit_counter_list(o);
    user_events::write_process(o);
    o.raw(b",\"snapshot\":");
    o.boolean(reason == Reason::Snapshot);
    // Descriptors of macro-defined Rust regions; C and Fortran regions live
    // in the IDF.
    o.raw(b",\"regions\":[");
    emit_regions(o);
    o.raw(b"],\"threads\":[");
    let n = registry::count();
    fill_order(n);
    let mut first = true;
    for number in 0..n {
        let t = thread_by_number(number);
        if t.is_null() {
            continue;
        }
        if !first {
            o.raw(b",");
        }
        first = false;
        emit_thread(o, &*t, now, cal);
    }
    o.raw(b"\n]}\n");
}

/// The requested counters with their availability (only when
/// `REGIO_COUNTERS` asked for some); node values align with the available
/// ones.
fn emit_counter_list(o: &mut Out) {
    let Some(cfg) = counters::config() else {
        return;
    };
    // A forked child's inherited events count the parent (`fork`).
    let forked = fork::forked();
    o.raw(b",\"counters\":[");
    for (i, s) in cfg.list.iter().enumerate() {
        o.raw(if i == 0 {
            b"{\"name\":"
        } else {
            b",{\"name\":"
        });
        o.string(s.name.as_bytes());
        let available = s.available && !forked;
        o.raw(b",\"available\":");
        o.boolean(available);
        o.raw(b",\"reason\":");
        if available {
            o.raw(b"null");
        } else if s.available {
            o.string(b"forked process: its inherited events count the parent");
        } else {
            o.string(s.reason.as_bytes());
        }
        o.raw(b"}");
    }
    o.raw(b"]");
}

fn emit_regions(o: &mut Out) {
    let mut first = true;
    for r in region::registered() {
        let Some(id) = r.registered_id() else {
            continue;
        };
        o.raw(if first { b"\n{\"id\":" } else { b",\n{\"id\":" });
        first = false;
        o.uint(id as u64, W32);
        o.raw(b",\"kind\":");
        o.string(r.kind.as_str().as_bytes());
        o.raw(b",\"name\":");
        o.string(r.name.as_bytes());
        o.raw(b",\"file\":");
        o.string(r.file.as_bytes());
        o.raw(b",\"line\":");
        o.uint(r.line as u64, W32);
        o.raw(b",\"column\":");
        o.uint(r.column as u64, W32);
        o.raw(b",\"module\":");
        o.string(r.module.as_bytes());
        o.raw(b"}");
    }
}

unsafe fn fill_order(n: u32) {
    let order = &mut *ORDER.0.get();
    let fill = (n as usize).min(ORDER_SLOTS);
    order[..fill].fill(std::ptr::null());
    let mut t = registry::head();
    while !t.is_null() {
        let k = (*t).number.load(Relaxed) as usize;
        if k < fill {
            order[k] = t;
        }
        t = (*t).next.load(Acquire);
    }
}

unsafe fn thread_by_number(number: u32) -> *const ThreadState {
    if (number as usize) < ORDER_SLOTS {
        return (*ORDER.0.get())[number as usize];
    }
    let mut t = registry::head();
    while !t.is_null() && (*t).number.load(Relaxed) != number {
        t = (*t).next.load(Acquire);
    }
    t
}

unsafe fn emit_thread(o: &mut Out, t: &ThreadState, now: u64, cal: Calibration) {
    let finished = t.finished.load(Acquire);
    let end = if finished {
        t.finished_at.load(Relaxed)
    } else {
        now
    };
    let (stack, depth) = t.stack_snapshot();
    let space = ScanSpace::new(depth);
    let index = StackIndex::new(stack, depth, space.ptr);
    // A forked child writes no counter values (`fork`).
    let counters = t.counters.as_ref().filter(|_| !fork::forked());
    let live = counters.and_then(|c| c.live());
    if counters.is_some_and(|c| c.failures.load(Relaxed) > 0) {
        warn(
            &[b"the kernel refused some counter reads on a thread; its counters stood still then"],
            None,
        );
    }
    o.raw(b"\n{\"thread\":");
    o.uint(t.number.load(Relaxed) as u64, W32);
    o.raw(b",\"os_tid\":");
    o.uint(t.os_tid, W64);
    o.raw(b",\"finished\":");
    o.boolean(finished);
    // Region entries a signal handler made while it interrupted a probe
    // of this thread: not recorded (thread::ThreadState::busy).
    o.raw(b",\"dropped_calls\":");
    o.uint(t.dropped.load(Relaxed), W64);
    o.raw(b",\"nodes\":[");
    let len = t.arena.len();
    // Arena index 0 is the hidden root; written ids are arena index - 1.
    for i in 1..len {
        let node = t.arena.get(i);
        let s = totals(node, &index, end);
        if i > 1 {
            o.raw(b",");
        }
        // A row (`regio_idf::rundir::node_rows`): id implicit, parent as
        // the distance back, trailing zeros left out, rare fields named
        // in a trailing object.
        let delta = if node.parent == ROOT {
            0
        } else {
            u64::from(i - node.parent)
        };
        let numbers = [
            delta,
            u64::from(node.region),
            s.calls,
            cal.to_ns(s.inclusive),
            cal.to_ns(s.exclusive),
            cal.to_ns(s.min),
            cal.to_ns(s.max),
            s.recursive_calls,
            u64::from(s.open),
            s.polls,
            cal.to_ns(s.span),
        ];
        let mut len = numbers.len();
        while len > 2 && numbers[len - 1] == 0 {
            len -= 1;
        }
        o.raw(b"\n[");
        for (k, v) in numbers[..len].iter().enumerate() {
            if k > 0 {
                o.raw(b",");
            }
            o.uint(*v, 0);
        }
        // REGIO_THROTTLE: the region stopped being recorded; the node's
        // calls stopped counting there (throttle.rs).
        let throttled = select::throttled(node.region);
        let values = counters.and_then(|c| {
            c.node_totals(node, &index, live.as_ref())
                .map(|v| (v, c.len()))
        });
        if throttled || values.is_some() {
            o.raw(b",{");
            if throttled {
                o.raw(b"\"throttled_at\":");
                o.uint(s.calls, 0);
            }
            if let Some((values, n)) = values {
                o.raw(if throttled {
                    b",\"counters\":["
                } else {
                    b"\"counters\":["
                });
                for (k, v) in values.iter().take(n).enumerate() {
                    if k > 0 {
                        o.raw(b",");
                    }
                    o.uint(*v, 0);
                }
                o.raw(b"]");
            }
            o.raw(b"}");
        }
        o.raw(b"]");
    }
    o.raw(b"]");
    mpi::write::thread_messages(o, t, cal);
    user_events::write_thread(o, t as *const ThreadState as usize);
    o.raw(b"}");
}

/// Copies registered IDF `i` to `<dir>/<name>` (atomically), unless the
/// run directory holds the same bytes already (every rank of an MPI job
/// after the first, a rerun into the same `REGIO_DIR`): replacing an
/// existing file by rename frees its inode, which costs the exiting process
/// from 0.3 to several ms, far more than reading both files.
unsafe fn copy_idf(dir: &[u8], pid: u64, i: usize, name: &[u8]) -> bool {
    let src = idf::get_c(i);
    let mut fin = Cat::new(&mut *FINAL.0.get());
    fin.push(dir).push(b"/").push(name);
    let mut tmp = Cat::new(&mut *TEMP.0.get());
    tmp.push(dir).push(b"/.").push(name).push(b".tmp.").num(pid);
    let (Some(fin), Some(tmp)) = (fin.finish(), tmp.finish()) else {
        return false;
    };
    if same_bytes(src, fin) {
        return true;
    }
    let from = match sys::open_read(src) {
        Ok(fd) => fd,
        Err(e) => {
            warn(&[b"cannot read IDF ", until_nul(src)], Some(e));
            return false;
        }
    };
    let to = match sys::open_write(tmp) {
        Ok(fd) => fd,
        Err(e) => {
            let _ = sys::close(from);
            warn(&[b"cannot create ", until_nul(tmp)], Some(e));
            return false;
        }
    };
    let buf = &mut *TEXT.0.get();
    let mut result = Ok(());
    loop {
        match sys::read(from, buf) {
            Ok(0) => break,
            Ok(n) => {
                if let Err(e) = sys::write_all(to, &buf[..n]) {
                    result = Err(e);
                    break;
                }
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let _ = sys::close(from);
    let result = result.and(sys::close(to));
    match result.and_then(|()| sys::rename(tmp, fin)) {
        Ok(()) => true,
        Err(e) => {
            warn(&[b"cannot copy the IDF to ", until_nul(fin)], Some(e));
            sys::unlink(tmp);
            false
        }
    }
}

/// Whether the files at `a` and `b` (NUL-terminated paths) hold the same
/// bytes: sizes first, then contents through the two halves of the text
/// buffer (the caller holds the writer lock). Any error answers false, so
/// the caller copies.
unsafe fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let Ok(fa) = sys::open_read(a) else {
        return false;
    };
    let same = match sys::open_read(b) {
        Err(_) => false,
        Ok(fb) => {
            let same = same_size(fa, fb) && {
                let (ba, bb) = (*TEXT.0.get()).split_at_mut(TEXT_HALF);
                loop {
                    match (read_full(fa, ba), read_full(fb, bb)) {
                        (Some(0), Some(0)) => break true,
                        (Some(n), Some(m)) if n == m && ba[..n] == bb[..n] => {}
                        _ => break false,
                    }
                }
            };
            let _ = sys::close(fb);
            same
        }
    };
    let _ = sys::close(fa);
    same
}

const TEXT_HALF: usize = 32768;

fn same_size(a: i32, b: i32) -> bool {
    // SAFETY: fstat into zeroed plain-data structs.
    unsafe {
        let mut sa: libc::stat = std::mem::zeroed();
        let mut sb: libc::stat = std::mem::zeroed();
        libc::fstat(a, &mut sa) == 0 && libc::fstat(b, &mut sb) == 0 && sa.st_size == sb.st_size
    }
}

/// Fills `buf` unless the file ends first; the bytes read, None on error.
fn read_full(fd: i32, buf: &mut [u8]) -> Option<usize> {
    let mut n = 0;
    while n < buf.len() {
        match sys::read(fd, &mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(_) => return None,
        }
    }
    Some(n)
}
