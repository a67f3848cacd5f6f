//! Ground truth for procedure call counts: the original program built with
//! gcc's `-finstrument-functions` and tests/e2e/support/count_hook.c, which
//! rebuilds the call graph with the runtime's folding rule for recursion.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::report::Counts;
use super::{cc, run_ok, workspace_root};

/// Flags for a ground-truth build: no optimisation (nothing inlined away)
/// and a fixed load address so `nm` names the recorded addresses.
pub const TRUTH_CFLAGS: &[&str] = &["-O0", "-g", "-finstrument-functions"];
pub const TRUTH_LDFLAGS: &[&str] = &["-no-pie"];

/// The counting hook as an object file, compiled once per test process.
pub fn hook_object() -> PathBuf {
    static HOOK: OnceLock<PathBuf> = OnceLock::new();
    HOOK.get_or_init(|| {
        let src = workspace_root().join("tests/e2e/support/count_hook.c");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        // Built under a private name and renamed, so test processes running
        // at the same time never link a half-written object.
        let tmp = dir.join(format!("count_hook.o.{}", std::process::id()));
        let obj = dir.join("count_hook.o");
        run_ok(
            Command::new(cc())
                .args(["-c", "-O2", "-Wall", "-Wextra", "-Werror"])
                .arg(&src)
                .arg("-o")
                .arg(&tmp),
        );
        std::fs::rename(&tmp, &obj)
            .unwrap_or_else(|e| panic!("rename {} -> {}: {e}", tmp.display(), obj.display()));
        obj
    })
    .clone()
}

/// The environment variable naming the hook's output file.
pub const COUNT_FILE_VAR: &str = "REGIO_COUNT_FILE";

/// Function names by address, from `nm` on a non-PIE binary.
pub fn symbols(binary: &Path) -> HashMap<u64, String> {
    let out = run_ok(Command::new("nm").arg("--defined-only").arg(binary));
    let mut map = HashMap::new();
    for line in out.stdout.lines() {
        let mut parts = line.split_whitespace();
        let (Some(addr), Some(kind), Some(name)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if !matches!(kind, "t" | "T" | "W" | "w") {
            continue;
        }
        if let Ok(a) = u64::from_str_radix(addr, 16) {
            map.entry(a).or_insert_with(|| name.to_string());
        }
    }
    map
}

/// The hook's call graph as paths of function names ("main/f/g") with
/// their calls and recursive calls.
pub fn read_call_paths(count_file: &Path, binary: &Path) -> BTreeMap<String, Counts> {
    let text = std::fs::read_to_string(count_file).unwrap_or_else(|e| {
        panic!(
            "ground-truth run wrote no counts to {}: {e}",
            count_file.display()
        )
    });
    let syms = symbols(binary);
    // (parent, name, counts) by node index; parents precede children.
    let mut nodes: Vec<(Option<usize>, String, Counts)> = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert!(f[0] != "lost", "count hook tables overflowed: {line}");
        let parse = |s: &str| -> i64 {
            s.parse()
                .unwrap_or_else(|e| panic!("bad count line `{line}`: {e}"))
        };
        assert_eq!(f.len(), 5, "bad count line `{line}`");
        let idx = parse(f[0]) as usize;
        assert_eq!(idx, nodes.len(), "count lines out of order");
        let parent = usize::try_from(parse(f[1])).ok();
        let addr = u64::from_str_radix(f[2], 16)
            .unwrap_or_else(|e| panic!("bad address in `{line}`: {e}"));
        let name = syms
            .get(&addr)
            .unwrap_or_else(|| panic!("no symbol at {addr:#x} in {}", binary.display()))
            .clone();
        let counts = Counts {
            calls: parse(f[3]) as u64,
            recursive: parse(f[4]) as u64,
        };
        nodes.push((parent, name, counts));
    }
    let mut paths: BTreeMap<String, Counts> = BTreeMap::new();
    for i in 0..nodes.len() {
        let mut names = Vec::new();
        let mut cur = Some(i);
        while let Some(c) = cur {
            names.push(nodes[c].1.as_str());
            cur = nodes[c].0;
        }
        names.reverse();
        *paths.entry(names.join("/")).or_default() += nodes[i].2;
    }
    paths
}

/// Remove a function that is not a region (e.g. `#pragma regio skip`) from
/// every path: its callees become callees of its caller.
pub fn splice(paths: &BTreeMap<String, Counts>, name: &str) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for (p, c) in paths {
        let parts: Vec<&str> = p.split('/').collect();
        if parts.last() == Some(&name) {
            continue; // the spliced function's own node
        }
        let kept: Vec<&str> = parts.into_iter().filter(|part| *part != name).collect();
        *out.entry(kept.join("/")).or_default() += *c;
    }
    out
}

/// Take away `calls` entries of the node at `path` that happened while
/// measurement was disabled; a node left without calls goes with its
/// subtree (everything under it ran while disabled too).
pub fn unrecorded(paths: &mut BTreeMap<String, Counts>, path: &str, calls: u64) {
    let known: Vec<String> = paths.keys().cloned().collect();
    let c = paths
        .get_mut(path)
        .unwrap_or_else(|| panic!("ground truth has no call path `{path}` (has {known:?})"));
    assert!(c.calls >= calls, "`{path}` has only {} calls", c.calls);
    c.calls -= calls;
    if c.calls == 0 {
        let prefix = format!("{path}/");
        paths.retain(|p, _| p != path && !p.starts_with(&prefix));
    }
}

/// Per-name totals of a path map.
pub fn totals(paths: &BTreeMap<String, Counts>) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for (p, c) in paths {
        let name = p.rsplit('/').next().unwrap_or(p);
        *out.entry(name.to_string()).or_default() += *c;
    }
    out
}
