//! The data of OpenMP teams: one `Team` per fork, and each thread's
//! `OmpState` (the teams it forked, where it last attached). Only data:
//! the fork/begin/end/join logic on it is in `omp`, above the thread state
//! that holds an `OmpState`.

use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64};

use crate::node::{Arena, Node};
use crate::trace::TraceBuf;

/// Team threads whose join is timed; more are measured but get no J.
pub(super) const MAX_TEAM: usize = 1024;
/// Nesting levels of parallel regions one thread can fork.
pub(super) const MAX_NEST: usize = 8;

/// One forked team, owned by its master thread.
pub struct Team {
    pub(super) region: AtomicU32,
    pub(super) fork_tick: AtomicU64,
    /// The master thread, known by its node arena: what a worker reads to
    /// mirror the master's path, and unique to one thread state.
    pub(super) master: AtomicPtr<Arena>,
    /// The master's node of the parallel region.
    pub(super) master_node: AtomicPtr<Node>,
    /// Threads that reached `end`; each took the next slot.
    pub(super) ended: AtomicU32,
    pub(super) master_slot: AtomicU32,
    pub(super) ends: [AtomicU64; MAX_TEAM],
    /// J node of the thread in each slot; published (Release) after `ends`.
    pub(super) joins: [AtomicPtr<Node>; MAX_TEAM],
    /// Process-wide number of the current fork (trace `omp_team_*` events
    /// name the team by it; the `Team` itself is reused across forks).
    pub(super) serial: AtomicU64,
    /// Trace mode: the trace buffer of the worker in each slot whose join
    /// span is open (the master gives it the join tick).
    pub(super) traces: [AtomicPtr<TraceBuf>; MAX_TEAM],
}

impl Team {
    pub(super) fn new() -> Team {
        Team {
            region: AtomicU32::new(0),
            fork_tick: AtomicU64::new(0),
            master: AtomicPtr::new(ptr::null_mut()),
            master_node: AtomicPtr::new(ptr::null_mut()),
            ended: AtomicU32::new(0),
            master_slot: AtomicU32::new(u32::MAX),
            ends: [const { AtomicU64::new(0) }; MAX_TEAM],
            joins: [const { AtomicPtr::new(ptr::null_mut()) }; MAX_TEAM],
            serial: AtomicU64::new(0),
            traces: [const { AtomicPtr::new(ptr::null_mut()) }; MAX_TEAM],
        }
    }
}

/// Per-thread OpenMP state; only the owning thread touches it.
pub struct OmpState {
    pub(super) teams: UnsafeCell<[*mut Team; MAX_NEST]>,
    /// Teams this thread has forked and not yet joined.
    pub(super) forked: UnsafeCell<usize>,
    /// Last master parallel node this thread attached under, and the node
    /// of its own arena that mirrors that node's parent.
    pub(super) attach_key: UnsafeCell<*const Node>,
    pub(super) attach_node: UnsafeCell<*const Node>,
}

impl OmpState {
    pub fn new() -> OmpState {
        OmpState {
            teams: UnsafeCell::new([ptr::null_mut(); MAX_NEST]),
            forked: UnsafeCell::new(0),
            attach_key: UnsafeCell::new(ptr::null()),
            attach_node: UnsafeCell::new(ptr::null()),
        }
    }
}
