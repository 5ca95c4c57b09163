//! Subcommand implementations; `main.rs` only dispatches. Each file owns one
//! subcommand's `clap::Args` struct and a `run` function.

pub mod analyze;
pub mod cache;
pub mod charts;
pub mod grade;
pub mod labels;
pub mod merge;
pub mod report;
pub mod rerun;
pub mod runtime;
pub mod stats;
