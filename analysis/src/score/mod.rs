//! `instrument score RUNDIR`: from a profile, what measuring each region
//! costs and how much trace it would write, and a filter that leaves out
//! the regions that are cheap and called often (what Score-P's
//! scorep-score gives).
//!
//! * Cost: calls x the calibrated cost of an enter/exit probe pair.
//! * Trace bytes: calls x the size of the region's records, encoded by the
//!   trace encoder itself with the time gaps the profile implies: a call
//!   of a region with k direct child calls per call splits its exclusive
//!   time into k + 1 gaps; its exit is stamped after its own gap, its
//!   enter after its parent's. MPI and OpenMP regions add their message,
//!   collective or fork/join records, sized with representative values
//!   (peer 1, communicator 0, tag 0, 4 KiB). An estimate, not a
//!   measurement: it says where the volume goes, not to the byte.

mod text;

use std::collections::BTreeMap;

use regio_trace_format::{collective, region_record_len, Block, Event, BLOCK_HEADER_LEN};
use serde::{Deserialize, Serialize};

use crate::merge::{merge, visit, Node, Visit};
use crate::overhead::MpiFamily;
use crate::RunDir;

/// What the score assumes; [`ScoreOptions::default`] matches SPEC defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreOptions {
    /// Calibrated cost of one enter/exit probe pair (ns), from
    /// `instrument calibrate`; `None` leaves costs out.
    pub probe_pair_ns: Option<f64>,
    /// A region whose mean call is shorter than this (ns) is cheap. Default:
    /// 10 probe pairs (the probes then cost 10 % or more of its time), or
    /// 1 µs without a calibration.
    pub cheap_ns: Option<f64>,
    /// ... and hot when called at least this often in the run.
    pub min_calls: u64,
    /// `REGIO_TRACE_BUFFER` (bytes per thread), to say how often the
    /// largest thread would flush.
    pub buffer_bytes: u64,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions {
            probe_pair_ns: None,
            cheap_ns: None,
            min_calls: 1000,
            buffer_bytes: 8 << 20,
        }
    }
}

impl ScoreOptions {
    pub fn cheap_threshold_ns(&self) -> f64 {
        self.cheap_ns
            .unwrap_or_else(|| self.probe_pair_ns.map_or(1000.0, |p| 10.0 * p))
    }
}

/// One region, summed over its DRG nodes, threads and processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreRow {
    pub region: u32,
    pub name: String,
    pub kind: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub calls: u64,
    /// Outermost calls' inclusive time, summed over threads.
    pub inclusive_ns: u64,
    pub mean_ns: f64,
    /// calls x probe pair cost; `None` without a calibration.
    pub cost_ns: Option<f64>,
    pub trace_bytes: u64,
    /// The suggested filter leaves it out.
    pub excluded: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// By trace bytes (descending), then region id.
    pub rows: Vec<ScoreRow>,
    pub probe_pair_ns: Option<f64>,
    pub cheap_ns: f64,
    pub min_calls: u64,
    pub total_trace_bytes: u64,
    /// The thread that would write most, and how much.
    pub max_thread_trace_bytes: u64,
    pub buffer_bytes: u64,
    /// Times the largest thread's buffer would be written out (at 7/8 full or
    /// more, the runtime's rule).
    pub max_thread_flushes: u64,
    pub total_cost_ns: Option<f64>,
    /// The same with the suggested filter applied.
    pub filtered_trace_bytes: u64,
    pub filtered_max_thread_trace_bytes: u64,
    pub filtered_cost_ns: Option<f64>,
    /// Sum over threads of their time in root regions: what the costs
    /// compare with.
    pub measured_ns: u64,
}

/// Bytes `event` takes as a record `delta` ticks after the previous one.
fn record_len(delta: u64, event: &Event) -> u64 {
    let mut buf = [0u8; 128];
    let mut block = Block::new(0, 0);
    match block.push(&mut buf, delta, event) {
        Ok(()) => (block.len() - BLOCK_HEADER_LEN) as u64,
        // Every event pushed here fits 128 bytes.
        Err(_) => 0,
    }
}

/// Records besides enter and exit that a call of `kind` writes.
fn extra_records(kind: &str) -> Vec<Event> {
    let msg = |send: bool| {
        let (peer, comm, tag, bytes) = (1, 0, 0, 4096);
        if send {
            Event::MpiSend {
                peer,
                comm,
                tag,
                bytes,
            }
        } else {
            Event::MpiRecv {
                peer,
                comm,
                tag,
                bytes,
            }
        }
    };
    let Some(call) = kind.strip_prefix("mpi_") else {
        return match kind {
            "omp_parallel" => vec![
                Event::OmpFork {
                    region: 1,
                    team_size: 8,
                },
                Event::OmpTeamBegin {
                    team: 1,
                    thread_num: 0,
                    team_size: 8,
                },
                Event::OmpTeamEnd { team: 1 },
                Event::OmpJoin { region: 1 },
            ],
            _ => Vec::new(),
        };
    };
    match call {
        "send" | "ssend" | "bsend" | "rsend" => vec![msg(true)],
        "recv" => vec![msg(false)],
        "isend" | "issend" | "ibsend" | "irsend" => vec![msg(true)],
        "irecv" => vec![Event::MpiIrecvRequest { request: 1 }],
        "sendrecv" | "sendrecv_replace" => vec![msg(true), msg(false)],
        c if c.starts_with("wait") || c.starts_with("test") => {
            vec![Event::MpiIsendComplete { request: 1 }]
        }
        _ if matches!(
            MpiFamily::of(kind),
            Some((MpiFamily::Barrier | MpiFamily::Collective, _))
        ) =>
        {
            vec![
                Event::MpiCollectiveBegin,
                Event::MpiCollectiveEnd {
                    op: collective::ALLREDUCE,
                    comm: 0,
                    root: None,
                    sent: 4096,
                    received: 4096,
                },
            ]
        }
        _ => Vec::new(),
    }
}

/// Glob metacharacters of a filter rule, each escaped as a one-character
/// class, so the rule matches the name as written.
fn glob_literal(name: &str) -> String {
    let mut s = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '*' | '?' | '[' | ']' | '{' | '}' | '\\' => {
                s.push('[');
                s.push(c);
                s.push(']');
            }
            c => s.push(c),
        }
    }
    s
}

/// Kinds the filter may leave out: they carry no structure the rest of
/// the measurement relies on (OpenMP and MPI regions do, user regions
/// were asked for by name).
fn filterable(kind: &str) -> bool {
    matches!(kind, "function" | "loop" | "call")
}

/// Scores the run in `run` (its profiles merged).
pub fn score(run: &RunDir, opts: &ScoreOptions) -> Score {
    let report = merge(run);
    let ticks_per_second = run
        .profiles
        .iter()
        .map(|p| p.clock.ticks_per_second)
        .filter(|t| t.is_finite() && *t > 0.0)
        .fold(0.0, f64::max);
    let tps = if ticks_per_second > 0.0 {
        ticks_per_second
    } else {
        1e9
    };
    let ticks = |ns: f64| (ns.max(0.0) * tps / 1e9) as u64;
    let gap_ns = |n: &Node| {
        let child_calls: u64 = n.children.iter().map(|c| c.calls).sum();
        n.exclusive_ns as f64 / (n.calls + child_calls).max(1) as f64
    };

    #[derive(Default)]
    struct Acc {
        node: Option<(String, String, Option<String>, Option<u32>)>,
        calls: u64,
        inclusive_ns: u64,
        bytes: u64,
    }
    let mut by_region: BTreeMap<u32, Acc> = BTreeMap::new();
    // Per thread: bytes per region, to total with and without the filter.
    let mut per_thread: BTreeMap<(u32, u32, u32), BTreeMap<u32, u64>> = BTreeMap::new();
    let mut measured_ns = 0u64;
    visit(&report.roots, &mut |v| {
        let Visit::Enter(n, path) = v else { return };
        let own = gap_ns(n);
        let parent = match path.len() {
            0 | 1 => own,
            l => gap_ns(path[l - 2]),
        };
        // Region fields are differences from the previous record's region:
        // an enter follows its parent's enter or a sibling's exit (taken as
        // the parent's), a leaf's exit its own enter; a root's enter may
        // be a block's first record (difference from 0).
        let before = match path.len() {
            0 | 1 => 0,
            l => path[l - 2].region,
        };
        let mut per_call = region_record_len(ticks(parent), n.region, before) as u64
            + region_record_len(ticks(own), n.region, n.region) as u64;
        for e in extra_records(&n.info.kind) {
            per_call += record_len(ticks(own), &e);
        }
        let a = by_region.entry(n.region).or_default();
        a.node.get_or_insert_with(|| {
            (
                n.info.name.clone(),
                n.info.kind.clone(),
                n.info.file.clone(),
                n.info.line,
            )
        });
        a.calls += n.calls;
        a.inclusive_ns += n.inclusive_ns;
        a.bytes += n.calls * per_call;
        for t in &n.per_thread {
            *per_thread
                .entry((t.rank, t.pid, t.thread))
                .or_default()
                .entry(n.region)
                .or_default() += t.calls * per_call;
            if path.len() == 1 {
                measured_ns += t.inclusive_ns;
            }
        }
    });

    let cheap_ns = opts.cheap_threshold_ns();
    let mut rows: Vec<ScoreRow> = by_region
        .into_iter()
        .map(|(region, a)| {
            let (name, kind, file, line) = a.node.unwrap_or_default();
            let mean_ns = a.inclusive_ns as f64 / a.calls.max(1) as f64;
            let excluded = filterable(&kind) && a.calls >= opts.min_calls && mean_ns < cheap_ns;
            ScoreRow {
                region,
                name,
                kind,
                file,
                line,
                calls: a.calls,
                inclusive_ns: a.inclusive_ns,
                mean_ns,
                cost_ns: opts.probe_pair_ns.map(|p| p * a.calls as f64),
                trace_bytes: a.bytes,
                excluded,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.trace_bytes
            .cmp(&a.trace_bytes)
            .then(a.region.cmp(&b.region))
    });

    let excluded: std::collections::HashSet<u32> = rows
        .iter()
        .filter(|r| r.excluded)
        .map(|r| r.region)
        .collect();
    let thread_total = |keep: &dyn Fn(u32) -> bool| -> u64 {
        per_thread
            .values()
            .map(|m| {
                m.iter()
                    .filter(|(r, _)| keep(**r))
                    .map(|(_, b)| b)
                    .sum::<u64>()
            })
            .max()
            .unwrap_or(0)
    };
    let max_thread = thread_total(&|_| true);
    let filtered_max_thread = thread_total(&|r| !excluded.contains(&r));
    let total_trace_bytes = rows.iter().map(|r| r.trace_bytes).sum();
    let filtered_trace_bytes = rows
        .iter()
        .filter(|r| !r.excluded)
        .map(|r| r.trace_bytes)
        .sum();
    let cost = |keep: &dyn Fn(&ScoreRow) -> bool| {
        opts.probe_pair_ns.map(|_| {
            rows.iter()
                .filter(|r| keep(r))
                .filter_map(|r| r.cost_ns)
                .sum()
        })
    };
    let total_cost_ns = cost(&|_| true);
    let filtered_cost_ns = cost(&|r| !r.excluded);
    Score {
        probe_pair_ns: opts.probe_pair_ns,
        cheap_ns,
        min_calls: opts.min_calls,
        total_trace_bytes,
        max_thread_trace_bytes: max_thread,
        buffer_bytes: opts.buffer_bytes,
        max_thread_flushes: flushes(max_thread, opts.buffer_bytes),
        total_cost_ns,
        filtered_trace_bytes,
        filtered_max_thread_trace_bytes: filtered_max_thread,
        filtered_cost_ns,
        measured_ns,
        rows,
    }
}

impl Score {
    /// The suggested filter file (`--filter` / `REGIO_FILTER` syntax).
    pub fn filter_text(&self) -> String {
        let excluded: Vec<&ScoreRow> = self.rows.iter().filter(|r| r.excluded).collect();
        let mut s = format!(
            "# Suggested by `instrument score`: {} region(s) called at least {} times\n\
             # with a mean call under {:.0} ns. Estimated trace: {} -> {} bytes.\n",
            excluded.len(),
            self.min_calls,
            self.cheap_ns,
            self.total_trace_bytes,
            self.filtered_trace_bytes
        );
        // One rule per name: a name defined in several places is one rule.
        let mut names: Vec<&str> = excluded.iter().map(|r| r.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            s.push_str(&format!("exclude region {}\n", glob_literal(name)));
        }
        s
    }
}

/// Write-outs of a thread's buffer for `bytes` of trace: the runtime
/// encodes raw records in place and writes the buffer out once its
/// encoded records leave less than 1/8 of it free, so each write-out
/// carries between 7/8 of the buffer and all of it; the estimate takes
/// the smaller size (the most write-outs).
fn flushes(bytes: u64, buffer_bytes: u64) -> u64 {
    let written_at = (buffer_bytes.max(1) / 8 * 7).max(1);
    bytes / written_at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_outs_count_blocks_of_seven_eighths_of_the_buffer() {
        let mib8 = 8 << 20;
        assert_eq!(flushes(0, mib8), 0);
        assert_eq!(flushes(mib8 / 8 * 7 - 1, mib8), 0);
        assert_eq!(flushes(mib8 / 8 * 7, mib8), 1);
        // 24 MiB: three full buffers, but blocks of 7 MiB make three
        // write-outs with 3 MiB left raw or encoded in the buffer.
        assert_eq!(flushes(3 * mib8, mib8), 3);
        assert_eq!(flushes(7 * mib8, mib8), 8);
        assert_eq!(flushes(100, 0), 100);
    }

    #[test]
    fn glob_metacharacters_are_escaped_and_plain_names_kept() {
        assert_eq!(glob_literal("axpy_"), "axpy_");
        assert_eq!(glob_literal("operator[]"), "operator[[][]]");
        assert_eq!(glob_literal("f*{a}?"), "f[*][{]a[}][?]");
    }

    #[test]
    fn records_are_sized_by_the_encoder() {
        // code + 1-byte delta + 1-byte region difference (from 0 in a
        // fresh block).
        assert_eq!(record_len(5, &Event::Enter { region: 3 }), 3);
        assert_eq!(record_len(1 << 20, &Event::Enter { region: 3 }), 5);
        assert!(extra_records("mpi_send").len() == 1);
        assert!(extra_records("function").is_empty());
    }
}
