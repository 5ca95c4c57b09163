//! The Response pane's raw view (`D`): the selected rollout's line as stored, every key in
//! the order written. A text value is shown whole, line by line (the prompt with the zwc
//! docs the model saw); other values as JSON. The keys sebx reads and the ones it does not
//! (`acc`, `pred`, `request_id`, …) are shown alike: the point is to see the line itself.

use ratatui::text::{Line, Span};
use serde_json::Value;

use super::{PaneContent, labelled};
use crate::tui::action::Action;
use crate::tui::component::DrawCx;
use crate::tui::entry::Entry;
use crate::tui::state::DetailView;

/// The raw view of `entry`'s line, for a pane `width` cells wide.
pub fn render(d: &DetailView, cx: &DrawCx<'_>, entry: &Entry, width: u16) -> PaneContent {
    let theme = cx.theme;
    let r = &entry.rollout;
    let mut head = vec![Span::styled(
        format!("the line as stored: {} line {}", r.source.display(), r.line),
        theme.dim,
    )];
    if let Some(k) = cx.keys.keys_for(Action::RawLine).first()
        && !d.paper
    {
        head.push(Span::styled(
            format!(" · {k} again: the response"),
            theme.dim,
        ));
    }
    let mut lines = vec![Line::from(head)];
    let raw = match d.raw_line_held(cx.list.selected) {
        None => {
            lines.push(Line::styled("reading the line…", theme.dim));
            return PaneContent::scrolling(lines, true);
        }
        Some(Err(why)) => {
            lines.push(Line::styled(why.clone(), theme.warning));
            return PaneContent::scrolling(lines, true);
        }
        Some(Ok(raw)) => raw,
    };
    let keys: Vec<&str> = raw.fields.iter().map(|(k, _)| k.as_str()).collect();
    lines.extend(labelled(
        &format!("{} keys ({} bytes): ", keys.len(), raw.bytes),
        &keys.join(", "),
        usize::from(width),
        theme.dim,
        theme.title,
    ));
    for (key, value) in &raw.fields {
        lines.push(Line::raw(""));
        match value {
            // Text: whole, line by line, under its key (a one-line text beside it).
            Value::String(text) if text.contains('\n') => {
                lines.push(Line::styled(
                    format!("{key} ({} lines):", text.lines().count()),
                    theme.heading,
                ));
                lines.extend(text.lines().map(|l| Line::raw(format!("  {l}"))));
            }
            Value::String(text) if text.is_empty() => {
                lines.push(Line::from(vec![
                    Span::styled(format!("{key}: "), theme.heading),
                    Span::styled("(empty text)", theme.dim),
                ]));
            }
            Value::String(text) => lines.extend(labelled(
                &format!("{key}: "),
                text,
                usize::from(width),
                theme.heading,
                theme.base,
            )),
            Value::Object(_) | Value::Array(_) => {
                lines.push(Line::styled(format!("{key}:"), theme.heading));
                let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
                lines.extend(pretty.lines().map(|l| Line::raw(format!("  {l}"))));
            }
            other => lines.push(Line::from(vec![
                Span::styled(format!("{key}: "), theme.heading),
                Span::styled(other.to_string(), theme.inline_code),
            ])),
        }
    }
    PaneContent::scrolling(lines, true)
}
