//! Process-wide caches of results computed from a text, keyed by its hash and bounded in
//! size: the check of a task's harness is the same for every sample of the task.

use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex};

use crate::model::bounded::Bounded;

/// A process-wide cache of results computed from (a hash of) a text, bounded in size
/// (the least recently used go first).
pub(crate) type PerTextCache<K, V> = LazyLock<Mutex<Bounded<K, V>>>;

/// `cache[key]`, computed by `compute` the first time. A poisoned lock only loses the
/// caching.
pub(crate) fn remembered<K: Hash + Eq + Clone, V: Clone>(
    cache: &Mutex<Bounded<K, V>>,
    key: K,
    compute: impl FnOnce() -> V,
) -> V {
    if let Some(v) = cache.lock().ok().and_then(|mut c| c.get(&key).cloned()) {
        return v;
    }
    let value = compute();
    if let Ok(mut c) = cache.lock() {
        c.insert(key, value.clone());
    }
    value
}

pub(crate) fn text_hash(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}
