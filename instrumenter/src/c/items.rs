//! The top-level items of C text that hold a braced part (function
//! definitions above all), found by their tokens alone: where a function
//! begins and ends when tree-sitter's recovery has scattered it.
//!
//! When the parser cannot read something deep in a long function, its
//! recovery can give up the definition and leave the head, the K&R
//! parameter declarations and the body's statements as loose top-level
//! pieces (Rodinia's `getopt.c`). A piece is no unit a second reading can
//! read: the unit must be the whole function, head included. Braces and
//! parentheses tell where it is, counted in one configuration (the first
//! branch of each conditional group, as the second reading reads), and a
//! head runs back over its K&R declarations to the end of the item before.

use std::ops::Range;

use super::mask::{lex, Tok};
use super::recover::{is_if_zero, negates_foreign};

/// One top-level item with a braced part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// From the item's first code byte to just after its closing `}`.
    pub(crate) range: Range<usize>,
    /// The offset of its first top-level `{`.
    pub(crate) open: usize,
    /// Whether a `)` or a `;` comes just before that `{`: a function
    /// head (K&R declarations included), not `struct s {`, `= {` or
    /// `extern "C" {`.
    pub(crate) after_head: bool,
}

/// Words after a declarator's `)` that do not start K&R parameter
/// declarations (`int f(void) __attribute__((x));`).
const NOT_KNR: &[&str] = &[
    "__attribute__",
    "__attribute",
    "__asm__",
    "__asm",
    "asm",
    "const",
    "volatile",
    "__THROW",
];

/// Conditional-group state while counting: which branch of each group is
/// read (the first a GNU C compiler may compile, as the second reading
/// keeps: not `#if 0`, `#ifdef __cplusplus`, `#ifdef _MSC_VER`, ...).
struct Branches {
    stack: Vec<Group>,
}

struct Group {
    /// Whether the current branch is read.
    reading: bool,
    /// Whether a branch of the group was read already.
    taken: bool,
    /// `#ifndef __cplusplus`: the `#else` is foreign.
    foreign_else: bool,
}

impl Branches {
    fn reading(&self) -> bool {
        self.stack.iter().all(|g| g.reading)
    }

    fn directive(&mut self, line: &[u8]) {
        let text = std::str::from_utf8(line).unwrap_or("");
        match directive_word(line).as_str() {
            "if" | "ifdef" | "ifndef" => {
                let reading = !is_if_zero(text);
                self.stack.push(Group {
                    reading,
                    taken: reading,
                    foreign_else: negates_foreign(text),
                });
            }
            "elif" | "elifdef" | "elifndef" => {
                if let Some(g) = self.stack.last_mut() {
                    g.reading = !g.taken && !is_if_zero(text);
                    g.taken |= g.reading;
                }
            }
            "else" => {
                if let Some(g) = self.stack.last_mut() {
                    g.reading = !g.taken && !g.foreign_else;
                    g.taken = true;
                }
            }
            "endif" => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

/// The top-level items of `src` with a braced part, in order. Text in
/// any branch but the first of a conditional group is not counted. An
/// item begins at the first code after the end (`;` or `}` at the top
/// level) of the one before, where a `;` ending a K&R parameter
/// declaration ends nothing: `int f(a) int a; {` is one item. Unbalanced
/// text gives fewer items, never a wrong one: counting stops at a `}`
/// without its `{`.
pub(crate) fn braced_items(src: &str) -> Vec<Item> {
    let bytes = src.as_bytes();
    let lexed = lex(bytes, 0..bytes.len());
    let toks = &lexed.toks;
    let mut items = Vec::new();
    let mut branches = Branches { stack: Vec::new() };
    let (mut braces, mut parens) = (0usize, 0usize);
    let mut start: Option<usize> = None;
    let mut open: Option<(usize, bool)> = None;
    // The last code byte at the top level before the current token.
    let mut last: u8 = b';';
    // A declarator's `)` followed by a name: K&R declarations follow.
    let mut knr = false;
    for (i, (t, r)) in toks.iter().enumerate() {
        match t {
            Tok::Directive => {
                branches.directive(&bytes[r.clone()]);
                continue;
            }
            Tok::Comment | Tok::Space { .. } => continue,
            _ if !branches.reading() => continue,
            _ => {}
        }
        if braces == 0 && start.is_none() {
            start = Some(r.start);
        }
        let before = last;
        if braces == 0 {
            last = bytes[r.end - 1];
        }
        if *t != Tok::Punct {
            continue;
        }
        match bytes[r.start] {
            b'(' => parens += 1,
            b')' => {
                let Some(p) = parens.checked_sub(1) else {
                    return items;
                };
                parens = p;
                if braces == 0 && parens == 0 {
                    let next = lexed.next_code(i).map(|n| &toks[n]);
                    knr |= next.is_some_and(|(nt, nr)| {
                        *nt == Tok::Ident
                            && !NOT_KNR
                                .contains(&std::str::from_utf8(&bytes[nr.clone()]).unwrap_or(""))
                    });
                }
            }
            b'{' => {
                if braces == 0 && open.is_none() {
                    open = Some((r.start, matches!(before, b')' | b';')));
                }
                braces += 1;
            }
            b'}' => {
                let Some(b) = braces.checked_sub(1) else {
                    return items;
                };
                braces = b;
                if braces == 0 {
                    if let (Some(s), Some(o)) = (start, open) {
                        items.push(Item {
                            range: s..r.end,
                            open: o.0,
                            after_head: o.1,
                        });
                    }
                    (start, open, knr) = (None, None, false);
                }
            }
            b';' if braces == 0 && parens == 0 && !knr => {
                (start, open) = (None, None);
            }
            _ => {}
        }
    }
    items
}

/// Every conditional group of `src` (`#if` ... `#endif`), nested ones
/// included, as byte spans from its `#if` line to the end of its `#endif`
/// line; an unclosed group runs to the end of the text.
pub(crate) fn all_groups(src: &str) -> Vec<Range<usize>> {
    let bytes = src.as_bytes();
    let lexed = lex(bytes, 0..bytes.len());
    let mut open: Vec<usize> = Vec::new();
    let mut spans = Vec::new();
    for (t, r) in &lexed.toks {
        if *t != Tok::Directive {
            continue;
        }
        match directive_word(&bytes[r.clone()]).as_str() {
            "if" | "ifdef" | "ifndef" => open.push(r.start),
            "endif" => {
                if let Some(start) = open.pop() {
                    // To the end of the line.
                    let end = src[r.end..].find('\n').map_or(src.len(), |p| r.end + p + 1);
                    spans.push(start..end);
                }
            }
            _ => {}
        }
    }
    spans.extend(open.into_iter().map(|start| start..src.len()));
    spans.sort_by_key(|g| g.start);
    spans
}

/// The word after a directive line's `#`.
fn directive_word(line: &[u8]) -> String {
    std::str::from_utf8(line)
        .unwrap_or("")
        .trim_start_matches('#')
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect()
}

/// The function-like item of `items` (sorted) whose braced part holds
/// `at`.
pub(crate) fn function_around(items: &[Item], at: usize) -> Option<&Item> {
    let i = items.partition_point(|it| it.range.start <= at);
    i.checked_sub(1)
        .map(|i| &items[i])
        .filter(|it| it.after_head && it.open < at && at < it.range.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown<'a>(src: &'a str, items: &[Item]) -> Vec<&'a str> {
        items.iter().map(|it| &src[it.range.clone()]).collect()
    }

    #[test]
    fn knr_declarations_belong_to_the_head() {
        let src = "int x;\nint\nf (a, b)\n  int a; /* the count */\n  char *const *b, c;\n{\n  return a;\n}\n\
                   int g(void) __attribute__((unused));\nstruct s { int a; } v;\n\
                   main(argc, argv) char **argv; { return 0; }\n";
        let items = braced_items(src);
        assert_eq!(
            shown(src, &items),
            [
                "int\nf (a, b)\n  int a; /* the count */\n  char *const *b, c;\n{\n  return a;\n}",
                "struct s { int a; }",
                "main(argc, argv) char **argv; { return 0; }",
            ]
        );
        let at = src.find("return a").unwrap();
        assert_eq!(function_around(&items, at), Some(&items[0]));
        assert_eq!(function_around(&items, src.find("int x").unwrap()), None);
        assert_eq!(function_around(&items, src.find("main").unwrap()), None);
    }

    #[test]
    fn only_the_first_branch_is_counted() {
        // Alternative heads and a `}` in an `#else` branch: one item,
        // from the first branch's head.
        let src = "#ifndef ANSI_C\ndouble n(x)\nVEC *x;\n#else\ndouble n(const VEC *x)\n#endif\n{\n\
                   #ifdef A\n  if (x) {\n#else\n  if (!x) {\n#endif\n    return 1;\n  }\n  return 0;\n}\n";
        let items = braced_items(src);
        assert_eq!(items.len(), 1);
        assert!(src[items[0].range.clone()].starts_with("double n(x)"));
        assert!(src[items[0].range.clone()].ends_with("return 0;\n}"));
    }

    #[test]
    fn branches_for_other_compilers_are_not_counted() {
        // The `{` of `extern "C"` would make the whole header one item.
        let src = "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(a) int a; { return a; }\n\
                   #ifdef __cplusplus\n}\n#endif\n#ifndef _MSC_VER\nint g(void) { return 0; }\n#else\n}\n#endif\n";
        let items = braced_items(src);
        assert_eq!(
            shown(src, &items),
            ["int f(a) int a; { return a; }", "int g(void) { return 0; }"]
        );
        assert!(items.iter().all(|it| it.after_head));
    }

    #[test]
    fn groups_of_every_level() {
        let src = "#ifndef MEX\n#ifndef ANSI_C\nvoid f(x)\nint x;\n#else\nvoid f(int x)\n#endif\n{ }\n#endif\n#if A\n";
        let spans: Vec<&str> = all_groups(src).into_iter().map(|g| &src[g]).collect();
        assert_eq!(
            spans,
            [
                src.trim_end_matches("#if A\n"),
                "#ifndef ANSI_C\nvoid f(x)\nint x;\n#else\nvoid f(int x)\n#endif\n",
                "#if A\n",
            ]
        );
    }

    #[test]
    fn unbalanced_text_stops_counting() {
        let src = "int f(void) { return 0; }\n}\nint g(void) { return 1; }\n";
        assert_eq!(braced_items(src).len(), 1);
    }
}
