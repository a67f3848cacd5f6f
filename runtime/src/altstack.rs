//! An alternate signal stack for the main thread, so a stack overflow
//! there can still run the fatal-signal handler (`signals`). Set up when
//! the main thread registers (`registry`), which can happen before the
//! handlers are installed.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering::*};

/// Large enough for the profile writer's frames.
const ALT_SIZE: usize = 64 * 1024;
struct AltStack(UnsafeCell<[u8; ALT_SIZE]>);
// SAFETY: handed to the kernel once, for one thread; Rust never touches it.
unsafe impl Sync for AltStack {}
static ALT_STACK: AltStack = AltStack(UnsafeCell::new([0; ALT_SIZE]));
static ALT_USED: AtomicBool = AtomicBool::new(false);

/// Gives the calling thread (the main thread) an alternate signal stack
/// unless it has a large enough one already.
pub fn install() {
    // SAFETY: sigaltstack with valid structures; ALT_STACK is handed to
    // the kernel at most once.
    unsafe {
        let mut cur: libc::stack_t = std::mem::zeroed();
        if libc::sigaltstack(std::ptr::null(), &mut cur) == 0
            && cur.ss_flags & libc::SS_DISABLE == 0
            && cur.ss_size >= ALT_SIZE
        {
            return;
        }
        if ALT_USED.swap(true, AcqRel) {
            return;
        }
        let ss = libc::stack_t {
            ss_sp: ALT_STACK.0.get().cast(),
            ss_flags: 0,
            ss_size: ALT_SIZE,
        };
        libc::sigaltstack(&ss, std::ptr::null_mut());
    }
}
