//! Following a training run while verl writes it: what of each step file is new since the
//! last look, each file read through a [`FileTail`] (whole lines only; a step file
//! rewritten by a resumed run is read again from its start). A look lists the folder and
//! compares sizes: the follower looks when the file system says the folder changed, and
//! every second besides (inotify does not see writes made on another machine of a shared
//! file system, where training runs usually write, and a listing costs nothing). A table
//! (TRL's parquet) has no lines: it is read whole once its footer is written, and again
//! whole if it changes after that.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::folder::DumpRun;
use super::formats::Format;
use super::trl;
use crate::model::rollout::LoadIssue;
use crate::model::tail::{FileTail, LookNotes};

/// New whole lines of one step file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLines {
    pub step: u32,
    pub path: PathBuf,
    /// Whole lines (a first look may end with a finished line the file has no newline
    /// after); empty when a rewritten file has no whole line yet.
    pub bytes: Vec<u8>,
    /// Lines of the file before these.
    pub line_offset: usize,
    /// The file was rewritten (a resumed run): these lines start it anew, and replace
    /// what was read of it before.
    pub rewritten: bool,
}

/// What of a run's step files has been read; [`look`](RunTail::look) reads what is new.
#[derive(Debug)]
pub struct RunTail {
    dir: PathBuf,
    single_step: Option<u32>,
    format: Format,
    files: BTreeMap<PathBuf, (u32, Tail)>,
    looked: bool,
}

/// How far one step file has been read: its whole lines, or (a table) whether it was.
#[derive(Debug)]
enum Tail {
    Lines(FileTail),
    Table(TableTail),
}

/// A table step file: read whole once complete, and again whole when it changes.
#[derive(Debug, Default)]
struct TableTail {
    /// Length, modification time and inode at the last look that read it or found it
    /// half written: an unchanged file is not read again.
    seen: Option<(u64, Option<std::time::SystemTime>, u64)>,
    /// It was read complete once (a later change rewrites its rows).
    read: bool,
    /// Said half written at the first look: taken back once read.
    reported: bool,
}

impl TableTail {
    fn look(
        &mut self,
        path: &Path,
        meta: &std::fs::Metadata,
        first: bool,
        notes: &mut LookNotes,
    ) -> std::io::Result<Option<Vec<u8>>> {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        let stamp = (meta.len(), meta.modified().ok(), inode);
        if self.seen == Some(stamp) {
            return Ok(None);
        }
        let bytes = std::fs::read(path)?;
        self.seen = Some(stamp);
        if !trl::is_complete(&bytes) {
            // Being written (pyarrow writes the footer on close): waited for, said only
            // when it was so at the first look (its writer may have stopped).
            if first && !bytes.is_empty() {
                self.reported = true;
                notes.issues.push(LoadIssue {
                    source: path.to_path_buf(),
                    line: 0,
                    reason: trl::HALF_WRITTEN_TABLE.to_string(),
                });
            }
            return Ok(None);
        }
        if std::mem::take(&mut self.reported) {
            notes.finished.push((path.to_path_buf(), 0));
        }
        Ok(Some(bytes))
    }
}

impl RunTail {
    /// Nothing of the run read yet: the first look reads every step file there is.
    pub fn new(run: &DumpRun) -> RunTail {
        RunTail {
            dir: run.dir.clone(),
            single_step: run.single_step,
            format: run.format,
            files: BTreeMap::new(),
            looked: false,
        }
    }

    /// The run's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Hands the new whole lines of every step file to `each`, in step order (and a
    /// rewritten file, even with no whole line yet). At the first look an unfinished last
    /// line is reported (and read later if it gets finished); later ones are lines being
    /// written, waited for silently.
    pub fn look(&mut self, each: &mut dyn FnMut(NewLines)) -> std::io::Result<LookNotes> {
        let first = !self.looked;
        self.looked = true;
        let mut found: Vec<(u32, PathBuf, std::fs::Metadata)> = Vec::new();
        let (steps, _) = self.format.list(&self.dir)?;
        for (step, path) in steps {
            if self.single_step.is_some_and(|s| s != step) {
                continue;
            }
            // A file removed between the listing and here is just not there.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_file() {
                found.push((step, path, meta));
            }
        }
        found.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let mut notes = LookNotes::default();
        for (step, path, meta) in found {
            let table = self.format.is_table();
            let (_, tail) = self.files.entry(path.clone()).or_insert_with(|| {
                let tail = match table {
                    true => Tail::Table(TableTail::default()),
                    false => Tail::Lines(FileTail::new()),
                };
                (step, tail)
            });
            let grown = match tail {
                Tail::Lines(tail) => tail.look(&path, &meta, first, &mut notes),
                Tail::Table(tail) => {
                    let was_read = tail.read;
                    tail.look(&path, &meta, first, &mut notes).map(|bytes| {
                        let bytes = bytes.unwrap_or_default();
                        tail.read |= !bytes.is_empty();
                        crate::model::tail::Grown {
                            rewritten: was_read && !bytes.is_empty(),
                            bytes,
                            line_offset: 0,
                        }
                    })
                }
            };
            // A file deleted or unreadable for a moment is tried again at the next look.
            let Ok(grown) = grown else {
                continue;
            };
            if grown.rewritten || !grown.bytes.is_empty() {
                each(NewLines {
                    step,
                    path,
                    bytes: grown.bytes,
                    line_offset: grown.line_offset,
                    rewritten: grown.rewritten,
                });
            }
        }
        Ok(notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tail::UNFINISHED_LINE;
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
            format: Format::Verl,
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
    fn a_rewritten_step_file_is_read_again_from_its_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("1.jsonl");
        append(&path, &(sample(1) + &sample(2)));
        let mut tail = RunTail::new(&run_at(dir.path(), None));
        look(&mut tail);
        // Rewritten in place, longer than before: not new lines after the old ones.
        std::fs::write(&path, sample(7) + &sample(8) + &sample(9)).expect("write");
        let (got, notes) = look(&mut tail);
        assert_eq!(notes, LookNotes::default());
        assert_eq!(got.len(), 1);
        assert!(got[0].rewritten);
        assert_eq!(
            (got[0].line_offset, got[0].bytes.clone()),
            (0, (sample(7) + &sample(8) + &sample(9)).into_bytes())
        );
        // Then followed as any file.
        append(&path, &sample(10));
        let (got, _) = look(&mut tail);
        assert_eq!(
            (got[0].rewritten, got[0].line_offset, got[0].bytes.clone()),
            (false, 3, sample(10).into_bytes())
        );
        // Truncated (a resumed run opens it for writing): said at once, with no line yet;
        // then its lines are read from the start.
        std::fs::write(&path, "").expect("truncate");
        let (got, _) = look(&mut tail);
        assert_eq!(
            (got.len(), got[0].rewritten, got[0].bytes.len()),
            (1, true, 0)
        );
        append(&path, &sample(11));
        let (got, _) = look(&mut tail);
        assert_eq!(
            (got[0].rewritten, got[0].line_offset, got[0].bytes.clone()),
            (false, 0, sample(11).into_bytes())
        );
        // Replaced by another file (written aside and renamed over it), as long as before.
        let aside = dir.path().join("tmp");
        std::fs::write(&aside, sample(12)).expect("write");
        std::fs::rename(&aside, &path).expect("rename");
        let (got, _) = look(&mut tail);
        assert!(got[0].rewritten, "{got:?}");
        assert_eq!(got[0].bytes, sample(12).into_bytes());
    }

    #[test]
    fn a_step_file_half_written_by_a_background_thread_is_read_once_whole_without_a_note() {
        // verl 0.8 writes a step's dump from a thread: a look can see it half written.
        let dir = tempfile::tempdir().expect("tempdir");
        append(&dir.path().join("1.jsonl"), &sample(1));
        let mut tail = RunTail::new(&run_at(dir.path(), None));
        look(&mut tail);
        let two = dir.path().join("2.jsonl");
        let whole = sample(2) + &sample(3);
        append(&two, &whole[..whole.len() - 7]);
        // Polled many times while the writer is slow: the torn line is waited for silently.
        // Its whole first line is read at once; the torn second one is waited for, however
        // many times it is looked at, without a note.
        let (got, notes) = look(&mut tail);
        assert_eq!(notes, LookNotes::default());
        assert_eq!(got[0].bytes, sample(2).into_bytes());
        for _ in 0..5 {
            assert_eq!(look(&mut tail), (Vec::new(), LookNotes::default()));
        }
        append(&two, &whole[whole.len() - 7..]);
        let (got, notes) = look(&mut tail);
        assert_eq!(notes, LookNotes::default());
        assert_eq!(
            (got[0].line_offset, got[0].bytes.clone()),
            (1, sample(3).into_bytes())
        );
    }

    #[test]
    fn a_format_with_a_folder_per_step_is_followed_as_its_folders_appear() {
        // AReaL: `{version}/{task_id}.jsonl`, each task's file appended.
        let line = |n: usize| {
            format!(
                "{{\"task_id\": {n}, \"prompt\": \"p{n}\", \"completion\": \"c{n}\", \"reward\": 1.0}}\n"
            )
        };
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("1")).expect("mkdir");
        append(&dir.path().join("1").join("0.jsonl"), &line(0));
        let run = DumpRun {
            format: Format::Areal,
            ..run_at(dir.path(), None)
        };
        let mut tail = RunTail::new(&run);
        let (got, _) = look(&mut tail);
        assert_eq!(got.iter().map(|n| n.step).collect::<Vec<_>>(), [1]);
        std::fs::create_dir(dir.path().join("2")).expect("mkdir");
        append(&dir.path().join("2").join("1.jsonl"), &line(1));
        append(&dir.path().join("1").join("0.jsonl"), &line(2));
        let (got, _) = look(&mut tail);
        let seen: Vec<(u32, usize, Vec<u8>)> = got
            .into_iter()
            .map(|n| (n.step, n.line_offset, n.bytes))
            .collect();
        assert_eq!(
            seen,
            [(1, 1, line(2).into_bytes()), (2, 0, line(1).into_bytes())]
        );
    }

    #[test]
    fn a_table_seen_half_written_is_waited_for_silently_and_read_whole_once_complete() {
        // TRL's parquet (pyarrow writes the footer on close), written by pandas.
        let whole: &[u8] =
            include_bytes!("../../../tests/fixtures/trl/run/completions/completions_00001.parquet");
        let dir = tempfile::tempdir().expect("tempdir");
        let run = DumpRun {
            format: Format::Trl,
            ..run_at(dir.path(), None)
        };
        let mut tail = RunTail::new(&run);
        assert_eq!(look(&mut tail), (Vec::new(), LookNotes::default()));
        let path = dir.path().join("completions_00001.parquet");
        // Growing, many looks: no rows and not a word.
        for n in [4, 100, whole.len() / 2, whole.len() - 1] {
            std::fs::write(&path, &whole[..n]).expect("write");
            assert_eq!(look(&mut tail), (Vec::new(), LookNotes::default()), "{n}");
        }
        std::fs::write(&path, whole).expect("write");
        let (got, notes) = look(&mut tail);
        assert_eq!(notes, LookNotes::default());
        assert_eq!(
            (
                got.len(),
                got[0].step,
                got[0].rewritten,
                got[0].bytes.as_slice()
            ),
            (1, 1, false, whole)
        );
        assert!(look(&mut tail).0.is_empty(), "read once");
        // Written again (a resumed run): its rows replace the ones read.
        std::fs::write(&path, &whole[..20]).expect("write");
        assert!(look(&mut tail).0.is_empty());
        std::fs::write(&path, whole).expect("write");
        let (got, _) = look(&mut tail);
        assert!(got[0].rewritten);
    }

    #[test]
    fn a_table_half_written_when_first_seen_is_said_once_and_taken_back() {
        let whole: &[u8] =
            include_bytes!("../../../tests/fixtures/trl/run/completions/completions_00002.parquet");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("completions_00002.parquet");
        std::fs::write(&path, &whole[..whole.len() / 2]).expect("write");
        let run = DumpRun {
            format: Format::Trl,
            ..run_at(dir.path(), None)
        };
        let mut tail = RunTail::new(&run);
        let (got, notes) = look(&mut tail);
        assert!(got.is_empty());
        assert_eq!(notes.issues.len(), 1);
        assert_eq!(
            (notes.issues[0].line, &*notes.issues[0].reason),
            (0, trl::HALF_WRITTEN_TABLE)
        );
        std::fs::write(&path, &whole[..whole.len() - 3]).expect("write");
        assert_eq!(look(&mut tail), (Vec::new(), LookNotes::default()));
        std::fs::write(&path, whole).expect("write");
        let (got, notes) = look(&mut tail);
        assert_eq!(got.len(), 1);
        assert_eq!(notes.finished, [(path, 0)]);
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
