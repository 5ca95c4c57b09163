//! Labelling in the explorer: categories from the taxonomy toggled on the selected rollout,
//! a note, the suggested category, "next unlabelled failure", a label filter, progress and
//! agreement between annotators.
//!
//! `update` only queues label changes; [`service`] (the event loop's I/O step, run right
//! after each action and before the next draw) appends them to the sidecar, and only then
//! does the screen show them and say "saved". The panel reads labels from the store, so
//! nothing unsaved is ever shown as saved.

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

use super::action::Action;
use super::app::{App, Popup, ViewRow};
use super::entry::{Entry, Score, Shown};
use super::load::{FileKind, Source, SourceData};
use super::rerun;

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

/// The note being typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteEdit {
    pub row: usize,
    pub text: String,
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

/// A label change waiting for [`service`] to write it.
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
    pub note: Option<NoteEdit>,
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
    /// Makes the next [`service`] re-read sidecars other processes have appended to.
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
}

/// The suggested category of a row: [`suggested_category`], which `sebx labels export` calls
/// too, on the row's grade and its analysis digest. None while the row is being graded.
/// Without an API doc no digest is passed, as the export has no analysis then either.
pub fn suggestion(app: &App, row: usize) -> Option<&Category> {
    let entry = app.corpus.entries.get(row)?;
    let shown = app.corpus.shown(row);
    if shown == Shown::Grading {
        return None;
    }
    let report = app.corpus.scores.get(row).and_then(Score::report);
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
    let digest = if app.corpus.ctx.api.is_empty() {
        None
    } else {
        Some(app.corpus.digest(row)?)
    };
    suggested_category(
        &app.labelling.taxonomy,
        grade,
        entry.code_span.is_some(),
        digest,
    )
}

/// Handles labelling, rerun and what-if actions; `None` for everything else.
pub fn update(app: &mut App, action: &Action) -> Option<bool> {
    if app.labelling.note.is_some() {
        match action {
            Action::NoteInput(c) => {
                if let Some(n) = app.labelling.note.as_mut() {
                    n.text.push(*c);
                }
                return Some(true);
            }
            Action::NoteBackspace => {
                if let Some(n) = app.labelling.note.as_mut() {
                    n.text.pop();
                }
                return Some(true);
            }
            Action::NoteSubmit => {
                if let Some(n) = app.labelling.note.take() {
                    set_note(app, n.row, n.text.trim());
                }
                return Some(true);
            }
            Action::Cancel => {
                app.labelling.note = None;
                app.message = Some("note not changed".to_string());
                return Some(true);
            }
            _ => {}
        }
    }
    let row = app.list.selected;
    match action {
        Action::LabelMode => {
            app.labelling.mode = !app.labelling.mode;
            app.message = Some(if app.labelling.mode {
                "label mode: category keys toggle · a accepts the suggestion · w note · N next unlabelled failure · L leaves".to_string()
            } else {
                "label mode off: digits switch panes again".to_string()
            });
        }
        Action::ToggleCategory(key) => {
            let id = app.labelling.taxonomy.by_key(*key).map(|c| c.id.clone());
            match (id, row) {
                (Some(id), Some(row)) => toggle(app, row, &id),
                (None, _) => app.message = Some(format!("no category on key {key}")),
                (_, None) => {}
            }
        }
        Action::CategoryPicker => {
            app.popup = Some(Popup::CategoryPicker);
            app.popup_scroll = 0;
        }
        Action::AcceptSuggestion => {
            let Some(row) = row else { return Some(false) };
            match suggestion(app, row).map(|c| (c.id.clone(), c.label.clone())) {
                Some((id, label)) => {
                    let has = app
                        .corpus
                        .entries
                        .get(row)
                        .and_then(|e| app.labelling.effective(e.run, &e.rollout.id))
                        .is_some_and(|l| l.categories.contains(&id));
                    if has {
                        app.message = Some(format!("already labelled {label}"));
                    } else {
                        toggle(app, row, &id);
                    }
                }
                None => app.message = Some("no suggestion for this rollout".to_string()),
            }
        }
        Action::EditNote => {
            let Some(row) = row else { return Some(false) };
            let text = app
                .corpus
                .entries
                .get(row)
                .and_then(|e| app.labelling.effective(e.run, &e.rollout.id))
                .map(|l| l.note)
                .unwrap_or_default();
            app.labelling.note = Some(NoteEdit { row, text });
        }
        Action::NextUnlabelledFailure => next_unlabelled_failure(app),
        Action::ToggleLabelOrder => {
            app.labelling.order = match app.labelling.order {
                LabelOrder::File => LabelOrder::Random,
                LabelOrder::Random => LabelOrder::File,
            };
            app.message = Some(match app.labelling.order {
                LabelOrder::File => "N: next unlabelled failure in list order".to_string(),
                LabelOrder::Random => format!(
                    "N: next unlabelled failure in a seeded random order (seed {}): the labelled failures stay a random sample",
                    app.labelling.order_seed
                ),
            });
        }
        Action::CycleLabelFilter => {
            let mut options = vec![LabelFilter::Unlabelled, LabelFilter::Labelled];
            options.extend(
                app.labelling
                    .taxonomy
                    .ids()
                    .into_iter()
                    .map(LabelFilter::Category),
            );
            app.labelling.filter = match &app.labelling.filter {
                None => options.first().cloned(),
                Some(f) => options
                    .iter()
                    .position(|o| o == f)
                    .and_then(|p| options.get(p + 1).cloned()),
            };
            app.refresh_view();
        }
        Action::Agreement => {
            app.labelling.agreement_cursor = 0;
            let names = app.labelling.annotators();
            if names.len() < 2 {
                app.message = Some(match names.first() {
                    Some(one) => {
                        format!("agreement needs two annotators: only {one} has labels here")
                    }
                    None => "agreement needs two annotators: no labels here yet".to_string(),
                });
            } else {
                app.popup = Some(Popup::Agreement);
                app.popup_scroll = 0;
            }
        }
        Action::Rerun => {
            let Some(row) = row else { return Some(false) };
            rerun::request(app, row, None);
        }
        Action::EditWhatIf => {
            let Some(row) = row else { return Some(false) };
            // No editing what cannot be graded.
            if !rerun::ready_to_grade(app) {
                return Some(true);
            }
            let code = app
                .corpus
                .entries
                .get(row)
                .map(|e| e.code().to_string())
                .unwrap_or_default();
            app.reruns.edit = Some((row, code));
        }
        Action::InstallRuntime => {
            if rerun::runtime_missing(app) {
                rerun::request_install(app);
            } else {
                app.message = Some("the Python runtime is not what is missing here".to_string());
            }
        }
        Action::PopupChoose | Action::NoteInput(_) | Action::NoteBackspace | Action::NoteSubmit => {
            return Some(false);
        }
        _ => return None,
    }
    Some(true)
}

/// Handles an action in one of this module's popups; `None` for the generic handling.
pub fn update_popup(app: &mut App, popup: Popup, action: &Action) -> Option<bool> {
    match popup {
        Popup::CategoryPicker => {
            let n = app.labelling.taxonomy.categories.len();
            match action {
                Action::Up => {
                    app.labelling.picker_cursor = app.labelling.picker_cursor.saturating_sub(1);
                }
                Action::Down => {
                    app.labelling.picker_cursor = (app.labelling.picker_cursor + 1).min(n - 1);
                }
                Action::PopupChoose => {
                    let id = app
                        .labelling
                        .taxonomy
                        .categories
                        .get(app.labelling.picker_cursor)
                        .map(|c| c.id.clone());
                    if let (Some(id), Some(row)) = (id, app.list.selected) {
                        toggle(app, row, &id);
                    }
                }
                Action::ToggleCategory(_) => return update(app, action),
                Action::CategoryPicker | Action::Cancel => app.popup = None,
                _ => return None,
            }
            Some(true)
        }
        Popup::Agreement => match action {
            Action::NextPane | Action::PrevPane => {
                app.labelling.agreement_with += 1;
                app.labelling.agreement_cursor = 0;
                app.popup_scroll = 0;
                Some(true)
            }
            Action::Up => {
                app.labelling.agreement_cursor = app.labelling.agreement_cursor.saturating_sub(1);
                Some(true)
            }
            Action::Down => {
                let n = app
                    .labelling
                    .agreement()
                    .map_or(0, |a| a.disagreements.len());
                app.labelling.agreement_cursor =
                    (app.labelling.agreement_cursor + 1).min(n.saturating_sub(1));
                Some(true)
            }
            Action::PopupChoose => {
                open_disagreement(app);
                Some(true)
            }
            Action::Agreement => {
                app.popup = None;
                Some(true)
            }
            _ => None,
        },
        Popup::Runtime => match action {
            Action::InstallRuntime => {
                rerun::request_install(app);
                Some(true)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Closes the agreement view on the highlighted disagreement's rollout.
fn open_disagreement(app: &mut App) {
    let Some(agreement) = app.labelling.agreement() else {
        return;
    };
    let Some(d) = agreement.disagreements.get(app.labelling.agreement_cursor) else {
        return;
    };
    let Some(row) = app
        .corpus
        .entries
        .iter()
        .position(|e| e.rollout.id == d.rollout)
    else {
        app.message = Some(format!("rollout {} is not loaded", d.rollout));
        return;
    };
    app.popup = None;
    if !app.list.view.contains(&ViewRow::Row(row)) {
        app.list.filters = Default::default();
        app.labelling.filter = None;
        app.refresh_view();
        app.message = Some("filters cleared to show the disagreement".to_string());
    }
    app.jump_to(row);
}

/// Queues a label change for `row` (written by [`service`]).
fn queue(app: &mut App, row: usize, categories: Vec<CategoryId>, note: &str) {
    let Some(entry) = app.corpus.entries.get(row) else {
        return;
    };
    let record = LabelRecord::now(
        entry.rollout.id.clone(),
        categories,
        note,
        &app.labelling.annotator,
    );
    app.labelling.pending.push(PendingLabel {
        run: entry.run,
        record,
    });
}

/// Toggles one category on `row`'s label (keeping the note).
fn toggle(app: &mut App, row: usize, id: &CategoryId) {
    let Some(entry) = app.corpus.entries.get(row).cloned() else {
        return;
    };
    let current = app.labelling.effective(entry.run, &entry.rollout.id);
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
    let order = app.labelling.taxonomy.ids();
    categories.sort_by_key(|c| order.iter().position(|o| o == c).unwrap_or(usize::MAX));
    let note = current.map(|l| l.note).unwrap_or_default();
    queue(app, row, categories, &note);
}

fn set_note(app: &mut App, row: usize, note: &str) {
    let Some(entry) = app.corpus.entries.get(row).cloned() else {
        return;
    };
    let categories = app
        .labelling
        .effective(entry.run, &entry.rollout.id)
        .map(|l| l.categories)
        .unwrap_or_default();
    queue(app, row, categories, note);
}

fn next_unlabelled_failure(app: &mut App) {
    let rows: Vec<usize> = app
        .list
        .view
        .iter()
        .filter_map(|r| match r {
            ViewRow::Row(i) => Some(*i),
            ViewRow::Group { .. } => None,
        })
        .collect();
    let start = app
        .list
        .selected
        .and_then(|s| rows.iter().position(|r| *r == s))
        .map_or(0, |p| p + 1);
    let n = rows.len();
    let unlabelled_failure = |i: &usize| {
        app.corpus.shown(*i).is_failure()
            && app
                .corpus
                .entries
                .get(*i)
                .is_some_and(|e| app.labelling.effective(e.run, &e.rollout.id).is_none())
    };
    let found = match app.labelling.order {
        LabelOrder::File => (0..n)
            .map(|d| rows[(start + d) % n])
            .find(unlabelled_failure),
        // The first unlabelled failure of the random order, wherever the cursor is.
        LabelOrder::Random => rows
            .iter()
            .copied()
            .filter(unlabelled_failure)
            .min_by_key(|i| {
                label_order_key(app.labelling.order_seed, &app.corpus.entries[*i].rollout.id)
            }),
    };
    match found {
        Some(i) => app.jump_to(i),
        None => app.message = Some("every failure shown is labelled".to_string()),
    }
}

/// The event loop's I/O step for labels and reruns: opens the sidecars of new runs, writes
/// queued label changes and reruns (each durably, before the screen confirms it), and
/// picks up other explorers' changes now and then. Returns whether to redraw.
pub fn service(app: &mut App) -> bool {
    let mut redraw = false;
    if !app.labelling.taxonomy_loaded {
        app.labelling.taxonomy_loaded = true;
        load_taxonomy(app);
    }
    while app.labelling.sidecars.len() < app.corpus.runs.len() {
        let run = app.labelling.sidecars.len();
        let path = app.corpus.runs[run].path.clone();
        open_run(app, &path);
        redraw = true;
    }
    let pending = std::mem::take(&mut app.labelling.pending);
    for p in pending {
        redraw = true;
        let embedded = app
            .labelling
            .sidecars
            .get(p.run)
            .is_some_and(|s| s.embedded);
        let store = app
            .labelling
            .sidecars
            .get_mut(p.run)
            .and_then(|s| s.labels.as_mut());
        let Some(store) = store else {
            app.message = Some("NOT saved: this run's label file could not be opened".into());
            continue;
        };
        let summary = describe(&app.labelling.taxonomy, &p.record);
        match store.append(p.record) {
            Ok(()) => {
                // The demo's file is built in: say where its labels really go.
                let name = if embedded {
                    format!("{} (built-in demo)", store.path().display())
                } else {
                    file_name(store.path())
                };
                app.message = Some(format!("saved to {name}: {summary}"));
                app.labelling.progress_dirty = true;
            }
            Err(e) => app.message = Some(format!("NOT saved: {e}")),
        }
    }
    redraw |= write_reruns(app);
    let due = app
        .labelling
        .last_reload
        .is_none_or(|t| t.elapsed() >= RELOAD_EVERY);
    if due {
        app.labelling.last_reload = Some(Instant::now());
        redraw |= reload_changed(app);
    }
    if app.labelling.progress_dirty || app.labelling.progress_rows != app.corpus.entries.len() {
        recompute_progress(app);
        redraw = true;
    }
    if app.reruns.busy() {
        app.reruns.spinner = app.reruns.spinner.wrapping_add(1);
        redraw = true;
    }
    redraw
}

fn load_taxonomy(app: &mut App) {
    let explicit = app.labelling.taxonomy_path.clone();
    let first_file = app
        .labelling
        .registered
        .iter()
        .filter(|(_, embedded)| !**embedded)
        .map(|(p, _)| p.clone())
        .min();
    let result = match (&explicit, &first_file) {
        (Some(p), _) => Taxonomy::load(p),
        (None, Some(f)) => Taxonomy::for_rollout_file(f, None),
        (None, None) => return,
    };
    match result {
        Ok(t) => app.labelling.taxonomy = t,
        Err(e) => {
            app.corpus
                .ctx
                .notes
                .push(format!("Taxonomy unusable, using the default: {e}"));
            app.message = Some(format!("taxonomy: {e}"));
        }
    }
}

fn open_run(app: &mut App, path: &Path) {
    let embedded = app.labelling.registered.get(path).copied().unwrap_or(false);
    let base = if embedded {
        let dir = app
            .labelling
            .data_dir
            .clone()
            .unwrap_or_else(std::env::temp_dir)
            .join("demo");
        if let Err(e) = std::fs::create_dir_all(&dir) {
            app.message = Some(format!("cannot create {}: {e}", dir.display()));
        }
        let base = dir.join(path.file_name().unwrap_or(path.as_os_str()));
        if let Some(seed) = app.labelling.seeds.get(path).copied()
            && let Err(e) = seed_sidecar(&sidecar_path(&base, LABELS_SUFFIX), seed)
        {
            app.message = Some(format!("cannot write the demo's example labels: {e}"));
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
            report_issues(app, issues);
            sidecars.labels = Some(store);
        }
        Err(e) => sidecars.error = Some(e.to_string()),
    }
    match RerunStore::open(&base) {
        Ok((store, issues)) => {
            report_issues(app, issues);
            sidecars.reruns = Some(store);
        }
        Err(e) => sidecars.error = Some(e.to_string()),
    }
    sidecars.seen_len = sidecar_lens(&sidecars);
    if embedded {
        app.corpus.ctx.notes.push(format!(
            "The demo is built in: its labels and reruns are kept in {}",
            base.parent().unwrap_or(&base).display()
        ));
    }
    app.labelling.sidecars.push(sidecars);
    app.labelling.progress_dirty = true;
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

fn report_issues(app: &mut App, issues: Vec<crate::model::LoadIssue>) {
    if issues.is_empty() {
        return;
    }
    app.message = Some(format!(
        "{} damaged sidecar lines skipped: ! shows them",
        issues.len()
    ));
    app.corpus.issues.extend(issues);
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

/// Reloads sidecars another process has appended to.
fn reload_changed(app: &mut App) -> bool {
    let mut changed = false;
    let mut issues = Vec::new();
    for s in &mut app.labelling.sidecars {
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
        app.labelling.progress_dirty = true;
        // Damaged lines were reported when first seen; keep the issue list from growing.
        let known: std::collections::HashSet<(PathBuf, usize)> = app
            .corpus
            .issues
            .iter()
            .map(|i| (i.source.clone(), i.line))
            .collect();
        app.corpus.issues.extend(
            issues
                .into_iter()
                .filter(|i| !known.contains(&(i.source.clone(), i.line))),
        );
        if app.labelling.filter.is_some() {
            app.refresh_view();
        }
    }
    changed
}

fn write_reruns(app: &mut App) -> bool {
    let mut wrote = false;
    let rows: Vec<usize> = app.reruns.session.keys().copied().collect();
    for row in rows {
        let Some(run) = app.corpus.entries.get(row).map(|e| e.run) else {
            continue;
        };
        let Some(list) = app.reruns.session.get_mut(&row) else {
            continue;
        };
        for item in list.iter_mut().filter(|s| s.saved.is_none()) {
            wrote = true;
            let store = app
                .labelling
                .sidecars
                .get_mut(run)
                .and_then(|s| s.reruns.as_mut());
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
            app.message = Some(match &item.saved {
                Some(Ok(())) => {
                    let path = app
                        .labelling
                        .sidecars
                        .get(run)
                        .map(|s| sidecar_path(&s.base, RERUNS_SUFFIX))
                        .unwrap_or_default();
                    format!("{kind}: {verdict} · saved to {}", file_name(&path))
                }
                Some(Err(e)) => format!("{kind}: {verdict} · NOT saved: {e}"),
                None => String::new(),
            });
        }
    }
    wrote
}

fn recompute_progress(app: &mut App) {
    let l = &mut app.labelling;
    l.progress_dirty = false;
    l.progress_rows = app.corpus.entries.len();
    let mut progress = Progress {
        total: app.corpus.entries.len(),
        ..Progress::default()
    };
    let has_records = l
        .sidecars
        .iter()
        .filter_map(|s| s.labels.as_ref())
        .any(|store| store.history().next().is_some());
    // While a big file loads and nothing is labelled, counting rows is all there is to do.
    let rows = if has_records {
        app.corpus.entries.len()
    } else {
        0
    };
    for e in app.corpus.entries.iter().take(rows) {
        if let Some(label) = l.saved(e.run, &e.rollout.id) {
            progress.labelled += 1;
            for c in &label.categories {
                *progress.per_category.entry(c.clone()).or_default() += 1;
            }
        }
    }
    l.progress = progress;
    l.any_labels = l
        .sidecars
        .iter()
        .filter_map(|s| s.labels.as_ref())
        .any(|store| !store.all_current().is_empty());
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

/// Keys this module takes before the keymap: typing a note, category keys in label mode and
/// in the picker, enter/space in the picker, `y` in the install offer.
pub fn action_for_key(app: &App, key: &KeyEvent) -> Option<Action> {
    let plain = !key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    if app.labelling.note.is_some() {
        return match key.code {
            KeyCode::Char(c) if plain => Some(Action::NoteInput(c)),
            KeyCode::Backspace => Some(Action::NoteBackspace),
            KeyCode::Enter => Some(Action::NoteSubmit),
            KeyCode::Esc => Some(Action::Cancel),
            _ => None,
        };
    }
    let category_key = match key.code {
        KeyCode::Char(c) if plain && app.labelling.taxonomy.by_key(c).is_some() => Some(c),
        _ => None,
    };
    match app.popup {
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
        None if app.labelling.mode => category_key.map(Action::ToggleCategory),
        None => None,
    }
}

/// The editor came back for a what-if on `row`: grade the edit, or say why not.
pub fn on_edited(app: &mut App, row: usize, edited: anyhow::Result<Option<String>>) {
    match edited {
        Ok(Some(code)) => rerun::request(app, row, Some(code)),
        Ok(None) => app.message = Some("code unchanged: no what-if".to_string()),
        Err(e) => app.message = Some(format!("what-if: {e:#}")),
    }
}
