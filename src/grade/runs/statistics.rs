//! The statistics helpers: unbiased pass@k, the task-clustered bootstrap, the Wilson
//! interval, McNemar's exact test and the sign-flip permutation test. Plain numbers in,
//! plain numbers out.

use serde::Serialize;

use crate::model::sampling::SplitMix64;

use super::{EXACT_SIGN_FLIP_MAX, SIGN_FLIP_REPS, Z95};

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
    /// 95% percentile-bootstrap interval, resampling the tasks it averages over
    /// ([`pass_at_k_with_ci`]); `None` with fewer than two such tasks, or where not asked.
    pub ci95: Option<(f64, f64)>,
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
        ci95: None,
        tasks: used,
        samples,
    }
}

/// pass@k over per-task (samples, right) counts with its 95% interval: a percentile
/// bootstrap of the mean of the per-task pass@k, resampling the tasks with at least `k`
/// samples with replacement (`reps` resamples, seeded).
pub fn pass_at_k_with_ci(tasks: &[(usize, usize)], k: usize, reps: usize, seed: u64) -> PassAtK {
    let mut p = pass_at_k_over(tasks, k);
    let values: Vec<f64> = tasks
        .iter()
        .filter_map(|&(n, c)| pass_at_k(n, c, k))
        .collect();
    let t = values.len();
    if t >= 2 && reps > 0 {
        let mut rng = SplitMix64::new(seed);
        let mut means: Vec<f64> = (0..reps)
            .map(|_| (0..t).map(|_| values[rng.below(t)]).sum::<f64>() / t as f64)
            .collect();
        means.sort_by(f64::total_cmp);
        let at = |q: f64| means[((reps - 1) as f64 * q).round() as usize];
        p.ci95 = Some((at(0.025), at(0.975)));
    }
    p
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
