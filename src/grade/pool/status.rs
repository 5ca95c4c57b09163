//! What `sebx runtime status` says about running programs: the Python runtime found, the
//! cache folder, and which sandbox protections hold here (probed with a one-worker pool).

use anyhow::Result;

use super::config::PoolConfig;
use super::report::SandboxReport;
use super::run::Pool;
use crate::grade::runtime::PythonRuntime;

/// Starts a one-worker pool without zwc to see which protections hold here.
pub fn probe_sandbox(runtime: &PythonRuntime) -> Result<SandboxReport> {
    let pool = Pool::start_inner(runtime, None, PoolConfig::with_workers(1))?;
    Ok(pool.sandbox_report())
}

/// What will run programs and why, plus the sandbox capabilities of this machine; and
/// whether a runtime was found (`sebx runtime status` exits non-zero without one).
pub fn status() -> (Vec<String>, bool) {
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
        (lines, true)
    } else {
        lines.push("Sandbox: not probed (no runtime)".to_string());
        (lines, false)
    }
}

/// What will run programs and why, plus the sandbox capabilities of this machine.
pub fn status_lines() -> Vec<String> {
    status().0
}
