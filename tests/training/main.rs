//! Training runs, reports, serving and deploying: step dumps and TRL logs, `sebx report`, `sebx serve`, the k8s files.
//!
//! One test binary for these files (issue 40: a binary per file linked the whole library
//! ~100 times). Every file stays at tests/NAME.rs as the module NAME, run one with
//! `cargo test --test training NAME::`; the shared helpers are compiled once here and used
//! through `crate::`. Tests share this process: none may change its environment or
//! current folder. Snapshots are named `training__NAME__SNAPSHOT.snap` in tests/snapshots.

#[path = "../common/demo.rs"]
mod demo_files;
#[path = "../common/isolated.rs"]
mod isolated;
#[path = "../common/live.rs"]
mod live;
#[path = "../common/serve.rs"]
mod serve;
#[path = "../common/shared_data.rs"]
mod shared_data;
#[path = "../tui_common/mod.rs"]
mod tui_common;

#[path = "../deploy_k8s.rs"]
mod deploy_k8s;
#[path = "../deploy_reward.rs"]
mod deploy_reward;
#[path = "../report_browser.rs"]
mod report_browser;
#[path = "../report_cli.rs"]
mod report_cli;
#[path = "../report_session.rs"]
mod report_session;
#[path = "../serve_api.rs"]
mod serve_api;
#[path = "../serve_haproxy.rs"]
mod serve_haproxy;
#[path = "../stats_training.rs"]
mod stats_training;
#[path = "../step_lengths.rs"]
mod step_lengths;
#[path = "../training_follow.rs"]
mod training_follow;
#[path = "../training_formats.rs"]
mod training_formats;
#[path = "../training_real_runs.rs"]
mod training_real_runs;
#[path = "../verl_versions.rs"]
mod verl_versions;
