//! Grading many rollouts in parallel, results in input order; a program that several
//! rollouts share (the same code and inputs, whatever the prose around it) runs once.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::grade::grader::{ProgramRunner, RunOutput};
use crate::grade::report::{GradeReport, ReasonKind};
use crate::grade::scoring::{Next, Scored, Step};
use crate::grade::settings::Plan;
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
    grade_all_scored(
        rollouts,
        runner,
        jobs,
        timeout,
        crate::grade::reward::Scorer::Verdict,
        on_done,
    )
}

/// [`grade_all`] under `scorer` (a [`crate::grade::reward::Scorer`], or a [`Plan`] that
/// also asks the behaviour questions): with the reward, each rollout runs one program when
/// the verdict's run serves both scorers, else one per scorer.
pub fn grade_all_scored(
    rollouts: &[&Rollout],
    runner: &dyn ProgramRunner,
    jobs: usize,
    timeout: Duration,
    scorer: impl Into<Plan>,
    on_done: &(dyn Fn(usize, &GradeReport) + Sync),
) -> Vec<GradeReport> {
    grade_all_counted(rollouts, runner, jobs, timeout, scorer, on_done).0
}

/// How many programs a batch really executed: a program (the assembled source, inputs
/// included) that several rollouts share runs once, and the others reuse its output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchCounts {
    /// Programs executed.
    pub programs_run: usize,
    /// Programs a rollout needed that an identical earlier program answered.
    pub programs_reused: usize,
}

/// [`grade_all_scored`], and how many programs ran. Each distinct program runs once in the
/// batch ([`SharedRuns`]): rollouts whose code is the same (their prose may differ) get
/// their own report, built from the one run.
pub fn grade_all_counted(
    rollouts: &[&Rollout],
    runner: &dyn ProgramRunner,
    jobs: usize,
    timeout: Duration,
    scorer: impl Into<Plan>,
    on_done: &(dyn Fn(usize, &GradeReport) + Sync),
) -> (Vec<GradeReport>, BatchCounts) {
    let shared = SharedRuns::default();
    let reports = grade_all_shared(rollouts, runner, jobs, timeout, scorer, &shared, on_done);
    (reports, shared.counts())
}

/// [`grade_all_counted`] with the runs of `shared`, which outlive the call: a big input
/// graded in chunks (so that only one chunk's reports are held at a time) still runs each
/// distinct program once. The counts are `shared.counts()`.
pub fn grade_all_shared(
    rollouts: &[&Rollout],
    runner: &dyn ProgramRunner,
    jobs: usize,
    timeout: Duration,
    scorer: impl Into<Plan>,
    shared: &SharedRuns,
    on_done: &(dyn Fn(usize, &GradeReport) + Sync),
) -> Vec<GradeReport> {
    let Plan { scorer, behaviour } = scorer.into();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<GradeReport>>> = Mutex::new(vec![None; rollouts.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                let done = |i: usize, report: GradeReport| {
                    // Stopped (Ctrl-C): what finishes after may have run its program
                    // while it was interrupted; only what was done before counts.
                    if super::interrupt::requested() {
                        return;
                    }
                    let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                    on_done(n, &report);
                    if let Ok(mut slots) = results.lock() {
                        slots[i] = Some(report);
                    }
                };
                let Some(mut session) = runner.session() else {
                    loop {
                        if super::interrupt::requested() {
                            break;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(rollout) = rollouts.get(i) else {
                            break;
                        };
                        let scored = Scored::prepare(rollout, scorer, None);
                        let runs = scored
                            .programs()
                            .into_iter()
                            .map(|program| match shared.claim(program) {
                                Claim::Mine(slot) => {
                                    let run = runner.run_program(program, timeout);
                                    slot.set(&run);
                                    run
                                }
                                Claim::Theirs(slot) => slot.wait(),
                            })
                            .collect();
                        done(
                            i,
                            scored.finish_plan(rollout, runs, runner, timeout, behaviour),
                        );
                    }
                    return;
                };
                // This thread's programs in the order they were submitted to its worker
                // (results come back in that order), and its rollouts waiting for runs,
                // each at its step (the scorers' runs, the official checker's, the traced
                // runs of a paid rollout).
                let mut own: VecDeque<Arc<Slot>> = VecDeque::new();
                let mut running: VecDeque<(usize, Step, Vec<Arc<Slot>>)> = VecDeque::new();
                let submit = |step: &Step,
                              own: &mut VecDeque<Arc<Slot>>,
                              session: &mut (dyn crate::grade::grader::RunSession + '_)|
                 -> Vec<Arc<Slot>> {
                    let limit = step.timeout(timeout);
                    step.programs()
                        .into_iter()
                        .map(|program| match shared.claim(program) {
                            Claim::Mine(slot) => {
                                session.submit(program, limit);
                                own.push_back(slot.clone());
                                slot
                            }
                            Claim::Theirs(slot) => slot,
                        })
                        .collect()
                };
                loop {
                    // The next program is queued while the current one runs: the worker
                    // never waits for this thread's grading in between.
                    while own.len() < QUEUE_AHEAD
                        && running.len() < MAX_WAITING
                        && !super::interrupt::requested()
                    {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(rollout) = rollouts.get(i) else {
                            break;
                        };
                        let step = Step::Scored(Scored::prepare(rollout, scorer, None));
                        let slots = submit(&step, &mut own, session.as_mut());
                        running.push_back((i, step, slots));
                    }
                    let Some((i, step, slots)) = running.pop_front() else {
                        break;
                    };
                    let runs = slots
                        .iter()
                        .map(|slot| wait_for(slot, &mut own, session.as_mut()))
                        .collect();
                    // A later step (printed code for the official checker, the traced runs
                    // of a paid rollout) goes through this thread's worker too, and waits
                    // at the back of the queue while the rollouts before it go on.
                    match step.advance(rollouts[i], runs, behaviour) {
                        Next::Done(report) => done(i, *report),
                        Next::Run(step) => {
                            let slots = submit(&step, &mut own, session.as_mut());
                            running.push_back((i, *step, slots));
                        }
                    }
                }
            });
        }
    });
    let results = results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Stopped: the reports done, the rest left out (never a made-up failure).
    if super::interrupt::requested() {
        return results.into_iter().flatten().collect();
    }
    results
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

/// The run of `slot`: while it is not known, this thread keeps collecting its own runs
/// from `session` (another thread may be waiting for one of them).
fn wait_for(
    slot: &Slot,
    own: &mut VecDeque<Arc<Slot>>,
    session: &mut (dyn crate::grade::grader::RunSession + '_),
) -> anyhow::Result<RunOutput> {
    loop {
        if let Some(run) = slot.get() {
            return run;
        }
        match own.pop_front() {
            Some(mine) => {
                let run = session
                    .next_result()
                    .unwrap_or_else(|| Err(anyhow::anyhow!("the run was lost")));
                mine.set(&run);
            }
            None => return slot.wait(),
        }
    }
}

/// Rollouts a grading thread holds waiting for runs (when their programs are all another
/// thread's, it submits nothing of its own and could otherwise prepare without end).
const MAX_WAITING: usize = 64;

/// The runs of a batch by program: the first rollout to need a program runs it, the
/// others wait for its output (a program's output is held as long as this is).
#[derive(Default)]
pub struct SharedRuns {
    slots: Mutex<HashMap<[u8; 32], Arc<Slot>>>,
    run: AtomicUsize,
    reused: AtomicUsize,
}

/// A program's output, once it is known (an error as its text: anyhow's errors do not
/// clone).
#[derive(Default)]
struct Slot {
    value: Mutex<Option<Result<RunOutput, String>>>,
    ready: Condvar,
}

enum Claim {
    /// This caller runs the program and sets the slot.
    Mine(Arc<Slot>),
    /// Someone else does.
    Theirs(Arc<Slot>),
}

impl SharedRuns {
    fn claim(&self, program: &str) -> Claim {
        let key: [u8; 32] = Sha256::digest(program.as_bytes()).into();
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        match slots.get(&key) {
            Some(slot) => {
                self.reused.fetch_add(1, Ordering::Relaxed);
                Claim::Theirs(slot.clone())
            }
            None => {
                let slot = Arc::new(Slot::default());
                slots.insert(key, slot.clone());
                self.run.fetch_add(1, Ordering::Relaxed);
                Claim::Mine(slot)
            }
        }
    }

    /// Programs run and reused so far.
    pub fn counts(&self) -> BatchCounts {
        BatchCounts {
            programs_run: self.run.load(Ordering::Relaxed),
            programs_reused: self.reused.load(Ordering::Relaxed),
        }
    }
}

impl Slot {
    fn set(&self, run: &anyhow::Result<RunOutput>) {
        let value = match run {
            Ok(out) => Ok(out.clone()),
            Err(e) => Err(format!("{e:#}")),
        };
        *self.value.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
        self.ready.notify_all();
    }

    fn get(&self) -> Option<anyhow::Result<RunOutput>> {
        let value = self.value.lock().unwrap_or_else(|p| p.into_inner());
        value.as_ref().map(owned)
    }

    fn wait(&self) -> anyhow::Result<RunOutput> {
        let mut value = self.value.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(v) = value.as_ref() {
                return owned(v);
            }
            value = self.ready.wait(value).unwrap_or_else(|p| p.into_inner());
        }
    }
}

fn owned(v: &Result<RunOutput, String>) -> anyhow::Result<RunOutput> {
    match v {
        Ok(out) => Ok(out.clone()),
        Err(e) => Err(anyhow::anyhow!("{e}")),
    }
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
    /// Lines with a verdict but no reward: while any, no mean reward is given (a mean over
    /// the lines that happen to have one is a figure over a subset).
    pub unrewarded: usize,
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
            self.unrewarded += usize::from(verdict.is_some());
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

    /// The mean official RL reward, when every line with a verdict has a reward (`None`
    /// otherwise: never a mean over the lines that happen to have one).
    pub fn mean_reward(&self) -> Option<f64> {
        (self.rewarded > 0 && self.unrewarded == 0)
            .then(|| self.reward_ones as f64 / self.rewarded as f64)
    }

    /// Why the mean reward is `–` although some lines have a reward: how many lack one.
    pub fn reward_unknown_why(&self) -> Option<String> {
        (self.rewarded > 0 && self.unrewarded > 0).then(|| {
            format!(
                "the reward is unknown for {} of {} rollouts (no source has it and they could not be graded; `sebx grade --scorer both` scores it)",
                self.unrewarded,
                self.rewarded + self.unrewarded
            )
        })
    }

    /// The summary as printed lines: total, accuracy, then each verdict's share; then the
    /// reward, its 2×2 against `right` and the disagreements by reason.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.total > 0 || self.rewarded == 0 {
            // A share of nothing is no share: `–`, never `0.00%`.
            let share = |v: Verdict| match self.total {
                0 => "–".to_string(),
                _ => format!("{:.2}%", 100.0 * self.share(v)),
            };
            out.push(format!("total: {}", self.total));
            out.push(format!("accuracy (right): {}", share(Verdict::Right)));
            for v in Verdict::ALL {
                out.push(format!(
                    "  {:<13} {:>6}  {:>7}",
                    v.as_str(),
                    self.count(v),
                    share(v)
                ));
            }
        }
        if let Some(why) = self.reward_unknown_why() {
            out.push(format!("mean official RL reward: – ({why})"));
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
