//! Turns on the machine for tests that measure time.
//!
//! Every end-to-end module runs in this one test process, two tests at a
//! time on a 2-core machine. A test that holds measured waits against the
//! ones built into a program (MPI and OpenMP imbalance, the overhead
//! categories) would otherwise share the cores with whatever compile or run
//! another module's test is doing; with a test binary per module it only
//! ever met tests of its own module. Such a test holds the machine: while
//! it does, every command another test starts through [`super::run`] waits.

use std::cell::Cell;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static MACHINE: RwLock<()> = RwLock::new(());

thread_local! {
    /// Whether this test's thread holds the machine (its own commands run).
    static HOLDING: Cell<bool> = const { Cell::new(false) };
}

/// The machine to this test alone until dropped.
pub struct Held {
    _guard: RwLockWriteGuard<'static, ()>,
}

impl Drop for Held {
    fn drop(&mut self) {
        HOLDING.with(|h| h.set(false));
    }
}

/// Waits until no other test holds the machine and no command of another
/// test is running, then keeps it until the returned value drops.
pub fn hold() -> Held {
    // A test that panicked while holding it poisons the lock; the machine
    // is free all the same.
    let guard = MACHINE.write().unwrap_or_else(|e| e.into_inner());
    HOLDING.with(|h| h.set(true));
    Held { _guard: guard }
}

/// A turn to run one command: waits while another test holds the machine.
/// None on the thread that holds it, and for a command started while this
/// thread already has a turn (a test that runs commands while its own
/// program runs): the standard library's `RwLock` prefers writers, so a
/// second read on one thread while another test waits to hold the machine
/// would wait forever.
pub fn command_turn() -> Option<Turn> {
    if HOLDING.with(Cell::get) || TURNS.with(Cell::get) > 0 {
        return None;
    }
    let guard = MACHINE.read().unwrap_or_else(|e| e.into_inner());
    TURNS.with(|t| t.set(t.get() + 1));
    Some(Turn { _guard: guard })
}

thread_local! {
    /// Turns this thread holds (0 or 1).
    static TURNS: Cell<u32> = const { Cell::new(0) };
}

/// One command's turn, given back when dropped.
pub struct Turn {
    _guard: RwLockReadGuard<'static, ()>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        TURNS.with(|t| t.set(t.get() - 1));
    }
}
