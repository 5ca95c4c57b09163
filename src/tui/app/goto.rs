//! Going somewhere: a line of the selected rollout's file (`:` then the number, as in less
//! and vim), and the search's next or previous match in the pane shown (past the last one,
//! the next matching rollout, as less's `n` crosses files).

use super::super::action::Action;
use super::super::textbox::Typed;
use super::App;

impl App {
    /// The go-to-line prompt's edits; `None` when the prompt is not open.
    pub(super) fn update_goto(&mut self, action: &Action) -> Option<bool> {
        match self.list.goto.update(action) {
            Typed::Submitted(text) => {
                if let Ok(line) = text.parse::<usize>() {
                    self.goto_line(line);
                }
            }
            Typed::Edited | Typed::Cancelled => {}
            Typed::Other => return None,
        }
        Some(true)
    }

    /// Selects the rollout on file line `line` of the selected rollout's file.
    pub fn goto_line(&mut self, line: usize) {
        let Some(current) = self.selected_entry().cloned() else {
            self.message = Some("no rollout selected".to_string());
            return;
        };
        let file = self
            .corpus
            .runs
            .get(current.run)
            .map_or_else(String::new, |r| r.name.clone());
        let found = self
            .corpus
            .entries
            .iter()
            .position(|e| e.run == current.run && e.rollout.line == line);
        let Some(row) = found else {
            self.message = Some(format!("{file} has no rollout on line {line}"));
            return;
        };
        if !self.list.rows().any(|r| r == row) {
            self.message = Some(format!(
                "{file}:{line} is hidden by the filters or the search{}",
                self.keymap.aside(Action::ClearFilters, "clears them")
            ));
            return;
        }
        self.jump_to(row);
        self.message = Some(format!("{file}:{line}"));
    }

    /// Scrolls the pane to the next (or previous) match of the search, as the last frame
    /// found them; past the last one, selects the next (previous) rollout of the list,
    /// which the search has narrowed to the matching ones, and the next frame scrolls to
    /// its first (last) match.
    pub(super) fn next_match(&mut self, forward: bool) -> bool {
        if self.list.search.query().is_none() {
            self.message = Some(format!(
                "no search in force{}",
                self.keymap.aside(Action::Search, "searches")
            ));
            return true;
        }
        let here = {
            let drawn = self.detail.matches_drawn.borrow();
            if drawn.row == self.list.selected && drawn.pane == self.detail.pane {
                drawn.offsets.clone()
            } else {
                Vec::new()
            }
        };
        let scroll = self.detail.scroll;
        let within = if forward {
            here.iter().copied().find(|o| *o > scroll)
        } else {
            here.iter().copied().rev().find(|o| *o < scroll)
        };
        if let Some(o) = within {
            self.detail.scroll = o;
            let k = here.iter().position(|x| *x == o).map_or(0, |k| k + 1);
            self.message = Some(format!("match {k} of {} in this pane", here.len()));
            return true;
        }
        let before = self.list.selected;
        self.move_by(if forward { 1 } else { -1 });
        if self.list.selected == before {
            self.message = Some(format!(
                "no {} match",
                if forward { "further" } else { "earlier" }
            ));
            return true;
        }
        self.detail.match_pending = Some(forward);
        true
    }

    /// After a frame served a pending jump to a match, keeps the scroll it used.
    pub(super) fn settle_match_jump(&mut self) {
        if self.detail.match_pending.is_none() {
            return;
        }
        let drawn = self.detail.matches_drawn.borrow().clone();
        if drawn.row != self.list.selected {
            return;
        }
        if let Some(s) = drawn.scrolled_to {
            self.detail.scroll = s;
            self.detail.match_pending = None;
        }
    }
}
