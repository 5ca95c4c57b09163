//! The status bar, the detail pane and the panels under it are components (issue 41): each
//! draws itself from what the app hands it, and the status bar's keys come from the keymap
//! in force (a rebound key is said, the old one is not; a screen with keys of its own
//! replaces them). On the bundled demo, as `sebx` opens it.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use sebx::tui::component::Component;
use sebx::tui::panes::labels::panels;
use sebx::tui::{Action, App, ui};

use crate::tui_common::{press, screen};

fn demo(dir: &std::path::Path, config: &str) -> App {
    crate::tui_common::demo_with_config(dir, config, 80, 24)
}

/// What `component` draws in a `width`×`height` area.
fn drawn(app: &App, component: &dyn Component, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|f| component.draw(f, f.area(), &app.draw_cx()))
        .expect("draws");
    screen(&terminal)
}

#[test]
fn the_status_bar_says_the_keys_in_force() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = demo(dir.path(), "");
    let bar = ui::status_bar(&app);
    assert_eq!(
        bar.hints(&app.keymap).as_deref(),
        Some("q quit  / search  L label  ? help")
    );
    let line = drawn(&app, &bar, 120, 1);
    assert!(
        line.contains(" q quit  / search  L label  ? help"),
        "{line}"
    );

    // Search on F (and `/` unbound), help on F1: the bar says so, and nothing of `/`.
    let dir = tempfile::tempdir().expect("tempdir");
    let app = demo(
        dir.path(),
        "[keys]\n\"/\" = \"none\"\n\"F\" = \"search\"\n\"?\" = \"none\"\n\"f1\" = \"help\"\n",
    );
    let bar = ui::status_bar(&app);
    let hints = bar.hints(&app.keymap).expect("the list's keys");
    assert!(
        hints.contains("F search") && hints.contains("f1 help"),
        "{hints}"
    );
    assert!(
        !hints.contains("/ search") && !hints.contains("? help"),
        "{hints}"
    );
    let line = drawn(&app, &bar, 120, 1);
    assert!(line.contains("F search"), "{line}");
    assert!(!line.contains("/ search"), "{line}");
}

#[test]
fn a_screen_of_its_own_replaces_the_status_bars_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), "");
    app.update(&Action::StatsScreen);
    let bar = ui::status_bar(&app);
    assert_eq!(bar.hints(&app.keymap), None, "the screen says its own keys");
    let line = drawn(&app, &bar, 160, 1);
    assert!(line.contains(" STATS "), "{line}");
    assert!(!line.contains("L label"), "{line}");
}

#[test]
fn the_labels_panel_draws_itself_in_label_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), "");
    assert!(panels(&app, 80).is_empty(), "no panel outside label mode");
    press(&mut app, KeyCode::Char('L'));
    assert!(app.labelling.mode, "L turns label mode on");
    let shown = panels(&app, 80);
    assert_eq!(shown.len(), 1, "the Labels panel");
    let panel = &shown[0];
    assert!(panel.title.starts_with(" Labels · "), "{}", panel.title);
    let text = drawn(&app, panel, 80, panel.height());
    let first = text.lines().next().unwrap_or("");
    assert!(
        first.starts_with('┌') && first.contains(" Labels · "),
        "{text}"
    );
    assert!(
        text.lines().last().unwrap_or("").starts_with('└'),
        "boxed, every line inside:\n{text}"
    );
}

/// The list is a component answering its own moves: a page key moves by the rows it shows
/// (less one), at each size; the bottom and top keys reach the last and first rows; and
/// with a screen open its moves are the screen's, the list's cursor stays.
#[test]
fn the_list_answers_its_moves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), "");
    let rows: Vec<usize> = app.list.rows().collect();
    assert!(rows.len() > 20, "the demo has enough rows");
    let at = |app: &App| {
        rows.iter()
            .position(|r| Some(*r) == app.list.selected)
            .expect("a row selected")
    };
    for (w, h) in [(80, 24), (160, 45)] {
        app.update(&Action::Resize {
            width: w,
            height: h,
        });
        press(&mut app, KeyCode::Home);
        assert_eq!(at(&app), 0);
        let page = app.list_height().max(2) - 1;
        press(&mut app, KeyCode::PageDown);
        assert_eq!(at(&app), page.min(rows.len() - 1), "{w}x{h}");
        press(&mut app, KeyCode::PageUp);
        assert_eq!(at(&app), 0);
        press(&mut app, KeyCode::End);
        assert_eq!(at(&app), rows.len() - 1);
        // The cursor is on screen: the list scrolled to it.
        assert!(screen_of(&app).contains('▶'), "{w}x{h}");
    }
    // A screen of its own takes the moves.
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Char('S'));
    press(&mut app, KeyCode::Down);
    assert_eq!(at(&app), 0, "the list stays under the Stats screen");
    assert_eq!(app.stats.cursor, 1, "the map moved");
}

fn screen_of(app: &App) -> String {
    let (w, h) = app.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal.draw(|f| ui::draw(f, app)).expect("draws");
    screen(&terminal)
}

/// The detail pane is a component: what it draws in the detail pane's area is what the
/// screen shows there, and it answers the keys of what it shows (the first failed case,
/// the Cases pane's cursor), read from the selected row's report.
#[test]
fn the_detail_pane_draws_itself_and_answers_its_cases_keys() {
    use sebx::tui::Pane;
    let mut app = crate::tui_common::app(sebx::tui::Grading::Unavailable(
        sebx::grade::backend::Unavailable::StoredOnly("t".into()),
    ));
    app.update(&Action::Down); // row 1: failed cases
    let report = app.cases_report().expect("row 1 has a report");
    let count = report.cases.len();
    let first = report
        .cases
        .iter()
        .position(|c| !c.matched)
        .expect("a failed case");
    assert!(count >= 2, "{count} cases");
    // Elsewhere first, on another pane: the key goes to the Cases pane, on that case.
    app.update(&Action::PaneCode);
    let elsewhere = if first == 0 { count - 1 } else { 0 };
    app.detail.case_cursor = Some(elsewhere);
    app.update(&Action::FirstFailedCase);
    assert_eq!(app.detail.pane, Pane::Cases);
    assert_eq!(app.case_cursor(), first, "on the first failed case");
    let (down, up) = if first + 1 < count {
        (Action::ScrollDown, Action::ScrollUp)
    } else {
        (Action::ScrollUp, Action::ScrollDown)
    };
    app.update(&down);
    assert_ne!(app.case_cursor(), first, "the cursor moved a case");
    app.update(&up);
    assert_eq!(app.case_cursor(), first, "and back");

    // Drawn by itself in the detail pane's area, it is what the whole screen shows there.
    let (w, h) = app.size;
    let whole = screen_of(&app);
    let area = sebx::tui::layout::layout(ratatui::layout::Rect::new(0, 0, w, h)).detail;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal
        .draw(|f| app.detail.draw(f, area, &app.draw_cx()))
        .expect("draws");
    let alone = screen(&terminal);
    let cut = |text: &str| -> Vec<String> {
        text.lines()
            .skip(usize::from(area.y))
            .take(usize::from(area.height))
            .map(|l| {
                l.chars()
                    .skip(usize::from(area.x))
                    .take(usize::from(area.width))
                    .collect()
            })
            .collect()
    };
    assert_eq!(cut(&alone), cut(&whole));
    assert!(
        cut(&alone)[0].contains("Cases"),
        "the tabs are drawn: {alone}"
    );
    assert!(
        cut(&alone)
            .iter()
            .any(|l| l.contains(&format!("{}", first + 1))),
        "{alone}"
    );
}
