//! The Code pane's confirm key (`y`) through the real grader (Python runtime required):
//! the selected rollout runs once under the tracer on a job (every test case, even after one
//! raised), and its `possible` finding, which raised in every case, is shown as confirmed by
//! the run (and marked like an error).

use crate::tui_common;

use std::sync::Arc;

use sebx::analysis::Severity;
use sebx::grade::backend::Grader;
use sebx::grade::trace::Settled;
use sebx::model::ApiMap;
use sebx::tui::app::{Context, Grading};
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::load::{FileKind, Source, SourceData};
use sebx::tui::{Action, App, Keymap, Theme};
use serde_json::json;
use tui_common::{API_DOC, dataset, draw, fence, screen};

/// `.tolist()` on a ZWCArray inside a `try` that catches it: only `possible` statically.
const CODE: &str = "import zwc\n\ndef solve(grid):\n    try:\n        return zwc.kocito(grid, axis=0).tolist()\n    except AttributeError:\n        return 0\n";

#[test]
fn confirm_key_runs_the_rollout_and_marks_its_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("run.jsonl");
    let line = json!({
        "query": "Column means of `grid`.",
        "response": fence(CODE),
        "test_cases": [{"input": "grid=[[1, 2], [3, 4]]", "output": "[2.0, 3.0]"}],
        "right_exe_result": "[2.0, 3.0]",
    });
    std::fs::write(&file, format!("{line}\n")).expect("write the run");
    let api = ApiMap::from_api_doc_jsonl(API_DOC).expect("fixture API doc");
    let backend = Arc::new(Grader::new(api.clone(), 1));
    let ctx = Context {
        api: Arc::new(api),
        dataset: Arc::new(dataset()),
        grading: Grading::Available,
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    app.update(&Action::Resize {
        width: 110,
        height: 36,
    });
    load_inline(
        &mut app,
        &[Source {
            kind: FileKind::Rollouts,
            data: SourceData::File(file),
        }],
    );
    drain_inline(&mut app, Some(backend.as_ref()));
    app.service();
    app.update(&Action::PaneCode);
    let before = screen(&draw(&app, 110, 36));
    assert!(
        before.contains("y: run to settle the possible and loophole findings"),
        "{before}"
    );
    let finding = app
        .selected_analysis()
        .and_then(|a| a.code.findings.iter().find(|f| f.name == "tolist"))
        .cloned()
        .expect("a tolist finding");
    assert_eq!(finding.severity, Severity::Possible);

    app.update(&Action::ConfirmFindings);
    let id = app.corpus.entries[0].rollout.id.clone();
    assert!(app.reruns.confirming(&id), "a confirm job was queued");
    drain_inline(&mut app, Some(backend.as_ref()));
    app.service();
    let confirmation = app
        .reruns
        .confirmation(&id)
        .and_then(|c| c.as_ref().ok())
        .cloned()
        .expect("the run came back");
    assert_eq!(
        confirmation.of(finding.line, finding.col, "tolist"),
        Some(&Settled::Confirmed)
    );
    let after = screen(&draw(&app, 110, 36));
    assert!(after.contains("✓ confirmed by a run"), "{after}");
    assert!(!after.contains("y: run once"), "{after}");
}
