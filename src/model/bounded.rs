//! A map bounded in size that keeps what was used last: when it is full, the least recently
//! used half goes (one sort per half-fill, so inserting stays cheap on average). The caches
//! of per-task analysis work and the explorer's highlighted texts use it.

use std::collections::HashMap;
use std::hash::Hash;

/// A map of at most `limit` entries, dropping the least recently used first.
#[derive(Debug)]
pub struct Bounded<K, V> {
    entries: HashMap<K, (V, u64)>,
    limit: usize,
    clock: u64,
}

impl<K: Hash + Eq + Clone, V> Bounded<K, V> {
    /// An empty map that holds at most `limit` entries (at least 2).
    pub fn new(limit: usize) -> Bounded<K, V> {
        Bounded {
            entries: HashMap::new(),
            limit: limit.max(2),
            clock: 0,
        }
    }

    /// The value of `key`, which now counts as just used.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(key).map(|(v, used)| {
            *used = clock;
            &*v
        })
    }

    /// The value of `key`, without counting as a use (for readers that cannot change the map).
    pub fn peek(&self, key: &K) -> Option<&V> {
        self.entries.get(key).map(|(v, _)| v)
    }

    /// Whether `key` is held (without counting as a use).
    pub fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    /// Number of entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps only the entries whose key `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.entries.retain(|k, _| keep(k));
    }

    /// Holds `value` under `key`; returns the keys dropped to make room (none most times).
    pub fn insert(&mut self, key: K, value: V) -> Vec<K> {
        self.clock += 1;
        let mut dropped = Vec::new();
        if !self.entries.contains_key(&key) && self.entries.len() >= self.limit {
            let mut by_use: Vec<(u64, K)> = self
                .entries
                .iter()
                .map(|(k, (_, used))| (*used, k.clone()))
                .collect();
            let keep = self.limit / 2;
            let cut = by_use.len() - keep;
            by_use.select_nth_unstable_by_key(cut - 1, |(used, _)| *used);
            for (_, k) in by_use.drain(..cut) {
                self.entries.remove(&k);
                dropped.push(k);
            }
        }
        self.entries.insert(key, (value, self.clock));
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_half_goes_when_full() {
        let mut m = Bounded::new(4);
        for k in 0..4 {
            assert!(m.insert(k, k * 10).is_empty());
        }
        // 0 and 1 are used again: 2 and 3 are now the least recently used.
        assert_eq!(m.get(&0), Some(&0));
        assert_eq!(m.get(&1), Some(&10));
        let mut dropped = m.insert(4, 40);
        dropped.sort_unstable();
        assert_eq!(dropped, [2, 3]);
        assert_eq!(m.len(), 3);
        assert!(m.contains(&0) && m.contains(&1) && m.contains(&4));
        assert_eq!(m.get(&2), None);
    }

    #[test]
    fn replacing_a_held_key_drops_nothing_and_size_stays_bounded() {
        let mut m = Bounded::new(3);
        for k in 0..3 {
            m.insert(k, ());
        }
        assert!(m.insert(1, ()).is_empty());
        for k in 3..100 {
            m.insert(k, ());
            assert!(m.len() <= 3);
        }
        assert!(m.contains(&99));
    }
}
