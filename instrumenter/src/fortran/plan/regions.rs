//! Pass 1: every region of the file (procedures, ENTRY points, loops,
//! OpenMP constructs, user regions, call/io/MPI/lock statements), numbered
//! in pre-order.

use regio_idf::{Region, RegionKind};
use serde_json::{Map, Value};

use super::super::syntax::{Kind, UnitKind};
use super::calls::{call_arguments, lock_test_calls, mpi_aux, LOCK_TESTS};
use super::{omp, orig_text, stmt, Key, Planner, Pre};
use crate::mpi_routines::{self, Spelling};

impl<'a> Planner<'a> {
    /// Pass 1: every region of the file, numbered in pre-order.
    pub fn regions(&mut self) -> Vec<Region> {
        let mut pre: Vec<Pre> = Vec::new();
        // OpenMP constructs listed but not measured: numbered after the
        // measured regions, so their ids do not move.
        let mut listed: Vec<Pre> = Vec::new();
        let sel = self.input.selection;
        for u in 0..self.st.units.len() {
            if !self.instrumentable(u) {
                continue;
            }
            let unit = &self.st.units[u];
            let name = self.unit_name(u);
            let start = self.start_of(unit.first);
            let last = self.last_of(unit.end.min(self.items.len() - 1));
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
            if Self::is_pure(unit) {
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
                    pre.push(Pre {
                        key: Key::Listed(u),
                        kind: RegionKind::Function,
                        name: name.clone(),
                        unit: name,
                        start,
                        last,
                        aux,
                        leaf: false,
                    });
                }
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
            let unit = &self.st.units[u];
            let p_region =
                sel.functions && self.allowed(&name) && !self.skipped(unit.first) && !device;
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
                for e in entries {
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
            if sel.loops {
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
            if sel.omp {
                self.omp_regions(u, &name, &mut pre, &mut listed);
            }
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
            if sel.io || sel.calls || sel.mpi || sel.omp {
                for &i in &body {
                    let Some(s) = stmt(&self.items[i]) else {
                        continue;
                    };
                    let Some(k) = self.kinds[i].as_ref() else {
                        continue;
                    };
                    let (k, at) = match k {
                        Kind::LogicalIf { action, action_at } => (action.as_ref(), *action_at),
                        k => (k, 0),
                    };
                    let lock = match k {
                        Kind::Call { callee, .. } if sel.omp => {
                            omp::lock_kind(&callee.upper).map(|_| callee.canon.clone())
                        }
                        Kind::Assignment { .. } if sel.omp => {
                            LOCK_TESTS.iter().find_map(|&(f, _, _)| {
                                let p = lock_test_calls(&s.canon, at..s.canon.len(), f).next()?;
                                Some(p..p + f.len() - 1)
                            })
                        }
                        _ => None,
                    };
                    if sel.omp {
                        // A logical IF's condition, and the rest of the
                        // statement unless it is itself a lock region.
                        let span = if lock.is_none() {
                            0..s.canon.len()
                        } else {
                            0..at
                        };
                        self.lock_tests_in(i, s, span, &name, &mut pre);
                    }
                    let (kind, rname, aux) = match k {
                        _ if lock.is_some() => {
                            let r = lock.clone().unwrap_or_default();
                            let n = orig_text(self.text(), s, r.clone());
                            let suffix = omp::lock_kind(&n).unwrap_or("lock");
                            let mut aux = Map::new();
                            aux.insert("callee".into(), Value::from(n.clone()));
                            let line = self.index.pos(s.orig(r.start)).0;
                            (
                                RegionKind::Omp(suffix.to_string()),
                                format!("{n}@{line}"),
                                aux,
                            )
                        }
                        Kind::Io {
                            word, region: true, ..
                        } if sel.io => {
                            let mut aux = Map::new();
                            aux.insert("statement".into(), Value::from(*word));
                            (RegionKind::Io, word.to_string(), aux)
                        }
                        Kind::Call { callee, .. }
                            if sel.mpi
                                && mpi_routines::is_mpi(&callee.upper, Spelling::AnyCase) =>
                        {
                            let n = orig_text(self.text(), s, callee.canon.clone());
                            let args = call_arguments(self.text(), s, callee.canon.end);
                            (
                                RegionKind::Mpi(mpi_routines::region_kind(&callee.upper)),
                                n.clone(),
                                mpi_aux(&n, &args),
                            )
                        }
                        Kind::Call { callee, .. }
                            if sel.calls && !callee.upper.starts_with("REGIO_") =>
                        {
                            let n = orig_text(self.text(), s, callee.canon.clone());
                            let mut aux = Map::new();
                            aux.insert("callee".into(), Value::from(n.clone()));
                            (RegionKind::Call, n, aux)
                        }
                        _ => continue,
                    };
                    if !self.allowed(&rname)
                        || self.in_pure_construct(i)
                        || self.quiet_at(i).is_some()
                    {
                        continue;
                    }
                    pre.push(Pre {
                        key: Key::Stmt(i),
                        kind,
                        name: rname,
                        unit: name.clone(),
                        start: s.orig(at),
                        last: s.end - 1,
                        aux,
                        leaf: false,
                    });
                }
            }
        }
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
