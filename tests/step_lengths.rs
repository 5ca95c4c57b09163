//! Response length per step and the raw line (issue 30): a verl dump written here, whose
//! responses' lengths, empty outputs and open code fences are known, with the extra keys a
//! real dump carries (`acc`, `pred`, `request_id`). `sebx stats --by step` (JSON, CSV,
//! Markdown, text) and the explorer's Training screen show the lengths; `D` on a sample
//! shows its line as stored, every key and the whole prompt. Graded through the real
//! engine (Python runtime required: `sebx runtime install`).

mod tui_common;

#[path = "common/isolated.rs"]
mod isolated;

use std::path::{Path, PathBuf};

use ratatui::crossterm::event::KeyCode;
use serde_json::{Value, json};

use sebx::tui::App;
use sebx::tui::explore::ExploreArgs;
use sebx::tui::inline::load_inline;
use tui_common::{drawn, press};

const MEAN_Q: &str = "Given a list `values`, return their arithmetic mean as a float.";
/// A line of the docs section only the prompt has (the list shows the problem alone).
const DOCS_LINE: &str = "- zwc.kocito(a, axis=None): the arithmetic mean of the elements";

fn api_doc() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl")
}

fn prompt() -> String {
    format!(
        "user\nSolve with zwc.\n\n### zwc Codebase Functions\n{DOCS_LINE}\n\n### Problem\n{MEAN_Q}\n\n### Test Cases\nvalues=[1, 2, 3]\n\n### Function to Complete\ndef solve(values):\nassistant\n"
    )
}

fn code(body: &str) -> String {
    format!("```python\nimport zwc\n\ndef solve(values):\n    {body}\n```")
}

/// The responses of each step: step 1 has a right answer, an aborted request (empty), one
/// cut off inside its code block and prose alone; step 2 two right answers and one whose
/// second block never closes (three fences).
fn responses() -> [(u32, Vec<String>); 2] {
    let right = code("return float(zwc.kocito(values))");
    [
        (
            1,
            vec![
                right.clone(),
                String::new(),
                "```python\nimport zwc\n\ndef solve(values):\n    return float(zwc.koc".into(),
                "The mean is the sum over the count — easy.".into(),
            ],
        ),
        (
            2,
            vec![
                right.clone(),
                format!("<think>\nkocito is the mean\n</think>\n{right}"),
                format!("{right}\n\nOr, printing it:\n\n```python\nprint(zwc.kocito("),
            ],
        ),
    ]
}

/// Mean and nearest-rank 90th percentile of the lengths in characters, by hand.
fn mean_p90(texts: &[String]) -> (f64, u64) {
    let mut n: Vec<u64> = texts.iter().map(|t| t.chars().count() as u64).collect();
    n.sort_unstable();
    let mean = n.iter().sum::<u64>() as f64 / n.len() as f64;
    let rank = (9 * n.len()).div_ceil(10);
    (mean, n[rank - 1])
}

/// Writes the dataset and the dump (`exp/rollout/{1,2}.jsonl`); returns (dataset, run).
fn write_run(dir: &Path) -> (PathBuf, PathBuf) {
    let dataset = dir.join("train.jsonl");
    std::fs::write(
        &dataset,
        json!({
            "query": MEAN_Q,
            "function_name": "def solve(values):",
            "selected_functions": ["mean"],
            "test_cases": [{"input": "values=[1, 2, 3]", "output": "2.0"}, {"input": "values=[4]", "output": "4.0"}],
            "right_exe_result": "2.0#4.0",
        })
        .to_string(),
    )
    .expect("dataset");
    let run = dir.join("exp").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    for (step, texts) in responses() {
        let lines: Vec<String> = texts
            .iter()
            .enumerate()
            // Keys in verl's order (`json!` would sort them), the extra ones last.
            .map(|(i, output)| {
                format!(
                    r#"{{"input": {}, "output": {}, "gts": "2.0#4.0", "score": 0.0, "step": {step}, "acc": false, "pred": "pred-{step}-{i}", "request_id": "req-{step}-{i}"}}"#,
                    json!(prompt()),
                    json!(output)
                )
            })
            .collect();
        std::fs::write(run.join(format!("{step}.jsonl")), lines.join("\n") + "\n")
            .expect("step file");
    }
    (dataset, run)
}

fn stats(dir: &Path, run: &Path, dataset: &Path, args: &[&str]) -> String {
    let out = isolated::sebx()
        .current_dir(dir)
        .arg("stats")
        .arg(run)
        .arg(dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--quiet", "--by", "step"])
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn stats_by_step_has_the_lengths_empties_and_open_fences() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let [(_, one), (_, two)] = responses();
    let ((mean1, p90_1), (mean2, p90_2)) = (mean_p90(&one), mean_p90(&two));

    let report: Value =
        serde_json::from_str(&stats(dir.path(), &run, &dataset, &["--format", "json"]))
            .expect("json");
    let steps = report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "{report:#}");
    let close = |v: &Value, x: f64| v.as_f64().is_some_and(|y| (y - x).abs() < 1e-9);
    let s1 = &steps[0];
    assert!(close(&s1["response_chars_mean"], mean1), "{s1}");
    assert_eq!(s1["response_chars_p90"], p90_1, "{s1}");
    // Step 1: the aborted request is empty; the cut-off answer has one fence.
    assert_eq!(s1["empty_outputs"], 1, "{s1}");
    assert_eq!(s1["open_fence_responses"], 1, "{s1}");
    let s2 = &steps[1];
    assert!(close(&s2["response_chars_mean"], mean2), "{s2}");
    assert_eq!(s2["response_chars_p90"], p90_2, "{s2}");
    assert_eq!(s2["empty_outputs"], 0, "{s2}");
    assert_eq!(s2["open_fence_responses"], 1, "{s2}");

    // CSV: the columns, and step 1's values in them.
    let csv = stats(dir.path(), &run, &dataset, &["--format", "csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let row: Vec<&str> = lines.next().expect("step 1").split(',').collect();
    let cell = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .and_then(|i| row.get(i).copied())
            .unwrap_or_else(|| panic!("{name} missing from {csv}"))
    };
    assert_eq!(cell("response_chars_mean"), format!("{mean1:.0}"), "{csv}");
    assert_eq!(cell("response_chars_p90"), p90_1.to_string(), "{csv}");
    assert_eq!(cell("empty_outputs"), "1");
    assert_eq!(cell("open_fence_responses"), "1");

    // Markdown and text: the same columns.
    let md = stats(dir.path(), &run, &dataset, &["--format", "md"]);
    assert!(
        md.contains(
            "| response_chars_mean | response_chars_p90 | empty_outputs | open_fence_responses |"
        ),
        "{md}"
    );
    let text = stats(dir.path(), &run, &dataset, &[]);
    assert!(
        text.contains("response_chars_p90") && text.contains("open_fence_responses"),
        "{text}"
    );
}

/// The explorer on the dump, as `sebx exp/rollout --dataset train.jsonl` opens it, every
/// sample graded, at `width`×`height`.
fn explorer(dir: &Path, width: u16, height: u16) -> App {
    let (dataset, run) = write_run(dir);
    let mut args = ExploreArgs {
        paths: vec![run],
        ..isolated::explore_args()
    };
    args.context.api_doc = Some(api_doc());
    args.context.dataset = vec![dataset];
    tui_common::open_graded(&args, width, height).0.app
}

#[test]
fn the_training_screen_has_a_length_curve_and_the_cut_off_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = explorer(dir.path(), 100, 30);
    press(&mut app, KeyCode::Char('T'));
    assert!(app.training.open && app.training.result.is_some());
    let screen = drawn(&app);
    let [_, (_, two)] = responses();
    let (mean2, p90_2) = mean_p90(&two);
    let length = screen
        .lines()
        .find(|l| l.contains("length (chars)"))
        .unwrap_or_else(|| panic!("no length curve: {screen}"));
    assert!(
        length.contains(&format!("{mean2:.0} chars, p90 {p90_2} at the last step")),
        "{length}"
    );
    // One empty response (step 1); two cut off inside a code block, one at step 2.
    assert!(
        screen
            .contains("empty outputs 1 (last step 0) · ending inside a code block 2 (last step 1)"),
        "{screen}"
    );
}

#[test]
fn d_shows_the_line_as_stored_with_every_key_and_the_whole_prompt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = explorer(dir.path(), 120, 90);
    press(&mut app, KeyCode::Char('g'));
    let entry = app.selected_entry().expect("a row").clone();
    let line = entry.rollout.line;
    let step = entry.rollout.sample.as_deref().expect("a sample").step;
    // The Response pane shows the response (and a line of the extra keys); the docs are
    // only in the prompt.
    let before = drawn(&app);
    assert!(!before.contains(DOCS_LINE), "{before}");

    press(&mut app, KeyCode::Char('D'));
    assert!(app.detail.raw_line);
    let screen = drawn(&app);
    let id = format!("request_id: req-{step}-{}", line - 1);
    for want in [
        "8 keys",
        "input, output, gts, score, step, acc, pred, request_id",
        DOCS_LINE,
        "### Test Cases",
        "### Function to Complete",
        "gts: 2.0#4.0",
        "acc: false",
        &format!("pred: pred-{step}-{}", line - 1),
        &id,
    ] {
        assert!(screen.contains(want), "{want:?} missing:\n{screen}");
    }

    // Another sample: its own line is read.
    press(&mut app, KeyCode::Char('j'));
    let next = app.selected_entry().expect("a row").clone();
    let screen = drawn(&app);
    let step = next.rollout.sample.as_deref().expect("a sample").step;
    let id = format!("request_id: req-{step}-{}", next.rollout.line - 1);
    assert!(screen.contains(&id), "{id} missing:\n{screen}");

    // D again: the response.
    press(&mut app, KeyCode::Char('D'));
    assert!(!drawn(&app).contains(&id));
}

/// The demo's dump is built into the binary: its lines are read from there, wherever the
/// explorer runs.
#[test]
fn d_reads_the_demo_line_from_the_binary() {
    use sebx::tui::app::Grading;
    use sebx::tui::explore::prepare;

    let args = ExploreArgs {
        demo_training: true,
        ..isolated::explore_args()
    };
    let mut s = prepare(&args, Grading::Available).expect("demo training session");
    s.app.update(&sebx::tui::Action::Resize {
        width: 120,
        height: 90,
    });
    load_inline(&mut s.app, &s.sources);
    let app = &mut s.app;
    press(app, KeyCode::Char('g'));
    press(app, KeyCode::Char('D'));
    let screen = drawn(app);
    assert!(
        screen.contains("samples/demo/training/rollout/1.jsonl line 1"),
        "{screen}"
    );
    assert!(screen.contains("### zwc Codebase Functions"), "{screen}");
    assert!(
        screen.contains("input, output, gts, score, step"),
        "{screen}"
    );
}
