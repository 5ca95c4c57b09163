//! Waking the follower when a followed folder or file changes (`notify`: inotify on Linux),
//! so new lines are read as they are written rather than at the next poll. The follower
//! still looks every second whatever the watcher says: inotify does not see writes made by
//! another machine on a shared file system, and a watch can fail (the system's limit of
//! watches reached); then [`Wake::why_not`] says why and polling alone carries on.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// After a change, how long to wait for the rest of a write before looking (a buffered
/// writer writes a step file in many pieces; one look takes them together).
const SETTLE: Duration = Duration::from_millis(20);

/// A watcher of the followed folders and files, and the signal it raises.
pub(super) struct Wake {
    rx: Receiver<()>,
    /// Kept alive while following (dropping it ends the watches).
    watcher: Option<RecommendedWatcher>,
    /// The folders watched.
    watched: HashSet<PathBuf>,
    why_not: Option<String>,
}

impl Wake {
    /// Watches `paths`: a folder for any change of what it holds, a file through its
    /// folder (so a file replaced by another is still seen).
    pub fn watch(paths: &[PathBuf]) -> Wake {
        let (tx, rx) = sync_channel(1);
        let handler = move |res: notify::Result<notify::Event>| {
            // Events lost (the queue overflowed): look, in case.
            if res.map_or(true, |event| changes(&event.kind)) {
                // A wake already pending is enough.
                let _ = tx.try_send(());
            }
        };
        let mut wake = Wake {
            rx,
            watcher: None,
            watched: HashSet::new(),
            why_not: None,
        };
        match notify::recommended_watcher(handler) {
            Ok(w) => wake.watcher = Some(w),
            Err(e) => wake.why_not = Some(format!("cannot watch the file system: {e}")),
        }
        for p in paths {
            wake.add(p);
        }
        wake
    }

    /// Watches one more folder or file (a run that appeared in a followed folder).
    pub fn add(&mut self, path: &Path) {
        let Some(watcher) = &mut self.watcher else {
            return;
        };
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let dir = if path.is_dir() {
            path
        } else {
            match path.parent() {
                Some(d) => d.to_path_buf(),
                None => return,
            }
        };
        if self.watched.contains(&dir) {
            return;
        }
        match watcher.watch(&dir, RecursiveMode::NonRecursive) {
            Ok(()) => {
                self.watched.insert(dir);
            }
            Err(e) => {
                self.why_not
                    .get_or_insert_with(|| format!("cannot watch {}: {e}", dir.display()));
            }
        }
    }

    /// Why some of what is followed is not watched (it is then polled alone).
    pub fn why_not(&self) -> Option<&str> {
        self.why_not.as_deref()
    }

    /// Waits up to `timeout` for a change; whether one came (the rest of its write given
    /// a moment to land).
    pub fn wait(&self, timeout: Duration) -> bool {
        match self.rx.recv_timeout(timeout) {
            Ok(()) => {
                std::thread::sleep(SETTLE);
                while self.rx.try_recv().is_ok() {}
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            // No watcher: only the poll.
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(timeout);
                false
            }
        }
    }
}

/// Whether an event changes what a file holds or which files there are: reading a file
/// (the follower's own reads among them) does not.
fn changes(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}
