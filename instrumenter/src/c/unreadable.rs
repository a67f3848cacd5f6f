//! The parts of a file the C parser could not read, and what the front end
//! does about them: each is left exactly as written, named in a warning
//! and listed in the IDF, and the rest of the file is instrumented.
//!
//! tree-sitter recovers from what it cannot read by wrapping it in an ERROR
//! node (or inventing a MISSING token), and what it builds around such a
//! place cannot be trusted: a loop whose body it missed would get its
//! closing probe in the wrong place. So the unit left alone is the whole
//! function around the place, or outside functions the whole top-level
//! item, never less. Units that hold no `{` cannot hold a function body:
//! nothing of them would have been measured, so they cost no warning.

use std::ops::Range;

use regio_idf::{Region, RegionKind};
use serde_json::{Map, Value};

use crate::diag::Diagnostic;
use crate::frontend::SourceInput;

use super::parse::SyntaxError;
use super::syntax::Lines;

/// A block after `)` or `;`: a function body (K&R heads included).
fn holds_a_body(src: &str, range: Range<usize>) -> bool {
    src.get(range).is_some_and(|t| {
        t.match_indices('{')
            .any(|(at, _)| t[..at].trim_end().ends_with([')', ';']))
    })
}

/// Whether the unit `u` could have held measured code: it is named as a
/// function (and is not a data declaration the parser misread as one) or
/// holds a body-like block.
fn could_hold_code(src: &str, u: &Unit) -> bool {
    // A table whose initializer holds an `#if defined(X)` line has a `{`
    // after `)` too, but every `{` of it opens an initializer (Lua's
    // `mathlib[]`).
    u.defines_code
        || ((u.function.is_some() || holds_a_body(src, u.range.clone()))
            && !super::mask::declares_data_only(src, u.range.clone()))
}

fn only_blanks_and_comments(text: Option<&str>) -> bool {
    let Some(mut t) = text else {
        return false;
    };
    loop {
        t = t.trim_start();
        if let Some(rest) = t.strip_prefix("/*") {
            match rest.find("*/") {
                Some(end) => t = &rest[end + 2..],
                None => return false,
            }
        } else if let Some(rest) = t.strip_prefix("//") {
            t = rest.find('\n').map_or("", |end| &rest[end..]);
        } else {
            return t.is_empty();
        }
    }
}

/// One unit left as written.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    pub(crate) range: Range<usize>,
    pub(crate) function: Option<String>,
    /// The first unreadable place in it, and why.
    pub(crate) at: usize,
    pub(crate) reason: String,
    loose: bool,
    /// A file-scope macro use whose expansion may define functions
    /// (`macro_uses.rs`): listed although its text holds no body.
    defines_code: bool,
}

impl Unit {
    /// A file-scope macro use at `range` that defines `function` (or
    /// something unnamed that may be code), left as written because
    /// the text path cannot measure what only its expansion holds.
    pub(crate) fn macro_use(range: Range<usize>, function: Option<String>, reason: String) -> Unit {
        Unit {
            at: range.start,
            range,
            function,
            reason,
            loose: false,
            defines_code: true,
        }
    }
}

/// The units of one file left as written, sorted and disjoint.
#[derive(Debug, Default)]
pub(crate) struct Unreadable {
    units: Vec<Unit>,
}

impl Unreadable {
    /// Units from `errors` in `src`; a loose unit and its neighbour with
    /// only blanks and comments between them are one (a function the
    /// parser read as several pieces is left or taken whole).
    pub(crate) fn new(errors: &[SyntaxError], src: &str) -> Self {
        let mut all: Vec<Unit> = errors
            .iter()
            .map(|e| Unit {
                range: e.unit.clone(),
                function: e.function.clone(),
                loose: e.loose,
                at: e.start,
                reason: e.what.clone(),
                defines_code: false,
            })
            .collect();
        // A loose piece inside a function's braces (its recovery gave up
        // the definition): the unit is the whole function, head and K&R
        // declarations included, so a second reading can read it.
        if all.iter().any(|u| u.loose) {
            let items = super::items::braced_items(src);
            for u in all.iter_mut().filter(|u| u.loose) {
                if let Some(item) = super::items::function_around(&items, u.range.start) {
                    u.range = item.range.start.min(u.range.start)..item.range.end.max(u.range.end);
                }
            }
        }
        // A unit that a top-level `#if` group cuts (alternative function
        // headers: the group opens before the function and closes inside
        // it) takes the whole group, so a second reading sees both ends;
        // a group nested in another (`#ifndef MEX` around `#ifndef
        // ANSI_C` heads) as well.
        let groups = super::items::all_groups(src);
        for u in &mut all {
            loop {
                let r = u.range.clone();
                let Some(g) = groups.iter().find(|g| {
                    (g.start < r.start && r.start < g.end && g.end < r.end)
                        || (r.start < g.start && g.start < r.end && r.end < g.end)
                }) else {
                    break;
                };
                u.range = r.start.min(g.start)..r.end.max(g.end);
            }
        }
        // An implicit-`int` definition (`face() {`): the second reading
        // writes a type just before its name (mask.rs), which the unit
        // must hold.
        for u in &mut all {
            if let Some(place) = super::mask::implicit_int_type_place(src.as_bytes(), u.range.start)
            {
                u.range.start = place;
            }
        }
        all.sort_by_key(|u| (u.range.start, std::cmp::Reverse(u.range.end)));
        let mut units: Vec<Unit> = Vec::new();
        for u in all {
            match units.last_mut() {
                Some(last)
                    if u.range.start < last.range.end
                        || ((u.loose || last.loose)
                            && only_blanks_and_comments(
                                src.get(last.range.end..u.range.start),
                            )) =>
                {
                    last.loose |= u.loose;
                    // Nested or overlapping: one unit, named after the
                    // outer one and its first unreadable place.
                    last.range.end = last.range.end.max(u.range.end);
                    if u.at < last.at {
                        last.at = u.at;
                        last.reason = u.reason;
                    }
                }
                _ => units.push(u),
            }
        }
        Unreadable { units }
    }

    /// The units again, each that `pieces` splits into two or more
    /// function definitions or unreadable parts (a second reading's)
    /// replaced by one unit per piece. tree-sitter's recovery can swallow every function after
    /// an unreadable place into one ERROR node; read again, they are
    /// separate, and each is taken or left on its own. What lies between
    /// them (declarations, directives) holds nothing to measure. The
    /// function holding the first reading's place keeps its reason; the
    /// others name it.
    pub(crate) fn split_by(
        &self,
        src: &str,
        pieces: impl Fn(&Range<usize>) -> Option<Vec<(Range<usize>, Option<String>)>>,
    ) -> Unreadable {
        let mut units = Vec::new();
        for u in &self.units {
            match pieces(&u.range) {
                Some(ps) if ps.len() >= 2 => {
                    let line = src[..u.at.min(src.len())].matches('\n').count() + 1;
                    for (range, name) in ps {
                        let holds_the_place = range.contains(&u.at);
                        units.push(Unit {
                            at: if holds_the_place { u.at } else { range.start },
                            reason: if holds_the_place {
                                u.reason.clone()
                            } else {
                                format!("after line {line}: {}", u.reason)
                            },
                            loose: name.is_none(),
                            range,
                            function: name,
                            defines_code: false,
                        });
                    }
                }
                _ => units.push(u.clone()),
            }
        }
        Unreadable { units }
    }

    /// Byte ranges of the units.
    pub(crate) fn ranges(&self) -> Vec<Range<usize>> {
        self.units.iter().map(|u| u.range.clone()).collect()
    }

    /// The units but those a second reading recovered.
    pub(crate) fn without(&self, recovered: &[Range<usize>]) -> Unreadable {
        Unreadable {
            units: self
                .units
                .iter()
                .filter(|u| !recovered.contains(&u.range))
                .cloned()
                .collect(),
        }
    }

    /// The units that hold a conditional group (or part of one): those
    /// another choice of branches could read differently.
    pub(crate) fn with_groups(&self, src: &str) -> Unreadable {
        Unreadable {
            units: self
                .units
                .iter()
                .filter(|u| !super::recover::groups(src, u.range.clone()).is_empty())
                .cloned()
                .collect(),
        }
    }

    /// These units and `more`, in order.
    pub(crate) fn with_units(mut self, more: Vec<Unit>) -> Unreadable {
        self.units.extend(more);
        self.units.sort_by_key(|u| u.range.start);
        self
    }

    /// These units and `other`'s (disjoint from them), in order.
    pub(crate) fn merged_with(mut self, other: Unreadable) -> Unreadable {
        self.units.extend(other.units);
        self.units.sort_by_key(|u| u.range.start);
        self
    }

    /// Whether any unit overlaps `range`.
    pub(crate) fn overlaps(&self, range: &Range<usize>) -> bool {
        self.units
            .iter()
            .any(|u| u.range.start < range.end && range.start < u.range.end)
    }

    /// Whether the bytes `range` lie inside a unit left as written.
    pub(crate) fn covers(&self, range: Range<usize>) -> bool {
        let i = self.units.partition_point(|u| u.range.start <= range.start);
        i > 0 && range.end <= self.units[i - 1].range.end
    }

    /// The units that could have held measured code: functions, and other
    /// units with a block after `)` or `;` (a function body after a head
    /// the parser misread, K&R parameter declarations included).
    /// A unit wholly inside a branch no GNU C compiler compiles (`#if 0`,
    /// `#ifdef _MSC_VER`, `#if defined(__cplusplus) && ...`: `__asm {`
    /// blocks, C++ `try`) is never built, so nothing of it is lost.
    fn lost<'a>(&'a self, src: &'a str) -> impl Iterator<Item = &'a Unit> + 'a {
        let foreign = if self.units.is_empty() {
            Vec::new()
        } else {
            super::recover::never_compiled(src)
        };
        self.units.iter().filter(move |u| {
            could_hold_code(src, u)
                && !foreign
                    .iter()
                    .any(|f| f.start <= u.range.start && u.range.end <= f.end)
        })
    }

    /// Whether the unit at `range` could hold measured code (see `lost`).
    pub(crate) fn could_hold_code(&self, src: &str, range: &Range<usize>) -> bool {
        self.units
            .iter()
            .any(|u| u.range == *range && could_hold_code(src, u))
    }

    /// One `not measured` warning per unit that could have held measured
    /// code.
    pub(crate) fn warnings(&self, input: &SourceInput<'_>, lines: &Lines) -> Vec<Diagnostic> {
        self.lost(input.text)
            .map(|u| {
                let at = lines.pos(u.at);
                let what = match &u.function {
                    Some(f) => format!("function `{f}`"),
                    None => "this part of the file".to_string(),
                };
                Diagnostic::warning(
                    input.display_path,
                    at.line,
                    at.col,
                    format!("not measured: {what} left as written ({})", u.reason),
                )
            })
            .collect()
    }

    /// IDF entries for the units left as written (`aux.not_measured`),
    /// numbered from `first_id`; no probe ever names them.
    pub(crate) fn regions(
        &self,
        input: &SourceInput<'_>,
        lines: &Lines,
        first_id: u32,
    ) -> Vec<Region> {
        self.lost(input.text)
            .enumerate()
            .map(|(i, u)| {
                let start = lines.pos(u.range.start);
                let end = lines.pos(u.range.end.saturating_sub(1).max(u.range.start));
                let name = u
                    .function
                    .clone()
                    .unwrap_or_else(|| format!("unreadable@{}", start.line));
                let mut aux = Map::new();
                aux.insert("not_measured".into(), Value::from(u.reason.clone()));
                Region {
                    id: first_id + i as u32,
                    kind: RegionKind::Function,
                    name,
                    file: input.rel_path.to_string(),
                    unit: u.function.clone().unwrap_or_default(),
                    start,
                    end,
                    parent: None,
                    aux,
                }
            })
            .collect()
    }
}
