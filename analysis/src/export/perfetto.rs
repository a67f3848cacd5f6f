//! Chrome Trace Event JSON, which ui.perfetto.dev and chrome://tracing
//! open: a process track per rank (process), a thread track per thread,
//! `B`/`E` slices for regions, flow arrows from each send to its receive,
//! a counter track per user event name, and instant events for the rest.
//!
//! Message and collective args name processes as world ranks (the
//! tracks: `from`/`to` of a flow, `peer_world`/`root_world`) and as the
//! MPI call names them (`source`/`dest` of a flow, `peer_rank`/
//! `root_rank`: a rank of the communicator, on an intercommunicator of
//! the remote group, the root's own group passing `MPI_ROOT` /
//! `MPI_PROC_NULL`), with `communicator` (name), `communicator_id` (the
//! run-wide index, OTF2's communicator id) and `intercommunicator`.
//! `peer`/`root` are as the trace records them (a rank of the
//! communicator; a world rank on an intercommunicator).

use std::collections::BTreeMap;
use std::io::{self, Write};

use regio_trace_format::Event;
use serde_json::{json, Value};

use super::messages::{Message, MessageCheck};
use super::model::{Trace, ROOTED};

/// Microseconds, the unit of `ts`, with the nanoseconds as decimals.
fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// Writes `trace` as one JSON object with a `traceEvents` array. Messages
/// of `check` become flows.
pub fn write_perfetto(trace: &Trace, check: &MessageCheck, out: &mut dyn Write) -> io::Result<()> {
    let mut processes: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for l in &trace.locations {
        let next = processes.len() + 1;
        processes.entry((l.rank, l.pid)).or_insert(next);
    }
    let mut flows: BTreeMap<(usize, usize), Vec<(usize, bool)>> = BTreeMap::new();
    for (i, m) in check.messages.iter().enumerate() {
        flows.entry(m.send).or_default().push((i, true));
        flows.entry(m.recv).or_default().push((i, false));
    }

    out.write_all(b"{\"displayTimeUnit\":\"ns\",\"otherData\":")?;
    serde_json::to_writer(
        &mut *out,
        &json!({
            "producer": "regio",
            "start_unix_ns": trace.start_unix_ns,
            "ranks": trace.size,
            "notes": trace.notes,
            "left_out": crate::spawned::warning(&trace.spawned).into_iter().collect::<Vec<_>>(),
            "message_check": check.describe(trace),
        }),
    )?;
    out.write_all(b",\"traceEvents\":[\n")?;
    let mut first = true;
    let mut emit = |out: &mut dyn Write, v: Value| -> io::Result<()> {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)
    };

    for (&(rank, pid), &p) in &processes {
        let host = trace
            .locations
            .iter()
            .find(|l| (l.rank, l.pid) == (rank, pid))
            .map_or("", |l| l.host.as_str());
        let name = if trace.size > 1 {
            format!("rank {rank} (pid {pid}, {host})")
        } else {
            format!("pid {pid} ({host})")
        };
        emit(
            out,
            json!({"ph":"M","name":"process_name","pid":p,"tid":0,"args":{"name":name}}),
        )?;
        emit(
            out,
            json!({"ph":"M","name":"process_sort_index","pid":p,"tid":0,"args":{"sort_index":rank}}),
        )?;
    }
    for (li, l) in trace.locations.iter().enumerate() {
        let p = processes[&(l.rank, l.pid)];
        let t = l.thread;
        emit(
            out,
            json!({"ph":"M","name":"thread_name","pid":p,"tid":t,
            "args":{"name": format!("thread {} (tid {})", l.thread, l.os_tid)}}),
        )?;
        emit(
            out,
            json!({"ph":"M","name":"thread_sort_index","pid":p,"tid":t,"args":{"sort_index":t}}),
        )?;
        for (ei, e) in l.events.iter().enumerate() {
            let ts = us(e.ns);
            let v = match &e.event {
                Event::Enter { region } => {
                    let r = trace.region(*region);
                    json!({"ph":"B","name":r.name,"cat":r.kind,"pid":p,"tid":t,"ts":ts,
                        "args":{"region":region,"location":r.location()}})
                }
                Event::Exit { .. } => json!({"ph":"E","pid":p,"tid":t,"ts":ts}),
                Event::User { name, value } => {
                    let n = trace
                        .user_names
                        .get(*name as usize)
                        .map_or("user event", String::as_str);
                    json!({"ph":"C","name":n,"pid":p,"tid":t,"ts":ts,"args":{"value":value}})
                }
                Event::MpiSend { .. }
                | Event::MpiRecv { .. }
                | Event::MpiIsend { .. }
                | Event::MpiIrecv { .. } => {
                    // Drawn as flows below; a message without a partner
                    // still shows as an instant.
                    if flows.contains_key(&(li, ei)) {
                        Value::Null
                    } else {
                        instant(
                            p,
                            t,
                            ts,
                            "unmatched message",
                            describe(&e.event, l.rank, trace),
                        )
                    }
                }
                Event::ClockSync { .. }
                | Event::Unknown { .. }
                | Event::String { .. }
                | Event::Comm { .. } => Value::Null,
                Event::BufferFlush { duration, bytes } => {
                    // The time the owner spent writing, also in ns.
                    let ns = *duration as f64 * 1e9 / l.ticks_per_second;
                    let args = json!({"duration_ticks": duration, "duration_ns": ns.round(), "bytes": bytes});
                    instant(p, t, ts, name_of(&e.event), args)
                }
                other => instant(p, t, ts, name_of(other), describe(other, l.rank, trace)),
            };
            if !v.is_null() {
                emit(out, v)?;
            }
            for &(id, is_send) in flows.get(&(li, ei)).into_iter().flatten() {
                let args = flow_args(&check.messages[id], trace);
                emit(
                    out,
                    if is_send {
                        json!({"ph":"s","id":id,"name":"message","cat":"mpi","pid":p,"tid":t,"ts":ts,"args":args})
                    } else {
                        json!({"ph":"f","bp":"e","id":id,"name":"message","cat":"mpi","pid":p,"tid":t,"ts":ts,"args":args})
                    },
                )?;
            }
        }
    }
    out.write_all(b"\n]}\n")
}

/// A message's args: world ranks, the ranks its send and receive name,
/// tag, bytes and communicator.
fn flow_args(m: &Message, trace: &Trace) -> Value {
    let c = trace.comms.get(m.comm as usize);
    json!({"from":m.from,"to":m.to,"tag":m.tag,"bytes":m.bytes,
        "communicator": c.map_or("", |c| c.name.as_str()),
        "communicator_id": m.comm,
        "intercommunicator": c.is_some_and(|c| c.inter.is_some()),
        // MPI_SOURCE of the receive's status and the send's dest.
        "source": c.and_then(|c| c.rank_seen_by(m.to, m.from)),
        "dest": c.and_then(|c| c.rank_seen_by(m.from, m.to))})
}

/// A collective's root as process `me` passed it: a rank of the
/// communicator (of the remote group on an intercommunicator, where the
/// root itself passes `MPI_ROOT` and the rest of its group
/// `MPI_PROC_NULL`), or null for an operation without one.
fn root_rank(trace: &Trace, comm: u32, me: u32, op: u32, root: Option<u32>) -> Value {
    let Some(c) = trace.comms.get(comm as usize) else {
        return Value::Null;
    };
    match root.and_then(|r| c.world_rank(r)) {
        Some(w) if c.inter.is_some() && w == me => json!("MPI_ROOT"),
        Some(w) => json!(c.rank_seen_by(me, w)),
        None if c.inter.is_some() && ROOTED.contains(&op) => json!("MPI_PROC_NULL"),
        None => Value::Null,
    }
}

fn instant(pid: usize, tid: u32, ts: f64, name: &str, args: Value) -> Value {
    json!({"ph":"i","s":"t","name":name,"pid":pid,"tid":tid,"ts":ts,"args":args})
}

fn name_of(e: &Event) -> &'static str {
    match e {
        Event::OmpFork { .. } => "omp fork",
        Event::OmpJoin { .. } => "omp join",
        Event::OmpTeamBegin { .. } => "omp team begin",
        Event::OmpTeamEnd { .. } => "omp team end",
        Event::MpiIsendComplete { .. } => "isend complete",
        Event::MpiIrecvRequest { .. } => "irecv posted",
        Event::MpiCollectiveBegin => "collective begin",
        Event::MpiCollectiveEnd { .. } => "collective end",
        Event::BufferFlush { .. } => "trace buffer flush",
        Event::Throttled { .. } => "throttled",
        Event::Mask { .. } => "event mask",
        _ => "event",
    }
}

/// An event's args at a location of world rank `me`.
fn describe(e: &Event, me: u32, trace: &Trace) -> Value {
    let comm = |c: &u32| {
        trace
            .comms
            .get(*c as usize)
            .map_or("", |c| c.name.as_str())
            .to_string()
    };
    let inter = |c: &u32| {
        trace
            .comms
            .get(*c as usize)
            .is_some_and(|c| c.inter.is_some())
    };
    let world = |c: &u32, r: &u32| trace.comms.get(*c as usize)?.world_rank(*r);
    let peer_rank = |c: &u32, peer: &u32| {
        trace
            .comms
            .get(*c as usize)?
            .rank_seen_by(me, world(c, peer)?)
    };
    // A message record's args; a non-blocking one adds its request.
    let message = |peer: &u32, c: &u32, tag: &u32, bytes: &u64| {
        json!({"peer": peer, "communicator": comm(c), "tag": tag, "bytes": bytes,
            "peer_rank": peer_rank(c, peer), "peer_world": world(c, peer), "communicator_id": c, "intercommunicator": inter(c)})
    };
    match e {
        Event::OmpFork { region, team_size } => {
            json!({"region": trace.region(*region).name, "team_size": team_size})
        }
        Event::OmpJoin { region } | Event::Throttled { region } => {
            json!({"region": trace.region(*region).name})
        }
        Event::OmpTeamBegin {
            team,
            thread_num,
            team_size,
        } => json!({"team": team, "thread_num": thread_num, "team_size": team_size}),
        Event::OmpTeamEnd { team } => json!({"team": team}),
        Event::MpiSend {
            peer,
            comm: c,
            tag,
            bytes,
        }
        | Event::MpiRecv {
            peer,
            comm: c,
            tag,
            bytes,
        } => message(peer, c, tag, bytes),
        Event::MpiIsend {
            peer,
            comm: c,
            tag,
            bytes,
            request,
        }
        | Event::MpiIrecv {
            peer,
            comm: c,
            tag,
            bytes,
            request,
        } => {
            let mut args = message(peer, c, tag, bytes);
            args["request"] = json!(request);
            args
        }
        Event::MpiIsendComplete { request } | Event::MpiIrecvRequest { request } => {
            json!({"request": request})
        }
        Event::MpiCollectiveEnd {
            op,
            comm: c,
            root,
            sent,
            received,
        } => {
            json!({"op": op, "communicator": comm(c), "root": root, "sent": sent, "received": received,
                "root_rank": root_rank(trace, *c, me, *op, *root),
                "root_world": root.and_then(|r| world(c, &r)), "communicator_id": c,
                "intercommunicator": inter(c)})
        }
        Event::BufferFlush { duration, bytes } => {
            json!({"duration_ticks": duration, "bytes": bytes})
        }
        Event::Mask { mask } => json!({"mask": mask}),
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use regio_trace_format::{collective, Event};
    use serde_json::Value;

    use super::super::messages::match_messages;
    use super::super::model::{Comm, InterGroups, Location, Trace, TraceEvent};
    use super::write_perfetto;

    fn location(rank: u32, events: Vec<Event>) -> Location {
        Location {
            rank,
            pid: 100 + rank,
            thread: 0,
            os_tid: 100 + u64::from(rank),
            host: "h".into(),
            ticks_per_second: 1e9,
            clock_uncertainty_ns: 0,
            events: events
                .into_iter()
                .enumerate()
                .map(|(i, event)| TraceEvent {
                    ns: 10 * i as u64,
                    event,
                })
                .collect(),
        }
    }

    fn end(op: u32, comm: u32, root: Option<u32>) -> Event {
        Event::MpiCollectiveEnd {
            op,
            comm,
            root,
            sent: 0,
            received: 0,
        }
    }

    /// World 0..4; communicator 1 has the world's ranks in reverse order;
    /// 2 is an intercommunicator between {0, 1} and {2, 3} (peers and
    /// roots recorded as world ranks, as the runtime does).
    fn trace() -> Trace {
        let send = |peer, comm, tag| Event::MpiSend {
            peer,
            comm,
            tag,
            bytes: 4,
        };
        let isend = Event::MpiIsend {
            peer: 2,
            comm: 2,
            tag: 1,
            bytes: 4,
            request: 9,
        };
        let recv = Event::MpiRecv {
            peer: 0,
            comm: 2,
            tag: 1,
            bytes: 4,
        };
        let bcast = collective::BCAST;
        Trace {
            locations: vec![
                location(0, vec![isend, end(bcast, 2, Some(0))]),
                location(
                    1,
                    vec![
                        send(3, 2, 5),
                        end(bcast, 2, None),
                        end(collective::ALLREDUCE, 2, None),
                    ],
                ),
                location(2, vec![recv, end(bcast, 2, Some(0))]),
                // Rank 1 of communicator 1 is world rank 2; its root 3
                // is world rank 0.
                location(3, vec![send(1, 1, 6), end(bcast, 1, Some(3))]),
            ],
            regions: BTreeMap::new(),
            comms: vec![
                Comm {
                    name: "MPI_COMM_WORLD".into(),
                    members: vec![0, 1, 2, 3],
                    inter: None,
                },
                Comm {
                    name: "communicator 1".into(),
                    members: vec![3, 2, 1, 0],
                    inter: None,
                },
                Comm {
                    name: "intercommunicator 2".into(),
                    members: vec![0, 1, 2, 3],
                    inter: InterGroups::of(&[0, 1], &[2, 3]),
                },
            ],
            user_names: Vec::new(),
            size: 4,
            start_unix_ns: 0,
            end_ns: 30,
            notes: Vec::new(),
            spawned: Default::default(),
        }
    }

    fn events() -> Vec<Value> {
        let trace = trace();
        let check = match_messages(&trace);
        let mut out = Vec::new();
        write_perfetto(&trace, &check, &mut out).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        v["traceEvents"].as_array().unwrap().clone()
    }

    /// Args of the events named `name` (flows: phase `s`), by pid.
    fn args(events: &[Value], name: &str) -> Vec<(u64, Value)> {
        events
            .iter()
            .filter(|e| e["name"] == name && e["ph"] != "f")
            .map(|e| (e["pid"].as_u64().unwrap(), e["args"].clone()))
            .collect()
    }

    #[test]
    fn intercommunicator_messages_name_remote_group_ranks_and_world_ranks() {
        let events = events();
        let flows = args(&events, "message");
        assert_eq!(flows.len(), 1);
        let f = &flows[0].1;
        assert_eq!((&f["from"], &f["to"]), (&Value::from(0), &Value::from(2)));
        // Both are rank 0 of their group.
        assert_eq!(
            (&f["source"], &f["dest"]),
            (&Value::from(0), &Value::from(0))
        );
        assert_eq!(f["communicator"], "intercommunicator 2");
        assert_eq!(f["communicator_id"], 2);
        assert_eq!(f["intercommunicator"], true);

        let unmatched = args(&events, "unmatched message");
        assert_eq!(unmatched.len(), 2);
        // Rank 1's send to world rank 3: rank 1 of the remote group.
        let inter = &unmatched[0].1;
        assert_eq!(inter["peer"], 3);
        assert_eq!(inter["peer_world"], 3);
        assert_eq!(inter["peer_rank"], 1);
        assert_eq!(inter["intercommunicator"], true);
        assert_eq!(inter["communicator_id"], 2);
        // Rank 3's send to rank 1 of communicator 1: world rank 2.
        let intra = &unmatched[1].1;
        assert_eq!(intra["peer"], 1);
        assert_eq!(intra["peer_world"], 2);
        assert_eq!(intra["peer_rank"], 1);
        assert_eq!(intra["intercommunicator"], false);
        assert_eq!(intra["communicator"], "communicator 1");
    }

    #[test]
    fn intercommunicator_roots_are_remote_ranks_mpi_root_or_mpi_proc_null() {
        let events = events();
        let roots: Vec<(u64, Value, Value, Value)> = args(&events, "collective end")
            .into_iter()
            .map(|(pid, a)| {
                (
                    pid - 1,
                    a["op"].clone(),
                    a["root_rank"].clone(),
                    a["root_world"].clone(),
                )
            })
            .collect();
        let bcast = Value::from(collective::BCAST);
        let all = Value::from(collective::ALLREDUCE);
        assert_eq!(
            roots,
            [
                (0, bcast.clone(), "MPI_ROOT".into(), 0.into()),
                (1, bcast.clone(), "MPI_PROC_NULL".into(), Value::Null),
                (1, all, Value::Null, Value::Null),
                (2, bcast.clone(), 0.into(), 0.into()),
                (3, bcast, 3.into(), 0.into()),
            ]
        );
    }
}
