//! The explorer's training-run views (issue 19): the Training screen (`T`: reward and
//! accuracy per step, the zwc function × step heat map; `enter` on a cell lists its
//! rollouts, `/` finds a function by name, `s` sorts the map, `z` lists the selected
//! steps' zero-advantage groups and `enter` there lists a group's samples), the step-range
//! filter (`#`, typed `10-20`) and the group view (`=`: the samples of the selected
//! sample's prompt at its step, with their scores and verdicts). The figures come from the
//! training job (`jobs::training`); `screen` draws them.

mod screen;

pub use screen::search_box;

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::grade::runs::{HeatMap, HeatSort, LearnedAt, OnsetAt, ZeroGroup, bin_label, heat_map};

use super::action::{Action, Keymap, Scope};
use super::component::{Component, Cx, DrawCx};
use super::effects::{Effects, Handled};
pub use super::jobs::training::{RowScore, TrainingInput, TrainingResult};
use super::state::{Corpus, RowFilter};
use super::textbox::{TextBox, Typed};

/// Heat-map columns at most (steps are binned beyond).
pub const MAX_COLUMNS: usize = 40;

/// Columns left of the heat map's cells: a space or `▸`, then the function's names.
pub const NAME_COLUMNS: usize = 33;

/// The Training screen's state and the step-range prompt.
#[derive(Debug, Clone, Default)]
pub struct TrainingView {
    pub open: bool,
    pub result: Option<Arc<TrainingResult>>,
    pub ticket: u64,
    pub computing: bool,
    /// Which training run is shown (index into `result.training_runs`).
    pub run: usize,
    /// Highlighted heat-map cell (function row, step column).
    pub cell: (usize, usize),
    /// Width the heat map's cells have on the terminal (from its width, kept up to date on
    /// resize): the columns and their step ranges follow from it.
    pub cells_width: usize,
    /// The order of the heat map's rows (`s` cycles).
    pub sort: HeatSort,
    /// The function search box (`/`): jumps to the first function whose NumPy or zwc name
    /// matches, as the list's search matches (smart case, `~` fuzzy).
    pub search: TextBox,
    /// The search in force (`m`: the next function matching it).
    pub pattern: String,
    /// The zero-advantage groups of the highlighted column's steps are listed (`z`), with
    /// this one highlighted.
    pub groups: Option<usize>,
    /// The step-range box (`#`).
    pub range: TextBox,
    /// Scores changed since the figures were asked for (`App::settle` asks again).
    pub stale: bool,
    /// The share of a step's samples that solves it (`--learned-at`).
    pub learned_at: LearnedAt,
    /// The share of a step's graded samples through a loophole that marks its onset
    /// (`--onset-at`).
    pub onset_at: OnsetAt,
    /// Counts the responses' tokens (`--tokenizer`).
    pub tokenizer: Option<Arc<crate::model::tokenizer::TokenCounter>>,
    /// Each row's sample facts once computed (rows only ever get appended), not on every
    /// refresh.
    pub samples: super::jobs::training::SampleMemo,
    /// Each row's tokens once counted (`--tokenizer`): the responses are encoded once, in a
    /// job of their own.
    pub tokens: super::jobs::training::TokenMemo,
    /// Rows counted of those being counted, while the count job runs.
    pub counting: Option<(usize, usize)>,
}

/// The Training screen's keys, for its title, from the keymap in force (`wide`: with
/// words; else just the keys).
pub fn footer_keys(keys: &Keymap, wide: bool) -> String {
    let items: [(&[Action], &str); 7] = [
        (
            &[
                Action::Up,
                Action::Down,
                Action::CellLeft,
                Action::CellRight,
            ],
            if wide { "cell" } else { "" },
        ),
        (&[Action::Choose], if wide { "its rollouts" } else { "" }),
        (&[Action::NextRun], if wide { "next run" } else { "run" }),
        (&[Action::SortRows], "sort"),
        (
            &[Action::Search],
            if wide { "find a function" } else { "find" },
        ),
        (
            &[Action::ZeroGroups],
            if wide {
                "zero-advantage groups"
            } else {
                "groups"
            },
        ),
        (&[Action::CloseScreen], if wide { "close" } else { "" }),
    ];
    keys.hint(Scope::Training, &items)
}

/// The Training screen's status bar: what leaves it and the keys most asked for, with
/// words (its title has them all).
pub fn status_keys(keys: &Keymap) -> String {
    let items: [(&[Action], &str); 4] = [
        (&[Action::CloseScreen], "close"),
        (&[Action::Choose], "its rollouts"),
        (&[Action::SortRows], "sort"),
        (&[Action::Search], "find a function"),
    ];
    keys.hint(Scope::Training, &items)
}

/// The keys of the zero-advantage group list, for the screen's title.
pub fn group_keys(keys: &Keymap) -> String {
    let items: [(&[Action], &str); 3] = [
        (&[Action::Up, Action::Down], "group"),
        (&[Action::Choose], "its samples"),
        (&[Action::CloseScreen], "back to the map"),
    ];
    keys.hint(Scope::Training, &items)
}

/// Width of one heat-map column over `bins`: its widest label and a space, at least 4
/// (`100` and a space).
pub fn cell_width(bins: &[(u32, u32)]) -> usize {
    bins.iter()
        .map(|b| bin_label(*b).chars().count() + 1)
        .max()
        .unwrap_or(0)
        .max(4)
}

/// A typed step range: `7`, `10-20`, `10-` (from 10), `-20` (up to 20).
pub fn parse_range(text: &str) -> Option<(u32, u32)> {
    let t = text.trim();
    match t.split_once('-') {
        None => t.parse().ok().map(|s| (s, s)),
        Some((a, b)) => {
            let lo = if a.trim().is_empty() {
                0
            } else {
                a.trim().parse().ok()?
            };
            let hi = if b.trim().is_empty() {
                u32::MAX
            } else {
                b.trim().parse().ok()?
            };
            (lo <= hi).then_some((lo, hi))
        }
    }
}

/// The width the heat map's cells get on a terminal `width` wide (the frame takes 2, the
/// names [`NAME_COLUMNS`]).
pub fn cells_width_for(width: u16) -> usize {
    (width as usize).saturating_sub(2 + NAME_COLUMNS).max(4)
}

impl TrainingView {
    /// The heat map of the shown run in the order in force, its columns fitting
    /// `cells_width` with whole labels.
    pub fn map(&self) -> Option<HeatMap> {
        let r = self.result.as_ref()?;
        let run = *r.training_runs.get(self.run)?;
        let width = self.cells_width;
        Some(heat_map(
            &r.report.figures,
            run,
            |bins| bins.len() <= MAX_COLUMNS && bins.len() * cell_width(bins) <= width,
            self.sort,
        ))
    }

    /// The zero-advantage groups of the highlighted column's steps, step by step.
    pub fn zero_groups(&self) -> Vec<(u32, ZeroGroup)> {
        let (Some(r), Some(map)) = (self.result.as_ref(), self.map()) else {
            return Vec::new();
        };
        let Some(&(lo, hi)) = map.bins.get(self.cell.1) else {
            return Vec::new();
        };
        let name = r.set.runs.get(map.run as usize).map_or("", String::as_str);
        r.report
            .figures
            .steps
            .iter()
            .filter(|s| s.run == name && s.step >= lo && s.step <= hi)
            .flat_map(|s| s.zero_variance_detail.iter().map(|g| (s.step, g.clone())))
            .collect()
    }

    /// Asks for fresh figures (rows were graded since the last ones).
    pub fn refresh(&mut self, corpus: &Corpus, fx: &mut Effects) {
        self.request(corpus, fx);
    }

    fn request(&mut self, corpus: &Corpus, fx: &mut Effects) {
        self.stale = false;
        self.ticket += 1;
        self.computing = true;
        let scores = corpus
            .scores
            .iter()
            .map(|s| RowScore {
                verdict: match s.shown() {
                    super::entry::Shown::Verdict(v) => Some(v),
                    _ => None,
                },
                facts: s.facts(),
            })
            .collect();
        fx.requests
            .push(super::jobs::JobRequest::Training(Box::new(TrainingInput {
                ticket: self.ticket,
                run_names: corpus.runs.iter().map(|r| r.name.clone()).collect(),
                entries: corpus.entries.clone(),
                scores,
                api: corpus.ctx.api.clone(),
                dataset: corpus.ctx.dataset.clone(),
                learned_at: self.learned_at,
                onset_at: self.onset_at,
                tokenizer: self.tokenizer.clone(),
                samples: self.samples.clone(),
                tokens: self.tokens.clone(),
            })));
        // Rows without tokens are counted beside (the figures do not wait for them).
        let counted = self.tokens.lock().map_or(0, |t| t.len());
        if let Some(tokenizer) = &self.tokenizer
            && self.counting.is_none()
            && counted < corpus.entries.len()
        {
            self.counting = Some((0, corpus.entries.len() - counted));
            fx.requests
                .push(super::jobs::JobRequest::CountTokens(Box::new(
                    super::jobs::training::CountInput {
                        entries: corpus.entries.clone(),
                        tokenizer: tokenizer.clone(),
                        memo: self.tokens.clone(),
                    },
                )));
        }
    }

    /// The count job's progress; once done, the figures are asked for again (with the
    /// tokens). Returns whether to redraw.
    pub fn on_tokens(&mut self, counted: usize, total: usize, done: bool) -> bool {
        if done {
            self.counting = None;
            self.stale = true;
        } else {
            self.counting = Some((counted, total));
        }
        self.open
    }

    /// A result arrived; returns whether to redraw.
    pub fn on_result(&mut self, result: Arc<TrainingResult>) -> bool {
        if result.ticket != self.ticket {
            return false;
        }
        self.computing = false;
        self.result = Some(result);
        self.clamp_cell();
        self.open
    }

    fn clamp_cell(&mut self) {
        if let Some(map) = self.map() {
            self.cell.0 = self.cell.0.min(map.rows.len().saturating_sub(1));
            self.cell.1 = self.cell.1.min(map.bins.len().saturating_sub(1));
        }
    }

    /// The rows of the highlighted cell, with what to call them.
    fn cell_filter(&self) -> Option<RowFilter> {
        let r = self.result.as_ref()?;
        let map = self.map()?;
        let (f, _, numpy) = map.rows.get(self.cell.0)?;
        let bin = *map.bins.get(self.cell.1)?;
        let rows = r.cell_rows(map.run, *f, bin);
        let steps = if bin.0 == bin.1 {
            format!("step {}", bin.0)
        } else {
            format!("steps {}–{}", bin.0, bin.1)
        };
        Some(RowFilter {
            label: format!("{numpy} at {steps} ({} samples)", rows.len()),
            rows: Arc::new(rows.into_iter().collect()),
        })
    }

    /// Moves the highlighted row to the first function (`onward`: the next after it,
    /// wrapping) whose NumPy or zwc name the search in force matches.
    fn find(&mut self, onward: bool, fx: &mut Effects) {
        if super::search::Query::parse(&self.pattern).is_none() {
            fx.say("no search on the map (/ finds a function)");
            return;
        }
        let Some(map) = self.map() else { return };
        let names = map
            .rows
            .iter()
            .map(|(_, zwc, numpy)| (numpy.as_str(), zwc.as_str()));
        let hits = super::search::map_hits(&self.pattern, names).unwrap_or_default();
        let start = if onward { self.cell.0 + 1 } else { 0 };
        let (next, said) = super::search::jump_to_hit(&hits, start, &self.pattern);
        if let Some(i) = next {
            self.cell.0 = i;
        }
        fx.say(said);
    }

    /// The search box's keys: each edit jumps to the first function matching the text.
    fn handle_search(&mut self, action: &Action, fx: &mut Effects) -> Handled {
        match self.search.update(action) {
            Typed::Edited => {
                self.pattern = self.search.text().to_string();
                if !self.pattern.is_empty() {
                    self.find(false, fx);
                }
            }
            Typed::Submitted(text) => {
                self.pattern = text;
                if !self.pattern.is_empty() {
                    self.find(false, fx);
                }
            }
            Typed::Cancelled => self.pattern.clear(),
            // Keys other than typing are ignored while the box is open.
            Typed::Other => return Handled::Unchanged,
        }
        Handled::Redraw
    }

    /// The next order of the map; the highlighted function stays highlighted.
    fn next_sort(&mut self, map: &HeatMap, fx: &mut Effects) {
        let function = map.rows.get(self.cell.0).map(|r| r.0);
        self.sort = self.sort.next();
        if let (Some(f), Some(sorted)) = (function, self.map()) {
            self.cell.0 = sorted.rows.iter().position(|r| r.0 == f).unwrap_or(0);
        }
        fx.say(format!("functions {}", self.sort.label()));
    }

    /// Keys of the zero-advantage group list (`z` opened it).
    fn handle_groups(
        &mut self,
        at: usize,
        action: &Action,
        corpus: &Corpus,
        fx: &mut Effects,
    ) -> Handled {
        let groups = self.zero_groups();
        let last = groups.len().saturating_sub(1);
        let at = match action {
            Action::CloseScreen | Action::Cancel | Action::ZeroGroups => {
                self.groups = None;
                return Handled::Redraw;
            }
            Action::Quit | Action::Resize { .. } => return Handled::Passed,
            Action::Up => at.saturating_sub(1),
            Action::Down => (at + 1).min(last),
            Action::PageUp => at.saturating_sub(10),
            Action::PageDown => (at + 10).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            Action::Choose => {
                if let Some((step, g)) = groups.get(at) {
                    self.open_group(*step, g, corpus, fx);
                }
                return Handled::Redraw;
            }
            _ => return Handled::Unchanged,
        };
        self.groups = Some(at);
        Handled::Redraw
    }

    /// Filters the list to a zero-advantage group's samples and closes the screen.
    fn open_group(&mut self, step: u32, g: &ZeroGroup, corpus: &Corpus, fx: &mut Effects) {
        let Some(run) = self.map().map(|m| m.run as usize) else {
            return;
        };
        let rows: BTreeSet<usize> = corpus
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.run == run
                    && e.rollout
                        .sample
                        .as_deref()
                        .is_some_and(|m| m.step == step && m.group == g.group)
            })
            .map(|(i, _)| i)
            .collect();
        let first = rows.iter().next().copied();
        fx.filter_rows = Some(RowFilter {
            label: format!(
                "group of {} at step {step} (group {}): {}, zero advantage",
                rows.len(),
                g.group,
                g.outcome()
            ),
            rows: Arc::new(rows),
        });
        fx.jump_to = first;
        fx.say_keyed("the group's samples: {key} clears", Action::ClearFilters);
        self.groups = None;
        self.open = false;
    }

    fn handle_screen(&mut self, action: &Action, corpus: &Corpus, fx: &mut Effects) -> Handled {
        if self.search.is_open() {
            return self.handle_search(action, fx);
        }
        if let Some(at) = self.groups {
            return self.handle_groups(at, action, corpus, fx);
        }
        let Some(map) = self.map() else {
            return match action {
                Action::CloseScreen | Action::Cancel => {
                    self.open = false;
                    Handled::Redraw
                }
                Action::Resize { .. } | Action::Quit => Handled::Passed,
                _ => Handled::Unchanged,
            };
        };
        let (rows, cols) = (map.rows.len(), map.bins.len());
        match action {
            // `q` closes the screen (its keymap's), not the explorer; ctrl-c quits.
            Action::CloseScreen | Action::Cancel => self.open = false,
            Action::Quit => return Handled::Passed,
            Action::Up => self.cell.0 = self.cell.0.saturating_sub(1),
            Action::Down => self.cell.0 = (self.cell.0 + 1).min(rows.saturating_sub(1)),
            Action::PageUp => self.cell.0 = self.cell.0.saturating_sub(10),
            Action::PageDown => self.cell.0 = (self.cell.0 + 10).min(rows.saturating_sub(1)),
            Action::Top => self.cell.0 = 0,
            Action::Bottom => self.cell.0 = rows.saturating_sub(1),
            Action::CellLeft => self.cell.1 = self.cell.1.saturating_sub(1),
            Action::CellRight => self.cell.1 = (self.cell.1 + 1).min(cols.saturating_sub(1)),
            Action::NextRun => {
                let n = self.result.as_ref().map_or(0, |r| r.training_runs.len());
                self.run = if n == 0 { 0 } else { (self.run + 1) % n };
                self.clamp_cell();
            }
            Action::SortRows => self.next_sort(&map, fx),
            Action::Search => {
                let last = self.pattern.clone();
                self.search.open(0, &last, true);
            }
            Action::NextMatch => self.find(true, fx),
            Action::ZeroGroups => {
                let groups = self.zero_groups();
                let (lo, hi) = map.bins.get(self.cell.1).copied().unwrap_or_default();
                if groups.is_empty() {
                    let steps = if lo == hi {
                        format!("step {lo}")
                    } else {
                        format!("steps {lo}–{hi}")
                    };
                    fx.say(format!("no zero-advantage group at {steps}"));
                } else {
                    self.groups = Some(0);
                }
            }
            Action::Choose => {
                if let Some(filter) = self.cell_filter() {
                    if filter.rows.is_empty() {
                        fx.say("no graded sample in this cell");
                        return Handled::Redraw;
                    }
                    let first = filter.rows.iter().next().copied();
                    // The status bar names the filter; the note only says how to leave it.
                    fx.say_keyed("the cell's rollouts: {key} clears", Action::ClearFilters);
                    fx.filter_rows = Some(filter);
                    fx.jump_to = first;
                    self.open = false;
                }
            }
            Action::Resize { .. } => return Handled::Passed,
            _ => return Handled::Unchanged,
        }
        Handled::Redraw
    }

    fn handle_range(
        &mut self,
        action: &Action,
        corpus: &Corpus,
        keys: &Keymap,
        fx: &mut Effects,
    ) -> Handled {
        match self.range.update(action) {
            Typed::Edited | Typed::Cancelled => {}
            Typed::Other => return Handled::Passed,
            Typed::Submitted(typed) => {
                if typed.trim().is_empty() {
                    fx.clear_filters = true;
                    fx.refresh_view = true;
                    fx.say("all steps");
                    return Handled::Redraw;
                }
                let Some((lo, hi)) = parse_range(&typed) else {
                    fx.say(format!(
                        "`{typed}` is not a step range (7, 10-20, 10-, -20)"
                    ));
                    return Handled::Redraw;
                };
                let rows: BTreeSet<usize> = corpus
                    .entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| {
                        e.rollout
                            .sample
                            .as_deref()
                            .is_some_and(|m| m.step >= lo && m.step <= hi)
                    })
                    .map(|(i, _)| i)
                    .collect();
                let steps = match (lo, hi) {
                    (l, h) if l == h => format!("step {l}"),
                    (l, u32::MAX) => format!("steps {l}–"),
                    (l, h) => format!("steps {l}–{h}"),
                };
                let label = format!("{steps} ({} samples)", rows.len());
                let how: Vec<String> = [
                    keys.says(Action::ClearFilters, "clears"),
                    keys.says(
                        Action::StepRange,
                        &format!("then {}: all steps", super::textbox::SUBMIT_KEY),
                    ),
                ]
                .into_iter()
                .flatten()
                .collect();
                fx.say(how.join("; "));
                fx.filter_rows = Some(RowFilter {
                    label,
                    rows: Arc::new(rows),
                });
            }
        }
        Handled::Redraw
    }

    /// The samples of the selected sample's GRPO group (its prompt at its step).
    fn group(&self, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        let corpus = cx.corpus;
        let Some(row) = cx.list.selected else {
            return Handled::Unchanged;
        };
        let Some(entry) = corpus.entries.get(row) else {
            return Handled::Unchanged;
        };
        let Some(meta) = entry.rollout.sample.as_deref() else {
            fx.say("not a sample of a training run: no group");
            return Handled::Redraw;
        };
        if cx
            .list
            .filters
            .rows
            .as_ref()
            .is_some_and(|f| f.label.starts_with("group of "))
        {
            fx.clear_filters = true;
            fx.refresh_view = true;
            fx.jump_to = Some(row);
            return Handled::Redraw;
        }
        let rows: BTreeSet<usize> = corpus
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.run == entry.run
                    && e.rollout
                        .sample
                        .as_deref()
                        .is_some_and(|m| m.step == meta.step && m.group == meta.group)
            })
            .map(|(i, _)| i)
            .collect();
        let scores: Vec<Option<f64>> = rows
            .iter()
            .filter_map(|i| corpus.entries.get(*i))
            .map(|e| e.rollout.sample.as_deref().and_then(|m| m.score))
            .collect();
        let zero = crate::grade::runs::steps::zero_variance(&scores);
        let label = format!(
            "group of {} at step {} ({}){}",
            rows.len(),
            meta.step,
            match &meta.group_uid {
                Some(uid) => format!("uid {uid}"),
                None => format!("group {}, by prompt text", meta.group),
            },
            if zero {
                ": all scores equal, zero advantage"
            } else {
                ""
            }
        );
        fx.say("= again: back");
        fx.filter_rows = Some(RowFilter {
            label,
            rows: Arc::new(rows),
        });
        fx.jump_to = Some(row);
        Handled::Redraw
    }
}

impl Component for TrainingView {
    /// The Training screen over the list and panes, when open (`screen`).
    fn draw(&self, frame: &mut ratatui::Frame, area: ratatui::layout::Rect, cx: &DrawCx<'_>) {
        screen::draw(self, frame, area, cx);
    }

    fn hints(&self, keys: &Keymap) -> Option<String> {
        self.open.then(|| status_keys(keys))
    }

    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        if let Action::Resize { width, .. } = action {
            self.cells_width = cells_width_for(*width);
            self.clamp_cell();
        }
        if self.range.is_open() {
            return self.handle_range(action, cx.corpus, cx.keys, fx);
        }
        match action {
            Action::TrainingScreen if !self.open => {
                if !cx.corpus.has_samples {
                    fx.say("no training run loaded: open a folder of verl step dumps ({step}.jsonl), or try `sebx --demo-training`");
                    return Handled::Redraw;
                }
                self.open = true;
                self.request(cx.corpus, fx);
                Handled::Redraw
            }
            Action::StepRange if !self.open => {
                self.range.open(0, "", false);
                Handled::Redraw
            }
            Action::GroupView if !self.open => self.group(cx, fx),
            _ if self.open => self.handle_screen(action, cx.corpus, fx),
            _ => Handled::Passed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse() {
        assert_eq!(parse_range("7"), Some((7, 7)));
        assert_eq!(parse_range(" 10-20 "), Some((10, 20)));
        assert_eq!(parse_range("10-"), Some((10, u32::MAX)));
        assert_eq!(parse_range("-20"), Some((0, 20)));
        assert_eq!(parse_range("20-10"), None);
        assert_eq!(parse_range("x"), None);
    }
}
