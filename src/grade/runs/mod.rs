//! Run-level statistics and run comparison, for every front end (`sebx stats`,
//! `sebx compare`, the explorer's stats and compare screens).
//!
//! Input is a [`RunSet`]: one compact [`RolloutFacts`] per graded rollout, built from its
//! verdict and its [`Analysis`](crate::analysis::Analysis) (the same findings `sebx analyze`
//! reports), plus its hand labels. Everything here is plain computation over those facts,
//! returned as typed, serializable figures (their JSON is what `sebx stats --format json`
//! writes): the per-run summary with a task-clustered bootstrap interval, unbiased pass@k,
//! the internalization map per zwc function, wrong names across runs, label prevalence among
//! failures, and the paired comparison of two runs (flip matrix, exact McNemar, per-task and
//! per-function deltas). Sentences and tables are the front ends' business; the few bits of
//! text both print are in [`text`].
//!
//! - [`set`]: the run set and the facts of one rollout;
//! - [`per_run`]: one run's summary, accuracy, pass@k and RL reward;
//! - [`functions`]: the internalization map;
//! - [`wrong_names`](mod@wrong_names): wrong names across runs;
//! - [`labels`]: hand-label prevalence;
//! - [`lengths`]: response lengths, empty and cut-off responses per step;
//! - [`loopholes`](mod@loopholes): rollouts paid through a loophole, by kind;
//! - [`compare`](mod@compare): two runs paired;
//! - [`learned_at`]: the share of a step's samples that solves it (`--learned-at`);
//! - [`onset`]: the step from which a loophole's share stays high (`--onset-at`);
//! - [`steps`]: training runs step by step (per-step figures, heat-map cells, learning);
//! - [`heatmap`]: the heat map of a training run (rows sorted, columns of one span);
//! - [`statistics`]: pass@k, bootstrap, Wilson, McNemar, sign-flip;
//! - [`text`]: percentages, p-values and short queries, as both front ends print them.

pub mod compare;
pub mod functions;
pub mod heatmap;
pub mod labels;
pub mod learned_at;
pub mod lengths;
pub mod loopholes;
pub mod onset;
pub mod per_run;
pub mod set;
pub mod statistics;
pub mod steps;
pub mod text;
pub mod wrong_names;

#[cfg(test)]
mod tests;

pub use compare::{Comparison, FunctionDelta, McNemar, TaskDelta, compare};
pub use functions::{FunctionRow, FunctionSort, NameCount, function_map, sort_functions};
pub use heatmap::{HeatMap, HeatSort, bin_label, even_bins, heat_map, step_bins};
pub use labels::{CategoryStats, LabelSample, LabelStats, label_stats};
pub use learned_at::LearnedAt;
pub use lengths::{LengthFigures, ResponseShape};
pub use loopholes::{LoopholeCount, LoopholeFigures, loophole_figures, right_by_loophole};
pub use onset::{Onset, OnsetAt};
pub use per_run::{RewardFigures, RunStats, run_stats, run_summary, task_counts};
pub use set::{
    FunctionKey, FunctionUse, RolloutFacts, RunSet, SampleFacts, UngradedSample, WrongNameKey,
    kind_bit, kinds_of, qualified_numpy,
};
pub use statistics::{
    PairedTest, PassAtK, bootstrap_accuracy_ci, mcnemar_exact_p, pass_at_k, pass_at_k_over,
    pass_at_k_with_ci, sign_flip_test, wilson_ci95,
};
pub use steps::{
    Course, FunctionStep, Learning, RunTotals, StepRow, TrainingFigures, ZeroGroup, courses_ended,
    training_figures,
};
pub use text::{fmt_p, interval, pass_value, pct, short_query, short_run_names, top_names};
pub use wrong_names::{WrongNameRow, wrong_names};

use crate::model::Verdict;

/// Bootstrap resamples behind every accuracy interval.
pub const BOOTSTRAP_REPS: usize = 2000;
/// Sign-flip resamples of the per-task paired test when exact enumeration is too big.
pub const SIGN_FLIP_REPS: usize = 5_000;
/// Largest number of non-zero task deltas enumerated exactly (2^16 sign patterns).
const EXACT_SIGN_FLIP_MAX: usize = 16;
/// The 97.5% quantile of the standard normal, for the Wilson interval.
const Z95: f64 = 1.959_963_984_540_054;

/// A verdict's index in per-verdict arrays (its official code).
fn vi(v: Verdict) -> usize {
    v.code() as usize
}
