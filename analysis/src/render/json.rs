//! The typed model of `instrument report --format json` (SPEC.md fixes the
//! field names). It also deserialises, so tests and tools can read reports
//! back with the same types.

use serde::{Deserialize, Serialize};

use crate::merge::{Node, ProcessSummary, Report, ThreadStat, ThreadSummary};

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
    pub threads: JsonThreads,
    pub per_thread: Vec<JsonThreadStat>,
    pub children: Vec<JsonNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonThreads {
    pub count: usize,
    pub min_inclusive_ns: u64,
    pub mean_inclusive_ns: u64,
    pub max_inclusive_ns: u64,
    pub max_rank: u32,
    pub max_pid: u32,
    pub max_thread: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonThreadStat {
    pub rank: u32,
    pub pid: u32,
    pub thread: u32,
    pub calls: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
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
        threads: threads(&n.threads),
        per_thread: n.per_thread.iter().map(thread).collect(),
        children: n.children.iter().map(|c| node(c, wall_ns)).collect(),
    }
}

fn threads(s: &ThreadSummary) -> JsonThreads {
    JsonThreads {
        count: s.count,
        min_inclusive_ns: s.min_inclusive_ns,
        mean_inclusive_ns: s.mean_inclusive_ns,
        max_inclusive_ns: s.max_inclusive_ns,
        max_rank: s.max_rank,
        max_pid: s.max_pid,
        max_thread: s.max_thread,
    }
}

fn thread(t: &ThreadStat) -> JsonThreadStat {
    JsonThreadStat {
        rank: t.rank,
        pid: t.pid,
        thread: t.thread,
        calls: t.calls,
        inclusive_ns: t.inclusive_ns,
        exclusive_ns: t.exclusive_ns,
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
