//! End-to-end tests: instrument the programs of testdata/, build them with
//! the system compilers against libregio, run them, and compare them with
//! the uninstrumented build and with ground truth. One test binary (linked
//! once), a module per language or subject; shared helpers in `common/`.
//!
//! Declared in `cli/Cargo.toml`, so `CARGO_BIN_EXE_instrument` is defined
//! and cargo builds libregio next to the binary first.
//!
//! Filter by module: `cargo test -p instrument --test e2e omp5_fortran::`.

mod common;

mod c;
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
mod rust_traced;
mod small_functions;
mod snapshot;
mod throttle;
mod trace;
mod trace_fortran;
mod trace_mpi;
mod user_events;
mod wrap;
