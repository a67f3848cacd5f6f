//! Run directories written by older runtimes still load: a version-1
//! profile (node objects with fixed-width numbers) merges and renders like
//! the rows of version 2.

use regio_analysis::{load_run, merge, render, Format};
use regio_idf::rundir::{Profile, PROFILE_VERSION};

const V1: &str = include_str!("../../idf-schema/tests/fixtures/profile-v1.json");

/// (region, calls, inclusive, exclusive, throttled_at) of every merged node.
fn figures(dir: &std::path::Path) -> Vec<(u32, u64, u64, u64, Option<u64>)> {
    let report = merge(&load_run(dir, None).unwrap_or_else(|e| panic!("{e}")));
    let mut out = Vec::new();
    report.walk(&mut |n, _| {
        out.push((
            n.region,
            n.calls,
            n.inclusive_ns,
            n.exclusive_ns,
            n.throttled_at,
        ))
    });
    out.sort();
    out
}

#[test]
fn a_version_1_run_directory_loads_and_matches_its_rows() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let old = tmp.path().join("old");
    std::fs::create_dir(&old).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(old.join("profile-r1-p4242.json"), V1).unwrap_or_else(|e| panic!("{e}"));
    // The same profile written as version 2 (rows).
    let mut p = Profile::from_json("v1", V1).unwrap_or_else(|e| panic!("{e}"));
    p.version = PROFILE_VERSION;
    let rows = serde_json::to_string(&p).unwrap_or_else(|e| panic!("{e}"));
    assert!(!rows.contains(r#""inclusive_ns""#), "{rows}");
    let new = tmp.path().join("new");
    std::fs::create_dir(&new).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(new.join("profile-r1-p4242.json"), rows).unwrap_or_else(|e| panic!("{e}"));

    let before = figures(&old);
    assert_eq!(before.len(), 4);
    assert!(
        before.contains(&(7, 200000, 50000000, 50000000, Some(100000))),
        "{before:?}"
    );
    assert_eq!(before, figures(&new));
    let text = |dir| {
        render(
            &[merge(
                &load_run(dir, None).unwrap_or_else(|e| panic!("{e}")),
            )],
            Format::Json,
        )
    };
    assert_eq!(
        text(&old),
        text(&new).replace(
            new.to_str().unwrap_or_default(),
            old.to_str().unwrap_or_default()
        )
    );
}
