//! The probe clock: raw ticks on the hot path, nanoseconds only when writing.
//!
//! On x86_64 with an invariant TSC (CPUID 0x8000_0007 EDX bit 8) a tick is
//! one `rdtsc`: no fence, because the probe wants the cost of one clock read,
//! not an ordering guarantee. Ticks are converted with the ratio of the TSC
//! span to the CLOCK_MONOTONIC span between start-up and the moment of
//! writing, so the calibration gets better the longer a run lasts and costs
//! nothing while the program runs. Everywhere else a tick is one nanosecond
//! of CLOCK_MONOTONIC.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

static USE_TSC: AtomicBool = AtomicBool::new(false);
static START_TICKS: AtomicU64 = AtomicU64::new(0);
static START_MONO_NS: AtomicU64 = AtomicU64::new(0);

/// Current time in ticks of the selected source.
#[inline(always)]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if USE_TSC.load(Relaxed) {
            return rdtsc();
        }
    }
    ticks_fallback()
}

/// Whether ticks are TSC reads (a plain instruction; see `Ticks::inline`).
#[inline(always)]
pub fn tsc_in_use() -> bool {
    cfg!(target_arch = "x86_64") && USE_TSC.load(Relaxed)
}

/// Kept out of line so the TSC path of every probe stays small (no stack
/// frame for the timespec); where the fallback is in use, one call more
/// next to clock_gettime's own cost does not matter.
#[cold]
#[inline(never)]
fn ticks_fallback() -> u64 {
    monotonic_ns()
}

/// One plain `rdtsc` (public for the benchmark's floor measurement).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn rdtsc() -> u64 {
    // SAFETY: rdtsc exists on every x86_64 CPU; it has no memory effects.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
}

/// CLOCK_MONOTONIC in ns (async-signal-safe).
#[inline]
pub fn monotonic_ns() -> u64 {
    read_clock(libc::CLOCK_MONOTONIC)
}

/// CLOCK_REALTIME in ns since the Unix epoch.
pub fn realtime_ns() -> u64 {
    read_clock(libc::CLOCK_REALTIME)
}

#[inline]
fn read_clock(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid out-pointer; these clocks always exist on Linux.
    unsafe { libc::clock_gettime(id, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Whether the CPU promises a TSC that ticks at a constant rate in every
/// power state (what makes it usable as a wall clock).
#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    use core::arch::x86_64::__cpuid;
    // SAFETY: cpuid exists on every x86_64 CPU; leaves above the reported
    // maximum are not queried.
    #[allow(unused_unsafe)]
    unsafe {
        let has_tsc = __cpuid(1).edx & (1 << 4) != 0;
        let max_ext = __cpuid(0x8000_0000).eax;
        has_tsc && max_ext >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn invariant_tsc() -> bool {
    false
}

/// Picks the source and takes the first calibration point. Called once,
/// before any probe records a frame.
pub fn init() {
    USE_TSC.store(invariant_tsc(), Relaxed);
    let (t, m) = pair();
    START_TICKS.store(t, Relaxed);
    START_MONO_NS.store(m, Relaxed);
}

/// A tick reading and a CLOCK_MONOTONIC reading taken together.
///
/// The tick is bracketed by two monotonic reads and the midpoint is used,
/// so a pair is off by at most half its bracket. The tightest of a few
/// attempts is kept (a few hundred ns in all): the first read after
/// start-up can be slow, and a thread preempted between its reads would
/// skew the rate of the whole run (seen as times 50% too long on a loaded
/// machine). More attempts follow only while every bracket is wide.
fn pair() -> (u64, u64) {
    const MIN_TRIES: u32 = 4;
    const MAX_TRIES: u32 = 32;
    const GOOD_ENOUGH_NS: u64 = 500;
    let mut best = (0u64, 0u64, u64::MAX);
    for i in 0..MAX_TRIES {
        let m1 = monotonic_ns();
        let t = ticks();
        let m2 = monotonic_ns();
        let gap = m2.saturating_sub(m1);
        if gap < best.2 {
            best = (t, m1 + gap / 2, gap);
        }
        if i + 1 >= MIN_TRIES && best.2 <= GOOD_ENOUGH_NS {
            break;
        }
    }
    (best.0, best.1)
}

/// `tsc` or `clock_gettime`, as the profile's `clock.source`.
pub fn source_name() -> &'static str {
    if USE_TSC.load(Relaxed) {
        "tsc"
    } else {
        "clock_gettime"
    }
}

/// CLOCK_MONOTONIC at start-up.
pub fn start_monotonic_ns() -> u64 {
    START_MONO_NS.load(Relaxed)
}

/// (ticks, ns) elapsed since start-up, for a rate estimate while the
/// program runs (`throttle`); None when ticks are nanoseconds. One vDSO
/// clock read, no calibration spin.
pub fn rate_so_far() -> Option<(u64, u64)> {
    if !USE_TSC.load(Relaxed) {
        return None;
    }
    let t = ticks().saturating_sub(START_TICKS.load(Relaxed));
    let m = monotonic_ns().saturating_sub(START_MONO_NS.load(Relaxed));
    Some((t, m))
}

/// Ticks-to-nanoseconds ratio valid for one write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    span_ticks: u64,
    span_ns: u64,
}

impl Calibration {
    /// The identity (ticks are nanoseconds).
    pub const NS: Calibration = Calibration {
        span_ticks: 1,
        span_ns: 1,
    };

    /// A ratio measured over `span_ticks` ticks and `span_ns` nanoseconds.
    pub fn new(span_ticks: u64, span_ns: u64) -> Calibration {
        if span_ticks == 0 || span_ns == 0 {
            return Calibration::NS;
        }
        Calibration {
            span_ticks,
            span_ns,
        }
    }

    /// Converts a tick count; exact integer arithmetic so equal tick sums
    /// give equal nanosecond sums up to one rounding per value.
    pub fn to_ns(self, ticks: u64) -> u64 {
        let ns = ticks as u128 * self.span_ns as u128 / self.span_ticks as u128;
        ns.min(u64::MAX as u128) as u64
    }

    /// (ticks, ns) the ratio was measured over.
    pub fn span(self) -> (u64, u64) {
        (self.span_ticks, self.span_ns)
    }

    pub fn ticks_per_second(self) -> f64 {
        self.span_ticks as f64 * 1e9 / self.span_ns as f64
    }
}

/// The moment a profile is written, in both clocks, and the ratio between
/// them since start-up.
#[derive(Clone, Copy, Debug)]
pub struct WriteTime {
    pub cal: Calibration,
    /// Ticks at the write: open frames are accounted up to here.
    pub ticks: u64,
    /// CLOCK_MONOTONIC at the same moment; `duration_ns` ends here. The
    /// ratio comes from this very pair, so no converted interval up to
    /// `ticks` can exceed the duration.
    pub mono_ns: u64,
}

/// Takes the end of the run and the tick rate since start-up from one
/// pair of readings: no wait, whatever the length of the run.
/// Async-signal-safe (no allocation, no lock).
pub fn calibrate() -> WriteTime {
    if !USE_TSC.load(Relaxed) {
        let m = monotonic_ns();
        return WriteTime {
            cal: Calibration::NS,
            ticks: m,
            mono_ns: m,
        };
    }
    let t0 = START_TICKS.load(Relaxed);
    let m0 = START_MONO_NS.load(Relaxed);
    let (t, m) = pair();
    WriteTime {
        cal: Calibration::new(t.saturating_sub(t0), m.saturating_sub(m0)),
        ticks: t,
        mono_ns: m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion_is_exact_integer_scaling() {
        let c = Calibration::new(3_000, 1_000);
        assert_eq!(c.to_ns(3), 1);
        assert_eq!(c.to_ns(3_000_000_000), 1_000_000_000);
        assert_eq!(c.ticks_per_second(), 3e9);
        assert_eq!(Calibration::new(0, 5), Calibration::NS);
        assert_eq!(Calibration::NS.to_ns(u64::MAX), u64::MAX);
    }

    // init() sets process-global start points: the only test calling it.
    #[test]
    fn calibration_matches_monotonic_and_the_duration() {
        init();
        let m0 = monotonic_ns();
        let t0 = ticks();
        // A few ms of work between the readings, as a short program has.
        while monotonic_ns() - m0 < 5_000_000 {
            std::hint::spin_loop();
        }
        let at = calibrate();
        let t1 = ticks();
        let m1 = monotonic_ns();
        assert!(t1 > t0);
        let measured = at.cal.to_ns(t1 - t0) as f64;
        let real = (m1 - m0) as f64;
        assert!((measured / real - 1.0).abs() < 0.02, "{measured} vs {real}");
        // The ratio comes from the write's own pair: the whole run, start
        // to write, converts to exactly its duration (one rounding).
        if source_name() == "tsc" {
            let run_ticks = at.ticks - START_TICKS.load(Relaxed);
            let duration = at.mono_ns - start_monotonic_ns();
            assert!(at.cal.to_ns(run_ticks).abs_diff(duration) <= 1);
        }
    }
}
