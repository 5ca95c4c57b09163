//! Labels survive SIGKILL: the real binary in tmux labels three rollouts of a temp copy of
//! the demo, is killed with `kill -9`, is reopened, and shows all three labels.

use crate::tmux_support;
use tmux_support::{
    DemoCopy, kill_9, quoted, sebx_bin, send, session_name, start_session, status_line,
    tmux_missing, wait_for,
};

#[test]
fn three_labels_survive_sigkill() {
    if tmux_missing() {
        return;
    }
    let demo = DemoCopy::new();
    let total = demo.total;

    let name = session_name("sebx-labels-test");
    let session = demo.open(&name);
    send(&name, &["L"]);
    wait_for(&name, "label mode", |s| s.contains("Labels · tester"));
    // Row 1: NumPy import (key 1); row 2: NumPy name on zwc (2); row 3: Logic error (8).
    for (keys, label) in [
        (vec!["1"], "NumPy import"),
        (vec!["j", "2"], "NumPy name on zwc"),
        (vec!["j", "8"], "Logic error"),
    ] {
        send(&name, &keys);
        wait_for(&name, label, |s| {
            status_line(s).contains(&format!(
                "saved to {}: {label}",
                demo.path("rollouts.jsonl.labels.jsonl").display()
            ))
        });
    }
    kill_9(&name);
    drop(session);

    // On disk: three records, one per rollout, and the rollout file untouched.
    let sidecar = std::fs::read_to_string(demo.path("rollouts.jsonl.labels.jsonl"))
        .expect("the label sidecar exists");
    let records: Vec<serde_json::Value> = sidecar
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a record"))
        .collect();
    let categories: Vec<&str> = records
        .iter()
        .map(|r| r["categories"][0].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        categories,
        vec!["numpy_import", "numpy_name_on_zwc", "logic_error"]
    );
    assert!(records.iter().all(|r| r["annotator"] == "tester"));
    assert_eq!(std::fs::read(&demo.file).expect("read"), demo.original);

    // Reopened: the title counts three, and the "labelled" filter shows exactly those rows.
    let name2 = format!("{name}-again");
    let _again = demo.open(&name2);
    // (Unscored here: no failure is known, so the count is of every label.)
    let counted = "3 labelled in 1 run (no failure graded yet)".to_string();
    let screen = wait_for(&name2, "the labels", |s| s.contains(&counted));
    assert!(screen.contains(&counted), "{screen}");
    send(&name2, &["F", "F"]);
    let filtered = wait_for(&name2, "the label filter", |s| {
        status_line(s).contains("label=any")
    });
    assert!(
        filtered
            .lines()
            .next()
            .unwrap_or("")
            .contains(&format!("3 of {total}")),
        "{filtered}"
    );
    let marked = filtered
        .lines()
        .filter(|l| l.starts_with('│') && l.chars().nth(3) == Some('•'))
        .count();
    assert_eq!(marked, 3, "labelled rows carry the mark: {filtered}");
    send(&name2, &["L"]);
    let panel = wait_for(&name2, "label mode", |s| s.contains("Labels · tester"));
    assert!(panel.contains("✓NumPy import"), "{panel}");
}

/// `r` then `e` in a real terminal, with the real grader (Python runtime required) and an
/// "editor" that swaps `zwc.mean` for `zwc.kocito` in place: the screen is left for the
/// editor, restored, and shows the what-if beside the rerun.
#[test]
fn rerun_and_what_if_through_the_editor() {
    if tmux_missing() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("run.jsonl");
    let code = "import zwc\n\ndef solve(grid):\n    return zwc.mean(zwc.yitaf(grid), axis=1)\n";
    let line = serde_json::json!({
        "query": "Return the average of each row of `grid` as a list.",
        "response": format!("Here it is.\n\n```python\n{code}```\n"),
        "test_cases": [{"input": "grid=[[1, 3], [2, 4]]", "output": "[2.0, 3.0]"}],
        "right_exe_result": "[2.0, 3.0]",
    });
    std::fs::write(&file, format!("{line}\n")).expect("write the run");
    let api = dir.path().join("api_doc.jsonl");
    std::fs::write(
        &api,
        r#"{"func_mapping": {"np.mean": "zwc.kocito", "np.array": "zwc.yitaf"}}"#,
    )
    .expect("write the API doc");
    let name = session_name("sebx-what-if-test");
    // HOME, and so the user's cache where the managed Python runtime lives, is kept: this
    // test grades for real.
    let cmd = format!(
        "env XDG_CONFIG_HOME={d} SEBX_DATA_DIR={d} SEBX_SCORE_CACHE={scores} EDITOR='sed -i s/zwc.mean/zwc.kocito/' VISUAL= {bin} {file} --api-doc {api}",
        d = quoted(dir.path()),
        scores = quoted(&dir.path().join("scores")),
        bin = sebx_bin(),
        file = quoted(&file),
        api = quoted(&api),
    );
    let _session = start_session(&name, (110, 34), None, &cmd);
    wait_for(&name, "the graded row", |s| s.contains("exe_error"));
    send(&name, &["r"]);
    wait_for(&name, "the rerun", |s| {
        s.contains("rerun    exe_error") && s.contains("in the rerun sidecar")
    });
    send(&name, &["e"]);
    let screen = wait_for(&name, "the what-if", |s| s.contains("would have passed"));
    assert!(
        screen.contains("`zwc.kocito` instead of `zwc.mean` → would have passed"),
        "{screen}"
    );
    assert!(screen.contains("what-if  right"), "{screen}");
    assert!(screen.contains("stored   exe_error"), "{screen}");
    let kept = std::fs::read_to_string(dir.path().join("run.jsonl.reruns.jsonl"))
        .expect("the rerun sidecar");
    assert_eq!(kept.lines().count(), 2, "{kept}");
    assert!(
        std::fs::read_to_string(&file)
            .expect("read")
            .contains("zwc.mean"),
        "the rollout file keeps its code"
    );
}
