//! The clock as the probe logic sees it: a trait, so the frame-stack logic
//! can be driven by a fake clock in tests, and the runtime's real one.

/// A source of ticks; generic so tests can drive the logic with a fake clock.
pub trait Clock {
    fn now(&self) -> u64;
}

/// The runtime's clock (`clock::ticks`).
pub struct Ticks;

impl Clock for Ticks {
    #[inline(always)]
    fn now(&self) -> u64 {
        crate::clock::ticks()
    }
}
