//! Verdicts remembered across sessions: the explorer, `sebx grade` and `sebx stats` append
//! each report as it arrives to a file in the user cache, one per grader and zwc mapping,
//! so reopening a file shows its verdicts at once instead of grading it again.
//!
//! A cache that cannot lie: a record's key is everything that decides its verdict besides
//! the grader and the mapping, which name the file.
//! - The rollout: its id (a hash of query and response) and a hash of what grading reads
//!   besides the response (test cases, expected result, a training sample's differing `gts`).
//! - The grading settings ([`GradingSettings`]: timeout, sandbox limits and caps, scorer),
//!   by fingerprint. A cache is opened for the settings its front end grades with; a
//!   report graded under other settings is a miss, never a hit. The scorer a record is
//!   filed under is what its report carries (a verdict, a reward, or both), so a lookup
//!   that asks for the reward is never served a verdict-only report, while one that asks
//!   for the verdict may be served a report that has the reward too.
//! - The grader: the file name carries [`grader_version`], a hash `build.rs` computes over
//!   every file under `src/grade/` and `src/analysis/` (the Python worker included), so no
//!   list of sources is kept; test modules are left out, so editing a test keeps the
//!   caches. The rule, which [`source_hash`](super::source_hash) states and a test checks:
//!   a file's `#[cfg(test)] mod tests` comes last, and nothing but tests follows it.
//!
//! A rollout it does not know may still be graded without running anything: the program
//! runs sit beside it, keyed by program and settings ([`RunCache`], [`ScoreCache::runs`]).
//!
//! The file is a [`KeyedLog`]: lines appended whole and flushed, a torn last line cut, only
//! an index kept in memory; reports are read back when asked for.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::grade::keyed_log::KeyedLog;
use crate::grade::report::GradeReport;
use crate::grade::reward::Scorer;
use crate::grade::run_cache::RunCache;
use crate::grade::settings::GradingSettings;
use crate::model::{ApiMap, Rollout};

use crate::grade::keyed_log::short_hex;
pub use crate::grade::keyed_log::{api_hash, grader_version};

/// The part of a cache key that names the rollout: its id and a hash of its test cases and
/// expected results (a record's key adds the settings, [`record_key`]).
pub fn rollout_key(rollout: &Rollout) -> String {
    let mut hasher = Sha256::new();
    for case in rollout.test_cases.iter() {
        hasher.update(case.input.as_bytes());
        hasher.update([0u8]);
        hasher.update(case.output.as_bytes());
        hasher.update([1u8]);
    }
    hasher.update(rollout.right_exe_result.as_bytes());
    // A training sample's differing `gts` is what its reward is scored against.
    if let Some(gts) = rollout
        .sample
        .as_deref()
        .and_then(|m| m.gts_differs.as_deref())
    {
        hasher.update([2u8]);
        hasher.update(gts.as_bytes());
    }
    format!("{}-{}", rollout.id.0, short_hex(&hasher.finalize()))
}

/// The key of `rollout`'s record when graded under `settings`.
pub fn record_key(rollout: &Rollout, settings: &GradingSettings) -> String {
    format!("{}-{}", rollout_key(rollout), settings.fingerprint())
}

/// The scorers whose reports answer a lookup for `asked`: itself first, then the reports
/// that carry more.
fn answering(asked: Scorer) -> &'static [Scorer] {
    match asked {
        Scorer::Verdict => &[Scorer::Verdict, Scorer::Both],
        Scorer::Reward => &[Scorer::Reward, Scorer::Both],
        Scorer::Both => &[Scorer::Both],
    }
}

/// What a report carries, as the scorer that would have produced just that (none: nothing
/// to remember).
pub fn carried(report: &GradeReport) -> Option<Scorer> {
    match (report.verdict.is_some(), report.reward.is_some()) {
        (true, true) => Some(Scorer::Both),
        (true, false) => Some(Scorer::Verdict),
        (false, true) => Some(Scorer::Reward),
        (false, false) => None,
    }
}

/// Where score caches live: `$SEBX_SCORE_CACHE`, else `<cache dir>/sebx/scores`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SEBX_SCORE_CACHE").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    dirs::cache_dir().map(|d| d.join("sebx").join("scores"))
}

/// Removes every score cache under `dir`; returns how many files went.
pub fn clear(dir: &Path) -> Result<usize> {
    let mut removed = 0;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[derive(Serialize, Deserialize)]
struct Record<R> {
    key: String,
    /// The settings the report was graded under, for a reader of the file (the key holds
    /// their fingerprint).
    #[serde(default)]
    settings: String,
    report: R,
}

/// One grader version's and mapping's remembered reports, read and written for one
/// set of grading settings.
pub struct ScoreCache {
    log: KeyedLog,
    settings: GradingSettings,
    /// The program runs beside it ([`RunCache`]), when that file could be opened.
    runs: Option<RunCache>,
}

impl std::fmt::Debug for ScoreCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoreCache")
            .field("path", &self.log.path())
            .field("settings", &self.settings)
            .finish()
    }
}

impl ScoreCache {
    /// Opens (creating) the cache for `api` under `dir`, indexing what it holds, to look up
    /// and remember reports graded under `settings`: the settings the caller grades with.
    pub fn open(dir: &Path, api: &ApiMap, settings: &GradingSettings) -> Result<ScoreCache> {
        let path = dir.join(format!("{}-{}.jsonl", grader_version(), api_hash(api)));
        let log = KeyedLog::open(path, "the score cache")?;
        // Without its runs the cache still answers by rollout.
        let runs = RunCache::open(dir, api, settings).ok();
        Ok(ScoreCache {
            log,
            settings: settings.clone(),
            runs,
        })
    }

    /// The file this cache appends to.
    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// The program runs remembered beside the reports, by program (see [`RunCache`]).
    pub fn runs(&self) -> Option<&RunCache> {
        self.runs.as_ref()
    }

    /// The settings this cache looks up and remembers reports for.
    pub fn settings(&self) -> &GradingSettings {
        &self.settings
    }

    /// Whether reports graded under `settings` may be remembered here: they run like this
    /// cache's settings (the scorer aside, which each record is filed under by itself).
    pub fn remembers(&self, settings: &GradingSettings) -> bool {
        self.settings.runs_like(settings)
    }

    /// How many records the cache holds (under any settings).
    pub fn len(&self) -> usize {
        self.log.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The remembered report of `rollout` graded under this cache's settings and carrying
    /// what their scorer asks for (more is fine), placed at its current file and line.
    pub fn get(&self, rollout: &Rollout) -> Option<GradeReport> {
        answering(self.settings.scorer)
            .iter()
            .find_map(|&scorer| {
                let key = record_key(rollout, &self.settings.clone().with_scorer(scorer));
                let report = self.read(&key)?;
                // The record's own content decides: it must carry what was asked.
                (carried(&report) == Some(scorer)).then_some(report)
            })
            .map(|mut report| {
                report.source = rollout.source.display().to_string();
                report.line = rollout.line;
                report.id = Some(rollout.id.clone());
                report
            })
    }

    fn read(&self, key: &str) -> Option<GradeReport> {
        let record: Record<GradeReport> = serde_json::from_slice(&self.log.read(key)?).ok()?;
        (record.key == key).then_some(record.report)
    }

    /// Remembers `report`, graded under this cache's settings, for `rollout`; it is filed
    /// under the scorer whose output it carries ([`carried`]). A report with neither a
    /// verdict nor a reward is not remembered.
    pub fn put(&self, rollout: &Rollout, report: &GradeReport) -> Result<()> {
        let Some(scorer) = carried(report) else {
            return Ok(());
        };
        let settings = self.settings.clone().with_scorer(scorer);
        let key = record_key(rollout, &settings);
        let line = serde_json::to_vec(&Record {
            key: key.clone(),
            settings: settings.describe(),
            report,
        })?;
        self.log.append(key, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Verdict;
    use crate::model::rollout::parse_rollout_bytes;
    use std::fs::OpenOptions;
    use std::io::Write;

    fn rollout(response: &str, expected: &str) -> Rollout {
        let line = serde_json::json!({
            "query": "q", "response": response,
            "test_cases": [{"input": "a=1", "output": expected}],
            "right_exe_result": expected,
        })
        .to_string();
        parse_rollout_bytes(Path::new("run.jsonl"), line.as_bytes())
            .rollouts
            .into_iter()
            .next()
            .expect("rollout")
    }

    fn official() -> GradingSettings {
        GradingSettings::official()
    }

    fn report(verdict: Verdict) -> GradeReport {
        let mut r = GradeReport::load_failure("elsewhere.jsonl", 9, "");
        r.load_error = None;
        r.verdict = Some(verdict);
        r.decided_by = format!("graded {verdict}");
        r
    }

    #[test]
    fn reports_survive_reopening_and_the_latest_wins() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let a = rollout("A", "1");
        let b = rollout("B", "1");
        {
            let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
            assert!(cache.get(&a).is_none());
            cache.put(&a, &report(Verdict::ExeError)).expect("put");
            cache.put(&a, &report(Verdict::Right)).expect("put");
            cache.put(&b, &report(Verdict::WithoutZwc)).expect("put");
            assert_eq!(cache.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
        }
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert_eq!(cache.len(), 2);
        let got = cache.get(&a).expect("remembered");
        assert_eq!(got.verdict, Some(Verdict::Right));
        // Placed at the rollout's own file and line.
        assert_eq!((got.source.as_str(), got.line), ("run.jsonl", 1));
        assert_eq!(
            cache.get(&b).and_then(|r| r.verdict),
            Some(Verdict::WithoutZwc)
        );
    }

    #[test]
    fn other_test_cases_or_mappings_are_other_keys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        cache
            .put(&rollout("A", "1"), &report(Verdict::Right))
            .expect("put");
        // Same response, other expected result: not the same grading.
        assert!(cache.get(&rollout("A", "2")).is_none());
        let mut other = ApiMap::default();
        other
            .numpy_to_zwc
            .insert("np.mean".to_string(), "zwc.kocito".to_string());
        let cache2 = ScoreCache::open(dir.path(), &other, &official()).expect("open");
        assert_ne!(cache.path(), cache2.path());
        assert!(cache2.get(&rollout("A", "1")).is_none());
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_later_records_still_land() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let a = rollout("A", "1");
        let path = {
            let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
            cache.put(&a, &report(Verdict::Right)).expect("put");
            cache.path().to_path_buf()
        };
        // A crash in the middle of the next record.
        let mut f = OpenOptions::new().append(true).open(&path).expect("open");
        f.write_all(br#"{"key":"torn","report":{"verd"#)
            .expect("write");
        drop(f);
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert_eq!(cache.len(), 1);
        let b = rollout("B", "1");
        cache.put(&b, &report(Verdict::ExeError)).expect("put");
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert_eq!(cache.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
        assert_eq!(
            cache.get(&b).and_then(|r| r.verdict),
            Some(Verdict::ExeError)
        );
    }

    #[test]
    fn unverdicted_reports_are_not_remembered_and_clear_empties() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        let a = rollout("A", "1");
        let mut failed = report(Verdict::Right);
        failed.verdict = None;
        cache.put(&a, &failed).expect("put");
        assert!(cache.get(&a).is_none());
        cache.put(&a, &report(Verdict::Right)).expect("put");
        let runs = cache.runs().expect("the runs beside the reports");
        let t = official().timeout;
        runs.put("print(1)\n", t, &Default::default())
            .expect("run put");
        drop(cache);
        // The reports' file and the runs' file.
        assert_eq!(clear(dir.path()).expect("clear"), 2);
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert!(cache.is_empty());
        assert!(cache.runs().expect("runs").get("print(1)\n", t).is_none());
    }

    /// The bug of issue 20: a verdict graded at a 10 s timeout was served at 3 s.
    #[test]
    fn other_settings_are_a_miss_never_a_hit() {
        use crate::grade::settings::SandboxSettings;
        use std::time::Duration;
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let a = rollout("A", "1");
        let slow = official().with_timeout(Duration::from_secs(10));
        let cache = ScoreCache::open(dir.path(), &api, &slow).expect("open");
        cache.put(&a, &report(Verdict::Right)).expect("put");
        assert_eq!(cache.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
        let at_default = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        assert_eq!(
            at_default.path(),
            cache.path(),
            "one file, keyed by settings"
        );
        assert!(at_default.get(&a).is_none());
        let mut sandbox = SandboxSettings::default();
        sandbox.limits.address_space = 1 << 30;
        let small = official()
            .with_timeout(Duration::from_secs(10))
            .with_sandbox(sandbox);
        let other_limits = ScoreCache::open(dir.path(), &api, &small).expect("open");
        assert!(other_limits.get(&a).is_none());
        // Both verdicts live side by side; each settings see their own.
        at_default.put(&a, &report(Verdict::ExeError)).expect("put");
        let again = ScoreCache::open(dir.path(), &api, &slow).expect("reopen");
        assert_eq!(again.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
        let again = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert_eq!(
            again.get(&a).and_then(|r| r.verdict),
            Some(Verdict::ExeError)
        );
        assert!(again.remembers(&official().with_scorer(Scorer::Both)));
        assert!(!again.remembers(&slow));
    }

    /// Asking for the reward is never answered by a verdict-only report; a report with
    /// the reward too answers a verdict lookup.
    #[test]
    fn a_lookup_is_served_only_reports_that_carry_what_it_asks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let open = |scorer| {
            ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open")
        };
        let (a, b, c) = (rollout("A", "1"), rollout("B", "1"), rollout("C", "1"));
        let verdicts = open(Scorer::Verdict);
        verdicts.put(&a, &report(Verdict::Right)).expect("put");
        let mut both = report(Verdict::ResultError);
        both.reward = Some(1);
        verdicts.put(&b, &both).expect("put");
        let mut reward_only = report(Verdict::Right);
        reward_only.verdict = None;
        reward_only.reward = Some(0);
        verdicts.put(&c, &reward_only).expect("put");

        let as_verdict = open(Scorer::Verdict);
        assert_eq!(
            as_verdict.get(&a).and_then(|r| r.verdict),
            Some(Verdict::Right)
        );
        let got = as_verdict.get(&b).expect("more is fine");
        assert_eq!(
            (got.verdict, got.reward),
            (Some(Verdict::ResultError), Some(1))
        );
        assert!(as_verdict.get(&c).is_none(), "a reward is not a verdict");

        let as_both = open(Scorer::Both);
        assert!(
            as_both.get(&a).is_none(),
            "a verdict-only report has no reward"
        );
        assert_eq!(as_both.get(&b).and_then(|r| r.reward), Some(1));
        assert!(as_both.get(&c).is_none());

        let as_reward = open(Scorer::Reward);
        assert!(as_reward.get(&a).is_none());
        assert_eq!(as_reward.get(&b).and_then(|r| r.reward), Some(1));
        assert_eq!(as_reward.get(&c).and_then(|r| r.reward), Some(0));
    }
}
