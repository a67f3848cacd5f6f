//! Wording shared by the text and HTML reports, so both describe a run's
//! status and its counters alike.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::merge::{Node, RankMpi, Report};
use crate::units::human_ns;

/// Under the tree of both reports when it has counter columns.
pub(crate) const COUNTERS_NOTE: &str =
    "counters are summed over threads like inclusive time (outermost calls); - where none was counted";

/// Names of the counters with a column: available in the run.
pub(crate) fn counter_columns(r: &Report) -> Vec<&str> {
    r.counters
        .iter()
        .filter(|c| c.available)
        .map(|c| c.name.as_str())
        .collect()
}

/// Thread owners are named by rank unless two processes share a rank
/// (forked processes without MPI), then by pid.
pub(crate) fn by_rank(r: &Report) -> bool {
    let ranks: HashSet<u32> = r.processes.iter().map(|p| p.rank).collect();
    ranks.len() == r.processes.len()
}

/// The thread that spent the most inclusive time in `n`.
pub(crate) fn slowest_thread(n: &Node, by_rank: bool) -> String {
    let t = &n.threads;
    if by_rank {
        format!("rank {} thread {}", t.max_rank, t.max_thread)
    } else {
        format!("pid {} thread {}", t.max_pid, t.max_thread)
    }
}

/// `calls (recursive) (polls)`.
pub(crate) fn calls(n: &Node) -> String {
    let mut calls = n.calls.to_string();
    if n.recursive_calls > 0 {
        let _ = write!(calls, " ({} recursive)", n.recursive_calls);
    }
    if n.polls > 0 {
        let _ = write!(calls, " ({} polls)", n.polls);
    }
    calls
}

/// Share of a rank's wall time spent in MPI calls, in percent.
pub(crate) fn mpi_percent(m: &RankMpi) -> f64 {
    if m.wall_ns == 0 {
        0.0
    } else {
        m.mpi_ns as f64 * 100.0 / m.wall_ns as f64
    }
}

/// `task-clock, page-faults; unavailable: instructions (reason)`.
pub(crate) fn counter_list(r: &Report) -> String {
    let on = counter_columns(r);
    let off: Vec<String> = r
        .counters
        .iter()
        .filter(|c| !c.available)
        .map(|c| {
            format!(
                "{} ({})",
                c.name,
                c.reason.as_deref().unwrap_or("no reason given")
            )
        })
        .collect();
    let mut s = if on.is_empty() {
        "none measured".to_string()
    } else {
        on.join(", ")
    };
    if !off.is_empty() {
        let _ = write!(s, "; unavailable: {}", off.join("; "));
    }
    s
}

/// A counter total: clock events in time units, others as counts with
/// k/M/G (three significant digits).
pub(crate) fn counter_value(name: &str, v: u64) -> String {
    if name.ends_with("-clock") {
        return human_ns(v);
    }
    if v < 1000 {
        return v.to_string();
    }
    let (x, unit) = [(1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T")]
        .iter()
        .rev()
        .find(|(scale, _)| v as f64 >= *scale)
        .map_or((v as f64, ""), |(scale, unit)| (v as f64 / scale, *unit));
    let decimals = if x < 10.0 {
        2
    } else if x < 100.0 {
        1
    } else {
        0
    };
    format!("{x:.decimals$}{unit}")
}

pub(crate) fn status(r: &Report) -> String {
    if r.complete {
        return format!("complete ({})", r.reason);
    }
    let incomplete = r.processes.iter().filter(|p| !p.complete).count();
    let who = r
        .processes
        .iter()
        .find(|p| p.reason == r.reason && p.signal == r.signal && !p.complete)
        .map(|p| format!(" in rank {} pid {}", p.rank, p.pid))
        .unwrap_or_default();
    let why = why_incomplete(&r.reason, r.signal, &who);
    let share = if r.processes.len() > 1 {
        format!(
            " ({incomplete} of {} processes incomplete)",
            r.processes.len()
        )
    } else {
        String::new()
    };
    format!("INCOMPLETE: {why}{share}; open regions are timed up to that moment")
}

/// Why a profile was written before the end, `who` naming the process.
pub(crate) fn why_incomplete(reason: &str, signal: Option<i32>, who: &str) -> String {
    match signal {
        Some(sig) => format!("killed by signal {sig}{}{who}", signal_name(sig)),
        None if reason == "snapshot" => format!(
            "a snapshot (REGIO_SNAPSHOT) written while the program ran{who}; it wrote no final profile (killed, e.g. by SIGKILL?)"
        ),
        None => format!("written by `{reason}`{who} while regions were open"),
    }
}

/// Linux numbering of the signals the runtime catches or a run may die of.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return String::new(),
    };
    format!(" ({name})")
}

/// Where the region names came from: the IDF, the program's own
/// descriptors (Rust), both, or neither.
pub(crate) fn region_source(r: &Report) -> String {
    let descriptors = match r.descriptors {
        0 => String::new(),
        n => format!("{n} described by the program (Rust)"),
    };
    match (&r.idf_path, descriptors.is_empty()) {
        (Some(p), true) => p.display().to_string(),
        (Some(p), false) => format!("{} + {descriptors}", p.display()),
        (None, false) => descriptors,
        (None, true) => "no IDF found".to_string(),
    }
}
