//! Counter names as `REGIO_COUNTERS` spells them (perf's names) and the
//! perf event each one opens. Pure data and parsing, no system calls.

/// `perf_event_attr.type` values.
pub const TYPE_HARDWARE: u32 = 0;
pub const TYPE_SOFTWARE: u32 = 1;
pub const TYPE_HW_CACHE: u32 = 3;
pub const TYPE_RAW: u32 = 4;

/// One event to open: its canonical name and perf's (type, config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub name: String,
    pub type_: u32,
    pub config: u64,
    /// The kernel counts it only in its own context (scheduler events), so
    /// excluding the kernel would always read 0: it needs kernel counting.
    pub kernel_only: bool,
}

/// Hardware-cache config: cache id | op << 8 | result << 16.
const fn cache(id: u64, miss: bool) -> u64 {
    id | (miss as u64) << 16
}

/// (names, the first canonical; type; config; kernel-only).
const TABLE: &[(&[&str], u32, u64, bool)] = &[
    (&["instructions"], TYPE_HARDWARE, 1, false),
    (&["cycles", "cpu-cycles"], TYPE_HARDWARE, 0, false),
    (&["cache-references"], TYPE_HARDWARE, 2, false),
    (&["cache-misses"], TYPE_HARDWARE, 3, false),
    (
        &["branch-instructions", "branches"],
        TYPE_HARDWARE,
        4,
        false,
    ),
    (&["branch-misses"], TYPE_HARDWARE, 5, false),
    (&["bus-cycles"], TYPE_HARDWARE, 6, false),
    (
        &["stalled-cycles-frontend", "idle-cycles-frontend"],
        TYPE_HARDWARE,
        7,
        false,
    ),
    (
        &["stalled-cycles-backend", "idle-cycles-backend"],
        TYPE_HARDWARE,
        8,
        false,
    ),
    (&["ref-cycles"], TYPE_HARDWARE, 9, false),
    (&["cpu-clock"], TYPE_SOFTWARE, 0, false),
    (&["task-clock"], TYPE_SOFTWARE, 1, false),
    (&["page-faults", "faults"], TYPE_SOFTWARE, 2, false),
    (&["context-switches", "cs"], TYPE_SOFTWARE, 3, true),
    (&["cpu-migrations", "migrations"], TYPE_SOFTWARE, 4, true),
    (&["minor-faults"], TYPE_SOFTWARE, 5, false),
    (&["major-faults"], TYPE_SOFTWARE, 6, false),
    (&["alignment-faults"], TYPE_SOFTWARE, 7, false),
    (&["emulation-faults"], TYPE_SOFTWARE, 8, false),
    (&["L1-dcache-loads"], TYPE_HW_CACHE, cache(0, false), false),
    (
        &["L1-dcache-load-misses"],
        TYPE_HW_CACHE,
        cache(0, true),
        false,
    ),
    (&["LLC-loads"], TYPE_HW_CACHE, cache(2, false), false),
    (&["LLC-load-misses"], TYPE_HW_CACHE, cache(2, true), false),
    (&["dTLB-load-misses"], TYPE_HW_CACHE, cache(3, true), false),
];

/// The event for one name (case-insensitive; `rNNNN` is a raw PMU event
/// in hexadecimal), with its canonical name.
pub fn lookup(name: &str) -> Option<Event> {
    for (names, type_, config, kernel_only) in TABLE {
        if names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            return Some(Event {
                name: names[0].to_string(),
                type_: *type_,
                config: *config,
                kernel_only: *kernel_only,
            });
        }
    }
    let hex = name.strip_prefix('r')?;
    if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(Event {
        name: name.to_ascii_lowercase(),
        type_: TYPE_RAW,
        config: u64::from_str_radix(hex, 16).ok()?,
        kernel_only: false,
    })
}

/// Every name `lookup` knows (canonical only), for messages.
pub fn known_names() -> Vec<&'static str> {
    TABLE.iter().map(|t| t.0[0]).collect()
}

/// One entry of `REGIO_COUNTERS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Known(Event),
    Unknown(String),
}

/// Splits a comma list: entries trimmed, empty ones skipped, a name given
/// twice (also through an alias) kept once, in first-seen order.
pub fn parse(spec: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for raw in spec.split(',') {
        let name = raw.trim();
        if name.is_empty() {
            continue;
        }
        let entry = match lookup(name) {
            Some(e) => Entry::Known(e),
            None => Entry::Unknown(name.to_string()),
        };
        let dup = out.iter().any(|o| match (o, &entry) {
            (Entry::Known(a), Entry::Known(b)) => a.name == b.name,
            (Entry::Unknown(a), Entry::Unknown(b)) => a == b,
            _ => false,
        });
        if !dup {
            out.push(entry);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_and_raw_events() {
        let e = lookup("Instructions").unwrap();
        assert_eq!((e.name.as_str(), e.type_, e.config), ("instructions", 0, 1));
        assert_eq!(lookup("cs").unwrap().name, "context-switches");
        assert!(lookup("cs").unwrap().kernel_only);
        assert!(!lookup("page-faults").unwrap().kernel_only);
        let r = lookup("r01c2").unwrap();
        assert_eq!((r.type_, r.config), (TYPE_RAW, 0x1c2));
        assert_eq!(lookup("rz"), None);
        assert_eq!(lookup("r"), None);
        assert_eq!(lookup("bogus"), None);
        assert_eq!(lookup("LLC-load-misses").unwrap().config, 2 | 1 << 16);
    }

    #[test]
    fn lists_keep_order_and_drop_duplicates_and_blanks() {
        let p = parse(" task-clock,,faults , page-faults,nope,instructions,nope");
        let names: Vec<String> = p
            .iter()
            .map(|e| match e {
                Entry::Known(e) => e.name.clone(),
                Entry::Unknown(n) => format!("?{n}"),
            })
            .collect();
        assert_eq!(
            names,
            ["task-clock", "page-faults", "?nope", "instructions"]
        );
        assert!(parse("").is_empty());
    }
}
