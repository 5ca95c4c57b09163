//! The explorer's stats and compare screens (`S`, `C`): the session's stats and compare
//! reports (what `sebx stats` and `sebx compare` print) over the loaded rows, computed on a
//! worker thread (`jobs::stats`) so the list stays responsive; `stats_screen` draws them. The stats screen is a heat-coloured internalization map where `enter`
//! filters the list to that function's failures; the compare screen is the flip matrix,
//! whose cells list their pairs, and a pair opens side by side with a diff of the code.

use std::collections::BTreeSet;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::grade::runs::{self, FunctionRow, FunctionSort};
use crate::model::Verdict;
use crate::session::loaded::LoadedRun;

use super::action::Action;
use super::effects::{Effects, Handled};
use super::entry::Shown;
pub use super::jobs::stats::{StatsInput, StatsResult};
use super::part::{Cx, Labels, Part};
use super::state::{Corpus, RowFilter};

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
}

impl Part for StatsView {
    fn key(&self, key: &KeyEvent, _popup: Option<super::state::Popup>) -> Option<Action> {
        action_for_key(self, key)
    }

    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        self.handle(action, cx.corpus, cx.labels, fx)
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

/// Enter on a screen is "choose"; everything else goes through the keymap.
pub fn action_for_key(view: &StatsView, key: &KeyEvent) -> Option<Action> {
    view.screen?;
    let plain = !key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match key.code {
        // `q` closes a screen (one level back) instead of quitting; ctrl-c still quits.
        KeyCode::Char('q') if plain => Some(Action::Cancel),
        KeyCode::Enter => Some(Action::PopupChoose),
        KeyCode::Left => Some(Action::PrevPane),
        KeyCode::Right => Some(Action::NextPane),
        _ => None,
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

/// The keys of the open screen, for the status bar (the list's keys do nothing here).
pub fn footer_keys(screen: Screen) -> &'static str {
    match screen {
        Screen::Map => "↑↓ pgup pgdn g G · ←→ run · s sort · enter: its failures · q close",
        Screen::Compare => "arrows: cell · enter: its pairs · C: next runs · q/esc close",
        Screen::Cell(..) => "↑↓ pgup pgdn g G move · enter: side by side · q/esc back",
        Screen::Pair(..) => "↑↓ pgup pgdn g scroll · q/esc back",
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
            rewards: (0..corpus.entries.len())
                .map(|i| {
                    let f = corpus.facts(i)?;
                    Some((f.reward?, f.reason))
                })
                .collect(),
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
            (Screen::Map | Screen::Compare, Action::Cancel) => {
                self.screen = None;
                true
            }
            (Screen::Cell(..), Action::Cancel) => {
                self.screen = Some(Screen::Compare);
                true
            }
            (Screen::Pair(a, b, _), Action::Cancel) => {
                self.screen = Some(Screen::Cell(a, b));
                true
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
            (Screen::Map, Action::NextPane | Action::PrevPane) => {
                let n = result.as_ref().map_or(0, |r| r.report.runs.len()).max(1);
                self.run = if matches!(action, Action::NextPane) {
                    (self.run + 1) % n
                } else {
                    (self.run + n - 1) % n
                };
                self.cursor = 0;
                true
            }
            (Screen::Map, Action::CycleGrouping) => {
                self.sort = match self.sort {
                    FunctionSort::Accuracy => FunctionSort::Rollouts,
                    FunctionSort::Rollouts => FunctionSort::WrongNames,
                    FunctionSort::WrongNames => FunctionSort::Name,
                    FunctionSort::Name => FunctionSort::Accuracy,
                };
                self.cursor = 0;
                true
            }
            (Screen::Map, Action::PopupChoose) => {
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
            (Screen::Compare, Action::PrevPane) => {
                self.cell.1 = self.cell.1.saturating_sub(1);
                true
            }
            (Screen::Compare, Action::NextPane) => {
                self.cell.1 = (self.cell.1 + 1).min(4);
                true
            }
            (Screen::Compare, Action::CompareScreen | Action::CycleRunFilter) => {
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
            (Screen::Compare, Action::PopupChoose) => {
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
            (Screen::Cell(a, b), Action::PopupChoose) => {
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
            label: format!("{} failures", row.numpy),
            rows: Arc::new(rows),
        });
        self.screen = None;
        fx.say(format!(
            "{n} failures of {} ({}) in {} · c clears",
            row.numpy,
            row.zwc,
            r.set.runs.get(self.run).map_or("", String::as_str)
        ));
    }
}
