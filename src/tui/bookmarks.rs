//! Bookmarks in the explorer: `b` toggles one on the selected rollout, `B` writes its
//! caption, `{` / `}` move it in the playlist, `P` presents the playlist.
//!
//! Like labels, `update` only queues changes; the I/O step (`Component::service`) (the event loop's I/O step)
//! writes them to each run's `<rollouts>.bookmarks.jsonl` (beside the label sidecar, under
//! the data dir for the built-in demo), and only then does the screen say "saved".

use crate::model::bookmarks::BookmarkStore;
use crate::model::sidecar::SidecarError;

use std::path::Path;

use super::action::{Action, Keymap};
use super::component::{Component, Cx, Marks};
use super::effects::{Effects, Handled};
use super::state::{Corpus, ListView};
use super::textbox::{TextBox, Typed};

/// A change waiting for the I/O step (`Component::service`).
#[derive(Debug, Clone, PartialEq)]
enum Change {
    Toggle,
    Caption(String),
    Move(i32),
}

/// Bookmark state of the explorer.
#[derive(Debug, Default)]
pub struct Bookmarks {
    /// One store per run (`None`: not opened yet, or it could not be).
    stores: Vec<Option<BookmarkStore>>,
    pending: Vec<(usize, Change)>,
    /// The caption box (`B`).
    pub caption: TextBox,
    /// Rows and captions the user asked to present (taken by the event loop).
    pub present: Option<Vec<(usize, String)>>,
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
    /// Makes the next the I/O step (`Component::service`) re-read sidecars other explorers have appended to.
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

impl Marks for Bookmarks {
    fn is_bookmarked(&self, entry: &super::entry::Entry) -> bool {
        Bookmarks::is_bookmarked(self, entry)
    }
}

impl Component for Bookmarks {
    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        self.handle(action, cx.corpus, cx.list, cx.keys, fx)
    }

    /// Bookmark sidecars sit beside the label sidecars (under the data dir for the demo).
    fn service(&mut self, cx: &Cx<'_>, fx: &mut Effects) -> bool {
        self.write(cx.corpus, &cx.labels.bookmark_sidecars(), cx.keys, fx)
    }
}

/// One bookmark of the explorer's playlist.
struct Marked {
    row: usize,
    run: usize,
    position: i64,
    caption: String,
}

impl Bookmarks {
    /// Every bookmark of every run, in playlist order: by position (one scale across
    /// files), then run, then order within the file.
    fn marked(&self, corpus: &Corpus) -> Vec<Marked> {
        let mut out = Vec::new();
        for (run, store) in self.stores.iter().enumerate() {
            let Some(store) = store else { continue };
            for r in store.list() {
                if let Some(row) = corpus
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
    pub fn playlist_rows(&self, corpus: &Corpus) -> Vec<(usize, String)> {
        self.marked(corpus)
            .into_iter()
            .map(|m| (m.row, m.caption))
            .collect()
    }

    /// Handles bookmark actions (and typing a caption), and the export request.
    fn handle(
        &mut self,
        action: &Action,
        corpus: &Corpus,
        list: &ListView,
        keys: &Keymap,
        fx: &mut Effects,
    ) -> Handled {
        match self.caption.update(action) {
            Typed::Edited => return Handled::Redraw,
            Typed::Submitted(text) => {
                let text = text.trim().to_string();
                self.pending.push((self.caption.row, Change::Caption(text)));
                return Handled::Redraw;
            }
            Typed::Cancelled => {
                fx.say("caption not changed");
                return Handled::Redraw;
            }
            Typed::Other => {}
        }
        let selected = list.selected;
        let row = match action {
            Action::ToggleBookmark
            | Action::BookmarkCaption
            | Action::BookmarkEarlier
            | Action::BookmarkLater => match selected {
                Some(row) => row,
                None => return Handled::Unchanged,
            },
            _ => 0,
        };
        match action {
            Action::ToggleBookmark => self.pending.push((row, Change::Toggle)),
            Action::BookmarkCaption => {
                let text = self.caption_of(&corpus.entries, row).unwrap_or_default();
                self.caption.open(row, &text, false);
            }
            Action::BookmarkEarlier => self.pending.push((row, Change::Move(-1))),
            Action::BookmarkLater => self.pending.push((row, Change::Move(1))),
            Action::Present => {
                let mut rows = self.playlist_rows(corpus);
                if rows.is_empty() {
                    // No bookmarks: present the selected rollout alone.
                    match selected {
                        Some(r) => rows.push((r, String::new())),
                        None => {
                            fx.say(
                                match keys.says(Action::ToggleBookmark, "bookmarks rollouts") {
                                    Some(how) => format!("nothing to present: {how}"),
                                    None => "nothing to present".to_string(),
                                },
                            );
                            return Handled::Redraw;
                        }
                    }
                }
                self.present = Some(rows);
            }
            Action::ExportView => {
                fx.export_view = selected.is_some();
                if selected.is_none() {
                    fx.say("no rollout selected to export");
                }
            }
            _ => return Handled::Passed,
        }
        Handled::Redraw
    }

    /// The event loop's I/O step for bookmarks: opens each run's store (placed with its
    /// labels, `sidecars` in run order) and writes queued changes durably, then says so.
    /// Returns whether to redraw.
    fn write(
        &mut self,
        corpus: &Corpus,
        sidecars: &[&Path],
        keys: &Keymap,
        fx: &mut Effects,
    ) -> bool {
        let mut redraw = false;
        while self.stores.len() < sidecars.len() {
            let path = sidecars[self.stores.len()];
            let store = match BookmarkStore::open_sidecar(path) {
                Ok((store, issues)) => {
                    fx.issues.extend(issues);
                    Some(store)
                }
                Err(e) => {
                    fx.say(format!("bookmarks: {e}"));
                    None
                }
            };
            self.seen_len.push(sidecar_len(store.as_ref()));
            self.stores.push(store);
            redraw = true;
        }
        let due = self.last_reload.is_none_or(|t| t.elapsed() >= RELOAD_EVERY);
        if due {
            self.last_reload = Some(std::time::Instant::now());
            for (store, seen) in self.stores.iter_mut().zip(self.seen_len.iter_mut()) {
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
        for (row, change) in std::mem::take(&mut self.pending) {
            redraw = true;
            let Some(entry) = corpus.entries.get(row) else {
                continue;
            };
            let Some(Some(store)) = self.stores.get(entry.run) else {
                fx.say("NOT saved: this run's bookmark file could not be opened");
                continue;
            };
            let id = &entry.rollout.id;
            let line = entry.rollout.line;
            // The whole path: the sidecar need not be beside the file.
            let file = store.path().display().to_string();
            let result = match change {
                Change::Toggle => {
                    // New bookmarks go to the end of the whole playlist, whatever file they
                    // are in.
                    let next = self.marked(corpus).last().map_or(0, |m| m.position + 1);
                    let Some(Some(store)) = self.stores.get_mut(entry.run) else {
                        continue;
                    };
                    store.toggle_at(id, line, next).map(|on| {
                        let n = self.playlist_rows(corpus).len();
                        if on {
                            let present = keys
                                .says(Action::Present, "presents")
                                .map_or(String::new(), |s| format!(", {s}"));
                            format!("bookmarked ({n} in the playlist{present})")
                        } else {
                            format!("bookmark removed ({n} left)")
                        }
                    })
                }
                Change::Caption(text) => match self.stores.get_mut(entry.run) {
                    Some(Some(store)) => store
                        .set_caption(id, line, &text)
                        .map(|()| format!("caption: {text}")),
                    _ => continue,
                },
                Change::Move(delta) => self.move_bookmark(corpus, row, delta, keys),
            };
            fx.say(match result {
                Ok(what) => format!("saved to {file}: {what}"),
                Err(e) => format!("NOT saved: {e}"),
            });
        }
        redraw
    }

    /// Moves `row`'s bookmark `delta` places in the playlist (across files): the playlist
    /// is renumbered in its new order, writing only the bookmarks whose position changes.
    fn move_bookmark(
        &mut self,
        corpus: &Corpus,
        row: usize,
        delta: i32,
        keys: &Keymap,
    ) -> Result<String, SidecarError> {
        let mut list = self.marked(corpus);
        let Some(at) = list.iter().position(|m| m.row == row) else {
            return Ok(format!(
                "not bookmarked{}",
                keys.says(Action::ToggleBookmark, "bookmarks it")
                    .map_or(String::new(), |s| format!(": {s}"))
            ));
        };
        let target = (at as i64 + i64::from(delta)).clamp(0, list.len() as i64 - 1) as usize;
        let moved = list.remove(at);
        list.insert(target, moved);
        for (k, m) in list.iter().enumerate() {
            if m.position == k as i64 {
                continue;
            }
            let Some(entry) = corpus.entries.get(m.row) else {
                continue;
            };
            if let Some(Some(store)) = self.stores.get_mut(m.run) {
                store.set_position(&entry.rollout.id, k as i64)?;
            }
        }
        Ok(format!("bookmark now {}/{}", target + 1, list.len()))
    }
}
