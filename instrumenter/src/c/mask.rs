//! Same-length rewrites of C text for the parser's second reading (see
//! `recover.rs`): shapes gcc accepts and tree-sitter-c does not follow are
//! turned into shapes it does, byte for byte in place, so every offset of
//! the new tree is an offset of the original text, which is what gets
//! edited. Nothing here is ever written out.
//!
//! Each rewrite keeps the structure the compiler sees: it removes words
//! that do not change which statements and blocks there are (attributes,
//! `__extension__`, `_Complex`), spells a construct the way the grammar
//! knows (digraphs, `goto *p` as an expression, a case range as one case,
//! `static f(x)` with its implicit `int`), hides file-scope macro
//! invocations that expand to whole definitions, or ends a statement-like
//! macro use with the `;` its expansion brings.

use std::collections::HashSet;
use std::ops::Range;

/// One token of C text as far as these rewrites need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tok {
    Ident,
    Number,
    /// String or character literal.
    Literal,
    Punct,
    Comment,
    /// A preprocessor line, with its continuations.
    Directive,
    /// Blanks; `newline` tells whether they hold a line end.
    Space {
        newline: bool,
    },
}

pub(super) struct Lexed {
    pub(super) toks: Vec<(Tok, Range<usize>)>,
}

pub(super) fn lex(src: &[u8], range: Range<usize>) -> Lexed {
    let mut toks = Vec::new();
    let mut i = range.start;
    let end = range.end.min(src.len());
    let mut line_start = true;
    while i < end {
        let c = src[i];
        let start = i;
        let tok = if c == b'#' && line_start {
            // To the end of the logical line.
            while i < end && src[i] != b'\n' {
                if src[i] == b'\\' && i + 1 < end && src[i + 1] == b'\n' {
                    i += 1;
                } else if src[i] == b'\\' && src.get(i + 1..i + 3) == Some(b"\r\n") {
                    i += 2;
                }
                i += 1;
            }
            Tok::Directive
        } else if c.is_ascii_whitespace() {
            let mut newline = false;
            while i < end && src[i].is_ascii_whitespace() {
                newline |= src[i] == b'\n';
                i += 1;
            }
            Tok::Space { newline }
        } else if c == b'/' && src.get(i + 1) == Some(&b'/') {
            while i < end && src[i] != b'\n' {
                i += 1;
            }
            Tok::Comment
        } else if c == b'/' && src.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < end && !(src[i] == b'*' && src.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i = (i + 2).min(end);
            Tok::Comment
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < end && src[i] != c && src[i] != b'\n' {
                if src[i] == b'\\' {
                    // `\\` + CR LF is one splice.
                    i += if src.get(i + 1..i + 3) == Some(b"\r\n") {
                        2
                    } else {
                        1
                    };
                }
                i += 1;
            }
            i = (i + 1).min(end);
            Tok::Literal
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < end && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                i += 1;
            }
            Tok::Ident
        } else if c.is_ascii_digit() {
            while i < end && (src[i].is_ascii_alphanumeric() || src[i] == b'.' || src[i] == b'_') {
                i += 1;
            }
            Tok::Number
        } else {
            i += 1;
            Tok::Punct
        };
        let i_end = i.min(end);
        line_start = match tok {
            Tok::Space { newline } => newline || line_start,
            Tok::Comment => line_start,
            _ => false,
        };
        toks.push((tok, start..i_end));
        i = i_end;
    }
    Lexed { toks }
}

impl Lexed {
    /// Index of the next token after `i` that is code (no blank, comment or
    /// directive).
    pub(super) fn next_code(&self, i: usize) -> Option<usize> {
        (i + 1..self.toks.len()).find(|&j| is_code(self.toks[j].0))
    }

    fn prev_code(&self, i: usize) -> Option<usize> {
        (0..i).rev().find(|&j| is_code(self.toks[j].0))
    }

    /// Index of the `)` closing the `(` at `open`.
    fn closing(&self, src: &[u8], open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in open..self.toks.len() {
            let (t, r) = &self.toks[j];
            if *t != Tok::Punct {
                continue;
            }
            match src[r.start] {
                b'(' => depth += 1,
                b')' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Index of the `(` the `)` at `close` closes.
    fn opening(&self, src: &[u8], close: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in (0..=close).rev() {
            let (t, r) = &self.toks[j];
            if *t != Tok::Punct {
                continue;
            }
            match src[r.start] {
                b')' => depth += 1,
                b'(' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Whether a line end (or a directive) lies between tokens `a` and `b`.
    fn line_end_between(&self, a: usize, b: usize) -> bool {
        self.toks[a + 1..b]
            .iter()
            .any(|(t, _)| matches!(t, Tok::Space { newline: true } | Tok::Directive))
    }
}

/// Whether `range` of `src` can hold no function body: every `{` outside
/// braces opens a `struct`/`union`/`enum` body or an initializer (`= {`),
/// or there is none (`static SQLITE_WSD struct S {...} s = {...};`, a
/// prototype). Such a unit the parser cannot read loses nothing measured.
pub(crate) fn declares_data_only(src: &str, range: Range<usize>) -> bool {
    let src = src.as_bytes();
    let lexed = lex(src, range);
    let toks = &lexed.toks;
    let word = |j: usize| std::str::from_utf8(&src[toks[j].1.clone()]).unwrap_or("");
    let tag = |j: usize| matches!(word(j), "struct" | "union" | "enum");
    let mut depth = 0usize;
    for (i, (t, r)) in toks.iter().enumerate() {
        if *t != Tok::Punct {
            continue;
        }
        match src[r.start] {
            b'{' if depth == 0 => {
                let data = lexed.prev_code(i).is_some_and(|p| {
                    src[toks[p].1.start] == b'='
                        || tag(p)
                        || (toks[p].0 == Tok::Ident && lexed.prev_code(p).is_some_and(tag))
                });
                if !data {
                    return false;
                }
                depth += 1;
            }
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// Blanks `r` of `bytes` for the parser, keeping line ends (so offsets
/// and line numbers stay).
pub(crate) fn blank(bytes: &mut [u8], r: Range<usize>) {
    for b in &mut bytes[r] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

fn is_code(t: Tok) -> bool {
    !matches!(t, Tok::Space { .. } | Tok::Comment | Tok::Directive)
}

const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Complex",
    "_Atomic",
    "_Thread_local",
    "_Noreturn",
    "_Alignas",
    "__inline",
    "__inline__",
    "__thread",
    "bool",
];

/// Words that begin a declaration's specifiers (a macro before one of them
/// is a storage-class or attribute word).
const DECL_START: &[&str] = &[
    "char",
    "const",
    "volatile",
    "double",
    "enum",
    "extern",
    "float",
    "int",
    "long",
    "short",
    "signed",
    "static",
    "struct",
    "typedef",
    "union",
    "unsigned",
    "void",
    "inline",
    "_Bool",
    "_Noreturn",
    "__inline",
    "__inline__",
];

fn is_macro_name(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_uppercase()) && !word.bytes().any(|b| b.is_ascii_lowercase())
}

/// Applies every rewrite to each of `units` of `bytes` (already blanked of
/// conditional lines by the caller); `bytes` keeps its length. Returns
/// the places of file-scope macro invocations it hid (what they define
/// is not measured).
pub(crate) fn rewrite_units(
    bytes: &mut [u8],
    units: &[Range<usize>],
    macros: &HashSet<String>,
) -> Vec<Range<usize>> {
    // One copy to read from: units are disjoint, so each unit's bytes in
    // it are as they were before any rewrite.
    let src = bytes.to_vec();
    units
        .iter()
        .flat_map(|u| rewrite(bytes, &src, u.clone(), macros))
        .collect()
}

/// `\\` + CR LF, a line splice in a file with DOS line ends (inside a
/// string literal: Rodinia's `getopt.c` messages): the grammar follows a
/// splice only before a bare LF, so the parser reads ` \\` + LF (one line
/// end, as before).
fn crlf_splices(bytes: &mut [u8], src: &[u8], range: Range<usize>) {
    let end = range.end.min(src.len());
    let mut i = range.start;
    while i + 2 < end {
        if &src[i..i + 3] == b"\\\r\n" {
            bytes[i..i + 3].copy_from_slice(b" \\\n");
            i += 3;
        } else {
            i += 1;
        }
    }
}

fn rewrite(
    bytes: &mut [u8],
    src: &[u8],
    range: Range<usize>,
    macros: &HashSet<String>,
) -> Vec<Range<usize>> {
    crlf_splices(bytes, src, range.clone());
    let mut hidden = Vec::new();
    let range_start = range.start;
    let lexed = lex(src, range);
    let word = |r: &Range<usize>| std::str::from_utf8(&src[r.clone()]).unwrap_or("");
    let toks = &lexed.toks;
    // Brace depth at each token, for file-scope rewrites.
    let mut depth = 0i64;
    let mut i = 0;
    while i < toks.len() {
        let (t, r) = (toks[i].0, toks[i].1.clone());
        let at_file_scope = depth <= 0;
        match t {
            Tok::Punct => match src[r.start] {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                b'<' if src.get(r.start + 1) == Some(&b':') => {
                    bytes[r.start] = b' ';
                    bytes[r.start + 1] = b'[';
                    i += 2;
                    continue;
                }
                b'<' if src.get(r.start + 1) == Some(&b'%') => {
                    bytes[r.start] = b' ';
                    bytes[r.start + 1] = b'{';
                    depth += 1;
                    i += 2;
                    continue;
                }
                b':' if src.get(r.start + 1) == Some(&b'>') => {
                    bytes[r.start] = b' ';
                    bytes[r.start + 1] = b']';
                    i += 2;
                    continue;
                }
                b'%' if src.get(r.start + 1) == Some(&b'>') => {
                    bytes[r.start] = b' ';
                    bytes[r.start + 1] = b'}';
                    depth -= 1;
                    i += 2;
                    continue;
                }
                // `float *f(n) int n; {`: a K&R definition returning a
                // pointer, which the grammar does not follow; the pointer
                // does not matter for where probes go.
                b'*' if at_file_scope && knr_head_after(&lexed, src, last_star(&lexed, src, i)) => {
                    bytes[r.start] = b' ';
                }
                // `&&label` where an operand starts: the address of a label.
                b'&' if src.get(r.start + 1) == Some(&b'&')
                    && toks.get(i + 2).is_some_and(|(t, _)| *t == Tok::Ident)
                    && lexed.prev_code(i).is_none_or(|p| {
                        matches!(
                            src[toks[p].1.start],
                            b'{' | b',' | b'=' | b'(' | b'?' | b':'
                        )
                    }) =>
                {
                    bytes[r.start] = b' ';
                }
                // `unsigned : 0;`: an unnamed bit-field, padding only.
                b':' if !at_file_scope
                    && lexed.prev_code(i).is_some_and(|p| {
                        toks[p].0 == Tok::Ident
                            && matches!(
                                word(&toks[p].1),
                                "int" | "unsigned" | "signed" | "long" | "short" | "char" | "_Bool"
                            )
                    }) =>
                {
                    let start = (0..i)
                        .rev()
                        .find(|&j| {
                            toks[j].0 == Tok::Punct && matches!(src[toks[j].1.start], b';' | b'{')
                        })
                        .map_or(r.start, |j| toks[j].1.end);
                    let end = (i..toks.len())
                        .find(|&j| toks[j].0 == Tok::Punct && src[toks[j].1.start] == b';');
                    if let Some(e) = end {
                        blank(bytes, start..toks[e].1.end);
                        i = e + 1;
                        continue;
                    }
                }
                // `case A ... B:`: one case for the grammar.
                b'.' if src.get(r.start..r.start + 3) == Some(b"...") => {
                    let in_case = (0..i)
                        .rev()
                        .map(|j| &toks[j])
                        .take_while(|(t, r)| {
                            !(*t == Tok::Punct && matches!(src[r.start], b';' | b'{' | b'}' | b':'))
                        })
                        .any(|(t, r)| *t == Tok::Ident && word(r) == "case");
                    if in_case {
                        let colon = (i..toks.len())
                            .find(|&j| toks[j].0 == Tok::Punct && src[toks[j].1.start] == b':');
                        if let Some(c) = colon {
                            blank(bytes, r.start..toks[c].1.start);
                            i = c;
                            continue;
                        }
                    }
                }
                _ => {}
            },
            Tok::Ident => {
                let w = word(&r);
                match w {
                    "__attribute__" | "__attribute" | "__declspec" => {
                        let open = lexed.next_code(i);
                        if let Some(close) = open
                            .filter(|&o| src[toks[o].1.start] == b'(')
                            .and_then(|o| lexed.closing(src, o))
                        {
                            blank(bytes, r.start..toks[close].1.end);
                            i = close + 1;
                            continue;
                        }
                    }
                    // `_Pragma("GCC ...")` is a directive, not a statement;
                    // OpenMP's stay for the walker to see.
                    "_Pragma" => {
                        let open = lexed.next_code(i);
                        let arg = open.and_then(|o| lexed.next_code(o));
                        if let (Some(o), Some(a)) = (open, arg) {
                            let text = word(&toks[a].1).trim_start_matches('"').trim_start();
                            let own = text.starts_with("omp") || text.starts_with("regio");
                            if let (false, Some(close)) = (own, lexed.closing(src, o)) {
                                blank(bytes, r.start..toks[close].1.end);
                                i = close + 1;
                                continue;
                            }
                        }
                    }
                    "__extension__" | "_Complex" | "__complex__" | "_Imaginary"
                    | "_Thread_local" | "__cdecl" | "__stdcall" | "__fastcall" => {
                        blank(bytes, r.clone());
                    }
                    "complex" | "imaginary"
                        if lexed
                            .prev_code(i)
                            .is_some_and(|p| matches!(word(&toks[p].1), "double" | "float")) =>
                    {
                        blank(bytes, r.clone());
                    }
                    "_Atomic" => {
                        let open = lexed.next_code(i);
                        if let Some(o) = open.filter(|&o| src[toks[o].1.start] == b'(') {
                            if let Some(close) = lexed.closing(src, o) {
                                blank(bytes, r.start..toks[o].1.end);
                                blank(bytes, toks[close].1.clone());
                            }
                        }
                    }
                    // `register n;` (a K&R parameter or a local): implicit
                    // int, which the grammar does not follow.
                    "register" if register_without_type(&lexed, src, i) => {
                        bytes[r.clone()].copy_from_slice(b"int     ");
                    }
                    "goto"
                        if lexed
                            .next_code(i)
                            .is_some_and(|n| src[toks[n].1.start] == b'*') =>
                    {
                        blank(bytes, r.clone());
                    }
                    "static" | "extern" if at_file_scope => {
                        // `static f(x)`: implicit int.
                        let name = lexed.next_code(i);
                        let paren = name.and_then(|n| lexed.next_code(n));
                        if let (Some(n), Some(p)) = (name, paren) {
                            if toks[n].0 == Tok::Ident
                                && !KEYWORDS.contains(&word(&toks[n].1))
                                && src[toks[p].1.start] == b'('
                            {
                                bytes[r.clone()].copy_from_slice(
                                    format!("{:<width$}", "int", width = r.len()).as_bytes(),
                                );
                            }
                        }
                    }
                    // `setup(argc, argv) int argc; {`, `face() {`:
                    // implicit int; a type just before the name (the
                    // unit was made to start there, unreadable.rs).
                    _ if at_file_scope
                        && implicit_int_type_place(src, r.start).is_some_and(|g| {
                            g == range_start
                                || (g > range_start
                                    && lexed.prev_code(i).is_none_or(|p| {
                                        matches!(src[toks[p].1.start], b';' | b'}')
                                    }))
                        }) =>
                    {
                        if let Some(g) = implicit_int_type_place(src, r.start) {
                            write_implicit_int(bytes, g, r.start);
                        }
                    }
                    _ if at_file_scope && file_scope_macro(&lexed, src, i, w).is_some() => {
                        if let Some(skip_to) = file_scope_macro(&lexed, src, i, w) {
                            hidden.push(r.start..toks[skip_to].1.end);
                            blank(bytes, r.start..toks[skip_to].1.end);
                            i = skip_to + 1;
                            continue;
                        }
                    }
                    // `offsetof(T, m.a[2])`, `va_arg(ap, T)`: the grammar
                    // follows neither every designator nor a type as an
                    // argument, and an empty `offsetof()` is an error too;
                    // the parser reads the value `0` in their place. The
                    // preprocessed unit (`--preprocess`) has what GCC's
                    // headers expand them to.
                    "va_arg" | "offsetof" | "__builtin_va_arg" | "__builtin_offsetof" => {
                        let open = lexed.next_code(i);
                        if let Some(o) = open.filter(|&o| src[toks[o].1.start] == b'(') {
                            if let Some(close) = lexed.closing(src, o) {
                                blank(bytes, r.start..toks[close].1.end);
                                bytes[r.start] = b'0';
                                i = close + 1;
                                continue;
                            }
                        }
                    }
                    // `vmcase(OP_MOVE) {`: read as what it starts
                    // (control_macro_as_written).
                    _ if !at_file_scope && super::calls::control_macro(macros, w).is_some() => {
                        if let Some(close) = control_macro_as_written(bytes, &lexed, src, i, macros)
                        {
                            i = close + 1;
                            continue;
                        }
                    }
                    // A function-like macro the tree defines: its
                    // arguments may be types (`cast(int *, p)`), operators
                    // or statements; the parser reads an empty call.
                    _ if macros.contains(w) => {
                        let open = lexed.next_code(i);
                        if let Some(o) = open.filter(|&o| src[toks[o].1.start] == b'(') {
                            if let Some(close) = lexed.closing(src, o) {
                                if close > o + 1 {
                                    blank(bytes, toks[o].1.end..toks[close].1.start);
                                }
                                if !at_file_scope {
                                    statement_macro(bytes, &lexed, src, i);
                                    expression_prefix_macro(bytes, &lexed, src, close);
                                }
                                i = close + 1;
                                continue;
                            }
                        }
                    }
                    // `if EQ("x") return 0;` (`#define EQ(s) (...)`): a
                    // macro that brings the condition's parentheses; the
                    // parser reads `if (1      )`, the same statement.
                    "if" | "while" if !at_file_scope => {
                        if let Some(close) = parenthesizing_macro(&lexed, src, i) {
                            let span =
                                toks[lexed.next_code(i).unwrap_or(i)].1.start..toks[close].1.end;
                            blank(bytes, span.clone());
                            bytes[span.start] = b'(';
                            bytes[span.start + 1] = b'1';
                            bytes[span.end - 1] = b')';
                            i = close + 1;
                            continue;
                        }
                    }
                    // `strstr(path, SEP SEP)`: juxtaposed macros (string
                    // literals the preprocessor joins) read as one.
                    _ if !at_file_scope
                        && is_macro_name(w)
                        && lexed.prev_code(i).is_some_and(|p| {
                            toks[p].0 == Tok::Ident
                                && is_macro_name(word(&toks[p].1))
                                && !lexed.line_end_between(p, i)
                        })
                        && lexed
                            .next_code(i)
                            .is_some_and(|n| matches!(src[toks[n].1.start], b')' | b',')) =>
                    {
                        blank(bytes, r.clone());
                    }
                    _ if !KEYWORDS.contains(&w) && storage_word(&lexed, src, i, at_file_scope) => {
                        // `EXPORT_ long f(...)`, `local int g(...)`,
                        // `int ZEXPORT h(...)`, `char FAR *p`: a macro as
                        // a storage class, attribute or qualifier word.
                        blank(bytes, r.clone());
                    }
                    _ if is_macro_name(w) => {
                        statement_macro(bytes, &lexed, src, i);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    join_spliced_words(bytes, &lexed, src);
    // A line splice inside a string literal: one line for the parser.
    for (t, r) in &lexed.toks {
        if *t == Tok::Literal {
            for at in r.clone() {
                if src[at] == b'\\' && src.get(at + 1) == Some(&b'\n') {
                    bytes[at] = b' ';
                    bytes[at + 1] = b' ';
                }
            }
        }
    }
    hidden
}

/// Type words a macro word may follow (`int ZEXPORT f(`); not `const` or
/// `struct`, after which an all-caps word is a type name or a tag.
const TYPE_WORDS: &[&str] = &[
    "char", "double", "float", "int", "long", "short", "signed", "unsigned", "void", "_Bool",
];

/// Whether the identifier at `i` is a macro used as a storage class,
/// attribute or qualifier word: before the specifiers of a declaration
/// (after `;`, `{`, `}` or at the start; at file scope also after `)` or a
/// string, the end of an earlier macro use), or an all-caps word between
/// a type word and the declarator (`int ZEXPORT f(`, `char FAR *p`).
fn storage_word(lexed: &Lexed, src: &[u8], i: usize, at_file_scope: bool) -> bool {
    let toks = &lexed.toks;
    let w = std::str::from_utf8(&src[toks[i].1.clone()]).unwrap_or("");
    let word_at = |j: usize| std::str::from_utf8(&src[toks[j].1.clone()]).unwrap_or("");
    let prev = lexed.prev_code(i);
    let next = lexed.next_code(i);
    let starts_declaration = prev.is_none_or(|p| {
        matches!(src[toks[p].1.start], b';' | b'{' | b'}')
            || (at_file_scope && (src[toks[p].1.start] == b')' || toks[p].0 == Tok::Literal))
    });
    // Before a qualifier only an all-caps word (`LUA_API const char *f`):
    // `size_t const n` is a type and its qualifier.
    if starts_declaration
        && next.is_some_and(|n| {
            DECL_START.contains(&word_at(n))
                && (!matches!(word_at(n), "const" | "volatile") || is_macro_name(w))
        })
    {
        return true;
    }
    // `(z_const Bytef *)p`, `z_const Bytef *next;`: two names before a
    // `*` are a qualifier macro and a type.
    let after_next = next.and_then(|n| lexed.next_code(n));
    let plain = |j: usize| toks[j].0 == Tok::Ident && !KEYWORDS.contains(&word_at(j));
    // `local z_word_t swap(...)`: three names, the first a storage macro.
    if next.is_some_and(|n| plain(n) && !is_macro_name(word_at(n)))
        && after_next.is_some_and(|a| src[toks[a].1.start] == b'*' || plain(a))
        && prev.is_none_or(|p| matches!(src[toks[p].1.start], b'(' | b';' | b'{' | b'}' | b','))
    {
        return true;
    }
    // `(WINAPI *fp)(void)`: after `(` only before `*` and a name (not a
    // cast like `(FILE *)p`).
    // `(FILE *out, ...)` is a parameter: the name must be followed by
    // `)` and a parameter list.
    let declarator_name = next
        .and_then(|n| lexed.next_code(n))
        .filter(|&d| toks[d].0 == Tok::Ident);
    let close = declarator_name
        .and_then(|d| lexed.next_code(d))
        .filter(|&c| src[toks[c].1.start] == b')');
    let pointer_declarator = next.is_some_and(|n| src[toks[n].1.start] == b'*')
        && close
            .and_then(|c| lexed.next_code(c))
            .is_some_and(|o| src[toks[o].1.start] == b'(');
    let type_before = |p: usize| {
        TYPE_WORDS.contains(&word_at(p))
            || (src[toks[p].1.start] == b'*' && next.is_some_and(|n| src[toks[n].1.start] == b'*'))
            || (toks[p].0 == Tok::Ident && !KEYWORDS.contains(&word_at(p)))
            || (src[toks[p].1.start] == b'(' && pointer_declarator)
    };
    // `static SQLITE_WSD FuncDef t[]`: after a storage class or qualifier,
    // an all-caps word followed by a type name is a macro word.
    let qualifier_before = |p: usize| {
        matches!(
            word_at(p),
            "static" | "extern" | "register" | "const" | "volatile" | "inline"
        ) && next.is_some_and(|n| {
            DECL_START.contains(&word_at(n))
                || (toks[n].0 == Tok::Ident
                    && !KEYWORDS.contains(&word_at(n))
                    // `extern ZPOS64_T ZEXPORT f(`: of two all-caps words
                    // after `extern`, the second is the macro word (the
                    // type-then-convention order, see the last rule).
                    && !is_macro_name(word_at(n))
                    && after_next_is_name(lexed, src, next))
        })
    };
    if is_macro_name(w) && prev.is_some_and(qualifier_before) {
        return true;
    }
    // `code const FAR *p`: after a type and its qualifier, an all-caps
    // word before the declarator is a macro word.
    let type_word = |j: usize| {
        toks[j].0 == Tok::Ident
            && (TYPE_WORDS.contains(&word_at(j)) || !KEYWORDS.contains(&word_at(j)))
    };
    if is_macro_name(w)
        && prev.is_some_and(|p| {
            matches!(word_at(p), "const" | "volatile") && lexed.prev_code(p).is_some_and(type_word)
        })
        && next.is_some_and(|n| src[toks[n].1.start] == b'*' || plain(n))
    {
        return true;
    }
    // `(z_const unsigned char *)p`, `f(int n, z_const char *s)`: a name
    // before a type keyword (a qualifier would be valid after a type
    // name: `size_t const n`) in a parameter list or cast.
    if prev.is_some_and(|p| matches!(src[toks[p].1.start], b'(' | b','))
        && next.is_some_and(|n| {
            toks[n].0 == Tok::Ident
                && DECL_START.contains(&word_at(n))
                && !matches!(
                    word_at(n),
                    "const" | "volatile" | "typedef" | "extern" | "static"
                )
        })
    {
        return true;
    }
    // `const char * ZEXPORT zlibVersion(void)`: between the `*` of a
    // return type and a function's name (no expression has that shape).
    if is_macro_name(w)
        && prev.is_some_and(|p| src[toks[p].1.start] == b'*')
        && next.is_some_and(plain)
        && after_next.is_some_and(|a| src[toks[a].1.start] == b'(')
    {
        return true;
    }
    is_macro_name(w)
        && prev.is_some_and(type_before)
        && next.is_some_and(|n| {
            (toks[n].0 == Tok::Ident && !KEYWORDS.contains(&word_at(n)))
                || src[toks[n].1.start] == b'*'
        })
        && prev.is_some_and(|p| {
            src[toks[p].1.start] != b'(' || next.is_some_and(|n| src[toks[n].1.start] == b'*')
        })
}

/// Whether an implicit-`int` function definition starts at `at`: a name
/// (not a keyword, with a lower-case letter) at file scope, its
/// parameters, then its body's `{` or K&R parameter declarations ending
/// in `;` before it (`setup(argc, argv) int argc; ... {`, `face() {`).
fn implicit_int_head(src: &[u8], at: usize) -> bool {
    let name_len = src[at..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let name = std::str::from_utf8(&src[at..at + name_len]).unwrap_or("");
    if name_len == 0
        || src[at].is_ascii_digit()
        || KEYWORDS.contains(&name)
        || DECL_START.contains(&name)
        || !name.bytes().any(|b| b.is_ascii_lowercase())
    {
        return false;
    }
    let mut i = skip_blanks(src, at + name_len);
    if src.get(i) != Some(&b'(') {
        return false;
    }
    let mut depth = 0usize;
    while i < src.len() {
        match src[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b'{' | b'}' | b';' | b'"' | b'\'' | b'#' => return false,
            _ => {}
        }
        i += 1;
    }
    i = skip_blanks(src, i + 1);
    match src.get(i) {
        Some(b'{') => true,
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
            // K&R parameter declarations: up to the body, no initializer.
            let mut last = 0u8;
            while i < src.len() && i < at + 4000 {
                match src[i] {
                    b'{' => return last == b';',
                    b'=' | b'}' | b'#' | b'"' => return false,
                    b'/' if skip_blanks(src, i) > i => {
                        i = skip_blanks(src, i);
                        continue;
                    }
                    b if b.is_ascii_whitespace() => {}
                    b => last = b,
                }
                i += 1;
            }
            false
        }
        _ => false,
    }
}

/// The first byte at or after `i` that is not a blank or in a comment.
pub(super) fn skip_blanks(src: &[u8], mut i: usize) -> usize {
    loop {
        while i < src.len() && src[i].is_ascii_whitespace() {
            i += 1;
        }
        if src[i..].starts_with(b"/*") {
            match src[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(p) => i += p + 4,
                None => return src.len(),
            }
        } else if src[i..].starts_with(b"//") {
            match src[i..].iter().position(|&b| b == b'\n') {
                Some(p) => i += p,
                None => return src.len(),
            }
        } else {
            return i;
        }
    }
}

/// Where a type can stand for the missing one of an implicit-`int`
/// definition starting at `at` (its name): the first of the bytes to
/// write (`T ` into the two blanks before the name, or `*/T` over the end
/// of a block comment just before it, moving the comment's end one byte
/// left), when what comes before ends a declaration or definition (`;`,
/// `}`, a comment) or a line end stays between it and the type (a
/// directive, a `//` comment). The parser then reads a definition.
pub(crate) fn implicit_int_type_place(src: &[u8], at: usize) -> Option<usize> {
    if at == 0 || !src[at - 1].is_ascii_whitespace() || !implicit_int_head(src, at) {
        return None;
    }
    let run_start = src[..at]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    let after_comment = src[..run_start].ends_with(b"*/");
    if at - run_start >= 2 {
        let gap = at - 2;
        let newline_kept = src[run_start..gap].contains(&b'\n');
        let ends_item =
            run_start == 0 || matches!(src[run_start - 1], b';' | b'}') || after_comment;
        return (ends_item || newline_kept).then_some(gap);
    }
    // One blank: a block comment of at least `/* */` just before it.
    let comment = after_comment
        && run_start >= 5
        && src[..run_start - 2]
            .windows(2)
            .rposition(|w| w == b"/*")
            .is_some_and(|open| open + 2 < run_start - 2);
    comment.then_some(run_start - 3)
}

/// Writes the type [`implicit_int_type_place`] found at `place` for the
/// name at `at`.
fn write_implicit_int(bytes: &mut [u8], place: usize, at: usize) {
    if at - place == 2 {
        bytes[place] = b'T';
        bytes[place + 1] = b' ';
    } else {
        bytes[place] = b'*';
        bytes[place + 1] = b'/';
        bytes[place + 2] = b'T';
    }
}

/// Whether the `register` at token `i` declares names without a type:
/// a name (no keyword) follows, then `;`, `,` or `=` (`register n;`,
/// `register i, j;`); `register T x;` with a typedef name has a type.
fn register_without_type(lexed: &Lexed, src: &[u8], i: usize) -> bool {
    let toks = &lexed.toks;
    let Some(name) = lexed.next_code(i).filter(|&n| toks[n].0 == Tok::Ident) else {
        return false;
    };
    let word = std::str::from_utf8(&src[toks[name].1.clone()]).unwrap_or("");
    !KEYWORDS.contains(&word)
        && !DECL_START.contains(&word)
        && lexed
            .next_code(name)
            .is_some_and(|n| matches!(src[toks[n].1.start], b';' | b',' | b'='))
}

/// Whether `name ( a, b, ... )` follows token `i`: the head of a K&R
/// definition (names only between the parentheses, none empty).
fn knr_head_after(lexed: &Lexed, src: &[u8], i: usize) -> bool {
    let toks = &lexed.toks;
    let Some(name) = lexed.next_code(i).filter(|&n| toks[n].0 == Tok::Ident) else {
        return false;
    };
    let Some(open) = lexed
        .next_code(name)
        .filter(|&o| src[toks[o].1.start] == b'(')
    else {
        return false;
    };
    let Some(close) = lexed.closing(src, open) else {
        return false;
    };
    let inner: Vec<usize> = (open + 1..close).filter(|&j| is_code(toks[j].0)).collect();
    !inner.is_empty()
        && inner.iter().enumerate().all(|(k, &j)| {
            if k % 2 == 0 {
                toks[j].0 == Tok::Ident
                    && !KEYWORDS
                        .contains(&std::str::from_utf8(&src[toks[j].1.clone()]).unwrap_or(""))
            } else {
                src[toks[j].1.start] == b','
            }
        })
        && lexed
            .next_code(close)
            .is_some_and(|n| toks[n].0 == Tok::Ident)
}

/// The last `*` of the run starting at token `i` (`float **f(m, n)`).
fn last_star(lexed: &Lexed, src: &[u8], mut i: usize) -> usize {
    while let Some(n) = lexed
        .next_code(i)
        .filter(|&n| src[lexed.toks[n].1.start] == b'*')
    {
        i = n;
    }
    i
}

/// Whether the token after `next` is a name or `*` (so `next` is a type).
fn after_next_is_name(lexed: &Lexed, src: &[u8], next: Option<usize>) -> bool {
    let toks = &lexed.toks;
    next.and_then(|n| lexed.next_code(n))
        .is_some_and(|a| toks[a].0 == Tok::Ident || src[toks[a].1.start] == b'*')
}

/// `NAME(...)` alone on its line(s) at file scope, with a macro's name and
/// nothing after it on the line: a macro that expands to definitions.
/// Returns the index of its `)`.
fn file_scope_macro(lexed: &Lexed, src: &[u8], i: usize, w: &str) -> Option<usize> {
    if !is_macro_name(w) {
        return None;
    }
    let toks = &lexed.toks;
    let open = lexed.next_code(i)?;
    if src[toks[open].1.start] != b'(' {
        return None;
    }
    let close = lexed.closing(src, open)?;
    let starts_line = lexed
        .prev_code(i)
        .is_none_or(|p| lexed.line_end_between(p, i));
    let ends_line = lexed.next_code(close).is_none_or(|n| {
        lexed.line_end_between(close, n) && !matches!(src[toks[n].1.start], b'{' | b';' | b',')
    });
    (starts_line && ends_line).then_some(close)
}

/// `NAME(...)` alone on its line inside a function, ending with no `;`
/// (its expansion brings one): a `;` goes into the blank after it, unless a
/// block follows (a loop-like macro) or the line does end with `;`.
fn statement_macro(bytes: &mut [u8], lexed: &Lexed, src: &[u8], i: usize) {
    let toks = &lexed.toks;
    let Some(open) = lexed.next_code(i) else {
        return;
    };
    if src[toks[open].1.start] != b'(' {
        return;
    }
    let Some(close) = lexed.closing(src, open) else {
        return;
    };
    let starts_line = lexed.prev_code(i).is_none_or(|p| {
        lexed.line_end_between(p, i) && matches!(src[toks[p].1.start], b';' | b'{' | b'}' | b')')
            || toks[p].0 == Tok::Ident && lexed.line_end_between(p, i)
            || after_control_head(lexed, src, p)
    });
    let Some(next) = lexed.next_code(close) else {
        return;
    };
    let next_byte = src[toks[next].1.start];
    if !starts_line
        || !lexed.line_end_between(close, next)
        || matches!(
            next_byte,
            b'{' | b';'
                | b','
                | b')'
                | b'='
                | b'.'
                | b'['
                | b'-'
                | b'+'
                | b'*'
                | b'/'
                | b'&'
                | b'|'
                | b'?'
                | b':'
                | b'<'
                | b'>'
        )
    {
        return;
    }
    // The first byte after `)`: a blank, or the line end itself when no
    // directive starts on the next line.
    let at = toks[close].1.end;
    match src.get(at) {
        Some(b' ' | b'\t' | b'\r') => bytes[at] = b';',
        Some(b'\n') if !matches!(toks.get(close + 1), Some((Tok::Space { .. }, _)) if toks.get(close + 2).is_some_and(|(t, _)| *t == Tok::Directive)) => {
            bytes[at] = b';'
        }
        _ => {}
    }
}

/// Whether the code token `p` ends the head of a statement whose body
/// follows on the same line: the `)` of `if (...)`, `while (...)`, `for
/// (...)`, or `else` / `do` (`if (n != 12) ERR_EXIT(READ)`: the macro use
/// is the unbraced body).
fn after_control_head(lexed: &Lexed, src: &[u8], p: usize) -> bool {
    let toks = &lexed.toks;
    let word = |j: usize| std::str::from_utf8(&src[toks[j].1.clone()]).unwrap_or("");
    if toks[p].0 == Tok::Ident {
        return matches!(word(p), "else" | "do");
    }
    if src[toks[p].1.start] != b')' {
        return false;
    }
    lexed
        .opening(src, p)
        .and_then(|o| lexed.prev_code(o))
        .is_some_and(|h| toks[h].0 == Tok::Ident && matches!(word(h), "if" | "while" | "for"))
}

/// `vmcase(OP_MOVE) {` (`case l:`), `vmdispatch(op) {` (`switch (o)`),
/// `FOREACH(x) {`: a macro use that starts a statement is read as what it
/// starts ([`super::calls::control_macro`]), so the block after it and the
/// `break`s inside mean what they do. Returns the token index of its `)`.
fn control_macro_as_written(
    bytes: &mut [u8],
    lexed: &Lexed,
    src: &[u8],
    i: usize,
    macros: &HashSet<String>,
) -> Option<usize> {
    let toks = &lexed.toks;
    let word = std::str::from_utf8(&src[toks[i].1.clone()]).unwrap_or("");
    let text: &[u8] = match super::calls::control_macro(macros, word)? {
        "label" => b"_:",
        "switch" => b"switch(0)",
        "if" => b"if(1)",
        _ => b"for(;;)",
    };
    let open = lexed
        .next_code(i)
        .filter(|&o| src[toks[o].1.start] == b'(')?;
    let close = lexed.closing(src, open)?;
    let span = toks[i].1.start..toks[close].1.end;
    if span.len() < text.len() {
        return None;
    }
    blank(bytes, span.clone());
    bytes[span.start..span.start + text.len()].copy_from_slice(text);
    Some(close)
}

/// `TESTONLY( rc = ) f(x);`: a macro use that expands to the start of an
/// expression, followed on its line by a name or `(` with no operator
/// between. A `+` in the blank after its `)` makes one expression for the
/// parser, so the statement starts where the original's does and nothing
/// is placed between the macro and what it prefixes.
fn expression_prefix_macro(bytes: &mut [u8], lexed: &Lexed, src: &[u8], close: usize) {
    let toks = &lexed.toks;
    let Some(next) = lexed.next_code(close) else {
        return;
    };
    let word = std::str::from_utf8(&src[toks[next].1.clone()]).unwrap_or("");
    let operand = (toks[next].0 == Tok::Ident && !KEYWORDS.contains(&word))
        || src[toks[next].1.start] == b'(';
    let at = toks[close].1.end;
    if operand && !lexed.line_end_between(close, next) && matches!(src.get(at), Some(b' ' | b'\t'))
    {
        bytes[at] = b'+';
    }
}

/// After `if`/`while` at token `i`: `NAME(...)` with no parenthesis of
/// its own, the statement following on the same line or the next (`if
/// EQ("x") return 0;`, `else if EQ("y") {`). Returns the index of its `)`.
fn parenthesizing_macro(lexed: &Lexed, src: &[u8], i: usize) -> Option<usize> {
    let toks = &lexed.toks;
    let name = lexed.next_code(i).filter(|&n| {
        toks[n].0 == Tok::Ident
            && !KEYWORDS.contains(&std::str::from_utf8(&src[toks[n].1.clone()]).unwrap_or(""))
    })?;
    let open = lexed
        .next_code(name)
        .filter(|&o| src[toks[o].1.start] == b'(' && !lexed.line_end_between(name, o))?;
    let close = lexed.closing(src, open)?;
    // What follows starts a statement, not an operator (`while
    // (x) + 1` is no such shape, and neither is `if f(x) == 0`).
    let next = lexed.next_code(close)?;
    let starts_statement = toks[next].0 == Tok::Ident || src[toks[next].1.start] == b'{';
    (starts_statement && toks[close].1.end - toks[name].1.start >= 3).then_some(close)
}

/// `long_na\<newline>me`: the parts of a word split by a line splice are
/// joined for the parser, the splice moved after the word as blanks.
fn join_spliced_words(bytes: &mut [u8], lexed: &Lexed, src: &[u8]) {
    for (t, r) in &lexed.toks {
        if *t != Tok::Ident {
            continue;
        }
        let end = r.end;
        let splice = if src.get(end..end + 2) == Some(b"\\\n") {
            2
        } else if src.get(end..end + 3) == Some(b"\\\r\n") {
            3
        } else {
            continue;
        };
        let tail_start = end + splice;
        let tail_len = src[tail_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        if tail_len == 0 {
            continue;
        }
        let tail = src[tail_start..tail_start + tail_len].to_vec();
        bytes[end..end + tail_len].copy_from_slice(&tail);
        for b in &mut bytes[end + tail_len..tail_start + tail_len] {
            *b = b' ';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(src: &str) -> String {
        let mut b = src.as_bytes().to_vec();
        let macros: HashSet<String> = ["cast".to_string()].into();
        rewrite_units(
            &mut b,
            &[Range {
                start: 0,
                end: src.len(),
            }],
            &macros,
        );
        assert_eq!(b.len(), src.len());
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn words_that_change_no_structure_go() {
        let s = rewritten("int f(void) { int x __attribute__((unused)) = 1; __extension__ long y; double complex z; _Atomic(long) a; }");
        assert!(!s.contains("attribute") && !s.contains("__extension__"));
        assert!(!s.contains("complex") && !s.contains("_Atomic"));
        assert!(s.contains("double") && s.contains("long  a;"));
    }

    #[test]
    fn grammar_spellings() {
        let s = rewritten("int f(int c) { static void *l[] = {&&a}; goto *l[c]; a: switch (c) { case 1 ... 3: break; } int v<:2:> = <%1, 2%>; return v<:0:>; }");
        assert!(s.contains("{ &a}"));
        assert!(s.contains("      *l[c];"));
        assert!(s.contains("case 1      :"), "{s}");
        assert!(s.contains("v [2 ]"));
        assert!(s.contains(" {1, 2 }"));
    }

    #[test]
    fn file_scope_macros_and_implicit_int() {
        let s = rewritten("MAKE(int, x)\nEXPORT_ long g(long x) { return x; }\nstatic twice(x)\nint x;\n{ return x; }\n");
        assert!(s.starts_with("            \n"));
        assert!(s.contains("        long g"));
        assert!(s.contains("int    twice(x)"));
    }

    #[test]
    fn statement_macros_get_their_semicolon() {
        let s = rewritten("void f(int a) {\n    if (a)\n        PUT(\"x\")\n    SET(t, a)\n    LOOP(i)\n    {\n    }\n}\n");
        assert!(s.contains("PUT(\"x\");"));
        assert!(s.contains("SET(t, a);"));
        assert!(s.contains("LOOP(i)\n"));
    }

    #[test]
    fn statement_macros_as_the_body_of_a_head_on_its_line() {
        let s = rewritten("int f(int n) {\n   if( g(n) != 12 ) ERR_EXIT(READ)\n   if(!n) ERR_EXIT(NO)\n   else ERR_EXIT(N2)\n   for (;;) STEP(n)\n   x = h(n) ERR(n)\n   return 0;\n}\n");
        assert!(s.contains("ERR_EXIT(READ);"), "{s}");
        assert!(s.contains("ERR_EXIT(NO);"), "{s}");
        assert!(s.contains("ERR_EXIT(N2);"), "{s}");
        assert!(s.contains("STEP(n);"), "{s}");
        // After a call's `)` it is no statement of its own.
        assert!(s.contains("ERR(n)\n"), "{s}");
    }

    #[test]
    fn macro_words_and_macro_arguments() {
        let s = rewritten(
            "int ZEXPORT deflate(int x) { char FAR *p = cast(char *, x); local int k; return 0; }",
        );
        assert!(s.contains("int         deflate"), "{s}");
        assert!(s.contains("char     *p"), "{s}");
        assert!(s.contains("cast(         )"), "{s}");
        assert!(s.contains("      int k;"), "{s}");
        let s = rewritten("const char * ZEXPORT zlibVersion(void) { return x * Y(z); }");
        assert!(s.contains("const char *         zlibVersion(void)"), "{s}");
        assert!(s.contains("x * Y(z)"), "{s}");
    }

    #[test]
    fn macro_words_before_type_names_declared_elsewhere() {
        // A parameter of a type named in capitals stays (it is no
        // `(WINAPI *fp)(void)` declarator).
        let s =
            rewritten("local void w(FILE *out, const z_crc_t FAR *t) { int (WINAPI *fp)(void); }");
        assert!(s.contains("(FILE *out, const z_crc_t     *t)"), "{s}");
        assert!(s.contains("int (       *fp)(void);"), "{s}");
        // After a type and its qualifier.
        let s = rewritten("int f(void) { code const FAR *c = (code const FAR *)0; }");
        assert!(
            s.contains("code const     *c = (code const     *)0;"),
            "{s}"
        );
        // Before a type keyword in a parameter list or a cast.
        let s = rewritten(
            "int in(void *d, z_const unsigned char **b) { p = (z_const unsigned char *)q; }",
        );
        assert!(s.contains("void *d,         unsigned char **b"), "{s}");
        assert!(s.contains("(        unsigned char *)q"), "{s}");
        let s = rewritten("int f(size_t const n, Tp const *p);");
        assert!(s.contains("(size_t const n, Tp const *p)"), "{s}");
        // Of two capitals words after `extern`, the second is the macro.
        let s = rewritten("extern ZPOS64_T ZEXPORT tell64(unzFile file) { return 0; }");
        assert!(s.contains("extern ZPOS64_T         tell64("), "{s}");
        let s = rewritten("struct tm *__cdecl localtime(const time_t *t) { return 0; }");
        assert!(s.contains("struct tm *        localtime("), "{s}");
    }

    #[test]
    fn a_macro_bringing_the_parentheses_of_an_if() {
        let s = rewritten("int f(void) {\n  if EQ(\"\") return 0;\n  else if EQ(\"ab\") {\n  }\n  while W(x) g();\n  if (a) b();\n  if f(x) == 1;\n}");
        assert!(s.contains("if (1   ) return 0;"), "{s}");
        assert!(s.contains("else if (1     ) {"), "{s}");
        assert!(s.contains("while (1 ) g();"), "{s}");
        assert!(s.contains("if (a) b();"), "{s}");
        assert!(s.contains("if f(x) == 1;"), "{s}");
    }

    #[test]
    fn juxtaposed_string_macros_are_one_argument() {
        let s = rewritten("int f(void) { p = strstr(path, SEP SEP); q = g(A, B); }");
        assert!(s.contains("strstr(path, SEP    );"), "{s}");
        assert!(s.contains("g(A, B)"), "{s}");
    }

    #[test]
    fn knr_heads_returning_pointers() {
        let s = rewritten("float *alloc(n)\nint n;\n{ return 0; }\nint *p = q;\nchar *f(void);\n");
        let two = rewritten("float **alloc2(m, n)\nint m, n;\n{ return 0; }\n");
        assert!(two.starts_with("float   alloc2(m, n)"), "{two}");
        assert!(s.starts_with("float  alloc(n)"), "{s}");
        assert!(
            s.contains("int *p = q;") && s.contains("char *f(void);"),
            "{s}"
        );
    }

    #[test]
    fn spliced_strings_are_one_line() {
        let s = rewritten("int f(void) { return printf(\"a \\\nb\"); }");
        assert!(s.contains("\"a   b\""), "{s}");
    }

    #[test]
    fn knr_parameters_without_a_type_and_dos_splices() {
        // `register n;` is an int; `register T x;` and `register int k;`
        // have their type.
        let s = rewritten("f(n, k, x)\n register n; register int k;\n register T x;\n{ register i, j = 0; return n; }\n");
        assert!(s.contains(" int      n; register int k;"), "{s}");
        assert!(s.contains(" register T x;"), "{s}");
        assert!(s.contains("{ int      i, j = 0;"), "{s}");
        // A splice before CR LF, in a literal and between tokens: the
        // lexer keeps the literal whole, the parser sees a plain splice.
        let src = "int f(void) { return printf(\"a \\\r\nb\", 1 \\\r\n+ 2); }";
        let s = rewritten(src);
        assert_eq!(s.len(), src.len());
        assert!(!s.contains("\\\r"), "{s:?}");
        assert!(s.contains("1  \\\n+ 2"), "{s:?}");
    }

    #[test]
    fn spliced_words_are_joined() {
        let s = rewritten("int long_na\\\nme = 4;");
        assert!(s.starts_with("int long_name   = 4;"));
    }

    #[test]
    fn offsetof_and_va_arg_read_as_a_value() {
        let s = rewritten("int f(void) { g(db, offsetof(mod, x.y[2])); return va_arg(ap, int); }");
        assert!(s.contains("g(db, 0                    );"), "{s}");
        assert!(s.contains("return 0              ;"), "{s}");
        let s = rewritten(
            "int f(void) { char *z = __builtin_va_arg(ap, char *); return __builtin_offsetof(struct s, m); }",
        );
        assert!(s.contains("char *z = 0 ") && s.contains("return 0 "), "{s}");
        assert!(!s.contains("__builtin"), "{s}");
    }

    #[test]
    fn a_macro_prefixing_an_expression_joins_it() {
        let s = rewritten(
            "int f(void) { int rc; cast( rc = ) g(1);\n  cast(a, b);\n  x = cast(a) + 1; }",
        );
        assert!(s.contains("cast(      )+g(1);"), "{s}");
        assert!(s.contains("cast(    );"), "{s}");
        assert!(s.contains("x = cast( ) + 1;"), "{s}");
    }

    #[test]
    fn data_declarations_hold_no_body() {
        let only_data = |t: &str| declares_data_only(t, 0..t.len());
        assert!(only_data(
            "static SQLITE_WSD struct S {\n  int n[9];\n} s = { {0,}, {0,} };"
        ));
        assert!(only_data("SQLITE_API int sqlite3_open(const char *);"));
        assert!(only_data("enum { A, B } e = A;"));
        assert!(only_data(
            "static const luaL_Reg lib[] = {\n  {\"abs\", f},\n#if defined(X)\n  {\"pow\", g},\n#endif\n  {0, 0}\n};"
        ));
        assert!(!only_data(
            "SQLITE_PRIVATE int f(int op){ return s.n[op]; }"
        ));
        assert!(!only_data("f(x) int x; { return x; }"));
        assert!(!only_data("void f(void) NORETURN { for (;;); }"));
    }
}
