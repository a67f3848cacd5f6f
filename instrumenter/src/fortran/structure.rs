//! Program units and block constructs: which statement opens and closes
//! what, checked the way the compiler would (mismatched or missing END
//! statements are errors here, before any edit is made).

use std::collections::HashMap;

use crate::diag::{line_col, Diagnostic};

use super::scan::{Item, Stmt};
use super::syntax::{Construct, DoInfo, EndOf, Header, Kind, Spec, UnitKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Spec,
    Exec,
    Contains,
}

#[derive(Debug, Clone)]
pub(crate) struct Unit {
    pub kind: UnitKind,
    /// None for a main program without PROGRAM statement.
    pub header: Option<Header>,
    /// Item index of the header (or of the first statement).
    pub first: usize,
    /// Item index of the END statement.
    pub end: usize,
    pub contains: Option<usize>,
    /// The host (internal procedure) or module (module procedure).
    pub parent: Option<usize>,
    pub implicit_none: bool,
    pub has_use: bool,
    /// Statements outside any program unit with no END: an include file's
    /// fragment, left alone.
    pub fragment: bool,
    phase: Phase,
}

#[derive(Debug, Clone)]
pub(crate) enum ConsKind {
    Do(DoInfo),
    Other(Construct),
}

#[derive(Debug, Clone)]
pub(crate) struct Cons {
    pub kind: ConsKind,
    /// Upper-case construct name.
    pub name: Option<String>,
    /// Item index of the opening statement.
    pub start: usize,
    /// Item index of the END statement or of a labelled DO's terminal
    /// statement.
    pub end: usize,
    pub parent: Option<usize>,
    pub unit: usize,
    /// ELSE / ELSE IF / CASE ... statements, in order.
    pub branches: Vec<usize>,
}

impl Cons {
    pub fn is_do(&self) -> bool {
        matches!(self.kind, ConsKind::Do(_))
    }

    pub fn do_info(&self) -> Option<&DoInfo> {
        match &self.kind {
            ConsKind::Do(d) => Some(d),
            ConsKind::Other(_) => None,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Structure {
    pub units: Vec<Unit>,
    pub cons: Vec<Cons>,
    /// Per item: the innermost program unit.
    pub unit_of: Vec<Option<usize>>,
    /// Per item: the innermost construct the item lies inside.
    pub cons_of: Vec<Option<usize>>,
    /// Per item: inside an interface block, derived-type or enum definition.
    pub in_spec_block: Vec<bool>,
    /// Statement labels per unit.
    pub labels: HashMap<(usize, u32), usize>,
    pub warnings: Vec<Diagnostic>,
}

enum Frame {
    Unit(usize),
    Cons(usize),
    /// A DO terminated by a labelled statement.
    LabelDo(usize, u32),
    Interface,
    Type,
    Enum,
    Dec,
}

struct Builder<'a> {
    text: &'a str,
    file: &'a str,
    items: &'a [Item],
    kinds: &'a [Option<Kind>],
    s: Structure,
    stack: Vec<Frame>,
    errors: Vec<Diagnostic>,
}

fn stmt(item: &Item) -> Option<&Stmt> {
    match item {
        Item::Stmt(s) => Some(s),
        Item::Regio(_) | Item::Omp(_) => None,
    }
}

impl Builder<'_> {
    fn error_at(&mut self, off: usize, msg: String) {
        let (l, c) = line_col(self.text, off);
        self.errors.push(Diagnostic::error(self.file, l, c, msg));
    }

    fn line_of(&self, item: usize) -> u32 {
        line_col(self.text, self.items[item].start()).0
    }

    fn cur_unit(&self) -> Option<usize> {
        self.stack.iter().rev().find_map(|f| match f {
            Frame::Unit(u) => Some(*u),
            _ => None,
        })
    }

    fn cur_cons(&self) -> Option<usize> {
        match self.stack.last() {
            Some(Frame::Cons(c)) | Some(Frame::LabelDo(c, _)) => Some(*c),
            _ => None,
        }
    }

    fn describe(&self, c: usize) -> String {
        let cons = &self.s.cons[c];
        let what = match &cons.kind {
            ConsKind::Do(_) => "DO loop".to_string(),
            ConsKind::Other(k) => format!("{} construct", k.word()),
        };
        format!("{what} at line {}", self.line_of(cons.start))
    }

    fn unit_word(&self, u: usize) -> String {
        let unit = &self.s.units[u];
        match unit.header.as_ref().and_then(|h| h.name.as_ref()) {
            Some(n) => format!("{} {}", unit.kind.word(), n.upper),
            None => "main program".to_string(),
        }
    }

    fn new_unit(&mut self, idx: usize, kind: UnitKind, header: Option<Header>) -> usize {
        let parent = self.cur_unit();
        let inherited = parent.is_some_and(|p| self.s.units[p].implicit_none);
        self.s.units.push(Unit {
            kind,
            header,
            first: idx,
            end: idx,
            contains: None,
            parent,
            implicit_none: inherited,
            has_use: false,
            fragment: false,
            phase: Phase::Spec,
        });
        let u = self.s.units.len() - 1;
        self.stack.push(Frame::Unit(u));
        u
    }

    fn run(&mut self) {
        for idx in 0..self.items.len() {
            self.s.unit_of.push(self.cur_unit());
            self.s.cons_of.push(self.cur_cons());
            // Directives inside an interface body or a type definition
            // belong to what is declared there (`!$omp declare target` of
            // an interface's procedure), never to the enclosing unit.
            let declared = matches!(
                self.stack.last(),
                Some(Frame::Interface | Frame::Type | Frame::Enum | Frame::Dec)
            );
            self.s.in_spec_block.push(declared);
            let Some(st) = stmt(&self.items[idx]) else {
                continue;
            };
            let Some(kind) = self.kinds[idx].as_ref() else {
                continue;
            };
            // Conditional-compilation lines (`!$ `) are code with OpenMP:
            // their block constructs and labels count (an `!$omp do` binds
            // to a `!$ do` loop); program units, CONTAINS and the
            // specification part on them are left to the compiler.
            if st.conditional && (self.stack.is_empty() || !Self::structural(kind)) {
                continue;
            }
            if let Some(k) = super::syntax::paren_error(&st.canon) {
                self.error_at(
                    st.orig(k),
                    "unbalanced parentheses in this statement".into(),
                );
            }
            if self.spec_block(idx, kind) {
                self.s.in_spec_block[idx] = true;
                continue;
            }
            self.statement(idx, st, kind);
            if let Some(l) = st.label.as_ref() {
                // The END statement's label belongs to the unit it closes.
                if let Some(u) = self.s.unit_of[idx] {
                    if let Some(prev) = self.s.labels.insert((u, l.value), idx) {
                        let line = self.line_of(prev);
                        self.error_at(
                            l.range.start,
                            format!("label {} is already defined at line {line}", l.value),
                        );
                    }
                }
                self.terminate_label_dos(idx, st, l.value);
            }
        }
        self.finish();
    }

    /// Statements that open, continue or close a block construct (or end
    /// a labelled DO by their label), also read on conditional lines.
    fn structural(kind: &Kind) -> bool {
        match kind {
            Kind::Do { .. } | Kind::Open { .. } | Kind::Branch { .. } => true,
            Kind::End { of, .. } => matches!(of, EndOf::Do | EndOf::Construct(_)),
            k => k.is_executable(),
        }
    }

    /// Statements inside interface blocks and type definitions are not
    /// instrumented; only their nesting is followed.
    fn spec_block(&mut self, idx: usize, kind: &Kind) -> bool {
        let top = match self.stack.last() {
            Some(Frame::Interface) => 1,
            Some(Frame::Type) => 2,
            Some(Frame::Enum) => 3,
            Some(Frame::Dec) => 4,
            _ => 0,
        };
        if top == 0 {
            return false;
        }
        match (top, kind) {
            (1, Kind::Interface) => self.stack.push(Frame::Interface),
            (4, Kind::DecDef) => self.stack.push(Frame::Dec),
            (
                1,
                Kind::End {
                    of: EndOf::Interface,
                    ..
                },
            )
            | (
                2,
                Kind::End {
                    of: EndOf::Type, ..
                },
            )
            | (
                3,
                Kind::End {
                    of: EndOf::Enum, ..
                },
            )
            | (4, Kind::End { of: EndOf::Dec, .. }) => {
                self.stack.pop();
            }
            _ => {}
        }
        let _ = idx;
        true
    }

    fn statement(&mut self, idx: usize, st: &Stmt, kind: &Kind) {
        // Anything outside a program unit starts a main program without a
        // PROGRAM statement (or is a fragment meant for INCLUDE).
        if self.stack.is_empty() && !matches!(kind, Kind::Header(_)) {
            self.new_unit(idx, UnitKind::Program, None);
            self.s.unit_of[idx] = self.cur_unit();
        }
        if let Some(u) = self.cur_unit() {
            let unit = &mut self.s.units[u];
            match kind {
                Kind::Spec(Spec::Use) => unit.has_use = true,
                Kind::Spec(Spec::Implicit { none: true }) => unit.implicit_none = true,
                _ => {}
            }
            if unit.phase == Phase::Spec && kind.is_executable() {
                unit.phase = Phase::Exec;
            }
        }
        match kind {
            Kind::Header(h) => self.header(idx, st, h),
            Kind::End { of, name } => {
                self.end(idx, st, *of, name.as_ref().map(|n| n.upper.as_str()))
            }
            Kind::Contains => match self.stack.last() {
                Some(Frame::Unit(u)) if self.s.units[*u].phase != Phase::Contains => {
                    let u = *u;
                    self.s.units[u].contains = Some(idx);
                    self.s.units[u].phase = Phase::Contains;
                }
                Some(Frame::Cons(c)) | Some(Frame::LabelDo(c, _)) => {
                    let d = self.describe(*c);
                    self.error_at(st.start, format!("CONTAINS while the {d} is still open"));
                }
                _ => self.error_at(st.start, "unexpected CONTAINS statement".into()),
            },
            Kind::Interface => self.stack.push(Frame::Interface),
            Kind::TypeDef => self.stack.push(Frame::Type),
            Kind::EnumDef => self.stack.push(Frame::Enum),
            Kind::DecDef => self.stack.push(Frame::Dec),
            Kind::Do { construct, info } => {
                let c = self.open(
                    idx,
                    ConsKind::Do(info.clone()),
                    construct.as_ref().map(|n| n.upper.clone()),
                );
                match &info.label {
                    Some(l) => self.stack.push(Frame::LabelDo(c, l.value)),
                    None => self.stack.push(Frame::Cons(c)),
                }
            }
            Kind::Open { construct, of } => {
                let c = self.open(
                    idx,
                    ConsKind::Other(*of),
                    construct.as_ref().map(|n| n.upper.clone()),
                );
                self.stack.push(Frame::Cons(c));
            }
            Kind::Branch { of } => match self.stack.last() {
                Some(Frame::Cons(c)) if matches!(&self.s.cons[*c].kind, ConsKind::Other(k) if k == of) =>
                {
                    let c = *c;
                    self.s.cons[c].branches.push(idx);
                    self.s.cons_of[idx] = Some(c);
                }
                _ => {
                    let word = match of {
                        Construct::If => "ELSE",
                        Construct::Where => "ELSEWHERE",
                        _ => "CASE",
                    };
                    self.error_at(
                        st.start,
                        format!(
                            "{word} statement outside a matching {} construct",
                            of.word()
                        ),
                    );
                }
            },
            _ => {}
        }
    }

    fn open(&mut self, idx: usize, kind: ConsKind, name: Option<String>) -> usize {
        let parent = self.cur_cons();
        let unit = self.cur_unit().unwrap_or(0);
        if let Some(u) = self.cur_unit() {
            if self.s.units[u].phase == Phase::Spec {
                self.s.units[u].phase = Phase::Exec;
            }
        }
        self.s.cons.push(Cons {
            kind,
            name,
            start: idx,
            end: idx,
            parent,
            unit,
            branches: Vec::new(),
        });
        self.s.cons.len() - 1
    }

    fn header(&mut self, idx: usize, st: &Stmt, h: &Header) {
        let nested_ok = matches!(
            h.kind,
            UnitKind::Subroutine | UnitKind::Function | UnitKind::SeparateProcedure
        );
        match self.stack.last() {
            None => {}
            Some(Frame::Unit(u)) if nested_ok && self.s.units[*u].phase == Phase::Contains => {}
            Some(Frame::Unit(u)) => {
                let what = self.unit_word(*u);
                let line = self.line_of(self.s.units[*u].first);
                self.error_at(
                    st.start,
                    format!(
                        "{} statement inside {what} (line {line}): missing END or CONTAINS",
                        h.kind.word()
                    ),
                );
            }
            Some(Frame::Cons(c)) | Some(Frame::LabelDo(c, _)) => {
                let d = self.describe(*c);
                self.error_at(
                    st.start,
                    format!("{} statement while the {d} is still open", h.kind.word()),
                );
            }
            _ => {}
        }
        self.new_unit(idx, h.kind, Some(h.clone()));
        self.s.unit_of[idx] = self.cur_unit();
    }

    fn end(&mut self, idx: usize, st: &Stmt, of: EndOf, name: Option<&str>) {
        match of {
            EndOf::Bare | EndOf::Unit(_) => {
                // Constructs still open are the user's error; report the
                // innermost and unwind so one mistake gives one message.
                while let Some(Frame::Cons(c)) | Some(Frame::LabelDo(c, _)) = self.stack.last() {
                    let c = *c;
                    let d = self.describe(c);
                    self.error_at(
                        st.start,
                        format!("END of the program unit while the {d} is still open"),
                    );
                    self.stack.pop();
                }
                let Some(Frame::Unit(u)) = self.stack.last() else {
                    self.error_at(st.start, "END statement without a program unit".into());
                    return;
                };
                let u = *u;
                let unit_kind = self.s.units[u].kind;
                if let EndOf::Unit(k) = of {
                    if k != unit_kind {
                        let what = self.unit_word(u);
                        self.error_at(st.start, format!("END {} does not match {what}", k.word()));
                    }
                }
                if let (Some(n), Some(h)) = (
                    name,
                    self.s.units[u]
                        .header
                        .as_ref()
                        .and_then(|h| h.name.as_ref()),
                ) {
                    if n != h.upper {
                        let what = self.unit_word(u);
                        self.error_at(st.start, format!("END name `{n}` does not match {what}"));
                    }
                }
                self.s.units[u].end = idx;
                self.stack.pop();
            }
            EndOf::Do => match self.stack.last() {
                Some(Frame::Cons(c)) if self.s.cons[*c].is_do() => {
                    let c = *c;
                    self.close(idx, st, c, name);
                }
                Some(Frame::LabelDo(_, l)) if st.label.as_ref().is_some_and(|x| x.value == *l) => {
                    // A labelled END DO terminates its DO below.
                }
                _ => self.mismatch(st, "END DO"),
            },
            EndOf::Construct(k) => match self.stack.last() {
                Some(Frame::Cons(c)) if matches!(&self.s.cons[*c].kind, ConsKind::Other(x) if *x == k) =>
                {
                    let c = *c;
                    self.close(idx, st, c, name);
                }
                _ => self.mismatch(st, &format!("END {}", k.word())),
            },
            EndOf::Interface | EndOf::Type | EndOf::Enum | EndOf::Dec => {
                self.error_at(st.start, "END statement without a matching block".into());
            }
        }
    }

    fn close(&mut self, idx: usize, st: &Stmt, c: usize, name: Option<&str>) {
        let want = self.s.cons[c].name.clone();
        if name.is_some() && want.as_deref() != name || name.is_none() && want.is_some() {
            let d = self.describe(c);
            self.error_at(
                st.start,
                format!(
                    "construct name `{}` does not match the {d} (`{}`)",
                    name.unwrap_or(""),
                    want.unwrap_or_default()
                ),
            );
        }
        self.s.cons[c].end = idx;
        self.s.cons_of[idx] = Some(c);
        self.stack.pop();
    }

    fn mismatch(&mut self, st: &Stmt, what: &str) {
        let open = self.cur_cons().map(|c| self.describe(c));
        let msg = match open {
            Some(d) => format!("{what} does not match the open {d}"),
            None => format!("{what} without a matching opening statement"),
        };
        self.error_at(st.start, msg);
    }

    fn terminate_label_dos(&mut self, idx: usize, st: &Stmt, label: u32) {
        let mut closed = false;
        while let Some(Frame::LabelDo(c, l)) = self.stack.last() {
            if *l != label {
                break;
            }
            let c = *c;
            self.s.cons[c].end = idx;
            if !closed {
                self.s.cons_of[idx] = Some(c);
            }
            closed = true;
            self.stack.pop();
        }
        if !closed {
            let deeper = self.stack.iter().rev().find_map(|f| match f {
                Frame::LabelDo(c, l) if *l == label => Some(*c),
                _ => None,
            });
            if let Some(c) = deeper {
                let d = self.describe(c);
                let inner = self
                    .cur_cons()
                    .map(|x| self.describe(x))
                    .unwrap_or_default();
                self.error_at(
                    st.start,
                    format!("the {d} ends at label {label}, inside the {inner} that is still open"),
                );
            }
        }
    }

    fn finish(&mut self) {
        while let Some(f) = self.stack.pop() {
            match f {
                Frame::Unit(u) => {
                    if self.s.units[u].header.is_none() {
                        // No END: statements outside any unit (an include
                        // fragment). Left alone.
                        self.s.units[u].fragment = true;
                        self.s.units[u].end = self.items.len();
                        let first = self.s.units[u].first;
                        let has_exec = (first..self.items.len())
                            .any(|i| self.kinds[i].as_ref().is_some_and(|k| k.is_executable()));
                        if has_exec {
                            let (l, c) = line_col(self.text, self.items[first].start());
                            self.s.warnings.push(Diagnostic::warning(
                                self.file,
                                l,
                                c,
                                "statements outside a program unit and no END statement (an INCLUDE fragment?): left unchanged",
                            ));
                        }
                        continue;
                    }
                    let first = self.s.units[u].first;
                    let what = self.unit_word(u);
                    let at = self.items[first].start();
                    self.error_at(at, format!("{what} has no END statement"));
                }
                Frame::Cons(c) | Frame::LabelDo(c, _) => {
                    let d = self.describe(c);
                    let at = self.items[self.s.cons[c].start].start();
                    let msg = match f {
                        Frame::LabelDo(_, l) => {
                            format!("the {d} never reaches its terminal label {l}")
                        }
                        _ => format!("the {d} is never closed"),
                    };
                    self.error_at(at, msg);
                }
                Frame::Interface | Frame::Type | Frame::Enum | Frame::Dec => {
                    self.error_at(
                        self.text.len().saturating_sub(1),
                        "a block (INTERFACE, TYPE, ENUM) is never closed".into(),
                    );
                }
            }
        }
        // Errors were found in source order but units unwound last-first.
        self.errors.sort_by_key(|d| (d.line, d.col));
    }
}

pub(crate) fn build(
    text: &str,
    file: &str,
    items: &[Item],
    kinds: &[Option<Kind>],
) -> Result<Structure, Vec<Diagnostic>> {
    let mut b = Builder {
        text,
        file,
        items,
        kinds,
        s: Structure::default(),
        stack: Vec::new(),
        errors: Vec::new(),
    };
    b.run();
    if b.errors.is_empty() {
        Ok(b.s)
    } else {
        Err(b.errors)
    }
}
