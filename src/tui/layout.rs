//! Screen geometry, pure so that clicks are mapped with the same geometry that was drawn:
//! where the list, the detail pane and the status bar go, where each tab sits, and where
//! a popup goes; and fitting a text to a column.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Borders};

use super::state::Pane;

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

/// Horizontal extent of each tab label in the detail frame's top border.
pub fn tab_positions(detail: Rect) -> Vec<(Pane, u16, u16)> {
    let mut x = detail.x + 1;
    let mut out = Vec::new();
    for (n, pane) in Pane::ALL.iter().enumerate() {
        let w = tab_label(n, *pane).chars().count() as u16;
        out.push((*pane, x, x + w));
        x += w + 1;
    }
    out
}

pub fn tab_label(n: usize, pane: Pane) -> String {
    format!(" {} {} ", n + 1, pane.title())
}

/// The pane whose tab is at a screen cell.
pub fn tab_at(detail: Rect, column: u16, row: u16) -> Option<Pane> {
    if row != detail.y {
        return None;
    }
    tab_positions(detail)
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

/// `n` with its thousands grouped (`1,680`).
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

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
}
