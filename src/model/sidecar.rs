//! Append-only JSONL sidecar files kept next to a rollout file (labels, reruns).
//!
//! Durability and concurrency contract, shared by every sidecar:
//! - each record is one JSON line, written with one `write(2)` of the whole line on a
//!   descriptor opened with `O_APPEND`, under an exclusive `flock`, then `fsync`ed, all
//!   before [`SidecarLog::append`] returns;
//! - a crash mid-write leaves at most one damaged trailing line; loading reports it
//!   (file, line, reason) and skips it, and the next append first ends that line with
//!   a `'\n'` so the new record starts on a fresh line;
//! - processes appending at the same time never interleave: the lock serialises the
//!   "check last byte, write, fsync" sequence.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::rollout::LoadIssue;

/// Why a sidecar could not be read or written.
#[derive(Debug)]
pub enum SidecarError {
    /// A file system operation failed (`op` says which).
    Io {
        path: PathBuf,
        op: &'static str,
        source: io::Error,
    },
    /// A record could not be turned into JSON (a bug in the record type, not in the data).
    Encode { path: PathBuf, message: String },
}

impl fmt::Display for SidecarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SidecarError::Io { path, op, source } => {
                write!(f, "cannot {op} {}: {source}", path.display())
            }
            SidecarError::Encode { path, message } => {
                write!(
                    f,
                    "cannot encode a record for {}: {message}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for SidecarError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SidecarError::Io { source, .. } => Some(source),
            SidecarError::Encode { .. } => None,
        }
    }
}

/// The sidecar path for a rollout file: `<rollouts>` + `suffix`
/// (e.g. `run.jsonl` → `run.jsonl.labels.jsonl`).
pub fn sidecar_path(rollout_file: &Path, suffix: &str) -> PathBuf {
    let mut name = rollout_file.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// A record as loaded, with the 1-based line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored<T> {
    pub line: usize,
    pub record: T,
}

/// One append-only JSONL file of records of type `T`, loaded in memory in file order.
#[derive(Debug)]
pub struct SidecarLog<T> {
    path: PathBuf,
    records: Vec<Stored<T>>,
    /// Lines seen so far (including damaged ones), so appended records get the right line.
    lines: usize,
    _record: PhantomData<T>,
}

impl<T: Serialize + DeserializeOwned> SidecarLog<T> {
    /// Loads the sidecar at `path`; a missing file is an empty log (created on first append).
    /// Lines that do not parse are returned as issues and skipped.
    pub fn open(path: &Path) -> Result<(SidecarLog<T>, Vec<LoadIssue>), SidecarError> {
        let mut log = SidecarLog {
            path: path.to_path_buf(),
            records: Vec::new(),
            lines: 0,
            _record: PhantomData,
        };
        let issues = log.reload()?;
        Ok((log, issues))
    }

    /// Re-reads the file, picking up records other processes appended.
    pub fn reload(&mut self) -> Result<Vec<LoadIssue>, SidecarError> {
        let bytes = match read_locked(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(SidecarError::Io {
                    path: self.path.clone(),
                    op: "read",
                    source,
                });
            }
        };
        let (records, issues, lines) = parse_lines(&self.path, &bytes);
        self.records = records;
        self.lines = lines;
        Ok(issues)
    }

    /// The sidecar's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// All loaded records, in file (append) order.
    pub fn records(&self) -> &[Stored<T>] {
        &self.records
    }

    /// Appends one record durably (see the module doc), then keeps it in memory.
    pub fn append(&mut self, record: T) -> Result<(), SidecarError> {
        let json = serde_json::to_string(&record).map_err(|e| SidecarError::Encode {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        append_line(&self.path, json.as_bytes())?;
        // Lines written by others since our last load are not counted here; `reload` fixes that.
        self.lines += 1;
        self.records.push(Stored {
            line: self.lines,
            record,
        });
        Ok(())
    }
}

fn io_error<'a>(path: &'a Path, op: &'static str) -> impl FnOnce(io::Error) -> SidecarError + 'a {
    move |source| SidecarError::Io {
        path: path.to_path_buf(),
        op,
        source,
    }
}

/// Holds a `flock` on a file until dropped; declare it after the `File` so it is
/// dropped (unlocked) before the descriptor closes.
struct FileLock {
    fd: RawFd,
}

impl FileLock {
    /// Exclusive: for appending.
    fn exclusive(file: &File) -> io::Result<FileLock> {
        FileLock::acquire(file, libc::LOCK_EX)
    }

    /// Shared: for reading, so a reader never sees a line half written.
    fn shared(file: &File) -> io::Result<FileLock> {
        FileLock::acquire(file, libc::LOCK_SH)
    }

    fn acquire(file: &File, mode: libc::c_int) -> io::Result<FileLock> {
        let fd = file.as_raw_fd();
        loop {
            // SAFETY: flock on an open descriptor; it stays open while the guard lives.
            let rc = unsafe { libc::flock(fd, mode) };
            if rc == 0 {
                return Ok(FileLock { fd });
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // SAFETY: unlocking the descriptor locked in `acquire`; closing would also release it.
        unsafe {
            libc::flock(self.fd, libc::LOCK_UN);
        }
    }
}

/// Reads the whole file under a shared lock.
fn read_locked(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    let _lock = FileLock::shared(&file)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Appends `line` + `'\n'` to `path` under the sidecar contract.
fn append_line(path: &Path, line: &[u8]) -> Result<(), SidecarError> {
    let existed = path.exists();
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(io_error(path, "open"))?;
    let _lock = FileLock::exclusive(&file).map_err(io_error(path, "lock"))?;
    let len = file.metadata().map_err(io_error(path, "stat"))?.len();
    let mut buf = Vec::with_capacity(line.len() + 2);
    if len > 0 {
        // A damaged trailing line (crash mid-write) must not swallow the new record.
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1))
            .map_err(io_error(path, "seek in"))?;
        file.read_exact(&mut last)
            .map_err(io_error(path, "read the end of"))?;
        if last[0] != b'\n' {
            buf.push(b'\n');
        }
    }
    buf.extend_from_slice(line);
    buf.push(b'\n');
    // One write of the whole buffer; O_APPEND puts it at the end whatever the seek above did.
    let written = file.write(&buf).map_err(io_error(path, "write to"))?;
    if written < buf.len() {
        // Short write (disk full, signal): finish under the same lock so nothing interleaves.
        file.write_all(&buf[written..])
            .map_err(io_error(path, "write to"))?;
    }
    file.sync_data().map_err(io_error(path, "fsync"))?;
    if !existed {
        sync_parent_dir(path);
    }
    Ok(())
}

/// Makes a newly created file's directory entry durable; best effort.
fn sync_parent_dir(path: &Path) {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
}

type Parsed<T> = (Vec<Stored<T>>, Vec<LoadIssue>, usize);

fn parse_lines<T: DeserializeOwned>(path: &Path, bytes: &[u8]) -> Parsed<T> {
    let mut records = Vec::new();
    let mut issues = Vec::new();
    let ends_with_newline = bytes.last().is_none_or(|b| *b == b'\n');
    let pieces: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    // `split` yields an empty piece after a final '\n'; it is not a line.
    let line_count = if ends_with_newline {
        pieces.len().saturating_sub(1)
    } else {
        pieces.len()
    };
    for (idx, raw) in pieces.iter().take(line_count).enumerate() {
        let line_no = idx + 1;
        let is_last_unterminated = !ends_with_newline && idx + 1 == line_count;
        if raw.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let parsed = std::str::from_utf8(raw)
            .map_err(|e| format!("not valid UTF-8 (at byte {})", e.valid_up_to()))
            .and_then(|text| {
                serde_json::from_str::<T>(text).map_err(|e| format!("not a valid record: {e}"))
            });
        match parsed {
            Ok(record) => records.push(Stored {
                line: line_no,
                record,
            }),
            Err(reason) => {
                let reason = if is_last_unterminated {
                    format!("damaged last line (no newline; an interrupted write?): {reason}")
                } else {
                    reason
                };
                issues.push(LoadIssue {
                    source: path.to_path_buf(),
                    line: line_no,
                    reason,
                });
            }
        }
    }
    (records, issues, line_count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Rec {
        n: u32,
    }

    #[test]
    fn sidecar_path_appends_suffix() {
        assert_eq!(
            sidecar_path(Path::new("/a/run.jsonl"), ".labels.jsonl"),
            PathBuf::from("/a/run.jsonl.labels.jsonl")
        );
    }

    #[test]
    fn parse_counts_lines_and_flags_unterminated_damage() {
        let (recs, issues, lines) =
            parse_lines::<Rec>(Path::new("x"), b"{\"n\":1}\n\n{\"n\":2}\n{\"n\":");
        assert_eq!(lines, 4);
        assert_eq!(
            recs.iter()
                .map(|s| (s.line, s.record.n))
                .collect::<Vec<_>>(),
            vec![(1, 1), (3, 2)]
        );
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].line, 4);
        assert!(
            issues[0].reason.starts_with("damaged last line"),
            "{issues:?}"
        );
    }

    #[test]
    fn unterminated_but_complete_record_is_kept() {
        let (recs, issues, _) = parse_lines::<Rec>(Path::new("x"), b"{\"n\":7}");
        assert!(issues.is_empty());
        assert_eq!(recs[0].record, Rec { n: 7 });
    }
}
