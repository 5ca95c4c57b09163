//! The terminal explorer: app state and update, actions and keymap, background jobs,
//! theme, highlighting, and one file per pane.

pub mod action;
pub mod app;
pub mod bookmarks;
pub mod editor;
pub mod effects;
pub mod entry;
pub mod explore;
pub mod export;
pub mod graph_view;
pub mod highlight;
pub mod inline;
pub mod jobs;
pub mod labelling;
pub mod layout;
pub mod load;
pub mod panes;
pub mod present;
pub mod rerun;
pub mod run;
pub mod state;
pub mod stats;
pub mod stats_screen;
pub mod theme;
pub mod ui;

pub use action::{Action, Keymap};
pub use app::{App, Context, Grading, Pane};
pub use theme::Theme;
