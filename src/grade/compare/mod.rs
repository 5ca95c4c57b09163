//! Step 7 of GRADER.md: splitting the printed results and the official tolerant comparison,
//! quirks included, one part per official stage, each documented where it is reproduced:
//! - `judge`: `judge` and the split of the printed results ([`compare_outputs`],
//!   [`compare_printed`], [`compare_printed_by`] under either scorer's [`Rule`]), and
//!   whether another machine could get the other outcome ([`Comparison::fragile`]);
//! - `deep_compare`: `deep_compare`, and the [`Mismatch`] it finds;
//! - `normalize`: `normalize_data_structure` ([`normalize`]);
//! - `cleaning`: `parse_stdout_output` ([`clean_printed`], [`parse_printed`]);
//! - `code`: which cleaned texts the official `eval` may run as code or compute otherwise
//!   than sebx's evaluator ([`eval_needs_python`]): a comparison that met one says so
//!   ([`Comparison::needs_python`]), and `grade::judge_eval` runs the official checker.
//!
//! Each part depends only on those listed after it (the deep comparison re-parses strings
//! with the cleaning). Checked against the official code on the parity corpus
//! (`tests/compare_parity.rs`) and, during development, on about 31,000 generated pairs
//! (NumPy prints, nested Python values, random token soup): no disagreement.

mod cleaning;
mod code;
mod deep_compare;
mod judge;
mod normalize;

pub use cleaning::{CleanedText, clean_printed, parse_printed, py_isspace, py_strip};
pub use code::{eval_needs_python, resolved_name};
pub use deep_compare::{Mismatch, STRING_REPARSE_LIMIT};
pub use judge::{
    CODE_NOT_RUN, Comparison, Decision, OutputComparison, REWARD_TOLERANCE, Rule, SEPARATOR,
    TOLERANCE, compare_outputs, compare_printed, compare_printed_by, split_actual, split_expected,
};
pub use normalize::{NormalizeCrash, normalize};
