//! Report formats. Each renderer takes the merged reports of one or several
//! runs and returns the whole output text.

mod collapsed;
mod csv;
mod html;
pub mod json;
mod text;
mod words;

use std::str::FromStr;

use crate::Report;

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

/// Render one or several runs in `format`.
pub fn render(reports: &[Report], format: Format) -> String {
    match format {
        Format::Text => text::render(reports),
        Format::Json => json::render(reports),
        Format::Csv => csv::render(reports),
        Format::Collapsed => collapsed::render(reports),
        Format::Html => html::render(reports),
    }
}
