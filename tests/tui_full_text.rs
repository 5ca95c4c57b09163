//! Nothing cut without the full text one key away (issue 41): at 80×24 the list cuts the
//! task and run name with a `…`; `enter` (the action `full_text`) opens a popup with the
//! selected row's cells whole, wrapped, and a config that rebinds the action moves it to
//! the new key (the old one then does nothing). Driven through the keymap as `sebx` maps
//! a terminal's keys, on the bundled demo (two runs).

use crate::tui_common;

use ratatui::crossterm::event::KeyCode;
use sebx::tui::{Action, App};
use tui_common::{drawn, press};

fn demo(dir: &std::path::Path, config: &str) -> App {
    crate::tui_common::demo_with_config(dir, config, 80, 24)
}

/// The text inside the popup titled `… whole …`, its lines joined, or `None` when no such
/// popup is drawn.
fn popup_text(screen: &str) -> Option<String> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = lines
        .iter()
        .position(|l| l.iter().collect::<String>().contains(", whole"))?;
    let left = lines[top].iter().position(|c| *c == '┌')?;
    let right = left + 1 + lines[top][left + 1..].iter().position(|c| *c == '┐')?;
    let mut text = String::new();
    for line in &lines[top + 1..] {
        if line.get(left) == Some(&'└') {
            break;
        }
        let inner: String = line
            .get(left + 1..right)
            .map(|s| s.iter().collect())
            .unwrap_or_default();
        text.push_str(&inner);
        text.push('\n');
    }
    Some(text)
}

/// `text` without any whitespace: wrapping moves line breaks, never characters.
fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Moves to the first row of run 2 (its name is cut in the list at 80 columns).
fn to_run_two(app: &mut App) {
    let row = app
        .corpus
        .entries
        .iter()
        .position(|e| e.run == 1)
        .expect("a row of run 2");
    for _ in 0..app.corpus.entries.len() {
        if app.list.selected == Some(row) {
            return;
        }
        press(app, KeyCode::Down);
    }
    panic!("row {row} not reached");
}

#[test]
fn enter_shows_the_rows_whole_text_wrapped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), "");
    to_run_two(&mut app);
    let row = app.list.selected.expect("a row");
    let entry = app.corpus.entries[row].clone();
    let query = entry.rollout.query.to_string();
    let run = app.corpus.runs[entry.run].name.clone();
    assert_eq!(run, "rollouts_run2");

    // The list cuts them: the run name and the task end in `…`.
    let list = drawn(&app);
    let selected = list
        .lines()
        .find(|l| l.contains('▶'))
        .expect("the selected row");
    assert!(
        selected.contains('…') && !selected.contains(&run),
        "cut in the list: {selected}"
    );
    assert!(popup_text(&list).is_none(), "no popup yet");

    press(&mut app, KeyCode::Enter);
    let screen = drawn(&app);
    let text = popup_text(&screen).unwrap_or_else(|| panic!("the popup:\n{screen}"));
    assert!(!text.contains('…'), "nothing cut:\n{text}");
    for (what, whole) in [
        ("run", run.as_str()),
        ("task", query.as_str()),
        ("file", &entry.rollout.source.display().to_string()),
    ] {
        assert!(
            squeezed(&text).contains(&squeezed(whole)),
            "the {what} whole ({whole:?}):\n{text}"
        );
    }
    // Wrapped inside the popup: no line runs into its border.
    assert!(text.lines().count() > query.lines().count(), "{text}");

    // Esc closes it.
    press(&mut app, KeyCode::Esc);
    assert!(popup_text(&drawn(&app)).is_none(), "closed");
}

#[test]
fn a_config_moves_the_whole_text_to_another_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(
        dir.path(),
        "[keys]\n\"enter\" = \"none\"\n\"W\" = \"full_text\"\n",
    );
    to_run_two(&mut app);
    press(&mut app, KeyCode::Enter);
    assert!(
        popup_text(&drawn(&app)).is_none(),
        "enter unbound does nothing"
    );
    press(&mut app, KeyCode::Char('W'));
    let screen = drawn(&app);
    let text = popup_text(&screen).unwrap_or_else(|| panic!("W opens it:\n{screen}"));
    assert!(text.contains("rollouts_run2"), "{text}");
    // W again closes it, as it opened.
    press(&mut app, KeyCode::Char('W'));
    assert!(popup_text(&drawn(&app)).is_none(), "closed by its key");
    // The help names the action on its new key (tall enough to show every line).
    app.update(&Action::Resize {
        width: 100,
        height: 150,
    });
    press(&mut app, KeyCode::Char('?'));
    let help = drawn(&app);
    let line = help
        .lines()
        .find(|l| l.contains("whole text of the row"))
        .unwrap_or_else(|| panic!("the help lists it:\n{help}"));
    assert!(line.contains('W'), "{line}");
}

/// On the Cases pane the table cuts a long case with a `…`; the whole text then shows the
/// case under the cursor whole (input, expected, actual), above the row's cells.
#[test]
fn on_the_cases_pane_enter_shows_the_case_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), "");
    app.update(&Action::PaneCases);
    // The first row with a case input too long for the table at 80 columns.
    let mut found = None;
    for _ in 0..app.corpus.entries.len() {
        let case = app.focused_case().expect("the Cases pane has a case");
        if case.input.chars().count() > 40 {
            found = Some(case);
            break;
        }
        press(&mut app, KeyCode::Down);
    }
    let case = found.expect("a demo row with a long case input");
    let head: String = case.input.chars().take(12).collect();
    let screen = drawn(&app);
    let cut = screen
        .lines()
        .find(|l| l.contains(&head) && l.contains('│'))
        .unwrap_or_else(|| panic!("the case's table row:\n{screen}"));
    assert!(cut.contains('…'), "cut in the table: {cut}\n{screen}");
    assert!(
        screen.contains("enter whole"),
        "the pane names the key:\n{screen}"
    );

    press(&mut app, KeyCode::Enter);
    let screen = drawn(&app);
    let text = popup_text(&screen).unwrap_or_else(|| panic!("the popup:\n{screen}"));
    assert!(
        screen.contains(&format!(", case {}, whole", case.number)),
        "{screen}"
    );
    assert!(
        text.contains(&format!("case {} of {}", case.number, case.count)),
        "{text}"
    );
    for (what, whole) in [("input", &case.input), ("expected", &case.expected)] {
        assert!(
            squeezed(&text).contains(&squeezed(whole)),
            "the {what} whole ({whole:?}):\n{text}"
        );
    }
    if let Some(actual) = &case.actual {
        assert!(squeezed(&text).contains(&squeezed(actual)), "{text}");
    }
    // The row's cells follow.
    assert!(text.contains("task"), "{text}");
    press(&mut app, KeyCode::Esc);
    assert!(popup_text(&drawn(&app)).is_none(), "closed");

    // Off the Cases pane it is the row's text only.
    app.update(&Action::PaneCode);
    press(&mut app, KeyCode::Enter);
    let text = popup_text(&drawn(&app)).expect("the popup");
    assert!(!text.contains("case "), "{text}");
}

/// The Stats screen's map cuts a row (the run's name to 12 characters; the wrong names not
/// shown at 80 columns, the top few cut at 160): `w` (the action `full_text` in `[keys.stats]`) shows the row
/// under the cursor whole, its keys scroll the popup and not the map, and its close key
/// closes the popup only. A config moves it to another key.
#[test]
fn on_the_stats_screen_the_map_row_is_one_key_away_whole() {
    use sebx::tui::stats::Screen;
    for (config, key) in [
        ("", 'w'),
        (
            "[keys.stats]\n\"w\" = \"none\"\n\"x\" = \"full_text\"\n",
            'x',
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut app = demo(dir.path(), config);
        press(&mut app, KeyCode::Char('S'));
        assert_eq!(app.stats.screen, Some(Screen::Map));
        let r = app.stats.result.clone().expect("the figures");
        // Run 2, whose name the map's run line cuts at 80 columns.
        press(&mut app, KeyCode::Right);
        assert_eq!(app.stats.run, 1);
        let run = r.report.runs[1].stats.name.clone();
        assert_eq!(run, "rollouts_run2");
        // The row with the most wrong names.
        let map = sebx::tui::stats::sorted_map(&app.stats, &r);
        let (at, row) = map
            .iter()
            .enumerate()
            .max_by_key(|(i, row)| (row.wrong_names.len(), std::cmp::Reverse(*i)))
            .expect("a map row");
        assert!(!row.wrong_names.is_empty(), "a row with wrong names");
        for _ in 0..at {
            press(&mut app, KeyCode::Down);
        }
        assert_eq!(app.stats.cursor, at);
        let screen = drawn(&app);
        assert!(popup_text(&screen).is_none(), "no popup yet:\n{screen}");
        assert!(
            screen.contains("rollo…s_run2"),
            "the run line cuts the run's name:\n{screen}"
        );
        assert!(
            row.wrong_names.iter().any(|n| !screen.contains(&n.name)),
            "the map does not show every wrong name at 80 columns:\n{screen}"
        );
        // The status bar names the key where there is room (at 80 columns its other keys
        // fill it), and the title cuts what does not fit with a `…`.
        let wide = screen_at(&mut app, 160, 45);
        let hint = format!("{key} whole row");
        assert!(last_line(&wide).contains(&hint), "{wide}");
        assert!(
            wide.lines().next().is_some_and(|l| l.contains(&hint)),
            "{wide}"
        );
        assert!(
            screen.lines().next().is_some_and(|l| l.contains('…')),
            "{screen}"
        );
        if !config.is_empty() {
            press(&mut app, KeyCode::Char('w'));
            assert!(popup_text(&drawn(&app)).is_none(), "w unbound does nothing");
        }

        press(&mut app, KeyCode::Char(key));
        let screen = drawn(&app);
        let text = popup_text(&screen).unwrap_or_else(|| panic!("the popup:\n{screen}"));
        assert!(
            screen.contains(&format!("{}, whole", row.numpy)),
            "{screen}"
        );
        assert!(!text.contains('…'), "nothing cut:\n{text}");
        assert!(squeezed(&text).contains(&squeezed(&run)), "{text}");
        assert!(text.contains(&row.zwc), "{text}");
        for n in &row.wrong_names {
            assert!(
                text.contains(&format!("{} ×{}", n.name, n.count)),
                "every wrong name whole ({}):\n{text}",
                n.name
            );
        }
        // Moves scroll the popup; the map's cursor stays.
        press(&mut app, KeyCode::Down);
        assert_eq!(app.stats.cursor, at, "the map did not move");
        // Esc closes the popup, not the screen; a second esc closes the screen.
        press(&mut app, KeyCode::Esc);
        assert!(popup_text(&drawn(&app)).is_none(), "closed");
        assert_eq!(app.stats.screen, Some(Screen::Map), "the screen stays");
        press(&mut app, KeyCode::Char(key));
        assert!(popup_text(&drawn(&app)).is_some(), "open again");
        press(&mut app, KeyCode::Char(key));
        assert!(popup_text(&drawn(&app)).is_none(), "its key closes it");
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.stats.screen, None);
    }
}

/// The screen drawn at `width`×`height`, the app then back at its own size.
fn screen_at(app: &mut App, width: u16, height: u16) -> String {
    let (w, h) = app.size;
    app.update(&Action::Resize { width, height });
    let screen = drawn(app);
    app.update(&Action::Resize {
        width: w,
        height: h,
    });
    screen
}

fn last_line(screen: &str) -> &str {
    screen.lines().last().unwrap_or_default()
}
