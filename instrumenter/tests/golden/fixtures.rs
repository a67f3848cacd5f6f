//! Finding the fixtures and their options.
//!
//! A fixture under `instrumenter/tests/golden/fixtures/` names its own
//! options in `regio-test:` comment lines (`// regio-test: regions=all`
//! in C and Rust, `! regio-test: ...` or `c regio-test: ...` in Fortran),
//! one line per snapshot, and its snapshots sit beside it in `snapshots/`.
//! The lines may stand anywhere; the fixtures converted from inline unit
//! tests have them last, so every other line keeps the number the former
//! test's assertions named.
//!
//! The programs under `testdata/` are also compiled and run by the
//! end-to-end tests, and their line numbers are part of what those tests
//! check, so they carry no header: `testdata.txt` beside this file gives
//! their options by glob, and their snapshots sit in the mirror tree
//! `instrumenter/tests/golden/testdata/<dir>/snapshots/`.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use crate::options::Options;

pub struct Fixture {
    pub path: PathBuf,
    /// Relative to the workspace, `/`-separated: names the file in
    /// diagnostics and `#line` directives.
    pub shown: String,
    /// One entry per snapshot (or group of snapshots) of this file.
    pub variants: Vec<Options>,
    pub snapshot_dir: PathBuf,
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the instrumenter is a workspace member")
        .to_path_buf()
}

pub fn harness_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

pub fn shown(path: &Path) -> String {
    path.strip_prefix(workspace())
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every regular file under `dir`, sorted by path; `snapshots/`
/// directories are not fixtures.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if e.file_name() != "snapshots" {
                    todo.push(p);
                }
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The `regio-test:` lines of a fixture's text.
fn header_options(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.split_once("regio-test:").map(|(_, rest)| rest))
        .map(|rest| rest.trim().trim_end_matches("*/").trim())
        .collect()
}

/// A file a front end reads (other files beside fixtures, such as filter
/// files, are their helpers).
fn is_source(path: &Path) -> bool {
    let suffix = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    matches!(suffix, "c" | "h" | "rs") || regio_instrumenter::fortran::form_for_path(path).is_some()
}

/// Fixtures with their own headers.
fn own_fixtures() -> Result<Vec<Fixture>, String> {
    let root = harness_dir().join("fixtures");
    let mut out = Vec::new();
    for path in files_under(&root).into_iter().filter(|p| is_source(p)) {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let text = String::from_utf8_lossy(&bytes);
        let shown = shown(&path);
        let variants = header_options(&text)
            .into_iter()
            .map(|words| Options::parse(words).map_err(|e| format!("{shown}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        if variants.is_empty() {
            return Err(format!("{shown}: no `regio-test:` line"));
        }
        if variants.iter().filter(|o| o.name.is_none()).count() != 1 {
            return Err(format!(
                "{shown}: exactly one `regio-test:` line without name="
            ));
        }
        let snapshot_dir = path
            .parent()
            .map(|d| d.join("snapshots"))
            .unwrap_or_default();
        out.push(Fixture {
            path,
            shown,
            variants,
            snapshot_dir,
        });
    }
    Ok(out)
}

struct ManifestLine {
    glob: GlobMatcher,
    text: String,
    options: Options,
}

fn manifest() -> Result<Vec<ManifestLine>, String> {
    let file = harness_dir().join("testdata.txt");
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (glob, words) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let at = format!("testdata.txt:{}", n + 1);
        let glob = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("{at}: {e}"))?
            .compile_matcher();
        let options = Options::parse(words).map_err(|e| format!("{at}: {e}"))?;
        out.push(ManifestLine {
            glob,
            text: at,
            options,
        });
    }
    Ok(out)
}

/// The testdata programs named by `testdata.txt`. A file's first
/// snapshot takes the first matching line without `name=`; every matching
/// line with `name=` adds one.
fn testdata_fixtures() -> Result<Vec<Fixture>, String> {
    let lines = manifest()?;
    let mut used = vec![false; lines.len()];
    let mut out = Vec::new();
    for path in files_under(&workspace().join("testdata")) {
        let shown = shown(&path);
        let mut variants = Vec::new();
        if let Some(i) = lines
            .iter()
            .position(|l| l.options.name.is_none() && l.glob.is_match(&shown))
        {
            used[i] = true;
            variants.push(lines[i].options.clone());
            for (j, l) in lines.iter().enumerate() {
                if l.options.name.is_some() && l.glob.is_match(&shown) {
                    used[j] = true;
                    variants.push(l.options.clone());
                }
            }
        }
        if variants.is_empty() {
            continue;
        }
        let dir = Path::new(&shown).parent().unwrap_or(Path::new(""));
        let snapshot_dir = harness_dir().join(dir).join("snapshots");
        out.push(Fixture {
            path,
            shown,
            variants,
            snapshot_dir,
        });
    }
    // A line that matches nothing is a fixture gone missing.
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(format!("{}: matches no file", lines[i].text));
    }
    Ok(out)
}

pub fn all_fixtures() -> Result<Vec<Fixture>, String> {
    let mut all = testdata_fixtures()?;
    all.extend(own_fixtures()?);
    Ok(all)
}
