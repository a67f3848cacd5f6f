//! `--regions omp`: pairing `!$omp` directives into constructs, and their
//! regions and probes as the construct's row in `omp_constructs` says,
//! rendered on Fortran items.
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

use super::super::omp::{self, reason, Construct, Directive, Extent, Worksharing};
use super::super::scan::Item;
use super::super::structure::ConsKind;
use super::super::syntax::{Construct as SynConstruct, Kind};
use super::{Key, Op, Planner, Pre, Probe, Target};
use crate::omp_clauses::{nested_reason, quiet_reason};
use crate::omp_constructs::{
    self, Atom, Aux, Lang, Name as RegionName, Nest, Place, Presence, Probes, Role, Row, Slot,
    SlotIds,
};

/// Every slot, to collect a construct's ids.
const ALL_SLOTS: [Slot; 7] = [
    Slot::Main,
    Slot::Fork,
    Slot::Join,
    Slot::Barrier,
    Slot::Inner,
    Slot::Body,
    Slot::Masked,
];

/// The kind of a section's region (the `section` row's).
fn section_kind() -> OmpKind {
    omp_constructs::row(Construct::Section, &[], Lang::Fortran)
        .and_then(|r| r.specs().next().map(|s| s.kind))
        .unwrap_or(OmpKind::Section)
}

/// The key slot of a `sections` block's first section when it has no
/// `!$omp section` (the other slots are `omp_constructs::Slot`).
const FIRST_SECTION: u8 = 5;

/// The key of a construct's region.
fn key(dir: usize, slot: Slot) -> Key {
    Key::Omp(dir, slot as u8)
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
                    key: key(c.dir, Slot::Main),
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
            // (A `section` is placed by its `sections`, below.)
            let row = (c.construct != Construct::Section)
                .then(|| omp_constructs::row(c.construct, &c.d.words, Lang::Fortran))
                .flatten();
            for s in row.iter().flat_map(|r| r.specs()) {
                let present = match s.presence {
                    Presence::Always => true,
                    // (Unlike C, a `cancel` inside is not looked for.)
                    Presence::Barrier { kept_by, .. } => {
                        !c.has_end_clause("nowait") && !kept_by.is_some_and(|k| c.has_end_clause(k))
                    }
                    Presence::LoopBody => c.body_loop.is_some(),
                };
                if !present {
                    continue;
                }
                pre.push(Pre {
                    key: key(c.dir, s.slot),
                    kind: RegionKind::Omp(s.kind),
                    name: match s.name {
                        RegionName::Directive => main.clone(),
                        RegionName::Kind => format!("{}@{line}", s.kind),
                    },
                    unit: unit.to_string(),
                    start,
                    last,
                    aux: match s.aux {
                        Aux::Empty => Map::new(),
                        Aux::Clauses => aux.clone(),
                        Aux::Combined => aux_combined.clone(),
                        Aux::Written if c.d.words.len() > 1 => aux_combined.clone(),
                        Aux::Written => aux.clone(),
                    },
                    leaf: s.nest == Nest::Leaf,
                });
            }
            // Sections: one region per section, from its directive to the
            // item before the next one.
            if c.is_sections() {
                for (k, s0, s1) in self.section_spans(&c) {
                    let (key, sline) = match k {
                        Some(s) => (key(s, Slot::Main), self.line(s)),
                        None => (Key::Omp(c.dir, FIRST_SECTION), line),
                    };
                    let mut aux = Map::new();
                    aux.insert("clauses".into(), Value::from(""));
                    pre.push(Pre {
                        key,
                        kind: RegionKind::Omp(section_kind()),
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

    fn omp_id(&self, dir: usize, s: Slot) -> Option<u32> {
        self.ids.get(&key(dir, s)).copied()
    }

    /// The ids of construct `c`'s regions.
    fn slot_ids(&self, c: &OmpCons) -> SlotIds {
        let mut ids = SlotIds::default();
        for s in ALL_SLOTS {
            if let Some(id) = self.omp_id(c.dir, s) {
                ids.set(s, id);
            }
        }
        ids
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
        let (Some(l), Some(b)) = (c.body_loop, self.omp_id(c.dir, Slot::Body)) else {
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
            if !self.ids.contains_key(&key(c.dir, Slot::Main)) {
                continue;
            }
            need("regio_enter");
            need("regio_exit");
            let row = (c.construct != Construct::Section)
                .then(|| omp_constructs::row(c.construct, &c.d.words, Lang::Fortran))
                .flatten();
            if let Some(row) = row {
                let ids = self.slot_ids(&c);
                if row.forks() {
                    for n in [
                        "regio_omp_fork",
                        "regio_omp_begin",
                        "regio_omp_end",
                        "regio_omp_join",
                    ] {
                        need(n);
                    }
                    teams.extend(ids.get(Slot::Main));
                }
                if row.has_teams_body() {
                    need("regio_omp_teams_begin");
                    need("regio_omp_teams_end");
                }
                self.place_row(&c, &row, &ids);
            }
            // Each section, as the `section` row says, in its block: from
            // its directive (the construct's, for an implicit first one)
            // to the next section's or the end directive.
            if c.is_sections() {
                let Some(end) = c.end_dir else { continue };
                let Some(section_row) = omp_constructs::row(Construct::Section, &[], Lang::Fortran)
                else {
                    continue;
                };
                let spans = self.section_spans(&c);
                for (k, (s, _, _)) in spans.iter().enumerate() {
                    let (section, at) = match s {
                        Some(s) => (key(*s, Slot::Main), *s),
                        None => (Key::Omp(c.dir, FIRST_SECTION), c.dir),
                    };
                    let Some(&id) = self.ids.get(&section) else {
                        continue;
                    };
                    let next = spans.get(k + 1).and_then(|x| x.0).unwrap_or(end);
                    let mut ids = SlotIds::default();
                    ids.set(Slot::Main, id);
                    let probes = |place| -> Vec<Probe> {
                        section_row.parts[0]
                            .atoms(place, |s| ids.has(s))
                            .into_iter()
                            .flat_map(|a| fortran_probes(a, &ids))
                            .collect()
                    };
                    let (first, last) = (probes(Place::BodyStart), probes(Place::BodyEnd));
                    self.edits[at].after.extend(first);
                    self.edits[next].before_label.extend(last);
                }
            }
        }
    }

    /// Places the probes of construct `c` as its row says: a plain
    /// construct on its own directive items; a split combined one by
    /// rewriting its directive and its end (each part's directive and end
    /// written in the body of the part before).
    fn place_row(&mut self, c: &OmpCons, row: &Row, ids: &SlotIds) {
        let present = |s: Slot| ids.has(s);
        let probes = |part: &omp_constructs::Part, place: Place| -> Vec<Probe> {
            part.atoms(place, present)
                .into_iter()
                .flat_map(|a| fortran_probes(a, ids))
                .collect()
        };
        let [first, rest @ ..] = row.parts.as_slice() else {
            return;
        };
        self.edits[c.dir]
            .before_label
            .extend(probes(first, Place::BeforeDirective));
        let has_loop_body = row.specs().any(|s| s.probes == Probes::PerIteration);
        if rest.is_empty() {
            let part = first;
            if part.regions.iter().any(|s| s.probes == Probes::ForkJoin) {
                let team = team_clause(ids);
                self.edits[c.dir].append.push(team);
            }
            self.edits[c.dir]
                .after
                .extend(probes(part, Place::BodyStart));
            let inside = probes(part, Place::BodyEnd);
            let mut after = probes(part, Place::AfterConstruct);
            after.extend(probes(part, Place::Following));
            // Fortran puts `nowait` on the end directive.
            let barrier_made_explicit = part
                .regions
                .iter()
                .any(|s| matches!(s.presence, Presence::Barrier { .. }) && present(s.slot));
            let append: &[&str] = if barrier_made_explicit {
                &["nowait"]
            } else {
                &[]
            };
            if part.probes_in_body(present) || !append.is_empty() {
                self.close_block(c, inside, append, after);
            } else {
                // Nothing inside: nothing between the directive, its
                // statement and an optional end directive either.
                self.edits[c.last()].after.extend(after);
            }
        } else {
            let split = row
                .split
                .map(|(inner, masked)| omp::split_combined(&c.d.clauses, inner, masked))
                .unwrap_or_default();
            let mut opening = Vec::new();
            let mut closing: Vec<Vec<Probe>> = Vec::new();
            for (k, part) in row.parts.iter().enumerate() {
                if k > 0 {
                    opening.extend(probes(part, Place::BeforeDirective));
                }
                let words = part.role.words(Lang::Fortran).unwrap_or("");
                let mut clauses = match part.role {
                    Role::Parallel => split.parallel.clone(),
                    Role::Masked { .. } => split.masked.clone(),
                    _ => split.inner.clone(),
                };
                if part.regions.iter().any(|s| s.probes == Probes::ForkJoin) {
                    clauses.push(team_clause(ids));
                }
                opening.push(Probe::new(Op::Directive(omp::body(words, &clauses))));
                opening.extend(probes(part, Place::BodyStart));
                let mut close = probes(part, Place::BodyEnd);
                // `end do simd nowait` is allowed: OpenMP 5.0-5.2 give the
                // Fortran worksharing-loop SIMD construct the end directive
                // `!$omp end do simd [nowait]`.
                let end = if part.role.adds_nowait() {
                    format!("end {words} nowait")
                } else {
                    format!("end {words}")
                };
                close.push(Probe::new(Op::Directive(end)));
                close.extend(probes(part, Place::AfterConstruct));
                close.extend(probes(part, Place::Following));
                closing.push(close);
            }
            self.edits[c.dir].replace = Some(opening);
            self.rewrite_end(c, closing.into_iter().rev().flatten().collect());
        }
        if has_loop_body {
            self.taskloop_body(c);
        }
    }
}

impl<'a> Planner<'a> {
    /// Directives of unit `u` (which declares the IDF's base) whose
    /// `default(none)` or `default(private)` would hide the base from the
    /// probes inside (a compile error, or an undefined value): they list it
    /// as `firstprivate`, unless their team clause already does. Every
    /// directive that takes `default` takes `firstprivate`.
    pub(super) fn base_clauses(&mut self, u: usize) {
        let base = super::probes::BASE;
        let dirs: Vec<usize> = self
            .omp
            .iter()
            .filter(|c| self.st.unit_of[c.dir] == Some(u) && hides_base(&c.d))
            .map(|c| c.dir)
            .collect();
        for i in dirs {
            let e = &mut self.edits[i];
            if let Some(rewritten) = &mut e.replace {
                // A split combined construct: the part that kept `default`.
                for p in rewritten.iter_mut() {
                    if let Op::Directive(body) = &mut p.op {
                        if hides_base_text(body) && !body.contains(base) {
                            body.push_str(&format!(" firstprivate({base})"));
                        }
                    }
                }
            } else if !e.append.iter().any(|a| a.contains(base)) {
                e.append.push(format!("firstprivate({base})"));
            }
        }
    }
}

/// Whether directive `d` has `default(none)` or `default(private)`.
fn hides_base(d: &Directive) -> bool {
    !d.end
        && d.clauses
            .iter()
            .any(|(name, text)| name == "default" && hides_base_text(text))
}

/// Whether `text` holds a `default(none)` or `default(private)` clause.
fn hides_base_text(text: &str) -> bool {
    let t: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    t.contains("default(none)") || t.contains("default(private)")
}

/// `firstprivate(regio__team<P>, regio_b)`: the parallel region's team
/// token, and the IDF's base the probes inside add (a COMMON variable: with
/// `default(none)` it must be listed, with `default(private)` it would be
/// undefined inside).
fn team_clause(ids: &SlotIds) -> String {
    format!(
        "firstprivate(regio__team{}, {})",
        ids.get(Slot::Main).unwrap_or(0),
        super::probes::BASE
    )
}

/// The Fortran probes of one table probe.
fn fortran_probes(a: Atom, ids: &SlotIds) -> Vec<Probe> {
    let id = |s: Slot| ids.get(s).unwrap_or(0);
    let main = id(Slot::Main);
    let op = match a {
        Atom::Enter(s) => Op::Enter(id(s)),
        Atom::Exit(s) => Op::Exit(Target::Id(id(s))),
        Atom::Fork(s) => Op::OmpFork(id(s)),
        Atom::Join(s) => Op::OmpJoin(id(s)),
        Atom::Begin(s) => Op::OmpBegin(main, id(s)),
        Atom::End(s) => Op::OmpEnd(main, id(s)),
        Atom::TeamsBegin(s) => Op::TeamsBegin(id(s)),
        Atom::TeamsEnd(s) => Op::TeamsEnd(id(s)),
        Atom::Barrier(s) => {
            return vec![
                Probe::new(Op::Enter(id(s))),
                Probe::new(Op::Directive("barrier".into())),
                Probe::new(Op::Exit(Target::Id(id(s)))),
            ]
        }
    };
    vec![Probe::new(op)]
}
