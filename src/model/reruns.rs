//! Reruns of the grader made from the explorer, kept in an append-only sidecar
//! `<rollouts>.reruns.jsonl` (same durability contract as labels, see [`super::sidecar`]).

use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::labels::rfc3339_utc;
use super::rollout::{LoadIssue, RolloutId};
use super::sidecar::{SidecarError, SidecarLog, sidecar_path};
use crate::grade::report::GradeReport;

/// Suffix of the rerun sidecar: `run.jsonl` → `run.jsonl.reruns.jsonl`.
pub const RERUNS_SUFFIX: &str = ".reruns.jsonl";

/// One rerun of the grader on a rollout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RerunRecord {
    /// When it ran, RFC 3339 UTC.
    pub time: String,
    /// True when the code was edited by the user before grading (a "what if"), so the
    /// verdict is not the rollout's own.
    pub what_if: bool,
    /// The edited code of a what-if run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_code: Option<String>,
    pub report: GradeReport,
}

impl RerunRecord {
    /// A record stamped with the current time.
    pub fn now(report: GradeReport, edited_code: Option<String>) -> RerunRecord {
        RerunRecord {
            time: rfc3339_utc(SystemTime::now()),
            what_if: edited_code.is_some(),
            edited_code,
            report,
        }
    }
}

/// The reruns of one rollout file.
#[derive(Debug)]
pub struct RerunStore {
    log: SidecarLog<RerunRecord>,
}

impl RerunStore {
    /// Opens the rerun sidecar of `rollout_file` (missing: empty); damaged lines are issues.
    pub fn open(rollout_file: &Path) -> Result<(RerunStore, Vec<LoadIssue>), SidecarError> {
        RerunStore::open_sidecar(&sidecar_path(rollout_file, RERUNS_SUFFIX))
    }

    /// Opens a rerun sidecar by its own path.
    pub fn open_sidecar(path: &Path) -> Result<(RerunStore, Vec<LoadIssue>), SidecarError> {
        let (log, issues) = SidecarLog::open(path)?;
        Ok((RerunStore { log }, issues))
    }

    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// Durably appends a rerun.
    pub fn append(&mut self, record: RerunRecord) -> Result<(), SidecarError> {
        self.log.append(record)
    }

    /// Re-reads the sidecar to pick up other processes' reruns.
    pub fn reload(&mut self) -> Result<Vec<LoadIssue>, SidecarError> {
        self.log.reload()
    }

    /// Every rerun, oldest first.
    pub fn all(&self) -> impl Iterator<Item = &RerunRecord> {
        self.log.records().iter().map(|s| &s.record)
    }

    /// Reruns of one rollout, oldest first.
    pub fn of(&self, id: &RolloutId) -> Vec<&RerunRecord> {
        self.all()
            .filter(|r| r.report.id.as_ref() == Some(id))
            .collect()
    }

    /// The latest rerun of the rollout's own code (what-ifs excluded): its verdict stands
    /// for the rollout.
    pub fn latest_graded(&self, id: &RolloutId) -> Option<&RerunRecord> {
        self.all()
            .filter(|r| !r.what_if && r.report.id.as_ref() == Some(id))
            .last()
    }
}
