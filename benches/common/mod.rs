//! What several benchmarks share (each uses a part of it).
#![allow(dead_code)]

/// A field of `/proc/self/status` in KB (`VmRSS:`, `VmHWM:`); 0 where there is none.
pub fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

/// `name` from the environment as a number, else `default`.
pub fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}

/// The shared data folder (`../shared/data` beside the crate).
pub fn shared_data() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// The parity corpus's official verdicts, one JSON value per line, in line order.
pub fn parity_verdicts(data: &std::path::Path) -> anyhow::Result<Vec<serde_json::Value>> {
    Ok(
        std::fs::read_to_string(data.join("parity/official_verdicts.jsonl"))?
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    )
}

/// The rollouts the official judge did not see loop forever (a timeout costs 3 s either way
/// and would only hide the difference).
pub fn ending<'a>(
    rollouts: &'a [sebx::model::Rollout],
    verdicts: &[serde_json::Value],
) -> Vec<&'a sebx::model::Rollout> {
    rollouts
        .iter()
        .zip(verdicts)
        .filter(|(_, v)| v["variant"] != "infinite_loop")
        .map(|(r, _)| r)
        .collect()
}

/// Of [`ending`], those that reach execution (past the static checks): what the official
/// execution model runs.
pub fn executing<'a>(
    rollouts: &'a [sebx::model::Rollout],
    verdicts: &[serde_json::Value],
) -> Vec<&'a sebx::model::Rollout> {
    ending(rollouts, verdicts)
        .into_iter()
        .filter(|r| sebx::grade::grader::prepare(r).early_verdict.is_none())
        .collect()
}

/// Runs `programs` through `engine`'s pool on one session per worker, the next program
/// queued while one runs as `sebx grade` does ([`sebx::grade::pool::Pool::run_all`]); each
/// result mapped by `map`, in program order.
pub fn pipelined<T: Send>(
    engine: &sebx::grade::engine::Engine,
    programs: &[String],
    workers: usize,
    map: impl Fn(anyhow::Result<sebx::grade::pool::ExecOutcome>) -> T,
) -> Vec<T> {
    engine
        .pool()
        .run_all(programs, std::time::Duration::from_secs(3), workers)
        .into_iter()
        .map(map)
        .collect()
}
