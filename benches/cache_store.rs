//! The score cache as a store: fills one to >= 1 GB of GradeReport-sized records (seeded,
//! a few KB each), then measures against an empty store in the same run what a user waits
//! for: opening the cache + 40 lookups + 40 puts (what opening a 40-line file costs), and
//! 100,000 lookups; prints the ratios, the fill rate, `sebx cache size`'s scan and a prune.
//! `cargo bench --bench cache_store [-- MB]` (default 1100 MB of records).
//!
//! Its data lives under the system temp folder and is removed at the end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sebx::grade::report::GradeReport;
use sebx::grade::reward::Scorer;
use sebx::grade::score_cache::ScoreCache;
use sebx::grade::settings::GradingSettings;
use sebx::grade::store::{Store, human_bytes};
use sebx::model::sampling::SplitMix64;
use sebx::model::{ApiMap, Rollout};

const WORDS: [&str; 16] = [
    "readings", "values", "axis", "mean", "zwc", "kocito", "result", "return", "rows", "float",
    "list", "array", "window", "sum", "index", "print",
];

/// `n` words chosen by `rng`, space-separated.
fn text(rng: &mut SplitMix64, n: usize) -> String {
    (0..n)
        .map(|_| WORDS[rng.below(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Rollout `i`: small (only its key matters here), unique by `i`.
fn rollout(i: usize) -> Rollout {
    let line = serde_json::json!({
        "query": format!("Task {}: average each row.", i % 500),
        "response": format!("```python\ndef solve(readings):\n    return {i}\n```"),
        "test_cases": [{"input": "readings=[[1, 2]]", "output": "[1.5]"}],
        "right_exe_result": "[1.5]",
    })
    .to_string();
    sebx::model::rollout::parse_rollout_bytes(Path::new("bench.jsonl"), line.as_bytes())
        .rollouts
        .into_iter()
        .next()
        .expect("a generated rollout parses")
}

/// A report the size and shape of a real one (code, run output, cases, reward detail):
/// about 3.5-5 KB of JSON, varied by `rng`.
fn report(rng: &mut SplitMix64, i: usize) -> GradeReport {
    let code_lines: Vec<String> = (0..20 + rng.below(20))
        .map(|_| {
            format!(
                "    {} = zwc.{}({})",
                text(rng, 1),
                text(rng, 1),
                text(rng, 4)
            )
        })
        .collect();
    let code = format!(
        "import zwc\n\ndef solve(readings):\n{}\n",
        code_lines.join("\n")
    );
    let cases: Vec<serde_json::Value> = (0..3 + rng.below(3))
        .map(|k| {
            serde_json::json!({
                "index": k, "input": format!("readings=[{}]", text(rng, 12)),
                "expected": text(rng, 8), "actual": text(rng, 8), "matched": rng.below(2) == 0,
                "fragile": false,
            })
        })
        .collect();
    let verdict = ["right", "result_error", "exe_error", "without_zwc"][rng.below(4)];
    serde_json::from_value(serde_json::json!({
        "source": "runs/step_0042.jsonl", "line": i + 1,
        "verdict": verdict,
        "extraction": {"found": true, "blocks_found": 1, "span": [10, 10 + code.len()], "code": code},
        "entry": "solve",
        "warnings": [text(rng, 10)],
        "decided_by": format!("graded: {}", text(rng, 12)),
        "execution": {"stdout": text(rng, 120), "stderr": text(rng, 30), "timed_out": false,
                      "elapsed_ms": rng.below(3000) as f64 / 7.0, "exit_code": 0},
        "cases": cases,
        "reward": rng.below(2),
        "reward_detail": {"reward": 1, "decided_by": text(rng, 10), "blocks_found": 1,
                          "entry": "solve", "same_code_as_verdict": true,
                          "inputs_use_np_array": false, "shared_run": true,
                          "cases": [], "fragile": false},
    }))
    .expect("a generated report deserializes")
}

fn settings() -> GradingSettings {
    GradingSettings::official().with_scorer(Scorer::Both)
}

fn open(dir: &Path) -> ScoreCache {
    ScoreCache::open(dir, &ApiMap::default(), &settings()).expect("open the cache")
}

/// Opens the cache in `dir`, looks up `known` (40 rollouts) and puts `fresh` (40 new ones):
/// what opening a small file in the explorer or `sebx grade --cached` costs. `batched`:
/// as the front ends do now (one bulk lookup of the facts, the puts in one transaction);
/// else as before (a whole report per lookup, a transaction per put).
fn open_small_file(
    dir: &Path,
    known: &[Rollout],
    fresh: &[(Rollout, GradeReport)],
    batched: bool,
) -> [Duration; 4] {
    let start = Instant::now();
    let cache = open(dir);
    let opened = start.elapsed();
    let known: Vec<&Rollout> = known.iter().collect();
    let hits = if batched {
        cache.facts_many(&known).into_iter().flatten().count()
    } else {
        known.iter().filter(|r| cache.get(r).is_some()).count()
    };
    let looked = start.elapsed();
    if batched {
        let puts: Vec<(&Rollout, &GradeReport)> = fresh.iter().map(|(r, g)| (r, g)).collect();
        cache.put_many(&puts).expect("put many");
    } else {
        for (r, g) in fresh {
            cache.put(r, g).expect("put");
        }
    }
    let put = start.elapsed();
    drop(cache);
    let took = start.elapsed();
    std::hint::black_box(hits);
    // In all; opening; the lookups; the puts.
    [took, opened, looked - opened, put - looked]
}

fn lookups(dir: &Path, rollouts: &[Rollout]) -> (Duration, usize) {
    let cache = open(dir);
    let start = Instant::now();
    let hits = rollouts.iter().filter(|r| cache.get(r).is_some()).count();
    (start.elapsed(), hits)
}

/// The bulk lookup of facts (no report read): what the explorer and `sebx stats` do.
fn facts_lookups(dir: &Path, rollouts: &[Rollout]) -> (Duration, usize) {
    let cache = open(dir);
    let all: Vec<&Rollout> = rollouts.iter().collect();
    let start = Instant::now();
    let hits = cache.facts_many(&all).into_iter().flatten().count();
    (start.elapsed(), hits)
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let target_mb: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1100);
    // The fill is past the default limit: no eviction while measuring (a prune comes last).
    // SAFETY: set before any thread starts.
    unsafe { std::env::set_var("SEBX_CACHE_MAX_MB", (4 * target_mb).to_string()) };
    let root: PathBuf =
        std::env::temp_dir().join(format!("sebx-cache-store-{}", std::process::id()));
    let (full, empty) = (root.join("full"), root.join("empty"));
    let mut rng = SplitMix64::new(0x5eb5_cace);

    // Fill, in chunks (the rollouts are generated and dropped as they go).
    let start = Instant::now();
    let mut filled = 0usize;
    let mut putting = Duration::ZERO;
    {
        let cache = open(&full);
        while cache.store().bytes().expect("bytes") < target_mb << 20 {
            let chunk: Vec<(Rollout, GradeReport)> = (filled..filled + 1000)
                .map(|i| (rollout(i), report(&mut rng, i)))
                .collect();
            // One transaction per 1,000 (`put_many`), as the front ends now write.
            let put = Instant::now();
            let pairs: Vec<(&Rollout, &GradeReport)> = chunk.iter().map(|(r, g)| (r, g)).collect();
            cache.put_many(&pairs).expect("fill");
            putting += put.elapsed();
            filled += chunk.len();
        }
    }
    let fill = start.elapsed();
    let size = Store::open(&full).expect("store").size().expect("size");
    println!(
        "filled {filled} records, {} of records, {} on disk, in {:.1} s ({:.1} s of puts: {:.0} µs each)",
        human_bytes(size.bytes),
        human_bytes(size.on_disk),
        fill.as_secs_f64(),
        putting.as_secs_f64(),
        putting.as_secs_f64() * 1e6 / filled as f64
    );

    // The 40 known rollouts are spread over the whole store; the fresh ones are new.
    let known: Vec<Rollout> = (0..40).map(|_| rollout(rng.below(filled))).collect();
    let rounds = 7;
    for batched in [false, true] {
        let (mut on_full, mut on_empty) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let fresh: Vec<(Rollout, GradeReport)> = (0..40)
                .map(|k| {
                    let i = filled + 1_000_000 + usize::from(batched) * 50 + round * 100 + k;
                    (rollout(i), report(&mut rng, i))
                })
                .collect();
            on_full.push(open_small_file(&full, &known, &fresh, batched));
            // The empty store: the same rollouts (misses) and puts, in a fresh folder each
            // round.
            let dir = empty.join(format!("{round}-{batched}"));
            let first: Vec<Rollout> = fresh.iter().map(|(r, _)| r.clone()).collect();
            on_empty.push(open_small_file(&dir, &first, &fresh, batched));
        }
        let part = |runs: &[[Duration; 4]], k: usize| median(runs.iter().map(|r| r[k]).collect());
        let parts = |runs: &[[Duration; 4]]| {
            format!(
                "open {}, lookups {}, puts {}",
                ms(part(runs, 1)),
                ms(part(runs, 2)),
                ms(part(runs, 3))
            )
        };
        println!(
            "  parts (medians): full: {}; empty: {}",
            parts(&on_full),
            parts(&on_empty)
        );
        let on_full: Vec<Duration> = on_full.iter().map(|r| r[0]).collect();
        let on_empty: Vec<Duration> = on_empty.iter().map(|r| r[0]).collect();
        let (f, e) = (median(on_full.clone()), median(on_empty.clone()));
        println!(
            "open + 40 lookups + 40 puts ({}), median of {rounds}: {} on {} vs {} empty: {:.2}x (full: {} .. {})",
            if batched {
                "facts in one lookup, puts in one transaction"
            } else {
                "a report per lookup, a transaction per put"
            },
            ms(f),
            human_bytes(size.bytes),
            ms(e),
            f.as_secs_f64() / e.as_secs_f64(),
            ms(*on_full.iter().min().expect("rounds")),
            ms(*on_full.iter().max().expect("rounds")),
        );
    }

    // 100,000 lookups: hits spread over the full store, against hits on the small store
    // (the 40 records the last round put in it), and misses on both.
    let n = 100_000;
    let spread: Vec<Rollout> = (0..n).map(|_| rollout(rng.below(filled))).collect();
    let small = empty.join(format!("{}-false", rounds - 1));
    let small_known: Vec<Rollout> = (0..40)
        .map(|k| rollout(filled + 1_000_000 + (rounds - 1) * 100 + k))
        .collect();
    let cycled: Vec<Rollout> = (0..n).map(|k| small_known[k % 40].clone()).collect();
    let misses: Vec<Rollout> = (0..n).map(|k| rollout(filled + 2_000_000 + k)).collect();
    let (full_hits, hits) = lookups(&full, &spread);
    assert_eq!(hits, n, "every spread lookup is a hit");
    let (small_hits, hits) = lookups(&small, &cycled);
    assert_eq!(hits, n, "every small-store lookup is a hit");
    let (full_facts, hits) = facts_lookups(&full, &spread);
    assert_eq!(hits, n, "every spread facts lookup is a hit");
    let (small_facts, _) = facts_lookups(&small, &cycled);
    let (full_misses, _) = lookups(&full, &misses);
    let (small_misses, _) = lookups(&small, &misses);
    let per = |d: Duration| format!("{:.1} µs", d.as_secs_f64() * 1e6 / n as f64);
    println!(
        "100,000 lookups (hits, report parsed): {} ({} each) on {} vs {} ({} each) on 40 records: {:.2}x",
        ms(full_hits),
        per(full_hits),
        human_bytes(size.bytes),
        ms(small_hits),
        per(small_hits),
        full_hits.as_secs_f64() / small_hits.as_secs_f64()
    );
    println!(
        "100,000 facts lookups (hits, one bulk lookup, no report read): {} ({} each) on {} vs {} ({} each) on 40 records: {:.2}x",
        ms(full_facts),
        per(full_facts),
        human_bytes(size.bytes),
        ms(small_facts),
        per(small_facts),
        full_facts.as_secs_f64() / small_facts.as_secs_f64()
    );
    println!(
        "100,000 lookups (misses): {} ({} each) vs {} ({} each): {:.2}x",
        ms(full_misses),
        per(full_misses),
        ms(small_misses),
        per(small_misses),
        full_misses.as_secs_f64() / small_misses.as_secs_f64()
    );

    // `sebx cache size` (a scan of every record's size) and a prune of ~20%.
    let store = Store::open(&full).expect("store");
    let start = Instant::now();
    let size = store.size().expect("size");
    println!(
        "size by namespace: {} ({} records)",
        ms(start.elapsed()),
        size.namespaces.iter().map(|n| n.records).sum::<u64>()
    );
    let start = Instant::now();
    let evicted = store.prune(size.bytes / 10 * 8).expect("prune");
    let after = store.size().expect("size");
    println!(
        "prune to 80%: {} records ({}) in {:.2} s; {} on disk (was {})",
        evicted.records,
        human_bytes(evicted.bytes),
        start.elapsed().as_secs_f64(),
        human_bytes(after.on_disk),
        human_bytes(size.on_disk),
    );
    drop(store);
    std::fs::remove_dir_all(&root).expect("remove the bench's data");
}
