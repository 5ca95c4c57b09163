//! `sebx grade` against the official verdicts of the parity corpus (../shared/data/parity).
//! Every disagreement must be one documented in README.md ("Known differences").

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

#[test]
fn grade_agrees_with_official_verdicts_on_parity_corpus() {
    let data = shared();
    let rollouts = data.join("parity/rollouts.jsonl");
    let official = data.join("parity/official_verdicts.jsonl");
    assert!(
        rollouts.is_file(),
        "parity corpus missing at {}",
        rollouts.display()
    );
    let out_dir = tempfile::tempdir().expect("tempdir");
    let scored = out_dir.path().join("scored.jsonl");
    let correct = out_dir.path().join("correct.jsonl");
    let status = Command::new(env!("CARGO_BIN_EXE_sebx"))
        .arg("grade")
        .arg(&rollouts)
        .arg("--api-doc")
        .arg(data.join("se-bench/api_doc.jsonl"))
        .arg("-o")
        .arg(&scored)
        .arg("--correct-out")
        .arg(&correct)
        .arg("--quiet")
        .status()
        .expect("run sebx grade");
    assert!(status.success(), "sebx grade failed: {status}");

    let ours: Vec<Value> = std::fs::read_to_string(&scored)
        .expect("scored output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("scored line is JSON"))
        .collect();
    let theirs: Vec<Value> = std::fs::read_to_string(&official)
        .expect("official verdicts")
        .lines()
        .map(|l| serde_json::from_str(l).expect("official line is JSON"))
        .collect();
    assert_eq!(ours.len(), theirs.len(), "one output line per input line");

    let mut disagreements = Vec::new();
    let mut right = 0;
    for (o, t) in ours.iter().zip(&theirs) {
        assert_eq!(o["line"], t["line"], "output is in input order");
        if o["verdict"] != t["verdict"] {
            disagreements.push(format!(
                "line {} ({}): official {} vs sebx {} — {}",
                t["line"], t["variant"], t["verdict"], o["verdict"], o["decided_by"]
            ));
        }
        if t["verdict"] == "right" {
            right += 1;
        }
    }
    let correct_lines = std::fs::read_to_string(&correct)
        .expect("correct-out")
        .lines()
        .count();
    let limit = theirs.len() / 200; // under 0.5 %
    assert!(
        disagreements.len() <= limit,
        "{} disagreements (limit {limit}):\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    // Every remaining disagreement is one the README explains.
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .expect("README");
    for d in &disagreements {
        let line = d.split_whitespace().nth(1).unwrap_or("");
        assert!(
            readme.contains(&format!("parity line {line}")),
            "undocumented disagreement: {d}"
        );
    }
    assert!(
        correct_lines.abs_diff(right) <= disagreements.len(),
        "--correct-out wrote {correct_lines} lines for {right} right rollouts"
    );
    eprintln!(
        "parity: {} lines, {} disagreements",
        theirs.len(),
        disagreements.len()
    );
}
