//! The Fortran probe statements that hand an MPI call's argument values
//! to the runtime (`regio_mpi_msg`, `regio_mpi_post`, `regio_mpi_reqs` /
//! `regio_mpi_done`, `regio_mpi_coll`, `regio_mpi_start`,
//! `regio_mpi_comm_new`), from the
//! routine table's capture plan.
//!
//! Arguments are evaluated again after the call (the requests of a
//! completion call before it too), so only arguments that cannot have
//! side effects are passed: names, integer constants, `+ - * /`,
//! parentheses, the intrinsics `mod`, `modulo`, `min`, `max`, `abs`, and
//! for request arguments (variables the call writes) array elements.
//! Anything else (a function reference, an expression the check does not
//! know) leaves the call measured as a region only. With `use mpi_f08`
//! handles are passed as their `%MPI_VAL`. Receives and `Wait`/`Waitall`
//! pass their status argument (`regio_mpi_msg_status`,
//! `regio_mpi_done_status`), so a receive from `MPI_ANY_SOURCE` names its
//! sender; with `MPI_STATUS(ES)_IGNORE` they pass none. `Test` calls are
//! left out (their flag is LOGICAL).

use crate::mpi_routines::{
    self, Capture, Msg, Side, Spelling, SHAPE_IN_PLACE, SIDE_ARRAY, SIDE_AT_RANK,
};

/// Probe statements around one call: `before` runs before the call,
/// `record` right after it, before its region is left; `names` are the
/// runtime routines they call (for the `external` statement).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct FortranCapture {
    pub(crate) before: Option<String>,
    pub(crate) record: Vec<String>,
    pub(crate) names: Vec<&'static str>,
}

const INTRINSICS: &[&str] = &["mod", "modulo", "min", "max", "abs"];

/// Whether `a` is an expression the check knows has no side effects;
/// `variable`: also a subscripted name (an array element).
fn pure(a: &str, variable: bool) -> bool {
    let b = a.as_bytes();
    if b.is_empty() {
        return false;
    }
    let mut i = 0;
    let mut first = true;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'%') {
                i += 1;
            }
            let name = a[s..i].to_ascii_lowercase();
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if j < b.len() && b[j] == b'(' && !INTRINSICS.contains(&name.as_str()) {
                // Subscripts of the one variable a request argument names.
                if !(variable && first && s == 0) {
                    return false;
                }
            }
            first = false;
            continue;
        }
        if !(c.is_ascii_digit() || b"+-*/(), _".contains(&c)) {
            return false;
        }
        i += 1;
    }
    true
}

/// The capture statements for a call of `name` (any case) with argument
/// texts `args`, or None when it moves no message or an argument is not
/// known to be free of side effects.
pub(crate) fn capture(id: u32, name: &str, args: &[String], f08: bool) -> Option<FortranCapture> {
    let cap = mpi_routines::capture(name, Spelling::AnyCase)?;
    // The region's id as the probes pass it (the object's base added).
    let id = super::probes::id_expr(id);
    let arg = |at: usize, variable: bool| -> Option<String> {
        let a = args.get(at)?.trim();
        pure(a, variable).then(|| a.to_string())
    };
    let handle = |at: usize, variable: bool| -> Option<String> {
        let a = arg(at, variable)?;
        Some(if f08 { format!("{a}%MPI_VAL") } else { a })
    };
    // A status argument passed as it is (an INTEGER array, an element of
    // one, or a `TYPE(MPI_Status)`: no `%MPI_VAL`); the ignore markers
    // as written pass none (the runtime also recognises them).
    let status_arg = |at: usize| -> Option<String> {
        let a = arg(at, true)?;
        let ignore = a.eq_ignore_ascii_case("MPI_STATUS_IGNORE")
            || a.eq_ignore_ascii_case("MPI_STATUSES_IGNORE");
        (!ignore).then_some(a)
    };
    let msg_args = |m: &Msg| -> Option<String> {
        let or = |p: Option<usize>, none: &str| match p {
            Some(p) => arg(p, false),
            None => Some(none.to_string()),
        };
        let datatype = match m.datatype {
            Some(d) => handle(d, false)?,
            None => "0".to_string(),
        };
        Some(format!(
            "{}, {}, {}, {}, {datatype}",
            or(m.peer, "-1")?,
            or(m.tag, "0")?,
            handle(m.comm, false)?,
            or(m.count, "0")?
        ))
    };
    match cap {
        Capture::Messages(msgs) => {
            let mut record = Vec::new();
            let mut names = Vec::new();
            for m in &msgs {
                let (name, status) = match m.status.and_then(&status_arg) {
                    Some(st) => ("regio_mpi_msg_status", format!(", {st}")),
                    None => ("regio_mpi_msg", String::new()),
                };
                record.push(format!(
                    "call {name}({id}, {}, {}{status})",
                    m.kind.code(),
                    msg_args(m)?
                ));
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            Some(FortranCapture {
                before: None,
                record,
                names,
            })
        }
        Capture::Post {
            msg,
            request,
            persistent,
        } => {
            let kind = msg.kind.post_code(persistent);
            Some(FortranCapture {
                before: None,
                record: vec![format!(
                    "call regio_mpi_post({id}, {kind}, {}, {})",
                    msg_args(&msg)?,
                    handle(request, true)?
                )],
                names: vec!["regio_mpi_post"],
            })
        }
        Capture::Complete {
            count,
            requests,
            flag: None,
            status,
            every,
        } => {
            let n = match count {
                Some(c) => arg(c, false)?,
                None => "1".into(),
            };
            let reqs = handle(requests, true)?;
            let all = if every { 1 } else { 0 };
            // Statuses count only when every request completed (then
            // they are in request order).
            let (done, record) = match status.filter(|_| every).and_then(&status_arg) {
                Some(st) => (
                    "regio_mpi_done_status",
                    format!("call regio_mpi_done_status({id}, {n}, {reqs}, {all}, {st})"),
                ),
                None => (
                    "regio_mpi_done",
                    format!("call regio_mpi_done({id}, {n}, {reqs}, {all})"),
                ),
            };
            Some(FortranCapture {
                before: Some(format!("call regio_mpi_reqs({n}, {reqs})")),
                record: vec![record],
                names: vec!["regio_mpi_reqs", done],
            })
        }
        Capture::Collective(coll) => {
            // Counts go by reference: a scalar or (count arrays, as the
            // shape says) the array's first element.
            let side = |s: Option<Side>| -> Option<String> {
                let Some(s) = s else {
                    return Some("0, 0".into());
                };
                let array = s.flags & (SIDE_ARRAY | SIDE_AT_RANK) != 0;
                Some(format!(
                    "{}, {}",
                    arg(s.count, array)?,
                    handle(s.datatype, false)?
                ))
            };
            let root = match coll.root {
                Some(r) => arg(r, false)?,
                None => "-1".into(),
            };
            // `MPI_IN_PLACE` as written (a buffer's address cannot be
            // compared in Fortran).
            let in_place = coll
                .in_place
                .and_then(|b| args.get(b))
                .is_some_and(|b| b.trim().eq_ignore_ascii_case("MPI_IN_PLACE"));
            let shape = coll.shape(false) | if in_place { SHAPE_IN_PLACE } else { 0 };
            Some(FortranCapture {
                before: None,
                record: vec![format!(
                    "call regio_mpi_coll({id}, {shape}, {root}, {}, {}, {})",
                    handle(coll.comm, false)?,
                    side(coll.send)?,
                    side(coll.recv)?
                )],
                names: vec!["regio_mpi_coll"],
            })
        }
        Capture::Start { count, requests } => {
            let n = match count {
                Some(c) => arg(c, false)?,
                None => "1".into(),
            };
            Some(FortranCapture {
                before: None,
                record: vec![format!(
                    "call regio_mpi_start({id}, {n}, {})",
                    handle(requests, true)?
                )],
                names: vec!["regio_mpi_start"],
            })
        }
        Capture::CommNew { parent, new } => Some(FortranCapture {
            before: None,
            record: vec![format!(
                "call regio_mpi_comm_new({}, {})",
                handle(parent, false)?,
                handle(new, true)?
            )],
            names: vec!["regio_mpi_comm_new"],
        }),
        Capture::Complete { .. } | Capture::RequestFree { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn only_arguments_without_side_effects_are_passed() {
        assert!(pure("mod(rank + 1, nprocs)", false));
        assert!(pure("MPI_COMM_WORLD", false));
        assert!(pure("req(1)", true));
        assert!(!pure("req(1)", false));
        assert!(!pure("next_peer(rank)", false));
        assert!(!pure("x .and. y", false));
        let c = capture(
            4,
            "MPI_SEND",
            &args(&[
                "buf",
                "1",
                "MPI_INTEGER",
                "right",
                "30",
                "MPI_COMM_WORLD",
                "ierr",
            ]),
            false,
        );
        assert_eq!(
            c.map(|c| c.record),
            Some(vec![
                "call regio_mpi_msg(regio_b + 4, 0, right, 30, MPI_COMM_WORLD, 1, MPI_INTEGER)"
                    .to_string()
            ])
        );
        let f08 = capture(
            5,
            "mpi_irecv",
            &args(&[
                "b",
                "1",
                "MPI_INTEGER8",
                "left",
                "20",
                "comm",
                "req(1)",
                "ierr",
            ]),
            true,
        );
        assert_eq!(
            f08.map(|c| c.record),
            Some(vec!["call regio_mpi_post(regio_b + 5, 1, left, 20, comm%MPI_VAL, 1, MPI_INTEGER8%MPI_VAL, req(1)%MPI_VAL)".to_string()])
        );
        let gather = capture(
            7,
            "MPI_GATHERV",
            &args(&[
                "s",
                "n",
                "MPI_REAL8",
                "r",
                "counts",
                "displs",
                "MPI_REAL8",
                "0",
                "comm",
                "ierr",
            ]),
            false,
        );
        assert_eq!(
            gather.map(|c| c.record),
            Some(vec![
                "call regio_mpi_coll(regio_b + 7, 21808, 0, comm, n, MPI_REAL8, counts, MPI_REAL8)"
                    .to_string()
            ])
        );
        // MPI_IN_PLACE as written sets the shape's in-place bit.
        let allreduce = |sendbuf: &str| {
            capture(
                3,
                "mpi_allreduce",
                &args(&[sendbuf, "x", "1", "MPI_INTEGER", "MPI_SUM", "comm", "ierr"]),
                false,
            )
            .map(|c| c.record)
        };
        assert_eq!(
            allreduce("mpi_in_place"),
            Some(vec!["call regio_mpi_coll(regio_b + 3, 152146, -1, comm, 1, MPI_INTEGER, 1, MPI_INTEGER)".to_string()])
        );
        assert_eq!(
            allreduce("y"),
            Some(vec![
                "call regio_mpi_coll(regio_b + 3, 21074, -1, comm, 1, MPI_INTEGER, 1, MPI_INTEGER)"
                    .to_string()
            ])
        );
        // Receives and waits pass their status; the ignore markers none.
        let recv = |status: &str| {
            capture(
                8,
                "MPI_Recv",
                &args(&[
                    "b",
                    "n",
                    "MPI_INTEGER",
                    "MPI_ANY_SOURCE",
                    "3",
                    "comm",
                    status,
                    "ierr",
                ]),
                true,
            )
            .map(|c| (c.record, c.names))
        };
        assert_eq!(
            recv("st"),
            Some((vec!["call regio_mpi_msg_status(regio_b + 8, 1, MPI_ANY_SOURCE, 3, comm%MPI_VAL, n, MPI_INTEGER%MPI_VAL, st)".to_string()], vec!["regio_mpi_msg_status"]))
        );
        assert_eq!(
            recv("mpi_status_ignore"),
            Some((vec!["call regio_mpi_msg(regio_b + 8, 1, MPI_ANY_SOURCE, 3, comm%MPI_VAL, n, MPI_INTEGER%MPI_VAL)".to_string()], vec!["regio_mpi_msg"]))
        );
        let waitall = capture(
            9,
            "MPI_WAITALL",
            &args(&["4", "req", "stats", "ierr"]),
            false,
        );
        assert_eq!(
            waitall.map(|c| c.record),
            Some(vec![
                "call regio_mpi_done_status(regio_b + 9, 4, req, 1, stats)".to_string()
            ])
        );
        let waitany = capture(
            9,
            "MPI_WAITANY",
            &args(&["4", "req", "i", "st", "ierr"]),
            false,
        );
        assert_eq!(
            waitany.map(|c| c.record),
            Some(vec![
                "call regio_mpi_done(regio_b + 9, 4, req, 0)".to_string()
            ])
        );
        assert_eq!(
            capture(
                6,
                "MPI_Send",
                &args(&["b", "f(n)", "MPI_INTEGER", "1", "0", "c", "e"]),
                false
            ),
            None
        );
    }
}
