//! `#pragma regio ...` lines: recognising them, checking them, and pairing
//! `begin` with `end`. Everything here is decided before any edit is made,
//! so a file with a bad directive produces errors and no output.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use tree_sitter::Node;

use crate::diag::Diagnostic;

use super::jumps::{JumpCache, JumpIn};
use super::syntax::{innermost_function, is_loop, preorder, text, KindName, Lines, Marks};

use crate::directive_grammar as grammar;
pub(crate) use crate::directive_grammar::Command;

pub(crate) struct Directive {
    pub(crate) command: Command,
    /// What the probe replaces: the whole directive except the newline
    /// that ends it. Trailing comments go too: a `//` comment that was
    /// part of a pragma would be a C90 error in code.
    pub(crate) range: Range<usize>,
    /// End of the directive's last word (a user region's end position).
    pub(crate) last_word_end: usize,
}

/// A `begin`/`end` pair that passed every check.
pub(crate) struct UserRegion {
    pub(crate) name: String,
    /// From the `#` of `begin` to the end of the last word of `end`.
    pub(crate) span: Range<usize>,
}

pub(crate) struct Directives {
    /// In source order.
    pub(crate) list: Vec<Directive>,
    /// Directive index by the start offset of its `preproc_call` node.
    pub(crate) at: HashMap<usize, usize>,
    pub(crate) regions: Vec<UserRegion>,
    /// User region index by directive index, for its `begin` and its `end`.
    pub(crate) begins: HashMap<usize, usize>,
    pub(crate) ends: HashMap<usize, usize>,
    /// Node ids of the function definitions and loops `skip` names.
    pub(crate) skipped: HashSet<usize>,
    pub(crate) warnings: Vec<Diagnostic>,
}

/// Words of a directive argument with their offsets, after line splices and
/// comments are removed as the preprocessor would.
fn words(arg: &str, base: usize) -> Vec<(usize, &str)> {
    let b = arg.as_bytes();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut i = 0;
    fn flush<'s>(
        arg: &'s str,
        base: usize,
        start: &mut Option<usize>,
        end: usize,
        out: &mut Vec<(usize, &'s str)>,
    ) {
        if let Some(s) = start.take() {
            out.push((base + s, &arg[s..end]));
        }
    }
    while i < b.len() {
        let rest = &arg[i..];
        if rest.starts_with("\\\n") || rest.starts_with("\\\r\n") {
            flush(arg, base, &mut start, i, &mut out);
            i += if rest.starts_with("\\\n") { 2 } else { 3 };
        } else if rest.starts_with("//") {
            break;
        } else if let Some(comment) = rest.strip_prefix("/*") {
            flush(arg, base, &mut start, i, &mut out);
            i = comment.find("*/").map_or(b.len(), |e| i + 2 + e + 2);
        } else if b[i].is_ascii_whitespace() {
            flush(arg, base, &mut start, i, &mut out);
            i += 1;
        } else {
            if start.is_none() {
                start = Some(i);
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    flush(arg, base, &mut start, b.len().min(i), &mut out);
    out
}

struct Checker<'a> {
    src: &'a str,
    lines: &'a Lines,
    file: &'a str,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

impl Checker<'_> {
    fn error(&mut self, offset: usize, msg: String) {
        let p = self.lines.pos(offset);
        self.errors
            .push(Diagnostic::error(self.file, p.line, p.col, msg));
    }

    fn warning(&mut self, offset: usize, msg: String) {
        let p = self.lines.pos(offset);
        self.warnings
            .push(Diagnostic::warning(self.file, p.line, p.col, msg));
    }

    fn at(&self, offset: usize) -> String {
        self.lines.pos(offset).to_string()
    }

    /// The command of a `#pragma regio` line and the end offset of its
    /// last word, or None for other pragmas. Malformed regio lines are
    /// errors.
    fn command(&mut self, node: Node<'_>) -> Option<Option<(Command, usize)>> {
        let directive = node.child_by_field_name("directive")?;
        let d = text(directive, self.src);
        if d.trim_start_matches('#').trim() != "pragma" {
            return None;
        }
        let arg = node.child_by_field_name("argument")?;
        let w = words(text(arg, self.src), arg.start_byte());
        let (_, first) = *w.first()?;
        if !first.eq_ignore_ascii_case("regio") {
            return None;
        }
        match grammar::parse(&w[1..], "#pragma regio", w[0].0) {
            Ok(parsed) => Some(Some(parsed)),
            Err(e) => {
                self.error(e.at, e.message);
                Some(None)
            }
        }
    }
}

/// A `preproc_call` node and where it stands.
#[derive(Clone, Copy)]
struct Found<'t> {
    node: Node<'t>,
    /// Node id of the list of items it stands in (begin and end must share it).
    parent: Option<usize>,
    function: Option<Node<'t>>,
    /// The statement list it stands in, looking through `#if` branches (a
    /// region may live inside one branch).
    container: Option<Node<'t>>,
}

/// The function definition or loop a `skip` applies to.
fn skip_target(node: Node<'_>) -> Option<Node<'_>> {
    let mut next = node.next_named_sibling();
    while let Some(n) = next {
        if n.kind_name() != "comment" {
            break;
        }
        next = n.next_named_sibling();
    }
    let mut n = next?;
    while n.kind_name() == "labeled_statement" {
        n = n.named_child(n.named_child_count().checked_sub(1)?)?;
    }
    (n.kind_name() == "function_definition" || is_loop(n.kind_name())).then_some(n)
}

/// Finds and checks every regio directive of a file.
pub(crate) fn analyse(
    root: Node<'_>,
    src: &str,
    file: &str,
    lines: &Lines,
    jumps: &mut JumpCache,
) -> Result<Directives, Vec<Diagnostic>> {
    let mut ck = Checker {
        src,
        lines,
        file,
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let mut nodes: Vec<Found> = Vec::new();
    // Most files have no directive: skip the walk over their tree. A
    // directive's `regio` is a word of its own (`words`: split at blanks,
    // comments and line splices), so `region` or `REGIO_X` does not count
    // (SQLite's comments say "region": every reading walked its tree).
    // The walk enters only nodes that hold such a word: a directive's
    // node holds its own, so no directive is missed, and the walk stays
    // off the rest of the tree.
    let b = src.as_bytes();
    let ident = |k: usize| b[k].is_ascii_alphanumeric() || b[k] == b'_';
    let regio_words = Marks::new(
        b.windows(5)
            .enumerate()
            .filter(|(k, w)| {
                w.eq_ignore_ascii_case(b"regio")
                    && (*k == 0 || !ident(k - 1))
                    && (k + 5 == b.len() || !ident(k + 5))
            })
            .map(|(k, _)| k),
    );
    preorder(root, |n, ancestors| {
        if !regio_words.within(n) {
            return false;
        }
        if n.kind_name() == "preproc_call" {
            nodes.push(Found {
                node: n,
                parent: ancestors.last().map(|p| p.id()),
                function: innermost_function(ancestors),
                container: ancestors
                    .iter()
                    .rev()
                    .find(|a| !a.kind_name().starts_with("preproc_"))
                    .copied(),
            });
            return false;
        }
        true
    });

    let mut out = Directives {
        list: Vec::new(),
        at: HashMap::new(),
        regions: Vec::new(),
        begins: HashMap::new(),
        ends: HashMap::new(),
        skipped: HashSet::new(),
        warnings: Vec::new(),
    };
    let mut kept: Vec<Found> = Vec::new();
    for found in nodes {
        let node = found.node;
        let Some(parsed) = ck.command(node) else {
            continue;
        };
        let Some((command, end)) = parsed else {
            continue;
        };
        let start = node.start_byte();
        let whole = text(node, src);
        let replaced = whole.trim_end_matches('\n').trim_end_matches('\r').len();
        let needs_function = !matches!(command, Command::Skip);
        if needs_function {
            let word = match &command {
                Command::Begin(_) => "begin",
                Command::End(_) => "end",
                Command::Disable => "disable",
                _ => "enable",
            };
            if found.function.is_none() {
                ck.error(start, format!("`#pragma regio {word}` outside a function"));
                continue;
            }
            if found
                .container
                .is_none_or(|c| c.kind_name() != "compound_statement")
            {
                ck.error(
                    start,
                    format!("`#pragma regio {word}` must stand between the statements of a block"),
                );
                continue;
            }
        } else {
            match skip_target(node) {
                Some(t) => {
                    out.skipped.insert(t.id());
                }
                None => ck.warning(
                    start,
                    "`#pragma regio skip` is not followed by a function definition or loop; ignored"
                        .into(),
                ),
            }
        }
        out.at.insert(start, out.list.len());
        out.list.push(Directive {
            command,
            range: start..start + replaced,
            last_word_end: end,
        });
        kept.push(found);
    }

    pair(&mut ck, &mut out, &kept, jumps);
    let warnings = ck.warnings;
    crate::directive_grammar::checked(ck.errors, || Directives { warnings, ..out })
}

/// Matches `begin`/`end` like brackets and records the pairs that nest
/// properly and stay in one block.
fn pair(ck: &mut Checker<'_>, out: &mut Directives, nodes: &[Found<'_>], jumps: &mut JumpCache) {
    // Open begins: (directive index, name).
    let mut open: Vec<(usize, String)> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let at = out.list[i].range.start;
        match &out.list[i].command {
            Command::Begin(name) => open.push((i, name.clone())),
            Command::End(name) => {
                let Some(depth) = open.iter().rposition(|(_, n)| n == name) else {
                    match open.last() {
                        Some((b, top)) => ck.error(
                            at,
                            format!(
                                "`#pragma regio end {name}` does not match the innermost open region `{top}` (begun at {})",
                                ck.at(out.list[*b].range.start)
                            ),
                        ),
                        None => ck.error(
                            at,
                            format!("`#pragma regio end {name}` has no matching `#pragma regio begin {name}`"),
                        ),
                    }
                    continue;
                };
                if depth + 1 != open.len() {
                    let (inner, inner_name) = &open[open.len() - 1];
                    ck.error(
                        at,
                        format!(
                            "`#pragma regio end {name}` crosses user region `{inner_name}` (begun at {}), which is still open",
                            ck.at(out.list[*inner].range.start)
                        ),
                    );
                    open.remove(depth);
                    continue;
                }
                let (b, _) = open.pop().unwrap_or((i, String::new()));
                let begun = ck.lines.pos(out.list[b].range.start);
                if nodes[b].parent != node.parent {
                    ck.error(
                        at,
                        format!(
                            "user region `{name}` (begun at {begun}) crosses a block boundary: its `begin` and `end` must be in the same block"
                        ),
                    );
                    continue;
                }
                let span = out.list[b].range.start..out.list[i].last_word_end;
                if let Some(def) = node.function {
                    match jumps.get(def, ck.src).jump_into(&span) {
                        Some(JumpIn::Goto { goto_at, label }) => {
                            ck.error(
                                goto_at,
                                format!(
                                    "`goto {label}` jumps into user region `{name}` (begun at {begun}) from outside it"
                                ),
                            );
                            continue;
                        }
                        Some(JumpIn::Case { case_at, switch_at }) => {
                            ck.error(
                                case_at,
                                format!(
                                    "case label inside user region `{name}` (begun at {begun}) belongs to the `switch` at {} outside it",
                                    ck.at(switch_at)
                                ),
                            );
                            continue;
                        }
                        None => {}
                    }
                }
                let r = out.regions.len();
                out.regions.push(UserRegion {
                    name: name.clone(),
                    span,
                });
                out.begins.insert(b, r);
                out.ends.insert(i, r);
            }
            _ => {}
        }
    }
    for (b, name) in open {
        ck.error(
            out.list[b].range.start,
            format!("`#pragma regio begin {name}` is never closed"),
        );
    }
}
