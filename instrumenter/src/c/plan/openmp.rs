//! OpenMP directives during the walk: the statement(s) a directive applies
//! to (through further directives and `#if` branches), alternative
//! directives for one statement, the regions of each construct as its row
//! in `omp_constructs` lists them (their text: `c/omp_probes.rs`), and the
//! constructs listed but not measured.

use crate::c::syntax::KindName;
use std::collections::HashSet;

use regio_idf::{OmpKind, Pos, RegionKind};
use serde_json::{Map, Value};
use tree_sitter::Node;

use super::{closing, newlines_of, opening, Frame, Walker};
use crate::c::omp::{self, reason, Construct, Directive};
use crate::c::omp_probes;
use crate::c::probes;
use crate::c::syntax::{function_name, is_loop, text};
use crate::edit::Edit;
use crate::omp_clauses::{nested_reason, quiet_reason};
use crate::omp_constructs::{self, Aux, Lang, Name as RegionName, Nest, Presence, Probes, SlotIds};

mod ifdef;

/// Order of the text that closes OpenMP construct `k` of a chain of
/// directives on one statement (`parallel` then `for` ...): after the
/// statement's own closing text, inner directives first.
fn omp_closing(depth: u32, k: usize) -> i64 {
    closing(depth) + 3 - k.min(2) as i64
}

/// The argument of a `#pragma` line, None for other directives.
fn pragma_argument<'t>(n: Node<'t>, src: &'t str) -> Option<&'t str> {
    if n.kind_name() != "preproc_call" {
        return None;
    }
    let d = n.child_by_field_name("directive")?;
    if text(d, src).trim_start_matches('#').trim() != "pragma" {
        return None;
    }
    Some(text(n.child_by_field_name("argument")?, src))
}

/// The argument of a `#pragma` line given as text (`omp task ...`).
fn pragma_text(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("pragma")?;
    rest.starts_with(|c: char| c.is_ascii_whitespace())
        .then(|| rest.trim())
}

fn omp_directive(n: Node<'_>, src: &str) -> Option<Directive> {
    pragma_argument(n, src).and_then(omp::parse)
}

/// Whether `n` is an OpenMP directive with a body (so a directive before
/// it applies to it and the statement after it).
fn omp_with_body(n: Node<'_>, src: &str) -> bool {
    omp_directive(n, src).is_some_and(|d| d.has_body())
}

fn is_conditional(kind: &str) -> bool {
    matches!(kind, "preproc_if" | "preproc_ifdef")
}

/// `#elif`, `#elifdef`, `#else`: the further branches of a conditional.
fn is_alternative(kind: &str) -> bool {
    matches!(kind, "preproc_else" | "preproc_elif" | "preproc_elifdef")
}

fn next_code<'t>(n: Node<'t>) -> Option<Node<'t>> {
    let mut next = n.next_named_sibling();
    while let Some(k) = next {
        if k.kind_name() != "comment" {
            return Some(k);
        }
        next = k.next_named_sibling();
    }
    None
}

/// The `#if` / `#ifdef` a branch container belongs to.
fn chain_top(mut c: Node<'_>) -> Option<Node<'_>> {
    while is_alternative(c.kind_name()) {
        c = c.parent()?;
    }
    is_conditional(c.kind_name()).then_some(c)
}

/// The code after `n`, climbing out of a `#if` branch that ends after it
/// (the `#else` of a branch is not code after it).
fn after(n: Node<'_>) -> Option<Node<'_>> {
    let mut cur = n;
    loop {
        if let Some(k) = next_code(cur).filter(|k| !is_alternative(k.kind_name())) {
            return Some(k);
        }
        let p = cur.parent()?;
        if !(is_conditional(p.kind_name()) || is_alternative(p.kind_name())) {
            return None;
        }
        cur = chain_top(p)?;
    }
}

/// The items of one branch (the children that are not its condition, name
/// or further branches).
fn branch_items(c: Node<'_>) -> Vec<Node<'_>> {
    let mut cur = c.walk();
    let kids: Vec<(Node<'_>, Option<&str>)> = c
        .children(&mut cur)
        .enumerate()
        .map(|(i, k)| (k, c.field_name_for_child(i as u32)))
        .collect();
    kids.into_iter()
        .filter(|(k, field)| k.is_named() && field.is_none() && k.kind_name() != "comment")
        .map(|(k, _)| k)
        .collect()
}

/// First item of each branch of a conditional (None: an empty branch; a
/// missing `#else` is one).
fn branches(top: Node<'_>) -> Vec<Option<Node<'_>>> {
    let mut out = vec![branch_items(top).first().copied()];
    let mut alt = top.child_by_field_name("alternative");
    loop {
        match alt {
            Some(a) if a.kind_name() == "preproc_else" => {
                out.push(branch_items(a).first().copied());
                return out;
            }
            Some(a) => {
                out.push(branch_items(a).first().copied());
                alt = a.child_by_field_name("alternative");
            }
            None => {
                out.push(None);
                return out;
            }
        }
    }
}

/// The `#if` branches `n` lies in, up to the first node that is not a
/// branch: (chain, branch) ids. Two directives are alternatives when they
/// lie in different branches of one chain.
fn branch_path(n: Node<'_>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut a = n.parent();
    while let Some(c) = a.filter(|c| is_conditional(c.kind_name()) || is_alternative(c.kind_name()))
    {
        let Some(top) = chain_top(c) else { break };
        out.push((top.id(), c.id()));
        a = top.parent();
    }
    out
}

fn exclusive(a: &[(usize, usize)], b: &[(usize, usize)]) -> bool {
    a.iter()
        .any(|(t, c)| b.iter().any(|(t2, c2)| t == t2 && c != c2))
}

/// Tree depth of `n` (the root is 0).
fn depth_of(n: Node<'_>) -> u32 {
    let mut d = 0;
    let mut p = n.parent();
    while let Some(x) = p {
        d += 1;
        p = x.parent();
    }
    d
}

/// Function definitions compiled for the device: between `declare target`
/// (or `begin declare target`) and `end declare target`, or named in a
/// `declare target` list.
pub(super) fn device_functions(root: Node<'_>, src: &str) -> HashSet<usize> {
    fn visit<'t>(
        n: Node<'t>,
        src: &str,
        open: &mut usize,
        names: &mut HashSet<String>,
        defs: &mut Vec<(Node<'t>, bool)>,
    ) {
        let mut c = n.walk();
        let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
        for k in kids {
            match k.kind_name() {
                "preproc_call" => {
                    let Some(d) = omp_directive(k, src) else {
                        continue;
                    };
                    let w: Vec<&str> = d.words.iter().map(String::as_str).collect();
                    let target = w.contains(&"target");
                    match w.as_slice() {
                        ["end", "declare", "target"] => *open = open.saturating_sub(1),
                        ["begin", "declare", "target"] => *open += 1,
                        ["declare", ..] if target => {
                            let lists: Vec<&(String, String)> =
                                d.clauses.iter().filter(|(_, t)| t.contains('(')).collect();
                            let listed = lists
                                .iter()
                                .any(|(n, _)| matches!(n.as_str(), "" | "to" | "enter" | "link"));
                            if listed {
                                for (n, t) in lists {
                                    names.extend(crate::omp_clauses::clause_vars(n, t));
                                }
                            } else {
                                *open += 1;
                            }
                        }
                        _ => {}
                    }
                }
                "function_definition" => defs.push((k, *open > 0)),
                "preproc_if"
                | "preproc_ifdef"
                | "preproc_else"
                | "preproc_elif"
                | "preproc_elifdef"
                | "linkage_specification"
                | "declaration_list" => visit(k, src, open, names, defs),
                _ => {}
            }
        }
    }
    let mut open = 0;
    let mut names = HashSet::new();
    let mut defs = Vec::new();
    visit(root, src, &mut open, &mut names, &mut defs);
    defs.into_iter()
        .filter(|(def, inside)| *inside || names.contains(&function_name(*def, src)))
        .map(|(def, _)| def.id())
        .collect()
}

/// Where the regions of one directive lie.
#[derive(Clone, Copy)]
struct Site {
    start: Pos,
    end: Pos,
}

/// The directives that apply to one statement and how they relate.
struct Group<'t> {
    /// This directive's position among those that enclose each other
    /// (0: outermost).
    level: usize,
    /// Other directives at the same level in other `#if` branches.
    alternatives: Vec<(Node<'t>, Directive)>,
}

impl<'t> Walker<'_, 't> {
    /// The statements a directive applies to: the next statement, looking
    /// through further OpenMP directives with a body and into `#if`
    /// branches (one statement per branch).
    ///
    /// A directive in an `#if` group whose statement follows the `#endif`
    /// applies to it only where the group's condition can be repeated
    /// around the closing text (`ifdef.rs`).
    fn governed(&self, n: Node<'t>) -> Result<Vec<Node<'t>>, &'static str> {
        let levels = ifdef::levels(n, self.src)?;
        let stmts = self.governed_in_some_configuration(n)?;
        if let Some(last) = stmts.iter().map(|s| s.end_byte()).max() {
            ifdef::condition_holds(&levels, self.src, last)?;
        }
        Ok(stmts)
    }

    /// [`Self::governed`] without asking whether every configuration has
    /// the directive: the statements a pragma binds where it is compiled.
    fn governed_in_some_configuration(&self, n: Node<'t>) -> Result<Vec<Node<'t>>, &'static str> {
        let mut out = Vec::new();
        self.resolve(after(n), &mut out)?;
        let mut seen = HashSet::new();
        out.retain(|s| seen.insert(s.id()));
        Ok(out)
    }

    fn resolve(&self, x: Option<Node<'t>>, out: &mut Vec<Node<'t>>) -> Result<(), &'static str> {
        let x = x.ok_or(reason::NO_STATEMENT)?;
        if omp_with_body(x, self.src) {
            return self.resolve(after(x), out);
        }
        if is_conditional(x.kind_name()) {
            let mut inside = Vec::new();
            let mut empty = false;
            for first in branches(x) {
                match first {
                    Some(f) => self.resolve(Some(f), &mut inside)?,
                    None => empty = true,
                }
            }
            if empty {
                // A branch without code continues after the conditional:
                // the others may only hold directives leading there too.
                let mut past = Vec::new();
                self.resolve(after(x), &mut past)?;
                if inside
                    .iter()
                    .any(|s| !past.iter().any(|p| p.id() == s.id()))
                {
                    return Err(reason::AMBIGUOUS);
                }
                out.extend(past);
            } else {
                out.extend(inside);
            }
            return Ok(());
        }
        if x.kind_name().starts_with("preproc") {
            return Err(reason::NO_STATEMENT);
        }
        out.push(x);
        Ok(())
    }

    /// The OpenMP directives with a body next to `n` (in the run of
    /// directives, comments and `#if` blocks around it) that apply to the
    /// same statement, and `n`'s place among them.
    fn group(&self, n: Node<'t>, first: Node<'t>) -> Group<'t> {
        let mut top = n;
        while let Some(p) = top
            .parent()
            .filter(|p| is_conditional(p.kind_name()) || is_alternative(p.kind_name()))
        {
            top = chain_top(p).unwrap_or(p);
        }
        let around = |k: &Node<'t>| {
            matches!(k.kind_name(), "comment" | "preproc_call") || is_conditional(k.kind_name())
        };
        let mut window = vec![top];
        let mut p = top.prev_named_sibling();
        while let Some(k) = p.filter(around) {
            window.push(k);
            p = k.prev_named_sibling();
        }
        let mut q = top.next_named_sibling();
        while let Some(k) = q.filter(around) {
            window.push(k);
            q = k.next_named_sibling();
        }
        let mut members: Vec<(Node<'t>, Directive)> = Vec::new();
        let mut todo = window;
        while let Some(k) = todo.pop() {
            if is_conditional(k.kind_name()) || is_alternative(k.kind_name()) {
                let mut c = k.walk();
                todo.extend(k.named_children(&mut c));
                continue;
            }
            let Some(d) = omp_directive(k, self.src).filter(|d| d.has_body()) else {
                continue;
            };
            let same = self
                .governed(k)
                .ok()
                .and_then(|g| g.first().map(|s| s.id()))
                == Some(first.id());
            if same {
                members.push((k, d));
            }
        }
        members.sort_by_key(|(k, _)| k.start_byte());
        let path = branch_path(n);
        let level_of = |m: Node<'t>, mpath: &[(usize, usize)]| {
            members
                .iter()
                .filter(|(o, _)| o.start_byte() < m.start_byte())
                .filter(|(o, _)| !exclusive(&branch_path(*o), mpath))
                .count()
        };
        let level = level_of(n, &path);
        let alternatives = members
            .iter()
            .filter(|(o, _)| o.id() != n.id())
            .filter(|(o, _)| exclusive(&branch_path(*o), &path))
            .filter(|(o, _)| level_of(*o, &branch_path(*o)) == level)
            .cloned()
            .collect();
        Group {
            level,
            alternatives,
        }
    }

    /// Marks the `count` perfectly nested loops starting at `s` as bound;
    /// returns the body of the innermost one.
    fn bind_loops(&mut self, s: Node<'t>, count: usize) -> Option<Node<'t>> {
        let mut cur = Some(s);
        let mut innermost_body = None;
        for _ in 0..count {
            let l = cur.filter(|l| is_loop(l.kind_name()))?;
            self.bound_loops.insert(l.id());
            let body = l.child_by_field_name("body");
            innermost_body = body;
            let mut inner = body;
            while let Some(b) = inner.filter(|b| b.kind_name() == "compound_statement") {
                inner = b.named_child(0).filter(|_| b.named_child_count() == 1);
            }
            cur = inner;
        }
        innermost_body
    }

    /// Handles a `#pragma` line; false when it is not ours to handle
    /// (`#pragma regio` and pragmas we leave alone).
    pub(super) fn pragma(&mut self, n: Node<'t>, depth: u32) -> bool {
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
            for s in self.governed_in_some_configuration(n).unwrap_or_default() {
                self.bind_loops(s, bound);
            }
        }
        let Some(d) = directive else {
            return false;
        };
        if self.opaque > 0 {
            return true;
        }
        if let Some(&why) = self.quiet.last() {
            self.not_measured(n, &d, nested_reason(why));
            return true;
        }
        let omp = self.input.selection.omp;
        if self.functions.is_empty() {
            if omp {
                let why = match d.construct() {
                    Construct::NotMeasured { reason, .. } => reason,
                    _ => reason::OTHER,
                };
                self.not_measured(n, &d, why);
            }
            return true;
        }
        if !omp {
            // Still nothing inside target regions and SIMD loops.
            if let Some(why) = quiet_reason(d.construct()) {
                if let Ok(stmts) = self.governed(n) {
                    self.after_statements(&stmts, 0, Some(why));
                }
            }
            return true;
        }
        self.omp_construct(n, &d, depth);
        true
    }

    /// Lists `n` in the IDF, unmeasured, with `why` in `aux`.
    fn not_measured(&mut self, n: Node<'t>, d: &Directive, why: &'static str) {
        let last = match d.has_body().then(|| self.governed(n)) {
            Some(Ok(stmts)) => stmts.last().copied(),
            _ => None,
        };
        self.not_measured_at(n.byte_range(), d, why, last);
    }

    /// Lists the directive at `at` in the IDF, unmeasured, with `why` in
    /// `aux`; its region ends with `last`, the last statement it governs,
    /// if any.
    fn not_measured_at(
        &mut self,
        at: std::ops::Range<usize>,
        d: &Directive,
        why: &'static str,
        last: Option<Node<'t>>,
    ) {
        let start = self.lines.pos(at.start);
        let end = match last {
            Some(s) => self.lines.last(s),
            // The directive's last character, not the line end (a CR or
            // LF is past the longest line).
            None => {
                let text_end = at.start + self.src[at.clone()].trim_end().len();
                self.lines.pos(text_end.saturating_sub(1).max(at.start))
            }
        };
        let word = if d.words.is_empty() {
            "directive".to_string()
        } else {
            d.words.join("_")
        };
        let mut aux = Map::new();
        aux.insert(
            "clauses".into(),
            Value::from(omp::clause_texts(d).join(" ")),
        );
        aux.insert("not_measured".into(), Value::from(why));
        // Ids are given when the measured regions are all known.
        let name = format!("{word}@{}", start.line);
        let region = self.region_here(0, RegionKind::omp_directive(&word), &name, start, end, aux);
        self.unmeasured.push(region);
    }

    /// A new OpenMP region, or the next reused id of the first alternative.
    fn omp_region(
        &mut self,
        kind: OmpKind,
        name: &str,
        site: Site,
        aux: &Map<String, Value>,
    ) -> u32 {
        if let Some(q) = self.replay.as_mut() {
            return q.pop_front().unwrap_or(0);
        }
        self.new_region(
            RegionKind::Omp(kind),
            name,
            site.start,
            site.end,
            aux.clone(),
        )
    }

    /// [`Self::omp_region`] that encloses the statement's regions.
    fn open_region(
        &mut self,
        kind: OmpKind,
        name: String,
        site: Site,
        aux: &Map<String, Value>,
        opened: &mut Vec<u32>,
    ) -> u32 {
        let id = self.omp_region(kind, &name, site, aux);
        if self.replay.is_none() {
            opened.push(id);
            self.parents.push(id);
        }
        id
    }

    /// Whether a `cancel` / `cancellation point` for `what` lies in `s`: its
    /// construct must keep its own barrier (no `nowait` may be added).
    fn cancels(&self, stmts: &[Node<'t>], what: &str) -> bool {
        // Both directives read `cancel...` in the text: without the word
        // there is nothing to find, and no walk of the whole construct.
        let (Some(first), Some(last)) = (stmts.first(), stmts.last()) else {
            return false;
        };
        let span = first.start_byte()..last.end_byte().max(first.start_byte());
        if !self.src.get(span).is_some_and(|t| t.contains("cancel")) {
            return false;
        }
        let mut todo: Vec<Node<'t>> = stmts.to_vec();
        while let Some(k) = todo.pop() {
            if let Some(d) = omp_directive(k, self.src) {
                let cancel = matches!(
                    d.words.first().map(String::as_str),
                    Some("cancel" | "cancellation")
                );
                if cancel && d.has_clause(what) {
                    return true;
                }
            }
            let mut c = k.walk();
            todo.extend(k.named_children(&mut c));
        }
        false
    }

    /// After the statements `stmts` have been walked, pop `pops` parents;
    /// walk them without instrumenting when `quiet` says why.
    fn after_statements(&mut self, stmts: &[Node<'t>], pops: usize, quiet: Option<&'static str>) {
        // The first node holding the statements that is still to be walked.
        let mut x = stmts.first().copied();
        let mut at = None;
        while let Some(node) = x {
            at = self
                .stack
                .iter()
                .rposition(|f| matches!(f, Frame::Enter(k, _) if k.id() == node.id()));
            if at.is_some() {
                break;
            }
            x = node.parent();
        }
        let Some(i) = at else {
            for _ in 0..pops {
                self.parents.pop();
            }
            return;
        };
        for _ in 0..pops {
            self.stack.insert(i, Frame::PopParent);
        }
        if let Some(why) = quiet {
            // From here on: directives between this one and its statement
            // (`target` then `teams`) are inside it too.
            self.quiet.push(why);
            self.stack.insert(i, Frame::EndQuiet);
        }
    }

    fn omp_construct(&mut self, n: Node<'t>, d: &Directive, depth: u32) {
        let mut construct = d.construct();
        let stmts = if d.has_body() {
            let found = self.governed(n).and_then(|s| {
                if s.is_empty() {
                    Err(reason::NO_STATEMENT)
                } else {
                    Ok(s)
                }
            });
            match found {
                Ok(s) => s,
                Err(why) => {
                    if !matches!(construct, Construct::NotMeasured { .. }) {
                        let msg = if why == reason::NO_STATEMENT {
                            "it is not followed by a statement"
                        } else {
                            why
                        };
                        self.warn(
                            n.start_byte(),
                            format!("not measured: `#pragma omp {}` ({msg})", d.words.join(" ")),
                        );
                    }
                    self.not_measured(n, d, why);
                    return;
                }
            }
        } else {
            Vec::new()
        };
        let group = stmts.first().map(|s| self.group(n, *s));
        let mut rep = n;
        if let Some(g) = &group {
            let flags = self.cancel_flags(&stmts);
            let mine = shape(d, &flags);
            let differ = g.alternatives.iter().any(|(_, a)| shape(a, &flags) != mine);
            if differ {
                construct = Construct::NotMeasured {
                    reason: reason::ALTERNATIVES,
                    quiet: quiet_reason(construct).is_some(),
                };
            }
            for (a, _) in &g.alternatives {
                if a.start_byte() < rep.start_byte() {
                    rep = *a;
                }
            }
        }
        let level = group.as_ref().map_or(0, |g| g.level);
        if let Construct::NotMeasured { reason: why, quiet } = construct {
            self.not_measured(n, d, why);
            if quiet && rep.id() == n.id() && !stmts.is_empty() {
                self.after_statements(&stmts, 0, Some(nested_reason(why)));
            }
            return;
        }
        let replaying = rep.id() != n.id();
        if replaying {
            match self.alt_ids.get(&rep.start_byte()) {
                Some(ids) => self.replay = Some(ids.iter().copied().collect()),
                None => {
                    self.not_measured(n, d, reason::ALTERNATIVES);
                    return;
                }
            }
        }
        let first_region = self.regions.len();
        let emitted = self.emit(n.byte_range(), d, construct, &stmts);
        self.replay = None;
        let Emitted {
            before,
            after,
            opened,
            body_guard,
            quiet,
        } = emitted;
        // The directive line becomes `before` (same lines kept).
        let kept = newlines_of(&self.src[n.byte_range()]);
        self.edits.push(Edit::replace(
            n.start_byte(),
            n.end_byte() - n.start_byte(),
            before + &kept,
        ));
        if replaying {
            return;
        }
        if let Some(g) = group.as_ref().filter(|g| !g.alternatives.is_empty()) {
            let ids: Vec<u32> = self.regions[first_region..].iter().map(|r| r.id).collect();
            self.alt_ids.insert(n.start_byte(), ids);
            let alts: Vec<Value> = g
                .alternatives
                .iter()
                .map(|(a, ad)| {
                    let mut m = Map::new();
                    m.insert(
                        "line".into(),
                        Value::from(self.lines.pos(a.start_byte()).line),
                    );
                    m.insert("directive".into(), Value::from(omp::words_of(ad)));
                    m.insert(
                        "clauses".into(),
                        Value::from(omp::clause_texts(ad).join(" ")),
                    );
                    Value::Object(m)
                })
                .collect();
            if let Some(r) = self.regions.get_mut(first_region) {
                r.aux.insert("alternatives".into(), Value::Array(alts));
            }
        }
        // In an `#if` group whose statement follows the `#endif`: the
        // closing text under the same condition (`governed` checked that
        // this is exact).
        let levels = ifdef::levels(n, self.src).unwrap_or_default();
        let mut members = vec![n];
        if let Some(g) = &group {
            members.extend(g.alternatives.iter().map(|(a, _)| *a));
        }
        for s in &stmts {
            let sd = depth_of(*s).min(depth);
            let end = s.end_byte();
            let eol = ifdef::line_end_at(self.src, end);
            let line = self.lines.pos(end).line;
            let text = ifdef::around(&levels, &members, self.src, &after, line, eol)
                .unwrap_or_else(|| after.clone());
            self.insert(end, text, omp_closing(sd, level));
            if let Some(id) = body_guard {
                self.guard_loop_body(*s, d.bound_loops(), id);
            }
        }
        if stmts.is_empty() {
            for _ in &opened {
                self.parents.pop();
            }
        } else {
            self.after_statements(&stmts, opened.len(), quiet);
        }
    }

    /// The OpenMP directives on `lines` that the parser did not see,
    /// each the unbraced body of a statement (`for (...)` /
    /// `#pragma omp task` / `x++;`), all governing `s` (outermost first):
    /// each becomes the construct it is, exactly as before a statement in
    /// a block. Its text is one statement (`_Pragma` and its statement,
    /// braced when probes stand around it), so `s` stays the body it was;
    /// the directive line is replaced in place and the closing text
    /// follows `s`, so no line moves.
    pub(super) fn hidden_directives(
        &mut self,
        s: Node<'t>,
        lines: &[std::ops::Range<usize>],
        depth: u32,
    ) {
        let mut afters: Vec<String> = Vec::new();
        let mut pops = 0;
        let mut quiet_pushed = 0;
        for line in lines {
            let arg = pragma_text(&self.src[line.clone()]);
            let Some(d) = arg.and_then(omp::parse) else {
                continue;
            };
            let bound = d.bound_loops();
            if bound > 0 {
                self.bind_loops(s, bound);
            }
            if self.opaque > 0 || !d.has_body() {
                // A stand-alone directive cannot be a statement's body.
                continue;
            }
            if let Some(&why) = self.quiet.last() {
                self.not_measured_at(line.clone(), &d, nested_reason(why), Some(s));
                continue;
            }
            let construct = d.construct();
            if self.functions.is_empty() || !self.input.selection.omp {
                if let Some(why) = quiet_reason(construct) {
                    self.quiet.push(why);
                    quiet_pushed += 1;
                }
                continue;
            }
            if let Construct::NotMeasured { reason: why, quiet } = construct {
                self.not_measured_at(line.clone(), &d, why, Some(s));
                if quiet {
                    self.quiet.push(nested_reason(why));
                    quiet_pushed += 1;
                }
                continue;
            }
            let e = self.emit(line.clone(), &d, construct, &[s]);
            let kept = newlines_of(&self.src[line.clone()]);
            self.edits
                .push(Edit::replace(line.start, line.len(), e.before + &kept));
            if let Some(id) = e.body_guard {
                self.guard_loop_body(s, d.bound_loops(), id);
            }
            if let Some(why) = e.quiet {
                self.quiet.push(why);
                quiet_pushed += 1;
            }
            pops += e.opened.len();
            afters.push(e.after);
        }
        // Run after `s` and its subtree, in this order: the closing text
        // (inner constructs first; after `s`'s own closing text at the same
        // offset, before that of the statement holding `s`), then the
        // parents, then the quiet reasons.
        for _ in 0..quiet_pushed {
            self.stack.push(Frame::EndQuiet);
        }
        for _ in 0..pops {
            self.stack.push(Frame::PopParent);
        }
        if !afters.is_empty() {
            let after: String = afters.into_iter().rev().collect();
            self.stack
                .push(Frame::InsertAfter(s.end_byte(), after, closing(depth)));
        }
    }

    /// Per-statement facts that decide the form of the emitted text.
    fn cancel_flags(&self, stmts: &[Node<'t>]) -> [bool; 2] {
        [self.cancels(stmts, "for"), self.cancels(stmts, "sections")]
    }

    /// A guard for `id` as the first thing in the body of the innermost of
    /// the `count` loops bound at `s` (one visit per iteration).
    fn guard_loop_body(&mut self, s: Node<'t>, count: usize, id: u32) {
        let Some(body) = self.bind_loops(s, count.max(1)) else {
            return;
        };
        let d = depth_of(body);
        if body.kind_name() == "compound_statement" {
            self.insert(body.start_byte() + 1, probes::guard(id), opening(d));
        } else {
            self.insert(
                body.start_byte(),
                format!("{{ {} ", probes::guard(id)),
                opening(d.saturating_sub(1)),
            );
            self.insert(body.end_byte(), " }", closing(d.saturating_sub(1)));
        }
    }

    /// The regions of one construct (its row of `omp_constructs`) and its
    /// text before and after the statement.
    fn emit(
        &mut self,
        at: std::ops::Range<usize>,
        d: &Directive,
        construct: Construct,
        stmts: &[Node<'t>],
    ) -> Emitted {
        let mut e = Emitted {
            quiet: quiet_reason(construct),
            ..Emitted::default()
        };
        let Some(row) = omp_constructs::row(construct, &d.words, Lang::C) else {
            return e;
        };
        let start = self.lines.pos(at.start);
        let line = start.line;
        let end = match stmts.last() {
            Some(s) => self.lines.last(*s),
            None => self.lines.pos(at.end.saturating_sub(1).max(at.start)),
        };
        let site = Site { start, end };
        let mut aux = Map::new();
        aux.insert(
            "clauses".into(),
            Value::from(omp::clause_texts(d).join(" ")),
        );
        let mut aux_combined = aux.clone();
        aux_combined.insert("combined".into(), Value::from(d.words.join(" ")));
        let name = match (&construct, &d.name) {
            (Construct::Critical, Some(c)) => format!("critical({c})@{line}"),
            _ => format!("{}@{line}", d.words.join("_")),
        };
        let mut ids = SlotIds::default();
        for s in row.specs() {
            let present = match s.presence {
                Presence::Always | Presence::LoopBody => true,
                Presence::Barrier { kept_by, cancel } => {
                    !d.has_clause("nowait")
                        && !kept_by.is_some_and(|c| d.has_clause(c))
                        && !cancel.is_some_and(|w| self.cancels(stmts, w))
                }
            };
            if !present {
                continue;
            }
            let region_name = match s.name {
                RegionName::Directive => name.clone(),
                RegionName::Kind => format!("{}@{line}", s.kind),
            };
            let region_aux = match s.aux {
                Aux::Empty => Map::new(),
                Aux::Clauses => aux.clone(),
                Aux::Combined => aux_combined.clone(),
                Aux::Written if d.words.len() > 1 => aux_combined.clone(),
                Aux::Written => aux.clone(),
            };
            let id = if s.nest == Nest::Encloses {
                self.open_region(s.kind, region_name, site, &region_aux, &mut e.opened)
            } else {
                self.omp_region(s.kind, &region_name, site, &region_aux)
            };
            ids.set(s.slot, id);
            if s.probes == Probes::PerIteration {
                e.body_guard = Some(id);
            }
        }
        (e.before, e.after) = omp_probes::render(&row, d, &ids, |w| self.cancels(stmts, w));
        e
    }
}

/// What [`Walker::emit`] produced for one directive.
#[derive(Default)]
struct Emitted {
    before: String,
    after: String,
    /// Regions that enclose the statement's own regions.
    opened: Vec<u32>,
    /// Region entered once per iteration of the bound loops (taskloop).
    body_guard: Option<u32>,
    /// Why nothing inside the statement is instrumented, if so.
    quiet: Option<&'static str>,
}

/// What must agree between alternative directives for one statement so
/// they can share regions and the text after the statement.
fn shape(d: &Directive, cancel: &[bool; 2]) -> String {
    format!(
        "{:?} nowait={} copyprivate={} loops={} cancel={cancel:?}",
        d.construct(),
        d.has_clause("nowait"),
        d.has_clause("copyprivate"),
        d.bound_loops()
    )
}
