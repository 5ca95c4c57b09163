//! Warm, sandboxed Python workers that run assembled SE-Bench programs.
//!
//! A [`Pool`] owns long-lived workers (`py/worker.py`) that have imported NumPy and the
//! generated `zwc` already, so a program costs a fork, not an interpreter start. Requests
//! and results are JSON lines on the worker's stdin/stdout (the header is followed by the raw
//! stdout and stderr bytes). [`Pool::run`] may be called from many threads: it checks out an
//! idle worker, and a worker that dies or stops answering is replaced and the program retried
//! once.
//!
//! A program sees what `python main.py` in a fresh folder sees (`__main__`, `sys.argv`,
//! tracebacks naming `main.py`, empty stdin, UTF-8 stdio, the interpreter's exit steps and
//! status), checked on the parity corpus; the timeout kills its whole process tree and
//! reports stdout as `""` (the official rule). README "Known differences" lists what differs.
//!
//! The sandbox is layered and each layer degrades gracefully ([`Pool::sandbox_report`] says
//! which hold): per worker a network namespace without interfaces, a read-only mount
//! namespace with private `/tmp` and `/dev/shm`, a pids cgroup, and where allowed a pid
//! namespace whose pid 1 is the worker (programs are its children and are swept with
//! `kill(-1)` after each run); per program a fresh folder, rlimits and a scrubbed
//! environment. `contained` says which limit stopped a program. Throughput and what each
//! design choice bought: `benches/README.md`.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use crate::grade::runtime::PythonRuntime;

/// The worker program, written next to the pool's logs at start.
const WORKER_PY: &str = include_str!("py/worker.py");

/// The official wall-clock limit per program.
pub const OFFICIAL_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a worker may take to import NumPy and zwc and report ready.
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// Extra time past the program timeout before a silent worker counts as wedged.
const WEDGED_GRACE: Duration = Duration::from_secs(15);
/// How often a waiting run checks that its worker is still alive.
const EXIT_POLL: Duration = Duration::from_millis(50);

static POOL_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

/// Result of running one program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecOutcome {
    /// Captured stdout (lossy UTF-8); `""` after a timeout, as officially.
    pub stdout: String,
    /// Captured stderr (lossy UTF-8), kept after a timeout for diagnosis
    /// (the official grader reports just `TLE` there).
    pub stderr: String,
    /// The program (or something it started) ran past the timeout.
    pub timed_out: bool,
    /// Wall-clock time from start until the run ended or was killed.
    pub elapsed: Duration,
    /// Exit status when the program exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended the program, if one did.
    pub signal: Option<i32>,
    /// Why the sandbox stopped or refused something (`; `-joined reasons).
    pub contained: Option<String>,
    /// Bytes dropped from the middle of stdout to stay under the capture cap.
    pub stdout_omitted: u64,
    /// Bytes dropped from the middle of stderr.
    pub stderr_omitted: u64,
}

/// Resource limits applied to every program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxLimits {
    /// RLIMIT_AS in bytes.
    pub address_space: u64,
    /// RLIMIT_FSIZE in bytes.
    pub file_size: u64,
    /// RLIMIT_NOFILE.
    pub open_files: u64,
    /// RLIMIT_CPU in seconds (raised to at least the timeout plus 2 s).
    pub cpu_seconds: u64,
    /// `pids.max` of each worker's cgroup: processes and threads, worker included.
    pub max_processes: u64,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        SandboxLimits {
            address_space: 4 << 30,
            file_size: 64 << 20,
            open_files: 1024,
            cpu_seconds: 10,
            max_processes: 256,
        }
    }
}

/// How to start a [`Pool`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolConfig {
    /// Number of worker processes (programs run at once).
    pub workers: usize,
    /// Per-program resource limits.
    pub limits: SandboxLimits,
    /// Use namespaces (network, mount, pid); off only for debugging.
    pub isolate: bool,
    /// Bytes of stdout and of stderr kept per program.
    pub capture_cap: usize,
    /// Exit programs through the interpreter's full finalization instead of
    /// the fast exit (see the module docs); ~20 ms slower per program.
    pub full_interpreter_exit: bool,
}

impl PoolConfig {
    /// Defaults with `workers` workers.
    pub fn with_workers(workers: usize) -> PoolConfig {
        PoolConfig {
            workers: workers.max(1),
            limits: SandboxLimits::default(),
            isolate: true,
            capture_cap: 1 << 20,
            full_interpreter_exit: false,
        }
    }
}

/// One protection of the sandbox and whether it holds on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protection {
    /// What it protects against, e.g. `no network`, `process limit`.
    pub name: String,
    /// Whether it is in force.
    pub active: bool,
    /// How it is done, or why it is missing.
    pub detail: String,
}

/// Which protections are active, as the first worker reported them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxReport {
    /// Every protection, active or not.
    pub protections: Vec<Protection>,
}

impl SandboxReport {
    /// Whether the protection called `name` is active.
    pub fn is_active(&self, name: &str) -> bool {
        self.protections.iter().any(|p| p.name == name && p.active)
    }

    /// The protections that are missing.
    pub fn missing(&self) -> Vec<&Protection> {
        self.protections.iter().filter(|p| !p.active).collect()
    }

    /// One line per protection: `[on]  name: detail` or `[off] name: reason`.
    pub fn lines(&self) -> Vec<String> {
        self.protections
            .iter()
            .map(|p| {
                let mark = if p.active { "[on] " } else { "[off]" };
                format!("{mark} {}: {}", p.name, p.detail)
            })
            .collect()
    }
}

impl fmt::Display for SandboxReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in self.lines() {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// A pool of warm, sandboxed Python workers. `Send + Sync`: share it by reference.
pub struct Pool {
    launcher: Launcher,
    slots: Mutex<Slots>,
    available: Condvar,
    report: SandboxReport,
    python_version: String,
    numpy_version: String,
    /// Workers lost (crashed, wedged, dropped mid-session) since the start.
    lost: AtomicU64,
}

struct Slots {
    idle: Vec<Worker>,
    /// Workers lost (crashed, wedged, failed to start) and not yet replaced.
    missing: usize,
}

impl Pool {
    /// Starts `workers` workers with default limits; `zwc_root` is the directory
    /// holding the `zwc` package (see [`crate::grade::zwc_runtime`]).
    pub fn start(runtime: &PythonRuntime, zwc_root: &Path, workers: usize) -> Result<Pool> {
        Pool::start_with(runtime, zwc_root, PoolConfig::with_workers(workers))
    }

    /// Starts a pool with an explicit configuration.
    pub fn start_with(
        runtime: &PythonRuntime,
        zwc_root: &Path,
        config: PoolConfig,
    ) -> Result<Pool> {
        Pool::start_inner(runtime, Some(zwc_root), config)
    }

    fn start_inner(
        runtime: &PythonRuntime,
        zwc_root: Option<&Path>,
        config: PoolConfig,
    ) -> Result<Pool> {
        let zwc_root = match zwc_root {
            Some(root) => {
                if !root.join("zwc").join("__init__.py").is_file() {
                    bail!("no zwc package under {}", root.display());
                }
                Some(fs::canonicalize(root).with_context(|| format!("{}", root.display()))?)
            }
            None => None,
        };
        let launcher = Launcher::new(runtime, zwc_root, config)?;
        // Start every worker first, then wait: their imports overlap.
        let mut starting = Vec::new();
        for _ in 0..launcher.config.workers {
            starting.push(launcher.spawn());
        }
        let mut idle = Vec::new();
        let mut first_error = None;
        let mut ready_info = None;
        for worker in starting {
            match worker.and_then(|w| w.wait_ready()) {
                Ok((worker, ready)) => {
                    ready_info.get_or_insert(ready);
                    idle.push(worker);
                }
                Err(err) => {
                    first_error.get_or_insert(err);
                }
            }
        }
        let Some(ready) = ready_info else {
            return Err(first_error
                .unwrap_or_else(|| anyhow!("no worker started"))
                .context("cannot start the Python workers"));
        };
        let missing = launcher.config.workers - idle.len();
        Ok(Pool {
            launcher,
            slots: Mutex::new(Slots { idle, missing }),
            available: Condvar::new(),
            report: SandboxReport {
                protections: ready.protections,
            },
            python_version: ready.python.unwrap_or_default(),
            numpy_version: ready.numpy.unwrap_or_default(),
            lost: AtomicU64::new(0),
        })
    }

    /// Runs one program (the complete `main.py` text) with a wall-clock `timeout`.
    ///
    /// Errors only when no worker can run it (a worker failing twice in a row,
    /// or workers that cannot be started); everything the program does, including
    /// crashing or hanging, is an [`ExecOutcome`].
    pub fn run(&self, program: &str, timeout: Duration) -> Result<ExecOutcome> {
        let mut last_error = None;
        for _attempt in 0..2 {
            let mut worker = self.checkout()?;
            match worker.execute(program, timeout) {
                Ok(outcome) => {
                    self.checkin(worker);
                    return Ok(outcome);
                }
                Err(err) => {
                    let err = err.context(format!("worker {} failed", worker.id));
                    drop(worker);
                    self.lost_worker();
                    last_error = Some(err);
                }
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow!("no worker available")))
    }

    /// Which sandbox protections are active.
    pub fn sandbox_report(&self) -> SandboxReport {
        self.report.clone()
    }

    /// Number of worker slots.
    pub fn workers(&self) -> usize {
        self.launcher.config.workers
    }

    /// `sys.version` and `numpy.__version__` of the workers.
    pub fn versions(&self) -> (&str, &str) {
        (&self.python_version, &self.numpy_version)
    }

    /// Process ids of the idle workers' processes that run programs (for diagnostics
    /// and tests). Where a worker is its own pid namespace's init, the process sebx
    /// started is that process's parent, which only waits for it.
    pub fn worker_pids(&self) -> Vec<u32> {
        self.lock_slots().idle.iter().map(|w| w.pid).collect()
    }

    /// The path of the worker script; every process of this pool has it on its
    /// command line.
    pub fn worker_script(&self) -> &Path {
        &self.launcher.worker_py
    }

    fn lock_slots(&self) -> MutexGuard<'_, Slots> {
        // A panic while holding the lock cannot leave Slots inconsistent.
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn checkout(&self) -> Result<Worker> {
        let mut slots = self.lock_slots();
        loop {
            if let Some(worker) = slots.idle.pop() {
                return Ok(worker);
            }
            if slots.missing > 0 {
                slots.missing -= 1;
                drop(slots);
                let started = self.launcher.spawn().and_then(|w| w.wait_ready());
                return match started {
                    Ok((worker, _)) => Ok(worker),
                    Err(err) => {
                        self.lost_worker();
                        Err(err.context("cannot start a replacement Python worker"))
                    }
                };
            }
            slots = self
                .available
                .wait(slots)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    fn checkin(&self, worker: Worker) {
        self.lock_slots().idle.push(worker);
        self.available.notify_one();
    }

    /// How many workers were lost and had to be replaced since the pool started
    /// (a replacement starts on the next checkout); for monitoring.
    pub fn workers_lost(&self) -> u64 {
        self.lost.load(Ordering::Relaxed)
    }

    fn lost_worker(&self) {
        self.lost.fetch_add(1, Ordering::Relaxed);
        self.lock_slots().missing += 1;
        self.available.notify_one();
    }
}

/// Programs run one after another on one worker, the next queued while the current
/// one runs, so the worker never waits for the caller in between (the caller grades
/// one result while the worker runs the next program). Results come back in the
/// order the programs were submitted. A worker that fails is replaced and the
/// programs it had not answered are sent again; a program whose worker fails twice
/// while running it gets the error, as with [`Pool::run`].
pub struct Session<'p> {
    pool: &'p Pool,
    worker: Option<Worker>,
    queued: VecDeque<Queued>,
}

struct Queued {
    program: String,
    timeout: Duration,
    sent: bool,
    failures: u32,
}

impl Pool {
    /// A [`Session`] on one worker (checked out when the first program is sent).
    pub fn session(&self) -> Session<'_> {
        Session {
            pool: self,
            worker: None,
            queued: VecDeque::new(),
        }
    }
}

impl Session<'_> {
    /// Queues `program`; its result comes from [`Session::next_result`] in submission order.
    pub fn submit(&mut self, program: &str, timeout: Duration) {
        self.queued.push_back(Queued {
            program: program.to_string(),
            timeout,
            sent: false,
            failures: 0,
        });
        // A failure here shows up (and is handled) in `next_result`.
        let _ = self.send_queued();
    }

    /// The result of the oldest submitted program, or None when none is waiting.
    pub fn next_result(&mut self) -> Option<Result<ExecOutcome>> {
        loop {
            let timeout = self.queued.front()?.timeout;
            let outcome = self
                .send_queued()
                .and_then(|()| match self.worker.as_mut() {
                    Some(worker) => worker.result(timeout),
                    None => Err(anyhow!("no worker available")),
                });
            match outcome {
                Ok(outcome) => {
                    self.queued.pop_front();
                    return Some(Ok(outcome));
                }
                Err(err) => {
                    let id = self.worker.as_ref().map(|w| w.id);
                    if self.worker.take().is_some() {
                        self.pool.lost_worker();
                    }
                    for q in &mut self.queued {
                        q.sent = false;
                    }
                    let head = self.queued.front_mut()?;
                    head.failures += 1;
                    if head.failures >= 2 {
                        self.queued.pop_front();
                        let err = match id {
                            Some(id) => err.context(format!("worker {id} failed")),
                            None => err,
                        };
                        return Some(Err(err));
                    }
                }
            }
        }
    }

    /// Sends every queued program not sent yet, checking a worker out first if needed.
    fn send_queued(&mut self) -> Result<()> {
        if self.queued.iter().all(|q| q.sent) {
            return Ok(());
        }
        if self.worker.is_none() {
            self.worker = Some(self.pool.checkout()?);
        }
        let Some(worker) = self.worker.as_mut() else {
            bail!("no worker available");
        };
        for q in self.queued.iter_mut().filter(|q| !q.sent) {
            worker.send(&q.program, q.timeout)?;
            q.sent = true;
        }
        Ok(())
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if let Some(worker) = self.worker.take() {
            if self.queued.iter().any(|q| q.sent) {
                // Requests still in flight: this worker's answers would go astray.
                drop(worker);
                self.pool.lost_worker();
            } else {
                self.pool.checkin(worker);
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let workers: Vec<Worker> = self.lock_slots().idle.drain(..).collect();
        // Closing stdin first lets every worker clean up in parallel.
        let mut workers: Vec<Worker> = workers
            .into_iter()
            .map(|mut w| {
                w.stdin.take();
                w
            })
            .collect();
        let deadline = Instant::now() + Duration::from_millis(500);
        for w in &mut workers {
            while Instant::now() < deadline {
                if matches!(w.child.try_wait(), Ok(Some(_))) {
                    break;
                }
                thread::sleep(Duration::from_millis(5));
            }
        }
        drop(workers);
        self.launcher.cgroups.remove_all();
        let _ = fs::remove_dir_all(&self.launcher.dir);
    }
}

/// Starts the workers of one pool.
struct Launcher {
    python: PathBuf,
    dir: PathBuf,
    worker_py: PathBuf,
    zwc_root: Option<PathBuf>,
    config: PoolConfig,
    env: BTreeMap<String, String>,
    cgroups: Cgroups,
    next_id: AtomicUsize,
}

impl Launcher {
    fn new(
        runtime: &PythonRuntime,
        zwc_root: Option<PathBuf>,
        config: PoolConfig,
    ) -> Result<Launcher> {
        let seq = POOL_SEQUENCE.fetch_add(1, Ordering::Relaxed);
        remove_stale_pool_dirs();
        let dir = std::env::temp_dir().join(format!("sebx-pool-{}-{seq}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("work"))
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let worker_py = dir.join("worker.py");
        fs::write(&worker_py, WORKER_PY)
            .with_context(|| format!("cannot write {}", worker_py.display()))?;
        let mut path = String::new();
        if let Some(bin) = runtime
            .python
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            path.push_str(&bin.to_string_lossy());
            path.push(':');
        }
        path.push_str("/usr/local/bin:/usr/bin:/bin");
        let env: BTreeMap<String, String> = [
            ("PATH", path.as_str()),
            ("LC_CTYPE", "C.UTF-8"),
            ("OPENBLAS_NUM_THREADS", "1"),
            ("OMP_NUM_THREADS", "1"),
            ("MKL_NUM_THREADS", "1"),
            ("NUMEXPR_NUM_THREADS", "1"),
            ("PYTHONDONTWRITEBYTECODE", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let cgroups = Cgroups::new(seq, config.limits.max_processes);
        Ok(Launcher {
            python: runtime.python.clone(),
            dir,
            worker_py,
            zwc_root,
            config,
            env,
            cgroups,
            next_id: AtomicUsize::new(0),
        })
    }

    fn spawn(&self) -> Result<StartingWorker> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let cgroup = self.cgroups.create(id);
        let log_path = self.dir.join(format!("worker-{id}.log"));
        let log = fs::File::create(&log_path)
            .with_context(|| format!("cannot create {}", log_path.display()))?;
        let mut program_env = self.env.clone();
        program_env.remove("PYTHONDONTWRITEBYTECODE");
        let config = serde_json::json!({
            "zwc_root": self.zwc_root.as_deref().map(lossy),
            "cgroup": cgroup.as_deref().map(lossy),
            "cgroup_problem": self.cgroups.problem(),
            "fallback_work_dir": lossy(&self.dir.join("work").join(format!("w{id}"))),
            "limits": {
                "address_space": self.config.limits.address_space,
                "file_size": self.config.limits.file_size,
                "open_files": self.config.limits.open_files,
                "cpu_seconds": self.config.limits.cpu_seconds,
                "nproc_extra": self.config.limits.max_processes,
            },
            "program_env": program_env,
            "capture_cap": self.config.capture_cap,
            "isolate": self.config.isolate,
            "full_exit": self.config.full_interpreter_exit,
            "probe": self.zwc_root.is_none(),
        });
        let mut child = Command::new(&self.python)
            .arg(&self.worker_py)
            .arg(config.to_string())
            .env_clear()
            .envs(&self.env)
            .env("HOME", &self.dir)
            .current_dir(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            // Its own process group: a terminal's Ctrl-C must not reach programs.
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start {}", self.python.display()))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("worker pipes missing");
        };
        let (sender, receiver) = mpsc::channel();
        thread::Builder::new()
            .name(format!("sebx-worker-{id}"))
            .spawn(move || read_worker_messages(stdout, sender))
            .context("cannot start a reader thread")?;
        Ok(StartingWorker {
            worker: Worker {
                id,
                pid: child.id(),
                child,
                stdin: Some(stdin),
                messages: receiver,
                cgroup,
                log_path,
            },
        })
    }
}

struct StartingWorker {
    worker: Worker,
}

impl StartingWorker {
    fn wait_ready(self) -> Result<(Worker, WireReady)> {
        let worker = self.worker;
        match worker.messages.recv_timeout(READY_TIMEOUT) {
            Ok(Message::Ready(ready)) if ready.ready => {
                let mut worker = worker;
                worker.pid = ready.pid.unwrap_or(worker.pid);
                Ok((worker, ready))
            }
            Ok(Message::Ready(ready)) => Err(anyhow!(
                "worker could not start: {}{}",
                ready.error.unwrap_or_default(),
                worker.log_tail()
            )),
            Ok(_) => Err(anyhow!("worker spoke out of turn{}", worker.log_tail())),
            Err(RecvTimeoutError::Timeout) => Err(anyhow!(
                "worker not ready after {} s{}",
                READY_TIMEOUT.as_secs(),
                worker.log_tail()
            )),
            Err(RecvTimeoutError::Disconnected) => Err(anyhow!(
                "worker exited during start-up{}",
                worker.log_tail()
            )),
        }
    }
}

struct Worker {
    id: usize,
    child: Child,
    /// The process that runs programs: `child`, or its child in a pid namespace of
    /// its own (then `child` only waits for it and dies with it, and it with `child`).
    pid: u32,
    stdin: Option<ChildStdin>,
    messages: Receiver<Message>,
    cgroup: Option<PathBuf>,
    log_path: PathBuf,
}

impl Worker {
    fn execute(&mut self, program: &str, timeout: Duration) -> Result<ExecOutcome> {
        self.send(program, timeout)?;
        self.result(timeout)
    }

    /// Sends one request; the worker reads it when it is free (it keeps a request
    /// that arrives while a program runs).
    fn send(&mut self, program: &str, timeout: Duration) -> Result<()> {
        let request = serde_json::json!({
            "program": program,
            "timeout": timeout.as_secs_f64(),
        });
        let mut line = request.to_string();
        line.push('\n');
        let stdin = self.stdin.as_mut().context("worker stdin closed")?;
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .with_context(|| format!("cannot send the program{}", self.log_tail()))
    }

    /// The result of the oldest request not yet answered, whose program has started
    /// by now at the latest (results come in order).
    fn result(&mut self, timeout: Duration) -> Result<ExecOutcome> {
        match self.receive(timeout + WEDGED_GRACE) {
            Ok(Message::Result(result, stdout, stderr)) => Ok(ExecOutcome {
                stdout: String::from_utf8_lossy(&stdout).into_owned(),
                stderr: String::from_utf8_lossy(&stderr).into_owned(),
                timed_out: result.timed_out,
                elapsed: Duration::from_secs_f64(result.elapsed.max(0.0)),
                exit_code: result.exit_code,
                signal: result.signal,
                contained: (!result.contained.is_empty()).then(|| result.contained.join("; ")),
                stdout_omitted: result.stdout_omitted,
                stderr_omitted: result.stderr_omitted,
            }),
            Ok(Message::Ready(_)) => bail!("worker sent a second ready line"),
            Ok(Message::Broken(why)) => bail!("{why}{}", self.log_tail()),
            Err(RecvTimeoutError::Timeout) => bail!("worker stopped answering (wedged)"),
            Err(RecvTimeoutError::Disconnected) => bail!("worker exited{}", self.log_tail()),
        }
    }

    /// The next message, waiting at most `limit`. A worker that dies is noticed at
    /// once even while a program's namespace init still holds its stdout open.
    fn receive(&mut self, limit: Duration) -> Result<Message, RecvTimeoutError> {
        let deadline = Instant::now() + limit;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(RecvTimeoutError::Timeout);
            }
            match self.messages.recv_timeout((deadline - now).min(EXIT_POLL)) {
                Err(RecvTimeoutError::Timeout) => {
                    if matches!(self.child.try_wait(), Ok(Some(_))) {
                        // A result sent just before the exit still counts.
                        return self
                            .messages
                            .recv_timeout(EXIT_POLL)
                            .map_err(|_| RecvTimeoutError::Disconnected);
                    }
                }
                other => return other,
            }
        }
    }

    fn log_tail(&self) -> String {
        let text = fs::read_to_string(&self.log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(12)..].join("\n");
        if tail.trim().is_empty() {
            String::new()
        } else {
            format!("; worker log {}:\n{tail}", self.log_path.display())
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stdin.take();
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        // The worker's death kills its programs' pid namespaces; the cgroup
        // catches whatever lived outside one.
        if let Some(cgroup) = &self.cgroup {
            kill_cgroup(cgroup);
            let _ = fs::remove_dir(cgroup);
        }
    }
}

#[derive(Debug, Deserialize)]
struct WireReady {
    ready: bool,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    python: Option<String>,
    #[serde(default)]
    numpy: Option<String>,
    /// The process that runs programs (the spawned process itself, or the child it
    /// moved into a pid namespace of its own).
    #[serde(default)]
    pid: Option<u32>,
    #[serde(default)]
    protections: Vec<Protection>,
}

#[derive(Debug, Deserialize)]
struct WireResult {
    timed_out: bool,
    elapsed: f64,
    exit_code: Option<i32>,
    signal: Option<i32>,
    contained: Vec<String>,
    stdout_omitted: u64,
    stderr_omitted: u64,
    stdout_len: usize,
    stderr_len: usize,
}

enum Message {
    Ready(WireReady),
    Result(WireResult, Vec<u8>, Vec<u8>),
    Broken(String),
}

fn read_worker_messages(stdout: std::process::ChildStdout, sender: mpsc::Sender<Message>) {
    let mut reader = BufReader::new(stdout);
    let mut first = true;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(err) => {
                let _ = sender.send(Message::Broken(format!("cannot read from worker: {err}")));
                return;
            }
        }
        let message = if first {
            first = false;
            match serde_json::from_str::<WireReady>(&line) {
                Ok(ready) => Message::Ready(ready),
                Err(err) => Message::Broken(format!("bad ready line from worker: {err}")),
            }
        } else {
            match serde_json::from_str::<WireResult>(&line) {
                Ok(result) => {
                    let mut stdout = vec![0; result.stdout_len];
                    let mut stderr = vec![0; result.stderr_len];
                    if let Err(err) = reader
                        .read_exact(&mut stdout)
                        .and_then(|()| reader.read_exact(&mut stderr))
                    {
                        let _ = sender.send(Message::Broken(format!("truncated result: {err}")));
                        return;
                    }
                    Message::Result(result, stdout, stderr)
                }
                Err(err) => Message::Broken(format!("bad result line from worker: {err}")),
            }
        };
        let broken = matches!(message, Message::Broken(_));
        if sender.send(message).is_err() || broken {
            return;
        }
    }
}

/// Paths go to the worker as JSON text (a path that is not UTF-8 would make
/// serde fail; such a path is not usable by the worker anyway).
fn lossy(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Starts a one-worker pool without zwc to see which protections hold here.
pub fn probe_sandbox(runtime: &PythonRuntime) -> Result<SandboxReport> {
    let pool = Pool::start_inner(runtime, None, PoolConfig::with_workers(1))?;
    Ok(pool.sandbox_report())
}

/// Per-worker pids cgroups under `<own pids cgroup>/sebx-<pid>-<seq>/w<id>`.
struct Cgroups {
    pool_dir: Option<PathBuf>,
    max_processes: u64,
    problem: Option<String>,
}

impl Cgroups {
    fn new(seq: usize, max_processes: u64) -> Cgroups {
        match own_pids_cgroup() {
            Ok(base) => {
                remove_stale_cgroups(&base);
                let pool_dir = base.join(format!("sebx-{}-{seq}", std::process::id()));
                match fs::create_dir_all(&pool_dir) {
                    Ok(()) => Cgroups {
                        pool_dir: Some(pool_dir),
                        max_processes,
                        problem: None,
                    },
                    Err(err) => Cgroups {
                        pool_dir: None,
                        max_processes,
                        problem: Some(format!("cannot create {}: {err}", pool_dir.display())),
                    },
                }
            }
            Err(problem) => Cgroups {
                pool_dir: None,
                max_processes,
                problem: Some(problem),
            },
        }
    }

    fn problem(&self) -> Option<String> {
        self.problem.clone()
    }

    fn create(&self, id: usize) -> Option<PathBuf> {
        let dir = self.pool_dir.as_ref()?.join(format!("w{id}"));
        let _ = fs::create_dir(&dir);
        let ok = fs::write(dir.join("pids.max"), self.max_processes.to_string()).is_ok();
        if ok {
            Some(dir)
        } else {
            let _ = fs::remove_dir(&dir);
            None
        }
    }

    fn remove_all(&self) {
        if let Some(dir) = &self.pool_dir {
            if let Ok(entries) = fs::read_dir(dir) {
                for entry in entries.flatten() {
                    kill_cgroup(&entry.path());
                    let _ = fs::remove_dir(entry.path());
                }
            }
            let _ = fs::remove_dir(dir);
        }
    }
}

/// The pids cgroup this process is in, if it is cgroup v1 and writable, or v2
/// with the pids controller delegated.
fn own_pids_cgroup() -> Result<PathBuf, String> {
    let text = fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next(), parts.next(), parts.next());
        let (Some(controllers), Some(path)) = (controllers, path) else {
            continue;
        };
        if controllers.split(',').any(|c| c == "pids") {
            let dir = Path::new("/sys/fs/cgroup/pids").join(path.trim_start_matches('/'));
            return if dir.join("cgroup.procs").exists() {
                Ok(dir)
            } else {
                Err(format!("pids cgroup {} not mounted", dir.display()))
            };
        }
    }
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("0::") {
            let dir = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
            let subtree =
                fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
            if subtree.split_whitespace().any(|c| c == "pids") {
                return Ok(dir);
            }
            return Err(format!(
                "cgroup v2: the pids controller is not delegated to {}",
                dir.display()
            ));
        }
    }
    Err("no pids cgroup controller".to_string())
}

/// Removes `sebx-pool-<pid>-*` dirs of sebx processes that are gone (a pool
/// kept in a static is never dropped).
fn remove_stale_pool_dirs() {
    let Ok(entries) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("sebx-pool-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Removes empty `sebx-<pid>-*` cgroups left by sebx processes that died.
fn remove_stale_cgroups(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("sebx-") else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if let Ok(children) = fs::read_dir(entry.path()) {
            for child in children.flatten() {
                if child.path().is_dir() {
                    kill_cgroup(&child.path());
                    let _ = fs::remove_dir(child.path());
                }
            }
        }
        let _ = fs::remove_dir(entry.path());
    }
}

/// SIGKILLs every process in `cgroup` until it is empty (bounded).
fn kill_cgroup(cgroup: &Path) {
    for _ in 0..200 {
        let procs = fs::read_to_string(cgroup.join("cgroup.procs")).unwrap_or_default();
        let pids: Vec<i32> = procs
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// What will run programs and why, plus the sandbox capabilities of this machine.
pub fn status_lines() -> Vec<String> {
    let mut lines = Vec::new();
    let runtime = match crate::grade::runtime::find_runtime() {
        Ok(runtime) => {
            lines.push(format!(
                "Python: {} (Python {}, NumPy {}, {})",
                runtime.python.display(),
                runtime.python_version,
                runtime.numpy_version,
                runtime.origin
            ));
            Some(runtime)
        }
        Err(err) => {
            lines.extend(err.to_string().lines().map(|l| format!("Python: {l}")));
            None
        }
    };
    lines.push(format!(
        "Cache: {}",
        crate::grade::runtime::cache_dir().display()
    ));
    if let Some(runtime) = runtime {
        match probe_sandbox(&runtime) {
            Ok(report) => {
                lines.push("Sandbox:".to_string());
                lines.extend(report.lines().into_iter().map(|l| format!("  {l}")));
            }
            Err(err) => lines.push(format!("Sandbox: probe failed: {err:#}")),
        }
    } else {
        lines.push("Sandbox: not probed (no runtime)".to_string());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_is_shareable_across_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Pool>();
    }

    #[test]
    fn report_lines_mark_missing_protections() {
        let report = SandboxReport {
            protections: vec![
                Protection {
                    name: "no network".to_string(),
                    active: true,
                    detail: "private network namespace".to_string(),
                },
                Protection {
                    name: "process limit".to_string(),
                    active: false,
                    detail: "no writable pids cgroup".to_string(),
                },
            ],
        };
        assert_eq!(
            report.lines(),
            vec![
                "[on]  no network: private network namespace",
                "[off] process limit: no writable pids cgroup",
            ]
        );
        assert!(report.is_active("no network"));
        assert!(!report.is_active("process limit"));
        assert_eq!(report.missing().len(), 1);
    }
}
