//! The score as a table for people.

use super::Score;
use crate::units::{human_ns, percent};

/// `512 B`, `1.50 KiB`, `12.3 MiB`, `4.00 GiB`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut x = b as f64;
    let mut unit = UNITS[0];
    for u in UNITS {
        x /= 1024.0;
        unit = u;
        if x < 1024.0 {
            break;
        }
    }
    let decimals = if x < 10.0 {
        2
    } else if x < 100.0 {
        1
    } else {
        0
    };
    format!("{x:.decimals$} {unit}")
}

impl Score {
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "estimated trace: {} in all, {} on the largest thread ({} flush(es) of a {} buffer)\n",
            human_bytes(self.total_trace_bytes),
            human_bytes(self.max_thread_trace_bytes),
            self.max_thread_flushes,
            human_bytes(self.buffer_bytes)
        ));
        let share = |c: f64| {
            if self.measured_ns > 0 {
                format!(
                    " ({} of the measured time)",
                    percent(100.0 * c / self.measured_ns as f64)
                )
            } else {
                String::new()
            }
        };
        match (self.probe_pair_ns, self.total_cost_ns) {
            (Some(p), Some(c)) => s.push_str(&format!(
                "estimated measurement cost: {}{} at {p:.1} ns per enter/exit pair\n",
                human_ns(c as u64),
                share(c)
            )),
            _ => s.push_str(
                "estimated measurement cost: not estimated (no calibration: run `instrument calibrate`)\n",
            ),
        }
        let excluded = self.rows.iter().filter(|r| r.excluded).count();
        s.push_str(&format!(
            "with the suggested filter ({excluded} region(s) left out): {} in all, {} on the largest thread",
            human_bytes(self.filtered_trace_bytes),
            human_bytes(self.filtered_max_thread_trace_bytes)
        ));
        if let Some(c) = self.filtered_cost_ns {
            s.push_str(&format!(", cost {}{}", human_ns(c as u64), share(c)));
        }
        s.push_str("\n\n");
        s.push_str(&format!(
            "{:<4} {:>12} {:>10} {:>12} {:>10}  {:<12} {:<24} {}\n",
            "flt", "calls", "mean", "trace", "cost", "kind", "region", "location"
        ));
        for r in &self.rows {
            let cost = r.cost_ns.map_or("-".to_string(), |c| human_ns(c as u64));
            let location = match (&r.file, r.line) {
                (Some(f), Some(l)) if !f.is_empty() => format!("{f}:{l}"),
                (Some(f), None) => f.clone(),
                _ => String::new(),
            };
            s.push_str(&format!(
                "{:<4} {:>12} {:>10} {:>12} {:>10}  {:<12} {:<24} {}\n",
                if r.excluded { "-" } else { "+" },
                r.calls,
                human_ns(r.mean_ns.round() as u64),
                human_bytes(r.trace_bytes),
                cost,
                r.kind,
                r.name,
                location
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_with_three_significant_digits() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(human_bytes(8 << 20), "8.00 MiB");
        assert_eq!(human_bytes(300 << 30), "300 GiB");
    }
}
