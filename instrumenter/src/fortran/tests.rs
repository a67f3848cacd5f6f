//! Unit tests of the Fortran front end on small programs, and properties
//! checked on every program under `testdata/fortran`.

use super::*;
use crate::filter::Filter;
use crate::selection::Selection;

fn run_with(
    src: &str,
    form: SourceForm,
    regions: &str,
    filter: &Filter,
) -> Result<Instrumented, Vec<Diagnostic>> {
    let path = match form {
        SourceForm::Free => "t.f90",
        SourceForm::Fixed => "t.f",
    };
    let input = SourceInput {
        text: src,
        display_path: path,
        rel_path: path,
        idf_path: "/out/regio.idf.json",
        selection: regions.parse::<Selection>().unwrap_or_default(),
        filter,
        first_id: 1,
    };
    // Every problem as an error, also those that leave the file as written
    // (`instrument` turns them into warnings; see
    // `unreadable_files_are_left_as_written`).
    instrument_or_refuse(&input, form).map_err(|r| match r {
        Refusal::Directives(d) | Refusal::Unreadable(d) => d,
    })
}

#[test]
fn unreadable_files_are_left_as_written() {
    let src = "program p\n  integer :: i\n  i = (1 + 2\n  print *, i\nend program p\n";
    let input = SourceInput {
        text: src,
        display_path: "t.f90",
        rel_path: "t.f90",
        idf_path: "/out/regio.idf.json",
        selection: Selection::default(),
        filter: &Filter::default(),
        first_id: 7,
    };
    let out = instrument(&input, SourceForm::Free).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(out.text, src);
    let w: Vec<String> = out.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        w,
        ["t.f90:3:7: warning: not measured: this file left as written (unbalanced parentheses in this statement)"]
    );
    assert_eq!(out.regions.len(), 1);
    assert_eq!(out.regions[0].id, 7);
    assert!(out.regions[0].aux.contains_key("not_measured"));

    // Directive errors still refuse the file.
    let bad = "program p\n!$regio end nothing\nend program p\n";
    let input = SourceInput { text: bad, ..input };
    assert!(instrument(&input, SourceForm::Free).is_err());
}

pub(super) fn run(
    src: &str,
    form: SourceForm,
    regions: &str,
) -> Result<Instrumented, Vec<Diagnostic>> {
    run_with(src, form, regions, &Filter::default())
}

fn ok(src: &str, form: SourceForm, regions: &str) -> Instrumented {
    match run(src, form, regions) {
        Ok(r) => r,
        Err(e) => panic!("{e:?}"),
    }
}

/// Lines of `out` without the line markers.
fn code_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| !l.starts_with("# ")).collect()
}

#[test]
fn suffixes_pick_the_source_form() {
    use std::path::Path;
    for (p, f) in [
        ("a.f90", Some(SourceForm::Free)),
        ("a.F90", Some(SourceForm::Free)),
        ("a.f08", Some(SourceForm::Free)),
        ("a.f", Some(SourceForm::Fixed)),
        ("a.F", Some(SourceForm::Fixed)),
        ("a.FOR", Some(SourceForm::Fixed)),
        ("a.f77", Some(SourceForm::Fixed)),
        ("a.c", None),
        ("a.inc", None),
    ] {
        assert_eq!(form_for_path(Path::new(p)), f, "{p}");
    }
}

#[test]
fn free_form_probes_share_the_statement_line() {
    let src = "subroutine s(n)\n  integer :: n, i\n  do i = 1, n\n    if (i > 2) return\n  end do\nend subroutine s\n";
    let out = ok(src, SourceForm::Free, "functions,loops");
    assert_eq!(out.regions.len(), 2);
    let lines = code_lines(&out.text);
    // Every original line is still at its own line number.
    assert_eq!(lines.len(), src.lines().count());
    assert_eq!(
        lines[2],
        "  external :: regio_enter, regio_exit; call regio_enter(1); call regio_enter(2); do i = 1, n"
    );
    assert_eq!(
        lines[3],
        "    if (i > 2) then; call regio_exit(1); return; end if"
    );
    assert_eq!(lines[4], "  end do; call regio_exit(2)");
    assert_eq!(lines[5], "call regio_exit(1); end subroutine s");
}

#[test]
fn statement_functions_stay_first_and_declarations_precede_them() {
    let src = "      REAL FUNCTION F(X)\n      REAL X, SQ, Y\n      SQ(Y) = Y*Y\n      F = SQ(X)\n      END\n";
    let out = ok(src, SourceForm::Fixed, "functions");
    let t = &out.text;
    let ext = t.find("EXTERNAL REGIO_ENTER").unwrap_or(usize::MAX);
    let stf = t.find("SQ(Y) = Y*Y").unwrap_or(0);
    let enter = t.find("CALL REGIO_ENTER(1)").unwrap_or(0);
    assert!(ext < stf && stf < enter, "{t}");
}

#[test]
fn pure_and_elemental_procedures_are_listed_not_instrumented() {
    let src = "pure integer function f(x)\n  integer, intent(in) :: x\n  f = x\nend function f\nimpure elemental subroutine g(x)\n  integer, intent(inout) :: x\n  x = x + 1\nend subroutine g\n";
    let out = ok(src, SourceForm::Free, "functions,loops");
    assert_eq!(out.regions.len(), 2);
    assert_eq!(
        out.regions[0].aux.get("instrumented"),
        Some(&serde_json::Value::Bool(false))
    );
    assert!(out.regions[0].aux.get("reason").is_some());
    // IMPURE ELEMENTAL may call the probes.
    assert!(out.regions[1].aux.get("reason").is_none());
    assert!(out.text.contains("  f = x\n"));
    assert!(out.text.contains("call regio_enter(2); x = x + 1"));
}

#[test]
fn filters_and_skip_remove_regions() {
    let src = "program p\n  integer :: i\n  !$regio skip\n  do i = 1, 2\n  end do\n  do i = 1, 3\n  end do\n  call q()\ncontains\n  subroutine q()\n  end subroutine q\nend program p\n";
    let filter = Filter::parse("f", "exclude region q\n").unwrap_or_default();
    let out = match run_with(src, SourceForm::Free, "functions,loops", &filter) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    };
    let names: Vec<&str> = out.regions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["p", "do@6"]);
    assert_eq!(out.regions[1].id, 2);
}

#[test]
fn conditional_compilation_and_include_lines_stay_intact() {
    let src = "program p\n!$ use omp_lib\n  implicit none\n  include 'consts.h'\n!$ integer :: n\n!$ n = 2\n  print *, 'x'\nend program p\n";
    let out = ok(src, SourceForm::Free, "functions");
    for l in src.lines() {
        if l.starts_with("!$") || l.contains("include") {
            assert!(
                out.text.lines().any(|o| o == l),
                "`{l}` changed:\n{}",
                out.text
            );
        }
    }
    // Declarations and the entry probe come before the conditional
    // statement (code when compiled with OpenMP).
    let enter = out.text.find("call regio_enter").unwrap_or(usize::MAX);
    assert!(
        enter < out.text.find("!$ n = 2").unwrap_or(0),
        "{}",
        out.text
    );
}

#[test]
fn include_fragments_and_modules_without_procedures_are_left_alone() {
    let frag = "      COMMON /B/ X\n      X = 1\n";
    let out = ok(frag, SourceForm::Fixed, "functions,loops");
    assert_eq!(out.text, frag);
    assert!(out.regions.is_empty());
    assert_eq!(out.warnings.len(), 1);
    let module = "module m\n  integer :: k = 1\nend module m\n";
    let out = ok(module, SourceForm::Free, "all");
    assert_eq!(out.text, module);
}

#[test]
fn long_free_form_lines_get_probes_on_lines_of_their_own() {
    let long = format!("  x = {}", "1 + ".repeat(30) + "1");
    let src = format!("subroutine s(x)\n  integer :: x\n{long}\nend subroutine s\n");
    let out = ok(&src, SourceForm::Free, "functions");
    assert!(
        out.text
            .contains(&format!("  call regio_enter(1)\n# 3 \"t.f90\"\n{long}\n")),
        "{}",
        out.text
    );
    assert!(out.text.lines().all(|l| l.len() <= 132 || l == long));
}

#[test]
fn fixed_form_relabel_that_would_pass_column_72_is_an_error() {
    // Labels 1-9 are taken, so the shared loops need wider labels; the DO
    // statement already ends at column 72.
    let mut src = String::from("      SUBROUTINE S(A)\n      REAL A(9,9)\n");
    let pad = " ".repeat(72 - "      DO 1 I = 1, 9".len() - 1);
    src.push_str(&format!("      DO 1 I = 1, 9{pad}1\n"));
    src.push_str("      DO 1 J = 1, 9\n    1 A(I,J) = 0\n");
    for l in 2..=9 {
        src.push_str(&format!("    {l} CONTINUE\n"));
    }
    src.push_str("      END\n");
    let err = match run(&src, SourceForm::Fixed, "loops") {
        Ok(o) => panic!("accepted:\n{}", o.text),
        Err(e) => e,
    };
    assert!(err[0].to_string().starts_with("t.f:3:"), "{err:?}");
    assert!(err[0].message.contains("column 72"));
}

#[test]
fn entry_among_declarations_is_counted_under_its_procedure() {
    let src = "      SUBROUTINE S(N)\n      ENTRY E(N)\n      INTEGER N\n      N = 1\n      END\n";
    let out = ok(src, SourceForm::Fixed, "functions");
    assert_eq!(out.regions.len(), 1);
    assert!(out.warnings[0]
        .message
        .contains("ENTRY among the declarations"));
}

#[test]
fn a_main_program_without_program_statement_is_a_region() {
    let src = "      X = 1\n      PRINT *, X\n      END\n";
    let out = ok(src, SourceForm::Fixed, "functions");
    assert_eq!(out.regions[0].name, "main");
    assert!(out
        .text
        .contains("CALL REGIO_REGISTER_IDF('/out/regio.idf.json')"));
}

#[test]
fn long_idf_paths_are_split_within_the_line_limits() {
    let dir = "/very/long/directory/name/that/goes/on/and/on/".repeat(5);
    let idf = format!("{dir}regio.idf.json");
    let filter = Filter::default();
    for (src, form, limit) in [
        (
            "program p\n  print *, 1\nend program p\n",
            SourceForm::Free,
            132,
        ),
        (
            "      PROGRAM P\n      PRINT *, 1\n      END\n",
            SourceForm::Fixed,
            72,
        ),
    ] {
        let input = SourceInput {
            text: src,
            display_path: "p",
            rel_path: "p",
            idf_path: &idf,
            selection: Selection::default(),
            filter: &filter,
            first_id: 1,
        };
        let out = match instrument(&input, form) {
            Ok(o) => o.text,
            Err(e) => panic!("{e:?}"),
        };
        assert!(code_lines(&out).iter().all(|l| l.len() <= limit), "{out}");
        let joined: String = out
            .lines()
            .filter(|l| l.contains('\''))
            .flat_map(|l| l.split('\'').skip(1).step_by(2))
            .collect();
        assert_eq!(joined, idf);
    }
}

fn testdata() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/fortran");
    let mut out = Vec::new();
    for d in ["free", "fixed"] {
        if let Ok(rd) = std::fs::read_dir(root.join(d)) {
            out.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| form_for_path(p).is_some()),
            );
        }
    }
    out.sort();
    out
}

/// Every line the front end writes in fixed form obeys the column rules,
/// and every output parses again as the same source form.
#[test]
fn outputs_keep_the_form_rules_and_parse_again() {
    let files = testdata();
    assert!(!files.is_empty());
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap_or_default();
        let form = form_for_path(&f).unwrap_or(SourceForm::Free);
        for regions in ["functions,loops,user", "all"] {
            let out = ok(&src, form, regions).text;
            let original: std::collections::HashSet<&str> = src.lines().collect();
            for l in out.lines() {
                if original.contains(l) || l.starts_with("# ") {
                    continue;
                }
                if form == SourceForm::Fixed {
                    // New or edited line: within column 72, or an edited
                    // original whose tail (a comment) is unchanged.
                    let same_tail = original
                        .iter()
                        .any(|o| o.len() == l.len() && o.len() > 72 && o[72..] == l[72..]);
                    assert!(l.len() <= 72 || same_tail, "{}: `{l}`", f.display());
                } else {
                    let longest = src.lines().map(str::len).max().unwrap_or(0);
                    assert!(l.len() <= 132.max(longest), "{}: `{l}`", f.display());
                }
            }
            let again = scan::scan(&out, form, "again").unwrap_or_else(|e| panic!("{e:?}"));
            let kinds: Vec<Option<Kind>> = again
                .items
                .iter()
                .map(|it| match it {
                    Item::Stmt(s) => Some(syntax::classify(s, form == SourceForm::Fixed)),
                    Item::Regio(_) | Item::Omp(_) => None,
                })
                .collect();
            if let Err(e) = structure::build(&out, "again", &again.items, &kinds) {
                panic!("{}: output does not parse: {e:?}\n{out}", f.display());
            }
        }
    }
}

/// `REGIO_F_IN=a.f90 REGIO_F_OUT=b.f90 cargo test -p instrument --lib dev_dump -- --ignored`
#[test]
#[ignore]
fn dev_dump() {
    let (Ok(inp), Ok(out)) = (std::env::var("REGIO_F_IN"), std::env::var("REGIO_F_OUT")) else {
        return;
    };
    let regions =
        std::env::var("REGIO_F_REGIONS").unwrap_or_else(|_| "functions,loops,user".into());
    let src = std::fs::read_to_string(&inp).unwrap_or_default();
    let form = form_for_path(std::path::Path::new(&inp)).unwrap_or(SourceForm::Free);
    let filter = Filter::default();
    let input = SourceInput {
        text: &src,
        display_path: &inp,
        rel_path: &inp,
        idf_path: "/tmp/regio.idf.json",
        selection: regions.parse().unwrap_or_default(),
        filter: &filter,
        first_id: 1,
    };
    match instrument(&input, form) {
        Ok(r) => {
            let _ = std::fs::write(&out, r.text);
            for w in r.warnings {
                eprintln!("{w}");
            }
            for g in r.regions {
                eprintln!(
                    "{} {} {} {}:{}-{}:{} parent={:?} {:?}",
                    g.id,
                    g.kind,
                    g.name,
                    g.start.line,
                    g.start.col,
                    g.end.line,
                    g.end.col,
                    g.parent,
                    g.aux
                );
            }
        }
        Err(e) => {
            for d in e {
                eprintln!("{d}");
            }
            panic!("failed");
        }
    }
}
