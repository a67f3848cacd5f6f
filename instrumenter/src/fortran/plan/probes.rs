//! Pass 2: the probes of every instrumented procedure (entry and exits,
//! ENTRY points, directives, call statements, loops, declarations).

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::mpi_routines::{self, Effect, Spelling};

use super::super::directives::Command;
use super::super::syntax::{Kind, LabelRef, UnitKind};
use super::jumps::JumpTo;
use super::{stmt, Key, Op, Planner, Probe, Target};

impl<'a> Planner<'a> {
    /// Pass 2: probes of every instrumented procedure.
    pub fn probes(&mut self) {
        for u in 0..self.st.units.len() {
            if !self.instrumentable(u)
                || Self::is_pure(&self.st.units[u])
                || self.omp_device.contains(&u)
            {
                if self.instrumentable(u) {
                    self.pure_directives(u);
                }
                continue;
            }
            self.unit_probes(u);
        }
    }

    fn pure_directives(&mut self, u: usize) {
        for &i in self.dirs_of_unit.get(&u).into_iter().flatten() {
            let Some(d) = self.dirs.at.get(&i) else {
                continue;
            };
            if d.command != Command::Skip {
                let (l, c) = self.index.pos(d.start);
                self.warnings.push(Diagnostic::warning(
                    self.input.display_path,
                    l,
                    c,
                    "`!$regio` directive in a PURE or ELEMENTAL procedure: ignored (probes cannot be called there)",
                ));
            }
        }
    }

    fn unit_probes(&mut self, u: usize) {
        let body = self.body(u);
        let Some(anchors) = self.anchors_of.remove(&u) else {
            return;
        };
        let p = self.ids.get(&Key::Unit(u)).copied();
        let var = p.is_some() && !anchors.entries.is_empty();
        let mut used: Vec<&'static str> = Vec::new();
        let need = |name: &'static str, used: &mut Vec<&'static str>| {
            if !used.contains(&name) {
                used.push(name);
            }
        };
        let term = self.terminus(u);
        let is_main = self.st.units[u].kind == UnitKind::Program;

        // Entry of the procedure.
        let mut enter = Vec::new();
        if is_main {
            enter.push(Probe::new(Op::Register(self.input.idf_path.to_string())));
            need("regio_register_idf", &mut used);
        }
        if let Some(id) = p {
            if var {
                enter.push(Probe::new(Op::SetUnit(id)));
            }
            enter.push(Probe::new(Op::Enter(id)));
            need("regio_enter", &mut used);
            need("regio_exit", &mut used);
            // Falling into END (or CONTAINS).
            let t = if var { Target::Var } else { Target::Id(id) };
            self.edits[term].after_label.push(Probe::new(Op::Exit(t)));
        }
        self.edits[anchors.enter_at].before_label.extend(enter);

        // ENTRY points: sequential flow skips the entry probe.
        if let Some(pid) = p {
            for &e in &anchors.entries {
                let id = self.ids.get(&Key::Entry(e)).copied().unwrap_or(pid);
                let skip = self.labels.fresh(u, 5);
                self.edits[e].before_label.push(Probe::new(Op::Goto(skip)));
                self.edits[e].after.extend([
                    Probe::new(Op::SetUnit(id)),
                    Probe::new(Op::Enter(id)),
                    Probe::labelled(skip, Op::Continue),
                ]);
            }
        }

        // Directives.
        let unit_dirs: Vec<(usize, Command)> = {
            self.dirs_of_unit
                .get(&u)
                .into_iter()
                .flatten()
                .filter_map(|&i| self.dirs.at.get(&i).map(|d| (i, d.command.clone())))
                .collect::<Vec<_>>()
        };
        for (i, cmd) in unit_dirs {
            let op = match &cmd {
                Command::Begin(_) => self.ids.get(&Key::User(i)).map(|&id| Op::Enter(id)),
                Command::End(n) => self
                    .users(u)
                    .find(|r| r.end == i && &r.name == n)
                    .and_then(|r| self.ids.get(&Key::User(r.begin)))
                    .map(|&id| Op::Exit(Target::Id(id))),
                Command::Disable | Command::Enable => {
                    if self.in_pure_construct(i) {
                        self.warn(
                            i,
                            "`!$regio` directive inside DO CONCURRENT, FORALL or WHERE: ignored"
                                .into(),
                        );
                        None
                    } else if cmd == Command::Disable {
                        need("regio_disable", &mut used);
                        Some(Op::Disable)
                    } else {
                        need("regio_enable", &mut used);
                        Some(Op::Enable)
                    }
                }
                Command::Skip => None,
            };
            if matches!(cmd, Command::Begin(_) | Command::End(_)) && self.in_pure_construct(i) {
                self.warn(
                    i,
                    "`!$regio` user region inside DO CONCURRENT, FORALL or WHERE: not instrumented"
                        .into(),
                );
            }
            if let Some(op) = op {
                if matches!(op, Op::Enter(_) | Op::Exit(_)) {
                    need("regio_enter", &mut used);
                    need("regio_exit", &mut used);
                }
                self.edits[i].replace = Some(vec![Probe::new(op)]);
            }
        }

        // Statements: call/io regions and jumps that leave regions.
        for &i in &body {
            let Some(kind) = self.kinds[i].clone() else {
                continue;
            };
            let (k, in_if) = match &kind {
                Kind::LogicalIf { action, .. } => ((**action).clone(), true),
                k => (k.clone(), false),
            };
            let mut before: Vec<Probe> = Vec::new();
            let mut after: Vec<Probe> = Vec::new();
            let cond = self.conditional(i);
            if let Some(&r) = self.ids.get(&Key::Stmt(i)) {
                let effect = match &k {
                    Kind::Call { callee, .. } => {
                        mpi_routines::effect(&callee.upper, Spelling::AnyCase)
                    }
                    _ => Effect::None,
                };
                if effect == Effect::Aborts {
                    before.push(Probe::new(Op::MpiAbort));
                    need("regio_mpi_abort", &mut used);
                }
                before.push(Probe::new(Op::Enter(r)));
                after.push(Probe::new(Op::Exit(Target::Id(r))));
                if effect == Effect::StartsMpi {
                    after.push(Probe::new(Op::MpiInitDone));
                    need("regio_mpi_init_done", &mut used);
                }
                need("regio_enter", &mut used);
                need("regio_exit", &mut used);
            }
            let single = match &k {
                Kind::Return => Some(JumpTo::Outside),
                Kind::Goto(l) => Some(JumpTo::Label(l.value)),
                Kind::Exit(n) => {
                    let n = n.as_ref().map(|n| n.upper.clone());
                    self.construct_for(i, n.as_deref(), false)
                        .map(JumpTo::After)
                }
                Kind::Cycle(n) => {
                    let n = n.as_ref().map(|n| n.upper.clone());
                    self.construct_for(i, n.as_deref(), true).map(JumpTo::Next)
                }
                _ => None,
            };
            if let Some(to) = single {
                if let Some(k) = self.leaves(u, i, &to) {
                    // EXIT of a loop region: its own exit probe right after
                    // the loop runs anyway and closes everything inside.
                    let covered = matches!((&to, k), (JumpTo::After(c), Key::Loop(l)) if *c == l);
                    if !covered {
                        before.push(Probe::new(Op::Exit(self.exit_target(k, var))));
                        need("regio_exit", &mut used);
                    }
                }
            }
            if let Kind::AssignedGoto(ls) = &k {
                let mut outs: Vec<Option<Key>> = Vec::new();
                for l in ls {
                    outs.push(self.leaves(u, i, &JumpTo::Label(l.value)));
                }
                let inside = !self.chain(u, i, true).is_empty();
                if ls.is_empty() && inside {
                    self.warn(i, "assigned GO TO without a label list inside a region: if it leaves the region, that exit is not recorded".into());
                } else if outs.windows(2).all(|w| w[0] == w[1]) {
                    if let Some(Some(k)) = outs.first() {
                        before.push(Probe::new(Op::Exit(self.exit_target(*k, var))));
                        need("regio_exit", &mut used);
                    }
                } else {
                    self.warn(i, "assigned GO TO whose targets leave different regions: its exits are not recorded".into());
                }
            }
            // Statements with several targets, or that may fall through:
            // each leaving label reference goes through a trampoline.
            let (refs, falls): (Vec<LabelRef>, bool) = match &k {
                Kind::ArithIf(v) => (v.clone(), false),
                Kind::ComputedGoto(v) => (v.clone(), true),
                Kind::Call { alt, .. } => (alt.clone(), true),
                Kind::Io { jumps, .. } => (jumps.clone(), true),
                _ => (Vec::new(), true),
            };
            let mut tramps: Vec<Probe> = Vec::new();
            let mut by_target: HashMap<(u32, Target), u32> = HashMap::new();
            let s = stmt(&self.items[i]).cloned();
            for r in refs {
                let Some(k) = self.leaves(u, i, &JumpTo::Label(r.value)) else {
                    continue;
                };
                if cond {
                    // Labelled trampolines on conditional lines: not made.
                    self.warn(i, "jump through a label list on a conditional-compilation line (`!$`) that leaves a region: that exit is not recorded".into());
                    break;
                }
                let Some(s) = s.as_ref() else { continue };
                let t = self.exit_target(k, var);
                let width = r.canon.len();
                let fresh = match by_target.get(&(r.value, t)) {
                    Some(&f) => f,
                    None => {
                        let f = self.labels.fresh(u, width);
                        by_target.insert((r.value, t), f);
                        tramps.push(Probe::labelled(f, Op::Exit(t)));
                        tramps.push(Probe::new(Op::Goto(r.value)));
                        f
                    }
                };
                self.edits[i]
                    .relabel
                    .push((s.orig_range(r.canon.clone()), fresh));
                need("regio_exit", &mut used);
            }
            if !tramps.is_empty() {
                if falls {
                    let skip = self.labels.fresh(u, 5);
                    after.push(Probe::new(Op::Goto(skip)));
                    after.extend(tramps);
                    after.push(Probe::labelled(skip, Op::Continue));
                } else {
                    after.extend(tramps);
                }
            }
            if before.is_empty() && after.is_empty() {
                continue;
            }
            // A conditional statement's probes run when it does.
            for p in before.iter_mut().chain(after.iter_mut()) {
                p.cond = cond;
            }
            let e = &mut self.edits[i];
            if in_if {
                e.action = Some((before, after));
            } else {
                e.after_label.extend(before);
                e.after.splice(0..0, after);
            }
        }

        // Loops: entry before the DO statement (after its label, so a jump
        // to the label enters the region), exit after the loop.
        let loops: Vec<usize> = self
            .unit_cons(u)
            .into_iter()
            .filter(|&c| self.st.cons[c].is_do())
            .collect();
        for &c in &loops {
            let cons = &self.st.cons[c];
            let (start, end) = (cons.start, cons.end);
            self.edits[end].closes_loop = true;
            if let Some(&id) = self.ids.get(&Key::Loop(c)) {
                self.edits[start]
                    .after_label
                    .push(Probe::new(Op::Enter(id)));
                need("regio_enter", &mut used);
                need("regio_exit", &mut used);
                if cons.do_info().is_some_and(|d| d.label.is_none()) {
                    self.edits[end]
                        .after
                        .push(Probe::new(Op::Exit(Target::Id(id))));
                }
            }
        }
        self.label_terminals(u, &loops);
        let mut teams = Vec::new();
        self.omp_probes(u, &mut used, &mut teams);
        let lock_types = self.lock_test_edits(&body, &mut used);

        if !used.is_empty() {
            let mut decl = vec![Probe::new(Op::External(used))];
            if var {
                decl.push(Probe::new(Op::DeclareVar));
            }
            decl.extend(teams.into_iter().map(|t| Probe::new(Op::DeclareTeam(t))));
            decl.extend(
                lock_types
                    .into_iter()
                    .map(|n| Probe::new(Op::DeclareLockTest(n))),
            );
            self.edits[anchors.decl_at].before_label.splice(0..0, decl);
        }
    }
}
