//! Text put before the first line of an instrumented file: declarations of
//! the probes (so no header has to be found), the IDF registration, and a
//! `#line` that hands line numbering back to the original file.
//!
//! Region ids are unique per IDF only; objects instrumented separately
//! (an application and its libraries, a plugin loaded with `dlopen`) have
//! overlapping ones. So each translation unit keeps a static
//! `regio__base_v` that its constructor sets to the base the runtime hands
//! out for the IDF (`regio_register_object`; the same for every unit of one
//! IDF), and every probe passes `regio__base() + <local id>`. The probes
//! read it through an always-inline function rather than by name: a
//! variable named inside `#pragma omp parallel default(none)` would have to
//! be listed in the user's clauses. Until the constructor has run
//! (a probe called from another object's constructor) the base is
//! `UNREGISTERED_BASE`, a range the analysis reports as unregistered.
//!
//! The probes themselves are always-inline functions of the prelude
//! (`regio__enter`, `regio__exit`, `regio__guard` with the cleanup
//! `regio__leave`): each reads the region's gate byte (`regio_gates`, one
//! byte per local id that the runtime sets while the region is filtered,
//! masked, throttled or `REGIO_DISABLE`d) and calls the runtime only when
//! the region is recorded (`regio_enter_gated`: the runtime does not read
//! the gate again), so a region that is not costs a load and a branch.
//! Ids without a gate (before the constructor ran, local ids from
//! `GATED_LOCAL_IDS` on) have no class byte in the runtime either: they
//! are always recorded. A guard carries its entry's decision to its exit (0: no entry
//! was made), so a gate that flips while the region is open cannot unpair
//! them; an explicit exit is skipped only for `REGIO_GATE_NO_EXIT`, which
//! is set before any frame of the region can exist. Until the constructor
//! has run the gates are the runtime's `regio_no_gates` (all open), so
//! every probe calls the runtime; they are never null, which spares every
//! probe a null test and a branch (XSBench with every gate closed,
//! notes/handoff-h-cost16.md: 1.18x plain instructions with the test,
//! 1.13x without; a `__builtin_expect` that the gate is closed gained
//! 0.1 % more and was left out).

use crate::idf_hash::idf_hash;

/// The per-unit base every probe adds to its local region id.
pub(crate) const BASE: &str = "regio__base()";

/// `regio_idf::rundir::UNREGISTERED_BASE`, the base before registration.
const UNREGISTERED_BASE: u32 = regio_idf::rundir::UNREGISTERED_BASE;

/// Local ids with a gate byte (`regio_idf::rundir::GATED_LOCAL_IDS`); the
/// probes of larger ones call the runtime unconditionally.
const GATED: u32 = regio_idf::rundir::GATED_LOCAL_IDS;

/// A C string literal body for `s` (paths may hold `\` and `"`).
pub(crate) fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Declarations only files with MPI regions need (kept out of other files
/// so their prelude stays short).
const MPI_DECLARATIONS: &str = "#ifndef REGIO_MPI_DECLARED\n\
     #define REGIO_MPI_DECLARED\n\
     #ifdef __cplusplus\n\
     extern \"C\" {\n\
     #endif\n\
     extern void regio_mpi_abort(void);\n\
     extern void regio_mpi_rank(int, int);\n\
     extern void regio_mpi_finalize(void);\n\
     extern void regio_mpi_msg(unsigned int, int, int, int, __UINT64_TYPE__, __INT64_TYPE__, __UINT64_TYPE__, const void *);\n\
     extern void regio_mpi_post(unsigned int, int, int, int, __UINT64_TYPE__, __INT64_TYPE__, __UINT64_TYPE__, __UINT64_TYPE__);\n\
     extern void regio_mpi_reqs(int, const void *, int);\n\
     extern void regio_mpi_done(unsigned int, int, const void *, int, int, const void *);\n\
     extern void regio_mpi_request_free(__UINT64_TYPE__);\n\
     extern void regio_mpi_start(unsigned int, int, const void *, int);\n\
     extern void regio_mpi_coll(unsigned int, int, int, __UINT64_TYPE__, __INT64_TYPE__, const void *, __UINT64_TYPE__, __INT64_TYPE__, const void *, __UINT64_TYPE__);\n\
     extern void regio_mpi_comm_new(__UINT64_TYPE__, __UINT64_TYPE__);\n\
     extern void regio_mpi_comm_made(int, __UINT64_TYPE__, __UINT64_TYPE__, int);\n\
     #ifdef __cplusplus\n\
     }\n\
     #endif\n\
     #endif\n";

/// Declarations of the OpenMP team probes (files with OpenMP regions).
const OMP_DECLARATIONS: &str = "#ifndef REGIO_OMP_DECLARED\n\
     #define REGIO_OMP_DECLARED\n\
     #ifdef __cplusplus\n\
     extern \"C\" {\n\
     #endif\n\
     extern __UINT64_TYPE__ regio_omp_fork(unsigned int);\n\
     extern void regio_omp_begin(__UINT64_TYPE__, unsigned int);\n\
     extern void regio_omp_end(__UINT64_TYPE__, unsigned int);\n\
     extern void regio_omp_join(__UINT64_TYPE__);\n\
     extern void regio_omp_teams_begin(unsigned int);\n\
     extern void regio_omp_teams_end(unsigned int);\n\
     #ifdef __cplusplus\n\
     }\n\
     #endif\n\
     #endif\n";

/// The names [`base_block`] defines. A header's prelude renames each of
/// them to `<name>_<IDF hash>` from its start to its end (`push_macro`,
/// [`header_epilogue`] pops them), so the header's block and the header's
/// probes (which name `regio__base`, `regio__enter`, `regio__exit`,
/// `regio__guard` and `regio__leave`) are the IDF's own, whatever the
/// including unit's base is. A name added to the block must be added
/// here (else a header's block redefines the unit's: a compile error).
const BLOCK_NAMES: [&str; 8] = [
    "regio__base_v",
    "regio__gate_v",
    "regio__base",
    "regio__enter",
    "regio__exit",
    "regio__guard",
    "regio__leave",
    "regio__register_idf",
];

/// The unit's base, gates, gated probe helpers and the constructor that
/// registers the IDF at `idf` (written once, also for headers, where
/// [`BLOCK_NAMES`] are renamed around it).
fn base_block(idf: &str) -> String {
    format!(
        "static unsigned int regio__base_v = {UNREGISTERED_BASE:#x}u;\n\
         static const unsigned char *regio__gate_v = regio_no_gates;\n\
         static __inline__ __attribute__((always_inline, unused)) unsigned int regio__base(void) {{ return regio__base_v; }}\n\
         static __inline__ __attribute__((always_inline, unused)) void regio__enter(unsigned int regio__id) {{ if (regio__id >= {GATED}u || !regio__gate_v[regio__id]) regio_enter_gated(regio__base_v + regio__id); }}\n\
         static __inline__ __attribute__((always_inline, unused)) void regio__exit(unsigned int regio__id) {{ if (regio__id >= {GATED}u || !(regio__gate_v[regio__id] & 1u)) regio_exit(regio__base_v + regio__id); }}\n\
         static __inline__ __attribute__((always_inline, unused)) unsigned int regio__guard(unsigned int regio__id) {{ unsigned int regio__v = regio__base_v + regio__id; if (regio__id < {GATED}u && regio__gate_v[regio__id]) return 0u; regio_enter_gated(regio__v); return regio__v; }}\n\
         static __inline__ __attribute__((always_inline, unused)) void regio__leave(const unsigned int *regio__v) {{ if (*regio__v) regio_guard_exit(regio__v); }}\n\
         static void regio__register_idf(void) __attribute__((constructor));\n\
         static void regio__register_idf(void) {{ regio__base_v = regio_register_object(\"{}\"); regio__gate_v = regio_gates(regio__base_v); }}\n",
        c_string(idf)
    )
}

/// What follows a header's last line: the names its prelude renamed get
/// back what they meant before the header (the including unit's block,
/// an enclosing header's, or nothing).
pub(crate) fn header_epilogue() -> String {
    BLOCK_NAMES
        .iter()
        .map(|name| format!("#pragma pop_macro(\"{name}\")\n"))
        .collect()
}

/// [`BLOCK_NAMES`] renamed after `idf` (pushed first) and the base block
/// under those names, once per unit and IDF.
fn renamed_block(idf: &str) -> String {
    let h = idf_hash(idf);
    let mut p = String::new();
    for name in BLOCK_NAMES {
        p.push_str(&format!(
            "#pragma push_macro(\"{name}\")\n#undef {name}\n#define {name} {name}_{h}\n"
        ));
    }
    p.push_str(&format!("#ifndef REGIO_IDF_{h}\n#define REGIO_IDF_{h}\n"));
    p.push_str(&base_block(idf));
    p.push_str("#endif\n");
    p
}

/// The macro a `.c` file's prelude defines when the file is included by
/// another instrumented `.c` file (and renamed its names): one per file
/// and IDF, so nested inclusions of different files pop their own.
fn included_marker(display_path: &str, idf: &str) -> String {
    format!(
        "REGIO_INCLUDED_{}",
        idf_hash(&format!("{idf}\n{display_path}"))
    )
}

/// What follows a `.c` file's last line: if its prelude took the included
/// branch, the renamed names get back what they meant in the includer.
/// (Nothing happens when the file is its own unit.)
pub(crate) fn included_c_epilogue(display_path: &str, idf: &str) -> String {
    let marker = included_marker(display_path, idf);
    format!(
        "#ifdef {marker}\n#undef {marker}\n{}#endif\n",
        header_epilogue()
    )
}

/// The prelude. `idf` is the IDF path the unit registers at load time;
/// `header`: the file is included by other files, maybe of other trees,
/// so it brings its own base (see [`BLOCK_NAMES`]; it ends with
/// [`header_epilogue`]); `mpi` adds what MPI call regions use.
pub(crate) fn prelude(display_path: &str, idf: &str, header: bool, mpi: bool, omp: bool) -> String {
    let mut p = String::from(
        "#ifndef REGIO_PROBES_DECLARED\n\
         #define REGIO_PROBES_DECLARED\n\
         #ifdef __cplusplus\n\
         extern \"C\" {\n\
         #endif\n\
         extern void regio_enter(unsigned int);\n\
         extern void regio_enter_gated(unsigned int);\n\
         extern void regio_exit(unsigned int);\n\
         extern void regio_guard_exit(const unsigned int *);\n\
         extern unsigned int regio_scope_open(void);\n\
         extern void regio_scope_close(const unsigned int *);\n\
         extern void regio_disable(void);\n\
         extern void regio_enable(void);\n\
         extern unsigned int regio_register_object(const char *);\n\
         extern const unsigned char *regio_gates(unsigned int);\n\
         extern const unsigned char regio_no_gates[];\n\
         #ifdef __cplusplus\n\
         }\n\
         #endif\n\
         #endif\n",
    );
    if mpi {
        p.push_str(MPI_DECLARATIONS);
    }
    if omp {
        p.push_str(OMP_DECLARATIONS);
    }
    if header {
        // A header's probes use the base of the IDF the header was
        // instrumented with, also when a unit of another tree (or an
        // uninstrumented one) includes it: its own copy of the base block,
        // every name renamed after the IDF until the header's end.
        p.push_str(&renamed_block(idf));
    } else {
        // The unit's own base block, under the plain names. A `.c` file
        // included by another instrumented `.c` file (an amalgamation, a
        // unity build, `#include "other.c"`, maybe of another tree) finds
        // REGIO_IDF_REGISTERED defined and does what a header does: its
        // names renamed after its IDF until its end, where
        // [`included_c_epilogue`] pops them if this branch was taken.
        p.push_str("#ifndef REGIO_IDF_REGISTERED\n#define REGIO_IDF_REGISTERED\n");
        p.push_str(&base_block(idf));
        p.push_str("#else\n");
        p.push_str(&format!("#define {}\n", included_marker(display_path, idf)));
        p.push_str(&renamed_block(idf));
        p.push_str("#endif\n");
    }
    p.push_str(&format!("#line 1 \"{}\"\n", c_string(display_path)));
    p
}
