//! The C text of the OpenMP probes: one construct's row of
//! `omp_constructs` rendered around its statement. The only place C
//! OpenMP probe text is written (the regions themselves come from the
//! row; `plan/openmp.rs` finds the statement and creates them).
//!
//! A part is written as
//! `[{ ] BEFORE _Pragma("omp WORDS CLAUSES") [{ ] BODY-START` before the
//! statement and `BODY-END[ }] AFTER FOLLOWING[ }]` after it, the body's
//! braces only when a probe goes inside, the outer ones only when one
//! goes around (so the probes and the construct stay one statement); later
//! parts of a split combined construct stand inside the body of the one
//! before. Nothing adds a line.

use std::fmt::Write as _;

use crate::c::omp::{self, Directive};
use crate::c::prelude::BASE;
use crate::c::probes;
use crate::omp_constructs::{Atom, Lang, Place, Presence, Probes, Role, Row, Slot, SlotIds};

/// The text before and after the statement of directive `d`, whose row is
/// `row` and regions `ids`; `cancels(w)`: a `cancel` for construct `w` is
/// inside (its barrier must stay).
pub(super) fn render(
    row: &Row,
    d: &Directive,
    ids: &SlotIds,
    cancels: impl Fn(&str) -> bool,
) -> (String, String) {
    let clauses = omp::clause_texts(d);
    let split = row
        .split
        .map(|(inner, masked)| omp::split_combined(d, inner, masked));
    let present = |s: Slot| ids.has(s);
    let mut before = String::new();
    let mut closers: Vec<String> = Vec::new();
    for (k, part) in row.parts.iter().enumerate() {
        // (A work-sharing part inside a split construct has no braces of
        // its own: the parallel's are around it.)
        let nested_worksharing = k > 0 && matches!(part.role, Role::Worksharing(_));
        let wrap = part.probes_around(present) && !nested_worksharing;
        let braces = part.probes_in_body(present);
        let words = part
            .role
            .words(Lang::C)
            .map_or_else(|| omp::words_of(d), str::to_string);
        let mut cl = match (part.role, &split) {
            (Role::Parallel, Some(s)) => s.parallel.clone(),
            (Role::Masked { .. }, Some(s)) => s.masked.clone(),
            (Role::Worksharing(_) | Role::Taskloop { .. }, Some(s)) => s.inner.clone(),
            _ => clauses.clone(),
        };
        if part.regions.iter().any(|s| s.probes == Probes::ForkJoin) {
            cl.push(format!("firstprivate({})", team(ids)));
        }
        let barrier_made_explicit = part
            .regions
            .iter()
            .any(|s| matches!(s.presence, Presence::Barrier { .. }) && present(s.slot));
        let merged = part.role.adds_nowait()
            && !part.role.cancel_word().is_some_and(&cancels)
            && !cl.iter().any(|c| c.trim() == "nowait");
        if barrier_made_explicit || merged {
            cl.push("nowait".into());
        }
        if wrap {
            before.push_str("{ ");
        }
        for a in part.atoms(Place::BeforeDirective, present) {
            let _ = write!(before, "{} ", text(a, ids));
        }
        before.push_str(&omp::pragma(&words, &cl));
        before.push(' ');
        if braces {
            before.push_str("{ ");
        }
        for a in part.atoms(Place::BodyStart, present) {
            let _ = write!(before, "{} ", text(a, ids));
        }
        let mut close = String::new();
        for a in part.atoms(Place::BodyEnd, present) {
            let _ = write!(close, " {}", text(a, ids));
        }
        if braces {
            close.push_str(" }");
        }
        for place in [Place::AfterConstruct, Place::Following] {
            for a in part.atoms(place, present) {
                let _ = write!(close, " {}", text(a, ids));
            }
        }
        if wrap {
            close.push_str(" }");
        }
        closers.push(close);
    }
    let after: String = closers.into_iter().rev().collect();
    if !d.has_body() {
        // A stand-alone directive: all of it in its place.
        before.push_str(after.trim_start());
        return (before, String::new());
    }
    (before, after)
}

/// The variable that carries the team token of the parallel region.
fn team(ids: &SlotIds) -> String {
    format!("regio__team{}", ids.get(Slot::Main).unwrap_or(0))
}

/// The C text of one probe.
fn text(a: Atom, ids: &SlotIds) -> String {
    let id = |s: Slot| ids.get(s).unwrap_or(0);
    match a {
        Atom::Enter(s) => probes::enter(id(s)),
        Atom::Exit(s) => probes::exit(id(s)),
        Atom::Fork(s) => format!(
            "__UINT64_TYPE__ {} = regio_omp_fork({BASE} + {}u);",
            team(ids),
            id(s)
        ),
        Atom::Join(_) => format!("regio_omp_join({});", team(ids)),
        Atom::Begin(s) => format!("regio_omp_begin({}, {BASE} + {}u);", team(ids), id(s)),
        Atom::End(s) => format!("regio_omp_end({}, {BASE} + {}u);", team(ids), id(s)),
        Atom::TeamsBegin(s) => format!("regio_omp_teams_begin({BASE} + {}u);", id(s)),
        Atom::TeamsEnd(s) => format!("regio_omp_teams_end({BASE} + {}u);", id(s)),
        Atom::Barrier(s) => format!(
            "{} _Pragma(\"omp barrier\") {}",
            probes::enter(id(s)),
            probes::exit(id(s))
        ),
    }
}
