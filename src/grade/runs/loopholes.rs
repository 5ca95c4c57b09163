//! How many rollouts went through a loophole (issue 29): the rollouts with a sure finding of
//! the `loophole` family (the kind table's), those of them the evaluation judged `right` and
//! those the official RL reward paid 1, by kind, and the accuracy without them. One
//! computation over any slice of rollouts, so a run, a training step and a function count
//! the same way.

use std::collections::BTreeMap;

use serde::Serialize;

use super::set::RolloutFacts;
use crate::model::Verdict;
use crate::model::finding_kinds::{KINDS, LOOPHOLE_BITS};

/// One kind's (or all kinds') counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LoopholeCount {
    /// Rollouts with a sure finding of the kind.
    pub rollouts: usize,
    /// ... judged `right` by the evaluation.
    pub right: usize,
    /// ... paid 1 by the official RL reward.
    pub reward_1: usize,
}

/// The loophole figures of a set of rollouts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoopholeFigures {
    /// Rollouts counted.
    pub total: usize,
    /// Rollouts with any sure loophole finding.
    pub rollouts: usize,
    /// Verdicts `right` that went through a loophole.
    pub right: usize,
    /// Rewards of 1 that went through a loophole (over the rollouts with a reward).
    pub reward_1: usize,
    /// The share of rollouts judged `right` without a loophole (`None`: no rollout).
    pub accuracy_without: Option<f64>,
    /// By loophole kind (a rollout with two kinds counts under each).
    pub by_kind: BTreeMap<&'static str, LoopholeCount>,
}

impl LoopholeFigures {
    /// The share of all rollouts whose `right` went through a loophole.
    pub fn right_rate(&self) -> Option<f64> {
        (self.total > 0).then(|| self.right as f64 / self.total as f64)
    }
}

/// Whether a rollout has a sure loophole finding (the `loophole` family's).
pub fn through_loophole(r: &RolloutFacts) -> bool {
    r.kinds & LOOPHOLE_BITS != 0
}

/// Whether a rollout's `right` went through a loophole: the one rule the run, step and
/// function figures count by.
pub fn right_by_loophole(r: &RolloutFacts) -> bool {
    r.verdict == Verdict::Right && through_loophole(r)
}

/// The loophole figures of `rollouts`.
pub fn loophole_figures<'a>(
    rollouts: impl IntoIterator<Item = &'a RolloutFacts>,
) -> LoopholeFigures {
    let mut out = LoopholeFigures::default();
    let mut right_total = 0;
    for r in rollouts {
        out.total += 1;
        let right = r.verdict == Verdict::Right;
        right_total += usize::from(right);
        let paid = r.reward == Some(1);
        if !through_loophole(r) {
            continue;
        }
        for spec in KINDS
            .iter()
            .filter(|s| r.kinds & s.kind.bit() & LOOPHOLE_BITS != 0)
        {
            let c = out.by_kind.entry(spec.name).or_default();
            c.rollouts += 1;
            c.right += usize::from(right);
            c.reward_1 += usize::from(paid);
        }
        out.rollouts += 1;
        out.right += usize::from(right);
        out.reward_1 += usize::from(paid);
    }
    out.accuracy_without =
        (out.total > 0).then(|| (right_total - out.right) as f64 / out.total as f64);
    out
}
