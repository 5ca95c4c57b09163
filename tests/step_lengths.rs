//! Response length per step and the raw line (issue 30): a verl dump written here, whose
//! responses' lengths, empty outputs and open code fences are known, with the extra keys a
//! real dump carries (`acc`, `pred`, `request_id`). `sebx stats --by step` (JSON, CSV,
//! Markdown, text) and the explorer's Training screen show the lengths; `D` on a sample
//! shows its line as stored, every key and the whole prompt. Graded through the real
//! engine (Python runtime required: `sebx runtime install`).

use crate::tui_common;

use crate::isolated;

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

/// A word-level tokenizer.json written by hand: whitespace splits, and every word is one
/// token (unknown words become `[UNK]`), so a response has as many tokens as words. Its
/// truncation (at 3) must not cut the counts.
fn word_tokenizer(dir: &Path) -> PathBuf {
    let path = dir.join("tokenizer.json");
    let json = json!({
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": 3, "strategy": "LongestFirst", "stride": 0},
        "padding": null,
        "added_tokens": [],
        "normalizer": null,
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "import": 1, "zwc": 2}, "unk_token": "[UNK]"},
    });
    std::fs::write(&path, json.to_string()).expect("tokenizer");
    path
}

/// Mean and nearest-rank 90th percentile of the responses' words.
fn words_mean_p90(texts: &[String]) -> (f64, u64) {
    let mut n: Vec<u64> = texts
        .iter()
        .map(|t| t.split_whitespace().count() as u64)
        .collect();
    n.sort_unstable();
    let mean = n.iter().sum::<u64>() as f64 / n.len() as f64;
    (mean, n[(9 * n.len()).div_ceil(10) - 1])
}

/// `sebx stats` in `root`'s score cache (and its remembered figures).
fn stats_in(root: &Path, run: &Path, dataset: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sebx"));
    isolated::isolate_in(&mut cmd, root)
        .arg("stats")
        .arg(run)
        .arg(dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--quiet", "--by", "step"])
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn stats_by_step_counts_tokens_with_a_tokenizer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let tokenizer = word_tokenizer(dir.path());
    let tok = tokenizer.to_str().expect("utf-8 path");
    let root = dir.path().join("isolated");
    let json_of = |args: &[&str]| -> Value {
        let out = stats_in(&root, &run, &dataset, args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("json")
    };

    // Without a tokenizer the keys are there, null; the figures are then remembered.
    let plain = json_of(&["--format", "json"]);
    for s in plain["steps"].as_array().expect("steps") {
        assert!(s["response_tokens_mean"].is_null(), "{s}");
        assert!(s["response_tokens_p90"].is_null(), "{s}");
    }
    // With one, the same files give other figures (not the remembered ones).
    let counted = json_of(&["--format", "json", "--tokenizer", tok]);
    let steps = counted["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "{counted:#}");
    for (s, (step, texts)) in steps.iter().zip(responses()) {
        assert_eq!(s["step"], step, "{s}");
        let (mean, p90) = words_mean_p90(&texts);
        let got = s["response_tokens_mean"].as_f64().expect("a mean");
        assert!((got - mean).abs() < 1e-9, "step {step}: {got} vs {mean}");
        assert_eq!(s["response_tokens_p90"], p90, "step {step}: {s}");
        // The characters are unchanged beside them.
        let (chars, _) = mean_p90(&texts);
        let got = s["response_chars_mean"].as_f64().expect("chars");
        assert!((got - chars).abs() < 1e-9, "{s}");
    }

    // CSV, Markdown and text: the columns, only with a tokenizer.
    let text_of = |args: &[&str]| {
        let out = stats_in(&root, &run, &dataset, args);
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let csv = text_of(&["--format", "csv", "--tokenizer", tok]);
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
    let [(_, one), _] = responses();
    let (mean1, p90_1) = words_mean_p90(&one);
    assert_eq!(cell("response_tokens_mean"), format!("{mean1:.0}"), "{csv}");
    assert_eq!(cell("response_tokens_p90"), p90_1.to_string(), "{csv}");
    assert!(!text_of(&["--format", "csv"]).contains("response_tokens"));
    let md = text_of(&["--format", "md", "--tokenizer", tok]);
    assert!(
        md.contains("| response_chars_p90 | response_tokens_mean | response_tokens_p90 |"),
        "{md}"
    );
    assert!(text_of(&["--tokenizer", tok]).contains("response_tokens_p90"));
}

#[test]
fn a_bad_tokenizer_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let junk = dir.path().join("junk-tokenizer.json");
    std::fs::write(&junk, r#"{"model": {"type": "Nonsense"}}"#).expect("junk");
    let missing = dir.path().join("no-such-tokenizer.json");
    for (file, why) in [
        (&junk, "not a HuggingFace tokenizer.json"),
        (&missing, "cannot read the tokenizer"),
    ] {
        let out = stats_in(
            &dir.path().join("isolated"),
            &run,
            &dataset,
            &[
                "--format",
                "json",
                "--tokenizer",
                file.to_str().expect("path"),
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let name = file.file_name().expect("name").to_string_lossy();
        assert!(stderr.contains(&*name) && stderr.contains(why), "{stderr}");
        assert!(
            out.stdout.is_empty(),
            "no figures without the counts asked for"
        );

        // The explorer says the same before it opens.
        let mut args = ExploreArgs {
            paths: vec![run.clone()],
            tokenizer: Some(file.clone()),
            ..isolated::explore_args()
        };
        args.context.dataset = vec![dataset.clone()];
        let Err(e) = sebx::tui::explore::open_default(&args) else {
            panic!("the explorer opened with {}", file.display());
        };
        let e = format!("{e:#}");
        assert!(e.contains(&*name) && e.contains(why), "{e}");
    }
}

/// The explorer on the run written in `dir`, graded, with the word-level tokenizer, at 140×30.
fn graded_with_tokenizer(dir: &Path) -> sebx::tui::App {
    let (dataset, run) = write_run(dir);
    let mut args = ExploreArgs {
        paths: vec![run],
        tokenizer: Some(word_tokenizer(dir)),
        ..isolated::explore_args()
    };
    args.context.api_doc = Some(api_doc());
    args.context.dataset = vec![dataset];
    tui_common::open_graded(&args, 140, 30).0.app
}

#[test]
fn the_training_screen_shows_tokens_beside_chars() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = graded_with_tokenizer(dir.path());
    press(&mut app, KeyCode::Char('T'));
    assert!(app.training.open && app.training.result.is_some());
    let screen = drawn(&app);
    let [_, (_, two)] = responses();
    let (mean, p90) = mean_p90(&two);
    let (t_mean, t_p90) = words_mean_p90(&two);
    let length = screen
        .lines()
        .find(|l| l.contains("length (chars)"))
        .unwrap_or_else(|| panic!("no length curve: {screen}"));
    assert!(
        length.contains(&format!(
            "{mean:.0} chars, p90 {p90} · {t_mean:.0} tokens, p90 {t_p90} at the last step"
        )),
        "{length}"
    );
    // Narrower: the 90th percentiles give way, the tokens stay.
    app.update(&sebx::tui::Action::Resize {
        width: 75,
        height: 30,
    });
    let screen = drawn(&app);
    assert!(
        screen.contains(&format!(
            "{mean:.0} chars · {t_mean:.0} tokens at the last step"
        )),
        "{screen}"
    );
}

/// The Training screen with a tokenizer draws its figures without waiting for the tokens:
/// the length line says they are being counted (the count job's progress) until the count
/// job has finished, then shows them. The jobs are run one by one, as the workers would.
#[test]
fn the_training_screen_shows_chars_while_tokens_are_counted() {
    use sebx::tui::jobs::{self, JobEvent, JobRequest};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = graded_with_tokenizer(dir.path());
    let event = ratatui::crossterm::event::Event::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('T'),
        ratatui::crossterm::event::KeyModifiers::NONE,
    ));
    let action = sebx::tui::run::action_for_event(&app, &event).expect("T is a key");
    app.update(&action);
    let (counts, others): (Vec<JobRequest>, Vec<JobRequest>) = app
        .take_requests()
        .into_iter()
        .partition(|r| matches!(r, JobRequest::CountTokens(_)));
    let [JobRequest::CountTokens(count)] = counts.as_slice() else {
        panic!("one count job asked for: {counts:?}");
    };
    // The figures first, the count job not run yet.
    for req in others {
        if let Some(ev) = jobs::run_request(req, None) {
            app.on_job(ev);
        }
    }
    let [_, (_, two)] = responses();
    let (mean, p90) = mean_p90(&two);
    let (t_mean, t_p90) = words_mean_p90(&two);
    let length_line = |app: &App| {
        let screen = drawn(app);
        screen
            .lines()
            .find(|l| l.contains("length (chars)"))
            .unwrap_or_else(|| panic!("no length curve: {screen}"))
            .to_string()
    };
    let line = length_line(&app);
    assert!(
        line.contains(&format!(
            "{mean:.0} chars, p90 {p90} at the last step · tokens: counting… 0%"
        )),
        "{line}"
    );
    assert!(!line.contains("tokens, p90"), "{line}");
    // The count job: its progress, then done.
    let mut events = Vec::new();
    jobs::training::count_tokens(count, &mut |e| events.push(e));
    let Some(JobEvent::TokensCounted {
        counted: 0,
        total,
        done: false,
    }) = events.first().cloned()
    else {
        panic!("the count job starts with nothing counted: {events:?}");
    };
    assert!(total > 0);
    let Some(last) = events.pop() else {
        panic!("no event")
    };
    assert!(
        matches!(last, JobEvent::TokensCounted { done: true, counted, .. } if counted == total)
    );
    for e in events {
        app.on_job(e);
        assert!(length_line(&app).contains("tokens: counting…"));
    }
    app.on_job(last);
    app.settle();
    sebx::tui::inline::drain_inline(&mut app, None);
    let line = length_line(&app);
    assert!(
        line.contains(&format!(
            "{mean:.0} chars, p90 {p90} · {t_mean:.0} tokens, p90 {t_p90} at the last step"
        )),
        "{line}"
    );
    // Counted once: a refresh asks for no other count.
    app.training.stale = true;
    app.settle();
    assert!(
        !app.take_requests()
            .iter()
            .any(|r| matches!(r, JobRequest::CountTokens(_)))
    );
}
