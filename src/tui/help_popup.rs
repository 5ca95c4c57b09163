//! The help popup: every key of the keymap in force with what it does, wrapped to the
//! screen, and how far it scrolls (drawn by `ui`, which owns the rest of the screen).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::action::{Action, Scope};
use super::app::App;
use super::layout::{fit, popup_area};

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
fn help_lines(app: &App, area: Rect) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let rows = app.keymap.help_rows();
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
        super::textbox::keys_help(&app.keymap),
        format!(
            "Theme: {} · keys (\"x\" = \"action_name\" under [keys]; a screen's own under [keys.stats], [keys.compare], [keys.training], [keys.present], a popup's under [keys.popup]: their titles show them) and theme in sebx/config.toml",
            theme.name
        ),
    ];
    // Each note once (a note can be added by two steps of the start-up).
    for note in &app.corpus.ctx.notes {
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
fn help_max_scroll(app: &App, size: (u16, u16)) -> u16 {
    let area = Rect::new(0, 0, size.0, size.1);
    let inner = help_area(area).height.saturating_sub(2);
    let n = help_lines(app, area).len();
    u16::try_from(n.saturating_sub(usize::from(inner))).unwrap_or(u16::MAX)
}

pub(crate) fn draw_help(frame: &mut Frame, app: &App, area: Rect) {
    let theme = &app.theme;
    let lines = help_lines(app, area);
    let popup = help_area(area);
    let max = help_max_scroll(app, (area.width, area.height));
    app.help_scroll_max.set(max);
    frame.render_widget(Clear, popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(
            format!(
                " Help — keys ({}) ",
                app.keymap.hint(
                    Scope::Main,
                    &[
                        (&[Action::Up, Action::Down], "scroll"),
                        (&[Action::Cancel], "closes")
                    ]
                )
            ),
            theme.title,
        ))
        .style(theme.popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((app.popup_scroll.min(max), 0)),
        popup,
    );
}
