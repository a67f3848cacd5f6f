//! A thread's `nodes` on disk: one JSON array (a row) per node since
//! profile version 2, one object with named fields in version 1.
//!
//! A row is positional and its id implicit (its index in `nodes`):
//!
//! ```text
//! [parent_delta, region, calls, inclusive_ns, exclusive_ns, min_ns, max_ns,
//!  recursive_calls, open, polls, span_ns, {rare fields}]
//! ```
//!
//! - `parent_delta`: id minus the parent's id (parents precede their
//!   children, so it is at least 1); 0 for a node with no parent.
//! - Trailing zero numbers are left out (a reader takes a missing number
//!   as 0); `parent_delta` and `region` are always written.
//! - The rare fields, when a node has any, follow as one object with their
//!   names: `throttled_at`, `counters` (NodeRecord's meaning). A reader
//!   ignores names it does not know, so later fields can be added there.
//!
//! A row of a typical node is 20 to 40 bytes where the version-1 object
//! with fixed-width numbers took 337. The reader takes either form in
//! either version, so old run directories keep loading.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use super::NodeRecord;

/// Number of positional numbers in a row (the rare-field object aside).
pub const ROW_NUMBERS: usize = 11;

/// The fields of `NodeRecord` that live in a row's trailing object.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Rare {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    throttled_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counters: Option<Vec<u64>>,
}

/// The row's numbers of `n` at index `id`, in row order.
fn numbers(id: u32, n: &NodeRecord) -> [u64; ROW_NUMBERS] {
    let delta = n.parent.map_or(0, |p| u64::from(id.saturating_sub(p)));
    [
        delta,
        u64::from(n.region),
        n.calls,
        n.inclusive_ns,
        n.exclusive_ns,
        n.min_ns,
        n.max_ns,
        n.recursive_calls,
        u64::from(n.open),
        n.polls,
        n.span_ns,
    ]
}

struct Row<'a>(u32, &'a NodeRecord);

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let values = numbers(self.0, self.1);
        let mut len = ROW_NUMBERS;
        while len > 2 && values[len - 1] == 0 {
            len -= 1;
        }
        let rare = Rare {
            throttled_at: self.1.throttled_at,
            counters: self.1.counters.clone(),
        };
        let has_rare = rare.throttled_at.is_some() || rare.counters.is_some();
        let mut seq = s.serialize_seq(Some(len + usize::from(has_rare)))?;
        for v in &values[..len] {
            seq.serialize_element(v)?;
        }
        if has_rare {
            seq.serialize_element(&rare)?;
        }
        seq.end()
    }
}

/// `#[serde(serialize_with)]` of `ThreadProfile::nodes`: rows.
pub fn serialize<S: Serializer>(nodes: &[NodeRecord], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(nodes.len()))?;
    for (i, n) in nodes.iter().enumerate() {
        seq.serialize_element(&Row(u32::try_from(i).unwrap_or(u32::MAX), n))?;
    }
    seq.end()
}

/// `#[serde(deserialize_with)]` of `ThreadProfile::nodes`: rows or objects.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<NodeRecord>, D::Error> {
    d.deserialize_seq(NodesVisitor)
}

struct NodesVisitor;

impl<'de> Visitor<'de> for NodesVisitor {
    type Value = Vec<NodeRecord>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of nodes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        loop {
            let id = u32::try_from(out.len())
                .map_err(|_| de::Error::custom("more nodes than ids (2^32)"))?;
            match seq.next_element_seed(NodeSeed(id))? {
                Some(n) => out.push(n),
                None => return Ok(out),
            }
        }
    }
}

/// One node at index `.0`: a row, or a version-1 object (which carries
/// its id itself; `load` checks it against the index).
struct NodeSeed(u32);

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = NodeRecord;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<NodeRecord, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed {
    type Value = NodeRecord;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a node row (array) or node object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<NodeRecord, A::Error> {
        NodeRecord::deserialize(de::value::MapAccessDeserializer::new(map))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NodeRecord, A::Error> {
        let id = self.0;
        let mut v = [0u64; ROW_NUMBERS];
        let mut len = 0;
        let mut rare = Rare::default();
        while let Some(item) = seq.next_element::<Item>()? {
            match item {
                Item::Number(x) if len < ROW_NUMBERS => {
                    v[len] = x;
                    len += 1;
                }
                Item::Number(_) => {
                    return Err(de::Error::custom(format_args!(
                        "node {id}: more than {ROW_NUMBERS} numbers in its row"
                    )))
                }
                Item::Rare(r) => {
                    rare = r;
                    // Nothing follows the rare fields.
                    if seq.next_element::<de::IgnoredAny>()?.is_some() {
                        return Err(de::Error::custom(format_args!(
                            "node {id}: its row goes on after the object of rare fields"
                        )));
                    }
                    break;
                }
            }
        }
        if len < 2 {
            return Err(de::Error::custom(format_args!(
                "node {id}: a row needs at least parent delta and region"
            )));
        }
        let narrow = |x: u64, what: &str| {
            u32::try_from(x)
                .map_err(|_| de::Error::custom(format_args!("node {id}: {what} {x} is too large")))
        };
        let delta = narrow(v[0], "parent delta")?;
        let parent = match delta {
            0 => None,
            d if d <= id => Some(id - d),
            d => {
                return Err(de::Error::custom(format_args!(
                    "node {id}: parent delta {d} reaches before the first node"
                )))
            }
        };
        Ok(NodeRecord {
            id,
            parent,
            region: narrow(v[1], "region")?,
            calls: v[2],
            inclusive_ns: v[3],
            exclusive_ns: v[4],
            min_ns: v[5],
            max_ns: v[6],
            recursive_calls: v[7],
            open: narrow(v[8], "open")?,
            polls: v[9],
            span_ns: v[10],
            counters: rare.counters,
            throttled_at: rare.throttled_at,
        })
    }
}

/// One element of a row: a number or the object of rare fields.
enum Item {
    Number(u64),
    Rare(Rare),
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Item, D::Error> {
        d.deserialize_any(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a non-negative integer or an object of rare node fields")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Item, E> {
        Ok(Item::Number(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Item, E> {
        u64::try_from(v)
            .map(Item::Number)
            .map_err(|_| E::custom(format_args!("negative number {v} in a node row")))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Item, A::Error> {
        Rare::deserialize(de::value::MapAccessDeserializer::new(map)).map(Item::Rare)
    }
}
