//! One pass over the tree that creates the regions (ids in pre-order, so
//! parents come before children) and the edits that put probes around
//! them. All checks that can fail a file ran before this pass.

mod openmp;

use std::collections::{HashMap, HashSet, VecDeque};

use regio_idf::{Pos, Region, RegionKind};
use serde_json::{Map, Value};
use tree_sitter::{Node, TreeCursor};

use crate::diag::Diagnostic;
use crate::edit::Edit;
use crate::frontend::SourceInput;
use crate::mpi_routines::{self, Effect, Spelling};
use crate::small_functions;

use super::calls::{self, CallKind, CallRules, Form};
use super::directives::{Command, Directives};
use super::jumps::{break_target, JumpCache, JumpIn};
use super::mpi_capture::{self, CaptureText};
use super::probes;
use super::syntax::{
    function_name, is_loop, loop_keyword, loop_variable, returns_void, text, KindName, Lines,
};
use super::unreadable::Unreadable;

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
    /// Nothing is instrumented until the matching `EndQuiet` (target
    /// regions, SIMD loops, device functions); the reason lists the
    /// OpenMP directives met there as not measured.
    StartQuiet(&'static str),
    EndQuiet,
    /// An insertion made once the subtree entered before it is done, so
    /// that it follows that subtree's own insertions at the same offset
    /// and order (the text closing an OpenMP construct that is the
    /// unbraced body of a statement).
    InsertAfter(usize, String, i64),
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
    /// One cursor for listing every node's children: a new one allocates.
    cursor: TreeCursor<'t>,
    /// Why nothing is instrumented here, innermost last (empty: measure).
    quiet: Vec<&'static str>,
    /// OpenMP directives and small functions listed in the IDF but not
    /// measured; they get ids after every measured region (they are
    /// nobody's parent).
    unmeasured: Vec<Region>,
    /// Region ids of the first of alternative directives (in `#if`
    /// branches) for one statement, by its start byte: the others reuse
    /// them.
    alt_ids: HashMap<usize, Vec<u32>>,
    /// While emitting an alternative directive: the ids to reuse.
    replay: Option<VecDeque<u32>>,
    /// Function definitions compiled for the device (`declare target`).
    device_functions: HashSet<usize>,
    /// Which parts of the tree this walk may enter.
    scope: Scope<'a>,
    /// OpenMP directive lines the parser did not see (they stand where the
    /// grammar wants a statement), by the start of the statement they
    /// govern; taken when that statement is entered.
    hidden_omp: HashMap<usize, Vec<std::ops::Range<usize>>>,
}

/// An OpenMP directive line hidden from the parser because it is the
/// unbraced body of a statement (`for (...)` then `#pragma omp task`):
/// its line and the start of the statement it governs.
#[derive(Clone, Debug)]
pub(crate) struct HiddenOmp {
    pub(crate) line: std::ops::Range<usize>,
    pub(crate) statement: usize,
}

/// The parts of a tree one walk instruments.
#[derive(Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// Everything but the units the parser could not read.
    Except(&'a Unreadable),
    /// Only these byte ranges, sorted and disjoint (units recovered by a
    /// second reading), and the OpenMP directives that reading hid.
    Only(&'a [std::ops::Range<usize>], &'a [HiddenOmp]),
}

impl Scope<'_> {
    fn skips(&self, node: Node<'_>) -> bool {
        let span = node.byte_range();
        match self {
            Scope::Except(unreadable) => unreadable.covers(span),
            // Inside a range, or the file, an `#if` group or an ERROR node
            // on the way to one (a complete function the second reading
            // placed under a misread neighbour); never another node that
            // reaches out of the ranges.
            // (The ranges are sorted and disjoint.)
            Scope::Only(ranges, _) => {
                let first_after = ranges.partition_point(|r| r.end <= span.start);
                let overlapping = ranges.get(first_after).filter(|r| r.start < span.end);
                !overlapping.is_some_and(|r| {
                    (r.start <= span.start && span.end <= r.end)
                        || super::parse::is_container(node.kind_name())
                        || node.is_error()
                })
            }
        }
    }
}

pub(crate) fn walk(
    root: Node<'_>,
    input: &SourceInput<'_>,
    dirs: &Directives,
    macros: &HashSet<String>,
    lines: &Lines,
    jumps: &mut JumpCache,
    scope: Scope<'_>,
) -> Output {
    let hidden_omp = match scope {
        Scope::Only(_, hidden) => hidden,
        Scope::Except(_) => &[],
    };
    let mut by_statement: HashMap<usize, Vec<std::ops::Range<usize>>> = HashMap::new();
    for h in hidden_omp {
        by_statement
            .entry(h.statement)
            .or_default()
            .push(h.line.clone());
    }
    for lines in by_statement.values_mut() {
        lines.sort_by_key(|l| l.start);
    }
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
        cursor: root.walk(),
        quiet: Vec::new(),
        unmeasured: Vec::new(),
        alt_ids: HashMap::new(),
        replay: None,
        device_functions: openmp::device_functions(root, input.text),
        scope,
        hidden_omp: by_statement,
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
            Frame::Enter(n, _) | Frame::EnterOpaque(n, _) if w.scope.skips(n) => {}
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
            Frame::StartQuiet(why) => w.quiet.push(why),
            Frame::EndQuiet => {
                w.quiet.pop();
            }
            Frame::InsertAfter(offset, text, order) => w.insert(offset, text, order),
        }
    }
    for mut r in std::mem::take(&mut w.unmeasured) {
        r.id = input.first_id + w.regions.len() as u32;
        w.regions.push(r);
    }
    Output {
        regions: w.regions,
        edits: w.edits,
        warnings: w.warnings,
    }
}

impl<'t> Walker<'_, 't> {
    fn enter(&mut self, n: Node<'t>, depth: u32) {
        if n.is_named() && !matches!(n.kind_name(), "comment" | "ERROR") {
            if let Some(lines) = self.hidden_omp.remove(&n.start_byte()) {
                self.hidden_directives(n, &lines, depth);
            }
        }
        let kind = n.kind_name();
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
        // Pushed in order, then turned around in place so the first child
        // is entered first: no vector per node (this runs for every node).
        let first = self.stack.len();
        self.stack.extend(
            n.children(&mut self.cursor)
                .map(|k| Frame::Enter(k, depth + 1)),
        );
        self.stack[first..].reverse();
    }

    fn opaque_children(&mut self, n: Node<'t>, depth: u32) {
        self.opaque += 1;
        self.stack.push(Frame::EndOpaque);
        self.children(n, depth);
    }

    fn children_with_opaque_field(&mut self, n: Node<'t>, depth: u32, field: &str) {
        let first = self.stack.len();
        self.stack
            .extend(n.children(&mut self.cursor).enumerate().map(|(i, k)| {
                if n.field_name_for_child(i as u32) == Some(field) {
                    Frame::EnterOpaque(k, depth + 1)
                } else {
                    Frame::Enter(k, depth + 1)
                }
            }));
        self.stack[first..].reverse();
    }

    /// `static`/`extern` locals: their initializers must stay constant.
    fn has_static_storage(&self, decl: Node<'t>) -> bool {
        let mut c = decl.walk();
        let found = decl.children(&mut c).any(|k| {
            k.kind_name() == "storage_class_specifier"
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
        let region = self.region_here(id, kind, name, start, end, aux);
        self.regions.push(region);
        id
    }

    /// A region of this file, in the current function, under the
    /// innermost open region.
    pub(super) fn region_here(
        &self,
        id: u32,
        kind: RegionKind,
        name: &str,
        start: Pos,
        end: Pos,
        aux: Map<String, Value>,
    ) -> Region {
        Region {
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
        }
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
        if self.device_functions.contains(&def.id()) {
            // Compiled for the device: left as written.
            self.stack.push(Frame::EndQuiet);
            self.stack.push(Frame::Enter(body, depth + 1));
            self.stack
                .push(Frame::StartQuiet(super::omp::reason::DEVICE_FUNCTION));
            return;
        }
        let selected = self.input.selection.functions
            && !self.dirs.skipped.contains(&def.id())
            && self.input.filter.allows_region(&name);
        let after_brace = body.start_byte() + 1;
        let small = (selected && !self.input.selection.small_functions)
            .then(|| super::small::shape(&name, body, self.src, self.macros))
            .filter(small_functions::is_small);
        if let Some(shape) = small {
            // Listed, not measured: no probe, no parent for what is inside.
            let mut aux = Map::new();
            small_functions::mark(&mut aux, &shape);
            let region = self.region_here(
                0,
                RegionKind::Function,
                &name,
                self.lines.pos(definition_start(def, self.src)),
                self.lines.last(def),
                aux,
            );
            self.unmeasured.push(region);
        }
        if selected && small.is_none() {
            let kind = if name == "main" {
                RegionKind::Program
            } else {
                RegionKind::Function
            };
            let id = self.new_region(
                kind,
                &name,
                self.lines.pos(definition_start(def, self.src)),
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
        if !self.input.selection.loops
            || self.dirs.skipped.contains(&n.id())
            || !self.quiet.is_empty()
        {
            return;
        }
        if self.bound_loops.contains(&n.id()) {
            return;
        }
        let Some(def) = self.functions.last().map(|f| f.def) else {
            return;
        };
        let keyword = loop_keyword(n.kind_name());
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
        if n.kind_name() == "for_statement" {
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
        let target = if n.kind_name() == "goto_statement" {
            let label = n.child_by_field_name("label").map(|l| text(l, self.src));
            match (self.functions.last().map(|f| f.def), label) {
                (Some(def), Some(label)) => self.jumps.get(def, self.src).label(label),
                _ => None,
            }
        } else {
            let ancestors = &self.path[..self.path.len().saturating_sub(1)];
            break_target(n.kind_name() == "break_statement", ancestors).map(|t| t.start_byte())
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
            .filter(|a| a.kind_name() != "comment")
            .map(|a| super::syntax::squashed(a, self.src))
            .collect();
        aux.extend(mpi_routines::argument_aux(name, Spelling::Exact, &list));
    }

    /// Probe text handing an MPI call's argument values to the runtime.
    fn mpi_capture(&self, call: Node<'t>, id: u32, name: &str) -> CaptureText {
        let Some(args) = call.child_by_field_name("arguments") else {
            return CaptureText::default();
        };
        let mut c = args.walk();
        let list: Vec<Node<'t>> = args
            .named_children(&mut c)
            .filter(|a| a.kind_name() != "comment")
            .collect();
        mpi_capture::text(id, name, &list, self.src).unwrap_or_default()
    }

    fn call(&mut self, n: Node<'t>, depth: u32) {
        let sel = self.input.selection;
        if self.opaque > 0 || !self.quiet.is_empty() || !(sel.io || sel.calls || sel.mpi || sel.omp)
        {
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
            CallKind::Mpi => RegionKind::Mpi(mpi_routines::region_kind(&plan.name)),
            CallKind::OmpLock(k) => RegionKind::Omp(k),
        };
        let mut aux = Map::new();
        aux.insert("callee".into(), Value::from(plan.name.clone()));
        if plan.kind == CallKind::Mpi {
            self.mpi_aux(n, &plan.name, &mut aux);
        }
        // Lock regions are named like the other OpenMP regions,
        // `<routine>@<line>` (notes/OPENMP.md); calls keep the callee's name.
        let name = match plan.kind {
            CallKind::OmpLock(_) => format!("{}@{}", plan.name, self.lines.start(n).line),
            _ => plan.name.clone(),
        };
        let id = self.new_region(kind, &name, self.lines.start(n), self.lines.last(n), aux);
        // After MPI_Init returns, the runtime learns the rank from MPI;
        // before MPI_Abort, it writes what was measured (MPI_Abort does
        // not return, so the exit probe never runs).
        let effect = match plan.kind {
            CallKind::Mpi => mpi_routines::effect(&plan.name, Spelling::Exact),
            _ => Effect::None,
        };
        let after = if effect == Effect::StartsMpi {
            probes::MPI_CONFIRM_RANK
        } else {
            ""
        };
        // The argument values that name the call's messages.
        let capture = match plan.kind {
            CallKind::Mpi => self.mpi_capture(n, id, &plan.name),
            _ => CaptureText::default(),
        };
        let before = match effect {
            Effect::Aborts => probes::BEFORE_MPI_ABORT,
            Effect::EndsMpi => probes::BEFORE_MPI_FINALIZE,
            _ => capture.before.as_str(),
        };
        let record = capture.record.as_str();
        let (range, open, close) = match plan.form {
            Form::Statement(stmt) if is_block_item(stmt) => (
                stmt.byte_range(),
                probes::call_stmt_open(id, before, false),
                probes::call_stmt_close(id, record, after, false),
            ),
            // The body of an `if`, loop or label: braces would make it a
            // scope of its own, where an undeclared function would be
            // declared (and warned about) again; a comma expression keeps
            // it one statement without one.
            Form::Statement(_) if before.is_empty() && record.is_empty() && after.is_empty() => (
                n.byte_range(),
                probes::call_comma_open(id, before),
                probes::call_comma_close(id, record, after),
            ),
            Form::Statement(stmt) => (
                stmt.byte_range(),
                probes::call_stmt_open(id, before, true),
                probes::call_stmt_close(id, record, after, true),
            ),
            Form::Comma => (
                n.byte_range(),
                probes::call_comma_open(id, before),
                probes::call_comma_close(id, record, after),
            ),
            Form::Value => (
                n.byte_range(),
                probes::call_value_open(id, before, !after.is_empty() || !record.is_empty()),
                probes::call_value_close(id, record, after),
            ),
        };
        self.insert(range.start, open, opening(depth));
        self.insert(range.end, close, closing(depth));
        self.parents.push(id);
        self.stack.push(Frame::PopParent);
    }
}

/// Where definition `def` starts in the text: at its name when its type
/// is one a second reading wrote for an implicit-`int` definition (one
/// byte that is a blank or the end of a comment in the text; mask.rs).
fn definition_start(def: Node<'_>, src: &str) -> usize {
    let written = def.child_by_field_name("type").is_some_and(|t| {
        t.byte_range().len() == 1
            && src
                .as_bytes()
                .get(t.start_byte())
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/')
    });
    match def.child_by_field_name("declarator") {
        Some(d) if written => d.start_byte(),
        _ => def.start_byte(),
    }
}

/// Whether `stmt` stands in a block (or a `case` of one), where the probes
/// around it need no braces of their own. Braces would make a scope: an
/// undeclared function's implicit declaration would then be made (and
/// warned about) once per wrapped call instead of once.
fn is_block_item(stmt: Node<'_>) -> bool {
    let in_block = |n: Node<'_>| {
        n.parent()
            .is_some_and(|p| p.kind_name() == "compound_statement")
    };
    in_block(stmt)
        || stmt
            .parent()
            .is_some_and(|p| p.kind_name() == "case_statement" && in_block(p))
}
