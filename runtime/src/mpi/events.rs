//! Where a measured MPI message or collective goes once its figures are
//! known: the profile's communication record (`stats`) and, in
//! `REGIO_MODE=trace`, the calling thread's trace. Called on the thread
//! that made the MPI call, from a probe (no lock; no allocation except a
//! communicator's definition the first time the process traces it), with
//! the world ranks resolved.
//!
//! Trace records: a blocking send at the call's entry, a blocking receive
//! at its end, a non-blocking send at the posting call (`mpi_isend`) and
//! its completion in the Wait/Test (`mpi_isend_complete`), a non-blocking
//! receive posted (`mpi_irecv_request`) and completed (`mpi_irecv`), a
//! collective as `mpi_collective_begin` at the call's entry and
//! `mpi_collective_end` at its end. A persistent request's message is
//! posted at the `MPI_Start(all)` that starts it (`mpi_isend` /
//! `mpi_irecv_request`) and completed in its Wait/Test; code whose
//! `Start` was not captured (instrumented before it was) has the post
//! written at the completing call's entry. Message records are left out when `REGIO_EVENTS` does not
//! select `messages`; clock-sync records never are.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use regio_trace_format::{collective, Event};

use crate::mpi::comms::{self, Id};
use crate::mpi::pmpi;
use crate::mpi::stats::{self, Direction};
use crate::select;
use crate::thread::ThreadState;

/// Trace string ids of communicator names start here (user event names
/// take the ids below `user_events::MAX_NAMES`).
const COMM_NAME_BASE: u32 = 1 << 16;

/// One completed message or collective, as the probes measured it.
/// `tag`, `comm`, `comm_peer`, `request` and `start` are for the
/// trace (the profile keeps per node and peer only).
#[derive(Clone, Copy, Debug)]
pub struct Message {
    pub direction: Direction,
    /// Arena index of the DRG node of the MPI call that completed it.
    pub node: u32,
    /// World rank of the peer (the root for a collective), or
    /// `stats::ANY_SOURCE` / `stats::NO_ROOT`.
    pub peer: i32,
    /// The same peer as a rank in `comm` (negative: none or unresolved).
    pub comm_peer: i32,
    pub tag: i32,
    /// The communicator's C handle (see `pmpi`).
    pub comm: u64,
    /// Bytes sent (a collective: this process's share sent) or received
    /// (a point-to-point receive).
    pub bytes: u64,
    /// A collective's bytes received by this process (0 otherwise).
    pub received: u64,
    /// Ticks from the call's entry to the record (the probe runs right
    /// after the call returns).
    pub ticks: u64,
    /// Tick at which the call was entered.
    pub start: u64,
    /// Completed by a Wait/Test: the request (None: a blocking call).
    pub request: Option<Request>,
}

/// A request a completed message came through.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub handle: u64,
    pub persistent: bool,
    /// A persistent request whose post was recorded at its `Start`.
    pub started: bool,
}

/// A non-blocking or persistent message just posted.
#[derive(Clone, Copy, Debug)]
pub struct Post {
    pub send: bool,
    pub persistent: bool,
    /// World rank of the peer.
    pub peer: i32,
    pub comm_peer: i32,
    pub tag: i32,
    pub comm: u64,
    pub bytes: u64,
    pub request: u64,
    /// A persistent request's post at its `MPI_Start(all)`.
    pub started: bool,
}

/// Records `m` for the thread `owner` (the caller's own state) at `now`.
pub fn message(owner: *const ThreadState, m: &Message, now: u64) {
    stats::mine(owner).add(
        m.node,
        m.peer,
        m.direction,
        1,
        (m.bytes, m.received),
        m.ticks,
    );
    // A definition goes before the first record, which may be at the
    // call's entry (a record earlier than the one before it would be
    // moved to that one's time).
    let Some((comm, inter)) = traced_comm(owner, m.comm, m.start) else {
        return;
    };
    // An intercommunicator's peers are world ranks (its definition lists
    // the world), so both groups name them alike.
    let peer = rank(if inter { m.peer } else { m.comm_peer });
    let tag = m.tag as u32;
    let bytes = m.bytes;
    let put = |ticks: u64, e: Event| record(owner, ticks, &e);
    match (m.direction, m.request) {
        (Direction::Send, None) => put(
            m.start,
            Event::MpiSend {
                peer,
                comm,
                tag,
                bytes,
            },
        ),
        (Direction::Recv, None) => put(
            now,
            Event::MpiRecv {
                peer,
                comm,
                tag,
                bytes,
            },
        ),
        (Direction::Send, Some(r)) => {
            if r.persistent && !r.started {
                let request = r.handle;
                put(
                    m.start,
                    Event::MpiIsend {
                        peer,
                        comm,
                        tag,
                        bytes,
                        request,
                    },
                );
            }
            put(now, Event::MpiIsendComplete { request: r.handle });
        }
        (Direction::Recv, Some(r)) => {
            if r.persistent && !r.started {
                put(m.start, Event::MpiIrecvRequest { request: r.handle });
            }
            put(
                now,
                Event::MpiIrecv {
                    peer,
                    comm,
                    tag,
                    bytes,
                    request: r.handle,
                },
            );
        }
        (Direction::Collective, _) => {
            put(m.start, Event::MpiCollectiveBegin);
            put(
                now,
                Event::MpiCollectiveEnd {
                    // The runtime knows no routine names; the reader takes
                    // the operation from the call's region.
                    op: collective::OF_REGION,
                    comm,
                    root: u32::try_from(if inter { inter_root(m) } else { m.comm_peer }).ok(),
                    sent: bytes,
                    received: m.received,
                },
            );
        }
    }
}

/// A non-blocking message posted at tick `at`, the posting call's entry
/// (its completion comes through [`message`]). A persistent request is
/// posted at each `Start`, not where it is made.
pub fn posted(owner: *const ThreadState, p: &Post, at: u64) {
    if p.persistent && !p.started {
        return;
    }
    let Some((comm, inter)) = traced_comm(owner, p.comm, at) else {
        return;
    };
    let e = if p.send {
        Event::MpiIsend {
            peer: rank(if inter { p.peer } else { p.comm_peer }),
            comm,
            tag: p.tag as u32,
            bytes: p.bytes,
            request: p.request,
        }
    } else {
        Event::MpiIrecvRequest { request: p.request }
    };
    record(owner, at, &e);
}

/// Whether `e` is of the `messages` class of `REGIO_EVENTS`.
pub fn is_message(e: &Event) -> bool {
    matches!(
        e,
        Event::MpiSend { .. }
            | Event::MpiRecv { .. }
            | Event::MpiIsend { .. }
            | Event::MpiIsendComplete { .. }
            | Event::MpiIrecvRequest { .. }
            | Event::MpiIrecv { .. }
            | Event::MpiCollectiveBegin
            | Event::MpiCollectiveEnd { .. }
    )
}

/// An intercommunicator collective's root as the trace names it: a world
/// rank. The root itself passes `MPI_ROOT` and is recorded as its own
/// world rank (a member of its local group), so a reader tells it from
/// the rest of its group (`MPI_PROC_NULL`, no root: -1).
fn inter_root(m: &Message) -> i32 {
    match pmpi::consts() {
        Some(c) if m.comm_peer == c.root => {
            pmpi::comm_size_rank(c.comm_world).map_or(-1, |(_, me)| me)
        }
        _ => m.peer,
    }
}

/// A rank as the trace stores it: u32::MAX for none / unresolved.
fn rank(r: i32) -> u32 {
    u32::try_from(r).unwrap_or(u32::MAX)
}

/// The trace id of `comm` if `owner` records messages in a trace, and
/// whether it is an intercommunicator, defining the communicator in its
/// trace (at tick `at`) the first time.
fn traced_comm(owner: *const ThreadState, comm: u64, at: u64) -> Option<(u32, bool)> {
    // SAFETY: the caller's own, leaked state.
    let t = unsafe { &*owner };
    t.trace()?;
    if !select::class_on(select::MESSAGES) {
        return None;
    }
    let c = pmpi::consts()?;
    let (id, inter) = comms::trace_id(comm, c.comm_world)?;
    if let Id::Define(n) = id {
        return Some((n, define(owner, comm, n, at)));
    }
    Some((id.id(), inter))
}

/// Writes communicator `id`'s name and members (world ranks); returns
/// whether it is an intercommunicator, which is defined with the world's
/// members (its records name peers by world rank: its local and remote
/// groups differ between its sides) and, in the appended fields, its
/// local and remote groups as world ranks (for OTF2's `InterComm`). Cold:
/// once per communicator and process; allocates.
#[cold]
fn define(owner: *const ThreadState, comm: u64, id: u32, now: u64) -> bool {
    let inter = pmpi::is_inter(comm);
    if inter {
        comms::set_inter(comm);
    }
    let of = if inter {
        pmpi::consts().map_or(comm, |c| c.comm_world)
    } else {
        comm
    };
    let ranks = world_ranks(of, pmpi::comm_size_rank(of).map(|(s, _)| s));
    // An intercommunicator's size and group are its local group's.
    let (local, remote) = if inter {
        let local = world_ranks(comm, pmpi::comm_size_rank(comm).map(|(s, _)| s));
        let mut remote: Vec<i32> = (0..pmpi::remote_size(comm).unwrap_or(0).max(0)).collect();
        if !pmpi::remote_to_world(comm, &mut remote) {
            remote.clear();
        }
        // Both or neither: a reader takes one group without the other
        // for an old file's definition.
        if local.is_empty() || remote.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            (local, remote)
        }
    } else {
        (Vec::new(), Vec::new())
    };
    // One name per definition (a handle reused by a later communicator
    // is defined again), unique in the process and so in its files.
    static DEFINED: AtomicU32 = AtomicU32::new(0);
    let name = COMM_NAME_BASE + DEFINED.fetch_add(1, Relaxed) % (u32::MAX - COMM_NAME_BASE);
    let kind = if inter {
        "intercommunicator"
    } else {
        "communicator"
    };
    let text = if id & comms::RUN_WIDE != 0 {
        format!("{kind} {:08x}", id & !comms::RUN_WIDE)
    } else {
        format!("{kind} {id}")
    };
    let ranks_of = |v: Vec<i32>| v.into_iter().map(rank).collect();
    record(owner, now, &Event::String { id: name, text });
    record(
        owner,
        now,
        &Event::Comm {
            comm: id,
            name,
            members: ranks_of(ranks),
            local: ranks_of(local),
            remote: ranks_of(remote),
        },
    );
    inter
}

/// The world ranks of ranks 0..size of `comm` (its local group for an
/// intercommunicator); empty when MPI cannot say.
fn world_ranks(comm: u64, size: Option<i32>) -> Vec<i32> {
    let mut ranks: Vec<i32> = (0..size.unwrap_or(0).max(0)).collect();
    if !pmpi::to_world(comm, &mut ranks) {
        ranks.clear();
    }
    ranks
}

fn record(owner: *const ThreadState, ticks: u64, e: &Event) {
    // SAFETY: the caller's own state, from its probe.
    unsafe { (*owner).record_event(ticks, e) };
}
