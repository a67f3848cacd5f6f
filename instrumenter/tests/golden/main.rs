//! The golden tests of every front end (C, Fortran, OpenMP and MPI in
//! both, Rust): each fixture is instrumented with the options it names
//! and the instrumented text, the IDF regions and the warnings (or the
//! errors) are compared with reviewed insta snapshots. See fixtures.rs
//! for where fixtures, their options and their snapshots live.
//!
//! Write new snapshots with
//! `INSTA_UPDATE=always cargo test -p regio-instrumenter --test golden`, then
//! review them (`git diff`); a refactor must not change any.

mod c_programs;
mod fixtures;
mod fortran_throughput;
mod options;
mod render;

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Every fixture against its snapshots; all failures are listed at once.
#[test]
fn every_fixture_matches_its_snapshots() {
    let fixtures = fixtures::all_fixtures().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        fixtures
            .iter()
            .any(|f| f.shown == "testdata/c/frontend/exits.c"),
        "testdata/ is missing"
    );
    let mut failures = Vec::new();
    for fixture in &fixtures {
        for options in &fixture.variants {
            let snaps = match render::snapshots(fixture, options) {
                Ok(snaps) => snaps,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(&fixture.snapshot_dir);
            settings.set_prepend_module_to_snapshot(false);
            settings.set_input_file(&fixture.path);
            settings.set_omit_expression(true);
            for (name, content) in snaps {
                let checked = catch_unwind(AssertUnwindSafe(|| {
                    settings.bind(|| insta::assert_snapshot!(name.as_str(), content));
                }));
                if checked.is_err() {
                    failures.push(format!("{}: snapshot {name} differs", fixture.shown));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
