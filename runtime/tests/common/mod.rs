//! Helpers for tests that run a scenario in a child process (this same test
//! binary, re-entered through an ignored test) and read its run directory.
//!
//! Every scenario gets a fresh process, so the runtime's process-global
//! state (thread numbers, the exit hook, signal handlers) starts clean, and
//! the test process itself never starts the runtime.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use regio_idf::rundir::{NodeRecord, Profile, ThreadProfile};

/// Environment variable naming the scenario a child runs.
pub const SCENARIO: &str = "REGIO_TEST_SCENARIO";

pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub dir: PathBuf,
    _tmp: tempfile::TempDir,
}

impl Run {
    pub fn signal(&self) -> Option<i32> {
        self.status.signal()
    }

    /// The only profile of the run, parsed with the reader's own code.
    pub fn profile(&self) -> Profile {
        let (path, text) = self.profile_text();
        self.parse(&path, &text)
    }

    /// Every profile of the run (several processes), by file name.
    pub fn profiles(&self) -> Vec<Profile> {
        profile_files(&self.dir)
            .iter()
            .map(|path| self.parse(path, &std::fs::read_to_string(path).unwrap()))
            .collect()
    }

    fn parse(&self, path: &Path, text: &str) -> Profile {
        Profile::from_json(&path.display().to_string(), text).unwrap_or_else(|e| {
            panic!("{e}\n--- text ---\n{text}\n--- stderr ---\n{}", self.stderr)
        })
    }

    pub fn profile_text(&self) -> (PathBuf, String) {
        let files = profile_files(&self.dir);
        assert_eq!(
            files.len(),
            1,
            "expected one profile in {}: {files:?}\nstatus {:?}\nstderr:\n{}",
            self.dir.display(),
            self.status,
            self.stderr
        );
        let text = std::fs::read_to_string(&files[0]).unwrap();
        (files[0].clone(), text)
    }
}

/// Files in `dir` (sorted), the leftover temporaries included.
pub fn list(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

fn profile_files(dir: &Path) -> Vec<PathBuf> {
    list(dir)
        .into_iter()
        .filter(|n| n.starts_with("profile-") && n.ends_with(".json"))
        .map(|n| dir.join(n))
        .collect()
}

/// In a child, runs the scenario `SCENARIO` names (see `spawn`) and exits
/// 0 when it returns; in a normal test run, where it is unset, does nothing.
pub fn run_scenario(scenarios: &[(&str, fn())]) {
    let Ok(s) = std::env::var(SCENARIO) else {
        return;
    };
    match scenarios.iter().find(|(name, _)| *name == s) {
        Some((_, scenario)) => scenario(),
        None => panic!("unknown scenario {s}"),
    }
    std::process::exit(0);
}

/// Spawns this test binary running only `entry` (an ignored test) with
/// `scenario` selected and REGIO_DIR pointing into a fresh temporary dir.
pub fn spawn(
    entry: &str,
    scenario: &str,
    env: &[(&str, &str)],
) -> (Child, PathBuf, tempfile::TempDir) {
    spawn_under(&[], entry, scenario, env)
}

/// [`spawn`] with the test binary run by `wrapper` (a tool and its
/// arguments before the binary's path, as `strace -f -o FILE`; none: the
/// binary itself).
pub fn spawn_under(
    wrapper: &[&std::ffi::OsStr],
    entry: &str,
    scenario: &str,
    env: &[(&str, &str)],
) -> (Child, PathBuf, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let exe = std::env::current_exe().unwrap();
    let mut cmd = match wrapper.split_first() {
        Some((tool, args)) => {
            let mut c = Command::new(tool);
            c.args(args).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.args([
        "--exact",
        entry,
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(SCENARIO, scenario)
    .env("REGIO_DIR", &dir)
    .env_remove("REGIO_DISABLE")
    .env_remove("REGIO_MODE")
    // Scenarios check exact counts; the throttle's own scenarios set it.
    .env("REGIO_THROTTLE", "off")
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    // SAFETY: setrlimit and signal are async-signal-safe; no core files
    // from the scenarios that die by a signal.
    unsafe {
        cmd.pre_exec(|| {
            let zero = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &zero);
            // A shell starts background jobs with SIGINT ignored and the
            // child would inherit it; the scenarios test the default.
            for sig in [libc::SIGINT, libc::SIGTERM] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    (child, dir, tmp)
}

pub fn run(entry: &str, scenario: &str, env: &[(&str, &str)]) -> Run {
    let (child, dir, tmp) = spawn(entry, scenario, env);
    finish(child, dir, tmp)
}

pub fn finish(child: Child, dir: PathBuf, tmp: tempfile::TempDir) -> Run {
    let out = child.wait_with_output().unwrap();
    Run {
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        dir,
        _tmp: tmp,
    }
}

/// Reads the child's stdout until a line equal to `marker`.
pub fn wait_for_line(child: &mut Child, marker: &str) {
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    loop {
        match lines.next() {
            // libtest may have printed "test name ... " on the same line.
            Some(Ok(l)) if l.contains(marker) => break,
            Some(Ok(_)) => continue,
            other => panic!("child ended before printing {marker}: {other:?}"),
        }
    }
    // Keep draining so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
}

/// The node of `thread` reached by following `path` (region ids) from
/// the roots.
pub fn node<'a>(t: &'a ThreadProfile, path: &[u32]) -> &'a NodeRecord {
    let mut parent: Option<u32> = None;
    let mut found = None;
    for &r in path {
        let n = t
            .nodes
            .iter()
            .find(|n| n.parent == parent && n.region == r)
            .unwrap_or_else(|| panic!("no node for path {path:?} at region {r}: {:#?}", t.nodes));
        parent = Some(n.id);
        found = Some(n);
    }
    found.unwrap()
}

/// Structural invariants every thread of every profile must keep.
pub fn check_invariants(p: &Profile) {
    for (i, t) in p.threads.iter().enumerate() {
        if i > 0 {
            assert!(
                t.thread > p.threads[i - 1].thread,
                "threads in number order"
            );
        }
        for (k, n) in t.nodes.iter().enumerate() {
            assert_eq!(n.id as usize, k, "ids are indices");
            if let Some(par) = n.parent {
                assert!(par < n.id, "parents precede children");
            }
            assert!(n.recursive_calls <= n.calls);
            assert!(n.min_ns <= n.max_ns);
            assert!(n.max_ns <= n.inclusive_ns);
            // Exact: the tick rate comes from the pair that ends the
            // duration (clock::calibrate); one ns of rounding.
            let slack = 1;
            assert!(
                n.inclusive_ns <= p.duration_ns + slack,
                "{n:?} vs {}",
                p.duration_ns
            );
        }
        // Exclusive times add up to the time of the root-level regions:
        // exactly in ticks, up to one ns of rounding per node here.
        let excl: u64 = t.nodes.iter().map(|n| n.exclusive_ns).sum();
        let roots: u64 = t
            .nodes
            .iter()
            .filter(|n| n.parent.is_none())
            .map(|n| n.inclusive_ns)
            .sum();
        let slack = t.nodes.len() as u64 + 1;
        assert!(
            excl.abs_diff(roots) <= slack,
            "thread {}: exclusive sum {excl} vs root inclusive {roots}",
            t.thread
        );
    }
    assert_eq!(p.format, "regio-profile");
    assert_eq!(p.mode, "profile");
    assert!(p.regions.is_empty());
    assert!(p.clock.ticks_per_second > 0.0);
    assert!(["tsc", "clock_gettime"].contains(&p.clock.source.as_str()));
}

/// Names of the run's trace files (`trace-*.rtrace`), sorted.
pub fn trace_files(dir: &Path) -> Vec<String> {
    list(dir)
        .into_iter()
        .filter(|n| n.starts_with("trace-") && n.ends_with(".rtrace"))
        .collect()
}

/// The run's only trace file (one measured thread), decoded; the
/// end-of-run writer leaves it whole, so it must not read as cut.
pub fn only_trace(r: &Run) -> regio_trace_format::TraceFile {
    let files = trace_files(&r.dir);
    assert_eq!(
        files.len(),
        1,
        "one thread, one trace file: {files:?}\n{}",
        r.stderr
    );
    let data = std::fs::read(r.dir.join(&files[0])).unwrap();
    let file = regio_trace_format::decode(&data).unwrap();
    assert!(file.truncated.is_none(), "{:?}", file.truncated);
    file
}

/// What a trace file holds, counted: region records per region, the
/// regions still open at its end (innermost last), and the other events
/// the tests look at.
#[derive(Default, Debug)]
pub struct TraceCounts {
    pub enters: std::collections::BTreeMap<u32, u64>,
    pub exits: std::collections::BTreeMap<u32, u64>,
    pub open: Vec<u32>,
    pub strings: u64,
    pub user: u64,
    pub clock_rate: u64,
    pub flushes: u64,
}

/// Counts `file`'s records; panics on an exit that does not close the
/// innermost open enter of its region, or on a record earlier than the
/// one before it (one thread's clock never goes back).
pub fn count_trace(file: &regio_trace_format::TraceFile) -> TraceCounts {
    use regio_trace_format::Event;
    let mut c = TraceCounts::default();
    let mut last = 0u64;
    for (i, rec) in file.records.iter().enumerate() {
        assert!(rec.ticks >= last, "record {i} goes back in time");
        last = rec.ticks;
        match rec.event {
            Event::Enter { region } => {
                *c.enters.entry(region).or_default() += 1;
                c.open.push(region);
            }
            Event::Exit { region } => {
                *c.exits.entry(region).or_default() += 1;
                assert_eq!(
                    c.open.pop(),
                    Some(region),
                    "record {i}: exit without its enter"
                );
            }
            Event::String { .. } => c.strings += 1,
            Event::User { .. } => c.user += 1,
            Event::ClockRate { .. } => c.clock_rate += 1,
            Event::BufferFlush { .. } => c.flushes += 1,
            _ => {}
        }
    }
    c
}

/// A thread's calls per region, summed over its nodes.
pub fn calls_by_region(t: &ThreadProfile) -> std::collections::BTreeMap<u32, u64> {
    let mut m = std::collections::BTreeMap::new();
    for n in &t.nodes {
        *m.entry(n.region).or_default() += n.calls;
    }
    m
}

/// The regions of a thread's open frames, outermost first: the chain of
/// nodes with `open` > 0 from a root (recursion folds onto one node, which
/// the tests using this do not make).
pub fn open_frames(t: &ThreadProfile) -> Vec<u32> {
    let mut out = Vec::new();
    let mut parent = None;
    while let Some(n) = t.nodes.iter().find(|n| n.parent == parent && n.open > 0) {
        out.push(n.region);
        parent = Some(n.id);
    }
    out
}
