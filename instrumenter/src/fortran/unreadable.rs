//! Files Regio leaves as written, and why a file is not instrumented:
//! the Fortran counterpart of the C front end's `unreadable.rs` (which
//! does this per unit; the statement scanner gives up per file).

use crate::diag::Diagnostic;
use crate::frontend::{Instrumented, SourceInput};

/// Why a file is not instrumented.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The user's Regio directives do not pair up, or the file is binary:
    /// the file is refused.
    Directives(Vec<Diagnostic>),
    /// The scanner could not follow the code (or Regio cannot place a
    /// probe in it): the file is left as written, with a warning.
    Unreadable(Vec<Diagnostic>),
}

/// The file unchanged, its problems as warnings, and one IDF entry for it.
pub(crate) fn left_as_written(input: &SourceInput<'_>, problems: &[Diagnostic]) -> Instrumented {
    let warnings: Vec<Diagnostic> = problems
        .iter()
        .map(|d| {
            Diagnostic::warning(
                &d.file,
                d.line,
                d.col,
                format!("not measured: this file left as written ({})", d.message),
            )
        })
        .collect();
    let lines = input.text.lines().count().max(1) as u32;
    let last_len = input.text.lines().last().map_or(0, str::len) as u32;
    let mut aux = serde_json::Map::new();
    let reason = problems.first().map_or("", |d| d.message.as_str());
    aux.insert("not_measured".into(), serde_json::Value::from(reason));
    let first_line = problems.first().map_or(1, |d| d.line.max(1));
    let region = regio_idf::Region {
        id: input.first_id,
        kind: regio_idf::RegionKind::Function,
        name: format!("unreadable@{first_line}"),
        file: input.rel_path.to_string(),
        unit: String::new(),
        start: regio_idf::Pos::new(1, 1),
        end: regio_idf::Pos::new(lines, last_len.max(1)),
        parent: None,
        aux,
    };
    Instrumented {
        text: input.text.to_string(),
        regions: vec![region],
        warnings,
    }
}
