//! The explorer's stats and compare screens (`S`, `C`): the session's stats and compare
//! reports (what `sebx stats` and `sebx compare` print) over the loaded rows, computed on a
//! worker thread (`jobs::stats`) so the list stays responsive; `screen` draws them. The stats screen is a heat-coloured internalization map where `enter`
//! filters the list to that function's failures; the compare screen is the flip matrix,
//! whose cells list their pairs, and a pair opens side by side with a diff of the code.

mod screen;

pub(crate) use screen::heat;

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::sync::Arc;

use crate::grade::report::GradeReport;
use crate::grade::runs::{self, FunctionRow, FunctionSort};
use crate::model::Verdict;
use crate::session::loaded::LoadedRun;

use super::action::{Action, Keymap, Scope};
use super::component::{Component, Cx, DrawCx, Labels};
use super::effects::{Effects, Handled};
use super::entry::Shown;
pub use super::jobs::stats::{StatsInput, StatsResult};
use super::state::{Corpus, Popup, RowFilter};
use super::textbox::{TextBox, Typed};

/// Which screen is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// Run summaries and the internalization map of one run.
    Map,
    /// The flip matrix of two runs.
    Compare,
    /// The pairs in one matrix cell (`[A][B]` verdict indices in `Verdict::ALL` order).
    Cell(usize, usize),
    /// One pair side by side (index into the cell's pairs).
    Pair(usize, usize, usize),
}

/// The screens' state.
#[derive(Debug, Clone, Default)]
pub struct StatsView {
    pub screen: Option<Screen>,
    pub result: Option<Arc<StatsResult>>,
    /// Ticket of the newest request; older results are dropped.
    pub ticket: u64,
    pub computing: bool,
    /// Run whose map is shown.
    pub run: usize,
    /// Highlighted map row.
    pub cursor: usize,
    /// Highlighted matrix cell (row, column in `Verdict::ALL` order).
    pub cell: (usize, usize),
    /// Highlighted pair in a cell listing.
    pub pair_cursor: usize,
    /// Runs compared (A, B).
    pub pair: (usize, usize),
    pub scroll: u16,
    /// Order of the map (`s` cycles).
    pub sort: FunctionSort,
    /// The map's search box (`/`): jumps to the first function whose NumPy or zwc name
    /// matches, as the list's search matches (smart case, `~` fuzzy).
    pub search: TextBox,
    /// The map's search in force (`m`: the next row matching it).
    pub pattern: String,
    /// The open pair's reports, read once.
    pub pair_reports: PairReports,
}

/// The open pair's reports, read once: a facts-only row's report comes from the score
/// cache, which drawing the pair (every frame) must not read again. Held by row and
/// `Corpus::scores_changed`, so another pair, or a new grade, is read anew.
#[derive(Debug, Clone, Default)]
pub struct PairReports {
    held: RefCell<Vec<(PairKey, Option<Arc<GradeReport>>)>>,
    lookups: Cell<u64>,
}

/// A row and the `Corpus::scores_changed` its report was read at.
type PairKey = (usize, u64);

impl PairReports {
    /// `row`'s report: the one held for `row` at `scores_changed`, else `look_up`'s (the two
    /// rows of a pair are held).
    pub fn report(
        &self,
        row: usize,
        scores_changed: u64,
        look_up: impl FnOnce() -> Option<GradeReport>,
    ) -> Option<Arc<GradeReport>> {
        let key = (row, scores_changed);
        if let Some((_, held)) = self.held.borrow().iter().find(|(k, _)| *k == key) {
            return held.clone();
        }
        self.lookups.set(self.lookups.get() + 1);
        let report = look_up().map(Arc::new);
        let mut held = self.held.borrow_mut();
        held.retain(|(k, _)| k.1 == scores_changed);
        if held.len() >= 2 {
            held.remove(0);
        }
        held.push((key, report.clone()));
        report
    }

    /// How many reports were looked up (not found held).
    pub fn lookups(&self) -> u64 {
        self.lookups.get()
    }
}

impl Component for StatsView {
    /// The open stats or compare screen over the list and panes (`screen`).
    fn draw(&self, frame: &mut ratatui::Frame, area: ratatui::layout::Rect, cx: &DrawCx<'_>) {
        screen::draw(self, frame, area, cx);
    }

    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        self.handle(action, cx.corpus, cx.labels, fx)
    }

    fn hints(&self, keys: &Keymap) -> Option<String> {
        self.screen.map(|screen| footer_keys(screen, keys))
    }

    fn extra_hints(&self, keys: &Keymap) -> Option<String> {
        self.screen.and_then(|screen| extra_keys(screen, keys))
    }

    /// The map row under the cursor, whole (`full_text`): what the map cuts with a `…`.
    fn draw_popup(
        &self,
        popup: Popup,
        frame: &mut ratatui::Frame,
        area: ratatui::layout::Rect,
        cx: &DrawCx<'_>,
    ) {
        if popup == Popup::FullText && self.screen == Some(Screen::Map) {
            screen::draw_row_whole(self, frame, area, cx);
        }
    }
}

/// The map of the shown run in the chosen order.
pub fn sorted_map(view: &StatsView, r: &StatsResult) -> Vec<FunctionRow> {
    let mut rows = r.report.function_map(view.run);
    runs::sort_functions(&mut rows, view.sort);
    rows
}

pub(crate) fn sort_label(sort: FunctionSort) -> &'static str {
    match sort {
        FunctionSort::Accuracy => "lowest accuracy first",
        FunctionSort::Rollouts => "most rollouts first",
        FunctionSort::WrongNames => "most wrong-name stand-ins first",
        FunctionSort::Name => "by NumPy name",
    }
}

/// Rows a page key moves a cursor by (the map shows about a screen of rows).
const PAGE: usize = 15;

/// A cursor over `n` rows after a move key.
fn moved(cursor: usize, n: usize, action: &Action) -> usize {
    let last = n.saturating_sub(1);
    match action {
        Action::Down => (cursor + 1).min(last),
        Action::PageDown => (cursor + PAGE).min(last),
        Action::PageUp => cursor.saturating_sub(PAGE),
        Action::Top => 0,
        Action::Bottom => last,
        _ => cursor,
    }
}

/// The scope of a screen's keys.
pub fn scope(screen: Screen) -> Scope {
    match screen {
        Screen::Map => Scope::Stats,
        _ => Scope::Compare,
    }
}

/// The keys of the open screen, for its title and the status bar, from the keymap in force.
pub fn footer_keys(screen: Screen, keys: &Keymap) -> String {
    let moves: &[Action] = &[Action::Up, Action::Down];
    let pages: &[Action] = &[Action::Up, Action::Down, Action::PageUp, Action::PageDown];
    let items: Vec<(&[Action], &str)> = match screen {
        Screen::Map => vec![
            (pages, ""),
            (&[Action::PrevRun, Action::NextRun], "run"),
            (&[Action::SortRows], "sort"),
            (&[Action::Search], "search"),
            (&[Action::Choose], "failures"),
            (&[Action::CloseScreen], "close"),
        ],
        Screen::Compare => vec![
            (
                &[
                    Action::Up,
                    Action::Down,
                    Action::CellLeft,
                    Action::CellRight,
                ],
                "cell",
            ),
            (&[Action::Choose], "its pairs"),
            (&[Action::NextRuns], "next runs"),
            (&[Action::CloseScreen], "close"),
        ],
        Screen::Cell(..) => vec![
            (pages, ""),
            (&[Action::Choose], "side by side"),
            (&[Action::CloseScreen], "back"),
        ],
        Screen::Pair(..) => vec![(moves, "scroll"), (&[Action::CloseScreen], "back")],
    };
    keys.hint(scope(screen), &items)
}

/// The keys of the open screen that give way first when the status bar is narrow: the Stats
/// map row's whole text.
pub fn extra_keys(screen: Screen, keys: &Keymap) -> Option<String> {
    match screen {
        Screen::Map => Some(keys.hint(scope(screen), &[(&[Action::FullText], "whole row")]))
            .filter(|h| !h.is_empty()),
        _ => None,
    }
}

pub(crate) fn cell_pairs(r: &StatsResult, a: usize, b: usize) -> Vec<(usize, usize)> {
    match &r.compare {
        Some(c) => c.comparison.cell(&r.set, Verdict::ALL[a], Verdict::ALL[b]),
        None => Vec::new(),
    }
}

impl StatsView {
    /// Asks for fresh figures (the rows may have changed since the last time).
    fn request(&mut self, corpus: &Corpus, labels: &dyn Labels, fx: &mut Effects) {
        let verdicts = (0..corpus.entries.len())
            .map(|i| match corpus.shown(i) {
                Shown::Verdict(v) => Some(v),
                _ => None,
            })
            .collect();
        self.ticket += 1;
        self.computing = true;
        if self.pair.0 == self.pair.1 {
            self.pair = (0, 1);
        }
        let categories = labels.category_ids();
        let input = StatsInput {
            labels: corpus
                .entries
                .iter()
                .map(|e| labels.categories(e.run, &e.rollout.id))
                .collect(),
            seed: labels.order_seed(),
            ticket: self.ticket,
            runs: corpus
                .runs
                .iter()
                .map(|r| LoadedRun {
                    path: r.path.clone(),
                    name: r.name.clone(),
                    // The screen shows this annotator's labels; it names nobody.
                    annotator: None,
                    categories: categories.clone(),
                })
                .collect(),
            entries: corpus.entries.clone(),
            verdicts,
            facts: (0..corpus.entries.len()).map(|i| corpus.facts(i)).collect(),
            api: corpus.ctx.api.clone(),
            dataset: corpus.ctx.dataset.clone(),
            pair: self.pair,
        };
        fx.requests
            .push(super::jobs::JobRequest::Stats(Box::new(input)));
    }

    /// A result arrived.
    pub fn on_result(&mut self, result: Arc<StatsResult>) -> bool {
        if result.ticket != self.ticket {
            return false;
        }
        self.computing = false;
        self.result = Some(result);
        self.screen.is_some()
    }

    /// Handles an action for the stats screens; passed when they are closed (or it is not theirs).
    fn handle(
        &mut self,
        action: &Action,
        corpus: &Corpus,
        labelling: &dyn Labels,
        fx: &mut Effects,
    ) -> Handled {
        match action {
            Action::StatsScreen => {
                self.screen = Some(Screen::Map);
                self.scroll = 0;
                self.request(corpus, labelling, fx);
                return Handled::Redraw;
            }
            Action::CompareScreen => {
                if corpus.runs.len() < 2 {
                    fx.say("compare needs two runs (open two rollout files)");
                    return Handled::Redraw;
                }
                self.screen = Some(Screen::Compare);
                self.scroll = 0;
                self.request(corpus, labelling, fx);
                return Handled::Redraw;
            }
            _ => {}
        }
        let Some(screen) = self.screen else {
            return Handled::Passed;
        };
        let result = self.result.clone();
        let redraw = match (screen, action) {
            (_, Action::Quit) => return Handled::Passed,
            (_, Action::Resize { .. }) => return Handled::Passed,
            (Screen::Map, _) if self.search.is_open() => {
                return self.update_search(action, result.as_deref(), fx);
            }
            (Screen::Map | Screen::Compare, Action::CloseScreen | Action::Cancel) => {
                self.screen = None;
                true
            }
            (Screen::Cell(..), Action::CloseScreen | Action::Cancel) => {
                self.screen = Some(Screen::Compare);
                true
            }
            (Screen::Pair(a, b, _), Action::CloseScreen | Action::Cancel) => {
                self.screen = Some(Screen::Cell(a, b));
                true
            }
            (Screen::Map, Action::FullText) => {
                let row = result
                    .as_ref()
                    .is_some_and(|r| self.cursor < r.report.function_map(self.run).len());
                if row {
                    fx.open(Popup::FullText);
                }
                row
            }
            (Screen::Map, Action::Up) => {
                self.cursor = self.cursor.saturating_sub(1);
                true
            }
            (
                Screen::Map,
                Action::Down | Action::PageDown | Action::PageUp | Action::Top | Action::Bottom,
            ) => {
                let n = result
                    .as_ref()
                    .map_or(0, |r| r.report.function_map(self.run).len());
                self.cursor = moved(self.cursor, n, action);
                true
            }
            (Screen::Map, Action::NextRun | Action::PrevRun) => {
                let n = result.as_ref().map_or(0, |r| r.report.runs.len()).max(1);
                self.run = if matches!(action, Action::NextRun) {
                    (self.run + 1) % n
                } else {
                    (self.run + n - 1) % n
                };
                self.cursor = 0;
                true
            }
            (Screen::Map, Action::SortRows) => {
                self.sort = match self.sort {
                    FunctionSort::Accuracy => FunctionSort::Rollouts,
                    FunctionSort::Rollouts => FunctionSort::WrongNames,
                    FunctionSort::WrongNames => FunctionSort::Name,
                    FunctionSort::Name => FunctionSort::Accuracy,
                };
                self.cursor = 0;
                true
            }
            (Screen::Map, Action::Search) => {
                let last = self.pattern.clone();
                self.search.open(0, &last, true);
                true
            }
            (Screen::Map, Action::NextMatch) => {
                self.find(result.as_deref(), true, fx);
                true
            }
            (Screen::Map, Action::Choose) => {
                self.filter_to_function(result.as_deref(), fx);
                true
            }
            (Screen::Compare, Action::Up) => {
                self.cell.0 = self.cell.0.saturating_sub(1);
                true
            }
            (Screen::Compare, Action::Down) => {
                self.cell.0 = (self.cell.0 + 1).min(4);
                true
            }
            (Screen::Compare, Action::CellLeft) => {
                self.cell.1 = self.cell.1.saturating_sub(1);
                true
            }
            (Screen::Compare, Action::CellRight) => {
                self.cell.1 = (self.cell.1 + 1).min(4);
                true
            }
            (Screen::Compare, Action::NextRuns) => {
                // The next pair of runs.
                let n = corpus.runs.len().max(2);
                let (a, b) = self.pair;
                let mut next = (a, (b + 1) % n);
                if next.1 == next.0 {
                    next = ((a + 1) % n, (a + 2) % n);
                }
                self.pair = next;
                self.request(corpus, labelling, fx);
                true
            }
            (Screen::Compare, Action::Choose) => {
                self.screen = Some(Screen::Cell(self.cell.0, self.cell.1));
                self.pair_cursor = 0;
                true
            }
            (Screen::Cell(a, b), Action::Up) => {
                self.pair_cursor = self.pair_cursor.saturating_sub(1);
                let _ = (a, b);
                true
            }
            (
                Screen::Cell(a, b),
                Action::Down | Action::PageDown | Action::PageUp | Action::Top | Action::Bottom,
            ) => {
                let n = result.as_ref().map_or(0, |r| cell_pairs(r, a, b).len());
                self.pair_cursor = moved(self.pair_cursor, n, action);
                true
            }
            (Screen::Cell(a, b), Action::Choose) => {
                let n = result.as_ref().map_or(0, |r| cell_pairs(r, a, b).len());
                if self.pair_cursor < n {
                    self.screen = Some(Screen::Pair(a, b, self.pair_cursor));
                    self.scroll = 0;
                }
                true
            }
            (Screen::Pair(..), Action::Down | Action::ScrollDown) => {
                self.scroll = self.scroll.saturating_add(1);
                true
            }
            (Screen::Pair(..), Action::Up | Action::ScrollUp) => {
                self.scroll = self.scroll.saturating_sub(1);
                true
            }
            (Screen::Pair(..), Action::PageDown) => {
                self.scroll = self.scroll.saturating_add(10);
                true
            }
            (Screen::Pair(..), Action::PageUp) => {
                self.scroll = self.scroll.saturating_sub(10);
                true
            }
            (Screen::Pair(..), Action::Top) => {
                self.scroll = 0;
                true
            }
            _ => false,
        };
        Handled::taken(redraw)
    }

    /// The map's search box: each edit jumps to the first row matching the text.
    fn update_search(
        &mut self,
        action: &Action,
        result: Option<&StatsResult>,
        fx: &mut Effects,
    ) -> Handled {
        match self.search.update(action) {
            Typed::Edited => {
                self.pattern = self.search.text().to_string();
                self.find(result, false, fx);
            }
            Typed::Submitted(text) => {
                self.pattern = text;
                self.find(result, false, fx);
            }
            Typed::Cancelled => self.pattern.clear(),
            // Keys other than typing are ignored while the box is open.
            Typed::Other => return Handled::Unchanged,
        }
        Handled::Redraw
    }

    /// Moves the map's cursor to the first row (`onward`: the next after the cursor,
    /// wrapping) whose NumPy or zwc name the pattern matches, as the list's search matches.
    fn find(&mut self, result: Option<&StatsResult>, onward: bool, fx: &mut Effects) {
        if super::search::Query::parse(&self.pattern).is_none() {
            fx.say("no search on the map (/ searches)");
            return;
        }
        let Some(r) = result else { return };
        let map = sorted_map(self, r);
        let names = map.iter().map(|row| (row.numpy.as_str(), row.zwc.as_str()));
        let hits = super::search::map_hits(&self.pattern, names).unwrap_or_default();
        let start = if onward { self.cursor + 1 } else { 0 };
        let (next, said) = super::search::jump_to_hit(&hits, start, &self.pattern);
        if let Some(i) = next {
            self.cursor = i;
        }
        fx.say(said);
    }

    /// `enter` on a map row: close the screen, list that function's failures in that run.
    fn filter_to_function(&mut self, result: Option<&StatsResult>, fx: &mut Effects) {
        let Some(r) = result else { return };
        let map = sorted_map(self, r);
        let Some(row) = map.get(self.cursor) else {
            return;
        };
        let rows: BTreeSet<usize> = r
            .set
            .rollouts
            .iter()
            .zip(&r.rows)
            .filter(|(f, _)| {
                f.run as usize == self.run
                    && f.verdict != Verdict::Right
                    && f.uses.iter().any(|u| u.function == row.function)
            })
            .map(|(_, row)| *row)
            .collect();
        let n = rows.len();
        fx.filter_rows = Some(RowFilter {
            label: format!(
                "{n} failures of {} ({}) in {}",
                row.numpy,
                row.zwc,
                r.set.runs.get(self.run).map_or("", String::as_str)
            ),
            rows: Arc::new(rows),
        });
        self.screen = None;
        // The status bar names the filter; the note only says how to leave it.
        fx.say_keyed("{key} clears", Action::ClearFilters);
    }
}
