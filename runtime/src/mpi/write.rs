//! The MPI parts of a profile, written by hand like the rest of it (no
//! allocation: the writer may run in a signal handler).
//!
//! Per thread, `messages`: one object per (DRG node, peer, direction)
//! with `node` (the node's `id` in the thread's `nodes`), `peer` (world
//! rank; -2 a receive from `MPI_ANY_SOURCE` whose status was not seen, -1
//! a collective without root), `direction` (`send`, `recv`, `collective`),
//! `messages`, `bytes` (sent; received for `recv`), for `collective`
//! records `received_bytes` (what this process received), `time_ns`; and
//! `messages_dropped` (records a full table could not hold). Per process, `clock_sync`: `init` and
//! `finalize`, each null or `local_ns`, `offset_ns`, `round_trip_ns`.

use std::sync::atomic::Ordering::*;

use crate::clock::Calibration;
use crate::mpi::stats;
use crate::mpi::sync::{Measurement, AT_FINALIZE, AT_INIT};
use crate::out::{Out, W32, W64};
use crate::thread::ThreadState;

/// `,"messages_dropped":N,"messages":[...]` for thread `t`.
pub fn thread_messages(o: &mut Out, t: &ThreadState, cal: Calibration) {
    let table = stats::of_thread(t);
    o.raw(b",\"messages_dropped\":");
    o.uint(table.map_or(0, |t| t.dropped.load(Relaxed)), W64);
    o.raw(b",\"messages\":[");
    let mut first = true;
    for (node, peer, dir, e) in table.into_iter().flat_map(|t| t.records()) {
        // Arena index 0 is the hidden root; written node ids are index - 1.
        if node == 0 {
            continue;
        }
        o.raw(if first {
            b"\n{\"node\":"
        } else {
            b",\n{\"node\":"
        });
        first = false;
        o.uint(node as u64 - 1, W32);
        o.raw(b",\"peer\":");
        o.int(peer as i64, W32);
        o.raw(b",\"direction\":");
        let name = dir.name();
        o.string(name);
        o.pad(b"collective".len() - name.len());
        o.raw(b",\"messages\":");
        o.uint(e.messages.load(Relaxed), W64);
        o.raw(b",\"bytes\":");
        o.uint(e.bytes.load(Relaxed), W64);
        if dir == stats::Direction::Collective {
            o.raw(b",\"received_bytes\":");
            o.uint(e.received.load(Relaxed), W64);
        }
        o.raw(b",\"time_ns\":");
        o.uint(cal.to_ns(e.time.load(Relaxed)), W64);
        o.raw(b"}");
    }
    o.raw(b"]");
}

/// `,"clock_sync":{"init":...,"finalize":...}`.
pub fn clock_sync(o: &mut Out) {
    o.raw(b",\"clock_sync\":{\"init\":");
    measurement(o, &AT_INIT);
    o.raw(b",\"finalize\":");
    measurement(o, &AT_FINALIZE);
    o.raw(b"}");
}

fn measurement(o: &mut Out, m: &Measurement) {
    if !m.done.load(Acquire) {
        // As wide as a measurement, so a later rewrite is never shorter.
        o.raw(b"null");
        o.pad(b"{\"local_ns\":,\"offset_ns\":,\"round_trip_ns\":}".len() + 3 * W64 - 4);
        return;
    }
    o.raw(b"{\"local_ns\":");
    o.uint(m.local_ns.load(Relaxed), W64);
    o.raw(b",\"offset_ns\":");
    o.int(m.offset_ns.load(Relaxed), W64);
    o.raw(b",\"round_trip_ns\":");
    o.uint(m.round_trip_ns.load(Relaxed), W64);
    o.raw(b"}");
}
