//! Labelling in the explorer: categories from the taxonomy toggled on the selected rollout,
//! a note, the suggested category, "next unlabelled failure", a label filter, progress and
//! agreement between annotators.
//!
//! `Labelling::update` only queues label changes; the I/O step (`Component::service`) (the event loop's
//! I/O step, run right after each action and before the next draw) appends them to the
//! sidecar, and only then does the screen show them and say "saved". The panel reads labels
//! from the store, so nothing unsaved is ever shown as saved.
//!
//! This file holds the state and what the rest reads of it; the keys and actions (the
//! category picker and agreement popups included) are in `actions`, and the I/O step
//! (opening, writing and reloading the sidecars, the progress counts) in `sidecars`.

use crate::model::sampling::{DEFAULT_SEED, LabelOrder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::KeyEvent;

use crate::analysis::{GradeFacts, suggested_category};
use crate::grade::reruns::{RerunRecord, RerunStore};
use crate::model::RolloutId;
use crate::model::agreement::{Agreement, compare_annotators};
use crate::model::labels::{LabelRecord, LabelStore, Progress};
use crate::model::sidecar::SidecarPlaces;
use crate::model::taxonomy::{Category, CategoryId, Taxonomy};
use crate::session::label_progress::{LabelScope, LabelTally};

use super::action::Action;
use super::component::{Component, Cx, DrawCx, Labels};
use super::effects::{Effects, Handled};
use super::entry::{Entry, Shown};
use super::load::{Source, SourceData};
use super::state::{Corpus, Popup};
use super::textbox::TextBox;

mod actions;
mod popups;
mod sidecars;

pub use crate::model::sidecar::DATA_DIR_ENV;

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
    /// Where the run's bookmarks are kept (placed with the labels, opened by bookmarks).
    pub bookmarks: PathBuf,
    pub labels: Option<LabelStore>,
    pub reruns: Option<RerunStore>,
    /// Why a store could not be opened.
    pub error: Option<String>,
    seen_len: (u64, u64),
}

/// A label change waiting for the I/O step (`Component::service`) to write it.
#[derive(Debug, Clone, PartialEq)]
struct PendingLabel {
    run: usize,
    record: LabelRecord,
    /// It takes back an earlier change (`undo_label`): the status line says so, and where.
    undoes: Option<String>,
    /// What changed, and where (`line 2 of run_a: + Logic error`), for the status line.
    change: String,
}

/// A label change of this session, as it can be taken back: the rollout, and its label
/// (categories and note) before the change.
#[derive(Debug, Clone, PartialEq)]
struct Undo {
    row: usize,
    before: Option<LabelRecord>,
}

/// How many label changes `undo_label` can take back.
const UNDO_LEVELS: usize = 50;

/// All labelling state.
#[derive(Debug)]
pub struct Labelling {
    pub taxonomy: Taxonomy,
    pub annotator: String,
    /// Category keys toggle categories (instead of switching panes).
    pub mode: bool,
    /// Label and advance: a category key that leaves the rollout labelled also moves to
    /// the next unlabelled failure (`L` again turns it on, a third time leaves label mode).
    pub advance: bool,
    /// Failures among the loaded rollouts and how many of them this annotator labelled,
    /// run by run (the session's one label-progress figure).
    pub tally: LabelTally,
    /// The note box asks for the annotator's name (no flag, config or environment gave
    /// one): the first label waits in `awaiting` until it is typed.
    pub naming: bool,
    awaiting: Option<Action>,
    /// Label mode's keys as the keymap binds them (`a accept · w note · ...`), and the
    /// key that turns it on again (`L`): what the status bar says when it is turned on.
    pub mode_keys: (String, String),
    /// How to move past the failure "next unlabelled failure" stays on (` (j skips it)`),
    /// from the keymap.
    pub skip_hint: String,
    /// Keys for categories the taxonomy leaves without one, numbers then letters: those the
    /// keymap leaves free, so label mode never hides a key it needs.
    pub spare_keys: Vec<char>,
    pub filter: Option<LabelFilter>,
    /// The note box (`w`).
    pub note: TextBox,
    /// Highlighted row of the category picker.
    pub picker_cursor: usize,
    /// Which other annotator the agreement view compares with (index into the others).
    pub agreement_with: usize,
    /// Highlighted disagreement in the agreement view.
    pub agreement_cursor: usize,
    /// Base folder for sidecars of embedded runs (`$SEBX_DATA_DIR` or `<data dir>/sebx`).
    pub data_dir: Option<PathBuf>,
    /// Where the sidecars of files go (`--sidecar-dir`, the config, the fallback).
    pub places: SidecarPlaces,
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
    /// This session's label changes, the last one last (at most [`UNDO_LEVELS`]).
    undo: Vec<Undo>,
    /// Labelled / total over every loaded rollout, by this annotator.
    pub progress: Progress,
    /// Some sidecar holds a current label (by anyone).
    pub any_labels: bool,
    progress_rows: usize,
    /// Grades finished when the progress was counted.
    /// `Corpus::scores_changed` when the progress was counted.
    progress_scores: u64,
    progress_dirty: bool,
    last_reload: Option<Instant>,
}

impl Default for Labelling {
    fn default() -> Labelling {
        Labelling {
            taxonomy: Taxonomy::default_set(),
            // Named by `prepare` (flag, config, environment); empty: asked at the first label.
            annotator: String::new(),
            mode: false,
            advance: false,
            tally: LabelTally::default(),
            naming: false,
            awaiting: None,
            mode_keys: (String::new(), "L".to_string()),
            skip_hint: String::new(),
            spare_keys: Vec::new(),
            filter: None,
            note: TextBox::default(),
            picker_cursor: 0,
            agreement_with: 0,
            agreement_cursor: 0,
            data_dir: crate::model::sidecar::data_dir(),
            places: SidecarPlaces::new(None),
            taxonomy_path: None,
            seeds: HashMap::new(),
            registered: HashMap::new(),
            taxonomy_loaded: false,
            sidecars: Vec::new(),
            order: LabelOrder::File,
            order_seed: DEFAULT_SEED,
            pending: Vec::new(),
            undo: Vec::new(),
            progress: Progress::default(),
            any_labels: false,
            progress_rows: 0,
            progress_scores: 0,
            progress_dirty: true,
            last_reload: None,
        }
    }
}

impl Labelling {
    /// Labelling with the built-in taxonomy, every category on a key: its own, else the
    /// first of `spare` (see [`Labelling::spare_keys`]).
    pub fn with_spare_keys(spare: Vec<char>) -> Labelling {
        let mut l = Labelling::default();
        l.taxonomy = l.taxonomy.with_spare_keys(&spare);
        l.spare_keys = spare;
        l
    }
}

impl Labelling {
    /// Makes the next the I/O step (`Component::service`) re-read sidecars other processes have appended to.
    pub fn reload_soon(&mut self) {
        self.last_reload = None;
    }

    /// Notes which runs are files and which are built in (the demo), before loading.
    pub fn register_sources(&mut self, sources: &[Source]) {
        for s in sources {
            if s.kind.holds_rollouts() && !matches!(s.data, SourceData::Folder { .. }) {
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

    /// Progress as the title, the panel and the Stats screen say it: labelled failures of
    /// all failures over every run loaded, named (labels go on failures), and labels on
    /// other rollouts beside.
    /// `runs`: the runs loaded now; before the I/O step (`Component::service`) first
    /// counts them, nothing is counted yet, over every one of them.
    pub fn progress_text(&self, runs: usize) -> String {
        let mut all = self.tally.all();
        if self.tally.run_count() < runs {
            all.scope = LabelScope::Runs(runs);
        }
        all.text()
    }

    /// This annotator's saved label of `entry` as shown outside label mode: the categories'
    /// labels joined by ` + `, and the note.
    pub fn label_text(&self, entry: &Entry) -> Option<(String, String)> {
        let record = self.saved(entry.run, &entry.rollout.id)?;
        let names: Vec<&str> = record
            .categories
            .iter()
            .map(|c| {
                self.taxonomy
                    .get(c)
                    .map_or(c.as_str(), |t| t.label.as_str())
            })
            .collect();
        Some((names.join(" + "), record.note.clone()))
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

    /// Where `run`'s labels are kept when that is not beside its file (a `--sidecar-dir`,
    /// the fallback of a read-only folder); `None` beside it, or for the built-in demo.
    pub fn labels_elsewhere(&self, run: usize) -> Option<&Path> {
        let s = self.sidecars.get(run).filter(|s| !s.embedded)?;
        let path = s.labels.as_ref()?.path();
        let beside =
            crate::model::sidecar::sidecar_path(&s.base, crate::model::labels::LABELS_SUFFIX);
        (path != beside).then_some(path)
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
        let facts = corpus.facts(row);
        let grade = GradeFacts {
            // A stored "failed" without a verdict, an error or no grade: judged as not graded.
            verdict: match shown {
                Shown::Verdict(v) => Some(v),
                _ => None,
            },
            timed_out: facts.is_some_and(|f| f.timed_out),
            program_syntax_error: facts.is_some_and(|f| f.program_syntax_error),
            loopholes: facts.map_or(0, |f| f.run_kinds()),
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
}

impl Component for Labelling {
    /// The category picker and the agreement view (`panes::labels`).
    fn draw_popup(
        &self,
        popup: Popup,
        frame: &mut ratatui::Frame,
        area: ratatui::layout::Rect,
        cx: &DrawCx<'_>,
    ) {
        popups::draw_label_popup(self, popup, frame, area, cx);
    }

    fn key(&self, key: &KeyEvent, popup: Option<Popup>) -> Option<Action> {
        self.action_for_key(popup, key)
    }

    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        self.handle(action, cx, fx)
    }

    fn update_popup(
        &mut self,
        popup: Popup,
        action: &Action,
        cx: &Cx<'_>,
        fx: &mut Effects,
    ) -> Handled {
        self.handle_popup(popup, action, cx, fx)
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

    fn bookmark_sidecars(&self) -> Vec<&Path> {
        self.sidecars
            .iter()
            .map(|s| s.bookmarks.as_path())
            .collect()
    }

    fn is_labelled(&self, entry: &Entry) -> bool {
        Labelling::is_labelled(self, entry)
    }

    fn stored_what_if(&self, run: usize, id: &RolloutId) -> Option<&RerunRecord> {
        self.stored_reruns(run, id)
            .into_iter()
            .rev()
            .find(|r| r.what_if)
    }

    fn label_text(&self, entry: &Entry) -> Option<(String, String)> {
        Labelling::label_text(self, entry)
    }

    fn progress_text(&self, runs: usize) -> String {
        Labelling::progress_text(self, runs)
    }

    fn label_tally(&self) -> Option<&LabelTally> {
        Some(&self.tally)
    }

    fn category_counts(&self) -> Vec<(String, usize)> {
        let mut per_category: Vec<(&CategoryId, &usize)> =
            self.progress.per_category.iter().collect();
        per_category.sort_by(|a, b| b.1.cmp(a.1).then(a.0.0.cmp(&b.0.0)));
        per_category
            .into_iter()
            .map(|(c, n)| {
                let name = self
                    .taxonomy
                    .get(c)
                    .map_or(c.0.as_str(), |t| t.label.as_str());
                (name.to_string(), *n)
            })
            .collect()
    }
}

/// A label change in words: "NumPy import, Logic error" or "cleared".
/// What a label change changed: categories added and removed, the note (`+ Logic error,
/// − Wrong arguments, note written`), or `no change`.
pub fn describe_change(
    taxonomy: &Taxonomy,
    before: Option<&LabelRecord>,
    after: &LabelRecord,
) -> String {
    let name = |c: &CategoryId| taxonomy.get(c).map_or(c.0.clone(), |k| k.label.clone());
    let was: &[CategoryId] = before.map_or(&[], |b| b.categories.as_slice());
    let mut parts: Vec<String> = after
        .categories
        .iter()
        .filter(|c| !was.contains(c))
        .map(|c| format!("+ {}", name(c)))
        .collect();
    parts.extend(
        was.iter()
            .filter(|c| !after.categories.contains(c))
            .map(|c| format!("− {}", name(c))),
    );
    let note_was = before.map_or("", |b| b.note.trim());
    match (note_was.is_empty(), after.note.trim()) {
        (_, now) if now == note_was => {}
        (true, _) => parts.push("note written".to_string()),
        (false, "") => parts.push("note removed".to_string()),
        (false, _) => parts.push("note changed".to_string()),
    }
    if parts.is_empty() {
        "no change".to_string()
    } else {
        parts.join(", ")
    }
}

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
