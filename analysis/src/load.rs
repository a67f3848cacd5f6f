//! Reading a run directory: every per-process profile, and the IDF that
//! names the regions.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use regio_idf::rundir::{
    Profile, ProfileError, RegionDescriptor, FIRST_DESCRIPTOR_ID, PROFILE_FORMAT, PROFILE_PREFIX,
    PROFILE_SUFFIX,
};
use regio_idf::{Idf, IDF_FILE_NAME};
use serde::Deserialize;

use crate::objects::{self, ObjectIds};
use crate::AnalysisError;

/// One run directory as read from disk.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub path: PathBuf,
    /// Sorted by (rank, pid).
    pub profiles: Vec<Profile>,
    /// Region table of instrumented C/Fortran code, if one was found.
    pub idf: Option<Idf>,
    /// Where `idf` was read from.
    pub idf_path: Option<PathBuf>,
    /// Per process (rank, pid): the descriptor ids it wrote, mapped to the
    /// ids the profiles were renumbered to (traces carry the written ones).
    pub descriptor_ids: BTreeMap<(u32, u32), HashMap<u32, u32>>,
    /// Per process (rank, pid): how the ids of instrumented objects it
    /// wrote (`base + local id`) map to the ids of `idf`, which joins every
    /// IDF of the run (empty for runs whose profiles list no bases).
    pub object_ids: BTreeMap<(u32, u32), ObjectIds>,
    /// Processes (rank, pid) whose files were left out: started by
    /// `MPI_Comm_spawn`, another `MPI_COMM_WORLD` (`spawned.rs`).
    pub spawned: BTreeSet<(u32, u32)>,
}

/// Reads every `profile-*.json` in `path` and the IDF: `idf_override`, else
/// `<path>/regio.idf.json`, else the IDF a profile names (if it still exists).
/// When the profiles list several IDFs (instrumented objects with bases),
/// every one is read and joined, and the profiles' ids renumbered to match
/// (`objects.rs`).
pub fn load_run(path: &Path, idf_override: Option<&Path>) -> Result<RunDir, AnalysisError> {
    let mut files = profile_files(path)?;
    if files.is_empty() {
        return Err(AnalysisError::NoProfiles {
            path: path.display().to_string(),
        });
    }
    files.sort();
    let mut profiles = Vec::with_capacity(files.len());
    for file in &files {
        profiles.push(read_profile(file)?);
    }
    profiles.sort_by_key(|p| (p.rank, p.pid));
    let spawned = crate::spawned::left_out(path, profiles.iter().map(|p| (p.rank, p.pid)));
    profiles.retain(|p| !spawned.contains(&(p.rank, p.pid)));
    let descriptor_ids = unify_descriptor_ids(&mut profiles);

    if objects::has_objects(&profiles) {
        let joined = objects::join(path, &mut profiles, idf_override)?;
        return Ok(RunDir {
            path: path.to_path_buf(),
            profiles,
            idf: joined.idf,
            idf_path: joined.idf_path,
            descriptor_ids,
            object_ids: joined.ids,
            spawned,
        });
    }
    let idf_path = match idf_override {
        Some(p) => Some(p.to_path_buf()),
        None => {
            let local = path.join(IDF_FILE_NAME);
            if local.is_file() {
                Some(local)
            } else {
                profiles
                    .iter()
                    .filter_map(|p| p.idf.as_deref())
                    .map(PathBuf::from)
                    .find(|p| p.is_file())
            }
        }
    };
    let idf = match &idf_path {
        Some(p) => Some(Idf::read(p)?),
        None => None,
    };
    Ok(RunDir {
        path: path.to_path_buf(),
        profiles,
        idf,
        idf_path,
        descriptor_ids,
        object_ids: BTreeMap::new(),
        spawned,
    })
}

/// Rust region descriptors get their ids in the order each process first
/// entered them, so the same region may carry different ids in different
/// processes (and one id different regions). Renumber them by content,
/// identically in every process, so the merge can key nodes by id.
/// Returns each process's renumbering.
fn unify_descriptor_ids(profiles: &mut [Profile]) -> BTreeMap<(u32, u32), HashMap<u32, u32>> {
    type Key = (String, String, String, u32, u32, String);
    let key = |d: &RegionDescriptor| -> Key {
        (
            d.module.clone(),
            d.file.clone(),
            d.name.clone(),
            d.line,
            d.column,
            d.kind.clone(),
        )
    };
    let all: BTreeSet<Key> = profiles
        .iter()
        .flat_map(|p| p.regions.iter().map(key))
        .collect();
    let canonical: HashMap<Key, u32> = all
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, FIRST_DESCRIPTOR_ID.saturating_add(i as u32)))
        .collect();
    let mut all_remaps = BTreeMap::new();
    for p in profiles {
        let mut remap = HashMap::new();
        for d in &mut p.regions {
            if let Some(&id) = canonical.get(&key(d)) {
                remap.insert(d.id, id);
                d.id = id;
            }
        }
        if remap.is_empty() {
            continue;
        }
        for t in &mut p.threads {
            for n in &mut t.nodes {
                if let Some(&id) = remap.get(&n.region) {
                    n.region = id;
                }
            }
        }
        all_remaps.insert((p.rank, p.pid), remap);
    }
    all_remaps
}

fn profile_files(dir: &Path) -> Result<Vec<PathBuf>, AnalysisError> {
    let io = |source| AnalysisError::Io {
        path: dir.display().to_string(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(PROFILE_PREFIX)
            && name.ends_with(PROFILE_SUFFIX)
            && entry.path().is_file()
        {
            files.push(entry.path());
        }
    }
    Ok(files)
}

/// Just enough of a profile to tell a file of another format or version from
/// a broken one.
#[derive(Deserialize)]
struct FormatProbe {
    format: String,
    version: u32,
}

fn read_profile(file: &Path) -> Result<Profile, AnalysisError> {
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|source| AnalysisError::Io {
        path: shown.clone(),
        source,
    })?;
    let profile = match Profile::from_json(&shown, &text) {
        Ok(p) => p,
        // A newer format may have changed any field: name the version rather
        // than the first field this build does not understand.
        Err(e @ ProfileError::Json { .. }) => match serde_json::from_str::<FormatProbe>(&text) {
            Ok(probe)
                if probe.format != PROFILE_FORMAT
                    || !regio_idf::rundir::reads_version(probe.version) =>
            {
                return Err(ProfileError::Version {
                    path: shown,
                    format: probe.format,
                    version: probe.version,
                }
                .into())
            }
            _ => return Err(e.into()),
        },
        Err(e) => return Err(e.into()),
    };
    check_structure(&shown, &profile)?;
    Ok(profile)
}

/// The merge relies on node `i` being at index `i`, on parents preceding
/// their children (the runtime writes nodes in creation order) and on node
/// counters having one value per available counter.
fn check_structure(path: &str, p: &Profile) -> Result<(), AnalysisError> {
    let bad = |message: String| AnalysisError::Malformed {
        path: path.to_string(),
        message,
    };
    let counters = p.available_counters().len();
    let mut seen = HashSet::new();
    for t in &p.threads {
        if !seen.insert(t.thread) {
            return Err(bad(format!("thread {} appears more than once", t.thread)));
        }
        for (i, n) in t.nodes.iter().enumerate() {
            if n.id as usize != i {
                return Err(bad(format!(
                    "thread {}: node at position {i} has id {}",
                    t.thread, n.id
                )));
            }
            if let Some(v) = &n.counters {
                if v.len() != counters {
                    return Err(bad(format!(
                        "thread {}: node {} has {} counter values for {counters} available counter(s)",
                        t.thread,
                        n.id,
                        v.len()
                    )));
                }
            }
            if let Some(parent) = n.parent {
                if parent >= n.id {
                    return Err(bad(format!(
                        "thread {}: node {} has parent {parent}, which does not precede it",
                        t.thread, n.id
                    )));
                }
            }
        }
    }
    Ok(())
}
