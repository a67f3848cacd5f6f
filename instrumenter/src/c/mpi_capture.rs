//! The C text that hands an MPI call's argument values to the runtime
//! (`regio_mpi_msg`, `regio_mpi_post`, `regio_mpi_reqs`/`regio_mpi_done`,
//! `regio_mpi_request_free`, `regio_mpi_coll`, `regio_mpi_start`,
//! `regio_mpi_comm_new`, `regio_mpi_comm_made`), from the argument positions of the routine
//! table (`mpi_routines::capture`).
//!
//! The arguments are evaluated a second time, after the call (before it
//! for the handles a completion call overwrites), so only arguments
//! without side effects are passed: names, constants, member and array
//! accesses, address-of and dereference, arithmetic, casts, `sizeof`. A
//! call with any other argument among those needed is measured as a
//! region only. Handles are widened to 64 bits through `uintptr_t` (an
//! `int` in MPICH's ABI, a pointer in Open MPI's).

use crate::c::syntax::KindName;
use tree_sitter::Node;

use crate::c::prelude::BASE;

use crate::mpi_routines::{
    self, Capture, Made, Msg, MsgKind, Side, Spelling, SHAPE_IN_PLACE, SIDE_ARRAY, SIDE_AT_RANK,
};

/// Probe text around one MPI call: `before` (a statement, `;`-ended)
/// runs before the call, `record` (an expression) right after it, before
/// the call's region is left.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct CaptureText {
    pub(crate) before: String,
    pub(crate) record: String,
}

/// Node kinds an argument may consist of to be evaluated again.
fn pure(n: Node<'_>) -> bool {
    if n.is_error() || n.is_missing() {
        return false;
    }
    let ok = !n.is_named()
        || matches!(
            n.kind_name(),
            "identifier"
                | "number_literal"
                | "char_literal"
                | "true"
                | "false"
                | "null"
                | "field_expression"
                | "field_identifier"
                | "subscript_expression"
                | "pointer_expression"
                | "parenthesized_expression"
                | "binary_expression"
                | "unary_expression"
                | "conditional_expression"
                | "cast_expression"
                | "type_descriptor"
                | "primitive_type"
                | "type_identifier"
                | "sized_type_specifier"
                | "type_qualifier"
                | "abstract_pointer_declarator"
                | "sizeof_expression"
        );
    if !ok {
        return false;
    }
    let mut c = n.walk();
    let all = n.children(&mut c).all(pure);
    all
}

/// The capture text for a call of `name` with argument nodes `args`, or
/// None when the routine moves no message or an argument is not pure.
pub(crate) fn text(id: u32, name: &str, args: &[Node<'_>], src: &str) -> Option<CaptureText> {
    let cap = mpi_routines::capture(name, Spelling::Exact)?;
    let arg = |at: usize| -> Option<String> {
        let n = *args.get(at)?;
        pure(n).then(|| super::syntax::squashed(n, src))
    };
    let handle = |at: usize| Some(format!("(__UINT64_TYPE__)(__UINTPTR_TYPE__)({})", arg(at)?));
    let msg_args = |m: &Msg| -> Option<String> {
        let peer = match m.peer {
            Some(p) => format!("(int)({})", arg(p)?),
            None => "-1".into(),
        };
        let tag = match m.tag {
            Some(t) => format!("(int)({})", arg(t)?),
            None => "0".into(),
        };
        let count = match m.count {
            Some(c) => format!("(__INT64_TYPE__)({})", arg(c)?),
            None => "0".into(),
        };
        let datatype = match m.datatype {
            Some(d) => handle(d)?,
            None => "0".into(),
        };
        Some(format!(
            "{peer}, {tag}, {}, {count}, {datatype}",
            handle(m.comm)?
        ))
    };
    match cap {
        Capture::Messages(msgs) => {
            let mut calls = Vec::new();
            for m in &msgs {
                let status = match (m.kind, m.status) {
                    (MsgKind::Recv, Some(s)) => format!("(const void *)({})", arg(s)?),
                    _ => "(const void *)0".into(),
                };
                calls.push(format!(
                    "regio_mpi_msg({BASE} + {id}u, {}, {}, {status})",
                    m.kind.code(),
                    msg_args(m)?
                ));
            }
            Some(CaptureText {
                before: String::new(),
                record: calls.join(", "),
            })
        }
        Capture::Post {
            msg,
            request,
            persistent,
        } => {
            let kind = msg.kind.post_code(persistent);
            Some(CaptureText {
                before: String::new(),
                record: format!(
                    "regio_mpi_post({BASE} + {id}u, {kind}, {}, (__UINT64_TYPE__)(__UINTPTR_TYPE__)*({}))",
                    msg_args(&msg)?,
                    arg(request)?
                ),
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
                Some(c) => format!("(int)({})", arg(c)?),
                None => "1".into(),
            };
            let reqs = arg(requests)?;
            let all = match (every, flag) {
                (false, _) => "0".to_string(),
                (true, Some(f)) => format!("*({}) != 0", arg(f)?),
                (true, None) => "1".to_string(),
            };
            let statuses = match (every, status) {
                (true, Some(s)) => format!("(const void *)({})", arg(s)?),
                _ => "(const void *)0".into(),
            };
            Some(CaptureText {
                before: format!(
                    "regio_mpi_reqs({n}, (const void *)({reqs}), (int)sizeof *({reqs})); "
                ),
                record: format!(
                    "regio_mpi_done({BASE} + {id}u, {n}, (const void *)({reqs}), (int)sizeof *({reqs}), {all}, {statuses})"
                ),
            })
        }
        Capture::Collective(coll) => {
            // A side's count: a value, or (count arrays) 0 and the array.
            let side = |s: Option<Side>| -> Option<String> {
                let Some(s) = s else {
                    return Some("0, (const void *)0, 0".into());
                };
                let count = if s.flags & (SIDE_ARRAY | SIDE_AT_RANK) != 0 {
                    format!("0, (const void *)({})", arg(s.count)?)
                } else {
                    format!("(__INT64_TYPE__)({}), (const void *)0", arg(s.count)?)
                };
                Some(format!("{count}, {}", handle(s.datatype)?))
            };
            let root = match coll.root {
                Some(r) => format!("(int)({})", arg(r)?),
                None => "-1".into(),
            };
            let wide = name.ends_with("_c");
            // `MPI_IN_PLACE` as written, or compared at run time.
            let shape = coll.shape(wide);
            let shape = match coll.in_place.and_then(|b| Some((b, arg(b)?))) {
                Some((_, b)) if b == "MPI_IN_PLACE" => (shape | SHAPE_IN_PLACE).to_string(),
                Some((_, b)) => format!(
                    "{shape} | ((const void *)({b}) == (const void *)MPI_IN_PLACE ? {SHAPE_IN_PLACE} : 0)"
                ),
                None => shape.to_string(),
            };
            Some(CaptureText {
                before: String::new(),
                record: format!(
                    "regio_mpi_coll({BASE} + {id}u, {shape}, {root}, {}, {}, {})",
                    handle(coll.comm)?,
                    side(coll.send)?,
                    side(coll.recv)?
                ),
            })
        }
        Capture::Start { count, requests } => {
            let n = match count {
                Some(c) => format!("(int)({})", arg(c)?),
                None => "1".into(),
            };
            let reqs = arg(requests)?;
            Some(CaptureText {
                before: String::new(),
                record: format!(
                    "regio_mpi_start({BASE} + {id}u, {n}, (const void *)({reqs}), (int)sizeof *({reqs}))"
                ),
            })
        }
        Capture::CommNew { parent, new, made } => {
            let new = format!("(__UINT64_TYPE__)(__UINTPTR_TYPE__)*({})", arg(new)?);
            let record = match made {
                Made::Collective => format!("regio_mpi_comm_new({}, {new})", handle(parent)?),
                Made::DupAtCall => format!(
                    "regio_mpi_comm_made({}, {}, {new}, 0)",
                    made.code(),
                    handle(parent)?
                ),
                Made::FromGroup { tag } => format!(
                    "regio_mpi_comm_made({}, {}, {new}, (int)({}))",
                    made.code(),
                    handle(parent)?,
                    arg(tag)?
                ),
            };
            Some(CaptureText {
                before: String::new(),
                record,
            })
        }
        Capture::RequestFree { request } => Some(CaptureText {
            before: format!(
                "regio_mpi_request_free((__UINT64_TYPE__)(__UINTPTR_TYPE__)*({})); ",
                arg(request)?
            ),
            record: String::new(),
        }),
    }
}
