//! Walks the trees given on the command line, hands each source file to its
//! language front end, mirrors everything into `--out`, and writes the IDF.
//!
//! The driver owns files and ids; front ends own languages. Invariants kept
//! here:
//! - user sources are only ever read; nothing is written through a symbolic
//!   link inside `--out` (a linked directory there is refused), and every
//!   output replaces its file by a rename, so a hard link between a source
//!   and an output keeps the source's content;
//! - the output tree is consistent: a run first writes everything into a
//!   private staging directory inside `--out`, then renames the files into
//!   place and writes the IDF last. A failure while staging (a full disk)
//!   leaves `--out` exactly as it was; a file that could not be read or
//!   instrumented has no output (a stale one from an earlier run is
//!   removed) and the IDF describes every instrumented file that is there;
//! - version control, build products and Regio's own run and output
//!   directories are not copied (see [`SkipReason`]).

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use regio_idf::idf::{line_stats, FORMAT_VERSION};
use regio_idf::{Header, Idf, Region, SourceFile, IDF_FILE_NAME};
use sha2::{Digest, Sha256};

use crate::diag::Diagnostic;
use crate::filter::Filter;
use crate::frontend::{FrontendResult, SourceInput};
use crate::renumber::{self, Provisional};
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
    /// `--exclude GLOB`: files and directories of the input trees that are
    /// neither instrumented nor copied.
    pub exclude: Exclude,
    /// `--strict`: code left as written (`not measured` warnings) fails
    /// its file instead.
    pub strict: bool,
    /// `--preprocess`: C sources are instrumented as the compiler sees
    /// them after preprocessing with these flags.
    pub preprocess: Option<Preprocess>,
}

/// How to run the user's preprocessor (`--preprocess --cflags ...`).
#[derive(Debug, Clone)]
pub struct Preprocess {
    pub cc: String,
    pub cflags: Vec<String>,
}

impl Preprocess {
    /// `CC -E CFLAGS -I<dir> <file>` run where `instrument` runs (relative
    /// `-I` in the flags mean what they mean to the user's compiler run
    /// from there): the preprocessed text and the name its line markers
    /// give the file.
    fn run(&self, source: &Path) -> Result<(String, String), String> {
        let abs = fs::canonicalize(source).map_err(|e| e.to_string())?;
        let dir = abs.parent().unwrap_or(Path::new("/"));
        // REGIO_IDF_REGISTERED: the unit's own prelude comes after
        // preprocessing, so an instrumented `.c` file it includes (of
        // another tree) must take its prelude's "included" branch, with
        // names of its own, as it does when the instrumented unit compiles.
        let out = std::process::Command::new(&self.cc)
            .arg("-E")
            .arg("-DREGIO_IDF_REGISTERED")
            .args(&self.cflags)
            .arg("-I")
            .arg(dir)
            .arg(&abs)
            .output()
            .map_err(|e| format!("cannot run `{}`: {e}", self.cc))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let first = stderr.lines().find(|l| l.contains("error")).unwrap_or("");
            return Err(format!("`{} -E` failed: {}", self.cc, first.trim()));
        }
        let text =
            String::from_utf8(out.stdout).map_err(|_| "its output is not UTF-8".to_string())?;
        Ok((text, abs.display().to_string()))
    }
}

/// One `--fixed`/`--free` option.
#[derive(Debug, Clone)]
pub struct FormOverride {
    pub glob: globset::GlobMatcher,
    pub form: crate::fortran::SourceForm,
}

/// A path glob relative to the instrumented root; a glob without `/` also
/// matches a name anywhere in the tree.
fn tree_glob(glob: &str) -> Result<globset::Glob, globset::Error> {
    let pattern = if glob.contains('/') {
        glob.trim_start_matches("./").to_string()
    } else {
        format!("**/{glob}")
    };
    globset::Glob::new(&pattern)
}

impl FormOverride {
    /// `--fixed 'legacy/**'` matches paths relative to the instrumented root;
    /// a glob without `/` also matches a file's name anywhere in the tree.
    pub fn new(glob: &str, form: crate::fortran::SourceForm) -> Result<Self, globset::Error> {
        Ok(FormOverride {
            glob: tree_glob(glob)?.compile_matcher(),
            form,
        })
    }
}

/// The `--exclude` globs, matched against paths relative to the
/// instrumented root (`build/**`, `*.o`, `docs`); an excluded directory is
/// not entered.
#[derive(Debug, Clone, Default)]
pub struct Exclude {
    set: Option<globset::GlobSet>,
}

impl Exclude {
    pub fn new<S: AsRef<str>>(globs: &[S]) -> Result<Self, globset::Error> {
        if globs.is_empty() {
            return Ok(Exclude::default());
        }
        let mut b = globset::GlobSetBuilder::new();
        for g in globs {
            b.add(tree_glob(g.as_ref())?);
        }
        Ok(Exclude {
            set: Some(b.build()?),
        })
    }

    fn matches(&self, rel: &str) -> bool {
        self.set.as_ref().is_some_and(|s| s.is_match(rel))
    }
}

/// The front end for a file: `--fixed`/`--free` first, then the suffix.
fn language_for(rel: &str, path: &Path, overrides: &[FormOverride]) -> Option<Language> {
    if let Some(o) = overrides.iter().rev().find(|o| o.glob.is_match(rel)) {
        return Some(Language::Fortran(o.form));
    }
    language_of(path)
}

/// Why a file or directory of an input tree was neither instrumented nor
/// copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// `.git`, `.hg`, `.svn`, `.bzr`, `_darcs`, `CVS`.
    VersionControl,
    /// A Cargo `target/` directory or any directory tagged as a cache
    /// (`CACHEDIR.TAG`).
    BuildOutput,
    /// A run directory written by an instrumented program.
    RegioRun,
    /// The `--out` directory of an earlier `instrument` run.
    RegioOutput,
    /// Matched an `--exclude` glob.
    Excluded,
}

impl SkipReason {
    fn word(self) -> &'static str {
        match self {
            SkipReason::VersionControl => "version control",
            SkipReason::BuildOutput => "build output",
            SkipReason::RegioRun => "Regio run",
            SkipReason::RegioOutput => "earlier Regio output",
            SkipReason::Excluded => "--exclude",
        }
    }
}

/// A file or directory left out of the copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Relative to the instrumented root.
    pub rel: String,
    pub reason: SkipReason,
}

/// What happened, for the summary line and the exit status.
#[derive(Debug, Default)]
pub struct Outcome {
    pub instrumented: usize,
    pub unchanged_sources: usize,
    pub copied: usize,
    pub failed: usize,
    /// Places left as written (`not measured` warnings), and the files
    /// written unchanged because nothing in them could be measured.
    pub not_measured: usize,
    pub left_as_written: usize,
    /// Small functions listed in the IDF but not measured
    /// (`crate::small_functions`; `--small-functions` measures them).
    pub small_functions: usize,
    pub regions: usize,
    /// Cargo.toml files given a `regio` dependency.
    pub cargo_manifests: usize,
    /// Warnings of successful files and errors of failed ones, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Directories and files of the inputs left out, in walk order.
    pub skipped: Vec<Skipped>,
    pub idf_path: PathBuf,
}

impl Outcome {
    /// `skipped .git (version control), target (build output), 2 by
    /// --exclude`, or nothing when nothing was skipped.
    pub fn skipped_summary(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        const SHOWN: usize = 4;
        let named: Vec<&Skipped> = self
            .skipped
            .iter()
            .filter(|s| s.reason != SkipReason::Excluded)
            .collect();
        let mut parts: Vec<String> = named
            .iter()
            .take(SHOWN)
            .map(|s| format!("{} ({})", s.rel, s.reason.word()))
            .collect();
        if named.len() > SHOWN {
            parts.push(format!("{} more", named.len() - SHOWN));
        }
        let excluded = self.skipped.len() - named.len();
        if excluded > 0 {
            parts.push(format!("{excluded} by --exclude"));
        }
        Some(format!("skipped {}", parts.join(", ")))
    }
}

/// Whether `regions` are a valid IDF for `file` alone.
fn valid_regions(file: &SourceFile, regions: &[Region]) -> Result<(), String> {
    let idf = Idf {
        header: Header {
            format_version: FORMAT_VERSION,
            tool: "instrument".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            options: Default::default(),
            files: vec![file.clone()],
        },
        regions: regions.to_vec(),
    };
    idf.validate().map_err(|errs| {
        errs.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// A warning that code was left as written (`--strict` makes it an error).
fn is_not_measured(d: &Diagnostic) -> bool {
    !d.is_error() && d.message.starts_with("not measured:")
}

/// Problems with the invocation itself (not with one user file).
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("{path}: error: {what}: {err}")]
    Io {
        path: String,
        what: &'static str,
        err: std::io::Error,
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
    #[error("{link}: error: is a symbolic link (to `{target}`) inside the output directory; Regio never writes through links there (it could overwrite your sources): remove it or choose another --out")]
    LinkInOut { link: String, target: String },
    #[error("{path}: error: cannot write: {err}; nothing in `{out}` was changed")]
    Staging {
        path: String,
        out: String,
        err: std::io::Error,
    },
    #[error("{path}: error: cannot move into place: {err}; `{out}` is incomplete and has no IDF: run again")]
    Commit {
        path: String,
        out: String,
        err: std::io::Error,
    },
    #[error("internal error: the IDF we built is invalid: {0}")]
    InvalidIdf(String),
    /// More local ids than one IDF may hold (`build_idf::check_id_limit`).
    #[error("{0}")]
    TooManyIds(String),
}

fn io_err<'a>(
    path: &'a Path,
    what: &'static str,
) -> impl FnOnce(std::io::Error) -> DriverError + 'a {
    move |err| DriverError::Io {
        path: path.display().to_string(),
        what,
        err,
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

const VCS_DIRS: [&str; 5] = [".git", ".hg", ".svn", ".bzr", "_darcs"];
/// The first line of a cache directory tag (https://bford.info/cachedir/).
const CACHEDIR_SIGNATURE: &[u8] = b"Signature: 8a477f597d28d172789f06886806bc55";
/// Prefix of the staging directory a run writes into (see [`run`]).
const STAGING_PREFIX: &str = ".regio-staging.";
/// Infix of the temporary names of [`write_atomically`].
const TMP_INFIX: &str = ".regio-tmp.";

/// Why a directory (never a top-level input) is left out, by its name and
/// a look at its content.
fn skip_dir(path: &Path, name: &str) -> Option<SkipReason> {
    if VCS_DIRS.contains(&name) || (name == "CVS" && path.join("Entries").is_file()) {
        return Some(SkipReason::VersionControl);
    }
    // Cargo tags its target directory; so do other tools for their caches.
    let tagged = fs::File::open(path.join("CACHEDIR.TAG")).is_ok_and(|mut f| {
        let mut head = [0u8; CACHEDIR_SIGNATURE.len()];
        f.read_exact(&mut head).is_ok() && head == CACHEDIR_SIGNATURE
    });
    // Older Cargo wrote no tag: its target directory has these instead.
    let cargo_target = name == "target"
        && (path.join(".rustc_info.json").is_file()
            || path.join("debug/.fingerprint").is_dir()
            || path.join("release/.fingerprint").is_dir());
    if tagged || cargo_target {
        return Some(SkipReason::BuildOutput);
    }
    let profiles = || {
        fs::read_dir(path).is_ok_and(|rd| {
            rd.flatten().any(|e| {
                let n = e.file_name();
                let n = n.to_string_lossy();
                n.starts_with("profile-r") && n.ends_with(".json")
            })
        })
    };
    if name.starts_with("regio-run-") || profiles() {
        return Some(SkipReason::RegioRun);
    }
    if path.join(IDF_FILE_NAME).is_file() {
        return Some(SkipReason::RegioOutput);
    }
    None
}

/// Directory arguments are mirrored by content into the output root; file
/// arguments land at the root under their own name.
fn collect_inputs(
    paths: &[PathBuf],
    out_abs: &Path,
    exclude: &Exclude,
    skipped: &mut Vec<Skipped>,
) -> Result<Vec<InputFile>, DriverError> {
    let mut by_rel: BTreeMap<String, InputFile> = BTreeMap::new();
    for root in paths {
        let meta =
            fs::metadata(root).map_err(|_| DriverError::Missing(root.display().to_string()))?;
        let root_abs = fs::canonicalize(root).map_err(io_err(root, "cannot resolve"))?;
        if root_abs.starts_with(out_abs) {
            return Err(DriverError::OutIsInput(out_abs.display().to_string()));
        }
        let mut found = Vec::new();
        if meta.is_dir() {
            let walker = walkdir::WalkDir::new(root)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| {
                    if e.depth() == 0 {
                        return true;
                    }
                    let name = e.file_name().to_string_lossy();
                    let rel = rel_string(e.path().strip_prefix(root).unwrap_or(e.path()));
                    let is_dir = e.file_type().is_dir();
                    // Our own temporary and staging names, and our own
                    // output (`instrument . --out regio-out`): silently.
                    if name.contains(TMP_INFIX) || (is_dir && name.starts_with(STAGING_PREFIX)) {
                        return false;
                    }
                    if is_dir && fs::canonicalize(e.path()).is_ok_and(|p| p == out_abs) {
                        return false;
                    }
                    let reason = if exclude.matches(&rel) {
                        Some(SkipReason::Excluded)
                    } else if name == ".git" {
                        // Also the `.git` file of a submodule or worktree.
                        Some(SkipReason::VersionControl)
                    } else if is_dir {
                        skip_dir(e.path(), &name)
                    } else {
                        None
                    };
                    match reason {
                        Some(reason) => {
                            skipped.push(Skipped { rel, reason });
                            false
                        }
                        None => true,
                    }
                });
            for entry in walker {
                let entry = entry.map_err(|e| DriverError::Io {
                    path: e
                        .path()
                        .map_or_else(|| root.display().to_string(), |p| p.display().to_string()),
                    what: "cannot read directory",
                    err: e.into(),
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

/// Refuses an output path whose directories (below `out_abs`) include a
/// symbolic link: renaming a file into a linked directory would write
/// wherever the link points, which may be the sources. The file itself may
/// be a link: the rename replaces the link, not what it points to.
fn check_no_links(
    out_abs: &Path,
    rel: &str,
    checked: &mut HashSet<PathBuf>,
) -> Result<(), DriverError> {
    let mut dir = out_abs.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        dir.push(part);
        if checked.contains(&dir) {
            continue;
        }
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&dir)
                    .map(|t| t.display().to_string())
                    .unwrap_or_else(|_| "?".into());
                return Err(DriverError::LinkInOut {
                    link: dir.display().to_string(),
                    target,
                });
            }
            Ok(_) => {
                checked.insert(dir.clone());
            }
            // Not there yet: created by this run, so no link below it.
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

/// Write `bytes` to `dest` through a temporary file in the same directory,
/// so a failure (ours or the disk's) never leaves a half-written file under
/// the real name, and a hard link to `dest` keeps its old content. No
/// fsync: the output is derived data that the next run remakes, and syncing
/// every file of a tree made small runs several times slower; the rename
/// alone already keeps readers from a partial file.
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> Result<(), DriverError> {
    let dir = dest.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err(dir, "cannot create directory"))?;
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}{TMP_INFIX}{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        fs::rename(&tmp, dest)
    })();
    if let Err(err) = result {
        let _ = fs::remove_file(&tmp);
        return Err(DriverError::Io {
            path: dest.display().to_string(),
            what: "cannot write",
            err,
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

/// A source file's text as the front ends see it, and how to turn their
/// output back into bytes of the file's own encoding and line endings.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SourceText {
    text: String,
    /// Not UTF-8: every byte was decoded as the Latin-1 character of the
    /// same number, so each original byte is one character of `text`.
    latin1: bool,
    /// Lines ended by CR alone (no LF anywhere): each CR became an LF.
    cr_only: bool,
    /// Not UTF-8, and `text` holds one ASCII control character (`mark`,
    /// absent from the file) in place of each byte from 0x80 up, so every
    /// column is the file's own; used for Fortran, whose fixed form counts
    /// columns up to 72.
    marks: Option<Marks>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Marks {
    mark: char,
    /// The bytes the marks stand for, in file order.
    bytes: Vec<u8>,
}

/// Whether `v` holds `mark` in a string anywhere.
fn json_has(v: &serde_json::Value, mark: char) -> bool {
    match v {
        serde_json::Value::String(s) => s.contains(mark),
        serde_json::Value::Array(a) => a.iter().any(|v| json_has(v, mark)),
        serde_json::Value::Object(o) => o.values().any(|v| json_has(v, mark)),
        _ => false,
    }
}

impl SourceText {
    /// Bytes of the instrumented text, in the source's encoding and line
    /// endings. Front ends only insert ASCII, apart from paths of the user's
    /// files; in a Latin-1 file, a character above U+00FF (possible only in
    /// such a path) is written as UTF-8.
    fn encode(&self, out: &str) -> Vec<u8> {
        let out = if self.cr_only {
            std::borrow::Cow::Owned(out.replace('\n', "\r"))
        } else {
            std::borrow::Cow::Borrowed(out)
        };
        if let Some(m) = &self.marks {
            // Checked by `keeps_marks`; a mark without its byte (never
            // reached) would be written as `?`.
            let mut originals = m.bytes.iter();
            return out
                .chars()
                .map(|c| match c == m.mark {
                    true => originals.next().copied().unwrap_or(b'?'),
                    false => c as u8,
                })
                .collect();
        }
        if !self.latin1 {
            return out.into_owned().into_bytes();
        }
        let mut bytes = Vec::with_capacity(out.len());
        for c in out.chars() {
            match u8::try_from(c as u32) {
                Ok(b) => bytes.push(b),
                Err(_) => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        bytes
    }

    /// Whether `result` can be written back byte for byte: each mark of the
    /// original is in the output once, in order, and none went into the
    /// IDF. Always true without marks.
    fn keeps_marks(&self, result: &FrontendResult) -> bool {
        let (Some(m), Ok(done)) = (&self.marks, result) else {
            return true;
        };
        done.text.chars().filter(|&c| c == m.mark).count() == m.bytes.len()
            && done.text.is_ascii()
            && !done.regions.iter().any(|r| {
                r.name.contains(m.mark)
                    || r.unit.contains(m.mark)
                    || r.aux.values().any(|v| json_has(v, m.mark))
            })
    }

    /// The same file read with Latin-1 characters instead of marks.
    fn with_latin1_chars(self) -> SourceText {
        let Some(m) = self.marks else {
            return self;
        };
        let mut originals = m.bytes.into_iter();
        let text = self
            .text
            .chars()
            .map(|c| match c == m.mark {
                true => originals.next().map_or('?', char::from),
                false => c,
            })
            .collect();
        SourceText {
            text,
            latin1: true,
            cr_only: self.cr_only,
            marks: None,
        }
    }

    /// The 1-based byte column in the original file of a 1-based byte
    /// column of `self.text` (they differ after a Latin-1 character).
    fn original_col(&self, line_starts: &[usize], line: u32, col: u32) -> u32 {
        if !self.latin1 || line == 0 {
            return col;
        }
        let Some(&start) = line_starts.get(line as usize - 1) else {
            return col;
        };
        let mut end = (start + col.saturating_sub(1) as usize).min(self.text.len());
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        self.text[start..end].chars().count() as u32 + 1
    }

    /// Line and longest-line figures of the original file.
    fn line_stats(&self) -> (u32, u32) {
        if self.latin1 {
            let same_width: String = self
                .text
                .chars()
                .map(|c| if c.is_ascii() { c } else { '?' })
                .collect();
            line_stats(&same_width)
        } else {
            line_stats(&self.text)
        }
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Text of a source file, or the diagnostic that says why it is not text.
/// C and Fortran files that are not UTF-8 are read as Latin-1 (old codes
/// have such comments and strings) and written back byte for byte; Rust
/// sources must be UTF-8, as for rustc.
fn source_text(display: &str, bytes: Vec<u8>, lang: Language) -> Result<SourceText, Diagnostic> {
    if bytes.contains(&0) {
        return Err(Diagnostic::error(
            display,
            1,
            1,
            "not a text file (contains NUL bytes)",
        ));
    }
    let mut marks = None;
    let (text, latin1) = match String::from_utf8(bytes) {
        Ok(t) => (t, false),
        Err(e) if lang == Language::Rust => {
            let offset = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(&e.as_bytes()[..offset]).into_owned();
            let (line, col) = crate::diag::line_col(&text, offset);
            return Err(Diagnostic::error(
                display,
                line,
                col,
                "not a UTF-8 text file",
            ));
        }
        Err(e) => {
            let bytes = e.into_bytes();
            // Fortran counts columns: a mark per byte keeps them.
            let free = (1u8..=8).chain(14..=31).find(|b| !bytes.contains(b));
            if let (Language::Fortran(_), Some(mark)) = (lang, free) {
                let text = bytes
                    .iter()
                    .map(|&b| {
                        if b < 0x80 {
                            char::from(b)
                        } else {
                            char::from(mark)
                        }
                    })
                    .collect();
                marks = Some(Marks {
                    mark: char::from(mark),
                    bytes: bytes.into_iter().filter(|&b| b >= 0x80).collect(),
                });
                (text, false)
            } else {
                (bytes.iter().map(|&b| char::from(b)).collect(), true)
            }
        }
    };
    let cr_only = !text.contains('\n') && text.contains('\r');
    let text = if cr_only {
        text.replace('\r', "\n")
    } else {
        text
    };
    Ok(SourceText {
        text,
        latin1,
        cr_only,
        marks,
    })
}

fn run_front_end(lang: Language, input: &SourceInput, macros: &HashSet<String>) -> FrontendResult {
    match lang {
        Language::C => crate::c::instrument_with_macros(input, macros),
        Language::Fortran(form) => crate::fortran::instrument(input, form),
        Language::Rust => crate::rust::instrument(input),
    }
}

/// How far a run is, for a progress display.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// The inputs are known: this many files will be handled.
    Start { files: usize },
    /// This file (relative to the output root) is being handled.
    File { rel: &'a str },
    /// Every file is handled; what is left is moving them into place.
    Done,
}

/// The private directory a run writes into before anything in `--out`
/// changes; removed when dropped unless the run got through.
struct Staging {
    dir: PathBuf,
    out: PathBuf,
    /// Relative paths written, in order.
    files: Vec<String>,
}

impl Staging {
    fn new(out_abs: &Path) -> Result<Staging, DriverError> {
        let dir = out_abs.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        // Staging directories of runs that were killed: their process is
        // gone (or it is us, reusing the pid).
        for entry in fs::read_dir(out_abs).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(STAGING_PREFIX)) else {
                continue;
            };
            let gone = pid.parse::<u32>().is_ok_and(|pid| {
                pid == std::process::id() || !Path::new("/proc").join(pid.to_string()).exists()
            });
            if gone && Path::new("/proc/self").exists() {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
        fs::create_dir(&dir).map_err(|err| DriverError::Staging {
            path: dir.display().to_string(),
            out: out_abs.display().to_string(),
            err,
        })?;
        Ok(Staging {
            dir,
            out: out_abs.to_path_buf(),
            files: Vec::new(),
        })
    }

    fn staging_err(&self, rel: &str) -> impl FnOnce(std::io::Error) -> DriverError {
        let path = self.out.join(rel).display().to_string();
        let out = self.out.display().to_string();
        move |err| DriverError::Staging { path, out, err }
    }

    /// The staged path of `rel`, its directory created.
    fn path_for(&self, rel: &str) -> Result<PathBuf, DriverError> {
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(self.staging_err(rel))?;
        }
        Ok(path)
    }

    fn write(&mut self, rel: &str, bytes: &[u8]) -> Result<(), DriverError> {
        let path = self.path_for(rel)?;
        fail_point(rel).map_err(self.staging_err(rel))?;
        fs::write(&path, bytes).map_err(self.staging_err(rel))?;
        self.files.push(rel.to_string());
        Ok(())
    }

    /// Copies `src` with its permissions (scripts in the tree must stay
    /// executable for the user's build). `Ok(Err(e))`: `src` could not be
    /// read, which is that file's failure, not the run's.
    fn copy(&mut self, rel: &str, src: &Path) -> Result<Result<(), std::io::Error>, DriverError> {
        // A FIFO or device named like a file would block or never end.
        match fs::metadata(src) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Ok(Err(std::io::Error::other("not a regular file"))),
            Err(e) => return Ok(Err(e)),
        }
        let mut from = match fs::File::open(src).and_then(|f| Ok((f.metadata()?.permissions(), f)))
        {
            Ok((perms, f)) => (perms, f),
            Err(e) => return Ok(Err(e)),
        };
        let path = self.path_for(rel)?;
        fail_point(rel).map_err(self.staging_err(rel))?;
        let mut to = fs::File::create(&path).map_err(self.staging_err(rel))?;
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match from.1.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    drop(to);
                    let _ = fs::remove_file(&path);
                    return Ok(Err(e));
                }
            };
            to.write_all(&buf[..n]).map_err(self.staging_err(rel))?;
        }
        to.set_permissions(from.0).map_err(self.staging_err(rel))?;
        self.files.push(rel.to_string());
        Ok(Ok(()))
    }

    /// Moves every staged file into place, the IDF last. Before the first
    /// move the old IDF goes, so no IDF ever describes files it does not
    /// match; if a move fails, the files moved so far are removed too.
    fn commit(mut self, removed: &[String]) -> Result<(), DriverError> {
        let out = self.out.clone();
        let commit_err = |rel: &str| {
            let path = out.join(rel).display().to_string();
            let out = out.display().to_string();
            move |err| DriverError::Commit { path, out, err }
        };
        let idf = out.join(IDF_FILE_NAME);
        if fs::symlink_metadata(&idf).is_ok() {
            fs::remove_file(&idf).map_err(commit_err(IDF_FILE_NAME))?;
        }
        let mut moved: Vec<PathBuf> = Vec::new();
        let result = (|| {
            for rel in removed {
                let dest = out.join(rel);
                if fs::symlink_metadata(&dest).is_ok() {
                    fs::remove_file(&dest).map_err(commit_err(rel))?;
                }
            }
            for rel in &self.files {
                let dest = out.join(rel);
                if let Some(parent) = dest.parent() {
                    fs::create_dir_all(parent).map_err(commit_err(rel))?;
                }
                fs::rename(self.dir.join(rel), &dest).map_err(commit_err(rel))?;
                moved.push(dest);
            }
            Ok(())
        })();
        if result.is_err() {
            for m in &moved {
                let _ = fs::remove_file(m);
            }
        }
        self.files.clear();
        result
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
thread_local! {
    /// Test hook: staging the file with this relative path fails with
    /// ENOSPC, as on a full disk.
    static FAIL_STAGING: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

#[cfg(test)]
fn fail_point(rel: &str) -> std::io::Result<()> {
    FAIL_STAGING.with(|f| match f.borrow().as_deref() {
        Some(r) if r == rel => Err(std::io::Error::from_raw_os_error(28)),
        _ => Ok(()),
    })
}

#[cfg(not(test))]
fn fail_point(_rel: &str) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
thread_local! {
    /// Test hook: a lower limit on one IDF's ids than
    /// `build_idf::LOCAL_ID_LIMIT` (a test cannot write 4M regions).
    static ID_LIMIT: std::cell::Cell<u32> = const { std::cell::Cell::new(crate::build_idf::LOCAL_ID_LIMIT) };
}

#[cfg(test)]
fn id_limit() -> u32 {
    ID_LIMIT.with(|l| l.get())
}

#[cfg(not(test))]
fn id_limit() -> u32 {
    crate::build_idf::LOCAL_ID_LIMIT
}

/// One source file to instrument on its own: what [`run`] does for each
/// file of a tree, and what `instrument wrap` does for each source of a
/// compiler command.
#[derive(Debug, Clone, Copy)]
pub struct FileJob<'a> {
    /// Where to read it.
    pub source: &'a Path,
    /// The path as the user gave it: diagnostics and `#line` name it.
    pub display: &'a str,
    /// The IDF `file` of its regions.
    pub rel: &'a str,
    pub lang: Language,
    /// Its regions get consecutive ids from here.
    pub first_id: u32,
    /// The IDF its probes register at start (absolute).
    pub idf_path: &'a str,
}

/// A file [`instrument_file`] got through (possibly with nothing measured).
#[derive(Debug, Clone)]
pub struct FileDone {
    /// The instrumented text in the source's own encoding and line ends.
    pub bytes: Vec<u8>,
    /// Its IDF header entry.
    pub file: SourceFile,
    /// Ids `first_id..first_id + regions.len()`.
    pub regions: Vec<Region>,
    /// Warnings, in order.
    pub warnings: Vec<Diagnostic>,
    /// How many places were left as written (`not measured`).
    pub not_measured: usize,
    /// Some place was not measured and the text is the file as written.
    pub left_as_written: bool,
    /// No measured region and no change: a source without regions.
    pub unchanged: bool,
}

/// Instrument one file with `opts.selection`, `opts.filter`,
/// `opts.strict` and `opts.preprocess` (the other options concern trees).
/// `Err`: every diagnostic of the failed file, warnings included.
pub fn instrument_file(
    opts: &Options,
    job: &FileJob<'_>,
    macros: &HashSet<String>,
) -> Result<FileDone, Vec<Diagnostic>> {
    instrument_bytes(opts, job, read_source(job)?, macros)
}

fn read_source(job: &FileJob<'_>) -> Result<Vec<u8>, Vec<Diagnostic>> {
    fs::read(job.source).map_err(|e| {
        vec![Diagnostic::error(
            job.display,
            0,
            0,
            format!("cannot read this file: {e}"),
        )]
    })
}

/// [`instrument_file`] on the file's `bytes`, already read.
fn instrument_bytes(
    opts: &Options,
    job: &FileJob<'_>,
    bytes: Vec<u8>,
    macros: &HashSet<String>,
) -> Result<FileDone, Vec<Diagnostic>> {
    let lang = job.lang;
    let mut diagnostics = Vec::new();
    let hash = sha256_hex(&bytes);
    let mut decoded = source_text(job.display, bytes, lang).map_err(|d| vec![d])?;
    // Every reading of this file differs only in its text.
    let base = SourceInput {
        text: "",
        display_path: job.display,
        rel_path: job.rel,
        idf_path: job.idf_path,
        selection: opts.selection,
        filter: &opts.filter,
        first_id: job.first_id,
    };
    let front_end = |d: &SourceText| {
        let source = SourceInput {
            text: &d.text,
            ..base
        };
        run_front_end(lang, &source, macros)
    };
    let plain_text = !decoded.latin1 && !decoded.cr_only && decoded.marks.is_none();
    let pp = match &opts.preprocess {
        Some(pp) if lang == Language::C && plain_text && job.rel.ends_with(".c") => {
            Some(pp.run(job.source))
        }
        _ => None,
    };
    let mut result = match &pp {
        Some(Ok((text, own_file))) => {
            let source = SourceInput { text, ..base };
            match crate::c::instrument_preprocessed(&source, own_file) {
                // Nothing measured: the file as written is the copy.
                Ok(done) if done.regions.iter().all(crate::frontend::is_listed_only) => {
                    Ok(crate::frontend::Instrumented {
                        text: decoded.text.clone(),
                        ..done
                    })
                }
                // The unit defines no macro any more, but the MPI rank
                // probe names MPI_COMM_WORLD (a macro in every MPI): such a
                // file would not compile, so it takes the text path.
                Ok(done)
                    if done.text.contains("(MPI_COMM_WORLD,")
                        && !text.contains("MPI_COMM_WORLD") =>
                {
                    front_end(&decoded)
                }
                r => r,
            }
        }
        Some(Err(why)) => {
            diagnostics.push(Diagnostic::warning(
                job.display,
                1,
                1,
                format!("the preprocessor failed ({why}); the text as written is instrumented"),
            ));
            front_end(&decoded)
        }
        None => front_end(&decoded),
    };
    if !decoded.keeps_marks(&result) {
        // The front end copied or dropped text with a Latin-1 byte:
        // read the file again with Latin-1 characters.
        decoded = decoded.with_latin1_chars();
        result = front_end(&decoded);
    }
    // Positions in the original bytes, where a Latin-1 character is one
    // column.
    let starts = if decoded.latin1 {
        line_starts(&decoded.text)
    } else {
        Vec::new()
    };
    let fix_diag = |mut d: Diagnostic| {
        d.col = decoded.original_col(&starts, d.line, d.col);
        if let Some(m) = &decoded.marks {
            d.message = d.message.replace(m.mark, "?");
        }
        d
    };
    match result {
        Ok(done) if opts.strict && done.warnings.iter().any(is_not_measured) => {
            diagnostics.extend(done.warnings.into_iter().filter(is_not_measured).map(|w| {
                Diagnostic {
                    severity: crate::diag::Severity::Error,
                    ..fix_diag(w)
                }
            }));
            Err(diagnostics)
        }
        Ok(mut done) => {
            if decoded.latin1 {
                for r in &mut done.regions {
                    r.start.col = decoded.original_col(&starts, r.start.line, r.start.col);
                    r.end.col = decoded.original_col(&starts, r.end.line, r.end.col);
                }
            }
            let (lines, max_line_len) = decoded.line_stats();
            let source_file = SourceFile {
                path: job.rel.to_string(),
                original: job.display.to_string(),
                hash,
                lines,
                max_line_len,
            };
            // A front end's mistake costs this file's measurements,
            // never the run: the file is copied as written.
            if let Err(why) = valid_regions(&source_file, &done.regions) {
                done = crate::frontend::Instrumented {
                    text: decoded.text.clone(),
                    regions: Vec::new(),
                    warnings: vec![Diagnostic::warning(
                        job.display,
                        1,
                        1,
                        format!(
                            "not measured: this file left as written (internal error: {why}; please report it)"
                        ),
                    )],
                };
            }
            let not_measured = done.warnings.iter().filter(|w| is_not_measured(w)).count();
            let same_text = done.text == decoded.text;
            let bytes = decoded.encode(&done.text);
            diagnostics.extend(done.warnings.into_iter().map(fix_diag));
            Ok(FileDone {
                bytes,
                file: source_file,
                // Small functions alone get no probe: a source without
                // measured regions.
                unchanged: same_text
                    && done
                        .regions
                        .iter()
                        .all(|r| crate::small_functions::is_marked(&r.aux)),
                regions: done.regions,
                warnings: diagnostics,
                not_measured,
                left_as_written: not_measured > 0 && same_text,
            })
        }
        Err(diags) => {
            diagnostics.extend(diags.into_iter().map(fix_diag));
            Err(diagnostics)
        }
    }
}

/// The tree's C files instrumented in parallel (rayon; `RAYON_NUM_THREADS`
/// sets the threads) with provisional ids, by input index; empty with one
/// thread or under `--preprocess` (its text holds the headers', not only
/// the file's). See `renumber.rs`.
fn c_files_ahead(
    opts: &Options,
    inputs: &[InputFile],
    idf_path: &str,
    macros: &HashSet<String>,
) -> Vec<Option<Provisional>> {
    use rayon::prelude::*;
    let is_c = |input: &InputFile| {
        input.rel != IDF_FILE_NAME
            && opts.filter.allows_file(&input.rel)
            && language_for(&input.rel, &input.source, &opts.form_overrides) == Some(Language::C)
    };
    // One C file gains nothing, and asking for the thread count starts
    // the pool's threads: a process per file (`make`, the wrapper) pays
    // neither.
    if opts.preprocess.is_some()
        || inputs.iter().filter(|i| is_c(i)).nth(1).is_none()
        || rayon::current_num_threads() < 2
    {
        return Vec::new();
    }
    inputs
        .par_iter()
        .map(|input| {
            if !is_c(input) {
                return None;
            }
            let bytes = fs::read(&input.source).ok()?;
            let first_id = renumber::first_id_for(&[
                &bytes,
                input.display.as_bytes(),
                input.rel.as_bytes(),
                idf_path.as_bytes(),
            ])?;
            let job = FileJob {
                source: &input.source,
                display: &input.display,
                rel: &input.rel,
                lang: Language::C,
                first_id,
                idf_path,
            };
            Some(Provisional::new(
                first_id,
                instrument_bytes(opts, &job, bytes, macros),
            ))
        })
        .collect()
}

/// Instrument every input into `opts.out` and write the IDF.
pub fn run(opts: &Options) -> Result<Outcome, DriverError> {
    run_with_progress(opts, &mut |_| {})
}

/// [`run`], telling `progress` how far it is.
pub fn run_with_progress(
    opts: &Options,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Outcome, DriverError> {
    fs::create_dir_all(&opts.out).map_err(io_err(&opts.out, "cannot create directory"))?;
    let out_abs = fs::canonicalize(&opts.out).map_err(io_err(&opts.out, "cannot resolve"))?;
    let idf_path = out_abs.join(IDF_FILE_NAME);
    let idf_path_text = idf_path.display().to_string();
    let mut outcome = Outcome {
        idf_path: idf_path.clone(),
        ..Outcome::default()
    };
    let inputs = collect_inputs(&opts.paths, &out_abs, &opts.exclude, &mut outcome.skipped)?;
    // Every output place is checked before anything is written.
    let mut checked = HashSet::new();
    check_no_links(&out_abs, IDF_FILE_NAME, &mut checked)?;
    for input in &inputs {
        check_no_links(&out_abs, &input.rel, &mut checked)?;
    }

    // Lower-case function-like macros of the tree's headers: with
    // `--regions calls` their uses look like calls and must not be wrapped.
    let tree_macros: HashSet<String> = inputs
        .iter()
        .filter(|i| i.rel.ends_with(".h"))
        .filter_map(|i| fs::read(&i.source).ok())
        .flat_map(|b| crate::c::function_like_macros(&String::from_utf8_lossy(&b)))
        .collect();
    let mut staging = Staging::new(&out_abs)?;
    let mut removed: Vec<String> = Vec::new();
    let mut files = Vec::new();
    let mut regions: Vec<Region> = Vec::new();
    let mut next_id: u32 = 1;
    progress(Progress::Start {
        files: inputs.len(),
    });
    let mut ahead = c_files_ahead(opts, &inputs, &idf_path_text, &tree_macros);

    for (index, input) in inputs.iter().enumerate() {
        progress(Progress::File { rel: &input.rel });
        if input.rel == IDF_FILE_NAME {
            // An IDF from an earlier run in the input tree is replaced below.
            continue;
        }
        let cannot_read = |e: std::io::Error| {
            Diagnostic::error(&input.display, 0, 0, format!("cannot read this file: {e}"))
        };
        let mut fail = |outcome: &mut Outcome, diags: Vec<Diagnostic>| {
            // Nothing may be left for a failed file: not even an output
            // from an earlier, successful run that no longer matches.
            removed.push(input.rel.clone());
            outcome.failed += 1;
            outcome.diagnostics.extend(diags);
        };
        let lang = language_for(&input.rel, &input.source, &opts.form_overrides)
            .filter(|_| opts.filter.allows_file(&input.rel));
        let Some(lang) = lang else {
            if input.rel.rsplit('/').next() == Some("Cargo.toml") {
                let text = match fs::read_to_string(&input.source) {
                    Ok(t) => t,
                    Err(e) => {
                        fail(&mut outcome, vec![cannot_read(e)]);
                        continue;
                    }
                };
                match crate::rust::cargo_toml::with_regio(&text, &input.display, &opts.rust_regio) {
                    Ok(Some(new)) => {
                        staging.write(&input.rel, new.as_bytes())?;
                        outcome.cargo_manifests += 1;
                        continue;
                    }
                    Ok(None) => {}
                    Err(d) => {
                        fail(&mut outcome, vec![d]);
                        continue;
                    }
                }
            }
            match staging.copy(&input.rel, &input.source)? {
                Ok(()) => outcome.copied += 1,
                Err(e) => fail(&mut outcome, vec![cannot_read(e)]),
            }
            continue;
        };
        let job = FileJob {
            source: &input.source,
            display: &input.display,
            rel: &input.rel,
            lang,
            first_id: next_id,
            idf_path: &idf_path_text,
        };
        // A file done ahead gets its ids now; it is instrumented here
        // when it was not, or when its ids could not be told apart.
        let result = ahead
            .get_mut(index)
            .and_then(Option::take)
            .and_then(|p| p.number(next_id))
            .unwrap_or_else(|| instrument_file(opts, &job, &tree_macros));
        match result {
            Ok(done) => {
                outcome.not_measured += done.not_measured;
                outcome.small_functions += done
                    .regions
                    .iter()
                    .filter(|r| crate::small_functions::is_marked(&r.aux))
                    .count();
                if done.left_as_written {
                    outcome.left_as_written += 1;
                }
                staging.write(&input.rel, &done.bytes)?;
                files.push(done.file);
                if done.unchanged {
                    outcome.unchanged_sources += 1;
                } else {
                    outcome.instrumented += 1;
                }
                next_id += done.regions.len() as u32;
                outcome.regions += done.regions.len();
                regions.extend(done.regions);
                outcome.diagnostics.extend(done.warnings);
            }
            Err(diags) => fail(&mut outcome, diags),
        }
    }

    let mut options = serde_json::Map::new();
    options.insert(
        "regions".into(),
        serde_json::Value::from(opts.selection.names()),
    );
    if opts.selection.small_functions {
        options.insert("small_functions".into(), serde_json::Value::from(true));
    }
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
    crate::build_idf::check_id_limit(&idf, &idf_path_text, id_limit())
        .map_err(|e| DriverError::TooManyIds(e.0))?;
    staging.write(IDF_FILE_NAME, idf.to_json().as_bytes())?;
    progress(Progress::Done);
    staging.commit(&removed)?;
    Ok(outcome)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_outside_their_file_are_caught_per_file() {
        let file = SourceFile {
            path: "a.c".into(),
            original: "src/a.c".into(),
            hash: "sha256:0".into(),
            lines: 3,
            max_line_len: 10,
        };
        let region = |end_col| Region {
            id: 1,
            kind: regio_idf::RegionKind::Function,
            name: "f".into(),
            file: "a.c".into(),
            unit: "f".into(),
            start: regio_idf::Pos::new(1, 1),
            end: regio_idf::Pos::new(3, end_col),
            parent: None,
            aux: Default::default(),
        };
        assert!(valid_regions(&file, &[region(10)]).is_ok());
        let err = valid_regions(&file, &[region(12)]).unwrap_err();
        assert!(err.contains("lies outside"), "{err}");
    }

    #[test]
    fn non_text_sources_are_diagnosed_at_their_first_bad_byte() {
        let d = source_text("x.c", b"int a;\n\0".to_vec(), Language::C).unwrap_err();
        assert_eq!(
            d.to_string(),
            "x.c:1:1: error: not a text file (contains NUL bytes)"
        );
        let d = source_text("x.rs", b"fn a(){}\nfn \xff(){}".to_vec(), Language::Rust).unwrap_err();
        assert_eq!(d.to_string(), "x.rs:2:4: error: not a UTF-8 text file");
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

    fn options(src: &Path, out: &Path) -> Options {
        Options {
            strict: false,
            preprocess: None,
            paths: vec![src.to_path_buf()],
            out: out.to_path_buf(),
            selection: "functions".parse().expect("selection"),
            filter: Filter::default(),
            filter_path: None,
            form_overrides: Vec::new(),
            rust_regio: Default::default(),
            exclude: Exclude::default(),
        }
    }

    /// Every file under `dir`, relative, with its bytes.
    fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = rel_string(e.path().strip_prefix(dir).expect("below"));
                (rel, fs::read(e.path()).expect("read"))
            })
            .collect()
    }

    /// A full disk while writing (ENOSPC, injected at the third file):
    /// `--out` keeps exactly what the earlier run left, IDF included, and
    /// no staging directory remains.
    #[test]
    fn a_write_failure_leaves_the_earlier_output_as_it_was() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, out) = (t.path().join("src"), t.path().join("out"));
        for name in ["a.c", "b.c", "c.c", "d.txt"] {
            let path = src.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, format!("int {}(void){{return 1;}}\n", &name[..1])).unwrap();
        }
        run(&options(&src, &out)).expect("first run");
        let before = snapshot(&out);
        assert!(before.contains_key(IDF_FILE_NAME) && before.contains_key("c.c"));
        // The sources change, then the disk fills up during the next run.
        for name in ["a.c", "b.c", "c.c"] {
            fs::write(src.join(name), "int changed(void){return 2;}\n").unwrap();
        }
        FAIL_STAGING.with(|f| *f.borrow_mut() = Some("c.c".into()));
        let err = run(&options(&src, &out)).expect_err("ENOSPC fails the run");
        FAIL_STAGING.with(|f| *f.borrow_mut() = None);
        let text = err.to_string();
        assert!(text.contains("c.c: error: cannot write:"), "{text}");
        assert_eq!(text.matches("os error 28").count(), 1, "{text}");
        assert!(text.contains("nothing in"), "{text}");
        assert_eq!(snapshot(&out), before, "the earlier output is untouched");
        let left: Vec<_> = fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(STAGING_PREFIX))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        // The same on a first run: nothing half-usable appears.
        let fresh = t.path().join("fresh");
        FAIL_STAGING.with(|f| *f.borrow_mut() = Some("d.txt".into()));
        let err = run(&options(&src, &fresh));
        FAIL_STAGING.with(|f| *f.borrow_mut() = None);
        assert!(err.is_err());
        assert!(snapshot(&fresh).is_empty());
    }

    /// A tree whose ids would reach the limit of one IDF (lowered here to
    /// 3: ids 1..=3) is refused naming the IDF and the count, and `--out`
    /// keeps what the earlier run left.
    #[test]
    fn a_tree_past_the_id_limit_is_refused_and_nothing_is_written() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, out) = (t.path().join("src"), t.path().join("out"));
        fs::create_dir_all(&src).unwrap();
        fs::write(src.join("a.c"), "int a(void){return 1;}\n").unwrap();
        fs::write(src.join("b.c"), "int b(void){return 1;}\n").unwrap();
        ID_LIMIT.with(|l| l.set(3));
        let first = run(&options(&src, &out));
        fs::write(src.join("c.c"), "int c(void){return 1;}\n").unwrap();
        let before = snapshot(&out);
        let err = run(&options(&src, &out)).expect_err("ids 1..=3 reach the limit");
        ID_LIMIT.with(|l| l.set(crate::build_idf::LOCAL_ID_LIMIT));
        first.expect("two regions fit");
        let text = err.to_string();
        let idf = fs::canonicalize(&out).unwrap().join(IDF_FILE_NAME);
        let idf = idf.display().to_string();
        assert!(
            text.starts_with(&format!("{idf}: error: 3 regions need ids up to 3")),
            "{text}"
        );
        assert_eq!(snapshot(&out), before, "the earlier output is untouched");
        assert!(!out.join("c.c").exists());
    }

    /// A failed file leaves no output, also none from an earlier run; the
    /// IDF lists the files that are there.
    #[test]
    fn a_failed_file_removes_its_stale_output() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, out) = (t.path().join("src"), t.path().join("out"));
        fs::create_dir_all(&src).unwrap();
        fs::write(src.join("a.c"), "int a(void){return 1;}\n").unwrap();
        fs::write(src.join("b.c"), "int b(void){return 1;}\n").unwrap();
        run(&options(&src, &out)).expect("first run");
        fs::write(src.join("b.c"), "int b(void){\0}\n").unwrap();
        let outcome = run(&options(&src, &out)).expect("second run");
        assert_eq!(outcome.failed, 1);
        assert!(!out.join("b.c").exists());
        let idf = Idf::from_json("idf", &fs::read_to_string(out.join(IDF_FILE_NAME)).unwrap())
            .expect("IDF");
        let files: Vec<_> = idf.header.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(files, ["a.c"]);
    }

    /// A run that was killed leaves its staging directory; the next run
    /// removes it, and no walk ever takes it as input.
    #[test]
    fn staging_directories_of_dead_runs_are_removed() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, out) = (t.path().join("src"), t.path().join("out"));
        fs::create_dir_all(&src).unwrap();
        fs::write(src.join("a.c"), "int a(void){return 1;}\n").unwrap();
        let dead = out.join(format!("{STAGING_PREFIX}999999999"));
        fs::create_dir_all(dead.join("sub")).unwrap();
        fs::write(dead.join("sub/x.c"), "int x;\n").unwrap();
        run(&options(&src, &out)).expect("run");
        assert!(!dead.exists());
        let names: Vec<_> = fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "a.c and the IDF only: {names:?}");
    }

    #[test]
    fn latin1_and_cr_only_round_trip() {
        let bytes = b"/* \xe9t\xe9 */\rint x;\r".to_vec();
        let d = source_text("x.c", bytes.clone(), Language::C).expect("text");
        assert!(d.latin1 && d.cr_only);
        assert_eq!(d.text, "/* \u{e9}t\u{e9} */\nint x;\n");
        assert_eq!(d.encode(&d.text), bytes);
        assert_eq!(d.encode("/* probe */\n"), b"/* probe */\r");
        // Columns count original bytes: `int` of line 2 and `*/` of line 1.
        let starts = line_starts(&d.text);
        assert_eq!(d.original_col(&starts, 1, 11), 9);
        assert_eq!(d.original_col(&starts, 2, 1), 1);
        assert_eq!(d.line_stats(), (2, 9));
        // UTF-8 and LF files are left alone.
        let d = source_text("y.c", "/* été */\n".into(), Language::C).expect("text");
        assert!(!d.latin1 && !d.cr_only);
        assert_eq!(d.encode(&d.text), "/* été */\n".as_bytes());
    }

    #[test]
    fn fortran_latin1_keeps_its_columns_with_marks() {
        let bytes = b"! \xe9t\xe9\nprint *, '\xfc'\n".to_vec();
        let lang = Language::Fortran(crate::fortran::SourceForm::Free);
        let d = source_text("x.f90", bytes.clone(), lang).expect("text");
        let m = d.marks.clone().expect("marks");
        assert_eq!(d.text.len(), bytes.len(), "one byte per byte");
        assert_eq!(m.bytes, b"\xe9\xe9\xfc");
        assert_eq!(d.encode(&d.text), bytes);
        assert_eq!(d.line_stats(), (2, 12));
        // Text the front end duplicated or dropped: read again as chars.
        let dup = Ok(crate::frontend::Instrumented {
            text: format!("{}{}", d.text, d.text),
            regions: Vec::new(),
            warnings: Vec::new(),
        });
        assert!(!d.keeps_marks(&dup));
        let chars = d.with_latin1_chars();
        assert!(chars.latin1 && chars.marks.is_none());
        assert_eq!(chars.encode(&chars.text), bytes);
    }

    #[test]
    fn skipped_summary_names_a_few_and_counts_the_rest() {
        let skip = |rel: &str, reason| Skipped {
            rel: rel.into(),
            reason,
        };
        let mut o = Outcome::default();
        assert_eq!(o.skipped_summary(), None);
        o.skipped = vec![
            skip(".git", SkipReason::VersionControl),
            skip("x.o", SkipReason::Excluded),
            skip("target", SkipReason::BuildOutput),
        ];
        assert_eq!(
            o.skipped_summary().as_deref(),
            Some("skipped .git (version control), target (build output), 1 by --exclude")
        );
    }

    #[test]
    fn hashes_are_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
