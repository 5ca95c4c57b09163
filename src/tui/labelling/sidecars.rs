//! Labelling's I/O step: opening each run's sidecars (the built-in demo's under the data
//! dir, seeded with its example labels), writing queued label changes and this session's
//! reruns, picking up other explorers' appends, and the progress counts over the store.

use std::path::Path;
use std::time::Instant;

use crate::grade::reruns::{RERUNS_SUFFIX, RerunStore};
use crate::model::Verdict;
use crate::model::bookmarks::BOOKMARKS_SUFFIX;
use crate::model::labels::{LABELS_SUFFIX, LabelStore, Progress};
use crate::model::sidecar::{SidecarPlace, sidecar_path};
use crate::model::taxonomy::Taxonomy;
use crate::session::label_progress::{LabelRow, LabelTally};

use super::super::effects::Effects;
use super::super::rerun::Reruns;
use super::super::state::Corpus;
use super::{Labelling, RELOAD_EVERY, RunSidecars, describe};

impl Labelling {
    /// The event loop's I/O step for labels: opens the sidecars of new runs, writes queued
    /// label changes (each durably, before the screen confirms it), and picks up other
    /// explorers' changes now and then. Returns whether to redraw.
    pub(super) fn write(&mut self, corpus: &Corpus, fx: &mut Effects) -> bool {
        let mut redraw = false;
        if !self.taxonomy_loaded {
            self.taxonomy_loaded = true;
            self.load_taxonomy(fx);
        }
        while self.sidecars.len() < corpus.runs.len() {
            let path = corpus.runs[self.sidecars.len()].path.clone();
            self.open_run(&path, fx);
            redraw = true;
        }
        for p in std::mem::take(&mut self.pending) {
            redraw = true;
            let summary = describe(&self.taxonomy, &p.record);
            let Some(sidecars) = self.sidecars.get_mut(p.run) else {
                fx.say("NOT saved: this run's label file could not be opened");
                continue;
            };
            let embedded = sidecars.embedded;
            let Some(store) = sidecars.labels.as_mut() else {
                fx.say("NOT saved: this run's label file could not be opened");
                continue;
            };
            match store.append(p.record) {
                Ok(()) => {
                    // The whole path: a sidecar need not be beside its file (the demo's
                    // is built in, a read-only folder's goes to the fallback).
                    let name = if embedded {
                        format!("{} (built-in demo)", store.path().display())
                    } else {
                        store.path().display().to_string()
                    };
                    // What changed, and where: with label-and-advance the cursor has
                    // already moved on.
                    fx.say(match &p.undoes {
                        Some(at) => format!(
                            "undone on {at}: saved to {name}: back to {summary} ({})",
                            p.change
                        ),
                        None => format!("saved to {name}: {summary} ({})", p.change),
                    });
                    self.progress_dirty = true;
                }
                Err(e) => fx.say(format!("NOT saved: {e}")),
            }
        }
        let due = self.last_reload.is_none_or(|t| t.elapsed() >= RELOAD_EVERY);
        if due {
            self.last_reload = Some(Instant::now());
            redraw |= self.reload_changed(corpus, fx);
        }
        // Grades arriving change which rows are failures.
        if self.progress_dirty
            || self.progress_rows != corpus.entries.len()
            || self.progress_scores != corpus.scores_changed
        {
            self.recompute_progress(corpus);
            redraw = true;
        }
        redraw
    }

    fn load_taxonomy(&mut self, fx: &mut Effects) {
        let first_file = self
            .registered
            .iter()
            .filter(|(_, embedded)| !**embedded)
            .map(|(p, _)| p.clone())
            .min();
        let result = match (&self.taxonomy_path, &first_file) {
            (Some(p), _) => Taxonomy::load(p),
            (None, Some(f)) => Taxonomy::for_rollout_file(f, None),
            (None, None) => return,
        };
        match result {
            Ok(t) => self.taxonomy = t.with_spare_keys(&self.spare_keys),
            Err(e) => {
                fx.notes
                    .push(format!("Taxonomy unusable, using the default: {e}"));
                fx.say(format!("taxonomy: {e}"));
            }
        }
    }

    fn open_run(&mut self, path: &Path, fx: &mut Effects) {
        let embedded = self.registered.get(path).copied().unwrap_or(false);
        let base = if embedded {
            let dir = self
                .data_dir
                .clone()
                .unwrap_or_else(std::env::temp_dir)
                .join("demo");
            if let Err(e) = std::fs::create_dir_all(&dir) {
                fx.say(format!("cannot create {}: {e}", dir.display()));
            }
            let base = dir.join(path.file_name().unwrap_or(path.as_os_str()));
            if let Some(seed) = self.seeds.get(path).copied()
                && let Err(e) = seed_sidecar(&sidecar_path(&base, LABELS_SUFFIX), seed)
            {
                fx.say(format!("cannot write the demo's example labels: {e}"));
            }
            base
        } else {
            path.to_path_buf()
        };
        // A file's sidecars where the places say (beside it, the chosen folder, or the
        // fallback when its folder is read-only); the demo's under the data dir.
        let place = |suffix: &str| {
            if embedded {
                SidecarPlace {
                    path: sidecar_path(&base, suffix),
                    note: None,
                }
            } else {
                self.places.locate(path, suffix)
            }
        };
        let (labels_at, reruns_at, bookmarks_at) = (
            place(LABELS_SUFFIX),
            place(RERUNS_SUFFIX),
            place(BOOKMARKS_SUFFIX),
        );
        let mut notes: Vec<String> = [&labels_at, &reruns_at, &bookmarks_at]
            .into_iter()
            .filter_map(|p| p.note.clone())
            .collect();
        notes.dedup();
        for note in notes {
            fx.say(note.clone());
            fx.notes.push(note);
        }
        let mut sidecars = RunSidecars {
            base: base.clone(),
            embedded,
            bookmarks: bookmarks_at.path,
            labels: None,
            reruns: None,
            error: None,
            seen_len: (0, 0),
        };
        match LabelStore::open_sidecar(&labels_at.path) {
            Ok((store, issues)) => {
                report_issues(issues, fx);
                sidecars.labels = Some(store);
            }
            Err(e) => sidecars.error = Some(e.to_string()),
        }
        match RerunStore::open_sidecar(&reruns_at.path) {
            Ok((store, issues)) => {
                report_issues(issues, fx);
                sidecars.reruns = Some(store);
            }
            Err(e) => sidecars.error = Some(e.to_string()),
        }
        sidecars.seen_len = sidecar_lens(&sidecars);
        if embedded {
            fx.notes.push(format!(
                "The demo is built in: its labels and reruns are kept in {}",
                base.parent().unwrap_or(&base).display()
            ));
        }
        self.sidecars.push(sidecars);
        self.progress_dirty = true;
    }

    /// Reloads sidecars another process has appended to.
    fn reload_changed(&mut self, corpus: &Corpus, fx: &mut Effects) -> bool {
        let mut changed = false;
        let mut issues = Vec::new();
        for s in &mut self.sidecars {
            let lens = sidecar_lens(s);
            if lens == s.seen_len {
                continue;
            }
            s.seen_len = lens;
            if let Some(store) = s.labels.as_mut()
                && let Ok(found) = store.reload()
            {
                issues.extend(found);
            }
            if let Some(store) = s.reruns.as_mut()
                && let Ok(found) = store.reload()
            {
                issues.extend(found);
            }
            changed = true;
        }
        if changed {
            self.progress_dirty = true;
            // Damaged lines were reported when first seen; keep the issue list from growing.
            let known: std::collections::HashSet<(&Path, usize)> = corpus
                .issues
                .iter()
                .map(|i| (i.source.as_path(), i.line))
                .collect();
            fx.issues.extend(
                issues
                    .into_iter()
                    .filter(|i| !known.contains(&(i.source.as_path(), i.line))),
            );
            if self.filter.is_some() {
                fx.refresh_view = true;
            }
        }
        changed
    }

    /// Appends this session's unsaved reruns and what-ifs to their runs' rerun sidecars
    /// (the I/O step joining two parts: `App::service` calls it after labelling's).
    pub fn write_reruns(&mut self, corpus: &Corpus, reruns: &mut Reruns, fx: &mut Effects) -> bool {
        let mut wrote = false;
        for (row, list) in reruns.session.iter_mut() {
            let Some(run) = corpus.entries.get(*row).map(|e| e.run) else {
                continue;
            };
            for item in list.iter_mut().filter(|s| s.saved.is_none()) {
                wrote = true;
                let store = self.sidecars.get_mut(run).and_then(|s| s.reruns.as_mut());
                let path = store.as_ref().map(|s| s.path().to_path_buf());
                item.saved = Some(match store {
                    Some(store) => store.append(item.record.clone()).map_err(|e| e.to_string()),
                    None => Err("the rerun file could not be opened".to_string()),
                });
                let verdict = item
                    .record
                    .report
                    .verdict
                    .map_or("not graded", Verdict::as_str);
                let kind = if item.record.what_if {
                    "what-if"
                } else {
                    "rerun"
                };
                match &item.saved {
                    Some(Ok(())) => {
                        let path = path.unwrap_or_default();
                        fx.say(format!("{kind}: {verdict} · saved to {}", path.display()));
                    }
                    Some(Err(e)) => fx.say(format!("{kind}: {verdict} · NOT saved: {e}")),
                    None => {}
                }
            }
        }
        wrote
    }

    fn recompute_progress(&mut self, corpus: &Corpus) {
        self.progress_dirty = false;
        self.progress_rows = corpus.entries.len();
        let mut progress = Progress {
            total: corpus.entries.len(),
            ..Progress::default()
        };
        let has_records = self
            .sidecars
            .iter()
            .filter_map(|s| s.labels.as_ref())
            .any(|store| store.history().next().is_some());
        self.progress_scores = corpus.scores_changed;
        // While a big file loads and nothing is labelled, counting failures is all there is to do.
        let mut rows = Vec::with_capacity(corpus.entries.len());
        for (i, e) in corpus.entries.iter().enumerate() {
            let label = if has_records {
                self.saved(e.run, &e.rollout.id)
            } else {
                None
            };
            if let Some(label) = label {
                progress.labelled += 1;
                for c in &label.categories {
                    *progress.per_category.entry(c.clone()).or_default() += 1;
                }
            }
            rows.push(LabelRow {
                run: e.run,
                failure: corpus.shown(i).is_failure(),
                labelled: label.is_some(),
            });
        }
        let names = corpus.runs.iter().map(|r| r.name.clone()).collect();
        self.tally = LabelTally::count(names, rows);
        self.progress = progress;
        self.any_labels = self
            .sidecars
            .iter()
            .filter_map(|s| s.labels.as_ref())
            .any(|store| !store.all_current().is_empty());
    }
}

/// Writes `text` to a new sidecar; an existing one (the user's labels) is left alone.
fn seed_sidecar(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(e),
    };
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

fn report_issues(issues: Vec<crate::model::LoadIssue>, fx: &mut Effects) {
    if issues.is_empty() {
        return;
    }
    fx.say(format!(
        "{} damaged sidecar lines skipped: ! shows them",
        issues.len()
    ));
    fx.issues.extend(issues);
}

fn sidecar_lens(s: &RunSidecars) -> (u64, u64) {
    let len = |p: Option<&Path>| {
        p.and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len())
    };
    (
        len(s.labels.as_ref().map(LabelStore::path)),
        len(s.reruns.as_ref().map(RerunStore::path)),
    )
}
