//! Whole-process tests of the DRG a run writes: each scenario runs in a
//! fresh child process and the test reads the profile it leaves.

mod common;

use common::{check_invariants, node, run, run_scenario, SCENARIO};
use std::hint::black_box;

const ENTRY: &str = "child_entry";

/// Entry point of the child processes; does nothing in a normal test run.
#[test]
#[ignore = "entry point for child processes spawned by the other tests"]
fn child_entry() {
    run_scenario(&[
        ("nesting", nesting),
        ("recursion", recursion),
        ("threads", threads),
        ("disable", disable),
        ("recovery", recovery),
        ("scope", scope),
        ("size", size),
        ("exit_nested", exit_nested),
        ("flush", flush),
        ("idf", idf),
        ("c_abi", c_abi),
        ("nothing", || regio::enter(1)),
        ("exit_open", exit_open),
        ("traced_pairs", traced_pairs),
        ("fork", fork),
    ]);
}

fn work(n: u64) -> u64 {
    (0..n).fold(0u64, |a, i| black_box(a.wrapping_mul(31).wrapping_add(i)))
}

fn nesting() {
    regio::enter(1);
    for _ in 0..10 {
        let _f = regio::Guard::new(2);
        for _ in 0..2 {
            let _g = regio::Guard::new(3);
            work(100);
        }
        work(50);
    }
    regio::enter(4);
    regio::exit(4);
    regio::exit(1);
}

#[test]
fn nesting_counts_are_exact() {
    let r = run(ENTRY, "nesting", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(p.complete);
    assert_eq!(p.reason, "exit");
    assert_eq!(p.signal, None);
    assert_eq!(p.threads.len(), 1);
    let t = &p.threads[0];
    assert_eq!(t.thread, 0);
    assert_eq!(t.nodes.len(), 4);
    let calls = |path: &[u32]| node(t, path).calls;
    assert_eq!(calls(&[1]), 1);
    assert_eq!(calls(&[1, 2]), 10);
    assert_eq!(calls(&[1, 2, 3]), 20);
    assert_eq!(calls(&[1, 4]), 1);
    for n in &t.nodes {
        assert_eq!((n.open, n.recursive_calls), (0, 0));
    }
    let main = node(t, &[1]);
    assert_eq!(main.min_ns, main.inclusive_ns);
    let f = node(t, &[1, 2]);
    let g = node(t, &[1, 2, 3]);
    assert!(f.inclusive_ns >= g.inclusive_ns);
    assert!(f.min_ns <= f.max_ns && f.max_ns <= f.inclusive_ns);
    assert!(f.exclusive_ns + g.exclusive_ns <= f.inclusive_ns + 2);
}

fn fan(depth: u32) {
    let _g = regio::Guard::new(10);
    if depth > 0 {
        fan(depth - 1);
        fan(depth - 1);
    }
}

fn even(n: u32) {
    let _g = regio::Guard::new(11);
    if n > 0 {
        odd(n - 1);
    }
}

fn odd(n: u32) {
    let _g = regio::Guard::new(12);
    if n > 0 {
        even(n - 1);
    }
}

fn recursion() {
    let _main = regio::Guard::new(1);
    fan(10);
    even(199);
    // A second, separate outermost call of the recursive region.
    fan(0);
}

#[test]
fn recursion_folds_and_does_not_double_count() {
    let r = run(ENTRY, "recursion", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    let t = &p.threads[0];
    // main, fan, even, odd: the graph does not grow with recursion depth.
    assert_eq!(t.nodes.len(), 4, "{:#?}", t.nodes);
    let main = node(t, &[1]);
    let fan = node(t, &[1, 10]);
    assert_eq!(fan.calls, 2047 + 1);
    assert_eq!(fan.recursive_calls, 2046);
    let even = node(t, &[1, 11]);
    let odd = node(t, &[1, 11, 12]);
    assert_eq!((even.calls, odd.calls), (100, 100));
    assert_eq!((even.recursive_calls, odd.recursive_calls), (99, 99));
    // Only outermost calls count: no node exceeds its parent or the run.
    assert!(fan.inclusive_ns <= main.inclusive_ns);
    assert!(odd.inclusive_ns <= even.inclusive_ns);
    assert!(even.inclusive_ns + fan.inclusive_ns <= main.inclusive_ns + 2);
    assert!(main.inclusive_ns <= p.duration_ns);
    assert!(fan.max_ns <= fan.inclusive_ns && fan.min_ns < fan.max_ns);
}

fn threads() {
    regio::enter(1);
    let workers: Vec<_> = (0..4u32)
        .map(|k| {
            std::thread::spawn(move || {
                for _ in 0..1000 {
                    let _w = regio::Guard::new(100 + k);
                    let _i = regio::Guard::new(200);
                    work(10);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    // Work after every worker has ended: their data must survive.
    regio::enter(2);
    work(1000);
    regio::exit(2);
    regio::exit(1);
}

#[test]
fn finished_threads_keep_their_data() {
    let r = run(ENTRY, "threads", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(p.complete);
    let numbers: Vec<u32> = p.threads.iter().map(|t| t.thread).collect();
    assert_eq!(numbers, vec![0, 1, 2, 3, 4]);
    let main = &p.threads[0];
    assert!(!main.finished);
    assert_eq!(node(main, &[1]).calls, 1);
    assert_eq!(node(main, &[1, 2]).calls, 1);
    let mut seen: Vec<u32> = Vec::new();
    for t in &p.threads[1..] {
        assert!(t.finished, "thread {} should be marked finished", t.thread);
        assert_ne!(t.os_tid, main.os_tid);
        assert_eq!(t.nodes.len(), 2);
        let region = t.nodes[0].region;
        seen.push(region);
        assert_eq!(node(t, &[region]).calls, 1000);
        assert_eq!(node(t, &[region, 200]).calls, 1000);
    }
    seen.sort();
    assert_eq!(seen, vec![100, 101, 102, 103]);
}

fn disable() {
    regio::enter(1);
    regio::disable();
    regio::enter(2);
    regio::exit(2);
    regio::enable();
    regio::enter(3);
    regio::exit(3);
    regio::enter(4);
    regio::disable();
    regio::enter(5);
    regio::exit(5);
    regio::exit(4); // entered before the disable: still closes
    regio::enable();
    regio::exit(1);
}

#[test]
fn disabled_regions_are_not_recorded() {
    let r = run(ENTRY, "disable", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(p.complete);
    let t = &p.threads[0];
    let regions: Vec<u32> = t.nodes.iter().map(|n| n.region).collect();
    assert_eq!(regions, vec![1, 3, 4]);
    assert_eq!(node(t, &[1, 4]).calls, 1);
    assert!(t.nodes.iter().all(|n| n.open == 0));
}

#[test]
fn regio_disable_env_turns_everything_off() {
    let r = run(ENTRY, "nesting", &[("REGIO_DISABLE", "1")]);
    assert!(r.status.success(), "{}", r.stderr);
    assert!(!r.dir.exists(), "no run directory under REGIO_DISABLE");
}

fn recovery() {
    regio::enter(1);
    regio::enter(2);
    regio::enter(3);
    regio::exit(99); // never entered: ignored
    regio::exit(1); // closes 3 and 2 as well
    regio::enter(5);
    regio::exit(5);
}

#[test]
fn exit_recovers_missing_inner_exits() {
    let r = run(ENTRY, "recovery", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(p.complete);
    let t = &p.threads[0];
    assert_eq!(t.nodes.len(), 4);
    assert_eq!(node(t, &[1, 2, 3]).calls, 1);
    // 5 is a root again: 1 and everything above it were closed.
    assert_eq!(node(t, &[5]).calls, 1);
    assert!(t.nodes.iter().all(|n| n.open == 0));
}

fn scope() {
    regio::enter(1);
    let depth = regio::scope_open();
    assert_eq!(depth, 1);
    regio::enter(2);
    regio::enter(3);
    regio::scope_close(depth);
    assert_eq!(regio::scope_open(), 1);
    regio::enter(4);
    regio::exit(4);
    // Through the C ABI, as instrumented C code uses it.
    let d = regio::regio_scope_open();
    regio::regio_enter(6);
    // SAFETY: d is a live u32.
    unsafe { regio::regio_scope_close(&d) };
    regio::exit(1);
}

#[test]
fn scope_close_pops_everything_above_the_mark() {
    let r = run(ENTRY, "scope", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    let t = &p.threads[0];
    assert_eq!(node(t, &[1, 2, 3]).calls, 1);
    assert_eq!(node(t, &[1, 4]).calls, 1);
    assert_eq!(node(t, &[1, 6]).calls, 1);
    assert!(t.nodes.iter().all(|n| n.open == 0));
}

fn size() {
    let iters: u64 = std::env::var("REGIO_TEST_ITERS").unwrap().parse().unwrap();
    let _m = regio::Guard::new(1);
    for i in 0..iters {
        let _l = regio::Guard::new(2);
        fan((i % 3) as u32);
        even((i % 5) as u32);
    }
    let w = std::thread::spawn(move || {
        for _ in 0..iters {
            let _g = regio::Guard::new(3);
        }
    });
    w.join().unwrap();
}

/// Bounded by the DRG (profile version 2): 10x the run gives the same
/// nodes, and each number of a node row grows by at most one digit.
#[test]
fn profile_size_is_bounded_by_the_drg_not_the_run_length() {
    let short = run(ENTRY, "size", &[("REGIO_TEST_ITERS", "100")]);
    let long = run(ENTRY, "size", &[("REGIO_TEST_ITERS", "1000")]);
    assert!(short.status.success() && long.status.success());
    let (ps, pl) = (short.profile(), long.profile());
    check_invariants(&ps);
    check_invariants(&pl);
    assert_eq!(node(&ps.threads[0], &[1, 2]).calls, 100);
    assert_eq!(node(&pl.threads[0], &[1, 2]).calls, 1000);
    let shape = |p: &regio_idf::rundir::Profile| -> Vec<Vec<(Option<u32>, u32)>> {
        p.threads
            .iter()
            .map(|t| t.nodes.iter().map(|n| (n.parent, n.region)).collect())
            .collect()
    };
    assert_eq!(shape(&ps), shape(&pl), "the same DRG nodes");
    let nodes: usize = ps.threads.iter().map(|t| t.nodes.len()).sum();
    let numbers = nodes * regio_idf::rundir::node_rows::ROW_NUMBERS;
    let (_, ts) = short.profile_text();
    let (_, tl) = long.profile_text();
    assert!(
        ts.len().abs_diff(tl.len()) <= numbers,
        "more than a digit per row number ({numbers}):\n{ts}\n---\n{tl}"
    );
}

fn deeper(n: u32) {
    let _g = regio::Guard::new(10 + n);
    if n == 0 {
        std::process::exit(3);
    }
    deeper(n - 1);
}

fn exit_nested() {
    regio::enter(1);
    deeper(3);
}

#[test]
fn exit_from_a_nested_call_leaves_a_complete_profile() {
    let r = run(ENTRY, "exit_nested", &[]);
    assert_eq!(r.status.code(), Some(3), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert!(p.complete);
    assert_eq!(p.reason, "exit");
    let t = &p.threads[0];
    assert_eq!(t.nodes.len(), 5);
    assert!(t.nodes.iter().all(|n| n.open == 0 && n.calls == 1));
    let leaf = node(t, &[1, 13, 12, 11, 10]);
    assert!(leaf.inclusive_ns <= node(t, &[1]).inclusive_ns);
}

fn flush() {
    regio::enter(1);
    regio::enter(2);
    regio::exit(2);
    assert!(regio::flush());
    // Skip the exit hook so the flushed profile is what remains.
    // SAFETY: terminating the process.
    unsafe { libc::_exit(0) };
}

#[test]
fn flush_writes_a_profile_with_open_frames() {
    let r = run(ENTRY, "flush", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    assert_eq!(p.reason, "flush");
    assert!(p.complete, "only the flushing thread has open frames");
    let t = &p.threads[0];
    let main = node(t, &[1]);
    assert_eq!(main.open, 1);
    assert!(main.inclusive_ns >= node(t, &[1, 2]).inclusive_ns);
    assert_eq!(node(t, &[1, 2]).open, 0);
    let leftovers: Vec<String> = common::list(&r.dir)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn idf() {
    let dir = std::env::var("REGIO_TEST_IDF_DIR").unwrap();
    let path = format!("{dir}/regio.idf.json");
    regio::register_idf(&path);
    // The same path again through the C and Fortran entry points: kept once.
    let c = std::ffi::CString::new(path.clone()).unwrap();
    // SAFETY: valid NUL-terminated string.
    unsafe { regio::regio_register_idf(c.as_ptr()) };
    let padded = format!("{path}      ");
    // SAFETY: pointer and length describe `padded`.
    unsafe { regio::regio_register_idf_(padded.as_ptr().cast(), padded.len()) };
    // Two objects of another IDF (a library's units): one base for both,
    // its ids written as base + local id.
    let lib = std::ffi::CString::new(format!("{dir}/lib/regio.idf.json")).unwrap();
    // SAFETY: valid NUL-terminated string.
    let base = unsafe { regio::regio_register_object(lib.as_ptr()) };
    // SAFETY: as above.
    assert_eq!(unsafe { regio::regio_register_object(lib.as_ptr()) }, base);
    // The Fortran twin: sets a base still 0 (blank-padded path), leaves a
    // set one alone.
    let padded = format!("{dir}/lib/regio.idf.json   ");
    let mut fbase = 0i32;
    // SAFETY: `fbase` is writable; pointer and length describe `padded`.
    unsafe { regio::regio_register_base_(&mut fbase, padded.as_ptr().cast(), padded.len()) };
    assert_eq!(fbase as u32, base);
    let mut set = 7i32;
    // SAFETY: as above.
    unsafe { regio::regio_register_base_(&mut set, padded.as_ptr().cast(), padded.len()) };
    assert_eq!(set, 7);
    let _g = regio::Guard::new(1);
    let _h = regio::Guard::new(base + 1);
}

#[test]
fn registered_idf_is_copied_into_the_run_directory() {
    let src = tempfile::tempdir().unwrap();
    let content = "{\"version\":1,\"regions\":[\"with \\\"quotes\\\"\"]}\n";
    std::fs::write(src.path().join("regio.idf.json"), content).unwrap();
    std::fs::create_dir(src.path().join("lib")).unwrap();
    std::fs::write(src.path().join("lib/regio.idf.json"), "{\"lib\":1}\n").unwrap();
    let src_dir = src.path().to_str().unwrap();
    let r = run(ENTRY, "idf", &[("REGIO_TEST_IDF_DIR", src_dir)]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    let expected = format!("{src_dir}/regio.idf.json");
    assert_eq!(p.idf.as_deref(), Some(expected.as_str()));
    let copied = std::fs::read_to_string(r.dir.join("regio.idf.json")).unwrap();
    assert_eq!(copied, content);
    // Every registration with its base and the name of its copy.
    let bases: Vec<(u32, &str)> = p.idfs.iter().map(|o| (o.base, o.path.as_str())).collect();
    let lib = format!("{src_dir}/lib/regio.idf.json");
    let stride = regio_idf::rundir::OBJECT_ID_STRIDE;
    assert_eq!(bases, [(0, expected.as_str()), (stride, lib.as_str())]);
    for (o, want) in p.idfs.iter().zip([content, "{\"lib\":1}\n"]) {
        let copy = std::fs::read_to_string(r.dir.join(&o.copy)).unwrap();
        assert_eq!(copy, want, "{}", o.copy);
    }
    let t = &p.threads[0];
    let lib_node = t.nodes.iter().find(|n| n.region == stride + 1);
    assert_eq!(lib_node.map(|n| n.calls), Some(1), "{:?}", t.nodes);
    assert_eq!(
        common::list(&r.dir).len(),
        4,
        "profile, regio.idf.json and the two copies only: {:?}",
        common::list(&r.dir)
    );
}

/// Runs into one directory: the IDF copy is left alone while it holds the
/// IDF's bytes (no rewrite: its inode stays) and replaced when they differ,
/// in content at the same length or in length.
#[test]
fn idf_copy_is_rewritten_only_when_the_idf_changed() {
    use std::os::unix::fs::MetadataExt;
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let run_dir = out.path().join("shared-run");
    let src_dir = src.path().to_str().unwrap();
    let run_into = |content: &str| {
        std::fs::write(src.path().join("regio.idf.json"), content).unwrap();
        let r = run(
            ENTRY,
            "idf",
            &[
                ("REGIO_TEST_IDF_DIR", src_dir),
                ("REGIO_DIR", run_dir.to_str().unwrap()),
            ],
        );
        assert!(r.status.success(), "{}", r.stderr);
        let copy = run_dir.join("regio.idf.json");
        assert_eq!(std::fs::read_to_string(&copy).unwrap(), content);
        std::fs::metadata(&copy).unwrap().ino()
    };
    let first = run_into("{\"version\":1,\"regions\":[\"a\"]}\n");
    assert_eq!(run_into("{\"version\":1,\"regions\":[\"a\"]}\n"), first);
    let same_length = run_into("{\"version\":1,\"regions\":[\"b\"]}\n");
    assert_ne!(same_length, first);
    run_into("{\"version\":1,\"regions\":[\"bb\"]}\n");
    let names = common::list(&run_dir);
    // regio.idf.json and the per-object copy of the one registered path.
    assert_eq!(
        names.len(),
        6,
        "four profiles, the IDF and its object copy: {names:?}"
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("regio.idf-") && n.ends_with(".json"))
            .count(),
        1,
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n.starts_with('.')), "{names:?}");
}

fn c_abi() {
    regio::regio_enter(1);
    {
        let id = 2u32;
        regio::regio_enter(id);
        // SAFETY: id is a live u32, as in a C cleanup attribute.
        unsafe { regio::regio_guard_exit(&id) };
    }
    let f = 7i32;
    // SAFETY: f is a live INTEGER(4).
    unsafe {
        regio::regio_enter_(&f);
        regio::regio_exit_(&f);
    }
    regio::regio_disable_();
    regio::regio_enter(8);
    regio::regio_exit(8);
    regio::regio_enable_();
    regio::regio_disable();
    regio::regio_enter(9);
    regio::regio_enable();
    regio::regio_exit(1);
    regio::regio_flush_();
    regio::regio_flush();
}

#[test]
fn c_and_fortran_entry_points_record_the_same_graph() {
    let r = run(ENTRY, "c_abi", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    check_invariants(&p);
    // The exit hook replaced the flushed profiles.
    assert_eq!(p.reason, "exit");
    let t = &p.threads[0];
    let regions: Vec<u32> = t.nodes.iter().map(|n| n.region).collect();
    assert_eq!(regions, vec![1, 2, 7]);
    assert_eq!(node(t, &[1, 7]).calls, 1);
}

/// Region 1 entered, `EXIT_OPEN_PAIRS` pairs of region 2 inside it (a
/// small buffer is written out several times), and the process leaves
/// by `exit()` (`run_scenario`) with region 1 still open.
fn exit_open() {
    regio::enter(1);
    for _ in 0..EXIT_OPEN_PAIRS {
        regio::enter(2);
        regio::exit(2);
    }
}

const EXIT_OPEN_PAIRS: u64 = 40_000;

#[test]
fn trace_mode_records_a_profile_and_a_trace_file() {
    let env = [("REGIO_MODE", "trace"), ("REGIO_TRACE_BUFFER", "64K")];
    let r = run(ENTRY, "exit_open", &env);
    assert!(r.status.success(), "{}", r.stderr);
    assert!(!r.stderr.contains("REGIO_MODE"), "{}", r.stderr);
    let p = r.profile();
    assert_eq!(p.mode, "trace");
    // Region 1 was still open at exit: closed by the exit hook.
    assert!(p.complete);
    let t = &p.threads[0];
    assert_eq!(node(t, &[1]).open, 0);
    assert_eq!(node(t, &[1, 2]).calls, EXIT_OPEN_PAIRS);
    // The trace holds what was recorded, the blocks written out during
    // the run and the last buffer written at exit: every enter the
    // profile counts. The exit hook closes region 1 for the profile with
    // the same probe logic (`pop_to`), which writes its exit record too,
    // before the buffers are written: the trace agrees with the profile
    // (region 1 called once, not open), its exit the last region record.
    let file = common::only_trace(&r);
    let c = common::count_trace(&file);
    assert!(
        c.flushes >= 2 && file.blocks >= 3,
        "{c:?}, {} blocks",
        file.blocks
    );
    assert_eq!(
        c.enters.into_iter().collect::<Vec<_>>(),
        common::calls_by_region(t).into_iter().collect::<Vec<_>>()
    );
    assert_eq!(
        c.exits.into_iter().collect::<Vec<_>>(),
        [(1, 1), (2, EXIT_OPEN_PAIRS)]
    );
    assert_eq!(c.open, common::open_frames(t));
    let last_region_record = file.records.iter().rev().find_map(|rec| match rec.event {
        regio_trace_format::Event::Enter { region } => Some((true, region)),
        regio_trace_format::Event::Exit { region } => Some((false, region)),
        _ => None,
    });
    assert_eq!(last_region_record, Some((false, 1)));
    assert_eq!(c.clock_rate, 1, "the end-of-run tail");
}

/// Rust probes (`enter`/`exit`, `Guard`) on the trace's own paths: many
/// pairs, nested, enough to flush a small buffer.
fn traced_pairs() {
    regio::enter(1);
    for i in 0..TRACED_PAIRS {
        let _g = regio::Guard::new(2);
        if i % 2 == 0 {
            regio::enter(3);
            black_box(work(10));
            regio::exit(3);
        }
    }
    regio::exit(1);
}

const TRACED_PAIRS: u64 = 12_000;

#[test]
fn rust_probes_in_trace_mode_record_every_pair_their_profile_counts() {
    use regio_trace_format::Event;
    let r = run(
        ENTRY,
        "traced_pairs",
        &[
            ("REGIO_MODE", "trace"),
            ("REGIO_THROTTLE", "off"),
            // The smallest buffer: ~50 000 records of 4 bytes flush it.
            ("REGIO_TRACE_BUFFER", "64K"),
        ],
    );
    assert!(r.status.success(), "{}", r.stderr);
    let p = r.profile();
    let t = &p.threads[0];
    assert_eq!(node(t, &[1, 2]).calls, TRACED_PAIRS);
    assert_eq!(node(t, &[1, 2, 3]).calls, TRACED_PAIRS / 2);
    let mut enters = std::collections::BTreeMap::<u32, u64>::new();
    let mut stack = Vec::new();
    let mut flushes = 0;
    for name in common::list(&r.dir) {
        if !(name.starts_with("trace-") && name.ends_with(".rtrace")) {
            continue;
        }
        let data = std::fs::read(r.dir.join(&name)).unwrap();
        let file = regio_trace_format::decode(&data).unwrap();
        assert!(file.truncated.is_none(), "{name}");
        for rec in &file.records {
            match rec.event {
                Event::Enter { region } => {
                    *enters.entry(region).or_default() += 1;
                    stack.push(region);
                }
                Event::Exit { region } => assert_eq!(stack.pop(), Some(region), "{name}"),
                Event::BufferFlush { .. } => flushes += 1,
                _ => {}
            }
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert!(flushes > 0, "the buffer was meant to be flushed");
    let want = [(1, 1), (2, TRACED_PAIRS), (3, TRACED_PAIRS / 2)];
    assert_eq!(enters.into_iter().collect::<Vec<_>>(), want.to_vec());
}

#[test]
fn default_run_directory_is_named_after_program_and_pid() {
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", ENTRY, "--ignored", "--test-threads=1"])
        .env(SCENARIO, "nothing")
        .env_remove("REGIO_DIR")
        .env_remove("REGIO_DISABLE")
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let dirs = common::list(tmp.path());
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let exe = std::env::current_exe().unwrap();
    let prog = exe.file_name().unwrap().to_str().unwrap();
    let name = &dirs[0];
    let pid = name
        .strip_prefix(&format!("regio-run-{prog}-"))
        .unwrap_or_else(|| panic!("{name}"));
    let files = common::list(&tmp.path().join(name));
    assert_eq!(files, vec![format!("profile-r0-p{pid}.json")]);
}

#[test]
fn mpi_rank_variables_name_the_profile() {
    let r = run(
        ENTRY,
        "nothing",
        &[("OMPI_COMM_WORLD_RANK", "3"), ("OMPI_COMM_WORLD_SIZE", "4")],
    );
    assert!(r.status.success(), "{}", r.stderr);
    let (path, _) = r.profile_text();
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    assert!(name.starts_with("profile-r3-p"), "{name}");
    let p = r.profile();
    assert_eq!((p.rank, p.size), (3, 4));
    assert_eq!(name, regio_idf::rundir::profile_file_name(3, p.pid));
}

fn fork() {
    regio::enter(1);
    for _ in 0..3 {
        let _g = regio::Guard::new(2);
        work(100);
    }
    // SAFETY: the process has one thread; the child only runs Rust code
    // of this scenario and exits.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        for _ in 0..5 {
            let _g = regio::Guard::new(3);
            work(100);
        }
        regio::exit(1);
        std::process::exit(0);
    }
    let mut status = 0;
    // SAFETY: waiting for the child just forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    for _ in 0..2 {
        let _g = regio::Guard::new(2);
        work(100);
    }
    regio::exit(1);
}

#[test]
fn a_forked_child_measures_only_what_it_runs() {
    let r = run(ENTRY, "fork", &[]);
    assert!(r.status.success(), "{}", r.stderr);
    let mut ps = r.profiles();
    assert_eq!(ps.len(), 2, "parent and child each write a profile");
    ps.sort_by_key(|p| p.threads[0].nodes.iter().any(|n| n.region == 3));
    let (parent, child) = (&ps[0], &ps[1]);
    assert_ne!(parent.pid, child.pid);
    for p in [parent, child] {
        check_invariants(p);
        assert!(p.complete, "{}: reason {}", p.pid, p.reason);
        assert_eq!(p.threads.len(), 1);
    }
    let (pt, ct) = (&parent.threads[0], &child.threads[0]);
    // The parent keeps everything it measured, before and after the fork.
    assert_eq!(node(pt, &[1]).calls, 1);
    assert_eq!(node(pt, &[1, 2]).calls, 5);
    assert!(pt.nodes.iter().all(|n| n.region != 3));
    // The child starts from zero at the fork: what the parent measured
    // before it is not counted again.
    assert_eq!(node(ct, &[1]).calls, 1);
    assert_eq!(node(ct, &[1, 2]).calls, 0);
    assert_eq!(node(ct, &[1, 3]).calls, 5);
    assert!(node(ct, &[1]).inclusive_ns >= node(ct, &[1, 3]).inclusive_ns);
    assert!(node(ct, &[1]).inclusive_ns < node(pt, &[1]).inclusive_ns);
}
