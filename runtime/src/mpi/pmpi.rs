//! The MPI library of the process, reached through its profiling
//! interface (`PMPI_*`, found by `dynsym`): the runtime links no MPI.
//!
//! Handles cross the probe ABI as 64-bit integers: the C probes widen a
//! handle (`int` in MPICH's ABI, a pointer in Open MPI's) to
//! `uint64_t`, and this module passes it back in an integer register of
//! the same width. On the LP64 ABIs (x86-64, AArch64) a callee taking an
//! `int` reads the low half of that register, so one signature serves
//! both libraries. The constants that differ between the two ABIs
//! (`MPI_ANY_SOURCE`, `MPI_PROC_NULL`, `MPI_STATUS_IGNORE`, the status
//! layout, `MPI_COMM_WORLD`, `MPI_BYTE`) are chosen by [`abi`].

use std::ffi::c_int;
use std::sync::OnceLock;

use crate::dynsym::{self, Lazy};

/// The MPI ABI family of the library in the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    /// Open MPI: handles are pointers to predefined objects.
    OpenMpi,
    /// MPICH and its derivatives (Intel MPI, MVAPICH): `int` handles.
    Mpich,
}

/// Constants of one ABI.
#[derive(Clone, Copy, Debug)]
pub struct Consts {
    pub abi: Abi,
    pub comm_world: u64,
    /// `MPI_COMM_NULL` (what a creation gives a process left out).
    pub comm_null: u64,
    pub byte: u64,
    pub any_source: i32,
    pub proc_null: i32,
    /// `MPI_ROOT`: the root's own argument in an intercommunicator's
    /// rooted collective.
    pub root: i32,
    /// `MPI_CART` and `MPI_GRAPH` (`MPI_DIST_GRAPH` is 3 in both ABIs).
    pub topo_cart: i32,
    pub topo_graph: i32,
    /// `MPI_STATUS_IGNORE` / `MPI_STATUSES_IGNORE` as addresses.
    pub status_ignore: usize,
    /// `sizeof(MPI_Status)` and the byte offsets of `MPI_SOURCE`,
    /// `MPI_TAG` in it.
    pub status_size: usize,
    pub source_at: usize,
    pub tag_at: usize,
    /// A request handle that stands for "already complete" and that the
    /// library hands to many calls at once (Open MPI returns
    /// `&ompi_request_empty` from an `MPI_Isend` it completed inline), so
    /// it cannot name one message in flight; 0 when there is none.
    pub shared_complete: u64,
    /// Where the Fortran bindings' `MPI_STATUS_IGNORE` and
    /// `MPI_STATUSES_IGNORE` may be: addresses of the sentinels
    /// themselves (Open MPI's common blocks) and of C pointer variables
    /// that hold them (`MPI_F_STATUS_IGNORE`, `MPI_F08_STATUS_IGNORE` and
    /// their plurals, read at each use: MPICH sets some in `MPI_Init`);
    /// 0 where a library has none.
    pub f_ignore_at: [usize; 2],
    pub f_ignore_ptr: [usize; 4],
    /// Where the Fortran bindings' `MPI_IN_PLACE` is: the sentinels'
    /// addresses (Open MPI's `mpi_fortran_in_place_` common block, used by
    /// `mpif.h`, `use mpi` and `use mpi_f08`; MPICH's `mpi_f08` variable
    /// `MPIR_F08_MPI_IN_PLACE`) and a C pointer variable holding it
    /// (MPICH's `MPIR_F_MPI_IN_PLACE`, for `mpif.h` and `use mpi`, set in
    /// `MPI_Init`: read at each use); 0 where a library has none.
    pub f_in_place_at: [usize; 2],
    pub f_in_place_ptr: usize,
}

static CONSTS: OnceLock<Option<Consts>> = OnceLock::new();

/// The ABI constants, or None when no known MPI library is loaded.
pub fn consts() -> Option<&'static Consts> {
    CONSTS.get_or_init(detect).as_ref()
}

fn detect() -> Option<Consts> {
    if let Some(world) = dynsym::find(c"ompi_mpi_comm_world") {
        let byte = dynsym::find(c"ompi_mpi_byte")?;
        // ompi_status_public_t: MPI_SOURCE, MPI_TAG, MPI_ERROR,
        // _cancelled (ints), _ucount (size_t, the bytes received).
        return Some(Consts {
            abi: Abi::OpenMpi,
            comm_world: world as u64,
            comm_null: dynsym::find(c"ompi_mpi_comm_null").map_or(0, |a| a as u64),
            byte: byte as u64,
            any_source: -1,
            proc_null: -2,
            root: -4,
            topo_cart: 1,
            topo_graph: 2,
            status_ignore: 0,
            status_size: 24,
            source_at: 0,
            tag_at: 4,
            shared_complete: dynsym::find(c"ompi_request_empty").map_or(0, |a| a as u64),
            f_ignore_at: [
                sym(c"mpi_fortran_status_ignore_"),
                sym(c"mpi_fortran_statuses_ignore_"),
            ],
            f_ignore_ptr: f_ignore_pointers(),
            f_in_place_at: [sym(c"mpi_fortran_in_place_"), 0],
            f_in_place_ptr: 0,
        });
    }
    if dynsym::find(c"MPIR_Err_create_code").is_some() {
        // MPI_Status: count_lo, count_hi_and_cancelled, MPI_SOURCE,
        // MPI_TAG, MPI_ERROR (ints); the count is in bytes.
        return Some(Consts {
            abi: Abi::Mpich,
            comm_world: 0x4400_0000,
            comm_null: 0x0400_0000,
            byte: 0x4c00_010d,
            any_source: -2,
            proc_null: -1,
            root: -3,
            topo_cart: 2,
            topo_graph: 1,
            status_ignore: 1,
            status_size: 20,
            source_at: 8,
            tag_at: 12,
            shared_complete: 0,
            f_ignore_at: [0; 2],
            f_ignore_ptr: f_ignore_pointers(),
            f_in_place_at: [0, sym(c"MPIR_F08_MPI_IN_PLACE")],
            f_in_place_ptr: sym(c"MPIR_F_MPI_IN_PLACE"),
        });
    }
    None
}

fn sym(name: &std::ffi::CStr) -> usize {
    dynsym::find(name).unwrap_or(0)
}

/// The C pointer variables MPI 3 defines for the Fortran ignore markers.
fn f_ignore_pointers() -> [usize; 4] {
    [
        sym(c"MPI_F_STATUS_IGNORE"),
        sym(c"MPI_F_STATUSES_IGNORE"),
        sym(c"MPI_F08_STATUS_IGNORE"),
        sym(c"MPI_F08_STATUSES_IGNORE"),
    ]
}

impl Consts {
    /// A Fortran status (or array of statuses) as C statuses, or null for
    /// `MPI_STATUS(ES)_IGNORE` and null. Both ABIs lay a Fortran status
    /// out as the C `MPI_Status` (`MPI_STATUS_SIZE` INTEGERs holding its
    /// bytes: Open MPI's and MPICH's `MPI_Status_f2c` copy them as they
    /// are; the `mpi_f08` `TYPE(MPI_Status)` is the same `BIND(C)`
    /// layout), so it is read in place. `PMPI_Status_f2c` is not called:
    /// given an ignore marker it calls the error handler, which aborts.
    pub fn fortran_status(&self, f: *const u8) -> *const u8 {
        let at = f as usize;
        let ignored = at == 0
            || self.f_ignore_at.iter().any(|&a| a != 0 && a == at)
            || self.f_ignore_ptr.iter().any(|&p| {
                // SAFETY: `p` is the address of a pointer variable of the
                // MPI library (found by name), or 0.
                p != 0 && unsafe { (p as *const usize).read() } == at
            });
        if ignored {
            std::ptr::null()
        } else {
            f
        }
    }

    /// Whether `addr` (a Fortran buffer argument's address) is the Fortran
    /// `MPI_IN_PLACE`.
    pub fn fortran_in_place(&self, addr: usize) -> bool {
        addr != 0
            && (self.f_in_place_at.contains(&addr)
                || (self.f_in_place_ptr != 0
                    // SAFETY: the address of a pointer variable of the MPI
                    // library, found by name.
                    && unsafe { (self.f_in_place_ptr as *const usize).read() } == addr))
    }

    /// Bytes a completed receive's status says arrived.
    ///
    /// # Safety
    /// `status` must point to a whole `MPI_Status` of this ABI.
    pub unsafe fn status_bytes(&self, status: *const u8) -> u64 {
        match self.abi {
            Abi::OpenMpi => (status.add(16) as *const u64).read_unaligned(),
            Abi::Mpich => {
                let lo = (status as *const u32).read_unaligned() as u64;
                let hi = (status.add(4) as *const u32).read_unaligned() as u64 >> 1;
                hi << 32 | lo
            }
        }
    }

    /// `MPI_SOURCE` and `MPI_TAG` of a status.
    ///
    /// # Safety
    /// As [`Consts::status_bytes`].
    pub unsafe fn status_source_tag(&self, status: *const u8) -> (i32, i32) {
        (
            (status.add(self.source_at) as *const i32).read_unaligned(),
            (status.add(self.tag_at) as *const i32).read_unaligned(),
        )
    }

    /// Whether `status` names a status (not null, not the ignore marker).
    pub fn real_status(&self, status: *const u8) -> bool {
        !status.is_null() && status as usize != self.status_ignore
    }
}

static TYPE_SIZE: Lazy = Lazy::new(c"PMPI_Type_size");
static COMM_GROUP: Lazy = Lazy::new(c"PMPI_Comm_group");
static COMM_SIZE: Lazy = Lazy::new(c"PMPI_Comm_size");
static COMM_RANK: Lazy = Lazy::new(c"PMPI_Comm_rank");
static GROUP_TRANSLATE: Lazy = Lazy::new(c"PMPI_Group_translate_ranks");
static GROUP_FREE: Lazy = Lazy::new(c"PMPI_Group_free");
static SEND: Lazy = Lazy::new(c"PMPI_Send");
static RECV: Lazy = Lazy::new(c"PMPI_Recv");
static IPROBE: Lazy = Lazy::new(c"PMPI_Iprobe");
static BARRIER: Lazy = Lazy::new(c"PMPI_Barrier");
static COMM_DUP: Lazy = Lazy::new(c"PMPI_Comm_dup");
static TEST_INTER: Lazy = Lazy::new(c"PMPI_Comm_test_inter");
static TOPO_TEST: Lazy = Lazy::new(c"PMPI_Topo_test");
static CARTDIM_GET: Lazy = Lazy::new(c"PMPI_Cartdim_get");
static GRAPH_NEIGHBORS_COUNT: Lazy = Lazy::new(c"PMPI_Graph_neighbors_count");
static DIST_GRAPH_NEIGHBORS_COUNT: Lazy = Lazy::new(c"PMPI_Dist_graph_neighbors_count");
static REMOTE_SIZE: Lazy = Lazy::new(c"PMPI_Comm_remote_size");
static REMOTE_GROUP: Lazy = Lazy::new(c"PMPI_Comm_remote_group");
static COMM_GET_PARENT: Lazy = Lazy::new(c"PMPI_Comm_get_parent");

/// `PMPI_Type_size(datatype)`, None if MPI refuses or is absent.
pub fn type_size(datatype: u64) -> Option<u64> {
    let f = TYPE_SIZE.get()?;
    let mut size: c_int = -1;
    // SAFETY: MPI_Type_size(MPI_Datatype, int *); the handle goes in an
    // integer register (module comment).
    let rc = unsafe {
        std::mem::transmute::<usize, unsafe extern "C" fn(u64, *mut c_int) -> c_int>(f)(
            datatype, &mut size,
        )
    };
    (rc == 0 && size >= 0).then_some(size as u64)
}

/// Size of a communicator and this process's rank in it.
pub fn comm_size_rank(comm: u64) -> Option<(i32, i32)> {
    type F = unsafe extern "C" fn(u64, *mut c_int) -> c_int;
    let (s, r) = (COMM_SIZE.get()?, COMM_RANK.get()?);
    let (mut size, mut rank) = (0, -1);
    // SAFETY: MPI_Comm_size/rank(MPI_Comm, int *).
    unsafe {
        if std::mem::transmute::<usize, F>(s)(comm, &mut size) != 0
            || std::mem::transmute::<usize, F>(r)(comm, &mut rank) != 0
        {
            return None;
        }
    }
    Some((size, rank))
}

/// Whether `comm` is an intercommunicator.
pub fn is_inter(comm: u64) -> bool {
    let Some(f) = TEST_INTER.get() else {
        return false;
    };
    let mut flag: c_int = 0;
    // SAFETY: MPI_Comm_test_inter(MPI_Comm, int *).
    let rc = unsafe {
        std::mem::transmute::<usize, unsafe extern "C" fn(u64, *mut c_int) -> c_int>(f)(
            comm, &mut flag,
        )
    };
    rc == 0 && flag != 0
}

/// The numbers of neighbours a neighbourhood collective on `comm`
/// receives from and sends to (in, out): its topology's (a Cartesian
/// topology: 2 per dimension; a graph: this rank's neighbours; a
/// distributed graph: its in- and out-degree). None without a topology
/// (the functions below are called only for the topology `comm` has: MPI
/// treats any other call as an error, which aborts).
pub fn neighbour_degrees(comm: u64) -> Option<(i32, i32)> {
    type F1 = unsafe extern "C" fn(u64, *mut c_int) -> c_int;
    let c = consts()?;
    let mut topo: c_int = -1;
    // SAFETY: MPI_Topo_test(MPI_Comm, int *), and below the query of the
    // topology it returned, with the PMPI signatures.
    unsafe {
        if std::mem::transmute::<usize, F1>(TOPO_TEST.get()?)(comm, &mut topo) != 0 {
            return None;
        }
        if topo == c.topo_cart {
            let mut dims: c_int = 0;
            if std::mem::transmute::<usize, F1>(CARTDIM_GET.get()?)(comm, &mut dims) != 0 {
                return None;
            }
            Some((2 * dims, 2 * dims))
        } else if topo == c.topo_graph {
            let (_, me) = comm_size_rank(comm)?;
            let mut n: c_int = 0;
            type F = unsafe extern "C" fn(u64, c_int, *mut c_int) -> c_int;
            if std::mem::transmute::<usize, F>(GRAPH_NEIGHBORS_COUNT.get()?)(comm, me, &mut n) != 0
            {
                return None;
            }
            Some((n, n))
        } else if topo == 3 {
            let (mut indeg, mut outdeg, mut weighted): (c_int, c_int, c_int) = (0, 0, 0);
            type F = unsafe extern "C" fn(u64, *mut c_int, *mut c_int, *mut c_int) -> c_int;
            if std::mem::transmute::<usize, F>(DIST_GRAPH_NEIGHBORS_COUNT.get()?)(
                comm,
                &mut indeg,
                &mut outdeg,
                &mut weighted,
            ) != 0
            {
                return None;
            }
            Some((indeg, outdeg))
        } else {
            None
        }
    }
}

/// The size of an intercommunicator's remote group.
pub fn remote_size(comm: u64) -> Option<i32> {
    let f = REMOTE_SIZE.get()?;
    let mut size: c_int = 0;
    // SAFETY: MPI_Comm_remote_size(MPI_Comm, int *).
    let rc = unsafe {
        std::mem::transmute::<usize, unsafe extern "C" fn(u64, *mut c_int) -> c_int>(f)(
            comm, &mut size,
        )
    };
    (rc == 0).then_some(size)
}

/// Translates `ranks` of `comm` into ranks of `MPI_COMM_WORLD`, in place.
/// Ranks without a world rank (another job's processes) become -1.
pub fn to_world(comm: u64, ranks: &mut [i32]) -> bool {
    translate(&COMM_GROUP, comm, ranks)
}

/// As [`to_world`] for ranks of an intercommunicator's remote group (the
/// ranks its point-to-point calls and collectives name).
pub fn remote_to_world(comm: u64, ranks: &mut [i32]) -> bool {
    translate(&REMOTE_GROUP, comm, ranks)
}

fn translate(group_of: &Lazy, comm: u64, ranks: &mut [i32]) -> bool {
    let Some(c) = consts() else { return false };
    let (Some(group), Some(world_group), Some(translate), Some(free)) = (
        group_of.get(),
        COMM_GROUP.get(),
        GROUP_TRANSLATE.get(),
        GROUP_FREE.get(),
    ) else {
        return false;
    };
    type Group = unsafe extern "C" fn(u64, *mut u64) -> c_int;
    type Translate = unsafe extern "C" fn(u64, c_int, *const i32, u64, *mut i32) -> c_int;
    type Free = unsafe extern "C" fn(*mut u64) -> c_int;
    let mut out = vec![-1i32; ranks.len()];
    // SAFETY: the PMPI signatures above with integer-register handles; a
    // group handle is written into a zeroed u64 (an `int` handle fills its
    // low half on these little-endian ABIs).
    unsafe {
        let (mut mine, mut world) = (0u64, 0u64);
        if std::mem::transmute::<usize, Group>(group)(comm, &mut mine) != 0 {
            return false;
        }
        if std::mem::transmute::<usize, Group>(world_group)(c.comm_world, &mut world) != 0 {
            std::mem::transmute::<usize, Free>(free)(&mut mine);
            return false;
        }
        let rc = std::mem::transmute::<usize, Translate>(translate)(
            mine,
            ranks.len() as c_int,
            ranks.as_ptr(),
            world,
            out.as_mut_ptr(),
        );
        std::mem::transmute::<usize, Free>(free)(&mut mine);
        std::mem::transmute::<usize, Free>(free)(&mut world);
        if rc != 0 {
            return false;
        }
    }
    for (r, w) in ranks.iter_mut().zip(out) {
        *r = if w < 0 { -1 } else { w };
    }
    true
}

/// Whether this process was started by `MPI_Comm_spawn` (its
/// `MPI_Comm_get_parent` is not `MPI_COMM_NULL`); false when that cannot
/// be told (no MPI, the call fails, `MPI_COMM_NULL` not found).
pub fn spawned() -> bool {
    let (Some(c), Some(f)) = (consts(), COMM_GET_PARENT.get()) else {
        return false;
    };
    if c.comm_null == 0 {
        return false;
    }
    let mut parent = c.comm_null;
    // SAFETY: MPI_Comm_get_parent(MPI_Comm *), see `to_world` (an `int`
    // handle fills the low half of the zero-extended u64).
    let rc = unsafe {
        std::mem::transmute::<usize, unsafe extern "C" fn(*mut u64) -> c_int>(f)(&mut parent)
    };
    rc == 0 && parent != c.comm_null
}

/// `PMPI_Comm_dup(comm)`.
pub fn comm_dup(comm: u64) -> Option<u64> {
    let f = COMM_DUP.get()?;
    let mut out = 0u64;
    // SAFETY: MPI_Comm_dup(MPI_Comm, MPI_Comm *), see `to_world`.
    let rc = unsafe {
        std::mem::transmute::<usize, unsafe extern "C" fn(u64, *mut u64) -> c_int>(f)(
            comm, &mut out,
        )
    };
    (rc == 0).then_some(out)
}

/// `PMPI_Barrier(comm)`.
pub fn barrier(comm: u64) -> bool {
    let Some(f) = BARRIER.get() else { return false };
    // SAFETY: MPI_Barrier(MPI_Comm).
    unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(u64) -> c_int>(f)(comm) == 0 }
}

/// Sends one `u64` (as 8 `MPI_BYTE`s) to `dest` of `comm`.
pub fn send_u64(v: u64, dest: i32, tag: i32, comm: u64) -> bool {
    let (Some(c), Some(f)) = (consts(), SEND.get()) else {
        return false;
    };
    type F = unsafe extern "C" fn(*const u64, c_int, u64, c_int, c_int, u64) -> c_int;
    // SAFETY: MPI_Send(buf, count, datatype, dest, tag, comm).
    unsafe { std::mem::transmute::<usize, F>(f)(&v, 8, c.byte, dest, tag, comm) == 0 }
}

/// Receives one `u64` sent by [`send_u64`] from `source`.
pub fn recv_u64(source: i32, tag: i32, comm: u64) -> Option<u64> {
    let (Some(c), Some(f)) = (consts(), RECV.get()) else {
        return None;
    };
    type F = unsafe extern "C" fn(*mut u64, c_int, u64, c_int, c_int, u64, usize) -> c_int;
    let mut v = 0u64;
    // SAFETY: MPI_Recv(buf, count, datatype, source, tag, comm, status).
    let rc = unsafe {
        std::mem::transmute::<usize, F>(f)(&mut v, 8, c.byte, source, tag, comm, c.status_ignore)
    };
    (rc == 0).then_some(v)
}

/// [`recv_u64`] after waiting for the message without holding a core:
/// `PMPI_Iprobe` every `nap` (a blocking receive polls the network and
/// keeps the core busy, which on an oversubscribed machine delays the
/// very ranks it waits for).
pub fn recv_u64_idle(source: i32, tag: i32, comm: u64, nap: std::time::Duration) -> Option<u64> {
    let (Some(c), Some(f)) = (consts(), IPROBE.get()) else {
        return None;
    };
    type F = unsafe extern "C" fn(c_int, c_int, u64, *mut c_int, usize) -> c_int;
    loop {
        let mut flag: c_int = 0;
        // SAFETY: MPI_Iprobe(source, tag, comm, flag, status).
        let rc = unsafe {
            std::mem::transmute::<usize, F>(f)(source, tag, comm, &mut flag, c.status_ignore)
        };
        if rc != 0 {
            return None;
        }
        if flag != 0 {
            return recv_u64(source, tag, comm);
        }
        std::thread::sleep(nap);
    }
}

static COMM_F2C: Lazy = Lazy::new(c"PMPI_Comm_f2c");
static TYPE_F2C: Lazy = Lazy::new(c"PMPI_Type_f2c");

/// A Fortran communicator handle (`MPI_Fint`) as a C handle.
pub fn comm_f2c(f: i32) -> Option<u64> {
    f2c(&COMM_F2C, f)
}

/// A Fortran datatype handle as a C handle.
pub fn type_f2c(f: i32) -> Option<u64> {
    f2c(&TYPE_F2C, f)
}

fn f2c(which: &Lazy, handle: i32) -> Option<u64> {
    let c = consts()?;
    if c.abi == Abi::Mpich {
        // MPICH's C and Fortran handles are the same integers (its
        // MPI_Comm_f2c is a macro, no symbol).
        return Some(u64::from(handle as u32));
    }
    let f = which.get()?;
    // SAFETY: MPI_X_f2c(MPI_Fint) returns the C handle; an `int` handle
    // (MPICH) leaves the high half of the return register undefined, so
    // it is cut off.
    let h = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(c_int) -> u64>(f)(handle) };
    Some(match c.abi {
        Abi::OpenMpi => h,
        Abi::Mpich => h & 0xffff_ffff,
    })
}
