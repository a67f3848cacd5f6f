//! The language-independent part of OpenMP directives, shared by the C
//! and the Fortran front end: the construct words and how they combine,
//! clause items, what Regio does with each construct (notes/OPENMP.md),
//! why a construct is not measured, and the clause split of combined
//! constructs.

use regio_idf::OmpKind;

/// Words that make up construct names (the rest of a line are clauses).
pub(crate) const CONSTRUCT_WORDS: &[&str] = &[
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
    "begin",
    "end",
];

/// Whether construct word `next` continues a construct name after `prev`
/// (`parallel for`, `for simd`, `target teams distribute`, ...); words
/// like `ordered` after `for` are clauses.
pub(crate) fn follows(prev: &str, next: &str) -> bool {
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
        "begin" | "end" => matches!(next, "declare" | "target" | "assumes" | "metadirective"),
        "enter" | "exit" => next == "data",
        "cancellation" => next == "point",
        _ => false,
    }
}

/// Splits `s` into top-level items: words, each with a following
/// parenthesised group (`schedule(static, 4)` is one item).
pub(crate) fn items(s: &str) -> Vec<String> {
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

pub(crate) fn item_name(item: &str) -> String {
    item.split(|c: char| c == '(' || c.is_ascii_whitespace())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// What Regio does with a construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Construct {
    Parallel,
    /// `parallel for|do [simd]`, `parallel sections`, `parallel loop`,
    /// Fortran `parallel workshare`: split in two.
    ParallelWorksharing(Worksharing),
    Worksharing(Worksharing),
    /// `parallel masked [taskloop [simd]]` (or `master`): split into
    /// parallel, masked and, when there, taskloop (`Some(simd)`).
    ParallelMasked {
        master: bool,
        taskloop: Option<bool>,
    },
    /// `masked taskloop [simd]` (or `master`): split into masked and
    /// taskloop.
    MaskedTaskloop {
        master: bool,
        simd: bool,
    },
    Taskloop {
        simd: bool,
    },
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
    /// Host `teams`: around the construct on the encountering thread, and
    /// once per team inside it.
    Teams,
    /// Combined `teams ...` and `distribute ...`: around the construct
    /// only. `quiet` when the body runs in a parallel region that cannot
    /// be split off or in SIMD lanes: nothing inside is instrumented.
    Around {
        quiet: bool,
    },
    /// Listed in the IDF with the reason in `aux`, no probes; `quiet`: no
    /// probe inside its statement either.
    NotMeasured {
        reason: &'static str,
        quiet: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Worksharing {
    For {
        simd: bool,
    },
    Sections,
    /// `loop` takes no `nowait`: its end stays inside the region.
    Loop,
    /// Fortran only.
    Workshare,
}

impl Worksharing {
    /// The region kind suffix and the construct words (C: `for`, Fortran:
    /// `do`; `simd` stays on the loop construct).
    pub(crate) fn kind_and_words(self, fortran: bool) -> (&'static str, &'static str) {
        match (self, fortran) {
            (Worksharing::For { simd: false }, false) => ("for", "for"),
            (Worksharing::For { simd: true }, false) => ("for", "for simd"),
            (Worksharing::For { simd: false }, true) => ("do", "do"),
            (Worksharing::For { simd: true }, true) => ("do", "do simd"),
            (Worksharing::Sections, _) => ("sections", "sections"),
            (Worksharing::Loop, _) => ("loop", "loop"),
            (Worksharing::Workshare, _) => ("workshare", "workshare"),
        }
    }
}

/// Why a construct is listed but not measured (IDF `aux.not_measured`).
pub(crate) mod reason {
    pub(crate) const TARGET: &str = "target region: runs on the device";
    pub(crate) const IN_TARGET: &str = "inside a target region: runs on the device";
    pub(crate) const DEVICE_FUNCTION: &str = "inside a declare target function: runs on the device";
    pub(crate) const TARGET_DATA: &str =
        "target data: maps data to the device; its body runs on the host and is measured";
    pub(crate) const TARGET_MOVE: &str = "target data movement: no host region to time";
    pub(crate) const SIMD: &str =
        "simd loop: iterations run in SIMD lanes of one thread, no probe may run inside it";
    pub(crate) const IN_SIMD: &str = "inside a simd loop: no probe may run in SIMD lanes";
    pub(crate) const IN_QUIET: &str =
        "inside a construct measured only around it (composite parallel, simd or target)";
    pub(crate) const SCAN: &str =
        "scan separates the two phases of its loop body: nothing may stand between them";
    pub(crate) const DECLARATIVE: &str = "declarative directive: no code runs for it";
    pub(crate) const METADIRECTIVE: &str =
        "metadirective: the compiler chooses the directive, its body is left untouched";
    pub(crate) const ASSUME: &str = "assume: a promise to the compiler, no run-time region";
    pub(crate) const DOACROSS: &str =
        "stand-alone ordered (depend/doacross): a dependence, not a region";
    pub(crate) const CANCEL: &str = "cancellation: a jump, not a region";
    pub(crate) const TASKYIELD: &str = "taskyield: a task scheduling point, not a region";
    pub(crate) const NO_STATEMENT: &str = "not followed by a statement";
    pub(crate) const ALTERNATIVES: &str =
        "alternative directives for this statement in #if branches differ in form";
    pub(crate) const AMBIGUOUS: &str =
        "the statement it applies to depends on #if branches in a way Regio cannot follow";
    pub(crate) const IF_GROUP: &str =
        "its #if group, whose statement follows the #endif, holds a nested #if group or a #pragma regio line: its closing probes cannot be given the same condition";
    pub(crate) const IF_CONDITION: &str =
        "the condition of its #if group may change before the end of its statement, through a #define, #undef or #include in between or __LINE__ / __COUNTER__ in it: its closing probes cannot be given the same condition";
    pub(crate) const OTHER: &str = "not instrumented by Regio";
}

/// What Regio does with a (begin) directive of construct words `w`;
/// `has_clause` tells whether a clause of that name is written. The loop
/// construct is `for` in C and `do` in Fortran, which also has
/// `workshare`.
pub(crate) fn classify(w: &[&str], has_clause: impl Fn(&str) -> bool, fortran: bool) -> Construct {
    use self::Worksharing as WS;
    use Construct::*;
    let simd = w.last() == Some(&"simd");
    let not = |reason, quiet| NotMeasured { reason, quiet };
    let lp = if fortran { "do" } else { "for" };
    match w {
        ["parallel"] => Parallel,
        ["parallel", l] if *l == lp => ParallelWorksharing(WS::For { simd: false }),
        ["parallel", l, "simd"] if *l == lp => ParallelWorksharing(WS::For { simd: true }),
        ["parallel", "sections"] => ParallelWorksharing(WS::Sections),
        ["parallel", "loop"] => ParallelWorksharing(WS::Loop),
        ["parallel", "workshare"] if fortran => ParallelWorksharing(WS::Workshare),
        ["parallel", m @ ("masked" | "master")] => ParallelMasked {
            master: *m == "master",
            taskloop: None,
        },
        ["parallel", m @ ("masked" | "master"), "taskloop", ..] => ParallelMasked {
            master: *m == "master",
            taskloop: Some(simd),
        },
        [m @ ("masked" | "master"), "taskloop", ..] => MaskedTaskloop {
            master: *m == "master",
            simd,
        },
        ["taskloop", ..] => Taskloop { simd },
        [l] if *l == lp => Worksharing(WS::For { simd: false }),
        [l, "simd"] if *l == lp => Worksharing(WS::For { simd: true }),
        ["sections"] => Worksharing(WS::Sections),
        ["loop"] => Worksharing(WS::Loop),
        ["workshare"] if fortran => Worksharing(WS::Workshare),
        ["section"] => Section,
        ["single"] => Single,
        ["master"] => Master,
        ["masked"] => Masked,
        ["critical"] => Critical,
        ["atomic"] => Atomic,
        ["barrier"] => Barrier,
        ["ordered"] if has_clause("depend") || has_clause("doacross") => {
            not(reason::DOACROSS, false)
        }
        // Only inside a simd loop, whose body is never instrumented.
        ["ordered"] if has_clause("simd") => not(reason::IN_SIMD, false),
        ["ordered"] => Ordered,
        ["task"] => Task,
        ["taskwait"] => Taskwait,
        ["taskgroup"] => Taskgroup,
        ["flush"] => Flush,
        ["teams"] => Teams,
        ["teams" | "distribute", ..] => Around {
            quiet: w.contains(&"parallel") || simd,
        },
        ["target", "data"] => not(reason::TARGET_DATA, false),
        ["target", "enter" | "exit" | "update", ..] => not(reason::TARGET_MOVE, false),
        ["target", ..] => not(reason::TARGET, true),
        ["simd"] => not(reason::SIMD, true),
        ["scan"] => not(reason::SCAN, false),
        // Fortran's block form of a metadirective.
        ["begin", "metadirective"] if fortran => not(reason::METADIRECTIVE, true),
        ["declare" | "begin" | "end" | "threadprivate" | "requires" | "assumes", ..] => {
            not(reason::DECLARATIVE, false)
        }
        ["metadirective"] => not(reason::METADIRECTIVE, true),
        ["assume"] => not(reason::ASSUME, false),
        ["cancel"] | ["cancellation", ..] => not(reason::CANCEL, false),
        ["taskyield"] => not(reason::TASKYIELD, false),
        _ => not(reason::OTHER, false),
    }
}

/// Constructs whose statement gets no probe inside (SIMD lanes, a parallel
/// region that cannot be split off, the device).
pub(crate) fn quiet_reason(c: Construct) -> Option<&'static str> {
    match c {
        Construct::ParallelWorksharing(Worksharing::For { simd: true })
        | Construct::Worksharing(Worksharing::For { simd: true })
        | Construct::Taskloop { simd: true }
        | Construct::MaskedTaskloop { simd: true, .. }
        | Construct::ParallelMasked {
            taskloop: Some(true),
            ..
        } => Some(reason::IN_SIMD),
        Construct::Around { quiet: true } => Some(reason::IN_QUIET),
        Construct::NotMeasured {
            reason: r,
            quiet: true,
        } => Some(nested_reason(r)),
        _ => None,
    }
}

/// The reason given to directives inside a statement made quiet for `why`.
pub(crate) fn nested_reason(why: &'static str) -> &'static str {
    match why {
        reason::TARGET => reason::IN_TARGET,
        reason::SIMD => reason::IN_SIMD,
        other => other,
    }
}

/// The number in a clause like `collapse(2)`.
fn clause_number(text: &str) -> Option<usize> {
    clause_arg(text)?.trim().parse().ok()
}

/// Loops bound to a directive of words `words` and `clauses` (the
/// collapse/ordered count), for any directive that takes a loop: nothing
/// may stand between them. 0 for other directives.
pub(crate) fn bound_loops(words: &[String], clauses: &[(String, String)]) -> usize {
    if matches!(
        words.first().map(String::as_str),
        Some("declare" | "begin" | "end")
    ) {
        return 0;
    }
    let count = |name: &str| {
        clauses
            .iter()
            .filter(|(n, _)| n == name)
            .filter_map(|(_, t)| clause_number(t))
            .max()
    };
    if words.first().is_some_and(|w| w == "metadirective") {
        // Any variant may be a loop construct: the deepest collapse
        // written in any of them, at least the loop that follows.
        let all: String = clauses.iter().map(|(_, t)| t.as_str()).collect();
        let deepest = all
            .match_indices("collapse")
            .filter_map(|(i, _)| {
                let rest = all[i + "collapse".len()..].trim_start().strip_prefix('(')?;
                rest[..rest.find(')')?].trim().parse::<usize>().ok()
            })
            .max();
        return deepest.unwrap_or(1).max(1);
    }
    let takes_loop = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "for" | "do" | "simd" | "taskloop" | "distribute" | "loop" | "tile" | "unroll"
        )
    });
    if !takes_loop {
        return 0;
    }
    count("collapse")
        .into_iter()
        .chain(count("ordered"))
        .max()
        .unwrap_or(1)
        .max(1)
}

/// The construct a combined directive keeps after `parallel` (and
/// `masked`) are split off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inner {
    None,
    For { simd: bool },
    Sections,
    Loop,
    Taskloop { simd: bool },
}

impl Inner {
    fn simd(self) -> bool {
        matches!(
            self,
            Inner::For { simd: true } | Inner::Taskloop { simd: true }
        )
    }
}

/// Clauses of a combined directive, split between its constructs.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Split {
    pub(crate) parallel: Vec<String>,
    pub(crate) masked: Vec<String>,
    pub(crate) inner: Vec<String>,
}

/// Byte positions of the top-level (outside brackets) occurrences of `sep`
/// in `s`; `::` is never a separator.
pub(crate) fn top_level(s: &str, sep: u8) -> Vec<usize> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut out = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ if c == sep && depth == 0 => {
                let double =
                    sep == b':' && (b.get(i + 1) == Some(&b':') || (i > 0 && b[i - 1] == b':'));
                if !double {
                    out.push(i);
                }
            }
            _ => {}
        }
    }
    out
}

/// The text between a clause's outer parentheses.
pub(crate) fn clause_arg(text: &str) -> Option<&str> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    (close > open).then(|| &text[open + 1..close])
}

/// The directive-name modifier of an `if` clause (`if(simd: c)`), if any.
fn if_modifier(text: &str) -> Option<String> {
    let arg = clause_arg(text)?;
    let colon = *top_level(arg, b':').first()?;
    let m = arg[..colon].trim().to_ascii_lowercase();
    let all_words = !m.is_empty() && m.split_whitespace().all(|w| CONSTRUCT_WORDS.contains(&w));
    all_words.then_some(m)
}

/// Variables of a data-sharing clause: the list after a modifier colon
/// (`lastprivate(conditional: x)`, `reduction(+: s)`), before a step colon
/// for `linear`; array sections and members reduced to their base name.
pub(crate) fn clause_vars(name: &str, text: &str) -> Vec<String> {
    let Some(arg) = clause_arg(text) else {
        return Vec::new();
    };
    let colons = top_level(arg, b':');
    let mut list = match (name, colons.first()) {
        ("linear", Some(&c)) => &arg[..c],
        (_, Some(&c)) => &arg[c + 1..],
        (_, None) => arg,
    };
    if name == "linear" {
        // OpenMP 4.5 modifiers: `linear(val(x, y))`.
        let t = list.trim();
        for m in ["val", "ref", "uval"] {
            if let Some(inner) = t
                .strip_prefix(m)
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix('('))
                .and_then(|r| r.strip_suffix(')'))
            {
                list = inner;
                break;
            }
        }
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut cuts = top_level(list, b',');
    cuts.push(list.len());
    for cut in cuts {
        let item = list[start..cut].trim();
        start = cut + 1;
        let base: String = item
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !base.is_empty() && !out.contains(&base) {
            out.push(base);
        }
    }
    out
}

/// Splits the clauses of a combined `parallel [masked] <inner>` directive
/// as OpenMP 5.x defines their effect on the constituent constructs.
pub(crate) fn split_combined(clauses: &[(String, String)], inner: Inner, masked: bool) -> Split {
    let mut out = Split::default();
    let lastprivate: Vec<String> = clauses
        .iter()
        .filter(|(n, _)| n == "lastprivate")
        .flat_map(|(n, t)| clause_vars(n, t))
        .collect();
    // Variables a clause on an inner construct writes back: the team must
    // share them, which has to be said under a default other than shared.
    let mut to_share: Vec<String> = Vec::new();
    let taskloop = matches!(inner, Inner::Taskloop { .. });
    for (n, t) in clauses {
        let n = n.as_str();
        if inner == Inner::None {
            if n == "filter" && masked {
                out.masked.push(t.clone());
            } else {
                out.parallel.push(t.clone());
            }
            continue;
        }
        match n {
            "if" => match if_modifier(t) {
                Some(m) if m == "parallel" => out.parallel.push(t.clone()),
                Some(_) => out.inner.push(t.clone()),
                None => {
                    out.parallel.push(t.clone());
                    if taskloop || inner.simd() {
                        out.inner.push(t.clone());
                    }
                }
            },
            "num_threads" | "default" | "shared" | "copyin" | "proc_bind" | "allocate" => {
                out.parallel.push(t.clone())
            }
            "filter" if masked => out.masked.push(t.clone()),
            "private" => {
                out.parallel.push(t.clone());
                if taskloop {
                    out.inner.push(t.clone());
                }
            }
            "firstprivate" if inner != Inner::Loop => {
                let vars = clause_vars(n, t);
                let (moved, kept): (Vec<String>, Vec<String>) =
                    vars.into_iter().partition(|v| lastprivate.contains(v));
                if moved.is_empty() {
                    out.parallel.push(t.clone());
                } else {
                    if !kept.is_empty() {
                        out.parallel
                            .push(format!("firstprivate({})", kept.join(", ")));
                    }
                    out.inner
                        .push(format!("firstprivate({})", moved.join(", ")));
                    to_share.extend(moved);
                }
            }
            "firstprivate" => out.parallel.push(t.clone()),
            "reduction" => {
                let to_inner = t.contains("inscan") || taskloop || inner.simd();
                if to_inner {
                    out.inner.push(t.clone());
                    to_share.extend(clause_vars(n, t));
                } else {
                    out.parallel.push(t.clone());
                }
            }
            "lastprivate" | "linear" => {
                out.inner.push(t.clone());
                to_share.extend(clause_vars(n, t));
            }
            _ => out.inner.push(t.clone()),
        }
    }
    let shares_by_default = clauses
        .iter()
        .filter(|(n, _)| n == "default")
        .all(|(_, t)| t.replace(' ', "").contains("(shared)"));
    let mut shared: Vec<String> = Vec::new();
    for v in to_share {
        if !shared.contains(&v) {
            shared.push(v);
        }
    }
    if !shares_by_default && !shared.is_empty() {
        out.parallel.push(format!("shared({})", shared.join(", ")));
    }
    out
}

/// OpenMP lock routines: the region kind (`lock` = waiting to acquire,
/// `unlock`), by routine name.
pub(crate) fn lock_kind(name: &str) -> Option<OmpKind> {
    match name {
        "omp_set_lock" | "omp_set_nest_lock" | "omp_test_lock" | "omp_test_nest_lock" => {
            Some(OmpKind::Lock)
        }
        "omp_unset_lock" | "omp_unset_nest_lock" => Some(OmpKind::Unlock),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(name, text)` pairs as both front ends' parsers give them.
    fn clauses(texts: &[&str]) -> Vec<(String, String)> {
        texts
            .iter()
            .map(|t| (item_name(t), (*t).to_string()))
            .collect()
    }

    #[test]
    fn combined_clauses_go_where_they_belong() {
        let for_loop = Inner::For { simd: false };
        let c = clauses(&[
            "default(none)",
            "shared(a)",
            "lastprivate(x)",
            "reduction(+:s)",
            "schedule(dynamic)",
            "collapse(2)",
            "num_threads(3)",
            "copyin(t)",
        ]);
        let Split {
            parallel, inner, ..
        } = split_combined(&c, for_loop, false);
        assert_eq!(
            parallel,
            [
                "default(none)",
                "shared(a)",
                "reduction(+:s)",
                "num_threads(3)",
                "copyin(t)",
                "shared(x)"
            ]
        );
        assert_eq!(
            inner,
            ["lastprivate(x)", "schedule(dynamic)", "collapse(2)"]
        );
        let par = split_combined(&clauses(&["lastprivate(x)"]), for_loop, false).parallel;
        assert!(par.is_empty(), "no default(none): nothing to add");
    }
}
