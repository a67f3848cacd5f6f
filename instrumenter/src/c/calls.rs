//! Which call expressions become `io` or `call` regions, and how their
//! probes must be written so the value and evaluation order stay the same.

use std::collections::HashSet;

use tree_sitter::Node;

use super::syntax::{squashed, text, KindName};
use crate::mpi_routines::{self, Spelling};

/// stdio and POSIX I/O functions: kind `io` (with `--regions io`).
const IO_FUNCTIONS: &[&str] = &[
    // formatted output and input
    "printf",
    "fprintf",
    "vprintf",
    "vfprintf",
    "dprintf",
    "vdprintf",
    "scanf",
    "fscanf",
    "vscanf",
    "vfscanf",
    // characters and lines
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "putc",
    "fgets",
    "fgetc",
    "getc",
    "getchar",
    "gets",
    "ungetc",
    "getline",
    "getdelim",
    // blocks and streams
    "fread",
    "fwrite",
    "fopen",
    "fdopen",
    "freopen",
    "fclose",
    "fflush",
    "fseek",
    "fseeko",
    "ftell",
    "ftello",
    "rewind",
    "fgetpos",
    "fsetpos",
    "setvbuf",
    "tmpfile",
    "perror",
    // POSIX descriptors
    "read",
    "write",
    "open",
    "openat",
    "creat",
    "close",
    "pread",
    "pwrite",
    "readv",
    "writev",
    "lseek",
    "fsync",
    "fdatasync",
];

/// Callees inside whose arguments nothing is evaluated (or that are not
/// real calls): calls there are never regions, and neither are they.
const OPAQUE: &[&str] = &[
    "sizeof",
    "_Alignof",
    "alignof",
    "__alignof__",
    "__alignof",
    "typeof",
    "__typeof__",
    "__typeof",
    "typeof_unqual",
    "_Static_assert",
    "static_assert",
    "_Generic",
    "offsetof",
];

/// Library functions gcc expands in place as builtins (no call is made,
/// `-finstrument-functions` sees none): not call regions.
const BUILTINS: &[&str] = &[
    "abs",
    "labs",
    "llabs",
    "fabs",
    "fabsf",
    "fabsl",
    "sqrt",
    "sqrtf",
    "sqrtl",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "trunc",
    "truncf",
    "round",
    "roundf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "fma",
    "fmaf",
    "copysign",
    "copysignf",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "strlen",
    "strcmp",
    "strcpy",
    "alloca",
];

/// Never wrapped besides the [`OPAQUE`] pseudo-functions: functions whose
/// call may not be moved into another expression (`setjmp`), functions
/// that do not return (the exit probe would never run), and standard macros.
const NEVER_WRAPPED: &[&str] = &[
    "va_start",
    "va_end",
    "va_arg",
    "va_copy",
    "setjmp",
    "_setjmp",
    "sigsetjmp",
    "__sigsetjmp",
    "longjmp",
    "_longjmp",
    "siglongjmp",
    "vfork",
    "exit",
    "_exit",
    "_Exit",
    "quick_exit",
    "abort",
    "pthread_exit",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallKind {
    Io,
    Call,
    /// An `MPI_*` routine (with `--regions mpi`).
    Mpi,
    /// An OpenMP lock routine (with `--regions omp`): `lock` or `unlock`.
    OmpLock(regio_idf::OmpKind),
}

/// How the probes go around a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form<'t> {
    /// `f(x);`: the expression statement is bracketed by a block.
    Statement(Node<'t>),
    /// Value thrown away inside an expression: a comma expression.
    Comma,
    /// Value used: a statement expression keeps it in a temporary.
    Value,
}

pub(crate) struct Plan<'t> {
    pub(crate) kind: CallKind,
    pub(crate) name: String,
    pub(crate) form: Form<'t>,
}

/// Whether calls inside this call's arguments must be left alone: the
/// arguments of compile-time pseudo-functions are not evaluated, and a
/// macro may stringify its arguments (`assert`) or paste them anywhere.
pub(crate) fn args_are_opaque(call: Node<'_>, src: &str, macros: &HashSet<String>) -> bool {
    call.child_by_field_name("function").is_some_and(|f| {
        let name = text(f, src);
        f.kind_name() == "identifier"
            && (OPAQUE.contains(&name) || looks_like_macro(name) || macros.contains(name))
    })
}

/// ALL_CAPS callees are taken to be macros: a macro "call" is no call,
/// and one that expands to statements, declarations, a brace initializer
/// or a `return` would break inside a wrapper.
fn looks_like_macro(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase())
}

/// Names of the function-like macros a text defines (`#define f(` with
/// no blank before the parenthesis). Lower-case macros look like calls to
/// the parser; these are never wrapped.
pub fn function_like_macros(text: &str) -> HashSet<String> {
    let mut names = HashSet::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 && rest[end..].starts_with('(') {
            let name = &rest[..end];
            names.insert(name.to_string());
            let word = expansion_word(&rest[end..]);
            let key = |w: &str| format!("{name} as {w}");
            // Two definitions in one text that disagree: neither is kept.
            let other = CONTROL_WORDS
                .iter()
                .find(|w| Some(**w) != word && names.contains(&key(w)));
            match (word, other) {
                (_, Some(w)) => {
                    names.remove(&key(w));
                    names.insert(format!("{name} as ?"));
                }
                (Some(w), None) if !names.contains(&format!("{name} as ?")) => {
                    names.insert(key(w));
                }
                _ => {}
            }
        }
    }
    // Whether a definition can bring a function body (`macro_uses.rs`).
    names.extend(super::macro_uses::block_keys(text));
    names
}

/// What a macro's expansion starts a statement with, as recorded in the
/// set [`function_like_macros`] returns (`"NAME as WORD"`: a key no name
/// can be): a control word, or `label` (`case l:`, `L_##l:`).
const CONTROL_WORDS: &[&str] = &["switch", "for", "while", "if", "label"];

/// The [`CONTROL_WORDS`] entry of a definition's `(params) body`.
fn expansion_word(params_and_body: &str) -> Option<&'static str> {
    let close = params_and_body.find(')')?;
    let body = params_and_body[close + 1..].trim();
    let body = body.strip_suffix('\\').unwrap_or(body).trim_end();
    let first = body
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    if let Some(w) = CONTROL_WORDS[..4].iter().find(|w| **w == first) {
        return Some(w);
    }
    let label = matches!(first, "case" | "default")
        || (body.ends_with(':') && !body.ends_with("::") && !body.contains('?'));
    label.then_some("label")
}

/// The statement word a function-like `name` expands to the start of
/// ([`function_like_macros`]), if its definitions in the tree agree.
pub(crate) fn control_macro(macros: &HashSet<String>, name: &str) -> Option<&'static str> {
    // One key buffer for all words: this runs for every call of a file
    // (SQLite: 3 % of the instrumenter's time was these allocations).
    let mut key = String::with_capacity(name.len() + 16);
    CONTROL_WORDS
        .iter()
        .find(|w| {
            key.clear();
            key.push_str(name);
            key.push_str(" as ");
            key.push_str(w);
            macros.contains(key.as_str())
        })
        .copied()
}

/// Which calls the user asked for, and which names are macros.
pub(crate) struct CallRules<'a> {
    pub(crate) want_io: bool,
    pub(crate) want_calls: bool,
    pub(crate) want_mpi: bool,
    pub(crate) want_omp: bool,
    /// Inside a macro's arguments: only MPI calls are wrapped there (the
    /// issue asks for them; other calls stay as written).
    pub(crate) only_mpi: bool,
    pub(crate) macros: &'a HashSet<String>,
}

/// Whether the arguments of this call are opaque only because the callee
/// is a macro (not a compile-time pseudo-function like `sizeof`).
pub(crate) fn is_macro_call(call: Node<'_>, src: &str, macros: &HashSet<String>) -> bool {
    call.child_by_field_name("function").is_some_and(|f| {
        let name = text(f, src);
        f.kind_name() == "identifier"
            && !OPAQUE.contains(&name)
            && (looks_like_macro(name) || macros.contains(name))
    })
}

/// What to do with one call expression inside a function body; None when
/// it is not a region. `path` holds the call's ancestors and, last, the
/// call itself.
pub(crate) fn plan<'t>(
    path: &[Node<'t>],
    src: &str,
    in_void_function: bool,
    rules: &CallRules<'_>,
) -> Option<Plan<'t>> {
    let call = *path.last()?;
    let callee = call.child_by_field_name("function")?;
    if may_be_cast(callee) {
        return None;
    }
    let name = squashed(callee, src);
    let mpi = callee.kind_name() == "identifier"
        && mpi_routines::is_mpi(&name, Spelling::Exact)
        && rules.want_mpi;
    let lock = (callee.kind_name() == "identifier" && rules.want_omp)
        .then(|| super::omp::lock_kind(&name))
        .flatten();
    let kind = if mpi {
        CallKind::Mpi
    } else if let Some(l) = lock {
        CallKind::OmpLock(l)
    } else if callee.kind_name() == "identifier" {
        if OPAQUE.contains(&name.as_str())
            || NEVER_WRAPPED.contains(&name.as_str())
            || BUILTINS.contains(&name.as_str())
            || name.starts_with("__builtin_")
            || name.starts_with("__sync_")
            || name.starts_with("__atomic_")
            || name.starts_with("regio_")
            || looks_like_macro(&name)
            || rules.macros.contains(&name)
        {
            return None;
        }
        if IO_FUNCTIONS.contains(&name.as_str()) {
            CallKind::Io
        } else {
            CallKind::Call
        }
    } else {
        CallKind::Call
    };
    let wanted = match kind {
        CallKind::Io => rules.want_io && !rules.only_mpi,
        CallKind::Call => rules.want_calls && !rules.only_mpi,
        CallKind::Mpi => true,
        CallKind::OmpLock(_) => !rules.only_mpi,
    };
    if !wanted {
        return None;
    }
    let form = match context(path, path.len() - 1, src, in_void_function) {
        Context::Statement(stmt) => Form::Statement(stmt),
        Context::Discarded => Form::Comma,
        Context::Used => Form::Value,
        Context::MaybeVoid | Context::Lvalue => return None,
    };
    Some(Plan { kind, name, form })
}

/// Whether a callee may really be the type of a cast: without the
/// declarations of every header, `(T)(x)` with a typedef name `T` reads
/// exactly like a call through a parenthesised function name `(f)(x)`,
/// and a cast chain `(T)(U)(x)` like a call of a call. Wrapping a cast
/// breaks the expression, so these are never taken for calls (a call
/// written `(f)(x)`, usually to avoid a macro, is left unmeasured).
fn may_be_cast(callee: Node<'_>) -> bool {
    match callee.kind_name() {
        "parenthesized_expression" => {
            let mut c = callee.walk();
            let inner: Vec<Node> = callee
                .named_children(&mut c)
                .filter(|n| n.kind_name() != "comment")
                .collect();
            matches!(inner.as_slice(), [only] if matches!(only.kind_name(), "identifier" | "primitive_type" | "type_identifier"))
        }
        "call_expression" => callee
            .child_by_field_name("function")
            .is_some_and(may_be_cast),
        _ => false,
    }
}

#[derive(Debug, Clone, Copy)]
enum Context<'t> {
    Statement(Node<'t>),
    Discarded,
    Used,
    /// A `?:` branch: its type may be void, and wrapping only one branch
    /// could make the branches' types disagree.
    MaybeVoid,
    /// Assigned to, incremented or its address taken: no function call
    /// can be that, so it is a macro that expands to an lvalue
    /// (`tgp(g, t) = x;`) whose definition Regio did not see.
    Lvalue,
}

/// How the value of `path[at]` is used, looking through parentheses,
/// commas, casts to void and statement expressions.
fn context<'t>(path: &[Node<'t>], at: usize, src: &str, in_void_function: bool) -> Context<'t> {
    let Some(up) = at.checked_sub(1) else {
        return Context::Used;
    };
    let (expr, parent) = (path[at], path[up]);
    let role = field_of(parent, expr);
    // An enclosing expression in statement position discards our value
    // but is itself no statement we could bracket.
    let discarded_if_statement = |c: Context<'t>| match c {
        Context::Statement(_) => Context::Discarded,
        c => c,
    };
    match parent.kind_name() {
        "parenthesized_expression" | "extension_expression" => {
            discarded_if_statement(context(path, up, src, in_void_function))
        }
        "comma_expression" if role == Some("left") => Context::Discarded,
        "comma_expression" => discarded_if_statement(context(path, up, src, in_void_function)),
        "cast_expression" => {
            let to_void = parent
                .child_by_field_name("type")
                .is_some_and(|t| is_void_type(t, src));
            if to_void {
                Context::Discarded
            } else {
                Context::Used
            }
        }
        "assignment_expression" if role == Some("left") => Context::Lvalue,
        "update_expression" => Context::Lvalue,
        "pointer_expression"
            if parent
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind_name() == "&") =>
        {
            Context::Lvalue
        }
        "conditional_expression" if role == Some("condition") => Context::Used,
        "conditional_expression" => Context::MaybeVoid,
        "for_statement" if matches!(role, Some("initializer") | Some("update")) => {
            Context::Discarded
        }
        "return_statement" if in_void_function => Context::Discarded,
        "expression_statement" => match statement_expression_of(path, up) {
            // The last statement of `({ ...; f(); })` gives the value of
            // the whole statement expression.
            Some(paren) => match context(path, paren, src, in_void_function) {
                Context::Statement(_) | Context::Discarded => Context::Statement(parent),
                c => c,
            },
            None => Context::Statement(parent),
        },
        _ => Context::Used,
    }
}

/// If `path[stmt]` is the last statement of a statement expression, the
/// index in `path` of that expression (it gives the statement's value).
fn statement_expression_of(path: &[Node<'_>], stmt: usize) -> Option<usize> {
    let block_at = stmt.checked_sub(1)?;
    let paren_at = block_at.checked_sub(1)?;
    let (block, paren) = (path[block_at], path[paren_at]);
    if block.kind_name() != "compound_statement" || paren.kind_name() != "parenthesized_expression"
    {
        return None;
    }
    let mut c = block.walk();
    let last = block
        .named_children(&mut c)
        .filter(|n| n.kind_name() != "comment")
        .last()?;
    (last == path[stmt]).then_some(paren_at)
}

fn is_void_type(type_descriptor: Node<'_>, src: &str) -> bool {
    // `(void)` parses as a type descriptor with the primitive type `void`
    // and no declarator.
    type_descriptor.named_child_count() == 1
        && type_descriptor
            .named_child(0)
            .is_some_and(|t| t.kind_name() == "primitive_type" && text(t, src) == "void")
}

fn field_of<'t>(parent: Node<'t>, child: Node<'t>) -> Option<&'static str> {
    let mut c = parent.walk();
    for (i, ch) in parent.children(&mut c).enumerate() {
        if ch == child {
            return parent.field_name_for_child(i as u32);
        }
    }
    None
}
