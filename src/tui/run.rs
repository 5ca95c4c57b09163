//! The explorer in the terminal: [`run_terminal`] runs it in the one event loop
//! ([`event_loop`], in `root`) as its [`Root`], [`Explorer`] (with the presenter it opens on
//! `P`); [`action_for_event`] maps the terminal's events through the keymap, and [`pump`]
//! is its work between events (worker results drained, the view settled, the I/O step).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use anyhow::Result;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::{Frame, Terminal};

use super::action::{Action, Scope};
use super::app::App;
use super::component::Component;
use super::jobs::{JobEvent, Workers};
use super::load::Source;
use super::present::{Presenter, Presenting, follow};
pub use super::root::{Events, Root, TerminalEvents, event_loop};
use super::ui;
use crate::grade::backend::GradeBackend;

/// Most time spent applying worker results before drawing again.
const DRAIN_BUDGET: Duration = Duration::from_millis(25);

/// Maps a terminal event to an action (keys through the keymap; an open text box's keys).
pub fn action_for_event(app: &App, event: &Event) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            // An open text box takes every key (`textbox`: one set of keys for all).
            if let Some(text_box) = app.open_box() {
                return text_box.key(key, app.popup);
            }
            // A screen's keys are its own (`[keys.stats]`...), from the keymap.
            let scope = app.scope();
            if scope != Scope::Main {
                return app.keymap.action_in(scope, key);
            }
            if let Some(action) = app.component_key(key) {
                return Some(action);
            }
            // An open popup's keys (`[keys.popup]`) come before the list's.
            if app.popup.is_some()
                && let Some(action) = app.keymap.action_in(Scope::Popup, key)
            {
                return Some(action);
            }
            app.keymap.action_for(key)
        }
        Event::Mouse(m) => match m.kind {
            MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
                column: m.column,
                row: m.row,
            }),
            MouseEventKind::ScrollDown => Some(Action::Wheel {
                column: m.column,
                row: m.row,
                down: true,
            }),
            MouseEventKind::ScrollUp => Some(Action::Wheel {
                column: m.column,
                row: m.row,
                down: false,
            }),
            _ => None,
        },
        Event::Resize(width, height) => Some(Action::Resize {
            width: *width,
            height: *height,
        }),
        _ => None,
    }
}

/// Runs the explorer in the terminal until the user quits. The terminal is restored on
/// return and on panic (ratatui's hook, plus mouse capture released by ours).
/// `follow`: the training runs among `sources` are followed after loading (`--no-follow`
/// turns it off).
pub fn run_terminal(
    mut app: App,
    sources: Vec<Source>,
    backend: Option<Arc<dyn GradeBackend>>,
    follow: bool,
) -> Result<()> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        anyhow::bail!(
            "the explorer needs a terminal (stdin or stdout is not one); `sebx grade FILE` prints verdicts instead"
        );
    }
    let (tx, rx) = channel();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8);
    let workers = Workers::start(tx, backend, threads, app.reruns.backend_factory.clone());
    app.register_sources(&sources);
    workers.load_following(sources, follow);

    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            ratatui::restore();
            return Err(anyhow::Error::new(e).context("cannot start the terminal UI"));
        }
    };
    // ratatui's hook restores the terminal on a panic. Worker panics are caught where they
    // happen and shown as data, so only a panic on this (the UI) thread may restore it.
    let previous = std::panic::take_hook();
    let ui_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui_thread {
            let _ = execute!(std::io::stdout(), DisableMouseCapture);
            previous(info);
        }
    }));
    let _ = execute!(std::io::stdout(), EnableMouseCapture);
    let mut root = Explorer::new(&mut app, &workers, &rx, follow::position_file());
    let result = event_loop(&mut terminal, &mut root, &mut TerminalEvents);
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

/// The explorer as the loop's root, with its workers, and the presenter (`P`) while it
/// holds the screen.
pub struct Explorer<'a> {
    app: &'a mut App,
    workers: &'a Workers,
    rx: &'a Receiver<JobEvent>,
    /// Where a presenter opened with `P` says where it is (for `sebx present --follow`).
    position: Option<PathBuf>,
    presenting: Option<Presenting>,
    /// The presenter just closed: the explorer's screen is drawn afresh.
    clear: bool,
}

impl<'a> Explorer<'a> {
    /// The explorer `app`, its workers and their results; a presenter it opens writes
    /// where it is to `position`.
    pub fn new(
        app: &'a mut App,
        workers: &'a Workers,
        rx: &'a Receiver<JobEvent>,
        position: Option<PathBuf>,
    ) -> Explorer<'a> {
        Explorer {
            app,
            workers,
            rx,
            position,
            presenting: None,
            clear: false,
        }
    }

    /// The presenter holding the screen, if one does.
    pub fn presenting(&self) -> Option<&Presenter> {
        self.presenting.as_ref().map(|p| &p.presenter)
    }
}

impl<B: Backend> Root<B> for Explorer<'_>
where
    B::Error: Send + Sync + 'static,
{
    fn action_for(&self, event: &Event) -> Option<Action> {
        match &self.presenting {
            Some(p) => Root::<B>::action_for(p, event),
            None => action_for_event(self.app, event),
        }
    }

    fn apply(&mut self, action: &Action) -> bool {
        if let Some(p) = self.presenting.as_mut() {
            // The explorer keeps the terminal's size for when the presenter closes.
            if let Action::Resize { .. } = action {
                self.app.update(action);
            }
            let redraw = Root::<B>::apply(p, action);
            if Root::<B>::done(p) {
                self.presenting = None;
                self.clear = true;
            }
            return redraw;
        }
        let mut redraw = self.app.update(action);
        // Label changes are on disk before anything is drawn or read next.
        redraw |= self.app.service();
        // `P` hands the screen to the presenter at once: the next key queued is its own.
        if let Some(rows) = self.app.bookmarks.present.take() {
            // The projector's theme, whatever the explorer uses.
            let theme =
                super::Theme::builtin("high-contrast").unwrap_or_else(|| self.app.theme.clone());
            let p = Presenter::from_app(self.app, &rows, theme);
            self.presenting = Some(Presenting::new(p, self.position.clone()));
            redraw = true;
        }
        redraw
    }

    fn idle(&mut self) -> bool {
        pump(self.app, self.workers, self.rx) | super::export::request_view(self.app)
    }

    fn prepare(&mut self, terminal: &mut Terminal<B>) -> Result<bool> {
        let mut redraw = std::mem::take(&mut self.clear);
        if redraw {
            terminal.clear()?;
        }
        for req in self.app.take_requests() {
            self.workers.dispatch(req);
        }
        if let Some((row, code)) = self.app.reruns.edit.take() {
            let edited = super::editor::edit_in_terminal(terminal, &code);
            self.app.on_edited(row, edited);
            redraw = true;
        }
        Ok(redraw)
    }

    fn draw(&self, frame: &mut Frame) {
        match &self.presenting {
            Some(p) => Root::<B>::draw(p, frame),
            None => ui::draw(frame, self.app),
        }
    }

    fn done(&self) -> bool {
        self.app.should_quit
    }
}

/// The loop's work between keys, without a terminal: hands queued requests to the workers,
/// applies what they sent back (for at most `DRAIN_BUDGET`), settles the view and runs the
/// parts' I/O step. Returns whether the screen must be redrawn. Tests drive the explorer
/// through it as the terminal loop does.
pub fn pump(app: &mut App, workers: &Workers, rx: &Receiver<JobEvent>) -> bool {
    for req in app.take_requests() {
        workers.dispatch(req);
    }
    let mut redraw = false;
    let started = Instant::now();
    while started.elapsed() < DRAIN_BUDGET {
        match rx.try_recv() {
            Ok(ev) => redraw |= app.on_job(ev),
            Err(_) => break,
        }
    }
    app.settle();
    redraw |= app.service();
    redraw
}
