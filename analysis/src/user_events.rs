//! User events of a run (`regio_event(name, value)`), from the profiles'
//! per-thread statistics: per merged DRG node (its region-id path; the
//! empty path for events fired with no region open) and name, count, min,
//! max, sum and mean over every thread and process.

use std::collections::BTreeMap;

use regio_idf::rundir::{Profile, UserEventRecord};
use serde::{Deserialize, Serialize};

use crate::comm::paths;
use crate::merge::Report;
use crate::render::path_names;
use crate::RunDir;

/// One name's values on one merged node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventStat {
    pub name: String,
    pub count: u64,
    /// None when some value was not finite (NaN, infinite): the profile
    /// cannot hold it, so the figure is unknown.
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub sum: Option<f64>,
    /// `sum / count`.
    pub mean: Option<f64>,
    /// The same figures per rank (MPI rank; 0 without MPI), by rank.
    /// Written (JSON) only when more than one rank fired the event: for
    /// one rank it would repeat the figures above.
    #[serde(default, skip_serializing_if = "one_rank")]
    pub per_rank: Vec<RankEventStat>,
}

fn one_rank(per_rank: &[RankEventStat]) -> bool {
    per_rank.len() <= 1
}

/// One name's values on one merged node in the processes of one rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankEventStat {
    pub rank: u32,
    pub count: u64,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub sum: Option<f64>,
    pub mean: Option<f64>,
}

/// The user events of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserEvents {
    /// By the region-id path of the node (root first; empty: no region
    /// open); each list sorted by name.
    pub per_node: BTreeMap<Vec<u32>, Vec<EventStat>>,
    /// Events the threads' full tables (or signal handlers interrupting a
    /// probe) could not keep, over all threads.
    pub dropped: u64,
    /// Events recorded nowhere (a process's name table full), all processes.
    pub lost: u64,
}

impl UserEvents {
    pub fn is_empty(&self) -> bool {
        self.per_node.is_empty() && self.dropped == 0 && self.lost == 0
    }
}

fn both(a: Option<f64>, b: Option<f64>, f: fn(f64, f64) -> f64) -> Option<f64> {
    Some(f(a?, b?))
}

fn add_record(list: &mut Vec<EventStat>, rank: u32, e: &UserEventRecord) {
    let at = match list.iter().position(|s| s.name == e.name) {
        Some(i) => {
            let s = &mut list[i];
            s.count += e.count;
            s.min = both(s.min, e.min, f64::min);
            s.max = both(s.max, e.max, f64::max);
            s.sum = both(s.sum, e.sum, |a, b| a + b);
            i
        }
        None => {
            list.push(EventStat {
                name: e.name.clone(),
                count: e.count,
                min: e.min,
                max: e.max,
                sum: e.sum,
                mean: None,
                per_rank: Vec::new(),
            });
            list.len() - 1
        }
    };
    let per_rank = &mut list[at].per_rank;
    match per_rank.iter_mut().find(|r| r.rank == rank) {
        Some(r) => {
            r.count += e.count;
            r.min = both(r.min, e.min, f64::min);
            r.max = both(r.max, e.max, f64::max);
            r.sum = both(r.sum, e.sum, |a, b| a + b);
        }
        None => per_rank.push(RankEventStat {
            rank,
            count: e.count,
            min: e.min,
            max: e.max,
            sum: e.sum,
            mean: None,
        }),
    }
}

fn mean(sum: Option<f64>, count: u64) -> Option<f64> {
    sum.filter(|_| count > 0).map(|x| x / count as f64)
}

fn add_profile(p: &Profile, u: &mut UserEvents) {
    u.lost += p.user_events_lost;
    for t in &p.threads {
        u.dropped += t.user_events_dropped;
        if t.user_events.is_empty() {
            continue;
        }
        let paths = paths(&t.nodes);
        for e in &t.user_events {
            let path = match e.node {
                None => Vec::new(),
                Some(n) => match paths.get(n as usize) {
                    Some(p) => p.clone(),
                    // A node the profile does not list (a snapshot read
                    // the table after the node list): nowhere to show it.
                    None => continue,
                },
            };
            add_record(u.per_node.entry(path).or_default(), p.rank, e);
        }
    }
}

/// The user events of `run`.
pub fn user_events(run: &RunDir) -> UserEvents {
    let mut u = UserEvents::default();
    for p in &run.profiles {
        add_profile(p, &mut u);
    }
    for list in u.per_node.values_mut() {
        list.sort_by(|a, b| a.name.cmp(&b.name));
        for s in list.iter_mut() {
            s.mean = mean(s.sum, s.count);
            s.per_rank.sort_by_key(|r| r.rank);
            for r in s.per_rank.iter_mut() {
                r.mean = mean(r.sum, r.count);
            }
        }
    }
    u
}

/// The rows of the reports' "user events" section: events fired with no
/// region open first (`(no region)`), then the nodes in DRG order, each
/// named by its path of region names (`;`-separated).
pub(crate) fn rows(r: &Report) -> Vec<(String, &[EventStat])> {
    let u = &r.user_events;
    let mut out: Vec<(String, &[EventStat])> = Vec::new();
    if let Some(list) = u.per_node.get(&Vec::new()) {
        out.push(("(no region)".into(), list));
    }
    let mut shown = 0usize;
    r.walk(&mut |_, path| {
        let key: Vec<u32> = path.iter().map(|n| n.region).collect();
        if let Some(list) = u.per_node.get(&key) {
            out.push((path_names(path), list));
            shown += 1;
        }
    });
    // Nodes missing from the DRG (none when the profiles are consistent).
    if shown + usize::from(u.per_node.contains_key(&Vec::new())) < u.per_node.len() {
        let mut known: std::collections::HashSet<Vec<u32>> = Default::default();
        r.walk(&mut |_, path| {
            known.insert(path.iter().map(|n| n.region).collect());
        });
        for (key, list) in &u.per_node {
            if !key.is_empty() && !known.contains(key) {
                let names: Vec<String> = key.iter().map(|id| format!("region#{id}")).collect();
                out.push((names.join(";"), list));
            }
        }
    }
    out
}

/// What the section says under its table about events not kept.
pub(crate) fn loss_notes(u: &UserEvents) -> Vec<String> {
    let mut notes = Vec::new();
    if u.dropped > 0 {
        notes.push(format!(
            "{} user events not kept: a thread's table of (node, name) pairs was full, or the event interrupted a probe (signal handler)",
            u.dropped
        ));
    }
    if u.lost > 0 {
        notes.push(format!(
            "{} user events recorded nowhere: a process's table of event names was full",
            u.lost
        ));
    }
    notes
}

/// A value for people: the shortest exact text when it is short, else
/// six significant digits; `-` when unknown.
pub(crate) fn value_text(v: Option<f64>) -> String {
    let Some(v) = v else {
        return "-".into();
    };
    let exact = v.to_string();
    if exact.len() <= 12 {
        exact
    } else {
        format!("{v:.5e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_for_people_stay_short() {
        assert_eq!(value_text(Some(2.5)), "2.5");
        assert_eq!(value_text(Some(1e-12)), "1.00000e-12");
        assert_eq!(value_text(Some(0.1 + 0.2)), "3.00000e-1");
        assert_eq!(value_text(None), "-");
    }

    #[test]
    fn records_merge_by_name_and_unknown_values_stay_unknown() {
        let rec = |name: &str, count, min, max, sum| UserEventRecord {
            node: None,
            name: name.into(),
            count,
            min,
            max,
            sum,
        };
        let mut list = Vec::new();
        add_record(&mut list, 0, &rec("a", 2, Some(1.0), Some(3.0), Some(4.0)));
        add_record(
            &mut list,
            0,
            &rec("a", 1, Some(-1.0), Some(2.0), Some(-1.0)),
        );
        add_record(&mut list, 0, &rec("b", 1, None, None, None));
        add_record(&mut list, 1, &rec("b", 1, Some(0.0), Some(0.0), Some(0.0)));
        assert_eq!(list[0].count, 3);
        assert_eq!(
            (list[0].min, list[0].max, list[0].sum),
            (Some(-1.0), Some(3.0), Some(3.0))
        );
        assert_eq!((list[1].count, list[1].min, list[1].sum), (2, None, None));
        // Per rank: rank 0's unknown value stays its own.
        let b: Vec<_> = list[1]
            .per_rank
            .iter()
            .map(|r| (r.rank, r.count, r.min, r.sum))
            .collect();
        assert_eq!(b, [(0, 1, None, None), (1, 1, Some(0.0), Some(0.0))]);
    }
}
