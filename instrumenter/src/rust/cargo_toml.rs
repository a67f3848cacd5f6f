//! The instrumented copy of a crate must build with `cargo build`: its
//! `Cargo.toml` gets a `regio` dependency when it has none (toml_edit keeps
//! the user's formatting and comments). The runtime is published as the
//! package `regio-rt` (`regio` on crates.io is an unrelated crate), so the
//! dependency is `regio = { package = "regio-rt", ... }`: user code keeps
//! writing `regio::...`.

use std::path::PathBuf;

use crate::diag::Diagnostic;

/// The runtime's package name on crates.io (its library is `regio`).
pub const RUNTIME_PACKAGE: &str = "regio-rt";

/// What the added dependency points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegioDependency {
    Path(PathBuf),
    Version(String),
}

impl Default for RegioDependency {
    /// This build's runtime sources when they exist (a checkout), else the
    /// crates.io version of this build.
    fn default() -> Self {
        let runtime = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../runtime");
        match std::fs::canonicalize(&runtime) {
            Ok(p) if p.join("Cargo.toml").is_file() => RegioDependency::Path(p),
            _ => RegioDependency::Version(env!("CARGO_PKG_VERSION").to_string()),
        }
    }
}

impl std::str::FromStr for RegioDependency {
    type Err = String;

    /// `path:/abs/dir` or a version requirement (`0.1`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s.strip_prefix("path:") {
            Some(p) if !p.is_empty() => Ok(RegioDependency::Path(PathBuf::from(p))),
            Some(_) => Err("`path:` needs a directory".into()),
            None if !s.trim().is_empty() => Ok(RegioDependency::Version(s.trim().to_string())),
            None => Err("expected `path:DIR` or a version requirement".into()),
        }
    }
}

/// The manifest with a `regio` dependency added, None when it needs none
/// (no `[package]`, or the runtime already a dependency, as `regio` or
/// under any name with `package = "regio-rt"`).
pub fn with_regio(
    text: &str,
    display: &str,
    dep: &RegioDependency,
) -> Result<Option<String>, Diagnostic> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let (line, col) = e
            .span()
            .map(|s| crate::diag::line_col(text, s.start))
            .unwrap_or((1, 1));
        Diagnostic::error(
            display,
            line,
            col,
            format!("Cargo.toml does not parse: {}", e.message()),
        )
    })?;
    if !doc.contains_key("package") {
        return Ok(None);
    }
    let deps = doc
        .entry("dependencies")
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(deps) = deps.as_table_like_mut() else {
        return Err(Diagnostic::error(
            display,
            1,
            1,
            "`dependencies` is not a table",
        ));
    };
    let has_runtime = deps.contains_key("regio")
        || deps.contains_key(RUNTIME_PACKAGE)
        || deps
            .iter()
            .any(|(_, v)| v.get("package").and_then(|p| p.as_str()) == Some(RUNTIME_PACKAGE));
    if has_runtime {
        return Ok(None);
    }
    let mut t = toml_edit::InlineTable::new();
    t.insert("package", RUNTIME_PACKAGE.into());
    match dep {
        RegioDependency::Path(p) => t.insert("path", p.display().to_string().into()),
        RegioDependency::Version(v) => t.insert("version", v.as_str().into()),
    };
    let value = toml_edit::value(t);
    deps.insert("regio", value);
    Ok(Some(doc.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dependency_is_added_once_keeping_the_rest() {
        let src = "[package]\nname = \"demo\" # ours\nversion = \"0.1.0\"\n\n[dependencies]\nrand = \"0.8\"\n";
        let dep = RegioDependency::Version("0.1".into());
        let out = with_regio(src, "Cargo.toml", &dep).unwrap().unwrap();
        assert_eq!(
            out,
            format!("{src}regio = {{ package = \"regio-rt\", version = \"0.1\" }}\n")
        );
        assert_eq!(with_regio(&out, "Cargo.toml", &dep).unwrap(), None);
        let ws = "[workspace]\nmembers = [\"a\"]\n";
        assert_eq!(with_regio(ws, "Cargo.toml", &dep).unwrap(), None);
        let bare = "[package]\nname = \"x\"\n";
        let p = RegioDependency::Path("/r/runtime".into());
        assert!(with_regio(bare, "Cargo.toml", &p)
            .unwrap()
            .unwrap()
            .contains("[dependencies]\nregio = { package = \"regio-rt\", path = \"/r/runtime\" }"));
        // The runtime under another name is a dependency already.
        let renamed = "[package]\nname = \"y\"\n[dependencies]\nrt = { package = \"regio-rt\", version = \"0.1\" }\n";
        assert_eq!(with_regio(renamed, "Cargo.toml", &dep).unwrap(), None);
        let e = with_regio("[package\n", "Cargo.toml", &dep).unwrap_err();
        assert!(e.to_string().starts_with("Cargo.toml:1:"), "{e}");
    }
}
