//! Speaker notes on the presenter's own terminal: the projecting `sebx present` writes
//! where it is (slide and stage) to a small file each time it moves, and `sebx present
//! --follow` in a second terminal reads it and shows that slide's notes, full screen, so
//! the projected screen needs no notes at all. The notes follow the same rule as on the
//! projector: nothing of a stage not yet revealed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyEventKind};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::super::action::{Action, Scope};
use super::super::root::Root;
use super::{Presenter, Stage};

/// How often the follower reads the position file (the event loop polls more often).
const POLL: Duration = Duration::from_millis(200);

/// Where presenters say where they are: `$SEBX_DATA_DIR/present-position`, else
/// `<data dir>/sebx/present-position`.
pub fn position_file() -> Option<PathBuf> {
    crate::model::sidecar::data_dir().map(|d| d.join("present-position"))
}

impl Presenter {
    /// Where this presenter is, as the position file holds it: the slide's rollout id, its
    /// index and the stage.
    pub fn position_text(&self) -> String {
        let id = self
            .slides
            .get(self.index)
            .map_or(String::new(), |s| s.entry.rollout.id.to_string());
        let stage = Stage::ALL
            .iter()
            .position(|s| *s == self.stage)
            .unwrap_or(0);
        format!("{id} {} {stage}\n", self.index)
    }

    /// Moves to the position in `text` (see [`Presenter::position_text`]): the slide of
    /// that rollout id (its index when ids repeat), at that stage. Returns whether it moved.
    pub fn follow_position(&mut self, text: &str) -> bool {
        let mut parts = text.split_whitespace();
        let (Some(id), Some(index), Some(stage)) = (parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        let (Ok(index), Ok(stage)) = (index.parse::<usize>(), stage.parse::<usize>()) else {
            return false;
        };
        let same = |k: usize| {
            self.slides
                .get(k)
                .is_some_and(|s| s.entry.rollout.id.to_string() == id)
        };
        let k = if same(index) {
            Some(index)
        } else {
            (0..self.slides.len()).find(|k| same(*k))
        };
        let (Some(k), Some(stage)) = (k, Stage::ALL.get(stage).copied()) else {
            return false;
        };
        let moved = (k, stage) != (self.index, self.stage);
        self.index = k;
        self.stage = stage;
        moved
    }
}

/// Writes where `p` is to `path` (a presenter that cannot write just has no follower).
pub fn publish(p: &Presenter, path: &Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(path, p.position_text());
}

/// The follower's screen: which slide and stage the projector shows, then its notes.
pub fn render_notes(p: &Presenter, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    Block::default().style(t.base).render(area, buf);
    let [bar, body] = Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(area);
    let Some(slide) = p.slides.get(p.index) else {
        Paragraph::new("waiting for the presenter…")
            .style(t.dim)
            .render(area, buf);
        return;
    };
    Paragraph::new(Line::from(vec![
        Span::styled(format!(" {} ", p.stage.title()), t.tab_active),
        Span::styled(
            format!(
                "  {}  speaker notes ({})",
                p.position(),
                p.keys
                    .hint(Scope::Present, &[(&[Action::CloseScreen], "quits")])
            ),
            t.title,
        ),
    ]))
    .render(bar, buf);
    Paragraph::new(p.note_lines(slide, p.stage))
        .wrap(Wrap { trim: false })
        .render(body, buf);
}

/// `sebx present --follow` as the event loop's root: shows the notes of wherever the
/// projecting presenter is (read from its position file between events), until a key
/// closing the presenter (`q`, `esc` by default).
pub struct Following {
    pub presenter: Presenter,
    path: PathBuf,
    /// The position file's text last followed.
    seen: String,
    /// When the file was last read.
    read_at: Option<Instant>,
}

impl Following {
    /// Follows the presenter that writes its position to `path`.
    pub fn new(presenter: Presenter, path: PathBuf) -> Following {
        Following {
            presenter,
            path,
            seen: String::new(),
            read_at: None,
        }
    }
}

impl<B: Backend> Root<B> for Following {
    fn action_for(&self, event: &Event) -> Option<Action> {
        match event {
            // Only the key that closes the presenter: the projector moves, not this one.
            Event::Key(key) if key.kind != KeyEventKind::Release => self
                .presenter
                .keys
                .action_in(Scope::Present, key)
                .filter(|a| *a == Action::CloseScreen),
            Event::Resize(width, height) => Some(Action::Resize {
                width: *width,
                height: *height,
            }),
            _ => None,
        }
    }

    fn apply(&mut self, action: &Action) -> bool {
        if *action == Action::CloseScreen {
            self.presenter.quit = true;
        }
        true
    }

    fn idle(&mut self) -> bool {
        if self.read_at.is_some_and(|t| t.elapsed() < POLL) {
            return false;
        }
        self.read_at = Some(Instant::now());
        match std::fs::read_to_string(&self.path) {
            Ok(text) if text != self.seen => {
                self.presenter.follow_position(&text);
                self.seen = text;
                true
            }
            _ => false,
        }
    }

    fn draw(&self, frame: &mut Frame) {
        render_notes(&self.presenter, frame.area(), frame.buffer_mut());
    }

    fn done(&self) -> bool {
        self.presenter.quit
    }
}
