//! Python values as the official comparison sees them, and an evaluator for the
//! expressions Python and NumPy print, so that comparing outputs needs no Python.
//!
//! The official grader turns a program's printed text into values with Python's `eval` (in
//! a module that imported `numpy as np`), and later re-parses strings with
//! `ast.literal_eval`. This module does both on the subset of Python that printed values
//! use. Its parts, each depending only on those listed before it:
//! - `value`: [`PyValue`] (Python numbers, strings, bytes and containers; NumPy scalars and
//!   the arrays scalar types build; builtins as opaque objects), Python's `==` ([`py_eq`])
//!   and exact types ([`PyType`], for the official `type(a) != type(b)` check);
//! - `repr`: Python's [`repr`] of a value ([`float_repr`], [`complex_repr`]; NumPy 2 style
//!   for NumPy scalars);
//! - `lexer`, `parser`: text to tokens to an expression tree, with Python's literal rules
//!   and its limits on nesting;
//! - `operators`: Python's operators on values;
//! - `evaluator`: [`evaluate`] as `eval` ([`EvalMode::Eval`]) or as `ast.literal_eval`
//!   ([`EvalMode::Literal`]), and [`runs_code`], whether `eval` would run code (a call of a
//!   builtin, `__import__(...)`) rather than build a value.
//!
//! `eval` evaluates here: number, string and bytes literals (big integers kept exactly as
//! digits, see [`PyValue::BigInt`]), `True`/`False`/`None`/`...`, tuples, lists, dicts and
//! sets (with Python's rules for repeated keys and unhashable items), unary and binary
//! arithmetic, `+` and `*` on sequences, comparison chains (`==`, `!=`, and ordering of
//! numbers, strings, lists and tuples), subscripts by index or dict key, `float(...)`,
//! `set(...)`, the NumPy scalar types applied to a value (`np.float64(3.5)`, `np.int64(3)`,
//! `np.str_('x')`; to a nested sequence they build an array), `np.True_`, `np.False_`, and
//! `pi` and `e` of `np` and `math`.
//!
//! Where it is narrower than Python, evaluation fails as if Python had raised, and the
//! official grader's fallback of comparing the cleaned text applies:
//! - boolean operators, `in`, `is`, conditional expressions, lambdas, comprehensions,
//!   slices, keyword arguments, `@`, f-strings and `\N{...}` escapes;
//! - calls other than those above (Python would run `len([1])`; [`runs_code`] tells such
//!   text apart);
//! - integer arithmetic that leaves the `i128` range or takes a big integer beyond its
//!   sign (Python would use a big integer); repetition to more than 2^20 items;
//! - `**` with a negative base and fractional exponent (a complex result in Python);
//! - names other than builtins and the modules `np`, `math`, `re`, `ast` (which evaluate
//!   to opaque objects compared by identity, see [`PyValue::Builtin`]); the checker's own
//!   locals (`self`, `cleaned`, `output_str`) and other module globals are undefined;
//! - brackets nested beyond 200 levels (Python's tokenizer limit), chains of unary
//!   operators or `**` beyond 200, and expression trees deeper than 2,950 levels (CPython's
//!   `eval` raises a RecursionError near 2,990). Trees deeper than 400 levels are
//!   evaluated on a thread of their own, with a stack big enough for them.

mod evaluator;
mod lexer;
mod operators;
mod parser;
mod repr;
mod value;

pub use crate::analysis::assemble::str_repr;
pub use evaluator::{BUILTIN_FUNCTIONS, EvalMode, evaluate, runs_code};
pub use lexer::EvalError;
pub use repr::{complex_repr, float_repr, repr};
pub use value::{NpFloatKind, NpIntKind, PyType, PyValue, dict_get, py_eq};
