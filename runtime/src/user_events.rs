//! Names of user events (`regio_event(name, value)`): a fixed process-wide
//! table that turns a name into a small id, the same on every thread, so
//! the trace and the profile refer to names by number. The first use of a
//! name copies it (one allocation per distinct name); later uses only hash
//! and compare, without a lock.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering::*};

/// Distinct names kept; events with further names are not recorded.
pub const MAX_NAMES: usize = 256;
/// Longest name kept (longer names are cut to this many bytes).
pub const MAX_NAME_LEN: usize = 128;

struct Slot {
    /// FNV-1a of the name, 0 while the slot is empty.
    hash: AtomicU64,
    /// The leaked name, published before `hash`.
    name: AtomicPtr<Name>,
}

struct Name {
    text: Box<str>,
}

static SLOTS: [Slot; MAX_NAMES] = [const {
    Slot {
        hash: AtomicU64::new(0),
        name: AtomicPtr::new(std::ptr::null_mut()),
    }
}; MAX_NAMES];
static LOCK: AtomicBool = AtomicBool::new(false);

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h.max(1)
}

/// The id of `name` (cut to [`MAX_NAME_LEN`] bytes, lossy UTF-8), adding it
/// on first use; None when the table is full.
pub fn intern(name: &[u8]) -> Option<u32> {
    let name = &name[..name.len().min(MAX_NAME_LEN)];
    let h = fnv(name);
    let start = (h as usize) % MAX_NAMES;
    if let Some(id) = find(name, h, start) {
        return Some(id);
    }
    while LOCK
        .compare_exchange_weak(false, true, Acquire, Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    // Again under the lock: another thread may have added it meanwhile.
    let id = find(name, h, start).or_else(|| {
        (0..MAX_NAMES)
            .map(|i| (start + i) % MAX_NAMES)
            .find(|&i| SLOTS[i].hash.load(Relaxed) == 0)
            .map(|i| {
                let text = String::from_utf8_lossy(name).into_owned().into_boxed_str();
                let leaked = Box::into_raw(Box::new(Name { text }));
                SLOTS[i].name.store(leaked, Release);
                SLOTS[i].hash.store(h, Release);
                i as u32
            })
    });
    LOCK.store(false, Release);
    id
}

fn find(name: &[u8], h: u64, start: usize) -> Option<u32> {
    for i in 0..MAX_NAMES {
        let slot = &SLOTS[(start + i) % MAX_NAMES];
        match slot.hash.load(Acquire) {
            0 => return None,
            x if x == h && text(slot).is_some_and(|t| fits(t, name)) => {
                return Some(((start + i) % MAX_NAMES) as u32)
            }
            _ => {}
        }
    }
    None
}

/// Whether the stored text is `name` (lossy UTF-8 of it, that is).
fn fits(stored: &str, name: &[u8]) -> bool {
    match std::str::from_utf8(name) {
        Ok(s) => s == stored,
        Err(_) => String::from_utf8_lossy(name) == stored,
    }
}

fn text(slot: &Slot) -> Option<&'static str> {
    let p = slot.name.load(Acquire);
    // SAFETY: names are leaked, never freed.
    unsafe { p.as_ref() }.map(|n| &*n.text)
}

/// The name of id `id`, if it exists.
pub fn name(id: u32) -> Option<&'static str> {
    SLOTS.get(id as usize).and_then(text)
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
    }
}
