//! One event loop (issue 41): the explorer, the presenter it opens with `P`, `sebx present`
//! and `sebx present --follow` all run in `tui::run::event_loop`, each as its `Root`. Driven
//! here with a TestBackend and a script of terminal events, as the terminal would drive it:
//! the presenter's keys move it and it writes where it is, `q` hands the screen back to the
//! explorer, and the follower shows the notes of the position the presenter wrote, deaf to
//! the presenter's own keys.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::channel;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use sebx::tui::explore::ExploreArgs;
use sebx::tui::jobs::Workers;
use sebx::tui::present::follow::Following;
use sebx::tui::present::{self, Presenter, Presenting, Stage};
use sebx::tui::run::{Events, Explorer, event_loop};

use crate::isolated;
use crate::tui_common::{demo_app, screen};

/// Terminal events from a script: `None` is a poll that times out (the loop's work between
/// events runs); an empty script is an error, so a loop that does not end fails the test.
struct Script(VecDeque<Option<Event>>);

impl Script {
    fn new(events: impl IntoIterator<Item = Option<Event>>) -> Script {
        Script(events.into_iter().collect())
    }
}

impl Events for Script {
    fn poll(&mut self, _timeout: Duration) -> anyhow::Result<bool> {
        match self.0.front() {
            Some(Some(_)) => Ok(true),
            Some(None) => {
                self.0.pop_front();
                Ok(false)
            }
            None => anyhow::bail!("the script ran out"),
        }
    }

    fn read(&mut self) -> anyhow::Result<Event> {
        match self.0.pop_front() {
            Some(Some(ev)) => Ok(ev),
            _ => anyhow::bail!("read without an event"),
        }
    }
}

fn key(code: KeyCode) -> Option<Event> {
    Some(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// The demo playlist's presenter (six slides), sidecars in `data`.
fn demo_presenter(data: &Path) -> Presenter {
    let args = ExploreArgs {
        theme: Some("high-contrast".to_string()),
        ..isolated::explore_args()
    };
    let p = crate::tui_common::demo_presenter(&args, data);
    assert_eq!(p.slides.len(), 6);
    p
}

fn top_line(terminal: &Terminal<TestBackend>) -> String {
    screen(terminal).lines().next().unwrap_or("").to_string()
}

#[test]
fn sebx_present_runs_in_the_event_loop_and_says_where_it_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let position = dir.path().join("present-position");
    let mut root = Presenting::new(demo_presenter(dir.path()), Some(position.clone()));
    let at_start = std::fs::read_to_string(&position).expect("written on opening");
    assert!(at_start.ends_with(" 0 0\n"), "{at_start:?}");

    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    // Two stages, the next rollout, one stage there: slide 2, its Answer.
    let script = [' ', ' ']
        .map(|c| key(KeyCode::Char(c)))
        .into_iter()
        .chain([
            key(KeyCode::PageDown),
            key(KeyCode::Right),
            None,
            key(KeyCode::Char('q')),
        ]);
    event_loop(&mut terminal, &mut root, &mut Script::new(script)).expect("q ends the loop");
    let p = &root.presenter;
    assert_eq!((p.index, p.stage), (1, Stage::Response));
    let top = top_line(&terminal);
    assert!(
        top.starts_with(" Answer ") && top.trim_end().ends_with("2/6"),
        "{top}"
    );
    let said = std::fs::read_to_string(&position).expect("position");
    assert!(said.ends_with(" 1 1\n"), "{said:?}");
    assert!(said.starts_with(&p.slides[1].entry.rollout.id.to_string()));
}

#[test]
fn the_follower_runs_in_the_event_loop_and_ignores_the_presenters_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let position = dir.path().join("present-position");
    // A projector on slide 5, at its Verdict.
    let mut projector = demo_presenter(dir.path());
    for _ in 0..4 * Stage::ALL.len() + 3 {
        projector.next();
    }
    assert_eq!((projector.index, projector.stage), (4, Stage::Verdict));
    present::follow::publish(&projector, &position);

    let mut root = Following::new(demo_presenter(dir.path()), position.clone());
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    // A pause (the file is read), then the presenter's keys, which the follower does not
    // take, then `q`.
    let script = [
        None,
        key(KeyCode::Char(' ')),
        key(KeyCode::PageDown),
        None,
        key(KeyCode::Char('q')),
    ];
    event_loop(&mut terminal, &mut root, &mut Script::new(script)).expect("q ends the loop");
    let shown = screen(&terminal);
    let top = top_line(&terminal);
    assert!(
        top.starts_with(" Verdict ") && top.contains("5/6") && top.contains("speaker notes"),
        "{shown}"
    );
    assert!(shown.contains("verdict: result_error"), "{shown}");
    assert_eq!(
        (root.presenter.index, root.presenter.stage),
        (4, Stage::Verdict)
    );
}

#[test]
fn the_explorers_presenter_runs_in_the_same_loop_and_q_gives_the_screen_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let position = dir.path().join("present-position");
    let mut app = demo_app(&isolated::explore_args(), dir.path(), 80, 24);
    let first = app.list.selected.expect("a row");
    let (tx, rx) = channel();
    let workers = Workers::start(tx, None, 1, None);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    {
        let mut root = Explorer::new(&mut app, &workers, &rx, Some(position.clone()));
        // `P` presents the selected rollout (no bookmarks); two stages on, typed at once
        // (queued keys after `P` are the presenter's); a pause to draw.
        let script = ['P', ' ', ' ']
            .map(|c| key(KeyCode::Char(c)))
            .into_iter()
            .chain([None]);
        let ran_out = event_loop(&mut terminal, &mut root, &mut Script::new(script));
        assert!(ran_out.is_err(), "still open when the script ends");
        let p = root.presenting().expect("the presenter holds the screen");
        assert_eq!((p.index, p.stage), (0, Stage::Guess));
        let top = top_line(&terminal);
        assert!(
            top.starts_with(" Your guess? ") && top.trim_end().ends_with("1/1"),
            "{}",
            screen(&terminal)
        );
        let said = std::fs::read_to_string(&position).expect("the presenter says where");
        assert!(said.ends_with(" 0 2\n"), "{said:?}");

        // The terminal resized under the presenter reaches the explorer too; `q` closes
        // the presenter: the explorer's keys are its own again (↓, then `q` quits).
        let script = [
            Some(Event::Resize(100, 30)),
            key(KeyCode::Char('q')),
            None,
            key(KeyCode::Down),
            None,
            key(KeyCode::Char('q')),
        ];
        event_loop(&mut terminal, &mut root, &mut Script::new(script)).expect("q quits");
        assert!(root.presenting().is_none());
    }
    assert!(app.should_quit);
    assert_eq!(app.size, (100, 30), "the explorer knows the new size");
    assert_ne!(app.list.selected, Some(first), "↓ reached the list");
    let shown = screen(&terminal);
    assert!(!shown.contains("Your guess?"), "{shown}");
    assert!(shown.contains("Code"), "the explorer's panes:\n{shown}");
}

/// The text of the terminal's buffer, each row's trailing blanks trimmed.
fn trimmed(terminal: &Terminal<TestBackend>) -> String {
    screen(terminal)
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect()
}

/// Snapshots of `sebx present` reached by its keys through the event loop (not by setting
/// the presenter's state), at 80×24 and, resized by the terminal, at 160×45; each is what
/// the presenter draws of the state its keys reached, nothing else on screen.
#[test]
fn presenter_snapshots_through_the_event_loop() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut root = Presenting::new(demo_presenter(dir.path()), None);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    // Slide 4 (three rollouts on), two stages in: its Guess.
    let script = [
        key(KeyCode::PageDown),
        key(KeyCode::PageDown),
        key(KeyCode::PageDown),
    ]
    .into_iter()
    .chain([' ', ' '].map(|c| key(KeyCode::Char(c))))
    .chain([None]);
    let ran_out = event_loop(&mut terminal, &mut root, &mut Script::new(script));
    assert!(ran_out.is_err(), "still presenting when the script ends");
    assert_eq!(
        (root.presenter.index, root.presenter.stage),
        (3, Stage::Guess)
    );
    let guess = trimmed(&terminal);
    assert!(guess.starts_with(" Your guess? "), "{guess}");
    insta::assert_snapshot!("loop_guess_80x24", guess);

    // The terminal grows (as a terminal window does, then says so); two stages on (the
    // Why) and the speaker notes.
    terminal.backend_mut().resize(160, 45);
    let script = [Some(Event::Resize(160, 45))]
        .into_iter()
        .chain([' ', ' ', 'n'].map(|c| key(KeyCode::Char(c))))
        .chain([None]);
    let ran_out = event_loop(&mut terminal, &mut root, &mut Script::new(script));
    assert!(ran_out.is_err(), "still presenting");
    assert_eq!(terminal.size().expect("size").width, 160);
    assert_eq!(
        (root.presenter.index, root.presenter.stage),
        (3, Stage::Why)
    );
    assert!(root.presenter.notes, "n shows the speaker notes");
    let why = trimmed(&terminal);
    assert!(why.contains("speaker notes"), "{why}");
    insta::assert_snapshot!("loop_why_notes_160x45", why);
}
