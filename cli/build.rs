//! Links `instrument` as a position-dependent executable on Linux/GNU.
//!
//! Why: the wrapper (`instrument wrap`) and one-process-per-file builds
//! start `instrument` once per compilation, so its start-up is paid per
//! file (issue 16, section 4). As a PIE, the dynamic loader applies about
//! 18,700 relative relocations at every start, touching the pages of
//! `.data.rel.ro` (tree-sitter's tables, the front ends' static data):
//! 205 page faults and ~0.4 ms more per process than with `-no-pie` (122,
//! level with `opari2 --version`; BENCHMARKS.md "Start-up of the
//! instrumenter"). The code is still compiled position-independent; only
//! the link resolves those relocations once. Nothing is loaded into the
//! instrumenter that would need its address randomised (it reads source
//! files and writes copies); libotf2 is still a shared library.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
