//! Runs whose names share a long start and end (`heldout_main_rollouts`,
//! `heldout_v2_rollouts`) stay apart wherever a narrow column names them: the list (and
//! `t`, the same task across runs) and the Stats screen.

use crate::tui_common;

use std::path::PathBuf;

use sebx::tui::inline::drain_inline;
use sebx::tui::load::{FileKind, Source, SourceData};
use sebx::tui::{Action, App, Grading};
use tui_common::*;

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn two_heldout_runs() -> App {
    let sources: Vec<Source> = [
        ("heldout_main_rollouts", run_a()),
        ("heldout_v2_rollouts", run_b()),
    ]
    .into_iter()
    .map(|(name, text)| Source {
        kind: FileKind::Rollouts,
        data: SourceData::Embedded {
            label: PathBuf::from(format!("fixtures/{name}.jsonl")),
            text: leak(text),
        },
    })
    .collect();
    let mut app = app_with(Grading::Available, &sources);
    let backend = FakeBackend::default();
    drain_inline(&mut app, Some(&backend));
    app
}

/// The run cell of each list row that shows one.
fn run_cells(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("Return") || l.contains("Invert"))
        .filter_map(|l| {
            l.split_whitespace()
                .find(|w| ["main", "v2"].contains(w))
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn the_list_and_t_tell_the_runs_apart() {
    let mut app = two_heldout_runs();
    assert_eq!(app.corpus.runs.len(), 2);
    let text = screen(&draw(&app, 80, 40));
    assert!(
        !text.contains("heldout"),
        "the shared words are dropped:\n{text}"
    );
    let cells = run_cells(&text);
    assert!(
        cells.contains(&"main".to_string()) && cells.contains(&"v2".to_string()),
        "{text}"
    );
    // `t`: the selected task across both runs, each row naming its run.
    app.update(&Action::SameTask);
    let text = screen(&draw(&app, 80, 24));
    let cells = run_cells(&text);
    assert!(
        cells.contains(&"main".to_string()) && cells.contains(&"v2".to_string()),
        "{text}"
    );
}

#[test]
fn the_stats_screen_tells_the_runs_apart() {
    let mut app = two_heldout_runs();
    app.update(&Action::StatsScreen);
    drain_inline(&mut app, None);
    let text = screen(&draw(&app, 80, 24));
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("rollouts ·")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].contains("main ") && rows[1].contains("v2 "),
        "{rows:?}"
    );
    assert!(!rows.iter().any(|r| r.contains("heldout")), "{rows:?}");
}

#[test]
fn the_compare_screen_keeps_its_counts_and_tells_the_runs_apart() {
    let mut app = two_heldout_runs();
    app.update(&Action::CompareScreen);
    drain_inline(&mut app, None);
    let text = screen(&draw(&app, 80, 24));
    let head = text
        .lines()
        .find(|l| l.contains(" A: "))
        .expect("the compare heading");
    assert!(head.contains("A: main") && head.contains("B: v2"), "{head}");
    assert!(head.contains("unpaired") && head.contains("in B"), "{head}");
    // Wide enough: the whole names.
    let wide = screen(&draw(&app, 200, 40));
    assert!(
        wide.contains("A: heldout_main_rollouts   B: heldout_v2_rollouts"),
        "{wide}"
    );
}
