//! Issue 12 item 13: a chain of 100,000 distinct nested regions. Loading,
//! merging, every renderer, compensation and the overhead analysis must
//! neither recurse once per level (the default test thread has a 2 MiB
//! stack, so recursion overflows long before 100k) nor write output that
//! grows with the square of the depth.

mod deep_chain;

use regio_analysis::overhead::{compensate, overhead};
use regio_analysis::{load_run, merge, render, Format, Report};
use serde::Deserialize;
use std::sync::OnceLock;

use deep_chain::{write_chain, EXCLUSIVE_NS};

const DEPTH: u32 = 100_000;
/// Nesting shown in full by the renderers (`render::DEEP`).
const DEEP: usize = 100;

/// The merged report, loaded once for all tests (the temporary directory
/// lives as long as the process).
fn deep_report() -> &'static Report {
    static REPORT: OnceLock<(tempfile::TempDir, Report)> = OnceLock::new();
    &REPORT
        .get_or_init(|| {
            let tmp = tempfile::tempdir().unwrap();
            write_chain(tmp.path(), DEPTH);
            let run = load_run(tmp.path(), None).unwrap();
            assert_eq!(run.profiles[0].threads[0].nodes.len(), DEPTH as usize);
            let report = merge(&run);
            (tmp, report)
        })
        .1
}

#[test]
fn a_chain_100k_deep_merges_into_one_path() {
    let report = deep_report();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let mut seen = 0u32;
    report.walk(&mut |n, path| {
        seen += 1;
        assert_eq!(n.region as usize, path.len());
        assert_eq!(
            n.inclusive_ns,
            u64::from(DEPTH + 1 - n.region) * EXCLUSIVE_NS
        );
        assert_eq!(n.children.len(), usize::from(n.region < DEPTH));
    });
    assert_eq!(seen, DEPTH);
    // Clone and drop are iterative too.
    let copy = report.clone();
    let mut seen = 0u32;
    copy.walk(&mut |n, path| {
        seen += 1;
        assert_eq!(n.region as usize, path.len());
    });
    assert_eq!(seen, DEPTH);
    drop(copy);
}

#[test]
fn text_report_of_a_100k_chain_stops_indenting() {
    let report = deep_report();
    let text = render(std::slice::from_ref(report), Format::Text);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(" function ")).collect();
    assert_eq!(rows.len(), DEPTH as usize);
    assert!(rows[1].starts_with("  f2 "), "{}", rows[1]);
    assert!(rows[DEEP - 1].starts_with(&format!("{}f{DEEP} ", "  ".repeat(DEEP - 1))));
    let last = rows[DEPTH as usize - 1];
    assert!(
        last.starts_with(&format!("{}({}) f{DEPTH} ", "  ".repeat(DEEP), DEPTH - 1)),
        "{last}"
    );
    // Bounded width: linear output.
    let widest = text.lines().map(str::len).max().unwrap();
    assert!(widest < 2 * DEEP + 200, "{widest}");
}

#[test]
fn json_report_of_a_100k_chain_is_nested_and_valid() {
    let report = deep_report();
    let wall = report.wall_ns;
    let text = render(std::slice::from_ref(report), Format::Json);
    assert!(text.len() < 2_000 * DEPTH as usize, "{}", text.len());
    // serde_json's Value parses and drops recursively: check in a thread
    // with a stack large enough for it, and return what was found.
    let chain = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || {
            let mut de = serde_json::Deserializer::from_str(&text);
            de.disable_recursion_limit();
            let v = serde_json::Value::deserialize(&mut de).unwrap();
            de.end().unwrap();
            assert_eq!(v["runs"][0]["wall_ns"], wall);
            let mut chain = Vec::new();
            let mut node = &v["runs"][0]["drg"][0];
            loop {
                chain.push((
                    node["region"].as_u64().unwrap(),
                    node["name"].as_str().unwrap().to_string(),
                    node["inclusive_ns"].as_u64().unwrap(),
                ));
                let children = node["children"].as_array().unwrap();
                match children.as_slice() {
                    [] => break,
                    [only] => node = only,
                    more => panic!("{} children", more.len()),
                }
            }
            chain
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(chain.len(), DEPTH as usize);
    for (i, (region, name, inclusive)) in chain.iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(*region, id);
        assert_eq!(*name, format!("f{id}"));
        assert_eq!(*inclusive, (u64::from(DEPTH) + 1 - id) * EXCLUSIVE_NS);
    }
}

#[test]
fn csv_of_a_100k_chain_elides_deep_paths() {
    let report = deep_report();
    let text = render(std::slice::from_ref(report), Format::Csv);
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let records: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), DEPTH as usize);
    let last = &records[DEPTH as usize - 1];
    assert_eq!(&last[2], (DEPTH - 1).to_string());
    let path = &last[1];
    let more = DEPTH as usize - DEEP;
    assert!(path.starts_with("f1;f2;"), "{path}");
    assert!(
        path.contains(&format!(";f50;...({more} more)...;f99951;")),
        "{path}"
    );
    assert!(path.ends_with(&format!(";f{DEPTH}")), "{path}");
    assert_eq!(path.split(';').count(), DEEP + 1);
    // Up to DEEP the path is whole.
    assert_eq!(records[DEEP - 1][1].split(';').count(), DEEP);
}

#[test]
fn folded_stacks_of_a_100k_chain_end_in_a_deeper_frame() {
    let report = deep_report();
    let text = render(std::slice::from_ref(report), Format::Collapsed);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), DEEP + 1);
    let total: u64 = lines
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, u64::from(DEPTH) * EXCLUSIVE_NS);
    let last = lines[DEEP];
    let (stack, ns) = last.rsplit_once(' ').unwrap();
    assert_eq!(
        ns,
        ((DEPTH as usize - DEEP) as u64 * EXCLUSIVE_NS).to_string()
    );
    let frames: Vec<&str> = stack.split(';').collect();
    assert_eq!(frames.len(), DEEP + 1);
    assert_eq!(frames[DEEP - 1], format!("f{DEEP}"));
    assert_eq!(frames[DEEP], "[deeper]");
}

#[test]
fn html_of_a_100k_chain_nests_at_most_deep_levels() {
    let report = deep_report();
    let text = render(std::slice::from_ref(report), Format::Html);
    assert_eq!(text.matches("<details class=\"node\"").count(), DEEP);
    assert_eq!(
        text.matches("<details class=\"leaf\"").count(),
        DEPTH as usize - DEEP
    );
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut rest = text.as_str();
    while let Some(at) = rest.find("details") {
        if rest[..at].ends_with("</") {
            depth -= 1;
        } else if rest[..at].ends_with('<') {
            depth += 1;
            deepest = deepest.max(depth);
        }
        rest = &rest[at + 7..];
    }
    assert_eq!(depth, 0);
    // The processes table is a <details> of its own.
    assert!(deepest <= DEEP + 1, "{deepest}");
    assert!(text.contains(&format!(">({}) f{DEPTH}</span>", DEPTH - 1)));
    assert!(text.ends_with("</html>\n"));
}

#[test]
fn overhead_and_compensation_of_a_100k_chain() {
    let report = deep_report();
    let o = overhead(report, &[(report, 2)]);
    let run = &o.runs[0];
    assert_eq!(run.regions.len(), DEPTH as usize);
    let last = &run.regions[DEPTH as usize - 1];
    assert_eq!(last.region, DEPTH);
    assert_eq!(last.baseline_ns, EXCLUSIVE_NS);
    assert_eq!(last.path.split(';').count(), DEEP + 1, "{}", last.path);
    assert!(last.path.ends_with(&format!(";f{DEPTH}")));
    // Every region ran on one thread in both: half its baseline time is
    // overhead at p = 2, all of it unidentified.
    for r in &run.regions {
        assert_eq!(
            r.total_overhead_ns,
            (r.baseline_ns / 2) as i64,
            "{}",
            r.name
        );
        assert_eq!(r.categories.unidentified, r.total_overhead_ns);
    }

    let mut compensated = report.clone();
    compensate(&mut compensated, 1.0);
    // The root loses one ns per descendant call, every node one for its
    // child's call from its exclusive time.
    let root = &compensated.roots[0];
    assert_eq!(
        root.inclusive_ns,
        u64::from(DEPTH) * EXCLUSIVE_NS - u64::from(DEPTH - 1)
    );
    assert_eq!(root.exclusive_ns, EXCLUSIVE_NS - 1);
}
