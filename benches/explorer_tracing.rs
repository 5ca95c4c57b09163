//! Whether the explorer stays responsive while it grades and traces in the background
//! (issue 39): a file of distinct paid rollouts is opened as `sebx FILES` opens it
//! (`open_default`, the real engine, the behaviour questions asked of every paid row), and
//! while its workers grade and trace, a key (down, then up) is due every 20 ms and the
//! loop's own step runs it and draws the screen, timed from when it was due (the wake-up
//! included); then the same once everything is done. Prints the latency of a
//! key to its frame while busy and idle (p50, p99, max) and their ratio, the rows graded and
//! traced, and the wall time. Release build, the grader's runtime installed:
//! `cargo bench --bench explorer_tracing` (`SEBX_BENCH_N` rollouts, default 300).

#[path = "../tests/common/isolated.rs"]
mod isolated;
#[path = "../tests/common/live.rs"]
mod live;

use std::time::{Duration, Instant};

use live::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sebx::tui::{Action, ui};

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// `n` rollouts, each program distinct (a comment with its index), right answers of two
/// tasks and a few wrong ones, as an evaluation file.
fn write_rollouts(path: &std::path::Path, n: usize) {
    let mut text = String::new();
    for i in 0..n {
        let body = match i % 4 {
            0 | 1 => format!("{MEAN_RIGHT}  # variant {i}"),
            2 => format!("{SUM_RIGHT}  # variant {i}"),
            _ => format!("{SUM_WRONG}  # variant {i}"),
        };
        text += &if i % 4 < 2 {
            rollout(MEAN_Q, &body, &mean_cases(), i)
        } else {
            rollout(SUM_Q, &body, &sum_cases(), i)
        };
    }
    std::fs::write(path, text).expect("write the rollouts");
}

/// Rows whose verdict is in, and rows whose facts hold the behaviour answers.
fn answered(ex: &Explorer) -> (usize, usize) {
    let app = &ex.app;
    let rows = 0..app.corpus.entries.len();
    let graded = rows
        .clone()
        .filter(|&r| matches!(app.corpus.shown(r), sebx::tui::entry::Shown::Verdict(_)))
        .count();
    let traced = rows
        .filter(|&r| {
            app.corpus
                .scores
                .get(r)
                .and_then(|s| s.facts())
                .is_some_and(|f| f.behaviour.is_some())
        })
        .count();
    (graded, traced)
}

/// Every row graded and every grade requested finished.
fn settled(ex: &Explorer) -> bool {
    let gp = ex.app.corpus.grade_progress;
    ex.app.corpus.load.done
        && answered(ex).0 == ex.app.corpus.entries.len()
        && gp.finished == gp.requested
}

/// One key and its frame, due at `due`: the wait for the loop's thread to wake (the
/// workers' programs hold the cores), the loop's step (what the workers sent), the key and
/// the draw, from the moment the key was due.
fn key_to_frame(
    ex: &mut Explorer,
    terminal: &mut Terminal<TestBackend>,
    down: bool,
    due: Instant,
) -> Duration {
    if let Some(wait) = due.checked_duration_since(Instant::now()) {
        std::thread::sleep(wait);
    }
    sebx::tui::run::pump(&mut ex.app, &ex.workers, &ex.rx);
    ex.app
        .update(if down { &Action::Down } else { &Action::Up });
    terminal
        .draw(|frame| ui::draw(frame, &ex.app))
        .expect("draw");
    due.elapsed()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn summary(label: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p99 = percentile(&times, 0.99);
    println!(
        "{label:<6} {:>6} keys   p50 {:>7.2} ms   p99 {:>7.2} ms   max {:>7.2} ms",
        times.len(),
        ms(percentile(&times, 0.5)),
        ms(p99),
        ms(times.last().copied().unwrap_or_default()),
    );
    p99
}

fn main() {
    let n = env_num("SEBX_BENCH_N", 300);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("rollouts.jsonl");
    write_rollouts(&file, n);
    let started = Instant::now();
    let mut ex = Explorer::open(vec![file], None);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    // A key every 20 ms while the workers grade and trace (a user moving through the list).
    let mut busy = Vec::new();
    let mut down = true;
    loop {
        if settled(&ex) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "not graded within 10 minutes: {} of {} graded",
            answered(&ex).0,
            ex.app.corpus.entries.len()
        );
        let due = Instant::now() + Duration::from_millis(20);
        busy.push(key_to_frame(&mut ex, &mut terminal, down, due));
        down = !down;
    }
    let wall = started.elapsed();
    let traced = answered(&ex).1;
    let keys = busy.len().max(50);
    let mut idle = Vec::with_capacity(keys);
    for _ in 0..keys {
        let due = Instant::now() + Duration::from_millis(20);
        idle.push(key_to_frame(&mut ex, &mut terminal, down, due));
        down = !down;
    }
    println!(
        "explorer_tracing: {} rollouts (distinct programs), {} graded, {traced} with the behaviour questions answered, in {:.1} s",
        ex.app.corpus.entries.len(),
        answered(&ex).0,
        wall.as_secs_f64()
    );
    let busy_p99 = summary("busy", busy);
    let idle_p99 = summary("idle", idle);
    println!(
        "key to frame while grading and tracing: p99 {:.1}x the idle p99",
        busy_p99.as_secs_f64() / idle_p99.as_secs_f64().max(1e-9)
    );
}
