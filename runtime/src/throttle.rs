//! Automatic throttling (`REGIO_THROTTLE=CALLS,NS`, default on): a region
//! whose node on a thread has passed CALLS calls while their mean inclusive
//! time stays under NS stops being recorded in the whole process.
//!
//! The probe pays for it at an exit that closes its own entry's frame (C
//! function guards: `regio_guard_exit`) or leaves no frame of the node
//! open, with one load and compare against [`CALLS`] (u64::MAX when
//! throttling is off) and a test of the call count's low bits ([`due`]);
//! [`decide`] runs only for nodes past the call threshold and at every
//! [`REGION_EVERY`]th call of a node. Throttling sets
//! the region's bit in `select`'s class table, so a throttled region costs
//! its probes one byte load each and nothing else (no clock read, no frame;
//! its calls are no longer counted: the node keeps what it measured up to
//! then, and the profile marks it with that call count).
//!
//! The mean is the node's inclusive time per call, leaving out its longest
//! call; for a recursive region (whose inclusive time covers outermost
//! calls only) its exclusive time per call. The decision is per node and,
//! at every [`REGION_EVERY`]th call of a node, per region and thread (all
//! its nodes on the thread summed, as TAU's throttle counts a function's
//! calls per thread whatever its caller): a tiny function called from many
//! places, each fewer than CALLS times, is throttled once its calls on one
//! thread pass CALLS.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::clock;
use crate::select;

/// Defaults, chosen by measurement (notes/handoff-h-throttle.md,
/// notes/handoff-h-cost16.md): a region whose calls last under 10x a probe
/// pair (~20 ns on an unloaded machine with a usable TSC; 40-180 ns where
/// the hypervisor slows `rdtsc`) is slowed by more than 10 % by its own
/// probes, and its parent's exclusive time by as much. CALLS bounds what
/// such a region costs before it is throttled: CALLS probe pairs per
/// thread. TAU's 100,000 made those timed calls most of what default
/// regions cost on short OpenMP runs (XSBench 200,000 lookups: 1.50x
/// plain instructions, 1.21x at 10,000; md 1.33x and 1.09x), while 10,000
/// calls still give a mean to within a few percent.
pub const DEFAULT_CALLS: u64 = 10_000;
pub const DEFAULT_NS: u64 = 1000;

/// Call count from which a node is considered; u64::MAX: throttling off.
static CALLS: AtomicU64 = AtomicU64::new(u64::MAX);
/// The mean inclusive time per call under which a region is throttled.
static LIMIT_NS: AtomicU64 = AtomicU64::new(0);
/// LIMIT_NS in clock ticks, 0 until known (see [`limit_ticks`]).
static LIMIT_TICKS: AtomicU64 = AtomicU64::new(0);

/// What `REGIO_THROTTLE` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Off,
    On { calls: u64, ns: u64 },
}

impl Setting {
    pub const DEFAULT: Setting = Setting::On {
        calls: DEFAULT_CALLS,
        ns: DEFAULT_NS,
    };
}

/// Parses a `REGIO_THROTTLE` value: `off` (or `0`), `on`, or `CALLS,NS`
/// with two positive integers. Empty means the default.
pub fn parse(text: &str) -> Result<Setting, String> {
    let t = text.trim();
    match t.to_ascii_lowercase().as_str() {
        "" | "on" => return Ok(Setting::DEFAULT),
        "off" | "0" | "no" | "false" => return Ok(Setting::Off),
        _ => {}
    }
    let bad = || {
        format!(
            "REGIO_THROTTLE `{t}` is not CALLS,NS (two positive integers, e.g. {DEFAULT_CALLS},{DEFAULT_NS}) or off"
        )
    };
    let (calls, ns) = t.split_once(',').ok_or_else(bad)?;
    let calls: u64 = calls.trim().parse().map_err(|_| bad())?;
    let ns: u64 = ns.trim().parse().map_err(|_| bad())?;
    if calls == 0 || ns == 0 {
        return Err(bad());
    }
    Ok(Setting::On { calls, ns })
}

/// Start-up: puts a setting in force (before any probe records a frame).
pub fn configure(setting: Setting) {
    match setting {
        Setting::Off => CALLS.store(u64::MAX, Relaxed),
        Setting::On { calls, ns } => {
            LIMIT_NS.store(ns, Relaxed);
            LIMIT_TICKS.store(0, Relaxed);
            CALLS.store(calls, Relaxed);
        }
    }
}

/// A node's exits ask [`decide`] at every call count that is a multiple
/// of this, with the figures of all its region's nodes on the thread (so a
/// region called from several places, each under CALLS, is throttled
/// when its calls on the thread pass CALLS, as TAU decides per function
/// and thread): one cold call per 1024 exits of a node.
pub const REGION_EVERY: u64 = 1024;
/// At most this many nodes of a region are summed (the newest first), so
/// a region with nodes in very many contexts costs its exits at most
/// ~REGION_NODES / REGION_EVERY node reads per call.
pub const REGION_NODES: u32 = 256;

/// Whether an exit that leaves a node with `calls` calls asks [`decide`]:
/// past CALLS (u64::MAX when off), or at a multiple of [`REGION_EVERY`].
#[inline(always)]
pub fn due(calls: u64) -> bool {
    calls >= CALLS.load(Relaxed) || calls.is_multiple_of(REGION_EVERY)
}

/// Whether throttling is on (`REGIO_THROTTLE` not `off`).
#[inline(always)]
pub fn on() -> bool {
    CALLS.load(Relaxed) != u64::MAX
}

/// Whether the decision at a node's `calls` takes the figures of all its
/// region's nodes on the thread (else the node's own).
#[inline(always)]
pub fn region_wide(calls: u64) -> bool {
    calls.is_multiple_of(REGION_EVERY)
}

/// What a decision weighs: closed calls, their time in ticks (inclusive;
/// exclusive for recursive nodes) and the longest of them (0: not known).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    pub calls: u64,
    pub time: u64,
    pub longest: u64,
}

/// Whether calls of `region` with figures `f` (`f.calls` calls of `f.time`
/// ticks in all, the longest `f.longest`, 0: not known) are brief enough
/// to throttle `region`; if so, throttles it and returns true (once per
/// region and process).
/// The mean leaves the longest call out: one preemption of the thread in
/// 10,000 calls would otherwise decide alone (10 ms is 1 µs a call).
/// Called by the probe (cold path): no allocation, lock or system call
/// beyond one vDSO clock read per process (the tick rate, [`limit_ticks`]).
#[cold]
#[inline(never)]
pub fn decide(region: u32, f: Figures) -> bool {
    let Figures {
        calls,
        time,
        longest: max,
    } = f;
    if calls < CALLS.load(Relaxed).max(2) || select::throttled(region) {
        return false;
    }
    let limit = limit_ticks() as u128;
    let counted = if max == 0 { calls } else { calls - 1 };
    if (time.saturating_sub(max) as u128) >= counted as u128 * limit {
        return false;
    }
    select::throttle(region)
}

/// LIMIT_NS in ticks of the probe clock. With the TSC, the rate is taken
/// from start-up to now (kept once the span is 1 ms or more: good to about
/// a percent, which is all a threshold needs).
fn limit_ticks() -> u64 {
    let cached = LIMIT_TICKS.load(Relaxed);
    if cached != 0 {
        return cached;
    }
    let ns = LIMIT_NS.load(Relaxed);
    let Some((span_ticks, span_ns)) = clock::rate_so_far() else {
        // Ticks are nanoseconds.
        LIMIT_TICKS.store(ns, Relaxed);
        return ns;
    };
    let ticks = (ns as u128 * span_ticks as u128 / span_ns.max(1) as u128).max(1) as u64;
    if span_ns >= 1_000_000 {
        LIMIT_TICKS.store(ticks, Relaxed);
    }
    ticks
}

/// The setting in force, for the profile: (calls, ns), or None when off.
pub fn in_force() -> Option<(u64, u64)> {
    match CALLS.load(Relaxed) {
        u64::MAX => None,
        calls => Some((calls, LIMIT_NS.load(Relaxed))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse() {
        assert_eq!(parse(""), Ok(Setting::DEFAULT));
        assert_eq!(parse("on"), Ok(Setting::DEFAULT));
        assert_eq!(parse("OFF"), Ok(Setting::Off));
        assert_eq!(parse("0"), Ok(Setting::Off));
        assert_eq!(
            parse(" 1000 , 250 "),
            Ok(Setting::On {
                calls: 1000,
                ns: 250
            })
        );
        for bad in [
            "1000", "1000,", ",5", "x,5", "5,x", "0,5", "5,0", "-1,5", "1,2,3",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(
                e.contains("REGIO_THROTTLE") && e.contains("CALLS,NS"),
                "{e}"
            );
        }
    }
}
