//! The internalization map on the parity corpus with the real SE-Bench API doc: every
//! function a task selects has a row with its zwc name. The real datasets spell linalg
//! functions bare (`det`, `inv`, `norm`), so a map that looked them up as `np.det` left
//! out every one of them.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::shared_data;
use sebx::grade::runs::{FunctionSort, RunSet, function_map};
use sebx::model::rollout::load_rollout_file;
use sebx::model::{ApiMap, Verdict};
use serde_json::Value;

fn data_dir() -> PathBuf {
    shared_data::shared_data()
}

#[test]
fn the_map_has_a_row_for_every_selected_function() {
    let data = data_dir();
    let api = ApiMap::load(&data.join("se-bench/api_doc.jsonl")).expect("api doc");
    let loaded = load_rollout_file(&data.join("parity/rollouts.jsonl")).expect("rollouts");
    let official: Vec<Value> = std::fs::read_to_string(data.join("parity/official_verdicts.jsonl"))
        .expect("verdicts")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(loaded.rollouts.len(), official.len());

    let mut set = RunSet::default();
    let run = set.add_run("parity");
    let mut selected = BTreeSet::new();
    for (rollout, o) in loaded.rollouts.iter().zip(&official) {
        let verdict = o["verdict"]
            .as_str()
            .and_then(Verdict::parse)
            .expect("official verdict");
        selected.extend(rollout.selected_functions.iter().cloned());
        set.add_rollout(run, rollout, verdict, &api, None, None);
    }
    let rows = function_map(&set, Some(run), FunctionSort::Name);

    // The corpus selects linalg functions spelt bare, as the real datasets do.
    for bare in ["inv", "solve", "svd", "eig"] {
        assert!(selected.contains(bare), "the corpus selects `{bare}`");
    }
    let mut missing = Vec::new();
    for name in &selected {
        let row = rows
            .iter()
            .find(|r| r.numpy == format!("np.{name}") || r.numpy == format!("np.linalg.{name}"));
        match row {
            None => missing.push(name.clone()),
            Some(r) => {
                assert_eq!(
                    api.numpy_name(&r.zwc),
                    Some(r.numpy.as_str()),
                    "{name}: the row's zwc name is the API doc's"
                );
                assert!(r.rollouts > 0, "{name}: the row counts its rollouts");
            }
        }
    }
    assert!(
        missing.is_empty(),
        "selected functions without a row: {missing:?}"
    );
    assert_eq!(rows.len(), selected.len(), "one row per selected function");
    assert!(
        set.unknown_selected.is_empty(),
        "the API doc knows every selected function: {:?}",
        set.unknown_selected
    );

    // Linalg functions are named under zwc.rfx; names in both modules are the top-level ones,
    // which is what the tasks mean (their reference solutions call np.cross, np.trace).
    let zwc_of = |numpy: &str| {
        rows.iter()
            .find(|r| r.numpy == numpy)
            .map(|r| r.zwc.clone())
            .unwrap_or_default()
    };
    assert!(zwc_of("np.linalg.inv").starts_with("zwc.rfx."));
    assert!(zwc_of("np.linalg.svd").starts_with("zwc.rfx."));
    if selected.contains("trace") {
        assert!(!zwc_of("np.trace").starts_with("zwc.rfx."));
    }
}

/// A selected function the API doc does not know has no row, and `sebx stats` says so
/// rather than printing a short map in silence.
#[test]
fn stats_names_selected_functions_the_api_doc_lacks() {
    use assert_cmd::prelude::*;
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run.jsonl");
    let line = |selected: &str| {
        serde_json::json!({
            "query": format!("Use {selected} on `x`."),
            "response": "```python\nimport zwc\n\ndef solve(x):\n    return x\n```",
            "test_cases": [{"input": "x=1", "output": "1"}],
            "right_exe_result": "1",
            "selected_functions": [selected],
            "verdict": "without_zwc",
        })
        .to_string()
    };
    std::fs::write(&run, [line("det"), line("no_such_fn")].join("\n") + "\n").expect("write");
    let api = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl");
    let out = std::process::Command::cargo_bin("sebx")
        .expect("binary")
        .args(["stats", "--format", "json", "-q", "--api-doc"])
        .arg(&api)
        .arg(&run)
        .env("SEBX_SCORE_CACHE", dir.path().join("cache"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let functions: Vec<&str> = v["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .filter_map(|f| f["numpy"].as_str())
        .collect();
    // The demo follows the real spelling: `det` is `np.linalg.det`.
    assert_eq!(functions, vec!["np.linalg.det"], "{v}");
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("not in the API doc") && notes.contains("no_such_fn"),
        "{notes}"
    );
}
