//! Bookmarks in the explorer: `b` toggles one on the selected rollout, `B` writes its
//! caption, `{` / `}` move it in the playlist, `P` presents the playlist.
//!
//! Like labels, `update` only queues changes; [`service`] (the event loop's I/O step)
//! writes them to each run's `<rollouts>.bookmarks.jsonl` (beside the label sidecar, under
//! the data dir for the built-in demo), and only then does the screen say "saved".

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::model::bookmarks::BookmarkStore;
use crate::model::sidecar::SidecarError;

use super::action::Action;
use super::app::App;

/// A change waiting for [`service`].
#[derive(Debug, Clone, PartialEq)]
enum Change {
    Toggle,
    Caption(String),
    Move(i32),
}

/// The caption being typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptionEdit {
    pub row: usize,
    pub text: String,
}

/// Bookmark state of the explorer.
#[derive(Debug, Default)]
pub struct Bookmarks {
    /// One store per run (`None`: not opened yet, or it could not be).
    stores: Vec<Option<BookmarkStore>>,
    pending: Vec<(usize, Change)>,
    pub caption: Option<CaptionEdit>,
    /// Rows and captions the user asked to present (taken by the event loop).
    pub present: Option<Vec<(usize, String)>>,
    /// The user asked to export the current view (done by the event loop's I/O step).
    pub export: bool,
    /// Sidecar sizes last seen, to notice other explorers' changes.
    seen_len: Vec<u64>,
    last_reload: Option<std::time::Instant>,
}

/// How often the sidecars are checked for other explorers' changes.
const RELOAD_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

fn sidecar_len(store: Option<&BookmarkStore>) -> u64 {
    store
        .and_then(|s| std::fs::metadata(s.path()).ok())
        .map_or(0, |m| m.len())
}

impl Bookmarks {
    /// Makes the next [`service`] re-read sidecars other explorers have appended to.
    pub fn reload_soon(&mut self) {
        self.last_reload = None;
    }

    /// The caption of a bookmarked row (`Some("")` when bookmarked without one).
    pub fn caption_of(
        &self,
        app_entries: &[std::sync::Arc<super::entry::Entry>],
        row: usize,
    ) -> Option<String> {
        let e = app_entries.get(row)?;
        let store = self.stores.get(e.run)?.as_ref()?;
        store.get(&e.rollout.id).map(|r| r.caption.clone())
    }

    /// Whether a row is bookmarked (saved).
    pub fn is_bookmarked(&self, entry: &super::entry::Entry) -> bool {
        self.stores
            .get(entry.run)
            .and_then(Option::as_ref)
            .is_some_and(|s| s.get(&entry.rollout.id).is_some())
    }

    /// The store of a run, once opened.
    pub fn store(&self, run: usize) -> Option<&BookmarkStore> {
        self.stores.get(run)?.as_ref()
    }
}

/// One bookmark of the explorer's playlist.
struct Marked {
    row: usize,
    run: usize,
    position: i64,
    caption: String,
}

/// Every bookmark of every run, in playlist order: by position (one scale across files),
/// then run, then order within the file.
fn marked(app: &App) -> Vec<Marked> {
    let mut out = Vec::new();
    for (run, store) in app.bookmarks.stores.iter().enumerate() {
        let Some(store) = store else { continue };
        for r in store.list() {
            if let Some(row) = app
                .corpus
                .entries
                .iter()
                .position(|e| e.run == run && e.rollout.id == r.rollout)
            {
                out.push(Marked {
                    row,
                    run,
                    position: r.position,
                    caption: r.caption.clone(),
                });
            }
        }
    }
    // Stable: within a file, the store's own order is kept.
    out.sort_by_key(|m| (m.position, m.run));
    out
}

/// Every bookmarked row with its caption, in playlist order (across files).
pub fn playlist_rows(app: &App) -> Vec<(usize, String)> {
    marked(app)
        .into_iter()
        .map(|m| (m.row, m.caption))
        .collect()
}

/// Handles bookmark actions (and typing a caption); `None` for everything else.
pub fn update(app: &mut App, action: &Action) -> Option<bool> {
    if app.bookmarks.caption.is_some() {
        match action {
            Action::NoteInput(c) => {
                if let Some(c2) = app.bookmarks.caption.as_mut() {
                    c2.text.push(*c);
                }
                return Some(true);
            }
            Action::NoteBackspace => {
                if let Some(c) = app.bookmarks.caption.as_mut() {
                    c.text.pop();
                }
                return Some(true);
            }
            Action::NoteSubmit => {
                if let Some(c) = app.bookmarks.caption.take() {
                    app.bookmarks
                        .pending
                        .push((c.row, Change::Caption(c.text.trim().to_string())));
                }
                return Some(true);
            }
            Action::Cancel => {
                app.bookmarks.caption = None;
                app.message = Some("caption not changed".to_string());
                return Some(true);
            }
            _ => {}
        }
    }
    let row = app.list.selected;
    match action {
        Action::ToggleBookmark => {
            let row = row?;
            app.bookmarks.pending.push((row, Change::Toggle));
        }
        Action::BookmarkCaption => {
            let row = row?;
            let text = app
                .bookmarks
                .caption_of(&app.corpus.entries, row)
                .unwrap_or_default();
            app.bookmarks.caption = Some(CaptionEdit { row, text });
        }
        Action::BookmarkEarlier | Action::BookmarkLater => {
            let row = row?;
            let delta = if *action == Action::BookmarkEarlier {
                -1
            } else {
                1
            };
            app.bookmarks.pending.push((row, Change::Move(delta)));
        }
        Action::Present => {
            let mut rows = playlist_rows(app);
            if rows.is_empty() {
                // No bookmarks: present the selected rollout alone.
                match app.list.selected {
                    Some(r) => rows.push((r, String::new())),
                    None => {
                        app.message = Some("nothing to present: b bookmarks rollouts".into());
                        return Some(true);
                    }
                }
            }
            app.bookmarks.present = Some(rows);
        }
        _ => return None,
    }
    Some(true)
}

/// Keys taken before the keymap while a caption is typed.
pub fn action_for_key(app: &App, key: &KeyEvent) -> Option<Action> {
    app.bookmarks.caption.as_ref()?;
    let plain = !key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match key.code {
        KeyCode::Char(c) if plain => Some(Action::NoteInput(c)),
        KeyCode::Backspace => Some(Action::NoteBackspace),
        KeyCode::Enter => Some(Action::NoteSubmit),
        KeyCode::Esc => Some(Action::Cancel),
        _ => None,
    }
}

/// The event loop's I/O step for bookmarks: opens each run's store (next to its label
/// sidecar) and writes queued changes durably, then says so. Returns whether to redraw.
pub fn service(app: &mut App) -> bool {
    let mut redraw = false;
    while app.bookmarks.stores.len() < app.labelling.sidecars.len() {
        let run = app.bookmarks.stores.len();
        let base = app.labelling.sidecars[run].base.clone();
        let store = match BookmarkStore::open(&base) {
            Ok((store, issues)) => {
                app.corpus.issues.extend(issues);
                Some(store)
            }
            Err(e) => {
                app.message = Some(format!("bookmarks: {e}"));
                None
            }
        };
        app.bookmarks.seen_len.push(sidecar_len(store.as_ref()));
        app.bookmarks.stores.push(store);
        redraw = true;
    }
    let due = app
        .bookmarks
        .last_reload
        .is_none_or(|t| t.elapsed() >= RELOAD_EVERY);
    if due {
        app.bookmarks.last_reload = Some(std::time::Instant::now());
        let b = &mut app.bookmarks;
        for (store, seen) in b.stores.iter_mut().zip(b.seen_len.iter_mut()) {
            let len = sidecar_len(store.as_ref());
            if len != *seen {
                *seen = len;
                if let Some(s) = store.as_mut()
                    && s.reload().is_ok()
                {
                    redraw = true;
                }
            }
        }
    }
    let pending = std::mem::take(&mut app.bookmarks.pending);
    for (row, change) in pending {
        redraw = true;
        let Some(entry) = app.corpus.entries.get(row).cloned() else {
            continue;
        };
        let Some(Some(store)) = app.bookmarks.stores.get_mut(entry.run) else {
            app.message = Some("NOT saved: this run's bookmark file could not be opened".into());
            continue;
        };
        let id = &entry.rollout.id;
        let line = entry.rollout.line;
        let file = store
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let result = match change {
            Change::Toggle => {
                // New bookmarks go to the end of the whole playlist, whatever file they are in.
                let next = marked(app).last().map_or(0, |m| m.position + 1);
                let Some(Some(store)) = app.bookmarks.stores.get_mut(entry.run) else {
                    continue;
                };
                store.toggle_at(id, line, next).map(|on| {
                    let n = playlist_rows(app).len();
                    if on {
                        format!("bookmarked ({n} in the playlist, P presents)")
                    } else {
                        format!("bookmark removed ({n} left)")
                    }
                })
            }
            Change::Caption(text) => store
                .set_caption(id, line, &text)
                .map(|()| format!("caption: {text}")),
            Change::Move(delta) => move_bookmark(app, row, delta),
        };
        app.message = Some(match result {
            Ok(what) => format!("saved to {file}: {what}"),
            Err(e) => format!("NOT saved: {e}"),
        });
    }
    redraw
}

/// Moves `row`'s bookmark `delta` places in the playlist (across files): the playlist is
/// renumbered in its new order, writing only the bookmarks whose position changes.
fn move_bookmark(app: &mut App, row: usize, delta: i32) -> Result<String, SidecarError> {
    let mut list = marked(app);
    let Some(at) = list.iter().position(|m| m.row == row) else {
        return Ok("not bookmarked: b bookmarks it".to_string());
    };
    let target = (at as i64 + i64::from(delta)).clamp(0, list.len() as i64 - 1) as usize;
    let moved = list.remove(at);
    list.insert(target, moved);
    for (k, m) in list.iter().enumerate() {
        if m.position == k as i64 {
            continue;
        }
        let Some(entry) = app.corpus.entries.get(m.row).cloned() else {
            continue;
        };
        if let Some(Some(store)) = app.bookmarks.stores.get_mut(m.run) {
            store.set_position(&entry.rollout.id, k as i64)?;
        }
    }
    Ok(format!("bookmark now {}/{}", target + 1, list.len()))
}
