//! The detail pane as a component: it holds what the workers computed for the rows looked at
//! (analyses, highlighted texts, graph drawings, the raw line), answers its keys (the tabs,
//! scrolling, the Cases pane's cursor, the first failed case, the what-if's cases, the raw
//! line) and draws its frame, tabs and the shown pane (each pane's `render` turns the
//! selected rollout into lines). It reads the rest through [`Reads`]: the corpus, the list's
//! selection, labelling's stored what-ifs and the reruns.

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::super::action::Action;
use super::super::component::{Component, Cx, DrawCx, Reads};
use super::super::effects::{Effects, Handled};
use super::super::highlight::Highlighted;
use super::super::jobs::HighlightKind;
use super::super::layout::{fit, tab_labels};
use super::super::search::{Query, highlight_line};
use super::super::state::{CaseText, DetailView, MatchesDrawn, Pane};
use super::PaneContent;
use crate::analysis::Analysis;
use crate::grade::report::GradeReport;
use crate::grade::reruns::RerunRecord;

impl DetailView {
    /// Shows `pane`, from its top (a pane shown already keeps its place).
    pub fn show(&mut self, pane: Pane) {
        if self.pane != pane {
            self.pane = pane;
            self.scroll = 0;
            self.hscroll = 0;
        }
    }

    /// The full analysis of `row`, once its job has answered.
    pub fn analysis(&self, row: Option<usize>) -> Option<&Arc<Analysis>> {
        row.and_then(|row| self.held.analyses.peek(&row))
    }

    /// `row`'s highlighted text of `kind`, once its job has answered.
    pub fn highlighted(&self, row: Option<usize>, kind: HighlightKind) -> Option<&Highlighted> {
        row.and_then(|row| self.held.highlights.peek(&(row, kind)))
            .map(|h| &**h)
    }

    /// The latest what-if of `row`: this session's, else the last one in its rerun sidecar.
    pub fn what_if_record<'a>(r: Reads<'a>, row: usize) -> Option<&'a RerunRecord> {
        r.reruns.session_what_if(row).or_else(|| {
            let entry = r.corpus.entries.get(row)?;
            r.labels.stored_what_if(entry.run, &entry.rollout.id)
        })
    }

    /// The what-if the Cases pane shows instead of the stored run, when it does.
    pub fn cases_what_if<'a>(&self, r: Reads<'a>) -> Option<&'a RerunRecord> {
        if !self.what_if_cases {
            return None;
        }
        r.list
            .selected
            .and_then(|row| DetailView::what_if_record(r, row))
    }

    /// The report whose cases the Cases pane lists: the what-if's when it shows one, else
    /// the selected rollout's own.
    pub fn cases_report<'a>(&self, r: Reads<'a>) -> Option<&'a GradeReport> {
        match self.cases_what_if(r) {
            Some(record) => Some(&record.report),
            None => r
                .list
                .selected
                .and_then(|i| r.corpus.scores.get(i))
                .and_then(|s| s.report()),
        }
    }

    /// The Cases pane's highlighted case: where the user put it, else the first failed case
    /// of what it shows (its first case when none failed or none ran).
    pub fn case_cursor(&self, r: Reads<'_>) -> usize {
        self.case_cursor.unwrap_or_else(|| {
            self.cases_report(r)
                .filter(|r| r.execution.is_some())
                .and_then(|r| r.cases.iter().position(|c| !c.matched))
                .unwrap_or(0)
        })
    }

    /// Number of cases the Cases pane lists for the selection.
    pub fn case_count(&self, r: Reads<'_>) -> usize {
        let entry = r.list.selected.and_then(|i| r.corpus.entries.get(i));
        match (self.cases_report(r), entry) {
            (Some(rep), _) if !rep.cases.is_empty() => rep.cases.len(),
            (_, Some(e)) => e.rollout.test_cases.len(),
            _ => 0,
        }
    }

    /// The case under the Cases pane's cursor, whole, while that pane is shown.
    pub fn focused_case(&self, r: Reads<'_>) -> Option<CaseText> {
        if self.pane != Pane::Cases {
            return None;
        }
        let count = self.case_count(r);
        let k = self.case_cursor(r).min(count.checked_sub(1)?);
        let case = match self.cases_report(r) {
            Some(rep) if !rep.cases.is_empty() => {
                let c = rep.cases.get(k)?;
                CaseText {
                    number: k + 1,
                    count,
                    input: c.input.clone(),
                    expected: c.expected.clone(),
                    actual: c.actual.clone(),
                    // A program that never ran has no results, not failed ones.
                    matched: rep.execution.as_ref().map(|_| c.matched),
                }
            }
            _ => {
                let entry = r.corpus.entries.get(r.list.selected?)?;
                let c = entry.rollout.test_cases.get(k)?;
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

    /// Scrolls the pane by `delta` lines; on the Cases pane, moves its cursor by `delta`
    /// cases. Returns whether anything moved.
    pub fn scroll_by(&mut self, delta: i32, r: Reads<'_>) -> bool {
        if self.pane == Pane::Cases {
            let cases = self.case_count(r);
            if cases == 0 {
                return false;
            }
            let next = (self.case_cursor(r) as i64 + i64::from(delta)).clamp(0, cases as i64 - 1);
            self.case_cursor = Some(next as usize);
            return true;
        }
        self.scroll = if delta >= 0 {
            self.scroll.saturating_add(delta as u16)
        } else {
            self.scroll.saturating_sub(delta.unsigned_abs() as u16)
        };
        true
    }

    /// The Cases pane, on the first failed case of what it shows (or why there is none).
    fn first_failed_case(&mut self, r: Reads<'_>, fx: &mut Effects) {
        self.pane = Pane::Cases;
        self.scroll = 0;
        match self.cases_report(r) {
            Some(rep) if rep.execution.is_none() => {
                fx.say(format!("no case ran: {}", rep.decided_by));
            }
            Some(rep) => match rep.cases.iter().position(|c| !c.matched) {
                Some(k) => self.case_cursor = Some(k),
                None => fx.say("no failed case"),
            },
            None => fx.say("not graded: no case results yet"),
        }
    }

    /// The Cases pane switches between the stored run's cases and the latest what-if's,
    /// opening on the first failed case of what it shows.
    fn toggle_what_if_cases(&mut self, cx: &Cx<'_>, fx: &mut Effects) -> bool {
        let Some(row) = cx.list.selected else {
            return false;
        };
        if !self.what_if_cases && DetailView::what_if_record(cx.reads(), row).is_none() {
            let edit = cx
                .keys
                .keys_for(Action::EditWhatIf)
                .first()
                .map_or_else(String::new, |k| {
                    format!(" ({k} edits the code and grades it)")
                });
            fx.say(format!("no what-if of this rollout yet{edit}"));
            return true;
        }
        self.what_if_cases = !self.what_if_cases;
        self.pane = Pane::Cases;
        self.scroll = 0;
        self.case_cursor = None;
        fx.say(if self.what_if_cases {
            "Cases: the what-if (edited code)"
        } else {
            "Cases: the stored run"
        });
        true
    }

    /// The Response pane shows the line as stored, or the response again.
    fn toggle_raw_line(&mut self, cx: &Cx<'_>, fx: &mut Effects) {
        self.raw_line = !self.raw_line;
        self.pane = Pane::Response;
        self.scroll = 0;
        self.hscroll = 0;
        let key = cx
            .keys
            .keys_for(Action::RawLine)
            .first()
            .map_or_else(|| "raw_line".to_string(), |k| k.to_string());
        fx.say(if self.raw_line {
            format!("Response: the line as stored ({key} again: the response)")
        } else {
            "Response: the response".to_string()
        });
        fx.requests.extend(self.raw_request(cx.reads()));
    }

    /// The request for the selected row's stored line, when the raw view shows it and it is
    /// not held or asked for already.
    pub fn raw_request(&mut self, r: Reads<'_>) -> Option<super::super::jobs::JobRequest> {
        if !self.raw_line {
            return None;
        }
        let row = r.list.selected?;
        self.held.raw.request(row, r.corpus.entries.get(row)?)
    }

    /// The selected row's stored line, once read (`Err`: why it could not be).
    pub fn raw_line_held(
        &self,
        row: Option<usize>,
    ) -> Option<&Result<Arc<crate::model::raw_line::RawLine>, String>> {
        self.held.raw.held(row?)
    }
}

impl Component for DetailView {
    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        let n = Pane::ALL.len();
        match action {
            Action::NextPane => self.show(Pane::ALL[(self.pane.index() + 1) % n]),
            Action::PrevPane => self.show(Pane::ALL[(self.pane.index() + n - 1) % n]),
            Action::PaneResponse => self.show(Pane::Response),
            Action::PaneCode => self.show(Pane::Code),
            Action::PaneCases => self.show(Pane::Cases),
            Action::PaneOutput => self.show(Pane::Output),
            // Again on the Graph pane: the node list instead of the drawing, and back.
            Action::PaneGraph if self.pane == Pane::Graph => {
                self.graph_list = !self.graph_list;
                self.scroll = 0;
                self.hscroll = 0;
            }
            Action::PaneGraph => self.show(Pane::Graph),
            Action::PaneTask => self.show(Pane::Task),
            Action::ScrollLeft => self.hscroll = self.hscroll.saturating_sub(8),
            Action::ScrollRight => self.hscroll = self.hscroll.saturating_add(8),
            Action::ScrollDown => return Handled::taken(self.scroll_by(1, cx.reads())),
            Action::ScrollUp => return Handled::taken(self.scroll_by(-1, cx.reads())),
            Action::FirstFailedCase => self.first_failed_case(cx.reads(), fx),
            Action::WhatIfCases => return Handled::taken(self.toggle_what_if_cases(cx, fx)),
            Action::RawLine => self.toggle_raw_line(cx, fx),
            _ => return Handled::Passed,
        }
        Handled::Redraw
    }

    /// The frame with its tabs and the selected rollout's label, and the shown pane in it:
    /// the search's matches marked, pinned lines kept on top, scrolled; where the Cases
    /// table's rows and the matches landed is recorded for clicks and `m` / `M`.
    fn draw(&self, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        let theme = cx.theme;
        let mut drawn = self.case_rows_drawn.borrow_mut();
        drawn.clear();
        let mut tabs: Vec<Span> = Vec::new();
        for (pane, label) in Pane::ALL.into_iter().zip(tab_labels(cx.keys, area.width)) {
            let style = if pane == self.pane {
                theme.tab_active
            } else {
                theme.tab_inactive
            };
            tabs.push(Span::styled(label, style));
            tabs.push(Span::styled("─", theme.border));
        }
        tabs.pop();
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border)
            .title(Line::from(tabs));
        let selected = cx.list.selected.and_then(|i| cx.corpus.entries.get(i));
        // The selected rollout's label and note, outside label mode too.
        if let Some((cats, note)) = selected.and_then(|e| cx.labels.label_text(e)) {
            let text = match (cats.is_empty(), note.is_empty()) {
                (false, false) => format!(" {cats} · “{note}” "),
                (false, true) => format!(" {cats} "),
                (true, _) => format!(" “{note}” "),
            };
            let room = usize::from(area.width).saturating_sub(66).max(12);
            block = block.title(
                Line::styled(fit(&text, room.min(text.chars().count())), theme.hint)
                    .right_aligned(),
            );
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let Some(entry) = selected else {
            frame.render_widget(
                Paragraph::new(Line::styled("no rollout selected", theme.dim)),
                inner,
            );
            return;
        };
        let (mut content, case_lines) = match self.pane {
            Pane::Cases => super::cases::render_with_rows(self, cx, entry, inner.width),
            _ => (super::render(self, cx, entry, inner.width), 0..0),
        };
        // The search's matches stand out in every pane (m / M go from one to the next).
        let query = cx.list.search.query();
        if let Some(q) = &query {
            content.lines = std::mem::take(&mut content.lines)
                .into_iter()
                .map(|l| highlight_line(l, q, theme.matched))
                .collect();
        }
        // Pinned lines stay on top while the rest scrolls, when they leave the rest room.
        let pinned = content.pinned.min(content.lines.len() as u16);
        let pinned = if pinned.saturating_mul(2) <= inner.height {
            pinned
        } else {
            0
        };
        let [head, body] =
            Layout::vertical([Constraint::Length(pinned), Constraint::Min(0)]).areas(inner);
        let head_lines: Vec<Line> = content.lines.drain(..usize::from(pinned)).collect();
        frame.render_widget(Paragraph::new(head_lines), head);
        content.focus_line = content.focus_line.map(|f| f.saturating_sub(pinned));
        let mut scroll = detail_scroll(&content, body.height, self.scroll);
        // Where the search's matches are, for `m` / `M` (and a pending jump to one).
        let offsets = match &query {
            Some(q) => match_offsets(&content, q, body.width),
            None => Vec::new(),
        };
        let mut scrolled_to = None;
        if let Some(first) = self.match_pending {
            let target = if first {
                offsets.first()
            } else {
                offsets.last()
            };
            if let Some(t) = target {
                scroll = *t;
            }
            scrolled_to = Some(scroll);
        }
        *self.matches_drawn.borrow_mut() = MatchesDrawn {
            row: cx.list.selected,
            pane: self.pane,
            offsets,
            scrolled_to,
        };
        // Where the case rows landed, for clicks (the table's lines are not wrapped).
        for dy in 0..body.height {
            let line = usize::from(pinned) + usize::from(scroll) + usize::from(dy);
            if case_lines.contains(&line) {
                drawn.push((body.y + dy, line - case_lines.start));
            }
        }
        drop(drawn);
        let mut p = Paragraph::new(content.lines);
        if content.wrap {
            p = p.wrap(Wrap { trim: false }).scroll((scroll, 0));
        } else {
            p = p.scroll((scroll, self.hscroll));
        }
        frame.render_widget(p, body);
    }
}

/// First line of a pane's content shown in a pane `height` lines high.
pub fn detail_scroll(content: &PaneContent, height: u16, scroll: u16) -> u16 {
    let total = content.lines.len() as u16;
    match content.focus_line {
        // Keep the focused line (the selected case) in view.
        Some(f) => f.saturating_sub(height.saturating_sub(content.focus_height.max(1)).min(f)),
        None => scroll.min(total.saturating_sub(1)),
    }
}

/// Scroll positions (as `DetailView::scroll` counts them) of the lines of `content` that
/// match `query`, in a pane `width` wide: wrapped panes scroll by screen lines.
fn match_offsets(content: &PaneContent, query: &Query, width: u16) -> Vec<u16> {
    let width = usize::from(width.max(1));
    let mut offsets = Vec::new();
    let mut at = 0usize;
    for line in &content.lines {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        if query.is_match(&text) {
            offsets.push(u16::try_from(at).unwrap_or(u16::MAX));
        }
        at += if content.wrap {
            line.width().div_ceil(width).max(1)
        } else {
            1
        };
    }
    offsets
}
