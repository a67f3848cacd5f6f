//! The preprocessed path: instrumenting the translation unit the compiler
//! sees (`cc -E` with the user's flags, run by the driver), so functions
//! that exist only after macro expansion are measured too.
//!
//! The text is the preprocessor's output: every header is expanded into
//! it, and `# N "file"` line markers say which file and line each part
//! comes from. Only functions whose definition starts in the unit's own
//! file are instrumented (a header's functions belong to the header, and
//! system headers are not the user's code); regions and diagnostics are
//! placed through the markers, so the IDF names the original file and
//! the line of the macro use. The markers stay in the output, so the
//! compiler's diagnostics and debug information name the original too.

use crate::c::syntax::KindName;
use std::collections::HashSet;
use std::ops::Range;

use regio_idf::Pos;
use tree_sitter::Node;

use crate::diag::Diagnostic;
use crate::edit::{self, Edit};
use crate::frontend::{FrontendResult, Instrumented, SourceInput};

use super::{directives, jumps, parse, plan, recover, syntax, unreadable};

/// For each line of the preprocessed text, the line of the unit's own
/// file it comes from (None: another file, or a marker line).
struct LineMap {
    own: Vec<Option<u32>>,
}

impl LineMap {
    fn new(text: &str, own_file: &str) -> Self {
        let mut own = Vec::new();
        let mut current: Option<u32> = None;
        for line in text.split('\n') {
            match marker(line) {
                Some((n, file)) => {
                    own.push(None);
                    current = (file == own_file).then_some(n);
                }
                None => {
                    own.push(current);
                    current = current.map(|n| n + 1);
                }
            }
        }
        LineMap { own }
    }

    /// The original line of a (1-based) line of the preprocessed text.
    fn original(&self, line: u32) -> Option<u32> {
        self.own.get(line as usize - 1).copied().flatten()
    }

    /// The original line of a position; the column is 1, as a column of
    /// the expanded text is none of the original (a macro's expansion is
    /// longer than its use).
    fn pos(&self, p: Pos) -> Option<Pos> {
        Some(Pos::new(self.original(p.line)?, 1))
    }
}

/// `# 12 "src/x.c" 2` (or `#line 12 "src/x.c"`): (12, "src/x.c").
fn marker(line: &str) -> Option<(u32, &str)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let n: u32 = rest[..digits].parse().ok()?;
    let quoted = rest[digits..].trim_start().strip_prefix('"')?;
    let end = quoted.find('"')?;
    Some((n, &quoted[..end]))
}

/// Instruments the preprocessed text `input.text` of the unit whose own
/// file the line markers call `own_file`.
pub fn instrument_preprocessed(input: &SourceInput<'_>, own_file: &str) -> FrontendResult {
    // The markers are read from the text as written, and the edits are
    // applied to it, so the output keeps every marker; everything else
    // reads the text with the markers blanked (same byte offsets).
    let written = input.text;
    let map = LineMap::new(written, own_file);
    let blanked = markers_blanked(written);
    let input = &SourceInput {
        text: &blanked,
        ..*input
    };
    let src = input.text;
    let file = input.display_path;
    let parsed = parse::parse(file, src)?;
    let root = parsed.tree.root_node();
    let lines = syntax::Lines::new(src);
    let own_functions = own_functions(root, &lines, &map);
    let in_own = |at: usize| own_functions.iter().any(|r| r.contains(&at));
    let errors: Vec<parse::SyntaxError> = parsed
        .errors
        .iter()
        .filter(|e| in_own(e.start))
        .cloned()
        .collect();
    let unreadable = unreadable::Unreadable::new(&errors, src);
    let measured: Vec<Range<usize>> = own_functions
        .into_iter()
        .filter(|r| !unreadable.overlaps(r))
        .collect();
    let mut jumps = jumps::JumpCache::default();
    // Directive errors name the line of the original file, as every
    // other diagnostic of this path does.
    let dirs = directives::analyse(root, src, file, &lines, &mut jumps).map_err(|errs| {
        errs.into_iter()
            .map(|mut d| {
                if let Some(line) = map.original(d.line) {
                    d.line = line;
                }
                d
            })
            .collect::<Vec<_>>()
    })?;
    let out = plan::walk(
        root,
        input,
        &dirs,
        &HashSet::new(),
        &lines,
        &mut jumps,
        plan::Scope::Only(&measured, &[]),
    );
    let mut out = out;
    // Pragmas survive preprocessing, so a `#pragma` between a statement's
    // head and its body still needs the second reading.
    let unreadable = recover::read_again(
        input,
        &parsed,
        &unreadable,
        &HashSet::new(),
        &lines,
        &mut out,
    );
    let mut regions = out.regions;
    let first_unlisted = input.first_id + regions.len() as u32;
    regions.extend(unreadable.regions(input, &lines, first_unlisted));
    // Positions in the original file; an end outside it (a macro whose
    // expansion ends elsewhere) is taken as the start's line.
    for r in &mut regions {
        let start = map.pos(r.start).unwrap_or(Pos::new(1, 1));
        // Names that carry their line (`parallel@12`, `loop@30`) name the
        // original line too, not the line of the preprocessed unit.
        let unit_line = format!("@{}", r.start.line);
        if let Some(stem) = r.name.strip_suffix(&unit_line) {
            r.name = format!("{stem}@{}", start.line);
        }
        r.end = map.pos(r.end).filter(|e| *e >= start).unwrap_or(start);
        r.start = start;
    }
    let mut warnings: Vec<Diagnostic> = dirs.warnings.to_vec();
    warnings.extend(out.warnings);
    warnings.extend(unreadable.warnings(input, &lines));
    for w in &mut warnings {
        if let Some(line) = map.original(w.line) {
            w.line = line;
        }
    }
    warnings.sort_by_key(|d| (d.line, d.col));
    if regions.iter().all(crate::frontend::is_listed_only) {
        return Ok(Instrumented {
            text: written.to_string(),
            regions,
            warnings,
        });
    }
    let mut edits: Vec<Edit> = out.edits;
    edits.push(super::prelude_edit(
        0,
        own_file,
        input.idf_path,
        false,
        &regions,
    ));
    let text = edit::apply(written, &edits)
        .map_err(|e| vec![Diagnostic::error(file, 1, 1, e.to_string())])?;
    Ok(Instrumented {
        text,
        regions,
        warnings,
    })
}

/// `text` with every line marker replaced by spaces, byte for byte (the
/// newlines stay). GCC writes markers inside a statement around the
/// expansion of a system header's macro (`if (fp != NULL)` becomes
/// `if (fp !=` / `# 12 "x.c" 3 4` / `((void *)0)` / `# 12 "x.c"` / `) {`),
/// and the C parser cannot read a directive inside an expression: without
/// this, every function comparing with `NULL`, or using `stdin`, `EOF`
/// or `errno`, was left unmeasured. No probe lands inside a marker line
/// (edits sit at the edges of syntax nodes, which blanks never are), so
/// the edits apply to the text as written.
fn markers_blanked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if marker(line).is_some() {
            out.extend(std::iter::repeat_n(' ', line.len()));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Byte ranges of the function definitions that start in the own file.
fn own_functions(root: Node<'_>, lines: &syntax::Lines, map: &LineMap) -> Vec<Range<usize>> {
    let mut c = root.walk();
    root.named_children(&mut c)
        .filter(|n| n.kind_name() == "function_definition")
        .filter(|n| map.original(lines.start(*n).line).is_some())
        .map(|n| n.byte_range())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_read() {
        assert_eq!(marker("# 12 \"src/x.c\" 2"), Some((12, "src/x.c")));
        assert_eq!(marker("#line 3 \"a b.c\""), Some((3, "a b.c")));
        assert_eq!(marker("#pragma omp parallel"), None);
    }

    #[test]
    fn markers_are_blanked_byte_for_byte() {
        let text = "if (p !=\n# 7 \"x\u{e9}.c\" 3 4\n((void *)0)\n# 7 \"x\u{e9}.c\"\n) {\n#pragma omp barrier\n";
        let blanked = markers_blanked(text);
        assert_eq!(blanked.len(), text.len());
        assert_eq!(
            blanked.lines().collect::<Vec<_>>(),
            [
                "if (p !=",
                &" ".repeat("# 7 \"x\u{e9}.c\" 3 4".len()),
                "((void *)0)",
                &" ".repeat("# 7 \"x\u{e9}.c\"".len()),
                ") {",
                "#pragma omp barrier",
            ]
        );
    }
}
