//! Grading: the engine's verdicts and rewards, the sandbox, the score cache, reruns, compare and judge.
//!
//! One test binary for these files (issue 40: a binary per file linked the whole library
//! ~100 times). Every file stays at tests/NAME.rs as the module NAME, run one with
//! `cargo test --test grade NAME::`; the shared helpers are compiled once here and used
//! through `crate::`. Tests share this process: none may change its environment or
//! current folder. Snapshots are named `grade__NAME__SNAPSHOT.snap` in tests/snapshots.

#[path = "../common/grading.rs"]
mod grading;
#[path = "../common/isolated.rs"]
mod isolated;
#[path = "../common/shared_data.rs"]
mod shared_data;
#[path = "../tui_common/mod.rs"]
mod tui_common;

#[path = "../cache_store.rs"]
mod cache_store;
#[path = "../cli_grade.rs"]
mod cli_grade;
#[path = "../compare_parity.rs"]
mod compare_parity;
#[path = "../grade_parity.rs"]
mod grade_parity;
#[path = "../grade_recursion.rs"]
mod grade_recursion;
#[path = "../grade_reward.rs"]
mod grade_reward;
#[path = "../grade_shards.rs"]
mod grade_shards;
#[path = "../grade_shared_runs.rs"]
mod grade_shared_runs;
#[path = "../grade_verdicts.rs"]
mod grade_verdicts;
#[path = "../judge_eval.rs"]
mod judge_eval;
#[path = "../rerun_runtime.rs"]
mod rerun_runtime;
#[path = "../sandbox.rs"]
mod sandbox;
#[path = "../score_cache_by_program.rs"]
mod score_cache_by_program;
#[path = "../score_cache_settings.rs"]
mod score_cache_settings;
