//! The list view: which rows the filters, the search and the grouping keep, in which order
//! and under which headings (`refresh_view`), the selection, and moving through the list.

use std::collections::HashMap;

use crate::model::Verdict;

use super::super::entry::{Entry, Score, Shown};
use super::super::jobs::JobRequest;
use super::super::state::{Filters, FindingFilter, Grouping, SearchState, ViewRow};
use super::App;

/// How often the list is rebuilt while loading.
const LOADING_REFRESH: std::time::Duration = std::time::Duration::from_millis(250);

impl App {
    /// Clears every filter (the label filter too) and the search.
    pub(super) fn clear_filters(&mut self) {
        self.list.filters = Filters::default();
        self.labelling.clear_filter();
        self.extras.clear_filter();
        self.list.search = SearchState {
            id: self.list.search.id + 1,
            ..SearchState::default()
        };
        self.refresh_view();
    }

    /// Recomputes the view if something changed it; call once after a burst of events.
    pub fn settle(&mut self) {
        // While loading, the list is rebuilt at most every `LOADING_REFRESH` (after the
        // first batch at once): rebuilding 200,000 rows after every batch took a tenth of
        // the CPU of a big load. Once loaded, at every settle.
        let wait = !self.corpus.load.done
            && self
                .view_refreshed
                .is_some_and(|t| t.elapsed() < LOADING_REFRESH);
        if self.view_dirty && !wait {
            // Scores may have changed: an open Training screen asks for fresh figures.
            self.training.stale = true;
            self.refresh_view();
            self.view_refreshed = Some(std::time::Instant::now());
        }
        self.seal_when_graded();
        if self.training.open && self.training.stale && !self.training.computing {
            let mut fx = crate::tui::effects::Effects::default();
            self.training.refresh(&self.corpus, &mut fx);
            self.outbox.extend(fx.requests);
        }
    }

    fn accepts(&self, i: usize, e: &Entry) -> bool {
        let f = &self.list.filters;
        if let Some(v) = f.verdict
            && !v.accepts(self.corpus.shown(i), self.corpus.facts(i))
        {
            return false;
        }
        if f.run.is_some_and(|r| r != e.run) || f.task.is_some_and(|t| t != e.task) {
            return false;
        }
        if f.rows.as_ref().is_some_and(|r| !r.rows.contains(&i)) {
            return false;
        }
        if !self.labelling.accepts(e) || !self.extras.accepts(e) {
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

    pub(super) fn select(&mut self, row: Option<usize>) {
        if row != self.list.selected {
            self.list.selected = row;
            self.detail.scroll = 0;
            // A jump to a match was for the row left behind.
            self.detail.match_pending = None;
            self.detail.case_cursor = None;
            self.detail.what_if_cases = false;
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
        self.request_raw_line();
    }

    pub(super) fn move_to_view_index(&mut self, target: usize) -> bool {
        if self.list.view.is_empty() {
            return false;
        }
        let found = self.list.row_at_view_index(target);
        let changed = found != self.list.selected;
        self.select(found);
        self.keep_cursor_visible();
        changed
    }

    pub(super) fn move_by(&mut self, delta: isize) -> bool {
        match self.list.row_moved_by(delta) {
            Some(row) => {
                let changed = Some(row) != self.list.selected;
                self.select(Some(row));
                self.keep_cursor_visible();
                changed
            }
            None => false,
        }
    }

    pub(super) fn keep_cursor_visible(&mut self) {
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

    pub(super) fn next_same_task(&mut self) -> bool {
        let Some(entry) = self.selected_entry().cloned() else {
            return false;
        };
        let Some(cursor) = self.list.cursor() else {
            return false;
        };
        let n = self.list.view.len();
        let runs = self.corpus.runs.len().max(1);
        let same_task = |k: usize| match &self.list.view[k] {
            ViewRow::Row(i) if self.corpus.entries[*i].task == entry.task => Some(*i),
            _ => None,
        };
        // The next run (cyclically) that has this task shown, at its first rollout of it;
        // with one run, the next rollout of the task.
        let next = (1..runs)
            .map(|d| (entry.run + d) % runs)
            .find_map(|run| {
                (0..n)
                    .filter_map(same_task)
                    .find(|i| self.corpus.entries[*i].run == run)
            })
            .or_else(|| (1..n).map(|d| (cursor + d) % n).find_map(same_task));
        match next {
            Some(i) => {
                let runs = self.corpus.runs.len();
                self.select(Some(i));
                self.keep_cursor_visible();
                let run = self.corpus.entries[i].run;
                if run != entry.run {
                    let name = self.corpus.runs.get(run).map(|r| r.name.clone());
                    self.message = name.map(|n| format!("same task in run {n}"));
                } else if runs > 1 {
                    self.message =
                        Some("no other run shows this task: its next rollout here".to_string());
                }
            }
            None => self.message = Some("this task has no other rollout shown".to_string()),
        }
        true
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
