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

use regio_idf::{OmpKind, RegionKind};

use super::super::omp::{self, reason, Construct, Directive, Extent, Inner, Worksharing};
use super::super::scan::Item;
use super::super::structure::ConsKind;
use super::super::syntax::{Construct as SynConstruct, Kind};
use super::{Key, Op, Planner, Pre, Probe, Target};
use crate::omp_clauses::{nested_reason, quiet_reason};

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
    /// Once per iteration of a taskloop, once per team of a `teams`.
    pub const BODY: u8 = 6;
    /// The masked (or master) part of `parallel masked ...`.
    pub const MASKED: u8 = 7;
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
    /// Listed in the IDF but not measured, and why.
    pub listed: Option<&'static str>,
    /// The innermost bound DO construct of a taskloop, when its body can
    /// take a region (an END DO loop nothing jumps out of).
    pub body_loop: Option<usize>,
}

impl OmpCons {
    /// The construct of directive item `dir`, before pairing.
    fn new(dir: usize, d: Directive) -> OmpCons {
        let construct = d.construct();
        OmpCons {
            dir,
            d,
            construct,
            end_dir: None,
            end_d: None,
            last_stmt: None,
            sections: Vec::new(),
            skip: false,
            listed: match construct {
                Construct::NotMeasured { reason, .. } => Some(reason),
                _ => None,
            },
            body_loop: None,
        }
    }

    /// The item the construct ends with.
    fn last(&self) -> usize {
        self.end_dir.or(self.last_stmt).unwrap_or(self.dir)
    }

    fn is_sections(&self) -> bool {
        matches!(
            self.construct,
            Construct::Worksharing(Worksharing::Sections)
                | Construct::ParallelWorksharing(Worksharing::Sections)
        )
    }

    /// Paired with its end directive, item `e`.
    fn close(&mut self, e: usize, ed: Directive) {
        self.end_dir = Some(e);
        self.end_d = Some(ed);
    }

    fn has_end_clause(&self, name: &str) -> bool {
        self.d.has_clause(name) || self.end_d.as_ref().is_some_and(|e| e.has_clause(name))
    }
}

/// Adds one of a construct's regions: (slot, kind, name, aux, leaf).
type PushRegion<'a> = dyn FnMut(u8, &str, String, &Map<String, Value>, bool) + 'a;

fn team(p: u32) -> String {
    format!("regio__team{p}")
}

/// The clause split of a combined construct's inner part (`workshare`
/// takes the clauses `sections` would).
fn inner_of(ws: Worksharing) -> Inner {
    match ws {
        Worksharing::For { simd } => Inner::For { simd },
        Worksharing::Sections | Worksharing::Workshare => Inner::Sections,
        Worksharing::Loop => Inner::Loop,
    }
}

fn taskloop_words(simd: bool) -> &'static str {
    if simd {
        "taskloop simd"
    } else {
        "taskloop"
    }
}

fn masked_word(master: bool) -> &'static str {
    if master {
        "master"
    } else {
        "masked"
    }
}

/// Whether a clause of `d` (a `declare target` list: `(f, g)`, `to(f)`,
/// `enter(f)`) names `name` (lower case).
fn names_in_clauses(d: &Directive, name: &str) -> bool {
    d.clauses.iter().any(|(_, t)| {
        t.to_ascii_lowercase()
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == name)
    })
}

impl Planner<'_> {
    fn omp_directive(&self, i: usize) -> Option<Directive> {
        self.omp_dirs[i].clone()
    }

    fn describe_dir(&self, i: usize, d: &Directive) -> String {
        format!("`!$omp {}` at line {}", d.spelled(), self.line(i))
    }

    /// The next item after `i` in `body` (a unit's items in order).
    fn next_in(body: &[usize], i: usize) -> Option<usize> {
        let k = body.iter().position(|&x| x == i)?;
        body.get(k + 1).copied()
    }

    /// The BLOCK construct whose BLOCK statement is item `i`.
    fn block_cons_at(&self, i: usize) -> Option<usize> {
        self.st
            .cons
            .iter()
            .position(|c| c.start == i && matches!(c.kind, ConsKind::Other(SynConstruct::Block)))
    }

    /// Whether a statement of items `from..to` may leave the loop body or
    /// skip its end (EXIT, CYCLE, GO TO, RETURN, label references).
    fn jumps_in(&self, from: usize, to: usize) -> bool {
        (from..to).any(|i| {
            let Some(k) = self.kinds[i].as_ref() else {
                return false;
            };
            let k = match k {
                Kind::LogicalIf { action, .. } => action.as_ref(),
                k => k,
            };
            matches!(k, Kind::Exit(_) | Kind::Cycle(_) | Kind::Return) || !k.label_refs().is_empty()
        })
    }

    /// Pairs the directives of unit `u` into constructs (errors for
    /// malformed structure when `report`), and marks the DO loops they
    /// bind.
    pub(super) fn omp_pair(&mut self, u: usize, report: bool) {
        if self.named_by_declare_target(u) {
            self.omp_device.insert(u);
        }
        let body = self.body(u);
        let mut stack: Vec<usize> = Vec::new();
        let mut claimed: HashSet<usize> = HashSet::new();
        let first_cons = self.omp.len();
        let errors_before = self.errors.len();
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
            if d.is_specification() {
                self.omp_unit_directive(u, i, &d);
                continue;
            }
            let construct = d.construct();
            let unmeasured = matches!(construct, Construct::NotMeasured { .. });
            let mut c = OmpCons::new(i, d.clone());
            match d.extent() {
                Extent::Standalone => {}
                Extent::Block => {
                    // OpenMP 5.1 strictly structured block: a BLOCK
                    // construct right after the directive is the whole
                    // body; an end directive after END BLOCK is optional.
                    let block = body.get(k + 1).and_then(|&n| self.block_cons_at(n));
                    if let Some(b) = block {
                        let end = self.st.cons[b].end;
                        c.last_stmt = Some(end);
                        if let Some((e, ed)) = self.end_after(&body, end, &d) {
                            c.close(e, ed);
                            claimed.insert(e);
                        }
                        self.omp.push(c);
                        continue;
                    }
                    self.omp.push(c);
                    stack.push(self.omp.len() - 1);
                    continue;
                }
                Extent::Section => {
                    let top = stack.last().copied().filter(|&t| self.omp[t].is_sections());
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
                        // A metadirective's variants need not be loop
                        // constructs: listed as a stand-alone directive.
                        if !unmeasured {
                            self.error(
                                i,
                                format!("`!$omp {}` must be followed by a DO loop", d.spelled()),
                            );
                            continue;
                        }
                        self.omp.push(c);
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
                    let mut innermost = l;
                    for _ in 0..d.bound_loops() {
                        let Some(lc) = cur else { break };
                        // Without `--regions omp` a loop region may take
                        // the directive in (its probes go around both).
                        if report {
                            self.omp_bound.insert(lc);
                        }
                        innermost = lc;
                        let start = self.st.cons[lc].start;
                        cur = Self::next_in(&body, start).and_then(|n| self.do_cons_at(n));
                    }
                    let inner = &self.st.cons[innermost];
                    let end_do = inner.do_info().is_some_and(|d| d.label.is_none());
                    if end_do && !self.jumps_in(inner.start + 1, inner.end) {
                        c.body_loop = Some(innermost);
                    }
                    c.last_stmt = Some(end);
                    if let Some((e, ed)) = self.end_after(&body, end, &d) {
                        c.close(e, ed);
                        claimed.insert(e);
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
                    // capture); nothing may stand between them.
                    let mut before_end = s;
                    if d.has_clause("capture") {
                        if let Some(n) =
                            Self::next_in(&body, s).filter(|&n| self.omp_dirs[n].is_none())
                        {
                            before_end = n;
                        }
                    }
                    if let Some((e, ed)) = self.end_after(&body, before_end, &d) {
                        c.close(e, ed);
                        claimed.insert(e);
                    }
                }
            }
            self.omp.push(c);
        }
        for t in stack {
            if self.omp[t].listed.is_some() {
                // Not ours: listed as written, its extent unknown.
                continue;
            }
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
        if !report {
            self.errors.truncate(errors_before);
        }
        self.omp_quiet_spans(u, first_cons);
        let filtered: Vec<usize> = (first_cons..self.omp.len())
            .filter(|&c| !self.allowed(&self.omp_name(&self.omp[c])))
            .collect();
        for c in filtered {
            self.omp[c].skip = true;
        }
    }

    /// The end directive of `d` right after item `after` in `body`.
    fn end_after(&self, body: &[usize], after: usize, d: &Directive) -> Option<(usize, Directive)> {
        let e = Self::next_in(body, after)?;
        let ed = self.omp_directive(e).filter(|ed| d.is_ended_by(ed))?;
        Some((e, ed))
    }

    /// Whether a `declare target(...)` list anywhere in the file (a
    /// module's specification part, typically) names unit `u`.
    fn named_by_declare_target(&self, u: usize) -> bool {
        let name = self.unit_name(u).to_ascii_lowercase();
        self.omp_dirs
            .iter()
            .flatten()
            .any(|d| d.words == ["declare", "target"] && names_in_clauses(d, &name))
    }

    /// Directives of the specification part: listed; `declare target`
    /// without a list (or naming the procedure) makes the procedure a
    /// device function that is left as written.
    fn omp_unit_directive(&mut self, u: usize, i: usize, d: &Directive) {
        let device = d.words == ["declare", "target"] && {
            let name = self.unit_name(u).to_ascii_lowercase();
            d.clauses.is_empty() || names_in_clauses(d, &name)
        };
        if device {
            self.omp_device.insert(u);
        }
        let mut c = OmpCons::new(i, d.clone());
        c.listed = c.listed.or(Some(reason::OTHER));
        self.omp.push(c);
    }

    /// Items inside constructs where no probe may run (simd loops, target
    /// regions, metadirectives, composite constructs measured only
    /// around): constructs there are listed with the reason, and loops and
    /// statements there get no regions. A device function is such a span
    /// as a whole.
    fn omp_quiet_spans(&mut self, u: usize, first_cons: usize) {
        if self.omp_device.contains(&u) {
            let unit = &self.st.units[u];
            self.omp_quiet
                .push((unit.first, unit.end, reason::DEVICE_FUNCTION));
        }
        for c in first_cons..self.omp.len() {
            let cons = &self.omp[c];
            if let Some(why) = quiet_reason(cons.construct) {
                self.omp_quiet
                    .push((cons.dir + 1, cons.last(), nested_reason(why)));
            }
        }
        for c in first_cons..self.omp.len() {
            let dir = self.omp[c].dir;
            if self.omp[c].d.is_specification() {
                continue;
            }
            if let Some(why) = self.quiet_at(dir) {
                self.omp[c].listed = Some(why);
            }
        }
    }

    /// Why nothing may be instrumented at item `i`, if so (the outermost
    /// span's reason).
    pub(super) fn quiet_at(&self, i: usize) -> Option<&'static str> {
        self.omp_quiet
            .iter()
            .filter(|&&(a, b, _)| a <= i && i <= b)
            .min_by_key(|&&(a, _, _)| a)
            .map(|&(_, _, why)| why)
    }

    /// An end directive: closes the innermost open block construct.
    fn omp_end(&mut self, i: usize, d: Directive, stack: &mut Vec<usize>) {
        let ours = stack.last().is_some_and(|&t| self.omp[t].d.is_ended_by(&d));
        if !ours && matches!(d.construct(), Construct::NotMeasured { .. }) {
            // `end simd`, `end target`, ... of something we do not follow.
            return;
        }
        match stack.last().copied() {
            Some(t) if ours => {
                let open = self.omp[t].dir;
                if self.st.cons_of[open] != self.st.cons_of[i] {
                    let what = self.describe_dir(open, &self.omp[t].d.clone());
                    self.error(
                        i,
                        format!("`!$omp {}` is not in the same block as {what}", d.spelled()),
                    );
                }
                stack.pop();
                self.omp[t].close(i, d);
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
            (
                Construct::Parallel
                | Construct::ParallelWorksharing(_)
                | Construct::ParallelMasked { .. },
                _,
            ) if c.listed.is_none() => format!("parallel@{line}"),
            (Construct::MaskedTaskloop { master, .. }, _) if c.listed.is_none() => {
                format!("{}@{line}", masked_word(*master))
            }
            _ => format!("{}@{line}", c.d.words.join("_")),
        }
    }

    /// Regions of unit `u`'s constructs, for pass 1. Constructs that are
    /// not measured go to `listed`.
    pub(super) fn omp_regions(
        &mut self,
        u: usize,
        unit: &str,
        pre: &mut Vec<Pre>,
        listed: &mut Vec<Pre>,
    ) {
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
            let main = self.omp_name(&c);
            if let Some(why) = c.listed {
                aux.insert("not_measured".into(), Value::from(why));
                let word = if c.d.words.is_empty() {
                    "directive".to_string()
                } else {
                    c.d.words.join("_")
                };
                listed.push(Pre {
                    key: Key::Omp(c.dir, slot::MAIN),
                    kind: RegionKind::omp_directive(&word),
                    name: main,
                    unit: unit.to_string(),
                    start,
                    last,
                    aux,
                    leaf: true,
                });
                continue;
            }
            let mut aux_combined = aux.clone();
            aux_combined.insert("combined".into(), Value::from(c.d.words.join(" ")));
            let mut push = |slot: u8, kind: &str, name: String, aux: &Map<String, Value>, leaf| {
                pre.push(Pre {
                    key: Key::Omp(c.dir, slot),
                    kind: RegionKind::omp_directive(kind),
                    name,
                    unit: unit.to_string(),
                    start,
                    last,
                    aux: aux.clone(),
                    leaf,
                });
            };
            let child = |what: &str| format!("{what}@{line}");
            let none = Map::new();
            let barrier = |push: &mut PushRegion| {
                push(
                    slot::BARRIER,
                    "implicit_barrier",
                    child("implicit_barrier"),
                    &none,
                    true,
                )
            };
            // The taskloop part of a (combined) taskloop construct, and its
            // body unless SIMD lanes run it or a jump would skip its exit.
            let taskloop = |push: &mut PushRegion,
                            slot: u8,
                            name: String,
                            aux: &Map<String, Value>,
                            simd: bool| {
                push(slot, "taskloop", name, aux, false);
                if !simd && c.body_loop.is_some() {
                    let b = "taskloop_body";
                    push(slot::BODY, b, child(b), &none, false);
                }
            };
            match c.construct {
                Construct::Parallel
                | Construct::ParallelWorksharing(_)
                | Construct::ParallelMasked { .. } => {
                    push(slot::MAIN, "parallel", main, &aux, false);
                    push(slot::FORK, "fork", child("fork"), &none, true);
                    push(slot::JOIN, "join", child("join"), &none, true);
                    barrier(&mut push);
                    if let Construct::ParallelWorksharing(ws) = c.construct {
                        let (kind, _) = ws.kind_and_words(true);
                        push(slot::INNER, kind, child(kind), &aux_combined, false);
                    }
                    if let Construct::ParallelMasked {
                        master,
                        taskloop: taskloop_of,
                    } = c.construct
                    {
                        let mw = masked_word(master);
                        push(slot::MASKED, mw, child(mw), &aux_combined, false);
                        if let Some(simd) = taskloop_of {
                            let name = child("taskloop");
                            taskloop(&mut push, slot::INNER, name, &aux_combined, simd);
                        }
                    }
                }
                Construct::Worksharing(ws) => {
                    let (kind, _) = ws.kind_and_words(true);
                    push(slot::MAIN, kind, main, &aux, false);
                    // `loop` has no nowait: its own barrier stays.
                    if !c.has_end_clause("nowait") && ws != Worksharing::Loop {
                        barrier(&mut push);
                    }
                }
                Construct::MaskedTaskloop { master, simd } => {
                    push(slot::MAIN, masked_word(master), main, &aux_combined, false);
                    let name = child("taskloop");
                    taskloop(&mut push, slot::INNER, name, &aux_combined, simd);
                }
                Construct::Taskloop { simd } => taskloop(&mut push, slot::MAIN, main, &aux, simd),
                Construct::Teams => {
                    push(slot::MAIN, "teams", main, &aux, false);
                    push(slot::BODY, "teams_body", child("teams_body"), &none, false);
                }
                Construct::Around { .. } => {
                    let a = if c.d.words.len() > 1 {
                        &aux_combined
                    } else {
                        &aux
                    };
                    push(slot::MAIN, &c.d.words[0], main, a, false);
                }
                Construct::Single => {
                    push(slot::MAIN, "single", main, &aux, false);
                    if !c.has_end_clause("nowait") && !c.has_end_clause("copyprivate") {
                        barrier(&mut push);
                    }
                    push(
                        slot::INNER,
                        "single_body",
                        child("single_body"),
                        &none,
                        false,
                    );
                }
                Construct::Critical | Construct::Ordered => {
                    let kind = if c.construct == Construct::Critical {
                        "critical"
                    } else {
                        "ordered"
                    };
                    push(slot::MAIN, kind, main, &aux, false);
                    let wait = format!("{kind}_wait");
                    push(slot::INNER, &wait, child(&wait), &none, true);
                }
                Construct::Task => {
                    push(slot::MAIN, "task_create", child("task_create"), &aux, false);
                    push(slot::INNER, "task", main, &aux, false);
                }
                Construct::Section | Construct::NotMeasured { .. } => {}
                _ => {
                    let kind = c.d.words.join("_");
                    let leaf = c.d.extent() == Extent::Standalone;
                    push(slot::MAIN, &kind, main, &aux, leaf);
                }
            }
            // Sections: one region per section, from its directive to the
            // item before the next one.
            if c.is_sections() {
                for (k, s0, s1) in self.section_spans(&c) {
                    let (key, sline) = match k {
                        Some(s) => (Key::Omp(s, slot::MAIN), self.line(s)),
                        None => (Key::Omp(c.dir, slot::FIRST_SECTION), line),
                    };
                    let mut aux = Map::new();
                    aux.insert("clauses".into(), Value::from(""));
                    pre.push(Pre {
                        key,
                        kind: RegionKind::Omp(OmpKind::Section),
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

    /// Closes a block construct: `inside` before its end directive, the
    /// clauses `append` on it and `after` after it. Without an end
    /// directive (a BLOCK construct as the body), one is added after END
    /// BLOCK: probes after the directive made the body a loosely
    /// structured block, which needs it.
    fn close_block(&mut self, c: &OmpCons, inside: Vec<Probe>, append: &[&str], after: Vec<Probe>) {
        match (c.end_dir, c.last_stmt) {
            (Some(e), _) => {
                self.edits[e].before_label.extend(inside);
                self.edits[e]
                    .append
                    .extend(append.iter().map(|s| s.to_string()));
                self.edits[e].after.extend(after);
            }
            (None, Some(s)) => {
                let mut end = format!("end {}", c.d.spelled());
                for a in append {
                    end.push(' ');
                    end.push_str(a);
                }
                let e = &mut self.edits[s].after;
                e.extend(inside);
                e.push(Probe::new(Op::Directive(end)));
                e.extend(after);
            }
            (None, None) => {}
        }
    }

    /// Closes a combined construct that is split: `closing` replaces its
    /// end directive, or follows its loop when it has none.
    fn rewrite_end(&mut self, c: &OmpCons, closing: Vec<Probe>) {
        match c.end_dir {
            Some(e) => self.edits[e].replace = Some(closing),
            None => self.edits[c.last()].after.extend(closing),
        }
    }

    /// The taskloop body region: entered first and left last in each
    /// iteration of the innermost bound loop.
    fn taskloop_body(&mut self, c: &OmpCons) {
        let (Some(l), Some(b)) = (c.body_loop, self.omp_id(c.dir, slot::BODY)) else {
            return;
        };
        let (start, end) = (self.st.cons[l].start, self.st.cons[l].end);
        self.edits[start].after.push(Probe::new(Op::Enter(b)));
        self.edits[end]
            .before_label
            .push(Probe::new(Op::Exit(Target::Id(b))));
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
            .filter(|c| !c.skip && c.listed.is_none() && self.st.unit_of[c.dir] == Some(u))
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
                Construct::Parallel
                | Construct::ParallelWorksharing(_)
                | Construct::ParallelMasked { .. } => {
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
                    let team_clause = format!("firstprivate({})", team(m));
                    let mut opening = Vec::new();
                    let mut closing = Vec::new();
                    match c.construct {
                        Construct::ParallelWorksharing(ws) => {
                            let Some(w) = self.omp_id(c.dir, slot::INNER) else {
                                continue;
                            };
                            let split = omp::split_combined(&c.d.clauses, inner_of(ws), false);
                            let mut par = split.parallel;
                            par.push(team_clause);
                            let (_, words) = ws.kind_and_words(true);
                            opening.extend([
                                dir(omp::body("parallel", &par)),
                                Probe::new(Op::OmpBegin(m, f)),
                                enter(w),
                                dir(omp::body(words, &split.inner)),
                            ]);
                            // `loop` takes no nowait. `end do simd nowait`
                            // is allowed: OpenMP 5.0-5.2 give the Fortran
                            // worksharing-loop SIMD construct the end
                            // directive `!$omp end do simd [nowait]`.
                            if ws == Worksharing::Loop {
                                closing.push(dir(format!("end {words}")));
                            } else {
                                closing.push(dir(format!("end {words} nowait")));
                            }
                            closing.push(exit(w));
                        }
                        Construct::ParallelMasked { master, taskloop } => {
                            let Some(mk) = self.omp_id(c.dir, slot::MASKED) else {
                                continue;
                            };
                            let inner =
                                taskloop.map_or(Inner::None, |simd| Inner::Taskloop { simd });
                            let split = omp::split_combined(&c.d.clauses, inner, true);
                            let mut par = split.parallel;
                            par.push(team_clause);
                            let mw = masked_word(master);
                            opening.extend([
                                dir(omp::body("parallel", &par)),
                                Probe::new(Op::OmpBegin(m, f)),
                                dir(omp::body(mw, &split.masked)),
                                enter(mk),
                            ]);
                            if let Some(simd) = taskloop {
                                let Some(tl) = self.omp_id(c.dir, slot::INNER) else {
                                    continue;
                                };
                                let words = taskloop_words(simd);
                                opening.push(enter(tl));
                                opening.push(dir(omp::body(words, &split.inner)));
                                closing.push(dir(format!("end {words}")));
                                closing.push(exit(tl));
                                self.taskloop_body(&c);
                            }
                            // No barrier inside masked: the team's comes
                            // after it.
                            closing.push(exit(mk));
                            closing.push(dir(format!("end {mw}")));
                        }
                        _ => {
                            self.edits[c.dir].append.push(team_clause);
                            self.edits[c.dir].after.push(Probe::new(Op::OmpBegin(m, f)));
                        }
                    }
                    if !opening.is_empty() {
                        self.edits[c.dir].replace = Some(opening);
                    }
                    closing.extend(barrier(ib));
                    closing.push(Probe::new(Op::OmpEnd(m, j)));
                    if c.construct == Construct::Parallel {
                        self.close_block(&c, closing, &[], vec![Probe::new(Op::OmpJoin(m))]);
                    } else {
                        closing.push(dir("end parallel".into()));
                        closing.push(Probe::new(Op::OmpJoin(m)));
                        self.rewrite_end(&c, closing);
                    }
                }
                Construct::Worksharing(ws) => {
                    self.edits[c.dir].before_label.push(enter(m));
                    let ib = self.omp_id(c.dir, slot::BARRIER);
                    let mut closing = Vec::new();
                    match (c.end_dir, ib) {
                        (Some(e), Some(_)) => self.edits[e].append.push("nowait".into()),
                        (None, Some(_)) => {
                            // (`end do simd nowait`: see above.)
                            let (_, words) = ws.kind_and_words(true);
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
                Construct::MaskedTaskloop { master, simd } => {
                    let Some(tl) = self.omp_id(c.dir, slot::INNER) else {
                        continue;
                    };
                    let split = omp::split_combined(&c.d.clauses, Inner::Taskloop { simd }, true);
                    let (mw, words) = (masked_word(master), taskloop_words(simd));
                    self.edits[c.dir].replace = Some(vec![
                        dir(omp::body(mw, &split.masked)),
                        enter(m),
                        enter(tl),
                        dir(omp::body(words, &split.inner)),
                    ]);
                    let closing = vec![
                        dir(format!("end {words}")),
                        exit(tl),
                        exit(m),
                        dir(format!("end {mw}")),
                    ];
                    self.rewrite_end(&c, closing);
                    self.taskloop_body(&c);
                }
                Construct::Taskloop { .. } | Construct::Around { .. } => {
                    // No barrier: a taskloop's end is its taskgroup.
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[last].after.push(exit(m));
                    self.taskloop_body(&c);
                }
                Construct::Single => {
                    let Some(b) = self.omp_id(c.dir, slot::INNER) else {
                        continue;
                    };
                    let ib = self.omp_id(c.dir, slot::BARRIER);
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[c.dir].after.push(enter(b));
                    let mut after = vec![exit(m)];
                    if let Some(ib) = ib {
                        after.extend(barrier(ib));
                    }
                    let append: &[&str] = if ib.is_some() { &["nowait"] } else { &[] };
                    self.close_block(&c, vec![exit(b)], append, after);
                }
                Construct::Master | Construct::Masked => {
                    self.edits[c.dir].after.push(enter(m));
                    self.close_block(&c, vec![exit(m)], &[], Vec::new());
                }
                Construct::Critical | Construct::Ordered => {
                    let Some(w) = self.omp_id(c.dir, slot::INNER) else {
                        continue;
                    };
                    self.edits[c.dir].before_label.extend([enter(m), enter(w)]);
                    self.edits[c.dir].after.push(exit(w));
                    self.close_block(&c, Vec::new(), &[], vec![exit(m)]);
                }
                // Around the construct, and inside it where the task runs.
                Construct::Task => {
                    let Some(t) = self.omp_id(c.dir, slot::INNER) else {
                        continue;
                    };
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[c.dir].after.push(enter(t));
                    self.close_block(&c, vec![exit(t)], &[], vec![exit(m)]);
                }
                // Around the construct, and inside it once per team, with
                // the team's number (runtime `teams` module).
                Construct::Teams => {
                    let Some(t) = self.omp_id(c.dir, slot::BODY) else {
                        continue;
                    };
                    need("regio_omp_teams_begin");
                    need("regio_omp_teams_end");
                    self.edits[c.dir].before_label.push(enter(m));
                    let begin = Probe::new(Op::TeamsBegin(t));
                    self.edits[c.dir].after.push(begin);
                    let end = Probe::new(Op::TeamsEnd(t));
                    self.close_block(&c, vec![end], &[], vec![exit(m)]);
                }
                Construct::Atomic | Construct::Taskgroup => {
                    // Nothing between `!$omp atomic`, its statement and
                    // `!$omp end atomic`.
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[last].after.push(exit(m));
                }
                Construct::Barrier | Construct::Taskwait | Construct::Flush => {
                    self.edits[c.dir].before_label.push(enter(m));
                    self.edits[c.dir].after.push(exit(m));
                }
                Construct::Section | Construct::NotMeasured { .. } => {}
            }
            // Each section: entered first and left last inside its block.
            if c.is_sections() {
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
