//! The fixtures of the tests that follow files while the explorer is open
//! (`training_follow.rs`, `follow_live.rs`): a two-task dataset, verl sample and rollout
//! lines, and the explorer opened as `sebx FILES` opens it, driven by the loop's own step.

// Each test binary includes this file and uses only some of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::json;

use sebx::tui::App;
use sebx::tui::entry::Shown;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::jobs::{JobEvent, Workers};
use sebx::tui::run::pump;

use crate::isolated;

pub const MEAN_Q: &str = "Given a list `values`, return their arithmetic mean as a float.";
pub const SUM_Q: &str = "Given a list `values`, return their total as an int.";
pub const MEAN_RIGHT: &str = "return float(zwc.kocito(values))";
pub const SUM_RIGHT: &str = "return int(zwc.baluvo(values))";
pub const SUM_WRONG: &str = "return int(zwc.baluvo(values)) + 1";
/// How long a change may take to be read and its rows graded (a change wakes the follower
/// at once, and it looks every second anyway; grading a new program takes a fraction of one).
pub const WAIT: Duration = Duration::from_secs(30);

pub fn dataset_line(query: &str, func: &str, cases: &[(&str, &str)]) -> String {
    let expected: Vec<&str> = cases.iter().map(|c| c.1).collect();
    json!({
        "query": query,
        "function_name": "def solve(values):",
        "selected_functions": [func],
        "test_cases": cases.iter().map(|(i, o)| json!({"input": i, "output": o})).collect::<Vec<_>>(),
        "right_exe_result": expected.join("#"),
    })
    .to_string()
}

pub fn mean_cases() -> [(&'static str, &'static str); 2] {
    [("values=[1, 2, 3]", "2.0"), ("values=[4]", "4.0")]
}

pub fn sum_cases() -> [(&'static str, &'static str); 2] {
    [("values=[1, 2]", "3"), ("values=[5]", "5")]
}

pub fn write_dataset(dir: &Path) -> PathBuf {
    let dataset = dir.join("train.jsonl");
    std::fs::write(
        &dataset,
        [
            dataset_line(MEAN_Q, "mean", &mean_cases()),
            dataset_line(SUM_Q, "sum", &sum_cases()),
        ]
        .join("\n")
            + "\n",
    )
    .expect("dataset");
    dataset
}

/// A response whose text starts `Sample {n}.` (one row each, found by its text).
pub fn response(body: &str, n: usize) -> String {
    format!("Sample {n}.\n```python\nimport zwc\n\ndef solve(values):\n    {body}\n```")
}

/// A verl sample line of step `step`.
pub fn sample(query: &str, body: &str, score: f64, step: u32, n: usize) -> String {
    let input = format!(
        "user\nSolve with zwc.\n\n### Problem\n{query}\n\n### Function to Complete\ndef solve(values):\nassistant\n"
    );
    json!({"input": input, "output": response(body, n), "score": score, "step": step}).to_string()
        + "\n"
}

/// An evaluation's rollout line (its test cases with it).
pub fn rollout(query: &str, body: &str, cases: &[(&str, &str)], n: usize) -> String {
    let expected: Vec<&str> = cases.iter().map(|c| c.1).collect();
    json!({
        "query": query,
        "response": response(body, n),
        "test_cases": cases.iter().map(|(i, o)| json!({"input": i, "output": o})).collect::<Vec<_>>(),
        "right_exe_result": expected.join("#"),
        "selected_functions": ["sum"],
    })
    .to_string()
        + "\n"
}

pub fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open");
    f.write_all(text.as_bytes()).expect("write");
}

/// The explorer with its workers, as `sebx` runs it, minus the terminal.
pub struct Explorer {
    pub app: App,
    pub workers: Workers,
    pub rx: Receiver<JobEvent>,
}

impl Explorer {
    pub fn open(paths: Vec<PathBuf>, dataset: Option<PathBuf>) -> Explorer {
        Explorer::open_in(paths, dataset, isolated::cache_flags())
    }

    /// [`Explorer::open`] with the score cache `cache` (a test that opens twice).
    pub fn open_in(
        paths: Vec<PathBuf>,
        dataset: Option<PathBuf>,
        cache: sebx::session::CacheFlags,
    ) -> Explorer {
        let mut args = ExploreArgs {
            paths,
            cache,
            ..isolated::explore_args()
        };
        args.context.dataset = dataset.into_iter().collect();
        args.context.api_doc =
            Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl"));
        let (session, backend) = open_default(&args).expect("opens");
        assert!(
            backend.is_some(),
            "the grader's Python runtime (sebx runtime install)"
        );
        assert!(session.follow, "followed unless --no-follow");
        let (tx, rx) = channel();
        let mut app = session.app;
        let factory = app.reruns.backend_factory.clone();
        let workers = Workers::start(tx, backend, 2, factory);
        app.register_sources(&session.sources);
        workers.load_following(session.sources, session.follow);
        app.update(&sebx::tui::Action::Resize {
            width: 120,
            height: 40,
        });
        Explorer { app, workers, rx }
    }

    /// Runs the loop's step until `done` holds; fails after `WAIT` naming `what`.
    pub fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let start = Instant::now();
        loop {
            pump(&mut self.app, &self.workers, &self.rx);
            if done(&self.app) {
                return;
            }
            assert!(
                start.elapsed() < WAIT,
                "{what}: not within {WAIT:?}; {} rows, issues {:?}, said {:?}",
                self.app.corpus.entries.len(),
                self.app.corpus.issues,
                self.app.message
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The row whose response says `Sample {n}.`, when it is in the list.
    pub fn row(&self, n: usize) -> Option<usize> {
        let text = format!("Sample {n}.");
        self.app.list.rows().find(|&r| {
            self.app.corpus.entries[r]
                .rollout
                .response
                .starts_with(&text)
        })
    }

    pub fn listed(&self, n: usize) -> Option<Shown> {
        self.row(n).map(|r| self.app.corpus.shown(r))
    }

    /// (samples, graded, accuracy) of `step` on the Training screen.
    pub fn step_figures(&self, step: u32) -> Option<(usize, usize, Option<f64>)> {
        let result = self.app.training.result.as_ref()?;
        result
            .report
            .figures
            .steps
            .iter()
            .find(|s| s.step == step)
            .map(|s| (s.samples, s.graded, s.accuracy))
    }

    pub fn select(&mut self, row: usize) {
        self.app.update(&sebx::tui::Action::Top);
        while self.app.list.selected != Some(row) {
            let before = self.app.list.selected;
            self.app.update(&sebx::tui::Action::Down);
            assert_ne!(before, self.app.list.selected, "row {row} not in the list");
        }
    }
}

/// Every row has its verdict.
pub fn all_graded(app: &App) -> bool {
    (0..app.corpus.entries.len()).all(|r| matches!(app.corpus.shown(r), Shown::Verdict(_)))
}
