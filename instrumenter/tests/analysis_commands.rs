//! The analysis commands of the `instrument` binary on inputs that broke
//! them (issue 12): a 100k-deep DRG (`report`), runs given in the wrong
//! order (`overhead`), the `experiment --help` text and the output of
//! `calibrate`.

#[path = "../../analysis/tests/deep_chain/mod.rs"]
mod deep_chain;

use std::path::Path;
use std::process::{Command, Output};

fn instrument(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_instrument"))
        .args(args)
        .output()
        .expect("run instrument")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Item 13: the binary runs on the main thread's stack; every format of a
/// 100k-deep chain is written, and is what the library renders.
#[test]
fn report_of_a_100k_deep_chain_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    deep_chain::write_chain(dir, 100_000);
    let report = regio_analysis::merge(&regio_analysis::load_run(dir, None).unwrap());
    for format in ["text", "json", "csv", "collapsed", "html"] {
        let out = instrument(&["report", "--format", format, &dir.display().to_string()]);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{format}: {:?} {stderr}", out.status);
        assert!(stderr.is_empty(), "{format}: {stderr}");
        let expected =
            regio_analysis::render(std::slice::from_ref(&report), format.parse().unwrap());
        assert!(
            out.stdout == expected.as_bytes(),
            "{format}: output differs"
        );
    }
    drop(report);
    assert!(Path::new(dir).exists());
}
