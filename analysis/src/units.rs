//! Durations for people: three significant digits in ns, µs, ms or s.

const UNITS: [(&str, f64); 3] = [("µs", 1e3), ("ms", 1e6), ("s", 1e9)];

/// `0 ns`, `999 ns`, `1.23 µs`, `45.7 ms`, `123 s`; seconds keep every
/// integer digit beyond three (`4567 s`).
pub fn human_ns(ns: u64) -> String {
    if ns < 1000 {
        return format!("{ns} ns");
    }
    for (i, (unit, scale)) in UNITS.iter().enumerate() {
        let x = ns as f64 / scale;
        let last = i + 1 == UNITS.len();
        // Rounding may carry into the next digit (9.996 -> 10.00), so check
        // the rounded text rather than `x`.
        for (decimals, limit) in [(2usize, 10.0), (1, 100.0), (0, 1000.0)] {
            let text = format!("{x:.decimals$}");
            let rounded: f64 = text.parse().unwrap_or(x);
            if rounded < limit || (last && decimals == 0) {
                return format!("{text} {unit}");
            }
        }
    }
    // Not reached: the last unit always returns above.
    format!("{:.0} s", ns as f64 / 1e9)
}

/// `12.3%`
pub fn percent(p: f64) -> String {
    format!("{p:.1}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits_with_carry_into_the_next_unit() {
        let cases = [
            (0, "0 ns"),
            (7, "7 ns"),
            (999, "999 ns"),
            (1000, "1.00 µs"),
            (1234, "1.23 µs"),
            (9_996, "10.0 µs"),
            (12_345, "12.3 µs"),
            (99_960, "100 µs"),
            (123_456, "123 µs"),
            (999_499, "999 µs"),
            (999_500, "1.00 ms"),
            (45_678_901, "45.7 ms"),
            (1_000_000_000, "1.00 s"),
            (123_456_789_012, "123 s"),
            (999_600_000_000, "1000 s"),
            (4_567_000_000_000, "4567 s"),
        ];
        for (ns, want) in cases {
            assert_eq!(human_ns(ns), want, "{ns} ns");
        }
    }

    #[test]
    fn percent_has_one_decimal() {
        assert_eq!(percent(100.0), "100.0%");
        assert_eq!(percent(100.0 / 3.0), "33.3%");
    }
}
