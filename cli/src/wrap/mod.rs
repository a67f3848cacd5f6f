//! `instrument wrap COMPILER ARGS...` (SPEC.md "Compiler wrapper"): runs
//! one compiler command of a build as if its C and Fortran sources had been
//! instrumented.
//!
//! Each source is instrumented into a private temporary directory and the
//! compiler runs on that copy with the command's own arguments; the copy's
//! `#line` directives name the original file, and the original directory
//! is added to the include path so quoted includes still resolve. Region
//! ids come from one IDF per build ([`build_dir`]), taken under a lock, and
//! the probes register that IDF, so the run directory gets it at exit. A
//! link step gets the runtime. Anything the wrapper does not understand,
//! and any failure of its own, leaves the command to run as written.

mod build_dir;
mod command;
mod deps;

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use regio_idf::{Idf, IDF_FILE_NAME};
use regio_instrumenter::build_idf;
use regio_instrumenter::driver::{self, FileJob, Language};
use regio_instrumenter::filter::Filter;
use regio_instrumenter::selection::{Selection, DEFAULT_REGIONS};

use crate::runtime_locator;
use command::{Parsed, Reading};

#[derive(Args, Debug)]
pub struct WrapArgs {
    /// Comma list of functions, loops, calls, io, omp, mpi, user, all, none.
    #[arg(long, env = "REGIO_WRAP_REGIONS", default_value = DEFAULT_REGIONS)]
    regions: String,
    /// Include/exclude rules by file glob and region-name glob.
    #[arg(long, env = "REGIO_WRAP_FILTER")]
    filter: Option<PathBuf>,
    /// Measure small functions too (straight-line bodies of a few
    /// statements, left unmeasured by default; `--regions all` measures
    /// them as well).
    /// (`REGIO_WRAP_SMALL_FUNCTIONS`: 0, false, no, off or empty leave
    /// them out, any other value measures them.)
    #[arg(
        long,
        env = "REGIO_WRAP_SMALL_FUNCTIONS",
        value_parser = clap::builder::FalseyValueParser::new()
    )]
    small_functions: bool,
    /// The compiler and its arguments, as the build wrote them.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMPILER ARGS"
    )]
    command: Vec<OsString>,
}

/// Compiler launchers that take the real compiler as their first argument
/// (`ccache gcc -c a.c`, `CMAKE_C_COMPILER_LAUNCHER="instrument;wrap;ccache"`):
/// the wrapper reads the command after them and runs it through them.
const LAUNCHERS: &[&str] = &["ccache", "sccache", "distcc", "icecc"];

pub fn run(args: WrapArgs) -> Result<ExitCode> {
    let (launcher, compiler, rest) = split_launcher(&args.command)
        .context("error: name the compiler: instrument wrap COMPILER ARGS...")?;
    let plan = match command::read_for(compiler, rest) {
        Reading::Unchanged(_) => Plan::unchanged(rest),
        Reading::Link => Plan::link(rest),
        Reading::Compile(parsed) => match Plan::compile(&args, compiler, parsed) {
            Ok(plan) => plan,
            // Every later command of the build would hit it too: fail.
            Err(e) if e.downcast_ref::<build_idf::IdLimitError>().is_some() => return Err(e),
            Err(e) => {
                warn(&format!(
                    "{}; this command is compiled without instrumentation",
                    crate::error_text(&e)
                ));
                let links =
                    matches!(command::read_for(compiler, rest), Reading::Compile(p) if p.links);
                match links {
                    true => Plan::link(rest),
                    false => Plan::unchanged(rest),
                }
            }
        },
    };
    plan.execute(launcher, compiler)
}

/// (launcher, compiler, arguments) of a command; no launcher is `None`.
fn split_launcher(command: &[OsString]) -> Option<(Option<&OsStr>, &OsStr, &[OsString])> {
    let (first, rest) = command.split_first()?;
    let is_launcher = Path::new(first)
        .file_name()
        .and_then(OsStr::to_str)
        .is_some_and(|n| LAUNCHERS.contains(&n));
    match rest.split_first() {
        Some((compiler, args)) if is_launcher && !compiler.to_string_lossy().starts_with('-') => {
            Some((Some(first.as_os_str()), compiler.as_os_str(), args))
        }
        _ => Some((None, first.as_os_str(), rest)),
    }
}

fn warn(text: &str) {
    eprintln!("instrument wrap: warning: {text}");
}

/// The command to run and what to do after it.
struct Plan {
    args: Vec<OsString>,
    /// Removed once the compiler is done.
    _temp: Option<tempfile::TempDir>,
    /// Dependency files to write or fix after a successful compile.
    deps: Vec<deps::Fixup>,
}

impl Plan {
    fn unchanged(rest: &[OsString]) -> Plan {
        Plan {
            args: rest.to_vec(),
            _temp: None,
            deps: Vec::new(),
        }
    }

    /// A link: the runtime after everything else, so static archives of
    /// instrumented objects find it.
    fn link(rest: &[OsString]) -> Plan {
        let mut args = rest.to_vec();
        match runtime_locator::locate() {
            Ok(rt) => args.extend(rt.link_args().into_iter().map(OsString::from)),
            Err(e) => warn(&format!("{e}; linking without the runtime")),
        }
        Plan::unchanged(&args)
    }

    fn compile(opts: &WrapArgs, compiler: &OsStr, parsed: Parsed) -> Result<Plan> {
        let settings = settings(opts, compiler, &parsed)?;
        let temp = tempfile::Builder::new()
            .prefix("regio-wrap-")
            .tempdir()
            .context("error: cannot create a temporary directory")?;
        let copies = instrument_sources(&settings, &parsed, temp.path())?;
        let c_deps = parsed.deps.is_some() && parsed.sources.iter().any(|s| s.lang == Language::C);
        let mut args = Vec::new();
        // The original directories first, where the compiler would have
        // looked first (the including file's own directory).
        let mut dirs_added = HashSet::new();
        for s in &parsed.sources {
            let dir = match s.path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if dirs_added.insert((dir.clone(), s.lang == Language::C)) {
                match s.lang {
                    Language::C => args.push(OsString::from("-iquote")),
                    _ => args.push(OsString::from("-I")),
                }
                args.push(dir.into_os_string());
            }
        }
        for (i, a) in parsed.args.iter().enumerate() {
            if c_deps && parsed.dep_args.contains(&i) {
                continue;
            }
            match copies.iter().find(|c| c.index == i) {
                Some(c) => args.push(c.copy.clone().into_os_string()),
                None => args.push(a.clone()),
            }
        }
        if parsed.links {
            let rt = runtime_locator::locate()?;
            args.extend(rt.link_args().into_iter().map(OsString::from));
        }
        let deps = match &parsed.deps {
            None => Vec::new(),
            Some(_) if c_deps => deps::separate_runs(&parsed),
            Some(_) => deps::rewrites(&parsed, &copies),
        };
        Ok(Plan {
            args,
            _temp: Some(temp),
            deps,
        })
    }

    fn execute(self, launcher: Option<&OsStr>, compiler: &OsStr) -> Result<ExitCode> {
        let mut command = match launcher {
            Some(l) => {
                let mut c = std::process::Command::new(l);
                c.arg(compiler);
                c
            }
            None => std::process::Command::new(compiler),
        };
        let program = launcher.unwrap_or(compiler).to_string_lossy().into_owned();
        let status = command
            .args(&self.args)
            .status()
            .with_context(|| format!("error: cannot run `{program}`"))?;
        if status.success() {
            for fix in &self.deps {
                if let Err(e) = fix.apply(compiler) {
                    warn(&crate::error_text(&e));
                    return Ok(ExitCode::FAILURE);
                }
            }
        }
        Ok(exit_code(status))
    }
}

/// The compiler's own exit status (a signal as 128 + its number, as a
/// shell reports it).
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// An instrumented copy of a source of the command.
pub(crate) struct Copy {
    /// The argument it replaces.
    index: usize,
    copy: PathBuf,
    /// The argument as written.
    original: PathBuf,
}

fn settings(opts: &WrapArgs, compiler: &OsStr, parsed: &Parsed) -> Result<driver::Options> {
    let mut selection: Selection = opts.regions.parse()?;
    selection.small_functions |= opts.small_functions;
    let (filter, filter_path) = match &opts.filter {
        None => (Filter::default(), None),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("{}: error: cannot read filter file", p.display()))?;
            let shown = p.display().to_string();
            (Filter::parse(&shown, &text)?, Some(shown))
        }
    };
    Ok(driver::Options {
        paths: Vec::new(),
        out: PathBuf::new(),
        selection,
        filter,
        filter_path,
        form_overrides: Vec::new(),
        rust_regio: Default::default(),
        exclude: Default::default(),
        strict: false,
        preprocess: preprocess_for(compiler, parsed),
    })
}

/// C sources go through the preprocessed path of the C front end, with
/// the command's preprocessor-relevant flags: everything but the sources,
/// the output and the dependency options. A name that is not UTF-8 leaves
/// the text path.
fn preprocess_for(compiler: &OsStr, parsed: &Parsed) -> Option<driver::Preprocess> {
    let cc = compiler.to_str()?.to_string();
    let cflags = parsed
        .flags_without_io()
        .into_iter()
        .map(|a| a.into_string().ok())
        .collect::<Option<Vec<_>>>()?;
    Some(driver::Preprocess { cc, cflags })
}

/// Instruments every source under the build's lock, taking ids from its
/// IDF and merging the regions back. A source that fails is compiled as
/// written (with a warning).
fn instrument_sources(opts: &driver::Options, parsed: &Parsed, temp: &Path) -> Result<Vec<Copy>> {
    let dir = build_dir::locate()?;
    let idf_path = dir.join(IDF_FILE_NAME);
    let idf_text = idf_path.display().to_string();
    let _lock = build_dir::Lock::acquire(&dir)?;
    let mut idf = match std::fs::read_to_string(&idf_path) {
        Ok(text) => Idf::from_json(&idf_text, &text).with_context(|| {
            format!("the build's IDF cannot be read; remove {idf_text} and rebuild everything")
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => build_idf::empty(),
        Err(e) => return Err(e).with_context(|| format!("{idf_text}: error: cannot read")),
    };
    let macros = HashSet::new();
    let mut copies = Vec::new();
    for (n, source) in parsed.sources.iter().enumerate() {
        let abs = std::fs::canonicalize(&source.path)
            .with_context(|| format!("{}: error: cannot resolve", source.path.display()))?;
        // The IDF names files relative to the build directory when they are
        // in it, else by absolute path (an out-of-source build).
        let rel = match abs.strip_prefix(&dir) {
            Ok(r) => r.display().to_string(),
            Err(_) => abs.display().to_string(),
        };
        let display = source.path.display().to_string();
        let job = |first_id| FileJob {
            source: &source.path,
            display: &display,
            rel: &rel,
            lang: source.lang,
            first_id,
            idf_path: &idf_text,
        };
        let first = build_idf::first_id_for(&idf, &rel);
        let mut result = driver::instrument_file(opts, &job(first), &macros);
        if let Ok(done) = &result {
            if !build_idf::fits(&idf, &rel, first, done.regions.len()) {
                let next = build_idf::next_free_id(&idf, &rel);
                result = driver::instrument_file(opts, &job(next), &macros);
            }
        }
        match result {
            Ok(done) => {
                for d in &done.warnings {
                    eprintln!("{d}");
                }
                let name = source.path.file_name().unwrap_or(OsStr::new("source"));
                let copy = temp.join(n.to_string()).join(name);
                if let Some(parent) = copy.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("{}: error: cannot create", parent.display()))?;
                }
                std::fs::write(&copy, &done.bytes)
                    .with_context(|| format!("{}: error: cannot write", copy.display()))?;
                build_idf::merge(&mut idf, done.file, done.regions);
                copies.push(Copy {
                    index: source.index,
                    copy,
                    original: source.path.clone(),
                });
            }
            Err(diags) => {
                for d in &diags {
                    eprintln!("{d}");
                }
                warn(&format!("{display} is compiled as written (not measured)"));
            }
        }
    }
    record_options(&mut idf, opts);
    idf.validate().map_err(|errs| {
        anyhow::anyhow!(
            "internal error: the merged IDF is invalid: {}",
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        )
    })?;
    // Past the limit nothing is written: the compile fails, the build's
    // IDF stays as it was.
    build_idf::check_id_limit(&idf, &idf_text, build_idf::LOCAL_ID_LIMIT)?;
    driver::write_atomically(&idf_path, idf.to_json().as_bytes())?;
    Ok(copies)
}

fn record_options(idf: &mut Idf, opts: &driver::Options) {
    let o = &mut idf.header.options;
    o.insert("regions".into(), opts.selection.names().into());
    o.insert(
        "filter".into(),
        opts.filter_path
            .clone()
            .map_or(serde_json::Value::Null, Into::into),
    );
    o.insert("wrap".into(), true.into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launcher_runs_the_compiler_named_after_it() {
        let cmd = |s: &str| s.split(' ').map(OsString::from).collect::<Vec<_>>();
        let c = cmd("/usr/bin/ccache gcc -c a.c");
        let (l, compiler, rest) = split_launcher(&c).expect("split");
        assert_eq!(l, Some(OsStr::new("/usr/bin/ccache")));
        assert_eq!(compiler, "gcc");
        assert_eq!(rest, &c[2..]);
        let c = cmd("gcc -c a.c");
        assert_eq!(split_launcher(&c), Some((None, OsStr::new("gcc"), &c[1..])));
        // `ccache -s` is ccache's own command.
        let c = cmd("ccache -s");
        assert_eq!(
            split_launcher(&c),
            Some((None, OsStr::new("ccache"), &c[1..]))
        );
    }
}
