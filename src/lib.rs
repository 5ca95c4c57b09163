//! sebx: a terminal explorer and embedded grader for SE-Bench rollouts.
//!
//! Data flows one way: files → [`model`] → [`analysis`] / [`grade`] → [`tui`] or CLI output.
//! `model`, `analysis` and `grade` never touch the terminal.

pub mod analysis;
pub mod cli;
pub mod grade;
pub mod model;
pub mod serve;
pub mod tui;
