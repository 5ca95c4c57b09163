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
//! (the whole report in the rollout's record) are read as before. Bodies are kept packed,
//! within a budget of their own, and go before any rollout's record (see the store's
//! module doc): a body evicted before the records that name it makes them misses for the
//! whole report (graded again when a row is opened), never wrong, while their facts stay.
//!
//! Every record is filed with its [`Facts`] (what the merged report decides), so a front end
//! that only needs the verdict, reward and flags ([`ScoreCache::facts_many`]: the explorer's
//! rows, `sebx stats`) never parses a report. A record filed without them (an earlier sebx)
//! is parsed once when its facts are asked for, and the facts are written back. Many reports
//! are written in one transaction ([`ScoreCache::put_many`], [`Batched`]). The explorer's
//! loading batches are looked up by segment ([`ScoreCache::facts_cut`]) and kept as sets
//! of the store, so that reopening a big run reads a row per batch, not per rollout.
//!
//! Its parts: this file holds the keys, the stored forms and [`ScoreCache`] itself;
//! `batched.rs` the puts gathered in batches ([`Batched`]); `reference.rs` a rollout's
//! record packed in a few bytes; `sets.rs` the lookups by segment; `tests.rs` the tests.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::grade::facts::Facts;
use crate::grade::report::GradeReport;
use crate::grade::report_split::{Place, body_key, join, split};
use crate::grade::reward::{Scorer, disagreement};
use crate::grade::run_cache::RunCache;
use crate::grade::settings::GradingSettings;
use crate::grade::store::{Evicted, Filing, Put, Reader, Store, Table, pack, short_hex, unpack};
use crate::model::{ApiMap, Rollout};

pub use crate::grade::store::{api_hash, grader_version, namespace};

mod batched;
mod reference;
mod sets;
#[cfg(test)]
mod tests;

pub use batched::{BATCH, BATCH_AGE, Batched};

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
    if report.behaviour.is_none() {
        report.behaviour = reward.behaviour.clone();
    }
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

impl Stored {
    /// A rollout's record as stored: packed ([`reference`]), or JSON (a reference or, the
    /// earlier form, the whole report).
    fn read(value: &[u8]) -> Option<Stored> {
        if reference::is_packed(value) {
            let (place, body) = reference::unpack(value)?;
            return Some(Stored::Reference(Reference { place, body }));
        }
        serde_json::from_slice(value).ok()
    }
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
    /// Bodies this process has filed (not filed again), as of the store's eviction count
    /// (once the store has evicted, a body filed may be gone: the set starts again).
    filed_bodies: Mutex<(u64, HashSet<String>)>,
    settings: GradingSettings,
    /// The program runs beside it ([`RunCache`]), when that file could be opened.
    runs: Option<RunCache>,
    /// Rows [`ScoreCache::facts_cut`] answered from sets (what a reopening saved).
    read_by_sets: std::sync::atomic::AtomicUsize,
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
            filed_bodies: Mutex::new((0, HashSet::new())),
            settings: settings.clone(),
            runs: Some(runs),
            read_by_sets: Default::default(),
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
        let report = match Stored::read(&self.table.get(&key)?)? {
            Stored::Whole(record) => record.report,
            Stored::Reference(r) => {
                let stored = self.bodies.get(&r.body)?;
                let body: Record<GradeReport> = serde_json::from_slice(&unpack(&stored)?).ok()?;
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
        let mut guard = self
            .filed_bodies
            .lock()
            .map_err(|_| anyhow!("the score cache's bodies lock is poisoned"))?;
        let (seen_evictions, filed) = &mut *guard;
        let evictions = self.bodies.store().evictions();
        if *seen_evictions != evictions {
            *seen_evictions = evictions;
            filed.clear();
        }
        let mut new = HashSet::new();
        // Packed as they are filed (a body is filed once per distinct content).
        let packed: Vec<(&str, Vec<u8>)> = records
            .iter()
            .filter_map(|(_, body)| body.as_ref())
            .filter(|(key, _)| !filed.contains(key) && new.insert(key.as_str()))
            .map(|(key, value)| (key.as_str(), pack(value)))
            .collect();
        let bodies: Vec<Put> = packed
            .iter()
            .map(|(key, value)| Put {
                key,
                value,
                facts: None,
            })
            .collect();
        self.bodies.put_many(&bodies)?;
        filed.extend(bodies.iter().map(|p| p.key.to_string()));
        drop(guard);
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
        // A grade that did not ask the behaviour questions keeps the answers an earlier
        // one filed for the same outcome (they change no verdict).
        let kept_report;
        let asked_before = (report.behaviour.is_none() && report.paid())
            .then(|| self.filed(rollout, scorer))
            .flatten();
        let report = match asked_before {
            Some(filed)
                if filed.behaviour.is_some()
                    && filed.verdict == report.verdict
                    && filed.reward == report.reward =>
            {
                kept_report = GradeReport {
                    behaviour: filed.behaviour,
                    ..report.clone()
                };
                &kept_report
            }
            _ => report,
        };
        let settings = self.settings.clone().with_scorer(scorer);
        // The body once per distinct content, the rollout's own part beside its key.
        let (place, body) = split(report);
        let body = serde_json::to_vec(&Record {
            settings: settings.describe(),
            report: body,
        })?;
        let body_key = body_key(&body);
        // Packed (a few bytes) when the body key is a hash, as `body_key` makes it.
        let value = match reference::pack(&place, &body_key) {
            Some(packed) => packed,
            None => serde_json::to_vec(&Reference {
                place,
                body: body_key.clone(),
            })?,
        };
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
        let mut keys = Keys::new(&self.settings);
        let first = answering(self.settings.scorer)[0];
        let row_keys: Vec<String> = rollouts.iter().map(|r| keys.key(r, first)).collect();
        let all: Vec<usize> = (0..rollouts.len()).collect();
        self.facts_by_row(rollouts, &row_keys, &all, &mut keys)
            .into_iter()
            .map(|a| a.map(|(_, facts)| facts))
            .collect()
    }

    /// The facts of the rollouts `which` (indices into `rollouts`, whose keys under the
    /// first answering scorer are `row_keys`), each with the scorer whose record answered,
    /// in the order of `which`: read row by row, in key order.
    fn facts_by_row(
        &self,
        rollouts: &[&Rollout],
        row_keys: &[String],
        which: &[usize],
        keys: &mut Keys,
    ) -> Vec<Option<(Scorer, Facts)>> {
        let mut out = vec![None; which.len()];
        // Read in key order: the keys are hashes, so rows in their own order read the
        // facts' B-tree at random, a page read per row once the table outgrows SQLite's
        // page cache; in key order, neighbours share their pages (a big batch reads each
        // page about once).
        let first = answering(self.settings.scorer)[0];
        let mut ordered: Vec<(&str, usize)> = which
            .iter()
            .enumerate()
            .map(|(at, &i)| (row_keys[i].as_str(), at))
            .collect();
        ordered.sort_unstable();
        for chunk in ordered.chunks(FACTS_CHUNK) {
            let mut backfill = Vec::new();
            let found = self
                .table
                .read(|reader| {
                    let complete = reader.complete(self.table.namespace())?;
                    Ok(chunk
                        .iter()
                        .map(|&(key, at)| {
                            let known = (first, key);
                            let r = rollouts[which[at]];
                            self.facts_in(reader, r, complete, keys, known, &mut backfill)
                        })
                        .collect::<Vec<_>>())
                })
                .unwrap_or_else(|_| vec![None; chunk.len()]);
            for ((_, at), facts) in chunk.iter().zip(found) {
                out[*at] = facts;
            }
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
        (known_scorer, known_key): (Scorer, &str),
        backfill: &mut Vec<Filing>,
    ) -> Option<(Scorer, Facts)> {
        let ns = self.table.namespace();
        answering(self.settings.scorer).iter().find_map(|&scorer| {
            let key: std::borrow::Cow<str> = if scorer == known_scorer {
                known_key.into()
            } else {
                keys.key(rollout, scorer).into()
            };
            let stored = reader.facts(ns, &key).ok().flatten();
            if let Some(facts) = stored.and_then(|f| serde_json::from_slice::<Facts>(&f).ok()) {
                return (carried_facts(&facts) == Some(scorer)).then_some((scorer, facts));
            }
            if complete {
                return None;
            }
            let value = reader.value(ns, &key).ok().flatten()?;
            let report = match Stored::read(&value)? {
                Stored::Whole(record) => record.report,
                Stored::Reference(r) => {
                    let body = reader
                        .value(self.bodies.namespace(), &r.body)
                        .ok()
                        .flatten()?;
                    join(
                        r.place,
                        serde_json::from_slice::<Record<GradeReport>>(&unpack(&body)?)
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
                    key: key.into_owned(),
                    value,
                    facts: json,
                });
            }
            Some((scorer, facts))
        })
    }
}
