//! Which regions an OpenMP construct gets and where their probes go: one
//! row per construct ([`row`]), read by both front ends, which only render
//! it in their language (C: `c/omp_probes.rs`; Fortran:
//! `fortran/plan/openmp.rs`, `omp_regions` and `omp_probes`).
//!
//! The idea is OPARI2's handler table (one handler per construct name),
//! taken one step further: a row is data, not code. A row is a list of
//! parts, outermost first: one for a plain construct, several for a
//! combined construct that is split (`parallel for` = a `parallel` part
//! whose body holds a `for` part). Each part lists its region specs in
//! the order the regions are created, which is the order of their ids.
//!
//! Probe places are relative to a part's directive and body:
//!
//! ```text
//!   [BeforeDirective]  directive  [BodyStart]  body  [BodyEnd]  end  [AfterConstruct]  [Following]
//! ```
//!
//! At the places that open (before the directive, first in the body)
//! probes come in spec order; at the places that close, in reverse spec
//! order, so regions of one part nest. `Following` is an added explicit
//! barrier after the construct (its implicit one was removed with
//! `nowait`).

use regio_idf::OmpKind;

use crate::omp_clauses::{Construct, Inner, Worksharing};

/// The language a row is rendered in: the loop construct's kind and words
/// (`for` / `do`) and the few historic differences below depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    C,
    Fortran,
}

/// Which of a construct's regions a spec is; a front end keys the ids of
/// one construct by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Slot {
    Main = 0,
    Fork = 1,
    Join = 2,
    Barrier = 3,
    /// The inner part: the work-sharing half of a combined construct, a
    /// single's body, a task's execution, a critical's or ordered's wait,
    /// the taskloop of a masked taskloop.
    Inner = 4,
    /// Once per iteration of a taskloop, once per team of a `teams`.
    Body = 6,
    /// The masked (or master) part of `parallel masked ...`.
    Masked = 7,
}

/// The ids of one construct's regions, by slot (absent: the region does
/// not exist, see [`Presence`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct SlotIds([Option<u32>; 8]);

impl SlotIds {
    pub(crate) fn get(&self, slot: Slot) -> Option<u32> {
        self.0[slot as usize]
    }

    pub(crate) fn set(&mut self, slot: Slot, id: u32) {
        self.0[slot as usize] = Some(id);
    }

    pub(crate) fn has(&self, slot: Slot) -> bool {
        self.get(slot).is_some()
    }
}

/// A region's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Name {
    /// The directive's: `<words joined by _>@<line>`, `critical(NAME)@<line>`.
    Directive,
    /// `<kind>@<line>`.
    Kind,
}

/// What a region's `aux` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Aux {
    /// Nothing (`{}`).
    Empty,
    /// `clauses`: the directive's clause text as written.
    Clauses,
    /// `clauses` and `combined`: the directive's words (a part of a split
    /// combined construct).
    Combined,
    /// `clauses`, and `combined` when the directive has several words (a
    /// combined construct measured as a whole).
    Written,
}

/// How a region nests in the IDF (a front end's parent rule: a region is
/// the child of the nearest earlier region of its construct that
/// encloses, else of the region around the construct; see [`parent`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nest {
    /// Nothing nests inside (fork, join, barriers, waits).
    Leaf,
    /// Later regions of the construct and the regions of its body nest
    /// inside.
    Encloses,
    /// A per-team, per-iteration or one-thread body: encloses the body's
    /// regions in Fortran; C lists them under the construct's region
    /// instead (historic; kept so that no IDF changes).
    EnclosesInFortran,
}

/// Where a probe goes, relative to its part (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    BeforeDirective,
    BodyStart,
    BodyEnd,
    AfterConstruct,
    Following,
}

impl Place {
    /// Whether probes here come in reverse spec order.
    pub(crate) fn closes(self) -> bool {
        matches!(
            self,
            Place::BodyEnd | Place::AfterConstruct | Place::Following
        )
    }
}

/// The probes of one region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probes {
    /// `enter` at the first place, `exit` at the second.
    Plain(Place, Place),
    /// A parallel region: `regio_omp_fork` before the directive (its team
    /// token goes in with an added `firstprivate`), `regio_omp_join` after
    /// the construct.
    ForkJoin,
    /// The fork region: `regio_omp_begin` first in the body.
    TeamBegin,
    /// The join region: `regio_omp_end` last in the body.
    TeamEnd,
    /// A host teams body: `regio_omp_teams_begin` first, `regio_omp_teams_end`
    /// last in the body.
    TeamsBody,
    /// Around an added explicit `barrier` at that place.
    Barrier(Place),
    /// Entered first and left last in each iteration of the innermost loop
    /// bound to the directive.
    PerIteration,
}

/// One probe, as the front ends write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Atom {
    Enter(Slot),
    Exit(Slot),
    /// `regio_omp_fork` for the parallel region in the slot.
    Fork(Slot),
    /// `regio_omp_join` for the parallel region in the slot.
    Join(Slot),
    /// `regio_omp_begin(team of Main, slot)`.
    Begin(Slot),
    /// `regio_omp_end(team of Main, slot)`.
    End(Slot),
    TeamsBegin(Slot),
    TeamsEnd(Slot),
    /// enter, an explicit `barrier`, exit.
    Barrier(Slot),
}

impl Probes {
    /// The probes at `place` for the region in `slot`.
    fn at(self, place: Place, slot: Slot) -> Vec<Atom> {
        let mut out = Vec::new();
        match self {
            Probes::Plain(enter, exit) => {
                if enter == place {
                    out.push(Atom::Enter(slot));
                }
                if exit == place {
                    out.push(Atom::Exit(slot));
                }
            }
            Probes::ForkJoin if place == Place::BeforeDirective => out.push(Atom::Fork(slot)),
            Probes::ForkJoin if place == Place::AfterConstruct => out.push(Atom::Join(slot)),
            Probes::TeamBegin if place == Place::BodyStart => out.push(Atom::Begin(slot)),
            Probes::TeamEnd if place == Place::BodyEnd => out.push(Atom::End(slot)),
            Probes::TeamsBody if place == Place::BodyStart => out.push(Atom::TeamsBegin(slot)),
            Probes::TeamsBody if place == Place::BodyEnd => out.push(Atom::TeamsEnd(slot)),
            Probes::Barrier(p) if p == place => out.push(Atom::Barrier(slot)),
            _ => {}
        }
        out
    }
}

/// When a region exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    Always,
    /// An implicit barrier made explicit: only when no `nowait` is written
    /// and no `kept_by` clause (the construct then keeps its own barrier
    /// inside its region), and (C) no `cancel`/`cancellation point` for
    /// construct `cancel` is inside. When it exists, `nowait` is added to
    /// the directive (C) or its end directive (Fortran).
    Barrier {
        kept_by: Option<&'static str>,
        cancel: Option<&'static str>,
    },
    /// Per iteration: C always; Fortran only when the innermost bound
    /// loop can take a region (an END DO loop nothing jumps out of).
    LoopBody,
}

/// One region of a construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spec {
    pub(crate) slot: Slot,
    pub(crate) kind: OmpKind,
    pub(crate) name: Name,
    pub(crate) aux: Aux,
    pub(crate) nest: Nest,
    pub(crate) probes: Probes,
    pub(crate) presence: Presence,
}

/// What a part of a row is, which decides its directive words, its share
/// of the clauses and its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The construct as written (words, all clauses).
    Whole,
    /// The `parallel` of a split combined construct.
    Parallel,
    /// `masked` / `master` of a split combined construct.
    Masked { master: bool },
    /// The work-sharing part of a split `parallel ...`: the parallel's
    /// barrier follows, so `nowait` is added where the construct takes
    /// one (not `loop`; C: not when a `cancel` for it is inside).
    Worksharing(Worksharing),
    /// The taskloop of a split combined construct.
    Taskloop { simd: bool },
}

impl Role {
    /// The directive words of a split part (None: as written).
    pub(crate) fn words(self, lang: Lang) -> Option<&'static str> {
        match self {
            Role::Whole => None,
            Role::Parallel => Some("parallel"),
            Role::Masked { master: true } => Some("master"),
            Role::Masked { master: false } => Some("masked"),
            Role::Worksharing(ws) => Some(ws.kind_and_words(lang == Lang::Fortran).1),
            Role::Taskloop { simd: true } => Some("taskloop simd"),
            Role::Taskloop { simd: false } => Some("taskloop"),
        }
    }

    /// Whether the part's own end barrier is removed with `nowait`
    /// (before a C `cancel` check).
    pub(crate) fn adds_nowait(self) -> bool {
        matches!(
            self,
            Role::Worksharing(
                Worksharing::For { .. } | Worksharing::Sections | Worksharing::Workshare
            )
        )
    }

    /// The construct a `cancel` inside must name to keep this part's
    /// barrier (C).
    pub(crate) fn cancel_word(self) -> Option<&'static str> {
        match self {
            Role::Worksharing(Worksharing::For { .. }) => Some("for"),
            Role::Worksharing(Worksharing::Sections) => Some("sections"),
            _ => None,
        }
    }
}

/// One constituent construct of a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) role: Role,
    pub(crate) regions: Vec<Spec>,
}

impl Part {
    /// The probes at `place`, in the order they are written.
    pub(crate) fn atoms(&self, place: Place, present: impl Fn(Slot) -> bool) -> Vec<Atom> {
        let mut specs: Vec<&Spec> = self.regions.iter().filter(|s| present(s.slot)).collect();
        if place.closes() {
            specs.reverse();
        }
        specs
            .into_iter()
            .flat_map(|s| s.probes.at(place, s.slot))
            .collect()
    }

    /// Whether a probe goes inside the body (so the body needs braces in
    /// C, and an end directive in Fortran).
    pub(crate) fn probes_in_body(&self, present: impl Fn(Slot) -> bool) -> bool {
        [Place::BodyStart, Place::BodyEnd]
            .into_iter()
            .any(|p| !self.atoms(p, &present).is_empty())
    }

    /// Whether a probe goes before or after the construct.
    pub(crate) fn probes_around(&self, present: impl Fn(Slot) -> bool) -> bool {
        [
            Place::BeforeDirective,
            Place::AfterConstruct,
            Place::Following,
        ]
        .into_iter()
        .any(|p| !self.atoms(p, &present).is_empty())
    }
}

/// The regions of one construct and where their probes go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// Outermost first; each later part stands in the body of the one
    /// before.
    pub(crate) parts: Vec<Part>,
    /// How the clauses of a split combined construct are divided
    /// (`omp_clauses::split_combined`): the inner construct and whether a
    /// masked part takes `filter`.
    pub(crate) split: Option<(Inner, bool)>,
}

impl Row {
    pub(crate) fn specs(&self) -> impl Iterator<Item = &Spec> {
        self.parts.iter().flat_map(|p| p.regions.iter())
    }

    /// Whether the row opens a team (fork/join runtime calls).
    pub(crate) fn forks(&self) -> bool {
        self.specs().any(|s| s.probes == Probes::ForkJoin)
    }

    pub(crate) fn has_teams_body(&self) -> bool {
        self.specs().any(|s| s.probes == Probes::TeamsBody)
    }
}

fn spec(slot: Slot, kind: OmpKind, name: Name, aux: Aux, nest: Nest, probes: Probes) -> Spec {
    Spec {
        slot,
        kind,
        name,
        aux,
        nest,
        probes,
        presence: Presence::Always,
    }
}

/// The usual region: entered before the directive, left after the
/// construct.
fn around(slot: Slot, kind: OmpKind, name: Name, aux: Aux) -> Spec {
    use Place::*;
    spec(
        slot,
        kind,
        name,
        aux,
        Nest::Encloses,
        Probes::Plain(BeforeDirective, AfterConstruct),
    )
}

/// Entered first and left last inside the body.
fn inside(slot: Slot, kind: OmpKind, name: Name, aux: Aux, nest: Nest) -> Spec {
    spec(
        slot,
        kind,
        name,
        aux,
        nest,
        Probes::Plain(Place::BodyStart, Place::BodyEnd),
    )
}

/// An implicit barrier made explicit after the construct.
fn explicit_barrier(kept_by: Option<&'static str>, cancel: Option<&'static str>) -> Spec {
    Spec {
        presence: Presence::Barrier { kept_by, cancel },
        ..spec(
            Slot::Barrier,
            OmpKind::ImplicitBarrier,
            Name::Kind,
            Aux::Empty,
            Nest::Leaf,
            Probes::Barrier(Place::Following),
        )
    }
}

fn part(role: Role, regions: Vec<Spec>) -> Part {
    Part { role, regions }
}

fn whole(regions: Vec<Spec>) -> Row {
    Row {
        parts: vec![part(Role::Whole, regions)],
        split: None,
    }
}

/// The `parallel` part: the team's regions.
fn parallel_part(role: Role) -> Part {
    use Slot::*;
    let leaf = |slot, kind, probes| spec(slot, kind, Name::Kind, Aux::Empty, Nest::Leaf, probes);
    part(
        role,
        vec![
            spec(
                Main,
                OmpKind::Parallel,
                Name::Kind,
                Aux::Clauses,
                Nest::Encloses,
                Probes::ForkJoin,
            ),
            leaf(Fork, OmpKind::Fork, Probes::TeamBegin),
            leaf(Join, OmpKind::Join, Probes::TeamEnd),
            // The parallel's own end barrier, made explicit just before
            // the team ends.
            leaf(
                Barrier,
                OmpKind::ImplicitBarrier,
                Probes::Barrier(Place::BodyEnd),
            ),
        ],
    )
}

fn masked_kind(master: bool) -> OmpKind {
    if master {
        OmpKind::Master
    } else {
        OmpKind::Masked
    }
}

/// A taskloop part: the taskloop around the construct and, unless SIMD
/// lanes run the iterations, its body once per iteration.
fn taskloop_regions(slot: Slot, name: Name, aux: Aux, simd: bool) -> Vec<Spec> {
    let mut out = vec![around(slot, OmpKind::Taskloop, name, aux)];
    if !simd {
        out.push(Spec {
            presence: Presence::LoopBody,
            ..spec(
                Slot::Body,
                OmpKind::TaskloopBody,
                Name::Kind,
                Aux::Empty,
                Nest::EnclosesInFortran,
                Probes::PerIteration,
            )
        });
    }
    out
}

/// The region kind of a work-sharing construct.
fn worksharing_kind(ws: Worksharing, lang: Lang) -> OmpKind {
    match ws {
        Worksharing::For { .. } if lang == Lang::Fortran => OmpKind::Do,
        Worksharing::For { .. } => OmpKind::For,
        Worksharing::Sections => OmpKind::Sections,
        Worksharing::Loop => OmpKind::Loop,
        Worksharing::Workshare => OmpKind::Workshare,
    }
}

/// The clause split of a combined construct's inner work-sharing part
/// (`workshare` takes the clauses `sections` would).
fn inner_of(ws: Worksharing) -> Inner {
    match ws {
        Worksharing::For { simd } => Inner::For { simd },
        Worksharing::Sections | Worksharing::Workshare => Inner::Sections,
        Worksharing::Loop => Inner::Loop,
    }
}

/// The row of `construct` (of directive words `words`) in `lang`; None for
/// constructs that are listed but not measured.
pub(crate) fn row(construct: Construct, words: &[String], lang: Lang) -> Option<Row> {
    use Aux::*;
    use Name::*;
    use Place::*;
    use Slot::*;
    Some(match construct {
        Construct::Parallel => Row {
            parts: vec![parallel_part(Role::Whole)],
            split: None,
        },
        Construct::ParallelWorksharing(ws) => Row {
            parts: vec![
                parallel_part(Role::Parallel),
                part(
                    Role::Worksharing(ws),
                    vec![around(Inner, worksharing_kind(ws, lang), Kind, Combined)],
                ),
            ],
            split: Some((inner_of(ws), false)),
        },
        Construct::ParallelMasked { master, taskloop } => {
            let mut parts = vec![
                parallel_part(Role::Parallel),
                part(
                    Role::Masked { master },
                    vec![inside(
                        Masked,
                        masked_kind(master),
                        Kind,
                        Combined,
                        Nest::Encloses,
                    )],
                ),
            ];
            if let Some(simd) = taskloop {
                parts.push(part(
                    Role::Taskloop { simd },
                    taskloop_regions(Inner, Kind, Combined, simd),
                ));
            }
            let inner = taskloop.map_or(crate::omp_clauses::Inner::None, |simd| {
                crate::omp_clauses::Inner::Taskloop { simd }
            });
            Row {
                parts,
                split: Some((inner, true)),
            }
        }
        Construct::Worksharing(ws) => {
            let mut regions = vec![around(Main, worksharing_kind(ws, lang), Directive, Clauses)];
            // `loop` takes no nowait: its own barrier stays inside it.
            if ws != Worksharing::Loop {
                let cancel = Role::Worksharing(ws).cancel_word();
                regions.push(explicit_barrier(None, cancel));
            }
            whole(regions)
        }
        Construct::MaskedTaskloop { master, simd } => Row {
            parts: vec![
                part(
                    Role::Masked { master },
                    vec![inside(
                        Main,
                        masked_kind(master),
                        Kind,
                        Combined,
                        Nest::Encloses,
                    )],
                ),
                part(
                    Role::Taskloop { simd },
                    taskloop_regions(Inner, Kind, Combined, simd),
                ),
            ],
            split: Some((crate::omp_clauses::Inner::Taskloop { simd }, true)),
        },
        // No barrier: a taskloop's end is its taskgroup.
        Construct::Taskloop { simd } => whole(taskloop_regions(Main, Directive, Clauses, simd)),
        Construct::Section => whole(vec![inside(
            Main,
            OmpKind::Section,
            Directive,
            Clauses,
            Nest::Encloses,
        )]),
        Construct::Single => {
            let single = around(Main, OmpKind::Single, Directive, Clauses);
            // The one thread's block.
            let body = inside(
                Inner,
                OmpKind::SingleBody,
                Kind,
                Empty,
                Nest::EnclosesInFortran,
            );
            // `copyprivate` needs the construct's own barrier.
            let barrier = explicit_barrier(Some("copyprivate"), None);
            // (Historic id order, kept so that no IDF changes.)
            whole(match lang {
                Lang::C => vec![single, body, barrier],
                Lang::Fortran => vec![single, barrier, body],
            })
        }
        Construct::Master => whole(vec![inside(
            Main,
            OmpKind::Master,
            Directive,
            Clauses,
            Nest::Encloses,
        )]),
        Construct::Masked => whole(vec![inside(
            Main,
            OmpKind::Masked,
            Directive,
            Clauses,
            Nest::Encloses,
        )]),
        Construct::Critical | Construct::Ordered => {
            let (kind, wait) = if construct == Construct::Critical {
                (OmpKind::Critical, OmpKind::CriticalWait)
            } else {
                (OmpKind::Ordered, OmpKind::OrderedWait)
            };
            whole(vec![
                around(Main, kind, Directive, Clauses),
                // Waiting to get in: from before the directive to the
                // first thing inside.
                spec(
                    Inner,
                    wait,
                    Kind,
                    Empty,
                    Nest::Leaf,
                    Probes::Plain(BeforeDirective, BodyStart),
                ),
            ])
        }
        Construct::Atomic => whole(vec![around(Main, OmpKind::Atomic, Directive, Clauses)]),
        Construct::Taskgroup => whole(vec![around(Main, OmpKind::Taskgroup, Directive, Clauses)]),
        // Around the construct on the creating thread, and inside it where
        // the task runs.
        Construct::Task => whole(vec![
            around(Main, OmpKind::TaskCreate, Kind, Clauses),
            inside(Inner, OmpKind::Task, Directive, Clauses, Nest::Encloses),
        ]),
        // Around the construct, and inside it once per team with the
        // team's number (runtime `teams` module).
        Construct::Teams => whole(vec![
            around(Main, OmpKind::Teams, Directive, Clauses),
            spec(
                Body,
                OmpKind::TeamsBody,
                Kind,
                Empty,
                Nest::EnclosesInFortran,
                Probes::TeamsBody,
            ),
        ]),
        // A combined `teams ...` / `distribute ...`: its first word.
        Construct::Around { .. } => {
            let kind = if words.first().is_some_and(|w| w == "distribute") {
                OmpKind::Distribute
            } else {
                OmpKind::Teams
            };
            whole(vec![around(Main, kind, Directive, Written)])
        }
        Construct::Barrier | Construct::Taskwait | Construct::Flush => {
            let kind = match construct {
                Construct::Barrier => OmpKind::Barrier,
                Construct::Taskwait => OmpKind::Taskwait,
                _ => OmpKind::Flush,
            };
            // Stand-alone: around the directive.
            whole(vec![spec(
                Main,
                kind,
                Directive,
                Clauses,
                Nest::Leaf,
                Probes::Plain(BeforeDirective, AfterConstruct),
            )])
        }
        Construct::NotMeasured { .. } => return None,
    })
}

/// The slot of the region a spec's region is a child of inside its
/// construct (None: the region around the construct): the nearest earlier
/// spec that encloses, in `lang`.
#[cfg(test)]
pub(crate) fn parent(row: &Row, slot: Slot, lang: Lang) -> Option<Slot> {
    let encloses = |s: &Spec| match s.nest {
        Nest::Leaf => false,
        Nest::Encloses => true,
        Nest::EnclosesInFortran => lang == Lang::Fortran,
    };
    let specs: Vec<&Spec> = row.specs().collect();
    let at = specs.iter().position(|s| s.slot == slot)?;
    specs[..at]
        .iter()
        .rev()
        .find(|s| encloses(s))
        .map(|s| s.slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_constructs() -> Vec<Construct> {
        use Worksharing as WS;
        let mut out = vec![
            Construct::Parallel,
            Construct::Section,
            Construct::Single,
            Construct::Master,
            Construct::Masked,
            Construct::Critical,
            Construct::Atomic,
            Construct::Barrier,
            Construct::Ordered,
            Construct::Task,
            Construct::Taskwait,
            Construct::Taskgroup,
            Construct::Flush,
            Construct::Teams,
        ];
        for ws in [
            WS::For { simd: false },
            WS::For { simd: true },
            WS::Sections,
            WS::Loop,
            WS::Workshare,
        ] {
            out.push(Construct::Worksharing(ws));
            out.push(Construct::ParallelWorksharing(ws));
        }
        for b in [false, true] {
            out.push(Construct::Taskloop { simd: b });
            out.push(Construct::Around { quiet: b });
            for simd in [false, true] {
                out.push(Construct::MaskedTaskloop { master: b, simd });
                out.push(Construct::ParallelMasked {
                    master: b,
                    taskloop: Some(simd),
                });
            }
            out.push(Construct::ParallelMasked {
                master: b,
                taskloop: None,
            });
        }
        out
    }

    #[test]
    fn every_row_has_a_main_region_and_distinct_slots() {
        for c in all_constructs() {
            for lang in [Lang::C, Lang::Fortran] {
                let row = row(c, &[], lang).unwrap();
                let slots: Vec<Slot> = row.specs().map(|s| s.slot).collect();
                assert_eq!(slots[0], Slot::Main, "{c:?}");
                for (i, s) in slots.iter().enumerate() {
                    assert!(!slots[..i].contains(s), "{c:?}: slot {s:?} twice");
                }
            }
        }
    }

    #[test]
    fn regions_of_one_part_nest_through_the_places() {
        // Every region is entered and left exactly once per part.
        for c in all_constructs() {
            let row = row(c, &[], Lang::C).unwrap();
            for part in &row.parts {
                for s in &part.regions {
                    let count = |f: fn(Atom) -> bool| {
                        [
                            Place::BeforeDirective,
                            Place::BodyStart,
                            Place::BodyEnd,
                            Place::AfterConstruct,
                            Place::Following,
                        ]
                        .into_iter()
                        .flat_map(|p| s.probes.at(p, s.slot))
                        .filter(|a| f(*a))
                        .count()
                    };
                    let total = count(|_| true);
                    let expected = match s.probes {
                        Probes::Plain(..) | Probes::ForkJoin | Probes::TeamsBody => 2,
                        Probes::TeamBegin | Probes::TeamEnd | Probes::Barrier(_) => 1,
                        Probes::PerIteration => 0,
                    };
                    assert_eq!(total, expected, "{c:?} {s:?}");
                }
            }
        }
    }

    #[test]
    fn parents_follow_the_nesting() {
        let row = row(
            Construct::ParallelMasked {
                master: false,
                taskloop: Some(false),
            },
            &[],
            Lang::C,
        )
        .unwrap();
        assert_eq!(parent(&row, Slot::Main, Lang::C), None);
        assert_eq!(parent(&row, Slot::Fork, Lang::C), Some(Slot::Main));
        assert_eq!(parent(&row, Slot::Barrier, Lang::C), Some(Slot::Main));
        assert_eq!(parent(&row, Slot::Masked, Lang::C), Some(Slot::Main));
        assert_eq!(parent(&row, Slot::Inner, Lang::C), Some(Slot::Masked));
        assert_eq!(parent(&row, Slot::Body, Lang::C), Some(Slot::Inner));
        let single = super::row(Construct::Single, &[], Lang::Fortran).unwrap();
        assert_eq!(
            parent(&single, Slot::Barrier, Lang::Fortran),
            Some(Slot::Main)
        );
        assert_eq!(
            parent(&single, Slot::Inner, Lang::Fortran),
            Some(Slot::Main)
        );
    }

    #[test]
    fn loop_kinds_follow_the_language() {
        let ws = Construct::Worksharing(Worksharing::For { simd: false });
        assert_eq!(
            row(ws, &[], Lang::C).unwrap().parts[0].regions[0].kind,
            OmpKind::For
        );
        assert_eq!(
            row(ws, &[], Lang::Fortran).unwrap().parts[0].regions[0].kind,
            OmpKind::Do
        );
    }
}
