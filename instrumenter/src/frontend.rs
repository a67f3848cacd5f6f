//! What the driver hands a language front end and what it gets back.
//!
//! A front end sees one file's text and produces the instrumented text plus
//! the IDF regions it created. It knows nothing about directories, output
//! files or other files' regions: ids are handed to it as a starting number.

use regio_idf::Region;

use crate::diag::Diagnostic;
use crate::filter::Filter;
use crate::selection::Selection;

/// One source file to instrument.
#[derive(Debug, Clone, Copy)]
pub struct SourceInput<'a> {
    pub text: &'a str,
    /// The path as the user gave it: names the file in diagnostics and in
    /// `#line` directives.
    pub display_path: &'a str,
    /// Relative to the instrumented root: the IDF `file` of every region.
    pub rel_path: &'a str,
    /// Absolute path of the IDF the instrumented program registers at start
    /// so the runtime can copy it into the run directory.
    pub idf_path: &'a str,
    pub selection: Selection,
    pub filter: &'a Filter,
    /// Regions get consecutive ids starting here.
    pub first_id: u32,
}

/// A successfully instrumented file.
#[derive(Debug, Clone)]
pub struct Instrumented {
    pub text: String,
    /// Ids `first_id..first_id + regions.len()`, parents before children.
    pub regions: Vec<Region>,
    /// Non-fatal findings (e.g. a loop left uninstrumented, and why).
    pub warnings: Vec<Diagnostic>,
}

/// Errors are reported all at once so users can fix a file in one go.
pub type FrontendResult = Result<Instrumented, Vec<Diagnostic>>;

/// A region listed in the IDF without probes: code left as written
/// (`aux.not_measured`) or a small function left unmeasured
/// (`aux.skipped`). A file with only such regions needs no prelude.
pub fn is_listed_only(region: &Region) -> bool {
    region.aux.contains_key("not_measured") || crate::small_functions::is_marked(&region.aux)
}
