//! `!$regio` lines (`c$regio`, `*$regio` in fixed form): reading them,
//! pairing `begin` with `end` inside one procedure, and checking that a
//! user region nests properly with every construct. All of it happens
//! before any edit, so a bad directive leaves the file untouched.

use std::collections::HashMap;

use crate::diag::{line_col, Diagnostic};

use super::scan::{Item, RegioLine};
use super::structure::Structure;

use crate::directive_grammar as grammar;
pub(crate) use crate::directive_grammar::Command;

#[derive(Debug, Clone)]
pub(crate) struct Directive {
    pub command: Command,
    /// Offset of the sentinel.
    pub start: usize,
    /// Offset past the last word.
    pub last_end: usize,
}

/// A checked `begin`/`end` pair.
#[derive(Debug, Clone)]
pub(crate) struct UserRegion {
    pub name: String,
    pub begin: usize,
    pub end: usize,
    pub unit: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Directives {
    /// By item index.
    pub at: HashMap<usize, Directive>,
    pub regions: Vec<UserRegion>,
    /// Item indices of the procedure headers and DO statements `skip` names.
    pub skipped: Vec<usize>,
    pub warnings: Vec<Diagnostic>,
}

fn spelled(c: &Command) -> String {
    c.spelled("!$regio")
}

struct Ctx<'a> {
    text: &'a str,
    file: &'a str,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn error(&mut self, off: usize, msg: String) {
        let (l, c) = line_col(self.text, off);
        self.errors.push(Diagnostic::error(self.file, l, c, msg));
    }

    fn warn(&mut self, off: usize, msg: String) {
        let (l, c) = line_col(self.text, off);
        self.warnings
            .push(Diagnostic::warning(self.file, l, c, msg));
    }

    fn line(&self, off: usize) -> u32 {
        line_col(self.text, off).0
    }

    fn parse(&mut self, r: &RegioLine) -> Option<(Command, usize)> {
        let body = &self.text[r.body.clone()];
        let mut words: Vec<(usize, &str)> = Vec::new();
        let mut pos = 0;
        for w in body.split([' ', '\t']) {
            if w.starts_with('!') {
                break;
            }
            if !w.is_empty() {
                words.push((r.body.start + pos, w));
            }
            pos += w.len() + 1;
        }
        match grammar::parse(&words, "!$regio", r.start) {
            Ok(parsed) => Some(parsed),
            Err(e) => {
                self.error(e.at, e.message);
                None
            }
        }
    }
}

/// Innermost-first list of (construct, branch) an item stands in: a user
/// region must begin and end in the same list.
fn path(st: &Structure, item: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut c = st.cons_of[item];
    while let Some(ci) = c {
        let cons = &st.cons[ci];
        let branch = cons.branches.iter().filter(|&&b| b <= item).count();
        out.push((ci, branch));
        c = cons.parent;
    }
    out
}

/// The statement a `skip` applies to: the next statement.
fn skip_target(items: &[Item], from: usize) -> Option<usize> {
    (from + 1..items.len()).find(|&i| matches!(items[i], Item::Stmt(_)))
}

pub(crate) fn analyse(
    text: &str,
    file: &str,
    items: &[Item],
    st: &Structure,
    is_target: impl Fn(usize) -> bool,
) -> Result<Directives, Vec<Diagnostic>> {
    let mut cx = Ctx {
        text,
        file,
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let mut out = Directives::default();
    // Open begins per unit: (name, directive item).
    let mut open: HashMap<usize, Vec<(String, usize)>> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let Item::Regio(r) = item else { continue };
        let Some((command, last_end)) = cx.parse(r) else {
            continue;
        };
        let d = Directive {
            command: command.clone(),
            start: r.start,
            last_end,
        };
        match &command {
            Command::Skip => match skip_target(items, i) {
                Some(t) if is_target(t) => out.skipped.push(t),
                _ => cx.warn(
                    r.start,
                    "`!$regio skip` is not followed by a procedure or DO loop; ignored".into(),
                ),
            },
            _ => {
                let unit = st.unit_of[i].filter(|&u| {
                    let unit = &st.units[u];
                    unit.kind.is_procedure()
                        && !unit.fragment
                        && i > unit.first
                        && unit.contains.map_or(i < unit.end, |c| i < c)
                });
                let Some(u) = unit else {
                    cx.error(
                        r.start,
                        format!(
                            "{} outside the execution part of a procedure",
                            spelled(&command)
                        ),
                    );
                    continue;
                };
                match &command {
                    Command::Begin(n) => open.entry(u).or_default().push((n.clone(), i)),
                    Command::End(n) => {
                        let stack = open.entry(u).or_default();
                        match stack.last() {
                            Some((top, b)) if top == n => {
                                let b = *b;
                                stack.pop();
                                if path(st, b) != path(st, i) {
                                    let begin_line = cx.line(items[b].start());
                                    cx.error(
                                        r.start,
                                        format!(
                                            "user region `{n}` (begun at line {begin_line}) crosses a block construct: its begin and end must be in the same block"
                                        ),
                                    );
                                } else {
                                    out.regions.push(UserRegion {
                                        name: n.clone(),
                                        begin: b,
                                        end: i,
                                        unit: u,
                                    });
                                }
                            }
                            Some((top, b)) => {
                                let line = cx.line(items[*b].start());
                                let top = top.clone();
                                cx.error(
                                    r.start,
                                    format!(
                                        "`!$regio end {n}` does not match the innermost open `!$regio begin {top}` (line {line})"
                                    ),
                                );
                            }
                            None => {
                                let elsewhere = open.iter().find_map(|(ou, v)| {
                                    if *ou == u {
                                        return None;
                                    }
                                    v.iter().find(|(name, _)| name == n).map(|(_, b)| *b)
                                });
                                let msg = match elsewhere {
                                    Some(b) => format!(
                                        "`!$regio end {n}` closes a region begun in another procedure (line {}); a user region must lie inside one procedure",
                                        cx.line(items[b].start())
                                    ),
                                    None => format!("`!$regio end {n}` without a matching `!$regio begin {n}`"),
                                };
                                cx.error(r.start, msg);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out.at.insert(i, d);
    }
    let mut unclosed: Vec<(String, usize)> = open.into_values().flatten().collect();
    unclosed.sort_by_key(|(_, b)| *b);
    for (n, b) in unclosed {
        let at = items[b].start();
        cx.error(
            at,
            format!("`!$regio begin {n}` is never closed in its procedure"),
        );
    }
    out.regions.sort_by_key(|r| r.begin);
    let warnings = cx.warnings;
    crate::directive_grammar::checked(cx.errors, || Directives { warnings, ..out })
}
