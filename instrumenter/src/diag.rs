//! Diagnostics in the one format users and tests rely on:
//! `file:line:col: error: message`.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem at one place in a user's file. Lines and columns are 1-based
/// and refer to the original source; line 0 means the whole file (a file
/// that cannot be read has no position), printed as `file: error: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The path as the user gave it.
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Diagnostic {
    pub fn error(file: impl Into<String>, line: u32, col: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.into(),
            line,
            col,
            message: message.into(),
        }
    }

    pub fn warning(
        file: impl Into<String>,
        line: u32,
        col: u32,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, line, col, message)
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if self.line == 0 {
            return write!(f, "{}: {}: {}", self.file, sev, self.message);
        }
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.col, sev, self.message
        )
    }
}

/// 1-based line and byte column of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, (before.len() - line_start) as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_print_in_compiler_format() {
        let d = Diagnostic::error("src/a.c", 3, 7, "unbalanced `#pragma regio end`");
        assert_eq!(
            d.to_string(),
            "src/a.c:3:7: error: unbalanced `#pragma regio end`"
        );
        let whole = Diagnostic::error("src/b.c", 0, 0, "cannot read this file: denied");
        assert_eq!(
            whole.to_string(),
            "src/b.c: error: cannot read this file: denied"
        );
    }

    #[test]
    fn line_col_is_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 3), (2, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }
}
