//! Reopening a big file whose verdicts the score cache remembers: the explorer's memory and
//! time against opening it with an empty cache (issue 28's target: within 1.5× the file).
//! Generates N = 100,000 rollouts (`-- N` to change), fills a cache folder with a report
//! for every one of them (shaped like a real `sebx grade` report: the demo's first), then
//! opens the file the way `sebx FILE` does (`tui::explore::prepare`, the loader, the
//! session's lookup of remembered verdicts), once with an empty cache and once with the
//! full one, each in a child process of its own so that each peak is its own.
//! `cargo bench --bench cache_reopen [-- N]`.

#[path = "common/mod.rs"]
mod common;
use common::status_kb;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sebx::grade::report::GradeReport;
use sebx::grade::score_cache::ScoreCache;
use sebx::grade::settings::GradingSettings;
use sebx::model::ApiMap;
use sebx::model::rollout::load_rollout_file;
use sebx::session::CacheFlags;
use sebx::tui::explore::{ExploreArgs, prepare};
use sebx::tui::inline::{load_inline, settle_verdicts};

const API: &str = r#"{"func_mapping": {"np.mean": "zwc.kocito", "np.array": "zwc.yitaf", "np.sum": "zwc.bapu", "np.std": "zwc.pemra"}}"#;
const FUNCS: [&str; 4] = ["kocito", "bapu", "pemra", "kocitoo"];

/// One generated rollout line (about 1.5 KB), unscored, varied by `i`.
fn rollout(i: usize) -> String {
    let task = i % 250;
    let f = FUNCS[i % FUNCS.len()];
    let body = "I will convert the list with zwc.yitaf and then apply the function. ".repeat(8);
    let code = format!(
        "import zwc\\n\\ndef solve(values):\\n    # dashboard {task}, variant {i}\\n    return zwc.{f}(zwc.yitaf(values))\\n"
    );
    format!(
        "{{\"query\": \"Task {task}: given `values`, a list of floats, return the statistic of dashboard {task}.\", \
         \"response\": \"{body}\\n\\n```python\\n{code}```\\n\", \
         \"test_cases\": [{{\"input\": \"values=[1.0, 2.0, 3.0]\", \"output\": \"2.0\"}}, \
         {{\"input\": \"values=[4.5, 5.5]\", \"output\": \"5.0\"}}], \"right_exe_result\": \"2.0#5.0\"}}"
    )
}

fn phase_open(file: &Path, api_doc: &Path, cache: &Path) {
    let before = status_kb("VmRSS:");
    let anon_before = status_kb("RssAnon:");
    let t = Instant::now();
    let args = ExploreArgs {
        paths: vec![file.to_path_buf(), api_doc.to_path_buf()],
        cache: CacheFlags {
            no_cache: false,
            cache_dir: Some(cache.to_path_buf()),
        },
        ..ExploreArgs::default()
    };
    let mut session = prepare(
        &args,
        sebx::tui::Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
    )
    .expect("session");
    load_inline(&mut session.app, &session.sources);
    let loaded = t.elapsed();
    settle_verdicts(&mut session.app);
    let all = t.elapsed();
    let known = (0..session.app.corpus.entries.len())
        .filter(|&i| session.app.corpus.facts(i).is_some())
        .count();
    // The phase's own growth: what it holds after opening, and its peak.
    println!(
        "{} {} {} {} {} {} {}",
        status_kb("RssAnon:").saturating_sub(anon_before),
        status_kb("VmRSS:").saturating_sub(before),
        status_kb("VmHWM:").saturating_sub(before),
        loaded.as_millis(),
        all.as_millis(),
        known,
        session.app.corpus.entries.len()
    );
}

fn child(phase: &str, file: &Path, api: &Path, cache: &Path) -> Vec<u64> {
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args(["--phase", phase])
        .arg(file)
        .arg(api)
        .arg(cache)
        .output()
        .expect("child");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--phase") {
        let p = |k: usize| PathBuf::from(&args[i + k]);
        phase_open(&p(2), &p(3), &p(4));
        return;
    }
    let n: usize = args
        .iter()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("big.jsonl");
    let api_doc = dir.path().join("api_doc.jsonl");
    std::fs::write(&api_doc, API).expect("api doc");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&file).expect("create"));
        for i in 0..n {
            writeln!(f, "{}", rollout(i)).expect("write");
        }
    }
    let size = std::fs::metadata(&file).expect("metadata").len();
    println!("generated {n} rollouts, {:.1} MB", size as f64 / 1e6);

    // A report shaped like a real one (cases, execution, static check) for every rollout.
    let template: GradeReport = serde_json::from_str(
        include_str!("../samples/demo/rollouts.scored.jsonl")
            .lines()
            .next()
            .expect("a report"),
    )
    .expect("a report");
    let full = dir.path().join("full");
    let empty = dir.path().join("empty");
    let t = Instant::now();
    {
        let api = ApiMap::from_api_doc_jsonl(API).expect("api");
        // As the explorer remembers: its grader's settings, filed under what it carries.
        let settings = GradingSettings::official();
        let cache = ScoreCache::open(&full, &api, &settings).expect("cache");
        // In batches of 1,000 (one transaction each), as the front ends write.
        for chunk in load_rollout_file(&file)
            .expect("load")
            .rollouts
            .chunks(1000)
        {
            let reports: Vec<GradeReport> = chunk
                .iter()
                .map(|r| {
                    let mut report = template.clone();
                    report.id = Some(r.id.clone());
                    report.line = r.line;
                    report.reward = Some(u8::from(r.line % 3 == 0));
                    report
                })
                .collect();
            let pairs: Vec<_> = chunk.iter().zip(&reports).collect();
            cache.put_many(&pairs).expect("put");
        }
    }
    let cache_bytes: u64 = std::fs::read_dir(&full)
        .expect("cache dir")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "filled the cache with {n} reports ({:.1} MB on disk, {:.1}× the file) in {:.1} s",
        cache_bytes as f64 / 1e6,
        cache_bytes as f64 / size as f64,
        t.elapsed().as_secs_f64()
    );
    let ratio = |kb: u64| kb as f64 * 1024.0 / size as f64;
    let mut peaks = Vec::new();
    for (name, cache) in [("empty cache", &empty), ("full cache", &full)] {
        let v = child("open", &file, &api_doc, cache);
        let [anon, held, peak, load_ms, all_ms, known, rows] = v[..] else {
            panic!("child printed {v:?}");
        };
        // Resident memory counts the cache's memory-mapped pages (page cache, given back
        // under pressure); anonymous memory is what the explorer itself holds.
        println!(
            "{name}: {rows} rows, {known} with a remembered verdict; loaded in {load_ms} ms, verdicts in {all_ms} ms; holds {:.0} MB of its own ({:.2}× the file), {:.0} MB resident ({:.2}×), peak resident {:.0} MB ({:.2}×)",
            anon as f64 / 1024.0,
            ratio(anon),
            held as f64 / 1024.0,
            ratio(held),
            peak as f64 / 1024.0,
            ratio(peak)
        );
        peaks.push((ratio(peak), ratio(anon)));
    }
    println!(
        "target: reopening with every verdict remembered holds {:.2}× the file of its own, peaks at {:.2}× resident (empty cache {:.2}× and {:.2}×; target ≤ 1.5×: {})",
        peaks[1].1,
        peaks[1].0,
        peaks[0].1,
        peaks[0].0,
        if peaks[1].0 <= 1.5 { "met" } else { "over" }
    );
}
