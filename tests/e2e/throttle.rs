//! Automatic throttling (`REGIO_THROTTLE`) end to end: testdata/throttle/
//! programs call a tiny function 10^6 times and a microseconds-long one
//! 110,000 times inside a normal function.
//!
//! - Default (variable unset): the tiny function stops being measured at
//!   10,000 calls (the default threshold; the decision is taken at the
//!   exit that reaches it, or later if a burst of preemptions pushed the
//!   mean up until then), the node says so in the profile and in `report`
//!   JSON and text; the long function, past the threshold too, stays
//!   measured with exact counts. Each test holds the machine (its
//!   decisions depend on time).
//! - `off`: every count exact. `CALLS,NS`: both numbers honoured.
//! - A bad value is a warning naming the variable, and the default holds.
//! - In trace mode the moment is a `throttled` record.
//! - The same program in Fortran (SKIPPED without gfortran).
//!
//! Every other e2e command runs with `REGIO_THROTTLE=off`
//! (`common::cmd::measure_everything`); these tests set or remove it.

use std::path::{Path, PathBuf};
use std::process::Command;

use regio_trace_format::{decode, Event};
use serde_json::Value;

use crate::common::machine;
use crate::common::profiles;
use crate::common::report::{only_run, report_json, u64_field, visit};
use crate::common::{
    cc, compile, instrument_bin, instrument_flags, instrument_testdata, require_tool, run, run_ok,
    testdata, Run, TestDir,
};

const TINY_CALLS: u64 = 1_000_000;
const SLOW_CALLS: u64 = 110_000;
const DEFAULT_CALLS: u64 = 10_000;

/// Instruments `testdata/throttle/<file>` with `--regions functions` and
/// builds it with `compiler` and the `instrument flags` of `lang_flags`.
fn build(tmp: &TestDir, file: &str, compiler: &str, lang_flags: &str) -> PathBuf {
    let inst = instrument_testdata(tmp, "throttle", file, "functions");
    let mut flags: Vec<String> = vec!["-O2".into(), "-g".into()];
    flags.extend(instrument_flags(lang_flags));
    let exe = tmp.join("prog");
    compile(
        compiler,
        &flags,
        &[inst.join(file)],
        &instrument_flags("--libs"),
        &exe,
    );
    exe
}

/// Runs `exe` into `run_dir` with REGIO_THROTTLE set to `throttle` (None:
/// unset, the default) and `extra` variables.
fn measure(exe: &Path, run_dir: &Path, throttle: Option<&str>, extra: &[(&str, &str)]) -> Run {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_MODE")
        .env("REGIO_DIR", run_dir);
    match throttle {
        Some(v) => c.env("REGIO_THROTTLE", v),
        None => c.env_remove("REGIO_THROTTLE"),
    };
    for (k, v) in extra {
        c.env(k, v);
    }
    let r = run(&mut c);
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    r
}

/// Per region name (lower case): (calls, throttled_at) of its report node;
/// each region of these programs has one node.
fn nodes(run_dir: &Path) -> Vec<(String, u64, Option<u64>)> {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    visit(run, &mut |n, _| {
        let name = n["name"].as_str().unwrap_or("").to_ascii_lowercase();
        out.push((name, u64_field(n, "calls"), n["throttled_at"].as_u64()));
    });
    out
}

fn node(nodes: &[(String, u64, Option<u64>)], name: &str) -> (u64, Option<u64>) {
    let hits: Vec<_> = nodes.iter().filter(|n| n.0 == name).collect();
    assert_eq!(hits.len(), 1, "one node `{name}` in {nodes:?}");
    (hits[0].1, hits[0].2)
}

fn report_text(run_dir: &Path) -> String {
    run_ok(Command::new(instrument_bin()).arg("report").arg(run_dir)).stdout
}

/// `throttled_at` of every node in the profiles of `run_dir`, by region id.
fn profile_marks(run_dir: &Path) -> Vec<(u64, u64, u64)> {
    profiles::nodes(&profiles::read_all(run_dir))
        .filter_map(|(_, _, n)| Some((u64::from(n.region), n.throttled_at?, n.calls)))
        .collect()
}

/// The call count at which the default throttle stopped the tiny function
/// (calls and the mark agree; 10,000 unless preemptions delayed it).
fn throttled_by_default((calls, at): (u64, Option<u64>)) -> u64 {
    assert_eq!(Some(calls), at, "tiny must be throttled");
    assert!(
        (DEFAULT_CALLS..TINY_CALLS).contains(&calls),
        "throttled at {calls}"
    );
    calls
}

/// The `throttle` setting the profile of `run_dir` records.
fn profile_setting(run_dir: &Path) -> Option<(u64, u64)> {
    let p = profiles::read_all(run_dir).into_iter().next()?;
    p.throttle.map(|t| (t.calls, t.ns))
}

#[test]
fn default_throttles_the_tiny_function_and_says_so() {
    let _machine = machine::hold();
    let tmp = TestDir::new("throttle-default");
    let exe = build(&tmp, "hot.c", &cc(), "--cflags");
    let plain = run_ok(&mut Command::new({
        let p = tmp.join("plain");
        compile(
            &cc(),
            &["-O2".into()],
            &[testdata().join("throttle/hot.c")],
            &[],
            &p,
        );
        p
    }));
    let run_dir = tmp.join("run");
    let r = measure(&exe, &run_dir, None, &[]);
    assert_eq!(r.stdout, plain.stdout, "the program's output is its own");
    let n = nodes(&run_dir);
    let at = throttled_by_default(node(&n, "tiny"));
    assert_eq!(
        node(&n, "slow"),
        (SLOW_CALLS, None),
        "long calls stay measured"
    );
    assert_eq!(node(&n, "work"), (1, None));
    assert_eq!(node(&n, "main"), (1, None));
    let marks = profile_marks(&run_dir);
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(profile_setting(&run_dir), Some((DEFAULT_CALLS, 1000)));
    assert_eq!((marks[0].1, marks[0].2), (at, at));
    let text = report_text(&run_dir);
    assert!(
        text.contains(&format!("[throttled at {at} calls]")),
        "{text}"
    );
    assert!(text.contains("throttled regions: 1"), "{text}");
    assert!(
        text.contains(&format!("tiny (hot.c:9) in work: throttled at {at} calls")),
        "{text}"
    );
    assert!(
        text.contains("parent's exclusive time includes them"),
        "{text}"
    );
    let json = report_json(&[run_dir.as_path()]).unwrap_or_else(|e| panic!("{e}"));
    let whole = only_run(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        whole["throttled"].as_array().map(Vec::len),
        Some(1),
        "{whole}"
    );
    assert_eq!(whole["throttled"][0]["parents"][1], "work", "{whole}");
    // `overhead` reads a throttled run as any other (here against a
    // baseline of the same program measured throughout).
    let off = tmp.join("run-off");
    measure(&exe, &off, Some("off"), &[]);
    let o = run(Command::new(instrument_bin())
        .arg("overhead")
        .arg(&off)
        .arg(&run_dir));
    assert_eq!(o.code(), Some(0), "{}", o.describe());
}

#[test]
fn off_measures_every_call() {
    let _machine = machine::hold();
    let tmp = TestDir::new("throttle-off");
    let exe = build(&tmp, "hot.c", &cc(), "--cflags");
    let run_dir = tmp.join("run");
    measure(&exe, &run_dir, Some("off"), &[]);
    let n = nodes(&run_dir);
    assert_eq!(node(&n, "tiny"), (TINY_CALLS, None));
    assert_eq!(node(&n, "slow"), (SLOW_CALLS, None));
    assert!(profile_marks(&run_dir).is_empty());
    assert_eq!(profile_setting(&run_dir), None);
    assert!(!report_text(&run_dir).contains("throttled"));
}

#[test]
fn custom_calls_and_ns_are_honoured() {
    let _machine = machine::hold();
    let tmp = TestDir::new("throttle-custom");
    let exe = build(&tmp, "hot.c", &cc(), "--cflags");
    // 1000 calls, 1 ms: both functions are brief against that.
    let run_dir = tmp.join("run");
    measure(&exe, &run_dir, Some("1000,1000000"), &[]);
    let n = nodes(&run_dir);
    assert_eq!(node(&n, "tiny"), (1000, Some(1000)));
    assert_eq!(node(&n, "slow"), (1000, Some(1000)));
    assert_eq!(node(&n, "work"), (1, None));
    // 1000 calls, 1 ns: nothing is that brief.
    let run_dir = tmp.join("run2");
    measure(&exe, &run_dir, Some("1000,1"), &[]);
    let n = nodes(&run_dir);
    assert_eq!(node(&n, "tiny"), (TINY_CALLS, None));
    assert_eq!(node(&n, "slow"), (SLOW_CALLS, None));
}

#[test]
fn bad_values_warn_and_keep_the_default() {
    let _machine = machine::hold();
    let tmp = TestDir::new("throttle-bad");
    let exe = build(&tmp, "hot.c", &cc(), "--cflags");
    for (i, bad) in ["lots", "100000", "5,x", "0,100"].iter().enumerate() {
        let run_dir = tmp.join(format!("run{i}"));
        let r = measure(&exe, &run_dir, Some(bad), &[]);
        assert!(
            r.stderr.contains(&format!(
                "regio: REGIO_THROTTLE `{bad}` is not CALLS,NS (two positive integers"
            )) && r.stderr.contains("using the default 10000,"),
            "{}",
            r.describe()
        );
        let n = nodes(&run_dir);
        throttled_by_default(node(&n, "tiny"));
    }
}

#[test]
fn trace_mode_records_the_moment() {
    let _machine = machine::hold();
    let tmp = TestDir::new("throttle-trace");
    let exe = build(&tmp, "hot.c", &cc(), "--cflags");
    let run_dir = tmp.join("run");
    measure(
        &exe,
        &run_dir,
        Some("1000,1000000"),
        &[("REGIO_MODE", "trace")],
    );
    let mut throttled = Vec::new();
    let mut tiny_enters = 0u64;
    let marks = profile_marks(&run_dir);
    let idf = std::fs::read_to_string(run_dir.join("regio.idf.json"))
        .unwrap_or_else(|e| panic!("regio.idf.json: {e}"));
    let idf: Value = serde_json::from_str(&idf).unwrap_or_else(|e| panic!("{e}"));
    let tiny_id = idf["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["name"] == "tiny")
        .and_then(|r| r["id"].as_u64())
        .unwrap_or_else(|| panic!("no region tiny in {idf}")) as u32;
    for e in std::fs::read_dir(&run_dir).unwrap_or_else(|e| panic!("{e}")) {
        let path = e.unwrap_or_else(|e| panic!("{e}")).path();
        if path.extension().is_some_and(|x| x == "rtrace") {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
            let file = decode(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for r in &file.records {
                match r.event {
                    Event::Throttled { region } => throttled.push(region),
                    // C ids in traces are the object's base + the IDF id.
                    Event::Enter { region }
                        if region % regio_idf::rundir::OBJECT_ID_STRIDE == tiny_id =>
                    {
                        tiny_enters += 1
                    }
                    _ => {}
                }
            }
        }
    }
    throttled.sort_unstable();
    let mut want: Vec<u32> = marks.iter().map(|m| m.0 as u32).collect();
    want.sort_unstable();
    assert_eq!(throttled, want, "one record per throttled region");
    assert_eq!(tiny_enters, 1000, "the trace stops where the profile does");
}

#[test]
fn fortran_program_is_throttled_too() {
    let _machine = machine::hold();
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("throttle-fortran");
    let exe = build(&tmp, "hot.f90", "gfortran", "--fflags");
    let run_dir = tmp.join("run");
    measure(&exe, &run_dir, None, &[]);
    let n = nodes(&run_dir);
    throttled_by_default(node(&n, "tiny"));
    assert_eq!(node(&n, "slow"), (SLOW_CALLS, None));
    let run_dir = tmp.join("run-off");
    measure(&exe, &run_dir, Some("off"), &[]);
    let n = nodes(&run_dir);
    assert_eq!(node(&n, "tiny"), (TINY_CALLS, None));
    assert_eq!(node(&n, "slow"), (SLOW_CALLS, None));
}

/// Per node: (path of lower-case names from the root, calls,
/// throttled_at).
type PathNode = (Vec<String>, u64, Option<u64>);

fn path_nodes(run_dir: &Path) -> Vec<PathNode> {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let name = |n: &Value| n["name"].as_str().unwrap_or("").to_ascii_lowercase();
    let mut out = Vec::new();
    visit(run, &mut |n, above| {
        let mut path: Vec<String> = above.iter().map(|a| name(a)).collect();
        path.push(name(n));
        out.push((path, u64_field(n, "calls"), n["throttled_at"].as_u64()));
    });
    out
}

fn calls_at(nodes: &[PathNode], path: &[&str]) -> Option<u64> {
    nodes.iter().find(|n| n.0 == path).map(|n| n.1)
}

/// testdata/throttle/flips.c: C probe gates (`regio_gates`) that change
/// while regions are open. A recursive function is throttled (at any of
/// its guard exits, possibly with frames of it open) and a tiny one
/// mid-run; the event mask goes off and on
/// inside a user region and inside a function region. Every region still
/// closes where it ends (the regions after them nest where the program
/// puts them), counts are exact where nothing is throttled, a filtered
/// region has no node, and REGIO_DISABLE writes nothing; the output is
/// the same in every case.
#[test]
fn gates_that_flip_while_regions_are_open_keep_the_stack() {
    check_flips("flips.c", &cc(), "--cflags");
}

/// testdata/throttle/flips.f90, the same from Fortran, whose probes read
/// no gate (the runtime does) and whose exits cannot tell whether their
/// entry made a frame: the same shapes and counts.
#[test]
fn fortran_gates_that_flip_while_regions_are_open_keep_the_stack() {
    if require_tool("gfortran", "gfortran") {
        check_flips("flips.f90", "gfortran", "--fflags");
    }
}

fn check_flips(file: &str, compiler: &str, lang_flags: &str) {
    let _machine = machine::hold();
    let tmp = TestDir::new(&format!("throttle-flips-{file}"));
    let inst = instrument_testdata(&tmp, "throttle", file, "functions,user");
    let mut flags: Vec<String> = vec!["-O2".into()];
    flags.extend(instrument_flags(lang_flags));
    let exe = tmp.join("prog");
    compile(
        compiler,
        &flags,
        &[inst.join(file)],
        &instrument_flags("--libs"),
        &exe,
    );
    // Nothing throttled: exact counts, recursion folded.
    let off = tmp.join("off");
    let r_off = measure(&exe, &off, Some("off"), &[]);
    let n = path_nodes(&off);
    assert_eq!(calls_at(&n, &["main"]), Some(1), "{n:?}");
    assert_eq!(calls_at(&n, &["main", "rec"]), Some(80_000), "{n:?}");
    assert_eq!(
        calls_at(&n, &["main", "rec", "leaf"]),
        Some(80_000),
        "{n:?}"
    );
    // Entered while measured, left while functions are masked: closed at
    // its own exit, so `phase` is main's child, not its.
    assert_eq!(calls_at(&n, &["main", "masked_inside"]), Some(1), "{n:?}");
    assert_eq!(calls_at(&n, &["main", "phase"]), Some(1), "{n:?}");
    assert_eq!(calls_at(&n, &["main", "phase", "span"]), Some(1), "{n:?}");
    assert_eq!(n.len(), 6, "nothing measured while masked: {n:?}");
    // Throttled mid-run (every region under 1 ms per call, past 1000
    // calls): same shape, rec and leaf marked, the rest exact.
    let low = tmp.join("low");
    let r_low = measure(&exe, &low, Some("1000,1000000"), &[]);
    assert_eq!(r_low.stdout, r_off.stdout);
    let n = path_nodes(&low);
    for path in [
        &["main"][..],
        &["main", "masked_inside"],
        &["main", "phase"],
        &["main", "phase", "span"],
    ] {
        assert_eq!(calls_at(&n, path), Some(1), "{path:?}: {n:?}");
    }
    let rec = n.iter().find(|x| x.0 == ["main", "rec"]).cloned();
    let leaf = n.iter().find(|x| x.0 == ["main", "rec", "leaf"]).cloned();
    let (Some(rec), Some(leaf)) = (rec, leaf) else {
        panic!("rec and leaf measured until throttled: {n:?}");
    };
    assert!(rec.2.is_some() && leaf.2.is_some(), "{n:?}");
    assert!(rec.1 < 80_000 && leaf.1 < 80_000, "{n:?}");
    assert_eq!(n.len(), 6, "no region nests under a throttled one: {n:?}");
    // Filtered: no node, no call into the runtime for it; the rest exact.
    let filter = tmp.join("leaf.filter");
    std::fs::write(&filter, "exclude region leaf\n").unwrap_or_else(|e| panic!("{e}"));
    let filtered = tmp.join("filtered");
    let filter_text = filter.to_string_lossy().into_owned();
    let r_f = measure(
        &exe,
        &filtered,
        Some("off"),
        &[("REGIO_FILTER", filter_text.as_str())],
    );
    assert_eq!(r_f.stdout, r_off.stdout);
    let n = path_nodes(&filtered);
    assert_eq!(calls_at(&n, &["main", "rec"]), Some(80_000), "{n:?}");
    assert!(
        n.iter().all(|x| !x.0.contains(&"leaf".to_string())),
        "{n:?}"
    );
    // REGIO_DISABLE: every probe gated, nothing written.
    let disabled = tmp.join("disabled");
    let r_d = measure(&exe, &disabled, Some("off"), &[("REGIO_DISABLE", "1")]);
    assert_eq!(r_d.stdout, r_off.stdout);
    assert!(!disabled.exists(), "REGIO_DISABLE writes no run directory");
}

/// Calls of `fib(n)` (testdata/throttle/fib.c): fib_calls(n) =
/// fib_calls(n-1) + fib_calls(n-2) + 1.
fn fib_calls(n: u32) -> u64 {
    let (mut a, mut b) = (1u64, 1u64); // fib_calls(0), fib_calls(1)
    for _ in 1..n {
        (a, b) = (b, a + b + 1);
    }
    if n == 0 {
        a
    } else {
        b
    }
}

/// The profile node of `fib` (the IDF's region named so) and the
/// profile's `complete` flag; the program has one thread and fib one node
/// (recursion folded).
fn fib_node(run_dir: &Path) -> (regio_idf::rundir::NodeRecord, bool) {
    let idf = std::fs::read_to_string(run_dir.join("regio.idf.json"))
        .unwrap_or_else(|e| panic!("regio.idf.json: {e}"));
    let idf: Value = serde_json::from_str(&idf).unwrap_or_else(|e| panic!("{e}"));
    let fib = idf["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["name"] == "fib")
        .and_then(|r| r["id"].as_u64())
        .unwrap_or_else(|| panic!("no region fib in {idf}")) as u32;
    let all = profiles::read_all(run_dir);
    assert_eq!(all.len(), 1, "one process");
    let hits: Vec<_> = profiles::nodes(&all)
        .filter(|(_, _, n)| profiles::local_id(n) == fib)
        .map(|(_, _, n)| n.clone())
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "one node of fib (recursion folded): {hits:?}"
    );
    (hits[0].clone(), all[0].complete)
}

/// testdata/throttle/fib.c: a recursive C function (its exits are guard
/// cleanups, made only for a recorded entry) stops being timed in the
/// middle of its first recursion, at the first exit past CALLS, not at
/// its outermost exit; every frame it had open closes at its own exit
/// (nothing open, the profile complete), the node is marked with the call
/// count at which it stopped, and `off` counts every call.
#[test]
fn a_recursive_function_stops_in_the_middle_of_its_recursion() {
    let _machine = machine::hold();
    let tmp = TestDir::new("throttle-fib");
    let exe = build(&tmp, "fib.c", &cc(), "--cflags");
    let measure_fib = |name: &str, throttle: Option<&str>, args: &[&str]| {
        let run_dir = tmp.join(name);
        let mut c = Command::new(&exe);
        c.args(args)
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("REGIO_DISABLE")
            .env_remove("REGIO_FILTER")
            .env_remove("REGIO_EVENTS")
            .env_remove("REGIO_MODE")
            .env("REGIO_DIR", &run_dir);
        match throttle {
            Some(v) => c.env("REGIO_THROTTLE", v),
            None => c.env_remove("REGIO_THROTTLE"),
        };
        let r = run(&mut c);
        assert_eq!(r.code(), Some(0), "{}", r.describe());
        (run_dir, r.stdout)
    };
    // off: exact, folded.
    let (off, out_off) = measure_fib("off", Some("off"), &["20", "3"]);
    let (f, complete) = fib_node(&off);
    let calls = 3 * fib_calls(20);
    assert_eq!(
        (f.calls, f.recursive_calls, f.throttled_at, f.open),
        (calls, calls - 3, None, 0),
        "{f:?}"
    );
    assert!(complete);
    assert_eq!(
        node(&nodes(&off), "main"),
        (1, None),
        "main exact with fib under it"
    );
    // 1000 calls, 1 ms: decided at the first exit with 1000 closed calls,
    // inside the first fib(20) (21,891 calls), with at most 20 frames of
    // it open then; those close at their own exits.
    let (low, out_low) = measure_fib("low", Some("1000,1000000"), &["20", "3"]);
    assert_eq!(out_low, out_off, "the program's output is its own");
    let (f, complete) = fib_node(&low);
    assert_eq!(f.throttled_at, Some(f.calls), "{f:?}");
    assert!(
        (1000..=1000 + 20).contains(&f.calls),
        "stopped in the first recursion, at the first exit past 1000: {f:?}"
    );
    assert_eq!(f.open, 0, "every frame closed at its own exit: {f:?}");
    assert!(complete, "nothing left open");
    assert!(f.inclusive_ns >= f.max_ns && f.exclusive_ns > 0, "{f:?}");
    assert_eq!(node(&nodes(&low), "main"), (1, None));
    let text = report_text(&low);
    assert!(
        text.contains(&format!(
            "fib (fib.c:10) in main: throttled at {} calls",
            f.calls
        )),
        "{text}"
    );
    // The default CALLS with a 1 ms mean (the default 1 µs is not a
    // test's to rely on: the e2e tests link the debug runtime, whose probes
    // alone put fib's exclusive time over 1 µs a call on a loaded
    // machine): fib(30), 2,692,537 calls, stops at 10,000 and at most 30
    // more, where it used to stop at its outermost exit.
    let setting = format!("{DEFAULT_CALLS},1000000");
    let (dflt, _) = measure_fib("default", Some(&setting), &["30"]);
    let (f, complete) = fib_node(&dflt);
    assert_eq!(f.throttled_at, Some(f.calls), "{f:?}");
    assert!(
        (DEFAULT_CALLS..=DEFAULT_CALLS + 30).contains(&f.calls),
        "stopped in the middle of the recursion: {f:?}"
    );
    assert!(complete && f.open == 0, "{f:?}");
}
