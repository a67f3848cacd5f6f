//! Golden tests of the Fortran front end: every program under
//! `testdata/fortran/` instrumented and snapshotted (text, IDF regions,
//! warnings); every file under `testdata/fortran/bad/` rejected with
//! snapshotted diagnostics. Write snapshots with
//! `INSTA_UPDATE=always cargo test -p instrument --test fortran_golden`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use regio_instrumenter::filter::Filter;
use regio_instrumenter::fortran::{form_for_path, instrument};
use regio_instrumenter::frontend::SourceInput;
use regio_instrumenter::selection::Selection;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Fortran sources under `testdata/fortran/<dir>`, sorted.
fn sources(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root().join("testdata/fortran").join(dir)];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if form_for_path(&p).is_some() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The path as it appears in snapshots: relative to the workspace root.
fn shown(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn run(path: &Path, regions: &str) -> Result<String, String> {
    run_at(path, regions, "/regio-out/regio.idf.json")
}

/// [`run`] with the IDF at `idf_path`.
fn run_at(path: &Path, regions: &str, idf_path: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path).expect("testdata is readable");
    let display = shown(path);
    let form = form_for_path(path).expect("a Fortran suffix");
    let filter = Filter::default();
    let selection: Selection = regions.parse().expect("valid --regions");
    let input = SourceInput {
        text: &text,
        display_path: &display,
        rel_path: &display,
        idf_path,
        selection,
        filter: &filter,
        first_id: 1,
    };
    match instrument(&input, form) {
        Ok(done) => {
            let mut s = String::new();
            writeln!(s, "--- regions ({regions})").ok();
            for r in &done.regions {
                let aux = serde_json::Value::Object(r.aux.clone());
                writeln!(
                    s,
                    "{:>3} {:<8} {:<14} unit={:<10} {}:{}-{}:{} parent={} {}",
                    r.id,
                    r.kind.to_string(),
                    r.name,
                    r.unit,
                    r.start.line,
                    r.start.col,
                    r.end.line,
                    r.end.col,
                    r.parent.map_or("-".to_string(), |p| p.to_string()),
                    aux
                )
                .ok();
            }
            if !done.warnings.is_empty() {
                writeln!(s, "--- warnings").ok();
                for w in &done.warnings {
                    writeln!(s, "{w}").ok();
                }
            }
            writeln!(s, "--- text").ok();
            s.push_str(&done.text);
            Ok(s)
        }
        Err(diags) => Err(diags
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

fn snapshot_name(path: &Path, suffix: &str) -> String {
    let s = shown(path)
        .trim_start_matches("testdata/fortran/")
        .replace(['/', '.'], "_");
    format!("{s}{suffix}")
}

#[test]
fn programs_instrument_as_recorded() {
    let files: Vec<PathBuf> = ["free", "fixed"].iter().flat_map(|d| sources(d)).collect();
    assert!(files.len() >= 5, "testdata/fortran is missing: {files:?}");
    for f in files {
        let out = run(&f, "functions,loops,user")
            .unwrap_or_else(|e| panic!("{} failed:\n{e}", f.display()));
        insta::assert_snapshot!(snapshot_name(&f, ""), out);
    }
}

/// Some programs also with I/O and call-site regions.
#[test]
fn io_and_call_regions_as_recorded() {
    for name in ["free/io_calls.f90", "fixed/legacy.f"] {
        let f = root().join("testdata/fortran").join(name);
        let out = run(&f, "functions,loops,user,io,calls")
            .unwrap_or_else(|e| panic!("{} failed:\n{e}", f.display()));
        insta::assert_snapshot!(snapshot_name(&f, "_io_calls"), out);
    }
}

/// OpenMP programs of `testdata/fortran/omp` with `--regions
/// omp,functions,loops` (directive names written without their optional
/// blanks, in both source forms).
#[test]
fn openmp_programs_instrument_as_recorded() {
    let files = sources("omp");
    assert!(!files.is_empty(), "testdata/fortran/omp is missing");
    for f in files {
        let out = run(&f, "omp,functions,loops")
            .unwrap_or_else(|e| panic!("{} failed:\n{e}", f.display()));
        insta::assert_snapshot!(snapshot_name(&f, ""), out);
    }
}

/// MPI programs of `testdata/fortran/mpi` with `--regions mpi`: the peer
/// and tag arguments in `aux` come from the routine table both front ends
/// share (probes, persistent and partitioned requests).
#[test]
fn mpi_programs_instrument_as_recorded() {
    let files = sources("mpi");
    assert!(!files.is_empty(), "testdata/fortran/mpi is missing");
    for f in files {
        let out = run(&f, "mpi").unwrap_or_else(|e| panic!("{} failed:\n{e}", f.display()));
        insta::assert_snapshot!(snapshot_name(&f, ""), out);
    }
}

/// Deeply indented programs instrumented with every region kind for an
/// IDF with a path of more than 200 characters: every line fits 132
/// columns in free form and 72 in fixed form (line markers are not
/// Fortran lines and may be longer).
#[test]
fn generated_lines_fit_the_line_limit() {
    let idf = format!("/{}/{}/regio.idf.json", "o".repeat(120), "p'q".repeat(30));
    let files = sources("long");
    assert!(files.len() >= 2, "testdata/fortran/long is missing");
    for f in files {
        let out =
            run_at(&f, "all", &idf).unwrap_or_else(|e| panic!("{} failed:\n{e}", f.display()));
        let text = &out[out.find("--- text").unwrap_or(0)..];
        let limit = match form_for_path(&f) {
            Some(regio_instrumenter::fortran::SourceForm::Fixed) => 72,
            _ => 132,
        };
        let long: Vec<&str> = text
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with("# ") && l.len() > limit)
            .collect();
        assert!(long.is_empty(), "{}: {long:#?}", f.display());
        insta::assert_snapshot!(snapshot_name(&f, ""), out);
    }
}

/// Only user directives: probes where the directives are, nothing else.
#[test]
fn user_regions_alone() {
    let f = root().join("testdata/fortran/free/exits.f90");
    let out = run(&f, "user").unwrap_or_else(|e| panic!("{e}"));
    insta::assert_snapshot!(snapshot_name(&f, "_user_only"), out);
}

#[test]
fn bad_inputs_are_rejected_with_located_errors() {
    let files = sources("bad");
    assert!(
        files.len() >= 8,
        "testdata/fortran/bad is missing: {files:?}"
    );
    for f in files {
        let diags = match run(&f, "functions,loops,user") {
            Ok(out) => panic!("{} was accepted:\n{out}", f.display()),
            Err(d) => d,
        };
        let prefix = format!("{}:", shown(&f));
        for line in diags.lines() {
            assert!(
                line.starts_with(&prefix) && line.contains(": error: "),
                "not `file:line:col: error: ...`: {line}"
            );
        }
        insta::assert_snapshot!(snapshot_name(&f, ""), diags);
    }
}

/// Code the scanner cannot follow (gfortran refuses these too) is no
/// error: the file is written unchanged, each problem is a `not measured`
/// warning, and the IDF lists the file.
#[test]
fn unreadable_inputs_are_left_as_written_with_warnings() {
    let files = sources("unreadable");
    assert!(files.len() >= 3, "testdata/fortran/unreadable: {files:?}");
    for f in files {
        let out = run(&f, "functions,loops,user")
            .unwrap_or_else(|e| panic!("{} was refused:\n{e}", f.display()));
        let original = std::fs::read_to_string(&f).expect("testdata is readable");
        assert!(out.ends_with(&format!("--- text\n{original}")), "{out}");
        assert!(out.contains(": warning: not measured: this file left as written ("));
        insta::assert_snapshot!(snapshot_name(&f, ""), out);
    }
}

/// A generated free-form source of about `lines` lines: modules of
/// procedures with nested loops, IF blocks, jumps, I/O and calls.
fn generated_free(lines: usize) -> String {
    let mut s = String::new();
    let mut n = 0;
    let mut m = 0;
    while s.lines().count() < lines {
        writeln!(s, "module gen{m}\n  implicit none\ncontains").ok();
        for _ in 0..20 {
            writeln!(
                s,
                "  subroutine work{n}(a, k)\n    real, intent(inout) :: a(:)\n    integer, intent(in) :: k\n    integer :: i, j\n    outer: do i = 1, size(a)\n      do j = 1, k\n        if (a(i) > 100.0) exit outer\n        if (mod(j, 3) == 0) cycle\n        a(i) = a(i) + real(j) * 0.5\n      end do\n      if (i > k) then\n        print *, 'early', i\n        return\n      end if\n    end do outer\n    !$regio begin tail{n}\n    a(1) = a(1) + 1.0\n    !$regio end tail{n}\n    call helper{n}(a)\n  end subroutine work{n}\n  subroutine helper{n}(a)\n    real, intent(inout) :: a(:)\n    a = a * 0.5\n  end subroutine helper{n}"
            )
            .ok();
            n += 1;
        }
        writeln!(s, "end module gen{m}").ok();
        m += 1;
    }
    s
}

/// The same in FORTRAN 77 fixed form: labelled and shared DO loops,
/// arithmetic IF, computed GO TO, continuation lines.
fn generated_fixed(lines: usize) -> String {
    let mut s = String::new();
    let mut n = 0;
    while s.lines().count() < lines {
        writeln!(
            s,
            "      SUBROUTINE W{n}(A, N, K)\n      INTEGER N, K, I, J\n      REAL A(N)\nC     A comment line\n      DO 10 I = 1, N\n         DO 10 J = 1, K\n            IF (A(I) - 100.0) 20, 30, 30\n   20       A(I) = A(I) +\n     &             REAL(J)\n   10 CONTINUE\n      GO TO (40, 50) K\n   30 WRITE (*, *) 'BIG', I\n      RETURN\n   40 CALL H{n}(A, N)\n   50 CONTINUE\n      END\n      SUBROUTINE H{n}(A, N)\n      INTEGER N\n      REAL A(N)\n      A(1) = 0.0\n      END"
        )
        .ok();
        n += 1;
    }
    s
}

/// Front-end throughput on generated 100k-line files. Run with
/// `cargo test --release -p instrument --test fortran_golden throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput_on_100k_lines() {
    for (form_name, text, path) in [
        ("free", generated_free(100_000), "gen.f90"),
        ("fixed", generated_fixed(100_000), "gen.f"),
    ] {
        let form = form_for_path(Path::new(path)).expect("a Fortran suffix");
        let filter = Filter::default();
        let input = SourceInput {
            text: &text,
            display_path: path,
            rel_path: path,
            idf_path: "/regio-out/regio.idf.json",
            selection: "functions,loops,user,io,calls".parse().expect("valid"),
            filter: &filter,
            first_id: 1,
        };
        // Warm up once, then take the best of five.
        let first = instrument(&input, form).unwrap_or_else(|e| panic!("{e:?}"));
        if let Some(dir) = std::env::var_os("REGIO_BENCH_DUMP") {
            // To check the generated code with a compiler.
            let dir = PathBuf::from(dir);
            std::fs::write(dir.join(format!("orig-{path}")), &text).expect("dump");
            std::fs::write(dir.join(path), &first.text).expect("dump");
        }
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let out = instrument(&input, form).unwrap_or_else(|e| panic!("{e:?}"));
            best = best.min(t.elapsed().as_secs_f64());
            assert_eq!(out.regions.len(), first.regions.len());
        }
        let mb = text.len() as f64 / 1e6;
        println!(
            "{form_name}: {} lines, {:.2} MB, {} regions: {:.3} s, {:.1} MB/s, {:.0} lines/s",
            text.lines().count(),
            mb,
            first.regions.len(),
            best,
            mb / best,
            text.lines().count() as f64 / best
        );
    }
}
