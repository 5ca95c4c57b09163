//! Run statistics and comparison over 100,000 generated graded rollouts (two runs of
//! 50,000: 10,000 tasks × 5 samples, 400 functions, wrong names and labels): prints the
//! time of each figure and the total, measured in this run, against the 1 s target.
//! "After loading": the rollouts' facts (verdict, analysis findings, labels) exist already;
//! building them from files is the loader's and the analysis' cost (see analysis_speed).

use std::hint::black_box;
use std::time::Instant;

use sebx::analysis::FindingKind;
use sebx::grade::runs::{self, FunctionSort, FunctionUse, RolloutFacts, RunSet, WrongNameKey};
use sebx::model::sampling::SplitMix64;
use sebx::model::{RolloutId, Verdict};

const TASKS: usize = 10_000;
const SAMPLES: usize = 5;
const FUNCTIONS: usize = 400;

fn generate() -> RunSet {
    let mut set = RunSet::default();
    let mut rng = SplitMix64::new(2026);
    let runs = [set.add_run("checkpoint-a"), set.add_run("checkpoint-b")];
    let functions: Vec<u32> = (0..FUNCTIONS)
        .map(|f| set.function(&format!("np.f{f}"), &format!("zwc.z{f}")))
        .collect();
    let names: Vec<u32> = (0..2_000)
        .map(|n| {
            set.name(WrongNameKey {
                kind: if n % 3 == 0 {
                    FindingKind::UnknownZwcName
                } else {
                    FindingKind::NumpyNameOnZwc
                },
                name: format!("zwc.wrong{n}"),
                correct: Some(format!("zwc.z{}", n % FUNCTIONS)),
            })
        })
        .collect();
    let tasks: Vec<u32> = (0..TASKS).map(|t| set.task(&format!("task {t}"))).collect();
    for (ri, &run) in runs.iter().enumerate() {
        for (t, &task) in tasks.iter().enumerate() {
            // Task difficulty shared by both runs, so outcomes are correlated as in real pairs.
            let difficulty = (t * 7919 % 100) as u64;
            for s in 0..SAMPLES {
                let roll = rng.next_u64() % 100;
                let verdict = if roll + (ri as u64 * 3) > difficulty {
                    Verdict::Right
                } else {
                    Verdict::ALL[1 + (rng.next_u64() % 4) as usize]
                };
                let f = functions[t % FUNCTIONS];
                let wrong = if verdict != Verdict::Right && rng.next_u64().is_multiple_of(3) {
                    vec![(
                        names[(rng.next_u64() % names.len() as u64) as usize],
                        Some(f),
                    )]
                } else {
                    Vec::new()
                };
                set.rollouts.push(RolloutFacts {
                    run,
                    task,
                    verdict,
                    id: RolloutId(format!("{ri}-{t}-{s}")),
                    line: t * SAMPLES + s + 1,
                    uses: vec![FunctionUse {
                        function: f,
                        called_right: verdict == Verdict::Right || roll.is_multiple_of(2),
                        numpy_name: !wrong.is_empty(),
                        invented_name: false,
                    }],
                    wrong,
                    labels: (verdict != Verdict::Right && rng.next_u64().is_multiple_of(10))
                        .then(|| vec![format!("cat{}", rng.next_u64() % 8)]),
                    // The reward follows the verdict but for one rollout in ten.
                    reward: Some(u8::from(
                        (verdict == Verdict::Right) != rng.next_u64().is_multiple_of(10),
                    )),
                    reward_reason: None,
                    kinds: 0,
                    sample: None,
                });
            }
        }
    }
    set
}

fn main() {
    let t = Instant::now();
    let set = generate();
    let gen_ms = t.elapsed().as_secs_f64() * 1e3;
    let n = set.rollouts.len();
    let mut rows: Vec<(&str, f64)> = Vec::new();
    let total = Instant::now();
    let t = Instant::now();
    black_box(runs::run_stats(&set, &[1, 2, 5], 7));
    rows.push((
        "run stats (summary, bootstrap CI, pass@1/2/5)",
        t.elapsed().as_secs_f64(),
    ));
    let t = Instant::now();
    for r in 0..2 {
        black_box(runs::function_map(&set, Some(r), FunctionSort::Accuracy));
    }
    rows.push(("internalization map (both runs)", t.elapsed().as_secs_f64()));
    let t = Instant::now();
    black_box(runs::wrong_names(&set));
    rows.push(("wrong names across runs", t.elapsed().as_secs_f64()));
    let t = Instant::now();
    for r in 0..2 {
        black_box(runs::label_stats(&set, r, &[], 7));
    }
    rows.push(("label prevalence (both runs)", t.elapsed().as_secs_f64()));
    let t = Instant::now();
    let c = black_box(runs::compare(&set, 0, 1, 7));
    rows.push((
        "compare (pairs, matrix, McNemar, task test, functions)",
        t.elapsed().as_secs_f64(),
    ));
    let total = total.elapsed().as_secs_f64();
    println!(
        "stats_compare: {n} graded rollouts (2 runs × {TASKS} tasks × {SAMPLES} samples, {FUNCTIONS} functions); generated in {gen_ms:.0} ms"
    );
    for (what, secs) in &rows {
        println!("  {:<56} {:>8.1} ms", what, secs * 1e3);
    }
    println!(
        "  total {:.1} ms: {:.2}x under the 1 s target ({} pairs, McNemar p = {:.3e})",
        total * 1e3,
        1.0 / total,
        c.pairs.len(),
        c.mcnemar.p_value
    );
}
