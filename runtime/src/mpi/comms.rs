//! Trace ids of communicators (`REGIO_MODE=trace`). The trace format
//! names a communicator by a number the process chooses, defined once per
//! process by a `comm` record listing its members as world ranks
//! (`MPI_COMM_WORLD` is 0 and needs none). This is the process-wide table
//! of handles to ids: open addressing by handle, searched and filled
//! without a lock (a slot is claimed by compare-and-swap and never
//! freed); the first thread to use a handle for a message writes the
//! definition into its own trace.
//!
//! Two kinds of ids:
//! - **Run-wide** ([`RUN_WIDE`] set): a communicator whose creation was
//!   captured (`MPI_Comm_split`, `_dup`, `_create`, the topology
//!   constructors, ...; `probes::comm_created`) gets an id every member
//!   computes alike without communicating: a hash of its parent's
//!   identity, the number of communicators created from that parent
//!   before it, and its members. MPI has every member of a parent make
//!   its collective calls on it in the same order, so the n-th creation
//!   on a parent is the same call everywhere, whatever order a process
//!   creates communicators on different parents in. The exporter pairs
//!   such ids by (id, members).
//! - **Process-local** (below [`RUN_WIDE`]): a communicator first met in
//!   a message without a captured creation (made by uninstrumented code)
//!   gets its slot number; the exporter pairs those by "the n-th with this
//!   member list", the order in which each process first used them.
//!
//! Handles are process-local and MPI may hand a freed communicator's
//! handle to a new one: a captured creation replaces the slot's id (and
//! has the definition written again); an uncaptured one keeps the old id.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};

/// Communicators with trace ids per process (besides `MPI_COMM_WORLD`).
pub const SLOTS: usize = 4096;

/// Bit 31 of a trace id: the id is the same on every member (see the
/// module comment).
pub const RUN_WIDE: u32 = 1 << 31;

struct Slot {
    handle: AtomicU64,
    /// A run-wide id, or 0: the slot's own number (process-local).
    id: AtomicU32,
    /// The definition of the current id is written (or being written).
    defined: AtomicBool,
    /// Communicators created from this one so far.
    created: AtomicU32,
    /// An intercommunicator: traced with world ranks (see `events`).
    inter: AtomicBool,
    /// The world ranks of the ranks the communicator's calls name (its
    /// members; an intercommunicator's remote group), set at a captured
    /// creation: leaked, never freed (a reused handle gets a new table).
    peers: AtomicPtr<Vec<i32>>,
}

static TABLE: [Slot; SLOTS] = [const {
    Slot {
        handle: AtomicU64::new(0),
        id: AtomicU32::new(0),
        defined: AtomicBool::new(false),
        created: AtomicU32::new(0),
        inter: AtomicBool::new(false),
        peers: AtomicPtr::new(std::ptr::null_mut()),
    }
}; SLOTS];
/// Communicators created from `MPI_COMM_WORLD` so far.
static WORLD_CREATED: AtomicU32 = AtomicU32::new(0);
/// Messages on communicators that found the table full (not traced).
pub static OVERFLOW: AtomicUsize = AtomicUsize::new(0);

/// What the caller does with a communicator's trace id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    /// Known (or `MPI_COMM_WORLD`, 0).
    Known(u32),
    /// Not defined yet in this process: the caller writes its definition
    /// first.
    Define(u32),
}

impl Id {
    pub fn id(self) -> u32 {
        match self {
            Id::Known(i) | Id::Define(i) => i,
        }
    }
}

/// The slot of `handle` (not 0), claimed if new; None when the table is
/// full.
fn slot(handle: u64) -> Option<(usize, &'static Slot)> {
    // Fibonacci hashing: pointer handles differ in their middle bits,
    // MPICH's integer handles in their low ones.
    let start = (handle.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize % SLOTS;
    for k in 0..SLOTS {
        let i = (start + k) % SLOTS;
        let s = &TABLE[i];
        match s.handle.load(Acquire) {
            h if h == handle => return Some((i, s)),
            0 => match s.handle.compare_exchange(0, handle, AcqRel, Acquire) {
                Ok(_) => return Some((i, s)),
                // Another thread claimed this slot first, maybe for `handle`.
                Err(h) if h == handle => return Some((i, s)),
                Err(_) => continue,
            },
            _ => {}
        }
    }
    None
}

/// The slot of `handle` if it has one (nothing claimed).
fn find(handle: u64) -> Option<&'static Slot> {
    let start = (handle.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize % SLOTS;
    for k in 0..SLOTS {
        let s = &TABLE[(start + k) % SLOTS];
        match s.handle.load(Acquire) {
            h if h == handle => return Some(s),
            0 => return None,
            _ => {}
        }
    }
    None
}

/// The world rank of `rank` of `comm` from the table its captured
/// creation left (lock-free, no MPI call); None without one.
pub fn world_rank(comm: u64, rank: i32) -> Option<i32> {
    let p = find(comm)?.peers.load(Acquire);
    if p.is_null() || rank < 0 {
        return None;
    }
    // SAFETY: a leaked table, never freed.
    let table: &Vec<i32> = unsafe { &*p };
    table.get(rank as usize).copied()
}

/// Stores `comm`'s translation table (see `Slot::peers`).
pub fn set_peers(comm: u64, world: Vec<i32>) {
    if let Some((_, s)) = slot(comm) {
        s.peers.store(Box::into_raw(Box::new(world)), Release);
    }
}

fn id_of(i: usize, s: &Slot) -> u32 {
    match s.id.load(Acquire) {
        0 => i as u32 + 1,
        id => id,
    }
}

/// The trace id of `comm` (`world` is `MPI_COMM_WORLD`'s handle) and
/// whether it is known to be an intercommunicator; None when the table is
/// full or the handle is 0.
pub fn trace_id(comm: u64, world: u64) -> Option<(Id, bool)> {
    if comm == world {
        return Some((Id::Known(0), false));
    }
    if comm == 0 {
        return None;
    }
    let Some((i, s)) = slot(comm) else {
        OVERFLOW.fetch_add(1, Relaxed);
        return None;
    };
    let id = id_of(i, s);
    let inter = s.inter.load(Acquire);
    if s.defined.load(Acquire) || s.defined.swap(true, AcqRel) {
        Some((Id::Known(id), inter))
    } else {
        Some((Id::Define(id), inter))
    }
}

/// Marks `comm` as an intercommunicator (at its creation or definition).
pub fn set_inter(comm: u64) {
    if let Some((_, s)) = slot(comm) {
        s.inter.store(true, Release);
    }
}

/// How many communicators with the same `key` this process created
/// before: intercommunicators over the same processes (a hash of their
/// sorted world ranks; both groups create theirs in the same order), and
/// `MPI_Comm_create_group` results with the same parent, tag and members
/// (every member makes those calls in the same order). Lock-free, 64
/// distinct keys (then 0).
pub fn ordinal(key: u64) -> u32 {
    static KEYS: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];
    static COUNTS: [AtomicU32; 64] = [const { AtomicU32::new(0) }; 64];
    let key = key.max(1);
    for (k, n) in KEYS.iter().zip(&COUNTS) {
        match k.compare_exchange(0, key, AcqRel, Acquire) {
            Ok(_) => return n.fetch_add(1, AcqRel),
            Err(h) if h == key => return n.fetch_add(1, AcqRel),
            Err(_) => {}
        }
    }
    0
}

/// What a creation on `parent` knows of it: its run-wide id (0 for
/// `MPI_COMM_WORLD`, None when it has none: then the caller names it by
/// its members) and how many communicators were created from it before
/// (this call counted). None when the table is full.
pub fn creation_on(parent: u64, world: u64) -> Option<(Option<u32>, u32)> {
    if parent == world {
        return Some((Some(0), WORLD_CREATED.fetch_add(1, AcqRel)));
    }
    let (_, s) = slot(parent)?;
    let seq = s.created.fetch_add(1, AcqRel);
    let id = s.id.load(Acquire);
    Some(((id & RUN_WIDE != 0).then_some(id), seq))
}

/// A parent's identity for a creation that only some of its members make
/// (`MPI_Comm_create_group`), counting nothing: its run-wide id (0 for
/// `MPI_COMM_WORLD`), or None (then the caller names it by its members).
pub fn identity_of(parent: u64, world: u64) -> Option<u32> {
    if parent == world {
        return Some(0);
    }
    let id = find(parent)?.id.load(Acquire);
    (id & RUN_WIDE != 0).then_some(id)
}

/// A communicator just created with run-wide id `id`: its (possibly
/// reused) handle takes the id, to be defined again at its first message.
pub fn created(handle: u64, id: u32) -> bool {
    let Some((_, s)) = slot(handle) else {
        return false;
    };
    s.created.store(0, Release);
    s.inter.store(false, Release);
    s.id.store(id | RUN_WIDE, Release);
    s.defined.store(false, Release);
    true
}

/// A run-wide id from the words that identify a communicator (FNV-1a
/// over their bytes, folded to 31 bits), the same in every process.
pub fn run_wide_id(words: impl IntoIterator<Item = u64>) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    (((h >> 31) ^ h) as u32 & !RUN_WIDE) | RUN_WIDE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_is_defined_once_and_world_never() {
        assert_eq!(trace_id(0x77, 0x77), Some((Id::Known(0), false)));
        let a = trace_id(0x1001, 0x77).expect("room").0;
        assert!(matches!(a, Id::Define(_)));
        assert!(a.id() < RUN_WIDE);
        assert_eq!(trace_id(0x1001, 0x77), Some((Id::Known(a.id()), false)));
        let b = trace_id(0x1002, 0x77).expect("room").0;
        assert_ne!(a.id(), b.id());
        assert_eq!(trace_id(0, 0x77), None);
    }

    #[test]
    fn a_created_communicator_has_its_run_wide_id_defined_again() {
        let h = 0x5_0000_2040;
        assert!(matches!(trace_id(h, 0x77), Some((Id::Define(_), false))));
        let id = run_wide_id([0, 0, 3, 1]);
        assert!(created(h, id));
        set_inter(h);
        assert_eq!(trace_id(h, 0x77), Some((Id::Define(id), true)));
        assert_eq!(trace_id(h, 0x77), Some((Id::Known(id), true)));
        assert_eq!(ordinal(42), 0);
        assert_eq!(ordinal(42), 1);
        assert_eq!(ordinal(43), 0);
        assert_eq!(world_rank(h, 1), None);
        set_peers(h, vec![4, 6]);
        assert_eq!((world_rank(h, 1), world_rank(h, 2)), (Some(6), None));
        assert_eq!(world_rank(0x5_0000_2041, 0), None);
        // Creations on it are counted from 0; on the world separately.
        assert_eq!(creation_on(h, 0x77), Some((Some(id), 0)));
        assert_eq!(creation_on(h, 0x77), Some((Some(id), 1)));
        let (w, _) = creation_on(0x77, 0x77).expect("world");
        assert_eq!(w, Some(0));
        // Looking a parent up counts nothing.
        assert_eq!(identity_of(h, 0x77), Some(id));
        assert_eq!(identity_of(0x77, 0x77), Some(0));
        assert_eq!(identity_of(0x5_0000_2047, 0x77), None);
        assert_eq!(creation_on(h, 0x77), Some((Some(id), 2)));
    }

    #[test]
    fn run_wide_ids_depend_on_every_word() {
        let a = run_wide_id([1, 2, 3]);
        assert_ne!(a, run_wide_id([1, 2, 4]));
        assert_ne!(a, run_wide_id([2, 1, 3]));
        assert_eq!(a, run_wide_id([1, 2, 3]));
        assert!(a & RUN_WIDE != 0);
    }

    #[test]
    fn more_handles_than_the_old_limit_keep_distinct_ids() {
        let ids: std::collections::BTreeSet<u32> = (0..200u64)
            .map(|k| {
                trace_id(0x9_0000_0000 + k * 0x240, 0x77)
                    .expect("room")
                    .0
                    .id()
            })
            .collect();
        assert_eq!(ids.len(), 200);
    }
}
