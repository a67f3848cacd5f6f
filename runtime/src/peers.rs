//! Ranks on one host write their profiles when another rank calls
//! `MPI_Abort`.
//!
//! Open MPI's launcher ends the other ranks with SIGTERM, which the
//! signals module catches; MPICH's Hydra sends SIGKILL, which nothing can
//! catch. So before the instrumented `MPI_Abort` the aborting rank asks
//! every rank of the job on its host to write what it has measured, and
//! waits (bounded) until they have. Ranks find each other through marker
//! files in the shared run directory, `.peer-r<rank>-p<pid>`, holding the
//! host name and the process start time: a stale marker of an earlier run
//! in the same directory never makes us signal an unrelated process that
//! reuses the pid. Ranks on other hosts cannot be reached this way.

use std::ffi::CString;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libc::c_int;

use crate::config::Config;
use crate::fork;
use crate::profile::{self, Reason};
use crate::sys;

const MARKER_PREFIX: &str = ".peer-r";
/// How long the aborting rank waits for the others' profiles.
const WAIT: Duration = Duration::from_secs(3);

/// This process's marker, once announced.
static MARKER: OnceLock<CString> = OnceLock::new();

/// The signal that asks a rank for its profile: a real-time signal, which
/// neither MPI library uses and which queues instead of merging.
fn snapshot_signal() -> c_int {
    libc::SIGRTMIN() + 6
}

/// Makes this rank reachable by an aborting peer: installs the snapshot
/// handler (unless the program handles that signal itself) and writes the
/// marker. Only for processes started as ranks of a job of several.
pub fn announce(cfg: &Config) {
    if cfg.size <= 1 || !install_handler() {
        return;
    }
    let pid = sys::getpid();
    let Some(start) = start_time(pid) else { return };
    let dir = bytes_to_path(&cfg.run_dir);
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let path = dir.join(format!("{MARKER_PREFIX}{}-p{pid}", cfg.rank));
    let content = format!("{}\n{start}\n", String::from_utf8_lossy(&cfg.host));
    if std::fs::write(&path, content).is_err() {
        return;
    }
    use std::os::unix::ffi::OsStrExt;
    if let Ok(c) = CString::new(path.as_os_str().as_bytes()) {
        let _ = MARKER.set(c);
    }
}

/// Removes this rank's marker: its final profile is written (or it has
/// answered an aborting peer). Async-signal-safe. A forked child leaves
/// its parent's marker alone.
pub fn retire() {
    if fork::forked() {
        return;
    }
    if let Some(m) = MARKER.get() {
        // SAFETY: unlink of a NUL-terminated path.
        unsafe { libc::unlink(m.as_ptr()) };
    }
}

/// Before `MPI_Abort`: writes this rank's profile, then asks every other
/// rank of the job on this host to write theirs and waits until they have
/// (at most [`WAIT`]).
pub fn abort_flush(cfg: &Config) {
    // As the other ranks' (`abort`, not complete): the run ends here, and
    // no snapshot may replace this profile while the peers are waited for.
    profile::write(Reason::Abort);
    profile::write_traces();
    retire();
    let me = sys::getpid();
    let dir = bytes_to_path(&cfg.run_dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut waiting = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = marker_pid(&name.to_string_lossy()) else {
            continue;
        };
        if pid == me || !is_live_peer(&entry.path(), pid, &cfg.host) {
            continue;
        }
        let Ok(raw) = libc::pid_t::try_from(pid) else {
            continue;
        };
        // SAFETY: kill with a pid checked to be the process that wrote the
        // marker (same host, same start time).
        if unsafe { libc::kill(raw, snapshot_signal()) } == 0 {
            waiting.push(entry.path());
        }
    }
    let t0 = Instant::now();
    while !waiting.is_empty() && t0.elapsed() < WAIT {
        waiting.retain(|p| p.exists());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The pid in a marker's file name, `.peer-r<rank>-p<pid>`.
fn marker_pid(name: &str) -> Option<u64> {
    let rest = name.strip_prefix(MARKER_PREFIX)?;
    let (rank, pid) = rest.split_once("-p")?;
    rank.parse::<u32>().ok()?;
    pid.parse().ok()
}

/// Whether the marker at `path` was written by the process now running as
/// `pid` on this host.
fn is_live_peer(path: &std::path::Path, pid: u64, host: &[u8]) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let mut lines = text.lines();
    let (Some(h), Some(start)) = (lines.next(), lines.next()) else {
        return false;
    };
    h.as_bytes() == host && start.parse::<u64>().ok() == start_time(pid)
}

/// Start time of a process in clock ticks since boot (field 22 of
/// /proc/PID/stat), which tells a process from a later one with its pid.
fn start_time(pid: u64) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold blanks and parentheses: count
    // fields after its closing parenthesis.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

fn bytes_to_path(b: &[u8]) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    std::path::PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

/// Installs [`snapshot`] for the snapshot signal if nobody handles it.
fn install_handler() -> bool {
    let sig = snapshot_signal();
    // SAFETY: sigaction with valid structures.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction != libc::SIG_DFL
        {
            return false;
        }
        let mut new: libc::sigaction = std::mem::zeroed();
        new.sa_sigaction = snapshot as *const () as usize;
        new.sa_flags = libc::SA_RESTART | libc::SA_ONSTACK;
        libc::sigemptyset(&mut new.sa_mask);
        libc::sigaction(sig, &new, std::ptr::null_mut()) == 0
    }
}

/// Another rank is about to abort the job: write what we have (marked
/// incomplete, reason `abort`) and carry on until the launcher ends us.
extern "C" fn snapshot(_sig: c_int) {
    let errno = sys::errno();
    profile::write(Reason::Abort);
    retire();
    // SAFETY: restoring errno as the interrupted code left it.
    unsafe { *libc::__errno_location() = errno };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_names_parse_to_their_pid() {
        assert_eq!(marker_pid(".peer-r3-p4242"), Some(4242));
        assert_eq!(marker_pid(".peer-rx-p4242"), None);
        assert_eq!(marker_pid("profile-r3-p4242.json"), None);
    }

    #[test]
    fn this_process_has_a_start_time_and_its_marker_is_recognised() {
        let pid = crate::sys::getpid();
        let start = start_time(pid).expect("own /proc/self/stat");
        let dir = std::env::temp_dir().join(format!("regio-peers-{pid}"));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(format!(".peer-r0-p{pid}"));
        std::fs::write(&path, format!("hostA\n{start}\n")).expect("marker");
        assert!(is_live_peer(&path, pid, b"hostA"));
        assert!(!is_live_peer(&path, pid, b"hostB"), "other host");
        std::fs::write(&path, format!("hostA\n{}\n", start + 1)).expect("marker");
        assert!(!is_live_peer(&path, pid, b"hostA"), "pid reused");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
