//! README.md "Building with Make or CMake" and "Install": the Make, CMake,
//! MPI and Fortran command blocks, taken from README.md and run as written
//! (each command through `sh -c`, with this build's `instrument` first on
//! PATH) on small projects of testdata/wrap, and compared with the plain
//! build: the same commands with the wrapper taken out (`instrument wrap
//! gcc` becomes `gcc`, `-D...` definitions that name `instrument` go,
//! `instrument report` is not run). A change of a block that would break a
//! user's build breaks this test. The Install blocks are run as one script
//! from the checkout into a temporary HOME.
//!
//! The projects: `testdata/wrap/make` (C + Fortran + OpenMP, a static
//! library and a program), `testdata/wrap/cmake` (C and Fortran, a shared
//! library and an executable), `testdata/wrap/mpimake` (a C MPI program
//! built with mpicc and a Fortran one built with mpif90, by Make),
//! `testdata/wrap/fortran` (Fortran only: a module and a program, by Make
//! with an archive and by CMake with a shared library).
//!
//! make, gfortran, cmake, pkg-config, mpicc, mpif90 and mpirun are
//! required under REGIO_REQUIRE_TOOLCHAINS=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{copy_tree, instrument_bin, require_tool, run_ok, testdata, workspace_root};
use crate::common::{machine, Run, TestDir};
use crate::readme_rust::block_after;
use crate::wrap::{check_make_regions, nodes, run_dir_in};

/// The README's `sh` block after `heading`.
fn readme_block(heading: &str) -> String {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    block_after(&readme, heading, "sh")
}

/// The commands of a shell block: continuation lines joined, comment-only
/// and empty lines left out (a trailing `# ...` stays: `sh` ignores it).
fn commands(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in block.lines() {
        if pending.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    assert!(
        pending.is_empty(),
        "a block ends with a continuation: {block}"
    );
    out
}

/// The words of a command as written (quotes kept), split at blanks
/// outside double quotes: `-DX="$(instrument flags --libs)"` is one word.
fn words(cmd: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quoted = false;
    for (i, c) in cmd.char_indices() {
        match c {
            '"' => {
                quoted = !quoted;
                start.get_or_insert(i);
            }
            c if c.is_whitespace() && !quoted => {
                if let Some(s) = start.take() {
                    out.push(&cmd[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(&cmd[s..]);
    }
    out
}

/// The block's command as the plain build runs it, or None for a command
/// only the wrapped build has (`instrument report`): `instrument wrap `
/// taken out, and the CMake definitions that name `instrument` (the
/// launchers, `...STANDARD_LIBRARIES="$(instrument flags --libs)"`) left
/// out.
fn plain(cmd: &str) -> Option<String> {
    if cmd.trim_start().starts_with("instrument ") {
        return None;
    }
    let text = cmd.replace("instrument wrap ", "");
    let kept: Vec<&str> = words(&text)
        .into_iter()
        .filter(|t| !(t.starts_with("-D") && t.contains("instrument")))
        .collect();
    Some(kept.join(" "))
}

/// Whether a command runs the program (its output is compared).
fn runs_program(cmd: &str) -> bool {
    let c = cmd.trim_start();
    c.starts_with("./") || c.starts_with("mpirun ")
}

/// PATH with the directory of this build's `instrument` first.
pub(crate) fn path_with_instrument() -> std::ffi::OsString {
    let bin = instrument_bin();
    let dir = bin.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut dirs = vec![dir];
    if let Some(p) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(dirs).expect("PATH")
}

/// Runs one command of a block in `dir` as a user's shell would.
fn sh(dir: &Path, cmd: &str) -> Run {
    run_ok(
        Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(dir)
            .env("PATH", path_with_instrument())
            .env_remove("REGIO_MODE")
            .env_remove("REGIO_DISABLE")
            .env_remove("REGIO_DIR")
            .env_remove("LD_LIBRARY_PATH")
            // mpirun as written (`-np 4` on a smaller machine, as root in CI).
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1"),
    )
}

/// What running a block (wrapped or plain) in a copy of a project gave.
struct BlockRun {
    dir: PathBuf,
    /// stdout of each command that runs the program, in order.
    program_out: Vec<String>,
    /// stdout of each `instrument ...` command.
    instrument_out: Vec<String>,
}

/// Copies `project` to `<tmp>/<name>` and runs the block's commands there,
/// wrapped (as written) or plain.
fn run_block(tmp: &TestDir, name: &str, project: &str, cmds: &[String], wrapped: bool) -> BlockRun {
    let dir = tmp.join(name);
    copy_tree(&testdata().join(project), &dir);
    let mut program_out = Vec::new();
    let mut instrument_out = Vec::new();
    for cmd in cmds {
        let cmd = match wrapped {
            true => cmd.clone(),
            false => match plain(cmd) {
                Some(c) => c,
                None => continue,
            },
        };
        let r = sh(&dir, &cmd);
        if runs_program(&cmd) {
            program_out.push(r.stdout);
        } else if cmd.trim_start().starts_with("instrument ") {
            instrument_out.push(r.stdout);
        }
    }
    BlockRun {
        dir,
        program_out,
        instrument_out,
    }
}

#[test]
fn the_readme_make_block_runs_as_written_and_matches_the_plain_build() {
    if !(require_tool("make", "make") && require_tool("gfortran", "gfortran")) {
        return;
    }
    let cmds = commands(&readme_block("### Make\n"));
    assert!(
        cmds.iter().any(|c| c.contains("instrument wrap gfortran")),
        "the Make block no longer builds Fortran: {cmds:?}"
    );
    let tmp = TestDir::new("readme-make");
    let plain_run = run_block(&tmp, "plain", "wrap/make", &cmds, false);
    let ours = run_block(&tmp, "wrapped", "wrap/make", &cmds, true);
    assert!(
        !ours.program_out.is_empty(),
        "the block runs no program: {cmds:?}"
    );
    assert_eq!(ours.program_out, plain_run.program_out);
    assert!(
        !plain_run.dir.join("regio.idf.json").exists(),
        "the plain build was instrumented"
    );
    // The program left the run directory the block's comment names, and
    // `instrument report` on it names the library's and program's regions.
    let run_dir = run_dir_in(&ours.dir);
    let name = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    assert!(
        name.as_deref()
            .is_some_and(|n| n.starts_with("regio-run-prog-")),
        "{run_dir:?}"
    );
    check_make_regions(&ours.dir, &run_dir);
    let report = ours.instrument_out.join("\n");
    for region in ["main", "vec_sum", "stats_mean", "fill"] {
        assert!(
            report.contains(region),
            "`{region}` not in the report:\n{report}"
        );
    }
}

#[test]
fn the_readme_cmake_block_runs_as_written_and_matches_the_plain_build() {
    if !(require_tool("cmake", "cmake") && require_tool("gfortran", "gfortran")) {
        return;
    }
    let cmds = commands(&readme_block("### CMake\n"));
    assert!(
        cmds.iter()
            .any(|c| c.contains("CMAKE_Fortran_COMPILER_LAUNCHER")),
        "the CMake block no longer builds Fortran: {cmds:?}"
    );
    let tmp = TestDir::new("readme-cmake");
    let plain_run = run_block(&tmp, "plain", "wrap/cmake", &cmds, false);
    let ours = run_block(&tmp, "wrapped", "wrap/cmake", &cmds, true);
    // The block builds into `build/`; the executable and shared library of
    // testdata/wrap/cmake are run from there.
    let app = |dir: &Path| {
        let build = dir.join("build");
        assert!(
            build.join("libshapes.so").is_file(),
            "no libshapes.so in {build:?}"
        );
        run_ok(Command::new(build.join("shapes_app")).current_dir(&build)).stdout
    };
    assert_eq!(app(&ours.dir), app(&plain_run.dir));
    assert!(!plain_run.dir.join("build/regio.idf.json").exists());
    let got = nodes(&run_dir_in(&ours.dir.join("build")));
    for (name, file) in [
        ("main", "src/app.c"),
        ("area", "src/area.c"),
        ("perimeter", "src/perimeter.f90"),
    ] {
        assert!(
            got.iter()
                .any(|(n, _, f, _)| n == name && f.ends_with(file)),
            "no {name} at {file}: {got:#?}"
        );
    }
}

#[test]
fn the_readme_mpi_block_runs_as_written_and_matches_the_plain_build() {
    if !(require_tool("make", "make")
        && require_tool("mpicc", "libopenmpi-dev")
        && require_tool("mpif90", "libopenmpi-dev")
        && require_tool("mpirun", "openmpi-bin"))
    {
        return;
    }
    let block = readme_block("### With MPI compiler wrappers\n");
    let cmds = commands(&block);
    assert!(
        cmds.iter().any(|c| c.contains("instrument wrap mpif90")),
        "the MPI block no longer builds Fortran: {cmds:?}"
    );
    let tmp = TestDir::new("readme-mpi");
    let plain_run = run_block(&tmp, "plain", "wrap/mpimake", &cmds, false);
    let ours = run_block(&tmp, "wrapped", "wrap/mpimake", &cmds, true);
    assert!(
        !ours.program_out.is_empty(),
        "the block runs no program: {cmds:?}"
    );
    assert_eq!(ours.program_out, plain_run.program_out);
    assert!(
        ours.program_out[0].contains("ranks 4"),
        "{:?}",
        ours.program_out
    );
    // "one run directory for the job": the ranks of comm in one.
    let got = nodes(&run_dir_in(&ours.dir));
    for (name, kind) in [
        ("pass_ring", "function"),
        ("MPI_Sendrecv", "mpi_sendrecv"),
        ("MPI_Allreduce", "mpi_allreduce"),
        ("MPI_Barrier", "mpi_barrier"),
    ] {
        assert!(
            got.iter()
                .any(|(n, k, f, _)| n.starts_with(name) && k == kind && f == "comm.c"),
            "no {kind} {name} at comm.c: {got:#?}"
        );
    }

    // The block's Fortran program (built by the same `make` with
    // `FC="instrument wrap mpif90"`), run the way the block runs comm.
    let run_cmd = cmds
        .iter()
        .find(|c| runs_program(c))
        .expect("a run command");
    let fortran_cmd = run_cmd.replace("./comm", "./fcomm");
    assert_ne!(&fortran_cmd, run_cmd, "the block no longer runs ./comm");
    for dir in [&ours.dir, &plain_run.dir] {
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("regio-run-")
            {
                std::fs::remove_dir_all(entry.path()).expect("remove run dir");
            }
        }
    }
    let fortran_out = sh(&ours.dir, &fortran_cmd).stdout;
    assert_eq!(fortran_out, sh(&plain_run.dir, &fortran_cmd).stdout);
    let got = nodes(&run_dir_in(&ours.dir));
    for kind in ["mpi_allreduce", "mpi_bcast"] {
        assert!(
            got.iter().any(|(_, k, f, _)| k == kind && f == "fcomm.f90"),
            "no {kind} at fcomm.f90: {got:#?}"
        );
    }

    // The block's other form, `# or: instrument wrap mpicc ...`, on comm.c.
    let alternative = block
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("# or: "))
        .expect("the `# or:` line of the MPI block")
        .to_string();
    let alt = tmp.join("alternative");
    copy_tree(&testdata().join("wrap/mpimake"), &alt);
    sh(&alt, &alternative);
    assert_eq!(sh(&alt, run_cmd).stdout, ours.program_out[0]);
    assert!(
        alt.join("regio.idf.json").is_file(),
        "not built by the wrapper"
    );
}

/// README's "Fortran builds" block on a Fortran-only project
/// (`testdata/wrap/fortran`: a module and a program; Make puts the module
/// in an archive, CMake in a shared library, and both link with the
/// Fortran compiler): the Make build and the CMake build of the block, as
/// written, each run and compared with the plain build; both profiles name
/// the module's procedures and the program at their lines.
#[test]
fn the_readme_fortran_block_runs_as_written_and_matches_the_plain_build() {
    if !(require_tool("make", "make")
        && require_tool("cmake", "cmake")
        && require_tool("gfortran", "gfortran"))
    {
        return;
    }
    let cmds = commands(&readme_block("### Fortran builds\n"));
    assert!(
        cmds.iter()
            .any(|c| c.contains("FC=\"instrument wrap gfortran\""))
            && cmds
                .iter()
                .any(|c| c.contains("CMAKE_Fortran_COMPILER_LAUNCHER")),
        "the Fortran block no longer builds with Make and CMake: {cmds:?}"
    );
    let tmp = TestDir::new("readme-fortran");
    let plain_run = run_block(&tmp, "plain", "wrap/fortran", &cmds, false);
    let ours = run_block(&tmp, "wrapped", "wrap/fortran", &cmds, true);
    assert!(!plain_run.dir.join("regio.idf.json").exists());
    assert!(!plain_run.dir.join("build/regio.idf.json").exists());
    let heat = |exe: &Path| {
        run_ok(
            Command::new(exe)
                .current_dir(exe.parent().expect("dir"))
                .env_remove("LD_LIBRARY_PATH")
                .env_remove("REGIO_DIR"),
        )
        .stdout
    };
    let src = testdata().join("wrap/fortran");
    for exe in ["heat", "build/heat"] {
        let out = heat(&ours.dir.join(exe));
        assert!(out.starts_with("total"), "{exe}: {out}");
        assert_eq!(out, heat(&plain_run.dir.join(exe)), "{exe}");
        let run_dir = run_dir_in(ours.dir.join(exe).parent().expect("dir"));
        let got = nodes(&run_dir);
        for (name, kind, file, text) in [
            ("heat", "program", "heat.f90", "program heat"),
            ("relax", "function", "heat_mod.f90", "subroutine relax"),
            ("total", "function", "heat_mod.f90", "function total"),
        ] {
            let line = crate::wrap::line_of(&src, file, text);
            assert!(
                got.iter()
                    .any(|(n, k, f, l)| n == name && k == kind && f.ends_with(file) && *l == line),
                "{exe}: no {kind} {name} at {file}:{line}: {got:#?}"
            );
        }
    }
}

/// README "Install": the `sh` block run as written, as one shell script
/// from the checkout (its `export PATH=...` holds for the commands after
/// it), with HOME a temporary directory, REGIO_BUILT this build (so
/// `make install` installs it instead of a new release build) and
/// PKG_CONFIG_PATH as the block's comment says; then the `cmake` block's
/// two lines in the CMakeLists.txt of a small C program (after its
/// `add_executable(app ...)`), configured with CMAKE_PREFIX_PATH as its
/// comment says and the installed wrapper as compiler launcher. The
/// program runs without LD_LIBRARY_PATH and its profile names its function.
#[test]
fn the_readme_install_blocks_run_as_written() {
    if !(require_tool("make", "make")
        && require_tool("pkg-config", "pkg-config")
        && require_tool("cmake", "cmake"))
    {
        return;
    }
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    let sh_block = block_after(&readme, "## Install\n", "sh");
    let cmake_block = block_after(&readme, "## Install\n", "cmake");
    assert!(
        sh_block.contains("make install PREFIX=$HOME/opt/regio")
            && sh_block.contains("PKG_CONFIG_PATH=PREFIX/lib/pkgconfig")
            && cmake_block.contains("CMAKE_PREFIX_PATH=PREFIX"),
        "the Install blocks changed; adapt this test:\n{sh_block}\n{cmake_block}"
    );
    let tmp = TestDir::new("readme-install");
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).expect("mkdir home");
    let prefix = home.join("opt/regio");
    let built = instrument_bin()
        .parent()
        .map(Path::to_path_buf)
        .expect("target dir");
    let script = format!(
        "set -e\n{}\necho \"instrument is $(command -v instrument)\"\n",
        commands(&sh_block).join("\n")
    );
    let r = run_ok(
        Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(workspace_root())
            .env("HOME", &home)
            .env("REGIO_BUILT", &built)
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
            .env_remove("REGIO_HOME")
            .env_remove("REGIO_LIB_DIR")
            .env_remove("REGIO_INCLUDE_DIR"),
    );
    let include = prefix.join("include").canonicalize().expect("include");
    assert!(
        r.stdout.contains("-lregio") && r.stdout.contains("include"),
        "pkg-config did not answer for the install: {}",
        r.describe()
    );
    assert!(
        r.stdout.contains(&format!(
            "instrument is {}",
            prefix.join("bin/instrument").display()
        )),
        "the block's PATH does not find the installed instrument: {}",
        r.describe()
    );
    assert!(include.join("regio.h").is_file());

    let project = tmp.join("app");
    std::fs::create_dir_all(&project).expect("mkdir app");
    std::fs::copy(testdata().join("install/hello.c"), project.join("hello.c")).expect("hello.c");
    std::fs::write(
        project.join("CMakeLists.txt"),
        format!(
            "cmake_minimum_required(VERSION 3.21)\nproject(app C)\nadd_executable(app hello.c)\n{cmake_block}"
        ),
    )
    .expect("CMakeLists.txt");
    let build = tmp.join("app-build");
    run_ok(
        Command::new("cmake")
            .arg("-S")
            .arg(&project)
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
            .arg(format!(
                "-DCMAKE_C_COMPILER_LAUNCHER={};wrap",
                prefix.join("bin/instrument").display()
            )),
    );
    run_ok(Command::new("cmake").arg("--build").arg(&build));
    let out = run_ok(
        Command::new(build.join("app"))
            .current_dir(&build)
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("REGIO_DIR"),
    );
    assert_eq!(out.stdout, "49\n");
    let got = nodes(&run_dir_in(&build));
    assert!(
        got.iter()
            .any(|(n, k, f, _)| n == "square" && k == "function" && f.ends_with("hello.c")),
        "{got:#?}"
    );
}

/// The Perfetto file's begins per slice name, after checking that every
/// track's begins and ends nest and none is left open.
fn perfetto_begins(json: &Path) -> std::collections::BTreeMap<String, u64> {
    let text = std::fs::read_to_string(json).unwrap_or_else(|e| panic!("{}: {e}", json.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut open: std::collections::BTreeMap<(String, String), Vec<String>> = Default::default();
    let mut begins = std::collections::BTreeMap::new();
    for e in v["traceEvents"].as_array().into_iter().flatten() {
        let track = (e["pid"].to_string(), e["tid"].to_string());
        let name = e["name"].as_str().unwrap_or("").to_string();
        match e["ph"].as_str() {
            Some("B") => {
                *begins.entry(name.clone()).or_default() += 1;
                open.entry(track).or_default().push(name);
            }
            Some("E") => assert!(
                open.entry(track).or_default().pop().is_some(),
                "an end without a begin in {}",
                json.display()
            ),
            _ => {}
        }
    }
    assert!(
        open.values().all(Vec::is_empty),
        "slices left open: {open:?}"
    );
    begins
}

#[test]
fn the_readme_trace_block_runs_as_written() {
    if !(require_tool("mpicc", "libopenmpi-dev")
        && require_tool("mpirun", "openmpi-bin")
        && require_tool("otf2-print", "otf2-tools"))
    {
        return;
    }
    let cmds = commands(&readme_block(
        "## Event traces: Vampir, Scalasca and Perfetto\n",
    ));
    // `score` decides by mean call time (accumulate: a few hundred ns
    // against its 1 us threshold): no other test's programs on the cores
    // while the four ranks run.
    let _machine = machine::hold();
    let tmp = TestDir::new("readme-trace");
    let dir = tmp.join("app");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::copy(
        testdata().join("trace/readme_app.c"),
        dir.join("readme_app.c"),
    )
    .expect("copy readme_app.c");
    // The program the block calls `./app`, built the way the README's MPI
    // block builds, and its plain twin for the output.
    sh(&dir, "instrument wrap mpicc -O2 readme_app.c -o app");
    sh(&dir, "mpicc -O2 readme_app.c -o plain");
    let plain_out = sh(&dir, "mpirun -np 4 ./plain").stdout;
    assert!(plain_out.contains("on 4 ranks"), "{plain_out}");

    let mut outputs = Vec::new();
    let mut otf2_printed = None;
    let mut scored = String::new();
    for cmd in &cmds {
        // Vampir is not a package here: the block names its alternative.
        let cmd = match cmd.trim_start().starts_with("vampir ") {
            true => cmd
                .split_once("# or: ")
                .map(|(_, alt)| alt.trim().to_string())
                .unwrap_or_else(|| panic!("no alternative to vampir in `{cmd}`")),
            false => cmd.clone(),
        };
        let r = sh(&dir, &cmd);
        if cmd.contains("./app") {
            outputs.push(r.stdout);
        } else if cmd.starts_with("otf2-print ") {
            otf2_printed = Some(r.stdout);
        } else if cmd.starts_with("instrument score ") {
            scored.push_str(&r.stdout);
        }
    }
    // Two measured runs, each printing what the plain build prints.
    assert_eq!(outputs, [plain_out.clone(), plain_out]);

    // `score --filter-out` left out the hot, cheap function and nothing
    // else; the filtered run traced every other region, not that one.
    let filter = std::fs::read_to_string(dir.join("hot.filter")).expect("hot.filter");
    let excluded: Vec<&str> = filter
        .lines()
        .filter_map(|l| l.strip_prefix("exclude region "))
        .collect();
    assert_eq!(excluded, ["accumulate"], "{filter}\n{scored}");
    for run in ["app-all", "app-trace"] {
        let traces = std::fs::read_dir(dir.join(run))
            .expect("run directory")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".rtrace"))
            .count();
        assert_eq!(traces, 4, "{run}: one trace per rank");
    }
    sh(
        &dir,
        "instrument export --format perfetto --out all.json app-all",
    );
    let all = perfetto_begins(&dir.join("all.json"));
    let filtered = perfetto_begins(&dir.join("app.json"));
    assert!(all.get("accumulate").is_some_and(|&n| n > 0), "{all:?}");
    assert_eq!(filtered.get("accumulate"), None, "{filtered:?}");
    for region in ["halo", "MPI_Waitall", "MPI_Allreduce"] {
        assert!(
            filtered.get(region).is_some_and(|&n| n > 0),
            "no {region} in the filtered trace: {filtered:?}"
        );
        assert_eq!(all.get(region), filtered.get(region), "{region}");
    }

    // The OTF2 archive Vampir would open: every enter left, every message
    // sent is received.
    let printed = otf2_printed.expect("the block prints the OTF2 archive");
    let count = |prefix: &str| printed.lines().filter(|l| l.starts_with(prefix)).count();
    assert!(count("ENTER ") > 0, "{printed}");
    assert_eq!(count("ENTER "), count("LEAVE "));
    assert_eq!(count("ENTER "), filtered.values().sum::<u64>() as usize);
    assert!(count("MPI_ISEND ") > 0, "{printed}");
    assert_eq!(count("MPI_ISEND "), count("MPI_IRECV "));
}
