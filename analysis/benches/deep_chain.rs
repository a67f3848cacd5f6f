//! Scale check of deep DRGs (issue 12 item 13): a chain of N distinct
//! nested regions at N = 12,500 .. 100,000 (or the depths given), timed
//! through load, merge, every report format, compensation and the overhead
//! analysis. Linear work shows as a constant time per node across N.
//!
//! `cargo bench -p regio-analysis --bench deep_chain` (optionally
//! `-- N...`). Not criterion: what matters is how the time per node
//! changes with N.

#[path = "../tests/deep_chain/mod.rs"]
mod deep_chain;

use std::time::Instant;

use regio_analysis::overhead::{compensate, overhead};
use regio_analysis::{load_run, merge, render, Format};

fn main() {
    let mut depths: Vec<u32> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    if depths.is_empty() {
        depths = vec![12_500, 25_000, 50_000, 100_000];
    }
    println!(
        "{:>8}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>10}",
        "depth",
        "load",
        "merge",
        "text",
        "json",
        "csv",
        "collapsed",
        "html",
        "compens.",
        "overhead",
        "ns/node"
    );
    for depth in depths {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => {
                eprintln!("cannot create a temporary directory: {e}");
                std::process::exit(1);
            }
        };
        deep_chain::write_chain(dir.path(), depth);
        let mut times = Vec::new();
        let mut t = Instant::now();
        let mut lap = |times: &mut Vec<f64>| {
            let now = Instant::now();
            times.push((now - t).as_secs_f64());
            t = now;
        };
        let run = match load_run(dir.path(), None) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        lap(&mut times);
        let report = merge(&run);
        lap(&mut times);
        let mut bytes = 0;
        for format in [
            Format::Text,
            Format::Json,
            Format::Csv,
            Format::Collapsed,
            Format::Html,
        ] {
            bytes += render(std::slice::from_ref(&report), format).len();
            lap(&mut times);
        }
        let mut compensated = report.clone();
        compensate(&mut compensated, 1.0);
        lap(&mut times);
        let o = overhead(&report, &[(&compensated, 2)]);
        lap(&mut times);
        let total: f64 = times.iter().sum();
        print!("{depth:>8}");
        for s in &times {
            print!("  {:>8.3}s", s);
        }
        println!(
            "  {:>10.0}   ({} regions in the overhead, {:.1} MiB of reports)",
            total * 1e9 / f64::from(depth),
            o.runs[0].regions.len(),
            bytes as f64 / 1048576.0
        );
    }
}
