//! The one interface of the explorer's components, modelled on gitui's `Component` and
//! ratatui's component template: each maps keys to actions from its state
//! ([`Component::key`]), answers an action (or one in a popup) with [`Handled`] and
//! [`Effects`] ([`Component::update`], [`Component::update_popup`]), draws itself
//! ([`Component::draw`]) and the popups it owns ([`Component::draw_popup`]), says its keys
//! for the status bar from the keymap while it holds the screen ([`Component::hints`]), and
//! does its I/O in the event loop's I/O step ([`Component::service`]).
//!
//! Why one trait: a screen's keys, state and drawing sit together, `ui` only dispatches
//! (`component.draw`, the open popup through its owner), and `App` offers each action to
//! the components in turn (the first to take it has it). The components: labelling,
//! reruns, bookmarks, the stats and Training screens, the extra keys, the help, issues and
//! whole-text popups, the list, the detail pane (`panes::detail`), the Labels and Rerun panels
//! (`panes::labels::Panel`), the status bar (`ui::StatusBar`), the presenter, and every
//! text box (its key table, with the keymap in `action`). A component reads the rest
//! through [`Cx`] (to act) and [`DrawCx`] (to draw), never `App` or another one.
//!
//! Whatever holds the whole screen (the explorer, the presenter of `sebx present`, the
//! follower of `--follow`) is a `run::Root` of the one event loop, `run::event_loop`.

use std::path::Path;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;

use crate::grade::reruns::RerunRecord;
use crate::grade::trace::Confirmation;
use crate::model::RolloutId;
use crate::session::label_progress::LabelTally;

use super::action::{Action, Keymap};
use super::effects::{Effects, Handled};
use super::entry::Entry;
use super::state::{CaseText, Corpus, ListView, Popup};
use super::textbox::TextBox;
use super::theme::Theme;

/// What a component reads to act, besides its own state.
pub struct Cx<'a> {
    pub corpus: &'a Corpus,
    pub list: &'a ListView,
    /// Labelling's answers, for the other parts ([`NoLabels`] for labelling itself).
    pub labels: &'a dyn Labels,
    /// The reruns' answers, for the other parts ([`NoReruns`] for the reruns themselves).
    pub reruns: &'a dyn RerunsRead,
    /// The keys in force, for the hints a part says (`b bookmarks it`).
    pub keys: &'a Keymap,
    /// How many rows the list shows on the screen now (what a page key moves by, less one).
    pub list_rows: usize,
}

impl<'a> Cx<'a> {
    /// What the detail view reads of the rest.
    pub fn reads(&self) -> Reads<'a> {
        Reads {
            corpus: self.corpus,
            list: self.list,
            labels: self.labels,
            reruns: self.reruns,
        }
    }
}

/// What the detail view reads of the rest, to act and to draw: the selected row, its
/// report, its reruns and what-ifs (this session's and the stored ones).
#[derive(Clone, Copy)]
pub struct Reads<'a> {
    pub corpus: &'a Corpus,
    pub list: &'a ListView,
    pub labels: &'a dyn Labels,
    pub reruns: &'a dyn RerunsRead,
}

/// What a component reads to draw itself, besides its own state: read only.
pub struct DrawCx<'a> {
    pub theme: &'a Theme,
    pub corpus: &'a Corpus,
    pub list: &'a ListView,
    /// The keys in force, for the keys a screen or popup names.
    pub keys: &'a Keymap,
    /// How far the open popup is scrolled.
    pub popup_scroll: u16,
    /// Labelling's answers (progress, a row's label).
    pub labels: &'a dyn Labels,
    /// The reruns' answers (what-ifs, traced runs).
    pub reruns: &'a dyn RerunsRead,
    /// Which rows are bookmarked.
    pub marks: &'a dyn Marks,
    /// The dump's extra keys shown as list columns, with their widths.
    pub extra_columns: &'a [(Arc<str>, usize)],
    /// The Cases pane's case under the cursor, whole, while the whole-text popup is open
    /// over that pane.
    pub case: Option<CaseText>,
}

impl<'a> DrawCx<'a> {
    /// What the detail view reads of the rest.
    pub fn reads(&self) -> Reads<'a> {
        Reads {
            corpus: self.corpus,
            list: self.list,
            labels: self.labels,
            reruns: self.reruns,
        }
    }
}

/// What the other parts read of reruns and traced runs.
pub trait RerunsRead {
    /// `row`'s latest what-if of this session.
    fn session_what_if(&self, row: usize) -> Option<&RerunRecord>;
    /// Whether a traced run of `id` is in flight.
    fn confirming(&self, id: &RolloutId) -> bool;
    /// How a traced run settled `id`'s findings, if one ran; `Err` says why it could not.
    fn confirmation(&self, id: &RolloutId) -> Option<&Result<Confirmation, String>>;
}

/// No reruns: what the reruns themselves are handed as [`Cx::reruns`].
pub struct NoReruns;

impl RerunsRead for NoReruns {
    fn session_what_if(&self, _row: usize) -> Option<&RerunRecord> {
        None
    }

    fn confirming(&self, _id: &RolloutId) -> bool {
        false
    }

    fn confirmation(&self, _id: &RolloutId) -> Option<&Result<Confirmation, String>> {
        None
    }
}

/// What the list reads of bookmarks.
pub trait Marks {
    /// Whether `entry` is bookmarked for the playlist.
    fn is_bookmarked(&self, entry: &Entry) -> bool;
}

/// What the other parts read of labelling.
pub trait Labels {
    /// The category ids of a rollout's saved label by this annotator.
    fn categories(&self, run: usize, id: &RolloutId) -> Option<Vec<String>>;
    /// Every category id of the taxonomy, in its order.
    fn category_ids(&self) -> Vec<String>;
    /// The seed of the random labelling order.
    fn order_seed(&self) -> u64;
    /// Each run's bookmark sidecar, in run order (as far as opened), placed as its labels.
    fn bookmark_sidecars(&self) -> Vec<&Path>;
    /// Whether this annotator labelled `entry`.
    fn is_labelled(&self, _entry: &Entry) -> bool {
        false
    }
    /// This annotator's label of `entry` in words: its categories and its note.
    fn label_text(&self, _entry: &Entry) -> Option<(String, String)> {
        None
    }
    /// The latest what-if of a rollout in its run's rerun sidecar.
    fn stored_what_if(&self, _run: usize, _id: &RolloutId) -> Option<&RerunRecord> {
        None
    }
    /// The labelling progress in words, over every run (`runs` of them), for the list's title.
    fn progress_text(&self, _runs: usize) -> String {
        String::new()
    }
    /// The labelling progress run by run and over every run (what `progress_text` says).
    fn label_tally(&self) -> Option<&LabelTally> {
        None
    }
    /// Each category labelled, by the taxonomy's name, with how many labels have it: the
    /// most used first (then by id).
    fn category_counts(&self) -> Vec<(String, usize)> {
        Vec::new()
    }
}

/// No labels: what labelling itself is handed as [`Cx::labels`].
pub struct NoLabels;

impl Labels for NoLabels {
    fn categories(&self, _run: usize, _id: &RolloutId) -> Option<Vec<String>> {
        None
    }

    fn category_ids(&self) -> Vec<String> {
        Vec::new()
    }

    fn order_seed(&self) -> u64 {
        0
    }

    fn bookmark_sidecars(&self) -> Vec<&Path> {
        Vec::new()
    }
}

/// A component of the explorer: keys, actions, drawing, popups and its I/O step.
pub trait Component {
    /// A key this component takes before the keymap, given its state and the open popup.
    fn key(&self, _key: &KeyEvent, _popup: Option<Popup>) -> Option<Action> {
        None
    }

    /// Answers an action on the main screen (`Handled::Passed`: not this component's).
    fn update(&mut self, _action: &Action, _cx: &Cx<'_>, _fx: &mut Effects) -> Handled {
        Handled::Passed
    }

    /// Answers an action while `popup` is open.
    fn update_popup(
        &mut self,
        _popup: Popup,
        _action: &Action,
        _cx: &Cx<'_>,
        _fx: &mut Effects,
    ) -> Handled {
        Handled::Passed
    }

    /// The keys this component offers while it holds the screen (a screen of its own), for the
    /// status bar, from the keymap in force; `None`: it does not hold the screen, the
    /// list's keys are shown.
    fn hints(&self, _keys: &Keymap) -> Option<String> {
        None
    }

    /// Keys it offers besides [`Component::hints`] that give way first when the status bar
    /// is narrow (they follow the others; the help and the README list them too).
    fn extra_hints(&self, _keys: &Keymap) -> Option<String> {
        None
    }

    /// The event loop's I/O step (after each action, before the next draw); returns
    /// whether to redraw.
    fn service(&mut self, _cx: &Cx<'_>, _fx: &mut Effects) -> bool {
        false
    }

    /// Draws what this component shows on the screen `area` (nothing when it is not open).
    fn draw(&self, _frame: &mut Frame, _area: Rect, _cx: &DrawCx<'_>) {}

    /// Draws `popup`, one of the popups this component owns, over the screen `area`.
    fn draw_popup(&self, _popup: Popup, _frame: &mut Frame, _area: Rect, _cx: &DrawCx<'_>) {}
}

/// A text box: while it is open every key is its own, the same in every box (an edit,
/// Enter, Esc, Ctrl-C: [`super::textbox::action_for_key`]); `None` is a key it ignores. What
/// a box's edits mean is its owner's (`TextBox::update` says what was typed).
impl Component for TextBox {
    fn key(&self, key: &KeyEvent, _popup: Option<Popup>) -> Option<Action> {
        if self.is_open() {
            super::textbox::action_for_key(key)
        } else {
            None
        }
    }
}
