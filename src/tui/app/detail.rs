//! The detail view as `App` feeds it: the selected row's analysis and highlighted texts
//! (asked of the workers when it is selected), the mouse, the detached copy of one row's
//! view that an export draws, and the detail pane's answers for the rest of `App` (the
//! pane itself, its keys and drawing, is `panes::detail`).

use std::sync::Arc;

use ratatui::layout::{Position, Rect};

use crate::analysis::Analysis;
use crate::grade::report::GradeReport;
use crate::grade::reruns::RerunRecord;

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
        self.detail.analysis(self.list.selected)
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
        self.detail.held.analyses.get(&row);
        if self.detail.held.analysis_requested.insert(row) {
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
            self.detail.held.highlights.get(&key);
            let Some(text) = text else { continue };
            if text.is_empty() || !self.detail.held.highlight_requested.insert(key) {
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
        let (detail, reads) = self.detail_mut();
        detail.scroll_by(delta, reads)
    }

    /// The latest what-if of `row`: this session's, else the last one in its rerun sidecar.
    pub fn what_if_record(&self, row: usize) -> Option<&RerunRecord> {
        DetailView::what_if_record(self.reads(), row)
    }

    /// The report whose cases the Cases pane lists ([`DetailView::cases_report`]).
    pub fn cases_report(&self) -> Option<&GradeReport> {
        self.detail.cases_report(self.reads())
    }

    /// The Cases pane's highlighted case ([`DetailView::case_cursor`]).
    pub fn case_cursor(&self) -> usize {
        self.detail.case_cursor(self.reads())
    }

    /// The case under the Cases pane's cursor, whole, while that pane is shown.
    pub fn focused_case(&self) -> Option<CaseText> {
        self.detail.focused_case(self.reads())
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
        if let Some(pane) = layout::tab_at(areas.detail, &self.keymap, column, row) {
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
        if let Some(a) = self.detail.held.analyses.peek(&row) {
            copy.detail.held.analyses.insert(row, a.clone());
        }
        for kind in [
            HighlightKind::Response,
            HighlightKind::Code,
            HighlightKind::Reference,
        ] {
            if let Some(h) = self.detail.held.highlights.peek(&(row, kind)) {
                copy.detail.held.highlights.insert((row, kind), h.clone());
            }
        }
        copy
    }
}
