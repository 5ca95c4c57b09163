//! The explorer's training-run views (issue 19): the Training screen (`T`: reward and
//! accuracy per step, the zwc function × step heat map; `enter` on a cell lists its
//! rollouts), the step-range filter (`#`, typed `10-20`) and the group view (`=`: the
//! samples of the selected sample's prompt at its step, with their scores and verdicts).
//! The figures come from the training job (`jobs::training`); `training_screen` draws them.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::grade::runs::{HeatMap, heat_map};

use super::action::{Action, Keymap, Scope};
use super::effects::{Effects, Handled};
pub use super::jobs::training::{RowScore, TrainingInput, TrainingResult};
use super::part::{Cx, Part};
use super::state::{Corpus, RowFilter};
use super::textbox::{TextBox, Typed};

/// Heat-map columns at most (steps are binned beyond).
pub const MAX_COLUMNS: usize = 40;

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
    /// Heat-map columns that fit the terminal (from its width, kept up to date on resize).
    pub columns: usize,
    /// The step-range box (`#`).
    pub range: TextBox,
    /// Scores changed since the figures were asked for (`App::settle` asks again).
    pub stale: bool,
}

/// The Training screen's keys, for its title, from the keymap in force (`wide`: with
/// words; else just the keys).
pub fn footer_keys(keys: &Keymap, wide: bool) -> String {
    let items: [(&[Action], &str); 4] = [
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
        (&[Action::CloseScreen], if wide { "close" } else { "" }),
    ];
    keys.hint(Scope::Training, &items)
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

/// Heat-map columns that fit a terminal `width` wide (function names take 32, a cell 4).
pub fn columns_for(width: u16) -> usize {
    ((width as usize).saturating_sub(34) / 4).clamp(1, MAX_COLUMNS)
}

impl TrainingView {
    /// The heat map of the shown run, `columns` wide at most.
    pub fn map(&self) -> Option<HeatMap> {
        let r = self.result.as_ref()?;
        let run = *r.training_runs.get(self.run)?;
        Some(heat_map(
            &r.report.figures,
            run,
            self.columns.clamp(1, MAX_COLUMNS),
        ))
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
            .map(|s| match s.facts() {
                Some(f) => RowScore {
                    verdict: f.verdict,
                    reward: f.reward,
                    reason: f.reason,
                },
                None => RowScore {
                    verdict: match s.shown() {
                        super::entry::Shown::Verdict(v) => Some(v),
                        _ => None,
                    },
                    reward: None,
                    reason: None,
                },
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
            })));
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

    fn handle_screen(&mut self, action: &Action, fx: &mut Effects) -> Handled {
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
            Action::Choose => {
                if let Some(filter) = self.cell_filter() {
                    if filter.rows.is_empty() {
                        fx.say("no graded sample in this cell");
                        return Handled::Redraw;
                    }
                    let first = filter.rows.iter().next().copied();
                    // The status bar names the filter; the note only says how to leave it.
                    fx.say("the cell's rollouts: c clears");
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

    fn handle_range(&mut self, action: &Action, corpus: &Corpus, fx: &mut Effects) -> Handled {
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
                fx.say("c clears; # then enter: all steps");
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
                        .is_some_and(|m| m.step == meta.step && m.prompt == meta.prompt)
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
            "group of {} at step {} (prompt {}){}",
            rows.len(),
            meta.step,
            meta.prompt,
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

impl Part for TrainingView {
    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        if let Action::Resize { width, .. } = action {
            self.columns = columns_for(*width);
            self.clamp_cell();
        }
        if self.range.is_open() {
            return self.handle_range(action, cx.corpus, fx);
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
            _ if self.open => self.handle_screen(action, fx),
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
