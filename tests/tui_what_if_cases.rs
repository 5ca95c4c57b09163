//! A what-if's cases in the Cases pane: the explorer, opened as `sebx FILES` opens it
//! (`open_default`, the real grader: needs `sebx runtime install`), grades a rollout that
//! passes, grades an edit of it that fails as a what-if (what `e` does once the editor
//! returns), and the key the keymap binds to `what_if_cases` opens the what-if's failing
//! case in the Cases pane, with its diff and why; the same key goes back to the stored run.

use crate::isolated;
use crate::tui_common;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sebx::tui::Action;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::inline::{drain_inline, drain_reruns, load_inline};
use sebx::tui::state::Pane;
use tui_common::{API_DOC, CODE_MEAN_BAD, CODE_MEAN_OK, Q_MEAN, draw, fence, rollout_line, screen};

#[test]
fn a_what_ifs_failing_case_opens_in_the_cases_pane() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (run, api_doc) = (
        dir.path().join("run.jsonl"),
        dir.path().join("api_doc.jsonl"),
    );
    std::fs::write(&api_doc, API_DOC).expect("api doc");
    std::fs::write(
        &run,
        rollout_line(Q_MEAN, &fence(CODE_MEAN_OK), None) + "\n",
    )
    .expect("run");
    let mut args = ExploreArgs {
        paths: vec![run, api_doc],
        ..isolated::explore_args()
    };
    args.sidecars.sidecar_dir = Some(dir.path().join("sidecars"));
    let (mut session, backend) = open_default(&args).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    let app = &mut session.app;
    load_inline(app, &session.sources);
    drain_inline(app, Some(backend.as_ref()));
    app.update(&Action::Resize {
        width: 120,
        height: 40,
    });
    app.update(&Action::Top);
    app.update(&Action::PaneCases);
    drain_inline(app, Some(backend.as_ref()));
    app.service();
    let stored = screen(&draw(app, 120, 40));
    assert!(stored.contains("0 of 2 cases failed"), "{stored}");

    // The what-if: axis=0 instead of axis=1, graded as `e` grades an edit.
    app.rerun(0, Some(CODE_MEAN_BAD.to_string()));
    drain_reruns(app, Some(backend.clone()));
    app.service();
    let key = KeyEvent::new(KeyCode::Char('E'), KeyModifiers::NONE);
    let action = app.keymap.action_for(&key).expect("E is bound");
    assert_eq!(action, Action::WhatIfCases);
    let panel = screen(&draw(app, 120, 40));
    assert!(panel.contains("would still fail · E: its cases"), "{panel}");

    app.update(&action);
    assert_eq!(app.detail.pane, Pane::Cases);
    assert_eq!(
        app.case_cursor(),
        0,
        "opens on the what-if's first failed case"
    );
    let shown = screen(&draw(app, 120, 40));
    assert!(shown.contains("what-if "), "{shown}");
    assert!(shown.contains("E the stored run"), "{shown}");
    assert!(shown.contains("2 of 2 cases failed"), "{shown}");
    assert!(shown.contains("Case 1 ✗ did not match"), "{shown}");
    // The diff and the comparison's reason, as the pane gives them for a stored run.
    assert!(shown.contains("diff"), "{shown}");
    assert!(
        shown.contains("why      at [0]: expected 2.0, actual 1.5"),
        "{shown}"
    );
    assert!(shown.contains("> tolerance"), "{shown}");
    // The cases move as the stored run's do.
    app.update(&Action::ScrollDown);
    assert_eq!(app.case_cursor(), 1);

    // Back to the stored run.
    app.update(&action);
    let back = screen(&draw(app, 120, 40));
    assert!(back.contains("0 of 2 cases failed"), "{back}");
    assert!(
        back.contains("stored run · E the what-if's cases"),
        "{back}"
    );
}
