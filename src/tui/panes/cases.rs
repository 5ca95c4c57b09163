//! The Cases pane: a table of test cases (input, expected, actual, ✓/✗) and, for the case
//! under the cursor, an inline diff of expected vs actual and the comparison's explanation.
//! Above them, the official RL reward beside the verdict, and why where the two disagree;
//! and, for a rollout paid through a loophole, why it is `right` (or paid 1) anyway.

use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use super::{PaneContent, labelled};
use crate::grade::compare::{Decision, TOLERANCE};
use crate::grade::report::{CaseResult, GradeReport};
use crate::session::resolve::VerdictSource;
use crate::tui::action::{Action, Scope};
use crate::tui::app::Grading;
use crate::tui::component::DrawCx;
use crate::tui::entry::Entry;
use crate::tui::state::DetailView;
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
pub fn render(d: &DetailView, cx: &DrawCx<'_>, entry: &Entry, width: u16) -> PaneContent {
    render_with_rows(d, cx, entry, width).0
}

/// The pane and the content lines that are case rows (the first is case 1).
pub fn render_with_rows(
    d: &DetailView,
    cx: &DrawCx<'_>,
    entry: &Entry,
    width: u16,
) -> (PaneContent, Range<usize>) {
    let theme = cx.theme;
    // The stored run's cases, or the latest what-if's (`E` switches when there is one).
    let report = d.cases_report(cx.reads());
    let what_if = d.cases_what_if(cx.reads());
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
    // A reward that disagrees with the verdict heads the pane, pinned, with the reason.
    if let Some(r) = report {
        reward_disagreement(r, theme, width, &mut lines);
        right_anyway(d, cx, entry, r, width, &mut lines);
    }
    if let Some(line) = source_line(d, cx, entry, what_if.is_some(), theme) {
        lines.push(line);
    }
    let pinned = lines.len() as u16;
    if what_if.is_none() {
        lines.extend(verdict_source(d, cx, width));
    }
    let reward = report
        .and_then(|r| reward_note(cx, r))
        .map(|note| format!(" · {note}"))
        .unwrap_or_default();
    let summary = match report {
        Some(r) if r.execution.is_none() => format!("not run: {}{reward}", r.decided_by),
        Some(r) if !r.cases.is_empty() => format!(
            "{} of {} cases failed{reward}{}",
            r.failed_cases(),
            r.cases.len(),
            if d.paper {
                String::new()
            } else {
                case_keys(cx)
            }
        ),
        Some(r) => format!("no case results: {}{reward}", r.decided_by),
        None => "not graded here: expected values only".to_string(),
    };
    // A verdict another machine or grader run could flip says so first. Wrapped, not cut:
    // the table below is not wrapped, this sentence is.
    let spans = match report.filter(|r| r.fragile) {
        Some(r) => vec![
            Span::styled(
                format!(
                    "≈ fragile: {} · ",
                    r.fragile_reason.as_deref().unwrap_or("see the cases")
                ),
                theme.warning,
            ),
            Span::styled(summary, theme.dim),
        ],
        None => vec![Span::styled(summary, theme.dim)],
    };
    lines.extend(super::wrap_hanging(spans, usize::from(width), &[]));
    if cases.is_empty() {
        lines.push(Line::styled("(no test cases)", theme.dim));
        let mut content = PaneContent::scrolling(lines, false);
        content.pinned = pinned;
        return (content, 0..0);
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
    let cursor = d.case_cursor(cx.reads()).min(cases.len() - 1);
    let first_case = lines.len();
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
            // A page has no cursor: the case detailed below is the one marked on screen.
            lines.push(if d.paper {
                line
            } else {
                line.patch_style(theme.selected)
            });
        } else {
            lines.push(line);
        }
    }
    lines.push(Line::raw(""));
    let detail_start = lines.len();
    detail(&cases[cursor], cursor, theme, &mut lines);
    let focus_height = (lines.len() - detail_start) as u16 + (detail_start as u16 - focus);
    (
        PaneContent {
            lines,
            wrap: false,
            focus_line: Some(focus),
            focus_height,
            pinned,
        },
        first_case..first_case + cases.len(),
    )
}

/// Whose cases these are, when the rollout has a what-if: `what-if (edited code) · E the
/// stored run` or `stored run · E the what-if's cases` (the key from the keymap).
fn source_line(
    d: &DetailView,
    cx: &DrawCx<'_>,
    entry: &Entry,
    showing_what_if: bool,
    theme: &Theme,
) -> Option<Line<'static>> {
    if d.paper {
        return None;
    }
    let row = cx.list.selected?;
    let record = DetailView::what_if_record(cx.reads(), row)?;
    let key = cx
        .keys
        .keys_for(Action::WhatIfCases)
        .first()
        .map(|k| k.to_string());
    let (what, other) = if showing_what_if {
        let time = record.time.get(11..19).unwrap_or("");
        let edited = record.edited_code.as_deref().unwrap_or("");
        (
            format!(
                "what-if {time}: {}",
                crate::grade::reruns::edit_summary(entry.code(), edited)
            ),
            "the stored run",
        )
    } else {
        ("stored run".to_string(), "the what-if's cases")
    };
    let mut spans = vec![Span::styled(
        what,
        if showing_what_if {
            theme.warning
        } else {
            theme.dim
        },
    )];
    if let Some(key) = key {
        spans.push(Span::styled(format!(" · {key} {other}"), theme.hint));
    }
    Some(Line::from(spans))
}

/// `verdict: result_error · from the scored file run.scored.jsonl`: the selected row's
/// verdict and where the session's resolver found it (`session::resolve`), wrapped to
/// `width` (a path too long for a line goes on over the next). Nothing on a page: it
/// names this session's files.
fn verdict_source(d: &DetailView, cx: &DrawCx<'_>, width: u16) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let Some(row) = cx.list.selected.filter(|_| !d.paper) else {
        return Vec::new();
    };
    let Some(resolved) = cx.corpus.scores.get(row).and_then(|s| s.resolved()) else {
        return Vec::new();
    };
    let mut spans = vec![
        Span::styled("verdict: ", theme.dim),
        Span::styled(resolved.verdict.as_str(), theme.verdict(resolved.verdict)),
        Span::styled(format!(" · {}", resolved.source.described()), theme.dim),
    ];
    if resolved.source == VerdictSource::Scored
        && let Some(file) = cx
            .corpus
            .scored_by
            .get(&row)
            .and_then(|&f| cx.corpus.scored_files.get(f))
    {
        spans.push(Span::styled(format!(" {}", file.display()), theme.dim));
    }
    let w = usize::from(width).max(1);
    super::wrap_hanging(spans, w, &[Span::raw("  ")])
        .into_iter()
        .flat_map(|line| hard_wrap(line, w))
        .collect()
}

/// `line` in pieces of at most `width` characters, styles kept (a word wider than the
/// pane goes on over the next line instead of being cut).
fn hard_wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.width() <= width {
        return vec![line];
    }
    let mut out = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut piece = String::new();
        for ch in span.content.chars() {
            if used == width {
                if !piece.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                out.push(Line::from(std::mem::take(&mut spans)));
                used = 0;
            }
            piece.push(ch);
            used += 1;
        }
        if !piece.is_empty() {
            spans.push(Span::styled(piece, span.style));
        }
    }
    if !spans.is_empty() {
        out.push(Line::from(spans));
    }
    out
}

/// ` · J/K move · f first failed · enter whole case`: the keys that walk the cases, and
/// the one that shows a case whole, from the keymap.
fn case_keys(cx: &DrawCx<'_>) -> String {
    let key = |a| cx.keys.key_in(Scope::Main, a);
    let mut out = String::new();
    match (key(Action::ScrollDown), key(Action::ScrollUp)) {
        (Some(d), Some(u)) => out.push_str(&format!(" · {d}/{u} move")),
        (Some(k), None) | (None, Some(k)) => out.push_str(&format!(" · {k} move")),
        (None, None) => {}
    }
    if let Some(f) = key(Action::FirstFailedCase) {
        out.push_str(&format!(" · {f} first failed"));
    }
    // The table cuts long values with a `…`: the whole case is one key away.
    if let Some(w) = key(Action::FullText) {
        out.push_str(&format!(" · {w} whole case"));
    }
    out
}

/// The reward in a few words for the summary line, where it does not disagree with the
/// verdict (a disagreement has lines of its own): `reward 1 agrees`, or that there is none.
fn reward_note(cx: &DrawCx<'_>, r: &GradeReport) -> Option<String> {
    match (r.reward, r.reward_disagrees()) {
        (Some(_), Some(true)) => None,
        (Some(x), Some(false)) => Some(format!("reward {x} agrees")),
        (Some(x), None) => Some(format!("reward {x}")),
        (None, _) if r.reward_detail.is_some() => Some("reward not run".to_string()),
        // Scored by the verdict alone (an older score file): say how to get the reward.
        (None, _) => Some(match cx.keys.keys_for(Action::Regrade).first() {
            Some(key) if cx.corpus.ctx.grading == Grading::Available => {
                format!("no RL reward ({key} scores it)")
            }
            _ => "no RL reward".to_string(),
        }),
    }
}

/// `reward 0 (official RL) ≠ verdict right` and the reason, wrapped to `width`, when the
/// official RL reward and the verdict disagree; nothing otherwise.
fn reward_disagreement(r: &GradeReport, theme: &Theme, width: u16, lines: &mut Vec<Line<'static>>) {
    let (Some(reward), Some(verdict), Some(true)) = (r.reward, r.verdict, r.reward_disagrees())
    else {
        return;
    };
    lines.push(Line::from(vec![
        Span::styled(format!("reward {reward}"), theme.warning),
        Span::styled(" (official RL) ", theme.dim),
        Span::styled("≠", theme.warning),
        Span::styled(" verdict ", theme.dim),
        Span::styled(verdict.as_str(), theme.verdict(verdict)),
    ]));
    let w = usize::from(width);
    let reason = r
        .reward_reason
        .as_deref()
        .unwrap_or("no reason recorded in the report");
    lines.extend(labelled(
        &format!("{:<9}", "why"),
        reason,
        w,
        theme.dim,
        theme.warning,
    ));
    if let Some(detail) = r.reward_detail.as_ref().filter(|d| d.fragile) {
        let why = detail
            .fragile_reason
            .as_deref()
            .unwrap_or("see the reward's cases");
        lines.extend(labelled(
            &format!("{:<9}", "fragile"),
            &format!("≈ {why}"),
            w,
            theme.dim,
            theme.warning,
        ));
    }
}

/// `right anyway, through a loophole` and each sure loophole finding (what it is, where,
/// and what a traced run showed of it) when the verdict is `right` or the reward 1: the
/// cases below matched, but not because the program used zwc.
fn right_anyway(
    d: &DetailView,
    cx: &DrawCx<'_>,
    entry: &Entry,
    r: &GradeReport,
    width: u16,
    lines: &mut Vec<Line<'static>>,
) {
    use crate::analysis::Severity;
    use crate::model::finding_kinds::Family;
    let paid = r.verdict == Some(crate::model::Verdict::Right) || r.reward == Some(1);
    let Some(a) = d.analysis(cx.list.selected).map(|a| &**a).filter(|_| paid) else {
        return;
    };
    // The analysis's findings, what the official checker's runs showed (printed code) and
    // what grading's traced runs showed; where those runs answered, they settle the kinds
    // they cover (a candidate they did not show is left out, as every figure leaves it).
    let judged = crate::grade::judge_eval::judge_findings(r);
    let behaved = crate::grade::trace::grading::behaviour_findings(r);
    let ran: crate::model::finding_kinds::KindSet =
        behaved.iter().fold(0, |bits, f| bits | f.kind.bit());
    let settles = crate::grade::trace::grading::settles(r);
    let shown_by_look =
        |f: &&crate::analysis::Finding| settles & f.kind.bit() == 0 || ran & f.kind.bit() != 0;
    let by_look: Vec<_> = a
        .code
        .findings
        .iter()
        .filter(|f| f.kind.family() == Family::Loophole && f.severity != Severity::Possible)
        .filter(shown_by_look)
        .collect();
    let looked: crate::model::finding_kinds::KindSet =
        by_look.iter().fold(0, |bits, f| bits | f.kind.bit());
    let loopholes: Vec<_> = by_look
        .into_iter()
        .chain(&judged)
        .chain(behaved.iter().filter(|f| looked & f.kind.bit() == 0))
        .collect();
    if loopholes.is_empty() {
        return;
    }
    let theme = cx.theme;
    let paid_how = match (
        r.verdict == Some(crate::model::Verdict::Right),
        r.reward == Some(1),
    ) {
        (true, true) => "right and reward 1",
        (true, false) => "right",
        _ => "reward 1",
    };
    lines.push(Line::from(vec![
        Span::styled(format!("{paid_how} anyway"), theme.warning),
        Span::styled(", through a loophole:", theme.dim),
    ]));
    let confirmation = cx
        .reruns
        .confirmation(&entry.rollout.id)
        .and_then(|c| c.as_ref().ok());
    let w = usize::from(width);
    for f in loopholes {
        let head = if f.line == 0 {
            format!("{} (printed output)", f.kind.label())
        } else {
            format!("{} (line {})", f.kind.label(), f.line)
        };
        lines.extend(labelled(
            "  ⚑ ",
            &format!("{head}: {}", f.message),
            w,
            theme.warning,
            theme.dim,
        ));
        let settled = confirmation.and_then(|c| c.of(f.line, f.col, &f.name));
        let shown = match settled {
            Some(crate::grade::trace::Settled::Confirmed) => Some(format!(
                "✓ confirmed by a run{}",
                confirmation
                    .and_then(|c| c.evidence_of(f.line, f.col, &f.name))
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            )),
            Some(crate::grade::trace::Settled::Refuted(why)) => {
                Some(format!("✗ a run refuted it: {why}"))
            }
            Some(other) => Some(format!("· {}", other.label())),
            None => None,
        };
        if let Some(text) = shown {
            lines.extend(labelled("    ", &text, w, theme.dim, theme.hint));
        }
    }
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
