//! Physical lines to Fortran statements, for both source forms.
//!
//! Every statement keeps an exact map from its canonical text (joined
//! continuation lines, comments removed, upper case outside character
//! contexts; fixed form also without blanks) back to byte offsets of the
//! original file, so that classification can work on clean text while
//! every edit and every IDF position refers to the original bytes.

use std::ops::Range;

use crate::diag::{line_col, Diagnostic};

use super::omp;
use super::SourceForm;

/// Fixed form: text from this column on is a comment to the compiler.
pub(crate) const FIXED_LIMIT: usize = 72;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    Blank,
    Comment,
    /// `!$regio ...` (also `c$regio`, `*$regio` in fixed form).
    Regio,
    /// `!$omp`, `!$acc`, `!dir$`, ...: binds to the statement after it.
    CompilerDirective,
    /// A `#` line (cpp directive or line marker).
    Preproc,
    Code,
    /// Conditional compilation (`!$ ` free, `!$`/`c$`/`*$` fixed).
    Conditional,
}

#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub start: usize,
    /// Before the line terminator.
    pub end: usize,
    /// Start of the next line (after the terminator).
    pub next: usize,
    pub kind: LineKind,
    /// Offset past the last non-blank code byte (fixed form: up to column
    /// 72), when the line holds code.
    pub code_last: Option<usize>,
    /// The line ends inside a character context (fixed form: the blanks up
    /// to column 72 belong to the constant).
    pub open_char_at_end: bool,
}

/// 1-based line and byte column of an offset, by binary search (the
/// generic `line_col` scans from the start of the text).
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    pub fn pos(&self, off: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= off).max(1);
        let col = off - self.starts[line - 1] + 1;
        (line as u32, col as u32)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Label {
    pub value: u32,
    /// The digits in the original text (fixed form: may hold blanks).
    pub range: Range<usize>,
}

#[derive(Debug, Clone)]
pub(crate) struct Stmt {
    pub label: Option<Label>,
    /// Canonical text, ASCII only.
    pub canon: String,
    /// Original byte offset of every canonical byte.
    pub map: Vec<usize>,
    /// Original offsets of the first code byte (after the label) and past
    /// the last one.
    pub start: usize,
    pub end: usize,
    /// 0-based line indices.
    pub first_line: usize,
    pub last_line: usize,
    /// From a conditional-compilation line: never edited.
    pub conditional: bool,
}

impl Stmt {
    /// Original byte range of canonical range `r`.
    pub fn orig_range(&self, r: Range<usize>) -> Range<usize> {
        if r.start >= r.end || r.end > self.map.len() {
            let at = self.map.get(r.start).copied().unwrap_or(self.end);
            return at..at;
        }
        let last = self.map[r.end - 1];
        self.map[r.start]..last + 1
    }

    /// Original offset of canonical index `i` (the statement end past the
    /// last byte).
    pub fn orig(&self, i: usize) -> usize {
        self.map.get(i).copied().unwrap_or(self.end)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct RegioLine {
    pub line: usize,
    /// Offset of the sentinel's first byte.
    pub start: usize,
    /// The text after `$regio`, up to the end of the line.
    pub body: Range<usize>,
}

/// An `!$omp` directive with its continuation lines.
#[derive(Debug, Clone)]
pub(crate) struct OmpLine {
    /// 0-based line indices.
    pub first_line: usize,
    pub last_line: usize,
    /// Offset of the sentinel's first byte.
    pub start: usize,
    /// The directive text after the sentinels, continuation lines joined
    /// with one blank, comments and continuation marks removed.
    pub text: String,
    /// Offset past the last directive byte of the last line (where added
    /// clauses go).
    pub code_end: usize,
    /// Fixed form: directive words may be glued to clause names.
    pub fixed: bool,
}

#[derive(Debug, Clone)]
pub(crate) enum Item {
    Stmt(Stmt),
    Regio(RegioLine),
    Omp(OmpLine),
}

impl Item {
    /// Offset of the item's first byte (after a statement's label).
    pub fn start(&self) -> usize {
        match self {
            Item::Stmt(s) => s.start,
            Item::Regio(r) => r.start,
            Item::Omp(o) => o.start,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Scanned {
    pub lines: Vec<Line>,
    pub items: Vec<Item>,
}

fn split_lines(text: &str) -> Vec<Line> {
    let b = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let nl = b[start..].iter().position(|&c| c == b'\n');
        let (end, next) = match nl {
            Some(p) => (start + p, start + p + 1),
            None => (b.len(), b.len()),
        };
        let end = if end > start && b[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        lines.push(Line {
            start,
            end,
            next,
            kind: LineKind::Blank,
            code_last: None,
            open_char_at_end: false,
        });
        start = next;
    }
    lines
}

fn blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

fn starts_with_ci(hay: &[u8], needle: &str) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle.as_bytes())
}

/// `$regio` followed by a blank or the end of the line.
fn is_regio_sentinel(after_first: &[u8]) -> bool {
    starts_with_ci(after_first, "$regio") && after_first.get(6).is_none_or(|&c| blank(c))
}

/// Directive prefixes (after the comment character) that bind to the next
/// statement: OpenMP, OpenACC and vendor directives.
fn is_compiler_directive(after_first: &[u8]) -> bool {
    [
        "$omp", "$acc", "dir$", "dec$", "gcc$", "$cuf", "ibm*", "pgi$", "$ompx",
    ]
    .iter()
    .any(|p| starts_with_ci(after_first, p))
}

#[derive(Default)]
struct Builder {
    label: Option<Label>,
    canon: String,
    map: Vec<usize>,
    start: Option<usize>,
    end: usize,
    first_line: usize,
    last_line: usize,
    conditional: bool,
    /// Free form: a blank was seen since the last pushed byte.
    space_at: Option<usize>,
}

impl Builder {
    fn push(&mut self, c: u8, off: usize, len: usize, line: usize) {
        if self.start.is_none() {
            self.start = Some(off);
            self.first_line = line;
        }
        if let Some(sp) = self.space_at.take() {
            if !self.canon.is_empty() {
                self.canon.push(' ');
                self.map.push(sp);
            }
        }
        self.canon.push(c as char);
        self.map.push(off);
        self.end = off + len;
        self.last_line = line;
    }

    fn is_empty(&self) -> bool {
        self.canon.is_empty()
    }
}

struct Scanner<'a> {
    text: &'a str,
    b: &'a [u8],
    file: &'a str,
    fixed: bool,
    lines: Vec<Line>,
    items: Vec<Item>,
    cur: Option<Builder>,
    quote: Option<u8>,
    /// Hollerith characters still to take.
    holl: usize,
    /// The last `!$omp` line is continued (free: ended with `&`; fixed: no
    /// statement came since, so `c$omp+` lines continue it).
    omp_open: bool,
    errors: Vec<Diagnostic>,
}

/// How a stretch of code on one line ended.
enum Tail {
    Done,
    /// Free form `&` at the end: the statement goes on.
    Continued,
}

impl<'a> Scanner<'a> {
    fn error(&mut self, off: usize, msg: impl Into<String>) {
        let (l, c) = line_col(self.text, off);
        self.errors.push(Diagnostic::error(self.file, l, c, msg));
    }

    fn finish(&mut self) {
        if let Some(q) = self.quote.take() {
            let at = self.cur.as_ref().map_or(0, |c| c.end.saturating_sub(1));
            let _ = q;
            self.error(at, "unterminated character constant");
        }
        self.holl = 0;
        if let Some(b) = self.cur.take() {
            if b.is_empty() {
                if let Some(l) = b.label {
                    self.error(l.range.start, "statement label without a statement");
                }
                return;
            }
            self.items.push(Item::Stmt(Stmt {
                label: b.label,
                canon: b.canon,
                map: b.map,
                start: b.start.unwrap_or(0),
                end: b.end,
                first_line: b.first_line,
                last_line: b.last_line,
                conditional: b.conditional,
            }));
        }
    }

    fn builder(&mut self, conditional: bool) -> &mut Builder {
        self.cur.get_or_insert_with(|| Builder {
            conditional,
            ..Builder::default()
        })
    }

    fn last_canon_sig(&self) -> Option<u8> {
        let b = self.cur.as_ref()?;
        b.canon.bytes().rev().find(|&c| c != b' ')
    }

    /// Scan code bytes `from..to` of line `li`. `stmt_start` says whether a
    /// free-form statement label may come first.
    fn code(&mut self, li: usize, from: usize, to: usize, conditional: bool) -> Tail {
        let b = self.b;
        let mut i = from;
        while i < to {
            let c = b[i];
            let clen = utf8_len(c);
            if let Some(q) = self.quote {
                if c == q {
                    if i + 1 < to && b[i + 1] == q {
                        let bl = self.builder(conditional);
                        bl.push(q, i, 1, li);
                        bl.push(q, i + 1, 1, li);
                        i += 2;
                        continue;
                    }
                    self.builder(conditional).push(q, i, 1, li);
                    self.quote = None;
                    i += 1;
                    continue;
                }
                if !self.fixed && c == b'&' && b[i + 1..to].iter().all(|&x| blank(x)) {
                    return Tail::Continued;
                }
                let ch = if c.is_ascii() && c >= b' ' { c } else { b'?' };
                self.builder(conditional).push(ch, i, clen, li);
                i += clen;
                continue;
            }
            if self.holl > 0 {
                let ch = match c {
                    b'\'' => b'"',
                    c if c.is_ascii() && c >= b' ' => c,
                    _ => b'?',
                };
                self.holl -= 1;
                let closing = self.holl == 0;
                let bl = self.builder(conditional);
                bl.push(ch, i, clen, li);
                if closing {
                    bl.push(b'\'', i, clen, li);
                }
                i += clen;
                continue;
            }
            match c {
                b'\'' | b'"' => {
                    self.builder(conditional).push(c, i, 1, li);
                    self.quote = Some(c);
                    i += 1;
                }
                b'!' => break,
                b';' => {
                    if self.cur.as_ref().is_some_and(|c| !c.is_empty()) {
                        self.finish();
                    }
                    i += 1;
                }
                b'&' if !self.fixed => {
                    let rest = &b[i + 1..to];
                    let before_comment = rest.iter().position(|&x| x == b'!').unwrap_or(rest.len());
                    if rest[..before_comment].iter().all(|&x| blank(x)) {
                        return Tail::Continued;
                    }
                    self.builder(conditional).push(c, i, 1, li);
                    i += 1;
                }
                b' ' | b'\t' | b'\r' | b'\x0c' => {
                    if !self.fixed {
                        let bl = self.builder(conditional);
                        if bl.space_at.is_none() {
                            bl.space_at = Some(i);
                        }
                    }
                    i += 1;
                }
                b'0'..=b'9' => {
                    // A free-form statement label: digits first in the
                    // statement, then a blank.
                    let fresh = self
                        .cur
                        .as_ref()
                        .is_none_or(|c| c.is_empty() && c.label.is_none());
                    let mut j = i;
                    while j < to && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    if !self.fixed && fresh && (j == to || blank(b[j])) {
                        let digits = &self.text[i..j];
                        let value = digits.parse::<u32>().unwrap_or(u32::MAX);
                        if j - i > 5 || value == 0 {
                            self.error(i, format!("invalid statement label `{digits}`"));
                        }
                        self.builder(conditional).label = Some(Label { value, range: i..j });
                        i = j;
                        continue;
                    }
                    if matches!(self.last_canon_sig(), Some(b'(' | b',' | b'/' | b'=')) {
                        let mut k = j;
                        if self.fixed {
                            while k < to && blank(b[k]) {
                                k += 1;
                            }
                        }
                        let n: usize = self.text[i..j].parse().unwrap_or(0);
                        if k < to && (b[k] == b'H' || b[k] == b'h') && n > 0 {
                            self.builder(conditional).push(b'\'', k, 1, li);
                            self.holl = n;
                            i = k + 1;
                            continue;
                        }
                    }
                    let bl = self.builder(conditional);
                    for (d, off) in (i..j).map(|x| (b[x], x)) {
                        bl.push(d, off, 1, li);
                    }
                    i = j;
                }
                _ => {
                    let ch = if c.is_ascii() {
                        c.to_ascii_uppercase()
                    } else {
                        b'?'
                    };
                    self.builder(conditional).push(ch, i, clen, li);
                    i += clen;
                }
            }
        }
        if self.holl > 0 {
            // The rest of a Hollerith constant is the blank padding of the line.
            self.holl = 0;
            if let Some(bl) = self.cur.as_mut() {
                let at = bl.end.saturating_sub(1);
                bl.push(b'\'', at, 1, li);
            }
        }
        Tail::Done
    }

    fn line_code_last(&self, from: usize, to: usize) -> Option<usize> {
        // Last non-blank byte before a comment, outside character contexts
        // (good enough for layout decisions: a `!` in a string only makes
        // this conservative).
        let b = &self.b[from..to];
        let mut quote: Option<u8> = None;
        let mut last = None;
        for (k, &c) in b.iter().enumerate() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == b'\'' || c == b'"' => quote = Some(c),
                None if c == b'!' => break,
                None => {}
            }
            if !blank(c) {
                last = Some(from + k + 1);
            }
        }
        last
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xff => 4,
        _ => 1,
    }
}

pub(crate) fn scan(text: &str, form: SourceForm, file: &str) -> Result<Scanned, Vec<Diagnostic>> {
    let mut s = Scanner {
        text,
        b: text.as_bytes(),
        file,
        fixed: form == SourceForm::Fixed,
        lines: split_lines(text),
        items: Vec::new(),
        cur: None,
        quote: None,
        holl: 0,
        omp_open: false,
        errors: Vec::new(),
    };
    match form {
        SourceForm::Free => scan_free(&mut s),
        SourceForm::Fixed => scan_fixed(&mut s),
    }
    if s.errors.is_empty() {
        Ok(Scanned {
            lines: s.lines,
            items: s.items,
        })
    } else {
        Err(s.errors)
    }
}

fn scan_free(s: &mut Scanner<'_>) {
    let mut continuing = false;
    let mut cont_conditional = false;
    for li in 0..s.lines.len() {
        let (start, end) = (s.lines[li].start, s.lines[li].end);
        let b = s.b;
        let first = (start..end).find(|&k| !blank(b[k]));
        let Some(first) = first else {
            s.lines[li].kind = LineKind::Blank;
            continue;
        };
        let c = b[first];
        if c == b'#' && first == start && !continuing {
            s.lines[li].kind = LineKind::Preproc;
            continue;
        }
        let after = &b[first + 1..end];
        let mut conditional = false;
        let mut code_from = first;
        if c == b'!' && s.quote.is_none() && !continuing {
            if let Some(o) = omp::free_sentinel(&b[start..end], s.omp_open) {
                s.lines[li].kind = LineKind::CompilerDirective;
                s.omp_line(li, first, start + o.body, end, o.continuation);
                continue;
            }
        }
        if c == b'!' && s.quote.is_none() {
            if is_regio_sentinel(after) {
                s.lines[li].kind = LineKind::Regio;
                if continuing {
                    s.error(first, "`!$regio` directive inside a continued statement");
                    continue;
                }
                s.items.push(Item::Regio(RegioLine {
                    line: li,
                    start: first,
                    body: first + 7..end,
                }));
                continue;
            }
            // `!$` followed by a blank (or `&` continuing one): conditional
            // compilation, code when compiled with OpenMP.
            let cond =
                after.first() == Some(&b'$') && after.get(1).is_none_or(|&x| blank(x) || x == b'&');
            if !cond {
                s.lines[li].kind = if is_compiler_directive(after) {
                    LineKind::CompilerDirective
                } else {
                    LineKind::Comment
                };
                continue;
            }
            conditional = true;
            code_from = first + 2;
        }
        if continuing && conditional != cont_conditional {
            // A plain line cannot continue a conditional statement and the
            // other way round (the compiler would see one of them as a
            // comment): end the statement here.
            if !conditional {
                s.finish();
                continuing = false;
            } else {
                s.lines[li].kind = LineKind::Conditional;
                continue;
            }
        }
        s.lines[li].kind = if conditional {
            LineKind::Conditional
        } else {
            LineKind::Code
        };
        s.omp_open = false;
        if continuing {
            let mut k = code_from;
            while k < end && blank(b[k]) {
                k += 1;
            }
            if k < end && b[k] == b'&' {
                code_from = k + 1;
            } else if s.quote.is_some() {
                code_from = if conditional { start + 2 } else { start };
            }
        }
        s.lines[li].code_last = s.line_code_last(code_from, end);
        match s.code(li, code_from, end, conditional) {
            Tail::Continued => {
                continuing = true;
                cont_conditional = conditional;
            }
            Tail::Done => {
                continuing = false;
                s.finish();
            }
        }
        s.lines[li].open_char_at_end = s.quote.is_some();
    }
    if continuing {
        let at = s.text.len().saturating_sub(1);
        s.error(
            at,
            "the last statement is continued past the end of the file",
        );
        s.quote = None;
    }
    s.finish();
}

/// Fixed form: the column (1-based) of byte `off` on a line starting at
/// `start`, with gfortran's tab rule (a tab in columns 1-6 moves to column
/// 7, any other tab is one column).
pub(crate) fn fixed_col(b: &[u8], start: usize, off: usize) -> usize {
    let mut col = 1;
    for &c in &b[start..off] {
        if c == b'\t' && col <= 6 {
            col = 7;
        } else {
            col += 1;
        }
    }
    col
}

/// Byte offset where column `limit + 1` starts on a fixed-form line.
fn fixed_cut(b: &[u8], start: usize, end: usize, limit: usize) -> usize {
    let mut col = 1;
    let mut k = start;
    while k < end {
        let next = if b[k] == b'\t' && col <= 6 {
            7
        } else {
            col + 1
        };
        if col > limit {
            return k;
        }
        col = next;
        k += 1;
    }
    end
}

fn scan_fixed(s: &mut Scanner<'_>) {
    for li in 0..s.lines.len() {
        let (start, end) = (s.lines[li].start, s.lines[li].end);
        let b = s.b;
        let line = &b[start..end];
        if line.iter().all(|&c| blank(c)) {
            s.lines[li].kind = LineKind::Blank;
            continue;
        }
        let c0 = line[0];
        let mut conditional = false;
        let mut field_from = start;
        if c0 == b'#' {
            s.lines[li].kind = LineKind::Preproc;
            continue;
        }
        if let Some(o) = omp::fixed_sentinel(line) {
            s.lines[li].kind = LineKind::CompilerDirective;
            if !o.continuation {
                s.finish();
            }
            let cut = fixed_cut(b, start, end, FIXED_LIMIT).max(start + o.body);
            s.omp_line(li, start, start + o.body, cut, o.continuation);
            continue;
        }
        if matches!(c0, b'c' | b'C' | b'*' | b'!') {
            let after = &line[1..];
            if is_regio_sentinel(after) {
                s.lines[li].kind = LineKind::Regio;
                s.finish();
                s.items.push(Item::Regio(RegioLine {
                    line: li,
                    start,
                    body: start + 7..end,
                }));
                continue;
            }
            let cond = after.first() == Some(&b'$')
                && after.get(1).is_none_or(|&x| blank(x) || x.is_ascii_digit());
            if !cond {
                s.lines[li].kind = if is_compiler_directive(after) {
                    LineKind::CompilerDirective
                } else {
                    LineKind::Comment
                };
                continue;
            }
            conditional = true;
            field_from = start + 2;
        } else if matches!(c0, b'd' | b'D') {
            s.lines[li].kind = LineKind::Comment;
            continue;
        }
        // A `!` as the first non-blank character outside column 6 makes a
        // comment line.
        if let Some(k) = (field_from..end).find(|&k| !blank(b[k])) {
            let col = fixed_col(b, start, k);
            if b[k] == b'!' && col != 6 {
                s.lines[li].kind = LineKind::Comment;
                continue;
            }
            if s.regio_like(k, end) {
                s.lines[li].kind = LineKind::Regio;
                s.finish();
                s.items.push(Item::Regio(RegioLine {
                    line: li,
                    start: k,
                    body: k + 7..end,
                }));
                continue;
            }
        }
        // Label field, continuation column, start of the statement field.
        let mut k = field_from;
        let mut col = fixed_col(b, start, k);
        let mut label_digits = String::new();
        let mut label_range: Option<Range<usize>> = None;
        let mut bad_label: Option<usize> = None;
        let mut continuation = false;
        let code_from;
        loop {
            if k >= end {
                code_from = end;
                break;
            }
            let c = b[k];
            if c == b'\t' && col <= 6 {
                // Tab format: a digit 1-9 right after the tab continues the
                // previous statement; anything else starts the statement.
                if k + 1 < end && (b'1'..=b'9').contains(&b[k + 1]) {
                    continuation = true;
                    code_from = k + 2;
                } else {
                    code_from = k + 1;
                }
                break;
            }
            if col == 6 {
                continuation = !(c == b' ' || c == b'0');
                code_from = k + 1;
                break;
            }
            if c.is_ascii_digit() {
                label_digits.push(c as char);
                let r = label_range.get_or_insert(k..k + 1);
                r.end = k + 1;
            } else if !blank(c) {
                bad_label.get_or_insert(k);
            }
            col += 1;
            k += 1;
        }
        s.lines[li].kind = if conditional {
            LineKind::Conditional
        } else {
            LineKind::Code
        };
        s.omp_open = false;
        let cut = fixed_cut(b, start, end, FIXED_LIMIT).max(code_from);
        if let Some(at) = bad_label {
            s.error(at, "invalid character in the label field (columns 1-5)");
            continue;
        }
        if continuation {
            let open = s.cur.as_ref().is_some_and(|c| c.conditional == conditional);
            if !open {
                if conditional {
                    continue;
                }
                s.error(start, "continuation line without a statement to continue");
                continue;
            }
            if !label_digits.is_empty() {
                if let Some(r) = label_range {
                    s.error(r.start, "statement label on a continuation line");
                }
                continue;
            }
        } else {
            s.finish();
            let bl = s.builder(conditional);
            if let Some(r) = label_range {
                let value = label_digits.parse::<u32>().unwrap_or(0);
                bl.label = Some(Label { value, range: r });
                if value == 0 {
                    let at = bl.label.as_ref().map_or(start, |l| l.range.start);
                    s.error(at, "statement label must not be zero");
                }
            }
        }
        s.lines[li].code_last = s.line_code_last(code_from, cut);
        s.code(li, code_from, cut, conditional);
        s.lines[li].open_char_at_end = s.quote.is_some();
    }
    s.finish();
}

impl Scanner<'_> {
    /// One physical `!$omp` line: a new directive item, or the next line
    /// of the open one. `body..to` is the text after the sentinel.
    fn omp_line(&mut self, li: usize, sentinel: usize, body: usize, to: usize, continuation: bool) {
        let line = &self.text[self.lines[li].start..to];
        let at = body - self.lines[li].start;
        let (text, end, amp) = omp::line_text(line, at, !self.fixed);
        let code_end = self.lines[li].start + end;
        let open = continuation && self.omp_open;
        if let (true, Some(Item::Omp(o))) = (open, self.items.last_mut()) {
            if !text.is_empty() {
                if !o.text.is_empty() {
                    o.text.push(' ');
                }
                o.text.push_str(&text);
            }
            o.last_line = li;
            if !text.is_empty() || amp {
                o.code_end = code_end;
            }
        } else {
            self.items.push(Item::Omp(OmpLine {
                first_line: li,
                last_line: li,
                start: sentinel,
                text,
                code_end,
                fixed: self.fixed,
            }));
        }
        // Fixed form: continuation lines follow until a statement comes.
        self.omp_open = if self.fixed { true } else { amp };
    }

    /// `!$regio` after leading blanks in fixed form.
    fn regio_like(&self, k: usize, end: usize) -> bool {
        self.b[k] == b'!' && is_regio_sentinel(&self.b[k + 1..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmts(text: &str, form: SourceForm) -> Vec<Stmt> {
        scan(text, form, "t")
            .unwrap()
            .items
            .into_iter()
            .filter_map(|i| match i {
                Item::Stmt(s) => Some(s),
                Item::Regio(_) | Item::Omp(_) => None,
            })
            .collect()
    }

    #[test]
    fn free_form_joins_continuations_and_splits_semicolons() {
        let src = "10 x = 1 + &\n  ! comment\n   & 2 ; y = 'a;b' ! c\ncall f(na&\n&me)\n";
        let s = stmts(src, SourceForm::Free);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].canon, "X = 1 + 2");
        assert_eq!(s[0].label.as_ref().map(|l| l.value), Some(10));
        assert_eq!(&src[s[0].start..s[0].end], "x = 1 + &\n  ! comment\n   & 2");
        assert_eq!(s[1].canon, "Y = 'a;b'");
        assert_eq!(s[2].canon, "CALL F(NAME)");
        // The map points every canonical byte at its original byte.
        let i = s[2].canon.find("ME").unwrap();
        assert_eq!(&src[s[2].map[i]..s[2].map[i] + 2], "me");
    }

    #[test]
    fn fixed_form_columns_labels_continuations_and_tabs() {
        let src = format!(
            "C comment\n   10 DO 20 I = 1,\n     &   N{}SEQ00010\n\tX = 1\n20\tCONTINUE\n*$regio begin a\n      Y = 2HAB; Z = 3\n",
            " ".repeat(62)
        );
        let src = src.as_str();
        let sc = scan(src, SourceForm::Fixed, "t").unwrap();
        let s: Vec<&Stmt> = sc
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Stmt(s) => Some(s),
                _ => None,
            })
            .collect();
        assert_eq!(s[0].canon, "DO20I=1,N");
        assert_eq!(s[0].label.as_ref().map(|l| l.value), Some(10));
        assert_eq!(s[1].canon, "X=1");
        assert_eq!(s[2].canon, "CONTINUE");
        assert_eq!(s[2].label.as_ref().map(|l| l.value), Some(20));
        assert_eq!(s[3].canon, "Y='AB'");
        assert_eq!(s[4].canon, "Z=3");
        assert!(matches!(sc.items[3], Item::Regio(_)));
        assert_eq!(sc.lines[0].kind, LineKind::Comment);
    }

    #[test]
    fn unterminated_strings_are_errors() {
        let e = scan("x = 'abc\n", SourceForm::Free, "f.f90").unwrap_err();
        assert!(e[0].to_string().starts_with("f.f90:1:"), "{}", e[0]);
        let e = scan("      X = 'abc\n      Y = 1\n", SourceForm::Fixed, "f.f").unwrap_err();
        assert!(e[0].message.contains("unterminated"));
    }
}
