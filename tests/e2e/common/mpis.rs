//! The two MPI implementations the e2e tests run under, and whether this
//! machine has them: Open MPI (Debian's default `mpicc`, `mpif90`,
//! `mpirun`) and MPICH (`mpicc.mpich`, `mpif90.mpich`, `mpirun.mpich`,
//! installed beside it). Missing, either prints `SKIPPED: needs ...` and
//! its tests pass, unless REGIO_REQUIRE_TOOLCHAINS=1 (`.ci/run` installs
//! both).

use super::require_tool;

pub struct Mpi {
    pub name: &'static str,
    pub cc: &'static str,
    pub fc: &'static str,
    pub run: &'static str,
    /// Extra launcher arguments (Open MPI must be told it may
    /// oversubscribe the 2 cores of CI).
    pub args: &'static [&'static str],
}

impl Mpi {
    /// Open MPI's launcher forwards only the variables named with `-x`
    /// to ranks on other hosts; MPICH's forwards the environment.
    pub fn is_open_mpi(&self) -> bool {
        self.name == OPEN_MPI.name
    }
}

pub const OPEN_MPI: Mpi = Mpi {
    name: "openmpi",
    cc: "mpicc",
    fc: "mpif90",
    run: "mpirun",
    args: &["--oversubscribe"],
};

pub const MPICH: Mpi = Mpi {
    name: "mpich",
    cc: "mpicc.mpich",
    fc: "mpif90.mpich",
    run: "mpirun.mpich",
    args: &[],
};

pub fn open_mpi() -> bool {
    require_tool(OPEN_MPI.cc, "libopenmpi-dev") && require_tool(OPEN_MPI.run, "openmpi-bin")
}

pub fn open_mpi_fortran() -> bool {
    open_mpi() && require_tool(OPEN_MPI.fc, "libopenmpi-dev (with gfortran)")
}

pub fn mpich() -> bool {
    require_tool(MPICH.cc, "libmpich-dev") && require_tool(MPICH.run, "mpich")
}

pub fn mpich_fortran() -> bool {
    mpich() && require_tool(MPICH.fc, "libmpich-dev (with gfortran)")
}
