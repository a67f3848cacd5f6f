//! The IDF that the separate compile commands of one build share
//! (`instrument wrap`): each command instruments its sources with ids from
//! this file and merges its regions back, so ids are unique across every
//! object of the build and the program registers one IDF that describes all
//! of them.
//!
//! Only the bookkeeping lives here (pure functions on an [`Idf`]); the
//! caller holds a lock around read, allocate, instrument, merge and write.

use regio_idf::idf::FORMAT_VERSION;
use regio_idf::rundir::OBJECT_ID_STRIDE;
use regio_idf::{Header, Idf, Region, SourceFile};

/// Every local id of one IDF must stay below this: the runtime adds each
/// IDF's base in steps of it (`regio_register_object`), so a larger id
/// would be read as a region of the next object.
pub const LOCAL_ID_LIMIT: u32 = OBJECT_ID_STRIDE;

/// An IDF whose ids reach the limit: the message names the IDF, its region
/// count and its largest id. `instrument wrap` fails the command on it
/// (where other instrumentation errors compile the source as written: an
/// IDF past the limit would stay so for every later command of the build).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct IdLimitError(pub String);

/// The error for an IDF (written to `idf_path`) whose ids reach `limit`.
/// Tree mode and `instrument wrap` check before they write anything.
pub fn check_id_limit(idf: &Idf, idf_path: &str, limit: u32) -> Result<(), IdLimitError> {
    let Some(largest) = idf.regions.iter().map(|r| r.id).max() else {
        return Ok(());
    };
    if largest < limit {
        return Ok(());
    }
    Err(IdLimitError(format!(
        "{idf_path}: error: {} regions need ids up to {largest}, but the ids of one IDF must stay \
         below {limit} (the runtime gives each IDF a base in steps of {limit}); \
         instrument the sources in parts, each with its own IDF (separate trees or build directories)",
        idf.regions.len()
    )))
}

/// An IDF without files or regions, the start of a build.
pub fn empty() -> Idf {
    Idf {
        header: Header {
            format_version: FORMAT_VERSION,
            tool: "instrument".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            options: Default::default(),
            files: Vec::new(),
        },
        regions: Vec::new(),
    }
}

/// The first id after every id of a file other than `file`.
pub fn next_free_id(idf: &Idf, file: &str) -> u32 {
    idf.regions
        .iter()
        .filter(|r| r.file != file)
        .map(|r| r.id + 1)
        .max()
        .unwrap_or(1)
}

/// Where a (re)compiled `file` should try to put its regions: the first id
/// it had, so objects compiled earlier keep matching, else the next free one.
pub fn first_id_for(idf: &Idf, file: &str) -> u32 {
    idf.regions
        .iter()
        .filter(|r| r.file == file)
        .map(|r| r.id)
        .min()
        .unwrap_or_else(|| next_free_id(idf, file))
}

/// Whether ids `first..first + count` are free of other files' regions.
pub fn fits(idf: &Idf, file: &str, first: u32, count: usize) -> bool {
    let end = u64::from(first) + count as u64;
    !idf.regions
        .iter()
        .any(|r| r.file != file && u64::from(r.id) >= u64::from(first) && u64::from(r.id) < end)
}

/// Replaces everything `file.path` had with `regions`; files are kept in
/// path order and regions in id order, so the document does not depend on
/// the order of compilation.
pub fn merge(idf: &mut Idf, file: SourceFile, regions: Vec<Region>) {
    let path = file.path.clone();
    idf.header.files.retain(|f| f.path != path);
    idf.regions.retain(|r| r.file != path);
    idf.header.files.push(file);
    idf.header.files.sort_by(|a, b| a.path.cmp(&b.path));
    idf.regions.extend(regions);
    idf.regions.sort_by_key(|r| r.id);
}

#[cfg(test)]
mod tests {
    use super::*;
    use regio_idf::{Pos, RegionKind};

    fn file(path: &str) -> SourceFile {
        SourceFile {
            path: path.into(),
            original: path.into(),
            hash: "sha256:0".into(),
            lines: 10,
            max_line_len: 10,
        }
    }

    fn regions(path: &str, first: u32, n: u32) -> Vec<Region> {
        (first..first + n)
            .map(|id| Region {
                id,
                kind: RegionKind::Function,
                name: format!("f{id}"),
                file: path.into(),
                unit: format!("f{id}"),
                start: Pos::new(1, 1),
                end: Pos::new(2, 1),
                parent: None,
                aux: Default::default(),
            })
            .collect()
    }

    #[test]
    fn ids_at_or_above_the_limit_are_refused_naming_the_idf_and_the_count() {
        let mut idf = empty();
        assert!(check_id_limit(&idf, "b/regio.idf.json", 4).is_ok());
        merge(&mut idf, file("a.c"), regions("a.c", 1, 3));
        assert!(check_id_limit(&idf, "b/regio.idf.json", 4).is_ok());
        merge(&mut idf, file("b.c"), regions("b.c", 4, 2));
        let err = check_id_limit(&idf, "b/regio.idf.json", 4)
            .expect_err("ids 4 and 5")
            .0;
        assert!(
            err.starts_with("b/regio.idf.json: error: 5 regions need ids up to 5"),
            "{err}"
        );
        assert!(err.contains("below 4"), "{err}");
        // The real limit, with a synthetic IDF whose last id is on it.
        let mut big = empty();
        merge(&mut big, file("a.c"), regions("a.c", LOCAL_ID_LIMIT - 1, 1));
        assert!(check_id_limit(&big, "i", LOCAL_ID_LIMIT).is_ok());
        merge(&mut big, file("b.c"), regions("b.c", LOCAL_ID_LIMIT, 1));
        let err = check_id_limit(&big, "i", LOCAL_ID_LIMIT)
            .expect_err("2^22")
            .0;
        assert!(err.contains("2 regions need ids up to 4194304"), "{err}");
    }

    #[test]
    fn files_get_consecutive_ranges_and_keep_them_when_recompiled() {
        let mut idf = empty();
        assert_eq!(first_id_for(&idf, "a.c"), 1);
        merge(&mut idf, file("a.c"), regions("a.c", 1, 3));
        assert_eq!(first_id_for(&idf, "b.c"), 4);
        merge(&mut idf, file("b.c"), regions("b.c", 4, 2));
        // a.c recompiled with fewer regions keeps its place.
        assert_eq!(first_id_for(&idf, "a.c"), 1);
        assert!(fits(&idf, "a.c", 1, 2));
        merge(&mut idf, file("a.c"), regions("a.c", 1, 2));
        // One more than it had: ids 1..5 would take b.c's 4.
        assert!(!fits(&idf, "a.c", 1, 4));
        assert_eq!(next_free_id(&idf, "a.c"), 6);
        merge(&mut idf, file("a.c"), regions("a.c", 6, 4));
        // b.c may grow into the hole a.c left, not into a.c's new range.
        assert!(fits(&idf, "b.c", 4, 2));
        assert!(!fits(&idf, "b.c", 4, 3));
        let files: Vec<_> = idf.header.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(files, ["a.c", "b.c"]);
        let ids: Vec<_> = idf.regions.iter().map(|r| r.id).collect();
        assert_eq!(ids, [4, 5, 6, 7, 8, 9]);
        assert!(idf.validate().is_ok());
    }
}
