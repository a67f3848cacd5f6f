//! Probe statements as text, placed so that every original statement keeps
//! its line number.
//!
//! Free form: probes share the line of the statement they belong to,
//! joined with `;` (`call regio_enter(5); do i = 1, n`), as long as the
//! line stays within 132 columns. Fixed form, and free-form lines that
//! would grow too long: probes go on lines of their own, and a GNU line
//! marker (`# 12 "src/a.f"`) right after them gives the next original line
//! its original number. gfortran honours these markers in `.f`/`.f90`
//! without `-cpp` and cpp passes them through for `.F`/`.F90`, so
//! diagnostics, `-fbacktrace` and debug information name the original file
//! and line. Where an inserted line splits an original line, the rest of
//! that line is indented to its original column.

use std::ops::Range;

use crate::diag::{line_col, Diagnostic};
use crate::edit::Edit;

use super::omp;
use super::plan::probes::{
    quoted, EXTERNAL_HEAD, FIXED_DECLARE_VAR, FIXED_EXTERNAL, REGISTER_CALL,
};
use super::plan::{ItemEdits, Op, Probe};
use super::scan::{fixed_col, Item, Line, LineKind, Stmt, FIXED_LIMIT};

/// gfortran's default free-form line length.
const FREE_LIMIT: usize = 132;

pub(crate) struct Emitter<'a> {
    pub text: &'a str,
    pub fixed: bool,
    pub lines: &'a [Line],
    pub items: &'a [Item],
    pub edits: &'a [ItemEdits],
    pub display_path: &'a str,
    pub out: Vec<Edit>,
    pub errors: Vec<Diagnostic>,
}

/// Where a group of probes goes relative to its statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Before,
    After,
    ActionStart,
    ActionEnd,
    Replace,
    /// Everything at an `!$omp` directive: probes before it, its rewrite
    /// or added clauses, probes after it.
    Directive,
}

/// Insertions that stay on a statement's line: (offset, text, order).
type Inline = Vec<(usize, String, i64)>;

struct Point<'e> {
    item: usize,
    at: At,
    /// Before-label probes, then after-label probes for `At::Before`.
    first: &'e [Probe],
    second: &'e [Probe],
}

fn marker_path(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for ch in p.chars() {
        match ch {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            c => s.push(c),
        }
    }
    s
}

/// `s` cut into pieces of at most `max` bytes (at char boundaries,
/// measured after quote doubling).
fn chunks(s: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in s.chars() {
        let piece = if ch == '\'' {
            "''".to_string()
        } else {
            ch.to_string()
        };
        if cur.len() + piece.len() > max && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push_str(&piece);
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// A long probe statement (MPI argument capture, whose arguments are the
/// user's) cut after commas into lines of at most `limit` columns: the
/// first starts with `first`, the others with `cont` (a continuation).
/// A piece longer than a line stays whole.
fn continued(first: &str, cont: &str, text: &str, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = first.to_string();
    let mut fresh = true;
    for piece in text.split_inclusive(", ") {
        if !fresh && cur.len() + piece.trim_end().len() > limit {
            out.push(cur.trim_end().to_string());
            cur = cont.to_string();
        }
        cur.push_str(piece);
        fresh = false;
    }
    out.push(cur);
    out
}

/// Free form: `indent` shortened so that a line of `indent` and `len`
/// more bytes stays within 132 columns (deeply indented code).
fn fit(indent: &str, len: usize) -> &str {
    &indent[..indent.len().min(FREE_LIMIT.saturating_sub(len))]
}

/// Free form: `head` (`external :: `) and the comma list `names` on as
/// many continued lines as the line limit needs.
fn free_list(indent: &str, head: &str, names: &[&str]) -> Vec<String> {
    let widest = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let ind = fit(indent, head.len() + widest + 3);
    let mut out = Vec::new();
    let mut cur = format!("{ind}{head}");
    // Nothing on the current line yet (`head` ends with a blank).
    let mut fresh = true;
    for (k, n) in names.iter().enumerate() {
        // The name, and but for the last its comma and a continuation ` &`
        // must fit.
        let (sep, cont) = if k + 1 < names.len() {
            (",", 2)
        } else {
            ("", 0)
        };
        if !fresh && cur.len() + 1 + n.len() + sep.len() + cont > FREE_LIMIT {
            cur.push_str(" &");
            out.push(std::mem::replace(&mut cur, format!("{ind}    & ")));
            fresh = true;
        }
        if !fresh {
            cur.push(' ');
        }
        cur.push_str(n);
        cur.push_str(sep);
        fresh = false;
    }
    out.push(cur);
    out
}

/// Free form: `call regio_register_idf('<path>')`, the path cut into
/// concatenated pieces that keep every line within 132 columns.
fn free_register(indent: &str, lab: &str, path: &str) -> Vec<String> {
    let head = format!("{lab}{REGISTER_CALL}");
    let whole = format!("{head}'{}')", quoted(path));
    if indent.len() + whole.len() <= FREE_LIMIT || whole.len() <= FREE_LIMIT / 2 {
        return vec![format!("{}{whole}", fit(indent, whole.len()))];
    }
    // At least 40 bytes of the path per line.
    let ind = fit(indent, head.len() + 1 + 40 + 5);
    let cont = format!("{ind}    &'");
    // `'// &` after each piece but the last, `')` after the last.
    let budget = FREE_LIMIT - 5 - (ind.len() + head.len() + 1).max(cont.len());
    let parts = chunks(path, budget);
    let n = parts.len();
    parts
        .iter()
        .enumerate()
        .map(|(k, part)| {
            let close = if k + 1 == n { "')" } else { "'// &" };
            if k == 0 {
                format!("{ind}{head}'{part}{close}")
            } else {
                format!("{cont}{part}{close}")
            }
        })
        .collect()
}

impl<'a> Emitter<'a> {
    fn stmt(&self, i: usize) -> Option<&'a Stmt> {
        match &self.items[i] {
            Item::Stmt(s) => Some(s),
            Item::Regio(_) | Item::Omp(_) => None,
        }
    }

    fn error(&mut self, off: usize, msg: String) {
        let (l, c) = line_col(self.text, off);
        self.errors
            .push(Diagnostic::error(self.display_path, l, c, msg));
    }

    pub fn marker(&self, next_line_1based: usize) -> String {
        format!(
            "# {} \"{}\"",
            next_line_1based,
            marker_path(self.display_path)
        )
    }

    /// 1-based column of `off` as the compiler counts it.
    fn col(&self, li: usize, off: usize) -> usize {
        let start = self.lines[li].start;
        if self.fixed {
            fixed_col(self.text.as_bytes(), start, off)
        } else {
            off - start + 1
        }
    }

    fn line_of(&self, off: usize) -> usize {
        self.lines
            .partition_point(|l| l.next <= off)
            .min(self.lines.len().saturating_sub(1))
    }

    /// The text of one probe statement (without label), upper case in
    /// fixed form (an `!$omp` directive keeps its case).
    fn op_text(&self, op: &Op) -> String {
        let t = op.text();
        if self.fixed && !matches!(op, Op::Directive(_)) {
            t.to_ascii_uppercase()
        } else {
            t
        }
    }

    /// All probes on one line, `;`-separated (free form only).
    fn inline(&self, probes: &[Probe]) -> String {
        probes
            .iter()
            .map(|p| match p.label {
                Some(l) => format!("{l} {}", self.op_text(&p.op)),
                None => self.op_text(&p.op),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Probes as whole lines. `label` goes on the first line.
    fn block(&self, probes: &[Probe], indent: &str, mut label: Option<u32>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in probes {
            let first = out.len();
            self.probe_lines(p, indent, &mut label, &mut out);
            if p.cond {
                for l in &mut out[first..] {
                    *l = self.conditional(l);
                }
            }
        }
        out
    }

    /// A probe line made a conditional-compilation line: the sentinel in
    /// place of its first two blanks (fixed form: columns 1-2).
    fn conditional(&self, line: &str) -> String {
        match line.strip_prefix("  ") {
            Some(rest) if self.fixed || rest.starts_with(' ') => format!("!${rest}"),
            _ if self.fixed => format!("!${line}"),
            _ => format!("!$ {}", line.trim_start()),
        }
    }

    /// Blanks up to 1-based column `col` on a continuation of line `li`'s
    /// statement `st` after a split: with the sentinel when `st` is on a
    /// conditional-compilation line.
    fn split_pad(&self, st: &Stmt, col: usize) -> String {
        let pad = " ".repeat(col - 1);
        if st.conditional {
            self.conditional(&pad)
        } else {
            pad
        }
    }

    /// The lines of one probe (`label` goes on the first labelled one).
    fn probe_lines(&self, p: &Probe, indent: &str, label: &mut Option<u32>, out: &mut Vec<String>) {
        {
            if let Op::Directive(body) = &p.op {
                let limit = self.limit();
                out.extend(omp::lines(body, self.fixed, indent, limit));
                return;
            }
            let lab = p.label.or(label.take());
            if self.fixed {
                let field = |l: Option<u32>| match l {
                    Some(l) => format!("{l:>5} "),
                    None => "      ".to_string(),
                };
                match &p.op {
                    Op::External(names) => {
                        let mut l = lab;
                        for n in names {
                            out.push(format!(
                                "{}{FIXED_EXTERNAL}{}",
                                field(l.take()),
                                n.to_ascii_uppercase()
                            ));
                        }
                    }
                    Op::DeclareVar => out.push(format!("{}{FIXED_DECLARE_VAR}", field(lab))),
                    Op::Register(path) => {
                        // The call on its own line, the path on
                        // continuation lines (`'...'//`) after it.
                        let first = REGISTER_CALL.to_ascii_uppercase();
                        out.push(format!("{}{}", field(lab), first.trim_end()));
                        let parts = chunks(path, FIXED_LIMIT - 7 - 3);
                        let n = parts.len();
                        for (k, part) in parts.iter().enumerate() {
                            let close = if k + 1 == n { "')" } else { "'//" };
                            out.push(format!("     &'{part}{close}"));
                        }
                    }
                    Op::MpiCapture(_) => out.extend(continued(
                        &field(lab),
                        "     & ",
                        &self.op_text(&p.op),
                        FIXED_LIMIT,
                    )),
                    op => out.push(format!("{}{}", field(lab), self.op_text(op))),
                }
            } else {
                let lab = lab.map(|l| format!("{l} ")).unwrap_or_default();
                match &p.op {
                    Op::Register(path) => out.extend(free_register(indent, &lab, path)),
                    Op::External(names) => {
                        out.extend(free_list(indent, &format!("{lab}{EXTERNAL_HEAD}"), names))
                    }
                    Op::MpiCapture(_) => {
                        let ind = fit(indent, 60);
                        let mut lines = continued(
                            &format!("{ind}{lab}"),
                            &format!("{ind}    & "),
                            &self.op_text(&p.op),
                            FREE_LIMIT - 2,
                        );
                        let n = lines.len();
                        for l in lines.iter_mut().take(n.saturating_sub(1)) {
                            l.push_str(" &");
                        }
                        out.extend(lines);
                    }
                    op => {
                        let t = format!("{lab}{}", self.op_text(op));
                        out.push(format!("{}{t}", fit(indent, t.len())));
                    }
                }
            }
        }
    }

    fn indent_of(&self, li: usize) -> String {
        if self.fixed {
            return String::new();
        }
        let l = &self.lines[li];
        self.text[l.start..l.end]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    }

    /// Free form: blanks up to the statement's column, so inserted lines
    /// line up with it.
    fn stmt_indent(&self, li: usize, off: usize) -> String {
        if self.fixed {
            return String::new();
        }
        " ".repeat((self.col(li, off) - 1).min(40))
    }

    fn insert(&mut self, off: usize, text: String, order: i64) {
        self.out.push(Edit::insert(off, text).with_order(order));
    }

    fn blank(&mut self, r: Range<usize>) {
        let n = r.len();
        self.out.push(Edit::replace(r.start, n, " ".repeat(n)));
    }

    /// The last column of a line in this source form.
    fn limit(&self) -> usize {
        if self.fixed {
            FIXED_LIMIT
        } else {
            FREE_LIMIT
        }
    }

    /// Lines plus the marker that renumbers what follows.
    fn lines_then_marker(&self, block: &[String], next_line_0: usize) -> String {
        let mut s = String::new();
        for l in block {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str(&self.marker(next_line_0 + 1));
        s.push('\n');
        s
    }

    /// Directive words after an OpenMP/OpenACC sentinel, up to the first
    /// clause with arguments.
    fn directive_words(&self, li: usize) -> Option<Vec<String>> {
        let l = &self.lines[li];
        let t = self.text[l.start..l.end].to_ascii_lowercase();
        let t = t.trim_start();
        let body = ["!$omp", "c$omp", "*$omp", "!$acc", "c$acc", "*$acc"]
            .iter()
            .find_map(|s| t.strip_prefix(s))?;
        let body = body.trim_start_matches(['&', '+']);
        if t.get(1..5) == Some("$omp") {
            // Words may be glued (`enddo`, `paralleldo`).
            let d = omp::parse_form(body, self.fixed);
            let end = d.end.then(|| "end".to_string());
            return Some(end.into_iter().chain(d.words).collect());
        }
        let head = body.split('(').next().unwrap_or("");
        Some(
            head.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    fn loop_directive(words: &[String]) -> bool {
        words.iter().any(|w| {
            matches!(
                w.as_str(),
                "do" | "simd" | "loop" | "taskloop" | "distribute" | "tile" | "unroll"
            )
        })
    }

    /// A directive line continued on the next line (free `&` at the end,
    /// or a fixed-form continuation below it).
    fn continues(&self, li: usize) -> bool {
        let l = &self.lines[li];
        if self.fixed {
            return self.lines.get(li + 1).is_some_and(|n| {
                n.kind == LineKind::CompilerDirective
                    && self
                        .text
                        .as_bytes()
                        .get(n.start + 5)
                        .is_some_and(|&c| c != b' ' && c != b'0')
            });
        }
        self.text[l.start..l.end].trim_end().ends_with('&')
    }

    /// First line of a loop directive (`!$omp do`, `!$omp parallel do`,
    /// `!$acc loop`, ...) right above line `li`: a DO it applies to must
    /// follow it directly, so probes go above it.
    fn lead(&self, li: usize) -> Option<usize> {
        let mut k = li;
        while k > 0 {
            k -= 1;
            match self.lines[k].kind {
                LineKind::Blank | LineKind::Comment => continue,
                LineKind::CompilerDirective => break,
                _ => return None,
            }
        }
        if self.lines.get(k)?.kind != LineKind::CompilerDirective || k >= li {
            return None;
        }
        // Walk up through the continuation lines of this directive.
        let mut first = k;
        while first > 0
            && self.lines[first - 1].kind == LineKind::CompilerDirective
            && self.continues(first - 1)
        {
            first -= 1;
        }
        let words = self.directive_words(first)?;
        (words.first().map(String::as_str) != Some("end") && Self::loop_directive(&words))
            .then_some(first)
    }

    /// Last line of an `!$omp end do`-like directive right below line `li`.
    fn trail(&self, li: usize) -> Option<usize> {
        let mut k = li + 1;
        while k < self.lines.len()
            && matches!(self.lines[k].kind, LineKind::Blank | LineKind::Comment)
        {
            k += 1;
        }
        if self.lines.get(k)?.kind != LineKind::CompilerDirective {
            return None;
        }
        let words = self.directive_words(k)?;
        if words.first().map(String::as_str) != Some("end") || !Self::loop_directive(&words) {
            return None;
        }
        while self.continues(k) && k + 1 < self.lines.len() {
            k += 1;
        }
        Some(k)
    }

    /// Probes before a statement (and after its label: a jump to the label
    /// runs them) on lines of their own.
    fn before_lines(&mut self, i: usize, before: &[Probe], after_label: &[Probe]) {
        let Some(st) = self.stmt(i) else { return };
        let li = st.first_line;
        let label_off = st.label.as_ref().map_or(st.start, |l| l.range.start);
        let indent = self.stmt_indent(li, label_off);
        let line_start = self.lines[li].start;
        if let Some(lead) = self.lead(li) {
            let mut block = self.block(before, &indent, None);
            block.extend(self.block(after_label, &indent, None));
            let text = self.lines_then_marker(&block, lead);
            self.insert(self.lines[lead].start, text, 0);
            return;
        }
        let move_label = st.label.is_some()
            && !after_label.is_empty()
            && !st.conditional
            && !self.edits[i].drop_label;
        let label = if move_label {
            st.label.as_ref().map(|l| l.value)
        } else {
            None
        };
        let mut block = self.block(before, &indent, None);
        block.extend(self.block(after_label, &indent, label));
        let prefix_blank = st.conditional
            || self.text[line_start..label_off]
                .bytes()
                .all(|c| c == b' ' || c == b'\t');
        if prefix_blank {
            let text = self.lines_then_marker(&block, li);
            self.insert(line_start, text, 0);
        } else {
            let pad = " ".repeat(self.col(li, label_off) - 1);
            let text = format!("\n{}{pad}", self.lines_then_marker(&block, li));
            self.insert(label_off, text, 0);
        }
        if move_label {
            if let Some(l) = &st.label {
                self.blank(l.range.clone());
            }
        }
    }

    /// Probes after a statement on lines of their own.
    fn after_lines(&mut self, i: usize, probes: &[Probe], closes_loop: bool) {
        let Some(st) = self.stmt(i) else { return };
        let li = st.last_line;
        let indent = self.indent_of(st.first_line);
        let block = self.block(probes, &indent, None);
        let trail = if closes_loop { self.trail(li) } else { None };
        let li = trail.unwrap_or(li);
        let line = &self.lines[li];
        let more_code = trail.is_none() && line.code_last.is_some_and(|x| x > st.end);
        if !more_code {
            let mut text = String::new();
            if line.next == line.end {
                // The last line has no newline.
                text.push('\n');
            }
            for l in &block {
                text.push_str(l);
                text.push('\n');
            }
            if li + 1 < self.lines.len() {
                text.push_str(&self.marker(li + 2));
                text.push('\n');
            }
            self.insert(line.next, text, 0);
            return;
        }
        // Another statement follows after `;`: split after the separator.
        let rest = &self.text[st.end..line.end];
        let Some(q) = rest.find(';') else {
            self.error(
                st.start,
                "internal error: no `;` after a statement followed by code".into(),
            );
            return;
        };
        let at = st.end + q + 1;
        let pad = self.split_pad(st, self.col(li, at));
        let text = format!("\n{}{pad}", self.lines_then_marker(&block, li));
        self.insert(at, text, 0);
    }

    fn then_word(&self) -> &'static str {
        if self.fixed {
            "THEN"
        } else {
            "then"
        }
    }

    /// A logical IF whose action needs probes becomes an IF block.
    fn action_lines(&mut self, i: usize, before: &[Probe], after: &[Probe], at: usize) {
        let Some(st) = self.stmt(i) else { return };
        let li = self.line_of(at);
        let col = self.col(li, at);
        let then = if self.fixed && col + 3 > FIXED_LIMIT {
            let cont = if st.conditional { "!$   &" } else { "     &" };
            format!("\n{cont}{}", self.then_word())
        } else {
            self.then_word().to_string()
        };
        let indent = self.indent_of(st.first_line);
        let block = self.block(before, &indent, None);
        let pad = self.split_pad(st, col);
        let text = format!("{then}\n{}{pad}", self.lines_then_marker(&block, li));
        self.insert(at, text, 0);
        let mut tail: Vec<Probe> = after.to_vec();
        tail.push(Probe {
            label: None,
            op: Op::EndIf,
            cond: st.conditional,
        });
        self.after_lines(i, &tail, false);
    }

    fn replace_lines(&mut self, i: usize, probes: &[Probe], keep: bool) {
        let Item::Regio(r) = &self.items[i] else {
            return;
        };
        let li = r.line;
        let indent = self.indent_of(li);
        if keep {
            // The directive stays (a comment); the probes go above it.
            let block = self.block(probes, &indent, None);
            let text = self.lines_then_marker(&block, li);
            self.insert(self.lines[li].start, text, 0);
            return;
        }
        let block = self.block(probes, &indent, None);
        let line = &self.lines[li];
        let mut text = block.join("\n");
        if block.len() > 1 && li + 1 < self.lines.len() {
            text.push('\n');
            text.push_str(&self.marker(li + 2));
        }
        self.out
            .push(Edit::replace(line.start, line.end - line.start, text));
    }

    /// Probes around an `!$omp` directive (own lines), and the directive
    /// rewritten or with clauses added.
    fn directive_lines(&mut self, i: usize) {
        let Item::Omp(o) = &self.items[i] else {
            return;
        };
        let e = &self.edits[i];
        let (first, last) = (o.first_line, o.last_line);
        let indent = self.indent_of(first);
        let before: Vec<Probe> = e
            .before_label
            .iter()
            .chain(&e.after_label)
            .cloned()
            .collect();
        if !before.is_empty() {
            let block = self.block(&before, &indent, None);
            let text = self.lines_then_marker(&block, first);
            self.insert(self.lines[first].start, text, 0);
        }
        let line_end = self.lines[last].end;
        let next = self.lines[last].next;
        let has_next = last + 1 < self.lines.len();
        if let Some(rewrite) = &e.replace {
            let block = self.block(rewrite, &indent, None);
            let mut text = block.join("\n");
            // Probes after it end with the marker anyway.
            if has_next && e.after.is_empty() {
                text.push('\n');
                text.push_str(&self.marker(last + 2));
            }
            let from = self.lines[first].start;
            self.out.push(Edit::replace(from, line_end - from, text));
        } else if !e.append.is_empty() {
            let added = e.append.join(" ");
            let limit = self.limit();
            let col = self.col(last, o.code_end);
            if col + added.len() <= limit {
                self.insert(o.code_end, format!(" {added}"), 0);
            } else {
                // A continuation line of its own.
                if !self.fixed {
                    self.insert(o.code_end, " &".to_string(), 0);
                }
                let mut lines = omp::lines(&added, self.fixed, &indent, limit);
                if let Some(l) = lines.first_mut() {
                    *l = if self.fixed {
                        l.replacen("!$omp ", "!$omp&", 1)
                    } else {
                        l.replacen("!$omp ", "!$omp & ", 1)
                    };
                }
                let text = self.lines_after_directive(&lines, next == line_end, has_next, last);
                self.insert(next, text, 0);
            }
        }
        if !e.after.is_empty() {
            let block = self.block(&e.after, &indent, None);
            let text = self.lines_after_directive(&block, next == line_end, has_next, last);
            self.insert(next, text, 0);
        }
    }

    /// `lines` on lines of their own after a directive that ends on line
    /// `last` (`at_eof`: the file's last line has no newline), then the
    /// marker that gives the next line its number back.
    fn lines_after_directive(
        &self,
        lines: &[String],
        at_eof: bool,
        has_next: bool,
        last: usize,
    ) -> String {
        let mut text = String::new();
        if at_eof {
            text.push('\n');
        }
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        if has_next {
            text.push_str(&self.marker(last + 2));
            text.push('\n');
        }
        text
    }

    fn relabel(&mut self, i: usize, range: Range<usize>, fresh: u32) {
        let new = fresh.to_string();
        let old = range.len();
        if new.len() <= old {
            let padded = format!("{new:<old$}");
            self.out.push(Edit::replace(range.start, old, padded));
            return;
        }
        if self.fixed {
            let li = self.line_of(range.start);
            let line = &self.lines[li];
            let grow = new.len() - old;
            let last_col = line
                .code_last
                .map_or(0, |x| self.col(li, x.saturating_sub(1)));
            if last_col + grow > FIXED_LIMIT || line.open_char_at_end {
                let at = self.stmt(i).map_or(range.start, |s| s.start);
                self.error(
                    at,
                    format!("cannot instrument this statement: a new label would push it past column {FIXED_LIMIT}"),
                );
                return;
            }
        }
        self.out.push(Edit::replace(range.start, old, new));
    }

    fn points(&self) -> Vec<Point<'a>> {
        let mut pts = Vec::new();
        for (i, e) in self.edits.iter().enumerate() {
            if e.is_empty() {
                continue;
            }
            if let Item::Omp(_) = &self.items[i] {
                pts.push(Point {
                    item: i,
                    at: At::Directive,
                    first: &e.before_label,
                    second: &e.after,
                });
                continue;
            }
            if let Item::Regio(_) = &self.items[i] {
                let rep: &[Probe] = e.replace.as_deref().unwrap_or(&[]);
                pts.push(Point {
                    item: i,
                    at: At::Replace,
                    first: &e.before_label,
                    second: rep,
                });
                continue;
            }
            if !e.before_label.is_empty() || !e.after_label.is_empty() {
                pts.push(Point {
                    item: i,
                    at: At::Before,
                    first: &e.before_label,
                    second: &e.after_label,
                });
            }
            if let Some((b, a)) = &e.action {
                pts.push(Point {
                    item: i,
                    at: At::ActionStart,
                    first: b,
                    second: &[],
                });
                pts.push(Point {
                    item: i,
                    at: At::ActionEnd,
                    first: a,
                    second: &[],
                });
            }
            if !e.after.is_empty() {
                pts.push(Point {
                    item: i,
                    at: At::After,
                    first: &e.after,
                    second: &[],
                });
            }
        }
        pts
    }

    /// Free form: the insertions of a point kept on its statement's line
    /// (offset, text, order), and that line; None when the point must go
    /// on lines of its own anyway.
    fn inline_point(&self, p: &Point<'_>, action_at: Option<usize>) -> Option<(Inline, usize)> {
        if self.fixed {
            return None;
        }
        let fits = |ps: &[Probe]| {
            ps.iter().all(|p| {
                !matches!(p.op, Op::Register(_))
                    || self.inline(std::slice::from_ref(p)).len() < FREE_LIMIT
            })
        };
        if !fits(p.first) || !fits(p.second) {
            return None;
        }
        let directive = |ps: &[Probe]| ps.iter().any(|p| matches!(p.op, Op::Directive(_)));
        // Probes join a statement's line only when they are of its kind
        // (conditional-compilation or plain).
        let same_line = |st: &Stmt| {
            p.first
                .iter()
                .chain(p.second)
                .all(|q| q.cond == st.conditional)
        };
        if directive(p.first) || directive(p.second) {
            return None;
        }
        match p.at {
            At::Replace => {
                let Item::Regio(r) = &self.items[p.item] else {
                    return None;
                };
                if p.second.is_empty() {
                    return None;
                }
                let mut all = p.first.to_vec();
                all.extend_from_slice(p.second);
                Some((vec![(r.start, self.inline(&all), 0)], r.line))
            }
            At::Before => {
                let st = self.stmt(p.item)?;
                if !same_line(st) || self.lead(st.first_line).is_some() {
                    return None;
                }
                let label_off = st.label.as_ref().map_or(st.start, |l| l.range.start);
                let mut v = Vec::new();
                if !p.first.is_empty() {
                    v.push((label_off, format!("{}; ", self.inline(p.first)), 0));
                }
                if !p.second.is_empty() {
                    v.push((st.start, format!("{}; ", self.inline(p.second)), 0));
                }
                Some((v, st.first_line))
            }
            At::After => {
                let st = self.stmt(p.item)?;
                if !same_line(st)
                    || self.edits[p.item].closes_loop && self.trail(st.last_line).is_some()
                {
                    return None;
                }
                Some((
                    vec![(st.end, format!("; {}", self.inline(p.first)), 0)],
                    st.last_line,
                ))
            }
            At::ActionStart => {
                let at = action_at?;
                if !same_line(self.stmt(p.item)?) {
                    return None;
                }
                let mut t = "then; ".to_string();
                if !p.first.is_empty() {
                    t.push_str(&self.inline(p.first));
                    t.push_str("; ");
                }
                Some((vec![(at, t, 0)], self.line_of(at)))
            }
            At::Directive => None,
            At::ActionEnd => {
                let st = self.stmt(p.item)?;
                if !same_line(st) {
                    return None;
                }
                let mut t = String::new();
                if !p.first.is_empty() {
                    t.push_str("; ");
                    t.push_str(&self.inline(p.first));
                }
                t.push_str("; end if");
                Some((vec![(st.end, t, 0)], st.last_line))
            }
        }
    }

    pub fn run(&mut self, action_at: &dyn Fn(usize) -> Option<usize>) {
        let pts = self.points();
        let inl: Vec<_> = pts
            .iter()
            .map(|p| self.inline_point(p, action_at(p.item)))
            .collect();
        // Free form: how long each line would get with everything inline.
        let mut grow = vec![0isize; self.lines.len()];
        for (p, x) in pts.iter().zip(&inl) {
            let Some((ins, li)) = x else { continue };
            for (_, t, _) in ins {
                grow[*li] += t.len() as isize;
            }
            if let (At::Replace, Item::Regio(r)) = (p.at, &self.items[p.item]) {
                grow[*li] -= (self.lines[r.line].end - r.start) as isize;
            }
        }
        let too_long = |li: usize| {
            let l = &self.lines[li];
            grow[li] > 0 && (l.end - l.start) as isize + grow[li] > FREE_LIMIT as isize
        };
        // An item goes on lines of its own as a whole.
        let mut own_lines = vec![false; self.items.len()];
        for (p, x) in pts.iter().zip(&inl) {
            match x {
                Some((_, li)) if !too_long(*li) => {}
                _ => own_lines[p.item] = true,
            }
        }
        for (p, x) in pts.iter().zip(inl) {
            match (own_lines[p.item], x) {
                (false, Some((ins, _))) => {
                    for (off, text, order) in ins {
                        if p.at == At::Replace {
                            let Item::Regio(r) = &self.items[p.item] else {
                                continue;
                            };
                            let end = self.lines[r.line].end;
                            self.out.push(Edit::replace(off, end - off, text));
                        } else {
                            self.insert(off, text, order);
                        }
                    }
                }
                _ => self.place_lines(p, action_at(p.item)),
            }
        }
        let edits = self.edits;
        for (i, e) in edits.iter().enumerate() {
            for (r, text) in &e.rename {
                // The planner only renames where the new text fits.
                let padded = format!("{text:<width$}", width = r.len());
                let text = if self.fixed {
                    padded.to_ascii_uppercase()
                } else {
                    padded
                };
                self.out.push(Edit::replace(r.start, r.len(), text));
            }
            for (r, fresh) in &e.relabel {
                self.relabel(i, r.clone(), *fresh);
            }
            if e.drop_label {
                if let Some(l) = self.stmt(i).and_then(|s| s.label.clone()) {
                    self.blank(l.range);
                }
            }
        }
        self.merge_markers();
    }

    /// Insertions at one offset that each end with a line marker: only the
    /// last marker is needed.
    fn merge_markers(&mut self) {
        let mut idx: Vec<usize> = (0..self.out.len())
            .filter(|&i| self.out[i].replace_len == 0)
            .collect();
        idx.sort_by_key(|&i| (self.out[i].offset, self.out[i].order, i));
        for w in idx.windows(2) {
            let (a, b) = (w[0], w[1]);
            if self.out[a].offset != self.out[b].offset {
                continue;
            }
            let ends_with_marker = |t: &str| {
                let body = t.strip_suffix('\n').unwrap_or(t);
                let last = body.rsplit('\n').next().unwrap_or("");
                t.ends_with('\n') && last.starts_with("# ") && last.ends_with('"')
            };
            if ends_with_marker(&self.out[a].text) && ends_with_marker(&self.out[b].text) {
                let t = &mut self.out[a].text;
                let body_len = t.len() - 1;
                let cut = t[..body_len].rfind('\n').map_or(0, |p| p + 1);
                t.truncate(cut);
            }
        }
    }

    fn place_lines(&mut self, p: &Point<'_>, action_at: Option<usize>) {
        match p.at {
            At::Replace => {
                let mut all = p.first.to_vec();
                all.extend_from_slice(p.second);
                self.replace_lines(p.item, &all, p.second.is_empty());
            }
            At::Before => self.before_lines(p.item, p.first, p.second),
            At::After => {
                let closes = self.edits[p.item].closes_loop;
                self.after_lines(p.item, p.first, closes);
            }
            At::ActionStart => {
                let Some(at) = action_at else { return };
                let after = self.edits[p.item]
                    .action
                    .as_ref()
                    .map(|(_, a)| a.clone())
                    .unwrap_or_default();
                self.action_lines(p.item, p.first, &after, at);
            }
            // Placed together with its start.
            At::ActionEnd => {}
            At::Directive => self.directive_lines(p.item),
        }
    }
}
