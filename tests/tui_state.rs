//! State tests: feed actions and job results to `App`, assert on its state.

use crate::tui_common;

use std::sync::atomic::Ordering;

use sebx::analysis::FindingKind;
use sebx::model::Verdict;
use sebx::session::resolve::VerdictSource;
use sebx::tui::Action;
use sebx::tui::action::Edit;
use sebx::tui::app::{FindingFilter, Grading, Grouping, Pane, VerdictFilter, ViewRow};
use sebx::tui::entry::{Score, Shown};
use sebx::tui::inline::drain_inline;
use sebx::tui::jobs::{JobEvent, JobRequest};
use tui_common::*;

fn unavailable() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime)
}

fn rows(app: &sebx::tui::App) -> Vec<usize> {
    app.list.rows().collect()
}

#[test]
fn loads_good_lines_reports_bad_ones_and_joins_reports() {
    let app = app(unavailable());
    assert_eq!(app.corpus.entries.len(), 9);
    assert_eq!(app.corpus.runs.len(), 2);
    assert_eq!(app.corpus.tasks.len(), 3);
    let bad: Vec<(usize, &str)> = app
        .corpus
        .issues
        .iter()
        .map(|i| (i.line, i.reason.as_str()))
        .collect();
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert_eq!(bad[0].0, 4);
    assert!(bad[0].1.starts_with("not valid JSON"));
    assert_eq!(bad[1], (7, "expected a JSON object, found a list"));
    let shown: Vec<Shown> = (0..9).map(|i| app.corpus.shown(i)).collect();
    assert_eq!(
        shown,
        vec![
            Shown::Verdict(Verdict::Right),
            Shown::Verdict(Verdict::ResultError),
            Shown::Verdict(Verdict::ExeError),
            Shown::Verdict(Verdict::UseNumpy),
            Shown::Verdict(Verdict::WithoutZwc),
            // stored in the line itself
            Shown::Verdict(Verdict::ExeError),
            Shown::Pending,
            Shown::Pending,
            Shown::Pending,
        ]
    );
    assert_eq!(app.corpus.scores[5].source(), Some(VerdictSource::Stored));
    // Without a backend nothing is queued for grading.
    assert!(
        app.queued()
            .iter()
            .all(|r| !matches!(r, JobRequest::Grade { .. }))
    );
}

#[test]
fn filters_combine_and_cycle() {
    let mut app = app(unavailable());
    // Findings and functions come from the background analysis.
    drain_inline(&mut app, None);
    app.update(&Action::CycleVerdictFilter);
    assert_eq!(app.list.filters.verdict, Some(VerdictFilter::AnyFailure));
    assert_eq!(rows(&app), vec![1, 2, 3, 4, 5]);
    app.update(&Action::CycleVerdictFilter);
    assert_eq!(
        app.list.filters.verdict,
        Some(VerdictFilter::Is(Verdict::Right))
    );
    assert_eq!(rows(&app), vec![0]);
    app.update(&Action::CycleVerdictFilter);
    app.update(&Action::CycleVerdictFilter);
    assert_eq!(
        app.list.filters.verdict,
        Some(VerdictFilter::Is(Verdict::ExeError))
    );
    assert_eq!(rows(&app), vec![2, 5]);
    // Combine with a run filter: run 0 only.
    app.update(&Action::CycleRunFilter);
    assert_eq!(app.list.filters.run, Some(0));
    assert_eq!(rows(&app), vec![2, 5]);
    app.update(&Action::CycleRunFilter);
    assert_eq!(app.list.filters.run, Some(1));
    assert!(rows(&app).is_empty());
    app.update(&Action::ClearFilters);
    assert_eq!(rows(&app).len(), 9);

    // Finding filter: any finding, then by kind.
    app.update(&Action::CycleFindingFilter);
    assert_eq!(app.list.filters.finding, Some(FindingFilter::Any));
    // Not row 5: its `.tolist()` is on a NumPy scalar (zwc.pemra's result), which has one.
    assert_eq!(rows(&app), vec![2, 3, 4, 7]);
    app.update(&Action::CycleFindingFilter);
    assert_eq!(
        app.list.filters.finding,
        Some(FindingFilter::Kind(FindingKind::UnknownZwcName))
    );
    assert_eq!(rows(&app), vec![2, 7]);
    app.update(&Action::ClearFilters);

    // Function filter cycles through the selected rollout's functions.
    app.update(&Action::Top);
    app.update(&Action::Down); // row 1: kocito, yitaf
    app.update(&Action::CycleFunctionFilter);
    assert_eq!(app.list.filters.function.as_deref(), Some("array"));
    app.update(&Action::CycleFunctionFilter);
    assert_eq!(app.list.filters.function.as_deref(), Some("mean"));
    assert_eq!(rows(&app), vec![0, 1, 6]);
    app.update(&Action::CycleFunctionFilter);
    assert_eq!(app.list.filters.function, None);
}

#[test]
fn search_is_a_job_and_newest_wins() {
    let mut app = app(unavailable());
    app.take_requests();
    app.update(&Action::Search);
    for c in "invert".chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    let requests = app.take_requests();
    let searches: Vec<u64> = requests
        .iter()
        .filter_map(|r| match r {
            JobRequest::Search { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(searches.len(), 6);
    // Results are not applied until the job answers; a stale answer is dropped.
    assert_eq!(rows(&app).len(), 9);
    assert!(!app.on_job(JobEvent::SearchDone {
        id: searches[0],
        matches: vec![(0, 1)]
    }));
    assert_eq!(rows(&app).len(), 9);
    let newest = requests.into_iter().last().expect("a search");
    let ev = sebx::tui::jobs::run_request(newest, None).expect("search result");
    assert!(app.on_job(ev));
    app.settle();
    let found = rows(&app);
    assert!(!found.is_empty());
    for i in &found {
        assert_eq!(&*app.corpus.entries[*i].rollout.query, Q_INV, "row {i}");
    }
    assert_eq!(found.len(), 3);
    assert_eq!(app.list.selected, Some(found[0]));
    // Search combines with filters.
    app.update(&Action::Edit(Edit::Submit));
    assert!(!app.list.search_box.is_open());
    app.update(&Action::CycleRunFilter);
    app.update(&Action::CycleRunFilter);
    assert_eq!(rows(&app), vec![7]);
    // Esc clears the search, filters stay.
    app.update(&Action::Cancel);
    assert!(app.list.search.results.is_none());
    assert_eq!(rows(&app), vec![6, 7, 8]);
}

#[test]
fn search_matches_code_and_names() {
    let mut app = app(unavailable());
    app.update(&Action::Search);
    for c in "quvohee".chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    drain_inline(&mut app, None);
    let found = rows(&app);
    assert_eq!(found[..2], [2, 7], "exact name matches first: {found:?}");
}

#[test]
fn navigation_moves_and_skips_group_headings() {
    let mut app = app(unavailable());
    assert_eq!(app.list.selected, Some(0));
    app.update(&Action::Down);
    app.update(&Action::Down);
    assert_eq!(app.list.selected, Some(2));
    app.update(&Action::Up);
    assert_eq!(app.list.selected, Some(1));
    app.update(&Action::Bottom);
    assert_eq!(app.list.selected, Some(8));
    app.update(&Action::Down);
    assert_eq!(app.list.selected, Some(8));
    app.update(&Action::Top);
    assert_eq!(app.list.selected, Some(0));
    app.update(&Action::PageDown);
    assert_eq!(app.list.selected, Some(app.list_height() - 1));

    // Group by task: headings appear, moving never lands on them.
    app.update(&Action::Top);
    app.update(&Action::CycleGrouping);
    assert_eq!(app.list.grouping, Grouping::Task);
    assert!(
        matches!(app.list.view[0], ViewRow::Group { ref label, count: 3 } if label.starts_with("Return the average"))
    );
    assert_eq!(rows(&app), vec![0, 1, 6, 2, 3, 7, 4, 5, 8]);
    app.update(&Action::Top);
    assert_eq!(app.list.selected, Some(0));
    app.update(&Action::Down);
    app.update(&Action::Down);
    app.update(&Action::Down);
    assert_eq!(
        app.list.selected,
        Some(2),
        "skipped the heading between 6 and 2"
    );
    // Group by verdict puts failures first.
    app.update(&Action::CycleGrouping);
    assert_eq!(app.list.grouping, Grouping::Verdict);
    assert!(matches!(&app.list.view[0], ViewRow::Group { label, .. } if label == "result_error"));
}

#[test]
fn same_task_across_runs_is_one_key_away() {
    let mut app = app(unavailable());
    app.update(&Action::Down);
    app.update(&Action::Down); // row 2: Q_INV in run A (row 3 is Q_INV in run A too)
    app.update(&Action::NextSameTask);
    assert_eq!(
        app.list.selected,
        Some(7),
        "] lands in the next run, not on row 3 of the same run"
    );
    assert!(app.message.as_deref().is_some_and(|m| m.contains("run_b")));
    app.update(&Action::NextSameTask);
    assert_eq!(
        app.list.selected,
        Some(2),
        "from the last run, back to the first run's first rollout of the task"
    );
    assert!(app.message.as_deref().is_some_and(|m| m.contains("run_a")));
    app.update(&Action::SameTask);
    assert_eq!(rows(&app), vec![2, 3, 7]);
    app.update(&Action::SameTask);
    assert_eq!(rows(&app).len(), 9);
}

#[test]
fn panes_scroll_and_first_failed_case() {
    let mut app = app(unavailable());
    app.update(&Action::NextPane);
    assert_eq!(app.detail.pane, Pane::Code);
    app.update(&Action::PrevPane);
    app.update(&Action::PrevPane);
    assert_eq!(app.detail.pane, Pane::Task);
    app.update(&Action::ScrollDown);
    app.update(&Action::ScrollDown);
    assert_eq!(app.detail.scroll, 2);
    app.update(&Action::Down); // row 1: result_error, both cases failed
    assert_eq!(app.detail.scroll, 0, "a new selection starts at the top");
    app.update(&Action::FirstFailedCase);
    assert_eq!(app.detail.pane, Pane::Cases);
    assert_eq!(app.case_cursor(), 0);
    app.update(&Action::ScrollDown);
    assert_eq!(app.case_cursor(), 1);
    app.update(&Action::ScrollDown);
    assert_eq!(app.case_cursor(), 1, "stays on the last case");
    app.update(&Action::Up); // row 0: all cases pass
    app.update(&Action::FirstFailedCase);
    assert_eq!(app.message.as_deref(), Some("no failed case"));
}

#[test]
fn background_grading_fills_in_and_drops_stale_results() {
    let backend = FakeBackend::default();
    // Run A's scored file with every reward (one without is graded for it: a test below).
    let mut app = app_with(Grading::Available, &every_reward());
    // After loading, the rows without any score are looked up (rerun sidecars, then the
    // score cache: `grade::resolve`'s precedence) and, found in neither, queued for grading.
    let lookups: Vec<JobRequest> = app.take_requests();
    let lookup_rows: Vec<usize> = lookups
        .iter()
        .filter_map(|r| match r {
            JobRequest::LookupScores { rows, .. } => Some(rows.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(lookup_rows, vec![6, 7, 8]);
    assert!(
        !lookups
            .iter()
            .any(|r| matches!(r, JobRequest::Grade { .. })),
        "nothing is graded before the lookup"
    );
    for req in lookups {
        if let Some(ev) = sebx::tui::jobs::run_request(req, None) {
            app.on_job(ev);
        }
    }
    let grades: Vec<(u64, usize)> = app
        .queued()
        .iter()
        .filter_map(|r| match r {
            JobRequest::Grade { ticket, row, .. } => Some((*ticket, *row)),
            _ => None,
        })
        .collect();
    assert_eq!(
        grades.iter().map(|g| g.1).collect::<Vec<_>>(),
        vec![6, 7, 8]
    );
    assert_eq!(app.corpus.shown(6), Shown::Grading);
    // Regrade row 6 before the first result arrives: the first result is stale.
    app.update(&Action::Bottom);
    app.update(&Action::Top);
    for _ in 0..6 {
        app.update(&Action::Down);
    }
    assert_eq!(app.list.selected, Some(6));
    // Selecting a row that waits for grading moves it to the front of the queue.
    let ticket6 = grades[0].0;
    assert!(app.queued().iter().any(|r| matches!(r,
        JobRequest::Grade { ticket, row: 6, front: true, .. } if *ticket == ticket6)));
    app.update(&Action::Regrade);
    let stale = JobEvent::Graded {
        ticket: grades[0].0,
        row: 6,
        result: Err("old".into()),
    };
    assert!(!app.on_job(stale));
    assert_eq!(app.corpus.shown(6), Shown::Grading);
    drain_inline(&mut app, Some(&backend));
    assert_eq!(app.corpus.shown(6), Shown::Verdict(Verdict::Right));
    assert_eq!(app.corpus.shown(7), Shown::Verdict(Verdict::ResultError));
    assert_eq!(app.corpus.shown(8), Shown::Verdict(Verdict::Right));
    assert_eq!(
        app.corpus.grade_progress.finished,
        app.corpus.grade_progress.requested
    );
    // Stored scores can be regraded.
    app.update(&Action::Top);
    for _ in 0..5 {
        app.update(&Action::Down);
    }
    assert_eq!(app.corpus.scores[5].source(), Some(VerdictSource::Stored));
    app.update(&Action::Regrade);
    drain_inline(&mut app, Some(&backend));
    assert_eq!(app.corpus.scores[5].source(), Some(VerdictSource::Graded));
    assert!(app.corpus.scores[5].report().is_some());
    // 3 queued + 2 front-of-queue repeats (rows 8 and 6 selected while waiting; the worker
    // queue drops the repeats, this inline drain does not) + 2 regrades.
    assert_eq!(backend.calls.load(Ordering::SeqCst), 7);
}

#[test]
fn without_a_backend_regrading_says_why() {
    let mut app = app(unavailable());
    app.update(&Action::Regrade);
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("no Python runtime"))
    );
    assert_eq!(app.corpus.scores[0].source(), Some(VerdictSource::Scored));
    assert!(app.corpus.scores[0].report().is_some());
}

#[test]
fn mouse_clicks_rows_and_tabs_and_wheel_scrolls() {
    let mut app = app(unavailable());
    let areas = sebx::tui::layout::layout(ratatui::layout::Rect::new(0, 0, 80, 24));
    app.update(&Action::Click {
        column: 10,
        row: areas.list_body.y + 2,
    });
    assert_eq!(app.list.selected, Some(2));
    let tabs = sebx::tui::layout::tab_positions(areas.detail, &app.keymap);
    let (pane, x, _) = tabs[2];
    assert_eq!(pane, Pane::Cases);
    app.update(&Action::Click {
        column: x + 1,
        row: areas.detail.y,
    });
    assert_eq!(app.detail.pane, Pane::Cases);
    app.update(&Action::Wheel {
        column: 5,
        row: areas.list_body.y,
        down: true,
    });
    assert_eq!(app.list.selected, Some(5));
    app.update(&Action::PaneResponse);
    app.update(&Action::Wheel {
        column: 5,
        row: areas.detail.y + 3,
        down: true,
    });
    assert_eq!(app.detail.scroll, 3);
}

#[test]
fn popups_take_keys_until_closed() {
    let mut app = app(unavailable());
    app.update(&Action::Help);
    app.update(&Action::Down);
    assert_eq!(
        app.list.selected,
        Some(0),
        "the list does not move under the help"
    );
    assert_eq!(app.popup_scroll, 1);
    app.update(&Action::Cancel);
    assert!(app.popup.is_none());
    app.update(&Action::Quit);
    assert!(app.should_quit);
}

/// Grades in the order rollouts arrive, holding the first one until released.
struct GatedBackend {
    order: std::sync::Mutex<Vec<usize>>,
    gate: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl sebx::grade::backend::GradeBackend for GatedBackend {
    fn grade(
        &self,
        rollout: &sebx::model::Rollout,
    ) -> anyhow::Result<sebx::grade::report::GradeReport> {
        let first = {
            let mut order = self.order.lock().expect("lock");
            order.push(rollout.line);
            order.len() == 1
        };
        if first {
            let _ = self.gate.lock().expect("lock").recv();
        }
        FakeBackend::default().grade(rollout)
    }
}

#[test]
fn worker_queue_puts_the_selected_row_first_and_grades_it_once() {
    use std::sync::Arc;
    let app = app(Grading::Available);
    let (release, gate) = std::sync::mpsc::channel();
    let backend = Arc::new(GatedBackend {
        order: Default::default(),
        gate: std::sync::Mutex::new(gate),
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let workers = sebx::tui::jobs::Workers::start(tx, Some(backend.clone()), 1, None);
    let entry = |row: usize| app.corpus.entries[row].clone();
    // Rows 0..5 queued in order; the first blocks the single worker.
    for row in 0..6 {
        workers.dispatch(JobRequest::Grade {
            ticket: row as u64,
            row,
            entry: entry(row),
            front: false,
        });
    }
    while backend.order.lock().expect("lock").is_empty() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // The user selects row 4: it jumps the queue and is not graded twice.
    workers.dispatch(JobRequest::Grade {
        ticket: 4,
        row: 4,
        entry: entry(4),
        front: true,
    });
    release.send(()).expect("release");
    let mut rows = Vec::new();
    while rows.len() < 6 {
        if let JobEvent::Graded { row, .. } = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a grade result")
        {
            rows.push(row);
        }
    }
    assert_eq!(rows, vec![0, 4, 1, 2, 3, 5]);
    assert!(
        rx.recv_timeout(std::time::Duration::from_millis(200))
            .is_err(),
        "row 4 graded once"
    );
}

#[test]
fn background_analysis_fills_findings_and_filters() {
    let mut app = app(unavailable());
    app.update(&Action::CycleFindingFilter);
    assert_eq!(app.list.filters.finding, Some(FindingFilter::Any));
    // Nothing is analysed while loading: no row has findings yet.
    assert!(rows(&app).is_empty());
    assert!(app.corpus.findings(2).is_empty());
    // The first batch's rows were handed over at once, the rest when loading finished,
    // each row once.
    let sweeps: Vec<JobRequest> = app
        .take_requests()
        .into_iter()
        .filter(|r| matches!(r, JobRequest::AnalyzeAll { .. }))
        .collect();
    let ranges: Vec<(usize, usize)> = sweeps
        .iter()
        .map(|r| match r {
            JobRequest::AnalyzeAll { from, entries, .. } => (*from, entries.len()),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(ranges.first().map(|r| r.0), Some(0), "{ranges:?}");
    assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0), "{ranges:?}");
    assert_eq!(ranges.last().map(|r| r.1), Some(app.corpus.entries.len()));
    for sweep in sweeps {
        let digested = sebx::tui::jobs::run_request(sweep, None).expect("digests");
        assert!(app.on_job(digested));
    }
    app.settle();
    assert!((0..app.corpus.entries.len()).all(|i| app.corpus.digest(i).is_some()));
    // The filter follows the analysis as it arrives.
    assert!(rows(&app).contains(&2), "{:?}", rows(&app));
    for _ in 0..3 {
        app.update(&Action::CycleFindingFilter);
    }
    assert_eq!(
        app.list.filters.finding,
        Some(FindingFilter::Kind(FindingKind::ArrayMethod))
    );
    // zwc.pemra returns a NumPy scalar, whose .tolist() works: the analysis says so.
    assert!(rows(&app).is_empty());
    assert_eq!(app.corpus.findings(5).len(), 0);
    let unknown: Vec<&str> = app
        .corpus
        .findings(2)
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(unknown, vec!["zwc.rfx.quvohee"]);
    // NumPy names of the zwc calls; the invented name as written.
    assert_eq!(app.corpus.functions(2), ["array", "zwc.rfx.quvohee"]);
}

#[test]
fn cases_of_a_program_that_never_ran_are_not_failures() {
    let mut app = app(unavailable());
    for _ in 0..4 {
        app.update(&Action::Down);
    }
    assert_eq!(app.corpus.shown(4), Shown::Verdict(Verdict::WithoutZwc));
    app.update(&Action::FirstFailedCase);
    assert_eq!(app.detail.pane, Pane::Cases);
    assert_eq!(
        app.message.as_deref(),
        Some("no case ran: no ```python block")
    );
    let screen = screen(&draw(&app, 80, 24));
    assert!(screen.contains("not run: no ```python block"), "{screen}");
    let row = screen
        .lines()
        .find(|l| l.contains("without_zwc"))
        .expect("the row");
    assert!(row.contains(" -  "), "fail column shows no count: {row}");
}

#[test]
fn clicking_a_case_row_selects_that_case() {
    let mut app = app(unavailable());
    app.update(&Action::Down); // row 1: two failed cases
    app.update(&Action::PaneCases);
    assert_eq!(app.case_cursor(), 0);
    let text = screen(&draw(&app, 80, 24));
    let y = text
        .lines()
        .position(|l| l.contains("✗ 2 grid"))
        .expect("the second case is on screen");
    app.update(&Action::Click {
        column: 20,
        row: y as u16,
    });
    assert_eq!(app.case_cursor(), 1);
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("Case 2 ✗"), "{text}");
    // A click elsewhere in the pane (not on a case row) leaves the cursor alone.
    let y = text
        .lines()
        .position(|l| l.contains("Case 2 ✗"))
        .expect("detail heading");
    app.update(&Action::Click {
        column: 20,
        row: y as u16,
    });
    assert_eq!(app.case_cursor(), 1);
}

/// Fragile verdicts (another machine or grader run could flip them) are marked `≈` in the
/// list, explained in the Cases pane, and have a verdict filter of their own.
#[test]
fn fragile_verdicts_are_marked_explained_and_filtered() {
    let mut app = app(unavailable());
    let Some(report) = app.corpus.scores[1].held_report().cloned() else {
        panic!("row 1 carries a grade report");
    };
    let mut fragile = (*report).clone();
    fragile.mark_fragile("case 1: matched only because the digits printed identically");
    app.corpus.scores[1] = Score::of_report(fragile, VerdictSource::Scored, true);
    assert!(app.corpus.is_fragile(1) && !app.corpus.is_fragile(0));
    for _ in 0..8 {
        app.update(&Action::CycleVerdictFilter);
    }
    assert_eq!(app.list.filters.verdict, Some(VerdictFilter::Fragile));
    assert_eq!(rows(&app), vec![1]);
    assert_eq!(app.list.selected, Some(1));
    app.update(&Action::FirstFailedCase);
    assert_eq!(app.detail.pane, Pane::Cases);
    let shown = screen(&draw(&app, 160, 40));
    let row = shown
        .lines()
        .find(|l| l.contains("▶"))
        .expect("the selected row is drawn");
    assert!(row.contains("≈"), "{row}");
    assert!(shown.contains("≈ fragile: case 1: matched only"), "{shown}");
    // The cycle's last entry, reward ≠ verdict, then no filter again.
    app.update(&Action::CycleVerdictFilter);
    assert_eq!(
        app.list.filters.verdict,
        Some(VerdictFilter::RewardDisagrees)
    );
    app.update(&Action::CycleVerdictFilter);
    assert_eq!(app.list.filters.verdict, None);
    assert_eq!(rows(&app).len(), 9);
}

/// Reopening a file: verdicts an earlier session graded come from the score cache at once,
/// and only the rest is sent to the grader.
#[test]
fn reopening_shows_remembered_verdicts_without_regrading() {
    use sebx::grade::score_cache::ScoreCache;
    use sebx::tui::app::Context;
    let dir = tempfile::tempdir().expect("tempdir");
    // First session: grade everything with the fake backend, remembering each verdict
    // (run A's scored file with its rewards: nothing of it is graded).
    let first = app_with(Grading::Available, &every_reward());
    let cache = std::sync::Arc::new(
        ScoreCache::open(
            dir.path(),
            &first.corpus.ctx.api,
            // The fake backend's reports carry a verdict only.
            &sebx::grade::settings::GradingSettings::official(),
        )
        .expect("cache"),
    );
    let backend = FakeBackend::default();
    use sebx::grade::backend::GradeBackend;
    for row in [6, 7] {
        let rollout = &first.corpus.entries[row].rollout;
        let report = backend.grade(rollout).expect("graded");
        cache.put(rollout, &report).expect("remembered");
    }
    // Second session on the same files, with the cache.
    let ctx = Context {
        api: first.corpus.ctx.api.clone(),
        dataset: first.corpus.ctx.dataset.clone(),
        grading: Grading::Available,
        notes: Vec::new(),
    };
    let mut app = sebx::tui::App::new(ctx, sebx::tui::Theme::dark(), sebx::tui::Keymap::default());
    app.corpus.score_cache = Some(cache);
    sebx::tui::inline::load_inline(&mut app, &every_reward());
    let requests = app.take_requests();
    assert!(
        requests
            .iter()
            .any(|r| matches!(r, JobRequest::LookupScores { rows, .. } if rows == &vec![6, 7, 8])),
        "the unscored rows are looked up first"
    );
    assert!(
        !requests
            .iter()
            .any(|r| matches!(r, JobRequest::Grade { .. })),
        "nothing is graded before the cache answered"
    );
    for req in requests {
        if let Some(ev) = sebx::tui::jobs::run_request(req, None) {
            app.on_job(ev);
        }
    }
    app.settle();
    assert_eq!(app.corpus.shown(6), Shown::Verdict(Verdict::Right));
    assert_eq!(app.corpus.shown(7), Shown::Verdict(Verdict::ResultError));
    // Only the row the cache did not know goes to the grader.
    let grades: Vec<usize> = app
        .take_requests()
        .into_iter()
        .filter_map(|r| match r {
            JobRequest::Grade { row, .. } => Some(row),
            _ => None,
        })
        .collect();
    assert_eq!(grades, vec![8]);
}

/// A newcomer sees how to quit, get help, search and label without opening anything, and
/// the help screen opens on the most used keys, readable at 80×24.
#[test]
fn footer_and_help_show_the_essential_keys_first_at_80x24() {
    let mut app = app(unavailable());
    app.message = None;
    let footer = screen(&draw(&app, 80, 24));
    let last = footer.lines().last().expect("a status bar");
    // The grading warning and the bad-lines count stay too.
    assert!(
        last.contains("no Python") && last.contains("bad lines"),
        "{last:?}"
    );
    for hint in [" q quit", " / search", " L label", " ? help"] {
        assert!(last.contains(hint), "{hint:?} missing from {last:?}");
    }
    app.update(&Action::Help);
    let help = screen(&draw(&app, 80, 24));
    let rows: Vec<&str> = help.lines().filter(|l| l.contains("│ ")).collect();
    assert!(rows.len() >= 10, "{help}");
    assert!(rows[0].contains("quit"), "{help}");
    assert!(rows[1].contains("this help"), "{help}");
    assert!(rows[2].contains("search"), "{help}");
    // Descriptions are not cut to nothing at 80 columns.
    assert!(rows[3].contains("label mode"), "{help}");
}

/// The highlighted texts of the rows looked at last stay cached; those looked at longest ago
/// are dropped (not the whole cache) and asked for again when their row is selected again.
#[test]
fn detail_caches_keep_the_rows_looked_at_last() {
    use sebx::tui::App;
    use sebx::tui::jobs::HighlightKind;
    let text: String = (0..400)
        .map(|i| rollout_line(&format!("task {i}"), &fence(&format!("x = {i}\n")), None) + "\n")
        .collect();
    let mut app = app_of(r#"{"func_mapping": {"np.mean": "zwc.kocito"}}"#, text);
    assert_eq!(app.corpus.entries.len(), 400);
    // Which rows' code highlighting a selection asks for.
    let code_requests = |app: &mut App| -> Vec<usize> {
        app.take_requests()
            .into_iter()
            .filter_map(|r| match r {
                JobRequest::Highlight {
                    key: (row, HighlightKind::Code),
                    ..
                } => Some(row),
                _ => None,
            })
            .collect()
    };
    // Row 0 is selected on load.
    assert_eq!(code_requests(&mut app), [0]);
    app.on_job(JobEvent::Highlighted {
        key: (0, HighlightKind::Code),
        text: Default::default(),
    });
    // Look at rows 1..300 in turn; each row's highlighting arrives before the next.
    for row in 1..300 {
        app.jump_to(row);
        assert_eq!(
            code_requests(&mut app),
            [row],
            "row {row} is asked for once"
        );
        app.on_job(JobEvent::Highlighted {
            key: (row, HighlightKind::Code),
            text: Default::default(),
        });
    }
    // Row 299 (looked at last) is held: selecting it again asks for nothing.
    app.jump_to(299);
    assert!(code_requests(&mut app).is_empty());
    assert!(
        app.detail
            .held
            .highlights
            .peek(&(299, HighlightKind::Code))
            .is_some()
    );
    // Row 0 was looked at longest ago and dropped: it is asked for again.
    app.jump_to(0);
    assert_eq!(code_requests(&mut app), [0]);
    // The cache never holds more than its bound, and kept far more than nothing.
    let held = (0..300)
        .filter(|r| {
            app.detail
                .held
                .highlights
                .peek(&(*r, HighlightKind::Code))
                .is_some()
        })
        .count();
    assert!((100..=256).contains(&held), "{held} held");
}

/// An app over one rollout file `text` with the API doc `api_doc` (no grading).
fn app_of(api_doc: &str, text: String) -> sebx::tui::App {
    use sebx::tui::app::Context;
    use sebx::tui::load::{FileKind, Source, SourceData};
    use sebx::tui::{App, Keymap, Theme};
    let ctx = Context {
        api: std::sync::Arc::new(sebx::model::ApiMap::from_api_doc_jsonl(api_doc).expect("api")),
        dataset: std::sync::Arc::new(sebx::model::Dataset::default()),
        grading: unavailable(),
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    sebx::tui::inline::load_inline(
        &mut app,
        &[Source {
            kind: FileKind::Rollouts,
            data: SourceData::Embedded {
                label: "run.jsonl".into(),
                text: Box::leak(text.into_boxed_str()),
            },
        }],
    );
    app
}

/// The Code pane marks what the analysis is sure of in the error style and what it is
/// not sure of (`possible`) dimmer, in the code and in the findings list below it.
#[test]
fn code_pane_marks_possible_findings_dimmer_than_errors() {
    use sebx::tui::Theme;
    let code = "import zwc\ndef f(a, b):\n    x = zwc.yitaf(a).tolist()\n    y = zwc.rijufi(b).tolist()\n    return x + y\n";
    let api = r#"{"func_mapping": {"np.array": "zwc.yitaf", "np.sqrt": "zwc.rijufi"}}"#;
    let mut app = app_of(api, rollout_line("task", &fence(code), None) + "\n");
    app.update(&Action::PaneCode);
    drain_inline(&mut app, None);
    let analysis = app.selected_analysis().expect("analysed");
    let severities: Vec<(usize, String)> = analysis
        .code
        .findings
        .iter()
        .map(|f| (f.line, format!("{:?}", f.severity)))
        .collect();
    assert_eq!(
        severities,
        [(3, "Error".to_string()), (4, "Possible".to_string())]
    );
    let entry = app.selected_entry().expect("selected").clone();
    let content = sebx::tui::panes::render(&app.detail, &app.draw_cx(), &entry, 100);
    let theme = Theme::dark();
    assert_ne!(theme.error.fg, theme.dim.fg, "the theme tells them apart");
    // The style of `tolist` on the code line that starts with `prefix`.
    let mark = |prefix: &str| {
        let line = content
            .lines
            .iter()
            .find(|l| {
                let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
                text.trim_start().starts_with(prefix)
            })
            .unwrap_or_else(|| panic!("no line {prefix}"));
        line.spans
            .iter()
            .find(|s| s.content.contains("tolist"))
            .map(|s| s.style.fg)
            .expect("tolist drawn")
    };
    assert_eq!(mark("3 "), theme.error.fg, "the sure finding");
    assert_eq!(mark("4 "), theme.dim.fg, "the possible finding");
    // In the findings list, the possible one says so, in the dim style.
    let possible = content
        .lines
        .iter()
        .find(|l| l.spans.iter().any(|s| s.content.contains("(possible)")))
        .expect("a possible finding listed");
    assert_eq!(possible.spans[0].style.fg, theme.dim.fg);
    let listed_errors = content
        .lines
        .iter()
        .filter(|l| l.spans.first().is_some_and(|s| s.content == "⚑ "))
        .filter(|l| l.spans[0].style.fg == theme.error.fg)
        .count();
    assert_eq!(listed_errors, 1);
}

/// `v`'s last filter, reward ≠ verdict, keeps exactly the rows whose official RL reward
/// disagrees with their verdict: from a `--scorer both` file and as background grading
/// delivers them; the status bar names it.
#[test]
fn reward_filter_keeps_exactly_the_rows_where_reward_and_verdict_disagree() {
    let backend = FakeBackend {
        both: true,
        ..FakeBackend::default()
    };
    let mut app = app_with(Grading::Available, &sources_with_rewards());
    let disagreeing: Vec<usize> = (0..9).filter(|i| app.corpus.reward_disagrees(*i)).collect();
    assert_eq!(disagreeing, vec![0, 1]);
    for _ in 0..VerdictFilter::CYCLE.len() {
        app.update(&Action::CycleVerdictFilter);
    }
    assert_eq!(
        app.list.filters.verdict,
        Some(VerdictFilter::RewardDisagrees)
    );
    // Rows 2 and 3 have a reward that agrees, 4 and 5 none, 6–8 are being graded.
    assert_eq!(rows(&app), vec![0, 1]);
    // Graded in the background with both scorers: row 8's reward (0, a warning on stderr)
    // disagrees with its verdict (right) and joins the view; rows 6 and 7 agree.
    drain_inline(&mut app, Some(&backend));
    assert_eq!(app.corpus.shown(8), Shown::Verdict(Verdict::Right));
    // Held as facts (the rows were not open): the reward is among them.
    assert_eq!(app.corpus.facts(8).and_then(|f| f.reward), Some(0));
    assert_eq!(app.corpus.facts(6).and_then(|f| f.reward), Some(1));
    assert_eq!(rows(&app), vec![0, 1, 8]);
    let text = screen(&draw(&app, 80, 24));
    let status = text.lines().last().expect("a status bar");
    assert!(status.contains(" reward ≠ verdict "), "{status:?}");
    assert!(!status.contains("verdict=reward"), "{status:?}");
    // It combines with the other filters: run B alone.
    app.update(&Action::CycleRunFilter);
    app.update(&Action::CycleRunFilter);
    assert_eq!(app.list.filters.run, Some(1));
    assert_eq!(rows(&app), vec![8]);
    app.update(&Action::CycleRunFilter);
    // Past the last filter of the cycle: every row again.
    app.update(&Action::CycleVerdictFilter);
    assert_eq!(app.list.filters.verdict, None);
    assert_eq!(rows(&app).len(), 9);
}

/// With a reward disagreement pinned above the Cases table, a click on a case row still
/// selects that case (the rows drawn are where the pane put them).
#[test]
fn clicking_a_case_row_below_the_reward_lines_selects_that_case() {
    let mut app = app_with(unavailable(), &sources_with_rewards());
    drain_inline(&mut app, None);
    app.update(&Action::Top);
    app.update(&Action::PaneCases);
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("≠ verdict right"), "{text}");
    let y = text
        .lines()
        .position(|l| l.contains("✓ 2 grid"))
        .expect("the second case is on screen");
    app.update(&Action::Click {
        column: 20,
        row: y as u16,
    });
    assert_eq!(app.case_cursor(), 1);
    // A click on the reward's lines is not a click on a case.
    let y = text
        .lines()
        .position(|l| l.contains("≠ verdict right"))
        .expect("the reward line");
    app.update(&Action::Click {
        column: 20,
        row: y as u16,
    });
    assert_eq!(app.case_cursor(), 1);
}

#[test]
fn the_cases_pane_opens_on_the_first_failed_case() {
    // Row 1 (result_error) with its first case passing: only the second failed.
    let reports: Vec<String> = reports_a()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a report");
            if v["line"] == 2 {
                v["cases"][0]["matched"] = serde_json::json!(true);
                v["cases"][0]["comparison"]["matched"] = serde_json::json!(true);
                v["cases"][0]["comparison"]["mismatch"] = serde_json::Value::Null;
            }
            v.to_string()
        })
        .collect();
    let mut app = app_with(unavailable(), &sources_with(reports.join("\n")));
    app.update(&Action::PaneCases);
    assert_eq!(app.case_cursor(), 0, "row 0 passed: its first case");
    app.update(&Action::Down);
    assert_eq!(
        app.case_cursor(),
        1,
        "row 1: its first failed case, the second"
    );
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("Case 2 ✗"), "{text}");
    // Moved by the user, it stays where they put it; the next rollout starts afresh.
    app.update(&Action::ScrollUp);
    assert_eq!(app.case_cursor(), 0);
    app.update(&Action::Up);
    app.update(&Action::Down);
    assert_eq!(app.case_cursor(), 1);
}

/// A scored file's verdicts without the official RL reward: the explorer grades the reward
/// (never a figure over a subset), keeping the file's verdict; reopened, the rewards an
/// earlier session graded come from the score cache and nothing is graded again.
#[test]
fn scored_verdicts_get_their_reward_once() {
    use sebx::grade::backend::GradeBackend;
    use sebx::grade::score_cache::ScoreCache;
    use sebx::tui::app::Context;
    let dir = tempfile::tempdir().expect("tempdir");
    let open = |cache: Option<std::sync::Arc<ScoreCache>>| {
        let ctx = Context {
            api: std::sync::Arc::new(
                sebx::model::ApiMap::from_api_doc_jsonl(API_DOC).expect("api"),
            ),
            dataset: std::sync::Arc::new(dataset()),
            grading: Grading::Available,
            notes: Vec::new(),
        };
        let mut app =
            sebx::tui::App::new(ctx, sebx::tui::Theme::dark(), sebx::tui::Keymap::default());
        app.corpus.score_cache = cache;
        sebx::tui::inline::load_inline(&mut app, &sources());
        app
    };
    let graded_rows = |app: &mut sebx::tui::App| -> Vec<usize> {
        let mut rows = Vec::new();
        for _ in 0..4 {
            for req in app.take_requests() {
                match req {
                    JobRequest::Grade { row, .. } => rows.push(row),
                    other => {
                        if let Some(ev) = sebx::tui::jobs::run_request(other, None) {
                            app.on_job(ev);
                        }
                    }
                }
            }
            app.settle();
        }
        rows.sort_unstable();
        rows
    };
    // The rows of run A's scored file (verdicts, no reward) and what they say.
    let first = open(None);
    let scored: Vec<usize> = (0..first.corpus.scores.len())
        .filter(|&r| first.corpus.scores[r].source() == Some(VerdictSource::Scored))
        .collect();
    assert!(scored.len() >= 3, "{scored:?}");
    let verdicts: Vec<_> = scored.iter().map(|&r| first.corpus.shown(r)).collect();
    // Without a cache, each is graded for its reward.
    let mut first = first;
    let asked = graded_rows(&mut first);
    for r in &scored {
        assert!(
            asked.contains(r),
            "row {r} graded for its reward: {asked:?}"
        );
    }
    // An earlier session graded them (reward 1 each, remembered).
    let cache = std::sync::Arc::new(
        ScoreCache::open(
            dir.path(),
            &first.corpus.ctx.api,
            &sebx::grade::settings::GradingSettings::official(),
        )
        .expect("cache"),
    );
    let backend = FakeBackend::default();
    for &row in &scored {
        let rollout = &first.corpus.entries[row].rollout;
        let mut report = backend.grade(rollout).expect("graded");
        report.reward = Some(1);
        report.behaviour = Some(sebx::grade::report::BehaviourRun {
            counterfactual: "differs (case 1)".to_string(),
            ..Default::default()
        });
        cache.put(rollout, &report).expect("remembered");
    }
    let mut again = open(Some(cache));
    let asked = graded_rows(&mut again);
    for r in &scored {
        assert!(!asked.contains(r), "row {r} graded again: {asked:?}");
        let score = &again.corpus.scores[*r];
        let (Some(VerdictSource::Scored), Some(held)) = (score.source(), score.report()) else {
            panic!("row {r} keeps the scored file's report");
        };
        assert_eq!(held.reward, Some(1), "row {r}: the remembered reward");
        assert_eq!(
            held.behaviour.as_ref().map(|b| b.counterfactual.as_str()),
            Some("differs (case 1)"),
            "row {r}: the remembered behaviour answers beside the file's verdict"
        );
    }
    // The scored file's verdicts stand.
    let shown: Vec<_> = scored.iter().map(|&r| again.corpus.shown(r)).collect();
    assert_eq!(shown, verdicts);
}

/// The fixtures with every report of run A's scored file carrying the official RL reward
/// (the one `reports_a_with_rewards` leaves verdict-only given 0), so that nothing of it is
/// graded for its reward.
fn every_reward() -> Vec<sebx::tui::load::Source> {
    let reports: Vec<String> = reports_a_with_rewards()
        .lines()
        .map(|line| {
            let mut r: sebx::grade::report::GradeReport =
                serde_json::from_str(line).expect("fixture report");
            r.reward.get_or_insert(0);
            serde_json::to_string(&r).expect("report")
        })
        .collect();
    sources_with(reports.join("\n"))
}
