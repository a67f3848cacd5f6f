//! Finds the runtime (`libregio.so` / `libregio.a`, `regio.h`) for
//! `instrument flags`.
//!
//! Search order, first hit wins:
//! 1. `REGIO_LIB_DIR` / `REGIO_INCLUDE_DIR`, then `$REGIO_HOME/lib` and
//!    `$REGIO_HOME/include` (an installed layout);
//! 2. next to the `instrument` executable and in its `deps/` directory:
//!    cargo builds the runtime there because the instrumenter depends on it;
//! 3. for the header only, the source tree this binary was built from.

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

#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    #[error("error: libregio (libregio.so or libregio.a) not found; looked in {}. Build it with `cargo build --release -p regio` or set REGIO_LIB_DIR", .0.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    Library(Vec<PathBuf>),
    #[error("error: regio.h not found; looked in {}. Set REGIO_INCLUDE_DIR", .0.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    Header(Vec<PathBuf>),
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
    dirs
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

/// Locate the runtime library and header.
pub fn locate() -> Result<Runtime, LocateError> {
    let libs = lib_candidates();
    let lib_dir = libs
        .iter()
        .find(|d| d.join("libregio.so").is_file() || d.join("libregio.a").is_file())
        .ok_or_else(|| LocateError::Library(libs.clone()))?;
    let includes = include_candidates();
    let include_dir = includes
        .iter()
        .find(|d| d.join("regio.h").is_file())
        .ok_or_else(|| LocateError::Header(includes.clone()))?;
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    Ok(Runtime {
        has_shared: lib_dir.join("libregio.so").is_file(),
        has_static: lib_dir.join("libregio.a").is_file(),
        lib_dir: canon(lib_dir),
        include_dir: canon(include_dir),
    })
}

impl Runtime {
    /// Flags for the C (and Fortran) compiler: the header directory.
    pub fn cflags(&self) -> String {
        format!("-I{}", self.include_dir.display())
    }

    /// Linker flags. The shared library is preferred, with an rpath so the
    /// program runs without LD_LIBRARY_PATH; a static-only install links the
    /// archive and the system libraries a Rust staticlib needs.
    pub fn libs(&self) -> String {
        let dir = self.lib_dir.display();
        if self.has_shared {
            format!("-L{dir} -Wl,-rpath,{dir} -lregio")
        } else {
            format!("{dir}/libregio.a -lpthread -ldl -lm -lrt -lgcc_s")
        }
    }
}
