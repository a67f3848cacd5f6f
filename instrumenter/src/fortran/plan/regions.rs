//! Pass 1: every region of the file (procedures, ENTRY points, loops,
//! OpenMP constructs, user regions, call/io/MPI/lock statements), numbered
//! in pre-order.

use regio_idf::{Region, RegionKind};
use serde_json::{Map, Value};

use super::super::syntax::{Kind, UnitKind};
use super::{orig_text, stmt, Key, Planner, Pre};
use crate::small_functions;

impl<'a> Planner<'a> {
    /// Pass 1: every region of the file, numbered in pre-order.
    pub fn regions(&mut self) -> Vec<Region> {
        let mut pre: Vec<Pre> = Vec::new();
        // OpenMP constructs and small procedures listed but not measured:
        // numbered after the measured regions, so their ids do not move.
        let mut listed: Vec<Pre> = Vec::new();
        let sel = self.input.selection;
        for u in 0..self.st.units.len() {
            if !self.instrumentable(u) {
                continue;
            }
            let name = self.unit_name(u);
            let aux = self.procedure_aux(u);
            if Self::is_pure(&self.st.units[u]) {
                self.list_pure(u, &name, aux, &mut pre);
                continue;
            }
            // Also without `--regions omp`: nothing may be inserted in
            // target regions, simd loops or between a directive and its
            // loops.
            self.omp_pair(u, sel.omp);
            let device = self.omp_device.contains(&u);
            let body = self.body(u);
            let anchors = self.anchors(u, &body);
            let entries = anchors.entries.clone();
            self.anchors_of.insert(u, anchors);
            self.procedure_regions(u, &name, aux, device, &entries, &mut pre, &mut listed);
            if sel.loops {
                self.loop_regions(u, &name, &mut pre);
            }
            if sel.omp {
                self.omp_regions(u, &name, &mut pre, &mut listed);
            }
            self.user_regions(u, &name, &mut pre);
            if sel.io || sel.calls || sel.mpi || sel.omp {
                self.statement_regions(&body, &name, &mut pre);
            }
        }
        self.number(pre, listed)
    }

    /// The start and last byte of a procedure.
    fn procedure_span(&self, u: usize) -> (usize, usize) {
        let unit = &self.st.units[u];
        let start = self.start_of(unit.first);
        let last = self.last_of(unit.end.min(self.items.len() - 1));
        (start, last)
    }

    /// `aux` of a procedure's region: what it is, its module or host, and
    /// whether it is recursive.
    fn procedure_aux(&self, u: usize) -> Map<String, Value> {
        let unit = &self.st.units[u];
        let mut aux = Map::new();
        aux.insert(
            "procedure".into(),
            Value::from(unit.kind.word().to_ascii_lowercase()),
        );
        if let Some(p) = unit.parent {
            let key = if self.st.units[p].kind == UnitKind::Module
                || self.st.units[p].kind == UnitKind::Submodule
            {
                "module"
            } else {
                "host"
            };
            aux.insert(key.into(), Value::from(self.unit_name(p)));
        }
        if unit.header.as_ref().is_some_and(|h| h.recursive) {
            aux.insert("recursive".into(), Value::from(true));
        }
        aux
    }

    /// A PURE or ELEMENTAL procedure: listed with the reason it is not
    /// instrumented.
    fn list_pure(&self, u: usize, name: &str, mut aux: Map<String, Value>, pre: &mut Vec<Pre>) {
        let sel = self.input.selection;
        let unit = &self.st.units[u];
        let name = name.to_string();
        if sel.functions && self.allowed(&name) {
            let h = unit.header.as_ref();
            let what = if h.is_some_and(|h| h.elemental) {
                "ELEMENTAL"
            } else {
                "PURE"
            };
            aux.insert(
                "reason".into(),
                Value::from(format!(
                    "{what} procedure: it may not call the (impure) probes, so it is not instrumented"
                )),
            );
            aux.insert("instrumented".into(), Value::from(false));
            pre.push(self.listed_procedure(u, name, aux));
        }
    }

    /// The IDF entry of procedure `u` listed without probes (PURE or
    /// ELEMENTAL, or small), its reason in `aux`.
    fn listed_procedure(&self, u: usize, name: String, aux: Map<String, Value>) -> Pre {
        let (start, last) = self.procedure_span(u);
        Pre {
            key: Key::Listed(u),
            kind: RegionKind::Function,
            name: name.clone(),
            unit: name,
            start,
            last,
            aux,
            leaf: false,
        }
    }

    /// The procedure's region and those of its ENTRY points; a small
    /// procedure (`crate::small_functions`) is `listed` instead, unmeasured.
    #[allow(clippy::too_many_arguments)]
    fn procedure_regions(
        &self,
        u: usize,
        name: &str,
        mut aux: Map<String, Value>,
        device: bool,
        entries: &[usize],
        pre: &mut Vec<Pre>,
        listed: &mut Vec<Pre>,
    ) {
        let sel = self.input.selection;
        let unit = &self.st.units[u];
        let (start, last) = self.procedure_span(u);
        let name = name.to_string();
        let p_region = sel.functions && self.allowed(&name) && !self.skipped(unit.first) && !device;
        let small = (p_region && !sel.small_functions)
            .then(|| self.small_shape(u))
            .filter(small_functions::is_small);
        if let Some(shape) = small {
            small_functions::mark(&mut aux, &shape);
            listed.push(self.listed_procedure(u, name, aux));
            return;
        }
        if p_region {
            let kind = if unit.kind == UnitKind::Program {
                RegionKind::Program
            } else {
                RegionKind::Function
            };
            pre.push(Pre {
                key: Key::Unit(u),
                kind,
                name: name.clone(),
                unit: name.clone(),
                start,
                last,
                aux,
                leaf: false,
            });
            for &e in entries {
                let Some(Kind::Entry(n)) = &self.kinds[e] else {
                    continue;
                };
                let Some(s) = stmt(&self.items[e]) else {
                    continue;
                };
                let ename = orig_text(self.text(), s, n.canon.clone());
                if !self.allowed(&ename) {
                    continue;
                }
                let mut aux = Map::new();
                aux.insert("procedure".into(), Value::from("entry"));
                aux.insert("entry_of".into(), Value::from(name.clone()));
                pre.push(Pre {
                    key: Key::Entry(e),
                    kind: RegionKind::Function,
                    name: ename,
                    unit: name.clone(),
                    start: s.start,
                    last: s.end - 1,
                    aux,
                    leaf: false,
                });
            }
        }
    }

    /// DO loops: `do@LINE`.
    fn loop_regions(&mut self, u: usize, name: &str, pre: &mut Vec<Pre>) {
        let name = name.to_string();
        for c in self.unit_cons(u) {
            let cons = &self.st.cons[c];
            let Some(info) = cons.do_info() else { continue };
            // A DO of a conditional-compilation line: its loop
            // exists only with OpenMP, and jumps out of it may be
            // plain code; not a region.
            if self.skipped(cons.start)
                || self.omp_bound.contains(&c)
                || self.quiet_at(cons.start).is_some()
                || self.conditional(cons.start)
            {
                continue;
            }
            let lname = format!("do@{}", self.line(cons.start));
            if !self.allowed(&lname) {
                continue;
            }
            if self.in_pure_construct(cons.start) {
                self.warn(
                    cons.start,
                    format!("loop `{lname}` not instrumented: it is inside DO CONCURRENT, FORALL or WHERE, where probes cannot be called"),
                );
                continue;
            }
            let Some(s) = stmt(&self.items[cons.start]) else {
                continue;
            };
            let mut aux = Map::new();
            aux.insert("loop".into(), Value::from(info.form.word()));
            if let Some(v) = &info.var {
                aux.insert(
                    "var".into(),
                    Value::from(orig_text(self.text(), s, v.canon.clone())),
                );
            }
            if let Some(n) = &cons.name {
                aux.insert("construct".into(), Value::from(n.to_ascii_lowercase()));
            }
            if let Some(l) = &info.label {
                aux.insert("label".into(), Value::from(l.value));
            }
            pre.push(Pre {
                key: Key::Loop(c),
                kind: RegionKind::Loop,
                name: lname,
                unit: name.clone(),
                start: s.start,
                last: self.last_of(cons.end),
                aux,
                leaf: false,
            });
        }
    }

    /// `!$regio begin`/`end` pairs.
    fn user_regions(&mut self, u: usize, name: &str, pre: &mut Vec<Pre>) {
        let name = name.to_string();
        let users: Vec<_> = self.users(u).cloned().collect();
        for r in &users {
            if !self.allowed(&r.name) {
                continue;
            }
            if Self::is_pure(&self.st.units[u]) || self.in_pure_construct(r.begin) {
                continue;
            }
            if let Some(why) = self.quiet_at(r.begin) {
                self.warn(
                    r.begin,
                    format!("user region `{}` not instrumented: {why}", r.name),
                );
                continue;
            }
            pre.push(Pre {
                key: Key::User(r.begin),
                kind: RegionKind::User,
                name: r.name.clone(),
                unit: name.clone(),
                start: self.start_of(r.begin),
                last: self.last_of(r.end),
                aux: Map::new(),
                leaf: false,
            });
        }
    }

    /// Ids in pre-order (parents first); OpenMP constructs that are
    /// `listed` but not measured get the ids after them.
    fn number(&mut self, mut pre: Vec<Pre>, listed: Vec<Pre>) -> Vec<Region> {
        // Pre-order: by start, enclosing (longer) regions first.
        pre.sort_by(|a, b| a.start.cmp(&b.start).then(b.last.cmp(&a.last)));
        let mut out = Vec::with_capacity(pre.len());
        let mut stack: Vec<(usize, u32)> = Vec::new();
        let mut spans: Vec<(usize, usize, u32)> = Vec::new();
        for (n, p) in pre.into_iter().enumerate() {
            let id = self.input.first_id + n as u32;
            while stack
                .last()
                .is_some_and(|&(last, _)| last < p.last || p.start > last)
            {
                stack.pop();
            }
            let parent = stack.last().map(|&(_, id)| id);
            if !p.leaf {
                stack.push((p.last, id));
                spans.push((p.start, p.last, id));
            }
            self.ids.insert(p.key, id);
            out.push(self.region(p, id, parent));
        }
        let first_listed = self.input.first_id + out.len() as u32;
        for (n, p) in listed.into_iter().enumerate() {
            // Parent: the innermost measured region around it.
            let parent = spans
                .iter()
                .filter(|&&(s, l, _)| s <= p.start && p.last <= l)
                .max_by_key(|&&(s, l, _)| (s, std::cmp::Reverse(l)))
                .map(|&(_, _, id)| id);
            out.push(self.region(p, first_listed + n as u32, parent));
        }
        out
    }

    fn region(&self, p: Pre, id: u32, parent: Option<u32>) -> Region {
        Region {
            id,
            kind: p.kind,
            name: p.name,
            file: self.input.rel_path.to_string(),
            unit: p.unit,
            start: self.pos(p.start),
            end: self.pos(p.last),
            parent,
            aux: p.aux,
        }
    }
}
