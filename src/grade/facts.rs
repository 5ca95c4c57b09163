//! What a grade decides, without the report: the verdict, the reward and the flags that
//! lists, filters, label suggestions and figures read of every rollout. The score cache
//! keeps these beside each report, so a front end that only needs them never parses one.

use serde::{Deserialize, Serialize};

use crate::grade::report::{GradeReport, ReasonKind};
use crate::model::Verdict;
use crate::model::finding_kinds::KindSet;

/// The facts of one grade report (see the module doc). Serialized with one- or two-letter
/// names and without the fields that are unset, so a stored copy is a few dozen bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    #[serde(rename = "v", default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<u8>,
    /// The reward scorer ran (even where it gave no reward).
    #[serde(rename = "rr", default, skip_serializing_if = "is_false")]
    pub reward_run: bool,
    /// Why the reward and the verdict disagree, where they do.
    #[serde(rename = "k", default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonKind>,
    #[serde(rename = "f", default, skip_serializing_if = "is_false")]
    pub fragile: bool,
    /// The verdict's run went past the timeout.
    #[serde(rename = "t", default, skip_serializing_if = "is_false")]
    pub timed_out: bool,
    /// The grader's static check found that the assembled program does not parse.
    #[serde(rename = "s", default, skip_serializing_if = "is_false")]
    pub program_syntax_error: bool,
    /// Failed and all cases, when the program ran (the list's failed-cases column).
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<(u16, u16)>,
    /// Finding kinds the official checker's runs showed (printed code it computed, a patch
    /// of its state: `grade::judge_eval::judge_findings`), beside the analysis's own.
    #[serde(rename = "j", default, skip_serializing_if = "is_zero")]
    pub judge_kinds: KindSet,
    /// The loophole kinds the behaviour questions found on a paid rollout's traced runs,
    /// when they were asked (`None`: not asked; `Some(0)`: asked, nothing found).
    #[serde(rename = "b", default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<KindSet>,
    /// The loophole kinds a traced run answered for, found or not
    /// ([`crate::grade::report::BehaviourRun::settles`]): the run's answer replaces the
    /// analysis's candidates of these; of the others (no run, an inconclusive
    /// counterfactual) the analysis's stand.
    #[serde(rename = "bs", default, skip_serializing_if = "is_zero")]
    pub behaviour_settles: KindSet,
}

fn is_zero(k: &KindSet) -> bool {
    *k == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Facts {
    /// What `r` decides.
    pub fn of(r: &GradeReport) -> Facts {
        Facts {
            verdict: r.verdict,
            reward: r.reward,
            reward_run: r.reward_detail.is_some() || r.reward.is_some(),
            reason: r.reward_reason_kind,
            fragile: r.fragile,
            timed_out: r.timed_out(),
            program_syntax_error: r.program_syntax_error(),
            // Cases only count when the program ran (a static verdict runs nothing).
            cases: (!r.cases.is_empty() && r.execution.is_some()).then(|| {
                let n = |k: usize| u16::try_from(k).unwrap_or(u16::MAX);
                (n(r.failed_cases()), n(r.cases.len()))
            }),
            judge_kinds: crate::grade::judge_eval::judge_findings(r)
                .iter()
                .fold(0, |bits, f| bits | f.kind.bit()),
            behaviour: r.behaviour.as_ref().map(|b| b.kinds()),
            behaviour_settles: r.behaviour.as_ref().map_or(0, |b| b.settles()),
        }
    }

    /// Every finding kind the grade's own runs showed (the official checker's and the
    /// behaviour questions'), which figures add to the analysis's.
    pub fn run_kinds(&self) -> KindSet {
        self.judge_kinds | self.behaviour.unwrap_or(0)
    }

    /// Takes the behaviour questions' answers of `graded` (a grade of the same rollout,
    /// beside a verdict another source gives).
    pub fn take_behaviour(&mut self, graded: &Facts) {
        self.behaviour = graded.behaviour;
        self.behaviour_settles = graded.behaviour_settles;
    }

    /// Whether the behaviour questions are still to be asked of this rollout: a scorer pays
    /// it and its grade did not ask them.
    pub fn behaviour_pending(&self) -> bool {
        self.behaviour.is_none() && (self.verdict == Some(Verdict::Right) || self.reward == Some(1))
    }

    /// Just a verdict (a stored score, a correct-trajectories file): nothing else known.
    pub fn verdict(verdict: Verdict) -> Facts {
        Facts {
            verdict: Some(verdict),
            ..Facts::default()
        }
    }

    /// Whether the official RL reward disagrees with the verdict (unknown: `None`).
    pub fn reward_disagrees(&self) -> Option<bool> {
        Some((self.reward? == 1) != (self.verdict? == Verdict::Right))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_compact_and_read_back_equal() {
        let mut report = GradeReport::load_failure("run.jsonl", 1, "");
        report.verdict = Some(Verdict::ResultError);
        report.reward = Some(1);
        report.reward_reason_kind = Some(ReasonKind::Tolerance);
        report.fragile = true;
        let facts = Facts::of(&report);
        assert_eq!(facts.reward_disagrees(), Some(true));
        assert!(facts.reward_run);
        let text = serde_json::to_string(&facts).expect("json");
        assert_eq!(
            text,
            r#"{"v":"result_error","r":1,"rr":true,"k":"tolerance","f":true}"#
        );
        assert_eq!(serde_json::from_str::<Facts>(&text).expect("read"), facts);
        // Nothing known is nearly nothing stored.
        assert_eq!(
            serde_json::to_string(&Facts::default()).expect("json"),
            "{}"
        );
        assert_eq!(Facts::verdict(Verdict::Right).reward_disagrees(), None);
    }
}
