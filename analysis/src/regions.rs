//! What a region id stands for: from the IDF of instrumented code, or from
//! the descriptors Rust regions register at run time.

use std::collections::HashMap;

use crate::RunDir;

/// Name, kind and source position of one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    pub name: String,
    /// IDF kind string (`function`, `omp_parallel`, ...), or `unknown`.
    pub kind: String,
    /// File relative to the instrumented root; `None` when undescribed.
    pub file: Option<String>,
    /// First line of the region; `None` when undescribed.
    pub line: Option<u32>,
    /// False when neither the IDF nor a descriptor names this id.
    pub described: bool,
}

impl RegionInfo {
    pub fn unknown(id: u32) -> RegionInfo {
        RegionInfo {
            name: format!("region#{id}"),
            kind: "unknown".into(),
            file: None,
            line: None,
            described: false,
        }
    }

    /// `file:line`, or empty when unknown (regions the runtime makes, such
    /// as the teams of a `teams` construct, have no place of their own).
    pub fn location(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), _) if f.is_empty() => String::new(),
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => f.clone(),
            _ => String::new(),
        }
    }
}

/// Region ids of one run mapped to their descriptions.
#[derive(Debug, Default)]
pub(crate) struct RegionTable {
    by_id: HashMap<u32, RegionInfo>,
}

impl RegionTable {
    pub(crate) fn of_run(run: &RunDir) -> RegionTable {
        let mut by_id = HashMap::new();
        if let Some(idf) = &run.idf {
            for r in &idf.regions {
                by_id.insert(
                    r.id,
                    RegionInfo {
                        name: r.name.clone(),
                        kind: r.kind.to_string(),
                        file: Some(r.file.clone()),
                        line: Some(r.start.line),
                        described: true,
                    },
                );
            }
        }
        // Descriptors come from the running program itself, so they win over
        // an IDF that may belong to another build. Processes are in rank
        // order; the first description of an id is kept.
        let mut from_descriptor = std::collections::HashSet::new();
        for p in &run.profiles {
            for d in &p.regions {
                if from_descriptor.insert(d.id) {
                    by_id.insert(
                        d.id,
                        RegionInfo {
                            name: d.name.clone(),
                            kind: d.kind.clone(),
                            file: Some(d.file.clone()),
                            line: Some(d.line),
                            described: true,
                        },
                    );
                }
            }
        }
        RegionTable { by_id }
    }

    /// Every described region.
    pub(crate) fn all(&self) -> impl Iterator<Item = &RegionInfo> {
        self.by_id.values()
    }

    pub(crate) fn info(&self, id: u32) -> RegionInfo {
        self.by_id
            .get(&id)
            .cloned()
            .unwrap_or_else(|| RegionInfo::unknown(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(file: Option<&str>, line: Option<u32>) -> RegionInfo {
        RegionInfo {
            name: "r".into(),
            kind: "function".into(),
            file: file.map(str::to_string),
            line,
            described: true,
        }
    }

    #[test]
    fn locations_name_file_and_line_and_stay_empty_without_a_file() {
        assert_eq!(info(Some("a.c"), Some(3)).location(), "a.c:3");
        assert_eq!(info(Some("a.c"), None).location(), "a.c");
        assert_eq!(info(Some(""), Some(0)).location(), "");
        assert_eq!(info(None, None).location(), "");
    }
}
