//! The Task pane: the query, the signature, the selected functions with their zwc names,
//! the NumPy reference solution, and this task's rollouts in every run.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{PaneContent, styled_or_plain};
use crate::tui::component::DrawCx;
use crate::tui::entry::Entry;
use crate::tui::jobs::HighlightKind;
use crate::tui::state::DetailView;

/// Most rollouts of the same task listed.
const SAME_TASK_SHOWN: usize = 12;

/// The Task pane of `entry`.
pub fn render(d: &DetailView, cx: &DrawCx<'_>, entry: &Entry) -> PaneContent {
    let theme = cx.theme;
    let api = &cx.corpus.ctx.api;
    let item = cx.corpus.dataset_item(entry);
    let mut lines = vec![Line::styled("Query", theme.heading)];
    for l in entry.rollout.query.lines() {
        lines.push(Line::raw(l.to_string()));
    }
    lines.push(Line::raw(""));
    if let Some(item) = item
        && !item.function_name.is_empty()
    {
        lines.push(Line::from(vec![
            Span::styled("Signature  ", theme.heading),
            Span::styled(item.function_name.clone(), theme.inline_code),
        ]));
    }
    let selected: Vec<String> = match item {
        Some(i) if !i.selected_functions.is_empty() => i.selected_functions.clone(),
        _ => entry.rollout.selected_functions.to_vec(),
    };
    if !selected.is_empty() {
        lines.push(Line::styled("Functions", theme.heading));
        for name in &selected {
            let (np, zwc) = match api.selected_function(name) {
                Some((np, zwc)) => (np, zwc),
                None => (format!("np.{name}"), "(not in the API doc)"),
            };
            lines.push(Line::from(vec![
                Span::raw(format!("  {np}")),
                Span::styled(" → ", theme.dim),
                Span::styled(zwc.to_string(), theme.inline_code),
            ]));
        }
    }
    match item {
        Some(item) if !item.reference.is_empty() => {
            lines.push(Line::raw(""));
            lines.push(Line::styled("NumPy reference solution", theme.heading));
            let text = item.reference.join("\n\n# ---\n\n");
            let h = d.highlighted(cx.list.selected, HighlightKind::Reference);
            for (k, l) in text.lines().enumerate() {
                let styled = h.and_then(|h| h.lines.get(k)).and_then(Option::as_ref);
                lines.push(Line::from(styled_or_plain(styled, l, Style::default())));
            }
        }
        Some(_) => {}
        None => {
            lines.push(Line::styled(
                "No dataset item for this query (pass --dataset FILE to join tasks).",
                theme.dim,
            ));
        }
    }
    // The same task in every run: ] jumps to the next one, t filters to them.
    let same: Vec<usize> = cx
        .corpus
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.task == entry.task)
        .map(|(i, _)| i)
        .collect();
    if same.len() > 1 {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!(
                "This task has {} rollouts{}",
                same.len(),
                if d.paper {
                    ""
                } else {
                    " (] next run, t only these)"
                }
            ),
            theme.heading,
        ));
        for i in same.iter().take(SAME_TASK_SHOWN) {
            let e = &cx.corpus.entries[*i];
            let shown = cx.corpus.shown(*i);
            let run = cx.corpus.runs.get(e.run).map_or("", |r| r.name.as_str());
            let marker = if cx.list.selected == Some(*i) {
                "▶"
            } else {
                " "
            };
            lines.push(Line::from(vec![
                Span::raw(format!("{marker} ")),
                Span::styled(
                    format!("{} {:<12}", shown.symbol(), shown.label()),
                    theme.shown(shown),
                ),
                Span::styled(format!(" {run}:{}", e.rollout.line), theme.dim),
            ]));
        }
    }
    PaneContent::scrolling(lines, true)
}
