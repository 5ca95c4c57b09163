//! The explorer's state and how it changes. `update` takes an [`Action`], `on_job` a
//! [`JobEvent`](super::jobs::JobEvent); neither does I/O: work goes into `outbox` for the workers. The plain
//! state types live in `state` (re-exported here); the components that own their state
//! (labelling, reruns, bookmarks, stats, training, the extra keys, the detail pane)
//! are offered keys, actions, popups and the I/O step in turn through one trait
//! (`component`), and answer through `effects`; `ui` draws them through the same trait.
//!
//! This file holds the state, the parts' plumbing and the dispatch of actions; the rest of
//! `App` is in its children, along its own parts: `view` (building the list from the
//! filters, search and grouping, and moving through it), `detail` (the detail panes, the
//! mouse, the detached copy an export draws), `events` (the workers' results, and the
//! grading, search and analysis requests they answer), `goto` (going to a file line,
//! to the search's next match) and `raw` (the Response pane's view of the stored line).

mod detail;
mod events;
mod goto;
mod raw;
mod view;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ratatui::layout::Rect;

use crate::grade::report::GradeReport;

use super::action::{Action, Keymap, Scope};
use super::component::{Component, Cx, DrawCx, NoLabels, NoReruns, Reads};
use super::effects::{Effects, Handled};
use super::entry::{Entry, Score};
use super::jobs::JobRequest;
use super::labelling::Labelling;
use super::layout;
use super::rerun::Reruns;
pub use super::state::*;
use super::textbox::Typed;
use super::theme::Theme;

/// What the workers computed for the rows the user looked at (the most recently looked at
/// are kept), and what was asked for.
pub struct Caches {
    /// Rows whose remembered report was asked for (opened rows with remembered verdicts).
    report_requested: HashSet<usize>,
    /// Rows already handed to the background analysis (the first batch at once, the rest
    /// when loading is done).
    analysis_queued: usize,
    /// Rows before this one were handed to a score lookup as their batch arrived.
    looked_up: usize,
    /// Whether batches are looked up as they arrive; not when a scored file is among the
    /// sources (it is read after the rollouts, and what it covers needs no lookup).
    look_up_while_loading: bool,
    /// Rows a lookup during loading found nowhere: graded once loading is done (a scored
    /// file read later may still give them a verdict).
    missed_while_loading: Vec<usize>,
    /// Rows a scored file gave a verdict without the official RL reward, graded for the
    /// reward (by ticket): they keep their report and verdict meanwhile, and after (the
    /// scored file's precedence), with the graded reward beside it.
    reward_only: HashMap<usize, u64>,
    /// Remembered rows a scorer pays whose grade did not ask the behaviour questions,
    /// graded again in the background to ask them (by ticket): they keep their verdict on
    /// screen meanwhile, and take the new grade's facts when it comes.
    behaviour_only: HashMap<usize, u64>,
    /// Rows of such verdicts whose reward is first asked of the score cache (an earlier
    /// session graded it): graded only where the cache does not know it.
    reward_lookup: HashSet<usize>,
    /// The rows of each loading batch handed to a lookup, one after another, and where
    /// each batch ends: what a seal looks up again once every grade is in
    /// (`JobRequest::SealSets`).
    batch_rows: Vec<usize>,
    batch_cuts: Vec<usize>,
    /// Rows handed to a lookup of facts and not answered yet.
    lookup_rows_pending: usize,
    /// The grades requested when the batches were last sealed.
    sealed_at: Option<usize>,
    /// Seals answered (the batches kept as sets in the score cache, as far as they hold).
    pub seals_done: usize,
}

impl Default for Caches {
    fn default() -> Caches {
        Caches {
            report_requested: HashSet::new(),
            analysis_queued: 0,
            looked_up: 0,
            look_up_while_loading: true,
            missed_while_loading: Vec::new(),
            reward_only: HashMap::new(),
            behaviour_only: HashMap::new(),
            reward_lookup: HashSet::new(),
            batch_rows: Vec::new(),
            batch_cuts: Vec::new(),
            lookup_rows_pending: 0,
            sealed_at: None,
            seals_done: 0,
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
    /// The help popup, which records how far it can scroll as it is drawn.
    pub help: super::help_popup::HelpPopup,
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
    /// The Training screen, the step-range filter and the group view (issue 19).
    pub training: super::training::TrainingView,
    /// The dump's extra keys as list columns and a filter (issue 30).
    pub extras: super::extras::ExtraKeys,
    pub should_quit: bool,
    /// A part asked to export the current view (taken by the event loop: `take_export`).
    export_wanted: bool,
    view_dirty: bool,
    /// When the list was last rebuilt by [`App::settle`] while loading (see there).
    view_refreshed: Option<std::time::Instant>,
    next_ticket: u64,
}

/// The parts that own their state ([`Component`]), named so `App` can lend each one the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ComponentId {
    Training,
    Stats,
    Bookmarks,
    Labelling,
    Reruns,
    Extras,
    /// The detail pane (its tabs, scrolling, cases and raw line), after every part's.
    Detail,
    /// The list's moves, last: a screen or popup open takes them first.
    List,
}

impl ComponentId {
    /// The order keys and actions are offered in: the first part to take one has it.
    const ORDER: [ComponentId; 8] = [
        ComponentId::Training,
        ComponentId::Stats,
        ComponentId::Bookmarks,
        ComponentId::Labelling,
        ComponentId::Reruns,
        ComponentId::Extras,
        ComponentId::Detail,
        ComponentId::List,
    ];
    /// The order they draw in (the screens over the list; the last drawn is on top).
    /// The detail pane is not among them: `ui` draws it in its place, as it does the list.
    const DRAW_ORDER: [ComponentId; 6] = [
        ComponentId::Stats,
        ComponentId::Training,
        ComponentId::Bookmarks,
        ComponentId::Labelling,
        ComponentId::Reruns,
        ComponentId::Extras,
    ];
    /// The order of the I/O step: labelling opens the sidecars the others write beside.
    const SERVICE_ORDER: [ComponentId; 7] = [
        ComponentId::Labelling,
        ComponentId::Reruns,
        ComponentId::Bookmarks,
        ComponentId::Stats,
        ComponentId::Training,
        ComponentId::Extras,
        ComponentId::Detail,
    ];
}

impl App {
    /// An empty explorer; rows arrive through [`App::on_job`].
    pub fn new(ctx: Context, theme: Theme, keymap: Keymap) -> App {
        let spare_keys = keymap.free_chars();
        let mut labelling = Labelling::with_spare_keys(spare_keys);
        labelling.mode_keys = (
            keymap.hint(
                Scope::Main,
                &[
                    (&[Action::AcceptSuggestion], "accepts the suggestion"),
                    (&[Action::EditNote], "note"),
                    (&[Action::NextUnlabelledFailure], "next unlabelled failure"),
                ],
            ),
            keymap
                .keys_for(Action::LabelMode)
                .first()
                .map_or_else(|| "label_mode".to_string(), |k| k.to_string()),
        );
        labelling.skip_hint = keymap.aside(Action::Down, "skips it");
        App {
            corpus: Corpus {
                ctx,
                runs: Vec::new(),
                tasks: Arc::new(Vec::new()),
                entries: Arc::new(Vec::new()),
                scores: Vec::new(),
                scored_files: Vec::new(),
                scored_by: std::collections::HashMap::new(),
                issues: Vec::new(),
                load: LoadProgress::default(),
                grade_progress: GradeProgress::default(),
                digests: Arc::new(Vec::new()),
                score_cache: None,
                trace_dir: None,
                has_samples: false,
                scores_changed: 0,
            },
            list: ListView::default(),
            detail: DetailView::default(),
            caches: Caches::default(),
            theme,
            keymap,
            popup: None,
            popup_scroll: 0,
            help: Default::default(),
            size: (80, 24),
            message: None,
            outbox: Vec::new(),
            labelling,
            bookmarks: Default::default(),
            reruns: Reruns::default(),
            stats: super::stats::StatsView::default(),
            training: super::training::TrainingView {
                cells_width: super::training::cells_width_for(80),
                range: super::textbox::TextBox::new(super::textbox::Accepts::Range),
                ..Default::default()
            },
            extras: Default::default(),
            should_quit: false,
            export_wanted: false,
            view_dirty: false,
            view_refreshed: None,
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

    /// A part, mutable, with what it reads of the rest (`list_rows`: [`App::list_height`],
    /// taken once by the caller for all the parts it offers to).
    fn component_mut(&mut self, id: ComponentId, list_rows: usize) -> (&mut dyn Component, Cx<'_>) {
        if id == ComponentId::List {
            // The list reads itself (it is lent mutably here); what it is handed as the
            // others' list is an empty one, never read.
            static NO_LIST: std::sync::LazyLock<ListView> =
                std::sync::LazyLock::new(ListView::default);
            let cx = Cx {
                corpus: &self.corpus,
                list: &NO_LIST,
                labels: &self.labelling,
                reruns: &self.reruns,
                keys: &self.keymap,
                list_rows,
            };
            return (&mut self.list, cx);
        }
        let (corpus, list, keys) = (&self.corpus, &self.list, &self.keymap);
        let others = |labels, reruns| Cx {
            corpus,
            list,
            labels,
            reruns,
            keys,
            list_rows,
        };
        match id {
            ComponentId::Training => (&mut self.training, others(&self.labelling, &self.reruns)),
            ComponentId::Stats => (&mut self.stats, others(&self.labelling, &self.reruns)),
            ComponentId::Bookmarks => (&mut self.bookmarks, others(&self.labelling, &self.reruns)),
            ComponentId::Labelling => (&mut self.labelling, others(&NoLabels, &self.reruns)),
            ComponentId::Reruns => (&mut self.reruns, others(&self.labelling, &NoReruns)),
            ComponentId::Extras => (&mut self.extras, others(&self.labelling, &self.reruns)),
            ComponentId::Detail => (&mut self.detail, others(&self.labelling, &self.reruns)),
            ComponentId::List => unreachable!("answered above"),
        }
    }

    fn component(&self, id: ComponentId) -> &dyn Component {
        match id {
            ComponentId::Training => &self.training,
            ComponentId::Stats => &self.stats,
            ComponentId::Bookmarks => &self.bookmarks,
            ComponentId::Labelling => &self.labelling,
            ComponentId::Reruns => &self.reruns,
            ComponentId::Extras => &self.extras,
            ComponentId::Detail => &self.detail,
            ComponentId::List => &self.list,
        }
    }

    /// What a component outside `App` reads to act (the presenter, in the event loop).
    pub fn cx(&self) -> Cx<'_> {
        Cx {
            corpus: &self.corpus,
            list: &self.list,
            labels: &self.labelling,
            reruns: &self.reruns,
            keys: &self.keymap,
            list_rows: self.list_height(),
        }
    }

    /// What the detail view reads of the rest.
    pub fn reads(&self) -> Reads<'_> {
        Reads {
            corpus: &self.corpus,
            list: &self.list,
            labels: &self.labelling,
            reruns: &self.reruns,
        }
    }

    /// The detail view, mutable, with what it reads of the rest.
    fn detail_mut(&mut self) -> (&mut DetailView, Reads<'_>) {
        let reads = Reads {
            corpus: &self.corpus,
            list: &self.list,
            labels: &self.labelling,
            reruns: &self.reruns,
        };
        (&mut self.detail, reads)
    }

    /// What the components read to draw themselves.
    pub fn draw_cx(&self) -> DrawCx<'_> {
        DrawCx {
            theme: &self.theme,
            corpus: &self.corpus,
            list: &self.list,
            keys: &self.keymap,
            popup_scroll: self.popup_scroll,
            labels: &self.labelling,
            reruns: &self.reruns,
            marks: &self.bookmarks,
            extra_columns: &self.extras.columns,
            case: if self.popup == Some(Popup::FullText) {
                self.focused_case()
            } else {
                None
            },
        }
    }

    /// The components, in the order they draw ([`Component::draw`]).
    pub fn drawn(&self) -> impl Iterator<Item = &dyn Component> {
        ComponentId::DRAW_ORDER
            .into_iter()
            .map(|id| self.component(id))
    }

    /// The component that owns `popup` and draws it.
    pub fn popup_owner(&self, popup: Popup) -> &dyn Component {
        match popup {
            Popup::Help => &self.help,
            Popup::Issues => &super::help_popup::IssuesPopup,
            // Over the Stats screen, the map row's whole text is the screen's.
            Popup::FullText if self.stats.screen.is_some() => &self.stats,
            Popup::FullText => &super::full_text::FullTextPopup,
            Popup::CategoryPicker | Popup::Agreement => &self.labelling,
            Popup::Runtime => &self.reruns,
            Popup::ExtraKeys => &self.extras,
        }
    }

    /// The keys of the part that holds the screen (a screen of its own), for the status
    /// bar; `None` on the list.
    pub fn screen_hints(&self) -> Option<String> {
        ComponentId::ORDER
            .iter()
            .find_map(|id| self.component(*id).hints(&self.keymap))
    }

    /// The extra keys of the part that holds the screen ([`Component::extra_hints`]).
    pub fn screen_extra_hints(&self) -> Option<String> {
        ComponentId::ORDER
            .iter()
            .find_map(|id| self.component(*id).extra_hints(&self.keymap))
    }

    /// The action a part makes of `key` before the keymap does (typing a note or caption,
    /// category keys, enter on a screen or in a popup).
    pub fn component_key(&self, key: &ratatui::crossterm::event::KeyEvent) -> Option<Action> {
        ComponentId::ORDER
            .iter()
            .find_map(|id| self.component(*id).key(key, self.popup))
    }

    /// Offers `action` to each part in turn (in `popup`, when one is open); the first to
    /// take it answers, and `App` applies what it asked for.
    fn offer(&mut self, popup: Option<Popup>, action: &Action) -> Handled {
        let mut fx = Effects::default();
        let mut handled = Handled::Passed;
        let list_rows = self.list_height();
        for id in ComponentId::ORDER {
            let (part, cx) = self.component_mut(id, list_rows);
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
        self.settle_match_jump();
        if let Some(popup) = self.popup
            && let Some(redraw) = self.update_popup(popup, action)
        {
            return redraw;
        }
        if self.typing() {
            match action {
                // Ctrl-C quits from every box; a resize is the terminal's, not a key.
                Action::Quit => {
                    self.should_quit = true;
                    return true;
                }
                Action::Resize { .. } => {}
                Action::Edit(_) | Action::Cancel => {
                    if let Some(redraw) = self.update_search_box(action) {
                        return redraw;
                    }
                    if let Some(redraw) = self.update_goto(action) {
                        return redraw;
                    }
                }
                // Anything else is ignored while a box is open (one rule for every box).
                _ => return false,
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
            Action::ClearFilters => {
                self.clear_filters();
                true
            }
            Action::NextSameTask => self.next_same_task(),
            Action::NextMatch => self.next_match(true),
            Action::PrevMatch => self.next_match(false),
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
            Action::FullText => {
                if self.list.selected.is_some() {
                    self.popup = Some(Popup::FullText);
                    self.popup_scroll = 0;
                }
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

    /// Whether a text box is open (the search, go to line, the step range, a note, a
    /// caption): its keys are then the box's (`textbox::action_for_key`).
    pub fn typing(&self) -> bool {
        self.open_box().is_some()
    }

    /// The open text box, whose keys are every key ([`Component::key`] on a `TextBox`).
    pub fn open_box(&self) -> Option<&super::textbox::TextBox> {
        [
            &self.list.search_box,
            &self.list.goto,
            &self.training.range,
            &self.labelling.note,
            &self.bookmarks.caption,
            &self.stats.search,
            &self.training.search,
        ]
        .into_iter()
        .find(|b| b.is_open())
    }

    /// Whose keys are read: a screen's (Training, Stats, Compare) when one is open, else the
    /// list's.
    pub fn scope(&self) -> Scope {
        if self.training.open {
            return Scope::Training;
        }
        match self.stats.screen {
            Some(screen) => super::stats::scope(screen),
            None => Scope::Main,
        }
    }

    /// The search box's edits; `None` when it is not open. Each change of the text runs
    /// the search again.
    fn update_search_box(&mut self, action: &Action) -> Option<bool> {
        match self.list.search_box.update(action) {
            Typed::Edited => {
                let text = self.list.search_box.text().to_string();
                if text != self.list.search.pattern {
                    self.list.search.pattern = text;
                    self.list.search.select_first = true;
                    self.start_search();
                }
                Some(true)
            }
            Typed::Submitted(_) => Some(true),
            Typed::Cancelled => {
                self.list.search = SearchState {
                    id: self.list.search.id + 1,
                    ..SearchState::default()
                };
                self.refresh_view();
                Some(true)
            }
            Typed::Other => None,
        }
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
            // The whole text closes as it opened (its key, or the popup's choose key; over
            // a screen, the screen's close and choose keys).
            Action::FullText | Action::PopupChoose | Action::CloseScreen | Action::Choose
                if popup == Popup::FullText =>
            {
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
        .inspect(|_| {
            // The help stops at its last line instead of scrolling into a blank box.
            if popup == Popup::Help {
                self.popup_scroll = self.popup_scroll.min(self.help.scroll_max.get());
            }
        })
    }

    /// Does what a part asked for (see [`Effects`]).
    fn apply(&mut self, fx: Effects) {
        let Effects {
            message,
            keyed,
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
        if let Some((template, action)) = keyed {
            let key = self
                .keymap
                .key_in(Scope::Main, action)
                .unwrap_or_else(|| format!("{} (no key)", action.config_name()));
            self.message = Some(template.replace("{key}", &key));
        }
    }

    /// The event loop's I/O step: writes queued label changes and reruns to their sidecars
    /// (before anything is drawn next), and picks up other explorers' changes. Returns
    /// whether to redraw.
    pub fn service(&mut self) -> bool {
        let mut fx = Effects::default();
        let mut redraw = false;
        let list_rows = self.list_height();
        for id in ComponentId::SERVICE_ORDER {
            let (part, cx) = self.component_mut(id, list_rows);
            redraw |= part.service(&cx, &mut fx);
            if id == ComponentId::Labelling {
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
