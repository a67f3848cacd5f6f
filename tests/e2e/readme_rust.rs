//! README.md "Rust": the dependency line and the code block it shows, built
//! as a new user would (a fresh crate outside this workspace, `cargo run`)
//! and the run directory read with `instrument report`.
//!
//! The dependency line is taken from README.md; its `version = "0.1"` is
//! replaced by the `path = ".../runtime"` its comment names (the crate is
//! not published yet, and the tests run offline). The Rust block is taken
//! from README.md too, with its `...` bodies filled in, so a change of
//! either block that would break a user's build breaks this test.

use std::path::Path;
use std::process::Command;

use crate::common::report::{only_run, report_json, visit};
use crate::common::{run_ok, workspace_root, TestDir};

/// The first fenced block of `lang` after the heading `heading`.
pub(crate) fn block_after(readme: &str, heading: &str, lang: &str) -> String {
    let from = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README.md has no `{heading}`"));
    let fence = format!("```{lang}\n");
    let start = readme[from..]
        .find(&fence)
        .map(|i| from + i + fence.len())
        .unwrap_or_else(|| panic!("no ```{lang} block after `{heading}`"));
    let len = readme[start..]
        .find("```")
        .unwrap_or_else(|| panic!("unclosed ```{lang} block"));
    readme[start..start + len].to_string()
}

/// README's Rust block as a program: items stay, `let` statements go into
/// `main`, `{ ... }` bodies get code.
fn program(block: &str) -> String {
    let mut items = String::new();
    let mut body = String::new();
    let mut in_let = false;
    for line in block.lines() {
        let code = line.split("//").next().unwrap_or("").trim_end();
        if code.trim_start().starts_with("let ") {
            in_let = true;
        }
        let code = code
            .replace(
                "fn solve(n: u64) -> u64 { ... }",
                "fn solve(n: u64) -> u64 { (0..n).sum() }",
            )
            .replace("fn step_internal() { ... }", "fn step_internal() {}");
        assert!(
            !code.contains("..."),
            "a README placeholder this test does not fill: {line}"
        );
        let to = if in_let { &mut body } else { &mut items };
        to.push_str(&code);
        to.push('\n');
        if in_let && code.trim_end().ends_with(';') {
            in_let = false;
        }
    }
    format!(
        "{items}\nfn build_mesh() -> u64 {{ 7 }}\n\nfn main() {{\n{body}    \
         let s = solve(10);\n    step_internal();\n    println!(\"{{}} {{}}\", total, s);\n}}\n"
    )
}

#[test]
fn the_readme_cargo_dependency_and_rust_block_build_and_report() {
    let root = workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let toml = block_after(&readme, "## Rust", "toml");
    let dep = toml
        .lines()
        .find(|l| l.starts_with("regio ="))
        .unwrap_or_else(|| panic!("no `regio =` line in:\n{toml}"));
    let dep = dep.split('#').next().unwrap_or("").trim();
    assert!(dep.contains("version = \"0.1\""), "{dep}");
    let runtime = root.join("runtime");
    let dep = dep.replace(
        "version = \"0.1\"",
        &format!("path = {:?}", runtime.display().to_string()),
    );
    let rust = block_after(&readme, "## Rust", "rust");

    let tmp = TestDir::new("readme-rust");
    let krate = tmp.join("app");
    std::fs::create_dir_all(krate.join("src")).expect("mkdir");
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"readme-app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [workspace]\n\n[dependencies]\n{dep}\n"
        ),
    )
    .expect("Cargo.toml");
    std::fs::write(krate.join("src/main.rs"), program(&rust)).expect("main.rs");

    // Its own target directory in this workspace's (kept between runs, so
    // only the first run builds the runtime's dependencies), offline: the
    // lock file the workspace uses gives the versions already fetched.
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).expect("Cargo.lock");
    let target = root.join("target").join("rust-e2e").join("readme");
    let run_dir = tmp.join("run");
    let out = run_ok(
        Command::new(env!("CARGO"))
            .current_dir(&krate)
            .args(["run", "--quiet", "--offline"])
            .arg("--target-dir")
            .arg(&target)
            .env_remove("REGIO_MODE")
            .env_remove("REGIO_DISABLE")
            .env("REGIO_DIR", &run_dir),
    );
    assert_eq!(out.stdout.trim(), "7 45", "{}", out.describe());
    check_regions(&run_dir);
}

fn check_regions(run_dir: &Path) {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let mut found = Vec::new();
    visit(run, &mut |n, _| {
        found.push((
            n["name"].as_str().unwrap_or("").to_string(),
            n["calls"].as_u64().unwrap_or(0),
            n["file"].as_str().unwrap_or("").to_string(),
        ));
    });
    for name in ["solve", "step", "setup"] {
        assert!(
            found
                .iter()
                .any(|(n, c, f)| n == name && *c == 1 && f.ends_with("main.rs")),
            "no region {name} with 1 call in src/main.rs: {found:?}"
        );
    }
}
