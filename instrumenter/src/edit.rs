//! Edits against the original text. Front ends never regenerate a file:
//! they describe insertions (and, for directive lines, replacements) at byte
//! offsets of the original, so the user's formatting, comments and line
//! numbers survive.

/// One change of the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Byte offset in the original text.
    pub offset: usize,
    /// Bytes of the original replaced, starting at `offset` (0 = insertion).
    pub replace_len: usize,
    pub text: String,
    /// Orders edits at the same offset: lower first. Equal keys keep the
    /// order in which they were pushed.
    pub order: i64,
}

impl Edit {
    pub fn insert(offset: usize, text: impl Into<String>) -> Self {
        Edit {
            offset,
            replace_len: 0,
            text: text.into(),
            order: 0,
        }
    }

    pub fn replace(offset: usize, replace_len: usize, text: impl Into<String>) -> Self {
        Edit {
            offset,
            replace_len,
            text: text.into(),
            order: 0,
        }
    }

    pub fn with_order(mut self, order: i64) -> Self {
        self.order = order;
        self
    }
}

/// Overlapping replacements are a front-end bug, not a user error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("internal error: edits overlap at byte {offset}")]
pub struct OverlappingEdits {
    pub offset: usize,
}

/// Apply edits to `original`. Insertions at the same offset appear in
/// `(order, push order)` sequence; an insertion at the start of a replaced
/// range goes before the replacement text.
pub fn apply(original: &str, edits: &[Edit]) -> Result<String, OverlappingEdits> {
    let mut idx: Vec<usize> = (0..edits.len()).collect();
    idx.sort_by_key(|&i| {
        let e = &edits[i];
        // Pure insertions before replacements at the same offset.
        (e.offset, e.replace_len != 0, e.order, i)
    });
    let extra: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = String::with_capacity(original.len() + extra);
    let mut cursor = 0usize;
    for i in idx {
        let e = &edits[i];
        if e.offset < cursor || e.offset + e.replace_len > original.len() {
            return Err(OverlappingEdits { offset: e.offset });
        }
        out.push_str(&original[cursor..e.offset]);
        out.push_str(&e.text);
        cursor = e.offset + e.replace_len;
    }
    out.push_str(&original[cursor..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertions_keep_push_order_within_the_same_order_key() {
        let src = "abc";
        let edits = vec![
            Edit::insert(1, "1"),
            Edit::insert(1, "2"),
            Edit::insert(1, "0").with_order(-1),
            Edit::insert(3, "!"),
        ];
        assert_eq!(apply(src, &edits).unwrap(), "a012bc!");
    }

    #[test]
    fn replacements_and_overlaps() {
        let src = "#pragma x\nint";
        let edits = vec![Edit::replace(0, 9, "probe();"), Edit::insert(0, "/*a*/")];
        assert_eq!(apply(src, &edits).unwrap(), "/*a*/probe();\nint");
        let bad = vec![Edit::replace(0, 5, "x"), Edit::replace(2, 1, "y")];
        assert!(apply(src, &bad).is_err());
    }
}
