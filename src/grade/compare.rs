//! Step 7 of GRADER.md: the tolerant comparison of printed values. (Stub.)

use serde::{Deserialize, Serialize};

/// Absolute tolerance of the official comparison.
pub const TOLERANCE: f64 = 1e-2;

/// Where and why two printed values differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Path into the value, e.g. `[1][0]` (empty for the whole value).
    pub path: String,
    /// The differing parts, as text.
    pub expected: String,
    pub actual: String,
    /// Absolute difference, when both are numbers.
    pub difference: Option<f64>,
    /// A sentence for the user, e.g. `0.0204 > tolerance 0.01`.
    pub reason: String,
}

/// Result of comparing one expected and one actual printed piece.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub matched: bool,
    /// The parsed values, rendered, for display.
    pub expected_value: String,
    pub actual_value: String,
    pub mismatch: Option<Mismatch>,
}

/// Compares one expected piece with one actual piece as the official grader does.
pub fn compare_printed(_expected: &str, _actual: &str) -> Comparison {
    todo!("compare")
}

/// The actual pieces: stdout after the last separator, split on `#`, last piece dropped, stripped.
pub fn split_actual(_stdout: &str) -> Vec<String> {
    todo!("split_actual")
}

/// The expected pieces: `right_exe_result` split on `#` (not stripped).
pub fn split_expected(_right_exe_result: &str) -> Vec<String> {
    todo!("split_expected")
}
