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

/// The regions of [`write_hot_cheap_run`]: main, axpy, MPI_Send, rare and
/// the user region phase.
pub fn write_hot_cheap_idf(dir: &Path) {
    write_idf(
        &dir.join("regio.idf.json"),
        &[
            (1, "function", "main", "main.c", 1, 90, None),
            (2, "function", "axpy", "blas.c", 5, 9, None),
            (3, "mpi_send", "MPI_Send", "main.c", 20, 20, Some(1)),
            (4, "function", "rare", "main.c", 40, 44, None),
            (5, "user", "phase", "main.c", 50, 60, Some(1)),
        ],
    );
}

/// The run `instrument score` is tested on (analysis/tests/score.rs and
/// the command in cli/tests/analysis_commands.rs): main (1 s) calls axpy
/// a million times (50 ns each), MPI_Send 5,000 times, `rare` 10 times
/// (100 ns each) and the user region `phase` 2,000 times; one profile
/// per (rank, pid) of `procs`, each doing the same work, `size` their
/// count.
pub fn write_hot_cheap_run(dir: &Path, procs: &[(u32, u32)]) {
    write_hot_cheap_idf(dir);
    let children = 50_000_000 + 1_000_000 + 1_000 + 600_000;
    let nodes = vec![
        (
            0,
            None,
            1,
            1,
            0,
            1_000_000_000,
            1_000_000_000 - children,
            1_000_000_000,
            1_000_000_000,
            0,
        ),
        (
            1,
            Some(0),
            2,
            1_000_000,
            0,
            50_000_000,
            50_000_000,
            40,
            90,
            0,
        ),
        (2, Some(0), 3, 5_000, 0, 1_000_000, 1_000_000, 150, 900, 0),
        (3, Some(0), 4, 10, 0, 1_000, 1_000, 90, 110, 0),
        (4, Some(0), 5, 2_000, 0, 600_000, 600_000, 250, 400, 0),
    ];
    for &(rank, pid) in procs {
        let mut p = Proc::new(
            rank,
            pid,
            1_000_000_000,
            vec![Thread {
                thread: 0,
                nodes: nodes.clone(),
            }],
        );
        p.size = procs.len() as u32;
        write_profile(dir, &p);
    }
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
