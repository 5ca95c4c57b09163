//! A training run at scale: generates a verl dump of 500 steps × 400 samples (200,000
//! samples, about 1 GB; GRPO groups of 8) over the real single-function test split, then
//! prints, against the targets of issue 19:
//! - the explorer's first screen on it (target ≤ 1 s) and its full load;
//! - the explorer's memory after loading and after the background analysis, against the
//!   files' size (target ≤ 1.5×);
//! - live follow (issue 30): step files written while the explorer is open, each timed from
//!   written to its rows in the app;
//! - `sebx stats --by step` on it: the first run (grading every distinct program once,
//!   remembering verdicts and the run's facts), then again once verdicts are known (target
//!   ≤ 2 s), then with the facts forgotten (every verdict from the score cache);
//! - the explorer with grading on (issue 30, `training_scale/graded.rs`): its peak memory
//!   while grading every sample in the background (target ≤ 1× the dump), the score
//!   cache's size on disk (target ≤ 0.1× the dump), and reopens over the full cache (first
//!   screen ≤ 1 s, every remembered verdict shown ≤ 3 s): through the sets the graded
//!   session kept, then with none (read row by row).
//!
//! Samples are generated fresh (seeded): each task's NumPy reference translated to zwc,
//! and three wrong variants (a NumPy name on zwc, a NumPy import, `.tolist()` on a
//! ZWCArray), each sample with prose and a `<think>` block of its own, so code repeats
//! across samples and steps while responses do not.
//! - with `SEBX_BENCH_DISTINCT=1`, as in a real run, every program distinct: each sample a
//!   real response from the shared parity rollouts (their lengths, their mix of verdicts,
//!   scored with their official reward) to its group's task, with a comment naming the
//!   sample at the top of each Python block (93% of the responses have one; the others
//!   repeat).
//! - with `SEBX_BENCH_TOKENIZER=tokenizer.json` (a HuggingFace tokenizer the bench cannot
//!   download): what counting response tokens costs, `sebx stats --by step --tokenizer`
//!   against the same run without, and the explorer's Training job encoding every row.
//!
//! `cargo bench --bench training_scale [-- SAMPLES]` (default 200000;
//! `SEBX_BENCH_DIR=folder` keeps the dump and its caches there; `SEBX_BENCH_PARTS=graded`
//! runs only the graded explorer, `=explorer,stats` only the others). One phase of the graded
//! part alone: `--phase graded|reopen EXP DATASET API_DOC CACHE`; `--forget-sets CACHE`
//! forgets the cache's sets (a reopen that reads row by row).

#[path = "common/mod.rs"]
mod common;
#[path = "training_scale/graded.rs"]
mod graded;

use common::status_kb;
use sebx::model::sampling::SplitMix64;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sebx::model::verl::{JoinIndex, find_runs};
use sebx::model::{ApiMap, Dataset};
use sebx::tui::app::{App, Context, Grading};
use sebx::tui::jobs::{JobEvent, analyze_rows};
use sebx::tui::load::{FOLLOW_EVERY, Follow, LoadEvent, Source, load_following};
use sebx::tui::{Action, Keymap, Theme, ui};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};

const STEPS_DEFAULT: usize = 500;
const PER_STEP: usize = 400;
const GROUP: usize = 8;

fn shared(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/se-bench")
        .join(file)
}

const WORDS: [&str; 24] = [
    "array", "axis", "shape", "values", "first", "then", "mean", "result", "list", "check", "zwc",
    "function", "input", "output", "element", "sum", "careful", "because", "return", "each", "row",
    "column", "so", "we",
];

fn prose(rng: &mut SplitMix64, words: usize) -> String {
    (0..words)
        .map(|_| WORDS[rng.below(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

/// One task: its query, prompt and four code variants.
struct Task {
    query: String,
    prompt: String,
    variants: Vec<String>,
    gts: String,
}

fn tasks() -> Vec<Task> {
    let mappings: Value =
        serde_json::from_str(&std::fs::read_to_string(shared("mappings.json")).expect("mappings"))
            .expect("json");
    let api = sebx::model::ApiMap::from_mappings_json(&mappings).expect("mappings");
    let docs: Vec<Value> = std::fs::read_to_string(shared("api_doc.jsonl"))
        .expect("api doc")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    std::fs::read_to_string(shared("single_test.jsonl"))
        .expect("dataset")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|item| {
            let query = item["query"].as_str().unwrap_or("").to_string();
            let reference = item["example_output"][0].as_str().unwrap_or("").to_string();
            let right = common::translate(&reference, &api);
            let selected: Vec<String> = item["selected_functions"]
                .as_array()
                .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            let doc: String = selected
                .iter()
                .filter_map(|s| docs.iter().find(|d| d["original_name"] == s.as_str()))
                .map(|d| d["rewritten_doc"].as_str().unwrap_or("").to_string())
                .collect::<Vec<_>>()
                .join("\n");
            let first = selected.first().cloned().unwrap_or_default();
            let variants = vec![
                right.clone(),
                // A NumPy name on zwc.
                right.replacen("zwc.", &format!("zwc.{first}_"), 1),
                // The NumPy import kept.
                format!("import numpy as np\n{right}"),
                // `.tolist()` on whatever the last call returns.
                right.replace("\n    return ", "\n    return (").replacen(")\n", ")).tolist()\n", 1),
            ];
            let prompt = format!(
                "user\nYou are given the zwc library. Solve the problem.\n\n### zwc Codebase Functions\n{doc}\n\n### Problem\n{query}\n\n### Test Cases\n{}\n\n### Function to Complete\n{}\nassistant\n",
                item["example"],
                item["function_name"].as_str().unwrap_or("")
            );
            Task {
                query: item["query"].as_str().unwrap_or("").to_string(),
                prompt,
                variants,
                gts: item["right_exe_result"].as_str().unwrap_or("").to_string(),
            }
        })
        .collect()
}

/// Real responses to draw from (`SEBX_BENCH_DISTINCT=1`): the shared parity rollouts
/// (1,883 responses over 130 tasks of the split: a strong model's answers and their
/// variants, 566 characters on average, with the official verdicts' mix: 42% without_zwc,
/// 29% exe_error, 13% right, 9% result_error, 7% use_numpy), by task.
struct Responses {
    /// (index into the tasks, the responses to it with their official reward).
    by_task: Vec<(usize, Vec<(String, f64)>)>,
}

fn responses(tasks: &[Task]) -> Responses {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/parity");
    let lines = std::fs::read_to_string(dir.join("rollouts.jsonl")).expect("parity rollouts");
    let rewards = std::fs::read_to_string(dir.join("official_rewards.jsonl")).expect("rewards");
    let mut by_task: Vec<(usize, Vec<(String, f64)>)> = Vec::new();
    for (line, reward) in lines.lines().zip(rewards.lines()) {
        let (Ok(r), Ok(w)) = (
            serde_json::from_str::<Value>(line),
            serde_json::from_str::<Value>(reward),
        ) else {
            continue;
        };
        let Some(t) = tasks.iter().position(|t| t.query == r["query"]) else {
            continue;
        };
        let response = r["response"].as_str().unwrap_or("").to_string();
        let reward = w["reward"].as_f64().unwrap_or(0.0);
        match by_task.iter_mut().find(|(i, _)| *i == t) {
            Some((_, list)) => list.push((response, reward)),
            None => by_task.push((t, vec![(response, reward)])),
        }
    }
    assert!(!by_task.is_empty(), "no parity rollout joins a task");
    Responses { by_task }
}

/// `response` with a comment naming sample `n` at the top of each Python block, so that
/// every sample's program is its own (as in a real run) and its report too.
fn distinct(response: &str, n: usize) -> String {
    response.replace("```python\n", &format!("```python\n# sample {n}\n"))
}

/// Writes the dump; returns its bytes.
fn generate(run: &Path, samples: usize) -> u64 {
    let tasks = tasks();
    let responses = distinct_wanted().then(|| responses(&tasks));
    let steps = samples.div_ceil(PER_STEP).max(1);
    let mut rng = SplitMix64::new(19);
    std::fs::create_dir_all(run).expect("mkdir");
    let mut bytes = 0;
    let mut written = 0;
    for step in 1..=steps {
        bytes += match &responses {
            Some(r) => write_distinct_step(run, step, &tasks, r, &mut rng, samples, &mut written),
            None => write_step(run, step, steps, &tasks, &mut rng, samples, &mut written),
        };
    }
    bytes
}

/// `SEBX_BENCH_DISTINCT=1`: every sample's program distinct (see [`Responses`]).
fn distinct_wanted() -> bool {
    std::env::var("SEBX_BENCH_DISTINCT").is_ok_and(|v| v == "1")
}

/// Writes step file `step` of a run: [`PER_STEP`] / [`GROUP`] groups of [`GROUP`] samples,
/// at most `samples` samples in all (counting in `written`), `line(group, written)` each;
/// returns its bytes.
fn write_lines(
    run: &Path,
    step: usize,
    samples: usize,
    written: &mut usize,
    mut line: impl FnMut(usize, usize) -> serde_json::Value,
) -> u64 {
    let mut bytes = 0;
    let path = run.join(format!("{step}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    for g in 0..PER_STEP / GROUP {
        for _ in 0..GROUP {
            if *written == samples {
                break;
            }
            let text = line(g, *written).to_string();
            bytes += text.len() as u64 + 1;
            writeln!(f, "{text}").expect("write");
            *written += 1;
        }
    }
    f.flush().expect("flush");
    bytes
}

/// [`write_step`] with real responses, each program made distinct: a group of [`GROUP`]
/// samples answers one task, each sample a response to it drawn from the parity rollouts
/// with its own comment; the score is the official reward of that response.
fn write_distinct_step(
    run: &Path,
    step: usize,
    tasks: &[Task],
    responses: &Responses,
    rng: &mut SplitMix64,
    samples: usize,
    written: &mut usize,
) -> u64 {
    write_lines(run, step, samples, written, |g, n| {
        let (t, list) = &responses.by_task[(step * 7 + g * 13) % responses.by_task.len()];
        let task = &tasks[*t];
        let (response, reward) = &list[rng.below(list.len())];
        json!({
            "input": task.prompt, "output": distinct(response, n), "gts": task.gts,
            "score": reward, "step": step, "acc": *reward == 1.0,
        })
    })
}

/// Writes step file `step` of a run of `steps` (at most `samples` samples in all, counting
/// in `written`); returns its bytes.
fn write_step(
    run: &Path,
    step: usize,
    steps: usize,
    tasks: &[Task],
    rng: &mut SplitMix64,
    samples: usize,
    written: &mut usize,
) -> u64 {
    write_lines(run, step, samples, written, |g, _| {
        let task = &tasks[(step * 7 + g * 13) % tasks.len()];
        // Later steps answer right more often.
        let right = rng.below(steps) < step;
        let v = if right { 0 } else { 1 + rng.below(3) };
        let think = prose(rng, 120);
        let before = prose(rng, 90);
        let output = format!(
            "<think>\n{think}\n</think>\n\n{before}\n\n```python\n{}\n```",
            task.variants[v].trim()
        );
        json!({
            "input": task.prompt, "output": output, "gts": task.gts,
            "score": if v == 0 { 1.0 } else { 0.0 }, "step": step,
            "acc": v == 0,
        })
    })
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// Peak resident memory of the finished children, in KB.
fn children_maxrss_kb() -> u64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss as u64
}

fn explorer(run_dir: &Path, bytes: u64) {
    let mut dataset = Dataset::default();
    dataset
        .load_file(&shared("single_test.jsonl"))
        .expect("dataset");
    let dataset = Arc::new(dataset);
    let api = ApiMap::load(&shared("api_doc.jsonl")).expect("api");
    let runs = find_runs(run_dir).expect("read").expect("a run");
    let join = Arc::new(JoinIndex::new(&dataset));
    let rss_before = status_kb("VmRSS:");
    let start = Instant::now();
    let ctx = Context {
        api: Arc::new(api),
        dataset: dataset.clone(),
        grading: Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly(
            "benchmark".to_string(),
        )),
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    app.update(&Action::Resize {
        width: 160,
        height: 48,
    });
    let sources = Source::dumps(runs, &join, &dataset);
    let (tx, rx) = channel();
    // Loaded as `sebx` loads a run: followed after loading (the live-follow figure below).
    let follow = Follow {
        every: FOLLOW_EVERY,
        stop: Arc::new(AtomicBool::new(false)),
        looks: Arc::default(),
    };
    let stop = follow.stop.clone();
    let loader = std::thread::spawn(move || {
        load_following(
            &sources,
            &mut |e| {
                let _ = tx.send(JobEvent::Load(e));
            },
            Some(&follow),
        )
    });
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let mut first_screen = None;
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
        app.settle();
        terminal.draw(|f| ui::draw(f, &app)).expect("draws");
        if first_screen.is_none() && !app.list.view.is_empty() {
            first_screen = Some(start.elapsed());
        }
        if done || app.corpus.load.done {
            break;
        }
    }
    let loaded = start.elapsed();
    let first = first_screen.unwrap_or(loaded);
    println!(
        "explorer first screen: {} (target 1 s: {:.2}× of it)",
        secs(first),
        first.as_secs_f64()
    );
    println!(
        "explorer full load: {} for {} samples",
        secs(loaded),
        app.corpus.entries.len()
    );
    let rss = status_kb("VmRSS:");
    println!(
        "explorer memory after load: {:.0} MB over {:.0} MB of files: {:.2}× (target 1.5×)",
        rss.saturating_sub(rss_before) as f64 / 1024.0,
        bytes as f64 / 1e6 * 1e6 / 1048576.0,
        rss.saturating_sub(rss_before) as f64 * 1024.0 / bytes as f64
    );
    let events = std::sync::Mutex::new(Vec::new());
    let t = Instant::now();
    analyze_rows(
        &app.corpus.entries,
        0,
        &app.corpus.ctx.dataset,
        &app.corpus.ctx.api,
        &|rows| {
            events
                .lock()
                .map(|mut e| e.push(JobEvent::Digested { rows }))
                .is_ok()
        },
    );
    let swept = t.elapsed();
    for ev in events.into_inner().unwrap_or_default() {
        app.on_job(ev);
    }
    app.settle();
    sebx::tui::load::return_freed_memory();
    let rss = status_kb("VmRSS:");
    println!(
        "explorer memory with every row analysed (sweep {}): {:.2}× the files (target 1.5×); peak {:.2}×",
        secs(swept),
        rss.saturating_sub(rss_before) as f64 * 1024.0 / bytes as f64,
        status_kb("VmHWM:").saturating_sub(rss_before) as f64 * 1024.0 / bytes as f64
    );
    if let Some(path) = std::env::var_os("SEBX_BENCH_TOKENIZER") {
        training_tokens(&app, Path::new(&path));
    }
    follow_latency(run_dir, &mut app, &rx);
    stop.store(true, Ordering::Relaxed);
    loader.join().expect("loader");
}

/// What the Training job's first computation pays for tokens: every row's sample facts, on
/// every core as the job computes them, with the tokenizer and without (later refreshes
/// reuse them).
fn training_tokens(app: &App, tokenizer: &Path) {
    use sebx::grade::runs::SampleFacts;
    use sebx::model::tokenizer::TokenCounter;
    let t = Instant::now();
    let counter = TokenCounter::load(tokenizer).expect("the tokenizer loads");
    let load = t.elapsed();
    let rollouts: Vec<&sebx::model::Rollout> =
        app.corpus.entries.iter().map(|e| &e.rollout).collect();
    let jobs = sebx::session::default_jobs();
    let t = Instant::now();
    let plain = SampleFacts::of_all(&rollouts, None, jobs, &|_| {});
    let chars = t.elapsed();
    let t = Instant::now();
    let counted = SampleFacts::of_all(&rollouts, Some(&counter), jobs, &|_| {});
    let tokens = t.elapsed();
    let total: u64 = counted
        .iter()
        .flatten()
        .filter_map(|s| s.shape.tokens)
        .map(u64::from)
        .sum();
    let bytes: usize = rollouts.iter().map(|r| r.response.len()).sum();
    println!(
        "explorer Training job, sample facts of {} rows on {jobs} threads: {} without a tokenizer, {} with ({} tokens of {:.0} MB of responses, {:.1} MB/s; loading the tokenizer {})",
        plain.len(),
        secs(chars),
        secs(tokens),
        total,
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / tokens.as_secs_f64(),
        secs(load)
    );
}

/// Live follow: step files written one after another while the explorer is open, each
/// timed from the moment it is written (closed) to its rows in the app. The run folder is
/// watched (a change wakes the follower) and looked at every `FOLLOW_EVERY` besides; the
/// writes are spread over that period, so without the watcher the figure is the wait for
/// the next look plus reading and parsing the step.
fn follow_latency(run_dir: &Path, app: &mut App, rx: &std::sync::mpsc::Receiver<JobEvent>) {
    let tasks = tasks();
    let mut rng = SplitMix64::new(30);
    let last = std::fs::read_dir(run_dir)
        .expect("run folder")
        .filter_map(|e| {
            sebx::model::verl::step_of_file_name(&e.ok()?.file_name().to_string_lossy())
        })
        .max()
        .unwrap_or(0) as usize;
    let mut times = Vec::new();
    for (k, step) in (last + 1..=last + 5).enumerate() {
        // Each write lands at another point of the period (a write right after the rows of
        // the last one came would always wait a whole period).
        std::thread::sleep(FOLLOW_EVERY.mul_f64(k as f64 / 5.0));
        let before = app.corpus.entries.len();
        let mut written = 0;
        write_step(
            run_dir,
            step,
            step,
            &tasks,
            &mut rng,
            PER_STEP,
            &mut written,
        );
        let t = Instant::now();
        while app.corpus.entries.len() < before + written {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(ev) => {
                    app.on_job(ev);
                }
                Err(e) => panic!("step {step} not followed: {e}"),
            }
        }
        app.settle();
        times.push(t.elapsed());
        // Gone again once timed: `sebx stats` below reads the run as generated.
        std::fs::remove_file(run_dir.join(format!("{step}.jsonl"))).expect("remove");
    }
    let shown: Vec<String> = times
        .iter()
        .map(|t| format!("{:.2}", t.as_secs_f64()))
        .collect();
    let mean = times.iter().map(Duration::as_secs_f64).sum::<f64>() / times.len() as f64;
    println!(
        "live follow: a step file of {PER_STEP} samples written to its rows in the app: mean {mean:.2} s ({} s; the folder is watched, and looked at every {:.0} s)",
        shown.join(", "),
        FOLLOW_EVERY.as_secs_f64()
    );
}

fn stats(exp: &Path, cache: &Path) -> Duration {
    stats_with(exp, cache, &[])
}

/// `sebx stats --by step` with `more` arguments.
fn stats_with(exp: &Path, cache: &Path, more: &[&std::ffi::OsStr]) -> Duration {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_sebx"))
        .arg("stats")
        .arg(exp)
        .arg(shared("single_test.jsonl"))
        .arg("--api-doc")
        .arg(shared("api_doc.jsonl"))
        .args(["--by", "step", "--format", "json", "--quiet"])
        .args(more)
        .env("SEBX_SCORE_CACHE", cache)
        .output()
        .expect("sebx stats runs");
    let elapsed = t.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let steps = report["steps"].as_array().map_or(0, Vec::len);
    if let Some(last) = report["steps"].as_array().and_then(|s| s.last()) {
        println!(
            "  last step: {} chars mean, {} tokens mean",
            last["response_chars_mean"], last["response_tokens_mean"]
        );
    }
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .map(|n| n.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    println!("  {steps} steps; notes: {}", notes.join(" | "));
    elapsed
}

/// `--fill-distinct N FROM TO`: fills the score cache in TO (fresh) with N reports of
/// distinct programs, as `sebx` files them (`ScoreCache::put_many`, batches of 1,000), without
/// grading: the reports are the real ones an explorer graded into the cache FROM (its
/// bodies, read with SQLite), taken in turn, each with a comment naming its sample added to
/// its code (so each body is its own) and a place of its own; each filed for a rollout of
/// its own (a response naming the sample). Prints the cache's bytes on disk and by kind.
/// Grading 40,000 distinct programs takes most of an hour on this machine; what the cache
/// keeps of a graded report does not depend on who graded it.
///
/// `--fill-distinct all FROM TO EXP`: the rollouts are those of the dump under EXP, loaded as
/// the explorer loads them, and filed under the explorer's settings, so that `--phase reopen
/// EXP …` over TO finds every verdict (the reports are FROM's in turn, not the dump's own:
/// the figures are sizes and times, not verdicts).
fn fill_distinct(n: Option<usize>, from: &Path, to: &Path, exp: Option<&Path>) {
    use sebx::grade::report::GradeReport;
    let conn = rusqlite::Connection::open_with_flags(
        from.join("cache.sqlite3"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("the graded cache");
    // Either layout of the store: the second (namespaces by number), or the first.
    let mut stmt = conn
        .prepare(
            "SELECT COALESCE(l.value, r.value) FROM records_v2 r
             JOIN namespaces_v2 n ON n.id = r.ns LEFT JOIN large_v2 l ON l.id = r.large
             WHERE n.name LIKE '%-bodies'",
        )
        .or_else(|_| conn.prepare("SELECT value FROM records WHERE ns LIKE '%-bodies'"))
        .expect("query");
    let reports: Vec<GradeReport> = stmt
        .query_map([], |row| row.get::<_, Vec<u8>>(0))
        .expect("bodies")
        .filter_map(|v| {
            let v = v.ok()?;
            let json = sebx::grade::store::unpack(&v)?;
            let record: Value = serde_json::from_slice(&json).ok()?;
            serde_json::from_value(record["report"].clone()).ok()
        })
        .filter(|r: &GradeReport| r.verdict.is_some())
        .collect();
    assert!(
        !reports.is_empty(),
        "no graded report in {}",
        from.display()
    );
    let _ = std::fs::remove_dir_all(to);
    let api = ApiMap::load(&shared("api_doc.jsonl")).expect("api");
    let dumped = exp.map(dump_rollouts);
    let settings = match dumped {
        // What `sebx` opens its cache with to look a row's verdict up.
        Some(_) => sebx::grade::backend::Grader::default_settings()
            .with_scorer(sebx::grade::reward::Scorer::Verdict),
        None => sebx::grade::settings::GradingSettings::official(),
    };
    let n = dumped.as_ref().map_or(n.unwrap_or(0), Vec::len);
    let cache = sebx::grade::score_cache::ScoreCache::open(to, &api, &settings).expect("cache");
    let t = Instant::now();
    for start in (0..n).step_by(1000) {
        let end = (start + 1000).min(n);
        let rollouts: Vec<sebx::model::Rollout> = match &dumped {
            Some(all) => all[start..end].to_vec(),
            None => {
                let text: String = (start..end)
                    .map(|i| {
                        json!({"query": "q", "response": format!("```python\n# sample {i}\n```"),
                            "test_cases": [{"input": "a=1", "output": "1"}],
                            "right_exe_result": "1"})
                        .to_string()
                            + "\n"
                    })
                    .collect();
                sebx::model::rollout::parse_rollout_bytes(Path::new("fill.jsonl"), text.as_bytes())
                    .rollouts
            }
        };
        let filed: Vec<GradeReport> = (start..end)
            .map(|i| {
                let mut r = reports[i % reports.len()].clone();
                r.extraction.code.push_str(&format!("\n# sample {i}"));
                r.extraction.span = Some((40 + i % 700, 400 + i % 1500));
                r.extraction.blocks_found = 1;
                if let Some(d) = r.reward_detail.as_mut() {
                    d.block_lines = Some((3, 12 + i % 30));
                    d.blocks_found = 1;
                }
                r
            })
            .collect();
        let pairs: Vec<(&sebx::model::Rollout, &GradeReport)> =
            rollouts.iter().zip(&filed).collect();
        cache.put_many(&pairs).expect("put");
    }
    let filled = t.elapsed();
    let size = cache.store().size().expect("size");
    drop(cache);
    let on_disk: u64 = std::fs::read_dir(to)
        .expect("cache")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "filled {n} reports of distinct programs ({} real reports in turn) in {}; on disk {:.1} MB",
        reports.len(),
        secs(filled),
        on_disk as f64 / 1e6
    );
    for ns in &size.namespaces {
        println!(
            "  {}: {} records, {:.2} MB",
            ns.name,
            ns.records,
            ns.bytes as f64 / 1e6
        );
    }
}

/// The rollouts of the dump under `exp` as the explorer loads them (each with its id, its
/// task's cases and its sample's `gts`): what a reopen of the dump looks up.
fn dump_rollouts(exp: &Path) -> Vec<sebx::model::Rollout> {
    let mut dataset = Dataset::default();
    dataset
        .load_file(&shared("single_test.jsonl"))
        .expect("dataset");
    let dataset = Arc::new(dataset);
    let join = Arc::new(JoinIndex::new(&dataset));
    let runs = find_runs(&exp.join("rollout"))
        .expect("read")
        .expect("a run");
    let sources = Source::dumps(runs, &join, &dataset);
    let mut out = Vec::new();
    load_following(
        &sources,
        &mut |e| {
            if let LoadEvent::Batch { entries, .. } = e {
                out.extend(entries.into_iter().map(|e| e.rollout));
            }
        },
        None,
    );
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--fill-distinct") {
        let n: Option<usize> = args[i + 1].parse().ok();
        let exp = args.get(i + 4).map(Path::new);
        fill_distinct(n, Path::new(&args[i + 2]), Path::new(&args[i + 3]), exp);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--phase") {
        let p = |k: usize| PathBuf::from(&args[i + k]);
        graded::run_phase(&p(2), &p(3), &p(4), &p(5));
        return;
    }
    // `--forget-sets CACHE`: the sets go (to measure a reopen that reads row by row).
    if let Some(i) = args.iter().position(|a| a == "--forget-sets") {
        let store = sebx::grade::store::Store::open(Path::new(&args[i + 1])).expect("cache");
        println!("{} sets forgotten", store.forget_sets().expect("forgotten"));
        return;
    }
    let parts = std::env::var("SEBX_BENCH_PARTS").unwrap_or_default();
    let part = |name: &str| parts.is_empty() || parts.split(',').any(|p| p.trim() == name);
    let samples: usize = args
        .iter()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(STEPS_DEFAULT * PER_STEP);
    // `SEBX_BENCH_DIR=folder` keeps the dump and caches there (to profile them).
    let dir = tempfile::tempdir().expect("tempdir");
    let base = std::env::var_os("SEBX_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.path().to_path_buf());
    let exp = base.join("exp");
    let run = exp.join("rollout");
    let t = Instant::now();
    let bytes = generate(&run, samples);
    println!(
        "generated {samples} samples in {} step files, {:.0} MB, in {}",
        samples.div_ceil(PER_STEP),
        bytes as f64 / 1e6,
        secs(t.elapsed())
    );
    if part("explorer") {
        explorer(&run, bytes);
    }
    if part("graded") {
        graded::graded(
            &exp,
            &shared("single_test.jsonl"),
            &shared("api_doc.jsonl"),
            &base.join("explorer-cache"),
            bytes,
        );
    }
    if !part("stats") {
        return;
    }
    let cache = base.join("cache");
    println!("sebx stats --by step, first run (grades each distinct program once):");
    let first = stats(&exp, &cache);
    println!(
        "  {} ; peak memory {:.2}× the files",
        secs(first),
        children_maxrss_kb() as f64 * 1024.0 / bytes as f64
    );
    println!("sebx stats --by step, verdicts known:");
    let again = stats(&exp, &cache);
    println!(
        "  {} (target 2 s: {:.2}× of it)",
        secs(again),
        again.as_secs_f64() / 2.0
    );
    // Without the remembered facts (say the explorer graded the run): the dumps are read
    // again and every verdict comes from the score cache.
    for entry in std::fs::read_dir(&cache).expect("cache dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("training-") {
            std::fs::remove_file(entry.path()).expect("remove");
        }
    }
    println!("sebx stats --by step, verdicts in the score cache only (facts forgotten):");
    let cold = stats(&exp, &cache);
    println!("  {}", secs(cold));
    if let Some(tokenizer) = std::env::var_os("SEBX_BENCH_TOKENIZER") {
        let more = [std::ffi::OsStr::new("--tokenizer"), tokenizer.as_os_str()];
        // Another key: the dump is read again, verdicts from the score cache, as above.
        println!("sebx stats --by step --tokenizer, every response encoded:");
        let counted = stats_with(&exp, &cache, &more);
        println!(
            "  {} ({} more than without)",
            secs(counted),
            secs(counted.saturating_sub(cold))
        );
        println!("sebx stats --by step --tokenizer, facts remembered:");
        println!("  {}", secs(stats_with(&exp, &cache, &more)));
    }
}
