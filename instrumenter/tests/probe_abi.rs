//! The probe ABI is written down four times, by hand: the C header
//! (`runtime/include/regio.h`), the runtime's definitions
//! (`runtime/src/ffi.rs`), the declarations the C front end puts in every
//! instrumented file's prelude, and the calls and declarations the Fortran
//! front end writes (implicit interfaces: `external`, `call`, typed lock-test
//! functions). This test reads all four and checks they agree on every
//! symbol, its argument count and types, and its return type, so that a
//! change to any one of them alone fails here instead of in a link or,
//! worse, at run time with a wrong argument width.
//!
//! The header and `ffi.rs` are parsed as text. The C prelude and the Fortran
//! calls are what the front ends actually write for the programs below,
//! which use every construct that makes them emit a probe.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regio_instrumenter::filter::Filter;
use regio_instrumenter::frontend::SourceInput;
use regio_instrumenter::selection::Selection;

/// A type as the C ABI sees it: `void`, `u8`, `u32`, `i32`, `u64`, `i64`,
/// `usize`, `c_char`, or a pointer `*const T` / `*mut T`.
type Ty = String;

/// Return type and argument types of one symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sig {
    ret: Ty,
    args: Vec<Ty>,
}

impl std::fmt::Display for Sig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}) -> {}", self.args.join(", "), self.ret)
    }
}

type Abi = BTreeMap<String, Sig>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    let p = root().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// C: the text without `/* */` and `//` comments.
fn strip_c_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                out.push_str(&rest[..b]);
                rest = rest[b..].find("*/").map_or("", |e| &rest[b + e + 2..]);
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |e| &rest[l + e..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// A C type (possibly with a parameter name) in the vocabulary of [`Ty`].
fn c_type(decl: &str) -> Ty {
    let spaced = decl.replace('*', " * ");
    let mut words: Vec<&str> = spaced.split_whitespace().collect();
    let known = |w: &str| {
        matches!(
            w,
            "const"
                | "unsigned"
                | "signed"
                | "int"
                | "char"
                | "void"
                | "*"
                | "uint32_t"
                | "int32_t"
                | "uint64_t"
                | "int64_t"
                | "size_t"
                | "double"
                | "__UINT64_TYPE__"
                | "__INT64_TYPE__"
        )
    };
    if words.len() > 1 && !known(words[words.len() - 1]) {
        words.pop(); // the parameter's name
    }
    let stars = words.iter().filter(|w| **w == "*").count();
    let star_at = words.iter().position(|w| *w == "*").unwrap_or(words.len());
    let base_words = &words[..star_at];
    let is_const = base_words.contains(&"const");
    let base: Vec<&str> = base_words
        .iter()
        .copied()
        .filter(|w| *w != "const")
        .collect();
    let base = match base.join(" ").as_str() {
        "void" => "void",
        "char" => "c_char",
        "unsigned char" => "u8",
        "int" | "signed int" | "int32_t" => "i32",
        "unsigned int" | "unsigned" | "uint32_t" => "u32",
        "uint64_t" | "__UINT64_TYPE__" => "u64",
        "int64_t" | "__INT64_TYPE__" => "i64",
        "size_t" => "usize",
        "double" => "f64",
        other => panic!("C type `{decl}`: unknown base `{other}`"),
    }
    .to_string();
    match stars {
        0 => base,
        1 if is_const => format!("*const {base}"),
        1 => format!("*mut {base}"),
        _ => panic!("C type `{decl}`: more than one level of pointer"),
    }
}

/// C prototypes `RET NAME(ARGS);` of `regio_*` functions in `text`.
fn c_prototypes(text: &str) -> Abi {
    let text = strip_c_comments(text);
    let mut abi = Abi::new();
    for stmt in text.split([';', '{', '}']) {
        let stmt = stmt
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .collect::<Vec<_>>()
            .join(" ");
        let Some(open) = stmt.find('(') else { continue };
        let head = stmt[..open].trim();
        let Some(name) = head.split_whitespace().last() else {
            continue;
        };
        let name = name.trim_start_matches('*');
        // `regio__*` are the instrumenter's own (the IDF constructor).
        if !name.starts_with("regio_") || name.starts_with("regio__") {
            continue;
        }
        let Some(close) = stmt.rfind(')') else {
            continue;
        };
        let ret_text = head[..head.len() - name.len()]
            .trim()
            .trim_start_matches("extern")
            .trim();
        if ret_text.is_empty() || ret_text.contains('=') {
            continue; // a call (or an assignment of its value), not a declaration
        }
        let params = stmt[open + 1..close].trim();
        let args = if params.is_empty() || params == "void" {
            Vec::new()
        } else {
            params.split(',').map(c_type).collect()
        };
        let sig = Sig {
            ret: c_type(ret_text),
            args,
        };
        if let Some(old) = abi.insert(name.to_string(), sig.clone()) {
            assert_eq!(old, sig, "{name} declared twice, differently");
        }
    }
    abi
}

/// A Rust type of an `extern "C"` signature in the vocabulary of [`Ty`].
fn rust_type(t: &str) -> Ty {
    let t = t.trim();
    if let Some(p) = t.strip_prefix("*const ") {
        return format!("*const {}", rust_type(p));
    }
    if let Some(p) = t.strip_prefix("*mut ") {
        return format!("*mut {}", rust_type(p));
    }
    match t {
        "" | "()" => "void",
        "c_void" => "void",
        "c_char" => "c_char",
        "c_int" | "i32" => "i32",
        "u8" => "u8",
        "u32" => "u32",
        "u64" => "u64",
        "i64" => "i64",
        "usize" => "usize",
        "f64" => "f64",
        other => panic!("Rust type `{other}` not in the probe ABI vocabulary"),
    }
    .to_string()
}

/// The `#[no_mangle] extern "C" fn`s of `ffi.rs`.
fn rust_exports(text: &str) -> Abi {
    let mut abi = Abi::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[no_mangle]") {
        rest = &rest[at + "#[no_mangle]".len()..];
        let Some(f) = rest.find("extern \"C\" fn ") else {
            break;
        };
        let sig_start = f + "extern \"C\" fn ".len();
        let Some(body) = rest[sig_start..].find('{') else {
            break;
        };
        let sig = &rest[sig_start..sig_start + body];
        let open = sig.find('(').expect("a parameter list");
        let close = sig.rfind(')').expect("a parameter list");
        let name = sig[..open].trim().to_string();
        let args = sig[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| rust_type(p.split_once(':').map_or(p, |(_, t)| t)))
            .collect();
        let ret = rust_type(sig[close + 1..].trim().trim_start_matches("->"));
        abi.insert(name, Sig { ret, args });
        rest = &rest[sig_start + body..];
    }
    abi
}

fn input<'a>(text: &'a str, path: &'a str, filter: &'a Filter) -> SourceInput<'a> {
    SourceInput {
        text,
        display_path: path,
        rel_path: path,
        idf_path: "/r/regio.idf.json",
        selection: "all".parse::<Selection>().expect("valid selection"),
        filter,
        first_id: 1,
    }
}

/// A C program with every kind of probe: functions, loops, a user region,
/// disable/enable, MPI (rank, abort, finalize, message capture), OpenMP
/// parallel and host teams.
const C_PROGRAM: &str = r#"#include <mpi.h>
static int work(int k) {
    int s = 0;
    for (int i = 0; i < k; i++) {
        s += i;
    }
    return s;
}
int main(int argc, char **argv) {
    int s = 0;
    MPI_Init(&argc, &argv);
#pragma regio disable
    s += work(3);
#pragma regio enable
    {
#pragma regio begin phase
        s += work(4);
#pragma regio end phase
    }
#pragma omp parallel
    {
        s += 1;
    }
#pragma omp teams num_teams(2)
    {
        s += 1;
    }
    MPI_Request r;
    MPI_Status st;
    MPI_Isend(&s, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    MPI_Recv(&s, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    MPI_Wait(&r, &st);
    MPI_Request_free(&r);
    MPI_Bcast(&s, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Send_init(&s, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
    MPI_Start(&r);
    MPI_Wait(&r, &st);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, s % 2, 0, &half);
    MPI_Comm dup;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
    if (s < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
"#;

/// The C front end's prelude declarations for [`C_PROGRAM`], and every
/// `regio_*` name the instrumented text uses.
fn c_prelude() -> (Abi, BTreeSet<String>) {
    let filter = Filter::default();
    let done = regio_instrumenter::c::instrument(&input(C_PROGRAM, "all.c", &filter))
        .unwrap_or_else(|d| panic!("C program not instrumented: {d:?}"));
    let (prelude, body) = done
        .text
        .split_once("#line 1 ")
        .expect("the prelude ends with #line 1");
    (c_prototypes(prelude), regio_names(body))
}

/// Public `regio_*` names (not the instrumenter's own `regio__*` variables).
fn regio_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while let Some(at) = text[i..].find("regio_") {
        let s = i + at;
        let mut e = s;
        while e < b.len() && ident(b[e]) {
            e += 1;
        }
        if (s == 0 || !ident(b[s - 1])) && !text[s..].starts_with("regio__") {
            names.insert(text[s..e].to_ascii_lowercase());
        }
        i = e.max(s + 1);
    }
    names
}

/// A free-form Fortran program with every kind of probe: procedures,
/// loops, ENTRY (the `regio_u` variable), disable/enable, MPI init,
/// abort, finalize and message capture, OpenMP parallel and host teams, lock tests in expressions.
const FORTRAN_FREE: &str = "program abi
  use omp_lib
  use mpi
  implicit none
  integer :: i, s, ierr, req, st(MPI_STATUS_SIZE), half
  logical :: flag
  integer(omp_lock_kind) :: lck
  integer(omp_nest_lock_kind) :: nlck
  call mpi_init(ierr)
  s = 0
  do i = 1, 3
    s = s + i
  end do
  !$regio disable
  call work(s)
  !$regio enable
  !$omp parallel
  s = s + 1
  !$omp end parallel
  !$omp teams num_teams(2)
  s = s + 1
  !$omp end teams
  if (omp_test_lock(lck)) s = 1
  if (omp_test_nest_lock(nlck) > 0) s = 2
  call mpi_isend(s, 1, MPI_INTEGER, 0, 1, mpi_comm_world, req, ierr)
  call mpi_send(s, 1, MPI_INTEGER, 0, 1, mpi_comm_world, ierr)
  call mpi_wait(req, st, ierr)
  call mpi_recv(s, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, mpi_comm_world, st, ierr)
  call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
  call mpi_comm_split(mpi_comm_world, mod(s, 2), 0, half, ierr)
  call mpi_comm_idup(mpi_comm_world, half, req, ierr)
  call mpi_bcast(s, 1, MPI_INTEGER, 0, mpi_comm_world, ierr)
  call mpi_test(req, flag, st, ierr)
  call mpi_test(req, flag, MPI_STATUS_IGNORE, ierr)
  call mpi_send_init(s, 1, MPI_INTEGER, 0, 2, mpi_comm_world, req, ierr)
  call mpi_start(req, ierr)
  if (s < 0) call mpi_abort(mpi_comm_world, 1, ierr)
  call mpi_finalize(ierr)
contains
  subroutine work(k)
    integer :: k
    k = k + 1
  end subroutine work
  subroutine total(b)
    integer :: b, t, e
    call mpi_allreduce(b, t, 1, MPI_INTEGER, MPI_SUM, mpi_comm_world, e)
  end subroutine total
end program abi

subroutine twoway(k)
  integer :: k
  k = 1
  return
  entry other(k)
  k = 2
end subroutine twoway
";

/// The same in fixed form (its declarations are written differently).
const FORTRAN_FIXED: &str = "      SUBROUTINE TWOWAY(K)
      INTEGER K, I
      DO 10 I = 1, 3
         K = K + I
   10 CONTINUE
      RETURN
      ENTRY OTHER(K)
      K = 2
      END
";

/// What a Fortran actual argument is passed as.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FArg {
    /// By reference, to a value of this type (`i32`, `i64`).
    Ref(Ty),
    /// By reference, to a variable of the program's (a lock).
    Opaque,
    /// A CHARACTER: its address, plus a hidden length at the end.
    Str,
}

/// One way the Fortran front end calls a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FCall {
    args: Vec<FArg>,
    /// `call` (None) or a function of this result type.
    result: Option<Ty>,
}

/// Fortran statements of `text` with continuations joined (free form `&`,
/// fixed form column 6), lower case.
fn fortran_statements(text: &str, fixed: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let l = line.to_ascii_lowercase();
        if fixed {
            let cont = l.len() > 5 && !l.starts_with(['c', '*', '!']) && {
                let c6 = l.as_bytes()[5];
                c6 != b' ' && c6 != b'0'
            };
            match out.last_mut() {
                Some(prev) if cont => prev.push_str(&l[6..]),
                _ => out.push(l),
            }
        } else {
            let joined = match out.last_mut() {
                Some(prev) if prev.trim_end().ends_with('&') => {
                    let p = prev.trim_end().trim_end_matches('&').to_string();
                    let t = l.trim_start();
                    *prev = p + t.strip_prefix('&').unwrap_or(t);
                    true
                }
                _ => false,
            };
            if !joined {
                out.push(l);
            }
        }
    }
    out
}

/// Types the instrumented text declares for the names it introduces
/// (`integer(8) :: regio__team5`, `integer :: regio_u`, `INTEGER REGIO_U`,
/// `logical :: regio_tl`).
fn fortran_declarations(statements: &[String]) -> BTreeMap<String, Ty> {
    let mut types = BTreeMap::new();
    for stmt in statements {
        for part in stmt.split(';') {
            let part = part.trim();
            let (ty, names) = if let Some(n) = part.strip_prefix("integer(8) ::") {
                ("i64", n)
            } else if let Some(n) = part.strip_prefix("integer ::") {
                ("i32", n)
            } else if let Some(n) = part.strip_prefix("logical ::") {
                ("i32", n) // LOGICAL(4): a 4-byte int in C
            } else if let Some(n) = part.strip_prefix("integer ") {
                ("i32", n)
            } else {
                continue;
            };
            for name in names.split(',') {
                let name = name.trim();
                if name.starts_with("regio_") {
                    types.insert(name.to_string(), ty.to_string());
                }
            }
        }
    }
    types
}

/// Every probe call and every `external` name in instrumented Fortran.
fn fortran_calls(text: &str, fixed: bool) -> (BTreeMap<String, FCall>, BTreeSet<String>) {
    let statements = fortran_statements(text, fixed);
    let types = fortran_declarations(&statements);
    let mut calls = BTreeMap::new();
    let mut externals = BTreeSet::new();
    for stmt in &statements {
        for part in stmt.split(';').map(str::trim) {
            // `external :: a, b` (free form) or `EXTERNAL A` (fixed form).
            let list = part
                .strip_prefix("external ::")
                .or_else(|| part.strip_prefix("external "));
            if let Some(list) = list {
                externals.extend(list.split(',').map(|n| n.trim().to_string()));
            }
        }
        let b = stmt.as_bytes();
        let mut i = 0;
        while let Some(at) = stmt[i..].find("regio_") {
            let s = i + at;
            let mut e = s;
            while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
                e += 1;
            }
            i = e.max(s + 1);
            let before = stmt[..s].trim_end();
            // A name followed by `(`: a call or a function reference (not
            // an `external` list or a declaration).
            if (s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_'))
                || !stmt[e..].trim_start().starts_with('(')
            {
                continue;
            }
            let name = stmt[s..e].to_string();
            let open = e + stmt[e..].find('(').expect("checked above");
            let mut depth = 0;
            let mut close = open;
            for (k, c) in stmt[open..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            close = open + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let inner = stmt[open + 1..close].trim();
            let args = if inner.is_empty() {
                Vec::new()
            } else {
                inner
                    .split(',')
                    .map(|a| {
                        let a = a.trim();
                        if a.starts_with('\'') || a.starts_with('"') {
                            FArg::Str
                        } else if a.chars().all(|c| c.is_ascii_digit()) {
                            FArg::Ref("i32".into()) // default INTEGER
                        } else if let Some(t) = a
                            .split_once(" + ")
                            .filter(|(_, n)| n.chars().all(|c| c.is_ascii_digit()))
                            .and_then(|(v, _)| types.get(v))
                        {
                            // `regio_b + 12`: the base plus a local id, a
                            // temporary of the variable's type.
                            FArg::Ref(t.clone())
                        } else if let Some(t) = types.get(a) {
                            FArg::Ref(t.clone())
                        } else {
                            FArg::Opaque
                        }
                    })
                    .collect()
            };
            let result = if before.ends_with("call") {
                None
            } else {
                Some(
                    types
                        .get(&name)
                        .unwrap_or_else(|| panic!("function {name} used without a type: {stmt}"))
                        .clone(),
                )
            };
            let call = FCall { args, result };
            if let Some(old) = calls.insert(name.clone(), call.clone()) {
                assert_eq!(old, call, "{name} called in two ways");
            }
        }
    }
    (calls, externals)
}

fn fortran_output(text: &str, path: &str, fixed: bool) -> String {
    use regio_instrumenter::fortran::{instrument, SourceForm};
    let filter = Filter::default();
    let form = if fixed {
        SourceForm::Fixed
    } else {
        SourceForm::Free
    };
    instrument(&input(text, path, &filter), form)
        .unwrap_or_else(|d| panic!("{path} not instrumented: {d:?}"))
        .text
}

/// Whether Fortran call `f` matches C prototype `c` of the same symbol
/// with a trailing underscore: every argument by reference, CHARACTER
/// lengths by value at the end.
fn fortran_matches(f: &FCall, c: &Sig) -> Result<(), String> {
    let strings = f.args.iter().filter(|a| **a == FArg::Str).count();
    if c.args.len() != f.args.len() + strings {
        return Err(format!(
            "{} Fortran argument(s) (+{strings} hidden length), C has {}",
            f.args.len(),
            c.args.len()
        ));
    }
    for (k, a) in f.args.iter().enumerate() {
        let ct = &c.args[k];
        let pointee = ct
            .strip_prefix("*const ")
            .or_else(|| ct.strip_prefix("*mut "));
        let ok = match (a, pointee) {
            (_, None) => false,
            (FArg::Ref(t), Some(p)) => p == t,
            (FArg::Opaque, Some(_)) => true,
            (FArg::Str, Some(p)) => p == "c_char",
        };
        if !ok {
            return Err(format!(
                "argument {} is {a:?} in Fortran, `{ct}` in C",
                k + 1
            ));
        }
    }
    for k in f.args.len()..c.args.len() {
        if c.args[k] != "usize" {
            return Err(format!(
                "hidden length {} is `{}` in C, not usize",
                k + 1,
                c.args[k]
            ));
        }
    }
    let ret = f.result.clone().unwrap_or_else(|| "void".into());
    if ret != c.ret {
        return Err(format!("returns {ret} in Fortran, {} in C", c.ret));
    }
    Ok(())
}

#[test]
fn header_and_runtime_define_the_same_functions() {
    let header = c_prototypes(&read("runtime/include/regio.h"));
    let runtime = rust_exports(&read("runtime/src/ffi.rs"));
    assert!(header.len() >= 30, "header parsed: {header:?}");
    let mut problems = Vec::new();
    for (name, sig) in &header {
        match runtime.get(name) {
            None => problems.push(format!("{name}: in regio.h, not defined in ffi.rs")),
            Some(r) if r != sig => problems.push(format!("{name}: regio.h {sig}, ffi.rs {r}")),
            Some(_) => {}
        }
    }
    for name in runtime.keys().filter(|n| !header.contains_key(*n)) {
        problems.push(format!(
            "{name}: defined in ffi.rs, not declared in regio.h"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn c_prelude_declares_what_the_header_declares() {
    let header = c_prototypes(&read("runtime/include/regio.h"));
    let (prelude, used) = c_prelude();
    // The program uses every probe the C front end writes.
    for name in [
        "regio_enter",
        "regio_exit",
        "regio_guard_exit",
        "regio_scope_open",
        "regio_scope_close",
        "regio_disable",
        "regio_enable",
        "regio_register_object",
        "regio_mpi_rank",
        "regio_mpi_abort",
        "regio_mpi_finalize",
        "regio_mpi_msg",
        "regio_mpi_post",
        "regio_mpi_reqs",
        "regio_mpi_done",
        "regio_mpi_request_free",
        "regio_mpi_coll",
        "regio_mpi_start",
        "regio_mpi_comm_new",
        "regio_mpi_comm_made",
        "regio_omp_fork",
        "regio_omp_begin",
        "regio_omp_end",
        "regio_omp_join",
        "regio_omp_teams_begin",
        "regio_omp_teams_end",
    ] {
        assert!(
            prelude.contains_key(name),
            "prelude lacks {name}: {prelude:?}"
        );
    }
    let mut problems = Vec::new();
    for name in &used {
        if !prelude.contains_key(name) {
            problems.push(format!(
                "{name}: used by instrumented C, not in the prelude"
            ));
        }
    }
    for (name, sig) in &prelude {
        match header.get(name) {
            None => problems.push(format!("{name}: in the prelude, not in regio.h")),
            Some(h) if h != sig => {
                problems.push(format!("{name}: prelude {sig}, regio.h {h}"));
            }
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn fortran_calls_match_the_header_twins() {
    let header = c_prototypes(&read("runtime/include/regio.h"));
    let mut calls = BTreeMap::new();
    let mut externals = BTreeSet::new();
    for (text, path, fixed) in [
        (FORTRAN_FREE, "all.f90", false),
        (FORTRAN_FIXED, "all.f", true),
    ] {
        let out = fortran_output(text, path, fixed);
        let (c, e) = fortran_calls(&out, fixed);
        for (name, call) in c {
            if let Some(old) = calls.insert(name.clone(), call.clone()) {
                assert_eq!(old, call, "{name} called in two ways");
            }
        }
        externals.extend(e);
    }
    assert!(
        externals.contains("regio_enter"),
        "externals read: {externals:?}"
    );
    // The programs make the front end write every probe it has.
    for name in [
        "regio_register_base",
        "regio_tl_base",
        "regio_enter",
        "regio_exit",
        "regio_disable",
        "regio_enable",
        "regio_mpi_init_done",
        "regio_mpi_abort",
        "regio_mpi_finalize",
        "regio_mpi_msg",
        "regio_mpi_post",
        "regio_mpi_reqs",
        "regio_mpi_done",
        "regio_mpi_msg_status",
        "regio_mpi_done_status",
        "regio_mpi_coll",
        "regio_mpi_coll_buf",
        "regio_mpi_test",
        "regio_mpi_test_status",
        "regio_mpi_start",
        "regio_mpi_comm_new",
        "regio_mpi_comm_made",
        "regio_omp_fork",
        "regio_omp_begin",
        "regio_omp_end",
        "regio_omp_join",
        "regio_omp_teams_begin",
        "regio_omp_teams_end",
        "regio_tl",
        "regio_tnl",
    ] {
        assert!(
            calls.contains_key(name),
            "no {name} call written: {calls:?}"
        );
    }
    let mut problems = Vec::new();
    for (name, call) in &calls {
        let twin = format!("{name}_");
        match header.get(&twin) {
            None => problems.push(format!("{name}: called from Fortran, no {twin} in regio.h")),
            Some(sig) => {
                if let Err(e) = fortran_matches(call, sig) {
                    problems.push(format!("{name}: {e} (regio.h: {twin}{sig})"));
                }
            }
        }
    }
    for name in &externals {
        if !calls.contains_key(name) {
            problems.push(format!("{name}: declared external, never called"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
