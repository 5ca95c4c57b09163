//! `sebx analyze --confirm`: each rollout run once under the tracer, every finding that
//! claims a crash settled against the run (Python runtime required). The traced harness runs
//! every test case, even after one raised, so a settlement covers all the cases: `possible`
//! findings come out confirmed (raised in every case that reached them), confirmed on some
//! cases (raised in some, ran cleanly in others: the program breaks there on those inputs),
//! refuted (never raised where it ran) or not reached as the run shows, and a second run
//! takes the traces from the cache.

use serde_json::{Value, json};

use crate::isolated;

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
        // The list comes first: that case raises (the grader stops there), and the next
        // case still runs, where `.tolist()` works on the number: confirmed on one case of
        // two.
        rollout(sqrt, &["x=[1, 4]", "x=4"]),
        // The list case returns before the site; the number case reaches it, where
        // `.tolist()` works: the analysis (the cases pass both) is unsure, the run refutes.
        rollout(
            "import zwc\ndef solve(x, k):\n    y = zwc.sifalo(x)\n    if k:\n        return 0\n    return y.tolist()\n",
            &["x=[1, 4], k=1", "x=4, k=0"],
        ),
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
        // Caught, so only possible statically; it raises in every case: confirmed.
        rollout(
            "import zwc\ndef solve(x):\n    try:\n        return zwc.yitaf(x).tolist()\n    except AttributeError:\n        return 0\n",
            &["x=[1, 4]", "x=4"],
        ),
    ];
    let file = dir.path().join("run.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let run = |out: &str| {
        let output = isolated::sebx()
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
    assert_eq!(first.len(), 5);
    assert_eq!(
        settled(&first[0]["confirm"], "tolist"),
        ("possible".into(), "some_cases".into())
    );
    assert!(
        first[0]["confirm"]["findings"][0]["settled"]["why"]
            .as_str()
            .is_some_and(|w| w.contains("ZWCArray")
                && w.contains("in 1 of 2 cases")
                && w.contains("numpy_scalar")),
        "{}",
        first[0]["confirm"]
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
    assert_eq!(
        settled(&first[4]["confirm"], "tolist"),
        ("possible".into(), "confirmed".into())
    );
    // The first exception, which ended the first case's call (the grader's harness would
    // stop there).
    assert_eq!(first[0]["confirm"]["crash"]["exception"], "AttributeError");
    assert_eq!(first[0]["confirm"]["crash"]["case"], 0);
    assert!(
        first[1]["confirm"]["findings"][0]["settled"]["why"]
            .as_str()
            .is_some_and(|w| w.contains("numpy_scalar"))
    );
    assert!(summary.contains("0 traces from the cache"), "{summary}");

    let (second, summary) = run("b.jsonl");
    assert!(summary.contains("5 traces from the cache"), "{summary}");
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a["confirm"]["findings"], b["confirm"]["findings"]);
        assert_eq!(b["confirm"]["cached"], true);
    }
}
