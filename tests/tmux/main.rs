//! The real binary in a real terminal (tmux); filter them with `cargo test --test tmux`.
//!
//! One test binary for these files (issue 40: a binary per file linked the whole library
//! ~100 times). Every file stays at tests/NAME.rs as the module NAME, run one with
//! `cargo test --test tmux NAME::`; the shared helpers are compiled once here and used
//! through `crate::`. Tests share this process: none may change its environment or
//! current folder. Snapshots are named `tmux__NAME__SNAPSHOT.snap` in tests/snapshots.

#[path = "../common/tmux.rs"]
mod tmux_support;

#[path = "../tui_bookmarks_tmux.rs"]
mod tui_bookmarks_tmux;
#[path = "../tui_follow_tmux.rs"]
mod tui_follow_tmux;
#[path = "../tui_labels_tmux.rs"]
mod tui_labels_tmux;
#[path = "../tui_present_follow_tmux.rs"]
mod tui_present_follow_tmux;
#[path = "../tui_present_tmux.rs"]
mod tui_present_tmux;
#[path = "../tui_rebind_tmux.rs"]
mod tui_rebind_tmux;
#[path = "../tui_search_tmux.rs"]
mod tui_search_tmux;
#[path = "../tui_stats_tmux.rs"]
mod tui_stats_tmux;
#[path = "../tui_tmux.rs"]
mod tui_tmux;
#[path = "../tui_training_tmux.rs"]
mod tui_training_tmux;
