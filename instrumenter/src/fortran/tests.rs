//! Properties of the Fortran front end checked on every program under
//! `testdata/fortran`, and the helpers the OpenMP unit tests share. Small
//! programs (probes, errors, warnings) are golden fixtures:
//! instrumenter/tests/golden/fixtures/fortran/.

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

/// `REGIO_F_IN=a.f90 REGIO_F_OUT=b.f90 cargo test -p regio-instrumenter --lib dev_dump -- --ignored`
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
