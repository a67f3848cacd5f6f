//! `instrument flags --libs` in tree mode works wherever a Makefile puts
//! it on the link line. Many Makefiles link with `$(CC) $(FLAGS)
//! $(LDFLAGS) objects...`: the runtime comes before the objects that need
//! it, and with `--as-needed` (Debian's and Ubuntu's gcc pass it by
//! default) the linker drops it and the link fails with undefined
//! `regio_*` symbols (found on CloverLeaf, notes/handoff-h-realcode.md).
//! The flags keep the runtime needed wherever they stand
//! (`-Wl,--push-state,--no-as-needed -lregio -Wl,--pop-state`, what GCC
//! itself does for its sanitizer runtimes), and leave the rest of the link
//! as the Makefile set it.

use std::process::Command;

use crate::common::{copy_tree, instrument_bin, require_tool, run, run_ok, testdata, TestDir};
use crate::readme_build::path_with_instrument;
use crate::wrap::{line_of, nodes, run_dir_in};

#[test]
fn libs_in_ldflags_before_the_objects_link_with_as_needed() {
    if !require_tool("make", "make") {
        return;
    }
    let tmp = TestDir::new("flags-ldfirst");
    let project = testdata().join("flags/ldfirst");
    let plain = tmp.join("plain");
    copy_tree(&project, &plain);
    run_ok(Command::new("make").arg("-s").current_dir(&plain));
    let plain_out = run_ok(&mut Command::new(plain.join("prog"))).stdout;

    let inst = tmp.join("inst");
    run_ok(
        Command::new(instrument_bin())
            .arg(&project)
            .arg("--out")
            .arg(&inst),
    );
    // As a user writes it: the flags substituted by the shell.
    let built = run(Command::new("sh")
        .arg("-c")
        .arg("make -s LDFLAGS=\"$(instrument flags --libs)\"")
        .current_dir(&inst)
        .env("PATH", path_with_instrument()));
    assert_eq!(built.code(), Some(0), "{}", built.describe());
    let out = run_ok(
        Command::new(inst.join("prog"))
            .current_dir(&inst)
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("REGIO_DIR"),
    );
    assert_eq!(out.stdout, plain_out);
    let got = nodes(&run_dir_in(&inst));
    for (name, kind, file, text) in [
        ("main", "program", "main.c", "int main(void)"),
        ("work", "function", "work.c", "long work(int n)"),
    ] {
        let line = line_of(&project, file, text);
        assert!(
            got.iter()
                .any(|(n, k, f, l)| n == name && k == kind && f == file && *l == line),
            "no {kind} {name} at {file}:{line}: {got:#?}"
        );
    }

    // The Makefile really drops a runtime named before the objects: the
    // same link with only the library's own flags fails. (Without this the
    // check above would pass on a toolchain that ignored --as-needed.)
    let flags = run_ok(Command::new(instrument_bin()).args(["flags", "--libs"])).stdout;
    let bare: Vec<&str> = flags
        .split_whitespace()
        .filter(|f| !f.contains("-state"))
        .collect();
    assert_ne!(bare.len(), flags.split_whitespace().count(), "{flags}");
    std::fs::remove_file(inst.join("prog")).expect("remove prog");
    let dropped = run(Command::new("make")
        .arg("-s")
        .arg(format!("LDFLAGS={}", bare.join(" ")))
        .current_dir(&inst));
    assert_ne!(dropped.code(), Some(0), "{}", dropped.describe());
    assert!(
        dropped.stderr.contains("undefined reference to `regio_"),
        "{}",
        dropped.describe()
    );
}
