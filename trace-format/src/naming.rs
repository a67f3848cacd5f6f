//! Names of trace files in a run directory: one file per thread per
//! process, next to the process's `profile-r<rank>-p<pid>.json`.

pub const TRACE_PREFIX: &str = "trace-";
pub const TRACE_SUFFIX: &str = ".rtrace";

/// `trace-r<rank>-p<pid>-t<thread>.rtrace`; `thread` is the dense thread
/// number of the profile's `threads[].thread`.
pub fn trace_file_name(rank: u32, pid: u32, thread: u32) -> String {
    format!("{TRACE_PREFIX}r{rank}-p{pid}-t{thread}{TRACE_SUFFIX}")
}

/// (rank, pid, thread) of a trace file name; `None` for other names.
pub fn parse_trace_file_name(name: &str) -> Option<(u32, u32, u32)> {
    let rest = name
        .strip_prefix(TRACE_PREFIX)?
        .strip_suffix(TRACE_SUFFIX)?;
    let mut parts = rest.split('-');
    let num = |p: Option<&str>, tag: char| p?.strip_prefix(tag)?.parse::<u32>().ok();
    let rank = num(parts.next(), 'r')?;
    let pid = num(parts.next(), 'p')?;
    let thread = num(parts.next(), 't')?;
    parts.next().is_none().then_some((rank, pid, thread))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_others_are_not_traces() {
        assert_eq!(trace_file_name(3, 4242, 1), "trace-r3-p4242-t1.rtrace");
        assert_eq!(
            parse_trace_file_name("trace-r3-p4242-t1.rtrace"),
            Some((3, 4242, 1))
        );
        for other in [
            "profile-r3-p4242.json",
            "trace-r3-p4242.rtrace",
            "trace-r3-p4242-t1-x.rtrace",
            "trace-rx-p1-t1.rtrace",
            ".trace-r0-p1-t0.rtrace.tmp",
        ] {
            assert_eq!(parse_trace_file_name(other), None, "{other}");
        }
    }
}
