//! Verdicts remembered across sessions: the explorer (and `sebx grade`) append each report
//! as it arrives to a file in the user cache, one per grader version and zwc mapping, so
//! reopening a file shows its verdicts at once instead of grading it again.
//!
//! A record is keyed by the rollout's id and a hash of what grading reads besides the
//! response (test cases, expected results); the file name carries a hash of the grader's
//! own sources and of the mapping, so a changed grader or API doc starts a new file. Lines
//! are appended whole and flushed; a torn last line (a crash mid-write) is skipped when
//! read. Only an index (key → place in the file) is kept in memory; reports are read back
//! when asked for.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::grade::report::GradeReport;
use crate::model::{ApiMap, Rollout};

/// The sources whose behaviour decides a verdict; any change to them is a new grader.
const GRADER_SOURCES: &[&str] = &[
    include_str!("../analysis/assemble.rs"),
    include_str!("compare.rs"),
    include_str!("grader.rs"),
    include_str!("pyvalue.rs"),
    include_str!("zwc_runtime.rs"),
    include_str!("py/worker.py"),
    include_str!("py/zwc_core.py"),
    include_str!("../analysis/extract.rs"),
    include_str!("../analysis/numpy_check.rs"),
    include_str!("../analysis/pyast.rs"),
    include_str!("../analysis/static_check.rs"),
];

/// A short hash of the grader's sources and version: the cache's notion of "same grader".
pub fn grader_version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        let mut hasher = Sha256::new();
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        for source in GRADER_SOURCES {
            hasher.update(source.as_bytes());
            hasher.update([0u8]);
        }
        short_hex(&hasher.finalize())
    });
    &VERSION
}

fn short_hex(digest: &[u8]) -> String {
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// A short hash of the zwc mapping (what the generated runtime and the checks read).
pub fn api_hash(api: &ApiMap) -> String {
    let mut hasher = Sha256::new();
    for (numpy, zwc) in &api.numpy_to_zwc {
        hasher.update(numpy.as_bytes());
        hasher.update([0u8]);
        hasher.update(zwc.as_bytes());
        hasher.update([1u8]);
    }
    short_hex(&hasher.finalize())
}

/// The cache key of a rollout: its id and a hash of its test cases and expected results.
pub fn rollout_key(rollout: &Rollout) -> String {
    let mut hasher = Sha256::new();
    for case in rollout.test_cases.iter() {
        hasher.update(case.input.as_bytes());
        hasher.update([0u8]);
        hasher.update(case.output.as_bytes());
        hasher.update([1u8]);
    }
    hasher.update(rollout.right_exe_result.as_bytes());
    format!("{}-{}", rollout.id.0, short_hex(&hasher.finalize()))
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

/// Key → (offset, length) of its latest line in the file.
type Index = HashMap<String, (u64, usize)>;

#[derive(Serialize, Deserialize)]
struct Record<R> {
    key: String,
    report: R,
}

/// One grader version's and mapping's remembered reports.
pub struct ScoreCache {
    path: PathBuf,
    /// key → (offset, length) of its latest line.
    index: Mutex<Index>,
    file: Mutex<File>,
}

impl std::fmt::Debug for ScoreCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoreCache")
            .field("path", &self.path)
            .finish()
    }
}

impl ScoreCache {
    /// Opens (creating) the cache for `api` under `dir`, indexing what it holds.
    pub fn open(dir: &Path, api: &ApiMap) -> Result<ScoreCache> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the score cache {}", dir.display()))?;
        let path = dir.join(format!("{}-{}.jsonl", grader_version(), api_hash(api)));
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open the score cache {}", path.display()))?;
        let (index, complete) = Self::index(&mut file)
            .with_context(|| format!("cannot read the score cache {}", path.display()))?;
        // Drop a torn last line, so the next record starts a line of its own.
        if file.metadata().map(|m| m.len()).unwrap_or(0) > complete {
            file.set_len(complete)
                .with_context(|| format!("cannot repair the score cache {}", path.display()))?;
        }
        Ok(ScoreCache {
            path,
            index: Mutex::new(index),
            file: Mutex::new(file),
        })
    }

    /// The index, and where the last complete line ends.
    fn index(file: &mut File) -> std::io::Result<(Index, u64)> {
        #[derive(Deserialize)]
        struct KeyOnly {
            key: String,
        }
        file.seek(SeekFrom::Start(0))?;
        let mut reader = BufReader::new(&mut *file);
        let mut index = HashMap::new();
        let mut offset = 0u64;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 {
                break;
            }
            // A line without its newline was torn by a crash: not a record.
            if !line.ends_with(b"\n") {
                break;
            }
            if let Ok(record) = serde_json::from_slice::<KeyOnly>(&line) {
                index.insert(record.key, (offset, n));
            }
            offset += n as u64;
        }
        Ok((index, offset))
    }

    /// The file this cache appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many rollouts the cache has a report for.
    pub fn len(&self) -> usize {
        self.index.lock().map_or(0, |i| i.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The remembered report of `rollout`, placed at its current file and line.
    pub fn get(&self, rollout: &Rollout) -> Option<GradeReport> {
        let key = rollout_key(rollout);
        let (offset, len) = *self.index.lock().ok()?.get(&key)?;
        let mut buf = vec![0u8; len];
        {
            let mut file = self.file.lock().ok()?;
            file.seek(SeekFrom::Start(offset)).ok()?;
            file.read_exact(&mut buf).ok()?;
        }
        let record: Record<GradeReport> = serde_json::from_slice(&buf).ok()?;
        if record.key != key {
            return None;
        }
        let mut report = record.report;
        report.source = rollout.source.display().to_string();
        report.line = rollout.line;
        report.id = Some(rollout.id.clone());
        Some(report)
    }

    /// Remembers `report` for `rollout` (a report without a verdict is not remembered).
    pub fn put(&self, rollout: &Rollout, report: &GradeReport) -> Result<()> {
        if report.verdict.is_none() {
            return Ok(());
        }
        let key = rollout_key(rollout);
        let mut line = serde_json::to_vec(&Record {
            key: key.clone(),
            report,
        })?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| anyhow::anyhow!("score cache lock poisoned"))?;
        let offset = file.seek(SeekFrom::End(0))?;
        file.write_all(&line)
            .with_context(|| format!("cannot write the score cache {}", self.path.display()))?;
        file.flush()?;
        drop(file);
        if let Ok(mut index) = self.index.lock() {
            index.insert(key, (offset, line.len()));
        }
        Ok(())
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
            let cache = ScoreCache::open(dir.path(), &api).expect("open");
            assert!(cache.get(&a).is_none());
            cache.put(&a, &report(Verdict::ExeError)).expect("put");
            cache.put(&a, &report(Verdict::Right)).expect("put");
            cache.put(&b, &report(Verdict::WithoutZwc)).expect("put");
            assert_eq!(cache.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
        }
        let cache = ScoreCache::open(dir.path(), &api).expect("reopen");
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
        let cache = ScoreCache::open(dir.path(), &api).expect("open");
        cache
            .put(&rollout("A", "1"), &report(Verdict::Right))
            .expect("put");
        // Same response, other expected result: not the same grading.
        assert!(cache.get(&rollout("A", "2")).is_none());
        let mut other = ApiMap::default();
        other
            .numpy_to_zwc
            .insert("np.mean".to_string(), "zwc.kocito".to_string());
        let cache2 = ScoreCache::open(dir.path(), &other).expect("open");
        assert_ne!(cache.path(), cache2.path());
        assert!(cache2.get(&rollout("A", "1")).is_none());
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_later_records_still_land() {
        let dir = tempfile::tempdir().expect("tempdir");
        let api = ApiMap::default();
        let a = rollout("A", "1");
        let path = {
            let cache = ScoreCache::open(dir.path(), &api).expect("open");
            cache.put(&a, &report(Verdict::Right)).expect("put");
            cache.path().to_path_buf()
        };
        // A crash in the middle of the next record.
        let mut f = OpenOptions::new().append(true).open(&path).expect("open");
        f.write_all(br#"{"key":"torn","report":{"verd"#)
            .expect("write");
        drop(f);
        let cache = ScoreCache::open(dir.path(), &api).expect("reopen");
        assert_eq!(cache.len(), 1);
        let b = rollout("B", "1");
        cache.put(&b, &report(Verdict::ExeError)).expect("put");
        let cache = ScoreCache::open(dir.path(), &api).expect("reopen");
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
        let cache = ScoreCache::open(dir.path(), &api).expect("open");
        let a = rollout("A", "1");
        let mut failed = report(Verdict::Right);
        failed.verdict = None;
        cache.put(&a, &failed).expect("put");
        assert!(cache.get(&a).is_none());
        cache.put(&a, &report(Verdict::Right)).expect("put");
        drop(cache);
        assert_eq!(clear(dir.path()).expect("clear"), 1);
        let cache = ScoreCache::open(dir.path(), &api).expect("reopen");
        assert!(cache.is_empty());
    }
}
