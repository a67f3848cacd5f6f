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
    self, Capture, Made, Msg, Side, Spelling, SHAPE_IN_PLACE, SIDE_ARRAY, SIDE_AT_RANK,
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

/// Whether `a` is one variable: a name (with `%` components), optionally
/// subscripted, and nothing after (what `LOC` takes).
fn variable(a: &str) -> bool {
    let b = a.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) || !pure(a, true) {
        return false;
    }
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'%') {
        i += 1;
    }
    let rest = a[i..].trim_start();
    if rest.is_empty() {
        return true;
    }
    // One parenthesised subscript list that ends the text.
    let mut depth = 0;
    for (k, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1 == rest.len();
                }
            }
            _ => {}
        }
    }
    false
}

/// An array argument as its first element: a bare name `a` becomes
/// `a(lbound(a, 1))`, an element or section start stays as written. Every
/// probe call then passes a scalar or an element at each position (an
/// element may stand for an array by sequence association), never a
/// whole array where another call in the file passes a scalar: gfortran
/// refuses such a file ("Rank mismatch between actual argument at (1)
/// and actual argument at (2)") unless built with
/// `-fallow-argument-mismatch`.
fn first_element(a: String) -> String {
    let bare = a
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'%');
    if bare {
        format!("{a}(lbound({a}, 1))")
    } else {
        a
    }
}

/// A line without its `!` comment (a `!` inside quotes is kept).
fn without_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '!') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// What the file around a call allows the capture to write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Form {
    /// `use mpi_f08`: handles are passed as their `%MPI_VAL`.
    pub(crate) f08: bool,
    /// `LOC(buffer)` may be written: the file declares no assumed-type
    /// or assumed-rank variable (`LOC` does not take them) and uses no
    /// name `loc` of its own.
    pub(crate) loc: bool,
}

impl Form {
    /// The form of a file from its text (`!` comments left out; a
    /// fixed-form `C` comment line still counts: conservative).
    pub(crate) fn of(text: &str) -> Form {
        let lower: String = text
            .to_ascii_lowercase()
            .lines()
            .map(without_comment)
            .collect::<Vec<_>>()
            .join("\n");
        let squeezed: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
        let assumed = ["type(*)", "class(*)", "(..)"]
            .iter()
            .any(|p| squeezed.contains(p));
        let b = lower.as_bytes();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let names_loc = lower.match_indices("loc").any(|(at, _)| {
            (at == 0 || !ident(b[at - 1])) && b.get(at + 3).is_none_or(|&c| !ident(c))
        });
        Form {
            f08: lower.contains("use mpi_f08"),
            loc: !assumed && !names_loc,
        }
    }
}

/// The capture statements for a call of `name` (any case) with argument
/// texts `args`, or None when it moves no message or an argument is not
/// known to be free of side effects.
///
/// `dummies`: the dummy argument names (lower case) of the procedure the
/// call is in. Only a dummy argument can have been handed `MPI_IN_PLACE`
/// (a local or module variable has storage of its own), and only a
/// variable can be given to `LOC` (a named constant cannot), so only a
/// buffer that is a dummy argument is passed by its address.
pub(crate) fn capture(
    id: u32,
    name: &str,
    args: &[String],
    form: Form,
    dummies: &[String],
) -> Option<FortranCapture> {
    let f08 = form.f08;
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
    // An array of handles (requests, datatypes) by its first element.
    let array_handle = |at: usize| -> Option<String> {
        let a = first_element(arg(at, true)?);
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
            flag,
            status,
            every,
        } => {
            let n = match count {
                Some(c) => arg(c, false)?,
                None => "1".into(),
            };
            // An array of requests (a count given) by its first element.
            let reqs = match count {
                Some(_) => array_handle(requests)?,
                None => handle(requests, true)?,
            };
            // Statuses count only when every request completed (then
            // they are in request order); an `mpi_f08` array of
            // `TYPE(MPI_Status)` by its first element, as a single one is
            // a scalar (an INTEGER status is an array either way).
            let st = status.filter(|_| every).and_then(&status_arg).map(|st| {
                if f08 && count.is_some() {
                    first_element(st)
                } else {
                    st
                }
            });
            let (done, record) = match (flag, st) {
                // `Test`/`Testall`: every request completed when the
                // LOGICAL flag is true (the runtime reads it).
                (Some(f), st) => {
                    let f = arg(f, true)?;
                    match st {
                        Some(st) => (
                            "regio_mpi_test_status",
                            format!("call regio_mpi_test_status({id}, {n}, {reqs}, {f}, {st})"),
                        ),
                        None => (
                            "regio_mpi_test",
                            format!("call regio_mpi_test({id}, {n}, {reqs}, {f})"),
                        ),
                    }
                }
                (None, Some(st)) => (
                    "regio_mpi_done_status",
                    format!(
                        "call regio_mpi_done_status({id}, {n}, {reqs}, {}, {st})",
                        u8::from(every)
                    ),
                ),
                (None, None) => (
                    "regio_mpi_done",
                    format!(
                        "call regio_mpi_done({id}, {n}, {reqs}, {})",
                        u8::from(every)
                    ),
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
                let count = if array {
                    first_element(arg(s.count, true)?)
                } else {
                    arg(s.count, false)?
                };
                let datatype = if coll.type_arrays && array {
                    array_handle(s.datatype)?
                } else {
                    handle(s.datatype, false)?
                };
                Some(format!("{count}, {datatype}"))
            };
            let root = match coll.root {
                Some(r) => arg(r, false)?,
                None => "-1".into(),
            };
            // `MPI_IN_PLACE` as written; a variable (a buffer dummy
            // argument may have been handed `MPI_IN_PLACE`) passes its
            // address (`LOC`), which the runtime compares.
            let buffer = coll.in_place.and_then(|b| args.get(b)).map(|b| b.trim());
            let written = buffer.is_some_and(|b| b.eq_ignore_ascii_case("MPI_IN_PLACE"));
            let shape = coll.shape(false) | if written { SHAPE_IN_PLACE } else { 0 };
            let common = format!(
                "{id}, {shape}, {root}, {}, {}, {}",
                handle(coll.comm, false)?,
                side(coll.send)?,
                side(coll.recv)?
            );
            let dummy = |b: &str| {
                let base = b.split(['(', '%', ' ']).next().unwrap_or(b);
                dummies.iter().any(|d| d.eq_ignore_ascii_case(base))
            };
            let by_address = |b: &&str| !written && form.loc && variable(b) && dummy(b);
            let (name, record) = match buffer.filter(by_address) {
                Some(b) => (
                    "regio_mpi_coll_buf",
                    format!("call regio_mpi_coll_buf({common}, loc({b}))"),
                ),
                None => ("regio_mpi_coll", format!("call regio_mpi_coll({common})")),
            };
            Some(FortranCapture {
                before: None,
                record: vec![record],
                names: vec![name],
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
                    match count {
                        Some(_) => array_handle(requests)?,
                        None => handle(requests, true)?,
                    }
                )],
                names: vec!["regio_mpi_start"],
            })
        }
        Capture::CommNew { parent, new, made } => {
            let (parent, new) = (handle(parent, false)?, handle(new, true)?);
            let (name, record) = match made {
                Made::Collective => (
                    "regio_mpi_comm_new",
                    format!("call regio_mpi_comm_new({parent}, {new})"),
                ),
                Made::DupAtCall => (
                    "regio_mpi_comm_made",
                    format!(
                        "call regio_mpi_comm_made({}, {parent}, {new}, 0)",
                        made.code()
                    ),
                ),
                Made::FromGroup { tag } => (
                    "regio_mpi_comm_made",
                    format!(
                        "call regio_mpi_comm_made({}, {parent}, {new}, {})",
                        made.code(),
                        arg(tag, false)?
                    ),
                ),
            };
            Some(FortranCapture {
                before: None,
                record: vec![record],
                names: vec![name],
            })
        }
        Capture::RequestFree { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The enclosing procedure's dummy arguments in these tests.
    fn dummies() -> Vec<String> {
        ["s", "y", "a", "buf"].map(String::from).to_vec()
    }

    const F77: Form = Form {
        f08: false,
        loc: true,
    };
    const F08: Form = Form {
        f08: true,
        loc: true,
    };

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
            F77,
            &dummies(),
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
            F08,
            &dummies(),
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
            F77,
            &dummies(),
        );
        assert_eq!(
            gather.map(|c| c.record),
            Some(vec![
                "call regio_mpi_coll_buf(regio_b + 7, 21808, 0, comm, n, MPI_REAL8, counts(lbound(counts, 1)), MPI_REAL8, loc(s))"
                    .to_string()
            ])
        );
        // MPI_IN_PLACE as written sets the shape's in-place bit.
        let allreduce = |sendbuf: &str| {
            capture(
                3,
                "mpi_allreduce",
                &args(&[sendbuf, "x", "1", "MPI_INTEGER", "MPI_SUM", "comm", "ierr"]),
                F77,
                &dummies(),
            )
            .map(|c| c.record)
        };
        assert_eq!(
            allreduce("mpi_in_place"),
            Some(vec!["call regio_mpi_coll(regio_b + 3, 152146, -1, comm, 1, MPI_INTEGER, 1, MPI_INTEGER)".to_string()])
        );
        // A variable (a dummy argument may have been handed MPI_IN_PLACE)
        // passes its address; an expression, or a file where LOC cannot
        // be written, does not.
        assert_eq!(
            allreduce("y"),
            Some(vec![
                "call regio_mpi_coll_buf(regio_b + 3, 21074, -1, comm, 1, MPI_INTEGER, 1, MPI_INTEGER, loc(y))"
                    .to_string()
            ])
        );
        assert_eq!(
            allreduce("y(2, k)").map(|r| r[0].ends_with(", loc(y(2, k)))")),
            Some(true)
        );
        let plain =
            "call regio_mpi_coll(regio_b + 3, 21074, -1, comm, 1, MPI_INTEGER, 1, MPI_INTEGER)";
        assert_eq!(allreduce("y + 1"), Some(vec![plain.to_string()]));
        // Not a dummy argument (a local, or a named constant, which LOC
        // refuses): cannot be MPI_IN_PLACE.
        assert_eq!(allreduce("z"), Some(vec![plain.to_string()]));
        let no_loc = Form {
            f08: false,
            loc: false,
        };
        assert_eq!(
            capture(
                3,
                "mpi_allreduce",
                &args(&["y", "x", "1", "MPI_INTEGER", "MPI_SUM", "comm", "ierr"]),
                no_loc,
                &dummies()
            )
            .map(|c| (c.record, c.names)),
            Some((vec![plain.to_string()], vec!["regio_mpi_coll"]))
        );
        // Scans: Exscan always counted in place, Scan by its buffer.
        let scan = |name: &str| {
            capture(
                2,
                name,
                &args(&["a", "b", "1", "MPI_INTEGER", "MPI_SUM", "comm", "ierr"]),
                F77,
                &dummies(),
            )
            .map(|c| c.record)
        };
        assert_eq!(
            scan("MPI_EXSCAN"),
            Some(vec![format!(
                "call regio_mpi_coll(regio_b + 2, {}, -1, comm, 1, MPI_INTEGER, 1, MPI_INTEGER)",
                (mpi_routines::SIDE_PRESENT
                    | mpi_routines::SIDE_PRESENT << mpi_routines::RECV_SHIFT)
                    | mpi_routines::SHAPE_SCAN
                    | SHAPE_IN_PLACE
            )])
        );
        assert_eq!(
            scan("MPI_Scan").map(
                |r| r[0].starts_with("call regio_mpi_coll_buf(") && r[0].ends_with(", loc(a))")
            ),
            Some(true)
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
                F08,
                &dummies(),
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
            F77,
            &dummies(),
        );
        assert_eq!(
            waitall.map(|c| c.record),
            Some(vec![
                "call regio_mpi_done_status(regio_b + 9, 4, req(lbound(req, 1)), 1, stats)"
                    .to_string()
            ])
        );
        let waitany = capture(
            9,
            "MPI_WAITANY",
            &args(&["4", "req", "i", "st", "ierr"]),
            F77,
            &dummies(),
        );
        assert_eq!(
            waitany.map(|c| c.record),
            Some(vec![
                "call regio_mpi_done(regio_b + 9, 4, req(lbound(req, 1)), 0)".to_string()
            ])
        );
        // Test and Testall: the runtime reads the LOGICAL flag.
        let test = |name: &str, a: &[&str]| {
            capture(9, name, &args(a), F77, &dummies()).map(|c| (c.record, c.names))
        };
        assert_eq!(
            test("MPI_Test", &["req(2)", "done", "st", "ierr"]),
            Some((
                vec!["call regio_mpi_test_status(regio_b + 9, 1, req(2), done, st)".to_string()],
                vec!["regio_mpi_reqs", "regio_mpi_test_status"]
            ))
        );
        assert_eq!(
            test(
                "mpi_testall",
                &["2", "req", "flags(k)", "MPI_STATUSES_IGNORE", "ierr"]
            ),
            Some((
                vec![
                    "call regio_mpi_test(regio_b + 9, 2, req(lbound(req, 1)), flags(k))"
                        .to_string()
                ],
                vec!["regio_mpi_reqs", "regio_mpi_test"]
            ))
        );
        // Testany: handles that changed, as Waitany.
        assert_eq!(
            test("MPI_Testany", &["2", "req", "i", "done", "st", "ierr"]).map(|c| c.0),
            Some(vec![
                "call regio_mpi_done(regio_b + 9, 2, req(lbound(req, 1)), 0)".to_string()
            ])
        );
        assert_eq!(
            capture(
                6,
                "MPI_Send",
                &args(&["b", "f(n)", "MPI_INTEGER", "1", "0", "c", "e"]),
                F77,
                &dummies()
            ),
            None
        );
    }

    #[test]
    fn idup_and_create_group_name_their_communicator_at_creation() {
        let made =
            |name: &str, a: &[&str]| capture(1, name, &args(a), F08, &dummies()).map(|c| c.record);
        assert_eq!(
            made("MPI_Comm_idup", &["comm", "dup", "req", "ierr"]),
            Some(vec![
                "call regio_mpi_comm_made(1, comm%MPI_VAL, dup%MPI_VAL, 0)".to_string()
            ])
        );
        assert_eq!(
            made("mpi_comm_create_group", &["comm", "grp", "7", "g", "ierr"]),
            Some(vec![
                "call regio_mpi_comm_made(2, comm%MPI_VAL, g%MPI_VAL, 7)".to_string()
            ])
        );
        assert_eq!(
            made("MPI_Comm_dup", &["comm", "d", "ierr"]),
            Some(vec![
                "call regio_mpi_comm_new(comm%MPI_VAL, d%MPI_VAL)".to_string()
            ])
        );
        assert_eq!(first_element("a".into()), "a(lbound(a, 1))");
        assert_eq!(first_element("a(2)".into()), "a(2)");
    }

    #[test]
    fn loc_is_written_only_where_the_file_allows_it() {
        let form = |text: &str| Form::of(text);
        assert_eq!(
            form("program p\n use mpi\n integer :: a(4)\nend program\n"),
            Form {
                f08: false,
                loc: true
            }
        );
        assert!(form("subroutine s(b)\n use mpi_f08\n type(*), dimension(..) :: b\nend\n").f08);
        assert!(!form("subroutine s(b)\n TYPE (*) :: b\nend\n").loc);
        assert!(!form("subroutine s(b)\n real :: b(..)\nend\n").loc);
        assert!(!form("subroutine s(b)\n class(*) :: b\nend\n").loc);
        assert!(!form("subroutine s(b)\n integer :: loc\nend\n").loc);
        assert!(form("subroutine s(b)\n integer :: block, local\nend\n").loc);
        // A comment naming `loc` does not count (a `!` in a string starts
        // none).
        assert!(form("! the loc of b\nsubroutine s(b)\n print *, 'a ! b' ! loc\nend\n").loc);
        assert!(!form("subroutine s(b)\n print *, 'a ! b', loc(b)\nend\n").loc);
        assert!(!form("subroutine s(b)\n print *, 'x'; loc = 1 ! c\nend\n").loc);
        assert!(variable("buf"));
        assert!(variable("a%b(1, i + 1)"));
        assert!(!variable("a(1) + b"));
        assert!(!variable("(a)"));
        assert!(!variable("f(g(1))"));
        assert!(!variable("2"));
    }
}
