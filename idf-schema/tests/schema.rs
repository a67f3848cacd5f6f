//! The JSON Schema kept in `schema/regio.idf.schema.json` must describe
//! exactly what the Rust types read and write: it is generated from them
//! (schemars) and compared with the checked-in copy, and sample documents,
//! good and broken, must get the same verdict from the schema and from serde.

use std::path::PathBuf;

use regio_idf::idf::FORMAT_VERSION;
use regio_idf::kind::KIND_PATTERN;
use regio_idf::{Header, Idf, Pos, Region, RegionKind, SourceFile};
use serde_json::{json, Value};

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema/regio.idf.schema.json")
}

/// schemars marks `u32` only with `format: uint32`, which validators do not
/// enforce by default; serde refuses values above `u32::MAX`, so the schema
/// says so too.
fn bound_u32(schema: &mut schemars::Schema) {
    if schema.get("format").and_then(Value::as_str) == Some("uint32") {
        schema.insert("maximum".into(), json!(u32::MAX));
    }
    schemars::transform::transform_subschemas(&mut bound_u32, schema);
}

fn generated_schema() -> String {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .with_transform(bound_u32)
        .into_generator()
        .into_root_schema_for::<Idf>();
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}

fn blessing() -> bool {
    std::env::var_os("REGIO_BLESS").is_some_and(|v| v == "1")
}

fn checked_in_schema() -> Value {
    if blessing() {
        // The file is being rewritten by another test right now.
        return serde_json::from_str(&generated_schema()).expect("generated schema is JSON");
    }
    let path = schema_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (regenerate: REGIO_BLESS=1 cargo test -p regio-idf --test schema)",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&checked_in_schema()).expect("the checked-in schema compiles")
}

#[test]
fn checked_in_schema_matches_the_types() {
    let path = schema_path();
    let generated = generated_schema();
    if blessing() {
        std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{} is out of date with the IDF types in src/.\n\
         Regenerate it with: REGIO_BLESS=1 cargo test -p regio-idf --test schema\n\
         --- generated ---\n{generated}",
        path.display()
    );
}

#[test]
fn schema_is_draft_2020_12_and_kind_is_a_patterned_string() {
    let schema = checked_in_schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let kind = &schema["$defs"]["RegionKind"];
    assert_eq!(kind["type"], "string", "{kind}");
    assert_eq!(kind["pattern"], KIND_PATTERN);
    assert_eq!(
        KIND_PATTERN,
        "^(program|function|loop|call|io|user|omp_[a-z0-9_]+|mpi_[a-z0-9_]+)$"
    );
    assert_eq!(
        schema["$defs"]["Region"]["properties"]["kind"]["$ref"],
        "#/$defs/RegionKind"
    );
}

fn region(
    id: u32,
    kind: &str,
    name: &str,
    parent: Option<u32>,
    start: (u32, u32),
    end: (u32, u32),
) -> Region {
    Region {
        id,
        kind: kind.parse().expect("sample kinds are valid"),
        name: name.into(),
        file: "src/solver.c".into(),
        unit: if kind == "program" || kind == "function" {
            String::new()
        } else {
            "main".into()
        },
        start: Pos::new(start.0, start.1),
        end: Pos::new(end.0, end.1),
        parent,
        aux: Default::default(),
    }
}

/// An IDF with every kind family, aux objects and options, valid by
/// [`Idf::validate`] as well.
fn sample_idf() -> Idf {
    let mut options = serde_json::Map::new();
    options.insert(
        "regions".into(),
        json!(["functions", "loops", "omp", "mpi", "user"]),
    );
    options.insert("filter".into(), Value::Null);
    let mut regions = vec![
        region(1, "program", "main", None, (3, 1), (60, 2)),
        region(2, "mpi_init", "MPI_Init", Some(1), (5, 5), (5, 30)),
        region(3, "omp_parallel", "parallel", Some(1), (7, 1), (30, 6)),
        region(4, "omp_for", "for", Some(3), (9, 5), (20, 6)),
        region(5, "loop", "for i", Some(4), (10, 5), (19, 6)),
        region(
            6,
            "omp_implicit_barrier",
            "implicit barrier",
            Some(3),
            (30, 5),
            (30, 6),
        ),
        region(
            7,
            "mpi_allreduce",
            "MPI_Allreduce",
            Some(1),
            (32, 5),
            (32, 60),
        ),
        region(8, "user", "exchange", Some(1), (34, 1), (40, 1)),
        region(9, "io", "fprintf", Some(1), (42, 5), (42, 40)),
        region(10, "call", "solve", Some(1), (44, 5), (44, 20)),
        region(11, "function", "solve", None, (62, 1), (80, 2)),
    ];
    regions[1].aux.insert("call".into(), json!("MPI_Init"));
    regions[2].aux.insert(
        "clauses".into(),
        json!({"num_threads": "4", "shared": ["a", "b"]}),
    );
    regions[3].aux.insert("schedule".into(), json!("static"));
    regions[4].aux.insert("variable".into(), json!("i"));
    regions[6].aux.insert(
        "call".into(),
        json!({"name": "MPI_Allreduce", "op": "MPI_SUM", "count": 1}),
    );
    Idf {
        header: Header {
            format_version: FORMAT_VERSION,
            tool: "instrument".into(),
            tool_version: "0.1.0".into(),
            options,
            files: vec![SourceFile {
                path: "src/solver.c".into(),
                original: "/home/u/proj/src/solver.c".into(),
                hash: "sha256:0123abcd".into(),
                lines: 80,
                max_line_len: 72,
            }],
        },
        regions,
    }
}

fn sample_value() -> Value {
    serde_json::to_value(sample_idf()).expect("an IDF serialises")
}

/// The schema and serde must agree on every document.
fn assert_same_verdict(v: &jsonschema::Validator, doc: &Value, expect_valid: bool, what: &str) {
    let schema_ok = v.is_valid(doc);
    let serde_ok = serde_json::from_value::<Idf>(doc.clone()).is_ok();
    let errors: Vec<String> = v.iter_errors(doc).map(|e| e.to_string()).collect();
    assert_eq!(
        schema_ok, expect_valid,
        "{what}: schema verdict; errors: {errors:?}"
    );
    assert_eq!(serde_ok, expect_valid, "{what}: serde verdict");
}

#[test]
fn sample_idfs_validate_against_the_schema() {
    let v = validator();
    let idf = sample_idf();
    idf.validate().expect("the sample is a valid IDF");
    assert_same_verdict(&v, &sample_value(), true, "full sample");

    // `aux` may be left out (serde default) and the region list may be empty.
    let mut doc = sample_value();
    doc["regions"][0]
        .as_object_mut()
        .expect("object")
        .remove("aux");
    assert_same_verdict(&v, &doc, true, "region without aux");
    let mut doc = sample_value();
    doc["regions"] = json!([]);
    assert_same_verdict(&v, &doc, true, "no regions");

    // The pretty text the crate writes is what the schema checks too.
    let text: Value = serde_json::from_str(&idf.to_json()).expect("to_json is JSON");
    assert!(v.is_valid(&text));
}

/// Turns the valid sample into a broken document.
type Breaker = Box<dyn Fn(&mut Value)>;

#[test]
fn broken_documents_are_rejected() {
    let v = validator();
    let cases: Vec<(&str, Breaker)> = vec![
        (
            "missing region name",
            Box::new(|d| {
                d["regions"][0]
                    .as_object_mut()
                    .expect("object")
                    .remove("name");
            }),
        ),
        (
            "missing header",
            Box::new(|d| {
                d.as_object_mut().expect("object").remove("header");
            }),
        ),
        (
            "missing file hash",
            Box::new(|d| {
                d["header"]["files"][0]
                    .as_object_mut()
                    .expect("object")
                    .remove("hash");
            }),
        ),
        (
            "kind Function",
            Box::new(|d| d["regions"][1]["kind"] = json!("Function")),
        ),
        (
            "kind omp_ without construct",
            Box::new(|d| d["regions"][1]["kind"] = json!("omp_")),
        ),
        (
            "kind mpi_Send",
            Box::new(|d| d["regions"][1]["kind"] = json!("mpi_Send")),
        ),
        (
            "kind as number",
            Box::new(|d| d["regions"][1]["kind"] = json!(3)),
        ),
        (
            "negative id",
            Box::new(|d| d["regions"][0]["id"] = json!(-1)),
        ),
        (
            "id above u32",
            Box::new(|d| d["regions"][0]["id"] = json!(u64::from(u32::MAX) + 1)),
        ),
        (
            "negative parent",
            Box::new(|d| d["regions"][1]["parent"] = json!(-4)),
        ),
        (
            "fractional line",
            Box::new(|d| d["regions"][1]["start"]["line"] = json!(2.5)),
        ),
        (
            "line as string",
            Box::new(|d| d["regions"][1]["end"]["line"] = json!("5")),
        ),
        (
            "aux not an object",
            Box::new(|d| d["regions"][1]["aux"] = json!(["MPI_Init"])),
        ),
        (
            "options not an object",
            Box::new(|d| d["header"]["options"] = json!("functions")),
        ),
        (
            "regions not an array",
            Box::new(|d| d["regions"] = json!({})),
        ),
    ];
    for (what, break_it) in cases {
        let mut doc = sample_value();
        break_it(&mut doc);
        assert_same_verdict(&v, &doc, false, what);
    }
}

#[test]
fn kind_pattern_accepts_exactly_what_region_kind_parses() {
    let v = validator();
    for kind in [
        "program",
        "function",
        "loop",
        "call",
        "io",
        "user",
        "omp_parallel",
        "omp_for",
        "omp_do",
        "omp_implicit_barrier",
        "omp_2",
        "mpi_send",
        "mpi_sendrecv",
        "mpi_allreduce",
        "",
        "Function",
        "LOOP",
        "loops",
        "omp_",
        "mpi_",
        "omp-parallel",
        "omp_Parallel",
        "mpi_send ",
        " io",
        "ompx_a",
        "function\n",
    ] {
        let mut doc = sample_value();
        doc["regions"][0]["kind"] = json!(kind);
        let parsed = kind.parse::<RegionKind>().is_ok();
        assert_eq!(
            v.is_valid(&doc),
            parsed,
            "kind {kind:?}: schema and RegionKind disagree"
        );
    }
}
