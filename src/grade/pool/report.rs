//! What a pool reports: the outcome of one program ([`ExecOutcome`]), and which sandbox
//! protections hold on this machine ([`SandboxReport`]).

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

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
    /// How many times zwc's functions ran in the program's processes (`None`: no zwc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zwc_calls: Option<u64>,
    /// With `SEBX_POOL_PROFILE=1` in sebx's environment when the worker started: the
    /// worker's clock (seconds) at each phase of this program, [`PROFILE_PHASES`] in order
    /// (0 where a phase did not happen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Vec<f64>>,
}

/// The phases an [`ExecOutcome::profile`] marks, in order: the end of the previous
/// answer's sending, then the worker's and the program's own steps.
pub const PROFILE_PHASES: [&str; 12] = [
    "previous answer sent",
    "request read",
    "main.py written",
    "fork",
    "program process started",
    "program set up",
    "compiled",
    "ran",
    "exit steps done",
    "worker saw the end",
    "output read, program reaped",
    "result built",
];

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

#[cfg(test)]
mod tests {
    use super::*;

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
