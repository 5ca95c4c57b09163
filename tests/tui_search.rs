//! The list's search and going places, as state: a literal smart-case match gives the true
//! count and selects the first match, `~` asks for fuzzy matching, `m`/`M` walk the
//! matches in the pane and on to the next rollout, `:` goes to a file line.

use crate::tui_common;

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use sebx::tui::Action;
use sebx::tui::action::Edit;
use sebx::tui::app::{Grading, Pane};
use sebx::tui::inline::drain_inline;
use sebx::tui::run::action_for_event;
use tui_common::*;

fn unavailable() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime)
}

fn rows(app: &sebx::tui::App) -> Vec<usize> {
    app.list.rows().collect()
}

fn search(app: &mut sebx::tui::App, pattern: &str) {
    app.update(&Action::Search);
    for c in pattern.chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    drain_inline(app, None);
    app.settle();
}

/// Rows whose query or response contains `needle`, ignoring case: what a literal search
/// must find (the fixtures' names all occur in their responses).
fn containing(app: &sebx::tui::App, needle: &str) -> Vec<usize> {
    let needle = needle.to_lowercase();
    app.corpus
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.rollout.query.to_lowercase().contains(&needle)
                || e.rollout.response.to_lowercase().contains(&needle)
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn literal_search_gives_the_true_count_and_selects_the_first() {
    let mut app = app(unavailable());
    run_analysis(&mut app);
    app.update(&Action::Bottom);
    let expected = containing(&app, "pemra");
    assert!(!expected.is_empty() && expected.len() < app.corpus.entries.len());
    search(&mut app, "pemra");
    assert_eq!(
        rows(&app),
        expected,
        "every rollout containing it, in file order"
    );
    assert_eq!(
        app.list.selected,
        expected.first().copied(),
        "the first match is selected, not the row selected before"
    );
    // Smart case: a capital makes the match exact, and nothing spells it so.
    app.update(&Action::Cancel);
    app.update(&Action::Cancel);
    search(&mut app, "PEMRA");
    assert!(rows(&app).is_empty(), "{:?}", rows(&app));
}

#[test]
fn fuzzy_matching_is_behind_the_prefix() {
    let mut app = app(unavailable());
    run_analysis(&mut app);
    // A subsequence of `zwc.pemra`, written nowhere.
    assert!(containing(&app, "zpmr").is_empty());
    search(&mut app, "zpmr");
    assert!(rows(&app).is_empty(), "literal by default");
    app.update(&Action::Cancel);
    app.update(&Action::Cancel);
    search(&mut app, "~zpmr");
    let found = rows(&app);
    assert!(!found.is_empty(), "fuzzy after ~");
    for i in &found {
        let calls = app.corpus.digest(*i).map(|d| d.zwc_calls.join(" "));
        assert!(
            calls.is_some_and(|c| c.contains("zwc.pemra")),
            "row {i} calls zwc.pemra"
        );
    }
}

/// `m` (or `M`) as the explorer gets it: after a frame, which records where the matches are.
fn next_match(app: &mut sebx::tui::App, forward: bool) {
    draw(app, 80, 24);
    app.update(&if forward {
        Action::NextMatch
    } else {
        Action::PrevMatch
    });
}

#[test]
fn next_match_walks_the_pane_then_the_next_rollout() {
    let mut app = app(unavailable());
    run_analysis(&mut app);
    search(&mut app, "zwc");
    app.update(&Action::Edit(Edit::Submit));
    app.update(&Action::PaneCode);
    assert_eq!(app.detail.pane, Pane::Code);
    let first = app.list.selected.expect("a match is selected");
    let code_lines: Vec<usize> = app.corpus.entries[first]
        .code()
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("zwc"))
        .map(|(k, _)| k)
        .collect();
    assert!(code_lines.len() >= 2, "the fixture's code says zwc twice");
    next_match(&mut app, true);
    assert_eq!(
        app.list.selected,
        Some(first),
        "the next match is in this pane"
    );
    assert!(app.detail.scroll > 0, "the pane scrolled to it");
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("match ")),
        "{:?}",
        app.message
    );
    // Past the last match in the pane, the next rollout of the list.
    let order = rows(&app);
    let mut steps = 0;
    while app.list.selected == Some(first) && steps < 50 {
        next_match(&mut app, true);
        steps += 1;
    }
    let next = order[order.iter().position(|r| *r == first).expect("in view") + 1];
    assert_eq!(app.list.selected, Some(next));
    // The next frame scrolls to its first match; the scroll sticks from the next key on.
    assert_eq!(app.detail.match_pending, Some(true));
    draw(&app, 80, 24);
    let drawn = app.detail.matches_drawn.borrow().clone();
    assert_eq!(drawn.row, Some(next));
    assert_eq!(drawn.scrolled_to, drawn.offsets.first().copied());
    // And back.
    next_match(&mut app, false);
    assert_eq!(app.list.selected, Some(first));
}

#[test]
fn goto_line_selects_the_rollout_on_that_file_line() {
    let mut app = app(unavailable());
    let target = app
        .corpus
        .entries
        .iter()
        .position(|e| e.run == 0 && e.rollout.line == 5)
        .expect("run A has a rollout on line 5");
    app.update(&Action::GotoLine);
    assert!(app.list.goto.is_open() && app.list.goto.text().is_empty());
    app.update(&Action::Edit(Edit::Insert('5')));
    app.update(&Action::Edit(Edit::Submit));
    assert!(!app.list.goto.is_open());
    assert_eq!(app.list.selected, Some(target));
    // Line 4 of run A is a bad line: said, and the selection stays.
    app.update(&Action::GotoLine);
    app.update(&Action::Edit(Edit::Insert('4')));
    app.update(&Action::Edit(Edit::Submit));
    assert_eq!(app.list.selected, Some(target));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("no rollout on line 4")),
        "{:?}",
        app.message
    );
    // Esc leaves the prompt without moving.
    app.update(&Action::GotoLine);
    app.update(&Action::Edit(Edit::Insert('1')));
    app.update(&Action::Cancel);
    assert!(!app.list.goto.is_open());
    assert_eq!(app.list.selected, Some(target));
}

/// A key as the terminal sends it, through the explorer's own mapping (`sebx FILES`'s).
fn press(app: &mut sebx::tui::App, code: KeyCode, modifiers: KeyModifiers) {
    let event = Event::Key(KeyEvent::new(code, modifiers));
    if let Some(action) = action_for_event(app, &event) {
        app.update(&action);
    }
    drain_inline(app, None);
    app.settle();
}

fn type_keys(app: &mut sebx::tui::App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

#[test]
fn a_second_search_starts_a_new_pattern() {
    let mut app = app(unavailable());
    run_analysis(&mut app);
    let pemra = containing(&app, "pemra");
    let kocito = containing(&app, "kocito");
    assert!(!pemra.is_empty() && !kocito.is_empty() && pemra != kocito);
    for (pattern, expected) in [("pemra", &pemra), ("kocito", &kocito), ("pemra", &pemra)] {
        press(&mut app, KeyCode::Char('/'), KeyModifiers::NONE);
        type_keys(&mut app, pattern);
        press(&mut app, KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            app.list.search.pattern, pattern,
            "not appended to the last one"
        );
        assert_eq!(
            &rows(&app),
            expected,
            "`/{pattern}` finds what it found before"
        );
    }
    // The last pattern is offered: enter keeps it, ↑ recalls the one before.
    press(&mut app, KeyCode::Char('/'), KeyModifiers::NONE);
    assert_eq!(app.list.search_box.text(), "pemra");
    press(&mut app, KeyCode::Up, KeyModifiers::NONE);
    assert_eq!(app.list.search_box.text(), "kocito");
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(rows(&app), kocito);
}

#[test]
fn ctrl_w_and_ctrl_u_edit_the_search() {
    let mut app = app(unavailable());
    run_analysis(&mut app);
    let all = rows(&app);
    press(&mut app, KeyCode::Char('/'), KeyModifiers::NONE);
    // `q` is typed, not quit; a stray key (F1, tab) is ignored and the box stays open.
    type_keys(&mut app, "qqq");
    press(&mut app, KeyCode::F(1), KeyModifiers::NONE);
    press(&mut app, KeyCode::Tab, KeyModifiers::NONE);
    assert!(!app.should_quit && app.list.search_box.is_open());
    assert_eq!(app.list.search_box.text(), "qqq");
    assert!(rows(&app).is_empty(), "nothing says qqq here");
    // Ctrl-W deletes the word: no search, every row again.
    press(&mut app, KeyCode::Char('w'), KeyModifiers::CONTROL);
    assert_eq!(app.list.search_box.text(), "");
    assert_eq!(rows(&app), all);
    // Ctrl-U deletes what is before the cursor.
    type_keys(&mut app, "xyzpemra");
    assert!(rows(&app).is_empty());
    for _ in 0.."pemra".len() {
        press(&mut app, KeyCode::Left, KeyModifiers::NONE);
    }
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(app.list.search.pattern, "pemra");
    assert_eq!(rows(&app), containing(&app, "pemra"));
    // Ctrl-A / Ctrl-E and Delete.
    press(&mut app, KeyCode::Char('e'), KeyModifiers::CONTROL);
    type_keys(&mut app, "x");
    press(&mut app, KeyCode::Char('a'), KeyModifiers::CONTROL);
    press(&mut app, KeyCode::Delete, KeyModifiers::NONE);
    assert_eq!(app.list.search_box.text(), "emrax");
}

#[test]
fn ctrl_c_quits_from_every_text_box() {
    let openers = [
        (Action::Search, "search"),
        (Action::GotoLine, "go to line"),
        (Action::StepRange, "step range"),
        (Action::EditNote, "note"),
        (Action::BookmarkCaption, "caption"),
    ];
    for (open, name) in openers {
        let mut app = app(unavailable());
        app.update(&Action::Top);
        app.update(&open);
        assert!(app.typing(), "{name}: a box is open");
        type_keys(&mut app, "1");
        press(&mut app, KeyCode::F(2), KeyModifiers::NONE);
        assert!(app.typing(), "{name}: a stray key leaves the box open");
        assert!(!app.should_quit);
        press(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(app.should_quit, "{name}: ctrl-c quits");
    }
}

#[test]
fn the_go_to_box_takes_digits_and_recalls_its_history() {
    let mut app = app(unavailable());
    press(&mut app, KeyCode::Char(':'), KeyModifiers::NONE);
    type_keys(&mut app, "5x");
    assert_eq!(app.list.goto.text(), "5", "a letter is not a line");
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE);
    let at_5 = app.list.selected;
    press(&mut app, KeyCode::Char('g'), KeyModifiers::NONE);
    assert_ne!(app.list.selected, at_5);
    press(&mut app, KeyCode::Char(':'), KeyModifiers::NONE);
    press(&mut app, KeyCode::Up, KeyModifiers::NONE);
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(app.list.selected, at_5, "↑ recalled line 5");
}

/// `:` says which file the line is of, in the prompt and when it lands: with two runs,
/// line 2 of run B is not line 2 of run A.
#[test]
fn goto_line_names_the_file_it_goes_into() {
    let mut app = app(unavailable());
    let in_b = app
        .corpus
        .entries
        .iter()
        .position(|e| e.run == 1)
        .expect("run B has rollouts");
    app.update(&Action::Top);
    while app.list.selected != Some(in_b) {
        app.update(&Action::Down);
    }
    let b = app.corpus.runs[1].name.clone();
    let line = app.corpus.entries[in_b].rollout.line;
    app.update(&Action::GotoLine);
    let drawn = screen(&draw(&app, 160, 40));
    let status = drawn.lines().last().unwrap_or("");
    assert!(status.contains(&format!("line of {b} ")), "{status}");
    for c in line.to_string().chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    app.update(&Action::Edit(Edit::Submit));
    assert_eq!(app.list.selected, Some(in_b));
    assert_eq!(app.message, Some(format!("{b}:{line}")));
}
