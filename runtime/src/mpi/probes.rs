//! MPI argument capture, behind the C entry points in `ffi.rs`. The instrumenter calls
//! them right after an MPI call returns and before the call's region is
//! left, with the run-time values of the arguments its routine table
//! names (`instrumenter/src/mpi_routines.rs`), so the open frame on top of
//! the thread's stack is the call's own: its node receives the record and
//! its entry tick gives the time.
//!
//! `kind`: 0 a send, 1 a receive, 2 a collective (`peer` is its root, or
//! negative for none; older instrumented code, today's writes
//! `regio_mpi_coll`); `post` adds 4 for a persistent request.
//! Handles are widened to 64 bits (see `pmpi`).

use std::ffi::c_void;
use std::sync::atomic::Ordering::*;

use crate::clock;
use crate::lifecycle::{MODE, ON};
use crate::mpi::comms;
use crate::mpi::events::{self, Message, Post, Request};
use crate::mpi::pmpi::{self, Abi, Consts};
use crate::mpi::requests::{self, PostOutcome, Posted};
use crate::mpi::stats::{Direction, ANY_SOURCE, NO_ROOT};
use crate::mpi::world;
use crate::registry;
use crate::thread::ThreadState;

const SEND: i32 = 0;
const RECV: i32 = 1;
const COLLECTIVE: i32 = 2;
const PERSISTENT: i32 = 4;

/// The calling thread's state and the call's open frame (node index,
/// entry tick), if measuring and the top frame is region `id`'s.
fn open_call(id: u32) -> Option<(*const ThreadState, u32, u64)> {
    if MODE.load(Relaxed) != ON {
        return None;
    }
    let t = registry::current();
    if t.is_null() {
        return None;
    }
    // SAFETY: our own leaked state; the top frame is below the depth read.
    unsafe {
        let (stack, depth) = (*t).stack_snapshot();
        if depth < 2 {
            return None;
        }
        let f = &*stack.add(depth - 1);
        let node = f.node.load(Relaxed);
        if node.is_null() || (*node).region != id {
            return None;
        }
        Some((t, (*node).index, f.start.load(Relaxed)))
    }
}

/// An MPICH `int` handle widened with its sign: the low half is the handle.
fn handle(c: &Consts, h: u64) -> u64 {
    match c.abi {
        Abi::OpenMpi => h,
        Abi::Mpich => h & 0xffff_ffff,
    }
}

fn bytes_of(count: i64, datatype: u64) -> u64 {
    if count <= 0 {
        return 0;
    }
    pmpi::type_size(datatype).map_or(0, |s| s.saturating_mul(count as u64))
}

/// Peer as a world rank; None for `MPI_PROC_NULL` (no message).
fn peer_of(c: &Consts, kind: i32, peer: i32, comm: u64) -> Option<i32> {
    if kind & 3 == COLLECTIVE {
        return Some(if peer < 0 {
            NO_ROOT
        } else {
            to_world(comm, peer)
        });
    }
    if peer == c.proc_null {
        return None;
    }
    if kind & 3 == RECV && peer == c.any_source {
        return Some(ANY_SOURCE);
    }
    Some(to_world(comm, peer))
}

/// `rank` of `comm` as a world rank: from the table its captured creation
/// left (lock-free, allocation-free), else the thread's cache (`world`).
fn to_world(comm: u64, rank: i32) -> i32 {
    comms::world_rank(comm, rank).unwrap_or_else(|| world::world_rank(comm, rank))
}

/// The arguments of a message or post probe, as the C and Fortran entry
/// points of `ffi.rs` receive them: the one place that unpacks them
/// (Fortran passes INTEGER(4) references and Fortran handles).
#[derive(Clone, Copy, Debug)]
pub struct MsgArgs {
    /// Region id of the MPI call.
    pub id: u32,
    /// 0 send, 1 receive, 2 collective; a post adds 4 when persistent.
    pub kind: i32,
    /// Rank in `comm` (the root of a collective, negative for none).
    pub peer: i32,
    pub tag: i32,
    /// C handles, widened to 64 bits.
    pub comm: u64,
    pub count: i64,
    pub datatype: u64,
}

impl MsgArgs {
    /// From Fortran's INTEGER(4) references; the communicator and
    /// datatype are Fortran handles (`MPI_Fint`, or `%MPI_VAL` of the
    /// `mpi_f08` types). None when MPI cannot translate a handle.
    ///
    /// # Safety
    /// Every pointer must be readable.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn fortran(
        id: *const i32,
        kind: *const i32,
        peer: *const i32,
        tag: *const i32,
        comm: *const i32,
        count: *const i32,
        datatype: *const i32,
    ) -> Option<MsgArgs> {
        Some(MsgArgs {
            id: *id as u32,
            kind: *kind,
            peer: *peer,
            tag: *tag,
            comm: pmpi::comm_f2c(*comm)?,
            count: i64::from(*count),
            datatype: pmpi::type_f2c(*datatype)?,
        })
    }
}

/// What a message or post probe works on: its thread and call, the ABI
/// constants and the communicator's handle.
struct Call {
    t: *const ThreadState,
    node: u32,
    start: u64,
    c: &'static Consts,
    comm: u64,
}

impl Call {
    fn of(a: &MsgArgs) -> Option<Call> {
        Call::of_id(a.id, a.comm)
    }

    fn of_id(id: u32, comm: u64) -> Option<Call> {
        let (t, node, start) = open_call(id)?;
        let c = pmpi::consts()?;
        Some(Call {
            t,
            node,
            start,
            c,
            comm: handle(c, comm),
        })
    }
}

/// After a call that created a communicator (`MPI_Comm_split`, `_dup`,
/// `_create`, the topology constructors, `MPI_Intercomm_merge`): `new`
/// (`MPI_COMM_NULL` where this process is left out) created from
/// `parent`. Every member computes the same run-wide trace id for it
/// (`comms`): a hash of the parent's identity, the number of
/// communicators created from the parent before (counted on every
/// process, left out or not) and the members' world ranks. Cold: once
/// per creation; allocates.
pub fn comm_created(parent: u64, new: u64) {
    if MODE.load(Relaxed) != ON {
        return;
    }
    let Some(c) = pmpi::consts() else { return };
    let (parent, new) = (handle(c, parent), handle(c, new));
    let Some((parent_id, seq)) = comms::creation_on(parent, c.comm_world) else {
        return;
    };
    if new == c.comm_null || new == 0 || new == c.comm_world {
        return;
    }
    if pmpi::is_inter(new) {
        inter_created(new);
        return;
    }
    let Some(members) = world_members(new) else {
        return;
    };
    // A parent without a run-wide id is named by its members.
    let parent_words: Vec<u64> = match parent_id {
        Some(id) => vec![u64::from(id)],
        None => match world_members(parent) {
            Some(m) => std::iter::once(u64::MAX)
                .chain(m.iter().map(|&r| r as u64))
                .collect(),
            None => return,
        },
    };
    let id = comms::run_wide_id(
        parent_words
            .into_iter()
            .chain([u64::from(seq), members.len() as u64])
            .chain(members.iter().map(|&r| r as u64)),
    );
    comms::created(new, id);
    comms::set_peers(new, members);
    world::forget(new);
}

/// How a communicator whose creation `comm_made` hears of was made.
const MADE_AT_CALL_DUP: i32 = 1;
const MADE_FROM_GROUP: i32 = 2;

/// After `MPI_Comm_idup` (`how` 1: a duplicate of `parent` whose handle
/// the call wrote at once, Open MPI and MPICH both do, but which may not
/// be used before the request completes: its members are the parent's,
/// asked of the parent) or `MPI_Comm_create_group` (`how` 2: made by the
/// group's members only, with `tag`: named by the parent's identity, the
/// tag, the members and how many such creations with the same three this
/// process made before; the parent's own count is left alone, as its
/// other members do not take part). Cold: once per creation; allocates.
pub fn comm_made(how: i32, parent: u64, new: u64, tag: i32) {
    if MODE.load(Relaxed) != ON {
        return;
    }
    let Some(c) = pmpi::consts() else { return };
    let (parent, new) = (handle(c, parent), handle(c, new));
    if new == c.comm_null || new == 0 || new == c.comm_world || new == parent {
        return;
    }
    // A parent without a run-wide id is named by its members.
    let parent_words = |id: Option<u32>| -> Option<Vec<u64>> {
        Some(match id {
            Some(id) => vec![u64::from(id)],
            None => std::iter::once(u64::MAX)
                .chain(world_members(parent)?.iter().map(|&r| r as u64))
                .collect(),
        })
    };
    let (id, members) = match how {
        MADE_AT_CALL_DUP => {
            if pmpi::is_inter(parent) {
                return;
            }
            let Some((parent_id, seq)) = comms::creation_on(parent, c.comm_world) else {
                return;
            };
            let Some(members) = world_members(parent) else {
                return;
            };
            let Some(words) = parent_words(parent_id) else {
                return;
            };
            let id = comms::run_wide_id(
                words
                    .into_iter()
                    .chain([u64::from(seq), members.len() as u64])
                    .chain(members.iter().map(|&r| r as u64)),
            );
            (id, members)
        }
        MADE_FROM_GROUP => {
            let Some(members) = world_members(new) else {
                return;
            };
            let Some(words) = parent_words(comms::identity_of(parent, c.comm_world)) else {
                return;
            };
            let key = comms::run_wide_id(
                [u64::MAX - 2, tag as u64]
                    .into_iter()
                    .chain(words)
                    .chain([members.len() as u64])
                    .chain(members.iter().map(|&r| r as u64)),
            );
            let n = comms::ordinal(u64::from(key));
            (comms::run_wide_id([u64::from(key), u64::from(n)]), members)
        }
        _ => return,
    };
    comms::created(new, id);
    comms::set_peers(new, members);
    world::forget(new);
}

/// An intercommunicator just created (`MPI_Intercomm_create`): its two
/// groups come from different parents, so its run-wide id is a hash of
/// the world ranks of both groups (sorted) and how many intercommunicators
/// over the same processes this process created before.
fn inter_created(new: u64) {
    let Some(mut all) = world_members(new) else {
        return;
    };
    let Some(remote) = pmpi::remote_size(new) else {
        return;
    };
    let mut others: Vec<i32> = (0..remote.max(0)).collect();
    if !pmpi::remote_to_world(new, &mut others) {
        return;
    }
    comms::set_peers(new, others.clone());
    all.extend(others);
    all.sort_unstable();
    let words = || all.iter().map(|&r| r as u64);
    let key = comms::run_wide_id(words()) as u64;
    let n = comms::ordinal(key);
    let id = comms::run_wide_id(
        [u64::MAX - 1, u64::from(n), all.len() as u64]
            .into_iter()
            .chain(words()),
    );
    comms::created(new, id);
    comms::set_inter(new);
    world::forget(new);
}

/// The world ranks of `comm`'s members in rank order.
fn world_members(comm: u64) -> Option<Vec<i32>> {
    let (size, _) = pmpi::comm_size_rank(comm)?;
    let mut ranks: Vec<i32> = (0..size.max(0)).collect();
    pmpi::to_world(comm, &mut ranks).then_some(ranks)
}

/// A Fortran status argument (or array of statuses) as C statuses: null
/// for the ignore markers (see `Consts::fortran_status`) or without MPI.
pub fn fortran_status(f: *const c_void) -> *const c_void {
    match pmpi::consts() {
        Some(c) => c.fortran_status(f as *const u8) as *const c_void,
        None => std::ptr::null(),
    }
}

/// The shape bit a Fortran collective adds when its buffer argument at
/// `addr` is the Fortran `MPI_IN_PLACE` (0 otherwise, or without MPI).
pub fn fortran_in_place_shape(addr: usize) -> i32 {
    match pmpi::consts() {
        Some(c) if c.fortran_in_place(addr) => SHAPE_IN_PLACE,
        _ => 0,
    }
}

/// After a blocking send, receive or collective (`MPI_Sendrecv` makes one
/// call per direction). A receive's `status` (null or `MPI_STATUS_IGNORE`
/// when there is none) gives the source, tag and bytes that arrived.
///
/// # Safety
/// `status` must be null, `MPI_STATUS_IGNORE` or point to an `MPI_Status`.
pub unsafe fn message(a: &MsgArgs, status: *const c_void) {
    let Some(Call {
        t,
        node,
        start,
        c,
        comm,
    }) = Call::of(a)
    else {
        return;
    };
    let status = status as *const u8;
    let (mut peer, mut tag, mut bytes) = (a.peer, a.tag, None);
    if a.kind == RECV && c.real_status(status) {
        (peer, tag) = c.status_source_tag(status);
        bytes = Some(c.status_bytes(status));
    }
    let Some(world_peer) = peer_of(c, a.kind, peer, comm) else {
        return;
    };
    let bytes = bytes.unwrap_or_else(|| bytes_of(a.count, handle(c, a.datatype)));
    let now = clock::ticks();
    let direction = match a.kind {
        SEND => Direction::Send,
        RECV => Direction::Recv,
        _ => Direction::Collective,
    };
    events::message(
        t,
        &Message {
            direction,
            node,
            peer: world_peer,
            comm_peer: peer,
            tag,
            comm,
            bytes,
            received: if direction == Direction::Collective {
                bytes
            } else {
                0
            },
            ticks: now.saturating_sub(start),
            start,
            request: None,
        },
        now,
    );
}

/// Side flags of a collective's `shape` (`mpi_routines.rs` in the
/// instrumenter writes them): the bytes count on the root only, times the
/// communicator's size, the count is an array summed over the ranks, or
/// this rank's entry of it; the side is there at all.
const SIDE_ROOT_ONLY: i32 = 1;
const SIDE_TIMES_SIZE: i32 = 2;
const SIDE_ARRAY: i32 = 4;
const SIDE_AT_RANK: i32 = 8;
const SIDE_PRESENT: i32 = 16;
const RECV_SHIFT: i32 = 8;
/// Count arrays hold 64-bit counts (C large-count `_c` routines).
const SHAPE_WIDE_COUNTS: i32 = 1 << 16;
/// The call was given `MPI_IN_PLACE`: each side's in-place rule (3 bits
/// from `IN_PLACE_SHIFT` of its flags) applies.
const SHAPE_IN_PLACE: i32 = 1 << 17;
/// Each side's datatype is an array of datatypes, one per rank
/// (`MPI_Alltoallw`): `CollSide::datatype` holds the array's address.
const SHAPE_TYPE_ARRAYS: i32 = 1 << 18;
/// Set by the Fortran entry point: the datatype arrays hold Fortran
/// handles (INTEGER(4)).
const SHAPE_FORTRAN_TYPES: i32 = 1 << 19;
/// A neighbourhood collective: "the size" is the topology's out-degree
/// for the send side and its in-degree for the receive side.
const SHAPE_NEIGHBOURS: i32 = 1 << 20;
/// A prefix reduction (`MPI_Scan`, `MPI_Exscan`): rank `me` of `N` sends
/// `N - me` blocks and receives `me + 1` (Score-P's rule), one fewer each
/// way with `MPI_IN_PLACE` (an `MPI_Exscan` always has that bit).
const SHAPE_SCAN: i32 = 1 << 21;
const IN_PLACE_SHIFT: i32 = 5;
/// The side is 0.
const IN_PLACE_ZERO: i32 = 1;
/// The side without this process's own block.
const IN_PLACE_LESS_OWN: i32 = 2;
/// The other side's bytes.
const IN_PLACE_AS_OTHER: i32 = 3;
/// The other side's entry at this rank, times the size less one.
const IN_PLACE_OWN_TIMES_OTHERS: i32 = 4;

/// One side of a collective as the probe receives it: a count, or (the
/// shape says which) an array of counts, one per rank of the
/// communicator; and the datatype's C handle.
#[derive(Clone, Copy, Debug)]
pub struct CollSide {
    pub count: i64,
    pub counts: *const c_void,
    pub datatype: u64,
}

/// The arguments of a collective probe (`regio_mpi_coll` and its Fortran
/// twin): region id, shape (`SIDE_*` flags of the send side, the receive
/// side's shifted by 8), root in `comm` (negative: none), the C handle of
/// the communicator, and both sides.
#[derive(Clone, Copy, Debug)]
pub struct CollArgs {
    pub id: u32,
    pub shape: i32,
    pub root: i32,
    pub comm: u64,
    pub send: CollSide,
    pub recv: CollSide,
}

impl CollArgs {
    /// From Fortran's references: INTEGER(4) values and handles; a side
    /// whose shape flags say "array" passes its array, read in place.
    /// None when MPI cannot translate a handle of a side that is there.
    ///
    /// # Safety
    /// Every pointer must be readable.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn fortran(
        id: *const i32,
        shape: *const i32,
        root: *const i32,
        comm: *const i32,
        send_count: *const i32,
        send_type: *const i32,
        recv_count: *const i32,
        recv_type: *const i32,
    ) -> Option<CollArgs> {
        let mut shape = *shape & !SHAPE_WIDE_COUNTS;
        let typed = shape & SHAPE_TYPE_ARRAYS != 0;
        if typed {
            shape |= SHAPE_FORTRAN_TYPES;
        }
        let side = |flags: i32, count: *const i32, datatype: *const i32| -> Option<CollSide> {
            if flags & SIDE_PRESENT == 0 {
                return Some(CollSide {
                    count: 0,
                    counts: std::ptr::null(),
                    datatype: 0,
                });
            }
            let array = flags & (SIDE_ARRAY | SIDE_AT_RANK) != 0;
            Some(CollSide {
                count: if array { 0 } else { i64::from(*count) },
                counts: if array {
                    count as *const c_void
                } else {
                    std::ptr::null()
                },
                datatype: if typed {
                    datatype as u64
                } else {
                    pmpi::type_f2c(*datatype)?
                },
            })
        };
        Some(CollArgs {
            id: *id as u32,
            shape,
            root: *root,
            comm: pmpi::comm_f2c(*comm)?,
            send: side(shape & 0xff, send_count, send_type)?,
            recv: side((shape >> RECV_SHIFT) & 0xff, recv_count, recv_type)?,
        })
    }
}

/// The bytes of one side for the rank `me` of `size` (see `mpi_routines`
/// in the instrumenter for the convention: Score-P's); `less_own`: this
/// process's own block left out (`MPI_IN_PLACE`).
///
/// # Safety
/// An array side's `counts` must hold `size` counts.
unsafe fn side_bytes(
    c: &Consts,
    flags: i32,
    wide: bool,
    s: &CollSide,
    is_root: bool,
    (size, me): (i32, i32),
    less_own: bool,
) -> u64 {
    if flags & SIDE_PRESENT == 0 || (flags & SIDE_ROOT_ONLY != 0 && !is_root) {
        return 0;
    }
    let entry = |i: usize| -> i64 {
        if wide {
            (s.counts as *const i64).add(i).read_unaligned()
        } else {
            i64::from((s.counts as *const i32).add(i).read_unaligned())
        }
    };
    let n = size.max(0) as usize;
    let count = if flags & (SIDE_ARRAY | SIDE_AT_RANK) != 0 {
        let mine_needed = flags & SIDE_AT_RANK != 0 || less_own;
        if s.counts.is_null() || (mine_needed && (me < 0 || me as usize >= n)) {
            return 0;
        }
        if flags & SIDE_AT_RANK != 0 {
            entry(me as usize)
        } else {
            let sum: i64 = (0..n).map(|i| entry(i).max(0)).sum();
            if less_own {
                sum - entry(me as usize).max(0)
            } else {
                sum
            }
        }
    } else {
        s.count
    };
    let times = if flags & SIDE_TIMES_SIZE != 0 {
        if less_own {
            n.saturating_sub(1) as u64
        } else {
            n as u64
        }
    } else {
        1
    };
    bytes_of(count, handle(c, s.datatype)).saturating_mul(times)
}

/// The bytes of an array side with one datatype per rank (`Alltoallw`):
/// the sum of count x the size of that rank's datatype; `less_own`: this
/// rank's entry left out.
///
/// # Safety
/// `counts` and the datatype array (`s.datatype`, C handles of this ABI or
/// Fortran INTEGER(4) handles) must hold `size` entries.
unsafe fn typed_array_bytes(
    c: &Consts,
    wide: bool,
    fortran: bool,
    s: &CollSide,
    (size, me): (i32, i32),
    less_own: bool,
) -> u64 {
    let types = s.datatype as usize as *const c_void;
    if s.counts.is_null() || types.is_null() {
        return 0;
    }
    let mut total = 0u64;
    for i in 0..size.max(0) as usize {
        if less_own && i as i32 == me {
            continue;
        }
        let count = if wide {
            (s.counts as *const i64).add(i).read_unaligned()
        } else {
            i64::from((s.counts as *const i32).add(i).read_unaligned())
        };
        if count <= 0 {
            continue;
        }
        let datatype = if fortran {
            match pmpi::type_f2c((types as *const i32).add(i).read_unaligned()) {
                Some(d) => d,
                None => continue,
            }
        } else {
            let elem = match c.abi {
                Abi::OpenMpi => 8,
                Abi::Mpich => 4,
            };
            handle(c, read_handle(types, elem, i))
        };
        total = total.saturating_add(bytes_of(count, datatype));
    }
    total
}

/// A prefix reduction's (sent, received) bytes on rank `me` of `size`
/// (`SHAPE_SCAN`): `size - me` blocks out, `me + 1` in, one fewer each way
/// in place (and for `MPI_Exscan`).
fn scan_bytes(c: &Consts, a: &CollArgs, (size, me): (i32, i32)) -> (u64, u64) {
    if me < 0 || me >= size {
        return (0, 0);
    }
    let less = i64::from(a.shape & SHAPE_IN_PLACE != 0);
    let blocks = |n: i64, s: &CollSide| {
        bytes_of(s.count, handle(c, s.datatype)).saturating_mul((n - less).max(0) as u64)
    };
    (
        blocks(i64::from(size - me), &a.send),
        blocks(i64::from(me) + 1, &a.recv),
    )
}

/// After a collective returned: this process's bytes sent and received
/// by the shape's rules, one `collective` record.
///
/// # Safety
/// An array side's `counts` must hold one count per rank of `comm`.
pub unsafe fn collective(a: &CollArgs) {
    let Some(Call {
        t,
        node,
        start,
        c,
        comm,
    }) = Call::of_id(a.id, a.comm)
    else {
        return;
    };
    let world_root = peer_of(c, COLLECTIVE, a.root, comm).unwrap_or(NO_ROOT);
    let has_bytes = a.shape & !(SHAPE_WIDE_COUNTS | SHAPE_IN_PLACE) != 0;
    let mut size_rank = if has_bytes {
        pmpi::comm_size_rank(comm).unwrap_or((0, -1))
    } else {
        (0, -1)
    };
    let wide = a.shape & SHAPE_WIDE_COUNTS != 0;
    let (send_flags, recv_flags) = (a.shape & 0xff, (a.shape >> RECV_SHIFT) & 0xff);
    let rooted = (send_flags | recv_flags) & SIDE_ROOT_ONLY != 0;
    // On an intercommunicator (Score-P's rules) blocks go to or come from
    // the remote group; a rooted collective's root passes `MPI_ROOT`, the
    // rest of its group `MPI_PROC_NULL` (nothing moves there), and the
    // other group the root's rank.
    let inter = has_bytes && pmpi::is_inter(comm);
    let mut is_root = a.root >= 0 && a.root == size_rank.1;
    let mut others_move = true;
    if inter {
        size_rank.0 = pmpi::remote_size(comm).unwrap_or(0);
        is_root = a.root == c.root;
        others_move = !rooted || (a.root != c.root && a.root != c.proc_null);
    }
    let typed = a.shape & SHAPE_TYPE_ARRAYS != 0;
    let fortran_types = a.shape & SHAPE_FORTRAN_TYPES != 0;
    // Sizes per side: the communicator's (or remote group's), or the
    // topology's degrees.
    let (send_rank, recv_rank) = if a.shape & SHAPE_NEIGHBOURS != 0 {
        let (indeg, outdeg) = pmpi::neighbour_degrees(comm).unwrap_or((0, 0));
        ((outdeg, size_rank.1), (indeg, size_rank.1))
    } else {
        (size_rank, size_rank)
    };
    // One side's bytes with the rules above; `less`: without the own
    // block (MPI_IN_PLACE).
    let side = |flags: i32, s: &CollSide, sr: (i32, i32), less: bool| {
        if flags & SIDE_ROOT_ONLY == 0 && !others_move {
            return 0;
        }
        if typed && flags & SIDE_ARRAY != 0 {
            return typed_array_bytes(c, wide, fortran_types, s, sr, less);
        }
        side_bytes(c, flags, wide, s, is_root, sr, less)
    };
    let rule = |flags: i32| {
        if a.shape & SHAPE_IN_PLACE != 0 {
            (flags >> IN_PLACE_SHIFT) & 7
        } else {
            0
        }
    };
    let bytes = |flags: i32, s: &CollSide, sr: (i32, i32)| match rule(flags) {
        IN_PLACE_ZERO => 0,
        r => side(flags, s, sr, r == IN_PLACE_LESS_OWN),
    };
    let (sent, received) = if a.shape & SHAPE_SCAN != 0 {
        scan_bytes(c, a, size_rank)
    } else {
        let received = bytes(recv_flags, &a.recv, recv_rank);
        let sent = match rule(send_flags) {
            IN_PLACE_AS_OTHER => received,
            IN_PLACE_OWN_TIMES_OTHERS => side(
                SIDE_PRESENT | SIDE_AT_RANK | SIDE_TIMES_SIZE,
                &a.recv,
                recv_rank,
                true,
            ),
            _ => bytes(send_flags, &a.send, send_rank),
        };
        (sent, received)
    };
    let now = clock::ticks();
    events::message(
        t,
        &Message {
            direction: Direction::Collective,
            node,
            peer: world_root,
            comm_peer: a.root,
            tag: 0,
            comm,
            bytes: sent,
            received,
            ticks: now.saturating_sub(start),
            start,
            request: None,
        },
        now,
    );
}

/// After a call that posts a non-blocking or persistent message, with the
/// request handle it returned.
///
/// # Safety
/// None beyond the C ABI.
pub unsafe fn post(a: &MsgArgs, request: u64) {
    let Some(Call {
        t,
        node,
        start,
        c,
        comm,
    }) = Call::of(a)
    else {
        return;
    };
    let Some(world_peer) = peer_of(c, a.kind & 3, a.peer, comm) else {
        return;
    };
    let posted = Posted {
        request: handle(c, request),
        send: a.kind & 3 == SEND,
        persistent: a.kind & PERSISTENT != 0,
        peer: world_peer,
        comm_peer: a.peer,
        tag: a.tag,
        comm,
        bytes: bytes_of(a.count, handle(c, a.datatype)),
        started: false,
    };
    let now = clock::ticks();
    events::posted(
        t,
        &Post {
            send: posted.send,
            persistent: posted.persistent,
            peer: posted.peer,
            comm_peer: posted.comm_peer,
            tag: posted.tag,
            comm,
            bytes: posted.bytes,
            request: posted.request,
            started: false,
        },
        // At the call's entry, as a blocking send: a receiver polling
        // with `MPI_Test` can see the message before this process
        // returns from the call.
        start,
    );
    // A request the library completed at once under a shared handle, or
    // no room to follow it: count the message here.
    let ticks = now.saturating_sub(start);
    if posted.request == c.shared_complete {
        record(t, node, &posted, None, now, start, ticks);
        return;
    }
    match requests::mine().post(posted) {
        PostOutcome::Followed => {}
        PostOutcome::Full | PostOutcome::Shared(None) => {
            record(t, node, &posted, None, now, start, ticks)
        }
        PostOutcome::Shared(Some(before)) => {
            record(t, node, &before, None, now, start, 0);
            record(t, node, &posted, None, now, start, ticks);
        }
    }
}

/// After `MPI_Start`/`MPI_Startall`: its `n` requests (`elem` bytes each)
/// start their messages, posted here in the trace (the profile counts
/// each at its completion). Requests not followed (not persistent, or
/// made where the map was full) are left alone.
///
/// # Safety
/// `reqs` must point to `n` handles of `elem` bytes.
pub unsafe fn start(id: u32, n: i32, reqs: *const c_void, elem: i32) {
    if reqs.is_null() || n <= 0 {
        return;
    }
    let Some((t, _, entry)) = open_call(id) else {
        return;
    };
    let Some(c) = pmpi::consts() else { return };
    let m = requests::mine();
    for i in 0..n as usize {
        let Some(p) = m.start(handle(c, read_handle(reqs, elem, i))) else {
            continue;
        };
        events::posted(
            t,
            &Post {
                send: p.send,
                persistent: true,
                peer: p.peer,
                comm_peer: p.comm_peer,
                tag: p.tag,
                comm: p.comm,
                bytes: p.bytes,
                request: p.request,
                started: true,
            },
            // At the call's entry (see `post`).
            entry,
        );
    }
}

/// Before a `Wait*`/`Test*` call: its `n` request handles (`elem` bytes
/// each: `sizeof(MPI_Request)`), which the call may overwrite.
///
/// # Safety
/// `reqs` must point to `n` handles of `elem` bytes.
pub unsafe fn requests_before(n: i32, reqs: *const c_void, elem: i32) {
    if MODE.load(Relaxed) != ON || reqs.is_null() || n <= 0 {
        return;
    }
    let Some(c) = pmpi::consts() else { return };
    let m = requests::mine();
    m.set_before((0..n as usize).map(|i| handle(c, read_handle(reqs, elem, i))));
}

/// After a `Wait*`/`Test*` call: which requests completed. `all` non-zero:
/// every request copied by `requests_before` (Wait, Waitall, Test and
/// Testall with a true flag); zero: those whose handle changed (Waitany,
/// Waitsome, Testany, Testsome, a false flag). `statuses` (null or
/// `MPI_STATUS(ES)_IGNORE` when none) gives sources and sizes.
///
/// # Safety
/// `reqs` as for `requests_before`; `statuses` null, the ignore marker,
/// or `n` statuses.
pub unsafe fn requests_after(
    id: u32,
    n: i32,
    reqs: *const c_void,
    elem: i32,
    all: i32,
    statuses: *const c_void,
) {
    let Some((t, node, start)) = open_call(id) else {
        return;
    };
    let Some(c) = pmpi::consts() else { return };
    let m = requests::mine();
    let now = clock::ticks();
    let statuses = statuses as *const u8;
    let have_status = c.real_status(statuses);
    // Matches first (the time of the call is shared among them).
    let mut done = [0usize; requests::BATCH];
    let mut found = 0usize;
    let before_len = m.before().len().min(n.max(0) as usize);
    let mut i = 0;
    while i < before_len {
        let h = m.before()[i];
        let completed = all != 0 || handle(c, read_handle(reqs, elem, i)) != h;
        if completed && found < done.len() {
            done[found] = i;
            found += 1;
        }
        i += 1;
    }
    if found == 0 {
        return;
    }
    let share = now.saturating_sub(start) / found as u64;
    for &i in &done[..found] {
        let h = m.before()[i];
        match m.complete(h) {
            Some(p) => {
                let st = have_status.then(|| statuses.add(i * c.status_size));
                record(t, node, &p, st, now, start, share);
            }
            None => m.unmatched += 1,
        }
    }
}

/// `MPI_Request_free(&request)`: before the call, the handle.
pub fn request_free(request: u64) {
    if MODE.load(Relaxed) != ON {
        return;
    }
    let Some(c) = pmpi::consts() else { return };
    // SAFETY: the map of this thread, in a probe.
    unsafe { requests::mine().forget(handle(c, request)) };
}

unsafe fn read_handle(reqs: *const c_void, elem: i32, i: usize) -> u64 {
    match elem {
        4 => (reqs as *const u32).add(i).read_unaligned() as u64,
        _ => (reqs as *const u64).add(i).read_unaligned(),
    }
}

/// A request's message completed at `now` (`ticks`: its share of the
/// completing call's time).
#[allow(clippy::too_many_arguments)]
unsafe fn record(
    t: *const ThreadState,
    node: u32,
    p: &Posted,
    status: Option<*const u8>,
    now: u64,
    start: u64,
    ticks: u64,
) {
    let (mut peer, mut comm_peer, mut tag, mut bytes) = (p.peer, p.comm_peer, p.tag, p.bytes);
    if let (false, Some(st), Some(c)) = (p.send, status, pmpi::consts()) {
        let (src, got_tag) = c.status_source_tag(st);
        peer = to_world(p.comm, src);
        comm_peer = src;
        tag = got_tag;
        bytes = c.status_bytes(st);
    }
    events::message(
        t,
        &Message {
            direction: if p.send {
                Direction::Send
            } else {
                Direction::Recv
            },
            node,
            peer,
            comm_peer,
            tag,
            comm: p.comm,
            bytes,
            received: 0,
            ticks,
            start,
            request: Some(Request {
                handle: p.request,
                persistent: p.persistent,
                started: p.started,
            }),
        },
        now,
    );
}
