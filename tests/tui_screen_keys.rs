//! The screens' keys are the keymap's (issue 31): a config's `[keys.stats]`,
//! `[keys.training]` and `[keys.present]` rebind them, the hints those screens print are
//! generated from the keymap in force (the new key shown, the old one gone), and the new
//! key works while the old one no longer does.

use crate::tui_common;

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use sebx::grade::runs::FunctionSort;
use sebx::tui::explore::{ExploreArgs, prepare};
use sebx::tui::present::{self, Stage};
use sebx::tui::run::action_for_event;
use sebx::tui::{Action, App, Grading};
use tui_common::{draw, screen};

use crate::isolated;

const CONFIG: &str = r#"
[keys]
"x" = "quit"

[keys.stats]
"o" = "sort_rows"
"s" = "none"

[keys.training]
"z" = "close_screen"
"q" = "none"

[keys.present]
"x" = "next_stage"
"space" = "none"
"#;

fn stored_only() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly(
        "test".to_string(),
    ))
}

fn session(dir: &std::path::Path, training: bool) -> sebx::tui::explore::Session {
    let config = dir.join("config.toml");
    std::fs::write(&config, CONFIG).expect("write");
    let args = ExploreArgs {
        config: Some(config),
        demo_training: training,
        ..isolated::explore_args()
    };
    let mut s = prepare(&args, stored_only()).expect("session");
    s.app.labelling.data_dir = Some(dir.to_path_buf());
    sebx::tui::inline::load_inline(&mut s.app, &s.sources);
    s
}

fn press(app: &mut App, c: char) {
    let event = Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    if let Some(action) = action_for_event(app, &event) {
        app.update(&action);
    }
}

fn title(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn footer(text: &str) -> &str {
    text.lines().last().unwrap_or("")
}

#[test]
fn a_rebound_stats_key_is_in_the_hints_and_works() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = session(dir.path(), false).app;
    app.update(&Action::StatsScreen);
    let text = screen(&draw(&app, 100, 30));
    for line in [title(&text), footer(&text)] {
        assert!(line.contains("o sort"), "the new key: {line}");
        assert!(!line.contains("s sort"), "the old key is gone: {line}");
    }
    assert_eq!(app.stats.sort, FunctionSort::Accuracy);
    press(&mut app, 's');
    assert_eq!(app.stats.sort, FunctionSort::Accuracy, "s no longer sorts");
    press(&mut app, 'o');
    assert_eq!(app.stats.sort, FunctionSort::Rollouts, "o sorts");
    press(&mut app, 'q');
    assert!(app.stats.screen.is_none(), "q still closes the screen");
    // `[keys]` binds an action wherever it works: `x` quits from the screens too.
    app.update(&Action::StatsScreen);
    press(&mut app, 'x');
    assert!(app.should_quit, "x quits, as the config says");
}

#[test]
fn a_rebound_training_key_is_in_the_hints_and_works() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = session(dir.path(), true).app;
    app.update(&Action::TrainingScreen);
    assert!(app.training.open);
    let text = screen(&draw(&app, 120, 30));
    let line = title(&text);
    assert!(line.contains("z close"), "the new key: {line}");
    assert!(!line.contains("q close"), "the old key is gone: {line}");
    press(&mut app, 'q');
    assert!(app.training.open, "q no longer closes it");
    press(&mut app, 'z');
    assert!(!app.training.open, "z closes it");
}

#[test]
fn a_rebound_presenter_key_is_in_the_hints_and_works() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session(dir.path(), false);
    let mut paths = Vec::new();
    let (playlist, _) =
        present::resolve_playlist(&present::PresentArgs::default(), &mut paths).expect("demo");
    let (mut p, _) = present::prepare(s.app, &s.sources, playlist.as_ref());
    let hints = p.key_hints();
    assert!(hints.contains("x next stage"), "{hints}");
    assert!(!hints.contains("space"), "{hints}");
    // The first screen shows them.
    let mut buf = ratatui::buffer::Buffer::empty(ratatui::layout::Rect::new(0, 0, 100, 30));
    present::render(&p, buf.area, &mut buf);
    let drawn: String = (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                + "\n"
        })
        .collect();
    assert!(drawn.contains("x next stage"), "{drawn}");
    assert_eq!(p.stage, Stage::Task);
    p.handle_key(&KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
    assert_eq!(p.stage, Stage::Task, "space no longer advances");
    p.handle_key(&KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE));
    assert_ne!(p.stage, Stage::Task, "x advances");
}

#[test]
fn a_screen_table_rejects_an_action_of_another_screen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[keys.stats]\n\"o\" = \"next_stage\"\n").expect("write");
    let args = ExploreArgs {
        config: Some(config),
        ..isolated::explore_args()
    };
    let err = prepare(&args, stored_only()).err().expect("refused");
    assert!(
        format!("{err:#}").contains("not an action of the stats screen"),
        "{err:#}"
    );
}

#[test]
fn s_and_c_switch_between_the_report_screens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = session(dir.path(), false).app;
    app.update(&Action::StatsScreen);
    press(&mut app, 'C');
    assert_eq!(app.stats.screen, Some(sebx::tui::stats::Screen::Compare));
    // On the Compare screen C is "next pair of runs"; S goes back to the map.
    press(&mut app, 'S');
    assert_eq!(app.stats.screen, Some(sebx::tui::stats::Screen::Map));
}
