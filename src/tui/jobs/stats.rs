//! The stats job: the explorer's rows made into a run set, and the set's figures computed
//! by the session's reports ([`stats_report`], [`compare_set`]), the very functions
//! `sebx stats` and `sebx compare` call, off the UI thread for the stats and compare screens.

use std::sync::Arc;

use crate::grade::runs::{FunctionSort, LearnedAt, RunSet};
use crate::model::{ApiMap, Dataset, Verdict};
use crate::session::loaded::LoadedRun;
use crate::session::report::{CompareReport, StatsReport, compare_set, stats_report};
use crate::session::runs::{HeldRow, set_of_rows};

use super::super::entry::Entry;

/// What the stats job needs: a snapshot of the rows and their verdicts.
#[derive(Debug, Clone)]
pub struct StatsInput {
    pub ticket: u64,
    /// Each run's name, file and categories (the taxonomy's order), in run order.
    pub runs: Vec<LoadedRun>,
    pub entries: Arc<Vec<Arc<Entry>>>,
    /// Verdict of each row (`None`: not graded, left out).
    pub verdicts: Vec<Option<Verdict>>,
    /// The official RL reward of each row, with why it differs from the verdict, when known.
    /// Each row's grade facts besides the verdict (reward, behaviour loopholes), when known.
    pub facts: Vec<Option<crate::grade::facts::Facts>>,
    /// This annotator's current label of each row (category ids).
    pub labels: Vec<Option<Vec<String>>>,
    /// Seed of the bootstrap, the Monte Carlo tests and the random labelling order: the
    /// explorer's `--label-seed`, whose default is `sebx stats --seed`'s.
    pub seed: u64,
    pub api: Arc<ApiMap>,
    pub dataset: Arc<Dataset>,
    /// The runs compared (A, B).
    pub pair: (usize, usize),
}

/// The figures, ready to draw, and how to get from them back to rows.
#[derive(Debug, Clone)]
pub struct StatsResult {
    pub ticket: u64,
    pub set: RunSet,
    /// Row (index into `App::entries`) of each `set.rollouts` item.
    pub rows: Vec<usize>,
    /// Rows that were not graded (left out).
    pub ungraded: usize,
    /// Every figure of the Stats screen, as `sebx stats` computes it (its default pass@k).
    pub report: StatsReport,
    /// The Compare screen's figures for the chosen runs, as `sebx compare` computes them.
    pub compare: Option<CompareReport>,
}

/// Computes everything the screens show (worker thread).
pub fn compute(input: &StatsInput) -> StatsResult {
    let names: Vec<String> = input.runs.iter().map(|r| r.name.clone()).collect();
    // Every row with the verdict it shows, as `sebx stats` adds a rollout (the reward beside
    // it, so that the figures agree); training samples are the Training screen's.
    let held =
        input
            .entries
            .iter()
            .zip(&input.verdicts)
            .enumerate()
            .map(|(row, (entry, verdict))| HeldRow {
                row,
                run: entry.run as u32,
                rollout: &entry.rollout,
                known: verdict.map(|v| (v, input.facts.get(row).copied().flatten())),
                sample: None,
                labels: input.labels.get(row).cloned().flatten(),
            });
    let (set, rows) = set_of_rows(&names, held, &input.api, &input.dataset);
    let ungraded = input.entries.len() - rows.len();
    // `sebx stats`'s defaults: pass@1 and pass@(largest sample count), the map by accuracy.
    // The set holds no training samples (the Training screen has their figures), so the
    // threshold of a step that solves a task has nothing to decide here.
    let report = stats_report(
        &set,
        &input.runs,
        &[],
        FunctionSort::Accuracy,
        input.seed,
        LearnedAt::default(),
    );
    let (a, b) = input.pair;
    let compare = (a != b && a < set.runs.len() && b < set.runs.len())
        .then(|| compare_set(&set, a as u32, b as u32, input.seed, None));
    StatsResult {
        ticket: input.ticket,
        set,
        rows,
        ungraded,
        report,
        compare,
    }
}
