//! The grammar of `!$omp` directives: sentinels and continuation lines of
//! both source forms, the construct words and clauses of a joined
//! directive, the clause split of combined constructs, and directive
//! lines for the output. Pairing directives into constructs is `plan::omp`.

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

const CONSTRUCT_WORDS: &[&str] = &[
    "parallel",
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
    "scan",
    "requires",
    "metadirective",
    "workshare",
    "allocate",
    "allocators",
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
/// (`parallel do`, `do simd`, `target teams distribute`, ...); words like
/// `ordered` after `do` are clauses.
fn follows(prev: &str, next: &str) -> bool {
    match prev {
        "end" => CONSTRUCT_WORDS.contains(&next),
        "parallel" => matches!(
            next,
            "do" | "sections" | "workshare" | "loop" | "masked" | "master"
        ),
        "do" | "taskloop" => next == "simd",
        "distribute" => matches!(next, "parallel" | "simd"),
        "target" => matches!(
            next,
            "teams" | "parallel" | "data" | "enter" | "exit" | "update" | "simd" | "loop"
        ),
        "teams" => matches!(next, "distribute" | "loop"),
        "masked" | "master" => next == "taskloop",
        "declare" => matches!(next, "simd" | "variant" | "reduction" | "mapper" | "target"),
        "enter" | "exit" => next == "data",
        "cancellation" => next == "point",
        _ => false,
    }
}

/// Splits `s` into top-level items: words, each with a following
/// parenthesised group (`schedule(static, 4)` is one item), separated by
/// blanks or commas.
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
        while i < b.len() && !(b[i].is_ascii_whitespace() || b[i] == b',' || b[i] == b'(') {
            i += 1;
        }
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

/// The parenthesised group of an item (`critical (a)` -> `a`).
fn group(item: &str) -> Option<&str> {
    let open = item.find('(')?;
    let close = item.rfind(')')?;
    (close > open).then(|| item[open + 1..close].trim())
}

/// Parses the joined text after the sentinel (`parallel do private(i)`).
pub(crate) fn parse(text: &str) -> Directive {
    let mut d = Directive {
        end: false,
        words: Vec::new(),
        name: None,
        clauses: Vec::new(),
    };
    let mut in_clauses = false;
    for item in items(text) {
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

/// What Regio does with a construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Construct {
    Parallel,
    /// `parallel do [simd]`, `parallel sections`, `parallel workshare`:
    /// split in two like OPARI2 does.
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
    /// Everything else (simd, target, threadprivate, declare ...): left
    /// as written.
    PassThrough,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Worksharing {
    Do { simd: bool },
    Sections,
    Workshare,
}

impl Worksharing {
    /// The region kind suffix and the construct words.
    pub(crate) fn kind_and_words(self) -> (&'static str, &'static str) {
        match self {
            Worksharing::Do { simd: false } => ("do", "do"),
            Worksharing::Do { simd: true } => ("do", "do simd"),
            Worksharing::Sections => ("sections", "sections"),
            Worksharing::Workshare => ("workshare", "workshare"),
        }
    }
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
        match w.as_slice() {
            ["parallel"] => Construct::Parallel,
            ["parallel", "do"] => Construct::ParallelWorksharing(Worksharing::Do { simd: false }),
            ["parallel", "do", "simd"] => {
                Construct::ParallelWorksharing(Worksharing::Do { simd: true })
            }
            ["parallel", "sections"] => Construct::ParallelWorksharing(Worksharing::Sections),
            ["parallel", "workshare"] => Construct::ParallelWorksharing(Worksharing::Workshare),
            ["do"] => Construct::Worksharing(Worksharing::Do { simd: false }),
            ["do", "simd"] => Construct::Worksharing(Worksharing::Do { simd: true }),
            ["sections"] => Construct::Worksharing(Worksharing::Sections),
            ["workshare"] => Construct::Worksharing(Worksharing::Workshare),
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

    pub(crate) fn extent(&self) -> Extent {
        match self.construct() {
            Construct::Barrier | Construct::Taskwait | Construct::Flush => Extent::Standalone,
            Construct::PassThrough => Extent::Standalone,
            Construct::Worksharing(Worksharing::Do { .. })
            | Construct::ParallelWorksharing(Worksharing::Do { .. }) => Extent::Loop,
            Construct::Atomic => Extent::Statement,
            Construct::Section => Extent::Section,
            _ => Extent::Block,
        }
    }

    /// DO loops bound to a loop directive (`collapse`/`ordered` count):
    /// nothing may stand between them. 0 for other directives.
    pub(crate) fn bound_loops(&self) -> usize {
        if self.end {
            return 0;
        }
        let takes_loop = self.words.iter().any(|w| {
            matches!(
                w.as_str(),
                "do" | "simd" | "taskloop" | "distribute" | "loop" | "tile" | "unroll"
            )
        });
        if !takes_loop {
            return 0;
        }
        let count = |name: &str| {
            self.clauses
                .iter()
                .filter(|(n, _)| n == name)
                .filter_map(|(_, t)| group(t)?.parse::<usize>().ok())
                .max()
        };
        count("collapse")
            .into_iter()
            .chain(count("ordered"))
            .max()
            .unwrap_or(1)
            .max(1)
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
            if let Some(list) = group(t) {
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
    if default_none(d) && !lastprivate_vars.is_empty() {
        par.push(format!("shared({})", lastprivate_vars.join(", ")));
    }
    (par, ws)
}

fn default_none(d: &Directive) -> bool {
    d.clauses.iter().any(|(n, t)| {
        n == "default"
            && t.to_ascii_lowercase()
                .replace([' ', '\t'], "")
                .contains("(none)")
    })
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
pub(crate) fn lock_kind(name: &str) -> Option<&'static str> {
    match name.to_ascii_lowercase().as_str() {
        "omp_set_lock" | "omp_set_nest_lock" | "omp_test_lock" | "omp_test_nest_lock" => {
            Some("lock")
        }
        "omp_unset_lock" | "omp_unset_nest_lock" => Some("unlock"),
        _ => None,
    }
}
