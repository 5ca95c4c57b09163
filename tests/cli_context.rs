//! Every command that reads rollouts takes `--api-doc` and `--dataset` the same way: one
//! flattened `ContextArgs`, so their help text is the same everywhere.

use crate::isolated;

fn help(args: &[&str]) -> String {
    let out = isolated::sebx()
        .args(args)
        .arg("--help")
        .env("NO_COLOR", "1")
        .output()
        .expect("sebx runs");
    assert!(out.status.success(), "{args:?} --help failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The lines of the `--api-doc` and `--dataset` entries (the flag line and its wrapped
/// description, up to the next flag).
fn context_help(text: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with('-') {
            inside = t.starts_with("--api-doc") || t.starts_with("--dataset");
        }
        if inside {
            out.push(t.to_string());
        }
    }
    // Columns are aligned (or descriptions put on the next line) per command: compare
    // words, not layout.
    out.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn api_doc_and_dataset_flags_read_the_same_in_every_command() {
    let commands: [&[&str]; 8] = [
        &["grade"],
        &["rerun"],
        &["analyze"],
        &["graph"],
        &["labels", "export"],
        &["stats"],
        &["serve"],
        &["explore"],
    ];
    let reference = context_help(&help(commands[0]));
    assert!(reference.contains("--api-doc <FILE>"), "{reference}");
    assert!(reference.contains("--dataset <FILE>"), "{reference}");
    for cmd in &commands[1..] {
        assert_eq!(context_help(&help(cmd)), reference, "{cmd:?}");
    }
}

/// An `api_doc.jsonl` beside the rollout file is found without a flag (the presenter's
/// message promises it): `sebx analyze` checks names against it and says where it came from.
#[test]
fn an_api_doc_beside_the_rollouts_is_found() {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(demo.join("api_doc.jsonl"), dir.path().join("api_doc.jsonl")).expect("copy");
    let line = serde_json::json!({
        "query": "q",
        "response": "```python\nimport zwc\ndef solve(values):\n    return zwc.mean(values)\n```",
        "test_cases": [{"input": "values=[1, 2]", "output": "1.5"}],
        "right_exe_result": "1.5",
    });
    let file = dir.path().join("run.jsonl");
    std::fs::write(&file, format!("{line}\n")).expect("write");
    let out = isolated::sebx()
        .current_dir(dir.path())
        .arg("analyze")
        .arg(&file)
        .output()
        .expect("sebx runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("(beside the rollouts)"), "{stderr}");
    // `zwc.mean` is NumPy's name on zwc: the API doc said so.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("numpy_name_on_zwc"), "{stdout}");
    assert!(stdout.contains("zwc.kocito"), "{stdout}");
}
