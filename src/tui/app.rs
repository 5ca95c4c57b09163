//! The explorer's state and how it changes. `update` takes an [`Action`], `on_job` a
//! [`JobEvent`]; neither does I/O: work goes into `outbox` for the workers. The plain
//! state types live in `state` (re-exported here); the parts that own their state
//! (labelling, reruns, bookmarks, stats) are offered keys, actions, popups and the I/O step
//! in turn through one trait (`part`), and answer through `effects`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ratatui::layout::{Position, Rect};

use crate::analysis::{Analysis, AnalysisDigest, FindingKind};
use crate::grade::report::GradeReport;
use crate::model::Verdict;
use crate::model::bounded::Bounded;

use super::action::{Action, Keymap};
use super::effects::{Effects, Handled};
use super::entry::{Entry, Score, Shown};
use super::graph_view::GraphCache;
use super::highlight::Highlighted;
use super::jobs::{HighlightKey, HighlightKind, JobEvent, JobRequest};
use super::labelling::Labelling;
use super::layout;
use super::load::LoadEvent;
use super::part::{Cx, NoLabels, Part};
use super::rerun::Reruns;
pub use super::state::*;
use super::theme::Theme;

/// What the workers computed for the rows the user looked at (the most recently looked at
/// are kept), and what was asked for.
pub struct Caches {
    pub highlights: Bounded<HighlightKey, Arc<Highlighted>>,
    /// Asked for and not dropped since (in flight, or held in `highlights`).
    highlight_requested: HashSet<HighlightKey>,
    /// Full static analyses (`crate::analysis`) of rows that were selected.
    pub analyses: Bounded<usize, Arc<Analysis>>,
    analysis_requested: HashSet<usize>,
    /// Rows already handed to the background analysis (the first batch at once, the rest
    /// when loading is done).
    analysis_queued: usize,
    /// The Graph pane's drawings of rows looked at, laid out once each.
    pub graphs: GraphCache,
}

impl Default for Caches {
    fn default() -> Caches {
        Caches {
            highlights: Bounded::new(DETAIL_CACHE),
            highlight_requested: HashSet::new(),
            analyses: Bounded::new(DETAIL_CACHE),
            analysis_requested: HashSet::new(),
            analysis_queued: 0,
            graphs: GraphCache::default(),
        }
    }
}

/// All explorer state: the corpus, the list and detail views, the caches, and the parts
/// (labelling, reruns, bookmarks, stats) that own their own state.
pub struct App {
    pub corpus: Corpus,
    pub list: ListView,
    pub detail: DetailView,
    pub caches: Caches,
    pub theme: Theme,
    pub keymap: Keymap,
    pub popup: Option<Popup>,
    pub popup_scroll: u16,
    /// Terminal size.
    pub size: (u16, u16),
    /// A transient note for the status bar.
    pub message: Option<String>,
    /// Work for the workers (`take_requests`): the one queue every part's requests join.
    outbox: Vec<JobRequest>,
    /// Labels of the loaded runs, and labelling state (issue 5).
    pub labelling: Labelling,
    /// Bookmarks, the playlist and presenter/export requests (issue 12).
    pub bookmarks: super::bookmarks::Bookmarks,
    /// Reruns and what-ifs (issue 5).
    pub reruns: Reruns,
    /// The stats and compare screens (issue 11).
    pub stats: super::stats::StatsView,
    pub should_quit: bool,
    /// A part asked to export the current view (taken by the event loop: `take_export`).
    export_wanted: bool,
    view_dirty: bool,
    next_ticket: u64,
}

/// The parts that own their state ([`Part`]), named so `App` can lend each one the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartId {
    Stats,
    Bookmarks,
    Labelling,
    Reruns,
}

impl PartId {
    /// The order keys and actions are offered in: the first part to take one has it.
    const ORDER: [PartId; 4] = [
        PartId::Stats,
        PartId::Bookmarks,
        PartId::Labelling,
        PartId::Reruns,
    ];
    /// The order of the I/O step: labelling opens the sidecars the others write beside.
    const SERVICE_ORDER: [PartId; 4] = [
        PartId::Labelling,
        PartId::Reruns,
        PartId::Bookmarks,
        PartId::Stats,
    ];
}

/// Most highlighted texts (and full analyses) kept; the least recently looked at go first.
const DETAIL_CACHE: usize = 256;

impl App {
    /// An empty explorer; rows arrive through [`App::on_job`].
    pub fn new(ctx: Context, theme: Theme, keymap: Keymap) -> App {
        App {
            corpus: Corpus {
                ctx,
                runs: Vec::new(),
                tasks: Arc::new(Vec::new()),
                entries: Arc::new(Vec::new()),
                scores: Vec::new(),
                issues: Vec::new(),
                load: LoadProgress::default(),
                grade_progress: GradeProgress::default(),
                digests: Arc::new(Vec::new()),
                score_cache: None,
            },
            list: ListView::default(),
            detail: DetailView::default(),
            caches: Caches::default(),
            theme,
            keymap,
            popup: None,
            popup_scroll: 0,
            size: (80, 24),
            message: None,
            outbox: Vec::new(),
            labelling: Labelling::default(),
            bookmarks: Default::default(),
            reruns: Reruns::default(),
            stats: super::stats::StatsView::default(),
            should_quit: false,
            export_wanted: false,
            view_dirty: false,
            next_ticket: 1,
        }
    }

    /// The selected row's entry.
    pub fn selected_entry(&self) -> Option<&Arc<Entry>> {
        self.list.selected.and_then(|i| self.corpus.entries.get(i))
    }

    /// The selected row's grade report, if it has one.
    pub fn selected_report(&self) -> Option<&GradeReport> {
        self.list
            .selected
            .and_then(|i| self.corpus.scores.get(i))
            .and_then(Score::report)
    }

    /// Hands the rows loaded since the last time to the background analysis.
    fn queue_analysis(&mut self) {
        if self.caches.analysis_queued >= self.corpus.entries.len() {
            return;
        }
        self.outbox.push(JobRequest::AnalyzeAll {
            from: self.caches.analysis_queued,
            entries: self.corpus.entries.clone(),
            dataset: self.corpus.ctx.dataset.clone(),
            api: self.corpus.ctx.api.clone(),
        });
        self.caches.analysis_queued = self.corpus.entries.len();
    }

    /// Stores digests of rows' analyses; the view is rebuilt when a filter or grouping uses them.
    fn store_digests(&mut self, rows: impl IntoIterator<Item = (usize, Arc<AnalysisDigest>)>) {
        let digests = Arc::make_mut(&mut self.corpus.digests);
        for (row, digest) in rows {
            if digests.len() <= row {
                digests.resize(row + 1, None);
            }
            digests[row] = Some(digest);
        }
        if self.list.filters.finding.is_some()
            || self.list.filters.function.is_some()
            || self.list.grouping == Grouping::Function
        {
            self.view_dirty = true;
        }
    }

    /// A part, mutable, with what it reads of the rest.
    fn part_mut(&mut self, id: PartId) -> (&mut dyn Part, Cx<'_>) {
        let (corpus, list) = (&self.corpus, &self.list);
        let others = |labels| Cx {
            corpus,
            list,
            labels,
        };
        match id {
            PartId::Stats => (&mut self.stats, others(&self.labelling)),
            PartId::Bookmarks => (&mut self.bookmarks, others(&self.labelling)),
            PartId::Labelling => (&mut self.labelling, others(&NoLabels)),
            PartId::Reruns => (&mut self.reruns, others(&self.labelling)),
        }
    }

    fn part(&self, id: PartId) -> &dyn Part {
        match id {
            PartId::Stats => &self.stats,
            PartId::Bookmarks => &self.bookmarks,
            PartId::Labelling => &self.labelling,
            PartId::Reruns => &self.reruns,
        }
    }

    /// The action a part makes of `key` before the keymap does (typing a note or caption,
    /// category keys, enter on a screen or in a popup).
    pub fn part_key(&self, key: &ratatui::crossterm::event::KeyEvent) -> Option<Action> {
        PartId::ORDER
            .iter()
            .find_map(|id| self.part(*id).key(key, self.popup))
    }

    /// Offers `action` to each part in turn (in `popup`, when one is open); the first to
    /// take it answers, and `App` applies what it asked for.
    fn offer(&mut self, popup: Option<Popup>, action: &Action) -> Handled {
        let mut fx = Effects::default();
        let mut handled = Handled::Passed;
        for id in PartId::ORDER {
            let (part, cx) = self.part_mut(id);
            handled = match popup {
                Some(p) => part.update_popup(p, action, &cx, &mut fx),
                None => part.update(action, &cx, &mut fx),
            };
            if handled != Handled::Passed {
                break;
            }
        }
        if handled != Handled::Passed {
            self.apply(fx);
        }
        handled
    }

    /// Number of list rows that fit on the screen.
    pub fn list_height(&self) -> usize {
        layout::layout(Rect::new(0, 0, self.size.0, self.size.1)).list_rows as usize
    }

    /// Applies a user or terminal action; returns whether the screen must be redrawn.
    pub fn update(&mut self, action: &Action) -> bool {
        // A note lasts until the next thing the user does.
        if !matches!(action, Action::Resize { .. }) {
            self.message = None;
        }
        if let Some(popup) = self.popup
            && let Some(redraw) = self.update_popup(popup, action)
        {
            return redraw;
        }
        if self.list.search.editing {
            match action {
                Action::SearchInput(c) => {
                    self.list.search.pattern.push(*c);
                    self.start_search();
                    return true;
                }
                Action::SearchBackspace => {
                    self.list.search.pattern.pop();
                    self.start_search();
                    return true;
                }
                Action::SearchSubmit => {
                    self.list.search.editing = false;
                    return true;
                }
                Action::Cancel => {
                    self.list.search = SearchState {
                        id: self.list.search.id + 1,
                        ..SearchState::default()
                    };
                    self.refresh_view();
                    return true;
                }
                _ => {}
            }
        }
        // The parts that own their state: the first to take the action handles it.
        let handled = self.offer(None, action);
        if handled != Handled::Passed {
            self.settle();
            return handled == Handled::Redraw;
        }
        let redraw = match action {
            Action::Quit => {
                self.should_quit = true;
                true
            }
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-(self.list_height().max(2) as isize - 1)),
            Action::PageDown => self.move_by(self.list_height().max(2) as isize - 1),
            Action::Top => self.move_to_view_index(0),
            Action::Bottom => self.move_to_view_index(self.list.view.len().saturating_sub(1)),
            Action::NextPane => self.set_pane(Pane::ALL[(self.detail.pane.index() + 1) % 6]),
            Action::PrevPane => self.set_pane(Pane::ALL[(self.detail.pane.index() + 5) % 6]),
            Action::PaneResponse => self.set_pane(Pane::Response),
            Action::PaneCode => self.set_pane(Pane::Code),
            Action::PaneCases => self.set_pane(Pane::Cases),
            Action::PaneOutput => self.set_pane(Pane::Output),
            Action::PaneGraph if self.detail.pane == Pane::Graph => {
                self.detail.graph_list = !self.detail.graph_list;
                self.detail.scroll = 0;
                self.detail.hscroll = 0;
                true
            }
            Action::PaneGraph => self.set_pane(Pane::Graph),
            Action::PaneTask => self.set_pane(Pane::Task),
            Action::ScrollDown => self.scroll_detail(1),
            Action::ScrollUp => self.scroll_detail(-1),
            Action::FirstFailedCase => self.first_failed_case(),
            Action::Search => {
                self.list.search.editing = true;
                true
            }
            Action::CycleVerdictFilter => {
                self.list.filters.verdict = cycle(&VerdictFilter::CYCLE, self.list.filters.verdict);
                self.refresh_view();
                true
            }
            Action::CycleRunFilter => {
                let runs: Vec<usize> = (0..self.corpus.runs.len()).collect();
                self.list.filters.run = cycle(&runs, self.list.filters.run);
                self.refresh_view();
                true
            }
            Action::CycleFunctionFilter => self.cycle_function_filter(),
            Action::CycleFindingFilter => {
                let mut options = vec![FindingFilter::Any];
                options.extend(FindingKind::BY_IMPORTANCE.map(FindingFilter::Kind));
                self.list.filters.finding = cycle(&options, self.list.filters.finding);
                self.refresh_view();
                true
            }
            Action::ClearFilters => {
                self.clear_filters();
                true
            }
            Action::CycleGrouping => {
                self.list.grouping = cycle(&Grouping::CYCLE, Some(self.list.grouping))
                    .unwrap_or(Grouping::FileOrder);
                self.refresh_view();
                true
            }
            Action::SameTask => {
                self.list.filters.task = match (self.list.filters.task, self.selected_entry()) {
                    (Some(_), _) => None,
                    (None, Some(e)) => Some(e.task),
                    (None, None) => None,
                };
                self.refresh_view();
                true
            }
            Action::NextSameTask => self.next_same_task(),
            Action::Regrade => {
                if let Some(row) = self.list.selected {
                    self.request_grades(&[row], true);
                }
                true
            }
            Action::RegradeAll => {
                let rows: Vec<usize> = self.list.rows().collect();
                self.request_grades(&rows, false);
                true
            }
            Action::Help => {
                self.popup = Some(Popup::Help);
                self.popup_scroll = 0;
                true
            }
            Action::Issues => {
                self.popup = Some(Popup::Issues);
                self.popup_scroll = 0;
                true
            }
            Action::Cancel => {
                if self.list.search.results.is_some() {
                    self.list.search = SearchState {
                        id: self.list.search.id + 1,
                        ..SearchState::default()
                    };
                    self.refresh_view();
                }
                true
            }
            Action::ScrollLeft => {
                self.detail.hscroll = self.detail.hscroll.saturating_sub(8);
                true
            }
            Action::ScrollRight => {
                self.detail.hscroll = self.detail.hscroll.saturating_add(8);
                true
            }
            Action::Resize { width, height } => {
                self.size = (*width, *height);
                self.keep_cursor_visible();
                true
            }
            Action::Click { column, row } => self.click(*column, *row),
            Action::Wheel { column, row, down } => self.wheel(*column, *row, *down),
            // The parts' actions (passed by all of them here), and typing outside a search.
            _ => false,
        };
        self.settle();
        redraw
    }

    /// Handles an action while a popup is open; `None` lets it through to the main screen.
    fn update_popup(&mut self, popup: Popup, action: &Action) -> Option<bool> {
        let handled = self.offer(Some(popup), action);
        if handled != Handled::Passed {
            return Some(handled == Handled::Redraw);
        }
        match action {
            Action::Cancel | Action::Help | Action::Issues | Action::Click { .. } => {
                self.popup = None;
                Some(true)
            }
            Action::Down | Action::ScrollDown => {
                self.popup_scroll = self.popup_scroll.saturating_add(1);
                Some(true)
            }
            Action::Up | Action::ScrollUp => {
                self.popup_scroll = self.popup_scroll.saturating_sub(1);
                Some(true)
            }
            Action::PageDown => {
                self.popup_scroll = self.popup_scroll.saturating_add(10);
                Some(true)
            }
            Action::PageUp => {
                self.popup_scroll = self.popup_scroll.saturating_sub(10);
                Some(true)
            }
            Action::Wheel { down, .. } => {
                self.popup_scroll = if *down {
                    self.popup_scroll.saturating_add(3)
                } else {
                    self.popup_scroll.saturating_sub(3)
                };
                Some(true)
            }
            Action::Quit | Action::Resize { .. } => None,
            _ => Some(false),
        }
    }

    /// Applies a worker's result; returns whether the screen must be redrawn.
    /// View changes are batched: call [`App::settle`] after draining events.
    pub fn on_job(&mut self, event: JobEvent) -> bool {
        match event {
            JobEvent::Load(e) => self.on_load(e),
            JobEvent::Graded {
                ticket,
                row,
                result,
            } => {
                let Some(Score::Grading { ticket: expected }) = self.corpus.scores.get(row) else {
                    return false;
                };
                if *expected != ticket {
                    return false;
                }
                self.corpus.scores[row] = match result {
                    Ok(report) => Score::Graded(Arc::new(*report)),
                    Err(e) => Score::Failed(e),
                };
                self.corpus.grade_progress.finished += 1;
                if self.list.filters.verdict.is_some() || self.list.grouping == Grouping::Verdict {
                    self.view_dirty = true;
                }
                true
            }
            JobEvent::CachedScores { found, missing } => {
                for (row, report) in found {
                    if let Some(slot) = self.corpus.scores.get_mut(row)
                        && *slot == Score::Unscored
                    {
                        *slot = Score::Graded(Arc::new(report));
                    }
                }
                if self.corpus.ctx.grading == Grading::Available {
                    let rows: Vec<usize> = missing
                        .into_iter()
                        .filter(|r| self.corpus.scores.get(*r) == Some(&Score::Unscored))
                        .collect();
                    self.request_grades(&rows, false);
                }
                self.view_dirty = true;
                true
            }
            JobEvent::SearchDone { id, matches } => {
                if id != self.list.search.id {
                    return false;
                }
                self.list.search.pending = false;
                self.list.search.results = Some(matches);
                self.view_dirty = true;
                true
            }
            JobEvent::Digested { rows } => {
                self.store_digests(rows);
                true
            }
            JobEvent::Analyzed { row, analysis } => {
                if self.corpus.digest(row).is_none() {
                    let digest = super::jobs::digest_of(&analysis, &self.corpus.ctx.api);
                    self.store_digests([(row, Arc::new(digest))]);
                }
                self.caches.analysis_requested.insert(row);
                for gone in self.caches.analyses.insert(row, analysis) {
                    self.caches.analysis_requested.remove(&gone);
                }
                self.list.selected == Some(row)
            }
            JobEvent::Highlighted { key, text } => {
                self.caches.highlight_requested.insert(key);
                for gone in self.caches.highlights.insert(key, text) {
                    self.caches.highlight_requested.remove(&gone);
                }
                self.list.selected == Some(key.0)
            }
            JobEvent::Rerun(e) => {
                let mut fx = Effects::default();
                let redraw = self.reruns.on_event(e, &self.corpus, &mut fx);
                self.apply(fx);
                redraw
            }
            JobEvent::Stats(r) => self.stats.on_result(r),
            JobEvent::Exported { shown, result } => {
                self.message = Some(match result {
                    Ok(()) => format!("exported to {}", shown.display()),
                    Err(e) => format!("NOT exported to {}: {e}", shown.display()),
                });
                true
            }
        }
    }

    fn on_load(&mut self, event: LoadEvent) -> bool {
        match event {
            LoadEvent::Run(run) => {
                self.corpus.runs.push(run);
                false
            }
            LoadEvent::Batch {
                entries,
                scores,
                new_tasks,
            } => {
                if !new_tasks.is_empty() {
                    Arc::make_mut(&mut self.corpus.tasks).extend(new_tasks);
                }
                let list = Arc::make_mut(&mut self.corpus.entries);
                list.extend(entries.into_iter().map(Arc::new));
                self.corpus.scores.extend(scores);
                self.view_dirty = true;
                // The first screen's rows are analysed while the rest loads.
                if self.caches.analysis_queued == 0 {
                    self.queue_analysis();
                }
                true
            }
            LoadEvent::Reports(reports) => {
                for (row, report) in reports {
                    if let Some(slot) = self.corpus.scores.get_mut(row) {
                        *slot = Score::Graded(Arc::new(report));
                    }
                }
                self.view_dirty = true;
                true
            }
            LoadEvent::Issues(issues) => {
                self.corpus.issues.extend(issues);
                true
            }
            LoadEvent::Progress { done, total } => {
                self.corpus.load.bytes_done = done;
                self.corpus.load.bytes_total = total;
                true
            }
            LoadEvent::Failed(msg) => {
                self.message = Some(msg);
                true
            }
            LoadEvent::Done => {
                self.corpus.load.done = true;
                self.queue_analysis();
                if !self.corpus.issues.is_empty() {
                    self.message = Some(format!(
                        "{} lines could not be loaded: ! shows why",
                        self.corpus.issues.len()
                    ));
                }
                // Grade what has no score, now that every report file has been matched;
                // the score cache answers first for what an earlier session graded.
                let rows: Vec<usize> = (0..self.corpus.scores.len())
                    .filter(|i| self.corpus.scores[*i] == Score::Unscored)
                    .collect();
                // Unscored rows take a rerun's or the cache's verdict before grading
                // (`grade::resolve`'s precedence; the job answers `CachedScores`).
                if !rows.is_empty() {
                    self.outbox.push(JobRequest::LookupScores {
                        rows,
                        entries: self.corpus.entries.clone(),
                        cache: self.corpus.score_cache.clone(),
                    });
                }
                if self.list.search.results.is_some() {
                    self.start_search();
                }
                self.view_dirty = true;
                true
            }
        }
    }

    /// Clears every filter (the label filter too) and the search.
    fn clear_filters(&mut self) {
        self.list.filters = Filters::default();
        self.labelling.clear_filter();
        self.list.search = SearchState {
            id: self.list.search.id + 1,
            ..SearchState::default()
        };
        self.refresh_view();
    }

    /// Recomputes the view if something changed it; call once after a burst of events.
    pub fn settle(&mut self) {
        if self.view_dirty {
            self.refresh_view();
        }
    }

    fn request_grades(&mut self, rows: &[usize], front: bool) {
        if let Grading::Unavailable(why) = &self.corpus.ctx.grading {
            self.message = Some(format!("cannot grade: {why}"));
            return;
        }
        for &row in rows {
            let Some(entry) = self.corpus.entries.get(row).cloned() else {
                continue;
            };
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            // A row already in flight is re-queued, not counted twice: its old result is dropped.
            if !matches!(self.corpus.scores[row], Score::Grading { .. }) {
                self.corpus.grade_progress.requested += 1;
            }
            self.corpus.scores[row] = Score::Grading { ticket };
            self.outbox.push(JobRequest::Grade {
                ticket,
                row,
                entry,
                front,
            });
        }
        if rows.len() > 1 {
            self.message = Some(format!("grading {} rollouts", rows.len()));
        }
        self.view_dirty = true;
    }

    fn start_search(&mut self) {
        self.list.search.id += 1;
        if self.list.search.pattern.is_empty() {
            self.list.search.results = None;
            self.list.search.pending = false;
            self.refresh_view();
            return;
        }
        self.list.search.pending = true;
        self.outbox.push(JobRequest::Search {
            id: self.list.search.id,
            pattern: self.list.search.pattern.clone(),
            entries: self.corpus.entries.clone(),
            digests: self.corpus.digests.clone(),
            tasks: self.corpus.tasks.clone(),
        });
    }

    fn accepts(&self, i: usize, e: &Entry) -> bool {
        let f = &self.list.filters;
        if let Some(v) = f.verdict
            && !v.accepts(self.corpus.shown(i), self.corpus.report(i))
        {
            return false;
        }
        if f.run.is_some_and(|r| r != e.run) || f.task.is_some_and(|t| t != e.task) {
            return false;
        }
        if f.rows.as_ref().is_some_and(|r| !r.rows.contains(&i)) {
            return false;
        }
        if !self.labelling.accepts(e) {
            return false;
        }
        if let Some(name) = &f.function
            && !self.corpus.functions(i).iter().any(|n| n == name)
        {
            return false;
        }
        match f.finding {
            None => true,
            Some(FindingFilter::Any) => !self.corpus.findings(i).is_empty(),
            Some(FindingFilter::Kind(k)) => self.corpus.findings(i).iter().any(|x| x.kind == k),
        }
    }

    /// Rebuilds `view` from the filters, the search and the grouping; keeps the selection.
    pub fn refresh_view(&mut self) {
        self.view_dirty = false;
        let entries = self.corpus.entries.clone();
        let mut rows: Vec<usize> = match &self.list.search.results {
            Some(matches) => matches
                .iter()
                .map(|(i, _)| *i)
                .filter(|i| entries.get(*i).is_some_and(|e| self.accepts(*i, e)))
                .collect(),
            None => entries
                .iter()
                .enumerate()
                .filter(|(i, e)| self.accepts(*i, e))
                .map(|(i, _)| i)
                .collect(),
        };
        let mut view = Vec::with_capacity(rows.len() + 16);
        if self.list.grouping == Grouping::FileOrder {
            view.extend(rows.into_iter().map(ViewRow::Row));
        } else {
            // Numeric keys, so grouping 100k rows sorts integers, not strings.
            let no_call = "(no zwc call)";
            let function_rank: HashMap<&str, usize> = if self.list.grouping == Grouping::Function {
                let mut names: Vec<&str> = rows
                    .iter()
                    .map(|i| {
                        self.corpus
                            .functions(*i)
                            .first()
                            .map_or(no_call, String::as_str)
                    })
                    .collect();
                names.sort_unstable();
                names.dedup();
                names.into_iter().enumerate().map(|(k, n)| (n, k)).collect()
            } else {
                HashMap::new()
            };
            let key = |i: usize| -> usize {
                let e = &entries[i];
                match self.list.grouping {
                    Grouping::Task => e.task,
                    Grouping::Run => e.run,
                    Grouping::Verdict => verdict_rank(self.corpus.shown(i)),
                    Grouping::Function => function_rank
                        .get(
                            self.corpus
                                .functions(i)
                                .first()
                                .map_or(no_call, String::as_str),
                        )
                        .copied()
                        .unwrap_or(0),
                    Grouping::FileOrder => 0,
                }
            };
            let label = |i: usize| -> String {
                let e = &entries[i];
                match self.list.grouping {
                    Grouping::Task => self
                        .corpus
                        .tasks
                        .get(e.task)
                        .map_or(String::new(), |t| t.short.clone()),
                    Grouping::Run => self
                        .corpus
                        .runs
                        .get(e.run)
                        .map_or(String::new(), |r| r.name.clone()),
                    Grouping::Verdict => self.corpus.shown(i).label().to_string(),
                    Grouping::Function => self
                        .corpus
                        .functions(i)
                        .first()
                        .map_or(no_call, String::as_str)
                        .to_string(),
                    Grouping::FileOrder => String::new(),
                }
            };
            let mut keyed: Vec<(usize, usize)> = rows.drain(..).map(|i| (key(i), i)).collect();
            // Stable: within a group, file order (or search rank) is kept.
            keyed.sort_by_key(|(k, _)| *k);
            let mut k = 0;
            while k < keyed.len() {
                let mut end = k;
                while end < keyed.len() && keyed[end].0 == keyed[k].0 {
                    end += 1;
                }
                view.push(ViewRow::Group {
                    label: label(keyed[k].1),
                    count: end - k,
                });
                view.extend(keyed[k..end].iter().map(|(_, i)| ViewRow::Row(*i)));
                k = end;
            }
        }
        self.list.view = view;
        let still_there = self.list.selected.is_some() && self.list.cursor().is_some();
        if !still_there {
            let first = self.list.rows().next();
            if first != self.list.selected {
                self.select(first);
            }
        }
        self.keep_cursor_visible();
    }

    /// Selects `row` and scrolls the list to it.
    pub fn jump_to(&mut self, row: usize) {
        self.select(Some(row));
        self.keep_cursor_visible();
    }

    fn select(&mut self, row: Option<usize>) {
        if row != self.list.selected {
            self.list.selected = row;
            self.detail.scroll = 0;
            self.detail.case_cursor = 0;
            // The row the user looks at is graded next.
            if let Some(r) = row
                && let Some(Score::Grading { ticket }) = self.corpus.scores.get(r)
                && let Some(entry) = self.corpus.entries.get(r)
            {
                self.outbox.push(JobRequest::Grade {
                    ticket: *ticket,
                    row: r,
                    entry: entry.clone(),
                    front: true,
                });
            }
        }
        self.request_highlights();
    }

    /// The full analysis of the selected row, once its job has answered.
    pub fn selected_analysis(&self) -> Option<&Analysis> {
        self.selected_analysis_arc().map(|a| &**a)
    }

    /// [`App::selected_analysis`], shared (the graph cache keys on it).
    pub fn selected_analysis_arc(&self) -> Option<&Arc<Analysis>> {
        self.list
            .selected
            .and_then(|row| self.caches.analyses.peek(&row))
    }

    /// Asks for the highlighted texts and the analysis of the selected row, unless cached.
    fn request_highlights(&mut self) {
        let Some(row) = self.list.selected else {
            return;
        };
        let Some(entry) = self.corpus.entries.get(row).cloned() else {
            return;
        };
        // What is held counts as just used: the rows looked at last stay cached.
        self.caches.analyses.get(&row);
        if self.caches.analysis_requested.insert(row) {
            self.outbox.push(JobRequest::Analyze {
                row,
                item: self.corpus.dataset_item(&entry).cloned().map(Box::new),
                entry: entry.clone(),
                api: self.corpus.ctx.api.clone(),
            });
        }
        let reference = self
            .corpus
            .dataset_item(&entry)
            .map(|d| d.reference.join("\n\n# ---\n\n"));
        let wanted = [
            (
                HighlightKind::Response,
                Some(entry.rollout.response.clone()),
            ),
            (HighlightKind::Code, Some(entry.code().to_string())),
            (HighlightKind::Reference, reference),
        ];
        for (kind, text) in wanted {
            let key = (row, kind);
            self.caches.highlights.get(&key);
            let Some(text) = text else { continue };
            if text.is_empty() || !self.caches.highlight_requested.insert(key) {
                continue;
            }
            self.outbox.push(JobRequest::Highlight {
                key,
                text,
                syntect_theme: self.theme.syntect_theme.clone(),
            });
        }
    }

    fn move_to_view_index(&mut self, target: usize) -> bool {
        if self.list.view.is_empty() {
            return false;
        }
        let target = target.min(self.list.view.len() - 1);
        // Skip headings: look forward, then backward.
        let found = self.list.view[target..]
            .iter()
            .chain(self.list.view[..target].iter().rev())
            .find_map(ViewRow::row);
        let changed = found != self.list.selected;
        self.select(found);
        self.keep_cursor_visible();
        changed
    }

    fn move_by(&mut self, delta: isize) -> bool {
        let rows: Vec<usize> = self
            .list
            .view
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r, ViewRow::Row(_)))
            .map(|(k, _)| k)
            .collect();
        if rows.is_empty() {
            return false;
        }
        let current = self
            .list
            .cursor()
            .and_then(|c| rows.iter().position(|k| *k == c))
            .unwrap_or(0);
        let next = (current as isize + delta).clamp(0, rows.len() as isize - 1) as usize;
        self.move_to_view_index(rows[next])
    }

    fn keep_cursor_visible(&mut self) {
        let height = self.list_height().max(1);
        let Some(cursor) = self.list.cursor() else {
            self.list.list_offset = self
                .list
                .list_offset
                .min(self.list.view.len().saturating_sub(1));
            return;
        };
        // Show the group heading above the first row of a group when possible.
        let top = if cursor > 0 && matches!(self.list.view[cursor - 1], ViewRow::Group { .. }) {
            cursor - 1
        } else {
            cursor
        };
        if top < self.list.list_offset {
            self.list.list_offset = top;
        } else if cursor >= self.list.list_offset + height {
            self.list.list_offset = cursor + 1 - height;
        }
    }

    fn set_pane(&mut self, pane: Pane) -> bool {
        if self.detail.pane != pane {
            self.detail.pane = pane;
            self.detail.scroll = 0;
            self.detail.hscroll = 0;
        }
        true
    }

    fn scroll_detail(&mut self, delta: i32) -> bool {
        if self.detail.pane == Pane::Cases {
            let cases = self.case_count();
            if cases == 0 {
                return false;
            }
            let next =
                (self.detail.case_cursor as i64 + i64::from(delta)).clamp(0, cases as i64 - 1);
            self.detail.case_cursor = next as usize;
            return true;
        }
        self.detail.scroll = if delta >= 0 {
            self.detail.scroll.saturating_add(delta as u16)
        } else {
            self.detail
                .scroll
                .saturating_sub(delta.unsigned_abs() as u16)
        };
        true
    }

    /// Number of cases the Cases pane lists for the selection.
    pub fn case_count(&self) -> usize {
        match (self.selected_report(), self.selected_entry()) {
            (Some(r), _) if !r.cases.is_empty() => r.cases.len(),
            (_, Some(e)) => e.rollout.test_cases.len(),
            _ => 0,
        }
    }

    fn first_failed_case(&mut self) -> bool {
        self.detail.pane = Pane::Cases;
        self.detail.scroll = 0;
        match self.selected_report() {
            Some(r) if r.execution.is_none() => {
                self.message = Some(format!("no case ran: {}", r.decided_by));
            }
            Some(r) => match r.cases.iter().position(|c| !c.matched) {
                Some(k) => self.detail.case_cursor = k,
                None => self.message = Some("no failed case".to_string()),
            },
            None => self.message = Some("not graded: no case results yet".to_string()),
        }
        true
    }

    fn cycle_function_filter(&mut self) -> bool {
        let options: Vec<String> = self
            .list
            .selected
            .map(|i| self.corpus.functions(i).to_vec())
            .unwrap_or_default();
        if options.is_empty() && self.list.filters.function.is_none() {
            self.message = Some("the selected rollout calls no zwc function".to_string());
            return true;
        }
        self.list.filters.function = match &self.list.filters.function {
            Some(f) => options
                .iter()
                .position(|o| o == f)
                .and_then(|p| options.get(p + 1).cloned()),
            None => options.first().cloned(),
        };
        self.refresh_view();
        true
    }

    fn next_same_task(&mut self) -> bool {
        let Some(entry) = self.selected_entry().cloned() else {
            return false;
        };
        let Some(cursor) = self.list.cursor() else {
            return false;
        };
        let n = self.list.view.len();
        let next = (1..n)
            .map(|d| (cursor + d) % n)
            .find_map(|k| match &self.list.view[k] {
                ViewRow::Row(i) if self.corpus.entries[*i].task == entry.task => Some(*i),
                _ => None,
            });
        match next {
            Some(i) => {
                let runs = self.corpus.runs.len();
                self.select(Some(i));
                self.keep_cursor_visible();
                if runs > 1 {
                    let name = self
                        .corpus
                        .runs
                        .get(self.corpus.entries[i].run)
                        .map(|r| r.name.clone());
                    self.message = name.map(|n| format!("same task in run {n}"));
                }
            }
            None => self.message = Some("this task has no other rollout shown".to_string()),
        }
        true
    }

    fn click(&mut self, column: u16, row: u16) -> bool {
        let areas = layout::layout(Rect::new(0, 0, self.size.0, self.size.1));
        let pos = Position::new(column, row);
        if areas.list_body.contains(pos) {
            let k = self.list.list_offset + usize::from(row - areas.list_body.y);
            if let Some(ViewRow::Row(i)) = self.list.view.get(k) {
                let i = *i;
                self.select(Some(i));
                return true;
            }
            return false;
        }
        if let Some(pane) = layout::tab_at(areas.detail, column, row) {
            return self.set_pane(pane);
        }
        // A click on a row of the Cases table (as last drawn) selects that case.
        let inner = layout::detail_inner(areas.detail);
        if self.detail.pane == Pane::Cases && inner.contains(pos) {
            let hit = self
                .detail
                .case_rows_drawn
                .borrow()
                .iter()
                .find(|(y, _)| *y == row)
                .map(|(_, k)| *k);
            if let Some(k) = hit {
                self.detail.case_cursor = k;
                return true;
            }
        }
        false
    }

    fn wheel(&mut self, column: u16, row: u16, down: bool) -> bool {
        let areas = layout::layout(Rect::new(0, 0, self.size.0, self.size.1));
        let pos = Position::new(column, row);
        let step = if down { 3 } else { -3 };
        if areas.list.contains(pos) {
            self.move_by(step)
        } else if areas.detail.contains(pos) {
            if self.detail.pane == Pane::Cases {
                self.scroll_detail(step.signum() as i32)
            } else {
                self.scroll_detail(step as i32)
            }
        } else {
            false
        }
    }

    /// Does what a part asked for (see [`Effects`]).
    fn apply(&mut self, fx: Effects) {
        let Effects {
            message,
            popup,
            refresh_view,
            clear_filters,
            filter_rows,
            jump_to,
            requests,
            issues,
            notes,
            export_view,
        } = fx;
        self.export_wanted |= export_view;
        if let Some(popup) = popup {
            self.popup = popup;
            self.popup_scroll = 0;
        }
        let filter_rows_set = filter_rows.is_some();
        self.outbox.extend(requests);
        self.corpus.issues.extend(issues);
        self.corpus.ctx.notes.extend(notes);
        if clear_filters {
            self.clear_filters();
        }
        if let Some(rows) = filter_rows {
            self.list.filters.rows = Some(rows);
        }
        if refresh_view || filter_rows_set {
            self.refresh_view();
        }
        if let Some(row) = jump_to {
            self.jump_to(row);
        }
        if message.is_some() {
            self.message = message;
        }
    }

    /// The event loop's I/O step: writes queued label changes and reruns to their sidecars
    /// (before anything is drawn next), and picks up other explorers' changes. Returns
    /// whether to redraw.
    pub fn service(&mut self) -> bool {
        let mut fx = Effects::default();
        let mut redraw = false;
        for id in PartId::SERVICE_ORDER {
            let (part, cx) = self.part_mut(id);
            redraw |= part.service(&cx, &mut fx);
            if id == PartId::Labelling {
                // Reruns' results go to the rerun sidecars labelling keeps open: the one
                // step joining two parts, so `App`'s.
                redraw |= self
                    .labelling
                    .write_reruns(&self.corpus, &mut self.reruns, &mut fx);
            }
        }
        self.apply(fx);
        redraw
    }

    /// The editor came back for a what-if on `row`: grade the edit, or say why not.
    pub fn on_edited(&mut self, row: usize, edited: anyhow::Result<Option<String>>) {
        let mut fx = Effects::default();
        self.reruns.on_edited(&self.corpus, row, edited, &mut fx);
        self.apply(fx);
    }

    /// What the Rerun panel compares for `row`: this session's reruns and those in the
    /// run's sidecar (`None` when it has none).
    pub fn rerun_comparison(&self, row: usize) -> Option<super::rerun::Comparison> {
        let entry = self.corpus.entries.get(row)?;
        let stored = self.labelling.stored_reruns(entry.run, &entry.rollout.id);
        self.reruns.comparison(&self.corpus, &stored, row)
    }

    /// Queues a rerun (`code: None`) or a what-if of `row`, as `r` and `e` do.
    pub fn rerun(&mut self, row: usize, code: Option<String>) {
        let mut fx = Effects::default();
        self.reruns.request(&self.corpus, row, code, &mut fx);
        self.apply(fx);
    }

    /// Whether a part asked to export the current view since the last call.
    pub fn take_export(&mut self) -> bool {
        std::mem::take(&mut self.export_wanted)
    }

    /// A detached copy of what drawing `row`'s detail view in `pane` reads: the corpus
    /// (its rows shared, not copied), that row's analysis and highlighted texts, the
    /// detail view scrolled to its top. Drawing it (an export, on a worker) leaves this
    /// explorer untouched.
    pub fn detached(&self, row: usize, pane: Pane) -> App {
        let c = &self.corpus;
        let mut copy = App::new(c.ctx.clone(), self.theme.clone(), self.keymap.clone());
        copy.corpus = Corpus {
            ctx: c.ctx.clone(),
            runs: c.runs.clone(),
            tasks: c.tasks.clone(),
            entries: c.entries.clone(),
            scores: c.scores.clone(),
            issues: Vec::new(),
            load: c.load,
            grade_progress: c.grade_progress,
            digests: c.digests.clone(),
            score_cache: c.score_cache.clone(),
        };
        copy.size = self.size;
        copy.list.selected = Some(row);
        copy.detail = DetailView {
            pane,
            scroll: 0,
            hscroll: 0,
            case_cursor: self.detail.case_cursor,
            graph_list: self.detail.graph_list,
            ..DetailView::default()
        };
        if let Some(a) = self.caches.analyses.peek(&row) {
            copy.caches.analyses.insert(row, a.clone());
        }
        for kind in [
            HighlightKind::Response,
            HighlightKind::Code,
            HighlightKind::Reference,
        ] {
            if let Some(h) = self.caches.highlights.peek(&(row, kind)) {
                copy.caches.highlights.insert((row, kind), h.clone());
            }
        }
        copy
    }

    /// Takes the work queued by `update`/`on_job`, for the workers.
    pub fn take_requests(&mut self) -> Vec<JobRequest> {
        std::mem::take(&mut self.outbox)
    }

    /// The work queued and not yet taken.
    pub fn queued(&self) -> &[JobRequest] {
        &self.outbox
    }

    /// Queues work for the workers: every part's requests join this one queue.
    pub fn queue(&mut self, req: JobRequest) {
        self.outbox.push(req);
    }
}

/// Order of verdict groups: failures first, the most actionable on top.
fn verdict_rank(s: Shown) -> usize {
    match s {
        Shown::Verdict(Verdict::ResultError) => 0,
        Shown::Verdict(Verdict::ExeError) => 1,
        Shown::Verdict(Verdict::UseNumpy) => 2,
        Shown::Verdict(Verdict::WithoutZwc) => 3,
        Shown::StoredFail => 4,
        Shown::Error => 5,
        Shown::Verdict(Verdict::Right) => 6,
        Shown::Grading => 7,
        Shown::Pending => 8,
    }
}

/// The option after `current` in `options`, then none, then the first again.
fn cycle<T: Clone + PartialEq>(options: &[T], current: Option<T>) -> Option<T> {
    match current {
        None => options.first().cloned(),
        Some(c) => options
            .iter()
            .position(|o| *o == c)
            .and_then(|p| options.get(p + 1).cloned()),
    }
}
