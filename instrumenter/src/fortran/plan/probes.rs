//! Pass 2: the probes of every instrumented procedure (entry and exits,
//! ENTRY points, directives, call statements, loops, declarations), and
//! the text of every probe statement ([`Op::text`]); `emit` only lays the
//! text out for the source form.

use crate::diag::Diagnostic;
use crate::mpi_routines::{self, Effect, Spelling};

use super::super::directives::Command;
use super::super::scan::Item;
use super::super::syntax::Kind;
use super::{calls, mpi_capture, Anchors, Key, Op, Planner, Probe, Target};

impl<'a> Planner<'a> {
    /// The argument capture of the MPI call statement `i` (region `r`).
    fn mpi_capture(
        &self,
        i: usize,
        r: u32,
        callee: &super::super::syntax::Name,
    ) -> Option<mpi_capture::FortranCapture> {
        if !mpi_routines::is_mpi(&callee.upper, Spelling::AnyCase) {
            return None;
        }
        let Item::Stmt(s) = &self.items[i] else {
            return None;
        };
        let args = calls::call_arguments(self.text(), s, callee.canon.end);
        let form = *self
            .mpi_form
            .get_or_init(|| mpi_capture::Form::of(self.text()));
        mpi_capture::capture(r, &callee.upper, &args, form, &self.dummies_of(i))
    }

    /// The dummy argument names (lower case) of the procedure whose
    /// statement `i` is, from its SUBROUTINE or FUNCTION statement.
    fn dummies_of(&self, i: usize) -> Vec<String> {
        let Some(u) = self.st.unit_of.get(i).copied().flatten() else {
            return Vec::new();
        };
        let unit = &self.st.units[u];
        let (Some(h), Item::Stmt(s)) = (&unit.header, &self.items[unit.first]) else {
            return Vec::new();
        };
        let Some(name) = &h.name else {
            return Vec::new();
        };
        calls::call_arguments(self.text(), s, name.canon.end)
            .into_iter()
            .map(|a| a.to_ascii_lowercase())
            .collect()
    }

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
        self.entry_probes(u, p, var, &anchors, &mut used);
        self.directive_probes(u, &mut used);
        self.statement_probes(u, &body, var, &mut used);
        let loops = self.loop_probes(u, &mut used);
        self.lock_test_loop_ends(&loops);
        self.label_terminals(u, &loops);
        let mut teams = Vec::new();
        self.omp_probes(u, &mut used, &mut teams);
        let lock_types = self.lock_test_edits(&body, &mut used);

        if !used.is_empty() {
            // Every probe adds the base: the procedure registers its IDF
            // first (once per IDF and process; entering through an ENTRY
            // point too), whether or not it is a region itself.
            need("regio_register_base", &mut used);
            let path = self.input.idf_path.to_string();
            self.edits[anchors.enter_at]
                .before_label
                .insert(0, Probe::new(Op::Register(path.clone())));
            for &e in &anchors.entries {
                self.edits[e]
                    .after
                    .insert(0, Probe::new(Op::Register(path.clone())));
            }
            self.base_clauses(u);
            let mut decl = vec![Probe::new(Op::External(used))];
            decl.push(Probe::new(Op::DeclareBase));
            decl.push(Probe::new(Op::BaseCommon(path)));
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

    /// The procedure's entry probe, its exit before END (or CONTAINS), and
    /// the entries through its ENTRY points (`p`: the procedure's region;
    /// `var`: exits name the region entered through, `regio_u`).
    fn entry_probes(
        &mut self,
        u: usize,
        p: Option<u32>,
        var: bool,
        anchors: &Anchors,
        used: &mut Vec<&'static str>,
    ) {
        let term = self.terminus(u);

        // Entry of the procedure (the registration goes before it, once
        // the unit is known to have probes: `unit_probes`).
        let mut enter = Vec::new();
        if let Some(id) = p {
            if var {
                enter.push(Probe::new(Op::SetUnit(id)));
            }
            enter.push(Probe::new(Op::Enter(id)));
            need("regio_enter", used);
            need("regio_exit", used);
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
    }

    /// `!$regio` directive lines replaced by their calls.
    fn directive_probes(&mut self, u: usize, used: &mut Vec<&'static str>) {
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
                        need("regio_disable", used);
                        Some(Op::Disable)
                    } else {
                        need("regio_enable", used);
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
                    need("regio_enter", used);
                    need("regio_exit", used);
                }
                self.edits[i].replace = Some(vec![Probe::new(op)]);
            }
        }
    }

    /// Call, I/O, MPI and lock statements: entry before, exit after (and
    /// the MPI start and abort probes); jumps that leave regions.
    fn statement_probes(
        &mut self,
        u: usize,
        body: &[usize],
        var: bool,
        used: &mut Vec<&'static str>,
    ) {
        for &i in body {
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
                    need("regio_mpi_abort", used);
                }
                if effect == Effect::EndsMpi {
                    before.push(Probe::new(Op::MpiFinalize));
                    need("regio_mpi_finalize", used);
                }
                // The argument values of the call's messages, recorded
                // while its region is still open.
                let capture = match &k {
                    Kind::Call { callee, .. } => self.mpi_capture(i, r, callee),
                    _ => None,
                };
                let mut record = Vec::new();
                if let Some(c) = capture {
                    for name in c.names {
                        need(name, used);
                    }
                    if let Some(b) = c.before {
                        before.push(Probe::new(Op::MpiCapture(b)));
                    }
                    record = c.record;
                }
                before.push(Probe::new(Op::Enter(r)));
                for text in record {
                    after.push(Probe::new(Op::MpiCapture(text)));
                }
                after.push(Probe::new(Op::Exit(Target::Id(r))));
                if effect == Effect::StartsMpi {
                    after.push(Probe::new(Op::MpiInitDone));
                    need("regio_mpi_init_done", used);
                }
                need("regio_enter", used);
                need("regio_exit", used);
            }
            let (exits, trampolines) = self.jump_exits(u, i, &k, var, cond, used);
            before.extend(exits);
            after.extend(trampolines);
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
    }

    /// Loops: entry before the DO statement (after its label, so a jump
    /// to the label enters the region), exit after the loop. Returns the
    /// unit's DO constructs.
    fn loop_probes(&mut self, u: usize, used: &mut Vec<&'static str>) -> Vec<usize> {
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
                need("regio_enter", used);
                need("regio_exit", used);
                if cons.do_info().is_some_and(|d| d.label.is_none()) {
                    self.edits[end]
                        .after
                        .push(Probe::new(Op::Exit(Target::Id(id))));
                }
            }
        }
        loops
    }
}

/// Adds a runtime routine to the unit's `external` list, once.
pub(super) fn need(name: &'static str, used: &mut Vec<&'static str>) {
    if !used.contains(&name) {
        used.push(name);
    }
}

/// Free form: the head of the declaration of the runtime routines a unit
/// calls (`external :: regio_enter, regio_exit`).
pub(crate) const EXTERNAL_HEAD: &str = "external :: ";
/// Fixed form: one `EXTERNAL` statement per routine (FORTRAN 77 has no
/// `::`).
pub(crate) const FIXED_EXTERNAL: &str = "EXTERNAL ";
/// Fixed form: the declaration of `regio_u`.
pub(crate) const FIXED_DECLARE_VAR: &str = "INTEGER REGIO_U";
/// The variable holding the IDF's base: a COMMON block named after the
/// IDF (`regio_b_<hash>`), so every procedure of one IDF (any file, any
/// object) shares it, and procedures of other IDFs have their own. Zero
/// until the first instrumented procedure entered sets it.
pub(crate) const BASE: &str = "regio_b";
/// The lazy IDF registration up to its argument, first at every
/// instrumented procedure's entry (`emit` continues a long path over
/// several lines): the runtime sets the base once.
pub(crate) const REGISTER_CALL: &str = "if (regio_b == 0) call regio_register_base(regio_b, ";

/// A region's id as every probe passes it: the IDF's base plus its local
/// id, so separately instrumented objects never share an id.
pub(crate) fn id_expr(id: u32) -> String {
    format!("{BASE} + {id}")
}

/// The COMMON block holding the base of the IDF at `idf_path`: its name
/// is the FNV-1a hash of the path (the runtime names its copy alike).
pub(crate) fn base_common(idf_path: &str) -> String {
    let h = crate::idf_hash::idf_hash(idf_path);
    format!("common /{BASE}_{h}/ {BASE}")
}

/// A Fortran character constant's body for `s`.
pub(crate) fn quoted(s: &str) -> String {
    s.replace('\'', "''")
}

/// The lock-test wrapper call that replaces `omp_test_lock(` (up to and
/// including the comma after the region id).
pub(super) fn lock_test_call(wrapper: &str, id: u32) -> String {
    format!("{wrapper}({id},")
}

impl Op {
    /// The text of the probe statement, without label, in lower case
    /// (`emit` upper-cases it in fixed form and lays out what is too long
    /// for one line). Every Fortran probe is written from here.
    pub(crate) fn text(&self) -> String {
        match self {
            Op::External(names) => format!("{EXTERNAL_HEAD}{}", names.join(", ")),
            Op::DeclareVar => "integer :: regio_u".to_string(),
            Op::DeclareBase => format!("integer {BASE}"),
            Op::LockTestBase => format!("call regio_tl_base({BASE})"),
            Op::BaseCommon(p) => base_common(p),
            Op::Register(p) => format!("{REGISTER_CALL}'{}')", quoted(p)),
            Op::SetUnit(id) => format!("regio_u = {}", id_expr(*id)),
            Op::Enter(id) => format!("call regio_enter({})", id_expr(*id)),
            Op::Exit(Target::Id(id)) => format!("call regio_exit({})", id_expr(*id)),
            Op::Exit(Target::Var) => "call regio_exit(regio_u)".to_string(),
            Op::Disable => "call regio_disable()".to_string(),
            Op::Enable => "call regio_enable()".to_string(),
            Op::MpiAbort => "call regio_mpi_abort()".to_string(),
            Op::MpiInitDone => "call regio_mpi_init_done()".to_string(),
            Op::MpiFinalize => "call regio_mpi_finalize()".to_string(),
            Op::MpiCapture(text) => text.clone(),
            Op::Goto(l) => format!("go to {l}"),
            Op::Continue => "continue".to_string(),
            Op::EndIf => "end if".to_string(),
            Op::DeclareTeam(p) => format!("integer(8) :: regio__team{p}"),
            Op::DeclareLockTest(false) => "logical :: regio_tl".to_string(),
            Op::DeclareLockTest(true) => "integer :: regio_tnl".to_string(),
            Op::OmpFork(p) => format!("call regio_omp_fork({}, regio__team{p})", id_expr(*p)),
            Op::OmpBegin(p, id) => {
                format!("call regio_omp_begin(regio__team{p}, {})", id_expr(*id))
            }
            Op::OmpEnd(p, id) => format!("call regio_omp_end(regio__team{p}, {})", id_expr(*id)),
            Op::OmpJoin(p) => format!("call regio_omp_join(regio__team{p})"),
            Op::TeamsBegin(id) => format!("call regio_omp_teams_begin({})", id_expr(*id)),
            Op::TeamsEnd(id) => format!("call regio_omp_teams_end({})", id_expr(*id)),
            Op::Directive(body) => format!("!$omp {body}"),
        }
    }
}
