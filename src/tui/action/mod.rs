//! Everything the explorer can do, as one [`Action`] enum: the keymap's vocabulary
//! (snake_case in TOML), the help screen's source, and the only input of `App::update`.
//! Each bindable action is one row of the action table (`action_table!`): name, scopes,
//! description and default keys. The keys that run them are in `chord.rs` (a key as the
//! config writes it) and `keymap.rs` (the bindings per scope, defaults and the user's).

use serde::{Deserialize, Serialize};

mod chord;
mod keymap;
mod text_keys;

pub use chord::{ChordKey, KeyChord};
pub use keymap::{KeyEntry, Keymap, Scope};
pub use text_keys::{text_box_action, typed_char};

/// Every bindable action, declared once (on the model of ruff's rule table): its name (the
/// variant, snake_case in the config), its description (the help line), the scopes where its
/// keys work and its default keys: `keys` bind in every scope, `only` in one scope (a
/// screen's own keys). The enum, [`Action::BINDABLE`], [`Action::scopes`],
/// [`Action::description`] and [`ACTIONS`] (the default keymap, the help, the README check)
/// are generated from it; the table's order is the help's.
macro_rules! action_table {
    (
        bindable {
        $(
            $(#[doc = $doc:literal])*
            $variant:ident : $desc:literal, [$($scope:ident),+], keys [$($key:literal),*]
            $(, only [$(($oscope:ident $okey:literal)),*])? ;
        )*
        }
        unbound { $($rest:tt)* }
    ) => {
        /// Something the user (or the terminal) asks the explorer to do.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Action {
            $(
                #[doc = $desc]
                $(#[doc = ""] #[doc = $doc])*
                $variant,
            )*
            $($rest)*
        }

        /// The action table's rows, in help order.
        pub const ACTIONS: &[ActionSpec] = &[$(
            ActionSpec {
                action: Action::$variant,
                description: $desc,
                scopes: &[$(Scope::$scope),+],
                keys: &[$($key),*],
                only: &[$($((Scope::$oscope, $okey)),*)?],
            },
        )*];

        impl Action {
            /// Actions a key can be bound to, in help-screen order.
            pub const BINDABLE: [Action; [$(stringify!($variant)),*].len()] =
                [$(Action::$variant),*];

            /// Where a key bound to this action works: a `[keys]` entry binds it in each of
            /// these (a `[keys.SCOPE]` table in that one only).
            pub fn scopes(self) -> &'static [Scope] {
                match self {
                    $(Action::$variant => &[$(Scope::$scope),+],)*
                    _ => &[Scope::Main],
                }
            }

            /// One line for the help screen.
            pub fn description(self) -> &'static str {
                match self {
                    $(Action::$variant => $desc,)*
                    _ => self.unbound_description(),
                }
            }
        }
    };
}

/// One row of the action table ([`ACTIONS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSpec {
    pub action: Action,
    /// The help line.
    pub description: &'static str,
    /// Where its keys work.
    pub scopes: &'static [Scope],
    /// Default keys, bound in every scope of the action.
    pub keys: &'static [&'static str],
    /// Default keys of one scope only.
    pub only: &'static [(Scope, &'static str)],
}

action_table! {
    bindable {
    Up: "previous rollout", [Main, Stats, Compare, Training], keys ["up", "k"];
    Down: "next rollout", [Main, Stats, Compare, Training], keys ["down", "j"];
    PageUp: "page up in the list", [Main, Stats, Compare, Training], keys ["pageup", "ctrl-b"];
    PageDown: "page down in the list", [Main, Stats, Compare, Training], keys ["pagedown", "ctrl-f"];
    Top: "first rollout", [Main, Stats, Compare, Training], keys ["home", "g"];
    Bottom: "last rollout", [Main, Stats, Compare, Training], keys ["end", "G"];
    NextPane: "next pane", [Main], keys ["tab", "right", "l"];
    PrevPane: "previous pane", [Main], keys ["shift-tab", "left", "h"];
    PaneResponse: "Response pane", [Main], keys ["1"];
    PaneCode: "Code pane", [Main], keys ["2"];
    PaneCases: "Cases pane", [Main], keys ["3"];
    PaneOutput: "Output pane", [Main], keys ["4"];
    PaneGraph: "Graph pane", [Main], keys ["5"];
    PaneTask: "Task pane", [Main], keys ["6"];
    ScrollDown: "scroll the pane down (next case in Cases)", [Main, Compare, Present], keys ["J", "ctrl-d"], only [(Present "down"), (Present "j")];
    ScrollUp: "scroll the pane up (previous case in Cases)", [Main, Compare, Present], keys ["K", "ctrl-u"], only [(Present "up"), (Present "k")];
    FirstFailedCase: "Cases pane at the first failed case", [Main], keys ["f"];
    Search: "search query, response and names (~ for fuzzy)", [Main, Stats, Training], keys ["/"];
    /// Scrolls the pane to the search's next match (past the last: the next matching rollout).
    NextMatch: "next match in the pane, then in the next rollout", [Main, Stats, Training], keys ["m"];
    /// Scrolls the pane to the search's previous match.
    PrevMatch: "previous match of the search", [Main], keys ["M"];
    /// Goes to a line of the selected rollout's file (`:` then the number, as in less).
    GotoLine: "go to a line of the file (: then the number)", [Main], keys [":"];
    CycleVerdictFilter: "filter by verdict, ≈ or reward ≠ verdict (cycle)", [Main], keys ["v"];
    CycleRunFilter: "filter by run (cycle)", [Main], keys ["u"];
    CycleFunctionFilter: "filter by function of the selected rollout (cycle)", [Main], keys ["n"];
    CycleFindingFilter: "filter by finding kind (cycle)", [Main], keys ["i"];
    ClearFilters: "clear all filters and the search", [Main], keys ["c"];
    CycleGrouping: "group by: file order, task, verdict, run, function", [Main], keys ["s"];
    SameTask: "show this task across all runs (toggle)", [Main], keys ["t"];
    NextSameTask: "jump to this task in the next run", [Main], keys ["]"];
    Regrade: "regrade the selected rollout in place", [Main], keys ["ctrl-r"];
    RegradeAll: "regrade every rollout shown", [Main], keys ["R"];
    /// Regrades the selected rollout into the rerun sidecar, beside its stored verdict.
    Rerun: "rerun: new verdict beside the stored one (sidecar)", [Main], keys ["r"];
    /// Opens the extracted code in `$EDITOR` and grades the edit as a what-if.
    EditWhatIf: "edit the code in $EDITOR and grade it as a what-if", [Main], keys ["e"];
    /// The Cases pane shows the latest what-if's cases instead of the stored run's, or back.
    WhatIfCases: "Cases pane: the what-if's cases / the stored run's", [Main], keys ["E"];
    /// The Response pane shows the selected rollout's line as stored (every key, the
    /// whole prompt), read again from its file; again: the response.
    RawLine: "Response pane: the line as stored (every key)", [Main], keys ["D"];
    /// The dump's extra keys (`acc`, `pred`, …): show one as a list column, filter by a value.
    ExtraKeys: "extra keys of the samples: columns, filters", [Main], keys ["V"];
    /// Installs the Python runtime (from the offer shown when it is missing).
    InstallRuntime: "install the Python runtime the grader needs", [Main, Popup], keys [], only [(Main "I"), (Popup "y")];
    /// Runs the selected rollout once under the tracer: each `possible` finding becomes
    /// confirmed, refuted or not reached (the Code pane shows which).
    ConfirmFindings: "settle possible and loophole findings by a run", [Main], keys ["y"];
    /// Scrolls the pane left (wide graphs and code).
    ScrollLeft: "scroll the pane left", [Main], keys ["<"];
    /// Scrolls the pane right.
    ScrollRight: "scroll the pane right", [Main], keys [">"];
    /// Bookmarks the selected rollout for the playlist, or removes its bookmark.
    ToggleBookmark: "bookmark the rollout for the playlist (toggle)", [Main], keys ["b"];
    /// Writes the one-line caption of the selected rollout's bookmark.
    BookmarkCaption: "caption of the rollout's bookmark", [Main], keys ["B"];
    /// Moves the selected rollout's bookmark one place earlier in the playlist.
    BookmarkEarlier: "move the bookmark earlier in the playlist", [Main], keys ["{"];
    /// Moves the selected rollout's bookmark one place later in the playlist.
    BookmarkLater: "move the bookmark later in the playlist", [Main], keys ["}"];
    /// Presents the bookmarks (or the selected rollout) stage by stage.
    Present: "present the bookmarks, stage by stage", [Main], keys ["P"];
    /// Exports the current view to an HTML file and says where.
    ExportView: "export this view to an HTML file", [Main], keys ["X"];
    /// Label mode: category keys (`1`–`9`) toggle categories instead of switching panes.
    LabelMode: "label mode (again: label and advance; 3rd: off)", [Main], keys ["L"];
    /// Every category, with counts; pick with ↑↓ and enter.
    CategoryPicker: "all categories (pick with ↑↓ enter)", [Main], keys ["p"];
    /// Adds the suggested category to the selected rollout's label.
    AcceptSuggestion: "accept the suggested category", [Main], keys ["a"];
    /// Writes a free-text note on the selected rollout.
    EditNote: "write a note on the rollout's label", [Main], keys ["w"];
    /// Selects the next failure this annotator has not labelled.
    NextUnlabelledFailure: "next unlabelled failure, from this row on", [Main], keys ["N"];
    /// Takes back this session's last label change (again: the one before), writing the
    /// label as it was.
    UndoLabel: "undo the last label change (again: the one before)", [Main], keys ["U"];
    /// Filter: unlabelled, labelled, by category (cycle).
    CycleLabelFilter: "filter by label: none, any, one category (cycle)", [Main], keys ["F"];
    /// Two annotators' agreement (Cohen's kappa) and their disagreements.
    Agreement: "agreement between two annotators (Cohen's kappa)", [Main], keys ["A"];
    /// The next unlabelled failure follows file order or a seeded random order (a random
    /// sample of failures).
    ToggleLabelOrder: "label order: file order / seeded random order", [Main], keys ["O"];
    /// The stats screen: run summaries and the internalization map.
    StatsScreen: "stats: accuracy, pass@k, the internalization map", [Main, Stats, Compare], keys ["S"];
    /// The compare screen: flip matrix of two runs (again: the next pair of runs).
    CompareScreen: "compare two runs: flip matrix, McNemar, drill-down", [Main, Stats], keys ["C"];
    /// The Training screen: reward and accuracy per step, the function × step heat map.
    TrainingScreen: "training: reward and accuracy per step, heat map", [Main], keys ["T"];
    /// Show only the samples of a step range (typed: `10-20`, `7`; empty clears).
    StepRange: "only the samples of some steps (10-20; empty: all)", [Main], keys ["#"];
    /// Show the selected sample's GRPO group: the samples of its prompt at its step.
    GroupView: "the sample's GRPO group (its uid, else its prompt)", [Main], keys ["="];
    Issues: "lines that could not be loaded, with reasons", [Main], keys ["!"];
    /// The selected row's cells whole (run, file and line, verdict, task, functions, label),
    /// wrapped in a popup: the list cuts them with a `…`.
    FullText: "whole text of the row (Cases: case; Stats: map row)", [Main, Stats], keys [], only [(Main "enter"), (Stats "w")];
    Help: "this help", [Main], keys ["?"];
    /// Closes a popup, leaves search, or clears the search.
    Cancel: "close popup / leave or clear search", [Main], keys ["esc"];
    Quit: "quit", [Main, Stats, Compare, Training], keys ["q", "ctrl-c"];
    /// Closes the screen (one level back on the Compare screen's drill-down).
    CloseScreen: "screens, presenter: close (one level back)", [Stats, Compare, Training, Present], keys [], only [(Stats "q"), (Stats "esc"), (Compare "q"), (Compare "esc"), (Training "q"), (Training "esc"), (Training "T"), (Present "q"), (Present "esc"), (Present "ctrl-c")];
    /// Opens what the cursor is on: a map row's failures, a matrix cell's pairs, a pair, a
    /// heat-map cell's rollouts.
    Choose: "screens: open what the cursor is on", [Stats, Compare, Training], keys [], only [(Stats "enter"), (Compare "enter"), (Training "enter")];
    /// The previous run (the Stats screen's map).
    PrevRun: "Stats: previous run", [Stats], keys [], only [(Stats "left")];
    /// The next run (the Stats screen's map, the Training screen).
    NextRun: "Stats, Training: next run", [Stats, Training], keys [], only [(Stats "right"), (Training "u")];
    /// The next pair of runs (the Compare screen).
    NextRuns: "Compare: next pair of runs", [Compare], keys [], only [(Compare "C"), (Compare "u")];
    /// The next order of the map rows (the Stats screen).
    SortRows: "Stats, Training: sort the map (cycle)", [Stats, Training], keys [], only [(Stats "s"), (Training "s")];
    /// The zero-advantage groups of the Training heat map's highlighted steps.
    ZeroGroups: "Training: the column's zero-advantage groups", [Training], keys [], only [(Training "z")];
    /// The cell to the left (the Compare matrix, the Training heat map).
    CellLeft: "Compare, Training: cell to the left", [Compare, Training], keys [], only [(Compare "left"), (Training "left")];
    /// The cell to the right.
    CellRight: "Compare, Training: cell to the right", [Compare, Training], keys [], only [(Compare "right"), (Training "right")];
    /// The presenter: reveals the next stage (past the last: the next rollout).
    NextStage: "presenter: reveal the next stage", [Present], keys [], only [(Present "space"), (Present "right"), (Present "enter"), (Present "l")];
    /// The presenter: back a stage.
    PrevStage: "presenter: back a stage", [Present], keys [], only [(Present "left"), (Present "backspace"), (Present "h")];
    /// The presenter: the next rollout.
    NextSlide: "presenter: next rollout", [Present], keys [], only [(Present "pagedown")];
    /// The presenter: the previous rollout.
    PrevSlide: "presenter: previous rollout", [Present], keys [], only [(Present "pageup")];
    /// The presenter: the first rollout.
    FirstSlide: "presenter: first rollout", [Present], keys [], only [(Present "home")];
    /// The presenter: the last rollout.
    LastSlide: "presenter: last rollout", [Present], keys [], only [(Present "end")];
    /// The presenter: shows or hides the speaker notes.
    ToggleNotes: "presenter: speaker notes (toggle)", [Present], keys [], only [(Present "n")];

    /// Chooses the highlighted item of a popup: toggles a category, opens a disagreement,
    /// shows an extra key's column.
    PopupChoose: "popups: choose the highlighted item", [Popup], keys ["enter", "space"];
    }
    unbound {
        /// Toggles the category with this key on the selected rollout (not bindable: the
        /// taxonomy names the keys).
        ToggleCategory(char),
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

    /// The name used in the config's `[keys]` table (`cycle_verdict_filter`).
    pub fn config_name(self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(s)) => s,
            _ => format!("{self:?}"),
        }
    }

    /// The help line of an action the table does not hold (no key can run it).
    fn unbound_description(self) -> &'static str {
        match self {
            Action::ToggleCategory(_) => "toggle a category",
            Action::Edit(_) => "edit the text box",
            Action::Resize { .. } => "terminal resized",
            Action::Click { .. } => "mouse click",
            Action::Wheel { .. } => "mouse wheel",
            _ => "",
        }
    }
}

/// The action table as the README's key reference (a Markdown table, regenerated by
/// `tests/readme_keys.rs`): each action's config name, where its keys work, its default
/// keys (a scope's own after its name) and what it does.
pub fn markdown_table() -> String {
    let shown = |k: &str| match KeyChord::parse(k) {
        Ok(c) => format!("`{c}`"),
        Err(_) => format!("`{k}`"),
    };
    let mut out = String::from(
        "| action (`[keys]` name) | works in | default keys | what it does |\n|---|---|---|---|\n",
    );
    for spec in ACTIONS {
        let scopes: Vec<&str> = spec.scopes.iter().map(|s| s.name()).collect();
        let mut keys: Vec<String> = spec.keys.iter().map(|k| shown(k)).collect();
        for scope in spec.scopes {
            let own: Vec<String> = spec
                .only
                .iter()
                .filter(|(s, _)| s == scope)
                .map(|(_, k)| shown(k))
                .collect();
            if !own.is_empty() {
                keys.push(format!("{}: {}", scope.name(), own.join(" ")));
            }
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            spec.action.config_name(),
            scopes.join(", "),
            keys.join(" "),
            spec.description.replace('|', "\\|"),
        ));
    }
    out
}
