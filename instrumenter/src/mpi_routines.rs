//! The MPI routines both front ends know by name: one row per routine
//! with what happens around its call and which arguments hold what.
//!
//! Every call whose callee starts with `MPI_` is an `mpi_*` region whether
//! or not it has a row here; a row adds the arguments recorded in the
//! region's `aux` and the probes some routines need (after `MPI_Init`,
//! before `MPI_Abort`). Adding a routine is adding one row to [`ROUTINES`].
//!
//! Positions are 0-based in the C binding. The Fortran bindings (`mpif.h`,
//! `use mpi`, `use mpi_f08`) take the same arguments in the same order
//! with `ierror` added last, so the same positions hold; the exceptions
//! are `MPI_Init` and `MPI_Init_thread`, which have no `argc`/`argv` in
//! Fortran (their rows hold no positions). The rows were generated from
//! the parameter names of MPICH 4.0.2's `mpi_proto.h` and `mpio.h` (MPI
//! 4.0) and checked against the argument names of its `mpi_f08` module
//! (`python3 notes/check-mpi-routines.py` repeats the check).
//! The large-count C variants (`MPI_Send_c`) take the arguments of the
//! routine without `_c` and have no rows of their own.

use serde_json::{Map, Value};

/// What an argument holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The rank a message goes to.
    Dest,
    /// The rank a message comes from (or `MPI_ANY_SOURCE`).
    Source,
    Tag,
    /// The tags of a combined send and receive.
    SendTag,
    RecvTag,
    /// The rank a one-sided operation or window lock acts on.
    Target,
    /// The root of a collective (or of a dynamic-process operation).
    Root,
    Comm,
    /// A count of elements (or an array of counts), also of requests.
    Count,
    Datatype,
    /// An `MPI_Status *` (or array of statuses) the call fills in.
    Status,
    /// An `MPI_Request *` (or array of requests): the one a call posts,
    /// or those a completion call waits for or tests.
    Request,
    /// The `int *flag` of a `Test` call.
    Flag,
    /// The `MPI_Comm *` a communicator constructor fills in.
    NewComm,
}

impl Role {
    /// The `aux` key the argument is recorded under. Only the peers and
    /// tags of messages are recorded; the other roles are known (for
    /// tools that need them) but writing them would change every IDF.
    fn aux_key(self) -> Option<&'static str> {
        match self {
            Role::Dest => Some("dest"),
            Role::Source => Some("source"),
            Role::Tag => Some("tag"),
            Role::SendTag => Some("sendtag"),
            Role::RecvTag => Some("recvtag"),
            Role::Target
            | Role::Root
            | Role::Comm
            | Role::Count
            | Role::Datatype
            | Role::Status
            | Role::Request
            | Role::Flag
            | Role::NewComm => None,
        }
    }
}

/// Probes a routine needs besides its region's entry and exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    None,
    /// MPI starts: after the call the runtime asks MPI for the rank.
    StartsMpi,
    /// The call never returns: before it the runtime writes what was
    /// measured (and asks the other ranks on the host to do so).
    Aborts,
    /// MPI ends: before the call the runtime measures the clock offsets
    /// against rank 0 a second time.
    EndsMpi,
}

#[derive(Debug)]
pub(crate) struct Routine {
    /// The C spelling, `MPI_Send`.
    pub(crate) name: &'static str,
    pub(crate) effect: Effect,
    /// (role, 0-based argument position); a role may hold several
    /// positions (the send and the receive count of `MPI_Sendrecv`).
    pub(crate) args: &'static [(Role, usize)],
}

const fn r(name: &'static str, args: &'static [(Role, usize)]) -> Routine {
    Routine {
        name,
        effect: Effect::None,
        args,
    }
}

impl Routine {
    const fn starts_mpi(self) -> Routine {
        Routine {
            effect: Effect::StartsMpi,
            ..self
        }
    }

    const fn ends_mpi(self) -> Routine {
        Routine {
            effect: Effect::EndsMpi,
            ..self
        }
    }

    const fn aborts(self) -> Routine {
        Routine {
            effect: Effect::Aborts,
            ..self
        }
    }
}

use Role::*;

/// The MPI 4.0 routines of the families the issue lists (datatype,
/// operator, info, error-handler and attribute routines have no rows:
/// their arguments hold none of the roles above, and they need no probes).
#[rustfmt::skip]
pub(crate) const ROUTINES: &[Routine] = &[
    // Environment: start, end, abort, sessions.
    r("MPI_Abort", &[(Comm, 0)]).aborts(),
    r("MPI_Finalize", &[]).ends_mpi(),
    r("MPI_Finalized", &[]),
    r("MPI_Init", &[]).starts_mpi(),
    r("MPI_Init_thread", &[]).starts_mpi(),
    r("MPI_Initialized", &[]),
    r("MPI_Is_thread_main", &[]),
    r("MPI_Query_thread", &[]),
    r("MPI_Session_call_errhandler", &[]),
    r("MPI_Session_create_errhandler", &[]),
    r("MPI_Session_finalize", &[]),
    r("MPI_Session_get_errhandler", &[]),
    r("MPI_Session_get_info", &[]),
    r("MPI_Session_get_nth_pset", &[]),
    r("MPI_Session_get_num_psets", &[]),
    r("MPI_Session_get_pset_info", &[]),
    r("MPI_Session_init", &[]),
    r("MPI_Session_set_errhandler", &[]),
    // Point-to-point: blocking, nonblocking, persistent (`_init`), partitioned, matched probe, completion.
    r("MPI_Bsend", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5)]),
    r("MPI_Bsend_init", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Buffer_attach", &[]),
    r("MPI_Buffer_detach", &[]),
    r("MPI_Cancel", &[]),
    r("MPI_Ibsend", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Improbe", &[(Source, 0), (Tag, 1), (Comm, 2)]),
    r("MPI_Imrecv", &[(Count, 1), (Datatype, 2)]),
    r("MPI_Iprobe", &[(Source, 0), (Tag, 1), (Comm, 2)]),
    r("MPI_Irecv", &[(Count, 1), (Datatype, 2), (Source, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Irsend", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Isend", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Isendrecv", &[(Count, 1), (Datatype, 2), (Dest, 3), (SendTag, 4), (Count, 6), (Datatype, 7), (Source, 8), (RecvTag, 9), (Comm, 10)]),
    r("MPI_Isendrecv_replace", &[(Count, 1), (Datatype, 2), (Dest, 3), (SendTag, 4), (Source, 5), (RecvTag, 6), (Comm, 7)]),
    r("MPI_Issend", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Mprobe", &[(Source, 0), (Tag, 1), (Comm, 2)]),
    r("MPI_Mrecv", &[(Count, 1), (Datatype, 2)]),
    r("MPI_Parrived", &[]),
    r("MPI_Pready", &[]),
    r("MPI_Pready_list", &[]),
    r("MPI_Pready_range", &[]),
    r("MPI_Precv_init", &[(Count, 2), (Datatype, 3), (Source, 4), (Tag, 5), (Comm, 6)]),
    r("MPI_Probe", &[(Source, 0), (Tag, 1), (Comm, 2)]),
    r("MPI_Psend_init", &[(Count, 2), (Datatype, 3), (Dest, 4), (Tag, 5), (Comm, 6)]),
    r("MPI_Recv", &[(Count, 1), (Datatype, 2), (Source, 3), (Tag, 4), (Comm, 5), (Status, 6)]),
    r("MPI_Recv_init", &[(Count, 1), (Datatype, 2), (Source, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Request_free", &[(Request, 0)]),
    r("MPI_Request_get_status", &[]),
    r("MPI_Rsend", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5)]),
    r("MPI_Rsend_init", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Send", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5)]),
    r("MPI_Send_init", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Sendrecv", &[(Count, 1), (Datatype, 2), (Dest, 3), (SendTag, 4), (Count, 6), (Datatype, 7), (Source, 8), (RecvTag, 9), (Comm, 10), (Status, 11)]),
    r("MPI_Sendrecv_replace", &[(Count, 1), (Datatype, 2), (Dest, 3), (SendTag, 4), (Source, 5), (RecvTag, 6), (Comm, 7), (Status, 8)]),
    r("MPI_Ssend", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5)]),
    r("MPI_Ssend_init", &[(Count, 1), (Datatype, 2), (Dest, 3), (Tag, 4), (Comm, 5), (Request, 6)]),
    r("MPI_Start", &[(Request, 0)]),
    r("MPI_Startall", &[(Count, 0), (Request, 1)]),
    r("MPI_Test", &[(Request, 0), (Flag, 1), (Status, 2)]),
    r("MPI_Test_cancelled", &[]),
    r("MPI_Testall", &[(Count, 0), (Request, 1), (Flag, 2), (Status, 3)]),
    r("MPI_Testany", &[(Count, 0), (Request, 1)]),
    r("MPI_Testsome", &[(Count, 0), (Request, 1)]),
    r("MPI_Wait", &[(Request, 0), (Status, 1)]),
    r("MPI_Waitall", &[(Count, 0), (Request, 1), (Status, 2)]),
    r("MPI_Waitany", &[(Count, 0), (Request, 1)]),
    r("MPI_Waitsome", &[(Count, 0), (Request, 1)]),
    // Collectives: blocking, nonblocking (`I`), persistent (`_init`), neighbourhood.
    r("MPI_Allgather", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Allgather_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Allgatherv", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Comm, 7)]),
    r("MPI_Allgatherv_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Comm, 7)]),
    r("MPI_Allreduce", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Allreduce_init", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Alltoall", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Alltoall_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Alltoallv", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Alltoallv_init", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Alltoallw", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Alltoallw_init", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Barrier", &[(Comm, 0)]),
    r("MPI_Barrier_init", &[(Comm, 0)]),
    r("MPI_Bcast", &[(Count, 1), (Datatype, 2), (Root, 3), (Comm, 4)]),
    r("MPI_Bcast_init", &[(Count, 1), (Datatype, 2), (Root, 3), (Comm, 4)]),
    r("MPI_Exscan", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Exscan_init", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Gather", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Root, 6), (Comm, 7)]),
    r("MPI_Gather_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Root, 6), (Comm, 7)]),
    r("MPI_Gatherv", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Root, 7), (Comm, 8)]),
    r("MPI_Gatherv_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Root, 7), (Comm, 8)]),
    r("MPI_Iallgather", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Iallgatherv", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Comm, 7)]),
    r("MPI_Iallreduce", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Ialltoall", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Ialltoallv", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Ialltoallw", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Ibarrier", &[(Comm, 0)]),
    r("MPI_Ibcast", &[(Count, 1), (Datatype, 2), (Root, 3), (Comm, 4)]),
    r("MPI_Iexscan", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Igather", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Root, 6), (Comm, 7)]),
    r("MPI_Igatherv", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Root, 7), (Comm, 8)]),
    r("MPI_Ineighbor_allgather", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Ineighbor_allgatherv", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Comm, 7)]),
    r("MPI_Ineighbor_alltoall", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Ineighbor_alltoallv", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Ineighbor_alltoallw", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Ireduce", &[(Count, 2), (Datatype, 3), (Root, 5), (Comm, 6)]),
    r("MPI_Ireduce_scatter", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Ireduce_scatter_block", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Iscan", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Iscatter", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Root, 6), (Comm, 7)]),
    r("MPI_Iscatterv", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 6), (Root, 7), (Comm, 8)]),
    r("MPI_Neighbor_allgather", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Neighbor_allgather_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Neighbor_allgatherv", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Comm, 7)]),
    r("MPI_Neighbor_allgatherv_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 6), (Comm, 7)]),
    r("MPI_Neighbor_alltoall", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Neighbor_alltoall_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Comm, 6)]),
    r("MPI_Neighbor_alltoallv", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Neighbor_alltoallv_init", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Neighbor_alltoallw", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Neighbor_alltoallw_init", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 7), (Comm, 8)]),
    r("MPI_Reduce", &[(Count, 2), (Datatype, 3), (Root, 5), (Comm, 6)]),
    r("MPI_Reduce_init", &[(Count, 2), (Datatype, 3), (Root, 5), (Comm, 6)]),
    r("MPI_Reduce_local", &[(Count, 2), (Datatype, 3)]),
    r("MPI_Reduce_scatter", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Reduce_scatter_block", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Reduce_scatter_block_init", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Reduce_scatter_init", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Scan", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Scan_init", &[(Count, 2), (Datatype, 3), (Comm, 5)]),
    r("MPI_Scatter", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Root, 6), (Comm, 7)]),
    r("MPI_Scatter_init", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Root, 6), (Comm, 7)]),
    r("MPI_Scatterv", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 6), (Root, 7), (Comm, 8)]),
    r("MPI_Scatterv_init", &[(Count, 1), (Datatype, 3), (Count, 5), (Datatype, 6), (Root, 7), (Comm, 8)]),
    // One-sided: windows, communication, synchronisation.
    r("MPI_Accumulate", &[(Count, 1), (Datatype, 2), (Target, 3), (Count, 5), (Datatype, 6)]),
    r("MPI_Compare_and_swap", &[(Datatype, 3), (Target, 4)]),
    r("MPI_Fetch_and_op", &[(Datatype, 2), (Target, 3)]),
    r("MPI_Get", &[(Count, 1), (Datatype, 2), (Target, 3), (Count, 5), (Datatype, 6)]),
    r("MPI_Get_accumulate", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Target, 6), (Count, 8), (Datatype, 9)]),
    r("MPI_Put", &[(Count, 1), (Datatype, 2), (Target, 3), (Count, 5), (Datatype, 6)]),
    r("MPI_Raccumulate", &[(Count, 1), (Datatype, 2), (Target, 3), (Count, 5), (Datatype, 6)]),
    r("MPI_Rget", &[(Count, 1), (Datatype, 2), (Target, 3), (Count, 5), (Datatype, 6)]),
    r("MPI_Rget_accumulate", &[(Count, 1), (Datatype, 2), (Count, 4), (Datatype, 5), (Target, 6), (Count, 8), (Datatype, 9)]),
    r("MPI_Rput", &[(Count, 1), (Datatype, 2), (Target, 3), (Count, 5), (Datatype, 6)]),
    r("MPI_Win_allocate", &[(Comm, 3)]),
    r("MPI_Win_allocate_shared", &[(Comm, 3)]),
    r("MPI_Win_attach", &[]),
    r("MPI_Win_call_errhandler", &[]),
    r("MPI_Win_complete", &[]),
    r("MPI_Win_create", &[(Comm, 4)]),
    r("MPI_Win_create_dynamic", &[(Comm, 1)]),
    r("MPI_Win_create_errhandler", &[]),
    r("MPI_Win_create_keyval", &[]),
    r("MPI_Win_delete_attr", &[]),
    r("MPI_Win_detach", &[]),
    r("MPI_Win_fence", &[]),
    r("MPI_Win_flush", &[(Target, 0)]),
    r("MPI_Win_flush_all", &[]),
    r("MPI_Win_flush_local", &[(Target, 0)]),
    r("MPI_Win_flush_local_all", &[]),
    r("MPI_Win_free", &[]),
    r("MPI_Win_free_keyval", &[]),
    r("MPI_Win_get_attr", &[]),
    r("MPI_Win_get_errhandler", &[]),
    r("MPI_Win_get_group", &[]),
    r("MPI_Win_get_info", &[]),
    r("MPI_Win_get_name", &[]),
    r("MPI_Win_lock", &[(Target, 1)]),
    r("MPI_Win_lock_all", &[]),
    r("MPI_Win_post", &[]),
    r("MPI_Win_set_attr", &[]),
    r("MPI_Win_set_errhandler", &[]),
    r("MPI_Win_set_info", &[]),
    r("MPI_Win_set_name", &[]),
    r("MPI_Win_shared_query", &[(Target, 1)]),
    r("MPI_Win_start", &[]),
    r("MPI_Win_sync", &[]),
    r("MPI_Win_test", &[]),
    r("MPI_Win_unlock", &[(Target, 0)]),
    r("MPI_Win_unlock_all", &[]),
    r("MPI_Win_wait", &[]),
    // I/O: `MPI_File_*`.
    r("MPI_File_call_errhandler", &[]),
    r("MPI_File_close", &[]),
    r("MPI_File_create_errhandler", &[]),
    r("MPI_File_delete", &[]),
    r("MPI_File_get_amode", &[]),
    r("MPI_File_get_atomicity", &[]),
    r("MPI_File_get_byte_offset", &[]),
    r("MPI_File_get_errhandler", &[]),
    r("MPI_File_get_group", &[]),
    r("MPI_File_get_info", &[]),
    r("MPI_File_get_position", &[]),
    r("MPI_File_get_position_shared", &[]),
    r("MPI_File_get_size", &[]),
    r("MPI_File_get_type_extent", &[(Datatype, 1)]),
    r("MPI_File_get_view", &[]),
    r("MPI_File_iread", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_iread_all", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_iread_at", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_iread_at_all", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_iread_shared", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_iwrite", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_iwrite_all", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_iwrite_at", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_iwrite_at_all", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_iwrite_shared", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_open", &[(Comm, 0)]),
    r("MPI_File_preallocate", &[]),
    r("MPI_File_read", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_read_all", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_read_all_begin", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_read_all_end", &[]),
    r("MPI_File_read_at", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_read_at_all", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_read_at_all_begin", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_read_at_all_end", &[]),
    r("MPI_File_read_ordered", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_read_ordered_begin", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_read_ordered_end", &[]),
    r("MPI_File_read_shared", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_seek", &[]),
    r("MPI_File_seek_shared", &[]),
    r("MPI_File_set_atomicity", &[]),
    r("MPI_File_set_errhandler", &[]),
    r("MPI_File_set_info", &[]),
    r("MPI_File_set_size", &[]),
    r("MPI_File_set_view", &[(Datatype, 2), (Datatype, 3)]),
    r("MPI_File_sync", &[]),
    r("MPI_File_write", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_write_all", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_write_all_begin", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_write_all_end", &[]),
    r("MPI_File_write_at", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_write_at_all", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_write_at_all_begin", &[(Count, 3), (Datatype, 4)]),
    r("MPI_File_write_at_all_end", &[]),
    r("MPI_File_write_ordered", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_write_ordered_begin", &[(Count, 2), (Datatype, 3)]),
    r("MPI_File_write_ordered_end", &[]),
    r("MPI_File_write_shared", &[(Count, 2), (Datatype, 3)]),
    r("MPI_Register_datarep", &[]),
    // Communicators, groups, topologies, name service and dynamic processes.
    r("MPI_Cart_coords", &[(Comm, 0)]),
    r("MPI_Cart_create", &[(Comm, 0), (NewComm, 5)]),
    r("MPI_Cart_get", &[(Comm, 0)]),
    r("MPI_Cart_map", &[(Comm, 0)]),
    r("MPI_Cart_rank", &[(Comm, 0)]),
    r("MPI_Cart_shift", &[(Comm, 0)]),
    r("MPI_Cart_sub", &[(Comm, 0), (NewComm, 2)]),
    r("MPI_Cartdim_get", &[(Comm, 0)]),
    r("MPI_Close_port", &[]),
    r("MPI_Comm_accept", &[(Root, 2), (Comm, 3)]),
    r("MPI_Comm_call_errhandler", &[(Comm, 0)]),
    r("MPI_Comm_compare", &[(Comm, 0), (Comm, 1)]),
    r("MPI_Comm_connect", &[(Root, 2), (Comm, 3)]),
    r("MPI_Comm_create", &[(Comm, 0), (NewComm, 2)]),
    r("MPI_Comm_create_errhandler", &[]),
    r("MPI_Comm_create_from_group", &[]),
    r("MPI_Comm_create_group", &[(Comm, 0), (Tag, 2), (NewComm, 3)]),
    r("MPI_Comm_create_keyval", &[]),
    r("MPI_Comm_delete_attr", &[(Comm, 0)]),
    r("MPI_Comm_disconnect", &[(Comm, 0)]),
    r("MPI_Comm_dup", &[(Comm, 0), (NewComm, 1)]),
    r("MPI_Comm_dup_with_info", &[(Comm, 0), (NewComm, 2)]),
    r("MPI_Comm_free", &[(Comm, 0)]),
    r("MPI_Comm_free_keyval", &[]),
    r("MPI_Comm_get_attr", &[(Comm, 0)]),
    r("MPI_Comm_get_errhandler", &[(Comm, 0)]),
    r("MPI_Comm_get_info", &[(Comm, 0)]),
    r("MPI_Comm_get_name", &[(Comm, 0)]),
    r("MPI_Comm_get_parent", &[]),
    r("MPI_Comm_group", &[(Comm, 0)]),
    r("MPI_Comm_idup", &[(Comm, 0), (NewComm, 1)]),
    r("MPI_Comm_idup_with_info", &[(Comm, 0), (NewComm, 2)]),
    r("MPI_Comm_join", &[]),
    r("MPI_Comm_rank", &[(Comm, 0)]),
    r("MPI_Comm_remote_group", &[(Comm, 0)]),
    r("MPI_Comm_remote_size", &[(Comm, 0)]),
    r("MPI_Comm_set_attr", &[(Comm, 0)]),
    r("MPI_Comm_set_errhandler", &[(Comm, 0)]),
    r("MPI_Comm_set_info", &[(Comm, 0)]),
    r("MPI_Comm_set_name", &[(Comm, 0)]),
    r("MPI_Comm_size", &[(Comm, 0)]),
    r("MPI_Comm_spawn", &[(Root, 4), (Comm, 5)]),
    r("MPI_Comm_spawn_multiple", &[(Count, 0), (Root, 5), (Comm, 6)]),
    r("MPI_Comm_split", &[(Comm, 0), (NewComm, 3)]),
    r("MPI_Comm_split_type", &[(Comm, 0), (NewComm, 4)]),
    r("MPI_Comm_test_inter", &[(Comm, 0)]),
    r("MPI_Dims_create", &[]),
    r("MPI_Dist_graph_create", &[(Comm, 0), (NewComm, 8)]),
    r("MPI_Dist_graph_create_adjacent", &[(Comm, 0), (NewComm, 9)]),
    r("MPI_Dist_graph_neighbors", &[(Comm, 0)]),
    r("MPI_Dist_graph_neighbors_count", &[(Comm, 0)]),
    r("MPI_Graph_create", &[(Comm, 0), (NewComm, 5)]),
    r("MPI_Graph_get", &[(Comm, 0)]),
    r("MPI_Graph_map", &[(Comm, 0)]),
    r("MPI_Graph_neighbors", &[(Comm, 0)]),
    r("MPI_Graph_neighbors_count", &[(Comm, 0)]),
    r("MPI_Graphdims_get", &[(Comm, 0)]),
    r("MPI_Group_compare", &[]),
    r("MPI_Group_difference", &[]),
    r("MPI_Group_excl", &[]),
    r("MPI_Group_free", &[]),
    r("MPI_Group_from_session_pset", &[]),
    r("MPI_Group_incl", &[]),
    r("MPI_Group_intersection", &[]),
    r("MPI_Group_range_excl", &[]),
    r("MPI_Group_range_incl", &[]),
    r("MPI_Group_rank", &[]),
    r("MPI_Group_size", &[]),
    r("MPI_Group_translate_ranks", &[]),
    r("MPI_Group_union", &[]),
    r("MPI_Intercomm_create", &[(Comm, 0), (Comm, 2), (Tag, 4), (NewComm, 5)]),
    r("MPI_Intercomm_create_from_groups", &[]),
    r("MPI_Intercomm_merge", &[(Comm, 0), (NewComm, 2)]),
    r("MPI_Lookup_name", &[]),
    r("MPI_Open_port", &[]),
    r("MPI_Publish_name", &[]),
    r("MPI_Topo_test", &[(Comm, 0)]),
    r("MPI_Unpublish_name", &[]),
];

/// How a front end's language spells names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// C: names are case-sensitive (`MPI_SEND` is no MPI routine).
    Exact,
    /// Fortran: names are case-insensitive.
    AnyCase,
}

impl Spelling {
    fn same(self, a: &str, b: &str) -> bool {
        match self {
            Spelling::Exact => a == b,
            Spelling::AnyCase => a.eq_ignore_ascii_case(b),
        }
    }
}

/// Whether a callee is an MPI routine: an `mpi_*` region.
pub(crate) fn is_mpi(name: &str, spelling: Spelling) -> bool {
    name.get(..4).is_some_and(|p| spelling.same(p, "MPI_"))
}

/// The region kind suffix of an MPI routine: `MPI_Allreduce` -> `allreduce`.
pub(crate) fn region_kind(name: &str) -> String {
    name.get(4..).unwrap_or_default().to_ascii_lowercase()
}

/// The row of a routine; a large-count variant (`MPI_Send_c`) finds the
/// row of the routine it counts for.
pub(crate) fn find(name: &str, spelling: Spelling) -> Option<&'static Routine> {
    let row = |n: &str| ROUTINES.iter().find(|r| spelling.same(r.name, n));
    row(name).or_else(|| {
        let base = name.strip_suffix("_c").or_else(|| match spelling {
            Spelling::Exact => None,
            Spelling::AnyCase => name.strip_suffix("_C"),
        })?;
        row(base)
    })
}

/// What to probe around a call of `name` besides entry and exit.
pub(crate) fn effect(name: &str, spelling: Spelling) -> Effect {
    find(name, spelling).map_or(Effect::None, |r| r.effect)
}

/// The `aux` entries of an MPI call from its arguments as written: the
/// peers and tags of its row, and the communicator (the last argument
/// that names one: `comm`, `MPI_COMM_WORLD`, ...).
pub(crate) fn argument_aux(name: &str, spelling: Spelling, args: &[String]) -> Map<String, Value> {
    let mut aux = Map::new();
    let roles = find(name, spelling).map_or(&[][..], |r| r.args);
    for &(role, at) in roles {
        if let (Some(key), Some(a)) = (role.aux_key(), args.get(at)) {
            aux.insert(key.into(), Value::from(a.clone()));
        }
    }
    if let Some(comm) = args
        .iter()
        .rev()
        .find(|a| a.to_ascii_lowercase().contains("comm"))
    {
        aux.insert("comm".into(), Value::from(comm.clone()));
    }
    aux
}

/// What a message record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MsgKind {
    Send,
    Recv,
}

impl MsgKind {
    /// The `kind` number of the runtime's MPI probes.
    pub(crate) fn code(self) -> u32 {
        match self {
            MsgKind::Send => 0,
            MsgKind::Recv => 1,
        }
    }

    /// The `kind` number of a post probe: a persistent request (made by
    /// `*_init`, started later) adds 4, so the runtime keeps it after its
    /// completion.
    pub(crate) fn post_code(self, persistent: bool) -> u32 {
        self.code() + if persistent { 4 } else { 0 }
    }
}

/// One message of a call: argument positions of what the runtime needs
/// (None: not an argument of this routine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Msg {
    pub(crate) kind: MsgKind,
    /// Dest, source, or a collective's root.
    pub(crate) peer: Option<usize>,
    pub(crate) tag: Option<usize>,
    pub(crate) comm: usize,
    pub(crate) count: Option<usize>,
    pub(crate) datatype: Option<usize>,
    pub(crate) status: Option<usize>,
}

/// How the run-time values of a call's arguments reach the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Capture {
    /// Blocking calls: the messages, recorded after the call returns.
    Messages(Vec<Msg>),
    /// A non-blocking or persistent call: its message and the request it
    /// returns, followed until a completion call.
    Post {
        msg: Msg,
        request: usize,
        persistent: bool,
    },
    /// `Wait*`/`Test*`: `count` requests at `requests` (one without a
    /// count); `every`: all of them completed when the call returns (or
    /// when `flag` is true), else those whose handle changed.
    Complete {
        count: Option<usize>,
        requests: usize,
        flag: Option<usize>,
        status: Option<usize>,
        every: bool,
    },
    /// `MPI_Request_free`: the request is forgotten.
    RequestFree { request: usize },
    /// `MPI_Start`/`MPI_Startall`: `count` persistent requests at
    /// `requests` (one without a count) start their messages (recorded
    /// after the call returns; the handles do not change).
    Start {
        count: Option<usize>,
        requests: usize,
    },
    /// A collective (blocking or non-blocking): what this process sends
    /// and receives, recorded after the call returns.
    Collective(Coll),
    /// A communicator constructor: the parent at `parent` and the new
    /// communicator the call wrote at `new` (a pointer in C, a variable
    /// in Fortran), handed to the runtime after the call returns so that
    /// every member names it alike in traces; `made` says how.
    CommNew {
        parent: usize,
        new: usize,
        made: Made,
    },
}

/// How a communicator constructor makes its communicator, which decides
/// how the runtime names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Made {
    /// Collective over the parent (split, dup, create, topologies, ...):
    /// `regio_mpi_comm_new`.
    Collective,
    /// `MPI_Comm_idup`: a duplicate whose handle the call writes at once
    /// but which may not be used before its request completes
    /// (`regio_mpi_comm_made` how 1).
    DupAtCall,
    /// `MPI_Comm_create_group`: collective over the group only, with the
    /// tag at this position (`regio_mpi_comm_made` how 2).
    FromGroup { tag: usize },
}

impl Made {
    /// The `how` number of `regio_mpi_comm_made` (0: not that probe).
    pub(crate) fn code(self) -> u32 {
        match self {
            Made::Collective => 0,
            Made::DupAtCall => 1,
            Made::FromGroup { .. } => 2,
        }
    }
}

/// One side (send or receive) of a collective: the argument positions of
/// its count (or array of counts) and datatype, and how the runtime turns
/// them into this process's bytes (`side` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Side {
    pub(crate) count: usize,
    pub(crate) datatype: usize,
    /// `SIDE_*` bits.
    pub(crate) flags: u32,
}

/// The bytes of a side count on the root only (others: 0).
pub(crate) const SIDE_ROOT_ONLY: u32 = 1;
/// Times the communicator's size (one block per rank, own included).
pub(crate) const SIDE_TIMES_SIZE: u32 = 2;
/// The count is an array with one entry per rank: summed.
pub(crate) const SIDE_ARRAY: u32 = 4;
/// The count is an array with one entry per rank: this rank's entry.
pub(crate) const SIDE_AT_RANK: u32 = 8;
/// The side is there (a barrier has neither).
pub(crate) const SIDE_PRESENT: u32 = 16;
/// In the `shape` the runtime receives: the receive side's flags are
/// shifted by this many bits.
pub(crate) const RECV_SHIFT: u32 = 8;
/// In the `shape`: count arrays hold 64-bit `MPI_Count`s (C `_c`
/// large-count variants), else `int`.
pub(crate) const SHAPE_WIDE_COUNTS: u32 = 1 << 16;
/// In the `shape`: the call was given `MPI_IN_PLACE` (set by the capture
/// at run time in C, where the argument is written so in Fortran); the
/// sides' in-place rules apply.
pub(crate) const SHAPE_IN_PLACE: u32 = 1 << 17;
/// In the `shape`: each side's datatype argument is an array of
/// datatypes, one per rank (`MPI_Alltoallw`).
pub(crate) const SHAPE_TYPE_ARRAYS: u32 = 1 << 18;
/// In the `shape`: a neighbourhood collective; "the size" of a side is
/// the process topology's out-degree (send) or in-degree (receive).
pub(crate) const SHAPE_NEIGHBOURS: u32 = 1 << 20;
/// In the `shape`: a prefix reduction (`MPI_Scan`, `MPI_Exscan`), counted
/// as Score-P does by this process's position: rank `me` of `N` sends
/// `N - me` blocks and receives `me + 1`; with `MPI_IN_PLACE` (and always
/// for `MPI_Exscan`, which never sends to itself: its shape carries
/// [`SHAPE_IN_PLACE`]) one block fewer each way.
pub(crate) const SHAPE_SCAN: u32 = 1 << 21;
/// A side's rule with `MPI_IN_PLACE` (Score-P's: the process's own block
/// is not counted), 3 bits from [`IN_PLACE_SHIFT`] of its flags: none,
/// the side is 0, the side without this process's own block (a count
/// times the size less one; an array's sum less this rank's entry), the
/// other side's bytes, or the other side's entry at this rank times the
/// size less one (Allgatherv's send side).
pub(crate) const IN_PLACE_SHIFT: u32 = 5;
pub(crate) const IN_PLACE_ZERO: u32 = 1 << IN_PLACE_SHIFT;
pub(crate) const IN_PLACE_LESS_OWN: u32 = 2 << IN_PLACE_SHIFT;
pub(crate) const IN_PLACE_AS_OTHER: u32 = 3 << IN_PLACE_SHIFT;
pub(crate) const IN_PLACE_OWN_TIMES_OTHERS: u32 = 4 << IN_PLACE_SHIFT;

/// A collective's capture: root (None: no root), communicator, and the
/// send and receive sides (None: no bytes that way, or none known).
///
/// The convention is Score-P's for OTF2's `MpiCollectiveEnd`: every
/// rank, the root included, is one of the ranks a block goes to or comes
/// from; with `MPI_IN_PLACE` a process's own block is not counted (the
/// `IN_PLACE_*` rules: Gather's root sends nothing and receives N - 1
/// blocks, Allreduce sends and receives N - 1 blocks, ...). Bcast: the root sends `count` x size x N, every rank receives
/// `count` x size; Gather: every rank sends `sendcount` x size, the root
/// receives `recvcount` x size x N; Scatter the reverse; Reduce as Gather
/// with one count; Allgather, Alltoall, Allreduce, Reduce_scatter_block:
/// N blocks each way; the `v` variants sum their count arrays;
/// Reduce_scatter sends the sum of `recvcounts` and receives N x its own
/// entry; Scan and Exscan by rank position ([`SHAPE_SCAN`]); `Alltoallw` as `Alltoallv`
/// with one datatype per rank ([`SHAPE_TYPE_ARRAYS`]). Neighbourhood
/// collectives count a block (or an array entry) per neighbour: the
/// process topology's out-degree sending, its in-degree receiving
/// ([`SHAPE_NEIGHBOURS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Coll {
    pub(crate) root: Option<usize>,
    pub(crate) comm: usize,
    pub(crate) send: Option<Side>,
    pub(crate) recv: Option<Side>,
    /// The buffer argument that may be `MPI_IN_PLACE` (the send buffer;
    /// Scatter's receive buffer), if the routine has the option.
    pub(crate) in_place: Option<usize>,
    /// The datatype arguments are arrays, one per rank (`Alltoallw`).
    pub(crate) type_arrays: bool,
    /// A neighbourhood collective (sizes are the topology's degrees).
    pub(crate) neighbours: bool,
    /// A prefix reduction ([`SHAPE_SCAN`]); `Some(true)`: exclusive
    /// (`MPI_Exscan`, always counted as in place).
    pub(crate) scan: Option<bool>,
}

impl Coll {
    /// The `shape` number the runtime's collective probe takes: the send
    /// side's flags, the receive side's shifted by [`RECV_SHIFT`].
    pub(crate) fn shape(&self, wide_counts: bool) -> u32 {
        let flags = |s: Option<Side>| s.map_or(0, |s| s.flags | SIDE_PRESENT);
        flags(self.send)
            | flags(self.recv) << RECV_SHIFT
            | if wide_counts { SHAPE_WIDE_COUNTS } else { 0 }
            | if self.type_arrays {
                SHAPE_TYPE_ARRAYS
            } else {
                0
            }
            | if self.neighbours { SHAPE_NEIGHBOURS } else { 0 }
            | match self.scan {
                None => 0,
                Some(false) => SHAPE_SCAN,
                Some(true) => SHAPE_SCAN | SHAPE_IN_PLACE,
            }
    }
}

/// The collectives recorded (blocking and non-blocking; persistent
/// collectives are not), with how their bytes are counted, and the
/// position of the buffer that may be `MPI_IN_PLACE`.
#[allow(clippy::type_complexity)]
fn collective(
    base: &str,
    at: impl Fn(Role, usize) -> Option<usize>,
) -> Option<(Option<Side>, Option<Side>, Option<usize>)> {
    let side = |nth: usize, flags: u32| {
        Some(Side {
            count: at(Count, nth)?,
            datatype: at(Datatype, nth)?,
            flags,
        })
    };
    const ROOT: u32 = SIDE_ROOT_ONLY;
    const N: u32 = SIDE_TIMES_SIZE;
    const ARRAY: u32 = SIDE_ARRAY;
    const ZERO: u32 = IN_PLACE_ZERO;
    const LESS: u32 = IN_PLACE_LESS_OWN;
    const OTHER: u32 = IN_PLACE_AS_OTHER;
    // The send buffer is the first argument; Scatter's receive buffer
    // comes right before its receive count.
    let send_buf = Some(0);
    let recv_buf = at(Count, 1).map(|c| c - 1);
    let sides = match base {
        "barrier" => (None, None, None),
        "bcast" => (side(0, ROOT | N), side(0, 0), None),
        "gather" => (side(0, ZERO), side(1, ROOT | N | LESS), send_buf),
        "gatherv" => (side(0, ZERO), side(1, ROOT | ARRAY | LESS), send_buf),
        "scatter" => (side(0, ROOT | N | LESS), side(1, ZERO), recv_buf),
        "scatterv" => (side(0, ROOT | ARRAY | LESS), side(1, ZERO), recv_buf),
        "reduce" => (side(0, ZERO), side(0, ROOT | N | LESS), send_buf),
        "allgather" | "alltoall" => (side(0, N | OTHER), side(1, N | LESS), send_buf),
        "allgatherv" => (
            side(0, N | IN_PLACE_OWN_TIMES_OTHERS),
            side(1, ARRAY | LESS),
            send_buf,
        ),
        "alltoallv" | "alltoallw" => (side(0, ARRAY | OTHER), side(1, ARRAY | LESS), send_buf),
        "allreduce" | "reduce_scatter_block" => (side(0, N | LESS), side(0, N | LESS), send_buf),
        "reduce_scatter" => (
            side(0, ARRAY | LESS),
            side(0, SIDE_AT_RANK | N | LESS),
            send_buf,
        ),
        // Blocks by rank position (SHAPE_SCAN); Exscan is always counted
        // as in place (its shape says so), Scan may be given MPI_IN_PLACE.
        "scan" => (side(0, 0), side(0, 0), send_buf),
        "exscan" => (side(0, 0), side(0, 0), None),
        // N is a degree here (SHAPE_NEIGHBOURS); no MPI_IN_PLACE.
        "neighbor_allgather" | "neighbor_alltoall" => (side(0, N), side(1, N), None),
        "neighbor_allgatherv" => (side(0, N), side(1, ARRAY), None),
        "neighbor_alltoallv" | "neighbor_alltoallw" => (side(0, ARRAY), side(1, ARRAY), None),
        _ => return None,
    };
    Some(sides)
}

/// What to capture from a call of `name`, if it moves messages.
pub(crate) fn capture(name: &str, spelling: Spelling) -> Option<Capture> {
    let row = find(name, spelling)?;
    let at = |role: Role, nth: usize| {
        row.args
            .iter()
            .filter(|(r, _)| *r == role)
            .nth(nth)
            .map(|(_, p)| *p)
    };
    let kind = region_kind(row.name);
    let comm = at(Comm, 0);
    let msg = |kind: MsgKind, peer: Option<usize>, tag, nth: usize, status| {
        Some(Msg {
            kind,
            peer,
            tag,
            comm: comm?,
            count: at(Count, nth),
            datatype: at(Datatype, nth),
            status,
        })
    };
    match kind.as_str() {
        "send" | "bsend" | "ssend" | "rsend" => Some(Capture::Messages(vec![msg(
            MsgKind::Send,
            at(Dest, 0),
            at(Tag, 0),
            0,
            None,
        )?])),
        "recv" => Some(Capture::Messages(vec![msg(
            MsgKind::Recv,
            at(Source, 0),
            at(Tag, 0),
            0,
            at(Status, 0),
        )?])),
        "sendrecv" | "sendrecv_replace" => {
            let second = if kind == "sendrecv" { 1 } else { 0 };
            Some(Capture::Messages(vec![
                msg(MsgKind::Send, at(Dest, 0), at(SendTag, 0), 0, None)?,
                msg(
                    MsgKind::Recv,
                    at(Source, 0),
                    at(RecvTag, 0),
                    second,
                    at(Status, 0),
                )?,
            ]))
        }
        "isend" | "ibsend" | "issend" | "irsend" | "send_init" | "bsend_init" | "ssend_init"
        | "rsend_init" => Some(Capture::Post {
            msg: msg(MsgKind::Send, at(Dest, 0), at(Tag, 0), 0, None)?,
            request: at(Request, 0)?,
            persistent: kind.ends_with("_init"),
        }),
        "irecv" | "recv_init" => Some(Capture::Post {
            msg: msg(MsgKind::Recv, at(Source, 0), at(Tag, 0), 0, None)?,
            request: at(Request, 0)?,
            persistent: kind.ends_with("_init"),
        }),
        "wait" | "test" | "waitall" | "testall" | "waitany" | "testany" | "waitsome"
        | "testsome" => Some(Capture::Complete {
            count: at(Count, 0),
            requests: at(Request, 0)?,
            flag: at(Flag, 0),
            status: at(Status, 0),
            every: !(kind.ends_with("any") || kind.ends_with("some")),
        }),
        "request_free" => Some(Capture::RequestFree {
            request: at(Request, 0)?,
        }),
        _ if at(NewComm, 0).is_some() => Some(Capture::CommNew {
            parent: comm?,
            new: at(NewComm, 0)?,
            made: match kind.as_str() {
                "comm_idup" | "comm_idup_with_info" => Made::DupAtCall,
                "comm_create_group" => Made::FromGroup { tag: at(Tag, 0)? },
                _ => Made::Collective,
            },
        }),
        "start" | "startall" => Some(Capture::Start {
            count: at(Count, 0),
            requests: at(Request, 0)?,
        }),
        k => {
            let base = k.strip_prefix('i').filter(|b| collective(b, at).is_some());
            let (send, recv, in_place) = collective(base.unwrap_or(k), at)?;
            Some(Capture::Collective(Coll {
                root: at(Root, 0),
                comm: comm?,
                send,
                recv,
                in_place,
                type_arrays: base.unwrap_or(k).ends_with("alltoallw"),
                neighbours: base.unwrap_or(k).starts_with("neighbor_"),
                scan: match base.unwrap_or(k) {
                    "scan" => Some(false),
                    "exscan" => Some(true),
                    _ => None,
                },
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn one_row_per_routine_in_c_spelling() {
        let mut seen = std::collections::HashSet::new();
        for r in ROUTINES {
            assert!(r.name.starts_with("MPI_"), "{}", r.name);
            assert!(
                seen.insert(r.name.to_ascii_uppercase()),
                "twice: {}",
                r.name
            );
            let mut at: Vec<usize> = r.args.iter().map(|a| a.1).collect();
            at.sort_unstable();
            at.dedup();
            assert_eq!(at.len(), r.args.len(), "a position twice: {}", r.name);
        }
    }

    #[test]
    fn c_names_are_exact_fortran_names_any_case() {
        assert!(find("MPI_Iprobe", Spelling::Exact).is_some());
        assert!(find("MPI_IPROBE", Spelling::Exact).is_none());
        assert_eq!(
            find("mpi_iprobe", Spelling::AnyCase).map(|r| r.name),
            Some("MPI_Iprobe")
        );
        assert!(is_mpi("mpi_send", Spelling::AnyCase));
        assert!(!is_mpi("mpi_send", Spelling::Exact));
        assert!(!is_mpi("MPI", Spelling::Exact));
    }

    #[test]
    fn large_count_variants_take_the_base_row() {
        assert_eq!(
            find("MPI_Send_c", Spelling::Exact).map(|r| r.name),
            Some("MPI_Send")
        );
        assert_eq!(region_kind("MPI_Send_c"), "send_c");
    }

    #[test]
    fn init_and_abort_need_probes() {
        assert_eq!(
            effect("MPI_Init_thread", Spelling::Exact),
            Effect::StartsMpi
        );
        assert_eq!(effect("MPI_INIT", Spelling::AnyCase), Effect::StartsMpi);
        assert_eq!(effect("mpi_abort", Spelling::AnyCase), Effect::Aborts);
        assert_eq!(effect("MPI_Session_init", Spelling::Exact), Effect::None);
        assert_eq!(effect("MPI_Finalize", Spelling::Exact), Effect::EndsMpi);
    }

    #[test]
    fn aux_holds_peers_tags_and_the_communicator() {
        let probe = argument_aux(
            "MPI_PROBE",
            Spelling::AnyCase,
            &args(&["left", "7", "MPI_COMM_WORLD", "status", "ierr"]),
        );
        assert_eq!(
            serde_json::Value::Object(probe).to_string(),
            r#"{"comm":"MPI_COMM_WORLD","source":"left","tag":"7"}"#
        );
        let sendrecv = argument_aux(
            "MPI_Sendrecv",
            Spelling::Exact,
            &args(&[
                "&a", "1", "MPI_INT", "r", "1", "&b", "1", "MPI_INT", "l", "2", "comm", "&st",
            ]),
        );
        assert_eq!(
            serde_json::Value::Object(sendrecv).to_string(),
            r#"{"comm":"comm","dest":"r","recvtag":"2","sendtag":"1","source":"l"}"#
        );
        // Roots, counts and one-sided targets are not recorded.
        let bcast = argument_aux(
            "MPI_Bcast",
            Spelling::Exact,
            &args(&["b", "1", "MPI_INT", "0", "c"]),
        );
        assert!(bcast.is_empty());
    }

    #[test]
    fn captures_name_the_arguments_of_each_message() {
        let Some(Capture::Messages(m)) = capture("MPI_Sendrecv", Spelling::Exact) else {
            panic!("sendrecv");
        };
        assert_eq!(
            (m[0].kind, m[0].peer, m[0].tag, m[0].count, m[0].datatype),
            (MsgKind::Send, Some(3), Some(4), Some(1), Some(2))
        );
        assert_eq!(
            (
                m[1].kind,
                m[1].peer,
                m[1].tag,
                m[1].count,
                m[1].datatype,
                m[1].status
            ),
            (MsgKind::Recv, Some(8), Some(9), Some(6), Some(7), Some(11))
        );
        assert_eq!(m[1].comm, 10);
        assert!(matches!(
            capture("mpi_irecv", Spelling::AnyCase),
            Some(Capture::Post {
                request: 6,
                persistent: false,
                ..
            })
        ));
        assert!(matches!(
            capture("MPI_Send_init", Spelling::Exact),
            Some(Capture::Post {
                persistent: true,
                ..
            })
        ));
        assert_eq!(
            capture("MPI_Testall", Spelling::Exact),
            Some(Capture::Complete {
                count: Some(0),
                requests: 1,
                flag: Some(2),
                status: Some(3),
                every: true
            })
        );
        let Some(Capture::Collective(b)) = capture("MPI_Ibcast", Spelling::Exact) else {
            panic!("ibcast");
        };
        let side = |count, datatype, flags| {
            Some(Side {
                count,
                datatype,
                flags,
            })
        };
        assert_eq!(
            b,
            Coll {
                root: Some(3),
                comm: 4,
                send: side(1, 2, SIDE_ROOT_ONLY | SIDE_TIMES_SIZE),
                recv: side(1, 2, 0),
                in_place: None,
                type_arrays: false,
                neighbours: false,
                scan: None,
            }
        );
        let Some(Capture::Collective(g)) = capture("mpi_gatherv", Spelling::AnyCase) else {
            panic!("gatherv");
        };
        assert_eq!(
            (g.root, g.comm, g.send, g.recv, g.in_place),
            (
                Some(7),
                8,
                side(1, 2, IN_PLACE_ZERO),
                side(4, 6, SIDE_ROOT_ONLY | SIDE_ARRAY | IN_PLACE_LESS_OWN),
                Some(0)
            )
        );
        assert_eq!(
            g.shape(true),
            SIDE_PRESENT
                | IN_PLACE_ZERO
                | (SIDE_PRESENT | SIDE_ROOT_ONLY | SIDE_ARRAY | IN_PLACE_LESS_OWN) << RECV_SHIFT
                | SHAPE_WIDE_COUNTS
        );
        // Scatter's receive buffer may be MPI_IN_PLACE.
        let Some(Capture::Collective(sv)) = capture("MPI_Scatterv", Spelling::Exact) else {
            panic!("scatterv");
        };
        assert_eq!(sv.in_place, Some(4));
        let Some(Capture::Collective(a)) = capture("MPI_Allreduce", Spelling::Exact) else {
            panic!("allreduce");
        };
        let n_less = SIDE_TIMES_SIZE | IN_PLACE_LESS_OWN;
        assert_eq!(
            (a.root, a.send, a.recv, a.in_place),
            (None, side(2, 3, n_less), side(2, 3, n_less), Some(0))
        );
        let Some(Capture::Collective(w)) = capture("MPI_Alltoallw", Spelling::Exact) else {
            panic!("alltoallw");
        };
        assert_eq!(
            (w.send, w.recv, w.type_arrays),
            (
                side(1, 3, SIDE_ARRAY | IN_PLACE_AS_OTHER),
                side(5, 7, SIDE_ARRAY | IN_PLACE_LESS_OWN),
                true
            )
        );
        assert!(w.shape(false) & SHAPE_TYPE_ARRAYS != 0);
        let Some(Capture::Collective(nb)) = capture("MPI_Neighbor_alltoall", Spelling::Exact)
        else {
            panic!("neighbor_alltoall");
        };
        assert_eq!(
            (nb.send, nb.recv, nb.in_place),
            (
                side(1, 2, SIDE_TIMES_SIZE),
                side(4, 5, SIDE_TIMES_SIZE),
                None
            )
        );
        assert!(nb.shape(false) & SHAPE_NEIGHBOURS != 0);
        let Some(Capture::Collective(nw)) = capture("MPI_Ineighbor_alltoallw", Spelling::Exact)
        else {
            panic!("ineighbor_alltoallw");
        };
        assert!(nw.type_arrays && nw.neighbours);
        // Scans count by rank position; Exscan always as in place, Scan
        // when given MPI_IN_PLACE.
        let Some(Capture::Collective(sc)) = capture("MPI_Iscan", Spelling::Exact) else {
            panic!("iscan");
        };
        assert_eq!(
            (sc.send, sc.recv, sc.in_place, sc.scan),
            (side(2, 3, 0), side(2, 3, 0), Some(0), Some(false))
        );
        assert_eq!(sc.shape(false) & (SHAPE_SCAN | SHAPE_IN_PLACE), SHAPE_SCAN);
        let Some(Capture::Collective(ex)) = capture("mpi_exscan", Spelling::AnyCase) else {
            panic!("exscan");
        };
        assert_eq!((ex.in_place, ex.scan), (None, Some(true)));
        assert_eq!(
            ex.shape(false) & (SHAPE_SCAN | SHAPE_IN_PLACE),
            SHAPE_SCAN | SHAPE_IN_PLACE
        );
        assert_eq!(
            capture("MPI_Startall", Spelling::Exact),
            Some(Capture::Start {
                count: Some(0),
                requests: 1
            })
        );
        assert_eq!(
            capture("mpi_start", Spelling::AnyCase),
            Some(Capture::Start {
                count: None,
                requests: 0
            })
        );
        assert_eq!(capture("MPI_Comm_rank", Spelling::Exact), None);
        assert_eq!(
            capture("MPI_Comm_split", Spelling::Exact),
            Some(Capture::CommNew {
                parent: 0,
                new: 3,
                made: Made::Collective
            })
        );
        assert_eq!(
            capture("mpi_dist_graph_create_adjacent", Spelling::AnyCase),
            Some(Capture::CommNew {
                parent: 0,
                new: 9,
                made: Made::Collective
            })
        );
        assert_eq!(
            capture("MPI_Comm_idup_with_info", Spelling::Exact),
            Some(Capture::CommNew {
                parent: 0,
                new: 2,
                made: Made::DupAtCall
            })
        );
        assert_eq!(
            capture("mpi_comm_create_group", Spelling::AnyCase),
            Some(Capture::CommNew {
                parent: 0,
                new: 3,
                made: Made::FromGroup { tag: 2 }
            })
        );
        assert_eq!(capture("MPI_Allreduce_init", Spelling::Exact), None);
    }
}
