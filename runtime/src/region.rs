//! Regions that describe themselves: the static descriptors that
//! `#[regio::traced]`, `regio::region!` and `regio::guard!` create at
//! compile time, one per source location.
//!
//! C and Fortran regions get their ids from the IDF the instrumenter wrote.
//! Rust regions have no IDF: each descriptor takes an id from a separate
//! range (bit 31 set, so the two can never collide in one process) the first
//! time it is entered, and links itself into a lock-free list that the
//! profile writer walks, allocation-free, to write the `regions` table.
//!
//! Ids are therefore per process (registration order differs between ranks
//! or runs); the analysis matches descriptors across processes by their
//! contents, never by id. Every descriptor is its own static, so the same
//! function name in two crates, or two regions on one line, stay apart.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering::*};

/// First id handed to a descriptor; IDF ids stay below it (the value is
/// `regio_idf::rundir::FIRST_DESCRIPTOR_ID`, which the analysis reads).
pub const FIRST_DESCRIPTOR_ID: u32 = 1 << 31;

static NEXT_ID: AtomicU32 = AtomicU32::new(FIRST_DESCRIPTOR_ID);
static HEAD: AtomicPtr<Region> = AtomicPtr::new(ptr::null_mut());

/// What a descriptor region stands for (the IDF `kind` strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Program,
    Function,
    Loop,
    User,
    /// One team of a host `teams` construct (made at run time, `teams`).
    OmpTeam,
}

impl Kind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Program => "program",
            Kind::Function => "function",
            Kind::Loop => "loop",
            Kind::User => "user",
            Kind::OmpTeam => "omp_team",
        }
    }
}

/// A region's static descriptor. Made by the macros; `const` so it lives in
/// a `static` and costs nothing until first entered.
#[derive(Debug)]
pub struct Region {
    /// 0 until registered.
    id: AtomicU32,
    next: AtomicPtr<Region>,
    pub name: &'static str,
    pub kind: Kind,
    pub file: &'static str,
    pub line: u32,
    pub column: u32,
    pub module: &'static str,
}

impl Region {
    pub const fn new(
        name: &'static str,
        kind: Kind,
        file: &'static str,
        line: u32,
        column: u32,
        module: &'static str,
    ) -> Region {
        Region {
            id: AtomicU32::new(0),
            next: AtomicPtr::new(ptr::null_mut()),
            name,
            kind,
            file,
            line,
            column,
            module,
        }
    }

    /// This region's id in this process, registering it on first use.
    #[inline(always)]
    pub fn id(&'static self) -> u32 {
        self.id_and_fresh().0
    }

    /// [`Self::id`], and whether this call registered the region (the
    /// probes then give it its class: `select::descriptor_id`).
    #[inline(always)]
    pub fn id_and_fresh(&'static self) -> (u32, bool) {
        let id = self.id.load(Relaxed);
        if id != 0 {
            return (id, false);
        }
        self.register()
    }

    #[cold]
    #[inline(never)]
    fn register(&'static self) -> (u32, bool) {
        let fresh = NEXT_ID.fetch_add(1, Relaxed);
        match self.id.compare_exchange(0, fresh, AcqRel, Acquire) {
            Ok(_) => {
                // Only the thread that set the id links the descriptor, so it
                // is listed exactly once.
                let me = self as *const Region as *mut Region;
                let mut head = HEAD.load(Relaxed);
                loop {
                    self.next.store(head, Relaxed);
                    match HEAD.compare_exchange_weak(head, me, Release, Relaxed) {
                        Ok(_) => break,
                        Err(h) => head = h,
                    }
                }
                (fresh, true)
            }
            // Another thread registered it first; `fresh` stays unused.
            Err(winner) => (winner, false),
        }
    }

    /// The id if this region was ever entered.
    pub fn registered_id(&self) -> Option<u32> {
        match self.id.load(Acquire) {
            0 => None,
            id => Some(id),
        }
    }
}

/// Every registered descriptor, newest first. Allocation-free, so the
/// profile writer may call it from a signal handler.
pub fn registered() -> impl Iterator<Item = &'static Region> {
    let mut p = HEAD.load(Acquire);
    std::iter::from_fn(move || {
        if p.is_null() {
            return None;
        }
        // SAFETY: only `&'static Region`s are ever linked.
        let r: &'static Region = unsafe { &*p };
        p = r.next.load(Acquire);
        Some(r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    static A: Region = Region::new("a", Kind::Function, "x.rs", 1, 1, "m");
    static B: Region = Region::new("a", Kind::Function, "x.rs", 1, 1, "m");

    #[test]
    fn each_static_gets_one_stable_id_in_the_descriptor_range() {
        let a = A.id();
        assert!(a >= FIRST_DESCRIPTOR_ID);
        assert_eq!(A.id(), a);
        // Same contents, different static: a different region.
        assert_ne!(B.id(), a);
        let listed: Vec<u32> = registered().filter_map(|r| r.registered_id()).collect();
        assert_eq!(listed.iter().filter(|&&i| i == a).count(), 1);
        assert!(listed.contains(&B.id()));
    }

    #[test]
    fn racing_threads_agree_on_one_id_and_one_listing() {
        static C: Region = Region::new("c", Kind::Loop, "y.rs", 2, 3, "m");
        let ids: Vec<u32> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8).map(|_| s.spawn(|| C.id())).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(ids.iter().all(|&i| i == ids[0]));
        let listed = registered().filter(|r| ptr::eq(*r, &C)).count();
        assert_eq!(listed, 1);
    }
}
