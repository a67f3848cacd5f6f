//! Turning text into syntax, and refusing what is not text: statements
//! with their byte map (`scan`), what each statement is (`syntax`), and
//! the program units and constructs they form (`structure`). The
//! counterpart of the C front end's `parse.rs`, where tree-sitter does all
//! three.

use crate::diag::Diagnostic;

use super::scan::{self, Item, Line};
use super::structure::{self, Structure};
use super::syntax::{self, Kind};
use super::{Refusal, SourceForm};

/// A file read into statements and constructs.
pub(crate) struct Parsed {
    pub lines: Vec<Line>,
    pub items: Vec<Item>,
    /// Each statement's kind (None for directive lines).
    pub kinds: Vec<Option<Kind>>,
    pub structure: Structure,
}

/// Read `text` in `form`. A binary file is refused; code the scanner
/// cannot follow is `Refusal::Unreadable` (the file is left as written).
pub(crate) fn parse(text: &str, form: SourceForm, file: &str) -> Result<Parsed, Refusal> {
    if let Some(at) = text.find('\0') {
        let (l, c) = crate::diag::line_col(text, at);
        return Err(Refusal::Directives(vec![Diagnostic::error(
            file,
            l,
            c,
            "not a text file (contains NUL bytes)",
        )]));
    }
    let fixed = form == SourceForm::Fixed;
    let scanned = scan::scan(text, form, file).map_err(Refusal::Unreadable)?;
    let kinds: Vec<Option<Kind>> = scanned
        .items
        .iter()
        .map(|it| match it {
            Item::Stmt(s) => Some(syntax::classify(s, fixed)),
            Item::Regio(_) | Item::Omp(_) => None,
        })
        .collect();
    let structure =
        structure::build(text, file, &scanned.items, &kinds).map_err(Refusal::Unreadable)?;
    Ok(Parsed {
        lines: scanned.lines,
        items: scanned.items,
        kinds,
        structure,
    })
}
