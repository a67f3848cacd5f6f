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
    /// Success with the text written as it was and a `not measured:
    /// this file left as written` warning.
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
    /// `long`: an IDF path of more than 200 characters, and every
    /// generated Fortran line must still fit the source form's limit.
    pub long_idf: bool,
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
            layout: Layout::Combined,
            expect: Expect::Ok,
            name: None,
            rel: None,
            long_idf: false,
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
                "idf" if value == "long" => o.long_idf = true,
                _ => return Err(OptionError(format!("unknown option `{word}`"))),
            }
        }
        Ok(o)
    }

    pub fn idf_path(&self) -> String {
        if self.long_idf {
            format!("/{}/{}/regio.idf.json", "o".repeat(120), "p'q".repeat(30))
        } else {
            DEFAULT_IDF.into()
        }
    }
}
