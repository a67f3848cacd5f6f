//! Golden tests of the programs the end-to-end tests build and run: the
//! instrumented text and IDF lines of every source in testdata/mpi/
//! (`--regions mpi`), testdata/omp/ and testdata/omp5/ (`--regions
//! omp,functions,loops`; the C and the Fortran programs of omp5 in tests
//! of their own), and the Rust sources of
//! testdata/rust/ (`--regions functions,loops,user`), as insta snapshots.

use std::path::{Path, PathBuf};

use regio_instrumenter::filter::Filter;
use regio_instrumenter::frontend::{Instrumented, SourceInput};
use regio_instrumenter::selection::Selection;
use regio_instrumenter::{c, fortran, rust};

const IDF_PATH: &str = "/regio-out/regio.idf.json";

fn testdata(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(dir)
}

fn instrument(dir: &str, name: &str, regions: &str) -> Instrumented {
    let path = testdata(dir).join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let filter = Filter::default();
    let display = format!("testdata/{dir}/{name}");
    let input = SourceInput {
        text: &text,
        display_path: &display,
        rel_path: name,
        idf_path: IDF_PATH,
        selection: regions.parse::<Selection>().unwrap(),
        filter: &filter,
        first_id: 1,
    };
    let out = if name.ends_with(".c") {
        c::instrument(&input)
    } else if name.ends_with(".rs") {
        rust::instrument(&input)
    } else {
        let form = fortran::form_for_path(&path).unwrap();
        fortran::instrument(&input, form)
    };
    out.unwrap_or_else(|es| panic!("{name}: {es:?}"))
}

/// One line per region: id, kind, name, position, parent, aux.
fn idf_lines(out: &Instrumented) -> String {
    out.regions
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {}:{}-{}:{} parent={:?} {}\n",
                r.id,
                r.kind,
                r.name,
                r.start.line,
                r.start.col,
                r.end.line,
                r.end.col,
                r.parent,
                serde_json::Value::Object(r.aux.clone())
            )
        })
        .collect()
}

/// Every source language the front ends read.
const ALL: &[&str] = &[".c", ".f90", ".f", ".rs"];

fn programs_instrument_as_recorded(dir: &str, regions: &str) {
    programs_with_suffixes_instrument_as_recorded(dir, regions, ALL)
}

fn programs_with_suffixes_instrument_as_recorded(dir: &str, regions: &str, suffixes: &[&str]) {
    let mut names: Vec<String> = std::fs::read_dir(testdata(dir))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| suffixes.iter().any(|s| n.ends_with(s)))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no programs in testdata/{dir}");
    for name in names {
        let out = instrument(dir, &name, regions);
        // Rust regions describe themselves at run time: no IDF regions.
        assert!(
            !out.regions.is_empty() || name.ends_with(".rs"),
            "{dir}/{name}: no regions"
        );
        let snap = format!("{}__{name}", dir.replace('/', "__"));
        insta::assert_snapshot!(format!("{snap}.inst"), out.text);
        let warnings: Vec<String> = out.warnings.iter().map(|w| w.to_string()).collect();
        if !warnings.is_empty() {
            insta::assert_snapshot!(format!("{snap}.warnings"), warnings.join("\n"));
        }
        if !name.ends_with(".rs") {
            insta::assert_snapshot!(format!("{snap}.idf"), idf_lines(&out));
        }
    }
}

#[test]
fn rust_sources_instrument_as_recorded() {
    programs_instrument_as_recorded("rust/instrument", "functions,loops,user");
    programs_instrument_as_recorded("rust/smallcrate/src", "functions,loops,user");
}

#[test]
fn mpi_programs_instrument_as_recorded() {
    programs_instrument_as_recorded("mpi", "mpi");
}

#[test]
fn omp_programs_instrument_as_recorded() {
    programs_instrument_as_recorded("omp", "omp,functions,loops");
}

#[test]
fn omp5_c_programs_instrument_as_recorded() {
    programs_with_suffixes_instrument_as_recorded("omp5", "omp,functions,loops", &[".c"]);
}

/// Free and fixed form, also the program gfortran 12 cannot compile
/// (passthrough.f90): its text is what the Fortran front end must keep.
#[test]
fn omp5_fortran_programs_instrument_as_recorded() {
    programs_with_suffixes_instrument_as_recorded("omp5", "omp,functions,loops", &[".f90", ".f"]);
}
