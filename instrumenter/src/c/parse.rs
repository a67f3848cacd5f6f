//! Turning text into a tree, and refusing what is not plain C text.

use std::borrow::Cow;

use tree_sitter::{InputEdit, Node, Parser, Tree};

use crate::diag::Diagnostic;

use super::syntax::{function_name, outermost_function, preorder, text, KindName, Lines, Marks};

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
        // A line without `#` is no directive: skip the per-line word
        // split, which every line of a file paid.
        if line.as_bytes().contains(&b'#') && directive_words(line).is_some() {
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

/// A parse tree and the places in it tree-sitter could not read.
pub(crate) struct Parsed {
    pub(crate) tree: Tree,
    /// Innermost ERROR nodes and MISSING tokens, in source order.
    pub(crate) errors: Vec<SyntaxError>,
    /// The text `tree` was parsed from (blanked for the parser), so a
    /// second reading can re-parse only what it changes.
    pub(crate) text: String,
}

/// One place tree-sitter could not read: where it is, what a user is told
/// about it, and the smallest unit around it that is left as written.
#[derive(Debug, Clone)]
pub(crate) struct SyntaxError {
    pub(crate) start: usize,
    pub(crate) what: String,
    /// Byte range of the enclosing function definition, else of the
    /// top-level declaration or item (looking through `#if` groups).
    pub(crate) unit: std::ops::Range<usize>,
    /// The function's name when the unit is a function definition.
    pub(crate) function: Option<String>,
    /// The unit is no whole item (a block or statement at file scope, an
    /// ERROR node there): what lies next to it may belong to it.
    pub(crate) loose: bool,
}

/// Parses `src`; fails only when the parser itself is unusable. Syntax the
/// grammar does not follow is no failure: it comes back in
/// [`Parsed::errors`] so the front end can leave those parts as written.
pub(crate) fn parse(display_path: &str, src: &str) -> Result<Parsed, Vec<Diagnostic>> {
    parse_text(display_path, &mask_cplusplus_guards(src), src)
}

/// Parses `masked` (the same length as `src`, blanked for the parser)
/// and reports its errors against `src`.
pub(crate) fn parse_text(
    display_path: &str,
    masked: &str,
    src: &str,
) -> Result<Parsed, Vec<Diagnostic>> {
    parse_text_again(display_path, masked, src, None)
}

/// [`parse_text`], reusing `earlier` (a parse of a text of the same
/// length) where its text and `masked` agree: tree-sitter re-reads only
/// the edited ranges. The second reading changes a few units of a file
/// (SQLite's amalgamation: 3.5 MB parsed again for a few hundred units).
pub(crate) fn parse_text_again(
    display_path: &str,
    masked: &str,
    src: &str,
    earlier: Option<&Parsed>,
) -> Result<Parsed, Vec<Diagnostic>> {
    let mut parser = Parser::new();
    let internal = |what: String| vec![Diagnostic::error(display_path, 1, 1, what)];
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .map_err(|e| internal(format!("internal error: C grammar unusable: {e}")))?;
    let old = earlier
        .filter(|e| e.text.len() == masked.len())
        .map(|e| edited(&e.tree, &e.text, masked));
    let tree = parser
        .parse(masked, old.as_ref())
        .ok_or_else(|| internal("internal error: the C parser gave up".into()))?;
    let errors = syntax_errors(tree.root_node(), src);
    Ok(Parsed {
        tree,
        errors,
        text: masked.to_string(),
    })
}

/// `tree` (a parse of `was`) told of every range where `now` differs, as
/// edits of equal length; runs less than 64 bytes apart are one edit.
fn edited(tree: &Tree, was: &str, now: &str) -> Tree {
    const JOIN: usize = 64;
    let (a, b) = (was.as_bytes(), now.as_bytes());
    let mut tree = tree.clone();
    let (was_at, now_at) = (Lines::new(was), Lines::new(now));
    let mut i = 0;
    while i < a.len() {
        if a[i] == b[i] {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        let mut j = end;
        while j < a.len() && j - end <= JOIN {
            if a[j] != b[j] {
                end = j + 1;
            }
            j += 1;
        }
        tree.edit(&InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: end,
            start_position: was_at.point(start),
            old_end_position: was_at.point(end),
            new_end_position: now_at.point(end),
        });
        i = end;
    }
    tree
}

/// Every innermost ERROR node and every MISSING token, in source order.
fn syntax_errors(root: Node<'_>, src: &str) -> Vec<SyntaxError> {
    let mut found: Vec<SyntaxError> = Vec::new();
    stray_blocks(root, &mut found);
    misread_nested_definitions(root, src, &mut found);
    definitions_without_parameters(root, &mut found);
    if !root.has_error() {
        found.sort_by_key(|e| e.start);
        return found;
    }
    preorder(root, |n, ancestors| {
        if n.is_missing() || (n.is_error() && !has_error_below(n)) {
            let unit = enclosing_unit(n, ancestors);
            found.push(SyntaxError {
                start: n.start_byte(),
                what: describe(n, src),
                unit: unit.byte_range(),
                // A misread statement can look like a definition of `if`.
                function: (unit.kind_name() == "function_definition")
                    .then(|| function_name(unit, src))
                    .filter(|f| {
                        !matches!(
                            f.as_str(),
                            "if" | "else" | "while" | "for" | "switch" | "do" | "return"
                        )
                    }),
                loose: unit.is_error() || unit.kind_name().ends_with("_statement"),
            });
            return false;
        }
        n.has_error()
    });
    found.sort_by_key(|e| e.start);
    found
}

/// `vmcase(OP_MOVE) {`, `vmdispatch (op) {` inside a function (macros
/// that expand to a case label or a `switch`, then a block): tree-sitter
/// reads the macro use and the block as a nested function definition. Its
/// probes would be wrong (a "function" left by `goto` or `break`), so the
/// enclosing function is a unit the second reading reads again. A real
/// GNU nested function is rare; its enclosing function is then left as
/// written (measure less, never wrongly).
fn misread_nested_definitions(root: Node<'_>, src: &str, found: &mut Vec<SyntaxError>) {
    // A definition's body is a block, so its node holds a brace: the walk
    // enters only nodes that hold one (most expressions do not), instead
    // of every node of the file.
    let braces = Marks::new(src.match_indices(['{', '}']).map(|(k, _)| k));
    preorder(root, |n, ancestors| {
        if !braces.within(n) {
            return false;
        }
        if n.kind_name() != "function_definition" {
            return true;
        }
        let Some(outer) = outermost_function(ancestors) else {
            return true;
        };
        let head = n
            .child_by_field_name("declarator")
            .map_or("", |d| text(d, src));
        let shown: String = head.split_whitespace().collect::<Vec<_>>().join(" ");
        let shown: String = shown.chars().take(30).collect();
        found.push(SyntaxError {
            start: n.start_byte(),
            what: format!(
                "the C parser read `{shown}` and the block after it as a nested function"
            ),
            unit: outer.byte_range(),
            function: Some(function_name(outer, src)),
            loose: false,
        });
        false
    });
}

/// A block at file scope is the body of a function whose head the parser
/// misread (implicit `int`, a macro in it): head and body are one unit.
fn stray_blocks(container: Node<'_>, found: &mut Vec<SyntaxError>) {
    let mut c = container.walk();
    // Where the items before a block began: a K&R head the parser read as
    // several declarations (`float *f(n)` then `int n;`) is all of them.
    let mut head: Option<usize> = None;
    let mut prev: Option<Node> = None;
    let heads = split_function_heads(container);
    for n in container.named_children(&mut c) {
        match n.kind_name() {
            "compound_statement" => found.push(SyntaxError {
                start: n.start_byte(),
                what: "the C parser cannot read the head of this function".to_string(),
                unit: head
                    .or(prev.map(|p| p.start_byte()))
                    .unwrap_or(n.start_byte())..n.end_byte(),
                function: None,
                loose: true,
            }),
            // A statement at file scope: the parser lost track of where a
            // function begins.
            k if k.ends_with("_statement") => found.push(SyntaxError {
                start: n.start_byte(),
                what: "the C parser read a statement outside any function here".to_string(),
                unit: heads
                    .binary_search_by_key(&n.start_byte(), |(statement, _)| *statement)
                    .map_or(n.start_byte(), |k| heads[k].1)..n.end_byte(),
                function: None,
                loose: true,
            }),
            k if is_group(k) => stray_blocks(n, found),
            _ => {}
        }
        match n.kind_name() {
            "comment" => {}
            "declaration" | "ERROR" | "expression_statement" => {
                head = head.or(Some(n.start_byte()));
            }
            _ => head = None,
        }
        if n.kind_name() != "comment" {
            prev = Some(n);
        }
    }
}

/// `static int f(const char *z, T *p){` read as loose pieces at file
/// scope (specifiers, a `function_declarator`, a `{`), then the body's
/// declarations and statements one by one: tree-sitter's recovery from a
/// place later in the body (SQLite `parseModifier`, a `}` / `else if`
/// pair split by `#ifndef`). For each statement of such a body: (its
/// start, where the head's first piece starts), in source order, so its
/// unit holds the head and a second reading sees the whole function.
fn split_function_heads(container: Node<'_>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut c = container.walk();
    let children: Vec<Node> = container.children(&mut c).collect();
    let mut open: Option<usize> = None;
    for (k, n) in children.iter().enumerate() {
        let kind = n.kind_name();
        if kind == "function_declarator"
            && children.get(k + 1).is_some_and(|b| b.kind_name() == "{")
        {
            // The specifiers before the declarator, back to the last item
            // that ends something.
            let mut start = n.start_byte();
            for p in children[..k].iter().rev() {
                match p.kind_name() {
                    "storage_class_specifier"
                    | "type_qualifier"
                    | "primitive_type"
                    | "type_identifier"
                    | "sized_type_specifier"
                    | "struct_specifier"
                    | "union_specifier"
                    | "enum_specifier"
                    | "attribute_specifier" => {
                        start = p.start_byte();
                    }
                    "comment" => {}
                    _ => break,
                }
            }
            open = Some(start);
            continue;
        }
        match kind {
            "{" | "comment" | "declaration" | "ERROR" => {}
            k if k.ends_with("_statement") => {
                if let Some(h) = open {
                    out.push((n.start_byte(), h));
                }
            }
            _ => open = None,
        }
    }
    out
}

/// `class Wrapper { public: int get(); };` (C++ under `#ifdef
/// __cplusplus`): tree-sitter-c reads a type, a plain name and a block
/// as a function definition, which C never has (a function's declarator
/// has parameters). Its "body" is no code: the item is a place the
/// parser could not read (a branch no C compiler compiles is then not
/// listed either, `unreadable.rs`).
fn definitions_without_parameters(root: Node<'_>, found: &mut Vec<SyntaxError>) {
    let mut c = root.walk();
    let mut stack: Vec<Node> = root.children(&mut c).collect();
    while let Some(n) = stack.pop() {
        if is_group(n.kind_name()) {
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
            continue;
        }
        if n.kind_name() == "function_definition"
            && n.child_by_field_name("declarator")
                .is_some_and(|d| d.kind_name() == "identifier")
        {
            found.push(SyntaxError {
                start: n.start_byte(),
                what: "the C parser read a block after a name as a function".to_string(),
                unit: n.byte_range(),
                function: None,
                loose: false,
            });
        }
    }
}

/// The file and the preprocessor groups that may hold whole top-level
/// items.
pub(crate) fn is_container(kind: &str) -> bool {
    kind == "translation_unit" || is_group(kind)
}

/// Preprocessor groups that may hold whole top-level items.
fn is_group(kind: &str) -> bool {
    matches!(
        kind,
        "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_elifdef" | "preproc_else"
    )
}

/// The innermost function definition around `n`; outside functions the
/// outermost item that is not the file or an `#if` group, else `n`.
fn enclosing_unit<'t>(n: Node<'t>, ancestors: &[Node<'t>]) -> Node<'t> {
    if let Some(f) = outermost_function(ancestors) {
        return f;
    }
    ancestors
        .iter()
        .skip(1)
        .find(|a| !is_group(a.kind_name()))
        .copied()
        .unwrap_or(n)
}

/// What a user is told about one unreadable place.
fn describe(n: Node<'_>, src: &str) -> String {
    let before_directive = src
        .get(n.end_byte()..)
        .is_some_and(|rest| rest.trim_start().starts_with('#'));
    if n.is_missing() && before_directive {
        // `L:` or `if (x)` directly followed by a `#` line: a directive is
        // no statement, tree-sitter wants one first.
        "a preprocessor line stands where a statement is expected".to_string()
    } else if n.is_missing() && n.is_named() {
        format!(
            "the C parser expected {} here",
            n.kind_name().replace('_', " ")
        )
    } else if n.is_missing() {
        format!("the C parser expected `{}` here", n.kind_name())
    } else {
        let t = text(n, src);
        let first = t.split_whitespace().next().unwrap_or("");
        let shown: String = first.chars().take(30).collect();
        if shown.is_empty() {
            "the C parser cannot read this".to_string()
        } else {
            format!("the C parser cannot read `{shown}`")
        }
    }
}

fn has_error_below(node: Node<'_>) -> bool {
    let mut c = node.walk();
    let found = node.children(&mut c).any(|ch| ch.has_error());
    found
}
