//! One self-contained HTML page for a browser: per run a header, a process
//! table, the DRG as a tree of `<details>` and the MPI summary. Nothing is
//! fetched: the CSS and the few lines of script are inline. It shows what
//! the text report shows; exact figures ride along in `data-*` and `title`
//! attributes so a reader (or a test) can compare them with the JSON report.

use std::fmt::Write as _;

use super::sink::Sink;
use super::DEEP;
use crate::merge::{visit, Node, ProcessSummary, Report, Visit};
use crate::units::{human_ns, percent};
use crate::user_events::value_text;

use super::words::{
    by_rank, calls, counter_columns, counter_list, counter_value, mpi_percent, region_source,
    slowest_thread, status, why_incomplete, COUNTERS_NOTE,
};

/// Nodes with at least this share of the wall time start unfolded, so the
/// page opens on the expensive part of the tree without drowning in leaves.
const OPEN_PERCENT: f64 = 1.0;

/// Above this many processes their table starts folded.
const LIST_PROCESSES: usize = 8;

const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em 2em; color: #1d1d1d; background: #fff; }
h1 { font-size: 1.3em; margin: 1.2em 0 0.4em; word-break: break-all; }
h2 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
section.run { border-top: 2px solid #999; padding-top: 0.2em; }
table { border-collapse: collapse; }
th, td { padding: 1px 10px 1px 0; text-align: left; vertical-align: top; }
table.kv th { color: #555; font-weight: 600; white-space: nowrap; }
table.grid th, table.grid td { border-bottom: 1px solid #e3e3e3; padding-right: 14px; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bad { color: #b00020; font-weight: 600; }
.warning { color: #8a5a00; }
.note { color: #555; font-size: 0.9em; }
.drg { font-variant-numeric: tabular-nums; }
.drg details { margin-left: 1.3em; }
.drg > details { margin-left: 0; }
.drg summary { list-style: none; cursor: pointer; }
.drg summary::-webkit-details-marker { display: none; }
details.leaf > summary { cursor: default; }
.row { display: flex; align-items: baseline; gap: 0.6em; padding: 1px 0; }
.row:hover { background: #f2f5fa; }
.cols { font-weight: 600; color: #555; border-bottom: 1px solid #ccc; }
.tw { width: 1em; flex: none; color: #666; }
details.node > summary .tw::before { content: "\25B8"; }
details.node[open] > summary .tw::before { content: "\25BE"; }
details.leaf > summary .tw::before { content: ""; }
.name { flex: 1 1 auto; min-width: 8em; font-weight: 600; word-break: break-word; }
.kind { flex: none; width: 12em; color: #555; overflow-wrap: anywhere; }
.loc { flex: none; width: 10em; color: #555; word-break: break-all; }
.calls { flex: none; width: 10em; text-align: right; }
.t { flex: none; width: 5.5em; text-align: right; }
.ctr { flex: none; width: 6.5em; text-align: right; }
.pct { flex: none; width: 9.5em; display: flex; align-items: center; gap: 0.4em; justify-content: flex-end; }
.bar { display: inline-block; width: 4em; height: 0.7em; background: #e8e8e8; }
.bar > span { display: block; height: 100%; background: #4a7bd0; }
.bar.over > span { background: #c9742a; }
.extra { display: block; margin-left: 1.6em; color: #555; font-size: 0.9em; }
.open-frames { color: #b00020; }
"#;

/// Unfold or fold the whole tree; the page works without it.
const SCRIPT: &str = r#"
function regioFold(open) {
  document.querySelectorAll('details.node').forEach(function (d) { d.open = open; });
}
"#;

/// The page for `reports`, into `out`.
pub(super) fn write(reports: &[Report], out: &mut Sink<'_>) -> std::io::Result<()> {
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let dirs: Vec<String> = reports
        .iter()
        .map(|r| r.run_dir.display().to_string())
        .collect();
    let _ = writeln!(
        out,
        "<title>Regio report: {}</title>",
        escape(&dirs.join(", "))
    );
    let _ = writeln!(out, "<style>{STYLE}</style>");
    let _ = writeln!(out, "<script>{SCRIPT}</script>");
    out.push_str("</head>\n<body>\n");
    for (i, r) in reports.iter().enumerate() {
        run(out, r, i);
    }
    out.push_str("</body>\n</html>\n");
    // Write errors are the sink's: `Sink::finish` returns them.
    Ok(())
}

fn run(out: &mut Sink<'_>, r: &Report, index: usize) {
    let _ = writeln!(out, "<section class=\"run\" id=\"run-{index}\">");
    let _ = writeln!(
        out,
        "<h1>run: {}</h1>",
        escape(&r.run_dir.display().to_string())
    );
    header(out, r);
    processes(out, r);
    drg(out, r);
    mpi(out, r);
    user_events(out, r);
    out.push_str("</section>\n");
}

fn header(out: &mut Sink<'_>, r: &Report) {
    out.push_str("<table class=\"kv\">\n");
    let mut line = |label: &str, class: &str, value: &str| {
        let class = if class.is_empty() {
            String::new()
        } else {
            format!(" class=\"{class}\"")
        };
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td{class}>{}</td></tr>",
            escape(label),
            escape(value)
        );
    };
    line("command", "", &r.command.join(" "));
    line("status", if r.complete { "" } else { "bad" }, &status(r));
    line("processes", "", &r.processes.len().to_string());
    line("threads", "", &r.threads.to_string());
    line("clock", "", &r.clock);
    line(
        "wall time",
        "",
        &format!("{} (longest process)", human_ns(r.wall_ns)),
    );
    line("regions", "", &region_source(r));
    if !r.counters.is_empty() {
        line("counters", "", &counter_list(r));
    }
    for w in &r.warnings {
        line("warning", "warning", w);
    }
    out.push_str("</table>\n");
}

fn processes(out: &mut Sink<'_>, r: &Report) {
    if r.processes.is_empty() {
        return;
    }
    let open = if r.processes.len() > LIST_PROCESSES {
        ""
    } else {
        " open"
    };
    let _ = writeln!(
        out,
        "<details class=\"processes\"{open}><summary><h2 style=\"display:inline\">processes ({})</h2></summary>",
        r.processes.len()
    );
    out.push_str(
        "<table class=\"grid\">\n<tr><th class=\"num\">rank</th><th class=\"num\">pid</th><th>host</th>\
<th class=\"num\">threads</th><th class=\"num\">duration</th><th>status</th></tr>\n",
    );
    for p in &r.processes {
        let (class, state) = process_status(p);
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>\
<td class=\"num\">{}</td><td{class}>{}</td></tr>",
            p.rank,
            p.pid,
            escape(&p.host),
            p.threads,
            time(p.duration_ns),
            escape(&state)
        );
    }
    out.push_str("</table>\n</details>\n");
}

fn process_status(p: &ProcessSummary) -> (&'static str, String) {
    if p.complete {
        return ("", format!("complete ({})", p.reason));
    }
    let why = why_incomplete(&p.reason, p.signal, "");
    (" class=\"bad\"", format!("INCOMPLETE: {why}"))
}

/// What the tree's columns hold for one run.
struct Layout<'a> {
    wall_ns: u64,
    /// Name thread owners by rank (else by pid: forked processes share a
    /// rank).
    by_rank: bool,
    multi_rank: bool,
    counters: Vec<&'a str>,
}

fn drg(out: &mut Sink<'_>, r: &Report) {
    out.push_str("<h2>dynamic region graph</h2>\n");
    if r.roots.is_empty() {
        out.push_str("<p>(no regions were measured)</p>\n");
        return;
    }
    let layout = Layout {
        wall_ns: r.wall_ns,
        by_rank: by_rank(r),
        multi_rank: r.processes.len() > 1,
        counters: counter_columns(r),
    };
    out.push_str(
        "<p><button type=\"button\" onclick=\"regioFold(true)\">unfold all</button> \
<button type=\"button\" onclick=\"regioFold(false)\">fold all</button></p>\n",
    );
    out.push_str("<div class=\"drg\">\n");
    out.push_str(
        "<div class=\"row cols\"><span class=\"tw\"></span><span class=\"name\">region</span>\
<span class=\"kind\">kind</span><span class=\"loc\">location</span><span class=\"calls\">calls</span>\
<span class=\"t\">inclusive</span><span class=\"t\">exclusive</span>",
    );
    for c in &layout.counters {
        let _ = write!(out, "<span class=\"ctr\">{}</span>", escape(c));
    }
    out.push_str("<span class=\"pct\">% of wall</span></div>\n");
    // Iterative: any depth. Nodes deeper than DEEP are not nested further
    // (browsers flatten deep markup anyway): they follow each other inside
    // their ancestor at that depth, each with its depth before the name.
    visit(&r.roots, &mut |e| match e {
        _ if out.failed() => {}
        Visit::Enter(n, path) => {
            let depth = path.len() - 1;
            node(out, n, depth, &layout);
            if depth >= DEEP || n.children.is_empty() {
                out.push_str("</details>\n");
            }
            out.piece();
        }
        Visit::Leave(n, path) => {
            if path.len() <= DEEP && !n.children.is_empty() {
                out.push_str("</details>\n");
            }
        }
    });
    out.push_str("</div>\n");
    let mut notes = vec![
        "inclusive and exclusive times are summed over threads; % is of the wall time \
(parallel regions can exceed 100%)",
    ];
    if !layout.counters.is_empty() {
        notes.push(COUNTERS_NOTE);
    }
    for n in notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(n));
    }
}

/// The opening tag and the row of one node; its children and the closing
/// tag are the caller's.
fn node(out: &mut Sink<'_>, n: &Node, depth: usize, l: &Layout) {
    let pct = n.percent(l.wall_ns);
    let flat = depth >= DEEP;
    let leaf = n.children.is_empty() || flat;
    let name = if flat {
        format!("({depth}) {}", n.info.name)
    } else {
        n.info.name.clone()
    };
    let class = if leaf { "leaf" } else { "node" };
    let open = if !leaf && pct >= OPEN_PERCENT {
        " open"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "<details class=\"{class}\"{open} data-region=\"{}\" data-calls=\"{}\" data-inclusive-ns=\"{}\" data-exclusive-ns=\"{}\">",
        n.region, n.calls, n.inclusive_ns, n.exclusive_ns
    );
    let _ = write!(
        out,
        "<summary><span class=\"row\"><span class=\"tw\"></span><span class=\"name\">{}</span>\
<span class=\"kind\">{}</span><span class=\"loc\">{}</span><span class=\"calls\">{}</span>\
<span class=\"t\" title=\"{} ns\">{}</span><span class=\"t\" title=\"{} ns\">{}</span>",
        escape(&name),
        escape(&n.info.kind),
        escape(&n.info.location()),
        escape(&calls(n)),
        n.inclusive_ns,
        human_ns(n.inclusive_ns),
        n.exclusive_ns,
        human_ns(n.exclusive_ns),
    );
    for name in &l.counters {
        match n.counters.get(*name) {
            Some(v) => {
                let _ = write!(
                    out,
                    "<span class=\"ctr\" title=\"{v}\">{}</span>",
                    escape(&counter_value(name, *v))
                );
            }
            None => out.push_str("<span class=\"ctr\">-</span>"),
        }
    }
    let _ = write!(
        out,
        "<span class=\"pct\"><span class=\"bar{}\"><span style=\"width:{:.1}%\"></span></span>{}</span></span>",
        if pct > 100.0 { " over" } else { "" },
        pct.clamp(0.0, 100.0),
        percent(pct)
    );
    for line in extras(n, l) {
        let _ = write!(out, "<span class=\"extra\">{line}</span>");
    }
    out.push_str("</summary>\n");
}

/// The lines under a node's row, as already escaped HTML: spread over
/// threads and ranks, async waiting, frames left open.
fn extras(n: &Node, l: &Layout) -> Vec<String> {
    let mut lines = Vec::new();
    let t = &n.threads;
    if t.count > 1 {
        lines.push(escape(&format!(
            "threads {}: min / mean / max inclusive {} / {} / {} (max: {})",
            t.count,
            human_ns(t.min_inclusive_ns),
            human_ns(t.mean_inclusive_ns),
            human_ns(t.max_inclusive_ns),
            slowest_thread(n, l.by_rank)
        )));
    }
    let s = &n.ranks;
    if l.multi_rank && s.count > 1 {
        lines.push(escape(&format!(
            "ranks {}: min / mean / max inclusive {} / {} / {} (max: rank {})",
            s.count,
            human_ns(s.min_inclusive_ns),
            human_ns(s.mean_inclusive_ns),
            human_ns(s.max_inclusive_ns),
            s.max_rank
        )));
    }
    if let Some(wait) = n.wait_ns() {
        lines.push(escape(&format!(
            "async: span {}, waiting {}",
            human_ns(n.span_ns),
            human_ns(wait)
        )));
    }
    if n.open > 0 {
        lines.push(format!(
            "<span class=\"open-frames\">{} frame(s) still open</span>",
            n.open
        ));
    }
    lines
}

/// Per rank: time in MPI against time outside it.
fn mpi(out: &mut Sink<'_>, r: &Report) {
    if r.mpi.is_empty() {
        return;
    }
    out.push_str(
        "<h2>per rank: time in MPI calls</h2>\n<p class=\"note\">outermost mpi_* regions, all threads, against the rest</p>\n",
    );
    out.push_str(
        "<table class=\"grid\">\n<tr><th class=\"num\">rank</th><th class=\"num\">pid</th><th class=\"num\">wall</th>\
<th class=\"num\">in MPI</th><th class=\"num\">outside</th><th class=\"num\">MPI %</th></tr>\n",
    );
    for m in &r.mpi {
        let share = mpi_percent(m);
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
<td class=\"num\">{}</td><td class=\"num\"><span class=\"bar\"><span style=\"width:{:.1}%\"></span></span> {}</td></tr>",
            m.rank,
            m.pid,
            time(m.wall_ns),
            time(m.mpi_ns),
            time(m.outside_ns),
            share.clamp(0.0, 100.0),
            percent(share)
        );
    }
    out.push_str("</table>\n");
}

/// User events (`regio_event`) per node and name.
fn user_events(out: &mut Sink<'_>, r: &Report) {
    let u = &r.user_events;
    if u.is_empty() {
        return;
    }
    out.push_str(
        "<h2>user events</h2>\n<p class=\"note\">per region path and name, over all threads and processes</p>\n",
    );
    let rows = crate::user_events::rows(r);
    out.push_str(
        "<table class=\"grid\">\n<tr><th>region</th><th>event</th><th class=\"num\">count</th><th class=\"num\">min</th>\
<th class=\"num\">mean</th><th class=\"num\">max</th><th class=\"num\">sum</th></tr>\n",
    );
    for (path, list) in rows {
        for e in list {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&path),
                escape(&e.name),
                e.count,
                value_text(e.min),
                value_text(e.mean),
                value_text(e.max),
                value_text(e.sum)
            );
        }
    }
    out.push_str("</table>\n");
    for note in crate::user_events::loss_notes(u) {
        let _ = writeln!(out, "<p class=\"warning\">{}</p>", escape(&note));
    }
}

/// A duration for people, with the exact nanoseconds on hover.
fn time(ns: u64) -> String {
    format!("<span title=\"{ns} ns\">{}</span>", human_ns(ns))
}

/// Text as HTML character data or a quoted attribute value.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_markup_character() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
        assert_eq!(
            escape("for (i = 0; i < n; i++) µs"),
            "for (i = 0; i &lt; n; i++) µs"
        );
    }
}
