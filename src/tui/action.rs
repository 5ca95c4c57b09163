//! Everything the explorer can do, as one [`Action`] enum: the keymap's vocabulary
//! (snake_case in TOML), the help screen's source, and the only input of `App::update`.

use std::collections::BTreeMap;
use std::fmt;

use anyhow::{Result, bail};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::{Deserialize, Serialize};

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

/// An action name of the config (`none`: unbind), checked to be bindable.
fn parse_action(key: &str, action: &str) -> Result<Option<Action>> {
    if action == "none" {
        return Ok(None);
    }
    let parsed: Action = serde_json::from_value(serde_json::Value::String(action.to_string()))
        .map_err(|_| anyhow::anyhow!("key `{key}`: unknown action `{action}`"))?;
    if !Action::BINDABLE.contains(&parsed) {
        bail!("key `{key}`: action `{action}` cannot be bound to a key");
    }
    Ok(Some(parsed))
}

/// A key with modifiers, as written in keymaps: `q`, `ctrl-d`, `shift-tab`, `pagedown`, `?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyChord {
    pub code: ChordKey,
    pub ctrl: bool,
    pub alt: bool,
}

/// The key part of a [`KeyChord`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChordKey {
    Char(char),
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Tab,
    BackTab,
    Enter,
    Esc,
    Backspace,
    F(u8),
}

impl KeyChord {
    /// Parses `ctrl-d`, `alt-x`, `shift-tab`, `G`, `?`, `space`, `f1`, `pagedown`...
    pub fn parse(text: &str) -> Result<KeyChord> {
        let mut ctrl = false;
        let mut alt = false;
        let mut shift = false;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.chars().count() > 1 && lower.starts_with("ctrl-") {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.chars().count() > 1 && lower.starts_with("alt-") {
                alt = true;
                rest = &rest[4..];
            } else if rest.chars().count() > 1 && lower.starts_with("shift-") {
                shift = true;
                rest = &rest[6..];
            } else {
                break;
            }
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "up" => ChordKey::Up,
            "down" => ChordKey::Down,
            "left" => ChordKey::Left,
            "right" => ChordKey::Right,
            "pageup" | "pgup" => ChordKey::PageUp,
            "pagedown" | "pgdn" => ChordKey::PageDown,
            "home" => ChordKey::Home,
            "end" => ChordKey::End,
            "tab" if shift => ChordKey::BackTab,
            "tab" => ChordKey::Tab,
            "backtab" => ChordKey::BackTab,
            "enter" | "return" => ChordKey::Enter,
            "esc" | "escape" => ChordKey::Esc,
            "backspace" => ChordKey::Backspace,
            "space" => ChordKey::Char(' '),
            f if f.len() > 1
                && f.starts_with('f')
                && f[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                ChordKey::F(f[1..].parse().unwrap_or(0))
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if shift => ChordKey::Char(c.to_ascii_uppercase()),
                    (Some(c), None) => ChordKey::Char(c),
                    _ => bail!("unknown key `{text}`"),
                }
            }
        };
        Ok(KeyChord { code, ctrl, alt })
    }

    /// The chord of a terminal key event (`None` for keys keymaps cannot name).
    pub fn from_event(event: &KeyEvent) -> Option<KeyChord> {
        let code = match event.code {
            KeyCode::Char(c) => ChordKey::Char(c),
            KeyCode::Up => ChordKey::Up,
            KeyCode::Down => ChordKey::Down,
            KeyCode::Left => ChordKey::Left,
            KeyCode::Right => ChordKey::Right,
            KeyCode::PageUp => ChordKey::PageUp,
            KeyCode::PageDown => ChordKey::PageDown,
            KeyCode::Home => ChordKey::Home,
            KeyCode::End => ChordKey::End,
            KeyCode::Tab => ChordKey::Tab,
            KeyCode::BackTab => ChordKey::BackTab,
            KeyCode::Enter => ChordKey::Enter,
            KeyCode::Esc => ChordKey::Esc,
            KeyCode::Backspace => ChordKey::Backspace,
            KeyCode::F(n) => ChordKey::F(n),
            _ => return None,
        };
        Some(KeyChord {
            code,
            ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
            alt: event.modifiers.contains(KeyModifiers::ALT),
        })
    }
}

impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        match self.code {
            ChordKey::Char(' ') => f.write_str("space"),
            ChordKey::Char(c) => write!(f, "{c}"),
            ChordKey::Up => f.write_str("↑"),
            ChordKey::Down => f.write_str("↓"),
            ChordKey::Left => f.write_str("←"),
            ChordKey::Right => f.write_str("→"),
            ChordKey::PageUp => f.write_str("pgup"),
            ChordKey::PageDown => f.write_str("pgdn"),
            ChordKey::Home => f.write_str("home"),
            ChordKey::End => f.write_str("end"),
            ChordKey::Tab => f.write_str("tab"),
            ChordKey::BackTab => f.write_str("shift-tab"),
            ChordKey::Enter => f.write_str("enter"),
            ChordKey::Esc => f.write_str("esc"),
            ChordKey::Backspace => f.write_str("backspace"),
            ChordKey::F(n) => write!(f, "f{n}"),
        }
    }
}

/// The default bindings, in the order the help shows keys.
pub const DEFAULT_KEYS: &[(&str, Action)] = &[
    ("up", Action::Up),
    ("k", Action::Up),
    ("down", Action::Down),
    ("j", Action::Down),
    ("pageup", Action::PageUp),
    ("ctrl-b", Action::PageUp),
    ("pagedown", Action::PageDown),
    ("ctrl-f", Action::PageDown),
    ("home", Action::Top),
    ("g", Action::Top),
    ("end", Action::Bottom),
    ("G", Action::Bottom),
    ("tab", Action::NextPane),
    ("right", Action::NextPane),
    ("l", Action::NextPane),
    ("shift-tab", Action::PrevPane),
    ("left", Action::PrevPane),
    ("h", Action::PrevPane),
    ("1", Action::PaneResponse),
    ("2", Action::PaneCode),
    ("3", Action::PaneCases),
    ("4", Action::PaneOutput),
    ("5", Action::PaneGraph),
    ("6", Action::PaneTask),
    ("J", Action::ScrollDown),
    ("ctrl-d", Action::ScrollDown),
    ("K", Action::ScrollUp),
    ("ctrl-u", Action::ScrollUp),
    ("f", Action::FirstFailedCase),
    ("/", Action::Search),
    ("m", Action::NextMatch),
    ("M", Action::PrevMatch),
    (":", Action::GotoLine),
    ("v", Action::CycleVerdictFilter),
    ("u", Action::CycleRunFilter),
    ("n", Action::CycleFunctionFilter),
    ("i", Action::CycleFindingFilter),
    ("c", Action::ClearFilters),
    ("s", Action::CycleGrouping),
    ("t", Action::SameTask),
    ("]", Action::NextSameTask),
    ("r", Action::Rerun),
    ("ctrl-r", Action::Regrade),
    ("e", Action::EditWhatIf),
    ("E", Action::WhatIfCases),
    ("D", Action::RawLine),
    ("x", Action::ExtraKeys),
    ("I", Action::InstallRuntime),
    ("y", Action::ConfirmFindings),
    ("<", Action::ScrollLeft),
    (">", Action::ScrollRight),
    ("b", Action::ToggleBookmark),
    ("B", Action::BookmarkCaption),
    ("{", Action::BookmarkEarlier),
    ("}", Action::BookmarkLater),
    ("P", Action::Present),
    ("X", Action::ExportView),
    ("L", Action::LabelMode),
    ("p", Action::CategoryPicker),
    ("a", Action::AcceptSuggestion),
    ("w", Action::EditNote),
    ("N", Action::NextUnlabelledFailure),
    ("F", Action::CycleLabelFilter),
    ("A", Action::Agreement),
    ("O", Action::ToggleLabelOrder),
    ("S", Action::StatsScreen),
    ("C", Action::CompareScreen),
    ("T", Action::TrainingScreen),
    ("#", Action::StepRange),
    ("=", Action::GroupView),
    ("R", Action::RegradeAll),
    ("!", Action::Issues),
    ("?", Action::Help),
    ("esc", Action::Cancel),
    ("q", Action::Quit),
    ("ctrl-c", Action::Quit),
];

/// The screens' own keys, over what [`DEFAULT_KEYS`] binds there (moves, ctrl-c).
pub const SCREEN_KEYS: &[(Scope, &str, Action)] = &[
    (Scope::Stats, "left", Action::PrevRun),
    (Scope::Stats, "right", Action::NextRun),
    (Scope::Stats, "s", Action::SortRows),
    (Scope::Stats, "enter", Action::Choose),
    (Scope::Stats, "q", Action::CloseScreen),
    (Scope::Stats, "esc", Action::CloseScreen),
    (Scope::Compare, "left", Action::CellLeft),
    (Scope::Compare, "right", Action::CellRight),
    (Scope::Compare, "C", Action::NextRuns),
    (Scope::Compare, "u", Action::NextRuns),
    (Scope::Compare, "enter", Action::Choose),
    (Scope::Compare, "q", Action::CloseScreen),
    (Scope::Compare, "esc", Action::CloseScreen),
    (Scope::Training, "left", Action::CellLeft),
    (Scope::Training, "right", Action::CellRight),
    (Scope::Training, "u", Action::NextRun),
    (Scope::Training, "s", Action::SortRows),
    (Scope::Training, "z", Action::ZeroGroups),
    (Scope::Training, "enter", Action::Choose),
    (Scope::Training, "q", Action::CloseScreen),
    (Scope::Training, "esc", Action::CloseScreen),
    (Scope::Training, "T", Action::CloseScreen),
    (Scope::Present, "space", Action::NextStage),
    (Scope::Present, "right", Action::NextStage),
    (Scope::Present, "enter", Action::NextStage),
    (Scope::Present, "l", Action::NextStage),
    (Scope::Present, "left", Action::PrevStage),
    (Scope::Present, "backspace", Action::PrevStage),
    (Scope::Present, "h", Action::PrevStage),
    (Scope::Present, "pagedown", Action::NextSlide),
    (Scope::Present, "pageup", Action::PrevSlide),
    (Scope::Present, "home", Action::FirstSlide),
    (Scope::Present, "end", Action::LastSlide),
    (Scope::Present, "down", Action::ScrollDown),
    (Scope::Present, "j", Action::ScrollDown),
    (Scope::Present, "up", Action::ScrollUp),
    (Scope::Present, "k", Action::ScrollUp),
    (Scope::Present, "n", Action::ToggleNotes),
    (Scope::Present, "q", Action::CloseScreen),
    (Scope::Present, "esc", Action::CloseScreen),
    (Scope::Present, "ctrl-c", Action::CloseScreen),
];

/// Where keys are read: the list and its panes, or a screen with keys of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// The list and the detail panes (`[keys]`).
    Main,
    /// The Stats screen (`S`; `[keys.stats]`).
    Stats,
    /// The Compare screen and its drill-down (`C`; `[keys.compare]`).
    Compare,
    /// The Training screen (`T`; `[keys.training]`).
    Training,
    /// The presenter (`P`, `sebx present`; `[keys.present]`).
    Present,
}

impl Scope {
    pub const SCREENS: [Scope; 4] = [
        Scope::Stats,
        Scope::Compare,
        Scope::Training,
        Scope::Present,
    ];

    /// The name of its table in the config (`[keys.stats]`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Main => "main",
            Scope::Stats => "stats",
            Scope::Compare => "compare",
            Scope::Training => "training",
            Scope::Present => "present",
        }
    }
}

/// One entry of the config's `[keys]` table: `"x" = "quit"`, or a screen's table
/// (`[keys.stats]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum KeyEntry {
    Action(String),
    Screen(BTreeMap<String, String>),
}

/// Keys to actions, per [`Scope`]. Built from [`DEFAULT_KEYS`] and [`SCREEN_KEYS`], then the
/// user's `[keys]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: BTreeMap<(Scope, KeyChord), Action>,
    /// Keys in the order they were bound, for the help screen and the hints.
    order: Vec<(Scope, KeyChord)>,
}

impl Default for Keymap {
    fn default() -> Keymap {
        let mut map = Keymap {
            bindings: BTreeMap::new(),
            order: Vec::new(),
        };
        for (key, action) in DEFAULT_KEYS {
            if let Ok(chord) = KeyChord::parse(key) {
                map.bind_everywhere(chord, *action);
            }
        }
        for (scope, key, action) in SCREEN_KEYS {
            if let Ok(chord) = KeyChord::parse(key) {
                map.bind(*scope, chord, *action);
            }
        }
        map
    }
}

impl Keymap {
    /// Binds (or rebinds) a key in one scope.
    pub fn bind(&mut self, scope: Scope, chord: KeyChord, action: Action) {
        if self.bindings.insert((scope, chord), action).is_none() {
            self.order.push((scope, chord));
        }
    }

    /// Binds a key in every scope of the action.
    pub fn bind_everywhere(&mut self, chord: KeyChord, action: Action) {
        for scope in action.scopes() {
            self.bind(*scope, chord, action);
        }
    }

    /// Binds a key the user chose: it leads the action's keys, so hints show it.
    fn bind_first(&mut self, scope: Scope, chord: KeyChord, action: Action) {
        self.bind(scope, chord, action);
        self.order.retain(|c| *c != (scope, chord));
        self.order.insert(0, (scope, chord));
    }

    fn unbind(&mut self, scope: Scope, chord: KeyChord) {
        self.bindings.remove(&(scope, chord));
        self.order.retain(|c| *c != (scope, chord));
    }

    /// Applies user bindings (`"x" = "quit"`, `"j" = "none"` to unbind) onto this keymap:
    /// an action is bound in each of its scopes, `none` unbinds the key from the list.
    pub fn apply_overrides(&mut self, overrides: &BTreeMap<String, String>) -> Result<()> {
        for (key, action) in overrides {
            let chord = KeyChord::parse(key)?;
            match parse_action(key, action)? {
                None => self.unbind(Scope::Main, chord),
                Some(a) => {
                    for scope in a.scopes() {
                        self.bind_first(*scope, chord, a);
                    }
                }
            }
        }
        Ok(())
    }

    /// Applies the config's whole `[keys]` table: entries as [`Keymap::apply_overrides`],
    /// and a screen's table (`[keys.stats]`) binding or unbinding keys of that screen only.
    pub fn apply_config(&mut self, keys: &BTreeMap<String, KeyEntry>) -> Result<()> {
        let mut plain = BTreeMap::new();
        for (name, entry) in keys {
            match entry {
                KeyEntry::Action(a) => {
                    plain.insert(name.clone(), a.clone());
                }
                KeyEntry::Screen(table) => {
                    let Some(scope) = Scope::SCREENS.into_iter().find(|s| s.name() == name) else {
                        let names: Vec<&str> = Scope::SCREENS.iter().map(|s| s.name()).collect();
                        bail!("`[keys.{name}]`: no such screen ({})", names.join(", "));
                    };
                    for (key, action) in table {
                        let chord = KeyChord::parse(key)?;
                        match parse_action(key, action)? {
                            None => self.unbind(scope, chord),
                            Some(a) if a.scopes().contains(&scope) => {
                                self.bind_first(scope, chord, a)
                            }
                            Some(_) => bail!(
                                "[keys.{name}] key `{key}`: `{action}` is not an action of the {name} screen"
                            ),
                        }
                    }
                }
            }
        }
        self.apply_overrides(&plain)
    }

    /// The action bound to a key event on the list, if any. Shift is carried by the
    /// character itself (`G`), as terminals differ on reporting it.
    pub fn action_for(&self, event: &KeyEvent) -> Option<Action> {
        self.action_in(Scope::Main, event)
    }

    /// The action bound to a key event in `scope`.
    pub fn action_in(&self, scope: Scope, event: &KeyEvent) -> Option<Action> {
        let chord = KeyChord::from_event(event)?;
        self.bindings.get(&(scope, chord)).copied()
    }

    /// A line of key hints for `scope`, generated from the keymap in force: each item's
    /// actions' first keys, then what they do (`←→ run · s sort`). Items whose actions are
    /// all unbound are left out.
    pub fn hint(&self, scope: Scope, items: &[(&[Action], &str)]) -> String {
        let mut parts = Vec::new();
        for (actions, what) in items {
            let keys: Vec<String> = actions
                .iter()
                .filter_map(|a| self.keys_in(scope, *a).first().map(|k| k.to_string()))
                .collect();
            if keys.is_empty() {
                continue;
            }
            // Arrows run together (`↑↓`); named keys are spaced (`pgup pgdn`).
            let glyph = |k: &str| k.chars().count() == 1 && !k.chars().all(char::is_alphanumeric);
            let mut joined = String::new();
            for (i, k) in keys.iter().enumerate() {
                if i > 0 && !(glyph(k) && glyph(&keys[i - 1])) {
                    joined.push(' ');
                }
                joined.push_str(k);
            }
            let keys = joined;
            parts.push(if what.is_empty() {
                keys
            } else {
                format!("{keys} {what}")
            });
        }
        parts.join(" · ")
    }

    /// Digits, then lower-case letters, that no key of this map takes (unmodified): what
    /// label mode can give categories without hiding a key. Digits always count: label
    /// mode takes them over from the pane keys by design.
    pub fn free_chars(&self) -> Vec<char> {
        ('0'..='9')
            .chain('a'..='z')
            .filter(|c| {
                c.is_ascii_digit()
                    || self
                        .action_for(&KeyEvent::new(KeyCode::Char(*c), KeyModifiers::NONE))
                        .is_none()
            })
            .collect()
    }

    /// Keys bound to `action` on the list, in binding order.
    pub fn keys_for(&self, action: Action) -> Vec<KeyChord> {
        self.keys_in(Scope::Main, action)
    }

    /// Keys bound to `action` in `scope`, in binding order.
    pub fn keys_in(&self, scope: Scope, action: Action) -> Vec<KeyChord> {
        self.order
            .iter()
            .filter(|c| c.0 == scope && self.bindings.get(c) == Some(&action))
            .map(|c| c.1)
            .collect()
    }

    /// The help screen's rows: every bindable action with its keys and description.
    /// Every bindable action with its keys: the [`Action::ESSENTIAL`] ones first, then the
    /// rest in [`Action::BINDABLE`] order.
    /// The screens' own actions follow, with their keys there.
    pub fn help_rows(&self) -> Vec<(String, &'static str, Action)> {
        Action::ESSENTIAL
            .iter()
            .chain(
                Action::BINDABLE
                    .iter()
                    .filter(|a| !Action::ESSENTIAL.contains(a)),
            )
            .map(|a| {
                let scopes: &[Scope] = if a.scopes().contains(&Scope::Main) {
                    &[Scope::Main]
                } else {
                    a.scopes()
                };
                let mut keys: Vec<String> = Vec::new();
                for scope in scopes {
                    for k in self.keys_in(*scope, *a) {
                        let k = k.to_string();
                        if !keys.contains(&k) {
                            keys.push(k);
                        }
                    }
                }
                let keys = if keys.is_empty() {
                    "(unbound)".to_string()
                } else {
                    keys.join(" ")
                };
                (keys, a.description(), *a)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_chords() {
        let c = KeyChord::parse("ctrl-d").expect("parses");
        assert!(c.ctrl);
        assert_eq!(c.code, ChordKey::Char('d'));
        assert_eq!(
            KeyChord::parse("shift-tab").expect("parses").code,
            ChordKey::BackTab
        );
        assert_eq!(
            KeyChord::parse("G").expect("parses").code,
            ChordKey::Char('G')
        );
        assert_eq!(
            KeyChord::parse("-").expect("parses").code,
            ChordKey::Char('-')
        );
        assert!(KeyChord::parse("nonsense").is_err());
    }

    #[test]
    fn overrides_rebind_and_unbind() {
        let mut map = Keymap::default();
        let mut o = BTreeMap::new();
        o.insert("x".to_string(), "quit".to_string());
        o.insert("q".to_string(), "none".to_string());
        map.apply_overrides(&o).expect("applies");
        let x = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        let q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(map.action_for(&x), Some(Action::Quit));
        assert_eq!(map.action_for(&q), None);
        o.clear();
        o.insert("y".to_string(), "fly".to_string());
        assert!(map.apply_overrides(&o).is_err());
    }

    #[test]
    fn shifted_keys_match_however_the_terminal_reports_them() {
        let map = Keymap::default();
        for mods in [KeyModifiers::NONE, KeyModifiers::SHIFT] {
            let g = KeyEvent::new(KeyCode::Char('G'), mods);
            assert_eq!(map.action_for(&g), Some(Action::Bottom));
            let back = KeyEvent::new(KeyCode::BackTab, mods);
            assert_eq!(map.action_for(&back), Some(Action::PrevPane));
        }
        let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(map.action_for(&ctrl_d), Some(Action::ScrollDown));
        let d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE);
        assert_eq!(map.action_for(&d), None);
    }

    #[test]
    fn config_names_round_trip() {
        for a in Action::BINDABLE {
            let mut map = Keymap::default();
            let mut o = BTreeMap::new();
            o.insert("f12".to_string(), a.config_name());
            map.apply_overrides(&o).expect("its own name binds");
            for scope in a.scopes() {
                assert_eq!(
                    map.keys_in(*scope, a).first(),
                    Some(&KeyChord::parse("f12").expect("f12")),
                    "the user's key leads"
                );
            }
        }
        assert_eq!(
            Action::CycleVerdictFilter.config_name(),
            "cycle_verdict_filter"
        );
    }

    #[test]
    fn every_bindable_action_has_a_default_key() {
        let map = Keymap::default();
        for a in Action::BINDABLE {
            for scope in a.scopes() {
                assert!(
                    !map.keys_in(*scope, a).is_empty(),
                    "{a:?} unbound in {scope:?}"
                );
            }
        }
    }
}
