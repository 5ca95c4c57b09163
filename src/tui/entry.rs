//! One row of the explorer: a rollout with what static analysis found, and its score.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::analysis::extract::python_block_spans;
use crate::grade::report::GradeReport;
use crate::model::rollout::StoredScore;
use crate::model::{Rollout, Verdict};

/// What a grade decides without the report: what the list, its filters, the label
/// suggestion and the screens' figures read of every row.
pub use crate::grade::facts::Facts;

/// Index of a run (one rollout file) in `App::runs`.
pub type RunIndex = usize;
/// Index of a task (one distinct query) in `App::tasks`.
pub type TaskIndex = usize;

/// One rollout file, shown as a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub path: PathBuf,
    /// Short name shown in the list (file name without `.jsonl`).
    pub name: String,
}

/// One distinct query across all runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub query: String,
    /// The query's first line, shortened, for the list.
    pub short: String,
}

impl Task {
    /// A task for `query`, with its short form for the list.
    pub fn new(query: &str) -> Task {
        let first = query
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        let short: String = first.chars().take(120).collect();
        Task {
            query: query.to_string(),
            short,
        }
    }
}

/// An immutable rollout row, shared with worker threads. Its analysis comes later, from a
/// background job (`App::digests`, `App::analyses`).
#[derive(Debug, Clone)]
pub struct Entry {
    pub rollout: Rollout,
    pub run: RunIndex,
    pub task: TaskIndex,
    /// Byte range of the extracted code in the response (`None`: no python block).
    pub code_span: Option<Range<usize>>,
    /// How many python blocks the response has.
    pub blocks_found: usize,
}

impl Entry {
    /// Builds a row: extracts the code (the analysis runs later, off the loading path).
    pub fn build(rollout: Rollout, run: RunIndex, task: TaskIndex) -> Entry {
        // Where the graded block is (the last), not a copy of it.
        let mut spans = python_block_spans(&rollout.response);
        let blocks_found = spans.len();
        Entry {
            code_span: spans.pop(),
            blocks_found,
            rollout,
            run,
            task,
        }
    }

    /// The extracted code ("" when there is none).
    pub fn code(&self) -> &str {
        self.code_span
            .as_ref()
            .and_then(|s| self.rollout.response.get(s.clone()))
            .unwrap_or("")
    }

    /// 1-based response lines covered by the extracted code.
    pub fn code_lines_in_response(&self) -> Option<Range<usize>> {
        let span = self.code_span.as_ref()?;
        let first = self.rollout.response[..span.start].matches('\n').count() + 1;
        let lines = self.code().lines().count().max(1);
        Some(first..first + lines)
    }
}

/// Where a rollout's score comes from and what it is.
#[derive(Debug, Clone, PartialEq)]
pub enum Score {
    /// Not scored, and no grading queued (no backend).
    Unscored,
    /// Grading queued or running; `ticket` identifies the request so stale results are dropped.
    Grading { ticket: u64 },
    /// A score the file carried (or a correct-trajectories file implied).
    Stored(StoredScore),
    /// A grade report (from `sebx grade` output or graded here).
    Graded(Arc<GradeReport>),
    /// A verdict the session remembers (the score cache, a rerun), held as its facts only:
    /// the report is fetched when the row is opened, so a big file whose verdicts are all
    /// remembered holds a few bytes per row, not a report.
    Remembered(Facts),
    /// Grading failed (not a verdict: the grader itself could not run).
    Failed(String),
}

/// What the verdict column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shown {
    Verdict(Verdict),
    /// Stored as "not passed" without naming a verdict.
    StoredFail,
    Pending,
    Grading,
    Error,
}

impl Shown {
    /// One-cell symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Shown::Verdict(Verdict::Right) => "✓",
            Shown::Verdict(Verdict::ResultError) => "✗",
            Shown::Verdict(Verdict::ExeError) => "!",
            Shown::Verdict(Verdict::UseNumpy) => "N",
            Shown::Verdict(Verdict::WithoutZwc) => "Z",
            Shown::StoredFail => "✗",
            Shown::Pending => "·",
            Shown::Grading => "…",
            Shown::Error => "?",
        }
    }

    /// Short label for the list.
    pub fn label(self) -> &'static str {
        match self {
            Shown::Verdict(v) => v.as_str(),
            Shown::StoredFail => "failed",
            Shown::Pending => "unscored",
            Shown::Grading => "grading",
            Shown::Error => "grade error",
        }
    }

    /// Whether this counts as a failure for "failed" filters.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Shown::Verdict(
                Verdict::ResultError | Verdict::ExeError | Verdict::UseNumpy | Verdict::WithoutZwc
            ) | Shown::StoredFail
                | Shown::Error
        )
    }
}

impl Score {
    /// What the verdict column shows.
    pub fn shown(&self) -> Shown {
        match self {
            Score::Unscored => Shown::Pending,
            Score::Grading { .. } => Shown::Grading,
            Score::Stored(s) => match s.verdict {
                Some(v) => Shown::Verdict(v),
                None if s.passed => Shown::Verdict(Verdict::Right),
                None => Shown::StoredFail,
            },
            Score::Graded(r) => match r.verdict {
                Some(v) => Shown::Verdict(v),
                None => Shown::Error,
            },
            Score::Remembered(f) => match f.verdict {
                Some(v) => Shown::Verdict(v),
                None => Shown::Error,
            },
            Score::Failed(_) => Shown::Error,
        }
    }

    /// What the row's grade decides (verdict, reward, the flags filters and suggestions
    /// read), from its report or its remembered facts.
    pub fn facts(&self) -> Option<Facts> {
        match self {
            Score::Graded(r) => Some(Facts::of(r)),
            Score::Remembered(f) => Some(*f),
            _ => None,
        }
    }

    /// The grade report, when there is one.
    pub fn report(&self) -> Option<&GradeReport> {
        match self {
            Score::Graded(r) => Some(r),
            _ => None,
        }
    }
}
