//! The Rust front end: `.rs` files parsed with syn (spans with line and
//! column), edits inserted into the original text.
//!
//! * `--regions functions`: `#[::regio::traced] ` before each function's
//!   signature (free functions, methods, trait methods with a default body,
//!   nested functions), not `const fn` and not functions that already carry
//!   `traced` or `skip`.
//! * `--regions loops`: `for`, `while`, `loop` become
//!   `{ let __regio_loop = ::regio::guard!(Loop, "for@12"); <loop> }`,
//!   which keeps a loop's value and labels; not inside `const` contexts or
//!   `async` code (a guard held across `.await` would time the wait).
//! * `// regio: begin NAME` / `end NAME` / `disable` / `enable` comments
//!   (see `directives.rs`).
//!
//! Rust regions describe themselves at run time (static descriptors), so
//! this front end adds no IDF regions. A file syn cannot parse is left as
//! it is, with a warning.

pub mod cargo_toml;
mod directives;
mod walk;

use crate::diag::Diagnostic;
use crate::edit::{self, Edit};
use crate::frontend::{FrontendResult, Instrumented, SourceInput};

/// 1-based line and column of a span's start.
pub(crate) fn start_of(span: proc_macro2::Span) -> (usize, usize) {
    let lc = span.start();
    (lc.line, lc.column + 1)
}

/// Byte offset of a (1-based line, 0-based char column) position.
pub(crate) struct Offsets {
    line_starts: Vec<usize>,
}

impl Offsets {
    pub(crate) fn new(text: &str) -> Offsets {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Offsets { line_starts }
    }

    /// proc-macro2 columns count chars; convert through the line's text.
    pub(crate) fn of(&self, text: &str, lc: proc_macro2::LineColumn) -> usize {
        let start = self
            .line_starts
            .get(lc.line.saturating_sub(1))
            .copied()
            .unwrap_or(text.len());
        let line = &text[start..];
        start
            + line
                .char_indices()
                .nth(lc.column)
                .map_or(line.len(), |(i, _)| i)
    }
}

pub fn instrument(input: &SourceInput) -> FrontendResult {
    let text = input.text;
    let file = match syn::parse_file(text) {
        Ok(f) => f,
        Err(e) => {
            let (line, col) = start_of(e.span());
            let warning = Diagnostic::warning(
                input.display_path,
                line as u32,
                col as u32,
                format!(
                    "not instrumented: syn cannot parse this file ({e}); it is copied as it is"
                ),
            );
            return Ok(Instrumented {
                text: text.to_string(),
                regions: Vec::new(),
                warnings: vec![warning],
            });
        }
    };
    let offsets = Offsets::new(text);
    let mut edits: Vec<Edit> = Vec::new();
    let mut warnings = Vec::new();
    walk::walk(&file, input, &offsets, &mut edits, &mut warnings);
    directives::apply(&file, input, &offsets, &mut edits)?;
    let out = edit::apply(text, &edits)
        .map_err(|e| vec![Diagnostic::error(input.display_path, 1, 1, e.to_string())])?;
    Ok(Instrumented {
        text: out,
        regions: Vec::new(),
        warnings,
    })
}
