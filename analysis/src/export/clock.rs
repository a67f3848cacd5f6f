//! Putting a process's timestamps on rank 0's clock. The runtime measures
//! the offset (rank 0's time minus the process's own) at MPI_Init and at
//! MPI_Finalize; between and beyond the two the offset is interpolated
//! linearly, which corrects a constant drift as well as the offset (the
//! "sample before and after" scheme of BACKGROUND.md, "Event tracing").

use regio_trace_format::SyncPhase;

/// Offset of one process's clock as a function of its own time.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockCorrection {
    /// (local time, offset) in ns, at most two points, in time order.
    points: Vec<(f64, f64)>,
    /// Half the longest round trip of the measurements used: how far a
    /// corrected time may be off (Cristian's bound).
    uncertainty_ns: u64,
}

/// One offset measurement: local time (ns, any fixed origin) and offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sync {
    pub phase: SyncPhase,
    pub local_ns: f64,
    pub offset_ns: f64,
    pub round_trip_ns: u64,
}

impl ClockCorrection {
    /// No correction (rank 0, or a process without measurements).
    pub fn none() -> ClockCorrection {
        ClockCorrection {
            points: Vec::new(),
            uncertainty_ns: 0,
        }
    }

    /// From a process's measurements: per phase the one with the smallest
    /// round trip (the tightest bound on the offset); `Init` and
    /// `Finalize` give offset and drift, one of them the offset alone.
    pub fn from_syncs(syncs: &[Sync]) -> ClockCorrection {
        let best = |phase: SyncPhase| {
            syncs
                .iter()
                .filter(|s| s.phase == phase)
                .min_by_key(|s| s.round_trip_ns)
        };
        let used: Vec<&Sync> = [best(SyncPhase::Init), best(SyncPhase::Finalize)]
            .into_iter()
            .flatten()
            .collect();
        let uncertainty_ns = used.iter().map(|s| s.round_trip_ns / 2).max().unwrap_or(0);
        let mut points: Vec<(f64, f64)> = used.iter().map(|s| (s.local_ns, s.offset_ns)).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Two measurements at the same instant give no drift.
        if points.len() == 2 && points[1].0 - points[0].0 < 1.0 {
            points.truncate(1);
        }
        ClockCorrection {
            points,
            uncertainty_ns,
        }
    }

    /// How far a corrected time may be off rank 0's clock: half the
    /// longest round trip of the measurements used (0 without any).
    pub fn uncertainty_ns(&self) -> u64 {
        self.uncertainty_ns
    }

    pub fn is_identity(&self) -> bool {
        self.points.is_empty()
    }

    /// Offset to add at local time `t`.
    pub fn offset(&self, t: f64) -> f64 {
        match self.points[..] {
            [] => 0.0,
            [(_, o)] => o,
            [(t1, o1), (t2, o2), ..] => o1 + (o2 - o1) * (t - t1) / (t2 - t1),
        }
    }

    /// `t` on the reference clock.
    pub fn correct(&self, t: f64) -> f64 {
        t + self.offset(t)
    }

    /// Drift in parts per million (0 without two measurements).
    pub fn drift_ppm(&self) -> f64 {
        match self.points[..] {
            [(t1, o1), (t2, o2), ..] => (o2 - o1) / (t2 - t1) * 1e6,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sync(phase: SyncPhase, local_ns: f64, offset_ns: f64, rtt: u64) -> Sync {
        Sync {
            phase,
            local_ns,
            offset_ns,
            round_trip_ns: rtt,
        }
    }

    #[test]
    fn offset_and_drift_are_interpolated_between_init_and_finalize() {
        // The process's clock is 1000 ns behind at t=0 and runs 10 ppm slow:
        // 1 s later it is 11000 ns behind.
        let c = ClockCorrection::from_syncs(&[
            sync(SyncPhase::Finalize, 1e9, 11_000.0, 50),
            sync(SyncPhase::Init, 0.0, 1_000.0, 40),
            // A worse measurement of the same phase is ignored.
            sync(SyncPhase::Init, 10.0, 9_999.0, 4_000),
        ]);
        assert_eq!(c.correct(0.0), 1_000.0);
        assert_eq!(c.correct(0.5e9), 0.5e9 + 6_000.0);
        assert_eq!(c.correct(2e9), 2e9 + 21_000.0);
        assert!((c.drift_ppm() - 10.0).abs() < 1e-9);
        assert_eq!(c.uncertainty_ns(), 25);
    }

    #[test]
    fn one_measurement_gives_a_constant_offset_and_none_no_correction() {
        let c = ClockCorrection::from_syncs(&[sync(SyncPhase::Init, 5.0, -300.0, 10)]);
        assert_eq!(c.correct(1e9), 1e9 - 300.0);
        assert_eq!(c.drift_ppm(), 0.0);
        let n = ClockCorrection::from_syncs(&[]);
        assert!(n.is_identity());
        assert_eq!(n.correct(42.0), 42.0);
    }
}
