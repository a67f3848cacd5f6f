//! The reading side: walks the header's type table and the blocks, turns
//! records of known types into [`Event`]s and keeps the others as
//! `Event::Unknown`. A file cut short (a crash during a write, SIGKILL) is
//! read up to its last complete block.

use std::collections::HashMap;

use crate::encode::{
    block_checksum, fnv1a, BLOCK_HEADER_LEN, BLOCK_MAGIC, COUNT_UNKNOWN, MAGIC, VERSION,
};
use crate::event::{Event, Record, SyncPhase, Value};
use crate::schema::FieldType;
use crate::varint::{get_u64, region_from_delta, unfold_region, unzigzag};

/// One event type as a file's header describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDesc {
    pub code: u64,
    pub name: String,
    pub fields: Vec<(String, FieldType)>,
}

/// A file header as read.
#[derive(Debug, Clone, PartialEq)]
pub struct FileHeader {
    pub version: u16,
    pub rank: u32,
    pub size: u32,
    pub pid: u32,
    pub thread: u32,
    pub os_tid: u64,
    pub ticks_per_second: f64,
    pub start_ticks: u64,
    pub start_unix_ns: u64,
    pub clock_source: String,
    pub host: String,
    pub types: Vec<TypeDesc>,
}

/// Where and why reading stopped before the end of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// Offset of the first block not read.
    pub offset: usize,
    /// Bytes after it that were not read.
    pub bytes: usize,
    pub reason: String,
}

/// A decoded trace file.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFile {
    pub header: FileHeader,
    /// Every record of every complete block, in file order.
    pub records: Vec<Record>,
    pub blocks: u32,
    /// Set when the file ends inside a block (it was cut short).
    pub truncated: Option<Truncation>,
    /// Records of types this reader does not know (kept in `records` as
    /// `Event::Unknown`).
    pub unknown: u64,
}

impl TraceFile {
    /// The strings defined by `string` events, by id.
    pub fn strings(&self) -> HashMap<u32, &str> {
        self.records
            .iter()
            .filter_map(|r| match &r.event {
                Event::String { id, text } => Some((*id, text.as_str())),
                _ => None,
            })
            .collect()
    }

    /// The clock's rate: from the last `clock_rate` record, else the
    /// header's estimate.
    pub fn ticks_per_second(&self) -> f64 {
        self.records
            .iter()
            .rev()
            .find_map(|r| match r.event {
                Event::ClockRate {
                    span_ticks,
                    span_ns,
                } if span_ticks > 0 && span_ns > 0 => {
                    Some(span_ticks as f64 * 1e9 / span_ns as f64)
                }
                _ => None,
            })
            .unwrap_or(self.header.ticks_per_second)
    }

    /// Nanoseconds since the Unix epoch of `ticks` on this file's clock
    /// (before any correction between processes).
    pub fn ns_of(&self, ticks: u64) -> f64 {
        let h = &self.header;
        let since = ticks as f64 - h.start_ticks as f64;
        h.start_unix_ns as f64 + since * 1e9 / self.ticks_per_second()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("not a Regio trace file (no `REGIOTRC` at its start)")]
    NotATrace,
    #[error("trace format version {found}; this build reads version {VERSION} and older")]
    Version { found: u16 },
    #[error("header: {0}")]
    Header(String),
    #[error("block at offset {offset}: {message}")]
    Block { offset: usize, message: String },
}

/// Reads a whole trace file's bytes.
pub fn decode(data: &[u8]) -> Result<TraceFile, DecodeError> {
    let (header, mut pos) = read_header(data)?;
    let by_code: HashMap<u64, &TypeDesc> = header.types.iter().map(|t| (t.code, t)).collect();
    // Version 1 summed blocks with FNV-1a, byte by byte.
    let checksum = if header.version == 1 {
        fnv1a
    } else {
        block_checksum
    };
    let mut records = Vec::new();
    let mut blocks = 0u32;
    let mut unknown = 0u64;
    let mut truncated = None;
    while pos < data.len() {
        let start = pos;
        let cut = |reason: &str| {
            Some(Truncation {
                offset: start,
                bytes: data.len() - start,
                reason: reason.to_string(),
            })
        };
        let rest = &data[pos..];
        if rest.len() < BLOCK_HEADER_LEN {
            // Zeros left by a file grown before a write that never came
            // are no block either.
            truncated = cut("the file ends inside a block header");
            break;
        }
        if rest[0..4] != BLOCK_MAGIC {
            if rest.iter().all(|&b| b == 0) {
                truncated = cut("zeros where the next block would start");
                break;
            }
            return Err(DecodeError::Block {
                offset: start,
                message: "no block starts here (bad magic)".into(),
            });
        }
        let word = |i: usize| u32::from_le_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
        let payload_len = word(4) as usize;
        let location = word(8);
        let count = word(12);
        let mut base = [0u8; 8];
        base.copy_from_slice(&rest[16..24]);
        let base = u64::from_le_bytes(base);
        let sum = word(24);
        let Some(payload) = rest.get(BLOCK_HEADER_LEN..BLOCK_HEADER_LEN + payload_len) else {
            truncated = cut("the file ends inside a block");
            break;
        };
        let end = start + BLOCK_HEADER_LEN + payload_len;
        if checksum(payload) != sum {
            if end == data.len() {
                truncated = cut("the last block's checksum does not match (torn write)");
                break;
            }
            return Err(DecodeError::Block {
                offset: start,
                message: "checksum does not match".into(),
            });
        }
        if location != header.thread {
            return Err(DecodeError::Block {
                offset: start,
                message: format!(
                    "block of thread {location} in the file of thread {}",
                    header.thread
                ),
            });
        }
        let before = records.len();
        read_block(payload, base, &by_code, &mut records, &mut unknown).map_err(|message| {
            DecodeError::Block {
                offset: start,
                message,
            }
        })?;
        if count != COUNT_UNKNOWN && records.len() - before != count as usize {
            return Err(DecodeError::Block {
                offset: start,
                message: format!(
                    "{} records where the header says {count}",
                    records.len() - before
                ),
            });
        }
        blocks += 1;
        pos = end;
    }
    Ok(TraceFile {
        header,
        records,
        blocks,
        truncated,
        unknown,
    })
}

struct In<'d> {
    data: &'d [u8],
    pos: usize,
    /// The block's previous `RegionDelta` field (0 at its start).
    region: u32,
}

impl In<'_> {
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        get_u64(self.data, &mut self.pos).ok_or_else(|| format!("{what}: bad or cut varint"))
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let v = self.u64(what)?;
        u32::try_from(v).map_err(|_| format!("{what}: {v} does not fit 32 bits"))
    }
    fn fixed_u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn bytes(&mut self, n: usize, what: &str) -> Result<&[u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.data.len())
            .ok_or_else(|| format!("{what}: runs past the end"))?;
        let b = &self.data[self.pos..end];
        self.pos = end;
        Ok(b)
    }
    fn string(&mut self, what: &str) -> Result<String, String> {
        let n = self.u64(what)? as usize;
        let b = self.bytes(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| format!("{what}: not UTF-8"))
    }
    fn f64(&mut self, what: &str) -> Result<f64, String> {
        let b = self.bytes(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }
    fn value(&mut self, ty: FieldType, what: &str) -> Result<Value, String> {
        Ok(match ty {
            FieldType::U => Value::U(self.u64(what)?),
            FieldType::I => Value::I(unzigzag(self.u64(what)?)),
            FieldType::F64 => Value::F64(self.f64(what)?),
            FieldType::Region => {
                let v = self.u64(what)?;
                Value::Region(unfold_region(v).ok_or_else(|| format!("{what}: bad region {v}"))?)
            }
            FieldType::RegionDelta => {
                let v = self.u64(what)?;
                let id = region_from_delta(v, self.region)
                    .ok_or_else(|| format!("{what}: bad region difference {v}"))?;
                self.region = id;
                Value::Region(id)
            }
            FieldType::Bytes => {
                let n = self.u64(what)? as usize;
                Value::Bytes(self.bytes(n, what)?.to_vec())
            }
            FieldType::UList => {
                let n = self.u64(what)?;
                // Every element takes at least a byte: a count beyond the
                // data left is corrupt, and must not size an allocation.
                if n > (self.data.len() - self.pos) as u64 {
                    return Err(format!("{what}: list longer than its block"));
                }
                let mut v = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    v.push(self.u64(what)?);
                }
                Value::UList(v)
            }
        })
    }
}

fn read_header(data: &[u8]) -> Result<(FileHeader, usize), DecodeError> {
    if data.len() < 14 || data[0..8] != MAGIC {
        return Err(DecodeError::NotATrace);
    }
    let version = u16::from_le_bytes([data[8], data[9]]);
    if version > VERSION || version == 0 {
        return Err(DecodeError::Version { found: version });
    }
    let body_len = u32::from_le_bytes([data[10], data[11], data[12], data[13]]) as usize;
    let body = data
        .get(14..14 + body_len)
        .ok_or_else(|| DecodeError::Header("the file ends inside the header".into()))?;
    let h = header_body(body, version).map_err(DecodeError::Header)?;
    Ok((h, 14 + body_len))
}

fn header_body(body: &[u8], version: u16) -> Result<FileHeader, String> {
    let mut r = In {
        data: body,
        pos: 0,
        region: 0,
    };
    let n = r.u64("type count")?;
    let mut types = Vec::new();
    for _ in 0..n {
        let code = r.u64("type code")?;
        let name = r.string("type name")?;
        let nf = r.u64("field count")?;
        let mut fields = Vec::new();
        for _ in 0..nf {
            let fname = r.string("field name")?;
            let t = r.bytes(1, "field type")?[0];
            let ty = FieldType::from_u8(t).ok_or_else(|| {
                format!("event type `{name}`: field `{fname}` of unknown type {t}")
            })?;
            fields.push((fname, ty));
        }
        types.push(TypeDesc { code, name, fields });
    }
    Ok(FileHeader {
        version,
        rank: r.fixed_u32("rank")?,
        size: r.fixed_u32("size")?,
        pid: r.u32("pid")?,
        thread: r.u32("thread")?,
        os_tid: r.u64("os_tid")?,
        ticks_per_second: r.f64("ticks_per_second")?,
        start_ticks: r.u64("start_ticks")?,
        start_unix_ns: r.u64("start_unix_ns")?,
        clock_source: r.string("clock_source")?,
        host: r.string("host")?,
        types,
    })
}

fn read_block(
    payload: &[u8],
    base: u64,
    types: &HashMap<u64, &TypeDesc>,
    out: &mut Vec<Record>,
    unknown: &mut u64,
) -> Result<(), String> {
    let mut r = In {
        data: payload,
        pos: 0,
        region: 0,
    };
    let mut ticks = base;
    while r.pos < payload.len() {
        let at = r.pos;
        let code = r.u64("event code")?;
        let t = types
            .get(&code)
            .ok_or_else(|| format!("record at {at}: event code {code} is not in the header"))?;
        ticks = ticks.saturating_add(r.u64("time delta")?);
        let mut values = Vec::with_capacity(t.fields.len());
        for (name, ty) in &t.fields {
            values.push(r.value(*ty, name)?);
        }
        let event = match typed(t, &values) {
            Some(e) => e.map_err(|e| format!("record at {at} ({}): {e}", t.name))?,
            None => {
                *unknown += 1;
                Event::Unknown {
                    code: u8::try_from(code).unwrap_or(u8::MAX),
                    name: t.name.clone(),
                    values,
                }
            }
        };
        out.push(Record { ticks, event });
    }
    Ok(())
}

/// Field lookup by name: a newer writer may add fields to a known event
/// type, and this reader takes the ones it knows.
struct Fields<'v> {
    t: &'v TypeDesc,
    values: &'v [Value],
}

impl Fields<'_> {
    fn get(&self, name: &str) -> Result<&Value, String> {
        self.t
            .fields
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| &self.values[i])
            .ok_or_else(|| format!("field `{name}` missing"))
    }
    fn u64(&self, name: &str) -> Result<u64, String> {
        match self.get(name)? {
            Value::U(v) => Ok(*v),
            other => Err(format!(
                "field `{name}`: expected unsigned, found {other:?}"
            )),
        }
    }
    fn u32(&self, name: &str) -> Result<u32, String> {
        let v = self.u64(name)?;
        u32::try_from(v).map_err(|_| format!("field `{name}`: {v} does not fit 32 bits"))
    }
    fn ranks(&self, name: &str) -> Result<Vec<u32>, String> {
        match self.get(name)? {
            Value::UList(v) => v
                .iter()
                .map(|m| u32::try_from(*m).map_err(|_| format!("rank {m} too large")))
                .collect(),
            other => Err(format!("field `{name}`: expected a list, found {other:?}")),
        }
    }
    /// An appended list field: empty when the file's type table lacks it.
    fn ranks_if_any(&self, name: &str) -> Result<Vec<u32>, String> {
        if self.t.fields.iter().any(|(n, _)| n == name) {
            self.ranks(name)
        } else {
            Ok(Vec::new())
        }
    }
    fn i64(&self, name: &str) -> Result<i64, String> {
        match self.get(name)? {
            Value::I(v) => Ok(*v),
            other => Err(format!("field `{name}`: expected signed, found {other:?}")),
        }
    }
    fn f64(&self, name: &str) -> Result<f64, String> {
        match self.get(name)? {
            Value::F64(v) => Ok(*v),
            other => Err(format!("field `{name}`: expected f64, found {other:?}")),
        }
    }
    fn region(&self, name: &str) -> Result<u32, String> {
        match self.get(name)? {
            Value::Region(v) => Ok(*v),
            other => Err(format!("field `{name}`: expected region, found {other:?}")),
        }
    }
}

/// The event a record of a known type stands for; `None` for unknown types.
fn typed(t: &TypeDesc, values: &[Value]) -> Option<Result<Event, String>> {
    let f = Fields { t, values };
    let msg = |f: &Fields| -> Result<(u32, u32, u32, u64), String> {
        Ok((
            f.u32("peer")?,
            f.u32("comm")?,
            f.u32("tag")?,
            f.u64("bytes")?,
        ))
    };
    let e = || -> Result<Option<Event>, String> {
        Ok(Some(match t.name.as_str() {
            "enter" => Event::Enter {
                region: f.region("region")?,
            },
            "exit" => Event::Exit {
                region: f.region("region")?,
            },
            "omp_fork" => Event::OmpFork {
                region: f.region("region")?,
                team_size: f.u32("team_size")?,
            },
            "omp_join" => Event::OmpJoin {
                region: f.region("region")?,
            },
            "omp_team_begin" => Event::OmpTeamBegin {
                team: f.u64("team")?,
                thread_num: f.u32("thread_num")?,
                team_size: f.u32("team_size")?,
            },
            "omp_team_end" => Event::OmpTeamEnd {
                team: f.u64("team")?,
            },
            "mpi_send" | "mpi_recv" => {
                let (peer, comm, tag, bytes) = msg(&f)?;
                if t.name == "mpi_send" {
                    Event::MpiSend {
                        peer,
                        comm,
                        tag,
                        bytes,
                    }
                } else {
                    Event::MpiRecv {
                        peer,
                        comm,
                        tag,
                        bytes,
                    }
                }
            }
            "mpi_isend" | "mpi_irecv" => {
                let (peer, comm, tag, bytes) = msg(&f)?;
                let request = f.u64("request")?;
                if t.name == "mpi_isend" {
                    Event::MpiIsend {
                        peer,
                        comm,
                        tag,
                        bytes,
                        request,
                    }
                } else {
                    Event::MpiIrecv {
                        peer,
                        comm,
                        tag,
                        bytes,
                        request,
                    }
                }
            }
            "mpi_isend_complete" => Event::MpiIsendComplete {
                request: f.u64("request")?,
            },
            "mpi_irecv_request" => Event::MpiIrecvRequest {
                request: f.u64("request")?,
            },
            "mpi_collective_begin" => Event::MpiCollectiveBegin,
            "mpi_collective_end" => Event::MpiCollectiveEnd {
                op: f.u32("op")?,
                comm: f.u32("comm")?,
                root: u32::try_from(f.i64("root")?).ok(),
                sent: f.u64("sent")?,
                received: f.u64("received")?,
            },
            "user" => Event::User {
                name: f.u32("name")?,
                value: f.f64("value")?,
            },
            "string" => Event::String {
                id: f.u32("id")?,
                text: match f.get("text")? {
                    Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    other => return Err(format!("field `text`: expected bytes, found {other:?}")),
                },
            },
            "comm" => Event::Comm {
                comm: f.u32("comm")?,
                name: f.u32("name")?,
                members: f.ranks("members")?,
                // Appended fields: absent in older files.
                local: f.ranks_if_any("local")?,
                remote: f.ranks_if_any("remote")?,
            },
            "buffer_flush" => Event::BufferFlush {
                duration: f.u64("duration")?,
                bytes: f.u64("bytes")?,
            },
            "throttled" => Event::Throttled {
                region: f.region("region")?,
            },
            "mask" => Event::Mask {
                mask: f.u64("mask")?,
            },
            "clock_sync" => Event::ClockSync {
                phase: SyncPhase::from_u64(f.u64("phase")?),
                offset_ns: f.i64("offset_ns")?,
                round_trip_ns: f.u64("round_trip_ns")?,
                // Added after the first version: absent (or 0) in older files.
                local_ns: f.u64("local_ns").ok().filter(|&v| v != 0),
            },
            "clock_rate" => Event::ClockRate {
                span_ticks: f.u64("span_ticks")?,
                span_ns: f.u64("span_ns")?,
            },
            _ => return Ok(None),
        }))
    };
    e().transpose()
}
