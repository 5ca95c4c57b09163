//! The list's search and going places, as state: a literal smart-case match gives the true
//! count and selects the first match, `~` asks for fuzzy matching, `m`/`M` walk the
//! matches in the pane and on to the next rollout, `:` goes to a file line.

mod tui_common;

use sebx::tui::Action;
use sebx::tui::app::{Grading, Pane};
use sebx::tui::inline::drain_inline;
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
        app.update(&Action::SearchInput(c));
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
    app.update(&Action::SearchSubmit);
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
    assert_eq!(app.list.goto.as_deref(), Some(""));
    app.update(&Action::GotoInput('5'));
    app.update(&Action::GotoSubmit);
    assert_eq!(app.list.goto, None);
    assert_eq!(app.list.selected, Some(target));
    // Line 4 of run A is a bad line: said, and the selection stays.
    app.update(&Action::GotoLine);
    app.update(&Action::GotoInput('4'));
    app.update(&Action::GotoSubmit);
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
    app.update(&Action::GotoInput('1'));
    app.update(&Action::Cancel);
    assert_eq!(app.list.goto, None);
    assert_eq!(app.list.selected, Some(target));
}
