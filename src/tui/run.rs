//! The event loop: poll the terminal with a short timeout, drain worker results,
//! update, and draw only when something changed.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use anyhow::Result;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEventKind,
};
use ratatui::crossterm::execute;

use super::action::{Action, Scope};
use super::app::App;
use super::component::Component;
use super::effects::Effects;
use super::jobs::{JobEvent, Workers};
use super::load::Source;
use super::present::{Presenter, follow};
use super::ui;
use crate::grade::backend::GradeBackend;

/// How long one poll waits for a key before looking at worker results.
const POLL: Duration = Duration::from_millis(30);
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
    let result = event_loop(&mut terminal, &mut app, &workers, &rx);
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    app: &mut App,
    workers: &Workers,
    rx: &Receiver<JobEvent>,
) -> Result<()> {
    let size = terminal.size()?;
    app.update(&Action::Resize {
        width: size.width,
        height: size.height,
    });
    let mut redraw = true;
    // The presenter (`P`), while it holds the screen, with where it says it is.
    let mut presenting: Option<(Presenter, Option<std::path::PathBuf>)> = None;
    loop {
        for req in app.take_requests() {
            workers.dispatch(req);
        }
        if let Some((row, code)) = app.reruns.edit.take() {
            let edited = super::editor::edit_in_terminal(terminal, &code);
            app.on_edited(row, edited);
            redraw = true;
            continue;
        }
        if let Some(rows) = app.bookmarks.present.take() {
            // The projector's theme, whatever the explorer uses.
            let theme = super::Theme::builtin("high-contrast").unwrap_or_else(|| app.theme.clone());
            let p = Presenter::from_app(app, &rows, theme);
            let position = follow::position_file();
            if let Some(path) = &position {
                follow::publish(&p, path);
            }
            presenting = Some((p, position));
            redraw = true;
            continue;
        }
        if redraw {
            match &presenting {
                Some((p, _)) => terminal.draw(|frame| {
                    let area = frame.area();
                    p.draw(frame, area, &app.draw_cx());
                })?,
                None => terminal.draw(|frame| ui::draw(frame, app))?,
            };
            redraw = false;
        }
        if event::poll(POLL)? {
            // Take every queued input before drawing, so held keys do not lag.
            loop {
                let ev = event::read()?;
                if let Some((p, position)) = presenting.as_mut() {
                    // The presenter holds the screen: its keys only; any event redraws it
                    // and says where it is.
                    if let Event::Key(key) = &ev
                        && let Some(action) = p.key(key, None)
                    {
                        p.update(&action, &app.cx(), &mut Effects::default());
                    }
                    if let Some(path) = position {
                        follow::publish(p, path);
                    }
                    redraw = true;
                    if p.quit {
                        presenting = None;
                        terminal.clear()?;
                    }
                } else if let Some(action) = action_for_event(app, &ev) {
                    redraw |= app.update(&action);
                    // Label changes are on disk before anything is drawn or read next.
                    redraw |= app.service();
                }
                if app.should_quit || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        }
        if app.should_quit {
            return Ok(());
        }
        redraw |= pump(app, workers, rx);
        redraw |= super::export::request_view(app);
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
