//! Drawing: the layout, and each part in its place: the rollout list, the Labels and Rerun
//! panels, the detail pane, the status bar (a [`StatusBar`] component), the screens and
//! the open popup, each drawn by its component.
//! Functions here read the app and the theme and draw; they never change state.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::action::Keymap;
use super::action::{Action, Scope};
use super::app::{App, Grading};
use super::component::{Component, DrawCx};
use super::layout::layout;
use super::panes;
use super::textbox::box_keys;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let theme = &app.theme;
    frame.render_widget(Block::default().style(theme.base), area);
    let areas = layout(area);
    let cx = app.draw_cx();
    app.list.draw(frame, areas.list, &cx);
    let detail = panes::labels::draw_panels(frame, app, areas.detail);
    app.detail.draw(frame, detail, &cx);
    draw_status(frame, app, areas.status);
    // The screens of their own (stats, Training) over the rest.
    for component in app.drawn() {
        component.draw(frame, area, &cx);
    }
    // The open popup over everything, drawn by the component that owns it (over a screen:
    // the screen's own, as the Stats map row's whole text).
    if let Some(popup) = app.popup {
        app.popup_owner(popup).draw_popup(popup, frame, area, &cx);
    }
}

fn draw_status(frame: &mut Frame, app: &App, area: Rect) {
    status_bar(app).draw(frame, area, &app.draw_cx());
}

/// The status bar as `app` fills it: what it says now (the open text box, the filters, the
/// message, progress and warnings), with the keys of the screen that holds it.
pub fn status_bar(app: &App) -> StatusBar {
    let theme = &app.theme;
    // A stats screen says its own keys: the list's do nothing there.
    if let Some(screen) = app.stats.screen {
        let keys = app.screen_hints().unwrap_or_default();
        let mut spans = vec![Span::styled(" STATS ", theme.tab_active)];
        if app.stats.search.is_open() {
            spans.push(Span::styled(
                box_key(app, super::stats::scope(screen), Action::Search),
                theme.status_key,
            ));
            spans.push(Span::raw(" "));
            spans.extend(app.stats.search.spans(Style::default()));
            spans.push(Span::styled(" a function's NumPy or zwc name ·", theme.dim));
        }
        if let Some(msg) = &app.message {
            spans.push(Span::raw(format!(" {msg} ·")));
        }
        spans.push(Span::raw(format!(" {keys}")));
        return StatusBar {
            left: spans,
            right: extra_keys(app).into_iter().collect(),
            newcomer: false,
        };
    }
    let mut left: Vec<Span> = Vec::new();
    if app.labelling.mode {
        left.push(Span::styled(" LABEL ", theme.tab_active));
    }
    if app.list.search_box.is_open() {
        left.push(Span::styled(
            box_key(app, Scope::Main, Action::Search),
            theme.status_key,
        ));
        left.push(Span::raw(" "));
        left.extend(app.list.search_box.spans(Style::default()));
        if app.list.search.pending {
            left.push(Span::raw(" …"));
        }
        left.push(Span::raw(" "));
        // Which matching is in force, so a count is read right.
        let mode = match super::search::Query::parse(&app.list.search.pattern) {
            Some(q) => q.mode.describe(q.case_sensitive).to_string(),
            // Before the first character: how to ask for the other kinds.
            None => "text, any case (a capital: exact; ~ fuzzy)".to_string(),
        };
        left.push(Span::styled(format!("{mode} "), theme.dim));
    } else if !app.list.search.pattern.is_empty() {
        left.push(Span::styled(
            box_key(app, Scope::Main, Action::Search),
            theme.status_key,
        ));
        left.push(Span::raw(format!(" {} ", app.list.search.pattern)));
        if let Some(key) = app.keymap.keys_for(Action::NextMatch).first() {
            left.push(Span::styled(format!("{key} next match "), theme.dim));
        }
    }
    left.extend(super::training::search_box(&app.training, &app.draw_cx()));
    if app.training.range.is_open() {
        left.push(Span::styled(
            box_key(app, Scope::Main, Action::StepRange),
            theme.status_key,
        ));
        left.push(Span::raw(" "));
        left.extend(app.training.range.spans(Style::default()));
        left.push(Span::raw(format!(
            " steps: 7, 10-20, 10-, -20 ({}; empty: all steps) ",
            box_keys("shows them")
        )));
    }
    if app.list.goto.is_open() {
        left.push(Span::styled(
            box_key(app, Scope::Main, Action::GotoLine),
            theme.status_key,
        ));
        left.push(Span::raw(" "));
        left.extend(app.list.goto.spans(Style::default()));
        // The file it goes into: the selected rollout's (one run of several).
        let file = app
            .selected_entry()
            .and_then(|e| app.corpus.runs.get(e.run))
            .map_or("the file", |r| r.name.as_str());
        left.push(Span::raw(format!(
            " line of {file} ({}) ",
            box_keys("goes")
        )));
    }
    let f = &app.list.filters;
    let mut filters: Vec<String> = Vec::new();
    if let Some(v) = f.verdict {
        filters.push(v.status());
    }
    if let Some(r) = f.run {
        filters.push(format!(
            "run={}",
            app.corpus.runs.get(r).map_or("?", |r| r.name.as_str())
        ));
    }
    if let Some(n) = &f.function {
        filters.push(format!("fn={n}"));
    }
    if let Some(r) = &f.rows {
        filters.push(r.label.clone());
    }
    if let Some(k) = f.finding {
        filters.push(format!("finding={}", k.label()));
    }
    if let Some(t) = f.task {
        let short: String = app
            .corpus
            .tasks
            .get(t)
            .map_or(String::new(), |t| t.short.chars().take(16).collect());
        filters.push(format!("task={short}…"));
    }
    if let Some(label) = app.labelling.filter_label() {
        filters.push(label);
    }
    filters.extend(app.extras.filter_label());
    if app.list.grouping != super::app::Grouping::FileOrder {
        filters.push(format!("by {}", app.list.grouping.label()));
    }
    if !filters.is_empty() {
        left.push(Span::styled(
            format!(" {} ", filters.join(" · ")),
            theme.warning,
        ));
    }
    if app.bookmarks.caption.is_open() {
        left.push(Span::styled(" caption ", theme.status_key));
        left.push(Span::raw(" "));
        left.extend(app.bookmarks.caption.spans(Style::default()));
        left.push(Span::raw(format!(" ({}) ", box_keys("saves"))));
    }
    if let Some(msg) = &app.message {
        left.push(Span::raw(format!(" {msg} ")));
    }

    // Right-hand items by priority; the least important are dropped when space runs out.
    let mut right: Vec<(u8, Span)> = Vec::new();
    if !app.corpus.load.done {
        let pct = (app.corpus.load.bytes_done * 100)
            .checked_div(app.corpus.load.bytes_total)
            .unwrap_or(0);
        right.push((1, Span::styled(format!(" loading {pct}% "), theme.progress)));
    } else if app.corpus.load.following > 0 {
        right.push((3, Span::styled(" following ", theme.progress)));
    }
    let gp = app.corpus.grade_progress;
    // Every requested grade in: the figures are final (dropped first when space runs out).
    if gp.requested > 0 && gp.finished == gp.requested {
        right.push((
            5,
            Span::styled(" ✓ every verdict is in ".to_string(), theme.hint),
        ));
    }
    if gp.finished < gp.requested {
        right.push((
            1,
            Span::styled(
                format!(
                    " grading {}/{} {} ",
                    gp.finished,
                    gp.requested,
                    bar(gp.finished, gp.requested, 8)
                ),
                theme.progress,
            ),
        ));
    }
    if let Grading::Unavailable(why) = &app.corpus.ctx.grading {
        let text = if why.fixed_by_install() {
            match app.keymap.keys_for(Action::InstallRuntime).first() {
                Some(key) => format!(" no Python: {key} installs "),
                None => " no Python: sebx runtime install ".to_string(),
            }
        } else {
            format!(
                " grading off{} ",
                app.keymap.aside(Action::Help, "says why")
            )
        };
        right.push((2, Span::styled(text, theme.warning)));
    }
    if !app.corpus.issues.is_empty() {
        right.push((
            0,
            Span::styled(
                format!(
                    " ⚠ {} bad lines{} ",
                    app.corpus.issues.len(),
                    app.keymap
                        .key_in(Scope::Main, Action::Issues)
                        .map_or(String::new(), |k| format!(" ({k})"))
                ),
                theme.verdict_failed,
            ),
        ));
    }
    // The Training screen's own keys: the list's do nothing there.
    let screen_keys = app.screen_hints();
    if let Some(keys) = &screen_keys {
        right.push((2, Span::raw(format!(" {keys} "))));
        right.extend(extra_keys(app));
    }
    StatusBar {
        left,
        right,
        // The keys a newcomer needs, unless a screen says its own.
        newcomer: screen_keys.is_none(),
    }
}

/// The keys a newcomer needs, as bound (the first key of each), with the word said after
/// it and its priority: quit and help stay as long as the warnings, search and label go
/// first when the bar is too narrow.
fn newcomer_keys(keys: &Keymap) -> Vec<(String, &'static str, u8)> {
    [
        (Action::Quit, "quit", 2u8),
        (Action::Search, "search", 4),
        (Action::LabelMode, "label", 4),
        (Action::Help, "help", 2),
    ]
    .into_iter()
    .filter_map(|(action, word, priority)| {
        keys.keys_for(action)
            .first()
            .map(|key| (key.to_string(), word, priority))
    })
    .collect()
}

/// The status bar, a component: what the explorer says on its last line, drawn from its
/// parts; its keys (the newcomer's: quit, search, label, help) come from the keymap.
pub struct StatusBar {
    /// Said from the left, whole.
    left: Vec<Span<'static>>,
    /// Right-aligned, each with its priority: the least important (the highest number) are
    /// dropped first when space runs out.
    right: Vec<(u8, Span<'static>)>,
    /// Whether the newcomer's keys end the right-hand side (no screen says its own).
    newcomer: bool,
}

impl Component for StatusBar {
    fn hints(&self, keys: &Keymap) -> Option<String> {
        if !self.newcomer {
            return None;
        }
        let words: Vec<String> = newcomer_keys(keys)
            .into_iter()
            .map(|(key, word, _)| format!("{key} {word}"))
            .collect();
        Some(words.join("  "))
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        let theme = cx.theme;
        let mut right = self.right.clone();
        if self.newcomer {
            for (key, word, priority) in newcomer_keys(cx.keys) {
                right.push((priority, Span::styled(format!(" {key} "), theme.status_key)));
                right.push((priority, Span::raw(format!("{word} "))));
            }
        }
        let width =
            |spans: &[Span]| -> usize { spans.iter().map(|s| s.content.chars().count()).sum() };
        let left_w = width(&self.left);
        for drop_level in [5u8, 4, 3, 2, 1] {
            let w: usize = right.iter().map(|(_, s)| s.content.chars().count()).sum();
            if left_w + w <= area.width as usize {
                break;
            }
            right.retain(|(p, _)| *p < drop_level);
        }
        // What is left of the right (its warnings) keeps its room, cut with a `…` only
        // past the bar's width; the left is said whole where it fits, else cut with a `…`.
        let right = cut_spans(
            right.into_iter().map(|(_, s)| s).collect(),
            area.width as usize,
        );
        let right_w = width(&right);
        let left = cut_spans(
            self.left.clone(),
            (area.width as usize).saturating_sub(right_w),
        );
        let [l, r] = Layout::horizontal([
            Constraint::Min(0),
            Constraint::Length(right_w.min(area.width as usize) as u16),
        ])
        .areas(area);
        frame.render_widget(Paragraph::new(Line::from(left)).style(theme.status_bar), l);
        frame.render_widget(Paragraph::new(Line::from(right)).style(theme.status_bar), r);
    }
}

/// The extra keys of the screen that holds the bar, after its keys: they give way first
/// when the bar is narrow (priority 3).
fn extra_keys(app: &App) -> Option<(u8, Span<'static>)> {
    app.screen_extra_hints()
        .map(|extra| (3, Span::raw(format!(" · {extra} "))))
}

/// `spans` cut to `room` cells: the span that overflows ends with a `…`, the rest dropped.
fn cut_spans(spans: Vec<Span<'static>>, mut room: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    for mut s in spans {
        if room == 0 {
            break;
        }
        let n = s.content.chars().count();
        if n > room {
            s.content = super::layout::fit(&s.content, room).into();
            room = 0;
        } else {
            room -= n;
        }
        out.push(s);
    }
    out
}

/// The label of a text box in the status bar: the key that opened it (` / `), or the
/// action's name when no key does.
fn box_key(app: &App, scope: Scope, action: Action) -> String {
    let key = app
        .keymap
        .key_in(scope, action)
        .unwrap_or_else(|| action.config_name());
    format!(" {key} ")
}

fn bar(done: usize, total: usize, width: usize) -> String {
    let filled = (done * width).checked_div(total).unwrap_or(0);
    format!(
        "▕{}{}▏",
        "█".repeat(filled),
        " ".repeat(width - filled.min(width))
    )
}
