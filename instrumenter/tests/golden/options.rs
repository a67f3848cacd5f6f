//! The options of one golden snapshot: a `regio-test:` header line of a
//! fixture, or a line of `testdata.txt` for the programs under testdata/.

use std::fmt;

/// How the result is written into snapshots. Each layout is the format
/// one of the former golden tests used, so their snapshots carry over
/// unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One snapshot: `--- regions (...)` (one line per region), then
    /// `--- warnings` if any, then `--- text` and the instrumented text.
    Combined,
    /// One snapshot like `Combined`, but every region as its full IDF
    /// JSON line (with `file`, `unit` and `aux`): the default.
    CombinedJson,
    /// `<file>.inst` (the text) and `<file>.idf` (every region as a JSON
    /// line, then the warnings).
    SplitJson,
    /// `<file>.inst`, `<file>.warnings` (only if there are any) and
    /// `<file>.idf` (one line per region; none for Rust, whose regions
    /// describe themselves at run time).
    SplitLines,
}

/// What instrumenting the fixture must give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Success; the snapshot shows the result.
    Ok,
    /// Refusal; the snapshot shows the `file:line:col: error:` lines.
    Error,
    /// Success with the text written exactly as it was.
    Unchanged,
}

/// The IDF path the instrumented program registers.
pub const DEFAULT_IDF: &str = "/regio-out/regio.idf.json";

#[derive(Debug, Clone)]
pub struct Options {
    /// `--regions` as written (the combined layout prints it).
    pub regions: String,
    pub layout: Layout,
    pub expect: Expect,
    /// Names a further snapshot of the same file (`<file>-<name>...`); the
    /// unnamed options are the file's first snapshot.
    pub name: Option<String>,
    /// The IDF `file` of the regions is the path relative to this
    /// workspace directory; without it, the workspace-relative path.
    pub rel: Option<String>,
    /// The IDF path the program registers, instead of [`DEFAULT_IDF`];
    /// `long` is one of more than 200 characters. With either, every
    /// generated Fortran line must still fit the source form's limit.
    pub idf: Option<String>,
    /// `check=line-limit`: every generated Fortran line fits the source
    /// form's limit (also implied by `idf=`).
    pub line_limit: bool,
    /// Regions get ids from this one on (as for the second file of a tree).
    pub first_id: u32,
    /// A filter file (`--filter`), relative to the fixture's directory.
    pub filter: Option<String>,
    /// Names the C front end knows as function-like macros of the tree's
    /// headers (comma-separated).
    pub macros: Option<String>,
    /// The path as the user gave it (diagnostics, `#line`), instead of the
    /// workspace-relative path.
    pub display: Option<String>,
    /// The IDF `file` of the regions, instead of the one `rel` gives.
    pub rel_path: Option<String>,
    /// The fixture is a C unit as `cc -E` wrote it (`--preprocess`); only
    /// the functions of this file (its line-marker name) are measured.
    pub preprocessed: Option<String>,
    /// `small=measure`: small functions are measured too
    /// (`--small-functions`), for fixtures about something else whose
    /// snapshots predate the small-function rule; `small=default` (the
    /// default) leaves them out as `instrument` does.
    pub small_functions: bool,
}

#[derive(Debug)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Options {
    /// Parses `key=value` words separated by blanks.
    pub fn parse(words: &str) -> Result<Options, OptionError> {
        let mut o = Options {
            regions: "functions,loops,user".into(),
            layout: Layout::CombinedJson,
            expect: Expect::Ok,
            name: None,
            rel: None,
            idf: None,
            line_limit: false,
            first_id: 1,
            filter: None,
            macros: None,
            display: None,
            rel_path: None,
            preprocessed: None,
            small_functions: false,
        };
        for word in words.split_whitespace() {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| OptionError(format!("`{word}` is not key=value")))?;
            match key {
                "regions" => o.regions = value.into(),
                "layout" => {
                    o.layout = match value {
                        "combined" => Layout::Combined,
                        "combined-json" => Layout::CombinedJson,
                        "split-json" => Layout::SplitJson,
                        "split-lines" => Layout::SplitLines,
                        _ => return Err(OptionError(format!("unknown layout `{value}`"))),
                    }
                }
                "expect" => {
                    o.expect = match value {
                        "ok" => Expect::Ok,
                        "error" => Expect::Error,
                        "unchanged" => Expect::Unchanged,
                        _ => return Err(OptionError(format!("unknown expect `{value}`"))),
                    }
                }
                "name" => o.name = Some(value.into()),
                "rel" => o.rel = Some(value.trim_end_matches('/').into()),
                "idf" => o.idf = Some(value.into()),
                "check" if value == "line-limit" => o.line_limit = true,
                "first_id" => {
                    o.first_id = value
                        .parse()
                        .map_err(|_| OptionError(format!("first_id `{value}` is no number")))?
                }
                "filter" => o.filter = Some(value.into()),
                "macros" => o.macros = Some(value.into()),
                "display" => o.display = Some(value.into()),
                "rel_path" => o.rel_path = Some(value.into()),
                "preprocessed" => o.preprocessed = Some(value.into()),
                "small" => {
                    o.small_functions = match value {
                        "measure" => true,
                        "default" => false,
                        _ => return Err(OptionError(format!("unknown small `{value}`"))),
                    }
                }
                _ => return Err(OptionError(format!("unknown option `{word}`"))),
            }
        }
        Ok(o)
    }

    pub fn idf_path(&self) -> String {
        match self.idf.as_deref() {
            Some("long") => format!("/{}/{}/regio.idf.json", "o".repeat(120), "p'q".repeat(30)),
            Some(path) => path.into(),
            None => DEFAULT_IDF.into(),
        }
    }
}
