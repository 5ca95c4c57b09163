//! Training runs step by step: per (run, step) figures, the cells of the internalization
//! heat map (zwc function × step; [`super::heatmap`] lays them out) and when each task and function was first solved, last failed,
//! learned, forgotten or never solved. Input is the run set's samples: the graded ones
//! ([`RolloutFacts`] with [`SampleFacts`]) and the ungraded ones ([`UngradedSample`]).
//!
//! Definitions (what the JSON keys mean):
//! - `samples`: every sample of the step, graded or not; `graded`: those with a verdict;
//!   `accuracy`: verdict `right` over `graded`.
//! - `reward_mean`: the stored training reward (`score`) over the samples that have one;
//!   `official_reward_mean`: the recomputed official RL reward over those that have one.
//! - `reward_reasons`: why the official reward and the verdict disagree, by reason, over the
//!   step's graded samples with a reward (the run's `reward_reasons`, step by step).
//! - `stored_differs_from_official`: samples whose stored score is not the official reward
//!   (a reward pipeline that is not the official one).
//! - `groups`: the samples of one GRPO group within one step: one prompt uid where the
//!   dump writes `uid` (verl 0.9), else one prompt text;
//!   `zero_variance_groups`: groups of two or more whose stored scores are all equal
//!   (zero advantage: they teach nothing), `null` when no group has two samples (a
//!   validation run samples each prompt once); `zero_variance_detail`: those groups, each
//!   with its group number, task, samples, the score they share and how many the verdict calls
//!   `right`.
//! - `finding_rates`: per finding kind, the share of samples whose code has at least one.
//! - `response_chars_mean`, `response_chars_p90`, `empty_outputs`, `open_fence_responses`:
//!   the responses' lengths in characters (`response_tokens_mean`, `response_tokens_p90`:
//!   in tokens, with a tokenizer; `null` without), the empty ones (verl dumps an aborted request
//!   so; they stay in their group and are graded like any other answer) and those cut off
//!   inside a code block, over every sample of the step ([`super::lengths`]).
//! - A task or function is `solved` at a step when at least a share of its graded samples
//!   there are `right` (`learned_at`, half by default: [`LearnedAt`]); `learned`: solved at
//!   the last step it appears in; `forgotten`: solved at an earlier step but not at its
//!   last; `never_solved`: solved at no step; `last_accuracy`: right over graded at its
//!   last step.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::analysis::FindingKind;
use crate::model::Verdict;

use super::learned_at::LearnedAt;
use super::lengths::{LengthAcc, LengthFigures};
use super::onset::{ANY, Onset, OnsetAt, onsets, step_share};
use super::set::{RunSet, SampleFacts, kind_bit};
use super::vi;

/// One step of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRow {
    pub run: String,
    pub step: u32,
    pub samples: usize,
    pub graded: usize,
    pub unjoined: usize,
    pub tasks: usize,
    pub reward_mean: Option<f64>,
    pub official_reward_mean: Option<f64>,
    pub accuracy: Option<f64>,
    pub verdicts: BTreeMap<&'static str, usize>,
    pub reward_1_not_right: usize,
    pub reward_0_right: usize,
    /// Why the official reward and the verdict of the step's graded samples disagree, by
    /// reason (`ReasonKind::as_str`), counted as the run's `reward_reasons` are.
    pub reward_reasons: BTreeMap<&'static str, usize>,
    pub stored_differs_from_official: usize,
    pub groups: usize,
    /// `None`: no group of two or more samples, so none can have zero advantage (n/a).
    pub zero_variance_groups: Option<usize>,
    /// The zero-advantage groups, by group number.
    pub zero_variance_detail: Vec<ZeroGroup>,
    pub finding_rates: BTreeMap<&'static str, f64>,
    /// The graded samples' verdicts `right` and rewards of 1 that went through a loophole:
    /// the step where a loophole takes off.
    pub loopholes: super::loopholes::LoopholeFigures,
    /// The share of the graded samples through each loophole kind some sample went
    /// through, and through any (`any`); empty when no sample is graded ([`super::onset`]).
    pub loophole_shares: BTreeMap<&'static str, f64>,
    /// The responses' lengths, empty ones and open fences, over every sample.
    #[serde(flatten)]
    pub lengths: LengthFigures,
}

/// A GRPO group with zero advantage: every sample of one prompt at one step stored the
/// same score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ZeroGroup {
    /// The group's run-wide number (with the step, the group).
    pub group: u32,
    /// The first line of its task's query (of its problem text when it joined no task).
    pub task: String,
    pub samples: usize,
    /// The stored score every sample has (1: all rewarded, 0: none).
    pub score: f64,
    /// Samples with a verdict, and of those, `right`.
    pub graded: usize,
    pub right: usize,
}

impl ZeroGroup {
    /// In words: `all scored 1` / `all scored 0`.
    pub fn outcome(&self) -> String {
        format!("all scored {}", self.score)
    }
}

/// One cell of the heat map: a zwc function at one step of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionStep {
    pub numpy: String,
    pub zwc: String,
    pub run: String,
    pub step: u32,
    /// Graded samples whose task selects the function.
    pub rollouts: usize,
    /// Of those, verdict `right`.
    pub right: usize,
    /// Of those, official RL reward 1.
    pub reward: usize,
    /// Of those, `right` through a loophole (the rule of the run and function figures).
    pub loophole_right: usize,
    #[serde(skip)]
    pub function: u32,
    #[serde(skip)]
    pub run_index: u32,
}

impl FunctionStep {
    pub fn accuracy(&self) -> Option<f64> {
        (self.rollouts > 0).then(|| self.right as f64 / self.rollouts as f64)
    }
}

/// Where a task or function stands at the end of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Learning {
    Learned,
    Forgotten,
    NeverSolved,
}

impl Learning {
    pub fn as_str(self) -> &'static str {
        match self {
            Learning::Learned => "learned",
            Learning::Forgotten => "forgotten",
            Learning::NeverSolved => "never solved",
        }
    }
}

/// The course of one task (or function) over the steps of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Course {
    pub run: String,
    /// The task's query, or the function's zwc name.
    pub name: String,
    /// The NumPy name, for a function.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numpy: Option<String>,
    pub steps_seen: usize,
    pub first_step: u32,
    pub last_step: u32,
    /// Right over graded samples at its last step.
    pub last_accuracy: f64,
    /// The first step whose samples reached the threshold (`learned_at`).
    pub first_solved: Option<u32>,
    pub last_failed: Option<u32>,
    pub status: Learning,
    #[serde(skip)]
    pub index: u32,
    #[serde(skip)]
    pub run_index: u32,
}

/// How the courses of run `run` ended: `[learned, forgotten, never solved]` (indexed by
/// [`Learning`]), the one count `stats --by course` and the Training screen say.
pub fn courses_ended(courses: &[Course], run: &str) -> [usize; 3] {
    let mut ended = [0usize; 3];
    for c in courses.iter().filter(|c| c.run == run) {
        ended[c.status as usize] += 1;
    }
    ended
}

/// A heat-map cell's counts: (rollouts, right, reward 1, right by loophole).
type CellCounts = (usize, usize, usize, usize);

/// Per (run, step): (graded samples right, all graded) of one key.
type Tally = BTreeMap<u32, (usize, usize)>;

/// Where a task (or function) is, with its run and index.
struct Key<'a> {
    run: &'a str,
    run_index: u32,
    index: u32,
}

fn course(key: Key<'_>, name: String, tally: &Tally, at: LearnedAt) -> Option<Course> {
    let (&first_step, _) = tally.iter().next()?;
    let (&last_step, &(last_right, last_graded)) = tally.iter().next_back()?;
    let first_solved = tally
        .iter()
        .find(|(_, (r, n))| at.solves(*r, *n))
        .map(|(s, _)| *s);
    let last_failed = tally
        .iter()
        .rev()
        .find(|(_, (r, n))| r < n)
        .map(|(s, _)| *s);
    let status = match (first_solved, at.solves(last_right, last_graded)) {
        (None, _) => Learning::NeverSolved,
        (Some(_), true) => Learning::Learned,
        (Some(_), false) => Learning::Forgotten,
    };
    Some(Course {
        run: key.run.to_string(),
        name,
        numpy: None,
        steps_seen: tally.len(),
        first_step,
        last_step,
        last_accuracy: if last_graded == 0 {
            0.0
        } else {
            last_right as f64 / last_graded as f64
        },
        first_solved,
        last_failed,
        status,
        index: key.index,
        run_index: key.run_index,
    })
}

/// Everything step by step.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TrainingFigures {
    /// Every run's name, by run index (training or not).
    #[serde(skip)]
    pub run_names: Vec<String>,
    /// The share of a step's samples that must be right to solve it (the courses').
    pub learned_at: LearnedAt,
    /// The share of a step's graded samples through a loophole that marks its onset.
    pub onset_at: OnsetAt,
    /// Per run, when each loophole took off ([`super::onset`]).
    pub onsets: Vec<Onset>,
    pub steps: Vec<StepRow>,
    /// Per run, its steps' counts added up (`stats --by step`'s totals, the Training
    /// screen's totals lines).
    pub totals: Vec<RunTotals>,
    pub function_steps: Vec<FunctionStep>,
    pub task_courses: Vec<Course>,
    pub function_courses: Vec<Course>,
}

/// One run's step counts added up over its steps.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunTotals {
    pub run: String,
    /// Groups whose samples all stored one score, of the groups (`None`: no group has two
    /// samples, as in a validation run, so none can have zero advantage).
    pub zero_variance_groups: Option<usize>,
    pub groups: usize,
    pub stored_differs_from_official: usize,
    pub reward_1_not_right: usize,
    pub reward_0_right: usize,
    pub unjoined: usize,
    /// Right verdicts that went through a loophole.
    pub loophole_right: usize,
    pub empty_outputs: usize,
    pub empty_outputs_last_step: usize,
    pub open_fence_responses: usize,
    pub open_fence_responses_last_step: usize,
}

impl RunTotals {
    /// The totals of `run` over `steps` (its rows, in step order).
    pub fn of(run: &str, steps: &[&StepRow]) -> RunTotals {
        let sum = |f: fn(&StepRow) -> usize| steps.iter().map(|s| f(s)).sum::<usize>();
        let at_last = |f: fn(&StepRow) -> usize| steps.last().map_or(0, |s| f(s));
        RunTotals {
            run: run.to_string(),
            zero_variance_groups: steps
                .iter()
                .any(|s| s.zero_variance_groups.is_some())
                .then(|| sum(|s| s.zero_variance_groups.unwrap_or(0))),
            groups: sum(|s| s.groups),
            stored_differs_from_official: sum(|s| s.stored_differs_from_official),
            reward_1_not_right: sum(|s| s.reward_1_not_right),
            reward_0_right: sum(|s| s.reward_0_right),
            unjoined: sum(|s| s.unjoined),
            loophole_right: sum(|s| s.loopholes.right),
            empty_outputs: sum(|s| s.lengths.empty_outputs),
            empty_outputs_last_step: at_last(|s| s.lengths.empty_outputs),
            open_fence_responses: sum(|s| s.lengths.open_fence_responses),
            open_fence_responses_last_step: at_last(|s| s.lengths.open_fence_responses),
        }
    }

    /// The totals in words, two lines: the scores' and the responses' (what `stats --by
    /// step` prints under its table and the Training screen shows).
    pub fn lines(&self) -> [String; 2] {
        let zero = self
            .zero_variance_groups
            .map_or_else(|| "n/a".to_string(), |z| format!("{z}/{}", self.groups));
        let mut scores = format!(
            "zero-advantage groups {zero} · stored ≠ official {} · reward 1 not right {} · reward 0 right {} · unjoined {}",
            self.stored_differs_from_official,
            self.reward_1_not_right,
            self.reward_0_right,
            self.unjoined,
        );
        if self.loophole_right > 0 {
            scores.push_str(&format!(" · right by loophole {}", self.loophole_right));
        }
        let responses = format!(
            "empty outputs {} (last step {}) · ending inside a code block {} (last step {})",
            self.empty_outputs,
            self.empty_outputs_last_step,
            self.open_fence_responses,
            self.open_fence_responses_last_step,
        );
        [scores, responses]
    }
}

impl TrainingFigures {
    /// The totals of `run`, if it has steps.
    pub fn totals_of(&self, run: &str) -> Option<&RunTotals> {
        self.totals.iter().find(|t| t.run == run)
    }

    /// Whether the set holds any training samples.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// The samples of one GRPO group at one step.
#[derive(Default)]
struct GroupAcc {
    scores: Vec<Option<f64>>,
    task: String,
    graded: usize,
    right: usize,
}

#[derive(Default)]
struct StepAcc {
    samples: usize,
    graded: usize,
    unjoined: usize,
    tasks: BTreeSet<u32>,
    stored: (f64, usize),
    official: (f64, usize),
    verdicts: [usize; 5],
    reward_1_not_right: usize,
    reward_0_right: usize,
    reasons: BTreeMap<&'static str, usize>,
    differs: usize,
    /// Prompt → its samples at this step.
    groups: HashMap<u32, GroupAcc>,
    kinds: [usize; crate::model::finding_kinds::KINDS.len()],
    /// The graded samples (indices into the set's rollouts).
    rows: Vec<usize>,
    lengths: LengthAcc,
}

impl StepAcc {
    /// Counts a sample (`right`: its verdict, when it has one).
    fn sample(
        &mut self,
        s: &SampleFacts,
        kinds: crate::model::finding_kinds::KindSet,
        task: &str,
        right: Option<bool>,
    ) {
        self.samples += 1;
        self.lengths.add(s.shape);
        if let Some(x) = s.score {
            self.stored.0 += x;
            self.stored.1 += 1;
        }
        let g = self.groups.entry(s.group).or_default();
        g.scores.push(s.score);
        if g.task.is_empty() {
            g.task = super::text::short_query(task, 80);
        }
        if let Some(right) = right {
            g.graded += 1;
            g.right += usize::from(right);
        }
        for (i, k) in FindingKind::ALL.iter().enumerate() {
            if kinds & kind_bit(*k) != 0 {
                self.kinds[i] += 1;
            }
        }
    }
}

/// Whether a GRPO group teaches nothing: two or more samples, every stored score known and
/// all equal (zero advantage).
pub fn zero_variance(scores: &[Option<f64>]) -> bool {
    scores.len() >= 2
        && scores.iter().all(Option::is_some)
        && scores.windows(2).all(|w| w[0] == w[1])
}

fn mean((sum, n): (f64, usize)) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

/// Whether the stored training reward is not the official reward.
fn differs(stored: f64, official: u8) -> bool {
    (stored - f64::from(official)).abs() > 1e-9
}

/// Counts one graded sample of `key` at `step` (right or not).
fn count(tallies: &mut BTreeMap<(u32, u32), Tally>, key: (u32, u32), step: u32, right: bool) {
    let t = tallies.entry(key).or_default().entry(step).or_default();
    t.0 += usize::from(right);
    t.1 += 1;
}

/// The step-by-step figures of every training run in `set` (empty when none); a step solves
/// a task or function when `learned_at` of its samples are right.
pub fn training_figures(set: &RunSet, learned_at: LearnedAt) -> TrainingFigures {
    let mut acc: BTreeMap<(u32, u32), StepAcc> = BTreeMap::new();
    let mut cells: BTreeMap<(u32, u32, u32), CellCounts> = BTreeMap::new();
    let mut task_tally: BTreeMap<(u32, u32), Tally> = BTreeMap::new();
    let mut function_tally: BTreeMap<(u32, u32), Tally> = BTreeMap::new();
    for (i, r) in set.rollouts.iter().enumerate() {
        let Some(s) = &r.sample else { continue };
        let right = r.verdict == Verdict::Right;
        let a = acc.entry((r.run, s.step)).or_default();
        a.sample(s, r.kinds, &set.tasks[r.task as usize], Some(right));
        a.graded += 1;
        a.rows.push(i);
        a.tasks.insert(r.task);
        a.verdicts[vi(r.verdict)] += 1;
        if let Some(w) = r.reward {
            a.official.0 += f64::from(w);
            a.official.1 += 1;
            a.reward_1_not_right += usize::from(w == 1 && !right);
            a.reward_0_right += usize::from(w == 0 && right);
            if let Some(k) = r.reward_reason {
                *a.reasons.entry(k.as_str()).or_default() += 1;
            }
            if let Some(x) = s.score {
                a.differs += usize::from(differs(x, w));
            }
        }
        count(&mut task_tally, (r.run, r.task), s.step, right);
        for u in &r.uses {
            let c = cells.entry((r.run, u.function, s.step)).or_default();
            c.0 += 1;
            c.1 += usize::from(right);
            c.2 += usize::from(r.reward == Some(1));
            c.3 += usize::from(super::loopholes::right_by_loophole(r));
            count(&mut function_tally, (r.run, u.function), s.step, right);
        }
    }
    for u in &set.ungraded {
        let a = acc.entry((u.run, u.sample.step)).or_default();
        a.sample(&u.sample, u.kinds, &u.problem, None);
        a.unjoined += usize::from(u.unjoined);
    }
    let run_name = |run: u32| set.runs.get(run as usize).cloned().unwrap_or_default();
    let steps: Vec<StepRow> = acc
        .into_iter()
        .map(|((run, step), a)| {
            let groups = a.groups.len();
            let mut zero_variance_detail: Vec<ZeroGroup> = a
                .groups
                .iter()
                .filter(|(_, g)| zero_variance(&g.scores))
                .map(|(&group, g)| ZeroGroup {
                    group,
                    task: g.task.clone(),
                    samples: g.scores.len(),
                    score: g.scores.first().copied().flatten().unwrap_or_default(),
                    graded: g.graded,
                    right: g.right,
                })
                .collect();
            zero_variance_detail.sort_by_key(|g| g.group);
            let zero_variance_groups = a
                .groups
                .values()
                .any(|g| g.scores.len() >= 2)
                .then_some(zero_variance_detail.len());
            StepRow {
                run: run_name(run),
                step,
                samples: a.samples,
                graded: a.graded,
                unjoined: a.unjoined,
                tasks: a.tasks.len(),
                reward_mean: mean(a.stored),
                official_reward_mean: mean(a.official),
                accuracy: (a.graded > 0)
                    .then(|| a.verdicts[vi(Verdict::Right)] as f64 / a.graded as f64),
                verdicts: Verdict::ALL
                    .iter()
                    .map(|v| (v.as_str(), a.verdicts[vi(*v)]))
                    .collect(),
                reward_1_not_right: a.reward_1_not_right,
                reward_0_right: a.reward_0_right,
                reward_reasons: a.reasons,
                stored_differs_from_official: a.differs,
                groups,
                zero_variance_groups,
                zero_variance_detail,
                loopholes: super::loopholes::loophole_figures(
                    a.rows.iter().map(|&i| &set.rollouts[i]),
                ),
                loophole_shares: BTreeMap::new(),
                lengths: a.lengths.figures(),
                finding_rates: FindingKind::ALL
                    .iter()
                    .enumerate()
                    .map(|(i, k)| {
                        (
                            k.as_str(),
                            if a.samples == 0 {
                                0.0
                            } else {
                                a.kinds[i] as f64 / a.samples as f64
                            },
                        )
                    })
                    .collect(),
            }
        })
        .collect();
    let function_steps = cells
        .into_iter()
        .map(
            |((run, function, step), (rollouts, right, reward, loophole_right))| {
                let key = &set.functions[function as usize];
                FunctionStep {
                    numpy: key.numpy.clone(),
                    zwc: key.zwc.clone(),
                    run: run_name(run),
                    step,
                    rollouts,
                    right,
                    reward,
                    loophole_right,
                    function,
                    run_index: run,
                }
            },
        )
        .collect();
    let task_courses = task_tally
        .iter()
        .filter_map(|(&(run, task), tally)| {
            let query = set.tasks.get(task as usize).cloned().unwrap_or_default();
            let key = Key {
                run: &run_name(run),
                run_index: run,
                index: task,
            };
            course(key, query, tally, learned_at)
        })
        .collect();
    let function_courses = function_tally
        .iter()
        .filter_map(|(&(run, function), tally)| {
            let key = &set.functions[function as usize];
            let name = run_name(run);
            let at = Key {
                run: &name,
                run_index: run,
                index: function,
            };
            let mut c = course(at, key.zwc.clone(), tally, learned_at)?;
            c.numpy = Some(key.numpy.clone());
            Some(c)
        })
        .collect();
    let mut steps = steps;
    for row in &mut steps {
        row.loophole_shares = shares_of(row);
    }
    let mut names: Vec<&str> = Vec::new();
    for s in &steps {
        if !names.contains(&s.run.as_str()) {
            names.push(&s.run);
        }
    }
    let totals = names
        .iter()
        .map(|run| {
            let rows: Vec<&StepRow> = steps.iter().filter(|s| s.run == *run).collect();
            RunTotals::of(run, &rows)
        })
        .collect();
    TrainingFigures {
        run_names: set.runs.clone(),
        learned_at,
        onset_at: OnsetAt::default(),
        onsets: onsets(&steps, OnsetAt::default()),
        totals,
        steps,
        function_steps,
        task_courses,
        function_courses,
    }
}

/// A step's loophole shares: `any`, and each kind some of its samples went through.
fn shares_of(row: &StepRow) -> BTreeMap<&'static str, f64> {
    let mut out = BTreeMap::new();
    if let Some(any) = step_share(row, ANY) {
        out.insert(ANY, any);
        for &kind in row.loopholes.by_kind.keys() {
            if let Some(s) = step_share(row, kind) {
                out.insert(kind, s);
            }
        }
    }
    out
}

impl TrainingFigures {
    /// The same figures with the onsets found at `at` (`--onset-at`).
    pub fn with_onset_at(mut self, at: OnsetAt) -> TrainingFigures {
        self.onset_at = at;
        self.onsets = onsets(&self.steps, at);
        self
    }

    /// The onset of `kind` (a loophole kind's name or [`ANY`]) in `run`, if it took off.
    pub fn onset(&self, run: &str, kind: &str) -> Option<u32> {
        self.onsets
            .iter()
            .find(|o| o.run == run && o.kind == kind)
            .and_then(|o| o.step)
    }

    /// The run index of a run name, as the figures carry it.
    pub(super) fn run_name_index(&self, name: &str) -> Option<u32> {
        self.run_names
            .iter()
            .position(|n| n == name)
            .map(|i| i as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::runs::heatmap::{HeatSort, heat_map};
    use crate::grade::runs::lengths::ResponseShape;
    use crate::grade::runs::set::{FunctionUse, RolloutFacts, UngradedSample};
    use crate::model::RolloutId;

    /// A graded sample: (run, task, step, group, stored score, verdict, official reward).
    fn sample(
        set: &mut RunSet,
        (run, task, step, group): (u32, u32, u32, u32),
        score: Option<f64>,
        verdict: Verdict,
        reward: u8,
        uses: &[u32],
        kinds: crate::model::finding_kinds::KindSet,
    ) {
        let n = set.rollouts.len();
        set.rollouts.push(RolloutFacts {
            run,
            task,
            verdict,
            id: RolloutId(format!("s{n}")),
            line: n + 1,
            uses: uses
                .iter()
                .map(|f| FunctionUse {
                    function: *f,
                    called_right: verdict == Verdict::Right,
                    numpy_name: false,
                    invented_name: false,
                })
                .collect(),
            wrong: Vec::new(),
            labels: None,
            reward: Some(reward),
            reward_reason: None,
            kinds,
            // The n-th sample's response is 10·(n+1) characters; an exe_error one ends in
            // an open fence.
            sample: Some(SampleFacts {
                step,
                group,
                score,
                gts_differs: false,
                shape: ResponseShape {
                    chars: 10 * (n as u32 + 1),
                    tokens: None,
                    empty: false,
                    open_fence: verdict == Verdict::ExeError,
                },
            }),
        });
    }

    #[test]
    fn figures_per_step_computed_by_hand() {
        use Verdict::*;
        let mut set = RunSet::default();
        let run = set.add_run("rollout");
        let (t0, t1) = (set.task("mean task"), set.task("det task"));
        let (mean, det) = (
            set.function("np.mean", "zwc.kocito"),
            set.function("np.linalg.det", "zwc.rfx.det"),
        );
        let array_method = kind_bit(FindingKind::ArrayMethod);
        // Step 1: prompt 0 (mean) scores 0,0 (zero variance); prompt 1 (det) scores 1,0.
        sample(
            &mut set,
            (run, t0, 1, 0),
            Some(0.0),
            ResultError,
            0,
            &[mean],
            array_method,
        );
        sample(&mut set, (run, t0, 1, 0), Some(0.0), Right, 0, &[mean], 0);
        sample(&mut set, (run, t1, 1, 1), Some(1.0), Right, 1, &[det], 0);
        sample(
            &mut set,
            (run, t1, 1, 1),
            Some(0.0),
            WithoutZwc,
            1,
            &[det],
            0,
        );
        // An unjoined sample at step 1, in its own group of one.
        set.ungraded.push(UngradedSample {
            run,
            sample: SampleFacts {
                step: 1,
                group: 2,
                score: Some(0.5),
                gts_differs: false,
                shape: ResponseShape::of("", None),
            },
            unjoined: true,
            file: "rollout/1.jsonl".to_string(),
            line: 5,
            problem: "?".to_string(),
            kinds: array_method,
        });
        // Step 2: the mean task solved twice (1,1: zero variance), det fails.
        sample(&mut set, (run, t0, 2, 0), Some(1.0), Right, 1, &[mean], 0);
        sample(&mut set, (run, t0, 2, 0), Some(1.0), Right, 1, &[mean], 0);
        sample(&mut set, (run, t1, 2, 1), Some(0.0), ExeError, 0, &[det], 0);

        let f = training_figures(&set, LearnedAt::default());
        let [s1, s2] = f.steps.as_slice() else {
            panic!("two steps: {:?}", f.steps);
        };
        assert_eq!(
            (s1.step, s1.samples, s1.graded, s1.unjoined, s1.tasks),
            (1, 5, 4, 1, 2)
        );
        // Stored: 0+0+1+0+0.5 over 5; official: 0+0+1+1 over 4; right 2 of 4.
        assert_eq!(s1.reward_mean, Some(1.5 / 5.0));
        assert_eq!(s1.official_reward_mean, Some(0.5));
        assert_eq!(s1.accuracy, Some(0.5));
        assert_eq!(s1.verdicts["right"], 2);
        assert_eq!(s1.verdicts["without_zwc"], 1);
        // Right with reward 0 (the second sample); reward 1 without_zwc (the fourth).
        assert_eq!((s1.reward_1_not_right, s1.reward_0_right), (1, 1));
        // Stored vs official: sample 4 (0 vs 1) only.
        assert_eq!(s1.stored_differs_from_official, 1);
        assert_eq!((s1.groups, s1.zero_variance_groups), (3, Some(1)));
        // The zero-advantage group listed: prompt 0, two samples scored 0, one right.
        let [g] = s1.zero_variance_detail.as_slice() else {
            panic!("one group: {:?}", s1.zero_variance_detail);
        };
        assert_eq!(
            (
                g.group,
                g.task.as_str(),
                g.samples,
                g.score,
                g.graded,
                g.right
            ),
            (0, "mean task", 2, 0.0, 2, 1)
        );
        assert_eq!(g.outcome(), "all scored 0");
        assert_eq!(s1.finding_rates["array_method"], 2.0 / 5.0);
        assert_eq!(s1.finding_rates["numpy_import"], 0.0);
        assert_eq!(
            (s2.samples, s2.groups, s2.zero_variance_groups),
            (3, 2, Some(1))
        );
        assert_eq!(s2.zero_variance_detail[0].outcome(), "all scored 1");
        assert_eq!(s2.accuracy, Some(2.0 / 3.0));
        // Lengths: step 1 is 10, 20, 30, 40 and the empty unjoined sample; step 2 is 50, 60
        // and 70, the last an exe_error with an open fence.
        assert_eq!(
            s1.lengths,
            LengthFigures {
                response_chars_mean: Some(20.0),
                response_chars_p90: Some(40),
                response_tokens_mean: None,
                response_tokens_p90: None,
                empty_outputs: 1,
                open_fence_responses: 0,
            }
        );
        assert_eq!(
            (
                s2.lengths.response_chars_mean,
                s2.lengths.response_chars_p90,
                s2.lengths.empty_outputs,
                s2.lengths.open_fence_responses
            ),
            (Some(60.0), Some(70), 0, 1)
        );

        let cell = |func: u32, step: u32| {
            f.function_steps
                .iter()
                .find(|c| c.function == func && c.step == step)
                .map(|c| (c.rollouts, c.right, c.reward))
        };
        assert_eq!(cell(mean, 1), Some((2, 1, 0)));
        assert_eq!(cell(det, 1), Some((2, 1, 2)));
        assert_eq!(cell(mean, 2), Some((2, 2, 2)));
        assert_eq!(cell(det, 2), Some((1, 0, 0)));

        let course = |name: &str| {
            f.task_courses
                .iter()
                .find(|c| c.name == name)
                .map(|c| (c.first_solved, c.last_failed, c.status))
        };
        assert_eq!(
            course("mean task"),
            Some((Some(1), Some(1), Learning::Learned))
        );
        assert_eq!(
            course("det task"),
            Some((Some(1), Some(2), Learning::Forgotten))
        );
        let det_course = f
            .function_courses
            .iter()
            .find(|c| c.name == "zwc.rfx.det")
            .expect("det");
        assert_eq!(det_course.numpy.as_deref(), Some("np.linalg.det"));
        assert_eq!(det_course.status, Learning::Forgotten);

        let map = heat_map(&f, run, |b| b.len() <= 10, HeatSort::Name);
        assert_eq!(map.bins, [(1, 1), (2, 2)]);
        let names: Vec<&str> = map.rows.iter().map(|r| r.2.as_str()).collect();
        assert_eq!(names, ["np.linalg.det", "np.mean"]);
        assert_eq!(map.accuracy(0, 0), Some(0.5));
        assert_eq!(map.accuracy(0, 1), Some(0.0));
        assert_eq!(map.accuracy(1, 1), Some(1.0));
        let one = heat_map(&f, run, |b| b.len() <= 1, HeatSort::Name);
        assert_eq!(one.bins, [(1, 2)]);
        assert_eq!(one.cells[1][0], (4, 3), "mean over both steps");
    }

    #[test]
    fn never_solved_and_groups_without_scores() {
        let mut set = RunSet::default();
        let run = set.add_run("r");
        let t = set.task("q");
        for step in [3, 7] {
            sample(
                &mut set,
                (run, t, step, 0),
                None,
                Verdict::ExeError,
                0,
                &[],
                0,
            );
            sample(
                &mut set,
                (run, t, step, 0),
                None,
                Verdict::ExeError,
                0,
                &[],
                0,
            );
        }
        let f = training_figures(&set, LearnedAt::default());
        // No stored scores: no reward mean, and no group counts as zero-variance.
        assert!(f.steps.iter().all(|s| s.reward_mean.is_none()));
        assert!(
            f.steps
                .iter()
                .all(|s| s.zero_variance_groups == Some(0) && s.groups == 1)
        );
        let c = &f.task_courses[0];
        assert_eq!((c.first_step, c.last_step, c.steps_seen), (3, 7, 2));
        assert_eq!(
            (c.first_solved, c.last_failed, c.status),
            (None, Some(7), Learning::NeverSolved)
        );
        // An evaluation set has no training figures.
        let mut eval = RunSet::default();
        let r = eval.add_run("eval");
        let t = eval.task("q");
        sample(&mut eval, (r, t, 0, 0), None, Verdict::Right, 1, &[], 0);
        eval.rollouts[0].sample = None;
        assert!(training_figures(&eval, LearnedAt::default()).is_empty());
    }

    /// One right sample of four is luck: a step solves a task when at least half of its
    /// samples are right.
    #[test]
    fn a_step_solves_a_task_when_half_its_samples_are_right() {
        // (right samples of 4 at step 1, at step 2) → status.
        for ((r1, r2), want) in [
            ((1, 1), (None, Learning::NeverSolved)),
            ((2, 1), (Some(1), Learning::Forgotten)),
            ((1, 2), (Some(2), Learning::Learned)),
            ((4, 3), (Some(1), Learning::Learned)),
        ] {
            let mut set = RunSet::default();
            let run = set.add_run("rollout");
            let t = set.task("q");
            for (step, right) in [(1, r1), (2, r2)] {
                for i in 0..4 {
                    let v = if i < right {
                        Verdict::Right
                    } else {
                        Verdict::ResultError
                    };
                    sample(&mut set, (run, t, step, 0), None, v, 0, &[], 0);
                }
            }
            let c = &training_figures(&set, LearnedAt::default()).task_courses[0];
            assert_eq!((c.first_solved, c.status), want, "{r1} and {r2} of 4 right");
        }
    }

    /// `--learned-at`: a task 3 of 8 right at its last step is learned at 3/8 and below,
    /// not at half (forgotten when an earlier step had half right, else never solved).
    #[test]
    fn the_threshold_decides_learned_forgotten_and_never() {
        for (first_right, share, want) in [
            (4, 0.5, (Some(1), Learning::Forgotten)),
            (4, 0.375, (Some(1), Learning::Learned)),
            (2, 0.5, (None, Learning::NeverSolved)),
            (2, 0.375, (Some(2), Learning::Learned)),
            (2, 0.25, (Some(1), Learning::Learned)),
        ] {
            let mut set = RunSet::default();
            let run = set.add_run("rollout");
            let t = set.task("q");
            for (step, right) in [(1, first_right), (2, 3)] {
                for i in 0..8 {
                    let v = if i < right {
                        Verdict::Right
                    } else {
                        Verdict::ResultError
                    };
                    sample(&mut set, (run, t, step, 0), None, v, 0, &[], 0);
                }
            }
            let at = LearnedAt::new(share).expect("share");
            let f = training_figures(&set, at);
            assert_eq!(f.learned_at, at);
            let c = &f.task_courses[0];
            assert_eq!(
                (c.first_solved, c.status),
                want,
                "{first_right}/8 then 3/8 at {share}"
            );
            assert_eq!(c.last_accuracy, 3.0 / 8.0);
        }
    }

    /// A run whose hollow-zwc share goes 0, 1/2, 1/10 (a dip), 1/2, 3/5 over five steps of
    /// ten samples, with one numpy backdoor at step 2 only (any loophole: 6/10 there): by
    /// hand, the onset at 10% is
    /// step 2 for any loophole (the dip still reaches 10%), step 4 at 20% (the dip breaks
    /// it), never for the backdoor (gone by the last step); shares per step as counted.
    #[test]
    fn onset_is_the_first_step_the_share_holds_from() {
        use crate::grade::runs::onset::{ANY, OnsetAt};
        let mut set = RunSet::default();
        let run = set.add_run("rollout");
        let t = set.task("mean task");
        let hollow = kind_bit(FindingKind::HollowZwc);
        let backdoor = kind_bit(FindingKind::NumpyBackdoor);
        for (step, through) in [(1u32, 0usize), (2, 5), (3, 1), (4, 5), (5, 6)] {
            for i in 0..10 {
                let kinds = match (step, i) {
                    (2, 9) => backdoor,
                    _ if i < through => hollow,
                    _ => 0,
                };
                sample(
                    &mut set,
                    (run, t, step, i as u32),
                    Some(1.0),
                    Verdict::Right,
                    1,
                    &[],
                    kinds,
                );
            }
        }
        let fig = training_figures(&set, LearnedAt::default());
        assert_eq!(fig.onset_at, OnsetAt::default());
        assert_eq!(fig.onset("rollout", ANY), Some(2));
        assert_eq!(fig.onset("rollout", "hollow_zwc"), Some(2));
        assert_eq!(fig.onset("rollout", "numpy_backdoor"), None);
        let shares: Vec<f64> = fig.steps.iter().map(|s| s.loophole_shares[ANY]).collect();
        assert_eq!(shares, vec![0.0, 0.6, 0.1, 0.5, 0.6]);
        assert_eq!(fig.steps[1].loophole_shares["numpy_backdoor"], 0.1);
        let backdoor_onset = fig
            .onsets
            .iter()
            .find(|o| o.kind == "numpy_backdoor")
            .expect("the backdoor's row");
        assert_eq!(backdoor_onset.peak, Some((2, 0.1)));
        assert_eq!(backdoor_onset.last, 0.0);
        // No row for a kind no step went through.
        assert!(fig.onsets.iter().all(|o| o.kind != "forged_output"));
        let strict = fig.with_onset_at(OnsetAt::parse("20%").expect("share"));
        assert_eq!(strict.onset("rollout", ANY), Some(4));
        assert_eq!(strict.onset("rollout", "hollow_zwc"), Some(4));
        let none = strict.with_onset_at(OnsetAt::parse("0.7").expect("share"));
        assert_eq!(none.onset("rollout", ANY), None);
        assert!(OnsetAt::parse("0").is_err() && OnsetAt::parse("150%").is_err());
    }
}
