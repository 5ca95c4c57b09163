//! Reading a JSONL file while it is written (a training run's step file, an evaluation's
//! rollout file): what is new since the last look. Writers write through buffers, so a file
//! grows in pieces and its last line can be half written: only whole lines (up to the last
//! newline) are handed out, and the rest is read at a later look, once the writer finished
//! it. A file rewritten under what was read (truncated, replaced, or its first or last read
//! bytes changed: a resumed verl run writes its steps again) is read again from its start,
//! and said to be, so that its rows replace the ones read before.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::rollout::LoadIssue;

/// Bytes kept from the end of what was read, to tell a grown file from a rewritten one.
const CHECK_BYTES: usize = 64;
/// Bytes at the start of the file compared (by hash) at each look where it changed.
const HEAD_BYTES: usize = 4096;

/// The reason given for a last line not yet finished when the file was opened.
pub const UNFINISHED_LINE: &str = "unfinished last line: being written, or the writer stopped while writing it; it is read when the writer finishes it";

/// What one look found besides new lines.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LookNotes {
    /// Unfinished last lines at the first look (they may stay so: a stopped writer).
    pub issues: Vec<LoadIssue>,
    /// Lines reported unfinished that have now been read: (file, line).
    pub finished: Vec<(PathBuf, usize)>,
}

/// What a look at one file found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Grown {
    /// The file was rewritten: what was read of it before is gone, `bytes` start it anew.
    pub rewritten: bool,
    /// New whole lines (a first look may end with a finished line the file has no newline
    /// after); empty when nothing new is whole yet.
    pub bytes: Vec<u8>,
    /// Lines of the file before these.
    pub line_offset: usize,
}

/// Which file a path names, and when it last changed: a replaced file is another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Stamp {
    file: (u64, u64),
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let file = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let file = (0, 0);
        Stamp {
            file,
            modified: meta.modified().ok(),
        }
    }
}

/// How far one growing file has been read.
#[derive(Debug, Default)]
pub struct FileTail {
    /// Bytes read: up to a newline, or to the end of a finished line the file had no
    /// newline after.
    read: u64,
    /// Lines in them.
    lines: usize,
    /// Hash of the first bytes read (up to `HEAD_BYTES`), and how many.
    head: (usize, u64),
    /// The last bytes read, to check that a grown file still holds them.
    last: Vec<u8>,
    stamp: Stamp,
    /// The last line read had no newline yet: one that comes next ends it.
    mid_line: bool,
    /// The line reported unfinished at the first look, until it is read.
    reported: Option<usize>,
}

impl FileTail {
    /// Nothing of the file read yet.
    pub fn new() -> FileTail {
        FileTail::default()
    }

    /// The tail of a file whose first `read` bytes (`lines` lines; `mid_line`: the last of
    /// them has no newline yet) were read by someone else (a loader reading a big file in
    /// parallel chunks); `unfinished` is the line it left unread and reported, if any.
    pub fn after(
        path: &Path,
        read: u64,
        lines: usize,
        mid_line: bool,
        unfinished: Option<usize>,
    ) -> std::io::Result<FileTail> {
        let meta = std::fs::metadata(path)?;
        let head_len = (read as usize).min(HEAD_BYTES);
        let head = read_range(path, 0, head_len)?;
        let keep = (read as usize).min(CHECK_BYTES);
        let last = read_range(path, read - keep as u64, keep)?;
        Ok(FileTail {
            read,
            lines,
            head: (head.len(), hash(&head)),
            last,
            stamp: Stamp::of(&meta),
            mid_line,
            reported: unfinished,
        })
    }

    /// Lines read so far.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// What is new in `path` (whose metadata is `meta`) since the last look. At the first
    /// look (`first`) an unfinished last line is reported in `notes` (and read later if it
    /// gets finished); later ones are lines being written, waited for silently.
    pub fn look(
        &mut self,
        path: &Path,
        meta: &std::fs::Metadata,
        first: bool,
        notes: &mut LookNotes,
    ) -> std::io::Result<Grown> {
        let stamp = Stamp::of(meta);
        let len = meta.len();
        if stamp == self.stamp && len == self.read {
            return Ok(Grown::default());
        }
        let mut rewritten = self.read > 0
            && (stamp.file != self.stamp.file
                || len < self.read
                || hash(&read_range(path, 0, self.head.0)?) != self.head.1);
        let mut bytes = Vec::new();
        if !rewritten {
            let from = self.read - self.last.len() as u64;
            let all = read_from(path, from)?;
            match all.strip_prefix(self.last.as_slice()) {
                Some(fresh) => bytes = fresh.to_vec(),
                None => rewritten = true,
            }
        }
        let first = if rewritten {
            // Read anew; a line being written there is waited for (the writer is at work).
            *self = FileTail::new();
            bytes = read_from(path, 0)?;
            false
        } else {
            first
        };
        self.stamp = stamp;
        let (bytes, line_offset) = self.take(path, &bytes, first, notes);
        Ok(Grown {
            rewritten,
            bytes,
            line_offset,
        })
    }

    /// The whole lines of `all` (the bytes after those read), advancing past them; and the
    /// lines before them.
    fn take(
        &mut self,
        path: &Path,
        all: &[u8],
        first: bool,
        notes: &mut LookNotes,
    ) -> (Vec<u8>, usize) {
        let mut skipped = 0;
        if self.mid_line && all.first() == Some(&b'\n') {
            // The newline of a line already read.
            skipped = 1;
            self.mid_line = false;
        }
        let fresh = &all[skipped..];
        let whole = fresh.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
        let rest = &fresh[whole..];
        let mut take = whole;
        let mut newlines = fresh[..whole].iter().filter(|b| **b == b'\n').count();
        let unfinished = !rest.iter().all(u8::is_ascii_whitespace);
        if first && unfinished {
            if serde_json::from_slice::<serde::de::IgnoredAny>(rest).is_ok() {
                // A finished line with no newline after it (a file written in one go).
                take = fresh.len();
                newlines += 1;
                self.mid_line = true;
            } else {
                let line = self.lines + newlines + 1;
                self.reported = Some(line);
                notes.issues.push(LoadIssue {
                    source: path.to_path_buf(),
                    line,
                    reason: UNFINISHED_LINE.to_string(),
                });
            }
        }
        let consumed = &all[..skipped + take];
        if self.head.0 < HEAD_BYTES && !consumed.is_empty() {
            // The head grows with the first reads of a file (a small file is all head).
            let head = if self.read == 0 {
                consumed[..consumed.len().min(HEAD_BYTES)].to_vec()
            } else {
                read_range(path, 0, HEAD_BYTES).unwrap_or_default()
            };
            self.head = (head.len(), hash(&head));
        }
        self.read += consumed.len() as u64;
        let keep = consumed.len().min(CHECK_BYTES);
        let mut last = std::mem::take(&mut self.last);
        last.extend_from_slice(&consumed[consumed.len() - keep..]);
        self.last = last.split_off(last.len().saturating_sub(CHECK_BYTES));
        let line_offset = self.lines;
        if take == 0 {
            return (Vec::new(), line_offset);
        }
        self.lines += newlines;
        if let Some(line) = self.reported
            && line <= self.lines
        {
            notes.finished.push((path.to_path_buf(), line));
            self.reported = None;
        }
        (fresh[..take].to_vec(), line_offset)
    }
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// The file's bytes from `offset` to its end.
fn read_from(path: &Path, offset: u64) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Up to `len` bytes of the file from `offset`.
fn read_range(path: &Path, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::with_capacity(len);
    f.take(len as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}
