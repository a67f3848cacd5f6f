//! End-to-end tests: instrument the programs of testdata/, build them with
//! the system compilers against libregio, run them, and compare them with
//! the uninstrumented build and with ground truth. One test binary (linked
//! once), a module per language or subject; shared helpers in `common/`.
//!
//! Declared in `cli/Cargo.toml`, so `CARGO_BIN_EXE_instrument` is defined
//! and cargo builds libregio next to the binary first.
//!
//! Filter by module: `cargo test -p instrument --test e2e omp5_fortran::`.

// Before the modules: a `macro_rules!` is visible only after its text.
/// The two tests of one MPI check (`mpi`, `trace_mpi`): `$open` with
/// Open MPI, `$mpich` with MPICH, each run only where `$has_open` /
/// `$has_mpich` find that MPI's tools (else a `SKIPPED: needs <package>`
/// line).
macro_rules! on_both_mpis {
    ($open:ident, $mpich:ident, $check:ident, $has_open:ident, $has_mpich:ident) => {
        #[test]
        fn $open() {
            if $has_open() {
                $check(&OPEN_MPI);
            }
        }

        #[test]
        fn $mpich() {
            if $has_mpich() {
                $check(&MPICH);
            }
        }
    };
}

mod common;

mod c;
mod flags;
mod fortran;
mod install;
mod mpi;
mod objects;
mod omp;
mod omp5;
mod omp5_fortran;
mod omp_fortran;
mod overhead;
mod readme_build;
mod readme_rust;
mod runtime_signals;
mod rust_instrument;
mod rust_trace;
mod rust_traced;
mod small_functions;
mod snapshot;
mod throttle;
mod trace;
mod trace_fortran;
mod trace_mpi;
mod user_events;
mod wrap;
