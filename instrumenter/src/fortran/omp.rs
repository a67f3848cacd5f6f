//! The grammar of `!$omp` directives: sentinels and continuation lines of
//! both source forms, the construct words and clauses of a joined
//! directive, the clause split of combined constructs, and directive
//! lines for the output. Pairing directives into constructs is `plan::openmp`.

/// What follows an OpenMP sentinel on a physical line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SentinelLine {
    /// A continuation line (free form: the previous directive line ended
    /// with `&`; fixed form: a character other than blank or `0` in
    /// column 6).
    pub continuation: bool,
    /// Offset (in the line) where the directive text starts.
    pub body: usize,
}

fn blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Free form: `!$omp` after leading blanks, followed by a blank, `&` or
/// the end of the line. `continued` says whether the previous directive
/// line ended with `&` (then this line continues it).
pub(crate) fn free_sentinel(line: &[u8], continued: bool) -> Option<SentinelLine> {
    let first = line.iter().position(|&c| !blank(c))?;
    let rest = &line[first..];
    if rest.len() < 5 || !rest[..5].eq_ignore_ascii_case(b"!$omp") {
        return None;
    }
    let mut k = first + 5;
    if line.get(k).is_some_and(|&c| !blank(c) && c != b'&') {
        return None;
    }
    while k < line.len() && blank(line[k]) {
        k += 1;
    }
    if continued && line.get(k) == Some(&b'&') {
        k += 1;
    }
    Some(SentinelLine {
        continuation: continued,
        body: k,
    })
}

/// Fixed form: `!$omp`, `c$omp` or `*$omp` in columns 1-5; column 6 blank
/// or `0` starts a directive, anything else continues one.
pub(crate) fn fixed_sentinel(line: &[u8]) -> Option<SentinelLine> {
    if line.len() < 5 {
        return None;
    }
    let head = line[..5].to_ascii_lowercase();
    if !matches!(&head[..], b"!$omp" | b"c$omp" | b"*$omp") {
        return None;
    }
    let (continuation, body) = match line.get(5) {
        None => (false, 5),
        Some(b' ') | Some(b'0') | Some(b'\t') => (false, 6),
        Some(_) => (true, 6),
    };
    Some(SentinelLine { continuation, body })
}

/// The directive text of one physical line from `body` on: up to a `!`
/// comment, trimmed, and whether it ends with the free-form `&` (which is
/// removed). Returns (text, offset past its last byte in the line, `&`).
pub(crate) fn line_text(line: &str, body: usize, free: bool) -> (String, usize, bool) {
    let b = line.as_bytes();
    let stop = (body..b.len()).find(|&k| b[k] == b'!').unwrap_or(b.len());
    let mut end = stop;
    while end > body && blank(b[end - 1]) {
        end -= 1;
    }
    let mut text = line[body.min(end)..end].trim_start();
    let mut amp = false;
    if free {
        if let Some(t) = text.strip_suffix('&') {
            amp = true;
            text = t.trim_end();
        }
    }
    (text.to_string(), end, amp)
}

use crate::omp_clauses::{classify, clause_arg, follows, item_name, items, CONSTRUCT_WORDS};
pub(crate) use crate::omp_clauses::{reason, split_combined, Construct, Worksharing};

/// A parsed directive (continuation lines joined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Directive {
    /// `!$omp end ...`.
    pub end: bool,
    /// Construct words, lower case: `["parallel", "do"]`.
    pub words: Vec<String>,
    /// The name of a (possibly end-) `critical`.
    pub name: Option<String>,
    /// Clauses as written, in order: (lower-case name, full text). The
    /// list of `flush (a, b)` is a clause without a name.
    pub clauses: Vec<(String, String)>,
}

/// The parenthesised group of an item (`critical (a)` -> `a`).
fn group(item: &str) -> Option<&str> {
    clause_arg(item).map(str::trim)
}

/// Where a directive name is while its words are read.
#[derive(Debug, Clone, Copy)]
enum NameAt {
    /// Nothing read: `end` may come.
    Start,
    /// After `end`: any construct word.
    AfterEnd,
    /// After a construct word.
    Word(&'static str),
}

impl NameAt {
    fn takes(self, w: &str) -> bool {
        match self {
            NameAt::Start => w == "end" || CONSTRUCT_WORDS.contains(&w),
            NameAt::AfterEnd => w != "end" && CONSTRUCT_WORDS.contains(&w),
            NameAt::Word(p) => follows(p, w),
        }
    }

    fn after(self, w: &'static str) -> NameAt {
        match self {
            NameAt::Start if w == "end" => NameAt::AfterEnd,
            _ => NameAt::Word(w),
        }
    }
}

/// `word` (lower case) cut into construct words that may follow each
/// other from `at` on (`enddo` -> `end do`, `paralleldosimd` -> `parallel
/// do simd`, `taskloopsimd` -> `taskloop simd`): OpenMP lets blanks be
/// omitted between the keywords of a directive name (free form, OpenMP
/// 5.2 3.1.2), and fixed form never needs them. The longest words are
/// tried first, with backtracking.
fn glued(word: &str, at: NameAt) -> Option<Vec<&'static str>> {
    if word.is_empty() {
        return Some(Vec::new());
    }
    let mut cands: Vec<&'static str> = CONSTRUCT_WORDS
        .iter()
        .copied()
        .filter(|c| word.starts_with(c) && at.takes(c))
        .collect();
    cands.sort_by_key(|c| std::cmp::Reverse(c.len()));
    cands.into_iter().find_map(|c| {
        let mut rest = glued(&word[c.len()..], at.after(c))?;
        rest.insert(0, c);
        Some(rest)
    })
}

/// Fixed form: clause names that may follow a directive name without a
/// blank (`c$omp paralleldoshared(a)`, `c$omp enddonowait`).
const CLAUSE_WORDS: &[&str] = &[
    "private",
    "firstprivate",
    "lastprivate",
    "shared",
    "default",
    "reduction",
    "copyin",
    "copyprivate",
    "schedule",
    "collapse",
    "ordered",
    "nowait",
    "num_threads",
    "if",
    "proc_bind",
    "linear",
    "aligned",
    "safelen",
    "simdlen",
    "untied",
    "mergeable",
    "final",
    "priority",
    "depend",
    "grainsize",
    "num_tasks",
    "nogroup",
    "hint",
    "filter",
    "map",
    "device",
    "num_teams",
    "thread_limit",
    "dist_schedule",
    "allocate",
    "order",
    "bind",
    "in_reduction",
    "task_reduction",
];

/// Splits an item whose name glues construct words (and, in fixed form, a
/// clause name) together into one item per word; the item's group stays
/// with the last part. None when `item` is not such an item.
fn unglue(item: &str, at: NameAt, fixed: bool) -> Option<Vec<String>> {
    let name = item_name(item);
    let group = &item[name.len()..];
    if name.is_empty() || at.takes(&name) {
        return None;
    }
    let pieces = |words: Vec<&str>, tail: &str| -> Vec<String> {
        let mut v: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        match v.last_mut() {
            Some(l) if tail.is_empty() => l.push_str(group),
            _ => v.push(format!("{tail}{group}")),
        }
        v
    };
    if let Some(w) = glued(&name, at).filter(|w| w.len() > 1) {
        return Some(pieces(w, ""));
    }
    if !fixed {
        return None;
    }
    // The longest directive name followed by a clause name.
    (1..name.len()).rev().find_map(|k| {
        let (head, tail) = name.split_at(k);
        if !CLAUSE_WORDS.contains(&tail) {
            return None;
        }
        let w = match construct_word(head).filter(|w| at.takes(w)) {
            Some(w) => vec![w],
            None => glued(head, at)?,
        };
        Some(pieces(w, tail))
    })
}

/// The construct word `n` as a static string.
fn construct_word(n: &str) -> Option<&'static str> {
    CONSTRUCT_WORDS.iter().copied().find(|c| *c == n)
}

/// The items of a directive text with glued directive-name words split
/// (`enddo nowait` -> `end`, `do`, `nowait`).
fn name_items(text: &str, fixed: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = Some(NameAt::Start);
    for item in items(text) {
        let Some(cur) = at else {
            out.push(item);
            continue;
        };
        let parts = unglue(&item, cur, fixed).unwrap_or_else(|| vec![item]);
        for p in parts {
            at = at.and_then(|a| {
                let w = construct_word(&item_name(&p))?;
                (a.takes(w) && !p.starts_with('(')).then(|| a.after(w))
            });
            out.push(p);
        }
    }
    out
}

/// Parses the joined text after the sentinel (`parallel do private(i)`)
/// of a free-form directive.
#[cfg(test)]
pub(crate) fn parse(text: &str) -> Directive {
    parse_form(text, false)
}

/// Parses the joined text after the sentinel; `fixed`: a fixed-form
/// directive, whose words may be glued to clause names.
pub(crate) fn parse_form(text: &str, fixed: bool) -> Directive {
    let mut d = Directive {
        end: false,
        words: Vec::new(),
        name: None,
        clauses: Vec::new(),
    };
    let mut in_clauses = false;
    for item in name_items(text, fixed) {
        let n = item_name(&item);
        if !in_clauses {
            let starts = match d.words.last() {
                None if !d.end && item.eq_ignore_ascii_case("end") => {
                    d.end = true;
                    continue;
                }
                None => CONSTRUCT_WORDS.contains(&n.as_str()),
                Some(prev) => follows(prev, &n),
            };
            let word = !n.is_empty() && starts;
            if word && item.eq_ignore_ascii_case(&n) {
                d.words.push(n);
                continue;
            }
            if word && item.contains('(') {
                // `critical(name)`, `flush(a, b)`, `threadprivate(/c/)`
                // written without a blank.
                d.words.push(n.clone());
                let g = group(&item).unwrap_or("").to_string();
                if n == "critical" {
                    d.name = Some(g);
                } else {
                    d.clauses.push((String::new(), format!("({g})")));
                    in_clauses = true;
                }
                continue;
            }
            if item.starts_with('(') {
                match d.words.last().map(String::as_str) {
                    Some("critical") if d.name.is_none() => {
                        d.name = group(&item).map(str::to_string);
                        continue;
                    }
                    Some("flush") => {
                        in_clauses = true;
                        d.clauses.push((String::new(), item));
                        continue;
                    }
                    _ => {}
                }
            }
        }
        in_clauses = true;
        d.clauses.push((n, item));
    }
    d
}

/// How a construct ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extent {
    /// Nothing after the directive belongs to it.
    Standalone,
    /// The DO loop after it; an end directive right after the loop is
    /// optional.
    Loop,
    /// The statement after it; `!$omp end atomic` after that is optional.
    Statement,
    /// Up to the matching end directive.
    Block,
    /// Up to the next `section` or the end of the enclosing `sections`.
    Section,
}

impl Directive {
    pub(crate) fn has_clause(&self, name: &str) -> bool {
        self.clauses.iter().any(|(n, _)| n == name)
    }

    pub(crate) fn construct(&self) -> Construct {
        let w: Vec<&str> = self.words.iter().map(String::as_str).collect();
        classify(&w, |c| self.has_clause(c), true)
    }

    /// Constructs not measured whose body is a block up to an end
    /// directive (or a BLOCK construct): `target [parallel|teams]`, `target
    /// data`, `assume`, `scope`, `begin metadirective`, ...; the rest
    /// (`declare ...`, `scan`, `target update`, ...) stand alone.
    fn unmeasured_block(&self) -> bool {
        let w: Vec<&str> = self.words.iter().map(String::as_str).collect();
        match w.as_slice() {
            ["target", "enter" | "exit" | "update", ..] => false,
            ["target", ..] | ["assume"] | ["scope"] | ["begin", "metadirective"] => true,
            ["ordered"] => self.has_clause("simd"),
            _ => false,
        }
    }

    pub(crate) fn extent(&self) -> Extent {
        use Construct::*;
        match self.construct() {
            Barrier | Taskwait | Flush => Extent::Standalone,
            Atomic => Extent::Statement,
            Section => Extent::Section,
            // `do [simd]`, `loop`, `taskloop`, `distribute`, `simd`,
            // `target ... do`, a metadirective's variants, `tile`, ...
            _ if self.bound_loops() > 0 => Extent::Loop,
            NotMeasured { .. } if self.unmeasured_block() => Extent::Block,
            NotMeasured { .. } => Extent::Standalone,
            _ => Extent::Block,
        }
    }

    /// DO loops bound to a loop directive (`collapse`/`ordered` count):
    /// nothing may stand between them. 0 for other directives.
    pub(crate) fn bound_loops(&self) -> usize {
        if self.end {
            return 0;
        }
        crate::omp_clauses::bound_loops(&self.words, &self.clauses)
    }

    /// Directives of the specification part (`threadprivate`, `declare
    /// ...`, `requires`, declarative `allocate`).
    pub(crate) fn is_specification(&self) -> bool {
        matches!(
            self.words.first().map(String::as_str),
            Some("threadprivate" | "declare" | "requires" | "assumes" | "allocate")
        ) && !self.end
    }

    /// All clauses as written, blank-separated.
    pub(crate) fn clause_text(&self) -> String {
        self.clauses
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The construct as the user would write it (`critical (a)`, `do`).
    pub(crate) fn spelled(&self) -> String {
        let mut s = String::new();
        if self.end {
            s.push_str("end ");
        }
        s.push_str(&self.words.join(" "));
        if let Some(n) = &self.name {
            s.push_str(&format!(" ({n})"));
        }
        s
    }

    /// Whether `end` is this construct's end directive.
    pub(crate) fn is_ended_by(&self, end: &Directive) -> bool {
        end.end
            && end.words == self.words
            && end.name.as_deref().map(str::to_ascii_lowercase)
                == self.name.as_deref().map(str::to_ascii_lowercase)
    }
}

/// `words` and `clauses` as one directive body.
pub(crate) fn body(words: &str, clauses: &[String]) -> String {
    let mut s = words.to_string();
    for c in clauses {
        s.push(' ');
        s.push_str(c);
    }
    s
}

/// Directive lines for `body` (the text after the sentinel): one line if
/// it fits `limit` columns, else continued at blanks or commas (free form:
/// `&` at the end and `!$omp &` on the next line; fixed form: `!$omp&` in
/// columns 1-6).
pub(crate) fn lines(body: &str, fixed: bool, indent: &str, limit: usize) -> Vec<String> {
    // Deeply indented code: less indentation where the text needs room
    // (up to 60 columns of it).
    let need = (body.trim().len() + "!$omp & ".len()).min(60);
    let indent = &indent[..indent.len().min(limit.saturating_sub(need))];
    let (first, cont, tail) = if fixed {
        ("!$omp ".to_string(), "!$omp&".to_string(), "")
    } else {
        (format!("{indent}!$omp "), format!("{indent}!$omp & "), " &")
    };
    let mut out = Vec::new();
    let mut cur = first.clone();
    let mut rest = body.trim();
    while !rest.is_empty() {
        let room = limit.saturating_sub(cur.len() + tail.len()).max(8);
        if rest.len() <= limit.saturating_sub(cur.len()) {
            cur.push_str(rest);
            break;
        }
        // The last blank or comma that keeps the line within the limit.
        let window = &rest[..room.min(rest.len())];
        let cut = window
            .rfind([' ', ','])
            .map(|k| k + 1)
            .filter(|&k| k > 0)
            .unwrap_or(window.len());
        let (head, next) = rest.split_at(cut);
        cur.push_str(head.trim_end());
        cur.push_str(tail);
        out.push(std::mem::replace(&mut cur, cont.clone()));
        rest = next.trim_start();
    }
    out.push(cur);
    out
}

/// OpenMP lock routines: the region kind suffix (`lock` = waiting to
/// acquire, `unlock`), by routine name (any case).
pub(crate) fn lock_kind(name: &str) -> Option<regio_idf::OmpKind> {
    crate::omp_clauses::lock_kind(&name.to_ascii_lowercase())
}
