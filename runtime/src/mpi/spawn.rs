//! Processes started by `MPI_Comm_spawn` have an `MPI_COMM_WORLD` of
//! their own (rank 0 again) and, inheriting `REGIO_DIR`, write into the
//! run directory of the job that spawned them. Their files never collide
//! with the spawning job's (the names carry the pid), but readers would
//! take them for more processes of the job's ranks. So at `MPI_Init` such
//! a process leaves a marker, `regio.spawned-r<rank>-p<pid>.txt`, by which
//! `instrument report` and `export` leave its profile and trace out (with
//! a warning): the run directory describes one `MPI_COMM_WORLD`.

use regio_idf::rundir::{SPAWNED_PREFIX, SPAWNED_SUFFIX};

use crate::config::Config;
use crate::mpi::pmpi;
use crate::out::warn;
use crate::sys;

/// After `MPI_Init` returned, with the rank MPI reported.
pub fn at_init(cfg: &Config, rank: u32) {
    if !pmpi::spawned() {
        return;
    }
    use std::os::unix::ffi::OsStrExt;
    let dir = std::path::Path::new(std::ffi::OsStr::from_bytes(&cfg.run_dir));
    let path = dir.join(format!(
        "{SPAWNED_PREFIX}{rank}-p{}{SPAWNED_SUFFIX}",
        sys::getpid()
    ));
    let text = format!(
        "started by MPI_Comm_spawn on {}\n",
        String::from_utf8_lossy(&cfg.host)
    );
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text)) {
        warn(
            &[
                b"cannot mark this spawned process in the run directory (its files will be taken for the spawning job's): ",
                path.as_os_str().as_bytes(),
            ],
            e.raw_os_error(),
        );
    }
}
