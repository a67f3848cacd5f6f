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
mod macro_uses;
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

/// After a file's last line (on a line of its own), last of all edits
/// there: a header's [`prelude::header_epilogue`], a `.c` file's
/// [`prelude::included_c_epilogue`].
fn epilogue_edit(src: &str, header: bool, line_name: &str, idf_path: &str) -> Edit {
    let newline = if src.is_empty() || src.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let epilogue = match header {
        true => prelude::header_epilogue(),
        false => prelude::included_c_epilogue(line_name, idf_path),
    };
    Edit::insert(src.len(), format!("{newline}{epilogue}")).with_order(i64::MAX)
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
/// (`class X`, `template <...>`, `namespace n`) outside the branches no
/// GNU C compiler compiles (`#ifdef __cplusplus`): a C++ header named
/// `.h`, which no C unit can include. It is C++ source, like the `.cpp`
/// files next to it: copied as it is, neither measured nor listed (a C
/// build never compiles it, so no C code of the tree is lost).
fn cplusplus_header(input: &SourceInput<'_>) -> Option<u32> {
    if !is_header(input) {
        return None;
    }
    let mut foreign: Option<Vec<std::ops::Range<usize>>> = None;
    let mut at = 0usize;
    input
        .text
        .split_inclusive('\n')
        .position(|l| {
            let start = at;
            at += l.len();
            let cplusplus = cplusplus_line(l);
            cplusplus && {
                let spans = foreign.get_or_insert_with(|| recover::never_compiled(input.text));
                !spans.iter().any(|s| s.start <= start && start < s.end)
            }
        })
        .map(|i| i as u32 + 1)
}

/// A line only C++ has: `class X` or `namespace n` alone or before `{`
/// or `:` (not `class size,` in a C parameter list), `template <...>`.
fn cplusplus_line(l: &str) -> bool {
    let t = l.trim();
    let head = |kw: &str| {
        let Some(rest) = t.strip_prefix(kw) else {
            return false;
        };
        if !rest.starts_with([' ', '\t']) {
            return false;
        }
        let rest = rest.trim_start();
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[name_len..].trim_start();
        name_len > 0
            && !rest.starts_with(|c: char| c.is_ascii_digit())
            && (after.is_empty() || after.starts_with(['{', ':']))
    };
    head("class")
        || head("namespace")
        || t.starts_with("template<")
        || (t.starts_with("template") && t["template".len()..].trim_start().starts_with('<'))
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
    if cplusplus_header(input).is_some() {
        return Ok(Instrumented {
            text: src.to_string(),
            regions: Vec::new(),
            warnings: Vec::new(),
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

    let unreadable =
        recover::read_again(input, &parsed, &unreadable, &all_macros, &lines, &mut out);

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
    edits.push(epilogue_edit(src, header, file, input.idf_path));
    let text =
        edit::apply(src, &edits).map_err(|e| vec![Diagnostic::error(file, 1, 1, e.to_string())])?;
    Ok(Instrumented {
        text,
        regions: out.regions,
        warnings,
    })
}
