//! Run-level statistics and run comparison, for every front end (`sebx stats`,
//! `sebx compare`, the explorer's stats and compare screens).
//!
//! Input is a [`RunSet`]: one compact [`RolloutFacts`] per graded rollout, built from its
//! verdict and its [`Analysis`] (the same findings `sebx analyze` reports), plus its hand
//! labels. Everything here is plain computation over those facts: the per-run summary with a
//! task-clustered bootstrap interval, unbiased pass@k, the internalization map per zwc
//! function, wrong names across runs, label prevalence among failures, and the paired
//! comparison of two runs (flip matrix, exact McNemar, per-task and per-function deltas).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::analysis::{Analysis, FindingKind, analyze_rollout, graph::NodeKind};
use crate::grade::batch::Summary;
use crate::grade::report::ReasonKind;
use crate::model::sampling::{SplitMix64, label_order_key};
use crate::model::{ApiMap, DatasetItem, Rollout, RolloutId, Verdict};

/// Bootstrap resamples behind every accuracy interval.
pub const BOOTSTRAP_REPS: usize = 2000;
/// Sign-flip resamples of the per-task paired test when exact enumeration is too big.
pub const SIGN_FLIP_REPS: usize = 5_000;
/// Largest number of non-zero task deltas enumerated exactly (2^16 sign patterns).
const EXACT_SIGN_FLIP_MAX: usize = 16;
/// The 97.5% quantile of the standard normal, for the Wilson interval.
const Z95: f64 = 1.959_963_984_540_054;

/// A zwc function that tasks select, with its NumPy name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FunctionKey {
    /// Qualified NumPy name (`np.mean`).
    pub numpy: String,
    /// Qualified zwc name (`zwc.kocito`).
    pub zwc: String,
}

/// A wrong name as the analysis reported it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct WrongNameKey {
    pub kind: FindingKind,
    /// As written (`zwc.mean`, `np.sum`, `tolist`).
    pub name: String,
    /// The correct zwc name(s), where the analysis knows one.
    pub correct: Option<String>,
}

/// How one rollout treated one of its task's functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionUse {
    /// Index into [`RunSet::functions`].
    pub function: u32,
    /// The code calls the function by its right zwc name.
    pub called_right: bool,
    /// A NumPy name stood in its place (`zwc.mean`, `np.mean`, `.mean()`).
    pub numpy_name: bool,
    /// A name neither zwc nor NumPy has stood in its place.
    pub invented_name: bool,
}

/// What the statistics need of one graded rollout.
#[derive(Debug, Clone)]
pub struct RolloutFacts {
    pub run: u32,
    pub task: u32,
    pub verdict: Verdict,
    pub id: RolloutId,
    /// 1-based line in the run's file.
    pub line: usize,
    /// One per function the task selects that the API knows.
    pub uses: Vec<FunctionUse>,
    /// Every wrong-name finding: index into [`RunSet::names`], and the function it stood in
    /// for, when it can be told.
    pub wrong: Vec<(u32, Option<u32>)>,
    /// The current hand label (category ids), `None` when unlabelled.
    pub labels: Option<Vec<String>>,
    /// The official RL reward, when it was scored, and why it disagrees with the verdict.
    pub reward: Option<u8>,
    pub reward_reason: Option<ReasonKind>,
}

/// Graded rollouts of one or more runs, with tasks, functions and wrong names interned.
#[derive(Debug, Clone, Default)]
pub struct RunSet {
    /// Run names, in the order given.
    pub runs: Vec<String>,
    /// Task queries.
    pub tasks: Vec<String>,
    pub functions: Vec<FunctionKey>,
    pub names: Vec<WrongNameKey>,
    pub rollouts: Vec<RolloutFacts>,
    task_index: HashMap<String, u32>,
    function_index: HashMap<String, u32>,
    name_index: HashMap<WrongNameKey, u32>,
}

/// Whether `text` mentions the qualified name `name` as a whole token.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .any(|tok| tok == name)
}

/// `mean` / `np.mean` / `numpy.mean` → `np.mean`.
pub fn qualified_numpy(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("numpy.") {
        format!("np.{rest}")
    } else if name.starts_with("np.") {
        name.to_string()
    } else {
        format!("np.{name}")
    }
}

impl RunSet {
    /// Adds a run (a rollout file) and returns its index.
    pub fn add_run(&mut self, name: &str) -> u32 {
        self.runs.push(name.to_string());
        (self.runs.len() - 1) as u32
    }

    /// The index of a task, adding it when new.
    pub fn task(&mut self, query: &str) -> u32 {
        if let Some(i) = self.task_index.get(query) {
            return *i;
        }
        let i = self.tasks.len() as u32;
        self.tasks.push(query.to_string());
        self.task_index.insert(query.to_string(), i);
        i
    }

    /// The index of a function, adding it when new.
    pub fn function(&mut self, numpy: &str, zwc: &str) -> u32 {
        if let Some(i) = self.function_index.get(zwc) {
            return *i;
        }
        let i = self.functions.len() as u32;
        self.functions.push(FunctionKey {
            numpy: numpy.to_string(),
            zwc: zwc.to_string(),
        });
        self.function_index.insert(zwc.to_string(), i);
        i
    }

    /// The index of a wrong name, adding it when new.
    pub fn name(&mut self, key: WrongNameKey) -> u32 {
        if let Some(i) = self.name_index.get(&key) {
            return *i;
        }
        let i = self.names.len() as u32;
        self.names.push(key.clone());
        self.name_index.insert(key, i);
        i
    }

    /// Adds one graded rollout from its analysis. `selected` are the task's NumPy function
    /// names (`mean`, `linalg.inv`); those the API does not know are left out of the map.
    #[allow(clippy::too_many_arguments)]
    pub fn add_analyzed(
        &mut self,
        run: u32,
        query: &str,
        verdict: Verdict,
        analysis: &Analysis,
        api: &ApiMap,
        selected: &[String],
        labels: Option<Vec<String>>,
    ) {
        let task = self.task(query);
        let mut uses = Vec::new();
        let mut zwc_of_use = Vec::new();
        for s in selected {
            let numpy = qualified_numpy(s);
            let Some(zwc) = api.zwc_name(&numpy) else {
                continue;
            };
            let zwc = zwc.to_string();
            let short = api.numpy_short(&zwc).unwrap_or_default();
            let marker = format!("‹{short}›");
            // The graph resolves aliases (`import zwc as z`): its zwc-call labels end with
            // the NumPy meaning of the real function called.
            let called_right = analysis
                .code
                .graph
                .nodes
                .iter()
                .any(|n| n.kind == NodeKind::ZwcCall && n.label.ends_with(&marker));
            let function = self.function(&numpy, &zwc);
            uses.push(FunctionUse {
                function,
                called_right,
                numpy_name: false,
                invented_name: false,
            });
            zwc_of_use.push(zwc);
        }
        let mut wrong = Vec::new();
        for f in &analysis.code.findings {
            if !f.is_wrong_name() {
                continue;
            }
            let key = WrongNameKey {
                kind: f.kind,
                name: f.name.clone(),
                correct: f.suggestion.clone(),
            };
            let name = self.name(key);
            // The function it stood in for: the one its suggestion names; an invented name
            // with no such hint goes to the task's only function, if the code missed it.
            let mut target = f
                .suggestion
                .as_deref()
                .and_then(|s| zwc_of_use.iter().position(|z| mentions(s, z)));
            if target.is_none()
                && f.kind == FindingKind::UnknownZwcName
                && uses.len() == 1
                && !uses[0].called_right
            {
                target = Some(0);
            }
            if let Some(t) = target {
                if f.kind == FindingKind::UnknownZwcName {
                    uses[t].invented_name = true;
                } else {
                    uses[t].numpy_name = true;
                }
            }
            wrong.push((name, target.map(|t| uses[t].function)));
        }
        self.rollouts.push(RolloutFacts {
            run,
            task,
            verdict,
            id: analysis.id.clone(),
            line: analysis.line,
            uses,
            wrong,
            labels,
            reward: None,
            reward_reason: None,
        });
    }

    /// Records the official RL reward of the rollout added last.
    pub fn set_last_reward(&mut self, reward: Option<u8>, reason: Option<ReasonKind>) {
        if let Some(r) = self.rollouts.last_mut() {
            r.reward = reward;
            r.reward_reason = reason;
        }
    }

    /// Adds one graded rollout: analyzes it (the same analysis `sebx analyze` runs) and
    /// records its facts. The task's functions come from `item`, else the rollout.
    pub fn add_rollout(
        &mut self,
        run: u32,
        rollout: &Rollout,
        verdict: Verdict,
        api: &ApiMap,
        item: Option<&DatasetItem>,
        labels: Option<Vec<String>>,
    ) {
        let analysis = analyze_rollout(rollout, api, item);
        let selected = item
            .map(|i| i.selected_functions.as_slice())
            .filter(|s| !s.is_empty())
            .unwrap_or(&rollout.selected_functions);
        self.add_analyzed(
            run,
            &rollout.query,
            verdict,
            &analysis,
            api,
            selected,
            labels,
        );
    }

    /// Adds a graded rollout with no analysis (no API doc: no functions, no wrong names).
    pub fn add_bare(
        &mut self,
        run: u32,
        rollout: &Rollout,
        verdict: Verdict,
        labels: Option<Vec<String>>,
    ) {
        let task = self.task(&rollout.query);
        self.rollouts.push(RolloutFacts {
            run,
            task,
            verdict,
            id: rollout.id.clone(),
            line: rollout.line,
            uses: Vec::new(),
            wrong: Vec::new(),
            labels,
            reward: None,
            reward_reason: None,
        });
    }

    /// Indices of the rollouts of one run, in file order.
    pub fn of_run(&self, run: u32) -> impl Iterator<Item = usize> + '_ {
        self.rollouts
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.run == run)
            .map(|(i, _)| i)
    }
}

fn vi(v: Verdict) -> usize {
    v.code() as usize
}

// ---------------------------------------------------------------- figures

/// Unbiased pass@k of one task with `n` samples of which `c` are right (Chen et al. 2021):
/// `1 − C(n−c, k) / C(n, k)`, computed as a product so large `n` does not overflow.
/// `None` when `n < k` or `k == 0`.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || n < k || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    // C(n−c,k)/C(n,k) = Π_{i=n−c+1}^{n} (1 − k/i)
    let mut ratio = 1.0f64;
    for i in (n - c + 1)..=n {
        ratio *= 1.0 - k as f64 / i as f64;
    }
    Some(1.0 - ratio)
}

/// pass@k of a run, averaged over the tasks with at least `k` samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassAtK {
    pub k: usize,
    /// `None` when no task has `k` samples.
    pub value: Option<f64>,
    /// Tasks it averages over (those with n ≥ k).
    pub tasks: usize,
    /// Samples of those tasks.
    pub samples: usize,
}

/// pass@k over per-task (samples, right) counts.
pub fn pass_at_k_over(tasks: &[(usize, usize)], k: usize) -> PassAtK {
    let mut sum = 0.0;
    let mut used = 0;
    let mut samples = 0;
    for &(n, c) in tasks {
        if let Some(p) = pass_at_k(n, c, k) {
            sum += p;
            used += 1;
            samples += n;
        }
    }
    PassAtK {
        k,
        value: (used > 0).then(|| sum / used as f64),
        tasks: used,
        samples,
    }
}

/// 95% percentile-bootstrap interval of accuracy, resampling tasks (not rollouts) with
/// replacement, so rollouts of one task stay together: each replicate's accuracy is the
/// right rollouts over all rollouts of the drawn tasks. `tasks` are (samples, right).
/// `None` with fewer than two tasks.
pub fn bootstrap_accuracy_ci(
    tasks: &[(usize, usize)],
    reps: usize,
    seed: u64,
) -> Option<(f64, f64)> {
    let t = tasks.len();
    // One task says nothing about how accuracy varies between tasks.
    if t < 2 || reps == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut stats = Vec::with_capacity(reps);
    for _ in 0..reps {
        let (mut n, mut c) = (0usize, 0usize);
        for _ in 0..t {
            let (tn, tc) = tasks[rng.below(t)];
            n += tn;
            c += tc;
        }
        stats.push(if n == 0 { 0.0 } else { c as f64 / n as f64 });
    }
    stats.sort_by(f64::total_cmp);
    let at = |q: f64| stats[((reps - 1) as f64 * q).round() as usize];
    Some((at(0.025), at(0.975)))
}

/// Wilson score 95% interval of a proportion `k` of `n`.
pub fn wilson_ci95(k: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Some(((center - half).max(0.0), (center + half).min(1.0)))
}

/// ln C(n, i) for i in 0..=m, by the recurrence C(n,i+1) = C(n,i)·(n−i)/(i+1).
fn ln_binomials(n: usize, m: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(m + 1);
    let mut acc = 0.0f64;
    out.push(acc);
    for i in 0..m {
        acc += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
        out.push(acc);
    }
    out
}

/// Exact two-sided McNemar p-value: `b` and `c` are the discordant pairs (right in A only,
/// right in B only). Under the null each discordant pair goes either way with probability
/// ½, so p = min(1, 2 · P(X ≤ min(b, c))) with X ~ Binomial(b + c, ½). Computed in log
/// space, so it stays exact to rounding for any count.
pub fn mcnemar_exact_p(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let m = b.min(c);
    let half = -(n as f64) * std::f64::consts::LN_2;
    let terms: Vec<f64> = ln_binomials(n, m).into_iter().map(|l| l + half).collect();
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = max.exp() * terms.iter().map(|t| (t - max).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

/// A paired test over per-task deltas.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedTest {
    /// Tasks with at least one pair.
    pub tasks: usize,
    /// Mean over tasks of (accuracy in B − accuracy in A).
    pub mean_delta: f64,
    pub p_value: f64,
    /// `sign-flip (exact)` or `sign-flip (Monte Carlo, N resamples, seed S)`.
    pub method: String,
}

/// Two-sided sign-flip permutation test of "mean delta = 0": under the null each task's
/// delta is as likely negated. Exact when at most 16 deltas are non-zero, else Monte Carlo
/// with a fixed seed.
pub fn sign_flip_test(deltas: &[f64], seed: u64) -> PairedTest {
    let tasks = deltas.len();
    let mean_delta = if tasks == 0 {
        0.0
    } else {
        deltas.iter().sum::<f64>() / tasks as f64
    };
    let nz: Vec<f64> = deltas.iter().copied().filter(|d| d.abs() > 1e-12).collect();
    let observed = nz.iter().sum::<f64>().abs();
    let tol = 1e-9 * (1.0 + observed);
    if nz.is_empty() {
        return PairedTest {
            tasks,
            mean_delta,
            p_value: 1.0,
            method: "sign-flip (exact)".into(),
        };
    }
    if nz.len() <= EXACT_SIGN_FLIP_MAX {
        let total = 1usize << nz.len();
        let mut extreme = 0usize;
        for mask in 0..total {
            let s: f64 = nz
                .iter()
                .enumerate()
                .map(|(i, d)| if mask >> i & 1 == 1 { -d } else { *d })
                .sum();
            if s.abs() >= observed - tol {
                extreme += 1;
            }
        }
        return PairedTest {
            tasks,
            mean_delta,
            p_value: extreme as f64 / total as f64,
            method: "sign-flip (exact)".into(),
        };
    }
    let mut rng = SplitMix64::new(seed);
    let mut extreme = 0usize;
    for _ in 0..SIGN_FLIP_REPS {
        let mut s = 0.0;
        let mut bits = 0u64;
        for (i, d) in nz.iter().enumerate() {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            s += if bits >> (i % 64) & 1 == 1 { -d } else { *d };
        }
        if s.abs() >= observed - tol {
            extreme += 1;
        }
    }
    PairedTest {
        tasks,
        mean_delta,
        p_value: (extreme + 1) as f64 / (SIGN_FLIP_REPS + 1) as f64,
        method: format!("sign-flip (Monte Carlo, {SIGN_FLIP_REPS} resamples, seed {seed})"),
    }
}

/// The short form of a query for a table cell.
pub fn short_query(q: &str, max: usize) -> String {
    let first = q
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if first.chars().count() <= max {
        first.to_string()
    } else {
        let cut: String = first.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// A p-value for people: four significant digits, scientific when tiny.
pub fn fmt_p(p: f64) -> String {
    if p >= 1e-4 {
        format!("{p:.4}")
    } else {
        format!("{p:.2e}")
    }
}

// ---------------------------------------------------------------- per run

/// The figures of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunStats {
    pub run: u32,
    pub name: String,
    pub rollouts: usize,
    pub tasks: usize,
    /// Counts per verdict, as the official summary reports them.
    #[serde(skip)]
    pub summary: Summary,
    pub accuracy: f64,
    /// Task-clustered percentile bootstrap, [`BOOTSTRAP_REPS`] resamples, fixed seed.
    pub accuracy_ci95: Option<(f64, f64)>,
    pub pass_at_k: Vec<PassAtK>,
    /// Accuracy of each task (for the histogram), in task order.
    pub task_accuracy: Vec<f64>,
    /// Largest number of samples of one task.
    pub max_samples: usize,
    /// The mean official RL reward over the rollouts that have one.
    pub reward_mean: Option<f64>,
}

/// (samples, right) per task of one run, in first-seen order.
fn task_counts(set: &RunSet, run: u32) -> Vec<(u32, usize, usize)> {
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
                pass_at_k: ks.iter().map(|&k| pass_at_k_over(&per_task, k)).collect(),
                task_accuracy: per_task
                    .iter()
                    .map(|&(n, c)| c as f64 / n.max(1) as f64)
                    .collect(),
                max_samples: per_task.iter().map(|t| t.0).max().unwrap_or(0),
                reward_mean: summary.mean_reward(),
                summary,
            }
        })
        .collect()
}

// ---------------------------------------------------------------- internalization map

/// One row of the internalization map: how a run (or all runs) did on one zwc function.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionRow {
    /// Index into [`RunSet::functions`].
    #[serde(skip)]
    pub function: u32,
    pub numpy: String,
    pub zwc: String,
    /// Tasks selecting it that have rollouts.
    pub tasks: usize,
    pub rollouts: usize,
    /// Rollouts graded `right`.
    pub right: usize,
    pub accuracy: f64,
    /// Rollouts whose code calls the right zwc name.
    pub called_right: usize,
    /// Rollouts where a NumPy name stood in its place.
    pub numpy_name: usize,
    /// Rollouts where an invented name stood in its place.
    pub invented_name: usize,
    /// The wrong names written in its place, most frequent first (occurrences).
    pub wrong_names: Vec<(String, usize)>,
    /// Count per verdict, indexed by official code.
    #[serde(skip)]
    pub verdicts: [usize; 5],
}

impl FunctionRow {
    /// Verdict counts keyed by name, in the official order.
    pub fn verdict_map(&self) -> BTreeMap<&'static str, usize> {
        Verdict::ALL
            .iter()
            .map(|v| (v.as_str(), self.verdicts[vi(*v)]))
            .collect()
    }
}

/// How to sort the internalization map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FunctionSort {
    /// Lowest accuracy first (ties: more rollouts first).
    #[default]
    Accuracy,
    /// Most rollouts first.
    Rollouts,
    /// Most wrong-name stand-ins (NumPy + invented) first.
    WrongNames,
    /// By NumPy name.
    Name,
}

/// The internalization map of `run` (all runs pooled when `None`).
pub fn function_map(set: &RunSet, run: Option<u32>, sort: FunctionSort) -> Vec<FunctionRow> {
    struct Acc {
        tasks: BTreeSet<u32>,
        row: FunctionRow,
        names: HashMap<u32, usize>,
    }
    let mut acc: BTreeMap<u32, Acc> = BTreeMap::new();
    for r in set
        .rollouts
        .iter()
        .filter(|r| run.is_none_or(|x| r.run == x))
    {
        for u in &r.uses {
            let key = &set.functions[u.function as usize];
            let a = acc.entry(u.function).or_insert_with(|| Acc {
                tasks: BTreeSet::new(),
                row: FunctionRow {
                    function: u.function,
                    numpy: key.numpy.clone(),
                    zwc: key.zwc.clone(),
                    tasks: 0,
                    rollouts: 0,
                    right: 0,
                    accuracy: 0.0,
                    called_right: 0,
                    numpy_name: 0,
                    invented_name: 0,
                    wrong_names: Vec::new(),
                    verdicts: [0; 5],
                },
                names: HashMap::new(),
            });
            a.tasks.insert(r.task);
            a.row.rollouts += 1;
            a.row.right += usize::from(r.verdict == Verdict::Right);
            a.row.called_right += usize::from(u.called_right);
            a.row.numpy_name += usize::from(u.numpy_name);
            a.row.invented_name += usize::from(u.invented_name);
            a.row.verdicts[vi(r.verdict)] += 1;
            for (name, target) in &r.wrong {
                if *target == Some(u.function) {
                    *a.names.entry(*name).or_default() += 1;
                }
            }
        }
    }
    let mut rows: Vec<FunctionRow> = acc
        .into_values()
        .map(|mut a| {
            a.row.tasks = a.tasks.len();
            a.row.accuracy = a.row.right as f64 / a.row.rollouts.max(1) as f64;
            let mut names: Vec<(String, usize)> = a
                .names
                .into_iter()
                .map(|(n, c)| (set.names[n as usize].name.clone(), c))
                .collect();
            names.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
            a.row.wrong_names = names;
            a.row
        })
        .collect();
    sort_functions(&mut rows, sort);
    rows
}

/// Sorts map rows in place.
pub fn sort_functions(rows: &mut [FunctionRow], sort: FunctionSort) {
    match sort {
        FunctionSort::Accuracy => rows.sort_by(|a, b| {
            a.accuracy
                .total_cmp(&b.accuracy)
                .then(b.rollouts.cmp(&a.rollouts))
                .then_with(|| a.numpy.cmp(&b.numpy))
        }),
        FunctionSort::Rollouts => rows.sort_by(|a, b| {
            b.rollouts
                .cmp(&a.rollouts)
                .then_with(|| a.numpy.cmp(&b.numpy))
        }),
        FunctionSort::WrongNames => rows.sort_by(|a, b| {
            (b.numpy_name + b.invented_name)
                .cmp(&(a.numpy_name + a.invented_name))
                .then_with(|| a.numpy.cmp(&b.numpy))
        }),
        FunctionSort::Name => rows.sort_by(|a, b| a.numpy.cmp(&b.numpy)),
    }
}

// ---------------------------------------------------------------- wrong names

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

// ---------------------------------------------------------------- hand labels

/// How the labelled failures of a run were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelSample {
    /// No failure is labelled.
    None,
    /// Every failure is labelled (a census: no sampling error).
    All,
    /// The labelled failures are exactly the first ones of the seeded random order.
    Random,
    /// Anything else: chosen by a person or by file order; an interval would assume a
    /// random sample it is not.
    Picked,
}

impl LabelSample {
    pub fn describe(self, seed: u64) -> String {
        match self {
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
}

/// One category's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryStats {
    pub category: String,
    /// Labelled rollouts (any verdict) carrying it.
    pub count: usize,
    /// Labelled failures carrying it.
    pub failures: usize,
    /// `failures` over the labelled failures.
    pub prevalence: Option<f64>,
    /// Wilson 95% interval of the prevalence.
    pub prevalence_ci95: Option<(f64, f64)>,
}

/// Hand-label figures of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelStats {
    pub run: String,
    pub labelled: usize,
    pub failures: usize,
    pub labelled_failures: usize,
    pub sample: LabelSample,
    pub seed: u64,
    pub categories: Vec<CategoryStats>,
}

/// Label counts and prevalence among failures for one run. `order` fixes the category
/// order (taxonomy order); categories not in it follow, sorted.
pub fn label_stats(set: &RunSet, run: u32, order: &[String], seed: u64) -> LabelStats {
    let rollouts: Vec<&RolloutFacts> = set.rollouts.iter().filter(|r| r.run == run).collect();
    let mut failures: Vec<&RolloutFacts> = rollouts
        .iter()
        .copied()
        .filter(|r| r.verdict != Verdict::Right)
        .collect();
    let labelled = rollouts.iter().filter(|r| r.labels.is_some()).count();
    let labelled_failures = failures.iter().filter(|r| r.labels.is_some()).count();
    failures.sort_by_cached_key(|r| label_order_key(seed, &r.id));
    let sample = if labelled_failures == 0 {
        LabelSample::None
    } else if labelled_failures == failures.len() {
        LabelSample::All
    } else if failures[..labelled_failures]
        .iter()
        .all(|r| r.labels.is_some())
    {
        LabelSample::Random
    } else {
        LabelSample::Picked
    };
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for r in &rollouts {
        for c in r.labels.iter().flatten() {
            let e = counts.entry(c.as_str()).or_default();
            e.0 += 1;
            if r.verdict != Verdict::Right {
                e.1 += 1;
            }
        }
    }
    let mut names: Vec<String> = order
        .iter()
        .filter(|c| counts.contains_key(c.as_str()))
        .cloned()
        .collect();
    names.extend(
        counts
            .keys()
            .filter(|c| !order.iter().any(|o| o == *c))
            .map(|c| c.to_string()),
    );
    let categories = names
        .into_iter()
        .map(|c| {
            let (count, fails) = counts.get(c.as_str()).copied().unwrap_or_default();
            CategoryStats {
                prevalence: (labelled_failures > 0)
                    .then(|| fails as f64 / labelled_failures as f64),
                prevalence_ci95: wilson_ci95(fails, labelled_failures),
                category: c,
                count,
                failures: fails,
            }
        })
        .collect();
    LabelStats {
        run: set.runs[run as usize].clone(),
        labelled,
        failures: failures.len(),
        labelled_failures,
        sample,
        seed,
        categories,
    }
}

// ---------------------------------------------------------------- compare

/// McNemar's exact test on the paired right / not-right outcomes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McNemar {
    pub a_right_b_wrong: usize,
    pub a_wrong_b_right: usize,
    pub p_value: f64,
}

/// One task's paired accuracies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskDelta {
    #[serde(skip)]
    pub task: u32,
    pub query: String,
    pub pairs: usize,
    pub accuracy_a: f64,
    pub accuracy_b: f64,
    pub delta: f64,
}

/// One function's paired accuracies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionDelta {
    #[serde(skip)]
    pub function: u32,
    pub numpy: String,
    pub zwc: String,
    pub pairs: usize,
    pub accuracy_a: f64,
    pub accuracy_b: f64,
    pub delta: f64,
}

/// Two runs compared rollout by rollout.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub a: u32,
    pub b: u32,
    /// (rollout in A, rollout in B), indices into [`RunSet::rollouts`]: the i-th rollout of
    /// a task in A with the i-th of the same task in B, in A's order.
    pub pairs: Vec<(usize, usize)>,
    pub unpaired_a: usize,
    pub unpaired_b: usize,
    /// Pair counts, `[verdict in A][verdict in B]`, indexed by official code.
    pub matrix: [[usize; 5]; 5],
    pub mcnemar: McNemar,
    /// Tasks with pairs, largest drop first.
    pub tasks: Vec<TaskDelta>,
    /// The paired test over task deltas, when some task has several pairs.
    pub task_test: Option<PairedTest>,
    /// Functions with pairs, largest drop first.
    pub functions: Vec<FunctionDelta>,
}

impl Comparison {
    /// Pairs in one cell of the flip matrix.
    pub fn cell(&self, set: &RunSet, va: Verdict, vb: Verdict) -> Vec<(usize, usize)> {
        self.pairs
            .iter()
            .copied()
            .filter(|&(a, b)| set.rollouts[a].verdict == va && set.rollouts[b].verdict == vb)
            .collect()
    }

    /// The matrix keyed by verdict names (`{verdict_a: {verdict_b: count}}`).
    pub fn matrix_map(&self) -> BTreeMap<&'static str, BTreeMap<&'static str, usize>> {
        Verdict::ALL
            .iter()
            .map(|a| {
                (
                    a.as_str(),
                    Verdict::ALL
                        .iter()
                        .map(|b| (b.as_str(), self.matrix[vi(*a)][vi(*b)]))
                        .collect(),
                )
            })
            .collect()
    }
}

/// Compares run `a` with run `b`.
pub fn compare(set: &RunSet, a: u32, b: u32, seed: u64) -> Comparison {
    let mut by_task_a: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut by_task_b: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut order: Vec<u32> = Vec::new();
    for (i, r) in set.rollouts.iter().enumerate() {
        if r.run == a {
            let e = by_task_a.entry(r.task).or_default();
            if e.is_empty() {
                order.push(r.task);
            }
            e.push(i);
        } else if r.run == b {
            by_task_b.entry(r.task).or_default().push(i);
        }
    }
    let mut pairs = Vec::new();
    let (mut unpaired_a, mut unpaired_b) = (0, 0);
    for task in &order {
        let ra = &by_task_a[task];
        let rb = by_task_b.get(task).map(Vec::as_slice).unwrap_or(&[]);
        pairs.extend(ra.iter().copied().zip(rb.iter().copied()));
        unpaired_a += ra.len().saturating_sub(rb.len());
        unpaired_b += rb.len().saturating_sub(ra.len());
    }
    unpaired_b += by_task_b
        .iter()
        .filter(|(t, _)| !by_task_a.contains_key(t))
        .map(|(_, v)| v.len())
        .sum::<usize>();

    let mut matrix = [[0usize; 5]; 5];
    let (mut b_only, mut c_only) = (0, 0);
    // task → (pairs, right in A, right in B); function likewise.
    let mut tasks: BTreeMap<u32, (usize, usize, usize)> = BTreeMap::new();
    let mut functions: BTreeMap<u32, (usize, usize, usize)> = BTreeMap::new();
    for &(ia, ib) in &pairs {
        let (ra, rb) = (&set.rollouts[ia], &set.rollouts[ib]);
        matrix[vi(ra.verdict)][vi(rb.verdict)] += 1;
        let (ok_a, ok_b) = (ra.verdict == Verdict::Right, rb.verdict == Verdict::Right);
        b_only += usize::from(ok_a && !ok_b);
        c_only += usize::from(!ok_a && ok_b);
        let t = tasks.entry(ra.task).or_default();
        t.0 += 1;
        t.1 += usize::from(ok_a);
        t.2 += usize::from(ok_b);
        for u in &ra.uses {
            let f = functions.entry(u.function).or_default();
            f.0 += 1;
            f.1 += usize::from(ok_a);
            f.2 += usize::from(ok_b);
        }
    }
    let mut task_rows: Vec<TaskDelta> = tasks
        .iter()
        .map(|(&task, &(n, ca, cb))| {
            let (aa, ab) = (ca as f64 / n as f64, cb as f64 / n as f64);
            TaskDelta {
                task,
                query: set.tasks[task as usize].clone(),
                pairs: n,
                accuracy_a: aa,
                accuracy_b: ab,
                delta: ab - aa,
            }
        })
        .collect();
    let several = task_rows.iter().any(|t| t.pairs > 1);
    let task_test = several.then(|| {
        let deltas: Vec<f64> = task_rows.iter().map(|t| t.delta).collect();
        sign_flip_test(&deltas, seed)
    });
    task_rows.sort_by(|x, y| x.delta.total_cmp(&y.delta).then(x.task.cmp(&y.task)));
    let mut function_rows: Vec<FunctionDelta> = functions
        .iter()
        .map(|(&function, &(n, ca, cb))| {
            let key = &set.functions[function as usize];
            let (aa, ab) = (ca as f64 / n as f64, cb as f64 / n as f64);
            FunctionDelta {
                function,
                numpy: key.numpy.clone(),
                zwc: key.zwc.clone(),
                pairs: n,
                accuracy_a: aa,
                accuracy_b: ab,
                delta: ab - aa,
            }
        })
        .collect();
    function_rows.sort_by(|x, y| {
        x.delta
            .total_cmp(&y.delta)
            .then(y.pairs.cmp(&x.pairs))
            .then_with(|| x.numpy.cmp(&y.numpy))
    });
    Comparison {
        a,
        b,
        pairs,
        unpaired_a,
        unpaired_b,
        matrix,
        mcnemar: McNemar {
            a_right_b_wrong: b_only,
            a_wrong_b_right: c_only,
            p_value: mcnemar_exact_p(b_only, c_only),
        },
        tasks: task_rows,
        task_test,
        functions: function_rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze_rollout;
    use crate::model::rollout::parse_rollout_bytes;
    use std::path::Path;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// C(n, k) as f64, directly.
    fn choose(n: usize, k: usize) -> f64 {
        if k > n {
            return 0.0;
        }
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn pass_at_k_matches_the_formula() {
        assert_eq!(pass_at_k(5, 2, 2), Some(0.7)); // 1 − C(3,2)/C(5,2) = 1 − 3/10
        assert!(close(pass_at_k(5, 2, 1).expect("n ≥ k"), 0.4, 1e-12));
        assert_eq!(pass_at_k(5, 0, 3), Some(0.0));
        assert_eq!(pass_at_k(5, 4, 2), Some(1.0));
        assert_eq!(pass_at_k(2, 1, 3), None);
        for n in 1..=12 {
            for c in 0..=n {
                for k in 1..=n {
                    let direct = 1.0 - choose(n - c, k) / choose(n, k);
                    let got = pass_at_k(n, c, k).expect("n ≥ k");
                    assert!(
                        close(got, direct, 1e-12),
                        "n={n} c={c} k={k}: {got} vs {direct}"
                    );
                }
            }
        }
    }

    #[test]
    fn pass_at_k_averages_over_tasks_with_enough_samples() {
        let p = pass_at_k_over(&[(5, 2), (3, 3), (1, 1)], 2);
        assert_eq!(p.tasks, 2);
        assert_eq!(p.samples, 8);
        assert!(close(p.value.expect("two tasks"), (0.7 + 1.0) / 2.0, 1e-12));
        assert_eq!(pass_at_k_over(&[(1, 1)], 2).value, None);
    }

    #[test]
    fn mcnemar_exact_p_values() {
        // b=1, c=5: 2·P(X ≤ 1), X ~ Bin(6, ½) = 2·(1 + 6)/64.
        assert!(close(mcnemar_exact_p(1, 5), 14.0 / 64.0, 1e-12));
        assert!(close(mcnemar_exact_p(5, 1), 14.0 / 64.0, 1e-12));
        assert!(close(mcnemar_exact_p(0, 10), 2.0 / 1024.0, 1e-15));
        assert_eq!(mcnemar_exact_p(3, 3), 1.0);
        assert_eq!(mcnemar_exact_p(0, 0), 1.0);
        // Large counts stay finite and tiny (no underflow to NaN).
        let p = mcnemar_exact_p(100, 2000);
        assert!(p < 1e-100 && p.is_finite());
        // b=10, c=20: sum_{i≤10} C(30,i) / 2^30 · 2.
        let tail: f64 = (0..=10).map(|i| choose(30, i)).sum::<f64>() / 2f64.powi(30);
        assert!(close(mcnemar_exact_p(10, 20), 2.0 * tail, 1e-12));
    }

    #[test]
    fn wilson_interval_values() {
        let (lo, hi) = wilson_ci95(5, 10).expect("n > 0");
        assert!(
            close(lo, 0.2366, 1e-4) && close(hi, 0.7634, 1e-4),
            "{lo} {hi}"
        );
        let (lo, hi) = wilson_ci95(0, 10).expect("n > 0");
        assert_eq!(lo, 0.0);
        assert!(close(hi, 0.2775, 1e-4), "{hi}");
        let (lo, hi) = wilson_ci95(1, 2).expect("n > 0");
        assert!(
            close(lo, 0.0945, 1e-4) && close(hi, 0.9055, 1e-4),
            "{lo} {hi}"
        );
        assert_eq!(wilson_ci95(0, 0), None);
    }

    #[test]
    fn bootstrap_interval_is_seeded_and_clustered() {
        // Every task at 3/5: every resample gives 0.6.
        let same = vec![(5, 3); 10];
        assert_eq!(bootstrap_accuracy_ci(&same, 500, 1), Some((0.6, 0.6)));
        // Same seed, same interval; another seed, (almost surely) another.
        let mixed: Vec<(usize, usize)> = (0..30).map(|i| (5, i % 6)).collect();
        let a = bootstrap_accuracy_ci(&mixed, BOOTSTRAP_REPS, 42);
        assert_eq!(a, bootstrap_accuracy_ci(&mixed, BOOTSTRAP_REPS, 42));
        assert_ne!(a, bootstrap_accuracy_ci(&mixed, BOOTSTRAP_REPS, 43));
        // It agrees with the cluster-robust normal interval p ± 1.96·se, where
        // se² = T/(T−1) · Σ (c_t − p n_t)² / (Σ n_t)².
        let (lo, hi) = a.expect("tasks");
        let n: f64 = mixed.iter().map(|t| t.0 as f64).sum();
        let c: f64 = mixed.iter().map(|t| t.1 as f64).sum();
        let p = c / n;
        let t = mixed.len() as f64;
        let ss: f64 = mixed
            .iter()
            .map(|&(nt, ct)| (ct as f64 - p * nt as f64).powi(2))
            .sum();
        let se = (t / (t - 1.0) * ss).sqrt() / n;
        assert!(close(lo, p - Z95 * se, 0.02), "{lo} vs {}", p - Z95 * se);
        assert!(close(hi, p + Z95 * se, 0.02), "{hi} vs {}", p + Z95 * se);
        // Clustering matters: all-or-nothing tasks give a much wider interval than the
        // same accuracy spread evenly over tasks.
        let clustered: Vec<(usize, usize)> = (0..20)
            .map(|i| (5, if i % 2 == 0 { 5 } else { 0 }))
            .collect();
        let spread: Vec<(usize, usize)> = (0..20)
            .map(|i| (5, if i % 2 == 0 { 3 } else { 2 }))
            .collect();
        let w = |ci: Option<(f64, f64)>| ci.map(|(l, h)| h - l).expect("tasks");
        assert!(
            w(bootstrap_accuracy_ci(&clustered, BOOTSTRAP_REPS, 7))
                > 3.0 * w(bootstrap_accuracy_ci(&spread, BOOTSTRAP_REPS, 7))
        );
        // Two one-sample tasks, one right: a replicate draws both tasks with replacement, so
        // its accuracy is 0 (p ¼), ½ (p ½) or 1 (p ¼); the 2.5% and 97.5% points are 0 and 1.
        assert_eq!(
            bootstrap_accuracy_ci(&[(1, 1), (1, 0)], BOOTSTRAP_REPS, 3),
            Some((0.0, 1.0))
        );
        assert_eq!(bootstrap_accuracy_ci(&[], 10, 1), None);
        assert_eq!(
            bootstrap_accuracy_ci(&[(5, 3)], 10, 1),
            None,
            "one task: no interval"
        );
    }

    #[test]
    fn sign_flip_exact_and_monte_carlo() {
        // 8 sign patterns of (0.2, 0.4, 0.6); only all-plus and all-minus reach |1.2|.
        let t = sign_flip_test(&[0.2, 0.4, 0.6], 1);
        assert!(close(t.p_value, 0.25, 1e-12), "{t:?}");
        assert!(close(t.mean_delta, 0.4, 1e-12));
        assert_eq!(t.method, "sign-flip (exact)");
        assert_eq!(sign_flip_test(&[0.0, 0.0], 1).p_value, 1.0);
        // 40 positive deltas: exact p would be 2/2^40; Monte Carlo gives its floor 1/(R+1).
        let t = sign_flip_test(&[0.5; 40], 3);
        assert!(t.method.contains("Monte Carlo"));
        assert!(close(t.p_value, 1.0 / (SIGN_FLIP_REPS + 1) as f64, 1e-15));
    }

    fn facts(run: u32, task: u32, verdict: Verdict, n: usize) -> RolloutFacts {
        RolloutFacts {
            run,
            task,
            verdict,
            id: RolloutId(format!("r{run}-{n}")),
            line: n + 1,
            uses: Vec::new(),
            wrong: Vec::new(),
            labels: None,
            reward: None,
            reward_reason: None,
        }
    }

    #[test]
    fn pairing_flip_matrix_and_mcnemar() {
        use Verdict::*;
        let mut set = RunSet::default();
        let (a, b) = (set.add_run("A"), set.add_run("B"));
        let (t1, t2, t3) = (set.task("q1"), set.task("q2"), set.task("q3"));
        let f = set.function("np.mean", "zwc.kocito");
        let rows = [
            (a, t1, Right),
            (a, t1, ExeError),
            (a, t2, ResultError),
            (b, t2, ResultError),
            (b, t1, Right),
            (a, t1, Right),
            (b, t1, Right),
            (b, t2, Right),
            (b, t3, Right),
        ];
        for (i, (run, task, v)) in rows.into_iter().enumerate() {
            let mut r = facts(run, task, v, i);
            if task == t1 {
                r.uses.push(FunctionUse {
                    function: f,
                    called_right: v == Right,
                    numpy_name: false,
                    invented_name: false,
                });
            }
            set.rollouts.push(r);
        }
        let c = compare(&set, a, b, 1);
        // t1: A(0,1,5) with B(4,6) → (0,4), (1,6); A's 5 unpaired. t2: (2,3); B's 7 unpaired.
        // t3 only in B: 8 unpaired.
        assert_eq!(c.pairs, vec![(0, 4), (1, 6), (2, 3)]);
        assert_eq!((c.unpaired_a, c.unpaired_b), (1, 2));
        assert_eq!(c.matrix[vi(Right)][vi(Right)], 1);
        assert_eq!(c.matrix[vi(ExeError)][vi(Right)], 1);
        assert_eq!(c.matrix[vi(ResultError)][vi(ResultError)], 1);
        assert_eq!(c.matrix.iter().flatten().sum::<usize>(), 3);
        assert_eq!(c.matrix_map()["exe_error"]["right"], 1);
        assert_eq!(c.cell(&set, ExeError, Right), vec![(1, 6)]);
        assert_eq!(
            c.mcnemar,
            McNemar {
                a_right_b_wrong: 0,
                a_wrong_b_right: 1,
                p_value: 1.0
            }
        );
        // Per task: t1 0.5 → 1.0, t2 0 → 0; sorted by delta, the drop (none) first.
        assert_eq!(c.tasks.len(), 2);
        assert_eq!(c.tasks[0].query, "q2");
        assert!(close(c.tasks[1].delta, 0.5, 1e-12));
        // t1 has two pairs, so the per-task test runs: one non-zero delta → p = 1.
        let test = c.task_test.as_ref().expect("several samples");
        assert_eq!(test.p_value, 1.0);
        assert_eq!(c.functions.len(), 1);
        assert_eq!(
            (
                c.functions[0].accuracy_a,
                c.functions[0].accuracy_b,
                c.functions[0].pairs
            ),
            (0.5, 1.0, 2)
        );
    }

    #[test]
    fn function_drops_sort_first() {
        use Verdict::*;
        let mut set = RunSet::default();
        let (a, b) = (set.add_run("A"), set.add_run("B"));
        let t1 = set.task("q1");
        let t2 = set.task("q2");
        let f1 = set.function("np.mean", "zwc.kocito");
        let f2 = set.function("np.sum", "zwc.bapu");
        let mk = |run, task, v, n, f| {
            let mut r = facts(run, task, v, n);
            r.uses.push(FunctionUse {
                function: f,
                called_right: true,
                numpy_name: false,
                invented_name: false,
            });
            r
        };
        set.rollouts.push(mk(a, t1, Right, 0, f1));
        set.rollouts.push(mk(a, t2, Right, 1, f2));
        set.rollouts.push(mk(b, t1, Right, 2, f1));
        set.rollouts.push(mk(b, t2, ExeError, 3, f2));
        let c = compare(&set, a, b, 1);
        assert_eq!(c.functions[0].numpy, "np.sum");
        assert_eq!(c.functions[0].delta, -1.0);
        assert_eq!(c.mcnemar.a_right_b_wrong, 1);
        assert!(
            c.task_test.is_none(),
            "one pair per task: McNemar is the paired test"
        );
    }

    fn demo_api() -> ApiMap {
        ApiMap::from_mappings_json(&serde_json::json!({
            "main": {"mean": "kocito", "sum": "bapu", "array": "yitaf"},
            "linalg": {"inv": "quvohe"}
        }))
        .expect("mapping")
    }

    #[test]
    fn a_function_row_from_real_analyses() {
        let api = demo_api();
        let codes = [
            (
                "right",
                "import zwc\ndef solve(a):\n    return zwc.kocito(a)\n",
            ),
            (
                "exe_error",
                "import zwc\ndef solve(a):\n    return zwc.mean(a)\n",
            ),
            (
                "exe_error",
                "import zwc\ndef solve(a):\n    return zwc.kocitu(a)\n",
            ),
            (
                "use_numpy",
                "import numpy as np\nimport zwc\ndef solve(a):\n    return np.mean(zwc.yitaf(a))\n",
            ),
            (
                "right",
                "import zwc as z\ndef solve(a):\n    return z.kocito(a)\n",
            ),
        ];
        let mut text = String::new();
        for (_, code) in &codes {
            let response = format!("Here:\n```python\n{code}```\n");
            text.push_str(
                &serde_json::json!({
                    "query": "Average the readings.",
                    "response": response,
                    "test_cases": [{"input": "a=[1, 2]", "output": "1.5"}],
                    "right_exe_result": "1.5",
                    "selected_functions": ["mean"],
                })
                .to_string(),
            );
            text.push('\n');
        }
        let loaded = parse_rollout_bytes(Path::new("run.jsonl"), text.as_bytes());
        let mut set = RunSet::default();
        let run = set.add_run("run");
        for (r, (v, _)) in loaded.rollouts.iter().zip(&codes) {
            let a = analyze_rollout(r, &api, None);
            let verdict = Verdict::parse(v).expect("verdict");
            set.add_analyzed(
                run,
                &r.query,
                verdict,
                &a,
                &api,
                &r.selected_functions,
                None,
            );
        }
        let rows = function_map(&set, None, FunctionSort::Accuracy);
        assert_eq!(rows.len(), 1, "{rows:?}");
        let row = &rows[0];
        assert_eq!(
            (row.numpy.as_str(), row.zwc.as_str()),
            ("np.mean", "zwc.kocito")
        );
        assert_eq!((row.tasks, row.rollouts, row.right), (1, 5, 2));
        assert!(close(row.accuracy, 0.4, 1e-12));
        assert_eq!(row.called_right, 2, "the alias `z.kocito` counts too");
        assert_eq!((row.numpy_name, row.invented_name), (2, 1));
        assert_eq!(
            row.wrong_names,
            vec![
                ("np.mean".to_string(), 1),
                ("zwc.kocitu".to_string(), 1),
                ("zwc.mean".to_string(), 1)
            ]
        );
        let mix = row.verdict_map();
        assert_eq!(
            (mix["right"], mix["exe_error"], mix["use_numpy"]),
            (2, 2, 1)
        );
        let names = wrong_names(&set);
        assert_eq!(names.len(), 3);
        let zm = names
            .iter()
            .find(|n| n.name == "zwc.mean")
            .expect("zwc.mean");
        assert_eq!(zm.kind, "numpy_name_on_zwc");
        assert_eq!(zm.correct.as_deref(), Some("zwc.kocito"));
        assert_eq!(zm.runs, vec!["run".to_string()]);
    }

    #[test]
    fn run_stats_summary_and_pass_at_k() {
        use Verdict::*;
        let mut set = RunSet::default();
        let run = set.add_run("A");
        let t1 = set.task("q1");
        let t2 = set.task("q2");
        let vs = [
            (t1, Right),
            (t1, Right),
            (t1, ExeError),
            (t2, WithoutZwc),
            (t2, Right),
            (t2, UseNumpy),
        ];
        for (i, (t, v)) in vs.into_iter().enumerate() {
            set.rollouts.push(facts(run, t, v, i));
        }
        let s = &run_stats(&set, &[1, 2, 4], 9)[0];
        assert_eq!((s.rollouts, s.tasks, s.max_samples), (6, 2, 3));
        assert!(close(s.accuracy, 0.5, 1e-12));
        assert_eq!(s.summary.count(Right), 3);
        assert_eq!(s.summary.lines()[1], "accuracy (right): 50.00%");
        // pass@1 = mean of c/n = (2/3 + 1/3)/2; pass@2 = mean(1 − C(1,2)/C(3,2), 1 − C(2,2)/C(3,2)).
        assert!(close(s.pass_at_k[0].value.expect("k=1"), 0.5, 1e-12));
        assert!(close(
            s.pass_at_k[1].value.expect("k=2"),
            (1.0 + 2.0 / 3.0) / 2.0,
            1e-12
        ));
        assert_eq!(s.pass_at_k[2].value, None);
        let (lo, hi) = s.accuracy_ci95.expect("tasks");
        assert!(lo <= 0.5 && hi >= 0.5 && lo >= 1.0 / 3.0 - 1e-12 && hi <= 2.0 / 3.0 + 1e-12);
        assert_eq!(s.task_accuracy.len(), 2);
    }

    #[test]
    fn label_prevalence_and_random_or_picked() {
        use Verdict::*;
        let seed = 11;
        let build = |labelled: &[usize]| {
            let mut set = RunSet::default();
            let run = set.add_run("A");
            let t = set.task("q");
            set.rollouts.push(facts(run, t, Right, 0));
            for i in 1..=4 {
                set.rollouts.push(facts(run, t, ExeError, i));
            }
            // The seeded order of the four failures.
            let mut order: Vec<usize> = (1..=4).collect();
            order.sort_by_key(|&i| label_order_key(seed, &set.rollouts[i].id));
            for (n, &pos) in labelled.iter().enumerate() {
                let cats = if n == 0 {
                    vec!["x".to_string()]
                } else {
                    vec!["y".to_string()]
                };
                set.rollouts[order[pos]].labels = Some(cats);
            }
            set.rollouts[0].labels = Some(vec!["x".to_string()]);
            set
        };
        let set = build(&[0, 1]);
        let l = label_stats(&set, 0, &["y".to_string(), "x".to_string()], seed);
        assert_eq!(l.sample, LabelSample::Random);
        assert_eq!((l.labelled, l.failures, l.labelled_failures), (3, 4, 2));
        assert_eq!(l.categories[0].category, "y", "taxonomy order");
        let x = &l.categories[1];
        assert_eq!(
            (x.count, x.failures),
            (2, 1),
            "the right rollout's label is not a failure"
        );
        assert_eq!(x.prevalence, Some(0.5));
        let (lo, hi) = x.prevalence_ci95.expect("labelled failures");
        assert!(close(lo, 0.0945, 1e-4) && close(hi, 0.9055, 1e-4));
        assert_eq!(
            label_stats(&build(&[2, 3]), 0, &[], seed).sample,
            LabelSample::Picked
        );
        assert_eq!(
            label_stats(&build(&[0, 1, 2, 3]), 0, &[], seed).sample,
            LabelSample::All
        );
        assert_eq!(
            label_stats(&build(&[]), 0, &[], seed).sample,
            LabelSample::None
        );
    }
}
