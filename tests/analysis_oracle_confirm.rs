//! `sebx analyze --confirm`: each rollout run once under the tracer, every finding that
//! claims a crash settled against the run (Python runtime required). `possible` findings
//! come out confirmed, refuted or not reached as the run shows, and a second run takes the
//! traces from the cache.

use std::process::Command;

use serde_json::{Value, json};

fn rollout(code: &str, inputs: &[&str]) -> String {
    let cases: Vec<Value> = inputs
        .iter()
        .map(|i| json!({"input": i, "output": "0"}))
        .collect();
    json!({
        "query": "q",
        "response": format!("Here.\n```python\n{code}```\n"),
        "test_cases": cases,
        "right_exe_result": vec!["0"; inputs.len()].join("#"),
    })
    .to_string()
}

fn settled(confirm: &Value, name: &str) -> (String, String) {
    let f = confirm["findings"]
        .as_array()
        .and_then(|fs| fs.iter().find(|f| f["name"] == name))
        .unwrap_or_else(|| panic!("no settled finding {name}: {confirm}"));
    (
        f["severity"].as_str().unwrap_or("").to_string(),
        f["settled"]["settled"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn confirm_settles_possible_findings_by_running_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl");
    // `zwc.sifalo` is the demo's sqrt: on a list a ZWCArray (no `.tolist()`), on a number a
    // NumPy scalar (which has one). Cases that pass both leave the analysis unsure.
    let sqrt = "import zwc\ndef solve(x):\n    return zwc.sifalo(x).tolist()\n";
    let lines = [
        // The list comes first: the first run raises and ends the program.
        rollout(sqrt, &["x=[1, 4]", "x=4"]),
        // The number first: `.tolist()` works once, so the finding is refuted.
        rollout(sqrt, &["x=4", "x=[1, 4]"]),
        // Never reached: the branch needs a string.
        rollout(
            "import zwc\ndef solve(x):\n    if isinstance(x, str):\n        return zwc.sifalo(x).item()\n    return 0\n",
            &["x=[1, 4]", "x=4"],
        ),
        // Certain: an error finding, confirmed.
        rollout(
            "import zwc\ndef solve(x):\n    return zwc.yitaf(x).tolist()\n",
            &["x=[1, 4]"],
        ),
    ];
    let file = dir.path().join("run.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let run = |out: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_sebx"))
            .args(["analyze", "--confirm", "--api-doc"])
            .arg(&demo)
            .arg(&file)
            .arg("-o")
            .arg(dir.path().join(out))
            .env("SEBX_TRACE_CACHE", dir.path().join("traces"))
            .output()
            .expect("sebx runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(dir.path().join(out)).expect("output");
        let values: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        (values, String::from_utf8_lossy(&output.stdout).to_string())
    };
    let (first, summary) = run("a.jsonl");
    assert_eq!(first.len(), 4);
    assert_eq!(
        settled(&first[0]["confirm"], "tolist"),
        ("possible".into(), "confirmed".into())
    );
    assert_eq!(
        settled(&first[1]["confirm"], "tolist"),
        ("possible".into(), "refuted".into())
    );
    assert_eq!(
        settled(&first[2]["confirm"], "item"),
        ("possible".into(), "not_reached".into())
    );
    assert_eq!(
        settled(&first[3]["confirm"], "tolist"),
        ("error".into(), "confirmed".into())
    );
    assert_eq!(first[0]["confirm"]["crash"]["exception"], "AttributeError");
    assert!(
        first[1]["confirm"]["findings"][0]["settled"]["why"]
            .as_str()
            .is_some_and(|w| w.contains("numpy_scalar"))
    );
    assert!(summary.contains("0 traces from the cache"), "{summary}");

    let (second, summary) = run("b.jsonl");
    assert!(summary.contains("4 traces from the cache"), "{summary}");
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a["confirm"]["findings"], b["confirm"]["findings"]);
        assert_eq!(b["confirm"]["cached"], true);
    }
}
