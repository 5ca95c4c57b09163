//! Labelling at full speed: every category of the taxonomy on one key (numbers, then
//! letters), label and advance, `N` from the current row, progress counted against the
//! failures, an unnamed annotator asked for a name once, and labels shown
//! outside label mode (list and detail header).

use crate::tui_common;

use std::path::Path;

use sebx::model::taxonomy::CategoryId;
use sebx::tui::action::Edit;
use sebx::tui::app::Grading;
use sebx::tui::{Action, App};
use tui_common::*;

fn unavailable() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime)
}

fn labelling_app(data: &Path, annotator: &str) -> App {
    let mut app = app(unavailable());
    run_analysis(&mut app);
    app.labelling.data_dir = Some(data.to_path_buf());
    app.labelling.annotator = annotator.to_string();
    app.service();
    app
}

fn saved(app: &App, row: usize) -> Option<Vec<CategoryId>> {
    let e = &app.corpus.entries[row];
    app.labelling
        .saved(e.run, &e.rollout.id)
        .map(|l| l.categories.clone())
}

fn failures(app: &App) -> Vec<usize> {
    (0..app.corpus.entries.len())
        .filter(|i| app.corpus.shown(*i).is_failure())
        .collect()
}

#[test]
fn every_category_has_a_key_and_label_mode_leaves_the_keys_it_needs() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann");
    let t = &app.labelling.taxonomy;
    assert!(
        t.categories.iter().all(|c| c.key.is_some()),
        "{:?}",
        t.categories
            .iter()
            .filter(|c| c.key.is_none())
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>()
    );
    let not_zwc = t
        .get(&CategoryId::new("not_using_zwc"))
        .and_then(|c| c.key)
        .expect("the most frequent real-run category has a key");
    // A key given beyond the taxonomy's own is bound to nothing else (label mode hides no
    // key): a digit (label mode takes digits by design) or a letter the keymap leaves free.
    let own = sebx::model::taxonomy::Taxonomy::default_set();
    for c in &t.categories {
        let key = c.key.expect("a key");
        if own.get(&c.id).and_then(|o| o.key) == Some(key) {
            continue;
        }
        let ev = ratatui::crossterm::event::KeyEvent::new(
            ratatui::crossterm::event::KeyCode::Char(key),
            ratatui::crossterm::event::KeyModifiers::NONE,
        );
        assert!(
            key.is_ascii_digit() || app.keymap.action_for(&ev).is_none(),
            "{key} ({}) is bound to {:?}",
            c.id.as_str(),
            app.keymap.action_for(&ev)
        );
    }
    let row = failures(&app)[0];
    app.update(&Action::Top);
    while app.list.selected != Some(row) {
        app.update(&Action::Down);
    }
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory(not_zwc));
    app.service();
    assert_eq!(
        saved(&app, row),
        Some(vec![CategoryId::new("not_using_zwc")])
    );
}

#[test]
fn label_and_advance_and_n_from_the_current_row() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann");
    let fails = failures(&app);
    assert!(fails.len() >= 3);
    // N on an unlabelled failure stays on it.
    app.update(&Action::Top);
    while app.list.selected != Some(fails[0]) {
        app.update(&Action::Down);
    }
    app.update(&Action::NextUnlabelledFailure);
    assert_eq!(app.list.selected, Some(fails[0]), "N never skips this one");

    // L twice: label and advance.
    app.update(&Action::LabelMode);
    app.update(&Action::LabelMode);
    assert!(app.labelling.mode && app.labelling.advance);
    app.update(&Action::ToggleCategory('8'));
    assert_eq!(
        app.list.selected,
        Some(fails[1]),
        "the key labelled and moved on"
    );
    app.update(&Action::ToggleCategory('6'));
    assert_eq!(app.list.selected, Some(fails[2]));
    app.service();
    assert_eq!(
        saved(&app, fails[0]),
        Some(vec![CategoryId::new("logic_error")])
    );
    assert_eq!(
        saved(&app, fails[1]),
        Some(vec![CategoryId::new("wrong_arguments")])
    );
    // A key that clears the label stays, to label again.
    app.update(&Action::Up);
    assert_eq!(app.list.selected, Some(fails[1]));
    app.update(&Action::ToggleCategory('6'));
    assert_eq!(app.list.selected, Some(fails[1]));
    // L a third time leaves label mode.
    app.update(&Action::LabelMode);
    assert!(!app.labelling.mode && !app.labelling.advance);
}

#[test]
fn progress_counts_failures_and_labels_show_outside_label_mode() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann");
    let fails = failures(&app);
    let row = fails[0];
    app.update(&Action::Top);
    while app.list.selected != Some(row) {
        app.update(&Action::Down);
    }
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('8'));
    app.update(&Action::LabelMode);
    app.update(&Action::LabelMode);
    assert!(!app.labelling.mode);
    app.service();
    let text = screen(&draw(&app, 120, 30));
    let title = text.lines().next().unwrap_or("");
    assert!(
        title.contains(&format!("1 of {} failures labelled", fails.len())),
        "{title}"
    );
    // The list row and the detail header carry the label, label mode off.
    let list_row = text
        .lines()
        .find(|l| l.starts_with("│▶"))
        .expect("the selected row");
    assert!(list_row.contains("Logic error"), "{list_row}");
    let detail_top = text
        .lines()
        .find(|l| l.contains("1 Response"))
        .expect("the detail frame");
    assert!(detail_top.contains("Logic error"), "{detail_top}");
}

/// Never silently anonymous: with no name from the flag, the config or the environment,
/// the first label asks for one (nothing is saved before), is then saved signed with it,
/// and the next label is not asked again; escape labels nothing.
#[test]
fn an_unnamed_annotator_is_asked_once_before_the_first_label() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "");
    app.update(&Action::LabelMode);
    // `N` looks for an unlabelled failure: it needs no name.
    app.update(&Action::NextUnlabelledFailure);
    let first = app.list.selected.expect("a failure selected");
    assert!(!app.typing());
    app.update(&Action::ToggleCategory('8'));
    app.service();
    assert!(app.typing(), "the name box is open");
    assert!(
        app.message.as_deref().unwrap_or("").contains("who labels?"),
        "{:?}",
        app.message
    );
    assert_eq!(saved(&app, first), None, "nothing saved before a name");
    // Escape: not labelled, and asked again at the next label.
    app.update(&Action::Cancel);
    app.service();
    assert_eq!(saved(&app, first), None);
    app.update(&Action::ToggleCategory('8'));
    assert!(app.typing(), "asked again");
    for c in "ann".chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    app.update(&Action::Edit(Edit::Submit));
    app.service();
    assert!(!app.typing());
    assert_eq!(app.labelling.annotator, "ann");
    let e = &app.corpus.entries[first];
    let label = app.labelling.saved(e.run, &e.rollout.id).expect("saved");
    assert_eq!(label.annotator, "ann");
    assert!(!label.categories.is_empty());
    // Asked once: the next label is made at once.
    let other = app
        .labelling
        .taxonomy
        .categories
        .iter()
        .filter_map(|c| c.key)
        .find(|k| *k != '8')
        .expect("a second category key");
    app.update(&Action::ToggleCategory(other));
    app.service();
    assert!(!app.typing());
    assert_eq!(saved(&app, first).map(|c| c.len()), Some(2));
}
