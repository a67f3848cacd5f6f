//! Small functions: left unmeasured by default (issue 16 §2).
//!
//! A probe pair costs more than a function of a few straight-line
//! statements does, and in C it also stops the compiler from inlining the
//! function, hoisting its calls out of loops and merging them (md's `v` and
//! `dv`: `REGIO_DISABLE=1` alone cost +90 % there). So, like LLVM XRay,
//! which by default gives sleds only to functions of at least 200 machine
//! instructions or with a loop (`-fxray-instruction-threshold`), a function
//! whose body is straight-line and at most [`MAX_STATEMENTS`] statements
//! gets no probes. It is still listed in the IDF, with `aux.skipped:
//! "small"` and its statement count, so the report can say that its
//! callers' exclusive time includes it; `--small-functions` (or `--regions
//! all`) measures it.
//!
//! This module is the rule, as data both front ends fill in (C from the
//! tree-sitter body, Fortran from the statements of a program unit) and
//! one function that decides. A front end never decides on its own.

use serde_json::{Map, Value};

/// The most statements a small function may have (every statement at any
/// depth counts: a declaration with an initializer, an expression, an
/// `if` and each statement of its branches, a `return`). Chosen by
/// measurement (BENCHMARKS.md, "Small functions left unmeasured"): md's
/// `v`/`dv` have 1, CoMD's `zeroReal3` 3, `lcg61` 4 and `sortAtomsById`
/// 6, which with their call counts make most of those codes' probe cost;
/// the next larger functions that are called as often (CoMD's
/// `getBoxFromCoord`, Lua's `index2value`) have 15 and more and do enough
/// work per call to stay measured.
pub const MAX_STATEMENTS: usize = 6;

/// The `aux` key of an IDF entry for a small function, and its value
/// (defined with the IDF: the analysis reads them too).
pub use regio_idf::{AUX_SKIPPED as AUX_KEY, SKIPPED_SMALL as AUX_SMALL};
/// The `aux` key holding the statement count of such an entry.
pub const AUX_STATEMENTS: &str = "statements";

/// What a front end found in one function body.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// Statements at any depth (see [`MAX_STATEMENTS`]).
    pub statements: usize,
    /// A loop, or something that may hide one (a macro that expands to a
    /// loop or a `switch`, a bare block after a macro).
    pub loops: bool,
    /// A `goto`, a label, a computed jump, an ENTRY or an alternate return:
    /// not straight-line.
    pub jumps: bool,
    /// A directive (OpenMP, Regio) or a region Regio always measures
    /// (an MPI call) inside: the function stays a region so those keep a
    /// measured parent.
    pub directives: bool,
    /// It calls itself by name (or is declared RECURSIVE): its cost is
    /// not bounded by its size.
    pub recursive: bool,
    /// The main program (`main`, PROGRAM): always measured.
    pub program: bool,
}

/// Whether a function of this shape is left unmeasured by default.
pub fn is_small(shape: &Shape) -> bool {
    !shape.loops
        && !shape.jumps
        && !shape.directives
        && !shape.recursive
        && !shape.program
        && shape.statements <= MAX_STATEMENTS
}

/// `aux` of the IDF entry of a small function left unmeasured, added to
/// what the front end records for every function (`procedure`, ...).
pub fn mark(aux: &mut Map<String, Value>, shape: &Shape) {
    aux.insert(AUX_KEY.into(), Value::from(AUX_SMALL));
    aux.insert(AUX_STATEMENTS.into(), Value::from(shape.statements));
}

/// Whether an IDF entry is a small function left unmeasured.
pub fn is_marked(aux: &Map<String, Value>) -> bool {
    aux.get(AUX_KEY).and_then(Value::as_str) == Some(AUX_SMALL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_line_bodies_up_to_the_limit_are_small() {
        let small = Shape {
            statements: MAX_STATEMENTS,
            ..Shape::default()
        };
        assert!(is_small(&small));
        assert!(is_small(&Shape::default()));
        let big = Shape {
            statements: MAX_STATEMENTS + 1,
            ..small
        };
        assert!(!is_small(&big));
        for not_small in [
            Shape {
                loops: true,
                ..small
            },
            Shape {
                jumps: true,
                ..small
            },
            Shape {
                directives: true,
                ..small
            },
            Shape {
                recursive: true,
                ..small
            },
            Shape {
                program: true,
                ..small
            },
        ] {
            assert!(!is_small(&not_small), "{not_small:?}");
        }
    }

    #[test]
    fn the_mark_is_what_is_marked_reads() {
        let mut aux = Map::new();
        assert!(!is_marked(&aux));
        mark(
            &mut aux,
            &Shape {
                statements: 2,
                ..Shape::default()
            },
        );
        assert!(is_marked(&aux));
        assert_eq!(aux.get(AUX_STATEMENTS), Some(&Value::from(2)));
    }
}
