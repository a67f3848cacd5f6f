//! Regio's event trace format (documented in `docs/trace-format.md`).
//!
//! A trace file holds one thread's events: a header that lists every event
//! type with its fields and their encodings (so a reader skips types it does
//! not know, as Pablo's SDDF and PVM 3.4's descriptors allowed), then blocks,
//! each with its length, thread, base time and checksum, so a file cut short
//! is readable up to its last complete block. Records carry the time as a
//! LEB128 delta from the thread's previous event and region ids as the
//! difference from the block's previous region: an enter or exit takes 3
//! bytes for a repeated call a few hundred ticks apart, and rarely more
//! than 6. Version 2 (region differences, a word-wise block checksum)
//! still reads version-1 files.
//!
//! ```
//! use regio_trace_format::{decode, write_file_header, Block, Event, FileMeta};
//! let meta = FileMeta { rank: 0, size: 1, pid: 7, thread: 0, os_tid: 7,
//!     ticks_per_second: 1e9, start_ticks: 0, start_unix_ns: 0,
//!     clock_source: "clock_gettime", host: "h" };
//! let mut file = vec![0u8; 4096];
//! let mut len = write_file_header(&mut file, &meta).unwrap();
//! let mut buf = [0u8; 128];
//! let mut block = Block::new(0, 1000);
//! block.enter(&mut buf, 1010, 4).unwrap();
//! block.exit(&mut buf, 1500, 4).unwrap();
//! let bytes = block.finish(&mut buf).unwrap();
//! file[len..len + bytes.len()].copy_from_slice(bytes);
//! len += bytes.len();
//! let trace = decode(&file[..len]).unwrap();
//! assert_eq!(trace.records[1].ticks, 1500);
//! assert_eq!(trace.records[1].event, Event::Exit { region: 4 });
//! ```

mod decode;
mod encode;
mod event;
pub mod naming;
mod raw;
pub mod schema;
pub mod varint;

pub use decode::{decode, DecodeError, FileHeader, TraceFile, Truncation, TypeDesc};
pub use encode::{
    block_checksum, block_header, rank_offset, rank_patch, region_record_len, write_file_header,
    Block, FileMeta, Full, PreparedRecord, BLOCK_HEADER_LEN, BLOCK_MAGIC, COUNT_UNKNOWN, MAGIC,
    SHORT_REGION_RECORD_LEN, VERSION,
};
pub use event::{collective, Event, Record, SyncPhase, Value};
pub use naming::{parse_trace_file_name, trace_file_name, TRACE_PREFIX, TRACE_SUFFIX};
pub use raw::{raw_code_word, raw_region_record, NotRaw, RAW_REGION_RECORD_LEN};

#[cfg(test)]
mod tests;
