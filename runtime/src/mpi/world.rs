//! Communicator-local ranks to `MPI_COMM_WORLD` ranks, with a small
//! per-thread cache of translation tables (one per communicator seen,
//! filled once by `PMPI_Comm_group` + `PMPI_Group_translate_ranks`; for
//! an intercommunicator the remote group's, whose ranks its calls name).
//!
//! The cache is keyed by handle: a communicator freed and another created
//! with the same handle would be translated with the old table, unless
//! its creation was captured (`forget`, on the creating thread).

use std::cell::RefCell;

use crate::mpi::pmpi;

const SLOTS: usize = 16;

struct Entry {
    comm: u64,
    world: Vec<i32>,
}

thread_local! {
    static CACHE: RefCell<(Vec<Entry>, usize)> = const { RefCell::new((Vec::new(), 0)) };
}

/// The world rank of `rank` in `comm`; `rank` itself when it cannot be
/// translated (no MPI, a rank outside the communicator).
pub fn world_rank(comm: u64, rank: i32) -> i32 {
    let Some(c) = pmpi::consts() else { return rank };
    if comm == c.comm_world || rank < 0 {
        return rank;
    }
    let found = CACHE.with(|cell| {
        let Ok(cache) = cell.try_borrow() else {
            return None;
        };
        cache
            .0
            .iter()
            .find(|e| e.comm == comm)
            .map(|e| e.world.get(rank as usize).copied().unwrap_or(rank))
    });
    if let Some(w) = found {
        return w;
    }
    // An intercommunicator's ranks name its remote group.
    let inter = pmpi::is_inter(comm);
    let size = if inter {
        pmpi::remote_size(comm)
    } else {
        pmpi::comm_size_rank(comm).map(|(s, _)| s)
    };
    let Some(size) = size else {
        return rank;
    };
    let mut world: Vec<i32> = (0..size.max(0)).collect();
    let translated = if inter {
        pmpi::remote_to_world(comm, &mut world)
    } else {
        pmpi::to_world(comm, &mut world)
    };
    if !translated {
        return rank;
    }
    let w = world.get(rank as usize).copied().unwrap_or(rank);
    CACHE.with(|cell| {
        if let Ok(mut cache) = cell.try_borrow_mut() {
            let (entries, next) = &mut *cache;
            if entries.len() < SLOTS {
                entries.push(Entry { comm, world });
            } else {
                entries[*next] = Entry { comm, world };
                *next = (*next + 1) % SLOTS;
            }
        }
    });
    w
}

/// Drops this thread's table of `comm`: a new communicator got its handle.
pub fn forget(comm: u64) {
    CACHE.with(|cell| {
        if let Ok(mut cache) = cell.try_borrow_mut() {
            if let Some(e) = cache.0.iter_mut().find(|e| e.comm == comm) {
                // An impossible handle: never found, replaced in turn.
                e.comm = 0;
                e.world.clear();
            }
        }
    });
}
