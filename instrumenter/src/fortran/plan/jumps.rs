//! Jumps and labels: which regions a GO TO, RETURN, EXIT or CYCLE
//! leaves, fresh labels for trampolines, and the terminal statements of
//! labelled DO loops.

use std::collections::{HashMap, HashSet};

use super::super::syntax::{Kind, LabelRef};
use super::probes::need;
use super::{stmt, Key, Op, Planner, Probe, Target};

/// Fresh statement labels, unique in their scoping unit (labels of an
/// internal procedure are its own).
#[derive(Default)]
pub(super) struct Labels {
    pub(super) used: HashMap<usize, HashSet<u32>>,
    /// Next candidate per (unit, digits), counting down.
    next: HashMap<(usize, u32), u32>,
}

impl Labels {
    /// Prefer a label as wide as `width` digits, so fixed-form lines keep
    /// their columns; wider ones when those are taken.
    pub(super) fn fresh(&mut self, unit: usize, width: usize) -> u32 {
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

    /// Exit probes of a statement `k` (item `i`, in unit `u`) that jumps
    /// out of regions, to go before and after it: before a single jump, or
    /// through trampolines after a statement with a label list (`cond`: it
    /// is on a conditional-compilation line; `var`: exits name `regio_u`).
    pub(super) fn jump_exits(
        &mut self,
        u: usize,
        i: usize,
        k: &Kind,
        var: bool,
        cond: bool,
        used: &mut Vec<&'static str>,
    ) -> (Vec<Probe>, Vec<Probe>) {
        let mut before: Vec<Probe> = Vec::new();
        let mut after: Vec<Probe> = Vec::new();
        let single = match k {
            Kind::Return => Some(JumpTo::Outside),
            Kind::Goto(l) => Some(JumpTo::Label(l.value)),
            Kind::Exit(n) => {
                let n = n.as_ref().map(|n| n.upper.clone());
                self.construct_for(i, n.as_deref(), false)
                    .map(JumpTo::After)
            }
            Kind::Cycle(n) => {
                let n = n.as_ref().map(|n| n.upper.clone());
                let c = self.construct_for(i, n.as_deref(), true);
                // The loop's condition runs next: its lock test's base
                // (`calls.rs`, `lock_test_in_condition`).
                if c.is_some_and(|c| self.lock_test_in_condition(c)) {
                    before.push(Probe::new(Op::LockTestBase));
                    need("regio_tl_base", used);
                }
                c.map(JumpTo::Next)
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
                    need("regio_exit", used);
                }
            }
        }
        if let Kind::AssignedGoto(ls) = k {
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
                    need("regio_exit", used);
                }
            } else {
                self.warn(i, "assigned GO TO whose targets leave different regions: its exits are not recorded".into());
            }
        }
        // Statements with several targets, or that may fall through:
        // each leaving label reference goes through a trampoline.
        let (refs, falls): (Vec<LabelRef>, bool) = match k {
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
            need("regio_exit", used);
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
        (before, after)
    }

    /// Labelled DO loops end at a labelled statement, possibly shared by
    /// several loops. When the terminal statement needs probes of its own,
    /// or an inner loop of a shared group is a region, every loop of the
    /// group gets a fresh label and its own CONTINUE after the terminal
    /// statement, so each loop's exit probe runs exactly when it finishes.
    pub(super) fn label_terminals(&mut self, u: usize, loops: &[usize]) {
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
}
