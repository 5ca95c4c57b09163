//! Nothing cut without the full text one key away (issue 41): at 80×24 the list cuts the
//! task and run name with a `…`; `enter` (the action `full_text`) opens a popup with the
//! selected row's cells whole, wrapped, and a config that rebinds the action moves it to
//! the new key (the old one then does nothing). Driven through the keymap as `sebx` maps
//! a terminal's keys, on the bundled demo (two runs).

use crate::tui_common;

use ratatui::crossterm::event::KeyCode;
use sebx::tui::explore::ExploreArgs;
use sebx::tui::{Action, App};
use tui_common::{drawn, press};

use crate::isolated;

fn demo(dir: &std::path::Path, config: &str) -> App {
    let path = dir.join("config.toml");
    std::fs::write(&path, config).expect("write the config");
    let args = ExploreArgs {
        config: Some(path),
        ..isolated::explore_args()
    };
    tui_common::demo_app(&args, dir, 80, 24)
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
        .find(|l| l.contains("the row's whole text"))
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
