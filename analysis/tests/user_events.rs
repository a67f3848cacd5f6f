//! User events (`regio_event`) in reports: merged per region path and name
//! over threads, shown in the text section "user events", in JSON per node
//! (and the run's `user_events` summary) and in HTML.

mod common;
mod fixtures;

use std::path::Path;

use common::{anonymize, run_dir, tempdir};
use regio_analysis::render::json::JsonReport;
use regio_analysis::{load_run, merge, render, Format, Report};
use regio_idf::rundir::{Profile, UserEventRecord};

fn rec(
    node: Option<u32>,
    name: &str,
    count: u64,
    min: Option<f64>,
    max: Option<f64>,
    sum: Option<f64>,
) -> UserEventRecord {
    UserEventRecord {
        node,
        name: name.into(),
        count,
        min,
        max,
        sum,
    }
}

/// Rows in DRG order (by inclusive time), events outside regions first.
/// `fixtures::threads_run` plus events: on worker;compute (node 1 of
/// threads 1 and 2) "residual" 0.5, 1.0 and 0.25; outside any region
/// "phase" 3; on main;compute;for i "n" once with a value that was not
/// finite; 4 events dropped on thread 2, 1 lost in the process.
fn events_run(dir: &Path) -> Report {
    fixtures::threads_run(dir);
    let file = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("profile-"))
        })
        .unwrap();
    let mut p = Profile::from_json("p", &std::fs::read_to_string(&file).unwrap()).unwrap();
    p.user_events_lost = 1;
    p.threads[0].user_events = vec![
        rec(None, "phase", 1, Some(3.0), Some(3.0), Some(3.0)),
        rec(Some(2), "n", 1, Some(1.0), None, None),
    ];
    p.threads[1].user_events = vec![rec(Some(1), "residual", 2, Some(0.5), Some(1.0), Some(1.5))];
    p.threads[2].user_events = vec![rec(
        Some(1),
        "residual",
        1,
        Some(0.25),
        Some(0.25),
        Some(0.25),
    )];
    p.threads[2].user_events_dropped = 4;
    std::fs::write(&file, serde_json::to_string(&p).unwrap()).unwrap();
    merge(&load_run(dir, None).unwrap())
}

#[test]
fn text_has_a_user_events_section() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let r = events_run(&dir);
    let text = anonymize(&render(&[r], Format::Text), &dir);
    let section = text
        .split("\nuser events: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        section,
        "per region path and name, over all threads and processes
region              event     count   min        mean  max   sum
(no region)         phase         1     3           3    3     3
worker;compute      residual      3  0.25  5.83333e-1    1  1.75
main;compute;for i  n             1     1           -    -     -
4 user events not kept: a thread's table of (node, name) pairs was full, or the event interrupted a probe (signal handler)
1 user events recorded nowhere: a process's table of event names was full
"
    );
}

#[test]
fn json_has_events_per_node_and_a_run_summary() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let r = events_run(&dir);
    let json: JsonReport = serde_json::from_str(&render(&[r], Format::Json)).unwrap();
    let run = &json.runs[0];
    let summary = run.user_events.as_ref().unwrap();
    assert_eq!((summary.dropped, summary.lost), (4, 1));
    assert_eq!(summary.outside_regions.len(), 1);
    assert_eq!(summary.outside_regions[0].name, "phase");
    let worker = run.drg.iter().find(|n| n.name == "worker").unwrap();
    let compute = &worker.children[0];
    assert_eq!(compute.name, "compute");
    let e = &compute.user_events;
    assert_eq!(e.len(), 1);
    assert_eq!(
        (
            e[0].name.as_str(),
            e[0].count,
            e[0].min,
            e[0].max,
            e[0].sum,
            e[0].mean
        ),
        (
            "residual",
            3,
            Some(0.25),
            Some(1.0),
            Some(1.75),
            Some(1.75 / 3.0)
        )
    );
    assert!(worker.user_events.is_empty());
}

#[test]
fn html_lists_the_events() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let r = events_run(&dir);
    let html = render(&[r], Format::Html);
    assert!(html.contains("<h2>user events</h2>"), "{html}");
    assert!(
        html.contains("<tr><td>worker;compute</td><td>residual</td><td class=\"num\">3</td><td class=\"num\">0.25</td>"),
        "{html}"
    );
    assert!(
        html.contains("<p class=\"warning\">4 user events not kept"),
        "{html}"
    );
}

#[test]
fn runs_without_events_show_no_section() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    let r = merge(&load_run(&dir, None).unwrap());
    assert!(!render(std::slice::from_ref(&r), Format::Text).contains("user events"));
    assert!(!render(std::slice::from_ref(&r), Format::Json).contains("user_events"));
    assert!(!render(&[r], Format::Html).contains("user events"));
}

/// `events_run` plus the same process again as rank 1 (another pid) with
/// its own "residual" values on worker;compute (4.0 and 0.125) and no
/// other events: per-rank figures in JSON and rows per rank in the text.
#[test]
fn events_from_several_ranks_keep_per_rank_figures() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    events_run(&dir);
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("profile-"))
        })
        .unwrap();
    let mut p = Profile::from_json("p", &std::fs::read_to_string(&file).unwrap()).unwrap();
    p.rank = 1;
    p.pid += 1;
    p.user_events_lost = 0;
    for t in &mut p.threads {
        t.user_events.clear();
        t.user_events_dropped = 0;
    }
    p.threads[1].user_events = vec![rec(
        Some(1),
        "residual",
        2,
        Some(0.125),
        Some(4.0),
        Some(4.125),
    )];
    std::fs::write(
        dir.join(regio_idf::rundir::profile_file_name(1, p.pid)),
        serde_json::to_string(&p).unwrap(),
    )
    .unwrap();
    let r = merge(&load_run(&dir, None).unwrap());

    let json: JsonReport =
        serde_json::from_str(&render(std::slice::from_ref(&r), Format::Json)).unwrap();
    let run = &json.runs[0];
    let worker = run.drg.iter().find(|n| n.name == "worker").unwrap();
    let e = &worker.children[0].user_events[0];
    assert_eq!(
        (e.name.as_str(), e.count, e.min, e.max),
        ("residual", 5, Some(0.125), Some(4.0))
    );
    let per_rank: Vec<_> = e
        .per_rank
        .iter()
        .map(|k| (k.rank, k.count, k.min, k.max, k.sum, k.mean))
        .collect();
    assert_eq!(
        per_rank,
        [
            (0, 3, Some(0.25), Some(1.0), Some(1.75), Some(1.75 / 3.0)),
            (1, 2, Some(0.125), Some(4.0), Some(4.125), Some(4.125 / 2.0)),
        ]
    );
    // Events of one rank only: no per-rank list in JSON (it would repeat
    // the figures); in the report itself, that rank alone.
    let phase = &run.user_events.as_ref().unwrap().outside_regions[0];
    assert!(phase.per_rank.is_empty(), "{:?}", phase.per_rank);
    let outside = &r.user_events.per_node[&Vec::new()][0];
    assert_eq!(
        outside
            .per_rank
            .iter()
            .map(|k| (k.rank, k.count))
            .collect::<Vec<_>>(),
        [(0, 1)]
    );

    let text = anonymize(&render(&[r], Format::Text), &dir);
    let section = text
        .split("\nuser events: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        section,
        "per region path and name, over all threads and processes
region              event     count    min        mean  max    sum
(no region)         phase         1      3           3    3      3
worker;compute      residual      5  0.125       1.175    4  5.875
                      rank 0      3   0.25  5.83333e-1    1   1.75
                      rank 1      2  0.125      2.0625    4  4.125
main;compute;for i  n             1      1           -    -      -
4 user events not kept: a thread's table of (node, name) pairs was full, or the event interrupted a probe (signal handler)
1 user events recorded nowhere: a process's table of event names was full
"
    );
}
