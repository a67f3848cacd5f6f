//! What is recorded at run time (`REGIO_EVENTS`, `REGIO_FILTER`,
//! `regio_set_events`), for the profile and the trace alike.
//!
//! Each region id has a byte in `CLASS`: its class (from its kind in the
//! IDF, which this module reads when an IDF is registered) and whether the
//! filter file leaves it out. The probe asks [`recorded`]: one relaxed load
//! of `ACTIVE` while nothing is selected (the default), two more loads
//! otherwise. Regions without an IDF entry (Rust descriptor regions, ids
//! beyond the table) are always recorded.
//!
//! A mask change while a region is open applies to its exit too: an exit
//! no longer recorded leaves the frame to its parent's exit, which closes
//! it; an exit of a region entered while masked finds no frame and is
//! ignored, as any unmatched exit.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::*};
use std::sync::{Mutex, OnceLock};

use regio_idf::filter::Filter;
use regio_idf::kind::RegionKind;
use regio_idf::rundir::OBJECT_ID_STRIDE;

use crate::idf;
use crate::out::warn;

/// Event classes, the bits of the mask (`REGIO_EVENTS` words).
pub const FUNCTIONS: u64 = 1 << 0;
pub const LOOPS: u64 = 1 << 1;
pub const CALLS: u64 = 1 << 2;
pub const IO: u64 = 1 << 3;
pub const OMP: u64 = 1 << 4;
pub const MPI: u64 = 1 << 5;
/// User regions and user events (`regio_event`).
pub const USER: u64 = 1 << 6;
/// MPI point-to-point messages and collectives in the trace.
pub const MESSAGES: u64 = 1 << 7;
pub const ALL: u64 = (1 << 8) - 1;

/// Region ids with a class byte; larger ids are always recorded.
const MAX_IDS: usize = 1 << 20;
/// Class byte: bit index + 1 of the region's class in the low bits (0:
/// unknown), [`FILTERED`] when the filter file leaves the region out.
static CLASS: [AtomicU8; MAX_IDS] = [const { AtomicU8::new(0) }; MAX_IDS];
const FILTERED: u8 = 0x80;
/// Objects' ids are `base + local id` with bases `OBJECT_ID_STRIDE` apart:
/// per base slot, where its ids start in `CLASS` (`NO_SLOT`: not loaded).
const SLOTS: usize = (1u64 << 31) as usize / OBJECT_ID_STRIDE as usize;
const NO_SLOT: u32 = u32::MAX;
static SLOT_START: [AtomicU32; SLOTS] = [const { AtomicU32::new(NO_SLOT) }; SLOTS];
/// Next free index of `CLASS` (under `LOADED`).
static NEXT_CLASS: AtomicU32 = AtomicU32::new(0);

static MASK: AtomicU64 = AtomicU64::new(ALL);
/// A mask other than ALL or a filter is in force: probes must look.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static FILTER: OnceLock<Filter> = OnceLock::new();
/// IDFs (by `idf` slot) whose regions are in `CLASS`; the lock serialises
/// loading (registration and `set_events` are not on the probe path).
static LOADED: Mutex<usize> = Mutex::new(0);

/// Whether region `region` is recorded now.
#[inline(always)]
pub fn recorded(region: u32) -> bool {
    !ACTIVE.load(Relaxed) || recorded_slow(region)
}

#[inline(never)]
fn recorded_slow(region: u32) -> bool {
    let Some(start) = SLOT_START.get((region / OBJECT_ID_STRIDE) as usize) else {
        return true;
    };
    let start = start.load(Relaxed);
    if start == NO_SLOT {
        return true;
    }
    let index = start as usize + (region % OBJECT_ID_STRIDE) as usize;
    let Some(c) = CLASS.get(index) else {
        return true;
    };
    let c = c.load(Relaxed);
    if c & FILTERED != 0 {
        return false;
    }
    match c & !FILTERED {
        0 => true,
        bit => MASK.load(Relaxed) & 1 << (bit - 1) != 0,
    }
}

/// Whether events of `class` (e.g. [`USER`], [`MESSAGES`]) are recorded.
#[inline]
pub fn class_on(class: u64) -> bool {
    MASK.load(Relaxed) & class != 0
}

/// Parses a `REGIO_EVENTS` list: the `--regions` words (functions, loops,
/// calls, io, omp, mpi, user, all, none) plus `messages`, in order.
pub fn parse_events(list: &str) -> Result<u64, String> {
    let mut mask = 0;
    for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word.to_ascii_lowercase().as_str() {
            "functions" | "function" => mask |= FUNCTIONS,
            "loops" | "loop" => mask |= LOOPS,
            "calls" | "call" => mask |= CALLS,
            "io" => mask |= IO,
            "omp" | "openmp" => mask |= OMP,
            "mpi" => mask |= MPI,
            "user" => mask |= USER,
            "messages" | "message" => mask |= MESSAGES,
            "all" => mask = ALL,
            "none" => mask = 0,
            _ => {
                return Err(format!(
                    "unknown event class `{word}` (expected functions, loops, calls, io, omp, mpi, user, messages, all or none)"
                ))
            }
        }
    }
    Ok(mask)
}

/// Start-up: `REGIO_EVENTS` and `REGIO_FILTER` (path and text) as the
/// configuration read them; problems are warnings (everything is recorded).
pub fn configure(events: Option<&str>, filter: Option<(&str, &str)>) {
    if let Some(list) = events {
        match parse_events(list) {
            Ok(m) => set_mask_bits(m),
            Err(e) => warn(&[b"REGIO_EVENTS: ", e.as_bytes()], None),
        }
    }
    if let Some((path, text)) = filter {
        match Filter::parse(path, text) {
            Ok(f) => {
                let _ = FILTER.set(f);
                ACTIVE.store(true, Release);
            }
            Err(e) => warn(
                &[e.to_string().as_bytes(), b" (REGIO_FILTER ignored)"],
                None,
            ),
        }
    }
    if ACTIVE.load(Acquire) {
        load_kinds();
    }
}

/// `regio_set_events(list)`: the new mask, or why the list is wrong.
pub fn set_events(list: &str) -> Result<u64, String> {
    let m = parse_events(list)?;
    load_kinds();
    set_mask_bits(m);
    Ok(m)
}

fn set_mask_bits(m: u64) {
    MASK.store(m, Relaxed);
    if m != ALL {
        ACTIVE.store(true, Release);
    }
}

/// After an IDF was registered: its kinds are needed if a selection is (or
/// may become, through `set_events`) in force.
pub fn idf_registered() {
    if ACTIVE.load(Acquire) {
        load_kinds();
    }
}

/// Reads every registered IDF not read yet into `CLASS`.
fn load_kinds() {
    let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    while *loaded < idf::count() {
        let path = String::from_utf8_lossy(idf::get(*loaded)).into_owned();
        let slot = (idf::base(*loaded) / OBJECT_ID_STRIDE) as usize;
        *loaded += 1;
        match regio_idf::idf::Idf::read(std::path::Path::new(&path)) {
            Ok(idf) => {
                // The IDF's ids get the next `max id + 1` bytes of CLASS.
                let len = idf.regions.iter().map(|r| r.id).max().map_or(0, |m| m + 1);
                let start = NEXT_CLASS.load(Relaxed);
                NEXT_CLASS.store(start.saturating_add(len), Relaxed);
                if let Some(s) = SLOT_START.get(slot) {
                    s.store(start, Relaxed);
                }
                for r in &idf.regions {
                    let Some(slot) = CLASS.get(start as usize + r.id as usize) else {
                        continue;
                    };
                    let mut c = class_bit(&r.kind);
                    if FILTER
                        .get()
                        .is_some_and(|f| !f.allows_region(&r.name) || !f.allows_file(&r.file))
                    {
                        c |= FILTERED;
                    }
                    slot.store(c, Relaxed);
                }
            }
            Err(e) => warn(
                &[
                    b"cannot read region kinds for REGIO_EVENTS/REGIO_FILTER: ",
                    e.to_string().as_bytes(),
                ],
                None,
            ),
        }
    }
}

/// Bit index + 1 of a kind's class.
fn class_bit(kind: &RegionKind) -> u8 {
    let class = match kind {
        RegionKind::Program | RegionKind::Function => FUNCTIONS,
        RegionKind::Loop => LOOPS,
        RegionKind::Call => CALLS,
        RegionKind::Io => IO,
        RegionKind::User => USER,
        RegionKind::Omp(_) | RegionKind::OmpDirective(_) => OMP,
        RegionKind::Mpi(_) => MPI,
    };
    class.trailing_zeros() as u8 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_lists_parse_like_regions_plus_messages() {
        assert_eq!(parse_events("functions,user"), Ok(FUNCTIONS | USER));
        assert_eq!(parse_events("all,none,messages"), Ok(MESSAGES));
        assert_eq!(parse_events(""), Ok(0));
        assert_eq!(parse_events("all"), Ok(ALL));
        assert!(parse_events("functions,bogus").is_err());
    }

    #[test]
    fn classes_map_kinds() {
        assert_eq!(class_bit(&RegionKind::Function), 1);
        assert_eq!(class_bit(&RegionKind::Mpi("send".into())), 6);
        assert_eq!(class_bit(&RegionKind::User), 7);
    }
}
