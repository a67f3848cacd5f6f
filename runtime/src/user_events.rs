//! User events (`regio_event(name, value)`): their names and their
//! statistics per DRG node.
//!
//! Names: a fixed process-wide table turns a name into a small id, the
//! same on every thread, so the trace and the profile refer to names by
//! number. The table is static (names are copied into it, cut to
//! [`MAX_NAME_LEN`] bytes): interning takes no lock and allocates nothing.
//! A slot is claimed with one compare-and-swap; a thread that finds a slot
//! being claimed passes over it, so two racing first uses of one name can
//! give it two ids. Nothing keys on the id alone (the profile writes the
//! name, the trace a `string` record per id), so that costs one slot.
//!
//! Statistics: per thread, a fixed open-addressing table of
//! [`TABLE_ENTRIES`] (node, name) pairs with count, min, max and sum. It is
//! mapped (`mmap`, so also from a signal handler) at the thread's first
//! user event and never freed, so the profile writer can read it at exit,
//! from a signal handler or from the snapshot thread. After that an event
//! takes no lock, allocates nothing and makes no system call: the owner
//! updates its entry with relaxed load/store pairs. What cannot be kept
//! is counted, never lost silently: a pair that finds the table full (or
//! an event that interrupted a probe of its thread) in the thread's
//! `dropped`, an event whose name finds the name table full (or whose
//! thread could not map a table) in the process-wide [`lost`].

use std::cell::{Cell, UnsafeCell};
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering::*};

use crate::node::bump;
use crate::out::{Out, W32, W64};

/// Distinct names kept; events with further names are counted in [`lost`].
pub const MAX_NAMES: usize = 256;
/// Longest name kept (longer names are cut to this many bytes).
pub const MAX_NAME_LEN: usize = 128;
/// Distinct (node, name) pairs kept per thread.
pub const TABLE_ENTRIES: usize = 1024;

/// `hash` of a slot a thread is filling.
const RESERVED: u64 = u64::MAX;
/// Spins [`intern`] waits for a reserved slot to be published (a copy of
/// at most [`MAX_NAME_LEN`] bytes, unless its writer was preempted).
const RESERVED_WAIT: u32 = 1 << 20;

struct Slot {
    /// FNV-1a of the name: 0 while the slot is empty, [`RESERVED`] while a
    /// thread copies a name in; published (Release) after `text` and `len`.
    hash: AtomicU64,
    len: AtomicU32,
    text: UnsafeCell<[u8; MAX_NAME_LEN]>,
}

// SAFETY: `text` is written only by the thread that reserved the slot,
// before `hash` publishes it; it is read only after `hash` is seen.
unsafe impl Sync for Slot {}

static SLOTS: [Slot; MAX_NAMES] = [const {
    Slot {
        hash: AtomicU64::new(0),
        len: AtomicU32::new(0),
        text: UnsafeCell::new([0; MAX_NAME_LEN]),
    }
}; MAX_NAMES];

/// Events recorded nowhere (names table full, or no table for the thread).
static LOST: AtomicU64 = AtomicU64::new(0);

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h.clamp(1, RESERVED - 1)
}

/// `name` cut to [`MAX_NAME_LEN`] bytes, with every byte that is not part
/// of valid UTF-8 (a character cut in two included) replaced by `?`.
fn sanitize(name: &[u8]) -> ([u8; MAX_NAME_LEN], usize) {
    let len = name.len().min(MAX_NAME_LEN);
    let mut buf = [0u8; MAX_NAME_LEN];
    buf[..len].copy_from_slice(&name[..len]);
    let mut at = 0;
    while let Err(e) = std::str::from_utf8(&buf[at..len]) {
        let bad = at + e.valid_up_to();
        let n = e.error_len().unwrap_or(len - bad);
        buf[bad..bad + n].fill(b'?');
        at = bad + n;
    }
    (buf, len)
}

/// The id of `name` (cut to [`MAX_NAME_LEN`] bytes, invalid UTF-8 as `?`),
/// adding it on first use; None when the table is full.
pub fn intern(name: &[u8]) -> Option<u32> {
    let (buf, len) = sanitize(name);
    let name = &buf[..len];
    let h = fnv(name);
    let start = (h as usize) % MAX_NAMES;
    for i in 0..MAX_NAMES {
        let k = (start + i) % MAX_NAMES;
        let slot = &SLOTS[k];
        let mut waited = 0;
        loop {
            match slot.hash.load(Acquire) {
                0 => {
                    if slot
                        .hash
                        .compare_exchange(0, RESERVED, Acquire, Relaxed)
                        .is_err()
                    {
                        continue; // taken meanwhile: look at it again
                    }
                    // SAFETY: the slot is reserved for this thread.
                    unsafe { (&mut *slot.text.get())[..len].copy_from_slice(name) };
                    slot.len.store(len as u32, Relaxed);
                    slot.hash.store(h, Release);
                    return Some(k as u32);
                }
                // Another thread is writing its name here, which may be
                // this one: passing on would give one name two ids (two
                // rows of one event on one node). The wait is bounded: a
                // signal handler may have interrupted the writer on this
                // very thread.
                RESERVED if waited < RESERVED_WAIT => {
                    waited += 1;
                    std::hint::spin_loop();
                }
                x if x == h && text(slot) == Some(name) => return Some(k as u32),
                _ => break,
            }
        }
    }
    None
}

/// The stored bytes of a published slot.
fn text(slot: &Slot) -> Option<&'static [u8]> {
    match slot.hash.load(Acquire) {
        0 | RESERVED => None,
        _ => {
            let len = (slot.len.load(Relaxed) as usize).min(MAX_NAME_LEN);
            // SAFETY: published slots are never written again (a forked
            // child keeps its parent's names); `SLOTS` is static.
            let text: &'static [u8; MAX_NAME_LEN] = unsafe { &*slot.text.get() };
            Some(&text[..len])
        }
    }
}

/// The name of id `id`, if it exists.
pub fn name(id: u32) -> Option<&'static str> {
    let slot = SLOTS.get(id as usize)?;
    std::str::from_utf8(text(slot)?).ok()
}

/// Counts an event recorded nowhere (see the module comment).
pub fn note_lost() {
    LOST.fetch_add(1, Relaxed);
}

/// Events recorded nowhere in this process.
pub fn lost() -> u64 {
    LOST.load(Relaxed)
}

/// One (node, name) pair of a thread. Floats are stored as their bits.
struct Entry {
    /// 0 = free; else `node << 32 | (name + 1)`. Stored last (Release)
    /// when an entry is claimed.
    key: AtomicU64,
    count: AtomicU64,
    min: AtomicU64,
    max: AtomicU64,
    sum: AtomicU64,
}

/// One thread's statistics. All zero is a valid empty table, which is
/// what a fresh anonymous mapping holds.
pub struct Table {
    /// The thread state the node indices refer to (its address).
    owner: AtomicU64,
    /// Events not kept: the table was full, or the event interrupted a
    /// probe of its thread.
    dropped: AtomicU64,
    /// Next (older) table in the process list.
    next: AtomicPtr<Table>,
    entries: [Entry; TABLE_ENTRIES],
}

static HEAD: AtomicPtr<Table> = AtomicPtr::new(ptr::null_mut());

thread_local! {
    static MINE: Cell<*const Table> = const { Cell::new(ptr::null()) };
}

/// Values of one pair as the writer reads them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub count: u64,
    pub min: f64,
    pub max: f64,
    pub sum: f64,
}

impl Table {
    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize % TABLE_ENTRIES
    }

    /// Adds `value` to the pair (`node` arena index, name id `name`).
    /// Owner thread only.
    pub fn add(&self, node: u32, name: u32, value: f64) {
        let key = u64::from(node) << 32 | (u64::from(name) + 1);
        let mut i = Self::slot(key);
        for _ in 0..TABLE_ENTRIES {
            let e = &self.entries[i];
            match e.key.load(Relaxed) {
                0 => {
                    e.count.store(1, Relaxed);
                    e.min.store(value.to_bits(), Relaxed);
                    e.max.store(value.to_bits(), Relaxed);
                    e.sum.store(value.to_bits(), Relaxed);
                    e.key.store(key, Release);
                    return;
                }
                k if k == key => {
                    bump(&e.count, 1);
                    // f64::min/max keep the number when one side is NaN.
                    let min = f64::from_bits(e.min.load(Relaxed)).min(value);
                    let max = f64::from_bits(e.max.load(Relaxed)).max(value);
                    let sum = f64::from_bits(e.sum.load(Relaxed)) + value;
                    e.min.store(min.to_bits(), Relaxed);
                    e.max.store(max.to_bits(), Relaxed);
                    e.sum.store(sum.to_bits(), Relaxed);
                    return;
                }
                _ => i = (i + 1) % TABLE_ENTRIES,
            }
        }
        self.note_dropped();
    }

    /// Counts an event of this thread that was not kept.
    pub fn note_dropped(&self) {
        bump(&self.dropped, 1);
    }

    pub fn dropped(&self) -> u64 {
        self.dropped.load(Relaxed)
    }

    /// The used pairs: (node arena index, name id, values).
    pub fn records(&self) -> impl Iterator<Item = (u32, u32, Stats)> + '_ {
        self.entries.iter().filter_map(|e| {
            let key = e.key.load(Acquire);
            (key != 0).then(|| {
                let stats = Stats {
                    count: e.count.load(Relaxed),
                    min: f64::from_bits(e.min.load(Relaxed)),
                    max: f64::from_bits(e.max.load(Relaxed)),
                    sum: f64::from_bits(e.sum.load(Relaxed)),
                };
                ((key >> 32) as u32, (key as u32).wrapping_sub(1), stats)
            })
        })
    }

    fn clear(&self) {
        for e in &self.entries {
            e.key.store(0, Relaxed);
        }
        self.dropped.store(0, Relaxed);
    }
}

/// A zeroed table in a mapping of its own; None when the kernel refuses.
fn map_table() -> Option<&'static Table> {
    let p = crate::sys::map_anonymous(std::mem::size_of::<Table>())?;
    // SAFETY: a fresh mapping, never unmapped; zero bytes are a valid
    // `Table` (atomics and a null pointer).
    Some(unsafe { &*(p as *const Table) })
}

/// The calling thread's table (for the thread state at address `owner`),
/// mapped on first use; None if it cannot be mapped.
pub fn mine(owner: usize) -> Option<&'static Table> {
    let t = MINE.with(Cell::get);
    if !t.is_null() {
        // SAFETY: tables are never unmapped.
        return Some(unsafe { &*t });
    }
    create(owner)
}

#[cold]
#[inline(never)]
fn create(owner: usize) -> Option<&'static Table> {
    static AT_FORK: std::sync::Once = std::sync::Once::new();
    AT_FORK.call_once(|| {
        // SAFETY: registering a plain extern "C" function. A failure only
        // leaves a forked child with its parent's statistics.
        unsafe { libc::pthread_atfork(None, None, Some(clear_after_fork)) };
    });
    let t = map_table()?;
    t.owner.store(owner as u64, Relaxed);
    let me = t as *const Table as *mut Table;
    let mut head = HEAD.load(Acquire);
    loop {
        t.next.store(head, Relaxed);
        match HEAD.compare_exchange_weak(head, me, AcqRel, Acquire) {
            Ok(_) => break,
            Err(h) => head = h,
        }
    }
    MINE.with(|m| m.set(t));
    Some(t)
}

/// In a forked child: the parent's events are not the child's (as `fork`
/// clears the nodes). Names stay: ids must keep meaning the same names.
extern "C" fn clear_after_fork() {
    LOST.store(0, Relaxed);
    let mut p = HEAD.load(Acquire);
    while !p.is_null() {
        // SAFETY: tables are never unmapped; only this thread runs.
        let t = unsafe { &*p };
        t.clear();
        p = t.next.load(Acquire);
    }
}

/// The table whose node indices refer to the thread state at `owner`.
pub fn of_thread(owner: usize) -> Option<&'static Table> {
    let mut p = HEAD.load(Acquire);
    while !p.is_null() {
        // SAFETY: tables are never unmapped and published with Release.
        let t = unsafe { &*p };
        if t.owner.load(Relaxed) == owner as u64 {
            return Some(t);
        }
        p = t.next.load(Acquire);
    }
    None
}

/// Width of a float in the profile: the longest shortest round-trip
/// text of an f64 (`-2.2250738585072014e-308`) and some room.
const WF64: usize = 26;

/// `v` as the shortest text that reads back as `v`, padded to [`WF64`];
/// `null` when it is not finite (JSON has no NaN or infinity). No heap:
/// `core::fmt` into a stack buffer.
fn float(o: &mut Out, v: f64) {
    struct Buf {
        bytes: [u8; 40],
        len: usize,
    }
    impl std::fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let end = self.len + s.len();
            if end > self.bytes.len() {
                return Err(std::fmt::Error);
            }
            self.bytes[self.len..end].copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }
    let mut b = Buf {
        bytes: [0; 40],
        len: 0,
    };
    if !v.is_finite() || std::fmt::write(&mut b, format_args!("{v:?}")).is_err() {
        o.null(WF64);
        return;
    }
    o.pad(WF64.saturating_sub(b.len));
    o.raw(&b.bytes[..b.len]);
}

/// `,"user_events_lost":N` (profile top level).
pub fn write_process(o: &mut Out) {
    o.raw(b",\"user_events_lost\":");
    o.uint(lost(), W64);
}

/// `,"user_events_dropped":N,"user_events":[...]` for the thread state at
/// `owner`: one object per (node, name) with `node` (the node's `id` in
/// the thread's `nodes`, null outside any region), `name`, `count`, `min`,
/// `max`, `sum` (null when not finite).
pub fn write_thread(o: &mut Out, owner: usize) {
    let table = of_thread(owner);
    o.raw(b",\"user_events_dropped\":");
    o.uint(table.map_or(0, Table::dropped), W64);
    o.raw(b",\"user_events\":[");
    let mut first = true;
    for (node, name_id, s) in table.into_iter().flat_map(Table::records) {
        let Some(text) = name(name_id) else {
            continue;
        };
        o.raw(if first {
            b"\n{\"node\":"
        } else {
            b",\n{\"node\":"
        });
        first = false;
        // Arena index 0 is the hidden root; written node ids are index - 1.
        match node {
            0 => o.null(W32),
            n => o.uint(u64::from(n) - 1, W32),
        }
        o.raw(b",\"name\":");
        o.string(text.as_bytes());
        o.raw(b",\"count\":");
        o.uint(s.count, W64);
        o.raw(b",\"min\":");
        float(o, s.min);
        o.raw(b",\"max\":");
        float(o, s.max);
        o.raw(b",\"sum\":");
        float(o, s.sum);
        o.raw(b"}");
    }
    o.raw(b"]");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_get_one_id_each() {
        let a = intern(b"residual").unwrap();
        let b = intern(b"iterations").unwrap();
        assert_ne!(a, b);
        assert_eq!(intern(b"residual"), Some(a));
        assert_eq!(name(a), Some("residual"));
        let long = [b'x'; 300];
        let l = intern(&long).unwrap();
        assert_eq!(name(l).map(str::len), Some(MAX_NAME_LEN));
        // A character cut by the length limit, and invalid bytes.
        let mut cut = vec![b'y'; MAX_NAME_LEN - 1];
        cut.extend_from_slice("é".as_bytes());
        let c = intern(&cut).unwrap();
        assert_eq!(name(c).map(|s| s.ends_with("y?")), Some(true));
        let bad = intern(b"a\xffb").unwrap();
        assert_eq!(name(bad), Some("a?b"));
    }

    fn table() -> &'static Table {
        map_table().expect("mmap")
    }

    #[test]
    fn pairs_keep_count_min_max_sum() {
        let t = table();
        t.add(3, 0, 2.5);
        t.add(3, 0, -1.0);
        t.add(3, 0, 4.0);
        t.add(3, 1, 7.0);
        t.add(0, 0, 1.0);
        let mut got: Vec<_> = t.records().collect();
        got.sort_by_key(|r| (r.0, r.1));
        assert_eq!(
            got,
            vec![
                (
                    0,
                    0,
                    Stats {
                        count: 1,
                        min: 1.0,
                        max: 1.0,
                        sum: 1.0
                    }
                ),
                (
                    3,
                    0,
                    Stats {
                        count: 3,
                        min: -1.0,
                        max: 4.0,
                        sum: 5.5
                    }
                ),
                (
                    3,
                    1,
                    Stats {
                        count: 1,
                        min: 7.0,
                        max: 7.0,
                        sum: 7.0
                    }
                ),
            ]
        );
    }

    #[test]
    fn a_full_table_counts_what_it_drops() {
        let t = table();
        for n in 0..TABLE_ENTRIES as u32 + 3 {
            t.add(n + 1, 0, 1.0);
        }
        t.add(1, 0, 1.0); // an existing pair still counts
        assert_eq!(t.records().count(), TABLE_ENTRIES);
        assert_eq!(t.dropped(), 3);
        let first = t.records().find(|r| r.0 == 1).map(|r| r.2.count);
        assert_eq!(first, Some(2));
    }

    #[test]
    fn floats_are_written_to_read_back_exactly() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("o");
        let mut cpath = path.to_str().unwrap().as_bytes().to_vec();
        cpath.push(0);
        let fd = crate::sys::open_write(&cpath).unwrap();
        let mut buf = [0u8; 256];
        let mut o = Out::new(fd, &mut buf);
        for v in [0.1, -2.5e-300, 1e300, f64::MIN_POSITIVE, 3.0] {
            float(&mut o, v);
            o.raw(b",");
        }
        float(&mut o, f64::NAN);
        o.flush();
        crate::sys::close(fd).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let parts: Vec<&str> = text.split(',').collect();
        assert!(parts.iter().all(|p| p.len() == WF64));
        let back: Vec<Option<f64>> = parts.iter().map(|p| p.trim().parse().ok()).collect();
        assert_eq!(
            back,
            vec![
                Some(0.1),
                Some(-2.5e-300),
                Some(1e300),
                Some(f64::MIN_POSITIVE),
                Some(3.0),
                None
            ]
        );
    }
}
