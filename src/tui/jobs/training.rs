//! The training job: the explorer's samples of training runs made into a run set, and the
//! set's step figures computed by the session's [`TrainingReport::of`] (what
//! `sebx stats --by step` prints), off the UI thread for the Training screen.
//! Samples with the same code for the same task share one analysis; each sample's facts
//! (its response's length, in tokens too with a tokenizer) are computed once per session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::analysis::{Analysis, analyze_rollout};
use crate::grade::report::ReasonKind;
use crate::grade::runs::{LearnedAt, RunSet, SampleFacts, UngradedSample, kinds_of};
use crate::model::tokenizer::TokenCounter;
use crate::model::{ApiMap, Dataset, Verdict};
use crate::session::report::TrainingReport;

use super::super::entry::Entry;

/// A row's scores as the explorer knows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowScore {
    pub verdict: Option<Verdict>,
    pub reward: Option<u8>,
    pub reason: Option<ReasonKind>,
}

/// What the training job needs: a snapshot of the rows and their scores.
#[derive(Debug, Clone)]
pub struct TrainingInput {
    pub ticket: u64,
    pub run_names: Vec<String>,
    pub entries: Arc<Vec<Arc<Entry>>>,
    pub scores: Vec<RowScore>,
    pub api: Arc<ApiMap>,
    pub dataset: Arc<Dataset>,
    /// The share of a step's samples that solves it (`--learned-at`).
    pub learned_at: LearnedAt,
    pub tokenizer: Option<Arc<TokenCounter>>,
    pub samples: SampleMemo,
}

/// Each row's sample facts (`None`: not a sample), for the rows computed so far.
pub type SampleMemo = Arc<Mutex<Vec<Option<SampleFacts>>>>;

/// The sample facts of every row: those of rows not seen before computed (their tokens
/// counted on every core), and remembered in `memo`.
fn sample_facts(input: &TrainingInput) -> Vec<Option<SampleFacts>> {
    let memo = || {
        input
            .samples
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let rows = input.entries.len();
    let known = memo().len().min(rows);
    if known < rows {
        let rollouts: Vec<&crate::model::Rollout> =
            input.entries[known..].iter().map(|e| &e.rollout).collect();
        let jobs = crate::session::default_jobs();
        let new = SampleFacts::of_all(&rollouts, input.tokenizer.as_deref(), jobs);
        let mut memo = memo();
        // Another job may have added some of these rows meanwhile (the same facts).
        let have = memo.len();
        if (known..rows).contains(&have) {
            memo.extend(new.into_iter().skip(have - known));
        }
    }
    let memo = memo();
    memo[..rows.min(memo.len())].to_vec()
}

/// The figures, ready to draw, and how to get from them back to rows.
#[derive(Debug, Clone)]
pub struct TrainingResult {
    pub ticket: u64,
    pub set: RunSet,
    /// Row (index into the explorer's entries) of each `set.rollouts` item.
    pub rows: Vec<usize>,
    /// The step figures, as `sebx stats --by step` computes them.
    pub report: TrainingReport,
    /// Runs (indices) that hold samples of a training run, in order.
    pub training_runs: Vec<u32>,
    /// Samples not graded yet (their figures will move when they are).
    pub pending: usize,
}

impl TrainingResult {
    /// Rows of run `run` at steps `lo..=hi` whose task selects function `function`.
    pub fn cell_rows(&self, run: u32, function: u32, (lo, hi): (u32, u32)) -> Vec<usize> {
        self.set
            .rollouts
            .iter()
            .zip(&self.rows)
            .filter(|(r, _)| {
                r.run == run
                    && r.sample.is_some_and(|s| s.step >= lo && s.step <= hi)
                    && r.uses.iter().any(|u| u.function == function)
            })
            .map(|(_, row)| *row)
            .collect()
    }
}

/// Computes the figures (worker thread).
pub fn compute(input: &TrainingInput) -> TrainingResult {
    let mut set = RunSet::default();
    for name in &input.run_names {
        set.add_run(name);
    }
    let mut rows = Vec::new();
    let mut pending = 0;
    let mut training_runs = Vec::new();
    let mut analyses: HashMap<(usize, String), Analysis> = HashMap::new();
    let samples = sample_facts(input);
    for (row, entry) in input.entries.iter().enumerate() {
        let r = &entry.rollout;
        let (Some(meta), Some(Some(sample))) = (r.sample.as_deref(), samples.get(row)) else {
            continue;
        };
        let run = entry.run as u32;
        if !training_runs.contains(&run) {
            training_runs.push(run);
        }
        let score = input.scores.get(row).copied().unwrap_or_default();
        let item = input.dataset.get(&r.query);
        let key = (entry.task, entry.code().to_string());
        let analysis = analyses
            .entry(key)
            .or_insert_with(|| analyze_rollout(r, &input.api, item));
        let Some(verdict) = score.verdict else {
            let joined = meta.joined != crate::model::verl::JoinedBy::Unjoined;
            pending += usize::from(joined);
            set.ungraded.push(UngradedSample::of(
                run,
                r,
                meta,
                *sample,
                kinds_of(analysis),
            ));
            continue;
        };
        set.add_with_analysis(run, r, verdict, analysis, &input.api, item, None);
        set.set_last_reward(score.reward, score.reason);
        set.set_last_sample(Some(*sample));
        rows.push(row);
    }
    training_runs.sort_unstable();
    let report = TrainingReport::of(&set, input.learned_at);
    TrainingResult {
        ticket: input.ticket,
        set,
        rows,
        report,
        training_runs,
        pending,
    }
}
