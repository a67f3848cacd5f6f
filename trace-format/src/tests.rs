//! Round trips through the encoder and decoder, and the files a reader of
//! this version meets that it did not write: cut short, or from a newer
//! version with event types and fields it does not know.

use crate::encode::{Out, BLOCK_HEADER_LEN};
use crate::schema::code;
use crate::schema::{EventDef, FieldDef, FieldType, EVENTS};
use crate::varint::put_u64;
use crate::*;

fn meta() -> FileMeta<'static> {
    FileMeta {
        rank: 2,
        size: 4,
        pid: 4242,
        thread: 1,
        os_tid: 4243,
        ticks_per_second: 2.5e9,
        start_ticks: 1_000,
        start_unix_ns: 1_700_000_000_000_000_000,
        clock_source: "tsc",
        host: "node7",
    }
}

/// One of every event type, with values at the edges of their ranges.
fn every_event() -> Vec<Event> {
    vec![
        Event::Enter { region: 3 },
        Event::Enter {
            region: 0x8000_0002,
        },
        Event::Exit {
            region: 0x8000_0002,
        },
        Event::OmpFork {
            region: 9,
            team_size: 4,
        },
        Event::OmpTeamBegin {
            team: 1,
            thread_num: 0,
            team_size: 4,
        },
        Event::OmpTeamEnd { team: 1 },
        Event::OmpJoin { region: 9 },
        Event::String {
            id: 1,
            text: "résidu".into(),
        },
        Event::Comm {
            comm: 1,
            name: 1,
            members: vec![0, 2, u32::MAX],
            local: vec![],
            remote: vec![],
        },
        Event::MpiSend {
            peer: 1,
            comm: 0,
            tag: 7,
            bytes: 800,
        },
        Event::MpiRecv {
            peer: 3,
            comm: 1,
            tag: 0,
            bytes: u64::MAX,
        },
        Event::MpiIsend {
            peer: 1,
            comm: 0,
            tag: 8,
            bytes: 16,
            request: 77,
        },
        Event::MpiIrecvRequest { request: 78 },
        Event::MpiIsendComplete { request: 77 },
        Event::MpiIrecv {
            peer: 0,
            comm: 0,
            tag: 9,
            bytes: 4,
            request: 78,
        },
        Event::MpiCollectiveBegin,
        Event::MpiCollectiveEnd {
            op: collective::BCAST,
            comm: 0,
            root: Some(0),
            sent: 0,
            received: 1024,
        },
        Event::MpiCollectiveBegin,
        Event::MpiCollectiveEnd {
            op: collective::ALLREDUCE,
            comm: 1,
            root: None,
            sent: 8,
            received: 8,
        },
        Event::User {
            name: 1,
            value: -1.5e-9,
        },
        Event::BufferFlush {
            duration: 123_456,
            bytes: 8 << 20,
        },
        Event::Throttled { region: 3 },
        Event::Mask { mask: 0b1011 },
        Event::ClockSync {
            phase: SyncPhase::Init,
            offset_ns: -12_345,
            round_trip_ns: 900,
            local_ns: Some(77_000_000_123),
        },
        Event::ClockSync {
            phase: SyncPhase::Finalize,
            offset_ns: 12_345,
            round_trip_ns: 800,
            local_ns: None,
        },
        Event::ClockRate {
            span_ticks: 2_500_000_000,
            span_ns: 1_000_000_000,
        },
        Event::Exit { region: 3 },
    ]
}

/// A file of `events` (one every 100 ticks from `start`), split into blocks
/// of at most `block_bytes`.
fn file_of(events: &[Event], block_bytes: usize) -> (Vec<u8>, Vec<Record>) {
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta()).unwrap();
    // docs/trace-format.md says the header takes under 1 KiB.
    assert!(n < 1024, "{n}");
    file.truncate(n);
    let mut buf = vec![0u8; block_bytes];
    let mut block = Block::new(1, 5_000);
    let mut expected = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let ticks = 5_000 + 100 * i as u64;
        if block.push(&mut buf, ticks, e) == Err(Full) {
            file.extend_from_slice(block.finish(&mut buf).unwrap());
            block.reset(ticks);
            block.push(&mut buf, ticks, e).unwrap();
        }
        expected.push(Record {
            ticks,
            event: e.clone(),
        });
    }
    file.extend_from_slice(block.finish(&mut buf).unwrap());
    (file, expected)
}

#[test]
fn every_event_type_round_trips() {
    let (file, expected) = file_of(&every_event(), 4096);
    let t = decode(&file).unwrap();
    assert_eq!(t.records, expected);
    assert_eq!(t.blocks, 1);
    assert_eq!(t.truncated, None);
    assert_eq!(t.unknown, 0);
    let h = &t.header;
    assert_eq!(
        (h.rank, h.size, h.pid, h.thread, h.os_tid),
        (2, 4, 4242, 1, 4243)
    );
    assert_eq!((h.ticks_per_second, h.start_ticks), (2.5e9, 1_000));
    assert_eq!((h.clock_source.as_str(), h.host.as_str()), ("tsc", "node7"));
    assert_eq!(h.types.len(), EVENTS.len());
    assert_eq!(t.strings().get(&1), Some(&"résidu"));
    // One second after start on a 2.5 GHz clock.
    assert_eq!(t.ns_of(1_000 + 2_500_000_000), 1_700_000_001_000_000_000.0);
    // The last clock_rate record wins over the header's estimate.
    let (file2, _) = file_of(
        &[
            Event::Enter { region: 1 },
            Event::ClockRate {
                span_ticks: 2_000_000_000,
                span_ns: 1_000_000_000,
            },
        ],
        4096,
    );
    let t2 = decode(&file2).unwrap();
    assert_eq!(t2.ticks_per_second(), 2e9);
    assert_eq!(t2.ns_of(1_000 + 2_000_000_000), 1_700_000_001_000_000_000.0);
}

#[test]
fn an_intercommunicator_definition_keeps_its_two_groups() {
    let inter = Event::Comm {
        comm: 0x8000_0001,
        name: 3,
        members: vec![0, 1, 2, 3],
        local: vec![3, 1],
        remote: vec![0, 2, 4],
    };
    let (file, expected) = file_of(std::slice::from_ref(&inter), 4096);
    let t = decode(&file).unwrap();
    assert_eq!(t.records, expected);
    // The block-level writer (the runtime's) writes the same record.
    let mut buf = vec![0u8; 4096];
    let mut block = Block::new(1, 1_000);
    block
        .comm(
            &mut buf,
            1_000,
            0x8000_0001,
            3,
            &[0, 1, 2, 3],
            &[3, 1],
            &[0, 2, 4],
        )
        .unwrap();
    let mut file2 = Vec::new();
    let mut head = vec![0u8; 1024];
    let n = write_file_header(&mut head, &meta()).unwrap();
    file2.extend_from_slice(&head[..n]);
    file2.extend_from_slice(block.finish(&mut buf).unwrap());
    let t2 = decode(&file2).unwrap();
    assert_eq!(t2.records.len(), 1);
    assert_eq!(t2.records[0].event, inter);
}

#[test]
fn small_buffers_split_the_stream_into_blocks_without_losing_events() {
    let events: Vec<Event> = every_event().into_iter().cycle().take(500).collect();
    // Small, yet big enough for every record by the encoder's worst-case
    // sizes (the `comm` record's appended lists made 96 too small).
    let (file, expected) = file_of(&events, 128);
    let t = decode(&file).unwrap();
    assert!(t.blocks > 50, "{} blocks", t.blocks);
    assert_eq!(t.records, expected);
}

#[test]
fn a_full_buffer_is_left_unchanged() {
    let mut buf = [0u8; BLOCK_HEADER_LEN + 18];
    let mut block = Block::new(0, 0);
    block.enter(&mut buf, 10, 1).unwrap();
    let before = (block, buf);
    assert_eq!(block.enter(&mut buf, 20, 2), Err(Full));
    assert_eq!((block, buf), before);
    let mut tiny = [0u8; 4];
    assert_eq!(Block::new(0, 0).enter(&mut tiny, 1, 1), Err(Full));
    assert_eq!(Block::new(0, 0).finish(&mut tiny), Err(Full));
    assert_eq!(write_file_header(&mut tiny, &meta()), Err(Full));
}

#[test]
fn a_clock_going_back_keeps_times_ordered() {
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta()).unwrap();
    file.truncate(n);
    let mut buf = [0u8; 256];
    let mut block = Block::new(1, 100);
    block.enter(&mut buf, 200, 1).unwrap();
    block.exit(&mut buf, 150, 1).unwrap();
    file.extend_from_slice(block.finish(&mut buf).unwrap());
    let t = decode(&file).unwrap();
    assert_eq!(t.records[1].ticks, 200);
}

#[test]
fn a_file_cut_anywhere_reads_up_to_its_last_complete_block() {
    let events: Vec<Event> = every_event().into_iter().cycle().take(200).collect();
    let (file, expected) = file_of(&events, 128);
    let whole = decode(&file).unwrap();
    let header_end = 14 + u32::from_le_bytes(file[10..14].try_into().unwrap()) as usize;
    // Where each block ends, and how many records precede that end.
    let mut ends = Vec::new();
    let (mut p, mut seen) = (header_end, 0usize);
    while p < file.len() {
        let len = u32::from_le_bytes(file[p + 4..p + 8].try_into().unwrap()) as usize;
        seen += u32::from_le_bytes(file[p + 12..p + 16].try_into().unwrap()) as usize;
        p += BLOCK_HEADER_LEN + len;
        ends.push((p, seen));
    }
    assert_eq!(ends.last(), Some(&(file.len(), whole.records.len())));
    for cut in header_end..file.len() {
        let t = decode(&file[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let complete = ends.iter().rfind(|(end, _)| *end <= cut);
        let n = complete.map_or(0, |(_, n)| *n);
        assert_eq!(t.records, expected[..n], "cut at {cut}");
        let at_boundary = cut == header_end || ends.iter().any(|(end, _)| *end == cut);
        assert_eq!(t.truncated.is_some(), !at_boundary, "cut at {cut}");
    }
    // Inside the header there is nothing to read.
    assert!(matches!(
        decode(&file[..header_end - 1]),
        Err(DecodeError::Header(_))
    ));
}

#[test]
fn zeros_after_the_last_block_and_a_torn_last_block_count_as_cut() {
    let (mut file, expected) = file_of(&every_event(), 4096);
    let len = file.len();
    file.extend_from_slice(&[0u8; 64]);
    let t = decode(&file).unwrap();
    assert_eq!(t.records, expected);
    assert!(t.truncated.unwrap().reason.contains("zeros"));
    // A torn write: the last byte of the only block changed.
    file.truncate(len);
    file[len - 1] ^= 0xff;
    let t = decode(&file).unwrap();
    assert!(t.records.is_empty());
    assert!(t.truncated.unwrap().reason.contains("checksum"));
}

#[test]
fn corruption_inside_the_file_is_an_error_not_a_cut() {
    let events: Vec<Event> = every_event().into_iter().cycle().take(100).collect();
    let (mut file, _) = file_of(&events, 128);
    let header_end = 14 + u32::from_le_bytes(file[10..14].try_into().unwrap()) as usize;
    file[header_end + BLOCK_HEADER_LEN + 2] ^= 0x55;
    let e = decode(&file).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    assert_eq!(
        decode(b"not a trace at all").unwrap_err(),
        DecodeError::NotATrace
    );
    let mut newer = file.clone();
    newer[8..10].copy_from_slice(&(VERSION + 1).to_le_bytes());
    assert_eq!(
        decode(&newer).unwrap_err(),
        DecodeError::Version { found: VERSION + 1 }
    );
}

/// What a newer writer might produce: an extra event type with a field of
/// every encoding, an extra field appended to `enter`, and more metadata
/// after the fields this version knows.
#[test]
fn unknown_event_types_fields_and_metadata_of_a_newer_writer_are_skipped() {
    use FieldType::*;
    const GPU: &[FieldDef] = &[
        FieldDef {
            name: "stream",
            ty: U,
        },
        FieldDef {
            name: "delta",
            ty: I,
        },
        FieldDef {
            name: "load",
            ty: F64,
        },
        FieldDef {
            name: "region",
            ty: Region,
        },
        FieldDef {
            name: "kernel",
            ty: Bytes,
        },
        FieldDef {
            name: "grid",
            ty: UList,
        },
    ];
    const ENTER2: &[FieldDef] = &[
        FieldDef {
            name: "region",
            ty: Region,
        },
        FieldDef { name: "cpu", ty: U },
    ];
    let mut table: Vec<EventDef> = EVENTS.to_vec();
    table[0] = EventDef {
        code: 1,
        name: "enter",
        fields: ENTER2,
    };
    table.push(EventDef {
        code: 100,
        name: "gpu_kernel",
        fields: GPU,
    });

    let mut head = vec![0u8; 4096];
    let mut out = Out {
        buf: &mut head,
        pos: 0,
    };
    out.bytes(&MAGIC).unwrap();
    out.bytes(&VERSION.to_le_bytes()).unwrap();
    out.bytes(&[0; 4]).unwrap();
    let body = out.pos;
    crate::encode::write_header_body(&mut out, &table, &meta()).unwrap();
    out.str("an appended metadata field").unwrap();
    let end = out.pos;
    let body_len = (end - body) as u32;
    head[10..14].copy_from_slice(&body_len.to_le_bytes());
    head.truncate(end);

    // Records by hand: enter with its extra field, the GPU event, an exit
    // written by this version's encoder.
    let mut payload = Vec::new();
    let mut p = [0u8; 64];
    let mut put = |v: u64, payload: &mut Vec<u8>| {
        let n = put_u64(&mut p, 0, v);
        payload.extend_from_slice(&p[..n]);
    };
    put(1, &mut payload); // enter
    put(10, &mut payload); // delta
    put(crate::varint::fold_region(5), &mut payload);
    put(3, &mut payload); // cpu
    put(100, &mut payload); // gpu_kernel
    put(20, &mut payload);
    put(7, &mut payload);
    put(crate::varint::zigzag(-3), &mut payload);
    payload.extend_from_slice(&0.5f64.to_le_bytes());
    put(crate::varint::fold_region(0x8000_0001), &mut payload);
    put(4, &mut payload);
    payload.extend_from_slice(b"axpy");
    put(2, &mut payload);
    put(128, &mut payload);
    put(1, &mut payload);
    let mut buf = [0u8; 256];
    buf[BLOCK_HEADER_LEN..BLOCK_HEADER_LEN + payload.len()].copy_from_slice(&payload);
    let mut block = Block::new(1, 1_000);
    block.pos = BLOCK_HEADER_LEN + payload.len();
    block.count = 2;
    block.last = 1_030;
    block.exit(&mut buf, 1_100, 5).unwrap();
    let mut file = head;
    file.extend_from_slice(block.finish(&mut buf).unwrap());

    let t = decode(&file).unwrap();
    assert_eq!(t.unknown, 1);
    assert_eq!(t.header.host, "node7");
    let got: Vec<(u64, &Event)> = t.records.iter().map(|r| (r.ticks, &r.event)).collect();
    assert_eq!(got[0], (1_010, &Event::Enter { region: 5 }));
    match got[1] {
        (
            1_030,
            Event::Unknown {
                code: 100,
                name,
                values,
            },
        ) => {
            assert_eq!(name, "gpu_kernel");
            assert_eq!(
                values,
                &[
                    Value::U(7),
                    Value::I(-3),
                    Value::F64(0.5),
                    Value::Region(0x8000_0001),
                    Value::Bytes(b"axpy".to_vec()),
                    Value::UList(vec![128, 1]),
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(got[2], (1_100, &Event::Exit { region: 5 }));
}

#[test]
fn enter_and_exit_records_take_three_to_six_bytes() {
    let based = (5 << 22) + 40;
    assert_eq!(region_record_len(0, 0, 0), 3);
    assert_eq!(region_record_len(100, based, based), 3);
    assert_eq!(region_record_len(100, based + 30, based), 3);
    assert_eq!(region_record_len(200, based - 30, based), 4);
    assert_eq!(region_record_len(1 << 20, based + 5000, based), 1 + 3 + 2);
    // A region of another object: the difference takes the bytes the id
    // took in version 1.
    assert_eq!(region_record_len(100, based, 0x8000_0001), 1 + 1 + 5);
}

/// Instrumented C and Fortran ids carry their object's base (2^22 apart):
/// folded they took 4 bytes; as differences from the previous region, a
/// call stream of one object takes one byte per region field, and the
/// encoder's result matches `region_record_len` and decodes exactly.
#[test]
fn region_ids_with_an_object_base_take_one_byte_in_a_call_stream() {
    let base = 3u32 << 22;
    let mut buf = vec![0u8; 1 << 16];
    let mut block = Block::new(0, 0);
    let mut expected = Vec::new();
    let (mut t, mut prev) = (0u64, 0u32);
    let mut push = |block: &mut Block, buf: &mut [u8], t: u64, e: Event, prev: &mut u32| {
        let before = block.len();
        block.push(buf, t, &e).unwrap();
        let region = match e {
            Event::Enter { region } | Event::Exit { region } => region,
            _ => unreachable!(),
        };
        let gap = t - expected.last().map_or(0, |r: &Record| r.ticks);
        assert_eq!(block.len() - before, region_record_len(gap, region, *prev));
        *prev = region;
        expected.push(Record { ticks: t, event: e });
    };
    push(
        &mut block,
        &mut buf,
        10,
        Event::Enter { region: base + 1 },
        &mut prev,
    );
    let first = block.len() - BLOCK_HEADER_LEN;
    for i in 0..100u32 {
        for r in [base + 2, base + 7 + i % 3] {
            t += 90 + u64::from(i);
            push(
                &mut block,
                &mut buf,
                t,
                Event::Enter { region: r },
                &mut prev,
            );
            t += 300;
            push(
                &mut block,
                &mut buf,
                t,
                Event::Exit { region: r },
                &mut prev,
            );
        }
    }
    // A Rust descriptor and another object in between.
    for r in [0x8000_0004, (4 << 22) + 2] {
        t += 50;
        push(
            &mut block,
            &mut buf,
            t,
            Event::Enter { region: r },
            &mut prev,
        );
        push(
            &mut block,
            &mut buf,
            t + 1,
            Event::Exit { region: r },
            &mut prev,
        );
        t += 1;
    }
    t += 10;
    push(
        &mut block,
        &mut buf,
        t,
        Event::Exit { region: base + 1 },
        &mut prev,
    );
    // The first record's field is the whole id (the block starts at 0);
    // every record of the loop takes code, a 1-2 byte delta, one byte.
    assert_eq!(first, 1 + 1 + 4);
    let payload = block.len() - BLOCK_HEADER_LEN;
    assert!(payload <= first + 400 * 4 + 4 * 7 + 4, "{payload} bytes");
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta()).unwrap();
    file.truncate(n);
    file.extend_from_slice(block.finish(&mut buf).unwrap());
    // Block's location is 0, the header's thread 1: rewrite the location.
    file[n + 8..n + 12].copy_from_slice(&1u32.to_le_bytes());
    let t = decode(&file).unwrap();
    assert_eq!(t.records, expected);
}

/// `enter_timed` reads the clock only after it checked the room and
/// computed the region field, and not at all when the buffer is full; the
/// record is the one `enter` writes.
#[test]
fn a_timed_enter_reads_the_clock_once_and_only_when_it_writes() {
    let mut a = [0u8; 64];
    let mut b = [0u8; 64];
    let (mut x, mut y) = (Block::new(0, 100), Block::new(0, 100));
    x.enter(&mut a, 250, (1 << 22) + 3).unwrap();
    let mut reads = 0;
    let t = y
        .enter_timed(&mut b, (1 << 22) + 3, || {
            reads += 1;
            250
        })
        .unwrap();
    assert_eq!((t, reads), (250, 1));
    assert_eq!((x, a), (y, b));
    let mut tiny = [0u8; BLOCK_HEADER_LEN + 8];
    let mut z = Block::new(0, 0);
    let r = z.enter_timed(&mut tiny, 1, || {
        reads += 1;
        1
    });
    assert_eq!((r, reads), (Err(Full), 1));
    assert_eq!(z, Block::new(0, 0));
}

/// The word-wise checksum catches what a torn write leaves: a payload cut
/// or zeroed from any point on, a single flipped bit, two words swapped.
#[test]
fn the_block_checksum_tells_torn_and_changed_payloads() {
    let data: Vec<u8> = (0..203u32).map(|i| (i * 37 + 11) as u8).collect();
    let sum = block_checksum(&data);
    for cut in 0..data.len() {
        let mut zeroed = data.clone();
        zeroed[cut..].fill(0);
        assert_ne!(block_checksum(&zeroed), sum, "zeros from {cut}");
        assert_ne!(block_checksum(&data[..cut]), sum, "cut at {cut}");
    }
    for bit in 0..data.len() * 8 {
        let mut flipped = data.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert_ne!(block_checksum(&flipped), sum, "bit {bit}");
    }
    let mut swapped = data.clone();
    swapped[..16].rotate_left(8);
    assert_ne!(block_checksum(&swapped), sum);
    assert_ne!(block_checksum(&[0u8; 64]), block_checksum(&[0u8; 56]));
}

/// A file written by the version-1 encoder (`tests/data/v1-every-event.rtrace`,
/// made from `every_event()` and `v1_fixture_extra()` with `file_of(.., 128)`
/// at commit afaded4): folded region ids, FNV-1a checksums, several blocks.
#[test]
fn version_1_files_are_still_read() {
    let file = include_bytes!("../tests/data/v1-every-event.rtrace");
    let mut events = every_event();
    events.extend(v1_fixture_extra());
    let t = decode(file).unwrap();
    assert_eq!(t.header.version, 1);
    assert!(t.blocks > 3, "{} blocks", t.blocks);
    assert_eq!((t.truncated.clone(), t.unknown), (None, 0));
    let expected: Vec<Record> = events
        .into_iter()
        .enumerate()
        .map(|(i, event)| Record {
            ticks: 5_000 + 100 * i as u64,
            event,
        })
        .collect();
    assert_eq!(t.records, expected);
    // Cut inside its last block: read up to the block before.
    let cut = decode(&file[..file.len() - 3]).unwrap();
    assert!(cut.truncated.is_some());
    assert!(cut.records.len() < expected.len());
    assert_eq!(cut.records, expected[..cut.records.len()]);
}

#[test]
fn rank_and_size_can_be_patched_in_place_after_the_header_was_written() {
    let (mut file, expected) = file_of(&every_event(), 4096);
    let at = rank_offset();
    file[at..at + 8].copy_from_slice(&rank_patch(7, 16));
    let t = decode(&file).unwrap();
    assert_eq!((t.header.rank, t.header.size), (7, 16));
    assert_eq!((t.header.pid, t.header.host.as_str()), (4242, "node7"));
    assert_eq!(t.records, expected);
}

/// A crash handler writes another thread's buffer up to the last record
/// that thread published, with a header of its own and no count.
#[test]
fn a_block_written_by_a_crash_handler_without_a_count_reads() {
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta()).unwrap();
    file.truncate(n);
    let mut buf = [0u8; 256];
    let mut block = Block::new(1, 50);
    block.enter(&mut buf, 60, 3).unwrap();
    block.exit(&mut buf, 70, 3).unwrap();
    let published = block.len();
    let header = block_header(
        1,
        block.base_ticks(),
        None,
        &buf[BLOCK_HEADER_LEN..published],
    )
    .unwrap();
    file.extend_from_slice(&header);
    file.extend_from_slice(&buf[BLOCK_HEADER_LEN..published]);
    let t = decode(&file).unwrap();
    assert_eq!(t.records.len(), 2);
    assert_eq!(
        t.records[1],
        Record {
            ticks: 70,
            event: Event::Exit { region: 3 }
        }
    );
    assert_eq!(t.truncated, None);
}

/// Events besides `every_event()` in the version-1 fixture: ids of two
/// instrumented objects (bases 2^22 and 2^23) and a Rust descriptor.
fn v1_fixture_extra() -> Vec<Event> {
    vec![
        Event::Enter {
            region: (1 << 22) + 5,
        },
        Event::Enter {
            region: (2 << 22) + 1,
        },
        Event::Exit {
            region: (2 << 22) + 1,
        },
        Event::Enter {
            region: 0x8000_0007,
        },
        Event::Exit {
            region: 0x8000_0007,
        },
        Event::Exit {
            region: (1 << 22) + 5,
        },
    ]
}

/// Writes `events` (enter/exit only, with their ticks) the way the
/// runtime's traced probes do: the short form when it applies, else the
/// long one; a full block is finished and a new one started. Returns the
/// file and how many records took the short form.
fn probe_file_of(events: &[(u64, Event)], block_bytes: usize) -> (Vec<u8>, usize) {
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta()).unwrap();
    file.truncate(n);
    let mut buf = vec![0u8; block_bytes];
    let mut block = Block::new(1, events[0].0);
    let mut short = 0;
    for &(ticks, ref e) in events {
        let (is_enter, region) = match *e {
            Event::Enter { region } => (true, region),
            Event::Exit { region } => (false, region),
            _ => unreachable!("enter and exit only"),
        };
        let prepared = if is_enter {
            block.prepare_enter(&buf, region)
        } else {
            block.prepare_exit(&buf, region)
        };
        let prepared = match prepared {
            Ok(p) => p,
            Err(Full) => {
                file.extend_from_slice(block.finish(&mut buf).unwrap());
                block.reset(ticks);
                if is_enter {
                    block.prepare_enter(&buf, region).unwrap()
                } else {
                    block.prepare_exit(&buf, region).unwrap()
                }
            }
        };
        let before = block;
        let done = if is_enter {
            block.enter_prepared_short(&mut buf, prepared, ticks)
        } else {
            block.exit_prepared_short(&mut buf, prepared, ticks)
        };
        if done {
            assert_eq!(block.len(), before.len() + SHORT_REGION_RECORD_LEN);
            short += 1;
        } else {
            assert_eq!(block, before, "a refused short record changed the block");
            if is_enter {
                block.enter_prepared(&mut buf, prepared, ticks);
            } else {
                block.exit_prepared(&mut buf, prepared, ticks);
            }
        }
    }
    file.extend_from_slice(block.finish(&mut buf).unwrap());
    (file, short)
}

/// Enter/exit pairs with time gaps around the short form's edges (0, 127,
/// 128, 2^14 - 1, 2^14, a clock going back) and regions near and far
/// (an object base, a Rust descriptor): the stream the runtime writes
/// with short and long records mixed decodes to exactly these events.
fn probe_stream() -> Vec<(u64, Event)> {
    let gaps = [
        0u64,
        1,
        127,
        128,
        129,
        5000,
        (1 << 14) - 1,
        1 << 14,
        1 << 20,
    ];
    let regions = [
        (1 << 22) + 3,
        (1 << 22) + 4,
        (1 << 22) + 200,
        0x8000_0001,
        7,
    ];
    let mut t = 1_000_000u64;
    let mut out = Vec::new();
    for i in 0..300 {
        let region = regions[i % regions.len()];
        t += gaps[i % gaps.len()];
        out.push((t, Event::Enter { region }));
        t += gaps[(i * 7 + 3) % gaps.len()];
        out.push((t, Event::Exit { region }));
    }
    // A clock reading earlier than the previous one takes the long form
    // and is recorded as equal to it.
    out.push((t - 50, Event::Enter { region: 7 }));
    out.push((t + 10, Event::Exit { region: 7 }));
    out
}

#[test]
fn short_region_records_round_trip_mixed_with_long_ones() {
    let events = probe_stream();
    let (file, short) = probe_file_of(&events, 1 << 16);
    let t = decode(&file).unwrap();
    assert_eq!(t.truncated, None);
    let mut last = 0;
    let expected: Vec<Record> = events
        .iter()
        .map(|(ticks, e)| {
            last = (*ticks).max(last);
            Record {
                ticks: last,
                event: e.clone(),
            }
        })
        .collect();
    assert_eq!(t.records, expected);
    // Both forms occur: the test exercises the mix, not one of them.
    assert!(short > 100 && short < events.len() - 100, "{short}");
    // A short record is the event the long form writes, its delta padded to
    // two bytes: a delta below 128 takes one byte more, no other differs.
    let mut long = Block::new(0, 100);
    let mut short_block = Block::new(0, 100);
    let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
    long.enter(&mut a, 105, 3).unwrap();
    let p = short_block.prepare_enter(&b, 3).unwrap();
    assert!(short_block.enter_prepared_short(&mut b, p, 105));
    assert_eq!(a[BLOCK_HEADER_LEN..BLOCK_HEADER_LEN + 3], [1, 5, 6]);
    assert_eq!(b[BLOCK_HEADER_LEN..BLOCK_HEADER_LEN + 4], [1, 0x85, 0, 6]);
    long.exit(&mut a, 105 + 300, 3).unwrap();
    let p = short_block.prepare_exit(&b, 3).unwrap();
    assert!(short_block.exit_prepared_short(&mut b, p, 105 + 300));
    assert_eq!(
        a[BLOCK_HEADER_LEN + 3..BLOCK_HEADER_LEN + 7],
        b[BLOCK_HEADER_LEN + 4..BLOCK_HEADER_LEN + 8]
    );
}

#[test]
fn a_file_of_short_region_records_cut_anywhere_reads_up_to_its_last_complete_block() {
    let events = probe_stream();
    let (file, _) = probe_file_of(&events, 160);
    let whole = decode(&file).unwrap();
    assert!(whole.blocks > 20, "{} blocks", whole.blocks);
    assert_eq!(whole.records.len(), events.len());
    let header_end = 14 + u32::from_le_bytes(file[10..14].try_into().unwrap()) as usize;
    let mut ends = Vec::new();
    let (mut p, mut seen) = (header_end, 0usize);
    while p < file.len() {
        let len = u32::from_le_bytes(file[p + 4..p + 8].try_into().unwrap()) as usize;
        seen += u32::from_le_bytes(file[p + 12..p + 16].try_into().unwrap()) as usize;
        p += BLOCK_HEADER_LEN + len;
        ends.push((p, seen));
    }
    for cut in header_end..file.len() {
        let t = decode(&file[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let n = ends
            .iter()
            .rfind(|(end, _)| *end <= cut)
            .map_or(0, |(_, n)| *n);
        assert_eq!(t.records, whole.records[..n], "cut at {cut}");
    }
}

/// xorshift64*: reproducible pseudo-random streams without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random stream for the raw encoder: mostly the probes' common case
/// (short gaps, neighbouring regions: whole groups of short records), and
/// around it gaps across the short form's limits (127/128, 2^14 - 1/2^14,
/// huge), a clock going back, region ids small, near, far and at the
/// ends of the range, and every other event type (some with a region
/// field) in between.
fn random_stream(rng: &mut Rng, n: usize) -> Vec<(u64, Event)> {
    let others = every_event()
        .into_iter()
        .filter(|e| !matches!(e, Event::Enter { .. } | Event::Exit { .. }))
        .collect::<Vec<_>>();
    let mut t = 1u64 << 32;
    let mut region = 5u32;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let short = rng.below(100) < 85;
        t = if short {
            t + rng.below(1 << 13)
        } else {
            match rng.below(9) {
                0 => t + 127,
                1 => t + 128,
                2 => t + (1 << 14) - 1,
                3 => t + (1 << 14),
                4 => t + (1 << 14) + rng.below(1 << 20),
                5 => t + rng.below(1 << 40),
                6 => t.saturating_sub(rng.below(1000) + 1),
                7 => t,
                _ => t + rng.below(1 << 14),
            }
        };
        if short || rng.below(2) == 0 {
            region = region.wrapping_add(rng.below(7) as u32).wrapping_sub(3);
        } else {
            region = match rng.below(7) {
                0 => region.wrapping_add(63),
                1 => region.wrapping_add(64),
                2 => region.wrapping_sub(64),
                3 => region.wrapping_sub(65),
                4 => 0x8000_0000 | rng.below(100) as u32,
                5 => u32::MAX - rng.below(3) as u32,
                _ => rng.next() as u32,
            };
        }
        let e = match rng.below(100) {
            0..=46 => Event::Enter { region },
            47..=93 => Event::Exit { region },
            _ => match others[rng.below(others.len() as u64) as usize].clone() {
                Event::Throttled { .. } => Event::Throttled { region },
                e => e,
            },
        };
        out.push((t, e));
    }
    out
}

/// Writes `events` as the runtime's probes did before raw records: each
/// enter/exit in the short form when it applies, else the long; any other
/// event with `Block::push`. A new block starts at each index of `cuts`.
fn direct_file(events: &[(u64, Event)], cuts: &[usize]) -> Vec<u8> {
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta()).unwrap();
    file.truncate(n);
    let mut buf = vec![0u8; 1 << 20];
    let mut block = Block::new(1, events[0].0);
    for (i, (ticks, e)) in events.iter().enumerate() {
        if cuts.contains(&i) {
            file.extend_from_slice(block.finish(&mut buf).unwrap());
            block.reset(*ticks);
        }
        block.push_direct(&mut buf, *ticks, e).unwrap();
    }
    file.extend_from_slice(block.finish(&mut buf).unwrap());
    file
}

/// The same stream written as the runtime writes it now: enters and exits
/// appended raw after the block's encoded records and encoded in place
/// (`Block::encode_raw`) before any other event, before a block is
/// finished, and whenever `rng` says so (any number of raw records at
/// once, as a full buffer would).
fn raw_file(events: &[(u64, Event)], cuts: &[usize], rng: Option<&mut Rng>) -> Vec<u8> {
    raw_file_with(events, cuts, rng, |b, buf, from, to| {
        b.encode_raw(buf, from, to).unwrap()
    })
}

/// [`raw_file`] with `encode` in place of `Block::encode_raw`.
fn raw_file_with(
    events: &[(u64, Event)],
    cuts: &[usize],
    mut rng: Option<&mut Rng>,
    encode: impl Fn(&mut Block, &mut [u8], usize, usize),
) -> Vec<u8> {
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta()).unwrap();
    file.truncate(n);
    let mut buf = vec![0u8; 1 << 22];
    let mut block = Block::new(1, events[0].0);
    let mut raw_end = block.len();
    for (i, (ticks, e)) in events.iter().enumerate() {
        if cuts.contains(&i) {
            let from = block.len();
            encode(&mut block, &mut buf, from, raw_end);
            file.extend_from_slice(block.finish(&mut buf).unwrap());
            block.reset(*ticks);
            raw_end = block.len();
        }
        let code = match *e {
            Event::Enter { .. } => code::ENTER,
            Event::Exit { .. } => code::EXIT,
            _ => {
                let from = block.len();
                encode(&mut block, &mut buf, from, raw_end);
                block.push(&mut buf, *ticks, e).unwrap();
                raw_end = block.len();
                continue;
            }
        };
        let (Event::Enter { region } | Event::Exit { region }) = *e else {
            unreachable!()
        };
        buf[raw_end..raw_end + RAW_REGION_RECORD_LEN]
            .copy_from_slice(&raw_region_record(code, *ticks, region));
        raw_end += RAW_REGION_RECORD_LEN;
        if rng.as_mut().is_some_and(|r| r.below(40) == 0) {
            let from = block.len();
            encode(&mut block, &mut buf, from, raw_end);
            raw_end = block.len();
        }
    }
    let from = block.len();
    encode(&mut block, &mut buf, from, raw_end);
    file.extend_from_slice(block.finish(&mut buf).unwrap());
    file
}

#[test]
fn raw_records_encode_to_the_bytes_the_direct_encoder_writes() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..40 {
        let n = 50 + rng.below(4000) as usize;
        let events = random_stream(&mut rng, n);
        let mut cuts: Vec<usize> = (0..rng.below(6))
            .map(|_| rng.below(n as u64) as usize)
            .collect();
        cuts.retain(|&c| c > 0);
        let direct = direct_file(&events, &cuts);
        let raw = raw_file(&events, &cuts, Some(&mut rng));
        assert!(direct == raw, "round {round}: the raw path's file differs");
        // The one-by-one path alone (a CPU without AVX2) writes them too.
        let one = raw_file_with(&events, &cuts, None, |b, buf, from, to| {
            b.encode_raw_one_by_one(buf, from, to)
        });
        assert!(direct == one, "round {round}: the one-by-one file differs");
        // And the file says what happened (times made monotonic).
        let t = decode(&raw).unwrap();
        assert_eq!(t.truncated, None);
        assert_eq!(t.records.len(), n, "round {round}");
        let mut last = 0;
        for (r, (ticks, e)) in t.records.iter().zip(&events) {
            last = last.max(*ticks);
            assert_eq!((r.ticks, &r.event), (last, e), "round {round}");
        }
    }
}

#[test]
fn whole_groups_of_short_raw_records_and_a_long_one_among_them() {
    // A run of short records long enough for the four-at-a-time path,
    // with one long record at each position of a group in turn and a
    // clock going back: the same bytes as the direct encoder.
    for long_at in 0..9 {
        let mut events = Vec::new();
        let mut t = 10_000u64;
        for i in 0..40usize {
            t += if i == long_at * 3 + 1 {
                1 << 20
            } else {
                100 + i as u64
            };
            if i == 30 {
                t -= 500;
            }
            let region = if i == long_at * 2 + 5 {
                0x8000_0007
            } else {
                3 + (i % 4) as u32
            };
            events.push((
                t,
                if i % 2 == 0 {
                    Event::Enter { region }
                } else {
                    Event::Exit { region }
                },
            ));
        }
        let direct = direct_file(&events, &[]);
        // One call over the whole run.
        let raw = raw_file(&events, &[], None);
        assert!(direct == raw, "long record at {long_at}");
    }
}

#[test]
fn raw_records_are_refused_where_they_cannot_be_encoded_in_place() {
    let mut buf = vec![0u8; 256];
    let mut block = Block::new(0, 0);
    let start = block.len();
    let r = raw_region_record(code::ENTER, 5, 3);
    buf[start..start + 16].copy_from_slice(&r);
    let before = block;
    // Not whole records, beyond the buffer, before the block's end.
    assert_eq!(block.encode_raw(&mut buf, start, start + 15), Err(NotRaw));
    assert_eq!(block.encode_raw(&mut buf, start, 300), Err(NotRaw));
    assert_eq!(
        block.encode_raw(&mut buf, start - 1, start + 15),
        Err(NotRaw)
    );
    assert_eq!(block, before);
    block.encode_raw(&mut buf, start, start + 16).unwrap();
    assert_eq!(buf[start..start + 4], [1, 0x85, 0, 6]);
    assert_eq!(block.len(), start + 4);
}
