//! Following a training run while verl writes it: what of each step file is new since the
//! last look. verl writes a `{step}.jsonl` through a buffered file, so a step file grows in
//! pieces and its last line can be half written: only whole lines (up to the last newline)
//! are handed out, and the rest is read at a later look, once the writer has finished it.
//! A look lists the folder and compares sizes (polling, not file-system events: inotify
//! does not see writes made on another machine of a shared file system, where training runs
//! usually write, and a listing of a few hundred files a second costs nothing).

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::folder::{DumpRun, step_of_file_name};
use super::line::parse_sample;
use crate::model::rollout::LoadIssue;

/// Bytes kept from the end of what was read, to tell a grown file from a rewritten one.
const CHECK_BYTES: usize = 64;

/// The reason given for a last line not yet finished when the run was opened.
pub const UNFINISHED_LINE: &str = "unfinished last line: being written, or the run stopped while writing it; it is read when the writer finishes it";

/// The note on a step file that shrank or changed under what was read.
pub const REWRITTEN: &str = "step file rewritten while followed (a resumed run writes its steps again): the rows shown are what was read before; open the run again to read it as it is now";

/// New whole lines of one step file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLines {
    pub step: u32,
    pub path: PathBuf,
    /// Whole lines (a first look may end with a finished line the file has no newline after).
    pub bytes: Vec<u8>,
    /// Lines of the file before these.
    pub line_offset: usize,
}

/// What one look found besides new lines.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LookNotes {
    /// Unfinished last lines at the first look (they may stay so: a stopped run) and
    /// rewritten step files.
    pub issues: Vec<LoadIssue>,
    /// Lines reported unfinished that have now been read: (file, line).
    pub finished: Vec<(PathBuf, usize)>,
}

/// How far one step file has been read.
#[derive(Debug)]
struct FileTail {
    step: u32,
    /// Bytes read: up to a newline, or to the end of a finished line the file had no
    /// newline after.
    read: u64,
    /// Lines in them.
    lines: usize,
    /// The last bytes read, to check that a grown file still holds them.
    last: Vec<u8>,
    /// The last line read had no newline yet: one that comes next ends it.
    mid_line: bool,
    /// The line reported unfinished at the first look, until it is read.
    reported: Option<usize>,
    /// Rewritten under us: no longer read.
    rewritten: bool,
}

/// What of a run's step files has been read; [`look`](RunTail::look) reads what is new.
#[derive(Debug)]
pub struct RunTail {
    dir: PathBuf,
    single_step: Option<u32>,
    files: BTreeMap<PathBuf, FileTail>,
    looked: bool,
}

impl RunTail {
    /// Nothing of the run read yet: the first look reads every step file there is.
    pub fn new(run: &DumpRun) -> RunTail {
        RunTail {
            dir: run.dir.clone(),
            single_step: run.single_step,
            files: BTreeMap::new(),
            looked: false,
        }
    }

    /// The run's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Hands the new whole lines of every step file to `each`, in step order. At the first
    /// look an unfinished last line is reported (and read later if it gets finished); later
    /// ones are lines being written, waited for silently.
    pub fn look(&mut self, each: &mut dyn FnMut(NewLines)) -> std::io::Result<LookNotes> {
        let first = !self.looked;
        self.looked = true;
        let mut found: Vec<(u32, PathBuf, u64)> = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let Ok(entry) = entry else { continue };
            let path = entry.path();
            let Some(step) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(step_of_file_name)
            else {
                continue;
            };
            if self.single_step.is_some_and(|s| s != step) {
                continue;
            }
            // A file removed between the listing and here is just not there.
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() {
                found.push((step, path, meta.len()));
            }
        }
        found.sort();
        let mut notes = LookNotes::default();
        for (step, path, len) in found {
            let tail = self.files.entry(path.clone()).or_insert(FileTail {
                step,
                read: 0,
                lines: 0,
                last: Vec::new(),
                mid_line: false,
                reported: None,
                rewritten: false,
            });
            if tail.rewritten || len == tail.read {
                continue;
            }
            if len < tail.read {
                tail.rewritten = true;
                notes.issues.push(rewritten(&path));
                continue;
            }
            // A file deleted or unreadable for a moment is tried again at the next look.
            let Ok(bytes) = read_from(&path, tail.read - tail.last.len() as u64) else {
                continue;
            };
            let Some(fresh) = bytes.strip_prefix(tail.last.as_slice()) else {
                tail.rewritten = true;
                notes.issues.push(rewritten(&path));
                continue;
            };
            if let Some(new) = tail.take(&path, fresh, first, &mut notes) {
                each(new);
            }
        }
        Ok(notes)
    }
}

impl FileTail {
    /// The whole lines of `fresh` (the bytes after those read), advancing past them.
    fn take(
        &mut self,
        path: &Path,
        all: &[u8],
        first: bool,
        notes: &mut LookNotes,
    ) -> Option<NewLines> {
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
            if parse_sample(rest).is_ok() {
                // A finished line with no newline after it (a file not written by verl).
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
        self.read += (skipped + take) as u64;
        let consumed = &all[..skipped + take];
        let keep = consumed.len().min(CHECK_BYTES);
        let mut last = std::mem::take(&mut self.last);
        last.extend_from_slice(&consumed[consumed.len() - keep..]);
        self.last = last.split_off(last.len().saturating_sub(CHECK_BYTES));
        if take == 0 {
            return None;
        }
        let line_offset = self.lines;
        self.lines += newlines;
        if let Some(line) = self.reported
            && line <= self.lines
        {
            notes.finished.push((path.to_path_buf(), line));
            self.reported = None;
        }
        Some(NewLines {
            step: self.step,
            path: path.to_path_buf(),
            bytes: fresh[..take].to_vec(),
            line_offset,
        })
    }
}

fn rewritten(path: &Path) -> LoadIssue {
    LoadIssue {
        source: path.to_path_buf(),
        line: 0,
        reason: REWRITTEN.to_string(),
    }
}

/// The file's bytes from `offset` to its end.
fn read_from(path: &Path, offset: u64) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn sample(n: usize) -> String {
        format!("{{\"input\": \"p{n}\", \"output\": \"o{n}\", \"score\": 1.0}}\n")
    }

    fn run_at(dir: &Path, single_step: Option<u32>) -> DumpRun {
        DumpRun {
            name: "rollout".to_string(),
            dir: dir.to_path_buf(),
            steps: Vec::new(),
            skipped: Vec::new(),
            single_step,
        }
    }

    fn look(tail: &mut RunTail) -> (Vec<NewLines>, LookNotes) {
        let mut got = Vec::new();
        let notes = tail.look(&mut |n| got.push(n)).expect("look");
        (got, notes)
    }

    fn append(path: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open");
        f.write_all(text.as_bytes()).expect("write");
    }

    #[test]
    fn new_steps_and_appended_lines_are_read_once_each_with_their_line_numbers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (one, two) = (dir.path().join("1.jsonl"), dir.path().join("2.jsonl"));
        append(&one, &(sample(1) + &sample(2)));
        std::fs::write(dir.path().join("notes.jsonl"), sample(9)).expect("write");
        let mut tail = RunTail::new(&run_at(dir.path(), None));
        let (got, notes) = look(&mut tail);
        assert_eq!(notes, LookNotes::default());
        assert_eq!(got.len(), 1, "the step file, not notes.jsonl");
        assert_eq!((got[0].step, got[0].line_offset), (1, 0));
        assert_eq!(got[0].bytes, (sample(1) + &sample(2)).into_bytes());
        assert!(look(&mut tail).0.is_empty(), "nothing new");

        append(&one, &sample(3));
        append(&two, &sample(4));
        let (got, _) = look(&mut tail);
        let seen: Vec<(u32, usize, Vec<u8>)> = got
            .into_iter()
            .map(|n| (n.step, n.line_offset, n.bytes))
            .collect();
        assert_eq!(
            seen,
            [
                (1, 2, sample(3).into_bytes()),
                (2, 0, sample(4).into_bytes())
            ]
        );
    }

    #[test]
    fn a_line_being_written_is_read_once_the_writer_finishes_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("3.jsonl");
        let line = sample(2);
        let (head, rest) = line.split_at(10);
        append(&path, &(sample(1) + head));
        let mut tail = RunTail::new(&run_at(dir.path(), None));
        let (got, notes) = look(&mut tail);
        assert_eq!(got[0].bytes, sample(1).into_bytes(), "only the whole line");
        // Unfinished at the first look: said (it may stay so), then taken back when read.
        assert_eq!(notes.issues.len(), 1);
        assert_eq!(
            (notes.issues[0].line, &*notes.issues[0].reason),
            (2, UNFINISHED_LINE)
        );
        append(&path, &rest[..rest.len() - 1]);
        let (got, notes) = look(&mut tail);
        assert!(got.is_empty(), "still no newline: {got:?}");
        assert_eq!(notes, LookNotes::default());
        append(&path, "\n");
        let (got, notes) = look(&mut tail);
        assert_eq!(
            (got[0].line_offset, got[0].bytes.clone()),
            (1, line.into_bytes())
        );
        assert_eq!(notes.finished, [(path.clone(), 2)]);
        // A line torn after the first look is waited for without a word.
        append(&path, &sample(3)[..5]);
        assert_eq!(look(&mut tail), (Vec::new(), LookNotes::default()));
    }

    #[test]
    fn a_finished_last_line_without_newline_is_read_at_once_and_its_newline_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("1.jsonl");
        append(&path, sample(1).trim_end());
        let mut tail = RunTail::new(&run_at(dir.path(), None));
        let (got, notes) = look(&mut tail);
        assert_eq!(got[0].bytes, sample(1).trim_end().as_bytes());
        assert!(notes.issues.is_empty());
        append(&path, &("\n".to_string() + &sample(2)));
        let (got, _) = look(&mut tail);
        assert_eq!(
            (got[0].line_offset, got[0].bytes.clone()),
            (1, sample(2).into_bytes())
        );
    }

    #[test]
    fn a_rewritten_step_file_is_said_and_no_longer_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("1.jsonl");
        append(&path, &(sample(1) + &sample(2)));
        let mut tail = RunTail::new(&run_at(dir.path(), None));
        look(&mut tail);
        // Rewritten from the start, longer than before: not new lines after the old ones.
        std::fs::write(&path, sample(7) + &sample(8) + &sample(9)).expect("write");
        let (got, notes) = look(&mut tail);
        assert!(got.is_empty());
        assert_eq!(notes.issues.len(), 1);
        assert_eq!(notes.issues[0].reason, REWRITTEN);
        append(&path, &sample(10));
        assert_eq!(look(&mut tail), (Vec::new(), LookNotes::default()));
    }

    #[test]
    fn folder_at_step_follows_that_step_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        append(&dir.path().join("4.jsonl"), &sample(1));
        let mut tail = RunTail::new(&run_at(dir.path(), Some(4)));
        assert_eq!(look(&mut tail).0.len(), 1);
        append(&dir.path().join("5.jsonl"), &sample(2));
        append(&dir.path().join("4.jsonl"), &sample(3));
        let (got, _) = look(&mut tail);
        assert_eq!(got.iter().map(|n| n.step).collect::<Vec<_>>(), [4]);
    }
}
