//! Bookmarks of rollouts (a reading group's playlist), kept in an append-only sidecar
//! `<rollouts>.bookmarks.jsonl` next to the rollout file, never in it (durability as in
//! [`super::sidecar`]: each change is on disk, fsync'd, before `Ok` is returned).
//!
//! Every change is a new record; the latest record of a rollout is its state. Playlist
//! order is `position` (then first bookmarking), so moving a bookmark appends two records
//! that swap positions with its neighbour.

use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::labels::rfc3339_utc;
use super::rollout::{LoadIssue, RolloutId};
use super::sidecar::{SidecarError, SidecarLog, sidecar_path};

/// Suffix of the bookmark sidecar: `run.jsonl` → `run.jsonl.bookmarks.jsonl`.
pub const BOOKMARKS_SUFFIX: &str = ".bookmarks.jsonl";

/// One bookmark change, as stored (one JSON line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookmarkRecord {
    pub rollout: RolloutId,
    /// 1-based line of the rollout in its file when the change was made (for playlists).
    pub line: usize,
    /// `false` removes the bookmark.
    pub bookmarked: bool,
    /// A one-line caption shown by the presenter.
    #[serde(default)]
    pub caption: String,
    /// Playlist order within the file (smaller first).
    pub position: i64,
    /// When the change was made (RFC 3339 UTC); informational only.
    #[serde(default)]
    pub time: String,
}

/// The bookmarks of one rollout file.
#[derive(Debug)]
pub struct BookmarkStore {
    log: SidecarLog<BookmarkRecord>,
    /// rollout → index into the log of its latest record.
    current: HashMap<RolloutId, usize>,
    /// rollout → index of the record that first bookmarked it (ties in `position`).
    first: HashMap<RolloutId, usize>,
}

impl BookmarkStore {
    /// Opens the bookmark sidecar of `rollout_file` (missing: empty). Damaged lines are
    /// returned as issues and skipped.
    pub fn open(rollout_file: &Path) -> Result<(BookmarkStore, Vec<LoadIssue>), SidecarError> {
        BookmarkStore::open_sidecar(&sidecar_path(rollout_file, BOOKMARKS_SUFFIX))
    }

    /// Opens a bookmark sidecar by its own path.
    pub fn open_sidecar(path: &Path) -> Result<(BookmarkStore, Vec<LoadIssue>), SidecarError> {
        let (log, issues) = SidecarLog::open(path)?;
        let mut store = BookmarkStore {
            log,
            current: HashMap::new(),
            first: HashMap::new(),
        };
        store.rebuild();
        Ok((store, issues))
    }

    /// Re-reads the sidecar to pick up other processes' changes.
    pub fn reload(&mut self) -> Result<Vec<LoadIssue>, SidecarError> {
        let issues = self.log.reload()?;
        self.rebuild();
        Ok(issues)
    }

    fn rebuild(&mut self) {
        self.current.clear();
        self.first.clear();
        for i in 0..self.log.records().len() {
            self.index(i);
        }
    }

    fn index(&mut self, i: usize) {
        let r = &self.log.records()[i].record;
        self.current.insert(r.rollout.clone(), i);
        if r.bookmarked {
            self.first.entry(r.rollout.clone()).or_insert(i);
        } else {
            self.first.remove(&r.rollout);
        }
    }

    /// The sidecar's path.
    pub fn path(&self) -> &Path {
        self.log.path()
    }

    fn append(&mut self, record: BookmarkRecord) -> Result<(), SidecarError> {
        self.log.append(record)?;
        self.index(self.log.records().len() - 1);
        Ok(())
    }

    /// The current bookmark of a rollout (`None` when not bookmarked).
    pub fn get(&self, id: &RolloutId) -> Option<&BookmarkRecord> {
        let r = &self.log.records()[*self.current.get(id)?].record;
        r.bookmarked.then_some(r)
    }

    /// Every current bookmark, in playlist order.
    pub fn list(&self) -> Vec<&BookmarkRecord> {
        let mut out: Vec<(&BookmarkRecord, usize)> = self
            .current
            .values()
            .map(|i| &self.log.records()[*i].record)
            .filter(|r| r.bookmarked)
            .map(|r| (r, self.first.get(&r.rollout).copied().unwrap_or(0)))
            .collect();
        out.sort_by_key(|(r, first)| (r.position, *first));
        out.into_iter().map(|(r, _)| r).collect()
    }

    fn stamp(
        id: &RolloutId,
        line: usize,
        on: bool,
        caption: &str,
        position: i64,
    ) -> BookmarkRecord {
        BookmarkRecord {
            rollout: id.clone(),
            line,
            bookmarked: on,
            caption: caption.to_string(),
            position,
            time: rfc3339_utc(SystemTime::now()),
        }
    }

    /// The position after the last bookmark of this file.
    pub fn next_position(&self) -> i64 {
        self.list().last().map_or(0, |r| r.position + 1)
    }

    /// Bookmarks the rollout (at the end of the playlist) or removes its bookmark; returns
    /// whether it is bookmarked now. Durable when it returns `Ok`.
    pub fn toggle(&mut self, id: &RolloutId, line: usize) -> Result<bool, SidecarError> {
        let next = self.next_position();
        self.toggle_at(id, line, next)
    }

    /// [`BookmarkStore::toggle`], a new bookmark taking `position` (playlists over several
    /// files order their bookmarks by one position scale).
    pub fn toggle_at(
        &mut self,
        id: &RolloutId,
        line: usize,
        position: i64,
    ) -> Result<bool, SidecarError> {
        let record = match self.get(id) {
            Some(r) => BookmarkStore::stamp(id, line, false, &r.caption, r.position),
            None => BookmarkStore::stamp(id, line, true, "", position),
        };
        let on = record.bookmarked;
        self.append(record)?;
        Ok(on)
    }

    /// Sets the caption of a bookmark (bookmarking the rollout first if needed).
    pub fn set_caption(
        &mut self,
        id: &RolloutId,
        line: usize,
        caption: &str,
    ) -> Result<(), SidecarError> {
        // One line: a caption is a slide title.
        let caption = caption.split_whitespace().collect::<Vec<_>>().join(" ");
        let position = match self.get(id) {
            Some(r) if r.caption == caption => return Ok(()),
            Some(r) => r.position,
            None => self.next_position(),
        };
        self.append(BookmarkStore::stamp(id, line, true, &caption, position))
    }

    /// Gives a bookmark a new playlist position (no record when it has it already);
    /// `Ok(false)` when the rollout is not bookmarked.
    pub fn set_position(&mut self, id: &RolloutId, position: i64) -> Result<bool, SidecarError> {
        let Some(r) = self.get(id).cloned() else {
            return Ok(false);
        };
        if r.position != position {
            self.append(BookmarkStore::stamp(id, r.line, true, &r.caption, position))?;
        }
        Ok(true)
    }

    /// Moves a bookmark `delta` places (negative: earlier) by swapping with its neighbour;
    /// returns its new 0-based place, or `None` when it is not bookmarked.
    pub fn move_by(&mut self, id: &RolloutId, delta: i32) -> Result<Option<usize>, SidecarError> {
        let list: Vec<BookmarkRecord> = self.list().into_iter().cloned().collect();
        let Some(at) = list.iter().position(|r| &r.rollout == id) else {
            return Ok(None);
        };
        let target = (at as i64 + i64::from(delta)).clamp(0, list.len() as i64 - 1) as usize;
        if target == at {
            return Ok(Some(at));
        }
        // Renumber the playlist in its new order; only records whose position changes are written.
        let mut order: Vec<&BookmarkRecord> = list.iter().collect();
        let moved = order.remove(at);
        order.insert(target, moved);
        let mut changes = Vec::new();
        for (k, r) in order.iter().enumerate() {
            if r.position != k as i64 {
                changes.push(BookmarkStore::stamp(
                    &r.rollout, r.line, true, &r.caption, k as i64,
                ));
            }
        }
        for c in changes {
            self.append(c)?;
        }
        Ok(Some(target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> RolloutId {
        RolloutId(s.to_string())
    }

    fn order(store: &BookmarkStore) -> Vec<String> {
        store.list().iter().map(|r| r.rollout.0.clone()).collect()
    }

    #[test]
    fn toggle_caption_reorder_and_reload() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("run.jsonl");
        let (mut s, issues) = BookmarkStore::open(&file).expect("opens");
        assert!(issues.is_empty());
        assert!(s.toggle(&id("a"), 1).expect("writes"));
        assert!(s.toggle(&id("b"), 2).expect("writes"));
        assert!(s.toggle(&id("c"), 3).expect("writes"));
        assert_eq!(order(&s), ["a", "b", "c"]);
        s.set_caption(&id("b"), 2, "  an invented\nname ")
            .expect("writes");
        assert_eq!(
            s.get(&id("b")).map(|r| r.caption.as_str()),
            Some("an invented name")
        );
        assert_eq!(s.move_by(&id("c"), -2).expect("writes"), Some(0));
        assert_eq!(order(&s), ["c", "a", "b"]);
        assert!(!s.toggle(&id("a"), 1).expect("writes"));
        assert_eq!(order(&s), ["c", "b"]);
        // A second bookmark of `a` goes to the end.
        assert!(s.toggle(&id("a"), 1).expect("writes"));
        assert_eq!(order(&s), ["c", "b", "a"]);
        let (again, _) = BookmarkStore::open(&file).expect("reopens");
        assert_eq!(order(&again), ["c", "b", "a"]);
        assert_eq!(
            again.get(&id("b")).map(|r| r.caption.as_str()),
            Some("an invented name")
        );
        assert!(std::fs::metadata(sidecar_path(&file, BOOKMARKS_SUFFIX)).is_ok());
        assert!(!file.exists(), "the rollout file is never written");
    }
}
