//! Dependency files (`-MD`/`-MMD`) of a wrapped compile must name the
//! original source and headers, as the plain build's do, or `make` would
//! never rebuild after an edit.
//!
//! C: the copy the compiler sees may be the preprocessed unit, which has no
//! `#include` left, so the dependency options are taken off the compile and
//! the compiler writes the file from the original source in a run of its
//! own (`-M`/`-MM` with the same `-MF`, `-MT`/`-MQ`, `-MP`). Fortran: the
//! copy includes what the original does (its directory is on the include
//! path), so the compile writes the file and the copy's path is replaced
//! by the original's.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::command::Parsed;
use super::Copy;
use regio_instrumenter::driver::Language;

/// What to do about a dependency file once the compile succeeded.
pub enum Fixup {
    /// Run the compiler with these arguments (C).
    Run(Vec<OsString>),
    /// Name the original instead of the copy in this file (Fortran).
    Rewrite {
        file: PathBuf,
        copy: PathBuf,
        original: PathBuf,
    },
}

pub fn separate_runs(parsed: &Parsed) -> Vec<Fixup> {
    let Some(d) = &parsed.deps else {
        return Vec::new();
    };
    let flags = parsed.flags_without_io();
    parsed
        .sources
        .iter()
        .filter(|s| s.lang == Language::C)
        .map(|s| {
            let mut args = flags.clone();
            args.push(OsString::from(if d.user_only { "-MM" } else { "-M" }));
            if d.phony {
                args.push("-MP".into());
            }
            args.push("-MF".into());
            args.push(
                d.file
                    .clone()
                    .unwrap_or_else(|| parsed.default_dep_file(s).into_os_string()),
            );
            if d.targets.is_empty() {
                args.push("-MQ".into());
                args.push(parsed.object_of(s));
            }
            for (flag, value) in &d.targets {
                args.push(flag.into());
                args.push(value.clone());
            }
            args.push(s.path.clone().into_os_string());
            Fixup::Run(args)
        })
        .collect()
}

pub fn rewrites(parsed: &Parsed, copies: &[Copy]) -> Vec<Fixup> {
    let Some(d) = &parsed.deps else {
        return Vec::new();
    };
    copies
        .iter()
        .filter_map(|c| {
            let source = parsed.sources.iter().find(|s| s.index == c.index)?;
            let file = d
                .file
                .clone()
                .map(PathBuf::from)
                .unwrap_or_else(|| parsed.default_dep_file(source));
            Some(Fixup::Rewrite {
                file,
                copy: c.copy.clone(),
                original: c.original.clone(),
            })
        })
        .collect()
}

impl Fixup {
    pub fn apply(&self, compiler: &OsStr) -> Result<()> {
        match self {
            Fixup::Run(args) => {
                let status = std::process::Command::new(compiler)
                    .args(args)
                    .status()
                    .with_context(|| {
                        format!("error: cannot run `{}`", compiler.to_string_lossy())
                    })?;
                anyhow::ensure!(
                    status.success(),
                    "error: `{} -M` failed writing the dependency file",
                    compiler.to_string_lossy()
                );
                Ok(())
            }
            Fixup::Rewrite {
                file,
                copy,
                original,
            } => {
                let bytes = match std::fs::read(file) {
                    Ok(b) => b,
                    // The compiler wrote none (no `-cpp`): nothing to fix.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                    Err(e) => {
                        return Err(e)
                            .with_context(|| format!("{}: error: cannot read", file.display()))
                    }
                };
                let from = copy.as_os_str().as_encoded_bytes();
                let to = make_escaped(original.as_os_str().as_encoded_bytes());
                let fixed = replace_all(&bytes, from, &to);
                regio_instrumenter::driver::write_atomically(file, &fixed)?;
                Ok(())
            }
        }
    }
}

/// A path as a Make rule names it (GCC's escaping of spaces, `#`, `$`).
fn make_escaped(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    for &b in path {
        match b {
            b' ' | b'#' => out.extend_from_slice(&[b'\\', b]),
            b'$' => out.extend_from_slice(b"$$"),
            _ => out.push(b),
        }
    }
    out
}

fn replace_all(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if !from.is_empty() && hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_replaced_by_the_escaped_original() {
        let d = b"m.o m.mod: /tmp/regio-wrap-x/0/m.F90 inc/x.h\n/tmp/regio-wrap-x/0/m.F90:\n";
        let fixed = replace_all(
            d,
            b"/tmp/regio-wrap-x/0/m.F90",
            &make_escaped(b"my src/m.F90"),
        );
        assert_eq!(
            String::from_utf8_lossy(&fixed),
            "m.o m.mod: my\\ src/m.F90 inc/x.h\nmy\\ src/m.F90:\n"
        );
    }
}
