//! When a loophole takes off in a training run (issue 39): per loophole kind (and for any
//! loophole), the first step from which the share of the step's graded samples that went
//! through it stays at or above a threshold until the run's last graded step
//! (`--onset-at`, 10% by default). A share that dips below again later is no onset yet: the
//! model has not settled on the loophole. One computation over the step rows, so
//! `stats --by step` and the Training screen show the same step.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::learned_at::{parse_share, share_pct};
use super::steps::StepRow;
use crate::model::finding_kinds::{Family, KINDS};

/// The share of a step's graded samples through a loophole that marks its onset: in (0, 1].
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct OnsetAt(f64);

impl Default for OnsetAt {
    fn default() -> Self {
        OnsetAt(Self::DEFAULT)
    }
}

impl OnsetAt {
    /// A tenth of a step's graded samples: below it, a few samples of a 100-sample step
    /// come and go by chance.
    pub const DEFAULT: f64 = 0.1;

    /// A threshold, when `share` is in (0, 1].
    pub fn new(share: f64) -> Option<OnsetAt> {
        (share.is_finite() && share > 0.0 && share <= 1.0).then_some(OnsetAt(share))
    }

    pub fn share(self) -> f64 {
        self.0
    }

    /// `--onset-at`'s parser: a share (`0.1`) or a percentage (`10%`), in (0, 1].
    pub fn parse(text: &str) -> Result<OnsetAt, String> {
        OnsetAt::new(parse_share(text)?).ok_or_else(|| {
            format!(
                "the share must be above 0 and at most 1 (or 100%), found {text}: it is the part of a step's graded samples that went through a loophole"
            )
        })
    }

    /// Whether `share` reaches the threshold (a hair of slack for binary fractions).
    fn reached(self, share: f64) -> bool {
        share >= self.0 - 1e-9
    }
}

impl FromStr for OnsetAt {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OnsetAt::parse(s)
    }
}

impl fmt::Display for OnsetAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&share_pct(self.0))
    }
}

/// What `kind` names when it is no single loophole kind: any of them.
pub const ANY: &str = "any";

/// One run's onset of one loophole kind (or of [`ANY`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Onset {
    pub run: String,
    /// A loophole kind's name (`numpy_backdoor`, ...) or `any`.
    pub kind: &'static str,
    /// The first step from which the share stays at or above the threshold to the run's
    /// last graded step; `None`: it does not (yet).
    pub step: Option<u32>,
    /// The highest share of any step, and the first step that had it (`None`: no step
    /// went through the loophole).
    pub peak: Option<(u32, f64)>,
    /// The share at the run's last graded step.
    pub last: f64,
}

/// The share of `row`'s graded samples through `kind` (or any loophole); `None` when the
/// step has no graded sample.
pub fn step_share(row: &StepRow, kind: &str) -> Option<f64> {
    let l = &row.loopholes;
    if l.total == 0 {
        return None;
    }
    let n = if kind == ANY {
        l.rollouts
    } else {
        l.by_kind.get(kind).map_or(0, |c| c.rollouts)
    };
    Some(n as f64 / l.total as f64)
}

/// The onsets of every training run in `steps` (rows of one run are in step order, as
/// [`super::training_figures`] gives them): [`ANY`] for every run with a graded step, and
/// each loophole kind some step of the run went through, in the kind table's order.
pub fn onsets(steps: &[StepRow], at: OnsetAt) -> Vec<Onset> {
    let mut runs: Vec<&str> = Vec::new();
    for s in steps {
        if !runs.contains(&s.run.as_str()) {
            runs.push(&s.run);
        }
    }
    let loophole_kinds = KINDS.iter().filter(|k| k.family == Family::Loophole);
    let kinds: Vec<&'static str> = std::iter::once(ANY)
        .chain(loophole_kinds.map(|k| k.name))
        .collect();
    let mut out = Vec::new();
    for run in runs {
        let rows: Vec<&StepRow> = steps.iter().filter(|s| s.run == run).collect();
        for &kind in &kinds {
            let shares: Vec<(u32, f64)> = rows
                .iter()
                .filter_map(|r| Some((r.step, step_share(r, kind)?)))
                .collect();
            let Some(&(_, last)) = shares.last() else {
                continue;
            };
            let peak = shares.iter().filter(|(_, s)| *s > 0.0).fold(
                None::<(u32, f64)>,
                |best, &(step, s)| match best {
                    Some((_, b)) if b >= s => best,
                    _ => Some((step, s)),
                },
            );
            if kind != ANY && peak.is_none() {
                continue;
            }
            // Walk back from the last step while the share holds.
            let step = shares
                .iter()
                .rev()
                .take_while(|(_, s)| at.reached(*s))
                .last()
                .map(|(step, _)| *step);
            out.push(Onset {
                run: run.to_string(),
                kind,
                step,
                peak,
                last,
            });
        }
    }
    out
}
