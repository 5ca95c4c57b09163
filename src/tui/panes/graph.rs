//! The Graph pane: which function calls which, down to the zwc calls, with their NumPy names.

use ratatui::text::{Line, Span};

use super::PaneContent;
use crate::tui::app::App;
use crate::tui::entry::Entry;
use crate::tui::graph_view::draw_graph;

/// The Graph pane of `entry`: the dependency graph drawn as boxes and arrows, or (after
/// `5` again) as a list by layer with the call tree.
pub fn render(app: &App, entry: &Entry, width: u16) -> PaneContent {
    let theme = &app.theme;
    if !app.graph_list {
        let mut lines = vec![Line::from(vec![
            Span::styled("Dependency graph", theme.heading),
            Span::styled("  (5 again: as a list · < > scroll sideways)", theme.dim),
        ])];
        match app.selected_analysis() {
            Some(a) => lines.extend(draw_graph(&a.code.graph, theme).lines()),
            None => lines.push(Line::styled("analysing…", theme.dim)),
        }
        return PaneContent::scrolling(lines, false);
    }
    let mut lines = Vec::new();
    if let Some(a) = app.selected_analysis() {
        lines.push(Line::styled(
            "Dependency graph (values flowing to the return)",
            theme.heading,
        ));
        for l in a.code.graph.render_text(width as usize).lines() {
            let style = if l.starts_with("entry ") || l.starts_with("helper ") {
                theme.title
            } else if l.trim_start().starts_with('─') {
                theme.dim
            } else {
                ratatui::style::Style::default()
            };
            lines.push(Line::styled(l.to_string(), style));
        }
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled(
        "Call tree (entry = the function the grader calls)",
        theme.heading,
    ));
    let graph = entry.insight.graph_lines(&app.ctx.api);
    if graph.is_empty() {
        lines.push(Line::styled("(no functions or zwc calls)", theme.dim));
    }
    let bad: Vec<&str> = entry
        .insight
        .findings
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    for g in graph {
        // Mark calls that a finding is about, so hallucinated names stand out here too.
        let style = if bad
            .iter()
            .any(|b| !b.is_empty() && g.contains(&format!("{b} ‹")))
        {
            theme.error
        } else if g.contains('‹') {
            ratatui::style::Style::default()
        } else {
            theme.title
        };
        let (tree, label): (String, String) = {
            let split = g
                .char_indices()
                .find(|(_, c)| !"│├└─ ".contains(*c))
                .map_or(g.len(), |(i, _)| i);
            (g[..split].to_string(), g[split..].to_string())
        };
        lines.push(Line::from(vec![
            Span::styled(tree, theme.border),
            Span::styled(label, style),
        ]));
    }
    PaneContent::scrolling(lines, false)
}
