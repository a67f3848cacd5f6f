//! A Rust program in trace mode end to end (`testdata/rust/traced`'s
//! `trace-demo`, REGIO_MODE=trace): `#[regio::traced]` functions on three
//! spawned threads and the main thread, `regio::event!` values and a
//! `regio::set_events` switch to `none` and back. The trace files hold
//! one file per thread, nest strictly, have as many enter records per
//! region as the profile has calls (and the calls known by construction),
//! each thread's user event values in order and the two `mask` records;
//! the regions and the events made under `none` are in neither. Both
//! exports name the descriptor regions (ids from bit 31, per process) and
//! balance their begins and ends: Perfetto always, OTF2 with `otf2-print`
//! (SKIPPED otherwise, unless REGIO_REQUIRE_TOOLCHAINS=1).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::common::traces::{self, profile_calls};
use crate::common::{profiles, run, TestDir};
use crate::rust_traced::build_bin;

// Constants of testdata/rust/traced/src/trace_main.rs.
const THREADS: u64 = 3;
const STEPS: u64 = 5;
const LEAVES: u64 = 4;

/// Calls per region name the trace and the profile must both have.
fn expected() -> BTreeMap<String, u64> {
    [
        ("worker", THREADS),
        ("step", THREADS * STEPS),
        // The one after the mask is `all` again; none of `hidden`'s.
        ("leaf", THREADS * STEPS * LEAVES + 1),
    ]
    .into_iter()
    .map(|(n, c)| (n.to_string(), c))
    .collect()
}

/// Descriptor names by id, from the profile's `regions` table (ids are
/// this process's).
fn descriptor_names(run_dir: &Path) -> BTreeMap<u32, String> {
    let p = profiles::only(run_dir).unwrap_or_else(|| panic!("no profile in {run_dir:?}"));
    p.regions.into_iter().map(|r| (r.id, r.name)).collect()
}

fn by_name(ids: BTreeMap<u32, u64>, names: &BTreeMap<u32, String>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (id, n) in ids {
        let name = names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("unnamed {id}"));
        *out.entry(name).or_default() += n;
    }
    out
}

#[test]
fn rust_program_trace_matches_its_profile_and_exports_named_regions() {
    let exe = build_bin("trace-demo", &[], "traced");
    let tmp = TestDir::new("rust-trace");
    let run_dir = tmp.join("run");
    let r = run(Command::new(&exe)
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_SNAPSHOT")
        .env("REGIO_MODE", "trace")
        .env("REGIO_DIR", &run_dir));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    // work, what `hidden` returned, leaf(1): the program ran as designed.
    assert_eq!(r.stdout.trim(), "630 70 3");

    let files = traces::decode_all(&run_dir);
    assert_eq!(
        files.len() as u64,
        THREADS + 1,
        "the workers and the main thread: {:?}",
        files.keys()
    );
    assert_eq!(traces::nesting_problems(&files), Vec::<String>::new());
    let enters = traces::enters(&files);
    assert_eq!(enters, profile_calls(&run_dir), "enter records vs calls");
    assert!(
        enters.keys().all(|&id| id >= regio::FIRST_DESCRIPTOR_ID),
        "descriptor ids: {enters:?}"
    );
    let names = descriptor_names(&run_dir);
    assert_eq!(by_name(enters, &names), expected());

    // Each worker's "step" values in order; nothing of the masked phase.
    // The workers intern "step" at the same time: one id for all.
    let mut threads_seen = BTreeSet::new();
    for (name, f) in &files {
        let ids: Vec<u32> = f
            .strings()
            .into_iter()
            .filter(|(_, s)| *s == "step")
            .map(|(id, _)| id)
            .collect();
        assert!(ids.len() <= 1, "{name}: \"step\" has ids {ids:?}");
        let steps = traces::user_values(f, "step");
        if let Some(first) = steps.first() {
            let t = (*first as u64) / 100;
            let want: Vec<f64> = (0..STEPS).map(|s| (100 * t + s) as f64).collect();
            assert_eq!(steps, want, "{name}: step values");
            threads_seen.insert(t);
        }
        assert_eq!(traces::user_values(f, "hidden"), Vec::<f64>::new());
    }
    assert_eq!(threads_seen, (0..THREADS).collect(), "one worker per file");
    assert_eq!(traces::user_records(&files) as u64, THREADS * STEPS);
    let masks = traces::masks(&files);
    assert_eq!(masks.len(), 2, "set_events twice: {masks:?}");
    assert_eq!(masks[0], 0, "`none`");
    assert_ne!(masks[1], 0, "`all`");
    let p = profiles::only(&run_dir).unwrap_or_else(|| panic!("no profile"));
    for t in &p.threads {
        let rows: Vec<_> = t.user_events.iter().map(|e| (e.node, &e.name)).collect();
        let distinct: BTreeSet<_> = rows.iter().collect();
        assert_eq!(distinct.len(), rows.len(), "one row per node and name");
    }
    let events: BTreeMap<String, u64> = p
        .threads
        .iter()
        .flat_map(|t| &t.user_events)
        .map(|e| (e.name.clone(), e.count))
        .fold(BTreeMap::new(), |mut m, (n, c)| {
            *m.entry(n).or_default() += c;
            m
        });
    assert_eq!(
        events,
        BTreeMap::from([("step".to_string(), THREADS * STEPS)]),
        "profile's user events"
    );

    // Perfetto: every begin named after its descriptor, and closed by an
    // end on its own track.
    let json = traces::export_perfetto(&run_dir, &tmp.join("t.json"), &[]);
    let begins = traces::perfetto_begins_by_name(&json);
    assert_eq!(begins, expected(), "perfetto begins per region");

    // OTF2: ENTER lines name the regions, as many per region.
    if let Some(printed) = traces::otf2_printed(&run_dir, &tmp.join("t.otf2")) {
        let entered = traces::otf2_enters_by_name(&printed);
        assert_eq!(entered, expected(), "otf2-print ENTER lines per region");
    }
}

/// `REGIO_FILTER` leaves out Rust macro regions by name as it does IDF
/// regions: `leaf` is in neither the trace nor the profile; the rest
/// counts as before and the program prints the same. (The process's
/// first probe registers its region before the start-up reads the
/// filter: `select::configure` filters the descriptors registered by
/// then.)
#[test]
fn rust_regions_follow_the_run_time_filter() {
    let exe = build_bin("trace-demo", &[], "traced");
    let tmp = TestDir::new("rust-trace-filter");
    let filter = tmp.join("leaf.filter");
    std::fs::write(&filter, "exclude region leaf\n").unwrap_or_else(|e| panic!("{e}"));
    let run_dir = tmp.join("run");
    let r = run(Command::new(&exe)
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_SNAPSHOT")
        .env("REGIO_FILTER", &filter)
        .env("REGIO_MODE", "trace")
        .env("REGIO_DIR", &run_dir));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    assert_eq!(r.stdout.trim(), "630 70 3");
    let files = traces::decode_all(&run_dir);
    assert_eq!(traces::nesting_problems(&files), Vec::<String>::new());
    let enters = traces::enters(&files);
    assert_eq!(enters, profile_calls(&run_dir), "enter records vs calls");
    let mut want = expected();
    want.remove("leaf");
    assert_eq!(by_name(enters, &descriptor_names(&run_dir)), want);
}
