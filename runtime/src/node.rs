//! DRG nodes and the per-thread arena that holds them.
//!
//! The arena is a fixed array of chunk pointers; chunk `k` holds
//! `FIRST_CHUNK << k` nodes and is never moved or freed once allocated. So a
//! `&Node` stays valid forever (probes keep raw pointers to nodes in their
//! frames and caches), and another thread or a signal handler can read every
//! node below the published length while the owner keeps appending.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};

/// Arena index of the hidden root node every thread starts with; it stands
/// for "no region active" and is not written out.
pub const ROOT: u32 = 0;

/// Region id of the hidden root node (never compared against probe ids: the
/// root frame's key cannot match any u32, see `thread::frame_key`).
pub const ROOT_REGION: u32 = u32::MAX;

const FIRST_CHUNK_BITS: u32 = 6;
const FIRST_CHUNK: u64 = 1 << FIRST_CHUNK_BITS;
/// 64 * (2^27 - 1) nodes exceed the u32 index space, so the arena never
/// runs out of chunk slots before indices run out.
const CHUNKS: usize = 27;

/// Adds to a counter only the owning thread writes: a relaxed load and a
/// store, which on x86 are two plain moves (no `lock` prefix), while readers
/// on other threads still see a whole value.
#[inline(always)]
pub fn bump(counter: &AtomicU64, by: u64) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(by),
        Ordering::Relaxed,
    );
}

/// One region in the context of its parent node.
pub struct Node {
    /// One-entry cache of the last child looked up from this node; only the
    /// owning thread touches it.
    cache_key: UnsafeCell<u64>,
    cache_child: UnsafeCell<*const Node>,
    /// Frames of this node currently on the owner's stack.
    pub open: AtomicU32,
    pub calls: AtomicU64,
    pub recursive_calls: AtomicU64,
    /// Ticks, outermost frames only.
    pub inclusive: AtomicU64,
    /// Ticks, every frame.
    pub exclusive: AtomicU64,
    /// Ticks per outermost call; `min` starts at u64::MAX.
    pub min: AtomicU64,
    pub max: AtomicU64,
    /// Async regions only: polls, and ticks from first poll to completion
    /// summed over the futures that completed in this context.
    pub polls: AtomicU64,
    pub span: AtomicU64,
    /// Counter totals (`counters::ThreadCounters::len` of them), allocated
    /// when a thread with counters first enters the node; null otherwise.
    pub counters: AtomicPtr<AtomicU64>,
    pub index: u32,
    pub parent: u32,
    pub region: u32,
    /// Index of the next older node of the same region on this thread (the
    /// root, 0, ends the list); the head is in the thread's child map. Set
    /// at creation, read by the recursion-fold check only.
    pub next_same: u32,
    /// The profile writer's scratch (only the thread holding the writer
    /// lock touches them): in the stack index numbered `scan_epoch`, the
    /// lowest frame of this node is `scan_head` (see `frames::StackIndex`).
    pub scan_epoch: AtomicU32,
    pub scan_head: AtomicU32,
}

// SAFETY: the UnsafeCell fields are only accessed by the owning thread (see
// `cached_child` / `set_cache`); everything other threads read is atomic or
// immutable after publication.
unsafe impl Sync for Node {}

impl Node {
    fn new(index: u32, parent: u32, region: u32, next_same: u32) -> Node {
        Node {
            cache_key: UnsafeCell::new(u64::MAX),
            cache_child: UnsafeCell::new(ptr::null()),
            open: AtomicU32::new(0),
            calls: AtomicU64::new(0),
            recursive_calls: AtomicU64::new(0),
            inclusive: AtomicU64::new(0),
            exclusive: AtomicU64::new(0),
            min: AtomicU64::new(u64::MAX),
            max: AtomicU64::new(0),
            polls: AtomicU64::new(0),
            span: AtomicU64::new(0),
            counters: AtomicPtr::new(ptr::null_mut()),
            index,
            parent,
            region,
            next_same,
            scan_epoch: AtomicU32::new(0),
            scan_head: AtomicU32::new(0),
        }
    }

    /// Forgets what was measured (a forked child's fresh start; `fork`),
    /// keeping the node and, when its frames stay open, their count.
    pub fn clear(&self, keep_open: bool) {
        if !keep_open {
            self.open.store(0, Ordering::Relaxed);
        }
        for v in [
            &self.calls,
            &self.recursive_calls,
            &self.inclusive,
            &self.exclusive,
            &self.max,
            &self.polls,
            &self.span,
        ] {
            v.store(0, Ordering::Relaxed);
        }
        self.min.store(u64::MAX, Ordering::Relaxed);
    }

    /// The cached child for `region`, or null.
    ///
    /// # Safety
    /// Only the owning thread may call this.
    #[inline(always)]
    pub unsafe fn cached_child(&self, region: u32) -> *const Node {
        if *self.cache_key.get() == region as u64 {
            *self.cache_child.get()
        } else {
            ptr::null()
        }
    }

    /// # Safety
    /// Only the owning thread may call this.
    #[inline]
    pub unsafe fn set_cache(&self, region: u32, child: *const Node) {
        *self.cache_key.get() = region as u64;
        *self.cache_child.get() = child;
    }
}

/// Chunk number and offset of node `index`.
#[inline]
fn locate(index: u32) -> (usize, usize) {
    let v = index as u64 + FIRST_CHUNK;
    let k = (63 - v.leading_zeros() - FIRST_CHUNK_BITS) as usize;
    (k, (v - (FIRST_CHUNK << k)) as usize)
}

fn chunk_len(k: usize) -> usize {
    (FIRST_CHUNK as usize) << k
}

/// Append-only node storage of one thread.
pub struct Arena {
    chunks: [AtomicPtr<Node>; CHUNKS],
    len: AtomicU32,
}

impl Arena {
    /// An arena holding only the hidden root node.
    pub fn new() -> Arena {
        let a = Arena {
            chunks: [const { AtomicPtr::new(ptr::null_mut()) }; CHUNKS],
            len: AtomicU32::new(0),
        };
        // SAFETY: the arena is not shared yet.
        let root = unsafe { a.push(ROOT, ROOT_REGION, ROOT) };
        debug_assert!(root.is_some());
        a
    }

    /// Published number of nodes (root included).
    #[inline]
    pub fn len(&self) -> u32 {
        self.len.load(Ordering::Acquire)
    }

    /// Node `index`; `index` must be below a value `len()` returned.
    #[inline]
    pub fn get(&self, index: u32) -> &Node {
        let (k, off) = locate(index);
        let chunk = self.chunks[k].load(Ordering::Acquire);
        debug_assert!(!chunk.is_null());
        // SAFETY: nodes below the published length are initialised, and
        // chunks are never freed or moved.
        unsafe { &*chunk.add(off) }
    }

    /// Appends a node and publishes it; None when the index space is full.
    /// `next_same`: the previous node of the same region (ROOT for none).
    ///
    /// # Safety
    /// Only the owning thread may append.
    pub unsafe fn push(&self, parent: u32, region: u32, next_same: u32) -> Option<&Node> {
        let index = self.len.load(Ordering::Relaxed);
        if index >= u32::MAX - 1 {
            return None;
        }
        let (k, off) = locate(index);
        let mut chunk = self.chunks[k].load(Ordering::Relaxed);
        if chunk.is_null() {
            // Leaked on purpose: nodes must outlive their thread.
            let mut mem: Vec<MaybeUninit<Node>> = Vec::with_capacity(chunk_len(k));
            chunk = mem.as_mut_ptr().cast::<Node>();
            std::mem::forget(mem);
            self.chunks[k].store(chunk, Ordering::Release);
        }
        let slot = chunk.add(off);
        slot.write(Node::new(index, parent, region, next_same));
        // Release: a reader that sees the new length sees the node's fields.
        self.len.store(index + 1, Ordering::Release);
        Some(&*slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_contiguous_and_doubling() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(63), (0, 63));
        assert_eq!(locate(64), (1, 0));
        assert_eq!(locate(191), (1, 127));
        assert_eq!(locate(192), (2, 0));
        let (k, off) = locate(u32::MAX - 2);
        assert!(k < CHUNKS && off < chunk_len(k));
    }

    #[test]
    fn nodes_never_move_while_the_arena_grows() {
        let a = Arena::new();
        let first = a.get(ROOT) as *const Node;
        for i in 1..1000u32 {
            // SAFETY: single-threaded test owns the arena.
            let n = unsafe { a.push(i - 1, i, ROOT) }.map(|n| n as *const Node);
            assert_eq!(n, Some(a.get(i) as *const Node));
        }
        assert_eq!(a.len(), 1000);
        assert_eq!(first, a.get(ROOT) as *const Node);
        assert_eq!(a.get(999).parent, 998);
        assert_eq!(a.get(999).region, 999);
    }
}
