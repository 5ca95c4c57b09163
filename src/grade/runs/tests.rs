//! Unit tests of the run statistics, with figures computed by hand in the comments.

use super::*;
use crate::analysis::analyze_rollout;
use crate::model::rollout::parse_rollout_bytes;
use crate::model::sampling::label_order_key;
use crate::model::{ApiMap, RolloutId};
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
fn pass_at_k_interval_resamples_the_tasks_it_averages() {
    // pass@2 per task: 0.7 (5 samples, 2 right), 1 (3 of 3), 0 (4 of 0), the 1-sample task
    // left out: every resample's mean lies between 0 and 1, and the interval holds the value.
    let tasks = [(5, 2), (3, 3), (4, 0), (1, 1)];
    let p = pass_at_k_with_ci(&tasks, 2, BOOTSTRAP_REPS, 7);
    let (lo, hi) = p.ci95.expect("three tasks");
    let v = p.value.expect("value");
    assert!(0.0 <= lo && lo < v && v < hi && hi <= 1.0, "{lo} {v} {hi}");
    assert_eq!(p.tasks, 3);
    assert_eq!(p, pass_at_k_with_ci(&tasks, 2, BOOTSTRAP_REPS, 7), "seeded");
    // A task whose samples all agree has no spread: the interval is the value itself.
    let same = pass_at_k_with_ci(&[(4, 4), (3, 3)], 2, BOOTSTRAP_REPS, 7);
    assert_eq!(same.ci95, Some((1.0, 1.0)));
    // One task says nothing about the spread between tasks.
    assert_eq!(
        pass_at_k_with_ci(&[(5, 2), (1, 1)], 2, BOOTSTRAP_REPS, 7).ci95,
        None
    );
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
        kinds: 0,
        sample: None,
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
    let names: Vec<(&str, usize)> = row
        .wrong_names
        .iter()
        .map(|n| (n.name.as_str(), n.count))
        .collect();
    assert_eq!(
        names,
        vec![("np.mean", 1), ("zwc.kocitu", 1), ("zwc.mean", 1)]
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

/// A task selecting `bitwise_left_shift`, answered right with the zwc name of its NumPy
/// alias `left_shift` (one function, two zwc words): the map counts the right name, as the
/// wrong-names table recommends it; a call of an unrelated function does not.
#[test]
fn the_zwc_name_of_a_numpy_alias_is_the_right_name() {
    let api = ApiMap::from_mappings_json(&serde_json::json!({
        "main": {"bitwise_left_shift": "bofa", "left_shift": "muke", "sum": "bapu"}
    }))
    .expect("mapping");
    let codes = [
        "import zwc\ndef solve(a):\n    return zwc.muke(a, 1)\n",
        "import zwc\ndef solve(a):\n    return zwc.bofa(a, 1)\n",
        "import zwc\ndef solve(a):\n    return zwc.bapu(a) * 2\n",
    ];
    let mut text = String::new();
    for code in codes {
        text.push_str(
            &serde_json::json!({
                "query": "Shift the bits left by one.",
                "response": format!("```python\n{code}```\n"),
                "test_cases": [{"input": "a=[1, 2]", "output": "[2, 4]"}],
                "right_exe_result": "[2, 4]",
                "selected_functions": ["bitwise_left_shift"],
            })
            .to_string(),
        );
        text.push('\n');
    }
    let loaded = parse_rollout_bytes(Path::new("run.jsonl"), text.as_bytes());
    let mut set = RunSet::default();
    let run = set.add_run("run");
    for r in &loaded.rollouts {
        let a = analyze_rollout(r, &api, None);
        set.add_analyzed(
            run,
            &r.query,
            Verdict::Right,
            &a,
            &api,
            &r.selected_functions,
            None,
        );
    }
    let rows = function_map(&set, None, FunctionSort::Accuracy);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].numpy, "np.bitwise_left_shift");
    assert_eq!(rows[0].called_right, 2, "{:?}", rows[0]);
}
