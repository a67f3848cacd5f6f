//! The clock as the probe logic sees it: a trait, so the frame-stack logic
//! can be driven by a fake clock in tests, and the runtime's real one.

/// A source of ticks; generic so tests can drive the logic with a fake clock.
pub trait Clock {
    fn now(&self) -> u64;

    /// Whether [`Clock::now_inline`] may be used now: a read that makes no
    /// call, so the probes' fast paths need no stack frame (they take
    /// their out-of-line path otherwise).
    #[inline(always)]
    fn inline(&self) -> bool {
        true
    }

    /// The time where [`Clock::inline`] said yes.
    #[inline(always)]
    fn now_inline(&self) -> u64 {
        self.now()
    }
}

/// The runtime's clock (`clock::ticks`).
pub struct Ticks;

impl Clock for Ticks {
    #[inline(always)]
    fn now(&self) -> u64 {
        crate::clock::ticks()
    }

    /// The TSC can be read inline on x86_64; whether it is the clock in
    /// use is the thread's `SLOW_CLOCK` bit (`thread.rs`), tested with the
    /// other reasons for the slow path, so a probe loads no global for it.
    /// A thread state is made only after the clock is chosen (start-up
    /// registers no thread before `clock::init`; `training` calls it first).
    #[inline(always)]
    fn inline(&self) -> bool {
        cfg!(target_arch = "x86_64")
    }

    #[inline(always)]
    fn now_inline(&self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            crate::clock::rdtsc()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            crate::clock::ticks()
        }
    }
}
