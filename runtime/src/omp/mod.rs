//! OpenMP teams: fork and join timing, and attaching every team thread's
//! regions under the master's parallel region.
//!
//! The instrumenter rewrites `#pragma omp parallel` / `!$omp parallel` as
//!
//! ```text
//! team = regio_omp_fork(P)            encountering thread, before the construct
//! parallel firstprivate(team)
//!     regio_omp_begin(team, F)        every thread, first thing in the region
//!     ... body; instrumented barrier ...
//!     regio_omp_end(team, J)          every thread, last thing in the region
//! regio_omp_join(team)                encountering thread, after the construct
//! ```
//!
//! * The master enters P at the fork. Another team thread mirrors the
//!   master's region path in its own arena (nodes that count nothing),
//!   stands on it with a virtual frame, and enters P there with the fork
//!   tick as its start; the merge keys nodes by path, so all threads' P
//!   nodes become one node with per-thread figures.
//! * Fork: each thread records a child F of P from the fork tick to its
//!   begin. Join: at `join`, the master records for every team thread a
//!   child J of that thread's P from the thread's end to the join tick
//!   (atomically: it writes nodes of other threads' arenas, which their
//!   owners never write). J of a worker lies after its P frame closed.
//!
//! * Trace mode: each team thread's J is an enter/exit pair in its own
//!   trace (owners alone write their buffers). The master writes its own
//!   at the join. A worker enters J at its end, when the join tick is not
//!   known yet: the master hands it to the worker's buffer at the join
//!   (`TraceBuf::join_done`, an atomic store) and the worker writes the
//!   exit before its next team (`begin`, `fork`), or the end-of-run
//!   writer does.
//!
//! Teams live in the master's thread state, one per nesting level, reused
//! across forks: after the first fork at a level nothing allocates.

pub mod team;

use std::ptr;
use std::sync::atomic::Ordering::*;

use std::sync::atomic::AtomicU64;

use regio_trace_format::Event;

use crate::dynsym::Lazy;
use crate::node::{Arena, Node, ROOT};
use crate::omp::team::{Team, MAX_NEST, MAX_TEAM};
use crate::thread::ThreadState;
use crate::ticks::Clock;
use crate::trace::TraceBuf;

/// Longest master path a worker mirrors; deeper paths attach at the
/// deepest mirrored level.
const MAX_PATH: usize = 256;

/// Enters parallel region `region` on the encountering thread and opens a
/// team. Returns the team token (0 when nothing is measured).
///
/// # Safety
/// `t` must be the calling thread's own state.
pub unsafe fn fork(t: &ThreadState, region: u32, now: &impl Clock) -> u64 {
    let level = *t.omp.forked.get();
    if level >= MAX_NEST {
        return 0;
    }
    if let Some(tb) = t.trace() {
        tb.close_join(now.now());
    }
    let tick = t.enter(region, now);
    if (*t.top_node()).region != region {
        return 0; // the arena is full: no frame was pushed
    }
    let slot = &mut (*t.omp.teams.get())[level];
    if slot.is_null() {
        // Leaked like every thread state: another thread may still read a
        // team after its master ended.
        *slot = Box::into_raw(Box::new(Team::new()));
    }
    let team = &**slot;
    team.region.store(region, Relaxed);
    team.fork_tick.store(tick, Relaxed);
    team.master
        .store(&t.arena as *const Arena as *mut Arena, Relaxed);
    team.master_node.store(t.top_node() as *mut Node, Relaxed);
    team.ended.store(0, Relaxed);
    team.master_slot.store(u32::MAX, Relaxed);
    if let Some(tb) = t.trace() {
        team.serial
            .store(NEXT_TEAM.fetch_add(1, Relaxed) + 1, Relaxed);
        let team_size = omp_int(&OMP_GET_MAX_THREADS).unwrap_or(0);
        tb.event(tick, &Event::OmpFork { region, team_size });
    }
    *t.omp.forked.get() = level + 1;
    // The token crosses into the team through the program's own variable;
    // OpenMP's fork makes these stores visible to the team threads.
    std::sync::atomic::fence(Release);
    team as *const Team as u64
}

/// A team thread starts the parallel region's body.
///
/// # Safety
/// `t` must be the calling thread's own state; `token` 0 or from `fork`.
pub unsafe fn begin(t: &ThreadState, token: u64, fork_region: u32, now: u64) {
    let Some(team) = team_of(token) else { return };
    if let Some(tb) = t.trace() {
        tb.close_join(now);
    }
    std::sync::atomic::fence(Acquire);
    let fork_tick = team.fork_tick.load(Relaxed);
    let master = team.master.load(Relaxed);
    if !ptr::eq(master, &t.arena) {
        let master_node = team.master_node.load(Relaxed);
        let Some(base) = mirror_parent(t, &*master, &*master_node) else {
            return;
        };
        t.push_virtual(base, fork_tick);
        t.enter(team.region.load(Relaxed), &At(fork_tick));
    }
    t.record_child(fork_region, fork_tick, now);
    if let Some(tb) = t.trace() {
        let event = Event::OmpTeamBegin {
            team: team.serial.load(Relaxed),
            thread_num: omp_int(&OMP_GET_THREAD_NUM).unwrap_or(0),
            team_size: omp_int(&OMP_GET_NUM_THREADS).unwrap_or(0),
        };
        tb.event(now, &event);
    }
}

/// A team thread finishes the parallel region's body.
///
/// # Safety
/// `t` must be the calling thread's own state; `token` 0 or from `fork`.
pub unsafe fn end(t: &ThreadState, token: u64, join_region: u32, now: &impl Clock) {
    let Some(team) = team_of(token) else { return };
    let region = team.region.load(Relaxed);
    let is_master = ptr::eq(team.master.load(Relaxed), &t.arena);
    // The J node hangs under this thread's P node (the innermost frame of
    // P; when measurement was off at `begin`, there is none).
    let top = &*t.top_node();
    let join_node = if top.region == region {
        t.child_of(top, join_region)
    } else {
        ptr::null()
    };
    let tick = now.now();
    if let Some(tb) = t.trace() {
        let team = team.serial.load(Relaxed);
        tb.event(tick, &Event::OmpTeamEnd { team });
    }
    if !is_master {
        t.exit(region, &At(tick));
        t.pop_virtual();
    }
    if join_node.is_null() {
        return;
    }
    let slot = team.ended.fetch_add(1, Relaxed) as usize;
    if slot >= MAX_TEAM {
        return;
    }
    team.ends[slot].store(tick, Relaxed);
    if is_master {
        team.master_slot.store(slot as u32, Relaxed);
    }
    if let (false, Some(tb)) = (is_master, t.trace()) {
        // The worker's J, after its P closed; the master gives the exit.
        tb.open_join(tick, join_region);
        team.traces[slot].store(tb as *const TraceBuf as *mut TraceBuf, Relaxed);
    }
    team.joins[slot].store(join_node as *mut Node, Release);
}

/// The encountering thread continues after the construct: records every
/// thread's join time and leaves the parallel region.
///
/// # Safety
/// `t` must be the calling thread's own state; `token` 0 or from `fork`.
pub unsafe fn join(t: &ThreadState, token: u64, now: &impl Clock) {
    let Some(team) = team_of(token) else { return };
    if !ptr::eq(team.master.load(Relaxed), &t.arena) {
        return;
    }
    let tick = now.now();
    let n = (team.ended.load(Acquire) as usize).min(MAX_TEAM);
    let master_slot = team.master_slot.load(Relaxed) as usize;
    for slot in 0..n {
        let j = team.joins[slot].load(Acquire);
        if j.is_null() {
            continue;
        }
        let end = team.ends[slot].load(Relaxed);
        let dur = tick.saturating_sub(end);
        record_shared(&*j, dur);
        if slot == master_slot {
            // The master's J lies inside its open P frame.
            t.add_child_time(dur);
            if let Some(tb) = t.trace() {
                tb.enter(end, (*j).region);
                tb.exit(tick, (*j).region);
            }
        }
        team.joins[slot].store(ptr::null_mut(), Relaxed);
        let worker = team.traces[slot].swap(ptr::null_mut(), Relaxed);
        if !worker.is_null() {
            (*worker).join_done(tick);
        }
    }
    if let Some(tb) = t.trace() {
        let region = team.region.load(Relaxed);
        tb.event(tick, &Event::OmpJoin { region });
    }
    t.exit(team.region.load(Relaxed), &At(tick));
    let level = &mut *t.omp.forked.get();
    *level = level.saturating_sub(1);
}

/// Forks so far in the process (trace team numbers start at 1).
static NEXT_TEAM: AtomicU64 = AtomicU64::new(0);

static OMP_GET_THREAD_NUM: Lazy = Lazy::new(c"omp_get_thread_num");
static OMP_GET_NUM_THREADS: Lazy = Lazy::new(c"omp_get_num_threads");
static OMP_GET_MAX_THREADS: Lazy = Lazy::new(c"omp_get_max_threads");

/// One of the OpenMP library's `int f(void)` queries, if it is loaded
/// (the runtime links no OpenMP). Trace mode only.
fn omp_int(f: &Lazy) -> Option<u32> {
    let addr = f.get()?;
    // SAFETY: the symbol is the OpenMP library's `int name(void)`.
    let f: extern "C" fn() -> libc::c_int = unsafe { std::mem::transmute(addr) };
    u32::try_from(f()).ok()
}

fn team_of(token: u64) -> Option<&'static Team> {
    if token == 0 {
        None
    } else {
        // SAFETY: non-zero tokens come from `fork`, and teams are leaked.
        Some(unsafe { &*(token as usize as *const Team) })
    }
}

/// A call of `node` recorded by a thread that does not own it. Its owner
/// never writes these J nodes itself, so read-modify-write atomics keep
/// several masters (nested teams) from losing updates.
fn record_shared(node: &Node, dur: u64) {
    node.calls.fetch_add(1, Relaxed);
    node.inclusive.fetch_add(dur, Relaxed);
    node.exclusive.fetch_add(dur, Relaxed);
    node.min.fetch_min(dur, Relaxed);
    node.max.fetch_max(dur, Relaxed);
}

/// The node of `t`'s arena at the path of `master_node`'s parent in the
/// master's arena (creating uncounted nodes as needed).
unsafe fn mirror_parent(
    t: &ThreadState,
    master: &Arena,
    master_node: &Node,
) -> Option<*const Node> {
    let key = master_node as *const Node;
    if *t.omp.attach_key.get() == key {
        return Some(*t.omp.attach_node.get());
    }
    let mut path = [0u32; MAX_PATH];
    let mut len = 0;
    let mut n = master_node.parent;
    while n != ROOT {
        let node = master.get(n);
        if len < MAX_PATH {
            path[len] = node.region;
            len += 1;
        }
        n = node.parent;
    }
    let mut here: *const Node = t.arena.get(ROOT);
    for &region in path[..len].iter().rev() {
        here = t.child_of(&*here, region);
        if here.is_null() {
            return None;
        }
    }
    *t.omp.attach_key.get() = key;
    *t.omp.attach_node.get() = here;
    Some(here)
}

/// A clock stopped at one tick.
struct At(u64);

impl Clock for At {
    fn now(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{totals, StackIndex};
    use std::cell::Cell;

    struct Fake(Cell<u64>);
    impl Clock for Fake {
        fn now(&self) -> u64 {
            self.0.get()
        }
    }
    impl Fake {
        fn at(&self, t: u64) -> &Self {
            self.0.set(t);
            self
        }
    }

    /// (path of regions, calls, inclusive, exclusive) of every node.
    fn nodes(t: &ThreadState) -> Vec<(Vec<u32>, u64, u64, u64)> {
        let (s, d) = t.stack_snapshot();
        let index = unsafe { StackIndex::scanning(s, d) };
        (1..t.arena.len())
            .map(|i| {
                let n = t.arena.get(i);
                let mut path = vec![n.region];
                let mut p = n.parent;
                while p != ROOT {
                    path.insert(0, t.arena.get(p).region);
                    p = t.arena.get(p).parent;
                }
                let tot = totals(n, &index, 0);
                (path, tot.calls, tot.inclusive, tot.exclusive)
            })
            .collect()
    }

    #[test]
    fn a_team_attaches_under_the_masters_path_with_fork_and_join_times() {
        // main(1) -> parallel(10), fork child 11, join child 12; the worker
        // runs a loop region 20 inside.
        let (master, worker) = (
            ThreadState::for_fake_clock(1),
            ThreadState::for_fake_clock(2),
        );
        let c = Fake(Cell::new(0));
        unsafe {
            master.enter(1, c.at(0));
            let token = fork(&master, 10, c.at(100));
            begin(&master, token, 11, 103);
            begin(&worker, token, 11, 110);
            worker.enter(20, c.at(120));
            worker.exit(20, c.at(150));
            end(&worker, token, 12, c.at(160));
            end(&master, token, 12, c.at(170));
            join(&master, token, c.at(180));
            master.exit(1, c.at(200));
        }
        assert_eq!(worker.depth(), 1);
        assert_eq!(master.depth(), 1);
        let m = nodes(&master);
        assert_eq!(
            m,
            [
                (vec![1], 1, 200, 120),
                (vec![1, 10], 1, 80, 80 - 3 - 10),
                (vec![1, 10, 11], 1, 3, 3),
                (vec![1, 10, 12], 1, 10, 10),
            ]
        );
        let w = nodes(&worker);
        assert_eq!(
            w,
            [
                // Mirrored path node: no calls, no time.
                (vec![1], 0, 0, 0),
                // Fork tick to end: fork wait 10, loop 30, rest 20.
                (vec![1, 10], 1, 60, 60 - 10 - 30),
                (vec![1, 10, 11], 1, 10, 10),
                (vec![1, 10, 20], 1, 30, 30),
                // Recorded by the master at the join: 180 - 160.
                (vec![1, 10, 12], 1, 20, 20),
            ]
        );
    }

    #[test]
    fn a_reused_team_keeps_one_node_set_and_nested_teams_stack() {
        let (master, worker) = (
            ThreadState::for_fake_clock(1),
            ThreadState::for_fake_clock(2),
        );
        let c = Fake(Cell::new(0));
        unsafe {
            for k in 0..3u64 {
                let b = k * 1000;
                let outer = fork(&master, 10, c.at(b));
                begin(&master, outer, 11, b + 1);
                begin(&worker, outer, 11, b + 2);
                // The worker forks a nested team of its own.
                let inner = fork(&worker, 30, c.at(b + 10));
                begin(&worker, inner, 31, b + 11);
                end(&worker, inner, 32, c.at(b + 20));
                join(&worker, inner, c.at(b + 21));
                end(&worker, outer, 12, c.at(b + 30));
                end(&master, outer, 12, c.at(b + 31));
                join(&master, outer, c.at(b + 40));
            }
        }
        let w = nodes(&worker);
        let paths: Vec<&Vec<u32>> = w.iter().map(|x| &x.0).collect();
        assert_eq!(
            paths,
            [
                &vec![10],
                &vec![10, 11],
                &vec![10, 30],
                &vec![10, 30, 31],
                &vec![10, 30, 32],
                &vec![10, 12]
            ]
        );
        assert!(w.iter().all(|x| x.1 == 3), "{w:?}");
        assert_eq!(*unsafe { &*worker.omp.forked.get() }, 0);
        assert_eq!(*unsafe { &*master.omp.forked.get() }, 0);
    }
}
