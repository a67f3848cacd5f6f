//! Finds the runtime (`libregio.so` / `libregio.a`, `regio.h`) for
//! `instrument flags`.
//!
//! Search order, first hit wins:
//! 1. `REGIO_LIB_DIR` / `REGIO_INCLUDE_DIR`, then `$REGIO_HOME/lib` and
//!    `$REGIO_HOME/include` (an installed layout);
//! 2. next to the `instrument` executable and in its `deps/` directory:
//!    cargo builds the runtime there because this crate depends on it;
//! 3. the build tree this binary was built in (so a copy of the binary
//!    elsewhere still works while that tree exists), and for the header the
//!    source tree.
//!
//! A `REGIO_LIB_DIR` or `REGIO_INCLUDE_DIR` that is set but lacks the file
//! is an error: a setting the user made is never silently passed over.

use std::env;
use std::path::{Path, PathBuf};

/// Where the native runtime lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    pub lib_dir: PathBuf,
    pub has_shared: bool,
    pub has_static: bool,
    pub include_dir: PathBuf,
}

fn shown(dirs: &[PathBuf]) -> String {
    dirs.iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    #[error("error: libregio (libregio.so or libregio.a) not found; looked in {}. Point to it with REGIO_LIB_DIR=DIR (the directory holding libregio.so or libregio.a) or REGIO_HOME=PREFIX (PREFIX/lib, PREFIX/include), or build it with `cargo build --release -p regio-rt` and use the `instrument` built with it", shown(.0))]
    Library(Vec<PathBuf>),
    #[error("error: regio.h not found; looked in {}. Point to it with REGIO_INCLUDE_DIR=DIR (the directory holding regio.h) or REGIO_HOME=PREFIX (PREFIX/include)", shown(.0))]
    Header(Vec<PathBuf>),
    #[error("error: {var}={} holds no {what}; point {var} to the directory that does, or unset it", .dir.display())]
    EmptySetting {
        var: &'static str,
        dir: PathBuf,
        what: &'static str,
    },
}

fn env_dir(var: &str) -> Option<PathBuf> {
    env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn lib_candidates() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = env_dir("REGIO_LIB_DIR") {
        dirs.push(d);
    }
    if let Some(h) = env_dir("REGIO_HOME") {
        dirs.push(h.join("lib"));
    }
    if let Some(exe_dir) = env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(exe_dir.join("deps"));
        dirs.push(exe_dir.clone());
        dirs.push(exe_dir.join("../lib"));
        // Test binaries run from target/<profile>/deps.
        if exe_dir.ends_with("deps") {
            if let Some(parent) = exe_dir.parent() {
                dirs.push(parent.to_path_buf());
            }
        }
    }
    for dir in build_dirs() {
        dirs.push(dir.join("deps"));
        dirs.push(dir);
    }
    dirs
}

/// `target/<profile>` of the workspace this binary was built in, this
/// binary's profile first.
fn build_dirs() -> Vec<PathBuf> {
    let target = option_env!("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let profiles = if cfg!(debug_assertions) {
        ["debug", "release"]
    } else {
        ["release", "debug"]
    };
    profiles.iter().map(|p| target.join(p)).collect()
}

fn include_candidates() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = env_dir("REGIO_INCLUDE_DIR") {
        dirs.push(d);
    }
    if let Some(h) = env_dir("REGIO_HOME") {
        dirs.push(h.join("include"));
    }
    if let Some(exe_dir) = env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(exe_dir.join("../include"));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/include"));
    dirs
}

/// A directory the user named in `var` must hold `file`.
fn check_setting(var: &'static str, files: &[&str], what: &'static str) -> Result<(), LocateError> {
    match env_dir(var) {
        Some(dir) if !files.iter().any(|f| dir.join(f).is_file()) => {
            Err(LocateError::EmptySetting { var, dir, what })
        }
        _ => Ok(()),
    }
}

/// Locate the header only (all `--cflags` needs).
pub fn locate_include() -> Result<PathBuf, LocateError> {
    check_setting("REGIO_INCLUDE_DIR", &["regio.h"], "regio.h")?;
    let includes = include_candidates();
    let include_dir = includes
        .iter()
        .find(|d| d.join("regio.h").is_file())
        .ok_or_else(|| LocateError::Header(includes.clone()))?;
    Ok(include_dir
        .canonicalize()
        .unwrap_or_else(|_| include_dir.to_path_buf()))
}

/// Locate the runtime library and header.
pub fn locate() -> Result<Runtime, LocateError> {
    check_setting(
        "REGIO_LIB_DIR",
        &["libregio.so", "libregio.a"],
        "libregio.so or libregio.a",
    )?;
    let libs = lib_candidates();
    let lib_dir = libs
        .iter()
        .find(|d| d.join("libregio.so").is_file() || d.join("libregio.a").is_file())
        .ok_or_else(|| LocateError::Library(libs.clone()))?;
    let include_dir = locate_include()?;
    Ok(Runtime {
        has_shared: lib_dir.join("libregio.so").is_file(),
        has_static: lib_dir.join("libregio.a").is_file(),
        lib_dir: lib_dir
            .canonicalize()
            .unwrap_or_else(|_| lib_dir.to_path_buf()),
        include_dir,
    })
}

/// Flags for the C (and Fortran) compiler: the header directory.
pub fn cflags_for(include_dir: &Path) -> String {
    format!("-I{}", include_dir.display())
}

impl Runtime {
    /// Flags for the C (and Fortran) compiler: the header directory.
    pub fn cflags(&self) -> String {
        cflags_for(&self.include_dir)
    }

    /// Linker flags. The shared library is preferred, with an rpath so the
    /// program runs without LD_LIBRARY_PATH; a static-only install links the
    /// archive and the system libraries a Rust staticlib needs.
    ///
    /// `-lregio` is wrapped in `--push-state,--no-as-needed` ...
    /// `--pop-state`: many Makefiles put LDFLAGS (or the one user variable
    /// they have) before the objects, and with `--as-needed` (the default
    /// of Debian's and Ubuntu's gcc) a shared library named before the
    /// objects that use it is dropped, so the link failed with undefined
    /// `regio_*` symbols. Kept needed, it links wherever it stands; the
    /// pop restores the Makefile's own `--as-needed` setting for the
    /// libraries after it. GCC links its sanitizer runtimes the same way;
    /// GNU ld (2.26+), gold and lld know these options.
    pub fn libs(&self) -> String {
        self.link_args().join(" ")
    }

    /// [`Runtime::libs`] as separate arguments (a directory with blanks
    /// stays one argument).
    pub fn link_args(&self) -> Vec<String> {
        let dir = self.lib_dir.display();
        if self.has_shared {
            vec![
                format!("-L{dir}"),
                format!("-Wl,-rpath,{dir}"),
                "-Wl,--push-state,--no-as-needed".into(),
                "-lregio".into(),
                "-Wl,--pop-state".into(),
            ]
        } else {
            let mut args = vec![format!("{dir}/libregio.a")];
            args.extend(["-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s"].map(String::from));
            args
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_says_where_it_looked_and_how_to_point_it() {
        let e = LocateError::Library(vec![PathBuf::from("/a/deps"), PathBuf::from("/a")]);
        let text = e.to_string();
        assert!(text.contains("looked in /a/deps, /a."), "{text}");
        assert!(text.contains("REGIO_LIB_DIR=DIR"), "{text}");
        assert!(text.contains("REGIO_HOME=PREFIX"), "{text}");
        let e = LocateError::Header(vec![PathBuf::from("/i")]);
        assert!(e.to_string().contains("REGIO_INCLUDE_DIR=DIR"));
    }

    #[test]
    fn the_build_tree_is_a_candidate() {
        let dirs = lib_candidates();
        let built = build_dirs();
        assert!(built.iter().all(|b| dirs.contains(b)), "{dirs:?}");
    }
}
