//! What the behaviour questions cost (issue 39): grading with both official scorers, with
//! and without the two traced runs every paid rollout gets (`Plan::behaviour`), through the
//! batch grader `sebx stats` uses, on two sets of distinct programs (each program made
//! distinct per pass by a comment with its pass and index, so that no run is shared or
//! remembered): the parity rollouts that execute, and programs the loophole generator
//! (`tests/common/loophole_gen.rs`) makes from genuine parity solutions along every
//! behavioural axis, plus innocent look-alikes (nearly all paid: the cost per paid rollout
//! on programs no figure was tuned on). Prints, per set, the share paid, seconds per
//! rollout and per paid rollout, and what a 200,000-sample training run costs at that
//! share, from one run.
//!
//! `cargo bench --bench behaviour_cost` (uses ../shared/data; SEBX_BENCH_N rollouts per pass
//! and set, default 300; SEBX_BENCH_JOBS workers, default the cores; SEBX_BENCH_SEED the
//! generator's seed, default 39).

#[path = "common/mod.rs"]
mod common;
#[path = "../tests/common/loophole_gen.rs"]
mod loophole_gen;
#[path = "../tests/common/mutate.rs"]
mod mutate;

use std::time::{Duration, Instant};

use sebx::grade::batch::grade_all_scored;
use sebx::grade::engine::Engine;
use sebx::grade::reward::Scorer;
use sebx::grade::settings::Plan;
use sebx::model::rollout::{load_rollout_file, parse_rollout_bytes};
use sebx::model::{ApiMap, Rollout};

/// `rollouts`, each response's last code block given a comment naming `tag` and its
/// index: every program is distinct from every other pass's.
fn distinct(rollouts: &[&Rollout], tag: &str) -> Vec<Rollout> {
    rollouts
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut r = (*r).clone();
            if let Some(at) = r.response.rfind("```python") {
                let end = at + "```python".len();
                r.response.insert_str(end, &format!("\n# {tag} sample {i}"));
            }
            r
        })
        .collect()
}

/// Programs the loophole generator makes from genuine parity solutions (every axis and the
/// look-alikes), as rollouts, at most `n`.
fn generated(data: &std::path::Path, api: &ApiMap, n: usize, seed: u64) -> Vec<Rollout> {
    let pool = loophole_gen::genuine_pool(&data.join("parity"));
    let generator = loophole_gen::Generator::new(api);
    let mut lines = String::new();
    let mut count = 0;
    'solutions: for g in loophole_gen::sample(&pool, seed, pool.len()) {
        for p in generator.programs(&g, seed, 2) {
            if count == n {
                break 'solutions;
            }
            lines.push_str(&p.rollout(&g).to_string());
            lines.push('\n');
            count += 1;
        }
    }
    let loaded = parse_rollout_bytes(std::path::Path::new("generated.jsonl"), lines.as_bytes());
    loaded.rollouts
}

/// Four alternating passes over `sample` (without, with, without, with the questions), so
/// that both are measured over the same stretch of a shared machine's drifting load.
fn measure(set: &str, sample: &[&Rollout], engine: &Engine, jobs: usize) {
    let timeout = Duration::from_secs(3);
    println!(
        "{set}: {} rollouts per pass, each program distinct; {jobs} workers",
        sample.len()
    );
    let mut secs = [0.0f64; 2];
    let mut graded = [0usize; 2];
    let mut paid = 0usize;
    let mut traced = 0usize;
    let mut untraced = 0usize;
    let mut found = 0usize;
    for pass in 0..4 {
        let behaviour = pass % 2 == 1;
        let rollouts = distinct(sample, &format!("{set} pass {pass}"));
        let refs: Vec<&Rollout> = rollouts.iter().collect();
        let plan = Plan {
            scorer: Scorer::Both,
            behaviour,
        };
        let t = Instant::now();
        let reports = grade_all_scored(&refs, engine, jobs, timeout, plan, &|_, _| {});
        let s = t.elapsed().as_secs_f64();
        secs[usize::from(behaviour)] += s;
        graded[usize::from(behaviour)] += reports.len();
        if behaviour {
            paid += reports.iter().filter(|r| r.paid()).count();
            for b in reports.iter().filter_map(|r| r.behaviour.as_ref()) {
                if b.untraced.is_none() {
                    traced += 1;
                    found += usize::from(!b.found.is_empty());
                } else if !b
                    .untraced
                    .as_deref()
                    .unwrap_or("")
                    .contains("no scorer pays")
                {
                    untraced += 1;
                }
            }
        }
        println!(
            "  pass {}: behaviour {:<5} {:>7.2} s for {} rollouts ({:.1} ms each)",
            pass + 1,
            behaviour,
            s,
            reports.len(),
            1000.0 * s / reports.len() as f64
        );
    }
    let per = |i: usize| secs[i] / graded[i] as f64;
    let (plain, with) = (per(0), per(1));
    let share = paid as f64 / graded[1] as f64;
    let per_paid = if paid > 0 {
        (secs[1] - plain * graded[1] as f64) / paid as f64
    } else {
        0.0
    };
    println!(
        "  paid (verdict right or reward 1): {paid} of {} ({:.1}%); traced {traced}, traced run without an answer {untraced}, with a loophole found {found}",
        graded[1],
        100.0 * share
    );
    println!(
        "  per rollout: {:.1} ms without the questions, {:.1} ms with ({:.2}x); per paid rollout the questions add {:.1} ms",
        1000.0 * plain,
        1000.0 * with,
        with / plain,
        1000.0 * per_paid
    );
    let samples = 200_000.0;
    println!(
        "  a 200,000-sample run at this share ({:.0} paid, distinct programs, {jobs} workers): {:.0} s without, {:.0} s with ({:+.0} s)",
        samples * share,
        samples * plain,
        samples * with,
        samples * (with - plain)
    );
}

fn main() -> anyhow::Result<()> {
    let data = common::shared_data();
    let api = ApiMap::load(&data.join("se-bench/api_doc.jsonl"))?;
    let loaded = load_rollout_file(&data.join("parity/rollouts.jsonl"))?;
    let n: usize = common::env_num("SEBX_BENCH_N", 300);
    let jobs: usize = common::env_num("SEBX_BENCH_JOBS", sebx::cli::grade::default_jobs());
    let seed: u64 = common::env_num("SEBX_BENCH_SEED", 39);
    let verdicts = common::parity_verdicts(&data)?;
    let parity: Vec<&Rollout> = common::executing(&loaded.rollouts, &verdicts)
        .into_iter()
        .take(n)
        .collect();
    let made = generated(&data, &api, n, seed);
    let engine = Engine::start(&api, jobs)?;
    measure("parity", &parity, &engine, jobs);
    measure("generated", &made.iter().collect::<Vec<_>>(), &engine, jobs);
    Ok(())
}
