//! `--regions omp`: pairing `!$omp` directives into constructs, their
//! regions (notes/OPENMP.md) and their probes.
//!
//! Directives are items of their own (`Item::Omp`). A construct's probes
//! attach to its directive items (before, after, added clauses, or the
//! whole directive rewritten, for the split of combined constructs) and,
//! where the construct ends with a statement (a DO loop or the statement
//! of an `atomic` without end directive), after that statement. Fortran
//! puts `nowait` on the END directive, so implicit barriers are made
//! explicit there: `!$omp end do nowait`, then an instrumented `!$omp
//! barrier`; a loop construct without `!$omp end do` gets one.

use std::collections::HashSet;

use serde_json::{Map, Value};

use regio_idf::RegionKind;

use super::super::omp::{self, Construct, Directive, Extent, Worksharing};
use super::super::scan::Item;
use super::super::syntax::Kind;
use super::{Key, Op, Planner, Pre, Probe, Target};

/// Which of a construct's regions a key names.
pub(super) mod slot {
    pub const MAIN: u8 = 0;
    pub const FORK: u8 = 1;
    pub const JOIN: u8 = 2;
    pub const BARRIER: u8 = 3;
    /// The inner part: the work-sharing half of a combined construct, a
    /// single's body, a task's execution, a critical's or ordered's wait.
    pub const INNER: u8 = 4;
    /// A `sections` block's first section when it has no `!$omp section`.
    pub const FIRST_SECTION: u8 = 5;
}

/// One construct: its directive, how it ends, what it contains.
#[derive(Debug, Clone)]
pub(super) struct OmpCons {
    pub dir: usize,
    pub d: Directive,
    pub construct: Construct,
    pub end_dir: Option<usize>,
    pub end_d: Option<Directive>,
    /// The construct's last statement when it ends without an end
    /// directive (the DO loop's end, the atomic statement).
    pub last_stmt: Option<usize>,
    /// `!$omp section` directives of a `sections` construct.
    pub sections: Vec<usize>,
    /// Filtered out: left as written.
    pub skip: bool,
}

impl OmpCons {
    /// The item the construct ends with.
    fn last(&self) -> usize {
        self.end_dir.or(self.last_stmt).unwrap_or(self.dir)
    }

    fn has_end_clause(&self, name: &str) -> bool {
        self.d.has_clause(name) || self.end_d.as_ref().is_some_and(|e| e.has_clause(name))
    }
}

fn team(p: u32) -> String {
    format!("regio__team{p}")
}

impl Planner<'_> {
    fn omp_directive(&self, i: usize) -> Option<Directive> {
        match &self.items[i] {
            Item::Omp(o) => Some(omp::parse(&o.text)),
            _ => None,
        }
    }

    fn describe_dir(&self, i: usize, d: &Directive) -> String {
        format!("`!$omp {}` at line {}", d.spelled(), self.line(i))
    }

    /// The next item after `i` in `body` (a unit's items in order).
    fn next_in(body: &[usize], i: usize) -> Option<usize> {
        let k = body.iter().position(|&x| x == i)?;
        body.get(k + 1).copied()
    }

    /// Pairs the directives of unit `u` into constructs (errors for
    /// malformed structure), and marks the DO loops they bind.
    pub(super) fn omp_pair(&mut self, u: usize) {
        let body = self.body(u);
        let mut stack: Vec<usize> = Vec::new();
        let mut claimed: HashSet<usize> = HashSet::new();
        let first_cons = self.omp.len();
        for (k, &i) in body.iter().enumerate() {
            let Some(d) = self.omp_directive(i) else {
                continue;
            };
            if claimed.contains(&i) {
                continue;
            }
            if d.end {
                self.omp_end(i, d, &mut stack);
                continue;
            }
            let construct = d.construct();
            if construct == Construct::PassThrough {
                continue;
            }
            let mut c = OmpCons {
                dir: i,
                d: d.clone(),
                construct,
                end_dir: None,
                end_d: None,
                last_stmt: None,
                sections: Vec::new(),
                skip: false,
            };
            match d.extent() {
                Extent::Standalone => {}
                Extent::Block => {
                    self.omp.push(c);
                    stack.push(self.omp.len() - 1);
                    continue;
                }
                Extent::Section => {
                    let top = stack.last().copied().filter(|&t| {
                        matches!(
                            self.omp[t].construct,
                            Construct::Worksharing(Worksharing::Sections)
                                | Construct::ParallelWorksharing(Worksharing::Sections)
                        )
                    });
                    match top {
                        Some(t) if self.st.cons_of[i] == self.st.cons_of[self.omp[t].dir] => {
                            self.omp[t].sections.push(i);
                        }
                        _ => self.error(
                            i,
                            "`!$omp section` outside an `!$omp sections` construct (or in another block than it)".into(),
                        ),
                    }
                    continue;
                }
                Extent::Loop => {
                    let next = body.get(k + 1).copied();
                    let Some(l) = next.and_then(|n| self.do_cons_at(n)) else {
                        self.error(
                            i,
                            format!("`!$omp {}` must be followed by a DO loop", d.spelled()),
                        );
                        continue;
                    };
                    let end = self.st.cons[l].end;
                    let shared = self
                        .st
                        .cons
                        .iter()
                        .any(|o| o.is_do() && o.end == end && o.start < self.st.cons[l].start);
                    if shared {
                        self.error(
                            i,
                            format!("the DO loop of `!$omp {}` shares its terminal statement with an enclosing DO loop: not supported", d.spelled()),
                        );
                        continue;
                    }
                    // Loops bound to the directive: no loop regions (their
                    // probes cannot stand between the loops).
                    let mut cur = Some(l);
                    for _ in 0..d.bound_loops() {
                        let Some(lc) = cur else { break };
                        self.omp_bound.insert(lc);
                        let start = self.st.cons[lc].start;
                        cur = Self::next_in(&body, start).and_then(|n| self.do_cons_at(n));
                    }
                    c.last_stmt = Some(end);
                    if let Some(e) = Self::next_in(&body, end) {
                        if let Some(ed) = self.omp_directive(e).filter(|ed| d.is_ended_by(ed)) {
                            c.end_dir = Some(e);
                            c.end_d = Some(ed);
                            claimed.insert(e);
                        }
                    }
                }
                Extent::Statement => {
                    let s = body
                        .get(k + 1)
                        .copied()
                        .filter(|&s| matches!(self.items[s], Item::Stmt(_)));
                    let Some(s) = s else {
                        self.error(
                            i,
                            format!("`!$omp {}` must be followed by a statement", d.spelled()),
                        );
                        continue;
                    };
                    c.last_stmt = Some(s);
                    // `!$omp end atomic` after the statement (two for a
                    // capture).
                    let mut probe = Self::next_in(&body, s);
                    for _ in 0..2 {
                        let Some(e) = probe else { break };
                        if let Some(ed) = self.omp_directive(e) {
                            if d.is_ended_by(&ed) {
                                c.end_dir = Some(e);
                                c.end_d = Some(ed);
                                claimed.insert(e);
                            }
                            break;
                        }
                        if !d.has_clause("capture") {
                            break;
                        }
                        probe = Self::next_in(&body, e);
                    }
                }
            }
            self.omp.push(c);
        }
        for t in stack {
            let c = &self.omp[t];
            let (dir, d) = (c.dir, c.d.clone());
            self.error(
                dir,
                format!(
                    "`!$omp {}` is never closed: no `!$omp end {}` in this procedure",
                    d.spelled(),
                    d.spelled()
                ),
            );
        }
        let filtered: Vec<usize> = (first_cons..self.omp.len())
            .filter(|&c| !self.allowed(&self.omp_name(&self.omp[c])))
            .collect();
        for c in filtered {
            self.omp[c].skip = true;
        }
    }

    /// An end directive: closes the innermost open block construct.
    fn omp_end(&mut self, i: usize, d: Directive, stack: &mut Vec<usize>) {
        if d.construct() == Construct::PassThrough && d.words.first().is_some_and(|w| w != "atomic")
        {
            // `end simd`, `end target`, ...: not ours.
            let ours = stack.last().is_some_and(|&t| self.omp[t].d.is_ended_by(&d));
            if !ours {
                return;
            }
        }
        match stack.last().copied() {
            Some(t) if self.omp[t].d.is_ended_by(&d) => {
                let open = self.omp[t].dir;
                if self.st.cons_of[open] != self.st.cons_of[i] {
                    let what = self.describe_dir(open, &self.omp[t].d.clone());
                    self.error(
                        i,
                        format!("`!$omp {}` is not in the same block as {what}", d.spelled()),
                    );
                }
                stack.pop();
                self.omp[t].end_dir = Some(i);
                self.omp[t].end_d = Some(d);
            }
            Some(t) => {
                let what = self.describe_dir(self.omp[t].dir, &self.omp[t].d.clone());
                self.error(
                    i,
                    format!("`!$omp {}` does not match the open {what}", d.spelled()),
                );
            }
            None => {
                let begin = Directive {
                    end: false,
                    ..d.clone()
                };
                self.error(
                    i,
                    format!(
                        "`!$omp {}` without a matching `!$omp {}`",
                        d.spelled(),
                        begin.spelled()
                    ),
                );
            }
        }
    }

    /// The DO construct whose DO statement is item `i`.
    fn do_cons_at(&self, i: usize) -> Option<usize> {
        if !matches!(self.kinds[i], Some(Kind::Do { .. })) {
            return None;
        }
        self.st.cons.iter().position(|c| c.start == i && c.is_do())
    }

    fn omp_name(&self, c: &OmpCons) -> String {
        let line = self.line(c.dir);
        match (&c.construct, &c.d.name) {
            (Construct::Critical, Some(n)) => format!("critical({n})@{line}"),
            (Construct::Parallel | Construct::ParallelWorksharing(_), _) => {
                format!("parallel@{line}")
            }
            _ => format!("{}@{line}", c.d.words.join("_")),
        }
    }

    /// Regions of unit `u`'s constructs, for pass 1.
    pub(super) fn omp_regions(&mut self, u: usize, unit: &str, pre: &mut Vec<Pre>) {
        let list: Vec<OmpCons> = self
            .omp
            .iter()
            .filter(|c| !c.skip && self.st.unit_of[c.dir] == Some(u))
            .cloned()
            .collect();
        for c in list {
            let line = self.line(c.dir);
            let start = self.start_of(c.dir);
            let last = self.last_of(c.last());
            let mut aux = Map::new();
            aux.insert("clauses".into(), Value::from(c.d.clause_text()));
            if let Some(e) = c.end_d.as_ref().filter(|e| !e.clauses.is_empty()) {
                aux.insert("end_clauses".into(), Value::from(e.clause_text()));
            }
            let mut push = |slot: u8, kind: &str, name: String, aux: Map<String, Value>, leaf| {
                pre.push(Pre {
                    key: Key::Omp(c.dir, slot),
                    kind: RegionKind::Omp(kind.to_string()),
                    name,
                    unit: unit.to_string(),
                    start,
                    last,
                    aux,
                    leaf,
                });
            };
            let main = self.omp_name(&c);
            let child = |what: &str| format!("{what}@{line}");
            let none = Map::new;
            match c.construct {
                Construct::Parallel | Construct::ParallelWorksharing(_) => {
                    push(slot::MAIN, "parallel", main, aux.clone(), false);
                    push(slot::FORK, "fork", child("fork"), none(), true);
                    push(slot::JOIN, "join", child("join"), none(), true);
                    push(
                        slot::BARRIER,
                        "implicit_barrier",
                        child("implicit_barrier"),
                        none(),
                        true,
                    );
                    if let Construct::ParallelWorksharing(ws) = c.construct {
                        let (kind, _) = ws.kind_and_words();
                        let mut aux_ws = aux.clone();
                        aux_ws.insert("combined".into(), Value::from(c.d.words.join(" ")));
                        push(slot::INNER, kind, child(kind), aux_ws, false);
                    }
                }
                Construct::Worksharing(ws) => {
                    let (kind, _) = ws.kind_and_words();
                    push(slot::MAIN, kind, main, aux.clone(), false);
                    if !c.has_end_clause("nowait") {
                        push(
                            slot::BARRIER,
                            "implicit_barrier",
                            child("implicit_barrier"),
                            none(),
                            true,
                        );
                    }
                }
                Construct::Single => {
                    push(slot::MAIN, "single", main, aux.clone(), false);
                    if !c.has_end_clause("nowait") && !c.has_end_clause("copyprivate") {
                        push(
                            slot::BARRIER,
                            "implicit_barrier",
                            child("implicit_barrier"),
                            none(),
                            true,
                        );
                    }
                    push(
                        slot::INNER,
                        "single_body",
                        child("single_body"),
                        none(),
                        false,
                    );
                }
                Construct::Critical | Construct::Ordered => {
                    let kind = if c.construct == Construct::Critical {
                        "critical"
                    } else {
                        "ordered"
                    };
                    push(slot::MAIN, kind, main, aux.clone(), false);
                    let wait = format!("{kind}_wait");
                    push(slot::INNER, &wait, child(&wait), none(), true);
                }
                Construct::Task => {
                    push(
                        slot::MAIN,
                        "task_create",
                        child("task_create"),
                        aux.clone(),
                        false,
                    );
                    push(slot::INNER, "task", main, aux.clone(), false);
                }
                Construct::Section => {}
                Construct::PassThrough => {}
                _ => {
                    let kind = c.d.words.join("_");
                    let leaf = c.d.extent() == Extent::Standalone;
                    push(slot::MAIN, &kind, main, aux.clone(), leaf);
                }
            }
            // Sections: one region per section, from its directive to the
            // item before the next one.
            if matches!(
                c.construct,
                Construct::Worksharing(Worksharing::Sections)
                    | Construct::ParallelWorksharing(Worksharing::Sections)
            ) {
                for (k, s0, s1) in self.section_spans(&c) {
                    let (key, sline) = match k {
                        Some(s) => (Key::Omp(s, slot::MAIN), self.line(s)),
                        None => (Key::Omp(c.dir, slot::FIRST_SECTION), line),
                    };
                    let mut aux = Map::new();
                    aux.insert("clauses".into(), Value::from(""));
                    pre.push(Pre {
                        key,
                        kind: RegionKind::Omp("section".into()),
                        name: format!("section@{sline}"),
                        unit: unit.to_string(),
                        start: s0,
                        last: s1,
                        aux,
                        leaf: false,
                    });
                }
            }
        }
    }

    /// (section directive or None for an implicit first section, start
    /// offset, last offset) of each section of a `sections` construct.
    fn section_spans(&self, c: &OmpCons) -> Vec<(Option<usize>, usize, usize)> {
        let Some(end) = c.end_dir else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut bounds: Vec<Option<usize>> = Vec::new();
        let implicit = c
            .sections
            .first()
            .is_none_or(|&s| (c.dir + 1..s).any(|i| self.st.unit_of[i] == self.st.unit_of[c.dir]));
        if implicit {
            bounds.push(None);
        }
        bounds.extend(c.sections.iter().map(|&s| Some(s)));
        for (k, b) in bounds.iter().enumerate() {
            let from = b.unwrap_or(c.dir);
            let next = bounds.get(k + 1).copied().flatten().unwrap_or(end);
            let start = self.start_of(from);
            let last = if next > from + 1 {
                self.last_of(next - 1)
            } else {
                self.last_of(from)
            };
            out.push((*b, start, last));
        }
        out
    }

    fn omp_id(&self, dir: usize, s: u8) -> Option<u32> {
        self.ids.get(&Key::Omp(dir, s)).copied()
    }

    /// Pass 2: the probes of unit `u`'s constructs. Names of the runtime
    /// routines used go to `used`, team variables to `teams`.
    pub(super) fn omp_probes(
        &mut self,
        u: usize,
        used: &mut Vec<&'static str>,
        teams: &mut Vec<u32>,
    ) {
        let list: Vec<OmpCons> = self
            .omp
            .iter()
            .filter(|c| !c.skip && self.st.unit_of[c.dir] == Some(u))
            .cloned()
            .collect();
        let mut need = |n: &'static str| {
            if !used.contains(&n) {
                used.push(n);
            }
        };
        for c in list {
            let Some(m) = self.omp_id(c.dir, slot::MAIN) else {
                continue;
            };
            let enter = |id| Probe::new(Op::Enter(id));
            let exit = |id| Probe::new(Op::Exit(Target::Id(id)));
            let dir = |s: String| Probe::new(Op::Directive(s));
            need("regio_enter");
            need("regio_exit");
            let barrier = |ib: u32| vec![enter(ib), dir("barrier".into()), exit(ib)];
            let last = c.last();
            match c.construct {
                Construct::Parallel | Construct::ParallelWorksharing(_) => {
                    let ids = (
                        self.omp_id(c.dir, slot::FORK),
                        self.omp_id(c.dir, slot::JOIN),
                        self.omp_id(c.dir, slot::BARRIER),
                    );
                    let (Some(f), Some(j), Some(ib)) = ids else {
                        continue;
                    };
                    for n in [
                        "regio_omp_fork",
                        "regio_omp_begin",
                        "regio_omp_end",
                        "regio_omp_join",
                    ] {
                        need(n);
                    }
                    teams.push(m);
                    self.edits[c.dir]
                        .before_label
                        .push(Probe::new(Op::OmpFork(m)));
                    let mut closing = Vec::new();
                    if let Construct::ParallelWorksharing(ws) = c.construct {
                        let Some(w) = self.omp_id(c.dir, slot::INNER) else {
                            continue;
                        };
                        let (mut par, ws_clauses) = omp::split_clauses(&c.d);
                        par.push(format!("firstprivate({})", team(m)));
                        let (_, words) = ws.kind_and_words();
                        self.edits[c.dir].replace = Some(vec![
                            dir(omp::body("parallel", &par)),
                            Probe::new(Op::OmpBegin(m, f)),
                            enter(w),
                            dir(omp::body(words, &ws_clauses)),
                        ]);
                        closing.push(dir(format!("end {words} nowait")));
                        closing.push(exit(w));
                    } else {
                        self.edits[c.dir]
                            .append
                            .push(format!("firstprivate({})", team(m)));
                        self.edits[c.dir].after.push(Probe::new(Op::OmpBegin(m, f)));
                    }
                    closing.extend(barrier(ib));
                    closing.push(Probe::new(Op::OmpEnd(m, j)));
                    match (c.construct, c.end_dir) {
                        (Construct::Parallel, Some(e)) => {
                            self.edits[e].before_label.extend(closing);
                            self.edits[e].after.push(Probe::new(Op::OmpJoin(m)));
                        }
                        (_, Some(e)) => {
                            closing.push(dir("end parallel".into()));
                            closing.push(Probe::new(Op::OmpJoin(m)));
                            self.edits[e].replace = Some(closing);
                        }
                        (_, None) => {
                            closing.push(dir("end parallel".into()));
                            closing.push(Probe::new(Op::OmpJoin(m)));
                            self.edits[last].after.extend(closing);
                        }
                    }
                }
                Construct::Worksharing(ws) => {
                    self.edits[c.dir].before_label.push(enter(m));
                    let ib = self.omp_id(c.dir, slot::BARRIER);
                    let mut closing = Vec::new();
                    match (c.end_dir, ib) {
                        (Some(e), Some(_)) => self.edits[e].append.push("nowait".into()),
                        (None, Some(_)) => {
                            let (_, words) = ws.kind_and_words();
                            closing.push(dir(format!("end {words} nowait")));
                        }
                        _ => {}
                    }
                    closing.push(exit(m));
                    if let Some(ib) = ib {
                        closing.extend(barrier(ib));
                    }
                    self.edits[last].after.extend(closing);
                }
                Construct::Single => {
                    let Some(b) = self.omp_id(c.dir, slot::INNER) else {
                        continue;
                    };
                    let Some(e) = c.end_dir else { continue };
                    let ib = self.omp_id(c.dir, slot::BARRIER);
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[c.dir].after.push(enter(b));
                    self.edits[e].before_label.push(exit(b));
                    if ib.is_some() {
                        self.edits[e].append.push("nowait".into());
                    }
                    self.edits[e].after.push(exit(m));
                    if let Some(ib) = ib {
                        self.edits[e].after.extend(barrier(ib));
                    }
                }
                Construct::Master | Construct::Masked => {
                    let Some(e) = c.end_dir else { continue };
                    self.edits[c.dir].after.push(enter(m));
                    self.edits[e].before_label.push(exit(m));
                }
                Construct::Critical | Construct::Ordered => {
                    let Some(w) = self.omp_id(c.dir, slot::INNER) else {
                        continue;
                    };
                    let Some(e) = c.end_dir else { continue };
                    self.edits[c.dir].before_label.extend([enter(m), enter(w)]);
                    self.edits[c.dir].after.push(exit(w));
                    self.edits[e].after.push(exit(m));
                }
                Construct::Task => {
                    let Some(t) = self.omp_id(c.dir, slot::INNER) else {
                        continue;
                    };
                    let Some(e) = c.end_dir else { continue };
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[c.dir].after.push(enter(t));
                    self.edits[e].before_label.push(exit(t));
                    self.edits[e].after.push(exit(m));
                }
                Construct::Atomic | Construct::Taskgroup => {
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[last].after.push(exit(m));
                }
                Construct::Barrier | Construct::Taskwait | Construct::Flush => {
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[c.dir].after.push(exit(m));
                }
                Construct::Section | Construct::PassThrough => {}
            }
            // Each section: entered first and left last inside its block.
            if matches!(
                c.construct,
                Construct::Worksharing(Worksharing::Sections)
                    | Construct::ParallelWorksharing(Worksharing::Sections)
            ) {
                let Some(end) = c.end_dir else { continue };
                let spans = self.section_spans(&c);
                for (k, (s, _, _)) in spans.iter().enumerate() {
                    let (key, at) = match s {
                        Some(s) => (Key::Omp(*s, slot::MAIN), *s),
                        None => (Key::Omp(c.dir, slot::FIRST_SECTION), c.dir),
                    };
                    let Some(&id) = self.ids.get(&key) else {
                        continue;
                    };
                    let next = spans.get(k + 1).and_then(|x| x.0).unwrap_or(end);
                    self.edits[at].after.push(enter(id));
                    self.edits[next].before_label.push(exit(id));
                }
            }
        }
    }
}
