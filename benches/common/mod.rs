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

/// A NumPy reference solution in zwc: the import swapped and every `np.<name>(` of `api`
/// replaced by its zwc name (longer names first, so `np.cumsum` is not taken for a prefix).
pub fn translate(code: &str, api: &sebx::model::ApiMap) -> String {
    let mut out = code.replace("import numpy as np", "import zwc");
    let mut names: Vec<(&String, &String)> = api.numpy_to_zwc.iter().collect();
    names.sort_by_key(|(np, _)| std::cmp::Reverse(np.len()));
    for (np, zwc) in names {
        out = out.replace(&format!("{np}("), &format!("{zwc}("));
    }
    out
}

/// Programs that no test and no tuning of the pool saw: every single-function task's NumPy
/// reference (`se-bench/single_test.jsonl`) translated to zwc, and per task one seeded
/// mutation of it (a NumPy name on zwc, `.tolist()` on what the last call returns, a
/// number in the code changed), each assembled with the task's test cases as the grader
/// assembles a rollout's code.
pub fn fresh_programs(
    data: &std::path::Path,
    api: &sebx::model::ApiMap,
    seed: u64,
) -> anyhow::Result<Vec<String>> {
    use sebx::analysis::assemble::{assemble_program, rewrite_cases};
    let mut dataset = sebx::model::Dataset::default();
    dataset.load_file(&data.join("se-bench/single_test.jsonl"))?;
    let mut items: Vec<_> = dataset.items.values().collect();
    items.sort_by_key(|i| i.line);
    let mut rng = sebx::model::sampling::SplitMix64::new(seed);
    let mut programs = Vec::new();
    for item in items {
        let Some(reference) = item.reference.first() else {
            continue;
        };
        let entry = item
            .function_name
            .trim_start_matches("def ")
            .split('(')
            .next()
            .unwrap_or("solve")
            .trim()
            .to_string();
        let mut right = translate(reference, api);
        if !right.ends_with('\n') {
            right.push('\n');
        }
        let first = item.selected_functions.first().cloned().unwrap_or_default();
        let mutated = match rng.below(3) {
            0 => right.replacen("zwc.", &format!("zwc.{first}_"), 1),
            1 => {
                right
                    .replace("\n    return ", "\n    return (")
                    .replacen(")\n", ")).tolist()\n", 1)
            }
            _ => match right.find(|c: char| c.is_ascii_digit()) {
                Some(at) => format!("{}{}{}", &right[..at], 1 + rng.below(9), &right[at + 1..]),
                None => right.replacen("zwc.", &format!("zwc.{first}_"), 1),
            },
        };
        let cases = rewrite_cases(&item.test_cases);
        for code in [right, mutated] {
            programs.push(assemble_program(&code, &entry, &cases));
        }
    }
    Ok(programs)
}

/// `benches/fork_floor.py` on `programs`, `jobs` processes each forking for its share;
/// the seconds from the start signal until the last one is done (their imports excluded).
/// `own_sessions`: each process leads a session of its own, as each sebx worker does (a
/// scheduler autogroup each, which matters only when other work competes for the cores).
pub fn fork_floor(
    programs: &[String],
    python: &std::path::Path,
    zwc_root: &std::path::Path,
    jobs: usize,
    own_sessions: bool,
) -> anyhow::Result<f64> {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir()?;
    for (i, program) in programs.iter().enumerate() {
        std::fs::write(dir.path().join(format!("{i:05}.py")), program)?;
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fork_floor.py");
    let mut children = Vec::new();
    for k in 0..jobs {
        let mut child = std::process::Command::new(python)
            .arg(&script)
            .arg(dir.path())
            .arg(k.to_string())
            .arg(jobs.to_string())
            .env("PYTHONPATH", zwc_root)
            .env("OPENBLAS_NUM_THREADS", "1")
            .env(
                "SEBX_FLOOR_OWN_SESSION",
                if own_sessions { "1" } else { "0" },
            )
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()?;
        let mut out = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        out.read_line(&mut line)?;
        anyhow::ensure!(
            line.trim() == "ready",
            "fork_floor.py did not start: {line:?}"
        );
        children.push((child, out));
    }
    let t = std::time::Instant::now();
    for (child, _) in &mut children {
        child.stdin.as_mut().expect("piped").write_all(b"go\n")?;
    }
    for (mut child, mut out) in children {
        let mut line = String::new();
        out.read_line(&mut line)?;
        child.wait()?;
        anyhow::ensure!(
            line.trim().parse::<f64>().is_ok(),
            "fork_floor.py failed: {line:?}"
        );
    }
    Ok(t.elapsed().as_secs_f64())
}

/// Runs every program as `python main.py` in a fresh directory, `jobs` at a time, with
/// zwc on PYTHONPATH and stdout/stderr captured (as the official worker runs them).
/// Returns the wall-clock seconds.
pub fn run_baseline(
    programs: &[String],
    python: &std::path::Path,
    zwc_root: &std::path::Path,
    jobs: usize,
) -> f64 {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let t = std::time::Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(program) = programs.get(i) else {
                        break;
                    };
                    let Ok(dir) = tempfile::tempdir() else { break };
                    let file = dir.path().join("main.py");
                    if std::fs::write(&file, program).is_err() {
                        break;
                    }
                    let _ = std::process::Command::new(python)
                        .arg("main.py")
                        .current_dir(dir.path())
                        .env("PYTHONPATH", zwc_root)
                        .stdin(std::process::Stdio::null())
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .output();
                }
            });
        }
    });
    t.elapsed().as_secs_f64()
}
