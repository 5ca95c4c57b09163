//! The Code pane: the extracted code, highlighted, with hallucinated names underlined in the
//! theme's error style and zwc calls followed by their NumPy names (`zwc.kocito(arr) ‹mean›`).
//! After `y` (one traced run, `jobs::confirm`) each finding that claims a crash says whether
//! the run confirmed it, refuted it or never reached it; a confirmed `possible` one is
//! marked like an error.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{PaneContent, field, wrap_words, wrapped_field};
use crate::analysis::graph::NodeKind;
use crate::analysis::{Analysis, Finding, Severity, entry_function_name};
use crate::grade::trace::Settled;
use crate::grade::trace::loopholes::claims_loophole;
use crate::grade::trace::settle::claims_crash;
use crate::tui::component::DrawCx;
use crate::tui::entry::Entry;
use crate::tui::jobs::HighlightKind;
use crate::tui::state::DetailView;
use crate::tui::theme::Theme;

/// What to say under a finding: its message, and the zwc name to use when it does not say it.
fn finding_note(f: &Finding) -> String {
    match &f.suggestion {
        Some(s) if !f.message.contains(s.as_str()) => format!("{} (use {s})", f.message),
        _ => f.message.clone(),
    }
}

/// Character column just after the `)` closing the call whose name starts at 1-based `col`
/// of `line`, when it closes on that line (strings are skipped).
fn call_end_col(line: &str, col: usize) -> Option<usize> {
    let chars: Vec<char> = line.chars().collect();
    let mut i = col.checked_sub(1)?;
    while i < chars.len() && chars[i] != '(' {
        i += 1;
    }
    let (mut depth, mut quote) = (0usize, None::<char>);
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(_) if c == '\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 2);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// The official static check, condition by condition.
fn static_check_lines(a: &Analysis, theme: &Theme, lines: &mut Vec<Line<'static>>) {
    if let Some(e) = &a.code.parse_error {
        lines.push(field(
            "syntax error",
            format!("{}:{} {}", e.line, e.col, e.message),
            theme.dim,
            theme.error,
        ));
    }
    let Some(sc) = &a.code.static_check else {
        return;
    };
    lines.push(Line::raw(""));
    lines.push(Line::styled("Static zwc-usage check", theme.heading));
    let mark = |ok: bool| {
        if ok {
            Span::styled("✓ ", theme.verdict_right)
        } else {
            Span::styled("✗ ", theme.verdict_result_error)
        }
    };
    let entry_text = match sc.entry_line {
        Some(l) => format!("entry `{}` found (line {l})", sc.entry),
        None => format!("entry `{}` found", sc.entry),
    };
    for (ok, text) in [
        (sc.syntax_error.is_none(), "the program parses".to_string()),
        (sc.zwc_imported, "zwc imported".to_string()),
        (sc.entry_found, entry_text),
        (
            !sc.library_calls.is_empty(),
            format!(
                "{} zwc call(s) in the entry function",
                sc.library_calls.len()
            ),
        ),
        (sc.returns_value, "returns a value".to_string()),
        (
            sc.meaningful,
            "meaningful use (not only zwc.yitaf)".to_string(),
        ),
    ] {
        lines.push(Line::from(vec![mark(ok), Span::raw(text)]));
        // Code that does not parse is checked no further: no ✗ for steps never taken.
        if sc.syntax_error.is_some() {
            lines.push(Line::styled(
                "  the other steps are not checked: the program does not parse",
                theme.dim,
            ));
            break;
        }
    }
    if let Some(official) = sc.official_error() {
        lines.push(field(
            "official",
            official,
            theme.dim,
            theme.verdict_without_zwc,
        ));
    }
}

/// The Code pane of `entry`, for a pane `width` cells wide.
pub fn render(d: &DetailView, cx: &DrawCx<'_>, entry: &Entry, pane_width: u16) -> PaneContent {
    let theme = cx.theme;
    let analysis = d.analysis(cx.list.selected).map(|a| &**a);
    let findings: &[Finding] = match analysis {
        Some(a) => &a.code.findings,
        None => cx.corpus.findings(cx.list.selected.unwrap_or(usize::MAX)),
    };
    // Without an API doc, name findings would call every zwc name unknown.
    let findings: Vec<&Finding> = findings
        .iter()
        .filter(|f| !(cx.corpus.ctx.api.is_empty() && f.kind.needs_api()))
        .collect();
    // The zwc calls the analysis found, for the NumPy names after them.
    let calls: Vec<_> = analysis
        .iter()
        .flat_map(|a| &a.code.graph.nodes)
        .filter(|n| n.kind == NodeKind::ZwcCall && n.zwc.is_some())
        .collect();
    let mut lines = Vec::new();
    let code = entry.code();
    if entry.code_span.is_none() {
        lines.push(Line::styled(
            "No ```python block in the response: the grader runs empty code (without_zwc).",
            theme.warning,
        ));
        return PaneContent::scrolling(lines, true);
    }
    let entry_name = analysis.map_or_else(|| entry_function_name(code), |a| a.code.entry.clone());
    let entry_name = if entry_name.is_empty() {
        "(none: no `def name(`)".to_string()
    } else {
        entry_name
    };
    let call_count = match analysis {
        Some(_) if calls.len() == 1 => "1 zwc call".to_string(),
        Some(_) => format!("{} zwc calls", calls.len()),
        None => "analysing…".to_string(),
    };
    lines.push(Line::from(vec![
        Span::styled("entry ", theme.dim),
        Span::styled(entry_name, theme.title),
        Span::styled(
            format!(
                " · {call_count} · {} finding{}",
                findings.len(),
                if findings.len() == 1 { "" } else { "s" },
            ),
            theme.dim,
        ),
    ]));
    // Without an API doc no name can be checked: say so rather than call every name unknown.
    let api_known = !cx.corpus.ctx.api.is_empty();
    if !api_known {
        lines.push(Line::styled(
            "no API doc: pass --api-doc FILE to see NumPy names and check zwc names",
            theme.warning,
        ));
    }
    let highlighted = d.highlighted(cx.list.selected, HighlightKind::Code);
    let width = code.lines().count().max(1).to_string().len();
    let confirmation = cx
        .reruns
        .confirmation(&entry.rollout.id)
        .and_then(|c| c.as_ref().ok());
    let settled = |f: &Finding| confirmation.and_then(|c| c.of(f.line, f.col, &f.name));
    for (k, text) in code.lines().enumerate() {
        let ln = k + 1;
        // Character cells of the line, styled, so marks can be laid over them by column.
        let mut cells: Vec<(Style, char)> = match highlighted
            .and_then(|h| h.lines.get(k))
            .and_then(Option::as_ref)
        {
            Some(pieces) => pieces
                .iter()
                .flat_map(|(s, t)| t.chars().map(move |c| (*s, c)))
                .collect(),
            None => text.chars().map(|c| (Style::default(), c)).collect(),
        };
        for f in findings.iter().filter(|f| f.line == ln && f.col > 0) {
            let start = f.col - 1;
            let len = mark_len(text, start, &f.name);
            // What the analysis is not sure of is marked dimmer than an error.
            let mark = match f.severity {
                Severity::Error => theme.error,
                Severity::Possible
                    if matches!(settled(f), Some(Settled::Confirmed | Settled::SomeCases(_))) =>
                {
                    theme.error
                }
                Severity::Possible => theme.dim,
                _ => theme.warning,
            };
            for cell in cells.iter_mut().skip(start).take(len) {
                cell.0 = cell.0.patch(mark);
            }
        }
        // Hints go after the call's closing parenthesis, or at the end of the line.
        let mut hints: Vec<(usize, String)> = calls
            .iter()
            .filter(|c| api_known && c.line == ln)
            .map(|c| {
                let at =
                    call_end_col(text, c.col).map_or(cells.len(), |e| (e - 1).min(cells.len()));
                let label = c.numpy.as_deref().unwrap_or("not in zwc");
                (at, format!(" ‹{label}›"))
            })
            .collect();
        hints.sort_by_key(|(at, _)| *at);
        let mut spans = vec![Span::styled(format!("{ln:>width$} "), theme.gutter)];
        let mut run = String::new();
        let mut run_style = Style::default();
        let mut next_hint = 0;
        for (i, (style, ch)) in cells.iter().enumerate() {
            while next_hint < hints.len() && hints[next_hint].0 == i {
                if !run.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut run), run_style));
                }
                spans.push(Span::styled(hints[next_hint].1.clone(), theme.hint));
                next_hint += 1;
            }
            if *style != run_style && !run.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut run), run_style));
            }
            run_style = *style;
            run.push(*ch);
        }
        if !run.is_empty() {
            spans.push(Span::styled(run, run_style));
        }
        for (_, hint) in &hints[next_hint..] {
            spans.push(Span::styled(hint.clone(), theme.hint));
        }
        lines.push(Line::from(spans));
    }
    if !findings.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Findings", theme.heading));
        let possible = findings
            .iter()
            .any(|f| (f.severity == Severity::Possible && claims_crash(f)) || claims_loophole(f));
        if cx.reruns.confirming(&entry.rollout.id) {
            lines.push(Line::styled("  running once under the tracer…", theme.hint));
        } else if let Some(Err(why)) = cx.reruns.confirmation(&entry.rollout.id) {
            lines.push(Line::styled(
                format!("  cannot confirm: {why}"),
                theme.warning,
            ));
        } else if possible && confirmation.is_none() && !d.paper {
            // A page is read, not driven: no key to press there.
            lines.push(Line::styled(
                "  y: run to settle the possible and loophole findings",
                theme.hint,
            ));
        }
        for f in &findings {
            let at = if f.line > 0 {
                format!("{}:{} ", f.line, f.col)
            } else {
                String::new()
            };
            let style = match f.severity {
                Severity::Error => theme.error,
                Severity::Possible => theme.dim,
                _ => theme.warning,
            };
            let mut spans = vec![
                Span::styled("⚑ ", style),
                Span::styled(at, theme.gutter),
                Span::styled(f.kind.label().to_string(), style),
            ];
            if f.severity == Severity::Possible {
                spans.push(Span::styled(" (possible)", theme.dim));
            }
            if !f.name.is_empty() {
                spans.push(Span::raw(format!("  {}", f.name)));
            }
            match settled(f) {
                Some(Settled::Confirmed) => spans.push(Span::styled(
                    match confirmation.and_then(|c| c.evidence_of(f.line, f.col, &f.name)) {
                        Some(why) => format!("  ✓ confirmed by a run: {why}"),
                        None => "  ✓ confirmed by a run".to_string(),
                    },
                    theme.error,
                )),
                Some(Settled::Refuted(why)) => {
                    spans.push(Span::styled(format!("  ✗ refuted: {why}"), theme.hint))
                }
                Some(Settled::SomeCases(why)) => spans.push(Span::styled(
                    format!("  ✓ confirmed on some cases: {why}"),
                    theme.error,
                )),
                Some(Settled::NotReached) => {
                    spans.push(Span::styled("  · not reached by the cases", theme.dim))
                }
                _ => {}
            }
            // The finding and its evidence wrap under the flag (code lines are not wrapped,
            // but this is prose and must not be cut).
            lines.extend(super::wrap_hanging(
                spans,
                usize::from(pane_width).saturating_sub(2),
                &[Span::raw("    ")],
            ));
            // The explanation on its own line: code lines are not wrapped, so keep it short.
            for part in wrap_words(&finding_note(f), usize::from(pane_width).saturating_sub(4)) {
                lines.push(Line::styled(format!("    {part}"), theme.hint));
            }
        }
    }
    // What the run found that no finding claimed.
    let found = confirmation.map(|c| c.found.as_slice()).unwrap_or_default();
    if findings.is_empty() && !found.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Findings", theme.heading));
    }
    for f in found {
        lines.push(Line::from(vec![
            Span::styled("⚑ ", theme.error),
            Span::styled(format!("{}:{} ", f.line, f.col), theme.gutter),
            Span::styled(f.kind.label().to_string(), theme.error),
            Span::raw(format!("  {}", f.name)),
        ]));
        let why = f.evidence.as_deref().unwrap_or("found by running");
        for part in wrap_words(why, usize::from(pane_width).saturating_sub(4)) {
            lines.push(Line::styled(format!("    {part}"), theme.error));
        }
    }
    if let Some(a) = analysis {
        static_check_lines(a, theme, &mut lines);
    }
    if let Some(report) = cx
        .list
        .selected
        .and_then(|i| cx.corpus.scores.get(i))
        .and_then(|s| s.report())
    {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Grader", theme.heading));
        let w = pane_width;
        lines.extend(wrapped_field(
            "decided by",
            &report.decided_by,
            w,
            theme.dim,
            Style::default(),
        ));
        if let Some(e) = &report.static_error {
            lines.extend(wrapped_field(
                "static check",
                e,
                w,
                theme.dim,
                theme.verdict_without_zwc,
            ));
        }
        for warning in &report.warnings {
            lines.extend(wrapped_field(
                "warning",
                warning,
                w,
                theme.dim,
                theme.warning,
            ));
        }
    }
    PaneContent::scrolling(lines, false)
}

/// How many characters of `line` from character `start` a finding on `name` marks: the
/// name when it is written there (`zwc.mean`, `tolist`), else the word or the one symbol
/// there (`float` of `float()`, `-` of `unary -`).
fn mark_len(line: &str, start: usize, name: &str) -> usize {
    let rest: String = line.chars().skip(start).collect();
    if !name.is_empty() && rest.starts_with(name) {
        return name.chars().count();
    }
    let word = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .count();
    word.max(1)
}

#[cfg(test)]
mod tests {
    use super::{call_end_col, mark_len};

    #[test]
    fn hints_go_after_the_closing_parenthesis_of_the_call() {
        let line = "    m = zwc.rfx.quvohe(zwc.yitaf(x), \")\") + 1";
        // zwc.rfx.quvohe starts at column 9; its `)` is the one after the string.
        assert_eq!(call_end_col(line, 9), Some(42));
        assert_eq!(call_end_col(line, 24), Some(36));
        // Not closed on this line: no place (the hint goes at the end of the line).
        assert_eq!(call_end_col("    zwc.kocito(a,", 5), None);
    }

    #[test]
    fn a_finding_marks_its_name_or_the_word_where_it_points() {
        let line = "    y = -zwc.yitaf(a).tolist() + float(zwc.mean(x))";
        let at = |needle: &str| line.find(needle).expect("in line");
        assert_eq!(mark_len(line, at("tolist"), "tolist"), 6);
        assert_eq!(mark_len(line, at("zwc.mean"), "zwc.mean"), 8);
        assert_eq!(mark_len(line, at("float"), "float()"), 5);
        assert_eq!(mark_len(line, at("-zwc"), "unary -"), 1);
        assert_eq!(mark_len("x", 5, "tolist"), 1);
    }
}
