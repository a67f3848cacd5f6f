//! Reading `instrument report --format json` (fields per SPEC.md) and
//! deriving what the tests compare: call totals per region, call paths of
//! procedures, and timing invariants.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::{instrument_bin, run};

/// Calls and recursive calls summed over DRG nodes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub calls: u64,
    pub recursive: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.calls += o.calls;
        self.recursive += o.recursive;
    }
}

/// Parsed report JSON, or the reason there is none.
pub fn report_json(run_dirs: &[&Path]) -> Result<Value, String> {
    let r = run(Command::new(instrument_bin())
        .args(["report", "--format", "json"])
        .args(run_dirs));
    if !r.status.success() {
        return Err(format!("instrument report failed: {}", r.describe()));
    }
    serde_json::from_str(&r.stdout)
        .map_err(|e| format!("report is not JSON ({e}): {}", r.describe()))
}

/// The single run of a report made from one run directory.
pub fn only_run(report: &Value) -> Result<&Value, String> {
    match report["runs"].as_array().map(Vec::as_slice) {
        Some([run]) => Ok(run),
        Some(runs) => Err(format!("expected 1 run, report has {}", runs.len())),
        None => Err(format!("report has no `runs` array: {report}")),
    }
}

pub fn u64_field(node: &Value, key: &str) -> u64 {
    node[key].as_u64().unwrap_or_else(|| {
        panic!(
            "node `{}` has no unsigned field `{key}`: {node}",
            node["name"]
        )
    })
}

pub fn str_field<'a>(node: &'a Value, key: &str) -> &'a str {
    node[key]
        .as_str()
        .unwrap_or_else(|| panic!("node `{}` has no string field `{key}`", node["name"]))
}

pub fn children(node: &Value) -> &[Value] {
    node["children"].as_array().map_or(&[], Vec::as_slice)
}

pub fn roots(run: &Value) -> &[Value] {
    run["drg"].as_array().map_or(&[], Vec::as_slice)
}

/// Call `f(node, ancestors)` for every node of the run's DRG, parents first.
pub fn visit<'a>(run: &'a Value, f: &mut dyn FnMut(&'a Value, &[&'a Value])) {
    fn go<'a>(
        node: &'a Value,
        stack: &mut Vec<&'a Value>,
        f: &mut dyn FnMut(&'a Value, &[&'a Value]),
    ) {
        f(node, stack);
        stack.push(node);
        for c in children(node) {
            go(c, stack, f);
        }
        stack.pop();
    }
    let mut stack = Vec::new();
    for r in roots(run) {
        go(r, &mut stack, f);
    }
}

fn counts(node: &Value) -> Counts {
    Counts {
        calls: u64_field(node, "calls"),
        recursive: u64_field(node, "recursive_calls"),
    }
}

/// Total calls per region name, over every node of one of `kinds`.
pub fn totals_by_name(run: &Value, kinds: &[&str]) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    visit(run, &mut |n, _| {
        if kinds.contains(&str_field(n, "kind")) {
            *out.entry(str_field(n, "name").to_string()).or_default() += counts(n);
        }
    });
    out
}

/// Total calls per source position (`file`, `line`) of regions of `kind`.
pub fn totals_by_position(run: &Value, kind: &str) -> BTreeMap<(String, u64), Counts> {
    let mut out: BTreeMap<(String, u64), Counts> = BTreeMap::new();
    visit(run, &mut |n, _| {
        if str_field(n, "kind") == kind {
            let key = (str_field(n, "file").to_string(), u64_field(n, "line"));
            *out.entry(key).or_default() += counts(n);
        }
    });
    out
}

/// The DRG projected onto regions of `kinds` (e.g. procedures): other
/// nodes are removed and their children attached to the nearest kept
/// ancestor; nodes that end up with the same path ("main/f/g") are summed.
pub fn call_paths(run: &Value, kinds: &[&str]) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    visit(run, &mut |n, ancestors| {
        if !kinds.contains(&str_field(n, "kind")) {
            return;
        }
        let mut path: Vec<&str> = ancestors
            .iter()
            .filter(|a| kinds.contains(&str_field(a, "kind")))
            .map(|a| str_field(a, "name"))
            .collect();
        path.push(str_field(n, "name"));
        *out.entry(path.join("/")).or_default() += counts(n);
    });
    out
}

/// Problems with the numbers of every node: inclusive >= exclusive,
/// recursive calls <= calls, per-thread min <= mean <= max, and the sum of
/// exclusive times within the process's wall time (`wall_ns`, measured by
/// the caller around the process) and the run's own `wall_ns`.
pub fn time_problems(run: &Value, wall_ns: u64) -> Vec<String> {
    let mut problems = Vec::new();
    let mut exclusive_sum: u64 = 0;
    visit(run, &mut |n, _| {
        let name = n["name"].as_str().unwrap_or("?");
        let inc = n["inclusive_ns"].as_u64();
        let exc = n["exclusive_ns"].as_u64();
        match (inc, exc) {
            (Some(inc), Some(exc)) => {
                if exc > inc {
                    problems.push(format!("{name}: exclusive {exc} ns > inclusive {inc} ns"));
                }
                exclusive_sum = exclusive_sum.saturating_add(exc);
            }
            _ => problems.push(format!(
                "{name}: inclusive_ns/exclusive_ns missing or negative: {n}"
            )),
        }
        match (n["calls"].as_u64(), n["recursive_calls"].as_u64()) {
            (Some(c), Some(r)) if r <= c => {}
            _ => problems.push(format!(
                "{name}: calls {} / recursive_calls {} invalid",
                n["calls"], n["recursive_calls"]
            )),
        }
        let t = &n["threads"];
        match (
            t["count"].as_u64(),
            t["min_inclusive_ns"].as_f64(),
            t["mean_inclusive_ns"].as_f64(),
            t["max_inclusive_ns"].as_f64(),
        ) {
            (Some(c), Some(lo), Some(mean), Some(hi)) if c >= 1 && lo <= mean && mean <= hi => {}
            _ => problems.push(format!("{name}: bad `threads` statistics: {t}")),
        }
        if n["per_thread"].as_array().is_none_or(|a| a.is_empty()) {
            problems.push(format!("{name}: `per_thread` missing or empty"));
        }
    });
    if exclusive_sum > wall_ns {
        problems.push(format!(
            "exclusive times sum to {exclusive_sum} ns, more than the {wall_ns} ns wall time of the process \
             (all times too long at once points at the tick calibration: see clock.ticks_per_second in the profile)"
        ));
    }
    if let Some(run_wall) = run["wall_ns"].as_u64() {
        if exclusive_sum > run_wall {
            problems.push(format!(
                "exclusive times sum to {exclusive_sum} ns, more than the run's wall_ns {run_wall}"
            ));
        }
    }
    problems
}
