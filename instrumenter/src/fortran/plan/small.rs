//! The shape of a Fortran program unit for the small-function rule
//! (`crate::small_functions`, which decides).

use super::super::scan::Item;
use super::super::syntax::{Construct, Kind, Spec, UnitKind};
use super::Planner;
use crate::small_functions::Shape;

impl Planner<'_> {
    /// What program unit `u` holds (its own statements, not those of its
    /// internal procedures).
    pub(super) fn small_shape(&self, u: usize) -> Shape {
        let unit = &self.st.units[u];
        let own_name = unit.header.as_ref().and_then(|h| h.name.as_ref());
        let mut s = Shape {
            program: unit.kind == UnitKind::Program,
            recursive: unit.header.as_ref().is_some_and(|h| h.recursive),
            // A referenced label is a jump target.
            jumps: self.st.labels.keys().any(|&(of, _)| of == u),
            ..Shape::default()
        };
        let to = unit.contains.unwrap_or(unit.end).min(self.items.len());
        for i in unit.first..to {
            if self.st.unit_of[i] != Some(u) {
                continue;
            }
            if matches!(self.items[i], Item::Omp(_) | Item::Regio(_)) {
                s.directives = true;
                continue;
            }
            let Some(kind) = &self.kinds[i] else { continue };
            let kind = match kind {
                Kind::LogicalIf { action, .. } => {
                    s.statements += 1;
                    action.as_ref()
                }
                k => k,
            };
            if kind.is_executable() {
                s.statements += 1;
            }
            match kind {
                Kind::Do { .. }
                | Kind::Open {
                    of: Construct::Where | Construct::Forall,
                    ..
                } => s.loops = true,
                // An array (type declaration, DIMENSION, COMMON) may be
                // assigned whole in one statement: an implicit loop the
                // statement count cannot see.
                Kind::Spec(Spec::Decl { arrays, .. }) if !arrays.is_empty() => s.loops = true,
                Kind::Goto(_)
                | Kind::ComputedGoto(_)
                | Kind::AssignedGoto(_)
                | Kind::ArithIf(_)
                | Kind::Assign(_)
                | Kind::Entry(_) => s.jumps = true,
                Kind::Call { callee, alt } => {
                    if !alt.is_empty() {
                        s.jumps = true;
                    }
                    if own_name.is_some_and(|n| n.upper == callee.upper) {
                        s.recursive = true;
                    }
                    let upper = callee.upper.as_str();
                    if upper.starts_with("MPI_")
                        || (upper.starts_with("OMP_") && upper.contains("LOCK"))
                    {
                        s.directives = true;
                    }
                }
                _ => {}
            }
        }
        s
    }
}
