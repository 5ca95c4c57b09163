//! sebx: a terminal explorer and embedded grader for SE-Bench rollouts.
//!
//! Data flows one way: files → [`model`] → [`analysis`] → [`grade`] → [`session`] → [`cli`],
//! [`tui`] or [`serve`]. Everything below the front ends never touches the terminal; the
//! session resolves inputs, caches, verdicts and figures once for every front end.

/// `eprintln!` that never panics: with stderr closed (a script that closed the pipe), the
/// message is lost, not the work (`eprintln!` panics there, exit 101).
#[macro_export]
macro_rules! warnln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod analysis;
pub mod cli;
pub mod grade;
pub mod model;
pub mod serve;
pub mod session;
pub mod tui;
