//! Loopholes by behaviour, in the grade (issue 39): a rollout a scorer pays (verdict
//! `right` or reward 1) is run once more under the tracer, and once with zwc poisoned, and
//! what the runs show, whatever the code looks like, becomes confirmed loophole findings
//! kept in its report and its facts. So every figure that reads a grade (`stats`, the
//! Stats and Training screens, `compare`, label suggestions) counts them, and the score
//! cache remembers them like verdicts.

use serde::{Deserialize, Serialize};

use crate::grade::trace::{Settled, SettledFinding};
use crate::model::finding_kinds::{Family, KindSet};

/// What the behaviour runs of a paid rollout showed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Behaviour {
    /// The traced run ended (one killed by the timeout shows nothing for sure).
    pub complete: bool,
    /// The loophole findings the runs confirmed, each with what the run showed.
    pub findings: Vec<SettledFinding>,
    /// Why the runs could not be made or read, when they could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Behaviour {
    /// The loophole kinds the runs confirmed, one bit each.
    pub fn kinds(&self) -> KindSet {
        self.findings
            .iter()
            .filter(|f| f.kind.family() == Family::Loophole && f.settled == Settled::Confirmed)
            .fold(0, |bits, f| bits | f.kind.bit())
    }
}
