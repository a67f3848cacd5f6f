//! SCALEA's temporal overhead analysis: for a parallel run on p
//! processors against a baseline run, T_o = T_p - T_s / p for the program
//! and for every DRG region, split into data movement, synchronisation,
//! control of parallelism, additional computation, loss of parallelism and
//! unidentified (the remainder), all in wall-time nanoseconds so that the
//! six add up to T_o.
//!
//! * Kinds that are overhead by themselves (`classify.rs`) count with their
//!   inclusive time summed over threads and processes, divided by p.
//! * Loss of parallelism (OpenMP runs): time the master thread spends
//!   outside parallel regions, and inside `single`/`master`/`masked`
//!   bodies, times (t - 1) / t for t threads per process, averaged over
//!   processes.
//! * Additional computation comes from instruction counters
//!   (`classify::Additional`); 0 with a note where they were not counted.
//! * The baseline is a measured run too, with overheads of its own (a
//!   1-rank MPI run spends its MPI_Init; a 1-thread team still forks).
//!   T_s / p carries 1/p of them into T_o, so each category is net of the
//!   baseline's figure / p; otherwise that share would show up as negative
//!   unidentified overhead.

mod classify;
mod compensate;
pub mod text;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

pub use classify::{classify, omp_kind, Category, MpiFamily};
pub use compensate::compensate;
use regio_idf::OmpKind;

use crate::merge::{visit, Node, Report, Visit};
use crate::regions::{RegionInfo, RegionTable};
use crate::RunDir;

/// Figures per category, in ns of wall time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Categories {
    pub data_movement: i64,
    pub synchronization: i64,
    pub control_of_parallelism: i64,
    pub additional_computation: i64,
    pub loss_of_parallelism: i64,
    pub unidentified: i64,
}

impl Categories {
    pub fn get(&self, c: Category) -> i64 {
        match c {
            Category::DataMovement => self.data_movement,
            Category::Synchronization => self.synchronization,
            Category::ControlOfParallelism => self.control_of_parallelism,
            Category::AdditionalComputation => self.additional_computation,
            Category::LossOfParallelism => self.loss_of_parallelism,
            Category::Unidentified => self.unidentified,
        }
    }

    fn get_mut(&mut self, c: Category) -> &mut i64 {
        match c {
            Category::DataMovement => &mut self.data_movement,
            Category::Synchronization => &mut self.synchronization,
            Category::ControlOfParallelism => &mut self.control_of_parallelism,
            Category::AdditionalComputation => &mut self.additional_computation,
            Category::LossOfParallelism => &mut self.loss_of_parallelism,
            Category::Unidentified => &mut self.unidentified,
        }
    }

    fn identified(&self) -> i64 {
        Category::ALL
            .iter()
            .filter(|c| **c != Category::Unidentified)
            .map(|c| self.get(*c))
            .sum()
    }
}

/// `instrument overhead --format json`: one entry per parallel run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverheadReport {
    pub baseline: String,
    pub baseline_wall_ns: u64,
    pub runs: Vec<RunOverhead>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOverhead {
    pub run_dir: String,
    pub processors: u32,
    pub wall_ns: u64,
    pub baseline_wall_ns: u64,
    /// T_p - T_s / p; negative for super-linear speedup.
    pub total_overhead_ns: i64,
    pub speedup: f64,
    pub efficiency: f64,
    pub categories: Categories,
    /// Category key -> subcategory -> ns.
    pub subcategories: BTreeMap<String, BTreeMap<String, i64>>,
    /// Why a category is 0 or approximate.
    pub notes: Vec<String>,
    /// Every region of the run's DRG, parents first.
    pub regions: Vec<RegionOverhead>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionOverhead {
    pub region: u32,
    pub name: String,
    pub kind: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Names from the root, `;`-separated; deeper than 100 levels, the
    /// first and last 50 around `...(N more)...`.
    pub path: String,
    /// T_p(r): the longest time one thread spent in the region.
    pub wall_ns: u64,
    /// T_s(r): the region's time in the baseline (0 if it did not run).
    pub baseline_ns: u64,
    pub total_overhead_ns: i64,
    pub categories: Categories,
}

#[derive(Debug, thiserror::Error)]
pub enum OverheadError {
    #[error("{run}: not instrumented like the baseline {baseline}: {detail}")]
    RegionsDiffer {
        baseline: String,
        run: String,
        detail: String,
    },
    #[error(
        "{0}: the run measured no threads, so its processor count is unknown (give it explicitly)"
    )]
    NoProcessors(String),
    #[error("the baseline {baseline} ran on {baseline_p} processors, more than {run} ({run_p}): give the run with the fewest processors (the sequential one) first, as the baseline")]
    BaselineNotSmallest {
        baseline: String,
        baseline_p: u32,
        run: String,
        run_p: u32,
    },
}

/// The order in which to analyse `runs` (name, processors) against a
/// baseline on `baseline_p` processors: by processor count, runs with the
/// same count in the order given. A baseline with more processors than a
/// run is refused: T_s / p assumes the baseline is the sequential run, and
/// the other way round the table reads nonsense (an efficiency of 481 %).
pub fn order_runs(
    baseline: &str,
    baseline_p: u32,
    runs: &[(String, u32)],
) -> Result<Vec<usize>, OverheadError> {
    if let Some((run, p)) = runs.iter().filter(|r| r.1 < baseline_p).min_by_key(|r| r.1) {
        return Err(OverheadError::BaselineNotSmallest {
            baseline: baseline.to_string(),
            baseline_p,
            run: run.clone(),
            run_p: *p,
        });
    }
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&i| runs[i].1);
    Ok(order)
}

/// Processors of a run: ranks times the most threads any process measured.
pub fn processors_of(run: &RunDir) -> u32 {
    let threads = run
        .profiles
        .iter()
        .map(|p| p.threads.len() as u32)
        .max()
        .unwrap_or(0);
    (run.profiles.len() as u32).saturating_mul(threads)
}

/// A region as a key that does not depend on ids: kind, name, file, line.
type RegionKey = (String, String, Option<String>, Option<u32>);

fn region_set(run: &RunDir) -> BTreeSet<RegionKey> {
    let table = RegionTable::of_run(run);
    table.all().map(region_key).collect()
}

/// Refuses runs whose regions are not the baseline's.
pub fn check_same_regions(baseline: &RunDir, run: &RunDir) -> Result<(), OverheadError> {
    let (a, b) = (region_set(baseline), region_set(run));
    if a == b {
        return Ok(());
    }
    let show = |k: &RegionKey| {
        format!(
            "{} `{}` at {}:{}",
            k.0,
            k.1,
            k.2.as_deref().unwrap_or("?"),
            k.3.map_or("?".into(), |l| l.to_string())
        )
    };
    let mut detail: Vec<String> = Vec::new();
    for k in a.difference(&b).take(3) {
        detail.push(format!("only in the baseline: {}", show(k)));
    }
    for k in b.difference(&a).take(3) {
        detail.push(format!("only in this run: {}", show(k)));
    }
    Err(OverheadError::RegionsDiffer {
        baseline: baseline.path.display().to_string(),
        run: run.path.display().to_string(),
        detail: detail.join("; "),
    })
}

/// The overhead of each `(report, processors)` against `baseline`.
pub fn overhead(baseline: &Report, runs: &[(&Report, u32)]) -> OverheadReport {
    let mut paths = Paths::default();
    let base_flat = Flat::of(baseline, &mut paths);
    let base = base_of(baseline, &base_flat);
    OverheadReport {
        baseline: baseline.run_dir.display().to_string(),
        baseline_wall_ns: baseline.wall_ns,
        runs: runs
            .iter()
            .map(|(r, p)| {
                let flat = Flat::of(r, &mut paths);
                run_overhead(baseline, &base_flat, &base, r, &flat, (*p).max(1))
            })
            .collect(),
    }
}

fn region_key(i: &RegionInfo) -> RegionKey {
    (i.kind.clone(), i.name.clone(), i.file.clone(), i.line)
}

/// Ids of region paths (the region keys from a root), shared by the
/// baseline and the runs so the same path gets the same id in each. A path
/// is known by its parent path's id and its last region, so naming one
/// costs the same at any depth.
#[derive(Default)]
pub(crate) struct Paths {
    regions: HashMap<RegionKey, u32>,
    paths: HashMap<(u32, u32), u32>,
}

impl Paths {
    fn id(&mut self, parent: Option<u32>, info: &RegionInfo) -> u32 {
        let next = self.regions.len() as u32;
        let region = *self.regions.entry(region_key(info)).or_insert(next);
        let next = self.paths.len() as u32;
        *self
            .paths
            .entry((parent.unwrap_or(u32::MAX), region))
            .or_insert(next)
    }
}

/// A report's DRG in preorder (parents before children), with what the
/// analysis asks of every node's callers computed once on the way down:
/// linear at any depth.
pub(crate) struct Flat<'a> {
    nodes: Vec<&'a Node>,
    parent: Vec<Option<usize>>,
    /// Path id (see [`Paths`]).
    path: Vec<u32>,
    /// Region names from the root, `;`-separated (elided when deep).
    names: Vec<String>,
    /// The node or one of its callers is an `omp_parallel` region.
    in_parallel: Vec<bool>,
    /// The node or one of its callers is classified overhead.
    in_overhead: Vec<bool>,
}

impl<'a> Flat<'a> {
    pub(crate) fn of(r: &'a Report, paths: &mut Paths) -> Flat<'a> {
        let mut f = Flat {
            nodes: Vec::new(),
            parent: Vec::new(),
            path: Vec::new(),
            names: Vec::new(),
            in_parallel: Vec::new(),
            in_overhead: Vec::new(),
        };
        // Preorder index of every node of the current path.
        let mut open: Vec<usize> = Vec::new();
        visit(&r.roots, &mut |e| match e {
            Visit::Enter(n, path) => {
                let parent = open.last().copied();
                let i = f.nodes.len();
                f.nodes.push(n);
                f.parent.push(parent);
                f.path.push(paths.id(parent.map(|p| f.path[p]), &n.info));
                f.names.push(crate::render::path_names(path));
                let up = |v: &Vec<bool>| parent.is_some_and(|p| v[p]);
                f.in_parallel
                    .push(up(&f.in_parallel) || omp_kind(&n.info.kind) == Some(OmpKind::Parallel));
                f.in_overhead
                    .push(up(&f.in_overhead) || classify(&n.info.kind).is_some());
                open.push(i);
            }
            Visit::Leave(..) => {
                open.pop();
            }
        });
        f
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Preorder indices of the roots.
    fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(|&i| self.parent[i].is_none())
    }
}

/// What `collect` finds from every node: the overhead in its subtree, by
/// preorder index. Bottom-up, from the last node back (a node's subtree
/// is complete when its turn comes).
fn found_all(flat: &Flat, ctx: &Ctx) -> Vec<Found> {
    let mut found: Vec<Found> = (0..flat.len()).map(|_| Found::default()).collect();
    for i in (0..flat.len()).rev() {
        let n = flat.nodes[i];
        let mut f = std::mem::take(&mut found[i]);
        if let Some((cat, sub)) = classify(&n.info.kind) {
            // Nothing below a classified region counts again.
            f = Found::default();
            let ns = i64::try_from(n.inclusive_ns).unwrap_or(i64::MAX);
            *f.by_kind.get_mut(cat) += ns;
            *f.sub.entry((cat, sub)).or_default() += ns;
        } else {
            own_loss(n, flat.in_parallel[i], ctx, &mut f);
        }
        if let Some(p) = flat.parent[i] {
            found[p].add(&f);
        }
        found[i] = f;
    }
    found
}

/// What the baseline measured for a region: T_s(r) and its own overhead
/// (wall time, per category).
#[derive(Default, Clone, Copy)]
struct BaseRegion {
    wall: u64,
    own: Categories,
}

/// The baseline's figures, whole and by region path (id).
struct Base {
    own: Categories,
    sub: BTreeMap<(Category, String), i64>,
    regions: HashMap<u32, BaseRegion>,
}

fn base_of(r: &Report, flat: &Flat) -> Base {
    let threads = r.processes.iter().map(|q| q.threads).max().unwrap_or(1);
    let p = (r.processes.len() * threads).max(1) as u32;
    let ctx = Ctx::of(r, p);
    let omp = flat.in_parallel.iter().any(|&b| b);
    let found = found_all(flat, &ctx);
    let mut whole = Found::default();
    for i in flat.roots() {
        whole.add(&found[i]);
    }
    let own = categories_of(&whole, &ctx, 0, omp, None);
    let sub = subcategories_of(&whole, &ctx, omp)
        .into_iter()
        .flat_map(|(c, m)| m.into_iter().map(move |(s, v)| ((c, s), v)))
        .collect();
    let mut regions = HashMap::new();
    for (i, f) in found.iter().enumerate() {
        regions.insert(
            flat.path[i],
            BaseRegion {
                wall: longest_thread(flat.nodes[i]),
                own: categories_of(f, &ctx, 0, omp, None),
            },
        );
    }
    Base { own, sub, regions }
}

fn longest_thread(n: &Node) -> u64 {
    n.per_thread
        .iter()
        .map(|t| t.inclusive_ns)
        .max()
        .unwrap_or(0)
}

/// Overhead found in one subtree, before division by p.
#[derive(Default)]
struct Found {
    /// Summed over threads.
    by_kind: Categories,
    sub: BTreeMap<(Category, &'static str), i64>,
    /// Loss of parallelism in wall time (already per process).
    loss_seq: f64,
    loss_one: f64,
}

impl Found {
    fn add(&mut self, o: &Found) {
        for c in Category::ALL {
            *self.by_kind.get_mut(c) += o.by_kind.get(c);
        }
        for (k, v) in &o.sub {
            *self.sub.entry(*k).or_default() += v;
        }
        self.loss_seq += o.loss_seq;
        self.loss_one += o.loss_one;
    }
}

struct Ctx {
    p: f64,
    /// Threads per process, by (rank, pid).
    threads: HashMap<(u32, u32), u32>,
    processes: f64,
}

impl Ctx {
    fn of(run: &Report, p: u32) -> Ctx {
        Ctx {
            p: f64::from(p.max(1)),
            threads: run
                .processes
                .iter()
                .map(|q| ((q.rank, q.pid), q.threads as u32))
                .collect(),
            processes: run.processes.len().max(1) as f64,
        }
    }

    fn idle_share(&self, rank: u32, pid: u32) -> f64 {
        let t = f64::from(self.threads.get(&(rank, pid)).copied().unwrap_or(1).max(1));
        (t - 1.0) / t
    }
}

/// Loss of parallelism in an unclassified node itself; `in_parallel`: the
/// node or one of its callers is a parallel region.
fn own_loss(n: &Node, in_parallel: bool, ctx: &Ctx, f: &mut Found) {
    if classify::is_one_thread_body(&n.info.kind) {
        for t in &n.per_thread {
            f.loss_one += t.inclusive_ns as f64 * ctx.idle_share(t.rank, t.pid);
        }
    }
    if !in_parallel {
        // Master-thread time in this node outside any parallel region:
        // its exclusive time plus children that are not parallel regions
        // are accounted when the walk reaches them, so only exclusive.
        for t in n.per_thread.iter().filter(|t| t.thread == 0) {
            f.loss_seq += t.exclusive_ns as f64 * ctx.idle_share(t.rank, t.pid);
        }
    }
}

/// The categories of `found` in wall time; with `base`, each identified
/// category is net of the baseline's figure / p.
fn categories_of(
    found: &Found,
    ctx: &Ctx,
    total: i64,
    omp: bool,
    base: Option<&Categories>,
) -> Categories {
    let div = |v: i64| (v as f64 / ctx.p).round() as i64;
    let mut c = Categories {
        data_movement: div(found.by_kind.data_movement),
        synchronization: div(found.by_kind.synchronization),
        control_of_parallelism: div(found.by_kind.control_of_parallelism),
        additional_computation: 0,
        loss_of_parallelism: 0,
        unidentified: 0,
    };
    if omp {
        c.loss_of_parallelism = ((found.loss_seq + found.loss_one) / ctx.processes).round() as i64;
    }
    if let Some(b) = base {
        for cat in Category::ALL {
            if cat != Category::Unidentified {
                *c.get_mut(cat) -= div(b.get(cat));
            }
        }
    }
    c.unidentified = total - c.identified();
    c
}

/// Category -> subcategory -> wall-time ns of `found`.
fn subcategories_of(
    found: &Found,
    ctx: &Ctx,
    omp: bool,
) -> BTreeMap<Category, BTreeMap<String, i64>> {
    let mut out: BTreeMap<Category, BTreeMap<String, i64>> = BTreeMap::new();
    for ((cat, sub), ns) in &found.sub {
        out.entry(*cat)
            .or_default()
            .insert(sub.to_string(), (*ns as f64 / ctx.p).round() as i64);
    }
    if omp {
        let loss = out.entry(Category::LossOfParallelism).or_default();
        loss.insert(
            "sequential".into(),
            (found.loss_seq / ctx.processes).round() as i64,
        );
        loss.insert(
            "single_master".into(),
            (found.loss_one / ctx.processes).round() as i64,
        );
    }
    out
}

fn run_overhead(
    baseline: &Report,
    base_flat: &Flat,
    base: &Base,
    run: &Report,
    flat: &Flat,
    p: u32,
) -> RunOverhead {
    let pf = f64::from(p);
    let ctx = Ctx::of(run, p);
    let omp = flat.in_parallel.iter().any(|&b| b);
    let t_o = run.wall_ns as i64 - (baseline.wall_ns as f64 / pf).round() as i64;

    let found = found_all(flat, &ctx);
    let mut whole = Found::default();
    for i in flat.roots() {
        whole.add(&found[i]);
    }
    let extra = classify::Additional::compute(baseline, base_flat, run, flat, pf);
    let categories = classify::Additional::apply(
        categories_of(&whole, &ctx, t_o, omp, Some(&base.own)),
        extra.total_ns(),
    );
    let mut subs = subcategories_of(&whole, &ctx, omp);
    for ((cat, sub), v) in &base.sub {
        *subs
            .entry(*cat)
            .or_default()
            .entry(sub.clone())
            .or_default() -= (*v as f64 / pf).round() as i64;
    }
    let subcategories: BTreeMap<String, BTreeMap<String, i64>> = subs
        .into_iter()
        .map(|(c, m)| (c.key().to_string(), m))
        .collect();
    let mut notes = vec![extra.note.clone()];
    if !omp {
        notes.push(
            "loss of parallelism: 0, the run has no OpenMP parallel regions to tell sequential code from".into(),
        );
    }
    let base_own = base.own.identified();
    if base_own != 0 {
        notes.push(format!(
            "the baseline's own overhead ({} ns, e.g. MPI_Init or a one-thread fork) is part of T_s: each category is net of the baseline's figure / p",
            base_own
        ));
    }

    let mut regions = Vec::with_capacity(flat.len());
    for (i, found) in found.iter().enumerate() {
        let n = flat.nodes[i];
        let wall = longest_thread(n);
        let b = base.regions.get(&flat.path[i]).copied().unwrap_or_default();
        let total = wall as i64 - (b.wall as f64 / pf).round() as i64;
        regions.push(RegionOverhead {
            region: n.region,
            name: n.info.name.clone(),
            kind: n.info.kind.clone(),
            file: n.info.file.clone(),
            line: n.info.line,
            path: flat.names[i].clone(),
            wall_ns: wall,
            baseline_ns: b.wall,
            total_overhead_ns: total,
            categories: classify::Additional::apply(
                categories_of(found, &ctx, total, omp, Some(&b.own)),
                extra.region_ns(i),
            ),
        });
    }

    let speedup = if run.wall_ns == 0 {
        0.0
    } else {
        baseline.wall_ns as f64 / run.wall_ns as f64
    };
    RunOverhead {
        run_dir: run.run_dir.display().to_string(),
        processors: p,
        wall_ns: run.wall_ns,
        baseline_wall_ns: baseline.wall_ns,
        total_overhead_ns: t_o,
        speedup,
        efficiency: speedup / pf,
        categories,
        subcategories,
        notes,
        regions,
    }
}
