//! The data that crosses process boundaries in Regio.
//!
//! * [`idf`]: the Instrumentation Description File (`regio.idf.json`) that the
//!   instrumenter writes next to the instrumented sources. It maps every region
//!   id that a probe carries back to its source position.
//! * [`rundir`]: the files a measured program writes into its run directory
//!   (per-process profiles). The runtime writes them by hand (it must not
//!   allocate in a signal handler); the analysis reads them with these types.
//!
//! This crate is the only thing the instrumenter and the analysis share, so it
//! holds data and validation only: no parsing of sources, no statistics.

pub mod filter;
pub mod idf;
pub mod kind;
pub mod rundir;

pub use idf::{
    Header, Idf, IdfError, Pos, Region, SourceFile, ValidationError, AUX_SKIPPED, SKIPPED_SMALL,
};
pub use kind::{OmpKind, RegionKind};

/// File name of the IDF at the root of the instrumented tree (and in a run
/// directory, where the runtime copies it).
pub const IDF_FILE_NAME: &str = "regio.idf.json";
