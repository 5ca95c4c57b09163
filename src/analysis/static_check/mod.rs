//! Step 4 of GRADER.md: the official static zwc-usage check, with each condition reported.
//!
//! Its parts, each depending only on those listed after it:
//! - `split`: [`check_zwc_usage_split`], the check on the code and the grader's harness
//!   apart (the harness parsed once per distinct text), with the same result as on the
//!   assembled program;
//! - `check`: [`check_zwc_usage`], the official conditions on a whole program (zwc
//!   imported, entry `def` found, a library call, a valued `return`, not a lone `yitaf`);
//! - `syntax`: CPython 3.11's wording and line for a parse failure
//!   ([`describe_parse_failure`]);
//! - `outcome`: what the check finds ([`StaticCheck`], [`StaticFailure`],
//!   [`RecursionLimit`]) and the official `static_error` text for it;
//! - `cache`: the bounded process-wide caches keyed by a text's hash ([`PerTextCache`]).

mod cache;
mod check;
mod outcome;
mod split;
mod syntax;

pub(crate) use cache::{PerTextCache, remembered, text_hash};
pub use check::{
    check_zwc_usage, check_zwc_usage_parsed, find_entry_def, library_callee, zwc_import_names,
};
pub use outcome::{
    LibraryCall, OFFICIAL_CALL_DEPTH, RECURSION_MARGIN_FRAMES, RecursionLimit, StaticCheck,
    StaticFailure, SyntaxErrorInfo,
};
pub use split::{ParsedCode, check_zwc_usage_split};
pub use syntax::describe_parse_failure;
