//! Trace export end to end on a synthetic run directory written with the
//! trace encoder: two MPI ranks (rank 1 with a clock 50 µs behind and
//! drifting, corrected through its sync records), an OpenMP team of two on
//! rank 0, blocking, non-blocking and sub-communicator messages, a
//! collective, user events, and a trace file cut short. Exported to
//! Perfetto JSON (structure, nesting, flows, counters) and OTF2 (read back
//! with `otf2-print` and the Python bindings when installed).

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

use regio_analysis::export::otf2::write_otf2;
use regio_analysis::export::{load_trace, match_messages, write_perfetto, Trace};
use regio_trace_format::{
    collective, trace_file_name, write_file_header, Block, Event, FileMeta, SyncPhase,
};
use serde_json::Value;

use common::{tempdir, write_idf, write_profile, Proc, Thread};

const T0: u64 = 1_700_000_000_000_000_000;
/// Rank 1's clock: 50 µs behind rank 0's and 20 ppm slow.
const SKEW_NS: f64 = -50_000.0;
const DRIFT: f64 = -20e-6;

/// A process's clock: local Unix ns at true time `t` (ns since T0).
#[derive(Clone, Copy)]
struct Clock {
    skew_ns: f64,
    drift: f64,
    ticks_per_second: f64,
}

impl Clock {
    fn local(&self, t: f64) -> f64 {
        t + self.skew_ns + self.drift * t
    }
    /// Offset rank 0 minus this clock at true time `t`.
    fn offset(&self, t: f64) -> i64 {
        (t - self.local(t)).round() as i64
    }
    fn ticks(&self, t: f64) -> u64 {
        // Ticks start at 1e6 at the local clock's T0.
        (1e6 + self.local(t) * self.ticks_per_second / 1e9).round() as u64
    }
}

const RANK0: Clock = Clock {
    skew_ns: 0.0,
    drift: 0.0,
    ticks_per_second: 2.4e9,
};
const RANK1: Clock = Clock {
    skew_ns: SKEW_NS,
    drift: DRIFT,
    ticks_per_second: 1e9,
};

/// Events at true times in µs.
type Script = Vec<(f64, Event)>;

fn us(v: f64) -> f64 {
    v * 1000.0
}

/// Writes one thread's file; `cut` appends half of one more block (a
/// write interrupted by SIGKILL).
fn write_trace(
    dir: &Path,
    rank: u32,
    pid: u32,
    thread: u32,
    clock: Clock,
    script: &Script,
    cut: bool,
) {
    let meta = FileMeta {
        rank,
        size: 2,
        pid,
        thread,
        os_tid: u64::from(pid) * 10 + u64::from(thread),
        // The estimate at the first flush is 10 % off; the clock_rate
        // record at the end has the rate calibrated over the run.
        ticks_per_second: clock.ticks_per_second * 0.9,
        start_ticks: 1_000_000,
        // Start-up when the local clock read T0 (ticks 1e6).
        start_unix_ns: T0,
        clock_source: "tsc",
        host: if rank == 0 { "node1" } else { "node2" },
    };
    let mut file = vec![0u8; 4096];
    let n = write_file_header(&mut file, &meta).unwrap();
    file.truncate(n);
    // Small blocks, so the stream spans many (yet room for a `comm`
    // record by the encoder's worst-case sizes).
    let mut buf = [0u8; 128];
    let first = clock.ticks(us(script[0].0));
    let mut block = Block::new(thread, first);
    for (t, e) in script {
        let ticks = clock.ticks(us(*t));
        if block.push(&mut buf, ticks, e).is_err() {
            file.extend_from_slice(block.finish(&mut buf).unwrap());
            block.reset(ticks);
            block.push(&mut buf, ticks, e).unwrap();
        }
    }
    let last = clock.ticks(us(script[script.len() - 1].0));
    let rate = Event::ClockRate {
        span_ticks: (clock.ticks_per_second * 10.0) as u64,
        span_ns: 10_000_000_000,
    };
    if block.push(&mut buf, last, &rate).is_err() {
        file.extend_from_slice(block.finish(&mut buf).unwrap());
        block.reset(last);
        block.push(&mut buf, last, &rate).unwrap();
    }
    file.extend_from_slice(block.finish(&mut buf).unwrap());
    if cut {
        let mut extra = Block::new(thread, first);
        let t = clock.ticks(us(300.0));
        extra.enter(&mut buf, t, 4).unwrap();
        extra.exit(&mut buf, t + 10, 4).unwrap();
        let bytes = extra.finish(&mut buf).unwrap();
        file.extend_from_slice(&bytes[..bytes.len() - 3]);
    }
    std::fs::write(dir.join(trace_file_name(rank, pid, thread)), file).unwrap();
}

const MAIN: u32 = 1;
const PAR: u32 = 2;
const WORK: u32 = 3;
const SEND: u32 = 10;
const IRECV: u32 = 11;
const WAIT: u32 = 12;
const ALLREDUCE: u32 = 13;
const RECV: u32 = 14;
const ISEND: u32 = 15;

fn enter(region: u32) -> Event {
    Event::Enter { region }
}
fn exit(region: u32) -> Event {
    Event::Exit { region }
}

fn sync(phase: SyncPhase, clock: Clock, t: f64) -> Event {
    Event::ClockSync {
        phase,
        offset_ns: clock.offset(us(t)),
        round_trip_ns: 500,
        local_ns: None,
    }
}

fn rank0_main() -> Script {
    vec![
        (0.0, enter(MAIN)),
        (1.0, sync(SyncPhase::Init, RANK0, 1.0)),
        (
            2.0,
            Event::String {
                id: 1,
                text: "residual".into(),
            },
        ),
        (
            2.0,
            Event::User {
                name: 1,
                value: 0.5,
            },
        ),
        (10.0, enter(SEND)),
        (
            10.0,
            Event::MpiSend {
                peer: 1,
                comm: 0,
                tag: 7,
                bytes: 800,
            },
        ),
        (15.0, exit(SEND)),
        (20.0, enter(PAR)),
        (
            20.0,
            Event::OmpFork {
                region: PAR,
                team_size: 2,
            },
        ),
        (
            21.0,
            Event::OmpTeamBegin {
                team: 1,
                thread_num: 0,
                team_size: 2,
            },
        ),
        (30.0, enter(WORK)),
        (60.0, exit(WORK)),
        (66.0, Event::OmpTeamEnd { team: 1 }),
        (70.0, Event::OmpJoin { region: PAR }),
        (71.0, exit(PAR)),
        (80.0, enter(IRECV)),
        (80.0, Event::MpiIrecvRequest { request: 5 }),
        (82.0, exit(IRECV)),
        (83.0, enter(WAIT)),
        (
            120.0,
            Event::MpiIrecv {
                peer: 1,
                comm: 0,
                tag: 8,
                bytes: 16,
                request: 5,
            },
        ),
        (121.0, exit(WAIT)),
        (130.0, enter(ALLREDUCE)),
        (130.0, Event::MpiCollectiveBegin),
        (
            150.0,
            Event::MpiCollectiveEnd {
                op: collective::ALLREDUCE,
                comm: 0,
                root: None,
                sent: 8,
                received: 8,
            },
        ),
        (151.0, exit(ALLREDUCE)),
        (
            160.0,
            Event::String {
                id: 2,
                text: "row".into(),
            },
        ),
        (
            160.0,
            Event::Comm {
                comm: 3,
                name: 2,
                members: vec![0, 1],
                local: vec![],
                remote: vec![],
            },
        ),
        (161.0, enter(SEND)),
        (
            161.0,
            Event::MpiSend {
                peer: 1,
                comm: 3,
                tag: 9,
                bytes: 4,
            },
        ),
        (165.0, exit(SEND)),
        (
            170.0,
            Event::User {
                name: 1,
                value: 0.25,
            },
        ),
        (180.0, sync(SyncPhase::Finalize, RANK0, 180.0)),
        (190.0, exit(MAIN)),
    ]
}

fn rank0_worker() -> Script {
    vec![
        (
            25.0,
            Event::OmpTeamBegin {
                team: 1,
                thread_num: 1,
                team_size: 2,
            },
        ),
        (31.0, enter(WORK)),
        (59.0, exit(WORK)),
        (65.0, Event::OmpTeamEnd { team: 1 }),
    ]
}

fn rank1_main(with_sync: bool) -> Script {
    let mut s = vec![
        (0.5, enter(MAIN)),
        (1.0, sync(SyncPhase::Init, RANK1, 1.0)),
        (12.0, enter(RECV)),
        (
            17.0,
            Event::MpiRecv {
                peer: 0,
                comm: 0,
                tag: 7,
                bytes: 800,
            },
        ),
        (18.0, exit(RECV)),
        (90.0, enter(ISEND)),
        (
            90.0,
            Event::MpiIsend {
                peer: 0,
                comm: 0,
                tag: 8,
                bytes: 16,
                request: 9,
            },
        ),
        (91.0, exit(ISEND)),
        (92.0, enter(WAIT)),
        (95.0, Event::MpiIsendComplete { request: 9 }),
        (96.0, exit(WAIT)),
        (131.0, enter(ALLREDUCE)),
        (131.0, Event::MpiCollectiveBegin),
        (
            150.0,
            Event::MpiCollectiveEnd {
                op: collective::ALLREDUCE,
                comm: 0,
                root: None,
                sent: 8,
                received: 8,
            },
        ),
        (151.0, exit(ALLREDUCE)),
        // Its own ids for the same communicator and name.
        (
            160.0,
            Event::String {
                id: 1,
                text: "row".into(),
            },
        ),
        (
            160.0,
            Event::Comm {
                comm: 5,
                name: 1,
                members: vec![0, 1],
                local: vec![],
                remote: vec![],
            },
        ),
        (162.0, enter(RECV)),
        (
            166.0,
            Event::MpiRecv {
                peer: 0,
                comm: 5,
                tag: 9,
                bytes: 4,
            },
        ),
        (167.0, exit(RECV)),
        (180.0, sync(SyncPhase::Finalize, RANK1, 180.0)),
        (190.0, exit(MAIN)),
    ];
    if !with_sync {
        s.retain(|(_, e)| !matches!(e, Event::ClockSync { .. }));
    }
    s
}

/// The run directory: IDF, a profile per rank, and the trace files.
fn run(dir: &Path, with_sync: bool) {
    write_idf(
        &dir.join("regio.idf.json"),
        &[
            (MAIN, "function", "main", "main.c", 10, 40, None),
            (
                PAR,
                "omp_parallel",
                "parallel@main.c:20",
                "main.c",
                20,
                25,
                Some(MAIN),
            ),
            (WORK, "function", "work", "work.c", 3, 9, None),
            (4, "function", "helper", "work.c", 12, 14, None),
            (SEND, "mpi_send", "MPI_Send", "main.c", 15, 15, Some(MAIN)),
            (
                IRECV,
                "mpi_irecv",
                "MPI_Irecv",
                "main.c",
                16,
                16,
                Some(MAIN),
            ),
            (WAIT, "mpi_wait", "MPI_Wait", "main.c", 17, 17, Some(MAIN)),
            (
                ALLREDUCE,
                "mpi_allreduce",
                "MPI_Allreduce",
                "main.c",
                18,
                18,
                Some(MAIN),
            ),
            (RECV, "mpi_recv", "MPI_Recv", "main.c", 30, 30, Some(MAIN)),
            (
                ISEND,
                "mpi_isend",
                "MPI_Isend",
                "main.c",
                31,
                31,
                Some(MAIN),
            ),
        ],
    );
    for (rank, pid) in [(0, 100), (1, 200)] {
        let mut p = Proc::new(
            rank,
            pid,
            190_000,
            vec![Thread {
                thread: 0,
                nodes: vec![(0, None, MAIN, 1, 0, 190_000, 100_000, 190_000, 190_000, 0)],
            }],
        );
        p.size = 2;
        write_profile(dir, &p);
    }
    write_trace(dir, 0, 100, 0, RANK0, &rank0_main(), false);
    write_trace(dir, 0, 100, 1, RANK0, &rank0_worker(), false);
    write_trace(dir, 1, 200, 0, RANK1, &rank1_main(with_sync), true);
}

fn time_of(trace: &Trace, rank: u32, thread: u32, pred: impl Fn(&Event) -> bool) -> u64 {
    let loc = trace
        .locations
        .iter()
        .find(|l| l.rank == rank && l.thread == thread)
        .unwrap();
    loc.events.iter().find(|e| pred(&e.event)).unwrap().ns
}

#[test]
fn clocks_are_corrected_and_messages_match_in_causal_order() {
    let tmp = tempdir();
    run(tmp.path(), true);
    let trace = load_trace(tmp.path(), None).unwrap();
    assert_eq!(trace.locations.len(), 3);
    assert_eq!(trace.size, 2);
    // Rank 1's receive at true 17 µs, 17 µs after rank 0's first event.
    let recv = time_of(&trace, 1, 0, |e| matches!(e, Event::MpiRecv { tag: 7, .. }));
    assert!((16_999..=17_001).contains(&recv), "{recv}");
    let late = time_of(&trace, 1, 0, |e| matches!(e, Event::MpiRecv { tag: 9, .. }));
    assert!((165_999..=166_001).contains(&late), "{late}");
    // The cut file is read up to its last complete block, and said so.
    assert!(
        trace
            .notes
            .iter()
            .any(|n| n.contains("trace-r1-p200-t0.rtrace") && n.contains("read up to")),
        "{:?}",
        trace.notes
    );
    // Both ranks' "row" communicators are one.
    assert_eq!(trace.comms.len(), 2);
    assert_eq!(trace.comms[1].name, "row");
    assert_eq!(trace.user_names, ["residual"]);
    assert_eq!(trace.region(PAR).kind, "omp_parallel");

    let check = match_messages(&trace);
    assert_eq!(check.messages.len(), 3, "{check:?}");
    assert_eq!(check.violations, []);
    assert_eq!((check.unmatched_sends, check.unmatched_recvs), (0, 0));
    let tags: Vec<(u32, u32, u32)> = check
        .messages
        .iter()
        .map(|m| (m.from, m.to, m.tag))
        .collect();
    assert_eq!(tags.len(), 3);
    for want in [(0, 1, 7), (1, 0, 8), (0, 1, 9)] {
        assert!(tags.contains(&want), "{tags:?}");
    }
}

#[test]
fn without_clock_synchronisation_a_receive_precedes_its_send_and_is_reported() {
    let tmp = tempdir();
    run(tmp.path(), false);
    let trace = load_trace(tmp.path(), None).unwrap();
    assert!(
        trace
            .notes
            .iter()
            .any(|n| n.contains("no clock synchronisation")),
        "{:?}",
        trace.notes
    );
    let check = match_messages(&trace);
    assert_eq!(check.messages.len(), 3);
    // Rank 1's receives (tags 7 and 9) now appear ~50 µs early.
    assert_eq!(check.violations.len(), 2, "{check:?}");
    for v in &check.violations {
        assert!(v.early_ns > 40_000 && v.early_ns < 50_000, "{v:?}");
    }
    let text = check.describe(&trace).join("\n");
    assert!(
        text.contains("received") && text.contains("before it was sent"),
        "{text}"
    );
}

/// Per (pid, tid): B/E pairs nest; returns the number of slices.
fn check_slices(events: &[Value]) -> BTreeMap<(u64, u64), usize> {
    let mut stacks: HashMap<(u64, u64), Vec<(f64, String)>> = HashMap::new();
    let mut slices = BTreeMap::new();
    for e in events {
        let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        match e["ph"].as_str().unwrap() {
            "B" => stacks.entry(key).or_default().push((
                e["ts"].as_f64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
            )),
            "E" => {
                let (start, name) = stacks
                    .get_mut(&key)
                    .and_then(Vec::pop)
                    .unwrap_or_else(|| panic!("E without B on {key:?}"));
                assert!(
                    e["ts"].as_f64().unwrap() >= start,
                    "{name} ends before it starts"
                );
                *slices.entry(key).or_default() += 1;
            }
            _ => {}
        }
    }
    for (k, s) in stacks {
        assert!(s.is_empty(), "{k:?}: B without E: {s:?}");
    }
    slices
}

#[test]
fn perfetto_json_has_tracks_balanced_slices_flows_and_counters() {
    let tmp = tempdir();
    run(tmp.path(), true);
    let trace = load_trace(tmp.path(), None).unwrap();
    let check = match_messages(&trace);
    let mut out = Vec::new();
    write_perfetto(&trace, &check, &mut out).unwrap();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["displayTimeUnit"], "ns");
    let events = v["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["rank 0 (pid 100, node1)", "rank 1 (pid 200, node2)"]
    );
    let threads = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .count();
    assert_eq!(threads, 3);
    let slices = check_slices(events);
    // rank 0 main: main, 2 sends, parallel, work, irecv, wait, allreduce;
    // worker: work; rank 1: main, 2 recvs, isend, wait, allreduce.
    assert_eq!(slices.values().copied().collect::<Vec<_>>(), [8, 1, 6]);
    let mut starts: Vec<u64> = events
        .iter()
        .filter(|e| e["ph"] == "s")
        .map(|e| e["id"].as_u64().unwrap())
        .collect();
    let mut ends: Vec<u64> = events
        .iter()
        .filter(|e| e["ph"] == "f")
        .map(|e| e["id"].as_u64().unwrap())
        .collect();
    starts.sort_unstable();
    ends.sort_unstable();
    assert_eq!(starts, [0, 1, 2]);
    assert_eq!(starts, ends);
    for f in events.iter().filter(|e| e["ph"] == "f") {
        let s = events
            .iter()
            .find(|e| e["ph"] == "s" && e["id"] == f["id"])
            .unwrap();
        assert!(f["ts"].as_f64() >= s["ts"].as_f64(), "{s} -> {f}");
    }
    let counters: Vec<f64> = events
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "residual")
        .map(|e| e["args"]["value"].as_f64().unwrap())
        .collect();
    assert_eq!(counters, [0.5, 0.25]);
    let main = events
        .iter()
        .find(|e| e["ph"] == "B" && e["name"] == "main")
        .unwrap();
    assert_eq!(main["args"]["location"], "main.c:10");
}

/// `REGIO_REQUIRE_TOOLCHAINS=1` turns a missing tool into a failure.
fn available(tool: &str, package: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stdout.is_empty());
    if !ok {
        assert!(
            std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() != Ok("1"),
            "REGIO_REQUIRE_TOOLCHAINS=1 and {tool} is missing (install {package})"
        );
        println!("SKIPPED: needs {package}");
    }
    ok
}

#[test]
fn otf2_archive_reads_back_with_otf2_print() {
    if !available("otf2-print", "otf2-tools") {
        return;
    }
    let tmp = tempdir();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    run(&dir, true);
    let trace = load_trace(&dir, None).unwrap();
    let out = tmp.path().join("archive");
    let summary = write_otf2(&trace, &out).unwrap();
    assert_eq!(summary.locations, 3);
    let printed = Command::new("otf2-print")
        .arg(&summary.anchor)
        .output()
        .unwrap();
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let text = String::from_utf8_lossy(&printed.stdout);
    // Event lines: NAME LOCATION TIME  details.
    let mut per_kind: BTreeMap<(String, u64), usize> = BTreeMap::new();
    let mut stacks: HashMap<u64, Vec<String>> = HashMap::new();
    let mut lines = 0;
    for line in text.lines() {
        let mut w = line.split_whitespace();
        let (Some(kind), Some(loc), Some(time)) = (w.next(), w.next(), w.next()) else {
            continue;
        };
        let (Ok(loc), Ok(_)) = (loc.parse::<u64>(), time.parse::<u64>()) else {
            continue;
        };
        lines += 1;
        *per_kind.entry((kind.to_string(), loc)).or_default() += 1;
        let region = line
            .split("Region: \"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .map(str::to_string);
        match kind {
            "ENTER" => stacks.entry(loc).or_default().push(region.unwrap()),
            "LEAVE" => {
                let top = stacks.get_mut(&loc).and_then(Vec::pop);
                assert_eq!(
                    top, region,
                    "location {loc}: LEAVE does not close the innermost region"
                );
            }
            _ => {}
        }
    }
    assert_eq!(lines as u64, summary.events, "{text}");
    assert!(stacks.values().all(Vec::is_empty), "{stacks:?}");
    let count = |k: &str, loc: u64| per_kind.get(&(k.to_string(), loc)).copied().unwrap_or(0);
    assert_eq!(
        (count("ENTER", 0), count("LEAVE", 0)),
        (8, 8),
        "{per_kind:?}"
    );
    assert_eq!((count("ENTER", 1), count("LEAVE", 1)), (1, 1));
    assert_eq!((count("ENTER", 2), count("LEAVE", 2)), (6, 6));
    assert_eq!(count("MPI_SEND", 0), 2);
    assert_eq!(count("MPI_RECV", 2), 2);
    assert_eq!(
        (count("MPI_ISEND", 2), count("MPI_ISEND_COMPLETE", 2)),
        (1, 1)
    );
    assert_eq!(
        (count("MPI_IRECV_REQUEST", 0), count("MPI_IRECV", 0)),
        (1, 1)
    );
    assert_eq!(
        (
            count("MPI_COLLECTIVE_END", 0),
            count("MPI_COLLECTIVE_END", 2)
        ),
        (1, 1)
    );
    assert_eq!((count("THREAD_FORK", 0), count("THREAD_JOIN", 0)), (1, 1));
    for loc in [0, 1] {
        assert_eq!(
            (
                count("THREAD_TEAM_BEGIN", loc),
                count("THREAD_TEAM_END", loc)
            ),
            (1, 1)
        );
    }
    assert_eq!(count("METRIC", 0), 2);
    // Definitions: regions with their source file and lines.
    let defs = Command::new("otf2-print")
        .arg("-G")
        .arg(&summary.anchor)
        .output()
        .unwrap();
    let defs = String::from_utf8_lossy(&defs.stdout);
    let main = defs
        .lines()
        .find(|l| l.starts_with("REGION") && l.contains("\"main\""))
        .unwrap_or_else(|| panic!("{defs}"));
    assert!(
        main.contains("\"main.c\"") && main.contains("10") && main.contains("40"),
        "{main}"
    );
    assert!(
        defs.lines()
            .any(|l| l.starts_with("COMM") && l.contains("\"row\"")),
        "{defs}"
    );
    assert!(
        defs.lines()
            .any(|l| l.starts_with("METRIC_MEMBER") && l.contains("\"residual\"")),
        "{defs}"
    );
    let team = |what: &str| {
        defs.lines()
            .find(|l| l.starts_with(what) && l.contains("OpenMP team 1 of rank 0"))
            .unwrap_or_else(|| panic!("no {what} of the team: {defs}"))
            .to_string()
    };
    team("COMM ");
    assert!(team("GROUP ").contains("2 Members"), "{}", team("GROUP "));

    python_check(&summary.anchor);
}

/// The Python bindings (Debian's python3-otf2 installs them for the
/// system interpreter, which may not be the first `python3`).
fn python_check(anchor: &Path) {
    let script = r#"
import sys, collections, otf2
from otf2.events import Enter, Leave, MpiSend, MpiIsend, MpiRecv, MpiIrecv
counts = collections.Counter()
stacks = collections.defaultdict(list)
sends, recvs = collections.Counter(), collections.Counter()
with otf2.reader.open(sys.argv[1]) as trace:
    for loc, ev in trace.events:
        counts[type(ev).__name__] += 1
        rank = loc.group.name
        if isinstance(ev, Enter):
            stacks[loc].append(ev.region.name)
        elif isinstance(ev, Leave):
            assert stacks[loc] and stacks[loc].pop() == ev.region.name, (loc.name, ev.region.name)
        elif isinstance(ev, (MpiSend, MpiIsend)):
            sends[(rank, ev.receiver, ev.communicator.name, ev.msg_tag)] += 1
        elif isinstance(ev, (MpiRecv, MpiIrecv)):
            recvs[(ev.sender, rank, ev.communicator.name, ev.msg_tag)] += 1
assert all(not s for s in stacks.values()), stacks
norm = lambda c: sorted((f"{a}".replace("MPI Rank ", ""), f"{b}".replace("MPI Rank ", ""), n, t) for (a, b, n, t) in c)
assert norm(sends) == norm(recvs), (sends, recvs)
print(counts["Enter"], counts["Leave"], sum(sends.values()), sum(recvs.values()))
"#;
    for python in ["python3", "/usr/bin/python3"] {
        let has = Command::new(python)
            .args(["-c", "import otf2"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !has {
            continue;
        }
        let out = Command::new(python)
            .arg("-c")
            .arg(script)
            .arg(anchor)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "15 15 3 3");
        return;
    }
    assert!(
        std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() != Ok("1"),
        "REGIO_REQUIRE_TOOLCHAINS=1 and no python3 imports otf2 (install python3-otf2)"
    );
    println!("SKIPPED: needs python3-otf2");
}

#[test]
fn a_run_killed_before_its_profiles_exports_from_the_idf_and_traces_alone() {
    use regio_analysis::export::{export_run, ExportFormat};
    let tmp = tempdir();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    run(&dir, true);
    for p in ["profile-r0-p100.json", "profile-r1-p200.json"] {
        std::fs::remove_file(dir.join(p)).unwrap();
    }
    let out = tmp.path().join("trace.json");
    let s = export_run(&dir, None, ExportFormat::Perfetto, &out).unwrap();
    assert_eq!((s.locations, s.messages), (3, 3));
    assert!(s.message_problems.is_empty(), "{:?}", s.message_problems);
    assert!(
        s.notes.iter().any(|n| n.contains("no profile")),
        "{:?}",
        s.notes
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let slices = check_slices(v["traceEvents"].as_array().unwrap());
    assert_eq!(slices.values().sum::<usize>(), 15);
    // Region names still come from the run's IDF.
    assert!(v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "MPI_Allreduce"));
}

#[test]
fn a_run_without_trace_files_says_how_to_record_one() {
    use regio_analysis::export::{export_run, ExportFormat};
    let tmp = tempdir();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    idf_only(&dir);
    let e = export_run(
        &dir,
        None,
        ExportFormat::Perfetto,
        &tmp.path().join("x.json"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("REGIO_MODE=trace"), "{e}");
}

fn idf_only(dir: &Path) {
    write_idf(
        &dir.join("regio.idf.json"),
        &[(MAIN, "function", "main", "main.c", 10, 40, None)],
    );
}

#[test]
fn the_header_rank_wins_over_a_file_name_written_before_mpi_init_confirmed_it() {
    let tmp = tempdir();
    let dir = tmp.path();
    run(dir, true);
    // The launcher said rank 5; MPI_Init said 1 and the header was patched.
    std::fs::rename(
        dir.join(trace_file_name(1, 200, 0)),
        dir.join(trace_file_name(5, 200, 0)),
    )
    .unwrap();
    let trace = load_trace(dir, None).unwrap();
    let ranks: Vec<u32> = trace.locations.iter().map(|l| l.rank).collect();
    assert_eq!(ranks, [0, 0, 1]);
    assert!(
        trace
            .notes
            .iter()
            .any(|n| n.contains("the header says rank 1 (used)")),
        "{:?}",
        trace.notes
    );
    assert_eq!(match_messages(&trace).messages.len(), 3);
}

#[test]
fn an_otf2_export_never_writes_into_an_existing_path() {
    let tmp = tempdir();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    run(&dir, true);
    let trace = load_trace(&dir, None).unwrap();
    let e = write_otf2(&trace, &dir).unwrap_err().to_string();
    assert!(e.contains("already exists"), "{e}");
}
