//! Counters (`REGIO_COUNTERS`) in the analysis: merged per DRG node and per
//! thread, shown in JSON and text, and turned into additional computation
//! by the overhead analysis. Synthetic profiles, figures worked out in the
//! comments.

mod common;
mod fixtures;

use common::{tempdir, write_counted, Proc, Thread, C};
use fixtures::{omp_baseline, omp_loop_thread, omp_run_dir, omp_two_threads};
use regio_analysis::overhead::{self, Categories};
use regio_analysis::render::json::JsonReport;
use regio_analysis::{load_run, merge, render, Format};
use serde_json::{json, Value};

const NO_INSTRUCTIONS: &str = "not supported by this CPU or virtual machine (perf_event_open: No such file or directory (os error 2))";

/// A process whose one thread ran main once for 100 ns.
fn main_only(rank: u32, pid: u32) -> Proc {
    Proc::new(
        rank,
        pid,
        100,
        vec![Thread {
            thread: 0,
            nodes: vec![(0, None, 1, 1, 0, 100, 100, 100, 100, 0)],
        }],
    )
}

/// Two threads; counters task-clock and page-faults, instructions refused.
/// Master: main 700 (page-faults 40, task-clock 650), parallel 500 (pf 30,
/// tc 480), loop 400 (pf 25, tc 390). Worker: its mirrored main counts
/// nothing; parallel 490 (pf 5, tc 470), loop 300 (pf 3, tc 290).
fn counted_run(dir: &std::path::Path) {
    let p = Proc::new(
        0,
        1,
        700,
        vec![
            omp_loop_thread(0, Some(200), 100, 400),
            omp_loop_thread(1, None, 190, 300),
        ],
    );
    write_counted(
        dir,
        &p,
        &[
            ("task-clock", true, None),
            ("instructions", false, Some(NO_INSTRUCTIONS)),
            ("page-faults", true, None),
        ],
        &[
            (0, 0, vec![650, 40]),
            (0, 1, vec![480, 30]),
            (0, 2, vec![390, 25]),
            (1, 1, vec![470, 5]),
            (1, 2, vec![290, 3]),
        ],
    );
}

#[test]
fn counters_merge_per_node_and_per_thread() {
    let tmp = tempdir();
    let dir = omp_run_dir(&tmp, "run");
    counted_run(&dir);
    let r = merge(&load_run(&dir, None).unwrap());
    assert_eq!(r.counters.len(), 3);
    assert!(!r.counters[1].available);
    assert_eq!(r.counters[1].reason.as_deref(), Some(NO_INSTRUCTIONS));
    assert_eq!(r.processes[0].counters, r.counters);
    let main = &r.roots[0];
    // The worker's mirrored main counted nothing.
    assert_eq!(main.counters["task-clock"], 650);
    let lp = &main.children[0].children[0];
    assert_eq!(lp.counters["task-clock"], 390 + 290);
    assert_eq!(lp.counters["page-faults"], 25 + 3);
    assert!(
        !lp.counters.contains_key("instructions"),
        "never zero-filled"
    );
    let per: Vec<(u32, u64)> = lp
        .per_thread
        .iter()
        .map(|t| (t.thread, t.counters["page-faults"]))
        .collect();
    assert_eq!(per, [(0, 25), (1, 3)]);

    let text = render(std::slice::from_ref(&r), Format::Json);
    let back: JsonReport = serde_json::from_str(&text).unwrap();
    let run = &back.runs[0];
    assert_eq!(run.counters, r.counters);
    assert_eq!(run.per_process[0].counters, r.counters);
    let v: Value = serde_json::from_str(&text).unwrap();
    let jl = &v["runs"][0]["drg"][0]["children"][0]["children"][0];
    assert_eq!(
        jl["counters"],
        json!({"task-clock": 680, "page-faults": 28})
    );
    assert_eq!(jl["per_thread"][1]["counters"]["task-clock"], json!(290));
    assert_eq!(v["runs"][0]["counters"][1]["available"], json!(false));

    let text = render(std::slice::from_ref(&r), Format::Text);
    assert!(
        text.contains(&format!(
            "counters:  task-clock, page-faults; unavailable: instructions ({NO_INSTRUCTIONS})"
        )),
        "{text}"
    );
    let header = text.lines().find(|l| l.starts_with("region ")).unwrap();
    assert!(
        header.contains("%  task-clock  page-faults  threads"),
        "{header}"
    );
    let row = text.lines().find(|l| l.contains("for@12")).unwrap();
    assert!(row.contains("680 ns") && row.contains(" 28 "), "{row}");
}

#[test]
fn runs_without_counters_show_none() {
    let tmp = tempdir();
    let dir = omp_run_dir(&tmp, "run");
    common::write_profile(&dir, &main_only(0, 1));
    let r = merge(&load_run(&dir, None).unwrap());
    assert!(r.counters.is_empty() && r.roots[0].counters.is_empty());
    let json = render(std::slice::from_ref(&r), Format::Json);
    assert!(!json.contains("\"counters\""), "{json}");
    let text = render(&[r], Format::Text);
    assert!(!text.contains("counters"), "{text}");
}

#[test]
fn node_values_must_match_the_available_counters() {
    let tmp = tempdir();
    let dir = omp_run_dir(&tmp, "run");
    write_counted(
        &dir,
        &main_only(0, 7),
        &[
            ("task-clock", true, None),
            ("instructions", false, Some("x")),
        ],
        &[(0, 0, vec![90, 0])],
    );
    let e = load_run(&dir, None).unwrap_err().to_string();
    assert!(
        e.contains("node 0 has 2 counter values for 1 available counter(s)"),
        "{e}"
    );
}

#[test]
fn availability_merges_over_processes() {
    let tmp = tempdir();
    let dir = omp_run_dir(&tmp, "run");
    for (rank, pid, ok) in [(0, 11, true), (1, 12, false)] {
        let mut p = main_only(rank, pid);
        p.size = 2;
        let reason = (!ok).then_some("refused (perf_event_open: EACCES)");
        let values = if ok { vec![(0, 0, vec![1000])] } else { vec![] };
        write_counted(&dir, &p, &[("instructions", ok, reason)], &values);
    }
    let r = merge(&load_run(&dir, None).unwrap());
    assert!(!r.counters[0].available);
    assert_eq!(
        r.counters[0].reason.as_deref(),
        Some("rank 1 pid 12: refused (perf_event_open: EACCES)")
    );
    // Rank 0's count still shows on the node.
    assert_eq!(r.roots[0].counters["instructions"], 1000);
}

/// Node values from (instructions, task-clock) in a profile's layout.
type Layout = fn(u64, u64) -> Vec<u64>;

/// Counter values per (thread, node id).
type Counts = Vec<(u32, u32, Vec<u64>)>;

/// `omp_baseline`'s counts: main 10 000 instructions, parallel 8 000,
/// loop 8 000.
fn baseline_counts(v: Layout) -> Counts {
    vec![
        (0, 0, v(10_000, 990)),
        (0, 1, v(8_000, 790)),
        (0, 2, v(8_000, 790)),
    ]
}

/// `omp_two_threads`'s counts. Master: main (own instructions 2 000, as in
/// the baseline), loop 5 000 instructions, barrier 1 000 instructions of
/// spinning (synchronisation, not additional computation). Worker: loop
/// 5 000, barrier 3 000. The loop executes 10 000 instructions against the
/// baseline's 8 000: 2 000 more.
/// Loop task-clock (when counted): 350 + 250 = 600.
fn two_threads_counts(v: Layout) -> Counts {
    vec![
        (0, 0, v(8_000, 690)),
        (0, 1, v(6_000, 490)),
        (0, 3, v(5_000, 350)),
        (0, 4, v(1_000, 80)),
        (1, 1, v(8_000, 480)),
        (1, 3, v(5_000, 250)),
        (1, 4, v(3_000, 160)),
    ]
}

/// The six categories summed, to check they add up to T_o.
fn categories_sum(c: &Categories) -> i64 {
    c.data_movement
        + c.synchronization
        + c.control_of_parallelism
        + c.additional_computation
        + c.loss_of_parallelism
        + c.unidentified
}

/// The overhead of `omp_two_threads` against `omp_baseline`, both counting
/// `list` with node values laid out by `layout`.
fn overhead_of(list: &[C], layout: Layout) -> overhead::RunOverhead {
    let tmp = tempdir();
    let (b, r) = (omp_run_dir(&tmp, "base"), omp_run_dir(&tmp, "p2"));
    write_counted(&b, &omp_baseline(), list, &baseline_counts(layout));
    write_counted(&r, &omp_two_threads(), list, &two_threads_counts(layout));
    let (b, r) = (load_run(&b, None).unwrap(), load_run(&r, None).unwrap());
    overhead::check_same_regions(&b, &r).unwrap();
    let o = overhead::overhead(&merge(&b), &[(&merge(&r), 2)]);
    let run = o.runs.into_iter().next().unwrap();
    assert_eq!(
        categories_sum(&run.categories),
        run.total_overhead_ns,
        "categories add up to T_o"
    );
    run
}

/// Some note of `run` contains `text`.
fn assert_noted(run: &overhead::RunOverhead, text: &str) {
    assert!(
        run.notes.iter().any(|n| n.contains(text)),
        "no note with `{text}`: {:?}",
        run.notes
    );
}

fn region<'a>(run: &'a overhead::RunOverhead, name: &str) -> &'a Categories {
    &run.regions
        .iter()
        .find(|x| x.name == name)
        .unwrap()
        .categories
}

#[test]
fn extra_instructions_become_additional_computation() {
    let run = overhead_of(&[("instructions", true, None)], |i, _| vec![i]);
    // 2 000 extra loop instructions at the loop's 700 ns / 10 000
    // instructions (inclusive time, both threads), over p = 2: 70 ns.
    assert_eq!(run.categories.additional_computation, 70);
    assert_eq!(region(&run, "for@12").additional_computation, 70);
    assert_eq!(region(&run, "parallel@10").additional_computation, 70);
    assert_eq!(region(&run, "main").additional_computation, 70);
    assert_eq!(
        region(&run, "implicit_barrier@12").additional_computation,
        0
    );
    // Barriers 80 + 160 over 2 stay synchronisation.
    assert_eq!(run.categories.synchronization, 120);
    assert_noted(&run, "inclusive time per instruction");
    // Per region too, unidentified absorbs it.
    for x in &run.regions {
        assert_eq!(
            categories_sum(&x.categories),
            x.total_overhead_ns,
            "{}",
            x.name
        );
    }
}

#[test]
fn task_clock_gives_the_time_per_instruction_when_counted() {
    let run = overhead_of(
        &[("instructions", true, None), ("task-clock", true, None)],
        |i, t| vec![i, t],
    );
    // 2 000 extra instructions at 600 ns / 10 000, over 2: 60 ns.
    assert_eq!(run.categories.additional_computation, 60);
    assert_noted(&run, "task-clock CPU time");
}

#[test]
fn without_instruction_counts_it_is_zero_with_the_reason() {
    let run = overhead_of(
        &[("instructions", false, Some(NO_INSTRUCTIONS))],
        |_, _| vec![],
    );
    assert_eq!(run.categories.additional_computation, 0);
    let note = run
        .notes
        .iter()
        .find(|n| n.starts_with("additional computation: 0"))
        .unwrap();
    assert!(
        note.contains("could not be counted in the baseline") && note.contains(NO_INSTRUCTIONS),
        "{note}"
    );
    let run = overhead_of(&[("task-clock", true, None)], |_, t| vec![t]);
    assert_eq!(run.categories.additional_computation, 0);
    assert_noted(&run, "`instructions` was not counted in the baseline");
}
