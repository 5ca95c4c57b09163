//! Drawing for labelling and reruns: the Labels and Rerun panels under the detail pane
//! (each a [`Panel`] component), beside which `labelling` and `rerun` draw their popups.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::grade::report::GradeReport;
use crate::grade::reruns::RerunRecord;

use super::super::action::Action;
use super::super::app::App;
use super::super::component::{Component, DrawCx};
use super::super::theme::Theme;
use crate::grade::reruns::{case_changes, edit_summary};

/// A panel under the detail pane, a component: the Labels panel (label mode or a note
/// being typed) or the Rerun panel (the selected rollout has a rerun or what-if). Its lines,
/// key hints included (from the keymap), are made from the app when the screen is drawn;
/// it draws itself, boxed and titled, in the area it is given.
pub struct Panel {
    pub title: String,
    pub lines: Vec<Line<'static>>,
}

impl Panel {
    /// How many lines it takes, borders included.
    pub fn height(&self) -> u16 {
        u16::try_from(self.lines.len() + 2).unwrap_or(u16::MAX)
    }
}

impl Component for Panel {
    fn draw(&self, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        let theme = cx.theme;
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_focused)
            .title(Span::styled(self.title.clone(), theme.title));
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(self.lines.clone())
                .block(block)
                .style(theme.base)
                .wrap(Wrap { trim: false }),
            area,
        );
    }
}

/// The panels the selected row shows under a detail pane `width` wide, top to bottom: the
/// Rerun panel, then the Labels panel.
pub fn panels(app: &App, width: u16) -> Vec<Panel> {
    let mut panels = Vec::new();
    if let Some(row) = app.list.selected {
        if let Some(lines) = rerun_lines(app, row) {
            panels.push(Panel {
                title: " Rerun (kept in its sidecar, never in the rollout file) ".to_string(),
                lines,
            });
        }
        if app.labelling.mode || app.labelling.note.is_open() {
            panels.push(Panel {
                title: labels_title(app),
                lines: label_lines(app, row, width),
            });
        }
    }
    panels
}

/// Draws the panels ([`panels`]) at the bottom of `detail`; returns what is left for the
/// pane. Carved from the bottom so the tabs keep their place.
pub fn draw_panels(frame: &mut Frame, app: &App, detail: Rect) -> Rect {
    let mut rest = detail;
    let cx = app.draw_cx();
    for panel in panels(app, detail.width).iter().rev() {
        // Leave the pane at least a few lines.
        let room = rest.height.saturating_sub(5);
        let height = panel.height().min(room);
        if height < 3 {
            continue;
        }
        let area = Rect {
            y: rest.bottom() - height,
            height,
            ..rest
        };
        rest.height -= height;
        panel.draw(frame, area, &cx);
    }
    rest
}

fn labels_title(app: &App) -> String {
    let l = &app.labelling;
    let mode = if l.advance {
        " · label and advance"
    } else {
        ""
    };
    format!(
        " Labels · {} · {}{mode} ",
        l.annotator,
        l.progress_text(app.corpus.runs.len())
    )
}

/// The Labels panel: category chips with keys, marks and counts; the suggestion; the note;
/// other annotators' labels; where labels are saved.
pub fn label_lines(app: &App, row: usize, width: u16) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let l = &app.labelling;
    let Some(entry) = app.corpus.entries.get(row) else {
        return Vec::new();
    };
    let saved = l.saved(entry.run, &entry.rollout.id);
    let chosen = |id| saved.is_some_and(|s| s.categories.contains(id));
    let mut lines = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    let max = width.saturating_sub(2) as usize;
    for c in &l.taxonomy.categories {
        let on = chosen(&c.id);
        let count = l.progress.per_category.get(&c.id).copied().unwrap_or(0);
        let key = c.key.map_or("·".to_string(), |k| k.to_string());
        let chip = format!(" {}{} ({count})", if on { "✓" } else { " " }, c.label);
        let w = key.chars().count() + chip.chars().count() + 2;
        if used > 0 && used + w > max {
            lines.push(Line::from(std::mem::take(&mut spans)));
            used = 0;
        }
        spans.push(Span::styled(key, theme.status_key));
        spans.push(Span::styled(
            chip,
            if on { theme.tab_active } else { theme.dim },
        ));
        spans.push(Span::raw("  "));
        used += w;
    }
    if !spans.is_empty() {
        lines.push(Line::from(spans));
    }
    let suggested = app.labelling.suggestion(&app.corpus, row);
    lines.push(match suggested {
        Some(c) if chosen(&c.id) => Line::from(vec![
            Span::styled("suggested: ", theme.dim),
            Span::raw(format!("{} ✓ accepted", c.label)),
        ]),
        Some(c) => Line::from(vec![
            Span::styled("suggested: ", theme.dim),
            Span::styled(c.label.clone(), theme.hint),
            Span::styled(
                match app.keymap.says(Action::AcceptSuggestion, "accepts") {
                    Some(a) => format!("  ({a}; not saved until then)"),
                    None => "  (not saved unless accepted)".to_string(),
                },
                theme.dim,
            ),
        ]),
        None => Line::styled("suggested: none", theme.dim),
    });
    match &l.note {
        n if n.is_open() && n.row == row => {
            let what = if l.naming { "your name: " } else { "note: " };
            let mut spans = vec![Span::styled(what, theme.status_key)];
            spans.extend(n.spans(ratatui::style::Style::default()));
            spans.push(Span::styled(
                format!("  {}", super::super::textbox::box_keys("saves")),
                theme.dim,
            ));
            lines.push(Line::from(spans));
        }
        _ => {
            if let Some(s) = saved.filter(|s| !s.note.is_empty()) {
                lines.push(Line::from(vec![
                    Span::styled("note: ", theme.dim),
                    Span::raw(s.note.clone()),
                ]));
            }
        }
    }
    for other in l.others(entry.run, &entry.rollout.id) {
        let names: Vec<String> = other
            .categories
            .iter()
            .map(|c| l.taxonomy.get(c).map_or(c.0.clone(), |k| k.label.clone()))
            .collect();
        let mut text = format!("{}: {}", other.annotator, names.join(", "));
        if !other.note.is_empty() {
            text.push_str(&format!(" — {}", other.note));
        }
        lines.push(Line::styled(text, theme.dim));
    }
    if let Some(path) = l.labels_elsewhere(entry.run) {
        lines.push(Line::styled(
            format!("labels saved in {}", path.display()),
            theme.dim,
        ));
    }
    if let Some(home) = l.embedded_home() {
        lines.push(Line::styled(
            format!("built-in demo: labels saved in {}", home.display()),
            theme.dim,
        ));
    }
    lines
}

fn verdict_style(theme: &Theme, report: &GradeReport) -> Style {
    match report.verdict {
        Some(v) => theme.verdict(v),
        None => theme.verdict_failed,
    }
}

fn cases_text(report: &GradeReport) -> String {
    if report.cases.is_empty() {
        String::new()
    } else {
        format!(
            "  {}/{} cases passed",
            report.cases.len() - report.failed_cases(),
            report.cases.len()
        )
    }
}

fn saved_text(saved: &Option<Result<(), String>>) -> &'static str {
    match saved {
        Some(Ok(())) => "  · in the rerun sidecar",
        Some(Err(_)) => "  · NOT saved",
        None => "  · saving…",
    }
}

/// The Rerun panel: stored verdict, latest rerun and what-if, each with the case changes.
pub fn rerun_lines(app: &App, row: usize) -> Option<Vec<Line<'static>>> {
    let theme = &app.theme;
    let cmp = app.rerun_comparison(row)?;
    let entry = app.corpus.entries.get(row)?;
    let mut lines = Vec::new();
    let original_cases = cmp
        .original_report
        .as_deref()
        .map(cases_text)
        .unwrap_or_default();
    lines.push(Line::from(vec![
        Span::styled(format!("{:<9}", "stored"), theme.dim),
        Span::styled(cmp.original.clone(), theme.shown(app.corpus.shown(row))),
        Span::styled(original_cases, theme.dim),
    ]));
    let changes = |after: &GradeReport| -> Vec<Line<'static>> {
        match cmp.original_report.as_deref() {
            Some(before) => {
                let list = case_changes(before, after);
                if list.is_empty() {
                    vec![Line::styled(format!("{:<9}no case changed", ""), theme.dim)]
                } else {
                    vec![Line::styled(
                        format!("{:<9}{}", "", list.join(" · ")),
                        theme.warning,
                    )]
                }
            }
            None => Vec::new(),
        }
    };
    let record_line = |label: &str, record: &RerunRecord, saved| {
        let r = &record.report;
        let time = record.time.get(11..19).unwrap_or("");
        Line::from(vec![
            Span::styled(format!("{label:<9}"), theme.dim),
            Span::styled(
                r.verdict.map_or("not graded", |v| v.as_str()).to_string(),
                verdict_style(theme, r),
            ),
            Span::styled(cases_text(r), theme.dim),
            Span::styled(format!("  {time}{}", saved_text(saved)), theme.dim),
        ])
    };
    if cmp.rerun_running {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<9}", "rerun"), theme.dim),
            Span::styled(
                format!("{} grading…", app.reruns.spinner_frame()),
                theme.progress,
            ),
        ]));
    } else if let Some((record, saved)) = &cmp.rerun {
        lines.push(record_line("rerun", record, saved));
        lines.extend(changes(&record.report));
    }
    if cmp.what_if_running {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<9}", "what-if"), theme.dim),
            Span::styled(
                format!("{} grading the edited code…", app.reruns.spinner_frame()),
                theme.progress,
            ),
        ]));
    } else if let Some((record, saved)) = &cmp.what_if {
        lines.push(record_line("what-if", record, saved));
        let edited = record.edited_code.as_deref().unwrap_or("");
        let passed = record.report.verdict == Some(crate::model::Verdict::Right);
        // Its every case is in the Cases pane (this panel has room for a few lines).
        let cases_key = app
            .keymap
            .keys_for(crate::tui::action::Action::WhatIfCases)
            .first()
            .map(|k| format!(" · {k}: its cases"))
            .unwrap_or_default();
        lines.push(Line::styled(
            format!(
                "{:<9}{} → {}{cases_key}",
                "",
                edit_summary(entry.code(), edited),
                if passed {
                    "would have passed"
                } else {
                    "would still fail"
                }
            ),
            if passed {
                theme.verdict_right
            } else {
                theme.hint
            },
        ));
        lines.extend(changes(&record.report));
    }
    if cmp.earlier > 1 {
        lines.push(Line::styled(
            format!(
                "{:<9}{} reruns and what-ifs of this rollout on file",
                "", cmp.earlier
            ),
            theme.dim,
        ));
    }
    Some(lines)
}
