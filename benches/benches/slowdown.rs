//! Slowdown of an instrumented function-heavy program against the original
//! (issue 2). Both builds use `cc -O2`; the instrumented one has function
//! regions only. Criterion times whole process runs of each, in the same
//! run, so the ratio is what to read (BENCHMARKS.md).

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion};
use regio_benches::runtime_flags;
use regio_instrumenter::{driver, filter::Filter};

const CALLS_C: &str = include_str!("data/calls.c");

fn compile(cc_args: &[String], out: &Path) {
    let status = Command::new("cc")
        .args(cc_args)
        .arg("-o")
        .arg(out)
        .status()
        .expect("run cc");
    assert!(status.success(), "cc {cc_args:?} failed");
}

fn build(base: &Path) -> (PathBuf, PathBuf) {
    let src = base.join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(src.join("calls.c"), CALLS_C).expect("write calls.c");
    let plain = base.join("plain");
    compile(
        &["-O2".into(), src.join("calls.c").display().to_string()],
        &plain,
    );
    let inst = base.join("inst");
    let outcome = driver::run(&driver::Options {
        strict: false,
        preprocess: None,
        paths: vec![src],
        out: inst.clone(),
        selection: "functions".parse().expect("selection"),
        filter: Filter::default(),
        filter_path: None,
        form_overrides: Vec::new(),
        rust_regio: Default::default(),
        exclude: Default::default(),
    })
    .expect("instrument calls.c");
    assert_eq!(outcome.failed, 0);
    let rt = runtime_flags().unwrap_or_else(|e| panic!("libregio: {e}"));
    let mut args: Vec<String> = vec!["-O2".into()];
    args.extend(rt.cflags);
    args.push(inst.join("calls.c").display().to_string());
    args.extend(rt.libs);
    let instrumented = base.join("instrumented");
    compile(&args, &instrumented);
    (plain, instrumented)
}

fn slowdown(c: &mut Criterion) {
    let base = std::env::temp_dir().join(format!("regio-bench-slowdown-{}", std::process::id()));
    let (plain, instrumented) = build(&base);
    let run_dir = base.join("run");
    for workload in ["fib", "kernel"] {
        let mut group = c.benchmark_group(format!("slowdown_{workload}"));
        group.sample_size(10);
        group.bench_function("original", |b| {
            b.iter(|| {
                let s = Command::new(&plain).arg(workload).output().expect("run");
                assert!(s.status.success());
            })
        });
        group.bench_function("instrumented", |b| {
            b.iter(|| {
                let s = Command::new(&instrumented)
                    .arg(workload)
                    .env("REGIO_DIR", &run_dir)
                    .output()
                    .expect("run");
                assert!(s.status.success());
            })
        });
        group.finish();
    }
    let _ = std::fs::remove_dir_all(&base);
}

criterion_group!(benches, slowdown);
criterion_main!(benches);
