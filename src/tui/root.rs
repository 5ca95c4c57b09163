//! The one event loop ([`event_loop`]) and what it runs ([`Root`]): poll for an event with
//! a short timeout, map it to an action, apply it, do the root's work between events, and
//! draw only when something changed. The roots: the explorer (`run::Explorer`, with the
//! presenter it opens on `P`), `sebx present` (`present::Presenting`) and `sebx present
//! --follow` (`present::follow::Following`). Apart from `run` so that the presenter, which
//! the explorer holds, can be a root without the two modules depending on each other.

use std::time::Duration;

use anyhow::Result;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{self, Event};
use ratatui::{Frame, Terminal};

use super::action::Action;

/// How long one poll waits for a key before the root's work between events.
pub const POLL: Duration = Duration::from_millis(30);

/// What the one event loop runs, holding the screen: the explorer, the presenter (`sebx
/// present`, or `P` inside the explorer) and the speaker-notes follower (`sebx present
/// --follow`). A root maps events to actions from its keymap, applies them, does its work
/// between events and draws; the loop polls, reads and redraws only when something changed.
pub trait Root<B: Backend> {
    /// The action a terminal event stands for (`None`: not one of this root's).
    fn action_for(&self, event: &Event) -> Option<Action>;
    /// Applies an action; returns whether to redraw.
    fn apply(&mut self, action: &Action) -> bool;
    /// The work between events (workers' results, a file to read); returns whether to redraw.
    fn idle(&mut self) -> bool {
        false
    }
    /// Work before the next draw that needs the terminal itself (an editor run in it, a
    /// screen to clear); returns whether to redraw.
    fn prepare(&mut self, _terminal: &mut Terminal<B>) -> Result<bool> {
        Ok(false)
    }
    /// Draws the whole screen.
    fn draw(&self, frame: &mut Frame);
    /// Whether the loop ends.
    fn done(&self) -> bool;
}

/// Where the loop's events come from: the terminal, or a test's script.
pub trait Events {
    /// Whether an event is ready within `timeout`.
    fn poll(&mut self, timeout: Duration) -> Result<bool>;
    /// The next event (after `poll` said one is ready).
    fn read(&mut self) -> Result<Event>;
}

/// The terminal's events (crossterm).
pub struct TerminalEvents;

impl Events for TerminalEvents {
    fn poll(&mut self, timeout: Duration) -> Result<bool> {
        Ok(event::poll(timeout)?)
    }

    fn read(&mut self) -> Result<Event> {
        Ok(event::read()?)
    }
}

/// The one event loop: the root's terminal work, a draw when something changed, every
/// queued event as an action (held keys do not lag), then its work between events; until
/// the root is done.
pub fn event_loop<B, R>(
    terminal: &mut Terminal<B>,
    root: &mut R,
    events: &mut dyn Events,
) -> Result<()>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    R: Root<B>,
{
    let size = terminal.size()?;
    root.apply(&Action::Resize {
        width: size.width,
        height: size.height,
    });
    let mut redraw = true;
    loop {
        redraw |= root.prepare(terminal)?;
        if redraw {
            terminal.draw(|frame| root.draw(frame))?;
            redraw = false;
        }
        if events.poll(POLL)? {
            loop {
                let ev = events.read()?;
                if let Some(action) = root.action_for(&ev) {
                    redraw |= root.apply(&action);
                }
                if root.done() || !events.poll(Duration::ZERO)? {
                    break;
                }
            }
        }
        if root.done() {
            return Ok(());
        }
        redraw |= root.idle();
    }
}
