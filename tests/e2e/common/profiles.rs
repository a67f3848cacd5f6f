//! The per-process profiles of a run directory, read through
//! `regio_idf::rundir`: the one place that knows their format (node rows
//! since version 2, node objects before), so no test parses it by hand.

use std::path::{Path, PathBuf};

use regio_idf::rundir::{
    NodeRecord, Profile, ThreadProfile, OBJECT_ID_STRIDE, PROFILE_PREFIX, PROFILE_SUFFIX,
};

/// Paths of the `profile-*.json` files in `run_dir`, sorted (none when the
/// directory does not exist yet).
pub fn paths(run_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(run_dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with(PROFILE_PREFIX) && name.ends_with(PROFILE_SUFFIX)
        })
        .collect();
    out.sort();
    out
}

/// One profile file, parsed and checked like the analysis reads it;
/// panics with the file's name (and its text, for a parse error).
pub fn read(path: &Path) -> Profile {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Profile::from_json(&path.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Every profile of `run_dir`, in file name order.
pub fn read_all(run_dir: &Path) -> Vec<Profile> {
    paths(run_dir).iter().map(|p| read(p)).collect()
}

/// The profile of a one-process run, if written yet; more than one is an
/// error.
pub fn only(run_dir: &Path) -> Option<Profile> {
    let found = paths(run_dir);
    assert!(found.len() <= 1, "one process, one profile: {found:?}");
    found.first().map(|p| read(p))
}

/// Every node of every thread of `profiles`, with its thread and profile.
pub fn nodes(
    profiles: &[Profile],
) -> impl Iterator<Item = (&Profile, &ThreadProfile, &NodeRecord)> + '_ {
    profiles
        .iter()
        .flat_map(|p| p.threads.iter().map(move |t| (p, t)))
        .flat_map(|(p, t)| t.nodes.iter().map(move |n| (p, t, n)))
}

/// A node's region as its id in its IDF: C probes write `base + id` (the
/// base their object got when it registered).
pub fn local_id(n: &NodeRecord) -> u32 {
    n.region % OBJECT_ID_STRIDE
}
