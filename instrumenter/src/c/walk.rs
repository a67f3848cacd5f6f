//! One pass over the tree that creates the regions (ids in pre-order, so
//! parents come before children) and the edits that put probes around
//! them. All checks that can fail a file ran before this pass.

use std::collections::HashSet;
use std::fmt::Write as _;

use regio_idf::{Pos, Region, RegionKind};
use serde_json::{Map, Value};
use tree_sitter::Node;

use crate::diag::Diagnostic;
use crate::edit::Edit;
use crate::frontend::SourceInput;

use super::calls::{self, CallKind, CallRules, Form};
use super::directives::{Command, Directives};
use super::jumps::{break_target, JumpCache, JumpIn};
use super::omp::{self, Construct, Worksharing};
use super::probes;
use super::syntax::{
    function_name, is_loop, loop_keyword, loop_variable, returns_void, text, Lines,
};

/// Node kinds inside which no call is a region: nothing there is
/// evaluated at run time, or it must stay a constant expression, or it is
/// not an expression at all.
const NO_CALLS_INSIDE: &[&str] = &[
    "sizeof_expression",
    "alignof_expression",
    "offsetof_expression",
    "generic_expression",
    "gnu_asm_expression",
    "attribute_specifier",
    "attribute_declaration",
    "ms_declspec_modifier",
    "enumerator_list",
    "bitfield_clause",
    "field_declaration_list",
    "type_descriptor",
    "macro_type_specifier",
    "parameter_list",
    "array_declarator",
    // Elements of a brace initializer: must be constant in C90 and for
    // static data, and a lower-case "call" there is often a macro that
    // expands to a nested initializer.
    "initializer_list",
];

pub(crate) struct Output {
    pub(crate) regions: Vec<Region>,
    pub(crate) edits: Vec<Edit>,
    pub(crate) warnings: Vec<Diagnostic>,
}

struct Function<'t> {
    def: Node<'t>,
    name: String,
    returns_void: bool,
}

enum Frame<'t> {
    Enter(Node<'t>, u32),
    /// The subtree of the node last entered is done.
    Leave,
    /// Enter a subtree in which calls are not regions.
    EnterOpaque(Node<'t>, u32),
    PopParent,
    PopFunction,
    EndOpaque,
    EndMacroArgs,
}

/// Insertions at one offset: closing text of inner constructs first, then
/// opening text of outer constructs (a lower depth is further out).
fn opening(depth: u32) -> i64 {
    i64::from(depth)
}

fn closing(depth: u32) -> i64 {
    -(1_i64 << 40) - i64::from(depth)
}

/// Newlines of a replaced directive, so every later line keeps its number.
fn newlines_of(s: &str) -> String {
    let mut out = String::new();
    let mut prev_cr = false;
    for ch in s.chars() {
        if ch == '\n' {
            out.push_str(if prev_cr { "\r\n" } else { "\n" });
        }
        prev_cr = ch == '\r';
    }
    out
}

struct Walker<'a, 't> {
    src: &'a str,
    lines: &'a Lines,
    input: &'a SourceInput<'a>,
    dirs: &'a Directives,
    /// Function-like macro names: their "calls" are never regions.
    macros: &'a HashSet<String>,
    jumps: &'a mut JumpCache,
    regions: Vec<Region>,
    edits: Vec<Edit>,
    warnings: Vec<Diagnostic>,
    parents: Vec<u32>,
    functions: Vec<Function<'t>>,
    opaque: u32,
    /// Inside the arguments of a function-like macro: only MPI calls are
    /// regions there.
    macro_args: u32,
    /// Loops bound to a pragma on the line before them (OpenMP loop
    /// constructs, `#pragma GCC ivdep`, ...): nothing may stand between
    /// the two, so they get no loop region.
    bound_loops: HashSet<usize>,
    /// Region id of each checked user region (None when filtered out).
    user_ids: Vec<Option<u32>>,
    /// User regions open at this point of the walk: (span, id).
    open_users: Vec<(std::ops::Range<usize>, u32)>,
    /// Sorted starts of the user regions the filter keeps.
    kept_user_starts: Vec<usize>,
    /// Ancestors of the node being visited, and the node itself last.
    path: Vec<Node<'t>>,
    stack: Vec<Frame<'t>>,
}

pub(crate) fn walk(
    root: Node<'_>,
    input: &SourceInput<'_>,
    dirs: &Directives,
    macros: &HashSet<String>,
    lines: &Lines,
    jumps: &mut JumpCache,
) -> Output {
    let mut w = Walker {
        src: input.text,
        lines,
        input,
        dirs,
        macros,
        jumps,
        regions: Vec::new(),
        edits: Vec::new(),
        warnings: Vec::new(),
        parents: Vec::new(),
        functions: Vec::new(),
        opaque: 0,
        macro_args: 0,
        bound_loops: HashSet::new(),
        user_ids: vec![None; dirs.regions.len()],
        open_users: Vec::new(),
        kept_user_starts: Vec::new(),
        path: Vec::new(),
        stack: vec![Frame::Enter(root, 0)],
    };
    w.kept_user_starts = dirs
        .regions
        .iter()
        .filter(|r| input.filter.allows_region(&r.name))
        .map(|r| r.span.start)
        .collect();
    w.kept_user_starts.sort_unstable();
    while let Some(frame) = w.stack.pop() {
        match frame {
            Frame::Enter(n, depth) => {
                w.path.push(n);
                w.stack.push(Frame::Leave);
                w.enter(n, depth);
            }
            Frame::EnterOpaque(n, depth) => {
                w.opaque += 1;
                w.stack.push(Frame::EndOpaque);
                w.path.push(n);
                w.stack.push(Frame::Leave);
                w.enter(n, depth);
            }
            Frame::Leave => {
                w.path.pop();
            }
            Frame::PopParent => {
                w.parents.pop();
            }
            Frame::PopFunction => {
                w.functions.pop();
            }
            Frame::EndOpaque => w.opaque -= 1,
            Frame::EndMacroArgs => w.macro_args -= 1,
        }
    }
    Output {
        regions: w.regions,
        edits: w.edits,
        warnings: w.warnings,
    }
}

impl<'t> Walker<'_, 't> {
    fn enter(&mut self, n: Node<'t>, depth: u32) {
        let kind = n.kind();
        match kind {
            "function_definition" => self.function(n, depth),
            "preproc_call" => {
                if !self.pragma(n, depth) {
                    self.directive(n);
                }
            }
            "break_statement" | "continue_statement" | "goto_statement" => self.jump(n, depth),
            "call_expression" => {
                self.call(n, depth);
                if self.input.selection.mpi && calls::is_macro_call(n, self.src, self.macros) {
                    self.macro_args += 1;
                    self.stack.push(Frame::EndMacroArgs);
                    self.children(n, depth);
                } else if calls::args_are_opaque(n, self.src, self.macros) {
                    self.opaque_children(n, depth);
                } else {
                    self.children(n, depth);
                }
            }
            "case_statement" => self.children_with_opaque_field(n, depth, "value"),
            "preproc_if" | "preproc_elif" => self.children_with_opaque_field(n, depth, "condition"),
            "declaration" if self.has_static_storage(n) => self.opaque_children(n, depth),
            k if NO_CALLS_INSIDE.contains(&k) => self.opaque_children(n, depth),
            k => {
                if is_loop(k) {
                    self.instrument_loop(n, depth);
                }
                self.children(n, depth);
            }
        }
    }

    fn children(&mut self, n: Node<'t>, depth: u32) {
        let mut c = n.walk();
        let kids: Vec<Node<'t>> = n.children(&mut c).collect();
        for k in kids.into_iter().rev() {
            self.stack.push(Frame::Enter(k, depth + 1));
        }
    }

    fn opaque_children(&mut self, n: Node<'t>, depth: u32) {
        self.opaque += 1;
        self.stack.push(Frame::EndOpaque);
        self.children(n, depth);
    }

    fn children_with_opaque_field(&mut self, n: Node<'t>, depth: u32, field: &str) {
        let mut c = n.walk();
        let kids: Vec<(Node<'t>, bool)> = n
            .children(&mut c)
            .enumerate()
            .map(|(i, k)| (k, n.field_name_for_child(i as u32) == Some(field)))
            .collect();
        for (k, opaque) in kids.into_iter().rev() {
            self.stack.push(if opaque {
                Frame::EnterOpaque(k, depth + 1)
            } else {
                Frame::Enter(k, depth + 1)
            });
        }
    }

    /// `static`/`extern` locals: their initializers must stay constant.
    fn has_static_storage(&self, decl: Node<'t>) -> bool {
        let mut c = decl.walk();
        let found = decl.children(&mut c).any(|k| {
            k.kind() == "storage_class_specifier"
                && matches!(
                    text(k, self.src),
                    "static" | "extern" | "_Thread_local" | "thread_local" | "__thread"
                )
        });
        found
    }

    fn new_region(
        &mut self,
        kind: RegionKind,
        name: &str,
        start: Pos,
        end: Pos,
        aux: Map<String, Value>,
    ) -> u32 {
        let id = self.input.first_id + self.regions.len() as u32;
        self.regions.push(Region {
            id,
            kind,
            name: name.to_string(),
            file: self.input.rel_path.to_string(),
            unit: self
                .functions
                .last()
                .map(|f| f.name.clone())
                .unwrap_or_default(),
            start,
            end,
            parent: self.parents.last().copied(),
            aux,
        });
        id
    }

    fn insert(&mut self, offset: usize, text: impl Into<String>, order: i64) {
        self.edits
            .push(Edit::insert(offset, text).with_order(order));
    }

    fn warn(&mut self, offset: usize, msg: String) {
        let p = self.lines.pos(offset);
        self.warnings.push(Diagnostic::warning(
            self.input.display_path,
            p.line,
            p.col,
            msg,
        ));
    }

    fn function(&mut self, def: Node<'t>, depth: u32) {
        let Some(body) = def.child_by_field_name("body") else {
            return;
        };
        let name = function_name(def, self.src);
        self.functions.push(Function {
            def,
            name: name.clone(),
            returns_void: returns_void(def, self.src),
        });
        self.stack.push(Frame::PopFunction);
        let selected = self.input.selection.functions
            && !self.dirs.skipped.contains(&def.id())
            && self.input.filter.allows_region(&name);
        let after_brace = body.start_byte() + 1;
        if selected {
            let kind = if name == "main" {
                RegionKind::Program
            } else {
                RegionKind::Function
            };
            let id = self.new_region(
                kind,
                &name,
                self.lines.start(def),
                self.lines.last(def),
                Map::new(),
            );
            self.insert(after_brace, probes::guard(id), opening(depth));
            self.parents.push(id);
            self.stack.push(Frame::PopParent);
        } else if self.holds_user_region(body) {
            self.insert(after_brace, probes::scope_guard(), opening(depth));
        }
        // Only the body: calls in declarators and K&R parameter
        // declarations are not evaluated in the function.
        self.stack.push(Frame::Enter(body, depth + 1));
    }

    fn holds_user_region(&self, body: Node<'t>) -> bool {
        let range = body.byte_range();
        let first_after = self.kept_user_starts.partition_point(|&s| s < range.start);
        self.kept_user_starts
            .get(first_after)
            .is_some_and(|s| range.contains(s))
    }

    fn instrument_loop(&mut self, n: Node<'t>, depth: u32) {
        if !self.input.selection.loops || self.dirs.skipped.contains(&n.id()) {
            return;
        }
        if self.bound_loops.contains(&n.id()) {
            return;
        }
        let Some(def) = self.functions.last().map(|f| f.def) else {
            return;
        };
        let keyword = loop_keyword(n.kind());
        let start = self.lines.start(n);
        let name = format!("{keyword}@{}", start.line);
        if !self.input.filter.allows_region(&name) {
            return;
        }
        if let Some(jump) = self.jumps.get(def, self.src).jump_into(&n.byte_range()) {
            let why = match jump {
                JumpIn::Goto { goto_at, label } => format!(
                    "label `{label}` inside it is the target of the `goto` at {} outside it",
                    self.lines.pos(goto_at)
                ),
                JumpIn::Case { case_at, switch_at } => format!(
                    "the case label at {} inside it belongs to the `switch` at {} outside it",
                    self.lines.pos(case_at),
                    self.lines.pos(switch_at)
                ),
            };
            self.warn(
                n.start_byte(),
                format!("loop `{name}` not instrumented: {why}"),
            );
            return;
        }
        let mut aux = Map::new();
        aux.insert("loop".into(), Value::from(keyword));
        if n.kind() == "for_statement" {
            if let Some(v) = loop_variable(n, self.src) {
                aux.insert("var".into(), Value::from(v));
            }
        }
        let id = self.new_region(RegionKind::Loop, &name, start, self.lines.last(n), aux);
        self.insert(n.start_byte(), probes::loop_open(id), opening(depth));
        self.insert(n.end_byte(), probes::LOOP_CLOSE, closing(depth));
        self.parents.push(id);
        self.stack.push(Frame::PopParent);
    }

    fn directive(&mut self, n: Node<'t>) {
        let Some(&i) = self.dirs.at.get(&n.start_byte()) else {
            return;
        };
        let dirs = self.dirs;
        let d = &dirs.list[i];
        let kept = newlines_of(&self.src[d.range.clone()]);
        let probe = match &d.command {
            Command::Begin(name) => match dirs.begins.get(&i) {
                Some(&r) if self.input.filter.allows_region(name) => {
                    let end = self.lines.pos(dirs.regions[r].span.end - 1);
                    let id = self.new_region(
                        RegionKind::User,
                        name,
                        self.lines.pos(d.range.start),
                        end,
                        Map::new(),
                    );
                    self.user_ids[r] = Some(id);
                    self.parents.push(id);
                    self.open_users.push((dirs.regions[r].span.clone(), id));
                    probes::enter(id)
                }
                _ => String::new(),
            },
            Command::End(_) => match dirs.ends.get(&i).and_then(|&r| self.user_ids[r]) {
                Some(id) => {
                    self.parents.pop();
                    self.open_users.pop();
                    probes::exit(id)
                }
                None => String::new(),
            },
            Command::Disable => probes::DISABLE.to_string(),
            Command::Enable => probes::ENABLE.to_string(),
            Command::Skip => String::new(),
        };
        self.edits
            .push(Edit::replace(d.range.start, d.range.len(), probe + &kept));
    }

    /// `break`, `continue` or `goto` that leaves user regions closes them.
    fn jump(&mut self, n: Node<'t>, depth: u32) {
        let target = if n.kind() == "goto_statement" {
            let label = n.child_by_field_name("label").map(|l| text(l, self.src));
            match (self.functions.last().map(|f| f.def), label) {
                (Some(def), Some(label)) => self.jumps.get(def, self.src).label(label),
                _ => None,
            }
        } else {
            let ancestors = &self.path[..self.path.len().saturating_sub(1)];
            break_target(n.kind() == "break_statement", ancestors).map(|t| t.start_byte())
        };
        let Some(target) = target else { return };
        let at = n.start_byte();
        // Innermost first: the open regions are stacked outermost first.
        let ids: Vec<u32> = self
            .open_users
            .iter()
            .rev()
            .filter(|(span, _)| span.contains(&at) && !span.contains(&target))
            .map(|(_, id)| *id)
            .collect();
        if ids.is_empty() {
            return;
        }
        self.insert(at, probes::jump_open(&ids), opening(depth));
        self.insert(n.end_byte(), probes::JUMP_CLOSE, closing(depth));
    }

    /// `aux` of an MPI call: the communicator, peer and tag arguments as
    /// source text.
    fn mpi_aux(&self, call: Node<'t>, name: &str, aux: &mut Map<String, Value>) {
        let Some(args) = call.child_by_field_name("arguments") else {
            return;
        };
        let mut c = args.walk();
        let list: Vec<String> = args
            .named_children(&mut c)
            .filter(|a| a.kind() != "comment")
            .map(|a| super::syntax::squashed(a, self.src))
            .collect();
        for (key, i) in calls::mpi_peer_args(name) {
            if let Some(a) = list.get(*i) {
                aux.insert((*key).into(), Value::from(a.clone()));
            }
        }
        if let Some(comm) = list
            .iter()
            .rev()
            .find(|a| a.to_ascii_lowercase().contains("comm"))
        {
            aux.insert("comm".into(), Value::from(comm.clone()));
        }
    }

    fn call(&mut self, n: Node<'t>, depth: u32) {
        let sel = self.input.selection;
        if self.opaque > 0 || !(sel.io || sel.calls || sel.mpi || sel.omp) {
            return;
        }
        let Some(in_void) = self.functions.last().map(|f| f.returns_void) else {
            return;
        };
        let rules = CallRules {
            want_io: sel.io,
            want_calls: sel.calls,
            want_mpi: sel.mpi,
            want_omp: sel.omp,
            only_mpi: self.macro_args > 0,
            macros: self.macros,
        };
        let Some(plan) = calls::plan(&self.path, self.src, in_void, &rules) else {
            return;
        };
        if !self.input.filter.allows_region(&plan.name) {
            return;
        }
        let kind = match plan.kind {
            CallKind::Io => RegionKind::Io,
            CallKind::Call => RegionKind::Call,
            CallKind::Mpi => RegionKind::Mpi(calls::mpi_kind(&plan.name)),
            CallKind::OmpLock(k) => RegionKind::Omp(k.into()),
        };
        let mut aux = Map::new();
        aux.insert("callee".into(), Value::from(plan.name.clone()));
        if plan.kind == CallKind::Mpi {
            self.mpi_aux(n, &plan.name, &mut aux);
        }
        let id = self.new_region(
            kind,
            &plan.name,
            self.lines.start(n),
            self.lines.last(n),
            aux,
        );
        // After MPI_Init returns, the runtime learns the rank from MPI;
        // before MPI_Abort, it writes what was measured (MPI_Abort does
        // not return, so the exit probe never runs).
        let after = if plan.kind == CallKind::Mpi && calls::is_mpi_init(&plan.name) {
            probes::MPI_CONFIRM_RANK
        } else {
            ""
        };
        let before = if plan.kind == CallKind::Mpi && plan.name == "MPI_Abort" {
            probes::FLUSH_FIRST
        } else {
            ""
        };
        let (range, open, close) = match plan.form {
            Form::Statement(stmt) => (
                stmt.byte_range(),
                probes::call_stmt_open(id, before),
                probes::call_stmt_close(id, after),
            ),
            Form::Comma => (
                n.byte_range(),
                probes::call_comma_open(id, before),
                probes::call_comma_close(id, after),
            ),
            Form::Value => (
                n.byte_range(),
                probes::call_value_open(id, before),
                probes::call_value_close(id, after),
            ),
        };
        self.insert(range.start, open, opening(depth));
        self.insert(range.end, close, closing(depth));
        self.parents.push(id);
        self.stack.push(Frame::PopParent);
    }
}

/// Order of the text that closes OpenMP construct `k` of a chain of
/// directives on one statement (`parallel` then `for` ...): after the
/// statement's own closing text, inner directives first.
fn omp_closing(depth: u32, k: usize) -> i64 {
    closing(depth) + 3 - k.min(2) as i64
}

/// The argument of a `#pragma` line, None for other directives.
fn pragma_argument<'t>(n: Node<'t>, src: &'t str) -> Option<&'t str> {
    let d = n.child_by_field_name("directive")?;
    if text(d, src).trim_start_matches('#').trim() != "pragma" {
        return None;
    }
    Some(text(n.child_by_field_name("argument")?, src))
}

/// Whether `n` is an OpenMP directive with a body (so a directive before
/// it applies to it and the statement after it).
fn omp_with_body(n: Node<'_>, src: &str) -> bool {
    n.kind() == "preproc_call"
        && pragma_argument(n, src)
            .and_then(omp::parse)
            .is_some_and(|d| {
                !matches!(
                    d.construct(),
                    Construct::Barrier | Construct::Taskwait | Construct::Flush
                )
            })
}

fn next_code<'t>(n: Node<'t>) -> Option<Node<'t>> {
    let mut next = n.next_named_sibling();
    while let Some(k) = next {
        if k.kind() != "comment" {
            return Some(k);
        }
        next = k.next_named_sibling();
    }
    None
}

impl<'t> Walker<'_, 't> {
    /// The statement a directive applies to, looking through further
    /// OpenMP directives between them.
    fn pragma_statement(&self, n: Node<'t>) -> Option<Node<'t>> {
        let mut s = next_code(n)?;
        while omp_with_body(s, self.src) {
            s = next_code(s)?;
        }
        (s.kind() != "preproc_call").then_some(s)
    }

    /// How many OpenMP directives with a body stand right before `n`.
    fn chain_position(&self, n: Node<'t>) -> usize {
        let mut k = 0;
        let mut prev = n.prev_named_sibling();
        while let Some(p) = prev {
            if p.kind() == "comment" {
                prev = p.prev_named_sibling();
                continue;
            }
            if !omp_with_body(p, self.src) {
                break;
            }
            k += 1;
            prev = p.prev_named_sibling();
        }
        k
    }

    /// Marks the `count` perfectly nested loops starting at `s` as bound.
    fn bind_loops(&mut self, s: Node<'t>, count: usize) {
        let mut cur = Some(s);
        for _ in 0..count {
            let Some(l) = cur.filter(|l| is_loop(l.kind())) else {
                return;
            };
            self.bound_loops.insert(l.id());
            let mut body = l.child_by_field_name("body");
            while let Some(b) = body.filter(|b| b.kind() == "compound_statement") {
                body = b.named_child(0).filter(|_| b.named_child_count() == 1);
            }
            cur = body;
        }
    }

    /// Handles a `#pragma` line; false when it is not ours to handle
    /// (`#pragma regio` and pragmas we leave alone).
    fn pragma(&mut self, n: Node<'t>, depth: u32) -> bool {
        let Some(arg) = pragma_argument(n, self.src) else {
            return false;
        };
        let directive = omp::parse(arg);
        // Any pragma right before a loop binds it (`omp simd`, `GCC
        // unroll`, ...): a loop region's guard may not come between them.
        let bound = match &directive {
            Some(d) => d.bound_loops(),
            None if !arg.trim_start().to_ascii_lowercase().starts_with("regio") => 1,
            None => 0,
        };
        if bound > 0 {
            if let Some(s) = self.pragma_statement(n) {
                self.bind_loops(s, bound);
            }
        }
        let Some(d) = directive else {
            return false;
        };
        if !self.input.selection.omp || self.functions.is_empty() || self.opaque > 0 {
            return true;
        }
        self.omp_construct(n, &d, depth);
        true
    }

    fn omp_region(
        &mut self,
        kind: &str,
        name: &str,
        start: Pos,
        end: Pos,
        aux: &Map<String, Value>,
    ) -> u32 {
        self.new_region(RegionKind::Omp(kind.into()), name, start, end, aux.clone())
    }

    fn omp_construct(&mut self, n: Node<'t>, d: &omp::Directive, depth: u32) {
        let construct = d.construct();
        if construct == Construct::PassThrough {
            return;
        }
        let standalone = matches!(
            construct,
            Construct::Barrier | Construct::Taskwait | Construct::Flush
        );
        let stmt = if standalone {
            None
        } else {
            self.pragma_statement(n)
        };
        if !standalone && stmt.is_none() {
            self.warn(
                n.start_byte(),
                format!(
                    "`#pragma omp {}` is not followed by a statement; not instrumented",
                    d.words.join(" ")
                ),
            );
            return;
        }
        let line = self.lines.pos(n.start_byte()).line;
        let start = self.lines.pos(n.start_byte());
        let end = match stmt {
            Some(s) => self.lines.last(s),
            None => self
                .lines
                .pos(n.end_byte().saturating_sub(1).max(n.start_byte())),
        };
        let mut aux = Map::new();
        let clauses = omp::clause_texts(d);
        aux.insert("clauses".into(), Value::from(clauses.join(" ")));
        let word = d.words.join("_");
        let name = match (&construct, &d.name) {
            (Construct::Critical, Some(c)) => format!("critical({c})@{line}"),
            _ => format!("{}@{line}", d.words.join(" ").replace(' ', "_")),
        };
        let mut before = String::new();
        let mut after = String::new();
        let mut opened: Vec<u32> = Vec::new();
        let region = |w: &mut Self, kind: &str, rname: String, opened: &mut Vec<u32>| -> u32 {
            let id = w.omp_region(kind, &rname, start, end, &aux);
            opened.push(id);
            w.parents.push(id);
            id
        };
        let child = |w: &mut Self, kind: &str, what: &str| -> u32 {
            w.omp_region(kind, &format!("{what}@{line}"), start, end, &Map::new())
        };
        match construct {
            Construct::Parallel | Construct::ParallelWorksharing(_) => {
                let combined = matches!(construct, Construct::ParallelWorksharing(_));
                let p = region(self, "parallel", format!("parallel@{line}"), &mut opened);
                let f = child(self, "fork", "fork");
                let j = child(self, "join", "join");
                let ib = child(self, "implicit_barrier", "implicit_barrier");
                let team = format!("regio__team{p}");
                let (mut par_clauses, ws_clauses) = if combined {
                    omp::split_clauses(d)
                } else {
                    (clauses.clone(), Vec::new())
                };
                par_clauses.push(format!("firstprivate({team})"));
                let _ = write!(
                    before,
                    "{{ __UINT64_TYPE__ {team} = regio_omp_fork({p}u); {} {{ regio_omp_begin({team}, {f}u); ",
                    omp::pragma("parallel", &par_clauses)
                );
                let mut inner_after = String::new();
                if let Construct::ParallelWorksharing(ws) = construct {
                    let (kind, words) = match ws {
                        Worksharing::For { simd: false } => ("for", "for"),
                        Worksharing::For { simd: true } => ("for", "for simd"),
                        Worksharing::Sections => ("sections", "sections"),
                    };
                    let mut aux_ws = aux.clone();
                    aux_ws.insert("combined".into(), Value::from(d.words.join(" ")));
                    let w = self.omp_region(kind, &format!("{kind}@{line}"), start, end, &aux_ws);
                    opened.push(w);
                    self.parents.push(w);
                    let mut wc = ws_clauses;
                    if !wc.iter().any(|c| c.trim() == "nowait") {
                        wc.push("nowait".into());
                    }
                    let _ = write!(before, "regio_enter({w}u); {} ", omp::pragma(words, &wc));
                    let _ = write!(inner_after, " regio_exit({w}u);");
                }
                let _ = write!(
                    after,
                    "{inner_after} regio_enter({ib}u); _Pragma(\"omp barrier\") regio_exit({ib}u); regio_omp_end({team}, {j}u); }} regio_omp_join({team}); }}"
                );
            }
            Construct::Worksharing(ws) => {
                let kind = match ws {
                    Worksharing::For { .. } => "for",
                    Worksharing::Sections => "sections",
                };
                let w = region(self, kind, name.clone(), &mut opened);
                let nowait = d.has_clause("nowait");
                let ib = (!nowait).then(|| child(self, "implicit_barrier", "implicit_barrier"));
                let mut cl = clauses.clone();
                if !nowait {
                    cl.push("nowait".into());
                }
                let _ = write!(
                    before,
                    "{{ regio_enter({w}u); {} ",
                    omp::pragma(&d.words.join(" "), &cl)
                );
                let _ = write!(after, " regio_exit({w}u);");
                if let Some(ib) = ib {
                    let _ = write!(
                        after,
                        " regio_enter({ib}u); _Pragma(\"omp barrier\") regio_exit({ib}u);"
                    );
                }
                after.push_str(" }");
            }
            Construct::Section => {
                let s = region(self, "section", name.clone(), &mut opened);
                let _ = write!(
                    before,
                    "{} {{ regio_enter({s}u); ",
                    omp::pragma("section", &clauses)
                );
                let _ = write!(after, " regio_exit({s}u); }}");
            }
            Construct::Single => {
                let s = region(self, "single", name.clone(), &mut opened);
                let body = child(self, "single_body", "single_body");
                let keeps_barrier = d.has_clause("copyprivate");
                let nowait = d.has_clause("nowait");
                let ib = (!nowait && !keeps_barrier)
                    .then(|| child(self, "implicit_barrier", "implicit_barrier"));
                let mut cl = clauses.clone();
                if ib.is_some() {
                    cl.push("nowait".into());
                }
                let _ = write!(
                    before,
                    "{{ regio_enter({s}u); {} {{ regio_enter({body}u); ",
                    omp::pragma("single", &cl)
                );
                let _ = write!(after, " regio_exit({body}u); }} regio_exit({s}u);");
                if let Some(ib) = ib {
                    let _ = write!(
                        after,
                        " regio_enter({ib}u); _Pragma(\"omp barrier\") regio_exit({ib}u);"
                    );
                }
                after.push_str(" }");
            }
            Construct::Master | Construct::Masked => {
                let m = region(self, &word, name.clone(), &mut opened);
                let _ = write!(
                    before,
                    "{} {{ regio_enter({m}u); ",
                    omp::pragma(&d.words.join(" "), &clauses)
                );
                let _ = write!(after, " regio_exit({m}u); }}");
            }
            Construct::Critical | Construct::Ordered => {
                let kind = if construct == Construct::Critical {
                    "critical"
                } else {
                    "ordered"
                };
                let c = region(self, kind, name.clone(), &mut opened);
                let wait = child(self, &format!("{kind}_wait"), &format!("{kind}_wait"));
                let _ = write!(
                    before,
                    "{{ regio_enter({c}u); regio_enter({wait}u); {} {{ regio_exit({wait}u); ",
                    omp::pragma(&omp::words_of(d), &clauses)
                );
                let _ = write!(after, " }} regio_exit({c}u); }}");
            }
            Construct::Atomic | Construct::Taskgroup => {
                let a = region(self, &word, name.clone(), &mut opened);
                let _ = write!(
                    before,
                    "{{ regio_enter({a}u); {} ",
                    omp::pragma(&d.words.join(" "), &clauses)
                );
                let _ = write!(after, " regio_exit({a}u); }}");
            }
            Construct::Task => {
                let tc = region(
                    self,
                    "task_create",
                    format!("task_create@{line}"),
                    &mut opened,
                );
                let t = region(self, "task", name.clone(), &mut opened);
                let _ = write!(
                    before,
                    "{{ regio_enter({tc}u); {} {{ regio_enter({t}u); ",
                    omp::pragma("task", &clauses)
                );
                let _ = write!(after, " regio_exit({t}u); }} regio_exit({tc}u); }}");
            }
            Construct::Barrier | Construct::Taskwait | Construct::Flush => {
                let b = self.omp_region(&word, &name, start, end, &aux);
                let _ = write!(
                    before,
                    "{{ regio_enter({b}u); {} regio_exit({b}u); }}",
                    omp::pragma(&omp::words_of(d), &clauses)
                );
            }
            Construct::PassThrough => {}
        }
        // The directive line becomes `before` (same lines kept).
        let kept = newlines_of(&self.src[n.byte_range()]);
        self.edits.push(Edit::replace(
            n.start_byte(),
            n.end_byte() - n.start_byte(),
            before + &kept,
        ));
        if let Some(s) = stmt {
            let k = self.chain_position(n);
            self.insert(s.end_byte(), after, omp_closing(depth, k));
            // The construct's regions enclose the statement's: pop them
            // once the statement has been walked.
            let at = self
                .stack
                .iter()
                .rposition(|f| matches!(f, Frame::Enter(x, _) if x.id() == s.id()));
            match at {
                Some(i) => {
                    for _ in &opened {
                        self.stack.insert(i, Frame::PopParent);
                    }
                }
                None => {
                    for _ in &opened {
                        self.parents.pop();
                    }
                }
            }
        } else {
            for _ in &opened {
                self.parents.pop();
            }
        }
    }
}
