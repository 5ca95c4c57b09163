//! The Graph pane: the analysis's dependency graph, down to the zwc calls with their NumPy names.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::PaneContent;
use crate::analysis::Severity;
use crate::analysis::graph_render::RowShows;
use crate::tui::component::DrawCx;
use crate::tui::state::DetailView;

/// The Graph pane: the selected row's dependency graph drawn as boxes and arrows, or (after
/// `5` again) as a list by layer.
pub fn render(d: &DetailView, cx: &DrawCx<'_>, width: u16) -> PaneContent {
    let theme = cx.theme;
    if !d.graph_list {
        let mut head = vec![Span::styled("Dependency graph", theme.heading)];
        if !d.paper {
            head.push(Span::styled(
                "  (5 again: as a list · < > scroll sideways)",
                theme.dim,
            ));
        }
        let mut lines = vec![Line::from(head)];
        // Laid out once per row (`GraphCache`), not on every frame.
        match (cx.list.selected, d.analysis(cx.list.selected)) {
            (Some(row), Some(a)) => {
                lines.extend(d.held.graphs.lines(row, a, theme).iter().cloned());
            }
            _ => lines.push(Line::styled("analysing…", theme.dim)),
        }
        return PaneContent::scrolling(lines, false);
    }
    let mut lines = vec![Line::styled(
        "Dependency graph (values flowing to the return)",
        theme.heading,
    )];
    let Some(a) = d.analysis(cx.list.selected).map(|a| &**a) else {
        lines.push(Line::styled("analysing…", theme.dim));
        return PaneContent::scrolling(lines, false);
    };
    let graph = &a.code.graph;
    for row in graph.text_rows(width as usize) {
        let style = match row.shows {
            RowShows::Function { .. } => theme.title,
            RowShows::Layer(_) | RowShows::Nothing => theme.dim,
            // A call that an error finding is about (a hallucinated name) stands out here too.
            RowShows::Node(id) => match graph.nodes.get(id) {
                Some(n)
                    if a.code.findings.iter().any(|f| {
                        f.severity == Severity::Error && f.line == n.line && f.col == n.col
                    }) =>
                {
                    theme.error
                }
                _ => Style::default(),
            },
        };
        lines.push(Line::styled(row.text, style));
    }
    PaneContent::scrolling(lines, false)
}
