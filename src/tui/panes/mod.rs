//! One file per detail pane. Each turns the selected rollout into lines; the detail pane
//! (`detail`, a component) frames and scrolls them.

pub mod cases;
pub mod code;
pub mod detail;
pub mod graph;
pub mod labels;
pub mod list;
pub mod output;
pub mod raw;
pub mod response;
pub mod task;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::component::DrawCx;
use super::entry::Entry;
use super::highlight::StyledLine;
pub(crate) use super::layout::{wrap_hanging, wrap_words};
use super::state::DetailView;
use super::state::Pane;

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

/// The pane `d` shows, its content for `entry`, for a pane `width` cells wide.
pub fn render(d: &DetailView, cx: &DrawCx<'_>, entry: &Entry, width: u16) -> PaneContent {
    match d.pane {
        Pane::Response if d.raw_line => raw::render(d, cx, entry, width),
        Pane::Response => response::render(d, cx, entry, width),
        Pane::Code => code::render(d, cx, entry, width),
        Pane::Cases => cases::render(d, cx, entry, width),
        Pane::Output => output::render(d, cx, entry),
        Pane::Graph => graph::render(d, cx, width),
        Pane::Task => task::render(d, cx, entry),
    }
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
