//! The help popup (every key of the keymap in force with what it does, wrapped to the
//! screen, and how far it scrolls) and the issues popup (the lines that could not be
//! loaded): the two popups of the explorer itself, each a [`Component`] that draws it (`App`
//! scrolls and closes them).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::action::{Action, Scope};
use std::cell::Cell;

use ratatui::widgets::Wrap;

use super::component::{Component, DrawCx};
use super::layout::{fit, popup_area, titled_box};
use super::state::Popup;

/// The help popup: how far it can scroll, as the last frame drew it (drawing records it).
pub struct HelpPopup {
    pub scroll_max: Cell<u16>,
}

impl Default for HelpPopup {
    fn default() -> HelpPopup {
        HelpPopup {
            scroll_max: Cell::new(u16::MAX),
        }
    }
}

impl Component for HelpPopup {
    fn draw_popup(&self, popup: Popup, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        if popup == Popup::Help {
            draw_help(self, frame, area, cx);
        }
    }
}

/// The lines that could not be loaded (`corpus.issues`).
pub struct IssuesPopup;

impl Component for IssuesPopup {
    fn draw_popup(&self, popup: Popup, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        if popup == Popup::Issues {
            draw_issues(frame, area, cx);
        }
    }
}

/// The help popup's area on a screen `area`.
fn help_area(area: Rect) -> Rect {
    popup_area(area, 100, area.height.saturating_sub(2))
}

/// `text` cut into lines of at most `width` characters at spaces, each after `indent`.
fn wrap_words(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push(format!("{indent}{line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(format!("{indent}{line}"));
    }
    out
}

/// The help popup's lines for a screen `area` (its keys, the legend, the notes wrapped to
/// the popup).
fn help_lines(cx: &DrawCx<'_>, area: Rect) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let rows = cx.keys.help_rows();
    // Narrow screens (80 columns) keep the descriptions readable.
    let key_cap = if area.width < 100 { 14 } else { 26 };
    let key_w = rows
        .iter()
        .map(|(k, _, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        .min(key_cap);
    let popup = help_area(area);
    // Wide enough: also the name to use in the config's [keys] table.
    let show_names = popup.width >= 96;
    let mut lines: Vec<Line> = rows
        .iter()
        .map(|(keys, desc, action)| {
            let mut spans = vec![
                Span::styled(format!(" {} ", fit(keys, key_w)), theme.status_key),
                Span::raw(format!("  {}", fit(desc, 52))),
            ];
            if show_names {
                spans.push(Span::styled(action.config_name(), theme.dim));
            }
            Line::from(spans)
        })
        .collect();
    lines.push(Line::raw(""));
    let text_width = usize::from(popup.width.saturating_sub(3)).max(20);
    let mut prose = vec![
        "✓ right  ✗ result_error  ! exe_error  N use_numpy  Z without_zwc  · unscored  … grading"
            .to_string(),
        "RL official RL reward 1/0 · ≠ disagrees with the verdict · ≈ fragile verdict".to_string(),
        "⚑ number of findings · functions: dim a real zwc call, amber a NumPy name on zwc, red an invented name · • labelled by you · ★ bookmarked".to_string(),
        super::textbox::keys_help(cx.keys),
        format!(
            "Theme: {} · keys (\"x\" = \"action_name\" under [keys]; a screen's own under [keys.stats], [keys.compare], [keys.training], [keys.present], a popup's under [keys.popup]: their titles show them) and theme in sebx/config.toml",
            theme.name
        ),
    ];
    // Each note once (a note can be added by two steps of the start-up).
    for note in &cx.corpus.ctx.notes {
        if !prose.contains(note) {
            prose.push(note.clone());
        }
    }
    for text in prose {
        for l in wrap_words(&text, text_width, " ") {
            lines.push(Line::styled(l, theme.dim));
        }
    }
    lines
}

/// How far the help popup scrolls on a `size` screen: its last line at the bottom.
fn help_max_scroll(cx: &DrawCx<'_>, size: (u16, u16)) -> u16 {
    let area = Rect::new(0, 0, size.0, size.1);
    let inner = help_area(area).height.saturating_sub(2);
    let n = help_lines(cx, area).len();
    u16::try_from(n.saturating_sub(usize::from(inner))).unwrap_or(u16::MAX)
}

fn draw_help(help: &HelpPopup, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    let theme = cx.theme;
    let lines = help_lines(cx, area);
    let popup = help_area(area);
    let max = help_max_scroll(cx, (area.width, area.height));
    help.scroll_max.set(max);
    frame.render_widget(Clear, popup);
    let title = format!(
        " Help — keys ({}) ",
        cx.keys.hint(
            Scope::Main,
            &[
                (&[Action::Up, Action::Down], "scroll"),
                (&[Action::Cancel], "closes")
            ]
        )
    );
    let block = titled_box(theme, title, theme.popup, popup.width);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((cx.popup_scroll.min(max), 0)),
        popup,
    );
}

fn draw_issues(frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    let theme = cx.theme;
    let mut lines: Vec<Line> = Vec::new();
    if cx.corpus.issues.is_empty() {
        lines.push(Line::styled("every line loaded", theme.dim));
    }
    for issue in &cx.corpus.issues {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{}:{}", issue.source.display(), issue.line),
                theme.verdict_failed,
            ),
            Span::raw(format!("  {}", issue.reason)),
        ]));
    }
    let popup = popup_area(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(4),
    );
    frame.render_widget(Clear, popup);
    let title = format!(
        " {} lines could not be loaded{} ",
        cx.corpus.issues.len(),
        cx.keys.aside(Action::Cancel, "closes")
    );
    let block = titled_box(theme, title, theme.popup, popup.width);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((cx.popup_scroll, 0)),
        popup,
    );
}
