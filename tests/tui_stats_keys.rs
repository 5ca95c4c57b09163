//! The stats screens as one moves in them: the footer names their own keys, page keys move
//! the map's cursor, `q` closes a screen (one level back) instead of quitting sebx, and at
//! 120 columns the map keeps its top wrong names and names its columns as `sebx stats` does.

use crate::tui_common;

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use sebx::tui::app::Grading;
use sebx::tui::inline::drain_inline;
use sebx::tui::run::action_for_event;
use sebx::tui::stats::Screen;
use sebx::tui::{Action, App};
use tui_common::*;

fn graded() -> App {
    let backend = FakeBackend::default();
    let mut app = app(Grading::Available);
    drain_inline(&mut app, Some(&backend));
    app
}

fn open(app: &mut App, action: Action) {
    app.update(&action);
    drain_inline(app, None);
}

/// What pressing `c` (plain or with ctrl) does, through the real key mapping.
fn press(app: &mut App, c: char, ctrl: bool) {
    let mods = if ctrl {
        KeyModifiers::CONTROL
    } else {
        KeyModifiers::NONE
    };
    let event = Event::Key(KeyEvent::new(KeyCode::Char(c), mods));
    if let Some(action) = action_for_event(app, &event) {
        app.update(&action);
    }
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or("")
}

#[test]
fn page_keys_move_the_maps_cursor() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    let n = app
        .stats
        .result
        .as_ref()
        .expect("figures")
        .report
        .function_map(0)
        .len();
    assert!(n >= 3, "the fixture's map has rows to move over");
    app.update(&Action::Bottom);
    assert_eq!(app.stats.cursor, n - 1, "G / End: the last row");
    app.update(&Action::Top);
    assert_eq!(app.stats.cursor, 0, "g / Home: the first row");
    app.update(&Action::PageDown);
    assert_eq!(
        app.stats.cursor,
        n - 1,
        "PgDn: a page on, at most the last row"
    );
    app.update(&Action::PageUp);
    assert_eq!(app.stats.cursor, 0);
    // Through the keymap too: `G` and `g` reach the screen.
    press(&mut app, 'G', false);
    assert_eq!(app.stats.cursor, n - 1);
    press(&mut app, 'g', false);
    assert_eq!(app.stats.cursor, 0);
    assert_eq!(app.stats.screen, Some(Screen::Map));
}

#[test]
fn q_closes_the_screens_and_ctrl_c_still_quits() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    press(&mut app, 'q', false);
    assert_eq!(app.stats.screen, None, "q closes the stats screen");
    assert!(!app.should_quit, "and does not quit sebx");

    // From compare's side by side, q goes back one level at a time.
    open(&mut app, Action::CompareScreen);
    let (i, j) = first_pair_cell(&app, None);
    walk_to_cell(&mut app, (i, j));
    app.update(&Action::Choose);
    app.update(&Action::Choose);
    assert_eq!(app.stats.screen, Some(Screen::Pair(i, j, 0)));
    press(&mut app, 'q', false);
    assert_eq!(app.stats.screen, Some(Screen::Cell(i, j)));
    press(&mut app, 'q', false);
    assert_eq!(app.stats.screen, Some(Screen::Compare));
    press(&mut app, 'q', false);
    assert_eq!(app.stats.screen, None);
    assert!(!app.should_quit);

    open(&mut app, Action::StatsScreen);
    press(&mut app, 'c', true);
    assert!(app.should_quit, "ctrl-c quits from a screen");
}

#[test]
fn the_footer_shows_the_screens_own_keys() {
    let mut app = graded();
    let list = screen(&draw(&app, 80, 24));
    assert!(last_line(&list).contains("search"), "{list}");
    open(&mut app, Action::StatsScreen);
    let stats = screen(&draw(&app, 80, 24));
    let footer = last_line(&stats);
    for part in ["pgdn", "s sort", "/ search", "enter", "q close"] {
        assert!(footer.contains(part), "footer lacks {part:?}: {footer}");
    }
    for list_key in ["L label", "? help"] {
        assert!(
            !footer.contains(list_key),
            "the list's key {list_key:?} is not offered: {footer}"
        );
    }
    open(&mut app, Action::CompareScreen);
    let compare = screen(&draw(&app, 80, 24));
    assert!(
        last_line(&compare).contains("next runs"),
        "{}",
        last_line(&compare)
    );
}

#[test]
fn at_120_columns_the_map_keeps_wrong_names_and_names_columns_as_the_cli() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    let r = app.stats.result.clone().expect("figures");
    let wrong = r
        .report
        .function_map(0)
        .iter()
        .flat_map(|f| f.wrong_names.iter())
        .map(|n| n.name.clone())
        .next()
        .expect("the fixture writes a wrong name");
    let text = screen(&draw(&app, 120, 30));
    assert!(text.contains("top wrong names"), "{text}");
    assert!(
        text.contains(&wrong),
        "{wrong} shown at 120 columns:\n{text}"
    );
    let header = text
        .lines()
        .find(|l| l.contains("numpy") && l.contains("zwc"))
        .expect("the map's header");
    // `right` counts rollouts graded right; the right zwc name is `right name`.
    assert!(
        header.contains(" right ") && header.contains("right name"),
        "{header}"
    );
    // The `right` column agrees with the figures, not with the right-name count.
    let row = r
        .report
        .function_map(0)
        .into_iter()
        .find(|f| f.right != f.called_right)
        .expect("a function whose right answers and right names differ");
    let line = text
        .lines()
        .find(|l| l.contains(&row.numpy))
        .expect("its row");
    let cells: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '│' || c == '▸')
        .filter(|c| !c.is_empty())
        .collect();
    // numpy, zwc, tasks, n, right, ...
    assert_eq!(cells[4], row.right.to_string(), "{line}");
}

#[test]
fn the_screen_has_the_clis_wrong_names_pass_at_k_and_pair_counts() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    let r = app.stats.result.clone().expect("figures");
    let top = r
        .report
        .wrong_names
        .first()
        .expect("the fixture writes wrong names");
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("wrong names, all runs"), "{text}");
    assert!(
        text.contains(&format!("×{} {}", top.count, top.name)),
        "{text}"
    );
    let p2 = r.report.runs[0]
        .stats
        .pass_at_k
        .iter()
        .find(|p| p.k == 2)
        .and_then(|p| p.value)
        .expect("run A has tasks with two samples");
    assert!(
        text.contains(&format!("2 {}", sebx::grade::runs::pass_value(Some(p2)))),
        "the pass@k curve: {text}"
    );
    assert!(text.contains("tasks by accuracy"), "{text}");
    open(&mut app, Action::CompareScreen);
    let c = app.stats.result.clone().expect("figures");
    let f = &&c.compare.as_ref().expect("two runs").comparison.functions[0];
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("pairs"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains(&f.zwc) && l.contains('→'))
        .expect("the function's row");
    assert!(
        row.trim_end_matches(['│', ' '])
            .ends_with(&f.pairs.to_string()),
        "{row}"
    );
}

#[test]
fn the_screen_names_selected_functions_the_api_doc_lacks() {
    use sebx::tui::app::Context;
    use sebx::tui::load::{FileKind, Source, SourceData};
    let line = rollout_line(
        Q_MEAN,
        &fence(CODE_MEAN_OK),
        Some((
            "selected_functions",
            serde_json::json!(["mean", "no_such_fn"]),
        )),
    );
    let line = line.replacen('{', "{\"verdict\": \"right\", ", 1);
    let ctx = Context {
        api: std::sync::Arc::new(sebx::model::ApiMap::from_api_doc_jsonl(API_DOC).expect("api")),
        dataset: std::sync::Arc::new(sebx::model::Dataset::default()),
        grading: Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, sebx::tui::Theme::dark(), sebx::tui::Keymap::default());
    sebx::tui::inline::load_inline(
        &mut app,
        &[Source {
            kind: FileKind::Rollouts,
            data: SourceData::Embedded {
                label: "run.jsonl".into(),
                text: Box::leak((line + "\n").into_boxed_str()),
            },
        }],
    );
    drain_inline(&mut app, None);
    open(&mut app, Action::StatsScreen);
    let text = screen(&draw(&app, 100, 30));
    assert!(text.contains("np.mean"), "{text}");
    assert!(text.contains("the API doc lacks: no_such_fn"), "{text}");
}

#[test]
fn slash_finds_a_function_on_the_map() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    let map = sebx::tui::stats::sorted_map(&app.stats, app.stats.result.as_ref().expect("figures"));
    let target = map
        .iter()
        .position(|f| f.numpy == "np.linalg.inv")
        .expect("np.linalg.inv row");
    // Start elsewhere on the map.
    let start = (target + 1) % map.len();
    for _ in 0..start {
        app.update(&Action::Down);
    }
    assert_ne!(app.stats.cursor, target);
    press(&mut app, '/', false);
    assert!(app.typing(), "the map's search box is open");
    // Smart case, as the list's search: a capital asks for the exact case, which no name has.
    for c in "RFX".chars() {
        press(&mut app, c, false);
    }
    assert_eq!(app.stats.cursor, start, "RFX matches no name");
    press(&mut app, 'u', true);
    // Typed, not the screen's keys: `q` would close it, `s` sort it.
    for c in "qs".chars() {
        press(&mut app, c, false);
    }
    assert_eq!(app.stats.screen, Some(Screen::Map));
    press(&mut app, 'u', true);
    // By zwc name (rfx.quvohe is np.linalg.inv's): lower case matches any case.
    for c in "rfx.quv".chars() {
        press(&mut app, c, false);
    }
    assert_eq!(app.stats.cursor, target, "jumps as it is typed");
    let event = Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let action = action_for_event(&app, &event).expect("enter");
    app.update(&action);
    assert!(!app.typing());
    assert_eq!(
        app.stats.screen,
        Some(Screen::Map),
        "enter ends the search only"
    );
    assert_eq!(app.stats.cursor, target);
    // `m`: the next match (from elsewhere), here the single one.
    press(&mut app, 'G', false);
    press(&mut app, 'm', false);
    assert_eq!(app.stats.cursor, target);
}
