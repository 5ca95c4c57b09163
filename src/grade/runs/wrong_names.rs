//! Wrong names across runs: every hallucinated or misused name, counted.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::RunSet;

/// A wrong name across runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WrongNameRow {
    pub name: String,
    pub kind: &'static str,
    pub count: usize,
    /// The correct zwc name(s), where known.
    pub correct: Option<String>,
    /// Runs it appears in, in run order.
    pub runs: Vec<String>,
}

/// Every wrong name with its occurrences over all runs, most frequent first.
pub fn wrong_names(set: &RunSet) -> Vec<WrongNameRow> {
    let mut counts: HashMap<u32, (usize, BTreeSet<u32>)> = HashMap::new();
    for r in &set.rollouts {
        for (name, _) in &r.wrong {
            let e = counts.entry(*name).or_default();
            e.0 += 1;
            e.1.insert(r.run);
        }
    }
    let mut rows: Vec<WrongNameRow> = counts
        .into_iter()
        .map(|(n, (count, runs))| {
            let key = &set.names[n as usize];
            WrongNameRow {
                name: key.name.clone(),
                kind: key.kind.as_str(),
                count,
                correct: key.correct.clone(),
                runs: runs
                    .into_iter()
                    .map(|r| set.runs[r as usize].clone())
                    .collect(),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.kind.cmp(b.kind))
    });
    rows
}
