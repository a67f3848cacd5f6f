//! Region ids of separately instrumented objects.
//!
//! An instrumented object registers its IDF at load time and gets a base
//! from the runtime; its probes write `base + local id`. Bases depend on the
//! order objects were loaded, so they may differ between processes (and
//! runs). The profile lists every registered IDF with its base and the name
//! of its copy in the run directory (`Profile::idfs`); here every IDF of the
//! run gets a run-wide offset (in the order of the copies' names, which
//! depend only on the IDFs' paths, so runs of one program agree), the IDFs
//! are joined into one with their ids moved by that offset, and every
//! profile's ids are renumbered to match. A run with a single IDF keeps its
//! ids (offset 0), so its reports read as before.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use regio_idf::rundir::{
    objects_file_key, IdfObject, Profile, FIRST_DESCRIPTOR_ID, OBJECT_ID_STRIDE,
};
use regio_idf::Idf;

use crate::AnalysisError;

/// One process's mapping from the ids it wrote to run-wide ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectIds {
    /// Base of an IDF in this process -> the IDF's run-wide offset.
    offsets: HashMap<u32, u32>,
}

impl ObjectIds {
    /// The run-wide id of `id` as this process wrote it. Ids of no
    /// registered IDF (written before their object registered, or beyond
    /// the table) and descriptor ids stay as they are.
    pub fn map(&self, id: u32) -> u32 {
        if id >= FIRST_DESCRIPTOR_ID {
            return id;
        }
        let base = id - id % OBJECT_ID_STRIDE;
        match self.offsets.get(&base) {
            Some(off) => off + id % OBJECT_ID_STRIDE,
            None => id,
        }
    }
}

/// The IDFs of a run joined into one, and each process's renumbering.
#[derive(Debug)]
pub(crate) struct Joined {
    pub idf: Option<Idf>,
    /// The IDF reports name as the run's (the first one's copy).
    pub idf_path: Option<PathBuf>,
    /// Per process (rank, pid).
    pub ids: BTreeMap<(u32, u32), ObjectIds>,
}

/// Whether any profile lists its IDFs with bases (else the run has one IDF
/// whose ids the profiles use as they are).
pub(crate) fn has_objects(profiles: &[Profile]) -> bool {
    profiles.iter().any(|p| !p.idfs.is_empty())
}

/// Reads every IDF the profiles list (the copy in `dir`, else the path the
/// program registered; `idf_override` replaces the IDF the first profile
/// registered first), joins them and renumbers the profiles' region ids.
pub(crate) fn join(
    dir: &Path,
    profiles: &mut [Profile],
    idf_override: Option<&Path>,
) -> Result<Joined, AnalysisError> {
    let lists: Vec<&[IdfObject]> = profiles.iter().map(|p| p.idfs.as_slice()).collect();
    let run = RunIdfs::read(dir, &lists, idf_override)?;
    let mut ids = BTreeMap::new();
    for p in profiles.iter_mut() {
        let map = run.ids_of(&p.idfs);
        for t in &mut p.threads {
            for n in &mut t.nodes {
                n.region = map.map(n.region);
            }
        }
        ids.insert((p.rank, p.pid), map);
    }
    Ok(Joined {
        idf: run.idf,
        idf_path: run.idf_path,
        ids,
    })
}

/// A run without profiles (a trace cut by SIGKILL): the registrations
/// each process recorded when they happened
/// (`regio.objects-p<pid>-<host>.txt`), for the processes `keys` (rank,
/// pid, host) of its trace files. None when no process recorded any.
pub(crate) fn join_recorded(
    dir: &Path,
    keys: &[(u32, u32, &str)],
    idf_override: Option<&Path>,
) -> Result<Option<Joined>, AnalysisError> {
    let recorded = read_recorded(dir)?;
    if recorded.is_empty() {
        return Ok(None);
    }
    let lists: Vec<&[IdfObject]> = keys
        .iter()
        .filter_map(|&(_, pid, host)| recorded_by(&recorded, pid, host))
        .collect();
    let run = RunIdfs::read(dir, &lists, idf_override)?;
    let ids = keys
        .iter()
        .filter_map(|&(rank, pid, host)| {
            Some(((rank, pid), run.ids_of(recorded_by(&recorded, pid, host)?)))
        })
        .collect();
    Ok(Some(Joined {
        idf: run.idf,
        idf_path: run.idf_path,
        ids,
    }))
}

/// Objects files by (pid, host); the host is None in names without one.
type Recorded = BTreeMap<(u32, Option<String>), Vec<IdfObject>>;

/// The registrations of the process `pid` on `host`: its own file, else
/// a file of that pid without a host (older runtimes; a host that could
/// not be part of a name).
fn recorded_by<'r>(recorded: &'r Recorded, pid: u32, host: &str) -> Option<&'r [IdfObject]> {
    recorded
        .get(&(pid, Some(host.to_string())))
        .or_else(|| recorded.get(&(pid, None)))
        .map(Vec::as_slice)
}

/// Every objects file of `dir` (`regio_idf::rundir::objects_file_key`):
/// its registrations in order (a line repeated, e.g. by two threads
/// registering at once, counts once; a line that does not parse is
/// skipped).
fn read_recorded(dir: &Path) -> Result<Recorded, AnalysisError> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((pid, host)) = name.to_str().and_then(objects_file_key) else {
            continue;
        };
        let text = std::fs::read_to_string(entry.path()).map_err(|source| AnalysisError::Io {
            path: entry.path().display().to_string(),
            source,
        })?;
        out.insert((pid, host.map(str::to_string)), parse_recorded(&text));
    }
    Ok(out)
}

/// The lines `<base> <copy name> <path>` of one objects file.
fn parse_recorded(text: &str) -> Vec<IdfObject> {
    let mut list: Vec<IdfObject> = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(base), Some(copy), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(base) = base.parse::<u32>() else {
            continue;
        };
        let o = IdfObject {
            base,
            path: path.to_string(),
            copy: copy.to_string(),
        };
        if !list.contains(&o) {
            list.push(o);
        }
    }
    list
}

/// The IDFs of a run joined into one, each at its run-wide offset.
struct RunIdfs {
    idf: Option<Idf>,
    idf_path: Option<PathBuf>,
    /// Copy name -> run-wide offset.
    offsets: HashMap<String, u32>,
}

impl RunIdfs {
    /// Reads every IDF the processes' registration `lists` name (the copy
    /// in `dir`, else the path registered; `idf_override` replaces the
    /// first list's first IDF) and gives each an offset in copy-name order.
    fn read(
        dir: &Path,
        lists: &[&[IdfObject]],
        idf_override: Option<&Path>,
    ) -> Result<RunIdfs, AnalysisError> {
        // Copy name -> path registered, over every process.
        let mut copies: BTreeMap<String, String> = BTreeMap::new();
        for list in lists {
            for o in list.iter() {
                copies
                    .entry(o.copy.clone())
                    .or_insert_with(|| o.path.clone());
            }
        }
        let first_registered = lists.iter().find_map(|l| l.first()).map(|o| o.copy.clone());

        let mut offsets: HashMap<String, u32> = HashMap::new();
        let mut joined: Option<Idf> = None;
        let mut idf_path = None;
        let mut next = 0u32;
        for (copy, registered) in &copies {
            let local = dir.join(copy);
            let source = match idf_override {
                Some(o) if first_registered.as_deref() == Some(copy.as_str()) => o.to_path_buf(),
                _ if local.is_file() => local,
                _ => PathBuf::from(registered),
            };
            if !source.is_file() {
                continue; // its regions are shown by number, with a warning
            }
            let idf = Idf::read(&source)?;
            let size = idf.regions.iter().map(|r| r.id).max().map_or(0, |m| m + 1);
            offsets.insert(copy.clone(), next);
            joined = Some(match joined {
                None => {
                    idf_path = Some(source);
                    shifted(idf, next)
                }
                Some(mut all) => {
                    let more = shifted(idf, next);
                    all.header.files.extend(more.header.files);
                    all.regions.extend(more.regions);
                    all
                }
            });
            next = next.saturating_add(size);
        }
        let top = dir.join(regio_idf::IDF_FILE_NAME);
        if joined.is_some() && top.is_file() && idf_override.is_none() {
            idf_path = Some(top);
        }
        Ok(RunIdfs {
            idf: joined,
            idf_path,
            offsets,
        })
    }

    /// The renumbering of a process that registered `list`.
    fn ids_of(&self, list: &[IdfObject]) -> ObjectIds {
        ObjectIds {
            offsets: list
                .iter()
                .filter_map(|o| self.offsets.get(&o.copy).map(|&off| (o.base, off)))
                .collect(),
        }
    }
}

/// `idf` with every id and parent moved up by `offset`.
fn shifted(mut idf: Idf, offset: u32) -> Idf {
    if offset == 0 {
        return idf;
    }
    for r in &mut idf.regions {
        r.id += offset;
        if let Some(p) = &mut r.parent {
            *p += offset;
        }
    }
    idf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_map_by_their_base_and_others_stay() {
        let map = ObjectIds {
            offsets: [(OBJECT_ID_STRIDE, 0), (2 * OBJECT_ID_STRIDE, 40)]
                .into_iter()
                .collect(),
        };
        assert_eq!(map.map(OBJECT_ID_STRIDE + 3), 3);
        assert_eq!(map.map(2 * OBJECT_ID_STRIDE + 3), 43);
        let unregistered = regio_idf::rundir::UNREGISTERED_BASE + 3;
        assert_eq!(map.map(unregistered), unregistered);
        assert_eq!(map.map(FIRST_DESCRIPTOR_ID + 1), FIRST_DESCRIPTOR_ID + 1);
    }

    #[test]
    fn processes_of_one_pid_on_two_hosts_read_their_own_objects_file() {
        let dir = std::env::temp_dir().join(format!("regio-objects-hosts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let line = |base: u32, c: &str| format!("{base} regio.idf-{c}.json /{c}/regio.idf.json\n");
        let a = OBJECT_ID_STRIDE;
        let b = 2 * OBJECT_ID_STRIDE;
        let files = [
            ("regio.objects-p7-alpha.txt", line(a, "x") + &line(b, "y")),
            ("regio.objects-p7-beta.txt", line(a, "y") + &line(b, "x")),
            ("regio.objects-p9.txt", line(a, "z")),
            ("regio.objects-p9-.txt", line(a, "bad")),
        ];
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let recorded = read_recorded(&dir).unwrap();
        assert_eq!(recorded.len(), 3, "{recorded:?}");
        let copies = |pid, host| -> Vec<(u32, String)> {
            recorded_by(&recorded, pid, host)
                .unwrap_or_default()
                .iter()
                .map(|o| (o.base, o.copy.clone()))
                .collect()
        };
        let named = |base, c: &str| (base, format!("regio.idf-{c}.json"));
        assert_eq!(copies(7, "alpha"), [named(a, "x"), named(b, "y")]);
        assert_eq!(copies(7, "beta"), [named(a, "y"), named(b, "x")]);
        // A file without a host (older runtimes) serves any host.
        assert_eq!(copies(9, "gamma"), [named(a, "z")]);
        assert!(copies(7, "gamma").is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn recorded_registrations_parse_once_each_and_skip_bad_lines() {
        let text = "4194304 regio.idf-00000000000000aa.json /a/regio.idf.json\n\
                    8388608 regio.idf-00000000000000bb.json /b b/regio.idf.json\n\
                    4194304 regio.idf-00000000000000aa.json /a/regio.idf.json\n\
                    junk\n\
                    x regio.idf-0.json /c\n";
        let list = parse_recorded(text);
        let got: Vec<_> = list
            .iter()
            .map(|o| (o.base, o.copy.as_str(), o.path.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    OBJECT_ID_STRIDE,
                    "regio.idf-00000000000000aa.json",
                    "/a/regio.idf.json"
                ),
                (
                    2 * OBJECT_ID_STRIDE,
                    "regio.idf-00000000000000bb.json",
                    "/b b/regio.idf.json"
                ),
            ]
        );
    }
}
