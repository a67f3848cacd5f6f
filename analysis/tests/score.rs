//! `score`: per region calls, cost and trace bytes from a profile, and the
//! suggested filter.

mod common;

use regio_analysis::load_run;
use regio_analysis::score::{score, ScoreOptions};
use regio_trace_format::{Block, BLOCK_HEADER_LEN};

use common::{tempdir, write_hot_cheap_idf, write_hot_cheap_run, write_profile, Proc, Thread};

#[test]
fn hot_cheap_functions_are_filtered_and_the_rest_kept() {
    let tmp = tempdir();
    let dir = tmp.path();
    // Two ranks, the second doing the same work.
    write_hot_cheap_run(dir, &[(0, 10), (1, 11)]);
    let run = load_run(dir, None).unwrap();
    let opts = ScoreOptions {
        probe_pair_ns: Some(20.0),
        ..ScoreOptions::default()
    };
    let s = score(&run, &opts);
    assert_eq!(s.cheap_ns, 200.0);
    let names: Vec<&str> = s.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names[0], "axpy", "{names:?}");
    let row = |n: &str| s.rows.iter().find(|r| r.name == n).unwrap();
    let axpy = row("axpy");
    assert_eq!(axpy.calls, 2_000_000);
    assert_eq!(axpy.cost_ns, Some(40_000_000.0));
    assert!(axpy.excluded);
    // 3-6 bytes per enter and per exit.
    assert!(
        (6 * 2_000_000..=12 * 2_000_000).contains(&axpy.trace_bytes),
        "{}",
        axpy.trace_bytes
    );
    // Cheap and hot but MPI or user: kept; cheap but rare: kept.
    for kept in ["MPI_Send", "phase", "rare", "main"] {
        assert!(!row(kept).excluded, "{kept}");
    }
    // MPI_Send writes a message record per call besides enter and exit.
    assert!(row("MPI_Send").trace_bytes > row("phase").trace_bytes * 5000 / 2000);
    assert_eq!(
        s.total_trace_bytes,
        s.rows.iter().map(|r| r.trace_bytes).sum::<u64>()
    );
    assert_eq!(
        s.filtered_trace_bytes,
        s.total_trace_bytes - axpy.trace_bytes
    );
    assert_eq!(s.max_thread_trace_bytes * 2, s.total_trace_bytes);
    assert_eq!(
        s.total_cost_ns,
        Some(20.0 * 2.0 * (1.0 + 1e6 + 5e3 + 10.0 + 2e3))
    );
    assert_eq!(s.measured_ns, 2_000_000_000);
    let filter = s.filter_text();
    let rules: Vec<&str> = filter.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rules, ["exclude region axpy"]);
    let text = s.to_text();
    assert!(text.contains("at 20.0 ns per enter/exit pair"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with('-') && l.contains("axpy") && l.contains("blas.c:5")),
        "{text}"
    );

    // Without a calibration: no costs, the 1 µs threshold.
    let s = score(&run, &ScoreOptions::default());
    assert_eq!(s.total_cost_ns, None);
    assert!(s.rows.iter().all(|r| r.cost_ns.is_none()));
    assert!(s.to_text().contains("not estimated"));
    assert!(s.rows.iter().find(|r| r.name == "axpy").unwrap().excluded);
}

/// For a regular stream the estimate is the encoder's own count: main
/// calls axpy N times, 1 µs apart, each call 50 ns long.
#[test]
fn trace_bytes_match_the_encoded_stream_of_a_regular_program() {
    const N: u64 = 10_000;
    let tmp = tempdir();
    let dir = tmp.path();
    write_hot_cheap_idf(dir);
    let gap = 1_000u64;
    let main_excl = gap * (N + 1);
    let nodes = vec![
        (
            0,
            None,
            1,
            1,
            0,
            main_excl + 50 * N,
            main_excl,
            main_excl + 50 * N,
            main_excl + 50 * N,
            0,
        ),
        (1, Some(0), 2, N, 0, 50 * N, 50 * N, 50, 50, 0),
    ];
    write_profile(
        dir,
        &Proc::new(0, 1, main_excl + 50 * N, vec![Thread { thread: 0, nodes }]),
    );
    let run = load_run(dir, None).unwrap();
    let s = score(&run, &ScoreOptions::default());

    // The profile helper's clock runs at 2.4 GHz.
    let ticks = |ns: u64| ns * 24 / 10;
    let mut buf = vec![0u8; 1 << 20];
    let mut block = Block::new(0, 0);
    let mut t = 0;
    block.enter(&mut buf, ticks(t), 1).unwrap();
    let main_enter = block.len() - BLOCK_HEADER_LEN;
    let mut axpy_bytes = 0;
    for _ in 0..N {
        let before = block.len();
        t += gap;
        block.enter(&mut buf, ticks(t), 2).unwrap();
        t += 50;
        block.exit(&mut buf, ticks(t), 2).unwrap();
        axpy_bytes += block.len() - before;
    }
    let before = block.len();
    t += gap;
    block.exit(&mut buf, ticks(t), 1).unwrap();
    let main_bytes = main_enter + block.len() - before;

    let row = |n: &str| s.rows.iter().find(|r| r.name == n).unwrap();
    assert_eq!(row("axpy").trace_bytes, axpy_bytes as u64);
    // main's own enter has no gap before it in the stream; the estimate
    // takes its own gap, so it may differ by the delta's length.
    let main_est = row("main").trace_bytes as i64;
    assert!(
        (main_est - main_bytes as i64).abs() <= 2,
        "{main_est} vs {main_bytes}"
    );
}
