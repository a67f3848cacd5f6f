//! The analysis commands of the `instrument` binary on inputs that broke
//! them (issue 12): a 100k-deep DRG (`report`), runs given in the wrong
//! order (`overhead`), the `experiment --help` text and the output of
//! `calibrate`.

#[path = "../../analysis/tests/deep_chain/mod.rs"]
mod deep_chain;

use std::path::Path;
use std::process::{Command, Output};

fn instrument(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_instrument"))
        .args(args)
        .output()
        .expect("run instrument")
}

/// `instrument calibrate` with short repetitions into `cal`.
fn calibrate(cal: &std::path::Path, attempts: &str, max_spread: &str) -> Output {
    instrument(&[
        "calibrate",
        "--ops",
        "200",
        "--repetitions",
        "21",
        "--attempts",
        attempts,
        "--max-spread",
        max_spread,
        "--out",
        &cal.display().to_string(),
    ])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Item 13: the binary runs on the main thread's stack; every format of a
/// 100k-deep chain is written, and is what the library renders.
#[test]
fn report_of_a_100k_deep_chain_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    deep_chain::write_chain(dir, 100_000);
    let report = regio_analysis::merge(&regio_analysis::load_run(dir, None).unwrap());
    for format in ["text", "json", "csv", "collapsed", "html"] {
        let out = instrument(&["report", "--format", format, &dir.display().to_string()]);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{format}: {:?} {stderr}", out.status);
        assert!(stderr.is_empty(), "{format}: {stderr}");
        let expected =
            regio_analysis::render(std::slice::from_ref(&report), format.parse().unwrap());
        assert!(
            out.stdout == expected.as_bytes(),
            "{format}: output differs"
        );
    }
    drop(report);
    assert!(Path::new(dir).exists());
}

/// A run of region 1 (`f1`) on `threads` threads, `wall_ns` long.
fn threads_run(dir: &Path, threads: u32, wall_ns: u64) {
    use regio_idf::rundir::{profile_file_name, Profile, ThreadProfile};
    std::fs::create_dir_all(dir).unwrap();
    deep_chain::write_chain(dir, 1);
    let file = dir.join(profile_file_name(0, 4242));
    let text = std::fs::read_to_string(&file).unwrap();
    let mut p = Profile::from_json("p", &text).unwrap();
    p.duration_ns = wall_ns;
    let mut node = p.threads[0].nodes[0].clone();
    node.inclusive_ns = wall_ns;
    node.exclusive_ns = wall_ns;
    p.threads = (0..threads)
        .map(|t| ThreadProfile {
            thread: t,
            os_tid: 4242 + u64::from(t),
            finished: false,
            dropped_calls: 0,
            messages: Vec::new(),
            messages_dropped: 0,
            user_events: Vec::new(),
            user_events_dropped: 0,
            nodes: vec![node.clone()],
        })
        .collect();
    std::fs::write(&file, serde_json::to_string(&p).unwrap()).unwrap();
}

/// Item 15: `instrument overhead RUN-4 RUN-1` printed an efficiency of
/// 481 %; a baseline with more processors than a run is refused.
#[test]
fn overhead_refuses_a_baseline_larger_than_a_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (t4, t1) = (tmp.path().join("t4"), tmp.path().join("t1"));
    threads_run(&t4, 4, 100_000_000);
    threads_run(&t1, 1, 380_000_000);
    let out = instrument(&[
        "overhead",
        "--no-compensation",
        &t4.display().to_string(),
        &t1.display().to_string(),
    ]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert_eq!(
        stderr,
        format!(
            "error: the baseline {} ran on 4 processors, more than {} (1): give the run with the fewest processors (the sequential one) first, as the baseline\n",
            t4.display(),
            t1.display()
        )
    );
}

/// Item 15: runs given out of order are taken by processor count, and
/// the command says so.
#[test]
fn overhead_takes_runs_by_processor_count_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs: Vec<_> = ["t1", "t4", "t2"]
        .iter()
        .map(|n| tmp.path().join(n))
        .collect();
    threads_run(&dirs[0], 1, 400_000_000);
    threads_run(&dirs[1], 4, 110_000_000);
    threads_run(&dirs[2], 2, 210_000_000);
    let args: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let out = instrument(&[
        "overhead",
        "--no-compensation",
        &args[0],
        &args[1],
        &args[2],
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        format!(
            "note: runs taken in order of processor count: p=2 {}, p=4 {}\n",
            args[2], args[1]
        )
    );
    let p2 = stdout.find(&format!("p = 2    {}", args[2])).unwrap();
    let p4 = stdout.find(&format!("p = 4    {}", args[1])).unwrap();
    assert!(p2 < p4, "{stdout}");
    assert!(stdout.contains("efficiency"), "{stdout}");
    for line in stdout.lines().filter(|l| l.starts_with("efficiency")) {
        assert_eq!(
            line.split_whitespace().collect::<Vec<_>>(),
            ["efficiency", "100%", "95%", "91%"]
        );
    }
}

/// Item 16: clap makes every `{n}` of a help text a line break; the
/// `--launcher` help must show the placeholder.
#[test]
fn experiment_help_shows_the_launcher_placeholder() {
    let out = instrument(&["experiment", "--help"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.contains("How to start N ranks; `{n}` is replaced by the rank count"),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
}

/// Item 18: `calibrate` reports the spread of its repetitions with the
/// costs, and stores them (here with any spread accepted: the machine
/// running the tests is busy).
#[test]
fn calibrate_reports_the_spread_and_stores_it() {
    let tmp = tempfile::tempdir().unwrap();
    let cal = tmp.path().join("cal.json");
    let out = calibrate(&cal, "5", "100000");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let numbers = |line: &str| -> Vec<f64> {
        line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|w| !w.is_empty() && *w != ".")
            .map(|w| w.parse::<f64>().unwrap())
            .collect()
    };
    let shape = |line: &str| -> String {
        line.split(|c: char| c.is_ascii_digit() || c == '.')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join("#")
    };
    assert_eq!(
        shape(lines[0]),
        "probe enter+exit # ns, clock read # ns, lock+unlock # ns"
    );
    assert_eq!(
        shape(lines[1]),
        "lowest tenth of # undisturbed repetitions of #; probe spread # % (highest tenth # ns)"
    );
    assert_eq!(lines[2], format!("stored in {}", cal.display()));
    let costs = numbers(lines[0]);
    let spread = numbers(lines[1]);
    assert!(costs.iter().all(|c| *c > 0.0), "{stdout}");
    assert_eq!(spread[1], 21.0);
    assert!(spread[0] >= 5.0 && spread[0] <= 21.0, "{stdout}");
    assert!(spread[3] >= costs[0] - 0.05, "{stdout}");

    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cal).unwrap()).unwrap();
    // The text shows the stored value rounded to one decimal: compare the
    // same rounding, not a difference (a tie such as 3.25 is 0.05 away).
    assert_eq!(
        format!("{:.1}", stored["probe_pair_ns"].as_f64().unwrap()),
        format!("{:.1}", costs[0]),
        "{stdout}"
    );
    assert!(stored["probe_pair_spread_percent"].as_f64().unwrap() >= 0.0);
    assert_eq!(stored["repetitions"], 21);
    assert_eq!(stored["repetitions_used"].as_f64(), Some(spread[0]));
}

/// Item 18: a calibration whose spread is too wide is refused, with
/// nothing stored and a non-zero exit (no spread at all is accepted here).
#[test]
fn calibrate_refuses_a_spread_too_wide() {
    let tmp = tempfile::tempdir().unwrap();
    let cal = tmp.path().join("cal.json");
    let out = calibrate(&cal, "1", "0");
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(out.stdout.is_empty());
    assert!(stderr.starts_with("error: the "), "{stderr}");
    assert!(
        stderr.contains("; nothing was stored. Run `instrument calibrate` again when the machine is quieter, or accept a wider spread with --max-spread PERCENT (REGIO_CALIBRATE_MAX_SPREAD)\n"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!cal.exists());
}

#[path = "../../analysis/tests/common/mod.rs"]
mod profiles;

fn score(args: &[&str], dir: &Path) -> String {
    let mut all = vec!["score"];
    all.extend_from_slice(args);
    let dir = dir.display().to_string();
    all.push(&dir);
    let out = instrument(&all);
    assert!(out.status.success(), "{all:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The rules of a filter file (comments left out).
fn rules(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// `instrument score` as a user runs it: the calibration file of this host
/// gives the cost (another host's is ignored), `--format json` gives the
/// same figures, `--cheap-ns` and `--min-calls` move the threshold, and
/// `--filter-out` writes a filter the instrumenter's `--filter` reads.
#[test]
fn score_takes_the_calibration_thresholds_and_writes_its_filter() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    profiles::write_hot_cheap_run(&run, &[(0, 10)]);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let calibration = |host: &str| {
        let path = tmp.path().join(format!("cal-{host}.json"));
        let cal = serde_json::json!({
            "host": host, "probe_pair_ns": 20.0, "clock_read_ns": 10.0, "lock_pair_ns": 30.0
        });
        std::fs::write(&path, cal.to_string()).unwrap();
        path.display().to_string()
    };
    let ours = calibration(&host);
    let filter = tmp.path().join("hot.filter");
    let filter_arg = filter.display().to_string();

    let shown = score(&["--calibration", &ours, "--filter-out", &filter_arg], &run);
    assert!(shown.contains("at 20.0 ns per enter/exit pair"), "{shown}");
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with('-') && l.contains("axpy") && l.contains("blas.c:5")),
        "{shown}"
    );
    assert_eq!(rules(&filter), ["exclude region axpy"]);

    let json = |args: &[&str]| -> serde_json::Value {
        serde_json::from_str(&score(args, &run)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    };
    let row = |v: &serde_json::Value, name: &str| -> serde_json::Value {
        v["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no row {name} in {v}"))
    };
    let v = json(&["--format", "json", "--calibration", &ours]);
    assert_eq!(v["probe_pair_ns"], 20.0);
    assert_eq!(v["cheap_ns"], 200.0, "10 calibrated probe pairs");
    assert_eq!(row(&v, "axpy")["calls"], 1_000_000);
    assert_eq!(row(&v, "axpy")["cost_ns"], 20.0 * 1e6);
    assert_eq!(row(&v, "axpy")["excluded"], true);
    assert_eq!(row(&v, "rare")["excluded"], false, "10 calls: not hot");

    // Lower the call count that makes a region hot: `rare` (100 ns) goes
    // too; MPI and user regions are never suggested.
    let v = json(&[
        "--format",
        "json",
        "--calibration",
        &ours,
        "--min-calls",
        "10",
        "--filter-out",
        &filter_arg,
    ]);
    assert_eq!(row(&v, "rare")["excluded"], true);
    assert_eq!(row(&v, "MPI_Send")["excluded"], false);
    assert_eq!(row(&v, "phase")["excluded"], false);
    assert_eq!(
        rules(&filter),
        ["exclude region axpy", "exclude region rare"]
    );
    // A cheaper threshold than axpy's 50 ns mean keeps everything.
    let v = json(&[
        "--format",
        "json",
        "--calibration",
        &ours,
        "--cheap-ns",
        "30",
    ]);
    assert!(
        v["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|r| r["excluded"] == false),
        "{v}"
    );

    // Another host's calibration is not this machine's probe cost.
    let theirs = calibration("another-host");
    let v = json(&["--format", "json", "--calibration", &theirs]);
    assert_eq!(v["probe_pair_ns"], serde_json::Value::Null);
    assert_eq!(row(&v, "axpy")["cost_ns"], serde_json::Value::Null);
    assert_eq!(v["cheap_ns"], 1000.0);

    // The written filter is one the instrumenter takes: axpy and rare
    // get no probes, main does.
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("blas.c"),
        "double axpy(double a, double x) { double s = 0; for (int i = 0; i < 3; i++) s += a * x; return s; }\n\
         int rare(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n\
         int main(void) { return (int)axpy(1, 2) + rare(3) - 9; }\n",
    )
    .unwrap();
    let out_dir = tmp.path().join("inst");
    let out = instrument(&[
        &src.display().to_string(),
        "--out",
        &out_dir.display().to_string(),
        "--regions",
        "functions",
        "--filter",
        &filter_arg,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let idf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("regio.idf.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = idf["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(names.contains(&"main"), "{names:?}");
    assert!(
        !names.contains(&"axpy") && !names.contains(&"rare"),
        "{names:?}"
    );
}
