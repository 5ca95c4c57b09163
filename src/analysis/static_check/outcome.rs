//! What the check finds, condition by condition ([`StaticCheck`]), and how the official
//! check words it: the failed conditions in the official order ([`StaticFailure`]), the
//! official `static_error` text, where a syntax error is ([`SyntaxErrorInfo`]), and where
//! the official check meets Python's recursion limit ([`RecursionLimit`]).

use serde::{Deserialize, Serialize};

use crate::analysis::pyast;

/// The library the check looks for.
pub(super) const LIB: &str = "zwc";

/// Where a syntax error is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyntaxErrorInfo {
    /// CPython-style message (what the official grader reports), as far as it can be told
    /// without CPython; see `parser_message` for the parser's own words.
    pub message: String,
    /// 1-based line and column in the parsed program (CPython's line where known).
    pub line: usize,
    pub col: usize,
    /// The message of the parser this crate uses.
    pub parser_message: String,
    /// The failure is on a line with an f-string that Python 3.12 would accept
    /// (PEP 701 quote reuse, comments): the official grader may disagree here.
    pub maybe_py312_fstring: bool,
    /// Python 3.12 accepts this code (PEP 695 syntax, a backslash in an f-string
    /// expression); the error stands because the official grader runs Python 3.11.
    pub python312_accepts: bool,
}

/// Where an official check meets Python's recursion limit on a deeply nested program
/// (GRADER.md, "Recursion limits"), by sebx's model of the official checks: CPython builds
/// the tree recursively and the checks walk it with `ast.NodeVisitor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecursionLimit {
    /// `ast construction`, `the zwc-usage walk` or `the NumPy-import walk`.
    pub stage: String,
    /// What the program needs there: nested nodes (construction) or Python frames (walks).
    pub needed: usize,
    /// The most the official grader allows there, by the model.
    pub limit: usize,
    /// The check raises RecursionError.
    pub exceeded: bool,
    /// `needed` is within [`RECURSION_MARGIN_FRAMES`] frames of the limit, where the
    /// official grader's own call depth (not published) decides: a fragile verdict.
    pub near: bool,
}

/// Frames on the official grader's stack when its checks call `ast.parse` or start a walk
/// (its script, main loop, grading function, check function and method). Not published:
/// this is the model's assumption; see [`RECURSION_MARGIN_FRAMES`].
pub const OFFICIAL_CALL_DEPTH: usize = 6;

/// How far (in Python frames) the official call depth may be from the assumed one; a
/// program this close to a recursion limit gets a fragile verdict.
pub const RECURSION_MARGIN_FRAMES: usize = 6;

impl RecursionLimit {
    /// A walk by an official visitor that needs `visitor_frames` (see
    /// [`pyast::visitor_frames`]); `None` when it is far below the limit.
    pub fn walk(stage: &str, visitor_frames: usize) -> Option<RecursionLimit> {
        let needed = OFFICIAL_CALL_DEPTH + visitor_frames;
        Self::near_or_over(
            stage,
            needed,
            pyast::PY_FRAME_BUDGET,
            RECURSION_MARGIN_FRAMES,
        )
    }

    /// `ast.parse` of a tree `depth` nodes deep (see [`pyast::Suite::depth`]):
    /// CPython allows three levels per frame of the recursion limit, less three per frame
    /// already on the stack (`ast.parse`'s own included).
    pub fn construction(depth: usize) -> Option<RecursionLimit> {
        let limit = 3 * pyast::PY_RECURSION_LIMIT - 3 * (OFFICIAL_CALL_DEPTH + 1);
        Self::near_or_over(
            "ast construction",
            depth,
            limit,
            3 * RECURSION_MARGIN_FRAMES,
        )
    }

    fn near_or_over(
        stage: &str,
        needed: usize,
        limit: usize,
        margin: usize,
    ) -> Option<RecursionLimit> {
        let near = needed.abs_diff(limit) <= margin;
        let exceeded = needed > limit;
        (near || exceeded).then(|| RecursionLimit {
            stage: stage.to_string(),
            needed,
            limit,
            exceeded,
            near,
        })
    }

    /// A sentence for the user.
    pub fn describe(&self) -> String {
        let unit = if self.stage == "ast construction" {
            "nested nodes"
        } else {
            "Python frames"
        };
        let what = if self.exceeded {
            "hits Python's recursion limit"
        } else {
            "comes close to Python's recursion limit"
        };
        format!(
            "the official {} {what}: the program needs {} {unit}, the official grader allows about {}",
            self.stage, self.needed, self.limit
        )
    }

    /// Why a verdict decided near the limit is fragile.
    pub fn fragile_reason(&self) -> Option<String> {
        self.near.then(|| {
            format!(
                "{}; the official grader's exact call depth is not known, so its verdict could go either way",
                self.describe()
            )
        })
    }
}

/// One library call found inside the entry function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryCall {
    /// Dotted callee, e.g. `zwc.kocito` or `z.rfx.quvohe`.
    pub name: String,
    /// 1-based line and column in the parsed program.
    pub line: usize,
    pub col: usize,
}

/// One condition of the official check that failed, in the order the official check tests them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaticFailure {
    SyntaxError,
    /// The official check raised RecursionError on a deeply nested program.
    RecursionLimit,
    /// No `import zwc` / `from zwc import` anywhere (never happens on an assembled program).
    NoZwcImport,
    EntryNotFound,
    NoLibraryCall,
    /// Officially "Return value independent of target library": no library call, or no
    /// `return` with a value.
    ReturnIndependent,
    /// Officially "Meaningless calls": no library call, or a single `yitaf` call.
    MeaninglessCalls,
}

impl StaticFailure {
    /// A sentence for the user.
    pub fn describe(self) -> &'static str {
        match self {
            StaticFailure::SyntaxError => "the program does not parse",
            StaticFailure::RecursionLimit => {
                "the program is nested too deeply for the official check (RecursionError)"
            }
            StaticFailure::NoZwcImport => "zwc is never imported",
            StaticFailure::EntryNotFound => {
                "no `def` with the entry name (async defs do not count)"
            }
            StaticFailure::NoLibraryCall => "the entry function makes no zwc call",
            StaticFailure::ReturnIndependent => {
                "no `return` with a value in the entry function (or no zwc call)"
            }
            StaticFailure::MeaninglessCalls => {
                "the only zwc call is a `yitaf` conversion (or there is no zwc call)"
            }
        }
    }
}

/// Outcome of the static check, condition by condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StaticCheck {
    pub syntax_error: Option<SyntaxErrorInfo>,
    /// The entry name the check looked for.
    pub entry: String,
    /// Some `import zwc…` / `from zwc import` statement exists.
    pub zwc_imported: bool,
    /// Names under which zwc is imported (always contains `zwc` once parsed).
    pub imported_names: Vec<String>,
    pub entry_found: bool,
    /// 1-based line of the entry `def`, when found.
    pub entry_line: Option<usize>,
    pub library_calls: Vec<LibraryCall>,
    /// Some `return` inside the entry function has a value.
    pub returns_value: bool,
    /// False only when there is exactly one library call and it contains `yitaf`.
    pub meaningful: bool,
    pub passed: bool,
    /// Set when building or walking the tree officially meets (or nearly meets) Python's
    /// recursion limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recursion: Option<RecursionLimit>,
}

impl StaticCheck {
    /// The conditions that failed, as the official check decides them.
    pub fn failures(&self) -> Vec<StaticFailure> {
        if self.syntax_error.is_some() {
            return vec![StaticFailure::SyntaxError];
        }
        if self.recursion.as_ref().is_some_and(|r| r.exceeded) {
            return vec![StaticFailure::RecursionLimit];
        }
        if !self.zwc_imported {
            return vec![StaticFailure::NoZwcImport];
        }
        if !self.entry_found {
            return vec![StaticFailure::EntryNotFound];
        }
        let called = !self.library_calls.is_empty();
        let mut out = Vec::new();
        if !called {
            out.push(StaticFailure::NoLibraryCall);
        }
        // Officially the return and meaningfulness flags stay false when nothing is called.
        if !called || !self.returns_value {
            out.push(StaticFailure::ReturnIndependent);
        }
        if !called || !self.meaningful {
            out.push(StaticFailure::MeaninglessCalls);
        }
        out
    }

    /// The official `static_error` text for this outcome (`None` when the check passed),
    /// including its spelling ("liarary").
    pub fn official_error(&self) -> Option<String> {
        if let Some(e) = &self.syntax_error {
            return Some(format!(
                "Code syntax error: {} (<unknown>, line {})",
                e.message, e.line
            ));
        }
        if let Some(r) = self.recursion.as_ref().filter(|r| r.exceeded) {
            // The official wording for this case is not known; this is sebx's.
            return Some(format!(
                "RecursionError: maximum recursion depth exceeded ({})",
                r.stage
            ));
        }
        if !self.zwc_imported {
            return Some(format!("No {LIB} module"));
        }
        if !self.entry_found {
            return Some(format!("Unfound function '{}'", self.entry));
        }
        if self.passed {
            return None;
        }
        let reasons: Vec<&str> = self
            .failures()
            .into_iter()
            .filter_map(|f| match f {
                StaticFailure::NoLibraryCall => Some("Do not contain library calls"),
                StaticFailure::ReturnIndependent => {
                    Some("Return value independent of target liarary")
                }
                StaticFailure::MeaninglessCalls => Some("Meaningless calls"),
                _ => None,
            })
            .collect();
        Some(format!("Failed: {}", reasons.join(", ")))
    }
}
