//! Labelling in the explorer: categories from the taxonomy toggled on the selected rollout,
//! a note, the suggested category, "next unlabelled failure", a label filter, progress and
//! agreement between annotators.
//!
//! `Labelling::update` only queues label changes; the I/O step (`Part::service`) (the event loop's
//! I/O step, run right after each action and before the next draw) appends them to the
//! sidecar, and only then does the screen show them and say "saved". The panel reads labels
//! from the store, so nothing unsaved is ever shown as saved.

use crate::model::sampling::{DEFAULT_SEED, LabelOrder, label_order_key};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::analysis::{GradeFacts, suggested_category};
use crate::grade::reruns::{RERUNS_SUFFIX, RerunRecord, RerunStore};
use crate::model::agreement::{Agreement, compare_annotators};
use crate::model::labels::{LABELS_SUFFIX, LabelRecord, LabelStore, Progress, resolve_annotator};
use crate::model::sidecar::sidecar_path;
use crate::model::taxonomy::{Category, CategoryId, Taxonomy};
use crate::model::{RolloutId, Verdict};

use super::action::{Action, TextEdit, Typed};
use super::effects::{Effects, Handled};
use super::entry::{Entry, Shown};
use super::load::{FileKind, Source, SourceData};
use super::part::{Cx, Labels, Part};
use super::rerun::Reruns;
use super::state::{Corpus, ListView, Popup, ViewRow};

/// Environment variable: where sidecars of files without a writable home (the bundled
/// demo) go; default `<data dir>/sebx`.
pub const DATA_DIR_ENV: &str = "SEBX_DATA_DIR";

/// How often the sidecars are checked for other explorers' changes.
const RELOAD_EVERY: Duration = Duration::from_secs(2);

/// Which rows the label filter keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelFilter {
    /// No current label by this annotator.
    Unlabelled,
    Labelled,
    /// Labelled with this category by this annotator.
    Category(CategoryId),
}

/// The sidecars of one run (rollout file).
#[derive(Debug)]
pub struct RunSidecars {
    /// The path the sidecar names derive from (`<this>.labels.jsonl`).
    pub base: PathBuf,
    /// The run is built into the binary: its sidecars live under the data dir.
    pub embedded: bool,
    pub labels: Option<LabelStore>,
    pub reruns: Option<RerunStore>,
    /// Why a store could not be opened.
    pub error: Option<String>,
    seen_len: (u64, u64),
}

/// A label change waiting for the I/O step (`Part::service`) to write it.
#[derive(Debug, Clone, PartialEq)]
struct PendingLabel {
    run: usize,
    record: LabelRecord,
}

/// All labelling state.
#[derive(Debug)]
pub struct Labelling {
    pub taxonomy: Taxonomy,
    pub annotator: String,
    /// Category keys toggle categories (instead of switching panes).
    pub mode: bool,
    pub filter: Option<LabelFilter>,
    /// The note being typed.
    pub note: Option<TextEdit>,
    /// Highlighted row of the category picker.
    pub picker_cursor: usize,
    /// Which other annotator the agreement view compares with (index into the others).
    pub agreement_with: usize,
    /// Highlighted disagreement in the agreement view.
    pub agreement_cursor: usize,
    /// Base folder for sidecars of embedded runs (`$SEBX_DATA_DIR` or `<data dir>/sebx`).
    pub data_dir: Option<PathBuf>,
    /// A taxonomy file given on the command line.
    pub taxonomy_path: Option<PathBuf>,
    /// Labels a built-in run starts with (the demo's examples), by run path: written to
    /// its sidecar when that does not exist yet.
    pub seeds: HashMap<PathBuf, &'static str>,
    /// Run path → built into the binary.
    registered: HashMap<PathBuf, bool>,
    taxonomy_loaded: bool,
    pub sidecars: Vec<RunSidecars>,
    /// The order `N` walks failures in: file order, or a seeded random order so the
    /// labelled failures are a random sample (`sebx stats` checks which it was).
    pub order: LabelOrder,
    pub order_seed: u64,
    pending: Vec<PendingLabel>,
    /// Labelled / total over every loaded rollout, by this annotator.
    pub progress: Progress,
    /// Some sidecar holds a current label (by anyone).
    pub any_labels: bool,
    progress_rows: usize,
    progress_dirty: bool,
    last_reload: Option<Instant>,
}

impl Default for Labelling {
    fn default() -> Labelling {
        Labelling {
            taxonomy: Taxonomy::default_set(),
            annotator: resolve_annotator(None),
            mode: false,
            filter: None,
            note: None,
            picker_cursor: 0,
            agreement_with: 0,
            agreement_cursor: 0,
            data_dir: std::env::var_os(DATA_DIR_ENV)
                .map(PathBuf::from)
                .or_else(|| dirs::data_dir().map(|d| d.join("sebx"))),
            taxonomy_path: None,
            seeds: HashMap::new(),
            registered: HashMap::new(),
            taxonomy_loaded: false,
            sidecars: Vec::new(),
            order: LabelOrder::File,
            order_seed: DEFAULT_SEED,
            pending: Vec::new(),
            progress: Progress::default(),
            any_labels: false,
            progress_rows: 0,
            progress_dirty: true,
            last_reload: None,
        }
    }
}

impl Labelling {
    /// Makes the next the I/O step (`Part::service`) re-read sidecars other processes have appended to.
    pub fn reload_soon(&mut self) {
        self.last_reload = None;
    }

    /// Notes which runs are files and which are built in (the demo), before loading.
    pub fn register_sources(&mut self, sources: &[Source]) {
        for s in sources {
            if matches!(s.kind, FileKind::Rollouts | FileKind::CorrectTrajectories) {
                let embedded = matches!(s.data, SourceData::Embedded { .. });
                self.registered
                    .insert(s.data.path().to_path_buf(), embedded);
            }
        }
    }

    /// The current label of a rollout by this annotator, including a change not yet written
    /// (so quick keys build on each other).
    fn effective(&self, run: usize, id: &RolloutId) -> Option<LabelRecord> {
        if let Some(p) = self
            .pending
            .iter()
            .rev()
            .find(|p| p.run == run && &p.record.rollout == id)
        {
            return (!p.record.is_cleared()).then(|| p.record.clone());
        }
        self.saved(run, id).cloned()
    }

    /// The saved label of a rollout by this annotator.
    pub fn saved(&self, run: usize, id: &RolloutId) -> Option<&LabelRecord> {
        self.sidecars
            .get(run)?
            .labels
            .as_ref()?
            .current(id, &self.annotator)
    }

    /// Other annotators' current labels of a rollout.
    pub fn others(&self, run: usize, id: &RolloutId) -> Vec<&LabelRecord> {
        self.sidecars
            .get(run)
            .and_then(|s| s.labels.as_ref())
            .map(|store| {
                store
                    .current_for(id)
                    .into_iter()
                    .filter(|r| r.annotator != self.annotator)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Reruns of a rollout kept in its run's sidecar, oldest first.
    pub fn stored_reruns(&self, run: usize, id: &RolloutId) -> Vec<&RerunRecord> {
        self.sidecars
            .get(run)
            .and_then(|s| s.reruns.as_ref())
            .map(|store| store.of(id))
            .unwrap_or_default()
    }

    /// Whether the row is labelled by this annotator (saved).
    pub fn is_labelled(&self, entry: &Entry) -> bool {
        self.saved(entry.run, &entry.rollout.id).is_some()
    }

    /// Whether the label filter keeps this row.
    pub fn accepts(&self, entry: &Entry) -> bool {
        let Some(filter) = &self.filter else {
            return true;
        };
        let label = self.saved(entry.run, &entry.rollout.id);
        match filter {
            LabelFilter::Unlabelled => label.is_none(),
            LabelFilter::Labelled => label.is_some(),
            LabelFilter::Category(c) => label.is_some_and(|l| l.categories.contains(c)),
        }
    }

    /// The label filter as the status bar shows it.
    pub fn filter_label(&self) -> Option<String> {
        self.filter.as_ref().map(|f| match f {
            LabelFilter::Unlabelled => "label=none".to_string(),
            LabelFilter::Labelled => "label=any".to_string(),
            LabelFilter::Category(c) => format!(
                "label={}",
                self.taxonomy
                    .get(c)
                    .map_or(c.as_str(), |k| k.label.as_str())
            ),
        })
    }

    /// Where the sidecars of embedded runs are written, when there are any.
    pub fn embedded_home(&self) -> Option<PathBuf> {
        self.sidecars
            .iter()
            .find(|s| s.embedded)
            .and_then(|s| s.base.parent().map(Path::to_path_buf))
    }

    /// Every current label of every run (for agreement).
    pub fn all_current(&self) -> Vec<&LabelRecord> {
        self.sidecars
            .iter()
            .filter_map(|s| s.labels.as_ref())
            .flat_map(|store| store.all_current())
            .collect()
    }

    /// Everyone with a current label, this annotator first (when they have one).
    pub fn annotators(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .all_current()
            .into_iter()
            .map(|r| r.annotator.clone())
            .collect();
        names.sort();
        names.dedup();
        if let Some(p) = names.iter().position(|n| *n == self.annotator) {
            let me = names.remove(p);
            names.insert(0, me);
        }
        names
    }

    /// The pairs of annotators the agreement view can compare, this annotator's first.
    pub fn agreement_pairs(&self) -> Vec<(String, String)> {
        let names = self.annotators();
        let mut pairs = Vec::new();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                pairs.push((a.clone(), b.clone()));
            }
        }
        pairs
    }

    /// Agreement of the chosen pair of annotators (tab cycles), when two have labels.
    pub fn agreement(&self) -> Option<Agreement> {
        let pairs = self.agreement_pairs();
        let (a, b) = pairs.get(self.agreement_with % pairs.len().max(1))?;
        let labels = self.all_current();
        Some(compare_annotators(&labels, a, b, &self.taxonomy.ids()))
    }

    /// Keys this module takes before the keymap: typing a note, category keys in label mode and
    /// in the picker, enter/space in the picker, `y` in the install offer.
    pub fn action_for_key(&self, popup: Option<Popup>, key: &KeyEvent) -> Option<Action> {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if self.note.is_some() {
            return match key.code {
                KeyCode::Char(c) if plain => Some(Action::NoteInput(c)),
                KeyCode::Backspace => Some(Action::NoteBackspace),
                KeyCode::Enter => Some(Action::NoteSubmit),
                KeyCode::Esc => Some(Action::Cancel),
                _ => None,
            };
        }
        let category_key = match key.code {
            KeyCode::Char(c) if plain && self.taxonomy.by_key(c).is_some() => Some(c),
            _ => None,
        };
        match popup {
            Some(Popup::CategoryPicker) => match key.code {
                KeyCode::Enter | KeyCode::Char(' ') => Some(Action::PopupChoose),
                _ => category_key.map(Action::ToggleCategory),
            },
            Some(Popup::Agreement) => match key.code {
                KeyCode::Enter => Some(Action::PopupChoose),
                _ => None,
            },
            Some(Popup::Runtime) => match key.code {
                KeyCode::Char('y') if plain => Some(Action::InstallRuntime),
                _ => None,
            },
            Some(_) => None,
            None if self.mode => category_key.map(Action::ToggleCategory),
            None => None,
        }
    }
}

/// Handling actions and doing the I/O: labelling reads the corpus and the list, owns its
/// state, and asks the rest for anything else through [`Effects`].
impl Labelling {
    /// The suggested category of a row: [`suggested_category`], which `sebx labels export`
    /// calls too, on the row's grade and its analysis digest. None while the row is being
    /// graded. Without an API doc no digest is passed, as the export has no analysis then
    /// either.
    pub fn suggestion(&self, corpus: &Corpus, row: usize) -> Option<&Category> {
        let entry = corpus.entries.get(row)?;
        let shown = corpus.shown(row);
        if shown == Shown::Grading {
            return None;
        }
        let report = corpus.report(row);
        let grade = GradeFacts {
            // A stored "failed" without a verdict, an error or no grade: judged as not graded.
            verdict: match shown {
                Shown::Verdict(v) => Some(v),
                _ => None,
            },
            timed_out: report
                .and_then(|r| r.execution.as_ref())
                .is_some_and(|e| e.timed_out),
            program_syntax_error: report
                .and_then(|r| r.static_check.as_ref())
                .is_some_and(|s| s.syntax_error.is_some()),
        };
        let digest = if corpus.ctx.api.is_empty() {
            None
        } else {
            Some(corpus.digest(row)?)
        };
        suggested_category(&self.taxonomy, grade, entry.code_span.is_some(), digest)
    }

    /// Clears the label filter (with the list's filters).
    pub fn clear_filter(&mut self) {
        self.filter = None;
    }

    /// Handles the labelling actions (keys, note typing, filter, agreement).
    fn handle(
        &mut self,
        action: &Action,
        corpus: &Corpus,
        list: &ListView,
        fx: &mut Effects,
    ) -> Handled {
        match TextEdit::update(&mut self.note, action) {
            Typed::Edited => return Handled::Redraw,
            Typed::Submitted(n) => {
                self.set_note(corpus, n.row, n.text.trim());
                return Handled::Redraw;
            }
            Typed::Cancelled => {
                fx.say("note not changed");
                return Handled::Redraw;
            }
            Typed::Other => {}
        }
        let row = list.selected;
        match action {
            Action::LabelMode => {
                self.mode = !self.mode;
                fx.say(if self.mode {
                    "label mode: category keys toggle · a accepts the suggestion · w note · N next unlabelled failure · L leaves"
                } else {
                    "label mode off: digits switch panes again"
                });
            }
            Action::ToggleCategory(key) => {
                let id = self.taxonomy.by_key(*key).map(|c| c.id.clone());
                match (id, row) {
                    (Some(id), Some(row)) => self.toggle(corpus, row, &id),
                    (None, _) => fx.say(format!("no category on key {key}")),
                    (_, None) => {}
                }
            }
            Action::CategoryPicker => fx.open(Popup::CategoryPicker),
            Action::AcceptSuggestion => {
                let Some(row) = row else {
                    return Handled::Unchanged;
                };
                match self
                    .suggestion(corpus, row)
                    .map(|c| (c.id.clone(), c.label.clone()))
                {
                    Some((id, label)) => {
                        let has = corpus
                            .entries
                            .get(row)
                            .and_then(|e| self.effective(e.run, &e.rollout.id))
                            .is_some_and(|l| l.categories.contains(&id));
                        if has {
                            fx.say(format!("already labelled {label}"));
                        } else {
                            self.toggle(corpus, row, &id);
                        }
                    }
                    None => fx.say("no suggestion for this rollout"),
                }
            }
            Action::EditNote => {
                let Some(row) = row else {
                    return Handled::Unchanged;
                };
                let text = corpus
                    .entries
                    .get(row)
                    .and_then(|e| self.effective(e.run, &e.rollout.id))
                    .map(|l| l.note)
                    .unwrap_or_default();
                self.note = Some(TextEdit { row, text });
            }
            Action::NextUnlabelledFailure => self.next_unlabelled_failure(corpus, list, fx),
            Action::ToggleLabelOrder => {
                self.order = match self.order {
                    LabelOrder::File => LabelOrder::Random,
                    LabelOrder::Random => LabelOrder::File,
                };
                fx.say(match self.order {
                    LabelOrder::File => "N: next unlabelled failure in list order".to_string(),
                    LabelOrder::Random => format!(
                        "N: next unlabelled failure in a seeded random order (seed {}): the labelled failures stay a random sample",
                        self.order_seed
                    ),
                });
            }
            Action::CycleLabelFilter => {
                let mut options = vec![LabelFilter::Unlabelled, LabelFilter::Labelled];
                options.extend(self.taxonomy.ids().into_iter().map(LabelFilter::Category));
                self.filter = match &self.filter {
                    None => options.first().cloned(),
                    Some(f) => options
                        .iter()
                        .position(|o| o == f)
                        .and_then(|p| options.get(p + 1).cloned()),
                };
                fx.refresh_view = true;
            }
            Action::Agreement => {
                self.agreement_cursor = 0;
                let names = self.annotators();
                if names.len() < 2 {
                    fx.say(match names.first() {
                        Some(one) => {
                            format!("agreement needs two annotators: only {one} has labels here")
                        }
                        None => "agreement needs two annotators: no labels here yet".to_string(),
                    });
                } else {
                    fx.open(Popup::Agreement);
                }
            }
            Action::PopupChoose
            | Action::NoteInput(_)
            | Action::NoteBackspace
            | Action::NoteSubmit => return Handled::Unchanged,
            _ => return Handled::Passed,
        }
        Handled::Redraw
    }

    /// Handles an action in one of labelling's popups (the category picker, agreement).
    fn handle_popup(
        &mut self,
        popup: Popup,
        action: &Action,
        corpus: &Corpus,
        list: &ListView,
        fx: &mut Effects,
    ) -> Handled {
        match popup {
            Popup::CategoryPicker => {
                let n = self.taxonomy.categories.len();
                match action {
                    Action::Up => self.picker_cursor = self.picker_cursor.saturating_sub(1),
                    Action::Down => self.picker_cursor = (self.picker_cursor + 1).min(n - 1),
                    Action::PopupChoose => {
                        let id = self
                            .taxonomy
                            .categories
                            .get(self.picker_cursor)
                            .map(|c| c.id.clone());
                        if let (Some(id), Some(row)) = (id, list.selected) {
                            self.toggle(corpus, row, &id);
                        }
                    }
                    Action::ToggleCategory(_) => return self.handle(action, corpus, list, fx),
                    Action::CategoryPicker | Action::Cancel => fx.close(),
                    _ => return Handled::Passed,
                }
                Handled::Redraw
            }
            Popup::Agreement => match action {
                Action::NextPane | Action::PrevPane => {
                    self.agreement_with += 1;
                    self.agreement_cursor = 0;
                    // Reopened on the next pair, scrolled to its top.
                    fx.open(Popup::Agreement);
                    Handled::Redraw
                }
                Action::Up => {
                    self.agreement_cursor = self.agreement_cursor.saturating_sub(1);
                    Handled::Redraw
                }
                Action::Down => {
                    let n = self.agreement().map_or(0, |a| a.disagreements.len());
                    self.agreement_cursor = (self.agreement_cursor + 1).min(n.saturating_sub(1));
                    Handled::Redraw
                }
                Action::PopupChoose => {
                    self.open_disagreement(corpus, list, fx);
                    Handled::Redraw
                }
                Action::Agreement => {
                    fx.close();
                    Handled::Redraw
                }
                _ => Handled::Passed,
            },
            _ => Handled::Passed,
        }
    }

    /// Closes the agreement view on the highlighted disagreement's rollout.
    fn open_disagreement(&mut self, corpus: &Corpus, list: &ListView, fx: &mut Effects) {
        let Some(agreement) = self.agreement() else {
            return;
        };
        let Some(d) = agreement.disagreements.get(self.agreement_cursor) else {
            return;
        };
        let Some(row) = corpus
            .entries
            .iter()
            .position(|e| e.rollout.id == d.rollout)
        else {
            fx.say(format!("rollout {} is not loaded", d.rollout));
            return;
        };
        fx.close();
        if !list.view.contains(&ViewRow::Row(row)) {
            self.filter = None;
            fx.clear_filters = true;
            fx.say("filters cleared to show the disagreement");
        }
        fx.jump_to = Some(row);
    }

    /// Queues a label change for `row` (written by the I/O step (`Part::service`)).
    fn queue(&mut self, corpus: &Corpus, row: usize, categories: Vec<CategoryId>, note: &str) {
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        let record = LabelRecord::now(entry.rollout.id.clone(), categories, note, &self.annotator);
        self.pending.push(PendingLabel {
            run: entry.run,
            record,
        });
    }

    /// Toggles one category on `row`'s label (keeping the note).
    fn toggle(&mut self, corpus: &Corpus, row: usize, id: &CategoryId) {
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        let current = self.effective(entry.run, &entry.rollout.id);
        let mut categories = current
            .as_ref()
            .map(|l| l.categories.clone())
            .unwrap_or_default();
        if let Some(p) = categories.iter().position(|c| c == id) {
            categories.remove(p);
        } else {
            categories.push(id.clone());
        }
        // Taxonomy order, so records read the same whatever order keys were pressed in.
        let order = self.taxonomy.ids();
        categories.sort_by_key(|c| order.iter().position(|o| o == c).unwrap_or(usize::MAX));
        let note = current.map(|l| l.note).unwrap_or_default();
        self.queue(corpus, row, categories, &note);
    }

    fn set_note(&mut self, corpus: &Corpus, row: usize, note: &str) {
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        let categories = self
            .effective(entry.run, &entry.rollout.id)
            .map(|l| l.categories)
            .unwrap_or_default();
        self.queue(corpus, row, categories, note);
    }

    fn next_unlabelled_failure(&self, corpus: &Corpus, list: &ListView, fx: &mut Effects) {
        let rows: Vec<usize> = list.rows().collect();
        let start = list
            .selected
            .and_then(|s| rows.iter().position(|r| *r == s))
            .map_or(0, |p| p + 1);
        let n = rows.len();
        let unlabelled_failure = |i: &usize| {
            corpus.shown(*i).is_failure()
                && corpus
                    .entries
                    .get(*i)
                    .is_some_and(|e| self.effective(e.run, &e.rollout.id).is_none())
        };
        let found = match self.order {
            LabelOrder::File => (0..n)
                .map(|d| rows[(start + d) % n])
                .find(unlabelled_failure),
            // The first unlabelled failure of the random order, wherever the cursor is.
            LabelOrder::Random => rows
                .iter()
                .copied()
                .filter(unlabelled_failure)
                .min_by_key(|i| label_order_key(self.order_seed, &corpus.entries[*i].rollout.id)),
        };
        match found {
            Some(i) => fx.jump_to = Some(i),
            None => fx.say("every failure shown is labelled"),
        }
    }

    /// The event loop's I/O step for labels: opens the sidecars of new runs, writes queued
    /// label changes (each durably, before the screen confirms it), and picks up other
    /// explorers' changes now and then. Returns whether to redraw.
    fn write(&mut self, corpus: &Corpus, fx: &mut Effects) -> bool {
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
                    // The demo's file is built in: say where its labels really go.
                    let name = if embedded {
                        format!("{} (built-in demo)", store.path().display())
                    } else {
                        file_name(store.path())
                    };
                    fx.say(format!("saved to {name}: {summary}"));
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
        if self.progress_dirty || self.progress_rows != corpus.entries.len() {
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
            Ok(t) => self.taxonomy = t,
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
        let mut sidecars = RunSidecars {
            base: base.clone(),
            embedded,
            labels: None,
            reruns: None,
            error: None,
            seen_len: (0, 0),
        };
        match LabelStore::open(&base) {
            Ok((store, issues)) => {
                report_issues(issues, fx);
                sidecars.labels = Some(store);
            }
            Err(e) => sidecars.error = Some(e.to_string()),
        }
        match RerunStore::open(&base) {
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
                let sidecars = self.sidecars.get_mut(run);
                let base = sidecars.as_ref().map(|s| s.base.clone());
                item.saved = Some(match sidecars.and_then(|s| s.reruns.as_mut()) {
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
                        let path = base
                            .map(|b| sidecar_path(&b, RERUNS_SUFFIX))
                            .unwrap_or_default();
                        fx.say(format!("{kind}: {verdict} · saved to {}", file_name(&path)));
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
        // While a big file loads and nothing is labelled, counting rows is all there is to do.
        let rows = if has_records { corpus.entries.len() } else { 0 };
        for e in corpus.entries.iter().take(rows) {
            if let Some(label) = self.saved(e.run, &e.rollout.id) {
                progress.labelled += 1;
                for c in &label.categories {
                    *progress.per_category.entry(c.clone()).or_default() += 1;
                }
            }
        }
        self.progress = progress;
        self.any_labels = self
            .sidecars
            .iter()
            .filter_map(|s| s.labels.as_ref())
            .any(|store| !store.all_current().is_empty());
    }
}

impl Part for Labelling {
    fn key(&self, key: &KeyEvent, popup: Option<Popup>) -> Option<Action> {
        self.action_for_key(popup, key)
    }

    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        self.handle(action, cx.corpus, cx.list, fx)
    }

    fn update_popup(
        &mut self,
        popup: Popup,
        action: &Action,
        cx: &Cx<'_>,
        fx: &mut Effects,
    ) -> Handled {
        self.handle_popup(popup, action, cx.corpus, cx.list, fx)
    }

    fn service(&mut self, cx: &Cx<'_>, fx: &mut Effects) -> bool {
        self.write(cx.corpus, fx)
    }
}

impl Labels for Labelling {
    fn categories(&self, run: usize, id: &RolloutId) -> Option<Vec<String>> {
        self.saved(run, id)
            .map(|l| l.categories.iter().map(|c| c.0.clone()).collect())
    }

    fn category_ids(&self) -> Vec<String> {
        self.taxonomy.ids().into_iter().map(|c| c.0).collect()
    }

    fn order_seed(&self) -> u64 {
        self.order_seed
    }

    fn sidecar_bases(&self) -> Vec<&Path> {
        self.sidecars.iter().map(|s| s.base.as_path()).collect()
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

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// A label change in words: "NumPy import, Logic error" or "cleared".
pub fn describe(taxonomy: &Taxonomy, record: &LabelRecord) -> String {
    if record.is_cleared() {
        return "label cleared".to_string();
    }
    let mut parts: Vec<String> = record
        .categories
        .iter()
        .map(|c| taxonomy.get(c).map_or(c.0.clone(), |k| k.label.clone()))
        .collect();
    if !record.note.is_empty() {
        parts.push("note".to_string());
    }
    if parts.is_empty() {
        "label cleared".to_string()
    } else {
        parts.join(", ")
    }
}
