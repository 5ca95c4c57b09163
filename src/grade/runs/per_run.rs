//! The figures of one run: the official summary (with the RL reward beside it), accuracy
//! with its task-clustered interval, pass@k and per-task accuracy.

use std::collections::{BTreeMap, HashMap};

use serde::{Serialize, Serializer};

use crate::grade::batch::Summary;
use crate::model::Verdict;

use super::statistics::{PassAtK, bootstrap_accuracy_ci, pass_at_k_with_ci};
use super::{BOOTSTRAP_REPS, RunSet, vi};

/// The figures of one run. Serialized as the run objects of `sebx stats --format json`
/// (which add the file's path, the summary lines and pass@k keyed by k).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunStats {
    #[serde(skip)]
    pub run: u32,
    pub name: String,
    pub rollouts: usize,
    pub tasks: usize,
    /// Counts per verdict, as the official summary reports them; serialized as
    /// `verdicts: {verdict: count}`.
    #[serde(rename = "verdicts", serialize_with = "verdict_counts")]
    pub summary: Summary,
    pub accuracy: f64,
    /// Task-clustered percentile bootstrap, [`BOOTSTRAP_REPS`] resamples, fixed seed.
    pub accuracy_ci95: Option<(f64, f64)>,
    /// One per k asked for, with the tasks and samples it rests on.
    #[serde(rename = "pass_at_k_detail")]
    pub pass_at_k: Vec<PassAtK>,
    /// Accuracy of each task (for the histogram), in task order.
    #[serde(skip)]
    pub task_accuracy: Vec<f64>,
    /// Largest number of samples of one task.
    #[serde(skip)]
    pub max_samples: usize,
    /// The mean official RL reward over the rollouts that have one (also in `reward`).
    #[serde(skip)]
    pub reward_mean: Option<f64>,
    /// The official RL reward beside the verdict.
    pub reward: RewardFigures,
    /// The verdicts `right` and rewards of 1 that went through a loophole.
    pub loopholes: super::loopholes::LoopholeFigures,
}

/// Verdict counts keyed by name, in the official order.
fn verdict_counts<S: Serializer>(summary: &Summary, s: S) -> Result<S::Ok, S::Error> {
    let map: BTreeMap<&str, usize> = Verdict::ALL
        .iter()
        .map(|v| (v.as_str(), summary.count(*v)))
        .collect();
    map.serialize(s)
}

/// The official RL reward of one run beside its verdicts (zeros and `null` when no
/// rollout has a reward).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RewardFigures {
    /// Rollouts with a reward.
    pub rewarded: usize,
    /// Rollouts with a verdict but no reward: while any, `reward_mean` is `null` (never a
    /// mean over a subset).
    pub reward_unknown: usize,
    pub reward_mean: Option<f64>,
    pub reward_vs_verdict: RewardVsVerdict,
    /// Disagreements between reward and verdict, by reason (`ReasonKind::as_str`).
    pub reward_reasons: BTreeMap<&'static str, usize>,
}

/// The 2×2 of (reward, verdict right).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RewardVsVerdict {
    pub reward_1_right: usize,
    pub reward_1_not_right: usize,
    pub reward_0_right: usize,
    pub reward_0_not_right: usize,
}

impl RewardFigures {
    /// Rollouts whose reward and verdict disagree (reward 1 not right, reward 0 right).
    pub fn disagreements(&self) -> usize {
        self.reward_vs_verdict.reward_1_not_right + self.reward_vs_verdict.reward_0_right
    }

    /// The reward figures of an official summary.
    pub fn of(s: &Summary) -> RewardFigures {
        let [one_right, one_not, zero_right, zero_not] = s.reward_by_verdict;
        RewardFigures {
            rewarded: s.rewarded,
            reward_unknown: s.unrewarded,
            reward_mean: s.mean_reward(),
            reward_vs_verdict: RewardVsVerdict {
                reward_1_right: one_right,
                reward_1_not_right: one_not,
                reward_0_right: zero_right,
                reward_0_not_right: zero_not,
            },
            reward_reasons: s.reasons.iter().map(|(k, n)| (k.as_str(), *n)).collect(),
        }
    }
}

/// (task, samples, right) per task of one run, in first-seen order.
pub fn task_counts(set: &RunSet, run: u32) -> Vec<(u32, usize, usize)> {
    let mut index: HashMap<u32, usize> = HashMap::new();
    let mut out: Vec<(u32, usize, usize)> = Vec::new();
    for r in set.rollouts.iter().filter(|r| r.run == run) {
        let i = *index.entry(r.task).or_insert_with(|| {
            out.push((r.task, 0, 0));
            out.len() - 1
        });
        out[i].1 += 1;
        if r.verdict == Verdict::Right {
            out[i].2 += 1;
        }
    }
    out
}

/// The official summary of one run (counts per verdict), with the RL reward beside it.
pub fn run_summary(set: &RunSet, run: u32) -> Summary {
    let mut summary = Summary::default();
    for r in set.rollouts.iter().filter(|r| r.run == run) {
        summary.total += 1;
        summary.counts[vi(r.verdict)] += 1;
        summary.add_reward(r.reward, Some(r.verdict), r.reward_reason);
    }
    summary
}

/// Statistics of every run: summary, accuracy with its interval, pass@k for each of `ks`.
pub fn run_stats(set: &RunSet, ks: &[usize], seed: u64) -> Vec<RunStats> {
    (0..set.runs.len() as u32)
        .map(|run| {
            let summary = run_summary(set, run);
            let per_task: Vec<(usize, usize)> = task_counts(set, run)
                .into_iter()
                .map(|(_, n, c)| (n, c))
                .collect();
            RunStats {
                run,
                name: set.runs[run as usize].clone(),
                rollouts: summary.total,
                tasks: per_task.len(),
                accuracy: summary.share(Verdict::Right),
                accuracy_ci95: bootstrap_accuracy_ci(&per_task, BOOTSTRAP_REPS, seed),
                pass_at_k: ks
                    .iter()
                    .map(|&k| pass_at_k_with_ci(&per_task, k, BOOTSTRAP_REPS, seed))
                    .collect(),
                task_accuracy: per_task
                    .iter()
                    .map(|&(n, c)| c as f64 / n.max(1) as f64)
                    .collect(),
                max_samples: per_task.iter().map(|t| t.0).max().unwrap_or(0),
                reward_mean: summary.mean_reward(),
                reward: RewardFigures::of(&summary),
                loopholes: super::loopholes::loophole_figures(
                    set.rollouts.iter().filter(|r| r.run == run),
                ),
                summary,
            }
        })
        .collect()
}

/// pass@k of one run for k = 1 … `max_k` (the curve the table output draws), each with its
/// bootstrap interval (`seed`).
pub fn pass_at_k_curve(set: &RunSet, run: u32, max_k: usize, seed: u64) -> Vec<PassAtK> {
    let per_task: Vec<(usize, usize)> = task_counts(set, run)
        .into_iter()
        .map(|(_, n, c)| (n, c))
        .collect();
    (1..=max_k)
        .map(|k| pass_at_k_with_ci(&per_task, k, BOOTSTRAP_REPS, seed))
        .collect()
}
