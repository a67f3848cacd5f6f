//! Probe-cost compensation: every instrumented call inside a region cost
//! one enter/exit pair of the region's time. Subtracting `probe_ns` per
//! descendant call from inclusive time (per direct child call from
//! exclusive time), and the longest thread's calls from each process's
//! duration, gives figures closer to the uninstrumented program.

use std::collections::BTreeMap;

use crate::merge::{summarize, summarize_ranks, Node, Report};

type ThreadKey = (u32, u32, u32);

fn sub(v: u64, calls: u64, probe_ns: f64) -> u64 {
    v.saturating_sub((calls as f64 * probe_ns).round() as u64)
}

/// Returns the calls of `n`'s subtree per thread (n included).
fn fix(n: &mut Node, probe_ns: f64) -> BTreeMap<ThreadKey, u64> {
    let mut below: BTreeMap<ThreadKey, u64> = BTreeMap::new();
    let mut direct: BTreeMap<ThreadKey, u64> = BTreeMap::new();
    for c in &mut n.children {
        for t in &c.per_thread {
            *direct.entry((t.rank, t.pid, t.thread)).or_default() += t.calls;
        }
        for (k, v) in fix(c, probe_ns) {
            *below.entry(k).or_default() += v;
        }
    }
    let (mut incl, mut excl) = (0u64, 0u64);
    for t in &mut n.per_thread {
        let k = (t.rank, t.pid, t.thread);
        t.inclusive_ns = sub(
            t.inclusive_ns,
            below.get(&k).copied().unwrap_or(0),
            probe_ns,
        );
        t.exclusive_ns = sub(
            t.exclusive_ns,
            direct.get(&k).copied().unwrap_or(0),
            probe_ns,
        );
        incl += t.inclusive_ns;
        excl += t.exclusive_ns;
    }
    n.inclusive_ns = incl;
    n.exclusive_ns = excl;
    n.threads = summarize(&n.per_thread);
    for r in &mut n.per_rank {
        let threads = n
            .per_thread
            .iter()
            .filter(|t| (t.rank, t.pid) == (r.rank, r.pid));
        let (i, e) = threads.fold((0, 0), |(i, e), t| (i + t.inclusive_ns, e + t.exclusive_ns));
        r.inclusive_ns = i;
        r.exclusive_ns = e;
    }
    n.ranks = summarize_ranks(&n.per_rank);
    for t in &n.per_thread {
        *below.entry((t.rank, t.pid, t.thread)).or_default() += t.calls;
    }
    below
}

/// Compensates `report` in place for a probe pair cost of `probe_ns`.
pub fn compensate(report: &mut Report, probe_ns: f64) {
    if probe_ns <= 0.0 {
        return;
    }
    let mut calls: BTreeMap<ThreadKey, u64> = BTreeMap::new();
    for r in &mut report.roots {
        for (k, v) in fix(r, probe_ns) {
            *calls.entry(k).or_default() += v;
        }
    }
    for p in &mut report.processes {
        let longest = calls
            .iter()
            .filter(|((rank, pid, _), _)| (*rank, *pid) == (p.rank, p.pid))
            .map(|(_, c)| *c)
            .max()
            .unwrap_or(0);
        p.duration_ns = sub(p.duration_ns, longest, probe_ns);
    }
    report.wall_ns = report
        .processes
        .iter()
        .map(|p| p.duration_ns)
        .max()
        .unwrap_or(report.wall_ns);
    crate::merge::sort_tree(&mut report.roots);
}
