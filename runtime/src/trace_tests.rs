//! The trace buffer's raw records, end to end: what reaches the file is
//! byte for byte what the direct encoder writes (records encoded before
//! other events, every batch of raw records, when the buffer fills, at the
//! end of the run), the probes leave at most a batch unencoded, and an
//! end-of-run write from another thread takes the raw records published so
//! far while the owner goes on appending.

use super::*;
use regio_trace_format::{decode, Record};

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

/// How a test records one event into the buffer.
#[derive(Clone, Debug)]
enum Step {
    /// `TraceBuf::enter` / `exit`.
    Region(Event),
    /// `raw_room` + `put_raw`, as the traced probes do (`enter`/`exit` when
    /// the buffer is full).
    Probe(Event),
    /// `enter_timed` with a clock that reads the tick.
    Timed(u32),
    /// `TraceBuf::event`.
    Other(Event),
    /// `TraceBuf::user`: name id, value.
    User(u32, f64),
}

/// A random stream: mostly short gaps and neighbouring regions (whole
/// groups of short records), with gaps across the short form's limits, a
/// clock going back, far and huge region ids, and other events (some
/// with a region field, user events) in between.
fn stream(rng: &mut Rng, n: usize) -> Vec<(u64, Step)> {
    let mut t = 1u64 << 30;
    let mut region = 10u32;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let short = rng.below(100) < 85;
        t = if short {
            t + rng.below(3000)
        } else {
            match rng.below(7) {
                0 => t + 128,
                1 => t + (1 << 14) - 1,
                2 => t + (1 << 14),
                3 => t + rng.below(1 << 36),
                4 => t.saturating_sub(rng.below(500) + 1),
                5 => t,
                _ => t + 127,
            }
        };
        region = if short || rng.below(2) == 0 {
            region.wrapping_add(rng.below(5) as u32).wrapping_sub(2)
        } else {
            match rng.below(4) {
                0 => region.wrapping_add(64),
                1 => 0x8000_0000 | rng.below(50) as u32,
                2 => u32::MAX,
                _ => rng.next() as u32,
            }
        };
        let step = match rng.below(100) {
            0..=29 => Step::Probe(Event::Enter { region }),
            30..=59 => Step::Probe(Event::Exit { region }),
            60..=74 => Step::Region(Event::Enter { region }),
            75..=89 => Step::Region(Event::Exit { region }),
            90..=93 => Step::Timed(region),
            94..=95 => Step::User(rng.below(3) as u32, rng.below(1000) as f64 / 8.0),
            96 => Step::Other(Event::Throttled { region }),
            97 => Step::Other(Event::OmpFork {
                region,
                team_size: 4,
            }),
            98 => Step::Other(Event::MpiSend {
                peer: 1,
                comm: 0,
                tag: 7,
                bytes: rng.below(1 << 20),
            }),
            _ => Step::Other(Event::Mask { mask: rng.next() }),
        };
        out.push((t, step));
    }
    out
}

const NAMES: [&str; 3] = ["residual", "size", "phase"];

/// Records `steps` into `tb` as the runtime does; returns the events the
/// file must hold, in order, with their original ticks (a user event's
/// name is defined by a string record the first time).
unsafe fn record(tb: &TraceBuf, steps: &[(u64, Step)]) -> Vec<(u64, Event)> {
    let mut want = Vec::new();
    let mut named = [false; NAMES.len()];
    for (t, step) in steps {
        let t = *t;
        match step {
            Step::Region(e) => {
                tb.event(t, e);
                want.push((t, e.clone()));
            }
            Step::Probe(e) => {
                let (code, region) = match *e {
                    Event::Enter { region } => (code::ENTER, region),
                    Event::Exit { region } => (code::EXIT, region),
                    _ => unreachable!(),
                };
                match tb.raw_room() {
                    Some(at) => tb.put_raw(at, code, t, region),
                    None if code == code::ENTER => tb.enter(t, region),
                    None => tb.exit(t, region),
                }
                want.push((t, e.clone()));
            }
            Step::Timed(region) => {
                assert_eq!(tb.enter_timed(*region, || t), t);
                want.push((t, Event::Enter { region: *region }));
            }
            Step::Other(e) => {
                tb.event(t, e);
                want.push((t, e.clone()));
            }
            Step::User(name, value) => {
                let i = *name as usize;
                tb.user(t, *name, NAMES[i], *value);
                if !named[i] {
                    named[i] = true;
                    want.push((
                        t,
                        Event::String {
                            id: *name,
                            text: NAMES[i].to_string(),
                        },
                    ));
                }
                want.push((
                    t,
                    Event::User {
                        name: *name,
                        value: *value,
                    },
                ));
            }
        }
    }
    want
}

/// The file's header and its blocks' bytes.
fn blocks(file: &[u8]) -> (&[u8], Vec<&[u8]>) {
    let header_end = 14 + u32::from_le_bytes(file[10..14].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    let mut p = header_end;
    while p < file.len() {
        let len = u32::from_le_bytes(file[p + 4..p + 8].try_into().unwrap()) as usize;
        out.push(&file[p..p + BLOCK_HEADER_LEN + len]);
        p += BLOCK_HEADER_LEN + len;
    }
    (&file[..header_end], out)
}

/// The direct encoder's block (the probes' short form when it applies,
/// else the long; anything else with `Block::push`) of `events` from
/// `base`, first the flush record `flush` of a block that follows a
/// write-out.
fn direct_block(
    location: u32,
    base: u64,
    flush: Option<&Event>,
    events: &[(u64, Event)],
) -> Vec<u8> {
    let mut buf = vec![0u8; 1 << 20];
    let mut b = Block::new(location, base);
    if let Some(f) = flush {
        b.push(&mut buf, base, f).unwrap();
    }
    for (t, e) in events {
        b.push_direct(&mut buf, *t, e).unwrap();
    }
    b.finish(&mut buf).unwrap().to_vec()
}

#[test]
fn what_reaches_the_file_is_what_the_direct_encoder_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..8 {
        let path = tmp.path().join(format!("t{round}.rtrace"));
        // Small buffers: many encodings of a full buffer, and write-outs
        // between them; then buffers of a few batches of raw records
        // (`RAW_BATCH`), one not a whole number of them: encodings of
        // full batches too.
        let (bytes, events) = [
            (4096, 20_000),
            (8192, 20_000),
            (3000, 20_000),
            (64 << 10, 150_000),
            (40_000, 100_000),
        ][round % 5];
        let steps = stream(&mut rng, events);
        let tb = TraceBuf::for_test_with_file(bytes, 3, steps[0].0, &path);
        // SAFETY: this thread is the buffer's owner.
        let want = unsafe { record(tb, &steps) };
        let end = want.iter().map(|(t, _)| *t).max().unwrap() + 10;
        tb.write_at_end(end, 1000, 1000);
        assert_eq!(tb.dropped.load(Relaxed), 0);

        let file = std::fs::read(&path).unwrap();
        let (header, blocks) = blocks(&file);
        assert!(blocks.len() > 5, "round {round}: {} blocks", blocks.len());
        let mut rest = &want[..];
        let mut flushes = 0;
        // Every block but the last (the clock rate's) holds the events.
        for (k, block) in blocks[..blocks.len() - 1].iter().enumerate() {
            let count = u32::from_le_bytes(block[12..16].try_into().unwrap()) as usize;
            let base = u64::from_le_bytes(block[16..24].try_into().unwrap());
            let alone = decode(&[header, block].concat()).unwrap();
            let flush = (k > 0).then(|| alone.records[0].event.clone());
            if let Some(f) = &flush {
                assert!(matches!(f, Event::BufferFlush { .. }), "{f:?}");
                flushes += 1;
            }
            let n = count - usize::from(k > 0);
            let (mine, later) = rest.split_at(n);
            let direct = direct_block(3, base, flush.as_ref(), mine);
            assert!(direct == *block, "round {round}, block {k}: bytes differ");
            // And the block says what happened, times made monotonic from
            // its base.
            let mut last = base;
            let expected: Vec<Record> = mine
                .iter()
                .map(|(t, e)| {
                    last = last.max(*t);
                    Record {
                        ticks: last,
                        event: e.clone(),
                    }
                })
                .collect();
            assert_eq!(
                alone.records[usize::from(k > 0)..],
                expected,
                "round {round}, block {k}"
            );
            rest = later;
        }
        assert!(
            rest.is_empty(),
            "round {round}: {} events missing",
            rest.len()
        );
        assert!(flushes > 3, "round {round}: {flushes} write-outs");
        let all = decode(&file).unwrap();
        assert!(all.truncated.is_none());
    }
}

#[test]
fn an_end_of_run_write_from_another_thread_takes_the_raw_records_published_so_far() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("t.rtrace");
    // Room for about 4000 raw records: the owner fills it and encodes it
    // (a quarter of the room once encoded: no write-out) at least once
    // before the end-of-run write comes, and is still appending then.
    let tb = TraceBuf::for_test_with_file(64 << 10, 1, 1000, &path);
    let stop = Arc::new(AtomicBool::new(false));
    let published = Arc::new(AtomicU64::new(0));
    let owner = {
        let stop = Arc::clone(&stop);
        let published = Arc::clone(&published);
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(Relaxed) && i < 2_000_000 {
                // SAFETY: this thread is the buffer's owner.
                unsafe {
                    let (code, region) = if i.is_multiple_of(2) {
                        (code::ENTER, 5)
                    } else {
                        (code::EXIT, 5)
                    };
                    match tb.raw_room() {
                        Some(at) => tb.put_raw(at, code, 1000 + 10 * i, region),
                        None if code == code::ENTER => tb.enter(1000 + 10 * i, region),
                        None => tb.exit(1000 + 10 * i, region),
                    }
                }
                i += 1;
                published.store(i, Relaxed);
            }
            // After the end-of-run write the owner records into its buffer
            // but nothing reaches the file: this event is dropped.
            unsafe { tb.event(1000 + 10 * i, &Event::Mask { mask: 1 }) };
            i
        })
    };
    while published.load(Relaxed) < 6000 && !owner.is_finished() {
        std::thread::yield_now();
    }
    tb.write_at_end(u64::MAX / 2, 1000, 1000);
    let written = std::fs::read(&path).unwrap();
    // The owner records past what was written before it stops (the file
    // holds at most one record more than it had published): an owner
    // descheduled until `stop` would make "a prefix" untestable.
    let at_write = published.load(Relaxed);
    while published.load(Relaxed) < at_write + 2 && !owner.is_finished() {
        std::thread::yield_now();
    }
    stop.store(true, Relaxed);
    let made = owner.join().unwrap();
    assert!(tb.dropped.load(Relaxed) >= 1);
    // The owner's attempts to encode left the buffer the end-of-run
    // writer's: a second end-of-run write returns at once, writing nothing.
    let t0 = std::time::Instant::now();
    tb.write_at_end(u64::MAX / 2, 1000, 1000);
    assert!(t0.elapsed() < std::time::Duration::from_millis(500));
    assert_eq!(std::fs::read(&path).unwrap(), written, "written once");
    let t = decode(&written).unwrap();
    assert!(t.truncated.is_none());
    let records: Vec<&Record> = t
        .records
        .iter()
        .filter(|r| !matches!(r.event, Event::ClockRate { .. } | Event::BufferFlush { .. }))
        .collect();
    // A prefix of what the owner recorded, every record exact, raw ones
    // (those after the encoding of the full buffer) included.
    assert!(
        records.len() > 6000 && (records.len() as u64) < made,
        "{} of {made}",
        records.len()
    );
    for (i, r) in records.iter().enumerate() {
        let e = if i.is_multiple_of(2) {
            Event::Enter { region: 5 }
        } else {
            Event::Exit { region: 5 }
        };
        assert_eq!(
            (r.ticks, &r.event),
            (1000 + 10 * i as u64, &e),
            "record {i}"
        );
    }
}

#[test]
fn an_end_of_run_write_encodes_raw_records_and_closes_a_join_span() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("t.rtrace");
    let tb = TraceBuf::for_test_with_file(64 << 10, 2, 100, &path);
    // SAFETY: this thread is the buffer's owner.
    unsafe {
        tb.enter(110, 7);
        tb.event(120, &Event::Throttled { region: 7 });
        tb.exit(130, 7);
        tb.enter(100_000, 0x8000_0001);
        tb.open_join(100_050, 9);
    }
    tb.join_done(100_090);
    tb.write_at_end(200_000, 1000, 1000);
    let t = decode(&std::fs::read(&path).unwrap()).unwrap();
    let got: Vec<(u64, Event)> = t.records.into_iter().map(|r| (r.ticks, r.event)).collect();
    assert_eq!(
        got,
        vec![
            (110, Event::Enter { region: 7 }),
            (120, Event::Throttled { region: 7 }),
            (130, Event::Exit { region: 7 }),
            (
                100_000,
                Event::Enter {
                    region: 0x8000_0001
                }
            ),
            (100_050, Event::Enter { region: 9 }),
            (100_090, Event::Exit { region: 9 }),
            (
                200_000,
                Event::ClockRate {
                    span_ticks: 1000,
                    span_ns: 1000
                }
            ),
        ]
    );
}

#[test]
fn the_probes_leave_at_most_a_batch_of_raw_records_unencoded() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("batch.rtrace");
    let tb = TraceBuf::for_test_with_file(256 << 10, 2, 0, &path);
    let pairs = 100_000u64;
    let mut most = 0;
    for i in 0..pairs {
        // SAFETY: this thread is the buffer's owner, and the block is
        // read between its calls only.
        unsafe {
            tb.enter(i * 20, 7);
            tb.exit(i * 20 + 10, 7);
            let encoded = tb.buf as usize + (*tb.block.get()).len();
            most = most.max(tb.end.load(Relaxed) - encoded);
        }
    }
    // Raw records fill a batch, then are encoded: never more behind.
    assert!(
        most <= RAW_BATCH && most + RAW_REGION_RECORD_LEN >= RAW_BATCH,
        "{most} bytes of raw records at most"
    );
    tb.write_at_end(pairs * 20 + 10, 1000, 1000);
    assert_eq!(tb.dropped.load(Relaxed), 0);
    let file = decode(&std::fs::read(&path).unwrap()).unwrap();
    let (mut enters, mut exits, mut last) = (0u64, 0u64, 0u64);
    for r in &file.records {
        match r.event {
            Event::Enter { region: 7 } => enters += 1,
            Event::Exit { region: 7 } => exits += 1,
            _ => continue,
        }
        assert!(r.ticks >= last, "times in order");
        last = r.ticks;
    }
    assert_eq!((enters, exits), (pairs, pairs));
}
