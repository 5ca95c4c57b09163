//! Verdicts remembered across sessions: the explorer, `sebx grade` and `sebx stats` file
//! each report as it arrives in the store in the user cache ([`Store`]), in a namespace per
//! grader and zwc mapping, so reopening a file shows its verdicts at once instead of
//! grading it again.
//!
//! A cache that cannot lie: a record's key is everything that decides its verdict besides
//! the grader and the mapping, which name the namespace.
//! - The rollout: its id (a hash of query and response) and a hash of what grading reads
//!   besides the response (test cases, expected result, a training sample's differing `gts`).
//! - The grading settings ([`GradingSettings`]: timeout, sandbox limits and caps, scorer),
//!   by fingerprint. A cache is opened for the settings its front end grades with; a
//!   report graded under other settings is a miss, never a hit. The scorer a record is
//!   filed under is what its report carries (a verdict, a reward, or both), so a lookup
//!   that asks for the reward is never served a verdict-only report.
//! - All that is known is served: a lookup prefers the record with both the verdict and
//!   the reward, and a put of one of them merges with the other when it is known (a
//!   verdict-only regrade of a rollout graded with both keeps its reward).
//! - The grader: the namespace carries [`grader_version`], a hash `build.rs` computes over
//!   every file under `src/grade/` and `src/analysis/` (the Python worker included), so no
//!   list of sources is kept; test modules are left out, so editing a test keeps the
//!   caches. The rule, which [`source_hash`](super::source_hash) states and a test checks:
//!   a file's `#[cfg(test)] mod tests` comes last, and nothing but tests follows it.
//!
//! A rollout it does not know may still be graded without running anything: the program
//! runs sit beside it, keyed by program and settings ([`RunCache`], [`ScoreCache::runs`]).
//!
//! The namespace is a [`Table`] of the [`Store`]: a lookup is one indexed read, opening
//! reads no records, and the store bounds its size by evicting what was least recently used.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::grade::report::GradeReport;
use crate::grade::reward::{Scorer, disagreement};
use crate::grade::run_cache::RunCache;
use crate::grade::settings::GradingSettings;
use crate::grade::store::{Evicted, Store, Table, short_hex};
use crate::model::{ApiMap, Rollout};

pub use crate::grade::store::{api_hash, grader_version, namespace};

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

/// The scorers whose reports answer a lookup for `asked`, best first: the report that
/// carries both (all that is known), then the one that carries just what was asked.
fn answering(asked: Scorer) -> &'static [Scorer] {
    match asked {
        Scorer::Verdict => &[Scorer::Both, Scorer::Verdict],
        Scorer::Reward => &[Scorer::Both, Scorer::Reward],
        Scorer::Both => &[Scorer::Both],
    }
}

/// One report with `verdict`'s verdict and `reward`'s reward, as a grading with both
/// scorers would have made it (the disagreement between them explained).
fn merged(rollout: &Rollout, verdict: &GradeReport, reward: &GradeReport) -> GradeReport {
    let mut report = verdict.clone();
    report.reward = reward.reward;
    report.reward_detail = reward.reward_detail.clone();
    let reason = report
        .reward_detail
        .as_ref()
        .and_then(|detail| disagreement(rollout, &report, detail));
    report.reward_reason = reason.as_ref().map(|r| r.text.clone());
    report.reward_reason_kind = reason.map(|r| r.kind);
    report
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

/// What [`clear_all`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cleared {
    /// Records of the store: reports and program runs of every grader and mapping.
    pub records: Evicted,
    /// JSONL files in the folder: an earlier format's caches, `sebx stats`'s training facts.
    pub files: usize,
}

/// Empties the cache under `dir`: every record of the store, and every `*.jsonl` file
/// beside it. Returns how many records and files went.
pub fn clear(dir: &Path) -> Result<usize> {
    let cleared = clear_all(dir)?;
    Ok(cleared.records.records as usize + cleared.files)
}

/// [`clear`], saying what went.
pub fn clear_all(dir: &Path) -> Result<Cleared> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Cleared::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut files = 0;
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
            files += 1;
        }
    }
    let records = if dir.join(crate::grade::store::FILE_NAME).exists() {
        Store::open(dir)?.clear()?
    } else {
        Evicted::default()
    };
    Ok(Cleared { records, files })
}

#[derive(Serialize, Deserialize)]
struct Record<R> {
    /// The settings the report was graded under, for a reader of the store (the key holds
    /// their fingerprint).
    #[serde(default)]
    settings: String,
    report: R,
}

/// One grader version's and mapping's remembered reports, read and written for one
/// set of grading settings.
pub struct ScoreCache {
    table: Table,
    settings: GradingSettings,
    /// The program runs beside it ([`RunCache`]), when that file could be opened.
    runs: Option<RunCache>,
}

impl std::fmt::Debug for ScoreCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoreCache")
            .field("path", &self.table.path())
            .field("namespace", &self.table.namespace())
            .field("settings", &self.settings)
            .finish()
    }
}

impl ScoreCache {
    /// Opens (creating) the cache for `api` under `dir` (no record is read), to look up
    /// and remember reports graded under `settings`: the settings the caller grades with.
    /// Files of the earlier format are removed ([`ScoreCache::notes`] says so).
    pub fn open(dir: &Path, api: &ApiMap, settings: &GradingSettings) -> Result<ScoreCache> {
        let store = Store::open(dir).context("the score cache")?;
        let runs = RunCache::on(store.clone(), api, settings);
        Ok(ScoreCache {
            table: Table::new(store, namespace(api)),
            settings: settings.clone(),
            runs: Some(runs),
        })
    }

    /// The database the cache lives in (every grader's and mapping's, in namespaces).
    pub fn path(&self) -> &Path {
        self.table.path()
    }

    /// The namespace of this grader's and mapping's reports in [`ScoreCache::path`].
    pub fn namespace(&self) -> &str {
        self.table.namespace()
    }

    /// What opening did that the user may want to know (an earlier format's files removed),
    /// one line each, for a front end to show.
    pub fn notes(&self) -> &[String] {
        self.table.store().notes()
    }

    /// The store under the cache (sizes, pruning).
    pub fn store(&self) -> &std::sync::Arc<Store> {
        self.table.store()
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
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The remembered report of `rollout` graded under this cache's settings and carrying
    /// what their scorer asks for, and the other score too when it is known, placed at its
    /// current file and line.
    pub fn get(&self, rollout: &Rollout) -> Option<GradeReport> {
        answering(self.settings.scorer)
            .iter()
            .find_map(|&scorer| self.filed(rollout, scorer))
            .map(|mut report| {
                report.source = rollout.source.display().to_string();
                report.line = rollout.line;
                report.id = Some(rollout.id.clone());
                report
            })
    }

    /// The report of `rollout` filed under `scorer`, if it carries just what that scorer
    /// gives (the record's own content decides).
    fn filed(&self, rollout: &Rollout, scorer: Scorer) -> Option<GradeReport> {
        let key = record_key(rollout, &self.settings.clone().with_scorer(scorer));
        let record: Record<GradeReport> = serde_json::from_slice(&self.table.get(&key)?).ok()?;
        (carried(&record.report) == Some(scorer)).then_some(record.report)
    }

    /// Remembers `report`, graded under this cache's settings, for `rollout`; it is filed
    /// under the scorer whose output it carries ([`carried`]). A report with one score is
    /// merged with the other when that is known (from a report with both, or one with just
    /// the other), and filed as both: a put never hides what was known. A report with
    /// neither a verdict nor a reward is not remembered.
    pub fn put(&self, rollout: &Rollout, report: &GradeReport) -> Result<()> {
        let Some(scorer) = carried(report) else {
            return Ok(());
        };
        let other = match scorer {
            Scorer::Both => None,
            Scorer::Verdict => Some(Scorer::Reward),
            Scorer::Reward => Some(Scorer::Verdict),
        };
        let known = other.and_then(|other| {
            self.filed(rollout, Scorer::Both)
                .or_else(|| self.filed(rollout, other))
        });
        let (scorer, report) = match (scorer, known) {
            (Scorer::Verdict, Some(known)) => (Scorer::Both, merged(rollout, report, &known)),
            (Scorer::Reward, Some(known)) => (Scorer::Both, merged(rollout, &known, report)),
            (scorer, _) => (scorer, report.clone()),
        };
        let settings = self.settings.clone().with_scorer(scorer);
        let value = serde_json::to_vec(&Record {
            settings: settings.describe(),
            report: &report,
        })?;
        self.table.put(&record_key(rollout, &settings), &value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Verdict;
    use crate::model::rollout::parse_rollout_bytes;

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
        assert_eq!(cache.path(), cache2.path(), "one database");
        assert_ne!(cache.namespace(), cache2.namespace());
        assert!(cache2.get(&rollout("A", "1")).is_none());
    }

    #[test]
    fn an_unreadable_record_is_a_miss_and_later_records_still_land() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let (a, b) = (rollout("A", "1"), rollout("B", "1"));
        {
            let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
            cache.put(&a, &report(Verdict::Right)).expect("put");
            // A damaged record (what a torn line was in the JSONL format).
            let key = record_key(&b, &official().with_scorer(Scorer::Verdict));
            cache
                .table
                .put(&key, br#"{"report":{"verd"#)
                .expect("raw put");
            assert!(cache.get(&b).is_none());
        }
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert_eq!(cache.len(), 2);
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
        // A training run's facts beside the store go too.
        std::fs::write(dir.path().join("training-0123.jsonl"), b"{}\n").expect("write");
        let cleared = clear_all(dir.path()).expect("clear");
        // The report and the run; the facts' file.
        assert_eq!((cleared.records.records, cleared.files), (2, 1));
        assert!(!dir.path().join("training-0123.jsonl").exists());
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert!(cache.is_empty());
        assert_eq!(cache.store().bytes().expect("bytes"), 0);
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
            (at_default.path(), at_default.namespace()),
            (cache.path(), cache.namespace()),
            "one namespace, keyed by settings"
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

    fn with_reward(verdict: Verdict, reward: u8) -> GradeReport {
        let mut r = report(verdict);
        r.reward = Some(reward);
        r
    }

    fn reward_only(reward: u8) -> GradeReport {
        let mut r = report(Verdict::Right);
        r.verdict = None;
        r.reward = Some(reward);
        r
    }

    /// The bug of a `--scorer both` run followed by a verdict-only regrade of some of its
    /// rollouts: lookups for the verdict found the verdict-only records first, and the
    /// known rewards disappeared (`sebx stats` averaged the reward over 160 of 200).
    #[test]
    fn a_verdict_only_regrade_never_hides_a_known_reward() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let open = |scorer| {
            ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open")
        };
        let rollouts: Vec<Rollout> = (0..200)
            .map(|i| rollout(&format!("response {i}"), "1"))
            .collect();
        let both = open(Scorer::Both);
        for (i, r) in rollouts.iter().enumerate() {
            both.put(r, &with_reward(Verdict::Right, (i % 2) as u8))
                .expect("put");
        }
        // 40 of them graded again for the verdict alone (a timeout now: another verdict).
        let verdicts = open(Scorer::Verdict);
        for r in &rollouts[..40] {
            verdicts.put(r, &report(Verdict::ExeError)).expect("put");
        }
        let rewards: Vec<Option<u8>> = rollouts
            .iter()
            .map(|r| verdicts.get(r).and_then(|g| g.reward))
            .collect();
        assert_eq!(rewards.iter().flatten().count(), 200, "rewards lost");
        for (i, reward) in rewards.iter().enumerate() {
            assert_eq!(*reward, Some((i % 2) as u8), "rollout {i}");
        }
        // The newer verdict is what is served, with the reward it had.
        let got = verdicts.get(&rollouts[1]).expect("known");
        assert_eq!(
            (got.verdict, got.reward),
            (Some(Verdict::ExeError), Some(1))
        );
        let got = verdicts.get(&rollouts[41]).expect("known");
        assert_eq!((got.verdict, got.reward), (Some(Verdict::Right), Some(1)));
        // A lookup for both is served all 200 too.
        let as_both = open(Scorer::Both);
        assert_eq!(
            rollouts.iter().filter(|r| as_both.get(r).is_some()).count(),
            200
        );
    }

    /// A reward-only and a verdict-only report of the same rollout and settings are one
    /// fact: a lookup for both is served their merge, in either order of puts.
    #[test]
    fn a_verdict_and_a_reward_put_apart_are_one_fact() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let open = |scorer| {
            ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open")
        };
        let (a, b) = (rollout("A", "1"), rollout("B", "1"));
        let rewards = open(Scorer::Reward);
        let verdicts = open(Scorer::Verdict);
        let as_both = open(Scorer::Both);
        rewards.put(&a, &reward_only(0)).expect("put");
        assert!(as_both.get(&a).is_none(), "a reward alone is not both");
        verdicts.put(&a, &report(Verdict::Right)).expect("put");
        verdicts
            .put(&b, &report(Verdict::ResultError))
            .expect("put");
        rewards.put(&b, &reward_only(1)).expect("put");
        for (rollout, verdict, reward) in [(&a, Verdict::Right, 0), (&b, Verdict::ResultError, 1)] {
            let got = as_both.get(rollout).expect("merged");
            assert_eq!((got.verdict, got.reward), (Some(verdict), Some(reward)));
            assert_eq!(verdicts.get(rollout).and_then(|g| g.reward), Some(reward));
            assert_eq!(rewards.get(rollout).and_then(|g| g.verdict), Some(verdict));
        }
    }

    /// Two caches on the same folder, as two front ends open it, each in its own thread:
    /// every put lands and every lookup answers, with no error from the other's writes.
    #[test]
    fn two_caches_on_one_folder_put_and_get_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let rollouts: Vec<Rollout> = (0..300).map(|i| rollout(&format!("R{i}"), "1")).collect();
        std::thread::scope(|scope| {
            for half in 0..2 {
                let (dir, api, rollouts) = (dir.path(), &api, &rollouts);
                scope.spawn(move || {
                    let cache = ScoreCache::open(dir, api, &official()).expect("open");
                    for (i, r) in rollouts.iter().enumerate() {
                        if i % 2 == half {
                            cache.put(r, &report(Verdict::Right)).expect("put");
                            assert!(cache.get(r).is_some(), "own put {i}");
                        } else {
                            // The other thread's records: present or not yet, never an error.
                            let _ = cache.get(r);
                        }
                    }
                });
            }
        });
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
        assert_eq!(cache.len(), 300);
        assert!(rollouts.iter().all(|r| cache.get(r).is_some()));
    }
}
