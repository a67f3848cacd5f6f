//! Trace exports (`instrument export`): reads a run directory's trace files
//! (`trace-r<rank>-p<pid>-t<thread>.rtrace`, format: `regio-trace-format`,
//! `docs/trace-format.md`), puts every process on rank 0's clock
//! (`clock.rs`), checks messages against causality (`messages.rs`), and
//! writes a Perfetto / Chrome trace (`perfetto.rs`) or an OTF2 archive
//! through the reference library (`otf2/`).

mod clock;
mod messages;
mod model;
pub mod otf2;
mod perfetto;
mod read;

pub use clock::ClockCorrection;
pub use messages::{match_messages, Message, MessageCheck, Violation};
pub use model::{Comm, Location, Trace, TraceEvent};
pub use perfetto::write_perfetto;
pub use read::load_trace;

/// Why a run directory's traces cannot be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Run(#[from] crate::AnalysisError),
    #[error("{path}: error: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: error: no trace files (trace-r<rank>-p<pid>-t<thread>.rtrace): was the program run with REGIO_MODE=trace?")]
    NoTraces { path: String },
    #[error("{path}: error: not a trace this build reads: {source}")]
    Decode {
        path: String,
        #[source]
        source: regio_trace_format::DecodeError,
    },
    #[error("{path}: error: {message}")]
    Malformed { path: String, message: String },
    #[error("{0}")]
    Otf2(String),
}
