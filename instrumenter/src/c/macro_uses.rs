//! What a file-scope macro invocation with no trailing `;` defines
//! (`IOMETHODS(posixIoFinder, posixIoMethods, ...)`, `DEFINE_OP(add, +)`,
//! `LUAI_DDEC(const lu_byte t[N];)`), read from the macro's `#define`.
//!
//! The second reading hides such an invocation from the parser
//! (`mask.rs`); the functions it expands to exist only after
//! preprocessing, so the text path cannot measure them (`--preprocess`
//! does). This module tells the front end what to report:
//! * the names of the functions the expansion defines, when the
//!   `#define` is in the same file (its body with the arguments put in
//!   for the parameters, `##` joined): each is listed by name;
//! * nothing at all, when every known definition of the macro and the
//!   invocation's arguments hold no `{`: no function body can come out
//!   of it (a declaration, `LUAI_DDEC(...)`), so nothing is lost;
//! * else an unnamed place, listed as defining code.
//!
//! The one assumption: an object-like macro named in the body does not
//! expand to a `{` (`#define BEGIN {`); a definition written that way at
//! file scope would also need its body's `}` from somewhere.

use std::collections::HashSet;
use std::ops::Range;

/// What one invocation defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Defines {
    /// No function body can come out of it.
    Nothing,
    /// The functions its expansion defines, by name.
    Functions(Vec<String>),
    /// Maybe functions; the definition is elsewhere or not understood.
    Unknown,
}

/// Key in the tree's macro set ([`super::calls::function_like_macros`])
/// of a function-like macro one of whose definitions holds a `{`.
pub(crate) fn block_key(name: &str) -> String {
    format!("{name} as block")
}

/// Key of a function-like macro one of whose definitions holds no `{`.
pub(crate) fn blockless_key(name: &str) -> String {
    format!("{name} as blockless")
}

/// One `#define NAME(params) body` of `text` (continuations joined).
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    pub(crate) name: String,
    params: Vec<String>,
    body: String,
}

/// Every function-like macro definition of `text`.
pub(crate) fn definitions(text: &str) -> Vec<Definition> {
    let mut out = Vec::new();
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        // The logical line: backslash-newlines joined.
        let mut logical = rest.to_string();
        while logical.trim_end_matches(['\n', '\r']).ends_with('\\') {
            let keep = logical.trim_end_matches(['\n', '\r']).len() - 1;
            logical.truncate(keep);
            logical.push(' ');
            match lines.next() {
                Some(next) => logical.push_str(next),
                None => break,
            }
        }
        let rest = logical.trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 || !rest[end..].starts_with('(') {
            continue;
        }
        let Some(close) = rest[end..].find(')') else {
            continue;
        };
        let params = rest[end + 1..end + close]
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        out.push(Definition {
            name: rest[..end].to_string(),
            params,
            body: strip_comments(&rest[end + close + 1..]),
        });
    }
    out
}

/// The keys [`block_key`] / [`blockless_key`] for every definition of
/// `text`.
pub(crate) fn block_keys(text: &str) -> impl Iterator<Item = String> {
    definitions(text).into_iter().map(|d| {
        if d.body.contains('{') {
            block_key(&d.name)
        } else {
            blockless_key(&d.name)
        }
    })
}

/// What the invocation at `at` of `src` (`NAME(args)`, as the second
/// reading hid it) defines; `macros` is the tree's macro set.
/// `in_file` is [`definitions`] of `src`, read once per file.
pub(crate) fn what_it_defines(
    src: &str,
    in_file: &[Definition],
    at: &Range<usize>,
    macros: &HashSet<String>,
) -> Defines {
    let text = &src[at.clone()];
    let name_end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let name = &text[..name_end];
    let Some(args) = arguments(&text[name_end..]) else {
        return Defines::Unknown;
    };
    let here: Vec<&Definition> = in_file.iter().filter(|d| d.name == name).collect();
    let braces_here = here.iter().any(|d| d.body.contains('{'));
    let known_elsewhere = macros.contains(&blockless_key(name));
    if !braces_here
        && !macros.contains(&block_key(name))
        && (!here.is_empty() || known_elsewhere)
        && !args.iter().any(|a| a.contains('{'))
    {
        return Defines::Nothing;
    }
    // Names only from one definition in this file that the arguments fit.
    match here.as_slice() {
        [d] if d.params.len() == args.len() && !d.params.iter().any(|p| p == "...") => {
            match defined_functions(&d.body, &d.params, &args) {
                Some(names) if !names.is_empty() => Defines::Functions(names),
                Some(_) if !braces_here && !args.iter().any(|a| a.contains('{')) => {
                    Defines::Nothing
                }
                _ => Defines::Unknown,
            }
        }
        _ => Defines::Unknown,
    }
}

/// The invocation shown short: `IOMETHODS(posixIoFinder, ...)`.
pub(crate) fn shown(src: &str, at: &Range<usize>) -> String {
    let text = &src[at.clone()];
    let name_end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let args = arguments(&text[name_end..]).unwrap_or_default();
    let first: String = args
        .first()
        .map(|a| a.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let first: String = first.chars().take(40).collect();
    let more = if args.len() > 1 { ", ..." } else { "" };
    format!("{}({first}{more})", &text[..name_end])
}

/// The arguments of `(a, b, ...)` (the text after the macro's name),
/// comments removed, split at top-level commas; None when unbalanced.
fn arguments(text: &str) -> Option<Vec<String>> {
    let t = strip_comments(text);
    let t = t.trim();
    let inner = t.strip_prefix('(')?.strip_suffix(')')?;
    let mut args = vec![String::new()];
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in inner.chars() {
        if let Some(q) = quote {
            escaped = !escaped && c == '\\';
            if c == q && !escaped {
                quote = None;
            }
        } else {
            match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    args.push(String::new());
                    continue;
                }
                _ => {}
            }
        }
        if let Some(last) = args.last_mut() {
            last.push(c);
        }
    }
    if depth != 0 || quote.is_some() {
        return None;
    }
    let args: Vec<String> = args.into_iter().map(|a| a.trim().to_string()).collect();
    if args.len() == 1 && args[0].is_empty() {
        return Some(Vec::new());
    }
    Some(args)
}

/// `text` with `/* */` and `//` comments as one blank each (string
/// literals kept).
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut from = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                out.push_str(&text[from..i]);
                out.push(' ');
                i = text[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
                from = i;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                out.push_str(&text[from..i]);
                out.push(' ');
                i = text[i..].find('\n').map_or(b.len(), |p| i + p);
                from = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[from.min(text.len())..]);
    out
}

/// The names of the function definitions in a macro `body` (a `{` at
/// brace depth 0 right after the `)` of `NAME(...)`), parameters replaced
/// by `args` and `##` joined; None when a body's name cannot be told.
fn defined_functions(body: &str, params: &[String], args: &[String]) -> Option<Vec<String>> {
    let toks = tokens(body);
    let mut names = Vec::new();
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate() {
        match t.as_str() {
            "{" if depth == 0 => {
                depth += 1;
                if k == 0 || toks[k - 1] != ")" {
                    continue; // an initializer or a struct body
                }
                let open = matching_open(&toks, k - 1)?;
                // NAME, or A ## B ## ..., before the `(`.
                let mut j = open;
                let mut parts = Vec::new();
                while let Some(prev) = j.checked_sub(1) {
                    if !is_word(&toks[prev]) {
                        break;
                    }
                    parts.push(toks[prev].clone());
                    j = prev;
                    if j >= 1 && toks[j - 1] == "##" {
                        j -= 1;
                        continue;
                    }
                    break;
                }
                if parts.is_empty() {
                    return None;
                }
                parts.reverse();
                let name: String = parts
                    .iter()
                    .map(|p| match params.iter().position(|q| q == p) {
                        Some(i) => args[i].clone(),
                        None => p.clone(),
                    })
                    .collect();
                if !is_word(&name) {
                    return None;
                }
                names.push(name);
            }
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Some(names)
}

fn is_word(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn matching_open(toks: &[String], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for j in (0..=close).rev() {
        match toks[j].as_str() {
            ")" => depth += 1,
            "(" => {
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

/// Words, `##`, string literals and single punctuation characters.
fn tokens(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if c == b'#' && b.get(i + 1) == Some(&b'#') {
            i += 2;
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push(text[start..i].to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const IOMETHODS: &str = "#define IOMETHODS(FINDER, METHOD, CLOSE)  \\\nstatic const io METHOD = {  \\\n   1, CLOSE  /* xClose */ \\\n};  \\\nstatic const io *FINDER##Impl(const char *z, int h){ \\\n  return &METHOD; \\\n} \\\nstatic const io *(*const FINDER)(const char*,int) \\\n    = FINDER##Impl;\n\nIOMETHODS(\n  posixIoFinder,   /* Finder function name */\n  posixIoMethods,  /* object */\n  unixClose        /* xClose */\n)\n";

    fn use_of(src: &str, name: &str) -> Range<usize> {
        let at = src.rfind(&format!("\n{name}(")).map_or(0, |p| p + 1);
        let close = src[at..].find(")\n").map_or(src.len(), |p| at + p + 1);
        at..close
    }

    #[test]
    fn functions_of_a_definition_in_the_file_are_named() {
        let at = use_of(IOMETHODS, "IOMETHODS");
        assert_eq!(
            what_it_defines(IOMETHODS, &definitions(IOMETHODS), &at, &HashSet::new()),
            Defines::Functions(vec!["posixIoFinderImpl".to_string()])
        );
        assert_eq!(shown(IOMETHODS, &at), "IOMETHODS(posixIoFinder, ...)");
        let ops = "#define DEFINE_OP(name, op) \\\n    static int name(int a, int b) { return a op b; }\nDEFINE_OP(add, +)\n";
        assert_eq!(
            what_it_defines(
                ops,
                &definitions(ops),
                &use_of(ops, "DEFINE_OP"),
                &HashSet::new()
            ),
            Defines::Functions(vec!["add".to_string()])
        );
    }

    #[test]
    fn declarations_define_nothing() {
        // Defined in another file of the tree (llimits.h): the tree's set.
        let src = "LUAI_DDEC(const lu_byte luaP_opmodes[NUM_OPCODES];)\n";
        let at = 0..src.len() - 1;
        let tree: HashSet<String> = block_keys("#define LUAI_DDEC(dec)\tLUAI_FUNC dec\n").collect();
        assert_eq!(
            what_it_defines(src, &definitions(src), &at, &tree),
            Defines::Nothing
        );
        // Unknown macro: maybe code.
        assert_eq!(
            what_it_defines(src, &definitions(src), &at, &HashSet::new()),
            Defines::Unknown
        );
        // Another definition in the tree with a block: maybe code.
        let both: HashSet<String> =
            block_keys("#define LUAI_DDEC(dec) dec\n#define LUAI_DDEC(dec) void f(void) { }\n")
                .collect();
        assert_eq!(
            what_it_defines(src, &definitions(src), &at, &both),
            Defines::Unknown
        );
        // A brace in the arguments: maybe code.
        let body = "#define WRAP(x) x\nWRAP(int f(void) { return 0; })\n";
        assert_eq!(
            what_it_defines(
                body,
                &definitions(body),
                &use_of(body, "WRAP"),
                &HashSet::new()
            ),
            Defines::Unknown
        );
        // In the same file, no brace anywhere.
        let data = "#define DECL(t, n) \\\n  extern t n;\nDECL(int, x)\n";
        assert_eq!(
            what_it_defines(
                data,
                &definitions(data),
                &use_of(data, "DECL"),
                &HashSet::new()
            ),
            Defines::Nothing
        );
    }
}
