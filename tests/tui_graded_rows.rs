//! Rows graded in the background hold their facts, not their reports (issue 30: the
//! explorer holds no more per row than it needs to draw and filter). Opening such a row
//! looks its report up again (the score cache) and shows the same cases; without a cache
//! that remembers it, the row is graded again, at once.

use crate::tui_common;

use std::sync::Arc;

use sebx::grade::backend::GradeBackend;
use sebx::grade::facts::Facts;
use sebx::grade::report::GradeReport;
use sebx::grade::score_cache::ScoreCache;
use sebx::grade::settings::GradingSettings;
use sebx::model::Verdict;
use sebx::session::resolve::VerdictSource;
use sebx::tui::Action;
use sebx::tui::app::Grading;
use sebx::tui::entry::Shown;
use sebx::tui::inline::drain_inline;
use sebx::tui::jobs::JobRequest;
use tui_common::*;

/// The cases a report shows, without the run-to-run parts.
fn cases(report: &GradeReport) -> Vec<(String, String, Option<String>)> {
    report
        .cases
        .iter()
        .map(|c| (c.input.clone(), c.expected.clone(), c.actual.clone()))
        .collect()
}

fn select(app: &mut sebx::tui::App, row: usize) {
    app.update(&Action::Top);
    while app.list.selected != Some(row) {
        app.update(&Action::Down);
    }
}

/// Grades rows 6, 7, 8 (unscored in the fixtures) in the background with `cache`.
fn graded_app(cache: Option<Arc<ScoreCache>>) -> (sebx::tui::App, Remembering) {
    let mut app = app(Grading::Available);
    app.corpus.score_cache = cache.clone();
    let backend = Remembering {
        inner: FakeBackend::default(),
        cache,
    };
    app.update(&Action::Top);
    drain_inline(&mut app, Some(&backend));
    (app, backend)
}

#[test]
fn background_grades_are_held_as_facts_and_opening_a_row_looks_its_report_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = cache_in(dir.path());
    let (mut app, backend) = graded_app(Some(cache));
    assert_eq!(app.list.selected, Some(0));
    for row in [6, 7, 8] {
        let score = app.corpus.scores[row].clone();
        let (true, Some(facts)) = (score.report_elsewhere(), score.facts()) else {
            panic!("row {row}: {score:?}");
        };
        let report = backend
            .inner
            .grade(&app.corpus.entries[row].rollout)
            .expect("graded");
        assert_eq!(facts, Facts::of(&report));
        // Enough to draw the row: its failed-cases column too.
        assert_eq!(
            facts.cases,
            Some((report.failed_cases() as u16, report.cases.len() as u16))
        );
    }
    assert_eq!(app.corpus.shown(7), Shown::Verdict(Verdict::ResultError));
    let calls = backend
        .inner
        .calls
        .load(std::sync::atomic::Ordering::SeqCst);
    // Opening row 7: its report comes from the cache, not from grading it again.
    select(&mut app, 7);
    let asked = app.queued();
    assert!(
        asked.iter().any(
            |r| matches!(r, JobRequest::LookupScores { rows, whole: true, .. } if rows == &vec![7])
        ),
        "{asked:?}"
    );
    drain_inline(&mut app, Some(&backend));
    let shown = app.selected_report().expect("the report, looked up");
    let fresh = backend
        .inner
        .grade(&app.corpus.entries[7].rollout)
        .expect("graded");
    assert_eq!(cases(shown), cases(&fresh));
    assert!(!shown.cases.is_empty());
    assert_eq!(
        backend
            .inner
            .calls
            .load(std::sync::atomic::Ordering::SeqCst),
        calls + 1,
        "only this test's own fresh grade ran"
    );
}

#[test]
fn without_a_cache_an_opened_row_is_graded_again() {
    let (mut app, backend) = graded_app(None);
    assert!(app.corpus.scores[8].report_elsewhere());
    select(&mut app, 8);
    drain_inline(&mut app, Some(&backend));
    let Some(report) = app.corpus.scores[8].held_report().cloned() else {
        panic!("row 8: {:?}", app.corpus.scores[8]);
    };
    let fresh = backend
        .inner
        .grade(&app.corpus.entries[8].rollout)
        .expect("graded");
    assert_eq!(cases(&report), cases(&fresh));
    assert_eq!(
        app.corpus.shown(8),
        Shown::Verdict(fresh.verdict.expect("a verdict"))
    );
    assert_eq!(
        app.corpus.grade_progress.finished,
        app.corpus.grade_progress.requested
    );
}

/// The presenter built from rows graded in the background (not opened): each slide has its
/// report (read from the score cache), so its failing case can be shown.
#[test]
fn the_presenter_reads_the_reports_of_rows_graded_in_the_background() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = cache_in(dir.path());
    let (app, backend) = graded_app(Some(cache));
    assert!(app.corpus.scores[7].report_elsewhere());
    let p = sebx::tui::present::Presenter::from_app(
        &app,
        &[(7, "a failure".to_string())],
        app.theme.clone(),
    );
    let report = p.slides[0].report.as_ref().expect("the slide's report");
    let fresh = backend
        .inner
        .grade(&app.corpus.entries[7].rollout)
        .expect("graded");
    assert_eq!(cases(report), cases(&fresh));
    assert!(report.failed_cases() > 0);
}

/// A score cache in `dir` for the fixtures' API and the official settings.
fn cache_in(dir: &std::path::Path) -> Arc<ScoreCache> {
    let probe = app(Grading::Available);
    Arc::new(
        ScoreCache::open(dir, &probe.corpus.ctx.api, &GradingSettings::official()).expect("cache"),
    )
}

/// Reopening files whose verdicts the score cache remembers: each batch of rows is looked
/// up as it arrives (the verdicts show while the rest loads, issue 30's "every remembered
/// verdict within 3 s"), and nothing the cache knows is graded again.
#[test]
fn remembered_verdicts_show_while_the_rest_loads() {
    use sebx::tui::jobs::JobEvent;
    use sebx::tui::load::LoadEvent;
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = cache_in(dir.path());
    // Runs A and B without A's scored file: every row is graded once, into the cache.
    let sources: Vec<_> = sources().into_iter().take(2).collect();
    let mut first = app_with(Grading::Available, &sources);
    first.corpus.score_cache = Some(cache.clone());
    let backend = Remembering {
        inner: FakeBackend::default(),
        cache: Some(cache.clone()),
    };
    drain_inline(&mut first, Some(&backend));
    let rows = first.corpus.scores.len();
    // Every row but those whose line stores a verdict was graded and remembered.
    let graded: Vec<usize> = (0..rows)
        .filter(|&r| first.corpus.scores[r].source() != Some(VerdictSource::Stored))
        .collect();
    assert!(graded.len() >= 8, "{:?}", first.corpus.scores);
    assert!(
        graded
            .iter()
            .all(|&r| first.corpus.scores[r].source() == Some(VerdictSource::Graded)),
        "{:?}",
        first.corpus.scores
    );
    // Reopened: the loader's events are handed over one by one, and the lookups the app
    // asks for are answered before the next event, as the lookup thread would.
    let mut app = sebx::tui::App::new(
        first.corpus.ctx.clone(),
        sebx::tui::Theme::dark(),
        sebx::tui::Keymap::default(),
    );
    app.corpus.score_cache = Some(cache);
    app.register_sources(&sources);
    let mut remembered_before_done = 0;
    let mut graded_asked = 0;
    sebx::tui::load::load_sources(&sources, &mut |e| {
        let done = matches!(e, LoadEvent::Done);
        if done {
            remembered_before_done = app
                .corpus
                .scores
                .iter()
                .filter(|s| s.report_elsewhere())
                .count();
        }
        app.on_job(JobEvent::Load(e));
        for req in app.take_requests() {
            match req {
                JobRequest::LookupScores { .. } => {
                    if let Some(ev) = sebx::tui::jobs::run_request(req, None) {
                        app.on_job(ev);
                    }
                }
                JobRequest::Grade { .. } => graded_asked += 1,
                other => app.queue(other),
            }
        }
    });
    assert_eq!(app.corpus.scores.len(), rows);
    assert_eq!(
        remembered_before_done,
        graded.len(),
        "every remembered verdict was shown before loading ended"
    );
    assert_eq!(
        graded_asked, 0,
        "nothing the cache remembers is graded again"
    );
    for &row in &graded {
        let score = &app.corpus.scores[row];
        let (true, Some(facts)) = (score.report_elsewhere(), score.facts()) else {
            panic!("row {row}: {score:?}");
        };
        let Some(before) = first.corpus.scores[row].facts().map(|f| f.verdict) else {
            panic!("row {row}: {:?}", first.corpus.scores[row]);
        };
        assert_eq!(facts.verdict, before, "row {row}");
    }
}

/// A pair on the Compare screen whose B row holds facts only: that row's report is read from
/// the score cache once, not on every frame the pair is drawn; after a new grade, once more.
#[test]
fn a_pair_reads_a_facts_only_rows_report_once_not_per_frame() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = cache_in(dir.path());
    let (mut app, _backend) = graded_app(Some(cache));
    assert!(app.corpus.scores[7].report_elsewhere());
    app.update(&Action::CompareScreen);
    drain_inline(&mut app, None);
    let r = app.stats.result.clone().expect("figures");
    let c = &r.compare.as_ref().expect("two runs").comparison;
    // The cell and place in it of the pair whose B row is row 7 (a result_error).
    let (i, j, k) = (0..5)
        .flat_map(|i| (0..5).map(move |j| (i, j)))
        .find_map(|(i, j)| {
            c.cell(&r.set, Verdict::ALL[i], Verdict::ALL[j])
                .iter()
                .position(|&(_, b)| r.rows[b] == 7)
                .map(|k| (i, j, k))
        })
        .expect("row 7 is paired");
    walk_to_cell(&mut app, (i, j));
    app.update(&Action::Choose);
    for _ in 0..k {
        app.update(&Action::Down);
    }
    app.update(&Action::Choose);
    assert_eq!(
        app.stats.screen,
        Some(sebx::tui::stats::Screen::Pair(i, j, k))
    );
    assert!(app.corpus.scores[7].report_elsewhere());
    let before = app.stats.pair_reports.lookups();
    let first = screen(&draw(&app, 200, 48));
    assert!(first.contains(" B case 1: expected"), "{first}");
    for _ in 0..5 {
        assert_eq!(screen(&draw(&app, 200, 48)), first);
    }
    assert_eq!(
        app.stats.pair_reports.lookups() - before,
        2,
        "each row of the pair looked up once over six frames"
    );
    // A new grade (anywhere) reads the pair again, once.
    app.corpus.scores_changed += 1;
    draw(&app, 200, 48);
    draw(&app, 200, 48);
    assert_eq!(app.stats.pair_reports.lookups() - before, 4);
}
