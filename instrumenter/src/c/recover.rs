//! A second reading of the units the parser could not read as written.
//!
//! Most of what tree-sitter-c misreads in real code is preprocessor lines
//! where the grammar allows none: `#if` alternatives between a loop head
//! and its body or inside an expression, `#pragma GCC ...`, `#define` or
//! the null directive `#` between `if (...)` and its statement. The
//! compiler sees one configuration at a time; so does this pass. Inside
//! each unreadable unit it blanks, for the parser only, every conditional
//! line and every branch but one (the first, or the `#else` of `#if 0`),
//! and the other directives where no directive may stand for the grammar
//! (`#define`, `#undef`, `#`, `#include`, `#line`, ...; a `#pragma` only
//! where it splits a statement, as a `#pragma GCC ivdep` before a loop must
//! stay where the walker can see it). A unit that reading still cannot
//! read and that holds a conditional group is read once more with the
//! last branch of each group (its `#else`, or no branch at all: `#if
//! MIN_MATCH != 3` over prose), only those units parsed
//! ([`Branch::Last`]).
//! Blanking keeps every byte offset, so the new tree still describes the
//! original text, which is what gets edited.
//!
//! A probe placed by that reading is right in the configuration it read,
//! but a probe inside a conditional branch would be missing from the other
//! configurations (a loop's closing brace after a body that exists only
//! under `#ifdef`). So a unit is taken from this reading only if none of
//! its edits lies inside a conditional group of the unit; otherwise it
//! stays as written.

use std::collections::HashSet;
use std::ops::Range;

use regio_idf::{Region, RegionKind};
use tree_sitter::Node;

use crate::diag::Diagnostic;
use crate::edit::Edit;
use crate::frontend::SourceInput;
use crate::selection::Selection;

use super::directives;
use super::jumps::JumpCache;
use super::parse;
use super::plan::{self, Scope};
use super::probes;
use super::syntax::{self, KindName, Lines};
use super::unreadable::{Unit, Unreadable};

/// What the second reading measured.
pub(crate) struct SecondReading {
    pub(crate) out: plan::Output,
    /// The units it took; the others stay as written.
    pub(crate) recovered: Vec<Range<usize>>,
    /// The units it read ([`Unreadable::split_by`] functions).
    pub(crate) units: Unreadable,
    /// File-scope macro uses it hid whose expansion may define functions.
    pub(crate) macro_units: Vec<Unit>,
}

/// [`second_reading`] of the units a walk left out, its regions, edits
/// and warnings added to `out`; returns the units still left as written.
pub(crate) fn read_again(
    input: &SourceInput<'_>,
    first: &parse::Parsed,
    unreadable: &Unreadable,
    macros: &HashSet<String>,
    lines: &Lines,
    out: &mut plan::Output,
) -> Unreadable {
    let mut left = unreadable.without(&[]);
    let mut macro_units = Vec::new();
    for branch in [Branch::First, Branch::Last] {
        // The other configuration is read only for units that have one.
        let units = match branch {
            Branch::First => left.without(&[]),
            Branch::Last => left.with_groups(input.text),
        };
        if units.ranges().is_empty() {
            continue;
        }
        let first_id = input.first_id + out.regions.len() as u32;
        // The first branch keeps the file around the units as written, so
        // its parse is the first reading's with the units re-read; the
        // last blanks everything else and is parsed afresh.
        let earlier = (branch == Branch::First).then_some(first);
        if let Some(read) = second_reading(input, &units, macros, lines, first_id, branch, earlier)
        {
            out.regions.extend(read.out.regions);
            out.edits.extend(read.out.edits);
            out.warnings.extend(read.out.warnings);
            // A use both readings hid is listed once.
            for u in read.macro_units {
                if !macro_units
                    .iter()
                    .any(|k: &Unit| k.range == u.range && k.function == u.function)
                {
                    macro_units.push(u);
                }
            }
            // Units split by the reading stay split.
            let taken = read.units.without(&read.recovered);
            left = match branch {
                Branch::First => taken,
                Branch::Last => left.without(&units.ranges()).merged_with(taken),
            };
        }
    }
    left.with_units(macro_units)
}

/// Which branch of each conditional group a reading keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Branch {
    /// The first branch a GNU C compiler may compile (`#else` of `#if 0`).
    First,
    /// The last such branch: the `#else`, or none for a group without one
    /// (`#if MIN_MATCH != 3` / text that is no C / `#endif`). Read for
    /// the units the first choice left; only those units are parsed.
    Last,
}

/// Reads the `unreadable` units of `input` again in one configuration
/// and instruments those that now read cleanly and whose probes all stand
/// outside their conditional groups; a unit whose loops, calls or
/// constructs would need probes inside a group is tried again without
/// the kinds whose probes crossed it ([`FEWER_KINDS`]), last with its
/// function region alone (named in a warning). Regions are numbered
/// from `first_id`. None when no unit could be taken.
pub(crate) fn second_reading(
    input: &SourceInput<'_>,
    unreadable: &Unreadable,
    macros: &HashSet<String>,
    lines: &Lines,
    first_id: u32,
    branch: Branch,
    earlier: Option<&parse::Parsed>,
) -> Option<SecondReading> {
    let units = unreadable.ranges();
    if units.is_empty() {
        return None;
    }
    let src = input.text;
    let Masked {
        text: masked,
        hidden_macros,
        hidden_omp,
    } = mask(src, &units, macros, branch);
    // Each hidden directive and the statement it governs (the next code
    // of the masked text): the walk writes the construct around it.
    let hidden: Vec<plan::HiddenOmp> = hidden_omp
        .iter()
        .map(|p| plan::HiddenOmp {
            line: p.clone(),
            // The first byte of code after the directive (hidden lines are
            // blanks in the masked text).
            statement: super::mask::skip_blanks(masked.as_bytes(), p.end),
        })
        .collect();
    // From each hidden directive to the statement it governs no probe may
    // stand, unless the directive itself became the construct.
    let bound: Vec<Range<usize>> = hidden
        .iter()
        .map(|h| h.line.start..h.statement + 1)
        .collect();
    let masked = parse::mask_cplusplus_guards(&masked).into_owned();
    let parsed = parse::parse_text_again(input.display_path, &masked, src, earlier).ok()?;
    let still = Unreadable::new(&parsed.errors, src);
    let root = parsed.tree.root_node();
    let top = TopItems::new(root);
    let unreadable = &unreadable.split_by(src, |r| top.functions_within(r, src));
    let candidates: Vec<Range<usize>> = unreadable
        .ranges()
        .into_iter()
        .filter(|r| !still.overlaps(r))
        .collect();
    let mut jumps = JumpCache::default();
    let dirs = directives::analyse(root, src, input.display_path, lines, &mut jumps).ok()?;
    let mut reading = Reading {
        root,
        dirs: &dirs,
        macros,
        lines,
        jumps,
        bound: &bound,
        hidden: &hidden,
    };

    let full = SourceInput { first_id, ..*input };
    let (mut out, mut recovered, mut split) = reading.take(&full, candidates)?;
    // A unit split by a group is walked again with fewer region kinds,
    // those whose probes crossed a group left out: a loop head with `#if`
    // alternatives (NPB LU `jacu`) costs its loops, not its OpenMP
    // construct and calls; an OpenMP block opened in one `#ifdef _OPENMP`
    // and closed in another (PolyBench `polybench_papi_init`) costs the
    // construct, not the calls inside. The same acceptance rules judge
    // every walk, so what is taken is exact; the last try is the function
    // region alone.
    for (without, what) in FEWER_KINDS {
        if split.is_empty() {
            break;
        }
        let reduced = without_kinds(input.selection, without);
        if reduced == input.selection || !has_inner_kinds(reduced) {
            continue;
        }
        let why = LeftOut {
            warning: format!(
                "not measured: the {what} of this function (their probes would fall \
                 between preprocessor lines and the code they govern; the rest of the \
                 function is measured)"
            ),
            listed: format!(
                "not measured with the other {what} of its function: their probes would fall \
                 between preprocessor lines and the code they govern"
            ),
        };
        if let Some(still_split) = reading.take_without(
            &full,
            split.clone(),
            without,
            &why,
            &mut out,
            &mut recovered,
        ) {
            split = still_split;
        }
    }
    let all = [Kind::Loops, Kind::Omp, Kind::Calls];
    if !split.is_empty() && without_kinds(input.selection, &all) != input.selection {
        let why = LeftOut {
            warning: "not measured: the loops, calls and constructs of this function \
                      (their probes would fall between preprocessor lines and the code \
                      they govern; the function is measured)"
                .into(),
            listed: "not measured with the other loops, calls and constructs of its function: \
                     their probes would fall between preprocessor lines and the code they govern"
                .into(),
        };
        reading.take_without(&full, split, &all, &why, &mut out, &mut recovered);
    }
    // A unit that could hold a function but gave no region and holds no
    // whole function definition was not read: its function straddles the
    // unit (the first reading's range missed the start of its head). It
    // stays listed as left as written. (A whole definition without a
    // region is read: functions not selected, or filtered out.)
    let first_line = |r: &Range<usize>| lines.pos(r.start).line;
    let last_line = |r: &Range<usize>| lines.pos(r.end.saturating_sub(1).max(r.start)).line;
    let holds_a_definition = |r: &Range<usize>| {
        top.functions_within(r, src)
            .is_some_and(|found| found.iter().any(|(_, name)| name.is_some()))
    };
    // Start lines of the regions, sorted: one binary search per unit.
    let mut region_lines: Vec<u32> = out.regions.iter().map(|g| g.start.line).collect();
    region_lines.sort_unstable();
    let has_a_region = |r: &Range<usize>| {
        let from = region_lines.partition_point(|&l| l < first_line(r));
        region_lines.get(from).is_some_and(|&l| l <= last_line(r))
    };
    let empty: Vec<Range<usize>> = recovered
        .iter()
        .filter(|r| unreadable.could_hold_code(src, r))
        .filter(|r| !has_a_region(r))
        .filter(|r| !holds_a_definition(r))
        .cloned()
        .collect();
    if !empty.is_empty() {
        recovered.retain(|r| !empty.contains(r));
        out.edits.retain(|e| {
            !empty
                .iter()
                .any(|r| r.start <= e.offset && e.offset <= r.end)
        });
        out.warnings.retain(|w| {
            !empty
                .iter()
                .any(|r| first_line(r) <= w.line && w.line <= last_line(r))
        });
    }
    // Hidden directives neither written as their construct nor listed
    // (not selected, stand-alone, or inside a part not measured).
    for p in hidden_omp
        .iter()
        .filter(|p| recovered.iter().any(|r| r.contains(&p.start)))
        .filter(|p| !rendered(&out.edits, p.start))
        .filter(|p| {
            let line = lines.pos(p.start).line;
            !out.regions
                .iter()
                .any(|g| g.start.line == line && g.aux.contains_key("not_measured"))
        })
        .filter(|_| input.selection.omp)
    {
        let at = lines.pos(p.start);
        let words: Vec<&str> = src[p.clone()].split_whitespace().skip(1).take(3).collect();
        out.warnings.push(Diagnostic::warning(
            input.display_path,
            at.line,
            at.col,
            format!(
                "not measured: the OpenMP construct `{}` here (it is the unbraced body of a statement; \
                 braces around it and its statement get it measured)",
                words.join(" ")
            ),
        ));
    }
    // A macro use between the functions of a split unit is listed too: no
    // unit left as written covers it.
    let left = unreadable.without(&recovered);
    let in_file = if hidden_macros.is_empty() {
        Vec::new()
    } else {
        super::macro_uses::definitions(src)
    };
    let macro_units = hidden_macros
        .iter()
        .filter(|m| !left.covers(m.start..m.end))
        .flat_map(|m| macro_use_units(src, &in_file, m, macros))
        .collect();
    Some(SecondReading {
        out,
        recovered,
        units: unreadable.without(&[]),
        macro_units,
    })
}

/// A region kind a unit's walk may do without.
#[derive(Clone, Copy)]
enum Kind {
    Loops,
    Omp,
    /// Calls, I/O calls and MPI calls: all wrap a call expression.
    Calls,
}

/// The walks tried, in order, for a unit whose probes crossed a
/// conditional group, before its function region alone: one kind left
/// out, then two. Each with the words its warning names.
const FEWER_KINDS: &[(&[Kind], &str)] = &[
    (&[Kind::Loops], "loops"),
    (&[Kind::Omp], "OpenMP constructs"),
    (&[Kind::Calls], "calls"),
    (&[Kind::Loops, Kind::Omp], "loops and OpenMP constructs"),
    (&[Kind::Loops, Kind::Calls], "loops and calls"),
    (&[Kind::Omp, Kind::Calls], "calls and OpenMP constructs"),
];

impl Kind {
    /// Whether a region of kind `k` is one of this kind's.
    fn covers(self, k: &RegionKind) -> bool {
        match self {
            Kind::Loops => matches!(k, RegionKind::Loop),
            Kind::Omp => matches!(k, RegionKind::Omp(_) | RegionKind::OmpDirective(_)),
            Kind::Calls => matches!(k, RegionKind::Call | RegionKind::Io | RegionKind::Mpi(_)),
        }
    }
}

fn without_kinds(s: Selection, without: &[Kind]) -> Selection {
    let mut s = s;
    for k in without {
        match k {
            Kind::Loops => s.loops = false,
            Kind::Omp => s.omp = false,
            Kind::Calls => {
                s.calls = false;
                s.io = false;
                s.mpi = false;
            }
        }
    }
    s
}

/// Whether a selection still measures something inside a function body
/// (else the last try, the function region alone, is the same walk).
fn has_inner_kinds(s: Selection) -> bool {
    s.loops || s.calls || s.io || s.omp || s.mpi
}

/// The units left as written for a file-scope macro use the reading hid
/// (`macro_uses.rs`): one per function its expansion defines, one unnamed
/// when that is unknown, none when it can define no function.
fn macro_use_units(
    src: &str,
    in_file: &[super::macro_uses::Definition],
    m: &Range<usize>,
    macros: &HashSet<String>,
) -> Vec<Unit> {
    use super::macro_uses::{shown, what_it_defines, Defines};
    let call = shown(src, m);
    let how = "a macro invocation at file scope; the text path cannot measure what only its \
               expansion holds, `--preprocess` can";
    match what_it_defines(src, in_file, m, macros) {
        Defines::Nothing => Vec::new(),
        Defines::Functions(names) => names
            .into_iter()
            .map(|f| Unit::macro_use(m.clone(), Some(f), format!("defined by `{call}`, {how}")))
            .collect(),
        Defines::Unknown => vec![Unit::macro_use(
            m.clone(),
            None,
            format!("what `{call}` defines, {how}"),
        )],
    }
}

/// The items of a reading's tree that a unit can hold: every child of
/// the file and of its (readable) `#if` groups that is no such group, in
/// source order. Built once per reading, so that asking for the
/// definitions inside each of a file's units costs a binary search, not a
/// walk over the file's top level per unit (quadratic on an amalgamation:
/// SQLite has about 1,800 units and thousands of top-level items).
struct TopItems<'t> {
    /// Sibling ranges never overlap and a group's children lie inside it,
    /// so both starts and ends are non-decreasing along this list.
    items: Vec<Node<'t>>,
}

impl<'t> TopItems<'t> {
    fn new(root: Node<'t>) -> Self {
        let mut items = Vec::new();
        // Depth first, children in order, so the list comes out sorted.
        let mut cursor = root.walk();
        let mut depth = 0usize;
        if cursor.goto_first_child() {
            depth = 1;
        }
        while depth > 0 {
            let c = cursor.node();
            if parse::is_container(c.kind_name()) && !c.is_error() {
                if cursor.goto_first_child() {
                    depth += 1;
                    continue;
                }
            } else {
                items.push(c);
            }
            while !cursor.goto_next_sibling() {
                depth -= 1;
                if depth == 0 || !cursor.goto_parent() {
                    depth = 0;
                    break;
                }
            }
        }
        TopItems { items }
    }

    /// The function definitions of the reading inside `unit`, with their
    /// names, and the parts it still cannot read (without a name); None
    /// when one straddles the unit's edge, so that the unit is judged
    /// whole.
    fn functions_within(
        &self,
        unit: &Range<usize>,
        src: &str,
    ) -> Option<Vec<(Range<usize>, Option<String>)>> {
        let first = self.items.partition_point(|c| c.end_byte() <= unit.start);
        let mut found = Vec::new();
        for c in &self.items[first..] {
            let r = c.byte_range();
            if unit.end <= r.start {
                break;
            }
            if r.end <= unit.start {
                continue;
            }
            let function = c.kind_name() == "function_definition";
            let unreadable = c.is_error() || c.is_missing() || c.has_error();
            if !function && !unreadable {
                continue; // declarations, directives: nothing to measure
            }
            if r.start < unit.start || unit.end < r.end {
                return None;
            }
            found.push((r, function.then(|| syntax::function_name(*c, src))));
        }
        Some(found)
    }
}

/// What one pass of the second reading took: its output, the units it
/// took, and the units a conditional group split.
type Taken = (plan::Output, Vec<Range<usize>>, Vec<Range<usize>>);

/// One tree of the second reading and what a walk over it needs.
struct Reading<'a, 't> {
    /// Spans where no probe may go (a hidden directive and its statement's
    /// first byte) unless the directive was written as its construct.
    bound: &'a [Range<usize>],
    /// The hidden OpenMP directives and their statements.
    hidden: &'a [plan::HiddenOmp],
    root: Node<'t>,
    dirs: &'a directives::Directives,
    macros: &'a HashSet<String>,
    lines: &'a Lines,
    jumps: JumpCache,
}

/// What a walk with fewer region kinds says of the units it takes: the
/// warning naming each unit, and the reason the IDF gives for each part
/// left out (the IDF names what the warning names).
struct LeftOut {
    warning: String,
    listed: String,
}

impl Reading<'_, '_> {
    /// Walks the `split` units of `full` (the reading's input, ids from
    /// `full.first_id`) again without the kinds `without`; the units it
    /// takes go to `out` and `recovered`, each named in a warning, and
    /// their parts left out are listed unmeasured with `why.listed`.
    /// Returns the units still split, or None when none was taken.
    fn take_without(
        &mut self,
        full: &SourceInput<'_>,
        split: Vec<Range<usize>>,
        without: &[Kind],
        why: &LeftOut,
        out: &mut plan::Output,
        recovered: &mut Vec<Range<usize>>,
    ) -> Option<Vec<Range<usize>>> {
        let fewer = SourceInput {
            first_id: full.first_id + out.regions.len() as u32,
            selection: without_kinds(full.selection, without),
            ..*full
        };
        let (more, taken, still_split) = self.take(&fewer, split)?;
        for r in &taken {
            let at = self.lines.pos(r.start);
            out.warnings.push(Diagnostic::warning(
                full.display_path,
                at.line,
                at.col,
                why.warning.clone(),
            ));
        }
        let left_out = self.parts_left_out(full, &taken, without, &more.regions);
        out.regions.extend(more.regions);
        out.edits.extend(more.edits);
        out.warnings.extend(more.warnings);
        for mut r in left_out {
            r.id = full.first_id + out.regions.len() as u32;
            r.aux
                .insert("not_measured".into(), why.listed.clone().into());
            out.regions.push(r);
        }
        recovered.extend(taken);
        Some(still_split)
    }

    /// The outermost regions of the kinds `without` that a walk of `units`
    /// with the whole selection finds, for units a walk without those
    /// kinds measured (`kept`: its regions). Each gets the procedure of
    /// `kept` it lies in as parent; ids are the caller's to give.
    fn parts_left_out(
        &mut self,
        input: &SourceInput<'_>,
        units: &[Range<usize>],
        without: &[Kind],
        kept: &[Region],
    ) -> Vec<Region> {
        if units.is_empty() {
            return Vec::new();
        }
        let full = plan::walk(
            self.root,
            &SourceInput {
                first_id: 0,
                ..*input
            },
            self.dirs,
            self.macros,
            self.lines,
            &mut self.jumps,
            Scope::Only(units, self.hidden),
        );
        let dropped = |r: &Region| without.iter().any(|k| k.covers(&r.kind));
        let by_id: std::collections::HashMap<u32, &Region> =
            full.regions.iter().map(|r| (r.id, r)).collect();
        full.regions
            .iter()
            .filter(|r| dropped(r))
            .filter(|r| {
                !r.parent
                    .and_then(|p| by_id.get(&p))
                    .is_some_and(|p| dropped(p))
            })
            .map(|r| {
                let mut r = r.clone();
                r.parent = kept
                    .iter()
                    .find(|k| {
                        matches!(k.kind, RegionKind::Function | RegionKind::Program)
                            && k.unit == r.unit
                            && k.file == r.file
                    })
                    .map(|k| k.id);
                r
            })
            .collect()
    }

    /// Walks `candidates` until every unit left has all its probes
    /// outside its conditional groups: (output, units taken, units split
    /// by a group). None when the walk reached outside its units.
    fn take(
        &mut self,
        input: &SourceInput<'_>,
        mut candidates: Vec<Range<usize>>,
    ) -> Option<Taken> {
        let src = input.text;
        let mut split_all = Vec::new();
        loop {
            if candidates.is_empty() {
                let nothing = plan::Output {
                    regions: Vec::new(),
                    edits: Vec::new(),
                    warnings: Vec::new(),
                };
                return Some((nothing, candidates, split_all));
            }
            let mut out = plan::walk(
                self.root,
                input,
                self.dirs,
                self.macros,
                self.lines,
                &mut self.jumps,
                Scope::Only(&candidates, self.hidden),
            );
            // Edits by offset; each candidate's are one slice.
            out.edits.sort_by_key(|e| e.offset);
            let slice_of = |edits: &[Edit], r: &Range<usize>| {
                let from = edits.partition_point(|e| e.offset < r.start);
                let to = edits.partition_point(|e| e.offset <= r.end);
                from..to.max(from)
            };
            let mut inside_count = 0;
            let mut split: Vec<Range<usize>> = Vec::new();
            for r in &candidates {
                let at = slice_of(&out.edits, r);
                inside_count += at.len();
                let groups = groups(src, r.clone());
                for g in &groups {
                    if let Some(old) = close_after_group(src, g, &mut out.edits[at.clone()]) {
                        // The loop's region now ends with the `#endif` line.
                        let was = self.lines.pos(old.saturating_sub(1));
                        let now = self
                            .lines
                            .pos(g.start + src[g.clone()].trim_end().len() - 1);
                        for region in out.regions.iter_mut().filter(|x| x.end == was) {
                            region.end = now;
                        }
                    }
                }
                // An insertion right before `#if` or after `#endif` is
                // outside the group; anything between is in a branch.
                let slice = &out.edits[at];
                // Probes inside a group are right when each branch's hold
                // whole regions (a call or loop inside the branch): they
                // exist exactly when their code does.
                let whole: Vec<bool> = groups
                    .iter()
                    .map(|g| whole_in_branches(src, g, slice))
                    .collect();
                let in_a_branch = slice.iter().any(|e| {
                    groups.iter().zip(&whole).any(|(g, whole)| {
                        !whole && e.offset < g.end && e.offset + e.replace_len > g.start
                    }) || self
                        .bound
                        .iter()
                        .any(|b| b.contains(&e.offset) && !rendered(slice, b.start))
                });
                if in_a_branch {
                    split.push(r.clone());
                }
            }
            if inside_count < out.edits.len() {
                return None; // the walk reached out of its units: trust none
            }
            if split.is_empty() {
                return Some((out, candidates, split_all));
            }
            candidates.retain(|r| !split.contains(r));
            split_all.extend(split);
        }
    }
}

/// Whether every edit of `edits` inside conditional group `group` lies in
/// one branch and the edits of each branch make whole regions there:
/// their text opens and closes as many braces and parentheses as it
/// closes, and enters as many regions as it leaves (a guard's cleanup
/// leaves one), so no probe pairs with one outside the branch. A group
/// nested in a branch must be whole itself; the branch's own edits
/// around it then make whole regions in every configuration.
fn whole_in_branches(src: &str, group: &Range<usize>, edits: &[Edit]) -> bool {
    let inside: Vec<&Edit> = edits
        .iter()
        .filter(|e| e.offset < group.end && e.offset + e.replace_len > group.start)
        .collect();
    if inside.is_empty() {
        return true;
    }
    // A group of OpenMP directives alone, read as written: the walk
    // rendered each directive line as its construct with the condition
    // repeated around the closing half (plan/openmp/ifdef.rs). Only
    // then: a directive hidden from the parser (the unbraced body of a
    // statement) is rendered without the repeated condition.
    if super::lone_directives::is_lone_omp_group(src, group.clone())
        && inside
            .iter()
            .all(|e| e.replace_len > 0 && is_omp_pragma(&src[e.offset..e.offset + e.replace_len]))
        && inside
            .iter()
            .all(|open| repeats_condition(src, group, open, edits))
    {
        return true;
    }
    let branches = branches(src, group);
    if branches.is_empty() {
        return false;
    }
    let nested: Vec<Vec<Range<usize>>> = branches.iter().map(|b| groups(src, b.clone())).collect();
    let mut texts = vec![String::new(); branches.len()];
    for e in inside {
        let Some(b) = branches
            .iter()
            .position(|b| b.start <= e.offset && e.offset + e.replace_len <= b.end)
        else {
            return false;
        };
        if nested[b]
            .iter()
            .any(|g| e.offset < g.end && e.offset + e.replace_len > g.start)
        {
            continue; // judged with its own group below
        }
        texts[b].push_str(&e.text);
        texts[b].push('\n');
    }
    texts.iter().all(|t| balanced_probes(t))
        && nested
            .iter()
            .flatten()
            .all(|g| whole_in_branches(src, g, edits))
}

/// Whether the construct `open` begins (a directive line of `group`
/// rendered) is closed after the group by an edit that repeats the
/// group's `#if` line (ifdef.rs): an edit after the group holding that
/// line and a probe id or team variable of `open`.
fn repeats_condition(src: &str, group: &Range<usize>, open: &Edit, edits: &[Edit]) -> bool {
    let first = src[group.clone()].lines().next().unwrap_or("").trim();
    // `4298u`, `regio__team4298`: what the closing half names again.
    let ids = |t: &str| -> HashSet<String> {
        t.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| {
                w.starts_with("regio__team")
                    || (w.len() > 1
                        && w.ends_with('u')
                        && w[..w.len() - 1].bytes().all(|b| b.is_ascii_digit()))
            })
            .map(str::to_string)
            .collect()
    };
    let opened = ids(&open.text);
    !first.is_empty()
        && !opened.is_empty()
        && edits.iter().any(|e| {
            e.offset >= group.end
                && e.text.lines().any(|l| l.trim() == first)
                && !ids(&e.text).is_disjoint(&opened)
        })
}

/// Whether probe text `t` opens and closes alike (see
/// [`whole_in_branches`]).
fn balanced_probes(t: &str) -> bool {
    let count = |w: &str| t.matches(w).count();
    let mut depth = 0i64;
    for c in t.chars() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
        && count("regio__enter(") == count("regio__exit(")
        && count("regio__guard(") == count("cleanup(regio__leave)")
        && count("regio_omp_fork(") == count("regio_omp_join(")
        && count("regio_omp_begin(") == count("regio_omp_end(")
        && count("regio_omp_teams_begin(") == count("regio_omp_teams_end(")
        && count("regio_disable(") == count("regio_enable(")
        && count("regio_scope_open") == 0
}

/// Whether the directive line starting at `at` was replaced by its
/// construct's text (an edit replacing the whole line).
fn rendered(edits: &[Edit], at: usize) -> bool {
    edits.iter().any(|e| e.offset == at && e.replace_len > 0)
}

/// A loop whose body is a conditional group (`for (...)` then `#ifdef`
/// with one statement per branch), or whose `do ... while` tail is one
/// (`#if REAL == DOUBLE` / `} while (...);` / `#else` / `} while (...);`
/// / `#endif`): the reading saw the first branch and closed the loop's
/// block after it, inside the group. After the `#endif` line is right in
/// every configuration, so the close moves there. Only when that close is
/// the group's last edit and every branch is one simple statement (or one
/// `do` tail); the edits left in the first branch must still be whole
/// there ([`whole_in_branches`]).
/// Returns the old offset of the close it moved.
fn close_after_group(src: &str, group: &Range<usize>, edits: &mut [Edit]) -> Option<usize> {
    let inside: Vec<usize> = edits
        .iter()
        .enumerate()
        .filter(|(_, e)| e.offset < group.end && e.offset + e.replace_len > group.start)
        .map(|(i, _)| i)
        .collect();
    let last = *inside.iter().max_by_key(|&&i| edits[i].offset)?;
    let e = &edits[last];
    if e.replace_len != 0 || e.text != probes::LOOP_CLOSE {
        return None;
    }
    // Every edit at that place is a loop's close (a `for` whose body is
    // the `do`): they move together, in order.
    let at_close: Vec<usize> = inside
        .iter()
        .copied()
        .filter(|&i| edits[i].offset == e.offset)
        .collect();
    if at_close
        .iter()
        .any(|&i| edits[i].replace_len != 0 || edits[i].text != probes::LOOP_CLOSE)
    {
        return None;
    }
    let head = code_before(src.as_bytes(), group.start);
    let branches = branches(src, group);
    let first_end = branches
        .first()
        .map(|b| b.start + src[b.clone()].trim_end().len());
    // The branch is the loop's body (`for (...)` then the group), or the
    // tail of its one statement (`y[f(j)]` then `+= a[k];` / `#else` /
    // `+= b[k];`, AMG's `hypre_ParCSRMatrixMatvecT`): either way the body
    // ends with the branch. Only when every configuration takes a branch
    // (an `#else`): without one the body would be whatever follows the
    // `#endif`, and the close there would cut the loop from it.
    let continues = head.ends_with(b")")
        || !(head.is_empty()
            || head.ends_with(b";")
            || head.ends_with(b"{")
            || head.ends_with(b"}"));
    let body = continues
        && has_else(src, group)
        && inside.len() == at_close.len()
        && branches
            .iter()
            .all(|b| one_simple_statement(&src[b.clone()]));
    let do_tail = branches.iter().all(|b| do_while_tail(&src[b.clone()]));
    if first_end == Some(e.offset) && (body || do_tail) {
        let old = e.offset;
        for i in at_close {
            edits[i].offset = group.end;
        }
        return Some(old);
    }
    None
}

/// Whether `group` has an `#else` of its own (not one of a nested group),
/// so that every configuration compiles one of its branches.
fn has_else(src: &str, group: &Range<usize>) -> bool {
    let mut depth = 0usize;
    for line in logical_lines(src, group.clone()) {
        match directive_word(&src[line]) {
            Some("if" | "ifdef" | "ifndef") => depth += 1,
            Some("else") if depth == 1 => return true,
            Some("endif") => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// `} while (...);`: the end of a `do` statement, nothing else (no
/// comment or directive that could hide more).
fn do_while_tail(text: &str) -> bool {
    let t = text.trim();
    let Some(rest) = t.strip_prefix('}') else {
        return false;
    };
    let Some(cond) = rest.trim_start().strip_prefix("while") else {
        return false;
    };
    let cond = cond.trim_start();
    if !cond.starts_with('(') || t.contains("/*") || t.contains("//") || t.contains('#') {
        return false;
    }
    let mut depth = 0i32;
    for (i, c) in cond.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return cond[i + 1..].trim() == ";";
                }
            }
            '{' | '}' | ';' => return false,
            _ => {}
        }
    }
    false
}

/// The text of each branch of a group (between its own directive lines;
/// a branch may hold nested groups).
fn branches(src: &str, group: &Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = None;
    let mut depth = 0usize;
    for line in logical_lines(src, group.clone()) {
        match directive_word(&src[line.clone()]) {
            Some("if" | "ifdef" | "ifndef") => {
                depth += 1;
                if depth == 1 {
                    from = Some(line.end);
                }
            }
            Some("elif" | "elifdef" | "elifndef" | "else") if depth == 1 => {
                if let Some(f) = from {
                    out.push(f..line.start);
                }
                from = Some(line.end);
            }
            Some("endif") => {
                if depth == 1 {
                    if let Some(f) = from.take() {
                        out.push(f..line.start);
                    }
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
    }
    out
}

/// One expression, jump or declaration statement ending in its only `;`
/// outside parentheses, or one block: no `if`/`else` chain, no second
/// statement, no comment or directive that could hide one.
fn one_simple_statement(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() || t.contains("/*") || t.contains("//") || t.contains('#') {
        return false;
    }
    if t.starts_with('{') {
        let mut depth = 0i32;
        for (i, c) in t.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1 == t.len();
                    }
                }
                _ => {}
            }
        }
        return false;
    }
    let first = t
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next();
    if matches!(first, Some("if" | "else" | "switch" | "do")) || t.contains('{') {
        return false;
    }
    let mut parens = 0i32;
    let mut semis = 0;
    for c in t.chars() {
        match c {
            '(' => parens += 1,
            ')' => parens -= 1,
            ';' if parens == 0 => semis += 1,
            _ => {}
        }
    }
    semis == 1 && t.ends_with(';')
}

/// Directive word of a preprocessor line (`if`, `define`, ``; the null
/// directive has none), or None for a line that is not a directive.
fn directive_word(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?;
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// `#pragma omp ...` and `#pragma regio ...`: directives the front end
/// itself reads; they keep their place.
fn is_omp_pragma(line: &str) -> bool {
    let mut words = line.trim_start().trim_start_matches('#').split_whitespace();
    words.next() == Some("pragma") && words.next().is_some_and(|w| w.eq_ignore_ascii_case("omp"))
}

fn is_own_pragma(line: &str) -> bool {
    let mut words = line.trim_start().trim_start_matches('#').split_whitespace();
    words.next() == Some("pragma")
        && words
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("omp") || w.eq_ignore_ascii_case("regio"))
}

/// Logical lines (a directive continues over backslash-newlines) of
/// `src[range]`, as byte ranges of `src`.
fn logical_lines(src: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let bytes = src.as_bytes();
    // Start at the beginning of the line holding range.start.
    let mut at = src[..range.start].rfind('\n').map_or(0, |p| p + 1);
    let mut out = Vec::new();
    while at < range.end {
        let mut end = at;
        loop {
            match src[end..].find('\n') {
                Some(p) => {
                    let nl = end + p;
                    let before = src[..nl].trim_end_matches('\r');
                    if before.ends_with('\\') {
                        end = nl + 1;
                        continue;
                    }
                    end = nl + 1;
                }
                None => end = bytes.len(),
            }
            break;
        }
        out.push(at..end);
        at = end;
    }
    out
}

/// Conditional groups (`#if` ... `#endif`) starting inside `range`, as
/// byte spans of their outermost level; an unclosed group runs to the end
/// of the range.
pub(crate) fn groups(src: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for line in logical_lines(src, range.clone()) {
        match directive_word(&src[line.clone()]) {
            Some("if" | "ifdef" | "ifndef") => {
                if depth == 0 {
                    start = line.start;
                }
                depth += 1;
            }
            Some("endif") if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    spans.push(start..line.end);
                }
            }
            _ => {}
        }
    }
    if depth > 0 {
        spans.push(start..range.end.max(start));
    }
    spans
}

/// The text the parser reads for a second try: `src` with, inside each of
/// `units`, conditional lines and all branches but one blanked, and every
/// directive but `#pragma omp`/`#pragma regio` blanked.
pub(crate) fn mask(
    src: &str,
    units: &[Range<usize>],
    macros: &HashSet<String>,
    branch: Branch,
) -> Masked {
    let mut bytes = src.as_bytes().to_vec();
    let mut hidden_omp = Vec::new();
    let blank = super::mask::blank;
    if branch == Branch::Last {
        // Only the units are read: everything else is blanks, which the
        // parser reads at no cost.
        let mut from = 0;
        for unit in units {
            blank(&mut bytes, from.min(unit.start)..unit.start);
            from = unit.end;
        }
        let end = bytes.len();
        blank(&mut bytes, from.min(end)..end);
    }
    for unit in units {
        let lines = logical_lines(src, unit.clone());
        let kept = kept_branches(src, &lines, branch);
        // Groups of OpenMP directives alone stay as written (see
        // lone_directives.rs), unless they split a statement.
        let lone = super::lone_directives::lone_omp_groups(src, unit.clone());
        let mut as_written_until = 0;
        // Per open group: whether the branch being read is kept.
        let mut stack: Vec<bool> = Vec::new();
        for (k, line) in lines.into_iter().enumerate() {
            let text = &src[line.clone()];
            let live = stack.iter().all(|&keep| keep);
            if line.start < as_written_until {
                continue;
            }
            if let Some(g) = lone.iter().find(|g| line.contains(&g.start)) {
                if live && !splits_statement(&bytes, line.start) {
                    as_written_until = g.end;
                    continue;
                }
            }
            match directive_word(text) {
                Some("if" | "ifdef" | "ifndef") => {
                    stack.push(kept.contains(&k));
                    blank(&mut bytes, line);
                }
                Some("elif" | "elifdef" | "elifndef" | "else") => {
                    if let Some(top) = stack.last_mut() {
                        *top = kept.contains(&k);
                    }
                    blank(&mut bytes, line);
                }
                Some("endif") => {
                    stack.pop();
                    blank(&mut bytes, line);
                }
                // An OpenMP directive as the unbraced body of a statement
                // (`for (...)` then `#pragma omp task`): hidden from the
                // parser; the walk writes it as its construct around the
                // statement it governs (plan::HiddenOmp), else nothing may
                // be placed between the two and a warning names it.
                Some("pragma")
                    if live && is_omp_pragma(text) && splits_statement(&bytes, line.start) =>
                {
                    hidden_omp.push(line.clone());
                    blank(&mut bytes, line);
                }
                Some("pragma")
                    if live && (is_own_pragma(text) || !splits_statement(&bytes, line.start)) => {}
                Some(_) => blank(&mut bytes, line),
                None if !live => blank(&mut bytes, line),
                None => {}
            }
        }
    }
    let hidden_macros = super::mask::rewrite_units(&mut bytes, units, macros);
    // Only ASCII bytes replaced ASCII bytes or whole lines, so UTF-8
    // sequences are never cut.
    Masked {
        text: String::from_utf8(bytes).unwrap_or_else(|_| src.to_string()),
        hidden_macros,
        hidden_omp,
    }
}

/// The indexes in `lines` of the directive lines that open the branch
/// `branch` keeps of each group (an `#if` line or an `#elif`/`#else`
/// line); a group none of whose branches is kept has none.
fn kept_branches(src: &str, lines: &[Range<usize>], branch: Branch) -> HashSet<usize> {
    // Per open group: the branch openers a GNU C compiler may compile,
    // and whether the group has an `#else`.
    let mut stack: Vec<Vec<usize>> = Vec::new();
    let mut kept = HashSet::new();
    let choose = |openers: Vec<usize>, kept: &mut HashSet<usize>| {
        let pick = match branch {
            Branch::First => openers.first(),
            Branch::Last => openers.last(),
        };
        kept.extend(pick.copied());
    };
    for (k, line) in lines.iter().enumerate() {
        let text = &src[line.clone()];
        match directive_word(text) {
            Some("if" | "ifdef" | "ifndef") => {
                stack.push(if is_if_zero(text) { vec![] } else { vec![k] });
            }
            Some("elif" | "elifdef" | "elifndef" | "else") => {
                if let Some(top) = stack.last_mut() {
                    if !is_if_zero(text) {
                        top.push(k);
                    }
                }
            }
            Some("endif") => {
                if let Some(openers) = stack.pop() {
                    let has_else = openers
                        .last()
                        .is_some_and(|&o| directive_word(&src[lines[o].clone()]) == Some("else"));
                    // Without an `#else`, the last configuration is the
                    // one with no branch at all.
                    if branch == Branch::Last && !has_else {
                        continue;
                    }
                    choose(openers, &mut kept);
                }
            }
            _ => {}
        }
    }
    // Groups the unit does not close (it ends inside them).
    for openers in stack {
        choose(openers, &mut kept);
    }
    kept
}

/// The text of the second reading.
pub(crate) struct Masked {
    pub(crate) text: String,
    /// File-scope macro invocations hidden from the parser.
    pub(crate) hidden_macros: Vec<Range<usize>>,
    /// `#pragma omp` lines hidden because they split a statement.
    pub(crate) hidden_omp: Vec<Range<usize>>,
}

/// Whether a line starting at `at` stands inside a statement: the code
/// before it (already masked) does not end with `;`, `{` or `}`.
fn splits_statement(masked: &[u8], at: usize) -> bool {
    !matches!(
        code_before(masked, at).last(),
        None | Some(b';' | b'{' | b'}')
    )
}

/// The text before `at` without the blanks and comments that end it.
fn code_before(text: &[u8], at: usize) -> &[u8] {
    let mut before = text[..at].trim_ascii_end();
    loop {
        if before.ends_with(b"*/") {
            match find_back(before, b"/*") {
                Some(p) => before = before[..p].trim_ascii_end(),
                None => return before,
            }
            continue;
        }
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        // A directive line (kept, like a `#pragma omp` before this one).
        if before[line_start..].trim_ascii_start().starts_with(b"#") {
            before = before[..line_start].trim_ascii_end();
            continue;
        }
        // A `//` comment at the end of the last line.
        match find_back(&before[line_start..], b"//") {
            Some(p) if !before[line_start..line_start + p].contains(&b'"') => {
                before = before[..line_start + p].trim_ascii_end();
            }
            _ => return before,
        }
    }
}

fn find_back(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// A branch the GNU C compilers Regio serves never compile, often not C
/// at all: `#if 0`, and conditions on MSVC, Windows or C++ (`#ifdef
/// _MSC_VER`, `#if defined(_WIN32)`, `#ifdef __cplusplus`), unless negated.
pub(super) fn is_if_zero(line: &str) -> bool {
    let rest = line.trim_start().trim_start_matches('#').trim_start();
    let (word, cond) = match rest.find(|c: char| !c.is_ascii_alphabetic()) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let cond = cond.split("//").next().unwrap_or("");
    let cond = cond.split("/*").next().unwrap_or("").trim();
    const FOREIGN: &[&str] = &["_MSC_VER", "_WIN32", "_WIN64", "__cplusplus"];
    let foreign = |c: &str| {
        let c = c.trim();
        let c = c
            .strip_prefix("defined")
            .map(|d| {
                d.trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .trim()
            })
            .unwrap_or(c);
        FOREIGN.contains(&c)
    };
    // `defined(__cplusplus) && !defined(X)`: a conjunction with a foreign
    // term is foreign too.
    let conjunction = |c: &str| !c.contains("||") && c.split("&&").any(&foreign);
    match word {
        "if" | "elif" => cond == "0" || foreign(cond) || conjunction(cond),
        "ifdef" | "elifdef" => foreign(cond),
        _ => false,
    }
}

/// Whether `#ifndef X` / `#if !defined(X)` tests a foreign `X`: its
/// `#else` branch is for other compilers.
pub(super) fn negates_foreign(line: &str) -> bool {
    let rest = line.trim_start().trim_start_matches('#').trim_start();
    if let Some(c) = rest.strip_prefix("ifndef") {
        return is_if_zero(&format!("#ifdef {c}"));
    }
    match rest.strip_prefix("if").map(str::trim_start) {
        Some(c) if c.starts_with('!') && !c.contains("&&") && !c.contains("||") => {
            is_if_zero(&format!("#if {}", &c[1..]))
        }
        _ => false,
    }
}

/// Byte spans of `src` in branches no GNU C compiler compiles (see
/// [`is_if_zero`]; also the `#else` of `#ifndef _MSC_VER`), from their
/// directive line to the next of their group.
pub(crate) fn never_compiled(src: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    // Per open group: where its foreign branch started, if it is in one,
    // and whether its `#else` is foreign.
    let mut stack: Vec<(Option<usize>, bool)> = Vec::new();
    for line in logical_lines(src, 0..src.len()) {
        let text = &src[line.clone()];
        match directive_word(text) {
            Some("if" | "ifdef" | "ifndef") => {
                stack.push((
                    is_if_zero(text).then_some(line.start),
                    negates_foreign(text),
                ));
            }
            Some(w @ ("elif" | "elifdef" | "elifndef" | "else")) => {
                if let Some(top) = stack.last_mut() {
                    if let Some(from) = top.0.take() {
                        spans.push(from..line.start);
                    }
                    let foreign = is_if_zero(text) || (w == "else" && top.1);
                    top.0 = foreign.then_some(line.start);
                }
            }
            Some("endif") => {
                if let Some((Some(from), _)) = stack.pop() {
                    spans.push(from..line.end);
                }
            }
            _ => {}
        }
    }
    spans.sort_by_key(|r| r.start);
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The second reading's text of `src` as one unit.
    fn masked(src: &str) -> String {
        let whole = Range {
            start: 0,
            end: src.len(),
        };
        mask(src, &[whole], &HashSet::new(), Branch::First).text
    }

    #[test]
    fn one_branch_is_kept_and_offsets_stay() {
        let src = "int f(int i) {\n  for (;;)\n#ifdef W\n    i += 2;\n#else\n    i += 1;\n#endif\n  return i;\n}\n";
        let m = masked(src);
        assert_eq!(m.len(), src.len());
        assert!(m.contains("i += 2;"));
        assert!(!m.contains("i += 1;"));
        assert!(!m.contains('#'));
        assert_eq!(m.lines().count(), src.lines().count());
    }

    #[test]
    fn if_zero_keeps_the_else_branch_and_own_pragmas_stay() {
        let src = "#if 0\nnot C at all\n#else\nx++;\n#endif\n#pragma omp barrier\n#pragma GCC ivdep\nfor (;;)\n#pragma GCC unroll 4\n  y++;\n#define X 1\n#\n";
        let m = masked(src);
        assert!(!m.contains("not C"));
        assert!(m.contains("x++;"));
        assert!(m.contains("#pragma omp barrier"));
        // Before a statement a pragma stays (it binds the loop); inside
        // one it is hidden.
        assert!(m.contains("#pragma GCC ivdep"));
        assert!(!m.contains("unroll"));
        assert!(!m.contains("define"));
    }

    #[test]
    fn branches_for_other_compilers_are_not_read() {
        for line in [
            "#if 0",
            "#ifdef _MSC_VER",
            "#if defined(_WIN32)",
            "#elif defined _WIN64",
            "#ifdef __cplusplus",
        ] {
            assert!(is_if_zero(line), "{line}");
        }
        for line in [
            "#if 1",
            "#ifndef _MSC_VER",
            "#ifdef __GNUC__",
            "#if !defined(_WIN32)",
        ] {
            assert!(!is_if_zero(line), "{line}");
        }
    }

    #[test]
    fn the_last_reading_keeps_the_else_or_no_branch() {
        let src = "int f(void) {\n#if M != 3\n  prose\n#endif\n#ifdef A\n  a();\n#elif defined(_MSC_VER)\n  __asm { x }\n#else\n  c();\n#endif\n  return 0;\n}\nint g;\n";
        let unit = 0..src.find("int g").unwrap_or(0);
        let last = mask(
            src,
            std::slice::from_ref(&unit),
            &HashSet::new(),
            Branch::Last,
        )
        .text;
        assert_eq!(last.len(), src.len());
        assert!(!last.contains("prose") && !last.contains("a();"), "{last}");
        assert!(!last.contains("__asm") && last.contains("c();"), "{last}");
        // Only the units are read.
        assert!(!last.contains("int g"), "{last}");
        let first = mask(src, &[unit], &HashSet::new(), Branch::First).text;
        assert!(first.contains("prose") && first.contains("a();"), "{first}");
        assert!(
            !first.contains("c();") && first.contains("int g"),
            "{first}"
        );
    }

    #[test]
    fn branches_no_gnu_c_compiler_compiles() {
        let src = "#if defined(_MSC_VER)\nA\n#elif defined(__GNUC__)\nB\n#endif\n#ifndef _WIN32\nC\n#else\nD\n#endif\n#if defined(__cplusplus) && !defined(L)\nE\n#endif\n#if X || defined(__cplusplus)\nF\n#endif\n";
        let spans = never_compiled(src);
        let inside = |t: &str| {
            let at = src.find(t).unwrap_or(0);
            spans.iter().any(|s| s.contains(&at))
        };
        assert!(inside("A\n") && inside("D\n") && inside("E\n"), "{spans:?}");
        assert!(
            !inside("B\n") && !inside("C\n") && !inside("F\n"),
            "{spans:?}"
        );
    }

    #[test]
    fn continued_directives_are_blanked_whole() {
        let src = "#define TWO \\\n  2\nint x = 1;\n";
        let m = masked(src);
        assert!(!m.contains('2'));
        assert!(m.contains("int x = 1;"));
    }

    #[test]
    fn a_loop_body_made_of_alternatives_closes_after_endif() {
        let src = "for (i = 0; i < n; i++)\n#ifdef W\n    s += 2;\n#else\n    s += 1;\n#endif\nreturn s;\n";
        let g = groups(src, 0..src.len())[0].clone();
        let close = src.find("2;").unwrap() + 2;
        let mut edits = vec![Edit::insert(close, probes::LOOP_CLOSE)];
        close_after_group(src, &g, &mut edits);
        assert_eq!(edits[0].offset, g.end);
        assert_eq!(&src[g.end..], "return s;\n");

        let tail = "do {\n    s++;\n#if R == D\n    } while (f(\"%lf\") < 1);\n#else\n    } while (f(\"%f\") < 1);\n#endif\nreturn s;\n";
        let g = groups(tail, 0..tail.len())[0].clone();
        let close = tail.find("< 1);").unwrap() + 5;
        let call = [
            Edit::insert(tail.find("f(").unwrap(), "regio__enter(2u), "),
            Edit::insert(close - 2, ", regio__exit(2u)"),
        ];
        let mut edits = vec![
            call[0].clone(),
            call[1].clone(),
            Edit::insert(close, probes::LOOP_CLOSE),
        ];
        close_after_group(tail, &g, &mut edits);
        assert_eq!(edits[2].offset, g.end, "a do tail per branch: moved");
        assert!(whole_in_branches(tail, &g, &edits));

        let two = "for (;;)\n#ifdef W\n    a(); b();\n#else\n    c();\n#endif\n";
        let g = groups(two, 0..two.len())[0].clone();
        let close = two.find("b();").unwrap() + 4;
        let mut edits = vec![Edit::insert(close, probes::LOOP_CLOSE)];
        close_after_group(two, &g, &mut edits);
        assert_eq!(edits[0].offset, close, "two statements in a branch: left");

        // Without `#else` the loop's body is what follows `#endif` in the
        // other configuration: a close moved there would cut it off.
        let lone = "for (;;)\n#ifdef W\n    s += 2;\n#endif\ns++;\n";
        let g = groups(lone, 0..lone.len())[0].clone();
        let close = lone.find("2;").unwrap() + 2;
        let mut edits = vec![Edit::insert(close, probes::LOOP_CLOSE)];
        close_after_group(lone, &g, &mut edits);
        assert_eq!(edits[0].offset, close, "no #else: left");

        // The branches end the body's one statement (AMG's matvec).
        let tail = "for (j = 0; j < n; j++)\n    y[m(j)]\n#ifdef P\n    += r[k++];\n#else\n    += b[0][k++];\n#endif\nreturn 0;\n";
        let g = groups(tail, 0..tail.len())[0].clone();
        let close = tail.find("k++];").unwrap() + 5;
        let mut edits = vec![Edit::insert(close, probes::LOOP_CLOSE)];
        close_after_group(tail, &g, &mut edits);
        assert_eq!(edits[0].offset, g.end, "tails of one statement: moved");
    }

    #[test]
    fn nested_groups_are_whole_when_every_level_is() {
        let src = "{\n#ifdef W\nwhile (b) {\n#if N > 1\nc1 = 1;\n#endif\n}\n#endif\n}\n";
        let g = groups(src, 0..src.len())[0].clone();
        let at = |t: &str| src.find(t).unwrap_or(0);
        // A loop region around the nested group, a call inside it.
        let open = Edit::insert(at("while"), "regio__enter(1u); ");
        let close = Edit::insert(at("}\n#endif") + 1, " regio__exit(1u);");
        let call = [
            Edit::insert(at("c1"), "regio__enter(2u); "),
            Edit::insert(at("c1 = 1;") + 7, " regio__exit(2u);"),
        ];
        let mut edits = vec![open.clone(), close.clone()];
        assert!(whole_in_branches(src, &g, &edits));
        edits.extend(call.iter().cloned());
        assert!(whole_in_branches(src, &g, &edits));
        // Half a region in the nested group: not whole.
        let half = vec![open, close, call[0].clone()];
        assert!(!whole_in_branches(src, &g, &half));
    }

    #[test]
    fn groups_are_outermost_spans() {
        let src = "a;\n#if A\n#if B\nb;\n#endif\n#endif\nc;\n#ifdef D\n";
        let g = groups(src, 0..src.len());
        assert_eq!(g.len(), 2);
        assert_eq!(&src[g[0].clone()], "#if A\n#if B\nb;\n#endif\n#endif\n");
        assert_eq!(g[1].end, src.len());
    }
}
