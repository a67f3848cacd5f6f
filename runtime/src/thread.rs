//! One thread's sub-DRG and frame stack, and the probe logic on them.
//!
//! Everything here is written by the owning thread only. Fields another
//! thread or a signal handler may read while the owner runs are atomics
//! written with plain relaxed stores, so the owner pays nothing for them.

use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{
    compiler_fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering::*,
};

use crate::childmap::{self, ChildMap};
use crate::counters::ThreadCounters;
use crate::frames::{alloc_frames, frame_key, Frame, ROOT_KEY, VIRTUAL_KEY};
use crate::node::{bump, Arena, Node, ROOT};
use crate::omp::team::OmpState;
use crate::throttle;
use crate::ticks::Clock;
use crate::trace::TraceBuf;

/// Initial frame-stack capacity; deeper stacks double it.
const INITIAL_FRAMES: usize = 256;

/// `ThreadState::slow` bits: the thread has perf counters / a trace
/// buffer; the runtime's clock is not the TSC (a read makes a call, so
/// `Ticks::inline` need not load the global switch on every probe).
const SLOW_COUNTERS: u8 = 1;
const SLOW_TRACE: u8 = 2;
const SLOW_CLOCK: u8 = 4;

/// Per-thread measurement state. Leaked when registered, so it outlives
/// its thread and can be written at process exit.
pub struct ThreadState {
    stack: AtomicPtr<Frame>,
    /// Frames on the stack, the root frame included (so always >= 1).
    depth: AtomicU32,
    capacity: UnsafeCell<usize>,
    children: UnsafeCell<ChildMap>,
    /// Virtual frames on the stack (see `push_virtual`).
    virtual_frames: UnsafeCell<u32>,
    /// Set while a probe of this thread runs. A probe that finds it set
    /// was made by a signal handler that interrupted a probe halfway: it
    /// must not touch the half-updated frame stack and nodes, so it is
    /// dropped (and, if it entered a region, counted in `dropped`).
    /// Handlers that interrupt the program between probes are measured
    /// like any call, under the region they interrupted.
    busy: AtomicBool,
    /// Region entries dropped because they interrupted a probe.
    pub dropped: AtomicU64,
    pub arena: Arena,
    /// Dense number in order of registration (set before publication).
    pub number: AtomicU32,
    pub os_tid: u64,
    pub finished: AtomicBool,
    /// Tick at which the thread ended; open frames of a finished thread are
    /// accounted up to here, not up to the write.
    pub finished_at: AtomicU64,
    /// Next (older) thread in the global registry list.
    pub next: AtomicPtr<ThreadState>,
    /// OpenMP teams this thread forked and the path it last attached to.
    pub omp: OmpState,
    /// The thread's perf events (`REGIO_COUNTERS`), null without; set
    /// (`set_counters`) before the state is published, immutable afterwards.
    pub counters: *const ThreadCounters,
    /// Why this thread's probes always take the out-of-line path, in one
    /// byte the inline fast paths test instead of two pointers and the
    /// clock switch: `SLOW_COUNTERS`, `SLOW_TRACE`, `SLOW_CLOCK` (0: none).
    /// Written with the fields it summarises, before the thread's first
    /// probe; `SLOW_CLOCK` from the clock chosen at start-up, which comes
    /// before any thread state is made for the runtime's clock.
    /// `SLOW_TRACE` is set only with `trace` (after it): the traced paths
    /// rely on it and do not test the pointer.
    slow: AtomicU8,
    /// The thread's trace buffer (`REGIO_MODE=trace`), null without. Set
    /// (`set_trace`) by the owner right after registration, before its
    /// first probe. A trace sends every probe to the slow path (its
    /// `SLOW_TRACE` bit): the trace hooks are in the functions below.
    pub trace: AtomicPtr<TraceBuf>,
}

// SAFETY: the UnsafeCell fields are touched only by the owning thread;
// everything else is atomic or immutable after publication.
unsafe impl Sync for ThreadState {}
unsafe impl Send for ThreadState {}

impl ThreadState {
    pub fn new(os_tid: u64) -> ThreadState {
        let arena = Arena::new();
        let stack = alloc_frames(INITIAL_FRAMES);
        // SAFETY: the fresh stack has INITIAL_FRAMES frames.
        let root = unsafe { &*stack };
        root.key.store(ROOT_KEY, Relaxed);
        root.node
            .store(arena.get(ROOT) as *const Node as *mut Node, Relaxed);
        ThreadState {
            stack: AtomicPtr::new(stack),
            depth: AtomicU32::new(1),
            capacity: UnsafeCell::new(INITIAL_FRAMES),
            children: UnsafeCell::new(ChildMap::new()),
            virtual_frames: UnsafeCell::new(0),
            busy: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
            arena,
            number: AtomicU32::new(0),
            os_tid,
            finished: AtomicBool::new(false),
            finished_at: AtomicU64::new(0),
            next: AtomicPtr::new(ptr::null_mut()),
            omp: OmpState::new(),
            counters: ptr::null(),
            slow: AtomicU8::new(if crate::clock::tsc_in_use() {
                0
            } else {
                SLOW_CLOCK
            }),
            trace: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// A state for the unit tests' fake clocks, which read inline whatever
    /// clock the runtime chose (`SLOW_CLOCK` is about `Ticks` only).
    #[cfg(test)]
    pub(crate) fn for_fake_clock(os_tid: u64) -> ThreadState {
        let mut t = ThreadState::new(os_tid);
        *t.slow.get_mut() &= !SLOW_CLOCK;
        t
    }

    /// Gives the thread its perf events (null: none); before publication.
    pub fn set_counters(&mut self, counters: *const ThreadCounters) {
        self.counters = counters;
        let bit = if counters.is_null() { 0 } else { SLOW_COUNTERS };
        *self.slow.get_mut() = (*self.slow.get_mut() & !SLOW_COUNTERS) | bit;
    }

    /// Gives the thread its trace buffer; by the owner, before its first
    /// probe (the buffer is published with Release for the writer).
    pub fn set_trace(&self, tb: &'static TraceBuf) {
        self.trace
            .store(tb as *const TraceBuf as *mut TraceBuf, Release);
        self.slow.fetch_or(SLOW_TRACE, Relaxed);
    }

    /// Claims the thread's state for one probe; false if a probe is already
    /// running on it (this one interrupted it from a signal handler).
    #[inline(always)]
    fn begin_probe(&self) -> bool {
        if self.busy.load(Relaxed) {
            return false;
        }
        self.busy.store(true, Relaxed);
        // A signal handler runs on this thread: only the compiler could
        // move the probe's stores before the flag is set.
        compiler_fence(SeqCst);
        true
    }

    #[inline(always)]
    fn end_probe(&self) {
        compiler_fence(SeqCst);
        self.busy.store(false, Relaxed);
    }

    /// Open frames, the root frame included.
    #[inline(always)]
    pub fn depth(&self) -> usize {
        self.depth.load(Relaxed) as usize
    }

    /// Frame `i` of the current stack; `i` must be below a depth read after
    /// the stack pointer (the stack only grows, old stacks stay valid).
    #[inline(always)]
    fn frame(&self, i: usize) -> &Frame {
        // SAFETY: callers keep i < depth <= capacity of the current stack.
        unsafe { &*self.stack.load(Relaxed).add(i) }
    }

    /// A consistent-enough view for writers: the stack pointer and depth.
    pub fn stack_snapshot(&self) -> (*const Frame, usize) {
        let s = self.stack.load(Acquire);
        let d = self.depth.load(Acquire) as usize;
        (s, d)
    }

    /// Records entry into `region`; returns the entry tick (0 if the node
    /// could not be created).
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline(always)]
    pub unsafe fn enter<C: Clock>(&self, region: u32, clock: &C) -> u64 {
        if !crate::select::recorded(region) {
            return 0;
        }
        self.enter_counting(region, clock, 1, 0)
    }

    /// [`Self::enter`] for a caller that has read the region's gate
    /// (`select::gates`) as open, or whose region has none: the check is
    /// not repeated. (A gate that closed in between costs one more call
    /// recorded, closed by its exit as any frame.)
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline(always)]
    pub unsafe fn enter_gated<C: Clock>(&self, region: u32, clock: &C) -> u64 {
        self.enter_counting(region, clock, 1, 0)
    }

    /// In a forked child (see `fork`): clears every node; the running
    /// thread's open frames restart at `now`, any other thread (absent in
    /// the child) is closed at `now` with no frame left open.
    ///
    /// # Safety
    /// Only in the child right after `fork`, where no other thread runs.
    pub unsafe fn restart_after_fork(&self, now: u64, running: bool) {
        for i in 0..self.arena.len() {
            self.arena.get(i).clear(running);
        }
        self.dropped.store(0, Relaxed);
        if running {
            // The open regions are entered anew at the fork, as far as the
            // child is concerned (virtual frames count nothing).
            for i in 1..self.depth() {
                let f = self.frame(i);
                f.start.store(now, Relaxed);
                f.child.store(0, Relaxed);
                if f.key.load(Relaxed) == VIRTUAL_KEY {
                    continue;
                }
                let node = &*f.node.load(Relaxed);
                bump(&node.calls, 1);
                if f.recursive() {
                    bump(&node.recursive_calls, 1);
                }
            }
        } else {
            self.depth.store(1, Release);
            *self.virtual_frames.get() = 0;
            self.finished_at.store(now, Relaxed);
            self.finished.store(true, Release);
        }
    }

    /// The thread's trace buffer, if it records a trace.
    #[inline(always)]
    pub fn trace(&self) -> Option<&TraceBuf> {
        // SAFETY: trace buffers are leaked, never freed.
        unsafe { self.trace.load(Relaxed).as_ref() }
    }

    /// Records `event` at `ticks` in the thread's trace (nothing without
    /// one), as a probe: a signal handler's probes cannot interleave.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    pub unsafe fn record_event(&self, ticks: u64, event: &regio_trace_format::Event) {
        if let Some(tb) = self.trace() {
            if self.begin_probe() {
                tb.event(ticks, event);
                self.end_probe();
            }
        }
    }

    /// A user event `name` (id from `user_events`) with `value`, now: in
    /// the statistics of the current node (`table`, the thread's
    /// `user_events` table) and in the trace. One that interrupted a probe
    /// of this thread is counted as dropped.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    pub unsafe fn record_user<C: Clock>(
        &self,
        table: &crate::user_events::Table,
        name: u32,
        text: &str,
        value: f64,
        clock: &C,
    ) {
        if !self.begin_probe() {
            table.note_dropped();
            return;
        }
        table.add((*self.top_node()).index, name, value);
        if let Some(tb) = self.trace() {
            tb.user(clock.now(), name, text, value);
        }
        self.end_probe();
    }

    /// The node of the innermost open frame (the hidden root if none).
    pub fn top_node(&self) -> *const Node {
        self.frame(self.depth() - 1).node.load(Relaxed)
    }

    /// Pushes a frame on `node` that takes no part in any figure: a team
    /// worker stands on it so its regions attach under the master's path.
    ///
    /// # Safety
    /// Only the owning thread may call this; `node` must be in its arena.
    pub unsafe fn push_virtual(&self, node: *const Node, start: u64) {
        if !self.begin_probe() {
            return;
        }
        let d = self.depth();
        if d == *self.capacity.get() {
            self.grow();
        }
        let n = &*node;
        n.open.store(n.open.load(Relaxed) + 1, Relaxed);
        let f = self.frame(d);
        f.key.store(VIRTUAL_KEY, Relaxed);
        f.node.store(node as *mut Node, Relaxed);
        f.child.store(0, Relaxed);
        f.start.store(start, Relaxed);
        *self.virtual_frames.get() += 1;
        self.depth.store(d as u32 + 1, Release);
        self.end_probe();
    }

    /// Pops the top frame if it is a virtual one; says whether it did.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    pub unsafe fn pop_virtual(&self) -> bool {
        if !self.begin_probe() {
            return false;
        }
        let d = self.depth();
        let f = self.frame(d - 1);
        if d < 2 || f.key.load(Relaxed) != VIRTUAL_KEY {
            self.end_probe();
            return false;
        }
        let n = &*f.node.load(Relaxed);
        n.open.store(n.open.load(Relaxed) - 1, Relaxed);
        let v = &mut *self.virtual_frames.get();
        *v = v.saturating_sub(1);
        self.depth.store(d as u32 - 1, Release);
        self.end_probe();
        true
    }

    /// The child node of `parent` for `region`, created (uncounted) if
    /// needed; null only when the arena is full.
    ///
    /// # Safety
    /// Only the owning thread may call this; `parent` must be in its arena.
    pub unsafe fn child_of(&self, parent: &Node, region: u32) -> *const Node {
        if !self.begin_probe() {
            return ptr::null();
        }
        let c = self.child_of_locked(parent, region);
        self.end_probe();
        c
    }

    unsafe fn child_of_locked(&self, parent: &Node, region: u32) -> *const Node {
        let c = parent.cached_child(region);
        if c.is_null() {
            self.child_slow(parent, region, false)
        } else {
            c
        }
    }

    /// Adds one closed call of `region` from `start` to `end` under the
    /// innermost open frame, as if it had been entered and left then.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    pub unsafe fn record_child(&self, region: u32, start: u64, end: u64) {
        if !crate::select::recorded(region) {
            return;
        }
        if !self.begin_probe() {
            bump(&self.dropped, 1);
            return;
        }
        self.record_child_locked(region, start, end);
        self.end_probe();
    }

    unsafe fn record_child_locked(&self, region: u32, start: u64, end: u64) {
        let top = self.frame(self.depth() - 1);
        let child = self.child_of_locked(&*top.node.load(Relaxed), region);
        if child.is_null() {
            return;
        }
        if let Some(tb) = self.trace() {
            tb.enter(start, region);
            tb.exit(end, region);
        }
        let n = &*child;
        let dur = end.saturating_sub(start);
        bump(&n.calls, 1);
        bump(&n.inclusive, dur);
        bump(&n.exclusive, dur);
        if dur < n.min.load(Relaxed) {
            n.min.store(dur, Relaxed);
        }
        if dur > n.max.load(Relaxed) {
            n.max.store(dur, Relaxed);
        }
        bump(&top.child, dur);
    }

    /// Time spent in child frames of the innermost open frame grows by
    /// `dur` (a child recorded on this thread's behalf by another).
    ///
    /// # Safety
    /// Only the owning thread may call this.
    pub unsafe fn add_child_time(&self, dur: u64) {
        if self.begin_probe() {
            bump(&self.frame(self.depth() - 1).child, dur);
            self.end_probe();
        }
    }

    /// Records a poll of an async region: a frame like any entry, counted
    /// as a call only on the future's first poll. Returns the entry tick
    /// (0 if the node could not be created).
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline(always)]
    pub unsafe fn enter_poll<C: Clock>(&self, region: u32, clock: &C, first: bool) -> u64 {
        if !crate::select::recorded(region) {
            return 0;
        }
        self.enter_counting(region, clock, first as u64, 1)
    }

    #[inline(always)]
    unsafe fn enter_counting<C: Clock>(
        &self,
        region: u32,
        clock: &C,
        calls: u64,
        polls: u64,
    ) -> u64 {
        if !self.begin_probe() {
            bump(&self.dropped, calls);
            return 0;
        }
        // The slow byte first: a thread that records a trace (or counters)
        // leaves before anything else is loaded, so its own path repeats
        // none of the fast path's work. A trace alone (the byte is
        // exactly `SLOW_TRACE`) on a call (not a poll: the counts are
        // constants here, so the choice costs nothing) goes straight to
        // the traced entry, which then tests nothing of this again.
        let slow = self.slow.load(Relaxed);
        if slow != 0 || !clock.inline() {
            // Keeps the profile's path to one test of the byte (see
            // `exit_recorded`).
            std::hint::cold_path();
            return if slow == SLOW_TRACE && clock.inline() && calls == 1 && polls == 0 {
                self.enter_traced(region, clock)
            } else {
                self.enter_slow(region, clock, calls, polls)
            };
        }
        match self.enter_fast(region, clock, calls, polls) {
            Some(start) => {
                self.end_probe();
                start
            }
            None => self.enter_slow(region, clock, calls, polls),
        }
    }

    /// The common entry, inline, for a thread whose slow byte is 0 (the
    /// caller tested it): an existing node found through the parent's
    /// cache, room on the stack, a clock read without a call. Makes no
    /// call at all, so the entry point needs no stack frame; anything else
    /// is `None` (nothing changed yet) and goes to [`Self::enter_slow`].
    #[inline(always)]
    unsafe fn enter_fast<C: Clock>(
        &self,
        region: u32,
        clock: &C,
        calls: u64,
        polls: u64,
    ) -> Option<u64> {
        let d = self.depth();
        if d == *self.capacity.get() {
            return None;
        }
        let stack = self.stack.load(Relaxed);
        let parent = &*(*stack.add(d - 1)).node.load(Relaxed);
        let child = parent.cached_child(region);
        if child.is_null() {
            return None;
        }
        let (_, _, f) = Self::open_frame(stack, d, region, child, calls, polls);
        // Read the clock last so the probe's own work is outside the region.
        let start = clock.now_inline();
        f.start.store(start, Relaxed);
        // Release: a reader that sees the new depth sees the frame.
        self.depth.store(d as u32 + 1, Release);
        Some(start)
    }

    /// The entry's work on the node and the new frame at depth `d`, shared
    /// by the inline fast path and the slow path: opens `child`, counts
    /// `calls` (and recursive ones) and `polls`, writes the frame but its
    /// start. Returns the node, whether the entry is recursive, the frame.
    #[inline(always)]
    unsafe fn open_frame<'a>(
        stack: *mut Frame,
        d: usize,
        region: u32,
        child: *const Node,
        calls: u64,
        polls: u64,
    ) -> (&'a Node, bool, &'a Frame) {
        let node = &*child;
        let open = node.open.load(Relaxed);
        let recursive = open != 0;
        node.open.store(open + 1, Relaxed);
        if calls != 0 {
            bump(&node.calls, calls);
            if recursive {
                bump(&node.recursive_calls, calls);
            }
        }
        if polls != 0 {
            bump(&node.polls, polls);
        }
        let f = &*stack.add(d);
        f.key.store(frame_key(region, recursive), Relaxed);
        f.node.store(child as *mut Node, Relaxed);
        f.child.store(0, Relaxed);
        (node, recursive, f)
    }

    /// Every other entry (new node, stack growth, counters, a trace with
    /// counters or a clock read through a call, a poll), out of line; ends
    /// the probe. Trace mode's common entry is [`Self::enter_traced`].
    #[cold]
    #[inline(never)]
    unsafe fn enter_slow<C: Clock>(&self, region: u32, clock: &C, calls: u64, polls: u64) -> u64 {
        self.enter_slowest(region, clock, calls, polls)
    }

    /// `extern "C"` (cannot unwind): the traced paths, which are, reach it
    /// by a jump.
    #[inline(never)]
    unsafe extern "C" fn enter_slowest<C: Clock>(
        &self,
        region: u32,
        clock: &C,
        calls: u64,
        polls: u64,
    ) -> u64 {
        let start = self.enter_locked(region, clock, calls, polls);
        self.end_probe();
        start
    }

    /// [`Self::enter_fast`] with the trace's enter record, for a call on a
    /// thread whose only reason for the slow path is its trace (the caller
    /// found `slow` to be exactly `SLOW_TRACE` and the clock inline): an
    /// existing node, room on the stack and in the trace buffer. The
    /// record is raw (`TraceBuf::put_raw`: tick, region, code, encoded when
    /// the buffer is written), its room checked before the clock is read,
    /// so only its stores fall inside the region. Every other case leaves
    /// by a jump to [`Self::enter_slowest`] before anything changed (a full
    /// buffer is made room in there, before its clock read). Ends the
    /// probe. `extern "C"` so that it cannot unwind: the C entry points,
    /// which may not unwind either, then reach it by a jump rather than a
    /// call (a call into a function that may unwind needs a landing pad
    /// after it), and it returns straight to the probe's caller.
    #[inline(never)]
    unsafe extern "C" fn enter_traced<C: Clock>(&self, region: u32, clock: &C) -> u64 {
        let (calls, polls) = (1, 0);
        let d = self.depth();
        if d == *self.capacity.get() {
            return self.enter_slowest(region, clock, calls, polls);
        }
        let stack = self.stack.load(Relaxed);
        let parent = &*(*stack.add(d - 1)).node.load(Relaxed);
        let child = parent.cached_child(region);
        if child.is_null() {
            return self.enter_slowest(region, clock, calls, polls);
        }
        // `SLOW_TRACE` is set only after the buffer (`set_trace`): no
        // null test on this path.
        let tb = &*self.trace.load(Relaxed);
        let Some(at) = tb.raw_room() else {
            return self.enter_slowest(region, clock, calls, polls);
        };
        let (_, _, f) = Self::open_frame(stack, d, region, child, calls, polls);
        let start = clock.now_inline();
        f.start.store(start, Relaxed);
        tb.put_raw(at, regio_trace_format::schema::code::ENTER, start, region);
        // Release: a reader that sees the new depth sees the frame.
        self.depth.store(d as u32 + 1, Release);
        self.end_probe();
        start
    }

    #[inline(always)]
    unsafe fn enter_locked<C: Clock>(&self, region: u32, clock: &C, calls: u64, polls: u64) -> u64 {
        let d = self.depth();
        if d == *self.capacity.get() {
            self.grow();
        }
        let stack = self.stack.load(Relaxed);
        let top = &*stack.add(d - 1);
        let parent = &*top.node.load(Relaxed);
        let mut child = parent.cached_child(region);
        if child.is_null() {
            child = self.child_slow(parent, region, true);
            if child.is_null() {
                return 0;
            }
        }
        let (node, recursive, f) = Self::open_frame(stack, d, region, child, calls, polls);
        // Counters before the clock: the read's own cost stays outside.
        let tc = self.counters;
        if !tc.is_null() {
            (*tc).enter(d, node, recursive);
        }
        // Read the clock last so the probe's own work is outside the
        // region; in trace mode after the enter record is prepared, which
        // then takes the same reading.
        let start = match self.trace() {
            Some(tb) => tb.enter_timed(region, || clock.now()),
            None => clock.now(),
        };
        f.start.store(start, Relaxed);
        // Release: a reader that sees the new depth sees the frame.
        self.depth.store(d as u32 + 1, Release);
        start
    }

    /// Ends a poll of an async region; when the future completed,
    /// `first_poll` is the entry tick of its first poll and the span from
    /// there to now is added to the node of this poll.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline]
    pub unsafe fn exit_poll<C: Clock>(&self, region: u32, clock: &C, first_poll: Option<u64>) {
        if !self.begin_probe() {
            return;
        }
        let now = clock.now();
        let d = self.depth();
        let top = self.frame(d - 1);
        if top.key.load(Relaxed) >> 1 == region as u64 {
            if let Some(first) = first_poll {
                bump(&(*top.node.load(Relaxed)).span, now.saturating_sub(first));
            }
            self.pop(d, now, false);
        } else {
            self.exit_search(region, now);
        }
        self.end_probe();
    }

    /// Records exit from `region`: pops the top frame if it is `region`,
    /// else every frame down to the innermost one of `region`; ignores the
    /// call if `region` is not on the stack.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline(always)]
    pub unsafe fn exit<C: Clock>(&self, region: u32, clock: &C) {
        self.exit_recorded::<C, false>(region, clock)
    }

    /// [`Self::exit`] for a caller that made this exit only because its
    /// entry was recorded (a C function guard holds 0 for a gated entry
    /// and then makes no exit: `regio_guard_exit`). Such exits stay paired
    /// with their frames whatever the gate says later, so the region may
    /// be throttled at any of them, also while recursive frames of it are
    /// open (they close at their own exits); an exit that cannot tell
    /// ([`Self::exit`]) decides only when no frame of the node stays open.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline(always)]
    pub unsafe fn exit_paired<C: Clock>(&self, region: u32, clock: &C) {
        self.exit_recorded::<C, true>(region, clock)
    }

    /// The probe work of an exit: the common case (the innermost frame is
    /// `region`'s, no counters, no trace, a clock read without a call)
    /// inline and without a call; the rest in [`Self::exit_slow`]. The
    /// region's gate is read only there: a matching innermost frame closes
    /// whatever the gate says.
    #[inline(always)]
    unsafe fn exit_recorded<C: Clock, const PAIRED: bool>(&self, region: u32, clock: &C) {
        if !self.begin_probe() {
            return;
        }
        // The slow byte first, as in `enter_counting`: a trace thread goes
        // to its own path before this one loads the stack, and that path
        // does not test the byte again.
        let slow = self.slow.load(Relaxed);
        if slow != 0 || !clock.inline() {
            // Else the compiler tests `SLOW_TRACE` first, on the profile's
            // path too (three instructions more there).
            std::hint::cold_path();
            return if slow == SLOW_TRACE && clock.inline() {
                self.exit_traced::<C, PAIRED>(region, clock)
            } else {
                self.exit_slowest::<C, PAIRED>(region, clock)
            };
        }
        let d = self.depth();
        // One read of the stack pointer for the test and the pop (two
        // relaxed atomic loads are not merged by the compiler).
        let stack = self.stack.load(Relaxed);
        let key = (*stack.add(d - 1)).key.load(Relaxed);
        if key >> 1 != region as u64 {
            if !PAIRED && !crate::select::recorded(region) {
                // A filtered, masked or throttled region whose frame is
                // not the innermost: nothing to close (`exit_slowest`
                // decides the same), found without a call. Fortran's and
                // the C API's exits, which cannot tell whether their entry
                // made a frame, come here for every unrecorded region.
                self.end_probe();
                return;
            }
            return self.exit_slowest::<C, PAIRED>(region, clock);
        }
        let now = clock.now_inline();
        let throttle_node = self.pop_plain::<PAIRED>(stack, d, key, now);
        self.end_probe();
        // Outside the probe (it claims the thread again to read the
        // region's other nodes; there is no trace to mark the moment in on
        // this path).
        if let Some(node) = throttle_node {
            self.consider_throttling_plain(node);
        }
    }

    /// [`Self::exit_recorded`]'s common case with the trace's exit record,
    /// for a thread whose only reason for the slow path is its trace (the
    /// caller found `slow` to be exactly `SLOW_TRACE` and the clock
    /// inline): the innermost frame is `region`'s. The clock is read
    /// first, the record written after the frame is closed. As
    /// [`Self::enter_traced`], out of line, `extern "C"` (reached by a
    /// jump), and every other case leaves by a jump: any other exit to
    /// [`Self::exit_slowest`] before anything changed; a long record or a
    /// full buffer to [`Self::exit_traced_rest`], a throttling decision to
    /// [`Self::exit_traced_throttle`]. Ends the probe.
    #[inline(never)]
    unsafe extern "C" fn exit_traced<C: Clock, const PAIRED: bool>(&self, region: u32, clock: &C) {
        let d = self.depth();
        let stack = self.stack.load(Relaxed);
        let key = (*stack.add(d - 1)).key.load(Relaxed);
        // A virtual frame never matches (`VIRTUAL_KEY`).
        if key >> 1 != region as u64 {
            return self.exit_slowest::<C, PAIRED>(region, clock);
        }
        let now = clock.now_inline();
        let throttle_node = self.pop_plain::<PAIRED>(stack, d, key, now);
        // The buffer (set before `SLOW_TRACE`: not null) is loaded only
        // now: fewer registers live across the clock read and the pop. A
        // full buffer is made room in `exit_traced_rest`, after the frame
        // is closed, as `pop` does it.
        let tb = &*self.trace.load(Relaxed);
        let Some(at) = tb.raw_room() else {
            return self.exit_traced_rest(tb, region, now, throttle_node);
        };
        tb.put_raw(at, regio_trace_format::schema::code::EXIT, now, region);
        // As in `pop`, the throttled mark follows the exit record.
        if let Some(node) = throttle_node {
            return self.exit_traced_throttle(node, now);
        }
        self.end_probe();
    }

    /// The end of [`Self::exit_traced`] when the node is to be considered
    /// for throttling (its exit record written); ends the probe.
    #[cold]
    #[inline(never)]
    unsafe extern "C" fn exit_traced_throttle(&self, node: &Node, now: u64) {
        self.consider_throttling(node, now);
        self.end_probe();
    }

    /// The end of [`Self::exit_traced`] on a full buffer: makes room
    /// (encodes it, writes it out if need be), writes the exit record, then
    /// considers the node for throttling if due (as in `pop`, the
    /// throttled mark follows the exit record); ends the probe.
    #[cold]
    #[inline(never)]
    unsafe extern "C" fn exit_traced_rest(
        &self,
        tb: &TraceBuf,
        region: u32,
        now: u64,
        throttle_node: Option<&Node>,
    ) {
        tb.exit(now, region);
        if let Some(node) = throttle_node {
            self.consider_throttling(node, now);
        }
        self.end_probe();
    }

    /// `extern "C"` (cannot unwind), as [`Self::enter_slowest`].
    #[inline(never)]
    unsafe extern "C" fn exit_slowest<C: Clock, const PAIRED: bool>(&self, region: u32, clock: &C) {
        let d = self.depth();
        if self.frame(d - 1).key.load(Relaxed) >> 1 == region as u64 {
            self.pop(d, clock.now(), PAIRED);
        } else if PAIRED || crate::select::recorded(region) {
            self.exit_search(region, clock.now());
        }
        // Else a throttled or filtered region with no frame on top, left
        // by an exit that cannot tell whether its entry made a frame: its
        // entries make none now. Only a frame entered before it stopped
        // being recorded can be open, and that closes at this exit when it
        // is the innermost one (above), else at the exit of an enclosing
        // region (which searches the stack). A paired exit had a frame:
        // it searches for it whatever the gate says.
        self.end_probe();
    }

    /// [`Self::pop`] for a thread without counters and trace, given the
    /// current stack and the top frame's key as the caller read them;
    /// returns the node if its region is now to be considered for
    /// throttling.
    #[inline(always)]
    unsafe fn pop_plain<const PAIRED: bool>(
        &self,
        stack: *mut Frame,
        d: usize,
        key: u64,
        now: u64,
    ) -> Option<&Node> {
        let f = &*stack.add(d - 1);
        let node = &*f.node.load(Relaxed);
        let dur = now.saturating_sub(f.start.load(Relaxed));
        bump(&node.exclusive, dur.saturating_sub(f.child.load(Relaxed)));
        let outermost = key & 1 == 0;
        if outermost {
            bump(&node.inclusive, dur);
            if dur < node.min.load(Relaxed) {
                node.min.store(dur, Relaxed);
            }
            if dur > node.max.load(Relaxed) {
                node.max.store(dur, Relaxed);
            }
        }
        let open = node.open.load(Relaxed) - 1;
        node.open.store(open, Relaxed);
        bump(&(*stack.add(d - 2)).child, dur);
        self.depth.store(d as u32 - 1, Release);
        // As in `pop`: decided at a paired exit, or when no frame of the
        // node stays open here.
        ((PAIRED || (outermost && open == 0)) && throttle::due(node.calls.load(Relaxed)))
            .then_some(node)
    }

    #[cold]
    #[inline(never)]
    unsafe fn exit_search(&self, region: u32, now: u64) {
        let d = self.depth();
        let found = (1..d)
            .rev()
            .find(|&i| self.frame(i).key.load(Relaxed) >> 1 == region as u64);
        if let Some(i) = found {
            self.pop_to_locked(i, now);
        }
    }

    /// Pops frames until `depth` frames (root included) remain, all closed
    /// at `now`.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    pub unsafe fn pop_to(&self, depth: usize, now: u64) {
        if self.begin_probe() {
            self.pop_to_locked(depth, now);
            self.end_probe();
        }
    }

    unsafe fn pop_to_locked(&self, depth: usize, now: u64) {
        let depth = depth.max(1);
        let mut d = self.depth();
        while d > depth {
            if self.frame(d - 1).key.load(Relaxed) == VIRTUAL_KEY {
                let v = &mut *self.virtual_frames.get();
                *v = v.saturating_sub(1);
            }
            self.pop(d, now, false);
            d -= 1;
        }
    }

    /// Closes the top frame (`d` is the current depth, > 1); `paired`: the
    /// exit of the frame's own entry (see [`Self::exit_paired`]).
    #[inline(always)]
    unsafe fn pop(&self, d: usize, now: u64, paired: bool) {
        let stack = self.stack.load(Relaxed);
        let f = &*stack.add(d - 1);
        let node = &*f.node.load(Relaxed);
        let dur = now.saturating_sub(f.start.load(Relaxed));
        bump(&node.exclusive, dur.saturating_sub(f.child.load(Relaxed)));
        let outermost = f.key.load(Relaxed) & 1 == 0;
        if outermost {
            bump(&node.inclusive, dur);
            if dur < node.min.load(Relaxed) {
                node.min.store(dur, Relaxed);
            }
            if dur > node.max.load(Relaxed) {
                node.max.store(dur, Relaxed);
            }
        }
        let tc = self.counters;
        if !tc.is_null() {
            (*tc).exit(d - 1, node, f.recursive());
        }
        let open = node.open.load(Relaxed) - 1;
        node.open.store(open, Relaxed);
        bump(&(*stack.add(d - 2)).child, dur);
        let key = f.key.load(Relaxed);
        if key != VIRTUAL_KEY {
            if let Some(tb) = self.trace() {
                tb.exit(now, (key >> 1) as u32);
            }
        }
        self.depth.store(d as u32 - 1, Release);
        // Throttling (REGIO_THROTTLE) is decided at an exit that is known
        // to close its own entry's frame (`paired`: the open frames of the
        // region close at their own exits too, so a recursive region can
        // stop in the middle of its recursion), else when no frame of the
        // node stays open on this thread (a recursive region: at its
        // outermost exit), so no frame of it is left to close at a wrong
        // time here.
        if (paired || (outermost && open == 0)) && throttle::due(node.calls.load(Relaxed)) {
            self.consider_throttling(node, now);
        }
    }

    /// A node past the throttle's call threshold: throttles its region if
    /// its calls were brief (see `throttle`), and marks the moment in the
    /// trace.
    #[cold]
    #[inline(never)]
    unsafe fn consider_throttling(&self, node: &Node, now: u64) {
        if self.throttle_decision(node) {
            if let Some(tb) = self.trace() {
                tb.event(
                    now,
                    &regio_trace_format::Event::Throttled {
                        region: node.region,
                    },
                );
            }
        }
    }

    /// Finds or creates the node of `region` under `parent`, folding
    /// recursion onto the innermost ancestor with the same region.
    /// `on_top`: `parent` is the node of the innermost open frame.
    #[cold]
    #[inline(never)]
    unsafe fn child_slow(&self, parent: &Node, region: u32, on_top: bool) -> *const Node {
        let map = &mut *self.children.get();
        let key = childmap::key(parent.index, region);
        let child = match map.get(key) {
            Some(c) => c,
            None => {
                let newest = map.get(childmap::region_key(region));
                let c = match self.fold_target(parent, region, newest, on_top) {
                    Some(a) => a as *const Node,
                    None => {
                        let next_same = newest.map_or(ROOT, |n| (*n).index);
                        match self.arena.push(parent.index, region, next_same) {
                            Some(n) => {
                                map.set(childmap::region_key(region), n);
                                n as *const Node
                            }
                            None => return ptr::null(),
                        }
                    }
                };
                map.insert(key, c);
                c
            }
        };
        parent.set_cache(region, child);
        child
    }

    /// The innermost node on `parent`'s ancestor chain (itself included)
    /// with `region`, if any; `newest` is the newest node of `region` on
    /// this thread (none: no node can be an ancestor).
    ///
    /// Walks the ancestor chain and, in step with it, the region's own
    /// nodes: when `parent` is the innermost frame's node and no virtual
    /// frame is open, every ancestor of `parent` has a frame open, so if
    /// every node of the region is closed none of them is an ancestor. The
    /// cost is the smaller of the two walks, so a chain of N distinct
    /// regions is built in O(N), not O(N^2), also when its regions have
    /// nodes elsewhere.
    unsafe fn fold_target<'a>(
        &'a self,
        parent: &'a Node,
        region: u32,
        newest: Option<*const Node>,
        on_top: bool,
    ) -> Option<&'a Node> {
        let newest = newest?;
        let mut candidate = if on_top && *self.virtual_frames.get() == 0 {
            newest
        } else {
            ptr::null()
        };
        let mut n = parent;
        loop {
            if n.index == ROOT {
                return None;
            }
            if n.region == region {
                return Some(n);
            }
            n = self.arena.get(n.parent);
            if let Some(c) = candidate.as_ref() {
                candidate = if c.open.load(Relaxed) != 0 {
                    // Open: only the ancestor walk can tell.
                    ptr::null()
                } else if c.next_same == ROOT {
                    return None;
                } else {
                    self.arena.get(c.next_same)
                };
            }
        }
    }

    /// `consider_throttling` where the thread has no trace, after the exit
    /// probe ended (a tail call of it): claims the thread again, since the
    /// region's other nodes are found through the child map.
    #[cold]
    #[inline(never)]
    unsafe fn consider_throttling_plain(&self, node: &Node) {
        if self.begin_probe() {
            let _ = self.throttle_decision(node);
            self.end_probe();
        }
    }

    /// Asks `throttle` about `node`'s region (see `throttle::due`): at a
    /// node's call count that is a multiple of `throttle::REGION_EVERY`,
    /// with the figures of all the region's nodes on this thread (a region
    /// called from many places, none of them past CALLS), else with the
    /// node's own. True if this throttled the region. Within a probe.
    unsafe fn throttle_decision(&self, node: &Node) -> bool {
        if !throttle::on() {
            // A REGION_EVERY'th exit with throttling off: nothing to sum.
            return false;
        }
        let own = node_figures(node);
        let figures = if throttle::region_wide(node.calls.load(Relaxed)) {
            self.region_figures(node.region)
        } else {
            own
        };
        throttle::decide(node.region, figures)
    }

    /// The figures of every node of `region` on this thread, summed (the
    /// longest call: the longest of all), through the region's node list
    /// (newest first, at most `throttle::REGION_NODES` of them).
    unsafe fn region_figures(&self, region: u32) -> throttle::Figures {
        let map = &*self.children.get();
        let mut sum = throttle::Figures::default();
        let mut next = map.get(childmap::region_key(region));
        let mut walked = 0;
        while let Some(p) = next {
            let n = &*p;
            let f = node_figures(n);
            sum.calls += f.calls;
            sum.time = sum.time.saturating_add(f.time);
            sum.longest = sum.longest.max(f.longest);
            walked += 1;
            next = if n.next_same == ROOT || walked == throttle::REGION_NODES {
                None
            } else {
                Some(self.arena.get(n.next_same) as *const Node)
            };
        }
        sum
    }

    #[cold]
    #[inline(never)]
    unsafe fn grow(&self) {
        let cap = *self.capacity.get();
        let new = alloc_frames(cap * 2);
        let old = self.stack.load(Relaxed);
        for i in 0..cap {
            let (o, n) = (&*old.add(i), &*new.add(i));
            n.key.store(o.key.load(Relaxed), Relaxed);
            n.node.store(o.node.load(Relaxed), Relaxed);
            n.start.store(o.start.load(Relaxed), Relaxed);
            n.child.store(o.child.load(Relaxed), Relaxed);
        }
        self.stack.store(new, Release);
        *self.capacity.get() = cap * 2;
    }
}

/// The throttle's figures of one node: closed calls, their time (inclusive,
/// or for a recursive node, whose inclusive time covers only outermost
/// calls, exclusive) and the longest call (0: not known).
fn node_figures(node: &Node) -> throttle::Figures {
    // Frames still open (at a paired exit in the middle of a recursion)
    // have added no time yet.
    let calls = node
        .calls
        .load(Relaxed)
        .saturating_sub(node.open.load(Relaxed) as u64);
    if node.recursive_calls.load(Relaxed) == 0 {
        throttle::Figures {
            calls,
            time: node.inclusive.load(Relaxed),
            longest: node.max.load(Relaxed),
        }
    } else {
        throttle::Figures {
            calls,
            time: node.exclusive.load(Relaxed),
            longest: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{totals, NodeTotals, StackIndex};
    use std::cell::Cell;

    struct Fake(Cell<u64>);
    impl Clock for Fake {
        fn now(&self) -> u64 {
            self.0.get()
        }
    }
    impl Fake {
        fn at(&self, t: u64) -> &Self {
            self.0.set(t);
            self
        }
    }

    fn nodes(t: &ThreadState, end: u64) -> Vec<(u32, u32, NodeTotals)> {
        let (s, d) = t.stack_snapshot();
        let scan = unsafe { StackIndex::scanning(s, d) };
        let mut next = vec![0u32; d];
        let index = unsafe { StackIndex::new(s, d, next.as_mut_ptr()) };
        (1..t.arena.len())
            .map(|i| {
                let n = t.arena.get(i);
                let tot = totals(n, &index, end);
                assert_eq!(tot, totals(n, &scan, end), "index and scan agree");
                (n.parent, n.region, tot)
            })
            .collect()
    }

    fn tot(calls: u64, rec: u64, incl: u64, excl: u64, min: u64, max: u64) -> NodeTotals {
        NodeTotals {
            calls,
            recursive_calls: rec,
            inclusive: incl,
            exclusive: excl,
            min,
            max,
            open: 0,
            polls: 0,
            span: 0,
        }
    }

    /// A fake clock that counts the reads made inline (the probes' fast
    /// paths) and through `now` (their slow paths).
    struct Counting {
        t: Cell<u64>,
        inline_reads: Cell<u32>,
        call_reads: Cell<u32>,
    }
    impl Clock for Counting {
        fn now(&self) -> u64 {
            self.call_reads.set(self.call_reads.get() + 1);
            self.t.set(self.t.get() + 10);
            self.t.get()
        }
        fn now_inline(&self) -> u64 {
            self.inline_reads.set(self.inline_reads.get() + 1);
            self.t.set(self.t.get() + 10);
            self.t.get()
        }
    }

    /// Enters and leaves region 5 `pairs` times on `t` (the first entry
    /// creates the node); returns (inline reads, reads through `now`) and
    /// checks the node's calls and time.
    fn reads_for_pairs(t: &ThreadState, pairs: u64) -> (u32, u32) {
        let c = Counting {
            t: Cell::new(0),
            inline_reads: Cell::new(0),
            call_reads: Cell::new(0),
        };
        unsafe {
            for _ in 0..pairs {
                t.enter(5, &c);
                t.exit(5, &c);
            }
        }
        let n = nodes(t, c.t.get());
        assert_eq!(n.len(), 1);
        // Every pair is one tick step apart whichever way it was read.
        assert_eq!(n[0].2, tot(pairs, 0, 10 * pairs, 10 * pairs, 10, 10));
        (c.inline_reads.get(), c.call_reads.get())
    }

    #[test]
    fn the_slow_byte_sends_every_probe_out_of_line() {
        // No reason set: after the entry that creates the node, the pairs
        // read the clock inline.
        let fast = ThreadState::for_fake_clock(1);
        assert_eq!(reads_for_pairs(&fast, 4), (7, 1));
        // The runtime's clock not being the TSC, or counters (with or
        // without a trace): no probe reads the clock inline (it would not
        // be the clock in use). `SLOW_TRACE` alone comes with a buffer
        // (`set_trace`): see
        // `a_trace_thread_takes_the_traced_path_and_records_every_probe`.
        for bit in [SLOW_CLOCK, SLOW_COUNTERS, SLOW_COUNTERS | SLOW_TRACE] {
            let slow = ThreadState::for_fake_clock(1);
            slow.slow.store(bit, Relaxed);
            let (inline_reads, call_reads) = reads_for_pairs(&slow, 4);
            assert_eq!((inline_reads, call_reads), (0, 8), "bit {bit}");
        }
    }

    /// The records of `tb` as (ticks, enter?, region).
    fn records(tb: &TraceBuf) -> Vec<(u64, bool, u32)> {
        use regio_trace_format::Event;
        tb.decoded_for_test()
            .into_iter()
            .map(|r| match r.event {
                Event::Enter { region } => (r.ticks, true, region),
                Event::Exit { region } => (r.ticks, false, region),
                e => panic!("unexpected event {e:?}"),
            })
            .collect()
    }

    /// The pairs of `reads_for_pairs`, as records: region 5 entered and
    /// left every 10 ticks from 10 on.
    fn pair_records(pairs: u64) -> Vec<(u64, bool, u32)> {
        (0..2 * pairs)
            .map(|i| (10 * (i + 1), i % 2 == 0, 5))
            .collect()
    }

    #[test]
    fn a_trace_thread_takes_the_traced_path_and_records_every_probe() {
        // A profile thread: the inline fast path (the first entry, which
        // makes the node, goes out of line). Were it sent to the trace's
        // path, every read would be a call (`enter_traced` finds no
        // buffer and goes to `*_slowest`).
        let profile = ThreadState::for_fake_clock(1);
        assert_eq!(reads_for_pairs(&profile, 4), (7, 1));
        // A trace thread with a real buffer: its own path, which reads the
        // clock inline as the profile's does and writes every record. On
        // the profile's fast path the records would be missing; on the
        // general slow path (`*_slowest`) the reads would be calls.
        let tb = TraceBuf::for_test(1 << 16, 0, 0);
        let traced = ThreadState::for_fake_clock(2);
        traced.set_trace(tb);
        assert_eq!(reads_for_pairs(&traced, 4), (7, 1));
        assert_eq!(records(tb), pair_records(4));
        // The profile built at the same time is the same (reads_for_pairs
        // checked the node's figures on both).
        assert_eq!(nodes(&traced, 80), nodes(&profile, 80));
        // Counters or a clock read by a call besides the trace: the
        // general slow path, which records the same events.
        for extra in [SLOW_COUNTERS, SLOW_CLOCK] {
            let tb = TraceBuf::for_test(1 << 16, 0, 0);
            let t = ThreadState::for_fake_clock(3);
            t.set_trace(tb);
            t.slow.fetch_or(extra, Relaxed);
            assert_eq!(reads_for_pairs(&t, 4), (0, 8), "bit {extra}");
            assert_eq!(records(tb), pair_records(4), "bit {extra}");
        }
    }

    #[test]
    fn the_traced_path_writes_long_records_and_nested_regions_exactly() {
        // Gaps beyond the short record's 2^14 ticks and region fields
        // beyond 127 (regions far apart) take the long forms once the raw
        // records are encoded; short ones come between them. Every probe
        // after the first entry of each node is on the traced path.
        let tb = TraceBuf::for_test(1 << 16, 0, 0);
        let t = ThreadState::for_fake_clock(1);
        t.set_trace(tb);
        let c = Fake(Cell::new(0));
        let mut want = Vec::new();
        let mut now = 0;
        for round in 0..3u64 {
            for (gap, enter, region) in [
                (5, true, 1),
                (20_000, true, 1000),
                (3, true, 1001),
                (1 << 20, false, 1001),
                (7, false, 1000),
                (100, true, 2),
                (16_383 + round, false, 2),
                (16_384, false, 1),
            ] {
                now += gap;
                unsafe {
                    if enter {
                        t.enter(region, c.at(now));
                    } else {
                        t.exit(region, c.at(now));
                    }
                }
                want.push((now, enter, region));
            }
        }
        assert_eq!(t.depth(), 1);
        assert_eq!(records(tb), want);
        // The profile: 3 calls of each node, times from the same readings.
        let n = nodes(&t, now);
        assert_eq!(n.len(), 4);
        assert!(n.iter().all(|x| x.2.calls == 3), "{n:?}");
        let r1001 = n.iter().find(|x| x.1 == 1001).expect("node of 1001");
        assert_eq!(r1001.2.inclusive, 3 << 20);
    }

    #[test]
    fn the_traced_path_makes_room_in_a_full_buffer_and_loses_nothing() {
        // A buffer of 4 KiB takes 254 raw records: the traced probes find
        // it full again and again (`enter_slowest`, `exit_traced_rest`),
        // which encodes it and writes it out when encoded records fill
        // most of it. The file holds every record at its clock reading.
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.rtrace");
        let tb = TraceBuf::for_test_with_file(4096, 0, 0, &path);
        let t = ThreadState::for_fake_clock(1);
        t.set_trace(tb);
        let c = Fake(Cell::new(0));
        let mut want = Vec::new();
        let mut now = 0;
        for i in 0..5000u64 {
            let region = 1 + (i % 3) as u32;
            now += 40 + i % 7;
            unsafe { t.enter(region, c.at(now)) };
            want.push((now, true, region));
            now += 25;
            unsafe { t.exit(region, c.at(now)) };
            want.push((now, false, region));
        }
        tb.write_at_end(now + 1, 1, 1);
        assert_eq!(tb.dropped.load(Relaxed), 0);
        let file = regio_trace_format::decode(&std::fs::read(&path).unwrap()).unwrap();
        assert!(file.truncated.is_none());
        let mut flushes = 0;
        let mut got = Vec::new();
        for r in file.records {
            use regio_trace_format::Event;
            match r.event {
                Event::Enter { region } => got.push((r.ticks, true, region)),
                Event::Exit { region } => got.push((r.ticks, false, region)),
                Event::BufferFlush { .. } => flushes += 1,
                Event::ClockRate { .. } => {}
                e => panic!("unexpected event {e:?}"),
            }
        }
        assert_eq!(got, want);
        // 10 000 records of 4 bytes in blocks of at least 7/8 of 4 KiB.
        assert!((8..=12).contains(&flushes), "{flushes} write-outs");
    }

    #[test]
    fn no_exit_closes_a_virtual_frame() {
        // Region u32::MAX included: no region's exit matches a virtual
        // frame's key, on the profile's path or on the trace's.
        for traced in [false, true] {
            let t = ThreadState::for_fake_clock(1);
            if traced {
                t.set_trace(TraceBuf::for_test(1 << 16, 0, 0));
            }
            let c = Fake(Cell::new(0));
            unsafe {
                t.enter(1, c.at(10));
                t.push_virtual(t.top_node(), 20);
                t.exit(u32::MAX, c.at(30));
                t.exit_paired(u32::MAX, c.at(31));
                assert_eq!(t.depth(), 3, "traced: {traced}");
                assert!(t.pop_virtual());
                t.exit(1, c.at(40));
            }
            assert_eq!(t.depth(), 1);
            assert_eq!(nodes(&t, 40)[0].2, tot(1, 0, 30, 30, 30, 30));
            if let Some(tb) = t.trace() {
                assert_eq!(records(tb), vec![(10, true, 1), (40, false, 1)]);
            }
        }
    }

    #[test]
    fn nesting_is_exact() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        unsafe {
            t.enter(1, c.at(0)); // main
            for i in 0..3 {
                let b = 10 + i * 100;
                t.enter(2, c.at(b)); // loop body: f
                t.enter(3, c.at(b + 10)); // g inside f
                t.exit(3, c.at(b + 30 + i));
                t.exit(2, c.at(b + 50));
            }
            t.exit(1, c.at(1000));
        }
        assert_eq!(t.depth(), 1);
        let n = nodes(&t, 1000);
        assert_eq!(n.len(), 3);
        assert_eq!(n[0], (ROOT, 1, tot(1, 0, 1000, 850, 1000, 1000)));
        assert_eq!(n[1], (1, 2, tot(3, 0, 150, 87, 50, 50)));
        assert_eq!(n[2], (2, 3, tot(3, 0, 63, 63, 20, 22)));
        let excl: u64 = n.iter().map(|x| x.2.exclusive).sum();
        assert_eq!(excl, n[0].2.inclusive);
    }

    #[test]
    fn direct_recursion_folds_onto_one_node() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        unsafe {
            // f(3) -> f(2) -> f(1), each level enters at +10 and leaves 10
            // after its child.
            for (i, s) in [0u64, 10, 20].iter().enumerate() {
                t.enter(7, c.at(*s));
                assert_eq!(t.depth(), i + 2);
            }
            for e in [30u64, 40, 50] {
                t.exit(7, c.at(e));
            }
        }
        let n = nodes(&t, 50);
        assert_eq!(n.len(), 1);
        // Inclusive only from the outermost frame; exclusive sums to it.
        assert_eq!(n[0].2, tot(3, 2, 50, 50, 50, 50));
    }

    #[test]
    fn mutual_recursion_is_bounded_and_exact() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        let depth = 50u64;
        unsafe {
            for i in 0..depth {
                t.enter([1, 2][(i % 2) as usize], c.at(i));
            }
            for i in 0..depth {
                let region = [1, 2][((depth - 1 - i) % 2) as usize];
                t.exit(region, c.at(depth + i));
            }
        }
        let n = nodes(&t, 100);
        assert_eq!(n.len(), 2, "graph must not grow with recursion depth");
        assert_eq!((n[0].0, n[0].1), (ROOT, 1));
        assert_eq!((n[1].0, n[1].1), (1, 2));
        assert_eq!(n[0].2.calls + n[1].2.calls, depth);
        assert_eq!(n[0].2.recursive_calls, depth / 2 - 1);
        assert_eq!(n[1].2.recursive_calls, depth / 2 - 1);
        assert_eq!(n[0].2.inclusive, 2 * depth - 1);
        assert_eq!(n[1].2.inclusive, 2 * depth - 1 - 1 - 1);
        assert_eq!(n[0].2.exclusive + n[1].2.exclusive, n[0].2.inclusive);
    }

    #[test]
    fn folds_match_the_ancestor_rule_on_random_walks() {
        // Random enters and exits over few regions (so regions have nodes
        // in many contexts, open and closed), some through child_of as the
        // OpenMP attach path uses it: every child-map entry must be a new
        // child or the innermost ancestor with the region, never another.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..20 {
            let t = ThreadState::for_fake_clock(1);
            let c = Fake(Cell::new(0));
            let mut open: Vec<u32> = Vec::new();
            for step in 0..2000u64 {
                unsafe {
                    match rand(10) {
                        0..=5 => {
                            let r = 1 + rand(6) as u32;
                            t.enter(r, c.at(step));
                            open.push(r);
                        }
                        6..=8 => {
                            if let Some(r) = open.pop() {
                                t.exit(r, c.at(step));
                            }
                        }
                        _ => {
                            let top = &*t.top_node();
                            t.child_of(top, 1 + rand(6) as u32);
                        }
                    }
                }
            }
            let map = unsafe { &*t.children.get() };
            for (k, v) in map.entries() {
                let (parent, region) = ((k >> 32) as u32, k as u32);
                if parent == u32::MAX {
                    continue;
                }
                let child = unsafe { &*v };
                assert_eq!(child.region, region);
                // The innermost ancestor-or-self of `parent` with `region`.
                let mut fold = None;
                let mut n = parent;
                while n != ROOT {
                    if t.arena.get(n).region == region {
                        fold = Some(n);
                        break;
                    }
                    n = t.arena.get(n).parent;
                }
                match fold {
                    Some(a) => assert_eq!(child.index, a, "({parent}, {region})"),
                    None => assert_eq!(child.parent, parent, "({parent}, {region})"),
                }
            }
        }
    }

    /// A clock whose reads at chosen moments run a "signal handler" that
    /// enters and leaves region 99 on the same thread, in the middle of
    /// the probe reading the clock.
    struct Interrupting<'a> {
        t: &'a ThreadState,
        now: Cell<u64>,
        reads: Cell<u64>,
        every: u64,
    }
    impl Clock for Interrupting<'_> {
        fn now(&self) -> u64 {
            let n = self.reads.get() + 1;
            self.reads.set(n);
            if n.is_multiple_of(self.every) {
                let inner = Fake(Cell::new(self.now.get()));
                unsafe {
                    self.t.enter(99, &inner);
                    self.t.exit(99, &inner);
                }
            }
            self.now.get()
        }
    }

    #[test]
    fn probes_interrupting_a_probe_are_dropped_and_counted() {
        let t = ThreadState::for_fake_clock(1);
        let c = Interrupting {
            t: &t,
            now: Cell::new(0),
            reads: Cell::new(0),
            every: 3,
        };
        unsafe {
            for i in 0..30u64 {
                c.now.set(10 * i);
                t.enter(1, &c);
                c.now.set(10 * i + 2);
                t.enter(2, &c);
                c.now.set(10 * i + 5);
                t.exit(2, &c);
                c.now.set(10 * i + 9);
                t.exit(1, &c);
            }
        }
        // 120 clock reads, every third interrupted: 40 handler entries,
        // all inside a probe, so none is recorded and the graph is exact.
        assert_eq!(t.depth(), 1);
        assert_eq!(t.dropped.load(Relaxed), 40);
        let n = nodes(&t, 300);
        assert_eq!(n.len(), 2, "{n:?}");
        assert_eq!(n[0].2, tot(30, 0, 270, 180, 9, 9));
        assert_eq!(n[1].2, tot(30, 0, 90, 90, 3, 3));
    }

    #[test]
    fn a_handler_between_probes_nests_under_the_interrupted_region() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        unsafe {
            t.enter(1, c.at(0));
            // The handler runs while region 1's code runs, not in a probe.
            t.enter(99, c.at(4));
            t.exit(99, c.at(6));
            t.exit(1, c.at(10));
        }
        assert_eq!(t.dropped.load(Relaxed), 0);
        let n = nodes(&t, 10);
        assert_eq!((n[1].0, n[1].1), (1, 99));
        assert_eq!(n[0].2, tot(1, 0, 10, 8, 10, 10));
        assert_eq!(n[1].2, tot(1, 0, 2, 2, 2, 2));
    }

    #[test]
    fn missing_exits_are_recovered_at_one_timestamp() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        unsafe {
            t.enter(1, c.at(0));
            t.enter(2, c.at(10));
            t.enter(3, c.at(20));
            t.exit(9, c.at(25)); // never entered: ignored
            assert_eq!(t.depth(), 4);
            t.exit(1, c.at(40)); // closes 3, 2 and 1 at 40
        }
        assert_eq!(t.depth(), 1);
        let n = nodes(&t, 40);
        assert_eq!(n[0].2, tot(1, 0, 40, 10, 40, 40));
        assert_eq!(n[1].2, tot(1, 0, 30, 10, 30, 30));
        assert_eq!(n[2].2, tot(1, 0, 20, 20, 20, 20));
    }

    #[test]
    fn open_frames_are_accounted_up_to_the_end_without_popping() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        unsafe {
            t.enter(1, c.at(0));
            t.enter(2, c.at(10));
            t.exit(2, c.at(20));
            t.enter(2, c.at(30));
            t.enter(2, c.at(35)); // recursive
        }
        let n = nodes(&t, 100);
        assert_eq!(t.depth(), 4);
        assert_eq!(n[0].2.open, 1);
        assert_eq!((n[0].2.inclusive, n[0].2.exclusive), (100, 20));
        // Node 2: closed call 10, open outer frame 70, open recursive frame 65.
        let b = n[1].2;
        assert_eq!((b.open, b.calls, b.recursive_calls), (2, 3, 1));
        assert_eq!((b.inclusive, b.min, b.max), (80, 10, 70));
        assert_eq!(b.exclusive, 10 + 5 + 65);
        assert_eq!(n[0].2.exclusive + b.exclusive, 100);
    }

    #[test]
    fn deep_stacks_grow_and_keep_their_frames() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        let n = 3 * INITIAL_FRAMES as u32;
        unsafe {
            for r in 0..n {
                t.enter(r, c.at(r as u64));
            }
            assert_eq!(t.depth(), n as usize + 1);
            for r in (0..n).rev() {
                t.exit(r, c.at(2 * n as u64 - r as u64));
            }
        }
        assert_eq!(t.depth(), 1);
        let all = nodes(&t, 0);
        assert_eq!(all.len(), n as usize);
        assert_eq!(all[0].2.inclusive, 2 * n as u64);
        let excl: u64 = all.iter().map(|x| x.2.exclusive).sum();
        assert_eq!(excl, 2 * n as u64);
    }

    #[test]
    fn cache_and_map_agree_when_siblings_alternate() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        unsafe {
            t.enter(1, c.at(0));
            for i in 0..100u64 {
                let r = 2 + (i % 3) as u32;
                t.enter(r, c.at(i * 10));
                t.exit(r, c.at(i * 10 + 1));
            }
            t.exit(1, c.at(1000));
        }
        let n = nodes(&t, 1000);
        assert_eq!(n.len(), 4);
        assert_eq!(n[1].2.calls + n[2].2.calls + n[3].2.calls, 100);
        assert_eq!(n[1].2.calls, 34);
    }

    #[test]
    fn async_polls_count_one_call_and_record_the_span() {
        let t = ThreadState::for_fake_clock(1);
        let c = Fake(Cell::new(0));
        unsafe {
            // Three polls of one future: busy 10 + 5 + 20, waiting between.
            let first = t.enter_poll(4, c.at(100), true);
            t.exit_poll(4, c.at(110), None);
            t.enter_poll(4, c.at(200), false);
            t.exit_poll(4, c.at(205), None);
            t.enter_poll(4, c.at(300), false);
            t.enter(5, c.at(305)); // a child inside the last poll
            t.exit(5, c.at(315));
            t.exit_poll(4, c.at(320), Some(first));
        }
        let n = nodes(&t, 400);
        let f = n[0].2;
        assert_eq!((f.calls, f.polls), (1, 3));
        assert_eq!((f.inclusive, f.exclusive), (35, 25));
        assert_eq!(f.span, 220);
        assert_eq!(n[1].2.calls, 1);
    }
}
