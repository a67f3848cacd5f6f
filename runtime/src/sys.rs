//! Thin async-signal-safe wrappers over the system calls the runtime uses.
//! Paths are NUL-terminated byte slices built in caller-provided buffers,
//! so nothing here allocates.

use libc::c_int;

pub fn gettid() -> u64 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

pub fn getpid() -> u64 {
    // SAFETY: getpid cannot fail.
    unsafe { libc::getpid() as u64 }
}

/// Sends `sig` to the calling thread with `info` as its siginfo
/// (`rt_tgsigqueueinfo`: the handler sees that sender and code); false if
/// the kernel refused (a siginfo that claims to be the kernel's).
pub fn signal_own_thread(sig: i32, info: &mut libc::siginfo_t) -> bool {
    // SAFETY: a signal to our own process and thread with a valid siginfo.
    unsafe {
        libc::syscall(
            libc::SYS_rt_tgsigqueueinfo,
            getpid() as libc::c_long,
            gettid() as libc::c_long,
            sig as libc::c_long,
            info as *mut libc::siginfo_t,
        ) == 0
    }
}

pub fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Writes all of `bytes`, retrying on EINTR and short writes.
pub fn write_all(fd: c_int, mut bytes: &[u8]) -> Result<(), i32> {
    while !bytes.is_empty() {
        // SAFETY: bytes is a valid readable slice.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            let e = errno();
            if e == libc::EINTR {
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// `path` must end with a NUL byte.
pub fn open_write(path: &[u8]) -> Result<c_int, i32> {
    debug_assert_eq!(path.last(), Some(&0));
    // SAFETY: path is NUL-terminated.
    let fd = unsafe {
        libc::open(
            path.as_ptr().cast(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        Err(errno())
    } else {
        Ok(fd)
    }
}

/// `path` must end with a NUL byte.
pub fn open_read(path: &[u8]) -> Result<c_int, i32> {
    debug_assert_eq!(path.last(), Some(&0));
    // SAFETY: path is NUL-terminated.
    let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        Err(errno())
    } else {
        Ok(fd)
    }
}

/// Reads into `buf`; Ok(0) at end of file.
pub fn read(fd: c_int, buf: &mut [u8]) -> Result<usize, i32> {
    loop {
        // SAFETY: buf is a valid writable slice.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = errno();
        if e != libc::EINTR {
            return Err(e);
        }
    }
}

pub fn close(fd: c_int) -> Result<(), i32> {
    // SAFETY: closing a descriptor we opened.
    if unsafe { libc::close(fd) } < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// Both paths must end with a NUL byte.
pub fn rename(from: &[u8], to: &[u8]) -> Result<(), i32> {
    // SAFETY: both are NUL-terminated.
    if unsafe { libc::rename(from.as_ptr().cast(), to.as_ptr().cast()) } < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// Removes a file, ignoring errors (used to clean up a failed temporary).
pub fn unlink(path: &[u8]) {
    // SAFETY: path is NUL-terminated.
    unsafe { libc::unlink(path.as_ptr().cast()) };
}

/// `mkdir -p` on a NUL-terminated path, in place: each '/' is briefly
/// replaced by NUL. Tolerates other processes creating the same
/// directories at the same time. The whole path is tried first: its
/// parent nearly always exists, and every `mkdir` of an existing prefix
/// is a system call each exiting process would pay.
pub fn mkdir_p(path: &mut [u8]) -> Result<(), i32> {
    let len = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    if len < path.len() {
        // SAFETY: path[..=len] is NUL-terminated.
        let r = unsafe { libc::mkdir(path.as_ptr().cast(), 0o755) };
        if r == 0 || errno() == libc::EEXIST {
            return Ok(());
        }
    }
    for i in 1..=len {
        if i < len && path[i] != b'/' {
            continue;
        }
        if i < len && path[i - 1] == b'/' {
            continue;
        }
        let saved = path[i];
        path[i] = 0;
        // SAFETY: path[..=i] is NUL-terminated.
        let r = unsafe { libc::mkdir(path.as_ptr().cast(), 0o755) };
        let e = if r < 0 { errno() } else { 0 };
        path[i] = saved;
        if r < 0 && e != libc::EEXIST {
            return Err(e);
        }
    }
    Ok(())
}

/// `len` zeroed bytes of private anonymous memory (async-signal-safe, no
/// heap); None when the kernel refuses. The caller owns the mapping.
pub fn map_anonymous(len: usize) -> Option<*mut u8> {
    // SAFETY: an anonymous private mapping; checked below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p.cast())
}

/// Zeroed anonymous memory, unmapped on drop: scratch space for code that
/// may run in a signal handler on a small alternate stack (no heap, no
/// large stack frame).
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    /// `len` bytes, or None when the kernel refuses.
    pub fn new(len: usize) -> Option<Mapping> {
        map_anonymous(len).map(|ptr| Mapping { ptr, len })
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `len` bytes mapped readable and writable, ours alone.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping `new` made.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mkdir_p_creates_nested_and_existing_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("a/b//c");
        let mut buf = target.to_str().unwrap().as_bytes().to_vec();
        buf.push(0);
        mkdir_p(&mut buf).unwrap();
        assert!(tmp.path().join("a/b/c").is_dir());
        mkdir_p(&mut buf).unwrap();
        assert_eq!(&buf[..buf.len() - 1], target.to_str().unwrap().as_bytes());
    }

    #[test]
    fn mkdir_p_reports_a_file_in_the_way() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f"), "x").unwrap();
        let mut buf = format!("{}/f/g\0", tmp.path().display()).into_bytes();
        assert_eq!(mkdir_p(&mut buf), Err(libc::ENOTDIR));
    }
}
