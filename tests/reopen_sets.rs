//! Reopening a run whose verdicts the score cache remembers (issue 30): the explorer, once
//! every grade is in, looks its loading batches up once more so that the cache keeps each
//! as a set, and the next opening reads each batch as one row, with the verdicts the first
//! opening showed and nothing graded again. Opened as `sebx FILES` opens it
//! (`open_default`), driven by the loop's own step; grading through the real engine
//! (Python runtime required: `sebx runtime install`).

use crate::isolated;
use crate::live;

use live::*;

use sebx::tui::entry::Shown;

/// Two evaluation files of `n` rollouts each (one loading batch each), right and wrong
/// answers of two tasks mixed.
fn write_runs(dir: &std::path::Path, n: usize) -> Vec<std::path::PathBuf> {
    (0..2)
        .map(|f| {
            let path = dir.join(format!("eval{f}.jsonl"));
            let mut text = String::new();
            for i in 0..n {
                let k = f * n + i;
                text += &match k % 3 {
                    0 => rollout(SUM_Q, SUM_RIGHT, &sum_cases(), k),
                    1 => rollout(SUM_Q, SUM_WRONG, &sum_cases(), k),
                    _ => rollout(MEAN_Q, MEAN_RIGHT, &mean_cases(), k),
                };
            }
            std::fs::write(&path, text).expect("write");
            path
        })
        .collect()
}

fn shown(ex: &Explorer) -> Vec<(String, Shown)> {
    let mut rows: Vec<(String, Shown)> = (0..ex.app.corpus.entries.len())
        .map(|r| {
            (
                ex.app.corpus.entries[r].rollout.response.clone(),
                ex.app.corpus.shown(r),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn a_run_graded_in_the_explorer_reopens_through_the_sets_it_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = write_runs(dir.path(), 40);
    let cache = isolated::cache_flags();
    let (first, sealed) = {
        let mut ex = Explorer::open_in(files.clone(), None, cache.clone());
        ex.until("every row graded and the batches kept as sets", |app| {
            app.corpus.load.done && all_graded(app) && app.caches.seals_done > 0
        });
        assert_eq!(ex.app.corpus.grade_progress.finished, 80, "graded here");
        let by_sets = ex.app.corpus.score_cache.as_ref().expect("a cache");
        assert_eq!(
            by_sets.rows_read_by_sets(),
            0,
            "nothing to read sets of yet"
        );
        (shown(&ex), ex.app.caches.seals_done)
    };
    assert!(
        first
            .iter()
            .any(|r| r.1 == Shown::Verdict(sebx::model::Verdict::Right))
    );
    assert!(
        first
            .iter()
            .any(|r| r.1 == Shown::Verdict(sebx::model::Verdict::ResultError))
    );

    let mut ex = Explorer::open_in(files, None, cache);
    ex.until("every remembered verdict shown", |app| {
        app.corpus.load.done && all_graded(app)
    });
    assert_eq!(shown(&ex), first, "the verdicts the first opening showed");
    assert_eq!(
        ex.app.corpus.grade_progress.requested, 0,
        "nothing graded again"
    );
    let cache = ex.app.corpus.score_cache.as_ref().expect("a cache");
    assert_eq!(
        cache.rows_read_by_sets(),
        80,
        "each batch read as one set ({} sets kept, {} seals)",
        cache.store().set_count().unwrap_or(0),
        sealed
    );
}

/// NumPy's mean taken through zwc's own NumPy global, by a route no syntax shows: both
/// scorers pay it, and only a traced run names it.
const MEAN_BACKDOOR: &str = "import operator; return float(operator.attrgetter('_np.mean')(zwc)(values)) + 0 * float(zwc.kocito(values))";

#[test]
fn remembered_paid_rows_without_behaviour_answers_are_traced_in_the_background() {
    use sebx::grade::facts::Facts;
    use sebx::model::finding_kinds::FindingKind;
    use sebx::session::resolve::VerdictSource;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("eval.jsonl");
    std::fs::write(
        &path,
        rollout(MEAN_Q, MEAN_RIGHT, &mean_cases(), 0)
            + &rollout(MEAN_Q, MEAN_BACKDOOR, &mean_cases(), 1)
            + &rollout(SUM_Q, SUM_WRONG, &sum_cases(), 2),
    )
    .expect("write");
    let cache = isolated::cache_flags();
    // An earlier `sebx grade` remembered the three verdicts, without the behaviour answers.
    let api_doc =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl");
    let status = isolated::sebx()
        .args(["grade", "--scorer", "both", "-q", "--cache-dir"])
        .arg(cache.cache_dir.as_ref().expect("a cache folder"))
        .arg(&path)
        .arg("--api-doc")
        .arg(&api_doc)
        .arg("-o")
        .arg(dir.path().join("graded.jsonl"))
        .status()
        .expect("sebx grade");
    assert!(status.success());

    let facts = |ex: &Explorer, n: usize| -> Option<Facts> {
        // A verdict a grade decided (not one the line stores).
        let score = &ex.app.corpus.scores[ex.row(n)?];
        match score.source()? {
            VerdictSource::Stored | VerdictSource::Correct => None,
            _ => score.facts(),
        }
    };
    let mut ex = Explorer::open_in(vec![path.clone()], None, cache.clone());
    ex.until("the remembered verdicts shown", |app| {
        app.corpus.load.done && all_graded(app)
    });
    let right = Shown::Verdict(sebx::model::Verdict::Right);
    assert_eq!(ex.listed(0), Some(right), "remembered, shown at once");
    assert_eq!(ex.listed(1), Some(right));
    ex.until("the paid rows traced", |app| {
        let gp = app.corpus.grade_progress;
        gp.requested > 0 && gp.finished == gp.requested
    });
    assert_eq!(
        ex.app.corpus.grade_progress.requested, 2,
        "the two paid rows, not the wrong one"
    );
    let backdoor = facts(&ex, 1).expect("row 1 holds its facts");
    let numpy = FindingKind::NumpyBackdoor.bit();
    assert!(
        backdoor.behaviour.is_some_and(|k| k & numpy != 0),
        "the run named NumPy reached: {backdoor:?}"
    );
    let genuine = facts(&ex, 0).expect("row 0 holds its facts");
    assert_eq!(genuine.behaviour, Some(0), "asked, nothing found");
    assert_eq!(ex.listed(1), Some(right), "the verdict kept");
    assert!(!facts(&ex, 2).expect("row 2").behaviour_pending());

    // The answers are remembered: the next opening traces nothing.
    drop(ex);
    let mut ex = Explorer::open_in(vec![path], None, cache);
    ex.until("the remembered verdicts shown", |app| {
        app.corpus.load.done && all_graded(app)
    });
    let numpy_named = facts(&ex, 1).and_then(|f| f.behaviour).unwrap_or(0) & numpy;
    assert_ne!(numpy_named, 0, "remembered with the answers");
    assert_eq!(
        ex.app.corpus.grade_progress.requested, 0,
        "nothing traced again"
    );
}
