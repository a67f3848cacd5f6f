//! Exact output of every format for the synthetic runs. Text and JSON are
//! insta snapshots (tests/snapshots/); CSV and folded stacks are inline.

mod common;
mod fixtures;

use std::path::Path;

use common::{anonymize, run_dir, runs, tempdir, Proc, Thread};
use regio_analysis::render::json::JsonReport;
use regio_analysis::{load_run, merge, render, Format, Report};

fn report(dir: &Path) -> Report {
    merge(&load_run(dir, None).unwrap())
}

#[test]
fn text_of_a_multithreaded_run() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    insta::assert_snapshot!(anonymize(&render(&[report(&dir)], Format::Text), &dir));
}

#[test]
fn text_of_two_processes_with_recursion() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::procs_run(&dir);
    insta::assert_snapshot!(anonymize(&render(&[report(&dir)], Format::Text), &dir));
}

#[test]
fn text_marks_an_incomplete_run() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::signal_run(tmp.path(), &dir);
    let text = anonymize(&render(&[report(&dir)], Format::Text), tmp.path());
    assert!(
        text.contains("status:    INCOMPLETE: killed by signal 11 (SIGSEGV)"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn text_without_idf_warns_and_names_regions_by_id() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::no_idf_run(&dir);
    insta::assert_snapshot!(anonymize(&render(&[report(&dir)], Format::Text), &dir));
}

#[test]
fn text_of_an_empty_run_says_so() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::empty_run(&dir);
    let text = anonymize(&render(&[report(&dir)], Format::Text), &dir);
    assert!(
        text.ends_with("regions:   no IDF found\n\n(no regions were measured)\n"),
        "{text}"
    );
}

#[test]
fn json_of_a_multithreaded_run() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    insta::assert_snapshot!(anonymize(&render(&[report(&dir)], Format::Json), &dir));
}

#[test]
fn json_of_two_runs_reads_back_into_the_typed_model() {
    let tmp = tempdir();
    let dirs = runs(tmp.path(), &["procs", "signal"]);
    fixtures::procs_run(&dirs[0]);
    fixtures::signal_run(tmp.path(), &dirs[1]);
    let text = render(&[report(&dirs[0]), report(&dirs[1])], Format::Json);
    let back: JsonReport = serde_json::from_str(&text).unwrap();
    assert_eq!(back.runs.len(), 2);

    let procs = &back.runs[0];
    assert_eq!(procs.run_dir, dirs[0].display().to_string());
    assert_eq!(
        (procs.processes, procs.threads, procs.wall_ns),
        (2, 2, 2_500_000)
    );
    assert!(procs.complete);
    let main = &procs.drg[0];
    assert_eq!(
        (main.region, main.name.as_str(), main.kind.as_str()),
        (1, "main", "program")
    );
    assert_eq!((main.file.as_deref(), main.line), (Some("a.c"), Some(1)));
    assert_eq!(
        (main.calls, main.inclusive_ns, main.exclusive_ns),
        (2, 4_400_000, 800_000)
    );
    assert_eq!(main.percent, 176.0);
    assert_eq!(
        (
            main.threads.min_inclusive_ns,
            main.threads.mean_inclusive_ns,
            main.threads.max_inclusive_ns
        ),
        (2_000_000, 2_200_000, 2_400_000)
    );
    assert_eq!((main.threads.max_rank, main.threads.max_thread), (1, 0));
    let fib = &main.children[0];
    assert_eq!(
        (fib.calls, fib.recursive_calls, fib.min_ns, fib.max_ns),
        (40, 38, 1_500_000, 2_000_000)
    );
    assert_eq!(
        fib.per_thread
            .iter()
            .map(|t| (t.rank, t.pid, t.inclusive_ns))
            .collect::<Vec<_>>(),
        [(0, 200, 1_500_000), (1, 201, 2_000_000)]
    );

    let signal = &back.runs[1];
    assert!(!signal.complete);
    assert_eq!(
        (signal.reason.as_str(), signal.signal),
        ("signal", Some(11))
    );
    assert_eq!(signal.drg[0].open, 1);
}

/// The SPEC.md fields, checked on the raw JSON so a rename in the model
/// cannot slip through.
#[test]
fn json_nodes_carry_the_spec_fields() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::no_idf_run(&dir);
    let v: serde_json::Value =
        serde_json::from_str(&render(&[report(&dir)], Format::Json)).unwrap();
    let run = &v["runs"][0];
    for key in [
        "run_dir",
        "complete",
        "reason",
        "signal",
        "command",
        "processes",
        "threads",
        "wall_ns",
        "clock",
        "drg",
    ] {
        assert!(run.get(key).is_some(), "run lacks {key}");
    }
    fn check(node: &serde_json::Value, seen: &mut usize) {
        *seen += 1;
        for key in [
            "region",
            "name",
            "kind",
            "file",
            "line",
            "calls",
            "recursive_calls",
            "inclusive_ns",
            "exclusive_ns",
            "min_ns",
            "max_ns",
            "percent",
            "threads",
            "per_thread",
            "children",
        ] {
            assert!(node.get(key).is_some(), "node lacks {key}: {node}");
        }
        for key in [
            "count",
            "min_inclusive_ns",
            "mean_inclusive_ns",
            "max_inclusive_ns",
            "max_rank",
            "max_thread",
        ] {
            assert!(node["threads"].get(key).is_some(), "threads lacks {key}");
        }
        for t in node["per_thread"].as_array().unwrap() {
            for key in ["rank", "thread", "calls", "inclusive_ns", "exclusive_ns"] {
                assert!(t.get(key).is_some(), "per_thread lacks {key}");
            }
        }
        for c in node["children"].as_array().unwrap() {
            check(c, seen);
        }
    }
    let mut seen = 0;
    for n in run["drg"].as_array().unwrap() {
        check(n, &mut seen);
    }
    assert_eq!(seen, 3);
    // An undescribed region has no file or line.
    assert_eq!(run["drg"][0]["name"], "region#1");
    assert!(run["drg"][0]["file"].is_null() && run["drg"][0]["line"].is_null());
}

#[test]
fn csv_has_one_row_per_node() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::procs_run(&dir);
    let text = anonymize(&render(&[report(&dir)], Format::Csv), &dir);
    assert_eq!(
        text,
        "run,path,depth,region,name,kind,file,line,calls,recursive_calls,inclusive_ns,exclusive_ns,min_ns,max_ns,\
threads,min_thread_inclusive_ns,mean_thread_inclusive_ns,max_thread_inclusive_ns
RUN,main,0,1,main,program,a.c,1,2,0,4400000,800000,2000000,2400000,2,2000000,2200000,2400000
RUN,main;fib,1,2,fib,function,a.c,42,40,38,3500000,3300000,1500000,2000000,2,1500000,1750000,2000000
RUN,main;fib;helper,2,7,helper,function,a.c,62,3,0,200000,200000,50000,80000,1,200000,200000,200000
RUN,main;fib,1,8,fib,function,b.c,3,1,0,100000,100000,100000,100000,1,100000,100000,100000
RUN,main;MPI_Allreduce,1,6,MPI_Allreduce,mpi_allreduce,a.c,30,1,0,0,0,0,0,1,0,0,0
"
    );
}

/// Names straight from C source: loop headers with `;` and spaces, and a
/// name with a comma and quotes.
fn odd_names_run(dir: &Path) {
    common::write_idf(
        &dir.join("regio.idf.json"),
        &[
            (1, "function", "main", "x.c", 1, 20, None),
            (2, "loop", "for (i = 0; i < n; i++)", "x.c", 3, 8, Some(1)),
            (3, "user", "phase,\\\"one\\\"", "x.c", 10, 12, Some(1)),
        ],
    );
    common::write_profile(
        dir,
        &Proc::new(
            0,
            9,
            100,
            vec![Thread {
                thread: 0,
                nodes: vec![
                    (0, None, 1, 1, 0, 100, 10, 100, 100, 0),
                    (1, Some(0), 2, 1, 0, 60, 60, 60, 60, 0),
                    (2, Some(0), 3, 1, 0, 30, 30, 30, 30, 0),
                ],
            }],
        ),
    );
}

#[test]
fn csv_quotes_fields_that_need_it() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    odd_names_run(&dir);
    let text = anonymize(&render(&[report(&dir)], Format::Csv), &dir);
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "RUN,main,0,1,main,function,x.c,1,1,0,100,10,100,100,1,100,100,100",
            "RUN,main;for (i = 0; i < n; i++),1,2,for (i = 0; i < n; i++),loop,x.c,3,1,0,60,60,60,60,1,60,60,60",
            "RUN,\"main;phase,\"\"one\"\"\",1,3,\"phase,\"\"one\"\"\",user,x.c,10,1,0,30,30,30,30,1,30,30,30",
        ]
    );
    // And a CSV reader gets the names back.
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let names: Vec<String> = r.records().map(|rec| rec.unwrap()[4].to_string()).collect();
    assert_eq!(names, ["main", "for (i = 0; i < n; i++)", "phase,\"one\""]);
}

#[test]
fn collapsed_stacks_replace_separators_in_names() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    odd_names_run(&dir);
    assert_eq!(
        render(&[report(&dir)], Format::Collapsed),
        "main 10\nmain;for_(i_=_0__i_<_n__i++) 60\nmain;phase,\"one\" 30\n"
    );
}

#[test]
fn collapsed_stacks_disambiguate_shared_names_and_skip_zero_exclusive() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::procs_run(&dir);
    assert_eq!(
        render(&[report(&dir)], Format::Collapsed),
        "main 800000\nmain;fib@a.c:42 3300000\nmain;fib@a.c:42;helper 200000\nmain;fib@b.c:3 100000\n"
    );
}

#[test]
fn collapsed_stacks_sum_threads_and_root_several_runs_at_their_directory() {
    let tmp = tempdir();
    let dirs = runs(tmp.path(), &["one", "two"]);
    fixtures::threads_run(&dirs[0]);
    fixtures::no_idf_run(&dirs[1]);
    let text = render(&[report(&dirs[0]), report(&dirs[1])], Format::Collapsed);
    assert_eq!(
        anonymize(&text, tmp.path()),
        "RUN/one;worker 400000\nRUN/one;worker;compute 700000\nRUN/one;worker;compute;for_i 500000\n\
RUN/one;main 400000\nRUN/one;main;compute 200000\nRUN/one;main;compute;for_i 400000\n\
RUN/two;region#1 300\nRUN/two;region#1;parse 400\nRUN/two;region#1;region#2 200\n"
    );
}

#[test]
fn formats_parse_by_name() {
    assert_eq!("text".parse::<Format>().unwrap(), Format::Text);
    assert_eq!("json".parse::<Format>().unwrap(), Format::Json);
    assert_eq!("csv".parse::<Format>().unwrap(), Format::Csv);
    assert_eq!("collapsed".parse::<Format>().unwrap(), Format::Collapsed);
    assert_eq!("html".parse::<Format>().unwrap(), Format::Html);
    assert_eq!(
        "xml".parse::<Format>().unwrap_err().to_string(),
        "unknown report format `xml` (expected text, json, csv, collapsed or html)"
    );
}

/// The JSON renderer writes node by node (issue 12 item 13: serde's
/// serialiser recurses once per level); for trees of ordinary depth its
/// text must be exactly what serde's pretty printer writes.
#[test]
fn json_is_byte_for_byte_what_serde_writes() {
    let tmp = tempdir();
    let dirs = runs(tmp.path(), &["threads", "procs", "empty", "no_idf", "rust"]);
    fixtures::threads_run(&dirs[0]);
    fixtures::procs_run(&dirs[1]);
    fixtures::empty_run(&dirs[2]);
    fixtures::no_idf_run(&dirs[3]);
    fixtures::rust_ranks_run(&dirs[4]);
    let all: Vec<Report> = dirs.iter().map(|d| report(d)).collect();
    for reports in [&all[..], &all[..1], &all[2..3], &[]] {
        let serde = serde_json::to_string_pretty(&JsonReport::new(reports)).unwrap() + "\n";
        assert_eq!(render(reports, Format::Json), serde);
    }
}
