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
//!
//! A report is filed by program ([`report_split`](super::report_split)): the rollout's
//! record holds where its code sits in its response and a reference to the report's body,
//! which is filed once per distinct content in `<grader>-<api>-bodies`, so the samples of a
//! training run that share a program share one stored report. Records of the earlier form
//! (the whole report in the rollout's record) are read as before. A body evicted before the
//! records that name it makes them misses (graded again), never wrong.
//!
//! Every record is filed with its [`Facts`] (what the merged report decides), so a front end
//! that only needs the verdict, reward and flags ([`ScoreCache::facts_many`]: the explorer's
//! rows, `sebx stats`) never parses a report. A record filed without them (an earlier sebx)
//! is parsed once when its facts are asked for, and the facts are written back. Many reports
//! are written in one transaction ([`ScoreCache::put_many`], [`Batched`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::grade::facts::Facts;
use crate::grade::report::GradeReport;
use crate::grade::report_split::{Place, body_key, join, split};
use crate::grade::reward::{Scorer, disagreement};
use crate::grade::run_cache::RunCache;
use crate::grade::settings::GradingSettings;
use crate::grade::store::{Evicted, Filing, Put, Reader, Store, Table, short_hex};
use crate::model::{ApiMap, Rollout};

pub use crate::grade::store::{api_hash, grader_version, namespace};

/// The part of a cache key that names the rollout: its id and a hash of its test cases and
/// expected results (a record's key adds the settings, [`record_key`]).
pub fn rollout_key(rollout: &Rollout) -> String {
    format!("{}-{}", rollout.id.0, task_hash(rollout))
}

/// The hash of what `rollout` is graded against: its test cases, expected result and (a
/// training sample's) differing `gts`.
fn task_hash(rollout: &Rollout) -> String {
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
    short_hex(&hasher.finalize())
}

/// The key of `rollout`'s record when graded under `settings`: a 128-bit hash of the rollout's
/// key and the settings' fingerprint. Hashed because a run's records are mostly their keys:
/// the key is stored three times per rollout (the record, its `used` index, its facts), so
/// 32 characters instead of 50 is ~10% of a big run's cache.
pub fn record_key(rollout: &Rollout, settings: &GradingSettings) -> String {
    key_of(&rollout_key(rollout), &settings.fingerprint())
}

fn key_of(rollout_key: &str, fingerprint: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(rollout_key.as_bytes());
    hasher.update([0u8]);
    hasher.update(fingerprint.as_bytes());
    crate::grade::store::hex(&hasher.finalize()[..16])
}

/// [`record_key`] for many rollouts at once (a bulk lookup): each scorer's settings
/// fingerprint made once, and the task hash once per task, not per rollout (the rollouts of
/// a task share its test cases; hashing them was a third of looking a big run up).
struct Keys<'a> {
    settings: &'a GradingSettings,
    fingerprints: HashMap<Scorer, String>,
    /// By the addresses of the shared test cases, expected result and `gts` (alive while
    /// the rollouts asked about are borrowed).
    tasks: HashMap<(usize, usize, usize), String>,
}

impl<'a> Keys<'a> {
    fn new(settings: &'a GradingSettings) -> Keys<'a> {
        Keys {
            settings,
            fingerprints: HashMap::new(),
            tasks: HashMap::new(),
        }
    }

    fn key(&mut self, rollout: &Rollout, scorer: Scorer) -> String {
        let settings = self.settings;
        let fingerprint = self
            .fingerprints
            .entry(scorer)
            .or_insert_with(|| settings.clone().with_scorer(scorer).fingerprint());
        let gts = rollout
            .sample
            .as_deref()
            .and_then(|m| m.gts_differs.as_ref())
            .map_or(0, |g| Arc::as_ptr(g) as *const u8 as usize);
        let task = (
            rollout.test_cases.as_ptr() as usize,
            Arc::as_ptr(&rollout.right_exe_result) as *const u8 as usize,
            gts,
        );
        let hash = self.tasks.entry(task).or_insert_with(|| task_hash(rollout));
        key_of(&format!("{}-{hash}", rollout.id.0), fingerprint)
    }
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

/// What facts carry, as the scorer that would have produced just that (see [`carried`]).
fn carried_facts(facts: &Facts) -> Option<Scorer> {
    match (facts.verdict.is_some(), facts.reward.is_some()) {
        (true, true) => Some(Scorer::Both),
        (true, false) => Some(Scorer::Verdict),
        (false, true) => Some(Scorer::Reward),
        (false, false) => None,
    }
}

/// Rollouts looked up per read transaction by [`ScoreCache::facts_many`], so that a writer
/// of the same store (grading in the background) waits no longer than one chunk.
const FACTS_CHUNK: usize = 1024;

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

/// A rollout's record: where its code sits ([`Place`]) and the key of its report's body.
#[derive(Serialize, Deserialize)]
struct Reference {
    #[serde(rename = "p")]
    place: Place,
    #[serde(rename = "b")]
    body: String,
}

/// A rollout's record as stored: a reference, or (the earlier form) the whole report.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stored {
    Reference(Reference),
    Whole(Box<Record<GradeReport>>),
}

/// A rollout's record to write, and the body it names (its key and stored form).
type Filed = (Filing, Option<(String, Vec<u8>)>);

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
    /// The reports' bodies, by the hash of their stored form (see the module doc).
    bodies: Table,
    /// Bodies this process has filed (not filed again).
    filed_bodies: Mutex<HashSet<String>>,
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
            table: Table::new(store.clone(), namespace(api)),
            bodies: Table::new(store, format!("{}-bodies", namespace(api))),
            filed_bodies: Mutex::new(HashSet::new()),
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
        let report = match serde_json::from_slice::<Stored>(&self.table.get(&key)?).ok()? {
            Stored::Whole(record) => record.report,
            Stored::Reference(r) => {
                let body: Record<GradeReport> =
                    serde_json::from_slice(&self.bodies.get(&r.body)?).ok()?;
                join(r.place, body.report)
            }
        };
        (carried(&report) == Some(scorer)).then_some(report)
    }

    /// Remembers `report`, graded under this cache's settings, for `rollout`; it is filed
    /// under the scorer whose output it carries ([`carried`]). A report with one score is
    /// merged with the other when that is known (from a report with both, or one with just
    /// the other), and filed as both: a put never hides what was known. A report with
    /// neither a verdict nor a reward is not remembered.
    pub fn put(&self, rollout: &Rollout, report: &GradeReport) -> Result<()> {
        self.put_many(&[(rollout, report)])
    }

    /// [`ScoreCache::put`] for many reports, written in one transaction (a rollout given
    /// twice is written in order: its second report merges with the first).
    pub fn put_many(&self, reports: &[(&Rollout, &GradeReport)]) -> Result<()> {
        let mut pending = Vec::new();
        let mut seen = HashSet::new();
        for &(rollout, report) in reports {
            if !seen.insert(rollout_key(rollout)) {
                // The first report of this rollout must be stored for this one to merge.
                self.write(&pending)?;
                pending.clear();
                seen.clear();
                seen.insert(rollout_key(rollout));
            }
            if let Some(record) = self.record(rollout, report)? {
                pending.push(record);
            }
        }
        self.write(&pending)
    }

    /// Writes `records` (in one transaction) after the bodies they name that this process
    /// has not filed yet (in another), so that a reader never finds a reference without
    /// its body.
    fn write(&self, records: &[Filed]) -> Result<()> {
        let mut filed = self
            .filed_bodies
            .lock()
            .map_err(|_| anyhow!("the score cache's bodies lock is poisoned"))?;
        let mut new = HashSet::new();
        let bodies: Vec<Put> = records
            .iter()
            .filter_map(|(_, body)| body.as_ref())
            .filter(|(key, _)| !filed.contains(key) && new.insert(key.as_str()))
            .map(|(key, value)| Put {
                key,
                value,
                facts: None,
            })
            .collect();
        self.bodies.put_many(&bodies)?;
        filed.extend(bodies.iter().map(|p| p.key.to_string()));
        drop(filed);
        let puts: Vec<Put> = records.iter().map(|(f, _)| f.put()).collect();
        self.table.put_many(&puts)
    }

    /// The record `report` makes for `rollout` (merged with what is known of the other
    /// score): its key, value and facts; none when it carries nothing to remember.
    fn record(&self, rollout: &Rollout, report: &GradeReport) -> Result<Option<Filed>> {
        let Some(scorer) = carried(report) else {
            return Ok(None);
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
        let merged_report;
        let (scorer, report) = match (scorer, known) {
            (Scorer::Verdict, Some(known)) => {
                merged_report = merged(rollout, report, &known);
                (Scorer::Both, &merged_report)
            }
            (Scorer::Reward, Some(known)) => {
                merged_report = merged(rollout, &known, report);
                (Scorer::Both, &merged_report)
            }
            (scorer, _) => (scorer, report),
        };
        let settings = self.settings.clone().with_scorer(scorer);
        // The body once per distinct content, the rollout's own part beside its key.
        let (place, body) = split(report);
        let body = serde_json::to_vec(&Record {
            settings: settings.describe(),
            report: body,
        })?;
        let body_key = body_key(&body);
        let value = serde_json::to_vec(&Reference {
            place,
            body: body_key.clone(),
        })?;
        let facts = serde_json::to_vec(&Facts::of(report))?;
        Ok(Some((
            Filing {
                key: record_key(rollout, &settings),
                value,
                facts,
            },
            Some((body_key, body)),
        )))
    }

    /// The facts of what [`ScoreCache::get`] would serve for `rollout`, without reading
    /// the report (but for a record filed without facts: see the module doc).
    pub fn facts(&self, rollout: &Rollout) -> Option<Facts> {
        self.facts_many(&[rollout]).pop().flatten()
    }

    /// [`ScoreCache::facts`] of every rollout, in order: one read transaction per chunk of
    /// rollouts, the statements prepared once. Facts found missing (records an earlier sebx
    /// filed) are derived from the reports and written back. A store that cannot be read
    /// answers nothing (misses).
    pub fn facts_many(&self, rollouts: &[&Rollout]) -> Vec<Option<Facts>> {
        let mut out = Vec::with_capacity(rollouts.len());
        let mut keys = Keys::new(&self.settings);
        for chunk in rollouts.chunks(FACTS_CHUNK) {
            let mut backfill = Vec::new();
            let found = self
                .table
                .read(|reader| {
                    let complete = reader.complete(self.table.namespace())?;
                    Ok(chunk
                        .iter()
                        .map(|r| self.facts_in(reader, r, complete, &mut keys, &mut backfill))
                        .collect::<Vec<_>>())
                })
                .unwrap_or_else(|_| vec![None; chunk.len()]);
            out.extend(found);
            // Written for the next time; a store that cannot take them only costs a parse.
            let _ = self.table.backfill_facts(&backfill);
        }
        out
    }

    /// `rollout`'s facts read by `reader`: the first scorer that answers, in the order of
    /// [`ScoreCache::get`]. Unless `complete`, a key without facts may be a record without
    /// them: its report is parsed and its facts gathered into `backfill`.
    fn facts_in(
        &self,
        reader: &Reader,
        rollout: &Rollout,
        complete: bool,
        keys: &mut Keys,
        backfill: &mut Vec<Filing>,
    ) -> Option<Facts> {
        let ns = self.table.namespace();
        answering(self.settings.scorer).iter().find_map(|&scorer| {
            let key = keys.key(rollout, scorer);
            let stored = reader.facts(ns, &key).ok().flatten();
            if let Some(facts) = stored.and_then(|f| serde_json::from_slice::<Facts>(&f).ok()) {
                return (carried_facts(&facts) == Some(scorer)).then_some(facts);
            }
            if complete {
                return None;
            }
            let value = reader.value(ns, &key).ok().flatten()?;
            let report = match serde_json::from_slice::<Stored>(&value).ok()? {
                Stored::Whole(record) => record.report,
                Stored::Reference(r) => {
                    let body = reader
                        .value(self.bodies.namespace(), &r.body)
                        .ok()
                        .flatten()?;
                    join(
                        r.place,
                        serde_json::from_slice::<Record<GradeReport>>(&body)
                            .ok()?
                            .report,
                    )
                }
            };
            if carried(&report) != Some(scorer) {
                return None;
            }
            let facts = Facts::of(&report);
            if let Ok(json) = serde_json::to_vec(&facts) {
                backfill.push(Filing {
                    key,
                    value,
                    facts: json,
                });
            }
            Some(facts)
        })
    }
}

/// Puts gathered and written in batches ([`ScoreCache::put_many`]): when [`BATCH`] reports
/// have gathered, when the oldest waited [`BATCH_AGE`] (checked at each put), on
/// [`Batched::flush`] and when dropped. For front ends that remember reports one at a time
/// as they arrive (`sebx grade`, the explorer's background grading): a report still
/// gathering when the process is killed is graded again next time.
pub struct Batched {
    cache: Arc<ScoreCache>,
    pending: Mutex<Pending>,
}

/// Reports a [`Batched`] writes at once.
pub const BATCH: usize = 256;

/// How long a report may wait in a [`Batched`] for others (checked when one is put).
pub const BATCH_AGE: Duration = Duration::from_secs(2);

#[derive(Default)]
struct Pending {
    reports: Vec<(Rollout, GradeReport)>,
    since: Option<Instant>,
}

impl Batched {
    pub fn new(cache: Arc<ScoreCache>) -> Batched {
        Batched {
            cache,
            pending: Mutex::new(Pending::default()),
        }
    }

    /// The cache written to.
    pub fn cache(&self) -> &Arc<ScoreCache> {
        &self.cache
    }

    /// Gathers `report` of `rollout`; writes the batch if it is full or old.
    pub fn put(&self, rollout: &Rollout, report: &GradeReport) -> Result<()> {
        if carried(report).is_none() {
            return Ok(());
        }
        let ready = {
            let mut pending = self.lock()?;
            pending.reports.push((rollout.clone(), report.clone()));
            let since = *pending.since.get_or_insert_with(Instant::now);
            if pending.reports.len() >= BATCH || since.elapsed() >= BATCH_AGE {
                pending.since = None;
                std::mem::take(&mut pending.reports)
            } else {
                Vec::new()
            }
        };
        self.write(&ready)
    }

    /// Writes what has gathered.
    pub fn flush(&self) -> Result<()> {
        let ready = {
            let mut pending = self.lock()?;
            pending.since = None;
            std::mem::take(&mut pending.reports)
        };
        self.write(&ready)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Pending>> {
        self.pending
            .lock()
            .map_err(|_| anyhow!("the score cache's batch lock is poisoned"))
    }

    fn write(&self, reports: &[(Rollout, GradeReport)]) -> Result<()> {
        if reports.is_empty() {
            return Ok(());
        }
        let pairs: Vec<(&Rollout, &GradeReport)> = reports.iter().map(|(r, g)| (r, g)).collect();
        self.cache.put_many(&pairs)
    }
}

impl Drop for Batched {
    fn drop(&mut self) {
        // A batch that cannot be written only costs a regrade next time.
        let _ = self.flush();
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

    /// The bulk lookup's keys (fingerprints made once, a task's hash once) are the keys
    /// [`record_key`] gives, for rollouts that share their task's test cases (one file's
    /// interner) and for rollouts of other tasks with equal-looking but separate ones.
    #[test]
    fn bulk_keys_are_record_keys() {
        let text: String = (0..6)
            .map(|i| {
                serde_json::json!({
                    "query": format!("q{}", i % 2), "response": format!("r{i}"),
                    "test_cases": [{"input": "a=1", "output": format!("{}", i % 2)}],
                    "right_exe_result": format!("{}", i % 2),
                })
                .to_string()
                    + "\n"
            })
            .collect();
        let mut rollouts = parse_rollout_bytes(Path::new("run.jsonl"), text.as_bytes()).rollouts;
        rollouts.push(rollout("r0", "0"));
        rollouts.push(rollout("r0", "1"));
        let settings = official();
        let mut keys = Keys::new(&settings);
        let mut distinct = HashSet::new();
        for r in &rollouts {
            for scorer in [Scorer::Verdict, Scorer::Reward, Scorer::Both] {
                let key = keys.key(r, scorer);
                assert_eq!(key, record_key(r, &settings.clone().with_scorer(scorer)));
                distinct.insert(key);
            }
        }
        assert_eq!(distinct.len(), rollouts.len() * 3);
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
        // The report, its body and the run; the facts' file.
        assert_eq!((cleared.records.records, cleared.files), (3, 1));
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

    /// What the bulk lookup reads back is what the stored, merged report decides.
    #[test]
    fn facts_read_back_are_the_merged_reports_facts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let open = |scorer| {
            ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open")
        };
        let (a, b, c) = (rollout("A", "1"), rollout("B", "1"), rollout("C", "1"));
        let both = open(Scorer::Both);
        let mut fragile = with_reward(Verdict::ResultError, 1);
        fragile.fragile = true;
        both.put(&a, &fragile).expect("put");
        open(Scorer::Reward).put(&b, &reward_only(0)).expect("put");
        open(Scorer::Verdict)
            .put(&b, &report(Verdict::Right))
            .expect("put");
        for scorer in [Scorer::Verdict, Scorer::Both, Scorer::Reward] {
            let cache = open(scorer);
            for r in [&a, &b, &c] {
                assert_eq!(
                    cache.facts(r),
                    cache.get(r).map(|g| Facts::of(&g)),
                    "{scorer:?} {}",
                    r.response
                );
            }
        }
        let facts = open(Scorer::Verdict).facts(&a).expect("known");
        assert_eq!(
            (facts.verdict, facts.reward, facts.fragile),
            (Some(Verdict::ResultError), Some(1), true)
        );
        assert_eq!(facts.reward_disagrees(), Some(true));
        assert!(open(Scorer::Verdict).facts(&c).is_none());
    }

    /// A verdict-only put after one with both scorers keeps the reward in the facts.
    #[test]
    fn a_verdict_only_put_keeps_the_reward_in_the_facts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let a = rollout("A", "1");
        let both = ScoreCache::open(dir.path(), &api, &official().with_scorer(Scorer::Both))
            .expect("open");
        both.put(&a, &with_reward(Verdict::Right, 1)).expect("put");
        let verdicts = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        verdicts.put(&a, &report(Verdict::ExeError)).expect("put");
        for cache in [&both, &verdicts] {
            let facts = cache.facts(&a).expect("known");
            assert_eq!(
                (facts.verdict, facts.reward),
                (Some(Verdict::ExeError), Some(1))
            );
        }
    }

    /// One bulk lookup answers what one lookup per rollout does, in order.
    #[test]
    fn a_batched_lookup_equals_lookups_one_by_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        // More than a chunk, every third unknown, a few with a reward.
        let rollouts: Vec<Rollout> = (0..2500).map(|i| rollout(&format!("R{i}"), "1")).collect();
        let verdicts = [Verdict::Right, Verdict::ResultError, Verdict::ExeError];
        let reports: Vec<GradeReport> = (0..rollouts.len())
            .map(|i| match i % 5 {
                0 => with_reward(verdicts[i % 3], (i % 2) as u8),
                _ => report(verdicts[i % 3]),
            })
            .collect();
        let puts: Vec<(&Rollout, &GradeReport)> = rollouts
            .iter()
            .zip(&reports)
            .enumerate()
            .filter(|(i, _)| i % 3 != 0)
            .map(|(_, pair)| pair)
            .collect();
        cache.put_many(&puts).expect("put many");
        let all: Vec<&Rollout> = rollouts.iter().collect();
        let batched = cache.facts_many(&all);
        let one_by_one: Vec<Option<Facts>> = rollouts.iter().map(|r| cache.facts(r)).collect();
        assert_eq!(batched, one_by_one);
        assert_eq!(batched.iter().flatten().count(), puts.len());
        for (i, facts) in batched.iter().enumerate() {
            let expected = (i % 3 != 0).then(|| Facts::of(&reports[i]));
            assert_eq!(*facts, expected, "rollout {i}");
        }
    }

    /// A batch that holds the same rollout twice writes them in order: the second merges.
    #[test]
    fn a_batch_with_a_rollout_twice_merges_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let a = rollout("A", "1");
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        let (verdict, reward) = (report(Verdict::ResultError), reward_only(1));
        cache
            .put_many(&[(&a, &verdict), (&a, &reward)])
            .expect("put many");
        let got = cache.get(&a).expect("merged");
        assert_eq!(
            (got.verdict, got.reward),
            (Some(Verdict::ResultError), Some(1))
        );
        assert_eq!(cache.facts(&a), Some(Facts::of(&got)));
    }

    /// A [`Batched`] writes when full, when flushed and when dropped.
    #[test]
    fn batched_puts_land_when_full_flushed_or_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let cache = Arc::new(ScoreCache::open(dir.path(), &api, &official()).expect("open"));
        let rollouts: Vec<Rollout> = (0..BATCH + 3)
            .map(|i| rollout(&format!("R{i}"), "1"))
            .collect();
        let batch = Batched::new(cache.clone());
        for r in &rollouts[..BATCH - 1] {
            batch.put(r, &report(Verdict::Right)).expect("put");
        }
        assert!(cache.is_empty(), "gathering");
        batch
            .put(&rollouts[BATCH - 1], &report(Verdict::Right))
            .expect("put");
        assert_eq!(cache.len(), BATCH, "a full batch is written");
        batch
            .put(&rollouts[BATCH], &report(Verdict::Right))
            .expect("put");
        batch.flush().expect("flush");
        assert_eq!(cache.len(), BATCH + 1);
        for r in &rollouts[BATCH + 1..] {
            batch.put(r, &report(Verdict::Right)).expect("put");
        }
        drop(batch);
        assert_eq!(cache.len(), BATCH + 3);
    }

    /// A store of the first layout (no facts table, as an earlier sebx made it) opens; its
    /// records' facts are found (from their reports) and written back.
    #[test]
    fn an_old_store_opens_and_its_records_facts_are_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let settings = official().with_scorer(Scorer::Both);
        let rollouts: Vec<Rollout> = (0..20).map(|i| rollout(&format!("R{i}"), "1")).collect();
        {
            let conn = rusqlite::Connection::open(dir.path().join(crate::grade::store::FILE_NAME))
                .expect("create");
            conn.execute_batch(
                "PRAGMA journal_mode = WAL;
                 CREATE TABLE records (ns TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                     bytes INTEGER NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (ns, key))
                     WITHOUT ROWID;
                 CREATE INDEX records_used ON records (used);
                 CREATE TABLE namespaces (ns TEXT PRIMARY KEY, records INTEGER NOT NULL,
                     bytes INTEGER NOT NULL) WITHOUT ROWID;
                 CREATE TRIGGER records_insert AFTER INSERT ON records BEGIN
                     INSERT INTO namespaces (ns, records, bytes) VALUES (NEW.ns, 1, NEW.bytes)
                     ON CONFLICT (ns) DO UPDATE SET records = records + 1,
                         bytes = bytes + excluded.bytes;
                 END;
                 CREATE TRIGGER records_delete AFTER DELETE ON records BEGIN
                     UPDATE namespaces SET records = records - 1, bytes = bytes - OLD.bytes
                     WHERE ns = OLD.ns;
                     DELETE FROM namespaces WHERE ns = OLD.ns AND records = 0;
                 END;
                 CREATE TRIGGER records_update AFTER UPDATE OF bytes ON records BEGIN
                     UPDATE namespaces SET bytes = bytes - OLD.bytes + NEW.bytes WHERE ns = NEW.ns;
                 END;
                 PRAGMA user_version = 1;",
            )
            .expect("the first layout");
            for (i, r) in rollouts.iter().enumerate() {
                let value = serde_json::to_vec(&Record {
                    settings: settings.describe(),
                    report: with_reward(Verdict::ResultError, (i % 2) as u8),
                })
                .expect("json");
                conn.execute(
                    "INSERT INTO records (ns, key, value, bytes, used) VALUES (?1, ?2, ?3, 1, 1)",
                    rusqlite::params![namespace(&api), record_key(r, &settings), value],
                )
                .expect("insert");
            }
        }
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open an old store");
        assert_eq!(cache.len(), 20, "nothing lost");
        let all: Vec<&Rollout> = rollouts.iter().collect();
        let expected: Vec<Option<Facts>> = (0..20)
            .map(|i| Some(Facts::of(&with_reward(Verdict::ResultError, (i % 2) as u8))))
            .collect();
        assert_eq!(cache.facts_many(&all), expected);
        // Written back: the facts are now read without the reports, and all are there.
        let conn = rusqlite::Connection::open(cache.path()).expect("open");
        let counts: (i64, i64) = conn
            .query_row("SELECT records, facts FROM namespaces", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .expect("counts");
        assert_eq!(counts, (20, 20));
        assert_eq!(cache.facts_many(&all), expected);
        // A new put on the old store keeps the whole store in step.
        let fresh = rollout("fresh", "1");
        cache.put(&fresh, &report(Verdict::Right)).expect("put");
        assert_eq!(cache.facts(&fresh), Some(Facts::verdict(Verdict::Right)));
        assert_eq!(cache.get(&rollouts[3]).and_then(|g| g.reward), Some(1));
    }
}
