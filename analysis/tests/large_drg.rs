//! A DRG of more nodes than the text report shows: the text keeps the
//! heaviest nodes and says how many it left out; JSON keeps every node.

mod common;

use common::{run_dir, tempdir, write_profile, Proc, Thread, N};
use regio_analysis::{load_run, merge, render, Format};

/// The text report's limit (`render::text::TEXT_NODES`).
const TEXT_NODES: usize = 100_000;

#[test]
fn the_text_report_folds_a_drg_beyond_its_limit_and_says_so() {
    let tmp = tempdir();
    let dir = run_dir(&tmp);
    // main, and under it `children` distinct leaves with inclusive times
    // 1..=children ns.
    let children = TEXT_NODES as u32 + 500;
    let total_ns = u64::from(children) * u64::from(children + 1) / 2;
    let mut nodes: Vec<N> = vec![(0, None, 1, 1, 0, total_ns, 0, total_ns, total_ns, 0)];
    for k in 1..=children {
        let t = u64::from(k);
        nodes.push((k, Some(0), 1 + k, 1, 0, t, t, t, t, 0));
    }
    write_profile(
        &dir,
        &Proc::new(0, 1, total_ns + 1, vec![Thread { thread: 0, nodes }]),
    );
    let report = merge(&load_run(&dir, None).unwrap_or_else(|e| panic!("{e}")));

    let text = render(std::slice::from_ref(&report), Format::Text);
    let rows = text
        .lines()
        .filter(|l| l.trim_start().starts_with("region#"))
        .count();
    // main and the TEXT_NODES - 1 heaviest leaves: inclusive above the
    // TEXT_NODES + 1-th largest time, which is `children - TEXT_NODES + 1` ns.
    assert_eq!(rows, TEXT_NODES);
    let note = format!(
        "showing {TEXT_NODES} of {} DRG nodes: those with inclusive time above 501 ns whose callers are shown",
        children + 1
    );
    assert!(
        text.contains(&note),
        "{}",
        &text[text.len().saturating_sub(600)..]
    );
    assert!(text.contains("region#100501"), "the heaviest leaf is shown");
    assert!(!text.contains("region#502 "), "a light leaf is left out");

    // Every node, written compactly (one per line) at this size.
    let json = render(std::slice::from_ref(&report), Format::Json);
    assert_eq!(json.matches("\"region\":").count(), children as usize + 1);
    assert!(
        json.contains("\n{\"region\":100501,"),
        "a compact node line"
    );
    let back: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    let drg = &back["runs"][0]["drg"];
    assert_eq!(
        drg[0]["children"].as_array().map(Vec::len),
        Some(children as usize)
    );
}
