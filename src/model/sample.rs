//! What a rollout that is a sample of a training run carries besides its text: its step,
//! its GRPO group, the stored training reward, how it found its task, whether its `gts` is
//! the task's expected result, and the line's other keys. Read by `verl` (which fills it) and by every
//! layer above (figures, the reward's ground truth, the explorer's columns).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// How a sample found its task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoinedBy {
    /// The text under `### Problem` is a dataset query.
    Problem,
    /// The longest dataset query the prompt contains.
    Contained,
    /// No dataset query matches.
    Unjoined,
}

/// What a sample carries besides its rollout: where it sits in the training run.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleMeta {
    pub step: u32,
    /// The run-wide number of its GRPO group's key (with the step, its group): the prompt
    /// part of its `uid` when the line has one, else its prompt text.
    pub group: u32,
    /// The prompt part of its `uid` (`None`: the dump has no uid; grouped by prompt text).
    pub group_uid: Option<Arc<str>>,
    /// The stored training reward (`score`), when it is a number: as written, so `NaN`
    /// and `±Infinity` too (shown as such; the figures count them as unknown).
    pub score: Option<f64>,
    pub joined: JoinedBy,
    /// The sample's `gts` when it is not the task's `right_exe_result` (`None`: the same,
    /// or no task to compare with, or no `gts`).
    pub gts_differs: Option<Arc<str>>,
    /// Its output is empty (or only blanks): verl dumps an aborted request that way.
    pub empty_output: bool,
    /// The line's other keys (reward extras such as `acc`, `request_id`), as written
    /// (shared across a run's samples: [`SharedExtras`]).
    pub extras: Box<[(Arc<str>, Arc<str>)]>,
}

impl SampleMeta {
    /// The value of extra key `key`, as written (`None`: the line has no such key).
    pub fn extra(&self, key: &str) -> Option<&str> {
        self.extras
            .iter()
            .find(|(k, _)| &**k == key)
            .map(|(_, v)| &**v)
    }
}

/// Distinct values of one key shared at most; past that its values are each sample's own
/// (a `request_id` is different on every line: sharing it would only cost a table).
pub const SHARED_VALUES_PER_KEY: usize = 256;

/// The extra keys of a run's samples, and the values of keys with few of them (`acc`'s
/// `True`/`False`/`null`), each held once for every sample of the run: 200,000 samples
/// then hold pointers, not 200,000 copies of `acc` and `True`.
#[derive(Debug, Default)]
pub struct SharedExtras {
    /// Key → its shared values (`None`: more than [`SHARED_VALUES_PER_KEY`] seen).
    keys: HashMap<Arc<str>, Option<HashSet<Arc<str>>>>,
}

impl SharedExtras {
    /// A line's extras, keys and values shared where they can be.
    pub fn share(&mut self, extras: Vec<(String, String)>) -> Box<[(Arc<str>, Arc<str>)]> {
        extras
            .into_iter()
            .map(|(k, v)| {
                let (key, values) = match self.keys.get_key_value(k.as_str()) {
                    Some((key, _)) => {
                        let key = key.clone();
                        let values = self.keys.get_mut(&key).and_then(Option::as_mut);
                        (key.clone(), values)
                    }
                    None => {
                        let key: Arc<str> = Arc::from(k);
                        let values = self
                            .keys
                            .entry(key.clone())
                            .or_insert_with(|| Some(HashSet::new()))
                            .as_mut();
                        (key, values)
                    }
                };
                let value = match values {
                    Some(set) => match set.get(v.as_str()) {
                        Some(shared) => shared.clone(),
                        None if set.len() < SHARED_VALUES_PER_KEY => {
                            let shared: Arc<str> = Arc::from(v);
                            set.insert(shared.clone());
                            shared
                        }
                        None => {
                            // Too many values to share: this key's are each line's own.
                            self.keys.insert(key.clone(), None);
                            Arc::from(v)
                        }
                    },
                    None => Arc::from(v),
                };
                (key, value)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `acc` (three values) is held once per value; `request_id` (one per line) stops being
    /// shared past [`SHARED_VALUES_PER_KEY`]; every value reads back as written.
    #[test]
    fn few_values_are_shared_and_unique_ones_are_not() {
        let mut shared = SharedExtras::default();
        let lines: Vec<_> = (0..1000)
            .map(|i| {
                let acc = ["True", "False", "null"][i % 3].to_string();
                shared.share(vec![
                    ("acc".into(), acc),
                    ("request_id".into(), format!("r-{i}")),
                ])
            })
            .collect();
        for (i, l) in lines.iter().enumerate() {
            assert_eq!(&*l[0].1, ["True", "False", "null"][i % 3]);
            assert_eq!(*l[1].1, *format!("r-{i}"));
            assert!(Arc::ptr_eq(&l[0].0, &lines[0][0].0), "one `acc` key");
            assert!(Arc::ptr_eq(&l[0].1, &lines[i % 3][0].1), "one `True`");
        }
        assert!(shared.keys["request_id"].is_none(), "too many to share");
        assert_eq!(shared.keys["acc"].as_ref().map(HashSet::len), Some(3));
    }
}
