//! Trace ids of communicators (`REGIO_MODE=trace`). The trace format
//! names a communicator by a small number the process chooses, defined
//! once per process by a `comm` record listing its members as world ranks
//! (`MPI_COMM_WORLD` is 0 and needs none). This is the process-wide table
//! of handles to ids: a fixed array searched without a lock; the first
//! thread to meet a handle claims the next free slot (compare-and-swap)
//! and writes the definition into its own trace.
//!
//! Handles are process-local and MPI may hand a freed communicator's
//! handle to a new one: such a communicator keeps the old id (and its
//! members), as `world.rs` keeps its translation table.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::*};

/// Communicators with trace ids per process (besides `MPI_COMM_WORLD`).
pub const SLOTS: usize = 64;

static HANDLES: [AtomicU64; SLOTS] = [const { AtomicU64::new(0) }; SLOTS];
/// Messages on communicators that found the table full (not traced).
pub static OVERFLOW: AtomicUsize = AtomicUsize::new(0);

/// What the caller does with a communicator's trace id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    /// Known (or `MPI_COMM_WORLD`, 0).
    Known(u32),
    /// New to the process: the caller writes its definition first.
    Define(u32),
}

impl Id {
    pub fn id(self) -> u32 {
        match self {
            Id::Known(i) | Id::Define(i) => i,
        }
    }
}

/// The trace id of `comm` (`world` is `MPI_COMM_WORLD`'s handle); None
/// when the table is full or the handle is 0.
pub fn trace_id(comm: u64, world: u64) -> Option<Id> {
    if comm == world {
        return Some(Id::Known(0));
    }
    if comm == 0 {
        return None;
    }
    for (i, slot) in HANDLES.iter().enumerate() {
        let id = i as u32 + 1;
        match slot.load(Acquire) {
            h if h == comm => return Some(Id::Known(id)),
            0 => match slot.compare_exchange(0, comm, AcqRel, Acquire) {
                Ok(_) => return Some(Id::Define(id)),
                // Another thread claimed this slot first, maybe for `comm`.
                Err(h) if h == comm => return Some(Id::Known(id)),
                Err(_) => continue,
            },
            _ => {}
        }
    }
    OVERFLOW.fetch_add(1, Relaxed);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_is_defined_once_and_world_never() {
        assert_eq!(trace_id(0x77, 0x77), Some(Id::Known(0)));
        let a = trace_id(0x1001, 0x77).expect("room");
        assert!(matches!(a, Id::Define(_)));
        assert_eq!(trace_id(0x1001, 0x77), Some(Id::Known(a.id())));
        let b = trace_id(0x1002, 0x77).expect("room");
        assert_ne!(a.id(), b.id());
        assert_eq!(trace_id(0, 0x77), None);
    }
}
