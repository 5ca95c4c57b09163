//! Step 4 of GRADER.md: the official static zwc-usage check, with each condition reported.
//! (Stub: to be implemented with rustpython-parser.)

use serde::{Deserialize, Serialize};

/// Where a syntax error is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyntaxErrorInfo {
    pub message: String,
    /// 1-based line and column in the parsed program.
    pub line: usize,
    pub col: usize,
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

/// Outcome of the static check, condition by condition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticCheck {
    pub syntax_error: Option<SyntaxErrorInfo>,
    /// Names under which zwc is imported (always contains `zwc` once parsed).
    pub imported_names: Vec<String>,
    pub entry_found: bool,
    pub library_calls: Vec<LibraryCall>,
    /// Some `return` inside the entry function has a value.
    pub returns_value: bool,
    /// False only when there is exactly one library call and it contains `yitaf`.
    pub meaningful: bool,
    pub passed: bool,
}

impl StaticCheck {
    /// The failure in the official wording, when the check failed.
    pub fn official_error(&self) -> Option<String> {
        todo!("official_error")
    }
}

/// Runs the check on the whole assembled program for entry function `entry`.
pub fn check_zwc_usage(_program: &str, _entry: &str) -> StaticCheck {
    todo!("static check")
}
