//! Grading many rollouts in parallel, results in input order.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::grade::grader::ProgramRunner;
use crate::grade::report::{GradeReport, ReasonKind};
use crate::grade::reward::Scorer;
use crate::grade::scoring::{Scored, grade_scored};
use crate::model::{Rollout, Verdict};

/// Programs each grading thread keeps submitted to its worker (one running, one queued).
const QUEUE_AHEAD: usize = 2;

/// Grades `rollouts` on `jobs` threads; `on_done` is called (from the calling
/// thread's scope, serialised) after each rollout with the number finished so far.
pub fn grade_all(
    rollouts: &[&Rollout],
    runner: &dyn ProgramRunner,
    jobs: usize,
    timeout: Duration,
    on_done: &(dyn Fn(usize, &GradeReport) + Sync),
) -> Vec<GradeReport> {
    grade_all_scored(rollouts, runner, jobs, timeout, Scorer::Verdict, on_done)
}

/// [`grade_all`] under `scorer`: with the reward, each rollout runs one program when the
/// verdict's run serves both scorers, else one per scorer.
pub fn grade_all_scored(
    rollouts: &[&Rollout],
    runner: &dyn ProgramRunner,
    jobs: usize,
    timeout: Duration,
    scorer: Scorer,
    on_done: &(dyn Fn(usize, &GradeReport) + Sync),
) -> Vec<GradeReport> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<GradeReport>>> = Mutex::new(vec![None; rollouts.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                let done = |i: usize, report: GradeReport| {
                    let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                    on_done(n, &report);
                    if let Ok(mut slots) = results.lock() {
                        slots[i] = Some(report);
                    }
                };
                let Some(mut session) = runner.session() else {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(rollout) = rollouts.get(i) else {
                            break;
                        };
                        done(i, grade_scored(rollout, scorer, None, runner, timeout));
                    }
                    return;
                };
                // The next program is queued while the current one runs: the
                // worker never waits for this thread's grading in between.
                let mut running: VecDeque<(usize, Scored, usize)> = VecDeque::new();
                let mut queued = 0;
                loop {
                    while queued < QUEUE_AHEAD {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(rollout) = rollouts.get(i) else {
                            break;
                        };
                        let scored = Scored::prepare(rollout, scorer, None);
                        let programs = scored.programs();
                        if programs.is_empty() {
                            done(i, scored.finish(rollout, Vec::new()));
                            continue;
                        }
                        let count = programs.len();
                        for program in programs {
                            session.submit(program, timeout);
                        }
                        queued += count;
                        running.push_back((i, scored, count));
                    }
                    let Some((i, scored, count)) = running.pop_front() else {
                        break;
                    };
                    let runs = (0..count)
                        .map(|_| {
                            session
                                .next_result()
                                .unwrap_or_else(|| Err(anyhow::anyhow!("the run was lost")))
                        })
                        .collect();
                    queued -= count;
                    done(i, scored.finish(rollouts[i], runs));
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .into_iter()
        .zip(rollouts)
        .map(|(r, rollout)| {
            r.unwrap_or_else(|| {
                GradeReport::load_failure(
                    &rollout.source.display().to_string(),
                    rollout.line,
                    "grading thread failed",
                )
            })
        })
        .collect()
}

/// Counts per verdict, as the official summary reports them, and the official RL reward
/// beside them when it was scored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub total: usize,
    pub counts: [usize; 5],
    /// Lines that could not be loaded or run (neither verdict nor reward).
    pub ungraded: usize,
    /// Verdicts that are not a property of the rollout alone (`GradeReport::fragile`).
    pub fragile: usize,
    /// Lines with a reward, and how many of them got 1.
    pub rewarded: usize,
    pub reward_ones: usize,
    /// Lines with both: [reward 1 & right, reward 1 & not right, reward 0 & right, reward 0
    /// & not right].
    pub reward_by_verdict: [usize; 4],
    /// Disagreements by reason.
    pub reasons: std::collections::BTreeMap<ReasonKind, usize>,
    /// Lines on tasks whose test inputs use `np.array` (the reward cannot be 1 there).
    pub np_array_inputs: usize,
}

impl Summary {
    pub fn from_reports<'a>(reports: impl IntoIterator<Item = &'a GradeReport>) -> Summary {
        let mut s = Summary::default();
        for r in reports {
            match r.verdict {
                Some(v) => {
                    s.total += 1;
                    s.counts[v.code() as usize] += 1;
                    s.fragile += usize::from(r.fragile);
                }
                None if r.reward.is_none() => s.ungraded += 1,
                None => {}
            }
            s.add_reward(r.reward, r.verdict, r.reward_reason_kind);
            if r.reward_detail
                .as_ref()
                .is_some_and(|d| d.inputs_use_np_array)
            {
                s.np_array_inputs += 1;
            }
        }
        s
    }

    /// Counts one rollout's reward beside its verdict, with the reason they disagree.
    pub fn add_reward(
        &mut self,
        reward: Option<u8>,
        verdict: Option<Verdict>,
        reason: Option<ReasonKind>,
    ) {
        let Some(reward) = reward else {
            return;
        };
        self.rewarded += 1;
        self.reward_ones += usize::from(reward == 1);
        if let Some(v) = verdict {
            let cell = match (reward == 1, v == Verdict::Right) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => 2,
                (false, false) => 3,
            };
            self.reward_by_verdict[cell] += 1;
        }
        if let Some(kind) = reason {
            *self.reasons.entry(kind).or_default() += 1;
        }
    }

    pub fn count(&self, v: Verdict) -> usize {
        self.counts[v.code() as usize]
    }

    pub fn share(&self, v: Verdict) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.count(v) as f64 / self.total as f64
        }
    }

    /// The mean official RL reward over the lines that have one.
    pub fn mean_reward(&self) -> Option<f64> {
        (self.rewarded > 0).then(|| self.reward_ones as f64 / self.rewarded as f64)
    }

    /// The summary as printed lines: total, accuracy, then each verdict's share; then the
    /// reward, its 2×2 against `right` and the disagreements by reason.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.total > 0 || self.rewarded == 0 {
            out.push(format!("total: {}", self.total));
            out.push(format!(
                "accuracy (right): {:.2}%",
                100.0 * self.share(Verdict::Right)
            ));
            for v in Verdict::ALL {
                out.push(format!(
                    "  {:<13} {:>6}  {:>6.2}%",
                    v.as_str(),
                    self.count(v),
                    100.0 * self.share(v)
                ));
            }
        }
        if let Some(mean) = self.mean_reward() {
            out.push(format!(
                "mean official RL reward: {mean:.4} ({} of {} rewarded 1)",
                self.reward_ones, self.rewarded
            ));
            let [one_right, one_not, zero_right, zero_not] = self.reward_by_verdict;
            if one_right + one_not + zero_right + zero_not > 0 {
                out.push(format!("  {:<12} {:>9} {:>11}", "", "right", "not right"));
                out.push(format!("  {:<12} {one_right:>9} {one_not:>11}", "reward 1"));
                out.push(format!(
                    "  {:<12} {zero_right:>9} {zero_not:>11}",
                    "reward 0"
                ));
                let disagree = one_not + zero_right;
                out.push(format!("reward and verdict disagree: {disagree}"));
                for (kind, n) in &self.reasons {
                    out.push(format!(
                        "  {:<16} {n:>6}  ({})",
                        kind.as_str(),
                        kind.label()
                    ));
                }
            }
            if self.np_array_inputs > 0 {
                out.push(format!(
                    "rollouts on tasks whose test inputs use np.array (the reward runs them as given, so it cannot be 1): {}",
                    self.np_array_inputs
                ));
            }
        }
        if self.fragile > 0 {
            out.push(format!(
                "fragile verdicts (could differ on another machine or grader run; see fragile_reason): {}",
                self.fragile
            ));
        }
        if self.ungraded > 0 {
            out.push(format!(
                "not graded (bad lines or run failures): {}",
                self.ungraded
            ));
        }
        out
    }
}
