//! IDFs registered by instrumented code (from constructors) and the base
//! each was given, kept in static storage so the profile writer can read
//! them from a signal handler.
//!
//! An instrumented C translation unit registers its IDF from a constructor
//! (`regio_register_object`) and keeps the base it gets in a static
//! variable its probes add to their local ids; every object of one IDF gets
//! the same base, objects of other IDFs other bases
//! (`regio_idf::rundir::OBJECT_ID_STRIDE` apart), so separately
//! instrumented objects and libraries never share an id. The registration
//! without a base (`regio_register_idf`: Fortran, older code) keeps base 0,
//! ids as the IDF has them.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};

use regio_idf::rundir::{
    host_fits_file_name, OBJECTS_PREFIX, OBJECTS_SUFFIX, OBJECT_ID_STRIDE, UNREGISTERED_BASE,
};

use crate::out::Cat;
use crate::sys;

/// Registrations remembered (a path registered with and without a base
/// counts twice); more are refused (the objects' ids then stay in the
/// unregistered range, which the analysis reports as such).
pub const MAX_IDFS: usize = 64;
/// Longest path kept (Linux PATH_MAX).
pub const MAX_PATH: usize = 4096;

struct Slots {
    paths: [UnsafeCell<[u8; MAX_PATH]>; MAX_IDFS],
    lens: [AtomicUsize; MAX_IDFS],
    bases: [AtomicU32; MAX_IDFS],
}

// SAFETY: slot i is written once, under LOCK, before COUNT publishes it;
// readers only read slots below COUNT.
unsafe impl Sync for Slots {}

static SLOTS: Slots = Slots {
    paths: [const { UnsafeCell::new([0; MAX_PATH]) }; MAX_IDFS],
    lens: [const { AtomicUsize::new(0) }; MAX_IDFS],
    bases: [const { AtomicU32::new(0) }; MAX_IDFS],
};
static COUNT: AtomicUsize = AtomicUsize::new(0);
static LOCK: AtomicBool = AtomicBool::new(false);
/// Next base handed out, in strides (slot 0 is base 0, the last slot is
/// `UNREGISTERED_BASE`).
static NEXT_SLOT: AtomicU32 = AtomicU32::new(1);

fn valid(path: &[u8]) -> bool {
    !path.is_empty() && path.len() < MAX_PATH && !path.contains(&0)
}

fn with_lock<T>(f: impl FnOnce() -> T) -> T {
    while LOCK
        .compare_exchange_weak(false, true, Acquire, Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    let r = f();
    LOCK.store(false, Release);
    r
}

/// Adds slot `n` (unpublished; LOCK held).
fn publish(n: usize, path: &[u8], base: u32) {
    // SAFETY: slot n is unpublished and the caller holds LOCK.
    let slot = unsafe { &mut *SLOTS.paths[n].get() };
    slot[..path.len()].copy_from_slice(path);
    slot[path.len()] = 0;
    SLOTS.lens[n].store(path.len(), Relaxed);
    SLOTS.bases[n].store(base, Relaxed);
    COUNT.store(n + 1, Release);
}

/// Remembers `path` without a base unless it is empty, too long, an IDF
/// without a base is already known, or the table is full. Returns whether
/// it was added.
pub fn register(path: &[u8]) -> bool {
    if !valid(path) {
        return false;
    }
    with_lock(|| {
        let n = COUNT.load(Relaxed);
        let plain_known = (0..n).any(|i| base(i) == 0);
        let added = !plain_known && n < MAX_IDFS;
        if added {
            publish(n, path, 0);
        }
        added
    })
}

/// The base of `path`'s ids: the one it already has, else a new one. An
/// invalid path or a full table gives `UNREGISTERED_BASE`. The second
/// value says whether the path is new.
pub fn register_object(path: &[u8]) -> (u32, bool) {
    if !valid(path) {
        return (UNREGISTERED_BASE, false);
    }
    with_lock(|| {
        let n = COUNT.load(Relaxed);
        if let Some(i) = (0..n).find(|&i| base(i) != 0 && get(i) == path) {
            return (base(i), false);
        }
        let k = NEXT_SLOT.load(Relaxed);
        if n >= MAX_IDFS || k >= UNREGISTERED_BASE / OBJECT_ID_STRIDE {
            return (UNREGISTERED_BASE, false);
        }
        NEXT_SLOT.store(k + 1, Relaxed);
        let b = k * OBJECT_ID_STRIDE;
        publish(n, path, b);
        (b, true)
    })
}

/// Number of registrations.
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

/// Base of registration `i` (< count()).
pub fn base(i: usize) -> u32 {
    SLOTS.bases[i].load(Relaxed)
}

/// Whether registration `i` is the first of its path (later ones share
/// the copy in the run directory).
pub fn first_of_path(i: usize) -> bool {
    (0..i).all(|j| get(j) != get(i))
}

/// FNV-1a of a path: the run directory names the copy of an IDF after it
/// (`regio.idf-<16 hex digits>.json`), so every process of a run names one
/// IDF alike.
pub fn path_hash(path: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in path {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `regio.idf-<hash>.json` for registration `i`, written into `buf`.
pub fn copy_name(i: usize, buf: &mut [u8; 32]) -> &[u8] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let prefix = b"regio.idf-";
    let h = path_hash(get(i));
    buf[..prefix.len()].copy_from_slice(prefix);
    for d in 0..16 {
        buf[prefix.len() + d] = HEX[((h >> (60 - 4 * d)) & 0xf) as usize];
    }
    let end = prefix.len() + 16;
    buf[end..end + 5].copy_from_slice(b".json");
    &buf[..end + 5]
}

/// Registrations already appended to this process's objects file, and
/// the pid that file is named after (a forked child starts its own).
static RECORDED: AtomicUsize = AtomicUsize::new(0);
static RECORDED_PID: AtomicU64 = AtomicU64::new(0);

/// Trace mode: appends the registrations not yet recorded to
/// `RUNDIR/regio.objects-p<pid>-<host>.txt` (`<base> <copy name> <path>`
/// per line; without `-<host>` when the host cannot be part of a file
/// name), so a run killed before it wrote a profile still tells which
/// IDF each base belongs to; the host keeps apart ranks of a multi-host
/// run that share a pid. Registration is not on the probe path: a few
/// system calls here are fine. No allocation and no lock but the table's
/// own (`try_only`: the fork child handler, which must not wait for a
/// lock a vanished thread may hold, skips instead).
pub fn record_in_run_dir(run_dir: &[u8], host: &[u8], try_only: bool) {
    let write = || {
        let pid = sys::getpid();
        if RECORDED_PID.load(Relaxed) != pid {
            RECORDED_PID.store(pid, Relaxed);
            RECORDED.store(0, Relaxed);
        }
        let (from, to) = (RECORDED.load(Relaxed), COUNT.load(Acquire));
        if from >= to {
            return;
        }
        let mut dir_buf = [0u8; MAX_PATH];
        let mut dir = Cat::new(&mut dir_buf);
        dir.push(run_dir);
        let Some(dir) = dir.finish() else { return };
        if sys::mkdir_p(dir).is_err() {
            return;
        }
        let mut path_buf = [0u8; MAX_PATH];
        let mut path = Cat::new(&mut path_buf);
        path.push(run_dir)
            .push(b"/")
            .push(OBJECTS_PREFIX.as_bytes())
            .num(pid);
        if host_fits_file_name(host) {
            path.push(b"-").push(host);
        }
        path.push(OBJECTS_SUFFIX.as_bytes());
        let Some(path) = path.finish() else { return };
        // SAFETY: `path` is NUL-terminated.
        let fd = unsafe {
            libc::open(
                path.as_ptr().cast(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND | libc::O_CLOEXEC,
                0o644 as libc::c_uint,
            )
        };
        if fd < 0 {
            return;
        }
        for i in from..to {
            let mut line_buf = [0u8; MAX_PATH + 64];
            let mut name = [0u8; 32];
            let mut line = Cat::new(&mut line_buf);
            line.num(u64::from(base(i)))
                .push(b" ")
                .push(copy_name(i, &mut name))
                .push(b" ")
                .push(get(i))
                .push(b"\n");
            // A path with a line break cannot be told apart: not recorded.
            if get(i).contains(&b'\n') {
                continue;
            }
            if let Some(l) = line.finish() {
                // One write per line: O_APPEND keeps lines whole.
                let _ = sys::write_all(fd, &l[..l.len() - 1]);
            }
        }
        let _ = sys::close(fd);
        RECORDED.store(to, Relaxed);
    };
    if try_only {
        if LOCK.compare_exchange(false, true, Acquire, Relaxed).is_ok() {
            write();
            LOCK.store(false, Release);
        }
    } else {
        with_lock(write);
    }
}

/// The run directory and host of a tracing process (set at start-up by
/// `lifecycle`, which knows the configuration; this module does not).
static TRACE_RUN_DIR: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();

/// Start-up of a process in trace mode: registrations are recorded in
/// `run_dir`, in a file named after the pid and `host`, from now on.
pub fn trace_into(run_dir: &[u8], host: &[u8]) {
    let _ = TRACE_RUN_DIR.set((run_dir.to_vec(), host.to_vec()));
}

/// [`record_in_run_dir`] when the process traces (profile runs list their
/// IDFs in the profile, written however the run ends but SIGKILL).
pub fn record_if_tracing(try_only: bool) {
    if let Some((dir, host)) = TRACE_RUN_DIR.get() {
        record_in_run_dir(dir, host, try_only);
    }
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

    #[test]
    fn copy_names_are_hex_of_the_path_hash() {
        let mut buf = [0; 32];
        let name = copy_name_of(b"/x", &mut buf);
        assert_eq!(name.len(), "regio.idf-0123456789abcdef.json".len());
        assert!(name.starts_with(b"regio.idf-") && name.ends_with(b".json"));
    }

    fn copy_name_of<'a>(path: &[u8], buf: &'a mut [u8; 32]) -> &'a [u8] {
        let h = path_hash(path);
        let s = format!("regio.idf-{h:016x}.json");
        buf[..s.len()].copy_from_slice(s.as_bytes());
        &buf[..s.len()]
    }

    // The table is process-global; this is the only unit test touching it.
    #[test]
    fn registrations_get_distinct_bases_and_are_bounded() {
        assert!(register(b"/x/regio.idf.json"));
        assert!(!register(b"/x/regio.idf.json"));
        assert!(!register(b"/y/regio.idf.json"), "one IDF without a base");
        assert!(!register(b""));
        assert!(!register(&[b'a'; MAX_PATH]));
        let (a, new_a) = register_object(b"/x/regio.idf.json");
        let (b, new_b) = register_object(b"/lib/regio.idf.json");
        assert!(new_a && new_b);
        assert_eq!(register_object(b"/lib/regio.idf.json"), (b, false));
        assert_eq!(a, OBJECT_ID_STRIDE);
        assert_eq!(b, 2 * OBJECT_ID_STRIDE);
        assert_eq!(register_object(b"").0, UNREGISTERED_BASE);
        assert!(!first_of_path(1), "same path as registration 0");
        assert!(first_of_path(2));
        let mut buf = [0; 32];
        assert_eq!(
            copy_name(0, &mut buf),
            copy_name_of(b"/x/regio.idf.json", &mut [0; 32])
        );
        for i in 0..MAX_IDFS * 2 {
            register_object(format!("/p{i}").as_bytes());
        }
        assert_eq!(count(), MAX_IDFS);
        assert_eq!(register_object(b"/one/more").0, UNREGISTERED_BASE);
        assert_eq!(get(0), b"/x/regio.idf.json");
        assert_eq!(base(0), 0);
        assert_eq!(get_c(0).last(), Some(&0));
    }
}
