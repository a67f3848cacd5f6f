//! Where `goto`, `break`, `continue` and `case` labels go. Probes wrap code
//! in blocks and bracket user regions, so the front end must know which
//! jumps leave such a span (they need an exit probe) and which enter one
//! from outside (they would skip the entry probe).

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::syntax::{is_loop, preorder, text, KindName, Marks};

struct Goto {
    at: usize,
    label: String,
}

struct Case {
    at: usize,
    switch_at: usize,
}

/// Labels, gotos and case labels of one function definition (nested GNU
/// functions have their own).
#[derive(Default)]
pub(crate) struct FunctionJumps {
    labels: HashMap<String, Vec<usize>>,
    gotos: Vec<Goto>,
    cases: Vec<Case>,
}

/// A jump from outside a span to a place inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JumpIn {
    Goto { goto_at: usize, label: String },
    Case { case_at: usize, switch_at: usize },
}

impl FunctionJumps {
    pub(crate) fn build(def: Node<'_>, src: &str) -> Self {
        let mut j = FunctionJumps::default();
        let Some(body) = def.child_by_field_name("body") else {
            return j;
        };
        // A goto, a labelled statement that matters (one a goto names) or
        // a case label needs its keyword in the text, so a body without
        // them has none and needs no walk (the walk is most of a small
        // file's plan otherwise).
        let words = text(body, src);
        if !["goto", "case", "default"]
            .iter()
            .any(|w| words.contains(w))
        {
            return j;
        }
        // Every node the walk records holds a `:` (a label, a case) or a
        // `goto`, so it enters only nodes that hold one of them.
        let base = body.start_byte();
        let marks = Marks::new(
            words
                .match_indices([':', 'g'])
                .filter(|(k, m)| *m == ":" || words[*k..].starts_with("goto"))
                .map(|(k, _)| base + k),
        );
        preorder(body, |n, ancestors| match n.kind_name() {
            _ if !marks.within(n) => false,
            "function_definition" => false,
            "labeled_statement" => {
                if let Some(l) = n.child_by_field_name("label") {
                    j.labels
                        .entry(text(l, src).to_string())
                        .or_default()
                        .push(n.start_byte());
                }
                true
            }
            "goto_statement" => {
                if let Some(l) = n.child_by_field_name("label") {
                    j.gotos.push(Goto {
                        at: n.start_byte(),
                        label: text(l, src).to_string(),
                    });
                }
                false
            }
            "case_statement" => {
                let switch = ancestors
                    .iter()
                    .rev()
                    .take_while(|a| a.kind_name() != "function_definition")
                    .find(|a| a.kind_name() == "switch_statement");
                if let Some(s) = switch {
                    j.cases.push(Case {
                        at: n.start_byte(),
                        switch_at: s.start_byte(),
                    });
                }
                true
            }
            _ => true,
        });
        j
    }

    /// Where `goto label` lands: the start of the labelled statement. With
    /// one label in several `#if` branches the first one stands for all.
    pub(crate) fn label(&self, name: &str) -> Option<usize> {
        self.labels.get(name).and_then(|v| v.first().copied())
    }

    /// The first jump that enters `span` without passing its start.
    pub(crate) fn jump_into(&self, span: &Range<usize>) -> Option<JumpIn> {
        for g in &self.gotos {
            if span.contains(&g.at) {
                continue;
            }
            let lands_inside = self
                .labels
                .get(&g.label)
                .is_some_and(|ls| ls.iter().any(|l| span.contains(l)));
            if lands_inside {
                return Some(JumpIn::Goto {
                    goto_at: g.at,
                    label: g.label.clone(),
                });
            }
        }
        self.cases
            .iter()
            .find(|c| span.contains(&c.at) && !span.contains(&c.switch_at))
            .map(|c| JumpIn::Case {
                case_at: c.at,
                switch_at: c.switch_at,
            })
    }
}

/// Function definitions' jump tables, built once each.
#[derive(Default)]
pub(crate) struct JumpCache {
    by_function: HashMap<usize, FunctionJumps>,
}

impl JumpCache {
    pub(crate) fn get(&mut self, def: Node<'_>, src: &str) -> &FunctionJumps {
        self.by_function
            .entry(def.id())
            .or_insert_with(|| FunctionJumps::build(def, src))
    }
}

/// The loop (or, for `break`, switch) a `break`/`continue` leaves, given
/// the statement's ancestors (outermost first).
pub(crate) fn break_target<'t>(is_break: bool, ancestors: &[Node<'t>]) -> Option<Node<'t>> {
    ancestors
        .iter()
        .rev()
        .take_while(|a| a.kind_name() != "function_definition")
        .find(|a| is_loop(a.kind_name()) || (is_break && a.kind_name() == "switch_statement"))
        .copied()
}
