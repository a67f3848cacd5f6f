//! Processes started by `MPI_Comm_spawn` that wrote into the spawning
//! job's run directory (they inherit `REGIO_DIR`). Each has an
//! `MPI_COMM_WORLD` of its own, whose ranks repeat the job's (rank 0
//! again), whose clocks were synchronised against its own rank 0 and whose
//! messages with the job name no world rank of it: read as more processes
//! of the job's ranks they would be mixed in silently. The runtime marks
//! each one (`regio.spawned-r<rank>-p<pid>.txt`, runtime `mpi/spawn.rs`);
//! readers leave their files out and say so. MPI dynamic processes are
//! not supported beyond that.

use std::collections::BTreeSet;
use std::path::Path;

use regio_idf::rundir::{SPAWNED_PREFIX, SPAWNED_SUFFIX};

/// (rank, pid) of every process `dir` holds a spawn marker of; none if
/// the directory cannot be read.
pub fn marked(dir: &Path) -> BTreeSet<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeSet::new();
    };
    entries
        .flatten()
        .filter_map(|e| parse(e.file_name().to_str()?))
        .collect()
}

fn parse(name: &str) -> Option<(u32, u32)> {
    let rest = name
        .strip_prefix(SPAWNED_PREFIX)?
        .strip_suffix(SPAWNED_SUFFIX)?;
    let (rank, pid) = rest.split_once("-p")?;
    Some((rank.parse().ok()?, pid.parse().ok()?))
}

/// Which of the processes `keys` (rank, pid) to leave out: the spawned
/// ones, unless every process is (then they are all the directory has:
/// nothing to tell them from).
pub fn left_out(dir: &Path, keys: impl IntoIterator<Item = (u32, u32)>) -> BTreeSet<(u32, u32)> {
    let marked = marked(dir);
    if marked.is_empty() {
        return marked;
    }
    let keys: BTreeSet<(u32, u32)> = keys.into_iter().collect();
    if keys.iter().all(|k| marked.contains(k)) {
        return BTreeSet::new();
    }
    keys.intersection(&marked).copied().collect()
}

/// The warning for the processes left out (None for none).
pub fn warning(left_out: &BTreeSet<(u32, u32)>) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let list: Vec<String> = left_out
        .iter()
        .map(|(rank, pid)| format!("rank {rank} pid {pid}"))
        .collect();
    Some(format!(
        "{} process(es) started by MPI_Comm_spawn left out ({}): each has an MPI_COMM_WORLD of its own, which this run's ranks do not describe (MPI dynamic processes are not supported; messages with them are not paired)",
        left_out.len(),
        list.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_name_rank_and_pid() {
        assert_eq!(parse("regio.spawned-r1-p4321.txt"), Some((1, 4321)));
        assert_eq!(parse("regio.spawned-r1-p4321.txt.tmp"), None);
        assert_eq!(parse("regio.spawned-rx-p1.txt"), None);
        assert_eq!(parse("profile-r1-p4321.json"), None);
    }

    #[test]
    fn spawned_processes_are_left_out_unless_they_are_all_there_is() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("regio.spawned-r0-p7.txt"), "x").unwrap();
        std::fs::write(dir.path().join("regio.spawned-r1-p8.txt"), "x").unwrap();
        let job = [(0, 5), (1, 6), (0, 7), (1, 8)];
        let out = left_out(dir.path(), job);
        assert_eq!(out, BTreeSet::from([(0, 7), (1, 8)]));
        let w = warning(&out).unwrap();
        assert!(
            w.starts_with(
                "2 process(es) started by MPI_Comm_spawn left out (rank 0 pid 7, rank 1 pid 8)"
            ),
            "{w}"
        );
        assert!(left_out(dir.path(), [(0, 7), (1, 8)]).is_empty());
        assert_eq!(warning(&BTreeSet::new()), None);
    }
}
