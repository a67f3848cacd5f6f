//! Walks the trees given on the command line, hands each source file to its
//! language front end, mirrors everything into `--out`, and writes the IDF.
//!
//! The driver owns files and ids; front ends own languages. Invariants kept
//! here: user sources are only ever read; every output file is written to a
//! temporary name and renamed, so a failed or interrupted run never leaves a
//! half-written file; a file that failed to instrument has no output at all
//! (a stale copy from an earlier run is removed).

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use regio_idf::idf::{line_stats, FORMAT_VERSION};
use regio_idf::{Header, Idf, Region, SourceFile, IDF_FILE_NAME};
use sha2::{Digest, Sha256};

use crate::diag::Diagnostic;
use crate::filter::Filter;
use crate::frontend::{FrontendResult, SourceInput};
use crate::selection::Selection;

/// Everything `instrument PATH...` needs.
#[derive(Debug, Clone)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    pub out: PathBuf,
    pub selection: Selection,
    pub filter: Filter,
    /// Recorded in the IDF header.
    pub filter_path: Option<String>,
    /// `--fixed GLOB` / `--free GLOB`: Fortran source form by path glob
    /// (relative to the output root), overriding the suffix; later wins.
    pub form_overrides: Vec<FormOverride>,
    /// The `regio` dependency added to Cargo.toml files that lack one.
    pub rust_regio: crate::rust::cargo_toml::RegioDependency,
}

/// One `--fixed`/`--free` option.
#[derive(Debug, Clone)]
pub struct FormOverride {
    pub glob: globset::GlobMatcher,
    pub form: crate::fortran::SourceForm,
}

impl FormOverride {
    /// `--fixed 'legacy/**'` matches paths relative to the instrumented root;
    /// a glob without `/` also matches a file's name anywhere in the tree.
    pub fn new(glob: &str, form: crate::fortran::SourceForm) -> Result<Self, globset::Error> {
        let pattern = if glob.contains('/') {
            glob.to_string()
        } else {
            format!("**/{glob}")
        };
        Ok(FormOverride {
            glob: globset::Glob::new(&pattern)?.compile_matcher(),
            form,
        })
    }
}

/// The front end for a file: `--fixed`/`--free` first, then the suffix.
fn language_for(rel: &str, path: &Path, overrides: &[FormOverride]) -> Option<Language> {
    if let Some(o) = overrides.iter().rev().find(|o| o.glob.is_match(rel)) {
        return Some(Language::Fortran(o.form));
    }
    language_of(path)
}

/// What happened, for the summary line and the exit status.
#[derive(Debug, Default)]
pub struct Outcome {
    pub instrumented: usize,
    pub unchanged_sources: usize,
    pub copied: usize,
    pub failed: usize,
    pub regions: usize,
    /// Cargo.toml files given a `regio` dependency.
    pub cargo_manifests: usize,
    /// Warnings of successful files and errors of failed ones, in file order.
    pub diagnostics: Vec<Diagnostic>,
    pub idf_path: PathBuf,
}

/// Problems with the invocation itself (not with one user file).
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("{path}: error: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: error: no such file or directory")]
    Missing(String),
    #[error("error: `{first}` and `{second}` would both be written to `{rel}` in the output tree")]
    Collision {
        first: String,
        second: String,
        rel: String,
    },
    #[error("error: the output directory `{0}` is an input or contains one; choose another --out")]
    OutIsInput(String),
    #[error("internal error: the IDF we built is invalid: {0}")]
    InvalidIdf(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DriverError + '_ {
    move |source| DriverError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The language front end responsible for a file, by suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    C,
    Fortran(crate::fortran::SourceForm),
    Rust,
}

pub fn language_of(path: &Path) -> Option<Language> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("c") | Some("h") => Some(Language::C),
        Some("rs") => Some(Language::Rust),
        _ => crate::fortran::form_for_path(path).map(Language::Fortran),
    }
}

/// One file found under the inputs.
#[derive(Debug, Clone)]
struct InputFile {
    /// As the user would name it (input PATH joined with the relative part).
    display: String,
    source: PathBuf,
    /// Relative to the output root, with `/` separators.
    rel: String,
}

fn rel_string(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Directory arguments are mirrored by content into the output root; file
/// arguments land at the root under their own name.
fn collect_inputs(paths: &[PathBuf], out_abs: &Path) -> Result<Vec<InputFile>, DriverError> {
    let mut by_rel: BTreeMap<String, InputFile> = BTreeMap::new();
    for root in paths {
        let meta =
            fs::metadata(root).map_err(|_| DriverError::Missing(root.display().to_string()))?;
        let root_abs = fs::canonicalize(root).map_err(io_err(root))?;
        if root_abs.starts_with(out_abs) {
            return Err(DriverError::OutIsInput(out_abs.display().to_string()));
        }
        let mut found = Vec::new();
        if meta.is_dir() {
            let walker = walkdir::WalkDir::new(root)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| {
                    // Never descend into our own output (`instrument . --out
                    // regio-out`) or into version-control metadata.
                    let name = e.file_name().to_string_lossy();
                    if e.depth() > 0 && e.file_type().is_dir() && name == ".git" {
                        return false;
                    }
                    fs::canonicalize(e.path()).map_or(true, |p| p != out_abs)
                });
            for entry in walker {
                let entry = entry.map_err(|e| DriverError::Io {
                    path: e
                        .path()
                        .map_or_else(|| root.display().to_string(), |p| p.display().to_string()),
                    source: e.into(),
                })?;
                if !entry.file_type().is_file() {
                    continue;
                }
                let rel = entry
                    .path()
                    .strip_prefix(root)
                    .unwrap_or(entry.path())
                    .to_path_buf();
                found.push(InputFile {
                    display: entry.path().display().to_string(),
                    source: entry.path().to_path_buf(),
                    rel: rel_string(&rel),
                });
            }
        } else {
            let name = root
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| root.clone());
            found.push(InputFile {
                display: root.display().to_string(),
                source: root.clone(),
                rel: rel_string(&name),
            });
        }
        for f in found {
            if let Some(prev) = by_rel.get(&f.rel) {
                return Err(DriverError::Collision {
                    first: prev.display.clone(),
                    second: f.display,
                    rel: f.rel,
                });
            }
            by_rel.insert(f.rel.clone(), f);
        }
    }
    Ok(by_rel.into_values().collect())
}

/// Write `bytes` to `dest` through a temporary file in the same directory,
/// so a failure (ours or the disk's) never leaves a half-written file under
/// the real name. No fsync: the output is derived data that the next run
/// remakes, and syncing every file of a tree made small runs several times
/// slower; the rename alone already keeps readers from a partial file.
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> Result<(), DriverError> {
    let dir = dest.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.regio-tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        fs::rename(&tmp, dest)
    })();
    if let Err(source) = result {
        let _ = fs::remove_file(&tmp);
        return Err(DriverError::Io {
            path: dest.display().to_string(),
            source,
        });
    }
    Ok(())
}

/// Copy through a temporary name too, keeping permissions (scripts in the
/// tree must stay executable for the user's build).
fn copy_atomically(src: &Path, dest: &Path) -> Result<(), DriverError> {
    let dir = dest.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.regio-tmp.{}", std::process::id()));
    if let Err(source) = fs::copy(src, &tmp).and_then(|_| fs::rename(&tmp, dest)) {
        let _ = fs::remove_file(&tmp);
        return Err(DriverError::Io {
            path: dest.display().to_string(),
            source,
        });
    }
    Ok(())
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Text of a source file, or the diagnostic that says why it is not text.
fn source_text(display: &str, bytes: Vec<u8>) -> Result<String, Diagnostic> {
    if bytes.contains(&0) {
        return Err(Diagnostic::error(
            display,
            1,
            1,
            "not a text file (contains NUL bytes)",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(&e.as_bytes()[..offset]).into_owned();
        let (line, col) = crate::diag::line_col(&text, offset);
        Diagnostic::error(display, line, col, "not a UTF-8 text file")
    })
}

fn run_front_end(lang: Language, input: &SourceInput) -> FrontendResult {
    match lang {
        Language::C => crate::c::instrument(input),
        Language::Fortran(form) => crate::fortran::instrument(input, form),
        Language::Rust => crate::rust::instrument(input),
    }
}

/// Instrument every input into `opts.out` and write the IDF.
pub fn run(opts: &Options) -> Result<Outcome, DriverError> {
    fs::create_dir_all(&opts.out).map_err(io_err(&opts.out))?;
    let out_abs = fs::canonicalize(&opts.out).map_err(io_err(&opts.out))?;
    let idf_path = out_abs.join(IDF_FILE_NAME);
    let idf_path_text = idf_path.display().to_string();
    let inputs = collect_inputs(&opts.paths, &out_abs)?;

    let mut outcome = Outcome {
        idf_path: idf_path.clone(),
        ..Outcome::default()
    };
    let mut files = Vec::new();
    let mut regions: Vec<Region> = Vec::new();
    let mut next_id: u32 = 1;

    for input in &inputs {
        let dest = out_abs.join(&input.rel);
        if input.rel == IDF_FILE_NAME {
            // An IDF from an earlier run in the input tree is replaced below.
            continue;
        }
        let lang = language_for(&input.rel, &input.source, &opts.form_overrides)
            .filter(|_| opts.filter.allows_file(&input.rel));
        let Some(lang) = lang else {
            if input.rel.rsplit('/').next() == Some("Cargo.toml") {
                let text = fs::read_to_string(&input.source).map_err(io_err(&input.source))?;
                match crate::rust::cargo_toml::with_regio(&text, &input.display, &opts.rust_regio) {
                    Ok(Some(new)) => {
                        write_atomically(&dest, new.as_bytes())?;
                        outcome.cargo_manifests += 1;
                        continue;
                    }
                    Ok(None) => {}
                    Err(d) => {
                        outcome.failed += 1;
                        outcome.diagnostics.push(d);
                        continue;
                    }
                }
            }
            copy_atomically(&input.source, &dest)?;
            outcome.copied += 1;
            continue;
        };
        let bytes = fs::read(&input.source).map_err(io_err(&input.source))?;
        let hash = sha256_hex(&bytes);
        let result = source_text(&input.display, bytes)
            .map_err(|d| vec![d])
            .and_then(|text| {
                let source = SourceInput {
                    text: &text,
                    display_path: &input.display,
                    rel_path: &input.rel,
                    idf_path: &idf_path_text,
                    selection: opts.selection,
                    filter: &opts.filter,
                    first_id: next_id,
                };
                run_front_end(lang, &source).map(|done| (text.clone(), done))
            });
        match result {
            Ok((text, done)) => {
                write_atomically(&dest, done.text.as_bytes())?;
                let (lines, max_line_len) = line_stats(&text);
                files.push(SourceFile {
                    path: input.rel.clone(),
                    original: input.display.clone(),
                    hash,
                    lines,
                    max_line_len,
                });
                if done.regions.is_empty() && done.text == text {
                    outcome.unchanged_sources += 1;
                } else {
                    outcome.instrumented += 1;
                }
                next_id += done.regions.len() as u32;
                outcome.regions += done.regions.len();
                regions.extend(done.regions);
                outcome.diagnostics.extend(done.warnings);
            }
            Err(diags) => {
                // Nothing may be left for a failed file: not even an output
                // from an earlier, successful run that no longer matches.
                if dest.exists() {
                    fs::remove_file(&dest).map_err(io_err(&dest))?;
                }
                outcome.failed += 1;
                outcome.diagnostics.extend(diags);
            }
        }
    }

    let mut options = serde_json::Map::new();
    options.insert(
        "regions".into(),
        serde_json::Value::from(opts.selection.names()),
    );
    options.insert(
        "filter".into(),
        opts.filter_path
            .clone()
            .map_or(serde_json::Value::Null, Into::into),
    );
    options.insert(
        "inputs".into(),
        opts.paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .into(),
    );
    let idf = Idf {
        header: Header {
            format_version: FORMAT_VERSION,
            tool: "instrument".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            options,
            files,
        },
        regions,
    };
    idf.validate().map_err(|errs| {
        DriverError::InvalidIdf(
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    write_atomically(&idf_path, idf.to_json().as_bytes())?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_text_sources_are_diagnosed_at_their_first_bad_byte() {
        let d = source_text("x.c", b"int a;\n\0".to_vec()).unwrap_err();
        assert_eq!(
            d.to_string(),
            "x.c:1:1: error: not a text file (contains NUL bytes)"
        );
        let d = source_text("x.c", b"int a;\nin\xfft".to_vec()).unwrap_err();
        assert_eq!(d.to_string(), "x.c:2:3: error: not a UTF-8 text file");
    }

    #[test]
    fn form_overrides_beat_suffixes_and_the_last_one_wins() {
        use crate::fortran::SourceForm::{Fixed, Free};
        let o = vec![
            FormOverride::new("*.f90", Fixed).unwrap(),
            FormOverride::new("new/*.f90", Free).unwrap(),
        ];
        let lang = |rel: &str| language_for(rel, Path::new(rel), &o);
        assert_eq!(lang("old/a.f90"), Some(Language::Fortran(Fixed)));
        assert_eq!(lang("a.f90"), Some(Language::Fortran(Fixed)));
        assert_eq!(lang("new/b.f90"), Some(Language::Fortran(Free)));
        assert_eq!(lang("x.f"), Some(Language::Fortran(Fixed)));
        assert_eq!(lang("x.c"), Some(Language::C));
    }

    #[test]
    fn hashes_are_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
