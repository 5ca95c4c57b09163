//! Drawing labelling's popups: the category picker and the agreement between annotators
//! (`Labelling` draws them as the [`Component`](super::super::component::Component) that
//! owns them; `actions` answers their keys).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::super::action::{Action, Keymap, Scope};
use super::super::component::DrawCx;
use super::super::layout::popup_box;
use super::super::state::Popup;
use super::Labelling;

/// Draws labelling's popups: the category picker and the agreement view.
pub fn draw_label_popup(
    l: &Labelling,
    popup: Popup,
    frame: &mut Frame,
    area: Rect,
    cx: &DrawCx<'_>,
) {
    match popup {
        Popup::CategoryPicker => popup_box(
            frame,
            area,
            cx.theme,
            cx.popup_scroll,
            format!(
                " Categories ({}) ",
                popup_hint(cx.keys, "toggles", &[(&[Action::Cancel], "closes")])
            ),
            picker_lines(
                l,
                cx,
                usize::from(PICKER_WIDTH.min(area.width)).saturating_sub(2),
            ),
            PICKER_WIDTH,
            None,
        ),
        Popup::Agreement => {
            let (title, lines, width, focus) = agreement_popup(l, cx);
            popup_box(
                frame,
                area,
                cx.theme,
                cx.popup_scroll,
                title,
                lines,
                width,
                focus,
            );
        }
        _ => {}
    }
}

/// Width of the category picker, at most (the screen's, when narrower).
const PICKER_WIDTH: u16 = 90;

/// The picker's lines, wrapped to its `inner` width (descriptions hang under themselves).
fn picker_lines(l: &Labelling, cx: &DrawCx<'_>, inner: usize) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let saved = cx
        .list
        .selected
        .and_then(|i| cx.corpus.entries.get(i))
        .and_then(|e| l.saved(e.run, &e.rollout.id));
    l.taxonomy
        .categories
        .iter()
        .enumerate()
        .flat_map(|(k, c)| {
            let on = saved.is_some_and(|s| s.categories.contains(&c.id));
            let count = l.progress.per_category.get(&c.id).copied().unwrap_or(0);
            let head = vec![
                Span::styled(format!(" {} ", c.key.map_or(' ', |k| k)), theme.status_key),
                Span::raw(format!(
                    " {} {:<26} {count:>4}  ",
                    if on { "✓" } else { " " },
                    c.label
                )),
            ];
            // A long description continues under itself, not under the key.
            let hang_w: usize = head.iter().map(|s| s.content.chars().count()).sum();
            let mut spans = head;
            spans.push(Span::styled(c.description.clone(), theme.dim));
            let hang = [Span::raw(" ".repeat(hang_w))];
            super::super::layout::wrap_hanging(spans, inner, &hang)
                .into_iter()
                .map(move |line| {
                    if k == l.picker_cursor {
                        line.patch_style(theme.selected)
                    } else {
                        line
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn kappa(k: Option<f64>) -> String {
    // Rounded first, and `+ 0.0` turns -0.0 into 0.0: float noise must not show as "-0.00".
    k.map_or("  n/a".to_string(), |k| {
        format!("{:>5.2}", (k * 100.0).round() / 100.0 + 0.0)
    })
}

fn agreement_popup(
    l: &Labelling,
    cx: &DrawCx<'_>,
) -> (String, Vec<Line<'static>>, u16, Option<u16>) {
    let theme = cx.theme;
    let Some(a) = l.agreement() else {
        return (
            " Agreement ".to_string(),
            vec![Line::raw("only one annotator has labels")],
            60,
            None,
        );
    };
    let mut lines = vec![
        Line::raw(format!(
            "{} rollouts labelled by both · only {}: {} · only {}: {}",
            a.compared, a.annotator_a, a.only_labelled_by_a, a.annotator_b, a.only_labelled_by_b
        )),
        Line::from(vec![
            Span::styled("overall κ ", theme.title),
            Span::styled(kappa(a.mean_kappa), theme.title),
            Span::styled(
                format!(
                    "  (mean over categories) · identical label sets {}",
                    a.exact_set_agreement
                        .map_or("n/a".to_string(), |x| format!("{:.0}%", x * 100.0))
                ),
                theme.dim,
            ),
        ]),
        Line::styled(
            format!(
                "{:<26} {:>5} {:>6} {:>6} {:>7} {:>5}",
                "category", "both", "only a", "only b", "neither", "κ"
            ),
            theme.column_header,
        ),
    ];
    for c in &a.per_category {
        if c.both + c.only_a + c.only_b == 0 {
            continue;
        }
        let label = l
            .taxonomy
            .get(&c.category)
            .map_or(c.category.0.clone(), |k| k.label.clone());
        lines.push(Line::raw(format!(
            "{:<26} {:>5} {:>6} {:>6} {:>7} {}",
            label.chars().take(26).collect::<String>(),
            c.both,
            c.only_a,
            c.only_b,
            c.neither,
            kappa(c.kappa)
        )));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("{} disagreements to resolve:", a.disagreements.len()),
        theme.title,
    ));
    let names = |ids: &[crate::model::taxonomy::CategoryId]| -> String {
        if ids.is_empty() {
            return "(none)".to_string();
        }
        ids.iter()
            .map(|c| l.taxonomy.get(c).map_or(c.0.clone(), |k| k.label.clone()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cursor = l
        .agreement_cursor
        .min(a.disagreements.len().saturating_sub(1));
    let mut focus = None;
    for (k, d) in a.disagreements.iter().enumerate() {
        let place = cx
            .corpus
            .entries
            .iter()
            .find(|e| e.rollout.id == d.rollout)
            .map(|e| {
                let run = cx.corpus.runs.get(e.run).map_or("", |r| r.name.as_str());
                format!("{run}:{}", e.rollout.line)
            })
            .unwrap_or_else(|| d.rollout.0.clone());
        let line = Line::from(vec![
            Span::styled(format!(" {place:<18}"), theme.dim),
            Span::raw(format!("{}: {}", a.annotator_a, names(&d.categories_a))),
            Span::styled("  |  ", theme.dim),
            Span::raw(format!("{}: {}", a.annotator_b, names(&d.categories_b))),
        ]);
        if k == cursor {
            focus = Some(lines.len() as u16);
            lines.push(line.patch_style(theme.selected));
        } else {
            lines.push(line);
        }
    }
    (
        format!(
            " Agreement: {} vs {} ({}) ",
            a.annotator_a,
            a.annotator_b,
            popup_hint(
                cx.keys,
                "opens a disagreement",
                &[
                    (&[Action::NextPane], "another annotator"),
                    (&[Action::Cancel], "closes")
                ]
            )
        ),
        lines,
        100,
        focus,
    )
}

/// A popup's key hints from the keymap: `↑↓` moves, the popup's choose key does `choose`,
/// then `rest` (keys of the list that the popup answers).
fn popup_hint(keys: &Keymap, choose: &str, rest: &[(&[Action], &str)]) -> String {
    let mut items: Vec<(&[Action], &str)> = vec![(&[Action::Up, Action::Down], "")];
    items.extend_from_slice(rest);
    let parts = [
        keys.hint(Scope::Main, &items[..1]),
        keys.hint(Scope::Popup, &[(&[Action::PopupChoose], choose)]),
        keys.hint(Scope::Main, &items[1..]),
    ];
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    parts.join(" · ")
}
