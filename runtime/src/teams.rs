//! Host `teams` constructs: each team's share of the construct, under the
//! team's number.
//!
//! libgomp runs host teams one after another on the encountering thread,
//! so they cannot be told apart as threads. Instead the body of a teams
//! construct (`omp_teams_body`, entered once per team) gets a child region
//! per team number, `team <k>` of kind `omp_team`, made at run time as a
//! self-describing region (like Rust's) the first time team k runs. The
//! report then shows each team's time side by side, as it shows threads
//! of a parallel region. The team number comes from `omp_get_team_num`,
//! which the OpenMP standard allows strictly inside `teams` and which we
//! look up in the process (the runtime does not link an OpenMP library).

use std::sync::atomic::{AtomicPtr, Ordering::*};

use crate::api;
use crate::dynsym::Lazy;
use crate::region::{Kind, Region};

/// Team numbers with a region of their own; higher ones share the last.
const MAX_TEAMS: usize = 256;

static TEAM_REGIONS: [AtomicPtr<Region>; MAX_TEAMS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_TEAMS];

/// The calling thread's team number inside a teams region (0 without an
/// OpenMP library, as outside teams).
fn team_num() -> usize {
    static GET: Lazy = Lazy::new(c"omp_get_team_num");
    let Some(f) = GET.get() else {
        return 0;
    };
    // SAFETY: `omp_get_team_num` is `int (void)` in every OpenMP library.
    let get: extern "C" fn() -> i32 =
        unsafe { std::mem::transmute::<usize, extern "C" fn() -> i32>(f) };
    usize::try_from(get()).unwrap_or(0)
}

/// The region of team `k`, made on first use (a cold path: one small
/// allocation per team number per process).
fn team_region(k: usize) -> &'static Region {
    let k = k.min(MAX_TEAMS - 1);
    let slot = &TEAM_REGIONS[k];
    let p = slot.load(Acquire);
    if !p.is_null() {
        // SAFETY: only leaked `Region`s are stored.
        return unsafe { &*p };
    }
    let name: &'static str = Box::leak(format!("team {k}").into_boxed_str());
    let fresh: &'static mut Region =
        Box::leak(Box::new(Region::new(name, Kind::OmpTeam, "", 0, 0, "")));
    match slot.compare_exchange(std::ptr::null_mut(), fresh, AcqRel, Acquire) {
        Ok(_) => fresh,
        // Two teams raced for the number (teams running concurrently):
        // the loser's descriptor is never registered, so never listed.
        // SAFETY: only leaked `Region`s are stored.
        Err(winner) => unsafe { &*winner },
    }
}

/// First thing in a teams construct's body, on the team's initial thread:
/// enters the body region and, inside it, this team's region.
pub fn begin(body: u32) {
    api::enter(body);
    api::enter(crate::select::descriptor_id(team_region(team_num())));
}

/// Last thing in the body: leaves the team's region and the body.
pub fn end(body: u32) {
    api::exit(team_region(team_num()).id());
    api::exit(body);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_team_number_has_one_region_named_after_it() {
        let a = team_region(3);
        assert_eq!(a.name, "team 3");
        assert_eq!(a.kind.as_str(), "omp_team");
        assert!(std::ptr::eq(a, team_region(3)));
        assert!(!std::ptr::eq(a, team_region(4)));
        assert!(std::ptr::eq(
            team_region(MAX_TEAMS + 7),
            team_region(MAX_TEAMS - 1)
        ));
    }

    #[test]
    fn outside_an_openmp_program_the_team_is_0() {
        assert_eq!(team_num(), 0);
    }
}
