//! The stats job: the figures of [`crate::grade::runs`] over a snapshot of the loaded rows,
//! computed off the UI thread for the stats and compare screens.

use std::sync::Arc;

use crate::grade::report::ReasonKind;
use crate::grade::runs::{self, Comparison, FunctionRow, FunctionSort, RunSet, RunStats};
use crate::model::sampling::DEFAULT_SEED;
use crate::model::{ApiMap, Dataset, Verdict};

use super::super::entry::Entry;

/// What the stats job needs: a snapshot of the rows and their verdicts.
#[derive(Debug, Clone)]
pub struct StatsInput {
    pub ticket: u64,
    pub run_names: Vec<String>,
    pub entries: Arc<Vec<Arc<Entry>>>,
    /// Verdict of each row (`None`: not graded, left out).
    pub verdicts: Vec<Option<Verdict>>,
    /// The official RL reward of each row, with why it differs from the verdict, when known.
    pub rewards: Vec<Option<(u8, Option<ReasonKind>)>>,
    /// This annotator's current label of each row (category ids).
    pub labels: Vec<Option<Vec<String>>>,
    /// Category order (the taxonomy's).
    pub categories: Vec<String>,
    /// Seed of the random labelling order.
    pub seed: u64,
    pub api: Arc<ApiMap>,
    pub dataset: Arc<Dataset>,
    /// The runs compared (A, B).
    pub pair: (usize, usize),
}

/// The figures, ready to draw.
#[derive(Debug, Clone)]
pub struct StatsResult {
    pub ticket: u64,
    pub set: RunSet,
    /// Row (index into `App::entries`) of each `set.rollouts` item.
    pub rows: Vec<usize>,
    pub runs: Vec<RunStats>,
    /// The internalization map of each run.
    pub maps: Vec<Vec<FunctionRow>>,
    /// Hand-label figures of each run (this annotator's labels).
    pub labels: Vec<runs::LabelStats>,
    pub comparison: Option<Comparison>,
    /// Rows that were not graded (left out).
    pub ungraded: usize,
    /// Every wrong name over all runs, most frequent first (what `sebx stats` tabulates).
    pub wrong_names: Vec<runs::WrongNameRow>,
}

/// Computes everything the screens show (worker thread).
pub fn compute(input: &StatsInput) -> StatsResult {
    let mut set = RunSet::default();
    for name in &input.run_names {
        set.add_run(name);
    }
    let mut rows = Vec::new();
    let mut ungraded = 0;
    for (row, (entry, verdict)) in input.entries.iter().zip(&input.verdicts).enumerate() {
        let Some(v) = verdict else {
            ungraded += 1;
            continue;
        };
        let run = entry.run as u32;
        let labels = input.labels.get(row).cloned().flatten();
        if input.api.is_empty() {
            set.add_bare(run, &entry.rollout, *v, labels);
        } else {
            let item = input.dataset.get(&entry.rollout.query);
            set.add_rollout(run, &entry.rollout, *v, &input.api, item, labels);
        }
        // The reward beside the verdict, as `sebx stats` adds it (its figures then agree).
        let (reward, reason) = input.rewards.get(row).copied().flatten().unzip();
        set.set_last_reward(reward, reason.flatten());
        rows.push(row);
    }
    // The pass@k curve at powers of two (a k above every task's samples shows as `-`).
    let runs_stats = runs::run_stats(&set, &PASS_KS, DEFAULT_SEED);
    let wrong_names = runs::wrong_names(&set);
    let maps = (0..set.runs.len() as u32)
        .map(|r| runs::function_map(&set, Some(r), FunctionSort::Accuracy))
        .collect();
    let labels = (0..set.runs.len() as u32)
        .map(|r| runs::label_stats(&set, r, &input.categories, input.seed))
        .collect();
    let (a, b) = input.pair;
    let comparison = (a != b && a < set.runs.len() && b < set.runs.len())
        .then(|| runs::compare(&set, a as u32, b as u32, DEFAULT_SEED));
    StatsResult {
        ticket: input.ticket,
        set,
        rows,
        runs: runs_stats,
        maps,
        labels,
        comparison,
        ungraded,
        wrong_names,
    }
}

/// The k of the pass@k curve the stats screen draws.
pub const PASS_KS: [usize; 6] = [1, 2, 4, 8, 16, 32];
