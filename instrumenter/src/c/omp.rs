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

use crate::omp_clauses::{follows, item_name, items, CONSTRUCT_WORDS};
pub(crate) use crate::omp_clauses::{lock_kind, reason, Construct, Inner, Split};

/// The joined text of a directive's argument: line continuations removed
/// and runs of blanks made one (clauses hold no string literals).
fn joined(arg: &str) -> String {
    let flat = arg.replace("\\\r\n", " ").replace("\\\n", " ");
    flat.split_whitespace().collect::<Vec<_>>().join(" ")
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
            let open = item.find('(').unwrap_or(item.len());
            if n == "critical" {
                words.push(n);
                name = Some(item[open + 1..item.len() - 1].trim().to_string());
                continue;
            }
            // `flush(a)`, `threadprivate(x)`, `declare variant(f)`: the
            // argument is kept as a clause without a name.
            if starts_or_follows {
                words.push(n);
                clauses.push((String::new(), item[open..].to_string()));
                in_clauses = true;
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

impl Directive {
    pub(crate) fn has_clause(&self, name: &str) -> bool {
        self.clauses.iter().any(|(n, _)| n == name)
    }

    fn words(&self) -> Vec<&str> {
        self.words.iter().map(String::as_str).collect()
    }

    pub(crate) fn construct(&self) -> Construct {
        crate::omp_clauses::classify(&self.words(), |c| self.has_clause(c), false)
    }

    /// Whether the directive applies to the statement after it (stand-alone
    /// and declarative directives do not).
    pub(crate) fn has_body(&self) -> bool {
        let w = self.words();
        match w.as_slice() {
            [] => false,
            ["target", "enter" | "exit" | "update", ..] => false,
            ["ordered"] => !(self.has_clause("depend") || self.has_clause("doacross")),
            [first, ..] => !matches!(
                *first,
                "barrier"
                    | "taskwait"
                    | "taskyield"
                    | "flush"
                    | "scan"
                    | "cancel"
                    | "cancellation"
                    | "depobj"
                    | "declare"
                    | "begin"
                    | "end"
                    | "threadprivate"
                    | "requires"
                    | "assumes"
                    | "error"
                    | "nothing"
                    | "interop"
            ),
        }
    }

    /// Loops bound to the directive (collapse/ordered count), for any
    /// directive that takes a loop: nothing may stand between them.
    pub(crate) fn bound_loops(&self) -> usize {
        crate::omp_clauses::bound_loops(&self.words, &self.clauses)
    }
}

/// Splits the clauses of a combined `parallel [masked] <inner>` directive
/// as OpenMP 5.x defines their effect on the constituent constructs.
pub(crate) fn split_combined(d: &Directive, inner: Inner, masked: bool) -> Split {
    crate::omp_clauses::split_combined(&d.clauses, inner, masked)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::omp_clauses::{clause_vars, Worksharing};

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
            Construct::NotMeasured {
                reason: reason::DOACROSS,
                quiet: false
            }
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
    fn combined_directives_are_read_into_clauses_and_bound_loops() {
        // Where each clause goes: omp_clauses.rs.
        let d = parse("omp parallel for default(none) lastprivate(x) collapse(2)").unwrap();
        let names: Vec<&str> = d.clauses.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["default", "lastprivate", "collapse"]);
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

    #[test]
    fn directive_names_with_an_argument_are_words() {
        let f = parse("omp flush(a, b)").unwrap();
        assert_eq!(f.words, ["flush"]);
        assert_eq!(clause_texts(&f), ["(a, b)"]);
        assert_eq!(f.construct(), Construct::Flush);
        assert_eq!(
            pragma("flush", &clause_texts(&f)),
            "_Pragma(\"omp flush (a, b)\")"
        );
        let t = parse("omp threadprivate(x)").unwrap();
        assert_eq!(t.words, ["threadprivate"]);
        assert!(!t.has_body());
        let v = parse("omp declare variant(fast) match(construct={simd})").unwrap();
        assert_eq!(v.words, ["declare", "variant"]);
        assert_eq!(v.bound_loops(), 0);
        assert_eq!(
            parse("omp declare simd simdlen(4)").unwrap().bound_loops(),
            0
        );
        assert_eq!(
            parse("omp end declare target").unwrap().words,
            ["end", "declare", "target"]
        );
        assert_eq!(
            parse("omp begin declare target").unwrap().words,
            ["begin", "declare", "target"]
        );
    }

    #[test]
    fn openmp5_constructs_are_classified() {
        let c = |s: &str| parse(s).unwrap().construct();
        assert_eq!(
            c("omp taskloop grainsize(4)"),
            Construct::Taskloop { simd: false }
        );
        assert_eq!(c("omp taskloop simd"), Construct::Taskloop { simd: true });
        assert_eq!(
            c("omp masked taskloop filter(1)"),
            Construct::MaskedTaskloop {
                master: false,
                simd: false
            }
        );
        assert_eq!(
            c("omp parallel masked taskloop simd"),
            Construct::ParallelMasked {
                master: false,
                taskloop: Some(true)
            }
        );
        assert_eq!(
            c("omp parallel master"),
            Construct::ParallelMasked {
                master: true,
                taskloop: None
            }
        );
        assert_eq!(c("omp masked filter(2)"), Construct::Masked);
        assert_eq!(c("omp teams num_teams(2)"), Construct::Teams);
        assert_eq!(
            c("omp teams distribute"),
            Construct::Around { quiet: false }
        );
        assert_eq!(
            c("omp teams distribute parallel for simd"),
            Construct::Around { quiet: true }
        );
        assert_eq!(c("omp distribute"), Construct::Around { quiet: false });
        assert_eq!(
            c("omp parallel loop"),
            Construct::ParallelWorksharing(Worksharing::Loop)
        );
        assert_eq!(
            c("omp loop bind(thread)"),
            Construct::Worksharing(Worksharing::Loop)
        );
        let not = |s: &str| match c(s) {
            Construct::NotMeasured { reason, quiet } => (reason, quiet),
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(not("omp target teams distribute"), (reason::TARGET, true));
        assert_eq!(
            not("omp target data map(to: a)"),
            (reason::TARGET_DATA, false)
        );
        assert_eq!(not("omp target update to(a)"), (reason::TARGET_MOVE, false));
        assert_eq!(not("omp simd"), (reason::SIMD, true));
        assert_eq!(not("omp scan inclusive(x)"), (reason::SCAN, false));
        assert_eq!(
            not("omp requires unified_shared_memory"),
            (reason::DECLARATIVE, false)
        );
        assert!(not("omp metadirective when(user={condition(1)}: for)").1);
        assert_eq!(not("omp cancel for"), (reason::CANCEL, false));
        assert!(!parse("omp scan exclusive(x)").unwrap().has_body());
        assert!(!parse("omp target enter data map(to: a)")
            .unwrap()
            .has_body());
        assert!(parse("omp target").unwrap().has_body());
        assert!(parse("omp assume holds(1)").unwrap().has_body());
        assert_eq!(
            parse("omp metadirective when(construct={parallel}: for collapse(2)) default(simd)")
                .unwrap()
                .bound_loops(),
            2
        );
    }

    #[test]
    fn clause_lists_give_their_variables() {
        assert_eq!(
            clause_vars("lastprivate", "lastprivate(conditional: x, y)"),
            ["x", "y"]
        );
        assert_eq!(
            clause_vars("reduction", "reduction(inscan, + : a[0:n], b)"),
            ["a", "b"]
        );
        assert_eq!(clause_vars("reduction", "reduction(max: m)"), ["m"]);
        assert_eq!(clause_vars("linear", "linear(val(i, j): 2)"), ["i", "j"]);
        assert_eq!(clause_vars("linear", "linear(k)"), ["k"]);
        assert_eq!(clause_vars("to", "to(f, g)"), ["f", "g"]);
    }

    #[test]
    fn simd_and_taskloop_combined_clauses_keep_their_meaning() {
        // The reduction of a SIMD loop stays on it; the team shares the
        // variable (said because of default(none)).
        let d = parse("omp parallel for simd default(none) shared(a) reduction(+: s) if(simd: n > 4) if(parallel: n > 8) simdlen(4)").unwrap();
        let s = split_combined(&d, Inner::For { simd: true }, false);
        assert_eq!(
            s.parallel,
            [
                "default(none)",
                "shared(a)",
                "if(parallel: n > 8)",
                "shared(s)"
            ]
        );
        assert_eq!(
            s.inner,
            ["reduction(+: s)", "if(simd: n > 4)", "simdlen(4)"]
        );
        // Without a modifier `if` applies to every construct that takes it.
        let d = parse("omp parallel for simd if(n > 4)").unwrap();
        let s = split_combined(&d, Inner::For { simd: true }, false);
        assert_eq!(
            (s.parallel, s.inner),
            (vec!["if(n > 4)".to_string()], vec!["if(n > 4)".to_string()])
        );
        // parallel masked taskloop: filter to masked, reduction and private
        // to the taskloop (a task would otherwise get a copy).
        let d = parse("omp parallel masked taskloop filter(0) num_threads(2) reduction(+: t) private(p) grainsize(4)").unwrap();
        let s = split_combined(&d, Inner::Taskloop { simd: false }, true);
        assert_eq!(s.parallel, ["num_threads(2)", "private(p)"]);
        assert_eq!(s.masked, ["filter(0)"]);
        assert_eq!(s.inner, ["reduction(+: t)", "private(p)", "grainsize(4)"]);
        // firstprivate and lastprivate of one variable both go to the loop.
        let d = parse("omp parallel for default(none) firstprivate(x, y) lastprivate(x)").unwrap();
        let s = split_combined(&d, Inner::For { simd: false }, false);
        assert_eq!(
            s.parallel,
            ["default(none)", "firstprivate(y)", "shared(x)"]
        );
        assert_eq!(s.inner, ["firstprivate(x)", "lastprivate(x)"]);
        // parallel masked alone: everything but filter is the parallel's.
        let d = parse("omp parallel masked filter(1) default(none) shared(m)").unwrap();
        let s = split_combined(&d, Inner::None, true);
        assert_eq!(s.parallel, ["default(none)", "shared(m)"]);
        assert_eq!(s.masked, ["filter(1)"]);
    }
}
