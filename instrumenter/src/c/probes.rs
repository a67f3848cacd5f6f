//! The exact C text of every probe. All of it fits on the line where it is
//! inserted: no newline is ever added, so original line numbers hold.
//! Entry and exit probes are the prelude's gated inline functions
//! (`regio__enter`, `regio__exit`, `regio__guard`/`regio__leave`), which
//! take the local id and add the base the file's IDF got when it
//! registered; the other probes write `regio__base() + <local id>`
//! (`prelude::BASE`).

/// Declaration whose cleanup runs the exit probe on every way out of the
/// enclosing block (return after its value is computed, falling off the
/// end, break/goto out of a wrapped loop).
pub(crate) fn guard(id: u32) -> String {
    format!(
        "const unsigned int regio__g{id} __attribute__((cleanup(regio__leave), unused)) = regio__guard({id}u);"
    )
}

/// In functions that are not regions but hold user regions: a `return`
/// inside a user region closes it through this guard.
pub(crate) fn scope_guard() -> &'static str {
    "const unsigned int regio__s __attribute__((cleanup(regio_scope_close), unused)) = regio_scope_open();"
}

pub(crate) fn loop_open(id: u32) -> String {
    format!("{{ {} ", guard(id))
}

pub(crate) const LOOP_CLOSE: &str = " }";

pub(crate) fn enter(id: u32) -> String {
    format!("regio__enter({id}u);")
}

pub(crate) fn exit(id: u32) -> String {
    format!("regio__exit({id}u);")
}

pub(crate) const DISABLE: &str = "regio_disable();";
pub(crate) const ENABLE: &str = "regio_enable();";

/// Before a `break`/`continue`/`goto` that leaves user regions, innermost
/// first; `JUMP_CLOSE` goes after the jump statement.
pub(crate) fn jump_open(ids: &[u32]) -> String {
    let mut s = String::from("{ ");
    for id in ids {
        s.push_str(&exit(*id));
        s.push(' ');
    }
    s
}

pub(crate) const JUMP_CLOSE: &str = " }";

/// `f(x);` as a statement; `braced` where it is the body of an `if`,
/// a loop or a label, so that the probes stay with it.
pub(crate) fn call_stmt_open(id: u32, before: &str, braced: bool) -> String {
    let brace = if braced { "{ " } else { "" };
    format!("{brace}{before}regio__enter({id}u); ")
}

/// `record` (an expression handing the call's arguments to the runtime)
/// runs while the call's region is still open; `after` once it is left.
pub(crate) fn call_stmt_close(id: u32, record: &str, after: &str, braced: bool) -> String {
    let brace = if braced { " }" } else { "" };
    let record = if record.is_empty() {
        String::new()
    } else {
        format!(" {record};")
    };
    if after.is_empty() {
        format!("{record} regio__exit({id}u);{brace}")
    } else {
        format!("{record} regio__exit({id}u); {after};{brace}")
    }
}

/// A call whose value is thrown away inside an expression.
pub(crate) fn call_comma_open(id: u32, before: &str) -> String {
    if before.is_empty() {
        format!("(regio__enter({id}u), ")
    } else {
        format!(
            "({}, regio__enter({id}u), ",
            before.trim_end().trim_end_matches(';')
        )
    }
}

pub(crate) fn call_comma_close(id: u32, record: &str, after: &str) -> String {
    let record = if record.is_empty() {
        String::new()
    } else {
        format!(", {record}")
    };
    if after.is_empty() {
        format!("{record}, regio__exit({id}u))")
    } else {
        format!("{record}, regio__exit({id}u), {after})")
    }
}

/// A call whose value is used: a statement expression whose last
/// statement is the call gives its value, and a guard's cleanup runs the
/// exit probe after the call, before the value is used. That form is also
/// right for a `void` function, whose "use" the text cannot rule out (a
/// macro argument that the macro throws away). With code to run after the
/// call (`keep`: `after` or `record`, for `int`-valued MPI routines) the
/// value is kept in a temporary instead.
pub(crate) fn call_value_open(id: u32, before: &str, keep: bool) -> String {
    if !keep {
        format!(
            "__extension__ ({{ {before}const unsigned int regio__c{id} __attribute__((cleanup(regio__leave), unused)) = regio__guard({id}u); "
        )
    } else {
        format!("__extension__ ({{ {before}regio__enter({id}u); __auto_type regio__r{id} = ")
    }
}

/// Before `MPI_Abort`, which never returns to run the exit probe: write
/// what was measured, here and in the job's other ranks on this host.
pub(crate) const BEFORE_MPI_ABORT: &str = "regio_mpi_abort(); ";

/// Before `MPI_Finalize`: the runtime measures the clocks once more.
pub(crate) const BEFORE_MPI_FINALIZE: &str = "regio_mpi_finalize(); ";

pub(crate) fn call_value_close(id: u32, record: &str, after: &str) -> String {
    if after.is_empty() && record.is_empty() {
        return "; })".to_string();
    }
    let mut s = String::from("; ");
    if !record.is_empty() {
        s.push_str(&format!("{record}; "));
    }
    s.push_str(&format!("regio__exit({id}u); "));
    if !after.is_empty() {
        s.push_str(&format!("{after}; "));
    }
    s.push_str(&format!("regio__r{id}; }})"));
    s
}

/// Tells the runtime this process's rank and world size as MPI reports
/// them, through the profiling interface so it is not measured itself (a
/// void statement expression: usable as a statement and in a comma list).
pub(crate) const MPI_CONFIRM_RANK: &str = "__extension__ ({ int regio__rk = 0, regio__sz = 0; PMPI_Comm_rank(MPI_COMM_WORLD, &regio__rk); PMPI_Comm_size(MPI_COMM_WORLD, &regio__sz); regio_mpi_rank(regio__rk, regio__sz); })";
