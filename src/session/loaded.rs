//! What loading runs yields: the run set and the runs' names, files and annotators, as
//! `stats`, `compare`, the facts cache and the explorer's screens read them.

use std::path::PathBuf;

use crate::grade::runs::RunSet;

/// One loaded run: its file and where each rollout's verdict came from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LoadedRun {
    pub path: PathBuf,
    pub name: String,
    /// Annotator whose labels were used, if any.
    pub annotator: Option<String>,
    /// Category order (taxonomy).
    pub categories: Vec<String>,
}

/// Everything `stats` and `compare` computed from.
pub struct Loaded {
    pub set: RunSet,
    pub runs: Vec<LoadedRun>,
    pub notes: Vec<String>,
}
