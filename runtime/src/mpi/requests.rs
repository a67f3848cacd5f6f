//! Messages of non-blocking calls, from the call that posts them
//! (`MPI_Isend`, `MPI_Irecv`, `MPI_Send_init`, ...) to the `Wait`/`Test`
//! call that completes them: a fixed per-thread map from request handle to
//! the message, allocated once per thread on first use.
//!
//! A full map cannot hold a new request: its message is then recorded at
//! the posting call right away (with the posted count and, for a wildcard
//! receive, the wildcard), so nothing is lost but the completion time. A
//! request completed on another thread than the one that posted it is not
//! found there and its message is not recorded (counted in `unmatched`).
//! A handle posted while the map still follows a non-persistent message
//! under it is one the library gives to requests it completed at once
//! (and shares among them): both messages are recorded at their posting
//! calls, as every later one under that handle. A request completed
//! outside the probes' view (another thread, an uncaptured call) leaves
//! its entry until its handle comes back, which is then taken for such
//! a shared handle: the messages are counted all the same, at their
//! posting calls.
//! Persistent requests stay in the map after completion (each `Start` and
//! completion is one more message; a captured `Start` marks the request
//! started, its completion clears the mark) until `MPI_Request_free` forgets them
//! or they are completed through `Waitany`/`Testany`/`Waitsome`/`Testsome`
//! (whose completion is only seen for non-persistent requests, by their
//! handle becoming `MPI_REQUEST_NULL`).

use std::cell::Cell;
use std::ptr;

/// Requests in flight per thread.
pub const CAPACITY: usize = 256;
/// Requests one `Wait*`/`Test*` call can follow (the rest of a longer
/// array is not matched).
pub const BATCH: usize = 256;

/// A posted message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Posted {
    pub request: u64,
    pub send: bool,
    pub persistent: bool,
    /// World rank, or the wildcard.
    pub peer: i32,
    /// The same as a rank in `comm` (for the trace).
    pub comm_peer: i32,
    pub tag: i32,
    pub comm: u64,
    /// Posted size in bytes (a receive's buffer may be larger than what
    /// arrives: the status says what did).
    pub bytes: u64,
    /// A persistent request's current message was started by a captured
    /// `MPI_Start(all)` (its post is in the trace already).
    pub started: bool,
}

/// What [`Map::post`] did with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostOutcome {
    /// Followed until a Wait/Test completes its request.
    Followed,
    /// No room: record the message at its posting call.
    Full,
    /// The handle is one the library shares among completed requests:
    /// record this message at its posting call, and the message that
    /// held the handle before (already complete, too), if any.
    Shared(Option<Posted>),
}

/// Shared completed-request handles remembered per thread.
const SHARED: usize = 4;

pub struct Map {
    slots: [Option<Posted>; CAPACITY],
    /// Handles found shared (see [`PostOutcome::Shared`]).
    shared: [u64; SHARED],
    next_shared: usize,
    /// Handles copied before a `Wait*`/`Test*` call, and how many.
    before: [u64; BATCH],
    before_len: usize,
    pub unmatched: u64,
}

thread_local! {
    static MINE: Cell<*mut Map> = const { Cell::new(ptr::null_mut()) };
}

/// The calling thread's map (allocated on its first non-blocking call).
///
/// # Safety
/// The reference must not outlive the probe that took it, and probes of
/// one thread do not nest (a signal handler making MPI calls in the middle
/// of a probe is not supported).
pub unsafe fn mine() -> &'static mut Map {
    let m = MINE.with(Cell::get);
    if !m.is_null() {
        return &mut *m;
    }
    let fresh = Box::leak(Box::new(Map::new()));
    MINE.with(|c| c.set(fresh));
    fresh
}

impl Map {
    pub fn new() -> Map {
        Map {
            slots: [None; CAPACITY],
            shared: [0; SHARED],
            next_shared: 0,
            before: [0; BATCH],
            before_len: 0,
            unmatched: 0,
        }
    }

    /// Remembers a posted message, unless its handle cannot name it.
    pub fn post(&mut self, p: Posted) -> PostOutcome {
        if self.shared.contains(&p.request) {
            return PostOutcome::Shared(None);
        }
        let mut free = None;
        for (i, s) in self.slots.iter_mut().enumerate() {
            match s {
                // A handle given to two messages in flight is one the
                // library shares among requests it completed at once
                // (Open MPI's `ompi_request_empty`, MPICH's built-in
                // complete requests): neither can be followed by it.
                Some(old) if old.request == p.request && !old.persistent => {
                    let old = s.take();
                    self.shared[self.next_shared] = p.request;
                    self.next_shared = (self.next_shared + 1) % SHARED;
                    return PostOutcome::Shared(old);
                }
                // A persistent request made again on a freed handle.
                Some(old) if old.request == p.request => {
                    *s = Some(p);
                    return PostOutcome::Followed;
                }
                None if free.is_none() => free = Some(i),
                _ => {}
            }
        }
        match free {
            Some(i) => {
                self.slots[i] = Some(p);
                PostOutcome::Followed
            }
            None => PostOutcome::Full,
        }
    }

    /// The message of `request`; a non-persistent one is forgotten, a
    /// persistent one waits for its next start.
    pub fn complete(&mut self, request: u64) -> Option<Posted> {
        let s = self
            .slots
            .iter_mut()
            .find(|s| s.is_some_and(|p| p.request == request))?;
        let p = (*s)?;
        *s = p.persistent.then_some(Posted {
            started: false,
            ..p
        });
        Some(p)
    }

    /// `MPI_Start` of persistent `request`: marked started; its message.
    pub fn start(&mut self, request: u64) -> Option<Posted> {
        let p = self
            .slots
            .iter_mut()
            .flatten()
            .find(|p| p.request == request && p.persistent)?;
        p.started = true;
        Some(*p)
    }

    /// Forgets `request` (`MPI_Request_free`).
    pub fn forget(&mut self, request: u64) {
        for s in self.slots.iter_mut() {
            if s.is_some_and(|p| p.request == request) {
                *s = None;
            }
        }
    }

    /// Handles as they were before a completion call.
    pub fn set_before(&mut self, handles: impl Iterator<Item = u64>) {
        self.before_len = 0;
        for h in handles.take(BATCH) {
            self.before[self.before_len] = h;
            self.before_len += 1;
        }
    }

    pub fn before(&self) -> &[u64] {
        &self.before[..self.before_len]
    }
}

impl Default for Map {
    fn default() -> Self {
        Map::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posted(request: u64, persistent: bool) -> Posted {
        Posted {
            request,
            send: true,
            persistent,
            peer: 1,
            comm_peer: 1,
            tag: 0,
            comm: 0,
            bytes: 8,
            started: false,
        }
    }

    #[test]
    fn completion_finds_and_forgets_a_request() {
        let mut m = Map::new();
        assert_eq!(m.post(posted(7, false)), PostOutcome::Followed);
        assert_eq!(m.complete(7).map(|p| p.bytes), Some(8));
        assert_eq!(m.complete(7), None);
    }

    #[test]
    fn persistent_requests_stay_until_freed() {
        let mut m = Map::new();
        assert_eq!(m.post(posted(9, true)), PostOutcome::Followed);
        assert!(m.complete(9).is_some());
        assert!(m.complete(9).is_some());
        m.forget(9);
        assert_eq!(m.complete(9), None);
    }

    #[test]
    fn a_start_marks_a_persistent_request_until_its_completion() {
        let mut m = Map::new();
        assert_eq!(m.post(posted(9, true)), PostOutcome::Followed);
        assert_eq!(m.post(posted(4, false)), PostOutcome::Followed);
        // Only persistent requests are started.
        assert_eq!(m.start(4), None);
        assert_eq!(m.start(9).map(|p| p.started), Some(true));
        assert_eq!(m.complete(9).map(|p| p.started), Some(true));
        // Completed: not started again until the next Start.
        assert_eq!(m.complete(9).map(|p| p.started), Some(false));
        assert_eq!(m.start(9).map(|p| p.started), Some(true));
    }

    #[test]
    fn a_full_map_refuses_a_new_request() {
        let mut m = Map::new();
        for r in 0..CAPACITY as u64 {
            assert_eq!(m.post(posted(r + 1, false)), PostOutcome::Followed);
        }
        assert_eq!(m.post(posted(10_000, false)), PostOutcome::Full);
    }

    #[test]
    fn a_handle_given_to_two_messages_in_flight_is_shared() {
        let mut m = Map::new();
        assert_eq!(m.post(posted(5, false)), PostOutcome::Followed);
        let first = posted(5, false);
        assert_eq!(m.post(posted(5, false)), PostOutcome::Shared(Some(first)));
        // Neither is followed, and later posts under it are not either.
        assert_eq!(m.complete(5), None);
        assert_eq!(m.post(posted(5, false)), PostOutcome::Shared(None));
        // Other handles are.
        assert_eq!(m.post(posted(6, false)), PostOutcome::Followed);
        assert!(m.complete(6).is_some());
    }
}
