//! `REGIO_MODE=trace`: each thread's timestamped events, encoded with
//! `regio-trace-format` into a buffer of `REGIO_TRACE_BUFFER` bytes that
//! the thread itself writes to `RUNDIR/trace-r<rank>-p<pid>-t<n>.rtrace`
//! when it is full; what is left is written at exit, on a fatal signal and
//! on MPI_Abort (`profile::write` calls [`TraceBuf::write_at_end`] for
//! every thread).
//!
//! The probe path (`TraceBuf::enter`/`exit`/...) writes into the owner's
//! buffer only: no lock, allocation or system call, except the flush of a
//! full buffer, which is the owner's own `write`. After each whole record
//! the owner publishes the buffer's filled length (`committed`, a plain
//! store on x86), so a writer on another thread (or in a signal handler)
//! can write a buffer up to its last whole record without stopping its
//! owner. `writing` decides who writes a file: the owner's flush and the
//! end-of-run writer each take it, and the end-of-run writer never gives it
//! back, so nothing is written twice.
//!
//! This module knows neither threads' registry nor the configuration: the
//! start-up (`lifecycle`) hands it the run directory and the header's
//! metadata ([`init`]), `registry` gives each thread its buffer, and
//! `config::confirm_rank` the rank MPI confirmed.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::OnceLock;

use regio_trace_format::schema::code;
use regio_trace_format::{
    block_header, write_file_header, Block, Event, FileMeta, Full, PreparedRecord,
    BLOCK_HEADER_LEN, TRACE_PREFIX, TRACE_SUFFIX,
};

use crate::clock;
use crate::out::{warn, Cat};
use crate::sys;

/// SPEC.md: `REGIO_TRACE_BUFFER` defaults to 8 MiB.
pub const DEFAULT_BUFFER_BYTES: usize = 8 << 20;
/// Smallest buffer accepted: a block header and a few thousand events.
pub const MIN_BUFFER_BYTES: usize = 64 << 10;

/// What every trace file of the process shares; set once at start-up.
struct Settings {
    bytes: usize,
    run_dir: Vec<u8>,
    host: Vec<u8>,
    start_unix_ns: u64,
    start_ticks: u64,
    start_mono_ns: u64,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();
/// (rank << 32 | size): the launcher's guess, then MPI's word.
static RANK: AtomicU64 = AtomicU64::new(1);
/// A write failed: warn once, not once per flush.
static WARNED: AtomicBool = AtomicBool::new(false);

/// Switches trace mode on for the process (start-up, before any thread
/// registers). `bytes` is clamped to [`MIN_BUFFER_BYTES`].
pub fn init(bytes: usize, run_dir: &[u8], host: &[u8], rank: u32, size: u32, start_unix_ns: u64) {
    RANK.store(u64::from(rank) << 32 | u64::from(size), Release);
    let _ = SETTINGS.set(Settings {
        bytes: bytes.max(MIN_BUFFER_BYTES),
        run_dir: run_dir.to_vec(),
        host: host.to_vec(),
        start_unix_ns,
        start_ticks: clock::ticks(),
        start_mono_ns: clock::monotonic_ns(),
    });
}

/// `REGIO_TEST_CLOCK_SKEW` on this rank (tests): ns added to the trace's
/// start time, and the drift (ppm, as f64 bits) applied to its rate.
static SKEW_NS: AtomicI64 = AtomicI64::new(0);
static SKEW_PPM: AtomicU64 = AtomicU64::new(0);

/// Skews this process's trace times as the test skew skews the clock the
/// MPI synchronisation reads: `offset_ns + drift_ppm * (t - since_mono_ns)`
/// added at CLOCK_MONOTONIC time `t`. Done through the files' start time
/// and clock rate, so the probes pay nothing; call it before the first
/// file is opened (at MPI_Init: files are opened when a buffer fills or at
/// the end).
pub fn skew_clock(offset_ns: i64, drift_ppm: f64, since_mono_ns: u64) {
    let Some(s) = SETTINGS.get() else { return };
    let elapsed = s.start_mono_ns as f64 - since_mono_ns as f64;
    SKEW_NS.store(offset_ns + (elapsed * drift_ppm / 1e6) as i64, Relaxed);
    SKEW_PPM.store(drift_ppm.to_bits(), Relaxed);
}

/// How much longer a skewed clock finds a span (1 without skew).
fn skew_stretch() -> f64 {
    1.0 + f64::from_bits(SKEW_PPM.load(Relaxed)) / 1e6
}

/// MPI confirmed this rank: files opened from now on carry it.
pub fn set_rank(rank: u32, size: u32) {
    RANK.store(u64::from(rank) << 32 | u64::from(size), Release);
}

/// Parses `REGIO_TRACE_BUFFER`: bytes, or with a `K`/`M`/`G` suffix
/// (binary multiples). None for anything else.
pub fn parse_buffer_bytes(text: &str) -> Option<usize> {
    let t = text.trim();
    let (digits, mult) = match t.as_bytes().last()? {
        b'k' | b'K' => (&t[..t.len() - 1], 1usize << 10),
        b'm' | b'M' => (&t[..t.len() - 1], 1 << 20),
        b'g' | b'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(mult)
}

/// One thread's trace buffer. Leaked like the thread state that points to
/// it; the buffer itself is an anonymous mapping made at registration.
pub struct TraceBuf {
    buf: *mut u8,
    cap: usize,
    /// The block being filled: the owner's only.
    block: UnsafeCell<Block>,
    /// `block.base_ticks()` and `block.len()` after the last whole record,
    /// for a writer on another thread.
    base: AtomicU64,
    committed: AtomicUsize,
    /// The file, -1 until the first write.
    fd: AtomicI32,
    /// A flush or the end-of-run writer owns the file and the block's start.
    writing: AtomicBool,
    location: u32,
    os_tid: u64,
    /// Events lost: the buffer was full and could not be written out.
    pub dropped: AtomicU64,
    /// User event names (`user_events` ids) already defined in this file
    /// by a `string` record; the owner's only.
    names: UnsafeCell<[u64; NAME_WORDS]>,
    /// An OpenMP join span the owner entered at the end of a team it did
    /// not fork: its region + 1 (0: none) and enter tick, written by the
    /// owner; the join tick (0: not yet), written by the team's master.
    join_region: AtomicU64,
    join_enter: AtomicU64,
    join_tick: AtomicU64,
}

const NAME_WORDS: usize = crate::user_events::MAX_NAMES.div_ceil(64);

// SAFETY: `block` is touched by the owner only (and by the fork child
// handler, when no other thread exists); the rest is atomic or immutable.
unsafe impl Sync for TraceBuf {}
unsafe impl Send for TraceBuf {}

impl TraceBuf {
    /// The buffer of thread number `location`; None when trace mode is off
    /// or the mapping fails (the thread then records its profile only).
    pub fn new(location: u32, os_tid: u64) -> Option<&'static TraceBuf> {
        let s = SETTINGS.get()?;
        // SAFETY: a fresh private anonymous mapping; checked below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                s.bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            warn(
                &[b"cannot map a trace buffer; this thread records its profile only"],
                Some(sys::errno()),
            );
            return None;
        }
        Some(Self::leaked(
            p.cast(),
            s.bytes,
            location,
            os_tid,
            clock::ticks(),
        ))
    }

    /// A buffer over `cap` bytes at `buf`, empty, its first block starting
    /// at `now`; never freed (threads' buffers live as long as the process).
    fn leaked(buf: *mut u8, cap: usize, location: u32, os_tid: u64, now: u64) -> &'static TraceBuf {
        Box::leak(Box::new(TraceBuf {
            buf,
            cap,
            block: UnsafeCell::new(Block::new(location, now)),
            base: AtomicU64::new(now),
            committed: AtomicUsize::new(BLOCK_HEADER_LEN),
            fd: AtomicI32::new(-1),
            writing: AtomicBool::new(false),
            location,
            os_tid,
            dropped: AtomicU64::new(0),
            names: UnsafeCell::new([0; NAME_WORDS]),
            join_region: AtomicU64::new(0),
            join_enter: AtomicU64::new(0),
            join_tick: AtomicU64::new(0),
        }))
    }

    /// Region enter at `ticks` (the probe's own clock reading).
    ///
    /// # Safety
    /// Only the owning thread, outside any other call on this buffer.
    #[inline(always)]
    pub unsafe fn enter(&self, ticks: u64, region: u32) {
        let block = &mut *self.block.get();
        let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
        if block.enter(buf, ticks, region).is_ok() {
            self.committed.store(block.len(), Release);
        } else {
            self.put_after_flush(ticks, &Event::Enter { region });
        }
    }

    /// Region enter at the time `clock` reads, which it reads after the
    /// record is prepared (room checked, region field computed): the
    /// probe starts measuring the region at that reading, so only the
    /// record's last stores fall inside it. Returns the reading.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    #[inline(always)]
    pub unsafe fn enter_timed(&self, region: u32, clock: impl Fn() -> u64) -> u64 {
        let block = &mut *self.block.get();
        let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
        match block.enter_timed(buf, region, &clock) {
            Ok(ticks) => {
                // Release: a writer that reads this length sees the record.
                self.committed.store(block.len(), Release);
                ticks
            }
            Err(Full) => self.enter_after_flush(region, &clock),
        }
    }

    /// The enter record of `region` but its time, if the buffer has room
    /// (else None: [`TraceBuf::enter_timed`] writes the buffer out).
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    #[inline(always)]
    pub unsafe fn prepare_enter(&self, region: u32) -> Option<PreparedRecord> {
        let block = &*self.block.get();
        let buf = std::slice::from_raw_parts(self.buf, self.cap);
        block.prepare_enter(buf, region).ok()
    }

    /// [`TraceBuf::prepare_enter`] for an exit record (None: the buffer
    /// is full, [`TraceBuf::exit`] writes it out).
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    #[inline(always)]
    pub unsafe fn prepare_exit(&self, region: u32) -> Option<PreparedRecord> {
        let block = &*self.block.get();
        let buf = std::slice::from_raw_parts(self.buf, self.cap);
        block.prepare_exit(buf, region).ok()
    }

    /// Writes the enter record `prepared` (nothing recorded since) at
    /// `ticks` if it takes the short form (`Block::short_record_word`);
    /// false, nothing written, else: [`TraceBuf::enter`] writes it.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`]; `prepared` from [`TraceBuf::prepare_enter`]
    /// with no record written since.
    #[inline(always)]
    pub unsafe fn enter_prepared_short(&self, prepared: PreparedRecord, ticks: u64) -> bool {
        self.put_short(code::ENTER, prepared, ticks)
    }

    /// [`TraceBuf::enter_prepared_short`] for the exit record `prepared`
    /// ([`TraceBuf::prepare_exit`]); false, nothing written, else:
    /// [`TraceBuf::exit`] writes it.
    ///
    /// # Safety
    /// As [`TraceBuf::enter_prepared_short`].
    #[inline(always)]
    pub unsafe fn exit_prepared_short(&self, prepared: PreparedRecord, ticks: u64) -> bool {
        self.put_short(code::EXIT, prepared, ticks)
    }

    /// Stores the short record's word itself: `prepare_*` checked that
    /// the longest region record fits at `prepared`'s position, so the
    /// encoder's second bounds check (four instructions) is not needed.
    #[inline(always)]
    unsafe fn put_short(&self, code: u8, prepared: PreparedRecord, ticks: u64) -> bool {
        let block = &mut *self.block.get();
        let Some(word) = block.short_record_word(code, ticks, prepared) else {
            return false;
        };
        // SAFETY: the room for the record at this position was checked
        // against `cap` by `prepare_*`, and no record came since.
        std::ptr::write_unaligned(
            self.buf.add(Block::prepared_pos(prepared)).cast::<u32>(),
            word.to_le(),
        );
        block.advance_short(ticks, prepared);
        // Release: a writer that reads this length sees the record.
        self.committed.store(block.len(), Release);
        true
    }

    /// [`TraceBuf::enter_timed`] on a full buffer: writes it out first, so
    /// the write stays outside the region too.
    #[cold]
    #[inline(never)]
    unsafe fn enter_after_flush(&self, region: u32, clock: &impl Fn() -> u64) -> u64 {
        if self.flush(clock()) {
            let block = &mut *self.block.get();
            let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
            if let Ok(ticks) = block.enter_timed(buf, region, clock) {
                self.committed.store(block.len(), Release);
                return ticks;
            }
        }
        bump(&self.dropped);
        clock()
    }

    /// Region exit at `ticks`.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    #[inline(always)]
    pub unsafe fn exit(&self, ticks: u64, region: u32) {
        // Written out rather than through `put`, whose closure, called
        // twice, stays out of line (about 30 instructions per record).
        let block = &mut *self.block.get();
        let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
        if block.exit(buf, ticks, region).is_ok() {
            self.committed.store(block.len(), Release);
        } else {
            self.put_after_flush(ticks, &Event::Exit { region });
        }
    }

    /// `event` at `ticks` on a buffer that had no room for it: writes the
    /// buffer out, then the event.
    #[cold]
    #[inline(never)]
    unsafe fn put_after_flush(&self, ticks: u64, event: &Event) {
        self.put(ticks, |b, buf| b.push(buf, ticks, event));
    }

    /// Any event (OpenMP, MPI, masks). Builds no string: `Event::String`
    /// and `Event::Comm` carry heap data and are for the cold paths only.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    #[inline]
    pub unsafe fn event(&self, ticks: u64, event: &Event) {
        self.put(ticks, |b, buf| b.push(buf, ticks, event));
    }

    /// Enters the join span `region` at `ticks`, at the end of a team
    /// this thread did not fork: its exit is at the join tick, which the
    /// master gives [`TraceBuf::join_done`]; the owner writes it with
    /// [`TraceBuf::close_join`] before its next team, or the end-of-run
    /// writer does.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    pub unsafe fn open_join(&self, ticks: u64, region: u32) {
        self.close_join(ticks);
        self.enter(ticks, region);
        self.join_tick.store(0, Relaxed);
        self.join_enter.store(ticks, Relaxed);
        self.join_region.store(u64::from(region) + 1, Release);
    }

    /// The master of the team joined at `ticks` (any thread may call it).
    pub fn join_done(&self, ticks: u64) {
        self.join_tick.store(ticks, Release);
    }

    /// Writes the exit of an open join span: at the join tick if the
    /// master gave it (and it is not older than the span), else at `now`.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    pub unsafe fn close_join(&self, now: u64) {
        let Some((region, tick)) = self.open_join_span() else {
            return;
        };
        self.join_region.store(0, Relaxed);
        self.exit(tick.unwrap_or(now), region);
    }

    /// The open join span: region and, once known, its exit tick.
    fn open_join_span(&self) -> Option<(u32, Option<u64>)> {
        let r = self.join_region.load(Acquire);
        if r == 0 {
            return None;
        }
        let tick = self.join_tick.load(Acquire);
        let known = tick != 0 && tick >= self.join_enter.load(Relaxed);
        Some(((r - 1) as u32, known.then_some(tick)))
    }

    /// A user event: name id `name` (defined in the file first), `value`.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    pub unsafe fn user(&self, ticks: u64, name: u32, text: &str, value: f64) {
        let names = &mut *self.names.get();
        let (word, bit) = (name as usize / 64, 1u64 << (name % 64));
        if word >= NAME_WORDS {
            return;
        }
        if names[word] & bit == 0 {
            self.put(ticks, |b, buf| b.string(buf, ticks, name, text));
            names[word] |= bit;
        }
        self.put(ticks, |b, buf| b.user(buf, ticks, name, value));
    }

    #[inline(always)]
    unsafe fn put(&self, ticks: u64, f: impl Fn(&mut Block, &mut [u8]) -> Result<(), Full>) {
        let block = &mut *self.block.get();
        let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
        if f(block, buf).is_err() && !(self.flush(ticks) && f(block, buf).is_ok()) {
            bump(&self.dropped);
            return;
        }
        // Release: a writer that reads this length sees the record's bytes.
        self.committed.store(block.len(), Release);
    }

    /// Writes the full block out, starts a new one at `now` and records the
    /// flush in it. False if the file is the end-of-run writer's (the
    /// process is exiting) or cannot be written.
    #[cold]
    #[inline(never)]
    unsafe fn flush(&self, now: u64) -> bool {
        if self.writing.swap(true, Acquire) {
            return false;
        }
        let before = clock::ticks();
        let block = &mut *self.block.get();
        let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
        let bytes = block.len() as u64;
        let written = match (self.open(), block.finish(buf)) {
            (Some(fd), Ok(data)) => write_or_warn(fd, data),
            _ => false,
        };
        if !written {
            self.dropped.fetch_add(u64::from(block.events()), Relaxed);
        }
        block.reset(now);
        self.base.store(now, Relaxed);
        let took = clock::ticks().saturating_sub(before);
        let _ = block.push(
            buf,
            now,
            &Event::BufferFlush {
                duration: took,
                bytes,
            },
        );
        self.committed.store(block.len(), Release);
        self.writing.store(false, Release);
        true
    }

    /// The file's descriptor, created with its header on first use.
    unsafe fn open(&self) -> Option<i32> {
        let fd = self.fd.load(Relaxed);
        if fd >= 0 {
            return Some(fd);
        }
        let s = SETTINGS.get()?;
        let rs = RANK.load(Acquire);
        let (rank, size) = ((rs >> 32) as u32, rs as u32);
        let pid = sys::getpid();
        let mut dir_buf = [0u8; 4096];
        let mut dir = Cat::new(&mut dir_buf);
        dir.push(&s.run_dir);
        let dir = dir.finish()?;
        if let Err(e) = sys::mkdir_p(dir) {
            warn_once(&[b"cannot create run directory ", &s.run_dir], Some(e));
            return None;
        }
        let mut path_buf = [0u8; 4096];
        let mut path = Cat::new(&mut path_buf);
        path.push(&s.run_dir)
            .push(b"/")
            .push(TRACE_PREFIX.as_bytes());
        path.push(b"r").num(u64::from(rank)).push(b"-p").num(pid);
        path.push(b"-t").num(u64::from(self.location));
        path.push(TRACE_SUFFIX.as_bytes());
        let path = path.finish()?;
        let fd = match sys::open_write(path) {
            Ok(fd) => fd,
            Err(e) => {
                warn_once(&[b"cannot create trace file ", path], Some(e));
                return None;
            }
        };
        let mut header = [0u8; 8192];
        let host = std::str::from_utf8(&s.host).unwrap_or("unknown");
        let meta = FileMeta {
            rank,
            size,
            pid: pid as u32,
            thread: self.location,
            os_tid: self.os_tid,
            ticks_per_second: ticks_per_second(s) / skew_stretch(),
            start_ticks: s.start_ticks,
            start_unix_ns: s.start_unix_ns.saturating_add_signed(SKEW_NS.load(Relaxed)),
            clock_source: clock::source_name(),
            host,
        };
        let ok = match write_file_header(&mut header, &meta) {
            Ok(n) => write_or_warn(fd, &header[..n]),
            Err(Full) => false,
        };
        if !ok {
            let _ = sys::close(fd);
            return None;
        }
        self.fd.store(fd, Relaxed);
        Some(fd)
    }

    /// End of the run (exit, fatal signal, MPI_Abort): writes the buffer up
    /// to its last whole record, then the clock rate over the run
    /// (`span_ticks` ticks in `span_ns` ns), and closes the file. Any
    /// thread may call it, for any buffer, once; afterwards the owner
    /// records into its buffer but never writes it again.
    pub fn write_at_end(&self, now: u64, span_ticks: u64, span_ns: u64) {
        if self.writing.swap(true, Acquire) {
            return; // the owner is flushing (interrupted) or already done
        }
        let committed = self.committed.load(Acquire).min(self.cap);
        let base = self.base.load(Relaxed);
        // SAFETY: bytes below `committed` are whole records the owner no
        // longer changes until its next flush, which `writing` excludes.
        let payload = unsafe {
            std::slice::from_raw_parts(
                self.buf.add(BLOCK_HEADER_LEN),
                committed.saturating_sub(BLOCK_HEADER_LEN),
            )
        };
        if payload.is_empty() && self.fd.load(Relaxed) < 0 {
            return; // nothing recorded, no file
        }
        // SAFETY: `writing` makes us the file's only writer.
        let Some(fd) = (unsafe { self.open() }) else {
            return;
        };
        let mut ok = true;
        if !payload.is_empty() {
            if let Ok(h) = block_header(self.location, base, None, payload) {
                ok = write_or_warn(fd, &h) && write_or_warn(fd, payload);
            }
        }
        // The exact clock rate, in a block of its own after the events,
        // preceded by the exit of a join span the owner could not close.
        let mut tail = [0u8; 128];
        let join = self.open_join_span().and_then(|(r, t)| Some((r, t?)));
        let mut b = Block::new(self.location, join.map_or(now, |(_, t)| t.min(now)));
        if let Some((region, tick)) = join {
            let _ = b.exit(&mut tail, tick, region);
        }
        let rate = Event::ClockRate {
            span_ticks,
            span_ns: (span_ns as f64 * skew_stretch()).round() as u64,
        };
        if ok && b.push(&mut tail, now, &rate).is_ok() {
            if let Ok(data) = b.finish(&mut tail) {
                write_or_warn(fd, data);
            }
        }
        let _ = sys::close(fd);
        self.fd.store(-1, Relaxed);
    }

    /// In a forked child: the parent's file is not ours, its records
    /// neither. Starts empty at `now`; the child's own file is made on its
    /// first write.
    ///
    /// # Safety
    /// Only in the child right after `fork`, where no other thread runs.
    pub unsafe fn restart_after_fork(&self, now: u64) {
        let fd = self.fd.swap(-1, Relaxed);
        if fd >= 0 {
            let _ = sys::close(fd);
        }
        (*self.block.get()).reset(now);
        self.base.store(now, Relaxed);
        self.committed.store(BLOCK_HEADER_LEN, Release);
        self.writing.store(false, Release);
        // The child's file defines its names anew.
        *self.names.get() = [0; NAME_WORDS];
        self.join_region.store(0, Relaxed);
    }
}

/// Ticks per second for the header: the rate since start-up (the exact one
/// over the whole run is the file's last `clock_rate` record).
fn ticks_per_second(s: &Settings) -> f64 {
    let dt = clock::ticks().saturating_sub(s.start_ticks);
    let dn = clock::monotonic_ns().saturating_sub(s.start_mono_ns);
    if clock::source_name() != "tsc" || dt == 0 || dn < 1_000_000 {
        // Ticks are nanoseconds, or too little time passed to tell.
        return 1e9;
    }
    dt as f64 * 1e9 / dn as f64
}

fn write_or_warn(fd: i32, data: &[u8]) -> bool {
    match sys::write_all(fd, data) {
        Ok(()) => true,
        Err(e) => {
            warn_once(&[b"cannot write a trace file; events are lost"], Some(e));
            false
        }
    }
}

fn warn_once(parts: &[&[u8]], errno: Option<i32>) {
    if !WARNED.swap(true, Relaxed) {
        warn(parts, errno);
    }
}

#[inline(always)]
fn bump(a: &AtomicU64) {
    a.store(a.load(Relaxed) + 1, Relaxed);
}

#[cfg(test)]
impl TraceBuf {
    /// A buffer of `bytes` for unit tests, on the heap instead of a
    /// mapping and without [`init`]'s settings (so a flush has no file and
    /// counts its events as dropped): for driving the probes' traced paths
    /// with a real buffer.
    pub(crate) fn for_test(bytes: usize, location: u32, now: u64) -> &'static TraceBuf {
        let buf = Box::leak(vec![0u8; bytes].into_boxed_slice());
        Self::leaked(buf.as_mut_ptr(), bytes, location, 0, now)
    }

    /// The records written so far (up to `committed`, as the end-of-run
    /// writer sees them), through the format's own decoder.
    pub(crate) fn decoded_for_test(&self) -> Vec<regio_trace_format::Record> {
        let committed = self.committed.load(Acquire);
        // SAFETY: the test's own thread wrote these bytes and is done.
        let payload = unsafe {
            std::slice::from_raw_parts(self.buf.add(BLOCK_HEADER_LEN), committed - BLOCK_HEADER_LEN)
        };
        let meta = FileMeta {
            rank: 0,
            size: 1,
            pid: 1,
            thread: self.location,
            os_tid: 0,
            ticks_per_second: 1e9,
            start_ticks: 0,
            start_unix_ns: 0,
            clock_source: "test",
            host: "test",
        };
        let mut file = vec![0u8; 8192];
        let n = write_file_header(&mut file, &meta).expect("header fits");
        file.truncate(n);
        let base = self.base.load(Relaxed);
        file.extend_from_slice(&block_header(self.location, base, None, payload).expect("block"));
        file.extend_from_slice(payload);
        let decoded = regio_trace_format::decode(&file).expect("the buffer decodes");
        assert!(decoded.truncated.is_none());
        decoded.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_sizes_take_binary_suffixes() {
        assert_eq!(parse_buffer_bytes("65536"), Some(65536));
        assert_eq!(parse_buffer_bytes("8M"), Some(8 << 20));
        assert_eq!(parse_buffer_bytes(" 64k "), Some(64 << 10));
        assert_eq!(parse_buffer_bytes("1G"), Some(1 << 30));
        assert_eq!(parse_buffer_bytes("lots"), None);
        assert_eq!(parse_buffer_bytes(""), None);
    }
}
