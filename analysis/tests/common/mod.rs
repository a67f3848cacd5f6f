//! Synthetic run directories: profiles written as text the way the runtime
//! writes them (padded numbers, `null`s), and small IDFs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// One node record: (id, parent, region, calls, recursive, inclusive,
/// exclusive, min, max, open).
pub type N = (u32, Option<u32>, u32, u64, u64, u64, u64, u64, u64, u32);

pub struct Thread {
    pub thread: u32,
    pub nodes: Vec<N>,
}

pub struct Proc {
    pub rank: u32,
    pub size: u32,
    pub pid: u32,
    pub complete: bool,
    pub reason: &'static str,
    pub signal: Option<i32>,
    pub duration_ns: u64,
    pub clock: &'static str,
    pub idf: Option<String>,
    /// Hand-written `regions` array (descriptors), or empty for none.
    pub descriptors: &'static str,
    pub threads: Vec<Thread>,
}

impl Proc {
    pub fn new(rank: u32, pid: u32, duration_ns: u64, threads: Vec<Thread>) -> Proc {
        Proc {
            rank,
            size: 1,
            pid,
            complete: true,
            reason: "exit",
            signal: None,
            duration_ns,
            clock: "tsc",
            idf: None,
            descriptors: "",
            threads,
        }
    }
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map_or("null".to_string(), |v| v.to_string())
}

/// The profile text, formatted like the runtime's hand-written writer.
pub fn profile_text(p: &Proc) -> String {
    let mut threads = Vec::new();
    for t in &p.threads {
        let nodes: Vec<String> = t
            .nodes
            .iter()
            .map(|&(id, parent, region, calls, rec, inc, exc, min, max, open)| {
                format!(
                    "{{\"id\":{id:>6},\"parent\":{:>6},\"region\":{region:>10},\"calls\":{calls:>20},\
                     \"recursive_calls\":{rec:>20},\"inclusive_ns\":{inc:>20},\"exclusive_ns\":{exc:>20},\
                     \"min_ns\":{min:>20},\"max_ns\":{max:>20},\"open\":{open:>10}}}",
                    opt(&parent)
                )
            })
            .collect();
        threads.push(format!(
            "{{\"thread\":{},\"os_tid\":{},\"finished\":{},\"nodes\":[\n{}]}}",
            t.thread,
            p.pid * 10 + t.thread,
            t.thread != 0,
            nodes.join(",\n")
        ));
    }
    let idf = p
        .idf
        .as_ref()
        .map_or("null".to_string(), |s| format!("{s:?}"));
    let regions = if p.descriptors.is_empty() {
        String::new()
    } else {
        format!("\"regions\":{},\n", p.descriptors)
    };
    format!(
        "{{\"format\":\"regio-profile\",\"version\":1,\"mode\":\"profile\",\"complete\":{},\
         \"reason\":\"{}\",\"signal\":{},\"pid\":{:>10},\"rank\":{},\"size\":{},\"host\":\"node1\",\n\
         \"command\":[\"./prog\",\"--n\",\"3\"],\"start_unix_ns\":{:>20},\"duration_ns\":{:>20},\n\
         \"clock\":{{\"source\":\"{}\",\"ticks_per_second\":2.4e9}},\"idf\":{idf},\n{regions}\
         \"threads\":[\n{}]}}\n",
        p.complete,
        p.reason,
        opt(&p.signal),
        p.pid,
        p.rank,
        p.size,
        1_700_000_000_000_000_000u64,
        p.duration_ns,
        p.clock,
        threads.join(",\n")
    )
}

pub fn write_profile(dir: &Path, p: &Proc) {
    let name = format!("profile-r{}-p{}.json", p.rank, p.pid);
    std::fs::write(dir.join(name), profile_text(p)).unwrap();
}

/// A counter the profile lists: (name, available, reason).
pub type C = (&'static str, bool, Option<&'static str>);

/// Writes `p` with a counter list and, per (thread, node id), the values
/// of the available counters.
pub fn write_counted(dir: &Path, p: &Proc, list: &[C], values: &[(u32, u32, Vec<u64>)]) {
    use serde_json::{json, Value};
    let mut v: Value = serde_json::from_str(&profile_text(p)).unwrap();
    v["counters"] = list
        .iter()
        .map(|(name, available, reason)| json!({"name": name, "available": available, "reason": reason}))
        .collect();
    for (thread, node, vals) in values.iter().filter(|v| !v.2.is_empty()) {
        let t = v["threads"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|t| t["thread"] == json!(thread))
            .unwrap();
        t["nodes"][*node as usize]["counters"] = json!(vals);
    }
    let name = format!("profile-r{}-p{}.json", p.rank, p.pid);
    std::fs::write(dir.join(name), serde_json::to_string(&v).unwrap()).unwrap();
}

/// (id, kind, name, file, start line, end line, parent)
pub type R = (
    u32,
    &'static str,
    &'static str,
    &'static str,
    u32,
    u32,
    Option<u32>,
);

pub fn idf_text(regions: &[R]) -> String {
    let mut files: Vec<&str> = regions.iter().map(|r| r.3).collect();
    files.sort();
    files.dedup();
    let files: Vec<String> = files
        .iter()
        .map(|f| {
            format!(
                "{{\"path\":\"{f}\",\"original\":\"src/{f}\",\"hash\":\"sha256:00\",\"lines\":200,\"max_line_len\":80}}"
            )
        })
        .collect();
    let regions: Vec<String> = regions
        .iter()
        .map(|(id, kind, name, file, start, end, parent)| {
            format!(
                "{{\"id\":{id},\"kind\":\"{kind}\",\"name\":\"{name}\",\"file\":\"{file}\",\"unit\":\"\",\
                 \"start\":{{\"line\":{start},\"col\":1}},\"end\":{{\"line\":{end},\"col\":2}},\"parent\":{}}}",
                opt(parent)
            )
        })
        .collect();
    format!(
        "{{\"header\":{{\"format_version\":1,\"tool\":\"instrument\",\"tool_version\":\"0.1.0\",\
         \"options\":{{\"regions\":[\"functions\",\"loops\"]}},\"files\":[{}]}},\n\"regions\":[\n{}]}}\n",
        files.join(","),
        regions.join(",\n")
    )
}

pub fn write_idf(path: &Path, regions: &[R]) {
    std::fs::write(path, idf_text(regions)).unwrap();
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A run directory `run` inside a fresh temporary directory.
pub fn run_dir(tmp: &tempfile::TempDir) -> PathBuf {
    named_run_dir(tmp.path(), "run")
}

/// An empty directory `name` inside `tmp`.
pub fn named_run_dir(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    std::fs::create_dir(&dir).unwrap();
    dir
}

/// Several run directories side by side in one temporary directory.
pub fn runs(tmp: &Path, names: &[&str]) -> Vec<PathBuf> {
    names.iter().map(|n| named_run_dir(tmp, n)).collect()
}

/// Output with the temporary run directory replaced by `RUN`, so it can be
/// compared exactly.
pub fn anonymize(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "RUN")
}
