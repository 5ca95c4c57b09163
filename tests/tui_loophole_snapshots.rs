//! Render tests of the loophole views, drawn into a TestBackend as `sebx` opens the files:
//! the Cases pane's "right anyway, through a loophole" block (before and after `y`), the
//! Code pane's confirmed evidence and its list of what the run found that no finding
//! claimed, and the Response pane's raw line (`D`). Only the detail pane is kept: the list
//! above it shows every row's verdict, which these views do not draw.
//!
//! The `y` views need the grader's Python runtime (`sebx runtime install`); the raw line
//! does not.

use crate::isolated;
use crate::tui_common;

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use sebx::grade::backend::GradeBackend;
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::{Action, App};

/// Wide enough for the panes' explanations, narrow enough that the detail pane is below
/// the list, the whole width.
const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

/// The detail pane of the drawn screen: its box, from the tab line to the bottom border
/// (beside or below the list, it is the rightmost box).
fn detail_pane(app: &App) -> String {
    let screen = tui_common::screen(&tui_common::draw(app, WIDTH, HEIGHT));
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let tabs: Vec<char> = "┌ 1 Response ─ 2 Code".chars().collect();
    let (top, x) = lines
        .iter()
        .enumerate()
        .find_map(|(y, l)| Some((y, l.windows(tabs.len()).position(|w| w == tabs)?)))
        .unwrap_or_else(|| panic!("no detail pane:\n{screen}"));
    let bottom = (top..lines.len())
        .find(|&y| lines[y].get(x) == Some(&'└'))
        .expect("the pane's bottom border");
    lines[top..=bottom]
        .iter()
        .map(|l| l[x..].iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs the jobs queued so far (grades, analyses, traced runs, raw lines) and applies them.
fn settle(app: &mut App, backend: Option<&dyn GradeBackend>) {
    drain_inline(app, backend);
    app.service();
}

/// The demo opened as `sebx` opens it, every row graded, with the row whose answer is
/// `right` through a hollow zwc use selected.
fn demo_on_the_hollow_answer() -> (
    sebx::tui::explore::Session,
    std::sync::Arc<dyn GradeBackend>,
) {
    let (mut session, backend) = tui_common::open_graded(&isolated::explore_args(), WIDTH, HEIGHT);
    assert!(
        tui_common::select_hollow_right(&mut session.app, backend.as_ref()),
        "the demo has a hollow answer judged right"
    );
    (session, backend)
}

#[test]
fn cases_pane_right_anyway_through_a_loophole() {
    let (mut session, backend) = demo_on_the_hollow_answer();
    let app = &mut session.app;
    app.update(&Action::PaneCases);
    assert_snapshot!("cases_pane_right_anyway_before_y", detail_pane(app));
    app.update(&Action::ConfirmFindings);
    settle(app, Some(backend.as_ref()));
    assert_snapshot!("cases_pane_right_anyway_after_y", detail_pane(app));
}

#[test]
fn code_pane_loophole_confirmed_with_its_evidence() {
    let (mut session, backend) = demo_on_the_hollow_answer();
    let app = &mut session.app;
    app.update(&Action::PaneCode);
    app.update(&Action::ConfirmFindings);
    settle(app, Some(backend.as_ref()));
    assert_snapshot!(detail_pane(app));
}

/// A crash the analysis cannot see (`.tolist()` on what a zwc function looked up with
/// `getattr` returns): after `y` the Code pane lists it as found by the run.
#[test]
fn code_pane_lists_what_the_run_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("run.jsonl");
    let code = "import zwc\ndef f(values):\n    sort = getattr(zwc, 'migoxe')\n    return sort(values).tolist()[0] + 0 * zwc.kocito(values)\n";
    let line = serde_json::json!({
        "query": "The mean of `values`.",
        "response": format!("Here.\n```python\n{code}```\n"),
        "test_cases": [
            {"input": "values=[1.0, 3.0]", "output": "2.0"},
            {"input": "values=[2.0, 4.0]", "output": "3.0"},
        ],
        "right_exe_result": "2.0#3.0",
        "selected_functions": ["mean"],
    });
    std::fs::write(&file, format!("{line}\n")).expect("write the run");
    let mut args = isolated::explore_args();
    args.paths = vec![file];
    args.context.api_doc = Some(demo("api_doc.jsonl"));
    let (mut session, backend) = tui_common::open_graded(&args, WIDTH, HEIGHT);
    let app = &mut session.app;
    settle(app, Some(backend.as_ref()));
    app.update(&Action::PaneCode);
    let before = detail_pane(app);
    assert!(!before.contains("found by running"), "{before}");
    app.update(&Action::ConfirmFindings);
    settle(app, Some(backend.as_ref()));
    assert_snapshot!(detail_pane(app));
}

/// `D` on the demo's hollow answer: its line as stored, read again from the text built into
/// the binary (no grading needed).
#[test]
fn raw_line_view() {
    let args = sebx::tui::explore::ExploreArgs {
        paths: Vec::new(),
        ..isolated::explore_args()
    };
    let mut session = sebx::tui::explore::prepare(
        &args,
        sebx::tui::app::Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
    )
    .expect("the demo");
    load_inline(&mut session.app, &session.sources);
    let app = &mut session.app;
    app.update(&Action::Resize {
        width: WIDTH,
        height: HEIGHT,
    });
    settle(app, None);
    // The demo's last run, line 14.
    app.update(&Action::Bottom);
    while app.selected_entry().is_some_and(|e| {
        !(e.rollout.line == 14 && e.rollout.source.ends_with("rollouts_run2.jsonl"))
    }) {
        app.update(&Action::Up);
    }
    app.update(&Action::RawLine);
    settle(app, None);
    assert_snapshot!(detail_pane(app));
}

fn demo(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(file)
}

/// At 80×24 the Stats screen's loophole line is wrapped under the run's figures, never cut:
/// its last figure (the accuracy without the loopholes) is on screen whole.
#[test]
fn stats_screen_wraps_the_loophole_line_at_80x24() {
    let (mut session, _backend) = tui_common::open_graded(&isolated::explore_args(), 80, 24);
    let app = &mut session.app;
    app.update(&Action::StatsScreen);
    settle(app, None);
    let screen = tui_common::screen(&tui_common::draw(app, 80, 24));
    let rows: Vec<String> = screen
        .lines()
        .map(|l| l.trim_matches(|c| c == '│' || c == ' ').to_string())
        .collect();
    let start = rows
        .iter()
        .position(|l| l.starts_with("through a loophole:"))
        .unwrap_or_else(|| panic!("no loophole line:\n{screen}"));
    let mut text = rows[start].clone();
    for l in &rows[start + 1..] {
        if l.is_empty() || l.contains(" rollouts · ") || l.contains('█') {
            break;
        }
        text.push(' ');
        text.push_str(l);
    }
    let without = text
        .split("accuracy without ")
        .nth(1)
        .unwrap_or_else(|| panic!("cut: {text}\n{screen}"));
    assert!(
        without.ends_with('%') || without == "–",
        "the last figure whole: {text}\n{screen}"
    );
    assert!(!text.contains('…'), "{text}");
}
