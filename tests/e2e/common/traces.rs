//! Trace-mode run directories as the tests read them: the `.rtrace` files
//! decoded directly (what the runtime wrote, before any repair by the
//! exporter), the counts the tests hold against the profile, and the two
//! exports read back.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use regio_trace_format::{decode, Event, TraceFile};
use serde_json::Value;

use super::{instrument_bin, profiles, require_tool, run_ok};

/// A run directory's decoded trace files by file name.
pub type Files = BTreeMap<String, TraceFile>;

/// The run directory's trace files, decoded, by file name.
pub fn decode_all(run_dir: &Path) -> Files {
    let mut out = BTreeMap::new();
    let entries = std::fs::read_dir(run_dir).unwrap_or_else(|e| panic!("{e}"));
    for e in entries {
        let path = e.unwrap_or_else(|e| panic!("{e}")).path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".rtrace") {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let file = decode(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
            out.insert(name, file);
        }
    }
    out
}

/// Enter records per region id over all files.
pub fn enters(files: &Files) -> BTreeMap<u32, u64> {
    let mut n = BTreeMap::new();
    for f in files.values() {
        for r in &f.records {
            if let Event::Enter { region } = r.event {
                *n.entry(region).or_default() += 1;
            }
        }
    }
    n
}

/// Problems with the nesting of each file's enter/exit records: an exit
/// that does not close the innermost open enter of its region, time going
/// back, a region left open at the end.
pub fn nesting_problems(files: &Files) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, f) in files {
        let (_, open) = walk(name, f, &mut problems);
        if !open.is_empty() {
            problems.push(format!("{name}: ends with regions {open:?} open"));
        }
    }
    problems
}

/// One file's enter records per region, and the regions open at its end
/// (innermost last); a problem for each exit that does not close the
/// innermost open enter of its region and each record that goes back in
/// time.
pub fn walk(
    name: &str,
    f: &TraceFile,
    problems: &mut Vec<String>,
) -> (BTreeMap<u32, u64>, Vec<u32>) {
    let mut enters = BTreeMap::new();
    let mut open = Vec::new();
    let mut last = 0u64;
    for (i, r) in f.records.iter().enumerate() {
        if r.ticks < last {
            problems.push(format!("{name}: record {i} goes back in time"));
        }
        last = r.ticks;
        match r.event {
            Event::Enter { region } => {
                *enters.entry(region).or_default() += 1;
                open.push(region);
            }
            Event::Exit { region } => match open.pop() {
                Some(top) if top == region => {}
                other => problems.push(format!(
                    "{name}: record {i}: exit of {region} closes {other:?}"
                )),
            },
            _ => {}
        }
    }
    (enters, open)
}

/// Profile calls per region id, summed over every process, thread and
/// node of the run.
pub fn profile_calls(run_dir: &Path) -> BTreeMap<u32, u64> {
    let mut calls = BTreeMap::new();
    for (_, _, n) in profiles::nodes(&profiles::read_all(run_dir)) {
        *calls.entry(n.region).or_default() += n.calls;
    }
    calls
}

/// The values of the `mask` records of all files (file name order).
pub fn masks(files: &Files) -> Vec<u64> {
    files
        .values()
        .flat_map(|f| &f.records)
        .filter_map(|r| match r.event {
            Event::Mask { mask } => Some(mask),
            _ => None,
        })
        .collect()
}

/// The values of one file's user events named `name`, in record order
/// (string ids are per file).
pub fn user_values(file: &TraceFile, name: &str) -> Vec<f64> {
    let id = file
        .strings()
        .into_iter()
        .find(|(_, s)| *s == name)
        .map(|(id, _)| id);
    file.records
        .iter()
        .filter_map(|r| match r.event {
            Event::User { name, value } if Some(name) == id => Some(value),
            _ => None,
        })
        .collect()
}

/// User event records of any name in all files.
pub fn user_records(files: &Files) -> usize {
    files
        .values()
        .flat_map(|f| &f.records)
        .filter(|r| matches!(r.event, Event::User { .. }))
        .count()
}

/// `instrument export --format perfetto RUN_DIR --out OUT EXTRA...`, the
/// JSON it wrote.
pub fn export_perfetto(run_dir: &Path, out: &Path, extra: &[&std::ffi::OsStr]) -> Value {
    run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "perfetto"])
            .args(extra)
            .arg(run_dir)
            .arg("--out")
            .arg(out),
    );
    let text = std::fs::read_to_string(out).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// A Perfetto export's events of phase `ph` ("B", "E", ...).
pub fn perfetto_events<'a>(json: &'a Value, ph: &'a str) -> impl Iterator<Item = &'a Value> {
    json["traceEvents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |e| e["ph"] == ph)
}

/// `instrument export --format otf2` into `out`, printed by `otf2-print`
/// (its stdout); None when `otf2-print` is missing (SKIPPED).
pub fn otf2_printed(run_dir: &Path, out: &Path) -> Option<String> {
    otf2_printed_with(run_dir, out, &[])
}

/// [`otf2_printed`] with `env` set for the export.
pub fn otf2_printed_with(run_dir: &Path, out: &Path, env: &[(&str, &str)]) -> Option<String> {
    if !require_tool("otf2-print", "otf2-tools") {
        return None;
    }
    run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "otf2"])
            .arg(run_dir)
            .arg("--out")
            .arg(out)
            .envs(env.iter().copied()),
    );
    Some(run_ok(Command::new("otf2-print").arg(out.join("traces.otf2"))).stdout)
}

/// One string field (`name`, `kind`) of every region of the IDF copied
/// into the run directory, by (local) id.
pub fn idf_field(run_dir: &Path, field: &str) -> BTreeMap<u32, String> {
    let idf = std::fs::read_to_string(run_dir.join("regio.idf.json"))
        .unwrap_or_else(|e| panic!("regio.idf.json: {e}"));
    let idf: Value = serde_json::from_str(&idf).unwrap_or_else(|e| panic!("{e}"));
    idf["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["id"].as_u64().unwrap_or(0) as u32,
                r[field].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Enter records equal profile calls, region by region (the join regions
/// too: every team thread's join wait is a span in its own trace). Returns
/// the regions of kind `omp_join` with their calls.
pub fn assert_counts_match(run_dir: &Path, files: &Files) -> BTreeMap<u32, u64> {
    let (calls, kinds) = (profile_calls(run_dir), idf_field(run_dir, "kind"));
    let enters = enters(files);
    let mut problems = Vec::new();
    let mut joins = BTreeMap::new();
    for (region, &c) in &calls {
        // The profile (and the trace) write ids as base + local id; the
        // program has one IDF, whose local ids the kinds are keyed by.
        let local = region % regio_idf::rundir::OBJECT_ID_STRIDE;
        if kinds.get(&local).map(String::as_str) == Some("omp_join") {
            joins.insert(*region, c);
        }
        let e = enters.get(region).copied().unwrap_or(0);
        if e != c {
            problems.push(format!("region {region}: {e} enter records, {c} calls"));
        }
    }
    for (region, &e) in &enters {
        if !calls.contains_key(region) {
            problems.push(format!(
                "region {region}: {e} enter records, not in the profile"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    joins
}

/// An OpenMP program's trace, every team of `threads` threads: enter
/// records equal profile calls ([`assert_counts_match`]); every thread's
/// file has a join span per team it ended; forks equal joins, every member
/// of every team begins and ends it, with the team's size and its own
/// thread number. Returns the forks.
pub fn check_teams(run_dir: &Path, files: &Files, threads: u32) -> usize {
    let joins = assert_counts_match(run_dir, files);
    assert!(!joins.is_empty(), "no omp_join region in the profile");
    for (name, f) in files {
        let spans = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::Enter { region } if joins.contains_key(&region)))
            .count();
        let ended = f
            .records
            .iter()
            .filter(|r| matches!(r.event, Event::OmpTeamEnd { .. }))
            .count();
        assert_eq!(spans, ended, "{name}: join spans vs teams ended");
    }
    let count = |want: fn(&Event) -> bool| {
        files
            .values()
            .flat_map(|f| &f.records)
            .filter(|r| want(&r.event))
            .count()
    };
    let forks = count(|e| matches!(e, Event::OmpFork { .. }));
    let joins = count(|e| matches!(e, Event::OmpJoin { .. }));
    let begins = count(|e| matches!(e, Event::OmpTeamBegin { .. }));
    let ends = count(|e| matches!(e, Event::OmpTeamEnd { .. }));
    assert!(forks >= 1 && forks == joins, "{forks} forks, {joins} joins");
    assert_eq!(
        begins,
        threads as usize * forks,
        "every member of every team begins"
    );
    assert_eq!(ends, begins);
    // Team numbers (per process: the file name up to `-t<thread>`) and
    // thread numbers as OpenMP gave them.
    let mut members: BTreeMap<(&str, u64), Vec<u32>> = BTreeMap::new();
    for (name, f) in files {
        let process = name.rsplit_once("-t").map_or(name.as_str(), |(p, _)| p);
        for r in &f.records {
            if let Event::OmpTeamBegin {
                team,
                thread_num,
                team_size,
            } = r.event
            {
                assert_eq!(team_size, threads);
                members.entry((process, team)).or_default().push(thread_num);
            }
        }
    }
    for (team, mut m) in members {
        m.sort_unstable();
        assert_eq!(m, (0..threads).collect::<Vec<_>>(), "team {team:?}");
    }
    forks
}

/// A Perfetto export's begins per region name; every end closes a begin
/// of its own track (pid, tid) and no begin is left open.
pub fn perfetto_begins_by_name(json: &Value) -> BTreeMap<String, u64> {
    let mut open: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut begins: BTreeMap<String, u64> = BTreeMap::new();
    for e in json["traceEvents"].as_array().into_iter().flatten() {
        let track = (e["pid"].to_string(), e["tid"].to_string());
        match e["ph"].as_str() {
            Some("B") => {
                let name = e["name"].as_str().unwrap_or("").to_string();
                *begins.entry(name.clone()).or_default() += 1;
                open.entry(track).or_default().push(name);
            }
            Some("E") => assert!(
                open.entry(track).or_default().pop().is_some(),
                "an end without a begin: {e}"
            ),
            _ => {}
        }
    }
    assert!(
        open.values().all(Vec::is_empty),
        "begins without end: {open:?}"
    );
    begins
}

/// `otf2-print`'s ENTER lines per region name (`Region: "name" <ref>`);
/// also checks that every LEAVE closes the innermost ENTER of its
/// location, of the same region, and that none is left open.
pub fn otf2_enters_by_name(printed: &str) -> BTreeMap<String, u64> {
    let region = |l: &str| {
        l.split("Region: \"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or("")
            .to_string()
    };
    let mut entered: BTreeMap<String, u64> = BTreeMap::new();
    let mut open: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in printed.lines() {
        let mut words = l.split_whitespace();
        let (kind, location) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let stack = open.entry(location.to_string()).or_default();
        match kind {
            "ENTER" => {
                *entered.entry(region(l)).or_default() += 1;
                stack.push(region(l));
            }
            "LEAVE" => assert_eq!(stack.pop(), Some(region(l)), "location {location}: {l}"),
            _ => {}
        }
    }
    assert!(
        open.values().all(Vec::is_empty),
        "ENTER without LEAVE: {open:?}"
    );
    entered
}
