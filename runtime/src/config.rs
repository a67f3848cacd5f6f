//! The configuration: everything the runtime reads from the environment
//! (`REGIO_*`, the launcher's rank variables) and learns about the process
//! (argv, host, run directory), read once at start-up (`lifecycle`). No
//! other module reads the environment.

use std::sync::atomic::{AtomicU64, Ordering::*};
use std::sync::OnceLock;

use crate::clock;
use crate::out::warn;
use crate::sys;
use crate::throttle;
use crate::trace;

static CONFIG: OnceLock<Config> = OnceLock::new();

/// What start-up learnt about the process; immutable afterwards, so the
/// profile writer can read it from a signal handler.
pub struct Config {
    /// Absolute run directory, without NUL.
    pub run_dir: Vec<u8>,
    /// argv as the kernel has it.
    pub command: Vec<Vec<u8>>,
    /// The host name (`REGIO_TEST_HOST` in tests).
    pub host: Vec<u8>,
    pub rank: u32,
    pub size: u32,
    pub start_unix_ns: u64,
    /// `REGIO_MODE` in force: `profile` or `trace`.
    pub mode: &'static str,
    /// `REGIO_TRACE_BUFFER`: bytes of each thread's trace buffer.
    pub trace_buffer: usize,
    /// `REGIO_EVENTS`: the classes recorded (None: all).
    pub events: Option<String>,
    /// `REGIO_FILTER`: path and text of the run-time filter file.
    pub filter: Option<(String, String)>,
    /// `REGIO_SNAPSHOT=SECONDS`: the profile is also written this often
    /// while the program runs (milliseconds; 0: never).
    pub snapshot_ms: u64,
    /// `REGIO_THROTTLE`: when hot, brief regions stop being recorded.
    pub throttle: throttle::Setting,
    /// `REGIO_TEST_WRITE_PAUSE_MS` (tests only): the profile writer sleeps
    /// this long after creating its temporary file.
    pub test_write_pause_ms: u64,
    /// `REGIO_TEST_CLOCK_SKEW=rank:offset_ns:drift_ppm` (tests only): the
    /// clock the MPI clock synchronisation reads is skewed on that rank.
    pub test_clock_skew: Option<ClockSkew>,
    /// `REGIO_TEST_SIGNAL_IN_ENCODING=SIGNUM` (tests only, trace mode):
    /// each thread sends itself this signal in the middle of its trace
    /// buffer's first encoding (0: never).
    pub test_signal_in_encoding: i32,
}

/// A skew added on purpose to one rank's clock (`mpi::sync`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockSkew {
    pub rank: u32,
    pub offset_ns: i64,
    pub drift_ppm: f64,
}

/// Parses `rank:offset_ns:drift_ppm`.
pub fn parse_clock_skew(v: &[u8]) -> Option<ClockSkew> {
    let s = std::str::from_utf8(v).ok()?;
    let mut parts = s.trim().split(':');
    let skew = ClockSkew {
        rank: parts.next()?.parse().ok()?,
        offset_ns: parts.next()?.parse().ok()?,
        drift_ppm: parts.next()?.parse().ok()?,
    };
    parts.next().is_none().then_some(skew)
}

/// The configuration, once start-up has run (and measurement is not dead).
pub fn config() -> Option<&'static Config> {
    CONFIG.get()
}

/// Rank and size as the instrumented `MPI_Init` reported them (rank in the
/// high half, size in the low half; 0 = not reported). They win over the
/// launcher's environment, which may be missing or name another launcher.
static CONFIRMED: AtomicU64 = AtomicU64::new(0);

/// Records the rank and world size MPI itself reported.
pub fn confirm_rank(rank: u32, size: u32) {
    if size > 0 && rank < size {
        CONFIRMED.store((rank as u64) << 32 | size as u64, Release);
        trace::set_rank(rank, size);
    }
}

/// This process's (rank, size): confirmed by MPI if it was, else what the
/// launcher's environment said.
pub fn rank_size(cfg: &Config) -> (u32, u32) {
    match CONFIRMED.load(Acquire) {
        0 => (cfg.rank, cfg.size),
        v => ((v >> 32) as u32, v as u32),
    }
}

fn env(name: &str) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    std::env::var_os(name).map(|v| v.into_vec())
}

/// `REGIO_DISABLE` set to anything but empty or `0` turns measurement off.
fn disabled_by_env(v: Option<&[u8]>) -> bool {
    matches!(v, Some(v) if !v.is_empty() && v != b"0")
}

/// Whether `REGIO_DISABLE` turns measurement off for this process.
pub fn disabled() -> bool {
    disabled_by_env(env("REGIO_DISABLE").as_deref())
}

/// `REGIO_COUNTERS`, the perf events to count (parsed by `counters`).
pub fn counters_spec() -> Option<String> {
    std::env::var_os("REGIO_COUNTERS").map(|v| v.to_string_lossy().into_owned())
}

/// Reads the rest of the configuration and keeps it for the life of the
/// process; None if it had been read already.
pub fn load() -> Option<&'static Config> {
    let mode = match env("REGIO_MODE").as_deref() {
        None | Some(b"") | Some(b"profile") => "profile",
        Some(b"trace") => "trace",
        Some(other) => {
            warn(
                &[b"unknown REGIO_MODE `", other, b"`; recording a profile"],
                None,
            );
            "profile"
        }
    };
    let command = read_cmdline();
    let pid = sys::getpid();
    let cwd = std::env::current_dir()
        .map(|p| {
            use std::os::unix::ffi::OsStringExt;
            p.into_os_string().into_vec()
        })
        .unwrap_or_else(|_| b".".to_vec());
    let program = command.first().map(|a| program_name(a)).unwrap_or_default();
    let (rank, size) = rank_and_size(&|n| env(n));
    // Every rank of an MPI job must land in one directory: name it after
    // the job, not the process.
    let tag = job_tag(&|n| env(n)).unwrap_or_else(|| pid.to_string().into_bytes());
    let run_dir = run_dir(env("REGIO_DIR").as_deref(), &cwd, &program, &tag);
    let config = Config {
        run_dir,
        command,
        // `REGIO_TEST_HOST` (tests only): the host a test of a multi-host
        // run fakes for this process.
        host: env("REGIO_TEST_HOST")
            .filter(|h| !h.is_empty())
            .unwrap_or_else(hostname),
        rank,
        size,
        start_unix_ns: clock::realtime_ns(),
        mode,
        trace_buffer: trace_buffer(env("REGIO_TRACE_BUFFER").as_deref()),
        events: std::env::var("REGIO_EVENTS").ok(),
        filter: filter_file(),
        snapshot_ms: snapshot_ms(env("REGIO_SNAPSHOT").as_deref()),
        throttle: throttle_setting(env("REGIO_THROTTLE").as_deref()),
        test_write_pause_ms: env("REGIO_TEST_WRITE_PAUSE_MS")
            .and_then(|v| std::str::from_utf8(&v).ok()?.trim().parse().ok())
            .unwrap_or(0),
        test_clock_skew: env("REGIO_TEST_CLOCK_SKEW").and_then(|v| {
            let skew = parse_clock_skew(&v);
            if skew.is_none() {
                warn(
                    &[b"REGIO_TEST_CLOCK_SKEW is not rank:offset_ns:drift_ppm; ignored"],
                    None,
                );
            }
            skew
        }),
        test_signal_in_encoding: env("REGIO_TEST_SIGNAL_IN_ENCODING")
            .and_then(|v| std::str::from_utf8(&v).ok()?.trim().parse().ok())
            .filter(|&s| (1..=64).contains(&s))
            .unwrap_or(0),
    };
    CONFIG.set(config).ok()?;
    CONFIG.get()
}

/// `REGIO_FILTER=FILE`: the file's path and text (a warning and no
/// filter when it cannot be read).
fn filter_file() -> Option<(String, String)> {
    let path = std::env::var("REGIO_FILTER")
        .ok()
        .filter(|p| !p.is_empty())?;
    match std::fs::read_to_string(&path) {
        Ok(text) => Some((path, text)),
        Err(e) => {
            warn(
                &[
                    b"REGIO_FILTER: cannot read ",
                    path.as_bytes(),
                    b" (ignored)",
                ],
                e.raw_os_error(),
            );
            None
        }
    }
}

/// `REGIO_SNAPSHOT=SECONDS` (a decimal number, at least 0.01) in
/// milliseconds; 0 (no snapshots) when unset, empty or `0`.
fn snapshot_ms(v: Option<&[u8]>) -> u64 {
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        return 0;
    };
    match std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
    {
        Some(0.0) => 0,
        Some(s) if s.is_finite() && s > 0.0 => ((s * 1000.0).round() as u64).max(10),
        _ => {
            warn(
                &[
                    b"REGIO_SNAPSHOT `",
                    v,
                    b"` is not a number of seconds; no snapshots",
                ],
                None,
            );
            0
        }
    }
}

/// `REGIO_THROTTLE` (`CALLS,NS` or `off`); a value that is neither is a
/// warning and the default.
fn throttle_setting(v: Option<&[u8]>) -> throttle::Setting {
    let Some(v) = v else {
        return throttle::Setting::DEFAULT;
    };
    let text = String::from_utf8_lossy(v);
    match throttle::parse(&text) {
        Ok(s) => s,
        Err(e) => {
            let default = format!(
                "; using the default {},{}",
                throttle::DEFAULT_CALLS,
                throttle::DEFAULT_NS
            );
            warn(&[e.as_bytes(), default.as_bytes()], None);
            throttle::Setting::DEFAULT
        }
    }
}

/// `REGIO_TRACE_BUFFER` (bytes, `K`/`M`/`G` suffixes), default 8 MiB.
fn trace_buffer(v: Option<&[u8]>) -> usize {
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        return trace::DEFAULT_BUFFER_BYTES;
    };
    match std::str::from_utf8(v)
        .ok()
        .and_then(trace::parse_buffer_bytes)
    {
        Some(n) if n >= trace::MIN_BUFFER_BYTES => n,
        Some(_) => {
            warn(&[b"REGIO_TRACE_BUFFER below 64K; using 64K"], None);
            trace::MIN_BUFFER_BYTES
        }
        None => {
            warn(
                &[b"REGIO_TRACE_BUFFER `", v, b"` is not a size; using 8M"],
                None,
            );
            trace::DEFAULT_BUFFER_BYTES
        }
    }
}

fn read_cmdline() -> Vec<Vec<u8>> {
    let raw = std::fs::read("/proc/self/cmdline").unwrap_or_default();
    let raw = raw.strip_suffix(&[0]).unwrap_or(&raw);
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|&b| b == 0).map(<[u8]>::to_vec).collect()
}

/// Basename of argv[0], reduced to characters safe in a directory name.
fn program_name(argv0: &[u8]) -> Vec<u8> {
    let base = argv0.rsplit(|&b| b == b'/').next().unwrap_or(argv0);
    let name: Vec<u8> = base
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-' {
                b
            } else {
                b'_'
            }
        })
        .collect();
    if name.is_empty() {
        b"program".to_vec()
    } else {
        name
    }
}

/// What names the MPI job this process belongs to, if a launcher started
/// it: the PMIx namespace (Open MPI 4/5, any PMIx launcher), Open MPI's job
/// id, Slurm's job and step, or (MPICH's Hydra, which exports no job id)
/// the parent's pid, the launcher proxy every rank of a node shares.
fn job_tag(env: &dyn Fn(&str) -> Option<Vec<u8>>) -> Option<Vec<u8>> {
    let clean = |v: Vec<u8>| -> Vec<u8> {
        v.into_iter()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b == b'.' || b == b'-' {
                    b
                } else {
                    b'_'
                }
            })
            .collect()
    };
    let set = |n: &str| env(n).filter(|v| !v.is_empty());
    if let Some(v) = set("PMIX_NAMESPACE").or_else(|| set("OMPI_MCA_ess_base_jobid")) {
        return Some(clean(v));
    }
    if let Some(job) = set("SLURM_JOB_ID").filter(|_| set("SLURM_PROCID").is_some()) {
        let mut v = clean(job);
        if let Some(step) = set("SLURM_STEP_ID") {
            v.push(b'.');
            v.extend(clean(step));
        }
        return Some(v);
    }
    if set("PMI_RANK").is_some() {
        // SAFETY: getppid has no preconditions.
        let ppid = unsafe { libc::getppid() };
        return Some(format!("ppid{ppid}").into_bytes());
    }
    None
}

/// `$REGIO_DIR`, else `regio-run-<program>-<tag>` (tag: the MPI job, else
/// the pid), made absolute against the start-up working directory so a
/// later chdir does not move it.
fn run_dir(regio_dir: Option<&[u8]>, cwd: &[u8], program: &[u8], tag: &[u8]) -> Vec<u8> {
    let rel: Vec<u8> = match regio_dir {
        Some(d) if !d.is_empty() => d.to_vec(),
        _ => {
            let mut v = b"regio-run-".to_vec();
            v.extend_from_slice(program);
            v.push(b'-');
            v.extend_from_slice(tag);
            v
        }
    };
    let mut dir = if rel.starts_with(b"/") {
        rel
    } else {
        let mut v = cwd.to_vec();
        if !v.ends_with(b"/") {
            v.push(b'/');
        }
        v.extend_from_slice(&rel);
        v
    };
    while dir.len() > 1 && dir.ends_with(b"/") {
        dir.pop();
    }
    dir
}

/// Rank and size from the variables Open MPI, MPICH/PMI and Slurm set.
fn rank_and_size(env: &dyn Fn(&str) -> Option<Vec<u8>>) -> (u32, u32) {
    let first = |names: &[&str]| {
        names.iter().find_map(|n| {
            env(n).and_then(|v| std::str::from_utf8(&v).ok()?.trim().parse::<u32>().ok())
        })
    };
    let rank = first(&["OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"]).unwrap_or(0);
    let size = first(&["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"])
        .filter(|&s| s > 0)
        .unwrap_or(1);
    (rank, size)
}

fn hostname() -> Vec<u8> {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return b"unknown".to_vec();
    }
    let n = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    buf[..n].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_dir_defaults_to_program_and_pid_in_cwd() {
        assert_eq!(
            run_dir(None, b"/home/u", b"a.out", b"42"),
            b"/home/u/regio-run-a.out-42".to_vec()
        );
        assert_eq!(
            run_dir(Some(b""), b"/", b"p", b"1"),
            b"/regio-run-p-1".to_vec()
        );
        assert_eq!(
            run_dir(Some(b"out/"), b"/w", b"p", b"1"),
            b"/w/out".to_vec()
        );
        assert_eq!(
            run_dir(Some(b"/abs/d"), b"/w", b"p", b"1"),
            b"/abs/d".to_vec()
        );
    }

    #[test]
    fn mpi_jobs_share_a_directory_named_after_the_job() {
        let none = |_: &str| None;
        assert_eq!(job_tag(&none), None);
        let ompi = |n: &str| match n {
            "PMIX_NAMESPACE" => Some(b"1041170433".to_vec()),
            "OMPI_MCA_ess_base_jobid" => Some(b"7".to_vec()),
            _ => None,
        };
        assert_eq!(job_tag(&ompi), Some(b"1041170433".to_vec()));
        let slurm = |n: &str| match n {
            "SLURM_JOB_ID" => Some(b"88".to_vec()),
            "SLURM_STEP_ID" => Some(b"2".to_vec()),
            "SLURM_PROCID" => Some(b"0".to_vec()),
            _ => None,
        };
        assert_eq!(job_tag(&slurm), Some(b"88.2".to_vec()));
        // A batch script's own processes (no task id) are not a job step.
        let batch = |n: &str| (n == "SLURM_JOB_ID").then(|| b"88".to_vec());
        assert_eq!(job_tag(&batch), None);
        let hydra = |n: &str| (n == "PMI_RANK").then(|| b"1".to_vec());
        assert!(job_tag(&hydra).is_some_and(|t| t.starts_with(b"ppid")));
    }

    #[test]
    fn program_names_are_sanitised_basenames() {
        assert_eq!(program_name(b"./bin/my prog"), b"my_prog".to_vec());
        assert_eq!(program_name(b"/usr/bin/"), b"program".to_vec());
        assert_eq!(program_name(b"solver-2.x"), b"solver-2.x".to_vec());
    }

    #[test]
    fn rank_and_size_come_from_the_first_launcher_variable_set() {
        let none = |_: &str| None;
        assert_eq!(rank_and_size(&none), (0, 1));
        let slurm = |n: &str| match n {
            "SLURM_PROCID" => Some(b"3".to_vec()),
            "SLURM_NTASKS" => Some(b"8".to_vec()),
            "PMI_RANK" => Some(b"junk".to_vec()),
            _ => None,
        };
        assert_eq!(rank_and_size(&slurm), (3, 8));
        let ompi = |n: &str| match n {
            "OMPI_COMM_WORLD_RANK" => Some(b"1".to_vec()),
            "OMPI_COMM_WORLD_SIZE" => Some(b"0".to_vec()),
            _ => None,
        };
        assert_eq!(rank_and_size(&ompi), (1, 1));
    }

    #[test]
    fn clock_skew_is_rank_offset_and_drift() {
        assert_eq!(
            parse_clock_skew(b"1:-5000:20.5"),
            Some(ClockSkew {
                rank: 1,
                offset_ns: -5000,
                drift_ppm: 20.5
            })
        );
        assert_eq!(parse_clock_skew(b"1:5"), None);
        assert_eq!(parse_clock_skew(b"1:5:1:2"), None);
        assert_eq!(parse_clock_skew(b"x:5:1"), None);
    }

    #[test]
    fn regio_throttle_values() {
        use throttle::Setting;
        assert_eq!(throttle_setting(None), Setting::DEFAULT);
        assert_eq!(throttle_setting(Some(b"off")), Setting::Off);
        assert_eq!(
            throttle_setting(Some(b"10,20")),
            Setting::On { calls: 10, ns: 20 }
        );
        // A bad value warns (on stderr) and keeps the default.
        assert_eq!(throttle_setting(Some(b"lots")), Setting::DEFAULT);
    }

    #[test]
    fn regio_disable_values() {
        assert!(disabled_by_env(Some(b"1")));
        assert!(disabled_by_env(Some(b"yes")));
        assert!(!disabled_by_env(Some(b"0")));
        assert!(!disabled_by_env(Some(b"")));
        assert!(!disabled_by_env(None));
    }
}
