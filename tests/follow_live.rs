//! Following what is written while the explorer is open (issue 30), beyond a training run's
//! new steps (`training_follow.rs`): a plain rollout file an evaluation appends to, a file
//! rewritten under the explorer (a resumed verl run writes its steps again: the rows are
//! replaced, not added, and a label stays on its rollout), and the file system's wake-up
//! (a change is read at once, not at the next poll). The explorer is opened as `sebx FILES`
//! opens it (`open_default`), its workers started as the terminal loop starts them and
//! driven by the loop's own step (`tui::run::pump`); grading through the real engine
//! (Python runtime required: `sebx runtime install`).

use crate::live;

use live::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use sebx::model::Verdict;
use sebx::tui::entry::Shown;
use sebx::tui::load::{FileKind, Follow, LoadEvent, Source, SourceData, load_following};
use sebx::tui::run::pump;

#[test]
fn a_rollout_file_being_written_is_followed_its_torn_lines_read_once_finished() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("eval.jsonl");
    // Opened while the evaluation is writing its third line.
    let third = rollout(SUM_Q, SUM_RIGHT, &sum_cases(), 3);
    let (head, tail) = third.split_at(third.len() / 2);
    append(
        &file,
        &(rollout(SUM_Q, SUM_RIGHT, &sum_cases(), 1)
            + &rollout(SUM_Q, SUM_WRONG, &sum_cases(), 2)
            + head),
    );
    let mut ex = Explorer::open(vec![file.clone()], None);
    ex.until("the two whole lines loaded and graded", |app| {
        app.corpus.load.done && app.corpus.entries.len() == 2 && all_graded(app)
    });
    assert_eq!(ex.app.corpus.load.following, 1, "the file is followed");
    assert_eq!(ex.listed(1), Some(Shown::Verdict(Verdict::Right)));
    assert_eq!(ex.listed(2), Some(Shown::Verdict(Verdict::ResultError)));
    // The half line is said (the writer may have stopped), not taken for a bad line.
    let issues = &ex.app.corpus.issues;
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].line, 3);
    assert_eq!(issues[0].reason, sebx::model::verl::UNFINISHED_LINE);

    // The evaluation finishes it, and writes one more and half of the next.
    let fifth = rollout(MEAN_Q, MEAN_RIGHT, &mean_cases(), 5);
    let (head5, tail5) = fifth.split_at(20);
    append(
        &file,
        &(tail.to_string() + &rollout(MEAN_Q, MEAN_RIGHT, &mean_cases(), 4) + head5),
    );
    ex.until("lines 3 and 4 listed and graded", |app| {
        app.corpus.entries.len() == 4 && all_graded(app)
    });
    assert_eq!(ex.listed(3), Some(Shown::Verdict(Verdict::Right)));
    assert_eq!(ex.listed(4), Some(Shown::Verdict(Verdict::Right)));
    let row3 = ex.row(3).expect("row 3");
    assert_eq!(ex.app.corpus.entries[row3].rollout.line, 3);
    assert!(
        ex.app.corpus.issues.is_empty(),
        "the finished line is no longer an issue, the new half line none: {:?}",
        ex.app.corpus.issues
    );
    assert_eq!(ex.listed(5), None, "half a line is not read");
    append(&file, tail5);
    ex.until("line 5 listed and graded", |app| {
        app.corpus.entries.len() == 5 && all_graded(app)
    });
    let row5 = ex.row(5).expect("row 5");
    assert_eq!(ex.app.corpus.entries[row5].rollout.line, 5);
    assert_eq!(ex.app.corpus.runs.len(), 1, "still one run: the file");
}

#[test]
fn a_rewritten_step_file_replaces_its_rows_and_labels_stay_on_their_rollouts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let run = dir.path().join("exp").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    let step1 = run.join("1.jsonl");
    std::fs::write(
        &step1,
        [
            sample(SUM_Q, SUM_RIGHT, 1.0, 1, 1),
            sample(SUM_Q, SUM_WRONG, 0.0, 1, 2),
            sample(SUM_Q, SUM_WRONG, 0.0, 1, 3),
        ]
        .concat(),
    )
    .expect("step 1");
    std::fs::write(run.join("2.jsonl"), sample(MEAN_Q, MEAN_RIGHT, 1.0, 2, 4)).expect("step 2");
    let mut ex = Explorer::open(vec![run.clone()], Some(dataset));
    ex.until("loaded and graded", |app| {
        app.corpus.load.done && app.corpus.entries.len() == 4 && all_graded(app)
    });
    // Two samples labelled by hand: one the resumed run writes again as it was, one it
    // does not write again.
    ex.app.labelling.annotator = "tester".to_string();
    ex.app.update(&sebx::tui::Action::LabelMode);
    for n in [1, 2] {
        let row = ex.row(n).expect("row");
        ex.select(row);
        ex.app.update(&sebx::tui::Action::ToggleCategory('1'));
        ex.app.service();
    }
    let labelled = |ex: &Explorer, n: usize| {
        ex.row(n)
            .is_some_and(|r| ex.app.labelling.is_labelled(&ex.app.corpus.entries[r]))
    };
    assert!(labelled(&ex, 1) && labelled(&ex, 2), "{:?}", ex.app.message);
    let id2 = ex.app.corpus.entries[ex.row(2).expect("row 2")]
        .rollout
        .id
        .clone();
    let rows_of_step1 = [1, 2, 3].map(|n| ex.row(n).expect("row"));

    // The run resumed from a checkpoint writes step 1 again: truncated, then its lines
    // written in two goes (sample 1 as before, then two new ones, one right).
    std::fs::write(&step1, sample(SUM_Q, SUM_RIGHT, 1.0, 1, 1)).expect("rewrite");
    ex.until("step 1's first line re-read", |app| {
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("step 1 rewritten (resumed run): 1 samples re-read"))
    });
    append(
        &step1,
        &(sample(SUM_Q, SUM_RIGHT, 1.0, 1, 5) + &sample(SUM_Q, SUM_WRONG, 0.0, 1, 6)),
    );
    ex.until("step 1 re-read and graded", |app| {
        app.message.as_deref() == Some("step 1 rewritten (resumed run): 3 samples re-read")
            && all_graded(app)
    });
    // Replaced, not added: the same rows hold the new lines, in file order.
    assert_eq!(ex.app.corpus.entries.len(), 4);
    assert_eq!(ex.listed(2), None, "sample 2 is gone");
    assert_eq!(ex.listed(3), None, "sample 3 is gone");
    let new_rows = [1, 5, 6].map(|n| ex.row(n).expect("row"));
    assert_eq!(new_rows, rows_of_step1);
    assert_eq!(ex.listed(5), Some(Shown::Verdict(Verdict::Right)));
    assert_eq!(ex.listed(6), Some(Shown::Verdict(Verdict::ResultError)));
    for (row, line) in new_rows.iter().zip([1, 2, 3]) {
        assert_eq!(ex.app.corpus.entries[*row].rollout.line, line);
    }
    assert_eq!(
        ex.listed(4),
        Some(Shown::Verdict(Verdict::Right)),
        "step 2 untouched"
    );
    // Sample 1, written again as it was, keeps its id and so its label; sample 2's label
    // is still saved, on a rollout no longer in the run.
    assert!(labelled(&ex, 1));
    assert!(!labelled(&ex, 5) && !labelled(&ex, 6));
    assert!(ex.app.labelling.saved(0, &id2).is_some());
    assert!(
        ex.app.corpus.issues.is_empty(),
        "{:?}",
        ex.app.corpus.issues
    );
    // The Training screen counts step 1 once: its three samples now, one wrong.
    ex.app.update(&sebx::tui::Action::TrainingScreen);
    ex.until("the Training screen's figures", |app| {
        app.training.result.as_ref().is_some_and(|r| {
            r.report
                .figures
                .steps
                .iter()
                .any(|s| s.step == 1 && s.graded == 3)
        })
    });
    let result = ex.app.training.result.as_ref().expect("figures");
    let step = result
        .report
        .figures
        .steps
        .iter()
        .find(|s| s.step == 1)
        .expect("step 1");
    assert_eq!((step.samples, step.accuracy), (3, Some(2.0 / 3.0)));
}

#[test]
fn a_change_is_read_when_the_file_system_says_so_not_at_the_next_poll() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("eval.jsonl");
    append(&file, &rollout(SUM_Q, SUM_RIGHT, &sum_cases(), 1));
    // Polled once an hour: only the watcher can bring the new line in time.
    let follow = Follow {
        every: Duration::from_secs(3600),
        stop: Arc::new(AtomicBool::new(false)),
        looks: Arc::default(),
    };
    let stop = follow.stop.clone();
    let (tx, rx) = channel();
    let sources = vec![Source {
        kind: FileKind::Rollouts,
        data: SourceData::File(file.clone()),
    }];
    let loader = std::thread::spawn(move || {
        load_following(
            &sources,
            &mut |e| {
                let _ = tx.send(e);
            },
            Some(&follow),
        );
    });
    let mut rows = 0;
    let mut watched = None;
    let until = |what: &str, rows: &mut usize, watched: &mut Option<Option<String>>, n| {
        let start = Instant::now();
        while *rows < n {
            let left = Duration::from_secs(10).saturating_sub(start.elapsed());
            match rx.recv_timeout(left) {
                Ok(LoadEvent::Batch { entries, .. }) => *rows += entries.len(),
                Ok(LoadEvent::Following { polled, .. }) => *watched = Some(polled),
                Ok(_) => {}
                Err(e) => panic!("{what}: {e}"),
            }
        }
    };
    until("the file loaded", &mut rows, &mut watched, 1);
    // The follower says it follows (a condition, not a pause).
    let start = Instant::now();
    while watched.is_none() {
        let left = Duration::from_secs(10).saturating_sub(start.elapsed());
        match rx.recv_timeout(left) {
            Ok(LoadEvent::Following { polled, .. }) => watched = Some(polled),
            Ok(LoadEvent::Batch { entries, .. }) => rows += entries.len(),
            Ok(_) => {}
            Err(e) => panic!("the follower never said it follows: {e}"),
        }
    }
    assert_eq!(watched, Some(None), "followed, and watched");
    let written = Instant::now();
    append(&file, &rollout(SUM_Q, SUM_WRONG, &sum_cases(), 2));
    until("the appended line", &mut rows, &mut watched, 2);
    assert!(written.elapsed() < Duration::from_secs(5));
    stop.store(true, Ordering::Relaxed);
    loader.join().expect("loader");
}

#[test]
fn a_rollout_file_appearing_in_a_folder_given_is_opened_as_a_run_and_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let runs = dir.path().join("evals");
    std::fs::create_dir_all(&runs).expect("mkdir");
    append(
        &runs.join("a.jsonl"),
        &rollout(SUM_Q, SUM_RIGHT, &sum_cases(), 1),
    );
    let mut ex = Explorer::open(vec![runs.clone()], None);
    ex.until("a.jsonl loaded and graded", |app| {
        app.corpus.load.done && app.corpus.entries.len() == 1 && all_graded(app)
    });
    // A second evaluation starts writing into the folder: its first line half written,
    // and a sidecar beside it, which is no run.
    let b = runs.join("b.jsonl");
    let first = rollout(SUM_Q, SUM_WRONG, &sum_cases(), 2);
    let (head, tail) = first.split_at(30);
    append(&b, head);
    append(&runs.join("a.jsonl.labels.jsonl"), "");
    // Two more looks of the follower: the second begun after these writes, and what it
    // made of them sent before it is counted (no pause guessed long enough).
    let looks = ex.workers.follow_looks();
    let after = looks.load(Ordering::Acquire) + 2;
    ex.until("the follower looked at the folder after the writes", |_| {
        looks.load(Ordering::Acquire) >= after
    });
    pump(&mut ex.app, &ex.workers, &ex.rx);
    assert_eq!(ex.app.corpus.runs.len(), 1, "not a run before a whole line");
    append(
        &b,
        &(tail.to_string() + &rollout(MEAN_Q, MEAN_RIGHT, &mean_cases(), 3)),
    );
    ex.until("b.jsonl opened, listed and graded", |app| {
        app.corpus.entries.len() == 3 && all_graded(app)
    });
    assert_eq!(ex.app.corpus.runs.len(), 2);
    assert_eq!(ex.app.corpus.runs[1].name, "b");
    assert_eq!(ex.app.corpus.load.following, 2, "a.jsonl and b.jsonl");
    assert_eq!(ex.listed(2), Some(Shown::Verdict(Verdict::ResultError)));
    let row2 = ex.row(2).expect("row 2");
    assert_eq!(ex.app.corpus.entries[row2].run, 1);
    // And followed from then on.
    append(&b, &rollout(SUM_Q, SUM_RIGHT, &sum_cases(), 4));
    ex.until("b.jsonl's next line", |app| {
        app.corpus.entries.len() == 4 && all_graded(app)
    });
    assert_eq!(ex.listed(4), Some(Shown::Verdict(Verdict::Right)));
    assert!(
        ex.app.corpus.issues.is_empty(),
        "{:?}",
        ex.app.corpus.issues
    );
}

#[test]
fn a_training_run_appearing_in_a_folder_of_runs_given_is_opened_and_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let exp = dir.path().join("exp");
    std::fs::create_dir_all(exp.join("rollout")).expect("mkdir");
    std::fs::write(
        exp.join("rollout").join("1.jsonl"),
        sample(SUM_Q, SUM_RIGHT, 1.0, 1, 1),
    )
    .expect("step 1");
    let mut ex = Explorer::open(vec![exp.clone()], Some(dataset));
    ex.until("exp/rollout loaded and graded", |app| {
        app.corpus.load.done && app.corpus.entries.len() == 1 && all_graded(app)
    });
    // Validation starts: its folder, then its first step file.
    let validation = exp.join("validation");
    std::fs::create_dir_all(&validation).expect("mkdir");
    append(
        &validation.join("1.jsonl"),
        &(sample(MEAN_Q, MEAN_RIGHT, 1.0, 1, 2) + &sample(SUM_Q, SUM_WRONG, 0.0, 1, 3)),
    );
    ex.until("exp/validation opened, listed and graded", |app| {
        app.corpus.entries.len() == 3 && all_graded(app)
    });
    let names: Vec<&str> = ex.app.corpus.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["exp/rollout", "exp/validation"]);
    assert_eq!(ex.app.corpus.load.following, 2);
    assert_eq!(ex.listed(2), Some(Shown::Verdict(Verdict::Right)));
    assert_eq!(ex.listed(3), Some(Shown::Verdict(Verdict::ResultError)));
    // Its next step is followed.
    append(
        &validation.join("2.jsonl"),
        &sample(SUM_Q, SUM_RIGHT, 1.0, 2, 4),
    );
    ex.until("validation step 2", |app| {
        app.corpus.entries.len() == 4 && all_graded(app)
    });
    let row4 = ex.row(4).expect("row 4");
    assert_eq!(ex.app.corpus.entries[row4].run, 1);
}
