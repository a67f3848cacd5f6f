//! Scale check of the report merge (issue 6): a synthetic run directory of
//! RANKS processes with NODES DRG nodes each (a balanced tree of 50 regions
//! under 10 phases under main, like an MPI code with one call path per
//! communication site), then `load_run` + `merge` + JSON rendering, timed,
//! with the process's peak resident set size.
//!
//! `cargo bench -p regio-analysis --bench merge_scale` (optionally
//! `-- RANKS NODES`). Not criterion: one merge of this size takes seconds,
//! and what matters is the single figure and the memory peak.
//!
//! `-- RANKS NODES --write DIR` only writes the run directory, for timing
//! the real `instrument report` and `overhead` commands on it
//! (scripts/bench_report_scale.sh).

use std::time::Instant;

use regio_analysis::{load_run, merge, render, Format};
use regio_idf::rundir::{profile_file_name, ClockInfo, NodeRecord, Profile, ThreadProfile};

fn synthetic(rank: u32, size: u32, nodes: u32) -> Profile {
    let mut records = Vec::with_capacity(nodes as usize);
    for id in 0..nodes {
        // Node 0 is main; 1..=10 phases; the rest spread over the phases.
        let parent = match id {
            0 => None,
            1..=10 => Some(0),
            _ => Some(1 + (id % 10)),
        };
        let t = 1_000 + u64::from(rank) * 7 + u64::from(id);
        records.push(NodeRecord {
            id,
            parent,
            region: id + 1,
            calls: 1 + u64::from(id % 13),
            recursive_calls: 0,
            inclusive_ns: t * 10,
            exclusive_ns: t,
            min_ns: t,
            max_ns: t * 2,
            open: 0,
            polls: 0,
            span_ns: 0,
            counters: None,
            throttled_at: None,
        });
    }
    Profile {
        format: regio_idf::rundir::PROFILE_FORMAT.into(),
        version: regio_idf::rundir::PROFILE_VERSION,
        mode: "profile".into(),
        complete: true,
        reason: "exit".into(),
        signal: None,
        pid: 10_000 + rank,
        rank,
        size,
        host: format!("node{}", rank / 64),
        command: vec!["./solver".into()],
        start_unix_ns: 0,
        duration_ns: 5_000_000_000,
        clock: ClockInfo {
            source: "tsc".into(),
            ticks_per_second: 2.5e9,
        },
        idf: None,
        idfs: Vec::new(),
        regions: Vec::new(),
        counters: Vec::new(),
        clock_sync: None,
        user_events_lost: 0,
        snapshot: false,
        throttle: None,
        threads: vec![ThreadProfile {
            thread: 0,
            os_tid: u64::from(10_000 + rank),
            finished: false,
            dropped_calls: 0,
            messages: Vec::new(),
            messages_dropped: 0,
            user_events: Vec::new(),
            user_events_dropped: 0,
            nodes: records,
        }],
    }
}

/// Writes the profiles of a synthetic run of `ranks` processes into `dir`;
/// returns their size in bytes.
fn write_run(dir: &std::path::Path, ranks: u32, nodes: u32) -> Result<u64, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut bytes = 0u64;
    for rank in 0..ranks {
        let p = synthetic(rank, ranks, nodes);
        let text = serde_json::to_string(&p).map_err(|e| e.to_string())?;
        bytes += text.len() as u64;
        let path = dir.join(profile_file_name(rank, p.pid));
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(bytes)
}

/// Peak resident set size of this process so far, in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    // `cargo bench` passes `--bench`; numbers are the optional overrides.
    let nums: Vec<u32> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    let ranks = nums.first().copied().unwrap_or(1024);
    let nodes = nums.get(1).copied().unwrap_or(500);
    let args: Vec<String> = std::env::args().collect();
    let write_to = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|i| args.get(i + 1));
    if let Some(out) = write_to {
        let out = std::path::Path::new(out);
        match write_run(out, ranks, nodes) {
            Ok(bytes) => println!(
                "wrote {ranks} ranks x {nodes} nodes ({:.1} MiB) to {}",
                bytes as f64 / 1048576.0,
                out.display()
            ),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot create a temporary directory: {e}");
            std::process::exit(1);
        }
    };
    let bytes = match write_run(dir.path(), ranks, nodes) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let before = peak_rss_kib();
    let t0 = Instant::now();
    let run = match load_run(dir.path(), None) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let t1 = Instant::now();
    let report = merge(&run);
    let t2 = Instant::now();
    let json = render(&[report], Format::Json);
    let t3 = Instant::now();
    drop(run);
    let after = peak_rss_kib();
    println!(
        "merge_scale: {ranks} ranks x {nodes} nodes ({:.1} MiB of profiles)",
        bytes as f64 / 1048576.0
    );
    println!(
        "  load {:.2} s, merge {:.2} s, json {:.2} s ({:.1} MiB), total {:.2} s",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        (t3 - t2).as_secs_f64(),
        json.len() as f64 / 1048576.0,
        (t3 - t0).as_secs_f64()
    );
    match (before, after) {
        (Some(b), Some(a)) => println!(
            "  peak RSS {:.1} MiB (before loading: {:.1} MiB)",
            a as f64 / 1024.0,
            b as f64 / 1024.0
        ),
        _ => println!("  peak RSS: /proc/self/status not readable"),
    }
}
