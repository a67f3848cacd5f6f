//! Which measured regions are overhead, and of which SCALEA category.
//!
//! The rule is by region kind only (README "Overhead analysis" lists it):
//! the time a thread spends inside such a region is overhead of that
//! category, whatever the region's callees did. Additional computation is
//! the exception: it comes from instruction counters ([`Additional`]).

use std::collections::HashMap;

use regio_idf::{OmpKind, RegionKind};

use super::{Categories, Flat};
use crate::merge::{Node, Report, ThreadStat};

/// The six SCALEA categories of temporal overhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    DataMovement,
    Synchronization,
    ControlOfParallelism,
    AdditionalComputation,
    LossOfParallelism,
    Unidentified,
}

impl Category {
    pub const ALL: [Category; 6] = [
        Category::DataMovement,
        Category::Synchronization,
        Category::ControlOfParallelism,
        Category::AdditionalComputation,
        Category::LossOfParallelism,
        Category::Unidentified,
    ];

    /// The JSON key (SPEC.md).
    pub fn key(self) -> &'static str {
        match self {
            Category::DataMovement => "data_movement",
            Category::Synchronization => "synchronization",
            Category::ControlOfParallelism => "control_of_parallelism",
            Category::AdditionalComputation => "additional_computation",
            Category::LossOfParallelism => "loss_of_parallelism",
            Category::Unidentified => "unidentified",
        }
    }

    /// Row label of the text table.
    pub fn label(self) -> &'static str {
        match self {
            Category::DataMovement => "data movement",
            Category::Synchronization => "synchronisation",
            Category::ControlOfParallelism => "control of parallelism",
            Category::AdditionalComputation => "additional computation",
            Category::LossOfParallelism => "loss of parallelism",
            Category::Unidentified => "unidentified",
        }
    }
}

/// MPI routines that move data (point-to-point, collectives, one-sided).
const MPI_P2P: &[&str] = &[
    "send",
    "recv",
    "isend",
    "irecv",
    "ssend",
    "issend",
    "bsend",
    "ibsend",
    "rsend",
    "irsend",
    "sendrecv",
    "sendrecv_replace",
    "mrecv",
    "imrecv",
];
const MPI_COLLECTIVE: &[&str] = &[
    "bcast",
    "reduce",
    "allreduce",
    "gather",
    "gatherv",
    "scatter",
    "scatterv",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
    "ibcast",
    "ireduce",
    "iallreduce",
    "igather",
    "iscatter",
    "iallgather",
    "ialltoall",
];
const MPI_ONE_SIDED: &[&str] = &["put", "get", "accumulate", "get_accumulate", "rput", "rget"];
/// MPI routines that wait for other ranks.
const MPI_WAIT: &[&str] = &[
    "wait",
    "waitall",
    "waitany",
    "waitsome",
    "test",
    "testall",
    "testany",
    "testsome",
    "probe",
    "iprobe",
    "win_fence",
    "win_wait",
    "win_complete",
];

/// What an MPI routine does, by the name after `mpi_`: the one list the
/// overhead classes, the OTF2 region roles and the trace-size estimate of
/// `score` all read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpiFamily {
    Barrier,
    /// Completion and probing calls, which wait for other ranks.
    Wait,
    PointToPoint,
    Collective,
    OneSided,
    /// Init, finalize, communicators, groups, windows, rank queries.
    Management,
}

impl MpiFamily {
    /// The family of region kind `kind`; `None` when it is not `mpi_*`.
    pub fn of(kind: &str) -> Option<(MpiFamily, &str)> {
        let c = kind.strip_prefix("mpi_")?;
        let family = if c == "barrier" {
            MpiFamily::Barrier
        } else if MPI_WAIT.contains(&c) {
            MpiFamily::Wait
        } else if MPI_P2P.contains(&c) {
            MpiFamily::PointToPoint
        } else if MPI_COLLECTIVE.contains(&c) {
            MpiFamily::Collective
        } else if MPI_ONE_SIDED.contains(&c) {
            MpiFamily::OneSided
        } else {
            MpiFamily::Management
        };
        Some((family, c))
    }
}

/// The category and subcategory of a region kind, if it is overhead by
/// itself. Loss of parallelism and additional computation are not kinds:
/// they are computed from where time is spent (see `mod.rs`).
pub fn classify(kind: &str) -> Option<(Category, &'static str)> {
    use Category::*;
    if kind.starts_with("omp_") {
        return omp_kind(kind).and_then(omp_overhead);
    }
    let (family, _) = MpiFamily::of(kind)?;
    Some(match family {
        MpiFamily::Barrier => (Synchronization, "mpi_barrier"),
        MpiFamily::Wait => (Synchronization, "mpi_wait"),
        MpiFamily::PointToPoint => (DataMovement, "point_to_point"),
        MpiFamily::Collective => (DataMovement, "collective"),
        MpiFamily::OneSided => (DataMovement, "one_sided"),
        MpiFamily::Management => (ControlOfParallelism, "mpi_management"),
    })
}

/// The measured OpenMP kind of a kind string (`omp_barrier`), if it is
/// one. Listed-only directives (`omp_target`) are never measured.
pub fn omp_kind(kind: &str) -> Option<OmpKind> {
    match kind.parse::<RegionKind>() {
        Ok(RegionKind::Omp(k)) => Some(k),
        _ => None,
    }
}

/// The overhead category of an OpenMP region kind. Exhaustive on purpose:
/// a new kind must be classified here.
fn omp_overhead(k: OmpKind) -> Option<(Category, &'static str)> {
    use Category::*;
    Some(match k {
        OmpKind::Barrier | OmpKind::ImplicitBarrier => (Synchronization, "barrier"),
        OmpKind::CriticalWait => (Synchronization, "critical"),
        OmpKind::OrderedWait => (Synchronization, "ordered"),
        OmpKind::Lock => (Synchronization, "lock"),
        OmpKind::Taskwait => (Synchronization, "taskwait"),
        OmpKind::Fork | OmpKind::Join => (ControlOfParallelism, "fork_join"),
        OmpKind::TaskCreate => (ControlOfParallelism, "task_creation"),
        // Useful work, or regions whose overhead is in their children.
        OmpKind::Parallel
        | OmpKind::For
        | OmpKind::Do
        | OmpKind::Sections
        | OmpKind::Section
        | OmpKind::Loop
        | OmpKind::Workshare
        | OmpKind::Single
        | OmpKind::SingleBody
        | OmpKind::Master
        | OmpKind::Masked
        | OmpKind::Critical
        | OmpKind::Ordered
        | OmpKind::Atomic
        | OmpKind::Task
        | OmpKind::Taskgroup
        | OmpKind::Flush
        | OmpKind::Taskloop
        | OmpKind::TaskloopBody
        | OmpKind::Teams
        | OmpKind::TeamsBody
        | OmpKind::Team
        | OmpKind::Distribute
        | OmpKind::Unlock => return None,
    })
}

/// Regions one thread executes while the rest of its team waits.
pub fn is_one_thread_body(kind: &str) -> bool {
    omp_kind(kind).is_some_and(|k| match k {
        OmpKind::SingleBody | OmpKind::Master | OmpKind::Masked => true,
        OmpKind::Parallel
        | OmpKind::Fork
        | OmpKind::Join
        | OmpKind::ImplicitBarrier
        | OmpKind::For
        | OmpKind::Do
        | OmpKind::Sections
        | OmpKind::Section
        | OmpKind::Loop
        | OmpKind::Workshare
        | OmpKind::Single
        | OmpKind::Critical
        | OmpKind::CriticalWait
        | OmpKind::Ordered
        | OmpKind::OrderedWait
        | OmpKind::Atomic
        | OmpKind::Barrier
        | OmpKind::Task
        | OmpKind::TaskCreate
        | OmpKind::Taskwait
        | OmpKind::Taskgroup
        | OmpKind::Flush
        | OmpKind::Taskloop
        | OmpKind::TaskloopBody
        | OmpKind::Teams
        | OmpKind::TeamsBody
        | OmpKind::Team
        | OmpKind::Distribute
        | OmpKind::Lock
        | OmpKind::Unlock => false,
    })
}

const INSTRUCTIONS: &str = "instructions";
const TASK_CLOCK: &str = "task-clock";

/// Additional computation of one run against the baseline, from
/// instruction counts (`REGIO_COUNTERS=instructions`).
///
/// Per DRG node outside the kind-classified overhead regions (whose time
/// is already synchronisation, data movement or control), the node's own
/// instructions summed over threads (its counted total minus its counted
/// children's, per thread) at p are compared with the baseline's; the
/// excess, when positive, is converted to time with the node's own time
/// per instruction at p (task-clock CPU time when counted, else inclusive
/// wall time, likewise minus the children's) and divided by p like every
/// summed category. A region's figure is the sum over its subtree, the
/// program's over the whole DRG; the amount is taken from unidentified, so
/// the categories still add up to T_o.
#[derive(Debug, Default)]
pub struct Additional {
    /// ns of wall time per node of the run (preorder index), subtree
    /// included; 0 in and below overhead regions.
    by_node: Vec<f64>,
    total: f64,
    /// How the figure was obtained, or why it is 0.
    pub note: String,
}

/// A node's own share of the summed figures.
#[derive(Debug, Default, Clone, Copy)]
struct Own {
    instructions: f64,
    time_ns: f64,
}

impl Additional {
    pub(crate) fn compute(
        baseline: &Report,
        base_flat: &Flat,
        run: &Report,
        flat: &Flat,
        p: f64,
    ) -> Additional {
        let missing = [(baseline, "the baseline"), (run, "this run")]
            .iter()
            .find_map(|(r, which)| why_not_counted(r, which));
        if let Some(why) = missing {
            return Additional {
                note: format!("additional computation: 0, {why}"),
                ..Additional::default()
            };
        }
        let clock = run
            .counters
            .iter()
            .any(|c| c.name == TASK_CLOCK && c.available);
        let base: HashMap<u32, Own> = (0..base_flat.len())
            .map(|i| (base_flat.path[i], own(base_flat.nodes[i], clock)))
            .collect();
        let mut out = Additional {
            note: format!(
                "additional computation: instructions at p beyond the baseline's, per region, at the region's {} per instruction at p",
                if clock { "task-clock CPU time" } else { "inclusive time" }
            ),
            by_node: vec![0.0; flat.len()],
            ..Additional::default()
        };
        // Bottom-up: a node's figure is complete (its children added) when
        // its turn comes. Overhead regions and what lies below them count 0.
        for i in (0..flat.len()).rev() {
            if flat.in_overhead[i] {
                continue;
            }
            let at_p = own(flat.nodes[i], clock);
            let at_1 = base.get(&flat.path[i]).copied().unwrap_or_default();
            let extra = at_p.instructions - at_1.instructions;
            if extra > 0.0 && at_p.instructions > 0.0 {
                out.by_node[i] += extra * (at_p.time_ns / at_p.instructions) / p;
            }
            match flat.parent[i] {
                Some(q) => out.by_node[q] += out.by_node[i],
                None => out.total += out.by_node[i],
            }
        }
        out
    }

    pub fn total_ns(&self) -> i64 {
        self.total.round() as i64
    }

    /// The figure of the run's node `i` (preorder index; 0 inside
    /// overhead regions and where nothing was counted).
    pub(crate) fn region_ns(&self, i: usize) -> i64 {
        self.by_node.get(i).map_or(0, |ns| ns.round() as i64)
    }

    /// `c` with additional computation `ns`, taken from unidentified.
    pub fn apply(mut c: Categories, ns: i64) -> Categories {
        c.additional_computation = ns;
        c.unidentified -= ns;
        c
    }
}

/// Why `r` gives no instruction counts, if it does not.
fn why_not_counted(r: &Report, which: &str) -> Option<String> {
    match r.counters.iter().find(|c| c.name == INSTRUCTIONS) {
        None => Some(format!(
            "`instructions` was not counted in {which} (run it with REGIO_COUNTERS=instructions)"
        )),
        Some(c) if !c.available => Some(format!(
            "`instructions` could not be counted in {which}: {}",
            c.reason.as_deref().unwrap_or("no reason given")
        )),
        Some(_) => None,
    }
}

/// The node's own instructions and time, summed over the threads that
/// counted instructions on it.
fn own(n: &Node, clock: bool) -> Own {
    let time = |t: &ThreadStat| -> f64 {
        if clock {
            t.counters.get(TASK_CLOCK).copied().unwrap_or(0) as f64
        } else {
            t.inclusive_ns as f64
        }
    };
    let mut o = Own::default();
    for t in &n.per_thread {
        let Some(&instr) = t.counters.get(INSTRUCTIONS) else {
            continue;
        };
        let (mut child_instr, mut child_time) = (0.0, 0.0);
        for c in &n.children {
            let same = c
                .per_thread
                .iter()
                .find(|u| (u.rank, u.pid, u.thread) == (t.rank, t.pid, t.thread));
            if let Some(u) = same {
                if let Some(&ci) = u.counters.get(INSTRUCTIONS) {
                    child_instr += ci as f64;
                    child_time += time(u);
                }
            }
        }
        o.instructions += (instr as f64 - child_instr).max(0.0);
        o.time_ns += (time(t) - child_time).max(0.0);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_categories() {
        assert_eq!(
            classify("omp_implicit_barrier").map(|c| c.0),
            Some(Category::Synchronization)
        );
        assert_eq!(
            classify("omp_fork").map(|c| c.0),
            Some(Category::ControlOfParallelism)
        );
        assert_eq!(
            classify("mpi_allreduce"),
            Some((Category::DataMovement, "collective"))
        );
        assert_eq!(
            classify("mpi_waitall"),
            Some((Category::Synchronization, "mpi_wait"))
        );
        assert_eq!(
            classify("mpi_comm_split").map(|c| c.0),
            Some(Category::ControlOfParallelism)
        );
        assert_eq!(classify("omp_for"), None);
        assert_eq!(classify("function"), None);
    }
}
