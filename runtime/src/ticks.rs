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

    #[inline(always)]
    fn inline(&self) -> bool {
        crate::clock::tsc_in_use()
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
