//! The frame stack's entries and how a writer reads them.
//!
//! A `Frame` is one open region instance on a thread's stack. The owner
//! writes frames (`thread`); the profile writer and the counters read a
//! snapshot of them here (`StackIndex`, `totals`), possibly from another
//! thread or a signal handler, so every field is an atomic.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering::*};

use crate::node::Node;

/// `key` of a frame: region id shifted left, recursion flag in bit 0. The
/// root frame's key, u64::MAX, shifts to a value no u32 id can equal, so the
/// exit fast path needs one comparison.
#[inline(always)]
pub fn frame_key(region: u32, recursive: bool) -> u64 {
    (region as u64) << 1 | recursive as u64
}

pub const ROOT_KEY: u64 = u64::MAX;

/// Key of a virtual frame: like the root's, it shifts to a value no u32
/// id can equal, so no exit's region compare matches it (the exits need
/// no test of their own for it), and it has the recursion bit set, so
/// even a forced pop adds no inclusive time.
pub const VIRTUAL_KEY: u64 = u64::MAX - 2;

const _: () = assert!(VIRTUAL_KEY >> 1 > u32::MAX as u64);
const _: () = assert!(VIRTUAL_KEY & 1 == 1 && VIRTUAL_KEY != ROOT_KEY);

/// One open region instance.
#[repr(C)]
pub struct Frame {
    pub key: AtomicU64,
    pub node: AtomicPtr<Node>,
    /// Tick of entry.
    pub start: AtomicU64,
    /// Ticks spent in closed child frames.
    pub child: AtomicU64,
}

impl Frame {
    #[inline]
    pub fn recursive(&self) -> bool {
        self.key.load(Relaxed) & 1 == 1
    }
}

pub fn alloc_frames(n: usize) -> *mut Frame {
    let mut v: Vec<Frame> = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(Frame {
            key: AtomicU64::new(0),
            node: AtomicPtr::new(ptr::null_mut()),
            start: AtomicU64::new(0),
            child: AtomicU64::new(0),
        });
    }
    // Leaked on purpose: a reader may still hold the old stack after growth.
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// What a node's figures are when written, open frames included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeTotals {
    pub calls: u64,
    pub recursive_calls: u64,
    pub inclusive: u64,
    pub exclusive: u64,
    /// 0 when the node has no call (completed or open) to measure.
    pub min: u64,
    pub max: u64,
    pub open: u32,
    pub polls: u64,
    pub span: u64,
}

/// Numbers the stack indexes of the profile writer (never 0, which new
/// nodes carry).
static SCAN_EPOCH: AtomicU32 = AtomicU32::new(0);

/// A stack snapshot with the frames of each node found in one pass, so
/// the figures of every open node are written in time linear in the stack
/// depth: the writer would otherwise scan the whole stack once per open
/// node, quadratic for a deep chain.
///
/// The frames of one node are chained from its lowest one (`Node::
/// scan_head`, valid in this index's epoch) through `next`, a scratch
/// array of `depth` entries the caller provides; without one, each query
/// scans the stack.
pub struct StackIndex {
    stack: *const Frame,
    depth: usize,
    next: *mut u32,
    epoch: u32,
}

impl StackIndex {
    /// # Safety
    /// `stack` must point to at least `depth` frames; `next` must be null
    /// or point to `depth` writable entries, unused until the index is
    /// dropped; only the holder of the writer lock may build an index with
    /// `next` (it writes the nodes' scan fields).
    pub unsafe fn new(stack: *const Frame, depth: usize, next: *mut u32) -> StackIndex {
        let mut epoch = 0;
        if !next.is_null() && depth <= u32::MAX as usize {
            epoch = SCAN_EPOCH.fetch_add(1, Relaxed).wrapping_add(1);
            if epoch == 0 {
                epoch = SCAN_EPOCH.fetch_add(1, Relaxed).wrapping_add(1);
            }
            for i in (1..depth).rev() {
                let node = &*(*stack.add(i)).node.load(Relaxed);
                let higher = if node.scan_epoch.load(Relaxed) == epoch {
                    node.scan_head.load(Relaxed)
                } else {
                    node.scan_epoch.store(epoch, Relaxed);
                    0
                };
                *next.add(i) = higher;
                node.scan_head.store(i as u32, Relaxed);
            }
        }
        StackIndex {
            stack,
            depth,
            next: if epoch == 0 { ptr::null_mut() } else { next },
            epoch,
        }
    }

    /// An index that scans the stack for every query (what a writer without
    /// scratch space gets).
    ///
    /// # Safety
    /// `stack` must point to at least `depth` frames.
    #[cfg(test)]
    pub unsafe fn scanning(stack: *const Frame, depth: usize) -> StackIndex {
        StackIndex::new(stack, depth, ptr::null_mut())
    }

    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Frame `i` (below `depth`).
    pub fn frame(&self, i: usize) -> &Frame {
        debug_assert!(i < self.depth);
        // SAFETY: `new` requires `depth` frames at `stack`.
        unsafe { &*self.stack.add(i) }
    }

    /// Stack positions of the frames of `node`, lowest first.
    pub fn frames_of<'a>(&'a self, node: &'a Node) -> FramesOf<'a> {
        let at = if self.next.is_null() {
            1
        } else if node.scan_epoch.load(Relaxed) == self.epoch {
            node.scan_head.load(Relaxed) as usize
        } else {
            0
        };
        FramesOf {
            index: self,
            node,
            at,
        }
    }
}

/// Iterator of [`StackIndex::frames_of`].
pub struct FramesOf<'a> {
    index: &'a StackIndex,
    node: *const Node,
    /// Scanning: the next position to look at; chained: the next frame of
    /// the node, 0 at the end.
    at: usize,
}

impl Iterator for FramesOf<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let x = self.index;
        if x.next.is_null() {
            while self.at < x.depth {
                let i = self.at;
                self.at += 1;
                if ptr::eq(x.frame(i).node.load(Relaxed), self.node) {
                    return Some(i);
                }
            }
            return None;
        }
        let i = self.at;
        if i == 0 || i >= x.depth {
            return None;
        }
        // SAFETY: i < depth, the length of `next`; chains only go up.
        let higher = unsafe { *x.next.add(i) } as usize;
        self.at = if higher > i { higher } else { 0 };
        Some(i)
    }
}

/// Figures of `node` with its frames still open on the indexed stack
/// accounted up to `end` as if they closed then (without closing them).
///
/// An open frame's exclusive time ends where its open child frame began;
/// its inclusive time (outermost frames only) runs to `end`, and that
/// partial duration also takes part in min and max.
pub fn totals(node: &Node, stack: &StackIndex, end: u64) -> NodeTotals {
    let mut t = NodeTotals {
        calls: node.calls.load(Relaxed),
        recursive_calls: node.recursive_calls.load(Relaxed),
        inclusive: node.inclusive.load(Relaxed),
        exclusive: node.exclusive.load(Relaxed),
        min: node.min.load(Relaxed),
        max: node.max.load(Relaxed),
        open: 0,
        polls: node.polls.load(Relaxed),
        span: node.span.load(Relaxed),
    };
    for i in stack.frames_of(node) {
        let f = stack.frame(i);
        t.open += 1;
        let start = f.start.load(Relaxed);
        let next_start = if i + 1 < stack.depth() {
            stack.frame(i + 1).start.load(Relaxed)
        } else {
            end
        };
        t.exclusive += next_start
            .saturating_sub(start)
            .saturating_sub(f.child.load(Relaxed));
        if !f.recursive() {
            let dur = end.saturating_sub(start);
            t.inclusive += dur;
            t.min = t.min.min(dur);
            t.max = t.max.max(dur);
        }
    }
    if t.min == u64::MAX {
        t.min = 0;
    }
    t
}
