//! Rollouts, dataset items, the zwc API mapping, scores and labels, and their loading.

pub mod agreement;
pub mod api;
pub mod bookmarks;
pub mod bounded;
pub mod dataset;
pub mod discovery;
pub mod files;
pub mod finding_kinds;
pub mod html;
pub mod labels;
pub mod parallel;
pub mod playlist;
pub mod python_json;
pub mod raw_line;
pub mod rollout;
pub mod sample;
pub mod sampling;
pub mod sidecar;
pub mod tail;
pub mod taxonomy;
pub mod tokenizer;
pub mod verdict;
pub mod verl;

pub use api::ApiMap;
pub use dataset::{Dataset, DatasetItem};
pub use rollout::{LoadIssue, LoadedFile, Rollout, RolloutId, TestCase};
pub use verdict::Verdict;
