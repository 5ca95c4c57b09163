//! What a rollout that is a sample of a training run carries besides its text: its step,
//! its GRPO group's prompt, the stored training reward, how it found its task and whether
//! its `gts` is the task's expected result. Read by `verl` (which fills it) and by every
//! layer above (figures, the reward's ground truth, the explorer's columns).

use std::sync::Arc;

/// How a sample found its task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoinedBy {
    /// The text under `### Problem` is a dataset query.
    Problem,
    /// The longest dataset query the prompt contains.
    Contained,
    /// No dataset query matches.
    Unjoined,
}

/// What a sample carries besides its rollout: where it sits in the training run.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleMeta {
    pub step: u32,
    /// The run-wide number of its prompt; with the step, its GRPO group.
    pub prompt: u32,
    /// The stored training reward (`score`), when it is a number.
    pub score: Option<f64>,
    pub joined: JoinedBy,
    /// The sample's `gts` when it is not the task's `right_exe_result` (`None`: the same,
    /// or no task to compare with, or no `gts`).
    pub gts_differs: Option<Arc<str>>,
}
