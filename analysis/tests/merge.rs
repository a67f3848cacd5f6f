//! Merged figures of synthetic runs, checked against numbers worked out by
//! hand from the fixtures.

mod common;
mod fixtures;

use common::{run_dir, tempdir};
use regio_analysis::{load_run, merge, Node, Report, ThreadStat, ThreadSummary};
use regio_idf::rundir::FIRST_DESCRIPTOR_ID;

fn find<'a>(r: &'a Report, path: &[u32]) -> &'a Node {
    let mut nodes = &r.roots;
    let mut found = None;
    for id in path {
        let n = nodes
            .iter()
            .find(|n| n.region == *id)
            .unwrap_or_else(|| panic!("no node {id} on path {path:?}"));
        nodes = &n.children;
        found = Some(n);
    }
    found.expect("non-empty path")
}

fn order(nodes: &[Node]) -> Vec<u32> {
    nodes.iter().map(|n| n.region).collect()
}

fn stat(thread: u32, calls: u64, inclusive_ns: u64, exclusive_ns: u64) -> ThreadStat {
    ThreadStat {
        rank: 0,
        pid: 100,
        thread,
        calls,
        inclusive_ns,
        exclusive_ns,
        counters: Default::default(),
    }
}

#[test]
fn threads_of_one_process_merge_by_path() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    let r = merge(&load_run(&dir, None).unwrap());

    assert!(r.complete);
    assert_eq!(r.reason, "exit");
    assert_eq!(r.signal, None);
    assert_eq!(r.threads, 3);
    assert_eq!(r.wall_ns, 1_200_000);
    assert_eq!(r.clock, "tsc");
    assert_eq!(r.command, ["./prog", "--n", "3"]);
    assert_eq!(
        r.idf_path.as_deref(),
        Some(dir.join("regio.idf.json").as_path())
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    // worker (1.6 ms over two threads) sorts before main (1 ms).
    assert_eq!(order(&r.roots), [4, 1]);
    let worker = find(&r, &[4]);
    assert_eq!(worker.info.name, "worker");
    assert_eq!(worker.info.kind, "function");
    assert_eq!(worker.info.location(), "a.c:62");
    assert_eq!(
        (
            worker.calls,
            worker.inclusive_ns,
            worker.exclusive_ns,
            worker.min_ns,
            worker.max_ns
        ),
        (3, 1_600_000, 400_000, 400_000, 700_000)
    );
    assert_eq!(
        worker.per_thread,
        [stat(1, 1, 700_000, 100_000), stat(2, 2, 900_000, 300_000)]
    );
    assert_eq!(
        worker.threads,
        ThreadSummary {
            count: 2,
            min_inclusive_ns: 700_000,
            mean_inclusive_ns: 800_000,
            max_inclusive_ns: 900_000,
            max_rank: 0,
            max_pid: 100,
            max_thread: 2,
        }
    );
    assert!((worker.percent(r.wall_ns) - 133.333_333).abs() < 1e-3);

    let compute = find(&r, &[4, 2]);
    assert_eq!(
        (
            compute.calls,
            compute.inclusive_ns,
            compute.exclusive_ns,
            compute.min_ns,
            compute.max_ns
        ),
        (5, 1_200_000, 700_000, 100_000, 400_000)
    );
    // Equal inclusive time: the first thread is named as the maximum.
    assert_eq!(
        (
            compute.threads.max_thread,
            compute.threads.mean_inclusive_ns
        ),
        (1, 600_000)
    );
    let lp = find(&r, &[4, 2, 3]);
    assert_eq!(
        (lp.calls, lp.inclusive_ns, lp.threads.count),
        (4, 500_000, 1)
    );
    assert_eq!(lp.per_thread, [stat(2, 4, 500_000, 500_000)]);

    // The same regions under main are other nodes.
    let main_compute = find(&r, &[1, 2]);
    assert_eq!(
        (main_compute.calls, main_compute.inclusive_ns),
        (2, 600_000)
    );
    assert_eq!(find(&r, &[1, 2, 3]).inclusive_ns, 400_000);
    assert_eq!(
        find(&r, &[1]).percent(r.wall_ns),
        1_000_000.0 * 100.0 / 1_200_000.0
    );
}

#[test]
fn processes_merge_and_recursion_is_summed_not_unfolded() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::procs_run(&dir);
    let run = load_run(&dir, None).unwrap();
    // Profiles come back in rank order whatever the directory order.
    assert_eq!(
        run.profiles.iter().map(|p| p.rank).collect::<Vec<_>>(),
        [0, 1]
    );
    let r = merge(&run);

    assert_eq!(r.wall_ns, 2_500_000);
    assert_eq!(
        r.processes
            .iter()
            .map(|p| (p.rank, p.pid, p.duration_ns))
            .collect::<Vec<_>>(),
        [(0, 200, 2_000_000), (1, 201, 2_500_000)]
    );
    assert_eq!(r.threads, 2);

    let main = find(&r, &[1]);
    assert_eq!(
        (
            main.calls,
            main.inclusive_ns,
            main.exclusive_ns,
            main.min_ns,
            main.max_ns
        ),
        (2, 4_400_000, 800_000, 2_000_000, 2_400_000)
    );
    assert_eq!(
        (
            main.threads.count,
            main.threads.min_inclusive_ns,
            main.threads.mean_inclusive_ns
        ),
        (2, 2_000_000, 2_200_000)
    );
    assert_eq!(
        (
            main.threads.max_inclusive_ns,
            main.threads.max_rank,
            main.threads.max_pid,
            main.threads.max_thread
        ),
        (2_400_000, 1, 201, 0)
    );
    // fib(a.c) 3.5 ms, fib(b.c) 0.1 ms, MPI_Allreduce 0.
    assert_eq!(order(&main.children), [2, 8, 6]);

    let fib = find(&r, &[1, 2]);
    assert_eq!(
        (
            fib.calls,
            fib.recursive_calls,
            fib.inclusive_ns,
            fib.exclusive_ns,
            fib.min_ns,
            fib.max_ns
        ),
        (40, 38, 3_500_000, 3_300_000, 1_500_000, 2_000_000)
    );
    // Mutual recursion fib -> helper -> fib is folded: one level of helper.
    assert_eq!(order(&fib.children), [7]);
    assert!(find(&r, &[1, 2, 7]).children.is_empty());
    assert_eq!(find(&r, &[1, 8]).info.location(), "b.c:3");
    assert_eq!(find(&r, &[1, 6]).info.kind, "mpi_allreduce");
}

#[test]
fn signal_run_is_incomplete_and_keeps_open_frames() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let idf = fixtures::signal_run(tmp.path(), &dir);
    let r = merge(&load_run(&dir, None).unwrap());
    assert!(!r.complete);
    assert_eq!((r.reason.as_str(), r.signal), ("signal", Some(11)));
    // Names come from the IDF the profile points at.
    assert_eq!(r.idf_path.as_deref(), Some(idf.as_path()));
    assert_eq!(find(&r, &[1]).info.name, "main");
    assert_eq!(
        (
            find(&r, &[1]).open,
            find(&r, &[1, 2]).open,
            find(&r, &[1, 2, 3]).open
        ),
        (1, 1, 0)
    );
}

#[test]
fn regions_without_description_are_named_by_id_and_warned_about() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::no_idf_run(&dir);
    let r = merge(&load_run(&dir, None).unwrap());
    assert_eq!(r.idf_path, None);
    let root = find(&r, &[1]);
    assert_eq!(
        (root.info.name.as_str(), root.info.kind.as_str()),
        ("region#1", "unknown")
    );
    assert_eq!((root.info.file.clone(), root.info.line), (None, None));
    assert!(!root.info.described);
    // The Rust descriptor in the profile names its region, renumbered from
    // the start of the descriptor range.
    let parse = find(&r, &[1, FIRST_DESCRIPTOR_ID]);
    assert_eq!(
        (parse.info.name.as_str(), parse.info.location()),
        ("parse", "src/lib.rs:12".into())
    );
    assert_eq!(r.warnings.len(), 1);
    assert!(
        r.warnings[0].contains("2 region(s) without description"),
        "{:?}",
        r.warnings
    );
    assert!(r.warnings[0].ends_with(": 1, 2"), "{:?}", r.warnings);
}

#[test]
fn idf_override_and_descriptors_name_regions_side_by_side() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::no_idf_run(&dir);
    // An IDF given on the command line names the C regions 1 and 2; the
    // profile's descriptor names the Rust region.
    let other = tmp.path().join("other.idf.json");
    common::write_idf(
        &other,
        &[
            (1, "program", "main", "m.c", 1, 30, None),
            (2, "loop", "while", "m.c", 5, 9, Some(1)),
        ],
    );
    let r = merge(&load_run(&dir, Some(&other)).unwrap());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.descriptors, 1);
    assert_eq!(find(&r, &[1]).info.name, "main");
    assert_eq!(find(&r, &[1, 2]).info.location(), "m.c:5");
    assert_eq!(find(&r, &[1, FIRST_DESCRIPTOR_ID]).info.name, "parse");
}

#[test]
fn descriptors_match_across_processes_by_content_not_id() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::rust_ranks_run(&dir);
    let r = merge(&load_run(&dir, None).unwrap());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.descriptors, 2);
    // One root (solve) with one child (the loop), both ranks merged.
    assert_eq!(r.roots.len(), 1, "{:#?}", r.roots);
    let solve = &r.roots[0];
    assert_eq!(solve.info.name, "solve");
    assert_eq!((solve.calls, solve.per_thread.len()), (2, 2));
    assert_eq!(solve.children.len(), 1);
    let inner = &solve.children[0];
    assert_eq!((inner.info.name.as_str(), inner.calls), ("for@9", 20));
}

#[test]
fn walk_visits_parents_before_children_with_their_path() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    let r = merge(&load_run(&dir, None).unwrap());
    let mut seen = Vec::new();
    r.walk(&mut |n, path| {
        assert_eq!(path.last().map(|p| p.region), Some(n.region));
        seen.push(path.iter().map(|p| p.region).collect::<Vec<_>>());
    });
    assert_eq!(
        seen,
        [
            vec![4],
            vec![4, 2],
            vec![4, 2, 3],
            vec![1],
            vec![1, 2],
            vec![1, 2, 3]
        ]
    );
}

#[test]
fn a_hand_built_run_with_a_forward_parent_is_merged_with_a_warning() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    let mut run = load_run(&dir, None).unwrap();
    // load_run refuses this; a RunDir built in code still merges.
    run.profiles[0].threads[0].nodes[1].parent = Some(2);
    let r = merge(&run);
    assert_eq!(r.warnings.len(), 1);
    assert!(
        r.warnings[0]
            .contains("thread 0: node 1 has parent 2, which does not precede it; shown as a root"),
        "{:?}",
        r.warnings
    );
    assert_eq!(find(&r, &[2]).inclusive_ns, 600_000);
}

#[test]
fn ranks_are_summarised_per_node_and_mpi_time_per_process() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::procs_run(&dir);
    let r = merge(&load_run(&dir, None).unwrap());
    let main = find(&r, &[1]);
    let per_rank: Vec<(u32, u64, u64)> = main
        .per_rank
        .iter()
        .map(|x| (x.rank, x.calls, x.inclusive_ns))
        .collect();
    assert_eq!(per_rank, [(0, 1, 2_000_000), (1, 1, 2_400_000)]);
    assert_eq!(
        main.ranks,
        regio_analysis::RankSummary {
            count: 2,
            min_inclusive_ns: 2_000_000,
            mean_inclusive_ns: 2_200_000,
            max_inclusive_ns: 2_400_000,
            max_rank: 1,
        }
    );
    // Only rank 1 called MPI (an MPI_Allreduce measured as 0 ns); the
    // summary still lists every rank.
    let mpi: Vec<(u32, u64, u64, u64)> = r
        .mpi
        .iter()
        .map(|m| (m.rank, m.wall_ns, m.mpi_ns, m.outside_ns))
        .collect();
    assert_eq!(
        mpi,
        [(0, 2_000_000, 0, 2_000_000), (1, 2_500_000, 0, 2_500_000)]
    );
}

/// Region entries a thread's signal handlers could not record (they
/// interrupted a probe) are counted in the profile; the report says so.
#[test]
fn dropped_handler_entries_are_reported() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    let profile = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("profile-"))
        })
        .expect("a profile");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&profile).unwrap()).unwrap();
    v["threads"][1]["dropped_calls"] = serde_json::Value::from(7);
    std::fs::write(&profile, v.to_string()).unwrap();
    let r = merge(&load_run(&dir, None).unwrap());
    assert_eq!(
        r.warnings,
        ["rank 0 pid 100 thread 1: 7 region entries not recorded (made by signal handlers that interrupted a probe)"]
    );
}
