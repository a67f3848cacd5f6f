//! Point-to-point messages: each send paired with its receive, and the
//! check that after clock correction no receive ends before its send
//! began. MPI does not let messages between two ranks on one communicator
//! with one tag overtake each other, so the n-th send matches the n-th
//! receive of the same (sender, receiver, communicator, tag).

use std::collections::{BTreeMap, VecDeque};

use regio_trace_format::Event;

use super::model::Trace;

/// A matched message. `send`/`recv` are (location index, event index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub send: (usize, usize),
    pub recv: (usize, usize),
    pub from: u32,
    pub to: u32,
    pub comm: u32,
    pub tag: u32,
    /// As sent (a receive may name a larger buffer).
    pub bytes: u64,
    pub send_ns: u64,
    pub recv_ns: u64,
}

/// A receive that ends before its send began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Index into [`MessageCheck::messages`].
    pub message: usize,
    /// How long before the send the receive ended.
    pub early_ns: u64,
    /// How far the two clocks may be off each other after correction
    /// (the sum of both locations' uncertainty): a violation within it
    /// may be the synchronisation's error rather than a wrong trace.
    pub uncertainty_ns: u64,
}

impl Violation {
    /// Earlier than the clocks' uncertainty explains.
    pub fn beyond_uncertainty(&self) -> bool {
        self.early_ns > self.uncertainty_ns
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageCheck {
    pub messages: Vec<Message>,
    pub violations: Vec<Violation>,
    pub unmatched_sends: usize,
    pub unmatched_recvs: usize,
    /// Sends and receives with processes of another job (on an
    /// intercommunicator from `MPI_Comm_spawn`, connect/accept or join):
    /// not in the trace, so not paired, and not counted as unmatched.
    pub outside_world: usize,
}

impl MessageCheck {
    /// One line per problem, for the user.
    pub fn describe(&self, trace: &Trace) -> Vec<String> {
        let mut lines: Vec<String> = self
            .violations
            .iter()
            .map(|v| {
                let m = &self.messages[v.message];
                format!(
                    "message from rank {} to rank {} (tag {}, {}) received {} ns before it was sent (clock uncertainty {} ns): clocks not synchronised well enough",
                    m.from,
                    m.to,
                    m.tag,
                    trace
                        .comms
                        .get(m.comm as usize)
                        .map_or("unknown communicator", |c| c.name.as_str()),
                    v.early_ns,
                    v.uncertainty_ns
                )
            })
            .collect();
        if self.outside_world > 0 {
            lines.push(format!(
                "{} send(s) and receive(s) with processes outside this run's MPI_COMM_WORLD (an intercommunicator of MPI_Comm_spawn, MPI_Comm_connect/accept or MPI_Comm_join) not paired: MPI dynamic processes are not supported",
                self.outside_world
            ));
        }
        if self.unmatched_sends + self.unmatched_recvs > 0 {
            lines.push(format!(
                "{} send(s) and {} receive(s) without a partner in the trace",
                self.unmatched_sends, self.unmatched_recvs
            ));
        }
        lines
    }
}

type Key = (u32, u32, u32, u32);

struct Side {
    at: (usize, usize),
    ns: u64,
    bytes: u64,
    uncertainty_ns: u64,
}

pub fn match_messages(trace: &Trace) -> MessageCheck {
    let mut sends: BTreeMap<Key, Vec<Side>> = BTreeMap::new();
    let mut recvs: BTreeMap<Key, Vec<Side>> = BTreeMap::new();
    let mut check = MessageCheck::default();
    for (li, loc) in trace.locations.iter().enumerate() {
        for (ei, e) in loc.events.iter().enumerate() {
            let (send, peer, comm, tag, bytes) = match e.event {
                Event::MpiSend {
                    peer,
                    comm,
                    tag,
                    bytes,
                }
                | Event::MpiIsend {
                    peer,
                    comm,
                    tag,
                    bytes,
                    ..
                } => (true, peer, comm, tag, bytes),
                Event::MpiRecv {
                    peer,
                    comm,
                    tag,
                    bytes,
                }
                | Event::MpiIrecv {
                    peer,
                    comm,
                    tag,
                    bytes,
                    ..
                } => (false, peer, comm, tag, bytes),
                _ => continue,
            };
            let c = trace.comms.get(comm as usize);
            let Some(peer) = c.and_then(|c| c.world_rank(peer)) else {
                let elsewhere = c
                    .and_then(|c| c.inter.as_ref())
                    .and_then(|g| g.remote_of(loc.rank))
                    .is_some_and(|remote| remote.iter().any(|r| *r >= trace.size));
                if elsewhere {
                    check.outside_world += 1;
                } else if send {
                    check.unmatched_sends += 1;
                } else {
                    check.unmatched_recvs += 1;
                }
                continue;
            };
            let side = Side {
                at: (li, ei),
                ns: e.ns,
                bytes,
                uncertainty_ns: loc.clock_uncertainty_ns,
            };
            if send {
                sends
                    .entry((loc.rank, peer, comm, tag))
                    .or_default()
                    .push(side);
            } else {
                recvs
                    .entry((peer, loc.rank, comm, tag))
                    .or_default()
                    .push(side);
            }
        }
    }
    for (key, mut s) in sends {
        // Threads of one process send in time order.
        s.sort_by_key(|x| x.ns);
        let mut r: VecDeque<Side> = match recvs.remove(&key) {
            Some(mut r) => {
                r.sort_by_key(|x| x.ns);
                r.into()
            }
            None => VecDeque::new(),
        };
        for send in s {
            let Some(recv) = r.pop_front() else {
                check.unmatched_sends += 1;
                continue;
            };
            let (from, to, comm, tag) = key;
            if recv.ns < send.ns {
                check.violations.push(Violation {
                    message: check.messages.len(),
                    early_ns: send.ns - recv.ns,
                    uncertainty_ns: send.uncertainty_ns + recv.uncertainty_ns,
                });
            }
            check.messages.push(Message {
                send: send.at,
                recv: recv.at,
                from,
                to,
                comm,
                tag,
                bytes: send.bytes,
                send_ns: send.ns,
                recv_ns: recv.ns,
            });
        }
        check.unmatched_recvs += r.len();
    }
    check.unmatched_recvs += recvs.values().map(Vec::len).sum::<usize>();
    check
}
