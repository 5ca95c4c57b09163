//! Following a live training run (issue 30): the explorer is opened on a verl dump folder as
//! `sebx RUN --dataset ... --api-doc ...` opens it (`open_default`), its loading and
//! following started by the workers the terminal loop starts, and driven by the loop's own
//! step (`tui::run::pump`). While it is open the test writes a new step file, appends lines
//! to it and leaves a line half written, then finishes it; the list and the Training screen
//! show each sample, graded through the real engine (Python runtime required:
//! `sebx runtime install`), within a generous wait for the folder to be looked at again.

use crate::live;

use live::*;

use sebx::model::Verdict;
use sebx::tui::entry::Shown;

#[test]
fn a_live_run_is_followed_new_steps_appended_lines_and_a_line_written_in_two_goes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = dir.path().join("train.jsonl");
    std::fs::write(
        &dataset,
        [
            dataset_line(
                MEAN_Q,
                "mean",
                &[("values=[1, 2, 3]", "2.0"), ("values=[4]", "4.0")],
            ),
            dataset_line(SUM_Q, "sum", &[("values=[1, 2]", "3"), ("values=[5]", "5")]),
        ]
        .join("\n")
            + "\n",
    )
    .expect("dataset");
    let run = dir.path().join("exp").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    // Step 1: a sum group, two right and two off by one.
    let step1: String = [
        sample(SUM_Q, SUM_RIGHT, 1.0, 1, 1),
        sample(SUM_Q, SUM_RIGHT, 1.0, 1, 2),
        sample(SUM_Q, SUM_WRONG, 0.0, 1, 3),
        sample(SUM_Q, SUM_WRONG, 0.0, 1, 4),
    ]
    .concat();
    std::fs::write(run.join("1.jsonl"), step1).expect("step 1");

    let mut ex = Explorer::open(vec![run.clone()], Some(dataset));
    ex.until("step 1 loaded and graded", |app| {
        app.corpus.load.done && app.corpus.entries.len() == 4 && all_graded(app)
    });
    assert_eq!(ex.app.corpus.load.following, 1, "the run is followed");
    // The Training screen open on step 1 alone.
    ex.app.update(&sebx::tui::Action::TrainingScreen);
    ex.until("the Training screen's figures", |app| {
        app.training.result.is_some()
    });
    assert_eq!(ex.step_figures(1), Some((4, 4, Some(0.5))));
    assert_eq!(ex.step_figures(2), None);

    // Step 2 appears: two mean samples, right.
    let step2 = run.join("2.jsonl");
    append(
        &step2,
        &(sample(MEAN_Q, MEAN_RIGHT, 1.0, 2, 5) + &sample(MEAN_Q, MEAN_RIGHT, 1.0, 2, 6)),
    );
    ex.until("step 2's first lines listed and graded", |app| {
        app.corpus.entries.len() == 6 && all_graded(app)
    });
    assert_eq!(ex.listed(5), Some(Shown::Verdict(Verdict::Right)));
    assert_eq!(ex.listed(6), Some(Shown::Verdict(Verdict::Right)));

    // One more line, and the next one half written (a buffered write cut mid-line).
    let torn = sample(SUM_Q, SUM_WRONG, 0.0, 2, 8);
    let (head, tail) = torn.split_at(torn.len() / 2);
    append(&step2, &(sample(MEAN_Q, MEAN_RIGHT, 1.0, 2, 7) + head));
    ex.until("the whole line listed", |app| app.corpus.entries.len() == 7);
    // The half line came with it and is not read: no row, and no bad line either.
    assert_eq!(ex.listed(8), None);
    assert!(
        ex.app.corpus.issues.is_empty(),
        "{:?}",
        ex.app.corpus.issues
    );
    // The writer finishes it: read then, whole.
    append(&step2, tail);
    ex.until("the finished line listed and graded", |app| {
        app.corpus.entries.len() == 8 && all_graded(app)
    });
    assert_eq!(ex.listed(8), Some(Shown::Verdict(Verdict::ResultError)));
    let row = ex
        .app
        .list
        .rows()
        .find(|&r| {
            ex.app.corpus.entries[r]
                .rollout
                .response
                .starts_with("Sample 8.")
        })
        .expect("row 8");
    let entry = &ex.app.corpus.entries[row];
    assert_eq!(entry.rollout.line, 4, "line 4 of 2.jsonl");
    assert_eq!(entry.rollout.sample.as_ref().map(|s| s.step), Some(2));
    assert!(
        ex.app.corpus.issues.is_empty(),
        "{:?}",
        ex.app.corpus.issues
    );

    // The open Training screen followed: step 2 has its four samples, three right.
    ex.until("step 2 on the Training screen", |app| {
        app.training.result.as_ref().is_some_and(|r| {
            r.report
                .figures
                .steps
                .iter()
                .any(|s| s.step == 2 && s.graded == 4)
        })
    });
    assert_eq!(ex.step_figures(2), Some((4, 4, Some(0.75))));
    assert_eq!(ex.step_figures(1), Some((4, 4, Some(0.5))));
}

#[test]
fn a_live_trl_run_is_followed_a_table_written_in_pieces_is_read_once_whole() {
    // TRL's completion tables (tests/fixtures/trl, written by pandas as GRPOTrainer.log
    // writes them): pyarrow writes a file's footer last, so a look can see one without it.
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/trl/run");
    let run = dir.path().join("trl_output").join("completions");
    std::fs::create_dir_all(&run).expect("mkdir");
    let name = |step: u32| format!("completions/completions_{step:05}.parquet");
    std::fs::copy(fixture.join(name(1)), run.join("completions_00001.parquet")).expect("copy");

    let mut ex = Explorer::open(vec![run.clone()], Some(dataset));
    ex.until("step 1 loaded and graded", |app| {
        app.corpus.load.done && app.corpus.entries.len() == 5 && all_graded(app)
    });
    assert_eq!(ex.app.corpus.load.following, 1, "the run is followed");
    ex.app.update(&sebx::tui::Action::TrainingScreen);
    ex.until("the Training screen's figures", |app| {
        app.training.result.is_some()
    });
    // Three right of five: the mean group's `zwc.mean` answer and the sum off by one not.
    assert_eq!(ex.step_figures(1), Some((5, 5, Some(0.6))));

    // Step 2 written in pieces: looked at several times without its footer.
    let whole = std::fs::read(fixture.join(name(2))).expect("fixture");
    let two = run.join("completions_00002.parquet");
    for n in [4, whole.len() / 3, whole.len() - 2] {
        std::fs::write(&two, &whole[..n]).expect("write");
        let start = std::time::Instant::now();
        ex.until("a few looks", |_| start.elapsed().as_millis() > 1200);
        assert_eq!(
            ex.app.corpus.entries.len(),
            5,
            "no row of a half-written table"
        );
        assert!(
            ex.app.corpus.issues.is_empty(),
            "waited for silently: {:?}",
            ex.app.corpus.issues
        );
    }
    std::fs::write(&two, &whole).expect("write");
    ex.until("step 2 listed and graded", |app| {
        app.corpus.entries.len() == 9 && all_graded(app)
    });
    ex.until("step 2 on the Training screen", |app| {
        app.training.result.as_ref().is_some_and(|r| {
            r.report
                .figures
                .steps
                .iter()
                .any(|s| s.step == 2 && s.graded == 4)
        })
    });
    assert_eq!(ex.step_figures(2), Some((4, 4, Some(0.25))));
    assert!(
        ex.app.corpus.issues.is_empty(),
        "{:?}",
        ex.app.corpus.issues
    );
}

#[test]
fn what_reading_a_trl_run_assumed_is_said_in_the_explorer() {
    // `extra/`: two reward functions named by its checkpoint's trainer_state.json, their
    // weights unknown, and a float `confidence` column logged with log_extra.
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/trl/extra");
    let out = dir.path().join("trl_output");
    let run = out.join("completions");
    std::fs::create_dir_all(&run).expect("mkdir");
    std::fs::create_dir_all(out.join("checkpoint-2")).expect("mkdir");
    for name in ["completions_00001.parquet", "completions_00002.parquet"] {
        std::fs::copy(fixture.join("completions").join(name), run.join(name)).expect("copy");
    }
    std::fs::copy(
        fixture.join("checkpoint-2/trainer_state.json"),
        out.join("checkpoint-2/trainer_state.json"),
    )
    .expect("copy");
    let mut ex = Explorer::open(vec![run], Some(dataset));
    ex.until("the run loaded", |app| app.corpus.load.done);
    let notes = &ex.app.corpus.ctx.notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`confidence`") && n.contains("not counted")),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("reward_weights")),
        "{notes:#?}"
    );
    assert!(
        ex.app.corpus.issues.is_empty(),
        "{:?}",
        ex.app.corpus.issues
    );
}
