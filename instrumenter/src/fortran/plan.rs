//! Which regions a file gets, and which probe statements go where.
//!
//! The plan is made in two passes: first every region of the file is
//! collected and numbered in pre-order (parents first), then each
//! procedure's statements get their probes. Probes are abstract statements
//! attached to a statement (before its label, after its label, after it,
//! around a logical IF's action) or to a directive line; `probes` writes
//! their text and `emit` lays it out for the source form.
//!
//! This file holds the plan as data and the planner's shared queries; the
//! jobs are in `plan/`: `regions` (pass 1), `anchors`, `calls`, `jumps`,
//! `probes` (pass 2) and `openmp`.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use regio_idf::{Pos, RegionKind};
use serde_json::{Map, Value};

use crate::diag::Diagnostic;
use crate::frontend::SourceInput;

use super::directives::Directives;
use super::omp;
use super::scan::{Item, LineIndex, Stmt};
use super::structure::{ConsKind, Structure, Unit};
use super::syntax::{Construct, DoForm, Kind};

mod anchors;
mod calls;
mod jumps;
mod mpi_capture;
mod openmp;
pub(crate) mod probes;
mod regions;
mod small;

use anchors::Anchors;
use calls::LockTest;
use jumps::Labels;

/// Where an exit probe sends its region id from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    Id(u32),
    /// `regio_u`: the region the procedure was entered through (procedures
    /// with ENTRY statements).
    Var,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Op {
    External(Vec<&'static str>),
    DeclareVar,
    /// `integer regio_b`: the IDF's base (`probes::BASE`).
    DeclareBase,
    /// `common /regio_b_<hash>/ regio_b` for the IDF at this path.
    BaseCommon(String),
    /// `call regio_tl_base(regio_b)`: before a statement with lock tests,
    /// whose wrappers (`regio_tl(ID,`) pass the local id.
    LockTestBase,
    /// `if (regio_b == 0) call regio_register_base(regio_b, '<IDF path>')`.
    Register(String),
    SetUnit(u32),
    Enter(u32),
    Exit(Target),
    Disable,
    Enable,
    /// `call regio_mpi_abort()`: before MPI_ABORT, which never returns (this
    /// rank and the others on its host write their profiles).
    MpiAbort,
    /// `call regio_mpi_init_done()`: after MPI_INIT, the runtime asks MPI
    /// for the rank.
    MpiInitDone,
    /// `call regio_mpi_finalize()`: before MPI_FINALIZE (the second clock
    /// measurement).
    MpiFinalize,
    /// A statement handing an MPI call's arguments to the runtime
    /// (`mpi_capture`): its whole text.
    MpiCapture(String),
    Goto(u32),
    Continue,
    /// Only made by the emitter (closing a rewritten logical IF).
    EndIf,
    /// `integer(8) :: regio__team<ID>`.
    DeclareTeam(u32),
    /// The type of a lock-test wrapper: `logical :: regio_tl` (false) or
    /// `integer :: regio_tnl` (true, the nest-lock test).
    DeclareLockTest(bool),
    /// `call regio_omp_fork(ID, regio__team<ID>)`.
    OmpFork(u32),
    /// `call regio_omp_begin(regio__team<P>, ID)` (P, ID).
    OmpBegin(u32, u32),
    /// `call regio_omp_end(regio__team<P>, ID)` (P, ID).
    OmpEnd(u32, u32),
    /// `call regio_omp_join(regio__team<P>)`.
    OmpJoin(u32),
    /// `call regio_omp_teams_begin(ID)`: first in a host teams body
    /// (enters ID and the team's own `team <k>` region).
    TeamsBegin(u32),
    /// `call regio_omp_teams_end(ID)`: last in a host teams body.
    TeamsEnd(u32),
    /// An `!$omp` directive: the text after the sentinel.
    Directive(String),
}

/// One statement to insert, optionally labelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Probe {
    pub label: Option<u32>,
    pub op: Op,
    /// Written on a conditional-compilation line (`!$ call ...`): it runs
    /// only when compiled with OpenMP, like the statement it belongs to.
    pub cond: bool,
}

impl Probe {
    fn new(op: Op) -> Self {
        Probe {
            label: None,
            op,
            cond: false,
        }
    }

    fn labelled(label: u32, op: Op) -> Self {
        Probe {
            label: Some(label),
            op,
            cond: false,
        }
    }

    /// The probe on a conditional-compilation line when `cond`.
    fn when(mut self, cond: bool) -> Self {
        self.cond = cond;
        self
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct ItemEdits {
    /// Before the statement's label: not run by a jump to the label.
    pub before_label: Vec<Probe>,
    /// After the label: run by a jump to the label.
    pub after_label: Vec<Probe>,
    pub after: Vec<Probe>,
    /// A logical IF turned into an IF block: probes before and after its
    /// action statement.
    pub action: Option<(Vec<Probe>, Vec<Probe>)>,
    /// Label references replaced by fresh labels (original byte ranges).
    pub relabel: Vec<(Range<usize>, u32)>,
    /// The statement's own label is no longer referenced: blank it.
    pub drop_label: bool,
    /// A directive line's replacement (None keeps the line as it is).
    pub replace: Option<Vec<Probe>>,
    /// END DO or terminal statement of a DO loop (OpenMP end directives
    /// after it belong to the loop).
    pub closes_loop: bool,
    /// Clauses added at the end of an `!$omp` directive.
    pub append: Vec<String>,
    /// Original byte ranges replaced by text no longer than they are
    /// (padded with blanks, so columns stay where they were).
    pub rename: Vec<(Range<usize>, String)>,
}

impl ItemEdits {
    pub fn is_empty(&self) -> bool {
        self.before_label.is_empty()
            && self.after_label.is_empty()
            && self.after.is_empty()
            && self.action.is_none()
            && self.relabel.is_empty()
            && !self.drop_label
            && self.replace.is_none()
            && self.append.is_empty()
            && self.rename.is_empty()
    }

    /// Edits that make a DO terminal statement unusable as the terminal.
    fn disturbs_terminal(&self) -> bool {
        !(self.after_label.is_empty()
            && self.after.is_empty()
            && self.action.is_none()
            && self.relabel.is_empty())
    }
}

pub(crate) struct Plan {
    pub edits: Vec<ItemEdits>,
    pub warnings: Vec<Diagnostic>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Unit(usize),
    Entry(usize),
    Loop(usize),
    User(usize),
    Stmt(usize),
    Listed(usize),
    /// An OpenMP construct's region: (directive item, `openmp::slot`).
    Omp(usize, u8),
    /// A lock test inside an expression: (item, canonical offset).
    LockTest(usize, usize),
}

struct Pre {
    key: Key,
    kind: RegionKind,
    name: String,
    unit: String,
    start: usize,
    /// Offset of the last byte.
    last: usize,
    aux: Map<String, Value>,
    /// Nothing nests inside (regions with the same extent as their
    /// parent, like an OpenMP fork, are siblings, not a chain).
    leaf: bool,
}

pub(crate) struct Planner<'a> {
    pub input: &'a SourceInput<'a>,
    pub items: &'a [Item],
    pub kinds: &'a [Option<Kind>],
    pub st: &'a Structure,
    pub dirs: &'a Directives,
    ids: HashMap<Key, u32>,
    anchors_of: HashMap<usize, Anchors>,
    index: LineIndex,
    /// DO and other constructs of each unit.
    cons_of_unit: HashMap<usize, Vec<usize>>,
    /// User regions (indices into `dirs.regions`) of each unit.
    users_of_unit: HashMap<usize, Vec<usize>>,
    /// Directive items of each unit, in order.
    dirs_of_unit: HashMap<usize, Vec<usize>>,
    edits: Vec<ItemEdits>,
    labels: Labels,
    warnings: Vec<Diagnostic>,
    errors: Vec<Diagnostic>,
    /// Misplaced Regio directives: these refuse the file.
    directive_errors: Vec<Diagnostic>,
    /// OpenMP constructs (`--regions omp`).
    omp: Vec<openmp::OmpCons>,
    /// DO constructs bound to an OpenMP loop directive.
    omp_bound: HashSet<usize>,
    /// Item spans (first, last) where no probe may run, and why (simd
    /// loops, target regions, device functions).
    omp_quiet: Vec<(usize, usize, &'static str)>,
    /// Units that are `declare target` procedures: left as written.
    omp_device: HashSet<usize>,
    /// Lock tests inside expressions, measured through a wrapper call.
    lock_tests: Vec<LockTest>,
    /// Each item's `!$omp` directive, parsed once.
    omp_dirs: Vec<Option<omp::Directive>>,
    /// What MPI argument capture may write in this file, read from its
    /// text at the first MPI call.
    mpi_form: std::cell::OnceCell<mpi_capture::Form>,
}

fn stmt(item: &Item) -> Option<&Stmt> {
    match item {
        Item::Stmt(s) => Some(s),
        Item::Regio(_) | Item::Omp(_) => None,
    }
}

/// Original spelling of a canonical range (names are ASCII).
pub(crate) fn orig_text(text: &str, s: &Stmt, r: Range<usize>) -> String {
    let b = text.as_bytes();
    r.filter_map(|i| s.map.get(i).map(|&o| b[o] as char))
        .collect()
}

impl<'a> Planner<'a> {
    pub fn new(
        input: &'a SourceInput<'a>,
        items: &'a [Item],
        kinds: &'a [Option<Kind>],
        st: &'a Structure,
        dirs: &'a Directives,
    ) -> Self {
        let mut labels = Labels::default();
        for &(u, l) in st.labels.keys() {
            labels.used.entry(u).or_default().insert(l);
        }
        let mut cons_of_unit: HashMap<usize, Vec<usize>> = HashMap::new();
        for (c, cons) in st.cons.iter().enumerate() {
            cons_of_unit.entry(cons.unit).or_default().push(c);
        }
        let mut users_of_unit: HashMap<usize, Vec<usize>> = HashMap::new();
        for (k, r) in dirs.regions.iter().enumerate() {
            users_of_unit.entry(r.unit).or_default().push(k);
        }
        let mut dirs_of_unit: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut at: Vec<usize> = dirs.at.keys().copied().collect();
        at.sort_unstable();
        for i in at {
            if let Some(u) = st.unit_of[i] {
                dirs_of_unit.entry(u).or_default().push(i);
            }
        }
        Planner {
            input,
            items,
            kinds,
            st,
            dirs,
            ids: HashMap::new(),
            anchors_of: HashMap::new(),
            index: LineIndex::new(input.text),
            cons_of_unit,
            users_of_unit,
            dirs_of_unit,
            edits: vec![ItemEdits::default(); items.len()],
            labels,
            warnings: Vec::new(),
            errors: Vec::new(),
            directive_errors: Vec::new(),
            omp: Vec::new(),
            omp_bound: HashSet::new(),
            omp_quiet: Vec::new(),
            omp_device: HashSet::new(),
            lock_tests: Vec::new(),
            omp_dirs: items
                .iter()
                .map(|it| match it {
                    Item::Omp(o) => Some(omp::parse_form(&o.text, o.fixed)),
                    _ => None,
                })
                .collect(),
            mpi_form: std::cell::OnceCell::new(),
        }
    }

    fn text(&self) -> &'a str {
        self.input.text
    }

    fn start_of(&self, i: usize) -> usize {
        self.items[i].start()
    }

    fn last_of(&self, i: usize) -> usize {
        match &self.items[i] {
            Item::Stmt(s) => s.end.saturating_sub(1),
            Item::Regio(r) => self
                .dirs
                .at
                .get(&i)
                .map_or(r.start, |d| d.last_end.saturating_sub(1)),
            Item::Omp(o) => o.code_end.saturating_sub(1).max(o.start),
        }
    }

    fn line(&self, i: usize) -> u32 {
        self.index.pos(self.start_of(i)).0
    }

    fn pos(&self, off: usize) -> Pos {
        let (l, c) = self.index.pos(off);
        Pos::new(l, c)
    }

    fn users(&self, u: usize) -> impl Iterator<Item = &super::directives::UserRegion> + '_ {
        self.users_of_unit
            .get(&u)
            .into_iter()
            .flatten()
            .map(|&k| &self.dirs.regions[k])
    }

    fn unit_cons(&self, u: usize) -> Vec<usize> {
        self.cons_of_unit.get(&u).cloned().unwrap_or_default()
    }

    fn warn(&mut self, i: usize, msg: String) {
        let (l, c) = self.index.pos(self.start_of(i));
        self.warnings
            .push(Diagnostic::warning(self.input.display_path, l, c, msg));
    }

    fn error(&mut self, i: usize, msg: String) {
        let (l, c) = self.index.pos(self.start_of(i));
        self.errors
            .push(Diagnostic::error(self.input.display_path, l, c, msg));
    }

    /// A Regio directive the user must fix: the file is refused.
    fn directive_error(&mut self, i: usize, msg: String) {
        let (l, c) = self.index.pos(self.start_of(i));
        self.directive_errors
            .push(Diagnostic::error(self.input.display_path, l, c, msg));
    }

    fn unit_name(&self, u: usize) -> String {
        let unit = &self.st.units[u];
        match unit.header.as_ref().and_then(|h| h.name.as_ref()) {
            Some(n) => match stmt(&self.items[unit.first]) {
                Some(s) => orig_text(self.text(), s, n.canon.clone()),
                None => n.upper.to_ascii_lowercase(),
            },
            None => "main".to_string(),
        }
    }

    fn is_pure(unit: &Unit) -> bool {
        unit.header
            .as_ref()
            .is_some_and(|h| h.pure || (h.elemental && !h.impure))
    }

    fn instrumentable(&self, u: usize) -> bool {
        let unit = &self.st.units[u];
        unit.kind.is_procedure() && !unit.fragment
    }

    /// Executable-part items of a unit, in order (not internal procedures,
    /// not interface bodies). Conditional-compilation statements (`!$ `)
    /// are among them: they are code when compiled with OpenMP, so the
    /// declarations and the entry probe come before them, directives bind
    /// to them, and their jumps get exit probes of their own kind.
    fn body(&self, u: usize) -> Vec<usize> {
        let unit = &self.st.units[u];
        let from = if unit.header.is_some() {
            unit.first + 1
        } else {
            unit.first
        };
        let to = unit.contains.unwrap_or(unit.end);
        (from..to.min(self.items.len()))
            .filter(|&i| self.st.unit_of[i] == Some(u) && !self.st.in_spec_block[i])
            .collect()
    }

    /// Whether item `i` is a conditional-compilation statement.
    fn conditional(&self, i: usize) -> bool {
        stmt(&self.items[i]).is_some_and(|s| s.conditional)
    }

    /// The closing item of a unit's execution part (CONTAINS or END).
    fn terminus(&self, u: usize) -> usize {
        let unit = &self.st.units[u];
        unit.contains.unwrap_or(unit.end)
    }

    /// Inside DO CONCURRENT, FORALL or WHERE: no impure calls allowed.
    fn in_pure_construct(&self, item: usize) -> bool {
        let mut c = self.st.cons_of[item];
        while let Some(ci) = c {
            let cons = &self.st.cons[ci];
            match &cons.kind {
                ConsKind::Do(d) if d.form == DoForm::Concurrent => return true,
                ConsKind::Other(Construct::Forall | Construct::Where) => return true,
                _ => {}
            }
            c = cons.parent;
        }
        false
    }

    fn skipped(&self, item: usize) -> bool {
        self.dirs.skipped.contains(&item)
    }

    fn allowed(&self, name: &str) -> bool {
        self.input.filter.allows_region(name)
    }

    pub fn finish(self) -> Result<Plan, super::Refusal> {
        let sorted = |mut e: Vec<Diagnostic>| {
            e.sort_by_key(|d| (d.line, d.col));
            e.dedup();
            e
        };
        if !self.directive_errors.is_empty() {
            return Err(super::Refusal::Directives(sorted(self.directive_errors)));
        }
        if !self.errors.is_empty() {
            return Err(super::Refusal::Unreadable(sorted(self.errors)));
        }
        Ok(Plan {
            edits: self.edits,
            warnings: self.warnings,
        })
    }
}
