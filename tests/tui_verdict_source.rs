//! The explorer's rows hold the session resolver's answer, with its source (issue 40): the
//! Cases pane says where each verdict came from (a scored file given with the inputs, the
//! score cache, a rerun, a grade made now), in words, wrapped at 80 columns; and which
//! answer a row keeps when another arrives is the resolver's decision
//! (`session::resolve::settle`), so a scored file's verdict is never replaced by a
//! remembered or graded one. Opened as `sebx FILES` opens them (`explore::prepare`).

use crate::isolated;
use crate::tui_common;

use std::path::{Path, PathBuf};

use sebx::grade::backend::GradeBackend;
use sebx::grade::reruns::{RerunRecord, RerunStore};
use sebx::model::Verdict;
use sebx::session::resolve::VerdictSource;
use sebx::tui::app::Grading;
use sebx::tui::entry::Shown;
use sebx::tui::explore::ExploreArgs;
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::{Action, App};
use tui_common::{FakeBackend, Remembering, draw, reports_a, run_a, screen};

/// `paths` opened as `sebx PATHS --cache-dir CACHE` opens them, grading with `grader`
/// (remembering what it grades in the cache; none: the verdicts the files and the cache
/// give), every job run, 80 columns wide.
fn open(paths: &[PathBuf], cache: &Path, grader: Option<FakeBackend>) -> App {
    // The API doc keys the score cache.
    let api_doc = cache.with_extension("api_doc.jsonl");
    std::fs::write(&api_doc, tui_common::API_DOC).expect("API doc");
    let mut paths = paths.to_vec();
    paths.push(api_doc);
    let args = ExploreArgs {
        paths,
        cache: sebx::session::CacheFlags {
            no_cache: false,
            cache_dir: Some(cache.to_path_buf()),
        },
        ..isolated::explore_args()
    };
    let grading = match grader {
        Some(_) => Grading::Available,
        None => Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly("t".into())),
    };
    let mut s = sebx::tui::explore::prepare(&args, grading).expect("the files open");
    load_inline(&mut s.app, &s.sources);
    let remembering = grader.map(|inner| Remembering {
        inner,
        cache: s.app.corpus.score_cache.clone(),
    });
    drain_inline(
        &mut s.app,
        remembering.as_ref().map(|b| b as &dyn GradeBackend),
    );
    s.app.update(&Action::Resize {
        width: 80,
        height: 40,
    });
    s.app
}

/// Row `row` selected, its Cases pane shown.
fn cases_of(app: &mut App, row: usize) -> String {
    app.update(&Action::Top);
    while app.list.selected != Some(row) {
        app.update(&Action::Down);
    }
    drain_inline(app, None);
    app.update(&Action::PaneCases);
    screen(&draw(app, 80, 40))
}

/// The detail pane's text (below the list), its lines joined and every space left out:
/// what the pane says, however it wrapped.
fn pane_text(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains("3 Cases"))
        .expect("the detail pane");
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with('└'))
        .flat_map(|l| l.trim_start_matches('│').trim_end_matches('│').chars())
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Whether the pane's text `said` ([`pane_text`]) says `words`.
fn says(said: &str, words: &str) -> bool {
    let words: String = words.chars().filter(|c| !c.is_whitespace()).collect();
    said.contains(&words)
}

/// Run A (rows 0–4 scored by its scored file, row 5 storing `exe_error` in the line, bad
/// lines skipped) and its scored file, in a folder with a long name.
fn run_with_scored_file(dir: &Path) -> (PathBuf, PathBuf) {
    let folder = dir.join("a-folder-with-a-rather-long-name-so-that-the-path-needs-two-lines");
    std::fs::create_dir_all(&folder).expect("folder");
    let run = folder.join("run_a.jsonl");
    std::fs::write(&run, run_a()).expect("run");
    let scored = folder.join("run_a.scored.jsonl");
    std::fs::write(&scored, reports_a()).expect("scored");
    (run, scored)
}

#[test]
fn the_cases_pane_names_the_scored_file_a_verdict_came_from_wrapped_at_80_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (run, scored) = run_with_scored_file(dir.path());
    let mut app = open(&[run, scored.clone()], &dir.path().join("cache"), None);
    assert_eq!(
        app.corpus.scores[1].source(),
        Some(VerdictSource::Scored),
        "{:?}",
        app.corpus.scores[1]
    );
    let drawn = cases_of(&mut app, 1);
    // Every line fits in 80 columns; the path, too long for one, goes on over the next.
    assert!(drawn.lines().all(|l| l.chars().count() <= 80), "{drawn}");
    let said = pane_text(&drawn);
    let expected = format!(
        "verdict: result_error · from the scored file {}",
        scored.display()
    );
    assert!(says(&said, &expected), "{expected}\nin\n{drawn}");
    // The line in the file: its own words.
    let said = pane_text(&cases_of(&mut app, 5));
    assert!(
        says(&said, "verdict: exe_error · stored in the line"),
        "{said}"
    );
}

#[test]
fn a_verdict_graded_now_is_remembered_at_the_next_opening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let run = dir.path().join("run_b.jsonl");
    std::fs::write(&run, tui_common::run_b()).expect("run");
    // First opening: graded now (and remembered by the grader).
    let mut first = open(
        std::slice::from_ref(&run),
        &cache,
        Some(FakeBackend::default()),
    );
    assert_eq!(first.corpus.scores[0].source(), Some(VerdictSource::Graded));
    let said = pane_text(&cases_of(&mut first, 0));
    assert!(says(&said, "verdict: right · graded now"), "{said}");
    // Second opening, the same cache folder: remembered, nothing graded.
    let mut again = open(std::slice::from_ref(&run), &cache, None);
    for row in 0..again.corpus.scores.len() {
        assert_eq!(
            again.corpus.scores[row].source(),
            Some(VerdictSource::Cache),
            "row {row}: {:?}",
            again.corpus.scores[row]
        );
    }
    let said = pane_text(&cases_of(&mut again, 0));
    assert!(
        says(&said, "verdict: right · remembered (score cache)"),
        "{said}"
    );
}

#[test]
fn a_rerun_in_the_sidecar_is_named_as_the_latest_rerun() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let run = dir.path().join("run_b.jsonl");
    std::fs::write(&run, tui_common::run_b()).expect("run");
    let app = open(std::slice::from_ref(&run), &cache, None);
    assert_eq!(app.corpus.shown(0), Shown::Pending, "nothing known yet");
    // Row 0 rerun (its own code) in an earlier session: a result_error this time.
    let rollout = app.corpus.entries[0].rollout.clone();
    let mut report = FakeBackend::default().grade(&rollout).expect("graded");
    report.id = Some(rollout.id.clone());
    report.verdict = Some(Verdict::ResultError);
    let (mut store, _) = RerunStore::open(&run).expect("the rerun sidecar");
    store
        .append(RerunRecord::now(report, None))
        .expect("rerun saved");
    let mut again = open(std::slice::from_ref(&run), &cache, None);
    assert_eq!(again.corpus.scores[0].source(), Some(VerdictSource::Rerun));
    let said = pane_text(&cases_of(&mut again, 0));
    assert!(
        says(&said, "verdict: result_error · latest rerun"),
        "{said}"
    );
}

#[test]
fn a_scored_files_verdict_is_not_replaced_by_a_remembered_or_graded_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let (run, scored) = run_with_scored_file(dir.path());
    // An earlier session graded run A alone: the fake grader finds row 1 (axis=0) a
    // result_error, as the scored file does, and row 2 a result_error where the scored
    // file says exe_error; so that the cache disagrees with the scored file on row 1 too,
    // its remembered verdict there is made `right`.
    let first = open(
        std::slice::from_ref(&run),
        &cache,
        Some(FakeBackend::default()),
    );
    let store = first.corpus.score_cache.clone().expect("a score cache");
    let rollout = first.corpus.entries[1].rollout.clone();
    let mut remembered = FakeBackend::default().grade(&rollout).expect("graded");
    remembered.verdict = Some(Verdict::Right);
    store.put(&rollout, &remembered).expect("remembered");
    drop(first);
    // Opened with the scored file and a grader that scores the reward too: the scored rows
    // are graded for the reward their file lacks, and keep the file's verdict beside it.
    let grader = FakeBackend {
        both: true,
        ..FakeBackend::default()
    };
    let mut app = open(&[run, scored], &cache, Some(grader));
    for (row, verdict) in [(1, Verdict::ResultError), (2, Verdict::ExeError)] {
        let held = app.corpus.scores[row].resolved().copied();
        assert_eq!(
            held.map(|r| (r.verdict, r.source)),
            Some((verdict, VerdictSource::Scored)),
            "row {row}: {:?}",
            app.corpus.scores[row]
        );
        assert_eq!(
            held.and_then(|r| r.reward()),
            Some(0),
            "row {row}: the reward graded now, beside the file's verdict"
        );
    }
    let said = pane_text(&cases_of(&mut app, 1));
    assert!(
        says(&said, "verdict: result_error · from the scored file"),
        "{said}"
    );
    // A remembered answer that arrives afterwards (the lookup the worker answers) does not
    // replace it either.
    let late = sebx::session::resolve::Resolved::of_report(&remembered, VerdictSource::Cache)
        .expect("a verdict");
    app.on_job(sebx::tui::jobs::JobEvent::CachedScores {
        found: vec![(
            1,
            sebx::tui::jobs::Remembered {
                resolved: late,
                report: None,
            },
        )],
        missing: Vec::new(),
        whole: false,
    });
    assert_eq!(app.corpus.shown(1), Shown::Verdict(Verdict::ResultError));
    assert_eq!(app.corpus.scores[1].source(), Some(VerdictSource::Scored));
}
