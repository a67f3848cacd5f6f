//! What a measured program leaves in its run directory.
//!
//! ```text
//! RUNDIR/
//!   regio.idf.json               copy of the first IDF the instrumented code registered
//!   regio.idf-<hash>.json        copy of every registered IDF (`Profile::idfs`)
//!   profile-r<rank>-p<pid>.json  one per process: metadata + every thread's sub-DRG
//! ```
//!
//! The runtime writes profiles by hand from a static buffer (so it can
//! write them from a signal handler without allocating). A profile's size
//! is bounded by its DRG, never by how long the program ran: every node is
//! one row of at most eleven numbers (`node_rows`: 20 to 40 bytes for a
//! typical node, at most about 250). These types are the reader's view and
//! the definition of the format.

use serde::{Deserialize, Serialize};

pub mod node_rows;

/// `format` field of every profile file.
pub const PROFILE_FORMAT: &str = "regio-profile";
/// Bumped whenever an older reader could misread a newer profile. Version
/// 2: a thread's nodes are rows (`node_rows`) instead of objects.
pub const PROFILE_VERSION: u32 = 2;
/// The oldest version this build reads (version 1: node objects).
pub const OLDEST_PROFILE_VERSION: u32 = 1;

/// Whether this build reads profiles of `version`.
pub fn reads_version(version: u32) -> bool {
    (OLDEST_PROFILE_VERSION..=PROFILE_VERSION).contains(&version)
}

/// Ids of region descriptors start here (bit 31 set); IDF ids stay below.
pub const FIRST_DESCRIPTOR_ID: u32 = 1 << 31;

/// Instrumented objects (C translation units) register their IDF at load
/// time and get a base the runtime hands out: a region's id in the profile
/// is `base + local id` (its id in that IDF). Bases are multiples of this
/// stride, so a profile id tells its object's slot (`id / stride`) and its
/// local id (`id % stride`); an IDF holds fewer ids than this.
pub const OBJECT_ID_STRIDE: u32 = 1 << 22;
/// The base of an object whose constructor has not run yet (its probes
/// ran from another object's constructor): such ids name no IDF.
pub const UNREGISTERED_BASE: u32 = 511 * OBJECT_ID_STRIDE;
/// Trace mode: each process appends every IDF registration, when it
/// happens, to `regio.objects-p<pid>-<host>.txt` in the run directory, one
/// line `<base> <copy name> <path>`, so a trace cut by SIGKILL (no
/// profile, no `idfs`) can still be mapped to its IDFs. The host is in the
/// name because ranks of a multi-host run may share a pid; files named
/// `regio.objects-p<pid>.txt` (no host: older runtimes, or a host name
/// that cannot be part of a file name) are still read.
pub const OBJECTS_PREFIX: &str = "regio.objects-p";
pub const OBJECTS_SUFFIX: &str = ".txt";

/// `regio.spawned-r<rank>-p<pid>.txt`: written at `MPI_Init` by a process
/// that `MPI_Comm_spawn` started into the run directory (the runtime's
/// `mpi/spawn.rs`); readers leave its files out (`regio-analysis`
/// `spawned.rs`).
pub const SPAWNED_PREFIX: &str = "regio.spawned-r";
pub const SPAWNED_SUFFIX: &str = ".txt";

/// The pid and host an objects file's `name` holds
/// ([`OBJECTS_PREFIX`]); None for any other name.
pub fn objects_file_key(name: &str) -> Option<(u32, Option<&str>)> {
    let rest = name
        .strip_prefix(OBJECTS_PREFIX)?
        .strip_suffix(OBJECTS_SUFFIX)?;
    let (pid, host) = match rest.split_once('-') {
        Some((pid, host)) if !host.is_empty() => (pid, Some(host)),
        Some(_) => return None,
        None => (rest, None),
    };
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((pid.parse().ok()?, host))
}

/// Whether `host` can be part of an objects file's name (printable ASCII
/// but `/`; else the runtime writes the name without a host).
pub fn host_fits_file_name(host: &[u8]) -> bool {
    !host.is_empty() && host.len() <= 255 && host.iter().all(|&b| b.is_ascii_graphic() && b != b'/')
}
/// Local ids below this have a probe gate (`regio_gates`): a byte the
/// runtime sets when the region is not recorded, which instrumented C
/// reads before it calls a probe. Larger local ids are always probed.
pub const GATED_LOCAL_IDS: u32 = 1 << 17;

/// File name prefix and suffix of per-process profiles.
pub const PROFILE_PREFIX: &str = "profile-";
pub const PROFILE_SUFFIX: &str = ".json";

/// `profile-r<rank>-p<pid>.json`
pub fn profile_file_name(rank: u32, pid: u32) -> String {
    format!("{PROFILE_PREFIX}r{rank}-p{pid}{PROFILE_SUFFIX}")
}

/// One process's measurements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Always [`PROFILE_FORMAT`].
    pub format: String,
    pub version: u32,
    /// `profile` (statistics only) or `trace`.
    pub mode: String,
    /// False when the file was written from a fatal signal handler or while
    /// regions were still open on some thread.
    pub complete: bool,
    /// Why the profile was written: `exit` (normal exit or `exit()`),
    /// `signal`, `flush` (explicit `regio_flush()`), or `abort` (written
    /// on request of another rank about to call `MPI_Abort`).
    pub reason: String,
    /// The fatal signal number when `reason` is `signal`.
    pub signal: Option<i32>,
    pub pid: u32,
    /// MPI rank (0 without MPI) and number of ranks (1 without MPI).
    pub rank: u32,
    pub size: u32,
    pub host: String,
    /// argv of the process.
    pub command: Vec<String>,
    /// Wall-clock time of runtime start-up, ns since the Unix epoch.
    pub start_unix_ns: u64,
    /// From runtime start-up to the moment the profile was written.
    pub duration_ns: u64,
    pub clock: ClockInfo,
    /// Absolute path of the IDF registered by instrumented code, if any.
    pub idf: Option<String>,
    /// Every IDF registered in the process with the base its ids were
    /// given (`OBJECT_ID_STRIDE`); base 0 is an IDF registered without a
    /// base (Fortran, older instrumented code), whose ids are its own.
    /// Absent in profiles of older runtimes: then every id below
    /// `FIRST_DESCRIPTOR_ID` is an id of `idf`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub idfs: Vec<IdfObject>,
    /// Region descriptors registered at run time (Rust macros); regions of
    /// instrumented C/Fortran live in the IDF instead.
    #[serde(default)]
    pub regions: Vec<RegionDescriptor>,
    /// Counters `REGIO_COUNTERS` asked for, in its order, each available or
    /// not (with the kernel's reason); absent when none were asked for.
    /// Node values align with the available ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterInfo>,
    /// MPI runs: this rank's clock against rank 0's, measured after
    /// `MPI_Init` and before `MPI_Finalize` (absent without MPI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_sync: Option<ClockSync>,
    /// User events recorded nowhere: their name found the process's table
    /// of names full, or their thread could not get a statistics table.
    #[serde(default)]
    pub user_events_lost: u64,
    /// Written while the program ran (`REGIO_SNAPSHOT`), not at its end:
    /// what a SIGKILL leaves. `reason` is then `snapshot` and `complete`
    /// false. Absent (false) in the profile written at the end.
    #[serde(default)]
    pub snapshot: bool,
    // --- REGIO_THROTTLE (h-throttle) ---
    /// The throttle in force (`REGIO_THROTTLE`); absent when it was off
    /// (or the runtime predates it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<ThrottleSetting>,
    // --- end REGIO_THROTTLE ---
    pub threads: Vec<ThreadProfile>,
}

// --- REGIO_THROTTLE (h-throttle) ---
/// `REGIO_THROTTLE=CALLS,NS`: a region whose node passed `calls` calls at a
/// mean inclusive time under `ns` stopped being recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThrottleSetting {
    pub calls: u64,
    pub ns: u64,
}
// --- end REGIO_THROTTLE ---

/// One registered IDF (`Profile::idfs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdfObject {
    /// Profile id of the IDF's local id 0.
    pub base: u32,
    /// Absolute path the instrumented code registered.
    pub path: String,
    /// Name of its copy in the run directory (`regio.idf-<hash>.json`).
    pub copy: String,
}

/// The two clock measurements of an MPI rank against rank 0; a local time
/// `t` is corrected to rank 0's clock by adding the offset interpolated
/// linearly between them (offset + drift).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct ClockSync {
    pub init: Option<SyncPoint>,
    pub finalize: Option<SyncPoint>,
}

/// One measurement: the exchange with the smallest round trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncPoint {
    /// This rank's clock (CLOCK_MONOTONIC, ns) at the exchange.
    pub local_ns: u64,
    /// Rank 0's clock minus this rank's clock.
    pub offset_ns: i64,
    pub round_trip_ns: u64,
}

impl ClockSync {
    /// Drift of rank 0's clock against this one, in parts per million
    /// (None without both measurements).
    pub fn drift_ppm(&self) -> Option<f64> {
        let (a, b) = (self.init?, self.finalize?);
        let span = b.local_ns.checked_sub(a.local_ns).filter(|s| *s > 0)?;
        Some((b.offset_ns - a.offset_ns) as f64 / span as f64 * 1e6)
    }

    /// The offset to add to local time `t` (linear between the two
    /// measurements, extrapolated outside; the one offset if only one).
    pub fn offset_at(&self, t: u64) -> Option<f64> {
        match (self.init, self.finalize) {
            (Some(a), Some(_)) => {
                let drift = self.drift_ppm().unwrap_or(0.0) / 1e6;
                Some(a.offset_ns as f64 + drift * (t as f64 - a.local_ns as f64))
            }
            (Some(a), None) | (None, Some(a)) => Some(a.offset_ns as f64),
            (None, None) => None,
        }
    }
}

/// One requested counter (perf event name, e.g. `instructions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterInfo {
    pub name: String,
    /// The kernel opened it; false for unknown names and refused events.
    pub available: bool,
    /// Why it is unavailable (null when available).
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// `tsc` (invariant time-stamp counter, calibrated) or `clock_gettime`
    /// (CLOCK_MONOTONIC).
    pub source: String,
    /// Ticks per second of `source` as calibrated for this run.
    pub ticks_per_second: f64,
}

/// A region described by the running program itself. Its `id` is only
/// meaningful within one profile: processes register descriptors in the
/// order they first enter them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionDescriptor {
    pub id: u32,
    pub kind: String,
    pub name: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    #[serde(default)]
    pub module: String,
}

/// The sub-DRG of one thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadProfile {
    /// Dense thread number in order of first measurement (0 = first thread
    /// that entered a region, normally the main thread).
    pub thread: u32,
    pub os_tid: u64,
    /// The thread had ended before the profile was written.
    pub finished: bool,
    /// Nodes in creation order: a parent always precedes its children.
    /// Written as rows, read as rows or version-1 objects (`node_rows`).
    #[serde(with = "node_rows")]
    pub nodes: Vec<NodeRecord>,
    /// Region entries not recorded: made by a signal handler that
    /// interrupted a probe of this thread (README "Signal handlers").
    #[serde(default)]
    pub dropped_calls: u64,
    /// MPI communication record of this thread's nodes (absent without
    /// MPI argument capture).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<MessageRecord>,
    /// Message records a full table could not hold.
    #[serde(default)]
    pub messages_dropped: u64,
    /// User event statistics of this thread's nodes (`regio_event`); absent
    /// when the thread recorded none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_events: Vec<UserEventRecord>,
    /// User events of this thread not kept: its table of (node, name)
    /// pairs was full, or the event interrupted a probe (signal handler).
    #[serde(default)]
    pub user_events_dropped: u64,
}

/// The values one user event name had on one DRG node of one thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserEventRecord {
    /// The node's `id` in the thread's `nodes`; None: fired with no region
    /// open.
    pub node: Option<u32>,
    pub name: String,
    pub count: u64,
    /// Smallest, largest value and their sum; None when not finite (NaN
    /// or infinite: JSON has no such numbers).
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub sum: Option<f64>,
}

/// Messages of one DRG node of an MPI call with one peer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRecord {
    /// The node's `id` in the thread's `nodes`.
    pub node: u32,
    /// World rank of the peer (a collective's root); -1 a collective
    /// without root, -2 a receive from MPI_ANY_SOURCE never resolved.
    pub peer: i32,
    /// `send`, `recv` or `collective`.
    pub direction: String,
    pub messages: u64,
    /// Bytes sent (`send`, `collective`) or received (`recv`).
    pub bytes: u64,
    /// A `collective` record's bytes received by this process (absent in
    /// point-to-point records and in profiles written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_bytes: Option<u64>,
    pub time_ns: u64,
}

/// One DRG node: a region executed in the context of its parent node.
/// Its serde form is the version-1 object; in a profile it is a row
/// (`node_rows`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeRecord {
    /// Index of this node in `ThreadProfile::nodes`.
    pub id: u32,
    /// Index of the parent node; `None` for nodes entered with no region active.
    pub parent: Option<u32>,
    /// Region id (IDF id or descriptor id).
    pub region: u32,
    /// Entries of the region in this context, recursive ones included.
    pub calls: u64,
    /// Entries made while the node was already active on the stack (folded
    /// onto this node instead of growing the graph).
    pub recursive_calls: u64,
    /// Wall time from outermost entry to exit, summed over calls.
    pub inclusive_ns: u64,
    /// Inclusive time minus the time in instrumented subregions.
    pub exclusive_ns: u64,
    /// Shortest and longest single (outermost) call, inclusive.
    pub min_ns: u64,
    pub max_ns: u64,
    /// Frames of this node still open when the profile was written; their
    /// time up to that moment is included above.
    pub open: u32,
    /// Async regions (Rust futures): polls made in this context. `calls`
    /// counts futures (first polls) and the times above cover time inside
    /// polls only.
    #[serde(default)]
    pub polls: u64,
    /// Async regions: wall time from first poll to completion, summed over
    /// the futures that completed in this context.
    #[serde(default)]
    pub span_ns: u64,
    /// Counter totals over outermost frames (like `inclusive_ns`), one per
    /// available counter of the profile, in its order; absent when the
    /// thread measured no counters or never entered the node itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Vec<u64>>,
    // --- REGIO_THROTTLE (h-throttle) ---
    /// The region was throttled in this process (`REGIO_THROTTLE`): the
    /// node's figures are what it measured up to then, and this is its
    /// call count at that point (calls after it were neither timed nor
    /// counted; the parent's exclusive time includes them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_at: Option<u64>,
    // --- end REGIO_THROTTLE ---
}

impl Profile {
    /// Names of the available counters: what node `counters` align with.
    pub fn available_counters(&self) -> Vec<&str> {
        self.counters
            .iter()
            .filter(|c| c.available)
            .map(|c| c.name.as_str())
            .collect()
    }

    /// Parse one profile file's text; `path` only names it in errors.
    pub fn from_json(path: &str, text: &str) -> Result<Profile, ProfileError> {
        let p: Profile = serde_json::from_str(text).map_err(|e| ProfileError::Json {
            path: path.to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if p.format != PROFILE_FORMAT || !reads_version(p.version) {
            return Err(ProfileError::Version {
                path: path.to_string(),
                format: p.format,
                version: p.version,
            });
        }
        Ok(p)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("{path}:{line}:{column}: error: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: error: not a profile this build reads (format `{format}`, version {version}; expected `{PROFILE_FORMAT}` {OLDEST_PROFILE_VERSION} to {PROFILE_VERSION})")]
    Version {
        path: String,
        format: String,
        version: u32,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_file_names_hold_a_pid_and_maybe_a_host() {
        assert_eq!(objects_file_key("regio.objects-p42.txt"), Some((42, None)));
        assert_eq!(
            objects_file_key("regio.objects-p42-node-7.example.org.txt"),
            Some((42, Some("node-7.example.org")))
        );
        for bad in [
            "regio.objects-p.txt",
            "regio.objects-p42-.txt",
            "regio.objects-px-h.txt",
            "regio.objects-p42.json",
            "profile-r0-p42.json",
        ] {
            assert_eq!(objects_file_key(bad), None, "{bad}");
        }
        assert!(host_fits_file_name(b"node-7.example.org"));
        for bad in [&b""[..], b"a/b", b"a b", b"a\nb", "h\u{e9}te".as_bytes()] {
            assert!(!host_fits_file_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn padded_numbers_and_null_fields_parse() {
        let text = r#"{"format":"regio-profile","version":1,"mode":"profile","complete":false,
          "reason":"signal","signal":11,"pid":   42,"rank":0,"size":1,"host":"h",
          "command":["./a","x"],"start_unix_ns":      1,"duration_ns":       5,
          "clock":{"source":"tsc","ticks_per_second":2.5e9},"idf":null,
          "threads":[{"thread":0,"os_tid":42,"finished":false,"nodes":[
            {"id":0,"parent":null,"region":3,"calls":    1,"recursive_calls":0,
             "inclusive_ns":5,"exclusive_ns":5,"min_ns":5,"max_ns":5,"open":1}]}]}"#;
        let p = Profile::from_json("p.json", text).unwrap();
        assert_eq!(p.threads[0].nodes[0].region, 3);
        assert_eq!(p.signal, Some(11));
        assert!(p.regions.is_empty());
        assert!(p.threads[0].user_events.is_empty());
        assert!(!p.snapshot);
    }

    #[test]
    fn user_events_with_padded_floats_and_nulls_parse() {
        let text = r#"{"format":"regio-profile","version":1,"mode":"profile","complete":false,
          "reason":"snapshot","signal":null,"pid":42,"rank":0,"size":1,"host":"h",
          "command":["./a"],"start_unix_ns":1,"duration_ns":5,
          "clock":{"source":"tsc","ticks_per_second":2.5e9},"idf":null,
          "user_events_lost":   3,"snapshot": true,
          "threads":[{"thread":0,"os_tid":42,"finished":false,"nodes":[],
            "user_events_dropped":  2,"user_events":[
            {"node":      null,"name":"n","count":1,"min":      -2.5e-7,"max":  1.0,"sum":null}]}]}"#;
        let p = Profile::from_json("p.json", text).unwrap();
        assert!(p.snapshot);
        assert_eq!(p.user_events_lost, 3);
        let t = &p.threads[0];
        assert_eq!(t.user_events_dropped, 2);
        assert_eq!(
            t.user_events,
            vec![UserEventRecord {
                node: None,
                name: "n".into(),
                count: 1,
                min: Some(-2.5e-7),
                max: Some(1.0),
                sum: None,
            }]
        );
    }

    #[test]
    fn counters_are_optional_and_align_with_the_available_ones() {
        let text = r#"{"format":"regio-profile","version":1,"mode":"profile","complete":true,
          "reason":"exit","signal":null,"pid":1,"rank":0,"size":1,"host":"h","command":[],
          "start_unix_ns":0,"duration_ns":9,"clock":{"source":"tsc","ticks_per_second":1.0},
          "idf":null,"counters":[
            {"name":"task-clock","available": true,"reason":null},
            {"name":"instructions","available":false,"reason":"not supported (ENOENT)"},
            {"name":"page-faults","available": true,"reason":null}],
          "threads":[{"thread":0,"os_tid":1,"finished":false,"nodes":[
            {"id":0,"parent":null,"region":3,"calls":1,"recursive_calls":0,"inclusive_ns":5,
             "exclusive_ns":5,"min_ns":5,"max_ns":5,"open":0,"polls":0,"span_ns":0,
             "counters":[    4900,      12]},
            {"id":1,"parent":0,"region":4,"calls":0,"recursive_calls":0,"inclusive_ns":0,
             "exclusive_ns":0,"min_ns":0,"max_ns":0,"open":0}]}]}"#;
        let p = Profile::from_json("p.json", text).unwrap();
        assert_eq!(p.available_counters(), ["task-clock", "page-faults"]);
        assert_eq!(
            p.counters[1].reason.as_deref(),
            Some("not supported (ENOENT)")
        );
        let nodes = &p.threads[0].nodes;
        assert_eq!(nodes[0].counters, Some(vec![4900, 12]));
        assert_eq!(nodes[1].counters, None);
        // Written back, a profile without counters has no such fields.
        let mut plain = p.clone();
        plain.counters.clear();
        plain.threads[0].nodes[0].counters = None;
        let out = serde_json::to_string(&plain).unwrap();
        assert!(!out.contains("counters"), "{out}");
        assert_eq!(Profile::from_json("q", &out).unwrap(), plain);
    }

    #[test]
    fn other_formats_are_refused_by_name() {
        let text = r#"{"format":"x","version":9,"mode":"profile","complete":true,"reason":"exit",
          "signal":null,"pid":1,"rank":0,"size":1,"host":"h","command":[],"start_unix_ns":0,
          "duration_ns":0,"clock":{"source":"tsc","ticks_per_second":1.0},"idf":null,"threads":[]}"#;
        let e = Profile::from_json("p.json", text).unwrap_err().to_string();
        assert!(e.contains("not a profile this build reads"), "{e}");
    }

    /// A version-1 profile as the runtime wrote it before node rows
    /// (fixed-width numbers, node objects with every field).
    const V1: &str = include_str!("../tests/fixtures/profile-v1.json");

    fn node(id: u32, parent: Option<u32>, region: u32) -> NodeRecord {
        NodeRecord {
            id,
            parent,
            region,
            calls: 0,
            recursive_calls: 0,
            inclusive_ns: 0,
            exclusive_ns: 0,
            min_ns: 0,
            max_ns: 0,
            open: 0,
            polls: 0,
            span_ns: 0,
            counters: None,
            throttled_at: None,
        }
    }

    #[test]
    fn version_1_profiles_still_load_with_every_field() {
        let p = Profile::from_json("v1.json", V1).unwrap();
        assert_eq!((p.version, p.rank, p.size, p.pid), (1, 1, 2, 4242));
        assert_eq!(p.reason, "exit");
        assert_eq!(
            p.throttle,
            Some(ThrottleSetting {
                calls: 100000,
                ns: 1000
            })
        );
        assert_eq!(p.available_counters(), ["task-clock"]);
        assert_eq!(p.user_events_lost, 2);
        let t = &p.threads[0];
        assert_eq!((t.dropped_calls, t.messages_dropped), (3, 1));
        let n = &t.nodes;
        assert_eq!(n.len(), 4);
        assert_eq!(n[0].parent, None);
        assert_eq!(n[0].counters, Some(vec![88000000]));
        assert_eq!(n[1].throttled_at, Some(100000));
        assert_eq!((n[1].min_ns, n[1].max_ns, n[1].calls), (200, 9000, 200000));
        assert_eq!(
            (
                n[2].region,
                n[2].recursive_calls,
                n[2].open,
                n[2].polls,
                n[2].span_ns
            ),
            (FIRST_DESCRIPTOR_ID, 2, 1, 40, 60000000)
        );
        assert_eq!(
            (n[3].id, n[3].parent, n[3].exclusive_ns),
            (3, Some(2), 8000000)
        );
        assert_eq!(t.messages[0].direction, "send");
        assert_eq!(t.messages[0].node, 3);
        assert_eq!(t.user_events[0].min, Some(-2.5e-7));
        assert_eq!(t.user_events[1].node, None);
    }

    #[test]
    fn node_rows_round_trip_every_field() {
        let mut p = Profile::from_json("v1.json", V1).unwrap();
        p.version = PROFILE_VERSION;
        let mut every = node(4, Some(1), 11);
        every.calls = 7;
        every.recursive_calls = 6;
        every.inclusive_ns = 5;
        every.exclusive_ns = 4;
        every.min_ns = 3;
        every.max_ns = 2;
        every.open = 1;
        every.polls = u64::MAX;
        every.span_ns = 9;
        every.throttled_at = Some(7);
        every.counters = Some(vec![1]);
        p.threads[0].nodes.push(every);
        // Zeros everywhere, region 0 and no parent: the shortest row.
        p.threads[0].nodes.push(node(5, None, 0));
        // Only the last number set: every zero before it is written.
        let mut last = node(6, Some(5), 3);
        last.span_ns = 1;
        p.threads[0].nodes.push(last);
        let text = serde_json::to_string(&p).unwrap();
        let back = Profile::from_json("v2.json", &text).unwrap();
        assert_eq!(back, p);
        assert!(
            text.contains(
                r#"[3,11,7,5,4,3,2,6,1,18446744073709551615,9,{"throttled_at":7,"counters":[1]}]"#
            ),
            "{text}"
        );
        assert!(text.contains(",[0,0],"), "{text}");
        assert!(text.contains("[1,3,0,0,0,0,0,0,0,0,1]"), "{text}");
        let nodes = text.split(r#""nodes":"#).nth(1).unwrap_or_default();
        let nodes = nodes.split(r#""dropped_calls""#).next().unwrap_or_default();
        assert!(!nodes.contains(r#""id":"#), "{nodes}");
    }

    #[test]
    fn rows_the_runtime_writes_parse() {
        // Runtime text: a row per line, a rare-field object with only the
        // counters, unknown rare fields ignored.
        let text = r#"{"format":"regio-profile","version":2,"mode":"profile","complete":true,
          "reason":"exit","signal":null,"pid":1,"rank":0,"size":1,"host":"h","command":[],
          "start_unix_ns":0,"duration_ns":9,"clock":{"source":"tsc","ticks_per_second":1.0},
          "idf":null,"threads":[{"thread":0,"os_tid":1,"finished":false,"nodes":[
          [0,3,1,5,2,5,5,0,0,0,0,{"counters":[4,5],"later":{"x":1}}],
          [1,4,2,3,3,1,2],
          [2,4]]}]}"#;
        let p = Profile::from_json("p.json", text).unwrap();
        let n = &p.threads[0].nodes;
        assert_eq!(n[0].counters, Some(vec![4, 5]));
        assert_eq!(
            (n[1].id, n[1].parent, n[1].min_ns, n[1].max_ns),
            (1, Some(0), 1, 2)
        );
        assert_eq!((n[2].parent, n[2].calls), (Some(0), 0));
    }

    #[test]
    fn bad_rows_are_refused_with_the_node() {
        let wrap = |nodes: &str| {
            format!(
                r#"{{"format":"regio-profile","version":2,"mode":"profile","complete":true,
                "reason":"exit","signal":null,"pid":1,"rank":0,"size":1,"host":"h","command":[],
                "start_unix_ns":0,"duration_ns":9,"clock":{{"source":"tsc","ticks_per_second":1.0}},
                "idf":null,"threads":[{{"thread":0,"os_tid":1,"finished":false,"nodes":[{nodes}]}}]}}"#
            )
        };
        for (rows, says) in [
            (
                "[0,1],[2,1]",
                "node 1: parent delta 2 reaches before the first node",
            ),
            (
                "[0]",
                "node 0: a row needs at least parent delta and region",
            ),
            (
                "[0,1,2,3,4,5,6,7,8,9,10,11]",
                "node 0: more than 11 numbers",
            ),
            ("[0,1,{},3]", "node 0: its row goes on after the object"),
            ("[0,-1]", "negative number -1"),
            ("[0,4294967296]", "node 0: region 4294967296 is too large"),
        ] {
            let e = Profile::from_json("p.json", &wrap(rows))
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{rows}: {e}");
        }
    }
}
