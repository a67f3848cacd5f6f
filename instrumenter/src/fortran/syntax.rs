//! What each statement is, from its canonical text.
//!
//! Fortran has no reserved words and, in fixed form, no significant
//! blanks, so statements are classified the way compilers do it: an
//! assignment is recognised first (a designator, then `=` at parenthesis
//! depth 0 with no comma after it at depth 0), everything else by its
//! leading keywords. Keywords are matched with optional blanks between
//! their words (`GO TO`, `END DO`); in free form a keyword must end at a
//! word boundary, in fixed form (blanks removed) it need not.

use std::ops::Range;

use super::scan::Stmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LabelRef {
    pub value: u32,
    /// Canonical range of the digits.
    pub canon: Range<usize>,
}

/// A name in canonical (upper-case) spelling and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Name {
    pub upper: String,
    pub canon: Range<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnitKind {
    Program,
    Subroutine,
    Function,
    Module,
    Submodule,
    BlockData,
    /// `module procedure name` in a submodule: a procedure body.
    SeparateProcedure,
}

impl UnitKind {
    pub fn word(self) -> &'static str {
        match self {
            UnitKind::Program => "PROGRAM",
            UnitKind::Subroutine => "SUBROUTINE",
            UnitKind::Function => "FUNCTION",
            UnitKind::Module => "MODULE",
            UnitKind::Submodule => "SUBMODULE",
            UnitKind::BlockData => "BLOCK DATA",
            UnitKind::SeparateProcedure => "PROCEDURE",
        }
    }

    /// Units with an execution part.
    pub fn is_procedure(self) -> bool {
        matches!(
            self,
            UnitKind::Program
                | UnitKind::Subroutine
                | UnitKind::Function
                | UnitKind::SeparateProcedure
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub kind: UnitKind,
    pub name: Option<Name>,
    pub pure: bool,
    pub elemental: bool,
    pub impure: bool,
    pub recursive: bool,
}

/// Block constructs other than DO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Construct {
    If,
    Select,
    Where,
    Forall,
    Associate,
    Block,
    Critical,
    Team,
}

impl Construct {
    pub fn word(self) -> &'static str {
        match self {
            Construct::If => "IF",
            Construct::Select => "SELECT",
            Construct::Where => "WHERE",
            Construct::Forall => "FORALL",
            Construct::Associate => "ASSOCIATE",
            Construct::Block => "BLOCK",
            Construct::Critical => "CRITICAL",
            Construct::Team => "CHANGE TEAM",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndOf {
    /// A bare `END`.
    Bare,
    Unit(UnitKind),
    Do,
    Construct(Construct),
    Interface,
    Type,
    Enum,
    /// DEC `STRUCTURE`, `UNION`, `MAP`.
    Dec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DoForm {
    Counted,
    While,
    Concurrent,
    Forever,
}

impl DoForm {
    pub fn word(self) -> &'static str {
        match self {
            DoForm::Counted | DoForm::Forever => "do",
            DoForm::While => "do while",
            DoForm::Concurrent => "do concurrent",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DoInfo {
    pub label: Option<LabelRef>,
    pub var: Option<Name>,
    pub form: DoForm,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Spec {
    Use,
    Implicit {
        none: bool,
    },
    /// Declared names, split into arrays and others (statement functions
    /// look like assignments to array elements).
    Decl {
        arrays: Vec<String>,
        scalars: Vec<String>,
    },
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    Header(Header),
    End {
        of: EndOf,
        name: Option<Name>,
    },
    Contains,
    Interface,
    TypeDef,
    EnumDef,
    DecDef,
    Entry(Name),
    Spec(Spec),
    Format,
    Data,
    Include,
    /// `name[(args)] = ...`; `simple_args`: the arguments are plain names
    /// (so it may be a statement function).
    Assignment {
        name: Name,
        simple_args: bool,
        pointer: bool,
    },
    Do {
        construct: Option<Name>,
        info: DoInfo,
    },
    Open {
        construct: Option<Name>,
        of: Construct,
    },
    Branch {
        of: Construct,
    },
    LogicalIf {
        action_at: usize,
        action: Box<Kind>,
    },
    ArithIf(Vec<LabelRef>),
    Goto(LabelRef),
    ComputedGoto(Vec<LabelRef>),
    AssignedGoto(Vec<LabelRef>),
    Return,
    Stop,
    Exit(Option<Name>),
    Cycle(Option<Name>),
    Continue,
    Call {
        callee: Name,
        alt: Vec<LabelRef>,
    },
    /// `word` is the lower-case statement keyword; `region`: one of the
    /// statements `--regions io` instruments.
    Io {
        word: &'static str,
        region: bool,
        jumps: Vec<LabelRef>,
        refs: Vec<LabelRef>,
    },
    Assign(LabelRef),
    Exec,
}

impl Kind {
    pub fn is_executable(&self) -> bool {
        matches!(
            self,
            Kind::Do { .. }
                | Kind::Open { .. }
                | Kind::LogicalIf { .. }
                | Kind::ArithIf(_)
                | Kind::Goto(_)
                | Kind::ComputedGoto(_)
                | Kind::AssignedGoto(_)
                | Kind::Return
                | Kind::Stop
                | Kind::Exit(_)
                | Kind::Cycle(_)
                | Kind::Continue
                | Kind::Call { .. }
                | Kind::Io { .. }
                | Kind::Assign(_)
                | Kind::Exec
                | Kind::Assignment { .. }
        )
    }

    /// Every label this statement refers to (jumps, formats, DO labels).
    pub fn label_refs(&self) -> Vec<&LabelRef> {
        match self {
            Kind::Do { info, .. } => info.label.iter().collect(),
            Kind::LogicalIf { action, .. } => action.label_refs(),
            Kind::ArithIf(v) | Kind::ComputedGoto(v) | Kind::AssignedGoto(v) => v.iter().collect(),
            Kind::Goto(l) | Kind::Assign(l) => vec![l],
            Kind::Call { alt, .. } => alt.iter().collect(),
            Kind::Io { jumps, refs, .. } => jumps.iter().chain(refs.iter()).collect(),
            _ => Vec::new(),
        }
    }
}

/// Reads canonical text.
pub(crate) struct Cursor<'s> {
    s: &'s [u8],
    pub i: usize,
    fixed: bool,
}

fn word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

impl<'s> Cursor<'s> {
    pub fn new(s: &'s str, i: usize, fixed: bool) -> Self {
        Cursor {
            s: s.as_bytes(),
            i,
            fixed,
        }
    }

    fn sp(&mut self) {
        while self.i < self.s.len() && self.s[self.i] == b' ' {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.sp();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn at_end(&mut self) -> bool {
        self.sp();
        self.i >= self.s.len()
    }

    /// Match `k` (upper case; a blank in `k` matches any number of blanks).
    fn kw(&mut self, k: &str) -> bool {
        let save = self.i;
        self.sp();
        for &c in k.as_bytes() {
            if c == b' ' {
                self.sp();
                continue;
            }
            if self.s.get(self.i) != Some(&c) {
                self.i = save;
                return false;
            }
            self.i += 1;
        }
        let last = k.as_bytes().last().copied().unwrap_or(b' ');
        if !self.fixed && word_byte(last) && self.s.get(self.i).is_some_and(|&c| word_byte(c)) {
            self.i = save;
            return false;
        }
        true
    }

    fn name(&mut self) -> Option<Name> {
        self.sp();
        let start = self.i;
        if !self.s.get(start).is_some_and(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        while self.i < self.s.len() && word_byte(self.s[self.i]) {
            self.i += 1;
        }
        Some(Name {
            upper: String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
            canon: start..self.i,
        })
    }

    fn label(&mut self) -> Option<LabelRef> {
        self.sp();
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i == start {
            return None;
        }
        let value = std::str::from_utf8(&self.s[start..self.i])
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(u32::MAX);
        Some(LabelRef {
            value,
            canon: start..self.i,
        })
    }

    /// A parenthesised group; returns the range inside the parentheses.
    fn group(&mut self) -> Option<Range<usize>> {
        self.group_of(b'(', b')')
    }

    fn group_of(&mut self, open: u8, close: u8) -> Option<Range<usize>> {
        let save = self.i;
        if !self.eat(open) {
            return None;
        }
        let inner = self.i;
        let mut depth = 1;
        let mut quote: Option<u8> = None;
        while self.i < self.s.len() {
            let c = self.s[self.i];
            self.i += 1;
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    b'\'' | b'"' => quote = Some(c),
                    c if c == open => depth += 1,
                    c if c == close => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(inner..self.i - 1);
                        }
                    }
                    _ => {}
                },
            }
        }
        self.i = save;
        None
    }

    /// Skip an optional kind/length selector: `(...)`, `*n` or `*(...)`.
    fn selector(&mut self) {
        if self.peek() == Some(b'(') {
            self.group();
        } else if self.peek() == Some(b'*') {
            self.i += 1;
            if self.peek() == Some(b'(') {
                self.group();
            } else {
                self.label();
            }
        }
    }
}

/// Ranges of `s[range]` split at commas at depth 0.
pub(crate) fn split_top(s: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut start = range.start;
    for k in range.clone() {
        let c = b[k];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b',' if depth == 0 => {
                    out.push(start..k);
                    start = k + 1;
                }
                _ => {}
            },
        }
    }
    out.push(start..range.end);
    out
}

/// Position of an assignment `=` (or `=>`) at depth 0, and whether a
/// comma follows it at depth 0 (then it is a DO statement, not an
/// assignment).
fn top_equals(s: &str) -> Option<(usize, bool, bool)> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut found: Option<(usize, bool)> = None;
    let mut comma_after = false;
    for k in 0..b.len() {
        let c = b[k];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b',' if depth == 0 && found.is_some() => comma_after = true,
                b'=' if depth == 0 && found.is_none() => {
                    let prev = if k > 0 { b[k - 1] } else { b' ' };
                    let next = b.get(k + 1).copied().unwrap_or(b' ');
                    if matches!(prev, b'=' | b'/' | b'<' | b'>') || next == b'=' {
                        continue;
                    }
                    found = Some((k, next == b'>'));
                }
                _ => {}
            },
        }
    }
    found.map(|(k, ptr)| (k, ptr, comma_after))
}

/// `s[..end]` is a variable designator: name, then subscripts, `%` parts
/// and coindices.
fn designator(s: &str, end: usize, fixed: bool) -> Option<(Name, Option<Range<usize>>)> {
    let mut c = Cursor::new(&s[..end], 0, fixed);
    let name = c.name()?;
    let mut first_args = None;
    let mut first = true;
    loop {
        match c.peek() {
            None => return Some((name, first_args)),
            Some(b'(') => {
                let g = c.group()?;
                if first {
                    first_args = Some(g);
                }
            }
            Some(b'[') => {
                c.group_of(b'[', b']')?;
            }
            Some(b'%') => {
                c.i += 1;
                c.name()?;
                first_args = None;
            }
            _ => return None,
        }
        first = false;
    }
}

/// Canonical index of a parenthesis that has no partner, if any.
pub(crate) fn unbalanced_paren(s: &str) -> Option<usize> {
    let mut open: Vec<usize> = Vec::new();
    let mut quote: Option<u8> = None;
    for (k, c) in s.bytes().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' => open.push(k),
                b')' => {
                    open.pop()?;
                }
                _ => {}
            },
        }
    }
    open.first().copied()
}

/// Like [`unbalanced_paren`], also reporting a `)` without `(`.
pub(crate) fn paren_error(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    for (k, c) in s.bytes().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth < 0 {
                        return Some(k);
                    }
                }
                _ => {}
            },
        }
    }
    if depth > 0 {
        unbalanced_paren(s)
    } else {
        None
    }
}

pub(crate) fn classify(st: &Stmt, fixed: bool) -> Kind {
    classify_at(&st.canon, 0, fixed, true)
}

fn classify_at(s: &str, at: usize, fixed: bool, full: bool) -> Kind {
    let mut c = Cursor::new(s, at, fixed);
    // A construct name: `NAME:` (not `::`).
    if full {
        let save = c.i;
        if let Some(n) = c.name() {
            if c.peek() == Some(b':') && c.s.get(c.i + 1) != Some(&b':') {
                c.i += 1;
                return construct_stmt(&mut c, Some(n));
            }
        }
        c.i = save;
    }
    if let Some(k) = assignment(s, at, fixed) {
        return k;
    }
    keyword_stmt(&mut c, full)
}

fn assignment(s: &str, at: usize, fixed: bool) -> Option<Kind> {
    let (eq, pointer, comma_after) = top_equals(&s[at..])?;
    if comma_after && !pointer {
        return None;
    }
    let (name, args) = designator(&s[at..], eq, fixed).map(|(n, a)| {
        let shift = |r: Range<usize>| r.start + at..r.end + at;
        (
            Name {
                upper: n.upper,
                canon: shift(n.canon),
            },
            a.map(shift),
        )
    })?;
    let simple_args = match &args {
        Some(r) => split_top(s, r.clone()).iter().all(|a| {
            let t = s[a.clone()].trim();
            t.is_empty() || (t.as_bytes()[0].is_ascii_alphabetic() && t.bytes().all(word_byte))
        }),
        None => false,
    };
    Some(Kind::Assignment {
        name,
        simple_args,
        pointer,
    })
}

fn construct_stmt(c: &mut Cursor<'_>, name: Option<Name>) -> Kind {
    let save = c.i;
    if c.kw("DO") {
        if let Some(info) = do_stmt(c) {
            return Kind::Do {
                construct: name,
                info,
            };
        }
    }
    c.i = save;
    if c.kw("IF") && c.group().is_some() && c.kw("THEN") && c.at_end() {
        return Kind::Open {
            construct: name,
            of: Construct::If,
        };
    }
    c.i = save;
    for (k, of) in [
        ("SELECT CASE", Construct::Select),
        ("SELECT TYPE", Construct::Select),
        ("SELECT RANK", Construct::Select),
        ("ASSOCIATE", Construct::Associate),
        ("CHANGE TEAM", Construct::Team),
    ] {
        if c.kw(k) && c.group().is_some() {
            return Kind::Open {
                construct: name,
                of,
            };
        }
        c.i = save;
    }
    for (k, of) in [("WHERE", Construct::Where), ("FORALL", Construct::Forall)] {
        if c.kw(k) && c.group().is_some() && c.at_end() {
            return Kind::Open {
                construct: name,
                of,
            };
        }
        c.i = save;
    }
    if c.kw("BLOCK") && c.at_end() {
        return Kind::Open {
            construct: name,
            of: Construct::Block,
        };
    }
    c.i = save;
    if c.kw("CRITICAL") {
        c.group();
        if c.at_end() {
            return Kind::Open {
                construct: name,
                of: Construct::Critical,
            };
        }
    }
    c.i = save;
    Kind::Exec
}

fn do_stmt(c: &mut Cursor<'_>) -> Option<DoInfo> {
    let label = c.label();
    if label.is_some() {
        c.eat(b',');
    }
    if c.at_end() {
        return Some(DoInfo {
            label,
            var: None,
            form: DoForm::Forever,
        });
    }
    let save = c.i;
    if c.kw("WHILE") && c.group().is_some() && c.at_end() {
        return Some(DoInfo {
            label,
            var: None,
            form: DoForm::While,
        });
    }
    c.i = save;
    if c.kw("CONCURRENT") && c.group().is_some() {
        return Some(DoInfo {
            label,
            var: None,
            form: DoForm::Concurrent,
        });
    }
    c.i = save;
    let var = c.name()?;
    if !c.eat(b'=') {
        return None;
    }
    Some(DoInfo {
        label,
        var: Some(var),
        form: DoForm::Counted,
    })
}

/// Prefixes of a FUNCTION or SUBROUTINE statement, then the statement.
fn header(c: &mut Cursor<'_>) -> Option<Header> {
    let mut h = Header {
        kind: UnitKind::Subroutine,
        name: None,
        pure: false,
        elemental: false,
        impure: false,
        recursive: false,
    };
    let mut typed = false;
    loop {
        if c.kw("RECURSIVE") {
            h.recursive = true;
        } else if c.kw("NON_RECURSIVE") || c.kw("MODULE") || c.kw("SIMPLE") {
        } else if c.kw("PURE") {
            h.pure = true;
        } else if c.kw("IMPURE") {
            h.impure = true;
        } else if c.kw("ELEMENTAL") {
            h.elemental = true;
        } else if !typed && type_keyword(c) {
            typed = true;
        } else {
            break;
        }
    }
    if c.kw("FUNCTION") {
        h.kind = UnitKind::Function;
        h.name = Some(c.name()?);
        c.group()?;
        loop {
            if c.at_end() {
                return Some(h);
            }
            if (c.kw("RESULT") || c.kw("BIND")) && c.group().is_some() {
                continue;
            }
            return None;
        }
    }
    if typed {
        return None;
    }
    if c.kw("SUBROUTINE") {
        h.name = Some(c.name()?);
        c.group();
        if c.kw("BIND") {
            c.group()?;
        }
        return c.at_end().then_some(h);
    }
    None
}

/// A type specifier with its kind or length selector.
fn type_keyword(c: &mut Cursor<'_>) -> bool {
    for k in [
        "DOUBLE PRECISION",
        "DOUBLE COMPLEX",
        "INTEGER",
        "REAL",
        "COMPLEX",
        "LOGICAL",
        "CHARACTER",
        "BYTE",
    ] {
        if c.kw(k) {
            c.selector();
            return true;
        }
    }
    let save = c.i;
    if (c.kw("TYPE") || c.kw("CLASS")) && c.group().is_some() {
        return true;
    }
    c.i = save;
    false
}

fn end_stmt(c: &mut Cursor<'_>) -> Option<Kind> {
    let save = c.i;
    if c.kw("END FILE") {
        return Some(Kind::Io {
            word: "endfile",
            region: false,
            jumps: io_jumps(c).0,
            refs: Vec::new(),
        });
    }
    c.i = save;
    const TABLE: &[(&str, EndOf)] = &[
        ("END DO", EndOf::Do),
        ("END IF", EndOf::Construct(Construct::If)),
        ("END SELECT", EndOf::Construct(Construct::Select)),
        ("END WHERE", EndOf::Construct(Construct::Where)),
        ("END FORALL", EndOf::Construct(Construct::Forall)),
        ("END ASSOCIATE", EndOf::Construct(Construct::Associate)),
        ("END BLOCK DATA", EndOf::Unit(UnitKind::BlockData)),
        ("END BLOCK", EndOf::Construct(Construct::Block)),
        ("END CRITICAL", EndOf::Construct(Construct::Critical)),
        ("END TEAM", EndOf::Construct(Construct::Team)),
        ("END INTERFACE", EndOf::Interface),
        ("END TYPE", EndOf::Type),
        ("END ENUM", EndOf::Enum),
        ("END STRUCTURE", EndOf::Dec),
        ("END UNION", EndOf::Dec),
        ("END MAP", EndOf::Dec),
        ("END PROGRAM", EndOf::Unit(UnitKind::Program)),
        ("END SUBROUTINE", EndOf::Unit(UnitKind::Subroutine)),
        ("END FUNCTION", EndOf::Unit(UnitKind::Function)),
        ("END SUBMODULE", EndOf::Unit(UnitKind::Submodule)),
        ("END MODULE", EndOf::Unit(UnitKind::Module)),
        ("END PROCEDURE", EndOf::Unit(UnitKind::SeparateProcedure)),
        ("END", EndOf::Bare),
    ];
    for (k, of) in TABLE {
        if c.kw(k) {
            let name = if *of == EndOf::Bare { None } else { c.name() };
            // `END CRITICAL (stat)`-like trailers do not exist; anything
            // left over means this was not an END statement.
            if c.at_end() {
                return Some(Kind::End { of: *of, name });
            }
            c.i = save;
        }
    }
    None
}

fn io_jumps(c: &mut Cursor<'_>) -> (Vec<LabelRef>, Vec<LabelRef>) {
    let mut jumps = Vec::new();
    let mut refs = Vec::new();
    let s = std::str::from_utf8(c.s).unwrap_or("");
    let Some(g) = c.group() else {
        return (jumps, refs);
    };
    for (pos, item) in split_top(s, g).into_iter().enumerate() {
        let mut ic = Cursor::new(&s[..item.end], item.start, c.fixed);
        let save = ic.i;
        let spec = ic.name().filter(|_| ic.eat(b'='));
        match spec.as_ref().map(|n| n.upper.as_str()) {
            Some("ERR" | "END" | "EOR") => {
                if let Some(l) = ic.label().filter(|_| ic.at_end()) {
                    jumps.push(l);
                }
            }
            Some("FMT") => {
                if let Some(l) = ic.label().filter(|_| ic.at_end()) {
                    refs.push(l);
                }
            }
            Some(_) => {}
            None => {
                ic.i = save;
                if pos == 1 {
                    if let Some(l) = ic.label().filter(|_| ic.at_end()) {
                        refs.push(l);
                    }
                }
            }
        }
    }
    (jumps, refs)
}

fn io_stmt(c: &mut Cursor<'_>) -> Option<Kind> {
    let table: [(&str, &'static str, bool); 11] = [
        ("READ", "read", true),
        ("WRITE", "write", true),
        ("PRINT", "print", true),
        ("OPEN", "open", true),
        ("CLOSE", "close", true),
        ("INQUIRE", "inquire", true),
        ("BACKSPACE", "backspace", false),
        ("REWIND", "rewind", false),
        ("FLUSH", "flush", false),
        ("WAIT", "wait", false),
        ("ENDFILE", "endfile", false),
    ];
    for (k, word, region) in table {
        let save = c.i;
        if !c.kw(k) {
            continue;
        }
        if c.peek() == Some(b'(') {
            let (jumps, refs) = io_jumps(c);
            return Some(Kind::Io {
                word,
                region,
                jumps,
                refs,
            });
        }
        // `PRINT fmt, ...` / `READ fmt, ...` / `REWIND unit`.
        let mut refs = Vec::new();
        let at = c.i;
        if let Some(l) = c.label() {
            if matches!(word, "print" | "read") && (c.at_end() || c.eat(b',')) {
                refs.push(l);
            }
        }
        c.i = at;
        if c.at_end() && matches!(word, "print" | "read") {
            c.i = save;
            continue;
        }
        return Some(Kind::Io {
            word,
            region,
            jumps: Vec::new(),
            refs,
        });
    }
    None
}

fn goto_stmt(c: &mut Cursor<'_>) -> Option<Kind> {
    if !c.kw("GO TO") {
        return None;
    }
    let s = std::str::from_utf8(c.s).unwrap_or("");
    if let Some(g) = c.group() {
        let labels: Vec<LabelRef> = split_top(s, g)
            .into_iter()
            .filter_map(|r| {
                let mut lc = Cursor::new(&s[..r.end], r.start, c.fixed);
                lc.label().filter(|_| lc.at_end())
            })
            .collect();
        return Some(Kind::ComputedGoto(labels));
    }
    if let Some(l) = c.label() {
        if c.at_end() {
            return Some(Kind::Goto(l));
        }
        return None;
    }
    c.name()?;
    c.eat(b',');
    let mut labels = Vec::new();
    if let Some(g) = c.group() {
        for r in split_top(s, g) {
            let mut lc = Cursor::new(&s[..r.end], r.start, c.fixed);
            if let Some(l) = lc.label().filter(|_| lc.at_end()) {
                labels.push(l);
            }
        }
    }
    Some(Kind::AssignedGoto(labels))
}

fn call_stmt(c: &mut Cursor<'_>) -> Option<Kind> {
    let save = c.i;
    if !c.kw("CALL") {
        return None;
    }
    let s = std::str::from_utf8(c.s).unwrap_or("");
    let first = c.name().or_else(|| {
        c.i = save;
        None
    })?;
    let mut end = first.canon.end;
    loop {
        let at = c.i;
        if c.eat(b'%') {
            if let Some(n) = c.name() {
                end = n.canon.end;
                continue;
            }
        }
        c.i = at;
        break;
    }
    let callee = Name {
        upper: s[first.canon.start..end].replace(' ', ""),
        canon: first.canon.start..end,
    };
    let mut alt = Vec::new();
    if let Some(g) = c.group() {
        for r in split_top(s, g) {
            let mut ac = Cursor::new(&s[..r.end], r.start, c.fixed);
            if ac.eat(b'*') || ac.eat(b'&') {
                if let Some(l) = ac.label().filter(|_| ac.at_end()) {
                    alt.push(l);
                }
            }
        }
    }
    Some(Kind::Call { callee, alt })
}

/// Names declared by a type declaration's entity list (after the type).
fn entities(c: &mut Cursor<'_>, all_arrays: bool) -> (Vec<String>, Vec<String>) {
    let s = std::str::from_utf8(c.s).unwrap_or("");
    let mut arrays = Vec::new();
    let mut scalars = Vec::new();
    let rest = c.i..s.len();
    for r in split_top(s, rest) {
        let mut ec = Cursor::new(&s[..r.end], r.start, c.fixed);
        // COMMON block names between slashes.
        while ec.eat(b'/') {
            ec.name();
            ec.eat(b'/');
        }
        let Some(n) = ec.name() else { continue };
        let is_array = all_arrays || ec.peek() == Some(b'(') || ec.peek() == Some(b'[');
        if is_array {
            arrays.push(n.upper);
        } else {
            scalars.push(n.upper);
        }
        // A trailing `/blk/ name` (COMMON) after this entity.
        ec.group();
        while ec.eat(b'/') {
            ec.name();
            if ec.eat(b'/') {
                if let Some(n2) = ec.name() {
                    if ec.peek() == Some(b'(') || all_arrays {
                        arrays.push(n2.upper);
                    } else {
                        scalars.push(n2.upper);
                    }
                }
            }
        }
    }
    (arrays, scalars)
}

fn decl_stmt(c: &mut Cursor<'_>) -> Option<Kind> {
    let save = c.i;
    if type_keyword(c) {
        // `, attributes ::` or `::` or (F77) straight to the entities.
        let s = std::str::from_utf8(c.s).unwrap_or("");
        let mut dimension = false;
        let rest = &s[c.i..];
        if let Some(dc) = rest.find("::") {
            let attrs = &rest[..dc];
            dimension = split_top(attrs, 0..attrs.len())
                .iter()
                .any(|r| attrs[r.clone()].trim().starts_with("DIMENSION"));
            c.i += dc + 2;
        } else {
            c.eat(b',');
        }
        let (arrays, scalars) = entities(c, dimension);
        return Some(Kind::Spec(Spec::Decl { arrays, scalars }));
    }
    c.i = save;
    for k in [
        "DIMENSION",
        "COMMON",
        "ALLOCATABLE",
        "POINTER",
        "TARGET",
        "CODIMENSION",
    ] {
        if c.kw(k) {
            let all = k == "DIMENSION" || k == "CODIMENSION";
            if c.peek() == Some(b'(') && k == "POINTER" {
                // Cray pointer: `POINTER (p, x)`.
                return Some(Kind::Spec(Spec::Other));
            }
            let save2 = c.i;
            if c.kw("::") {
            } else {
                c.i = save2;
            }
            let (arrays, scalars) = entities(c, all);
            return Some(Kind::Spec(Spec::Decl {
                arrays,
                scalars: if k == "COMMON" { scalars } else { Vec::new() },
            }));
        }
    }
    None
}

const SPEC_WORDS: &[&str] = &[
    "USE",
    "IMPORT",
    "PARAMETER",
    "EQUIVALENCE",
    "EXTERNAL",
    "INTRINSIC",
    "SAVE",
    "NAMELIST",
    "INTENT",
    "OPTIONAL",
    "PUBLIC",
    "PRIVATE",
    "PROTECTED",
    "VOLATILE",
    "ASYNCHRONOUS",
    "VALUE",
    "BIND",
    "CONTIGUOUS",
    "PROCEDURE",
    "GENERIC",
    "FINAL",
    "ENUMERATOR",
    "SEQUENCE",
    "AUTOMATIC",
    "STATIC",
    "VIRTUAL",
    "RECORD",
    "OPTIONS",
    "ATTRIBUTES",
];

fn keyword_stmt(c: &mut Cursor<'_>, full: bool) -> Kind {
    let save = c.i;
    if full {
        if let Some(k) = end_stmt(c) {
            return k;
        }
        c.i = save;
        if let Some(h) = header(c) {
            return Kind::Header(h);
        }
        c.i = save;
        if c.kw("PROGRAM") {
            if let Some(n) = c.name().filter(|_| c.at_end()) {
                return Kind::Header(unit_header(UnitKind::Program, Some(n)));
            }
        }
        c.i = save;
        if c.kw("MODULE PROCEDURE") {
            if let Some(n) = c.name().filter(|_| c.at_end()) {
                return Kind::Header(unit_header(UnitKind::SeparateProcedure, Some(n)));
            }
            c.i = save;
            return Kind::Spec(Spec::Other);
        }
        c.i = save;
        if c.kw("MODULE") {
            if let Some(n) = c.name().filter(|_| c.at_end()) {
                return Kind::Header(unit_header(UnitKind::Module, Some(n)));
            }
        }
        c.i = save;
        if c.kw("SUBMODULE") && c.group().is_some() {
            if let Some(n) = c.name().filter(|_| c.at_end()) {
                return Kind::Header(unit_header(UnitKind::Submodule, Some(n)));
            }
        }
        c.i = save;
        if c.kw("BLOCK DATA") {
            let n = c.name();
            if c.at_end() {
                return Kind::Header(unit_header(UnitKind::BlockData, n));
            }
        }
        c.i = save;
        if c.kw("CONTAINS") && c.at_end() {
            return Kind::Contains;
        }
        c.i = save;
        if c.kw("ABSTRACT INTERFACE") || c.kw("INTERFACE") {
            return Kind::Interface;
        }
        c.i = save;
        if c.kw("ENTRY") {
            if let Some(n) = c.name() {
                return Kind::Entry(n);
            }
        }
        c.i = save;
        if c.kw("ENUMERATOR") {
            return Kind::Spec(Spec::Other);
        }
        if c.kw("ENUM") {
            return Kind::EnumDef;
        }
        if c.kw("STRUCTURE") || ((c.kw("UNION") || c.kw("MAP")) && c.at_end()) {
            return Kind::DecDef;
        }
        c.i = save;
        if (c.kw("TYPE IS") || c.kw("CLASS IS")) && c.group().is_some() {
            return Kind::Branch {
                of: Construct::Select,
            };
        }
        c.i = save;
        if c.kw("CLASS DEFAULT") || c.kw("RANK DEFAULT") || c.kw("CASE") {
            return Kind::Branch {
                of: Construct::Select,
            };
        }
        c.i = save;
        if c.kw("RANK") && c.group().is_some() {
            let after = c.i;
            c.name();
            if c.at_end() {
                return Kind::Branch {
                    of: Construct::Select,
                };
            }
            c.i = after;
        }
        c.i = save;
        if c.kw("TYPE") {
            match c.peek() {
                Some(b'(') => {}
                Some(b'*') => return Kind::Exec,
                _ => return Kind::TypeDef,
            }
        }
        c.i = save;
        if let Some(k) = decl_stmt(c) {
            return k;
        }
        c.i = save;
        if c.kw("IMPLICIT") {
            return Kind::Spec(Spec::Implicit { none: c.kw("NONE") });
        }
        for k in SPEC_WORDS {
            if c.kw(k) {
                return Kind::Spec(if *k == "USE" { Spec::Use } else { Spec::Other });
            }
        }
        if c.kw("FORMAT") && c.group().is_some() {
            return Kind::Format;
        }
        c.i = save;
        if c.kw("DATA") {
            return Kind::Data;
        }
        if c.kw("INCLUDE") && matches!(c.peek(), Some(b'\'' | b'"')) {
            return Kind::Include;
        }
        c.i = save;
        let k = construct_stmt(c, None);
        if k != Kind::Exec {
            return k;
        }
        c.i = save;
        if c.kw("ELSE IF") && c.group().is_some() && c.kw("THEN") {
            return Kind::Branch { of: Construct::If };
        }
        c.i = save;
        if c.kw("ELSE WHERE") {
            return Kind::Branch {
                of: Construct::Where,
            };
        }
        if c.kw("ELSE") {
            return Kind::Branch { of: Construct::If };
        }
        if c.kw("IF") {
            let s = std::str::from_utf8(c.s).unwrap_or("");
            if c.group().is_some() {
                let after = c.i;
                let mut labels = Vec::new();
                while let Some(l) = c.label() {
                    labels.push(l);
                    if !c.eat(b',') {
                        break;
                    }
                }
                if !labels.is_empty() && c.at_end() {
                    return Kind::ArithIf(labels);
                }
                c.i = after;
                c.sp();
                let action_at = c.i;
                let action = classify_at(s, action_at, c.fixed, false);
                return Kind::LogicalIf {
                    action_at,
                    action: Box::new(action),
                };
            }
            c.i = save;
        }
    }
    if let Some(k) = goto_stmt(c) {
        return k;
    }
    c.i = save;
    if c.kw("RETURN") {
        return Kind::Return;
    }
    if c.kw("ERROR STOP") || c.kw("STOP") {
        return Kind::Stop;
    }
    for (k, exit) in [("EXIT", true), ("CYCLE", false)] {
        if c.kw(k) {
            let n = c.name();
            if c.at_end() {
                return if exit { Kind::Exit(n) } else { Kind::Cycle(n) };
            }
            c.i = save;
        }
    }
    if c.kw("CONTINUE") && c.at_end() {
        return Kind::Continue;
    }
    c.i = save;
    if let Some(k) = call_stmt(c) {
        return k;
    }
    c.i = save;
    if c.kw("ASSIGN") {
        if let Some(l) = c.label() {
            if c.kw("TO") {
                return Kind::Assign(l);
            }
        }
    }
    c.i = save;
    if let Some(k) = io_stmt(c) {
        return k;
    }
    Kind::Exec
}

fn unit_header(kind: UnitKind, name: Option<Name>) -> Header {
    Header {
        kind,
        name,
        pure: false,
        elemental: false,
        impure: false,
        recursive: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str, fixed: bool) -> Kind {
        classify_at(s, 0, fixed, true)
    }

    #[test]
    fn assignments_versus_keywords_in_both_forms() {
        assert!(matches!(
            k("DO10I=1,10", true),
            Kind::Do {
                info: DoInfo {
                    label: Some(LabelRef { value: 10, .. }),
                    ..
                },
                ..
            }
        ));
        assert!(matches!(k("DO10I=1.10", true), Kind::Assignment { .. }));
        assert!(matches!(k("DO I = 1, N", false), Kind::Do { .. }));
        assert!(matches!(k("DOI = 1", false), Kind::Assignment { .. }));
        assert!(matches!(k("IF(X)A=B", true), Kind::LogicalIf { .. }));
        assert!(matches!(
            k("F(X, Y) = X+Y", false),
            Kind::Assignment {
                simple_args: true,
                ..
            }
        ));
        assert!(matches!(
            k("A(1:2) = 0", false),
            Kind::Assignment {
                simple_args: false,
                ..
            }
        ));
        assert!(matches!(
            k("INTEGER :: I = 1", false),
            Kind::Spec(Spec::Decl { .. })
        ));
        assert!(matches!(
            k("P => T", false),
            Kind::Assignment { pointer: true, .. }
        ));
    }

    #[test]
    fn headers_and_ends() {
        let Kind::Header(h) = k("RECURSIVE INTEGER FUNCTION FACT(N) RESULT(R)", false) else {
            panic!()
        };
        assert_eq!((h.kind, h.recursive), (UnitKind::Function, true));
        assert_eq!(h.name.map(|n| n.upper).as_deref(), Some("FACT"));
        let Kind::Header(h) = k("PUREELEMENTALREAL*8FUNCTIONSQ(X)", true) else {
            panic!()
        };
        assert!(h.pure && h.elemental);
        assert!(matches!(k("INTEGERFUNCTIONALITY", true), Kind::Spec(_)));
        assert!(matches!(k("ENDDO", true), Kind::End { of: EndOf::Do, .. }));
        assert!(matches!(
            k("END DO OUTER", false),
            Kind::End {
                of: EndOf::Do,
                name: Some(_)
            }
        ));
        assert!(matches!(
            k("ENDSUBROUTINE S", false),
            Kind::End {
                of: EndOf::Unit(UnitKind::Subroutine),
                ..
            }
        ));
        assert!(matches!(
            k("END", false),
            Kind::End {
                of: EndOf::Bare,
                ..
            }
        ));
        assert!(matches!(
            k("ENDFILE 10", false),
            Kind::Io {
                word: "endfile",
                ..
            }
        ));
        assert!(matches!(k("MODULE PROCEDURE FOO", false), Kind::Header(_)));
        assert!(matches!(k("TYPE, EXTENDS(B) :: T", false), Kind::TypeDef));
        assert!(matches!(k("TYPE(T) :: X", false), Kind::Spec(_)));
    }

    #[test]
    fn jumps_and_io() {
        assert_eq!(
            k("IF(N)10,20,30", true),
            Kind::ArithIf(vec![
                LabelRef {
                    value: 10,
                    canon: 5..7
                },
                LabelRef {
                    value: 20,
                    canon: 8..10
                },
                LabelRef {
                    value: 30,
                    canon: 11..13
                },
            ])
        );
        assert!(matches!(k("GOTO(10,20),I", true), Kind::ComputedGoto(v) if v.len() == 2));
        assert!(matches!(
            k("GO TO 10", false),
            Kind::Goto(LabelRef { value: 10, .. })
        ));
        assert!(matches!(k("GOTO I (10, 20)", false), Kind::AssignedGoto(v) if v.len() == 2));
        let Kind::Io {
            word, jumps, refs, ..
        } = k("READ (5, 100, END = 99, ERR=98) X", false)
        else {
            panic!()
        };
        assert_eq!(word, "read");
        assert_eq!(
            jumps.iter().map(|l| l.value).collect::<Vec<_>>(),
            vec![99, 98]
        );
        assert_eq!(refs.iter().map(|l| l.value).collect::<Vec<_>>(), vec![100]);
        let Kind::Call { callee, alt } = k("CALLSUB(A,*30,*40)", true) else {
            panic!()
        };
        assert_eq!(callee.upper, "SUB");
        assert_eq!(alt.len(), 2);
        let Kind::LogicalIf { action, .. } = k("IF (X > 0) EXIT OUTER", false) else {
            panic!()
        };
        assert!(matches!(*action, Kind::Exit(Some(_))));
        assert!(matches!(
            k("OUTER: DO WHILE (X)", false),
            Kind::Do {
                construct: Some(_),
                info: DoInfo {
                    form: DoForm::While,
                    ..
                }
            }
        ));
        assert!(matches!(
            k("PRINT *, X", false),
            Kind::Io { word: "print", .. }
        ));
        assert!(matches!(k("ERROR STOP 3", false), Kind::Stop));
    }
}
