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

use regio_idf::rundir::{Profile, FIRST_DESCRIPTOR_ID, OBJECT_ID_STRIDE};
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
    // Copy name -> path registered, over every process.
    let mut copies: BTreeMap<String, String> = BTreeMap::new();
    for p in profiles.iter() {
        for o in &p.idfs {
            copies
                .entry(o.copy.clone())
                .or_insert_with(|| o.path.clone());
        }
    }
    let first_registered = profiles
        .iter()
        .find_map(|p| p.idfs.first())
        .map(|o| o.copy.clone());

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

    let mut ids = BTreeMap::new();
    for p in profiles.iter_mut() {
        let map = ObjectIds {
            offsets: p
                .idfs
                .iter()
                .filter_map(|o| offsets.get(&o.copy).map(|&off| (o.base, off)))
                .collect(),
        };
        for t in &mut p.threads {
            for n in &mut t.nodes {
                n.region = map.map(n.region);
            }
        }
        ids.insert((p.rank, p.pid), map);
    }
    Ok(Joined {
        idf: joined,
        idf_path,
        ids,
    })
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
}
