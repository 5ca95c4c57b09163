//! What the behaviour questions cost (issue 39): grading with both official scorers, with
//! and without the two traced runs every paid rollout gets (`Plan::behaviour`), on the
//! same distinct programs (the parity rollouts that execute, each made distinct by a
//! comment with its pass and index, so that no run is shared or remembered), through the
//! batch grader `sebx stats` uses. Prints the share paid, seconds per rollout and per paid
//! rollout, and what a 200,000-sample training run costs at that share, from one run.
//!
//! `cargo bench --bench behaviour_cost` (uses ../shared/data; SEBX_BENCH_N rollouts per pass,
//! default 300; SEBX_BENCH_JOBS workers, default the cores).

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use sebx::grade::batch::grade_all_scored;
use sebx::grade::engine::Engine;
use sebx::grade::reward::Scorer;
use sebx::grade::settings::Plan;
use sebx::model::rollout::load_rollout_file;
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

fn main() -> anyhow::Result<()> {
    let data = common::shared_data();
    let api = ApiMap::load(&data.join("se-bench/api_doc.jsonl"))?;
    let loaded = load_rollout_file(&data.join("parity/rollouts.jsonl"))?;
    let n: usize = common::env_num("SEBX_BENCH_N", 300);
    let jobs: usize = common::env_num("SEBX_BENCH_JOBS", sebx::cli::grade::default_jobs());
    let verdicts = common::parity_verdicts(&data)?;
    let sample: Vec<&Rollout> = common::executing(&loaded.rollouts, &verdicts)
        .into_iter()
        .take(n)
        .collect();
    let engine = Engine::start(&api, jobs)?;
    let timeout = Duration::from_secs(3);
    println!(
        "sample: {} executing parity rollouts per pass, each program distinct; {jobs} workers",
        sample.len()
    );
    let mut secs = [0.0f64; 2];
    let mut graded = [0usize; 2];
    let mut paid = 0usize;
    let mut traced = 0usize;
    let mut untraced = 0usize;
    let mut found = 0usize;
    // Alternating passes, so that both are measured over the same stretch of a shared
    // machine's drifting load.
    for pass in 0..4 {
        let behaviour = pass % 2 == 1;
        let rollouts = distinct(&sample, &format!("pass {pass}"));
        let refs: Vec<&Rollout> = rollouts.iter().collect();
        let plan = Plan {
            scorer: Scorer::Both,
            behaviour,
        };
        let t = Instant::now();
        let reports = grade_all_scored(&refs, &engine, jobs, timeout, plan, &|_, _| {});
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
            "pass {}: behaviour {:<5} {:>7.2} s for {} rollouts ({:.1} ms each)",
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
        "paid (verdict right or reward 1): {paid} of {} ({:.1}%); traced {traced}, traced run without an answer {untraced}, with a loophole found {found}",
        graded[1],
        100.0 * share
    );
    println!(
        "per rollout: {:.1} ms without the questions, {:.1} ms with ({:.2}x); per paid rollout the questions add {:.1} ms",
        1000.0 * plain,
        1000.0 * with,
        with / plain,
        1000.0 * per_paid
    );
    let samples = 200_000.0;
    println!(
        "a 200,000-sample run at this share ({:.0} paid, distinct programs, {jobs} workers): {:.0} s without, {:.0} s with ({:+.0} s)",
        samples * share,
        samples * plain,
        samples * with,
        samples * (with - plain)
    );
    Ok(())
}
