//! The Regio instrumenter: reads C, Fortran and Rust sources,
//! selects code regions, and writes an instrumented copy of the tree plus
//! the IDF. The `instrument` binary (crate `cli/`) is a thin CLI over this.

pub mod build_idf;
pub mod c;
pub mod diag;
pub mod directive_grammar;
pub mod driver;
pub mod edit;
pub mod filter;
pub mod fortran;
pub mod frontend;
pub(crate) mod idf_hash;
pub(crate) mod mpi_routines;
pub(crate) mod omp_clauses;
pub(crate) mod omp_constructs;
pub(crate) mod renumber;
pub mod rust;
pub mod selection;
pub mod small_functions;
