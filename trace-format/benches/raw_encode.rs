//! What the runtime's buffer encoding costs: raw enter/exit records (the
//! probes' 16-byte form) encoded in place into compact records
//! (`Block::encode_raw`, the work a full buffer and an end-of-run write
//! now do), against the probes' former direct encoding (the short form
//! when it applies, else the long) of the same stream. Time per record and
//! per MB of encoded output; best of a few repetitions (load-dependent,
//! for orientation).
//!
//! `cargo bench -p regio-trace-format --bench raw_encode`
//!
//! The stream: a buffer of 8 MiB of raw records (524 287 records), calls a
//! few hundred to a few thousand ticks apart on neighbouring regions of an
//! object, 1 % of them after a long gap or on a far region (long records).

use std::hint::black_box;
use std::time::Instant;

use regio_trace_format::schema::code;
use regio_trace_format::{raw_region_record, Block, RAW_REGION_RECORD_LEN};

const BUFFER: usize = 8 << 20;
const BASE: u32 = 1 << 22;

fn stream() -> Vec<(u8, u64, u32)> {
    let n = (BUFFER - 64) / RAW_REGION_RECORD_LEN;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut t = 1u64 << 40;
    (0..n)
        .map(|i| {
            let r = rnd();
            let long = r % 100 == 0;
            t += if long { 1 << 20 } else { 200 + r % 3000 };
            let region = if long && r % 200 == 0 {
                0x8000_0003
            } else {
                BASE + (r >> 20) as u32 % 40
            };
            let c = if i % 2 == 0 { code::ENTER } else { code::EXIT };
            (c, t, region)
        })
        .collect()
}

fn main() {
    let events = stream();
    let mut raw = vec![0u8; BUFFER];
    let mut direct = vec![0u8; BUFFER];
    let start = Block::new(0, 0).len();
    let (mut best_raw, mut best_direct) = (f64::MAX, f64::MAX);
    let (mut out_raw, mut out_direct) = (0, 0);
    for _ in 0..7 {
        // Raw records as the probes append them (not timed: the probes'
        // share), then the encoding in place (timed).
        let mut at = start;
        for &(c, t, r) in &events {
            raw[at..at + RAW_REGION_RECORD_LEN].copy_from_slice(&raw_region_record(c, t, r));
            at += RAW_REGION_RECORD_LEN;
        }
        let mut block = Block::new(0, events[0].1);
        let t0 = Instant::now();
        block
            .encode_raw(black_box(&mut raw), start, at)
            .expect("whole raw records");
        best_raw = best_raw.min(t0.elapsed().as_secs_f64());
        out_raw = block.len();

        let mut block = Block::new(0, events[0].1);
        let t0 = Instant::now();
        for &(c, t, r) in black_box(&events) {
            let p = block.prepare_enter(&direct, r).expect("room");
            let done = if c == code::ENTER {
                block.enter_prepared_short(&mut direct, p, t)
            } else {
                block.exit_prepared_short(&mut direct, p, t)
            };
            if !done {
                if c == code::ENTER {
                    block.enter_prepared(&mut direct, p, t);
                } else {
                    block.exit_prepared(&mut direct, p, t);
                }
            }
        }
        best_direct = best_direct.min(t0.elapsed().as_secs_f64());
        out_direct = block.len();
    }
    assert_eq!(raw[..out_raw], direct[..out_direct], "same bytes");
    let n = events.len() as f64;
    let mb = (out_raw - start) as f64 / 1e6;
    println!(
        "{} records, {:.2} MB encoded ({:.2} bytes/record)",
        events.len(),
        mb,
        (out_raw - start) as f64 / n
    );
    println!(
        "encode_raw (in place):  {:6.2} ns/record  {:6.2} ms/MB",
        best_raw * 1e9 / n,
        best_raw * 1e3 / mb
    );
    println!(
        "direct (probes before): {:6.2} ns/record  {:6.2} ms/MB",
        best_direct * 1e9 / n,
        best_direct * 1e3 / mb
    );
}
