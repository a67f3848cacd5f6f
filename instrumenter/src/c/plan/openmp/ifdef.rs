//! An OpenMP directive inside an `#if` group whose statement follows the
//! `#endif`, the idiom of portable HPC code:
//!
//! ```c
//! #ifdef _OPENMP
//! #pragma omp parallel for private(i)
//! #endif
//! for (i = 0; i < n; i++) ...
//! ```
//!
//! The directive line becomes the construct's opening half in its own
//! group, as anywhere; the closing half after the statement gets the same
//! condition again (the group's lines as written, the other branches of an
//! `#elif`/`#else` chain empty unless they hold an alternative directive of
//! the same form), so both halves are compiled in or out together:
//!
//! ```c
//! #ifdef _OPENMP
//! { fork; _Pragma("omp parallel ...") { begin; ...
//! #endif
//! for (i = 0; i < n; i++) ...
//! #ifdef _OPENMP
//! #line 4
//! ... end; } join; }
//! #endif
//! #line 4
//! ```
//!
//! Those are the only lines a probe adds to a C file; the `#line`s give
//! the closing probes and the rest of the statement's line the number of
//! that line, so every later line keeps its number.
//!
//! This is exact when the repeated chain decides what the original one
//! decided: nothing between the group's `#if` line and the end of the
//! statement can change the condition's value (`#define`/`#undef` of a
//! name it tests, of any name when it expands macros, `#include`,
//! `push_macro`/`pop_macro`, `__LINE__`, `__COUNTER__`), and no branch
//! holds a nested group (where an alternative directive could hide) or a
//! `#pragma regio` line. Code in a branch (Rodinia's `omp_set_num_threads`
//! before the directive) is compiled where it was and needs nothing.
//! Otherwise the directive is left as written with a reason.

use crate::c::syntax::KindName;
use std::collections::HashSet;

use tree_sitter::Node;

use super::{branch_items, chain_top, is_alternative, is_conditional, pragma_argument};
use crate::omp_clauses::reason;

/// One `#if` chain between a directive and its statement: the chain (its
/// `#if`/`#ifdef`/`#ifndef` node) and the branch the directive lies in.
#[derive(Clone, Copy)]
pub(super) struct Level<'t> {
    top: Node<'t>,
    branch: Node<'t>,
}

/// The `#if` chains a directive must leave before its statement comes
/// (innermost first; empty when the statement follows in the same branch),
/// or why the condition cannot be repeated exactly.
pub(super) fn levels<'t>(n: Node<'t>, src: &str) -> Result<Vec<Level<'t>>, &'static str> {
    let mut out = Vec::new();
    let mut cur = n;
    loop {
        if next_item(cur, src).is_some_and(|k| !is_alternative(k.kind_name())) {
            break;
        }
        let Some(p) = cur
            .parent()
            .filter(|p| is_conditional(p.kind_name()) || is_alternative(p.kind_name()))
        else {
            break;
        };
        let Some(top) = chain_top(p) else { break };
        out.push(Level { top, branch: p });
        cur = top;
    }
    for (i, l) in out.iter().enumerate() {
        let inner = i.checked_sub(1).map(|j| out[j].top.id());
        for b in chain_branches(l.top) {
            // Code in a branch is compiled exactly where it was; a nested
            // group (other than the one the directive is in) could hold an
            // alternative directive the repeated chain would not know of.
            let plain = branch_items(b).iter().all(|k| {
                let on_path = Some(k.id()) == inner && b.id() == l.branch.id();
                on_path || !(is_conditional(k.kind_name()) || is_regio_pragma(*k, src))
            });
            if !plain {
                return Err(reason::IF_GROUP);
            }
        }
    }
    Ok(out)
}

/// Whether the condition of every chain of `levels` keeps its value from
/// the chain's `#if` line to `end` (the end of the last statement).
pub(super) fn condition_holds(
    levels: &[Level<'_>],
    src: &str,
    end: usize,
) -> Result<(), &'static str> {
    let Some(outer) = levels.last() else {
        return Ok(());
    };
    let mut names = Names::default();
    for l in levels {
        for b in chain_branches(l.top) {
            match condition_line(b, src) {
                Some(line) => names.read(line),
                None if b.kind_name() == "preproc_else" => {}
                None => return Err(reason::IF_CONDITION),
            }
        }
    }
    if names.varies || changes_a_name(&src[outer.top.start_byte()..end], &names) {
        return Err(reason::IF_CONDITION);
    }
    Ok(())
}

/// The closing text `after` of the directive at `levels` with its
/// condition repeated around it, to stand at the end of a statement whose
/// last line is `line`; `members`: the directive and its alternatives of
/// the same form (they share this closing text). None when every
/// configuration of the chains has one of them, so `after` needs no
/// condition.
pub(super) fn around(
    levels: &[Level<'_>],
    members: &[Node<'_>],
    src: &str,
    after: &str,
    line: u32,
    eol: &str,
) -> Option<String> {
    if covered(levels, levels.len(), members) {
        return None;
    }
    // The probes keep the statement's last line as theirs (diagnostics,
    // debug information), and so does the rest of that line.
    let marker = format!("#line {line}{eol}");
    let after = format!("{marker}{}{eol}", after.trim_start());
    let mut out = String::from(eol);
    write_chain(levels, levels.len(), members, src, &after, eol, &mut out);
    out.push_str(&marker);
    Some(out)
}

/// The line end of the line holding byte `at` (CRLF files get CRLF lines).
pub(super) fn line_end_at(src: &str, at: usize) -> &'static str {
    match src[at..].find('\n') {
        Some(i) if src[..at + i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// Whether chain `levels[k - 1]` (and the chains inside its path) has a
/// member in every configuration: an `#else`, and in every branch a
/// member, or the path into an inner chain that is covered itself.
fn covered(levels: &[Level<'_>], k: usize, members: &[Node<'_>]) -> bool {
    let Some(l) = k.checked_sub(1).map(|i| levels[i]) else {
        return true;
    };
    let has_else = chain_branches(l.top)
        .iter()
        .any(|b| b.kind_name() == "preproc_else");
    has_else
        && chain_branches(l.top).iter().all(|b| {
            holds_member(*b, members)
                || (b.id() == l.branch.id() && covered(levels, k - 1, members))
        })
}

fn write_chain(
    levels: &[Level<'_>],
    k: usize,
    members: &[Node<'_>],
    src: &str,
    after: &str,
    eol: &str,
    out: &mut String,
) {
    let Some(l) = k.checked_sub(1).map(|i| levels[i]) else {
        out.push_str(after);
        return;
    };
    // Branches after the last one with text are left out (empty).
    let branches = chain_branches(l.top);
    let on_path = |b: Node<'_>| b.id() == l.branch.id();
    let last = branches
        .iter()
        .rposition(|b| on_path(*b) || holds_member(*b, members))
        .unwrap_or(0);
    for b in &branches[..=last] {
        out.push_str(condition_line(*b, src).unwrap_or("#else"));
        out.push_str(eol);
        if on_path(*b) {
            write_chain(levels, k - 1, members, src, after, eol, out);
        } else if holds_member(*b, members) {
            out.push_str(after);
        }
    }
    out.push_str("#endif");
    out.push_str(eol);
}

fn holds_member(branch: Node<'_>, members: &[Node<'_>]) -> bool {
    members
        .iter()
        .any(|m| m.parent().is_some_and(|p| p.id() == branch.id()))
}

/// The nodes of a chain's branches in order: the `#if` node itself (its
/// first branch), then each `#elif` / `#else`.
fn chain_branches(top: Node<'_>) -> Vec<Node<'_>> {
    let mut out = vec![top];
    let mut alt = top.child_by_field_name("alternative");
    while let Some(a) = alt {
        out.push(a);
        alt = a.child_by_field_name("alternative");
    }
    out
}

/// The line that opens branch `b` as written, up to the end of its
/// condition (`#ifdef X`, `#if defined(A) && B`, `#elif B`); None for
/// `#else` or when the condition cannot be read.
fn condition_line<'s>(b: Node<'_>, src: &'s str) -> Option<&'s str> {
    let c = b
        .child_by_field_name("condition")
        .or_else(|| b.child_by_field_name("name"))?;
    (c.end_byte() > b.start_byte()).then(|| &src[b.start_byte()..c.end_byte()])
}

/// The next item after `n` in its branch that is neither a comment nor a
/// `#pragma` line (those may stand between a directive and its statement).
fn next_item<'t>(n: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut next = n.next_named_sibling();
    while let Some(k) = next {
        if k.kind_name() != "comment" && !is_kept_pragma(k, src) {
            return Some(k);
        }
        next = k.next_named_sibling();
    }
    None
}

/// A `#pragma` line other than a Regio directive (whose pairing must not
/// depend on a configuration).
fn is_kept_pragma(k: Node<'_>, src: &str) -> bool {
    pragma_argument(k, src).is_some() && !is_regio_pragma(k, src)
}

fn is_regio_pragma(k: Node<'_>, src: &str) -> bool {
    pragma_argument(k, src).is_some_and(|a| {
        a.trim_start()
            .get(..5)
            .is_some_and(|w| w.eq_ignore_ascii_case("regio"))
    })
}

/// The macro names a condition depends on.
#[derive(Default)]
struct Names {
    /// Names only asked whether they are defined (`#ifdef X`, `defined(X)`).
    tested: HashSet<String>,
    /// A name is expanded: its value may depend on any other macro.
    expands: bool,
    /// The value depends on where it is evaluated (`__LINE__`, `__COUNTER__`).
    varies: bool,
}

impl Names {
    fn read(&mut self, line: &str) {
        let body = line.trim_start().trim_start_matches('#').trim_start();
        let word_end = body
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(body.len());
        let (word, cond) = body.split_at(word_end);
        let idents = identifiers(cond);
        if matches!(word, "ifdef" | "ifndef" | "elifdef" | "elifndef") {
            self.tested.extend(idents);
            return;
        }
        let mut after_defined = false;
        for id in idents {
            if id == "defined" {
                after_defined = true;
                continue;
            }
            if matches!(id.as_str(), "__LINE__" | "__COUNTER__") {
                self.varies = true;
            }
            if !after_defined {
                self.expands = true;
            }
            after_defined = false;
            self.tested.insert(id);
        }
    }
}

/// The identifiers of a condition, in order (not those in numbers,
/// character constants or comments).
fn identifiers(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if s[i..].starts_with("/*") {
            i = s[i + 2..].find("*/").map_or(b.len(), |j| i + 2 + j + 2);
        } else if s[i..].starts_with("//") {
            i = s[i..].find('\n').map_or(b.len(), |j| i + j);
        } else if c == b'\'' || c == b'"' {
            let end = s[i + 1..]
                .find(c as char)
                .map_or(b.len(), |j| i + 1 + j + 1);
            i = end;
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(s[start..i].to_string());
        } else {
            i += 1;
        }
    }
    out
}

/// Whether a preprocessor line of `text` may change what `names`'
/// condition means: `#define`/`#undef` of a tested name (of any name when
/// the condition expands macros), `#include` (it may define anything),
/// `#pragma push_macro`/`pop_macro`. Lines in comments count too (when in
/// doubt, measure less).
fn changes_a_name(text: &str, names: &Names) -> bool {
    let mut continued = false;
    for line in text.lines() {
        let was_continued = continued;
        continued = line.trim_end().ends_with('\\');
        if was_continued {
            continue;
        }
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let ids = identifiers(rest);
        let mut ids = ids.iter().map(String::as_str);
        let changes = match ids.next() {
            Some("define" | "undef") => {
                let name = ids.next().unwrap_or("");
                names.expands || names.tested.contains(name)
            }
            Some("include" | "include_next" | "import") => true,
            Some("pragma") => ids.any(|w| matches!(w, "push_macro" | "pop_macro")),
            _ => false,
        };
        if changes {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(lines: &[&str]) -> Names {
        let mut n = Names::default();
        for l in lines {
            n.read(l);
        }
        n
    }

    #[test]
    fn names_of_conditions() {
        let n = names(&[
            "#ifdef HYPRE_USING_OPENMP",
            "#elif defined(A) && !defined B",
        ]);
        assert!(n.tested.contains("HYPRE_USING_OPENMP") && n.tested.contains("A"));
        assert!(n.tested.contains("B") && !n.expands && !n.varies);
        let n = names(&["#if N > 2 /* X */"]);
        assert!(n.expands && n.tested.contains("N") && !n.tested.contains("X"));
        assert!(names(&["#if __LINE__ > 0x10u"]).varies);
    }

    #[test]
    fn lines_that_change_a_condition() {
        let n = names(&["#ifdef X"]);
        assert!(changes_a_name("a;\n#  undef X\n", &n));
        assert!(changes_a_name("#define X 1\n", &n));
        assert!(!changes_a_name("#define Y 1\n#define Z \\\n#undef X\n", &n));
        assert!(changes_a_name("#include \"a.h\"\n", &n));
        assert!(changes_a_name("#pragma push_macro(\"X\")\n", &n));
        assert!(!changes_a_name(
            "#pragma omp barrier\nx = 1; // #undef X\n",
            &n
        ));
        let e = names(&["#if N > 2"]);
        assert!(changes_a_name("#define M 3\n", &e));
    }
}
