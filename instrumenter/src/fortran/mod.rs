//! The Fortran front end: fixed and free source form.
//!
//! Fortran is read statement by statement: a scanner per source form
//! (`scan`) joins continuation lines into statements and keeps an exact map
//! from every byte of the joined, canonical text back to the original
//! bytes (no normalised copy of the file exists, so nothing has to be
//! mapped back); `syntax` classifies each statement, `structure` pairs
//! program units, block constructs and labelled DO loops (also loops that
//! share a terminal statement); `parse` runs these three. `directives`
//! checks `!$regio` lines, `plan` decides regions and probes (`plan/`:
//! `regions`, `anchors`, `calls`, `jumps`, `probes`, `openmp`), `emit`
//! writes them as edits of the original text, and `unreadable` leaves a
//! file it cannot follow as written. tree-sitter-fortran is not used: it is a free-form grammar, and it
//! cannot read alternate returns (`*` dummies, `*10` arguments) or assigned
//! GO TO, whose handling is the point of this front end; its error
//! recovery then swallows the following statements.
//!
//! Emitted forms (ID is the region id):
//! * procedure or main program: `external :: regio_enter, regio_exit`
//!   before the first executable statement (after USE, IMPLICIT and the
//!   declarations, and before statement functions), `call regio_enter(ID)`
//!   after the statement functions; `call regio_exit(ID)` before END (or
//!   CONTAINS) and before every RETURN. The main program first calls
//!   `regio_register_idf('<IDF path>')`. `external` also satisfies
//!   `implicit none (external)`.
//! * ENTRY points: `go to L` before the ENTRY statement (so falling
//!   through it does not enter), `regio_u = ID; call regio_enter(ID); L
//!   continue` after it; exits of such procedures use `regio_u`.
//! * DO loop: `call regio_enter(ID)` before the DO statement but after its
//!   label (a jump to the label enters the loop), `call regio_exit(ID)`
//!   after END DO or the terminal statement. Loops sharing a terminal
//!   statement (`DO 10 I / DO 10 J / 10 CONTINUE`), and loops whose terminal
//!   statement needs probes itself, get fresh labels and a CONTINUE each,
//!   so every exit probe runs exactly when its loop ends. EXIT needs
//!   nothing: the loop's exit probe is the next statement, and the runtime's
//!   exit pops what is open inside.
//! * jumps that leave regions: `call regio_exit(ID)` of the outermost
//!   region left, before GO TO / RETURN / EXIT / CYCLE (a logical IF
//!   becomes an IF block: `if (c) then; call regio_exit(ID); goto 10; end
//!   if`); arithmetic IF, computed GO TO, alternate returns and I/O
//!   `END=`/`ERR=`/`EOR=` go through a trampoline (`L call regio_exit(ID);
//!   go to TARGET`) after the statement. STOP and ERROR STOP need nothing:
//!   the runtime writes its data at exit.
//! * I/O (`--regions io`: READ, WRITE, PRINT, OPEN, CLOSE, INQUIRE) and
//!   CALL sites (`--regions calls`): enter before, exit after the
//!   statement. Function references inside expressions are not call
//!   regions (Fortran cannot tell them from array elements without the
//!   declarations of every scope).
//! * `!$regio begin/end/disable/enable` lines are replaced by the calls.
//! * conditional-compilation lines (`!$ `; fixed form `c$`, `*$`, `!$` in
//!   columns 1-2) are code when compiled with OpenMP: their block
//!   constructs and labels count (an `!$omp do` binds to a DO loop written
//!   on them), and the probes of their own call/io/lock regions and of
//!   their jumps out of regions are written on such lines too, so they
//!   run exactly when the statement exists. A DO loop on such lines is no
//!   loop region (plain jumps out of it would need exits that exist only
//!   with OpenMP).
//! * PURE and ELEMENTAL procedures, and DO CONCURRENT, FORALL and WHERE
//!   bodies, cannot call the probes: such procedures are listed in the IDF
//!   with a `reason` in `aux`, such loops get a warning.
//!
//! Every line written fits 132 columns (free form) or 72 (fixed form):
//! long lists and the IDF path are continued, and deeply indented code
//! gets less indentation on probe lines where the probe needs the room.
//!
//! Line numbers: see `emit`. In short, every original statement keeps its
//! line: free-form probes share the statement's line where it stays within
//! 132 columns; otherwise (and always in fixed form) probes go on lines of
//! their own followed by a `# N "file"` line marker, which gfortran honours
//! with and without cpp. The output starts with `# 1 "file"` so that even
//! the lines before the first probe name the original file.
//!
//! Known limits: code in `#if` branches is read as if both branches were
//! there, so branches that open or close blocks differently are reported
//! as structure errors; an INCLUDEd file with executable statements before
//! the first executable statement of a procedure gets the declarations
//! after them; an assigned GO TO without a label list that leaves a region
//! is only warned about.

mod directives;
mod emit;
mod omp;
mod parse;
mod plan;
mod scan;
mod structure;
mod syntax;
mod unreadable;

#[cfg(test)]
mod omp_tests;
#[cfg(test)]
mod tests;

use std::path::Path;

use crate::diag::Diagnostic;
use crate::edit;
use crate::frontend::{FrontendResult, Instrumented, SourceInput};

use scan::Item;
use syntax::{Kind, UnitKind};
use unreadable::{left_as_written, Refusal};

/// How the compiler reads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceForm {
    Fixed,
    Free,
}

/// The source form gfortran assumes for a file name, or None for files
/// that are not Fortran sources.
pub fn form_for_path(path: &Path) -> Option<SourceForm> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "f90" | "f95" | "f03" | "f08" | "f18" => Some(SourceForm::Free),
        "f" | "for" | "f77" | "ftn" => Some(SourceForm::Fixed),
        _ => None,
    }
}

/// Instrument one Fortran source file read in `form`. What the scanner
/// cannot follow leaves the whole file as written: one `not measured`
/// warning per problem and an IDF entry for the file, so the build works
/// and nothing is lost silently. Only Regio directive errors refuse it.
pub fn instrument(input: &SourceInput<'_>, form: SourceForm) -> FrontendResult {
    match instrument_or_refuse(input, form) {
        Ok(done) => Ok(done),
        Err(Refusal::Directives(errors)) => Err(errors),
        Err(Refusal::Unreadable(problems)) => Ok(left_as_written(input, &problems)),
    }
}

fn instrument_or_refuse(
    input: &SourceInput<'_>,
    form: SourceForm,
) -> Result<Instrumented, Refusal> {
    let text = input.text;
    let file = input.display_path;
    let fixed = form == SourceForm::Fixed;
    let parse::Parsed {
        lines,
        items,
        kinds,
        structure: st,
    } = parse::parse(text, form, file)?;
    let skip_target = |t: usize| match &kinds[t] {
        Some(Kind::Header(h)) => {
            h.kind.is_procedure() && h.kind != UnitKind::Program || h.kind == UnitKind::Program
        }
        Some(Kind::Do { .. }) => true,
        _ => false,
    };
    let dirs =
        directives::analyse(text, file, &items, &st, skip_target).map_err(Refusal::Directives)?;
    let mut planner = plan::Planner::new(input, &items, &kinds, &st, &dirs);
    let regions = planner.regions();
    planner.probes();
    let plan = planner.finish()?;

    let mut warnings: Vec<Diagnostic> = st.warnings.clone();
    warnings.extend(dirs.warnings.iter().cloned());
    warnings.extend(plan.warnings.iter().cloned());
    warnings.sort_by_key(|d| (d.line, d.col));

    if plan.edits.iter().all(|e| e.is_empty()) {
        return Ok(Instrumented {
            text: text.to_string(),
            regions,
            warnings,
        });
    }
    let action_at = |i: usize| match (&items[i], &kinds[i]) {
        (Item::Stmt(s), Some(Kind::LogicalIf { action_at, .. })) => Some(s.orig(*action_at)),
        _ => None,
    };
    let mut em = emit::Emitter {
        text,
        fixed,
        lines: &lines,
        items: &items,
        edits: &plan.edits,
        display_path: file,
        out: Vec::new(),
        errors: Vec::new(),
    };
    em.run(&action_at);
    if !em.errors.is_empty() {
        return Err(Refusal::Unreadable(em.errors));
    }
    let body = edit::apply(text, &em.out)
        .map_err(|e| Refusal::Unreadable(vec![Diagnostic::error(file, 1, 1, e.to_string())]))?;
    // Lines before the first inserted marker must name the original file
    // too (compilers would otherwise report the copy's path).
    let out = format!("{}\n{body}", em.marker(1));
    Ok(Instrumented {
        text: out,
        regions,
        warnings,
    })
}
