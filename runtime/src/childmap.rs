//! Per-thread map (parent node, region) -> child node.
//!
//! Open addressing with linear probing: a miss in a node's one-entry cache
//! costs one multiply and usually one cache line, and the table only
//! allocates when it grows, which happens only while nodes are created.

use crate::node::Node;

const EMPTY: u64 = u64::MAX;

pub struct ChildMap {
    keys: Vec<u64>,
    values: Vec<*const Node>,
    len: usize,
}

#[inline]
pub fn key(parent: u32, region: u32) -> u64 {
    (parent as u64) << 32 | region as u64
}

/// Key under which the newest node of `region` is kept (the head of the
/// region's list through `Node::next_same`). No node has index u32::MAX
/// (the arena stops below it), so it never collides with a child key.
#[inline]
pub fn region_key(region: u32) -> u64 {
    key(u32::MAX, region)
}

#[inline]
fn slot(key: u64, mask: usize) -> usize {
    // Fibonacci hashing: the high bits of the product mix both halves.
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

impl ChildMap {
    pub fn new() -> ChildMap {
        ChildMap::with_capacity(64)
    }

    fn with_capacity(cap: usize) -> ChildMap {
        debug_assert!(cap.is_power_of_two());
        ChildMap {
            keys: vec![EMPTY; cap],
            values: vec![std::ptr::null(); cap],
            len: 0,
        }
    }

    pub fn get(&self, key: u64) -> Option<*const Node> {
        let mask = self.keys.len() - 1;
        let mut i = slot(key, mask);
        loop {
            let k = self.keys[i];
            if k == key {
                return Some(self.values[i]);
            }
            if k == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets the value of `key`, inserting it if needed.
    pub fn set(&mut self, key: u64, value: *const Node) {
        let mask = self.keys.len() - 1;
        let mut i = slot(key, mask);
        loop {
            match self.keys[i] {
                k if k == key => {
                    self.values[i] = value;
                    return;
                }
                EMPTY => break,
                _ => i = (i + 1) & mask,
            }
        }
        self.insert(key, value);
    }

    /// Inserts a key that is not present yet.
    pub fn insert(&mut self, key: u64, value: *const Node) {
        debug_assert_ne!(key, EMPTY);
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        self.place(key, value);
        self.len += 1;
    }

    fn place(&mut self, key: u64, value: *const Node) {
        let mask = self.keys.len() - 1;
        let mut i = slot(key, mask);
        while self.keys[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.keys[i] = key;
        self.values[i] = value;
    }

    /// Every (key, value) pair.
    #[cfg(test)]
    pub fn entries(&self) -> impl Iterator<Item = (u64, *const Node)> + '_ {
        self.keys
            .iter()
            .zip(&self.values)
            .filter(|(k, _)| **k != EMPTY)
            .map(|(k, v)| (*k, *v))
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, ChildMap::with_capacity(self.keys.len() * 2));
        for (k, v) in old.keys.into_iter().zip(old.values) {
            if k != EMPTY {
                self.place(k, v);
                self.len += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_inserted_key_across_growth() {
        let mut m = ChildMap::new();
        let fake = |i: usize| i as *const Node;
        for p in 0..50u32 {
            for r in 0..40u32 {
                m.insert(key(p, r), fake((p * 1000 + r) as usize + 1));
            }
        }
        for p in 0..50u32 {
            for r in 0..40u32 {
                assert_eq!(m.get(key(p, r)), Some(fake((p * 1000 + r) as usize + 1)));
            }
        }
        assert_eq!(m.get(key(50, 0)), None);
        assert_eq!(m.get(key(0, 40)), None);
        assert_eq!(m.len, 2000);
        m.set(key(3, 4), fake(7));
        m.set(region_key(4), fake(8));
        assert_eq!(m.get(key(3, 4)), Some(fake(7)));
        assert_eq!(m.get(region_key(4)), Some(fake(8)));
        assert_eq!(m.len, 2001);
        assert!(m.keys.len() >= 4000);
    }
}
