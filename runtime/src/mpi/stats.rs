//! Li & Zhang's communication record: per DRG node of an MPI call and per
//! peer (world rank), the messages, bytes and time, kept per thread in a
//! fixed open-addressing table.
//!
//! A thread's table is allocated the first time it records a message (off
//! the probe fast path, once per thread) and leaked like its thread state,
//! so the profile writer can read it at exit or from a signal handler.
//! After that, recording takes no lock, allocates nothing and makes no
//! system call: the owner updates an entry with relaxed load/store pairs
//! (readers see whole values). When the table is full, further (node,
//! peer, direction) combinations are counted in `dropped` only. A forked
//! child starts with empty tables.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, Ordering::*};

use crate::node::bump;
use crate::thread::ThreadState;

/// Entries per thread: distinct (node, peer, direction) triples.
pub const CAPACITY: usize = 4096;

/// What a record counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Direction {
    /// Point-to-point messages this process sent to `peer`.
    Send = 1,
    /// Point-to-point messages this process received from `peer`.
    Recv = 2,
    /// Collective operations; `peer` is the root's world rank, or -1.
    Collective = 3,
}

impl Direction {
    pub fn name(self) -> &'static [u8] {
        match self {
            Direction::Send => b"send",
            Direction::Recv => b"recv",
            Direction::Collective => b"collective",
        }
    }

    fn from_u8(v: u8) -> Option<Direction> {
        match v {
            1 => Some(Direction::Send),
            2 => Some(Direction::Recv),
            3 => Some(Direction::Collective),
            _ => None,
        }
    }
}

/// Peer of a receive whose source stayed `MPI_ANY_SOURCE` (no status to
/// read it from).
pub const ANY_SOURCE: i32 = -2;
/// Peer of a collective without a root.
pub const NO_ROOT: i32 = -1;

pub struct Entry {
    /// 0 = free; else `Direction`. Written last when an entry is claimed.
    direction: AtomicU8,
    /// Arena index of the node (the hidden root is 0, never used).
    node: AtomicU32,
    peer: AtomicI32,
    pub messages: AtomicU64,
    /// Bytes sent (send, collective) or received (recv).
    pub bytes: AtomicU64,
    /// A collective's bytes received (0 for point-to-point records).
    pub received: AtomicU64,
    /// Ticks.
    pub time: AtomicU64,
}

/// One thread's records.
pub struct Table {
    /// The thread state whose nodes the records refer to.
    pub owner: *const ThreadState,
    entries: Box<[Entry]>,
    /// Records that found the table full.
    pub dropped: AtomicU64,
    /// Next (older) table in the process list.
    next: AtomicPtr<Table>,
}

// SAFETY: only the owner writes (atomics); `owner` is immutable.
unsafe impl Sync for Table {}
unsafe impl Send for Table {}

static HEAD: AtomicPtr<Table> = AtomicPtr::new(ptr::null_mut());

thread_local! {
    static MINE: Cell<*const Table> = const { Cell::new(ptr::null()) };
}

impl Table {
    fn new(owner: *const ThreadState) -> Table {
        let entries = (0..CAPACITY)
            .map(|_| Entry {
                direction: AtomicU8::new(0),
                node: AtomicU32::new(0),
                peer: AtomicI32::new(0),
                messages: AtomicU64::new(0),
                bytes: AtomicU64::new(0),
                received: AtomicU64::new(0),
                time: AtomicU64::new(0),
            })
            .collect();
        Table {
            owner,
            entries,
            dropped: AtomicU64::new(0),
            next: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Adds one record (owner thread only); `bytes`: (sent or received,
    /// a collective's received).
    pub fn add(
        &self,
        node: u32,
        peer: i32,
        dir: Direction,
        messages: u64,
        (bytes, received): (u64, u64),
        ticks: u64,
    ) {
        let h = (node as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add((peer as u32 as u64) << 2 | dir as u64)
            .wrapping_mul(0xff51_afd7_ed55_8ccd);
        let mut i = (h >> 32) as usize % CAPACITY;
        for _ in 0..CAPACITY {
            let e = &self.entries[i];
            match e.direction.load(Relaxed) {
                0 => {
                    e.node.store(node, Relaxed);
                    e.peer.store(peer, Relaxed);
                    e.messages.store(messages, Relaxed);
                    e.bytes.store(bytes, Relaxed);
                    e.received.store(received, Relaxed);
                    e.time.store(ticks, Relaxed);
                    e.direction.store(dir as u8, Release);
                    return;
                }
                d if d == dir as u8
                    && e.node.load(Relaxed) == node
                    && e.peer.load(Relaxed) == peer =>
                {
                    bump(&e.messages, messages);
                    bump(&e.bytes, bytes);
                    bump(&e.received, received);
                    bump(&e.time, ticks);
                    return;
                }
                _ => i = (i + 1) % CAPACITY,
            }
        }
        bump(&self.dropped, 1);
    }

    /// Forgets every record.
    fn clear(&self) {
        for e in self.entries.iter() {
            e.direction.store(0, Relaxed);
        }
        self.dropped.store(0, Relaxed);
    }

    /// The used entries: (node arena index, peer, direction, entry).
    pub fn records(&self) -> impl Iterator<Item = (u32, i32, Direction, &Entry)> {
        self.entries.iter().filter_map(|e| {
            let d = Direction::from_u8(e.direction.load(Acquire))?;
            Some((e.node.load(Relaxed), e.peer.load(Relaxed), d, e))
        })
    }
}

/// The calling thread's table, created for `owner` on first use.
pub fn mine(owner: *const ThreadState) -> &'static Table {
    let t = MINE.with(Cell::get);
    if !t.is_null() {
        // SAFETY: tables are leaked.
        return unsafe { &*t };
    }
    create(owner)
}

/// In a forked child: the parent's messages are not the child's (as
/// `fork` clears the nodes).
extern "C" fn clear_after_fork() {
    let mut p = HEAD.load(Acquire);
    while !p.is_null() {
        // SAFETY: tables are leaked; only this thread runs in the child.
        let t = unsafe { &*p };
        t.clear();
        p = t.next.load(Acquire);
    }
}

#[cold]
#[inline(never)]
fn create(owner: *const ThreadState) -> &'static Table {
    static AT_FORK: std::sync::Once = std::sync::Once::new();
    AT_FORK.call_once(|| {
        // SAFETY: registering a plain extern "C" function. A failure only
        // leaves a forked child with its parent's message records.
        unsafe { libc::pthread_atfork(None, None, Some(clear_after_fork)) };
    });
    let t: &'static Table = Box::leak(Box::new(Table::new(owner)));
    let me = t as *const Table as *mut Table;
    let mut head = HEAD.load(Acquire);
    loop {
        t.next.store(head, Relaxed);
        match HEAD.compare_exchange_weak(head, me, AcqRel, Acquire) {
            Ok(_) => break,
            Err(h) => head = h,
        }
    }
    MINE.with(|m| m.set(t));
    t
}

/// The table whose records refer to `owner`'s nodes, if it has one.
pub fn of_thread(owner: *const ThreadState) -> Option<&'static Table> {
    let mut p = HEAD.load(Acquire);
    while !p.is_null() {
        // SAFETY: tables are leaked and published with Release.
        let t = unsafe { &*p };
        if t.owner == owner {
            return Some(t);
        }
        p = t.next.load(Acquire);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_add_up_per_node_peer_and_direction() {
        let t = Table::new(ptr::null());
        t.add(3, 1, Direction::Send, 1, (8, 0), 10);
        t.add(3, 1, Direction::Send, 1, (8, 0), 5);
        t.add(3, 1, Direction::Recv, 1, (4, 0), 1);
        t.add(4, 2, Direction::Send, 1, (16, 0), 1);
        t.add(5, -1, Direction::Collective, 1, (8, 32), 1);
        t.add(5, -1, Direction::Collective, 1, (8, 32), 1);
        let mut got: Vec<_> = t
            .records()
            .map(|(n, p, d, e)| {
                (
                    n,
                    p,
                    d as u8,
                    e.messages.load(Relaxed),
                    e.bytes.load(Relaxed),
                    e.received.load(Relaxed),
                    e.time.load(Relaxed),
                )
            })
            .collect();
        got.sort_unstable();
        assert_eq!(
            got,
            vec![
                (3, 1, 1, 2, 16, 0, 15),
                (3, 1, 2, 1, 4, 0, 1),
                (4, 2, 1, 1, 16, 0, 1),
                (5, -1, 3, 2, 16, 64, 2)
            ]
        );
    }

    #[test]
    fn a_full_table_counts_what_it_drops() {
        let t = Table::new(ptr::null());
        for n in 0..CAPACITY as u32 + 3 {
            t.add(n + 1, 0, Direction::Send, 1, (1, 0), 1);
        }
        assert_eq!(t.records().count(), CAPACITY);
        assert_eq!(t.dropped.load(Relaxed), 3);
    }
}
