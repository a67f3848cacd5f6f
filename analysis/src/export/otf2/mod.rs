//! OTF2 archives through the reference library (loaded at run time, see
//! `ffi.rs`), so Vampir, Scalasca and `otf2-print` read them.
//!
//! Definitions: a system tree of hosts, one location group per process
//! (named by its rank), one location (CPU thread) per thread, a region per
//! region the trace enters (name, source file and lines from the IDF, role
//! and paradigm from its kind), with MPI a `COMM_LOCATIONS` group of every
//! rank's first thread and a group and communicator per communicator (an
//! intercommunicator whose groups the trace recorded: two groups and an
//! `InterComm`, OTF2 3.0, its events naming ranks of the remote group), with
//! OpenMP a `COMM_LOCATIONS` group of every thread and a group and
//! thread-team communicator per team, and a metric per user event name. Times are ns on rank 0's clock, offset by
//! the run's start (Unix time).

mod ffi;

use std::collections::{BTreeMap, HashMap};
use std::ffi::CString;
use std::path::{Path, PathBuf};

use regio_trace_format::Event;

use super::model::{InterGroups, Trace, ROOTED};
use super::ExportError;
use crate::overhead::MpiFamily;
use ffi::{paradigm, role, Lib};

/// What [`write_otf2`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Otf2Summary {
    /// The archive's anchor file (`<out>/traces.otf2`), what readers open.
    pub anchor: PathBuf,
    pub locations: usize,
    pub events: u64,
}

/// The archive's name inside `out`.
pub const ARCHIVE_NAME: &str = "traces";

/// Set (to anything), the exporter writes as if the OTF2 library lacked
/// `OTF2_GlobalDefWriter_WriteInterComm` (OTF2 before 3.0): tests reach
/// the fallback with the one library installable here.
pub const TEST_NO_INTER_COMM: &str = "REGIO_TEST_OTF2_NO_INTERCOMM";

/// Run-wide string table; 0 is the empty string.
#[derive(Default)]
struct Strings {
    list: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_string());
        self.ids.insert(s.to_string(), i);
        i
    }
}

/// OTF2 region role and paradigm of a Regio region kind.
fn role_of(kind: &str) -> (u8, u8) {
    if let Some(c) = kind.strip_prefix("omp_") {
        let r = match c {
            "parallel" => role::PARALLEL,
            "for" | "do" | "loop" | "simd" | "distribute" | "taskloop" => role::LOOP,
            "barrier" | "taskwait" | "taskgroup" => role::BARRIER,
            "single" => role::SINGLE,
            "master" | "masked" => role::MASTER,
            "critical" | "ordered" => role::CRITICAL,
            "atomic" => role::ATOMIC,
            "sections" | "section" => role::SECTIONS,
            "task" => role::TASK,
            "workshare" => role::WORKSHARE,
            _ => role::CODE,
        };
        return (r, paradigm::OPENMP);
    }
    if let Some((family, c)) = MpiFamily::of(kind) {
        let r = match family {
            MpiFamily::Barrier => role::BARRIER,
            MpiFamily::PointToPoint => role::POINT2POINT,
            // Window synchronisation is one-sided, not a message wait.
            MpiFamily::Wait if !c.starts_with("win_") => role::POINT2POINT,
            MpiFamily::Collective => role::COLL_ALL2ALL,
            _ => role::FUNCTION,
        };
        return (r, paradigm::MPI);
    }
    match kind {
        "function" | "program" | "call" => (role::FUNCTION, paradigm::COMPILER),
        "loop" => (role::LOOP, paradigm::USER),
        "user" => (role::CODE, paradigm::USER),
        "io" => (role::FILE_IO, paradigm::USER),
        _ => (role::UNKNOWN, paradigm::USER),
    }
}

/// Writes `trace` as an OTF2 archive in the directory `out`, which must not
/// exist yet.
pub fn write_otf2(trace: &Trace, out: &Path) -> Result<Otf2Summary, ExportError> {
    if out.exists() {
        return Err(ExportError::Otf2(format!(
            "{}: error: already exists; OTF2 writes a new archive directory (remove it or give another --out)",
            out.display()
        )));
    }
    let mut lib = Lib::load().map_err(ExportError::Otf2)?;
    if std::env::var_os(TEST_NO_INTER_COMM).is_some() {
        lib.def_inter_comm = None;
    }
    write_with(&lib, trace, out)
        .map_err(|e| ExportError::Otf2(format!("{}: error: {e}", out.display())))
}

struct Defs {
    strings: Strings,
    regions: BTreeMap<u32, u32>,
    /// Per location, the index of its location group (process).
    group_of: Vec<u32>,
    processes: Vec<(u32, u32, String)>,
    /// Location of each rank's first thread, by rank; empty without MPI.
    rank_locations: Vec<u64>,
    /// OpenMP teams: (rank, pid, team) -> (communicator id, member
    /// locations in thread_num order). Communicator ids follow MPI's.
    teams: BTreeMap<(u32, u32, u64), (u32, Vec<u64>)>,
    /// Intercommunicators written as OTF2 `InterComm`s (the library has
    /// it and the trace recorded their groups), by communicator id: their
    /// events name peers and roots in the remote group, as OTF2 3.0 says.
    inter: HashMap<u32, InterGroups>,
}

fn definitions(trace: &Trace, inter_comm: bool) -> Result<Defs, String> {
    let mut strings = Strings::default();
    strings.id("");
    let regions = trace
        .regions
        .keys()
        .enumerate()
        .map(|(i, id)| (*id, i as u32))
        .collect();
    let mut processes: Vec<(u32, u32, String)> = Vec::new();
    let mut group_of = Vec::new();
    for l in &trace.locations {
        let i = match processes
            .iter()
            .position(|(r, p, _)| (*r, *p) == (l.rank, l.pid))
        {
            Some(i) => i,
            None => {
                processes.push((l.rank, l.pid, l.host.clone()));
                processes.len() - 1
            }
        };
        group_of.push(i as u32);
    }
    let uses_mpi = trace.locations.iter().any(|l| {
        l.events.iter().any(|e| {
            matches!(
                e.event,
                Event::MpiSend { .. }
                    | Event::MpiRecv { .. }
                    | Event::MpiIsend { .. }
                    | Event::MpiIrecv { .. }
                    | Event::MpiCollectiveEnd { .. }
            )
        })
    });
    let mut rank_locations = Vec::new();
    if uses_mpi {
        for rank in 0..trace.size {
            let loc = trace
                .locations
                .iter()
                .position(|l| l.rank == rank)
                .ok_or_else(|| {
                    format!(
                        "the trace has MPI events but no trace file of rank {rank} (of {}): OTF2 needs every rank's location",
                        trace.size
                    )
                })?;
            rank_locations.push(loc as u64);
        }
    }
    let first_team_comm = if rank_locations.is_empty() {
        0
    } else {
        trace.comms.len() as u32
    };
    let mut members: BTreeMap<(u32, u32, u64), Vec<(u32, u64)>> = BTreeMap::new();
    for (li, l) in trace.locations.iter().enumerate() {
        for e in &l.events {
            if let Event::OmpTeamBegin {
                team, thread_num, ..
            } = e.event
            {
                let m = members.entry((l.rank, l.pid, team)).or_default();
                if !m.iter().any(|(_, loc)| *loc == li as u64) {
                    m.push((thread_num, li as u64));
                }
            }
        }
    }
    let teams = members
        .into_iter()
        .enumerate()
        .map(|(i, (key, mut m))| {
            m.sort_unstable();
            let locs = m.into_iter().map(|(_, loc)| loc).collect();
            (key, (first_team_comm + i as u32, locs))
        })
        .collect();
    let inter = if inter_comm && !rank_locations.is_empty() {
        trace
            .comms
            .iter()
            .enumerate()
            // One reaching into another job (spawned, connected) stays a
            // Comm over the world: OTF2 has no location for the others.
            .filter_map(|(ci, c)| {
                let g = c.inter.clone()?;
                g.within_world(trace.size).then_some((ci as u32, g))
            })
            .collect()
    } else {
        HashMap::new()
    };
    Ok(Defs {
        strings,
        regions,
        group_of,
        processes,
        rank_locations,
        teams,
        inter,
    })
}

fn write_with(lib: &Lib, trace: &Trace, out: &Path) -> Result<Otf2Summary, String> {
    let mut defs = definitions(trace, lib.def_inter_comm.is_some())?;
    let path = CString::new(out.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
    let name = CString::new(ARCHIVE_NAME).map_err(|e| e.to_string())?;
    let start = u64::try_from(trace.start_unix_ns).unwrap_or(0);
    // SAFETY (this and every call below): the archive and writer handles
    // come from the library and are used before they are closed, strings
    // are NUL-terminated CStrings that outlive the call, arrays are valid
    // for their stated length.
    let archive = unsafe {
        (lib.archive_open)(
            path.as_ptr(),
            name.as_ptr(),
            ffi::FILEMODE_WRITE,
            1 << 20,
            4 << 20,
            ffi::SUBSTRATE_POSIX,
            ffi::COMPRESSION_NONE,
        )
    };
    if archive.is_null() {
        return Err("OTF2 could not create the archive".into());
    }
    let flush = ffi::FlushCallbacks {
        pre_flush: ffi::pre_flush,
        post_flush: ffi::post_flush,
    };
    let result = (|| -> Result<u64, String> {
        unsafe {
            lib.check(
                "SetFlushCallbacks",
                (lib.set_flush_callbacks)(archive, &flush, std::ptr::null_mut()),
            )?;
            lib.check(
                "SetSerialCollectiveCallbacks",
                (lib.set_serial_collective_callbacks)(archive),
            )?;
            lib.check("OpenEvtFiles", (lib.open_evt_files)(archive))?;
        }
        let mut counts = Vec::with_capacity(trace.locations.len());
        for (li, loc) in trace.locations.iter().enumerate() {
            let w = unsafe { (lib.get_evt_writer)(archive, li as u64) };
            if w.is_null() {
                return Err(format!("OTF2 gave no event writer for location {li}"));
            }
            let n = write_events(lib, w, &defs, loc, start)?;
            counts.push(n);
            unsafe { lib.check("CloseEvtWriter", (lib.close_evt_writer)(archive, w))? };
        }
        unsafe {
            lib.check("CloseEvtFiles", (lib.close_evt_files)(archive))?;
            lib.check("OpenDefFiles", (lib.open_def_files)(archive))?;
        }
        for li in 0..trace.locations.len() {
            let d = unsafe { (lib.get_def_writer)(archive, li as u64) };
            if d.is_null() {
                return Err(format!("OTF2 gave no definition writer for location {li}"));
            }
            unsafe { lib.check("CloseDefWriter", (lib.close_def_writer)(archive, d))? };
        }
        unsafe { lib.check("CloseDefFiles", (lib.close_def_files)(archive))? };
        let g = unsafe { (lib.get_global_def_writer)(archive) };
        if g.is_null() {
            return Err("OTF2 gave no global definition writer".into());
        }
        write_global_defs(lib, g, trace, &mut defs, &counts, start)?;
        Ok(counts.iter().sum())
    })();
    let closed = unsafe { lib.check("Archive_Close", (lib.archive_close)(archive)) };
    let events = result?;
    closed?;
    Ok(Otf2Summary {
        anchor: out.join(format!("{ARCHIVE_NAME}.otf2")),
        locations: trace.locations.len(),
        events,
    })
}

/// A collective's root as OTF2 names it: a rank in `comm`; on an
/// intercommunicator (OTF2 3.0) a rank of the remote group,
/// `COLLECTIVE_ROOT_SELF` for the root itself (recorded with its own world
/// rank) and `COLLECTIVE_ROOT_THIS_GROUP` for the rest of its group of a
/// rooted operation (recorded without a root).
fn collective_root(inter: Option<&InterGroups>, me: u32, op: u32, root: Option<u32>) -> u32 {
    let Some(g) = inter else {
        return root.unwrap_or(ffi::UNDEFINED_U32);
    };
    match root {
        Some(r) if r == me => ffi::COLLECTIVE_ROOT_SELF,
        Some(r) => g
            .remote_of(me)
            .and_then(|remote| remote.iter().position(|w| *w == r))
            .map_or(ffi::UNDEFINED_U32, |p| p as u32),
        None if ROOTED.contains(&op) => ffi::COLLECTIVE_ROOT_THIS_GROUP,
        None => ffi::UNDEFINED_U32,
    }
}

fn write_events(
    lib: &Lib,
    w: *mut ffi::EvtWriter,
    defs: &Defs,
    loc: &super::model::Location,
    start: u64,
) -> Result<u64, String> {
    let null = std::ptr::null_mut();
    let mut n = 0u64;
    let region = |id: &u32| -> Result<u32, String> {
        defs.regions
            .get(id)
            .copied()
            .ok_or_else(|| format!("region {id} has no definition"))
    };
    // A peer on an intercommunicator: the trace's world rank as a rank of
    // the remote group (unknown ranks, such as an unresolved wildcard, stay).
    let peer_in = |comm: &u32, peer: &u32| -> u32 {
        defs.inter
            .get(comm)
            .and_then(|g| g.remote_of(loc.rank))
            .and_then(|remote| remote.iter().position(|w| w == peer))
            .map_or(*peer, |p| p as u32)
    };
    for e in &loc.events {
        let t = start + e.ns;
        // SAFETY: see write_with.
        let code = unsafe {
            match &e.event {
                Event::Enter { region: r } => (lib.enter)(w, null, t, region(r)?),
                Event::Exit { region: r } => (lib.leave)(w, null, t, region(r)?),
                Event::OmpFork { team_size, .. } => {
                    (lib.thread_fork)(w, null, t, paradigm::OPENMP, *team_size)
                }
                Event::OmpJoin { .. } => (lib.thread_join)(w, null, t, paradigm::OPENMP),
                Event::OmpTeamBegin { team, .. } | Event::OmpTeamEnd { team } => {
                    let Some((comm, _)) = defs.teams.get(&(loc.rank, loc.pid, *team)) else {
                        continue;
                    };
                    if matches!(e.event, Event::OmpTeamBegin { .. }) {
                        (lib.thread_team_begin)(w, null, t, *comm)
                    } else {
                        (lib.thread_team_end)(w, null, t, *comm)
                    }
                }
                Event::MpiSend {
                    peer,
                    comm,
                    tag,
                    bytes,
                } => (lib.mpi_send)(w, null, t, peer_in(comm, peer), *comm, *tag, *bytes),
                Event::MpiRecv {
                    peer,
                    comm,
                    tag,
                    bytes,
                } => (lib.mpi_recv)(w, null, t, peer_in(comm, peer), *comm, *tag, *bytes),
                Event::MpiIsend {
                    peer,
                    comm,
                    tag,
                    bytes,
                    request,
                } => (lib.mpi_isend)(
                    w,
                    null,
                    t,
                    peer_in(comm, peer),
                    *comm,
                    *tag,
                    *bytes,
                    *request,
                ),
                Event::MpiIsendComplete { request } => {
                    (lib.mpi_isend_complete)(w, null, t, *request)
                }
                Event::MpiIrecvRequest { request } => (lib.mpi_irecv_request)(w, null, t, *request),
                Event::MpiIrecv {
                    peer,
                    comm,
                    tag,
                    bytes,
                    request,
                } => (lib.mpi_irecv)(
                    w,
                    null,
                    t,
                    peer_in(comm, peer),
                    *comm,
                    *tag,
                    *bytes,
                    *request,
                ),
                Event::MpiCollectiveBegin => (lib.mpi_collective_begin)(w, null, t),
                Event::MpiCollectiveEnd {
                    op,
                    comm,
                    root,
                    sent,
                    received,
                } => (lib.mpi_collective_end)(
                    w,
                    null,
                    t,
                    u8::try_from(*op).unwrap_or(u8::MAX),
                    *comm,
                    collective_root(defs.inter.get(comm), loc.rank, *op, *root),
                    *sent,
                    *received,
                ),
                Event::User { name, value } => {
                    let ty = [ffi::TYPE_DOUBLE];
                    let v = [*value];
                    (lib.metric)(w, null, t, *name, 1, ty.as_ptr(), v.as_ptr())
                }
                Event::BufferFlush { duration, .. } => {
                    let stop = t + (*duration as f64 * 1e9 / loc.ticks_per_second) as u64;
                    (lib.buffer_flush)(w, null, t, stop)
                }
                // The rest has no OTF2 event.
                _ => continue,
            }
        };
        lib.check("writing an event", code)?;
        n += 1;
    }
    Ok(n)
}

fn write_global_defs(
    lib: &Lib,
    g: *mut ffi::GlobalDefWriter,
    trace: &Trace,
    defs: &mut Defs,
    counts: &[u64],
    start: u64,
) -> Result<(), String> {
    let s = &mut defs.strings;
    // Names first, so every string exists before the library writes the
    // string table.
    let machine = s.id("machine");
    let node_class = s.id("node");
    let machine_class = s.id("machine");
    let mut hosts: Vec<String> = defs.processes.iter().map(|p| p.2.clone()).collect();
    hosts.sort();
    hosts.dedup();
    let host_names: Vec<u32> = hosts.iter().map(|h| s.id(h)).collect();
    let process_names: Vec<u32> = defs
        .processes
        .iter()
        .map(|(rank, pid, _)| {
            if trace.size > 1 {
                s.id(&format!("MPI Rank {rank}"))
            } else {
                s.id(&format!("Process {pid}"))
            }
        })
        .collect();
    let location_names: Vec<u32> = trace
        .locations
        .iter()
        .map(|l| s.id(&format!("thread {}", l.thread)))
        .collect();
    struct RegionStrings {
        name: u32,
        file: u32,
        role: u8,
        paradigm: u8,
        begin: u32,
        end: u32,
    }
    let regions: Vec<RegionStrings> = trace
        .regions
        .values()
        .map(|r| {
            let (role, paradigm) = role_of(&r.info.kind);
            let line = r.info.line.unwrap_or(0);
            RegionStrings {
                name: s.id(&r.info.name),
                file: r.info.file.as_deref().map_or(0, |f| s.id(f)),
                role,
                paradigm,
                begin: line,
                end: r.end_line.unwrap_or(line),
            }
        })
        .collect();
    let comm_names: Vec<u32> = if defs.rank_locations.is_empty() {
        Vec::new()
    } else {
        trace.comms.iter().map(|c| s.id(&c.name)).collect()
    };
    let all_ranks = s.id("all ranks");
    let all_threads = s.id("all threads");
    let team_names: Vec<u32> = defs
        .teams
        .keys()
        .map(|(rank, pid, team)| {
            if trace.size > 1 {
                s.id(&format!("OpenMP team {team} of rank {rank}"))
            } else {
                s.id(&format!("OpenMP team {team} of process {pid}"))
            }
        })
        .collect();
    let metric_names: Vec<u32> = trace.user_names.iter().map(|n| s.id(n)).collect();

    // SAFETY: see write_with.
    unsafe {
        lib.check(
            "WriteClockProperties",
            (lib.def_clock_properties)(
                g,
                1_000_000_000,
                start,
                trace.end_ns + 1,
                ffi::UNDEFINED_TIMESTAMP,
            ),
        )?;
        for (i, text) in defs.strings.list.iter().enumerate() {
            let c = CString::new(text.replace('\0', " ")).map_err(|e| e.to_string())?;
            lib.check("WriteString", (lib.def_string)(g, i as u32, c.as_ptr()))?;
        }
        lib.check(
            "WriteSystemTreeNode",
            (lib.def_system_tree_node)(g, 0, machine, machine_class, ffi::UNDEFINED_U32),
        )?;
        for (i, name) in host_names.iter().enumerate() {
            lib.check(
                "WriteSystemTreeNode",
                (lib.def_system_tree_node)(g, i as u32 + 1, *name, node_class, 0),
            )?;
        }
        for (i, (_, _, host)) in defs.processes.iter().enumerate() {
            let node = hosts
                .iter()
                .position(|h| h == host)
                .map_or(0, |p| p as u32 + 1);
            lib.check(
                "WriteLocationGroup",
                (lib.def_location_group)(
                    g,
                    i as u32,
                    process_names[i],
                    ffi::LOCATION_GROUP_PROCESS,
                    node,
                    ffi::UNDEFINED_U32,
                ),
            )?;
        }
        for (li, name) in location_names.iter().enumerate() {
            lib.check(
                "WriteLocation",
                (lib.def_location)(
                    g,
                    li as u64,
                    *name,
                    ffi::LOCATION_CPU_THREAD,
                    counts[li],
                    defs.group_of[li],
                ),
            )?;
        }
        for (i, r) in regions.iter().enumerate() {
            lib.check(
                "WriteRegion",
                (lib.def_region)(
                    g, i as u32, r.name, r.name, 0, r.role, r.paradigm, 0, r.file, r.begin, r.end,
                ),
            )?;
        }
        // Group 0 and one per communicator (two per intercommunicator)
        // with MPI, none without.
        let mut next_group = 0;
        if !defs.rank_locations.is_empty() {
            next_group = 1;
            lib.check(
                "WriteGroup",
                (lib.def_group)(
                    g,
                    0,
                    all_ranks,
                    ffi::GROUP_COMM_LOCATIONS,
                    paradigm::MPI,
                    0,
                    defs.rank_locations.len() as u32,
                    defs.rank_locations.as_ptr(),
                ),
            )?;
            // Readers (otf2-print, the Python bindings) want groups
            // numbered in the order they are defined: each communicator's
            // group (an intercommunicator's two) takes the next ids.
            for (ci, c) in trace.comms.iter().enumerate() {
                let inter = defs.inter.get(&(ci as u32));
                let group = |id: u32, ranks: &[u32]| {
                    let members: Vec<u64> = ranks.iter().map(|m| u64::from(*m)).collect();
                    lib.check(
                        "WriteGroup",
                        (lib.def_group)(
                            g,
                            id,
                            comm_names[ci],
                            ffi::GROUP_COMM_GROUP,
                            paradigm::MPI,
                            0,
                            members.len() as u32,
                            members.as_ptr(),
                        ),
                    )
                };
                let first = next_group;
                match (inter, lib.def_inter_comm) {
                    (Some(groups), Some(def_inter_comm)) => {
                        group(first, &groups.a)?;
                        group(first + 1, &groups.b)?;
                        next_group += 2;
                        // The communicator it was made over is not
                        // recorded: OTF2_UNDEFINED_COMM.
                        lib.check(
                            "WriteInterComm",
                            def_inter_comm(
                                g,
                                ci as u32,
                                comm_names[ci],
                                first,
                                first + 1,
                                ffi::UNDEFINED_U32,
                                0,
                            ),
                        )?;
                    }
                    _ => {
                        group(first, &c.members)?;
                        next_group += 1;
                        lib.check(
                            "WriteComm",
                            (lib.def_comm)(
                                g,
                                ci as u32,
                                comm_names[ci],
                                first,
                                ffi::UNDEFINED_U32,
                                0,
                            ),
                        )?;
                    }
                }
            }
        }
        if !defs.teams.is_empty() {
            // Group ids after MPI's.
            let first_group = next_group;
            let every: Vec<u64> = (0..trace.locations.len() as u64).collect();
            lib.check(
                "WriteGroup",
                (lib.def_group)(
                    g,
                    first_group,
                    all_threads,
                    ffi::GROUP_COMM_LOCATIONS,
                    paradigm::OPENMP,
                    0,
                    every.len() as u32,
                    every.as_ptr(),
                ),
            )?;
            for (i, (comm, members)) in defs.teams.values().enumerate() {
                let group = first_group + 1 + i as u32;
                lib.check(
                    "WriteGroup",
                    (lib.def_group)(
                        g,
                        group,
                        team_names[i],
                        ffi::GROUP_COMM_GROUP,
                        paradigm::OPENMP,
                        0,
                        members.len() as u32,
                        members.as_ptr(),
                    ),
                )?;
                lib.check(
                    "WriteComm",
                    (lib.def_comm)(g, *comm, team_names[i], group, ffi::UNDEFINED_U32, 0),
                )?;
            }
        }
        for (i, name) in metric_names.iter().enumerate() {
            lib.check(
                "WriteMetricMember",
                (lib.def_metric_member)(
                    g,
                    i as u32,
                    *name,
                    0,
                    ffi::METRIC_TYPE_USER,
                    ffi::METRIC_ABSOLUTE_POINT,
                    ffi::TYPE_DOUBLE,
                    ffi::BASE_DECIMAL,
                    0,
                    0,
                ),
            )?;
            let member = [i as u32];
            lib.check(
                "WriteMetricClass",
                (lib.def_metric_class)(
                    g,
                    i as u32,
                    1,
                    member.as_ptr(),
                    ffi::METRIC_ASYNCHRONOUS,
                    ffi::RECORDER_ABSTRACT,
                ),
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use regio_trace_format::collective;

    #[test]
    fn intercommunicator_roots_name_the_remote_group_or_the_root_s_own_group() {
        // Groups {0, 1} and {2, 3}; each side recorded (local, remote).
        let g = InterGroups::of(&[2, 3], &[0, 1]).unwrap();
        assert_eq!(Some(&g), InterGroups::of(&[0, 1], &[2, 3]).as_ref());
        let bcast = collective::BCAST;
        // Rank 0 passed MPI_ROOT (recorded as itself), rank 1 MPI_PROC_NULL.
        assert_eq!(
            collective_root(Some(&g), 0, bcast, Some(0)),
            ffi::COLLECTIVE_ROOT_SELF
        );
        assert_eq!(
            collective_root(Some(&g), 1, bcast, None),
            ffi::COLLECTIVE_ROOT_THIS_GROUP
        );
        // The other group names the root by its rank in the remote group.
        assert_eq!(collective_root(Some(&g), 3, bcast, Some(0)), 0);
        assert_eq!(collective_root(Some(&g), 1, bcast, Some(3)), 1);
        // No root: undefined, also on a plain communicator.
        let all = collective::ALLREDUCE;
        assert_eq!(collective_root(Some(&g), 2, all, None), ffi::UNDEFINED_U32);
        assert_eq!(collective_root(None, 2, bcast, Some(3)), 3);
        assert_eq!(collective_root(None, 2, all, None), ffi::UNDEFINED_U32);
    }
}
