//! Label progress: how many failures carry a label, over a named scope (every run loaded,
//! or one run). One tally and one wording, so the explorer's list title, its label panel,
//! its Stats screen and `sebx stats` give the same figure the same way ("4 of 31 failures
//! labelled in 2 runs"), never one run's figure beside another's all-runs figure unnamed.

use serde::Serialize;

use crate::grade::runs::RunSet;
use crate::model::Verdict;

/// What a figure counts over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelScope {
    /// Every run loaded (how many).
    Runs(usize),
    /// One run, by name.
    Run(String),
}

impl LabelScope {
    /// The scope as the figure ends: "in 2 runs", "in 1 run", "in run rollouts_run2".
    pub fn text(&self) -> String {
        match self {
            LabelScope::Runs(1) => "in 1 run".to_string(),
            LabelScope::Runs(n) => format!("in {} runs", thousands(*n)),
            LabelScope::Run(name) => format!("in run {name}"),
        }
    }
}

/// One row as the tally counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelRow {
    /// The row's run (index in run order).
    pub run: usize,
    /// The row is a failure (labels go on failures).
    pub failure: bool,
    /// The row carries a label (whose is the caller's choice).
    pub labelled: bool,
}

/// Counts of one scope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LabelCounts {
    pub failures: usize,
    pub labelled_failures: usize,
    /// Labelled rows, failures or not.
    pub labelled: usize,
}

/// A figure with its scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabelProgress {
    #[serde(flatten)]
    pub counts: LabelCounts,
    pub scope: LabelScope,
}

impl LabelProgress {
    /// The figure in words, scope included: "4 of 31 failures labelled in 2 runs", with
    /// labels on rows that are not failures beside ("(+2 not failures)").
    pub fn text(&self) -> String {
        let LabelCounts {
            failures,
            labelled_failures,
            labelled,
        } = self.counts;
        let scope = self.scope.text();
        if failures == 0 && labelled > 0 {
            return format!(
                "{} labelled {scope} (no failure graded yet)",
                thousands(labelled)
            );
        }
        let mut text = format!(
            "{} of {} failures labelled {scope}",
            thousands(labelled_failures),
            thousands(failures)
        );
        if labelled > labelled_failures {
            text.push_str(&format!(
                " (+{} not failures)",
                thousands(labelled - labelled_failures)
            ));
        }
        text
    }
}

/// Each run's counts, named, and so their total.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelTally {
    names: Vec<String>,
    runs: Vec<LabelCounts>,
}

impl LabelTally {
    /// Counts `rows` into the runs `names` (in run order); a row of a run beyond them is
    /// counted in a run of its own, unnamed.
    pub fn count(names: Vec<String>, rows: impl IntoIterator<Item = LabelRow>) -> LabelTally {
        let mut runs = vec![LabelCounts::default(); names.len()];
        for row in rows {
            if row.run >= runs.len() {
                runs.resize(row.run + 1, LabelCounts::default());
            }
            let c = &mut runs[row.run];
            c.failures += usize::from(row.failure);
            c.labelled += usize::from(row.labelled);
            c.labelled_failures += usize::from(row.failure && row.labelled);
        }
        LabelTally { names, runs }
    }

    /// A run set's tally: a failure is a rollout whose verdict is not right; labelled, one
    /// with labels (whoever's the set was filled with).
    pub fn of_set(set: &RunSet) -> LabelTally {
        LabelTally::count(
            set.runs.clone(),
            set.rollouts.iter().map(|r| LabelRow {
                run: r.run as usize,
                failure: r.verdict != Verdict::Right,
                labelled: r.labels.is_some(),
            }),
        )
    }

    /// How many runs the tally is over.
    pub fn run_count(&self) -> usize {
        self.runs.len().max(self.names.len())
    }

    /// The figure over every run.
    pub fn all(&self) -> LabelProgress {
        let mut counts = LabelCounts::default();
        for c in &self.runs {
            counts.failures += c.failures;
            counts.labelled_failures += c.labelled_failures;
            counts.labelled += c.labelled;
        }
        LabelProgress {
            counts,
            scope: LabelScope::Runs(self.run_count()),
        }
    }

    /// The figure of one run, named (`None` past the last run).
    pub fn run(&self, run: usize) -> Option<LabelProgress> {
        if run >= self.run_count() {
            return None;
        }
        Some(LabelProgress {
            counts: self.runs.get(run).copied().unwrap_or_default(),
            scope: LabelScope::Run(
                self.names
                    .get(run)
                    .cloned()
                    .unwrap_or_else(|| format!("{}", run + 1)),
            ),
        })
    }
}

/// `n` with its thousands grouped (`1,680`), as every label figure writes it.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(run: usize, failure: bool, labelled: bool) -> LabelRow {
        LabelRow {
            run,
            failure,
            labelled,
        }
    }

    #[test]
    fn one_tally_says_all_runs_and_each_run_with_its_scope() {
        let tally = LabelTally::count(
            vec!["rollouts".into(), "rollouts_run2".into()],
            [
                row(0, true, true),
                row(0, true, false),
                row(0, false, true),
                row(1, true, true),
                row(1, true, true),
                row(1, true, false),
            ],
        );
        assert_eq!(
            tally.all().text(),
            "3 of 5 failures labelled in 2 runs (+1 not failures)"
        );
        assert_eq!(
            tally.run(1).map(|p| p.text()).as_deref(),
            Some("2 of 3 failures labelled in run rollouts_run2")
        );
        assert_eq!(
            tally.run(0).map(|p| p.text()).as_deref(),
            Some("1 of 2 failures labelled in run rollouts (+1 not failures)")
        );
        assert_eq!(tally.run(2), None);
    }

    #[test]
    fn one_run_and_no_failure_yet_and_large_counts() {
        let tally = LabelTally::count(vec!["a".into()], [row(0, false, true)]);
        assert_eq!(
            tally.all().text(),
            "1 labelled in 1 run (no failure graded yet)"
        );
        let empty = LabelTally::count(vec!["a".into(), "b".into(), "c".into()], []);
        assert_eq!(empty.all().text(), "0 of 0 failures labelled in 3 runs");
        let big = LabelTally::count(vec!["a".into()], (0..1680).map(|i| row(0, true, i < 15)));
        assert_eq!(big.all().text(), "15 of 1,680 failures labelled in 1 run");
    }
}
