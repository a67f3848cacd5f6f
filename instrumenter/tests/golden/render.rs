//! Instrumenting one fixture with one set of options, checking what must
//! hold whatever the snapshot says, and writing the result as the
//! snapshots of its layout.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use regio_idf::idf::{line_stats, FORMAT_VERSION};
use regio_idf::{Header, Idf, SourceFile};
use regio_instrumenter::filter::Filter;
use regio_instrumenter::fortran::{self, SourceForm};
use regio_instrumenter::frontend::{FrontendResult, Instrumented, SourceInput};
use regio_instrumenter::selection::Selection;
use regio_instrumenter::{c, rust};

use crate::fixtures::Fixture;
use crate::options::{Expect, Layout, Options};

/// One snapshot: its name (without `.snap`) and its content.
pub type Snapshot = (String, String);

/// The snapshots of `fixture` under `options`, or why the fixture fails.
pub fn snapshots(fixture: &Fixture, options: &Options) -> Result<Vec<Snapshot>, String> {
    let file = &fixture.shown;
    let text = std::fs::read_to_string(&fixture.path).map_err(|e| format!("{file}: {e}"))?;
    let rel = match &options.rel_path {
        Some(r) => r.as_str(),
        None => relative_path(file, options)?,
    };
    let display = options.display.as_deref().unwrap_or(file);
    let mut selection: Selection = options
        .regions
        .parse()
        .map_err(|e| format!("{file}: regions={}: {e}", options.regions))?;
    selection.small_functions |= options.small_functions;
    let filter = match &options.filter {
        Some(name) => {
            let path = fixture.path.with_file_name(name);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Filter::parse(name, &text).map_err(|e| format!("{file}: filter={name}: {e}"))?
        }
        None => Filter::default(),
    };
    let idf_path = options.idf_path();
    let input = SourceInput {
        text: &text,
        display_path: display,
        rel_path: rel,
        idf_path: &idf_path,
        selection,
        filter: &filter,
        first_id: options.first_id,
    };
    let base = match &options.name {
        Some(name) => format!("{}-{name}", file_name(&fixture.path)),
        None => file_name(&fixture.path),
    };
    let result = instrument(&fixture.path, &input, options)?;
    match (options.expect, result) {
        (Expect::Error, Ok(out)) => Err(format!("{file} was accepted:\n{}", out.text)),
        (Expect::Error, Err(errors)) => {
            let errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            let prefix = format!("{display}:");
            for line in errors.iter().flat_map(|e| e.lines()) {
                if !(line.starts_with(&prefix) && line.contains(": error: ")) {
                    return Err(format!("not `{display}:line:col: error: ...`: {line}"));
                }
            }
            Ok(vec![(base, errors.join("\n"))])
        }
        (_, Err(errors)) => Err(format!(
            "{file} ({}) was refused:\n{}",
            options.regions,
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )),
        (expect, Ok(out)) => {
            if expect == Expect::Unchanged && out.text != text {
                return Err(format!("{file}: not left as written"));
            }
            if options.idf.is_some() || options.line_limit {
                lines_fit(&fixture.path, &out)?;
            }
            Ok(match options.layout {
                Layout::Combined => vec![(base, combined(options, &out))],
                Layout::CombinedJson => vec![(base, combined_json(options, &out))],
                Layout::SplitJson => {
                    split_json_invariants(display, rel, &text, &out)?;
                    vec![
                        (format!("{base}.inst"), out.text.clone()),
                        (format!("{base}.idf"), json_lines(&out)),
                    ]
                }
                Layout::SplitLines => split_lines(&fixture.path, &base, &out)?,
            })
        }
    }
}

/// The IDF `file`: relative to `rel=DIR`, else the workspace-relative path.
fn relative_path<'a>(file: &'a str, options: &Options) -> Result<&'a str, String> {
    match &options.rel {
        Some(base) => file
            .strip_prefix(base.as_str())
            .and_then(|r| r.strip_prefix('/'))
            .ok_or_else(|| format!("{file} is not under rel={base}")),
        None => Ok(file),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The front end of the file's language.
fn instrument(
    path: &Path,
    input: &SourceInput<'_>,
    options: &Options,
) -> Result<FrontendResult, String> {
    let suffix = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    Ok(match suffix {
        "c" | "h" => match (&options.macros, &options.preprocessed) {
            (_, Some(own_file)) => c::instrument_preprocessed(input, own_file),
            (Some(names), None) => {
                let known: HashSet<String> = names.split(',').map(str::to_string).collect();
                c::instrument_with_macros(input, &known)
            }
            (None, None) => c::instrument(input),
        },
        "rs" => rust::instrument(input),
        _ => match fortran::form_for_path(path) {
            Some(form) => fortran::instrument(input, form),
            None => return Err(format!("{}: no front end reads this file", path.display())),
        },
    })
}

fn combined(options: &Options, out: &Instrumented) -> String {
    let mut s = String::new();
    writeln!(s, "--- regions ({})", options.regions).ok();
    for r in &out.regions {
        let aux = serde_json::Value::Object(r.aux.clone());
        writeln!(
            s,
            "{:>3} {:<8} {:<14} unit={:<10} {}:{}-{}:{} parent={} {}",
            r.id,
            r.kind.to_string(),
            r.name,
            r.unit,
            r.start.line,
            r.start.col,
            r.end.line,
            r.end.col,
            r.parent.map_or("-".to_string(), |p| p.to_string()),
            aux
        )
        .ok();
    }
    if !out.warnings.is_empty() {
        writeln!(s, "--- warnings").ok();
        for w in &out.warnings {
            writeln!(s, "{w}").ok();
        }
    }
    writeln!(s, "--- text").ok();
    s.push_str(&out.text);
    s
}

/// Like [`combined`], with every region as its IDF JSON line, and every
/// carriage return of the text shown as `␍` (insta would not see a lost
/// one).
fn combined_json(options: &Options, out: &Instrumented) -> String {
    let mut s = String::new();
    writeln!(s, "--- regions ({})", options.regions).ok();
    for r in &out.regions {
        writeln!(
            s,
            "{}",
            serde_json::to_string(r).unwrap_or_else(|e| e.to_string())
        )
        .ok();
    }
    if !out.warnings.is_empty() {
        writeln!(s, "--- warnings").ok();
        for w in &out.warnings {
            writeln!(s, "{w}").ok();
        }
    }
    writeln!(s, "--- text").ok();
    // insta compares text with line ends normalised: show each CR.
    s.push_str(&out.text.replace('\r', "\u{240d}"));
    s
}

/// Every region as a JSON line, then the warnings.
fn json_lines(out: &Instrumented) -> String {
    let mut s = String::new();
    for r in &out.regions {
        s.push_str(&serde_json::to_string(r).unwrap_or_else(|e| e.to_string()));
        s.push('\n');
    }
    for w in &out.warnings {
        s.push_str(&w.to_string());
        s.push('\n');
    }
    s
}

fn split_lines(path: &Path, base: &str, out: &Instrumented) -> Result<Vec<Snapshot>, String> {
    let is_rust = path.extension().is_some_and(|e| e == "rs");
    // Rust regions describe themselves at run time: no IDF regions.
    if out.regions.is_empty() && !is_rust {
        return Err(format!("{}: no regions", path.display()));
    }
    let mut snaps = vec![(format!("{base}.inst"), out.text.clone())];
    let warnings: Vec<String> = out.warnings.iter().map(|w| w.to_string()).collect();
    if !warnings.is_empty() {
        snaps.push((format!("{base}.warnings"), warnings.join("\n")));
    }
    if !is_rust {
        let idf = out
            .regions
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {}:{}-{}:{} parent={:?} {}\n",
                    r.id,
                    r.kind,
                    r.name,
                    r.start.line,
                    r.start.col,
                    r.end.line,
                    r.end.col,
                    r.parent,
                    serde_json::Value::Object(r.aux.clone())
                )
            })
            .collect();
        snaps.push((format!("{base}.idf"), idf));
    }
    Ok(snaps)
}

/// Every generated line fits 132 columns in free form and 72 in fixed
/// form (line markers are not Fortran lines and may be longer, nor are
/// the fixture's own `regio-test:` lines).
fn lines_fit(path: &Path, out: &Instrumented) -> Result<(), String> {
    let limit = match fortran::form_for_path(path) {
        Some(SourceForm::Fixed) => 72,
        Some(SourceForm::Free) => 132,
        None => return Ok(()),
    };
    let long: Vec<&str> = out
        .text
        .lines()
        .filter(|l| !l.starts_with("# ") && !l.contains("regio-test:") && l.len() > limit)
        .collect();
    if long.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: lines too long: {long:#?}", path.display()))
    }
}

/// The line number the preprocessor gives the end of `text`: lines
/// counted, a `#line N` line makes the next line N (the only lines a probe
/// adds, the repeated condition of a directive in an `#if` group, end
/// with one).
fn presumed_lines(text: &str) -> usize {
    // The number of the line being read.
    let mut next = 1;
    for l in text.split('\n') {
        let marker = l
            .trim()
            .strip_prefix("#line ")
            .and_then(|r| r.split_whitespace().next()?.parse::<usize>().ok());
        next = marker.unwrap_or(next + 1);
    }
    next
}

/// What every instrumented C file must satisfy: unchanged if nothing was
/// instrumented, line numbers kept after the prelude's `#line`, no
/// directive left, and regions that form a valid IDF.
fn split_json_invariants(
    file: &str,
    rel: &str,
    original: &str,
    out: &Instrumented,
) -> Result<(), String> {
    if out.regions.is_empty() && !original.contains("regio") {
        return if out.text == original {
            Ok(())
        } else {
            Err(format!("{file}: no regions, yet the text changed"))
        };
    }
    let marker = format!("#line 1 \"{file}\"\n");
    let at = out
        .text
        .find(&marker)
        .ok_or_else(|| format!("{file}: no #line"))?;
    let body = &out.text[at + marker.len()..];
    // A header ends with the epilogue that restores the names its prelude
    // renamed, a `.c` file with the one that does so if it was included
    // by another instrumented `.c` file, on lines of its own after the
    // last line.
    let epilogue = ["#ifdef REGIO_INCLUDED_", "#pragma pop_macro(\"regio__"]
        .iter()
        .filter_map(|m| body.find(m))
        .min();
    let body = match epilogue {
        Some(end) if original.ends_with('\n') || original.is_empty() => &body[..end],
        Some(end) => &body[..end - 1],
        None => body,
    };
    if presumed_lines(body) != presumed_lines(original) {
        return Err(format!("{file}: line numbers changed"));
    }
    if body.contains("#pragma regio") {
        return Err(format!("{file}: directive left in place"));
    }
    let (lines, max_line_len) = line_stats(original);
    let idf = Idf {
        header: Header {
            format_version: FORMAT_VERSION,
            tool: "instrument".into(),
            tool_version: "test".into(),
            options: Default::default(),
            files: vec![SourceFile {
                path: rel.into(),
                original: rel.into(),
                hash: "sha256:0".into(),
                lines,
                max_line_len,
            }],
        },
        regions: out.regions.clone(),
    };
    if let Err(errors) = idf.validate() {
        return Err(format!("{file}: invalid regions: {errors:?}"));
    }
    for (i, r) in out.regions.iter().enumerate() {
        if r.id != i as u32 + 1 {
            return Err(format!("{file}: ids not consecutive"));
        }
        if r.parent.is_some_and(|p| p >= r.id) {
            return Err(format!("{file}: child before parent"));
        }
    }
    Ok(())
}
