//! Trace mode from Fortran (testdata/events/trace.f90, REGIO_MODE=trace):
//! the trace files decode, enter/exit records nest strictly per thread
//! and each region's enter records equal the calls known by construction
//! (and the profile's); `instrument export --format perfetto` gives one
//! begin per enter and every begin its end in order; with `otf2-print`
//! installed, the OTF2 export's ENTER/LEAVE lines nest too (SKIPPED
//! otherwise). Without gfortran: SKIPPED (REGIO_REQUIRE_TOOLCHAINS=1 fails).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use regio_trace_format::{decode, Event, TraceFile};
use serde_json::Value;

use crate::common::{
    instrument_bin, instrument_flags, instrument_testdata, require_tool, run, run_ok, TestDir,
};

/// The run directory's trace files, decoded.
fn traces(run_dir: &Path) -> Vec<(String, TraceFile)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(run_dir).unwrap_or_else(|e| panic!("{e}")) {
        let path = e.unwrap_or_else(|e| panic!("{e}")).path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".rtrace") {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            out.push((
                name.clone(),
                decode(&data).unwrap_or_else(|e| panic!("{name}: {e}")),
            ));
        }
    }
    out
}

/// Region names by id, from the IDF copied into the run directory.
fn names(run_dir: &Path) -> BTreeMap<u32, String> {
    let text = std::fs::read_to_string(run_dir.join("regio.idf.json"))
        .unwrap_or_else(|e| panic!("regio.idf.json: {e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    v["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["id"].as_u64().unwrap_or(0) as u32,
                r["name"].as_str().unwrap_or("").to_lowercase(),
            )
        })
        .collect()
}

#[test]
fn fortran_program_trace_nests_and_exports() {
    if !require_tool("gfortran", "gfortran") {
        return;
    }
    let tmp = TestDir::new("trace-fortran");
    let inst = instrument_testdata(&tmp, "events", "trace.f90", "functions");
    let exe = tmp.join("prog");
    run_ok(
        Command::new("gfortran")
            .args(instrument_flags("--fflags"))
            .arg(inst.join("trace.f90"))
            .args(instrument_flags("--libs"))
            .arg("-o")
            .arg(&exe),
    );
    let run_dir = tmp.join("run");
    let r = run(Command::new(&exe)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env_remove("REGIO_EVENTS")
        .env_remove("REGIO_FILTER")
        .env_remove("REGIO_SNAPSHOT")
        .env("REGIO_MODE", "trace")
        .env("REGIO_DIR", &run_dir));
    assert_eq!(r.code(), Some(0), "{}", r.describe());
    assert_eq!(r.stdout.trim(), "60.0");

    let names = names(&run_dir);
    let files = traces(&run_dir);
    assert_eq!(files.len(), 1, "one thread, one file");
    let (file, trace) = &files[0];
    // Strict nesting, and the enters per region.
    let mut open: Vec<u32> = Vec::new();
    let mut enters: BTreeMap<String, u64> = BTreeMap::new();
    let mut max_depth = 0;
    let mut inner_j: Vec<f64> = Vec::new();
    let inner_j_id = trace
        .strings()
        .into_iter()
        .find(|(_, s)| *s == "inner_j")
        .map(|(id, _)| id);
    for (i, rec) in trace.records.iter().enumerate() {
        match rec.event {
            Event::Enter { region } => {
                open.push(region);
                max_depth = max_depth.max(open.len());
                // Fortran ids carry their object's base: the IDF has the
                // local id.
                let local = region % regio_idf::rundir::OBJECT_ID_STRIDE;
                let name = names.get(&local).cloned().unwrap_or_default();
                *enters.entry(name).or_default() += 1;
            }
            Event::Exit { region } => {
                let top = open.pop();
                assert_eq!(top, Some(region), "{file}: record {i}: exit of {region}");
            }
            Event::User { name, value } if Some(name) == inner_j_id => inner_j.push(value),
            _ => {}
        }
    }
    assert!(open.is_empty(), "{file}: ends with {open:?} open");
    assert_eq!(max_depth, 3, "tracef > outer > inner");
    let want: BTreeMap<String, u64> = [("tracef", 1), ("outer", 3), ("inner", 12)]
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
    assert_eq!(enters, want);
    let want_j: Vec<f64> = (0..3).flat_map(|_| (1..=4).map(f64::from)).collect();
    assert_eq!(inner_j, want_j, "user event values in order");

    // Perfetto: a begin per enter, every end closes the last begin.
    let json = tmp.join("t.json");
    run_ok(
        Command::new(instrument_bin())
            .args(["export", "--format", "perfetto"])
            .arg(&run_dir)
            .arg("--out")
            .arg(&json),
    );
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut stack: Vec<String> = Vec::new();
    let mut begins: BTreeMap<String, u64> = BTreeMap::new();
    for e in v["traceEvents"].as_array().into_iter().flatten() {
        match e["ph"].as_str() {
            Some("B") => {
                let name = e["name"].as_str().unwrap_or("").to_lowercase();
                *begins.entry(name.clone()).or_default() += 1;
                stack.push(name);
            }
            Some("E") => assert!(stack.pop().is_some(), "an end without a begin"),
            _ => {}
        }
    }
    assert!(stack.is_empty(), "begins without end: {stack:?}");
    assert_eq!(begins, want, "perfetto begins per region");

    // OTF2, when the tools are there.
    if require_tool("otf2-print", "otf2-tools") {
        let archive = tmp.join("t.otf2");
        run_ok(
            Command::new(instrument_bin())
                .args(["export", "--format", "otf2"])
                .arg(&run_dir)
                .arg("--out")
                .arg(&archive),
        );
        let printed = run_ok(Command::new("otf2-print").arg(archive.join("traces.otf2")));
        let mut depth: i64 = 0;
        let mut entered = 0;
        for l in printed.stdout.lines() {
            if l.starts_with("ENTER ") {
                depth += 1;
                entered += 1;
            } else if l.starts_with("LEAVE ") {
                depth -= 1;
                assert!(depth >= 0, "LEAVE without ENTER:\n{}", printed.stdout);
            }
        }
        assert_eq!(depth, 0, "ENTER without LEAVE");
        assert_eq!(entered, 16, "otf2-print ENTER lines");
    }
}
