//! The writing side: a file header, then blocks of event records, all
//! written into caller-provided buffers. Nothing here allocates, locks or
//! makes a system call, so the runtime can record from a probe or a signal
//! handler; when a buffer cannot take a record, the call returns [`Full`]
//! and leaves the buffer as it was.

use crate::event::Event;
use crate::schema::{code, FieldType, EVENTS};
use crate::varint::{len_u64, put_u64, region_delta, zigzag, MAX_VARINT};

/// First bytes of every trace file.
pub const MAGIC: [u8; 8] = *b"REGIOTRC";
/// Bumped only when a reader of the previous version could not walk the
/// file (the header layout, block layout or a field encoding changed).
/// New event types and new fields appended to an event type keep it.
/// Version 2: region fields as differences from the previous one
/// ([`FieldType::RegionDelta`]) and the word-wise block checksum
/// ([`block_checksum`]); version-1 files are still read.
pub const VERSION: u16 = 2;
/// First four bytes of every block (`RBLK`).
pub const BLOCK_MAGIC: [u8; 4] = *b"RBLK";
/// magic, payload length, location, event count (u32 each), base ticks
/// (u64), checksum of the payload (u32, [`block_checksum`]; FNV-1a in
/// version 1); all little-endian.
pub const BLOCK_HEADER_LEN: usize = 28;

/// Event count of a block whose writer did not count its records.
pub const COUNT_UNKNOWN: u32 = u32::MAX;

/// The buffer has no room for what was to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("trace buffer full")]
pub struct Full;

/// What the file header says about the thread that wrote the file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileMeta<'a> {
    pub rank: u32,
    /// Number of ranks (1 without MPI).
    pub size: u32,
    pub pid: u32,
    /// Dense thread number, as in the profile.
    pub thread: u32,
    pub os_tid: u64,
    /// Clock of every timestamp of the file.
    pub ticks_per_second: f64,
    /// The clock's reading at `start_unix_ns` (runtime start-up).
    pub start_ticks: u64,
    pub start_unix_ns: u64,
    /// `tsc` or `clock_gettime`, as in the profile.
    pub clock_source: &'a str,
    pub host: &'a str,
}

/// Bounds-checked writer for the header (not on the probe path).
pub(crate) struct Out<'b> {
    pub(crate) buf: &'b mut [u8],
    pub(crate) pos: usize,
}

impl Out<'_> {
    pub(crate) fn bytes(&mut self, b: &[u8]) -> Result<(), Full> {
        let end = self.pos.checked_add(b.len()).ok_or(Full)?;
        self.buf
            .get_mut(self.pos..end)
            .ok_or(Full)?
            .copy_from_slice(b);
        self.pos = end;
        Ok(())
    }
    pub(crate) fn u64(&mut self, v: u64) -> Result<(), Full> {
        let mut tmp = [0u8; MAX_VARINT];
        let n = put_u64(&mut tmp, 0, v);
        self.bytes(&tmp[..n])
    }
    pub(crate) fn str(&mut self, s: &str) -> Result<(), Full> {
        self.u64(s.len() as u64)?;
        self.bytes(s.as_bytes())
    }
}

/// Writes the file header into `buf` and returns its length:
/// magic, version (u16), body length (u32), then the body: the event type
/// table of this version, then the metadata.
pub fn write_file_header(buf: &mut [u8], meta: &FileMeta) -> Result<usize, Full> {
    let mut out = Out { buf, pos: 0 };
    out.bytes(&MAGIC)?;
    out.bytes(&VERSION.to_le_bytes())?;
    let len_at = out.pos;
    out.bytes(&[0; 4])?;
    let body = out.pos;
    write_header_body(&mut out, EVENTS, meta)?;
    let body_len = u32::try_from(out.pos - body).map_err(|_| Full)?;
    let end = out.pos;
    buf[len_at..body].copy_from_slice(&body_len.to_le_bytes());
    Ok(end)
}

/// The type table of `events`, then the metadata.
pub(crate) fn write_header_body(
    out: &mut Out,
    events: &[crate::schema::EventDef],
    meta: &FileMeta,
) -> Result<(), Full> {
    out.u64(events.len() as u64)?;
    for d in events {
        out.u64(u64::from(d.code))?;
        out.str(d.name)?;
        out.u64(d.fields.len() as u64)?;
        for fd in d.fields {
            out.str(fd.name)?;
            out.bytes(&[fd.ty as u8])?;
        }
    }
    // Metadata after the table: a newer version appends fields here, and
    // an older reader skips them by the body length. Rank and size are
    // fixed-width so the runtime can patch them in place once MPI_Init
    // confirms them (`patch_rank`), after a flush already wrote the header.
    out.bytes(&meta.rank.to_le_bytes())?;
    out.bytes(&meta.size.to_le_bytes())?;
    out.u64(u64::from(meta.pid))?;
    out.u64(u64::from(meta.thread))?;
    out.u64(meta.os_tid)?;
    out.bytes(&meta.ticks_per_second.to_le_bytes())?;
    out.u64(meta.start_ticks)?;
    out.u64(meta.start_unix_ns)?;
    out.str(meta.clock_source)?;
    out.str(meta.host)?;
    Ok(())
}

/// Offset of the rank (u32 LE, then the size, u32 LE) in a file header of
/// this version: what the runtime overwrites with `pwrite` when MPI
/// confirms a rank that differs from the launcher's guess.
pub fn rank_offset() -> usize {
    let str_len = |s: &str| len_u64(s.len() as u64) + s.len();
    let mut n = 14 + len_u64(EVENTS.len() as u64);
    for d in EVENTS {
        n += len_u64(u64::from(d.code)) + str_len(d.name) + len_u64(d.fields.len() as u64);
        for f in d.fields {
            n += str_len(f.name) + 1;
        }
    }
    n
}

/// The 8 bytes to write at [`rank_offset`]: rank and size.
pub fn rank_patch(rank: u32, size: u32) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&rank.to_le_bytes());
    b[4..].copy_from_slice(&size.to_le_bytes());
    b
}

/// One argument of a record, in the event type's field order.
#[derive(Debug, Clone, Copy)]
enum Arg<'x> {
    U(u64),
    I(i64),
    F(f64),
    R(u32),
    B(&'x [u8]),
    L(&'x [u32]),
}

impl Arg<'_> {
    fn max_len(&self) -> usize {
        match self {
            Arg::U(_) | Arg::I(_) => MAX_VARINT,
            Arg::F(_) => 8,
            Arg::R(_) => 5,
            Arg::B(b) => MAX_VARINT + b.len(),
            Arg::L(l) => MAX_VARINT + 5 * l.len(),
        }
    }
    fn ty(&self) -> FieldType {
        match self {
            Arg::U(_) => FieldType::U,
            Arg::I(_) => FieldType::I,
            Arg::F(_) => FieldType::F64,
            Arg::R(_) => FieldType::RegionDelta,
            Arg::B(_) => FieldType::Bytes,
            Arg::L(_) => FieldType::UList,
        }
    }
}

/// The block being filled in a buffer: where the next record goes and the
/// state deltas are taken from. It is plain data, so the runtime can keep it
/// next to its buffer in thread-local storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub(crate) pos: usize,
    pub(crate) count: u32,
    base: u64,
    pub(crate) last: u64,
    /// The block's previous region field (0 at its start): region fields
    /// are written as the difference from it.
    pub(crate) region: u32,
    location: u32,
}

/// An enter or exit record with everything but its time
/// ([`Block::prepare_enter`], [`Block::prepare_exit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreparedRecord {
    field: u32,
    region: u32,
    /// Where the record goes: no other record may come first.
    pos: usize,
}

/// Longest enter or exit record: code, time delta, region field.
const REGION_RECORD_MAX: usize = 1 + MAX_VARINT + 5;
/// Bytes of the short form ([`Block::enter_prepared_short`]).
pub const SHORT_REGION_RECORD_LEN: usize = 4;

impl Block {
    /// An empty block for thread `location` whose first delta is taken from
    /// `base_ticks`. Records go after the block header's room.
    pub const fn new(location: u32, base_ticks: u64) -> Block {
        Block {
            pos: BLOCK_HEADER_LEN,
            count: 0,
            base: base_ticks,
            last: base_ticks,
            region: 0,
            location,
        }
    }

    /// Empties the block after its bytes were written out.
    pub fn reset(&mut self, base_ticks: u64) {
        *self = Block::new(self.location, base_ticks);
    }

    pub fn events(&self) -> u32 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the finished block takes, header included.
    pub fn len(&self) -> usize {
        self.pos
    }

    /// Region enter: the probe path, so written without the generic
    /// argument list.
    #[inline]
    pub fn enter(&mut self, buf: &mut [u8], ticks: u64, region: u32) -> Result<(), Full> {
        self.region_record(buf, code::ENTER, ticks, region)
    }

    #[inline]
    pub fn exit(&mut self, buf: &mut [u8], ticks: u64, region: u32) -> Result<(), Full> {
        self.region_record(buf, code::EXIT, ticks, region)
    }

    /// Region enter whose time `clock` reads only once the record is
    /// prepared (room checked, region field computed), so a probe that
    /// starts measuring at that reading keeps the preparation outside the
    /// region. Returns the reading; on `Full` the clock was not read and
    /// nothing was written.
    #[inline(always)]
    pub fn enter_timed(
        &mut self,
        buf: &mut [u8],
        region: u32,
        clock: impl FnOnce() -> u64,
    ) -> Result<u64, Full> {
        let field = self.prepare_enter(buf, region)?;
        let ticks = clock();
        self.enter_prepared(buf, field, ticks);
        Ok(ticks)
    }

    /// The part of an enter record that needs no time: room checked and
    /// the region field computed. Write it with [`Block::enter_prepared`]
    /// (or [`Block::enter_prepared_short`]) before any other record of
    /// this block.
    #[inline(always)]
    pub fn prepare_enter(&self, buf: &[u8], region: u32) -> Result<PreparedRecord, Full> {
        Ok(PreparedRecord {
            field: self.region_field(buf, region)?,
            region,
            pos: self.pos,
        })
    }

    /// [`Block::prepare_enter`] for an exit record, written with
    /// [`Block::exit_prepared`] or [`Block::exit_prepared_short`]. (The
    /// two records differ only in their code.)
    #[inline(always)]
    pub fn prepare_exit(&self, buf: &[u8], region: u32) -> Result<PreparedRecord, Full> {
        self.prepare_enter(buf, region)
    }

    /// Writes the enter record `prepared` at `ticks`.
    #[inline(always)]
    pub fn enter_prepared(&mut self, buf: &mut [u8], prepared: PreparedRecord, ticks: u64) {
        debug_assert_eq!(prepared.pos, self.pos, "a record came between");
        self.put_region_record(buf, code::ENTER, ticks, prepared.field, prepared.region);
    }

    /// Writes the exit record `prepared` at `ticks`.
    #[inline(always)]
    pub fn exit_prepared(&mut self, buf: &mut [u8], prepared: PreparedRecord, ticks: u64) {
        debug_assert_eq!(prepared.pos, self.pos, "a record came between");
        self.put_region_record(buf, code::EXIT, ticks, prepared.field, prepared.region);
    }

    /// Writes the enter record `prepared` at `ticks` in the short form
    /// if it can take it (a time delta below 2^14 ticks, a region field
    /// below 128): [`SHORT_REGION_RECORD_LEN`] bytes, the same event
    /// [`Block::enter_prepared`] writes, its delta always in two bytes;
    /// false, and nothing changed, otherwise. For a probe that keeps the longer
    /// forms, and the registers they need, out of its common path.
    #[inline(always)]
    pub fn enter_prepared_short(
        &mut self,
        buf: &mut [u8],
        prepared: PreparedRecord,
        ticks: u64,
    ) -> bool {
        self.put_short_region_record(buf, code::ENTER, ticks, prepared)
    }

    /// [`Block::enter_prepared_short`] for the exit record `prepared`.
    #[inline(always)]
    pub fn exit_prepared_short(
        &mut self,
        buf: &mut [u8],
        prepared: PreparedRecord,
        ticks: u64,
    ) -> bool {
        self.put_short_region_record(buf, code::EXIT, ticks, prepared)
    }

    /// The short form of a region record, four bytes put together in a
    /// register and stored at once: code, the time delta as a two-byte
    /// LEB128 varint (padded with a continuation bit when it is below 128:
    /// LEB128 allows it and every reader of this format accepts it), a
    /// one-byte region field. A fixed length and no choice between one and
    /// two delta bytes keep it to a few instructions.
    #[inline(always)]
    fn put_short_region_record(
        &mut self,
        buf: &mut [u8],
        code: u8,
        ticks: u64,
        prepared: PreparedRecord,
    ) -> bool {
        let Some(word) = self.short_record_word(code, ticks, prepared) else {
            return false;
        };
        let Some(out) = buf
            .get_mut(prepared.pos..)
            .and_then(|b| b.first_chunk_mut::<SHORT_REGION_RECORD_LEN>())
        else {
            // Cannot happen: `prepare_*` checked the room.
            return false;
        };
        *out = word.to_le_bytes();
        self.advance_short(ticks, prepared);
        true
    }

    /// The short form of the region record `prepared` (`code` is
    /// [`code::ENTER`] or [`code::EXIT`]) at `ticks` as the little-endian
    /// word to store at `prepared.pos`, if the record can take it (a time
    /// delta below 2^14 ticks, a region field below 128); changes nothing.
    /// For a writer that stores the word itself, into a buffer whose room
    /// `prepare_*` checked, and then calls [`Block::advance_short`]: the
    /// runtime's probes, which so skip a second bounds check. A reading
    /// earlier than the previous one wraps to a huge delta and so takes
    /// the long form, which records it as equal (see [`Self::delta`]).
    #[inline(always)]
    pub fn short_record_word(&self, code: u8, ticks: u64, prepared: PreparedRecord) -> Option<u32> {
        debug_assert_eq!(prepared.pos, self.pos, "a record came between");
        let d = ticks.wrapping_sub(self.last);
        let field = prepared.field;
        if d >= 1 << 14 || field >= 1 << 7 {
            return None;
        }
        // Delta bytes `lo | 0x80`, `hi` for d = hi * 128 + lo: (d & 0x7f)
        // << 8 | (d >> 7) << 16 is (d + (d & !0x7f)) << 8, two
        // instructions fewer; the continuation bit comes with the code.
        let d = d as u32;
        Some(u32::from(code) | 0x8000 | (d + (d & !0x7f)) << 8 | field << 24)
    }

    /// Takes the short record `prepared` at `ticks`, whose word
    /// ([`Block::short_record_word`]) the caller stored at `prepared.pos`,
    /// into the block.
    #[inline(always)]
    pub fn advance_short(&mut self, ticks: u64, prepared: PreparedRecord) {
        self.pos = prepared.pos + SHORT_REGION_RECORD_LEN;
        self.last = ticks;
        self.region = prepared.region;
        self.count += 1;
    }

    /// Where the record `prepared` goes in the buffer.
    pub fn prepared_pos(prepared: PreparedRecord) -> usize {
        prepared.pos
    }

    #[inline(always)]
    fn region_record(
        &mut self,
        buf: &mut [u8],
        code: u8,
        ticks: u64,
        region: u32,
    ) -> Result<(), Full> {
        let field = self.region_field(buf, region)?;
        self.put_region_record(buf, code, ticks, field, region);
        Ok(())
    }

    /// The part of a region record that needs no time: room for the
    /// longest record, and the region field's value.
    #[inline(always)]
    fn region_field(&self, buf: &[u8], region: u32) -> Result<u32, Full> {
        if buf.len() < self.pos + REGION_RECORD_MAX {
            return Err(Full);
        }
        Ok(region_delta(region, self.region))
    }

    /// Writes a region record whose room [`Self::region_field`] checked.
    /// The record is put together in a register and stored at once, with
    /// no call and no bounds check that could panic, so a probe that
    /// inlines it needs no stack frame for it: the common record (a delta
    /// below 2^14 ticks, a region field below 128) in a few instructions,
    /// any other by a loop over its varints.
    #[inline(always)]
    pub(crate) fn put_region_record(
        &mut self,
        buf: &mut [u8],
        code: u8,
        ticks: u64,
        field: u32,
        region: u32,
    ) {
        let d = self.delta(ticks);
        let pos = self.pos;
        let Some(out) = buf
            .get_mut(pos..)
            .and_then(|b| b.first_chunk_mut::<REGION_RECORD_MAX>())
        else {
            // Cannot happen: the caller checked the room.
            return;
        };
        if d < 1 << 14 && field < 1 << 7 {
            let two = u64::from(d >= 0x80);
            let delta = if two != 0 {
                (d & 0x7f) | 0x80 | (d >> 7) << 8
            } else {
                d
            };
            let word = u64::from(code) | delta << 8 | u64::from(field) << (16 + 8 * two);
            out[..4].copy_from_slice(&(word as u32).to_le_bytes());
            self.pos = pos + 3 + two as usize;
        } else {
            let (record, len) = region_record_bytes(code, d, field);
            *out = record.to_le_bytes();
            self.pos = pos + len;
        }
        self.region = region;
        self.count += 1;
    }

    /// Time since the thread's previous event. A clock reading earlier than
    /// the previous one (never expected of one thread's clock) is recorded
    /// as equal to it, so times stay ordered.
    #[inline]
    fn delta(&mut self, ticks: u64) -> u64 {
        let d = ticks.saturating_sub(self.last);
        self.last = self.last.max(ticks);
        d
    }

    fn record(&mut self, buf: &mut [u8], code: u8, ticks: u64, args: &[Arg]) -> Result<(), Full> {
        debug_assert!(
            crate::schema::event_def(code).is_some_and(|d| d.fields.len() == args.len()
                && d.fields.iter().zip(args).all(|(f, a)| f.ty == a.ty())),
            "arguments of event {code} do not match its definition"
        );
        let need = 1 + MAX_VARINT + args.iter().map(Arg::max_len).sum::<usize>();
        if buf.len().saturating_sub(self.pos) < need {
            return Err(Full);
        }
        buf[self.pos] = code;
        let mut pos = put_u64(buf, self.pos + 1, self.delta(ticks));
        for a in args {
            pos = match *a {
                Arg::U(v) => put_u64(buf, pos, v),
                Arg::I(v) => put_u64(buf, pos, zigzag(v)),
                Arg::F(v) => {
                    buf[pos..pos + 8].copy_from_slice(&v.to_le_bytes());
                    pos + 8
                }
                Arg::R(r) => {
                    let field = region_delta(r, self.region);
                    self.region = r;
                    put_u64(buf, pos, u64::from(field))
                }
                Arg::B(b) => {
                    let p = put_u64(buf, pos, b.len() as u64);
                    buf[p..p + b.len()].copy_from_slice(b);
                    p + b.len()
                }
                Arg::L(l) => {
                    let mut p = put_u64(buf, pos, l.len() as u64);
                    for v in l {
                        p = put_u64(buf, p, u64::from(*v));
                    }
                    p
                }
            };
        }
        self.pos = pos;
        self.count += 1;
        Ok(())
    }

    /// Appends any event as a writer without raw records does: enter and
    /// exit in the 4-byte short form when they fit (as the probes wrote
    /// them before raw records), else as [`Self::push`]. These are the
    /// bytes [`Self::encode_raw`] must reproduce; the tests that check it
    /// (here and in the runtime) write their reference with it.
    pub fn push_direct(&mut self, buf: &mut [u8], ticks: u64, event: &Event) -> Result<(), Full> {
        match *event {
            Event::Enter { region } => {
                let p = self.prepare_enter(buf, region)?;
                if !self.enter_prepared_short(buf, p, ticks) {
                    self.enter_prepared(buf, p, ticks);
                }
                Ok(())
            }
            Event::Exit { region } => {
                let p = self.prepare_exit(buf, region)?;
                if !self.exit_prepared_short(buf, p, ticks) {
                    self.exit_prepared(buf, p, ticks);
                }
                Ok(())
            }
            _ => self.push(buf, ticks, event),
        }
    }

    /// Appends any event. `Event::Unknown` has no definition in this
    /// version, so it writes nothing.
    pub fn push(&mut self, buf: &mut [u8], ticks: u64, event: &Event) -> Result<(), Full> {
        use Arg::*;
        match *event {
            Event::Enter { region } => self.enter(buf, ticks, region),
            Event::Exit { region } => self.exit(buf, ticks, region),
            Event::OmpFork { region, team_size } => self.record(
                buf,
                code::OMP_FORK,
                ticks,
                &[R(region), U(u64::from(team_size))],
            ),
            Event::OmpJoin { region } => self.record(buf, code::OMP_JOIN, ticks, &[R(region)]),
            Event::OmpTeamBegin {
                team,
                thread_num,
                team_size,
            } => self.record(
                buf,
                code::OMP_TEAM_BEGIN,
                ticks,
                &[U(team), U(u64::from(thread_num)), U(u64::from(team_size))],
            ),
            Event::OmpTeamEnd { team } => self.record(buf, code::OMP_TEAM_END, ticks, &[U(team)]),
            Event::MpiSend {
                peer,
                comm,
                tag,
                bytes,
            } => self.record(buf, code::MPI_SEND, ticks, &msg(peer, comm, tag, bytes)),
            Event::MpiRecv {
                peer,
                comm,
                tag,
                bytes,
            } => self.record(buf, code::MPI_RECV, ticks, &msg(peer, comm, tag, bytes)),
            Event::MpiIsend {
                peer,
                comm,
                tag,
                bytes,
                request,
            } => self.record(
                buf,
                code::MPI_ISEND,
                ticks,
                &msg_req(peer, comm, tag, bytes, request),
            ),
            Event::MpiIsendComplete { request } => {
                self.record(buf, code::MPI_ISEND_COMPLETE, ticks, &[U(request)])
            }
            Event::MpiIrecvRequest { request } => {
                self.record(buf, code::MPI_IRECV_REQUEST, ticks, &[U(request)])
            }
            Event::MpiIrecv {
                peer,
                comm,
                tag,
                bytes,
                request,
            } => self.record(
                buf,
                code::MPI_IRECV,
                ticks,
                &msg_req(peer, comm, tag, bytes, request),
            ),
            Event::MpiCollectiveBegin => self.record(buf, code::MPI_COLLECTIVE_BEGIN, ticks, &[]),
            Event::MpiCollectiveEnd {
                op,
                comm,
                root,
                sent,
                received,
            } => self.record(
                buf,
                code::MPI_COLLECTIVE_END,
                ticks,
                &[
                    U(u64::from(op)),
                    U(u64::from(comm)),
                    I(root.map_or(-1, i64::from)),
                    U(sent),
                    U(received),
                ],
            ),
            Event::User { name, value } => {
                self.record(buf, code::USER, ticks, &[U(u64::from(name)), F(value)])
            }
            Event::String { id, ref text } => self.record(
                buf,
                code::STRING,
                ticks,
                &[U(u64::from(id)), B(text.as_bytes())],
            ),
            Event::Comm {
                comm,
                name,
                ref members,
                ref local,
                ref remote,
            } => self.record(
                buf,
                code::COMM,
                ticks,
                &[
                    U(u64::from(comm)),
                    U(u64::from(name)),
                    L(members),
                    L(local),
                    L(remote),
                ],
            ),
            Event::BufferFlush { duration, bytes } => {
                self.record(buf, code::BUFFER_FLUSH, ticks, &[U(duration), U(bytes)])
            }
            Event::Throttled { region } => self.record(buf, code::THROTTLED, ticks, &[R(region)]),
            Event::Mask { mask } => self.record(buf, code::MASK, ticks, &[U(mask)]),
            Event::ClockSync {
                phase,
                offset_ns,
                round_trip_ns,
                local_ns,
            } => self.record(
                buf,
                code::CLOCK_SYNC,
                ticks,
                &[
                    U(phase.to_u64()),
                    I(offset_ns),
                    U(round_trip_ns),
                    U(local_ns.unwrap_or(0)),
                ],
            ),
            Event::ClockRate {
                span_ticks,
                span_ns,
            } => self.record(buf, code::CLOCK_RATE, ticks, &[U(span_ticks), U(span_ns)]),
            Event::Unknown { .. } => Ok(()),
        }
    }

    /// A user event whose name is a string the caller defined before with
    /// [`Block::string`]; no allocation, unlike building an `Event`.
    pub fn user(&mut self, buf: &mut [u8], ticks: u64, name: u32, value: f64) -> Result<(), Full> {
        self.record(
            buf,
            code::USER,
            ticks,
            &[Arg::U(u64::from(name)), Arg::F(value)],
        )
    }

    /// Defines string `id` (a user event's name, a communicator's name).
    pub fn string(&mut self, buf: &mut [u8], ticks: u64, id: u32, text: &str) -> Result<(), Full> {
        self.record(
            buf,
            code::STRING,
            ticks,
            &[Arg::U(u64::from(id)), Arg::B(text.as_bytes())],
        )
    }

    /// Defines communicator `comm` with its members' world ranks (and an
    /// intercommunicator's local and remote groups; empty otherwise).
    #[allow(clippy::too_many_arguments)]
    pub fn comm(
        &mut self,
        buf: &mut [u8],
        ticks: u64,
        comm: u32,
        name: u32,
        members: &[u32],
        local: &[u32],
        remote: &[u32],
    ) -> Result<(), Full> {
        self.record(
            buf,
            code::COMM,
            ticks,
            &[
                Arg::U(u64::from(comm)),
                Arg::U(u64::from(name)),
                Arg::L(members),
                Arg::L(local),
                Arg::L(remote),
            ],
        )
    }

    /// Completes the block header in `buf[..BLOCK_HEADER_LEN]` and returns
    /// the bytes to write out. `Full` when `buf` cannot even hold a header.
    pub fn finish<'b>(&self, buf: &'b mut [u8]) -> Result<&'b [u8], Full> {
        if buf.len() < self.pos {
            return Err(Full);
        }
        let (head, payload) = buf.split_at_mut(BLOCK_HEADER_LEN);
        let header = block_header(
            self.location,
            self.base,
            Some(self.count),
            &payload[..self.pos - BLOCK_HEADER_LEN],
        )?;
        head.copy_from_slice(&header);
        Ok(&buf[..self.pos])
    }

    /// Ticks the block's first delta is taken from.
    pub fn base_ticks(&self) -> u64 {
        self.base
    }
}

/// Block header for `payload` (whole records). `count: None` writes
/// [`COUNT_UNKNOWN`]: for a writer that did not count the records, such as
/// a crash handler writing another thread's buffer up to the last record
/// that thread published, without touching the buffer itself.
pub fn block_header(
    location: u32,
    base_ticks: u64,
    count: Option<u32>,
    payload: &[u8],
) -> Result<[u8; BLOCK_HEADER_LEN], Full> {
    let payload_len = u32::try_from(payload.len()).map_err(|_| Full)?;
    let mut h = [0u8; BLOCK_HEADER_LEN];
    h[0..4].copy_from_slice(&BLOCK_MAGIC);
    h[4..8].copy_from_slice(&payload_len.to_le_bytes());
    h[8..12].copy_from_slice(&location.to_le_bytes());
    h[12..16].copy_from_slice(&count.unwrap_or(COUNT_UNKNOWN).to_le_bytes());
    h[16..24].copy_from_slice(&base_ticks.to_le_bytes());
    h[24..28].copy_from_slice(&block_checksum(payload).to_le_bytes());
    Ok(h)
}

/// A region record (code, delta, field) as little-endian bytes of a
/// `u128` and its length: at most 1 + 10 + 5 = 16 bytes.
#[inline(always)]
fn region_record_bytes(code: u8, delta: u64, field: u32) -> (u128, usize) {
    let mut acc = u128::from(code);
    let mut len = 1;
    for mut v in [delta, u64::from(field)] {
        while v >= 0x80 {
            acc |= u128::from((v as u8) | 0x80) << (8 * len);
            v >>= 7;
            len += 1;
        }
        acc |= u128::from(v as u8) << (8 * len);
        len += 1;
    }
    (acc, len)
}

fn msg(peer: u32, comm: u32, tag: u32, bytes: u64) -> [Arg<'static>; 4] {
    [
        Arg::U(u64::from(peer)),
        Arg::U(u64::from(comm)),
        Arg::U(u64::from(tag)),
        Arg::U(bytes),
    ]
}

fn msg_req(peer: u32, comm: u32, tag: u32, bytes: u64, request: u64) -> [Arg<'static>; 5] {
    let [a, b, c, d] = msg(peer, comm, tag, bytes);
    [a, b, c, d, Arg::U(request)]
}

/// The block checksum of version 2: tells a block torn by a crash (cut,
/// or zeros where its end should be) from a whole one. Two running sums
/// over the payload read as little-endian 64-bit words, the last padded
/// with zeros (`a` starts at 1, so an all-zero payload does not sum to
/// 0; `b`, the sum of `a`'s values, depends on the words' order), mixed
/// down to 32 bits through a finaliser. Two additions per 8 bytes, where version 1's FNV-1a took a
/// serial multiply per byte (about 3 instructions per trace byte).
pub fn block_checksum(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u64, 0u64);
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let mut le = [0u8; 8];
        le.copy_from_slice(w);
        a = a.wrapping_add(u64::from_le_bytes(le));
        b = b.wrapping_add(a);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut le = [0u8; 8];
        le[..rest.len()].copy_from_slice(rest);
        a = a.wrapping_add(u64::from_le_bytes(le));
        b = b.wrapping_add(a);
    }
    // Mixed once per block (not per word): a change of `a` or `b` alone
    // changes all 64 bits; the top 32 are kept.
    (mix64(a.wrapping_add(mix64(b))) >> 32) as u32
}

/// MurmurHash3's 64-bit finaliser: a bijection whose every output bit
/// depends on every input bit.
fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// 32-bit FNV-1a: the block checksum of version 1 (read only).
pub(crate) fn fnv1a(data: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in data {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Bytes an enter or exit record of `region` takes after a gap of `delta`
/// ticks when the block's previous region field was `previous`: what
/// `instrument score` estimates trace volume from.
pub const fn region_record_len(delta: u64, region: u32, previous: u32) -> usize {
    1 + len_u64(delta) + len_u64(region_delta(region, previous) as u64)
}
