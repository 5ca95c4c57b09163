//! An append-only file of JSON lines, each an object with a `"key"`, indexed by key in
//! memory (key → place of its latest line): what the score cache and the run cache are
//! made of. Lines are appended whole and flushed, so a crash loses at most the line being
//! written; a torn last line is cut when the file is opened, so the next record starts a
//! line of its own. Only the index is held; a record is read back when asked for.
//!
//! Also what names the caches' files: [`grader_version`] (a hash of the grader's sources,
//! from `build.rs`: see `source_hash`) and [`api_hash`] (the zwc mapping).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use anyhow::{Context, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::model::ApiMap;

/// Key → (offset, length) of its latest line in the file.
type Index = HashMap<String, (u64, usize)>;

pub struct KeyedLog {
    path: PathBuf,
    /// What the file is, for errors ("the score cache").
    what: &'static str,
    index: Mutex<Index>,
    file: Mutex<File>,
}

impl KeyedLog {
    /// Opens (creating it and its folder) the log at `path`, indexing what it holds.
    pub fn open(path: PathBuf, what: &'static str) -> Result<KeyedLog> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {what} {}", dir.display()))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {what} {}", path.display()))?;
        let (index, complete) =
            index(&mut file).with_context(|| format!("cannot read {what} {}", path.display()))?;
        if file.metadata().map(|m| m.len()).unwrap_or(0) > complete {
            file.set_len(complete)
                .with_context(|| format!("cannot repair {what} {}", path.display()))?;
        }
        Ok(KeyedLog {
            path,
            what,
            index: Mutex::new(index),
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many keys the file holds.
    pub fn len(&self) -> usize {
        self.index.lock().map_or(0, |i| i.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The latest line filed under `key` (without its newline).
    pub fn read(&self, key: &str) -> Option<Vec<u8>> {
        let (offset, len) = *self.index.lock().ok()?.get(key)?;
        let mut buf = vec![0u8; len];
        let mut file = self.file.lock().ok()?;
        file.seek(SeekFrom::Start(offset)).ok()?;
        file.read_exact(&mut buf).ok()?;
        buf.pop();
        Some(buf)
    }

    /// Appends `line` (one JSON object whose `"key"` is `key`, no newline) and files it.
    pub fn append(&self, key: String, mut line: Vec<u8>) -> Result<()> {
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| anyhow::anyhow!("{} lock poisoned", self.what))?;
        let offset = file.seek(SeekFrom::End(0))?;
        file.write_all(&line)
            .with_context(|| format!("cannot write {} {}", self.what, self.path.display()))?;
        file.flush()?;
        drop(file);
        if let Ok(mut index) = self.index.lock() {
            index.insert(key, (offset, line.len()));
        }
        Ok(())
    }
}

/// The index of the file's lines, and where the last complete line ends.
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
        // A line without its newline was torn by a crash: not a record.
        if n == 0 || !line.ends_with(b"\n") {
            break;
        }
        if let Ok(record) = serde_json::from_slice::<KeyOnly>(&line) {
            index.insert(record.key, (offset, n));
        }
        offset += n as u64;
    }
    Ok((index, offset))
}

/// The hash of the grader's sources, from `build.rs` (see `source_hash`).
const GRADER_SOURCES: &str = env!("SEBX_GRADER_SOURCES");

/// A short hash of the grader's sources and version: the cache's notion of "same grader".
pub fn grader_version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        let mut hasher = Sha256::new();
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.update([0u8]);
        hasher.update(GRADER_SOURCES.as_bytes());
        short_hex(&hasher.finalize())
    });
    &VERSION
}

/// `digest` in lower-case hexadecimal.
pub(super) fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first 8 bytes of `digest` in hexadecimal (file names, key parts).
pub(super) fn short_hex(digest: &[u8]) -> String {
    hex(&digest[..digest.len().min(8)])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grader_version_is_the_build_hash_of_the_sources() {
        assert_eq!(GRADER_SOURCES.len(), 16);
        assert!(GRADER_SOURCES.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(grader_version().len(), 16);
    }

    #[test]
    fn a_later_line_wins_and_a_torn_one_is_cut() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sub").join("log.jsonl");
        let log = KeyedLog::open(path.clone(), "the test log").expect("open");
        log.append("a".into(), br#"{"key":"a","v":1}"#.to_vec())
            .expect("append");
        log.append("a".into(), br#"{"key":"a","v":2}"#.to_vec())
            .expect("append");
        assert_eq!(log.read("a").as_deref(), Some(&br#"{"key":"a","v":2}"#[..]));
        drop(log);
        let mut f = OpenOptions::new().append(true).open(&path).expect("file");
        f.write_all(br#"{"key":"b","#).expect("torn");
        drop(f);
        let log = KeyedLog::open(path.clone(), "the test log").expect("reopen");
        assert_eq!(log.len(), 1);
        assert!(log.read("b").is_none());
        log.append("c".into(), br#"{"key":"c"}"#.to_vec())
            .expect("append");
        let log = KeyedLog::open(path, "the test log").expect("reopen");
        assert_eq!(log.len(), 2, "the torn line was cut, the next one whole");
        assert_eq!(log.read("c").as_deref(), Some(&br#"{"key":"c"}"#[..]));
    }
}
