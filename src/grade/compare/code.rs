//! Which cleaned texts the official `eval` may treat otherwise than sebx's evaluator: the
//! texts whose official comparison needs Python (the official checker's own code, run in
//! the sandbox by `grade::judge_eval`), because `eval` runs them as code or computes what
//! the evaluator does not model. Everything else keeps the Rust path, which is exact on it.
//!
//! Where the evaluator gives a value, it is the value `eval` gives. Where it fails, Python
//! fails too, and the official comparison reads the cleaned text as a string, when the
//! text is no expression at all (a SyntaxError, as in most printed prose, its spaces
//! removed) or an expression of plain values and operators that evaluates a name Python
//! does not know either (a NameError: `helloworld`, `Error-5`). Any other expression may
//! compute in Python: a name the checker's frame resolves (a builtin, the checker module's
//! globals, `self`, `cleaned`, `output_str`), an attribute or a call (even on a literal:
//! `().__class__` reaches anything), or syntax the evaluator does not model (`and`,
//! lambdas, comprehensions, slices, f-strings, big integers past `i128`).

use std::cell::Cell;

use crate::analysis::pyast::{ast, parse_suite};
use crate::grade::pyvalue::{self, EvalError, EvalMode, PyValue};

/// Names the official `eval` resolves inside `parse_stdout_output`: the method's locals,
/// the checker module's globals and Python 3.11's builtins.
const RESOLVED_NAMES: &[&str] = &[
    // Locals of `parse_stdout_output`.
    "self",
    "output_str",
    "cleaned",
    // Globals of the checker module.
    "re",
    "ast",
    "Any",
    "List",
    "Tuple",
    "Union",
    "np",
    "math",
    "DEBUG",
    "analyze_source",
    "EqulityChecker",
    "__name__",
    "__doc__",
    "__package__",
    "__loader__",
    "__spec__",
    "__file__",
    "__cached__",
    "__builtins__",
    "__annotations__",
    // Builtins (`dir(builtins)` of Python 3.11; exception classes are matched by suffix).
    "BaseException",
    "BaseExceptionGroup",
    "Ellipsis",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "False",
    "IOError",
    "None",
    "NotImplemented",
    "True",
    "__build_class__",
    "__debug__",
    "__import__",
    // ... and the builtin functions: `pyvalue::BUILTIN_FUNCTIONS`.
];

/// Whether the official `eval` resolves `name` (a builtin exception or warning class
/// included: `ValueError`, `UserWarning`).
pub fn resolved_name(name: &str) -> bool {
    RESOLVED_NAMES.contains(&name)
        || pyvalue::BUILTIN_FUNCTIONS.contains(&name)
        || [
            "Error",
            "Exception",
            "Warning",
            "Exit",
            "Interrupt",
            "Iteration",
            "Iterator",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix) && name.starts_with(char::is_uppercase))
            && !name.contains('_')
}

/// Whether the official comparison of the cleaned text `cleaned` needs Python: its `eval`
/// may run code or compute a value that sebx's evaluator does not give (see the module
/// doc). The cleaned text is what [`super::clean_printed`] gives.
pub fn eval_needs_python(cleaned: &str) -> bool {
    pyvalue::evaluate(cleaned, EvalMode::Eval).is_err() && failure_needs_python(cleaned)
}

/// [`eval_needs_python`] for a text the evaluator failed on.
pub(super) fn failure_needs_python(cleaned: &str) -> bool {
    // `eval` strips leading spaces and tabs; the cleaned text has no other whitespace but
    // the space after each comma.
    let text = cleaned.trim_start_matches([' ', '\t']);
    let Ok(suite) = parse_suite(text) else {
        // A SyntaxError: eval compiles nothing and runs nothing.
        return false;
    };
    match suite.as_slice() {
        [ast::Stmt::Expr(statement)] => !raises_name_error(&statement.value),
        // An assignment, several statements: not an expression, a SyntaxError in eval.
        _ => false,
    }
}

/// Whether Python surely raises on `expr` without running anything of note: it holds only
/// plain values, arithmetic, comparisons and subscripts, no name Python resolves, and a
/// name (which Python does not know) that it always evaluates.
fn raises_name_error(expr: &ast::Expr) -> bool {
    let mut unknown_name_evaluated = false;
    // (node, evaluated whatever the values: not behind a comparison chain's first link)
    let mut stack = vec![(expr, true)];
    while let Some((e, always)) = stack.pop() {
        match e {
            ast::Expr::Constant(_) => {}
            ast::Expr::Name(n) => {
                if resolved_name(n.id.as_str()) {
                    return false;
                }
                unknown_name_evaluated |= always;
            }
            ast::Expr::UnaryOp(u) if !matches!(u.op, ast::UnaryOp::Not) => {
                stack.push((&u.operand, always));
            }
            ast::Expr::BinOp(b) if !matches!(b.op, ast::Operator::MatMult) => {
                stack.push((&b.left, always));
                stack.push((&b.right, always));
            }
            ast::Expr::Compare(c)
                if c.ops.iter().all(|op| {
                    matches!(
                        op,
                        ast::CmpOp::Eq
                            | ast::CmpOp::NotEq
                            | ast::CmpOp::Lt
                            | ast::CmpOp::LtE
                            | ast::CmpOp::Gt
                            | ast::CmpOp::GtE
                    )
                }) =>
            {
                stack.push((&c.left, always));
                for (k, operand) in c.comparators.iter().enumerate() {
                    stack.push((operand, always && k == 0));
                }
            }
            ast::Expr::Subscript(s) if !matches!(s.slice.as_ref(), ast::Expr::Slice(_)) => {
                stack.push((&s.value, always));
                stack.push((&s.slice, always));
            }
            ast::Expr::Tuple(t) => stack.extend(t.elts.iter().map(|x| (x, always))),
            ast::Expr::List(l) => stack.extend(l.elts.iter().map(|x| (x, always))),
            ast::Expr::Set(s) => stack.extend(s.elts.iter().map(|x| (x, always))),
            ast::Expr::Dict(d) if d.keys.iter().all(Option::is_some) => {
                stack.extend(d.keys.iter().flatten().map(|x| (x, always)));
                stack.extend(d.values.iter().map(|x| (x, always)));
            }
            // Starred items, attributes, calls, and everything the evaluator does not model.
            _ => return false,
        }
    }
    unknown_name_evaluated
}

thread_local! {
    /// Set when an `eval` of the comparison under way needs Python (read and reset by
    /// `judge::compare_printed_by`).
    static NEEDS_PYTHON: Cell<bool> = const { Cell::new(false) };
}

/// The official `eval(cleaned)` as far as sebx's evaluator gives it; an `Err` that Python
/// may not share is remembered for the comparison under way ([`take_needs_python`]).
pub(super) fn eval_cleaned(cleaned: &str) -> Result<PyValue, EvalError> {
    let value = pyvalue::evaluate(cleaned, EvalMode::Eval);
    if value.is_err() && !NEEDS_PYTHON.with(Cell::get) && failure_needs_python(cleaned) {
        NEEDS_PYTHON.with(|n| n.set(true));
    }
    value
}

/// Whether an `eval` since the last call needed Python; resets.
pub(super) fn take_needs_python() -> bool {
    NEEDS_PYTHON.with(|n| n.replace(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::compare::clean_printed;

    fn needs(printed: &str) -> bool {
        clean_printed(printed).is_some_and(|c| eval_needs_python(&c.text))
    }

    #[test]
    fn printed_code_needs_python() {
        for printed in [
            "np.sum([1, 2, 3])",
            "np.ones(3) * 2",
            "len([1, 2])",
            "__import__('sys')._getframe(2).f_locals['target_stdout']",
            "self._tolerance",
            "DEBUG",
            "cleaned",
            "ValueError",
            "'abc'.upper()",
            "().__class__",
            "[x for x in (1, 2)]",
            "(1)if(2)else(3)",
            "10**40",
            "[1]and[2]",
            "[*range(3)]",
            "np.isinf(np.inf)",
        ] {
            assert!(needs(printed), "{printed}");
        }
    }

    #[test]
    fn values_and_prose_keep_the_rust_path() {
        for printed in [
            "[1 2 3]",
            "array([1., 2.5])",
            "np.float64(3.5)",
            "[inf -inf nan]",
            "1+1",
            "'hello world'",
            "hello world",
            "Error: division failed",
            "Result is 5",
            "x = 5",
            "a; b",
            "n/a",
            "2024-01-05",
            "what?",
            "[1, 2, foo]",
            // The cleaning drops every `array`, so this is `np.([1, 2])*2`: a SyntaxError.
            "np.array([1, 2]) * 2",
            "{'a': 1}",
            "Mean: 2.5",
            "",
        ] {
            assert!(!needs(printed), "{printed}");
        }
    }

    #[test]
    fn a_name_behind_a_comparison_chain_may_not_run() {
        // `1 < 2` is evaluated first; Python only reaches `x` if it is true.
        assert!(needs("10**40<1<x"));
        assert!(!needs("10**40<x"));
    }

    #[test]
    fn the_flag_is_set_by_an_eval_that_needs_python() {
        let _ = take_needs_python();
        assert!(eval_cleaned("helloworld").is_err());
        assert!(!take_needs_python());
        assert!(eval_cleaned("len([1])").is_err());
        assert!(take_needs_python());
        assert!(!take_needs_python());
    }
}
