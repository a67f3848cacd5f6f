//! The C front end: tree-sitter-c parses the file, `#pragma regio` lines
//! are checked, and probes are inserted as text at byte offsets of the
//! original, never adding a newline outside the prelude.
//!
//! Emitted forms (ID is the local region id; `regio__guard`, `regio__leave`,
//! `regio__enter` and `regio__exit` are the prelude's gated probes):
//! * function / program: after the body's `{`, a guard declaration whose
//!   cleanup runs the exit probe on every way out:
//!   `const unsigned int regio__gID __attribute__((cleanup(regio__leave), unused)) = regio__guard(IDu);`
//! * loop: `{ <guard> ` before the statement and ` }` after its last byte.
//! * user: the directive line becomes `regio__enter(IDu);` / `regio__exit(IDu);`;
//!   `break`/`continue`/`goto` leaving it become `{ regio__exit(IDu); break; }`.
//!   A function that is not a region but holds user regions gets a scope
//!   guard (`regio_scope_open`/`regio_scope_close`) so `return` closes them.
//! * call / io: `{ regio__enter(IDu); f(x); regio__exit(IDu); }` for a call
//!   statement, `(regio__enter(IDu), f(x), regio__exit(IDu))` when the value
//!   is discarded, `__extension__ ({ const unsigned int regio__cID __attribute__((cleanup(regio__leave), unused)) = regio__guard(IDu); f(x); })`
//!   when it is used (right for `void` functions too).

mod calls;
mod directives;
mod items;
mod jumps;
mod lone_directives;
mod mask;
mod mpi_capture;
mod omp;
mod omp_probes;
mod parse;
mod plan;
mod prelude;
mod preprocessed;
mod probes;
mod recover;
mod small;
mod syntax;
mod unreadable;

#[cfg(test)]
mod tests;

pub use calls::function_like_macros;
pub use preprocessed::instrument_preprocessed;

use std::collections::HashSet;

use crate::diag::Diagnostic;
use crate::edit::{self, Edit};
use crate::frontend::{FrontendResult, Instrumented, SourceInput};

/// The prelude at offset `at`, first of all edits there: the probe
/// declarations the `regions` need (MPI, OpenMP), the IDF registration,
/// and a `#line` naming `line_name`.
/// `header`: see [`prelude::prelude`].
fn prelude_edit(
    at: usize,
    line_name: &str,
    idf_path: &str,
    header: bool,
    regions: &[regio_idf::Region],
) -> Edit {
    let has = |f: fn(&regio_idf::RegionKind) -> bool| regions.iter().any(|r| f(&r.kind));
    let mpi = has(|k| matches!(k, regio_idf::RegionKind::Mpi(_)));
    let omp = has(regio_idf::RegionKind::is_omp);
    Edit::insert(at, prelude::prelude(line_name, idf_path, header, mpi, omp)).with_order(i64::MIN)
}

/// After a header's last line (on a line of its own), last of all edits
/// there: [`prelude::header_epilogue`].
fn epilogue_edit(src: &str) -> Edit {
    let newline = if src.is_empty() || src.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    Edit::insert(
        src.len(),
        format!("{newline}{}", prelude::header_epilogue()),
    )
    .with_order(i64::MAX)
}

/// A header (`.h`): a file other files include, maybe files of other
/// trees instrumented separately or not at all.
fn is_header(input: &SourceInput<'_>) -> bool {
    input
        .rel_path
        .rsplit('.')
        .next()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("h"))
}

/// The first line of a header that only C++ has at the start of a line
/// (`class X`, `template <...>`, `namespace n`): a C++ header named `.h`,
/// which the C front end leaves alone whole instead of unit by unit.
fn cplusplus_header(input: &SourceInput<'_>) -> Option<u32> {
    if !is_header(input) {
        return None;
    }
    input
        .text
        .lines()
        .position(|l| {
            let mut words = l.split_whitespace();
            match words.next() {
                Some("class") | Some("namespace") => words.next().is_some_and(|w| {
                    w.chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                        && !l.trim_end().ends_with(';')
                }),
                Some(w) => w.starts_with("template<") || (w == "template" && l.contains('<')),
                None => false,
            }
        })
        .map(|i| i as u32 + 1)
}

/// Instrument one C source or header file. Function-like macros defined
/// in the file are known not to be functions; see [`instrument_with_macros`].
pub fn instrument(input: &SourceInput<'_>) -> FrontendResult {
    instrument_with_macros(input, &HashSet::new())
}

/// [`instrument`], also treating `macros` (e.g. every
/// [`function_like_macros`] of the tree's headers) as macros: with
/// `--regions calls` a lower-case macro looks like a call, and wrapping
/// one that expands to a brace initializer or a statement breaks the code.
pub fn instrument_with_macros(input: &SourceInput<'_>, macros: &HashSet<String>) -> FrontendResult {
    let src = input.text;
    let file = input.display_path;
    if src.contains('\0') {
        return Err(vec![parse::binary_file(file)]);
    }
    if let Some(line) = cplusplus_header(input) {
        return Ok(Instrumented {
            text: src.to_string(),
            regions: Vec::new(),
            warnings: vec![Diagnostic::warning(
                file,
                line,
                1,
                "not measured: a C++ header (Regio's C front end reads C); left as written",
            )],
        });
    }
    let parsed = parse::parse(file, src)?;
    let root = parsed.tree.root_node();
    let unreadable = unreadable::Unreadable::new(&parsed.errors, src);
    let lines = syntax::Lines::new(src);
    let mut jumps = jumps::JumpCache::default();
    let dirs = directives::analyse(root, src, file, &lines, &mut jumps)?;
    let mut all_macros = function_like_macros(src);
    all_macros.extend(macros.iter().cloned());
    let mut out = plan::walk(
        root,
        input,
        &dirs,
        &all_macros,
        &lines,
        &mut jumps,
        plan::Scope::Except(&unreadable),
    );
    let mut warnings: Vec<Diagnostic> = dirs.warnings.to_vec();

    let unreadable = recover::read_again(input, &unreadable, &all_macros, &lines, &mut out);

    // Directives in units left as written stay as written too.
    let user_directives = dirs
        .list
        .iter()
        .any(|d| !unreadable.covers(d.range.clone()));
    warnings.extend(out.warnings);
    warnings.extend(unreadable.warnings(input, &lines));
    warnings.sort_by_key(|d| (d.line, d.col));
    // Units left as written are listed after every other region, so the
    // ids of what is measured do not depend on them.
    // Small functions left unmeasured need no probe, so no prelude.
    let walked_regions = out
        .regions
        .iter()
        .any(|r| !crate::small_functions::is_marked(&r.aux));
    let first_unlisted = input.first_id + out.regions.len() as u32;
    out.regions
        .extend(unreadable.regions(input, &lines, first_unlisted));

    if !walked_regions && !user_directives {
        return Ok(Instrumented {
            text: src.to_string(),
            regions: out.regions,
            warnings,
        });
    }
    // A byte-order mark must stay the first thing in the file.
    let at = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let mut edits = out.edits;
    let header = is_header(input);
    edits.push(prelude_edit(at, file, input.idf_path, header, &out.regions));
    if header {
        edits.push(epilogue_edit(src));
    }
    let text =
        edit::apply(src, &edits).map_err(|e| vec![Diagnostic::error(file, 1, 1, e.to_string())])?;
    Ok(Instrumented {
        text,
        regions: out.regions,
        warnings,
    })
}
