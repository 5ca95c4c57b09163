//! Parity of Step 7 (split + tolerant comparison) with the official grader.
//!
//! For every parity rollout the official grader judged `right` or `result_error`, the
//! captured stdout split with `split_actual` and compared piece by piece with the split
//! `right_exe_result` must give the official verdict: all pieces match ⇔ `right`.
//!
//! The corpus stores only the last 2,000 characters of stdout, so a stdout of that length
//! may have lost its beginning (and with it the separator or the first pieces); such lines
//! are skipped and counted.

use std::path::PathBuf;

use crate::shared_data;
use sebx::grade::compare::{SEPARATOR, compare_outputs};
use serde_json::Value;

/// Length at which the corpus cuts stdout tails.
const STDOUT_TAIL_LIMIT: usize = 2000;

fn parity_dir() -> PathBuf {
    shared_data::shared("parity")
}

fn read_jsonl(name: &str) -> Vec<Value> {
    let path = parity_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("parity lines are JSON"))
        .collect()
}

#[test]
fn split_and_compare_reproduce_official_right_and_result_error() {
    let verdicts = read_jsonl("official_verdicts.jsonl");
    let rollouts = read_jsonl("rollouts.jsonl");
    assert_eq!(
        verdicts.len(),
        rollouts.len(),
        "the two files pair line by line"
    );

    let mut checked = 0usize;
    let mut checked_without_separator = 0usize;
    let mut checked_right = 0usize;
    let mut skipped_truncated = 0usize;
    let mut disagreements = Vec::new();

    for (official, rollout) in verdicts.iter().zip(&rollouts) {
        let verdict = official["verdict"].as_str().expect("verdict is a string");
        if verdict != "right" && verdict != "result_error" {
            continue;
        }
        let stdout = official["stdout"]
            .as_str()
            .expect("ran rollouts keep stdout");
        if stdout.chars().count() >= STDOUT_TAIL_LIMIT {
            skipped_truncated += 1;
            continue;
        }
        let expected = rollout["right_exe_result"]
            .as_str()
            .expect("right_exe_result is a string");
        let outcome = compare_outputs(expected, stdout);
        checked += 1;
        if !stdout.contains(SEPARATOR) {
            checked_without_separator += 1;
        }
        if verdict == "right" {
            checked_right += 1;
        }
        if outcome.all_matched != (verdict == "right") {
            let first_failure = outcome
                .cases
                .iter()
                .enumerate()
                .find(|(_, case)| case.as_ref().is_none_or(|c| !c.matched))
                .map(|(i, case)| match case {
                    None => format!("case {i}: actual piece missing"),
                    Some(c) => format!(
                        "case {i}: {} vs {}: {:?}",
                        c.expected_value,
                        c.actual_value,
                        c.mismatch.as_ref().map(|m| &m.reason)
                    ),
                })
                .unwrap_or_else(|| "every case matched".to_owned());
            disagreements.push(format!(
                "line {}: official {verdict}, ours all_matched={} ({first_failure})",
                official["line"], outcome.all_matched
            ));
        }
    }

    println!(
        "compare parity: checked {checked} lines ({checked_right} right, {} result_error, \
         {checked_without_separator} without a separator); skipped {skipped_truncated} \
         with a possibly truncated stdout tail; {} disagreements",
        checked - checked_right,
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "disagreements with the official verdict:\n{}",
        disagreements.join("\n")
    );
    // The corpus has 411 such lines; only a handful have cut tails.
    assert!(checked >= 400, "only {checked} lines checked");
    assert!(checked_right >= 200 && checked - checked_right >= 150);
    assert!(skipped_truncated <= 5, "{skipped_truncated} lines skipped");
}
