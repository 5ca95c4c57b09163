//! Where one program's time goes when sebx grades: the parts of a graded rollout's life,
//! each measured on its own in one run over the parity corpus's executing rollouts
//! (timeouts left out), so the next speed-up is aimed, not guessed.
//!
//! - Rust, before the run: extraction, static checks, assembly (`prepare`), one core.
//! - Rust, after the run: splitting and comparing the printed results (`finish`), one core.
//! - The pool's round trip for a program that does nothing (`pass`): JSON request, writing
//!   `main.py`, pipes, the fork, the child's set-up (descriptors, rlimits, environment,
//!   stdio), compiling and running an empty module, exit, reaping, capture, the answer.
//! - The real programs through the pool: the same round trip plus the program's own work.
//! - The programs' compile alone (Python's `compile`, in the grader's Python), and their
//!   run outside any sandbox in one warm interpreter (`exec` of each compiled program with
//!   stdout to a buffer): the Python work a fork cannot avoid.
//! - CPU of the workers and their programs (`/proc/<pid>/stat`: utime, stime, and the
//!   children's) against wall time, so the kernel's share (fork, faults, exit) is visible.
//!
//! `cargo bench --bench grade_breakdown` (uses ../shared/data; SEBX_BENCH_JOBS sets the
//! workers, default `sebx grade`'s; SEBX_BENCH_ROUNDS the passes over the programs, 2).

#[path = "common/mod.rs"]
mod common;

use std::path::Path;
use std::time::Instant;

use sebx::cli::grade::default_jobs;
use sebx::grade::engine::Engine;
use sebx::grade::grader::{RunOutput, finish, prepare};
use sebx::grade::pool::PROFILE_PHASES;
use sebx::model::ApiMap;
use sebx::model::rollout::load_rollout_file;

/// The numeric fields of `/proc/<which>/stat` after the command name (which may hold
/// spaces: it ends at the last ')'), from the state on; unparsable ones are 0.
fn stat_fields(which: &str) -> Vec<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{which}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    rest.split_whitespace()
        .map(|f| f.parse::<f64>().unwrap_or(0.0))
        .collect()
}

/// Clock ticks per second.
fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 { t as f64 } else { 100.0 }
}

/// utime, stime, cutime, cstime of `pid` in seconds, and its own and its reaped children's
/// minor faults (fields 14-17, 10 and 12 of stat(5); here from the state, field 3, on).
fn cpu_of(pid: u32) -> [f64; 6] {
    let f = stat_fields(&pid.to_string());
    let get = |i: usize| f.get(i).copied().unwrap_or(0.0);
    let tick = clock_ticks();
    [
        get(11) / tick,
        get(12) / tick,
        get(13) / tick,
        get(14) / tick,
        get(7),
        get(8),
    ]
}

/// This process's user and system CPU seconds.
fn own_cpu() -> (f64, f64) {
    let c = stat_fields("self");
    let tick = clock_ticks();
    (
        c.get(11).copied().unwrap_or(0.0) / tick,
        c.get(12).copied().unwrap_or(0.0) / tick,
    )
}

/// CPU of every worker and its reaped programs, summed: (user, system, minor faults,
/// the workers' own minor faults).
fn workers_cpu(engine: &Engine) -> (f64, f64, f64, f64) {
    engine
        .pool()
        .worker_pids()
        .into_iter()
        .map(cpu_of)
        .fold((0.0, 0.0, 0.0, 0.0), |(u, s, f, w), c| {
            (u + c[0] + c[2], s + c[1] + c[3], f + c[4] + c[5], w + c[4])
        })
}

/// Runs `programs` through the pool on `jobs` sessions; (wall seconds, outputs in order).
fn run_all(engine: &Engine, programs: &[String], jobs: usize) -> (f64, Vec<RunOutput>) {
    let t = Instant::now();
    let outputs = common::pipelined(engine, programs, jobs, |r| match r {
        Ok(o) => RunOutput {
            stdout: o.stdout,
            stderr: o.stderr,
            timed_out: o.timed_out,
            elapsed: o.elapsed,
            exit_code: o.exit_code,
            contained: o.contained,
            zwc_calls: o.zwc_calls,
        },
        Err(e) => RunOutput {
            stderr: format!("{e:#}"),
            ..Default::default()
        },
    });
    (t.elapsed().as_secs_f64(), outputs)
}

struct Pass {
    wall: f64,
    user: f64,
    system: f64,
    own_user: f64,
    own_system: f64,
    inside: f64,
    faults: f64,
    worker_faults: f64,
}

fn measured(engine: &Engine, programs: &[String], jobs: usize, rounds: usize) -> Pass {
    let (u0, s0, f0, w0) = workers_cpu(engine);
    let (ou0, os0) = own_cpu();
    let mut wall = 0.0;
    let mut inside = 0.0;
    for _ in 0..rounds {
        let (w, outs) = run_all(engine, programs, jobs);
        wall += w;
        inside += outs.iter().map(|o| o.elapsed.as_secs_f64()).sum::<f64>();
    }
    let (u1, s1, f1, w1) = workers_cpu(engine);
    let (ou1, os1) = own_cpu();
    let n = (programs.len() * rounds) as f64;
    Pass {
        wall: wall / n,
        user: (u1 - u0) / n,
        system: (s1 - s0) / n,
        own_user: (ou1 - ou0) / n,
        own_system: (os1 - os0) / n,
        inside: inside / n,
        faults: (f1 - f0) / n,
        worker_faults: (w1 - w0) / n,
    }
}

fn ms(s: f64) -> String {
    format!("{:.3} ms", s * 1e3)
}

fn main() -> anyhow::Result<()> {
    let data = common::shared_data();
    let api = ApiMap::load(&data.join("se-bench/api_doc.jsonl"))?;
    let loaded = load_rollout_file(&data.join("parity/rollouts.jsonl"))?;
    let jobs = common::env_num("SEBX_BENCH_JOBS", default_jobs());
    let rounds = common::env_num("SEBX_BENCH_ROUNDS", 2usize);
    let verdicts = common::parity_verdicts(&data)?;
    let sample = common::executing(&loaded.rollouts, &verdicts);
    println!(
        "{} executing parity rollouts (timeouts left out), {} workers, {} rounds",
        sample.len(),
        jobs,
        rounds
    );

    // Rust before the run.
    let t = Instant::now();
    let mut prepared = Vec::new();
    for _ in 0..rounds {
        prepared = sample.iter().map(|r| prepare(r)).collect::<Vec<_>>();
    }
    let prepare_each = t.elapsed().as_secs_f64() / (rounds * sample.len()) as f64;
    let programs: Vec<String> = prepared.iter().map(|p| p.program.clone()).collect();
    let bytes: usize = programs.iter().map(|p| p.len()).sum();
    // SEBX_BENCH_DUMP=DIR: the programs as files, for experiments outside the pool.
    if let Ok(dir) = std::env::var("SEBX_BENCH_DUMP") {
        std::fs::create_dir_all(&dir)?;
        for (i, program) in programs.iter().enumerate() {
            std::fs::write(Path::new(&dir).join(format!("{i:04}.py")), program)?;
        }
        println!("programs written to {dir}");
        return Ok(());
    }

    let engine = Engine::start(&api, jobs)?;
    // Warm-up: every worker up, the page cache hot.
    let _ = run_all(&engine, &programs[..programs.len().min(8)], jobs);

    let empty: Vec<String> = vec!["pass\n".to_string(); programs.len()];
    let idle = measured(&engine, &empty, jobs, rounds);
    let real = measured(&engine, &programs, jobs, rounds);
    let (_, outputs) = run_all(&engine, &programs, jobs);

    // Rust after the run.
    let t = Instant::now();
    for _ in 0..rounds {
        for ((r, p), o) in sample.iter().zip(&prepared).zip(&outputs) {
            std::hint::black_box(finish(r, p.clone(), o));
        }
    }
    let finish_each = t.elapsed().as_secs_f64() / (rounds * sample.len()) as f64;
    // `finish` takes the Prepared by value: the clone is not part of grading.
    let t = Instant::now();
    for _ in 0..rounds {
        for p in &prepared {
            std::hint::black_box(p.clone());
        }
    }
    let clone_each = t.elapsed().as_secs_f64() / (rounds * sample.len()) as f64;
    let finish_each = (finish_each - clone_each).max(0.0);

    // The programs' Python work outside the pool, in one warm interpreter.
    let python_parts = python_parts(&engine, &programs)?;
    drop(engine);
    // The phases, from the marks a profiling worker sets (a pool of its own: the marks
    // cost a little, so the figures above are taken without them).
    // SAFETY: set before any thread of this process reads the environment again.
    unsafe { std::env::set_var("SEBX_POOL_PROFILE", "1") };
    let profiling = Engine::start(&api, jobs)?;
    unsafe { std::env::remove_var("SEBX_POOL_PROFILE") };
    let _ = run_all(&profiling, &programs[..programs.len().min(8)], jobs);
    let empty_phases = phases(&profiling, &empty, jobs);
    let real_phases = phases(&profiling, &programs, jobs);
    drop(profiling);

    let per_core = |p: &Pass| p.wall * jobs as f64;
    println!("\nper program, averaged (wall × workers = the core time each program holds):");
    println!(
        "  Rust prepare (extract, static checks, assemble), 1 core  {}",
        ms(prepare_each)
    );
    println!(
        "  Rust finish (split, compare, report), 1 core             {}",
        ms(finish_each)
    );
    println!(
        "  pool round trip, empty program: wall × workers {}; worker+program CPU user {} sys {}; sebx threads {} + {}; fork→end in the worker {}; {:.0} minor faults ({:.0} of them the worker's own)",
        ms(per_core(&idle)),
        ms(idle.user),
        ms(idle.system),
        ms(idle.own_user),
        ms(idle.own_system),
        ms(idle.inside),
        idle.faults,
        idle.worker_faults
    );
    println!(
        "  pool round trip, real programs: wall × workers {}; worker+program CPU user {} sys {}; sebx threads {} + {}; fork→end in the worker {}; {:.0} minor faults ({:.0} of them the worker's own)",
        ms(per_core(&real)),
        ms(real.user),
        ms(real.system),
        ms(real.own_user),
        ms(real.own_system),
        ms(real.inside),
        real.faults,
        real.worker_faults
    );
    println!(
        "  their Python alone (one warm interpreter, no fork): compile {}, run {} ({} bytes of source each on average)",
        ms(python_parts.0),
        ms(python_parts.1),
        bytes / programs.len().max(1)
    );
    let own = (real.user + real.system) - (idle.user + idle.system);
    println!(
        "  → the program's own share of worker CPU {} ({:.0}%), the fixed per-program cost {} ({:.0}%)",
        ms(own),
        100.0 * own / (real.user + real.system),
        ms(idle.user + idle.system),
        100.0 * (idle.user + idle.system) / (real.user + real.system)
    );
    println!(
        "  rate through the pool alone: {:.1} programs/s (empty: {:.1}/s)",
        1.0 / real.wall,
        1.0 / idle.wall
    );
    println!("\nphases (wall, mean per program, from the worker's marks): empty / real programs");
    for (i, name) in PHASES.iter().enumerate() {
        println!(
            "  {name:<46} {:>9}  {:>9}",
            ms(empty_phases[i]),
            ms(real_phases[i])
        );
    }
    let sum = |p: &[f64]| p.iter().sum::<f64>();
    println!(
        "  {:<46} {:>9}  {:>9}",
        "all",
        ms(sum(&empty_phases)),
        ms(sum(&real_phases))
    );
    Ok(())
}

/// The phases printed, as spans between the worker's marks (`PROFILE_PHASES`).
const PHASES: [&str; 11] = [
    "previous answer sent, until this request parsed",
    "main.py written (mkdir, write)",
    "before the fork (cgroup count, pipes, random)",
    "fork, until the program process runs",
    "program set-up (fds, rlimits, stdio, module)",
    "compile main.py",
    "run and exit steps (atexit, flush, gc)",
    "exit until the worker sees it (teardown)",
    "output read, reaped, namespace checked",
    "clean-up and result built",
    "the answer sent (JSON header, write)",
];

/// Mean seconds of each of [`PHASES`] over `programs`, run with profiling on.
fn phases(engine: &Engine, programs: &[String], jobs: usize) -> Vec<f64> {
    // Per worker (each takes a contiguous part): the answer's sending is read off the
    // next result of the same worker.
    let chunk = programs.len().div_ceil(jobs.max(1)).max(1);
    let all = common::pipelined(engine, programs, jobs, |r| {
        r.ok().and_then(|o| o.profile).unwrap_or_default()
    });
    let marks: Vec<&[Vec<f64>]> = all.chunks(chunk).collect();
    let mut sums = vec![0.0; PHASES.len()];
    let mut counts = vec![0usize; PHASES.len()];
    for worker in marks {
        for (k, m) in worker.iter().enumerate() {
            if m.len() < PROFILE_PHASES.len() {
                continue;
            }
            let span =
                |from: usize, to: usize| (m[from] > 0.0 && m[to] > 0.0).then(|| m[to] - m[from]);
            // The answer's sending: from this result built to the next one's "sent" mark.
            let sent = worker
                .get(k + 1)
                .filter(|n| n.len() >= PROFILE_PHASES.len() && n[0] > 0.0)
                .map(|n| n[0] - m[11])
                .filter(|_| m[11] > 0.0);
            let spans = [
                span(0, 1).filter(|_| k > 0),
                span(1, 2),
                span(2, 3),
                span(3, 4),
                span(4, 5),
                span(5, 6),
                span(6, 8),
                span(8, 9),
                span(9, 10),
                span(10, 11),
                sent,
            ];
            for (i, v) in spans.into_iter().enumerate() {
                if let Some(v) = v {
                    sums[i] += v;
                    counts[i] += 1;
                }
            }
        }
    }
    sums.iter()
        .zip(&counts)
        .map(|(s, &c)| if c > 0 { s / c as f64 } else { 0.0 })
        .collect()
}

/// Mean seconds per program to compile, and to run (compiled, stdout to a buffer, in a
/// fresh module namespace of one warm interpreter), over `programs`.
fn python_parts(engine: &Engine, programs: &[String]) -> anyhow::Result<(f64, f64)> {
    let dir = tempfile::tempdir()?;
    let list = dir.path().join("programs.json");
    std::fs::write(&list, serde_json::to_vec(programs)?)?;
    let script = r#"
import io, json, sys, time, contextlib
import numpy, zwc
programs = json.load(open(sys.argv[1]))
codes = []
t = time.perf_counter()
for src in programs:
    codes.append(compile(src, "main.py", "exec"))
compile_s = (time.perf_counter() - t) / len(programs)
t = time.perf_counter()
for code in codes:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        try:
            exec(code, {"__name__": "__main__"})
        except BaseException:
            pass
run_s = (time.perf_counter() - t) / len(programs)
print(json.dumps([compile_s, run_s]))
"#;
    let out = std::process::Command::new(engine.python())
        .arg("-c")
        .arg(script)
        .arg(&list)
        .env("PYTHONPATH", engine.zwc_root())
        .current_dir(dir.path())
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or("");
    let v: (f64, f64) = serde_json::from_str(last).map_err(|e| {
        anyhow::anyhow!(
            "python parts: {e}: {last:?} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    Ok(v)
}
