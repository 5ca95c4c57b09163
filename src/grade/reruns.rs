//! Reruns of the grader made from the explorer, kept in an append-only sidecar
//! `<rollouts>.reruns.jsonl` (same durability contract as labels, see [`crate::model::sidecar`]).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::grade::report::GradeReport;
use crate::model::labels::rfc3339_utc;
use crate::model::rollout::{LoadIssue, Rollout, RolloutId};
use crate::model::sidecar::{SidecarError, SidecarLog, sidecar_path};

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

/// The rollout with `code` as its graded block: the last ```` ```python ```` block of the
/// response is replaced (or one is appended when there is none).
pub fn with_code(rollout: &Rollout, code: &str) -> Rollout {
    let mut edited = rollout.clone();
    let mut code = code.to_string();
    if !code.ends_with('\n') {
        code.push('\n');
    }
    edited.response = match crate::analysis::extract_last_python_block(&rollout.response) {
        Some(block) => {
            let mut r = rollout.response.clone();
            r.replace_range(block.span.clone(), &code);
            r
        }
        None => format!("{}\n\n```python\n{code}```\n", rollout.response),
    };
    edited
}
/// Per-case changes from `before` to `after`: `case 2: ✗ → ✓`.
pub fn case_changes(before: &GradeReport, after: &GradeReport) -> Vec<String> {
    let n = before.cases.len().max(after.cases.len());
    let mark = |r: &GradeReport, k: usize| match r.cases.get(k) {
        Some(c) if c.matched => "✓",
        Some(c) if c.actual.is_none() => "∅",
        Some(_) => "✗",
        None => "-",
    };
    (0..n)
        .filter(|k| mark(before, *k) != mark(after, *k))
        .map(|k| format!("case {}: {} → {}", k + 1, mark(before, k), mark(after, k)))
        .collect()
}

/// `zwc.*` names a what-if swapped: "`zwc.kocito` instead of `zwc.mean`"; else how many
/// lines changed.
pub fn edit_summary(original: &str, edited: &str) -> String {
    let names = |code: &str| -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let bytes = code.as_bytes();
        let mut k = 0;
        while let Some(pos) = code[k..].find("zwc.") {
            let start = k + pos;
            let before_ok = start == 0 || {
                let b = bytes[start - 1];
                !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
            };
            let mut end = start + 4;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b'.')
            {
                end += 1;
            }
            let name = code[start..end].trim_end_matches('.');
            if before_ok && name.len() > 4 {
                out.insert(name.to_string());
            }
            k = end.max(start + 1);
        }
        out
    };
    let before = names(original);
    let after = names(edited);
    let added: Vec<String> = after
        .difference(&before)
        .map(|n| format!("`{n}`"))
        .collect();
    let removed: Vec<String> = before
        .difference(&after)
        .map(|n| format!("`{n}`"))
        .collect();
    match (added.is_empty(), removed.is_empty()) {
        (false, false) => format!("{} instead of {}", added.join(", "), removed.join(", ")),
        (false, true) => format!("adds {}", added.join(", ")),
        (true, false) => format!("drops {}", removed.join(", ")),
        (true, true) => {
            let a: Vec<&str> = original.lines().collect();
            let b: Vec<&str> = edited.lines().collect();
            let changed = similar::TextDiff::from_slices(&a, &b)
                .iter_all_changes()
                .filter(|c| c.tag() != similar::ChangeTag::Equal)
                .count();
            format!("{changed} changed lines")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_summary_names_swapped_zwc_calls() {
        let a = "import zwc\ndef f(x):\n    return zwc.mean(zwc.yitaf(x))\n";
        let b = "import zwc\ndef f(x):\n    return zwc.kocito(zwc.yitaf(x))\n";
        assert_eq!(edit_summary(a, b), "`zwc.kocito` instead of `zwc.mean`");
        assert_eq!(
            edit_summary(a, &a.replace("(x))", "(x), axis=1)")),
            "2 changed lines"
        );
        assert_eq!(
            edit_summary("y = zwc.rfx.quvohee(m)", "y = zwc.rfx.quvohe(m)"),
            "`zwc.rfx.quvohe` instead of `zwc.rfx.quvohee`"
        );
    }

    #[test]
    fn with_code_replaces_the_last_block_or_appends_one() {
        let line = serde_json::json!({"query": "q", "response": "a\n```python\nold()\n```\nb",
            "test_cases": [], "right_exe_result": ""})
        .to_string();
        let loaded = crate::model::rollout::parse_rollout_bytes(
            std::path::Path::new("t.jsonl"),
            line.as_bytes(),
        );
        let mut r = loaded.rollouts[0].clone();
        let edited = with_code(&r, "new()");
        assert_eq!(edited.response, "a\n```python\nnew()\n```\nb");
        r.response = "no code".to_string();
        let edited = with_code(&r, "new()\n");
        assert!(edited.response.ends_with("```python\nnew()\n```\n"));
        assert_eq!(
            crate::analysis::extract_last_python_block(&edited.response).map(|b| b.code),
            Some("new()\n".to_string())
        );
    }
}
