//! `perf_event_open(2)` for one event on the calling thread, and the words
//! that explain a refusal.

use libc::c_int;

use super::events::Event;

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER0` (64 bytes); the
/// kernel takes a shorter struct as if the rest were zero.
#[repr(C)]
#[derive(Default)]
struct Attr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const ATTR_SIZE_VER0: u32 = 64;
/// `read_format`: one read returns `nr` and then every member's value.
const FORMAT_GROUP: u64 = 1 << 3;
/// `flags` bits.
const EXCLUDE_KERNEL: u64 = 1 << 5;
const EXCLUDE_HV: u64 = 1 << 6;
const FLAG_FD_CLOEXEC: libc::c_ulong = 1 << 3;

/// Opens `ev` counting the calling thread (user space only unless the
/// event exists only in the kernel), in `group` (a leader fd) or as a new
/// group leader (`-1`). Counting starts at once.
pub fn open(ev: &Event, group: c_int) -> Result<c_int, i32> {
    const _: () = assert!(std::mem::size_of::<Attr>() == ATTR_SIZE_VER0 as usize);
    let attr = Attr {
        type_: ev.type_,
        size: ATTR_SIZE_VER0,
        config: ev.config,
        read_format: FORMAT_GROUP,
        flags: EXCLUDE_HV | if ev.kernel_only { 0 } else { EXCLUDE_KERNEL },
        ..Attr::default()
    };
    // SAFETY: attr is a valid perf_event_attr of the size it declares;
    // pid 0 / cpu -1 is "this thread, any CPU".
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const Attr,
            0 as libc::pid_t,
            -1 as c_int,
            group,
            FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        Err(crate::sys::errno())
    } else {
        Ok(fd as c_int)
    }
}

/// Why the kernel refused `ev`, for people: what it means, then the errno.
pub fn refusal(ev: &Event, errno: i32) -> String {
    let os = std::io::Error::from_raw_os_error(errno);
    let what = match errno {
        libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV => {
            "not supported by this CPU or virtual machine".to_string()
        }
        libc::EACCES | libc::EPERM => {
            let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "unknown".into());
            if ev.kernel_only {
                format!(
                    "counted only inside the kernel, which kernel.perf_event_paranoid={paranoid} does not allow this user to measure"
                )
            } else {
                format!("not permitted (kernel.perf_event_paranoid={paranoid})")
            }
        }
        libc::ENOSYS => "perf events are not available in this kernel".to_string(),
        libc::EMFILE | libc::ENFILE => "no file descriptor left for it".to_string(),
        _ => "refused by the kernel".to_string(),
    };
    format!("{what} (perf_event_open: {os})")
}

pub fn close(fd: c_int) {
    // SAFETY: fd is a descriptor this module opened and nobody else uses.
    unsafe { libc::close(fd) };
}
