//! The training job: the explorer's samples of training runs made into a run set, and the
//! set's step figures computed by the session's [`TrainingReport::of`] (what
//! `sebx stats --by step` prints), off the UI thread for the Training screen.
//! Samples with the same code for the same task share one analysis; each sample's facts
//! (its response's length) are computed once per session. With a tokenizer, the responses'
//! tokens are counted by a job of their own ([`count_tokens`], every core, progress as it
//! goes): the figures come without waiting for it, and take the tokens once every row has
//! them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::grade::runs::{LearnedAt, OnsetAt, RunSet, SampleFacts};
use crate::model::tokenizer::TokenCounter;
use crate::model::{ApiMap, Dataset, Verdict};
use crate::session::report::TrainingReport;
use crate::session::runs::{HeldRow, set_of_rows};

use super::super::entry::Entry;

/// A row's scores as the explorer knows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowScore {
    pub verdict: Option<Verdict>,
    /// What the grade holds besides the verdict (the reward, the loophole kinds its runs
    /// settled), when at hand.
    pub facts: Option<crate::grade::facts::Facts>,
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
    /// The share of a step's graded samples that marks a loophole's onset (`--onset-at`).
    pub onset_at: OnsetAt,
    pub tokenizer: Option<Arc<TokenCounter>>,
    pub samples: SampleMemo,
    /// The rows' tokens counted so far ([`count_tokens`]).
    pub tokens: TokenMemo,
}

/// Each row's sample facts (`None`: not a sample), for the rows computed so far.
pub type SampleMemo = Arc<Mutex<Vec<Option<SampleFacts>>>>;

/// Each row's response tokens (`None`: not a sample, or the tokenizer failed on it), for
/// the rows counted so far (rows only ever get appended; a rewrite cuts it).
pub type TokenMemo = Arc<Mutex<Vec<Option<u32>>>>;

/// What counting the rows' tokens needs: the rows, the tokenizer, where the counts go.
#[derive(Debug, Clone)]
pub struct CountInput {
    pub entries: Arc<Vec<Arc<Entry>>>,
    pub tokenizer: Arc<TokenCounter>,
    pub memo: TokenMemo,
}

/// How often [`count_tokens`] reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Counts the tokens of the rows `memo` lacks, on every core, and appends them to it;
/// `sink` gets [`JobEvent::TokensCounted`] as it goes (first with nothing counted yet, then
/// every [`PROGRESS_EVERY`], last with `done`). Counts of rows a rewrite cut from the memo
/// meanwhile are dropped (the next request counts them again).
pub fn count_tokens(input: &CountInput, sink: &mut dyn FnMut(super::JobEvent)) {
    let lock = || {
        input
            .memo
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let rows = input.entries.len();
    let known = lock().len().min(rows);
    let todo = &input.entries[known..];
    let total = todo.len();
    let event = |counted, done| super::JobEvent::TokensCounted {
        counted,
        total,
        done,
    };
    sink(event(0, false));
    let counted = AtomicUsize::new(0);
    let jobs = crate::session::default_jobs().max(1);
    let chunk = total.div_ceil(jobs).max(1);
    let counts: Vec<Option<u32>> = std::thread::scope(|scope| {
        let parts: Vec<_> = todo
            .chunks(chunk)
            .map(|part| {
                let counted = &counted;
                let tokenizer = &input.tokenizer;
                scope.spawn(move || {
                    let mut counting = tokenizer.counting();
                    part.iter()
                        .map(|e| {
                            let r = &e.rollout;
                            let n = r.sample.as_ref().and_then(|_| counting.count(&r.response));
                            counted.fetch_add(1, Ordering::Relaxed);
                            n
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        while !parts.iter().all(|p| p.is_finished()) {
            std::thread::sleep(PROGRESS_EVERY);
            sink(event(counted.load(Ordering::Relaxed), false));
        }
        parts
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    {
        let mut memo = lock();
        if memo.len() == known {
            memo.extend(counts);
        }
    }
    sink(event(total, true));
}

/// The sample facts of every row: those of rows not seen before computed, and remembered
/// in `memo`; with every row's tokens counted ([`count_tokens`]), their tokens too. The
/// flag: a tokenizer is given and some rows' tokens are not counted yet.
fn sample_facts(input: &TrainingInput) -> (Vec<Option<SampleFacts>>, bool) {
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
        let new = SampleFacts::of_all(&rollouts, None, 1, &|_| {});
        let mut memo = memo();
        // Another job may have added some of these rows meanwhile (the same facts).
        let have = memo.len();
        if (known..rows).contains(&have) {
            memo.extend(new.into_iter().skip(have - known));
        }
    }
    let mut facts = {
        let memo = memo();
        memo[..rows.min(memo.len())].to_vec()
    };
    if input.tokenizer.is_none() {
        return (facts, false);
    }
    let tokens = input
        .tokens
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if tokens.len() < rows {
        return (facts, true);
    }
    for (f, n) in facts.iter_mut().zip(tokens.iter()) {
        if let Some(f) = f {
            f.shape.tokens = *n;
        }
    }
    (facts, false)
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
    /// A tokenizer is given and the responses' tokens are still being counted: the figures
    /// have none yet.
    pub tokens_pending: bool,
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

/// Computes the figures (worker thread): the run set of the training samples, filled as
/// `sebx stats` fills its own (`session::runs::set_of_rows`).
pub fn compute(input: &TrainingInput) -> TrainingResult {
    let mut pending = 0;
    let mut training_runs = Vec::new();
    let (samples, tokens_pending) = sample_facts(input);
    let mut held = Vec::new();
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
        if score.verdict.is_none() {
            pending += usize::from(meta.joined != crate::model::verl::JoinedBy::Unjoined);
        }
        held.push(HeldRow {
            row,
            run,
            rollout: r,
            known: score.verdict.map(|v| (v, score.facts)),
            sample: Some(*sample),
            labels: None,
        });
    }
    let (set, rows) = set_of_rows(&input.run_names, held, &input.api, &input.dataset);
    training_runs.sort_unstable();
    let mut report = TrainingReport::of(&set, input.learned_at);
    report.figures = std::mem::take(&mut report.figures).with_onset_at(input.onset_at);
    TrainingResult {
        ticket: input.ticket,
        set,
        rows,
        report,
        training_runs,
        pending,
        tokens_pending,
    }
}
