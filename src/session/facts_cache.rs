//! The figures' facts of a `sebx stats` run over training runs, remembered beside the score
//! cache (`training-<key>.jsonl`; `sebx cache clear` removes them too), so asking again for
//! other tables or formats of the same run takes a fraction of a second instead of
//! reading a gigabyte of dumps again.
//!
//! The key ([`FactsKey`], typed fields) is everything the facts depend on: every input file
//! and every step file of the training runs (path, size, modification time to the
//! nanosecond), the label sidecars beside the runs, the taxonomy files whose categories the
//! facts hold, the API doc and dataset files, the grader's version, a build-time hash of the
//! code that computes the facts, the API mapping, the grading timeout, the annotator and whether
//! the behaviour questions were asked. A dump that grows (training goes on),
//! a relabelled run or another grader gives another key, so the facts are computed anew.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::grade::runs::RunSet;
use crate::grade::score_cache::{api_hash, grader_version};
use crate::model::ApiMap;

use super::loaded::{Loaded, LoadedRun};

/// Files of this cache kept in the folder (the most recently written).
const KEEP: usize = 8;

/// What is read back (written as [`store`]'s `StoredRef`, the same fields).
#[derive(Deserialize)]
struct Stored {
    key: String,
    set: RunSet,
    runs: Vec<LoadedRun>,
    notes: Vec<String>,
}

/// A file's identity in a key: its path (canonical where it exists), size and
/// modification time to the nanosecond; a missing file is recorded as missing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct FileId {
    pub path: PathBuf,
    /// (size, modification time in ns since the epoch); `None`: missing.
    pub stamp: Option<(u64, u128)>,
}

impl FileId {
    pub fn of(path: &Path) -> FileId {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let stamp = std::fs::metadata(&path).ok().map(|m| {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            (m.len(), mtime)
        });
        FileId { path, stamp }
    }
}

/// Everything that decides the remembered facts, as typed fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactsKey {
    /// The grader's sources ([`grader_version`]).
    pub grader: String,
    /// The code that turns runs into facts (`src/session/`, `src/model/`), hashed at build
    /// time.
    pub figure_code: &'static str,
    /// The zwc mapping ([`api_hash`]).
    pub api: String,
    /// The grading timeout in milliseconds.
    pub timeout_ms: u128,
    /// The annotator asked for (`None`: the one with most labels per file).
    pub annotator: Option<String>,
    /// Whether the behaviour questions were asked of paid rollouts (`--no-behaviour`:
    /// other loophole figures).
    pub behaviour: bool,
    /// The runs, in order, as the inputs name them (a training run's name says which
    /// steps it reads: `run@3`), each with its steps.
    pub runs: Vec<(String, Vec<u32>)>,
    /// Every file read: inputs, step files, sidecars, API doc, datasets and the taxonomy
    /// files whose categories the facts store, sorted.
    pub files: Vec<FileId>,
    /// How each training run is read where its step files do not say it (a TRL run's reward
    /// functions and weights, from `$SEBX_TRL_REWARDS` or a `trainer_state.json`), in run order.
    pub reading: Vec<String>,
}

impl FactsKey {
    pub fn new(
        files: &[PathBuf],
        runs: Vec<(String, Vec<u32>)>,
        api: &ApiMap,
        timeout: std::time::Duration,
        annotator: Option<&str>,
        behaviour: bool,
    ) -> FactsKey {
        let mut files: Vec<FileId> = files.iter().map(|f| FileId::of(f)).collect();
        files.sort();
        files.dedup();
        FactsKey {
            grader: grader_version().to_string(),
            figure_code: env!("SEBX_FIGURE_SOURCES"),
            api: api_hash(api),
            timeout_ms: timeout.as_millis(),
            annotator: annotator.map(str::to_string),
            behaviour,
            runs,
            files,
            reading: Vec::new(),
        }
    }

    /// The key with how the runs are read ([`FactsKey::reading`]).
    pub fn with_reading(mut self, reading: Vec<String>) -> FactsKey {
        self.reading = reading;
        self
    }

    /// The key's digest, which names the remembered facts.
    pub fn digest(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(serde_json::to_vec(self).unwrap_or_default());
        crate::model::rollout::hex(&hasher.finalize()[..12])
    }
}

fn path_of(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("training-{key}.jsonl"))
}

/// The facts remembered under `key`, if any (a damaged file is a miss).
pub fn load(dir: &Path, key: &str) -> Option<Loaded> {
    let text = std::fs::read(path_of(dir, key)).ok()?;
    let stored: Stored = serde_json::from_slice(&text).ok()?;
    if stored.key != key {
        return None;
    }
    let mut set = stored.set;
    set.reindex();
    Some(Loaded {
        set,
        runs: stored.runs,
        // What the first run said of its own work (grading, the score cache) is past.
        notes: stored
            .notes
            .into_iter()
            .map(|n| format!("(when first computed) {n}"))
            .collect(),
    })
}

/// Remembers `loaded` under `key` (written whole, then renamed into place); keeps the
/// [`KEEP`] newest files. A cache that cannot be written only costs the time next run.
pub fn store(dir: &Path, key: &str, loaded: &Loaded) {
    // Written from borrows: the set of a big run is not copied to be saved.
    #[derive(Serialize)]
    struct StoredRef<'a> {
        key: &'a str,
        set: &'a RunSet,
        runs: &'a [LoadedRun],
        notes: &'a [String],
    }
    let stored = StoredRef {
        key,
        set: &loaded.set,
        runs: &loaded.runs,
        notes: &loaded.notes,
    };
    let Ok(text) = serde_json::to_vec(&stored) else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let path = path_of(dir, key);
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
    prune(dir);
}

fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("training-") && n.ends_with(".jsonl"))
        })
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, p) in files.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_key_changes_with_every_input_that_decides_the_facts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let taxonomy = dir.path().join("sebx-taxonomy.toml");
        std::fs::write(&taxonomy, "a").expect("write");
        let api = ApiMap::default();
        let run = |steps: Vec<u32>| vec![("rollout".to_string(), steps)];
        let key = |files: &[PathBuf], runs, t: u64, who: Option<&str>| {
            FactsKey::new(files, runs, &api, Duration::from_secs(t), who, true).digest()
        };
        let files = [taxonomy.clone()];
        let base = key(&files, run(vec![1, 2]), 3, None);
        assert_eq!(base, key(&files, run(vec![1, 2]), 3, None), "deterministic");
        assert_ne!(base, key(&files, run(vec![1]), 3, None), "the steps read");
        assert_ne!(
            base,
            key(
                &files,
                vec![("rollout@1".into(), vec![1]), ("rollout@2".into(), vec![2])],
                3,
                None
            ),
            "two runs of one step each are not one run of two steps"
        );
        assert_ne!(base, key(&files, run(vec![1, 2]), 10, None), "the timeout");
        assert_ne!(
            base,
            key(&files, run(vec![1, 2]), 3, Some("ann")),
            "the annotator"
        );
        let without = FactsKey::new(
            &files,
            run(vec![1, 2]),
            &api,
            Duration::from_secs(3),
            None,
            false,
        );
        assert_ne!(base, without.digest(), "the behaviour questions");
        std::fs::write(&taxonomy, "a longer taxonomy").expect("rewrite");
        assert_ne!(
            base,
            key(&files, run(vec![1, 2]), 3, None),
            "the taxonomy's content"
        );
    }
}
