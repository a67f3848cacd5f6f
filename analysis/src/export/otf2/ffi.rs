//! The few functions of the OTF2 reference library the exporter calls,
//! declared by hand and resolved with `dlopen` when an export runs: the
//! workspace builds and every other command works on a machine without
//! the library, and only `export --format otf2` says what to install.
//! Signatures and constants are those of OTF2 3.x (`/usr/include/otf2`),
//! whose ABI is stable across the 2.x/3.x `.so` versions tried below.

use std::ffi::{c_char, c_void, CStr, CString};

pub type ErrorCode = i32;
pub type TimeStamp = u64;
pub type StringRef = u32;
pub type Ref32 = u32;
pub type LocationRef = u64;

#[repr(C)]
pub struct Archive {
    _p: [u8; 0],
}
#[repr(C)]
pub struct EvtWriter {
    _p: [u8; 0],
}
#[repr(C)]
pub struct DefWriter {
    _p: [u8; 0],
}
#[repr(C)]
pub struct GlobalDefWriter {
    _p: [u8; 0],
}

type PreFlush = extern "C" fn(*mut c_void, u8, LocationRef, *mut c_void, bool) -> u8;
type PostFlush = extern "C" fn(*mut c_void, u8, LocationRef) -> TimeStamp;

#[repr(C)]
pub struct FlushCallbacks {
    pub pre_flush: PreFlush,
    pub post_flush: PostFlush,
}

pub extern "C" fn pre_flush(_: *mut c_void, _: u8, _: LocationRef, _: *mut c_void, _: bool) -> u8 {
    FLUSH
}

pub extern "C" fn post_flush(_: *mut c_void, _: u8, _: LocationRef) -> TimeStamp {
    0
}

pub const SUCCESS: ErrorCode = 0;
pub const FILEMODE_WRITE: u8 = 0;
pub const SUBSTRATE_POSIX: u8 = 1;
pub const COMPRESSION_NONE: u8 = 1;
pub const FLUSH: u8 = 1;
pub const UNDEFINED_U32: u32 = u32::MAX;
pub const UNDEFINED_TIMESTAMP: u64 = u64::MAX;
/// `OTF2_COLLECTIVE_ROOT_SELF`: this process passed `MPI_ROOT` (an
/// intercommunicator's rooted collective).
pub const COLLECTIVE_ROOT_SELF: u32 = u32::MAX - 1;
/// `OTF2_COLLECTIVE_ROOT_THIS_GROUP`: the root is in this process's group
/// of the intercommunicator (it passed `MPI_PROC_NULL`).
pub const COLLECTIVE_ROOT_THIS_GROUP: u32 = u32::MAX - 2;

pub mod role {
    pub const UNKNOWN: u8 = 0;
    pub const FUNCTION: u8 = 1;
    pub const LOOP: u8 = 3;
    pub const CODE: u8 = 4;
    pub const PARALLEL: u8 = 5;
    pub const SECTIONS: u8 = 6;
    pub const WORKSHARE: u8 = 8;
    pub const SINGLE: u8 = 9;
    pub const MASTER: u8 = 11;
    pub const CRITICAL: u8 = 12;
    pub const ATOMIC: u8 = 14;
    pub const BARRIER: u8 = 15;
    pub const TASK: u8 = 20;
    pub const COLL_ALL2ALL: u8 = 25;
    pub const FILE_IO: u8 = 27;
    pub const POINT2POINT: u8 = 28;
}

pub mod paradigm {
    pub const USER: u8 = 1;
    pub const COMPILER: u8 = 2;
    pub const OPENMP: u8 = 3;
    pub const MPI: u8 = 4;
}

pub const LOCATION_GROUP_PROCESS: u8 = 1;
pub const LOCATION_CPU_THREAD: u8 = 1;
pub const GROUP_COMM_LOCATIONS: u8 = 4;
pub const GROUP_COMM_GROUP: u8 = 5;
pub const METRIC_TYPE_USER: u8 = 3;
pub const METRIC_ABSOLUTE_POINT: u8 = 17;
pub const TYPE_DOUBLE: u8 = 10;
pub const BASE_DECIMAL: u8 = 1;
pub const METRIC_ASYNCHRONOUS: u8 = 2;
pub const RECORDER_ABSTRACT: u8 = 1;

/// Library names tried in order: the runtime package's soname, then the
/// development symlink.
const NAMES: &[&str] = &[
    "libopen-trace-format2.so.10",
    "libopen-trace-format2.so.9",
    "libopen-trace-format2.so",
];

macro_rules! otf2_api {
    ($( $field:ident = $sym:literal : fn($($arg:ty),*) -> $ret:ty; )*
     @optional { $( $ofield:ident = $osym:literal : fn($($oarg:ty),*) -> $oret:ty; )* }) => {
        /// Entry points of a loaded OTF2 library; the optional ones are
        /// those of OTF2 versions newer than the oldest the exporter takes
        /// (None: the exporter falls back to what older versions have).
        pub struct Lib {
            _handle: *mut c_void,
            $( pub $field: unsafe extern "C" fn($($arg),*) -> $ret, )*
            $( pub $ofield: Option<unsafe extern "C" fn($($oarg),*) -> $oret>, )*
        }

        impl Lib {
            /// Loads the library, or says what to install.
            pub fn load() -> Result<Lib, String> {
                Lib::load_from(NAMES)
            }

            /// Loads the first of `names` that `dlopen` finds.
            pub fn load_from(names: &[&str]) -> Result<Lib, String> {
                let mut tried = Vec::new();
                for name in names {
                    let c = CString::new(*name).map_err(|e| e.to_string())?;
                    // SAFETY: dlopen with a valid C string; the handle is
                    // kept for the life of `Lib` and never closed, so the
                    // function pointers stay valid.
                    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
                    if handle.is_null() {
                        tried.push(format!("{name}: {}", dl_error()));
                        continue;
                    }
                    return Ok(Lib {
                        _handle: handle,
                        $( $field: {
                            let s = sym(handle, $sym)?;
                            // SAFETY: the symbol is the OTF2 function of
                            // this name, declared with the signature of the
                            // library's header.
                            unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) -> $ret>(s) }
                        }, )*
                        $( $ofield: sym(handle, $osym).ok().map(|s| {
                            // SAFETY: as above, for a symbol the library has.
                            unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($oarg),*) -> $oret>(s) }
                        }), )*
                    });
                }
                Err(format!(
                    "OTF2 export needs the OTF2 library (Debian/Ubuntu: apt-get install libopen-trace-format2-dev; elsewhere OTF2 from https://www.vi-hps.org/projects/score-p); none could be loaded: {}",
                    tried.join("; ")
                ))
            }
        }
    };
}

fn dl_error() -> String {
    // SAFETY: dlerror returns null or a C string valid until the next dl call.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: non-null, NUL-terminated (see above).
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

fn sym(handle: *mut c_void, name: &str) -> Result<*mut c_void, String> {
    let c = CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: valid handle from dlopen and a valid C string.
    let p = unsafe { libc::dlsym(handle, c.as_ptr()) };
    if p.is_null() {
        Err(format!(
            "the OTF2 library lacks {name} ({}): OTF2 2.0 or later is needed",
            dl_error()
        ))
    } else {
        Ok(p)
    }
}

type A = *mut Archive;
type E = *mut EvtWriter;
type G = *mut GlobalDefWriter;
type N = *mut c_void;

otf2_api! {
    archive_open = "OTF2_Archive_Open": fn(*const c_char, *const c_char, u8, u64, u64, u8, u8) -> A;
    archive_close = "OTF2_Archive_Close": fn(A) -> ErrorCode;
    set_flush_callbacks = "OTF2_Archive_SetFlushCallbacks": fn(A, *const FlushCallbacks, N) -> ErrorCode;
    set_serial_collective_callbacks = "OTF2_Archive_SetSerialCollectiveCallbacks": fn(A) -> ErrorCode;
    open_evt_files = "OTF2_Archive_OpenEvtFiles": fn(A) -> ErrorCode;
    close_evt_files = "OTF2_Archive_CloseEvtFiles": fn(A) -> ErrorCode;
    get_evt_writer = "OTF2_Archive_GetEvtWriter": fn(A, LocationRef) -> E;
    close_evt_writer = "OTF2_Archive_CloseEvtWriter": fn(A, E) -> ErrorCode;
    open_def_files = "OTF2_Archive_OpenDefFiles": fn(A) -> ErrorCode;
    close_def_files = "OTF2_Archive_CloseDefFiles": fn(A) -> ErrorCode;
    get_def_writer = "OTF2_Archive_GetDefWriter": fn(A, LocationRef) -> *mut DefWriter;
    close_def_writer = "OTF2_Archive_CloseDefWriter": fn(A, *mut DefWriter) -> ErrorCode;
    get_global_def_writer = "OTF2_Archive_GetGlobalDefWriter": fn(A) -> G;
    error_name = "OTF2_Error_GetName": fn(ErrorCode) -> *const c_char;

    def_clock_properties = "OTF2_GlobalDefWriter_WriteClockProperties": fn(G, u64, u64, u64, u64) -> ErrorCode;
    def_string = "OTF2_GlobalDefWriter_WriteString": fn(G, StringRef, *const c_char) -> ErrorCode;
    def_region = "OTF2_GlobalDefWriter_WriteRegion": fn(G, Ref32, StringRef, StringRef, StringRef, u8, u8, u32, StringRef, u32, u32) -> ErrorCode;
    def_system_tree_node = "OTF2_GlobalDefWriter_WriteSystemTreeNode": fn(G, Ref32, StringRef, StringRef, Ref32) -> ErrorCode;
    def_location_group = "OTF2_GlobalDefWriter_WriteLocationGroup": fn(G, Ref32, StringRef, u8, Ref32, Ref32) -> ErrorCode;
    def_location = "OTF2_GlobalDefWriter_WriteLocation": fn(G, LocationRef, StringRef, u8, u64, Ref32) -> ErrorCode;
    def_group = "OTF2_GlobalDefWriter_WriteGroup": fn(G, Ref32, StringRef, u8, u8, u32, u32, *const u64) -> ErrorCode;
    def_comm = "OTF2_GlobalDefWriter_WriteComm": fn(G, Ref32, StringRef, Ref32, Ref32, u32) -> ErrorCode;
    def_metric_member = "OTF2_GlobalDefWriter_WriteMetricMember": fn(G, Ref32, StringRef, StringRef, u8, u8, u8, u8, i64, StringRef) -> ErrorCode;
    def_metric_class = "OTF2_GlobalDefWriter_WriteMetricClass": fn(G, Ref32, u8, *const u32, u8, u8) -> ErrorCode;

    enter = "OTF2_EvtWriter_Enter": fn(E, N, TimeStamp, Ref32) -> ErrorCode;
    leave = "OTF2_EvtWriter_Leave": fn(E, N, TimeStamp, Ref32) -> ErrorCode;
    mpi_send = "OTF2_EvtWriter_MpiSend": fn(E, N, TimeStamp, u32, Ref32, u32, u64) -> ErrorCode;
    mpi_recv = "OTF2_EvtWriter_MpiRecv": fn(E, N, TimeStamp, u32, Ref32, u32, u64) -> ErrorCode;
    mpi_isend = "OTF2_EvtWriter_MpiIsend": fn(E, N, TimeStamp, u32, Ref32, u32, u64, u64) -> ErrorCode;
    mpi_isend_complete = "OTF2_EvtWriter_MpiIsendComplete": fn(E, N, TimeStamp, u64) -> ErrorCode;
    mpi_irecv_request = "OTF2_EvtWriter_MpiIrecvRequest": fn(E, N, TimeStamp, u64) -> ErrorCode;
    mpi_irecv = "OTF2_EvtWriter_MpiIrecv": fn(E, N, TimeStamp, u32, Ref32, u32, u64, u64) -> ErrorCode;
    mpi_collective_begin = "OTF2_EvtWriter_MpiCollectiveBegin": fn(E, N, TimeStamp) -> ErrorCode;
    mpi_collective_end = "OTF2_EvtWriter_MpiCollectiveEnd": fn(E, N, TimeStamp, u8, Ref32, u32, u64, u64) -> ErrorCode;
    metric = "OTF2_EvtWriter_Metric": fn(E, N, TimeStamp, Ref32, u8, *const u8, *const f64) -> ErrorCode;
    buffer_flush = "OTF2_EvtWriter_BufferFlush": fn(E, N, TimeStamp, TimeStamp) -> ErrorCode;
    thread_fork = "OTF2_EvtWriter_ThreadFork": fn(E, N, TimeStamp, u8, u32) -> ErrorCode;
    thread_join = "OTF2_EvtWriter_ThreadJoin": fn(E, N, TimeStamp, u8) -> ErrorCode;
    thread_team_begin = "OTF2_EvtWriter_ThreadTeamBegin": fn(E, N, TimeStamp, Ref32) -> ErrorCode;
    thread_team_end = "OTF2_EvtWriter_ThreadTeamEnd": fn(E, N, TimeStamp, Ref32) -> ErrorCode;
    @optional {
        // Since OTF2 3.0: self, name, groupA, groupB, commonCommunicator, flags.
        def_inter_comm = "OTF2_GlobalDefWriter_WriteInterComm": fn(G, Ref32, StringRef, Ref32, Ref32, Ref32, u32) -> ErrorCode;
    }
}

impl Lib {
    /// `OTF2_SUCCESS` or an error naming the call and OTF2's error.
    pub fn check(&self, what: &str, code: ErrorCode) -> Result<(), String> {
        if code == SUCCESS {
            return Ok(());
        }
        // SAFETY: OTF2_Error_GetName returns a static C string.
        let name = unsafe { (self.error_name)(code) };
        let name = if name.is_null() {
            format!("error {code}")
        } else {
            // SAFETY: non-null static NUL-terminated string.
            unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned()
        };
        Err(format!("OTF2 {what} failed: {name}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_names_the_package_to_install() {
        let e = match Lib::load_from(&["libregio-no-such-otf2.so.0"]) {
            Ok(_) => panic!("loaded a library that does not exist"),
            Err(e) => e,
        };
        assert!(
            e.contains("apt-get install libopen-trace-format2-dev"),
            "{e}"
        );
        assert!(e.contains("libregio-no-such-otf2.so.0"), "{e}");
    }
}
