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

/// Environment variable: sebx's own data folder (sidecars of files without a writable
/// home, the demo's); default `<data dir>/sebx`.
pub const DATA_DIR_ENV: &str = "SEBX_DATA_DIR";

/// sebx's data folder: `$SEBX_DATA_DIR`, else `<data dir>/sebx`.
pub fn data_dir() -> Option<PathBuf> {
    std::env::var_os(DATA_DIR_ENV)
        .map(PathBuf::from)
        .or_else(|| dirs::data_dir().map(|d| d.join("sebx")))
}

/// Where the sidecars of rollout files go: next to the file by default, in a folder the
/// user chose (`--sidecar-dir`, `sidecar_dir` in the config), or, when the file's folder
/// cannot be written, in sebx's data folder. Every front end asks [`SidecarPlaces::locate`],
/// so a label written by the explorer is found by `sebx labels` and the verdict resolver.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SidecarPlaces {
    /// The folder the user chose, if any.
    pub dir: Option<PathBuf>,
    /// Where sidecars go when the file's folder is not writable (`<data dir>/sidecars`).
    pub fallback: Option<PathBuf>,
}

/// One sidecar's path, and why it is not next to its rollout file when it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarPlace {
    pub path: PathBuf,
    /// Said to the user once: the file's folder was not writable, so it went elsewhere.
    pub note: Option<String>,
}

impl SidecarPlaces {
    /// Sidecars in `dir` when given, else next to their files, falling back to
    /// `<sebx data dir>/sidecars`.
    pub fn new(dir: Option<PathBuf>) -> SidecarPlaces {
        SidecarPlaces {
            dir,
            fallback: data_dir().map(|d| d.join("sidecars")),
        }
    }

    /// The sidecar of `rollout_file` with `suffix`, first found of: an existing one next to
    /// the file (labels written before always win), the chosen folder, one left in the
    /// fallback folder earlier, next to the file when its folder is writable, the fallback.
    /// In a folder of many files' sidecars the name carries a hash of the file's canonical
    /// path, so two `run.jsonl` of different folders never share one.
    pub fn locate(&self, rollout_file: &Path, suffix: &str) -> SidecarPlace {
        let beside = sidecar_path(rollout_file, suffix);
        let here = |path: PathBuf| SidecarPlace { path, note: None };
        if beside.is_file() {
            return here(beside);
        }
        let name = shared_folder_name(rollout_file, suffix);
        if let Some(dir) = &self.dir {
            return here(dir.join(&name));
        }
        let folder = match rollout_file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let Some(fallback) = self.fallback.as_ref().map(|d| d.join(&name)) else {
            return here(beside);
        };
        let read_only = !writable(folder);
        if !read_only && !fallback.is_file() {
            return here(beside);
        }
        // One note per folder (the same for every suffix); the full path is said on saving.
        let note = read_only.then(|| {
            format!(
                "{} is not writable: the sidecars (labels, reruns, bookmarks) of {} are kept in {} (--sidecar-dir DIR or sidecar_dir in the config chooses a folder)",
                folder.display(),
                rollout_file.display(),
                fallback.parent().unwrap_or(&fallback).display()
            )
        });
        SidecarPlace {
            path: fallback,
            note,
        }
    }
}

/// `<file name>.<8 hex digits of the canonical path's SHA-256><suffix>`.
fn shared_folder_name(rollout_file: &Path, suffix: &str) -> String {
    use sha2::{Digest, Sha256};
    let canonical = std::fs::canonicalize(rollout_file)
        .or_else(|_| std::path::absolute(rollout_file))
        .unwrap_or_else(|_| rollout_file.to_path_buf());
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let hash = crate::model::rollout::hex(&digest[..4]);
    let file = rollout_file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "rollouts".to_string());
    format!("{file}.{hash}{suffix}")
}

/// Whether this process may create files in `dir` (what `access(2)` says: permissions,
/// a read-only mount).
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access(2) on a NUL-terminated path that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
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
    if !existed && let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        // A sidecar folder (`--sidecar-dir`, the fallback) is made on the first record.
        std::fs::create_dir_all(parent).map_err(io_error(parent, "create"))?;
    }
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
    fn a_chosen_folder_keeps_same_named_files_apart_and_an_old_sidecar_wins() {
        let root = tempfile::tempdir().expect("tempdir");
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        for d in [&a, &b] {
            std::fs::create_dir(d).expect("mkdir");
            std::fs::write(d.join("run.jsonl"), "{}\n").expect("write");
        }
        let places = SidecarPlaces {
            dir: Some(root.path().join("side")),
            fallback: None,
        };
        let pa = places.locate(&a.join("run.jsonl"), ".labels.jsonl");
        let pb = places.locate(&b.join("run.jsonl"), ".labels.jsonl");
        assert_ne!(pa.path, pb.path, "two run.jsonl share one sidecar");
        for p in [&pa.path, &pb.path] {
            assert_eq!(p.parent(), Some(root.path().join("side").as_path()));
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            assert!(name.starts_with("run.jsonl.") && name.ends_with(".labels.jsonl"));
        }
        // The same file by another spelling of its path: the same sidecar.
        let dotted = root.path().join("a/../a/run.jsonl");
        assert_eq!(places.locate(&dotted, ".labels.jsonl").path, pa.path);
        // Labels written beside the file before the folder was chosen are still found.
        std::fs::write(a.join("run.jsonl.labels.jsonl"), "").expect("write");
        assert_eq!(
            places.locate(&a.join("run.jsonl"), ".labels.jsonl").path,
            a.join("run.jsonl.labels.jsonl")
        );
    }

    #[test]
    fn a_writable_folder_keeps_its_sidecars_beside_the_file() {
        let root = tempfile::tempdir().expect("tempdir");
        let file = root.path().join("run.jsonl");
        let places = SidecarPlaces {
            dir: None,
            fallback: Some(root.path().join("fallback")),
        };
        let place = places.locate(&file, ".reruns.jsonl");
        assert_eq!(place.path, root.path().join("run.jsonl.reruns.jsonl"));
        assert_eq!(place.note, None);
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
