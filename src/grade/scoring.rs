//! Both official scorers over one rollout: which programs must run (none, one shared by
//! the verdict and the reward, or one each), and the one report that carries the verdict,
//! the reward and, where they disagree, the reason; then, for the rare rollout that prints
//! code the official `eval` runs, the official checker's own runs ([`Judging`]); last, for
//! a rollout a scorer pays when the plan asks, the behaviour questions' traced runs
//! ([`Tracing`]). [`Step`] walks a rollout through them. Every front end grades through
//! this.

use std::time::Duration;

use crate::grade::grader::{
    Prepared, ProgramRunner, RunOutput, checker_run, finish_run, prepare_with,
};
use crate::grade::judge_eval::{
    apply_reward, apply_verdict, reward_needs_judge, reward_program, verdict_needs_judge,
    verdict_program,
};
use crate::grade::report::GradeReport;
use crate::grade::report::RewardReport;
use crate::grade::reward::{
    RewardPrepared, Scorer, disagreement, finish_reward, not_run, prepare_reward, reward_truth,
};
use crate::grade::settings::Plan;
use crate::grade::trace::grading::{Traced, Tracing};
use crate::model::Rollout;

/// One rollout's grading, prepared: the static steps of each scorer asked for.
#[derive(Debug, Clone)]
pub struct Scored {
    verdict: Option<Prepared>,
    reward: Option<RewardPrepared>,
}

impl Scored {
    /// Steps 1–5 of each scorer in `scorer`, on the response's code or `code_override`.
    pub fn prepare(rollout: &Rollout, scorer: Scorer, code_override: Option<&str>) -> Scored {
        let verdict = scorer
            .verdict()
            .then(|| prepare_with(rollout, code_override));
        let reward = scorer
            .reward()
            .then(|| prepare_reward(rollout, code_override, verdict.as_ref()));
        Scored { verdict, reward }
    }

    fn verdict_runs(&self) -> bool {
        self.verdict
            .as_ref()
            .is_some_and(|v| v.early_verdict.is_none())
    }

    fn reward_runs(&self) -> bool {
        self.reward
            .as_ref()
            .is_some_and(|r| !r.decided && !r.shared)
    }

    /// The programs to run, in order: the verdict's (when its static steps did not decide
    /// it), then the reward's (when it is decided neither statically nor by sharing).
    pub fn programs(&self) -> Vec<&str> {
        let mut out = Vec::new();
        if self.verdict_runs()
            && let Some(v) = &self.verdict
        {
            out.push(v.program.as_str());
        }
        if self.reward_runs()
            && let Some(r) = &self.reward
        {
            out.push(r.program.as_str());
        }
        out
    }

    /// The report, from the results of [`Scored::programs`] in the same order; a printed
    /// piece the official `eval` runs as code is judged by the official checker through
    /// `runner` (see [`Judging`]).
    pub fn finish(
        self,
        rollout: &Rollout,
        runs: Vec<anyhow::Result<RunOutput>>,
        runner: &dyn ProgramRunner,
        timeout: Duration,
    ) -> GradeReport {
        self.finish_plan(rollout, runs, runner, timeout, false)
    }

    /// [`Scored::finish`], then the behaviour questions' runs when `behaviour` asks.
    pub fn finish_plan(
        self,
        rollout: &Rollout,
        runs: Vec<anyhow::Result<RunOutput>>,
        runner: &dyn ProgramRunner,
        timeout: Duration,
        behaviour: bool,
    ) -> GradeReport {
        let mut next = Step::Scored(self).advance(rollout, runs, behaviour);
        loop {
            match next {
                Next::Done(report) => return *report,
                Next::Run(step) => {
                    let runs = step
                        .programs()
                        .into_iter()
                        .map(|program| runner.run_program(program, step.timeout(timeout)))
                        .collect();
                    next = step.advance(rollout, runs, behaviour);
                }
            }
        }
    }

    /// Each scorer's outcome from the results of [`Scored::programs`] in the same order,
    /// as sebx's own comparison gives it, and the official checker's runs still needed.
    pub fn judge(self, rollout: &Rollout, runs: Vec<anyhow::Result<RunOutput>>) -> Judging {
        let mut runs = runs.into_iter();
        let verdict_run = if self.verdict_runs() {
            Some(
                runs.next()
                    .unwrap_or_else(|| Err(anyhow::anyhow!("the run was lost"))),
            )
        } else {
            None
        };
        let reward_own_run = if self.reward_runs() {
            Some(
                runs.next()
                    .unwrap_or_else(|| Err(anyhow::anyhow!("the run was lost"))),
            )
        } else {
            None
        };
        let mut verdict_judge = None;
        let report = match (self.verdict, &verdict_run) {
            (Some(prepared), None) => prepared.report,
            (Some(prepared), Some(run)) => {
                let program = prepared.program.clone();
                let report = finish_run(rollout, prepared, run);
                if let Ok(run) = run
                    && verdict_needs_judge(&report)
                {
                    verdict_judge = Some(verdict_program(
                        rollout,
                        &report,
                        &program,
                        (&run.stdout, &run.stderr),
                    ));
                }
                report
            }
            (None, _) => GradeReport {
                source: rollout.source.display().to_string(),
                line: rollout.line,
                id: Some(rollout.id.clone()),
                ..GradeReport::default()
            },
        };
        let mut reward_judge = None;
        let reward = self.reward.map(|prepared| {
            let run = if prepared.shared {
                verdict_run.as_ref()
            } else {
                reward_own_run.as_ref()
            };
            match run {
                _ if prepared.decided => finish_reward(prepared, &RunOutput::default()),
                Some(Ok(run)) => {
                    let detail = finish_reward(prepared, run);
                    if reward_needs_judge(&detail) {
                        reward_judge = Some(reward_program(
                            rollout,
                            reward_truth(rollout),
                            (&run.stdout, &run.stderr),
                        ));
                    }
                    detail
                }
                Some(Err(e)) => not_run(prepared, &format!("{e:#}")),
                None => not_run(prepared, "no run"),
            }
        });
        Judging {
            report,
            reward,
            verdict_judge,
            reward_judge,
        }
    }
}

/// One rollout's scorers after their runs, waiting for the official checker's runs (none
/// unless a printed piece is code the official `eval` runs: `grade::judge_eval`).
#[derive(Debug, Clone)]
pub struct Judging {
    report: GradeReport,
    reward: Option<RewardReport>,
    verdict_judge: Option<String>,
    reward_judge: Option<String>,
}

impl Judging {
    /// The official checker's programs to run, in order: the verdict's, then the reward's.
    pub fn programs(&self) -> Vec<&str> {
        self.verdict_judge
            .iter()
            .chain(&self.reward_judge)
            .map(String::as_str)
            .collect()
    }

    /// The report, from the results of [`Judging::programs`] in the same order.
    pub fn finish(self, rollout: &Rollout, runs: Vec<anyhow::Result<RunOutput>>) -> GradeReport {
        let mut runs = runs.into_iter();
        let mut next = || {
            runs.next()
                .unwrap_or_else(|| Err(anyhow::anyhow!("the run was lost")))
        };
        let mut report = self.report;
        if self.verdict_judge.is_some() {
            apply_verdict(&mut report, checker_run(&next()));
        }
        if let Some(mut detail) = self.reward {
            if self.reward_judge.is_some() {
                apply_reward(&mut detail, checker_run(&next()));
            }
            report.reward = detail.reward;
            if let Some(reason) = disagreement(rollout, &report, &detail) {
                report.reward_reason = Some(reason.text);
                report.reward_reason_kind = Some(reason.kind);
            }
            report.reward_detail = Some(detail);
        }
        report
    }
}

/// One rollout's grading between runs: the programs its step needs.
#[derive(Debug, Clone)]
pub enum Step {
    /// The scorers' own runs.
    Scored(Scored),
    /// The official checker's runs of printed code.
    Judging(Judging),
    /// The behaviour questions' traced runs of a paid rollout.
    Tracing(Box<Tracing>),
}

/// What follows a step's runs.
#[derive(Debug)]
pub enum Next {
    /// Another step, whose programs are to run (never none).
    Run(Box<Step>),
    Done(Box<GradeReport>),
}

impl Step {
    /// The programs this step runs, in order.
    pub fn programs(&self) -> Vec<&str> {
        match self {
            Step::Scored(s) => s.programs(),
            Step::Judging(j) => j.programs(),
            Step::Tracing(t) => t.programs(),
        }
    }

    /// How long each of this step's programs may run when grading's is `timeout` (a
    /// traced run is slower: it gets the tracer's own).
    pub fn timeout(&self, timeout: Duration) -> Duration {
        match self {
            Step::Tracing(_) => crate::grade::trace::grading::TIMEOUT.max(timeout),
            _ => timeout,
        }
    }

    /// The step after this one's runs (the results of [`Step::programs`], same order),
    /// skipping steps with nothing to run; `behaviour` asks the behaviour questions of a
    /// paid rollout.
    pub fn advance(
        self,
        rollout: &Rollout,
        runs: Vec<anyhow::Result<RunOutput>>,
        behaviour: bool,
    ) -> Next {
        let report = match self {
            Step::Scored(scored) => {
                let judging = scored.judge(rollout, runs);
                if !judging.programs().is_empty() {
                    return Next::Run(Box::new(Step::Judging(judging)));
                }
                judging.finish(rollout, Vec::new())
            }
            Step::Judging(judging) => judging.finish(rollout, runs),
            Step::Tracing(tracing) => {
                return match tracing.finish(runs) {
                    Traced::Done(report) => Next::Done(report),
                    Traced::More(more) => Next::Run(Box::new(Step::Tracing(more))),
                };
            }
        };
        let mut report = report;
        if behaviour {
            if Tracing::needed(&report) {
                return Next::Run(Box::new(Step::Tracing(Box::new(Tracing::new(
                    rollout, report,
                )))));
            }
            Tracing::not_needed(&mut report);
        }
        Next::Done(Box::new(report))
    }
}

/// Grades one rollout under `plan` (a [`Scorer`], or a [`Plan`] that also asks the
/// behaviour questions), with `code_override` in place of its code when given.
pub fn grade_scored(
    rollout: &Rollout,
    plan: impl Into<Plan>,
    code_override: Option<&str>,
    runner: &dyn ProgramRunner,
    timeout: Duration,
) -> GradeReport {
    let plan = plan.into();
    let scored = Scored::prepare(rollout, plan.scorer, code_override);
    let runs = scored
        .programs()
        .into_iter()
        .map(|program| runner.run_program(program, timeout))
        .collect();
    scored.finish_plan(rollout, runs, runner, timeout, plan.behaviour)
}
