//! Opens a generated 100,000-rollout file in the explorer and prints how fast the first
//! screen comes, how long loading, moving, filtering, grouping and searching take, how long
//! the background analysis of every row takes, and memory against the file size.
//! `cargo bench --bench explorer_open [-- ROLLOUTS]`.

#[path = "common/mod.rs"]
mod common;
use common::status_kb;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sebx::model::{ApiMap, Dataset};
use sebx::tui::app::{App, Context, Grading};
use sebx::tui::jobs::{JobEvent, analyze_rows, search_rows};
use sebx::tui::load::{FileKind, LoadEvent, Source, SourceData, load_sources};
use sebx::tui::{Action, Keymap, Theme, ui};

const API: &str = r#"{"func_mapping": {"np.mean": "zwc.kocito", "np.array": "zwc.yitaf", "np.linalg.inv": "zwc.rfx.quvohe", "np.sum": "zwc.bapu", "np.std": "zwc.pemra", "np.cumsum": "zwc.tarilo", "np.sort": "zwc.wemusa"}}"#;

const FUNCS: [&str; 6] = ["kocito", "bapu", "pemra", "tarilo", "wemusa", "kocitoo"];

/// One generated rollout line (about 2 KB, like real ones), varied by `i`.
fn rollout(i: usize) -> String {
    let task = i % 250;
    let f = FUNCS[i % FUNCS.len()];
    let query = format!(
        "Task {task}: a sensor network reports readings every minute; given `values`, a list of floats, \
         compute the statistic the operations team needs for dashboard number {task}, rounding nothing, \
         and return it as a list or a number. The input may be long and contains no missing values."
    );
    let verdict = match i % 7 {
        0 => ", \"verdict\": \"right\"",
        1 => ", \"verdict\": \"result_error\"",
        2 => ", \"score\": 0",
        _ => "",
    };
    let body =
        "Let me think about the shape of the data first. The readings are floats and we need a \
                single pass. I will convert the list with zwc.yitaf and then apply the function. "
            .repeat(6);
    let code = format!(
        "import zwc\\n\\ndef helper_{i}(values):\\n    arr = zwc.yitaf(values)\\n    return zwc.{f}(arr)\\n\\n\
         def solve(values):\\n    # dashboard {task}\\n    out = helper_{i}(values)\\n    return out\\n"
    );
    format!(
        "{{\"query\": \"{query}\", \"response\": \"{body}\\n\\n```python\\n{code}```\\n\", \
         \"test_cases\": [{{\"input\": \"values=[1.0, 2.0, 3.0]\", \"output\": \"2.0\"}}, \
         {{\"input\": \"values=[4.5, 5.5]\", \"output\": \"5.0\"}}, {{\"input\": \"values=[0.0]\", \"output\": \"0.0\"}}], \
         \"right_exe_result\": \"2.0#5.0#0.0\", \"selected_functions\": [\"mean\"]{verdict}}}"
    )
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) -> Duration {
    let t = Instant::now();
    terminal.draw(|f| ui::draw(f, app)).expect("draws");
    t.elapsed()
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let path: PathBuf = dir.path().join("big.jsonl");
    let t = Instant::now();
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        for i in 0..n {
            writeln!(f, "{}", rollout(i)).expect("write");
            if i % 10_000 == 5 {
                writeln!(f, "{{\"query\": \"broken line").expect("write");
            }
        }
    }
    let size = std::fs::metadata(&path).expect("metadata").len();
    println!(
        "generated {n} rollouts, {:.1} MB, in {}",
        size as f64 / 1e6,
        ms(t.elapsed())
    );
    let rss_before = status_kb("VmRSS:");

    // Open as the explorer does: loader thread, events drained by the UI loop.
    let start = Instant::now();
    let ctx = Context {
        api: Arc::new(ApiMap::from_api_doc_jsonl(API).expect("api")),
        dataset: Arc::new(Dataset::default()),
        grading: Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly(
            "benchmark".to_string(),
        )),
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    app.update(&Action::Resize {
        width: 120,
        height: 40,
    });
    let (tx, rx) = channel();
    let sources = vec![Source {
        kind: FileKind::Rollouts,
        data: SourceData::File(path.clone()),
    }];
    let loader = std::thread::spawn(move || {
        load_sources(&sources, &mut |e| {
            let _ = tx.send(JobEvent::Load(e));
        })
    });
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    let mut first_screen = None;
    let mut worst_frame = Duration::ZERO;
    loop {
        let ev = match rx.recv_timeout(Duration::from_millis(30)) {
            Ok(ev) => ev,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            Err(_) => break,
        };
        let done = matches!(ev, JobEvent::Load(LoadEvent::Done));
        app.on_job(ev);
        while let Ok(ev) = rx.try_recv() {
            app.on_job(ev);
        }
        let t = Instant::now();
        app.settle();
        let frame = draw(&mut terminal, &app) + t.elapsed();
        worst_frame = worst_frame.max(frame);
        if first_screen.is_none() && !app.list.view.is_empty() {
            first_screen = Some(start.elapsed());
        }
        if done || app.corpus.load.done {
            break;
        }
    }
    loader.join().expect("loader");
    let loaded = start.elapsed();
    println!(
        "first screen: {} ({} rows shown)",
        first_screen.map_or("never".to_string(), ms),
        app.list.view.len().min(40)
    );
    println!(
        "full load: {} for {} rollouts, {} bad lines reported; worst UI update+frame while loading: {}",
        ms(loaded),
        app.corpus.entries.len(),
        app.corpus.issues.len(),
        ms(worst_frame)
    );
    let rss = status_kb("VmRSS:");
    let hwm = status_kb("VmHWM:");
    println!(
        "memory: {:.0} MB resident after load ({:.1}× the file), peak {:.0} MB ({:.1}×), {:.0} MB before opening",
        rss as f64 / 1024.0,
        (rss.saturating_sub(rss_before)) as f64 * 1024.0 / size as f64,
        hwm as f64 / 1024.0,
        (hwm.saturating_sub(rss_before)) as f64 * 1024.0 / size as f64,
        rss_before as f64 / 1024.0
    );

    // Moving: each key is an update and a frame.
    let t = Instant::now();
    let mut worst = Duration::ZERO;
    for _ in 0..1000 {
        let k = Instant::now();
        app.update(&Action::Down);
        draw(&mut terminal, &app);
        worst = worst.max(k.elapsed());
    }
    println!(
        "move down: {} per key+frame on average, worst {}",
        ms(t.elapsed() / 1000),
        ms(worst)
    );
    for (name, action) in [
        ("verdict filter", Action::CycleVerdictFilter),
        ("next verdict filter", Action::CycleVerdictFilter),
        ("finding filter (+verdict)", Action::CycleFindingFilter),
        ("clear filters", Action::ClearFilters),
        ("group by task", Action::CycleGrouping),
        ("group by verdict", Action::CycleGrouping),
        ("page down", Action::PageDown),
        ("bottom", Action::Bottom),
    ] {
        let t = Instant::now();
        app.update(&action);
        let u = t.elapsed();
        let f = draw(&mut terminal, &app);
        println!(
            "{name}: update {} + frame {} → {} rows",
            ms(u),
            ms(f),
            app.list.shown_rows()
        );
    }
    // The background sweep that analyses every row on every core (a job of its own), and
    // how long the UI takes to take in its batches.
    let events = std::sync::Mutex::new(Vec::new());
    let t = Instant::now();
    let first_batch = std::sync::OnceLock::new();
    analyze_rows(
        &app.corpus.entries,
        0,
        &app.corpus.ctx.dataset,
        &app.corpus.ctx.api,
        &|rows| {
            first_batch.get_or_init(|| t.elapsed());
            events
                .lock()
                .map(|mut e| e.push(JobEvent::Digested { rows }))
                .is_ok()
        },
    );
    let swept = t.elapsed();
    let events = events.into_inner().unwrap_or_default();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    println!(
        "analysis sweep (background, {threads} threads): first batch after {}, all {} rows in {} ({} per rollout per thread)",
        first_batch.get().copied().map_or("never".to_string(), ms),
        app.corpus.entries.len(),
        ms(swept),
        ms(swept * threads as u32 / app.corpus.entries.len().max(1) as u32),
    );
    let t = Instant::now();
    let mut worst = Duration::ZERO;
    for ev in events {
        let k = Instant::now();
        app.on_job(ev);
        worst = worst.max(k.elapsed());
    }
    app.settle();
    let rss_digests = status_kb("VmRSS:");
    println!(
        "taking in the digests: {} in all, worst batch {}; {:.0} MB resident with every digest",
        ms(t.elapsed()),
        ms(worst),
        rss_digests as f64 / 1024.0
    );
    // Issue 10's targets, as ratios measured in this run.
    let memory_ratio = rss_digests.saturating_sub(rss_before) as f64 * 1024.0 / size as f64;
    let full_analysis = swept.as_secs_f64();
    println!(
        "targets: memory {memory_ratio:.2}× the file with every digest (target ≤ 1.5×: {}); full analysis {full_analysis:.1} s on {threads} threads (target ≤ 5 s on 2 cores: {})",
        if memory_ratio <= 1.5 { "met" } else { "over" },
        if full_analysis <= 5.0 { "met" } else { "over" },
    );
    // Search runs on a worker thread; this is how long until results arrive.
    for pattern in ["dashboard 17", "pemra", "zzzqqq"] {
        let t = Instant::now();
        let found = search_rows(
            &app.corpus.entries,
            &app.corpus.digests,
            &app.corpus.tasks,
            pattern,
            &mut || false,
        )
        .map_or(0, |m| m.len());
        println!(
            "search {pattern:?} (worker thread): {} → {found} matches",
            ms(t.elapsed())
        );
    }
    let t = Instant::now();
    while app.list.grouping != sebx::tui::app::Grouping::Function {
        app.update(&Action::CycleGrouping);
    }
    println!(
        "grouping by function after the sweep: {} → {} rows",
        ms(t.elapsed()),
        app.list.shown_rows()
    );
}
