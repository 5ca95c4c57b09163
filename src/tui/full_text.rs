//! The selected row's whole text, one key away (`full_text`, `enter` by default): the list
//! cuts its cells with a `…` to fit (run names, the task, the functions, the label), and
//! this popup shows each of them whole and wrapped, with the file and line the row comes
//! from, so nothing on the list is cut without the full text being reachable. On the Cases
//! pane, whose table cuts a case's input, expected and printed values with a `…` (and whose
//! case detail runs off the pane's right edge), it shows the case under the cursor whole
//! too, first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::action::Action;
use super::component::{Component, DrawCx};
use super::layout::{popup_area, titled_box, wrap_words};
use super::state::{CaseText, Popup};

/// The popup of the selected row's whole text (stateless: it reads the row at draw time).
pub struct FullTextPopup;

impl CaseText {
    /// Its parts whole, named as the pane's columns.
    fn cells(&self) -> Vec<(String, String)> {
        let state = match self.matched {
            Some(true) => " ✓ matched",
            Some(false) => " ✗ did not match",
            None => " not graded",
        };
        let mut cells = vec![
            (
                format!("case {} of {}{state}: input", self.number, self.count),
                self.input.clone(),
            ),
            ("expected".to_string(), self.expected.clone()),
        ];
        match (&self.actual, self.matched) {
            (Some(a), _) => cells.push(("actual".to_string(), a.clone())),
            (None, Some(_)) => cells.push((
                "actual".to_string(),
                "(no printed piece at this index)".to_string(),
            )),
            (None, None) => {}
        }
        cells
    }
}

impl Component for FullTextPopup {
    fn draw_popup(&self, popup: Popup, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        if popup == Popup::FullText {
            draw(frame, area, cx);
        }
    }
}

/// Each cell of row `i` whole, named: what the list shows cut to its columns.
pub fn row_cells(cx: &DrawCx<'_>, i: usize) -> Vec<(&'static str, String)> {
    let corpus = cx.corpus;
    let Some(e) = corpus.entries.get(i) else {
        return Vec::new();
    };
    let mut cells = Vec::new();
    let run = corpus.runs.get(e.run).map_or("", |r| r.name.as_str());
    cells.push(("run", run.to_string()));
    cells.push((
        "file",
        format!("{}, line {}", e.rollout.source.display(), e.rollout.line),
    ));
    let shown = corpus.shown(i);
    let mut verdict = shown.label().to_string();
    if corpus.is_fragile(i) {
        verdict.push_str(" (≈ could differ on another machine or grader run)");
    }
    cells.push(("verdict", verdict));
    if let Some(reward) = corpus.facts(i).and_then(|f| f.reward) {
        let differs = if corpus.reward_disagrees(i) {
            " (differs from the verdict)"
        } else {
            ""
        };
        cells.push(("RL reward", format!("{reward}{differs}")));
    }
    let task = corpus
        .tasks
        .get(e.task)
        .map_or(e.rollout.query.as_ref(), |t| t.query.as_str());
    cells.push(("task", task.to_string()));
    let functions = corpus.functions(i);
    if !functions.is_empty() {
        cells.push(("functions", functions.join(", ")));
    }
    if let Some((categories, note)) = cx.labels.label_text(e) {
        if !categories.is_empty() {
            cells.push(("label", categories));
        }
        if !note.is_empty() {
            cells.push(("note", note));
        }
    }
    cells
}

/// The cells as lines of at most `width` characters: each name on a line of its own, its
/// text under it, wrapped (a text's own line breaks kept).
pub fn row_lines(cx: &DrawCx<'_>, i: usize, width: usize) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let mut lines = Vec::new();
    // The case under the Cases pane's cursor first: what that pane cuts.
    let case = cx.case.iter().flat_map(CaseText::cells);
    let row = row_cells(cx, i)
        .into_iter()
        .map(|(name, text)| (name.to_string(), text));
    for (name, text) in case.chain(row) {
        lines.push(Line::styled(name, theme.column_header));
        for line in text.lines() {
            if line.trim().is_empty() {
                lines.push(Line::raw(""));
            }
            for part in wrap_words(line, width.saturating_sub(2)) {
                lines.push(Line::from(Span::raw(format!("  {part}"))));
            }
        }
    }
    lines
}

fn draw(frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    let Some(row) = cx.list.selected else {
        return;
    };
    let width = area.width.saturating_sub(4).min(100);
    let lines = row_lines(cx, row, usize::from(width.saturating_sub(2)));
    // As tall as the text, at most the screen (it scrolls beyond).
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let popup = popup_area(area, width, height.min(area.height.saturating_sub(2)));
    let line = cx.corpus.entries.get(row).map_or(0, |e| e.rollout.line);
    let case = cx
        .case
        .as_ref()
        .map_or(String::new(), |c| format!(", case {}", c.number));
    let title = format!(
        " line {line}{case}, whole{} ",
        cx.keys.aside(Action::Cancel, "closes")
    );
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(titled_box(cx.theme, title, cx.theme.popup, popup.width))
            .scroll((cx.popup_scroll, 0)),
        popup,
    );
}
