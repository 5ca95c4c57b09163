//! The explorer on the generated training run with grading on (issue 30), as `sebx DIR`
//! runs it: `tui::explore::open_default` (the session, the score cache, the embedded
//! grader remembering into it) and the explorer's own workers (`tui::jobs::Workers`:
//! loading, the background analysis, the score cache's lookup and bulk grading), with a
//! `TestBackend` in place of the terminal. Each open runs in a child process of its own so
//! that each peak is its own:
//! - `graded`: a fresh score cache, every sample graded in the background; the peak of the
//!   explorer's memory while grading and what it holds once every verdict is in, and when
//!   it had kept its loading batches as sets (the seal once every grade is in);
//! - `reopen`: the same run again over the full cache; the first screen, and the time until
//!   every remembered verdict shows (through the sets, then again with none).
//!
//! Memory is the explorer process's (the grader's Python workers are processes of their own).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sebx::model::discovery::ContextArgs;
use sebx::session::CacheFlags;
use sebx::tui::entry::Score;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::jobs::Workers;
use sebx::tui::{Action, ui};

use crate::common::status_kb;

/// What a child prints, one number per field, in this order.
pub struct Phase {
    pub first_screen_ms: u64,
    pub loaded_ms: u64,
    /// Every row shows a verdict (graded here or remembered).
    pub verdicts_ms: u64,
    pub rows: u64,
    pub with_verdict: u64,
    /// Rows graded in this process (the rest were remembered).
    pub graded: u64,
    /// Peak resident memory of the process, KB.
    pub peak_kb: u64,
    /// Resident memory once every verdict shows (after `malloc_trim`), KB.
    pub held_kb: u64,
    /// Anonymous memory then (what the explorer itself holds, no mapped file pages), KB.
    pub anon_kb: u64,
    /// When the explorer had kept its loading batches as sets in the score cache (after
    /// grading; a reopen that grades nothing seals nothing: its lookups kept them), ms.
    pub sealed_ms: u64,
    /// Rows the score cache answered from sets (the rest were read row by row).
    pub by_sets: u64,
}

/// Whether a row's verdict column shows a verdict (or that grading failed): done.
fn settled(score: &Score) -> bool {
    !matches!(score, Score::Unscored | Score::Grading { .. })
}

/// Runs in the child: opens `exp` as `sebx EXP DATASET --api-doc API --cache-dir CACHE`
/// does and runs until every row shows a verdict; prints a [`Phase`].
pub fn run_phase(exp: &Path, dataset: &Path, api_doc: &Path, cache: &Path) {
    let start = Instant::now();
    let args = ExploreArgs {
        paths: vec![exp.to_path_buf(), dataset.to_path_buf()],
        context: ContextArgs {
            api_doc: Some(api_doc.to_path_buf()),
            dataset: Vec::new(),
        },
        cache: CacheFlags {
            no_cache: false,
            cache_dir: Some(cache.to_path_buf()),
        },
        ..ExploreArgs::default()
    };
    let (session, backend) = open_default(&args).expect("the explorer opens");
    assert!(
        backend.is_some(),
        "no grader: install the runtime (`sebx runtime install`)"
    );
    let mut app = session.app;
    app.update(&Action::Resize {
        width: 160,
        height: 48,
    });
    let (tx, rx) = channel();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8);
    let workers = Workers::start(
        tx,
        backend.clone(),
        threads,
        app.reruns.backend_factory.clone(),
    );
    app.register_sources(&session.sources);
    workers.load(session.sources);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let (mut first_screen, mut loaded, mut verdicts) = (None, None, None);
    let mut last_change = Instant::now();
    let mut last_draw = Instant::now() - Duration::from_secs(1);
    let mut seen = (0, 0);
    loop {
        for req in app.take_requests() {
            workers.dispatch(req);
        }
        if let Ok(ev) = rx.recv_timeout(Duration::from_millis(30)) {
            app.on_job(ev);
            // As the event loop does: a budget of results, then a frame.
            let budget = Instant::now();
            while budget.elapsed() < Duration::from_millis(25) {
                match rx.try_recv() {
                    Ok(ev) => {
                        app.on_job(ev);
                    }
                    Err(_) => break,
                }
            }
            app.settle();
        }
        if last_draw.elapsed() >= Duration::from_millis(30) {
            terminal.draw(|f| ui::draw(f, &app)).expect("draws");
            last_draw = Instant::now();
            if first_screen.is_none() && !app.list.view.is_empty() {
                first_screen = Some(start.elapsed());
            }
        }
        if loaded.is_none() && app.corpus.load.done {
            loaded = Some(start.elapsed());
        }
        // Counted once loaded (no verdict is complete before): counting 200,000 rows on
        // every turn of this loop took ~0.2 s of a reopen's CPU, work the explorer's own
        // loop does not do.
        let done = if loaded.is_some() {
            app.corpus.scores.iter().filter(|s| settled(s)).count()
        } else {
            0
        };
        let progress = (done, app.corpus.grade_progress.finished);
        if progress != seen {
            seen = progress;
            last_change = Instant::now();
        }
        if loaded.is_some() && done == app.corpus.scores.len() {
            verdicts = Some(start.elapsed());
            break;
        }
        // Rows that never get a verdict (none here: every sample joins a task) end it too.
        if loaded.is_some() && last_change.elapsed() > Duration::from_secs(60) {
            eprintln!(
                "no progress for 60 s: {done} of {} rows settled",
                app.corpus.scores.len()
            );
            break;
        }
    }
    let verdicts = verdicts.unwrap_or_else(|| start.elapsed());
    // A user who graded the run keeps the explorer open a moment: the batches are sealed
    // (looked up once more and kept as sets) once every grade is in.
    let seal_wait = Instant::now();
    while app.corpus.grade_progress.requested > 0
        && app.caches.seals_done == 0
        && seal_wait.elapsed() < Duration::from_secs(120)
    {
        sebx::tui::run::pump(&mut app, &workers, &rx);
        std::thread::sleep(Duration::from_millis(20));
    }
    let sealed = start.elapsed();
    // What the grader gathered to remember is written (the workers flush when idle too).
    if let Some(b) = &backend {
        b.flush();
    }
    sebx::tui::load::return_freed_memory();
    let rows = app.corpus.scores.len();
    let with_verdict = app.corpus.scores.iter().filter(|s| settled(s)).count();
    let p = Phase {
        first_screen_ms: first_screen.unwrap_or(verdicts).as_millis() as u64,
        loaded_ms: loaded.unwrap_or(verdicts).as_millis() as u64,
        verdicts_ms: verdicts.as_millis() as u64,
        rows: rows as u64,
        with_verdict: with_verdict as u64,
        graded: app.corpus.grade_progress.finished as u64,
        peak_kb: status_kb("VmHWM:"),
        held_kb: status_kb("VmRSS:"),
        anon_kb: status_kb("RssAnon:"),
        sealed_ms: sealed.as_millis() as u64,
        by_sets: app
            .corpus
            .score_cache
            .as_ref()
            .map_or(0, |c| c.rows_read_by_sets() as u64),
    };
    println!(
        "{} {} {} {} {} {} {} {} {} {} {}",
        p.first_screen_ms,
        p.loaded_ms,
        p.verdicts_ms,
        p.rows,
        p.with_verdict,
        p.graded,
        p.peak_kb,
        p.held_kb,
        p.anon_kb,
        p.sealed_ms,
        p.by_sets
    );
    drop(workers);
    drop(app);
    // The grader (and its batch of verdicts to remember) goes last.
    drop(backend);
}

/// Runs `phase` in a child process (this bench's own binary) and reads its [`Phase`].
pub fn child(phase: &str, exp: &Path, dataset: &Path, api_doc: &Path, cache: &Path) -> Phase {
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args(["--phase", phase])
        .args([exp, dataset, api_doc, cache])
        .output()
        .expect("child");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [
        first_screen_ms,
        loaded_ms,
        verdicts_ms,
        rows,
        with_verdict,
        graded,
        peak_kb,
        held_kb,
        anon_kb,
        sealed_ms,
        by_sets,
    ] = v[..]
    else {
        panic!(
            "child printed {v:?}; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    Phase {
        first_screen_ms,
        loaded_ms,
        verdicts_ms,
        rows,
        with_verdict,
        graded,
        peak_kb,
        held_kb,
        anon_kb,
        sealed_ms,
        by_sets,
    }
}

/// Bytes of the files in `dir` (the score cache: the database, its log and index).
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

/// The explorer graded, then reopened over the full cache, against issue 30's targets.
pub fn graded(exp: &Path, dataset: &Path, api_doc: &Path, cache: &PathBuf, bytes: u64) {
    let _ = std::fs::remove_dir_all(cache);
    println!("explorer with grading on, a fresh score cache:");
    let g = child("graded", exp, dataset, api_doc, cache);
    let graded_at = Instant::now();
    println!(
        "  first screen {:.2} s, loaded {:.2} s, every verdict in {:.1} s, kept as sets at {:.1} s ({} of {} rows, {} graded here)",
        g.first_screen_ms as f64 / 1e3,
        g.loaded_ms as f64 / 1e3,
        g.verdicts_ms as f64 / 1e3,
        g.sealed_ms as f64 / 1e3,
        g.with_verdict,
        g.rows,
        g.graded
    );
    print_memory(&g, "after grading", bytes);
    let on_disk = dir_bytes(cache);
    let ratio = on_disk as f64 / bytes as f64;
    println!(
        "  score cache on disk: {:.1} MB = {:.3}× the dump (target ≤ 0.1×: {})",
        on_disk as f64 / 1e6,
        ratio,
        verdict(ratio <= 0.1)
    );
    // Reopened as on another day: every record's mark is older than the store's touch
    // window, so the lookup marks every record it reads (a reopen within the window marks
    // none and would flatter it). First with the sets the graded session kept; then with
    // none (as after `sebx grade`, or an explorer closed before its grades were all in):
    // read row by row, and kept as sets by that reopen.
    let mut since = graded_at;
    for with_sets in [true, false] {
        if !with_sets {
            let store = sebx::grade::store::Store::open(cache).expect("the cache opens");
            store.forget_sets().expect("the sets go");
        }
        let window = sebx::grade::store::TOUCH_AFTER + Duration::from_secs(1);
        if since.elapsed() < window {
            std::thread::sleep(window - since.elapsed());
        }
        println!(
            "explorer reopened over the full score cache (grading on), every record's mark past the touch window, {}:",
            if with_sets {
                "its batches kept as sets"
            } else {
                "no sets (read row by row)"
            }
        );
        let r = child("reopen", exp, dataset, api_doc, cache);
        since = Instant::now();
        let first = r.first_screen_ms as f64 / 1e3;
        let all = r.verdicts_ms as f64 / 1e3;
        println!(
            "  first screen {first:.2} s (target ≤ 1 s: {}); every remembered verdict shown {all:.2} s (target ≤ 3 s: {}); {} of {} rows ({} read through sets), {} graded again",
            verdict(first <= 1.0),
            verdict(all <= 3.0),
            r.with_verdict,
            r.rows,
            r.by_sets,
            r.graded
        );
        print_memory(&r, "then", bytes);
    }
    let on_disk = dir_bytes(cache);
    println!(
        "  score cache on disk after the reopens: {:.1} MB = {:.3}× the dump",
        on_disk as f64 / 1e6,
        on_disk as f64 / bytes as f64
    );
}

/// A phase's memory line: its peak against the target, and what it held `when` done.
fn print_memory(p: &Phase, when: &str, bytes: u64) {
    let x = |kb: u64| kb as f64 * 1024.0 / bytes as f64;
    let mb = |kb: u64| kb as f64 / 1024.0;
    println!(
        "  explorer memory: peak {:.0} MB = {:.2}× the dump (target ≤ 1×: {}); {when} {:.0} MB resident ({:.2}×), {:.0} MB its own ({:.2}×)",
        mb(p.peak_kb),
        x(p.peak_kb),
        verdict(x(p.peak_kb) <= 1.0),
        mb(p.held_kb),
        x(p.held_kb),
        mb(p.anon_kb),
        x(p.anon_kb)
    );
}
