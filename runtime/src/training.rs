//! The "training set" of the overhead analysis: what a probe, a clock read
//! and an uncontended lock cost on this machine, measured on a private
//! thread state so nothing is registered and no profile is written.

use std::hint::black_box;
use std::time::Instant;

use crate::clock;
use crate::thread::ThreadState;
use crate::ticks::Ticks;

/// Costs in ns, each the median of several timed batches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// One enter + exit pair of an existing DRG node.
    pub probe_pair_ns: f64,
    /// One read of the runtime's clock.
    pub clock_read_ns: f64,
    /// One uncontended lock + unlock.
    pub lock_pair_ns: f64,
}

const BATCHES: usize = 15;

fn median_per_op(ops: u64, mut batch: impl FnMut(u64)) -> f64 {
    let mut per_op: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let t = Instant::now();
            batch(ops);
            t.elapsed().as_nanos() as f64 / ops as f64
        })
        .collect();
    per_op.sort_by(f64::total_cmp);
    per_op[BATCHES / 2]
}

/// Measures this machine's costs; `ops` operations per batch (100_000 is
/// plenty: a few hundred milliseconds in all).
pub fn measure(ops: u64) -> Costs {
    let ops = ops.max(1);
    // Select the clock source as start-up would (without starting up).
    clock::init();
    let t = ThreadState::new(0);
    let clock = Ticks;
    // Create the nodes first: the pair cost is that of existing nodes.
    // SAFETY: `t` is a private state used by this thread only.
    unsafe {
        t.enter(1, &clock);
        t.enter(2, &clock);
        t.exit(2, &clock);
    }
    let probe_pair_ns = median_per_op(ops, |n| {
        for _ in 0..n {
            // SAFETY: as above.
            unsafe {
                t.enter(black_box(2), &clock);
                t.exit(black_box(2), &clock);
            }
        }
    });
    let clock_read_ns = median_per_op(ops, |n| {
        for _ in 0..n {
            black_box(clock::ticks());
        }
    });
    let lock = std::sync::Mutex::new(0u64);
    let lock_pair_ns = median_per_op(ops, |n| {
        for _ in 0..n {
            if let Ok(mut g) = lock.lock() {
                *g += 1;
            }
        }
    });
    Costs {
        probe_pair_ns,
        clock_read_ns,
        lock_pair_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_are_positive_and_finite() {
        let c = measure(1_000);
        for v in [c.probe_pair_ns, c.clock_read_ns, c.lock_pair_ns] {
            assert!(v.is_finite() && v > 0.0, "{c:?}");
        }
    }
}
