//! Reopening a run whose verdicts the score cache remembers (issue 30): the explorer, once
//! every grade is in, looks its loading batches up once more so that the cache keeps each
//! as a set, and the next opening reads each batch as one row, with the verdicts the first
//! opening showed and nothing graded again. Opened as `sebx FILES` opens it
//! (`open_default`), driven by the loop's own step; grading through the real engine
//! (Python runtime required: `sebx runtime install`).

#[path = "common/isolated.rs"]
mod isolated;
#[path = "common/live.rs"]
mod live;

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
