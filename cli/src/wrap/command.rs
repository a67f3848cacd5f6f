//! What a GCC-style compiler command (gcc, cc, clang, gfortran, mpicc,
//! mpif90, ...) does, as far as `instrument wrap` needs to know: which of
//! its arguments are C or Fortran sources, whether it links, where its
//! object and dependency files go. Anything this reading is not sure of
//! makes the command run unchanged.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use regio_instrumenter::driver::{language_of, Language};

/// Options whose value is the next argument when not joined (`-I dir`).
const WITH_VALUE: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-iquote",
    "-isystem",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-imultilib",
    "-MF",
    "-MT",
    "-MQ",
    "-L",
    "-l",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-u",
    "-T",
    "-aux-info",
    "--param",
    "-J",
    "-z",
    "-A",
    "-target",
    "--sysroot",
    "-dumpbase",
    "-dumpdir",
    "-wrapper",
];

/// Options that make the command something other than compile or link;
/// such a command runs unchanged.
const NOT_COMPILING: &[&str] = &[
    "-E",
    "-M",
    "-MM",
    "-fsyntax-only",
    "-###",
    "--help",
    "-x",
    "-",
];

/// Dependency options (GCC `-MD` family) of a compile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DepRequest {
    /// `-MMD` (system headers left out) rather than `-MD`.
    pub user_only: bool,
    /// `-MF FILE`.
    pub file: Option<OsString>,
    /// `-MT`/`-MQ` and their values, in order.
    pub targets: Vec<(String, OsString)>,
    /// `-MP`.
    pub phony: bool,
}

/// A source of the command the wrapper instruments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Index in `Parsed::args`.
    pub index: usize,
    pub path: PathBuf,
    pub lang: Language,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Run as written; the text says why.
    Unchanged(&'static str),
    /// Compile (and maybe link) these sources.
    Compile(Parsed),
    /// Link only (objects, libraries): the runtime is added.
    Link,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub args: Vec<OsString>,
    pub sources: Vec<Source>,
    /// No `-c`/`-S`: the command also links.
    pub links: bool,
    /// The `-o` value.
    pub output: Option<OsString>,
    pub deps: Option<DepRequest>,
    /// Indices of the dependency options and their values.
    pub dep_args: Vec<usize>,
}

fn is_option_with_value(arg: &str) -> bool {
    WITH_VALUE.contains(&arg)
}

/// Whether `compiler` is a C++ driver (`g++`, `c++`, `clang++`, `mpicxx`,
/// `mpic++`, `mpiCC`, versioned or with a target prefix). Such a driver
/// compiles `.c` files as C++, which the wrapper does not instrument: it
/// passes C++ sources through unchanged and only adds the runtime when the
/// command links (the C and Fortran objects linked in are measured).
pub fn is_cxx_driver(compiler: &OsStr) -> bool {
    let Some(name) = Path::new(compiler).file_name().and_then(OsStr::to_str) else {
        return false;
    };
    // `mpicxx.openmpi`, `g++-12`: the name before a `.` suffix.
    let stem = name.split('.').next().unwrap_or(name);
    stem.contains("++")
        || ["mpicxx", "mpiCC", "mpiicpc", "icpc", "icpx", "CC"].contains(&stem)
        || stem.starts_with("mpicxx-")
}

/// Reads the arguments after the compiler's name (`compiler` says whether
/// `.c` files are C: not under a C++ driver).
pub fn read_for(compiler: &OsStr, args: &[OsString]) -> Reading {
    read_as(args, is_cxx_driver(compiler))
}

/// Reads the arguments of a C or Fortran compiler.
#[cfg(test)]
pub fn read(args: &[OsString]) -> Reading {
    read_as(args, false)
}

fn read_as(args: &[OsString], cxx: bool) -> Reading {
    let mut sources = Vec::new();
    let mut other_inputs = 0;
    let mut compile_only = false;
    let mut relocatable = false;
    let mut output = None;
    let mut deps: Option<DepRequest> = None;
    let mut dep_args = Vec::new();
    let mut dep_extra = DepRequest::default();
    let mut i = 0;
    while i < args.len() {
        let Some(arg) = args[i].to_str() else {
            // A name that is not UTF-8: an input we cannot classify.
            other_inputs += 1;
            i += 1;
            continue;
        };
        let value = args.get(i + 1).cloned();
        if NOT_COMPILING.contains(&arg) || arg.starts_with("-x") && arg.len() > 2 {
            return Reading::Unchanged("not a compile or link");
        }
        match arg {
            "-c" | "-S" => compile_only = true,
            "-r" => relocatable = true,
            "-MD" | "-MMD" => {
                deps.get_or_insert_with(Default::default).user_only = arg == "-MMD";
                dep_args.push(i);
            }
            "-MP" => {
                dep_extra.phony = true;
                dep_args.push(i);
            }
            "-MF" | "-MT" | "-MQ" => {
                let Some(v) = value else {
                    return Reading::Unchanged("option without its value");
                };
                if arg == "-MF" {
                    dep_extra.file = Some(v);
                } else {
                    dep_extra.targets.push((arg.to_string(), v));
                }
                dep_args.extend([i, i + 1]);
                i += 1;
            }
            "-o" => {
                let Some(v) = value else {
                    return Reading::Unchanged("option without its value");
                };
                output = Some(v);
                i += 1;
            }
            _ if is_option_with_value(arg) => {
                if value.is_none() {
                    return Reading::Unchanged("option without its value");
                }
                i += 1;
            }
            _ if arg.starts_with("-o") => output = Some(OsString::from(&arg[2..])),
            _ if arg.starts_with("-MF") => {
                dep_extra.file = Some(OsString::from(&arg[3..]));
                dep_args.push(i);
            }
            _ if arg.starts_with("-MT") || arg.starts_with("-MQ") => {
                dep_extra
                    .targets
                    .push((arg[..3].to_string(), OsString::from(&arg[3..])));
                dep_args.push(i);
            }
            _ if arg.starts_with('-') || arg.starts_with('@') => {}
            _ => {
                let path = PathBuf::from(arg);
                match source_language(&path).filter(|l| !(cxx && *l == Language::C)) {
                    Some(lang) => sources.push(Source {
                        index: i,
                        path,
                        lang,
                    }),
                    None => other_inputs += 1,
                }
            }
        }
        i += 1;
    }
    if let Some(d) = &mut deps {
        d.file = dep_extra.file;
        d.targets = dep_extra.targets;
        d.phony = dep_extra.phony;
    } else {
        // -MF/-MT/-MP without -MD/-MMD do nothing for a compile.
        dep_args.clear();
    }
    if sources.is_empty() {
        if compile_only || relocatable || other_inputs == 0 {
            return Reading::Unchanged("no C or Fortran source");
        }
        return Reading::Link;
    }
    if sources.iter().any(|s| !s.path.is_file()) {
        return Reading::Unchanged("a source that is not a file");
    }
    Reading::Compile(Parsed {
        args: args.to_vec(),
        sources,
        links: !compile_only && !relocatable,
        output,
        deps,
        dep_args,
    })
}

/// C and Fortran sources by suffix (headers and Rust are not compiled).
fn source_language(path: &Path) -> Option<Language> {
    if path.extension() == Some(OsStr::new("c")) {
        return Some(Language::C);
    }
    match language_of(path) {
        Some(l @ Language::Fortran(_)) => Some(l),
        _ => None,
    }
}

impl Parsed {
    /// What `-MD` names as the target of `source`'s rule: the `-o` file
    /// (the object of a compile; the program of a compile-and-link, as
    /// GCC 12 writes it), else the source's object name.
    pub fn object_of(&self, source: &Source) -> OsString {
        if let Some(o) = &self.output {
            return o.clone();
        }
        let stem = source.path.file_stem().unwrap_or_default();
        let mut name = stem.to_os_string();
        name.push(".o");
        name
    }

    /// The arguments without sources, `-o`, `-c`/`-S` and dependency
    /// options: what a preprocessor or dependency run of the same command
    /// needs.
    pub fn flags_without_io(&self) -> Vec<OsString> {
        let mut flags = Vec::new();
        let mut skip_next = false;
        for (i, a) in self.args.iter().enumerate() {
            if std::mem::take(&mut skip_next)
                || self.sources.iter().any(|s| s.index == i)
                || self.dep_args.contains(&i)
            {
                continue;
            }
            match a.to_str() {
                Some("-c" | "-S") => {}
                Some("-o") => skip_next = true,
                Some(o) if o.starts_with("-o") => {}
                _ => flags.push(a.clone()),
            }
        }
        flags
    }

    /// The dependency file `-MD` writes for `source` without `-MF`: with
    /// `-o`, its file with `.d` for its suffix, also when the command links
    /// (GCC's documented rule: `gcc -MD m.c -o sub/prog` writes
    /// `sub/prog.d`); else the source's name with `.d` (GCC 11+ writes
    /// `a-<name>.d` for a compile-and-link without `-o`: not reproduced).
    pub fn default_dep_file(&self, source: &Source) -> PathBuf {
        if let Some(o) = &self.output {
            return Path::new(o).with_extension("d");
        }
        let stem = source.path.file_stem().unwrap_or_default();
        PathBuf::from(stem).with_extension("d")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    fn parsed(s: &str) -> Parsed {
        match read(&args(s)) {
            Reading::Compile(p) => p,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn commands_without_sources_run_unchanged_or_link() {
        for s in [
            "--version",
            "-dumpversion",
            "-print-file-name=libc.so",
            "-v",
            "-E x.c",
            "-M x.c",
            "-MM x.c",
            "-x c -c x.c",
            "-c a.o",
            "-",
        ] {
            assert!(
                matches!(read(&args(s)), Reading::Unchanged(_)),
                "{s}: {:?}",
                read(&args(s))
            );
        }
        assert_eq!(read(&args("a.o b.o -o prog -lm")), Reading::Link);
        assert_eq!(read(&args("-shared -o libx.so a.o")), Reading::Link);
        assert!(matches!(
            read(&args("-r a.o -o b.o")),
            Reading::Unchanged(_)
        ));
    }

    #[test]
    fn sources_outputs_and_dependency_options_are_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a.c");
        let f = dir.path().join("m.F90");
        std::fs::write(&a, "").unwrap();
        std::fs::write(&f, "").unwrap();
        let cmd = format!(
            "-O2 -I inc -DX=1 -MD -MT obj/a.o -MF obj/a.d -c {} -o obj/a.o",
            a.display()
        );
        let p = parsed(&cmd);
        assert!(!p.links);
        assert_eq!(p.sources.len(), 1);
        assert_eq!(p.sources[0].index, 10);
        assert_eq!(p.output.as_deref(), Some(OsStr::new("obj/a.o")));
        let deps = p.deps.clone().expect("deps");
        assert_eq!(deps.file.as_deref(), Some(OsStr::new("obj/a.d")));
        assert_eq!(deps.targets, [("-MT".into(), OsString::from("obj/a.o"))]);
        assert_eq!(p.dep_args, [4, 5, 6, 7, 8]);
        assert_eq!(p.object_of(&p.sources[0]), OsString::from("obj/a.o"));
        assert_eq!(p.default_dep_file(&p.sources[0]), PathBuf::from("obj/a.d"));

        let p = parsed(&format!(
            "-fopenmp {} {} -o prog -lm",
            a.display(),
            f.display()
        ));
        assert!(p.links);
        assert_eq!(p.sources.len(), 2);
        assert!(matches!(p.sources[1].lang, Language::Fortran(_)));
        // A compile-and-link's dependency rule is named after `-o`.
        assert_eq!(p.object_of(&p.sources[0]), OsString::from("prog"));
        assert_eq!(p.default_dep_file(&p.sources[0]), PathBuf::from("prog.d"));
        let p = parsed(&format!("-MD {}", a.display()));
        assert_eq!(p.object_of(&p.sources[0]), OsString::from("a.o"));
        assert_eq!(p.default_dep_file(&p.sources[0]), PathBuf::from("a.d"));
        // A missing source: the compiler says so, not us.
        assert!(matches!(read(&args("-c nothere.c")), Reading::Unchanged(_)));
    }

    #[test]
    fn a_cxx_driver_compiles_c_files_as_cxx_unchanged_and_links_the_runtime() {
        for cxx in [
            "mpicxx",
            "/usr/bin/mpic++",
            "g++-12",
            "mpicxx.openmpi",
            "clang++",
            "mpiCC",
        ] {
            assert!(is_cxx_driver(OsStr::new(cxx)), "{cxx}");
        }
        for c in [
            "gcc",
            "mpicc",
            "cc",
            "gfortran",
            "mpif90",
            "/usr/bin/mpicc.mpich",
        ] {
            assert!(!is_cxx_driver(OsStr::new(c)), "{c}");
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a.c");
        std::fs::write(&a, "").unwrap();
        let mpicxx = OsStr::new("mpicxx");
        let compile = args(&format!("-c {}", a.display()));
        assert!(matches!(read_for(mpicxx, &compile), Reading::Unchanged(_)));
        assert!(matches!(
            read_for(OsStr::new("mpicc"), &compile),
            Reading::Compile(_)
        ));
        let link = args(&format!("{} main.cpp -o prog", a.display()));
        assert_eq!(read_for(mpicxx, &link), Reading::Link);
        assert_eq!(
            read_for(mpicxx, &args("-c main.cpp")),
            Reading::Unchanged("no C or Fortran source")
        );
    }
}
