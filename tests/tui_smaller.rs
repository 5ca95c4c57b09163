//! Smaller fixes of the explorer: a syntax error's static check lists no step it never
//! took; the functions column colours a NumPy name on zwc and an invented name apart from
//! a right call (and the help explains the list's columns); wrapped prose keeps its left
//! edge in the Response pane and the category picker.

use crate::tui_common;

use sebx::tui::app::{Context, Grading, Popup};
use sebx::tui::inline::drain_inline;
use sebx::tui::load::{FileKind, Source, SourceData};
use sebx::tui::{Action, App, Keymap, Theme};
use tui_common::*;

fn unavailable() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime)
}

fn app_of(text: String) -> App {
    let ctx = Context {
        api: std::sync::Arc::new(sebx::model::ApiMap::from_api_doc_jsonl(API_DOC).expect("api")),
        dataset: std::sync::Arc::new(sebx::model::Dataset::default()),
        grading: unavailable(),
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    // Signed, so that a label key opens its popup rather than asking who labels.
    app.labelling.annotator = "tester".to_string();
    app.update(&Action::Resize {
        width: 100,
        height: 30,
    });
    sebx::tui::inline::load_inline(
        &mut app,
        &[Source {
            kind: FileKind::Rollouts,
            data: SourceData::Embedded {
                label: "run.jsonl".into(),
                text: Box::leak(text.into_boxed_str()),
            },
        }],
    );
    run_analysis(&mut app);
    app
}

#[test]
fn a_syntax_error_lists_no_unchecked_step() {
    let code = "import zwc\n\ndef solve(grid)\n    return zwc.kocito(grid)\n";
    let mut app = app_of(rollout_line(Q_MEAN, &fence(code), None) + "\n");
    app.update(&Action::PaneCode);
    drain_inline(&mut app, None);
    let text = screen(&draw(&app, 100, 60));
    assert!(text.contains("✗ the program parses"), "{text}");
    assert!(text.contains("not checked"), "{text}");
    for unchecked in ["zwc imported", "found", "returns a value", "meaningful use"] {
        assert!(
            !text.contains(unchecked),
            "{unchecked:?} was never checked:\n{text}"
        );
    }
}

#[test]
fn the_functions_column_tells_right_numpy_and_invented_names_apart() {
    let ok = "import zwc\n\ndef solve(grid):\n    return zwc.kocito(grid, axis=1)\n";
    let numpy = "import zwc\n\ndef solve(grid):\n    return zwc.mean(grid, axis=1)\n";
    let invented = "import zwc\n\ndef solve(grid):\n    return zwc.kocitoo(grid, axis=1)\n";
    let text = [ok, numpy, invented]
        .map(|c| rollout_line(Q_MEAN, &fence(c), None))
        .join("\n");
    let app = app_of(text);
    let t = draw(&app, 100, 30);
    let buf = t.backend().buffer();
    let screen = screen(&t);
    let colour_of = |needle: &str| {
        let (y, line) = screen
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} in the list:\n{screen}"));
        let x = line[..line.find(needle).expect("found")].chars().count();
        buf[(x as u16, y as u16)].fg
    };
    let theme = &app.theme;
    assert_eq!(Some(colour_of("zwc.mean")), theme.warning.fg, "{screen}");
    assert_eq!(Some(colour_of("zwc.kocitoo")), theme.error.fg, "{screen}");
    assert_ne!(colour_of(" mean "), colour_of("zwc.mean"), "{screen}");
}

#[test]
fn the_help_explains_the_lists_marks() {
    let mut app = app(unavailable());
    app.update(&Action::Help);
    let mut seen = String::new();
    for _ in 0..120 {
        seen.push_str(&screen(&draw(&app, 100, 40)));
        app.update(&Action::ScrollDown);
    }
    assert!(seen.contains("⚑ number of findings"), "{seen}");
    assert!(seen.contains("amber a NumPy name on zwc"), "{seen}");
}

/// Column of the first non-space character after the frame's `│` on each line of `rows`.
fn text_columns(rows: &[&str]) -> Vec<usize> {
    rows.iter()
        .map(|l| {
            let inner: Vec<char> = l.chars().skip_while(|c| *c != '│').skip(1).collect();
            inner.iter().position(|c| *c != ' ').unwrap_or(usize::MAX)
        })
        .collect()
}

#[test]
fn wrapped_prose_keeps_its_left_edge() {
    let prose = "This paragraph is long enough that it has to wrap over several lines of the pane, and every one of those lines should start where the first one started, not one column further left.";
    let mut app = app_of(
        rollout_line(
            Q_MEAN,
            &format!("{prose}\n\n{}", fence("import zwc\n")),
            None,
        ) + "\n",
    );
    app.update(&Action::PaneResponse);
    let text = screen(&draw(&app, 60, 40));
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("This paragraph"))
        .take_while(|l| !l.trim_matches(['│', ' ']).is_empty())
        .collect();
    assert!(rows.len() >= 3, "{text}");
    let cols = text_columns(&rows);
    assert!(cols.iter().all(|c| *c == cols[0]), "{cols:?}\n{text}");

    // The category picker: a description continues under itself.
    app.update(&Action::CategoryPicker);
    assert_eq!(app.popup, Some(Popup::CategoryPicker));
    let picker = screen(&draw(&app, 100, 40));
    let lines: Vec<&str> = picker.lines().collect();
    let (k, first) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains("Calls a NumPy name on zwc"))
        .expect("a category's description");
    let start = first.find("Calls").map(|b| first[..b].chars().count());
    let next = lines[k + 1];
    let cont = next
        .char_indices()
        .skip(1)
        .find(|(_, c)| *c != ' ' && *c != '│')
        .map(|(b, _)| next[..b].chars().count());
    assert_eq!(cont, start, "{picker}");
}

/// A long line of the graded block, wrapped in a narrow Response pane, keeps the block's
/// `▌` marker on every piece.
#[test]
fn wrapped_lines_of_the_graded_block_keep_their_marker() {
    let code = "import zwc\n\ndef solve(grid):\n    return zwc.kocito(grid, axis=0) + zwc.kocito(grid, axis=0) * 0 + zwc.kocito(grid, axis=0) * 0\n";
    let mut app = app_of(rollout_line(Q_MEAN, &fence(code), None) + "\n");
    app.update(&Action::PaneResponse);
    let text = screen(&draw(&app, 60, 40));
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("return zwc.kocito"))
        .take_while(|l| !l.contains("```"))
        .collect();
    assert!(rows.len() >= 2, "the line wraps:\n{text}");
    for row in &rows {
        assert!(row.contains('▌'), "{row:?} lost the marker:\n{text}");
    }
}

/// At 80 columns the Cases pane's summary (cases failed, the reward note, the keys) wraps
/// instead of being cut: the reward note of a row scored by its verdict alone is whole.
#[test]
fn the_cases_summary_wraps_at_80_columns() {
    let mut app = app(Grading::Available);
    drain_inline(&mut app, None);
    // Run A's line 2: a stored report without an RL reward, with cases.
    let row = app
        .corpus
        .entries
        .iter()
        .position(|e| e.run == 0 && e.rollout.line == 2)
        .expect("line 2 of run A");
    app.update(&Action::Top);
    while app.list.selected != Some(row) {
        app.update(&Action::Down);
    }
    app.update(&Action::PaneCases);
    // Tall enough that the pane does not scroll past its summary to the first case.
    app.update(&Action::Resize {
        width: 80,
        height: 50,
    });
    let screen = screen(&draw(&app, 80, 50));
    let flat: String = screen
        .lines()
        .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("cases failed"), "{screen}");
    let key = app
        .keymap
        .key_in(sebx::tui::action::Scope::Main, Action::Regrade)
        .expect("regrade is bound");
    assert!(
        flat.contains(&format!("no RL reward ({key} scores it)")),
        "the reward note whole:\n{screen}"
    );
    let first = app
        .keymap
        .key_in(sebx::tui::action::Scope::Main, Action::FirstFailedCase)
        .expect("bound");
    assert!(
        flat.contains(&format!("{first} first failed")),
        "the last words whole:\n{screen}"
    );
}
