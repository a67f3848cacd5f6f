//! The typed model of `instrument report --format json` (SPEC.md fixes the
//! field names). It also deserialises, so tests and tools can read reports
//! back with the same types.

use std::collections::BTreeMap;
use std::io::{self, Write};

use regio_idf::rundir::CounterInfo;
use serde::{Deserialize, Serialize};

use super::sink::Sink;
use super::DEEP;
use crate::comm::{MatrixCell, NodeMessages, RankClock, RankCollectives};
use crate::merge::{
    visit, Node, ProcessSummary, RankMpi, RankStat, RankSummary, Report, ThreadStat, ThreadSummary,
    Visit,
};
use crate::user_events::EventStat;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonReport {
    pub runs: Vec<JsonRun>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRun {
    pub run_dir: String,
    pub complete: bool,
    pub reason: String,
    pub signal: Option<i32>,
    pub command: Vec<String>,
    /// Number of processes (ranks).
    pub processes: usize,
    /// Number of threads over all processes.
    pub threads: usize,
    /// Longest process duration.
    pub wall_ns: u64,
    pub clock: String,
    /// IDF the region names came from.
    pub idf: Option<String>,
    pub warnings: Vec<String>,
    pub per_process: Vec<JsonProcess>,
    /// Per process: time in MPI calls against time outside them (only for
    /// runs with MPI regions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mpi: Vec<RankMpi>,
    /// Counters asked for (`REGIO_COUNTERS`): `name`, `available`, and the
    /// `reason` when not; node `counters` hold the available ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterInfo>,
    /// MPI runs with argument capture: the per-rank communication matrix
    /// (point-to-point sends), records lost to full tables, and every
    /// rank's clock measurements against rank 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub communication: Option<JsonCommunication>,
    /// User events (`regio_event`): those fired with no region open, and
    /// the events not kept (absent when the run has none of either).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_events: Option<JsonUserEvents>,
    // --- REGIO_THROTTLE (h-throttle) ---
    /// Nodes whose region was throttled (`REGIO_THROTTLE`), in tree order,
    /// and what that means for the figures (`throttled_note`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttled: Vec<crate::throttled::Throttled>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_note: Option<String>,
    // --- end REGIO_THROTTLE ---
    pub drg: Vec<JsonNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonUserEvents {
    /// Events fired with no region open (the others are in their nodes).
    pub outside_regions: Vec<EventStat>,
    /// Not kept: a thread's (node, name) table was full, or the event
    /// interrupted a probe.
    pub dropped: u64,
    /// Recorded nowhere: a process's name table was full.
    pub lost: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonCommunication {
    /// One cell per (sender, receiver) pair that exchanged messages.
    pub matrix: Vec<MatrixCell>,
    pub messages_dropped: u64,
    pub clock_sync: Vec<RankClock>,
    /// Per rank: collective operations, bytes sent and received.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collectives: Vec<RankCollectives>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonProcess {
    pub rank: u32,
    pub pid: u32,
    pub host: String,
    pub duration_ns: u64,
    pub complete: bool,
    pub reason: String,
    pub signal: Option<i32>,
    pub threads: usize,
    /// The counters this process asked for, with their availability.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterInfo>,
}

/// A node of the report. Reading one back with serde_json is limited to
/// serde_json's nesting limit (128 levels, some 60 nodes deep) unless the
/// reader lifts it; deeper reports are for streaming readers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonNode {
    /// IDF id (or Rust descriptor id).
    pub region: u32,
    pub name: String,
    pub kind: String,
    /// `null` for a region without description.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub calls: u64,
    pub recursive_calls: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Frames still open when the profiles were written.
    pub open: u64,
    /// inclusive_ns / wall_ns * 100, two decimals.
    pub percent: f64,
    pub threads: ThreadSummary,
    pub per_thread: Vec<ThreadStat>,
    /// Inclusive time across processes (ranks), and per process.
    pub ranks: RankSummary,
    pub per_rank: Vec<RankStat>,
    /// Counter name -> total over threads (outermost frames, like
    /// `inclusive_ns`); only counters measured on this node.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, u64>,
    #[serde(rename = "async", default, skip_serializing_if = "Option::is_none")]
    pub async_: Option<JsonAsync>,
    /// MPI calls: per rank and peer, `messages`, `bytes`, `time_ns` and
    /// `direction` (`send`, `recv`, `collective`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<NodeMessages>,
    /// User events fired while this node was the innermost open region:
    /// per name `count`, `min`, `max`, `sum`, `mean` over threads and ranks
    /// (null when some value was not finite).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_events: Vec<EventStat>,
    // --- REGIO_THROTTLE (h-throttle) ---
    /// Calls counted before the region was throttled (`REGIO_THROTTLE`);
    /// absent when it was measured throughout. Later calls are in the
    /// parent's exclusive time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_at: Option<u64>,
    // --- end REGIO_THROTTLE ---
    pub children: Vec<JsonNode>,
}

impl Drop for JsonNode {
    /// Iterative, like `Node`'s: any depth.
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut n) = pending.pop() {
            pending.append(&mut n.children);
        }
    }
}

/// Async regions (Rust futures) only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonAsync {
    /// Polls; the node's `calls` counts futures (first polls).
    pub polls: u64,
    /// First poll to completion, summed over completed futures.
    pub span_ns: u64,
    /// Time inside polls (the node's `inclusive_ns`).
    pub busy_ns: u64,
    /// `span_ns - busy_ns`: waiting between polls.
    pub wait_ns: u64,
}

impl JsonReport {
    pub fn new(reports: &[Report]) -> JsonReport {
        JsonReport {
            runs: reports.iter().map(JsonRun::new).collect(),
        }
    }
}

impl JsonRun {
    pub fn new(r: &Report) -> JsonRun {
        let mut run = JsonRun::header(r);
        if !run.throttled.is_empty() {
            run.throttled_note = Some(crate::throttled::NOTE.to_string());
        }
        run.drg = drg(r);
        run
    }

    /// Everything but the DRG (`drg` empty).
    fn header(r: &Report) -> JsonRun {
        JsonRun {
            run_dir: r.run_dir.display().to_string(),
            complete: r.complete,
            reason: r.reason.clone(),
            signal: r.signal,
            command: r.command.clone(),
            processes: r.processes.len(),
            threads: r.threads,
            wall_ns: r.wall_ns,
            clock: r.clock.clone(),
            idf: r.idf_path.as_ref().map(|p| p.display().to_string()),
            warnings: r.warnings.clone(),
            per_process: r.processes.iter().map(process).collect(),
            mpi: r.mpi.clone(),
            counters: r.counters.clone(),
            communication: (!r.comm.is_empty()).then(|| JsonCommunication {
                matrix: r.comm.matrix.clone(),
                messages_dropped: r.comm.dropped,
                clock_sync: r.comm.clocks.clone(),
                collectives: r.comm.collectives.clone(),
            }),
            user_events: json_user_events(r),
            throttled: crate::throttled::throttled(r),
            throttled_note: None,
            drg: Vec::new(),
        }
    }
}

fn json_user_events(r: &Report) -> Option<JsonUserEvents> {
    let u = &r.user_events;
    (!u.is_empty()).then(|| JsonUserEvents {
        outside_regions: u.per_node.get(&Vec::new()).cloned().unwrap_or_default(),
        dropped: u.dropped,
        lost: u.lost,
    })
}

/// The DRG as JSON nodes. Iterative: a node is complete when it is left,
/// and then joins its parent (the node below it on the stack).
fn drg(r: &Report) -> Vec<JsonNode> {
    let mut roots = Vec::new();
    let mut open: Vec<JsonNode> = Vec::new();
    visit(&r.roots, &mut |e| match e {
        Visit::Enter(n, path) => open.push(node_in(r, n, path)),
        Visit::Leave(..) => {
            if let Some(done) = open.pop() {
                match open.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => roots.push(done),
                }
            }
        }
    });
    roots
}

fn process(p: &ProcessSummary) -> JsonProcess {
    JsonProcess {
        rank: p.rank,
        pid: p.pid,
        host: p.host.clone(),
        duration_ns: p.duration_ns,
        complete: p.complete,
        reason: p.reason.clone(),
        signal: p.signal,
        threads: p.threads,
        counters: p.counters.clone(),
    }
}

/// One node of `r` without its children, with its MPI messages; `path`
/// ends with `n`.
fn node_in(r: &Report, n: &Node, path: &[&Node]) -> JsonNode {
    let mut json = node(n, r.wall_ns);
    if !r.comm.per_node.is_empty() {
        let key: Vec<u32> = path.iter().map(|p| p.region).collect();
        if let Some(m) = r.comm.per_node.get(&key) {
            json.messages = m.clone();
        }
    }
    if !r.user_events.per_node.is_empty() {
        let key: Vec<u32> = path.iter().map(|p| p.region).collect();
        if let Some(e) = r.user_events.per_node.get(&key) {
            json.user_events = e.clone();
        }
    }
    json
}

/// One node without its children.
fn node(n: &Node, wall_ns: u64) -> JsonNode {
    JsonNode {
        region: n.region,
        name: n.info.name.clone(),
        kind: n.info.kind.clone(),
        file: n.info.file.clone(),
        line: n.info.line,
        calls: n.calls,
        recursive_calls: n.recursive_calls,
        inclusive_ns: n.inclusive_ns,
        exclusive_ns: n.exclusive_ns,
        min_ns: n.min_ns,
        max_ns: n.max_ns,
        open: n.open,
        percent: (n.percent(wall_ns) * 100.0).round() / 100.0,
        threads: n.threads,
        per_thread: n.per_thread.clone(),
        ranks: n.ranks,
        per_rank: n.per_rank.clone(),
        counters: n.counters.clone(),
        async_: n.wait_ns().map(|wait_ns| JsonAsync {
            polls: n.polls,
            span_ns: n.span_ns,
            busy_ns: n.inclusive_ns,
            wait_ns,
        }),
        messages: Vec::new(),
        user_events: Vec::new(),
        throttled_at: n.throttled_at,
        children: Vec::new(),
    }
}

pub(super) fn render(reports: &[Report]) -> String {
    let mut sink = Sink::collect();
    let written = write(reports, &mut sink);
    match written
        .map_err(io::Error::other)
        .and_then(|()| sink.finish())
    {
        Ok(text) => text,
        // Plain structs with string keys and finite numbers always
        // serialise; keep the output JSON all the same.
        Err(e) => format!("{{\"error\": {:?}}}\n", e.to_string()),
    }
}

/// Like `render`, handing the text to `w` as it is made: a DRG of a
/// million nodes is gigabytes of JSON.
pub(super) fn render_to(reports: &[Report], w: &mut dyn Write) -> io::Result<()> {
    let mut sink = Sink::stream(w);
    write(reports, &mut sink).map_err(io::Error::other)?;
    sink.finish().map(drop)
}

/// What `serde_json::to_string_pretty(&JsonReport::new(reports))` writes,
/// written node by node without recursion (serde's serialiser recurses once
/// per level): each node's fields are serialised by serde and its children
/// are spliced into its empty `children` array. Nodes deeper than
/// [`DEEP`] are written compactly, one per line, so the indentation does
/// not make the output grow with the square of the depth.
fn write(reports: &[Report], out: &mut Sink<'_>) -> Result<(), serde_json::Error> {
    if reports.is_empty() {
        out.push_str("{\n  \"runs\": []\n}\n");
        return Ok(());
    }
    out.push_str("{\n  \"runs\": [\n");
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        write_run(out, r)?;
    }
    out.push_str("\n  ]\n}\n");
    Ok(())
}

/// `text`, every line indented by `indent` blanks.
fn push_indented(out: &mut Sink<'_>, text: &str, indent: usize) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.blanks(indent);
        out.push_str(line);
    }
}

fn malformed(what: &str) -> serde_json::Error {
    <serde_json::Error as serde::ser::Error>::custom(format!(
        "{what} does not end in an empty array"
    ))
}

/// Runs are items of `runs` (4 blanks), roots items of `drg` (8 blanks).
fn write_run(out: &mut Sink<'_>, r: &Report) -> Result<(), serde_json::Error> {
    let head = serde_json::to_string_pretty(&JsonRun::header(r))?;
    if r.roots.is_empty() {
        push_indented(out, &head, 4);
        return Ok(());
    }
    let open = head
        .strip_suffix("[]\n}")
        .ok_or_else(|| malformed("a run"))?;
    push_indented(out, open, 4);
    out.push_str("[\n");
    // A DRG of more nodes than a text report shows is written compactly
    // from the roots on (one node per line, like nodes deeper than DEEP):
    // indented, a million nodes are gigabytes of blanks.
    let mut count = 0usize;
    r.walk(&mut |_, _| count += 1);
    let compact_from = if count > LARGE_DRG { 0 } else { DEEP };
    let mut result = Ok(());
    visit(&r.roots, &mut |e| {
        if result.is_ok() && !out.failed() {
            result = match e {
                Visit::Enter(n, path) => enter(out, r, n, path, compact_from),
                Visit::Leave(n, path) => {
                    leave(out, n, path.len() - 1, compact_from);
                    Ok(())
                }
            }
            .map(|()| out.piece());
        }
    });
    result?;
    out.push_str("\n      ]\n    }");
    Ok(())
}

/// Indentation of a node `depth` levels below a root.
fn indent(depth: usize) -> usize {
    8 + 4 * depth
}

/// Above this many nodes the whole DRG is written compactly.
const LARGE_DRG: usize = super::text::TEXT_NODES;

/// Nodes at `compact_from` levels below a root and deeper are written
/// compactly, one per line.
fn enter(
    out: &mut Sink<'_>,
    r: &Report,
    n: &Node,
    path: &[&Node],
    compact_from: usize,
) -> Result<(), serde_json::Error> {
    let depth = path.len() - 1;
    let siblings = match path.len() {
        1 => &r.roots,
        k => &path[k - 2].children,
    };
    let first = siblings.first().is_some_and(|f| std::ptr::eq(f, n));
    if !first {
        out.push_str(",\n");
    }
    let head = node_in(r, n, path);
    if depth >= compact_from {
        let text = serde_json::to_string(&head)?;
        if n.children.is_empty() {
            out.push_str(&text);
        } else {
            out.push_str(
                text.strip_suffix("[]}")
                    .ok_or_else(|| malformed("a node"))?,
            );
            out.push_str("[\n");
        }
        return Ok(());
    }
    let text = serde_json::to_string_pretty(&head)?;
    if n.children.is_empty() {
        push_indented(out, &text, indent(depth));
    } else {
        let open = text
            .strip_suffix("[]\n}")
            .ok_or_else(|| malformed("a node"))?;
        push_indented(out, open, indent(depth));
        out.push_str("[\n");
    }
    Ok(())
}

/// Closes the children array and the object of a node that has children.
fn leave(out: &mut Sink<'_>, n: &Node, depth: usize, compact_from: usize) {
    if n.children.is_empty() {
        return;
    }
    if depth >= compact_from {
        out.push_str("\n]}");
        return;
    }
    out.push('\n');
    out.blanks(indent(depth) + 2);
    out.push_str("]\n");
    out.blanks(indent(depth));
    out.push('}');
}
