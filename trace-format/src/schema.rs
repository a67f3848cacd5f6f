//! The event types of this version: codes, names, and field lists. The file
//! header repeats this table, so a reader of any version can walk every
//! record by its field types alone and skip the types it does not know.

/// How a field is encoded. This set is the fixed part of the format: a new
/// field type needs a new major version, a new event type or field does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum FieldType {
    /// Unsigned LEB128 varint.
    U = 0,
    /// Signed: zigzag, then LEB128.
    I = 1,
    /// IEEE 754 double, 8 bytes little-endian.
    F64 = 2,
    /// A region id folded to put descriptor ids next to IDF ids
    /// ([`crate::varint::fold_region`]), then LEB128. Version 1 wrote
    /// region fields so; version 2 reads it, writes [`FieldType::RegionDelta`].
    Region = 3,
    /// LEB128 length, then that many bytes (UTF-8 for names).
    Bytes = 4,
    /// LEB128 count, then that many LEB128 varints.
    UList = 5,
    /// A region id as its difference from the previous `RegionDelta` value
    /// of the block (0 at the block's start), in wrapping 32-bit arithmetic,
    /// zigzag, then LEB128 ([`crate::varint::region_delta`]). Since version
    /// 2: ids carry their object's base (2^22 apart) and so took 4 bytes
    /// folded; the difference from the previous region is one byte for the
    /// repeated calls and neighbouring regions that make up most records.
    RegionDelta = 6,
}

impl FieldType {
    pub fn from_u8(v: u8) -> Option<FieldType> {
        Some(match v {
            0 => FieldType::U,
            1 => FieldType::I,
            2 => FieldType::F64,
            3 => FieldType::Region,
            4 => FieldType::Bytes,
            5 => FieldType::UList,
            6 => FieldType::RegionDelta,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    pub name: &'static str,
    pub ty: FieldType,
}

/// One event type as this version writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventDef {
    pub code: u8,
    pub name: &'static str,
    pub fields: &'static [FieldDef],
}

const fn f(name: &'static str, ty: FieldType) -> FieldDef {
    FieldDef { name, ty }
}

use FieldType::{Bytes, RegionDelta, UList, F64, I, U};

/// Codes of the event types this version writes. All below 128, so a code
/// is one byte.
pub mod code {
    pub const ENTER: u8 = 1;
    pub const EXIT: u8 = 2;
    pub const OMP_FORK: u8 = 3;
    pub const OMP_JOIN: u8 = 4;
    pub const OMP_TEAM_BEGIN: u8 = 5;
    pub const OMP_TEAM_END: u8 = 6;
    pub const MPI_SEND: u8 = 7;
    pub const MPI_RECV: u8 = 8;
    pub const MPI_ISEND: u8 = 9;
    pub const MPI_ISEND_COMPLETE: u8 = 10;
    pub const MPI_IRECV_REQUEST: u8 = 11;
    pub const MPI_IRECV: u8 = 12;
    pub const MPI_COLLECTIVE_BEGIN: u8 = 13;
    pub const MPI_COLLECTIVE_END: u8 = 14;
    pub const USER: u8 = 15;
    pub const STRING: u8 = 16;
    pub const COMM: u8 = 17;
    pub const BUFFER_FLUSH: u8 = 18;
    pub const THROTTLED: u8 = 19;
    pub const MASK: u8 = 20;
    pub const CLOCK_SYNC: u8 = 21;
    pub const CLOCK_RATE: u8 = 22;
}

const MSG: &[FieldDef] = &[f("peer", U), f("comm", U), f("tag", U), f("bytes", U)];
const MSG_REQ: &[FieldDef] = &[
    f("peer", U),
    f("comm", U),
    f("tag", U),
    f("bytes", U),
    f("request", U),
];
const REQ: &[FieldDef] = &[f("request", U)];
const REGION: &[FieldDef] = &[f("region", RegionDelta)];

/// Every event type of this version, in code order.
pub const EVENTS: &[EventDef] = &[
    EventDef {
        code: code::ENTER,
        name: "enter",
        fields: REGION,
    },
    EventDef {
        code: code::EXIT,
        name: "exit",
        fields: REGION,
    },
    EventDef {
        code: code::OMP_FORK,
        name: "omp_fork",
        fields: &[f("region", RegionDelta), f("team_size", U)],
    },
    EventDef {
        code: code::OMP_JOIN,
        name: "omp_join",
        fields: REGION,
    },
    EventDef {
        code: code::OMP_TEAM_BEGIN,
        name: "omp_team_begin",
        fields: &[f("team", U), f("thread_num", U), f("team_size", U)],
    },
    EventDef {
        code: code::OMP_TEAM_END,
        name: "omp_team_end",
        fields: &[f("team", U)],
    },
    EventDef {
        code: code::MPI_SEND,
        name: "mpi_send",
        fields: MSG,
    },
    EventDef {
        code: code::MPI_RECV,
        name: "mpi_recv",
        fields: MSG,
    },
    EventDef {
        code: code::MPI_ISEND,
        name: "mpi_isend",
        fields: MSG_REQ,
    },
    EventDef {
        code: code::MPI_ISEND_COMPLETE,
        name: "mpi_isend_complete",
        fields: REQ,
    },
    EventDef {
        code: code::MPI_IRECV_REQUEST,
        name: "mpi_irecv_request",
        fields: REQ,
    },
    EventDef {
        code: code::MPI_IRECV,
        name: "mpi_irecv",
        fields: MSG_REQ,
    },
    EventDef {
        code: code::MPI_COLLECTIVE_BEGIN,
        name: "mpi_collective_begin",
        fields: &[],
    },
    EventDef {
        code: code::MPI_COLLECTIVE_END,
        name: "mpi_collective_end",
        fields: &[
            f("op", U),
            f("comm", U),
            f("root", I),
            f("sent", U),
            f("received", U),
        ],
    },
    EventDef {
        code: code::USER,
        name: "user",
        fields: &[f("name", U), f("value", F64)],
    },
    EventDef {
        code: code::STRING,
        name: "string",
        fields: &[f("id", U), f("text", Bytes)],
    },
    EventDef {
        code: code::COMM,
        name: "comm",
        // `local` and `remote` appended (an intercommunicator's groups).
        fields: &[
            f("comm", U),
            f("name", U),
            f("members", UList),
            f("local", UList),
            f("remote", UList),
        ],
    },
    EventDef {
        code: code::BUFFER_FLUSH,
        name: "buffer_flush",
        fields: &[f("duration", U), f("bytes", U)],
    },
    EventDef {
        code: code::THROTTLED,
        name: "throttled",
        fields: REGION,
    },
    EventDef {
        code: code::MASK,
        name: "mask",
        fields: &[f("mask", U)],
    },
    EventDef {
        code: code::CLOCK_SYNC,
        name: "clock_sync",
        fields: &[
            f("phase", U),
            f("offset_ns", I),
            f("round_trip_ns", U),
            f("local_ns", U),
        ],
    },
    EventDef {
        code: code::CLOCK_RATE,
        name: "clock_rate",
        fields: &[f("span_ticks", U), f("span_ns", U)],
    },
];

/// The definition of `code` in this version.
pub fn event_def(code: u8) -> Option<&'static EventDef> {
    EVENTS.iter().find(|d| d.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_one_byte_and_in_order() {
        for (i, d) in EVENTS.iter().enumerate() {
            assert_eq!(usize::from(d.code), i + 1, "{}", d.name);
            assert!(d.code < 128);
            assert_eq!(event_def(d.code), Some(d));
        }
        let mut names: Vec<_> = EVENTS.iter().map(|d| d.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EVENTS.len());
    }
}
