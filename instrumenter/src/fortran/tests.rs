//! Unit tests of the Fortran front end on small programs.

use super::*;
use crate::filter::Filter;
use crate::selection::Selection;

fn run(src: &str, form: SourceForm, regions: &str) -> Result<Instrumented, Vec<Diagnostic>> {
    let filter = Filter::default();
    let input = SourceInput {
        text: src,
        display_path: "t.f90",
        rel_path: "t.f90",
        idf_path: "/out/regio.idf.json",
        selection: regions.parse::<crate::selection::Selection>().unwrap_or(Selection::default()),
        filter: &filter,
        first_id: 1,
    };
    instrument(&input, form)
}

#[test]
fn free_form_smoke() {
    let src = "program p\n  integer :: i\n  do i = 1, 3\n    print *, i\n  end do\nend program p\n";
    let out = run(src, SourceForm::Free, "functions,loops").unwrap();
    println!("{}", out.text);
    assert_eq!(out.regions.len(), 2);
}

/// `REGIO_F_IN=a.f90 REGIO_F_OUT=b.f90 cargo test -p instrument --lib dev_dump -- --ignored`
#[test]
#[ignore]
fn dev_dump() {
    let (Ok(inp), Ok(out)) = (std::env::var("REGIO_F_IN"), std::env::var("REGIO_F_OUT")) else {
        return;
    };
    let regions = std::env::var("REGIO_F_REGIONS").unwrap_or_else(|_| "functions,loops,user".into());
    let src = std::fs::read_to_string(&inp).unwrap();
    let form = form_for_path(std::path::Path::new(&inp)).unwrap();
    let filter = Filter::default();
    let input = SourceInput {
        text: &src,
        display_path: &inp,
        rel_path: &inp,
        idf_path: "/tmp/regio.idf.json",
        selection: regions.parse().unwrap(),
        filter: &filter,
        first_id: 1,
    };
    match instrument(&input, form) {
        Ok(r) => {
            std::fs::write(&out, r.text).unwrap();
            for w in r.warnings {
                eprintln!("{w}");
            }
            for g in r.regions {
                eprintln!("{} {} {} {}:{}-{}:{} parent={:?} {:?}", g.id, g.kind, g.name, g.start.line, g.start.col, g.end.line, g.end.col, g.parent, g.aux);
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
