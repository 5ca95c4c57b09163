//! Reruns and what-ifs through the real grader (Python runtime required: `sebx runtime
//! install`): in the explorer's state (`r`, then a what-if with edited code) and headless
//! with `sebx rerun`. Both keep their results in `<rollouts>.reruns.jsonl`, never in the
//! rollout file.

use crate::tui_common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sebx::grade::backend::GradeBackend;
use sebx::grade::backend::Grader;
use sebx::grade::reruns::RerunStore;
use sebx::model::{ApiMap, Verdict};
use sebx::tui::app::{Context, Grading};
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::load::{FileKind, Source, SourceData};
use sebx::tui::{Action, App, Keymap, Theme};
use tui_common::{API_DOC, Q_MEAN, dataset, draw, fence, rollout_line, screen};

use crate::isolated;

/// Calls `zwc.mean`, which zwc renamed: an exe_error.
const CODE_NUMPY_NAME: &str =
    "import zwc\n\ndef solve(grid):\n    return zwc.mean(zwc.yitaf(grid), axis=1)\n";
const CODE_FIXED: &str =
    "import zwc\n\ndef solve(grid):\n    return zwc.kocito(zwc.yitaf(grid), axis=1)\n";

fn write_run(dir: &Path) -> PathBuf {
    let file = dir.join("run.jsonl");
    std::fs::write(
        &file,
        format!("{}\n", rollout_line(Q_MEAN, &fence(CODE_NUMPY_NAME), None)),
    )
    .expect("write the run");
    file
}

#[test]
fn rerun_and_what_if_in_the_explorer_with_the_real_grader() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_run(dir.path());
    let before = std::fs::read(&file).expect("read");
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
        width: 100,
        height: 32,
    });
    load_inline(
        &mut app,
        &[Source {
            kind: FileKind::Rollouts,
            data: SourceData::File(file.clone()),
        }],
    );
    drain_inline(&mut app, Some(backend.as_ref()));
    app.service();
    assert_eq!(
        app.selected_report().and_then(|r| r.verdict),
        Some(Verdict::ExeError)
    );

    app.update(&Action::Rerun);
    let dyn_backend: Arc<dyn GradeBackend> = backend;
    sebx::tui::inline::drain_reruns(&mut app, Some(dyn_backend.clone()));
    app.service();
    app.rerun(0, Some(CODE_FIXED.to_string()));
    sebx::tui::inline::drain_reruns(&mut app, Some(dyn_backend));
    app.service();

    let cmp = app.rerun_comparison(0).expect("comparison");
    let (rerun_record, _) = cmp.rerun.expect("rerun");
    assert_eq!(rerun_record.report.verdict, Some(Verdict::ExeError));
    let (what_if, saved) = cmp.what_if.expect("what-if");
    assert_eq!(what_if.report.verdict, Some(Verdict::Right));
    assert_eq!(saved, Some(Ok(())));
    assert!(
        what_if
            .report
            .warnings
            .iter()
            .any(|w| w.starts_with("what-if")),
        "the embedded grader graded the edit itself: {:?}",
        what_if.report.warnings
    );
    let text = screen(&draw(&app, 100, 32));
    assert!(
        text.contains("`zwc.kocito` instead of `zwc.mean` → would have passed"),
        "{text}"
    );
    assert!(text.contains("case 1: ∅ → ✓"), "{text}");

    let (store, issues) = RerunStore::open(&file).expect("rerun sidecar");
    assert!(issues.is_empty());
    let kept: Vec<bool> = store.all().map(|r| r.what_if).collect();
    assert_eq!(kept, vec![false, true]);
    assert_eq!(
        std::fs::read(&file).expect("read"),
        before,
        "rollouts untouched"
    );
}

#[test]
fn sebx_rerun_prints_the_report_and_keeps_it_in_the_sidecar() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_run(dir.path());
    let before = std::fs::read(&file).expect("read");
    let api_doc = dir.path().join("api_doc.jsonl");
    std::fs::write(&api_doc, API_DOC).expect("write the API doc");
    let fixed = dir.path().join("fixed.py");
    std::fs::write(&fixed, CODE_FIXED).expect("write the edit");
    let rerun = |extra: &[&str]| {
        let out = isolated::sebx()
            .args(["rerun", "--line", "1", "--api-doc"])
            .arg(&api_doc)
            .arg(&file)
            .args(extra)
            .output()
            .expect("sebx runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (plain, note) = rerun(&[]);
    assert!(plain.contains("verdict: exe_error"), "{plain}");
    // Both official scorers: the RL reward and why it decided.
    assert!(plain.contains("reward:  0 (official RL reward)"), "{plain}");
    assert!(
        plain.contains("why:     step 6: stderr not empty: AttributeError"),
        "{plain}"
    );
    assert!(note.contains("run.jsonl.reruns.jsonl"), "{note}");
    let fixed_arg = fixed.display().to_string();
    let (what_if, _) = rerun(&["--code", &fixed_arg]);
    assert!(what_if.contains("verdict: right"), "{what_if}");
    assert!(what_if.contains("reward:  "), "{what_if}");
    assert!(
        what_if.contains("what-if: `zwc.kocito` instead of `zwc.mean` → would have passed"),
        "{what_if}"
    );
    assert!(what_if.contains("original code: exe_error"), "{what_if}");
    assert!(what_if.contains("case 1: ∅ → ✓"), "{what_if}");
    rerun(&["--no-save"]);

    let (store, issues) = RerunStore::open(&file).expect("rerun sidecar");
    assert!(issues.is_empty());
    let kept: Vec<(bool, Option<Verdict>)> =
        store.all().map(|r| (r.what_if, r.report.verdict)).collect();
    assert_eq!(
        kept,
        vec![
            (false, Some(Verdict::ExeError)),
            (true, Some(Verdict::Right))
        ]
    );
    assert_eq!(
        store.all().nth(1).and_then(|r| r.edited_code.as_deref()),
        Some(CODE_FIXED)
    );
    assert_eq!(
        std::fs::read(&file).expect("read"),
        before,
        "rollouts untouched"
    );
}
