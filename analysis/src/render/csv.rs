//! One CSV row per DRG node, every run in one table.

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

pub(super) fn render(reports: &[Report]) -> String {
    match write(reports) {
        Ok(text) => text,
        Err(e) => format!("error: cannot write CSV: {e}\n"),
    }
}

fn write(reports: &[Report]) -> Result<String, Box<dyn std::error::Error>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER)?;
    for r in reports {
        let run = r.run_dir.display().to_string();
        let mut result = Ok(());
        r.walk(&mut |n, path| {
            if result.is_err() {
                return;
            }
            let t = &n.threads;
            result = w.write_record([
                run.clone(),
                super::path_names(path),
                (path.len() - 1).to_string(),
                n.region.to_string(),
                n.info.name.clone(),
                n.info.kind.clone(),
                n.info.file.clone().unwrap_or_default(),
                n.info.line.map(|l| l.to_string()).unwrap_or_default(),
                n.calls.to_string(),
                n.recursive_calls.to_string(),
                n.inclusive_ns.to_string(),
                n.exclusive_ns.to_string(),
                n.min_ns.to_string(),
                n.max_ns.to_string(),
                t.count.to_string(),
                t.min_inclusive_ns.to_string(),
                t.mean_inclusive_ns.to_string(),
                t.max_inclusive_ns.to_string(),
            ]);
        });
        result?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes)?)
}
