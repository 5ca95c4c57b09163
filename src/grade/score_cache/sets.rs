//! Looking up the facts of a run's rows in segments (the explorer's loading batches): a
//! segment the store holds as a set ([`crate::grade::store::NewSet`]) is read as one row;
//! the others are read row by row, and each of those that has enough rows is written as a
//! set for the next time. A set's key is a hash of the scorer asked and its members'
//! record keys, so another cut, other rows, other settings or another grader never find
//! it; the store says whether it still holds (no facts deleted, replaced or, where an
//! added record could change an answer, added since it was read).
//!
//! A set's facts: the distinct facts (JSON, as a record's), then one 16-bit index per
//! member (`0xffff`: no facts).

use std::ops::Range;

use sha2::{Digest, Sha256};

use super::{Keys, ScoreCache, answering};
use crate::grade::facts::Facts;
use crate::grade::store::NewSet;
use crate::model::Rollout;

/// Segments shorter than this are read row by row and never kept as sets (a row opened,
/// a few replaced lines).
pub const MIN_SET_ROWS: usize = 32;

/// A member without facts.
const NONE: u16 = u16::MAX;

fn set_key(scorer: crate::grade::reward::Scorer, members: &[String]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"set\0");
    hasher.update(scorer.as_str().as_bytes());
    for m in members {
        hasher.update([0u8]);
        hasher.update(m.as_bytes());
    }
    crate::model::rollout::hex(&hasher.finalize()[..16])
}

/// The facts of a set's members (none: too many distinct facts to index).
fn encode(answers: &[Option<Facts>]) -> Option<Vec<u8>> {
    let mut distinct: Vec<Vec<u8>> = Vec::new();
    let mut index: std::collections::HashMap<Vec<u8>, u16> = std::collections::HashMap::new();
    let mut members = Vec::with_capacity(answers.len() * 2);
    for a in answers {
        let i = match a {
            None => NONE,
            Some(facts) => {
                let json = serde_json::to_vec(facts).ok()?;
                match index.get(&json) {
                    Some(&i) => i,
                    None => {
                        let i = u16::try_from(distinct.len()).ok().filter(|&i| i != NONE)?;
                        index.insert(json.clone(), i);
                        distinct.push(json);
                        i
                    }
                }
            }
        };
        members.extend_from_slice(&i.to_le_bytes());
    }
    let mut out = Vec::new();
    out.extend_from_slice(&(distinct.len() as u32).to_le_bytes());
    for d in &distinct {
        out.extend_from_slice(&(d.len() as u32).to_le_bytes());
        out.extend_from_slice(d);
    }
    out.extend_from_slice(&members);
    Some(out)
}

/// The facts of a set of `n` members (none: not a set of `n` members this code reads).
fn decode(bytes: &[u8], n: usize) -> Option<Vec<Option<Facts>>> {
    let mut at = 0usize;
    let mut take = |len: usize| {
        let part = bytes.get(at..at.checked_add(len)?)?;
        at += len;
        Some(part)
    };
    let count = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
    let mut distinct = Vec::with_capacity(count.min(4096));
    for _ in 0..count {
        let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        distinct.push(serde_json::from_slice::<Facts>(take(len)?).ok()?);
    }
    let members = take(n.checked_mul(2)?)?;
    if at != bytes.len() {
        return None;
    }
    members
        .chunks_exact(2)
        .map(|pair| match u16::from_le_bytes([pair[0], pair[1]]) {
            NONE => Some(None),
            i => distinct.get(i as usize).cloned().map(Some),
        })
        .collect()
}

impl ScoreCache {
    /// How many rows [`ScoreCache::facts_cut`] answered from sets so far.
    pub fn rows_read_by_sets(&self) -> usize {
        self.read_by_sets.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// [`ScoreCache::facts_many`] of rollouts cut into segments (`cuts`: each segment's
    /// end, increasing; the rollouts past the last form one more): a segment kept as a set
    /// is read as one row; the others row by row, and those of [`MIN_SET_ROWS`] or more
    /// are then kept as sets. The same answers as `facts_many`, in order.
    pub fn facts_cut(&self, rollouts: &[&Rollout], cuts: &[usize]) -> Vec<Option<Facts>> {
        let ns = self.table.namespace();
        let scorer = self.settings.scorer;
        let first = answering(scorer)[0];
        let mut keys = Keys::new(&self.settings);
        let row_keys: Vec<String> = rollouts.iter().map(|r| keys.key(r, first)).collect();
        let mut segments: Vec<Range<usize>> = Vec::new();
        let mut start = 0;
        for &end in cuts.iter().chain(std::iter::once(&rollouts.len())) {
            let end = end.min(rollouts.len());
            if end > start {
                segments.push(start..end);
                start = end;
            }
        }
        let sets: Vec<(Range<usize>, String)> = segments
            .into_iter()
            .filter(|s| s.len() >= MIN_SET_ROWS)
            .map(|s| {
                let key = set_key(scorer, &row_keys[s.clone()]);
                (s, key)
            })
            .collect();
        let mut out: Vec<Option<Facts>> = vec![None; rollouts.len()];
        let mut answered = vec![false; rollouts.len()];
        // The counters first: a set written from the reads below holds only if nothing
        // changed since.
        let mut seen = None;
        let mut missed: Vec<&(Range<usize>, String)> = Vec::new();
        if !sets.is_empty() {
            let read = self.table.read(|reader| {
                let counters = reader.counters()?;
                let mut found = Vec::new();
                for set in &sets {
                    let facts = reader
                        .set(ns, &set.1, counters)?
                        .and_then(|bytes| decode(&bytes, set.0.len()));
                    found.push(facts);
                }
                Ok((counters, found))
            });
            match read {
                Ok((counters, found)) => {
                    seen = Some(counters);
                    for (set, facts) in sets.iter().zip(found) {
                        match facts {
                            Some(facts) => {
                                self.read_by_sets
                                    .fetch_add(set.0.len(), std::sync::atomic::Ordering::Relaxed);
                                for (i, f) in set.0.clone().zip(facts) {
                                    out[i] = f;
                                    answered[i] = true;
                                }
                            }
                            None => missed.push(set),
                        }
                    }
                }
                Err(_) => missed.extend(sets.iter()),
            }
        }
        let which: Vec<usize> = (0..rollouts.len()).filter(|&i| !answered[i]).collect();
        let by_row = self.facts_by_row(rollouts, &row_keys, &which, &mut keys);
        let mut scorers = vec![None; rollouts.len()];
        for (&i, answer) in which.iter().zip(by_row) {
            if let Some((s, facts)) = answer {
                scorers[i] = Some(s);
                out[i] = Some(facts);
            }
        }
        if let Some(seen) = seen {
            let new: Vec<NewSet> = missed
                .iter()
                // A batch the cache knows nothing of (a first opening) is not worth a set.
                .filter(|(range, _)| out[range.clone()].iter().any(Option::is_some))
                .filter_map(|(range, key)| {
                    Some(NewSet {
                        key: key.clone(),
                        members: row_keys[range.clone()].iter().map(String::as_str).collect(),
                        facts: encode(&out[range.clone()])?,
                        // An answer from the best scorer's record cannot be bettered by
                        // a record added later.
                        settled: scorers[range.clone()].iter().all(|s| *s == Some(first)),
                    })
                })
                .collect();
            // A set that cannot be written only costs a row-by-row read next time.
            let _ = self.table.store().put_sets(ns, &new, seen);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::verdict::Verdict;

    #[test]
    fn a_sets_facts_read_back_as_written() {
        let pass = Facts {
            verdict: Some(Verdict::Right),
            reward: Some(1),
            reward_run: true,
            cases: Some((0, 3)),
            ..Facts::default()
        };
        let fail = Facts {
            verdict: Some(Verdict::ResultError),
            cases: Some((2, 3)),
            ..Facts::default()
        };
        let answers = vec![Some(pass), None, Some(fail), Some(pass)];
        let bytes = encode(&answers).expect("encodes");
        assert_eq!(decode(&bytes, 4), Some(answers));
        // Another count of members, or a torn value, is not read as a set.
        assert_eq!(decode(&bytes, 3), None);
        assert_eq!(decode(&bytes[..bytes.len() - 1], 4), None);
    }
}
