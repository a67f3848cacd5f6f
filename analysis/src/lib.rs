//! Reads Regio run directories, merges the sub-DRGs of every thread and
//! process into one dynamic code-region call graph (DRG) per run, and renders
//! it as text, JSON, CSV, folded stacks or a self-contained HTML page.
//!
//! ```no_run
//! # fn main() -> Result<(), regio_analysis::AnalysisError> {
//! let run = regio_analysis::load_run(std::path::Path::new("run1"), None)?;
//! let report = regio_analysis::merge(&run);
//! print!("{}", regio_analysis::render(&[report], regio_analysis::Format::Text));
//! # Ok(())
//! # }
//! ```

mod comm;
mod error;
pub mod export;
mod load;
mod merge;
mod objects;
pub mod overhead;
mod regions;
pub mod render;
pub mod score;
pub mod spawned;
pub mod throttled;
mod units;
mod user_events;

pub use comm::{Communication, MatrixCell, NodeMessages, RankClock, RankCollectives};
pub use error::AnalysisError;
pub use load::{load_run, RunDir};
pub use merge::{
    merge, Node, ProcessSummary, RankMpi, RankStat, RankSummary, Report, ThreadStat, ThreadSummary,
};
pub use objects::ObjectIds;
pub use regions::RegionInfo;
pub use render::{render, render_to, Format, FormatError};
pub use units::human_ns;
pub use user_events::{EventStat, UserEvents};
