//! One worker process: started by the pool's [`Launcher`] (`py/worker.py` through
//! `py/boot.py`, a scrubbed environment, its own process group and pids cgroup, its stdout
//! read by a thread of its own), waited for until it reports ready, then sent programs and
//! read results from, and killed with its cgroup when dropped. The sandbox itself is set up
//! by the worker.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use super::cgroups::{Cgroups, kill_cgroup, remove_pool_cgroups};
use super::config::PoolConfig;
use super::protocol::{Message, WireReady, read_worker_messages};
use super::report::ExecOutcome;
use crate::grade::runtime::PythonRuntime;

/// The worker program, written next to the pool's logs at start.
const WORKER_PY: &str = include_str!("../py/worker.py");
/// What starts it (`python -c BOOT_PY worker.py CONFIG`): worker.py compiled in a
/// short-lived child, so the parser's garbage is not in every program's fork.
const BOOT_PY: &str = include_str!("../py/boot.py");

/// How long a worker may take to import NumPy and zwc and report ready.
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// Extra time past the program timeout before a silent worker counts as wedged.
const WEDGED_GRACE: Duration = Duration::from_secs(15);
/// How often a waiting run checks that its worker is still alive.
const EXIT_POLL: Duration = Duration::from_millis(50);

static POOL_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

/// The folders (and cgroups) of this process's pools that were not dropped: what
/// [`remove_leftovers`] removes on the way out. A pool kept in a static, or one still
/// grading on a thread when the explorer quits, is never dropped.
static LIVE_POOLS: std::sync::Mutex<Vec<(PathBuf, Option<PathBuf>)>> =
    std::sync::Mutex::new(Vec::new());

/// Removes the folders and cgroups of this process's pools that are still there: called
/// as sebx exits (its workers end as their stdin closes; a cgroup's processes are
/// killed). Those of processes that died unannounced are swept when the next pool starts.
pub fn remove_leftovers() {
    let live = std::mem::take(&mut *LIVE_POOLS.lock().unwrap_or_else(|e| e.into_inner()));
    for (dir, cgroup) in live {
        if let Some(cgroup) = cgroup {
            remove_pool_cgroups(&cgroup);
        }
        let _ = fs::remove_dir_all(&dir);
    }
}

/// Starts the workers of one pool.
pub(super) struct Launcher {
    python: PathBuf,
    pub(super) dir: PathBuf,
    pub(super) worker_py: PathBuf,
    zwc_root: Option<PathBuf>,
    pub(super) config: PoolConfig,
    env: BTreeMap<String, String>,
    pub(super) cgroups: Cgroups,
    next_id: AtomicUsize,
}

impl Launcher {
    pub(super) fn new(
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
        LIVE_POOLS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((dir.clone(), cgroups.pool_dir().map(Path::to_path_buf)));
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

    /// Removes the pool's cgroups and folder (the pool is dropped): not left for
    /// [`remove_leftovers`].
    pub(super) fn remove(&self) {
        self.cgroups.remove_all();
        let _ = fs::remove_dir_all(&self.dir);
        LIVE_POOLS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(dir, _)| *dir != self.dir);
    }

    pub(super) fn spawn(&self) -> Result<StartingWorker> {
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
            // Per-phase timestamps in every result (benches/grade_breakdown.rs).
            "profile": std::env::var("SEBX_POOL_PROFILE").is_ok_and(|v| v == "1"),
        });
        let mut child = Command::new(&self.python)
            .arg("-c")
            .arg(BOOT_PY)
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

pub(super) struct StartingWorker {
    worker: Worker,
}

impl StartingWorker {
    pub(super) fn wait_ready(self) -> Result<(Worker, WireReady)> {
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

pub(super) struct Worker {
    pub(super) id: usize,
    pub(super) child: Child,
    /// The process that runs programs: `child`, or its child in a pid namespace of
    /// its own (then `child` only waits for it and dies with it, and it with `child`).
    pub(super) pid: u32,
    pub(super) stdin: Option<ChildStdin>,
    messages: Receiver<Message>,
    cgroup: Option<PathBuf>,
    log_path: PathBuf,
}

impl Worker {
    pub(super) fn execute(&mut self, program: &str, timeout: Duration) -> Result<ExecOutcome> {
        self.send(program, timeout)?;
        self.result(timeout)
    }

    /// Sends one request; the worker reads it when it is free (it keeps a request
    /// that arrives while a program runs).
    /// On the wire: a line `<length> <timeout seconds>`, then the program's UTF-8 bytes.
    pub(super) fn send(&mut self, program: &str, timeout: Duration) -> Result<()> {
        let mut request = format!("{} {}\n", program.len(), timeout.as_secs_f64()).into_bytes();
        request.extend_from_slice(program.as_bytes());
        let stdin = self.stdin.as_mut().context("worker stdin closed")?;
        stdin
            .write_all(&request)
            .and_then(|()| stdin.flush())
            .with_context(|| format!("cannot send the program{}", self.log_tail()))
    }

    /// The result of the oldest request not yet answered, whose program has started
    /// by now at the latest (results come in order).
    pub(super) fn result(&mut self, timeout: Duration) -> Result<ExecOutcome> {
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
                zwc_calls: result.zwc_calls,
                profile: result.profile,
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

/// Paths go to the worker as JSON text (a path that is not UTF-8 would make
/// serde fail; such a path is not usable by the worker anyway).
fn lossy(path: &Path) -> String {
    path.to_string_lossy().into_owned()
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
