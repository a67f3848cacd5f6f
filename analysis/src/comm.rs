//! MPI communication of a run, from the profiles' communication records
//! (Li & Zhang): per DRG node of an MPI call and per peer, messages, bytes
//! and time; and the per-rank communication matrix (sender x receiver)
//! built from the point-to-point sends.

use std::collections::BTreeMap;

use regio_idf::rundir::{ClockSync, Profile};
use serde::{Deserialize, Serialize};

use crate::RunDir;

/// One node's messages with one peer on one rank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeMessages {
    pub rank: u32,
    /// World rank of the peer (a collective's root); -1 a collective
    /// without root, -2 a wildcard receive never resolved.
    pub peer: i32,
    /// `send`, `recv` or `collective`.
    pub direction: String,
    pub messages: u64,
    /// Bytes sent (`send`, `collective`) or received (`recv`).
    pub bytes: u64,
    /// A collective's bytes received by this rank (None: point-to-point,
    /// or a profile written before collectives were split).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_bytes: Option<u64>,
    pub time_ns: u64,
}

/// One cell of the communication matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixCell {
    pub sender: u32,
    pub receiver: u32,
    pub messages: u64,
    pub bytes: u64,
}

/// One rank's collectives, over all its nodes and threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankCollectives {
    pub rank: u32,
    pub operations: u64,
    pub bytes_sent: u64,
    /// None when a profile did not split them (written before).
    pub bytes_received: Option<u64>,
}

/// One rank's clock against rank 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RankClock {
    pub rank: u32,
    #[serde(flatten)]
    pub sync: ClockSync,
    /// Drift in ppm, from the two measurements.
    pub drift_ppm: Option<f64>,
}

/// The communication of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Communication {
    /// By the region-id path of the node (root first).
    pub per_node: BTreeMap<Vec<u32>, Vec<NodeMessages>>,
    /// Point-to-point sends, by (sender, receiver).
    pub matrix: Vec<MatrixCell>,
    /// Collectives per rank (ranks with none left out), by rank.
    pub collectives: Vec<RankCollectives>,
    /// Records the runtime's tables could not hold, over all threads.
    pub dropped: u64,
    pub clocks: Vec<RankClock>,
}

impl Communication {
    pub fn is_empty(&self) -> bool {
        self.per_node.is_empty() && self.clocks.is_empty()
    }
}

/// The region-id path of every node of a thread (parents precede their
/// children; a parent that does not is treated as a root, as `merge` does).
pub(crate) fn paths(nodes: &[regio_idf::rundir::NodeRecord]) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let mut p = match n.parent {
            Some(q) if (q as usize) < i => out[q as usize].clone(),
            _ => Vec::new(),
        };
        p.push(n.region);
        out.push(p);
    }
    out
}

fn add_profile(p: &Profile, c: &mut Communication, matrix: &mut BTreeMap<(u32, u32), (u64, u64)>) {
    for t in &p.threads {
        c.dropped += t.messages_dropped;
        if t.messages.is_empty() {
            continue;
        }
        let paths = paths(&t.nodes);
        for m in &t.messages {
            let Some(path) = paths.get(m.node as usize) else {
                continue;
            };
            let list = c.per_node.entry(path.clone()).or_default();
            match list
                .iter_mut()
                .find(|e| e.rank == p.rank && e.peer == m.peer && e.direction == m.direction)
            {
                Some(e) => {
                    e.messages += m.messages;
                    e.bytes += m.bytes;
                    e.received_bytes = match (e.received_bytes, m.received_bytes) {
                        (Some(a), Some(b)) => Some(a + b),
                        (a, b) => a.or(b),
                    };
                    e.time_ns += m.time_ns;
                }
                None => list.push(NodeMessages {
                    rank: p.rank,
                    peer: m.peer,
                    direction: m.direction.clone(),
                    messages: m.messages,
                    bytes: m.bytes,
                    received_bytes: m.received_bytes,
                    time_ns: m.time_ns,
                }),
            }
            if m.direction == "send" && m.peer >= 0 {
                let cell = matrix.entry((p.rank, m.peer as u32)).or_default();
                cell.0 += m.messages;
                cell.1 += m.bytes;
            }
        }
    }
}

/// The communication of `run`.
pub fn communication(run: &RunDir) -> Communication {
    let mut c = Communication::default();
    let mut matrix = BTreeMap::new();
    for p in &run.profiles {
        add_profile(p, &mut c, &mut matrix);
        if let Some(sync) = p
            .clock_sync
            .filter(|s| s.init.is_some() || s.finalize.is_some())
        {
            c.clocks.push(RankClock {
                rank: p.rank,
                sync,
                drift_ppm: sync.drift_ppm(),
            });
        }
    }
    let mut per_rank: BTreeMap<u32, RankCollectives> = BTreeMap::new();
    for m in c.per_node.values().flatten() {
        if m.direction != "collective" {
            continue;
        }
        let r = per_rank.entry(m.rank).or_insert(RankCollectives {
            rank: m.rank,
            operations: 0,
            bytes_sent: 0,
            bytes_received: Some(0),
        });
        r.operations += m.messages;
        r.bytes_sent += m.bytes;
        r.bytes_received = r.bytes_received.zip(m.received_bytes).map(|(a, b)| a + b);
    }
    c.collectives = per_rank.into_values().collect();
    for list in c.per_node.values_mut() {
        list.sort_by(|a, b| (a.rank, &a.direction, a.peer).cmp(&(b.rank, &b.direction, b.peer)));
    }
    c.clocks.sort_by_key(|r| r.rank);
    c.matrix = matrix
        .into_iter()
        .map(|((sender, receiver), (messages, bytes))| MatrixCell {
            sender,
            receiver,
            messages,
            bytes,
        })
        .collect();
    c
}
