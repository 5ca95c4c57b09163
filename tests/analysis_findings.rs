//! Hallucinated-name and misuse findings against what the official run of the parity
//! corpus (../shared/data/parity) showed: every missing zwc attribute and every missing
//! ZWCArray attribute in the official stderr is found statically, every `numpy_leak` has
//! a `numpy_import` finding, all of them at error level, and rollouts whose program ran
//! through (judged `right` or `result_error`) have no error-level finding that claims a crash.

use std::path::PathBuf;

use crate::shared_data;
use sebx::analysis::{FindingKind, Severity, analyze_rollout};
use sebx::model::ApiMap;
use sebx::model::rollout::load_rollout_file;
use serde_json::Value;

fn data_dir() -> PathBuf {
    shared_data::shared_data()
}

/// Every `'name'` after `needle` in `stderr`.
fn quoted_after(stderr: &str, needle: &str) -> Vec<String> {
    stderr
        .match_indices(needle)
        .filter_map(|(i, _)| {
            let rest = &stderr[i + needle.len()..];
            let rest = rest.strip_prefix('\'')?;
            rest.split_once('\'').map(|(name, _)| name.to_string())
        })
        .collect()
}

#[test]
fn findings_match_what_the_official_run_showed() {
    let data = data_dir();
    let api = ApiMap::load(&data.join("se-bench/api_doc.jsonl")).expect("api doc");
    let loaded = load_rollout_file(&data.join("parity/rollouts.jsonl")).expect("rollouts");
    let official: Vec<Value> = std::fs::read_to_string(data.join("parity/official_verdicts.jsonl"))
        .expect("verdicts")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(loaded.rollouts.len(), official.len());

    let mut problems = Vec::new();
    let (mut zwc_missing, mut array_missing, mut leaks, mut right, mut ran_through) =
        (0, 0, 0, 0, 0);
    for (rollout, verdict) in loaded.rollouts.iter().zip(&official) {
        let analysis = analyze_rollout(rollout, &api, None);
        let findings = &analysis.code.findings;
        let tag = format!("line {} ({})", rollout.line, verdict["variant"]);
        let stderr = verdict["stderr"].as_str().unwrap_or("");

        for name in quoted_after(stderr, "AttributeError: module 'zwc' has no attribute ") {
            zwc_missing += 1;
            let hit = findings.iter().find(|f| {
                matches!(
                    f.kind,
                    FindingKind::NumpyNameOnZwc | FindingKind::UnknownZwcName
                ) && f.severity == Severity::Error
                    && (f.name == name || f.name.ends_with(&format!(".{name}")))
            });
            match hit {
                None => problems.push(format!("{tag}: no finding for zwc.{name}: {findings:?}")),
                Some(f) => {
                    if let Some(real) = api.zwc_name(&format!("np.{name}")) {
                        if f.kind != FindingKind::NumpyNameOnZwc
                            || f.suggestion.as_deref() != Some(real)
                        {
                            problems
                                .push(format!("{tag}: zwc.{name} should suggest {real}: {f:?}"));
                        }
                    } else if f.kind != FindingKind::UnknownZwcName {
                        problems.push(format!("{tag}: zwc.{name} is not a NumPy name: {f:?}"));
                    }
                }
            }
        }
        for name in quoted_after(stderr, "AttributeError: ZWCArray has no attribute ") {
            array_missing += 1;
            if !findings.iter().any(|f| {
                f.kind == FindingKind::ArrayMethod
                    && f.name == name
                    && f.severity == Severity::Error
            }) {
                problems.push(format!(
                    "{tag}: no error-level array_method finding for .{name}: {findings:?}"
                ));
            }
        }
        if verdict["variant"] == "numpy_leak" {
            leaks += 1;
            if !findings.iter().any(|f| f.kind == FindingKind::NumpyImport) {
                problems.push(format!("{tag}: numpy_leak without numpy_import finding"));
            }
        }
        if verdict["verdict"] == "right" {
            right += 1;
            let errors: Vec<_> = findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .collect();
            if !errors.is_empty() {
                problems.push(format!("{tag}: judged right but has errors {errors:?}"));
            }
        }
        // The program ran to its end (its results were compared): no misuse that would
        // have raised can be an error-level finding.
        if verdict["verdict"] == "result_error" && !stderr.contains("Traceback") {
            ran_through += 1;
            let errors: Vec<_> = findings
                .iter()
                .filter(|f| {
                    f.severity == Severity::Error
                        && matches!(
                            f.kind,
                            FindingKind::ArrayMethod
                                | FindingKind::NumpyNameOnZwc
                                | FindingKind::UnknownZwcName
                        )
                })
                .collect();
            if !errors.is_empty() {
                problems.push(format!("{tag}: ran through but has errors {errors:?}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The corpus has these cases (counted from its stderr and variants), so the checks above ran.
    assert_eq!(zwc_missing, 224);
    assert_eq!(array_missing, 115);
    assert_eq!(leaks, 127);
    assert_eq!(right, 241);
    assert_eq!(ran_through, 154);
}
