//! Folded stacks, as flamegraph.pl and inferno read them: one line per
//! node with exclusive time, `frame;frame;frame <exclusive_ns>`.

use std::collections::{BTreeSet, HashMap};

use super::sink::Sink;
use super::DEEP;
use crate::merge::{visit, Node, Visit};
use crate::Report;

/// The stacks of `reports`, into `out`.
pub(super) fn write(reports: &[Report], out: &mut Sink<'_>) -> std::io::Result<()> {
    for r in reports {
        let labels = frame_labels(r);
        // With several runs each gets its own tower under its directory.
        let prefix = (reports.len() > 1).then(|| sanitize(&r.run_dir.display().to_string()));
        let line = |out: &mut Sink<'_>, path: &[&Node], last: Option<&str>, ns: u64| {
            let mut frames: Vec<&str> = prefix.iter().map(String::as_str).collect();
            frames.extend(
                path.iter()
                    .map(|p| labels.get(&p.region).map_or("", String::as_str)),
            );
            frames.extend(last);
            out.push_str(&frames.join(";"));
            out.push(' ');
            out.push_str(&ns.to_string());
            out.push('\n');
        };
        // Stacks keep DEEP frames: the exclusive time of the nodes below
        // goes to one `[deeper]` frame under their ancestor at that depth.
        let mut deeper: u64 = 0;
        visit(&r.roots, &mut |e| match e {
            _ if out.failed() => {}
            Visit::Enter(n, path) if path.len() <= DEEP => {
                if n.exclusive_ns > 0 {
                    line(out, path, None, n.exclusive_ns);
                    out.piece();
                }
            }
            Visit::Enter(n, _) => deeper = deeper.saturating_add(n.exclusive_ns),
            Visit::Leave(_, path) => {
                if path.len() == DEEP && deeper > 0 {
                    line(out, path, Some(DEEPER_FRAME), deeper);
                    deeper = 0;
                }
            }
        });
    }
    // Write errors are the sink's: `Sink::finish` returns them.
    Ok(())
}

/// The frame that stands for every region below [`DEEP`] frames.
const DEEPER_FRAME: &str = "[deeper]";

/// Frame text per region id: the name, plus `@file:line` when distinct
/// regions of the run share that name (plus `#id` if even that is shared).
fn frame_labels(r: &Report) -> HashMap<u32, String> {
    let mut info: HashMap<u32, (String, String)> = HashMap::new();
    r.walk(&mut |n, _| {
        info.entry(n.region)
            .or_insert_with(|| (n.info.name.clone(), n.info.location()));
    });
    let mut ids_by_name: HashMap<&str, BTreeSet<u32>> = HashMap::new();
    for (&id, (name, _)) in &info {
        ids_by_name.entry(name).or_default().insert(id);
    }
    let mut labels: HashMap<u32, String> = HashMap::new();
    for (&id, (name, loc)) in &info {
        let shared = ids_by_name.get(name.as_str()).map_or(0, BTreeSet::len) > 1;
        let label = if shared {
            format!("{name}@{loc}")
        } else {
            name.clone()
        };
        labels.insert(id, sanitize(&label));
    }
    let mut uses: HashMap<String, usize> = HashMap::new();
    for label in labels.values() {
        *uses.entry(label.clone()).or_default() += 1;
    }
    for (id, label) in labels.iter_mut() {
        if uses.get(label.as_str()).copied().unwrap_or(0) > 1 {
            label.push_str(&format!("#{id}"));
        }
    }
    labels
}

/// `;` separates frames and whitespace separates the count.
fn sanitize(frame: &str) -> String {
    frame
        .chars()
        .map(|c| {
            if c == ';' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect()
}
