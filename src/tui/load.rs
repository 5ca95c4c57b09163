//! Loading what the explorer shows, in batches, so a big file shows its first screen at once.
//! Runs on a worker thread; every result is a [`LoadEvent`]. No terminal code here.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::grade::report::{GradeReport, parse_reports};
use crate::model::rollout::{Interner, StoredScore, parse_rollout_bytes_with};
use crate::model::verl::{DumpRun, JoinIndex, RunReader};
use crate::model::{Dataset, LoadIssue, Rollout, RolloutId, Verdict};
use crate::session::inputs::GivenFolder;
use crate::session::resolve::{VerdictSource, in_file_verdict};

use super::entry::{Entry, Run, Score, Task};
pub use crate::model::files::FileKind;

mod follow;
mod watch;

/// Where a source's bytes come from.
#[derive(Debug, Clone)]
pub enum SourceData {
    File(PathBuf),
    /// Text built into the binary (the demo), labelled with a path.
    Embedded {
        label: PathBuf,
        text: &'static str,
    },
    /// A training run: verl step dumps, joined to the dataset's tasks through `join`.
    Dump {
        run: DumpRun,
        join: Arc<JoinIndex>,
        dataset: Arc<Dataset>,
    },
    /// A training run built into the binary (the demo's): (step, label, text) per step file.
    EmbeddedDump {
        name: String,
        label: PathBuf,
        steps: Vec<(u32, PathBuf, &'static str)>,
        join: Arc<JoinIndex>,
        dataset: Arc<Dataset>,
    },
    /// A folder given on the command line, its runs among the other sources: when followed,
    /// runs appearing in it are opened and followed too (training runs joined through
    /// `join`, present when it holds training runs).
    Folder {
        folder: GivenFolder,
        join: Option<(Arc<JoinIndex>, Arc<Dataset>)>,
    },
}

impl SourceData {
    pub fn path(&self) -> &Path {
        match self {
            SourceData::File(p) => p,
            SourceData::Embedded { label, .. } => label,
            SourceData::Dump { run, .. } => &run.dir,
            SourceData::EmbeddedDump { label, .. } => label,
            SourceData::Folder { folder, .. } => &folder.path,
        }
    }
}

/// One input of the loader.
#[derive(Debug, Clone)]
pub struct Source {
    pub kind: FileKind,
    pub data: SourceData,
}

impl Source {
    /// Training runs as sources, their samples joined to `dataset`'s tasks through `join`.
    pub fn dumps(
        runs: impl IntoIterator<Item = DumpRun>,
        join: &Arc<JoinIndex>,
        dataset: &Arc<Dataset>,
    ) -> Vec<Source> {
        runs.into_iter()
            .map(|run| Source {
                kind: FileKind::Rollouts,
                data: SourceData::Dump {
                    run,
                    join: join.clone(),
                    dataset: dataset.clone(),
                },
            })
            .collect()
    }
}

/// What the loader reports, in order.
#[derive(Debug, Clone)]
pub enum LoadEvent {
    /// A new run; its index is the number of runs announced before it.
    Run(Run),
    /// New rows. `new_tasks` continue the task numbering.
    Batch {
        entries: Vec<Entry>,
        scores: Vec<Score>,
        new_tasks: Vec<Task>,
    },
    /// Grade reports for rows already sent, by row index, read from the scored file `file`.
    Reports {
        file: PathBuf,
        reports: Vec<(usize, GradeReport)>,
    },
    Issues(Vec<LoadIssue>),
    /// Bytes read so far over all sources, of the total when known.
    Progress {
        done: u64,
        total: u64,
    },
    /// A source could not be read at all.
    Failed(String),
    /// Loading is done: what was loaded is all there is, except for followed runs.
    Done,
    /// After `Done`: `runs` training runs and rollout files are followed (their new lines
    /// come as batches); `polled` says why the file system cannot tell when they change
    /// (they are then looked at every `Follow::every` only).
    Following {
        runs: usize,
        polled: Option<String>,
    },
    /// Lines reported unfinished when the run was opened that have now been read: (file, line).
    Finished(Vec<(PathBuf, usize)>),
    /// Rows of a followed file read again (it was rewritten): `entries[i]` replaces row
    /// `rows[i]`; rows the file has beyond them come as a `Batch`.
    Replaced {
        rows: Vec<usize>,
        entries: Vec<Entry>,
        scores: Vec<Score>,
        new_tasks: Vec<Task>,
    },
    /// A followed file was rewritten (a resumed run writes its steps again): what was said
    /// about its lines no longer holds; its rows are replaced as it is read again.
    Rewriting {
        source: PathBuf,
    },
    /// How far a rewritten file has been read again: `rows` of it re-read so far, of the
    /// `before` it had; `step` when it is a training run's step file.
    Reread {
        source: PathBuf,
        step: Option<u32>,
        rows: usize,
        before: usize,
    },
}

/// How often a followed run's folder is looked at when the file system says nothing (it
/// does not see writes made on another machine of a shared file system).
pub const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// Following training runs and rollout files after loading them: what is added to them is
/// read when the file system says they changed, and every `every` besides, until `stop`
/// is set. `looks` counts the follower's looks at everything followed, each counted once
/// its events are sent: a test waits for a look begun after its write (two more) instead of
/// sleeping.
#[derive(Debug, Clone)]
pub struct Follow {
    pub every: Duration,
    pub stop: Arc<AtomicBool>,
    pub looks: Arc<AtomicUsize>,
}

/// Only some lines of the sources, 1-based, by where they live: a rollout file (its path,
/// no step), or a training run's step (the run's folder and the step). Sources named in it
/// and not named are skipped. What a report's examples load: a few rows, not their files.
pub type LineFilter = HashMap<(PathBuf, Option<u32>), BTreeSet<usize>>;

/// Rows in the first batch: small, so the first screen comes at once.
const FIRST_CHUNK_BYTES: usize = 256 * 1024;
const CHUNK_BYTES: usize = 4 * 1024 * 1024;

/// The loader's memory of what it sent.
struct Loader<'a> {
    sink: &'a mut dyn FnMut(LoadEvent),
    runs: HashMap<PathBuf, usize>,
    tasks: HashMap<String, usize>,
    /// Rows by id; the same rollout can appear in several runs.
    ids: foldhash::HashMap<RolloutId, Rows>,
    /// The run of every row sent.
    row_runs: Vec<usize>,
    run_paths: Vec<PathBuf>,
    rows: usize,
    done_bytes: u64,
    total_bytes: u64,
    /// The rows sent of each file, when files are followed (a rewritten file's rows are
    /// replaced in place).
    file_rows: Option<HashMap<PathBuf, follow::FileRows>>,
    /// Only these lines ([`load_lines`]).
    only: Option<&'a LineFilter>,
}

/// The rows of one id: nearly always one, held without a list of its own (a list per
/// row was an allocation per loaded sample).
#[derive(Debug)]
enum Rows {
    One(usize),
    Many(Vec<usize>),
}

impl Rows {
    fn push(&mut self, row: usize) {
        match self {
            Rows::One(first) => *self = Rows::Many(vec![*first, row]),
            Rows::Many(rows) => rows.push(row),
        }
    }

    fn as_slice(&self) -> &[usize] {
        match self {
            Rows::One(row) => std::slice::from_ref(row),
            Rows::Many(rows) => rows,
        }
    }
}

/// Adds `row` to the rows of `id`.
fn add_row(ids: &mut foldhash::HashMap<RolloutId, Rows>, id: &RolloutId, row: usize) {
    match ids.entry(id.clone()) {
        std::collections::hash_map::Entry::Occupied(mut rows) => rows.get_mut().push(row),
        std::collections::hash_map::Entry::Vacant(slot) => {
            slot.insert(Rows::One(row));
        }
    }
}

/// Loads every source, reporting through `sink`. Rollout sources first, then reports.
pub fn load_sources(sources: &[Source], sink: &mut dyn FnMut(LoadEvent)) {
    load_following(sources, sink, None);
}

/// [`load_sources`], then, with `follow`, reads what verl adds to the training runs among
/// them (new step files, lines appended) until told to stop; returns when loading is done
/// or, when following, once stopped.
pub fn load_following(
    sources: &[Source],
    sink: &mut dyn FnMut(LoadEvent),
    follow: Option<&Follow>,
) {
    load_all(sources, sink, follow, None);
}

/// Loads only the lines of `only` (rollout files and training runs' steps; the other
/// sources, reports and the rest, whole): the rows of a few picked rollouts without reading
/// their files' other lines into rows.
pub fn load_lines(sources: &[Source], only: &LineFilter, sink: &mut dyn FnMut(LoadEvent)) {
    load_all(sources, sink, None, Some(only));
}

fn load_all(
    sources: &[Source],
    sink: &mut dyn FnMut(LoadEvent),
    follow: Option<&Follow>,
    only: Option<&LineFilter>,
) {
    let total_bytes = sources
        .iter()
        .map(|s| match &s.data {
            SourceData::File(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
            SourceData::Embedded { text, .. } => text.len() as u64,
            SourceData::Dump { run, .. } => run.bytes(),
            SourceData::EmbeddedDump { steps, .. } => {
                steps.iter().map(|(_, _, t)| t.len() as u64).sum()
            }
            SourceData::Folder { .. } => 0,
        })
        .sum();
    let mut loader = Loader {
        sink,
        runs: HashMap::new(),
        tasks: HashMap::new(),
        ids: foldhash::HashMap::default(),
        row_runs: Vec::new(),
        run_paths: Vec::new(),
        rows: 0,
        done_bytes: 0,
        total_bytes,
        file_rows: follow.map(|_| HashMap::new()),
        only,
    };
    let mut followed = Vec::new();
    let mut folders = Vec::new();
    for s in sources {
        if let SourceData::Folder { folder, join } = &s.data {
            if follow.is_some() {
                folders.push(follow::FollowedFolder::new(folder, join.as_ref()));
            }
            continue;
        }
        if let SourceData::Dump { run, join, dataset } = &s.data {
            let notes = run.skipped_notes();
            if !notes.is_empty() {
                (loader.sink)(LoadEvent::Issues(notes));
            }
            if follow.is_some() {
                followed.push(loader.start_following(run, join, dataset));
                continue;
            }
            let steps: Vec<(u32, PathBuf, Option<&str>)> = run
                .steps
                .iter()
                .map(|f| (f.step, f.path.clone(), None))
                .collect();
            loader.load_dump(&run.name, &run.dir, &steps, join, dataset);
        } else if let SourceData::EmbeddedDump {
            name,
            label,
            steps,
            join,
            dataset,
        } = &s.data
        {
            let steps: Vec<(u32, PathBuf, Option<&str>)> = steps
                .iter()
                .map(|(step, path, text)| (*step, path.clone(), Some(*text)))
                .collect();
            loader.load_dump(name, label, &steps, join, dataset);
        } else if s.kind == FileKind::Rollouts
            && let (Some(_), SourceData::File(path)) = (follow, &s.data)
        {
            let start = loader.load_rollouts(&s.data, false, true);
            if let Some(start) = start {
                followed.push(loader.start_following_file(path, start));
            }
        } else if let (Some(only), SourceData::File(path)) = (only, &s.data)
            && s.kind.holds_rollouts()
        {
            if let Some(lines) = only.get(&(path.clone(), None)) {
                loader.load_rollout_lines(path, lines, s.kind.all_right());
            }
        } else if s.kind.holds_rollouts() {
            loader.load_rollouts(&s.data, s.kind.all_right(), false);
        }
    }
    for s in sources {
        if s.kind == FileKind::Reports {
            loader.load_reports(&s.data);
        }
    }
    // Parsing left freed buffers in the allocator's arenas; give them back.
    return_freed_memory();
    (loader.sink)(LoadEvent::Done);
    if let Some(follow) = follow
        && !(followed.is_empty() && folders.is_empty())
    {
        loader.follow(followed, folders, follow);
    }
}

/// Hands memory the allocator holds free back to the system (glibc keeps what a loader or
/// analysis thread freed in that thread's arena, counting as resident). Called after the
/// big one-off passes: loading a file, the analysis sweep.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn open(data: &SourceData) -> std::io::Result<Box<dyn Read + '_>> {
    Ok(match data {
        SourceData::File(p) => Box::new(std::fs::File::open(p)?),
        SourceData::Embedded { text, .. } => Box::new(text.as_bytes()),
        SourceData::Folder { .. } => {
            return Err(std::io::Error::other(format!(
                "{} is a folder, not one file",
                data.path().display()
            )));
        }
        SourceData::Dump { .. } | SourceData::EmbeddedDump { .. } => {
            return Err(std::io::Error::other(format!(
                "{} is a training run, not one file",
                data.path().display()
            )));
        }
    })
}

/// The rows of `rollouts` (their code blocks found) of run `run`, on up to four threads
/// for a big batch; in order.
fn build_entries(rollouts: Vec<Rollout>, run: usize) -> Vec<Entry> {
    let parallel = rollouts.len() >= 256;
    crate::model::parallel::map_in_order(rollouts, parallel, |r| Entry::build(r, run, 0))
}

impl Loader<'_> {
    /// Reads a training run step file by step file, each step's rows sent as it is read
    /// (the first screen comes after the first step file).
    fn load_dump(
        &mut self,
        name: &str,
        dir: &Path,
        steps: &[(u32, PathBuf, Option<&str>)],
        join: &JoinIndex,
        dataset: &Dataset,
    ) {
        let index = self.announce_run(name, dir);
        let mut reader = RunReader::new(join, dataset);
        for (step, path, text) in steps {
            let picked = match self.only {
                Some(only) => match only.get(&(dir.to_path_buf(), Some(*step))) {
                    Some(lines) => Some(lines),
                    None => continue,
                },
                None => None,
            };
            let bytes: std::borrow::Cow<[u8]> = match text {
                Some(t) => t.as_bytes().into(),
                None => match std::fs::read(path) {
                    Ok(b) => b.into(),
                    Err(e) => {
                        (self.sink)(LoadEvent::Failed(format!("{}: {e}", path.display())));
                        continue;
                    }
                },
            };
            match picked {
                Some(lines) => {
                    self.done_bytes += bytes.len() as u64;
                    let got = read_picked(&mut reader, path, *step, &bytes, lines);
                    if !got.issues.is_empty() {
                        (self.sink)(LoadEvent::Issues(got.issues));
                    }
                    self.send_entries(build_entries(got.rollouts, index), false);
                }
                None => self.send_step_lines(&mut reader, index, path, *step, &bytes, 0),
            }
        }
    }

    /// Reads the lines `lines` of a rollout file (up to the last of them, never the rest),
    /// each parsed on its own.
    fn load_rollout_lines(&mut self, path: &Path, lines: &BTreeSet<usize>, all_right: bool) {
        let run = self.run_index(path);
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => {
                (self.sink)(LoadEvent::Failed(format!("{}: {e}", path.display())));
                return;
            }
        };
        let mut reader = std::io::BufReader::new(file);
        let last = lines.last().copied().unwrap_or(0);
        let mut buf = Vec::new();
        let mut interner = Interner::default();
        let mut entries = Vec::new();
        let mut issues = Vec::new();
        for n in 1..=last {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    (self.sink)(LoadEvent::Failed(format!("{}: {e}", path.display())));
                    break;
                }
            }
            self.done_bytes += buf.len() as u64;
            if lines.contains(&n) {
                let chunk = Chunk {
                    seq: 0,
                    bytes: std::mem::take(&mut buf),
                    line_offset: n - 1,
                };
                let done = process_chunk(path, chunk, run, &mut interner);
                entries.extend(done.entries);
                issues.extend(done.issues);
            }
        }
        if !issues.is_empty() {
            (self.sink)(LoadEvent::Issues(issues));
        }
        self.send_entries(entries, all_right);
    }

    /// Announces a training run; its index.
    fn announce_run(&mut self, name: &str, dir: &Path) -> usize {
        let index = self.runs.len();
        self.runs.insert(dir.to_path_buf(), index);
        self.run_paths.push(dir.to_path_buf());
        (self.sink)(LoadEvent::Run(Run {
            path: dir.to_path_buf(),
            name: name.to_string(),
        }));
        index
    }

    /// Sends the rows of whole lines of a step file (after `line_offset` lines of it), in
    /// chunks, so a big step file's rows arrive in batches too (a table, TRL's parquet, in
    /// one batch).
    fn send_step_lines(
        &mut self,
        reader: &mut RunReader,
        index: usize,
        path: &Path,
        step: u32,
        bytes: &[u8],
        mut line_offset: usize,
    ) {
        self.done_bytes += bytes.len() as u64;
        // A table (TRL's parquet) is read whole: it has no lines to cut it at.
        let table = crate::model::verl::trl::is_table(path, bytes);
        if table {
            let got = reader.read_step(path, step, bytes);
            if !got.issues.is_empty() {
                (self.sink)(LoadEvent::Issues(got.issues));
            }
            self.send_entries(build_entries(got.rollouts, index), false);
        }
        let mut start = if table { bytes.len() } else { 0 };
        while start < bytes.len() {
            let end = (start + CHUNK_BYTES).min(bytes.len());
            let end = match memchr::memchr(b'\n', &bytes[end..]) {
                Some(p) if end < bytes.len() => end + p + 1,
                _ => bytes.len(),
            };
            let chunk = &bytes[start..end];
            let got = reader.read_lines(path, step, chunk, line_offset);
            line_offset += memchr::memchr_iter(b'\n', chunk).count();
            start = end;
            if !got.issues.is_empty() {
                (self.sink)(LoadEvent::Issues(got.issues));
            }
            self.send_entries(build_entries(got.rollouts, index), false);
        }
        // A followed run grows past the bytes counted at the start.
        self.total_bytes = self.total_bytes.max(self.done_bytes);
        (self.sink)(LoadEvent::Progress {
            done: self.done_bytes,
            total: self.total_bytes,
        });
    }

    fn run_index(&mut self, path: &Path) -> usize {
        if let Some(i) = self.runs.get(path) {
            return *i;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let name = name
            .strip_suffix(".jsonl")
            .map(str::to_string)
            .unwrap_or(name);
        let i = self.runs.len();
        self.runs.insert(path.to_path_buf(), i);
        self.run_paths.push(path.to_path_buf());
        (self.sink)(LoadEvent::Run(Run {
            path: path.to_path_buf(),
            name,
        }));
        i
    }

    /// Reads a rollout file in parallel chunks. `followed`: a torn last line is left unread
    /// (reported, and read by the follower once finished) and where the reading stopped is
    /// returned for the follower.
    fn load_rollouts(
        &mut self,
        data: &SourceData,
        all_right: bool,
        followed: bool,
    ) -> Option<follow::FileStart> {
        let path = data.path().to_path_buf();
        let mut reader = match open(data) {
            Ok(r) => r,
            Err(e) => {
                (self.sink)(LoadEvent::Failed(format!("{}: {e}", path.display())));
                return None;
            }
        };
        let mut resume = follow::FileStart::default();
        let run = self.run_index(&path);
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
            .clamp(1, 4);
        let mut order = InOrder {
            next: 0,
            waiting: BTreeMap::new(),
            occurrences: HashMap::new(),
        };
        // Parsing and extraction of chunks run in parallel; rows are numbered here, in order.
        let (chunk_tx, chunk_rx) = sync_channel::<Chunk>(threads);
        let chunk_rx = Mutex::new(chunk_rx);
        let (done_tx, done_rx) = channel::<Processed>();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let (chunk_rx, done_tx, path) = (&chunk_rx, done_tx.clone(), &path);
                scope.spawn(move || {
                    // Each parser thread shares the task texts of the chunks it parses.
                    let mut interner = Interner::default();
                    loop {
                        let next = match chunk_rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        let Ok(chunk) = next else { return };
                        if done_tx
                            .send(process_chunk(path, chunk, run, &mut interner))
                            .is_err()
                        {
                            return;
                        }
                    }
                });
            }
            drop(done_tx);
            let mut carry: Vec<u8> = Vec::new();
            let mut line_offset = 0usize;
            let mut chunk_size = FIRST_CHUNK_BYTES;
            let mut seq = 0usize;
            let mut eof = false;
            while !eof {
                let mut buf = std::mem::take(&mut carry);
                let start = buf.len();
                buf.resize(start + chunk_size, 0);
                let mut filled = start;
                while filled < buf.len() {
                    match reader.read(&mut buf[filled..]) {
                        Ok(0) => {
                            eof = true;
                            break;
                        }
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            (self.sink)(LoadEvent::Failed(format!("{}: {e}", path.display())));
                            eof = true;
                            break;
                        }
                    }
                }
                buf.truncate(filled);
                self.done_bytes += (filled - start) as u64;
                // Keep the unfinished last line for the next chunk.
                let cut = if eof && followed {
                    resume.end_at(&buf, line_offset)
                } else if eof {
                    buf.len()
                } else {
                    match buf.iter().rposition(|b| *b == b'\n') {
                        Some(p) => p + 1,
                        None => {
                            carry = buf;
                            chunk_size = chunk_size.max(CHUNK_BYTES);
                            continue;
                        }
                    }
                };
                carry = buf.split_off(cut);
                resume.read += buf.len() as u64;
                let lines = buf.iter().filter(|b| **b == b'\n').count();
                let chunk = Chunk {
                    seq,
                    bytes: buf,
                    line_offset,
                };
                seq += 1;
                line_offset += lines;
                chunk_size = CHUNK_BYTES;
                if chunk_tx.send(chunk).is_err() {
                    break;
                }
                while let Ok(done) = done_rx.try_recv() {
                    self.emit_in_order(&mut order, done, all_right);
                }
            }
            drop(chunk_tx);
            for done in done_rx {
                self.emit_in_order(&mut order, done, all_right);
            }
            resume.lines += line_offset;
        });
        if let Some(issue) = resume.unfinished_issue(&path) {
            (self.sink)(LoadEvent::Issues(vec![issue]));
        }
        resume.occurrences = order.occurrences;
        resume.run = run;
        Some(resume)
    }

    /// Sends processed chunks in file order, continuing the file-wide duplicate count.
    fn emit_in_order(&mut self, order: &mut InOrder, done: Processed, all_right: bool) {
        order.waiting.insert(done.seq, done);
        while let Some(mut next) = order.waiting.remove(&order.next) {
            order.next += 1;
            number_duplicates(&mut next.entries, &mut order.occurrences);
            if !next.issues.is_empty() {
                (self.sink)(LoadEvent::Issues(next.issues));
            }
            self.send_entries(next.entries, all_right);
            (self.sink)(LoadEvent::Progress {
                done: self.done_bytes,
                total: self.total_bytes,
            });
        }
    }

    fn send_rollouts(&mut self, rollouts: Vec<Rollout>, run: usize, all_right: bool) {
        let entries = rollouts
            .into_iter()
            .map(|r| Entry::build(r, run, 0))
            .collect();
        self.send_entries(entries, all_right);
    }

    /// Numbers tasks and rows, records ids, and sends the batch (rows of a rewritten file
    /// first take the places of the rows read from it before).
    fn send_entries(&mut self, mut entries: Vec<Entry>, all_right: bool) {
        let slots = self.reused_rows(&entries);
        let (mut scores, mut new_tasks) = self.number_tasks(&mut entries, all_right);
        if !slots.is_empty() {
            let rest = entries.split_off(slots.len());
            let rest_scores = scores.split_off(slots.len());
            for (row, e) in slots.iter().zip(&entries) {
                add_row(&mut self.ids, &e.rollout.id, *row);
            }
            (self.sink)(LoadEvent::Replaced {
                rows: slots,
                entries,
                scores,
                new_tasks: std::mem::take(&mut new_tasks),
            });
            (entries, scores) = (rest, rest_scores);
        }
        for (k, e) in entries.iter().enumerate() {
            add_row(&mut self.ids, &e.rollout.id, self.rows + k);
            self.row_runs.push(e.run);
        }
        self.record_rows(&entries);
        self.rows += entries.len();
        if !entries.is_empty() || !new_tasks.is_empty() {
            (self.sink)(LoadEvent::Batch {
                entries,
                scores,
                new_tasks,
            });
        }
    }

    /// Numbers the tasks of `entries` (new ones are returned) and gives their scores.
    fn number_tasks(&mut self, entries: &mut [Entry], all_right: bool) -> (Vec<Score>, Vec<Task>) {
        let mut scores = Vec::with_capacity(entries.len());
        let mut new_tasks = Vec::new();
        let mut last_task: Option<(Arc<str>, usize)> = None;
        for e in entries.iter_mut() {
            let r = &mut e.rollout;
            // What the file itself says, by the session's precedence: a correct-trajectories
            // file outranks a score stored in the line, and a stored score that names no
            // verdict (a bare `"score": 1`) is none: the rollout is graded like any other.
            let in_file = in_file_verdict(r, all_right);
            if in_file.is_some_and(|k| k.source == VerdictSource::Correct) {
                r.stored_score = Some(StoredScore {
                    field: "correct-trajectories file".to_string(),
                    verdict: Some(Verdict::Right),
                    passed: true,
                    raw: Value::Null,
                });
            }
            // A group's rows share their query's text: looked up once per group.
            e.task = match &last_task {
                Some((q, t)) if Arc::ptr_eq(q, &r.query) => *t,
                _ => match self.tasks.get(&*r.query) {
                    Some(t) => *t,
                    None => {
                        let t = self.tasks.len();
                        self.tasks.insert(r.query.to_string(), t);
                        new_tasks.push(Task::new(&r.query));
                        t
                    }
                },
            };
            last_task = Some((r.query.clone(), e.task));
            scores.push(match in_file {
                Some(resolved) => Score::Resolved {
                    resolved,
                    report: None,
                },
                None => Score::Unscored,
            });
        }
        (scores, new_tasks)
    }

    fn load_reports(&mut self, data: &SourceData) {
        let path = data.path().to_path_buf();
        let text = match data {
            SourceData::File(p) => match std::fs::read(p) {
                Ok(b) => b,
                Err(e) => {
                    (self.sink)(LoadEvent::Failed(format!("{}: {e}", p.display())));
                    return;
                }
            },
            SourceData::Embedded { text, .. } => text.as_bytes().to_vec(),
            SourceData::Dump { .. }
            | SourceData::EmbeddedDump { .. }
            | SourceData::Folder { .. } => {
                return;
            }
        };
        self.done_bytes += text.len() as u64;
        let mut reports = Vec::new();
        let issues = parse_reports(&path, &text, &mut |r| reports.push(r));
        drop(text);
        if !issues.is_empty() {
            (self.sink)(LoadEvent::Issues(issues));
        }
        // Reports whose rollouts were not opened: open their source files when they exist.
        let mut missing_sources: Vec<PathBuf> = reports
            .iter()
            .filter(|r| r.id.as_ref().is_some_and(|id| !self.ids.contains_key(id)))
            .map(|r| resolve_source(&path, &r.source))
            .filter(|p| p.is_file() && !self.runs.contains_key(p))
            .collect();
        missing_sources.sort();
        missing_sources.dedup();
        for src in missing_sources {
            self.load_rollouts(&SourceData::File(src), false, false);
        }
        let mut matched = Vec::new();
        let mut orphans = Vec::new();
        for r in reports {
            match self.rows_of_report(&r) {
                [] if r.load_error.is_some() => {}
                [] => orphans.push(r),
                [only] => matched.push((*only, r)),
                rows => {
                    let rows = rows.to_vec();
                    matched.extend(rows.into_iter().map(|i| (i, r.clone())));
                }
            }
        }
        if !orphans.is_empty() {
            let run = self.run_index(&path);
            let first_row = self.rows;
            let rollouts: Vec<Rollout> =
                orphans.iter().map(|r| r.stand_in_rollout(&path)).collect();
            self.send_rollouts(rollouts, run, false);
            matched.extend(
                orphans
                    .into_iter()
                    .enumerate()
                    .map(|(k, r)| (first_row + k, r)),
            );
        }
        if !matched.is_empty() {
            (self.sink)(LoadEvent::Reports {
                file: path,
                reports: matched,
            });
        }
        (self.sink)(LoadEvent::Progress {
            done: self.done_bytes,
            total: self.total_bytes,
        });
    }
}

impl Loader<'_> {
    /// The row a report is about: same id, preferring the run whose file the report names.
    /// Every row of the report's rollout: a scored file gives its verdict to the rollout
    /// wherever it was opened, as the session's resolver does (by id).
    fn rows_of_report(&self, r: &GradeReport) -> &[usize] {
        r.id.as_ref()
            .and_then(|id| self.ids.get(id))
            .map_or(&[], Rows::as_slice)
    }
}

/// Whole lines of a rollout file, numbered in file order.
struct Chunk {
    seq: usize,
    bytes: Vec<u8>,
    /// Lines before this chunk.
    line_offset: usize,
}

/// A chunk parsed and analysed (tasks and duplicate ids are numbered later, in order).
struct Processed {
    seq: usize,
    entries: Vec<Entry>,
    issues: Vec<LoadIssue>,
}

/// Reorders processed chunks and counts duplicates across them.
struct InOrder {
    next: usize,
    waiting: BTreeMap<usize, Processed>,
    occurrences: HashMap<String, usize>,
}

fn process_chunk(path: &Path, chunk: Chunk, run: usize, interner: &mut Interner) -> Processed {
    let mut parsed = parse_rollout_bytes_with(path, &chunk.bytes, interner);
    drop(chunk.bytes);
    for issue in &mut parsed.issues {
        issue.line += chunk.line_offset;
    }
    let entries = parsed
        .rollouts
        .into_iter()
        .map(|mut r| {
            r.line += chunk.line_offset;
            Entry::build(r, run, 0)
        })
        .collect();
    Processed {
        seq: chunk.seq,
        entries,
        issues: parsed.issues,
    }
}

/// The samples of the lines `lines` of a step file (of a table, the rows of those
/// numbers), each line read on its own.
fn read_picked(
    reader: &mut RunReader,
    path: &Path,
    step: u32,
    bytes: &[u8],
    lines: &BTreeSet<usize>,
) -> crate::model::verl::StepLoad {
    if crate::model::verl::trl::is_table(path, bytes) {
        let mut got = reader.read_step(path, step, bytes);
        got.rollouts.retain(|r| lines.contains(&r.line));
        got.issues.retain(|i| lines.contains(&i.line));
        return got;
    }
    let mut got = crate::model::verl::StepLoad::default();
    for (n, line) in picked_lines(bytes, lines) {
        let one = reader.read_lines(path, step, line, n - 1);
        got.rollouts.extend(one.rollouts);
        got.issues.extend(one.issues);
    }
    got
}

/// The lines numbered in `lines` (1-based) of `bytes`, each with its newline.
fn picked_lines<'b>(bytes: &'b [u8], lines: &BTreeSet<usize>) -> Vec<(usize, &'b [u8])> {
    let mut out = Vec::with_capacity(lines.len());
    let mut wanted = lines.iter().copied().peekable();
    let mut start = 0;
    let mut n = 1;
    while let Some(&next) = wanted.peek() {
        if start >= bytes.len() {
            break;
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p + 1);
        if n == next {
            out.push((n, &bytes[start..end]));
            wanted.next();
        }
        start = end;
        n += 1;
    }
    out
}

/// Numbers exact duplicates (the same query and response) in file order, continuing the
/// count of those before: `{id}`, `{id}~2`, ...
fn number_duplicates(entries: &mut [Entry], occurrences: &mut HashMap<String, usize>) {
    for e in entries {
        let r = &mut e.rollout;
        let base = r.id.0.split('~').next().unwrap_or("").to_string();
        let n = occurrences.entry(base.clone()).or_insert(0);
        r.id = if *n == 0 {
            RolloutId(base)
        } else {
            RolloutId(format!("{base}~{}", *n + 1))
        };
        *n += 1;
    }
}

/// A report's `source` resolved against the report file's folder when relative.
fn resolve_source(report_file: &Path, source: &str) -> PathBuf {
    let p = Path::new(source);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    if p.is_file() {
        return p.to_path_buf();
    }
    report_file
        .parent()
        .map(|d| d.join(p))
        .unwrap_or_else(|| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(q: &str, r: &str) -> String {
        serde_json::json!({"query": q, "response": r, "test_cases": [], "right_exe_result": ""})
            .to_string()
    }

    #[test]
    fn chunked_load_keeps_line_numbers_and_duplicate_ids() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("big.jsonl");
        let filler = "x".repeat(2000);
        let mut text = String::new();
        // Enough lines to span several chunks, with duplicates far apart and a bad line.
        for i in 0..3000 {
            if i == 700 {
                text.push_str("{broken\n");
            } else if i % 500 == 0 {
                text.push_str(&line("dup", "same"));
                text.push('\n');
            } else {
                text.push_str(&line(&format!("q{i}"), &filler));
                text.push('\n');
            }
        }
        std::fs::write(&path, &text).expect("write");
        let whole = crate::model::rollout::parse_rollout_bytes(&path, text.as_bytes());
        let mut entries = Vec::new();
        let mut issues = Vec::new();
        let mut batches = 0;
        load_sources(
            &[Source {
                kind: FileKind::Rollouts,
                data: SourceData::File(path.clone()),
            }],
            &mut |e| match e {
                LoadEvent::Batch { entries: es, .. } => {
                    batches += 1;
                    entries.extend(es);
                }
                LoadEvent::Issues(i) => issues.extend(i),
                _ => {}
            },
        );
        assert!(batches >= 3, "loaded in {batches} batches");
        assert_eq!(entries.len(), whole.rollouts.len());
        for (e, r) in entries.iter().zip(&whole.rollouts) {
            assert_eq!((e.rollout.line, &e.rollout.id), (r.line, &r.id));
        }
        assert_eq!(issues, whole.issues);
    }

    fn picked(sources: &[Source], only: &LineFilter) -> (Vec<Entry>, Vec<LoadIssue>) {
        let (mut entries, mut issues) = (Vec::new(), Vec::new());
        load_lines(sources, only, &mut |e| match e {
            LoadEvent::Batch { entries: es, .. } => entries.extend(es),
            LoadEvent::Issues(i) => issues.extend(i),
            _ => {}
        });
        (entries, issues)
    }

    #[test]
    fn picked_lines_of_a_rollout_file_are_its_rows_and_nothing_else() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.jsonl");
        let mut text = String::new();
        for i in 1..=50 {
            match i {
                7 => text.push_str("{broken\n"),
                9 => text.push('\n'),
                _ => text.push_str(&format!("{}\n", line(&format!("q{i}"), &format!("r{i}")))),
            }
        }
        std::fs::write(&path, &text).expect("write");
        let whole = crate::model::rollout::parse_rollout_bytes(&path, text.as_bytes());
        let wanted = [3usize, 7, 9, 30, 50, 51];
        let only = LineFilter::from([((path.clone(), None), wanted.into_iter().collect())]);
        let source = Source {
            kind: FileKind::Rollouts,
            data: SourceData::File(path.clone()),
        };
        let (entries, issues) = picked(&[source], &only);
        let got: Vec<(usize, String)> = entries
            .iter()
            .map(|e| (e.rollout.line, e.rollout.response.clone()))
            .collect();
        let expected: Vec<(usize, String)> = whole
            .rollouts
            .iter()
            .filter(|r| wanted.contains(&r.line))
            .map(|r| (r.line, r.response.clone()))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(
            got.iter().map(|g| g.0).collect::<Vec<_>>(),
            vec![3, 30, 50],
            "the blank line and the file's end give no row"
        );
        // The broken line picked is said, with its line; no other line's issue is.
        assert_eq!(issues.iter().map(|i| i.line).collect::<Vec<_>>(), vec![7]);
        // A file the filter does not name is not read at all.
        let other = LineFilter::from([((dir.path().join("elsewhere.jsonl"), None), [1].into())]);
        let source = Source {
            kind: FileKind::Rollouts,
            data: SourceData::File(path),
        };
        assert!(picked(&[source], &other).0.is_empty());
    }

    #[test]
    fn picked_lines_of_a_training_step_keep_their_step_and_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let run = dir.path().join("rollout");
        std::fs::create_dir(&run).expect("mkdir");
        for step in 1..=3u32 {
            let mut text = String::new();
            for i in 1..=20 {
                let sample = serde_json::json!({
                    "input": format!("prompt {i}"),
                    "output": format!("step {step} sample {i}"),
                    "score": 0.0,
                    "step": step,
                });
                text.push_str(&format!("{sample}\n"));
            }
            std::fs::write(run.join(format!("{step}.jsonl")), text).expect("write");
        }
        let dump = crate::session::inputs::Inputs::classify(&[run], &[])
            .expect("classified")
            .runs
            .pop()
            .and_then(|r| r.dump)
            .expect("a training run");
        let dataset = Arc::new(Dataset::default());
        let source = Source {
            kind: FileKind::Rollouts,
            data: SourceData::Dump {
                join: Arc::new(JoinIndex::new(&dataset)),
                dataset,
                run: dump.clone(),
            },
        };
        let only = LineFilter::from([
            ((dump.dir.clone(), Some(2)), [4usize, 20].into()),
            ((dump.dir.clone(), Some(3)), [1usize].into()),
        ]);
        let (entries, issues) = picked(&[source], &only);
        assert!(issues.is_empty(), "{issues:?}");
        let got: Vec<(Option<u32>, usize, String)> = entries
            .iter()
            .map(|e| {
                let r = &e.rollout;
                (
                    r.sample.as_ref().map(|s| s.step),
                    r.line,
                    r.response.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(2), 4, "step 2 sample 4".to_string()),
                (Some(2), 20, "step 2 sample 20".to_string()),
                (Some(3), 1, "step 3 sample 1".to_string()),
            ]
        );
    }
}
