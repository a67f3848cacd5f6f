//! Turning text into a tree, and refusing what is not plain C text.

use std::borrow::Cow;

use tree_sitter::{Node, Parser, Tree};

use crate::diag::Diagnostic;

use crate::diag::line_col;

use super::syntax::{preorder, text};

/// At most this many syntax errors are listed for one file; the rest are
/// usually knock-on effects of the first.
const MAX_SYNTAX_ERRORS: usize = 10;

/// NUL bytes mean a binary file, whatever its name says.
pub(crate) fn binary_file(display_path: &str) -> Diagnostic {
    Diagnostic::error(
        display_path,
        1,
        1,
        "binary file (contains NUL bytes); cannot instrument it",
    )
}

/// Blanks the `extern "C" {` and `}` lines of `#ifdef __cplusplus` blocks
/// for the parser only. Headers use this idiom all the time, and
/// tree-sitter-c cannot pair a brace opened in one `#ifdef` with one closed
/// in another. The directives stay, so the tree keeps an empty `#ifdef`;
/// blanking keeps every byte offset, so the tree still describes the
/// original text, which is what gets edited.
pub(crate) fn mask_cplusplus_guards(src: &str) -> Cow<'_, str> {
    let mut blank: Vec<std::ops::Range<usize>> = Vec::new();
    let mut in_guard = false;
    let mut braces: Vec<std::ops::Range<usize>> = Vec::new();
    let mut at = 0;
    for line in src.split_inclusive('\n') {
        let range = at..at + line.trim_end_matches(['\n', '\r']).len();
        at += line.len();
        if directive_words(line).is_some() {
            // The block is done at the next directive; it qualifies when
            // it held nothing but the linkage brace.
            if in_guard && braces.len() == 1 {
                blank.append(&mut braces);
            }
            braces.clear();
            in_guard = is_cplusplus_test(line);
            continue;
        }
        if !in_guard {
            continue;
        }
        let words: String = strip_line_comment(line).split_whitespace().collect();
        if words == "extern\"C\"{" || words == "}" {
            braces.push(range);
        } else if !words.is_empty() {
            in_guard = false;
            braces.clear();
        }
    }
    if blank.is_empty() {
        return Cow::Borrowed(src);
    }
    let mut masked = src.to_string();
    for r in blank {
        // The blanked lines hold only ASCII (the brace and `extern "C"`
        // plus comments); a comment with other characters keeps the line.
        if src[r.clone()].is_ascii() {
            masked.replace_range(r.clone(), &" ".repeat(r.len()));
        }
    }
    Cow::Owned(masked)
}

fn strip_line_comment(line: &str) -> &str {
    let l = line.split("//").next().unwrap_or("");
    match (l.find("/*"), l.rfind("*/")) {
        (Some(a), Some(_)) => &l[..a],
        _ => l,
    }
}

fn directive_words(line: &str) -> Option<Vec<&str>> {
    let t = strip_line_comment(line).trim_start();
    let rest = t.strip_prefix('#')?;
    Some(
        rest.split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .filter(|w| !w.is_empty())
            .collect(),
    )
}

fn is_cplusplus_test(line: &str) -> bool {
    matches!(
        directive_words(line).as_deref(),
        Some(["ifdef", "__cplusplus"]) | Some(["if", "defined", "__cplusplus"])
    )
}

pub(crate) fn parse(display_path: &str, src: &str) -> Result<Tree, Vec<Diagnostic>> {
    let mut parser = Parser::new();
    let internal = |what: String| vec![Diagnostic::error(display_path, 1, 1, what)];
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .map_err(|e| internal(format!("internal error: C grammar unusable: {e}")))?;
    let masked = mask_cplusplus_guards(src);
    let tree = parser
        .parse(masked.as_ref(), None)
        .ok_or_else(|| internal("internal error: the C parser gave up".into()))?;
    let errors = syntax_errors(tree.root_node(), src, display_path);
    if errors.is_empty() {
        Ok(tree)
    } else {
        Err(errors)
    }
}

/// Every innermost ERROR node and every MISSING token, in source order.
fn syntax_errors(root: Node<'_>, src: &str, display_path: &str) -> Vec<Diagnostic> {
    if !root.has_error() {
        return Vec::new();
    }
    let mut found: Vec<Node> = Vec::new();
    preorder(root, |n, _| {
        if n.is_missing() {
            found.push(n);
            return false;
        }
        if n.is_error() && !has_error_below(n) {
            found.push(n);
            return false;
        }
        n.has_error()
    });
    found.sort_by_key(|n| n.start_byte());
    found.truncate(MAX_SYNTAX_ERRORS);
    found
        .into_iter()
        .map(|n| {
            let (line, col) = line_col(src, n.start_byte());
            let before_directive = src[n.end_byte()..].trim_start().starts_with('#');
            let what = if n.is_missing() && before_directive {
                // `L:` or `if (x)` directly followed by a `#pragma` line: a
                // directive is no statement, tree-sitter wants one first.
                "a label, `if`, `else` or loop header needs a statement before the next `#` line; add `;` or braces".to_string()
            } else if n.is_missing() && n.is_named() {
                format!("expected {}", n.kind().replace('_', " "))
            } else if n.is_missing() {
                format!("expected `{}`", n.kind())
            } else {
                let t = text(n, src);
                let first = t.split_whitespace().next().unwrap_or("");
                let shown: String = first.chars().take(30).collect();
                if shown.is_empty() {
                    "unexpected input".to_string()
                } else {
                    format!("unexpected `{shown}`")
                }
            };
            Diagnostic::error(display_path, line, col, format!("cannot parse C here ({what})"))
        })
        .collect()
}

fn has_error_below(node: Node<'_>) -> bool {
    let mut c = node.walk();
    let found = node.children(&mut c).any(|ch| ch.has_error());
    found
}
