//! The one name an IDF path gets in instrumented code: the FNV-1a hash of
//! the path, 16 hex digits. Fortran names the COMMON block of the IDF's
//! base after it, C names a header's own base and probe helpers after it,
//! and the runtime names its copy of the IDF in the run directory
//! (`regio.idf-<hash>.json`) with the same hash.

/// FNV-1a (64 bit) of `idf_path`, as 16 lower-case hex digits.
pub(crate) fn idf_hash(idf_path: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in idf_path.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}
