//! What a rollout that is a sample of a training run carries besides its text: its step,
//! its GRPO group, the stored training reward, how it found its task, whether its `gts` is
//! the task's expected result, and the line's other keys. Read by `verl` (which fills it) and by every
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
    /// The run-wide number of its GRPO group's key (with the step, its group): the prompt
    /// part of its `uid` when the line has one, else its prompt text.
    pub group: u32,
    /// The prompt part of its `uid` (`None`: the dump has no uid; grouped by prompt text).
    pub group_uid: Option<Arc<str>>,
    /// The stored training reward (`score`), when it is a number.
    pub score: Option<f64>,
    pub joined: JoinedBy,
    /// The sample's `gts` when it is not the task's `right_exe_result` (`None`: the same,
    /// or no task to compare with, or no `gts`).
    pub gts_differs: Option<Arc<str>>,
    /// Its output is empty (or only blanks): verl dumps an aborted request that way.
    pub empty_output: bool,
    /// The line's other keys (reward extras such as `acc`, `request_id`), as written.
    pub extras: Box<[(Box<str>, Box<str>)]>,
}
