use regio_idf::rundir::ProfileError;
use regio_idf::IdfError;

/// Everything that can stop a run directory from being read. Every message
/// starts with the file or directory it is about.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("{path}: error: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: error: no profile files ({prefix}*{suffix}) in run directory",
        prefix = regio_idf::rundir::PROFILE_PREFIX, suffix = regio_idf::rundir::PROFILE_SUFFIX)]
    NoProfiles { path: String },
    /// Syntax errors (`file:line:col: error: ...`) and foreign formats.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A profile that parses but cannot describe a DRG.
    #[error("{path}: error: {message}")]
    Malformed { path: String, message: String },
    #[error(transparent)]
    Idf(#[from] IdfError),
}
