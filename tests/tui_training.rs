//! The explorer on a training run: the demo's verl dumps (`sebx --demo-training`), graded
//! through the real engine (Python runtime required: `sebx runtime install`). The Training
//! screen (snapshots at 80×24 and 160×48), `enter` on a heat-map cell, the step-range filter
//! and the group view, each checked against the rows it should show.

use crate::tui_common;

use std::collections::BTreeSet;

use insta::assert_snapshot;
use sebx::grade::backend::{GradeBackend, Grader};
use sebx::tui::action::Edit;
use sebx::tui::app::Grading;
use sebx::tui::explore::{ExploreArgs, prepare};
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::{Action, App};
use tui_common::{draw, screen, type_text};

use crate::isolated;

fn session(width: u16, height: u16) -> App {
    let args = ExploreArgs {
        demo_training: true,
        ..isolated::explore_args()
    };
    let mut s = prepare(&args, Grading::Available).expect("demo training session");
    s.app.update(&Action::Resize { width, height });
    load_inline(&mut s.app, &s.sources);
    let grader = Grader::discover(&s.app.corpus.ctx.api, 2).expect("the runtime is installed");
    let backend: &dyn GradeBackend = &grader;
    // Loading queues the lookups and the grading of every row; run them all.
    let rows: Vec<usize> = (0..s.app.corpus.entries.len()).collect();
    drain_inline(&mut s.app, Some(backend));
    s.app.update(&Action::RegradeAll);
    drain_inline(&mut s.app, Some(backend));
    assert_eq!(
        rows.len(),
        49 + 10,
        "the demo run: 49 training samples, 10 validation"
    );
    s.app
}

fn open_training(app: &mut App) {
    app.update(&Action::TrainingScreen);
    drain_inline(app, None);
    assert!(app.training.open);
    assert!(app.training.result.is_some());
}

/// Once the last requested grade is in, the status line says so (it used to keep reading
/// `grading N rollouts` long after the last program ran).
#[test]
fn the_status_line_says_when_grading_is_done() {
    let app = session(160, 48);
    let gp = app.corpus.grade_progress;
    assert!(gp.requested > 0 && gp.finished == gp.requested, "{gp:?}");
    let drawn = screen(&draw(&app, 160, 48));
    assert!(drawn.contains("✓ every verdict is in"), "{drawn}");
    assert!(!drawn.contains("grading "), "{drawn}");
}

#[test]
fn training_screen_snapshots() {
    // The two sizes issue 41 names.
    for (w, h) in [(80, 24), (160, 45)] {
        let mut app = session(w, h);
        open_training(&mut app);
        let drawn = screen(&draw(&app, w, h));
        assert!(drawn.contains("run training/rollout (1/2)"), "{drawn}");
        assert!(drawn.contains("zero-advantage groups"), "{drawn}");
        assert_snapshot!(format!("training_{w}x{h}"), drawn);
    }
}

#[test]
fn a_cell_lists_its_rollouts() {
    let mut app = session(160, 48);
    open_training(&mut app);
    let map = app.training.map().expect("a heat map");
    // The rows are by NumPy name; find np.median and step 3.
    let row = map
        .rows
        .iter()
        .position(|r| r.2 == "np.median")
        .expect("np.median row");
    let col = map.bins.iter().position(|b| *b == (3, 3)).expect("step 3");
    for _ in 0..row {
        app.update(&Action::Down);
    }
    for _ in 0..col {
        app.update(&Action::CellRight);
    }
    assert_eq!(app.training.cell, (row, col));
    let (n, right) = map.cells[row][col];
    // The demo's median task at step 3: four samples, none right by the verdict.
    assert_eq!((n, right), (4, 0));
    app.update(&Action::Choose);
    assert!(!app.training.open, "enter closes the screen onto the list");
    // The footer names the cell once (it used to say it twice, as filter and as note).
    let label = app
        .list
        .filters
        .rows
        .as_ref()
        .expect("a filter")
        .label
        .clone();
    assert_eq!(label, "np.median at step 3 (4 samples)");
    let drawn = screen(&draw(&app, 160, 48));
    let footer = drawn.lines().last().unwrap_or("");
    assert_eq!(footer.matches("np.median at step 3").count(), 1, "{footer}");
    let shown: Vec<usize> = app.list.rows().collect();
    assert_eq!(shown.len(), 4);
    for i in &shown {
        let e = &app.corpus.entries[*i];
        let m = e.rollout.sample.as_deref().expect("a sample");
        assert_eq!(m.step, 3);
        assert!(
            e.rollout.query.starts_with("A courier company"),
            "{}",
            e.rollout.query
        );
    }
    // Three of the four have the RL reward 1 (their first block is right).
    let rewarded = shown
        .iter()
        .filter(|i| app.corpus.facts(**i).and_then(|f| f.reward) == Some(1))
        .count();
    assert_eq!(rewarded, 3);
}

#[test]
fn step_range_and_group_view() {
    let mut app = session(120, 40);
    app.update(&Action::StepRange);
    type_text(&mut app, "2-3");
    app.update(&Action::Edit(Edit::Submit));
    let shown: Vec<usize> = app.list.rows().collect();
    // Steps 2 and 3 of the training run (17 + 16) and step 3 of validation (5).
    assert_eq!(shown.len(), 17 + 16 + 5);
    let drawn = screen(&draw(&app, 160, 48));
    let footer = drawn.lines().last().unwrap_or("");
    assert_eq!(
        footer.matches("steps 2–3 (38 samples)").count(),
        1,
        "{footer}"
    );
    assert!(shown.iter().all(|i| {
        let m = app.corpus.entries[*i]
            .rollout
            .sample
            .as_deref()
            .expect("sample");
        (2..=3).contains(&m.step)
    }));
    // A range that is not one says so and changes nothing.
    app.update(&Action::StepRange);
    type_text(&mut app, "--");
    app.update(&Action::Edit(Edit::Submit));
    assert_eq!(app.list.rows().count(), shown.len());

    // The group of the first step-2 sample: the four samples of its prompt at step 2.
    app.update(&Action::Top);
    let first = app.list.selected.expect("a selection");
    let meta = app.corpus.entries[first]
        .rollout
        .sample
        .clone()
        .expect("sample");
    app.update(&Action::GroupView);
    let group: Vec<usize> = app.list.rows().collect();
    assert_eq!(group.len(), 4, "GRPO n = 4");
    let prompts: BTreeSet<(u32, u32)> = group
        .iter()
        .filter_map(|i| app.corpus.entries[*i].rollout.sample.as_deref())
        .map(|m| (m.step, m.group))
        .collect();
    assert_eq!(prompts, BTreeSet::from([(meta.step, meta.group)]));
    let label = app
        .list
        .filters
        .rows
        .as_ref()
        .map(|f| f.label.clone())
        .unwrap_or_default();
    // The demo's step-2 mean group scores 0, 0, 0, 0: zero advantage.
    assert!(label.contains("zero advantage"), "{label}");
    // `=` again goes back to every row.
    app.update(&Action::GroupView);
    assert_eq!(app.list.rows().count(), app.corpus.entries.len());
}

#[test]
fn export_names_a_sample_by_its_step_file_and_line() {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo");
    let out = isolated::assert_sebx()
        .env_remove("SEBX_API_DOC")
        .arg("export")
        .arg(demo.join("training/rollout/3.jsonl"))
        .arg(demo.join("tasks.jsonl"))
        .arg("--api-doc")
        .arg(demo.join("api_doc.jsonl"))
        .args(["--line", "5", "--format", "md", "--pane", "code"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // Line 5 of step 3: the median task's first answer, whose graded (last) block uses
    // the NumPy name.
    assert!(text.contains("zwc.median(minutes)"), "{text}");
    assert!(text.contains("A courier company"), "{text}");
}

/// The Training screen sums the run up as `sebx stats --by course` does (its tasks learned,
/// forgotten, never solved) with the loophole onset, and each function's course reads as
/// meant: a learned function is "solved from step N", never "last failed … learned".
#[test]
fn the_run_summary_and_the_course_lines_read_as_meant() {
    let mut app = session(160, 48);
    open_training(&mut app);
    let r = app.training.result.as_ref().expect("figures");
    let run = r.training_runs[app.training.run] as usize;
    let name = r.set.runs[run].clone();
    let mut ended = [0usize; 3];
    for c in r
        .report
        .figures
        .task_courses
        .iter()
        .filter(|c| c.run == name)
    {
        ended[c.status as usize] += 1;
    }
    assert!(ended.iter().sum::<usize>() > 0, "the run has tasks");
    let want = format!(
        "tasks: {} learned, {} forgotten, {} never solved",
        ended[0], ended[1], ended[2]
    );
    let drawn = screen(&draw(&app, 160, 48));
    assert!(drawn.contains(&want), "{want}:\n{drawn}");
    assert!(drawn.contains("loophole"), "the onset is said:\n{drawn}");
    let functions = app.training.map().expect("a heat map").rows.len();
    let mut seen = BTreeSet::new();
    for _ in 0..functions {
        let drawn = screen(&draw(&app, 160, 48));
        let course = drawn
            .lines()
            .find(|l| l.contains("over the run:"))
            .expect("a course line")
            .to_string();
        assert!(!course.contains("last failed"), "{course}");
        for (status, reads) in [
            ("learned:", "solved from step"),
            ("forgotten:", "not at its last step"),
            ("never solved", "right at its last step"),
        ] {
            if course.contains(status) {
                assert!(course.contains(reads), "{course}");
                seen.insert(status);
            }
        }
        app.update(&Action::Down);
    }
    assert!(seen.contains("learned:"), "a learned function was seen");
}
