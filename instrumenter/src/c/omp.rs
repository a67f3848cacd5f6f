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
    "begin",
    "end",
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
        "begin" | "end" => matches!(next, "declare" | "target" | "assumes" | "metadirective"),
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

/// What Regio does with a construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Construct {
    Parallel,
    /// `parallel for [simd]`, `parallel sections`, `parallel loop`: split
    /// in two.
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
    pub(crate) const OTHER: &str = "not instrumented by Regio";
}

impl Directive {
    pub(crate) fn has_clause(&self, name: &str) -> bool {
        self.clauses.iter().any(|(n, _)| n == name)
    }

    fn words(&self) -> Vec<&str> {
        self.words.iter().map(String::as_str).collect()
    }

    pub(crate) fn construct(&self) -> Construct {
        use self::Worksharing as WS;
        use Construct::*;
        let w = self.words();
        let simd = w.last() == Some(&"simd");
        let not = |reason, quiet| NotMeasured { reason, quiet };
        match w.as_slice() {
            ["parallel"] => Parallel,
            ["parallel", "for"] => ParallelWorksharing(WS::For { simd: false }),
            ["parallel", "for", "simd"] => ParallelWorksharing(WS::For { simd: true }),
            ["parallel", "sections"] => ParallelWorksharing(WS::Sections),
            ["parallel", "loop"] => ParallelWorksharing(WS::Loop),
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
            ["for"] => Worksharing(WS::For { simd: false }),
            ["for", "simd"] => Worksharing(WS::For { simd: true }),
            ["sections"] => Worksharing(WS::Sections),
            ["loop"] => Worksharing(WS::Loop),
            ["section"] => Section,
            ["single"] => Single,
            ["master"] => Master,
            ["masked"] => Masked,
            ["critical"] => Critical,
            ["atomic"] => Atomic,
            ["barrier"] => Barrier,
            ["ordered"] if self.has_clause("depend") || self.has_clause("doacross") => {
                not(reason::DOACROSS, false)
            }
            // Only inside a simd loop, whose body is never instrumented.
            ["ordered"] if self.has_clause("simd") => not(reason::IN_SIMD, false),
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
        if matches!(
            self.words.first().map(String::as_str),
            Some("declare" | "begin" | "end")
        ) {
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
        if self.words.first().is_some_and(|w| w == "metadirective") {
            // Any variant may be a loop construct: the deepest collapse
            // written in any of them, at least the loop that follows.
            let all: String = self.clauses.iter().map(|(_, t)| t.as_str()).collect();
            let deepest = all
                .match_indices("collapse")
                .filter_map(|(i, _)| {
                    let rest = all[i + "collapse".len()..].trim_start().strip_prefix('(')?;
                    rest[..rest.find(')')?].trim().parse::<usize>().ok()
                })
                .max();
            return deepest.unwrap_or(1).max(1);
        }
        let takes_loop = self.words.iter().any(|w| {
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
fn top_level(s: &str, sep: u8) -> Vec<usize> {
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
fn clause_arg(text: &str) -> Option<&str> {
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
pub(crate) fn split_combined(d: &Directive, inner: Inner, masked: bool) -> Split {
    let mut out = Split::default();
    let lastprivate: Vec<String> = d
        .clauses
        .iter()
        .filter(|(n, _)| n == "lastprivate")
        .flat_map(|(n, t)| clause_vars(n, t))
        .collect();
    // Variables a clause on an inner construct writes back: the team must
    // share them, which has to be said under a default other than shared.
    let mut to_share: Vec<String> = Vec::new();
    let taskloop = matches!(inner, Inner::Taskloop { .. });
    for (n, t) in &d.clauses {
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
    let shares_by_default = d
        .clauses
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
    fn combined_clauses_go_where_they_belong() {
        let d = parse("omp parallel for default(none) shared(a) lastprivate(x) reduction(+:s) schedule(dynamic) collapse(2) num_threads(3)").unwrap();
        let Split {
            parallel: par,
            inner: ws,
            ..
        } = split_combined(&d, Inner::For { simd: false }, false);
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
