//! Issue 41's "done when": a config that rebinds every action to another key (and unbinds
//! every default key) changes every screen's footer, help and hints to the new keys, and
//! the old keys do nothing. The keys come from the action table (`ACTIONS`), so an action
//! added later is rebound here too.

use crate::tui_common;

use std::collections::BTreeSet;

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use sebx::tui::action::{ACTIONS, KeyChord, Scope};
use sebx::tui::explore::{ExploreArgs, prepare};
use sebx::tui::present;
use sebx::tui::run::action_for_event;
use sebx::tui::{Action, App, Grading};
use tui_common::{draw, screen};

use crate::isolated;

/// Keys no default binding uses: alt and a letter or digit, then function keys.
fn fresh_keys() -> Vec<String> {
    ('a'..='z')
        .chain('A'..='Z')
        .chain('0'..='9')
        .map(|c| format!("alt-{c}"))
        .chain((1..=24).map(|n| format!("f{n}")))
        .collect()
}

/// Each bindable action's new key, in table order.
fn new_keys() -> Vec<(Action, String)> {
    let fresh = fresh_keys();
    assert!(fresh.len() >= ACTIONS.len(), "enough fresh keys");
    ACTIONS
        .iter()
        .zip(fresh)
        .map(|(spec, key)| (spec.action, key))
        .collect()
}

/// Every default key, as written in the table, with the scopes it is bound in.
fn old_keys() -> Vec<(Scope, String)> {
    let mut keys = BTreeSet::new();
    for spec in ACTIONS {
        for key in spec.keys {
            for scope in spec.scopes {
                keys.insert((*scope, key.to_string()));
            }
        }
        for (scope, key) in spec.only {
            keys.insert((*scope, key.to_string()));
        }
    }
    keys.into_iter().collect()
}

fn quoted(key: &str) -> String {
    format!("{key:?}")
}

/// The config: every default key unbound in every scope, every action on its new key.
fn config() -> String {
    let mut main = String::from("[keys]\n");
    let mut tables: Vec<(Scope, String)> = Scope::TABLES
        .iter()
        .map(|s| (*s, format!("[keys.{}]\n", s.name())))
        .collect();
    for (scope, key) in old_keys() {
        let line = format!("{} = \"none\"\n", quoted(&key));
        if scope == Scope::Main {
            main.push_str(&line);
        } else if let Some((_, t)) = tables.iter_mut().find(|(s, _)| *s == scope) {
            t.push_str(&line);
        }
    }
    for (action, key) in new_keys() {
        main.push_str(&format!(
            "{} = {}\n",
            quoted(&key),
            quoted(&action.config_name())
        ));
    }
    let mut text = main;
    for (_, t) in tables {
        text.push('\n');
        text.push_str(&t);
    }
    text
}

fn stored_only() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly(
        "test".to_string(),
    ))
}

fn session(dir: &std::path::Path, training: bool) -> sebx::tui::explore::Session {
    let path = dir.join("config.toml");
    std::fs::write(&path, config()).expect("write");
    let args = ExploreArgs {
        config: Some(path),
        demo_training: training,
        ..isolated::explore_args()
    };
    let mut s = prepare(&args, stored_only()).expect("the config is accepted");
    s.app.labelling.data_dir = Some(dir.to_path_buf());
    sebx::tui::inline::load_inline(&mut s.app, &s.sources);
    s
}

fn event(chord: &str) -> KeyEvent {
    let c = KeyChord::parse(chord).expect("a key");
    let code = match c.code {
        sebx::tui::action::ChordKey::Char(ch) => KeyCode::Char(ch),
        sebx::tui::action::ChordKey::Up => KeyCode::Up,
        sebx::tui::action::ChordKey::Down => KeyCode::Down,
        sebx::tui::action::ChordKey::Left => KeyCode::Left,
        sebx::tui::action::ChordKey::Right => KeyCode::Right,
        sebx::tui::action::ChordKey::PageUp => KeyCode::PageUp,
        sebx::tui::action::ChordKey::PageDown => KeyCode::PageDown,
        sebx::tui::action::ChordKey::Home => KeyCode::Home,
        sebx::tui::action::ChordKey::End => KeyCode::End,
        sebx::tui::action::ChordKey::Tab => KeyCode::Tab,
        sebx::tui::action::ChordKey::BackTab => KeyCode::BackTab,
        sebx::tui::action::ChordKey::Enter => KeyCode::Enter,
        sebx::tui::action::ChordKey::Esc => KeyCode::Esc,
        sebx::tui::action::ChordKey::Backspace => KeyCode::Backspace,
        sebx::tui::action::ChordKey::F(n) => KeyCode::F(n),
    };
    let mut mods = KeyModifiers::NONE;
    if c.ctrl {
        mods |= KeyModifiers::CONTROL;
    }
    if c.alt {
        mods |= KeyModifiers::ALT;
    }
    KeyEvent::new(code, mods)
}

fn key_of(action: Action) -> String {
    new_keys()
        .into_iter()
        .find(|(a, _)| *a == action)
        .map(|(_, k)| KeyChord::parse(&k).expect("key").to_string())
        .expect("in the table")
}

/// What the hints write for every default key (`q`, `esc`, `↑`, `pgdn`, `ctrl-c`).
fn old_shown() -> BTreeSet<String> {
    old_keys()
        .into_iter()
        .map(|(_, k)| KeyChord::parse(&k).expect("key").to_string())
        .collect()
}

/// The words of a hint line that are an old key: split at spaces and the hints' separators,
/// and runs of arrows (`↑↓←→`) taken apart.
fn old_keys_in(line: &str) -> Vec<String> {
    let old = old_shown();
    let mut found = Vec::new();
    // `a` is also the article ("find a function").
    for word in line
        .split(|c: char| c.is_whitespace() || "·(),;:".contains(c))
        .filter(|w| *w != "a")
    {
        let arrows = !word.is_empty() && word.chars().all(|c| "↑↓←→".contains(c));
        let parts: Vec<String> = if arrows {
            word.chars().map(String::from).collect()
        } else {
            vec![word.to_string()]
        };
        for p in parts {
            if old.contains(&p) {
                found.push(p);
            }
        }
    }
    found
}

fn title(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn footer(text: &str) -> &str {
    text.lines().last().unwrap_or("")
}

/// The screen must show each action's new key beside its word and no old key.
fn shows_new_keys(line: &str, wanted: &[Action]) {
    for a in wanted {
        let k = key_of(*a);
        assert!(line.contains(&k), "{a:?}'s new key `{k}` in: {line}");
    }
    let old = old_keys_in(line);
    assert!(old.is_empty(), "old keys {old:?} still shown in: {line}");
}

#[test]
fn every_default_key_is_unbound_and_every_new_key_runs_its_action() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = session(dir.path(), false).app;
    for (scope, key) in old_keys() {
        assert_eq!(
            app.keymap.action_in(scope, &event(&key)),
            None,
            "`{key}` still does something in {scope:?}"
        );
    }
    for (action, key) in new_keys() {
        for scope in action.scopes() {
            assert_eq!(
                app.keymap.action_in(*scope, &event(&key)),
                Some(action),
                "`{key}` in {scope:?}"
            );
        }
    }
}

#[test]
fn the_list_footer_and_help_show_the_new_keys_and_the_old_keys_do_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = session(dir.path(), false).app;
    let text = screen(&draw(&app, 160, 45));
    shows_new_keys(
        footer(&text),
        &[
            Action::Quit,
            Action::Search,
            Action::LabelMode,
            Action::Help,
        ],
    );
    // The old keys, typed on the list: nothing happens (no action at all).
    for (scope, key) in old_keys() {
        if scope != Scope::Main {
            continue;
        }
        let e = Event::Key(event(&key));
        assert_eq!(action_for_event(&app, &e), None, "`{key}` on the list");
    }
    // The help: every row it shows carries the new key, and its title the new keys.
    press(&mut app, &key_of(Action::Help));
    let text = screen(&draw(&app, 160, 45));
    shows_new_keys(
        &title_of_popup(&text, "Help"),
        &[Action::Up, Action::Cancel],
    );
    let mut rows = 0;
    for (action, key) in new_keys() {
        let desc = action.description();
        if let Some(line) = text.lines().find(|l| l.contains(desc)) {
            rows += 1;
            let k = KeyChord::parse(&key).expect("key").to_string();
            assert!(line.contains(&k), "help row of {action:?}: {line}");
        }
    }
    assert!(rows >= 10, "the help shows rows: {text}");
    // The help's text-box paragraph names the keys that open a box, as bound.
    let boxes = sebx::tui::textbox::keys_help(&app.keymap);
    let opening = boxes.split("):").next().unwrap_or("");
    shows_new_keys(
        opening,
        &[Action::Search, Action::GotoLine, Action::EditNote],
    );
    press(&mut app, &key_of(Action::Cancel));
    assert!(app.popup.is_none(), "the new cancel key closes the help");
    // The popups' titles: the category picker, the extra keys.
    press(&mut app, &key_of(Action::CategoryPicker));
    assert!(app.popup.is_some(), "the new key opens the picker");
    let text = screen(&draw(&app, 160, 45));
    shows_new_keys(
        &title_of_popup(&text, "Categories"),
        &[Action::PopupChoose, Action::Cancel],
    );
    press(&mut app, &key_of(Action::Cancel));
    assert!(app.popup.is_none());
    // Label mode says its keys as bound.
    press(&mut app, &key_of(Action::LabelMode));
    assert!(app.labelling.mode, "the new key turns label mode on");
    let text = screen(&draw(&app, 160, 45));
    shows_new_keys(
        footer(&text),
        &[Action::AcceptSuggestion, Action::LabelMode],
    );
    press(&mut app, &key_of(Action::LabelMode));
    press(&mut app, &key_of(Action::LabelMode));
    assert!(!app.labelling.mode);
    press(&mut app, &key_of(Action::Quit));
    assert!(app.should_quit, "the new quit key quits");
}

/// A popup's title: its top border, from `┌` to `┐`, on the line that names it.
fn title_of_popup(text: &str, name: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains(name))
        .unwrap_or_else(|| panic!("no {name} popup: {text}"));
    let from = line.find('┌').unwrap_or(0);
    let to = line[from..].find('┐').map_or(line.len(), |t| from + t);
    line[from..to].to_string()
}

fn press(app: &mut App, key: &str) {
    let e = Event::Key(event(key));
    if let Some(action) = action_for_event(app, &e) {
        app.update(&action);
    }
}

#[test]
fn the_stats_and_compare_screens_show_the_new_keys_and_the_old_keys_do_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = session(dir.path(), false).app;
    sebx::tui::inline::drain_inline(&mut app, None);
    press(&mut app, &key_of(Action::StatsScreen));
    assert!(
        app.stats.screen.is_some(),
        "the new key opens the Stats screen"
    );
    sebx::tui::inline::drain_inline(&mut app, None);
    let text = screen(&draw(&app, 160, 45));
    for line in [title(&text), footer(&text)] {
        shows_new_keys(line, &[Action::SortRows, Action::CloseScreen]);
    }
    let heading = text
        .lines()
        .find(|l| l.contains("internalization map"))
        .unwrap_or_else(|| panic!("the map heading:\n{text}"));
    shows_new_keys(heading, &[Action::SortRows]);
    for (scope, key) in old_keys() {
        if scope == Scope::Stats {
            assert_eq!(action_for_event(&app, &Event::Key(event(&key))), None);
        }
    }
    press(&mut app, &key_of(Action::CompareScreen));
    assert_eq!(app.stats.screen, Some(sebx::tui::stats::Screen::Compare));
    let text = screen(&draw(&app, 160, 45));
    shows_new_keys(footer(&text), &[Action::NextRuns, Action::CloseScreen]);
    press(&mut app, &key_of(Action::CloseScreen));
    assert!(app.stats.screen.is_none(), "the new key closes the screen");
}

#[test]
fn the_training_screen_shows_its_new_keys_and_the_old_keys_do_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = session(dir.path(), true).app;
    press(&mut app, &key_of(Action::TrainingScreen));
    assert!(app.training.open, "the new key opens the Training screen");
    let text = screen(&draw(&app, 160, 45));
    for line in [title(&text), footer(&text)] {
        shows_new_keys(line, &[Action::CloseScreen, Action::SortRows]);
    }
    for (scope, key) in old_keys() {
        if scope == Scope::Training {
            assert_eq!(action_for_event(&app, &Event::Key(event(&key))), None);
        }
    }
    press(&mut app, &key_of(Action::CloseScreen));
    assert!(!app.training.open, "the new key closes it");
}

#[test]
fn the_presenter_shows_its_new_keys_and_the_old_keys_do_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session(dir.path(), false);
    let mut paths = Vec::new();
    let (playlist, _) =
        present::resolve_playlist(&present::PresentArgs::default(), &mut paths).expect("demo");
    let (mut p, _) = present::prepare(s.app, &s.sources, playlist.as_ref());
    shows_new_keys(
        &p.key_hints(),
        &[Action::NextStage, Action::PrevStage, Action::CloseScreen],
    );
    let stage = p.stage;
    for (scope, key) in old_keys() {
        if scope == Scope::Present {
            assert_eq!(p.keys.action_in(scope, &event(&key)), None, "`{key}`");
        }
    }
    p.handle_key(&event(&new_keys_of(Action::NextStage)));
    assert_ne!(p.stage, stage, "the new key advances");
}

fn new_keys_of(action: Action) -> String {
    new_keys()
        .into_iter()
        .find(|(a, _)| *a == action)
        .map(|(_, k)| k)
        .expect("in the table")
}

/// The detail pane's tabs name the keys that show each pane, and the demo training run's
/// note the key of the Training screen: the new ones, and no old one.
#[test]
fn the_panes_tabs_and_the_demo_note_name_the_new_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = session(dir.path(), false).app;
    let tabs_at = |w: u16, h: u16| -> String {
        let text = screen(&draw(&app, w, h));
        let detail = sebx::tui::layout::layout(ratatui::layout::Rect::new(0, 0, w, h)).detail;
        text.lines()
            .nth(usize::from(detail.y))
            .expect("the detail pane's top line")
            .chars()
            .skip(usize::from(detail.x))
            .collect()
    };
    // Wide enough for the keys: each tab names its new key.
    let tabs = tabs_at(200, 45);
    assert!(tabs.contains("Response") && tabs.contains("Task"), "{tabs}");
    shows_new_keys(
        &tabs,
        &[
            Action::PaneResponse,
            Action::PaneCode,
            Action::PaneCases,
            Action::PaneOutput,
            Action::PaneGraph,
            Action::PaneTask,
        ],
    );
    // Too narrow for these keys: the titles alone, whole (not the last one cut).
    let tabs = tabs_at(160, 45);
    for pane in sebx::tui::Pane::ALL {
        assert!(tabs.contains(&format!(" {} ", pane.title())), "{tabs}");
    }
    assert!(old_keys_in(&tabs).is_empty(), "{tabs}");

    let dir = tempfile::tempdir().expect("tempdir");
    let app = session(dir.path(), true).app;
    let note = app
        .corpus
        .ctx
        .notes
        .iter()
        .find(|n| n.contains("demo's training run"))
        .expect("the demo training run's note");
    shows_new_keys(note, &[Action::TrainingScreen]);
}
