//! Clock synchronisation of the ranks against rank 0: right after
//! `MPI_Init` and right before `MPI_Finalize`, every rank measures the
//! offset of rank 0's clock from its own by ping-pong through PMPI
//! (`EXCHANGES` round trips on a duplicate of `MPI_COMM_WORLD`, more while
//! none was short, keeping the one with the smallest round trip:
//! Cristian's method). Both
//! measurements go into the profile (`clock_sync`), so a reader corrects
//! a local time `t` to rank 0's clock by linear interpolation:
//! `offset(t) = o1 + (o2 - o1) * (t - t1) / (t2 - t1)` (offset + drift).
//!
//! The clock measured is `local_ns`: CLOCK_MONOTONIC, plus on the rank
//! named by `REGIO_TEST_CLOCK_SKEW` an offset and a drift added on
//! purpose (tests). Anything that timestamps events for correction with
//! these measurements must read the same clock (`local_ns`, or add
//! `skew_ns` to CLOCK_MONOTONIC).

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::*};
use std::time::Duration;

use regio_trace_format::{Event, SyncPhase};

use crate::clock;
use crate::config::{self, ClockSkew};
use crate::mpi::pmpi;
use crate::registry;
use crate::trace;

/// Round trips per rank and measurement, at least.
pub const EXCHANGES: u32 = 16;
/// A kept round trip longer than this (one rank was descheduled on a
/// loaded machine: its error is up to half of it) asks for more
/// exchanges, up to `MAX_EXCHANGES` or `MAX_SPAN_NS` of trying.
const GOOD_RTT_NS: u64 = 50_000;
const MAX_EXCHANGES: u32 = 512;
const MAX_SPAN_NS: u64 = 100_000_000;
/// What a rank sends rank 0 instead of a time when it has measured enough.
const DONE: u64 = u64::MAX;
/// Tag of the synchronisation messages (on a private communicator).
const TAG: i32 = 7411;

/// One measurement of this rank against rank 0.
pub struct Measurement {
    pub done: AtomicBool,
    /// This rank's `local_ns` at the middle of the kept exchange.
    pub local_ns: AtomicU64,
    /// Rank 0's clock minus this rank's clock.
    pub offset_ns: AtomicI64,
    pub round_trip_ns: AtomicU64,
}

impl Measurement {
    const fn new() -> Measurement {
        Measurement {
            done: AtomicBool::new(false),
            local_ns: AtomicU64::new(0),
            offset_ns: AtomicI64::new(0),
            round_trip_ns: AtomicU64::new(0),
        }
    }
}

/// At `MPI_Init` and at `MPI_Finalize`.
pub static AT_INIT: Measurement = Measurement::new();
pub static AT_FINALIZE: Measurement = Measurement::new();

/// The private communicator (0 before `MPI_Init`'s measurement).
static COMM: AtomicU64 = AtomicU64::new(0);

fn skew() -> Option<ClockSkew> {
    let cfg = config::config()?;
    let skew = cfg.test_clock_skew?;
    (config::rank_size(cfg).0 == skew.rank).then_some(skew)
}

/// What the test skew adds to CLOCK_MONOTONIC at `mono_ns` (0 normally).
pub fn skew_ns(mono_ns: u64) -> i64 {
    skew().map_or(0, |s| skew_at(&s, mono_ns, clock::start_monotonic_ns()))
}

fn skew_at(s: &ClockSkew, mono_ns: u64, start_ns: u64) -> i64 {
    let elapsed = mono_ns.saturating_sub(start_ns) as f64;
    s.offset_ns + (elapsed * s.drift_ppm / 1e6) as i64
}

/// The clock synchronisation measures: CLOCK_MONOTONIC plus the test skew.
pub fn local_ns() -> u64 {
    let m = clock::monotonic_ns();
    m.saturating_add_signed(skew_ns(m))
}

/// After `MPI_Init` returned (the rank is known).
pub fn at_init() {
    let Some(c) = pmpi::consts() else { return };
    if COMM.load(Acquire) != 0 {
        return;
    }
    let Some(comm) = pmpi::comm_dup(c.comm_world) else {
        return;
    };
    COMM.store(comm, Release);
    // The trace reads the skewed clock too, so the exporter's correction
    // has something to correct.
    if let Some(s) = skew() {
        trace::skew_clock(s.offset_ns, s.drift_ppm, clock::start_monotonic_ns());
    }
    measure(comm, &AT_INIT);
}

/// Before `MPI_Finalize`.
pub fn at_finalize() {
    let comm = COMM.load(Acquire);
    if comm == 0 || AT_FINALIZE.done.load(Acquire) {
        return;
    }
    measure(comm, &AT_FINALIZE);
}

/// How a rank waiting for its turn polls (see `pmpi::recv_u64_idle`).
const NAP: Duration = Duration::from_micros(20);

/// Rank 0 serves the others one at a time: it sends a rank `GO`, answers
/// its pings until `DONE`, and when all are measured sends each
/// `FINISHED`. A rank waits for its turn and for the end without holding
/// a core, so on a machine with more ranks than cores the pair measuring
/// gets the cores (a waiting rank spinning in a blocking receive would
/// stretch the round trips to scheduler time slices).
const GO: u64 = 1;
const FINISHED: u64 = 2;

fn measure(comm: u64, into: &Measurement) {
    let Some((size, rank)) = pmpi::comm_size_rank(comm) else {
        return;
    };
    if rank == 0 {
        for peer in 1..size {
            if !pmpi::send_u64(GO, peer, TAG, comm) {
                return;
            }
            loop {
                match pmpi::recv_u64(peer, TAG, comm) {
                    None => return,
                    Some(DONE) => break,
                    Some(_) => {
                        if !pmpi::send_u64(local_ns(), peer, TAG, comm) {
                            return;
                        }
                    }
                }
            }
        }
        let at = clock::ticks();
        store(into, local_ns(), 0, 0, at);
        for peer in 1..size {
            if !pmpi::send_u64(FINISHED, peer, TAG, comm) {
                return;
            }
        }
    } else {
        if !measure_against_0(comm, into) {
            return;
        }
        // Wait for the others' turns without holding a core.
        let _ = pmpi::recv_u64_idle(0, TAG, comm, NAP);
    }
    // Leave together (a waking sleeper can take a time slice to run), so
    // no rank's next measured region starts before the others'.
    pmpi::barrier(comm);
}

/// A rank other than 0: its turn, its exchanges, `DONE`. False if MPI
/// failed.
fn measure_against_0(comm: u64, into: &Measurement) -> bool {
    if pmpi::recv_u64_idle(0, TAG, comm, NAP) != Some(GO) {
        return false;
    }
    let mut kept = Exchanges::default();
    let began = local_ns();
    for n in 0..MAX_EXCHANGES {
        if kept.enough(n) || local_ns().saturating_sub(began) > MAX_SPAN_NS {
            break;
        }
        let k1 = clock::ticks();
        let t1 = local_ns();
        if !pmpi::send_u64(t1, 0, TAG, comm) {
            return false;
        }
        let Some(t0) = pmpi::recv_u64(0, TAG, comm) else {
            return false;
        };
        let t2 = local_ns();
        let k2 = clock::ticks();
        kept.add(t1, t0, t2, k1, k2);
    }
    if !pmpi::send_u64(DONE, 0, TAG, comm) {
        return false;
    }
    if let Some(e) = kept.best {
        store(into, e.mid, e.offset, e.rtt, e.at);
    }
    true
}

/// One ping-pong with rank 0: its round trip, rank 0's offset from the
/// local clock at its middle (`mid`), and the tick there (`at`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Exchange {
    rtt: u64,
    offset: i64,
    mid: u64,
    at: u64,
}

/// The exchanges of one measurement, of which the one with the smallest
/// round trip is kept (Cristian: its error is at most half that trip).
#[derive(Debug, Default)]
struct Exchanges {
    best: Option<Exchange>,
}

impl Exchanges {
    /// An exchange sent at local time `t1` (tick `k1`), answered with rank
    /// 0's time `t0`, back at `t2` (tick `k2`).
    fn add(&mut self, t1: u64, t0: u64, t2: u64, k1: u64, k2: u64) {
        let rtt = t2.saturating_sub(t1);
        let mid = t1 + rtt / 2;
        let e = Exchange {
            rtt,
            offset: t0 as i64 - mid as i64,
            mid,
            at: k1 + k2.saturating_sub(k1) / 2,
        };
        if self.best.is_none_or(|b| rtt < b.rtt) {
            self.best = Some(e);
        }
    }

    /// Whether `n` exchanges are enough: at least `EXCHANGES`, and a kept
    /// one short enough (else more, while the caller's limits allow).
    fn enough(&self, n: u32) -> bool {
        n >= EXCHANGES && self.best.is_some_and(|b| b.rtt <= GOOD_RTT_NS)
    }
}

/// Keeps a measurement for the profile and records it in the calling
/// thread's trace at tick `at` (the middle of the kept exchange), with the
/// local clock reading there, so the exporter relates the two clocks.
fn store(into: &Measurement, local: u64, offset: i64, rtt: u64, at: u64) {
    into.local_ns.store(local, Relaxed);
    into.offset_ns.store(offset, Relaxed);
    into.round_trip_ns.store(rtt, Relaxed);
    into.done.store(true, Release);
    let phase = if std::ptr::eq(into, &AT_FINALIZE) {
        SyncPhase::Finalize
    } else {
        SyncPhase::Init
    };
    let t = registry::current();
    if !t.is_null() {
        let e = Event::ClockSync {
            phase,
            offset_ns: offset,
            round_trip_ns: rtt,
            local_ns: Some(local),
        };
        // SAFETY: this thread's own state; not inside another probe.
        unsafe { (*t).record_event(at, &e) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exchange_with_the_smallest_round_trip_is_kept() {
        let mut e = Exchanges::default();
        // Rank 0 runs 1 ms ahead; the trips take 300, 100 and 200 us, the
        // answer read halfway (the slow ones late in their trip).
        e.add(10_000, 1_250_000, 310_000, 100, 400);
        e.add(400_000, 1_450_000, 500_000, 700, 900);
        e.add(600_000, 1_750_000, 800_000, 1_000, 1_200);
        assert_eq!(
            e.best,
            Some(Exchange {
                rtt: 100_000,
                offset: 1_000_000,
                mid: 450_000,
                at: 800,
            })
        );
        // A trip as short, later, does not replace it.
        e.add(900_000, 1_950_000, 1_000_000, 1_300, 1_500);
        assert_eq!(e.best.map(|b| b.mid), Some(450_000));
    }

    #[test]
    fn more_exchanges_while_none_was_short() {
        let mut e = Exchanges::default();
        assert!(!e.enough(EXCHANGES));
        e.add(0, 0, GOOD_RTT_NS + 1, 0, 0);
        assert!(!e.enough(EXCHANGES), "the kept trip is too long");
        e.add(0, 0, GOOD_RTT_NS, 0, 0);
        assert!(!e.enough(EXCHANGES - 1), "fewer than EXCHANGES");
        assert!(e.enough(EXCHANGES));
    }

    #[test]
    fn skew_is_offset_plus_drift_since_start() {
        let s = ClockSkew {
            rank: 1,
            offset_ns: 5_000,
            drift_ppm: 100.0,
        };
        assert_eq!(skew_at(&s, 1_000, 1_000), 5_000);
        // One second later, 100 ppm is 100 us.
        assert_eq!(skew_at(&s, 1_000_001_000, 1_000), 105_000);
    }
}
