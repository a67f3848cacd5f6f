//! `// regio: begin NAME`, `// regio: end NAME`, `// regio: disable`,
//! `// regio: enable` comments, each on its own line. A begin/end pair
//! must sit in one block, between its statements; the region is a guard
//! variable from `begin` to an explicit `drop` at `end`, so `let`s between
//! them stay visible after it, and `return`, `?`, `break` out of the block
//! or a panic close it. `skip` is `#[regio::skip]` on the item in Rust.

use std::ops::Range;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::Offsets;
use crate::diag::{line_col, Diagnostic};
use crate::directive_grammar::{self as grammar, Command};
use crate::edit::Edit;
use crate::frontend::SourceInput;

const SENTINEL: &str = "// regio:";

/// A block's inside and its statements, as byte ranges.
struct Block {
    inside: Range<usize>,
    statements: Vec<Range<usize>>,
}

struct Blocks<'a> {
    text: &'a str,
    offsets: &'a Offsets,
    found: Vec<Block>,
}

impl<'ast> Visit<'ast> for Blocks<'_> {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        let at = |s: proc_macro2::Span, end: bool| {
            let lc = if end { s.end() } else { s.start() };
            self.offsets.of(self.text, lc)
        };
        let open = b.brace_token.span.open();
        let close = b.brace_token.span.close();
        self.found.push(Block {
            inside: at(open, true)..at(close, false),
            statements: b
                .stmts
                .iter()
                .map(|s| at(s.span(), false)..at(s.span(), true))
                .collect(),
        });
        visit::visit_block(self, b);
    }
}

/// One directive comment.
struct Found {
    command: Command,
    /// Offset of `//`.
    at: usize,
    /// Index into the blocks, innermost containing it.
    block: usize,
}

fn words(line: &str, base: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut pos = 0;
    for w in line.split([' ', '\t']) {
        if !w.is_empty() {
            out.push((base + pos, w));
        }
        pos += w.len() + 1;
    }
    out
}

pub(crate) fn apply(
    file: &syn::File,
    input: &SourceInput<'_>,
    offsets: &Offsets,
    edits: &mut Vec<Edit>,
) -> Result<(), Vec<Diagnostic>> {
    let text = input.text;
    if !text.contains("regio:") {
        return Ok(());
    }
    let mut blocks = Blocks {
        text,
        offsets,
        found: Vec::new(),
    };
    blocks.visit_file(file);
    let blocks = blocks.found;
    let error = |at: usize, msg: String| {
        let (l, c) = line_col(text, at);
        Diagnostic::error(input.display_path, l, c, msg)
    };
    let mut errors = Vec::new();
    let mut found = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let here = line_start;
        line_start += line.len();
        let trimmed = line.trim_start();
        let Some(after) = trimmed.strip_prefix("//") else {
            continue;
        };
        let slash_at = here + (line.len() - trimmed.len());
        let body = after.trim_start();
        if body.len() < 6 || !body[..6].eq_ignore_ascii_case("regio:") {
            continue;
        }
        let body_at = slash_at + 2 + (after.len() - body.len()) + 6;
        let rest = body[6..].trim_end();
        let command = match grammar::parse(&words(rest, body_at), SENTINEL, slash_at) {
            Ok((c, _)) => c,
            Err(e) => {
                errors.push(error(e.at, e.message));
                continue;
            }
        };
        if command == Command::Skip {
            errors.push(error(
                slash_at,
                "`// regio: skip` is written `#[regio::skip]` on the function in Rust".into(),
            ));
            continue;
        }
        let innermost = blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.inside.contains(&slash_at))
            .min_by_key(|(_, b)| b.inside.len())
            .map(|(i, _)| i);
        let Some(block) = innermost else {
            errors.push(error(
                slash_at,
                format!("{} outside a function body", command.spelled(SENTINEL)),
            ));
            continue;
        };
        if blocks[block]
            .statements
            .iter()
            .any(|s| s.start < slash_at && slash_at < s.end)
        {
            errors.push(error(
                slash_at,
                format!(
                    "{} must stand between the statements of a block",
                    command.spelled(SENTINEL)
                ),
            ));
            continue;
        }
        found.push(Found {
            command,
            at: slash_at,
            block,
        });
    }

    // Pair begins and ends; a region may not cross another.
    let mut open: Vec<(String, usize, usize, usize)> = Vec::new(); // name, at, block, var
    let mut next_var = 0;
    let mut planned: Vec<(usize, String)> = Vec::new();
    for f in &found {
        match &f.command {
            Command::Begin(name) => {
                let var = next_var;
                next_var += 1;
                open.push((name.clone(), f.at, f.block, var));
                if input.filter.allows_region(name) {
                    planned.push((
                        f.at,
                        format!("let __regio_user_{var} = ::regio::guard!(User, \"{name}\"); "),
                    ));
                }
            }
            Command::End(name) => match open.last() {
                Some((top, begin_at, block, var)) if top == name => {
                    if *block != f.block {
                        let (l, c) = line_col(text, *begin_at);
                        errors.push(error(
                            f.at,
                            format!("`// regio: end {name}` is not in the block of its `begin` at {l}:{c}"),
                        ));
                    } else if input.filter.allows_region(name) {
                        planned.push((f.at, format!("drop(__regio_user_{var}); ")));
                    }
                    open.pop();
                }
                Some((top, begin_at, ..)) => {
                    let (l, c) = line_col(text, *begin_at);
                    errors.push(error(
                        f.at,
                        format!("`// regio: end {name}` does not match the innermost open region `{top}` (begun at {l}:{c})"),
                    ));
                }
                None => errors.push(error(
                    f.at,
                    format!("`// regio: end {name}` has no matching `// regio: begin {name}`"),
                )),
            },
            Command::Disable => planned.push((f.at, "::regio::disable(); ".into())),
            Command::Enable => planned.push((f.at, "::regio::enable(); ".into())),
            Command::Skip => {}
        }
    }
    for (name, at, ..) in &open {
        errors.push(error(
            *at,
            format!("`// regio: begin {name}` is never closed"),
        ));
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| (d.line, d.col));
        return Err(errors);
    }
    edits.extend(planned.into_iter().map(|(at, t)| Edit::insert(at, t)));
    Ok(())
}
