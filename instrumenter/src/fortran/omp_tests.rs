//! Unit tests of the `!$omp` grammar (sentinels, continuations, clauses,
//! blank-optional names, classification). `--regions omp` on small
//! programs is in the golden fixtures (instrumenter/tests/golden/fixtures/
//! fortran/omp_*).

use super::omp::{self, Construct, Worksharing};
use super::scan::{self, Item};
use super::*;

fn directives(src: &str, form: SourceForm) -> Vec<(usize, usize, String)> {
    scan::scan(src, form, "t")
        .unwrap_or_else(|e| panic!("{e:?}"))
        .items
        .into_iter()
        .filter_map(|i| match i {
            Item::Omp(o) => Some((o.first_line, o.last_line, o.text)),
            _ => None,
        })
        .collect()
}

#[test]
fn sentinels_of_both_forms() {
    assert!(omp::free_sentinel(b"  !$omp parallel", false).is_some());
    assert!(omp::free_sentinel(b"!$OMP barrier", false).is_some());
    assert!(omp::free_sentinel(b"!$ompx foo", false).is_none());
    assert!(omp::free_sentinel(b"!$ x = 1", false).is_none());
    let c = omp::free_sentinel(b"!$omp & shared(a)", true).unwrap_or_else(|| panic!());
    assert!(c.continuation);
    assert_eq!(&"!$omp & shared(a)"[c.body..], " shared(a)");
    for s in ["c$omp do", "C$OMP DO", "*$omp do", "!$omp do"] {
        let f = omp::fixed_sentinel(s.as_bytes()).unwrap_or_else(|| panic!("{s}"));
        assert!(!f.continuation, "{s}");
    }
    assert!(
        omp::fixed_sentinel(b"c$omp+private(i)")
            .unwrap_or_else(|| panic!())
            .continuation
    );
    assert!(
        !omp::fixed_sentinel(b"c$omp0parallel")
            .unwrap_or_else(|| panic!())
            .continuation
    );
    assert!(omp::fixed_sentinel(b"c$ompx").is_some_and(|f| f.continuation));
    assert!(omp::fixed_sentinel(b"      x = 1").is_none());
}

#[test]
fn continuation_lines_make_one_directive() {
    let free = "program p\n!$omp parallel default(none) & ! why\n  ! a comment between\n!$omp& shared(a, &\n!$omp    b) private(i)\n!$omp end parallel\nend program p\n";
    let d = directives(free, SourceForm::Free);
    assert_eq!(
        d[0],
        (
            1,
            4,
            "parallel default(none) shared(a, b) private(i)".to_string()
        )
    );
    assert_eq!(d[1], (5, 5, "end parallel".to_string()));
    // Text from column 73 on is not part of the directive.
    let fixed = format!(
        "      PROGRAM P\nC$OMP PARALLEL DO\nC     comment\n*$OMP+PRIVATE(I)\n!$OMP&SHARED(A){}IGNORED\n      DO 10 I = 1, 2\n   10 CONTINUE\n      END\n",
        " ".repeat(72 - 15)
    );
    let d = directives(&fixed, SourceForm::Fixed);
    assert_eq!(d[0], (1, 4, "PARALLEL DO PRIVATE(I) SHARED(A)".to_string()));
}

#[test]
fn construct_words_and_clauses() {
    let d = omp::parse("parallel do schedule(static, 4) reduction(+ : s), private(i)");
    assert_eq!(d.words, ["parallel", "do"]);
    assert!(!d.end);
    assert_eq!(
        d.construct(),
        Construct::ParallelWorksharing(Worksharing::For { simd: false })
    );
    assert_eq!(
        d.clause_text(),
        "schedule(static, 4) reduction(+ : s) private(i)"
    );
    let e = omp::parse("END PARALLEL DO");
    assert!(e.end && d.is_ended_by(&e));
    let c = omp::parse("critical (Upd) hint(1)");
    assert_eq!(c.name.as_deref(), Some("Upd"));
    assert!(c.is_ended_by(&omp::parse("end critical(upd)")));
    assert!(!c.is_ended_by(&omp::parse("end critical")));
    let f = omp::parse("flush(a, b)");
    assert_eq!(f.construct(), Construct::Flush);
    assert_eq!(f.clause_text(), "(a, b)");
    assert!(omp::parse("threadprivate(/c/)").is_specification());
    assert!(!omp::parse("parallel").is_specification());
    assert_eq!(
        omp::parse("ordered depend(sink: i-1)").construct(),
        Construct::NotMeasured {
            reason: omp::reason::DOACROSS,
            quiet: false
        }
    );
    assert_eq!(omp::parse("ordered").construct(), Construct::Ordered);
    let o = omp::parse("do ordered schedule(static,1)");
    assert_eq!(o.words, ["do"]);
    assert!(o.has_clause("ordered"));
    assert_eq!(omp::parse("do collapse(3)").bound_loops(), 3);
    assert_eq!(omp::parse("atomic update").words, ["atomic"]);
    assert_eq!(
        omp::parse("end single copyprivate(x)").clauses[0].0,
        "copyprivate"
    );
    assert_eq!(
        omp::parse("parallel workshare").construct(),
        Construct::ParallelWorksharing(Worksharing::Workshare)
    );
}

#[test]
fn combined_directives_are_read_into_clauses() {
    // Where each clause goes: omp_clauses.rs.
    let d = omp::parse("parallel do default(none) lastprivate(x) copyin(t)");
    let names: Vec<&str> = d.clauses.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["default", "lastprivate", "copyin"]);
}

#[test]
fn long_directives_are_continued_within_the_line_limit() {
    let body = format!("parallel {}", "shared(abcdefgh) ".repeat(10));
    for (fixed, limit) in [(true, 72), (false, 60)] {
        let lines = omp::lines(&body, fixed, "  ", limit);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(lines.iter().all(|l| l.len() <= limit), "{lines:?}");
        let joined: String = lines
            .iter()
            .map(|l| {
                l.trim_start()
                    .trim_start_matches("!$omp&")
                    .trim_start_matches("!$omp & ")
                    .trim_start_matches("!$omp ")
                    .trim_end_matches(" &")
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            joined.split_whitespace().collect::<Vec<_>>(),
            body.split_whitespace().collect::<Vec<_>>()
        );
    }
}

#[test]
fn openmp5_directives_are_classified_with_their_extent() {
    use omp::Extent;
    let c = |t: &str| omp::parse(t).construct();
    let e = |t: &str| omp::parse(t).extent();
    assert_eq!(
        c("do simd"),
        Construct::Worksharing(Worksharing::For { simd: true })
    );
    assert_eq!(
        c("parallel do simd reduction(+:s)"),
        Construct::ParallelWorksharing(Worksharing::For { simd: true })
    );
    assert_eq!(
        c("parallel masked taskloop simd"),
        Construct::ParallelMasked {
            master: false,
            taskloop: Some(true)
        }
    );
    assert_eq!(
        c("masked taskloop grainsize(4)"),
        Construct::MaskedTaskloop {
            master: false,
            simd: false
        }
    );
    assert_eq!(c("taskloop simd"), Construct::Taskloop { simd: true });
    assert_eq!(c("teams num_teams(2)"), Construct::Teams);
    assert_eq!(
        c("teams distribute parallel do"),
        Construct::Around { quiet: true }
    );
    assert_eq!(c("loop"), Construct::Worksharing(Worksharing::Loop));
    let not = |t: &str| match c(t) {
        Construct::NotMeasured { reason, quiet } => (reason, quiet),
        other => panic!("{t}: {other:?}"),
    };
    assert_eq!(not("target map(to: a)"), (omp::reason::TARGET, true));
    assert!(not("begin metadirective when(user={condition(.true.)}: parallel)").1);
    assert_eq!(not("assume holds(n > 0)").0, omp::reason::ASSUME);
    assert_eq!(
        not("declare variant(f) match(construct={parallel})").0,
        omp::reason::DECLARATIVE
    );
    assert_eq!(not("scan inclusive(s)").0, omp::reason::SCAN);
    // How far each one reaches.
    assert_eq!(e("do simd"), Extent::Loop);
    assert_eq!(e("masked taskloop"), Extent::Loop);
    assert_eq!(e("parallel masked"), Extent::Block);
    assert_eq!(e("teams"), Extent::Block);
    assert_eq!(e("target"), Extent::Block);
    assert_eq!(e("target teams distribute parallel do"), Extent::Loop);
    assert_eq!(e("target update to(a)"), Extent::Standalone);
    assert_eq!(e("assume holds(.true.)"), Extent::Block);
    assert_eq!(e("scan exclusive(s)"), Extent::Standalone);
    assert_eq!(e("metadirective default(parallel do)"), Extent::Loop);
}

/// Every directive name whose blanks OpenMP makes optional (the free-form
/// list of OpenMP 5.0 2.1.2, which 5.2 3.1.2 generalises to all adjacent
/// keywords) parses the same without them; fixed form also with a clause
/// glued on.
#[test]
fn blank_optional_directive_names() {
    let names = [
        "declare reduction",
        "declare simd",
        "declare target",
        "distribute parallel do",
        "distribute parallel do simd",
        "distribute simd",
        "do simd",
        "end atomic",
        "end critical",
        "end distribute",
        "end distribute parallel do",
        "end distribute parallel do simd",
        "end distribute simd",
        "end do",
        "end do simd",
        "end master",
        "end masked",
        "end ordered",
        "end parallel",
        "end parallel do",
        "end parallel do simd",
        "end parallel sections",
        "end parallel workshare",
        "end parallel masked",
        "end sections",
        "end simd",
        "end single",
        "end target",
        "end target data",
        "end target parallel",
        "end target parallel do",
        "end target parallel do simd",
        "end target simd",
        "end target teams",
        "end target teams distribute",
        "end target teams distribute parallel do",
        "end target teams distribute parallel do simd",
        "end target teams distribute simd",
        "end task",
        "end taskgroup",
        "end taskloop",
        "end taskloop simd",
        "end teams",
        "end teams distribute",
        "end teams distribute parallel do",
        "end teams distribute parallel do simd",
        "end teams distribute simd",
        "end workshare",
        "parallel do",
        "parallel do simd",
        "parallel sections",
        "parallel workshare",
        "target data",
        "target enter data",
        "target exit data",
        "target parallel",
        "target parallel do",
        "target parallel do simd",
        "target simd",
        "target teams",
        "target teams distribute",
        "target teams distribute parallel do",
        "target teams distribute parallel do simd",
        "target teams distribute simd",
        "target update",
        "taskloop simd",
        "teams distribute",
        "teams distribute parallel do",
        "teams distribute parallel do simd",
        "teams distribute simd",
        "cancellation point",
        "masked taskloop simd",
        "parallel masked taskloop",
        "end declare target",
    ];
    for n in names {
        let want = omp::parse(n);
        assert!(!want.words.is_empty(), "{n}");
        let glued = n.replace(' ', "");
        for text in [glued.clone(), glued.to_ascii_uppercase()] {
            assert_eq!(omp::parse(&text), want, "{text}");
            assert_eq!(omp::parse_form(&text, true), want, "fixed: {text}");
        }
        // Partly glued: the first blank kept.
        if let Some((a, b)) = n.split_once(' ') {
            let part = format!("{a} {}", b.replace(' ', ""));
            assert_eq!(omp::parse(&part), want, "{part}");
        }
    }
    // Clauses and names stay apart.
    let d = omp::parse("enddo nowait");
    assert_eq!((d.end, d.words.clone()), (true, vec!["do".to_string()]));
    assert!(d.has_clause("nowait"));
    let c = omp::parse("endcritical(upd)");
    assert!(omp::parse("critical (upd)").is_ended_by(&c));
    assert!(omp::parse("taskwait").words == ["taskwait"]);
    assert!(omp::parse("do simdlen(4)").has_clause("simdlen"));
    assert!(omp::parse("atomic update").has_clause("update"));
    // Fixed form: blanks are never significant, clause names may be glued.
    let f = omp::parse_form("PARALLELDOSHARED(A,B,C)", true);
    assert_eq!(f.words, ["parallel", "do"]);
    assert!(f.has_clause("shared"));
    let f = omp::parse_form("ENDDONOWAIT", true);
    assert!(f.end && f.words == ["do"] && f.has_clause("nowait"));
    let f = omp::parse_form("dosimdsimdlen(4)", true);
    assert_eq!(f.words, ["do", "simd"]);
    assert!(f.has_clause("simdlen"));
    // Free form needs the blank before a clause.
    assert!(omp::parse("enddonowait").words.is_empty());
}
