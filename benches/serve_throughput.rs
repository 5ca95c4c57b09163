//! `POST /run` throughput and latency: `sebx serve` next to a server built like the
//! official sandbox (`benches/official_sandbox.py`: a fresh `python main.py` per request),
//! same programs, same number of concurrent clients, loopback only, in one run.
//!
//! `cargo bench --bench serve_throughput`. Programs: the assembled programs of the parity
//! rollouts that execute and do not loop forever (../shared/data, real zwc). Bounded:
//! SEBX_BENCH_N requests for sebx (default 600) and SEBX_BENCH_BASELINE_N for the
//! baseline (default 80), each phase at most SEBX_BENCH_SECS seconds (default 40);
//! SEBX_BENCH_CLIENTS concurrent clients (default 4). Two alternating rounds.

#[path = "common/mod.rs"]
mod common;
#[path = "../tests/common/isolated.rs"]
mod isolated;
#[path = "../tests/common/serve.rs"]
mod serve;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sebx::grade::grader::prepare;
use sebx::grade::runtime::{cache_dir, find_runtime};
use sebx::grade::zwc_runtime::ensure_zwc_package;
use sebx::model::ApiMap;
use sebx::model::rollout::load_rollout_file;
use serve::{Server, request};

struct Baseline(Child);

impl Drop for Baseline {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Latencies of one phase and its wall time.
#[derive(Default)]
struct Phase {
    latencies: Vec<Duration>,
    wall: Duration,
}

/// Sends up to `count` requests (cycling through `bodies`) from `clients` threads, for at
/// most `limit`; every answer must be 200.
fn load(
    addr: SocketAddr,
    bodies: &[String],
    count: usize,
    clients: usize,
    limit: Duration,
) -> Phase {
    let next = AtomicUsize::new(0);
    let latencies = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..clients {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count || start.elapsed() > limit {
                        break;
                    }
                    let body = &bodies[i % bodies.len()];
                    let t = Instant::now();
                    let reply =
                        request(addr, "POST", "/run", &[], body.as_bytes()).expect("request");
                    let took = t.elapsed();
                    assert_eq!(
                        reply.status,
                        200,
                        "{}",
                        String::from_utf8_lossy(&reply.body)
                    );
                    latencies.lock().expect("lock").push(took);
                }
            });
        }
    });
    Phase {
        latencies: latencies.into_inner().expect("lock"),
        wall: start.elapsed(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// requests/s, p50 ms, p99 ms, n over all phases of one side.
fn summary(phases: &[Phase]) -> (f64, f64, f64, usize) {
    let mut all: Vec<Duration> = phases.iter().flat_map(|p| p.latencies.clone()).collect();
    all.sort();
    let wall: f64 = phases.iter().map(|p| p.wall.as_secs_f64()).sum();
    (
        all.len() as f64 / wall,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        all.len(),
    )
}

fn main() -> anyhow::Result<()> {
    let data = common::shared_data();
    let api_doc = data.join("se-bench/api_doc.jsonl");
    let api = ApiMap::load(&api_doc)?;
    let loaded = load_rollout_file(&data.join("parity/rollouts.jsonl"))?;
    let verdicts = common::parity_verdicts(&data)?;
    // Programs that run and end: a timeout costs 3 s either way and says nothing.
    let bodies: Vec<String> = common::executing(&loaded.rollouts, &verdicts)
        .into_iter()
        .map(|r| serde_json::json!({ "code": prepare(r).program }).to_string())
        .take(300)
        .collect();
    let sebx_n = common::env_num("SEBX_BENCH_N", 600);
    let baseline_n = common::env_num("SEBX_BENCH_BASELINE_N", 80);
    let clients = common::env_num("SEBX_BENCH_CLIENTS", 4);
    let limit = Duration::from_secs(common::env_num("SEBX_BENCH_SECS", 40) as u64);

    let runtime = find_runtime()?;
    let zwc_root = ensure_zwc_package(&api, &cache_dir().join("zwc"))?;
    let server = Server::start_with_api(&api_doc, &["-q", "--queue", "256"]);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/official_sandbox.py");
    let home = tempfile::tempdir()?;
    let mut child = Command::new(&runtime.python)
        .arg(&script)
        .args(["serve", "--python"])
        .arg(&runtime.python)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LC_CTYPE", "C.UTF-8")
        .env("HOME", home.path())
        .env("PYTHONPATH", &zwc_root)
        .env("OPENBLAS_NUM_THREADS", "1")
        .env("OMP_NUM_THREADS", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first)?;
    let baseline = Baseline(child);
    let baseline_addr: SocketAddr = first
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| anyhow::anyhow!("baseline did not start: {first:?}"))?
        .parse()?;
    println!(
        "POST /run: {} distinct programs (parity rollouts, real zwc), {clients} concurrent clients, loopback; \
         sebx serve with {} workers",
        bodies.len(),
        server.get("/healthz").json()["workers"]
    );

    // Warm-up: page cache, worker start-up.
    let _ = load(server.addr, &bodies, 2 * clients, clients, limit);
    let _ = load(baseline_addr, &bodies, clients, clients, limit);
    let mut sebx_phases = Vec::new();
    let mut baseline_phases = Vec::new();
    for _round in 0..2 {
        baseline_phases.push(load(
            baseline_addr,
            &bodies,
            baseline_n / 2,
            clients,
            limit / 2,
        ));
        sebx_phases.push(load(server.addr, &bodies, sebx_n / 2, clients, limit / 2));
    }
    drop(baseline);
    let (b_rps, b_p50, b_p99, b_n) = summary(&baseline_phases);
    let (s_rps, s_p50, s_p99, s_n) = summary(&sebx_phases);
    println!(
        "baseline (fresh python main.py per request): {b_rps:8.1} req/s  p50 {b_p50:7.1} ms  p99 {b_p99:7.1} ms  ({b_n} requests)"
    );
    println!(
        "sebx serve (warm sandboxed pool):            {s_rps:8.1} req/s  p50 {s_p50:7.1} ms  p99 {s_p99:7.1} ms  ({s_n} requests)"
    );
    println!(
        "ratio: {:.1}x the baseline's requests/s (target >= 20x); sebx p99 {s_p99:.1} ms vs baseline p50 {b_p50:.1} ms (target: below) -> {}",
        s_rps / b_rps,
        if s_p99 < b_p50 { "met" } else { "NOT met" }
    );
    // What serving costs: the same programs through a pool of the same size in this
    // process, no HTTP, the next program queued while one runs (as `sebx grade` does).
    let workers = server.get("/healthz").json()["workers"]
        .as_u64()
        .unwrap_or(2) as usize;
    drop(server);
    let programs: Vec<String> = bodies
        .iter()
        .map(|b| {
            serde_json::from_str::<serde_json::Value>(b).expect("body")["code"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let engine = sebx::grade::engine::Engine::start(&api, workers)?;
    let t = Instant::now();
    let _ = common::pipelined(&engine, &programs, workers, |_| ());
    let pool_rate = programs.len() as f64 / t.elapsed().as_secs_f64();
    println!(
        "the pool alone (same programs, {workers} workers, in process, no HTTP): {pool_rate:.1} programs/s \
         = {:.1}x the baseline, the ceiling of any server in front of it; serving keeps {:.0}% of it",
        pool_rate / b_rps,
        100.0 * s_rps / pool_rate
    );
    Ok(())
}
