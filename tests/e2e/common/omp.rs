//! Shared parts of the OpenMP end-to-end tests (C and Fortran): the
//! `expect` comments of the testdata programs, runs at a given team size,
//! visits per thread from a report, and the comparison with the regions
//! OPARI2 describes.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::report::{children, only_run, report_json, roots, str_field, visit};
use super::{run, run_ok, Run};

/// How many calls a region must have: in all, or on each team thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Want {
    Total(Count),
    Each(Count),
}

/// `7`, `T` or `3T` (T = team size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Count {
    n: u64,
    per_thread: bool,
}

impl Count {
    fn parse(s: &str) -> Option<Count> {
        let s = s.trim();
        match s.strip_suffix('T') {
            Some("") => Some(Count {
                n: 1,
                per_thread: true,
            }),
            Some(n) => n.parse().ok().map(|n| Count {
                n,
                per_thread: true,
            }),
            None => s.parse().ok().map(|n| Count {
                n,
                per_thread: false,
            }),
        }
    }

    pub fn at(self, team: u64) -> u64 {
        if self.per_thread {
            self.n * team
        } else {
            self.n
        }
    }
}

/// The body of an `expect` comment: `/* expect ... */` in C, `! expect
/// ...` in Fortran (also `C expect`, `c expect`, `* expect` in column 1
/// of fixed form).
fn expect_body(line: &str) -> Option<&str> {
    if let Some(rest) = line.trim().strip_prefix("/* expect ") {
        return Some(rest.trim_end().trim_end_matches("*/").trim());
    }
    let lead = line.chars().next()?;
    let rest = if matches!(lead, 'c' | 'C' | '*') {
        &line[1..]
    } else {
        line.trim_start().strip_prefix('!')?
    };
    Some(rest.trim_start().strip_prefix("expect ")?.trim())
}

/// Whether a source line is a C preprocessor conditional (`#if`, `#else`,
/// ...), which stands between an `expect` comment and its directive when
/// the directive has alternatives.
fn is_conditional_line(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix('#') else {
        return false;
    };
    let word = rest.trim_start();
    ["if", "else", "elif", "endif"]
        .iter()
        .any(|w| word.starts_with(w))
}

/// Lines that do not count between an `expect` comment and the line it
/// describes: C comment lines and preprocessor conditionals (a Fortran
/// `*$omp` directive is not a comment).
fn passed_over(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("/*") || (t.starts_with('*') && !t.starts_with("*$")) || is_conditional_line(t)
}

/// (kind, line) -> wanted calls, from `expect` comments: each names the
/// regions of the directive (or call, or loop) on the next line that is
/// neither a C comment nor a preprocessor conditional.
pub fn expectations(source: &Path) -> BTreeMap<(String, u64), Want> {
    let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = text.lines().collect();
    let mut out = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(body) = expect_body(line) else {
            continue;
        };
        let target = (i + 1..lines.len())
            .find(|&j| !passed_over(lines[j]))
            .unwrap_or_else(|| panic!("expect at line {} has nothing after it", i + 1));
        for item in body.split(',') {
            let (kind, spec) = item
                .split_once(':')
                .unwrap_or_else(|| panic!("bad expect item `{item}` at line {}", i + 1));
            let spec = spec.trim();
            let want = match spec.strip_prefix("each ") {
                Some(c) => Want::Each(Count::parse(c).unwrap_or_else(|| panic!("bad count {c}"))),
                None => {
                    Want::Total(Count::parse(spec).unwrap_or_else(|| panic!("bad count {spec}")))
                }
            };
            out.insert((kind.trim().to_string(), target as u64 + 1), want);
        }
    }
    out
}

/// Runs `exe` with OMP_NUM_THREADS=`threads`, measured into `run_dir`.
pub fn exec(exe: &Path, threads: u32, run_dir: Option<&Path>) -> Run {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH")
        .env_remove("REGIO_DISABLE")
        .env("OMP_NUM_THREADS", threads.to_string());
    match run_dir {
        Some(d) => c.env("REGIO_DIR", d),
        None => c.env_remove("REGIO_DIR"),
    };
    run(&mut c)
}

/// Calls per (rank, pid, thread).
pub type PerThread = BTreeMap<(u64, u64, u64), u64>;

/// Per (kind, line): calls per thread, summed over nodes.
pub fn visits(run: &Value) -> BTreeMap<(String, u64), PerThread> {
    let mut out: BTreeMap<(String, u64), PerThread> = BTreeMap::new();
    visit(run, &mut |n, _| {
        let key = (
            str_field(n, "kind").to_string(),
            n["line"].as_u64().unwrap_or(0),
        );
        let per = out.entry(key).or_default();
        for t in n["per_thread"].as_array().map_or(&[][..], Vec::as_slice) {
            let k = (
                t["rank"].as_u64().unwrap_or(0),
                t["pid"].as_u64().unwrap_or(0),
                t["thread"].as_u64().unwrap_or(0),
            );
            *per.entry(k).or_default() += t["calls"].as_u64().unwrap_or(0);
        }
    });
    out
}

/// Every expectation the visits of a run at team size `team` miss.
pub fn visit_problems(
    expect: &BTreeMap<(String, u64), Want>,
    seen: &BTreeMap<(String, u64), PerThread>,
    team: u32,
) -> Vec<String> {
    let mut problems = Vec::new();
    let t = u64::from(team);
    for ((kind, line), want) in expect {
        let per = seen.get(&(kind.clone(), *line));
        let total: u64 = per.map_or(0, |m| m.values().sum());
        match want {
            Want::Total(c) if total != c.at(t) => problems.push(format!(
                "T={team} {kind} at line {line}: {total} calls in all, expected {}",
                c.at(t)
            )),
            Want::Each(c) => {
                let each: Vec<u64> = per.map_or(Vec::new(), |m| m.values().copied().collect());
                if each.len() as u64 != t || each.iter().any(|&v| v != c.at(t)) {
                    problems.push(format!(
                        "T={team} {kind} at line {line}: calls per thread {each:?}, expected {} on each of {team} threads",
                        c.at(t)
                    ));
                }
            }
            _ => {}
        }
    }
    problems
}

/// Host teams: every `omp_teams_body` node has one `omp_team` child per
/// team number, `team 0` to `team n-1`, whose visits add up to the body's.
pub fn team_problems(run: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    visit(run, &mut |n, _| {
        if str_field(n, "kind") != "omp_teams_body" {
            return;
        }
        let line = n["line"].as_u64().unwrap_or(0);
        let teams: Vec<(&str, u64)> = children(n)
            .iter()
            .filter(|c| str_field(c, "kind") == "omp_team")
            .map(|c| (str_field(c, "name"), c["calls"].as_u64().unwrap_or(0)))
            .collect();
        let mut names: Vec<&str> = teams.iter().map(|t| t.0).collect();
        names.sort_unstable();
        let want: Vec<String> = (0..teams.len()).map(|k| format!("team {k}")).collect();
        let calls: u64 = teams.iter().map(|t| t.1).sum();
        if teams.is_empty() || names != want || calls != n["calls"].as_u64().unwrap_or(0) {
            problems.push(format!(
                "teams body at line {line}: team regions {teams:?} for {} visits",
                n["calls"]
            ));
        }
    });
    problems
}

/// Runs the plain build `plain` and the instrumented `inst` of `label` at
/// OMP_NUM_THREADS 1, 2 and 3 (measured into `dir`/run-T): same status and
/// output, output independent of the team size, a DRG with one root
/// (named `root` when given), and when `expect` is given, the visits it
/// wants. Problems other than a different output go to `problems`.
pub fn compare_runs(
    label: &str,
    plain: &Path,
    inst: &Path,
    dir: &Path,
    expect: Option<&BTreeMap<(String, u64), Want>>,
    root: Option<&str>,
    problems: &mut Vec<String>,
) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut outputs = Vec::new();
    for team in [1u32, 2, 3] {
        let want = exec(plain, team, None);
        let run_dir = dir.join(format!("run-{team}"));
        let got = exec(inst, team, Some(&run_dir));
        assert_eq!(want.outcome(), "exit 0", "{label}: {}", want.describe());
        assert_eq!(got.outcome(), want.outcome(), "{label}: {}", got.describe());
        assert_eq!(got.stdout, want.stdout, "{label} T={team}: stdout differs");
        println!("{label} T={team}: {}", got.stdout.trim());
        outputs.push(got.stdout);
        let Some(expect) = expect else {
            continue;
        };
        let report = report_json(&[&run_dir]).unwrap_or_else(|e| panic!("{e}"));
        let run = only_run(&report).unwrap_or_else(|e| panic!("{e}"));
        // Team threads attach under the master's path: one root.
        let names: Vec<&str> = roots(run).iter().map(|n| str_field(n, "name")).collect();
        let root_ok = match root {
            Some(r) => names == [r],
            None => names.len() == 1,
        };
        if !root_ok {
            problems.push(format!("{label} T={team}: DRG roots {names:?}"));
        }
        problems.extend(
            visit_problems(expect, &visits(run), team)
                .into_iter()
                .chain(team_problems(run))
                .map(|p| format!("{label}: {p}")),
        );
    }
    assert!(
        outputs.windows(2).all(|w| w[0] == w[1]),
        "{label}: output depends on the team size: {outputs:?}"
    );
}

/// Runs `opari2 file out` in `dir` with its time and memory bounded
/// (OPARI2 2.0.x loops, allocating, on some continued directives): Err
/// says how it failed.
pub fn run_opari2(opari: &Path, dir: &Path, file: &str, out: &str) -> Result<(), String> {
    let r = run(Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg("ulimit -v 2000000; exec timeout 60 \"$0\" \"$1\" \"$2\"")
        .arg(opari)
        .arg(file)
        .arg(out));
    if r.status.success() {
        return Ok(());
    }
    let first = r
        .stderr
        .lines()
        .chain(r.stdout.lines())
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message");
    Err(match r.code() {
        Some(124) => "fails: no result after 60 s".to_string(),
        _ => format!("fails: {}", first.trim()),
    })
}

/// Instruments the tree `src` into `out` with `--regions
/// omp,functions,loops`.
/// Copies testdata/`dir`/`file` alone into `tmp`/src and instruments it
/// into `tmp`/inst (`--regions omp,functions,loops`): returns the copy and
/// the instrumented directory.
pub fn copy_and_instrument(
    dir: &str,
    file: &str,
    tmp: &Path,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let src = tmp.join("src");
    std::fs::create_dir_all(&src).unwrap_or_else(|e| panic!("{e}"));
    let copy = src.join(file);
    std::fs::copy(super::testdata().join(dir).join(file), &copy)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let out = tmp.join("inst");
    instrument_tree(&src, &out);
    (copy, out)
}

pub fn instrument_tree(src: &Path, out: &Path) {
    run_ok(
        Command::new(super::instrument_bin())
            .arg(src)
            .arg("--out")
            .arg(out)
            .args(["--regions", "omp,functions,loops"]),
    );
}

/// Compiles OPARI2's output `modified` in `dir` with `compiler` and the
/// flags `opari2-config <config_flag>` gives: `ok`, or `output does not
/// compile:` and the first message after `error_mark`.
pub fn compile_opari2_output(
    compiler: &str,
    config_flag: &str,
    dir: &Path,
    modified: &str,
    error_mark: &str,
) -> String {
    let mut flags = vec![
        "-fopenmp".to_string(),
        "-Wall".to_string(),
        "-c".to_string(),
    ];
    if let Some(cfg) = super::find_on_path("opari2-config") {
        let c = run(Command::new(cfg).arg(config_flag));
        flags.extend(c.stdout.split_whitespace().map(str::to_string));
    }
    let c = run(Command::new(compiler)
        .current_dir(dir)
        .args(&flags)
        .arg(modified)
        .arg("-o")
        .arg(dir.join("opari.o")));
    if c.status.success() {
        return "ok".to_string();
    }
    let message = c
        .stderr
        .lines()
        .find_map(|l| Some(l.split_once(error_mark)?.1))
        .unwrap_or("no message");
    format!("output does not compile: {}", message.trim())
}

/// The comparison table: (program, OPARI2's outcome, ours).
pub fn print_opari2_table(rows: &[(String, String, String)]) {
    println!("| program | opari2 | regio |");
    println!("|---|---|---|");
    for (file, theirs, ours) in rows {
        println!("| {file} | {theirs} | {ours} |");
    }
}

/// OPARI2's region types and the kinds our IDF must have at that line
/// (`do` loops are `omp_for` in C and `omp_do` in Fortran).
pub fn our_kinds(opari_type: &str, fortran: bool) -> &'static [&'static str] {
    match (opari_type, fortran) {
        ("parallel", _) => &["omp_parallel"],
        ("for" | "do", false) => &["omp_for"],
        ("for" | "do", true) => &["omp_do"],
        ("parallelfor" | "paralleldo", false) => &["omp_parallel", "omp_for"],
        ("parallelfor" | "paralleldo", true) => &["omp_parallel", "omp_do"],
        ("sections", _) => &["omp_sections"],
        ("parallelsections", _) => &["omp_parallel", "omp_sections"],
        ("section", _) => &["omp_section"],
        ("single", _) => &["omp_single"],
        ("master", _) => &["omp_master"],
        ("masked", _) => &["omp_masked"],
        ("critical", _) => &["omp_critical"],
        ("atomic", _) => &["omp_atomic"],
        ("barrier", _) => &["omp_barrier"],
        ("ordered", _) => &["omp_ordered"],
        ("task", _) => &["omp_task"],
        ("taskwait", _) => &["omp_taskwait"],
        ("taskgroup", _) => &["omp_taskgroup"],
        ("flush", _) => &["omp_flush"],
        ("workshare", _) => &["omp_workshare"],
        ("parallelworkshare", _) => &["omp_parallel", "omp_workshare"],
        _ => &[],
    }
}

/// OPARI2's Fortran include files split the descriptor strings
/// (`"...4"//` newline `&"8:50..."`): join the pieces.
fn join_fortran_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find("\"//") {
        out.push_str(&rest[..k]);
        let after = &rest[k + 3..];
        let skip = after
            .find(|c: char| !(c.is_whitespace() || c == '&'))
            .unwrap_or(after.len());
        let next = &after[skip..];
        rest = next.strip_prefix('"').unwrap_or(next);
    }
    out.push_str(rest);
    out
}

/// `regionType=X*sscl=file:FIRST:LAST` entries of OPARI2's include files
/// under `dir`: (type, first line).
pub fn opari_regions(dir: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for f in super::walk(dir) {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let text = join_fortran_strings(&text);
        for part in text.split("regionType=").skip(1) {
            let ty = part.split('*').next().unwrap_or("").to_string();
            let Some(sscl) = part.split("sscl=").nth(1) else {
                continue;
            };
            let line = sscl
                .split(':')
                .nth(1)
                .and_then(|l| l.parse::<u64>().ok())
                .unwrap_or(0);
            out.push((ty, line));
        }
    }
    out
}

/// (kind, start line) of every region of an IDF file.
pub fn idf_regions(idf: &Path) -> Vec<(String, u64)> {
    let idf: Value = serde_json::from_str(
        &std::fs::read_to_string(idf).unwrap_or_else(|e| panic!("{}: {e}", idf.display())),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    idf["regions"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap_or("").to_string(),
                r["start"]["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// OPARI2 regions without a region of ours of the same kind and line.
pub fn coverage_problems(
    theirs: &[(String, u64)],
    ours: &[(String, u64)],
    fortran: bool,
) -> Vec<String> {
    let mut missing = Vec::new();
    for (ty, line) in theirs {
        let kinds = our_kinds(ty, fortran);
        if kinds.is_empty() {
            missing.push(format!(
                "OPARI2 region type `{ty}` at line {line} has no counterpart"
            ));
        }
        for k in kinds {
            if !ours.iter().any(|(ok, ol)| ok == k && ol == line) {
                missing.push(format!(
                    "OPARI2 `{ty}` at line {line}: no `{k}` region at that line"
                ));
            }
        }
    }
    missing
}
