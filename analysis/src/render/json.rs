//! The typed model of `instrument report --format json` (SPEC.md fixes the
//! field names). It also deserialises, so tests and tools can read reports
//! back with the same types.

use std::collections::BTreeMap;

use regio_idf::rundir::CounterInfo;
use serde::{Deserialize, Serialize};

use crate::merge::{
    Node, ProcessSummary, RankMpi, RankStat, RankSummary, Report, ThreadStat, ThreadSummary,
};

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
    pub drg: Vec<JsonNode>,
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
    pub children: Vec<JsonNode>,
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
            drg: r.roots.iter().map(|n| node(n, r.wall_ns)).collect(),
        }
    }
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
        children: n.children.iter().map(|c| node(c, wall_ns)).collect(),
    }
}

pub(super) fn render(reports: &[Report]) -> String {
    match serde_json::to_string_pretty(&JsonReport::new(reports)) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        // Plain structs with string keys and finite numbers always
        // serialise; keep the output JSON all the same.
        Err(e) => format!("{{\"error\": {:?}}}\n", e.to_string()),
    }
}
