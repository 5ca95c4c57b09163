//! The static zwc-usage check and the NumPy check against the official verdicts of the
//! parity corpus (../shared/data/parity): the static check fails exactly on `without_zwc`
//! with the official `static_error` text, and among the rest the NumPy check flags exactly
//! the `use_numpy` ones.

use std::path::PathBuf;

use crate::shared_data;
use sebx::analysis::assemble::{assemble_program, rewrite_cases};
use sebx::analysis::numpy_check::check_numpy;
use sebx::analysis::static_check::{check_zwc_usage, check_zwc_usage_split};
use sebx::analysis::{entry_function_name, extract_last_python_block};
use sebx::model::rollout::load_rollout_file;
use serde_json::Value;

fn parity_dir() -> PathBuf {
    shared_data::shared("parity")
}

#[test]
fn static_and_numpy_checks_agree_with_official_verdicts() {
    let dir = parity_dir();
    let loaded = load_rollout_file(&dir.join("rollouts.jsonl")).expect("parity rollouts");
    assert!(loaded.issues.is_empty(), "{:?}", loaded.issues);
    let official: Vec<Value> = std::fs::read_to_string(dir.join("official_verdicts.jsonl"))
        .expect("official verdicts")
        .lines()
        .map(|l| serde_json::from_str(l).expect("official line is JSON"))
        .collect();
    assert_eq!(loaded.rollouts.len(), official.len());

    let mut disagreements = Vec::new();
    let (mut failed_static, mut flagged_numpy) = (0, 0);
    for (rollout, verdict) in loaded.rollouts.iter().zip(&official) {
        assert_eq!(verdict["line"].as_u64(), Some(rollout.line as u64));
        let code = extract_last_python_block(&rollout.response)
            .map(|b| b.code)
            .unwrap_or_default();
        let entry = entry_function_name(&code);
        let cases = rewrite_cases(&rollout.test_cases);
        let program = assemble_program(&code, &entry, &cases);
        let check = check_zwc_usage(&program, &entry);
        // The fast path the analysis uses must give exactly the same outcome.
        let harness = assemble_program("", &entry, &cases);
        let split = check_zwc_usage_split(&code, None, &harness, &entry);
        if split != check {
            disagreements.push(format!(
                "line {}: split check {split:?} differs from full check {check:?}",
                rollout.line
            ));
        }
        let official_verdict = verdict["verdict"].as_str().unwrap_or("");
        let official_error = verdict["static_error"].as_str();
        let tag = format!("line {} ({})", rollout.line, verdict["variant"]);

        if !check.passed {
            failed_static += 1;
        }
        if check.passed != (official_verdict != "without_zwc") {
            disagreements.push(format!(
                "{tag}: static check passed={} but official verdict {official_verdict} ({:?})",
                check.passed,
                check.official_error()
            ));
            continue;
        }
        if check.official_error().as_deref() != official_error {
            disagreements.push(format!(
                "{tag}: static_error {:?} vs official {official_error:?}",
                check.official_error()
            ));
        }
        if check.passed {
            let numpy = check_numpy(&program);
            if numpy.uses_numpy() {
                flagged_numpy += 1;
            }
            if numpy.uses_numpy() != (official_verdict == "use_numpy") {
                disagreements.push(format!(
                    "{tag}: uses_numpy={} but official verdict {official_verdict}",
                    numpy.uses_numpy()
                ));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    // The corpus README's counts, so a silently empty corpus cannot pass.
    assert_eq!(failed_static, 790);
    assert_eq!(flagged_numpy, 129);
}
