//! One grader for every front end: the CLI's rerun, the explorer and its reruns ask for a
//! [`Grader`] here, which checks the API doc and the Python runtime, starts the engine on
//! first use (so a window opens at once) and says why grading is unavailable as a typed
//! [`Unavailable`] rather than a sentence to search.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use std::time::Duration;

use anyhow::{Result, bail};

use super::engine::Engine;
use super::grader::{ProgramRunner, RunOutput};
use super::report::GradeReport;
use super::reruns::with_code;
use super::reward::Scorer;
use super::run_cache::Remembered;
use super::runtime::find_runtime;
use super::score_cache::{Batched, ScoreCache};
use super::scoring::{Scored, grade_scored};
use super::settings::GradingSettings;
use crate::model::bounded::Bounded;
use crate::model::{ApiMap, Rollout};

/// Why a front end cannot grade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// No API doc: the zwc runtime is generated from it.
    NoApiDoc,
    /// No Python runtime with NumPy 2.3.0 is installed (`sebx runtime install`).
    NoRuntime,
    /// The view shows stored verdicts only, by design (presenter, export), with its reason.
    StoredOnly(String),
}

impl Unavailable {
    /// Whether installing the runtime (`sebx runtime install`, `I` in the explorer) fixes it.
    pub fn fixed_by_install(&self) -> bool {
        *self == Unavailable::NoRuntime
    }
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::NoApiDoc => f.write_str("no API doc: pass --api-doc FILE to grade"),
            Unavailable::NoRuntime => f.write_str("no Python runtime: run `sebx runtime install`"),
            Unavailable::StoredOnly(why) => f.write_str(why),
        }
    }
}

/// Something that grades rollouts: the embedded [`Grader`], or a stand-in in tests.
pub trait GradeBackend: Send + Sync {
    fn grade(&self, rollout: &Rollout) -> Result<GradeReport>;

    /// Grades `code` in place of the rollout's extracted code (a what-if). By default the
    /// code replaces the graded block in the response; the embedded grader overrides this.
    fn grade_code(&self, rollout: &Rollout, code: &str) -> Result<GradeReport> {
        self.grade(&with_code(rollout, code))
    }

    /// [`grade`](Self::grade), reusing the output of an identical program this backend ran
    /// before (bulk grading: samples that share their code run it once). Reruns and
    /// regrades asked for one by one call `grade`, which always runs.
    fn grade_shared(&self, rollout: &Rollout) -> Result<GradeReport> {
        self.grade(rollout)
    }

    /// Writes what the backend gathered to remember in batches (bulk grading's verdicts):
    /// called when its queue runs empty.
    fn flush(&self) {}

    /// Runs `code` once under the runtime oracle's tracer on `cases` and settles `findings`
    /// against the run ([`crate::grade::trace::confirm`]); `cache` remembers the trace.
    fn confirm(
        &self,
        _cache: Option<&crate::grade::trace::cache::TraceCache>,
        _code: &str,
        _entry: &str,
        _cases: &[crate::model::TestCase],
        _findings: &[crate::analysis::Finding],
        _keep: &[String],
    ) -> Result<crate::grade::trace::Confirmation> {
        anyhow::bail!("this grader cannot run programs under the tracer")
    }
}

/// Outputs of programs a [`Grader`] ran, by a hash of the program (the most recent kept).
const SHARED_RUNS: usize = 65_536;

/// The embedded grader. The engine (Python workers, zwc package) starts on the first
/// grade, on the calling thread, so front ends open at once.
pub struct Grader {
    api: ApiMap,
    workers: usize,
    engine: OnceLock<Result<Engine, String>>,
    /// How it grades: timeout (the official 3 s unless changed), sandbox, scorers (both by
    /// default: front ends show the reward too). The engine's pool is configured from it.
    settings: GradingSettings,
    /// Where each verdict is remembered (not what-ifs): a row asked for at once, bulk
    /// grading in batches ([`GradeBackend::flush`] writes what has gathered).
    cache: Option<Batched>,
    /// Outputs of the programs run, for [`GradeBackend::grade_shared`].
    runs: Mutex<Bounded<[u8; 32], RunOutput>>,
    /// Programs `grade_shared` executed (the others reused a run).
    executed: AtomicUsize,
}

impl Grader {
    /// A grader for `api` that will start `workers` Python workers when first used.
    pub fn new(api: ApiMap, workers: usize) -> Grader {
        Grader {
            api,
            workers,
            engine: OnceLock::new(),
            settings: Grader::default_settings(),
            cache: None,
            runs: Mutex::new(Bounded::new(SHARED_RUNS)),
            executed: AtomicUsize::new(0),
        }
    }

    /// How a new grader grades: the official timeout and sandbox, both scorers.
    pub fn default_settings() -> GradingSettings {
        GradingSettings::official()
            .with_scorer(Scorer::Both)
            .with_behaviour(true)
    }

    /// The settings this grader grades with (open its score cache with them).
    pub fn settings(&self) -> &GradingSettings {
        &self.settings
    }

    /// Grade with these official scorers.
    pub fn with_scorer(mut self, scorer: Scorer) -> Grader {
        self.settings.scorer = scorer;
        self
    }

    /// Another wall-clock limit per program.
    pub fn with_timeout(mut self, timeout: Duration) -> Grader {
        self.settings.timeout = timeout;
        self
    }

    /// A grader for `api` when one can run here: the API doc is there and a Python runtime
    /// is installed; otherwise why not.
    pub fn discover(api: &ApiMap, workers: usize) -> Result<Grader, Unavailable> {
        if api.is_empty() {
            return Err(Unavailable::NoApiDoc);
        }
        if find_runtime().is_err() {
            return Err(Unavailable::NoRuntime);
        }
        Ok(Grader::new(api.clone(), workers))
    }

    /// Remembers every verdict in `cache`: a row graded alone as it arrives, bulk grading
    /// ([`GradeBackend::grade_shared`]) in batches. A cache opened for settings that do not
    /// run like this grader's ([`ScoreCache::remembers`]) is never written.
    pub fn with_cache(mut self, cache: Option<Arc<ScoreCache>>) -> Grader {
        self.cache = cache.map(Batched::new);
        self
    }

    /// The cache verdicts are remembered in, if it remembers this grader's.
    fn remembering(&self) -> Option<&Batched> {
        self.cache
            .as_ref()
            .filter(|b| b.cache().remembers(&self.settings))
    }

    /// Programs [`GradeBackend::grade_shared`] executed so far (the others reused a run).
    pub fn programs_executed(&self) -> usize {
        self.executed.load(Ordering::Relaxed)
    }

    fn engine(&self) -> Result<&Engine> {
        let engine = self.engine.get_or_init(|| {
            Engine::start_with(&self.api, self.settings.pool_config(self.workers))
                .map_err(|e| format!("{e:#}"))
        });
        match engine {
            Ok(engine) => Ok(engine),
            Err(why) => bail!("the grader could not start: {why}"),
        }
    }
}

impl GradeBackend for Grader {
    fn confirm(
        &self,
        cache: Option<&crate::grade::trace::cache::TraceCache>,
        code: &str,
        entry: &str,
        cases: &[crate::model::TestCase],
        findings: &[crate::analysis::Finding],
        keep: &[String],
    ) -> Result<crate::grade::trace::Confirmation> {
        crate::grade::trace::confirm(self.engine()?, cache, code, entry, cases, findings, keep)
    }

    fn grade(&self, rollout: &Rollout) -> Result<GradeReport> {
        let settings = &self.settings;
        let report = grade_scored(
            rollout,
            settings.plan(),
            None,
            self.engine()?,
            settings.timeout,
        );
        if let Some(batch) = self.remembering() {
            // Written now, after what bulk grading gathered (so that this report is the
            // latest). A cache that cannot be written only costs a regrade next time.
            let _ = batch.put(rollout, &report);
            let _ = batch.flush();
        }
        Ok(report)
    }

    fn grade_shared(&self, rollout: &Rollout) -> Result<GradeReport> {
        let settings = &self.settings;
        let engine = self.engine()?;
        let scored = Scored::prepare(rollout, settings.scorer, None);
        let runs = scored
            .programs()
            .into_iter()
            .map(|program| {
                let key: [u8; 32] = Sha256::digest(program.as_bytes()).into();
                let known = self
                    .runs
                    .lock()
                    .ok()
                    .and_then(|mut runs| runs.get(&key).cloned());
                if let Some(out) = known {
                    return Ok(out);
                }
                // Then the runs remembered across sessions, by program; a run is remembered.
                let runner = Remembered::new(
                    engine,
                    self.remembering().and_then(|b| b.cache().runs()),
                    true,
                );
                let out = runner.run_program(program, settings.timeout)?;
                if runner.answered() == 0 {
                    self.executed.fetch_add(1, Ordering::Relaxed);
                }
                if let Ok(mut runs) = self.runs.lock() {
                    runs.insert(key, out.clone());
                }
                Ok(out)
            })
            .collect();
        let judge_runner = Remembered::new(
            engine,
            self.remembering().and_then(|b| b.cache().runs()),
            true,
        );
        let report = scored.finish_plan(
            rollout,
            runs,
            &judge_runner,
            settings.timeout,
            settings.behaviour,
        );
        if let Some(batch) = self.remembering() {
            let _ = batch.put(rollout, &report);
        }
        Ok(report)
    }

    fn flush(&self) {
        if let Some(batch) = &self.cache {
            // A cache that cannot be written only costs a regrade next time.
            let _ = batch.flush();
        }
    }

    fn grade_code(&self, rollout: &Rollout, code: &str) -> Result<GradeReport> {
        Ok(grade_scored(
            rollout,
            self.settings.plan(),
            Some(code),
            self.engine()?,
            self.settings.timeout,
        ))
    }
}
