//! Text put before the first line of an instrumented file: declarations of
//! the probes (so no header has to be found), the IDF registration, and a
//! `#line` that hands line numbering back to the original file.

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

/// The prelude. `register_idf` is the IDF path to register at start-up
/// (only in `.c` files that have regions: a header's copy would be
/// compiled into every file that includes it); `mpi` adds what MPI call
/// regions use.
pub(crate) fn prelude(
    display_path: &str,
    register_idf: Option<&str>,
    mpi: bool,
    omp: bool,
) -> String {
    let mut p = String::from(
        "#ifndef REGIO_PROBES_DECLARED\n\
         #define REGIO_PROBES_DECLARED\n\
         #ifdef __cplusplus\n\
         extern \"C\" {\n\
         #endif\n\
         extern void regio_enter(unsigned int);\n\
         extern void regio_exit(unsigned int);\n\
         extern void regio_guard_exit(const unsigned int *);\n\
         extern unsigned int regio_scope_open(void);\n\
         extern void regio_scope_close(const unsigned int *);\n\
         extern void regio_disable(void);\n\
         extern void regio_enable(void);\n\
         extern void regio_register_idf(const char *);\n\
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
    if let Some(idf) = register_idf {
        // One registration per translation unit, also when a .c file
        // includes another instrumented .c file.
        p.push_str(&format!(
            "#ifndef REGIO_IDF_REGISTERED\n\
             #define REGIO_IDF_REGISTERED\n\
             static void regio__register_idf(void) __attribute__((constructor));\n\
             static void regio__register_idf(void) {{ regio_register_idf(\"{}\"); }}\n\
             #endif\n",
            c_string(idf)
        ));
    }
    p.push_str(&format!("#line 1 \"{}\"\n", c_string(display_path)));
    p
}
