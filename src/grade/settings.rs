//! The grading settings: everything besides the rollout, the API doc and the grader's code
//! that decides a verdict. The wall-clock timeout, the sandbox (resource limits,
//! isolation, capture caps, how programs exit) and the scorer. The score cache keys its
//! records by [`GradingSettings::fingerprint`], so a verdict graded under other settings is
//! a miss, never a hit; front ends build one value and grade with it (the pool's
//! configuration comes from [`GradingSettings::pool_config`]). The number of workers is
//! not a setting: it changes how fast, not what.
//!
//! Also the parser of `--timeout` for every command that has it ([`parse_timeout`]).

use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::grade::pool::{OFFICIAL_TIMEOUT, PoolConfig, SandboxLimits};
use crate::grade::reward::Scorer;

/// What of the pool's configuration can change a verdict (all but the worker count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Per-program resource limits (memory, file size, open files, CPU, processes).
    pub limits: SandboxLimits,
    /// Namespaces on (network, mount, pid).
    pub isolate: bool,
    /// Bytes of stdout and of stderr kept per program.
    pub capture_cap: usize,
    /// Programs exit through the interpreter's full finalization.
    pub full_interpreter_exit: bool,
}

impl SandboxSettings {
    /// The sandbox of `config`.
    pub fn of_pool(config: &PoolConfig) -> SandboxSettings {
        SandboxSettings {
            limits: config.limits.clone(),
            isolate: config.isolate,
            capture_cap: config.capture_cap,
            full_interpreter_exit: config.full_interpreter_exit,
        }
    }
}

impl Default for SandboxSettings {
    /// The pool's defaults.
    fn default() -> Self {
        SandboxSettings::of_pool(&PoolConfig::with_workers(1))
    }
}

/// What one grading computes: the scorers, and whether the behaviour questions are asked
/// of what they pay. A bare [`Scorer`] asks none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Plan {
    pub scorer: Scorer,
    pub behaviour: bool,
}

impl From<Scorer> for Plan {
    fn from(scorer: Scorer) -> Plan {
        Plan {
            scorer,
            behaviour: false,
        }
    }
}

/// How rollouts are graded: the settings that decide a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GradingSettings {
    /// Wall-clock limit per program.
    pub timeout: Duration,
    pub sandbox: SandboxSettings,
    /// Which official scorers grade (what a report carries).
    pub scorer: Scorer,
    /// Ask the behaviour questions of every rollout a scorer pays (two traced runs more,
    /// `grade::trace::grading`). Not in the fingerprint: it adds to a report and changes
    /// no verdict, and a report without the answers says so (`Facts::behaviour`).
    pub behaviour: bool,
}

impl Default for GradingSettings {
    fn default() -> Self {
        GradingSettings::official()
    }
}

impl GradingSettings {
    /// The official grading: 3 s, the default sandbox, the evaluation judge's verdict.
    pub fn official() -> GradingSettings {
        GradingSettings {
            timeout: OFFICIAL_TIMEOUT,
            sandbox: SandboxSettings::default(),
            scorer: Scorer::Verdict,
            behaviour: false,
        }
    }

    pub fn with_timeout(mut self, timeout: Duration) -> GradingSettings {
        self.timeout = timeout;
        self
    }

    pub fn with_scorer(mut self, scorer: Scorer) -> GradingSettings {
        self.scorer = scorer;
        self
    }

    pub fn with_behaviour(mut self, behaviour: bool) -> GradingSettings {
        self.behaviour = behaviour;
        self
    }

    /// What grading does under these settings besides running programs.
    pub fn plan(&self) -> Plan {
        Plan {
            scorer: self.scorer,
            behaviour: self.behaviour,
        }
    }

    pub fn with_sandbox(mut self, sandbox: SandboxSettings) -> GradingSettings {
        self.sandbox = sandbox;
        self
    }

    /// The pool configuration that grades under these settings with `workers` workers.
    pub fn pool_config(&self, workers: usize) -> PoolConfig {
        let mut config = PoolConfig::with_workers(workers);
        config.limits = self.sandbox.limits.clone();
        config.isolate = self.sandbox.isolate;
        config.capture_cap = self.sandbox.capture_cap;
        config.full_interpreter_exit = self.sandbox.full_interpreter_exit;
        config
    }

    /// Whether a run under `other` gives the same verdicts as one under these settings:
    /// all but the scorer agree (the scorer decides what a report carries, not its verdict).
    pub fn runs_like(&self, other: &GradingSettings) -> bool {
        self.timeout == other.timeout && self.sandbox == other.sandbox
    }

    /// Every setting, in a stable text form (what [`GradingSettings::fingerprint`] hashes).
    pub fn describe(&self) -> String {
        let SandboxSettings {
            limits,
            isolate,
            capture_cap,
            full_interpreter_exit,
        } = &self.sandbox;
        let SandboxLimits {
            address_space,
            file_size,
            open_files,
            cpu_seconds,
            max_processes,
        } = limits;
        format!(
            "timeout_ns={} scorer={} address_space={address_space} file_size={file_size} \
             open_files={open_files} cpu_seconds={cpu_seconds} max_processes={max_processes} \
             isolate={isolate} capture_cap={capture_cap} full_interpreter_exit={full_interpreter_exit}",
            self.timeout.as_nanos(),
            self.scorer.as_str(),
        )
    }

    /// A short, stable hash of every setting: equal exactly when the settings are.
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::digest(self.describe().as_bytes());
        crate::model::rollout::hex(&digest[..8])
    }
}

/// The longest `--timeout` taken: a day.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// `--timeout SECONDS`: a positive, finite number of seconds, at most [`MAX_TIMEOUT`]
/// (clap's value parser for every command that has the flag).
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds (e.g. 3 or 0.5)"))?;
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!(
            "the timeout must be a positive number of seconds, found {text}"
        ));
    }
    let timeout = Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| *d <= MAX_TIMEOUT)
        .ok_or_else(|| {
            format!(
                "the timeout must be at most {} seconds, found {text}",
                MAX_TIMEOUT.as_secs()
            )
        })?;
    if timeout.is_zero() {
        return Err(format!(
            "the timeout must be a positive number of seconds, found {text}"
        ));
    }
    Ok(timeout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_in_the_fingerprint() {
        let base = GradingSettings::official();
        assert_eq!(base.fingerprint(), GradingSettings::default().fingerprint());
        assert_eq!(base.fingerprint().len(), 16);
        let mut others = vec![
            base.clone().with_timeout(Duration::from_secs(10)),
            base.clone()
                .with_timeout(Duration::from_nanos(3_000_000_001)),
            base.clone().with_scorer(Scorer::Both),
            base.clone().with_scorer(Scorer::Reward),
        ];
        let sandbox = |change: &dyn Fn(&mut SandboxSettings)| {
            let mut s = base.clone();
            change(&mut s.sandbox);
            s
        };
        others.push(sandbox(&|s| s.limits.address_space /= 2));
        others.push(sandbox(&|s| s.limits.file_size += 1));
        others.push(sandbox(&|s| s.limits.open_files = 64));
        others.push(sandbox(&|s| s.limits.cpu_seconds = 1));
        others.push(sandbox(&|s| s.limits.max_processes = 8));
        others.push(sandbox(&|s| s.isolate = false));
        others.push(sandbox(&|s| s.capture_cap = 4096));
        others.push(sandbox(&|s| s.full_interpreter_exit = true));
        let mut seen = std::collections::HashSet::new();
        seen.insert(base.fingerprint());
        for other in &others {
            assert!(
                seen.insert(other.fingerprint()),
                "a fingerprint repeats: {}",
                other.describe()
            );
        }
        // Only the scorer leaves the run alike.
        assert!(base.runs_like(&others[2]));
        assert!(!base.runs_like(&others[0]));
        assert!(!base.runs_like(&others[4]));
    }

    #[test]
    fn the_pool_is_configured_from_the_settings() {
        let settings = GradingSettings::official();
        assert_eq!(settings.pool_config(3), PoolConfig::with_workers(3));
        let mut sandbox = SandboxSettings {
            capture_cap: 4096,
            ..SandboxSettings::default()
        };
        sandbox.limits.max_processes = 9;
        let config = settings.with_sandbox(sandbox.clone()).pool_config(2);
        assert_eq!(config.workers, 2);
        assert_eq!(SandboxSettings::of_pool(&config), sandbox);
    }

    #[test]
    fn timeouts_are_positive_finite_seconds() {
        assert_eq!(parse_timeout("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_timeout("0.25"), Ok(Duration::from_millis(250)));
        for bad in ["-1", "0", "-0", "nan", "inf", "1e-12", "1e30", "", "soon"] {
            assert!(parse_timeout(bad).is_err(), "{bad} was taken");
        }
        let e = parse_timeout("-1").expect_err("negative");
        assert!(e.contains("positive") && e.contains("-1"), "{e}");
    }
}
