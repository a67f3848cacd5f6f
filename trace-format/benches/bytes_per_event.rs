//! Bytes per enter/exit record on realistic streams, and the encoder's cost
//! per record. Not criterion: the figure that matters is the size, which
//! is deterministic for a given stream; the time is printed for context.
//!
//! `cargo bench -p regio-trace-format --bench bytes_per_event`
//!
//! Two streams:
//! * `live`: a small program (a time-step loop calling kernels of varying
//!   size, a recursive Fibonacci of tiny calls, a reduction) records its own
//!   enter/exit events with real clock readings (the TSC on x86-64, else
//!   `Instant`), as the runtime would, through the encoder, into 8 MiB
//!   blocks written to a `Vec` (standing in for the file).
//! * `model`: a call tree of 200 regions (ids up to 2000 like a large IDF,
//!   plus Rust descriptor ids) with durations drawn from a log-uniform
//!   distribution between 20 ns and 2 ms at 2.5 GHz.
//!
//! Region ids of instrumented C and Fortran carry their object's base (a
//! multiple of 2^22, `OBJECT_ID_STRIDE`; the first object registered gets
//! 2^22), so both streams add [`BASE`] to their IDF ids, as the runtime's
//! records do.

use std::hint::black_box;
use std::time::Instant;

use regio_trace_format::{decode, write_file_header, Block, Event, FileMeta, Full};

const BUFFER: usize = 8 << 20;
/// The id base of the first instrumented object a process registers.
const BASE: u32 = 1 << 22;

struct Recorder {
    buf: Vec<u8>,
    block: Block,
    out: Vec<u8>,
    events: u64,
}

impl Recorder {
    fn new(ticks_per_second: f64, start: u64) -> Recorder {
        let meta = FileMeta {
            rank: 0,
            size: 1,
            pid: std::process::id(),
            thread: 0,
            os_tid: 0,
            ticks_per_second,
            start_ticks: start,
            start_unix_ns: 0,
            clock_source: "bench",
            host: "bench",
        };
        let mut head = vec![0u8; 4096];
        let n = write_file_header(&mut head, &meta).expect("header fits 4 KiB");
        head.truncate(n);
        Recorder {
            buf: vec![0u8; BUFFER],
            block: Block::new(0, start),
            out: head,
            events: 0,
        }
    }

    #[inline]
    fn event(&mut self, enter: bool, ticks: u64, region: u32) {
        let r = if enter {
            self.block.enter(&mut self.buf, ticks, region)
        } else {
            self.block.exit(&mut self.buf, ticks, region)
        };
        if r == Err(Full) {
            self.flush(ticks);
            let again = if enter {
                self.block.enter(&mut self.buf, ticks, region)
            } else {
                self.block.exit(&mut self.buf, ticks, region)
            };
            again.expect("an empty block takes a record");
        }
        self.events += 1;
    }

    fn flush(&mut self, ticks: u64) {
        let bytes = self
            .block
            .finish(&mut self.buf)
            .expect("buffer holds a header");
        self.out.extend_from_slice(bytes);
        self.block.reset(ticks);
    }
}

#[cfg(target_arch = "x86_64")]
fn ticks() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86-64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
fn ticks() -> u64 {
    use std::sync::OnceLock;
    static T0: OnceLock<Instant> = OnceLock::new();
    T0.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

fn ticks_per_second() -> f64 {
    let (t0, i0) = (ticks(), Instant::now());
    std::thread::sleep(std::time::Duration::from_millis(50));
    (ticks() - t0) as f64 / i0.elapsed().as_secs_f64()
}

fn fib(r: &mut Recorder, n: u32) -> u64 {
    r.event(true, ticks(), BASE + 40);
    let v = if n < 2 {
        u64::from(n)
    } else {
        fib(r, n - 1) + fib(r, n - 2)
    };
    r.event(false, ticks(), BASE + 40);
    v
}

fn kernel(r: &mut Recorder, id: u32, x: &mut [f64], work: usize) -> f64 {
    r.event(true, ticks(), id);
    let mut s = 0.0;
    for v in x.iter_mut().take(work) {
        *v = *v * 1.000001 + 0.5;
        s += *v;
    }
    r.event(false, ticks(), id);
    s
}

fn live() -> Recorder {
    let tps = ticks_per_second();
    let mut r = Recorder::new(tps, ticks());
    let mut x = vec![1.0f64; 1 << 16];
    r.event(true, ticks(), BASE + 1);
    let mut acc = 0.0;
    for step in 0..2_000u32 {
        r.event(true, ticks(), BASE + 2);
        for j in 0..8u32 {
            let work = 64 << ((step + j) % 10);
            acc += kernel(&mut r, BASE + 3 + j % 5, &mut x, work);
        }
        acc += fib(&mut r, 12) as f64;
        r.event(true, ticks(), BASE + 9);
        acc += black_box(x.iter().sum::<f64>());
        r.event(false, ticks(), BASE + 9);
        r.event(false, ticks(), BASE + 2);
    }
    r.event(false, ticks(), BASE + 1);
    black_box(acc);
    let t = ticks();
    r.flush(t);
    r
}

/// xorshift64*: deterministic draws for the model stream.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn model() -> Recorder {
    let tps = 2.5e9;
    let mut r = Recorder::new(tps, 0);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let regions: Vec<u32> = (0..200)
        .map(|i| {
            if i % 10 == 9 {
                0x8000_0000 + i
            } else {
                BASE + 10 * i + 3
            }
        })
        .collect();
    let mut now = 0u64;
    let mut stack: Vec<u32> = Vec::new();
    while r.events < 2_000_000 {
        // Enter while shallow, leave while deep; gaps log-uniform in
        // [20 ns, 2 ms].
        let gap_ns = 20.0 * (1e5f64).powf(rng.unit()).min(1e5);
        now += (gap_ns * tps / 1e9) as u64;
        let go_deeper = stack.len() < 2 || (stack.len() < 12 && rng.unit() < 0.5);
        if go_deeper {
            let region = regions[(rng.next() % regions.len() as u64) as usize];
            stack.push(region);
            r.event(true, now, region);
        } else if let Some(region) = stack.pop() {
            r.event(false, now, region);
        }
    }
    while let Some(region) = stack.pop() {
        now += 100;
        r.event(false, now, region);
    }
    r.flush(now);
    r
}

fn report(name: &str, r: &Recorder, time_label: &str, encode_ns: f64) {
    let trace = match decode(&r.out) {
        Ok(t) => t,
        Err(e) => panic!("{name}: the stream does not decode: {e}"),
    };
    let region_events = trace
        .records
        .iter()
        .filter(|x| matches!(x.event, Event::Enter { .. } | Event::Exit { .. }))
        .count() as u64;
    assert_eq!(region_events, r.events, "{name}: every event decodes");
    let overhead = trace.blocks as usize * regio_trace_format::BLOCK_HEADER_LEN;
    let payload = r.out.len() - overhead;
    println!(
        "{name:>5}: {} enter/exit events, {} bytes in {} block(s): {:.2} bytes/event ({:.2} with file and block headers), {}: {:.1} ns/event",
        r.events,
        payload,
        trace.blocks,
        payload as f64 / r.events as f64,
        r.out.len() as f64 / r.events as f64,
        time_label,
        encode_ns
    );
}

fn main() {
    let t = Instant::now();
    let l = live();
    let live_ns = t.elapsed().as_nanos() as f64 / l.events as f64;
    report("live", &l, "program and recording", live_ns);
    let m = model();
    // The encoder alone (no workload, no clock reads): alternating enter
    // and exit calls from separate call sites, as the runtime's probes
    // are, with gaps of 300 to 1323 ticks, into a buffer faulted in
    // before timing. Best of 5.
    let mut buf = vec![1u8; BUFFER];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let n = 10_000_000u64;
        let t = Instant::now();
        let mut block = Block::new(0, 0);
        let mut ticks = 0u64;
        let mut i = 0u64;
        while i < n {
            ticks += 300 + (i & 1023);
            let region = BASE + (i & 63) as u32;
            if block.enter(&mut buf, ticks, region).is_err() {
                black_box(block.len());
                block.reset(ticks);
            }
            ticks += 300 + ((i >> 3) & 1023);
            if block.exit(&mut buf, ticks, region).is_err() {
                black_box(block.len());
                block.reset(ticks);
            }
            i += 2;
        }
        black_box(block.len());
        best = best.min(t.elapsed().as_nanos() as f64 / n as f64);
    }
    let enc_ns = best;
    report(
        "model",
        &m,
        "encoder alone, synthetic stream (best of 5)",
        enc_ns,
    );
}
