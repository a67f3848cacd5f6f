//! The overhead analysis on synthetic runs whose figures are worked out
//! by hand in the comments.

mod common;
mod fixtures;

use common::{tempdir, write_idf, write_profile, Proc};
use fixtures::{omp_baseline, omp_run_of, omp_team_thread, omp_two_threads};
use regio_analysis::overhead::{self, compensate, Categories};
use regio_analysis::{load_run, merge};

#[test]
fn categories_split_the_overhead_and_add_up() {
    let tmp = tempdir();
    let b = load_run(&omp_run_of(&tmp, "base", &omp_baseline()), None).unwrap();
    let r = load_run(&omp_run_of(&tmp, "p2", &omp_two_threads()), None).unwrap();
    overhead::check_same_regions(&b, &r).unwrap();
    assert_eq!(overhead::processors_of(&r), 2);
    let o = overhead::overhead(&merge(&b), &[(&merge(&r), 2)]);
    let run = &o.runs[0];
    // T_o = 700 - 1000 / 2.
    assert_eq!(run.total_overhead_ns, 200);
    assert_eq!(
        run.categories,
        Categories {
            data_movement: 0,
            // Barriers 80 + 160 over 2 threads.
            synchronization: 120,
            // Fork and join 10 + 10 + 20 + 10 over 2 threads.
            control_of_parallelism: 25,
            additional_computation: 0,
            // 200 sequential on the master, the other thread idle: 200 / 2.
            loss_of_parallelism: 100,
            unidentified: 200 - 245,
        }
    );
    assert_eq!(run.subcategories["synchronization"]["barrier"], 120);
    assert!((run.speedup - 1000.0 / 700.0).abs() < 1e-9);

    let main = run.regions.iter().find(|x| x.name == "main").unwrap();
    assert_eq!(
        (main.wall_ns, main.baseline_ns, main.total_overhead_ns),
        (700, 1_000, 200)
    );
    assert_eq!(main.categories, run.categories);
    // The loop: longest thread 400 against 800 / 2: no overhead.
    let lp = run.regions.iter().find(|x| x.name == "for@12").unwrap();
    assert_eq!((lp.wall_ns, lp.total_overhead_ns), (400, 0));
    assert_eq!(lp.categories, Categories::default());

    let text = overhead::text::render(&o);
    assert!(text.contains("synchronisation"), "{text}");
    assert!(text.contains("p=2"), "{text}");
    // The baseline has a column of its own: T_s, speedup 1, efficiency 100 %.
    let header = text.lines().find(|l| l.contains("p=2")).unwrap_or_default();
    assert!(header.trim_start().starts_with("baseline"), "{text}");
    let speedup = text.lines().find(|l| l.starts_with("speedup")).unwrap();
    assert!(speedup.contains("1.00"), "{text}");
    // Region tables have no baseline column.
    let region_header = text
        .lines()
        .skip_while(|l| !l.starts_with("region "))
        .nth(1)
        .unwrap_or_default();
    assert_eq!(
        region_header.split_whitespace().collect::<Vec<_>>(),
        ["p=2"],
        "{text}"
    );
}

#[test]
fn differently_instrumented_runs_are_refused_by_region() {
    let tmp = tempdir();
    let b = load_run(&omp_run_of(&tmp, "base", &omp_baseline()), None).unwrap();
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    write_idf(
        &other.join("regio.idf.json"),
        &[(1, "program", "main", "md.c", 1, 90, None)],
    );
    write_profile(&other, &omp_baseline());
    let r = load_run(&other, None).unwrap();
    let e = overhead::check_same_regions(&b, &r)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not instrumented like the baseline"), "{e}");
    assert!(
        e.contains("only in the baseline: omp_for `for@12` at md.c:12"),
        "{e}"
    );
}

#[test]
fn compensation_removes_the_probe_cost_of_descendants() {
    let tmp = tempdir();
    let r = load_run(&omp_run_of(&tmp, "base", &omp_baseline()), None).unwrap();
    let mut rep = merge(&r);
    // Probe pair cost 10 ns: main has 2 descendant calls, parallel 1.
    compensate(&mut rep, 10.0);
    let main = &rep.roots[0];
    assert_eq!((main.inclusive_ns, main.exclusive_ns), (980, 190));
    let par = &main.children[0];
    assert_eq!((par.inclusive_ns, par.exclusive_ns), (790, 0));
    assert_eq!(par.children[0].inclusive_ns, 800);
    // The process's duration loses every probe pair its thread ran,
    // main's own included (it lies outside main but inside the process).
    assert_eq!(rep.wall_ns, 1_000 - 30);
}

/// A baseline with overhead of its own (a one-thread team still forks,
/// joins and waits at its barrier): T_s / p carries half of it into T_o at
/// p = 2, so each category is net of the baseline's figure / 2 and
/// unidentified is not pushed down by it.
#[test]
fn the_baselines_own_overhead_is_netted_out() {
    let tmp = tempdir();
    // Main 1000 = 200 sequential + parallel 800 = fork 40 + loop 700
    // + barrier 20 + join 40.
    let base = Proc::new(
        0,
        1,
        1_000,
        vec![omp_team_thread(0, Some(200), [40, 700, 20, 40])],
    );
    let b = load_run(&omp_run_of(&tmp, "base", &base), None).unwrap();
    let r = load_run(&omp_run_of(&tmp, "p2", &omp_two_threads()), None).unwrap();
    let o = overhead::overhead(&merge(&b), &[(&merge(&r), 2)]);
    let run = &o.runs[0];
    assert_eq!(run.total_overhead_ns, 200);
    // As in the first test (barriers 120, fork and join 25) less the
    // baseline's barrier 20 / 2 and fork and join 80 / 2.
    assert_eq!(run.categories.synchronization, 120 - 10);
    assert_eq!(run.categories.control_of_parallelism, 25 - 40);
    assert_eq!(run.categories.loss_of_parallelism, 100);
    assert_eq!(run.categories.unidentified, 200 - (110 - 15 + 100));
    assert_eq!(run.subcategories["synchronization"]["barrier"], 110);
    assert_eq!(
        run.subcategories["control_of_parallelism"]["fork_join"],
        -15
    );
    assert!(
        run.notes
            .iter()
            .any(|n| n.contains("baseline's own overhead (100 ns")),
        "{:?}",
        run.notes
    );
    // Per region too: the parallel region's barrier share is netted.
    let par = run
        .regions
        .iter()
        .find(|x| x.kind == "omp_parallel")
        .unwrap();
    assert_eq!(par.categories.synchronization, 110);
}

/// Issue 12 item 15: a baseline with more processors than a run made
/// "efficiency 481 %"; it is refused, and runs are taken by processor
/// count (the same count in the order given).
#[test]
fn runs_are_ordered_by_processors_and_a_larger_baseline_is_refused() {
    use regio_analysis::overhead::{order_runs, OverheadError};
    let runs = |ps: &[(&str, u32)]| -> Vec<(String, u32)> {
        ps.iter().map(|(n, p)| (n.to_string(), *p)).collect()
    };
    assert_eq!(
        order_runs(
            "t1",
            1,
            &runs(&[("t4", 4), ("t2", 2), ("r2", 2), ("t8", 8)])
        )
        .unwrap(),
        [1, 2, 0, 3]
    );
    assert_eq!(order_runs("t2", 2, &runs(&[("r2", 2)])).unwrap(), [0]);
    let e = order_runs("t4", 4, &runs(&[("t2", 2), ("t1", 1), ("t8", 8)])).unwrap_err();
    assert!(
        matches!(&e, OverheadError::BaselineNotSmallest { run, run_p: 1, baseline_p: 4, .. } if run == "t1"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "the baseline t4 ran on 4 processors, more than t1 (1): give the run with the fewest processors (the sequential one) first, as the baseline"
    );
}
