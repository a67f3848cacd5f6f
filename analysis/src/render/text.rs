//! The report for people: a header about the run, then the DRG as an
//! indented tree with aligned columns.

use std::fmt::Write as _;

use crate::merge::{Node, Report};
use crate::units::{human_ns, percent};
use crate::user_events::value_text;

use super::DEEP;

use super::words::{
    by_rank, calls, counter_columns, counter_list, counter_value, mpi_percent, region_source,
    slowest_thread, status, COUNTERS_NOTE,
};

/// Above this many processes the header summarises their durations.
const LIST_PROCESSES: usize = 8;

pub(super) fn render(reports: &[Report]) -> String {
    let mut out = String::new();
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        header(&mut out, r);
        out.push('\n');
        tree(&mut out, r);
        throttled(&mut out, r);
        mpi(&mut out, r);
        communication(&mut out, r);
        user_events(&mut out, r);
    }
    out
}

/// User events (`regio_event`) per node and name, and what was not kept.
fn user_events(out: &mut String, r: &Report) {
    let u = &r.user_events;
    if u.is_empty() {
        return;
    }
    out.push_str(
        "
user events: per region path and name, over all threads and processes
",
    );
    let mut rows: Vec<[String; 7]> =
        vec![["region", "event", "count", "min", "mean", "max", "sum"].map(String::from)];
    for (path, list) in crate::user_events::rows(r) {
        for (i, e) in list.iter().enumerate() {
            rows.push([
                if i == 0 { path.clone() } else { String::new() },
                e.name.clone(),
                e.count.to_string(),
                value_text(e.min),
                value_text(e.mean),
                value_text(e.max),
                value_text(e.sum),
            ]);
            // Events from several ranks: a row per rank under the total.
            if e.per_rank.len() > 1 {
                for k in &e.per_rank {
                    rows.push([
                        String::new(),
                        format!("  rank {}", k.rank),
                        k.count.to_string(),
                        value_text(k.min),
                        value_text(k.mean),
                        value_text(k.max),
                        value_text(k.sum),
                    ]);
                }
            }
        }
    }
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    if rows.len() == 1 {
        rows.clear(); // nothing kept: only the notes below
    }
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = w.saturating_sub(cell.chars().count());
            if i < 2 {
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', pad));
            } else {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for note in crate::user_events::loss_notes(u) {
        out.push_str(&note);
        out.push('\n');
    }
}

/// Above this many ranks the matrix is listed cell by cell.
const MATRIX_RANKS: usize = 16;

/// The per-rank communication matrix (point-to-point sends) and the
/// ranks' clock offsets against rank 0.
fn communication(out: &mut String, r: &Report) {
    let c = &r.comm;
    if !c.matrix.is_empty() {
        let ranks: Vec<u32> = r.processes.iter().map(|p| p.rank).collect();
        out.push_str("\ncommunication matrix: point-to-point messages / bytes, sender (row) x receiver (column)\n");
        if ranks.len() <= MATRIX_RANKS {
            let cell = |s: u32, d: u32| {
                c.matrix
                    .iter()
                    .find(|m| m.sender == s && m.receiver == d)
                    .map_or_else(
                        || "-".to_string(),
                        |m| format!("{} / {}", m.messages, m.bytes),
                    )
            };
            let mut rows: Vec<Vec<String>> = vec![std::iter::once("from\\to".to_string())
                .chain(ranks.iter().map(|d| d.to_string()))
                .collect()];
            for &s in &ranks {
                rows.push(
                    std::iter::once(s.to_string())
                        .chain(ranks.iter().map(|&d| cell(s, d)))
                        .collect(),
                );
            }
            let widths: Vec<usize> = (0..rows[0].len())
                .map(|i| rows.iter().map(|row| row[i].len()).max().unwrap_or(0))
                .collect();
            for row in rows {
                let cells: Vec<String> = row
                    .iter()
                    .zip(&widths)
                    .map(|(v, w)| format!("{v:>w$}"))
                    .collect();
                let _ = writeln!(out, "{}", cells.join("  ").trim_end());
            }
        } else {
            for m in &c.matrix {
                let _ = writeln!(
                    out,
                    "{:>6} -> {:<6} {:>10} messages {:>14} bytes",
                    m.sender, m.receiver, m.messages, m.bytes
                );
            }
        }
    }
    if !c.collectives.is_empty() {
        out.push_str("\ncollectives per rank: operations, bytes sent, bytes received\n");
        for k in &c.collectives {
            let received = k.bytes_received.map_or("-".to_string(), |b| b.to_string());
            let _ = writeln!(
                out,
                "{:>6}  {:>10} operations  {:>14} sent  {:>14} received",
                k.rank, k.operations, k.bytes_sent, received
            );
        }
    }
    if c.dropped > 0 {
        let _ = writeln!(
            out,
            "{} message records lost to full per-thread tables",
            c.dropped
        );
    }
    if c.clocks.iter().any(|k| k.rank != 0) {
        out.push_str(
            "\nclocks against rank 0 (offset = rank 0 - this rank; at MPI_Init, at MPI_Finalize)\n",
        );
        let _ = writeln!(
            out,
            "{:>6}  {:>14}  {:>10}  {:>14}  {:>10}  {:>12}",
            "rank", "offset init", "rtt", "offset final", "rtt", "drift ppm"
        );
        let show = |p: Option<regio_idf::rundir::SyncPoint>| {
            p.map_or(("-".to_string(), "-".to_string()), |p| {
                (format!("{} ns", p.offset_ns), human_ns(p.round_trip_ns))
            })
        };
        for k in &c.clocks {
            let (oi, ri) = show(k.sync.init);
            let (of, rf) = show(k.sync.finalize);
            let drift = k.drift_ppm.map_or("-".to_string(), |d| format!("{d:.3}"));
            let _ = writeln!(
                out,
                "{:>6}  {oi:>14}  {ri:>10}  {of:>14}  {rf:>10}  {drift:>12}",
                k.rank
            );
        }
    }
}

/// The regions `REGIO_THROTTLE` stopped measuring, with where they were
/// called from and what that means for the figures.
fn throttled(out: &mut String, r: &Report) {
    let list = crate::throttled::throttled(r);
    if list.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nthrottled regions: {}", list.len());
    for t in &list {
        let from = match t.parents.last() {
            Some(p) => format!(" in {p}"),
            None => String::new(),
        };
        let at = if t.location.is_empty() {
            String::new()
        } else {
            format!(" ({})", t.location)
        };
        let _ = writeln!(
            out,
            "  {}{at}{from}: throttled at {} calls",
            t.name, t.throttled_at
        );
    }
    let _ = writeln!(out, "{}", crate::throttled::NOTE);
}

/// Per rank: time in MPI against time outside it.
fn mpi(out: &mut String, r: &Report) {
    if r.mpi.is_empty() {
        return;
    }
    out.push_str(
        "\nper rank: time in MPI calls (outermost mpi_* regions, all threads) against the rest\n",
    );
    let _ = writeln!(
        out,
        "{:>6}  {:>10}  {:>10}  {:>10}  {:>6}",
        "rank", "wall", "in MPI", "outside", "MPI %"
    );
    for m in &r.mpi {
        let _ = writeln!(
            out,
            "{:>6}  {:>10}  {:>10}  {:>10}  {:>6}",
            m.rank,
            human_ns(m.wall_ns),
            human_ns(m.mpi_ns),
            human_ns(m.outside_ns),
            percent(mpi_percent(m))
        );
    }
}

fn header(out: &mut String, r: &Report) {
    let mut line = |label: &str, value: &str| {
        let _ = writeln!(out, "{:<11}{value}", format!("{label}:"));
    };
    line("run", &r.run_dir.display().to_string());
    line("command", &r.command.join(" "));
    line("status", &status(r));
    line("processes", &processes(r));
    line("threads", &r.threads.to_string());
    line("clock", &r.clock);
    line(
        "wall time",
        &format!("{} (longest process)", human_ns(r.wall_ns)),
    );
    line("regions", &region_source(r));
    if !r.counters.is_empty() {
        line("counters", &counter_list(r));
    }
    for w in &r.warnings {
        line("warning", w);
    }
}

fn processes(r: &Report) -> String {
    let n = r.processes.len();
    if n > LIST_PROCESSES {
        let min = r.processes.iter().map(|p| p.duration_ns).min().unwrap_or(0);
        let max = r.processes.iter().map(|p| p.duration_ns).max().unwrap_or(0);
        return format!("{n} (durations {} to {})", human_ns(min), human_ns(max));
    }
    let each: Vec<String> = r
        .processes
        .iter()
        .map(|p| format!("rank {} pid {}: {}", p.rank, p.pid, human_ns(p.duration_ns)))
        .collect();
    format!("{n} ({})", each.join(", "))
}

#[derive(Clone, Copy, PartialEq)]
enum Align {
    Left,
    Right,
}

const COLUMNS: [(&str, Align); 8] = [
    ("region", Align::Left),
    ("kind", Align::Left),
    ("location", Align::Left),
    ("calls", Align::Right),
    ("inclusive", Align::Right),
    ("exclusive", Align::Right),
    ("%", Align::Right),
    ("threads: min / mean / max inclusive", Align::Left),
];

fn tree(out: &mut String, r: &Report) {
    if r.roots.is_empty() {
        out.push_str("(no regions were measured)\n");
        return;
    }
    let by_rank = by_rank(r);
    // Counter columns (when counted) go between `%` and the thread spread.
    let counters = counter_columns(r);
    let at = COLUMNS.len() - 1;
    let mut header: Vec<String> = COLUMNS.iter().map(|(h, _)| h.to_string()).collect();
    let mut aligns: Vec<Align> = COLUMNS.iter().map(|c| c.1).collect();
    for (k, name) in counters.iter().enumerate() {
        header.insert(at + k, name.to_string());
        aligns.insert(at + k, Align::Right);
    }
    let mut rows: Vec<Vec<String>> = vec![header];
    let multi_rank = r.processes.len() > 1;
    if multi_rank {
        rows[0].push(RANKS_COLUMN.to_string());
        aligns.push(Align::Left);
    }
    let fold = Fold::of(r);
    walk_shown(&r.roots, fold.map(|f| f.above), &mut |n, depth| {
        let mut cells = row(n, depth, r.wall_ns, by_rank);
        for (k, name) in counters.iter().enumerate() {
            let v = n
                .counters
                .get(*name)
                .map_or("-".to_string(), |v| counter_value(name, *v));
            cells.insert(at + k, v);
        }
        if multi_rank {
            cells.push(rank_spread(n));
        }
        rows.push(cells)
    });
    let mut widths = vec![0usize; aligns.len()];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            match aligns.get(i).copied().unwrap_or(Align::Left) {
                Align::Left => {
                    line.push_str(cell);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
                Align::Right => {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(cell);
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if let Some(f) = fold {
        let _ = writeln!(
            out,
            "showing {} of {} DRG nodes: those with inclusive time above {} whose callers are shown (the text report shows at most {TEXT_NODES}; `--format json` has every node)",
            rows.len() - 1,
            f.total,
            human_ns(f.above)
        );
    }
    out.push_str("inclusive and exclusive times are summed over threads; % is of the wall time\n");
    if !counters.is_empty() {
        out.push_str(COUNTERS_NOTE);
        out.push('\n');
    }
}

/// The text report shows at most this many DRG nodes (a table of a
/// million rows is for no one to read, and costs gigabytes to align): above
/// it, the heaviest ones (`Fold`), and says so. JSON has every node.
pub(crate) const TEXT_NODES: usize = 100_000;

/// What a text report leaves out of a DRG of more than [`TEXT_NODES`]
/// nodes: every node with inclusive time at most `above`, and so its
/// subtree (a node's inclusive time is normally at least its children's).
#[derive(Clone, Copy)]
struct Fold {
    above: u64,
    total: usize,
}

impl Fold {
    /// None when every node fits.
    fn of(r: &Report) -> Option<Fold> {
        let mut times: Vec<u64> = Vec::new();
        r.walk(&mut |n, _| times.push(n.inclusive_ns));
        if times.len() <= TEXT_NODES {
            return None;
        }
        let total = times.len();
        // The TEXT_NODES + 1-th largest time: strictly above it are at
        // most TEXT_NODES nodes.
        let (_, &mut above, _) = times.select_nth_unstable_by(TEXT_NODES, |a, b| b.cmp(a));
        Some(Fold { above, total })
    }
}

/// Depth first over the nodes with inclusive time above `above` (every
/// node: None) whose callers are shown, children in order, with their
/// depth; iterative (any depth).
fn walk_shown(roots: &[Node], above: Option<u64>, f: &mut dyn FnMut(&Node, usize)) {
    let shown = |n: &Node| above.is_none_or(|a| n.inclusive_ns > a);
    let mut stack = vec![roots.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(n) if shown(n) => {
                f(n, stack.len() - 1);
                stack.push(n.children.iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
}

/// Two blanks per level; deeper than [`DEEP`] the indentation stays and
/// the depth is written before the name.
fn indented_name(name: &str, depth: usize) -> String {
    if depth < DEEP {
        format!("{}{name}", "  ".repeat(depth))
    } else {
        format!("{}({depth}) {name}", "  ".repeat(DEEP))
    }
}

const RANKS_COLUMN: &str = "ranks: min / mean / max inclusive";

fn rank_spread(n: &Node) -> String {
    let s = &n.ranks;
    if s.count < 2 {
        return String::new();
    }
    format!(
        "{}: {} / {} / {} (max: rank {})",
        s.count,
        human_ns(s.min_inclusive_ns),
        human_ns(s.mean_inclusive_ns),
        human_ns(s.max_inclusive_ns),
        s.max_rank
    )
}

fn row(n: &Node, depth: usize, wall_ns: u64, by_rank: bool) -> Vec<String> {
    let mut threads = String::new();
    let t = &n.threads;
    if t.count > 1 {
        let _ = write!(
            threads,
            "{}: {} / {} / {} (max: {})",
            t.count,
            human_ns(t.min_inclusive_ns),
            human_ns(t.mean_inclusive_ns),
            human_ns(t.max_inclusive_ns),
            slowest_thread(n, by_rank)
        );
    }
    if let Some(wait) = n.wait_ns() {
        if !threads.is_empty() {
            threads.push(' ');
        }
        let _ = write!(
            threads,
            "[async: span {}, waiting {}]",
            human_ns(n.span_ns),
            human_ns(wait)
        );
    }
    if n.open > 0 {
        if !threads.is_empty() {
            threads.push(' ');
        }
        let _ = write!(threads, "[{} frame(s) still open]", n.open);
    }
    if let Some(at) = n.throttled_at {
        if !threads.is_empty() {
            threads.push(' ');
        }
        let _ = write!(threads, "[throttled at {at} calls]");
    }
    vec![
        indented_name(&n.info.name, depth),
        n.info.kind.clone(),
        n.info.location(),
        calls(n),
        human_ns(n.inclusive_ns),
        human_ns(n.exclusive_ns),
        percent(n.percent(wall_ns)),
        threads,
    ]
}
