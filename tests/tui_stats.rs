//! The explorer's stats and compare screens: state (enter filters to a function's failures,
//! drill-down from a matrix cell to a pair), the random labelling order, and snapshots at
//! 80×24 and 160×48.

use crate::tui_common;

use insta::assert_snapshot;
use sebx::model::Verdict;
use sebx::model::sampling::{DEFAULT_SEED, label_order_key};
use sebx::tui::app::Grading;
use sebx::tui::inline::drain_inline;
use sebx::tui::stats::Screen;
use sebx::tui::{Action, App};
use tui_common::*;

/// Every row graded (reports for run A, the fake backend for the rest).
fn graded() -> App {
    let backend = FakeBackend::default();
    let mut app = app(Grading::Available);
    drain_inline(&mut app, Some(&backend));
    app
}

fn rows(app: &App) -> Vec<usize> {
    app.list.rows().collect()
}

fn open(app: &mut App, action: Action) {
    app.update(&action);
    drain_inline(app, None);
}

#[test]
fn stats_screen_computes_and_enter_filters_to_the_functions_failures() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    assert_eq!(app.stats.screen, Some(Screen::Map));
    let r = app.stats.result.clone().expect("figures computed");
    assert_eq!(r.report.runs.len(), 2);
    assert_eq!(r.ungraded, 0);
    // Run A: lowest accuracy first. Move to np.mean and press enter.
    let map = &r.report.function_map(0);
    let pos = map
        .iter()
        .position(|f| f.numpy == "np.mean")
        .expect("np.mean row");
    let mean = &map[pos];
    assert_eq!(mean.zwc, "zwc.kocito");
    assert_eq!(mean.rollouts, 2);
    for _ in 0..pos {
        app.update(&Action::Down);
    }
    app.update(&Action::Choose);
    assert_eq!(app.stats.screen, None, "enter closes the screen");
    let shown = rows(&app);
    assert_eq!(shown.len(), mean.rollouts - mean.right);
    for row in shown {
        let e = &app.corpus.entries[row];
        assert_eq!(e.run, 0);
        assert_eq!(&*e.rollout.query, Q_MEAN);
        assert!(app.corpus.shown(row).is_failure());
    }
    // `c` clears it like any filter.
    app.update(&Action::ClearFilters);
    assert_eq!(rows(&app).len(), app.corpus.entries.len());
}

#[test]
fn s_sorts_the_map_and_enter_follows_the_shown_order() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    let r = app.stats.result.clone().expect("figures");
    let first = |app: &App| {
        sebx::tui::stats::sorted_map(&app.stats, &r)[0]
            .numpy
            .clone()
    };
    assert_eq!(
        first(&app),
        r.report.function_map(0)[0].numpy,
        "lowest accuracy first by default"
    );
    // s: most rollouts, most wrong names, then by name.
    app.update(&Action::SortRows);
    app.update(&Action::SortRows);
    app.update(&Action::SortRows);
    assert_eq!(first(&app), "np.linalg.inv", "by NumPy name");
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("by NumPy name; s: sort"), "{text}");
    app.update(&Action::Choose);
    // np.linalg.inv's failures in run A: both of its rows (typo and numpy import).
    let shown = rows(&app);
    assert!(!shown.is_empty());
    assert!(
        shown
            .iter()
            .all(|i| &*app.corpus.entries[*i].rollout.query == Q_INV)
    );
}

#[test]
fn compare_drills_from_a_cell_to_a_pair() {
    let mut app = graded();
    open(&mut app, Action::CompareScreen);
    assert_eq!(app.stats.screen, Some(Screen::Compare));
    let r = app.stats.result.clone().expect("figures");
    let c = &r.compare.as_ref().expect("two runs").comparison;
    // Run A has 6 good rows over 3 tasks, run B 3: one pair per task.
    assert_eq!(c.pairs.len(), 3);
    assert_eq!(c.unpaired_a, 3);
    // Find a non-empty cell and walk to it.
    let (i, j) = first_pair_cell(&app, None);
    walk_to_cell(&mut app, (i, j));
    app.update(&Action::Choose);
    assert_eq!(app.stats.screen, Some(Screen::Cell(i, j)));
    app.update(&Action::Choose);
    assert_eq!(app.stats.screen, Some(Screen::Pair(i, j, 0)));
    let text = screen(&draw(&app, 160, 48));
    assert!(text.contains("diff of the graded code"), "{text}");
    assert!(text.contains("response A"), "{text}");
    app.update(&Action::Cancel);
    assert_eq!(app.stats.screen, Some(Screen::Cell(i, j)));
    app.update(&Action::Cancel);
    app.update(&Action::Cancel);
    assert_eq!(app.stats.screen, None);
}

#[test]
fn random_label_order_walks_failures_by_the_seeded_key() {
    let mut app = graded();
    app.update(&Action::ToggleLabelOrder);
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("random order"))
    );
    app.update(&Action::NextUnlabelledFailure);
    let picked = app.list.selected.expect("a failure selected");
    let failures: Vec<usize> = (0..app.corpus.entries.len())
        .filter(|i| app.corpus.shown(*i).is_failure())
        .collect();
    let first = failures
        .iter()
        .copied()
        .min_by_key(|i| label_order_key(DEFAULT_SEED, &app.corpus.entries[*i].rollout.id))
        .expect("failures");
    assert_eq!(picked, first);
    // Back to file order: the next failure after the cursor in the list.
    app.update(&Action::ToggleLabelOrder);
    app.update(&Action::Top);
    app.update(&Action::NextUnlabelledFailure);
    assert_eq!(app.list.selected, failures.first().copied());
}

#[test]
fn stats_screen_snapshots() {
    let mut app = graded();
    open(&mut app, Action::StatsScreen);
    assert_snapshot!("stats_80x24", screen(&draw(&app, 80, 24)));
    assert_snapshot!("stats_160x48", screen(&draw(&app, 160, 48)));
}

#[test]
fn compare_screen_snapshots() {
    let mut app = graded();
    open(&mut app, Action::CompareScreen);
    assert_snapshot!("compare_80x24", screen(&draw(&app, 80, 24)));
    assert_snapshot!("compare_160x48", screen(&draw(&app, 160, 48)));
}

#[test]
fn the_list_stays_usable_while_stats_compute_and_stale_results_are_dropped() {
    let mut app = graded();
    app.update(&Action::StatsScreen);
    let first = app.take_requests();
    assert_eq!(
        first.len(),
        1,
        "one stats job queued, not computed on the UI thread"
    );
    assert!(app.stats.computing && app.stats.result.is_none());
    let text = screen(&draw(&app, 80, 24));
    assert!(text.contains("computing the figures"), "{text}");
    // Esc closes the screen at once; the list moves while the job is out.
    app.update(&Action::Cancel);
    assert_eq!(app.stats.screen, None);
    let before = app.list.selected;
    app.update(&Action::Down);
    assert_ne!(app.list.selected, before);
    // Reopened: a newer request; the older one's answer is dropped when it comes.
    app.update(&Action::StatsScreen);
    let second = app.take_requests();
    for req in first {
        let ev = sebx::tui::jobs::run_request(req, None).expect("stats event");
        assert!(!app.on_job(ev));
    }
    assert!(app.stats.result.is_none(), "stale result dropped");
    for req in second {
        let ev = sebx::tui::jobs::run_request(req, None).expect("stats event");
        assert!(app.on_job(ev));
    }
    assert!(app.stats.result.is_some() && !app.stats.computing);
}

/// Never a figure over a subset: a scored file with the reward of some rollouts only. With
/// an API doc `sebx stats` grades the rewards the scored file lacks; without one it cannot,
/// so the mean is `–` and says for how many it is unknown, and the Stats screen of an
/// explorer that cannot grade shows the same `–`.
#[test]
fn a_reward_known_for_some_rollouts_is_computed_or_shown_as_unknown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run_a.jsonl");
    let scored = dir.path().join("run_a.scored.jsonl");
    // Elsewhere: an API doc beside the run would be found and used.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let api_doc = elsewhere.path().join("api_doc.jsonl");
    std::fs::write(&run, run_a()).expect("run");
    std::fs::write(&scored, reports_a_with_rewards()).expect("scored");
    std::fs::write(&api_doc, API_DOC).expect("api doc");
    let stats = |files: &[&std::path::Path], format: &str| {
        let out = assert_cmd::Command::cargo_bin("sebx")
            .expect("binary")
            .env("SEBX_SCORE_CACHE", dir.path().join("cache"))
            .env_remove("SEBX_API_DOC")
            .args(["stats", "--format", format, "-q", "--jobs", "1"])
            .args(files)
            .output()
            .expect("stats");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let figures = |json: &serde_json::Value| {
        let reward = json["runs"][0]["reward"].clone();
        let rollouts = json["runs"][0]["rollouts"].as_u64().expect("rollouts");
        (reward, rollouts)
    };

    // Without an API doc nothing can be graded: the reward is known for some only.
    let json: serde_json::Value =
        serde_json::from_str(&stats(&[&run, &scored], "json")).expect("json");
    let (reward, rollouts) = figures(&json);
    let rewarded = reward["rewarded"].as_u64().expect("rewarded");
    assert!(rewarded > 0 && rewarded < rollouts, "{reward}");
    assert!(
        reward["reward_mean"].is_null(),
        "a mean over a subset: {reward}"
    );
    assert_eq!(reward["reward_unknown"].as_u64(), Some(rollouts - rewarded));
    let text = stats(&[&run, &scored], "table");
    let want = format!(
        "mean official RL reward: – (the reward is unknown for {} of {rollouts} rollouts",
        rollouts - rewarded
    );
    assert!(text.contains(&want), "{want} not in:\n{text}");

    // With one, the rewards the scored file lacks are graded (a verdict the line itself
    // stores keeps what it knows): fewer unknown, and every rollout counted once.
    let json: serde_json::Value =
        serde_json::from_str(&stats(&[&run, &scored, &api_doc], "json")).expect("json");
    let (after, rollouts) = figures(&json);
    let known = after["rewarded"].as_u64().expect("rewarded");
    let unknown = after["reward_unknown"].as_u64().expect("unknown");
    assert!(known > rewarded, "{after}");
    assert_eq!(known + unknown, rollouts, "{after}");
    assert_eq!(after["reward_mean"].is_null(), unknown > 0, "{after}");

    // The explorer that cannot grade shows what `stats` without an API doc shows.
    let args = sebx::tui::explore::ExploreArgs {
        paths: vec![run.clone(), scored.clone()],
        cache: sebx::session::CacheFlags {
            no_cache: false,
            cache_dir: Some(dir.path().join("cache-explorer")),
        },
        ..Default::default()
    };
    let mut session = sebx::tui::explore::prepare(
        &args,
        Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
    )
    .expect("session");
    sebx::tui::inline::load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, None);
    open(&mut session.app, Action::StatsScreen);
    let text = screen(&draw(&session.app, 160, 48));
    let want = format!(
        "RL reward – (unknown for {} of {rollouts})",
        rollouts - rewarded
    );
    assert!(
        text.contains(&want),
        "{want} not on the Stats screen:\n{text}"
    );
}

/// A pair whose failing case printed nothing says what stopped the program (its exception),
/// not a bare `got nothing`.
#[test]
fn a_pair_says_why_a_case_got_nothing() {
    let mut app = graded();
    open(&mut app, Action::CompareScreen);
    let i = Verdict::ALL
        .iter()
        .position(|v| *v == Verdict::ExeError)
        .expect("exe_error");
    // Run A's exe_error row is paired.
    let (i, j) = first_pair_cell(&app, Some(i));
    walk_to_cell(&mut app, (i, j));
    app.update(&Action::Choose);
    app.update(&Action::Choose);
    assert_eq!(app.stats.screen, Some(Screen::Pair(i, j, 0)));
    let text = screen(&draw(&app, 200, 48));
    assert!(
        text.contains("got nothing (AttributeError: module 'zwc.rfx' has no attribute 'quvohee')"),
        "{text}"
    );
}

/// A run none of whose rollouts is graded (run B: no stored scores, no runtime) has no
/// accuracy on the Stats screen: `–`, not `0.0%`; the graded run keeps its figure.
#[test]
fn a_run_with_nothing_graded_shows_no_accuracy() {
    let mut app = app(Grading::Unavailable(
        sebx::grade::backend::Unavailable::NoRuntime,
    ));
    drain_inline(&mut app, None);
    open(&mut app, Action::StatsScreen);
    let text = screen(&draw(&app, 160, 48));
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(name) && l.contains(" rollouts · "))
            .unwrap_or_else(|| panic!("no {name} line:\n{text}"))
            .to_string()
    };
    let b = line("run_b");
    assert!(b.contains("0 rollouts"), "{b}");
    assert!(b.contains("acc – "), "{b}");
    assert!(!b.contains("0.0%"), "{b}");
    let a = line("run_a");
    assert!(a.contains("acc ") && a.contains('%'), "{a}");
}
