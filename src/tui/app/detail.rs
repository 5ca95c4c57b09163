//! The detail view: the selected row's analysis and highlighted texts (asked of the workers
//! when it is selected), the panes and their scrolling, the mouse, and the detached copy of
//! one row's view that an export draws.

use std::sync::Arc;

use ratatui::layout::{Position, Rect};

use crate::analysis::Analysis;
use crate::grade::report::GradeReport;
use crate::grade::reruns::RerunRecord;

use super::super::action::Action;
use super::super::jobs::{HighlightKind, JobRequest};
use super::super::layout;
use super::super::state::{CaseText, Corpus, DetailView, Pane, ViewRow};
use super::App;

impl App {
    /// The grade report of `row`: the one held, else, for a verdict that holds only its
    /// facts (graded in the background, or remembered), the score cache's, read now. For
    /// what reads a few rows at once (the presenter's slides, an export, a pair): the
    /// selected row's report arrives through `request_highlights` instead.
    pub fn report_of_row(&self, row: usize) -> Option<std::borrow::Cow<'_, GradeReport>> {
        self.corpus.report_of_row(row)
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
    pub(super) fn request_highlights(&mut self) {
        let Some(row) = self.list.selected else {
            return;
        };
        let Some(entry) = self.corpus.entries.get(row).cloned() else {
            return;
        };
        // A remembered verdict's report (cases, output) is read when its row is opened.
        if self
            .corpus
            .scores
            .get(row)
            .is_some_and(super::super::entry::Score::report_elsewhere)
            && self.caches.report_requested.insert(row)
        {
            self.outbox.push(JobRequest::LookupScores {
                rows: vec![row],
                entries: vec![entry.clone()],
                cache: self.corpus.score_cache.clone(),
                places: self.labelling.places.clone(),
                whole: true,
                cuts: Vec::new(),
            });
        }
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

    pub(super) fn set_pane(&mut self, pane: Pane) -> bool {
        self.detail.show(pane);
        true
    }

    pub(super) fn scroll_detail(&mut self, delta: i32) -> bool {
        if self.detail.pane == Pane::Cases {
            let cases = self.case_count();
            if cases == 0 {
                return false;
            }
            let next = (self.case_cursor() as i64 + i64::from(delta)).clamp(0, cases as i64 - 1);
            self.detail.case_cursor = Some(next as usize);
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

    /// The latest what-if of `row`: this session's, else the last one in its rerun sidecar.
    pub fn what_if_record(&self, row: usize) -> Option<&RerunRecord> {
        let session = self
            .reruns
            .session
            .get(&row)
            .and_then(|list| list.iter().rev().find(|s| s.record.what_if))
            .map(|s| &s.record);
        session.or_else(|| {
            let entry = self.corpus.entries.get(row)?;
            self.labelling
                .stored_reruns(entry.run, &entry.rollout.id)
                .into_iter()
                .rev()
                .find(|r| r.what_if)
        })
    }

    /// The what-if the Cases pane shows instead of the stored run, when it does.
    pub fn cases_what_if(&self) -> Option<&RerunRecord> {
        if !self.detail.what_if_cases {
            return None;
        }
        self.list.selected.and_then(|row| self.what_if_record(row))
    }

    /// The report whose cases the Cases pane lists: the what-if's when it shows one, else
    /// the selected rollout's own.
    pub fn cases_report(&self) -> Option<&GradeReport> {
        match self.cases_what_if() {
            Some(record) => Some(&record.report),
            None => self.selected_report(),
        }
    }

    /// `E`: the Cases pane switches between the stored run's cases and the latest
    /// what-if's, opening on the first failed case of what it shows.
    pub(super) fn toggle_what_if_cases(&mut self) -> bool {
        let Some(row) = self.list.selected else {
            return false;
        };
        if !self.detail.what_if_cases && self.what_if_record(row).is_none() {
            let edit = self
                .keymap
                .keys_for(Action::EditWhatIf)
                .first()
                .map_or_else(String::new, |k| {
                    format!(" ({k} edits the code and grades it)")
                });
            self.message = Some(format!("no what-if of this rollout yet{edit}"));
            return true;
        }
        self.detail.what_if_cases = !self.detail.what_if_cases;
        self.detail.pane = Pane::Cases;
        self.detail.scroll = 0;
        self.detail.case_cursor = None;
        self.message = Some(
            if self.detail.what_if_cases {
                "Cases: the what-if (edited code)"
            } else {
                "Cases: the stored run"
            }
            .to_string(),
        );
        true
    }

    /// The Cases pane's highlighted case: where the user put it, else the first failed case
    /// of what it shows (its first case when none failed or none ran).
    pub fn case_cursor(&self) -> usize {
        self.detail.case_cursor.unwrap_or_else(|| {
            self.cases_report()
                .filter(|r| r.execution.is_some())
                .and_then(|r| r.cases.iter().position(|c| !c.matched))
                .unwrap_or(0)
        })
    }

    /// The case under the Cases pane's cursor, whole, while that pane is shown.
    pub fn focused_case(&self) -> Option<CaseText> {
        if self.detail.pane != Pane::Cases {
            return None;
        }
        let count = self.case_count();
        let k = self.case_cursor().min(count.checked_sub(1)?);
        let case = match self.cases_report() {
            Some(r) if !r.cases.is_empty() => {
                let c = r.cases.get(k)?;
                CaseText {
                    number: k + 1,
                    count,
                    input: c.input.clone(),
                    expected: c.expected.clone(),
                    actual: c.actual.clone(),
                    // A program that never ran has no results, not failed ones.
                    matched: r.execution.as_ref().map(|_| c.matched),
                }
            }
            _ => {
                let c = self.selected_entry()?.rollout.test_cases.get(k)?;
                CaseText {
                    number: k + 1,
                    count,
                    input: c.input.clone(),
                    expected: c.output.clone(),
                    actual: None,
                    matched: None,
                }
            }
        };
        Some(case)
    }

    /// Number of cases the Cases pane lists for the selection.
    pub fn case_count(&self) -> usize {
        match (self.cases_report(), self.selected_entry()) {
            (Some(r), _) if !r.cases.is_empty() => r.cases.len(),
            (_, Some(e)) => e.rollout.test_cases.len(),
            _ => 0,
        }
    }

    pub(super) fn first_failed_case(&mut self) -> bool {
        self.detail.pane = Pane::Cases;
        self.detail.scroll = 0;
        match self.cases_report() {
            Some(r) if r.execution.is_none() => {
                self.message = Some(format!("no case ran: {}", r.decided_by));
            }
            Some(r) => match r.cases.iter().position(|c| !c.matched) {
                Some(k) => self.detail.case_cursor = Some(k),
                None => self.message = Some("no failed case".to_string()),
            },
            None => self.message = Some("not graded: no case results yet".to_string()),
        }
        true
    }

    pub(super) fn click(&mut self, column: u16, row: u16) -> bool {
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
                self.detail.case_cursor = Some(k);
                return true;
            }
        }
        false
    }

    pub(super) fn wheel(&mut self, column: u16, row: u16, down: bool) -> bool {
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
            scored_files: c.scored_files.clone(),
            // Only the drawn row's: the rest are not drawn.
            scored_by: c
                .scored_by
                .get(&row)
                .map(|&f| (row, f))
                .into_iter()
                .collect(),
            issues: Vec::new(),
            load: c.load.clone(),
            grade_progress: c.grade_progress,
            digests: c.digests.clone(),
            score_cache: c.score_cache.clone(),
            trace_dir: c.trace_dir.clone(),
            has_samples: c.has_samples,
            scores_changed: c.scores_changed,
        };
        copy.size = self.size;
        copy.list.selected = Some(row);
        copy.detail = DetailView {
            pane,
            scroll: 0,
            hscroll: 0,
            case_cursor: self.detail.case_cursor,
            graph_list: self.detail.graph_list,
            paper: true,
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
}
