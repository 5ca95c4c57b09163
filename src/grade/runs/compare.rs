//! Two runs compared rollout by rollout: pairing by task, the flip matrix, exact McNemar, and
//! per-task and per-function deltas with a sign-flip test over tasks.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::model::Verdict;

use super::statistics::{PairedTest, mcnemar_exact_p, sign_flip_test};
use super::{RunSet, vi};

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

/// Two runs compared rollout by rollout. Serialized as the figures of `sebx compare
/// --format json` (which adds the run names and the pairs themselves).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    #[serde(skip)]
    pub a: u32,
    #[serde(skip)]
    pub b: u32,
    /// (rollout in A, rollout in B), indices into [`RunSet::rollouts`]: the i-th rollout of
    /// a task in A with the i-th of the same task in B, in A's order.
    #[serde(skip)]
    pub pairs: Vec<(usize, usize)>,
    pub unpaired_a: usize,
    pub unpaired_b: usize,
    /// Pair counts, `[verdict in A][verdict in B]`, indexed by official code; serialized as
    /// `{verdict_a: {verdict_b: count}}`.
    #[serde(serialize_with = "serialize_matrix")]
    pub matrix: [[usize; 5]; 5],
    pub mcnemar: McNemar,
    /// Tasks with pairs, largest drop first.
    pub tasks: Vec<TaskDelta>,
    /// The paired test over task deltas, when some task has several pairs.
    pub task_test: Option<PairedTest>,
    /// Functions with pairs, largest drop first.
    pub functions: Vec<FunctionDelta>,
}

fn serialize_matrix<S: serde::Serializer>(m: &[[usize; 5]; 5], s: S) -> Result<S::Ok, S::Error> {
    matrix_by_name(m).serialize(s)
}

/// The matrix keyed by verdict names.
fn matrix_by_name(m: &[[usize; 5]; 5]) -> BTreeMap<&'static str, BTreeMap<&'static str, usize>> {
    Verdict::ALL
        .iter()
        .map(|a| {
            (
                a.as_str(),
                Verdict::ALL
                    .iter()
                    .map(|b| (b.as_str(), m[vi(*a)][vi(*b)]))
                    .collect(),
            )
        })
        .collect()
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
        matrix_by_name(&self.matrix)
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
