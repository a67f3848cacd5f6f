//! One `instrument` call over a tree instruments its C files in parallel
//! (rayon, `RAYON_NUM_THREADS`) and must write exactly what the sequential
//! run writes: every copy, the IDF, the diagnostics in order, the summary
//! line and the exit status (instrumenter/src/renumber.rs).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> PathBuf {
    std::env::var_os("REGIO_TEST_INSTRUMENT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_instrument")))
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, bytes).expect("write");
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            write(&dest, fs::read(entry.path()).expect("read"));
        }
    }
}

/// Every file under `dir` (relative path, bytes).
fn snapshot(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in fs::read_dir(dir).expect("read_dir") {
        let entry = entry.expect("entry");
        let name = format!("{rel}/{}", entry.file_name().to_string_lossy());
        if entry.file_type().expect("type").is_dir() {
            snapshot(&entry.path(), &name, out);
        } else {
            out.insert(name, fs::read(entry.path()).expect("read"));
        }
    }
}

/// `instrument ARGS --out OUT TREE` with `threads` rayon threads: its
/// output, and the tree it wrote (OUT removed afterwards, so the next run
/// writes the same paths, which the probes name).
fn run(
    threads: usize,
    tree: &Path,
    out: &Path,
    args: &[&str],
) -> (Output, BTreeMap<String, Vec<u8>>) {
    let output = Command::new(bin())
        .args(args)
        .arg("--out")
        .arg(out)
        .arg(tree)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .output()
        .expect("run instrument");
    let mut files = BTreeMap::new();
    snapshot(out, "", &mut files);
    fs::remove_dir_all(out).expect("remove out");
    (output, files)
}

fn assert_same(args: &[&str], tree: &Path, out: &Path) {
    let (one, one_files) = run(1, tree, out, args);
    for threads in [2, 4] {
        let (many, many_files) = run(threads, tree, out, args);
        assert_eq!(
            one.status.code(),
            many.status.code(),
            "{args:?}: exit status"
        );
        assert_eq!(
            String::from_utf8_lossy(&one.stdout),
            String::from_utf8_lossy(&many.stdout),
            "{args:?}: summary"
        );
        assert_eq!(
            String::from_utf8_lossy(&one.stderr),
            String::from_utf8_lossy(&many.stderr),
            "{args:?}: diagnostics"
        );
        assert_eq!(
            one_files.keys().collect::<Vec<_>>(),
            many_files.keys().collect::<Vec<_>>(),
            "{args:?}: files written"
        );
        for (name, bytes) in &one_files {
            assert!(
                many_files[name] == *bytes,
                "{args:?}: {name} differs with {threads} threads:\n{}\n---\n{}",
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&many_files[name])
            );
        }
    }
}

/// The project's test programs (C, headers, OpenMP, MPI, Fortran, Rust,
/// files that fail, code left as written) plus files that make the
/// provisional ids' prefixes awkward: a source holding the first prefix
/// (another one is chosen), one holding every prefix (it is instrumented
/// in file order instead), and one whose numbers look like ids.
fn test_tree(root: &Path) -> PathBuf {
    let tree = root.join("tree");
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    copy_tree(&testdata, &tree);
    let body = "int work(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++)\n    s += helper(i);\n  return s;\n}\n";
    write(
        &tree.join("prefix/first.c"),
        format!("int helper(int);\nlong big = 1907300000L; /* 19073 */\n{body}"),
    );
    // renumber.rs's PREFIXES, every one.
    let every = "19073 17351 13597 20483 11939 15263 18749 12611";
    write(
        &tree.join("prefix/every.c"),
        format!("int helper(int);\n/* {every} */\n{body}"),
    );
    write(
        &tree.join("prefix/lookalike.c"),
        format!("int helper(int);\nlong a = 1735100000L, b = 1735100001L;\n{body}"),
    );
    tree
}

#[test]
fn one_thread_and_many_write_the_same_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = test_tree(dir.path());
    let out = dir.path().join("out");
    assert_same(&["--regions", "all"], &tree, &out);
    assert_same(&[], &tree, &out);
    assert_same(&["--regions", "all", "--strict"], &tree, &out);
}
