//! Background work: loading (and then following training runs), one queue of requests
//! (grading, reruns and the runtime install, search, highlighting, analysis, score-cache
//! lookups, a stored line read again, stats, exports) and the threads that run them
//! (`reruns` is the rerun thread, `stats` the stats job). Requests carry ids or tickets;
//! results that no longer match what the app asked for are dropped by the app.

pub mod confirm;
mod files;
pub mod reruns;
pub mod stats;
mod sweep;
pub mod training;

pub use files::PageMaker;
use files::{export, read_raw_line};
use sweep::sweep;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};

use crate::analysis::{Analysis, AnalysisDigest, analyze_rollout};
use crate::grade::report::GradeReport;
use crate::model::raw_line::RawLine;
use crate::model::rollout::Interner;
use crate::model::{ApiMap, Dataset, DatasetItem};
use crate::session::caches::ScoreCache;
use crate::session::resolve::{Resolved, Resolver};

use super::entry::{Entry, Task};
use super::highlight::{Highlighted, highlight_markdown, highlight_python};
use super::load::{FOLLOW_EVERY, Follow, LoadEvent, Source, load_following, return_freed_memory};
use crate::grade::backend::GradeBackend;
use reruns::{BackendFactory, RerunRequest, RerunWorker};

/// What a highlighted text is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HighlightKind {
    /// The whole response, as markdown.
    Response,
    /// The extracted code.
    Code,
    /// The dataset's NumPy reference solution of the row's task.
    Reference,
}

/// Identifies a highlighted text: row and kind.
pub type HighlightKey = (usize, HighlightKind);

/// Work the app asks for.
#[derive(Debug, Clone)]
pub enum JobRequest {
    /// Grade row `row`; `front` puts it ahead of the queue (the user is looking at it).
    Grade {
        ticket: u64,
        row: usize,
        entry: Arc<Entry>,
        front: bool,
    },
    /// Search `pattern` over `entries` (`search`: query, response, names, ids).
    Search {
        id: u64,
        pattern: String,
        entries: Arc<Vec<Arc<Entry>>>,
        digests: Arc<Vec<Option<Arc<AnalysisDigest>>>>,
        tasks: Arc<Vec<Task>>,
    },
    Highlight {
        key: HighlightKey,
        text: String,
        syntect_theme: String,
    },
    /// The analysis of every row from `from` on (or of the rows `only` names: rows replaced
    /// by a rewritten file's), in the background on every core; its digests fill the list's
    /// findings and functions columns as they come.
    AnalyzeAll {
        from: usize,
        only: Option<Vec<usize>>,
        entries: Arc<Vec<Arc<Entry>>>,
        dataset: Arc<Dataset>,
        api: Arc<ApiMap>,
    },
    /// The full static analysis (`crate::analysis`) of one row, for the Code and Graph panes.
    Analyze {
        row: usize,
        entry: Arc<Entry>,
        item: Option<Box<DatasetItem>>,
        api: Arc<ApiMap>,
    },
    /// Look `rows` up in their files' rerun sidecars, then the score cache (verdicts
    /// graded in an earlier session), by `session::resolve`'s precedence.
    LookupScores {
        rows: Vec<usize>,
        /// Each row's entry, in the order of `rows` (not the whole list: a lookup asked for
        /// while loading must not hold the list that the next batch extends).
        entries: Vec<Arc<Entry>>,
        cache: Option<Arc<ScoreCache>>,
        /// Where the rerun sidecars are.
        places: crate::model::sidecar::SidecarPlaces,
        /// Keep the whole reports (rows opened); else only their facts are kept.
        whole: bool,
        /// Where each batch the rows came in ends in `rows` (the last batch's end may be
        /// left out): the cache reads a batch it kept as a set in one read
        /// (`ScoreCache::facts_cut`).
        cuts: Vec<usize>,
    },
    /// Once every grade is in: the loading batches' rows (their `entries`, cut at `cuts`)
    /// looked up as a reopening will look them up, after the grader's gathered reports are
    /// written, so that the cache keeps each batch as a set and a reopening reads it at once.
    SealSets {
        entries: Vec<Arc<Entry>>,
        cuts: Vec<usize>,
        cache: Arc<ScoreCache>,
        places: crate::model::sidecar::SidecarPlaces,
    },
    /// Run-level stats and a comparison of two runs (`stats`).
    Stats(Box<stats::StatsInput>),
    /// Training runs step by step (`training`).
    Training(Box<training::TrainingInput>),
    /// The responses' tokens for the Training figures (`training::count_tokens`).
    CountTokens(Box<training::CountInput>),
    /// A rerun, what-if or runtime install, for the rerun thread (`reruns`).
    Rerun(RerunRequest),
    /// Run the selected rollout once under the tracer to settle its findings (`confirm`).
    Confirm(Box<confirm::ConfirmRequest>),
    /// Read row `row`'s stored line again (the Response pane's raw view): line `line` of
    /// `source`, or of `embedded`, the text built into the binary that `source` labels (the
    /// demo).
    RawLine {
        row: usize,
        source: Arc<std::path::Path>,
        line: usize,
        embedded: Option<&'static str>,
    },
    /// Draw a page (`page`) and write it to `path`; `shown` is the path as the status bar
    /// names it.
    Export {
        path: PathBuf,
        shown: PathBuf,
        page: PageMaker,
    },
}

/// What the session remembers of a row: the resolver's answer (a rerun's, the score
/// cache's), with the whole report for an opened row.
#[derive(Debug, Clone)]
pub struct Remembered {
    pub resolved: Resolved,
    pub report: Option<Box<GradeReport>>,
}

/// Results coming back.
#[derive(Debug, Clone)]
pub enum JobEvent {
    Load(LoadEvent),
    Graded {
        ticket: u64,
        row: usize,
        result: Result<Box<GradeReport>, String>,
    },
    /// Matching rows and scores, best first.
    SearchDone {
        id: u64,
        matches: Vec<(usize, i64)>,
    },
    Highlighted {
        key: HighlightKey,
        text: Arc<Highlighted>,
    },
    Analyzed {
        row: usize,
        analysis: Arc<Analysis>,
    },
    /// Digests of the analysis of some rows (findings, functions called).
    Digested {
        rows: Vec<(usize, Arc<AnalysisDigest>)>,
    },
    /// A rerun, a what-if or the runtime install reporting back (`reruns`).
    Rerun(reruns::RerunEvent),
    /// A rollout's findings settled by a traced run (`confirm`).
    Confirm(Box<confirm::ConfirmEvent>),
    /// The score cache's reports for the rows it knew, and the rows it did not; `whole`:
    /// the lookup asked for whole reports (rows opened).
    CachedScores {
        found: Vec<(usize, Remembered)>,
        missing: Vec<usize>,
        whole: bool,
    },
    /// The loading batches were looked up to be kept as sets ([`JobRequest::SealSets`]).
    Sealed,
    /// The figures of the stats and compare screens.
    Stats(Arc<stats::StatsResult>),
    /// The figures of the Training screen.
    Training(Arc<training::TrainingResult>),
    /// Tokens counted for the Training figures: `counted` of `total` rows (`done`: all,
    /// and in the memo).
    TokensCounted {
        counted: usize,
        total: usize,
        done: bool,
    },
    /// A row's stored line, read again (or why it could not be).
    RawLine {
        row: usize,
        result: Result<Arc<RawLine>, String>,
    },
    /// An export was written to `shown` (or why not).
    Exported {
        shown: PathBuf,
        result: Result<(), String>,
    },
}

pub use super::search::search_rows;

/// The digest of one row's analysis; `None` when the analysis panicked on its code.
/// Without an API doc, findings that only the API can judge are left out (they would be noise).
/// The name lists are shared through `names` (rows of a task mostly call the same functions).
pub fn digest_row(
    entry: &Entry,
    dataset: &Dataset,
    api: &ApiMap,
    names: &mut Interner,
) -> Option<Arc<AnalysisDigest>> {
    let analysis = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        analyze_rollout(&entry.rollout, api, dataset.get(&entry.rollout.query))
    }))
    .ok()?;
    let mut digest = digest_of(&analysis, api);
    digest.functions = names.names(&digest.functions);
    digest.zwc_calls = names.names(&digest.zwc_calls);
    Some(Arc::new(digest))
}

/// The digest of `analysis` as the explorer shows it (see [`digest_row`]).
pub fn digest_of(analysis: &Analysis, api: &ApiMap) -> AnalysisDigest {
    let mut digest = AnalysisDigest::of(analysis);
    if api.is_empty() {
        digest.findings.retain(|f| !f.kind.needs_api());
    }
    digest
}

/// Rows per `Digested` event of the background sweep.
const SWEEP_BATCH: usize = 256;

/// Analyses rows `from..` of `entries` on every core, a batch at a time, handing each batch's
/// digests to `sink`; stops early when `sink` answers `false` (nobody is listening).
pub fn analyze_rows(
    entries: &[Arc<Entry>],
    from: usize,
    dataset: &Dataset,
    api: &ApiMap,
    sink: &(dyn Fn(Vec<(usize, Arc<AnalysisDigest>)>) -> bool + Sync),
) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    // Batches are handed out from a shared cursor: a slow batch does not hold up the others.
    let next = AtomicUsize::new(from);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut names = Interner::default();
                while !stop.load(Ordering::Relaxed) {
                    let start = next.fetch_add(SWEEP_BATCH, Ordering::Relaxed);
                    if start >= entries.len() {
                        return;
                    }
                    let end = (start + SWEEP_BATCH).min(entries.len());
                    let rows = (start..end)
                        .filter_map(|r| {
                            digest_row(&entries[r], dataset, api, &mut names).map(|d| (r, d))
                        })
                        .collect();
                    if !sink(rows) {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    // Each analysis freed its tree and temporaries in its thread's arena.
    return_freed_memory();
}

/// Runs one request to completion on the current thread (used by the workers and by tests);
/// reruns are not run here (`None`): `inline::drain_reruns` runs them.
pub fn run_request(req: JobRequest, backend: Option<&dyn GradeBackend>) -> Option<JobEvent> {
    match req {
        JobRequest::Grade {
            ticket,
            row,
            entry,
            front,
        } => {
            // One row asked for (a regrade, the row looked at) runs; bulk grading reuses the
            // runs of identical programs.
            let result = match backend {
                Some(b) if front => b
                    .grade(&entry.rollout)
                    .map(Box::new)
                    .map_err(|e| format!("{e:#}")),
                Some(b) => b
                    .grade_shared(&entry.rollout)
                    .map(Box::new)
                    .map_err(|e| format!("{e:#}")),
                None => Err("no grading backend".to_string()),
            };
            Some(JobEvent::Graded {
                ticket,
                row,
                result,
            })
        }
        JobRequest::Search {
            id,
            pattern,
            entries,
            digests,
            tasks,
        } => search_rows(&entries, &digests, &tasks, &pattern, &mut || false)
            .map(|matches| JobEvent::SearchDone { id, matches }),
        JobRequest::Highlight {
            key,
            text,
            syntect_theme,
        } => {
            let h = match key.1 {
                HighlightKind::Response => highlight_markdown(&text, &syntect_theme),
                HighlightKind::Code | HighlightKind::Reference => {
                    highlight_python(&text, &syntect_theme)
                }
            };
            Some(JobEvent::Highlighted {
                key,
                text: Arc::new(h),
            })
        }
        JobRequest::AnalyzeAll { .. } => {
            let (tx, rx) = std::sync::mpsc::channel();
            sweep(req, &tx);
            let mut rows: Vec<_> = rx
                .try_iter()
                .flat_map(|e| match e {
                    JobEvent::Digested { rows } => rows,
                    _ => Vec::new(),
                })
                .collect();
            rows.sort_by_key(|(row, _)| *row);
            Some(JobEvent::Digested { rows })
        }
        JobRequest::Analyze {
            row,
            entry,
            item,
            api,
        } => Some(JobEvent::Analyzed {
            row,
            analysis: Arc::new(analyze_rollout(&entry.rollout, &api, item.as_deref())),
        }),
        JobRequest::SealSets {
            entries,
            cuts,
            cache,
            places,
        } => {
            if let Some(b) = backend {
                b.flush();
            }
            let rollouts: Vec<&crate::model::Rollout> =
                entries.iter().map(|e| &e.rollout).collect();
            // Whole batches at a time, up to a lookup's size: sealing 200,000 rows at once
            // held all their keys and answers together.
            for (span, inner) in whole_batches(&cuts, rollouts.len(), LOOKUP_TAKES_ALONG) {
                Resolver::remembered_facts(Some(cache.clone()), &places, &rollouts[span], &inner);
            }
            Some(JobEvent::Sealed)
        }
        JobRequest::LookupScores {
            rows,
            entries,
            cache,
            places,
            whole,
            cuts,
        } => {
            let (mut found, mut missing) = (Vec::new(), Vec::new());
            let asked = rows.len();
            if whole {
                // Opened rows keep the whole report.
                let mut next = rows.iter().copied();
                Resolver::remembered(
                    cache,
                    &places,
                    entries.iter().map(|e| &e.rollout),
                    &mut |k| {
                        let Some(row) = next.next() else {
                            return;
                        };
                        match k.map(|(resolved, report)| Remembered {
                            resolved,
                            report: Some(Box::new(report)),
                        }) {
                            Some(known) => found.push((row, known)),
                            None => missing.push(row),
                        }
                    },
                );
            } else {
                // The others only their facts, read without the reports.
                let rollouts: Vec<&crate::model::Rollout> =
                    entries.iter().map(|e| &e.rollout).collect();
                for (row, k) in rows
                    .iter()
                    .zip(Resolver::remembered_facts(cache, &places, &rollouts, &cuts))
                {
                    match k.and_then(|(source, facts)| Resolved::of_facts(facts, source)) {
                        Some(resolved) => found.push((
                            *row,
                            Remembered {
                                resolved,
                                report: None,
                            },
                        )),
                        None => missing.push(*row),
                    }
                }
                // Records filed without facts had their reports parsed (an older store);
                // a lookup of one batch while loading leaves that to the loader's trim.
                if asked >= TRIM_AFTER_LOOKUP_OF {
                    super::load::return_freed_memory();
                }
            }
            Some(JobEvent::CachedScores {
                found,
                missing,
                whole,
            })
        }
        JobRequest::Stats(input) => Some(JobEvent::Stats(Arc::new(stats::compute(&input)))),
        JobRequest::Training(input) => {
            Some(JobEvent::Training(Arc::new(training::compute(&input))))
        }
        JobRequest::CountTokens(input) => {
            let mut last = None;
            training::count_tokens(&input, &mut |e| last = Some(e));
            last
        }
        JobRequest::Export { path, shown, page } => Some(export(&path, shown, &page)),
        JobRequest::RawLine {
            row,
            source,
            line,
            embedded,
        } => Some(JobEvent::RawLine {
            row,
            result: read_raw_line(&source, line, embedded).map(Arc::new),
        }),
        // Several events, and a backend slot an install can fill: `inline::drain_reruns`.
        JobRequest::Rerun(_) => None,
        JobRequest::Confirm(req) => Some(JobEvent::Confirm(Box::new(confirm::run(*req, backend)))),
    }
}

/// A lookup of this many rows gives the memory it freed back (`malloc_trim` walks the
/// whole heap and holds every arena: after each batch's lookup while loading, it made a
/// 200,000-sample reopen 3× slower, benches/README.md).
const TRIM_AFTER_LOOKUP_OF: usize = 10_000;

#[derive(Default)]
struct GradeQueue {
    jobs: VecDeque<JobRequest>,
    closed: bool,
}

/// The worker threads and how to reach them.
pub struct Workers {
    events: Sender<JobEvent>,
    grade_queue: Option<Arc<(Mutex<GradeQueue>, Condvar)>>,
    search: Sender<JobRequest>,
    highlight: Sender<JobRequest>,
    /// The lookups of rows as they load, one at a time in order (one thread, not one per
    /// batch: they share the cache's connection anyway).
    lookups: Sender<JobRequest>,
    /// Reruns, what-ifs and the runtime install, one at a time in order.
    reruns: RerunWorker,
    /// What confirm jobs run programs with.
    confirm_backend: Option<Arc<dyn GradeBackend>>,
    /// Set when the workers go: the loader stops following training runs.
    stop_following: Arc<std::sync::atomic::AtomicBool>,
    /// The follower's looks so far ([`Follow::looks`]).
    follow_looks: Arc<AtomicUsize>,
}

impl Workers {
    /// Starts the search, highlight and rerun threads, and `grade_threads` graders when
    /// there is a backend; `factory` makes a backend for reruns after an install from the
    /// explorer.
    pub fn start(
        events: Sender<JobEvent>,
        backend: Option<Arc<dyn GradeBackend>>,
        grade_threads: usize,
        factory: Option<BackendFactory>,
    ) -> Workers {
        let reruns = RerunWorker::start(events.clone(), backend.clone(), factory);
        let confirm_backend = backend.clone();
        // The grader, whose gathered reports a seal writes first (the lookups' thread).
        let grader = backend.clone();
        let grade_queue = backend.map(|backend| {
            let queue = Arc::new((Mutex::new(GradeQueue::default()), Condvar::new()));
            for _ in 0..grade_threads.max(1) {
                let queue = queue.clone();
                let events = events.clone();
                let backend = backend.clone();
                std::thread::spawn(move || grade_worker(&queue, backend.as_ref(), &events));
            }
            queue
        });
        let (search, search_rx) = std::sync::mpsc::channel();
        let ev = events.clone();
        std::thread::spawn(move || search_worker(&search_rx, &ev));
        let (highlight, highlight_rx) = std::sync::mpsc::channel();
        let ev = events.clone();
        std::thread::spawn(move || highlight_worker(&highlight_rx, &ev));
        let (lookups, lookups_rx) = std::sync::mpsc::channel::<JobRequest>();
        let ev = events.clone();
        spawn_named("sebx-lookups", move || {
            let mut next = None;
            while let Some(first) = next.take().or_else(|| lookups_rx.recv().ok()) {
                let req = take_along(first, &lookups_rx, &mut next);
                if let Some(event) = run_request(req, grader.as_deref()) {
                    let _ = ev.send(event);
                }
            }
        });
        Workers {
            events,
            grade_queue,
            search,
            highlight,
            lookups,
            reruns,
            confirm_backend,
            stop_following: Arc::default(),
            follow_looks: Arc::default(),
        }
    }

    /// How many looks the follower has taken at what it follows ([`Follow::looks`]; 0 when
    /// nothing is followed): a test waits on it instead of sleeping.
    pub fn follow_looks(&self) -> Arc<AtomicUsize> {
        self.follow_looks.clone()
    }

    /// Starts loading `sources` on a thread of its own.
    pub fn load(&self, sources: Vec<Source>) {
        self.load_following(sources, false);
    }

    /// [`load`](Self::load), and with `follow` the runs and folders among `sources` are
    /// then followed (`load::follow`) until the workers are dropped or the app is gone.
    pub fn load_following(&self, sources: Vec<Source>, follow: bool) {
        let events = self.events.clone();
        let follow = follow.then(|| Follow {
            every: FOLLOW_EVERY,
            stop: self.stop_following.clone(),
            looks: self.follow_looks.clone(),
        });
        spawn_named("sebx-loader", move || {
            let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                load_following(
                    &sources,
                    &mut |e| {
                        // Nobody listening (the app quit): stop following.
                        if events.send(JobEvent::Load(e)).is_err()
                            && let Some(f) = &follow
                        {
                            f.stop.store(true, Ordering::Relaxed);
                        }
                    },
                    follow.as_ref(),
                );
            }));
            if loaded.is_err() {
                let _ = events.send(JobEvent::Load(LoadEvent::Failed(
                    "loading stopped: the loader crashed (a bug: please report it)".to_string(),
                )));
                let _ = events.send(JobEvent::Load(LoadEvent::Done));
            }
        });
    }

    /// Hands a request to its worker.
    pub fn dispatch(&self, req: JobRequest) {
        match req {
            JobRequest::Grade { front, row, .. } => {
                if let Some(q) = &self.grade_queue {
                    let (lock, cvar) = &**q;
                    if let Ok(mut queue) = lock.lock() {
                        if front {
                            // Moving a queued row to the front: drop its place further back.
                            queue.jobs.retain(
                                |j| !matches!(j, JobRequest::Grade { row: r, .. } if *r == row),
                            );
                            queue.jobs.push_front(req);
                        } else {
                            queue.jobs.push_back(req);
                        }
                        cvar.notify_one();
                    }
                }
            }
            JobRequest::Search { .. } => {
                let _ = self.search.send(req);
            }
            JobRequest::Highlight { .. } | JobRequest::Analyze { .. } => {
                let _ = self.highlight.send(req);
            }
            JobRequest::AnalyzeAll { .. } => {
                let events = self.events.clone();
                std::thread::spawn(move || sweep(req, &events));
            }
            // A seal after the lookups, on their thread.
            JobRequest::LookupScores { whole: false, .. } | JobRequest::SealSets { .. } => {
                let _ = self.lookups.send(req);
            }
            // An opened row's report, or up to a line of a big file: a thread of its own,
            // off the UI thread and not behind the lookups of a loading file.
            JobRequest::LookupScores { .. } | JobRequest::RawLine { .. } => {
                let events = self.events.clone();
                std::thread::spawn(move || {
                    if let Some(event) = run_request(req, None) {
                        let _ = events.send(event);
                    }
                });
            }
            JobRequest::Rerun(req) => self.reruns.dispatch(req),
            JobRequest::Confirm(req) => {
                // One traced run (a second or so): a thread of its own, like an export.
                let events = self.events.clone();
                let backend = self.confirm_backend.clone();
                std::thread::spawn(move || {
                    let event = confirm::run(*req, backend.as_deref());
                    let _ = events.send(JobEvent::Confirm(Box::new(event)));
                });
            }
            JobRequest::Stats(input) => {
                // Off the UI thread: 100k rows take a while to analyse; stale tickets are dropped.
                let events = self.events.clone();
                std::thread::spawn(move || {
                    let result = std::panic::catch_unwind(|| stats::compute(&input));
                    if let Ok(r) = result {
                        let _ = events.send(JobEvent::Stats(Arc::new(r)));
                    }
                });
            }
            JobRequest::Training(input) => {
                let events = self.events.clone();
                std::thread::spawn(move || {
                    let result = std::panic::catch_unwind(|| training::compute(&input));
                    if let Ok(r) = result {
                        let _ = events.send(JobEvent::Training(Arc::new(r)));
                    }
                });
            }
            JobRequest::CountTokens(input) => {
                let events = self.events.clone();
                std::thread::spawn(move || {
                    let _ = std::panic::catch_unwind(|| {
                        training::count_tokens(&input, &mut |e| {
                            let _ = events.send(e);
                        });
                    });
                });
            }
            JobRequest::Export { path, shown, page } => {
                // Drawing a long view and writing it stays off the UI thread.
                let events = self.events.clone();
                std::thread::spawn(move || {
                    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        export(&path, shown.clone(), &page)
                    }))
                    .unwrap_or_else(|_| JobEvent::Exported {
                        shown,
                        result: Err("the export crashed (a bug: please report it)".to_string()),
                    });
                    let _ = events.send(done);
                });
            }
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop_following.store(true, Ordering::Relaxed);
        if let Some(q) = &self.grade_queue {
            let (lock, cvar) = &**q;
            if let Ok(mut queue) = lock.lock() {
                queue.closed = true;
                queue.jobs.clear();
            }
            cvar.notify_all();
        }
    }
}

/// The most rows one lookup takes along from the queue.
const LOOKUP_TAKES_ALONG: usize = 32_768;

/// `first`, with the lookups queued behind it that it can take along (same cache and
/// sidecars, up to [`LOOKUP_TAKES_ALONG`] rows): while a big run loads faster than its
/// rows are looked up, the batches queue, and one lookup of many rows reads the cache's
/// pages in key order about once each instead of once per row. A request that cannot
/// join is left in `next`.
fn take_along(
    first: JobRequest,
    queue: &std::sync::mpsc::Receiver<JobRequest>,
    next: &mut Option<JobRequest>,
) -> JobRequest {
    let JobRequest::LookupScores {
        mut rows,
        mut entries,
        cache,
        places,
        whole: false,
        mut cuts,
    } = first
    else {
        return first;
    };
    while rows.len() < LOOKUP_TAKES_ALONG {
        match queue.try_recv() {
            Ok(JobRequest::LookupScores {
                rows: more_rows,
                entries: more,
                cache: other_cache,
                places: other_places,
                whole: false,
                cuts: more_cuts,
            }) if same_cache(&cache, &other_cache) && other_places == places => {
                // Each batch stays a segment of its own.
                let at = rows.len();
                cuts.push(at);
                cuts.extend(more_cuts.into_iter().map(|c| at + c));
                rows.extend(more_rows);
                entries.extend(more);
            }
            Ok(other) => {
                *next = Some(other);
                break;
            }
            Err(_) => break,
        }
    }
    JobRequest::LookupScores {
        rows,
        entries,
        cache,
        places,
        whole: false,
        cuts,
    }
}

/// `0..len` cut at `cuts` (increasing batch ends) into spans of whole batches of at most
/// `limit` rows (a longer batch alone), each with its batches' ends within it.
fn whole_batches(
    cuts: &[usize],
    len: usize,
    limit: usize,
) -> Vec<(std::ops::Range<usize>, Vec<usize>)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < len {
        let ends: Vec<usize> = cuts
            .iter()
            .copied()
            .filter(|&c| c > start && c <= len && c - start <= limit)
            .collect();
        let end = ends
            .last()
            .copied()
            .or_else(|| cuts.iter().copied().find(|&c| c > start && c <= len))
            .unwrap_or(len);
        out.push((start..end, ends.iter().map(|c| c - start).collect()));
        start = end;
    }
    out
}

fn same_cache(a: &Option<Arc<ScoreCache>>, b: &Option<Arc<ScoreCache>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Starts a long-lived worker under a name (what `top -H` and a debugger show).
fn spawn_named(name: &str, f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(f)
        .expect("the system starts a thread");
}

fn grade_worker(
    queue: &(Mutex<GradeQueue>, Condvar),
    backend: &dyn GradeBackend,
    events: &Sender<JobEvent>,
) {
    let (lock, cvar) = queue;
    loop {
        let job = {
            let Ok(mut q) = lock.lock() else { return };
            let mut flushed = false;
            loop {
                if q.closed {
                    drop(q);
                    backend.flush();
                    return;
                }
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                if !flushed {
                    // Idle: the verdicts the backend gathered are written now, not with
                    // the next batch (outside the queue's lock).
                    drop(q);
                    backend.flush();
                    flushed = true;
                    q = match lock.lock() {
                        Ok(q) => q,
                        Err(_) => return,
                    };
                    continue;
                }
                q = match cvar.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        // A panicking backend must not take the worker (or the terminal) down.
        let event = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_request(job.clone(), Some(backend))
        }));
        let event = match (event, job) {
            (Ok(e), _) => e,
            (Err(_), JobRequest::Grade { ticket, row, .. }) => Some(JobEvent::Graded {
                ticket,
                row,
                result: Err("the grader panicked on this rollout".to_string()),
            }),
            (Err(_), _) => None,
        };
        if let Some(e) = event
            && events.send(e).is_err()
        {
            return;
        }
    }
}

/// Keeps only the newest search; abandons a running one when a newer arrives.
fn search_worker(rx: &Receiver<JobRequest>, events: &Sender<JobEvent>) {
    let mut next: Option<JobRequest> = None;
    loop {
        let req = match next.take() {
            Some(r) => r,
            None => match rx.recv() {
                Ok(r) => r,
                Err(_) => return,
            },
        };
        let mut req = req;
        while let Ok(newer) = rx.try_recv() {
            req = newer;
        }
        let JobRequest::Search {
            id,
            pattern,
            entries,
            digests,
            tasks,
        } = req
        else {
            continue;
        };
        let mut gone = false;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            search_rows(
                &entries,
                &digests,
                &tasks,
                &pattern,
                &mut || match rx.try_recv() {
                    Ok(newer) => {
                        next = Some(newer);
                        true
                    }
                    Err(TryRecvError::Empty) => false,
                    Err(TryRecvError::Disconnected) => {
                        gone = true;
                        true
                    }
                },
            )
        }))
        // A crashed search finds nothing rather than leaving the search pending.
        .unwrap_or_else(|_| Some(Vec::new()));
        if gone {
            return;
        }
        if let Some(matches) = result
            && events.send(JobEvent::SearchDone { id, matches }).is_err()
        {
            return;
        }
    }
}

/// Highlights and analyses, newest requests first; drops a backlog the user has scrolled past.
fn highlight_worker(rx: &Receiver<JobRequest>, events: &Sender<JobEvent>) {
    let mut pending: Vec<JobRequest> = Vec::new();
    loop {
        if pending.is_empty() {
            match rx.recv() {
                Ok(r) => pending.push(r),
                Err(_) => return,
            }
        }
        while let Ok(r) = rx.try_recv() {
            pending.push(r);
        }
        if pending.len() > 6 {
            pending.drain(..pending.len() - 6);
        }
        let Some(req) = pending.pop() else { continue };
        // Odd code must not take the worker down: a panicking request is just dropped.
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_request(req, None)));
        if let Ok(Some(e)) = result
            && events.send(e).is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::model::rollout::parse_rollout_bytes;

    fn entries(n: usize) -> Vec<Arc<Entry>> {
        let text: String = (0..n)
            .map(|i| {
                let response = if i % 2 == 0 {
                    format!("```python\ndef f(x):\n    return zwc.fn{i}(x)\n```")
                } else {
                    "no code".to_string()
                };
                serde_json::json!({
                    "query": format!("q{i}"),
                    "response": response,
                    "test_cases": [],
                    "right_exe_result": "",
                })
                .to_string()
                    + "\n"
            })
            .collect();
        parse_rollout_bytes(Path::new("t.jsonl"), text.as_bytes())
            .rollouts
            .into_iter()
            .map(|r| Arc::new(Entry::build(r, 0, 0)))
            .collect()
    }

    #[test]
    fn the_sweep_analyses_every_row_once_in_batches_and_stops_when_unheard() {
        let rows = entries(3 * SWEEP_BATCH + 5);
        let api = ApiMap::from_api_doc_jsonl(r#"{"func_mapping": {"np.mean": "zwc.kocito"}}"#)
            .expect("api");
        let batches = Mutex::new(Vec::new());
        analyze_rows(&rows, 3, &Dataset::default(), &api, &|batch| {
            batches.lock().map(|mut b| b.push(batch)).is_ok()
        });
        let batches = batches.into_inner().expect("batches");
        assert_eq!(batches.len(), 4);
        let mut seen: Vec<usize> = batches.iter().flatten().map(|(r, _)| *r).collect();
        seen.sort_unstable();
        assert_eq!(seen, (3..rows.len()).collect::<Vec<_>>());
        for (row, digest) in batches.iter().flatten() {
            assert_eq!(digest.code_found, row % 2 == 0, "row {row}");
            if row % 2 == 0 {
                assert_eq!(&digest.functions[..], [format!("zwc.fn{row}")]);
            }
        }
        // A sink nobody listens to: every thread stops after its current batch.
        let calls = AtomicUsize::new(0);
        analyze_rows(&rows, 0, &Dataset::default(), &api, &|_| {
            calls.fetch_add(1, Ordering::Relaxed);
            false
        });
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert!(calls.into_inner() <= threads);
    }

    #[test]
    fn rows_calling_the_same_functions_share_one_name_list() {
        let api = ApiMap::from_api_doc_jsonl(r#"{"func_mapping": {"np.mean": "zwc.kocito"}}"#)
            .expect("api");
        let text: String = ["a", "b", "a"]
            .iter()
            .map(|f| {
                let code =
                    format!("```python\ndef f(x):\n    return zwc.kocito(x) + zwc.{f}(x)\n```");
                serde_json::json!({"query": "q", "response": code, "test_cases": [],
                    "right_exe_result": ""})
                .to_string()
                    + "\n"
            })
            .collect();
        let rows: Vec<Entry> = parse_rollout_bytes(Path::new("t.jsonl"), text.as_bytes())
            .rollouts
            .into_iter()
            .map(|r| Entry::build(r, 0, 0))
            .collect();
        let mut names = Interner::default();
        let digests: Vec<Arc<AnalysisDigest>> = rows
            .iter()
            .map(|e| digest_row(e, &Dataset::default(), &api, &mut names).expect("digest"))
            .collect();
        assert_eq!(&digests[0].functions[..], ["mean", "zwc.a"]);
        assert!(Arc::ptr_eq(&digests[0].functions, &digests[2].functions));
        assert!(Arc::ptr_eq(&digests[0].zwc_calls, &digests[2].zwc_calls));
        assert!(!Arc::ptr_eq(&digests[0].functions, &digests[1].functions));
    }

    /// A seal looks its batches up a few whole batches at a time.
    #[test]
    fn a_seal_goes_by_whole_batches() {
        let spans = whole_batches(&[3, 5, 9, 10], 10, 5);
        assert_eq!(
            spans,
            vec![(0..5, vec![3, 5]), (5..10, vec![4, 5])],
            "batches kept whole, at most 5 rows a span"
        );
        // A batch over the limit goes alone; rows past the last cut form one more.
        assert_eq!(
            whole_batches(&[2, 9], 12, 4),
            vec![(0..2, vec![2]), (2..9, vec![]), (9..12, vec![])]
        );
        assert!(whole_batches(&[], 0, 4).is_empty());
    }

    /// Lookups queued behind one go with it, in order, up to the limit; one for other
    /// sidecars waits for the next turn, and the rows looked up are the rows asked.
    #[test]
    fn a_lookup_takes_the_queued_lookups_along() {
        let lookup = |rows: std::ops::Range<usize>, dir: Option<&str>| JobRequest::LookupScores {
            entries: entries(rows.len()),
            rows: rows.collect(),
            cache: None,
            places: crate::model::sidecar::SidecarPlaces {
                dir: dir.map(std::path::PathBuf::from),
                fallback: None,
            },
            whole: false,
            cuts: Vec::new(),
        };
        let (tx, rx) = std::sync::mpsc::channel();
        for req in [
            lookup(2..5, None),
            lookup(5..6, None),
            lookup(6..8, Some("x")),
        ] {
            tx.send(req).expect("queued");
        }
        tx.send(lookup(8..9, None)).expect("queued");
        let mut next = None;
        let JobRequest::LookupScores {
            rows,
            entries,
            cuts,
            ..
        } = take_along(lookup(0..2, None), &rx, &mut next)
        else {
            panic!("a lookup");
        };
        assert_eq!(rows, (0..6).collect::<Vec<_>>());
        assert_eq!(entries.len(), 6);
        // Each batch taken along stays a segment of its own (its end in the rows).
        assert_eq!(cuts, vec![2, 5]);
        let Some(JobRequest::LookupScores { rows, .. }) = next.take() else {
            panic!("the other sidecars' lookup waits");
        };
        assert_eq!(rows, vec![6, 7]);
        // The limit: a lookup of that many rows takes nothing along.
        let big = JobRequest::LookupScores {
            rows: (0..LOOKUP_TAKES_ALONG).collect(),
            entries: Vec::new(),
            cache: None,
            places: crate::model::sidecar::SidecarPlaces::default(),
            whole: false,
            cuts: Vec::new(),
        };
        let JobRequest::LookupScores { rows, .. } = take_along(big, &rx, &mut next) else {
            panic!("a lookup");
        };
        assert_eq!(rows.len(), LOOKUP_TAKES_ALONG);
        assert!(next.is_none());
        assert!(
            matches!(rx.try_recv(), Ok(JobRequest::LookupScores { rows, .. }) if rows == vec![8])
        );
    }
}
