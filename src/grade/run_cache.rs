//! Program runs remembered across sessions, keyed by what decides them: the assembled
//! program (code and test inputs) and the settings it runs under, not the rollout's text.
//! A rollout the score cache does not know (new prose, another file, another step of a
//! training run) whose program ran before is graded without running anything: the static
//! checks and the comparison take a fraction of a millisecond in Rust.
//!
//! The runs sit beside the score cache in its [`Store`], a namespace per grader version and
//! zwc mapping (`<grader>-<api>-runs`), each run filed as it arrives and evicted with the
//! reports when the store outgrows its limit. [`CachedRunner`] puts the cache in front of
//! any [`ProgramRunner`] and counts what it answered.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Result;
use sha2::{Digest, Sha256};

use crate::grade::grader::{ProgramRunner, RunOutput, RunSession};
use crate::grade::reward::Scorer;
use crate::grade::settings::GradingSettings;
use crate::grade::store::{Store, Table, hex, namespace, pack, unpack};
use crate::model::ApiMap;

/// One grader version's and mapping's remembered program runs under one set of settings.
pub struct RunCache {
    table: Table,
    /// What the settings add to every key (their fingerprint, the scorer left out: a run
    /// does not depend on which scorer reads it).
    settings: String,
}

impl std::fmt::Debug for RunCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunCache")
            .field("path", &self.table.path())
            .field("namespace", &self.table.namespace())
            .finish()
    }
}

impl RunCache {
    /// Opens (creating) the run cache for `api` under `dir`, for runs under `settings`.
    pub fn open(dir: &Path, api: &ApiMap, settings: &GradingSettings) -> Result<RunCache> {
        Ok(RunCache::on(Store::open(dir)?, api, settings))
    }

    /// The run cache for `api` and `settings` in `store` (the score cache's own).
    pub(crate) fn on(store: Arc<Store>, api: &ApiMap, settings: &GradingSettings) -> RunCache {
        RunCache {
            table: Table::new(store, format!("{}-runs", namespace(api))),
            settings: settings.clone().with_scorer(Scorer::Verdict).fingerprint(),
        }
    }

    /// The database the runs live in.
    pub fn path(&self) -> &Path {
        self.table.path()
    }

    /// The namespace of this grader's and mapping's runs in [`RunCache::path`].
    pub fn namespace(&self) -> &str {
        self.table.namespace()
    }

    /// How many runs the namespace holds (under any settings).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of `program` run with `timeout` under this cache's settings.
    pub fn key(&self, program: &str, timeout: Duration) -> String {
        let mut hasher = Sha256::new();
        hasher.update(program.as_bytes());
        hasher.update([0u8]);
        hasher.update(timeout.as_nanos().to_le_bytes());
        hasher.update(self.settings.as_bytes());
        hex(&hasher.finalize())
    }

    /// The remembered run of `program` with `timeout`, if there is one.
    pub fn get(&self, program: &str, timeout: Duration) -> Option<RunOutput> {
        let stored = self.table.get(&self.key(program, timeout))?;
        serde_json::from_slice(&unpack(&stored)?).ok()
    }

    /// Remembers the run of `program` with `timeout`.
    pub fn put(&self, program: &str, timeout: Duration, run: &RunOutput) -> Result<()> {
        // Packed: a run's output is most of it, and compresses several times.
        self.table.put(
            &self.key(program, timeout),
            &pack(&serde_json::to_vec(run)?),
        )
    }
}

/// `inner` with `cache` in front: a remembered program is answered from the cache, any
/// other runs on `inner` and is remembered. Failures to run are not remembered.
pub struct CachedRunner<'a> {
    inner: &'a dyn ProgramRunner,
    cache: &'a RunCache,
    /// False: every program runs (a regrade asked for), and is remembered.
    answer: bool,
    answered: AtomicUsize,
}

impl<'a> CachedRunner<'a> {
    pub fn new(inner: &'a dyn ProgramRunner, cache: &'a RunCache) -> CachedRunner<'a> {
        CachedRunner {
            inner,
            cache,
            answer: true,
            answered: AtomicUsize::new(0),
        }
    }

    /// Runs every program on `inner`, remembering each run, answering none from `cache`.
    pub fn remembering(inner: &'a dyn ProgramRunner, cache: &'a RunCache) -> CachedRunner<'a> {
        CachedRunner {
            answer: false,
            ..CachedRunner::new(inner, cache)
        }
    }

    fn known(&self, program: &str, timeout: Duration) -> Option<RunOutput> {
        let run = self
            .answer
            .then(|| self.cache.get(program, timeout))
            .flatten()?;
        self.answered.fetch_add(1, Ordering::Relaxed);
        Some(run)
    }

    /// Programs answered from the cache so far (none of them ran).
    pub fn answered(&self) -> usize {
        self.answered.load(Ordering::Relaxed)
    }

    fn remember(&self, program: &str, timeout: Duration, run: &Result<RunOutput>) {
        if let Ok(run) = run {
            // A cache that cannot be written only costs a run next time.
            let _ = self.cache.put(program, timeout, run);
        }
    }
}

impl ProgramRunner for CachedRunner<'_> {
    fn run_program(&self, program: &str, timeout: Duration) -> Result<RunOutput> {
        if let Some(run) = self.known(program, timeout) {
            return Ok(run);
        }
        let run = self.inner.run_program(program, timeout);
        self.remember(program, timeout, &run);
        run
    }

    fn session(&self) -> Option<Box<dyn RunSession + '_>> {
        let inner = self.inner.session()?;
        Some(Box::new(CachedSession {
            runner: self,
            inner,
            queue: VecDeque::new(),
        }))
    }
}

/// `inner`, with the run cache in front when there is one: what every front end that grades
/// builds, so none of them has to match on whether the cache is there.
pub struct Remembered<'a> {
    inner: &'a dyn ProgramRunner,
    cached: Option<CachedRunner<'a>>,
}

impl<'a> Remembered<'a> {
    /// `inner` behind `runs`: answering remembered programs from it when `answer` (else
    /// running every program and only remembering it, as for a regrade); `inner` alone
    /// without runs.
    pub fn new(inner: &'a dyn ProgramRunner, runs: Option<&'a RunCache>, answer: bool) -> Self {
        let cached = runs.map(|runs| {
            if answer {
                CachedRunner::new(inner, runs)
            } else {
                CachedRunner::remembering(inner, runs)
            }
        });
        Remembered { inner, cached }
    }

    /// Programs answered from the cache so far (none of them ran).
    pub fn answered(&self) -> usize {
        self.cached.as_ref().map_or(0, CachedRunner::answered)
    }

    fn runner(&self) -> &dyn ProgramRunner {
        match &self.cached {
            Some(cached) => cached,
            None => self.inner,
        }
    }
}

impl ProgramRunner for Remembered<'_> {
    fn run_program(&self, program: &str, timeout: Duration) -> Result<RunOutput> {
        self.runner().run_program(program, timeout)
    }

    fn session(&self) -> Option<Box<dyn RunSession + '_>> {
        self.runner().session()
    }
}

/// A session whose remembered programs are answered in place, in submission order.
struct CachedSession<'r, 'a> {
    runner: &'r CachedRunner<'a>,
    inner: Box<dyn RunSession + 'r>,
    queue: VecDeque<Queued>,
}

enum Queued {
    Known(RunOutput),
    /// Sent to the inner session; remembered when it answers.
    Sent(String, Duration),
}

impl RunSession for CachedSession<'_, '_> {
    fn submit(&mut self, program: &str, timeout: Duration) {
        match self.runner.known(program, timeout) {
            Some(run) => self.queue.push_back(Queued::Known(run)),
            None => {
                self.inner.submit(program, timeout);
                self.queue
                    .push_back(Queued::Sent(program.to_string(), timeout));
            }
        }
    }

    fn next_result(&mut self) -> Option<Result<RunOutput>> {
        match self.queue.pop_front()? {
            Queued::Known(run) => Some(Ok(run)),
            Queued::Sent(program, timeout) => {
                let run = self
                    .inner
                    .next_result()
                    .unwrap_or_else(|| Err(anyhow::anyhow!("the run was lost")));
                self.runner.remember(&program, timeout, &run);
                Some(run)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counting(AtomicUsize);

    impl ProgramRunner for Counting {
        fn run_program(&self, program: &str, _timeout: Duration) -> Result<RunOutput> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Ok(RunOutput {
                stdout: format!("ran {}\n", program.len()),
                ..RunOutput::default()
            })
        }
    }

    fn api() -> ApiMap {
        let mut api = ApiMap::default();
        api.numpy_to_zwc.insert("mean".into(), "kocito".into());
        api
    }

    #[test]
    fn remembered_answers_only_with_runs_and_when_asked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = GradingSettings::official();
        let t = settings.timeout;
        let inner = Counting(AtomicUsize::new(0));
        // No runs: every program runs on `inner`.
        let alone = Remembered::new(&inner, None, true);
        alone.run_program("print(1)\n", t).expect("run");
        alone.run_program("print(1)\n", t).expect("run");
        assert_eq!((inner.0.load(Ordering::Relaxed), alone.answered()), (2, 0));
        let cache = RunCache::open(dir.path(), &api(), &settings).expect("open");
        // Remembering only (a regrade): runs again, but the run is kept for later.
        let regrade = Remembered::new(&inner, Some(&cache), false);
        regrade.run_program("print(1)\n", t).expect("run");
        regrade.run_program("print(1)\n", t).expect("run");
        assert_eq!(
            (inner.0.load(Ordering::Relaxed), regrade.answered()),
            (4, 0)
        );
        let reuse = Remembered::new(&inner, Some(&cache), true);
        reuse.run_program("print(1)\n", t).expect("run");
        reuse.run_program("print(1)\n", t).expect("run");
        reuse.run_program("print(2)\n", t).expect("run");
        assert_eq!((inner.0.load(Ordering::Relaxed), reuse.answered()), (5, 2));
    }

    #[test]
    fn a_program_runs_once_across_sessions_and_settings_keep_runs_apart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = GradingSettings::official();
        let t = settings.timeout;
        let inner = Counting(AtomicUsize::new(0));
        {
            let cache = RunCache::open(dir.path(), &api(), &settings).expect("open");
            let runner = CachedRunner::new(&inner, &cache);
            let a = runner.run_program("print(1)\n", t).expect("run");
            let b = runner.run_program("print(1)\n", t).expect("run");
            assert_eq!(a, b);
            assert_eq!(inner.0.load(Ordering::Relaxed), 1);
            assert_eq!(runner.answered(), 1);
        }
        // Reopened (a new session): still known, under the same settings only.
        let cache = RunCache::open(dir.path(), &api(), &settings).expect("reopen");
        let runner = CachedRunner::new(&inner, &cache);
        runner.run_program("print(1)\n", t).expect("run");
        assert_eq!(inner.0.load(Ordering::Relaxed), 1);
        runner
            .run_program("print(1)\n", Duration::from_secs(5))
            .expect("run");
        assert_eq!(inner.0.load(Ordering::Relaxed), 2, "another timeout runs");
        // The scorer does not change a run.
        let reward = RunCache::open(
            dir.path(),
            &api(),
            &settings.clone().with_scorer(Scorer::Both),
        )
        .expect("open");
        let runner = CachedRunner::new(&inner, &reward);
        runner.run_program("print(1)\n", t).expect("run");
        assert_eq!(inner.0.load(Ordering::Relaxed), 2);
        runner.run_program("print(2)\n", t).expect("run");
        assert_eq!(inner.0.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn failures_are_not_remembered_and_an_unreadable_run_is_a_miss() {
        struct Failing;
        impl ProgramRunner for Failing {
            fn run_program(&self, _: &str, _: Duration) -> Result<RunOutput> {
                anyhow::bail!("worker lost")
            }
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = GradingSettings::official();
        let t = settings.timeout;
        let cache = RunCache::open(dir.path(), &api(), &settings).expect("open");
        let runner = CachedRunner::new(&Failing, &cache);
        assert!(runner.run_program("x\n", t).is_err());
        assert!(cache.is_empty());
        cache
            .put("y\n", t, &RunOutput::default())
            .expect("remembered");
        // A value that is not a run (another version's layout, a damaged record): a miss,
        // and the next put replaces it.
        cache
            .table
            .put(&cache.key("z\n", t), b"{\"stdout\": 7")
            .expect("raw put");
        drop(cache);
        let cache = RunCache::open(dir.path(), &api(), &settings).expect("reopen");
        assert_eq!(cache.len(), 2);
        assert!(cache.get("y\n", t).is_some());
        assert!(cache.get("z\n", t).is_none());
        cache.put("z\n", t, &RunOutput::default()).expect("put");
        let cache = RunCache::open(dir.path(), &api(), &settings).expect("reopen");
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get("z\n", t), Some(RunOutput::default()));
    }
}
