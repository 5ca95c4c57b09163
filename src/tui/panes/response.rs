//! The Response pane: the whole answer, markdown-aware, code blocks highlighted,
//! the block the grader extracted marked in the gutter.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{PaneContent, styled_or_plain};
use crate::tui::component::DrawCx;
use crate::tui::entry::Entry;
use crate::tui::jobs::HighlightKind;
use crate::tui::state::DetailView;
use crate::tui::theme::Theme;

/// The Response pane of `entry`, for a pane `width` cells wide (prose is wrapped here, under
/// its own indent).
pub fn render(d: &DetailView, cx: &DrawCx<'_>, entry: &Entry, width: u16) -> PaneContent {
    let theme = cx.theme;
    let response = &entry.rollout.response;
    let marked = entry.code_lines_in_response();
    let mut lines = Vec::new();
    lines.push(match &marked {
        Some(r) => Line::from(vec![
            Span::styled("▌", theme.extracted_marker),
            Span::styled(
                format!(
                    " graded block: lines {}–{} (the last of {} python block{})",
                    r.start,
                    r.end - 1,
                    entry.blocks_found,
                    if entry.blocks_found == 1 { "" } else { "s" }
                ),
                theme.dim,
            ),
        ]),
        None => Line::styled(
            "no ```python block: nothing for the grader to run (without_zwc)",
            theme.warning,
        ),
    });
    let sample = entry.rollout.sample.as_deref();
    // A training line's other keys (the reward's extras, `request_id`), as verl wrote them.
    if let Some(m) = sample.filter(|m| !m.extras.is_empty()) {
        let extras: Vec<String> = m.extras.iter().map(|(k, v)| format!("{k}={v}")).collect();
        lines.push(Line::styled(
            format!(" extras: {}", extras.join(" · ")),
            theme.dim,
        ));
    }
    if response.trim().is_empty() {
        lines.push(Line::styled(
            if sample.is_some() {
                "(empty output: verl dumps an aborted request this way)"
            } else {
                "(empty response)"
            },
            theme.dim,
        ));
        return PaneContent::scrolling(lines, true);
    }
    let highlighted = d.highlighted(cx.list.selected, HighlightKind::Response);
    let mut in_fence = false;
    for (k, text) in response.lines().enumerate() {
        let ln = k + 1;
        let gutter = if marked.as_ref().is_some_and(|r| r.contains(&ln)) {
            Span::styled("▌", theme.extracted_marker)
        } else {
            Span::raw(" ")
        };
        let is_fence = text.trim_start().starts_with("```");
        let mut spans = vec![gutter.clone()];
        if is_fence || in_fence {
            if is_fence {
                in_fence = !in_fence;
                spans.push(Span::styled(text.to_string(), theme.dim));
            } else {
                let styled = highlighted
                    .and_then(|h| h.lines.get(k))
                    .and_then(Option::as_ref);
                spans.extend(styled_or_plain(styled, text, theme.inline_code));
            }
            // A code line wrapped here keeps the graded block's marker on each piece.
            lines.extend(super::wrap_hanging(spans, usize::from(width), &[gutter]));
        } else {
            spans.extend(prose(text, theme));
            // Continuations keep the gutter and the indent (bullets: past the `• `).
            let trimmed = text.trim_start();
            let mut indent = text.len() - trimmed.len();
            if trimmed.starts_with("- ") || trimmed.starts_with("* ") {
                indent += 2;
            }
            let hang = [gutter, Span::raw(" ".repeat(indent))];
            lines.extend(super::wrap_hanging(spans, usize::from(width), &hang));
        }
    }
    PaneContent::scrolling(lines, true)
}

/// Markdown prose: headings, bullets, `inline code` and **bold**.
fn prose(text: &str, theme: &Theme) -> Vec<Span<'static>> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('#') {
        return vec![Span::styled(text.to_string(), theme.heading)];
    }
    let mut spans = Vec::new();
    let mut rest = text;
    let mut base = Style::default();
    let indent = text.len() - trimmed.len();
    if let Some(after) = trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
    {
        spans.push(Span::raw(format!("{}• ", &text[..indent])));
        rest = after;
    }
    while !rest.is_empty() {
        let tick = rest.find('`');
        let bold = rest.find("**");
        match (tick, bold) {
            (Some(t), b) if b.is_none_or(|b| t < b) => {
                let after = &rest[t + 1..];
                if let Some(end) = after.find('`') {
                    spans.push(Span::styled(rest[..t].to_string(), base));
                    spans.push(Span::styled(after[..end].to_string(), theme.inline_code));
                    rest = &after[end + 1..];
                } else {
                    spans.push(Span::styled(rest.to_string(), base));
                    rest = "";
                }
            }
            (_, Some(b)) => {
                spans.push(Span::styled(rest[..b].to_string(), base));
                base = if base == Style::default() {
                    theme.title
                } else {
                    Style::default()
                };
                rest = &rest[b + 2..];
            }
            _ => {
                spans.push(Span::styled(rest.to_string(), base));
                rest = "";
            }
        }
    }
    spans
}
