//! The words of a Regio directive, shared by every front end: after the
//! sentinel (`#pragma regio`, `!$regio`, `// regio:`) come `begin NAME`,
//! `end NAME`, `disable`, `enable` or `skip` (keywords in any case, NAME per
//! SPEC), and nothing else.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Begin(String),
    End(String),
    Disable,
    Enable,
    Skip,
}

impl Command {
    /// How the user wrote it, for messages: `` `#pragma regio end x` ``.
    pub fn spelled(&self, sentinel: &str) -> String {
        match self {
            Command::Begin(n) => format!("`{sentinel} begin {n}`"),
            Command::End(n) => format!("`{sentinel} end {n}`"),
            Command::Disable => format!("`{sentinel} disable`"),
            Command::Enable => format!("`{sentinel} enable`"),
            Command::Skip => format!("`{sentinel} skip`"),
        }
    }
}

/// The directives of a file, or every error found in them in source
/// order (a file with any directive error is refused whole).
pub(crate) fn checked<T>(
    mut errors: Vec<crate::diag::Diagnostic>,
    directives: impl FnOnce() -> T,
) -> Result<T, Vec<crate::diag::Diagnostic>> {
    if errors.is_empty() {
        Ok(directives())
    } else {
        errors.sort_by_key(|d| (d.line, d.col));
        Err(errors)
    }
}

pub const NAME_RULE: &str = "[A-Za-z_][A-Za-z0-9_.-]*";
pub const EXPECTED: &str = "expected begin, end, disable, enable or skip";

pub fn valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// A malformed directive: where (an offset the caller gave) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrammarError {
    pub at: usize,
    pub message: String,
}

/// Parses the words after the sentinel, each with its offset;
/// `sentinel_at` locates an error about missing words. Returns the
/// command and the offset just past its last word.
pub fn parse(
    words: &[(usize, &str)],
    sentinel: &str,
    sentinel_at: usize,
) -> Result<(Command, usize), GrammarError> {
    let err = |at, message| Err(GrammarError { at, message });
    let Some(&(kw_at, kw)) = words.first() else {
        return err(
            sentinel_at,
            format!("missing regio directive after `{sentinel}` ({EXPECTED})"),
        );
    };
    let lower = kw.to_ascii_lowercase();
    let (command, used) = match lower.as_str() {
        "begin" | "end" => {
            let Some(&(name_at, name)) = words.get(1) else {
                return err(kw_at, format!("`{sentinel} {lower}` needs a region NAME"));
            };
            if !valid_name(name) {
                return err(
                    name_at,
                    format!("invalid region name `{name}` (a NAME is {NAME_RULE})"),
                );
            }
            let c = if lower == "begin" {
                Command::Begin(name.to_string())
            } else {
                Command::End(name.to_string())
            };
            (c, 2)
        }
        "disable" => (Command::Disable, 1),
        "enable" => (Command::Enable, 1),
        "skip" => (Command::Skip, 1),
        _ => {
            return err(
                kw_at,
                format!("unknown regio directive `{kw}` ({EXPECTED})"),
            )
        }
    };
    if let Some(&(extra_at, extra)) = words.get(used) {
        return err(
            extra_at,
            format!("unexpected `{extra}` after {}", command.spelled(sentinel)),
        );
    }
    let (last_at, last) = words[used - 1];
    Ok((command, last_at + last.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_errors() {
        assert_eq!(
            parse(&[(10, "BEGIN"), (16, "solve.x-1")], "!$regio", 0),
            Ok((Command::Begin("solve.x-1".into()), 25))
        );
        assert_eq!(
            parse(&[(3, "disable")], "#pragma regio", 0),
            Ok((Command::Disable, 10))
        );
        let e = parse(&[(3, "end")], "// regio:", 0).unwrap_err();
        assert_eq!(
            (e.at, e.message.as_str()),
            (3, "`// regio: end` needs a region NAME")
        );
        let e = parse(&[(3, "begin"), (9, "9x")], "#pragma regio", 0).unwrap_err();
        assert!(e.message.contains("invalid region name `9x`"));
        let e = parse(&[(3, "skip"), (8, "now")], "!$regio", 0).unwrap_err();
        assert_eq!(e.message, "unexpected `now` after `!$regio skip`");
        assert!(parse(&[], "!$regio", 5)
            .unwrap_err()
            .message
            .contains("missing regio directive"));
    }
}
