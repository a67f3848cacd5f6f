//! From a run directory's trace files to a [`Trace`]: decode every file,
//! put its times on rank 0's clock, renumber regions, communicators and
//! user event names run-wide, and repair nesting where a trace was cut.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use regio_idf::rundir::FIRST_DESCRIPTOR_ID;
use regio_idf::{Idf, IDF_FILE_NAME};
use regio_trace_format::{collective, decode, parse_trace_file_name, Event, TraceFile};

use super::clock::{ClockCorrection, Sync};
use super::model::{Comm, InterGroups, Location, RegionDef, Trace, TraceEvent};
use super::ExportError;
use crate::regions::RegionTable;
use crate::{load_run, AnalysisError, RunDir};

/// Reads the traces of the run in `dir`. Region names come from the IDF
/// (`idf_override`, else the run's) and the profiles' descriptors; a run
/// killed before it wrote a profile is read with the IDF alone.
pub fn load_trace(dir: &Path, idf_override: Option<&Path>) -> Result<Trace, ExportError> {
    load_trace_with(dir, idf_override, Clocks::Corrected)
}

/// Whether [`load_trace_with`] puts every process on rank 0's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clocks {
    /// Offset and drift from the `clock_sync` records (what exports use).
    Corrected,
    /// Each process's own clock as recorded: shows what the correction
    /// repairs (a receive that seems to end before its send began).
    Local,
}

/// [`load_trace`] with the clock correction chosen.
pub fn load_trace_with(
    dir: &Path,
    idf_override: Option<&Path>,
    clocks: Clocks,
) -> Result<Trace, ExportError> {
    let mut notes = Vec::new();
    let run = match load_run(dir, idf_override) {
        Ok(run) => Some(run),
        Err(AnalysisError::NoProfiles { .. }) => {
            notes.push(format!(
                "{}: no profile: regions of Rust macros are shown by number",
                dir.display()
            ));
            None
        }
        Err(e) => return Err(e.into()),
    };
    let mut files = read_files(dir, &mut notes)?;
    // Processes started by MPI_Comm_spawn: those whose profiles the run
    // left out, and any that wrote a trace only.
    let spawned = crate::spawned::left_out(
        dir,
        files
            .iter()
            .map(|f| (f.key.0, f.key.1))
            .chain(run.iter().flat_map(|r| r.spawned.iter().copied())),
    );
    files.retain(|f| !spawned.contains(&(f.key.0, f.key.1)));
    if files.is_empty() {
        return Err(ExportError::NoTraces {
            path: dir.display().to_string(),
        });
    }
    let mut run = match run {
        Some(run) => run,
        None => {
            let keys: Vec<(u32, u32, &str)> = files
                .iter()
                .map(|f| (f.key.0, f.key.1, f.trace.header.host.as_str()))
                .collect();
            run_without_profiles(dir, &keys, idf_override)?
        }
    };
    run.spawned.extend(spawned);
    build(&run, files, notes, clocks)
}

/// The IDFs of a run without profiles: those its processes recorded as
/// they registered them (`objects::join_recorded`), else `idf_override`
/// or the run directory's IDF, ids as they are.
fn run_without_profiles(
    dir: &Path,
    keys: &[(u32, u32, &str)],
    idf_override: Option<&Path>,
) -> Result<RunDir, ExportError> {
    if let Some(joined) = crate::objects::join_recorded(dir, keys, idf_override)? {
        return Ok(RunDir {
            path: dir.to_path_buf(),
            profiles: Vec::new(),
            idf: joined.idf,
            idf_path: joined.idf_path,
            descriptor_ids: BTreeMap::new(),
            object_ids: joined.ids,
            spawned: BTreeSet::new(),
        });
    }
    let local = dir.join(IDF_FILE_NAME);
    let idf_path = idf_override
        .map(Path::to_path_buf)
        .or_else(|| local.is_file().then_some(local));
    let idf = match &idf_path {
        Some(p) => Some(Idf::read(p).map_err(AnalysisError::from)?),
        None => None,
    };
    Ok(RunDir {
        path: dir.to_path_buf(),
        profiles: Vec::new(),
        idf,
        idf_path,
        descriptor_ids: BTreeMap::new(),
        object_ids: BTreeMap::new(),
        spawned: BTreeSet::new(),
    })
}

/// A decoded file with the (rank, pid, thread) of its name.
struct File {
    key: (u32, u32, u32),
    trace: TraceFile,
    /// `trace.ticks_per_second()`, found once: it searches the records
    /// from the end for a `clock_rate`, which a file cut by SIGKILL lacks,
    /// and asking it per record made such an export quadratic.
    rate: f64,
}

fn read_files(dir: &Path, notes: &mut Vec<String>) -> Result<Vec<File>, ExportError> {
    let io = |path: &Path, source| ExportError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name();
        let Some(key) = name.to_str().and_then(parse_trace_file_name) else {
            continue;
        };
        found.push((key, entry.path()));
    }
    if found.is_empty() {
        return Err(ExportError::NoTraces {
            path: dir.display().to_string(),
        });
    }
    let mut files = Vec::with_capacity(found.len());
    for (key, path) in found {
        let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
        let shown = path.display().to_string();
        let trace = decode(&bytes).map_err(|source| ExportError::Decode {
            path: shown.clone(),
            source,
        })?;
        let h = &trace.header;
        if (h.pid, h.thread) != (key.1, key.2) {
            return Err(ExportError::Malformed {
                path: shown,
                message: format!(
                    "the header says pid {} thread {}, unlike the file name",
                    h.pid, h.thread
                ),
            });
        }
        // The runtime names a file by the rank it knew at the first flush
        // and patches the header when MPI_Init confirms another; the
        // header is the later word.
        if h.rank != key.0 {
            notes.push(format!(
                "{shown}: the header says rank {} (used), the name rank {}",
                h.rank, key.0
            ));
        }
        let key = (h.rank, h.pid, h.thread);
        if !(h.ticks_per_second.is_finite() && h.ticks_per_second > 0.0) {
            return Err(ExportError::Malformed {
                path: shown,
                message: format!("clock of {} ticks per second", h.ticks_per_second),
            });
        }
        if let Some(t) = &trace.truncated {
            notes.push(format!(
                "{shown}: read up to offset {} ({}; {} bytes after it not read)",
                t.offset, t.reason, t.bytes
            ));
        }
        if trace.unknown > 0 {
            notes.push(format!(
                "{shown}: {} event(s) of types this build does not know were skipped",
                trace.unknown
            ));
        }
        let rate = trace.ticks_per_second();
        files.push(File { key, trace, rate });
    }
    files.sort_by_key(|f| f.key);
    Ok(files)
}

/// Unix time (ns) of the process's start-up as its file states it.
fn start_unix_ns(file: &TraceFile) -> i64 {
    i64::try_from(file.header.start_unix_ns).unwrap_or(i64::MAX)
}

/// Local time of a record relative to the run's earliest start-up, in ns.
/// Kept relative so an f64 holds it to well below a nanosecond (Unix
/// times in ns need 61 bits).
fn local_ns(file: &File, ticks: u64, t0_unix_ns: i64) -> f64 {
    let since_start = (i128::from(ticks) - i128::from(file.trace.header.start_ticks)) as f64;
    (start_unix_ns(&file.trace) - t0_unix_ns) as f64 + since_start * 1e9 / file.rate
}

/// Run-wide communicator ids. A definition whose id has bit 31 set
/// ([`RUN_WIDE`]) carries an id every member computed alike at the
/// communicator's creation: (id, members) names it. Other ids are the
/// process's own: communicators are created collectively by their members
/// in the same order, so the n-th communicator a process defines with a
/// given member list is taken as the same communicator on every member
/// (which holds when each process first uses them in creation order).
struct Comms {
    comms: Vec<Comm>,
    by_key: HashMap<CommKey, u32>,
}

/// One process's communicator definition: its id in the process's
/// files, name, members (world ranks) and an intercommunicator's groups.
type CommDef = (u32, String, Vec<u32>, Option<InterGroups>);

/// Bit 31 of a trace's communicator id: the runtime made it the same on
/// every member.
const RUN_WIDE: u32 = 1 << 31;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CommKey {
    /// A run-wide id and the members.
    RunWide(u32, Vec<u32>),
    /// The members and how many with them the process defined before.
    Nth(Vec<u32>, usize),
}

impl Comms {
    fn new(size: u32) -> Comms {
        Comms {
            comms: vec![Comm {
                name: "MPI_COMM_WORLD".into(),
                members: (0..size).collect(),
                inter: None,
            }],
            by_key: HashMap::new(),
        }
    }

    /// Global ids for one process's communicator definitions (in time
    /// order), keyed by the process's own ids.
    fn of_process(&mut self, defs: &[CommDef]) -> HashMap<u32, u32> {
        let mut map = HashMap::from([(0, 0)]);
        let mut seen: HashMap<&[u32], usize> = HashMap::new();
        for (local, name, members, inter) in defs {
            let key = if local & RUN_WIDE != 0 {
                CommKey::RunWide(*local, members.clone())
            } else {
                let n = seen.entry(members.as_slice()).or_default();
                *n += 1;
                CommKey::Nth(members.clone(), *n - 1)
            };
            let next = self.comms.len() as u32;
            let id = *self.by_key.entry(key).or_insert(next);
            if id == next {
                self.comms.push(Comm {
                    name: name.clone(),
                    members: members.clone(),
                    inter: inter.clone(),
                });
            } else if let Some(c) = self.comms.get_mut(id as usize) {
                // Another side's definition may carry the groups the first
                // one lacked.
                if c.inter.is_none() {
                    c.inter = inter.clone();
                }
            }
            map.insert(*local, id);
        }
        map
    }

    /// A communicator an event names but no definition describes.
    fn undefined(&mut self, rank: u32, local: u32) -> u32 {
        self.comms.push(Comm {
            name: format!("undefined communicator {local} of rank {rank}"),
            members: Vec::new(),
            inter: None,
        });
        self.comms.len() as u32 - 1
    }
}

/// Unix-ns trace time minus the synchronisation clock's reading `sync_ns`
/// at `ticks` (kept in integers: both are near 2^60).
fn sync_clock_gap(f: &File, ticks: u64, sync_ns: u64) -> i128 {
    let since_start = (i128::from(ticks) - i128::from(f.trace.header.start_ticks)) as f64;
    i128::from(start_unix_ns(&f.trace)) - i128::from(sync_ns)
        + (since_start * 1e9 / f.rate).round() as i128
}

/// The gaps at the `clock_sync` records of `f` that carry `local_ns`.
fn sync_clock_gaps(f: &File) -> impl Iterator<Item = i128> + '_ {
    f.trace.records.iter().filter_map(move |r| match r.event {
        Event::ClockSync {
            local_ns: Some(l), ..
        } => Some(sync_clock_gap(f, r.ticks, l)),
        _ => None,
    })
}

fn build(
    run: &RunDir,
    files: Vec<File>,
    mut notes: Vec<String>,
    mode: Clocks,
) -> Result<Trace, ExportError> {
    let t0 = files
        .iter()
        .map(|f| start_unix_ns(&f.trace))
        .min()
        .unwrap_or(0);
    let size = files
        .iter()
        .map(|f| f.trace.header.size)
        .max()
        .unwrap_or(1)
        .max(1);

    // Per process: clock correction and communicator definitions, from
    // whichever of its threads recorded them.
    let mut by_process: BTreeMap<(u32, u32), Vec<&File>> = BTreeMap::new();
    for f in &files {
        by_process.entry((f.key.0, f.key.1)).or_default().push(f);
    }
    // The offsets are measured on the synchronisation clock; the trace's
    // times are Unix ns. Rank 0's gap between the two (its first record)
    // turns an offset into one between trace times: o + gap0 - gap.
    let gap0 = files
        .iter()
        .filter(|f| f.key.0 == 0)
        .find_map(|f| sync_clock_gaps(f).next());
    let mut comms = Comms::new(size);
    let mut clocks = HashMap::new();
    let mut comm_maps = HashMap::new();
    for (&(rank, pid), threads) in &by_process {
        let mut syncs = Vec::new();
        let mut defs: Vec<(f64, CommDef)> = Vec::new();
        for f in threads {
            let strings = f.trace.strings();
            for r in &f.trace.records {
                match &r.event {
                    Event::ClockSync {
                        phase,
                        offset_ns,
                        round_trip_ns,
                        local_ns: sync_ns,
                    } => {
                        let t = local_ns(f, r.ticks, t0);
                        // The gap of this process's clocks against rank 0's.
                        let between = match (sync_ns, gap0) {
                            (Some(l), Some(g0)) => (g0 - sync_clock_gap(f, r.ticks, *l)) as f64,
                            _ => 0.0,
                        };
                        syncs.push(Sync {
                            phase: *phase,
                            local_ns: t,
                            offset_ns: *offset_ns as f64 + between,
                            round_trip_ns: *round_trip_ns,
                        })
                    }
                    Event::Comm {
                        comm,
                        name,
                        members,
                        local,
                        remote,
                    } => defs.push((
                        local_ns(f, r.ticks, t0),
                        (
                            *comm,
                            strings
                                .get(name)
                                .map_or_else(|| format!("comm {comm}"), |s| s.to_string()),
                            members.clone(),
                            InterGroups::of(local, remote),
                        ),
                    )),
                    _ => {}
                }
            }
        }
        let clock = match mode {
            Clocks::Corrected => ClockCorrection::from_syncs(&syncs),
            Clocks::Local => ClockCorrection::none(),
        };
        if clock.is_identity() && rank != 0 && size > 1 && mode == Clocks::Corrected {
            notes.push(format!(
                "rank {rank} (pid {pid}): no clock synchronisation records; its times are not corrected"
            ));
        }
        clocks.insert((rank, pid), clock);
        defs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let defs: Vec<CommDef> = defs.into_iter().map(|(_, d)| d).collect();
        comm_maps.insert((rank, pid), comms.of_process(&defs));
    }

    let regions_of_run = RegionTable::of_run(run);
    let mut user_names: Vec<String> = Vec::new();
    let mut user_ids: HashMap<String, u32> = HashMap::new();
    let mut locations = Vec::new();
    let mut corrected: Vec<Vec<f64>> = Vec::new();
    for f in &files {
        let (rank, pid, thread) = f.key;
        let clock = &clocks[&(rank, pid)];
        let comm_map = comm_maps
            .get_mut(&(rank, pid))
            .expect("every process has a map");
        let remap = run.descriptor_ids.get(&(rank, pid));
        let objects = run.object_ids.get(&(rank, pid));
        let region = |id: u32| -> u32 {
            if id >= FIRST_DESCRIPTOR_ID {
                remap.and_then(|m| m.get(&id)).copied().unwrap_or(id)
            } else {
                objects.map_or(id, |m| m.map(id))
            }
        };
        let strings = f.trace.strings();
        let mut events = Vec::with_capacity(f.trace.records.len());
        let mut times = Vec::with_capacity(f.trace.records.len());
        for r in &f.trace.records {
            let mut comm = |local: u32| -> u32 {
                if let Some(g) = comm_map.get(&local) {
                    return *g;
                }
                let g = comms.undefined(rank, local);
                comm_map.insert(local, g);
                g
            };
            let event = match r.event.clone() {
                Event::String { .. } | Event::Comm { .. } | Event::ClockRate { .. } => continue,
                Event::Enter { region: id } => Event::Enter { region: region(id) },
                Event::Exit { region: id } => Event::Exit { region: region(id) },
                Event::OmpFork {
                    region: id,
                    team_size,
                } => Event::OmpFork {
                    region: region(id),
                    team_size,
                },
                Event::OmpJoin { region: id } => Event::OmpJoin { region: region(id) },
                Event::Throttled { region: id } => Event::Throttled { region: region(id) },
                Event::MpiSend {
                    peer,
                    comm: c,
                    tag,
                    bytes,
                } => Event::MpiSend {
                    peer,
                    comm: comm(c),
                    tag,
                    bytes,
                },
                Event::MpiRecv {
                    peer,
                    comm: c,
                    tag,
                    bytes,
                } => Event::MpiRecv {
                    peer,
                    comm: comm(c),
                    tag,
                    bytes,
                },
                Event::MpiIsend {
                    peer,
                    comm: c,
                    tag,
                    bytes,
                    request,
                } => Event::MpiIsend {
                    peer,
                    comm: comm(c),
                    tag,
                    bytes,
                    request,
                },
                Event::MpiIrecv {
                    peer,
                    comm: c,
                    tag,
                    bytes,
                    request,
                } => Event::MpiIrecv {
                    peer,
                    comm: comm(c),
                    tag,
                    bytes,
                    request,
                },
                Event::MpiCollectiveEnd {
                    op,
                    comm: c,
                    root,
                    sent,
                    received,
                } => Event::MpiCollectiveEnd {
                    op,
                    comm: comm(c),
                    root,
                    sent,
                    received,
                },
                Event::User { name, value } => {
                    let text = strings
                        .get(&name)
                        .map_or_else(|| format!("event {name}"), |s| s.to_string());
                    let next = user_names.len() as u32;
                    let id = *user_ids.entry(text.clone()).or_insert(next);
                    if id == next {
                        user_names.push(text);
                    }
                    Event::User { name: id, value }
                }
                other => other,
            };
            times.push(clock.correct(local_ns(f, r.ticks, t0)));
            events.push(event);
        }
        let h = &f.trace.header;
        locations.push(Location {
            rank,
            pid,
            thread,
            os_tid: h.os_tid,
            host: h.host.clone(),
            ticks_per_second: f.trace.ticks_per_second(),
            clock_uncertainty_ns: clock.uncertainty_ns(),
            // Times are set once the run's earliest event is known.
            events: events
                .into_iter()
                .map(|event| TraceEvent { ns: 0, event })
                .collect(),
        });
        corrected.push(times);
    }

    // ns 0 is the earliest corrected event of the run.
    let min = corrected
        .iter()
        .flat_map(|t| t.iter().copied())
        .fold(f64::INFINITY, f64::min);
    let min = if min.is_finite() { min } else { 0.0 };
    let mut end_ns = 0;
    for (loc, times) in locations.iter_mut().zip(&corrected) {
        let mut prev = 0u64;
        for (e, t) in loc.events.iter_mut().zip(times) {
            // Interpolated corrections keep a thread's order; rounding must
            // not reverse two events either.
            e.ns = ((t - min).round().max(0.0) as u64).max(prev);
            prev = e.ns;
        }
        end_ns = end_ns.max(prev);
        let repaired = nest(&mut loc.events);
        let unresolved = collective_ops(&mut loc.events, |id| regions_of_run.info(id).kind);
        if unresolved > 0 {
            notes.push(format!(
                "rank {} thread {}: {unresolved} collective(s) outside a known MPI collective call, written as barriers",
                loc.rank, loc.thread
            ));
        }
        if repaired.closed_at_end > 0 {
            notes.push(format!(
                "rank {} thread {}: {} region(s) still open where the trace ends, closed at its last event",
                loc.rank, loc.thread, repaired.closed_at_end
            ));
        }
        if repaired.exits_dropped + repaired.exits_inserted > 0 {
            notes.push(format!(
                "rank {} thread {}: {} exit(s) without an open region dropped, {} inserted for regions left by a jump",
                loc.rank, loc.thread, repaired.exits_dropped, repaired.exits_inserted
            ));
        }
    }

    let mut regions = BTreeMap::new();
    let end_lines: HashMap<u32, u32> = run
        .idf
        .iter()
        .flat_map(|i| i.regions.iter().map(|r| (r.id, r.end.line)))
        .collect();
    for loc in &locations {
        for e in &loc.events {
            if let Event::Enter { region }
            | Event::OmpFork { region, .. }
            | Event::Throttled { region } = e.event
            {
                regions.entry(region).or_insert_with(|| RegionDef {
                    info: regions_of_run.info(region),
                    end_line: end_lines.get(&region).copied(),
                });
            }
        }
    }
    Ok(Trace {
        locations,
        regions,
        comms: comms.comms,
        user_names,
        size,
        start_unix_ns: t0.saturating_add(min.round() as i64),
        end_ns,
        notes,
        spawned: run.spawned.clone(),
    })
}

/// Gives each `mpi_collective_end` that leaves its operation to the
/// reader (`collective::OF_REGION`, the runtime's) the operation of the
/// MPI call region open around it; `kind` is a region's IDF kind. Returns
/// how many had none (they become barriers: an operation without data).
fn collective_ops(events: &mut [TraceEvent], kind: impl Fn(u32) -> String) -> usize {
    let mut stack: Vec<u32> = Vec::new();
    let mut unresolved = 0;
    for e in events.iter_mut() {
        match &mut e.event {
            Event::Enter { region } => stack.push(*region),
            Event::Exit { .. } => {
                stack.pop();
            }
            Event::MpiCollectiveEnd { op, .. } if *op == collective::OF_REGION => {
                *op = stack
                    .last()
                    .and_then(|&r| collective_of_kind(&kind(r)))
                    .unwrap_or_else(|| {
                        unresolved += 1;
                        collective::BARRIER
                    });
            }
            _ => {}
        }
    }
    unresolved
}

/// OTF2's operation for an `mpi_*` region kind (neighbourhood collectives
/// as the operation they generalise; non-blocking ones as the blocking).
fn collective_of_kind(kind: &str) -> Option<u32> {
    use collective::*;
    let c = kind.strip_prefix("mpi_")?;
    // `i` of a non-blocking call (no blocking collective starts with it;
    // what is left of `mpi_init` and the like finds no operation below).
    let c = c.strip_prefix('i').unwrap_or(c);
    let c = c.strip_prefix("neighbor_").unwrap_or(c);
    Some(match c {
        "barrier" => BARRIER,
        "bcast" => BCAST,
        "gather" => GATHER,
        "gatherv" => GATHERV,
        "scatter" => SCATTER,
        "scatterv" => SCATTERV,
        "allgather" => ALLGATHER,
        "allgatherv" => ALLGATHERV,
        "alltoall" => ALLTOALL,
        "alltoallv" => ALLTOALLV,
        "alltoallw" => ALLTOALLW,
        "allreduce" => ALLREDUCE,
        "reduce" => REDUCE,
        "reduce_scatter" => REDUCE_SCATTER,
        "scan" => SCAN,
        "exscan" => EXSCAN,
        "reduce_scatter_block" => REDUCE_SCATTER_BLOCK,
        _ => return None,
    })
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Repairs {
    closed_at_end: usize,
    exits_dropped: usize,
    exits_inserted: usize,
}

/// Makes enters and exits strictly nested, as OTF2 and Chrome's B/E
/// events require: an exit of a region below the top closes the regions
/// above it first (the runtime's `exit(id)` pops them without recording
/// each), an exit of a region not open is dropped, and regions open at the
/// end are closed at the last event.
fn nest(events: &mut Vec<TraceEvent>) -> Repairs {
    let mut out = Vec::with_capacity(events.len());
    let mut stack: Vec<u32> = Vec::new();
    let mut r = Repairs::default();
    for e in events.drain(..) {
        match e.event {
            Event::Enter { region } => stack.push(region),
            Event::Exit { region } => match stack.iter().rposition(|&s| s == region) {
                Some(i) => {
                    while stack.len() > i + 1 {
                        let above = stack.pop().expect("len > i + 1");
                        r.exits_inserted += 1;
                        out.push(TraceEvent {
                            ns: e.ns,
                            event: Event::Exit { region: above },
                        });
                    }
                    stack.pop();
                }
                None => {
                    r.exits_dropped += 1;
                    continue;
                }
            },
            _ => {}
        }
        out.push(e);
    }
    let last = out.last().map_or(0, |e| e.ns);
    while let Some(region) = stack.pop() {
        r.closed_at_end += 1;
        out.push(TraceEvent {
            ns: last,
            event: Event::Exit { region },
        });
    }
    *events = out;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(ns: u64, event: Event) -> TraceEvent {
        TraceEvent { ns, event }
    }

    #[test]
    fn run_wide_communicator_ids_pair_whatever_the_definition_order() {
        let mut comms = Comms::new(4);
        let world: Vec<u32> = (0..4).collect();
        let (a, b) = (RUN_WIDE | 7, RUN_WIDE | 9);
        let def = |id: u32| (id, format!("c{id}"), world.clone(), None);
        // Two duplicates of the world, defined in opposite orders.
        let p0 = comms.of_process(&[def(b), def(a), def(3)]);
        let p1 = comms.of_process(&[def(a), def(b), def(5)]);
        assert_eq!(p0[&a], p1[&a]);
        assert_eq!(p0[&b], p1[&b]);
        assert_ne!(p0[&a], p0[&b]);
        // Process-local ids pair by the n-th with those members.
        assert_eq!(p0[&3], p1[&5]);
        assert_eq!(comms.comms.len(), 4);
    }

    #[test]
    fn an_intercommunicator_keeps_its_groups_whichever_side_defines_it_first() {
        let mut comms = Comms::new(4);
        let world: Vec<u32> = (0..4).collect();
        let id = RUN_WIDE | 11;
        let side = |local: &[u32], remote: &[u32]| {
            (
                id,
                "intercommunicator".to_string(),
                world.clone(),
                InterGroups::of(local, remote),
            )
        };
        // An old file's definition (no groups), then both groups' sides.
        let p0 = comms.of_process(&[(id, "i".into(), world.clone(), None)]);
        let p1 = comms.of_process(&[side(&[2, 3], &[0, 1])]);
        let p2 = comms.of_process(&[side(&[0, 1], &[2, 3])]);
        assert_eq!((p0[&id], p1[&id]), (p2[&id], p2[&id]));
        let c = &comms.comms[p0[&id] as usize];
        let g = c.inter.as_ref().unwrap();
        assert_eq!((g.a.as_slice(), g.b.as_slice()), (&[0, 1][..], &[2, 3][..]));
        assert_eq!(g.remote_of(3), Some(&[0, 1][..]));
        assert_eq!(g.remote_of(7), None);
    }

    #[test]
    fn collectives_take_their_operation_from_the_enclosing_call() {
        let end = |op| Event::MpiCollectiveEnd {
            op,
            comm: 0,
            root: None,
            sent: 8,
            received: 8,
        };
        let mut events = vec![
            ev(0, Event::Enter { region: 1 }),
            ev(1, Event::Enter { region: 2 }),
            ev(2, end(collective::OF_REGION)),
            ev(3, Event::Exit { region: 2 }),
            ev(4, Event::Enter { region: 3 }),
            ev(5, end(collective::OF_REGION)),
            ev(6, Event::Exit { region: 3 }),
            ev(7, end(collective::OF_REGION)),
            ev(8, end(collective::SCAN)),
        ];
        let kinds = |id: u32| match id {
            2 => "mpi_allreduce".to_string(),
            3 => "mpi_ibcast".to_string(),
            _ => "function".to_string(),
        };
        assert_eq!(collective_ops(&mut events, kinds), 1);
        let ops: Vec<u32> = events
            .iter()
            .filter_map(|e| match e.event {
                Event::MpiCollectiveEnd { op, .. } => Some(op),
                _ => None,
            })
            .collect();
        assert_eq!(
            ops,
            [
                collective::ALLREDUCE,
                collective::BCAST,
                collective::BARRIER,
                collective::SCAN
            ]
        );
        assert_eq!(collective_of_kind("mpi_init"), None);
        assert_eq!(collective_of_kind("mpi_igather"), Some(collective::GATHER));
        assert_eq!(collective_of_kind("mpi_iscan"), Some(collective::SCAN));
        assert_eq!(
            collective_of_kind("mpi_ineighbor_alltoall"),
            Some(collective::ALLTOALL)
        );
    }

    #[test]
    fn nesting_is_repaired_and_every_repair_counted() {
        let mut events = vec![
            ev(0, Event::Enter { region: 1 }),
            ev(1, Event::Enter { region: 2 }),
            ev(2, Event::Enter { region: 3 }),
            // Leaves 2 (and 3 above it) at once.
            ev(3, Event::Exit { region: 2 }),
            ev(4, Event::Exit { region: 9 }),
            ev(5, Event::Enter { region: 4 }),
        ];
        let r = nest(&mut events);
        assert_eq!(
            r,
            Repairs {
                closed_at_end: 2,
                exits_dropped: 1,
                exits_inserted: 1
            }
        );
        let shape: Vec<(u64, Event)> = events.into_iter().map(|e| (e.ns, e.event)).collect();
        assert_eq!(
            shape,
            vec![
                (0, Event::Enter { region: 1 }),
                (1, Event::Enter { region: 2 }),
                (2, Event::Enter { region: 3 }),
                (3, Event::Exit { region: 3 }),
                (3, Event::Exit { region: 2 }),
                (5, Event::Enter { region: 4 }),
                (5, Event::Exit { region: 4 }),
                (5, Event::Exit { region: 1 }),
            ]
        );
    }
}
