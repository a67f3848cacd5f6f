//! Filter files (`instrument --filter FILE`, `REGIO_FILTER=FILE`):
//! include/exclude rules by file glob and region-name glob.
//!
//! ```text
//! # comments and blank lines are ignored
//! exclude file   tests/**
//! exclude region *_helper
//! include region main_helper     # later rules win
//! ```
//! Rules are checked in order and the last one that matches decides;
//! everything is included when no rule matches. Globs are `globset` globs
//! (`*`, `?`, `[..]`, `**`, `{a,b}`); region names match case-sensitively.

use globset::{Glob, GlobMatcher};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    File,
    Region,
}

#[derive(Debug, Clone)]
struct Rule {
    include: bool,
    target: Target,
    glob: GlobMatcher,
}

/// A parsed filter file. `Filter::default()` includes everything.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    rules: Vec<Rule>,
}

/// `file:line:col: error: ...` for a bad filter line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: error: {message}")]
pub struct FilterError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Filter {
    /// Parse the text of a filter file; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Filter, FilterError> {
        let mut rules = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("");
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            let err = |col: usize, message: String| FilterError {
                file: file.to_string(),
                line: i as u32 + 1,
                col: col as u32 + 1,
                message,
            };
            let col_of = |w: &str| w.as_ptr() as usize - raw.as_ptr() as usize;
            let include = match words[0].to_ascii_lowercase().as_str() {
                "include" => true,
                "exclude" => false,
                other => {
                    return Err(err(
                        col_of(words[0]),
                        format!("expected `include` or `exclude`, found `{other}`"),
                    ))
                }
            };
            let target = match words.get(1).map(|w| w.to_ascii_lowercase()) {
                Some(w) if w == "file" => Target::File,
                Some(w) if w == "region" => Target::Region,
                _ => {
                    return Err(err(
                        words.get(1).map_or(raw.len(), |w| col_of(w)),
                        "expected `file` or `region` after include/exclude".into(),
                    ))
                }
            };
            if words.len() < 3 {
                return Err(err(raw.len(), "missing glob".into()));
            }
            for w in &words[2..] {
                let glob = Glob::new(w)
                    .map_err(|e| err(col_of(w), format!("bad glob `{w}`: {e}")))?
                    .compile_matcher();
                rules.push(Rule {
                    include,
                    target,
                    glob,
                });
            }
        }
        Ok(Filter { rules })
    }

    fn decide(&self, target: Target, s: &str) -> bool {
        self.rules
            .iter()
            .rev()
            .find(|r| r.target == target && r.glob.is_match(s))
            .is_none_or(|r| r.include)
    }

    /// Whether a file (path relative to the instrumented root) is instrumented.
    pub fn allows_file(&self, rel_path: &str) -> bool {
        self.decide(Target::File, rel_path)
    }

    /// Whether a region with this name is instrumented.
    pub fn allows_region(&self, name: &str) -> bool {
        self.decide(Target::Region, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_matching_rule_wins() {
        let f = Filter::parse(
            "f",
            "exclude region *_helper # noisy\ninclude region main_helper\nexclude file tests/**\n",
        )
        .unwrap();
        assert!(!f.allows_region("x_helper"));
        assert!(f.allows_region("main_helper"));
        assert!(f.allows_region("solve"));
        assert!(!f.allows_file("tests/a.c"));
        assert!(f.allows_file("src/a.c"));
    }

    #[test]
    fn bad_lines_are_located() {
        let e = Filter::parse("flt", "\n  drop region x\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "flt:2:3: error: expected `include` or `exclude`, found `drop`"
        );
    }
}
