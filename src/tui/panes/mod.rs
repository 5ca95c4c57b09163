//! One file per detail pane. Each turns the selected rollout into lines; `ui` frames and scrolls them.

pub mod cases;
pub mod code;
pub mod graph;
pub mod labels;
pub mod output;
pub mod raw;
pub mod response;
pub mod task;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::app::{App, Pane};
use super::entry::Entry;
use super::highlight::StyledLine;

/// What a pane shows.
pub struct PaneContent {
    pub lines: Vec<Line<'static>>,
    /// Wrap long lines (prose) rather than cut them (code, tables).
    pub wrap: bool,
    /// A line to keep in view (the selected case), with how many lines it spans.
    pub focus_line: Option<u16>,
    pub focus_height: u16,
    /// The first lines stay in view while the rest scrolls (what a triager must not miss:
    /// the Cases pane's reward disagreement), when they take at most half the pane.
    pub pinned: u16,
}

impl PaneContent {
    fn scrolling(lines: Vec<Line<'static>>, wrap: bool) -> PaneContent {
        PaneContent {
            lines,
            wrap,
            focus_line: None,
            focus_height: 0,
            pinned: 0,
        }
    }
}

/// The selected pane's content for `entry`, for a pane `width` cells wide.
pub fn render(app: &App, entry: &Entry, width: u16) -> PaneContent {
    match app.detail.pane {
        Pane::Response if app.detail.raw_line => raw::render(app, entry, width),
        Pane::Response => response::render(app, entry, width),
        Pane::Code => code::render(app, entry, width),
        Pane::Cases => cases::render(app, entry, width),
        Pane::Output => output::render(app, entry),
        Pane::Graph => graph::render(app, width),
        Pane::Task => task::render(app, entry),
    }
}

/// `spans` wrapped at spaces to lines at most `width` cells wide, each continuation line
/// starting with `hang` (the gutter and indent of the first), so a wrapped paragraph keeps
/// its left edge instead of outdenting under its own gutter.
pub(crate) fn wrap_hanging(
    spans: Vec<Span<'static>>,
    width: usize,
    hang: &[Span<'static>],
) -> Vec<Line<'static>> {
    let hang_w: usize = hang.iter().map(|s| s.content.chars().count()).sum();
    let total: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    if width <= hang_w + 8 || total <= width {
        return vec![Line::from(spans)];
    }
    // Words with the spaces after them, each keeping its style.
    let mut words: Vec<Vec<(String, Style)>> = vec![Vec::new()];
    for span in &spans {
        let mut piece = String::new();
        let mut after_space = false;
        for ch in span.content.chars() {
            if after_space && ch != ' ' {
                if let Some(w) = words.last_mut() {
                    w.push((std::mem::take(&mut piece), span.style));
                }
                words.push(Vec::new());
                after_space = false;
            }
            after_space |= ch == ' ';
            piece.push(ch);
        }
        if !piece.is_empty()
            && let Some(w) = words.last_mut()
        {
            w.push((piece, span.style));
        }
    }
    let mut lines = Vec::new();
    let mut line: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let mut fresh = true;
    for word in words.into_iter().filter(|w| !w.is_empty()) {
        let w: usize = word.iter().map(|(t, _)| t.chars().count()).sum();
        let visible = w - word.last().map_or(0, |(t, _)| {
            t.chars().rev().take_while(|c| *c == ' ').count()
        });
        if !fresh && used + visible > width {
            lines.push(Line::from(std::mem::take(&mut line)));
            line.extend(hang.iter().cloned());
            used = hang_w;
        }
        fresh = false;
        for (t, style) in word {
            used += t.chars().count();
            line.push(Span::styled(t, style));
        }
    }
    if !line.is_empty() {
        lines.push(Line::from(line));
    }
    lines
}

/// Spans of a highlighted line, or the plain text in `fallback` style.
pub(crate) fn styled_or_plain(
    styled: Option<&StyledLine>,
    text: &str,
    fallback: Style,
) -> Vec<Span<'static>> {
    match styled {
        Some(pieces) => pieces
            .iter()
            .map(|(s, t)| Span::styled(t.clone(), *s))
            .collect(),
        None => vec![Span::styled(text.to_string(), fallback)],
    }
}

/// A `label: value` line.
pub(crate) fn field(
    label: &str,
    value: impl Into<String>,
    label_style: Style,
    value_style: Style,
) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label}: "), label_style),
        Span::styled(value.into(), value_style),
    ])
}

/// A `label: value` field wrapped to `width`, continuation lines indented under the value.
pub(crate) fn wrapped_field(
    label: &str,
    value: &str,
    width: u16,
    label_style: Style,
    value_style: Style,
) -> Vec<Line<'static>> {
    labelled(
        &format!("{label}: "),
        value,
        usize::from(width),
        label_style,
        value_style,
    )
}

/// `head` then `value` wrapped to `width`, continuation lines indented under the value.
pub(crate) fn labelled(
    head: &str,
    value: &str,
    width: usize,
    label_style: Style,
    value_style: Style,
) -> Vec<Line<'static>> {
    let lead = head.chars().count();
    wrap_words(value, width.saturating_sub(lead))
        .into_iter()
        .enumerate()
        .map(|(k, part)| {
            let head = if k == 0 {
                head.to_string()
            } else {
                " ".repeat(lead)
            };
            Line::from(vec![
                Span::styled(head, label_style),
                Span::styled(part, value_style),
            ])
        })
        .collect()
}

/// Splits `text` into lines of at most `width` characters at spaces (long words are cut).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if needed > width && !line.is_empty() {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            let rest: String = line.chars().skip(width).collect();
            out.push(head);
            line = rest;
        }
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap_words;

    #[test]
    fn wraps_at_spaces_and_cuts_long_words() {
        assert_eq!(
            wrap_words("zwc has no such name (neither a zwc nor a NumPy name)", 20),
            vec![
                "zwc has no such name",
                "(neither a zwc nor a",
                "NumPy name)"
            ]
        );
        assert_eq!(
            wrap_words("abcdefghijklmnopqrstuvwxyz", 10),
            vec!["abcdefghij", "klmnopqrst", "uvwxyz"]
        );
    }
}
