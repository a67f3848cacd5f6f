//! `#pragma omp` directives: recognising the construct, splitting its
//! clauses, and the text that replaces the directive line.
//!
//! A directive line is replaced, on the same line, by the probes that go
//! before the construct and the directive itself as a `_Pragma("omp ...")`
//! operator (with the clauses we add), so no line is added and probes can
//! stand on both sides of it. What goes after the construct's statement is
//! inserted at the statement's end, again on one line. The regions each
//! construct makes are listed in notes/OPENMP.md.

use std::fmt::Write as _;

/// A parsed `#pragma omp` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Directive {
    /// Construct words, lower case: `["parallel", "for"]`.
    pub(crate) words: Vec<String>,
    /// The name of a named `critical`.
    pub(crate) name: Option<String>,
    /// Clauses as written, in order: (lower-case name, full text).
    pub(crate) clauses: Vec<(String, String)>,
}

/// Words that make up construct names (the rest of a line are clauses).
const CONSTRUCT_WORDS: &[&str] = &[
    "parallel",
    "for",
    "do",
    "simd",
    "sections",
    "section",
    "single",
    "master",
    "masked",
    "critical",
    "atomic",
    "barrier",
    "ordered",
    "task",
    "taskwait",
    "taskgroup",
    "taskloop",
    "taskyield",
    "flush",
    "target",
    "teams",
    "distribute",
    "loop",
    "declare",
    "threadprivate",
    "cancel",
    "cancellation",
    "point",
    "scan",
    "requires",
    "metadirective",
    "workshare",
    "data",
    "enter",
    "exit",
    "update",
    "variant",
    "reduction",
    "mapper",
    "allocate",
    "assume",
    "assumes",
    "depobj",
    "interop",
    "dispatch",
    "tile",
    "unroll",
    "error",
    "nothing",
    "scope",
];

/// Whether construct word `next` continues a construct name after `prev`
/// (`parallel for`, `for simd`, `target teams distribute`, ...); words
/// like `ordered` after `for` are clauses.
fn follows(prev: &str, next: &str) -> bool {
    match prev {
        "parallel" => matches!(
            next,
            "for" | "do" | "sections" | "workshare" | "loop" | "masked" | "master"
        ),
        "for" | "do" | "taskloop" => next == "simd",
        "distribute" => matches!(next, "parallel" | "simd"),
        "target" => matches!(
            next,
            "teams" | "parallel" | "data" | "enter" | "exit" | "update" | "simd" | "loop"
        ),
        "teams" => matches!(next, "distribute" | "loop"),
        "masked" | "master" => next == "taskloop",
        "declare" => matches!(next, "simd" | "variant" | "reduction" | "mapper" | "target"),
        "end" => matches!(next, "declare" | "target"),
        "enter" | "exit" => next == "data",
        "cancellation" => next == "point",
        _ => false,
    }
}

/// The joined text of a directive's argument: line continuations removed
/// and runs of blanks made one (clauses hold no string literals).
fn joined(arg: &str) -> String {
    let flat = arg.replace("\\\r\n", " ").replace("\\\n", " ");
    flat.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits `s` into top-level items: words, each with a following
/// parenthesised group (`schedule(static, 4)` is one item).
fn items(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let start = i;
        if b[i] == b'(' {
            // A group without a word (critical's name written apart).
        } else {
            while i < b.len() && !(b[i].is_ascii_whitespace() || b[i] == b',' || b[i] == b'(') {
                i += 1;
            }
        }
        // A group may follow after blanks.
        let mut j = i;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if j < b.len() && b[j] == b'(' {
            let mut depth = 0;
            i = j;
            while i < b.len() {
                match b[i] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        out.push(s[start..i].trim().to_string());
    }
    out
}

fn item_name(item: &str) -> String {
    item.split(|c: char| c == '(' || c.is_ascii_whitespace())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The `omp` directive of a pragma argument (`omp parallel for ...`), or
/// None for other pragmas.
pub(crate) fn parse(arg: &str) -> Option<Directive> {
    let text = joined(arg);
    let rest = text.trim_start();
    let first = rest.split(|c: char| c.is_ascii_whitespace()).next()?;
    if !first.eq_ignore_ascii_case("omp") {
        return None;
    }
    let rest = &rest[first.len()..];
    let mut words: Vec<String> = Vec::new();
    let mut name = None;
    let mut clauses = Vec::new();
    let mut in_clauses = false;
    for item in items(rest) {
        let n = item_name(&item);
        let starts_or_follows = match words.last() {
            None => CONSTRUCT_WORDS.contains(&n.as_str()),
            Some(prev) => follows(prev.as_str(), &n),
        };
        if !in_clauses && item == n && starts_or_follows {
            words.push(n);
            continue;
        }
        if !in_clauses && words.last().is_some_and(|w| w == "critical") && item.starts_with('(') {
            name = Some(item[1..item.len() - 1].trim().to_string());
            continue;
        }
        if !in_clauses && item.contains('(') && CONSTRUCT_WORDS.contains(&n.as_str()) {
            // `critical(name)`, `flush(list)`, `section` never has one.
            if n == "critical" {
                words.push(n);
                let open = item.find('(').unwrap_or(item.len());
                name = Some(item[open + 1..item.len() - 1].trim().to_string());
                continue;
            }
        }
        in_clauses = true;
        clauses.push((n, item));
    }
    Some(Directive {
        words,
        name,
        clauses,
    })
}

/// What Regio does with a construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Construct {
    Parallel,
    /// `parallel for [simd]`, `parallel sections`: split in two.
    ParallelWorksharing(Worksharing),
    Worksharing(Worksharing),
    Section,
    Single,
    Master,
    Masked,
    Critical,
    Atomic,
    Barrier,
    Ordered,
    Task,
    Taskwait,
    Taskgroup,
    Flush,
    /// Everything else: left as written.
    PassThrough,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Worksharing {
    For { simd: bool },
    Sections,
}

impl Directive {
    pub(crate) fn has_clause(&self, name: &str) -> bool {
        self.clauses.iter().any(|(n, _)| n == name)
    }

    pub(crate) fn construct(&self) -> Construct {
        let w: Vec<&str> = self.words.iter().map(String::as_str).collect();
        match w.as_slice() {
            ["parallel"] => Construct::Parallel,
            ["parallel", "for"] => Construct::ParallelWorksharing(Worksharing::For { simd: false }),
            ["parallel", "for", "simd"] => {
                Construct::ParallelWorksharing(Worksharing::For { simd: true })
            }
            ["parallel", "sections"] => Construct::ParallelWorksharing(Worksharing::Sections),
            ["for"] => Construct::Worksharing(Worksharing::For { simd: false }),
            ["for", "simd"] => Construct::Worksharing(Worksharing::For { simd: true }),
            ["sections"] => Construct::Worksharing(Worksharing::Sections),
            ["section"] => Construct::Section,
            ["single"] => Construct::Single,
            ["master"] => Construct::Master,
            ["masked"] => Construct::Masked,
            ["critical"] => Construct::Critical,
            ["atomic"] => Construct::Atomic,
            ["barrier"] => Construct::Barrier,
            // The stand-alone form (depend/doacross) is passed through.
            ["ordered"] if !self.has_clause("depend") && !self.has_clause("doacross") => {
                Construct::Ordered
            }
            ["task"] => Construct::Task,
            ["taskwait"] => Construct::Taskwait,
            ["taskgroup"] => Construct::Taskgroup,
            ["flush"] => Construct::Flush,
            _ => Construct::PassThrough,
        }
    }

    /// Loops bound to the directive (collapse/ordered count), for any
    /// directive that takes a loop: nothing may stand between them.
    pub(crate) fn bound_loops(&self) -> usize {
        let takes_loop = self.words.iter().any(|w| {
            matches!(
                w.as_str(),
                "for" | "do" | "simd" | "taskloop" | "distribute" | "loop" | "tile" | "unroll"
            )
        });
        if !takes_loop {
            return 0;
        }
        let count = |name: &str| {
            self.clauses
                .iter()
                .filter(|(n, _)| n == name)
                .filter_map(|(_, t)| {
                    let open = t.find('(')?;
                    t[open + 1..t.len() - 1].trim().parse::<usize>().ok()
                })
                .max()
        };
        count("collapse")
            .into_iter()
            .chain(count("ordered"))
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

/// Clauses of a combined `parallel <worksharing>` split between the two
/// constructs: (parallel's, the worksharing construct's).
pub(crate) fn split_clauses(d: &Directive) -> (Vec<String>, Vec<String>) {
    let mut par = Vec::new();
    let mut ws = Vec::new();
    let mut lastprivate_vars = Vec::new();
    for (n, t) in &d.clauses {
        let to_parallel = match n.as_str() {
            "if" | "num_threads" | "default" | "shared" | "private" | "firstprivate" | "copyin"
            | "proc_bind" | "allocate" => true,
            // An inscan reduction belongs to the loop (it has a scan).
            "reduction" => !t.contains("inscan"),
            _ => false,
        };
        if n == "lastprivate" {
            if let Some(open) = t.find('(') {
                let list = &t[open + 1..t.len() - 1];
                let list = list.rsplit(':').next().unwrap_or(list);
                lastprivate_vars.push(list.trim().to_string());
            }
        }
        if to_parallel {
            par.push(t.clone());
        } else {
            ws.push(t.clone());
        }
    }
    // The variable a lastprivate on the loop writes back must be shared by
    // the team; under default(none) that has to be said.
    let default_none = d
        .clauses
        .iter()
        .any(|(n, t)| n == "default" && t.replace(' ', "").contains("(none)"));
    if default_none && !lastprivate_vars.is_empty() {
        par.push(format!("shared({})", lastprivate_vars.join(", ")));
    }
    (par, ws)
}

/// `_Pragma("omp <words> <clauses>")`.
pub(crate) fn pragma(words: &str, clauses: &[String]) -> String {
    let mut s = format!("omp {words}");
    for c in clauses {
        s.push(' ');
        s.push_str(c);
    }
    let mut out = String::from("_Pragma(\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\")");
    out
}

/// All clauses as written.
pub(crate) fn clause_texts(d: &Directive) -> Vec<String> {
    d.clauses.iter().map(|(_, t)| t.clone()).collect()
}

/// `critical (name)` or `critical` as the directive words.
pub(crate) fn words_of(d: &Directive) -> String {
    let mut w = d.words.join(" ");
    if let Some(n) = &d.name {
        let _ = write!(w, " ({n})");
    }
    w
}

/// OpenMP lock routines: the region kind suffix (`lock` = waiting to
/// acquire, `unlock`), by routine name.
pub(crate) fn lock_kind(name: &str) -> Option<&'static str> {
    match name {
        "omp_set_lock" | "omp_set_nest_lock" | "omp_test_lock" | "omp_test_nest_lock" => {
            Some("lock")
        }
        "omp_unset_lock" | "omp_unset_nest_lock" => Some("unlock"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_split_into_construct_and_clauses() {
        let d = parse("omp parallel for schedule(static, 4) \\\n reduction(+ : s) nowait").unwrap();
        assert_eq!(d.words, ["parallel", "for"]);
        assert_eq!(
            d.clauses,
            [
                ("schedule".to_string(), "schedule(static, 4)".to_string()),
                ("reduction".to_string(), "reduction(+ : s)".to_string()),
                ("nowait".to_string(), "nowait".to_string())
            ]
        );
        let c = parse("omp critical (update) hint(0)").unwrap();
        assert_eq!(
            (c.words.clone(), c.name.clone()),
            (vec!["critical".to_string()], Some("update".to_string()))
        );
        let c = parse("omp critical(upd)").unwrap();
        assert_eq!(c.name.as_deref(), Some("upd"));
        assert_eq!(parse("GCC ivdep"), None);
        assert_eq!(
            parse("  omp   barrier").unwrap().construct(),
            Construct::Barrier
        );
        assert_eq!(
            parse("omp ordered depend(sink: i-1)").unwrap().construct(),
            Construct::PassThrough
        );
        assert_eq!(
            parse("omp parallel for simd").unwrap().construct(),
            Construct::ParallelWorksharing(Worksharing::For { simd: true })
        );
        let o = parse("omp for ordered schedule(static, 1)").unwrap();
        assert_eq!(o.words, ["for"]);
        assert!(o.has_clause("ordered"));
        assert_eq!(
            parse("omp target teams distribute parallel for simd")
                .unwrap()
                .words
                .len(),
            6
        );
    }

    #[test]
    fn combined_clauses_go_where_they_belong() {
        let d = parse("omp parallel for default(none) shared(a) lastprivate(x) reduction(+:s) schedule(dynamic) collapse(2) num_threads(3)").unwrap();
        let (par, ws) = split_clauses(&d);
        assert_eq!(
            par,
            [
                "default(none)",
                "shared(a)",
                "reduction(+:s)",
                "num_threads(3)",
                "shared(x)"
            ]
        );
        assert_eq!(ws, ["lastprivate(x)", "schedule(dynamic)", "collapse(2)"]);
        assert_eq!(d.bound_loops(), 2);
        assert_eq!(parse("omp simd").unwrap().bound_loops(), 1);
        assert_eq!(parse("omp parallel").unwrap().bound_loops(), 0);
    }

    #[test]
    fn pragma_operator_text_is_escaped() {
        assert_eq!(
            pragma("for", &["nowait".into()]),
            "_Pragma(\"omp for nowait\")"
        );
    }
}
