//! Opening the score cache, by one rule for every front end: `--no-cache` means neither read
//! nor write, `--cache-dir DIR` (else `$SEBX_SCORE_CACHE`, else the user cache folder) says
//! where; a cache that cannot be opened is a note, never an error (it only costs a regrade).
//! The same flags place the trace cache (traced runs, `grade::trace::cache`).

use std::path::PathBuf;
use std::sync::Arc;

use crate::grade::score_cache;
pub use crate::grade::score_cache::ScoreCache;
use crate::grade::settings::GradingSettings;
use crate::model::ApiMap;

/// The cache flags every command that reads rollouts takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CacheFlags {
    /// Neither use remembered verdicts nor remember new ones (the score cache; see
    /// `sebx cache`).
    #[arg(long)]
    pub no_cache: bool,
    /// The score cache's folder (default: $SEBX_SCORE_CACHE, else <cache dir>/sebx/scores);
    /// traced runs are remembered in its `traces` folder.
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
}

impl CacheFlags {
    pub fn choice(&self) -> CacheChoice {
        if self.no_cache {
            CacheChoice::Off
        } else if let Some(dir) = &self.cache_dir {
            CacheChoice::Dir(dir.clone())
        } else {
            CacheChoice::Default
        }
    }
}

/// Which score cache a session uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CacheChoice {
    /// `$SEBX_SCORE_CACHE`, else `<cache dir>/sebx/scores`.
    #[default]
    Default,
    /// None: nothing remembered is read, nothing new is written.
    Off,
    /// This folder.
    Dir(PathBuf),
}

impl CacheChoice {
    /// The folder in force (`None`: off, or no cache folder on this system).
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            CacheChoice::Default => score_cache::default_dir(),
            CacheChoice::Off => None,
            CacheChoice::Dir(d) => Some(d.clone()),
        }
    }

    /// The trace cache's folder in force (`None`: off): `DIR/traces` under `--cache-dir DIR`,
    /// else `$SEBX_TRACE_CACHE`, else `<cache dir>/sebx/traces`.
    pub fn trace_dir(&self) -> Option<PathBuf> {
        match self {
            CacheChoice::Default => Some(crate::grade::trace::cache::default_dir()),
            CacheChoice::Off => None,
            CacheChoice::Dir(d) => Some(d.join("traces")),
        }
    }
}

/// A score cache as opened for a session, with what to tell the user about it.
#[derive(Debug, Default, Clone)]
pub struct OpenedCache {
    pub cache: Option<Arc<ScoreCache>>,
    pub notes: Vec<String>,
}

impl OpenedCache {
    /// A writer that files reports in the cache as they arrive, one transaction per batch
    /// (`None`: no cache).
    pub fn batched(&self) -> Option<score_cache::Batched> {
        self.cache.clone().map(score_cache::Batched::new)
    }

    /// `engine` behind the cache's program runs: every run is remembered by program and,
    /// with `answer`, a program that ran before is answered from its remembered run.
    pub fn runner<'a>(
        &'a self,
        engine: &'a dyn crate::grade::grader::ProgramRunner,
        answer: bool,
    ) -> crate::grade::run_cache::Remembered<'a> {
        crate::grade::run_cache::Remembered::new(
            engine,
            self.cache.as_ref().and_then(|c| c.runs()),
            answer,
        )
    }

    /// The session's resolver over the scored files `reports` and this cache; lines of a
    /// scored file that are not reports come back as issues.
    pub fn resolver(
        &self,
        reports: &[PathBuf],
    ) -> anyhow::Result<(super::Resolver, Vec<crate::model::LoadIssue>)> {
        super::Resolver::new(reports, self.cache.clone())
    }
}

/// Opens the score cache `choice` names for `api`, to look up and remember reports graded
/// under `settings`. No API doc: no cache (its records are filed by mapping).
pub fn open_score_cache(
    choice: &CacheChoice,
    api: &ApiMap,
    settings: &GradingSettings,
) -> OpenedCache {
    let mut opened = OpenedCache::default();
    if api.is_empty() {
        return opened;
    }
    let Some(dir) = choice.dir() else {
        return opened;
    };
    match ScoreCache::open(&dir, api, settings) {
        Ok(cache) => {
            // What opening did that the user should know (an earlier format's files removed).
            opened.notes.extend(cache.notes().iter().cloned());
            opened.cache = Some(Arc::new(cache));
        }
        Err(e) => opened.notes.push(format!(
            "score cache unavailable ({e:#}); nothing is remembered"
        )),
    }
    opened
}

pub use crate::grade::store::{Size, human_bytes, regradable};

/// What `sebx cache` reads and changes: the store in the folder the command line chose
/// (`--cache-dir DIR`, else `$SEBX_SCORE_CACHE`, else the user cache folder), opened only
/// when asked.
#[derive(Debug, Clone)]
pub struct CacheAdmin {
    dir: PathBuf,
}

/// What [`CacheAdmin::prune`] did.
#[derive(Debug, Clone)]
pub struct Pruned {
    pub evicted: crate::grade::store::Evicted,
    /// The size pruned down to, in bytes.
    pub max: u64,
    pub before_on_disk: u64,
    pub after: Size,
}

impl CacheAdmin {
    /// The cache `choice` names; an error when it names none.
    pub fn new(choice: &CacheChoice) -> anyhow::Result<CacheAdmin> {
        match choice.dir() {
            Some(dir) => Ok(CacheAdmin { dir }),
            None => anyhow::bail!("no cache folder on this system: set SEBX_SCORE_CACHE"),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The database file.
    pub fn database(&self) -> PathBuf {
        self.dir.join(crate::grade::store::FILE_NAME)
    }

    fn open(&self) -> anyhow::Result<Arc<crate::grade::store::Store>> {
        let store = crate::grade::store::Store::open_with(
            &self.dir,
            crate::grade::store::Options::default(),
        )?;
        for note in store.notes() {
            crate::warnln!("note: {note}");
        }
        Ok(store)
    }

    /// What the store holds.
    pub fn size(&self) -> anyhow::Result<Size> {
        self.open()?.size()
    }

    /// Evicts the least recently used records down to `max_mb` MiB (default: the limit).
    pub fn prune(&self, max_mb: Option<u64>) -> anyhow::Result<Pruned> {
        let store = self.open()?;
        let max = max_mb.map_or(store.options().limit, |mb| mb.saturating_mul(1 << 20));
        let before_on_disk = store.size()?.on_disk;
        let evicted = store.prune(max)?;
        Ok(Pruned {
            evicted,
            max,
            before_on_disk,
            after: store.size()?,
        })
    }

    /// Forgets every record, and the JSONL files beside the store.
    pub fn clear(&self) -> anyhow::Result<score_cache::Cleared> {
        score_cache::clear_all(&self.dir)
    }
}

pub use crate::grade::trace::cache::TraceCache;

/// The trace cache `choice` names for `api` (`None`: off, or it cannot be opened: then a
/// warning on stderr, since it only costs a rerun).
pub fn open_trace_cache(choice: &CacheChoice, api: &ApiMap) -> Option<TraceCache> {
    match choice.trace_dir().map(|dir| TraceCache::open(&dir, api)) {
        Some(Ok(c)) => Some(c),
        Some(Err(e)) => {
            crate::warnln!("warning: no trace cache: {e:#}");
            None
        }
        None => None,
    }
}
