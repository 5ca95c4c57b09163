//! The explorer under random use: random sequences of keys, mouse clicks and wheel turns
//! and resizes (1×1 up to 400×120), fed through the same event → action path as the
//! terminal, over the bundled demo and over a damaged rollout file, each step drawn on
//! ratatui's test backend. Invariants: no panic, the selection always valid, every popup
//! (and the search prompt) closable with Esc.

use crate::prop as knobs;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, MouseButton, MouseEvent,
    MouseEventKind,
};
use sebx::tui::app::ViewRow;
use sebx::tui::explore::{ExploreArgs, demo, prepare};
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::run::action_for_event;
use sebx::tui::{Action, App, Grading, ui};

use crate::isolated;

#[derive(Debug, Clone)]
enum Input {
    Key(KeyCode, bool),
    Click(u16, u16),
    Wheel(u16, u16, bool),
    Resize(u16, u16),
}

fn key_code() -> impl Strategy<Value = KeyCode> {
    prop_oneof![
        6 => prop::sample::select(
            "jkJKgGhlqQ/vunistf]rReIpawNFAcL?!123456789 0xyz-+[".chars().collect::<Vec<_>>()
        ).prop_map(KeyCode::Char),
        3 => prop::sample::select(vec![
            KeyCode::Up, KeyCode::Down, KeyCode::Left, KeyCode::Right, KeyCode::PageUp,
            KeyCode::PageDown, KeyCode::Home, KeyCode::End, KeyCode::Tab, KeyCode::BackTab,
            KeyCode::Enter, KeyCode::Esc, KeyCode::Backspace, KeyCode::F(1), KeyCode::Delete,
        ]),
        1 => any::<char>().prop_map(KeyCode::Char),
    ]
}

fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        12 => (key_code(), prop::bool::weighted(0.1)).prop_map(|(k, ctrl)| Input::Key(k, ctrl)),
        3 => (0u16..420, 0u16..130).prop_map(|(c, r)| Input::Click(c, r)),
        2 => (0u16..420, 0u16..130, any::<bool>()).prop_map(|(c, r, d)| Input::Wheel(c, r, d)),
        1 => prop_oneof![
            (1u16..=400, 1u16..=120),
            (1u16..=4, 1u16..=4),
            Just((400u16, 120u16)),
            (20u16..=100, 5u16..=40),
        ]
        .prop_map(|(w, h)| Input::Resize(w, h)),
    ]
}

fn event(input: &Input) -> Event {
    match input {
        Input::Key(code, ctrl) => Event::Key(KeyEvent {
            code: *code,
            modifiers: if *ctrl {
                KeyModifiers::CONTROL
            } else {
                KeyModifiers::NONE
            },
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }),
        Input::Click(column, row) => Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: *column,
            row: *row,
            modifiers: KeyModifiers::NONE,
        }),
        Input::Wheel(column, row, down) => Event::Mouse(MouseEvent {
            kind: if *down {
                MouseEventKind::ScrollDown
            } else {
                MouseEventKind::ScrollUp
            },
            column: *column,
            row: *row,
            modifiers: KeyModifiers::NONE,
        }),
        Input::Resize(w, h) => Event::Resize(*w, *h),
    }
}

fn esc() -> Event {
    Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE))
}

/// An explorer as `sebx [PATHS]` prepares it (an empty config file, no grading), loaded.
fn explorer(paths: Vec<PathBuf>, dir: &Path) -> App {
    let config = dir.join("config.toml");
    std::fs::write(&config, "").expect("config");
    let args = ExploreArgs {
        paths,
        config: Some(config),
        annotator: Some("prop".to_owned()),
        // Label sidecars of the embedded demo: in the case's folder, never the user's.
        data_dir: Some(dir.join("data")),
        ..isolated::explore_args()
    };
    let session = prepare(
        &args,
        Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
    )
    .expect("explorer prepares");
    let mut app = session.app;
    app.update(&Action::Resize {
        width: 80,
        height: 24,
    });
    load_inline(&mut app, &session.sources);
    drain_inline(&mut app, None);
    app
}

/// A rollout file with every kind of damage between good demo lines.
fn damaged_file(dir: &Path) -> PathBuf {
    let good: Vec<&str> = demo::ROLLOUTS.lines().take(8).collect();
    let mut bytes = Vec::new();
    for (i, line) in good.iter().enumerate() {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        match i % 4 {
            0 => bytes.extend_from_slice(&line.as_bytes()[..line.len() / 2]),
            1 => bytes.extend_from_slice(b"{\"query\": \"\xff\xfe\"}"),
            2 => bytes
                .extend_from_slice(format!("{}1{}", "[".repeat(5000), "]".repeat(5000)).as_bytes()),
            _ => bytes.extend_from_slice(
                format!("{{\"query\": \"{}\", \"response\": 3}}", "n".repeat(6000)).as_bytes(),
            ),
        }
        bytes.extend_from_slice(b"\r\n");
    }
    // A long invented name and a long response line, truncated mid-way at the end.
    let long = format!(
        "{{\"query\": \"q\", \"response\": \"```python\\nimport zwc\\ndef f(a):\\n    return zwc.{}(a)\\n```\", \"test_cases\": [{{\"input\": \"a=1\", \"output\": \"1\"}}], \"right_exe_result\": \"1\"}}\n",
        "x".repeat(6000)
    );
    bytes.extend_from_slice(long.as_bytes());
    bytes.extend_from_slice(&good[0].as_bytes()[..40]);
    let path = dir.join("damaged.jsonl");
    std::fs::write(&path, bytes).expect("write damaged file");
    path
}

/// The selection is an entry shown in the view whenever the view shows any.
fn check_selection(app: &App) -> Result<(), TestCaseError> {
    let rows = app
        .list
        .view
        .iter()
        .filter(|r| matches!(r, ViewRow::Row(_)))
        .count();
    if let Some(sel) = app.list.selected {
        prop_assert!(
            sel < app.corpus.entries.len(),
            "selected {sel} of {} entries",
            app.corpus.entries.len()
        );
        prop_assert!(
            app.list.cursor().is_some(),
            "selected {sel} is not in the view"
        );
    } else {
        prop_assert_eq!(rows, 0, "rows shown but nothing selected");
    }
    for r in &app.list.view {
        if let ViewRow::Row(i) = r {
            prop_assert!(*i < app.corpus.entries.len());
        }
    }
    Ok(())
}

fn drive(app: &mut App, inputs: &[Input]) -> Result<(), TestCaseError> {
    let mut terminal = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("terminal");
    for input in inputs {
        if let Input::Resize(w, h) = input {
            terminal = Terminal::new(TestBackend::new(*w, *h)).expect("terminal");
        }
        if let Some(action) = action_for_event(app, &event(input)) {
            app.update(&action);
            app.service();
        }
        // What the event loop hands to other threads: run it here (no grading backend).
        drain_inline(app, None);
        // Reruns are left queued by `drain_inline`; none is run here.
        let _ = app.take_requests();
        if let Some((row, _code)) = app.reruns.edit.take() {
            app.on_edited(row, Ok(None));
        }
        app.settle();
        // `q` quits; keep exploring as a new session would.
        app.should_quit = false;
        check_selection(app)?;
        terminal.draw(|frame| ui::draw(frame, app)).expect("draw");
    }
    // Every popup and the search prompt close with Esc (at most a few presses).
    for _ in 0..4 {
        if app.popup.is_none() && !app.typing() {
            break;
        }
        if let Some(action) = action_for_event(app, &esc()) {
            app.update(&action);
            app.service();
        }
        terminal.draw(|frame| ui::draw(frame, app)).expect("draw");
    }
    prop_assert!(
        app.popup.is_none(),
        "popup {:?} does not close with Esc",
        app.popup
    );
    prop_assert!(!app.typing(), "a text box does not close with Esc");
    check_selection(app)
}

proptest! {
    #![proptest_config(knobs::config(24, 16))]

    #[test]
    fn demo_under_random_use(inputs in prop::collection::vec(input(), 1..80)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut app = explorer(Vec::new(), dir.path());
        prop_assert!(!app.corpus.entries.is_empty());
        drive(&mut app, &inputs)?;
    }

    #[test]
    fn damaged_file_under_random_use(inputs in prop::collection::vec(input(), 1..80)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = damaged_file(dir.path());
        let mut app = explorer(vec![file], dir.path());
        prop_assert_eq!(app.corpus.entries.len(), 9);
        prop_assert_eq!(app.corpus.issues.len(), 9, "{:?}", app.corpus.issues);
        drive(&mut app, &inputs)?;
    }
}
