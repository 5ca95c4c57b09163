//! How the explorer's parts (labelling, reruns, bookmarks, stats) answer an action or an
//! event without reaching into `App`: each owns its state, reads the corpus and the list,
//! and hands back what it did ([`Handled`]) and what it asks of the rest ([`Effects`]),
//! which `App` applies.

use crate::model::LoadIssue;

use super::action::Action;
use super::jobs::JobRequest;
use super::state::{Popup, RowFilter};

/// What a part did with an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// Taken, and the screen changed.
    Redraw,
    /// Taken; nothing to redraw.
    Unchanged,
    /// Not this part's: the next one gets it.
    Passed,
}

impl Handled {
    /// Taken, redrawn or not.
    pub fn taken(redraw: bool) -> Handled {
        if redraw {
            Handled::Redraw
        } else {
            Handled::Unchanged
        }
    }
}

/// What a part asks of the rest of the explorer.
#[derive(Debug, Default)]
pub struct Effects {
    /// A note for the status bar (the last one said wins).
    pub message: Option<String>,
    /// A note naming a key: `{key}` in the text stands for the key of the action (Main
    /// scope), filled in from the keymap in force when applied (a part need not hold it).
    pub keyed: Option<(String, Action)>,
    /// Open a popup (`Some(Some(p))`, scrolled to its top) or close it (`Some(None)`).
    pub popup: Option<Option<Popup>>,
    /// Rebuild the list (a filter it reads changed).
    pub refresh_view: bool,
    /// Clear every list filter and the search first (to show a row they hide).
    pub clear_filters: bool,
    /// Show only these rows (the stats screen's "this function's failures").
    pub filter_rows: Option<RowFilter>,
    /// Select this row and scroll the list to it (after any refresh).
    pub jump_to: Option<usize>,
    /// Work for the workers.
    pub requests: Vec<JobRequest>,
    /// Damaged lines found (sidecars), for the issues popup.
    pub issues: Vec<LoadIssue>,
    /// Lines for the help screen's notes.
    pub notes: Vec<String>,
    /// Export the selected rollout's current view (the event loop hands a copy of it to the
    /// export job: `export::request_view`).
    pub export_view: bool,
}

impl Effects {
    /// Says `text` in the status bar.
    pub fn say(&mut self, text: impl Into<String>) {
        self.keyed = None;
        self.message = Some(text.into());
    }

    /// Says `template` in the status bar, its `{key}` the key bound to `action` (said when
    /// the message is applied, from the keymap in force; the action's name when unbound).
    pub fn say_keyed(&mut self, template: impl Into<String>, action: Action) {
        self.message = None;
        self.keyed = Some((template.into(), action));
    }

    /// Opens `popup`.
    pub fn open(&mut self, popup: Popup) {
        self.popup = Some(Some(popup));
    }

    /// Closes the popup.
    pub fn close(&mut self) {
        self.popup = Some(None);
    }
}
