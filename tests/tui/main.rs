//! The explorer in-process (a TestBackend, no terminal): screens, keys, labels, present mode, snapshots, following a live run.
//!
//! One test binary for these files (issue 40: a binary per file linked the whole library
//! ~100 times). Every file stays at tests/NAME.rs as the module NAME, run one with
//! `cargo test --test tui NAME::`; the shared helpers are compiled once here and used
//! through `crate::`. Tests share this process: none may change its environment or
//! current folder. Snapshots are named `tui__NAME__SNAPSHOT.snap` in tests/snapshots.

#[path = "../common/isolated.rs"]
mod isolated;
#[path = "../common/live.rs"]
mod live;
#[path = "../common/prop.rs"]
mod prop;
#[path = "../common/shared_data.rs"]
mod shared_data;
#[path = "../tui_common/mod.rs"]
mod tui_common;

#[path = "../analysis_oracle_tui.rs"]
mod analysis_oracle_tui;
#[path = "../extra_keys.rs"]
mod extra_keys;
#[path = "../follow_live.rs"]
mod follow_live;
#[path = "../learned_at.rs"]
mod learned_at;
#[path = "../prop_explorer.rs"]
mod prop_explorer;
#[path = "../tui_bookmarks.rs"]
mod tui_bookmarks;
#[path = "../tui_components.rs"]
mod tui_components;
#[path = "../tui_event_loop.rs"]
mod tui_event_loop;
#[path = "../tui_explore.rs"]
mod tui_explore;
#[path = "../tui_export.rs"]
mod tui_export;
#[path = "../tui_export_paper.rs"]
mod tui_export_paper;
#[path = "../tui_full_text.rs"]
mod tui_full_text;
#[path = "../tui_graded_rows.rs"]
mod tui_graded_rows;
#[path = "../tui_graph.rs"]
mod tui_graph;
#[path = "../tui_key_strings.rs"]
mod tui_key_strings;
#[path = "../tui_label_footer.rs"]
mod tui_label_footer;
#[path = "../tui_label_progress.rs"]
mod tui_label_progress;
#[path = "../tui_labels.rs"]
mod tui_labels;
#[path = "../tui_labels_speed.rs"]
mod tui_labels_speed;
#[path = "../tui_loophole_snapshots.rs"]
mod tui_loophole_snapshots;
#[path = "../tui_present.rs"]
mod tui_present;
#[path = "../tui_present_notes.rs"]
mod tui_present_notes;
#[path = "../tui_present_verdicts.rs"]
mod tui_present_verdicts;
#[path = "../tui_rebind_all.rs"]
mod tui_rebind_all;
#[path = "../tui_run_names.rs"]
mod tui_run_names;
#[path = "../tui_screen_keys.rs"]
mod tui_screen_keys;
#[path = "../tui_screen_sizes.rs"]
mod tui_screen_sizes;
#[path = "../tui_search.rs"]
mod tui_search;
#[path = "../tui_smaller.rs"]
mod tui_smaller;
#[path = "../tui_snapshots.rs"]
mod tui_snapshots;
#[path = "../tui_state.rs"]
mod tui_state;
#[path = "../tui_stats.rs"]
mod tui_stats;
#[path = "../tui_stats_keys.rs"]
mod tui_stats_keys;
#[path = "../tui_stats_parity.rs"]
mod tui_stats_parity;
#[path = "../tui_training.rs"]
mod tui_training;
#[path = "../tui_verdict_source.rs"]
mod tui_verdict_source;
#[path = "../tui_what_if_cases.rs"]
mod tui_what_if_cases;
