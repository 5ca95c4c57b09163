//! The terminal explorer. `state` holds the plain state (the corpus, the list and detail
//! views); the components that own theirs (`labelling`, `rerun`, `bookmarks`, `stats`,
//! `training`, `extras`) read it, answer an action through `effects` and draw their screens
//! and popups, all behind `component`'s one trait; `app` owns everything and applies what
//! they ask. Work goes through one queue to `jobs` (threads; `inline` runs it on the
//! caller's); `ui` draws the list, the panes (`panes`) and the status bar and hands the rest
//! to the components, `layout` is the shared geometry, `run` the loop.

pub mod action;
pub mod app;
pub mod bookmarks;
pub mod component;
pub mod editor;
pub mod effects;
pub mod entry;
pub mod explore;
pub mod export;
pub mod extras;
pub mod full_text;
pub mod graph_order;
pub mod graph_view;
pub mod held;
pub mod help_popup;
pub mod highlight;
pub mod inline;
pub mod jobs;
pub mod labelling;
pub mod layout;
pub mod load;
pub mod panes;
pub mod present;
pub mod report_examples;
pub mod rerun;
pub mod root;
pub mod run;
pub mod search;
pub mod state;
pub mod stats;
pub mod textbox;
pub mod theme;
pub mod training;
pub mod ui;

pub use action::{Action, Keymap};
pub use app::{App, Context, Grading, Pane};
pub use theme::Theme;
