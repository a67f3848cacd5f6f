//! Probe-cost compensation: every instrumented call inside a region cost
//! one enter/exit pair of the region's time. Subtracting `probe_ns` per
//! descendant call from inclusive time (per direct child call from
//! exclusive time), and the longest thread's calls from each process's
//! duration, gives figures closer to the uninstrumented program.

use std::collections::BTreeMap;

use crate::merge::{summarize, summarize_ranks, visit, Node, Report, Visit};

type ThreadKey = (u32, u32, u32);

fn sub(v: u64, calls: u64, probe_ns: f64) -> u64 {
    v.saturating_sub((calls as f64 * probe_ns).round() as u64)
}

/// Calls per thread of every node's strict descendants and of its direct
/// children, by preorder index, and of the whole tree. Bottom-up from the
/// last node back: iterative and linear at any depth.
struct Calls {
    below: Vec<BTreeMap<ThreadKey, u64>>,
    direct: Vec<BTreeMap<ThreadKey, u64>>,
    total: BTreeMap<ThreadKey, u64>,
}

fn calls_of(roots: &[Node]) -> Calls {
    let mut nodes: Vec<&Node> = Vec::new();
    let mut parent: Vec<Option<usize>> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    visit(roots, &mut |e| match e {
        Visit::Enter(n, _) => {
            parent.push(open.last().copied());
            open.push(nodes.len());
            nodes.push(n);
        }
        Visit::Leave(..) => {
            open.pop();
        }
    });
    let mut c = Calls {
        below: vec![BTreeMap::new(); nodes.len()],
        direct: vec![BTreeMap::new(); nodes.len()],
        total: BTreeMap::new(),
    };
    for i in (0..nodes.len()).rev() {
        let below = std::mem::take(&mut c.below[i]);
        let up = match parent[i] {
            Some(p) => &mut c.below[p],
            None => &mut c.total,
        };
        for (k, v) in &below {
            *up.entry(*k).or_default() += v;
        }
        for t in &nodes[i].per_thread {
            *up.entry((t.rank, t.pid, t.thread)).or_default() += t.calls;
        }
        if let Some(p) = parent[i] {
            for t in &nodes[i].per_thread {
                *c.direct[p].entry((t.rank, t.pid, t.thread)).or_default() += t.calls;
            }
        }
        c.below[i] = below;
    }
    c
}

/// Takes the probes of `below` (descendants' calls) from inclusive and
/// those of `direct` (children's calls) from exclusive times.
fn fix(
    n: &mut Node,
    below: &BTreeMap<ThreadKey, u64>,
    direct: &BTreeMap<ThreadKey, u64>,
    probe_ns: f64,
) {
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
}

/// Compensates `report` in place for a probe pair cost of `probe_ns`.
pub fn compensate(report: &mut Report, probe_ns: f64) {
    if probe_ns <= 0.0 {
        return;
    }
    let Calls {
        below,
        direct,
        total: calls,
    } = calls_of(&report.roots);
    // The same preorder as `calls_of`, through mutable references.
    let mut i = 0;
    let mut stack = vec![report.roots.iter_mut()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(n) => {
                if let (Some(b), Some(d)) = (below.get(i), direct.get(i)) {
                    fix(n, b, d, probe_ns);
                }
                i += 1;
                stack.push(n.children.iter_mut());
            }
            None => {
                stack.pop();
            }
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
