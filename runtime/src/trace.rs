//! `REGIO_MODE=trace`: each thread's timestamped events, encoded with
//! `regio-trace-format` into a buffer of `REGIO_TRACE_BUFFER` bytes that
//! the thread itself writes to `RUNDIR/trace-r<rank>-p<pid>-t<n>.rtrace`
//! when it is full; what is left is written at exit, on a fatal signal and
//! on MPI_Abort (`profile::write` calls [`TraceBuf::write_at_end`] for
//! every thread).
//!
//! The probe path (`TraceBuf::enter`/`exit`, `raw_room` + `put_raw`)
//! appends a raw enter/exit record (tick, region, code: 16 bytes, a few
//! stores) to the owner's buffer: no lock, allocation or system call, and
//! no encoding. The raw records are encoded in place into the compact
//! format (`Block::encode_raw`: a compact record is never longer) before
//! any other event is written (so its time and region differences follow
//! them), every `RAW_BATCH` bytes of raw records (so they stay in the L1
//! cache; the buffer is written out once that leaves less than 1/8 of it
//! free: the owner's own `write`, the one system call), and
//! by the end-of-run writer; the files hold compact records only. After
//! each whole record the owner publishes the end of its records (`end`, a
//! plain store on x86), so a writer on another thread (or in a signal
//! handler) can write a buffer up to its last whole record without
//! stopping its owner, which only ever appends past it. `writing` decides
//! who encodes and writes: the owner takes it for each encoding and
//! write-out, the end-of-run writer takes it for good (waiting while the
//! owner holds it on another thread), so nothing is encoded or written
//! twice. A fatal signal that interrupts the owner there, on its own
//! thread, waits for it: the handler leaves it to the buffer
//! ([`TraceBuf::defer_signal`]) and returns, and the owner, once its
//! encoding or write-out is done and the record it was making written,
//! sends the signal to itself again (one load on the way out); only a
//! fault inside that work (which cannot wait) still gives the buffer up.
//!
//! This module knows neither threads' registry nor the configuration: the
//! start-up (`lifecycle`) hands it the run directory and the header's
//! metadata ([`init`]), `registry` gives each thread its buffer, and
//! `config::confirm_rank` the rank MPI confirmed.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{
    compiler_fence, AtomicBool, AtomicI32, AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering::*,
};
use std::sync::OnceLock;

use regio_trace_format::schema::code;
use regio_trace_format::{
    block_header, raw_code_word, write_file_header, Block, Event, FileMeta, Full, BLOCK_HEADER_LEN,
    RAW_REGION_RECORD_LEN, TRACE_PREFIX, TRACE_SUFFIX,
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
/// `REGIO_TEST_SIGNAL_IN_ENCODING` (tests only): the signal each buffer's
/// owner sends itself in the middle of its first encoding (0: none).
static TEST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Tests only: every buffer made from now on has its owner send itself
/// `sig` (as `sigqueue` would, `SI_QUEUE`) in its first encoding, with
/// half of its raw records encoded: a signal at the worst instant.
pub fn signal_in_first_encoding(sig: i32) {
    TEST_SIGNAL.store(sig, Relaxed);
}

/// Switches trace mode on for the process (start-up, before any thread
/// registers). `bytes` is clamped to [`MIN_BUFFER_BYTES`].
pub fn init(bytes: usize, run_dir: &[u8], host: &[u8], rank: u32, size: u32, start_unix_ns: u64) {
    // The raw records' encoder asks the CPU for AVX2 once and keeps the
    // answer: asked now, the end-of-run write in a signal handler finds it.
    #[cfg(target_arch = "x86_64")]
    let _ = std::arch::is_x86_feature_detected!("avx2");
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
///
/// The buffer holds a block's encoded records (from its start to
/// `block.len()`), then the enters and exits recorded since, raw
/// (`regio_trace_format::RAW_REGION_RECORD_LEN` bytes each: tick, region,
/// code), up to `end`. A probe appends a raw record with a few stores; the
/// raw records are encoded in place (`Block::encode_raw`, never longer)
/// before any other event is written, every `RAW_BATCH` bytes, and by the
/// end-of-run writer, so the files hold the compact records only.
pub struct TraceBuf {
    buf: *mut u8,
    cap: usize,
    /// The encoded part: touched only by whoever holds `writing` (the
    /// owner in `encoded`, the end-of-run writer).
    block: UnsafeCell<Block>,
    /// Address after the last whole record (raw or encoded): where the
    /// owner appends, and, published with Release after each record, how
    /// far a writer on another thread (or in a signal handler) may read.
    end: AtomicUsize,
    /// The last address a raw record may start at: `RAW_BATCH` past the
    /// encoded records, or `hard_limit`. Read and written by the owner
    /// only (a plain load the probe's compare takes as its operand).
    raw_limit: UnsafeCell<usize>,
    /// The last address a raw record fits at in the buffer.
    hard_limit: usize,
    /// Who works on the encoded part and the file: nobody (`FREE`), the
    /// owner (`OWNER`: encoding, writing a full buffer out), the
    /// end-of-run writer (`END`, for good: nothing is written twice).
    writing: AtomicU8,
    /// A signal that reached the owner inside its own encoding or
    /// write-out (`defer_signal`), sent again once the records are
    /// encoded (`deliver_deferred`); 0: none. The owner's thread only.
    deferred: AtomicI32,
    deferred_info: UnsafeCell<MaybeUninit<libc::siginfo_t>>,
    /// The file, -1 until the first write.
    fd: AtomicI32,
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

const FREE: u8 = 0;
const OWNER: u8 = 1;
const END: u8 = 2;
/// `FREE`, with the test signal due in the owner's next encoding
/// (`TEST_SIGNAL`): found by the owner's compare-exchange failing, so the
/// hook costs the encodings nothing.
const ARMED: u8 = 3;

/// The buffer is written out when, its raw records encoded, less than
/// this share of it is left (else the owner goes on recording into the
/// room past the encoded records): written blocks fill at least 7/8 of
/// the buffer, and at most one batch more.
const WRITE_OUT_BELOW: usize = 8;

/// Bytes of raw records the probes append past the encoded ones before
/// the owner encodes them (`make_room`): a batch that stays in the L1
/// cache, so the 16-byte raw records are written and read back there and
/// only the compact ones (about 4 bytes per event) go out to memory.
/// Encoding every 1024 records costs one call and one compare-exchange
/// per batch, nothing on the probe path (the same one compare).
const RAW_BATCH: usize = 16 << 10;

const NAME_WORDS: usize = crate::user_events::MAX_NAMES.div_ceil(64);

// SAFETY: `block` is touched by whoever holds `writing`
// only (and by the fork child handler, when no other thread exists), the
// raw records past `end` by the owner only; the rest is atomic or
// immutable.
unsafe impl Sync for TraceBuf {}
unsafe impl Send for TraceBuf {}

impl TraceBuf {
    /// The buffer of thread number `location`; None when trace mode is off
    /// or the mapping fails (the thread then records its profile only).
    pub fn new(location: u32, os_tid: u64) -> Option<&'static TraceBuf> {
        let s = SETTINGS.get()?;
        let Some(p) = sys::map_anonymous(s.bytes) else {
            warn(
                &[b"cannot map a trace buffer; this thread records its profile only"],
                Some(sys::errno()),
            );
            return None;
        };
        Some(Self::leaked(p, s.bytes, location, os_tid, clock::ticks()))
    }

    /// A buffer over `cap` bytes at `buf` (at least [`MIN_BUFFER_BYTES`]
    /// in use), empty, its first block starting at `now`; never freed
    /// (threads' buffers live as long as the process).
    fn leaked(buf: *mut u8, cap: usize, location: u32, os_tid: u64, now: u64) -> &'static TraceBuf {
        Box::leak(Box::new(TraceBuf {
            buf,
            cap,
            block: UnsafeCell::new(Block::new(location, now)),
            end: AtomicUsize::new(buf as usize + BLOCK_HEADER_LEN),
            raw_limit: UnsafeCell::new(batch_limit(
                buf as usize + BLOCK_HEADER_LEN,
                buf as usize + cap - RAW_REGION_RECORD_LEN,
            )),
            hard_limit: buf as usize + cap - RAW_REGION_RECORD_LEN,
            writing: AtomicU8::new(if TEST_SIGNAL.load(Relaxed) != 0 {
                ARMED
            } else {
                FREE
            }),
            deferred: AtomicI32::new(0),
            deferred_info: UnsafeCell::new(MaybeUninit::uninit()),
            fd: AtomicI32::new(-1),
            location,
            os_tid,
            dropped: AtomicU64::new(0),
            names: UnsafeCell::new([0; NAME_WORDS]),
            join_region: AtomicU64::new(0),
            join_enter: AtomicU64::new(0),
            join_tick: AtomicU64::new(0),
        }))
    }

    /// Where the next raw record goes, if it fits (None: the batch of raw
    /// records or the buffer is full, [`TraceBuf::enter`] /
    /// [`TraceBuf::exit`] encode them and make room). For a
    /// probe that checks the room before it reads the clock and writes the
    /// record with [`TraceBuf::put_raw`] after, with no record between.
    ///
    /// # Safety
    /// Only the owning thread.
    #[inline(always)]
    pub unsafe fn raw_room(&self) -> Option<usize> {
        let at = self.end.load(Relaxed);
        (at <= *self.raw_limit.get()).then_some(at)
    }

    /// Writes the raw record of `code` at `ticks` for `region` at `at`
    /// (from [`TraceBuf::raw_room`], no record since) and publishes it.
    ///
    /// # Safety
    /// As [`TraceBuf::raw_room`].
    #[inline(always)]
    pub unsafe fn put_raw(&self, at: usize, code: u8, ticks: u64, region: u32) {
        let p = at as *mut u8;
        // SAFETY: `raw_room` found the record's bytes inside the buffer,
        // past every byte anyone else reads.
        std::ptr::write_unaligned(p.cast::<u64>(), ticks.to_le());
        std::ptr::write_unaligned(p.add(8).cast::<u32>(), region.to_le());
        std::ptr::write_unaligned(p.add(12).cast::<u32>(), raw_code_word(code).to_le());
        // Release: a writer that reads this end sees the record.
        self.end.store(at + RAW_REGION_RECORD_LEN, Release);
    }

    /// Region enter at `ticks` (the probe's own clock reading).
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline(always)]
    pub unsafe fn enter(&self, ticks: u64, region: u32) {
        self.region_record(code::ENTER, ticks, region);
    }

    /// Region exit at `ticks`.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    #[inline(always)]
    pub unsafe fn exit(&self, ticks: u64, region: u32) {
        self.region_record(code::EXIT, ticks, region);
    }

    #[inline(always)]
    unsafe fn region_record(&self, code: u8, ticks: u64, region: u32) {
        match self.raw_room() {
            Some(at) => self.put_raw(at, code, ticks, region),
            None => self.region_record_after_room(code, ticks, region),
        }
    }

    /// A region record on a full batch: makes room first.
    #[cold]
    #[inline(never)]
    unsafe fn region_record_after_room(&self, code: u8, ticks: u64, region: u32) {
        match self.make_room(ticks) {
            Some(at) => self.put_raw(at, code, ticks, region),
            None => bump(&self.dropped),
        }
        self.after_window();
    }

    /// Region enter at the time `clock` reads, which it reads after the
    /// room for the record is checked (and made, on a full batch): the
    /// probe starts measuring the region at that reading, so only the
    /// record's stores fall inside it. Returns the reading.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    #[inline(always)]
    pub unsafe fn enter_timed(&self, region: u32, clock: impl Fn() -> u64) -> u64 {
        let Some(at) = self.raw_room() else {
            return self.enter_timed_after_room(region, clock);
        };
        let ticks = clock();
        self.put_raw(at, code::ENTER, ticks, region);
        ticks
    }

    /// [`TraceBuf::enter_timed`] on a full batch: makes room first.
    #[cold]
    #[inline(never)]
    unsafe fn enter_timed_after_room(&self, region: u32, clock: impl Fn() -> u64) -> u64 {
        let at = self.make_room(clock());
        let ticks = clock();
        match at {
            Some(at) => self.put_raw(at, code::ENTER, ticks, region),
            None => bump(&self.dropped),
        }
        self.after_window();
        ticks
    }

    /// The batch of raw records is full: encodes them, writes the buffer out
    /// if that left too little room (starting a new block at `now` with
    /// the flush's record; a block that cannot be written has its events
    /// counted dropped), and returns where the next raw record goes. None
    /// when the buffer is the end-of-run writer's (the process is exiting).
    /// The caller writes its record, then calls `after_window` (a signal
    /// deferred meanwhile then finds that record in the buffer too).
    #[cold]
    #[inline(never)]
    unsafe fn make_room(&self, now: u64) -> Option<usize> {
        if !self.take_for_owner() {
            return None;
        }
        let before = clock::ticks();
        let block = &mut *self.block.get();
        let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
        self.encode_raw(block, buf);
        if self.cap - block.len() < self.cap / WRITE_OUT_BELOW {
            // A failed write counts the block's events dropped; recording
            // goes on in the new block.
            self.write_out(block, buf, before, now);
        }
        let at = self.buf as usize + block.len();
        self.publish_encoded_end(at);
        self.release();
        (at <= self.hard_limit).then_some(at)
    }

    /// Takes `writing` for the owner's encoding or write-out; false if the
    /// end-of-run writer has it (for good). The owner never finds itself
    /// holding it: it holds it only inside this module's calls, which make
    /// no probe.
    #[inline(always)]
    fn take_for_owner(&self) -> bool {
        match self.writing.compare_exchange(FREE, OWNER, Acquire, Relaxed) {
            Ok(_) => true,
            Err(w) => w == ARMED && self.take_armed(),
        }
    }

    /// `take_for_owner` with the test signal due (`ARMED`): takes
    /// `writing`, encodes half the raw records, sends the signal to this
    /// thread (which gets it at once, inside the window), and encodes the
    /// rest, as one encoding would.
    #[cold]
    #[inline(never)]
    fn take_armed(&self) -> bool {
        if self
            .writing
            .compare_exchange(ARMED, OWNER, Acquire, Relaxed)
            .is_err()
        {
            return false;
        }
        // SAFETY: `writing` is ours; the raw records below `end` are whole.
        unsafe {
            let block = &mut *self.block.get();
            let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
            let (from, to) = (block.len(), self.end.load(Relaxed) - self.buf as usize);
            let half = (to - from) / RAW_REGION_RECORD_LEN / 2 * RAW_REGION_RECORD_LEN;
            let _ = block.encode_raw(buf, from, from + half);
            // Queued as `sigqueue` queues it (SI_QUEUE): the tests see
            // that the program's handler gets this siginfo, not another.
            let sig = TEST_SIGNAL.load(Relaxed);
            let mut info: libc::siginfo_t = std::mem::zeroed();
            info.si_signo = sig;
            info.si_code = libc::SI_QUEUE;
            sys::signal_own_thread(sig, &mut info);
            let _ = block.encode_raw(buf, from + half, to);
            // The caller's encoding then finds no raw record left.
            self.end.store(self.buf as usize + block.len(), Release);
        }
        true
    }

    /// Gives `writing` back after the owner's encoding or write-out (the
    /// caller then calls `after_window` once its own record is written).
    #[inline(always)]
    fn release(&self) {
        self.writing.store(FREE, Release);
    }

    /// On the owner's thread, out of its encoding or write-out: sends
    /// again a fatal signal deferred inside it. One load on the way.
    #[inline(always)]
    fn after_window(&self) {
        // A signal fence: the load stays after `release`'s store, so a
        // signal that reached the handler before that store is found,
        // one after it was not deferred.
        compiler_fence(SeqCst);
        if self.deferred.load(Relaxed) != 0 {
            self.deliver_deferred();
        }
    }

    /// From the fatal-signal handler, on this buffer's owner's thread:
    /// if the owner was interrupted inside its own encoding or write-out
    /// (`writing` is `OWNER`, which only the owner sets), keeps `sig` (the
    /// first one; `info` copied) for the owner to send itself again once
    /// out of it, and returns true: the handler returns at once, and the
    /// signal's end-of-run write then finds every record encoded and the
    /// buffer free. False otherwise (the handler goes on).
    ///
    /// # Safety
    /// Only on the owning thread; `info` null or a handler's siginfo.
    pub unsafe fn defer_signal(&self, sig: i32, info: *const libc::siginfo_t) -> bool {
        if self.writing.load(Relaxed) != OWNER {
            return false;
        }
        if self.deferred.load(Relaxed) == 0 {
            let copy = &mut *self.deferred_info.get();
            match info.as_ref() {
                Some(i) => *copy = MaybeUninit::new(*i),
                None => *copy = MaybeUninit::zeroed(),
            }
            compiler_fence(SeqCst);
            self.deferred.store(sig, Relaxed);
        }
        true
    }

    /// Sends the deferred signal to this thread again, with the siginfo
    /// it came with (`rt_tgsigqueueinfo`: a program's own handler, chained
    /// to, sees the original sender), or plainly if that fails. The
    /// handler runs on the way out of the system call.
    #[cold]
    #[inline(never)]
    fn deliver_deferred(&self) {
        let sig = self.deferred.swap(0, Relaxed);
        compiler_fence(SeqCst);
        // SAFETY: `defer_signal` wrote the copy before the signal number;
        // plain system calls on our own process and thread.
        unsafe {
            // The owner may be inside a probe or a wrapped call: errno as
            // it was (the handler keeps it too).
            let errno = sys::errno();
            let mut info = (*self.deferred_info.get()).assume_init();
            if !(info.si_signo == sig && sys::signal_own_thread(sig, &mut info)) {
                libc::syscall(
                    libc::SYS_tgkill,
                    sys::getpid() as libc::c_long,
                    sys::gettid() as libc::c_long,
                    sig as libc::c_long,
                );
            }
            *libc::__errno_location() = errno;
        }
    }

    /// Publishes `at`, just after the last encoded record, as the end of
    /// the records, and lets the probes append raw records from there up
    /// to a batch (`RAW_BATCH`). Under `writing`, by the owner.
    ///
    /// # Safety
    /// Only the owning thread (or the fork child, alone).
    unsafe fn publish_encoded_end(&self, at: usize) {
        *self.raw_limit.get() = batch_limit(at, self.hard_limit);
        self.end.store(at, Release);
    }

    /// Encodes the raw records after `block` (up to `end`) into it, in
    /// place. Under `writing`.
    unsafe fn encode_raw(&self, block: &mut Block, buf: &mut [u8]) {
        // Acquire: the end-of-run writer on another thread sees the raw
        // records below the end the owner published.
        let to = self.end.load(Acquire) - self.buf as usize;
        // Cannot fail: raw records only ever follow the block's end.
        let _ = block.encode_raw(buf, block.len(), to);
    }

    /// Writes the block out and starts a new one at `now` that records the
    /// flush (its duration from `since`: the last encoding and the write;
    /// the encodings of full batches that made room without a write-out
    /// are in no record). A block that cannot be written has its events
    /// counted as dropped. Under `writing`, raw records encoded.
    unsafe fn write_out(&self, block: &mut Block, buf: &mut [u8], since: u64, now: u64) {
        let bytes = block.len() as u64;
        let written = match (self.open(), block.finish(buf)) {
            (Some(fd), Ok(data)) => write_or_warn(fd, data),
            _ => false,
        };
        if !written {
            self.dropped.fetch_add(u64::from(block.events()), Relaxed);
        }
        block.reset(now);
        let took = clock::ticks().saturating_sub(since);
        let _ = block.push(
            buf,
            now,
            &Event::BufferFlush {
                duration: took,
                bytes,
            },
        );
    }

    /// Runs `f` on the block with its raw records encoded (so `f` writes
    /// after them and takes its time and region differences from them);
    /// on a full buffer writes it out and runs `f` again on the new block.
    /// Counts the event dropped if it cannot be recorded (the end-of-run
    /// writer has the buffer, or it does not fit an empty block).
    #[inline(never)]
    unsafe fn encoded(&self, ticks: u64, f: impl Fn(&mut Block, &mut [u8]) -> Result<(), Full>) {
        if !self.take_for_owner() {
            bump(&self.dropped);
            return;
        }
        let block = &mut *self.block.get();
        let buf = std::slice::from_raw_parts_mut(self.buf, self.cap);
        self.encode_raw(block, buf);
        if f(block, buf).is_err() {
            self.write_out(block, buf, clock::ticks(), ticks);
            if f(block, buf).is_err() {
                bump(&self.dropped);
            }
        }
        self.publish_encoded_end(self.buf as usize + block.len());
        self.release();
        self.after_window();
    }

    /// Any event (OpenMP, MPI, masks). Builds no string: `Event::String`
    /// and `Event::Comm` carry heap data and are for the cold paths only.
    ///
    /// # Safety
    /// As [`TraceBuf::enter`].
    pub unsafe fn event(&self, ticks: u64, event: &Event) {
        match *event {
            Event::Enter { region } => self.enter(ticks, region),
            Event::Exit { region } => self.exit(ticks, region),
            _ => self.encoded(ticks, |b, buf| b.push(buf, ticks, event)),
        }
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
            self.encoded(ticks, |b, buf| b.string(buf, ticks, name, text));
            names[word] |= bit;
        }
        self.encoded(ticks, |b, buf| b.user(buf, ticks, name, value));
    }

    /// The file's descriptor, created with its header on first use.
    unsafe fn open(&self) -> Option<i32> {
        const PATH_SCRATCH: usize = 4096;
        const OPEN_SCRATCH: usize = PATH_SCRATCH + 8192;
        let fd = self.fd.load(Relaxed);
        if fd >= 0 {
            return Some(fd);
        }
        let s = SETTINGS.get()?;
        let rs = RANK.load(Acquire);
        let (rank, size) = ((rs >> 32) as u32, rs as u32);
        let pid = sys::getpid();
        // The path and the header are built in a mapping, not on the
        // stack: the end-of-run write may run in a signal handler on a
        // thread whose alternate stack is a few KiB (Rust's std threads).
        let mut scratch = sys::Mapping::new(OPEN_SCRATCH)?;
        let (path_buf, header) = scratch.bytes().split_at_mut(PATH_SCRATCH);
        let mut dir = Cat::new(path_buf);
        dir.push(&s.run_dir);
        let dir = dir.finish()?;
        if let Err(e) = sys::mkdir_p(dir) {
            warn_once(&[b"cannot create run directory ", &s.run_dir], Some(e));
            return None;
        }
        let mut path = Cat::new(path_buf);
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
        let ok = match write_file_header(header, &meta) {
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
    /// to its last whole record (its raw records encoded first, in place),
    /// then the clock rate over the run (`span_ticks` ticks in `span_ns`
    /// ns), and closes the file. Any thread may call it, for any buffer,
    /// once; afterwards the owner records into its buffer but never
    /// encodes or writes it again. While the owner itself encodes or writes
    /// its buffer out, a writer on another thread waits for it (a while at
    /// most); on the owner's thread (a signal handler that interrupted it
    /// with a fault it could not defer, see [`TraceBuf::defer_signal`])
    /// the buffer is given up.
    pub fn write_at_end(&self, now: u64, span_ticks: u64, span_ns: u64) {
        if !self.take_for_good() {
            return;
        }
        // SAFETY: `writing` (ours for good) makes us the only one to touch
        // the block and the file. The raw records below `end` are whole
        // and the owner never changes them: it appends past `end`.
        let block = unsafe { &mut *self.block.get() };
        let buf = unsafe { std::slice::from_raw_parts_mut(self.buf, self.cap) };
        // SAFETY: as above.
        unsafe { self.encode_raw(block, buf) };
        let payload = &buf[BLOCK_HEADER_LEN..block.len()];
        if payload.is_empty() && self.fd.load(Relaxed) < 0 {
            return; // nothing recorded, no file
        }
        // SAFETY: `writing` makes us the file's only writer.
        let Some(fd) = (unsafe { self.open() }) else {
            return;
        };
        let mut ok = true;
        if !payload.is_empty() {
            if let Ok(h) = block_header(
                self.location,
                block.base_ticks(),
                Some(block.events()),
                payload,
            ) {
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

    /// Takes `writing` for the end-of-run writer; false if it was already
    /// taken for good, or the owner holds it and cannot finish (this is
    /// its own thread) or does not within a second.
    fn take_for_good(&self) -> bool {
        let mut deadline = None;
        loop {
            match self.writing.compare_exchange(FREE, END, Acquire, Relaxed) {
                Ok(_) => return true,
                Err(END) => return false,
                Err(ARMED) => {
                    // No encoding yet: free as well (tests only).
                    if self
                        .writing
                        .compare_exchange(ARMED, END, Acquire, Relaxed)
                        .is_ok()
                    {
                        return true;
                    }
                    continue;
                }
                Err(_) => {}
            }
            // The owner is encoding or writing its buffer out. On its own
            // thread this is a signal it could not defer (a fault inside
            // the encoding: `defer_signal` takes every other one).
            let now = clock::monotonic_ns();
            let limit = *deadline.get_or_insert_with(|| {
                if sys::gettid() == self.os_tid {
                    0 // interrupted by us: it does not go on
                } else {
                    now + 1_000_000_000
                }
            });
            if now >= limit {
                return false;
            }
            std::hint::spin_loop();
        }
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
        self.publish_encoded_end(self.buf as usize + BLOCK_HEADER_LEN);
        self.writing.store(FREE, Release);
        // The child's file defines its names anew.
        *self.names.get() = [0; NAME_WORDS];
        self.join_region.store(0, Relaxed);
    }
}

/// The last address a raw record may start at when the encoded records
/// end at `at`: one batch on, within the buffer (`hard_limit`).
fn batch_limit(at: usize, hard_limit: usize) -> usize {
    hard_limit.min(at + RAW_BATCH - RAW_REGION_RECORD_LEN)
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

    /// [`TraceBuf::for_test`] writing to a new file at `path` (its header
    /// written), so its flushes and its end-of-run write can be read back.
    pub(crate) fn for_test_with_file(
        bytes: usize,
        location: u32,
        now: u64,
        path: &std::path::Path,
    ) -> &'static TraceBuf {
        use std::os::fd::IntoRawFd;
        let tb = Self::for_test(bytes, location, now);
        let mut header = vec![0u8; 8192];
        let n = write_file_header(&mut header, &test_meta(location)).expect("header fits");
        std::fs::write(path, &header[..n]).expect("test file");
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .expect("test file");
        tb.fd.store(file.into_raw_fd(), Relaxed);
        tb
    }

    /// The records written so far, raw ones encoded (as the end-of-run
    /// writer writes them), through the format's own decoder.
    pub(crate) fn decoded_for_test(&self) -> Vec<regio_trace_format::Record> {
        // SAFETY: the test's own thread owns the buffer and is done.
        unsafe { self.encoded(0, |_, _| Ok(())) };
        let block = unsafe { &*self.block.get() };
        let payload = unsafe {
            std::slice::from_raw_parts(
                self.buf.add(BLOCK_HEADER_LEN),
                block.len() - BLOCK_HEADER_LEN,
            )
        };
        let mut file = vec![0u8; 8192];
        let n = write_file_header(&mut file, &test_meta(self.location)).expect("header fits");
        file.truncate(n);
        let header = block_header(
            self.location,
            block.base_ticks(),
            Some(block.events()),
            payload,
        );
        file.extend_from_slice(&header.expect("block"));
        file.extend_from_slice(payload);
        let decoded = regio_trace_format::decode(&file).expect("the buffer decodes");
        assert!(decoded.truncated.is_none());
        decoded.records
    }
}

#[cfg(test)]
fn test_meta(location: u32) -> FileMeta<'static> {
    FileMeta {
        rank: 0,
        size: 1,
        pid: 1,
        thread: location,
        os_tid: 0,
        ticks_per_second: 1e9,
        start_ticks: 0,
        start_unix_ns: 0,
        clock_source: "test",
        host: "test",
    }
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod raw_tests;

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
