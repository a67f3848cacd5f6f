//! Where a procedure's declarations and entry probe go, and its ENTRY
//! statements.

use std::collections::HashSet;

use super::super::directives::Command;
use super::super::scan::Item;
use super::super::syntax::{Kind, Spec};
use super::Planner;

/// Anchors of a procedure's execution part.
pub(super) struct Anchors {
    /// Where the declarations go: before the first statement function or
    /// executable statement.
    pub(super) decl_at: usize,
    /// Where the entry probe goes: before the first executable statement
    /// (statement functions stay first).
    pub(super) enter_at: usize,
    /// ENTRY statements in the execution part.
    pub(super) entries: Vec<usize>,
}

impl<'a> Planner<'a> {
    pub(super) fn anchors(&mut self, u: usize, body: &[usize]) -> Anchors {
        let unit = &self.st.units[u];
        let mut arrays: HashSet<String> = HashSet::new();
        let mut scalars: HashSet<String> = HashSet::new();
        let mut first_stmt_fn: Option<usize> = None;
        let mut first_exec: Option<usize> = None;
        let mut last_spec: Option<usize> = None;
        for &i in body {
            if first_exec.is_some() {
                break;
            }
            if let Some(d) = &self.omp_dirs[i] {
                // Executable directives belong to the execution part: the
                // declarations and the entry probe go before them.
                if d.is_specification() {
                    last_spec = Some(i);
                } else {
                    first_exec = Some(i);
                }
                continue;
            }
            let Some(k) = self.kinds[i].as_ref() else {
                continue;
            };
            match k {
                Kind::Spec(Spec::Decl {
                    arrays: a,
                    scalars: s,
                }) => {
                    arrays.extend(a.iter().cloned());
                    scalars.extend(s.iter().cloned());
                    last_spec = Some(i);
                }
                Kind::Spec(_)
                | Kind::Include
                | Kind::Interface
                | Kind::TypeDef
                | Kind::EnumDef
                | Kind::DecDef => last_spec = Some(i),
                Kind::Assignment {
                    name,
                    simple_args: true,
                    pointer: false,
                } => {
                    let n = &name.upper;
                    let stmt_fn =
                        !arrays.contains(n) && (scalars.contains(n) || !unit.implicit_none);
                    if stmt_fn {
                        first_stmt_fn.get_or_insert(i);
                        last_spec = Some(i);
                    } else {
                        first_exec = Some(i);
                    }
                }
                k if k.is_executable() => first_exec = Some(i),
                _ => {}
            }
        }
        let spec_end = last_spec;
        let term = self.terminus(u);
        let mut entries = Vec::new();
        let mut exec_directive: Option<usize> = None;
        for &i in body {
            match &self.items[i] {
                Item::Stmt(_) => {
                    if let Some(Kind::Entry(_)) = self.kinds[i] {
                        if spec_end.is_some_and(|e| i < e) {
                            let host = self.unit_name(u);
                            self.warn(
                                i,
                                format!("ENTRY among the declarations of `{host}`: its calls are counted as calls of `{host}`"),
                            );
                        } else {
                            entries.push(i);
                        }
                    }
                }
                Item::Regio(_) => {
                    let exec = self
                        .dirs
                        .at
                        .get(&i)
                        .is_some_and(|d| d.command != Command::Skip);
                    if exec {
                        if spec_end.is_some_and(|e| i < e) {
                            self.directive_error(
                                i,
                                "`!$regio` directive among the declarations: it must follow them"
                                    .into(),
                            );
                        } else if exec_directive.is_none() {
                            exec_directive = Some(i);
                        }
                    }
                }
                Item::Omp(_) => {}
            }
        }
        let first_entry = entries.first().copied();
        let enter_at = [first_exec, first_entry, exec_directive]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(term);
        let decl_at = first_stmt_fn.map_or(enter_at, |f| f.min(enter_at));
        Anchors {
            decl_at,
            enter_at,
            entries,
        }
    }
}
