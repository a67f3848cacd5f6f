//! IDF paths registered by instrumented code (from constructors), kept in
//! static storage so the profile writer can read them from a signal handler.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};

/// Distinct IDFs remembered; more are ignored (one per instrumented tree is
/// the normal case, a few when several instrumented libraries are linked).
pub const MAX_IDFS: usize = 16;
/// Longest path kept (Linux PATH_MAX).
pub const MAX_PATH: usize = 4096;

struct Slots {
    paths: [UnsafeCell<[u8; MAX_PATH]>; MAX_IDFS],
    lens: [AtomicUsize; MAX_IDFS],
}

// SAFETY: slot i is written once, under LOCK, before COUNT publishes it;
// readers only read slots below COUNT.
unsafe impl Sync for Slots {}

static SLOTS: Slots = Slots {
    paths: [const { UnsafeCell::new([0; MAX_PATH]) }; MAX_IDFS],
    lens: [const { AtomicUsize::new(0) }; MAX_IDFS],
};
static COUNT: AtomicUsize = AtomicUsize::new(0);
static LOCK: AtomicBool = AtomicBool::new(false);

/// Remembers `path` unless it is empty, too long, already known, or the
/// table is full. Returns whether it was added.
pub fn register(path: &[u8]) -> bool {
    if path.is_empty() || path.len() >= MAX_PATH || path.contains(&0) {
        return false;
    }
    while LOCK
        .compare_exchange_weak(false, true, Acquire, Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    let n = COUNT.load(Relaxed);
    let known = (0..n).any(|i| get(i) == path);
    let added = !known && n < MAX_IDFS;
    if added {
        // SAFETY: slot n is unpublished and we hold LOCK.
        let slot = unsafe { &mut *SLOTS.paths[n].get() };
        slot[..path.len()].copy_from_slice(path);
        slot[path.len()] = 0;
        SLOTS.lens[n].store(path.len(), Relaxed);
        COUNT.store(n + 1, Release);
    }
    LOCK.store(false, Release);
    added
}

/// Number of registered paths.
pub fn count() -> usize {
    COUNT.load(Acquire)
}

/// Path `i` (< count()) without its NUL.
pub fn get(i: usize) -> &'static [u8] {
    let len = SLOTS.lens[i].load(Relaxed);
    // SAFETY: published slots are never written again.
    unsafe { &(&*SLOTS.paths[i].get())[..len] }
}

/// Path `i` (< count()) with its NUL, for system calls.
pub fn get_c(i: usize) -> &'static [u8] {
    let len = SLOTS.lens[i].load(Relaxed);
    // SAFETY: as in `get`; the byte after the path is its NUL.
    unsafe { &(&*SLOTS.paths[i].get())[..=len] }
}

/// Fortran passes CHARACTER arguments blank-padded to their declared length.
pub fn trim_fortran(s: &[u8]) -> &[u8] {
    let end = s
        .iter()
        .rposition(|&b| b != b' ' && b != 0)
        .map_or(0, |i| i + 1);
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_blanks_are_trimmed() {
        assert_eq!(trim_fortran(b"/a/b.json   "), b"/a/b.json");
        assert_eq!(trim_fortran(b"   "), b"");
        assert_eq!(trim_fortran(b""), b"");
    }

    // The table is process-global; this is the only unit test touching it.
    #[test]
    fn paths_are_kept_once_and_bounded() {
        assert!(register(b"/x/regio.idf.json"));
        assert!(!register(b"/x/regio.idf.json"));
        assert!(!register(b""));
        assert!(!register(&[b'a'; MAX_PATH]));
        for i in 0..MAX_IDFS * 2 {
            register(format!("/p{i}").as_bytes());
        }
        assert_eq!(count(), MAX_IDFS);
        assert_eq!(get(0), b"/x/regio.idf.json");
        assert_eq!(get_c(0).last(), Some(&0));
    }
}
