//! Warm, sandboxed Python workers that run assembled SE-Bench programs.
//!
//! A [`Pool`] owns long-lived workers (`py/worker.py`) that have imported NumPy and the
//! generated `zwc` already, so a program costs a fork, not an interpreter start. A request
//! is a `<length> <timeout>` line and the program's bytes on the worker's stdin, a result a
//! JSON header line on its stdout followed by the raw stdout and stderr bytes. [`Pool::run`] may be called from many threads: it checks out an
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
//!
//! Its parts, each depending only on those listed after it:
//! - `status`: [`status`], [`status_lines`] and [`probe_sandbox`], what holds on this machine;
//! - `session`: [`Session`], programs pipelined on one worker;
//! - `run`: [`Pool`], starting, checking workers out and in, replacing lost ones;
//! - `worker`: one worker process, its start-up and its requests;
//! - `protocol`: the JSON lines and raw bytes a worker answers with;
//! - `cgroups`: the per-worker pids cgroups, and their clean-up;
//! - `config`: [`PoolConfig`], [`SandboxLimits`] and [`OFFICIAL_TIMEOUT`];
//! - `report`: [`ExecOutcome`] and [`SandboxReport`].

mod cgroups;
mod config;
mod protocol;
mod report;
mod run;
mod session;
mod status;
mod worker;

pub use config::{OFFICIAL_TIMEOUT, PoolConfig, SandboxLimits};
pub use report::{ExecOutcome, PROFILE_PHASES, Protection, SandboxReport};
pub use run::Pool;
pub use session::Session;
pub use status::{probe_sandbox, status, status_lines};
pub use worker::remove_leftovers;
