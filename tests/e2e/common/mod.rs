//! Helpers shared by the end-to-end test modules.

pub mod cmd;
pub mod machine;
pub mod mpis;
pub mod omp;
pub mod profiles;
pub mod report;
pub mod traces;
pub mod truth;

use std::path::{Path, PathBuf};

pub use cmd::{run, run_ok, Run};

/// The `instrument` binary cargo built for this test target.
pub fn instrument_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_instrument"))
}

/// Root of the workspace (tests/ and testdata/ live there).
pub fn workspace_root() -> PathBuf {
    // CARGO_MANIFEST_DIR is cli/, where this test target is declared.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

pub fn testdata() -> PathBuf {
    workspace_root().join("testdata")
}

/// A fresh temporary directory, removed when dropped unless
/// REGIO_KEEP_TEST_DIRS is set (then its path is printed for inspection).
pub struct TestDir {
    dir: Option<tempfile::TempDir>,
}

impl TestDir {
    pub fn new(label: &str) -> TestDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("regio-{label}-"))
            .tempdir()
            .unwrap_or_else(|e| panic!("cannot create a temporary directory: {e}"));
        TestDir { dir: Some(dir) }
    }

    pub fn path(&self) -> &Path {
        match &self.dir {
            Some(d) => d.path(),
            None => Path::new("/nonexistent"),
        }
    }

    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path().join(rel)
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        if std::env::var_os("REGIO_KEEP_TEST_DIRS").is_some() {
            if let Some(d) = self.dir.take() {
                println!("kept {}", d.keep().display());
            }
        }
    }
}

/// Whether `tool` is on PATH. A missing tool skips the calling test
/// (prints `SKIPPED: needs <package>` and returns false) unless
/// REGIO_REQUIRE_TOOLCHAINS=1, where CI insists on every toolchain.
pub fn require_tool(tool: &str, package: &str) -> bool {
    if find_on_path(tool).is_some() {
        return true;
    }
    if std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() == Ok("1") {
        panic!("`{tool}` not found on PATH (install {package}); REGIO_REQUIRE_TOOLCHAINS=1");
    }
    println!("SKIPPED: needs {package}");
    false
}

/// A Python interpreter that imports the OTF2 bindings (Debian's
/// python3-otf2 installs them for the system interpreter, which may not be
/// the first `python3` on PATH); None (SKIPPED, or a panic under
/// REGIO_REQUIRE_TOOLCHAINS=1) without one.
pub fn python_with_otf2() -> Option<&'static str> {
    let found = ["python3", "/usr/bin/python3"].into_iter().find(|python| {
        std::process::Command::new(python)
            .args(["-c", "import otf2"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        if std::env::var("REGIO_REQUIRE_TOOLCHAINS").as_deref() == Ok("1") {
            panic!("no python3 imports otf2 (install python3-otf2); REGIO_REQUIRE_TOOLCHAINS=1");
        }
        println!("SKIPPED: needs python3-otf2");
    }
    found
}

/// Copies `testdata/<dir>/<file>` into `tmp/src` and instruments that tree
/// with `--regions regions` into `tmp/inst`; returns `tmp/inst`.
pub fn instrument_testdata(tmp: &TestDir, dir: &str, file: &str, regions: &str) -> PathBuf {
    let src = tmp.join("src");
    std::fs::create_dir_all(&src).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(testdata().join(dir).join(file), src.join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let inst = tmp.join("inst");
    run_ok(
        std::process::Command::new(instrument_bin())
            .arg(&src)
            .arg("--out")
            .arg(&inst)
            .args(["--regions", regions]),
    );
    inst
}

pub fn find_on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

/// The number the preprocessor gives the line after `text`: lines counted,
/// a `#line N` line makes the next line N (an instrumented C copy keeps
/// the original's numbers this way; its only added lines, a condition
/// repeated after a statement, end with a `#line`).
fn presumed_lines(text: &str) -> usize {
    let mut next = 1;
    for l in text.split('\n') {
        let marker = l
            .trim()
            .strip_prefix("#line ")
            .and_then(|r| r.split_whitespace().next()?.parse::<usize>().ok());
        next = marker.unwrap_or(next + 1);
    }
    next
}

/// An instrumented C file's own lines: the text after its prelude's
/// `#line 1 "..."` line, without the epilogue after its last line (a
/// header's `pop_macro` lines, a `.c` file's `#ifdef REGIO_INCLUDED_`
/// block for when another `.c` includes it).
fn instrumented_body(text: &str) -> &str {
    let body = text
        .split_once("#line 1 \"")
        .and_then(|(_, rest)| rest.split_once('\n'))
        .map_or("", |(_, rest)| rest);
    let end = ["#ifdef REGIO_INCLUDED_", "#pragma pop_macro(\"regio__"]
        .iter()
        .filter_map(|m| body.find(m))
        .min()
        .unwrap_or(body.len());
    &body[..end]
}

/// Asserts that an instrumented C copy keeps every line of its original:
/// the preprocessor numbers its own lines as it numbers the original's.
pub fn assert_lines_kept(original: &str, copy: &str) {
    assert_eq!(
        presumed_lines(instrumented_body(copy)),
        presumed_lines(original),
        "{copy}"
    );
}

/// The C compiler: $CC or `cc`.
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// `instrument flags <which>` split into arguments (the paths it prints
/// come from the build tree and hold no blanks).
pub fn instrument_flags(which: &str) -> Vec<String> {
    let out = run_ok(std::process::Command::new(instrument_bin()).args(["flags", which]));
    out.stdout.split_whitespace().map(str::to_string).collect()
}

/// Compile and link `sources` into `output` with `flags` before the sources
/// and `libs` after them; panics with the compiler's messages on failure.
pub fn compile(
    compiler: &str,
    flags: &[String],
    sources: &[PathBuf],
    libs: &[String],
    output: &Path,
) -> Run {
    let mut c = std::process::Command::new(compiler);
    c.args(flags).args(sources).args(libs).arg("-o").arg(output);
    // Fortran compilers write `.mod` files into the working directory:
    // keep them next to the output, never in the source tree.
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        c.current_dir(dir);
    }
    run_ok(&mut c)
}

/// Copy a directory tree (so builds never write into testdata/).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walk(from) {
        let rel = entry
            .strip_prefix(from)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("mkdir {}: {e}", parent.display()));
        }
        std::fs::copy(&entry, &dest)
            .unwrap_or_else(|e| panic!("copy {} -> {}: {e}", entry.display(), dest.display()));
    }
}

/// Every regular file under `dir`, sorted.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("read_dir {}: {e}", d.display()));
        for entry in entries {
            let p = entry
                .unwrap_or_else(|e| panic!("read_dir {}: {e}", d.display()))
                .path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Path and content of every file under `dir`: compare before and after
/// a command to show it left its inputs alone.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walk(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
            (p, bytes)
        })
        .collect()
}
