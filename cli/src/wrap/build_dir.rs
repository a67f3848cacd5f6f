//! Which IDF the compile commands of one build share, and the lock that
//! serializes their updates (`make -j`).

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The directory of the build's IDF: `REGIO_WRAP_DIR` when set; else the
/// top of a CMake build tree (the nearest directory above holding
/// `CMakeCache.txt`), whose commands run in per-target subdirectories;
/// else the directory the command runs in. A recursive Make build, whose
/// commands run in several directories, sets `REGIO_WRAP_DIR`.
pub fn locate() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("REGIO_WRAP_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("REGIO_WRAP_DIR={}: error: cannot create", dir.display()))?;
        return std::fs::canonicalize(&dir)
            .with_context(|| format!("REGIO_WRAP_DIR={}: error: cannot resolve", dir.display()));
    }
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .context("error: cannot resolve the current directory")?;
    let cmake_top = cwd
        .ancestors()
        .find(|d| d.join("CMakeCache.txt").is_file())
        .map(Path::to_path_buf);
    Ok(cmake_top.unwrap_or(cwd))
}

/// An exclusive `flock` on `<dir>/.regio.idf.json.lock`, released when
/// dropped (or when the process ends, however it ends).
pub struct Lock {
    _file: std::fs::File,
}

impl Lock {
    pub fn acquire(dir: &Path) -> Result<Lock> {
        let path = dir.join(".regio.idf.json.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("{}: error: cannot open", path.display()))?;
        loop {
            // SAFETY: a valid open descriptor; flock has no memory effects.
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if r == 0 {
                break;
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(err).with_context(|| format!("{}: error: cannot lock", path.display()));
            }
        }
        Ok(Lock { _file: file })
    }
}
