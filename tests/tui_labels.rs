//! Labelling and reruns in the explorer: state tests (actions in, labels on disk out) and
//! snapshots of the Labels and Rerun panels and the picker, agreement and runtime popups.

use crate::tui_common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sebx::grade::backend::GradeBackend;
use sebx::grade::reruns::RerunStore;
use sebx::model::Verdict;
use sebx::model::labels::LabelStore;
use sebx::model::taxonomy::CategoryId;
use sebx::tui::action::Edit;
use sebx::tui::app::{Grading, Popup};
use sebx::tui::entry::Shown;
use sebx::tui::jobs::JobRequest;
use sebx::tui::labelling::LabelFilter;
use sebx::tui::{Action, App};
use tui_common::*;

use crate::isolated;

fn unavailable() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime)
}

/// The fixture app with its sidecars under `data` (the fixture runs are built in, like the demo).
fn labelling_app(data: &Path, annotator: &str, grading: Grading) -> App {
    let mut app = app(grading);
    run_analysis(&mut app);
    app.labelling.data_dir = Some(data.to_path_buf());
    app.labelling.annotator = annotator.to_string();
    app.service();
    app
}

fn ids(list: &[&str]) -> Vec<CategoryId> {
    list.iter().map(|s| CategoryId::new(s)).collect()
}

fn saved_categories(app: &App, row: usize) -> Option<Vec<CategoryId>> {
    let e = &app.corpus.entries[row];
    app.labelling
        .saved(e.run, &e.rollout.id)
        .map(|l| l.categories.clone())
}

fn select(app: &mut App, row: usize) {
    app.update(&Action::Top);
    for _ in 0..row {
        app.update(&Action::Down);
    }
    assert_eq!(app.list.selected, Some(row));
}

fn sidecar(data: &Path) -> PathBuf {
    data.join("demo/run_a.jsonl.labels.jsonl")
}

#[test]
fn keys_toggle_categories_and_each_change_is_on_disk_before_it_shows() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 1);
    app.update(&Action::LabelMode);
    assert!(app.labelling.mode);
    // Two keys before the I/O step: the second builds on the first.
    app.update(&Action::ToggleCategory('8'));
    app.update(&Action::ToggleCategory('6'));
    assert_eq!(saved_categories(&app, 1), None, "shown before it is saved");
    assert!(!sidecar(data.path()).exists());
    app.service();
    assert_eq!(
        saved_categories(&app, 1),
        Some(ids(&["wrong_arguments", "logic_error"]))
    );
    assert_eq!(
        app.message,
        Some(format!(
            "saved to {} (built-in demo): Wrong arguments, Logic error (line {} of {}: + Wrong arguments)",
            sidecar(data.path()).display(),
            app.corpus.entries[1].rollout.line,
            app.corpus.runs[app.corpus.entries[1].run].name
        ))
    );
    let lines = std::fs::read_to_string(sidecar(data.path())).expect("sidecar written");
    assert_eq!(lines.lines().count(), 2, "one record per change");

    app.update(&Action::ToggleCategory('8'));
    app.service();
    assert_eq!(saved_categories(&app, 1), Some(ids(&["wrong_arguments"])));
    assert_eq!(app.labelling.progress.labelled, 1);
    assert_eq!(app.labelling.progress.total, 9);
    assert_eq!(
        app.labelling
            .progress
            .per_category
            .get(&CategoryId::new("wrong_arguments")),
        Some(&1)
    );
    // Untoggling the last category clears the label.
    app.update(&Action::ToggleCategory('6'));
    app.service();
    assert_eq!(saved_categories(&app, 1), None);
    app.update(&Action::ToggleCategory('7'));
    app.service();

    // A new explorer on the same files sees the latest label.
    let again = labelling_app(data.path(), "ann", unavailable());
    assert_eq!(saved_categories(&again, 1), Some(ids(&["output_format"])));
    assert_eq!(again.labelling.progress.labelled, 1);
    // Outside label mode digits switch panes and label nothing.
    let mut app = again;
    select(&mut app, 2);
    let chord = ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Char('3'),
        ratatui::crossterm::event::KeyModifiers::NONE,
    );
    let ev = ratatui::crossterm::event::Event::Key(chord);
    assert_eq!(
        sebx::tui::run::action_for_event(&app, &ev),
        Some(Action::PaneCases)
    );
    app.update(&Action::LabelMode);
    assert_eq!(
        sebx::tui::run::action_for_event(&app, &ev),
        Some(Action::ToggleCategory('3'))
    );
}

#[test]
fn suggestion_is_stored_only_when_accepted() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    // result_error, no finding → logic error; exe_error calling an unknown name → invented.
    assert_eq!(
        app.labelling
            .suggestion(&app.corpus, 1)
            .map(|c| c.id.as_str()),
        Some("logic_error")
    );
    assert_eq!(
        app.labelling
            .suggestion(&app.corpus, 2)
            .map(|c| c.id.as_str()),
        Some("invented_zwc_name")
    );
    assert_eq!(
        app.labelling
            .suggestion(&app.corpus, 3)
            .map(|c| c.id.as_str()),
        Some("numpy_import")
    );
    assert_eq!(
        app.labelling.suggestion(&app.corpus, 0),
        None,
        "right needs no label"
    );
    select(&mut app, 2);
    app.service();
    assert_eq!(saved_categories(&app, 2), None);
    assert!(
        !sidecar(data.path()).exists(),
        "a suggestion is not a label"
    );
    app.update(&Action::AcceptSuggestion);
    app.service();
    assert_eq!(saved_categories(&app, 2), Some(ids(&["invented_zwc_name"])));
    app.update(&Action::AcceptSuggestion);
    app.service();
    assert_eq!(
        app.message.as_deref(),
        Some("already labelled Invented zwc name")
    );
}

#[test]
fn note_is_typed_saved_and_keeps_the_categories() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 1);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('8'));
    app.update(&Action::EditNote);
    for c in "axis=0 ".chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    app.update(&Action::Edit(Edit::Backspace));
    app.update(&Action::Edit(Edit::Submit));
    app.service();
    let e = &app.corpus.entries[1];
    let label = app
        .labelling
        .saved(e.run, &e.rollout.id)
        .expect("labelled")
        .clone();
    assert_eq!(label.note, "axis=0");
    assert_eq!(label.categories, ids(&["logic_error"]));
    // Esc leaves the note as it was.
    app.update(&Action::EditNote);
    app.update(&Action::Edit(Edit::Insert('!')));
    app.update(&Action::Cancel);
    app.service();
    let e = &app.corpus.entries[1];
    assert_eq!(
        app.labelling
            .saved(e.run, &e.rollout.id)
            .map(|l| l.note.as_str()),
        Some("axis=0")
    );
    assert!(!app.labelling.note.is_open());
}

#[test]
fn next_unlabelled_failure_skips_passes_and_labelled_rows() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 0);
    app.update(&Action::NextUnlabelledFailure);
    assert_eq!(app.list.selected, Some(1));
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('8'));
    app.service();
    app.update(&Action::Top);
    app.update(&Action::NextUnlabelledFailure);
    assert_eq!(app.list.selected, Some(2), "row 1 is labelled now");
    for _ in 0..3 {
        app.update(&Action::AcceptSuggestion);
        app.service();
        app.update(&Action::NextUnlabelledFailure);
    }
    // Row 5 crashes without a static clue (its `.tolist()` is on a NumPy scalar, which has
    // one): nothing to suggest, so it is labelled by hand.
    assert_eq!(app.list.selected, Some(5));
    assert!(app.labelling.suggestion(&app.corpus, 5).is_none());
    app.update(&Action::AcceptSuggestion);
    assert_eq!(
        app.message.as_deref(),
        Some("no suggestion for this rollout")
    );
    app.update(&Action::ToggleCategory('8'));
    app.service();
    app.update(&Action::NextUnlabelledFailure);
    // Rows 1–5 are the failures; 6–8 are unscored.
    for row in 1..=5 {
        assert!(app.corpus.shown(row).is_failure());
        assert!(saved_categories(&app, row).is_some(), "row {row}");
    }
    assert_eq!(
        app.message.as_deref(),
        Some("every failure shown is labelled")
    );
    assert_eq!(app.labelling.progress.labelled, 5);
}

#[test]
fn label_filter_cycles_unlabelled_labelled_and_categories() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 1);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('8'));
    app.update(&Action::Down);
    app.update(&Action::ToggleCategory('3'));
    app.service();
    let rows = |app: &App| -> Vec<usize> {
        app.list
            .view
            .iter()
            .filter_map(|r| match r {
                sebx::tui::app::ViewRow::Row(i) => Some(*i),
                _ => None,
            })
            .collect()
    };
    app.update(&Action::CycleLabelFilter);
    assert_eq!(app.labelling.filter, Some(LabelFilter::Unlabelled));
    assert_eq!(rows(&app), vec![0, 3, 4, 5, 6, 7, 8]);
    app.update(&Action::CycleLabelFilter);
    assert_eq!(rows(&app), vec![1, 2]);
    app.update(&Action::CycleLabelFilter);
    assert_eq!(
        app.labelling.filter,
        Some(LabelFilter::Category(CategoryId::new("numpy_import")))
    );
    assert!(rows(&app).is_empty());
    for _ in 0..7 {
        app.update(&Action::CycleLabelFilter);
    }
    assert_eq!(
        app.labelling.filter,
        Some(LabelFilter::Category(CategoryId::new("logic_error")))
    );
    assert_eq!(rows(&app), vec![1]);
    app.update(&Action::ClearFilters);
    assert_eq!(app.labelling.filter, None);
    assert_eq!(rows(&app).len(), 9);
}

#[test]
fn damaged_trailing_line_is_reported_and_labelling_goes_on() {
    let data = tempfile::tempdir().expect("tempdir");
    let first = labelling_app(data.path(), "ann", unavailable());
    let id = first.corpus.entries[1].rollout.id.clone();
    std::fs::create_dir_all(data.path().join("demo")).expect("dir");
    std::fs::write(
        sidecar(data.path()),
        format!(
            "{{\"rollout\":\"{id}\",\"categories\":[\"logic_error\"],\"note\":\"\",\"annotator\":\"ann\",\"time\":\"\"}}\n{{\"rollout\":\"{id}\",\"categ"
        ),
    )
    .expect("write");
    let issues_before = first.corpus.issues.len();
    let mut app = labelling_app(data.path(), "ann", unavailable());
    assert_eq!(app.corpus.issues.len(), issues_before + 1);
    let issue = app.corpus.issues.last().expect("issue");
    assert_eq!(issue.line, 2);
    assert!(issue.reason.starts_with("damaged last line"), "{issue:?}");
    assert_eq!(saved_categories(&app, 1), Some(ids(&["logic_error"])));
    select(&mut app, 1);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('6'));
    app.service();
    let (store, issues) = LabelStore::open_sidecar(&sidecar(data.path())).expect("opens");
    assert_eq!(
        issues.len(),
        1,
        "the damaged line stays reported, nothing else"
    );
    assert_eq!(
        store.current(&id, "ann").map(|l| l.categories.clone()),
        Some(ids(&["wrong_arguments", "logic_error"]))
    );
}

#[test]
fn two_explorers_label_the_same_file_and_see_agreement() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut ann = labelling_app(data.path(), "ann", unavailable());
    let mut bob = labelling_app(data.path(), "bob", unavailable());
    for (app, keys) in [(&mut ann, ['8', '4', '3']), (&mut bob, ['6', '4', '3'])] {
        app.update(&Action::LabelMode);
        for (row, key) in [1, 2, 3].into_iter().zip(keys) {
            select(app, row);
            app.update(&Action::ToggleCategory(key));
            app.service();
        }
    }
    let (store, issues) = LabelStore::open_sidecar(&sidecar(data.path())).expect("opens");
    assert!(issues.is_empty());
    assert_eq!(
        store.history().count(),
        6,
        "both explorers' records, intact"
    );
    ann.labelling.reload_soon();
    ann.service();
    let e = &ann.corpus.entries[1];
    let others = ann.labelling.others(e.run, &e.rollout.id);
    assert_eq!(others.len(), 1);
    assert_eq!(others[0].annotator, "bob");
    let agreement = ann.labelling.agreement().expect("two annotators");
    assert_eq!(agreement.compared, 3);
    assert_eq!(agreement.disagreements.len(), 1);
    assert_eq!(
        agreement.disagreements[0].rollout,
        ann.corpus.entries[1].rollout.id
    );
    ann.update(&Action::Agreement);
    assert_eq!(ann.popup, Some(Popup::Agreement));
    let text = screen(&draw(&ann, 100, 30)).replace(&data.path().display().to_string(), "[DATA]");
    assert!(text.contains("Agreement: ann vs bob"), "{text}");
    insta::assert_snapshot!("agreement_popup", text);
    // At the two sizes issue 41 names, then back.
    for (w, h) in [(80, 24), (160, 45)] {
        ann.update(&Action::Resize {
            width: w,
            height: h,
        });
        let text = screen(&draw(&ann, w, h)).replace(&data.path().display().to_string(), "[DATA]");
        assert!(text.contains("Agreement: ann vs bob"), "{text}");
        insta::assert_snapshot!(format!("agreement_popup_{w}x{h}"), text);
    }
    ann.update(&Action::Resize {
        width: 100,
        height: 30,
    });
    // Enter opens the highlighted disagreement's rollout.
    assert_eq!(ann.list.selected, Some(3));
    let enter = ratatui::crossterm::event::Event::Key(ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Enter,
        ratatui::crossterm::event::KeyModifiers::NONE,
    ));
    let choose = sebx::tui::run::action_for_event(&ann, &enter).expect("enter");
    assert_eq!(choose, Action::PopupChoose);
    ann.update(&choose);
    assert_eq!(ann.popup, None);
    assert_eq!(ann.list.selected, Some(1));
}

#[test]
fn embedded_runs_keep_their_sidecars_under_the_data_dir() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    assert!(app.labelling.sidecars.iter().all(|s| s.embedded));
    assert_eq!(
        app.labelling.embedded_home(),
        Some(data.path().join("demo"))
    );
    select(&mut app, 6);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('1'));
    app.service();
    assert!(data.path().join("demo/run_b.jsonl.labels.jsonl").is_file());
    assert!(
        !Path::new("fixtures").exists(),
        "nothing written beside the label path"
    );
}

#[test]
fn rerun_and_what_if_go_to_the_sidecar_beside_the_stored_verdict() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", Grading::Available);
    let backend: Arc<dyn GradeBackend> = Arc::new(FakeBackend::default());
    select(&mut app, 1);
    // `e` hands the row's code to the event loop, which opens the editor.
    app.update(&Action::EditWhatIf);
    assert_eq!(app.reruns.edit.take(), Some((1, CODE_MEAN_BAD.to_string())));
    let before = app.corpus.shown(1);
    app.update(&Action::Rerun);
    assert!(app.reruns.running.contains_key(&(1, false)));
    let running = app
        .rerun_comparison(1)
        .expect("a rerun is shown while it runs");
    assert!(running.rerun_running);
    sebx::tui::inline::drain_reruns(&mut app, Some(backend.clone()));
    app.service();
    // The what-if: the edited code passes under the fake grader (axis=1).
    app.rerun(1, Some(CODE_MEAN_OK.to_string()));
    sebx::tui::inline::drain_reruns(&mut app, Some(backend));
    app.service();
    assert_eq!(
        app.corpus.shown(1),
        before,
        "the stored verdict is not replaced"
    );
    let cmp = app.rerun_comparison(1).expect("comparison");
    let (rerun_record, saved) = cmp.rerun.clone().expect("rerun");
    assert_eq!(rerun_record.report.verdict, Some(Verdict::ResultError));
    assert_eq!(saved, Some(Ok(())));
    let (what_if, _) = cmp.what_if.clone().expect("what-if");
    assert!(what_if.what_if);
    assert_eq!(what_if.report.verdict, Some(Verdict::Right));
    let original = cmp.original_report.clone().expect("graded original");
    assert_eq!(
        sebx::grade::reruns::case_changes(&original, &what_if.report),
        vec!["case 1: ✗ → ✓", "case 2: ✗ → ✓"]
    );
    let (store, issues) =
        RerunStore::open_sidecar(&data.path().join("demo/run_a.jsonl.reruns.jsonl"))
            .expect("rerun sidecar");
    assert!(issues.is_empty());
    let id = &app.corpus.entries[1].rollout.id;
    let kept = store.of(id);
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[1].edited_code.as_deref(), Some(CODE_MEAN_OK));
    assert_eq!(
        store.latest_graded(id).map(|r| r.report.verdict),
        Some(Some(Verdict::ResultError))
    );

    // Snapshot with fixed times.
    for s in app.reruns.session.get_mut(&1).expect("session") {
        s.record.time = "2026-11-29T08:30:00.000Z".to_string();
    }
    // The status line names the sidecar by its whole path (a temp folder): asserted
    // apart, the rest of the screen snapshotted.
    let drawn = screen(&draw(&app, 100, 30));
    let (panes, status) = drawn.trim_end().rsplit_once('\n').expect("a status line");
    let sidecar = data.path().join("demo/run_a.jsonl.reruns.jsonl");
    assert!(
        status.contains(&format!("what-if: right · saved to {}", sidecar.display())),
        "{status}"
    );
    insta::assert_snapshot!("rerun_panel", panes);

    // A new session finds both in the sidecar.
    let again = labelling_app(data.path(), "ann", unavailable());
    let cmp = again.rerun_comparison(1).expect("from the sidecar");
    assert_eq!(
        cmp.what_if.map(|(r, _)| r.report.verdict),
        Some(Some(Verdict::Right))
    );
}

#[test]
fn rerun_without_a_runtime_offers_the_install() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 1);
    app.update(&Action::Rerun);
    assert_eq!(app.popup, Some(Popup::Runtime));
    assert!(reruns_queued(&app).is_empty());
    insta::assert_snapshot!("runtime_offer", screen(&draw(&app, 100, 30)));
    app.update(&Action::Cancel);
    assert_eq!(app.popup, None);
    // `e` does not open the editor on code that cannot be graded.
    app.update(&Action::EditWhatIf);
    assert_eq!(app.popup, Some(Popup::Runtime));
    assert!(app.reruns.edit.is_none());
    app.update(&Action::Cancel);
    // Without an API doc the reason is given, and no install is offered.
    app.corpus.ctx.grading = Grading::Unavailable(sebx::grade::backend::Unavailable::NoApiDoc);
    app.update(&Action::Rerun);
    assert_eq!(app.popup, None);
    assert_eq!(
        app.message.as_deref(),
        Some("cannot rerun: no API doc: pass --api-doc FILE to grade")
    );
}

#[test]
fn label_panel_and_picker_snapshots() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut bob = labelling_app(data.path(), "bob", unavailable());
    select(&mut bob, 1);
    bob.update(&Action::LabelMode);
    bob.update(&Action::ToggleCategory('6'));
    bob.service();
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 1);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('8'));
    app.update(&Action::EditNote);
    for c in "axis 0".chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    app.update(&Action::Edit(Edit::Submit));
    app.service();
    let home = data.path().display().to_string();
    let text = screen(&draw(&app, 100, 32)).replace(&home, "[DATA]");
    assert!(text.contains("bob: Wrong arguments"), "{text}");
    assert!(text.contains("✓Logic error (1)"), "{text}");
    insta::assert_snapshot!("label_panel", text);
    app.update(&Action::CategoryPicker);
    app.update(&Action::Down);
    app.update(&Action::PopupChoose);
    app.service();
    assert_eq!(
        saved_categories(&app, 1),
        Some(ids(&["numpy_name_on_zwc", "logic_error"]))
    );
    insta::assert_snapshot!(
        "category_picker",
        screen(&draw(&app, 100, 32)).replace(&home, "[DATA]")
    );
    app.update(&Action::Cancel);
    assert_eq!(app.popup, None);
    assert!(matches!(
        app.corpus.shown(1),
        Shown::Verdict(Verdict::ResultError)
    ));
}

#[test]
fn runtime_install_shows_its_steps_and_then_reruns_work() {
    use sebx::tui::jobs::JobEvent;
    use sebx::tui::jobs::reruns::{RerunEvent, RerunRequest};
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 1);
    app.update(&Action::Rerun);
    assert_eq!(app.popup, Some(Popup::Runtime));
    let y = ratatui::crossterm::event::Event::Key(ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Char('y'),
        ratatui::crossterm::event::KeyModifiers::NONE,
    ));
    let action = sebx::tui::run::action_for_event(&app, &y).expect("y in the offer");
    assert_eq!(action, Action::InstallRuntime);
    app.update(&action);
    assert!(app.reruns.install.running);
    assert!(matches!(
        reruns_queued(&app).as_slice(),
        [RerunRequest::Install { .. }]
    ));
    app.take_requests();
    // The worker's reports (the install itself is not run here: it needs the network).
    for step in [
        "looking for Python 3.11 on PATH",
        "creating venv /cache/venv",
    ] {
        app.on_job(JobEvent::Rerun(RerunEvent::InstallStep(step.to_string())));
    }
    let text = screen(&draw(&app, 100, 30));
    assert!(text.contains("· creating venv /cache/venv"), "{text}");
    assert!(text.contains("working…"), "{text}");
    app.on_job(JobEvent::Rerun(RerunEvent::InstallDone(Ok(
        "/cache/venv/bin/python".to_string(),
    ))));
    assert!(!app.reruns.install.running);
    let text = screen(&draw(&app, 100, 30));
    assert!(text.contains("installed: /cache/venv/bin/python"), "{text}");
    app.update(&Action::Cancel);
    app.update(&Action::Rerun);
    assert!(
        matches!(
            reruns_queued(&app).as_slice(),
            [RerunRequest::Grade {
                row: 1,
                code: None,
                ..
            }]
        ),
        "after the install, r reruns"
    );
}

#[test]
fn the_demo_starts_with_its_example_labels_in_the_data_dir() {
    use sebx::tui::explore::prepare;
    let data = tempfile::tempdir().expect("tempdir");
    let open = || {
        let mut session = prepare(&isolated::explore_args(), unavailable()).expect("demo");
        session.app.labelling.data_dir = Some(data.path().to_path_buf());
        session.app.labelling.annotator = "tester".to_string();
        sebx::tui::inline::load_inline(&mut session.app, &session.sources);
        session.app.service();
        session.app
    };
    let mut app = open();
    let seeded = data.path().join("demo/rollouts.jsonl.labels.jsonl");
    let text = std::fs::read_to_string(&seeded).expect("seeded");
    assert_eq!(text, sebx::tui::explore::demo::LABELS);
    assert_eq!(app.labelling.annotators(), vec!["ana", "ben"]);
    let agreement = app.labelling.agreement().expect("ana and ben");
    assert_eq!(
        (
            agreement.annotator_a.as_str(),
            agreement.annotator_b.as_str()
        ),
        ("ana", "ben")
    );
    // samples/demo/README.md: they disagree on four rollouts.
    assert_eq!(agreement.disagreements.len(), 4);
    // The user's own labels go on top, and reopening does not seed again.
    select(&mut app, 0);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('9'));
    app.service();
    let again = open();
    assert_eq!(
        std::fs::read_to_string(&seeded)
            .expect("read")
            .lines()
            .count(),
        text.lines().count() + 1
    );
    assert_eq!(saved_categories(&again, 0), Some(ids(&["no_code"])));
    assert_eq!(again.labelling.annotators(), vec!["tester", "ana", "ben"]);
    assert_eq!(
        again.labelling.agreement_pairs()[0],
        ("tester".to_string(), "ana".to_string())
    );
}

/// The rerun, what-if and install requests queued for the workers.
fn reruns_queued(app: &App) -> Vec<&sebx::tui::jobs::reruns::RerunRequest> {
    app.queued()
        .iter()
        .filter_map(|r| match r {
            JobRequest::Rerun(req) => Some(req),
            _ => None,
        })
        .collect()
}

/// A category's label, as the taxonomy names it.
fn label_of(app: &App, id: &str) -> String {
    app.labelling
        .taxonomy
        .get(&CategoryId::new(id))
        .map(|c| c.label.clone())
        .expect("a category of the taxonomy")
}

/// `U` takes back label changes one at a time, several levels deep, each written as a new
/// record (so another explorer sees it), and the status line says what was undone and where.
#[test]
fn undo_takes_label_changes_back_one_at_a_time() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut app = labelling_app(data.path(), "ann", unavailable());
    select(&mut app, 1);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory('8'));
    app.service();
    app.update(&Action::ToggleCategory('6'));
    app.service();
    select(&mut app, 2);
    app.update(&Action::ToggleCategory('7'));
    app.service();
    assert_eq!(saved_categories(&app, 2), Some(ids(&["output_format"])));
    // Undo on another row: the change of row 2 goes, and the cursor goes there.
    select(&mut app, 0);
    app.update(&Action::UndoLabel);
    app.service();
    assert_eq!(saved_categories(&app, 2), None);
    assert_eq!(app.list.selected, Some(2));
    let line = app.corpus.entries[2].rollout.line;
    let msg = app.message.clone().expect("a message");
    assert!(
        msg.starts_with(&format!("undone on line {line} of "))
            && msg.contains("label cleared")
            && msg.contains(&format!("− {}", label_of(&app, "output_format"))),
        "{msg}"
    );
    // Two more levels: row 1 back to its first category (key 8), then to none.
    app.update(&Action::UndoLabel);
    app.service();
    assert_eq!(saved_categories(&app, 1), Some(ids(&["logic_error"])));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("back to Logic error")),
        "{:?}",
        app.message
    );
    app.update(&Action::UndoLabel);
    app.service();
    assert_eq!(saved_categories(&app, 1), None);
    app.update(&Action::UndoLabel);
    app.service();
    assert_eq!(app.message.as_deref(), Some("no label change to undo"));
    // Another explorer on the same files reads the undone state.
    let again = labelling_app(data.path(), "ann", unavailable());
    assert_eq!(saved_categories(&again, 1), None);
    assert_eq!(saved_categories(&again, 2), None);
}
