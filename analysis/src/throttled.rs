//! Regions the runtime throttled (`REGIO_THROTTLE`): which nodes stopped
//! being measured and at what call count, for the report's list and note.

use serde::{Deserialize, Serialize};

use crate::merge::Report;

/// What every rendering says about throttled regions.
pub const NOTE: &str = "throttled regions (REGIO_THROTTLE) were measured only up to the call count shown; their later calls were neither timed nor counted, so their parent's exclusive time includes them (REGIO_THROTTLE=off measures everything)";

/// One throttled node of the merged DRG.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttled {
    pub name: String,
    pub kind: String,
    /// `file:line`, empty when undescribed.
    pub location: String,
    /// Region names from the root down to the parent (the parent last;
    /// empty for a root).
    pub parents: Vec<String>,
    /// Calls counted before the region stopped being measured (summed over
    /// the threads and processes where it was throttled).
    pub throttled_at: u64,
}

/// Every throttled node of `r`, in tree order.
pub fn throttled(r: &Report) -> Vec<Throttled> {
    let mut out = Vec::new();
    r.walk(&mut |n, path| {
        if let Some(at) = n.throttled_at {
            out.push(Throttled {
                name: n.info.name.clone(),
                kind: n.info.kind.clone(),
                location: n.info.location(),
                parents: path[..path.len().saturating_sub(1)]
                    .iter()
                    .map(|p| p.info.name.clone())
                    .collect(),
                throttled_at: at,
            });
        }
    });
    out
}
