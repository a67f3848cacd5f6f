//! Report formats. Each renderer takes the merged reports of one or several
//! runs and returns the whole output text.

mod collapsed;
mod csv;
mod html;
pub mod json;
mod sink;
mod text;
mod words;

use std::io::{self, Write};
use std::str::FromStr;

use self::sink::Sink;
use crate::merge::Node;
use crate::Report;

/// Nesting shown in full. A DRG is as deep as the program's chain of
/// distinct nested regions, and output that indents or repeats the path
/// per node grows with the square of that depth (100,000 levels: gigabytes).
/// Below this depth the text and HTML reports stop indenting and show the
/// depth before the name, JSON nodes are written compactly one per line,
/// CSV and overhead paths keep the first and last names around a
/// `...(N more)...` mark, and folded stacks end in a `[deeper]` frame that
/// holds the exclusive time of everything below. README "Reports" says so.
pub(crate) const DEEP: usize = 100;

/// Names from the root, `;`-separated (a `walk` path, the node last); a
/// path deeper than [`DEEP`] keeps its first and last DEEP / 2 names, so
/// the text is bounded whatever the depth.
pub(crate) fn path_names(path: &[&Node]) -> String {
    let mut out = String::new();
    let mut push = |i: usize, name: &str| {
        if i > 0 {
            out.push(';');
        }
        out.push_str(name);
    };
    if path.len() <= DEEP {
        for (i, n) in path.iter().enumerate() {
            push(i, &n.info.name);
        }
        return out;
    }
    let half = DEEP / 2;
    for (i, n) in path[..half].iter().enumerate() {
        push(i, &n.info.name);
    }
    push(half, &format!("...({} more)...", path.len() - 2 * half));
    for (i, n) in path[path.len() - half..].iter().enumerate() {
        push(half + 1 + i, &n.info.name);
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Header plus the DRG as an indented tree, for people.
    Text,
    /// `{"runs": [...]}` per SPEC.md (see [`json::JsonReport`]).
    Json,
    /// One row per DRG node.
    Csv,
    /// Folded stacks (`frame;frame;frame <exclusive_ns>`) for flamegraph
    /// tools.
    Collapsed,
    /// One self-contained page: run headers and the DRG as a foldable tree.
    Html,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("unknown report format `{0}` (expected text, json, csv, collapsed or html)")]
    Unknown(String),
}

impl FromStr for Format {
    type Err = FormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "collapsed" => Ok(Format::Collapsed),
            "html" => Ok(Format::Html),
            _ => Err(FormatError::Unknown(s.into())),
        }
    }
}

/// Render one or several runs in `format` into `w`. Every format but the
/// text report (which shows a bounded number of nodes) goes out as it is
/// made: a DRG of a million nodes is hundreds of megabytes of HTML or CSV
/// and gigabytes of JSON.
pub fn render_to(reports: &[Report], format: Format, w: &mut dyn Write) -> io::Result<()> {
    match (format, streamed(format)) {
        (_, Some(write)) => {
            let mut sink = Sink::stream(w);
            write(reports, &mut sink)?;
            sink.finish().map(drop)
        }
        (Format::Json, None) => json::render_to(reports, w),
        (_, None) => w.write_all(render(reports, format).as_bytes()),
    }
}

/// Render one or several runs in `format`.
pub fn render(reports: &[Report], format: Format) -> String {
    match (format, streamed(format)) {
        (_, Some(write)) => {
            let mut sink = Sink::collect();
            match write(reports, &mut sink).and_then(|()| sink.finish()) {
                Ok(text) => text,
                Err(e) => format!("error: cannot write the report: {e}\n"),
            }
        }
        (Format::Json, None) => json::render(reports),
        (_, None) => text::render(reports),
    }
}

type SinkWriter = fn(&[Report], &mut Sink<'_>) -> io::Result<()>;

/// The formats written node by node into a [`Sink`]. JSON streams on its
/// own (serde writes each node); the text report is bounded.
fn streamed(format: Format) -> Option<SinkWriter> {
    match format {
        Format::Csv => Some(csv::write),
        Format::Collapsed => Some(collapsed::write),
        Format::Html => Some(html::write),
        Format::Text | Format::Json => None,
    }
}
