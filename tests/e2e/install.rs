//! `scripts/install.sh PREFIX` (`make install PREFIX=...`): the installed
//! tree is relocatable. Installed from this build, moved elsewhere, it
//! still answers `instrument flags` with its new place, and programs build
//! against it with pkg-config and with CMake's `find_package(Regio)`, run,
//! and leave a profile that names their functions.

use std::path::Path;
use std::process::Command;

use crate::common::report::{only_run, report_json, visit};
use crate::common::{
    copy_tree, instrument_bin, require_tool, run_ok, testdata, workspace_root, TestDir,
};

/// Installs this build's binaries into `prefix` the way README.md says,
/// `make install PREFIX=...` (REGIO_BUILT: this build, not a new release
/// build).
fn install(prefix: &Path) {
    let built = instrument_bin()
        .parent()
        .map(Path::to_path_buf)
        .expect("target dir");
    run_ok(
        Command::new("make")
            .arg("-C")
            .arg(workspace_root())
            .arg("install")
            .arg(format!("PREFIX={}", prefix.display()))
            .env("REGIO_BUILT", &built),
    );
}

/// The names of the regions a run directory's DRG holds.
fn region_names(run_dir: &Path) -> Vec<String> {
    let report = report_json(&[run_dir]).unwrap_or_else(|e| panic!("{e}"));
    let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
    let mut names = Vec::new();
    visit(run, &mut |n, _| {
        names.push(n["name"].as_str().unwrap_or("").to_string());
    });
    names
}

#[test]
fn a_moved_install_builds_programs_with_pkg_config_and_cmake() {
    if !(require_tool("pkg-config", "pkg-config") && require_tool("make", "make")) {
        return;
    }
    let tmp = TestDir::new("install");
    let first = tmp.join("first");
    install(&first);
    let prefix = tmp.join("moved/elsewhere");
    std::fs::create_dir_all(prefix.parent().expect("parent")).expect("mkdir");
    std::fs::rename(&first, &prefix).expect("move the install");
    for f in [
        "bin/instrument",
        "lib/libregio.a",
        "lib/libregio.so",
        "include/regio.h",
        "lib/pkgconfig/regio.pc",
        "lib/cmake/Regio/RegioConfig.cmake",
    ] {
        assert!(prefix.join(f).is_file(), "{f} not installed");
    }
    let instrument = prefix.join("bin/instrument");
    let flags = run_ok(
        Command::new(&instrument)
            .args(["flags", "--cflags", "--libs"])
            .env_remove("REGIO_HOME")
            .env_remove("REGIO_LIB_DIR")
            .env_remove("REGIO_INCLUDE_DIR"),
    )
    .stdout;
    let lib = prefix.join("lib").canonicalize().expect("lib");
    let include = prefix.join("include").canonicalize().expect("include");
    assert!(
        flags.contains(&format!("-L{}", lib.display()))
            && flags.contains(&format!("-I{}", include.display())),
        "flags do not name the moved prefix: {flags}"
    );

    // `instrument wrap` of the moved install compiles, links its runtime
    // and the program runs without LD_LIBRARY_PATH (rpath to the new place).
    let wrapped = tmp.join("wrapped");
    std::fs::create_dir_all(&wrapped).expect("mkdir");
    std::fs::copy(testdata().join("install/hello.c"), wrapped.join("hello.c")).expect("copy");
    run_ok(
        Command::new(&instrument)
            .current_dir(&wrapped)
            .args(["wrap", "cc", "-O2", "hello.c", "-o", "hello"])
            .env("REGIO_WRAP_SMALL_FUNCTIONS", "1")
            .env_remove("REGIO_HOME")
            .env_remove("REGIO_LIB_DIR")
            .env_remove("REGIO_INCLUDE_DIR"),
    );
    let run_dir = tmp.join("run-wrap");
    let out = run_ok(
        Command::new(wrapped.join("hello"))
            .env("REGIO_DIR", &run_dir)
            .env_remove("LD_LIBRARY_PATH"),
    );
    assert_eq!(out.stdout, "49\n");
    let names = region_names(&run_dir);
    assert!(names.iter().any(|n| n == "square"), "{names:?}");
    let needed = run_ok(Command::new("readelf").arg("-d").arg(wrapped.join("hello"))).stdout;
    assert!(
        needed.contains(&lib.display().to_string()),
        "the wrapped program's rpath is not the moved prefix: {needed}"
    );

    // pkg-config: instrument a copy, compile it with the .pc flags.
    let src = tmp.join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::copy(testdata().join("install/hello.c"), src.join("hello.c")).expect("copy");
    // `square` is a small function: measured on request (the harness
    // adds the option only to the build tree's binary).
    run_ok(
        Command::new(&instrument)
            .arg(&src)
            .arg("--out")
            .arg(tmp.join("out"))
            .arg("--small-functions"),
    );
    let pc = run_ok(
        Command::new("pkg-config")
            .args(["--cflags", "--libs", "regio"])
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")),
    )
    .stdout;
    let exe = tmp.join("hello");
    // The flags before the source, under --as-needed (many Makefiles put
    // LDFLAGS there): the .pc keeps the runtime needed anyway.
    run_ok(
        Command::new("cc")
            .arg("-Wl,--as-needed")
            .args(pc.split_whitespace())
            .arg(tmp.join("out/hello.c"))
            .arg("-o")
            .arg(&exe),
    );
    let run_dir = tmp.join("run-pc");
    let out = run_ok(
        Command::new(&exe)
            .env("REGIO_DIR", &run_dir)
            .env_remove("LD_LIBRARY_PATH"),
    );
    assert_eq!(out.stdout, "49\n");
    let names = region_names(&run_dir);
    assert!(names.iter().any(|n| n == "square"), "{names:?}");

    // CMake: find_package(Regio) gives the wrapper and Regio::regio.
    if !require_tool("cmake", "cmake") {
        return;
    }
    let project = tmp.join("cmake");
    copy_tree(&testdata().join("install/cmake"), &project);
    let build = tmp.join("cmake-build");
    run_ok(
        Command::new("cmake")
            .arg("-S")
            .arg(&project)
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())),
    );
    run_ok(Command::new("cmake").arg("--build").arg(&build));
    let run_dir = tmp.join("run-cmake");
    let out = run_ok(
        Command::new(build.join("hello"))
            .env("REGIO_DIR", &run_dir)
            .env_remove("LD_LIBRARY_PATH"),
    );
    assert_eq!(out.stdout, "49\n");
    let names = region_names(&run_dir);
    assert!(names.iter().any(|n| n == "square"), "{names:?}");
}
