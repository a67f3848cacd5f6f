//! Which regions a file gets, and which probe statements go where.
//!
//! The plan is made in two passes: first every region of the file is
//! collected and numbered in pre-order (parents first), then each
//! procedure's statements get their probes. Probes are abstract statements
//! attached to a statement (before its label, after its label, after it,
//! around a logical IF's action) or to a directive line; `emit` turns them
//! into text for the source form.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use regio_idf::{Pos, Region, RegionKind};
use serde_json::{Map, Value};

use crate::diag::Diagnostic;
use crate::frontend::SourceInput;
use crate::mpi_routines::{self, Effect, Spelling};

use super::directives::{Command, Directives};
use super::omp;
use super::scan::{Item, LineIndex, Stmt};
use super::structure::{ConsKind, Structure, Unit};
use super::syntax::{Construct, DoForm, Kind, LabelRef, Spec, UnitKind};

mod openmp;

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

/// Fresh statement labels, unique in their scoping unit (labels of an
/// internal procedure are its own).
#[derive(Default)]
struct Labels {
    used: HashMap<usize, HashSet<u32>>,
    /// Next candidate per (unit, digits), counting down.
    next: HashMap<(usize, u32), u32>,
}

impl Labels {
    /// Prefer a label as wide as `width` digits, so fixed-form lines keep
    /// their columns; wider ones when those are taken.
    fn fresh(&mut self, unit: usize, width: usize) -> u32 {
        let used = self.used.entry(unit).or_default();
        let first = width.clamp(1, 5) as u32;
        for digits in first..=5 {
            let lo = 10u32.pow(digits - 1).max(1);
            let cur = self
                .next
                .entry((unit, digits))
                .or_insert(10u32.pow(digits) - 1);
            while *cur >= lo {
                let l = *cur;
                *cur -= 1;
                if used.insert(l) {
                    return l;
                }
            }
        }
        // All 99999 labels of one unit taken: not a real program.
        99999
    }
}

enum JumpTo {
    Outside,
    Label(u32),
    /// Right after a construct (EXIT).
    After(usize),
    /// The next iteration of a DO (CYCLE).
    Next(usize),
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
}

/// `omp_test_lock(` / `omp_test_nest_lock(` inside an expression: the name
/// and parenthesis (original bytes) become `regio_tl(ID,` / `regio_tnl(ID,`,
/// a runtime function that measures the call it makes (runtime `ffi.rs`).
struct LockTest {
    item: usize,
    key: Key,
    range: Range<usize>,
    nest: bool,
}

/// Wrapper names: short enough that `regio_tl(ID,` fits where
/// `omp_test_lock(` stood for ids below 10000, so no line grows.
const LOCK_TESTS: [(&str, &str, bool); 2] = [
    ("OMP_TEST_LOCK(", "regio_tl", false),
    ("OMP_TEST_NEST_LOCK(", "regio_tnl", true),
];

/// Where `pattern` (a `LOCK_TESTS` routine and its parenthesis) starts in
/// `canon[span]` as a name of its own, not the end of a longer one
/// (`my_omp_test_lock(`).
fn lock_test_calls<'s>(
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

fn stmt(item: &Item) -> Option<&Stmt> {
    match item {
        Item::Stmt(s) => Some(s),
        Item::Regio(_) | Item::Omp(_) => None,
    }
}

/// The arguments of a CALL as original text, split at top-level commas;
/// `after_callee` is the canonical offset just past the callee's name.
fn call_arguments(text: &str, s: &Stmt, after_callee: usize) -> Vec<String> {
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
fn mpi_aux(name: &str, args: &[String]) -> Map<String, Value> {
    let mut aux = Map::new();
    aux.insert("callee".into(), Value::from(name));
    aux.extend(mpi_routines::argument_aux(name, Spelling::AnyCase, args));
    aux
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

    /// Lock tests inside the expressions of statement `i` (the canonical
    /// `span` of it, in unit `unit`): regions measured through a wrapper call where the wrapper's
    /// text fits in the original's place; a warning where it does not.
    fn lock_tests_in(
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
                let widest = format!("{wrapper}(9999,");
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
                    kind: RegionKind::Omp("lock".to_string()),
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
}

/// Anchors of a procedure's execution part.
struct Anchors {
    /// Where the declarations go: before the first statement function or
    /// executable statement.
    decl_at: usize,
    /// Where the entry probe goes: before the first executable statement
    /// (statement functions stay first).
    enter_at: usize,
    /// ENTRY statements in the execution part.
    entries: Vec<usize>,
}

impl<'a> Planner<'a> {
    fn anchors(&mut self, u: usize, body: &[usize]) -> Anchors {
        let unit = &self.st.units[u];
        let mut arrays: HashSet<String> = HashSet::new();
        let mut scalars: HashSet<String> = HashSet::new();
        let mut first_stmt_fn: Option<usize> = None;
        let mut first_exec: Option<usize> = None;
        let mut last_spec: Option<usize> = None;
        for &i in body {
            if first_exec.is_some() {
                break;
            }
            if let Some(d) = &self.omp_dirs[i] {
                // Executable directives belong to the execution part: the
                // declarations and the entry probe go before them.
                if d.is_specification() {
                    last_spec = Some(i);
                } else {
                    first_exec = Some(i);
                }
                continue;
            }
            let Some(k) = self.kinds[i].as_ref() else {
                continue;
            };
            match k {
                Kind::Spec(Spec::Decl {
                    arrays: a,
                    scalars: s,
                }) => {
                    arrays.extend(a.iter().cloned());
                    scalars.extend(s.iter().cloned());
                    last_spec = Some(i);
                }
                Kind::Spec(_)
                | Kind::Include
                | Kind::Interface
                | Kind::TypeDef
                | Kind::EnumDef
                | Kind::DecDef => last_spec = Some(i),
                Kind::Assignment {
                    name,
                    simple_args: true,
                    pointer: false,
                } => {
                    let n = &name.upper;
                    let stmt_fn =
                        !arrays.contains(n) && (scalars.contains(n) || !unit.implicit_none);
                    if stmt_fn {
                        first_stmt_fn.get_or_insert(i);
                        last_spec = Some(i);
                    } else {
                        first_exec = Some(i);
                    }
                }
                k if k.is_executable() => first_exec = Some(i),
                _ => {}
            }
        }
        let spec_end = last_spec;
        let term = self.terminus(u);
        let mut entries = Vec::new();
        let mut exec_directive: Option<usize> = None;
        for &i in body {
            match &self.items[i] {
                Item::Stmt(_) => {
                    if let Some(Kind::Entry(_)) = self.kinds[i] {
                        if spec_end.is_some_and(|e| i < e) {
                            let host = self.unit_name(u);
                            self.warn(
                                i,
                                format!("ENTRY among the declarations of `{host}`: its calls are counted as calls of `{host}`"),
                            );
                        } else {
                            entries.push(i);
                        }
                    }
                }
                Item::Regio(_) => {
                    let exec = self
                        .dirs
                        .at
                        .get(&i)
                        .is_some_and(|d| d.command != Command::Skip);
                    if exec {
                        if spec_end.is_some_and(|e| i < e) {
                            self.directive_error(
                                i,
                                "`!$regio` directive among the declarations: it must follow them"
                                    .into(),
                            );
                        } else if exec_directive.is_none() {
                            exec_directive = Some(i);
                        }
                    }
                }
                Item::Omp(_) => {}
            }
        }
        let first_entry = entries.first().copied();
        let enter_at = [first_exec, first_entry, exec_directive]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(term);
        let decl_at = first_stmt_fn.map_or(enter_at, |f| f.min(enter_at));
        Anchors {
            decl_at,
            enter_at,
            entries,
        }
    }

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

impl<'a> Planner<'a> {
    /// Regions enclosing `item` in unit `u`, outermost first (with the
    /// statement's own call/io region last when `own`).
    fn chain(&self, u: usize, item: usize, own: bool) -> Vec<Key> {
        let mut found: Vec<(usize, Key)> = Vec::new();
        let mut c = self.st.cons_of[item];
        while let Some(ci) = c {
            let cons = &self.st.cons[ci];
            if cons.is_do() && self.ids.contains_key(&Key::Loop(ci)) {
                found.push((cons.start, Key::Loop(ci)));
            }
            c = cons.parent;
        }
        for r in self.users(u) {
            if r.begin < item && item < r.end && self.ids.contains_key(&Key::User(r.begin)) {
                found.push((r.begin, Key::User(r.begin)));
            }
        }
        found.sort_by_key(|(s, _)| *s);
        let mut out = Vec::new();
        if self.ids.contains_key(&Key::Unit(u)) {
            out.push(Key::Unit(u));
        }
        out.extend(found.into_iter().map(|(_, k)| k));
        if own && self.ids.contains_key(&Key::Stmt(item)) {
            out.push(Key::Stmt(item));
        }
        out
    }

    fn target_chain(&mut self, u: usize, from: usize, to: &JumpTo) -> Option<Vec<Key>> {
        Some(match to {
            JumpTo::Outside => Vec::new(),
            JumpTo::Label(l) => {
                let Some(&t) = self.st.labels.get(&(u, *l)) else {
                    self.error(from, format!("label {l} is not defined in this procedure"));
                    return None;
                };
                self.chain(u, t, false)
            }
            JumpTo::After(c) => self.chain(u, self.st.cons[*c].start, false),
            JumpTo::Next(c) => {
                let mut v = self.chain(u, self.st.cons[*c].start, false);
                if self.ids.contains_key(&Key::Loop(*c)) {
                    v.push(Key::Loop(*c));
                }
                v
            }
        })
    }

    /// The outermost region a jump leaves, if any.
    fn leaves(&mut self, u: usize, from: usize, to: &JumpTo) -> Option<Key> {
        let here = self.chain(u, from, true);
        let there = self.target_chain(u, from, to)?;
        let common = here
            .iter()
            .zip(there.iter())
            .take_while(|(a, b)| a == b)
            .count();
        if let Some(k) = there.get(common) {
            let what = match k {
                Key::User(b) => format!(
                    "user region `{}`",
                    self.dirs
                        .regions
                        .iter()
                        .find(|r| r.begin == *b)
                        .map_or("", |r| r.name.as_str())
                ),
                _ => "a loop region".to_string(),
            };
            let msg = format!("jump into {what} from outside it: its entry would not be recorded");
            if what.starts_with("user region") {
                self.directive_error(from, msg);
            } else {
                self.error(from, msg);
            }
            return None;
        }
        here.get(common).copied()
    }

    fn exit_target(&self, k: Key, var: bool) -> Target {
        match k {
            Key::Unit(_) if var => Target::Var,
            k => Target::Id(self.ids[&k]),
        }
    }

    /// The construct an EXIT or CYCLE refers to.
    fn construct_for(&mut self, item: usize, name: Option<&str>, need_do: bool) -> Option<usize> {
        let mut c = self.st.cons_of[item];
        while let Some(ci) = c {
            let cons = &self.st.cons[ci];
            let hit = match name {
                Some(n) => cons.name.as_deref() == Some(n),
                None => cons.is_do(),
            };
            if hit && (!need_do || cons.is_do()) {
                return Some(ci);
            }
            c = cons.parent;
        }
        let what = if need_do { "CYCLE" } else { "EXIT" };
        match name {
            Some(n) => self.error(
                item,
                format!("{what} names `{n}`, which is not an enclosing construct"),
            ),
            None => self.error(item, format!("{what} outside a DO loop")),
        }
        None
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

    /// The wrapper calls of the lock tests in `body`'s statements; returns
    /// which wrapper types the unit must declare (false: `regio_tl`, true:
    /// `regio_tnl`).
    fn lock_test_edits(&mut self, body: &[usize], used: &mut Vec<&'static str>) -> Vec<bool> {
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
                .push((t.range.clone(), format!("{wrapper}({id},")));
            if !used.contains(&wrapper) {
                used.push(wrapper);
                types.push(t.nest);
            }
        }
        self.lock_tests = tests;
        types
    }

    /// Labelled DO loops end at a labelled statement, possibly shared by
    /// several loops. When the terminal statement needs probes of its own,
    /// or an inner loop of a shared group is a region, every loop of the
    /// group gets a fresh label and its own CONTINUE after the terminal
    /// statement, so each loop's exit probe runs exactly when it finishes.
    fn label_terminals(&mut self, u: usize, loops: &[usize]) {
        let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
        for &c in loops {
            let cons = &self.st.cons[c];
            if cons.do_info().is_some_and(|d| d.label.is_some()) {
                groups.entry(cons.end).or_default().push(c);
            }
        }
        let mut terminals: Vec<usize> = groups.keys().copied().collect();
        terminals.sort_unstable();
        for t in terminals {
            let mut group = groups.remove(&t).unwrap_or_default();
            group.sort_by_key(|&c| self.st.cons[c].start);
            let region = |c: usize| self.ids.get(&Key::Loop(c)).copied();
            let relabel = self.edits[t].disturbs_terminal()
                || group.iter().skip(1).any(|&c| region(c).is_some());
            if !relabel {
                if let Some(id) = region(group[0]) {
                    self.edits[t]
                        .after
                        .push(Probe::new(Op::Exit(Target::Id(id))));
                }
                continue;
            }
            let mut closing = Vec::new();
            for &c in group.iter().rev() {
                let start = self.st.cons[c].start;
                let Some(l) = self.st.cons[c].do_info().and_then(|d| d.label.clone()) else {
                    continue;
                };
                let Some(s) = stmt(&self.items[start]) else {
                    continue;
                };
                let fresh = self.labels.fresh(u, l.canon.len());
                let range = s.orig_range(l.canon.clone());
                self.edits[start].relabel.push((range, fresh));
                // The DO's new terminal exists when the DO does.
                closing.push(Probe::labelled(fresh, Op::Continue).when(s.conditional));
                if let Some(id) = region(c) {
                    closing.push(Probe::new(Op::Exit(Target::Id(id))));
                }
            }
            self.edits[t].after.extend(closing);
            // The terminal's label stays only if something else uses it.
            let label = stmt(&self.items[t]).and_then(|s| s.label.as_ref().map(|l| l.value));
            if let Some(label) = label {
                let used_elsewhere = self.body(u).iter().any(|&i| {
                    if group.iter().any(|&c| self.st.cons[c].start == i) {
                        return false;
                    }
                    self.kinds[i]
                        .as_ref()
                        .is_some_and(|k| k.label_refs().iter().any(|r| r.value == label))
                });
                if !used_elsewhere {
                    self.edits[t].drop_label = true;
                }
            }
        }
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
