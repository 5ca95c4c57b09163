//! `--learned-at`: the share of a step's samples that must be right for the step to solve a
//! task or function, on a small generated verl run (two tasks, two steps, GRPO groups of
//! eight) graded through the real engine (Python runtime required: `sebx runtime install`).
//! Both functions end 3 of 8 right: `np.sum` after 4 of 8 (forgotten at half, learned at
//! 3/8), `np.mean` after 2 of 8 (never solved at half, first solved at step 2 at 3/8 and at
//! step 1 at a quarter). `sebx stats --by course --format json` and the explorer's Training
//! screen (course line and the "first step solved" order) are checked against that schedule.

use crate::tui_common;

use crate::isolated;

use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};

use sebx::grade::runs::LearnedAt;
use sebx::tui::App;
use sebx::tui::explore::ExploreArgs;
use sebx::tui::run::action_for_event;

const GROUP: usize = 8;

fn api_doc() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl")
}

/// (NumPy name, zwc name, query, right answer, wrong answer, right of eight at step 1, 2).
type Task = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    [usize; 2],
);

const TASKS: [Task; 2] = [
    (
        "mean",
        "zwc.kocito",
        "Given a list `values`, return their arithmetic mean as a float.",
        "return float(zwc.kocito(values))",
        "return float(zwc.kocito(values)) + 1",
        [2, 3],
    ),
    (
        "sum",
        "zwc.baluvo",
        "Given a list `values`, return their total as an int.",
        "return int(zwc.baluvo(values))",
        "return int(zwc.baluvo(values)) + 1",
        [4, 3],
    ),
];

/// The expected outputs of a task's two cases.
fn expected(numpy: &str) -> [&'static str; 2] {
    if numpy == "mean" {
        ["2.0", "4.0"]
    } else {
        ["6", "4"]
    }
}

/// Writes the dataset and `exp/rollout/{1,2}.jsonl`; returns (dataset, run folder).
fn write_run(dir: &Path) -> (PathBuf, PathBuf) {
    let dataset = dir.join("train.jsonl");
    let lines: Vec<String> = TASKS
        .iter()
        .map(|(numpy, _, query, ..)| {
            let out = expected(numpy);
            json!({
                "query": query,
                "function_name": "def solve(values):",
                "selected_functions": [numpy],
                "test_cases": [{"input": "values=[1, 2, 3]", "output": out[0]},
                               {"input": "values=[4]", "output": out[1]}],
                "right_exe_result": out.join("#"),
            })
            .to_string()
        })
        .collect();
    std::fs::write(&dataset, lines.join("\n") + "\n").expect("dataset");
    let run = dir.join("exp").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    for step in [1u32, 2] {
        let mut text = String::new();
        for (numpy, _, query, right, wrong, schedule) in TASKS {
            let prompt = format!(
                "user\nSolve with zwc.\n\n### Problem\n{query}\n\n### Function to Complete\ndef solve(values):\nassistant\n"
            );
            for k in 0..GROUP {
                let ok = k < schedule[step as usize - 1];
                let body = if ok { right } else { wrong };
                let line = json!({
                    "input": prompt,
                    "output": format!("```python\nimport zwc\n\ndef solve(values):\n    {body}\n```"),
                    "gts": expected(numpy).join("#"),
                    "score": if ok { 1.0 } else { 0.0 },
                    "step": step,
                });
                text.push_str(&format!("{line}\n"));
            }
        }
        std::fs::write(run.join(format!("{step}.jsonl")), text).expect("step file");
    }
    (dataset, run)
}

/// (first solved, status) of each function, by the schedule, at `share`.
fn want(share: f64) -> [(Value, &'static str); 2] {
    match share {
        0.5 => [(Value::Null, "never_solved"), (json!(1), "forgotten")],
        0.375 => [(json!(2), "learned"), (json!(1), "learned")],
        0.25 => [(json!(1), "learned"), (json!(1), "learned")],
        _ => unreachable!(),
    }
}

fn stats(dir: &Path, run: &Path, dataset: &Path, extra: &[&str]) -> std::process::Output {
    isolated::assert_sebx()
        .current_dir(dir)
        .arg("stats")
        .arg(run)
        .arg("--dataset")
        .arg(dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--by", "course", "--format", "json", "-q"])
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
fn stats_courses_follow_the_threshold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    for (flag, share) in [
        (None, 0.5),
        (Some("0.375"), 0.375),
        (Some("37.5%"), 0.375),
        (Some("0.25"), 0.25),
    ] {
        let out = stats(
            dir.path(),
            &run,
            &dataset,
            &flag.map_or(vec![], |f| vec!["--learned-at", f]),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(
            report["learned_at"],
            json!(share),
            "the JSON states the threshold"
        );
        let courses = report["function_courses"]
            .as_array()
            .expect("function courses");
        for ((numpy, zwc, ..), (first, status)) in TASKS.iter().zip(want(share)) {
            let c = courses
                .iter()
                .find(|c| c["name"] == *zwc)
                .unwrap_or_else(|| panic!("no course of {numpy}: {courses:?}"));
            assert_eq!(
                (&c["first_solved"], c["status"].as_str()),
                (&first, Some(status)),
                "{numpy} at {share}"
            );
            assert_eq!(c["last_accuracy"], json!(3.0 / 8.0), "{numpy}");
        }
        // The task courses follow the same threshold (a task per function here).
        let tasks = report["task_courses"].as_array().expect("task courses");
        let statuses: Vec<&str> = TASKS
            .iter()
            .map(|t| {
                tasks
                    .iter()
                    .find(|c| c["name"] == t.2)
                    .and_then(|c| c["status"].as_str())
                    .expect("a task course")
            })
            .collect();
        assert_eq!(statuses, want(share).map(|w| w.1), "tasks at {share}");
    }
    // The table names the threshold in force.
    let out = isolated::assert_sebx()
        .current_dir(dir.path())
        .arg("stats")
        .arg(&run)
        .arg("--dataset")
        .arg(&dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--by", "course", "-q", "--learned-at", "75%"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("solved: at least 75% of a step's samples right"),
        "{text}"
    );
    // Shares out of (0, 1] are refused before anything is loaded, saying what is allowed.
    for bad in ["0", "1.5", "NaN", "101%", "half"] {
        let out = stats(dir.path(), &run, &dataset, &["--learned-at", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--learned-at") && err.contains(bad),
            "{bad}: {err}"
        );
    }
}

fn press(app: &mut App, key: KeyCode) {
    let event = Event::Key(KeyEvent::new(key, KeyModifiers::NONE));
    if let Some(action) = action_for_event(app, &event) {
        app.update(&action);
    }
    sebx::tui::inline::drain_inline(app, None);
}

fn drawn(app: &App) -> String {
    let (w, h) = app.size;
    tui_common::screen(&tui_common::draw(app, w, h))
}

/// The Training screen opened on the run with `sebx FILES --learned-at SHARE`: the course
/// line of each function and the "first step solved" order follow the threshold.
#[test]
fn the_training_screen_follows_the_threshold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    for share in [0.5, 0.375, 0.25] {
        let mut args = ExploreArgs {
            paths: vec![run.clone()],
            learned_at: LearnedAt::new(share).expect("share"),
            ..isolated::explore_args()
        };
        args.context.api_doc = Some(api_doc());
        args.context.dataset = vec![dataset.clone()];
        let (session, _backend) = tui_common::open_graded(&args, 160, 40);
        let mut app = session.app;
        press(&mut app, KeyCode::Char('T'));
        let names = |app: &App| -> Vec<String> {
            let map = app.training.map().expect("a heat map");
            map.rows.iter().map(|r| r.2.clone()).collect()
        };
        assert_eq!(names(&app), ["np.mean", "np.sum"], "by name at first");
        for (row, (first, status)) in want(share).into_iter().enumerate() {
            assert_eq!(app.training.cell.0, row);
            let screen = drawn(&app);
            // The course line, wrapped to two screen lines where long: read as one.
            let lines: Vec<&str> = screen.lines().collect();
            let at = lines
                .iter()
                .position(|l| l.contains("over the run: "))
                .unwrap_or_else(|| panic!("no course line:\n{screen}"));
            let strip = |l: &str| {
                l.trim_matches(|c: char| c == '│' || c.is_whitespace())
                    .to_string()
            };
            let line = format!(
                "{} {}",
                strip(lines[at]),
                lines.get(at + 1).map_or(String::new(), |l| strip(l))
            );
            let want_course = match (status, first.as_u64()) {
                ("never_solved", None) => {
                    "over the run: never solved (37.5% right at its last step".to_string()
                }
                ("learned", Some(s)) => format!("over the run: learned: solved from step {s},"),
                ("forgotten", Some(s)) => format!(
                    "over the run: forgotten: solved at step {s}, not at its last step (37.5% right"
                ),
                other => panic!("no course of that kind: {other:?}"),
            };
            assert!(
                line.contains(&want_course)
                    && line.contains(&format!("solved: at least {}", args.learned_at)),
                "{share}: {line} (wanted {want_course})"
            );
            press(&mut app, KeyCode::Down);
        }
        // `s`: by first step solved (never last; ties by name).
        press(&mut app, KeyCode::Char('s'));
        assert!(drawn(&app).contains("by first step solved"));
        let order = if share == 0.25 {
            ["np.mean", "np.sum"]
        } else {
            ["np.sum", "np.mean"]
        };
        assert_eq!(names(&app), order, "at {share}");
    }
}
