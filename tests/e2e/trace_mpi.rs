//! MPI in trace mode, end to end, under Open MPI and MPICH (picked as in
//! `mpi.rs`: Open MPI required under `REGIO_REQUIRE_TOOLCHAINS=1`, MPICH
//! tested where installed, SKIPPED lines otherwise).
//!
//! `testdata/trace/mpi_trace.c` runs on 4 ranks with rank 1's clock skewed
//! on purpose (`REGIO_TEST_CLOCK_SKEW`, an offset far above a message's
//! latency, and a drift):
//! - every rank's trace has its clock-sync records (Init, Finalize) and a
//!   definition of the sub-communicator it sends on;
//! - read without clock correction, some receive ends before its send
//!   began (the skew is visible); corrected, none does by more than the
//!   synchronisation's own uncertainty (half its round trips), every send
//!   has its receive, and the messages per sender and receiver (count and
//!   bytes) are the profile's communication matrix;
//! - `instrument export --format perfetto` draws one flow per message with
//!   the same per-pair counts and warns of nothing; `--format otf2` read
//!   back with `otf2-print` has as many sends as receives per
//!   (communicator, tag, length), as many as the profile's messages, and
//!   the collectives with their operations;
//! - `REGIO_EVENTS` without `messages` leaves message records out and
//!   keeps the rest;
//! - every rank's collectives (Bcast, Allreduce, Reduce, Gather, Gatherv,
//!   Barrier) carry the bytes it sent and received, as the program's
//!   counts give them (roots decide the direction), in the trace, the
//!   profile's per-rank collectives and the OTF2 archive.
//!
//! `testdata/trace/mpi_persistent.c` on 4 ranks: persistent requests
//! (`MPI_Send_init`/`MPI_Recv_init`, `MPI_Start`/`MPI_Startall`) are
//! posted at their start and completed in their wait, so every message
//! matches with no receive ending before its send began, and on the
//! ranks that sleep between start and wait the send's post comes that
//! long before its completion.
//!
//! `testdata/trace/mpi_trace.f90` (`use mpi`, `mpif90`) on 4 ranks: the
//! same matching and profile comparison, and the bytes of its Bcast,
//! Allreduce and Gather.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use regio_analysis::export::{load_trace_with, match_messages, Clocks, MessageCheck, Trace};
use regio_trace_format::{Event, SyncPhase};
use serde_json::Value;

mod abort;
mod spawn;

use crate::common::mpis::{mpich, mpich_fortran, open_mpi, open_mpi_fortran, Mpi, MPICH, OPEN_MPI};
use crate::common::report::{only_run, report_json};
use crate::common::traces;
use crate::common::{
    compile, instrument_bin, instrument_flags, instrument_testdata, machine, python_with_otf2, run,
    run_ok, TestDir,
};

/// Rank 1 runs this far ahead (plus the drift): far above the latency of
/// a message between processes of one machine.
const SKEW_OFFSET_NS: u64 = 50_000_000;
const SKEW_DRIFT_PPM: u64 = 2_000;
const RANKS: u32 = 4;

/// Instruments `testdata/trace/<file>` (`--regions mpi,functions`) and
/// builds it with the implementation's compiler wrapper.
fn build(mpi: &Mpi, file: &str, tmp: &TestDir) -> PathBuf {
    build_with(mpi, file, tmp, "mpi,functions", &[])
}

/// [`build`] with `--regions regions` and `extra` compiler flags.
fn build_with(mpi: &Mpi, file: &str, tmp: &TestDir, regions: &str, extra: &[&str]) -> PathBuf {
    let fortran = !file.ends_with(".c");
    let inst = instrument_testdata(tmp, "trace", file, regions);
    let mut flags = vec!["-O1".to_string()];
    flags.extend(extra.iter().map(|f| f.to_string()));
    if !fortran {
        flags.extend(instrument_flags("--cflags"));
    }
    let exe = tmp.join("prog");
    compile(
        if fortran { mpi.fc } else { mpi.cc },
        &flags,
        &[inst.join(file)],
        &instrument_flags("--libs"),
        &exe,
    );
    exe
}

/// Builds `testdata/trace/<file>` (C or Fortran) uninstrumented and runs
/// it on `RANKS` ranks: its standard output.
fn plain_output(mpi: &Mpi, file: &str, tmp: &TestDir) -> String {
    let exe = tmp.join("plain");
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/trace")
        .join(file);
    let compiler = if file.ends_with(".c") { mpi.cc } else { mpi.fc };
    compile(compiler, &["-O1".to_string()], &[src], &[], &exe);
    let mut c = Command::new(mpi.run);
    c.env_remove("LD_LIBRARY_PATH")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(mpi.args)
        .args(["-np", &RANKS.to_string()])
        .arg(&exe);
    run_ok(&mut c).stdout
}

/// Builds `file` of testdata/trace instrumented, runs it traced on the
/// test's ranks in `<tmp>/run` and asserts its output is the plain
/// build's; returns the test directory and the run directory.
fn traced_run_matching_plain(mpi: &Mpi, file: &str, tag: &str) -> (TestDir, PathBuf) {
    let tmp = TestDir::new(tag);
    let exe = build(mpi, file, &tmp);
    let run_dir = tmp.join("run");
    let out = mpirun_traced(mpi, &exe, &[], &run_dir, &[]);
    assert_eq!(
        out,
        plain_output(mpi, file, &tmp),
        "output against the plain build"
    );
    (tmp, run_dir)
}

/// `launcher` (mpirun, or `timeout` in front of it) without the settings
/// of the test's own environment that would change what is measured, and
/// allowed to run as root (CI).
fn mpi_launcher(launcher: &str) -> Command {
    let mut c = Command::new(launcher);
    c.env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_EVENTS")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    c
}

/// Runs `exe args` on `RANKS` ranks in trace mode into `run_dir`, with
/// `env` besides: its standard output.
fn mpirun_traced(
    mpi: &Mpi,
    exe: &Path,
    args: &[&str],
    run_dir: &Path,
    env: &[(&str, String)],
) -> String {
    let mut c = mpi_launcher(mpi.run);
    c.current_dir(run_dir.parent().unwrap_or(Path::new(".")))
        .env("REGIO_MODE", "trace")
        .env("REGIO_DIR", run_dir)
        .args(mpi.args)
        .args(["-np", &RANKS.to_string()]);
    let mut names = vec!["REGIO_MODE", "REGIO_DIR"];
    for (k, v) in env {
        c.env(k, v);
        names.push(k);
    }
    if mpi.is_open_mpi() {
        for n in names {
            c.args(["-x", n]);
        }
    }
    c.arg(exe).args(args);
    let got = run(&mut c);
    assert_eq!(got.outcome(), "exit 0", "{}", got.describe());
    assert!(
        got.stdout.contains(&format!("done on {RANKS} ranks")),
        "{}",
        got.describe()
    );
    got.stdout
}

type Matrix = BTreeMap<(u32, u32), (u64, u64)>;

/// Sender x receiver -> (messages, bytes) of the profile's communication
/// record (`instrument report --format json`).
fn profile_matrix(run_dir: &Path) -> Matrix {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let mut m = Matrix::new();
    for c in run["communication"]["matrix"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
    {
        let key = (
            c["sender"].as_u64().unwrap_or(u64::MAX) as u32,
            c["receiver"].as_u64().unwrap_or(u64::MAX) as u32,
        );
        let cell = m.entry(key).or_default();
        cell.0 += c["messages"].as_u64().unwrap_or(0);
        cell.1 += c["bytes"].as_u64().unwrap_or(0);
    }
    m
}

/// The matched messages of a trace per sender and receiver.
fn trace_matrix(check: &MessageCheck) -> Matrix {
    let mut m = Matrix::new();
    for msg in &check.messages {
        let cell = m.entry((msg.from, msg.to)).or_default();
        cell.0 += 1;
        cell.1 += msg.bytes;
    }
    m
}

fn load(run_dir: &Path, clocks: Clocks) -> (Trace, MessageCheck) {
    let trace = load_trace_with(run_dir, None, clocks).unwrap_or_else(|e| panic!("{e}"));
    let check = match_messages(&trace);
    (trace, check)
}

/// Corrected: no receive ends before its send began by more than the two
/// clocks' synchronisation may be off (half the round trips of the
/// measurements used: on this loaded 2-core machine a rank is sometimes
/// descheduled during all of its exchanges), nothing is unmatched, and
/// the messages are the profile's. Returns the matrix and the number of
/// violations within the uncertainty (reported all the same).
fn check_corrected(run_dir: &Path) -> (Matrix, usize) {
    let (trace, check) = load(run_dir, Clocks::Corrected);
    let beyond = check
        .violations
        .iter()
        .filter(|v| v.beyond_uncertainty())
        .count();
    assert!(
        beyond == 0 && check.unmatched_sends + check.unmatched_recvs == 0,
        "after clock correction:\n{}",
        check.describe(&trace).join("\n")
    );
    let got = trace_matrix(&check);
    let want = profile_matrix(run_dir);
    assert!(!want.is_empty(), "the profile records no messages");
    assert_eq!(
        got, want,
        "trace messages per (sender, receiver) vs profile"
    );
    (got, check.violations.len())
}

/// The export's warnings are the violations within the uncertainty only.
fn check_warnings(stderr: &str, within: usize) {
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning:")).collect();
    assert_eq!(warnings.len(), within, "export warnings:\n{stderr}");
    assert!(warnings.iter().all(|w| w.contains("received")), "{stderr}");
}

/// `instrument export --format perfetto`: flows per (from, to), and the
/// command's stderr (warnings).
fn perfetto_flows(run_dir: &Path, out: &Path) -> (Matrix, String) {
    let r = run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "perfetto"])
            .arg(run_dir)
            .arg("--out")
            .arg(out),
    );
    let text = std::fs::read_to_string(out).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut starts = Matrix::new();
    let mut ends = Matrix::new();
    for e in v["traceEvents"].as_array().into_iter().flatten() {
        let side = match e["ph"].as_str() {
            Some("s") => &mut starts,
            Some("f") => &mut ends,
            _ => continue,
        };
        let a = &e["args"];
        let key = (
            a["from"].as_u64().unwrap_or(u64::MAX) as u32,
            a["to"].as_u64().unwrap_or(u64::MAX) as u32,
        );
        let cell = side.entry(key).or_default();
        cell.0 += 1;
        cell.1 += a["bytes"].as_u64().unwrap_or(0);
    }
    assert_eq!(starts, ends, "every flow that starts ends");
    (starts, r.stderr)
}

/// An OTF2 collective's operation, bytes sent and received.
type Otf2Collective = (String, u64, u64);

/// `instrument export --format otf2` read back by `otf2-print` (None
/// without `otf2-tools`): sends and receives per (communicator, tag,
/// length) must pair up; returns (point-to-point messages, collective
/// operations seen with their bytes sent and received).
fn otf2_messages(run_dir: &Path, out: &Path) -> Option<(u64, Vec<Otf2Collective>)> {
    otf2_messages_with(run_dir, out, &[])
}

/// [`otf2_messages`] with `env` set for the export.
fn otf2_messages_with(
    run_dir: &Path,
    out: &Path,
    env: &[(&str, &str)],
) -> Option<(u64, Vec<Otf2Collective>)> {
    let printed = traces::otf2_printed_with(run_dir, out, env)?;
    let mut sends: BTreeMap<String, u64> = BTreeMap::new();
    let mut recvs: BTreeMap<String, u64> = BTreeMap::new();
    let mut ops = Vec::new();
    for line in printed.lines() {
        let mut words = line.split_whitespace();
        let kind = words.next().unwrap_or("");
        // "Communicator: ... , Tag: t, Length: n" identify the message.
        let key = || {
            let at = line.find("Communicator:").unwrap_or(line.len());
            let rest = &line[at..];
            rest.split(", Request").next().unwrap_or(rest).to_string()
        };
        match kind {
            "MPI_SEND" | "MPI_ISEND" => *sends.entry(key()).or_default() += 1,
            "MPI_RECV" | "MPI_IRECV" => *recvs.entry(key()).or_default() += 1,
            "MPI_COLLECTIVE_END" => {
                let field = |name: &str| {
                    line.split(name)
                        .nth(1)
                        .map(|v| v.split(',').next().unwrap_or("").trim().to_string())
                };
                if let Some(op) = field("Operation: ") {
                    let bytes = |name: &str| {
                        field(name).map_or(u64::MAX, |v| v.parse().unwrap_or(u64::MAX))
                    };
                    ops.push((op, bytes("Sent: "), bytes("Received: ")));
                }
            }
            _ => {}
        }
    }
    assert_eq!(sends, recvs, "OTF2 sends and receives per message kind");
    let total: u64 = sends.values().sum();
    let entered: u64 = traces::otf2_enters_by_name(&printed).values().sum();
    let calls: u64 = traces::profile_calls(run_dir).values().sum();
    assert_eq!(entered, calls, "otf2-print ENTER lines vs profile calls");
    if let Some(python) = python_with_otf2() {
        let (enters, matched) = python_read_back(python, &out.join("traces.otf2"));
        assert_eq!(enters, entered, "Enter events through the Python bindings");
        assert_eq!(
            matched, total,
            "messages matched through the Python bindings"
        );
    }
    Some((total, ops))
}

/// Python prelude working around a bug of the OTF2 3.0.2 bindings (the
/// Debian package): `otf2.definitions.InterComm` inherits `Comm`'s fields
/// and appends its own (name, group, parent, flags, groupA, groupB,
/// parent, flags), so reading any archive with an `InterComm` fails with
/// a `KeyError` (its groupB taken for a parent communicator). The
/// definition the C library passes is name, groupA, groupB,
/// commonCommunicator, flags, which `otf2-print` shows.
const PY_INTERCOMM_FIELDS: &str = r#"
import otf2.definitions as _d
_f = _d.InterComm._fields
if [x.name for x in _f] == ['name', 'group', 'parent', 'flags', 'groupA', 'groupB', 'parent', 'flags']:
    _d.InterComm._fields = (_f[0],) + _f[4:]
"#;

/// The archive read with the OTF2 Python bindings: every location's
/// enters and leaves nest, and every send has its receive with the same
/// sender, receiver (world ranks, through the communicator's group),
/// communicator and tag. Returns (enters, messages).
fn python_read_back(python: &str, anchor: &Path) -> (u64, u64) {
    let script = r#"
import sys, collections, otf2
from otf2.events import Enter, Leave, MpiSend, MpiIsend, MpiRecv, MpiIrecv
stacks = collections.defaultdict(list)
sends, recvs = collections.Counter(), collections.Counter()
enters = 0
def where(comm, me, peer):
    # An InterComm's ranks are those of the group `me` is not in (OTF2 3.0).
    if isinstance(comm, otf2.definitions.InterComm):
        a, b = comm.groupA, comm.groupB
        remote = b if me in [m.group.name for m in a.members] else a
        return remote.location(peer).group.name
    return comm.location(peer).group.name
with otf2.reader.open(sys.argv[1]) as trace:
    for loc, ev in trace.events:
        rank = loc.group.name
        if isinstance(ev, Enter):
            enters += 1
            stacks[loc].append(ev.region.name)
        elif isinstance(ev, Leave):
            assert stacks[loc] and stacks[loc].pop() == ev.region.name, (loc.name, ev.region.name)
        elif isinstance(ev, (MpiSend, MpiIsend)):
            # Peers are ranks in the communicator: name them by world rank.
            peer = where(ev.communicator, rank, ev.receiver)
            sends[(rank, peer, ev.communicator.name, ev.msg_tag)] += 1
        elif isinstance(ev, (MpiRecv, MpiIrecv)):
            peer = where(ev.communicator, rank, ev.sender)
            recvs[(peer, rank, ev.communicator.name, ev.msg_tag)] += 1
assert all(not s for s in stacks.values()), {l.name: s for l, s in stacks.items() if s}
assert sends == recvs, (sends, recvs)
print(enters, sum(sends.values()))
"#;
    let script = format!("{PY_INTERCOMM_FIELDS}{script}");
    let out = run_ok(Command::new(python).arg("-c").arg(script).arg(anchor));
    let mut numbers = out
        .stdout
        .split_whitespace()
        .map(|w| w.parse::<u64>().unwrap_or(0));
    (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0))
}

/// (bytes sent, bytes received) of one collective on one rank.
type CollBytes = (u64, u64);

/// What `mpi_trace.c`'s collectives move on rank `r` of `n`, in call
/// order (`mpi_routines.rs`'s convention: every rank, the root included,
/// is one of the ranks a block goes to or comes from).
fn c_collectives(r: u64, n: u64) -> Vec<CollBytes> {
    let int = 4;
    let root_of = |root: u64, bytes: u64| if r == root { bytes } else { 0 };
    vec![
        // MPI_Bcast of 8 ints from 1 % n.
        (root_of(1 % n, 8 * int * n), 8 * int),
        // MPI_Allreduce of 2.
        (2 * int * n, 2 * int * n),
        // MPI_Reduce of 4 to n - 1.
        (4 * int, root_of(n - 1, 4 * int * n)),
        // MPI_Gather of 3 to 2 % n.
        (3 * int, root_of(2 % n, 3 * int * n)),
        // MPI_Gatherv of r + 1 ints to 0.
        ((r + 1) * int, root_of(0, int * n * (n + 1) / 2)),
        // MPI_Barrier.
        (0, 0),
    ]
}

/// The same for `mpi_trace.f90`: Bcast of 4 integers from 0, Allreduce
/// of 1, Gather of 2 to 1, Allreduce of 1 with `MPI_IN_PLACE` (the own
/// block not counted).
fn fortran_collectives(r: u64, n: u64) -> Vec<CollBytes> {
    let int = 4;
    let root_of = |root: u64, bytes: u64| if r == root { bytes } else { 0 };
    vec![
        (root_of(0, 4 * int * n), 4 * int),
        (int * n, int * n),
        (2 * int, root_of(1, 2 * int * n)),
        (int * (n - 1), int * (n - 1)),
    ]
}

/// Every rank's `mpi_collective_end` records carry `want(rank, ranks)` in
/// order, and the profile's per-rank collectives (`instrument report
/// --format json`) their sums.
fn check_collective_bytes(run_dir: &Path, want: fn(u64, u64) -> Vec<CollBytes>) {
    let n = u64::from(RANKS);
    for (name, f) in traces::decode_all(run_dir) {
        let got: Vec<CollBytes> = f
            .records
            .iter()
            .filter_map(|r| match r.event {
                Event::MpiCollectiveEnd { sent, received, .. } => Some((sent, received)),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            want(u64::from(f.header.rank), n),
            "{name}: (sent, received) per collective"
        );
    }
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(u64, u64, u64, u64)> = run["communication"]["collectives"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|c| {
            (
                c["rank"].as_u64().unwrap_or(u64::MAX),
                c["operations"].as_u64().unwrap_or(0),
                c["bytes_sent"].as_u64().unwrap_or(0),
                c["bytes_received"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    let expected: Vec<(u64, u64, u64, u64)> = (0..n)
        .map(|r| {
            let ops = want(r, n);
            (
                r,
                ops.len() as u64,
                ops.iter().map(|o| o.0).sum(),
                ops.iter().map(|o| o.1).sum(),
            )
        })
        .collect();
    assert_eq!(
        got, expected,
        "profile: (rank, operations, bytes sent, bytes received)"
    );
}

fn check_c_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let tmp = TestDir::new(&format!("trace-mpi-{}", mpi.name));
    let exe = build(mpi, "mpi_trace.c", &tmp);
    let run_dir = tmp.join("run");
    let skew = format!("1:{SKEW_OFFSET_NS}:{SKEW_DRIFT_PPM}");
    mpirun_traced(
        mpi,
        &exe,
        &["300"],
        &run_dir,
        &[("REGIO_TEST_CLOCK_SKEW", skew)],
    );

    // What the runtime wrote: per rank the two clock measurements (with
    // the sync clock's reading), the sub-communicator's definition, and
    // message and collective records.
    let files = traces::decode_all(&run_dir);
    assert_eq!(files.len(), RANKS as usize, "one trace per rank");
    for (name, f) in &files {
        let phases: Vec<SyncPhase> = f
            .records
            .iter()
            .filter_map(|r| match r.event {
                Event::ClockSync {
                    phase,
                    local_ns: Some(_),
                    ..
                } => Some(phase),
                _ => None,
            })
            .collect();
        assert_eq!(phases, [SyncPhase::Init, SyncPhase::Finalize], "{name}");
        let comms: Vec<&Vec<u32>> = f
            .records
            .iter()
            .filter_map(|r| match &r.event {
                Event::Comm { members, .. } => Some(members),
                _ => None,
            })
            .collect();
        let parity = f.header.rank % 2;
        let group: Vec<u32> = (0..RANKS).filter(|r| r % 2 == parity).collect();
        assert_eq!(comms, [&group], "{name}: the MPI_Comm_split group");
        let count = |p: fn(&Event) -> bool| f.records.iter().filter(|r| p(&r.event)).count();
        // Bcast, Allreduce, Reduce, Gather, Gatherv, Barrier.
        assert_eq!(
            count(|e| matches!(e, Event::MpiCollectiveEnd { .. })),
            6,
            "{name}"
        );
        assert_eq!(
            count(|e| matches!(e, Event::MpiCollectiveBegin)),
            6,
            "{name}"
        );
        assert_eq!(count(|e| matches!(e, Event::MpiIsend { .. })), 2, "{name}");
        assert_eq!(
            count(|e| matches!(e, Event::MpiIsendComplete { .. })),
            2,
            "{name}"
        );
        assert_eq!(
            count(|e| matches!(e, Event::MpiIrecvRequest { .. })),
            2,
            "{name}"
        );
        assert_eq!(count(|e| matches!(e, Event::MpiIrecv { .. })), 2, "{name}");
    }

    check_collective_bytes(&run_dir, c_collectives);

    // The skew shows without correction...
    let (trace, raw) = load(&run_dir, Clocks::Local);
    assert!(
        raw.violations
            .iter()
            .any(|v| v.early_ns > SKEW_OFFSET_NS / 2),
        "rank 1 runs {SKEW_OFFSET_NS} ns ahead, yet no receive precedes its send uncorrected: {:?}",
        raw.describe(&trace)
    );
    // ...and is gone with it.
    let (matrix, within) = check_corrected(&run_dir);
    let total: u64 = matrix.values().map(|c| c.0).sum();

    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);

    if let Some((messages, ops)) = otf2_messages(&run_dir, &tmp.join("t.otf2")) {
        assert_eq!(messages, total, "OTF2 point-to-point messages");
        let mut names: Vec<&str> = ops.iter().map(|o| o.0.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names,
            [
                "ALLREDUCE",
                "BARRIER",
                "BCAST",
                "GATHER",
                "GATHERV",
                "REDUCE"
            ],
            "OTF2 collectives"
        );
        // Bytes per operation over all ranks, as the program's counts give.
        let n = u64::from(RANKS);
        let mut want: BTreeMap<String, CollBytes> = BTreeMap::new();
        let mut got: BTreeMap<String, CollBytes> = BTreeMap::new();
        let order = [
            "BCAST",
            "ALLREDUCE",
            "REDUCE",
            "GATHER",
            "GATHERV",
            "BARRIER",
        ];
        for r in 0..n {
            for (op, (s, rcv)) in order.iter().zip(c_collectives(r, n)) {
                let e = want.entry(op.to_string()).or_default();
                e.0 += s;
                e.1 += rcv;
            }
        }
        for (op, s, rcv) in ops {
            let e = got.entry(op).or_default();
            e.0 += s;
            e.1 += rcv;
        }
        assert_eq!(got, want, "OTF2 (sent, received) per operation");
    }

    // Without `messages` in REGIO_EVENTS: no message records, the rest
    // stays.
    let quiet = tmp.join("quiet");
    mpirun_traced(
        mpi,
        &exe,
        &[],
        &quiet,
        &[("REGIO_EVENTS", "functions,mpi".to_string())],
    );
    for (name, f) in traces::decode_all(&quiet) {
        let messages = f
            .records
            .iter()
            .filter(|r| {
                matches!(
                    r.event,
                    Event::MpiSend { .. }
                        | Event::MpiRecv { .. }
                        | Event::MpiIsend { .. }
                        | Event::MpiIsendComplete { .. }
                        | Event::MpiIrecvRequest { .. }
                        | Event::MpiIrecv { .. }
                        | Event::MpiCollectiveBegin
                        | Event::MpiCollectiveEnd { .. }
                        | Event::Comm { .. }
                )
            })
            .count();
        assert_eq!(messages, 0, "{name}: message records without `messages`");
        let syncs = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::ClockSync { .. }))
            .count();
        assert_eq!(syncs, 2, "{name}: clock-sync records stay");
        assert!(
            f.records
                .iter()
                .any(|r| matches!(r.event, Event::Enter { .. })),
            "{name}: regions stay"
        );
    }
}

on_both_mpis!(
    mpi_messages_in_traces_match_after_clock_correction,
    mpi_messages_in_traces_match_after_clock_correction_with_mpich,
    check_c_program,
    open_mpi,
    mpich
);

/// How long even ranks of `mpi_persistent.c` wait between start and wait.
const PERSISTENT_SLEEP_MS: u64 = 40;

fn check_persistent_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let tmp = TestDir::new(&format!("trace-mpi-persistent-{}", mpi.name));
    let exe = build(mpi, "mpi_persistent.c", &tmp);
    let run_dir = tmp.join("run");
    mpirun_traced(
        mpi,
        &exe,
        &[&PERSISTENT_SLEEP_MS.to_string()],
        &run_dir,
        &[],
    );
    for (name, f) in traces::decode_all(&run_dir) {
        let count = |p: fn(&Event) -> bool| f.records.iter().filter(|r| p(&r.event)).count();
        // Three rounds: one post and one completion per request each.
        assert_eq!(count(|e| matches!(e, Event::MpiIsend { .. })), 3, "{name}");
        assert_eq!(
            count(|e| matches!(e, Event::MpiIsendComplete { .. })),
            3,
            "{name}"
        );
        assert_eq!(
            count(|e| matches!(e, Event::MpiIrecvRequest { .. })),
            3,
            "{name}"
        );
        assert_eq!(count(|e| matches!(e, Event::MpiIrecv { .. })), 3, "{name}");
        // Each send is posted before it completes; where the rank slept
        // between start and wait, by at least that long (less a slack for
        // the clock's rate).
        let posts: Vec<u64> = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::MpiIsend { .. }))
            .map(|r| r.ticks)
            .collect();
        let dones: Vec<u64> = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::MpiIsendComplete { .. }))
            .map(|r| r.ticks)
            .collect();
        let min_ticks = if f.header.rank % 2 == 0 {
            (PERSISTENT_SLEEP_MS as f64 * 0.9e-3 * f.header.ticks_per_second) as u64
        } else {
            0
        };
        for (post, done) in posts.iter().zip(&dones) {
            assert!(
                done.saturating_sub(*post) >= min_ticks && post <= done,
                "{name}: send posted at tick {post}, completed at {done} (want >= {min_ticks} apart)"
            );
        }
    }
    let (matrix, within) = check_corrected(&run_dir);
    for r in 0..RANKS {
        assert_eq!(
            matrix.get(&(r, (r + 1) % RANKS)),
            Some(&(3, 64 * 3)),
            "{r}: {matrix:?}"
        );
    }
    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);
}

on_both_mpis!(
    persistent_requests_are_posted_at_their_start,
    persistent_requests_are_posted_at_their_start_with_mpich,
    check_persistent_program,
    open_mpi,
    mpich
);

fn check_fortran_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let tmp = TestDir::new(&format!("trace-mpi-f90-{}", mpi.name));
    let exe = build(mpi, "mpi_trace.f90", &tmp);
    let run_dir = tmp.join("run");
    mpirun_traced(mpi, &exe, &[], &run_dir, &[]);
    let (matrix, within) = check_corrected(&run_dir);
    check_collective_bytes(&run_dir, fortran_collectives);
    // The duplicate of the parity split is the one communicator besides
    // the world that carries messages: defined once per rank, with a
    // run-wide id (its creation captured from Fortran).
    for (name, f) in traces::decode_all(&run_dir) {
        let ids: Vec<u32> = f
            .records
            .iter()
            .filter_map(|r| match r.event {
                Event::Comm { comm, .. } => Some(comm),
                _ => None,
            })
            .collect();
        assert!(
            ids.len() == 1 && ids[0] & RUN_WIDE != 0,
            "{name}: communicator definitions {ids:x?}"
        );
    }
    // Ring: rank r sends r + 1 messages to r + 1; exchange: one message to
    // each neighbour (4 ranks: neighbours differ); one to r + 2 on the
    // parity communicator.
    for r in 0..RANKS {
        let right = (r + 1) % RANKS;
        let left = (r + RANKS - 1) % RANKS;
        let across = (r + 2) % RANKS;
        assert_eq!(
            matrix.get(&(r, across)),
            Some(&(1, 4)),
            "{r} -> {across}: {matrix:?}"
        );
        assert_eq!(
            matrix.get(&(r, right)).map(|c| c.0),
            Some(u64::from(r) + 2),
            "{r} -> {right}: {matrix:?}"
        );
        assert_eq!(
            matrix.get(&(r, left)).map(|c| c.0),
            Some(1),
            "{r} -> {left}: {matrix:?}"
        );
    }
    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);
    // OTF2 (with otf2-print): the messages pair up and are the profile's,
    // the ENTER lines are its calls (and the Python bindings' count).
    if let Some((messages, _)) = otf2_messages(&run_dir, &tmp.join("t.otf2")) {
        let total: u64 = matrix.values().map(|c| c.0).sum();
        assert_eq!(messages, total, "OTF2 point-to-point messages");
    }
}

/// `testdata/trace/mpi_omp_trace.c`, MPI and OpenMP in one traced run (4
/// ranks of 2 threads): a file per thread, strict nesting, enter records
/// equal the profile's calls (join spans included), teams of 2 on every
/// rank (2 forks each), `work` 8 times per rank and round, the ring's
/// messages matched after clock correction and equal to the profile's
/// matrix in the trace, Perfetto and OTF2.
fn check_hybrid_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let tmp = TestDir::new(&format!("trace-mpi-omp-{}", mpi.name));
    let exe = build_with(
        mpi,
        "mpi_omp_trace.c",
        &tmp,
        "mpi,omp,functions",
        &["-fopenmp"],
    );
    let run_dir = tmp.join("run");
    mpirun_traced(
        mpi,
        &exe,
        &[],
        &run_dir,
        &[("OMP_NUM_THREADS", "2".to_string())],
    );
    let files = traces::decode_all(&run_dir);
    assert_eq!(files.len(), 2 * RANKS as usize, "{:?}", files.keys());
    assert_eq!(traces::nesting_problems(&files), Vec::<String>::new());
    let forks = traces::check_teams(&run_dir, &files, 2);
    assert_eq!(forks, 2 * RANKS as usize, "two parallel loops per rank");
    let names = traces::idf_field(&run_dir, "name");
    let work: u64 = traces::enters(&files)
        .into_iter()
        .filter(|(id, _)| {
            names
                .get(&(id % regio_idf::rundir::OBJECT_ID_STRIDE))
                .map(String::as_str)
                == Some("work")
        })
        .map(|(_, n)| n)
        .sum();
    assert_eq!(
        work,
        2 * 8 * u64::from(RANKS),
        "work over ranks and threads"
    );
    let (matrix, within) = check_corrected(&run_dir);
    for r in 0..RANKS {
        let right = (r + 1) % RANKS;
        assert_eq!(
            matrix.get(&(r, right)),
            Some(&(2, 8)),
            "{r} -> {right}: {matrix:?}"
        );
    }
    assert_eq!(matrix.len(), RANKS as usize, "{matrix:?}");
    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);
    if let Some((messages, _)) = otf2_messages(&run_dir, &tmp.join("t.otf2")) {
        assert_eq!(
            messages,
            2 * u64::from(RANKS),
            "OTF2 point-to-point messages"
        );
    }
}

on_both_mpis!(
    mpi_and_openmp_trace_has_teams_on_every_rank_and_matches,
    mpi_and_openmp_trace_has_teams_on_every_rank_and_matches_with_mpich,
    check_hybrid_program,
    open_mpi,
    mpich
);

on_both_mpis!(
    fortran_mpi_messages_in_traces_match,
    fortran_mpi_messages_in_traces_match_with_mpich,
    check_fortran_program,
    open_mpi_fortran,
    mpich_fortran
);

/// Bit 31 of a trace's communicator id: the same id on every member.
const RUN_WIDE: u32 = 1 << 31;

/// `testdata/trace/mpi_comms.c`: communicators created in different
/// orders by different ranks, two with the same members first used in
/// opposite orders, 80 more than the old limit of 64, and one that leaves
/// ranks out. Every rank defines each communicator it sends or receives
/// on with a run-wide id; the export pairs them so that every message is
/// matched and the messages are the profile's; each communicator appears
/// once in the export; the output is the plain build's.
fn check_comms_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let (tmp, run_dir) =
        traced_run_matching_plain(mpi, "mpi_comms.c", &format!("trace-mpi-comms-{}", mpi.name));
    for (name, f) in traces::decode_all(&run_dir) {
        let ids: Vec<u32> = f
            .records
            .iter()
            .filter_map(|r| match r.event {
                Event::Comm { comm, .. } => Some(comm),
                _ => None,
            })
            .collect();
        // The half's duplicate, the world's, A and B, 80 ring
        // communicators, and on odd ranks the split that left out the
        // even ones.
        let want = 84 + (f.header.rank % 2) as usize;
        assert_eq!(ids.len(), want, "{name}: communicator definitions");
        assert!(
            ids.iter().all(|id| id & RUN_WIDE != 0),
            "{name}: process-local ids {ids:x?}"
        );
    }
    let (matrix, within) = check_corrected(&run_dir);
    // World duplicate 4, ring 4 x 80, half duplicates 4, A and B 4, the
    // odd ranks' split 2.
    let total: u64 = matrix.values().map(|c| c.0).sum();
    assert_eq!(total, 4 + 4 * 80 + 4 + 4 + 2, "{matrix:?}");
    let (trace, _) = load(&run_dir, Clocks::Corrected);
    let comms: Vec<(&str, &[u32])> = trace
        .comms
        .iter()
        .map(|c| (c.name.as_str(), c.members.as_slice()))
        .collect();
    // MPI_COMM_WORLD, 2 half duplicates, 1 + 2 + 80 world duplicates, 1 split.
    assert_eq!(comms.len(), 1 + 2 + 83 + 1, "{comms:?}");
    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);
}

on_both_mpis!(
    communicators_keep_their_identity_across_ranks,
    communicators_keep_their_identity_across_ranks_with_mpich,
    check_comms_program,
    open_mpi,
    mpich
);

/// What `mpi_coll_bytes.c`'s collectives move on rank `r` of `n`, in call
/// order: with `MPI_IN_PLACE` a process's own block is not counted
/// (Score-P's convention); neighbourhood collectives count per neighbour.
fn in_place_collectives(r: u64, n: u64) -> Vec<CollBytes> {
    let int = 4;
    let at = |root: u64, yes: CollBytes, no: CollBytes| if r == root { yes } else { no };
    // Rank k contributes k + 1 ints to the v collectives.
    let all: u64 = n * (n + 1) / 2;
    let own = r + 1;
    vec![
        // Gather of 3 to 2, in place at the root.
        at(2 % n, (0, 3 * int * (n - 1)), (3 * int, 0)),
        // Gatherv to 0, in place at the root.
        at(0, (0, (all - 1) * int), (own * int, 0)),
        // Reduce of 4 to n - 1, in place at the root.
        at(n - 1, (0, 4 * int * (n - 1)), (4 * int, 0)),
        // Allreduce of 2, Allgather of 2, in place.
        (2 * int * (n - 1), 2 * int * (n - 1)),
        (2 * int * (n - 1), 2 * int * (n - 1)),
        // Scatter of 2 from 1, the root's receive buffer in place.
        at(1 % n, (2 * int * (n - 1), 0), (0, 2 * int)),
        // Alltoall of 1, in place.
        (int * (n - 1), int * (n - 1)),
        // Allgatherv, in place: the others' blocks in, mine to each other.
        ((n - 1) * own * int, (all - own) * int),
        // Reduce_scatter, in place: the others' blocks out, mine from each.
        ((all - own) * int, (n - 1) * own * int),
        // Allreduce of 2 with separate buffers.
        (2 * int * n, 2 * int * n),
        // Alltoallw: an int to each even rank, a double to each odd one;
        // n of this rank's kind back.
        (
            (n - n / 2) * int + (n / 2) * 8,
            n * if r % 2 == 1 { 8 } else { int },
        ),
        // Alltoallw in place: an int to and from each other rank.
        (int * (n - 1), int * (n - 1)),
        // Neighbourhood collectives (two neighbours on the ring, one each
        // way on the graph): Allgather of 2, Alltoallv of 1 + 2, Alltoall
        // of 3.
        (2 * 2 * int, 2 * 2 * int),
        (3 * int, 3 * int),
        (3 * int, 3 * int),
        // Scan of 2, Scan of 2 in place, Exscan of 2: by rank position.
        ((n - r) * 2 * int, (r + 1) * 2 * int),
        ((n - r - 1) * 2 * int, r * 2 * int),
        ((n - r - 1) * 2 * int, r * 2 * int),
        // The checksum: Reduce of one long to 0.
        at(0, (8, 8 * n), (8, 0)),
    ]
}

/// `testdata/trace/mpi_coll_bytes.c`: collectives given `MPI_IN_PLACE`
/// (as a variable, compared at run time, and as written) carry the bytes
/// Score-P counts, in the trace and the profile, and so do
/// `MPI_Alltoallw` with its datatype per rank and the neighbourhood
/// collectives (per neighbour of a Cartesian and a distributed-graph
/// topology); the output is the plain build's.
fn check_coll_bytes_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let (_tmp, run_dir) = traced_run_matching_plain(
        mpi,
        "mpi_coll_bytes.c",
        &format!("trace-mpi-collbytes-{}", mpi.name),
    );
    check_collective_bytes(&run_dir, in_place_collectives);
}

on_both_mpis!(
    collective_bytes_in_place_alltoallw_and_neighbourhood,
    collective_bytes_in_place_alltoallw_and_neighbourhood_with_mpich,
    check_coll_bytes_program,
    open_mpi,
    mpich
);

/// What `mpi_intercomm.c`'s collectives move on world rank `r` (group A:
/// 0 and 1, group B: 2 and 3), in call order, by Score-P's rules for
/// intercommunicators: blocks go to or come from the remote group; the
/// root passes `MPI_ROOT`, the rest of its group `MPI_PROC_NULL`.
fn intercomm_collectives(r: u64, _n: u64) -> Vec<CollBytes> {
    let int = 4;
    let remote = 2;
    let bcast = match r {
        0 => (3 * int * remote, 0),
        1 => (0, 0),
        _ => (0, 3 * int),
    };
    let gather = match r {
        0 | 1 => (2 * int, 0),
        2 => (0, 2 * int * remote),
        _ => (0, 0),
    };
    vec![
        bcast,
        gather,
        // Allreduce on the intercommunicator: one block to and from each
        // remote process.
        (int * remote, int * remote),
        // Allreduce on the merged communicator of 4.
        (int * 4, int * 4),
        // The checksum: Reduce of one long to 0 on the world.
        if r == 0 { (8, 8 * 4) } else { (8, 0) },
    ]
}

/// `testdata/trace/mpi_intercomm.c` on 4 ranks: messages on an
/// intercommunicator (peers in the remote group, a wildcard receive
/// resolved through its status) and on the merged communicator are all
/// matched in the trace, per (sender, receiver) in world ranks as the
/// profile has them and as the program sends them; both groups name the
/// intercommunicator alike; collectives follow the intercommunicator
/// rules; the output is the plain build's.
fn check_intercomm_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let (tmp, run_dir) = traced_run_matching_plain(
        mpi,
        "mpi_intercomm.c",
        &format!("trace-mpi-intercomm-{}", mpi.name),
    );
    let (matrix, within) = check_corrected(&run_dir);
    let mut want = Matrix::new();
    let mut add = |from: u32, to: u32| {
        let cell = want.entry((from, to)).or_default();
        cell.0 += 1;
        cell.1 += 4;
    };
    // Intercommunicator: local rank h of one group with h of the other,
    // both ways; A's h to B's 1 - h.
    for (a, b) in [(0, 2), (1, 3)] {
        add(a, b);
        add(b, a);
    }
    add(0, 3);
    add(1, 2);
    // The merged communicator's ring (A first: world order).
    for r in 0..RANKS {
        add(r, (r + 1) % RANKS);
    }
    assert_eq!(matrix, want, "messages per (sender, receiver)");
    let (trace, _) = load(&run_dir, Clocks::Corrected);
    let inter: Vec<&str> = trace
        .comms
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| n.starts_with("intercommunicator"))
        .collect();
    assert_eq!(inter.len(), 1, "{:?}", trace.comms);
    // OTF2 gets an `InterComm` of groups {0, 1} and {2, 3}, peers and
    // roots in the remote group: the archive loads in `otf2-print` (and
    // the Python bindings, which pair every send with its receive by
    // world rank through the InterComm's groups), as many messages as the
    // trace's.
    let archive = tmp.join("otf2");
    let messages = matrix.values().map(|c| c.0).sum::<u64>();
    if let Some((total, _)) = otf2_messages(&run_dir, &archive) {
        assert_eq!(total, messages);
        check_otf2_intercomm(&archive);
    }
    // As a libotf2 without `InterComm` (before 3.0) gets it: a `Comm` over
    // the world, peers and roots as world ranks; every message still pairs.
    let old_otf2 = tmp.join("otf2-without-intercomm");
    if let Some((total, _)) = otf2_messages_with(
        &run_dir,
        &old_otf2,
        &[("REGIO_TEST_OTF2_NO_INTERCOMM", "1")],
    ) {
        assert_eq!(total, messages, "messages without InterComm");
        check_otf2_without_intercomm(&old_otf2);
    }
    check_collective_bytes(&run_dir, intercomm_collectives);
    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);
    check_perfetto_intercomm(&tmp.join("t.json"));
}

/// The Perfetto args of `mpi_intercomm.c`'s messages and collectives: on
/// the intercommunicator, a message's `source`/`dest` are ranks in the
/// sender's and receiver's groups (world rank % 2), on the merged
/// communicator (world order) the world ranks; roots are ranks of the
/// remote group (`root_rank`), `MPI_ROOT` and `MPI_PROC_NULL` in the
/// root's own group, with their world rank (`root_world`); every event
/// names its communicator by name and id and says whether it is an
/// intercommunicator.
fn check_perfetto_intercomm(json: &Path) {
    use regio_trace_format::collective::{ALLREDUCE, BCAST, GATHER, REDUCE};
    let text = std::fs::read_to_string(json).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let events = v["traceEvents"].as_array().map_or(&[][..], Vec::as_slice);
    // Track (Perfetto pid) -> world rank, from "rank N (pid ...)".
    let rank_of: BTreeMap<u64, u64> = events
        .iter()
        .filter(|e| e["name"] == "process_name")
        .filter_map(|e| {
            let name = e["args"]["name"].as_str()?;
            let rank = name
                .strip_prefix("rank ")?
                .split(' ')
                .next()?
                .parse()
                .ok()?;
            Some((e["pid"].as_u64()?, rank))
        })
        .collect();
    assert_eq!(rank_of.len(), RANKS as usize, "{rank_of:?}");
    let mut ids: BTreeMap<String, Value> = BTreeMap::new();
    let mut id_of = |a: &Value| {
        let name = a["communicator"].as_str().unwrap_or("").to_string();
        let id = ids
            .entry(name)
            .or_insert_with(|| a["communicator_id"].clone());
        assert!(id.is_u64() && *id == a["communicator_id"], "{a}");
    };
    let mut flows = 0;
    for e in events.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f") {
        let a = &e["args"];
        id_of(a);
        let (from, to) = (a["from"].as_u64(), a["to"].as_u64());
        let inter = a["communicator"]
            .as_str()
            .is_some_and(|c| c.starts_with("intercommunicator"));
        let want = if inter {
            (from.map(|f| f % 2), to.map(|t| t % 2))
        } else {
            (from, to)
        };
        assert_eq!((a["source"].as_u64(), a["dest"].as_u64()), want, "{e}");
        assert_eq!(a["intercommunicator"], inter, "{e}");
        flows += 1;
    }
    assert!(flows > 0, "no flows");
    let mut roots = Vec::new();
    for e in events.iter().filter(|e| e["name"] == "collective end") {
        let a = &e["args"];
        id_of(a);
        let rank = rank_of.get(&e["pid"].as_u64().unwrap_or(0)).copied();
        let inter = a["communicator"]
            .as_str()
            .is_some_and(|c| c.starts_with("intercommunicator"));
        assert_eq!(a["intercommunicator"], inter, "{e}");
        roots.push((
            rank.unwrap_or(u64::MAX),
            a["op"].as_u64().unwrap_or(u64::MAX) as u32,
            a["root_rank"].to_string(),
            a["root_world"].to_string(),
        ));
    }
    roots.sort();
    let mut want = Vec::new();
    for r in 0..u64::from(RANKS) {
        let (bcast, gather) = match r {
            0 => (("\"MPI_ROOT\"", "0"), ("0", "2")),
            1 => (("\"MPI_PROC_NULL\"", "null"), ("0", "2")),
            2 => (("0", "0"), ("\"MPI_ROOT\"", "2")),
            _ => (("0", "0"), ("\"MPI_PROC_NULL\"", "null")),
        };
        let mut add = |op, (rank, world): (&str, &str)| {
            want.push((r, op, rank.to_string(), world.to_string()));
        };
        add(BCAST, bcast);
        add(GATHER, gather);
        // The intercommunicator's and the merged communicator's.
        add(ALLREDUCE, ("null", "null"));
        add(ALLREDUCE, ("null", "null"));
        add(REDUCE, ("0", "0"));
    }
    want.sort();
    assert_eq!(roots, want, "(rank, op, root_rank, root_world)");
    assert_eq!(ids.len(), 2 + 1, "communicators with events: {ids:?}");
}

/// The archive's `InterComm` (mpi_intercomm.c's two groups of two, made
/// with leaders 0 and 2) as `otf2-print -G` and the Python bindings see
/// it, and the roots of its Bcast (0 passes `MPI_ROOT`, 1
/// `MPI_PROC_NULL`, 2 and 3 name rank 0 of the remote group) and Gather
/// (to rank 0 of group B: world rank 2).
fn check_otf2_intercomm(archive: &Path) {
    let anchor = archive.join("traces.otf2");
    let printed = run_ok(Command::new("otf2-print").arg("-G").arg(&anchor));
    // otf2-print warns of groups or communicators defined out of order.
    assert!(!printed.stderr.contains("warning"), "{}", printed.stderr);
    let defs = printed.stdout;
    let inter: Vec<&str> = defs
        .lines()
        .filter(|l| l.starts_with("INTER_COMM"))
        .collect();
    assert_eq!(inter.len(), 1, "{defs}");
    // The merged communicator is an ordinary one.
    assert!(defs.lines().any(|l| l.starts_with("COMM ")), "{defs}");
    let Some(python) = python_with_otf2() else {
        return;
    };
    let script = r#"
import sys, otf2
from otf2.events import MpiCollectiveEnd
sizes, roots = [], []
with otf2.reader.open(sys.argv[1]) as trace:
    for c in trace.definitions.comms:
        if isinstance(c, otf2.definitions.InterComm):
            sizes.append(sorted([[m.group.name for m in c.groupA.members],
                                 [m.group.name for m in c.groupB.members]]))
    for loc, ev in trace.events:
        if isinstance(ev, MpiCollectiveEnd) and isinstance(ev.communicator, otf2.definitions.InterComm):
            root = {0xFFFFFFFF: 'UNDEFINED', 0xFFFFFFFE: 'SELF', 0xFFFFFFFD: 'THIS_GROUP'}.get(int(ev.root), ev.root)
            roots.append((loc.group.name, str(ev.collective_op).split('.')[-1], str(root)))
print(sizes)
for r in sorted(roots):
    print(*r)
"#;
    let script = format!("{PY_INTERCOMM_FIELDS}{script}");
    let out = run_ok(Command::new(python).arg("-c").arg(script).arg(&anchor)).stdout;
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("[[['MPI Rank 0', 'MPI Rank 1'], ['MPI Rank 2', 'MPI Rank 3']]]"),
        "{out}"
    );
    let roots: Vec<&str> = lines.collect();
    let want = [
        "MPI Rank 0 ALLREDUCE UNDEFINED",
        "MPI Rank 0 BCAST SELF",
        "MPI Rank 0 GATHER 0",
        "MPI Rank 1 ALLREDUCE UNDEFINED",
        "MPI Rank 1 BCAST THIS_GROUP",
        "MPI Rank 1 GATHER 0",
        "MPI Rank 2 ALLREDUCE UNDEFINED",
        "MPI Rank 2 BCAST 0",
        "MPI Rank 2 GATHER SELF",
        "MPI Rank 3 ALLREDUCE UNDEFINED",
        "MPI Rank 3 BCAST 0",
        "MPI Rank 3 GATHER THIS_GROUP",
    ];
    assert_eq!(roots, want, "{out}");
}

/// The fallback for an OTF2 library without `InterComm`
/// (`REGIO_TEST_OTF2_NO_INTERCOMM`): no `INTER_COMM` definition, the
/// intercommunicator a `COMM` over the world's 4 ranks, and its
/// collectives' roots world ranks (the `MPI_ROOT` process names itself,
/// the `MPI_PROC_NULL` ones none). The messages were paired by world rank
/// through that group in [`python_read_back`].
fn check_otf2_without_intercomm(archive: &Path) {
    let anchor = archive.join("traces.otf2");
    let printed = run_ok(Command::new("otf2-print").arg("-G").arg(&anchor));
    assert!(!printed.stderr.contains("warning"), "{}", printed.stderr);
    let defs = printed.stdout;
    assert!(!defs.lines().any(|l| l.starts_with("INTER_COMM")), "{defs}");
    let comms: Vec<&str> = defs
        .lines()
        .filter(|l| l.starts_with("COMM ") && l.contains("intercommunicator"))
        .collect();
    assert_eq!(comms.len(), 1, "{defs}");
    let Some(python) = python_with_otf2() else {
        return;
    };
    let script = r#"
import sys, otf2
from otf2.events import MpiCollectiveEnd
inter, members, roots = 0, [], []
with otf2.reader.open(sys.argv[1]) as trace:
    for c in trace.definitions.comms:
        if isinstance(c, otf2.definitions.InterComm):
            inter += 1
        elif c.name.startswith('intercommunicator'):
            members.append([m.group.name for m in c.group.members])
    for loc, ev in trace.events:
        if isinstance(ev, MpiCollectiveEnd) and ev.communicator.name.startswith('intercommunicator'):
            root = 'UNDEFINED' if int(ev.root) == 0xFFFFFFFF else ev.communicator.location(ev.root).group.name
            roots.append((loc.group.name, str(ev.collective_op).split('.')[-1], root))
print(inter, members)
for r in sorted(roots):
    print(*r, sep=' | ')
"#;
    let out = run_ok(Command::new(python).arg("-c").arg(script).arg(&anchor)).stdout;
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("0 [['MPI Rank 0', 'MPI Rank 1', 'MPI Rank 2', 'MPI Rank 3']]"),
        "{out}"
    );
    let roots: Vec<&str> = lines.collect();
    let want = [
        "MPI Rank 0 | ALLREDUCE | UNDEFINED",
        "MPI Rank 0 | BCAST | MPI Rank 0",
        "MPI Rank 0 | GATHER | MPI Rank 2",
        "MPI Rank 1 | ALLREDUCE | UNDEFINED",
        "MPI Rank 1 | BCAST | UNDEFINED",
        "MPI Rank 1 | GATHER | MPI Rank 2",
        "MPI Rank 2 | ALLREDUCE | UNDEFINED",
        "MPI Rank 2 | BCAST | MPI Rank 0",
        "MPI Rank 2 | GATHER | MPI Rank 2",
        "MPI Rank 3 | ALLREDUCE | UNDEFINED",
        "MPI Rank 3 | BCAST | MPI Rank 0",
        "MPI Rank 3 | GATHER | UNDEFINED",
    ];
    assert_eq!(roots, want, "{out}");
}

on_both_mpis!(
    intercommunicator_messages_and_collectives,
    intercommunicator_messages_and_collectives_with_mpich,
    check_intercomm_program,
    open_mpi,
    mpich
);

/// `testdata/trace/mpi_test_calls.f90`: non-blocking messages completed
/// by Fortran `MPI_Test` (with a status and with `MPI_STATUS_IGNORE`),
/// `MPI_Testall` (with statuses, and on persistent requests whose handles
/// do not change), `MPI_Testany` and `MPI_Testsome` loops. Every message
/// is in the trace (matched after clock correction) and the profile's
/// matrix with its peer and bytes: 4 messages of 44 bytes in all to the
/// right neighbour, 2 of 24 to the left one; the output is the plain
/// build's.
fn check_fortran_test_calls(mpi: &Mpi) {
    check_test_calls(mpi, "mpi_test_calls.f90");
}

fn check_c_test_calls(mpi: &Mpi) {
    check_test_calls(mpi, "mpi_test_calls.c");
}

/// `testdata/trace/mpi_test_calls.{f90,c}`: messages completed by
/// MPI_Test, Testall (statuses, persistent requests), Testany and
/// Testsome are each recorded once, with the sender a wildcard receive's
/// status names, and pair up.
fn check_test_calls(mpi: &Mpi, file: &str) {
    let _machine = machine::hold();
    let (tmp, run_dir) =
        traced_run_matching_plain(mpi, file, &format!("trace-mpi-test-{file}-{}", mpi.name));
    let (matrix, within) = check_corrected(&run_dir);
    let mut want = Matrix::new();
    for r in 0..RANKS {
        want.insert((r, (r + 1) % RANKS), (4, 44));
        want.insert((r, (r + RANKS - 1) % RANKS), (2, 24));
    }
    assert_eq!(matrix, want, "messages per (sender, receiver)");
    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);
}

on_both_mpis!(
    fortran_test_calls_complete_their_messages,
    fortran_test_calls_complete_their_messages_with_mpich,
    check_fortran_test_calls,
    open_mpi_fortran,
    mpich_fortran
);

on_both_mpis!(
    c_test_calls_complete_their_messages,
    c_test_calls_complete_their_messages_with_mpich,
    check_c_test_calls,
    open_mpi,
    mpich
);

/// What `mpi_coll_bytes.f90`'s collectives move on rank `r` of `n`, in
/// call order (Score-P's convention, as for the C program).
fn fortran_coll_bytes(r: u64, n: u64) -> Vec<CollBytes> {
    let (int, dbl) = (4, 8);
    vec![
        // Allreduce of 2 through a subroutine handed MPI_IN_PLACE, then
        // a buffer.
        (2 * int * (n - 1), 2 * int * (n - 1)),
        (2 * int * n, 2 * int * n),
        // Gather of 3 to 2 through a subroutine, in place at the root.
        if r == 2 % n {
            (0, 3 * int * (n - 1))
        } else {
            (3 * int, 0)
        },
        // Scan of 2, Scan of 2 in place, Exscan of 2.
        ((n - r) * 2 * int, (r + 1) * 2 * int),
        ((n - r - 1) * 2 * int, r * 2 * int),
        ((n - r - 1) * 2 * int, r * 2 * int),
        // Alltoallw: an integer to each even rank, a double to each odd
        // one; n of this rank's kind back. Then in place, an integer each
        // way.
        (
            (n - n / 2) * int + (n / 2) * dbl,
            n * if r % 2 == 1 { dbl } else { int },
        ),
        (int * (n - 1), int * (n - 1)),
        // On the ring (two neighbours): Allgather of 2, Alltoallv of 1 +
        // 2, Alltoallw of an integer and a double each way; on the chain
        // (one neighbour each way): Alltoall of 3.
        (2 * 2 * int, 2 * 2 * int),
        (3 * int, 3 * int),
        (int + dbl, int + dbl),
        (3 * int, 3 * int),
        // The checksum: Reduce of one integer to 0.
        (int, if r == 0 { int * n } else { 0 }),
    ]
}

/// `testdata/trace/mpi_coll_bytes.f90`: from Fortran, `MPI_IN_PLACE`
/// handed to a subroutine that passes it on (recognised by its address),
/// `MPI_Scan`/`MPI_Exscan` by rank position, `MPI_Alltoallw` with a
/// datatype per rank, and the neighbourhood collectives (including
/// `MPI_Neighbor_alltoallw`) on a Cartesian ring and a distributed graph:
/// every rank's bytes in the trace and the profile; the output is the
/// plain build's.
fn check_fortran_coll_bytes(mpi: &Mpi) {
    let _machine = machine::hold();
    let (_tmp, run_dir) = traced_run_matching_plain(
        mpi,
        "mpi_coll_bytes.f90",
        &format!("trace-mpi-fcollbytes-{}", mpi.name),
    );
    check_collective_bytes(&run_dir, fortran_coll_bytes);
}

on_both_mpis!(
    fortran_collective_bytes_in_place_scans_alltoallw_and_neighbourhood,
    fortran_collective_bytes_in_place_scans_alltoallw_and_neighbourhood_with_mpich,
    check_fortran_coll_bytes,
    open_mpi_fortran,
    mpich_fortran
);

/// `testdata/trace/mpi_comm_kinds.c`: communicators from `MPI_Comm_idup`
/// (two duplicates first used in opposite orders by senders and
/// receivers) and `MPI_Comm_create_group` (two over the same group, used
/// in opposite orders; one over three ranks of a split's result, the
/// fourth taking no part) have one run-wide identity from their creation:
/// every definition is run-wide, every message is matched (the old
/// first-use rule pairs the swapped ones wrongly) and the profile's, each
/// communicator is exported once; the output is the plain build's.
fn check_comm_kinds_program(mpi: &Mpi) {
    let _machine = machine::hold();
    let (tmp, run_dir) = traced_run_matching_plain(
        mpi,
        "mpi_comm_kinds.c",
        &format!("trace-mpi-commkinds-{}", mpi.name),
    );
    for (name, f) in traces::decode_all(&run_dir) {
        let ids: Vec<u32> = f
            .records
            .iter()
            .filter_map(|r| match r.event {
                Event::Comm { comm, .. } => Some(comm),
                _ => None,
            })
            .collect();
        // A, B, the two parity groups, and the ring of three (not on 3).
        let want = if f.header.rank == 3 { 4 } else { 5 };
        assert_eq!(ids.len(), want, "{name}: communicator definitions {ids:x?}");
        assert!(
            ids.iter().all(|id| id & RUN_WIDE != 0),
            "{name}: process-local ids {ids:x?}"
        );
    }
    let (matrix, within) = check_corrected(&run_dir);
    let want: Matrix = [
        // A and B.
        ((0, 1), (2, 8)),
        ((2, 3), (2, 8)),
        // The parity groups.
        ((0, 2), (2, 8)),
        ((1, 3), (2, 8)),
        // The ring of three.
        ((0, 1), (1, 4)),
        ((1, 2), (1, 4)),
        ((2, 0), (1, 4)),
    ]
    .into_iter()
    .fold(Matrix::new(), |mut m, (k, (n, b))| {
        let cell = m.entry(k).or_default();
        cell.0 += n;
        cell.1 += b;
        m
    });
    assert_eq!(matrix, want, "messages per (sender, receiver)");
    let (trace, _) = load(&run_dir, Clocks::Corrected);
    // MPI_COMM_WORLD, A, B, G1 and G2 of each parity, the ring.
    assert_eq!(trace.comms.len(), 8, "{:?}", trace.comms);
    if let Some((total, _)) = otf2_messages(&run_dir, &tmp.join("otf2")) {
        assert_eq!(total, 11, "OTF2 messages");
    }
    let (flows, stderr) = perfetto_flows(&run_dir, &tmp.join("t.json"));
    assert_eq!(flows, matrix, "Perfetto flows per (from, to)");
    check_warnings(&stderr, within);
}

on_both_mpis!(
    idup_and_create_group_communicators_keep_their_identity,
    idup_and_create_group_communicators_keep_their_identity_with_mpich,
    check_comm_kinds_program,
    open_mpi,
    mpich
);
