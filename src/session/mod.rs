//! The session: everything that turns a command line into what the front ends show, in one
//! place, so that no answer depends on which command asked or what it asked first.
//!
//! - [`setup`]: the [`Session`] every command starts from, built once from its command
//!   line: its inputs classified and read, its context found, its cache chosen;
//! - [`inputs`]: every path classified once (rollout files, scored files, correct
//!   trajectories, datasets, an API doc, folders of rollout files, training runs), the API
//!   doc and datasets found;
//! - [`caches`]: the score cache opened with the settings in force, or not at all, by one
//!   rule for every front end (`--no-cache`, `--cache-dir`, `$SEBX_SCORE_CACHE`);
//! - [`sidecars`]: where label, rerun and bookmark sidecars go (`--sidecar-dir`, the
//!   config's `sidecar_dir`, beside the file, the fallback), and the config file read once;
//! - [`resolve`]: every rollout's verdict and reward, with their source, by one precedence;
//! - [`runs`]: the runs of a [`Session`] (`stats`, `compare`, `report`) loaded into a run
//!   set, grading what no source knows; [`examples`]: a report's example rollouts picked,
//!   and drawn (by the front end `main` hands in) from that same session; [`report`]: the typed figures every view renders;
//!   [`label_progress`]: the one label-progress figure (labelled failures of failures, over
//!   every run or one, named) every view says; [`facts_cache`]: a training run's facts remembered under a key of everything that
//!   decides them.
//!
//! The front ends (`cli`, `tui`, `serve`) call this layer and never open a cache, classify a
//! path or decide a verdict themselves (`tests/layers.rs`).

pub mod caches;
pub mod examples;
pub mod facts_cache;
pub mod inputs;
pub mod label_progress;
pub mod loaded;
pub mod report;
pub mod resolve;
pub mod runs;
pub mod setup;
pub mod sidecars;

pub use caches::{CacheChoice, CacheFlags, OpenedCache, open_score_cache};
pub use inputs::{Inputs, RunInput};
pub use resolve::{Resolved, Resolver, Settled, VerdictSource, settle};
pub use setup::{Session, SessionArgs, SourceFile};

/// Programs graded in parallel when a command does not say: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
}
