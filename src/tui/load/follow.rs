//! Following training runs and rollout files while they are written (`sebx` opens them
//! followed; `--no-follow` reads them once): what is there is read first, then what is
//! added, each time the file system says a followed folder or file changed ([`Wake`]) and
//! every [`Follow::every`] besides; new rows are sent as batches like the loaded ones (the
//! app grades them as it grades those). One `RunReader` per run reads every line, so GRPO
//! groups and duplicate ids are numbered across old and new lines alike. A file rewritten
//! under what was read (a resumed run writes its steps again) is read again from its
//! start, its rows taking the places of the ones read from it before.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::model::rollout::Interner;
use crate::model::tail::{FileTail, LookNotes, UNFINISHED_LINE};
use crate::model::verl::{DumpRun, JoinIndex, RunReader, RunTail};
use crate::model::{Dataset, LoadIssue};
use crate::session::inputs::{Appeared, GivenFolder};

use super::super::entry::Entry;
use super::watch::Wake;
use super::{Chunk, Follow, LoadEvent, Loader, number_duplicates, process_chunk};

/// The rows sent of one followed file, in file order.
#[derive(Debug, Default)]
pub(super) struct FileRows {
    rows: Vec<usize>,
    /// The next of `rows` a re-read line takes (`rows.len()` unless the file was rewritten
    /// and is being read again).
    next: usize,
    /// Rows re-read since the file was rewritten, while it is.
    reread: Option<usize>,
}

/// Where the loader's first read of a followed rollout file stopped.
#[derive(Debug, Default)]
pub(super) struct FileStart {
    pub read: u64,
    /// Lines read (a finished last line with no newline counts).
    pub lines: usize,
    mid_line: bool,
    /// The unfinished last line left unread.
    unfinished: Option<usize>,
    pub occurrences: HashMap<String, usize>,
    pub run: usize,
}

impl FileStart {
    /// Where the read of the file's last bytes `buf` (after `line_offset` lines) ends: at
    /// its last newline when what follows is a line being written (left for the follower),
    /// at its end when that is a finished line (a file written in one go).
    pub fn end_at(&mut self, buf: &[u8], line_offset: usize) -> usize {
        let whole = buf.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
        let rest = &buf[whole..];
        if rest.iter().all(u8::is_ascii_whitespace) {
            return buf.len();
        }
        if serde_json::from_slice::<serde::de::IgnoredAny>(rest).is_ok() {
            self.mid_line = true;
            return buf.len();
        }
        let newlines = buf[..whole].iter().filter(|b| **b == b'\n').count();
        self.unfinished = Some(line_offset + newlines + 1);
        whole
    }

    /// The issue that says the unfinished last line was left for later.
    pub fn unfinished_issue(&self, path: &Path) -> Option<LoadIssue> {
        self.unfinished.map(|line| LoadIssue {
            source: path.to_path_buf(),
            line,
            reason: UNFINISHED_LINE.to_string(),
        })
    }
}

/// What is followed.
pub(super) enum Followed<'a> {
    /// A training run: its folder's step files.
    Run {
        index: usize,
        reader: RunReader<'a>,
        tail: RunTail,
        /// The folder could not be listed at the last look (said once).
        unreadable: bool,
    },
    /// A rollout file (an evaluation writing it).
    File {
        path: PathBuf,
        run: usize,
        tail: FileTail,
        occurrences: HashMap<String, usize>,
        interner: Interner,
        unreadable: bool,
    },
}

/// A folder given on the command line: runs appearing in it are opened and followed.
pub(super) struct FollowedFolder<'a> {
    folder: &'a GivenFolder,
    join: Option<(&'a JoinIndex, &'a Dataset)>,
    /// What of it has been opened or found to be no run.
    seen: HashSet<PathBuf>,
}

impl<'a> FollowedFolder<'a> {
    pub fn new(
        folder: &'a GivenFolder,
        join: Option<&'a (Arc<JoinIndex>, Arc<Dataset>)>,
    ) -> FollowedFolder<'a> {
        FollowedFolder {
            folder,
            join: join.map(|(j, d)| (&**j, &**d)),
            seen: folder.present.iter().cloned().collect(),
        }
    }
}

impl Followed<'_> {
    /// What the file system is asked to report changes of: a run's folder, or a file.
    fn watched(&self) -> &Path {
        match self {
            Followed::Run { tail, .. } => tail.dir(),
            Followed::File { path, .. } => path,
        }
    }
}

impl Loader<'_> {
    /// Announces `run` and reads what its step files hold now (whole lines; an unfinished
    /// last line is said, and read when it is finished).
    pub(super) fn start_following<'a>(
        &mut self,
        run: &DumpRun,
        join: &'a JoinIndex,
        dataset: &'a Dataset,
    ) -> Followed<'a> {
        let mut followed = Followed::Run {
            index: self.announce_run(&run.name, &run.dir),
            reader: RunReader::following(join, dataset),
            tail: RunTail::new(run),
            unreadable: false,
        };
        self.look(&mut followed);
        followed
    }

    /// Follows a rollout file the loader has read up to `start`.
    pub(super) fn start_following_file<'a>(
        &mut self,
        path: &Path,
        start: FileStart,
    ) -> Followed<'a> {
        let lines = start.lines + usize::from(start.mid_line);
        let tail = FileTail::after(path, start.read, lines, start.mid_line, start.unfinished)
            .unwrap_or_default();
        Followed::File {
            path: path.to_path_buf(),
            run: start.run,
            tail,
            occurrences: start.occurrences,
            interner: Interner::default(),
            unreadable: false,
        }
    }

    /// Looks at everything followed when the file system says something changed, and every
    /// `follow.every` besides, until `follow.stop` is set; runs appearing in `folders` are
    /// opened and followed from then on.
    pub(super) fn follow<'a>(
        &mut self,
        mut followed: Vec<Followed<'a>>,
        mut folders: Vec<FollowedFolder<'a>>,
        follow: &Follow,
    ) {
        let paths: Vec<PathBuf> = followed
            .iter()
            .map(|f| f.watched().to_path_buf())
            .chain(folders.iter().map(|f| f.folder.path.clone()))
            .collect();
        let mut wake = Wake::watch(&paths);
        (self.sink)(LoadEvent::Following {
            runs: followed.len(),
            polled: wake.why_not().map(str::to_string),
        });
        let mut last = Instant::now();
        loop {
            // Short waits, so a stop is seen at once whatever the period.
            loop {
                if follow.stop.load(Ordering::Relaxed) {
                    return;
                }
                let left = follow.every.saturating_sub(last.elapsed());
                if left.is_zero() || wake.wait(left.min(Duration::from_millis(50))) {
                    break;
                }
            }
            last = Instant::now();
            for f in followed.iter_mut() {
                self.look(f);
            }
            let before = followed.len();
            for folder in &mut folders {
                self.open_appeared(folder, &mut followed, &mut wake);
            }
            if followed.len() > before {
                (self.sink)(LoadEvent::Following {
                    runs: followed.len(),
                    polled: None,
                });
            }
            follow.looks.fetch_add(1, Ordering::Release);
        }
    }

    /// Opens the runs that appeared in a followed folder, and follows them.
    fn open_appeared<'a>(
        &mut self,
        folder: &mut FollowedFolder<'a>,
        followed: &mut Vec<Followed<'a>>,
        wake: &mut Wake,
    ) {
        for appeared in folder.folder.appeared(&mut folder.seen) {
            match appeared {
                Appeared::Rollouts(path) => {
                    let data = super::SourceData::File(path.clone());
                    if let Some(start) = self.load_rollouts(&data, false, true) {
                        wake.add(&path);
                        followed.push(self.start_following_file(&path, start));
                    }
                }
                Appeared::Run(run) => {
                    let Some((join, dataset)) = folder.join else {
                        continue;
                    };
                    wake.add(&run.dir);
                    followed.push(self.start_following(&run, join, dataset));
                }
            }
        }
    }

    /// Sends the rows of what is new in one followed run or file, and what the look noticed.
    fn look(&mut self, followed: &mut Followed) {
        let mut notes = LookNotes::default();
        let (looked, unreadable, what) = match followed {
            Followed::Run {
                index,
                reader,
                tail,
                unreadable,
            } => {
                // Each file's new lines are sent before the next is read (a first look reads
                // the whole run: never all of it held at once).
                let looked = tail.look(&mut |lines| {
                    if lines.rewritten {
                        reader.forget(&lines.path);
                        self.restart_file(&lines.path);
                    }
                    self.send_step_lines(
                        reader,
                        *index,
                        &lines.path,
                        lines.step,
                        &lines.bytes,
                        lines.line_offset,
                    );
                    self.said_reread(&lines.path, Some(lines.step));
                });
                match looked {
                    Ok(n) => notes = n,
                    Err(e) => return self.unreadable(unreadable, tail.dir(), &e),
                }
                (Ok(()), unreadable, tail.dir().to_path_buf())
            }
            Followed::File {
                path,
                run,
                tail,
                occurrences,
                interner,
                unreadable,
            } => {
                let looked = std::fs::metadata(&*path).and_then(|meta| {
                    let grown = tail.look(path, &meta, false, &mut notes)?;
                    if grown.rewritten {
                        occurrences.clear();
                        self.restart_file(path);
                    }
                    if !grown.bytes.is_empty() {
                        self.send_file_lines(path, *run, grown, occurrences, interner);
                    }
                    self.said_reread(path, None);
                    Ok(())
                });
                (looked, unreadable, path.clone())
            }
        };
        match looked {
            Ok(()) => {
                *unreadable = false;
                if !notes.issues.is_empty() {
                    (self.sink)(LoadEvent::Issues(notes.issues));
                }
                if !notes.finished.is_empty() {
                    (self.sink)(LoadEvent::Finished(notes.finished));
                }
            }
            Err(e) => self.unreadable(unreadable, &what, &e),
        }
    }

    /// A followed folder or file that could not be read: said once, tried again each look.
    fn unreadable(&mut self, said: &mut bool, what: &Path, e: &std::io::Error) {
        if !std::mem::replace(said, true) {
            (self.sink)(LoadEvent::Issues(vec![LoadIssue {
                source: what.to_path_buf(),
                line: 0,
                reason: format!("cannot read what is followed: {e}"),
            }]));
        }
    }

    /// Sends the rows of new whole lines of a followed rollout file.
    fn send_file_lines(
        &mut self,
        path: &Path,
        run: usize,
        grown: crate::model::tail::Grown,
        occurrences: &mut HashMap<String, usize>,
        interner: &mut Interner,
    ) {
        self.done_bytes += grown.bytes.len() as u64;
        let chunk = Chunk {
            seq: 0,
            bytes: grown.bytes,
            line_offset: grown.line_offset,
        };
        let mut done = process_chunk(path, chunk, run, interner);
        number_duplicates(&mut done.entries, occurrences);
        if !done.issues.is_empty() {
            (self.sink)(LoadEvent::Issues(done.issues));
        }
        self.send_entries(done.entries, false);
        self.total_bytes = self.total_bytes.max(self.done_bytes);
        (self.sink)(LoadEvent::Progress {
            done: self.done_bytes,
            total: self.total_bytes,
        });
    }

    /// A followed file was rewritten: its next rows take the places of those read before.
    fn restart_file(&mut self, path: &Path) {
        (self.sink)(LoadEvent::Rewriting {
            source: path.to_path_buf(),
        });
        if let Some(rows) = self.file_rows.as_mut().and_then(|f| f.get_mut(path)) {
            rows.next = 0;
            rows.reread = Some(0);
        }
    }

    /// Says how far a rewritten file has been read again (while it is).
    fn said_reread(&mut self, path: &Path, step: Option<u32>) {
        let Some(rows) = self.file_rows.as_mut().and_then(|f| f.get_mut(path)) else {
            return;
        };
        let Some(reread) = rows.reread else { return };
        let before = rows.rows.len();
        if reread >= before {
            rows.reread = None;
        }
        if before == 0 {
            return;
        }
        (self.sink)(LoadEvent::Reread {
            source: path.to_path_buf(),
            step,
            rows: reread,
            before,
        });
    }

    /// The rows the first of `entries` take when they are lines of a rewritten file read
    /// again (the places of its earlier rows, in order); none otherwise.
    pub(super) fn reused_rows(&mut self, entries: &[Entry]) -> Vec<usize> {
        let Some(first) = entries.first() else {
            return Vec::new();
        };
        let Some(rows) = self
            .file_rows
            .as_mut()
            .and_then(|f| f.get_mut(&*first.rollout.source))
        else {
            return Vec::new();
        };
        let n = entries.len().min(rows.rows.len() - rows.next);
        let slots = rows.rows[rows.next..rows.next + n].to_vec();
        rows.next += n;
        if let Some(reread) = &mut rows.reread {
            *reread += entries.len();
        }
        slots
    }

    /// Remembers the rows of `entries` (just numbered from `self.rows`) as their file's.
    pub(super) fn record_rows(&mut self, entries: &[Entry]) {
        let Some(files) = self.file_rows.as_mut() else {
            return;
        };
        let mut row = self.rows;
        let mut rest = entries;
        // A batch is one file's rows, mostly: one look-up per file, not per row.
        while let Some(first) = rest.first() {
            let source = &first.rollout.source;
            let n = rest
                .iter()
                .take_while(|e| {
                    std::sync::Arc::ptr_eq(&e.rollout.source, source) || e.rollout.source == *source
                })
                .count();
            let rows = files.entry(source.to_path_buf()).or_default();
            rows.rows.extend(row..row + n);
            rows.next = rows.rows.len();
            row += n;
            rest = &rest[n..];
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use super::super::{FileKind, Follow, LoadEvent, Source, SourceData, load_following};
    use crate::model::Dataset;
    use crate::model::verl::{DumpRun, JoinIndex};

    fn sample(n: usize) -> String {
        format!("{{\"input\": \"p{n}\", \"output\": \"o{n}\", \"score\": 1.0}}\n")
    }

    /// Follows `sources` on a thread, polled every 50 ms; the events, as they come.
    fn follow(sources: Vec<Source>) -> (std::sync::mpsc::Receiver<LoadEvent>, Arc<AtomicBool>) {
        let stop = Arc::new(AtomicBool::new(false));
        let follow = Follow {
            every: Duration::from_millis(50),
            stop: stop.clone(),
            looks: Arc::default(),
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            load_following(&sources, &mut |e| drop(tx.send(e)), Some(&follow));
        });
        (rx, stop)
    }

    /// Events until one `done` accepts.
    fn until(
        rx: &std::sync::mpsc::Receiver<LoadEvent>,
        done: impl Fn(&LoadEvent) -> bool,
    ) -> Vec<LoadEvent> {
        let mut seen = Vec::new();
        loop {
            let e = rx
                .recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("{e}: {seen:#?}"));
            let last = done(&e);
            seen.push(e);
            if last {
                return seen;
            }
        }
    }

    #[test]
    fn a_rewritten_step_file_takes_the_rows_it_had() {
        let dir = tempfile::tempdir().expect("tempdir");
        let step1 = dir.path().join("1.jsonl");
        std::fs::write(&step1, sample(1) + &sample(2) + &sample(3)).expect("write");
        std::fs::write(dir.path().join("2.jsonl"), sample(4)).expect("write");
        let dataset = Arc::new(Dataset::default());
        let join = Arc::new(JoinIndex::new(&dataset));
        // The run as the session finds it (the follower lists its step files itself).
        let run = DumpRun {
            name: "run".to_string(),
            dir: dir.path().to_path_buf(),
            steps: Vec::new(),
            skipped: Vec::new(),
            single_step: None,
            format: Default::default(),
        };
        let (rx, stop) = follow(vec![Source {
            kind: FileKind::Rollouts,
            data: SourceData::Dump { run, join, dataset },
        }]);
        until(&rx, |e| matches!(e, LoadEvent::Following { .. }));
        // Rewritten shorter, then grown longer than before.
        std::fs::write(&step1, sample(1) + &sample(5)).expect("write");
        let seen = until(&rx, |e| matches!(e, LoadEvent::Reread { rows: 2, .. }));
        assert!(
            seen.iter()
                .any(|e| matches!(e, LoadEvent::Rewriting { source } if *source == step1)),
            "{seen:#?}"
        );
        let replaced: Vec<(usize, String)> = seen
            .iter()
            .flat_map(|e| match e {
                LoadEvent::Replaced { rows, entries, .. } => rows
                    .iter()
                    .zip(entries)
                    .map(|(r, e)| (*r, e.rollout.response.clone()))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(replaced, [(0, "o1".to_string()), (1, "o5".to_string())]);
        let Some(LoadEvent::Reread { step, before, .. }) = seen.last() else {
            unreachable!()
        };
        assert_eq!((*step, *before), (Some(1), 3));
        {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&step1)
                .expect("open");
            f.write_all((sample(6) + &sample(7)).as_bytes())
                .expect("write");
        }
        let seen = until(&rx, |e| matches!(e, LoadEvent::Batch { .. }));
        let rows: Vec<usize> = seen
            .iter()
            .flat_map(|e| match e {
                LoadEvent::Replaced { rows, .. } => rows.clone(),
                _ => Vec::new(),
            })
            .collect();
        // Its third row's place, then a new row after step 2's.
        assert_eq!(rows, [2]);
        let Some(LoadEvent::Batch { entries, .. }) = seen.last() else {
            unreachable!()
        };
        assert_eq!(entries[0].rollout.response, "o7");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
