//! Drawing reruns' popup: the offer to install the Python runtime, and its progress.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::super::action::{Action, Scope};
use super::super::component::DrawCx;
use super::super::layout::popup_box;
use super::Reruns;

/// Draws reruns' popup: the runtime install offer and its progress.
pub fn draw_runtime_popup(reruns: &Reruns, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    let lines = runtime_lines(reruns, cx);
    popup_box(
        frame,
        area,
        cx.theme,
        cx.popup_scroll,
        " Python runtime ".to_string(),
        lines,
        80,
        None,
    );
}

fn runtime_lines(reruns: &Reruns, cx: &DrawCx<'_>) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let install = &reruns.install;
    let mut lines = Vec::new();
    if !install.running && install.outcome.is_none() {
        lines.push(Line::raw(
            "Grading needs Python 3.11 with NumPy 2.3.0, and it is not installed.",
        ));
        lines.push(Line::raw(
            "sebx can create it now (a venv in its cache folder; pip needs the network).",
        ));
        lines.push(Line::raw(""));
        let mut keys = Vec::new();
        for (key, what) in [
            (
                cx.keys.key_in(Scope::Popup, Action::InstallRuntime),
                " install now    ",
            ),
            (cx.keys.key_in(Scope::Main, Action::Cancel), " not now"),
        ] {
            if let Some(k) = key {
                keys.push(Span::styled(format!(" {k} "), theme.status_key));
                keys.push(Span::raw(what));
            }
        }
        lines.push(Line::from(keys));
        return lines;
    }
    for step in &install.lines {
        lines.push(Line::raw(format!("· {step}")));
    }
    if install.running {
        lines.push(Line::styled(
            format!("{} working…", reruns.spinner_frame()),
            theme.progress,
        ));
    }
    match &install.outcome {
        Some(Ok(python)) => lines.push(Line::styled(
            format!(
                "installed: {python}{}; restart sebx to grade the list",
                cx.keys
                    .says(Action::Rerun, "reruns now")
                    .map_or(String::new(), |s| format!(" — {s}"))
            ),
            theme.verdict_right,
        )),
        Some(Err(e)) => lines.push(Line::styled(format!("failed: {e}"), theme.error)),
        None => {}
    }
    lines
}
