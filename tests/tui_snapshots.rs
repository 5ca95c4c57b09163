//! Render tests: each pane, the help and the issues popups, drawn into a TestBackend.

use crate::tui_common;

use insta::assert_snapshot;
use ratatui::style::Modifier;
use sebx::tui::action::Edit;
use sebx::tui::app::Grading;
use sebx::tui::inline::drain_inline;
use sebx::tui::{Action, App, Theme};
use tui_common::*;

fn session() -> App {
    let mut app = app(Grading::Unavailable(
        sebx::grade::backend::Unavailable::NoRuntime,
    ));
    drain_inline(&mut app, None);
    app
}

fn select(app: &mut App, row: usize) {
    app.update(&Action::Top);
    for _ in 0..row {
        app.update(&Action::Down);
    }
    drain_inline(app, None);
    assert_eq!(app.list.selected, Some(row));
}

#[test]
fn response_pane() {
    let mut app = session();
    select(&mut app, 1);
    assert_snapshot!(screen(&draw(&app, 80, 24)));
}

#[test]
fn code_pane() {
    let mut app = session();
    select(&mut app, 2);
    app.update(&Action::PaneCode);
    let t = draw(&app, 80, 24);
    assert_snapshot!(screen(&t));
    // The hallucinated name is drawn in the theme's error style.
    let buf = t.backend().buffer();
    let (x, y) = find(&screen(&t), "zwc.rfx.quvohee(").expect("code line drawn");
    let cell = &buf[(x as u16, y as u16)];
    assert!(cell.modifier.contains(Modifier::UNDERLINED));
    assert_eq!(cell.fg, app.theme.error.fg.expect("error colour"));
}

#[test]
fn cases_pane_with_diff_and_explanation() {
    let mut app = session();
    select(&mut app, 1);
    app.update(&Action::FirstFailedCase);
    assert_snapshot!(screen(&draw(&app, 80, 24)));
    app.update(&Action::ScrollDown);
    assert_snapshot!("cases_pane_second_case", screen(&draw(&app, 80, 24)));
}

#[test]
fn output_pane_maps_traceback() {
    let mut app = session();
    select(&mut app, 2);
    app.update(&Action::PaneOutput);
    assert_snapshot!(screen(&draw(&app, 80, 30)));
}

#[test]
fn graph_pane() {
    let mut app = session();
    select(&mut app, 8);
    app.update(&Action::PaneGraph);
    let drawn = screen(&draw(&app, 80, 24));
    assert!(
        drawn.contains("▼") && drawn.contains("◆ zwc.pemra ‹std›"),
        "{drawn}"
    );
    assert_snapshot!("graph_pane_drawing", drawn);
    // `5` again: the list by layer and the call tree, as before.
    app.update(&Action::PaneGraph);
    let listed = screen(&draw(&app, 80, 24));
    assert!(
        listed.contains("Dependency graph (values flowing to the return)"),
        "{listed}"
    );
    assert_snapshot!(listed);
    app.update(&Action::PaneGraph);
    assert_eq!(screen(&draw(&app, 80, 24)), drawn);
    // Sideways and down: the drawing scrolls inside the pane.
    app.update(&Action::ScrollRight);
    let right = screen(&draw(&app, 80, 24));
    assert!(
        !right.contains("entry helper(v)") && right.contains("│lper(v)"),
        "{right}"
    );
    app.update(&Action::ScrollLeft);
    app.update(&Action::ScrollDown);
    app.update(&Action::ScrollDown);
    let down = screen(&draw(&app, 80, 24));
    assert!(
        !down.contains("Dependency graph") && down.contains("│    │  return  │"),
        "{down}"
    );
}

#[test]
fn task_pane() {
    let mut app = session();
    select(&mut app, 2);
    app.update(&Action::PaneTask);
    assert_snapshot!(screen(&draw(&app, 80, 30)));
}

#[test]
fn help_screen_comes_from_the_keymap() {
    let mut app = session();
    app.update(&Action::Help);
    let text = screen(&draw(&app, 100, 50));
    assert_snapshot!(text);
    // The help scrolls: what does not fit on the first screen is further down; it stops
    // at its last line (no blank box past the end, however far one scrolls).
    app.update(&Action::Resize {
        width: 100,
        height: 50,
    });
    let mut seen = String::new();
    for _ in 0..200 {
        app.update(&Action::ScrollDown);
        seen.push_str(&screen(&draw(&app, 100, 50)));
    }
    let rest = screen(&draw(&app, 100, 50));
    let lines: Vec<&str> = rest.lines().collect();
    let bottom = lines
        .iter()
        .rposition(|l| l.starts_with('└'))
        .expect("the popup's bottom border");
    assert!(
        lines[bottom - 1].trim_matches(['│', ' ']).len() > 3,
        "the last popup row holds text:\n{rest}"
    );
    for a in Action::BINDABLE {
        assert!(
            text.contains(a.description()) || seen.contains(a.description()),
            "help lacks {a:?}"
        );
    }
    // The text boxes' keys are said too.
    assert!(
        text.contains("In a text box") || seen.contains("In a text box"),
        "{rest}"
    );
    // The list's markers are explained with the verdict symbols.
    assert!(
        text.contains("RL official RL reward 1/0 · ≠ disagrees with the verdict")
            || seen.contains("RL official RL reward 1/0 · ≠ disagrees with the verdict"),
        "{rest}"
    );
}

#[test]
fn issues_popup_lists_bad_lines_with_reasons() {
    let mut app = session();
    let main = screen(&draw(&app, 100, 24));
    assert!(main.contains("⚠ 2 bad lines"), "{main}");
    app.update(&Action::Issues);
    assert_snapshot!(screen(&draw(&app, 100, 24)));
}

#[test]
fn search_highlights_and_status_bar_shows_filters() {
    let mut app = session();
    // The filter first: while the search box is open, keys are the box's.
    app.update(&Action::CycleVerdictFilter);
    app.update(&Action::Search);
    for c in "invert".chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    drain_inline(&mut app, None);
    let t = draw(&app, 80, 24);
    let text = screen(&t);
    assert_snapshot!(text);
    // Matched characters of the query are drawn in the `matched` style.
    let (x, y) = find(&text, "Invert the").expect("a matching row");
    assert_eq!(
        t.backend().buffer()[(x as u16, y as u16)].fg,
        app.theme.matched.fg.expect("matched colour")
    );
}

#[test]
fn wide_layout_and_tiny_terminals() {
    let mut app = session();
    select(&mut app, 1);
    app.update(&Action::Resize {
        width: 160,
        height: 30,
    });
    assert_snapshot!(screen(&draw(&app, 160, 30)));
    for (w, h) in [(80, 24), (40, 10), (10, 4), (1, 1)] {
        app.update(&Action::Resize {
            width: w,
            height: h,
        });
        draw(&app, w, h);
    }
}

#[test]
fn every_theme_draws_verdicts_in_its_own_colours() {
    for name in ["dark", "light", "high-contrast"] {
        let mut app = session();
        app.theme = Theme::builtin(name).expect("builtin theme");
        let t = draw(&app, 80, 24);
        let text = screen(&t);
        let (x, y) = find(&text, "✓ right").expect("right row");
        assert_eq!(
            t.backend().buffer()[(x as u16, y as u16)].fg,
            app.theme.verdict_right.fg.expect("colour"),
            "{name}"
        );
        let (x, y) = find(&text, "✗ result_error").expect("result_error row");
        assert_eq!(
            t.backend().buffer()[(x as u16, y as u16)].fg,
            app.theme.verdict_result_error.fg.expect("colour"),
            "{name}"
        );
    }
}

/// Cell (column, row) where `needle` starts on the screen.
fn find(screen: &str, needle: &str) -> Option<(usize, usize)> {
    screen.lines().enumerate().find_map(|(y, line)| {
        line.find(needle)
            .map(|byte| (line[..byte].chars().count(), y))
    })
}

#[test]
fn without_an_api_doc_names_are_not_called_unknown() {
    let ctx = sebx::tui::app::Context {
        api: std::sync::Arc::new(sebx::model::ApiMap::default()),
        dataset: std::sync::Arc::new(dataset()),
        grading: Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), sebx::tui::Keymap::default());
    app.update(&Action::Resize {
        width: 80,
        height: 24,
    });
    sebx::tui::inline::load_inline(&mut app, &sources());
    select(&mut app, 2);
    app.update(&Action::PaneCode);
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("no API doc: pass --api-doc FILE"), "{text}");
    assert!(
        !text.contains('‹'),
        "no NumPy hints without an API doc: {text}"
    );
    assert!(!text.contains("unknown zwc name"), "{text}");
    app.update(&Action::PaneGraph);
    let text = screen(&draw(&app, 80, 24));
    assert!(!text.contains("unknown"), "{text}");
    // The background sweep does not flag names either.
    drain_inline(&mut app, None);
    for i in 0..app.corpus.entries.len() {
        assert!(
            app.corpus.findings(i).iter().all(|f| !f.kind.needs_api()),
            "row {i}"
        );
    }
}

/// The fixtures with run A's reports written by `--scorer both` (see `reports_a_with_rewards`).
fn rewarded_session() -> App {
    let mut app = app_with(
        Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
        &sources_with_rewards(),
    );
    drain_inline(&mut app, None);
    app
}

/// Where the official RL reward disagrees with the verdict, the Cases pane heads with both
/// and the reason, kept in view while the cases move; the list's `RL` column marks it `≠`.
#[test]
fn cases_pane_shows_a_reward_that_disagrees_and_why() {
    let mut app = rewarded_session();
    select(&mut app, 0);
    app.update(&Action::PaneCases);
    let t = draw(&app, 80, 24);
    let text = screen(&t);
    assert_snapshot!(text);
    assert!(
        text.contains("reward 0 (official RL) ≠ verdict right"),
        "{text}"
    );
    // The reason, wrapped: its first words and its last are on screen.
    assert!(
        text.contains("why      stderr not empty: DeprecationWarning: Conversion"),
        "{text}"
    );
    assert!(text.contains("         reward gives 0)"), "{text}");
    // The reward's column: `≠` where it disagrees (in the warning style), the reward alone
    // where it agrees, blank where only the verdict was scored.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains("verdict      RL run"), "{}", lines[1]);
    let row = |needle: &str| {
        *lines
            .iter()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no row {needle:?} in {text}"))
    };
    assert!(row("✓ right").contains("right        0≠ run_a"), "{text}");
    assert!(
        row("✗ result_error").contains("result_error 1≠ run_a"),
        "{text}"
    );
    assert!(
        row("! exe_error").contains("exe_error    0  run_a"),
        "{text}"
    );
    assert!(
        row("N use_numpy").contains("use_numpy    0  run_a"),
        "{text}"
    );
    assert!(
        row("Z without_zwc").contains("without_zwc     run_a"),
        "{text}"
    );
    let (x, y) = find(&text, "0≠").expect("the disagreeing reward");
    assert_eq!(
        t.backend().buffer()[(x as u16, y as u16)].fg,
        app.theme.warning.fg.expect("warning colour")
    );
    let (x, y) = find(&text, "0  run_a").expect("an agreeing reward");
    assert_eq!(
        t.backend().buffer()[(x as u16, y as u16)].fg,
        app.theme.dim.fg.expect("dim colour")
    );
    // The next case: the reward and its reason stay on top.
    app.update(&Action::ScrollDown);
    let next = screen(&draw(&app, 80, 24));
    assert!(next.contains("Case 2 ✓ matched"), "{next}");
    assert!(
        next.contains("reward 0 (official RL) ≠ verdict right") && next.contains("why      stderr"),
        "{next}"
    );
    // Small terminals: the pinned lines give way rather than crowd out the cases.
    for (w, h) in [(80, 12), (40, 10), (10, 4), (1, 1)] {
        app.update(&Action::Resize {
            width: w,
            height: h,
        });
        let small = screen(&draw(&app, w, h));
        if (w, h) == (80, 12) {
            assert!(small.contains("✓ 2 grid"), "{small}");
        }
    }
    app.update(&Action::Resize {
        width: 80,
        height: 24,
    });
    // Where they agree, the summary line says so in a few words; where only the verdict
    // was scored, that there is no reward.
    select(&mut app, 2);
    let agrees = screen(&draw(&app, 80, 24));
    assert!(
        agrees.contains("1 of 1 cases failed · reward 0 agrees · J/K"),
        "{agrees}"
    );
    assert!(!agrees.contains("(official RL)"), "{agrees}");
    select(&mut app, 4);
    let none = screen(&draw(&app, 80, 24));
    assert!(
        none.contains("not run: no ```python block · no RL reward"),
        "{none}"
    );
}

/// A file scored by the verdict alone has no reward column: the list is as it was.
#[test]
fn without_rewards_the_list_has_no_reward_column() {
    let app = session();
    assert!(!app.corpus.has_rewards());
    let text = screen(&draw(&app, 80, 24));
    let header = text.lines().nth(1).expect("the column header");
    assert!(header.contains("verdict      run"), "{header}");
    assert!(!header.contains("RL"), "{header}");
}
