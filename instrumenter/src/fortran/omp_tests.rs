//! Unit tests of the `!$omp` grammar (sentinels, continuations, clauses)
//! and of `--regions omp` on small programs.

use super::omp::{self, Construct, Inner, Worksharing};
use super::scan::{self, Item};
use super::tests::run as run_with;
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

fn run(src: &str, form: SourceForm) -> Result<Instrumented, Vec<Diagnostic>> {
    run_with(src, form, "omp")
}

fn errors(src: &str, form: SourceForm) -> Vec<String> {
    match run(src, form) {
        Ok(_) => Vec::new(),
        Err(e) => e.iter().map(|d| d.to_string()).collect(),
    }
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
fn combined_clauses_go_where_they_belong() {
    let d = omp::parse("parallel do default(none) shared(a) lastprivate(x) reduction(+:s) schedule(dynamic) collapse(2) num_threads(3) copyin(t)");
    let split = omp::split_combined(&d.clauses, Inner::For { simd: false }, false);
    let (par, ws) = (split.parallel, split.inner);
    assert_eq!(
        par,
        [
            "default(none)",
            "shared(a)",
            "reduction(+:s)",
            "num_threads(3)",
            "copyin(t)",
            "shared(x)"
        ]
    );
    assert_eq!(ws, ["lastprivate(x)", "schedule(dynamic)", "collapse(2)"]);
    let d = omp::parse("parallel do lastprivate(x)");
    let par = omp::split_combined(&d.clauses, Inner::For { simd: false }, false).parallel;
    assert!(par.is_empty(), "no default(none): nothing to add");
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
fn default_none_lists_the_team_variable_and_lines_stay() {
    let src = "program p\n  implicit none\n  integer :: s\n  s = 0\n!$omp parallel default(none) shared(s)\n!$omp atomic\n  s = s + 1\n!$omp end parallel\n  print *, s\nend program p\n";
    let out = run(src, SourceForm::Free).unwrap_or_else(|e| panic!("{e:?}"));
    let t = &out.text;
    assert!(
        t.contains("!$omp parallel default(none) shared(s) firstprivate(regio__team"),
        "{t}"
    );
    assert!(t.contains("integer(8) :: regio__team"), "{t}");
    // Every original line keeps its number: the marker before a line
    // names it.
    let mut line = 0usize;
    let orig: Vec<&str> = src.lines().collect();
    for l in t.lines() {
        if let Some(rest) = l.strip_prefix("# ") {
            line = rest
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            continue;
        }
        if line >= 1 && line <= orig.len() && l.starts_with(orig[line - 1].trim_end()) {
            line += 1;
        }
    }
    assert!(line > orig.len(), "line numbering lost:\n{t}");
    let kinds: Vec<String> = out.regions.iter().map(|r| r.kind.to_string()).collect();
    assert_eq!(
        kinds,
        [
            "omp_parallel",
            "omp_fork",
            "omp_join",
            "omp_implicit_barrier",
            "omp_atomic"
        ]
    );
    assert_eq!(out.regions[0].start.line, 5);
    assert_eq!(out.regions[4].parent, Some(out.regions[0].id));
    assert_eq!(out.regions[2].parent, Some(out.regions[0].id));
}

#[test]
fn fixed_form_added_clauses_stay_within_column_72() {
    let src = "      PROGRAM P\n      INTEGER S\n      S = 0\nC$OMP PARALLEL DEFAULT(NONE) SHARED(S) REDUCTION(+:S) NUM_THREADS(2)\n      S = S + 1\nC$OMP END PARALLEL\n      PRINT *, S\n      END\n";
    let out = run(src, SourceForm::Fixed).unwrap_or_else(|e| panic!("{e:?}"));
    for l in out.text.lines().filter(|l| !l.starts_with('#')) {
        assert!(l.len() <= 72, "past column 72: {l}");
    }
    assert!(
        out.text.contains("!$omp&firstprivate(regio__team"),
        "{}",
        out.text
    );
}

#[test]
fn a_loop_construct_without_end_do_gets_one() {
    let src = "subroutine s(a)\n  integer :: a(10), i\n!$omp do\n  do i = 1, 10\n    a(i) = i\n  end do\nend subroutine s\n";
    let out = run(src, SourceForm::Free).unwrap_or_else(|e| panic!("{e:?}"));
    let t = &out.text;
    let end_do = t
        .find("!$omp end do nowait")
        .unwrap_or_else(|| panic!("{t}"));
    let barrier = t.find("!$omp barrier").unwrap_or_else(|| panic!("{t}"));
    assert!(t.find("  end do\n").is_some_and(|e| e < end_do) && end_do < barrier);
}

#[test]
fn malformed_structure_is_an_error_with_a_position() {
    let e = errors(
        "subroutine s\n  integer :: i\n!$omp end do\nend subroutine s\n",
        SourceForm::Free,
    );
    assert_eq!(
        e,
        ["t.f90:3:1: error: `!$omp end do` without a matching `!$omp do`"]
    );
    let e = errors(
        "subroutine s\n!$omp parallel\n  call f()\nend subroutine s\n",
        SourceForm::Free,
    );
    assert!(e[0].starts_with("t.f90:2:1: error: `!$omp parallel` is never closed"));
    let e = errors(
        "subroutine s\n  integer :: i\n!$omp do\n  i = 1\nend subroutine s\n",
        SourceForm::Free,
    );
    assert!(e[0].contains("must be followed by a DO loop"), "{e:?}");
    let e = errors(
        "subroutine s(c)\n  logical :: c\n  if (c) then\n!$omp parallel\n  end if\n!$omp end parallel\nend subroutine s\n",
        SourceForm::Free,
    );
    assert!(
        e.iter().any(|m| m.contains("not in the same block")),
        "{e:?}"
    );
    let e = errors(
        "subroutine s\n!$omp critical (a)\n!$omp end critical (b)\nend subroutine s\n",
        SourceForm::Free,
    );
    assert!(
        e.iter()
            .any(|m| m.starts_with("t.f90:3:1: error: `!$omp end critical (b)` does not match the open `!$omp critical (a)`")),
        "{e:?}"
    );
    let e = errors(
        "      SUBROUTINE S\nC$OMP SECTION\n      END\n",
        SourceForm::Fixed,
    );
    assert!(
        e[0].starts_with("t.f:2:1: error: `!$omp section` outside"),
        "{e:?}"
    );
}

#[test]
fn omp_only_matters_under_regions_omp() {
    // Without `omp` a malformed directive is the compiler's business.
    let src = "subroutine s\n!$omp end do\nend subroutine s\n";
    assert!(run_with(src, SourceForm::Free, "functions").is_ok());
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

fn instrumented(src: &str, form: SourceForm) -> Instrumented {
    run(src, form).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Lines of `text` from the one containing `from` up to the one
/// containing `to` (inclusive), trimmed.
fn between(text: &str, from: &str, to: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let a = lines
        .iter()
        .position(|l| l.contains(from))
        .unwrap_or_else(|| panic!("{from}\n{text}"));
    let b = a + lines[a..]
        .iter()
        .position(|l| l.contains(to))
        .unwrap_or_else(|| panic!("{to}\n{text}"));
    lines[a..=b].iter().map(|l| l.trim().to_string()).collect()
}

#[test]
fn block_syntax_gets_our_end_directive_after_end_block() {
    let src = "program p\n  integer :: s\n  s = 0\n  !$omp parallel shared(s)\n  block\n    integer :: k\n    k = 1\n    !$omp atomic\n    s = s + k\n  end block\n  print *, s\nend program p\n";
    let out = instrumented(src, SourceForm::Free);
    // The team variable is declared with the procedure's declarations,
    // never in the BLOCK.
    let decl = out
        .text
        .find("integer(8) :: regio__team1")
        .unwrap_or_else(|| panic!("{}", out.text));
    assert!(decl < out.text.find("s = 0").unwrap_or(0), "{}", out.text);
    let tail = between(&out.text, "end block", "regio_omp_join");
    assert_eq!(
        tail,
        [
            "end block",
            "call regio_enter(4)",
            "!$omp barrier",
            "call regio_exit(4)",
            "call regio_omp_end(regio__team1, 3)",
            "!$omp end parallel",
            "call regio_omp_join(regio__team1)"
        ],
        "{}",
        out.text
    );
    // The BLOCK's specification part is left alone.
    assert_eq!(
        between(&out.text, "  block", "k = 1"),
        ["block", "integer :: k", "k = 1"]
    );
}

#[test]
fn nothing_comes_between_atomic_its_statement_and_end_atomic() {
    let src = "program p\n  integer :: s, v\n  s = 0\n  !$omp atomic capture\n  v = s\n  s = s + 1\n  !$omp end atomic\n  !$omp atomic update\n  s = s + 1\n  !$omp end atomic\n  print *, s, v\nend program p\n";
    let out = instrumented(src, SourceForm::Free);
    assert_eq!(
        between(&out.text, "!$omp atomic capture", "!$omp end atomic"),
        [
            "!$omp atomic capture",
            "v = s",
            "s = s + 1",
            "!$omp end atomic"
        ]
    );
    assert_eq!(
        between(&out.text, "!$omp atomic update", "!$omp end atomic"),
        ["!$omp atomic update", "s = s + 1", "!$omp end atomic"]
    );
}

#[test]
fn target_regions_and_device_procedures_stay_as_written() {
    let src = "subroutine dev(x)\n  !$omp declare target\n  integer :: x, i\n  do i = 1, 2\n    x = x + 1\n  end do\nend subroutine dev\nprogram p\n  integer :: s, i\n  s = 0\n  !$omp target map(tofrom: s)\n  !$omp parallel do reduction(+:s)\n  do i = 1, 4\n    s = s + i\n  end do\n  !$omp end target\n  print *, s\nend program p\n";
    let out = instrumented(src, SourceForm::Free);
    assert_eq!(
        between(&out.text, "subroutine dev", "end subroutine dev").len(),
        7,
        "{}",
        out.text
    );
    assert_eq!(
        between(&out.text, "!$omp target", "!$omp end target"),
        [
            "!$omp target map(tofrom: s)",
            "!$omp parallel do reduction(+:s)",
            "do i = 1, 4",
            "s = s + i",
            "end do",
            "!$omp end target"
        ]
    );
    let listed: Vec<(String, &str)> = out
        .regions
        .iter()
        .filter_map(|r| Some((r.kind.to_string(), r.aux.get("not_measured")?.as_str()?)))
        .collect();
    assert_eq!(
        listed,
        [
            ("omp_declare_target".to_string(), omp::reason::DECLARATIVE),
            ("omp_target".to_string(), omp::reason::TARGET),
            ("omp_parallel_do".to_string(), omp::reason::IN_TARGET),
        ]
    );
}

#[test]
fn do_simd_keeps_simd_and_ends_with_end_do_simd_nowait() {
    let src = "program p\n  integer :: s, i\n  s = 0\n  !$omp parallel do simd reduction(+:s) private(i)\n  do i = 1, 4\n    s = s + i\n  end do\n  print *, s\nend program p\n";
    let out = instrumented(src, SourceForm::Free);
    let t = &out.text;
    assert!(
        t.contains("!$omp parallel private(i) firstprivate(regio__team1)"),
        "{t}"
    );
    assert!(t.contains("!$omp do simd reduction(+:s)\n"), "{t}");
    assert!(t.contains("!$omp end do simd nowait\n"), "{t}");
}

#[test]
fn taskloop_bodies_are_measured_unless_a_jump_would_skip_the_exit() {
    let src = "program p\n  integer :: s, i\n  s = 0\n  !$omp taskloop\n  do i = 1, 4\n    s = s + i\n  end do\n  !$omp taskloop\n  do i = 1, 4\n    if (i == 2) cycle\n    s = s + i\n  end do\n  print *, s\nend program p\n";
    let out = instrumented(src, SourceForm::Free);
    let kinds: Vec<String> = out.regions.iter().map(|r| r.kind.to_string()).collect();
    assert_eq!(kinds, ["omp_taskloop", "omp_taskloop_body", "omp_taskloop"]);
    assert!(!out.text.contains("barrier"), "{}", out.text);
}

#[test]
fn lock_tests_inside_expressions_are_measured_through_a_wrapper() {
    let src = "program t\n  use omp_lib\n  integer(omp_lock_kind) :: l\n  logical :: ok\n  ok = omp_test_lock(l)\n  if (omp_test_lock(l)) then\n    call omp_unset_lock(l)\n  end if\n  do while (.not. omp_test_nest_lock(l))\n  end do\n  if (my_omp_test_lock(l)) ok = .true.\n  ok = my_omp_test_lock(l)\nend program t\n";
    let out = run(src, SourceForm::Free).unwrap_or_else(|e| panic!("{e:?}"));
    let locks: Vec<(u32, &str)> = out
        .regions
        .iter()
        .filter(|r| r.kind.to_string() == "omp_lock")
        .map(|r| (r.id, r.name.as_str()))
        .collect();
    assert_eq!(
        locks.iter().map(|l| l.1).collect::<Vec<_>>(),
        ["omp_test_lock@5", "omp_test_lock@6", "omp_test_nest_lock@9"]
    );
    let text = &out.text;
    // Same length as the call it replaces: columns do not move.
    let (tl, tnl) = (locks[1].0, locks[2].0);
    let call = format!("if (regio_tl({tl},");
    let at = text.find(&call).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        &text[at + "if (".len()..][..14].trim_end(),
        &format!("regio_tl({tl},")
    );
    assert!(
        text.contains(&format!("do while (.not. regio_tnl({tnl},")),
        "{text}"
    );
    assert!(
        text.contains("logical :: regio_tl") && text.contains("integer :: regio_tnl"),
        "{text}"
    );
    // Someone else's function whose name ends the same way is left alone.
    assert!(text.contains("if (my_omp_test_lock(l))"), "{text}");
    assert!(text.contains("ok = my_omp_test_lock(l)"), "{text}");
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}

#[test]
fn a_lock_test_split_over_lines_is_named_in_a_warning() {
    let src = "      PROGRAM F\n      USE OMP_LIB\n      INTEGER(OMP_LOCK_KIND) L\n      IF (OMP_TEST_LOCK\n     &    (L)) PRINT *, 'X'\n      END\n";
    let out = run(src, SourceForm::Fixed).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(out.regions.iter().all(|r| r.kind.to_string() != "omp_lock"));
    let warned: Vec<(u32, bool)> = out
        .warnings
        .iter()
        .map(|w| (w.line, w.message.contains("is not measured")))
        .collect();
    assert_eq!(warned, [(4, true)], "{:?}", out.warnings);
}

#[test]
fn a_declare_target_list_in_a_module_leaves_the_named_procedures_alone() {
    let src = "module m\n  !$omp declare target(dev)\ncontains\n  subroutine dev(a)\n    integer :: a(4), i\n    do i = 1, 4\n      a(i) = i\n    end do\n  end subroutine dev\n  subroutine host(a)\n    integer :: a(4), i\n    do i = 1, 4\n      a(i) = i\n    end do\n  end subroutine host\nend module m\n";
    let out =
        run_with(src, SourceForm::Free, "omp,functions,loops").unwrap_or_else(|e| panic!("{e:?}"));
    let measured: Vec<String> = out
        .regions
        .iter()
        .filter(|r| !r.aux.contains_key("not_measured"))
        .map(|r| r.name.clone())
        .collect();
    assert!(measured.iter().any(|n| n == "host"), "{measured:?}");
    assert!(!measured.iter().any(|n| n == "dev"), "{measured:?}");
    let dev_body = &out.text[out.text.find("subroutine dev").unwrap_or(0)..][..out.text
        [out.text.find("subroutine dev").unwrap_or(0)..]
        .find("end subroutine dev")
        .unwrap_or(0)];
    assert!(!dev_body.contains("regio_"), "{dev_body}");
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

/// `!$omp enddo nowait` and friends end their constructs: no end
/// directive of Regio's own before them (which gfortran would reject as
/// "Unexpected !$OMP END DO").
#[test]
fn one_word_end_directives_close_their_constructs() {
    let free = "program p\n  integer :: i, s\n  s = 0\n!$omp paralleldo reduction(+:s)\n  do i = 1, 4\n    s = s + i\n  end do\n!$omp endparalleldo\n!$omp parallel\n!$omp do\n  do i = 1, 4\n  end do\n!$omp enddo nowait\n!$omp endparallel\nend program p\n";
    let out = run(free, SourceForm::Free).unwrap_or_else(|e| panic!("{e:?}"));
    // Two loops, the split `paralleldo`'s `end do nowait`, and the user's
    // `enddo nowait` alone.
    assert_eq!(out.text.matches("end do").count(), 3, "{}", out.text);
    assert_eq!(
        out.text.matches("!$omp end do nowait").count(),
        1,
        "{}",
        out.text
    );
    assert_eq!(
        out.text.matches("!$omp enddo nowait").count(),
        1,
        "{}",
        out.text
    );
    assert_eq!(
        out.text.matches("!$omp endparallel").count(),
        1,
        "{}",
        out.text
    );
    let fixed = "      PROGRAM P\n      INTEGER I\nC$OMP PARALLEL\nC$OMP DO\n      DO 10 I = 1, 4\n   10 CONTINUE\nC$OMP ENDDONOWAIT\nC$OMP END PARALLEL\nC$OMP PARALLELDO\n      DO 20 I = 1, 4\n   20 CONTINUE\nC$OMP END PARALLELDO\n      END\n";
    let out = run(fixed, SourceForm::Fixed).unwrap_or_else(|e| panic!("{e:?}"));
    let text = out.text.to_ascii_lowercase();
    assert_eq!(text.matches("$omp end do").count(), 1, "{}", out.text);
    assert_eq!(text.matches("$omp enddo").count(), 1, "{}", out.text);
}

/// `!$omp declare target` inside an interface body declares the
/// interface's procedure, not the program around the interface block: the
/// program is measured and registers its IDF (both source forms).
#[test]
fn declare_target_in_an_interface_body_leaves_the_program_measured() {
    let free = "program p\n  implicit none\n  interface\n    subroutine dev(x)\n      !$omp declare target\n      integer :: x\n    end subroutine dev\n  end interface\n  integer :: i, s\n  s = 0\n  do i = 1, 3\n    s = s + i\n  end do\n  print *, s\nend program p\n";
    let fixed = "      PROGRAM P\n      INTERFACE\n         SUBROUTINE DEV(X)\nC$OMP DECLARE TARGET\n         INTEGER X\n         END SUBROUTINE DEV\n      END INTERFACE\n      INTEGER I, S\n      S = 0\n      DO 10 I = 1, 3\n         S = S + I\n   10 CONTINUE\n      PRINT *, S\n      END\n";
    for (src, form) in [(free, SourceForm::Free), (fixed, SourceForm::Fixed)] {
        let out = run_with(src, form, "omp,functions,loops").unwrap_or_else(|e| panic!("{e:?}"));
        let measured: Vec<String> = out
            .regions
            .iter()
            .filter(|r| !r.aux.contains_key("not_measured"))
            .map(|r| r.kind.to_string())
            .collect();
        assert_eq!(measured, ["program", "loop"], "{:?}", out.regions);
        let t = out.text.to_ascii_lowercase();
        assert!(t.contains("call regio_register_idf("), "{}", out.text);
        assert!(t.contains("call regio_enter(1)"), "{}", out.text);
        // The interface body is left as written.
        let body = &t[t.find("interface").unwrap_or(0)..t.find("end interface").unwrap_or(0)];
        assert!(!body.contains("regio"), "{body}");
    }
}

/// Conditional-compilation lines are code with OpenMP: an `!$omp do`
/// binds to a loop written on them, and a jump on them that leaves a
/// region gets its exit probe on such a line too (so it runs only when
/// the jump exists); both source forms.
#[test]
fn conditional_lines_bind_loops_and_exit_regions() {
    let free = "subroutine s(n, k)\n  integer :: n, k, i\n!$omp parallel do\n!$ do i = 1, n\n!$   k = k + 1\n!$ end do\n!$omp end parallel do\n  do i = 1, n\n!$  if (i == 2) return\n    k = k + 1\n  end do\nend subroutine s\n";
    let out =
        run_with(free, SourceForm::Free, "omp,functions,loops").unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        out.text
            .contains("!$  if (i == 2) then; call regio_exit(1); return; end if"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("!$ end do\n!$omp end do nowait"),
        "{}",
        out.text
    );
    // The conditional loop is no loop region; the plain one is.
    let loops = out.regions.iter().filter(|r| r.kind.to_string() == "loop");
    assert_eq!(loops.count(), 1, "{:?}", out.regions);
    let fixed = "      SUBROUTINE S(N, K)\n      INTEGER N, K, I\nC$OMP PARALLEL DO\nC$    DO 10 I = 1, N\nC$       K = K + 1\nC$ 10 CONTINUE\nC$OMP END PARALLEL DO\n      DO 20 I = 1, N\n*$       IF (I .EQ. 2) RETURN\n         K = K + 1\n   20 CONTINUE\n      END\n";
    let out = run_with(fixed, SourceForm::Fixed, "omp,functions,loops")
        .unwrap_or_else(|e| panic!("{e:?}"));
    let lines: Vec<&str> = out.text.lines().filter(|l| !l.starts_with("# ")).collect();
    let k = lines
        .iter()
        .position(|l| l.starts_with("*$       IF (I .EQ. 2) THEN"))
        .unwrap_or_else(|| panic!("{}", out.text));
    assert_eq!(lines[k + 1], "!$    CALL REGIO_EXIT(1)", "{}", out.text);
    assert!(lines[k + 2].starts_with("!$") && lines[k + 2].ends_with("RETURN"));
    assert_eq!(lines[k + 3], "!$    END IF", "{}", out.text);
    assert!(lines.iter().all(|l| l.len() <= 72), "{}", out.text);
}
