//! One CSV row per DRG node, every run in one table.

use std::io;

use super::sink::Sink;
use crate::Report;

const HEADER: [&str; 18] = [
    "run",
    "path",
    "depth",
    "region",
    "name",
    "kind",
    "file",
    "line",
    "calls",
    "recursive_calls",
    "inclusive_ns",
    "exclusive_ns",
    "min_ns",
    "max_ns",
    "threads",
    "min_thread_inclusive_ns",
    "mean_thread_inclusive_ns",
    "max_thread_inclusive_ns",
];

/// One table for `reports`, into `out`.
/// The csv writer hands its buffer to the sink whenever it fills; the sink
/// passes it on in pieces (its `io::Write`).
pub(super) fn write(reports: &[Report], out: &mut Sink<'_>) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(HEADER)?;
    for r in reports {
        let run = r.run_dir.display().to_string();
        let mut result = Ok(());
        r.walk(&mut |n, path| {
            if result.is_err() {
                return;
            }
            let t = &n.threads;
            let line = n.info.line.map(|l| l.to_string()).unwrap_or_default();
            result = w.write_record([
                run.as_str(),
                &super::path_names(path),
                &(path.len() - 1).to_string(),
                &n.region.to_string(),
                &n.info.name,
                &n.info.kind,
                n.info.file.as_deref().unwrap_or_default(),
                &line,
                &n.calls.to_string(),
                &n.recursive_calls.to_string(),
                &n.inclusive_ns.to_string(),
                &n.exclusive_ns.to_string(),
                &n.min_ns.to_string(),
                &n.max_ns.to_string(),
                &t.count.to_string(),
                &t.min_inclusive_ns.to_string(),
                &t.mean_inclusive_ns.to_string(),
                &t.max_inclusive_ns.to_string(),
            ]);
        });
        result?;
    }
    w.flush()?;
    Ok(())
}
