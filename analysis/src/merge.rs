//! Merging the sub-DRGs of every thread of every process into one DRG per
//! run. A merged node is identified by its path of region ids from the root,
//! so the same region reached through different callers stays apart, and the
//! same path on different threads or ranks becomes one node.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use regio_idf::rundir::{CounterInfo, NodeRecord, Profile};
use serde::{Deserialize, Serialize};

use crate::comm::Communication;
use crate::regions::{RegionInfo, RegionTable};
use crate::user_events::UserEvents;
use crate::RunDir;

/// The merged DRG of one run, with what the header of a report shows.
#[derive(Debug, Clone)]
pub struct Report {
    pub run_dir: PathBuf,
    /// argv of the first process (lowest rank).
    pub command: Vec<String>,
    /// Every process wrote a complete profile.
    pub complete: bool,
    /// `exit`, `signal` or `flush`: that of the first process killed by a
    /// signal, else of the first incomplete one, else of the first one.
    pub reason: String,
    pub signal: Option<i32>,
    /// Sorted by (rank, pid).
    pub processes: Vec<ProcessSummary>,
    /// Threads over all processes.
    pub threads: usize,
    /// Total time of the run: the longest process duration.
    pub wall_ns: u64,
    /// Clock source; distinct sources joined by `,` if processes differ.
    pub clock: String,
    /// Where region names came from: the IDF, and the number of distinct
    /// region descriptors the program wrote (Rust regions).
    pub idf_path: Option<PathBuf>,
    pub descriptors: usize,
    pub warnings: Vec<String>,
    /// Root nodes, by inclusive time (descending), then region id.
    pub roots: Vec<Node>,
    /// Per process, when the run has MPI regions (empty otherwise).
    pub mpi: Vec<RankMpi>,
    /// Counters any process asked for (`REGIO_COUNTERS`), in first-seen
    /// order: available only where every process that asked could count
    /// it (see `run_counters`). Empty when none were asked for.
    pub counters: Vec<CounterInfo>,
    /// MPI messages per node and peer, the rank matrix, clock offsets.
    pub comm: Communication,
    /// User events (`regio_event`) per node and name.
    pub user_events: UserEvents,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProcessSummary {
    pub rank: u32,
    pub pid: u32,
    pub host: String,
    pub duration_ns: u64,
    pub complete: bool,
    pub reason: String,
    pub signal: Option<i32>,
    pub threads: usize,
    /// The counters this process asked for, with their availability.
    pub counters: Vec<CounterInfo>,
}

/// One node of the merged DRG: a region in the context of its caller path.
///
/// A DRG can be as deep as the program's chain of distinct nested regions
/// (100,000 and more), so everything that goes through the tree is
/// iterative: `walk`, `clone` and `drop` (derived ones would recurse once
/// per level and overflow the stack). `Debug` and `PartialEq` stay derived,
/// for tests on small trees.
#[derive(Debug, PartialEq)]
pub struct Node {
    pub region: u32,
    /// Shared by every node of the region (a DRG can have a million nodes
    /// of a few regions).
    pub info: Arc<RegionInfo>,
    pub calls: u64,
    pub recursive_calls: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    /// Shortest and longest single call on any thread (0 if none).
    pub min_ns: u64,
    pub max_ns: u64,
    /// Frames still open when the profiles were written.
    pub open: u64,
    /// Async regions: polls (`calls` counts futures, the times above are
    /// time inside polls) and first-poll-to-completion wall time.
    pub polls: u64,
    pub span_ns: u64,
    // --- REGIO_THROTTLE (h-throttle) ---
    /// The region was throttled on some thread here: the calls counted
    /// until then, summed over the throttled threads (their later calls
    /// were neither timed nor counted: the parent's exclusive time holds
    /// them). None: measured throughout.
    pub throttled_at: Option<u64>,
    // --- end REGIO_THROTTLE ---
    /// Counter totals (like inclusive time: outermost frames) summed over
    /// the threads that counted them here; empty without counters.
    pub counters: BTreeMap<String, u64>,
    /// Every (rank, pid, thread) that visited the node, in that order.
    pub per_thread: Vec<ThreadStat>,
    pub threads: ThreadSummary,
    /// The same figures summed per process (rank), in rank order, and
    /// inclusive time across ranks: imbalance between ranks.
    pub per_rank: Vec<RankStat>,
    pub ranks: RankSummary,
    /// By inclusive time (descending), then region id.
    pub children: Vec<Node>,
}

/// One process's share of a node: its threads summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankStat {
    pub rank: u32,
    pub pid: u32,
    pub calls: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
}

/// Inclusive time across the processes that visited a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RankSummary {
    pub count: usize,
    pub min_inclusive_ns: u64,
    /// Rounded to the nearest nanosecond.
    pub mean_inclusive_ns: u64,
    pub max_inclusive_ns: u64,
    /// The first rank with the maximum.
    pub max_rank: u32,
}

/// Per process: time inside MPI calls against time outside them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankMpi {
    pub rank: u32,
    pub pid: u32,
    /// The process's duration.
    pub wall_ns: u64,
    /// Inclusive time of outermost `mpi_*` regions, summed over the
    /// process's threads.
    pub mpi_ns: u64,
    /// `wall_ns - mpi_ns` (0 if threads made MPI time exceed the wall).
    pub outside_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadStat {
    pub rank: u32,
    pub pid: u32,
    pub thread: u32,
    pub calls: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    /// This thread's counter totals on the node (empty when it counted
    /// none here).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, u64>,
}

/// Inclusive time across the threads that visited a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ThreadSummary {
    pub count: usize,
    pub min_inclusive_ns: u64,
    /// Rounded to the nearest nanosecond.
    pub mean_inclusive_ns: u64,
    pub max_inclusive_ns: u64,
    /// The first thread (in rank, pid, thread order) with the maximum.
    pub max_rank: u32,
    pub max_pid: u32,
    pub max_thread: u32,
}

impl Node {
    /// Time an async region spent waiting between polls: its span minus
    /// the time inside polls (None for ordinary regions).
    pub fn wait_ns(&self) -> Option<u64> {
        (self.polls > 0).then(|| self.span_ns.saturating_sub(self.inclusive_ns))
    }

    /// Share of the run's wall time, in percent. Inclusive time is summed
    /// over threads, so parallel regions can exceed 100.
    pub fn percent(&self, wall_ns: u64) -> f64 {
        if wall_ns == 0 {
            0.0
        } else {
            self.inclusive_ns as f64 * 100.0 / wall_ns as f64
        }
    }

    /// This node and every descendant, depth first, parents before children.
    /// Iterative: any depth.
    pub fn walk(&self, f: &mut dyn FnMut(&Node, &[&Node])) {
        visit(std::slice::from_ref(self), &mut |e| {
            if let Visit::Enter(n, path) = e {
                f(n, path);
            }
        });
    }

    /// A copy of everything but the children.
    fn shallow_clone(&self) -> Node {
        Node {
            region: self.region,
            info: self.info.clone(),
            calls: self.calls,
            recursive_calls: self.recursive_calls,
            inclusive_ns: self.inclusive_ns,
            exclusive_ns: self.exclusive_ns,
            min_ns: self.min_ns,
            max_ns: self.max_ns,
            open: self.open,
            polls: self.polls,
            span_ns: self.span_ns,
            throttled_at: self.throttled_at,
            counters: self.counters.clone(),
            per_thread: self.per_thread.clone(),
            threads: self.threads,
            per_rank: self.per_rank.clone(),
            ranks: self.ranks,
            children: Vec::with_capacity(self.children.len()),
        }
    }
}

impl Clone for Node {
    /// Iterative: copies the nodes in preorder, then attaches every node to
    /// its parent from the last one back (a node's subtree is complete when
    /// its turn comes).
    fn clone(&self) -> Node {
        let mut copies: Vec<Option<Node>> = Vec::new();
        let mut parents: Vec<usize> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        visit(std::slice::from_ref(self), &mut |e| match e {
            Visit::Enter(n, _) => {
                parents.push(open.last().copied().unwrap_or(usize::MAX));
                open.push(copies.len());
                copies.push(Some(n.shallow_clone()));
            }
            Visit::Leave(..) => {
                open.pop();
            }
        });
        for i in (1..copies.len()).rev() {
            let Some(mut n) = copies[i].take() else {
                continue;
            };
            // Children were pushed last first.
            n.children.reverse();
            if let Some(Some(p)) = copies.get_mut(parents[i]) {
                p.children.push(n);
            }
        }
        match copies.first_mut().and_then(Option::take) {
            Some(mut root) => {
                root.children.reverse();
                root
            }
            None => self.shallow_clone(),
        }
    }
}

impl Drop for Node {
    /// Iterative: the descendants are moved onto one list and dropped one
    /// by one, each with no children left.
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut n) = pending.pop() {
            pending.append(&mut n.children);
        }
    }
}

/// One step of [`visit`]: a node entered or left, with the path from its
/// root (the node last).
pub(crate) enum Visit<'a, 'p> {
    Enter(&'a Node, &'p [&'a Node]),
    Leave(&'a Node, &'p [&'a Node]),
}

/// Depth-first over `roots` and their descendants, children in order, with
/// an explicit stack: any depth, linear time.
pub(crate) fn visit<'a>(roots: &'a [Node], f: &mut dyn FnMut(Visit<'a, '_>)) {
    let mut path: Vec<&'a Node> = Vec::new();
    let mut stack: Vec<std::slice::Iter<'a, Node>> = vec![roots.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(n) => {
                path.push(n);
                f(Visit::Enter(n, &path));
                stack.push(n.children.iter());
            }
            None => {
                stack.pop();
                if let Some(&n) = path.last() {
                    f(Visit::Leave(n, &path));
                    path.pop();
                }
            }
        }
    }
}

impl Report {
    /// Every node depth first; the slice is the path from a root to the node
    /// (the node last). Iterative: any depth.
    pub fn walk(&self, f: &mut dyn FnMut(&Node, &[&Node])) {
        visit(&self.roots, &mut |e| {
            if let Visit::Enter(n, path) = e {
                f(n, path);
            }
        });
    }
}

type ThreadKey = (u32, u32, u32);

#[derive(Default)]
struct Acc {
    region: u32,
    calls: u64,
    recursive_calls: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
    min_ns: Option<u64>,
    max_ns: u64,
    open: u64,
    polls: u64,
    span_ns: u64,
    throttled_at: Option<u64>,
    counters: BTreeMap<String, u64>,
    /// Sorted by (rank, pid, thread). A Vec, not a map: most merged nodes
    /// have one thread, and a million of them must stay small (a map's
    /// first entry costs a node of eleven).
    per_thread: Vec<ThreadStat>,
    children: HashMap<u32, usize>,
}

/// Arena of merged nodes; index 0 is a virtual root above every root node.
struct Tree {
    nodes: Vec<Acc>,
}

impl Tree {
    fn child(&mut self, parent: usize, region: u32) -> usize {
        if let Some(&i) = self.nodes[parent].children.get(&region) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(Acc {
            region,
            ..Acc::default()
        });
        self.nodes[parent].children.insert(region, i);
        i
    }

    /// `names`: the process's available counters, which `n.counters`
    /// align with.
    fn add(&mut self, at: usize, key: ThreadKey, n: &NodeRecord, names: &[&str]) {
        let a = &mut self.nodes[at];
        a.calls = a.calls.saturating_add(n.calls);
        a.recursive_calls = a.recursive_calls.saturating_add(n.recursive_calls);
        a.inclusive_ns = a.inclusive_ns.saturating_add(n.inclusive_ns);
        a.exclusive_ns = a.exclusive_ns.saturating_add(n.exclusive_ns);
        // A node that was never entered carries no call durations.
        if n.calls > 0 {
            a.min_ns = Some(a.min_ns.map_or(n.min_ns, |m| m.min(n.min_ns)));
            a.max_ns = a.max_ns.max(n.max_ns);
        }
        a.open = a.open.saturating_add(u64::from(n.open));
        a.polls = a.polls.saturating_add(n.polls);
        a.span_ns = a.span_ns.saturating_add(n.span_ns);
        if let Some(at) = n.throttled_at {
            a.throttled_at = Some(a.throttled_at.unwrap_or(0).saturating_add(at));
        }
        let counted: Vec<(&str, u64)> = match &n.counters {
            Some(v) => names.iter().copied().zip(v.iter().copied()).collect(),
            None => Vec::new(),
        };
        add_counters(&mut a.counters, &counted);
        // OpenMP team threads mirror the master's path with nodes that count
        // nothing; they did not visit those regions.
        if n.calls == 0 && n.inclusive_ns == 0 && n.open == 0 {
            return;
        }
        let t = thread_stat(&mut a.per_thread, key);
        add_counters(&mut t.counters, &counted);
        t.calls = t.calls.saturating_add(n.calls);
        t.inclusive_ns = t.inclusive_ns.saturating_add(n.inclusive_ns);
        t.exclusive_ns = t.exclusive_ns.saturating_add(n.exclusive_ns);
    }

    /// The merged roots. Iterative: a child always comes after its parent
    /// in the arena, so building from the last node back finds every
    /// node's children built.
    ///
    /// Memory stays near one copy of the tree: the merged figures are
    /// popped off the arena (which shrinks as it empties), and a built
    /// node waits in `pending` only until its parent takes it.
    fn build(mut self, regions: &RegionTable) -> Vec<Node> {
        let mut pending: HashMap<usize, Node> = HashMap::new();
        // One description per region, shared by its nodes.
        let mut infos: HashMap<u32, Arc<RegionInfo>> = HashMap::new();
        while let Some(a) = self.nodes.pop() {
            let i = self.nodes.len();
            // Popped figures still hold their pages until the arena is
            // reallocated smaller (large blocks shrink in place).
            if self.nodes.capacity() > 4096 && i < self.nodes.capacity() / 4 * 3 {
                self.nodes.shrink_to(i);
            }
            // Exactly as many as there are (collecting a filter would
            // leave up to half of the Vec unused: a million nodes, 200 MB).
            let mut children: Vec<Node> = Vec::with_capacity(a.children.len());
            children.extend(a.children.values().filter_map(|c| pending.remove(c)));
            sort_nodes(&mut children);
            if i == 0 {
                return children;
            }
            let info = infos
                .entry(a.region)
                .or_insert_with(|| Arc::new(regions.info(a.region)))
                .clone();
            pending.insert(i, Self::node(a, info, children));
        }
        Vec::new()
    }

    fn node(a: Acc, info: Arc<RegionInfo>, children: Vec<Node>) -> Node {
        let per_thread = a.per_thread;
        let per_rank = per_rank(&per_thread);
        Node {
            region: a.region,
            info,
            calls: a.calls,
            recursive_calls: a.recursive_calls,
            inclusive_ns: a.inclusive_ns,
            exclusive_ns: a.exclusive_ns,
            min_ns: a.min_ns.unwrap_or(0),
            max_ns: a.max_ns,
            open: a.open,
            polls: a.polls,
            span_ns: a.span_ns,
            throttled_at: a.throttled_at,
            counters: a.counters,
            threads: summarize(&per_thread),
            per_thread,
            ranks: summarize_ranks(&per_rank),
            per_rank,
            children,
        }
    }
}

/// Re-sorts every level (after figures changed, e.g. by compensation).
/// Iterative: any depth.
pub(crate) fn sort_tree(nodes: &mut [Node]) {
    sort_nodes(nodes);
    let mut stack = vec![nodes.iter_mut()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(n) => {
                sort_nodes(&mut n.children);
                stack.push(n.children.iter_mut());
            }
            None => {
                stack.pop();
            }
        }
    }
}

/// The entry of thread `key` in `per_thread` (sorted by key), inserted
/// empty if missing. Profiles are merged in (rank, pid) order and threads
/// in their order, so the entry is almost always the last one or new at
/// the end.
fn thread_stat(per_thread: &mut Vec<ThreadStat>, key: ThreadKey) -> &mut ThreadStat {
    let of = |t: &ThreadStat| (t.rank, t.pid, t.thread);
    let at = match per_thread.last().map(of) {
        Some(last) if last == key => per_thread.len() - 1,
        Some(last) if last > key => match per_thread.binary_search_by_key(&key, of) {
            Ok(i) => i,
            Err(i) => {
                per_thread.insert(i, empty_stat(key));
                i
            }
        },
        _ => {
            per_thread.push(empty_stat(key));
            per_thread.len() - 1
        }
    };
    &mut per_thread[at]
}

fn empty_stat(key: ThreadKey) -> ThreadStat {
    ThreadStat {
        rank: key.0,
        pid: key.1,
        thread: key.2,
        calls: 0,
        inclusive_ns: 0,
        exclusive_ns: 0,
        counters: BTreeMap::new(),
    }
}

fn add_counters(to: &mut BTreeMap<String, u64>, counted: &[(&str, u64)]) {
    for &(name, v) in counted {
        let c = to.entry(name.to_string()).or_default();
        *c = c.saturating_add(v);
    }
}

fn sort_nodes(nodes: &mut [Node]) {
    nodes.sort_by(|a, b| {
        b.inclusive_ns
            .cmp(&a.inclusive_ns)
            .then(a.region.cmp(&b.region))
    });
}

pub(crate) fn summarize(per_thread: &[ThreadStat]) -> ThreadSummary {
    let Some(first) = per_thread.first() else {
        return ThreadSummary::default();
    };
    let mut s = ThreadSummary {
        count: per_thread.len(),
        min_inclusive_ns: first.inclusive_ns,
        mean_inclusive_ns: 0,
        max_inclusive_ns: first.inclusive_ns,
        max_rank: first.rank,
        max_pid: first.pid,
        max_thread: first.thread,
    };
    let mut sum: u128 = 0;
    for t in per_thread {
        sum += u128::from(t.inclusive_ns);
        s.min_inclusive_ns = s.min_inclusive_ns.min(t.inclusive_ns);
        if t.inclusive_ns > s.max_inclusive_ns {
            s.max_inclusive_ns = t.inclusive_ns;
            s.max_rank = t.rank;
            s.max_pid = t.pid;
            s.max_thread = t.thread;
        }
    }
    let n = per_thread.len() as u128;
    s.mean_inclusive_ns = u64::try_from((sum + n / 2) / n).unwrap_or(u64::MAX);
    s
}

/// Threads summed per (rank, pid); `per_thread` is sorted by them.
fn per_rank(per_thread: &[ThreadStat]) -> Vec<RankStat> {
    let mut out: Vec<RankStat> = Vec::new();
    for t in per_thread {
        match out.last_mut() {
            Some(r) if (r.rank, r.pid) == (t.rank, t.pid) => {
                r.calls = r.calls.saturating_add(t.calls);
                r.inclusive_ns = r.inclusive_ns.saturating_add(t.inclusive_ns);
                r.exclusive_ns = r.exclusive_ns.saturating_add(t.exclusive_ns);
            }
            _ => out.push(RankStat {
                rank: t.rank,
                pid: t.pid,
                calls: t.calls,
                inclusive_ns: t.inclusive_ns,
                exclusive_ns: t.exclusive_ns,
            }),
        }
    }
    out
}

pub(crate) fn summarize_ranks(per_rank: &[RankStat]) -> RankSummary {
    let Some(first) = per_rank.first() else {
        return RankSummary::default();
    };
    let mut s = RankSummary {
        count: per_rank.len(),
        min_inclusive_ns: first.inclusive_ns,
        mean_inclusive_ns: 0,
        max_inclusive_ns: first.inclusive_ns,
        max_rank: first.rank,
    };
    let mut sum: u128 = 0;
    for r in per_rank {
        sum += u128::from(r.inclusive_ns);
        s.min_inclusive_ns = s.min_inclusive_ns.min(r.inclusive_ns);
        if r.inclusive_ns > s.max_inclusive_ns {
            s.max_inclusive_ns = r.inclusive_ns;
            s.max_rank = r.rank;
        }
    }
    let n = per_rank.len() as u128;
    s.mean_inclusive_ns = u64::try_from((sum + n / 2) / n).unwrap_or(u64::MAX);
    s
}

/// Time in outermost MPI regions per process.
fn mpi_summary(roots: &[Node], processes: &[ProcessSummary]) -> Vec<RankMpi> {
    let mut acc: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    let mut pending: Vec<&Node> = roots.iter().collect();
    while let Some(n) = pending.pop() {
        if n.info.kind.starts_with("mpi_") {
            for r in &n.per_rank {
                *acc.entry((r.rank, r.pid)).or_default() += r.inclusive_ns;
            }
            continue; // nested MPI regions are already inside this one
        }
        pending.extend(n.children.iter());
    }
    if acc.is_empty() {
        return Vec::new();
    }
    processes
        .iter()
        .map(|p| {
            let mpi_ns = acc.get(&(p.rank, p.pid)).copied().unwrap_or(0);
            RankMpi {
                rank: p.rank,
                pid: p.pid,
                wall_ns: p.duration_ns,
                mpi_ns,
                outside_ns: p.duration_ns.saturating_sub(mpi_ns),
            }
        })
        .collect()
}

/// Merge all threads of all processes of one run.
pub fn merge(run: &RunDir) -> Report {
    let regions = RegionTable::of_run(run);
    let mut tree = Tree {
        nodes: vec![Acc::default()],
    };
    let mut warnings = Vec::new();
    for p in &run.profiles {
        let names = p.available_counters();
        for t in &p.threads {
            let key = (p.rank, p.pid, t.thread);
            if t.dropped_calls > 0 {
                warnings.push(format!(
                    "rank {} pid {} thread {}: {} region entries not recorded (made by signal handlers that interrupted a probe)",
                    p.rank, p.pid, t.thread, t.dropped_calls
                ));
            }
            let mut placed: Vec<usize> = Vec::with_capacity(t.nodes.len());
            for (i, n) in t.nodes.iter().enumerate() {
                // `load_run` refuses parents that do not precede their
                // child; a hand-built RunDir gets a warning instead.
                let parent = match n.parent {
                    None => 0,
                    Some(q) if (q as usize) < i => placed[q as usize],
                    Some(q) => {
                        warnings.push(format!(
                            "rank {} pid {} thread {}: node {i} has parent {q}, which does not precede it; shown as a root",
                            p.rank, p.pid, t.thread
                        ));
                        0
                    }
                };
                let at = tree.child(parent, n.region);
                tree.add(at, key, n, &names);
                placed.push(at);
            }
        }
    }
    let roots = tree.build(&regions);
    warnings.extend(crate::spawned::warning(&run.spawned));

    let mut undescribed = BTreeSet::new();
    for r in &roots {
        r.walk(&mut |n, _| {
            if !n.info.described {
                undescribed.insert(n.region);
            }
        });
    }
    // Ids an object's probes wrote before its constructor registered its
    // IDF (called from another object's constructor): no IDF names them.
    let unregistered = regio_idf::rundir::UNREGISTERED_BASE..regio_idf::rundir::FIRST_DESCRIPTOR_ID;
    let early: Vec<String> = undescribed
        .iter()
        .filter(|id| unregistered.contains(*id))
        .map(|id| id.to_string())
        .collect();
    undescribed.retain(|id| !unregistered.contains(id));
    if !early.is_empty() {
        warnings.push(format!(
            "{} region(s) entered before their object registered its IDF (from another object's constructor), shown as region#<id>: {}",
            early.len(),
            early.join(", ")
        ));
    }
    if !undescribed.is_empty() {
        let ids: Vec<String> = undescribed.iter().map(|id| id.to_string()).collect();
        let source = match &run.idf_path {
            Some(p) => format!("not in {} nor in any region descriptor", p.display()),
            None => "no IDF (regio.idf.json) was found and no region descriptor names them".into(),
        };
        warnings.push(format!(
            "{} region(s) without description, shown as region#<id> ({source}): {}",
            ids.len(),
            ids.join(", ")
        ));
    }
    // Small functions the instrumenter gave no probes: their time is in
    // their callers' exclusive time, as for throttled regions.
    let small = run
        .idf
        .iter()
        .flat_map(|i| &i.regions)
        .filter(|r| r.is_small_function_left_out())
        .count();
    if small > 0 {
        warnings.push(format!(
            "{small} small function(s) left unmeasured by `instrument` (IDF aux.skipped \"small\"): their callers' exclusive time includes them (instrument --small-functions measures them)"
        ));
    }

    let processes: Vec<ProcessSummary> = run.profiles.iter().map(summary_of).collect();
    let worst = run
        .profiles
        .iter()
        .find(|p| p.reason == "signal")
        .or_else(|| run.profiles.iter().find(|p| !p.complete))
        .or_else(|| run.profiles.first());
    let clocks: BTreeSet<&str> = run
        .profiles
        .iter()
        .map(|p| p.clock.source.as_str())
        .collect();
    let mpi = mpi_summary(&roots, &processes);
    Report {
        mpi,
        comm: crate::comm::communication(run),
        user_events: crate::user_events::user_events(run),
        counters: run_counters(&run.profiles),
        run_dir: run.path.clone(),
        command: run
            .profiles
            .first()
            .map(|p| p.command.clone())
            .unwrap_or_default(),
        complete: run.profiles.iter().all(|p| p.complete),
        reason: worst.map(|p| p.reason.clone()).unwrap_or_default(),
        signal: worst.and_then(|p| p.signal),
        threads: processes.iter().map(|p| p.threads).sum(),
        wall_ns: processes.iter().map(|p| p.duration_ns).max().unwrap_or(0),
        processes,
        clock: clocks.into_iter().collect::<Vec<_>>().join(","),
        idf_path: run.idf_path.clone(),
        descriptors: run
            .profiles
            .iter()
            .flat_map(|p| p.regions.iter().map(|d| d.id))
            .collect::<BTreeSet<u32>>()
            .len(),
        warnings,
        roots,
    }
}

fn summary_of(p: &Profile) -> ProcessSummary {
    ProcessSummary {
        rank: p.rank,
        pid: p.pid,
        host: p.host.clone(),
        duration_ns: p.duration_ns,
        complete: p.complete,
        reason: p.reason.clone(),
        signal: p.signal,
        threads: p.threads.len(),
        counters: p.counters.clone(),
    }
}

/// Counters of the run: every name any process asked for, available when
/// every process that asked could count it; otherwise the first refusal's
/// reason, naming the process when there are several.
fn run_counters(profiles: &[Profile]) -> Vec<CounterInfo> {
    let mut out: Vec<CounterInfo> = Vec::new();
    for p in profiles {
        for c in &p.counters {
            let reason = || {
                let r = c.reason.clone().unwrap_or_else(|| "no reason given".into());
                if profiles.len() > 1 {
                    format!("rank {} pid {}: {r}", p.rank, p.pid)
                } else {
                    r
                }
            };
            match out.iter_mut().find(|o| o.name == c.name) {
                Some(o) => {
                    if o.available && !c.available {
                        o.available = false;
                        o.reason = Some(reason());
                    }
                }
                None => out.push(CounterInfo {
                    name: c.name.clone(),
                    available: c.available,
                    reason: (!c.available).then(reason),
                }),
            }
        }
    }
    out
}
