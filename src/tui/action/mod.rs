//! Everything the explorer can do, as one [`Action`] enum: the keymap's vocabulary
//! (snake_case in TOML), the help screen's source, and the only input of `App::update`.
//! The keys that run them are in `chord.rs` (a key as the config writes it) and
//! `keymap.rs` (the bindings per screen, defaults and the user's).

use serde::{Deserialize, Serialize};

mod chord;
mod keymap;

pub use chord::{ChordKey, KeyChord};
pub use keymap::{DEFAULT_KEYS, KeyEntry, Keymap, SCREEN_KEYS, Scope};

/// Something the user (or the terminal) asks the explorer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    NextPane,
    PrevPane,
    PaneResponse,
    PaneCode,
    PaneCases,
    PaneOutput,
    PaneGraph,
    PaneTask,
    ScrollDown,
    ScrollUp,
    Search,
    /// Scrolls the pane to the search's next match (past the last: the next matching rollout).
    NextMatch,
    /// Scrolls the pane to the search's previous match.
    PrevMatch,
    /// Goes to a line of the selected rollout's file (`:` then the number, as in less).
    GotoLine,
    CycleVerdictFilter,
    CycleRunFilter,
    CycleFunctionFilter,
    CycleFindingFilter,
    ClearFilters,
    CycleGrouping,
    SameTask,
    NextSameTask,
    FirstFailedCase,
    Regrade,
    RegradeAll,
    Help,
    Issues,
    /// Closes a popup, leaves search, or clears the search.
    Cancel,
    // Issue 5: labelling and reruns (handled by `Labelling::update` and `Reruns::update`).
    /// Label mode: category keys (`1`–`9`) toggle categories instead of switching panes.
    LabelMode,
    /// Every category, with counts; pick with ↑↓ and enter.
    CategoryPicker,
    /// Adds the suggested category to the selected rollout's label.
    AcceptSuggestion,
    /// Writes a free-text note on the selected rollout.
    EditNote,
    /// Selects the next failure this annotator has not labelled.
    NextUnlabelledFailure,
    /// Filter: unlabelled, labelled, by category (cycle).
    CycleLabelFilter,
    /// Two annotators' agreement (Cohen's kappa) and their disagreements.
    Agreement,
    /// Regrades the selected rollout into the rerun sidecar, beside its stored verdict.
    Rerun,
    /// Opens the extracted code in `$EDITOR` and grades the edit as a what-if.
    EditWhatIf,
    /// The Cases pane shows the latest what-if's cases instead of the stored run's, or back.
    WhatIfCases,
    /// Installs the Python runtime (from the offer shown when it is missing).
    InstallRuntime,
    /// Runs the selected rollout once under the tracer: each `possible` finding becomes
    /// confirmed, refuted or not reached (the Code pane shows which).
    ConfirmFindings,
    // Issue 11: run-level stats and comparison (handled by `StatsView::update`).
    /// The stats screen: run summaries and the internalization map.
    StatsScreen,
    /// The compare screen: flip matrix of two runs (again: the next pair of runs).
    CompareScreen,
    // Issue 19: training runs (handled by `training::TrainingView`).
    /// The Training screen: reward and accuracy per step, the function × step heat map.
    TrainingScreen,
    /// Show only the samples of a step range (typed: `10-20`, `7`; empty clears).
    StepRange,
    /// Show the selected sample's GRPO group: the samples of its prompt at its step.
    GroupView,
    /// `N` follows file order or a seeded random order (a random sample of failures).
    ToggleLabelOrder,
    // Issue 12: bookmarks, presenter, export (handled by `Bookmarks::update`).
    /// Bookmarks the selected rollout for the playlist, or removes its bookmark.
    ToggleBookmark,
    /// Writes the one-line caption of the selected rollout's bookmark.
    BookmarkCaption,
    /// Moves the selected rollout's bookmark one place earlier in the playlist.
    BookmarkEarlier,
    /// Moves the selected rollout's bookmark one place later in the playlist.
    BookmarkLater,
    /// Presents the bookmarks (or the selected rollout) stage by stage.
    Present,
    /// Exports the current view to an HTML file and says where.
    ExportView,
    /// Scrolls the pane left (wide graphs and code).
    ScrollLeft,
    /// Scrolls the pane right.
    ScrollRight,
    // Issue 31: the screens' own actions (Stats, Compare, Training, the presenter): each
    // belongs to the scopes of `Action::scopes`, and a screen's keys are its scope's.
    /// Closes the screen (one level back on the Compare screen's drill-down).
    CloseScreen,
    /// Opens what the cursor is on: a map row's failures, a matrix cell's pairs, a pair, a
    /// heat-map cell's rollouts.
    Choose,
    /// The previous run (the Stats screen's map).
    PrevRun,
    /// The next run (the Stats screen's map, the Training screen).
    NextRun,
    /// The next pair of runs (the Compare screen).
    NextRuns,
    /// The next order of the map rows (the Stats screen).
    SortRows,
    /// The zero-advantage groups of the Training heat map's highlighted steps.
    ZeroGroups,
    /// The cell to the left (the Compare matrix, the Training heat map).
    CellLeft,
    /// The cell to the right.
    CellRight,
    /// The presenter: reveals the next stage (past the last: the next rollout).
    NextStage,
    /// The presenter: back a stage.
    PrevStage,
    /// The presenter: the next rollout.
    NextSlide,
    /// The presenter: the previous rollout.
    PrevSlide,
    /// The presenter: the first rollout.
    FirstSlide,
    /// The presenter: the last rollout.
    LastSlide,
    /// The presenter: shows or hides the speaker notes.
    ToggleNotes,
    /// The Response pane shows the selected rollout's line as stored (every key, the
    /// whole prompt), read again from its file; again: the response.
    RawLine,
    /// The dump's extra keys (`acc`, `pred`, …): show one as a list column, filter by a value.
    ExtraKeys,
    /// Toggles the category with this key on the selected rollout (not bindable: the
    /// taxonomy names the keys).
    ToggleCategory(char),
    /// Chooses the highlighted item of a popup: toggles a category, opens a disagreement (not bindable).
    PopupChoose,
    /// An edit of the open text box (not bindable: a box's keys are its own, `textbox`).
    Edit(Edit),
    /// The terminal was resized to `width`×`height` (not bindable).
    Resize {
        width: u16,
        height: u16,
    },
    /// Left click at a screen cell (not bindable).
    Click {
        column: u16,
        row: u16,
    },
    /// Mouse wheel at a screen cell (not bindable).
    Wheel {
        column: u16,
        row: u16,
        down: bool,
    },
}

/// One edit of an open text box (the action `Action::Edit` carries; `textbox` applies it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Edit {
    /// Types a character at the cursor (replacing the text while it is selected).
    Insert(char),
    /// Deletes the character before the cursor.
    Backspace,
    /// Deletes the character under the cursor.
    Delete,
    /// Cursor one character left.
    Left,
    /// Cursor one character right.
    Right,
    /// Cursor to the start (Home, Ctrl-A).
    Home,
    /// Cursor to the end (End, Ctrl-E).
    End,
    /// Deletes the word before the cursor (Ctrl-W).
    DeleteWord,
    /// Deletes everything before the cursor (Ctrl-U).
    DeleteToStart,
    /// Deletes everything from the cursor on (Ctrl-K).
    DeleteToEnd,
    /// The previous entry of this box's history (↑).
    HistoryPrev,
    /// The next entry of this box's history, then the text being typed (↓).
    HistoryNext,
    /// Accepts the text and closes the box (Enter).
    Submit,
}

impl Action {
    /// What a newcomer needs first: the help screen opens on these, and the footer shows
    /// the first four.
    pub const ESSENTIAL: [Action; 10] = [
        Action::Quit,
        Action::Help,
        Action::Search,
        Action::LabelMode,
        Action::Down,
        Action::NextPane,
        Action::CycleVerdictFilter,
        Action::Rerun,
        Action::NextUnlabelledFailure,
        Action::StatsScreen,
    ];

    /// Actions a key can be bound to, in help-screen order.
    pub const BINDABLE: [Action; 79] = [
        Action::Up,
        Action::Down,
        Action::PageUp,
        Action::PageDown,
        Action::Top,
        Action::Bottom,
        Action::NextPane,
        Action::PrevPane,
        Action::PaneResponse,
        Action::PaneCode,
        Action::PaneCases,
        Action::PaneOutput,
        Action::PaneGraph,
        Action::PaneTask,
        Action::ScrollDown,
        Action::ScrollUp,
        Action::FirstFailedCase,
        Action::Search,
        Action::NextMatch,
        Action::PrevMatch,
        Action::GotoLine,
        Action::CycleVerdictFilter,
        Action::CycleRunFilter,
        Action::CycleFunctionFilter,
        Action::CycleFindingFilter,
        Action::ClearFilters,
        Action::CycleGrouping,
        Action::SameTask,
        Action::NextSameTask,
        Action::Regrade,
        Action::RegradeAll,
        Action::Rerun,
        Action::EditWhatIf,
        Action::WhatIfCases,
        Action::RawLine,
        Action::ExtraKeys,
        Action::InstallRuntime,
        Action::ConfirmFindings,
        Action::ScrollLeft,
        Action::ScrollRight,
        Action::ToggleBookmark,
        Action::BookmarkCaption,
        Action::BookmarkEarlier,
        Action::BookmarkLater,
        Action::Present,
        Action::ExportView,
        Action::LabelMode,
        Action::CategoryPicker,
        Action::AcceptSuggestion,
        Action::EditNote,
        Action::NextUnlabelledFailure,
        Action::CycleLabelFilter,
        Action::Agreement,
        Action::ToggleLabelOrder,
        Action::StatsScreen,
        Action::CompareScreen,
        Action::TrainingScreen,
        Action::StepRange,
        Action::GroupView,
        Action::Issues,
        Action::Help,
        Action::Cancel,
        Action::Quit,
        Action::CloseScreen,
        Action::Choose,
        Action::PrevRun,
        Action::NextRun,
        Action::NextRuns,
        Action::SortRows,
        Action::ZeroGroups,
        Action::CellLeft,
        Action::CellRight,
        Action::NextStage,
        Action::PrevStage,
        Action::NextSlide,
        Action::PrevSlide,
        Action::FirstSlide,
        Action::LastSlide,
        Action::ToggleNotes,
    ];

    /// Where a key bound to this action works: a `[keys]` entry binds it in each of these
    /// (a `[keys.SCOPE]` table in that one only).
    pub fn scopes(self) -> &'static [Scope] {
        use Scope::*;
        match self {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::Quit => &[Main, Stats, Compare, Training],
            Action::ScrollDown | Action::ScrollUp => &[Main, Compare, Present],
            Action::Search | Action::NextMatch => &[Main, Stats, Training],
            // From one report screen to the other (on the map, S asks for fresh figures).
            Action::StatsScreen => &[Main, Stats, Compare],
            Action::CompareScreen => &[Main, Stats],
            Action::CloseScreen => &[Stats, Compare, Training, Present],
            Action::Choose => &[Stats, Compare, Training],
            Action::PrevRun => &[Stats],
            Action::SortRows => &[Stats, Training],
            Action::ZeroGroups => &[Training],
            Action::NextRun => &[Stats, Training],
            Action::NextRuns => &[Compare],
            Action::CellLeft | Action::CellRight => &[Compare, Training],
            Action::NextStage
            | Action::PrevStage
            | Action::NextSlide
            | Action::PrevSlide
            | Action::FirstSlide
            | Action::LastSlide
            | Action::ToggleNotes => &[Present],
            _ => &[Main],
        }
    }

    /// The name used in the config's `[keys]` table (`cycle_verdict_filter`).
    pub fn config_name(self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(s)) => s,
            _ => format!("{self:?}"),
        }
    }

    /// One line for the help screen.
    pub fn description(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Up => "previous rollout",
            Action::Down => "next rollout",
            Action::PageUp => "page up in the list",
            Action::PageDown => "page down in the list",
            Action::Top => "first rollout",
            Action::Bottom => "last rollout",
            Action::NextPane => "next pane",
            Action::PrevPane => "previous pane",
            Action::PaneResponse => "Response pane",
            Action::PaneCode => "Code pane",
            Action::PaneCases => "Cases pane",
            Action::PaneOutput => "Output pane",
            Action::PaneGraph => "Graph pane",
            Action::PaneTask => "Task pane",
            Action::ScrollDown => "scroll the pane down (next case in Cases)",
            Action::ScrollUp => "scroll the pane up (previous case in Cases)",
            Action::Search => "search query, response and names (~ for fuzzy)",
            Action::NextMatch => "next match in the pane, then in the next rollout",
            Action::PrevMatch => "previous match of the search",
            Action::GotoLine => "go to a line of the file (: then the number)",
            Action::CycleVerdictFilter => "filter by verdict, ≈ or reward ≠ verdict (cycle)",
            Action::CycleRunFilter => "filter by run (cycle)",
            Action::CycleFunctionFilter => "filter by function of the selected rollout (cycle)",
            Action::CycleFindingFilter => "filter by finding kind (cycle)",
            Action::ClearFilters => "clear all filters and the search",
            Action::CycleGrouping => "group by: file order, task, verdict, run, function",
            Action::SameTask => "show this task across all runs (toggle)",
            Action::NextSameTask => "jump to this task in the next run",
            Action::FirstFailedCase => "Cases pane at the first failed case",
            Action::Regrade => "regrade the selected rollout in place",
            Action::RegradeAll => "regrade every rollout shown",
            Action::Rerun => "rerun: new verdict beside the stored one (sidecar)",
            Action::EditWhatIf => "edit the code in $EDITOR and grade it as a what-if",
            Action::WhatIfCases => "Cases pane: the what-if's cases / the stored run's",
            Action::RawLine => "Response pane: the line as stored (every key)",
            Action::ExtraKeys => "extra keys of the samples: columns, filters",
            Action::InstallRuntime => "install the Python runtime the grader needs",
            Action::ConfirmFindings => "settle possible and loophole findings by a run",
            Action::LabelMode => "label mode (L again: label and advance; 3rd: off)",
            Action::CategoryPicker => "all categories (pick with ↑↓ enter)",
            Action::AcceptSuggestion => "accept the suggested category",
            Action::EditNote => "write a note on the rollout's label",
            Action::NextUnlabelledFailure => "next unlabelled failure, from this row on",
            Action::CycleLabelFilter => "filter by label: none, any, one category (cycle)",
            Action::Agreement => "agreement between two annotators (Cohen's kappa)",
            Action::StatsScreen => "stats: accuracy, pass@k, the internalization map",
            Action::CompareScreen => "compare two runs: flip matrix, McNemar, drill-down",
            Action::TrainingScreen => "training: reward and accuracy per step, heat map",
            Action::StepRange => "only the samples of some steps (10-20; empty: all)",
            Action::GroupView => "the sample's GRPO group (its uid, else its prompt)",
            Action::ToggleLabelOrder => "N in file order / in seeded random order",
            Action::ToggleBookmark => "bookmark the rollout for the playlist (toggle)",
            Action::BookmarkCaption => "caption of the rollout's bookmark",
            Action::BookmarkEarlier => "move the bookmark earlier in the playlist",
            Action::BookmarkLater => "move the bookmark later in the playlist",
            Action::Present => "present the bookmarks, stage by stage",
            Action::ExportView => "export this view to an HTML file",
            Action::ScrollLeft => "scroll the pane left",
            Action::ScrollRight => "scroll the pane right",
            Action::CloseScreen => "screens, presenter: close (one level back)",
            Action::Choose => "screens: open what the cursor is on",
            Action::PrevRun => "Stats: previous run",
            Action::NextRun => "Stats, Training: next run",
            Action::NextRuns => "Compare: next pair of runs",
            Action::SortRows => "Stats, Training: sort the map (cycle)",
            Action::ZeroGroups => "Training: the column's zero-advantage groups",
            Action::CellLeft => "Compare, Training: cell to the left",
            Action::CellRight => "Compare, Training: cell to the right",
            Action::NextStage => "presenter: reveal the next stage",
            Action::PrevStage => "presenter: back a stage",
            Action::NextSlide => "presenter: next rollout",
            Action::PrevSlide => "presenter: previous rollout",
            Action::FirstSlide => "presenter: first rollout",
            Action::LastSlide => "presenter: last rollout",
            Action::ToggleNotes => "presenter: speaker notes (toggle)",
            Action::ToggleCategory(_) => "toggle a category",
            Action::PopupChoose => "choose the highlighted item of a popup",
            Action::Edit(_) => "edit the text box",
            Action::Help => "this help",
            Action::Issues => "lines that could not be loaded, with reasons",
            Action::Cancel => "close popup / leave or clear search",
            Action::Resize { .. } => "terminal resized",
            Action::Click { .. } => "mouse click",
            Action::Wheel { .. } => "mouse wheel",
        }
    }
}
