//! The C ABI (`include/regio.h`) and its Fortran-callable twins (arguments
//! by reference, trailing underscore, hidden CHARACTER lengths by value at
//! the end as gfortran passes them).

use std::ffi::{c_char, CStr};

/// Enters region `id` on the calling thread.
#[no_mangle]
pub extern "C" fn regio_enter(id: u32) {
    crate::enter(id);
}

/// Leaves region `id` on the calling thread.
#[no_mangle]
pub extern "C" fn regio_exit(id: u32) {
    crate::exit(id);
}

/// Cleanup hook of instrumented C guard variables: `regio_exit(*id)`.
///
/// # Safety
/// `id` must point to a readable u32.
#[no_mangle]
pub unsafe extern "C" fn regio_guard_exit(id: *const u32) {
    if !id.is_null() {
        crate::exit(*id);
    }
}

/// Depth of the calling thread's region stack.
#[no_mangle]
pub extern "C" fn regio_scope_open() -> u32 {
    crate::scope_open()
}

/// Closes every region the calling thread opened above `*depth`.
///
/// # Safety
/// `depth` must point to a readable u32.
#[no_mangle]
pub unsafe extern "C" fn regio_scope_close(depth: *const u32) {
    if !depth.is_null() {
        crate::scope_close(*depth);
    }
}

/// Stops measuring (process-wide) until `regio_enable`.
#[no_mangle]
pub extern "C" fn regio_disable() {
    crate::disable();
}

/// Measures again after `regio_disable`.
#[no_mangle]
pub extern "C" fn regio_enable() {
    crate::enable();
}

/// Remembers the absolute path of an IDF (NUL-terminated).
///
/// # Safety
/// `path` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn regio_register_idf(path: *const c_char) {
    if !path.is_null() {
        crate::register_idf_bytes(CStr::from_ptr(path).to_bytes());
    }
}

/// Writes the profile now.
#[no_mangle]
pub extern "C" fn regio_flush() {
    crate::flush();
}

/// Fortran `call regio_enter(id)`.
///
/// # Safety
/// `id` must point to a readable INTEGER(4).
#[no_mangle]
pub unsafe extern "C" fn regio_enter_(id: *const i32) {
    if !id.is_null() {
        crate::enter(*id as u32);
    }
}

/// Fortran `call regio_exit(id)`.
///
/// # Safety
/// `id` must point to a readable INTEGER(4).
#[no_mangle]
pub unsafe extern "C" fn regio_exit_(id: *const i32) {
    if !id.is_null() {
        crate::exit(*id as u32);
    }
}

/// Fortran `call regio_disable()`.
#[no_mangle]
pub extern "C" fn regio_disable_() {
    crate::disable();
}

/// Fortran `call regio_enable()`.
#[no_mangle]
pub extern "C" fn regio_enable_() {
    crate::enable();
}

/// Fortran `call regio_flush()`.
#[no_mangle]
pub extern "C" fn regio_flush_() {
    crate::flush();
}

/// Fortran `call regio_register_idf(path)`: `len` is the hidden length;
/// trailing blanks are trimmed.
///
/// # Safety
/// `path` must be null or point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn regio_register_idf_(path: *const c_char, len: usize) {
    if !path.is_null() {
        let s = std::slice::from_raw_parts(path.cast::<u8>(), len);
        crate::register_idf_bytes(crate::idf::trim_fortran(s));
    }
}
