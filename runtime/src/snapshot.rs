//! `REGIO_SNAPSHOT=SECONDS`: a thread of the runtime writes the profile
//! every SECONDS while the program runs, so a SIGKILL (OOM killer, batch
//! time limit) leaves the last snapshot instead of nothing.
//!
//! The thread reads the live DRG the way a signal handler does (nodes never
//! move, every figure is an atomic the owner stores plainly), so probes pay
//! nothing for it. A snapshot is an ordinary profile write (`profile`,
//! temporary file + rename, under the writer lock) with `reason`
//! `snapshot` and `"snapshot":true`; once the write at the end of the run
//! has begun (exit, fatal signal, MPI_Abort) no snapshot replaces it.
//!
//! The thread blocks every signal (they go to the program's threads, as
//! without it) and is never measured. It does not keep the process alive:
//! `exit()` ends it like any thread, and when every other thread has ended
//! (the program's last thread left by `pthread_exit`), it calls `exit(0)`,
//! which is what the last thread's end would have done.
//!
//! fork: threads do not survive `fork`, so a forked child takes no
//! snapshots; it writes its profile at its end as before. A fork made
//! while the snapshot thread writes copies the held writer lock into the
//! child: a child handler releases it there.

use crate::out::warn;
use crate::profile::{self, Reason};

/// How often the thread looks whether it is the last one left.
const LOOK_MS: u64 = 200;

/// Starts the snapshot thread (at start-up, once) when `period_ms` > 0.
pub fn start(period_ms: u64) {
    if period_ms == 0 {
        return;
    }
    // SAFETY: plain signal-mask calls on this thread, restored below; the
    // new thread inherits the full mask.
    let old = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        old
    };
    let spawned = std::thread::Builder::new()
        .name("regio-snapshot".into())
        .spawn(move || run(period_ms));
    // SAFETY: restoring the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
    // SAFETY: registering a plain extern "C" function; a failure leaves a
    // child forked during a snapshot without its profile at exit.
    unsafe { libc::pthread_atfork(None, None, Some(child_after_fork)) };
    if spawned.is_err() {
        warn(
            &[b"REGIO_SNAPSHOT: cannot start the snapshot thread; the profile is written at the end only"],
            None,
        );
    }
}

/// A fork during a snapshot write copies the writer lock into the child,
/// where its holder does not exist.
extern "C" fn child_after_fork() {
    profile::release_writer_in_child();
}

fn run(period_ms: u64) {
    let mut waited = 0;
    loop {
        let step = LOOK_MS.min(period_ms - waited);
        sleep_ms(step);
        waited += step;
        if alone() {
            // SAFETY: the process's last program thread has ended: end the
            // process as that would have (exit hooks write the profile).
            unsafe { libc::exit(0) };
        }
        if waited >= period_ms {
            waited = 0;
            profile::write(Reason::Snapshot);
        }
    }
}

fn sleep_ms(ms: u64) {
    let ts = libc::timespec {
        tv_sec: (ms / 1000) as libc::time_t,
        tv_nsec: ((ms % 1000) * 1_000_000) as libc::c_long,
    };
    // SAFETY: nanosleep has no preconditions; every signal is blocked here,
    // so it is not interrupted.
    unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) };
}

/// Whether this thread is the only one left in the process: the only
/// task of `/proc/self/task` that is not a zombie (a main thread that left
/// by `pthread_exit` stays a zombie, and counted in `/proc/self/stat`,
/// while other threads run).
fn alone() -> bool {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    let mut live = 0;
    for t in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
            continue; // ended meanwhile
        };
        // The command name (field 2) may hold blanks and parentheses: the
        // state follows the last `)`.
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        if !matches!(state, Some("Z" | "X")) {
            live += 1;
            if live > 1 {
                return false;
            }
        }
    }
    live == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_process_is_not_alone() {
        // The test harness runs this on a thread of its own besides main.
        assert!(!alone());
    }
}
