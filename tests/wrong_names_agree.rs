//! One definition of a wrong name: `sebx analyze`'s summary and `sebx stats --by finding`
//! count the same wrong names, name by name, on the parity corpus (its official verdicts
//! given to `stats` as a scored file written for the test, so nothing is graded).

use std::collections::BTreeMap;
use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::shared_data;
use sebx::analysis::analyze_rollout;
use sebx::cli::analyze::AnalysisSummary;
use sebx::model::ApiMap;
use sebx::model::rollout::load_rollout_file;

fn shared() -> PathBuf {
    shared_data::shared_data()
}

#[test]
fn analyze_and_stats_count_the_same_wrong_names_on_the_parity_corpus() {
    let data = shared();
    let rollouts = data.join("parity/rollouts.jsonl");
    let api_doc = data.join("se-bench/api_doc.jsonl");
    let api = ApiMap::load(&api_doc).expect("api doc");
    let loaded = load_rollout_file(&rollouts).expect("parity corpus");
    // What `sebx analyze` sums (the same summary type it prints).
    let mut summary = AnalysisSummary::default();
    for r in &loaded.rollouts {
        summary.add(&analyze_rollout(r, &api, None));
    }
    let from_analyze: BTreeMap<(String, String), usize> = summary
        .names
        .iter()
        .map(|((kind, name), (count, _))| ((kind.as_str().to_string(), name.clone()), *count))
        .collect();
    assert!(from_analyze.len() > 20, "the corpus has wrong names");
    let possible = summary.possible;
    assert!(
        possible > 0,
        "the corpus has possible findings, counted by neither"
    );

    // The official verdicts as a scored file, so `stats` grades nothing.
    let dir = tempfile::tempdir().expect("tempdir");
    let scored = dir.path().join("parity.scored.jsonl");
    let verdicts = std::fs::read_to_string(data.join("parity/official_verdicts.jsonl"))
        .expect("official verdicts");
    let mut text = String::new();
    for (r, v) in loaded.rollouts.iter().zip(verdicts.lines()) {
        let v: Value = serde_json::from_str(v).expect("verdict line");
        text.push_str(
            &json!({"source": rollouts.display().to_string(), "line": r.line, "id": r.id.0,
                "verdict": v["verdict"], "decided_by": "official"})
            .to_string(),
        );
        text.push('\n');
    }
    std::fs::write(&scored, text).expect("scored");
    let out = Command::cargo_bin("sebx")
        .expect("binary")
        .env("SEBX_SCORE_CACHE", dir.path().join("cache"))
        .arg("stats")
        .arg(&rollouts)
        .arg(&scored)
        .arg("--api-doc")
        .arg(&api_doc)
        .args(["--by", "finding", "--format", "json", "-q"])
        .output()
        .expect("stats");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats: Value = serde_json::from_slice(&out.stdout).expect("json");
    let from_stats: BTreeMap<(String, String), usize> = stats["wrong_names"]
        .as_array()
        .expect("wrong names")
        .iter()
        .map(|w| {
            (
                (
                    w["kind"].as_str().expect("kind").to_string(),
                    w["name"].as_str().expect("name").to_string(),
                ),
                w["count"].as_u64().expect("count") as usize,
            )
        })
        .fold(BTreeMap::new(), |mut m, (k, n)| {
            // stats keys a name by its suggestion too; analyze by (kind, name).
            *m.entry(k).or_default() += n;
            m
        });
    assert_eq!(from_analyze, from_stats);
}
