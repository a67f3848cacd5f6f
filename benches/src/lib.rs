//! What the benchmarks in `benches/` share: where the runtime they link
//! against was built. The benchmarks themselves are the `[[bench]]`
//! targets (`cargo bench -p regio-benches --bench NAME`).

use std::path::{Path, PathBuf};

/// Compiler and linker flags for a C program linked with the libregio.so
/// cargo built for these benches: this crate depends on the runtime, so
/// the library sits in the directory of the bench executables
/// (`target/<profile>/deps`). The header is taken from the source tree.
pub struct RuntimeFlags {
    pub cflags: Vec<String>,
    pub libs: Vec<String>,
}

/// The flags, or a message saying where libregio.so was looked for.
pub fn runtime_flags() -> Result<RuntimeFlags, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current executable: {e}"))?;
    let lib_dir = exe
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| format!("{} has no directory", exe.display()))?;
    if !lib_dir.join("libregio.so").is_file() {
        return Err(format!(
            "no libregio.so in {} (cargo builds it there for `cargo bench -p regio-benches`)",
            lib_dir.display()
        ));
    }
    let include: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/include");
    let dir = lib_dir.display();
    Ok(RuntimeFlags {
        cflags: vec![format!("-I{}", include.display())],
        libs: vec![
            format!("-L{dir}"),
            format!("-Wl,-rpath,{dir}"),
            "-lregio".to_string(),
        ],
    })
}
