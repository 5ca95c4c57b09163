//! [`Pool`]: the workers started together, checked out and in by the threads that run
//! programs, a lost worker replaced on the next checkout and its program retried once,
//! and everything cleaned up when the pool is dropped.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use super::config::PoolConfig;
use super::report::{ExecOutcome, SandboxReport};
use super::worker::{Launcher, Worker};
use crate::grade::runtime::PythonRuntime;

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

    pub(super) fn start_inner(
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

    pub(super) fn checkout(&self) -> Result<Worker> {
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

    pub(super) fn checkin(&self, worker: Worker) {
        self.lock_slots().idle.push(worker);
        self.available.notify_one();
    }

    /// How many workers were lost and had to be replaced since the pool started
    /// (a replacement starts on the next checkout); for monitoring.
    pub fn workers_lost(&self) -> u64 {
        self.lost.load(Ordering::Relaxed)
    }

    pub(super) fn lost_worker(&self) {
        self.lost.fetch_add(1, Ordering::Relaxed);
        self.lock_slots().missing += 1;
        self.available.notify_one();
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
        self.launcher.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_is_shareable_across_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Pool>();
    }
}
