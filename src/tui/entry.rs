//! One row of the explorer: a rollout with what static analysis found, and its score (the
//! session resolver's answer, `session::resolve`).

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::analysis::extract::python_block_spans;
use crate::grade::report::GradeReport;
use crate::model::{Rollout, Verdict};
use crate::session::resolve::{Resolved, VerdictSource, report_answer};

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

/// A row's score: the session's answer once there is one ([`Resolved`]: verdict, where it
/// came from, what the grade decided), else how far grading got.
#[derive(Debug, Clone, PartialEq)]
pub enum Score {
    /// Not scored, and no grading queued (no backend).
    Unscored,
    /// Grading queued or running; `ticket` identifies the request so stale results are dropped.
    Grading { ticket: u64 },
    /// The resolver's answer (`session::resolve`), with its report when one is at hand: a
    /// scored file's, the open row's. A verdict only remembered (the score cache, a rerun,
    /// graded in the background) is held without it, so a big file whose verdicts are all
    /// remembered holds a few bytes per row; the report is fetched when the row is opened.
    Resolved {
        resolved: Resolved,
        report: Option<Arc<GradeReport>>,
    },
    /// No verdict: grading failed (the grader itself could not run), or the report names
    /// none (it is kept: it says why).
    Failed {
        why: String,
        report: Option<Arc<GradeReport>>,
    },
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
    /// A report's score, as `source` gives it: its verdict, or no verdict (`Failed`, the
    /// report kept) when it names none. `keep`: hold the report (else its facts only).
    pub fn of_report(report: GradeReport, source: VerdictSource, keep: bool) -> Score {
        match report_answer(&report, source) {
            Some(resolved) => Score::Resolved {
                resolved,
                report: keep.then(|| Arc::new(report)),
            },
            None => Score::Failed {
                why: report
                    .load_error
                    .clone()
                    .unwrap_or_else(|| report.decided_by.clone()),
                report: Some(Arc::new(report)),
            },
        }
    }

    /// What the verdict column shows.
    pub fn shown(&self) -> Shown {
        match self {
            Score::Unscored => Shown::Pending,
            Score::Grading { .. } => Shown::Grading,
            Score::Resolved { resolved, .. } => Shown::Verdict(resolved.verdict),
            Score::Failed { .. } => Shown::Error,
        }
    }

    /// The session's answer, when there is one.
    pub fn resolved(&self) -> Option<&Resolved> {
        match self {
            Score::Resolved { resolved, .. } => Some(resolved),
            _ => None,
        }
    }

    /// Where the verdict came from, when there is one.
    pub fn source(&self) -> Option<VerdictSource> {
        self.resolved().map(|r| r.source)
    }

    /// What the row's grade decides (verdict, reward, the flags filters and suggestions
    /// read): the answer's facts (a verdict from the file alone: the verdict, nothing else).
    pub fn facts(&self) -> Option<Facts> {
        self.resolved().map(|r| r.facts)
    }

    /// The grade report, when one is held.
    pub fn report(&self) -> Option<&GradeReport> {
        self.held_report().map(|r| &**r)
    }

    /// The grade report held, shared.
    pub fn held_report(&self) -> Option<&Arc<GradeReport>> {
        match self {
            Score::Resolved { report, .. } | Score::Failed { report, .. } => report.as_ref(),
            _ => None,
        }
    }

    /// A verdict held without the report it has somewhere (remembered, or graded in the
    /// background): opening the row reads the report again.
    pub fn report_elsewhere(&self) -> bool {
        matches!(self, Score::Resolved { resolved, report: None } if resolved.source.report_kept())
    }
}
