//! A run directory with one chain of `depth` distinct nested regions
//! (f1 calls f2 ... calls fN), as a program with N functions each calling
//! the next would leave it. Shared by the analysis tests and the
//! `instrument report` test of the binary (included there by path).
#![allow(dead_code)]

use std::path::Path;

use regio_idf::rundir::{
    profile_file_name, ClockInfo, NodeRecord, Profile, ThreadProfile, PROFILE_FORMAT,
    PROFILE_VERSION,
};

/// Exclusive time of every node; node i (0-based) has inclusive
/// `(depth - i) * EXCLUSIVE_NS`.
pub const EXCLUSIVE_NS: u64 = 10;

/// Writes `regio.idf.json` (regions 1..=depth named `f<id>`, one line each
/// of `chain.c`) and one profile whose thread 0 holds the chain: node i is
/// region i + 1 under node i - 1.
pub fn write_chain(dir: &Path, depth: u32) {
    let mut regions = String::new();
    for id in 1..=depth {
        if id > 1 {
            regions.push_str(",\n");
        }
        regions.push_str(&format!(
            "{{\"id\":{id},\"kind\":\"function\",\"name\":\"f{id}\",\"file\":\"chain.c\",\"unit\":\"\",\
             \"start\":{{\"line\":{id},\"col\":1}},\"end\":{{\"line\":{id},\"col\":2}},\"parent\":null}}"
        ));
    }
    let idf = format!(
        "{{\"header\":{{\"format_version\":1,\"tool\":\"instrument\",\"tool_version\":\"0.1.0\",\
         \"options\":{{\"regions\":[\"functions\"]}},\"files\":[{{\"path\":\"chain.c\",\
         \"original\":\"src/chain.c\",\"hash\":\"sha256:00\",\"lines\":{},\"max_line_len\":80}}]}},\n\
         \"regions\":[\n{regions}]}}\n",
        depth + 1
    );
    std::fs::write(dir.join("regio.idf.json"), idf).expect("write the IDF");

    let nodes = (0..depth)
        .map(|i| {
            let inclusive = u64::from(depth - i) * EXCLUSIVE_NS;
            NodeRecord {
                id: i,
                parent: i.checked_sub(1),
                region: i + 1,
                calls: 1,
                recursive_calls: 0,
                inclusive_ns: inclusive,
                exclusive_ns: EXCLUSIVE_NS,
                min_ns: inclusive,
                max_ns: inclusive,
                open: 0,
                polls: 0,
                span_ns: 0,
                counters: None,
                throttled_at: None,
            }
        })
        .collect();
    let profile = Profile {
        format: PROFILE_FORMAT.into(),
        version: PROFILE_VERSION,
        mode: "profile".into(),
        complete: true,
        reason: "exit".into(),
        signal: None,
        pid: 4242,
        rank: 0,
        size: 1,
        host: "h".into(),
        command: vec!["./chain".into()],
        start_unix_ns: 0,
        duration_ns: u64::from(depth + 1) * EXCLUSIVE_NS,
        clock: ClockInfo {
            source: "tsc".into(),
            ticks_per_second: 1e9,
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
            os_tid: 4242,
            finished: false,
            dropped_calls: 0,
            messages: Vec::new(),
            messages_dropped: 0,
            user_events: Vec::new(),
            user_events_dropped: 0,
            nodes,
        }],
    };
    let text = serde_json::to_string(&profile).expect("serialise the profile");
    std::fs::write(dir.join(profile_file_name(0, 4242)), text).expect("write the profile");
}
