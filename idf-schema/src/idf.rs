//! The Instrumentation Description File: one entry per region, as SCALEA's
//! SIS wrote it, plus a header that says how and from what it was made.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::RegionKind;

/// Bumped whenever a reader of an older IDF could misread a newer one.
pub const FORMAT_VERSION: u32 = 1;

/// 1-based line and column in the ORIGINAL source (columns count bytes).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    pub fn new(line: u32, col: u32) -> Self {
        Pos { line, col }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A source file the instrumenter read.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Relative to the instrumented root (the same string regions use).
    pub path: String,
    /// The path as the user gave it (what `#line` directives name).
    pub original: String,
    /// `sha256:<hex>` of the original bytes.
    pub hash: String,
    /// Number of lines (a final line without newline counts).
    pub lines: u32,
    /// Length in bytes of the longest line, so columns can be checked
    /// without the source at hand.
    pub max_line_len: u32,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub format_version: u32,
    /// Name of the tool that wrote the file (`instrument`).
    pub tool: String,
    pub tool_version: String,
    /// Options used, as given (e.g. `"regions": ["functions", "user"]`).
    pub options: serde_json::Map<String, serde_json::Value>,
    pub files: Vec<SourceFile>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub id: u32,
    pub kind: RegionKind,
    pub name: String,
    /// Relative to the instrumented root; one of `Header::files`.
    pub file: String,
    /// Enclosing procedure, empty for none.
    pub unit: String,
    pub start: Pos,
    pub end: Pos,
    pub parent: Option<u32>,
    #[serde(default)]
    pub aux: serde_json::Map<String, serde_json::Value>,
}

/// `aux` key and value of a small function the instrumenter listed but
/// left unmeasured (no probes: `instrument --small-functions` measures
/// it); `aux.statements` holds its statement count.
pub const AUX_SKIPPED: &str = "skipped";
pub const SKIPPED_SMALL: &str = "small";

impl Region {
    /// A small function listed without probes (see [`SKIPPED_SMALL`]).
    pub fn is_small_function_left_out(&self) -> bool {
        self.aux.get(AUX_SKIPPED).and_then(|v| v.as_str()) == Some(SKIPPED_SMALL)
    }
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Idf {
    pub header: Header,
    pub regions: Vec<Region>,
}

/// One problem found by [`Idf::validate`]; the message names the region.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    #[error("unsupported IDF format version {found} (this build reads {FORMAT_VERSION})")]
    Version { found: u32 },
    #[error("region id {id} is used more than once")]
    DuplicateId { id: u32 },
    #[error("region {id}: ids from 2^31 up belong to run-time region descriptors")]
    IdInDescriptorRange { id: u32 },
    #[error("region {id}: parent {parent} does not exist")]
    MissingParent { id: u32, parent: u32 },
    #[error("region {id} is its own ancestor")]
    ParentCycle { id: u32 },
    #[error("region {id}: parent {parent} is in another file ({parent_file} vs {file})")]
    ParentInOtherFile {
        id: u32,
        parent: u32,
        file: String,
        parent_file: String,
    },
    #[error("region {id} ({start}-{end}) is not enclosed by its parent {parent} ({parent_start}-{parent_end})")]
    NotEnclosed {
        id: u32,
        start: Pos,
        end: Pos,
        parent: u32,
        parent_start: Pos,
        parent_end: Pos,
    },
    #[error("region {id}: file `{file}` is not listed in the header")]
    UnknownFile { id: u32, file: String },
    #[error("region {id}: start {start} is after end {end}")]
    Reversed { id: u32, start: Pos, end: Pos },
    #[error("region {id}: position {pos} lies outside `{file}` ({lines} lines, longest {max_len} bytes)")]
    OutsideFile {
        id: u32,
        pos: Pos,
        file: String,
        lines: u32,
        max_len: u32,
    },
    #[error("file `{path}` is listed more than once")]
    DuplicateFile { path: String },
}

/// Reading an IDF from disk or text.
#[derive(Debug, thiserror::Error)]
pub enum IdfError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: error: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: error: invalid IDF: {}", .errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid {
        path: String,
        errors: Vec<ValidationError>,
    },
}

impl Idf {
    /// Parse and validate an IDF document. `path` only names it in errors.
    pub fn from_json(path: &str, text: &str) -> Result<Idf, IdfError> {
        let idf: Idf = serde_json::from_str(text).map_err(|e| IdfError::Json {
            path: path.to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        idf.validate().map_err(|errors| IdfError::Invalid {
            path: path.to_string(),
            errors,
        })?;
        Ok(idf)
    }

    pub fn read(path: &std::path::Path) -> Result<Idf, IdfError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| IdfError::Io {
            path: shown.clone(),
            source,
        })?;
        Idf::from_json(&shown, &text)
    }

    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).expect("IDF serialises")
    }

    pub fn region(&self, id: u32) -> Option<&Region> {
        self.regions.iter().find(|r| r.id == id)
    }

    /// Every structural rule at once: unique ids, parents that exist, live
    /// in the same file and enclose their children, no cycles, positions
    /// inside the files the header lists.
    pub fn validate(&self) -> Result<(), Vec<ValidationError>> {
        let mut errors = Vec::new();
        if self.header.format_version != FORMAT_VERSION {
            errors.push(ValidationError::Version {
                found: self.header.format_version,
            });
        }
        let mut files = HashMap::new();
        for f in &self.header.files {
            if files.insert(f.path.as_str(), f).is_some() {
                errors.push(ValidationError::DuplicateFile {
                    path: f.path.clone(),
                });
            }
        }
        let mut by_id: HashMap<u32, &Region> = HashMap::new();
        for r in &self.regions {
            if by_id.insert(r.id, r).is_some() {
                errors.push(ValidationError::DuplicateId { id: r.id });
            }
            if r.id >= crate::rundir::FIRST_DESCRIPTOR_ID {
                errors.push(ValidationError::IdInDescriptorRange { id: r.id });
            }
        }
        for r in &self.regions {
            if r.start > r.end {
                errors.push(ValidationError::Reversed {
                    id: r.id,
                    start: r.start,
                    end: r.end,
                });
            }
            match files.get(r.file.as_str()) {
                None => errors.push(ValidationError::UnknownFile {
                    id: r.id,
                    file: r.file.clone(),
                }),
                Some(f) => {
                    for pos in [r.start, r.end] {
                        // A region may end just past the last byte of a line.
                        if pos.line == 0
                            || pos.col == 0
                            || pos.line > f.lines
                            || pos.col > f.max_line_len + 1
                        {
                            errors.push(ValidationError::OutsideFile {
                                id: r.id,
                                pos,
                                file: r.file.clone(),
                                lines: f.lines,
                                max_len: f.max_line_len,
                            });
                        }
                    }
                }
            }
            let Some(parent_id) = r.parent else { continue };
            let Some(parent) = by_id.get(&parent_id) else {
                errors.push(ValidationError::MissingParent {
                    id: r.id,
                    parent: parent_id,
                });
                continue;
            };
            if parent.file != r.file {
                errors.push(ValidationError::ParentInOtherFile {
                    id: r.id,
                    parent: parent_id,
                    file: r.file.clone(),
                    parent_file: parent.file.clone(),
                });
            } else if parent.start > r.start || parent.end < r.end {
                errors.push(ValidationError::NotEnclosed {
                    id: r.id,
                    start: r.start,
                    end: r.end,
                    parent: parent_id,
                    parent_start: parent.start,
                    parent_end: parent.end,
                });
            }
        }
        // Cycles: walk up from every region; a path longer than the number
        // of regions must repeat an id.
        for r in &self.regions {
            let mut seen = HashSet::new();
            let mut cur = r.parent;
            while let Some(p) = cur {
                if p == r.id || !seen.insert(p) {
                    errors.push(ValidationError::ParentCycle { id: r.id });
                    break;
                }
                cur = by_id.get(&p).and_then(|x| x.parent);
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// Line count and longest line of a text, as [`SourceFile`] records them.
pub fn line_stats(text: &str) -> (u32, u32) {
    let mut lines = 0u32;
    let mut longest = 0u32;
    for line in text.split_inclusive('\n') {
        lines += 1;
        let len = line.trim_end_matches('\n').trim_end_matches('\r').len() as u32;
        longest = longest.max(len);
    }
    (lines.max(1), longest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(id: u32, parent: Option<u32>, start: (u32, u32), end: (u32, u32)) -> Region {
        Region {
            id,
            kind: RegionKind::Function,
            name: format!("r{id}"),
            file: "a.c".into(),
            unit: String::new(),
            start: Pos::new(start.0, start.1),
            end: Pos::new(end.0, end.1),
            parent,
            aux: Default::default(),
        }
    }

    fn idf(regions: Vec<Region>) -> Idf {
        Idf {
            header: Header {
                format_version: FORMAT_VERSION,
                tool: "instrument".into(),
                tool_version: "0".into(),
                options: Default::default(),
                files: vec![SourceFile {
                    path: "a.c".into(),
                    original: "src/a.c".into(),
                    hash: "sha256:00".into(),
                    lines: 20,
                    max_line_len: 40,
                }],
            },
            regions,
        }
    }

    #[test]
    fn a_well_formed_idf_validates_and_round_trips() {
        let d = idf(vec![
            region(1, None, (1, 1), (10, 2)),
            region(2, Some(1), (2, 5), (4, 6)),
        ]);
        d.validate().unwrap();
        let back = Idf::from_json("x", &d.to_json()).unwrap();
        assert_eq!(back, d);
    }

    #[test]
    fn each_structural_error_is_reported_with_the_region() {
        let d = idf(vec![
            region(1, None, (1, 1), (10, 2)),
            region(1, None, (1, 1), (2, 2)),
            region(3, Some(9), (1, 1), (2, 2)),
            region(4, Some(1), (9, 1), (12, 1)),
            region(5, None, (30, 1), (31, 1)),
            region(6, None, (5, 1), (4, 1)),
            region(7, Some(8), (1, 1), (2, 1)),
            region(8, Some(7), (1, 1), (2, 1)),
        ]);
        let errs = d.validate().unwrap_err();
        let text: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert!(
            errs.contains(&ValidationError::DuplicateId { id: 1 }),
            "{text:?}"
        );
        assert!(errs.contains(&ValidationError::MissingParent { id: 3, parent: 9 }));
        assert!(errs.iter().any(|e| matches!(
            e,
            ValidationError::NotEnclosed {
                id: 4,
                parent: 1,
                ..
            }
        )));
        assert!(errs
            .iter()
            .any(|e| matches!(e, ValidationError::OutsideFile { id: 5, .. })));
        assert!(errs
            .iter()
            .any(|e| matches!(e, ValidationError::Reversed { id: 6, .. })));
        assert!(errs.contains(&ValidationError::ParentCycle { id: 7 }));
        assert!(text
            .iter()
            .any(|t| t == "region 3: parent 9 does not exist"));
    }

    #[test]
    fn json_syntax_errors_carry_line_and_column() {
        let err = Idf::from_json("x.json", "{\n  \"header\": ]").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("x.json:2:"), "{msg}");
        assert!(msg.contains("error:"), "{msg}");
    }

    #[test]
    fn line_stats_count_a_final_line_without_newline() {
        assert_eq!(line_stats("ab\ncde"), (2, 3));
        assert_eq!(line_stats("ab\r\n"), (1, 2));
        assert_eq!(line_stats(""), (1, 0));
    }
}
