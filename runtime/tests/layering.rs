//! The runtime's modules form layers: a module uses only modules below it,
//! so no two modules know each other and the probe path's modules never
//! reach the writer, the configuration or the process lifecycle.
//!
//! This test reads `src/`, finds every path through `crate::` (imports and
//! paths in code alike, `crate::{a, b::c}` groups included) and every
//! top-level `super::`, resolves each to the module it names, and checks
//! the arrows against `LAYERS`. It fails on a cycle among any modules and
//! on an arrow that points up the order among the listed ones.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The runtime's modules from the bottom up: each may use only modules
/// listed before it. `crate` is the crate root (`lib.rs`), which only
/// declares modules and re-exports the API.
const LAYERS: &[&str] = &[
    // System calls, text output, the clock.
    "sys",
    "altstack",
    "out",
    "clock",
    "ticks",
    // What probes refer to: registered IDF paths, Rust descriptors, symbols.
    "idf",
    "region",
    "dynsym",
    // The IDF base of a Fortran lock test, per caller frame.
    "lock_base",
    // Which regions and events are recorded (REGIO_EVENTS, REGIO_FILTER).
    "select",
    // Which hot, brief regions stop being recorded (REGIO_THROTTLE).
    "throttle",
    // One thread's measurements: nodes, frames, counters, team data.
    "node",
    "childmap",
    "frames",
    "counters::events",
    "counters::perf",
    "counters",
    // User event names, a thread's trace buffer and its file (REGIO_MODE=trace).
    "user_events",
    "trace",
    "omp::team",
    // The probe logic on a thread's state, and the threads of the process.
    "thread",
    "omp",
    "registry",
    "training",
    "fork",
    // MPI: the library's ABI, the communication record, ranks, requests.
    "mpi::pmpi",
    "mpi::stats",
    "mpi::world",
    "mpi::requests",
    "mpi::comms",
    "mpi::events",
    // Configuration, writing, and the hooks that write.
    "config",
    "mpi::sync",
    "mpi::write",
    "mpi",
    "profile",
    "signals",
    "peers",
    // REGIO_SNAPSHOT: the thread that writes the profile while the program runs.
    "snapshot",
    "lifecycle",
    "mpi::probes",
    // The entry points.
    "api",
    "future",
    "teams",
    "ffi",
    "crate",
];

/// An arrow `from` uses `to`.
type Edges = BTreeMap<String, BTreeSet<String>>;

/// Module path of a source file relative to `src/` (`a/b.rs` -> `a::b`,
/// `a/mod.rs` -> `a`, `lib.rs` -> `crate`).
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.strip_suffix(".rs").unwrap_or(&file).to_string();
    if stem != "mod" && !(parts.is_empty() && stem == "lib") {
        parts.push(stem);
    }
    if parts.is_empty() {
        "crate".to_string()
    } else {
        parts.join("::")
    }
}

fn read_sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            read_sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((module_of(rel), text));
        }
    }
}

/// The text without `//` comments (doc comments mention paths too).
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Reads the path list after `crate::` or `super::` at `s`: `a::b::C`
/// gives one path, `{a::X, b::{c, d}}` one per leaf.
fn parse_tree(s: &str) -> Vec<Vec<String>> {
    fn tree(s: &[char], i: &mut usize) -> Vec<Vec<String>> {
        let skip_ws = |i: &mut usize| {
            while *i < s.len() && s[*i].is_whitespace() {
                *i += 1;
            }
        };
        skip_ws(i);
        if *i < s.len() && s[*i] == '{' {
            *i += 1;
            let mut all = Vec::new();
            loop {
                skip_ws(i);
                if *i >= s.len() {
                    return all;
                }
                if s[*i] == '}' {
                    *i += 1;
                    return all;
                }
                if s[*i] == ',' {
                    *i += 1;
                    continue;
                }
                let before = *i;
                all.extend(tree(s, i));
                if *i == before {
                    *i += 1; // not a path (`*`, `self as x`): step over it
                }
            }
        }
        let start = *i;
        while *i < s.len() && is_ident(s[*i]) {
            *i += 1;
        }
        if *i == start {
            return Vec::new();
        }
        let head: String = s[start..*i].iter().collect();
        if s.get(*i) == Some(&':') && s.get(*i + 1) == Some(&':') {
            *i += 2;
            let rest = tree(s, i);
            if rest.is_empty() {
                return vec![vec![head]];
            }
            return rest
                .into_iter()
                .map(|mut p| {
                    p.insert(0, head.clone());
                    p
                })
                .collect();
        }
        vec![vec![head]]
    }
    let chars: Vec<char> = s.chars().collect();
    tree(&chars, &mut 0)
}

/// The longest prefix of `path` that is a module, or `crate` (an item of
/// the root).
fn resolve(path: &[String], modules: &BTreeSet<String>) -> String {
    for n in (1..=path.len()).rev() {
        let m = path[..n].join("::");
        if modules.contains(&m) {
            return m;
        }
    }
    "crate".to_string()
}

/// The modules `text` (the source of module `me`) uses.
fn uses(me: &str, text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let text = strip_comments(text);
    let mut found = BTreeSet::new();
    // Inline modules (`mod tests { ... }`) open at a brace depth: a
    // `super::` inside one names the file's own module.
    let mut depth = 0usize;
    let mut inline_at: Vec<usize> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let prev = text[..i].chars().next_back();
        let word_start = !prev.is_some_and(|c| is_ident(c) || c == '$' || c == ':');
        if word_start && rest.starts_with("mod ") {
            let after = rest[4..].trim_start();
            let name_len = after.find(|c: char| !is_ident(c)).unwrap_or(after.len());
            if after[name_len..].trim_start().starts_with('{') {
                inline_at.push(depth + 1);
            }
        }
        for (prefix, is_super) in [("crate::", false), ("super::", true)] {
            if word_start && rest.starts_with(prefix) {
                for path in parse_tree(&rest[prefix.len()..]) {
                    let target = if is_super {
                        if !inline_at.is_empty() {
                            continue; // `super` of an inline module: this file
                        }
                        let mut base: Vec<String> = if me == "crate" {
                            Vec::new()
                        } else {
                            me.split("::").map(str::to_string).collect()
                        };
                        base.pop();
                        base.extend(path);
                        resolve(&base, modules)
                    } else {
                        resolve(&path, modules)
                    };
                    if target != me {
                        found.insert(target);
                    }
                }
            }
        }
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                if inline_at.last() == Some(&depth) {
                    inline_at.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    found
}

fn edges(sources: &[(String, String)]) -> Edges {
    let mut modules: BTreeSet<String> = sources.iter().map(|(m, _)| m.clone()).collect();
    modules.remove("crate");
    sources
        .iter()
        .map(|(m, text)| (m.clone(), uses(m, text, &modules)))
        .collect()
}

/// A cycle of arrows, if there is one (first module repeated at the end).
fn find_cycle(edges: &Edges) -> Option<Vec<String>> {
    // 0 unvisited, 1 on the current path, 2 done.
    fn visit(
        m: &str,
        edges: &Edges,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| p == next).unwrap_or(0);
                    let mut cycle = path[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, edges, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(m, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// Arrows that point up the layer order (`from` uses `to` listed after it).
fn upward(edges: &Edges, layers: &[&str]) -> Vec<String> {
    let rank = |m: &str| layers.iter().position(|l| *l == m);
    let mut bad = Vec::new();
    for (from, tos) in edges {
        for to in tos {
            if let (Some(f), Some(t)) = (rank(from), rank(to)) {
                if t >= f {
                    bad.push(format!("{from} uses {to}, which is not below it"));
                }
            }
        }
    }
    bad
}

#[test]
fn runtime_modules_use_only_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    read_sources(&root, &root, &mut sources);
    let edges = edges(&sources);
    // Sanity: the reader sees the arrows we know are there.
    assert!(edges["thread"].contains("node"), "{:?}", edges["thread"]);
    assert!(edges["counters::perf"].contains("counters::events"));
    assert!(edges["ffi"].contains("api"));

    if let Some(cycle) = find_cycle(&edges) {
        panic!("runtime modules use each other: {}", cycle.join(" -> "));
    }
    let bad = upward(&edges, LAYERS);
    assert!(
        bad.is_empty(),
        "arrows up the layer order:\n{}",
        bad.join("\n")
    );
    let unlisted: Vec<&String> = edges
        .keys()
        .filter(|m| !LAYERS.contains(&m.as_str()))
        .collect();
    if !unlisted.is_empty() {
        // Checked for cycles only until they are given a layer.
        eprintln!("modules not in LAYERS (add them): {unlisted:?}");
    }
}

#[test]
fn the_check_sees_cycles_and_upward_arrows() {
    let src = |m: &str, t: &str| (m.to_string(), t.to_string());
    let sources = vec![
        src("crate", "mod a; mod b; mod c; pub use a::*;"),
        src("a", "use crate::b::{self, X};\nfn f() { crate::c::g(); }"),
        src(
            "b",
            "// crate::a::not_an_arrow()\nmod tests { use super::*; use crate::c; }",
        ),
        src("c", "pub fn g() { crate::a::f(); }"),
        src("d", "use crate::{b, c::{self as k}};"),
        src("d::e", "use super::Item; use crate::c; use crate::Root;"),
    ];
    let e = edges(&sources);
    assert_eq!(e["a"], BTreeSet::from(["b".into(), "c".into()]));
    assert_eq!(e["b"], BTreeSet::from(["c".into()]));
    assert_eq!(e["d"], BTreeSet::from(["b".into(), "c".into()]));
    assert_eq!(
        e["d::e"],
        BTreeSet::from(["d".into(), "c".into(), "crate".into()])
    );
    let cycle = find_cycle(&e).expect("a -> c -> a");
    assert_eq!(cycle.first(), cycle.last());
    assert!(cycle.contains(&"a".to_string()) && cycle.contains(&"c".to_string()));
    assert_eq!(
        upward(&e, &["c", "b", "a"]),
        vec!["c uses a, which is not below it".to_string()]
    );
    assert!(upward(&e, &["a", "b", "c"]).len() == 3, "a->b, a->c, b->c");
}
