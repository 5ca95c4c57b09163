//! The Cases pane: a table of test cases (input, expected, actual, ✓/✗) and, for the case
//! under the cursor, an inline diff of expected vs actual and the comparison's explanation.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use super::PaneContent;
use crate::grade::compare::{Decision, TOLERANCE};
use crate::grade::report::CaseResult;
use crate::tui::app::App;
use crate::tui::entry::Entry;
use crate::tui::theme::Theme;

/// One case as the pane shows it, graded or not.
struct CaseView {
    input: String,
    expected: String,
    actual: Option<String>,
    matched: Option<bool>,
    result: Option<CaseResult>,
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn fit(text: &str, width: usize) -> String {
    super::super::layout::fit(&one_line(text), width)
}

/// The Cases pane of `entry`, `width` cells wide; keeps the case under the cursor in view.
pub fn render(app: &App, entry: &Entry, width: u16) -> PaneContent {
    render_with_rows(app, entry, width).0
}

/// Content line of the table's first case row.
pub const FIRST_CASE_LINE: usize = 2;

/// The pane and its number of cases (rows from [`FIRST_CASE_LINE`] on are cases).
pub fn render_with_rows(app: &App, entry: &Entry, width: u16) -> (PaneContent, usize) {
    let theme = &app.theme;
    let report = app.selected_report();
    let cases: Vec<CaseView> = match report {
        Some(r) if !r.cases.is_empty() => r
            .cases
            .iter()
            .map(|c| CaseView {
                input: c.input.clone(),
                expected: c.expected.clone(),
                actual: c.actual.clone(),
                // A program that never ran has no results, not failed ones.
                matched: r.execution.as_ref().map(|_| c.matched),
                result: Some(c.clone()),
            })
            .collect(),
        _ => entry
            .rollout
            .test_cases
            .iter()
            .map(|c| CaseView {
                input: c.input.clone(),
                expected: c.output.clone(),
                actual: None,
                matched: None,
                result: None,
            })
            .collect(),
    };
    let mut lines: Vec<Line<'static>> = Vec::new();
    let summary = match report {
        Some(r) if r.execution.is_none() => format!("not run: {}", r.decided_by),
        Some(r) if !r.cases.is_empty() => format!(
            "{} of {} cases failed · J/K move · f first failed",
            r.failed_cases(),
            r.cases.len()
        ),
        Some(r) => format!("no case results: {}", r.decided_by),
        None => "not graded here: expected values only".to_string(),
    };
    // A verdict another machine or grader run could flip says so first.
    match report.filter(|r| r.fragile) {
        Some(r) => lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "≈ fragile: {} · ",
                    r.fragile_reason.as_deref().unwrap_or("see the cases")
                ),
                theme.warning,
            ),
            Span::styled(summary, theme.dim),
        ])),
        None => lines.push(Line::styled(summary, theme.dim)),
    }
    if cases.is_empty() {
        lines.push(Line::styled("(no test cases)", theme.dim));
        return (PaneContent::scrolling(lines, false), 0);
    }
    let w = width as usize;
    let num_w = cases.len().to_string().len();
    let rest = w.saturating_sub(2 + num_w + 1 + 6);
    let (wi, we) = (rest * 2 / 5, rest * 3 / 10);
    let wa = rest.saturating_sub(wi + we);
    lines.push(Line::styled(
        format!(
            "  {:>num_w$} {} │ {} │ {}",
            "#",
            fit("input", wi),
            fit("expected", we),
            fit("actual", wa)
        ),
        theme.column_header,
    ));
    let cursor = app.detail.case_cursor.min(cases.len() - 1);
    let mut focus = 0u16;
    for (k, c) in cases.iter().enumerate() {
        let (sym, style) = match c.matched {
            Some(true) => ("✓", theme.verdict_right),
            Some(false) => ("✗", theme.verdict_result_error),
            None => ("·", theme.verdict_pending),
        };
        let actual =
            c.actual
                .as_deref()
                .unwrap_or(if c.matched.is_some() { "(missing)" } else { "" });
        let line = Line::from(vec![
            Span::styled(format!("{sym} "), style),
            Span::styled(format!("{:>num_w$} ", k + 1), theme.gutter),
            Span::raw(fit(&c.input, wi)),
            Span::styled(" │ ", theme.border),
            Span::raw(fit(&c.expected, we)),
            Span::styled(" │ ", theme.border),
            Span::styled(
                fit(actual, wa),
                if c.matched == Some(false) {
                    theme.verdict_result_error
                } else {
                    Style::default()
                },
            ),
        ]);
        if k == cursor {
            focus = lines.len() as u16;
            lines.push(line.patch_style(theme.selected));
        } else {
            lines.push(line);
        }
    }
    lines.push(Line::raw(""));
    let detail_start = lines.len();
    detail(&cases[cursor], cursor, theme, &mut lines);
    let focus_height = (lines.len() - detail_start) as u16 + (detail_start as u16 - focus);
    let count = cases.len();
    (
        PaneContent {
            lines,
            wrap: false,
            focus_line: Some(focus),
            focus_height,
        },
        count,
    )
}

fn detail(c: &CaseView, k: usize, theme: &Theme, lines: &mut Vec<Line<'static>>) {
    let (sym, style) = match c.matched {
        Some(true) => ("✓ matched", theme.verdict_right),
        Some(false) => ("✗ did not match", theme.verdict_result_error),
        None => ("not graded", theme.verdict_pending),
    };
    lines.push(Line::from(vec![
        Span::styled(format!("Case {} ", k + 1), theme.heading),
        Span::styled(sym, style),
    ]));
    let label = |l: &str| Span::styled(format!("{l:<9}"), theme.dim);
    for (name, value) in [("input", &c.input), ("expected", &c.expected)] {
        for (i, part) in value.lines().enumerate() {
            lines.push(Line::from(vec![
                if i == 0 { label(name) } else { label("") },
                Span::raw(part.to_string()),
            ]));
        }
    }
    match &c.actual {
        Some(a) => {
            for (i, part) in a.lines().enumerate() {
                lines.push(Line::from(vec![
                    if i == 0 { label("actual") } else { label("") },
                    Span::raw(part.to_string()),
                ]));
            }
        }
        None if c.matched.is_some() => lines.push(Line::from(vec![
            label("actual"),
            Span::styled("no printed piece at this index", theme.verdict_result_error),
        ])),
        None => {}
    }
    if c.matched == Some(false)
        && let Some(actual) = &c.actual
    {
        let expected = one_line(&c.expected);
        let actual = one_line(actual);
        let diff = TextDiff::from_chars(expected.as_str(), actual.as_str());
        // Two lines, expected above actual, with the differing characters marked.
        let mut minus = vec![label("diff"), Span::styled("- ", theme.diff_delete)];
        let mut plus = vec![label(""), Span::styled("+ ", theme.diff_insert)];
        for change in diff.iter_all_changes() {
            let text = change.value().to_string();
            match change.tag() {
                ChangeTag::Equal => {
                    minus.push(Span::raw(text.clone()));
                    plus.push(Span::raw(text));
                }
                ChangeTag::Delete => minus.push(Span::styled(text, theme.diff_delete)),
                ChangeTag::Insert => plus.push(Span::styled(text, theme.diff_insert)),
            }
        }
        lines.push(Line::from(minus));
        lines.push(Line::from(plus));
    }
    if let Some(cmp) = c.result.as_ref().and_then(|r| r.comparison.as_ref()) {
        if cmp.expected_value != c.expected.trim()
            || c.actual
                .as_deref()
                .is_some_and(|a| a.trim() != cmp.actual_value)
        {
            lines.push(Line::from(vec![
                label("parsed"),
                Span::raw(format!("{}  vs  {}", cmp.expected_value, cmp.actual_value)),
            ]));
        }
        if let Some(m) = &cmp.mismatch {
            let at = if m.path.is_empty() {
                "the whole value".to_string()
            } else {
                m.path.clone()
            };
            lines.push(Line::from(vec![
                label("why"),
                Span::styled(
                    format!("at {at}: expected {}, actual {}", m.expected, m.actual),
                    theme.warning,
                ),
            ]));
            let reason = match (m.reason.is_empty(), m.difference) {
                (false, _) => m.reason.clone(),
                (true, Some(d)) => format!("difference {d} > tolerance {TOLERANCE}"),
                (true, None) => String::new(),
            };
            if !reason.is_empty() {
                lines.push(Line::from(vec![
                    label(""),
                    Span::styled(reason, theme.warning),
                ]));
            }
        }
        if !matches!(cmp.decided_by, Decision::Tolerant | Decision::ExactText) {
            lines.push(Line::from(vec![
                label("decided"),
                Span::styled(format!("{:?}", cmp.decided_by), theme.hint),
            ]));
        }
        if let Some(why) = &cmp.fragile {
            lines.push(Line::from(vec![
                label("≈ fragile"),
                Span::styled(why.clone(), theme.warning),
            ]));
        }
        for note in &cmp.notes {
            lines.push(Line::from(vec![
                label("note"),
                Span::styled(note.clone(), theme.hint),
            ]));
        }
    }
}
