//! Instrumenter throughput on a generated C tree of about 100k lines
//! (issue 2: "Instrumenter throughput in MB/s on a generated C tree of 100k
//! lines"). Measures the whole driver (walk, parse, instrument, write
//! atomically, IDF) with `--regions functions,loops,user` and with
//! `--regions all` (issue 16 section 4), on one thread and on rayon's
//! default pool, next to its peer in the same run: tree-sitter-c alone
//! reading and parsing the same files, which bounds what any front end
//! built on it can reach on this machine.

use std::fmt::Write as _;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;
use regio_instrumenter::{driver, filter::Filter};

/// One translation unit of roughly `funcs * 25` lines: functions with
/// nested loops, early returns, a switch, macros and a user region.
fn generate_unit(unit: usize, funcs: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/* generated unit {unit} */\n#include <stdio.h>\n#define SQR(x) ((x) * (x))\n"
    );
    for f in 0..funcs {
        let _ = write!(
            s,
            r#"static int f{unit}_{f}(int n, int *a)
{{
    int i, j, acc = 0;
    for (i = 0; i < n; i++) {{
        for (j = 0; j < i; j++) {{
            if (a[j] < 0)
                return -1;
            acc += SQR(a[j]) % 7;
        }}
    }}
    switch (acc % 3) {{
    case 0: acc += 1; break;
    case 1: acc -= 1; break;
    default: break;
    }}
#pragma regio begin block{unit}_{f}
    while (acc > 1000)
        acc /= 2;
#pragma regio end block{unit}_{f}
    do {{
        acc++;
    }} while (acc % 5);
    return acc;
}}

"#
        );
    }
    let _ = writeln!(s, "int unit{unit}(int *a) {{\n    int r = 0;");
    for f in 0..funcs {
        let _ = writeln!(s, "    r += f{unit}_{f}(8, a);");
    }
    let _ = writeln!(s, "    return r;\n}}");
    s
}

fn write_tree(root: &Path, units: usize, funcs: usize) -> (usize, usize) {
    std::fs::create_dir_all(root).expect("create bench tree");
    let (mut bytes, mut lines) = (0, 0);
    for u in 0..units {
        let text = generate_unit(u, funcs);
        bytes += text.len();
        lines += text.lines().count();
        std::fs::write(root.join(format!("unit{u}.c")), text).expect("write bench unit");
    }
    (bytes, lines)
}

/// Reads and parses one file with tree-sitter-c and nothing else: the
/// floor under the instrumenter's own per-file work.
fn parse_only(path: &Path) -> usize {
    let text = std::fs::read(path).expect("read bench unit");
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .expect("tree-sitter-c language");
    let tree = parser.parse(&text, None).expect("parse bench unit");
    tree.root_node().child_count()
}

fn throughput(c: &mut Criterion) {
    let base = std::env::temp_dir().join(format!("regio-bench-tree-{}", std::process::id()));
    let src = base.join("src");
    let (bytes, lines) = write_tree(&src, 100, 40);
    eprintln!("generated tree: {lines} lines, {bytes} bytes in 100 files");
    let units: Vec<_> = (0..100).map(|u| src.join(format!("unit{u}.c"))).collect();
    let options = |selection: &str| driver::Options {
        strict: false,
        preprocess: None,
        paths: vec![src.clone()],
        out: base.join("out"),
        selection: selection.parse().expect("selection"),
        filter: Filter::default(),
        filter_path: None,
        form_overrides: Vec::new(),
        rust_regio: Default::default(),
        exclude: Default::default(),
    };
    let user = options("functions,loops,user");
    let all = options("all");
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("one-thread pool");
    let run = |opts: &driver::Options| {
        let outcome = driver::run(opts).expect("instrument bench tree");
        assert_eq!(outcome.failed, 0);
        outcome.regions
    };
    let mut group = c.benchmark_group("instrumenter");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("c_tree_100k_lines", |b| b.iter(|| run(&user)));
    group.bench_function("c_tree_100k_lines_regions_all", |b| b.iter(|| run(&all)));
    group.bench_function("c_tree_100k_lines_regions_all_1_thread", |b| {
        b.iter(|| one_thread.install(|| run(&all)))
    });
    // The peer: tree-sitter-c alone over the same files, on the same pools.
    group.bench_function("tree_sitter_parse_only", |b| {
        b.iter(|| units.par_iter().map(|p| parse_only(p)).sum::<usize>())
    });
    group.bench_function("tree_sitter_parse_only_1_thread", |b| {
        b.iter(|| one_thread.install(|| units.par_iter().map(|p| parse_only(p)).sum::<usize>()))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&base);
}

criterion_group!(benches, throughput);
criterion_main!(benches);
