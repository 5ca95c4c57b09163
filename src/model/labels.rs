//! Human labels of rollouts: error categories and a note per (rollout, annotator), kept in
//! an append-only sidecar `<rollouts>.labels.jsonl` (see [`super::sidecar`] for the
//! durability contract).
//!
//! Every change is a new record; the latest record (in file order) for a
//! (rollout, annotator) pair is that annotator's current label. A record with no
//! categories and an empty note clears the label.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::rollout::{LoadIssue, RolloutId};
use super::sidecar::{SidecarError, SidecarLog, sidecar_path};
use super::taxonomy::CategoryId;

/// Suffix of the label sidecar: `run.jsonl` → `run.jsonl.labels.jsonl`.
pub const LABELS_SUFFIX: &str = ".labels.jsonl";

/// Environment variable naming the annotator.
pub const ANNOTATOR_ENV: &str = "SEBX_ANNOTATOR";

/// One labelling change, as stored (one JSON line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelRecord {
    pub rollout: RolloutId,
    pub categories: Vec<CategoryId>,
    #[serde(default)]
    pub note: String,
    pub annotator: String,
    /// When the change was made, RFC 3339 UTC (`2026-11-29T07:35:12.123Z`); informational
    /// only: order in the file, not time, decides which record is current.
    #[serde(default)]
    pub time: String,
}

impl LabelRecord {
    /// A record stamped with the current time.
    pub fn now(
        rollout: RolloutId,
        categories: Vec<CategoryId>,
        note: &str,
        annotator: &str,
    ) -> LabelRecord {
        LabelRecord {
            rollout,
            categories,
            note: note.to_string(),
            annotator: annotator.to_string(),
            time: rfc3339_utc(SystemTime::now()),
        }
    }

    /// True when this record clears the label (no categories, no note).
    pub fn is_cleared(&self) -> bool {
        self.categories.is_empty() && self.note.trim().is_empty()
    }
}

/// How far labelling has got over a set of rollouts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Rollouts of the set with a current label (by the annotator asked about, or by anyone).
    pub labelled: usize,
    pub total: usize,
    /// How many of those rollouts carry each category.
    pub per_category: BTreeMap<CategoryId, usize>,
}

/// The labels of one rollout file.
#[derive(Debug)]
pub struct LabelStore {
    log: SidecarLog<LabelRecord>,
    /// rollout → annotator → index into the log of the latest record.
    current: HashMap<RolloutId, BTreeMap<String, usize>>,
}

impl LabelStore {
    /// Opens the label sidecar of `rollout_file` (missing: empty). Damaged lines are
    /// returned as issues and skipped.
    pub fn open(rollout_file: &Path) -> Result<(LabelStore, Vec<LoadIssue>), SidecarError> {
        LabelStore::open_sidecar(&sidecar_path(rollout_file, LABELS_SUFFIX))
    }

    /// Opens a label sidecar by its own path.
    pub fn open_sidecar(path: &Path) -> Result<(LabelStore, Vec<LoadIssue>), SidecarError> {
        let (log, issues) = SidecarLog::open(path)?;
        let mut store = LabelStore {
            log,
            current: HashMap::new(),
        };
        store.rebuild_index();
        Ok((store, issues))
    }

    /// Re-reads the sidecar to pick up other processes' changes.
    pub fn reload(&mut self) -> Result<Vec<LoadIssue>, SidecarError> {
        let issues = self.log.reload()?;
        self.rebuild_index();
        Ok(issues)
    }

    fn rebuild_index(&mut self) {
        self.current.clear();
        for i in 0..self.log.records().len() {
            self.index_record(i);
        }
    }

    fn index_record(&mut self, i: usize) {
        let r = &self.log.records()[i].record;
        self.current
            .entry(r.rollout.clone())
            .or_default()
            .insert(r.annotator.clone(), i);
    }

    /// The sidecar's path.
    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// Durably appends a change; when it returns `Ok`, the record is on disk.
    pub fn append(&mut self, record: LabelRecord) -> Result<(), SidecarError> {
        self.log.append(record)?;
        self.index_record(self.log.records().len() - 1);
        Ok(())
    }

    /// Sets the annotator's label of a rollout, appending a record (stamped now) only when
    /// it differs from the current one. Returns whether a record was written. Pass no
    /// categories and an empty note to clear the label.
    pub fn set(
        &mut self,
        id: &RolloutId,
        categories: Vec<CategoryId>,
        note: &str,
        annotator: &str,
    ) -> Result<bool, SidecarError> {
        let unchanged = match self.current(id, annotator) {
            Some(r) => r.categories == categories && r.note == note,
            None => categories.is_empty() && note.trim().is_empty(),
        };
        if unchanged {
            return Ok(false);
        }
        self.append(LabelRecord::now(id.clone(), categories, note, annotator))?;
        Ok(true)
    }

    /// Every record ever appended, in file order (the history).
    pub fn history(&self) -> impl Iterator<Item = &LabelRecord> {
        self.log.records().iter().map(|s| &s.record)
    }

    /// The changes made to one rollout, oldest first.
    pub fn history_of(&self, id: &RolloutId) -> Vec<&LabelRecord> {
        self.history().filter(|r| &r.rollout == id).collect()
    }

    /// The annotator's current label of a rollout (`None` when never labelled or cleared).
    pub fn current(&self, id: &RolloutId, annotator: &str) -> Option<&LabelRecord> {
        let i = self.current.get(id)?.get(annotator)?;
        let r = &self.log.records()[*i].record;
        (!r.is_cleared()).then_some(r)
    }

    /// Every current (not cleared) label, ordered by rollout id then annotator.
    pub fn all_current(&self) -> Vec<&LabelRecord> {
        let mut out: Vec<&LabelRecord> = self
            .current
            .values()
            .flat_map(|by_annotator| by_annotator.values())
            .map(|i| &self.log.records()[*i].record)
            .filter(|r| !r.is_cleared())
            .collect();
        out.sort_by(|a, b| (&a.rollout, &a.annotator).cmp(&(&b.rollout, &b.annotator)));
        out
    }

    /// Current labels of one rollout, one per annotator, ordered by annotator.
    pub fn current_for(&self, id: &RolloutId) -> Vec<&LabelRecord> {
        self.current
            .get(id)
            .into_iter()
            .flat_map(|by_annotator| by_annotator.values())
            .map(|i| &self.log.records()[*i].record)
            .filter(|r| !r.is_cleared())
            .collect()
    }

    /// Everyone who has a current label here, sorted.
    pub fn annotators(&self) -> Vec<String> {
        let set: BTreeSet<&str> = self
            .all_current()
            .into_iter()
            .map(|r| r.annotator.as_str())
            .collect();
        set.into_iter().map(str::to_string).collect()
    }

    /// Labelling progress over `rollouts`: by `annotator`, or by anyone when `None`
    /// (a rollout counts once per category however many annotators chose it).
    pub fn progress(&self, rollouts: &[RolloutId], annotator: Option<&str>) -> Progress {
        let mut by_rollout: HashMap<&RolloutId, BTreeSet<&CategoryId>> = HashMap::new();
        for r in self.all_current() {
            if annotator.is_none_or(|a| a == r.annotator) {
                by_rollout
                    .entry(&r.rollout)
                    .or_default()
                    .extend(r.categories.iter());
            }
        }
        let mut progress = Progress {
            total: rollouts.len(),
            ..Progress::default()
        };
        let unique: BTreeSet<&RolloutId> = rollouts.iter().collect();
        for id in unique {
            if let Some(categories) = by_rollout.get(id) {
                progress.labelled += 1;
                for c in categories {
                    *progress.per_category.entry((*c).clone()).or_default() += 1;
                }
            }
        }
        progress
    }
}

/// The annotator name: `configured` when non-empty, else `$SEBX_ANNOTATOR`, else `$USER`;
/// `None` when none names one (labels are never signed by nobody: the explorer asks).
pub fn resolve_annotator(configured: Option<&str>) -> Option<String> {
    resolve_annotator_with(configured, |k| std::env::var(k).ok())
}

/// [`resolve_annotator`] with the environment given as a lookup (for tests).
pub fn resolve_annotator_with(
    configured: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let nonempty = |s: String| {
        let t = s.trim().to_string();
        (!t.is_empty()).then_some(t)
    };
    configured
        .map(str::to_string)
        .and_then(nonempty)
        .or_else(|| env(ANNOTATOR_ENV).and_then(nonempty))
        .or_else(|| env("USER").and_then(nonempty))
}

/// Formats a time as RFC 3339 in UTC with milliseconds, e.g. `2023-11-14T22:13:20.000Z`.
/// Times before 1970 are clamped to the epoch.
pub fn rfc3339_utc(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let millis = since.subsec_millis();
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64, millis: u64) -> String {
        rfc3339_utc(UNIX_EPOCH + Duration::from_millis(secs * 1000 + millis))
    }

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 0), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(1_700_000_000, 42), "2023-11-14T22:13:20.042Z");
        assert_eq!(at(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
        assert_eq!(at(1_709_164_800, 0), "2024-02-29T00:00:00.000Z");
        assert_eq!(at(1_735_689_599, 0), "2024-12-31T23:59:59.000Z");
    }

    #[test]
    fn annotator_fallbacks() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(name, _)| *name == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let both = env(&[("SEBX_ANNOTATOR", "ann"), ("USER", "root")]);
        let name = |c, e| resolve_annotator_with(c, e);
        assert_eq!(name(Some("cfg"), both).as_deref(), Some("cfg"));
        assert_eq!(name(Some("  "), both).as_deref(), Some("ann"));
        assert_eq!(name(None, both).as_deref(), Some("ann"));
        assert_eq!(
            name(None, env(&[("SEBX_ANNOTATOR", ""), ("USER", "root")])).as_deref(),
            Some("root")
        );
        // Nothing names one: no name (never a silent "anonymous").
        assert_eq!(name(None, env(&[])), None);
        assert_eq!(name(None, env(&[("USER", " ")])), None);
    }
}
