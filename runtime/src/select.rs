//! What is recorded at run time (`REGIO_EVENTS`, `REGIO_FILTER`,
//! `regio_set_events`, `REGIO_THROTTLE`), for the profile and the trace
//! alike.
//!
//! Each region id has two bytes: its class in `CLASS` (from its kind in the
//! IDF, which this module reads when a selection needs it), and its gate in
//! `GATE`: the reasons it is not recorded now (left out by the filter file,
//! by the event mask, or throttled by `throttle`), 0 when it is. The probe
//! asks [`recorded`]: one relaxed load of the region's gate, whatever is
//! selected, so a throttled region costs every other region nothing.
//! Ids are `base + local id` (bases `OBJECT_ID_STRIDE` apart: one per
//! registered object, 0 for IDFs registered without one, and the Rust
//! descriptor ids from bit 31): each base has `GATED_LOCAL_IDS` bytes, so
//! the index is computed from the id alone ([`slot`]), with no table of
//! bases to load. Local ids beyond that and unknown bases are always
//! recorded.
//!
//! Instrumented C reads its object's gates itself ([`gates`],
//! `regio_gates`): a gated entry probe makes no call at all. The bits say
//! which probes C may skip: [`NO_EXIT`] (filtered; `REGIO_DISABLE` uses a
//! block of its own) is set before any frame of the region can exist (at
//! start-up or at the object's registration) and never cleared, so an exit
//! skipped for it has no frame to close; masked and throttled regions may
//! change while a frame is open, so C skips only their entries and still
//! calls the exit (or carries the entry's decision in its guard variable).
//!
//! A region that stops being recorded while a frame of it is open still
//! closes that frame at its own exit when the frame is the innermost one
//! (`thread::ThreadState::exit`); an exit of a region entered while not
//! recorded finds no frame and is ignored, as any unmatched exit.

use std::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::*};
use std::sync::{Mutex, OnceLock};

use regio_idf::filter::Filter;
use regio_idf::kind::RegionKind;

use regio_idf::rundir::{GATED_LOCAL_IDS, OBJECT_ID_STRIDE};

use crate::idf;
use crate::out::warn;
use crate::region::FIRST_DESCRIPTOR_ID;

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

/// Local ids below this (per base) have a class byte and a gate; larger
/// ones are always recorded (C probes them without a gate).
const PER_OBJECT: u32 = GATED_LOCAL_IDS;
/// Bases with class bytes: base 0 and the `idf::MAX_IDFS` object bases
/// after it; the descriptor ids take the block after those.
const OBJECTS: u32 = idf::MAX_IDFS as u32 + 1;
const DESCRIPTOR_BASE: u32 = FIRST_DESCRIPTOR_ID / OBJECT_ID_STRIDE;
const CLASS_LEN: usize = ((OBJECTS + 1) * PER_OBJECT) as usize;
/// Class byte: bit index + 1 of the region's class in [`CLASS_BITS`] (0:
/// unknown). Slot of an id: [`slot`]. (Zeroed static memory: pages never
/// touched cost nothing.)
static CLASS: [AtomicU8; CLASS_LEN] = [const { AtomicU8::new(0) }; CLASS_LEN];
const CLASS_BITS: u8 = 0x0f;
/// Gate byte: the reasons not to record the region now, 0 if none. Its
/// layout is ABI: instrumented C reads it (`regio.h`, `regio_gates`).
static GATE: [AtomicU8; CLASS_LEN] = [const { AtomicU8::new(0) }; CLASS_LEN];
/// The filter file leaves the region out: set before any frame of it can
/// be open and never cleared, so its exits may be skipped too
/// (`REGIO_GATE_NO_EXIT` in `regio.h`).
pub const NO_EXIT: u8 = 0x01;
const FILTERED: u8 = NO_EXIT;
/// The event mask leaves the region's class out.
const MASKED: u8 = 0x02;
/// Throttled (`REGIO_THROTTLE`): entered often and briefly.
const THROTTLED: u8 = 0x04;
/// The gates of every object under `REGIO_DISABLE`: nothing is entered or
/// left.
static DISABLED: [u8; PER_OBJECT as usize] = [NO_EXIT; PER_OBJECT as usize];
/// The gates of a base without gates, and of every unit before its
/// constructor has registered it (`regio_no_gates`): all open, so its
/// probes call the runtime for every id. Never null, so the probes in
/// instrumented C need no null test (one compare and branch less on every
/// probe of a hot, throttled function).
#[no_mangle]
#[used]
#[allow(non_upper_case_globals)] // its C name
pub static regio_no_gates: [u8; PER_OBJECT as usize] = [0; PER_OBJECT as usize];

static MASK: AtomicU64 = AtomicU64::new(ALL);
/// A mask other than ALL or a filter is or was in force: region kinds are
/// needed (IDFs registered later are read too).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Highest `CLASS` index whose kind was read from an IDF (MASKED bits are
/// recomputed up to it when the mask changes).
static MAX_LOADED: AtomicU32 = AtomicU32::new(0);
/// Descriptor slots with a class byte, from the start of their block (the
/// last one: recomputing up to it through [`MAX_LOADED`] would write every
/// gate of every object block).
static DESCRIPTORS_LOADED: AtomicU32 = AtomicU32::new(0);
static FILTER: OnceLock<Filter> = OnceLock::new();
/// IDFs (by `idf` slot) whose regions are in `CLASS`; the lock serialises
/// loading (registration and `set_events` are not on the probe path).
static LOADED: Mutex<usize> = Mutex::new(0);

/// Where each base's block of class bytes starts in `CLASS`, by
/// `id / OBJECT_ID_STRIDE` (`u32::MAX`: no block). A table of 4 KiB that
/// stays in cache: one load instead of the compares that pick the block.
static BLOCK: [u32; BASES] = blocks();
const BASES: usize = (1u64 << 32) as usize / OBJECT_ID_STRIDE as usize;
const fn blocks() -> [u32; BASES] {
    let mut b = [u32::MAX; BASES];
    let mut k = 0;
    while k < OBJECTS {
        b[k as usize] = k * PER_OBJECT;
        k += 1;
    }
    b[DESCRIPTOR_BASE as usize] = OBJECTS * PER_OBJECT;
    b
}

/// The `CLASS` index of a region id (beyond the table for ids without a
/// class byte).
#[inline(always)]
fn slot(region: u32) -> usize {
    let local = region % OBJECT_ID_STRIDE;
    if local >= PER_OBJECT {
        return usize::MAX;
    }
    BLOCK[(region / OBJECT_ID_STRIDE) as usize] as usize + local as usize
}

/// Whether region `region` is recorded now.
#[inline(always)]
pub fn recorded(region: u32) -> bool {
    match GATE.get(slot(region)) {
        Some(g) => g.load(Relaxed) == 0,
        None => true,
    }
}

/// The gates of the object with base `base` (indexed by local id, below
/// `GATED_LOCAL_IDS`), for its C probes; [`regio_no_gates`] (all open:
/// probe every id) for a base without gates, never null. `disabled`:
/// `REGIO_DISABLE` is in force (a block that skips every probe).
pub fn gates(base: u32, disabled: bool) -> *const u8 {
    if disabled {
        return DISABLED.as_ptr();
    }
    if !base.is_multiple_of(OBJECT_ID_STRIDE) {
        return regio_no_gates.as_ptr();
    }
    match GATE.get(slot(base)) {
        // SAFETY: AtomicU8 has the layout of u8; C only reads it.
        Some(g) => g.as_ptr().cast_const(),
        None => regio_no_gates.as_ptr(),
    }
}

/// Stops recording `region` for the rest of the process (`throttle`);
/// true if this call did it (false: already throttled, or an id beyond
/// the table, which cannot be throttled).
pub fn throttle(region: u32) -> bool {
    match GATE.get(slot(region)) {
        Some(g) => g.fetch_or(THROTTLED, Relaxed) & THROTTLED == 0,
        None => false,
    }
}

/// Whether `region` was throttled in this process (the profile writer).
pub fn throttled(region: u32) -> bool {
    GATE.get(slot(region))
        .is_some_and(|g| g.load(Relaxed) & THROTTLED != 0)
}

/// Lets a throttled region be recorded again (tests only).
#[cfg(test)]
pub fn unthrottle(region: u32) {
    if let Some(g) = GATE.get(slot(region)) {
        g.fetch_and(!THROTTLED, Relaxed);
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
                // With `descriptor_registered`'s fence: either that sees
                // the filter, or this sees its descriptor (the process's
                // first probe registers one before the start-up).
                fence(SeqCst);
                for r in crate::region::registered() {
                    if let Some(id) = r.registered_id() {
                        filter_descriptor(r, id);
                    }
                }
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
    // SeqCst with `descriptor_registered`: either it reads this mask, or
    // this reads its slot's high-water mark (and marks the slot).
    MASK.store(m, SeqCst);
    if m != ALL {
        ACTIVE.store(true, Release);
    }
    let _loading = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    let n = MAX_LOADED.load(Relaxed) as usize + 1;
    for (c, g) in CLASS.iter().zip(GATE.iter()).take(n) {
        mark_masked(c, g, m);
    }
    let first = BLOCK[DESCRIPTOR_BASE as usize] as usize;
    let d = DESCRIPTORS_LOADED.load(SeqCst) as usize;
    for (c, g) in CLASS[first..].iter().zip(&GATE[first..]).take(d) {
        mark_masked(c, g, m);
    }
}

/// The id of a Rust descriptor region (`region::Region`) for a probe: on
/// its first entry, also the class byte of its kind, so the event mask
/// (`REGIO_EVENTS`, `set_events`) leaves it out as it leaves out IDF
/// regions of that kind, and its gate's filtered bit (`REGIO_FILTER` by
/// its name and file, as for IDF regions).
#[inline(always)]
pub fn descriptor_id(region: &'static crate::region::Region) -> u32 {
    let (id, fresh) = region.id_and_fresh();
    if fresh {
        descriptor_registered(id, region.kind);
        fence(SeqCst);
        filter_descriptor(region, id);
    }
    id
}

/// Sets the filtered bit of descriptor `region` (id `id`) if `REGIO_FILTER`
/// leaves it out; nothing before the filter is read.
fn filter_descriptor(region: &crate::region::Region, id: u32) {
    let Some(f) = FILTER.get() else {
        return;
    };
    if f.allows_region(region.name) && f.allows_file(region.file) {
        return;
    }
    if let Some(g) = GATE.get(slot(id)) {
        g.fetch_or(FILTERED, Relaxed);
    }
}

/// Lock-free, as it runs inside a probe: a concurrent `set_mask_bits`
/// either sees this slot or stored its mask before the last load here,
/// which then marks the slot again.
#[cold]
fn descriptor_registered(id: u32, kind: crate::region::Kind) {
    use crate::region::Kind;
    let at = slot(id);
    let (Some(c), Some(g)) = (CLASS.get(at), GATE.get(at)) else {
        return;
    };
    let class = match kind {
        Kind::Program | Kind::Function => FUNCTIONS,
        Kind::Loop => LOOPS,
        Kind::User => USER,
        Kind::OmpTeam => OMP,
    };
    c.store(class.trailing_zeros() as u8 + 1, SeqCst);
    let first = BLOCK[DESCRIPTOR_BASE as usize] as usize;
    DESCRIPTORS_LOADED.fetch_max((at - first + 1) as u32, SeqCst);
    loop {
        let m = MASK.load(SeqCst);
        mark_masked(c, g, m);
        if MASK.load(SeqCst) == m {
            break;
        }
    }
}

/// Sets or clears MASKED in gate `g` of class byte `c` for mask `m` (the
/// other bits are left as they are: throttling may set its bit at the same
/// time).
fn mark_masked(c: &AtomicU8, g: &AtomicU8, m: u64) {
    let bit = c.load(Relaxed) & CLASS_BITS;
    if bit != 0 && m & 1 << (bit - 1) == 0 {
        g.fetch_or(MASKED, Relaxed);
    } else {
        g.fetch_and(!MASKED, Relaxed);
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
        let base = idf::base(*loaded);
        *loaded += 1;
        match regio_idf::idf::Idf::read(std::path::Path::new(&path)) {
            Ok(idf) => {
                let mask = MASK.load(Relaxed);
                for r in &idf.regions {
                    let at = slot(base.saturating_add(r.id));
                    let (Some(c), Some(g)) = (CLASS.get(at), GATE.get(at)) else {
                        continue;
                    };
                    c.store(class_bit(&r.kind), Relaxed);
                    // Filtered stays set (C may skip the region's exits);
                    // a throttle bit the region carries stays too.
                    if FILTER
                        .get()
                        .is_some_and(|f| !f.allows_region(&r.name) || !f.allows_file(&r.file))
                    {
                        g.fetch_or(FILTERED, Relaxed);
                    }
                    mark_masked(c, g, mask);
                    MAX_LOADED.fetch_max(at as u32, Relaxed);
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
    fn throttling_marks_one_id_of_either_range() {
        // Ids no other test uses: the last slot of base 0, of an object's
        // base and of the descriptors.
        let idf = PER_OBJECT - 1;
        let object = 3 * OBJECT_ID_STRIDE + PER_OBJECT - 1;
        let desc = FIRST_DESCRIPTOR_ID + PER_OBJECT - 1;
        for id in [idf, object, desc] {
            assert!(recorded(id) && !throttled(id));
            assert!(throttle(id), "first time");
            assert!(!throttle(id), "once only");
            assert!(!recorded(id) && throttled(id));
            unthrottle(id);
            assert!(recorded(id));
        }
        // The ranges do not share slots.
        assert_ne!(slot(idf), slot(desc));
        assert_ne!(slot(1), slot(FIRST_DESCRIPTOR_ID + 1));
        assert_ne!(slot(1), slot(OBJECT_ID_STRIDE + 1));
        assert!(slot(object) < CLASS_LEN && slot(desc) < CLASS_LEN);
        // Beyond the table (a local id past PER_OBJECT, the unregistered
        // base): always recorded, never throttled.
        for id in [PER_OBJECT, regio_idf::rundir::UNREGISTERED_BASE + 1] {
            assert!(!throttle(id));
            assert!(recorded(id));
        }
    }

    #[test]
    fn c_reads_an_objects_gates_by_local_id() {
        // An object base and a local id no other test uses.
        let base = 5 * OBJECT_ID_STRIDE;
        let g = gates(base, false);
        assert!(!g.is_null());
        // SAFETY: the block has PER_OBJECT bytes.
        let byte = |local: usize| unsafe { *g.add(local) };
        assert_eq!(byte(7), 0, "recorded: open");
        assert!(throttle(base + 7));
        assert_ne!(byte(7), 0, "throttled: the entry is skipped");
        assert_eq!(byte(7) & NO_EXIT, 0, "but its exit is still made");
        assert_eq!(byte(8), 0, "its neighbour stays open");
        unthrottle(base + 7);
        assert_eq!(byte(7), 0);
        // REGIO_DISABLE: every entry and exit skipped.
        let off = gates(base, true);
        // SAFETY: as above.
        assert!((0..PER_OBJECT as usize).all(|i| unsafe { *off.add(i) } == NO_EXIT));
        // No gates (always recorded): the unregistered base, a base that
        // is not one, an id beyond the table.
        let none = regio_no_gates.as_ptr();
        assert_eq!(gates(regio_idf::rundir::UNREGISTERED_BASE, false), none);
        assert_eq!(gates(base + 1, false), none);
        assert!(regio_no_gates.iter().all(|&g| g == 0));
    }

    #[test]
    fn classes_map_kinds() {
        assert_eq!(class_bit(&RegionKind::Function), 1);
        assert_eq!(class_bit(&RegionKind::Mpi("send".into())), 6);
        assert_eq!(class_bit(&RegionKind::User), 7);
    }
}
