//! The IDF base a Fortran lock-test wrapper adds to its local id.
//!
//! Fortran lock tests inside expressions are rewritten in place
//! (`regio_tl(ID, lock)` where `omp_test_lock(` stood, no longer than it),
//! so they cannot pass their object's base; `call regio_tl_base(regio_b)`
//! before the statement hands it over. One value per thread is not enough:
//! between that call and the lock test, the same statement can run
//! another separately instrumented object's lock test (a function called
//! in the lock argument or earlier in the condition), whose own
//! `regio_tl_base` replaces it. So each base is kept with the caller's
//! stack pointer at the call (the Fortran procedure's frame; it does not
//! move between the calls of one statement), and a lock test takes the
//! base its own frame set. Frames at or below a frame that sets a base
//! have returned, so their entries go; the entries form a short stack
//! ordered by frame. Without a frame (an architecture without the entry
//! stubs, or stack pointers that moved: `-fstack-arrays` temporaries) the
//! base last set on the thread is used, as before.

use std::cell::RefCell;

/// Nested Fortran frames with lock tests kept per thread; a deeper one
/// drops the outermost.
const DEPTH: usize = 16;

struct Frames {
    len: usize,
    /// Caller stack pointers, strictly decreasing (outermost first).
    sp: [usize; DEPTH],
    base: [u32; DEPTH],
    /// The base set last, whatever its frame.
    last: u32,
}

thread_local! {
    static FRAMES: RefCell<Frames> = const {
        RefCell::new(Frames { len: 0, sp: [0; DEPTH], base: [0; DEPTH], last: 0 })
    };
}

/// `call regio_tl_base(regio_b)` from the frame whose stack pointer was
/// `sp` (0: unknown).
pub(crate) fn set(base: u32, sp: usize) {
    let _ = FRAMES.try_with(|f| {
        let Ok(mut f) = f.try_borrow_mut() else {
            return;
        };
        f.last = base;
        if sp == 0 {
            return;
        }
        while f.len > 0 && f.sp[f.len - 1] <= sp {
            f.len -= 1;
        }
        if f.len == DEPTH {
            f.sp.copy_within(1.., 0);
            f.base.copy_within(1.., 0);
            f.len -= 1;
        }
        let n = f.len;
        f.sp[n] = sp;
        f.base[n] = base;
        f.len += 1;
    });
}

/// The base for a lock test called from the frame whose stack pointer was
/// `sp`: the one that frame set, else the one set last (0 if none: code
/// instrumented without bases).
pub(crate) fn get(sp: usize) -> u32 {
    FRAMES
        .try_with(|f| {
            let Ok(f) = f.try_borrow() else {
                return 0;
            };
            (0..f.len)
                .rev()
                .find(|&i| sp != 0 && f.sp[i] == sp)
                .map(|i| f.base[i])
                .unwrap_or(f.last)
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_gets_its_own_base_after_a_deeper_frame_set_another() {
        std::thread::spawn(|| {
            assert_eq!(get(0x1000), 0, "nothing set");
            set(7 << 22, 0x1000); // the caller's statement
            set(9 << 22, 0x0f00); // a deeper object's, within it
            assert_eq!(get(0x0f00), 9 << 22);
            assert_eq!(get(0x1000), 7 << 22, "the caller's own base");
            // Unknown frame: the base set last.
            assert_eq!(get(0x0800), 9 << 22);
            assert_eq!(get(0), 9 << 22);
            // A sibling at the deeper frame's depth replaces it; the caller
            // setting again drops every deeper entry.
            set(3 << 22, 0x0f00);
            assert_eq!(get(0x0f00), 3 << 22);
            set(7 << 22, 0x1000);
            assert_eq!(get(0x0f00), 7 << 22, "returned frame: the last set");
            assert_eq!(FRAMES.with(|f| f.borrow().len), 1);
        })
        .join()
        .expect("thread");
    }

    #[test]
    fn a_deep_chain_keeps_its_innermost_frames() {
        std::thread::spawn(|| {
            for i in 0..(DEPTH + 4) {
                set(i as u32, 0x10000 - i * 0x100);
            }
            let innermost = DEPTH + 3;
            assert_eq!(get(0x10000 - innermost * 0x100), innermost as u32);
            assert_eq!(get(0x10000 - 4 * 0x100), 4, "the outermost kept");
            assert_eq!(FRAMES.with(|f| f.borrow().len), DEPTH);
        })
        .join()
        .expect("thread");
    }
}
