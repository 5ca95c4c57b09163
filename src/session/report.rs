//! What `sebx stats` and `sebx compare` report, computed once into typed figures. The JSON
//! output is these types serialized (`serde_json::to_value`); fields marked `skip` are
//! only what the table, Markdown and CSV renderings need besides.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::grade::runs::{
    self, BOOTSTRAP_REPS, Comparison, FunctionRow, FunctionSort, LabelStats, PassAtK,
    RewardFigures, RunStats, WrongNameRow, short_query,
};
use crate::model::{RolloutId, Verdict};

use crate::grade::runs::{LabelSample, LearnedAt, RunSet, TrainingFigures, UngradedSample};

use super::label_progress::LabelTally;
use super::loaded::{Loaded, LoadedRun};

/// Everything `sebx stats` reports.
#[derive(Debug, Clone, Serialize)]
pub struct StatsReport {
    pub runs: Vec<RunReport>,
    /// The internalization map, run by run.
    pub functions: Vec<FunctionReport>,
    pub wrong_names: Vec<WrongNameRow>,
    pub labels: Vec<LabelReport>,
    pub notes: Vec<String>,
    /// Label progress (labelled failures of failures) run by run and over every run: the
    /// figure the explorer's list and Stats screen say too.
    #[serde(skip)]
    pub label_progress: LabelTally,
    /// The k of pass@k, sorted.
    #[serde(skip)]
    pub ks: Vec<usize>,
    /// Seed of the bootstrap and the random labelling order.
    #[serde(skip)]
    pub seed: u64,
    /// Samples and right per (run, task), run by run, tasks in first-seen order.
    #[serde(skip)]
    pub tasks: Vec<TaskRow>,
    /// Training runs step by step (`steps`, `function_steps`, `task_courses`,
    /// `function_courses`, `unjoined`); absent when no input is a training run.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub training: Option<TrainingReport>,
}

/// One run's figures.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    #[serde(flatten)]
    pub stats: RunStats,
    /// The run's file.
    pub path: String,
    /// The official summary lines, verbatim (the lines `sebx grade` prints).
    pub summary: Vec<String>,
    pub accuracy_ci95_method: String,
    /// pass@k by k (`"1"`, `"5"`); the tasks and samples each rests on are in
    /// `pass_at_k_detail`.
    pub pass_at_k: BTreeMap<String, Option<f64>>,
    /// pass@k for k = 1 … min(largest sample count, 20), for the curve.
    #[serde(skip)]
    pub curve: Vec<PassAtK>,
}

/// One row of the internalization map, with its run.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionReport {
    pub run: String,
    /// The run's index in the set (names need not be unique).
    #[serde(skip)]
    pub run_index: u32,
    #[serde(flatten)]
    pub row: FunctionRow,
}

/// One run's hand-label figures, with whose labels they are and how they were sampled.
#[derive(Debug, Clone, Serialize)]
pub struct LabelReport {
    #[serde(flatten)]
    pub stats: LabelStats,
    /// Whose labels count (`None`: nobody's).
    pub annotator: Option<String>,
    /// The sampling of the labelled failures, in a sentence.
    pub sample_note: String,
}

/// One task of one run.
#[derive(Debug, Clone, Serialize)]
pub struct TaskRow {
    pub run: String,
    pub query: String,
    pub samples: usize,
    pub right: usize,
    pub accuracy: f64,
}

/// Default pass@k values: 1 and the largest number of samples of a task (over all runs).
fn default_ks(set: &RunSet) -> Vec<usize> {
    let max = (0..set.runs.len() as u32)
        .flat_map(|run| runs::task_counts(set, run))
        .map(|(_, n, _)| n)
        .max()
        .unwrap_or(1);
    if max > 1 { vec![1, max] } else { vec![1] }
}

/// Computes the stats of loaded runs (the report of [`stats_report`], with the loading's notes).
pub fn compute_stats(
    loaded: &Loaded,
    ks: &[usize],
    sort: FunctionSort,
    seed: u64,
    learned_at: LearnedAt,
) -> StatsReport {
    let mut report = stats_report(&loaded.set, &loaded.runs, ks, sort, seed, learned_at);
    report.notes = loaded.notes.clone();
    report
}

/// Computes every figure of a filled run set: what `sebx stats` prints and the explorer's
/// Stats screen draws, whoever filled the set. `runs` names each run's file, annotator and
/// categories, in the set's run order; `ks` empty means 1 and the largest sample count;
/// `seed` seeds the bootstrap and the random labelling order; `learned_at` is the share of
/// a training step's samples that solves it. The report has no notes.
pub fn stats_report(
    set: &RunSet,
    runs: &[LoadedRun],
    ks: &[usize],
    sort: FunctionSort,
    seed: u64,
    learned_at: LearnedAt,
) -> StatsReport {
    let mut ks = ks.to_vec();
    if ks.is_empty() {
        ks = default_ks(set);
    }
    ks.sort_unstable();
    ks.dedup();
    let run_reports = runs::run_stats(set, &ks, seed)
        .into_iter()
        .zip(runs)
        .map(|(stats, lr)| RunReport {
            path: lr.path.display().to_string(),
            summary: stats.summary.lines(),
            accuracy_ci95_method: format!(
                "percentile bootstrap over tasks, {BOOTSTRAP_REPS} resamples, seed {seed}"
            ),
            pass_at_k: stats
                .pass_at_k
                .iter()
                .map(|p| (p.k.to_string(), p.value))
                .collect(),
            curve: if stats.max_samples > 1 {
                runs::per_run::pass_at_k_curve(set, stats.run, stats.max_samples.min(20), seed)
            } else {
                Vec::new()
            },
            stats,
        })
        .collect();
    let mut functions = Vec::new();
    let mut tasks = Vec::new();
    for (i, name) in set.runs.iter().enumerate() {
        for row in runs::function_map(set, Some(i as u32), sort) {
            functions.push(FunctionReport {
                run: name.clone(),
                run_index: i as u32,
                row,
            });
        }
        let mut counts = runs::task_counts(set, i as u32);
        // In the set's task order (first seen over all runs), as the table always was.
        counts.sort_by_key(|t| t.0);
        tasks.extend(counts.into_iter().map(|(task, n, c)| TaskRow {
            run: name.clone(),
            query: set.tasks[task as usize].clone(),
            samples: n,
            right: c,
            accuracy: c as f64 / n as f64,
        }));
    }
    let labels = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let stats = runs::label_stats(set, i as u32, &r.categories, seed);
            LabelReport {
                sample_note: sample_note(&stats),
                annotator: r.annotator.clone(),
                stats,
            }
        })
        .collect();
    StatsReport {
        runs: run_reports,
        functions,
        wrong_names: runs::wrong_names(set),
        labels,
        notes: Vec::new(),
        label_progress: LabelTally::of_set(set),
        ks,
        seed,
        tasks,
        training: training_report(set, learned_at),
    }
}

impl StatsReport {
    /// The internalization map of run `run` (index into the set's runs), in the report's order.
    pub fn function_map(&self, run: usize) -> Vec<FunctionRow> {
        self.functions
            .iter()
            .filter(|f| f.run_index as usize == run)
            .map(|f| f.row.clone())
            .collect()
    }
}

/// Everything `sebx compare` reports.
#[derive(Debug, Clone, Serialize)]
pub struct CompareReport {
    /// Run names.
    pub a: String,
    pub b: String,
    pub pairs: Vec<PairRow>,
    /// `unpaired_a`, `unpaired_b`, `matrix`, `mcnemar`, `tasks`, `task_test`, `functions`.
    #[serde(flatten)]
    pub comparison: Comparison,
    pub reward_a: RewardFigures,
    pub reward_b: RewardFigures,
    /// Both runs' loophole figures.
    pub loopholes: LoopholeChange,
    pub notes: Vec<String>,
    /// The pairs of one flip-matrix cell, when `--cell` asked for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<CellReport>,
    /// Rollouts and accuracy of A and B.
    #[serde(skip)]
    pub heads: [RunHead; 2],
}

/// One pair of rollouts (same task, i-th in A with i-th in B).
#[derive(Debug, Clone, Serialize)]
pub struct PairRow {
    /// The task's query, shortened to its first line (80 characters).
    pub task: String,
    pub a_line: usize,
    pub b_line: usize,
    pub a_id: RolloutId,
    pub b_id: RolloutId,
    pub verdict_a: Verdict,
    pub verdict_b: Verdict,
}

/// The pairs of one flip-matrix cell.
#[derive(Debug, Clone, Serialize)]
pub struct CellReport {
    pub verdict_a: Verdict,
    pub verdict_b: Verdict,
    pub pairs: Vec<CellPair>,
}

/// One pair of a cell.
#[derive(Debug, Clone, Serialize)]
pub struct CellPair {
    pub a_line: usize,
    pub b_line: usize,
    /// The task's query.
    #[serde(skip)]
    pub query: String,
}

/// What the text says of each compared run besides the pairs.
#[derive(Debug, Clone, Default)]
pub struct RunHead {
    pub rollouts: usize,
    pub accuracy: f64,
}

/// The loophole figures of the two compared runs (`sebx compare` shows the change in the
/// rate of `right` verdicts that went through a loophole).
#[derive(Debug, Clone, Default, Serialize)]
pub struct LoopholeChange {
    pub a: runs::LoopholeFigures,
    pub b: runs::LoopholeFigures,
}

impl LoopholeChange {
    /// B's loophole-right rate minus A's (`None` when a run is empty).
    pub fn delta(&self) -> Option<f64> {
        Some(self.b.right_rate()? - self.a.right_rate()?)
    }
}

/// Compares run `a` with run `b` of loaded runs (the report of [`compare_set`], with the
/// loading's notes).
pub fn compare_report(
    loaded: &Loaded,
    a: u32,
    b: u32,
    seed: u64,
    cell: Option<(Verdict, Verdict)>,
) -> CompareReport {
    let mut report = compare_set(&loaded.set, a, b, seed, cell);
    report.notes = loaded.notes.clone();
    report
}

/// Compares run `a` with run `b` of a filled run set: what `sebx compare` prints and the
/// explorer's Compare screen draws. `cell` picks a flip-matrix cell to list; no notes.
pub fn compare_set(
    set: &RunSet,
    a: u32,
    b: u32,
    seed: u64,
    cell: Option<(Verdict, Verdict)>,
) -> CompareReport {
    let comparison = runs::compare(set, a, b, seed);
    let pairs = comparison
        .pairs
        .iter()
        .map(|&(ia, ib)| {
            let (ra, rb) = (&set.rollouts[ia], &set.rollouts[ib]);
            PairRow {
                task: short_query(&set.tasks[ra.task as usize], 80),
                a_line: ra.line,
                b_line: rb.line,
                a_id: ra.id.clone(),
                b_id: rb.id.clone(),
                verdict_a: ra.verdict,
                verdict_b: rb.verdict,
            }
        })
        .collect();
    let cell = cell.map(|(va, vb)| CellReport {
        verdict_a: va,
        verdict_b: vb,
        pairs: comparison
            .cell(set, va, vb)
            .into_iter()
            .map(|(ia, ib)| {
                let (ra, rb) = (&set.rollouts[ia], &set.rollouts[ib]);
                CellPair {
                    a_line: ra.line,
                    b_line: rb.line,
                    query: set.tasks[ra.task as usize].clone(),
                }
            })
            .collect(),
    });
    let summary_a = runs::run_summary(set, a);
    let summary_b = runs::run_summary(set, b);
    let head = |s: &crate::grade::batch::Summary| RunHead {
        rollouts: s.total,
        accuracy: s.share(Verdict::Right),
    };
    let loopholes = LoopholeChange {
        a: runs::loophole_figures(set.rollouts.iter().filter(|r| r.run == a)),
        b: runs::loophole_figures(set.rollouts.iter().filter(|r| r.run == b)),
    };
    CompareReport {
        a: set.runs[a as usize].clone(),
        b: set.runs[b as usize].clone(),
        loopholes,
        pairs,
        heads: [head(&summary_a), head(&summary_b)],
        reward_a: RewardFigures::of(&summary_a),
        reward_b: RewardFigures::of(&summary_b),
        comparison,
        notes: Vec::new(),
        cell,
    }
}

/// How the labelled failures were chosen, in words.
pub fn sample_note(l: &LabelStats) -> String {
    let seed = l.seed;
    match l.sample {
        LabelSample::None => "no failure is labelled".into(),
        LabelSample::All => "every failure is labelled (a census)".into(),
        LabelSample::Random => format!(
            "drawn at random: the labelled failures are the first of the seeded random order (seed {seed})"
        ),
        LabelSample::Picked => format!(
            "picked, not drawn at random (not the first failures of the random order, seed {seed}): the intervals assume a random sample and may be off"
        ),
    }
}

/// What `sebx stats` reports of training runs (flattened into its JSON).
#[derive(Debug, Clone, Serialize)]
pub struct TrainingReport {
    #[serde(flatten)]
    pub figures: TrainingFigures,
    /// Samples joined to no dataset task, with their file and line.
    pub unjoined: Vec<UngradedSample>,
}

impl TrainingReport {
    /// The step figures of a filled run set, empty when it holds no training samples: what
    /// `sebx stats --by step/heatmap/course` prints and the explorer's Training screen draws
    /// (`learned_at`: the share of a step's samples that solves it).
    pub fn of(set: &RunSet, learned_at: LearnedAt) -> TrainingReport {
        let unjoined = set
            .ungraded
            .iter()
            .filter(|u| u.unjoined)
            .cloned()
            .collect();
        TrainingReport {
            figures: runs::training_figures(set, learned_at),
            unjoined,
        }
    }
}

/// The training report of a run set (`None`: no training runs in it).
pub fn training_report(set: &RunSet, learned_at: LearnedAt) -> Option<TrainingReport> {
    let report = TrainingReport::of(set, learned_at);
    (!report.figures.is_empty()).then_some(report)
}
