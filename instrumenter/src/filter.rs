//! `--filter FILE`: the parser lives in `regio_idf::filter`, shared with
//! the runtime's `REGIO_FILTER` (same syntax at build and at run time).

pub use regio_idf::filter::{Filter, FilterError};
