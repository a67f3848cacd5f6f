//! OpenMP 5.x directive handling of the C front end on small inputs:
//! `#if` alternatives, target and SIMD bodies left alone, taskloop
//! iterations, cancellation, device functions. Whole programs are in
//! testdata/omp5 (tests/omp5_end_to_end.rs, parallel_golden).

use regio_idf::RegionKind;

use super::*;
use crate::filter::Filter;
use crate::selection::Selection;

fn run(text: &str) -> Instrumented {
    let filter = Filter::default();
    let input = SourceInput {
        text,
        display_path: "src/t.c",
        rel_path: "t.c",
        idf_path: "/out/regio.idf.json",
        selection: "omp,functions,loops".parse::<Selection>().unwrap(),
        filter: &filter,
        first_id: 1,
    };
    instrument(&input).unwrap_or_else(|e| panic!("{e:?}"))
}

/// The instrumented text without the prelude.
fn body(out: &Instrumented) -> &str {
    let at = out.text.find("#line 1 ").expect("prelude ends with #line");
    let rest = &out.text[at..];
    &rest[rest.find('\n').unwrap() + 1..]
}

fn kinds(out: &Instrumented) -> Vec<String> {
    out.regions.iter().map(|r| r.kind.to_string()).collect()
}

fn not_measured(out: &Instrumented, kind: &str) -> String {
    let r = out
        .regions
        .iter()
        .find(|r| r.kind.to_string() == kind)
        .unwrap_or_else(|| panic!("no {kind} in {:?}", kinds(out)));
    r.aux["not_measured"].as_str().unwrap_or("").to_string()
}

fn balanced(text: &str) -> bool {
    let open = text.matches('{').count();
    let close = text.matches('}').count();
    open == close
}

#[test]
fn alternatives_in_if_branches_share_regions_and_one_closing_text() {
    let src = "void f(int *a, int n) {\n#pragma omp parallel\n{\n#ifdef CYCLIC\n#pragma omp for schedule(static, 1)\n#else\n#pragma omp for\n#endif\nfor (int i = 0; i < n; i++) a[i] = i;\n}\n}\n";
    let out = run(src);
    let b = body(&out);
    assert_eq!(b.lines().count(), src.lines().count(), "{b}");
    // One `omp_for` (and its barrier) for both directives.
    assert_eq!(kinds(&out).iter().filter(|k| *k == "omp_for").count(), 1);
    let w = out
        .regions
        .iter()
        .find(|r| r.kind.to_string() == "omp_for")
        .unwrap();
    assert_eq!(w.start.line, 5);
    assert_eq!(w.aux["alternatives"][0]["line"], 7);
    let enter = format!("regio_enter({}u);", w.id);
    assert_eq!(b.matches(&enter).count(), 2, "{b}");
    assert_eq!(
        b.matches(&format!("regio_exit({}u);", w.id)).count(),
        1,
        "{b}"
    );
    // Each branch compiles to balanced braces.
    for keep in ["schedule(static, 1)", "omp for nowait"] {
        let chosen: String = b
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter(|l| !l.contains("_Pragma(\"omp for") || l.contains(keep))
            .collect();
        assert!(balanced(&chosen), "{keep}: {chosen}");
    }
}

#[test]
fn alternatives_of_different_form_are_left_alone() {
    let src = "void f(int *a, int n) {\n#ifdef PAR\n#pragma omp parallel for\n#else\n#pragma omp simd\n#endif\nfor (int i = 0; i < n; i++) a[i] = i;\n}\n";
    let out = run(src);
    assert!(!body(&out).contains("_Pragma"), "{}", body(&out));
    assert!(out.regions.iter().any(|r| r
        .aux
        .get("not_measured")
        .is_some_and(|v| v.as_str().is_some_and(|s| s.contains("alternative")))));
}

#[test]
fn if_lines_between_a_directive_and_its_loop() {
    let src = "void f(int *a, int n) {\n#pragma omp parallel for\n#if FAST\nfor (int i = 0; i < n; i++) a[i] = 2 * i;\n#else\nfor (int i = 0; i < n; i++) a[i] = i;\n#endif\n}\n";
    let out = run(src);
    let b = body(&out);
    // The closing text after each branch's loop, no loop region between.
    assert_eq!(b.matches("regio_omp_join(").count(), 2, "{b}");
    assert!(
        !kinds(&out).contains(&"loop".to_string()),
        "{:?}",
        kinds(&out)
    );
    // A branch that may fall through past the #if is not followed.
    let src = "void f(int *a, int n) {\n#pragma omp parallel for\n#ifdef X\nfor (int i = 0; i < n; i++) a[i] = 2 * i;\n#endif\nfor (int i = 0; i < n; i++) a[i] = i;\n}\n";
    let out = run(src);
    assert!(!body(&out).contains("_Pragma"), "{}", body(&out));
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
}

#[test]
fn target_regions_and_simd_loops_get_no_probe_inside() {
    let src = "void f(int *a, int n) {\n#pragma omp target map(tofrom: a[0:n])\n#pragma omp teams distribute parallel for\nfor (int i = 0; i < n; i++) { for (int k = 0; k < 2; k++) a[i] += k; }\n#pragma omp simd\nfor (int i = 0; i < n; i++) { for (int k = 0; k < 2; k++) a[i] += k; }\n}\n";
    let out = run(src);
    let b = body(&out);
    // The function's own guard opens the first line; nothing after it.
    let rest = &b[b.find('\n').unwrap()..];
    assert!(!rest.contains("regio_"), "{b}");
    assert_eq!(not_measured(&out, "omp_target"), omp::reason::TARGET);
    assert_eq!(
        not_measured(&out, "omp_teams_distribute_parallel_for"),
        omp::reason::IN_TARGET
    );
    assert_eq!(not_measured(&out, "omp_simd"), omp::reason::SIMD);
    // Only the function itself is measured.
    assert_eq!(
        out.regions
            .iter()
            .filter(|r| r.aux.get("not_measured").is_none())
            .map(|r| r.kind.clone())
            .collect::<Vec<_>>(),
        [RegionKind::Function]
    );
}

#[test]
fn taskloop_iterations_are_measured_inside_the_innermost_bound_loop() {
    let src = "void f(int *a, int n) {\n#pragma omp taskloop collapse(2)\nfor (int i = 0; i < n; i++)\nfor (int j = 0; j < n; j++)\nif (j) continue; else a[i] += j;\n}\n";
    let out = run(src);
    let b = body(&out);
    let tb = out
        .regions
        .iter()
        .find(|r| r.kind.to_string() == "omp_taskloop_body")
        .unwrap();
    // A guard (closed by `continue` too) wraps the innermost body.
    let guard = format!("{{ const unsigned int regio__g{} ", tb.id);
    let at = b.find(&guard).unwrap_or_else(|| panic!("{b}"));
    assert!(b[..at].contains("for (int j = 0; j < n; j++)\n"), "{b}");
    assert!(b.contains("a[i] += j; }"), "{b}");
    assert!(
        !b.contains("omp barrier"),
        "no barrier around a taskloop: {b}"
    );
}

#[test]
fn a_cancelled_loop_keeps_its_own_barrier() {
    let src = "void f(int *a, int n) {\n#pragma omp parallel\n{\n#pragma omp for\nfor (int i = 0; i < n; i++) {\nif (a[i] < 0) {\n#pragma omp cancel for\n}\na[i] = 1;\n}\n}\n}\n";
    let out = run(src);
    let b = body(&out);
    assert!(b.contains("_Pragma(\"omp for\")"), "{b}");
    let ws = out
        .regions
        .iter()
        .filter(|r| r.kind.to_string() == "omp_implicit_barrier")
        .count();
    assert_eq!(ws, 1, "only the parallel's: {:?}", kinds(&out));
}

#[test]
fn declare_target_functions_are_left_alone() {
    let src = "#pragma omp declare target\nint sq(int x) { for (int k = 0; k < 2; k++) x += k; return x; }\n#pragma omp end declare target\nint cube(int x) { return x * x * x; }\n#pragma omp declare target to(cube)\nint host(int x) { return x; }\n";
    let out = run(src);
    let functions: Vec<&str> = out
        .regions
        .iter()
        .filter(|r| r.kind == RegionKind::Function)
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(functions, ["host"]);
    assert_eq!(
        kinds(&out).iter().filter(|k| k.starts_with("omp_")).count(),
        3,
        "the three declare target directives: {:?}",
        kinds(&out)
    );
}

#[test]
fn host_teams_is_measured_around_and_per_team() {
    let src = "void f(int *a, int n) {\n#pragma omp teams num_teams(2)\n#pragma omp distribute\nfor (int i = 0; i < n; i++) a[i] = i;\n}\n";
    let out = run(src);
    let b = body(&out);
    let ks = kinds(&out);
    assert_eq!(
        ks,
        ["function", "omp_teams", "omp_teams_body", "omp_distribute"]
    );
    let teams_at = b.find("_Pragma(\"omp teams num_teams(2)\")").unwrap();
    let body_at = b.find("regio_omp_teams_begin(3u)").unwrap();
    let dist_at = b.find("_Pragma(\"omp distribute\")").unwrap();
    assert!(teams_at < body_at && body_at < dist_at, "{b}");
    // The team number is asked for by the runtime (omp_get_team_num is
    // allowed inside teams); the instrumented text makes no OpenMP call.
    assert!(!b.contains("omp_get_"), "no OpenMP call inside teams: {b}");
}
