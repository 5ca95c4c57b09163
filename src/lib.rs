//! sebx: a terminal explorer and embedded grader for SE-Bench rollouts.
//!
//! Data flows one way: files → [`model`] → [`analysis`] → [`grade`] → [`session`] → [`cli`],
//! [`tui`] or [`serve`]. Everything below the front ends never touches the terminal; the
//! session resolves inputs, caches, verdicts and figures once for every front end.

pub mod analysis;
pub mod cli;
pub mod grade;
pub mod model;
pub mod serve;
pub mod session;
pub mod tui;
