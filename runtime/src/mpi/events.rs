//! Where a measured MPI message or collective goes once its figures are
//! known: the profile's communication record (`stats`) today. This is the
//! one place a trace writer hooks in (see notes/handoff-h-mpistats.md):
//! `message` is called on the thread that made the MPI call, from a probe
//! (no lock, no allocation), with the world ranks resolved.

use crate::mpi::stats::{self, Direction};
use crate::thread::ThreadState;

/// One completed message or collective, as the probes measured it.
/// `region`, `tag`, `comm` and `start` are for the trace writer (the
/// profile keeps per node and peer only).
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)]
pub struct Message {
    pub direction: Direction,
    /// Arena index of the DRG node of the MPI call that completed it.
    pub node: u32,
    /// Region id of that call.
    pub region: u32,
    /// World rank of the peer (the root for a collective), or
    /// `stats::ANY_SOURCE` / `stats::NO_ROOT`.
    pub peer: i32,
    pub tag: i32,
    /// The communicator's C handle (see `pmpi`).
    pub comm: u64,
    pub bytes: u64,
    /// Ticks from the call's entry to the record (the probe runs right
    /// after the call returns).
    pub ticks: u64,
    /// Tick at which the call was entered.
    pub start: u64,
}

/// Records `m` for the thread `owner` (the caller's own state).
pub fn message(owner: *const ThreadState, m: &Message) {
    stats::mine(owner).add(m.node, m.peer, m.direction, 1, m.bytes, m.ticks);
    // A trace writer records the event here: trace::record_message(m...)
}
