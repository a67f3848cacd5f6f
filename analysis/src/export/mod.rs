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
pub use read::{load_trace, load_trace_with, Clocks};

/// `instrument export --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Otf2,
    Perfetto,
}

/// What [`export_run`] did, for the command to print.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportSummary {
    /// The file to open: the OTF2 anchor file or the JSON file.
    pub written: std::path::PathBuf,
    pub locations: usize,
    pub events: u64,
    pub messages: usize,
    /// Messages whose receive ends before their send began, after clock
    /// correction (each is also in `message_problems`).
    pub violations: usize,
    /// Repairs, cut files, unsynchronised clocks.
    pub notes: Vec<String>,
    /// Processes left out (started by `MPI_Comm_spawn`): the export is
    /// still written, without them.
    pub warnings: Vec<String>,
    /// Receives before their sends and unmatched messages (warnings: the
    /// export is still written).
    pub message_problems: Vec<String>,
}

/// Reads the traces of the run in `dir` and writes them to `out` in
/// `format` (OTF2: a new archive directory; Perfetto: a JSON file).
pub fn export_run(
    dir: &std::path::Path,
    idf: Option<&std::path::Path>,
    format: ExportFormat,
    out: &std::path::Path,
) -> Result<ExportSummary, ExportError> {
    let trace = load_trace(dir, idf)?;
    let check = match_messages(&trace);
    let events = trace.locations.iter().map(|l| l.events.len() as u64).sum();
    let written = match format {
        ExportFormat::Otf2 => otf2::write_otf2(&trace, out)?.anchor,
        ExportFormat::Perfetto => {
            let io = |source| ExportError::Io {
                path: out.display().to_string(),
                source,
            };
            let file = std::fs::File::create(out).map_err(io)?;
            let mut w = std::io::BufWriter::new(file);
            write_perfetto(&trace, &check, &mut w).map_err(io)?;
            std::io::Write::flush(&mut w).map_err(io)?;
            out.to_path_buf()
        }
    };
    Ok(ExportSummary {
        written,
        locations: trace.locations.len(),
        events,
        messages: check.messages.len(),
        violations: check.violations.len(),
        message_problems: check.describe(&trace),
        warnings: crate::spawned::warning(&trace.spawned)
            .into_iter()
            .collect(),
        notes: trace.notes,
    })
}

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
