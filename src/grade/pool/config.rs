//! What a pool is given: the number of workers, the per-program resource limits
//! ([`SandboxLimits`]) and how output is captured ([`PoolConfig`]), and the official
//! timeout.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The official wall-clock limit per program.
pub const OFFICIAL_TIMEOUT: Duration = Duration::from_secs(3);

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

/// How to start a `Pool`.
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
