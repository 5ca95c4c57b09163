//! Remembered traces, so a confirmation is run once per code and test cases: one JSONL
//! file per grader version and zwc mapping (as the score cache: a changed tracer, analysis
//! or mapping starts afresh), under `<cache dir>/sebx/traces/` (`$SEBX_TRACE_CACHE` moves
//! it; `--cache-dir DIR` puts it in `DIR/traces`, `--no-cache` turns it off: see
//! `session::CacheChoice::trace_dir`). A record is the key and the trace; the latest record of a key wins, a torn last
//! line is ignored.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Trace;
use crate::grade::runtime::cache_dir;
use crate::grade::score_cache::{api_hash, grader_version};
use crate::model::{ApiMap, TestCase};

/// Where trace caches live: `$SEBX_TRACE_CACHE`, else `<cache dir>/sebx/traces`.
pub fn default_dir() -> PathBuf {
    match std::env::var_os("SEBX_TRACE_CACHE").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => cache_dir().join("traces"),
    }
}

/// What decides a trace: the code, the entry name and the test cases.
pub fn trace_key(code: &str, entry: &str, cases: &[TestCase]) -> String {
    let mut h = Sha256::new();
    for part in [code, entry] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    for c in cases {
        h.update(c.input.as_bytes());
        h.update([1u8]);
    }
    crate::model::rollout::hex(&h.finalize()[..12])
}

#[derive(Serialize, Deserialize)]
struct Record {
    key: String,
    trace: Trace,
}

/// The cache for `api` under `dir`, opened once per process and shared (the explorer's
/// confirm job); `None` when it cannot be opened.
pub fn shared(dir: &Path, api: &ApiMap) -> Option<std::sync::Arc<TraceCache>> {
    type Open = Mutex<HashMap<(PathBuf, String), std::sync::Arc<TraceCache>>>;
    static OPEN: std::sync::LazyLock<Open> = std::sync::LazyLock::new(Default::default);
    let key = (dir.to_path_buf(), api_hash(api));
    let mut open = OPEN.lock().ok()?;
    if let Some(c) = open.get(&key) {
        return Some(c.clone());
    }
    let cache = std::sync::Arc::new(TraceCache::open(dir, api).ok()?);
    open.insert(key, cache.clone());
    Some(cache)
}

/// One grader version's remembered traces.
pub struct TraceCache {
    path: PathBuf,
    known: Mutex<HashMap<String, Trace>>,
}

impl TraceCache {
    /// Opens (creating) the cache for `api` under `dir` and reads what it holds.
    pub fn open(dir: &Path, api: &ApiMap) -> Result<TraceCache> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the trace cache {}", dir.display()))?;
        let path = dir.join(format!("{}-{}.jsonl", grader_version(), api_hash(api)));
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", path.display()));
            }
        };
        let known = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Record>(l).ok())
            .map(|r| (r.key, r.trace))
            .collect();
        Ok(TraceCache {
            path,
            known: Mutex::new(known),
        })
    }

    /// The file this cache appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn get(&self, key: &str) -> Option<Trace> {
        self.known.lock().ok()?.get(key).cloned()
    }

    /// Remembers a complete trace (an incomplete one, from a timeout, is not a fact).
    pub fn put(&self, key: &str, trace: &Trace) -> Result<()> {
        if !trace.complete {
            return Ok(());
        }
        let mut line = serde_json::to_string(&Record {
            key: key.to_string(),
            trace: trace.clone(),
        })?;
        line.push('\n');
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .with_context(|| format!("cannot open {}", self.path.display()))?;
        file.write_all(line.as_bytes())
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        if let Ok(mut known) = self.known.lock() {
            known.insert(key.to_string(), trace.clone());
        }
        Ok(())
    }
}
