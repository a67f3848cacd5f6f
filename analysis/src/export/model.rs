//! A run's trace as the exporters see it: every thread's events on one
//! clock (ns since the earliest event of the run), region ids as in the
//! merged profile, communicators and user event names numbered run-wide,
//! and region enters and exits strictly nested.

use std::collections::{BTreeMap, BTreeSet};

use regio_trace_format::{collective, Event};

use crate::RegionInfo;

#[derive(Debug, Clone)]
pub struct Trace {
    /// Sorted by (rank, pid, thread).
    pub locations: Vec<Location>,
    /// Every region an event names.
    pub regions: BTreeMap<u32, RegionDef>,
    /// Run-wide communicators; the index is the id events use, 0 is
    /// `MPI_COMM_WORLD`.
    pub comms: Vec<Comm>,
    /// User event names; the index is the id `Event::User` uses.
    pub user_names: Vec<String>,
    /// Number of MPI ranks (1 without MPI).
    pub size: u32,
    /// Unix time (ns, on rank 0's clock) of `ns == 0`.
    pub start_unix_ns: i64,
    /// Time of the last event.
    pub end_ns: u64,
    /// What was repaired or could not be read, for the user to see.
    pub notes: Vec<String>,
    /// Processes (rank, pid) left out: started by `MPI_Comm_spawn`
    /// (another `MPI_COMM_WORLD`).
    pub spawned: BTreeSet<(u32, u32)>,
}

/// A region with the source range the OTF2 definition names.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionDef {
    pub info: RegionInfo,
    pub end_line: Option<u32>,
}

/// One thread of one process.
#[derive(Debug, Clone)]
pub struct Location {
    pub rank: u32,
    pub pid: u32,
    pub thread: u32,
    pub os_tid: u64,
    pub host: String,
    /// Clock rate of the thread's file (durations in events are in ticks).
    pub ticks_per_second: f64,
    /// How far its times may be off rank 0's clock after correction (half
    /// the longest round trip of the synchronisation used; 0 for rank 0
    /// and for uncorrected times).
    pub clock_uncertainty_ns: u64,
    /// In time order; `Enter`/`Exit` strictly nested and balanced. Message
    /// events carry run-wide communicator ids; `User` names index
    /// [`Trace::user_names`]. No `String` or `Comm` events are left.
    pub events: Vec<TraceEvent>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TraceEvent {
    pub ns: u64,
    pub event: Event,
}

/// A communicator: its name and its members as world ranks, in the order
/// of their ranks within it. An intercommunicator's members are the
/// world's (its events name peers by world rank) and, when the trace
/// recorded them, `inter` holds its two groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comm {
    pub name: String,
    pub members: Vec<u32>,
    pub inter: Option<InterGroups>,
}

/// An intercommunicator's two groups, world ranks in group rank order.
/// Each side records (local, remote); `a` is the lesser of the two lists,
/// so both sides' definitions give the same value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterGroups {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
}

impl InterGroups {
    /// None unless both groups are known (files before the fields were
    /// appended have neither).
    pub fn of(local: &[u32], remote: &[u32]) -> Option<InterGroups> {
        if local.is_empty() || remote.is_empty() {
            return None;
        }
        let (a, b) = if local <= remote {
            (local, remote)
        } else {
            (remote, local)
        };
        Some(InterGroups {
            a: a.to_vec(),
            b: b.to_vec(),
        })
    }

    /// Whether every process of both groups has a world rank below `size`
    /// (not so when the remote group is another job's: `MPI_Comm_spawn`,
    /// connect/accept, join; the runtime records those as `u32::MAX`).
    pub fn within_world(&self, size: u32) -> bool {
        self.a.iter().chain(&self.b).all(|r| *r < size)
    }

    /// The group that process `world_rank` is not in, whose ranks its
    /// messages and roots name; None if it is in neither.
    pub fn remote_of(&self, world_rank: u32) -> Option<&[u32]> {
        if self.a.contains(&world_rank) {
            Some(&self.b)
        } else if self.b.contains(&world_rank) {
            Some(&self.a)
        } else {
            None
        }
    }
}

impl Comm {
    /// World rank of `rank` in this communicator.
    pub fn world_rank(&self, rank: u32) -> Option<u32> {
        self.members.get(rank as usize).copied()
    }

    /// Process `world_rank` as process `me` names it in a call on this
    /// communicator (MPI's peer or root argument): its rank here, or on an
    /// intercommunicator its rank in `me`'s remote group. None if it is
    /// not there (an unresolved wildcard, an old intercommunicator
    /// definition without groups seen from outside).
    pub fn rank_seen_by(&self, me: u32, world_rank: u32) -> Option<u32> {
        let group = match &self.inter {
            Some(g) => g.remote_of(me)?,
            None => &self.members,
        };
        group
            .iter()
            .position(|w| *w == world_rank)
            .map(|p| p as u32)
    }
}

/// Collective operations with a root (`regio_trace_format::collective`):
/// on an intercommunicator the root's group passes `MPI_ROOT` or
/// `MPI_PROC_NULL` and records no remote root.
pub const ROOTED: [u32; 6] = [
    collective::BCAST,
    collective::GATHER,
    collective::GATHERV,
    collective::SCATTER,
    collective::SCATTERV,
    collective::REDUCE,
];

impl Trace {
    pub fn region(&self, id: u32) -> RegionInfo {
        self.regions
            .get(&id)
            .map(|r| r.info.clone())
            .unwrap_or_else(|| RegionInfo::unknown(id))
    }
}
