//! Screen geometry, pure so that clicks are mapped with the same geometry that was drawn:
//! where the list, the detail pane and the status bar go, where each tab sits, and where
//! a popup goes; fitting a text to a column, wrapping it to a width, and the box a popup is
//! drawn in.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::action::{Action, Keymap, Scope};
use super::state::Pane;
use super::theme::Theme;

/// Where things go on the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The list's frame.
    pub list: Rect,
    /// The list's rows (below the column header).
    pub list_body: Rect,
    /// Number of list rows that fit.
    pub list_rows: u16,
    /// The detail pane's frame (tabs in its top border).
    pub detail: Rect,
    pub status: Rect,
}

/// Side by side from this width on; stacked below it.
const WIDE: u16 = 150;

/// Splits the screen. Pure, so clicks are mapped with the same geometry that was drawn.
pub fn layout(area: Rect) -> Areas {
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let (list, detail) = if area.width >= WIDE {
        let [l, d] = Layout::horizontal([Constraint::Percentage(48), Constraint::Percentage(52)])
            .areas(main);
        (l, d)
    } else {
        let list_h = (main.height * 2 / 5).max(6).min(main.height);
        let [l, d] = Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(main);
        (l, d)
    };
    let inner = Block::default().borders(Borders::ALL).inner(list);
    let list_body = Rect {
        y: inner.y.saturating_add(1).min(inner.bottom()),
        height: inner.height.saturating_sub(1),
        ..inner
    };
    Areas {
        list,
        list_body,
        list_rows: list_body.height,
        detail,
        status,
    }
}

/// Horizontal extent of each tab label in the detail frame's top border, as `keys` label
/// the tabs.
pub fn tab_positions(detail: Rect, keys: &Keymap) -> Vec<(Pane, u16, u16)> {
    let mut x = detail.x + 1;
    let mut out = Vec::new();
    for (pane, label) in Pane::ALL.into_iter().zip(tab_labels(keys, detail.width)) {
        let w = label.chars().count() as u16;
        out.push((pane, x, x + w));
        x += w + 1;
    }
    out
}

/// The panes' tabs in a frame `width` wide: each pane's key in `keys` (none when nothing
/// shows it) and its title; where they do not fit, the titles alone, then the titles cut
/// with a `…` (the keys are in the help).
pub fn tab_labels(keys: &Keymap, width: u16) -> Vec<String> {
    let room = usize::from(width).saturating_sub(2);
    let fits = |labels: &[String]| {
        labels.iter().map(|l| l.chars().count()).sum::<usize>() + labels.len() - 1 <= room
    };
    let keyed: Vec<String> = Pane::ALL
        .into_iter()
        .map(|pane| match keys.key_in(Scope::Main, pane_action(pane)) {
            Some(key) => format!(" {key} {} ", pane.title()),
            None => format!(" {} ", pane.title()),
        })
        .collect();
    if fits(&keyed) {
        return keyed;
    }
    let titles: Vec<String> = Pane::ALL
        .into_iter()
        .map(|pane| format!(" {} ", pane.title()))
        .collect();
    if fits(&titles) {
        return titles;
    }
    // Each title cut to an equal share of the room (at least its first letter and `…`).
    let share = (room + 1) / Pane::ALL.len();
    Pane::ALL
        .into_iter()
        .map(|pane| fit(pane.title(), share.saturating_sub(1).max(2)))
        .collect()
}

/// The action that shows `pane`.
pub fn pane_action(pane: Pane) -> Action {
    match pane {
        Pane::Response => Action::PaneResponse,
        Pane::Code => Action::PaneCode,
        Pane::Cases => Action::PaneCases,
        Pane::Output => Action::PaneOutput,
        Pane::Graph => Action::PaneGraph,
        Pane::Task => Action::PaneTask,
    }
}

/// The pane whose tab is at a screen cell.
pub fn tab_at(detail: Rect, keys: &Keymap, column: u16, row: u16) -> Option<Pane> {
    if row != detail.y {
        return None;
    }
    tab_positions(detail, keys)
        .into_iter()
        .find(|(_, a, b)| column >= *a && column < *b)
        .map(|(p, _, _)| p)
}

/// The inside of the detail pane's frame.
pub fn detail_inner(detail: Rect) -> Rect {
    Block::default().borders(Borders::ALL).inner(detail)
}

/// A `width` x `height` rectangle centred in `area` (clipped to it).
pub fn popup_area(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// `n` with its thousands grouped (`1,680`): the session's, which label figures use.
pub use crate::session::label_progress::thousands;

/// `text` padded with spaces to `width` characters, or cut to it with a closing `…`.
pub fn fit(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        let mut s = text.to_string();
        s.extend(std::iter::repeat_n(' ', width - count));
        s
    } else if width == 0 {
        String::new()
    } else {
        let mut s: String = text.chars().take(width - 1).collect();
        s.push('…');
        s
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

/// The focused box a screen (filled with `theme.base`) or a popup (`theme.popup`) is drawn
/// in, `width` columns wide, titled `title` in the title style: a title longer than the
/// box's top edge is cut with a `…`, never silently (a box's title says its keys).
pub fn titled_box(
    theme: &Theme,
    title: String,
    fill: ratatui::style::Style,
    width: u16,
) -> Block<'static> {
    let room = usize::from(width.saturating_sub(2));
    let title = if title.chars().count() > room {
        fit(&title, room)
    } else {
        title
    };
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(title, theme.title))
        .style(fill)
}

/// A popup's box of `width` over `area`, scrolled to keep the `focus` line in view (else as
/// far as the popup is scrolled).
#[allow(clippy::too_many_arguments)]
pub fn popup_box(
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    popup_scroll: u16,
    title: String,
    lines: Vec<Line<'static>>,
    width: u16,
    focus: Option<u16>,
) {
    let height = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let popup_rect = popup_area(area, width, height);
    // Keep the highlighted disagreement in view.
    let inner_height = height.saturating_sub(2).max(1);
    let scroll = match focus {
        Some(line) if line >= inner_height => line + 1 - inner_height,
        Some(_) => 0,
        None => popup_scroll,
    };
    frame.render_widget(Clear, popup_rect);
    let block = titled_box(theme, title, theme.popup, popup_rect.width);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        popup_rect,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_pads_or_cuts_to_the_width_in_characters() {
        assert_eq!(fit("ab", 4), "ab  ");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("éèê", 3), "éèê");
        assert_eq!(fit("abc", 0), "");
    }

    #[test]
    fn tabs_keep_their_keys_then_their_titles_then_cut_titles_with_a_mark() {
        let keys = Keymap::default();
        let width = |labels: &[String]| {
            labels.iter().map(|l| l.chars().count()).sum::<usize>() + labels.len() - 1
        };
        let wide = tab_labels(&keys, 80);
        assert_eq!(wide[0], " 1 Response ");
        assert!(width(&wide) <= 78);
        let titles = tab_labels(&keys, 60);
        assert_eq!(titles[1], " Code ");
        assert!(width(&titles) <= 58, "{titles:?}");
        let cut = tab_labels(&keys, 30);
        assert!(cut[0].ends_with('…'), "{cut:?}");
        assert!(width(&cut) <= 28, "{cut:?}");
        // Clicks find the tabs where they are drawn.
        let at = tab_positions(Rect::new(0, 0, 60, 10), &keys);
        assert_eq!(at[1], (Pane::Code, 1 + 10 + 1, 1 + 10 + 1 + 6));
    }
}
