//! Grading many rollouts in parallel, results in input order.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::grade::grader::{Prepared, ProgramRunner, finish_run, grade_rollout, prepare};
use crate::grade::report::GradeReport;
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
                        done(i, grade_rollout(rollout, runner, timeout));
                    }
                    return;
                };
                // The next program is queued while the current one runs: the
                // worker never waits for this thread's grading in between.
                let mut running: VecDeque<(usize, Prepared)> = VecDeque::new();
                loop {
                    while running.len() < QUEUE_AHEAD {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(rollout) = rollouts.get(i) else {
                            break;
                        };
                        let prepared = prepare(rollout);
                        if prepared.early_verdict.is_some() {
                            done(i, prepared.report);
                            continue;
                        }
                        session.submit(&prepared.program, timeout);
                        running.push_back((i, prepared));
                    }
                    let Some((i, prepared)) = running.pop_front() else {
                        break;
                    };
                    let run = session
                        .next_result()
                        .unwrap_or_else(|| Err(anyhow::anyhow!("the run was lost")));
                    done(i, finish_run(rollouts[i], prepared, run));
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

/// Counts per verdict, as the official summary reports them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub total: usize,
    pub counts: [usize; 5],
    /// Lines that could not be loaded or run (no verdict).
    pub ungraded: usize,
    /// Verdicts that are not a property of the rollout alone (`GradeReport::fragile`).
    pub fragile: usize,
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
                None => s.ungraded += 1,
            }
        }
        s
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

    /// The summary as printed lines: total, accuracy, then each verdict's share.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!("total: {}", self.total)];
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
