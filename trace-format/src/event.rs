//! Events as the decoder returns them (and as [`crate::Block::push`] takes
//! them).

/// One decoded event. Ranks in `peer` are ranks within `comm`; a `comm`
/// event lists the communicator's members as world ranks. Communicator 0 is
/// `MPI_COMM_WORLD` and needs no `comm` event.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Enter {
        region: u32,
    },
    Exit {
        region: u32,
    },
    /// The master thread forks a team for the parallel region `region`.
    OmpFork {
        region: u32,
        team_size: u32,
    },
    OmpJoin {
        region: u32,
    },
    /// This thread starts working in team `team` (a process-wide team
    /// number, the same on every member) as thread `thread_num`.
    OmpTeamBegin {
        team: u64,
        thread_num: u32,
        team_size: u32,
    },
    OmpTeamEnd {
        team: u64,
    },
    /// A blocking send, at its start.
    MpiSend {
        peer: u32,
        comm: u32,
        tag: u32,
        bytes: u64,
    },
    /// A blocking receive, at its end.
    MpiRecv {
        peer: u32,
        comm: u32,
        tag: u32,
        bytes: u64,
    },
    /// A non-blocking send, at the call.
    MpiIsend {
        peer: u32,
        comm: u32,
        tag: u32,
        bytes: u64,
        request: u64,
    },
    /// The send `request` completed (in a Wait or Test).
    MpiIsendComplete {
        request: u64,
    },
    /// A non-blocking receive was posted.
    MpiIrecvRequest {
        request: u64,
    },
    /// The receive `request` completed (in a Wait or Test).
    MpiIrecv {
        peer: u32,
        comm: u32,
        tag: u32,
        bytes: u64,
        request: u64,
    },
    MpiCollectiveBegin,
    /// `op` is a [`crate::collective`] number; `root` is a rank in `comm`.
    MpiCollectiveEnd {
        op: u32,
        comm: u32,
        root: Option<u32>,
        sent: u64,
        received: u64,
    },
    /// `regio_event(name, value)`; `name` is the id of a `String` event.
    User {
        name: u32,
        value: f64,
    },
    /// Defines a string id for later events of this file.
    String {
        id: u32,
        text: String,
    },
    /// Defines communicator `comm`: its name (string id) and members.
    /// An intercommunicator also lists its two groups, `local` (the one
    /// the recording process is in) and `remote`, as world ranks in group
    /// rank order; both are empty for other communicators and in files
    /// written before the fields were appended.
    Comm {
        comm: u32,
        name: u32,
        members: Vec<u32>,
        local: Vec<u32>,
        remote: Vec<u32>,
    },
    /// The buffer was written to the file: from this event's time for
    /// `duration` ticks, `bytes` bytes.
    BufferFlush {
        duration: u64,
        bytes: u64,
    },
    /// The region stopped being recorded (REGIO_THROTTLE).
    Throttled {
        region: u32,
    },
    /// The run-time event mask changed to `mask`.
    Mask {
        mask: u64,
    },
    /// An offset measurement against rank 0's clock: rank 0's time minus
    /// this process's time, in ns, at this event's time, from the exchange
    /// with the smallest round trip. Both times are read on the clock the
    /// synchronisation uses (the runtime's: CLOCK_MONOTONIC); `local_ns`
    /// is this process's reading of it at this event's time (None in files
    /// that predate the field, whose offsets are taken as offsets of the
    /// trace's own times), so a reader relates that clock to the trace's.
    ClockSync {
        phase: SyncPhase,
        offset_ns: i64,
        round_trip_ns: u64,
        local_ns: Option<u64>,
    },
    /// The clock's rate as calibrated so far: `span_ticks` ticks took
    /// `span_ns` ns since start-up. The last one in a file holds for all
    /// of it (the runtime calibrates over the whole run, so a later
    /// measurement is the better one).
    ClockRate {
        span_ticks: u64,
        span_ns: u64,
    },
    /// An event type this version does not know, with its fields as read.
    Unknown {
        code: u8,
        name: String,
        values: Vec<Value>,
    },
}

/// When a clock offset was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPhase {
    Init,
    Finalize,
    /// A phase a newer writer added.
    Other(u64),
}

impl SyncPhase {
    pub fn to_u64(self) -> u64 {
        match self {
            SyncPhase::Init => 0,
            SyncPhase::Finalize => 1,
            SyncPhase::Other(v) => v,
        }
    }

    pub fn from_u64(v: u64) -> SyncPhase {
        match v {
            0 => SyncPhase::Init,
            1 => SyncPhase::Finalize,
            v => SyncPhase::Other(v),
        }
    }
}

/// A field value as the header's type table describes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    U(u64),
    I(i64),
    F64(f64),
    Region(u32),
    Bytes(Vec<u8>),
    UList(Vec<u64>),
}

/// An event with its absolute time in ticks of the file's clock.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub ticks: u64,
    pub event: Event,
}

/// `MPI_*` collective operations, numbered as OTF2's `OTF2_CollectiveOp`.
pub mod collective {
    pub const BARRIER: u32 = 0;
    pub const BCAST: u32 = 1;
    pub const GATHER: u32 = 2;
    pub const GATHERV: u32 = 3;
    pub const SCATTER: u32 = 4;
    pub const SCATTERV: u32 = 5;
    pub const ALLGATHER: u32 = 6;
    pub const ALLGATHERV: u32 = 7;
    pub const ALLTOALL: u32 = 8;
    pub const ALLTOALLV: u32 = 9;
    pub const ALLTOALLW: u32 = 10;
    pub const ALLREDUCE: u32 = 11;
    pub const REDUCE: u32 = 12;
    pub const REDUCE_SCATTER: u32 = 13;
    pub const SCAN: u32 = 14;
    pub const EXSCAN: u32 = 15;
    pub const REDUCE_SCATTER_BLOCK: u32 = 16;
    /// Not a number of OTF2's: the operation of the MPI call region open
    /// at the record (a writer that knows no routine names, like the
    /// runtime, leaves it to the reader).
    pub const OF_REGION: u32 = u32::MAX;
}
