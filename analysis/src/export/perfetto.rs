//! Chrome Trace Event JSON, which ui.perfetto.dev and chrome://tracing
//! open: a process track per rank (process), a thread track per thread,
//! `B`/`E` slices for regions, flow arrows from each send to its receive,
//! a counter track per user event name, and instant events for the rest.

use std::collections::BTreeMap;
use std::io::{self, Write};

use regio_trace_format::Event;
use serde_json::{json, Value};

use super::messages::MessageCheck;
use super::model::Trace;

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
                        instant(p, t, ts, "unmatched message", describe(&e.event, trace))
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
                other => instant(p, t, ts, name_of(other), describe(other, trace)),
            };
            if !v.is_null() {
                emit(out, v)?;
            }
            for &(id, is_send) in flows.get(&(li, ei)).into_iter().flatten() {
                let m = &check.messages[id];
                let args = json!({"from":m.from,"to":m.to,"tag":m.tag,"bytes":m.bytes,
                    "communicator": trace.comms.get(m.comm as usize).map_or("", |c| c.name.as_str())});
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

fn describe(e: &Event, trace: &Trace) -> Value {
    let comm = |c: &u32| {
        trace
            .comms
            .get(*c as usize)
            .map_or("", |c| c.name.as_str())
            .to_string()
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
        } => json!({"peer": peer, "communicator": comm(c), "tag": tag, "bytes": bytes}),
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
            json!({"peer": peer, "communicator": comm(c), "tag": tag, "bytes": bytes, "request": request})
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
            json!({"op": op, "communicator": comm(c), "root": root, "sent": sent, "received": received})
        }
        Event::BufferFlush { duration, bytes } => {
            json!({"duration_ticks": duration, "bytes": bytes})
        }
        Event::Mask { mask } => json!({"mask": mask}),
        _ => json!({}),
    }
}
