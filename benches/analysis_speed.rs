//! Static analysis speed over the whole parity corpus (../shared/data/parity) on one core:
//! prints the per-rollout median and the total, and fails when the total reaches a second.
//! Times are this thread's CPU time (so other load on the machine does not count), with
//! the wall-clock total alongside.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use sebx::analysis::analyze_rollout;
use sebx::model::ApiMap;
use sebx::model::rollout::load_rollout_file;

/// CPU time consumed by this thread so far.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn main() -> ExitCode {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let api = match ApiMap::load(&data.join("se-bench/api_doc.jsonl")) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cannot load the API doc: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    let loaded = match load_rollout_file(&data.join("parity/rollouts.jsonl")) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot load the parity corpus: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut times: Vec<Duration> = Vec::with_capacity(loaded.rollouts.len());
    let mut findings = 0usize;
    let wall = Instant::now();
    for r in &loaded.rollouts {
        let t = thread_cpu_time();
        let a = analyze_rollout(r, &api, None);
        times.push(thread_cpu_time().saturating_sub(t));
        findings += a.code.findings.len() + a.code.graph.nodes.len();
    }
    let wall = wall.elapsed();
    let total: Duration = times.iter().sum();
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let max = times.last().copied().unwrap_or_default();
    println!(
        "analysis_speed: {} rollouts, CPU median {:.1} µs, max {:.1} µs, total {:.1} ms (wall {:.1} ms; {findings} findings+nodes)",
        times.len(),
        median.as_secs_f64() * 1e6,
        max.as_secs_f64() * 1e6,
        total.as_secs_f64() * 1e3,
        wall.as_secs_f64() * 1e3
    );
    if total >= Duration::from_secs(1) {
        eprintln!("too slow: the whole corpus must take well under a second");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
