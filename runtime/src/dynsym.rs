//! Functions of libraries the program may have loaded (OpenMP, MPI), found
//! by name at run time: the runtime links neither, and works without them.

use std::ffi::CStr;
use std::sync::OnceLock;

/// The address of `name` in the process, if some loaded object defines it.
pub fn find(name: &CStr) -> Option<usize> {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name.
    let addr = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) } as usize;
    (addr != 0).then_some(addr)
}

/// A symbol looked up once, on first use (probes may ask for it often).
pub struct Lazy {
    name: &'static CStr,
    addr: OnceLock<Option<usize>>,
}

impl Lazy {
    pub const fn new(name: &'static CStr) -> Lazy {
        Lazy {
            name,
            addr: OnceLock::new(),
        }
    }

    pub fn get(&self) -> Option<usize> {
        *self.addr.get_or_init(|| find(self.name))
    }
}
