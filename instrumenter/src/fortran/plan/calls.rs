//! Statements as regions: which CALL and I/O statements are `call`, `io`,
//! `mpi_*` and `omp_lock` regions, their `aux`, and the wrapper calls that
//! measure lock tests inside expressions.

use std::ops::Range;

use regio_idf::{OmpKind, RegionKind};
use serde_json::{Map, Value};

use super::super::scan::Stmt;
use super::super::syntax::{DoForm, Kind};
use super::probes::lock_test_call;
use super::{omp, orig_text, stmt, Key, Op, Planner, Pre, Probe};
use crate::mpi_routines::{self, Spelling};

/// `omp_test_lock(` / `omp_test_nest_lock(` inside an expression: the name
/// and parenthesis (original bytes) become `regio_tl(ID,` / `regio_tnl(ID,`,
/// a runtime function that measures the call it makes (runtime `ffi.rs`).
pub(super) struct LockTest {
    item: usize,
    key: Key,
    range: Range<usize>,
    nest: bool,
}

/// Wrapper names: short enough that `regio_tl(ID,` fits where
/// `omp_test_lock(` stood for ids below 10000, so no line grows.
pub(super) const LOCK_TESTS: [(&str, &str, bool); 2] = [
    ("OMP_TEST_LOCK(", "regio_tl", false),
    ("OMP_TEST_NEST_LOCK(", "regio_tnl", true),
];

/// Where `pattern` (a `LOCK_TESTS` routine and its parenthesis) starts in
/// `canon[span]` as a name of its own, not the end of a longer one
/// (`my_omp_test_lock(`).
pub(super) fn lock_test_calls<'s>(
    canon: &'s str,
    span: Range<usize>,
    pattern: &'s str,
) -> impl Iterator<Item = usize> + 's {
    canon[span.clone()]
        .match_indices(pattern)
        .map(move |(p, _)| p + span.start)
        .filter(|&p| {
            let before = canon[..p].chars().next_back();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The arguments of a CALL as original text, split at top-level commas;
/// `after_callee` is the canonical offset just past the callee's name.
pub(super) fn call_arguments(text: &str, s: &Stmt, after_callee: usize) -> Vec<String> {
    let canon_len = s.map.len();
    let full = orig_text(text, s, after_callee..canon_len);
    let Some(open) = full.find('(') else {
        return Vec::new();
    };
    let mut args = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for ch in full[open + 1..].chars() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' if depth == 0 => break,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                args.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        args.push(cur.trim().to_string());
    }
    args
}

/// `aux` of an MPI call: the routine as written, and its communicator,
/// peer and tag arguments (positions as in the C bindings).
pub(super) fn mpi_aux(name: &str, args: &[String]) -> Map<String, Value> {
    let mut aux = Map::new();
    aux.insert("callee".into(), Value::from(name));
    aux.extend(mpi_routines::argument_aux(name, Spelling::AnyCase, args));
    aux
}

impl<'a> Planner<'a> {
    /// Call, I/O, MPI and lock statements of a procedure's `body`, and
    /// the lock tests inside its expressions.
    pub(super) fn statement_regions(&mut self, body: &[usize], name: &str, pre: &mut Vec<Pre>) {
        let sel = self.input.selection;
        let name = name.to_string();
        for &i in body {
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
                Kind::Assignment { .. } if sel.omp => LOCK_TESTS.iter().find_map(|&(f, _, _)| {
                    let p = lock_test_calls(&s.canon, at..s.canon.len(), f).next()?;
                    Some(p..p + f.len() - 1)
                }),
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
                self.lock_tests_in(i, s, span, &name, pre);
            }
            let (kind, rname, aux) = match k {
                _ if lock.is_some() => {
                    let r = lock.clone().unwrap_or_default();
                    let n = orig_text(self.text(), s, r.clone());
                    let suffix = omp::lock_kind(&n).unwrap_or(OmpKind::Lock);
                    let mut aux = Map::new();
                    aux.insert("callee".into(), Value::from(n.clone()));
                    let line = self.index.pos(s.orig(r.start)).0;
                    (RegionKind::Omp(suffix), format!("{n}@{line}"), aux)
                }
                Kind::Io {
                    word, region: true, ..
                } if sel.io => {
                    let mut aux = Map::new();
                    aux.insert("statement".into(), Value::from(*word));
                    (RegionKind::Io, word.to_string(), aux)
                }
                Kind::Call { callee, .. }
                    if sel.mpi && mpi_routines::is_mpi(&callee.upper, Spelling::AnyCase) =>
                {
                    let n = orig_text(self.text(), s, callee.canon.clone());
                    let args = call_arguments(self.text(), s, callee.canon.end);
                    (
                        RegionKind::Mpi(mpi_routines::region_kind(&callee.upper)),
                        n.clone(),
                        mpi_aux(&n, &args),
                    )
                }
                Kind::Call { callee, .. } if sel.calls && !callee.upper.starts_with("REGIO_") => {
                    let n = orig_text(self.text(), s, callee.canon.clone());
                    let mut aux = Map::new();
                    aux.insert("callee".into(), Value::from(n.clone()));
                    (RegionKind::Call, n, aux)
                }
                _ => continue,
            };
            if !self.allowed(&rname) || self.in_pure_construct(i) || self.quiet_at(i).is_some() {
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

    /// Lock tests inside the expressions of statement `i` (the canonical
    /// `span` of it, in unit `unit`): regions measured through a wrapper call where the wrapper's
    /// text fits in the original's place; a warning where it does not.
    pub(super) fn lock_tests_in(
        &mut self,
        i: usize,
        s: &Stmt,
        span: Range<usize>,
        unit: &str,
        pre: &mut Vec<Pre>,
    ) {
        for (pattern, wrapper, nest) in LOCK_TESTS {
            for p in lock_test_calls(&s.canon, span.clone(), pattern) {
                let range = s.orig_range(p..p + pattern.len());
                let routine = orig_text(self.text(), s, p..p + pattern.len() - 1);
                let line = self.index.pos(s.orig(p)).0;
                let rname = format!("{routine}@{line}");
                // Ids are not known yet: the widest one accepted must fit.
                let widest = lock_test_call(wrapper, 9999);
                if range.len() != pattern.len() || widest.len() > range.len() {
                    self.warn(
                        i,
                        format!(
                            "`{routine}` here is not measured: the call is split over lines or blanks"
                        ),
                    );
                    continue;
                }
                if !self.allowed(&rname) || self.in_pure_construct(i) || self.quiet_at(i).is_some()
                {
                    continue;
                }
                let key = Key::LockTest(i, p);
                let mut aux = Map::new();
                aux.insert("callee".into(), Value::from(routine));
                pre.push(Pre {
                    key,
                    kind: RegionKind::Omp(OmpKind::Lock),
                    name: rname,
                    unit: unit.to_string(),
                    start: range.start,
                    last: range.end - 1,
                    aux,
                    leaf: true,
                });
                self.lock_tests.push(LockTest {
                    item: i,
                    key,
                    range,
                    nest,
                });
            }
        }
    }

    /// Whether DO construct `c` is a DO WHILE whose condition holds a
    /// measured lock test. The condition is evaluated again after every
    /// iteration, and the body may have run a lock test of another object
    /// (another IDF), which leaves that object's base in the runtime's
    /// thread-local: the base is handed over again at the end of every
    /// iteration ([`Self::lock_test_loop_ends`], and before every CYCLE of
    /// the loop, `jumps.rs`).
    pub(super) fn lock_test_in_condition(&self, c: usize) -> bool {
        let cons = &self.st.cons[c];
        cons.do_info().is_some_and(|d| d.form == DoForm::While)
            && self
                .lock_tests
                .iter()
                .any(|t| t.item == cons.start && self.ids.contains_key(&t.key))
    }

    /// `call regio_tl_base(regio_b)` as the last statement of every
    /// iteration of the `loops` whose condition holds a lock test: after
    /// the label of END DO or of the terminal statement, so a jump to that
    /// label runs it too (a terminal statement given probes gets a
    /// CONTINUE of its own, `label_terminals`, which must run after this).
    pub(super) fn lock_test_loop_ends(&mut self, loops: &[usize]) {
        for &c in loops {
            if !self.lock_test_in_condition(c) {
                continue;
            }
            let end = self.st.cons[c].end;
            let mut set = Probe::new(Op::LockTestBase);
            set.cond = self.conditional(end);
            self.edits[end].after_label.insert(0, set);
        }
    }

    /// The wrapper calls of the lock tests in `body`'s statements; returns
    /// which wrapper types the unit must declare (false: `regio_tl`, true:
    /// `regio_tnl`).
    pub(super) fn lock_test_edits(
        &mut self,
        body: &[usize],
        used: &mut Vec<&'static str>,
    ) -> Vec<bool> {
        let mut types = Vec::new();
        let tests = std::mem::take(&mut self.lock_tests);
        for t in &tests {
            if !body.contains(&t.item) {
                continue;
            }
            let Some(&id) = self.ids.get(&t.key) else {
                continue;
            };
            let wrapper = if t.nest { "regio_tnl" } else { "regio_tl" };
            self.edits[t.item]
                .rename
                .push((t.range.clone(), lock_test_call(wrapper, id)));
            // The wrapper's id is local (`regio_b + id` would not fit where
            // `omp_test_lock(` stood): the base goes to the runtime first,
            // before the statement, or for an ELSE IF / CASE before its
            // construct (a statement before the branch would end the
            // previous block).
            let at = match &self.kinds[t.item] {
                Some(Kind::Branch { .. }) => self
                    .st
                    .cons
                    .iter()
                    .filter(|c| c.start < t.item && t.item < c.end)
                    .max_by_key(|c| c.start)
                    .map_or(t.item, |c| c.start),
                _ => t.item,
            };
            let mut set = Probe::new(Op::LockTestBase);
            set.cond = self.conditional(at);
            self.edits[at].after_label.insert(0, set);
            super::probes::need("regio_tl_base", used);
            if !used.contains(&wrapper) {
                used.push(wrapper);
                types.push(t.nest);
            }
        }
        self.lock_tests = tests;
        types
    }
}
