//! Which measured regions are overhead, and of which SCALEA category.
//!
//! The rule is by region kind only (README "Overhead analysis" lists it):
//! the time a thread spends inside such a region is overhead of that
//! category, whatever the region's callees did.

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

/// The category and subcategory of a region kind, if it is overhead by
/// itself. Loss of parallelism and additional computation are not kinds:
/// they are computed from where time is spent (see `mod.rs`).
pub fn classify(kind: &str) -> Option<(Category, &'static str)> {
    use Category::*;
    if let Some(c) = kind.strip_prefix("omp_") {
        return Some(match c {
            "barrier" | "implicit_barrier" => (Synchronization, "barrier"),
            "critical_wait" => (Synchronization, "critical"),
            "ordered_wait" => (Synchronization, "ordered"),
            "lock" => (Synchronization, "lock"),
            "taskwait" => (Synchronization, "taskwait"),
            "fork" | "join" => (ControlOfParallelism, "fork_join"),
            "task_create" => (ControlOfParallelism, "task_creation"),
            _ => return None,
        });
    }
    let c = kind.strip_prefix("mpi_")?;
    Some(if c == "barrier" {
        (Synchronization, "mpi_barrier")
    } else if MPI_WAIT.contains(&c) {
        (Synchronization, "mpi_wait")
    } else if MPI_P2P.contains(&c) {
        (DataMovement, "point_to_point")
    } else if MPI_COLLECTIVE.contains(&c) {
        (DataMovement, "collective")
    } else if MPI_ONE_SIDED.contains(&c) {
        (DataMovement, "one_sided")
    } else {
        // Init, finalize, communicators, groups, windows, rank queries.
        (ControlOfParallelism, "mpi_management")
    })
}

/// Regions one thread executes while the rest of its team waits.
pub fn is_one_thread_body(kind: &str) -> bool {
    matches!(kind, "omp_single_body" | "omp_master" | "omp_masked")
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
