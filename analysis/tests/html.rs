//! `instrument report --format html`: the page is read back with a small
//! tag scanner and every DRG node is compared with the JSON report of the
//! same run (figures, nesting, names), plus one insta snapshot
//! (tests/snapshots/) so reviewers see the page.

mod common;
mod fixtures;

use std::path::Path;

use common::{
    anonymize, named_run_dir, profile_text, run_dir, runs, tempdir, write_counted, write_idf, Proc,
    Thread,
};
use regio_analysis::render::json::{JsonNode, JsonReport, JsonRun};
use regio_analysis::{human_ns, load_run, merge, render, Format, Report};

fn report(dir: &Path) -> Report {
    merge(&load_run(dir, None).unwrap())
}

fn json_of(reports: &[Report]) -> JsonReport {
    serde_json::from_str(&render(reports, Format::Json)).unwrap()
}

// ---- a small scanner for the page ------------------------------------

#[derive(Debug)]
struct Tag<'a> {
    name: String,
    close: bool,
    attrs: &'a str,
    start: usize,
    end: usize,
}

/// Every tag in order; the bodies of `<script>` and `<style>` are skipped
/// (they are raw text), comments and the doctype too.
fn tags(html: &str) -> Vec<Tag<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = html[i..].find('<') {
        let s = i + off;
        let e = s + html[s..].find('>').expect("a `<` without `>`");
        let inner = &html[s + 1..e];
        i = e + 1;
        if inner.starts_with('!') {
            continue;
        }
        let close = inner.starts_with('/');
        let body = inner.trim_start_matches('/');
        let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
        let name = body[..name_end].to_ascii_lowercase();
        if !close && (name == "script" || name == "style") {
            let end_tag = format!("</{name}>");
            i += html[i..]
                .find(&end_tag)
                .expect("raw text element not closed");
        }
        out.push(Tag {
            name,
            close,
            attrs: &body[name_end..],
            start: s,
            end: e + 1,
        });
    }
    out
}

fn attr<'a>(t: &Tag<'a>, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = t.attrs.find(&key)? + key.len();
    let len = t.attrs[at..].find('"')?;
    Some(&t.attrs[at..at + len])
}

fn has_attr(t: &Tag<'_>, name: &str) -> bool {
    t.attrs.split_whitespace().any(|a| a == name)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in s.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    unescape(&out)
}

/// Elements nest properly, and outside tags, scripts and styles every `>`
/// and `&` is escaped: what user strings could break.
fn assert_well_formed(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>\n"));
    let tags = tags(html);
    let mut stack: Vec<&str> = Vec::new();
    for t in &tags {
        if t.name == "meta" {
            continue;
        }
        // <summary> holds phrasing content (and headings) only.
        if stack.last() == Some(&"summary") && !t.close {
            assert!(
                ["span", "h2"].contains(&t.name.as_str()),
                "<{}> in <summary> at {}",
                t.name,
                t.start
            );
        }
        if t.close {
            assert_eq!(
                stack.pop(),
                Some(t.name.as_str()),
                "closing tag at {}",
                t.start
            );
        } else {
            stack.push(&t.name);
        }
    }
    assert!(stack.is_empty(), "left open: {stack:?}");
    // Text between tags, and attribute values.
    let mut pieces: Vec<&str> = tags.iter().map(|t| t.attrs).collect();
    for w in tags.windows(2) {
        if !(w[0].name == "script" || w[0].name == "style") || w[0].close {
            pieces.push(&html[w[0].end..w[1].start]);
        }
    }
    for p in pieces {
        assert!(!p.contains('>'), "raw `>` in {p:?}");
        let mut rest = p;
        while let Some(a) = rest.find('&') {
            rest = &rest[a..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|e| rest.starts_with(e)),
                "bare `&` in {p:?}"
            );
            rest = &rest[1..];
        }
    }
}

/// What the page shows for one DRG node.
#[derive(Debug)]
struct Shown {
    /// 1 for a root.
    depth: usize,
    region: u32,
    calls: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
    open: bool,
    leaf: bool,
    name: String,
    kind: String,
    location: String,
    calls_text: String,
    times: Vec<String>,
    counters: Vec<String>,
    percent: String,
    extras: Vec<String>,
}

/// Text of every `<span class="{class}" ...>` in `s` (no nested spans).
fn spans(s: &str, class: &str) -> Vec<String> {
    let key = format!("<span class=\"{class}\"");
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(a) = rest.find(&key) {
        rest = &rest[a..];
        let open_end = rest.find('>').unwrap() + 1;
        let close = rest[open_end..].find('<').unwrap();
        out.push(unescape(&rest[open_end..open_end + close]));
        rest = &rest[open_end..];
    }
    out
}

/// The DRG nodes of the `run`-th run, in document order, with their
/// depth in nested node `<details>`.
fn shown_nodes(html: &str, run: usize) -> Vec<Shown> {
    let start = html
        .find(&format!("<section class=\"run\" id=\"run-{run}\">"))
        .expect("no such run");
    let end = start + html[start..].find("</section>").unwrap();
    let section = &html[start..end];
    let mut out = Vec::new();
    let mut stack: Vec<bool> = Vec::new(); // open <details>: is it a DRG node?
    for t in tags(section).iter().filter(|t| t.name == "details") {
        if t.close {
            stack.pop();
            continue;
        }
        let class = attr(t, "class").unwrap_or("");
        let is_node = class == "node" || class == "leaf";
        stack.push(is_node);
        if !is_node {
            continue;
        }
        let summary_end = t.end + section[t.end..].find("</summary>").unwrap();
        let summary = &section[t.end..summary_end];
        let row_end = summary
            .find("<span class=\"extra\">")
            .unwrap_or(summary.len());
        let pct_at = summary.find("<span class=\"pct\"").unwrap();
        let num = |k: &str| attr(t, k).unwrap().parse::<u64>().unwrap();
        out.push(Shown {
            depth: stack.iter().filter(|n| **n).count(),
            region: num("data-region") as u32,
            calls: num("data-calls"),
            inclusive_ns: num("data-inclusive-ns"),
            exclusive_ns: num("data-exclusive-ns"),
            open: has_attr(t, "open"),
            leaf: class == "leaf",
            name: spans(summary, "name").concat(),
            kind: spans(summary, "kind").concat(),
            location: spans(summary, "loc").concat(),
            calls_text: spans(summary, "calls").concat(),
            times: spans(summary, "t"),
            counters: spans(summary, "ctr"),
            percent: strip_tags(&summary[pct_at..row_end]),
            extras: summary[row_end..]
                .split("<span class=\"extra\">")
                .skip(1)
                .map(strip_tags)
                .collect(),
        });
    }
    out
}

/// JSON nodes in document order with their depth (1 for a root).
fn json_nodes(run: &JsonRun) -> Vec<(usize, &JsonNode)> {
    fn go<'a>(n: &'a JsonNode, depth: usize, out: &mut Vec<(usize, &'a JsonNode)>) {
        out.push((depth, n));
        for c in &n.children {
            go(c, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    for n in &run.drg {
        go(n, 1, &mut out);
    }
    out
}

/// Every node of every run against the JSON report: same order, nesting,
/// names and figures; human units as `human_ns` writes them; the
/// unfolding rule; the spread across threads and ranks.
fn assert_matches_json(html: &str, reports: &[Report]) {
    assert_well_formed(html);
    let json = json_of(reports);
    for (i, run) in json.runs.iter().enumerate() {
        let shown = shown_nodes(html, i);
        let want = json_nodes(run);
        assert_eq!(shown.len(), want.len(), "run {i}: one <details> per node");
        let max_depth = want.iter().map(|w| w.0).max().unwrap_or(0);
        assert_eq!(
            shown.iter().map(|s| s.depth).max().unwrap_or(0),
            max_depth,
            "nesting depth of <details> is the DRG depth"
        );
        for (s, (depth, n)) in shown.iter().zip(&want) {
            let at = format!("run {i} node {} ({})", n.name, n.region);
            assert_eq!(s.depth, *depth, "{at}");
            assert_eq!(
                (s.region, s.calls, s.inclusive_ns, s.exclusive_ns),
                (n.region, n.calls, n.inclusive_ns, n.exclusive_ns),
                "{at}"
            );
            assert_eq!((&s.name, &s.kind), (&n.name, &n.kind), "{at}");
            let location = match (&n.file, n.line) {
                (Some(f), Some(l)) => format!("{f}:{l}"),
                (Some(f), None) => f.clone(),
                _ => String::new(),
            };
            assert_eq!(s.location, location, "{at}");
            let mut calls = n.calls.to_string();
            if n.recursive_calls > 0 {
                calls += &format!(" ({} recursive)", n.recursive_calls);
            }
            assert_eq!(s.calls_text, calls, "{at}");
            assert_eq!(
                s.times,
                [human_ns(n.inclusive_ns), human_ns(n.exclusive_ns)],
                "{at}"
            );
            let pct = if run.wall_ns == 0 {
                0.0
            } else {
                n.inclusive_ns as f64 * 100.0 / run.wall_ns as f64
            };
            assert_eq!(s.percent, format!("{pct:.1}%"), "{at}");
            assert_eq!(s.leaf, n.children.is_empty(), "{at}");
            assert_eq!(s.open, !s.leaf && pct >= 1.0, "{at}: unfolded above 1%");
            let t = &n.threads;
            let threads_line = s.extras.iter().find(|e| e.starts_with("threads "));
            if t.count > 1 {
                let line = threads_line.unwrap_or_else(|| panic!("{at}: no thread spread"));
                assert!(
                    line.starts_with(&format!(
                        "threads {}: min / mean / max inclusive {} / {} / {} (max: ",
                        t.count,
                        human_ns(t.min_inclusive_ns),
                        human_ns(t.mean_inclusive_ns),
                        human_ns(t.max_inclusive_ns)
                    )),
                    "{at}: {line}"
                );
                assert!(
                    line.contains(&format!("thread {})", t.max_thread)),
                    "{line}"
                );
            } else {
                assert!(threads_line.is_none(), "{at}");
            }
            let ranks_line = s.extras.iter().find(|e| e.starts_with("ranks "));
            if run.processes > 1 && n.ranks.count > 1 {
                let r = &n.ranks;
                assert_eq!(
                    ranks_line.map(String::as_str),
                    Some(
                        format!(
                            "ranks {}: min / mean / max inclusive {} / {} / {} (max: rank {})",
                            r.count,
                            human_ns(r.min_inclusive_ns),
                            human_ns(r.mean_inclusive_ns),
                            human_ns(r.max_inclusive_ns),
                            r.max_rank
                        )
                        .as_str()
                    ),
                    "{at}"
                );
            } else {
                assert!(ranks_line.is_none(), "{at}");
            }
            let open_line = s.extras.iter().find(|e| e.ends_with("still open"));
            assert_eq!(
                open_line.cloned(),
                (n.open > 0).then(|| format!("{} frame(s) still open", n.open)),
                "{at}"
            );
        }
        // Each name appears once per node that has it.
        for (_, n) in &want {
            let same = want.iter().filter(|(_, m)| m.name == n.name).count();
            let section_start = html.find(&format!("id=\"run-{i}\"")).expect("run section");
            let section = &html[section_start..];
            let section = &section[..section.find("</section>").unwrap()];
            let escaped = n
                .name
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;");
            assert_eq!(
                section
                    .matches(&format!("<span class=\"name\">{escaped}</span>"))
                    .count(),
                same,
                "name {}",
                n.name
            );
        }
    }
}

/// The value of a header row (`<th>label</th><td>value</td>`), unescaped.
fn header_value(html: &str, label: &str) -> String {
    let key = format!("<tr><th>{label}</th><td");
    let at = html.find(&key).unwrap_or_else(|| panic!("no {label} row")) + key.len();
    let start = at + html[at..].find('>').unwrap() + 1;
    let end = start + html[start..].find("</td>").unwrap();
    unescape(&html[start..end])
}

/// The value of a `label: value` line of the text report.
fn text_value(text: &str, label: &str) -> String {
    let key = format!("{label}:");
    let line = text
        .lines()
        .find(|l| l.starts_with(&key))
        .unwrap_or_else(|| panic!("no {label} line in {text}"));
    line[key.len()..].trim_start().to_string()
}

// ---- the runs --------------------------------------------------------

#[test]
fn multithreaded_run_matches_json() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::threads_run(&dir);
    let r = [report(&dir)];
    let html = render(&r, Format::Html);
    assert_matches_json(&html, &r);
    let nodes = shown_nodes(&html, 0);
    // worker: threads 1 and 2, 700 µs and 900 µs; the max on thread 2.
    let worker = nodes.iter().find(|n| n.name == "worker").unwrap();
    assert_eq!(
        worker.extras,
        ["threads 2: min / mean / max inclusive 700 µs / 800 µs / 900 µs (max: rank 0 thread 2)"]
    );
    assert_eq!(header_value(&html, "threads"), "3");
    assert_eq!(header_value(&html, "processes"), "1");
    assert_eq!(header_value(&html, "clock"), "tsc");
    assert_eq!(header_value(&html, "command"), "./prog --n 3");
    assert_eq!(
        header_value(&html, "wall time"),
        "1.20 ms (longest process)"
    );
    assert_eq!(header_value(&html, "status"), "complete (exit)");
    assert!(!html.contains("per rank: time in MPI"), "no MPI regions");
}

#[test]
fn two_processes_with_recursion_match_json() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::procs_run(&dir);
    let r = [report(&dir)];
    let html = render(&r, Format::Html);
    assert_matches_json(&html, &r);
    let nodes = shown_nodes(&html, 0);
    let names: Vec<(usize, &str, &str)> = nodes
        .iter()
        .map(|n| (n.depth, n.name.as_str(), n.location.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            (1, "main", "a.c:1"),
            (2, "fib", "a.c:42"),
            (3, "helper", "a.c:62"),
            (2, "fib", "b.c:3"),
            (2, "MPI_Allreduce", "a.c:30"),
        ]
    );
    assert_eq!(nodes[1].calls_text, "40 (38 recursive)");
    assert_eq!(
        nodes[0].extras[1],
        "ranks 2: min / mean / max inclusive 2.00 ms / 2.20 ms / 2.40 ms (max: rank 1)"
    );
    // The per-process table and the MPI summary, one row per rank.
    assert_eq!(
        table_rows(&html, "<details class=\"processes\" open>"),
        [
            ["0", "200", "node1", "1", "2.00 ms", "complete (exit)"],
            ["1", "201", "node1", "1", "2.50 ms", "complete (exit)"],
        ]
    );
    assert_eq!(
        table_rows(&html, "per rank: time in MPI calls"),
        [
            ["0", "200", "2.00 ms", "0 ns", "2.00 ms", "0.0%"],
            ["1", "201", "2.50 ms", "0 ns", "2.50 ms", "0.0%"],
        ]
    );
}

/// The cells of the rows of the first table after `marker`, header row
/// left out.
fn table_rows(html: &str, marker: &str) -> Vec<Vec<String>> {
    let at = html.find(marker).unwrap_or_else(|| panic!("no {marker}"));
    let table = &html[at..];
    let table = &table[..table.find("</table>").unwrap()];
    table
        .split("<tr>")
        .skip(2)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| strip_tags(&format!("<td{cell}")).trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn incomplete_run_is_marked_like_the_text_report() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::signal_run(tmp.path(), &dir);
    let r = [report(&dir)];
    let html = render(&r, Format::Html);
    assert_matches_json(&html, &r);
    let text = render(&r, Format::Text);
    let status = header_value(&html, "status");
    assert_eq!(status, text_value(&text, "status"));
    assert!(status.starts_with("INCOMPLETE: killed by signal 11 (SIGSEGV) in rank 0 pid 300"));
    assert!(html.contains("<tr><th>status</th><td class=\"bad\">INCOMPLETE"));
    assert_eq!(html.matches("1 frame(s) still open").count(), 2);
    assert!(html.contains("<td class=\"bad\">INCOMPLETE: killed by signal 11 (SIGSEGV)</td>"));
    assert_eq!(header_value(&html, "regions"), text_value(&text, "regions"));
}

#[test]
fn status_of_a_flushed_process_among_two_agrees_with_text() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let one = |rank: u32, pid: u32, complete: bool| {
        let mut p = Proc::new(
            rank,
            pid,
            100,
            vec![Thread {
                thread: 0,
                nodes: vec![(0, None, 1, 1, 0, 90, 90, 90, 90, u32::from(!complete))],
            }],
        );
        p.size = 2;
        if !complete {
            p.complete = false;
            p.reason = "flush";
        }
        p
    };
    common::write_profile(&dir, &one(0, 10, true));
    common::write_profile(&dir, &one(1, 11, false));
    let r = [report(&dir)];
    let html = render(&r, Format::Html);
    assert_matches_json(&html, &r);
    let status = header_value(&html, "status");
    assert_eq!(status, text_value(&render(&r, Format::Text), "status"));
    assert!(status.contains("(1 of 2 processes incomplete)"), "{status}");
    // Undescribed region: the text report's warning, escaped into the page.
    let warning = header_value(&html, "warning");
    assert!(
        warning.starts_with("1 region(s) without description"),
        "{warning}"
    );
}

/// A run directory, command and region names that all carry markup.
fn hostile_run(dir: &Path) {
    write_idf(
        &dir.join("regio.idf.json"),
        &[
            (1, "function", "main", "x.c", 1, 13, None),
            (
                2,
                "user",
                "<script>alert(\\\"x\\\")</script>",
                "x.c",
                3,
                8,
                Some(1),
            ),
            (3, "loop", "for (i = 0; i < n; i++)", "x.c", 10, 12, Some(1)),
            (4, "user", "a & 'b' > c", "<x>.c", 13, 14, None),
            (5, "function", "tiny", "x.c", 15, 20, None),
            (6, "function", "tinier", "x.c", 17, 18, Some(5)),
        ],
    );
    let p = Proc::new(
        0,
        9,
        100_000,
        vec![Thread {
            thread: 0,
            nodes: vec![
                (0, None, 1, 1, 0, 99_000, 9_000, 99_000, 99_000, 0),
                (1, Some(0), 2, 1, 0, 60_000, 60_000, 60_000, 60_000, 0),
                (2, Some(0), 3, 1, 0, 30_000, 20_000, 30_000, 30_000, 0),
                (3, Some(2), 4, 1, 0, 10_000, 10_000, 10_000, 10_000, 0),
                // Below 1% of the wall time: starts folded.
                (4, None, 5, 1, 0, 900, 800, 900, 900, 0),
                (5, Some(4), 6, 1, 0, 100, 100, 100, 100, 0),
            ],
        }],
    );
    let text = profile_text(&p).replace("\"--n\"", "\"--name=<b>&amp;</b>\"");
    std::fs::write(dir.join("profile-r0-p9.json"), text).unwrap();
}

#[test]
fn every_string_is_escaped() {
    let tmp = tempdir();
    let dir = named_run_dir(tmp.path(), "run<i>&\"'");
    hostile_run(&dir);
    let r = [report(&dir)];
    let html = render(&r, Format::Html);
    assert_matches_json(&html, &r);
    // Only the page's own script element.
    assert_eq!(html.matches("<script>").count(), 1);
    assert_eq!(html.matches("</script>").count(), 1);
    assert!(html
        .contains("<span class=\"name\">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</span>"));
    assert!(!html.contains("<i>") && !html.contains("<b>"));
    let names: Vec<String> = shown_nodes(&html, 0).into_iter().map(|n| n.name).collect();
    assert_eq!(
        names,
        [
            "main",
            "<script>alert(\"x\")</script>",
            "for (i = 0; i < n; i++)",
            "a & 'b' > c",
            "tiny",
            "tinier"
        ]
    );
    assert_eq!(
        header_value(&html, "command"),
        "./prog --name=<b>&amp;</b> 3"
    );
    assert!(html.contains("<h1>run: "));
    assert!(html.contains("run&lt;i&gt;&amp;&quot;&#39;</h1>"));
    assert!(html.contains("<span class=\"loc\">&lt;x&gt;.c:13</span>"));
    // `tiny` (0.9%) starts folded, `for` (30%) unfolded.
    let nodes = shown_nodes(&html, 0);
    assert!(nodes.iter().any(|n| n.name == "tiny" && !n.open && !n.leaf));
    assert!(nodes.iter().any(|n| n.name.starts_with("for ") && n.open));
}

#[test]
fn two_runs_get_one_section_each() {
    let tmp = tempdir();
    let dirs = runs(tmp.path(), &["threads", "procs"]);
    fixtures::threads_run(&dirs[0]);
    fixtures::procs_run(&dirs[1]);
    let r = [report(&dirs[0]), report(&dirs[1])];
    let html = render(&r, Format::Html);
    assert_matches_json(&html, &r);
    assert_eq!(html.matches("<section class=\"run\"").count(), 2);
    assert_eq!(html.matches("<html").count(), 1);
    let title = anonymize(&html, tmp.path());
    assert!(title.contains("<title>Regio report: RUN/threads, RUN/procs</title>"));
}

#[test]
fn counters_get_a_column_each() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    let p = Proc::new(
        0,
        1,
        10_000,
        vec![Thread {
            thread: 0,
            nodes: vec![
                (0, None, 1, 1, 0, 9_000, 4_000, 9_000, 9_000, 0),
                (1, Some(0), 2, 1, 0, 5_000, 5_000, 5_000, 5_000, 0),
            ],
        }],
    );
    write_idf(
        &dir.join("regio.idf.json"),
        &[
            (1, "function", "main", "m.c", 1, 9, None),
            (2, "loop", "for i", "m.c", 3, 5, Some(1)),
        ],
    );
    write_counted(
        &dir,
        &p,
        &[
            ("task-clock", true, None),
            ("instructions", false, Some("no <PMU>")),
            ("page-faults", true, None),
        ],
        &[(0, 0, vec![8_500, 1_234_567])],
    );
    let r = [report(&dir)];
    let html = render(&r, Format::Html);
    assert_matches_json(&html, &r);
    let text = render(&r, Format::Text);
    assert_eq!(
        header_value(&html, "counters"),
        text_value(&text, "counters")
    );
    assert!(html.contains("unavailable: instructions (no &lt;PMU&gt;)"));
    assert!(html
        .contains("<span class=\"ctr\">task-clock</span><span class=\"ctr\">page-faults</span>"));
    let nodes = shown_nodes(&html, 0);
    // Clock counters in time units, others with k/M/G like the text report;
    // `-` where the node counted nothing.
    assert_eq!(nodes[0].counters, ["8.50 µs", "1.23M"]);
    assert_eq!(nodes[1].counters, ["-", "-"]);
    let row = text.lines().find(|l| l.starts_with("main")).unwrap();
    assert!(row.contains("8.50 µs") && row.contains("1.23M"), "{row}");
}

#[test]
fn empty_run_says_so() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::empty_run(&dir);
    let html = render(&[report(&dir)], Format::Html);
    assert_well_formed(&html);
    assert!(html.contains("<p>(no regions were measured)</p>"));
    assert!(!html.contains("<details class=\"node"));
}

#[test]
fn html_of_two_processes_with_recursion() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    fixtures::procs_run(&dir);
    insta::assert_snapshot!(anonymize(&render(&[report(&dir)], Format::Html), &dir));
}
