//! The overhead table for people: one row per category (subcategories
//! indented), one column per processor count; the program first, then the
//! regions with the largest overhead.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{Categories, Category, OverheadReport, RunOverhead};
use crate::units::human_ns;

/// Regions shown after the program table.
const TOP_REGIONS: usize = 5;

fn signed(ns: i64) -> String {
    if ns < 0 {
        format!("-{}", human_ns(ns.unsigned_abs()))
    } else {
        human_ns(ns as u64)
    }
}

fn table(out: &mut String, rows: &[(String, Vec<String>)], header: &[String]) {
    let width0 = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r.1.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
                .max(header[i].chars().count())
        })
        .collect();
    let _ = write!(out, "{:<width0$}", "");
    for (h, w) in header.iter().zip(&widths) {
        let _ = write!(out, "  {h:>w$}");
    }
    out.push('\n');
    for (label, cells) in rows {
        let _ = write!(out, "{label:<width0$}");
        for (c, w) in cells.iter().zip(&widths) {
            let _ = write!(out, "  {c:>w$}");
        }
        out.push('\n');
    }
}

fn category_rows(
    runs: &[&RunOverhead],
    cats: &dyn Fn(&RunOverhead) -> Categories,
    total: &dyn Fn(&RunOverhead) -> i64,
    with_sub: bool,
) -> Vec<(String, Vec<String>)> {
    let mut rows = Vec::new();
    rows.push((
        "total overhead T_o".to_string(),
        runs.iter().map(|r| signed(total(r))).collect(),
    ));
    for c in Category::ALL {
        rows.push((
            format!("  {}", c.label()),
            runs.iter().map(|r| signed(cats(r).get(c))).collect(),
        ));
        if !with_sub {
            continue;
        }
        let subs: BTreeSet<&String> = runs
            .iter()
            .filter_map(|r| r.subcategories.get(c.key()))
            .flat_map(|m| m.keys())
            .collect();
        for s in subs {
            rows.push((
                format!("    {s}"),
                runs.iter()
                    .map(|r| {
                        r.subcategories
                            .get(c.key())
                            .and_then(|m| m.get(s))
                            .map_or(String::new(), |v| signed(*v))
                    })
                    .collect(),
            ));
        }
    }
    rows
}

/// `p=N` per run; runs with the same N (2 threads vs 2 ranks) also get
/// their run directory's name.
fn headers(runs: &[&RunOverhead]) -> Vec<String> {
    runs.iter()
        .map(|r| {
            let twins = runs.iter().filter(|o| o.processors == r.processors).count();
            if twins > 1 {
                let name = std::path::Path::new(&r.run_dir)
                    .file_name()
                    .map_or(r.run_dir.clone(), |n| n.to_string_lossy().into_owned());
                format!("p={} {name}", r.processors)
            } else {
                format!("p={}", r.processors)
            }
        })
        .collect()
}

pub fn render(report: &OverheadReport) -> String {
    let mut out = String::new();
    let runs: Vec<&RunOverhead> = report.runs.iter().collect();
    let _ = writeln!(
        out,
        "baseline: {} (T_s = {})",
        report.baseline,
        human_ns(report.baseline_wall_ns)
    );
    for r in &runs {
        let _ = writeln!(out, "p = {:<4} {}", r.processors, r.run_dir);
    }
    out.push('\n');
    let header = headers(&runs);
    let mut rows = vec![
        (
            "wall time T_p".to_string(),
            runs.iter().map(|r| human_ns(r.wall_ns)).collect(),
        ),
        (
            "speedup".to_string(),
            runs.iter().map(|r| format!("{:.2}", r.speedup)).collect(),
        ),
        (
            "efficiency".to_string(),
            runs.iter()
                .map(|r| format!("{:.0}%", r.efficiency * 100.0))
                .collect(),
        ),
    ];
    rows.extend(category_rows(
        &runs,
        &|r| r.categories,
        &|r| r.total_overhead_ns,
        true,
    ));
    // The baseline's own column: T_s, against which everything else is
    // measured (no overhead of its own by definition).
    let mut program_header = header.clone();
    program_header.insert(0, "baseline".to_string());
    for (label, cells) in &mut rows {
        let cell = match label.as_str() {
            "wall time T_p" => human_ns(report.baseline_wall_ns),
            "speedup" => "1.00".to_string(),
            "efficiency" => "100%".to_string(),
            _ => "-".to_string(),
        };
        cells.insert(0, cell);
    }
    out.push_str("program\n");
    table(&mut out, &rows, &program_header);

    // Regions by their largest overhead over the runs (the program's own
    // root regions are the table above).
    let Some(last) = runs.last() else {
        return out;
    };
    let mut order: Vec<usize> = (0..last.regions.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(last.regions[i].total_overhead_ns));
    for i in order.into_iter().take(TOP_REGIONS) {
        let reg = &last.regions[i];
        let find = |r: &RunOverhead| r.regions.iter().find(|x| x.path == reg.path).cloned();
        let _ = writeln!(
            out,
            "\nregion {} ({}, {}:{})",
            reg.path,
            reg.kind,
            reg.file.as_deref().unwrap_or("?"),
            reg.line.map_or("?".into(), |l| l.to_string())
        );
        let mut rows = vec![(
            "T_p(r)".to_string(),
            runs.iter()
                .map(|r| find(r).map_or("-".into(), |x| human_ns(x.wall_ns)))
                .collect::<Vec<_>>(),
        )];
        rows.extend(category_rows(
            &runs,
            &|r| find(r).map(|x| x.categories).unwrap_or_default(),
            &|r| find(r).map_or(0, |x| x.total_overhead_ns),
            false,
        ));
        table(&mut out, &rows, &header);
    }
    if let Some(first) = runs.first() {
        out.push('\n');
        for n in &first.notes {
            let _ = writeln!(out, "note: {n}");
        }
    }
    out
}
