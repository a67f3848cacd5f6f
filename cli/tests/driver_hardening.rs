//! The `instrument` command on hostile trees and environments (issue 12):
//! links inside `--out`, unreadable files, non-UTF-8 and CR-only sources,
//! build products in the input tree, progress on a terminal, closed pipes,
//! error messages and a copied binary.
//!
//! `REGIO_TEST_INSTRUMENT=/path/to/instrument` runs these tests against
//! another build (to see them fail on one without the fixes).

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> PathBuf {
    std::env::var_os("REGIO_TEST_INSTRUMENT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_instrument")))
}

fn instrument(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run instrument")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, bytes).expect("write");
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn idf(out: &Path) -> serde_json::Value {
    let text = fs::read_to_string(out.join("regio.idf.json")).expect("IDF written");
    serde_json::from_str(&text).expect("IDF is JSON")
}

fn idf_files(out: &Path) -> Vec<String> {
    idf(out)["header"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path").to_string())
        .collect()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `output()`, retried while the program is "text file busy": another test
/// thread may fork while a copied binary's write descriptor is open, and
/// its child holds it until exec.
fn output_retrying(c: &mut Command) -> Output {
    for _ in 0..100 {
        match c.output() {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            r => return r.expect("run"),
        }
    }
    panic!("the program stays busy")
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

const G_C: &str = "int g(void){return 2;}\n";

// ---- item 1: never write through a link ----------------------------------

#[test]
fn a_linked_directory_in_out_is_refused_and_the_sources_stay() {
    let t = tmp();
    let d = t.path();
    write(&d.join("src/sub/b.c"), G_C);
    write(&d.join("src/a.c"), G_C);
    fs::create_dir_all(d.join("out")).unwrap();
    std::os::unix::fs::symlink("../src/sub", d.join("out/sub")).unwrap();
    let o = instrument(d, &["--out", "out", "src"]);
    assert!(!o.status.success(), "must refuse: {}", stderr(&o));
    assert_eq!(fs::read_to_string(d.join("src/sub/b.c")).unwrap(), G_C);
    let err = stderr(&o);
    assert!(
        err.contains("out/sub") && err.contains("symbolic link"),
        "the error names the link: {err}"
    );
    // Nothing was written at all, not even the files outside the link.
    assert!(!d.join("out/a.c").exists());
    assert!(!d.join("out/regio.idf.json").exists());
}

#[test]
fn a_linked_file_in_out_is_replaced_not_written_through() {
    let t = tmp();
    let d = t.path();
    write(&d.join("src/a.c"), G_C);
    write(&d.join("src/data.txt"), "data\n");
    write(&d.join("elsewhere/idf.json"), "mine\n");
    fs::create_dir_all(d.join("out")).unwrap();
    std::os::unix::fs::symlink("../src/a.c", d.join("out/a.c")).unwrap();
    std::os::unix::fs::symlink("../src/data.txt", d.join("out/data.txt")).unwrap();
    std::os::unix::fs::symlink("../elsewhere/idf.json", d.join("out/regio.idf.json")).unwrap();
    let o = instrument(d, &["--out", "out", "src"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(d.join("src/a.c")).unwrap(), G_C);
    assert_eq!(
        fs::read_to_string(d.join("src/data.txt")).unwrap(),
        "data\n"
    );
    assert_eq!(
        fs::read_to_string(d.join("elsewhere/idf.json")).unwrap(),
        "mine\n"
    );
    for f in ["a.c", "data.txt", "regio.idf.json"] {
        let m = fs::symlink_metadata(d.join("out").join(f)).unwrap();
        assert!(m.file_type().is_file(), "{f} is a file of its own now");
    }
}

#[test]
fn out_equal_to_or_a_link_to_an_input_is_refused() {
    let t = tmp();
    let d = t.path();
    write(&d.join("src/a.c"), G_C);
    let o = instrument(d, &["--out", "src", "src"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("choose another --out"),
        "{}",
        stderr(&o)
    );
    std::os::unix::fs::symlink("src", d.join("alias")).unwrap();
    let o = instrument(d, &["--out", "alias", "src"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("choose another --out"),
        "{}",
        stderr(&o)
    );
    // An input inside --out is one too.
    write(&d.join("big/inner/a.c"), G_C);
    let o = instrument(d, &["--out", "big", "big/inner"]);
    assert!(!o.status.success());
    assert_eq!(fs::read_to_string(d.join("src/a.c")).unwrap(), G_C);
    assert_eq!(fs::read_to_string(d.join("big/inner/a.c")).unwrap(), G_C);
}

#[test]
fn out_inside_an_input_is_not_instrumented_again() {
    let t = tmp();
    let d = t.path();
    write(&d.join("src/a.c"), G_C);
    for _ in 0..2 {
        let o = instrument(d, &["--out", "src/regio-out", "src"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(idf_files(&d.join("src/regio-out")), ["a.c"]);
    assert!(!d.join("src/regio-out/regio-out").exists());
    assert_eq!(fs::read_to_string(d.join("src/a.c")).unwrap(), G_C);
}

#[test]
fn a_hard_link_between_source_and_output_keeps_the_source() {
    let t = tmp();
    let d = t.path();
    write(&d.join("src/a.c"), G_C);
    write(&d.join("src/data.txt"), "data\n");
    fs::create_dir_all(d.join("out")).unwrap();
    fs::hard_link(d.join("src/a.c"), d.join("out/a.c")).unwrap();
    fs::hard_link(d.join("src/data.txt"), d.join("out/data.txt")).unwrap();
    // G_C's one function is small: measured, so the copy differs.
    let o = instrument(d, &["--out", "out", "src", "--small-functions"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(d.join("src/a.c")).unwrap(), G_C);
    assert_ne!(fs::read_to_string(d.join("out/a.c")).unwrap(), G_C);
    for f in ["a.c", "data.txt"] {
        let src = fs::metadata(d.join("src").join(f)).unwrap();
        let out = fs::metadata(d.join("out").join(f)).unwrap();
        assert_ne!(src.ino(), out.ino(), "{f}: the output is a file of its own");
        assert_eq!(src.nlink(), 1);
    }
}

// ---- item 2: a file that cannot be read ----------------------------------

/// Reading /proc/self/mem at offset 0 fails with EIO, also for root.
#[test]
fn an_unreadable_source_fails_alone_and_the_idf_describes_the_rest() {
    let t = tmp();
    let d = t.path();
    write(&d.join("ok.c"), G_C);
    std::os::unix::fs::symlink("/proc/self/mem", d.join("bad.c")).unwrap();
    let o = instrument(d, &["--out", "out", "ok.c", "bad.c"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(lines.len(), 1, "one message: {err}");
    assert!(
        lines[0].starts_with("bad.c: error: cannot read this file: "),
        "{err}"
    );
    assert_eq!(lines[0].matches("os error").count(), 1, "{err}");
    assert!(err.contains("1 failed"), "{err}");
    // The IDF is there and describes exactly what was written.
    assert_eq!(idf_files(&d.join("out")), ["ok.c"]);
    assert!(d.join("out/ok.c").is_file());
    assert!(!d.join("out/bad.c").exists());
}

/// Permission denied, for real: as root the tool runs as `nobody` through
/// setpriv (root reads every file).
#[test]
fn a_file_without_read_permission_fails_alone() {
    let t = tmp();
    let d = t.path();
    write(&d.join("src/ok.c"), G_C);
    write(&d.join("src/secret.c"), G_C);
    write(&d.join("src/notes.txt"), "x\n");
    fs::set_permissions(d.join("src/secret.c"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(d.join("src/notes.txt"), fs::Permissions::from_mode(0o000)).unwrap();
    let o = if is_root() {
        if !have("setpriv") {
            eprintln!("SKIPPED: running as root and setpriv is missing: cannot deny a read");
            return;
        }
        for p in [d.to_path_buf(), d.join("src")] {
            fs::set_permissions(&p, fs::Permissions::from_mode(0o777)).unwrap();
        }
        // A copy that `nobody` can run wherever the build tree is.
        let copy = d.join("instrument");
        fs::copy(bin(), &copy).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&copy)
            .args(["--out", "out", "src"])
            .current_dir(d);
        let o = output_retrying(&mut c);
        if o.status.code() == Some(127) || o.status.code() == Some(126) {
            eprintln!("SKIPPED: cannot run as nobody: {}", stderr(&o));
            return;
        }
        o
    } else {
        instrument(d, &["--out", "out", "src"])
    };
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert_eq!(
        err.matches("Permission denied").count(),
        2,
        "once per file: {err}"
    );
    assert!(
        err.contains("src/secret.c: error: cannot read this file: Permission denied"),
        "{err}"
    );
    assert!(err.contains("src/notes.txt: error: cannot read"), "{err}");
    assert_eq!(idf_files(&d.join("out")), ["ok.c"]);
    assert!(!d.join("out/secret.c").exists());
    assert!(!d.join("out/notes.txt").exists());
}

/// Every file below `dir` with its bytes, relative paths.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                files.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// A real full disk: a 256 KiB tmpfs as `--out`, mounted in a mount
/// namespace of its own (needs root; skipped otherwise). The run that does
/// not fit fails with one message and leaves the earlier output as it was.
#[test]
fn a_full_disk_changes_nothing_in_out() {
    if !is_root() || !have("unshare") {
        eprintln!("SKIPPED: a private tmpfs needs root and unshare");
        return;
    }
    let t = tmp();
    let d = t.path();
    write(&d.join("src/a.c"), G_C);
    write(&d.join("src/b.c"), G_C);
    fs::create_dir_all(d.join("out")).unwrap();
    let script = format!(
        r#"set -e
mount -t tmpfs -o size=256k tmpfs out || exit 77
'{bin}' --out out src 2>first.txt
cp -a out before
printf 'int changed(void){{return 3;}}\n' > src/a.c
head -c 400000 /dev/zero > src/big.dat
set +e
'{bin}' --out out src 2>err.txt
echo $? > rc.txt
cp -a out after
"#,
        bin = bin().display()
    );
    let o = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .current_dir(d)
        .output()
        .unwrap();
    if o.status.code() == Some(77) || !o.status.success() {
        eprintln!("SKIPPED: cannot mount a tmpfs here: {}", stderr(&o));
        return;
    }
    let rc = fs::read_to_string(d.join("rc.txt")).unwrap();
    let err = fs::read_to_string(d.join("err.txt")).unwrap();
    assert_ne!(rc.trim(), "0", "{err}");
    assert_eq!(err.lines().count(), 1, "one message: {err}");
    assert!(err.contains("big.dat: error: cannot write"), "{err}");
    assert_eq!(err.matches("No space left on device").count(), 1, "{err}");
    let (before, after) = (tree(&d.join("before")), tree(&d.join("after")));
    assert!(before.iter().any(|(p, _)| p == "regio.idf.json"));
    assert!(
        before == after,
        "--out unchanged: {after:?}",
        after = after.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
}

// ---- item 3: encodings and line endings ----------------------------------

#[test]
fn latin1_bytes_are_kept_exactly() {
    let t = tmp();
    let d = t.path();
    let c: &[u8] = b"/* Fa\xe7ade: r\xe9sum\xe9 */\nstatic const char *s = \"\xb5s \xe0 \xe9t\xe9\";\nint f(int x) { /* \xe9 */ return x + 1; }\nint main(void) { return f(0) - 1; }\n";
    let f: &[u8] =
        b"! Fa\xe7ade r\xe9sum\xe9\nprogram p\n  print *, 'gr\xfc\xdfe'\nend program p\n";
    write(&d.join("src/l.c"), c);
    write(&d.join("src/l.f90"), f);
    let o = instrument(d, &["--out", "out", "src"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("2 file(s) instrumented"),
        "{}",
        stderr(&o)
    );
    for (name, orig) in [("l.c", c), ("l.f90", f)] {
        let out = fs::read(d.join("out").join(name)).unwrap();
        // Every line of the original is in the output, byte for byte.
        for line in orig.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let comment_or_string = line.iter().any(|&b| b >= 0x80);
            if comment_or_string && !line.starts_with(b"int f") {
                assert!(
                    out.windows(line.len()).any(|w| w == line),
                    "{name}: line {:?} kept",
                    String::from_utf8_lossy(line)
                );
            }
        }
        assert!(std::str::from_utf8(&out).is_err(), "{name}: still Latin-1");
    }
    // The hash is of the original bytes; positions count bytes of the
    // original (the region of f starts after a 1-byte Latin-1 é).
    let v = idf(&d.join("out"));
    let files = v["header"]["files"].as_array().unwrap();
    let lc = files.iter().find(|x| x["path"] == "l.c").unwrap();
    use sha2::Digest;
    let hash: String = sha2::Sha256::digest(c)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(lc["hash"], format!("sha256:{hash}"));
    let f_region = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "f")
        .expect("region f");
    assert_eq!(f_region["start"]["line"], 3);
    assert_eq!(f_region["start"]["col"], 1);
    // The closing brace is byte 38 of the line (39 if é counted twice).
    assert_eq!(f_region["end"]["col"], 38);
}

/// Fixed form counts columns up to 72: a Latin-1 character is one of them,
/// so a string closed in column 72 stays a string.
#[test]
fn latin1_in_fixed_form_keeps_its_columns() {
    let t = tmp();
    let d = t.path();
    let mut line = b"      print *, '".to_vec();
    line.extend_from_slice(b"\xe9\xe8\xea");
    line.resize(71, b'a');
    line.push(b'\'');
    assert_eq!(line.len(), 72);
    let mut src = b"c     R\xe9sum\xe9\n      program p\n".to_vec();
    src.extend_from_slice(&line);
    src.extend_from_slice(b"\n      end\n");
    write(&d.join("old.f"), &src);
    let o = instrument(d, &["--out", "out", "old.f"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let out = fs::read(d.join("out/old.f")).unwrap();
    assert!(out.windows(line.len()).any(|w| w == line.as_slice()));
    let comment: &[u8] = b"c     R\xe9sum\xe9\n";
    assert!(out.windows(comment.len()).any(|w| w == comment));
    assert_eq!(idf_files(&d.join("out")), ["old.f"]);
    if have("gfortran") {
        let fc = Command::new("gfortran")
            .args(["-fsyntax-only"])
            .arg(d.join("out/old.f"))
            .output()
            .unwrap();
        assert!(fc.status.success(), "{}", stderr(&fc));
    }
}

#[test]
fn nul_bytes_are_still_refused_as_binary() {
    let t = tmp();
    let d = t.path();
    write(&d.join("b.c"), b"int a;\0\n");
    let o = instrument(d, &["--out", "out", "b.c"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("NUL"), "{}", stderr(&o));
}

#[test]
fn cr_only_line_endings_are_kept_and_compile() {
    let t = tmp();
    let d = t.path();
    let src = "#include <stdio.h>\r#pragma GCC diagnostic ignored \"-Wunused\"\r/* old Mac */\rint f(int n) {\r  int s = 0;\r#pragma regio begin work\r  for (int i = 0; i < n; i++)\r    s += i;\r#pragma regio end work\r  return s;\r}\rint main(void) {\r  printf(\"%d\\n\", f(4));\r  return 0;\r}\r";
    write(&d.join("mac.c"), src);
    let o = instrument(
        d,
        &["--out", "out", "--regions", "functions,loops", "mac.c"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = fs::read_to_string(d.join("out/mac.c")).unwrap();
    assert!(!out.contains('\n'), "CR-only stays CR-only");
    // Directive lines are rewritten and the loop gets its probe.
    for line in src
        .split('\r')
        .filter(|l| !l.starts_with("#pragma regio") && !l.contains("for ("))
    {
        assert!(out.contains(line), "kept: {line:?}");
    }
    let v = idf(&d.join("out"));
    let work = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "work")
        .expect("user region");
    assert_eq!(work["start"]["line"], 6);
    if !have("gcc") {
        eprintln!("SKIPPED compile: no gcc");
        return;
    }
    let flags = Command::new(bin())
        .args(["flags", "--cflags"])
        .output()
        .unwrap();
    let cflags = String::from_utf8(flags.stdout).unwrap();
    let cc = Command::new("gcc")
        .args(["-fsyntax-only", "-Wall", "-Werror", "-Wno-unknown-pragmas"])
        .arg(cflags.trim())
        .arg(d.join("out/mac.c"))
        .output()
        .unwrap();
    assert!(cc.status.success(), "{}", stderr(&cc));
}

// ---- item 4: what is not copied ------------------------------------------

#[test]
fn vcs_build_products_and_regio_directories_are_skipped() {
    let t = tmp();
    let d = t.path();
    let s = d.join("src");
    write(&s.join("a.c"), G_C);
    write(&s.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(&s.join("lib/.git"), "gitdir: ../.git/modules/lib\n");
    write(&s.join("lib/l.c"), G_C);
    write(&s.join(".svn/entries"), "12\n");
    write(&s.join(".hg/store/x"), "x");
    write(
        &s.join("target/CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55\n# cargo\n",
    );
    write(&s.join("target/debug/big.rlib"), "x");
    write(&s.join("rust/target/.rustc_info.json"), "{}");
    write(&s.join("rust/target/debug/x"), "x");
    // A directory named target that is not a build product is copied.
    write(&s.join("docs/target/goal.txt"), "keep\n");
    write(&s.join("regio-run-prog-42/profile-r0-p42.json"), "{}");
    write(&s.join("myrun/profile-r0-p7.json"), "{}");
    write(&s.join("myrun/regio.idf.json"), "{}");
    write(&s.join("old-inst/regio.idf.json"), "{}");
    write(&s.join("old-inst/a.c"), G_C);
    write(&s.join("build/x.o"), "obj");
    write(&s.join("notes/x.o"), "obj");
    let o = instrument(
        d,
        &[
            "--out",
            "out",
            "--exclude",
            "build",
            "--exclude",
            "*.o",
            "src",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = d.join("out");
    for gone in [
        ".git",
        "lib/.git",
        ".svn",
        ".hg",
        "target",
        "rust/target",
        "regio-run-prog-42",
        "myrun",
        "old-inst",
        "build",
        "notes/x.o",
    ] {
        assert!(!out.join(gone).exists(), "{gone} must not be copied");
    }
    assert!(out.join("lib/l.c").is_file());
    assert!(out.join("docs/target/goal.txt").is_file());
    let err = stderr(&o);
    let summary = err.lines().last().unwrap();
    assert!(
        summary.contains("skipped .git (version control), .hg (version control), .svn (version control), lib/.git (version control), 5 more, 2 by --exclude"),
        "{summary}"
    );
    assert_eq!(idf_files(&out), ["a.c", "lib/l.c"]);
}

// ---- item 5: progress on a terminal only -----------------------------------

#[test]
fn progress_shows_on_a_terminal_only() {
    let t = tmp();
    let d = t.path();
    for i in 0..30 {
        write(&d.join(format!("src/f{i}.c")), G_C);
    }
    // G_C's one function is small: measured, so every file counts as
    // instrumented.
    let piped = instrument(d, &["--out", "out", "src", "--small-functions"]);
    assert!(piped.status.success());
    assert_eq!(stderr(&piped).lines().count(), 1, "{}", stderr(&piped));
    assert!(!stderr(&piped).contains("instrumenting"));
    if !have("script") {
        eprintln!("SKIPPED terminal half: no script(1)");
        return;
    }
    // script(1) gives the command a terminal and copies what it shows.
    let cmd = format!("{} --out out2 src --small-functions", bin().display());
    let tty = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .current_dir(d)
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .output()
        .expect("script");
    let shown = String::from_utf8_lossy(&tty.stdout);
    assert!(tty.status.success(), "{shown}");
    assert!(shown.contains("instrumenting"), "progress drawn: {shown:?}");
    assert!(shown.contains("/30 files"), "{shown:?}");
    assert!(shown.contains("30 file(s) instrumented"), "{shown:?}");
}

// ---- item 14: a closed pipe ----------------------------------------------

/// Runs `args` with stdout a pipe whose reading end is already closed.
fn with_closed_stdout(dir: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run instrument")
}

fn quiet_on_epipe(o: &Output) {
    use std::os::unix::process::ExitStatusExt;
    let err = stderr(o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "nothing on stderr: {err}");
    assert!(
        o.status.success() || o.status.signal() == Some(13),
        "exit quietly (0 or SIGPIPE): {:?}",
        o.status
    );
}

#[test]
fn commands_exit_quietly_on_a_closed_pipe() {
    let t = tmp();
    let d = t.path();
    quiet_on_epipe(&with_closed_stdout(d, &["flags", "--cflags"]));
    quiet_on_epipe(&with_closed_stdout(d, &["--help"]));
    if !have("gcc") {
        eprintln!("SKIPPED report half: no gcc");
        return;
    }
    // A real run directory: instrument, build and run a small program.
    write(
        &d.join("src/p.c"),
        "int f(int x){return x+1;}\nint main(void){int s=0; for(int i=0;i<3;i++) s+=f(i); return s==6?0:1;}\n",
    );
    let o = instrument(d, &["--out", "inst", "src"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let flags = Command::new(bin())
        .args(["flags", "--cflags", "--libs"])
        .output()
        .unwrap();
    let flags = String::from_utf8(flags.stdout).unwrap();
    let cc = Command::new("gcc")
        .arg(d.join("inst/p.c"))
        .args(["-o", "p"])
        .args(flags.split_whitespace())
        .current_dir(d)
        .output()
        .unwrap();
    assert!(cc.status.success(), "{}", stderr(&cc));
    let run = Command::new(d.join("p"))
        .current_dir(d)
        .env("REGIO_DIR", d.join("run"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    for format in ["text", "json", "csv", "collapsed", "html"] {
        quiet_on_epipe(&with_closed_stdout(
            d,
            &["report", "--format", format, "run"],
        ));
    }
}

// ---- item 16: each OS error once -----------------------------------------

#[test]
fn os_errors_are_printed_once() {
    let t = tmp();
    let d = t.path();
    for args in [
        &["report", "/nonexistent"][..],
        &["--filter", "/nonexistent/filter", "--out", "out", "."][..],
    ] {
        let o = instrument(d, args);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert_eq!(err.matches("os error 2").count(), 1, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

// ---- item 17: flags from a copied binary ---------------------------------

#[test]
fn flags_work_from_a_copied_binary_and_errors_say_how_to_point() {
    let t = tmp();
    let d = t.path();
    let copy = d.join("instrument");
    fs::copy(bin(), &copy).unwrap();
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut c = Command::new(&copy);
        c.args(args).current_dir(d);
        for v in ["REGIO_LIB_DIR", "REGIO_INCLUDE_DIR", "REGIO_HOME"] {
            c.env_remove(v);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        output_retrying(&mut c)
    };
    // The build tree it came from is still found.
    let o = run(&[], &["flags", "--cflags", "--libs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let flags = String::from_utf8_lossy(&o.stdout);
    assert!(flags.contains("-I") && flags.contains("regio"), "{flags}");
    // A setting that points nowhere useful is an error naming it.
    let o = run(
        &[("REGIO_LIB_DIR", "/nonexistent/lib")],
        &["flags", "--libs"],
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("REGIO_LIB_DIR=/nonexistent/lib holds no libregio.so or libregio.a"),
        "{err}"
    );
    // --cflags needs no library.
    let o = run(
        &[("REGIO_INCLUDE_DIR", "/nonexistent/include")],
        &["flags", "--cflags"],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("REGIO_INCLUDE_DIR=/nonexistent/include"));
}
