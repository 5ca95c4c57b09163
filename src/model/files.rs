//! What kind of file the user passed (rollouts, `sebx grade` output, correct
//! trajectories, dataset items, an API doc), judged from its name and first line, so every
//! command and the explorer accept the same mix of files.

use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

/// What a file holds, judged from its name and first line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Rollout lines (`query`, `response`, ...), possibly with their own scores.
    Rollouts,
    /// The official script's correct-trajectories file: rollout lines that are all `right`.
    CorrectTrajectories,
    /// `sebx grade` output: one `GradeReport` per line.
    Reports,
    /// Dataset items (`function_name`, `selected_functions`, ... but no `response`).
    Dataset,
    /// An API doc (`func_mapping`) or a `mappings.json`.
    ApiDoc,
}

impl FileKind {
    /// Whether its lines are rollouts (a run of its own).
    pub fn holds_rollouts(self) -> bool {
        matches!(self, FileKind::Rollouts | FileKind::CorrectTrajectories)
    }

    /// Whether every rollout in it is `right` by construction (correct trajectories).
    pub fn all_right(self) -> bool {
        self == FileKind::CorrectTrajectories
    }

    /// The kind of a rollout file, correct trajectories when `all_right`.
    pub fn of_rollouts(all_right: bool) -> FileKind {
        if all_right {
            FileKind::CorrectTrajectories
        } else {
            FileKind::Rollouts
        }
    }
}

/// Judges a file's kind by its first non-blank line (and `correct` in the name).
pub fn classify_text(name: &str, first_line: &str) -> Option<FileKind> {
    let value: Value = serde_json::from_str(first_line).ok()?;
    let obj = value.as_object()?;
    if obj.contains_key("func_mapping") || obj.contains_key("main") && obj.contains_key("linalg") {
        return Some(FileKind::ApiDoc);
    }
    if obj.contains_key("decided_by") || obj.contains_key("extraction") {
        return Some(FileKind::Reports);
    }
    if obj.contains_key("response") {
        let lower = name.to_ascii_lowercase();
        return Some(if lower.contains("correct") {
            FileKind::CorrectTrajectories
        } else {
            FileKind::Rollouts
        });
    }
    if obj.contains_key("query") {
        return Some(FileKind::Dataset);
    }
    None
}

/// Reads a file's first non-blank line (for [`classify_text`]); a whole `.json` file if it is one.
pub fn classify_file(path: &Path) -> std::io::Result<Option<FileKind>> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if path.extension().is_some_and(|e| e == "json") {
        let text = std::fs::read_to_string(path)?;
        return Ok(classify_text(&name, text.trim()));
    }
    let mut reader = BufReader::new(std::fs::File::open(path)?);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    Ok(classify_text(&name, &String::from_utf8_lossy(&line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_first_line() {
        assert_eq!(
            classify_text("a.jsonl", r#"{"query": "q", "response": "r"}"#),
            Some(FileKind::Rollouts)
        );
        assert_eq!(
            classify_text(
                "correct_trajectories.jsonl",
                r#"{"query": "q", "response": "r"}"#
            ),
            Some(FileKind::CorrectTrajectories)
        );
        assert_eq!(
            classify_text("t.jsonl", r#"{"query": "q", "function_name": "def f(x):"}"#),
            Some(FileKind::Dataset)
        );
        assert_eq!(
            classify_text(
                "x.jsonl",
                r#"{"source": "a", "line": 1, "decided_by": "x"}"#
            ),
            Some(FileKind::Reports)
        );
        assert_eq!(
            classify_text("api.jsonl", r#"{"func_mapping": "{}"}"#),
            Some(FileKind::ApiDoc)
        );
        assert_eq!(classify_text("x", "not json"), None);
    }
}
