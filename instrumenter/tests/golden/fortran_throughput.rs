//! Fortran front-end throughput on generated 100k-line files (ignored by
//! default: a measurement, not a check).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use regio_instrumenter::filter::Filter;
use regio_instrumenter::fortran::{form_for_path, instrument};
use regio_instrumenter::frontend::SourceInput;

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
/// `cargo test --release -p regio-instrumenter --test golden throughput -- --ignored --nocapture`.
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
