//! The grading engine: Python runtime + generated zwc package + sandboxed worker pool.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use crate::grade::grader::{ProgramRunner, RunOutput, RunSession};
use crate::grade::pool::{ExecOutcome, Pool, PoolConfig, Session};
use crate::grade::runtime::{PythonRuntime, cache_dir, find_runtime};
use crate::grade::zwc_runtime::ensure_zwc_package;
use crate::model::ApiMap;

/// A started engine; runs programs through warm sandboxed workers.
pub struct Engine {
    runtime: PythonRuntime,
    zwc_root: PathBuf,
    pool: Pool,
    notes: Vec<String>,
}

impl Engine {
    /// Finds the runtime, writes the zwc package for `api` (cached by content) and
    /// starts `workers` warm workers. A missing runtime is an error that names the fix.
    pub fn start(api: &ApiMap, workers: usize) -> Result<Engine> {
        Engine::start_with(api, PoolConfig::with_workers(workers))
    }

    /// [`Engine::start`] with an explicit pool configuration (e.g. a larger capture cap).
    pub fn start_with(api: &ApiMap, config: PoolConfig) -> Result<Engine> {
        let runtime = find_runtime()?;
        let zwc_root = ensure_zwc_package(api, &cache_dir().join("zwc"))?;
        let pool = Pool::start_with(&runtime, &zwc_root, config)?;
        let notes = pool
            .sandbox_report()
            .missing()
            .iter()
            .map(|p| format!("{} is off: {}", p.name, p.detail))
            .collect();
        Ok(Engine {
            runtime,
            zwc_root,
            pool,
            notes,
        })
    }

    /// What the user should know about the sandbox (protections this machine does not allow).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The Python interpreter the workers run.
    pub fn python(&self) -> &Path {
        &self.runtime.python
    }

    /// The folder holding the generated `zwc` package (for `PYTHONPATH`).
    pub fn zwc_root(&self) -> &Path {
        &self.zwc_root
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }
}

impl ProgramRunner for Engine {
    fn run_program(&self, program: &str, timeout: Duration) -> Result<RunOutput> {
        Ok(run_output(self.pool.run(program, timeout)?))
    }

    fn session(&self) -> Option<Box<dyn RunSession + '_>> {
        Some(Box::new(self.pool.session()))
    }
}

impl RunSession for Session<'_> {
    fn submit(&mut self, program: &str, timeout: Duration) {
        Session::submit(self, program, timeout);
    }

    fn next_result(&mut self) -> Option<Result<RunOutput>> {
        Session::next_result(self).map(|r| r.map(run_output))
    }
}

fn run_output(out: ExecOutcome) -> RunOutput {
    RunOutput {
        stdout: out.stdout,
        stderr: out.stderr,
        timed_out: out.timed_out,
        elapsed: out.elapsed,
        exit_code: out.exit_code,
        contained: out.contained,
        zwc_calls: out.zwc_calls,
    }
}
