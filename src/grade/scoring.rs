//! Both official scorers over one rollout: which programs must run (none, one shared by
//! the verdict and the reward, or one each), and the one report that carries the verdict,
//! the reward and, where they disagree, the reason. Every front end grades through this.

use std::time::Duration;

use crate::grade::grader::{Prepared, ProgramRunner, RunOutput, finish_run, prepare_with};
use crate::grade::report::GradeReport;
use crate::grade::reward::{
    RewardPrepared, Scorer, disagreement, finish_reward, not_run, prepare_reward,
};
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

    /// The report, from the results of [`Scored::programs`] in the same order.
    pub fn finish(self, rollout: &Rollout, runs: Vec<anyhow::Result<RunOutput>>) -> GradeReport {
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
        let mut report = match (self.verdict, &verdict_run) {
            (Some(prepared), None) => prepared.report,
            (Some(prepared), Some(run)) => finish_run(rollout, prepared, run),
            (None, _) => GradeReport {
                source: rollout.source.display().to_string(),
                line: rollout.line,
                id: Some(rollout.id.clone()),
                ..GradeReport::default()
            },
        };
        if let Some(prepared) = self.reward {
            let run = if prepared.shared {
                verdict_run.as_ref()
            } else {
                reward_own_run.as_ref()
            };
            let detail = match run {
                _ if prepared.decided => finish_reward(prepared, &RunOutput::default()),
                Some(Ok(run)) => finish_reward(prepared, run),
                Some(Err(e)) => not_run(prepared, &format!("{e:#}")),
                None => not_run(prepared, "no run"),
            };
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

/// Grades one rollout under `scorer`, with `code_override` in place of its code when given.
pub fn grade_scored(
    rollout: &Rollout,
    scorer: Scorer,
    code_override: Option<&str>,
    runner: &dyn ProgramRunner,
    timeout: Duration,
) -> GradeReport {
    let scored = Scored::prepare(rollout, scorer, code_override);
    let runs = scored
        .programs()
        .into_iter()
        .map(|program| runner.run_program(program, timeout))
        .collect();
    scored.finish(rollout, runs)
}
