//! The official `judge`: the printed results split into pieces, and each expected piece
//! compared with the actual one (identical text first, then the tolerant comparison of the
//! parsed, normalised values, with the text as a fallback), under either official scorer's
//! [`Rule`]; and whether another machine could get the other outcome.

use serde::{Deserialize, Serialize};

use super::cleaning::{clean_printed, py_isspace, py_strip};
use super::code::{eval_cleaned, failure_needs_python, take_needs_python};
use super::deep_compare::{
    Ctx, Deep, HAIR, Mismatch, NEAR_TOLERANCE, Raised, deep_compare, short_number,
    within_hair_of_tolerance,
};
use super::normalize::normalize;
use crate::grade::pyvalue::{self, PyValue, repr};

/// Absolute tolerance of the official comparison.
pub const TOLERANCE: f64 = 1e-2;

/// Absolute tolerance of the official RL reward's comparison (`compare_stdout_outputs`
/// called without one: its default).
pub const REWARD_TOLERANCE: f64 = 1e-10;

/// Which official scorer's comparison of one expected and one actual piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The evaluation judge: `actual == expected or compare_stdout_outputs(actual,
    /// expected, 1e-2)`.
    Judge,
    /// The RL reward: `compare_stdout_outputs(expected, actual)` at its default tolerance
    /// 1e-10, the expected piece first, with no identical-text shortcut.
    Reward,
}

impl Rule {
    pub fn tolerance(self) -> f64 {
        match self {
            Rule::Judge => TOLERANCE,
            Rule::Reward => REWARD_TOLERANCE,
        }
    }

    /// What the deep comparison carries down under this rule.
    fn ctx(self) -> Ctx {
        Ctx {
            tolerance: self.tolerance(),
            expected_first: self == Rule::Reward,
        }
    }
}

/// The line the harness prints between the program's own output and the results.
pub const SEPARATOR: &str = "====================";

/// What decided a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// The two pieces are equal as strings.
    ExactText,
    /// The tolerant comparison of the parsed values.
    Tolerant,
    /// The comparison raised; the texts were compared with whitespace runs folded.
    TextFallback,
    /// The official checker's own code, run in the sandbox, because a printed text is code
    /// its `eval` runs (see [`Comparison::needs_python`] and `grade::judge_eval`).
    OfficialJudge,
    /// The official grader crashes before comparing (its normalisation recurses forever on
    /// a NumPy `longdouble`/`clongdouble` outside a dict); `judge` catches that and fails
    /// the rollout.
    Crashed,
}

/// Result of comparing one expected and one actual printed piece.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub matched: bool,
    /// The parsed values, rendered, for display.
    pub expected_value: String,
    pub actual_value: String,
    pub mismatch: Option<Mismatch>,
    pub decided_by: Decision,
    /// Quirks of the official cleaning that shaped this result (a label dropped before
    /// `:`, text that could not be read as a value), for the user.
    pub notes: Vec<String>,
    /// Why another machine could get the other outcome (float digits compared as text, a
    /// difference within a hair of the tolerance); `None` when the outcome is the
    /// rollout's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragile: Option<String>,
    /// An `eval` of this comparison may run code or compute otherwise than sebx's
    /// evaluator (`compare::eval_needs_python`): only the official checker, run in the
    /// sandbox, gives its outcome.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_python: bool,
}

/// The fragility reason of a comparison decided without running the printed code the
/// official `eval` runs (replaced by the official outcome once the checker has run).
pub const CODE_NOT_RUN: &str = "the official grader runs this printed text as Python code (eval); sebx did not run the official checker on it, so the official outcome may differ";

/// Per-case comparisons of a whole run: the verdict is `right` iff `all_matched`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputComparison {
    /// One entry per expected piece; `None` when the actual piece is missing.
    pub cases: Vec<Option<Comparison>>,
    pub all_matched: bool,
}

/// The actual pieces: the text after the last [`SEPARATOR`] (the whole text when there is
/// none, as `stdout.split(SEPARATOR)[-1]` gives), split on `#`, the last piece dropped,
/// each piece stripped.
pub fn split_actual(stdout: &str) -> Vec<String> {
    let tail = stdout
        .rsplit_once(SEPARATOR)
        .map_or(stdout, |(_, after)| after);
    let mut pieces: Vec<&str> = tail.split('#').collect();
    pieces.pop();
    pieces
        .into_iter()
        .map(|piece| py_strip(piece).to_owned())
        .collect()
}

/// The expected pieces: `right_exe_result` split on `#`, not stripped.
pub fn split_expected(right_exe_result: &str) -> Vec<String> {
    right_exe_result.split('#').map(str::to_owned).collect()
}

/// Compares every expected piece with the actual piece at the same index (extra actual
/// pieces are ignored; a missing one fails).
pub fn compare_outputs(right_exe_result: &str, stdout: &str) -> OutputComparison {
    let expected = split_expected(right_exe_result);
    let actual = split_actual(stdout);
    let cases: Vec<Option<Comparison>> = expected
        .iter()
        .enumerate()
        .map(|(i, exp)| actual.get(i).map(|act| compare_printed(exp, act)))
        .collect();
    let all_matched = cases
        .iter()
        .all(|case| case.as_ref().is_some_and(|c| c.matched));
    OutputComparison { cases, all_matched }
}

/// Compares one expected piece with one actual piece as the official grader does, and says
/// whether the outcome could differ on another machine (see [`Comparison::fragile`]).
///
/// Pass the pieces as [`split_expected`] and [`split_actual`] give them: the exact-text
/// check compares them unchanged.
pub fn compare_printed(expected: &str, actual: &str) -> Comparison {
    compare_printed_by(Rule::Judge, expected, actual)
}

/// [`compare_printed`] under either official scorer's [`Rule`].
pub fn compare_printed_by(rule: Rule, expected: &str, actual: &str) -> Comparison {
    NEAR_TOLERANCE.with(|near| near.set(false));
    let _ = take_needs_python();
    let mut comparison = compare_pieces(expected, actual, rule);
    let near_tolerance = NEAR_TOLERANCE.with(|near| near.replace(false));
    // The identical-text shortcut decides before any `eval` runs.
    comparison.needs_python = take_needs_python() && comparison.decided_by != Decision::ExactText;
    if comparison.needs_python {
        comparison.fragile = Some(CODE_NOT_RUN.to_owned());
        return comparison;
    }
    let deciding_difference = comparison
        .mismatch
        .as_ref()
        .and_then(|m| m.difference)
        .is_some_and(|d| within_hair_of_tolerance(d, 1.0, rule.tolerance()));
    comparison.fragile = if (comparison.matched && near_tolerance) || deciding_difference {
        Some(format!(
            "a number differs from the expected one by within a hair of the tolerance {}; another machine's last digits could flip it",
            short_number(rule.tolerance())
        ))
    } else {
        digit_fragility(expected, actual, &comparison, rule)
    };
    comparison
}

/// Whether an outcome decided on float digits compared as text could differ on a machine
/// whose BLAS/LAPACK kernels print other last digits.
fn digit_fragility(
    expected: &str,
    actual: &str,
    comparison: &Comparison,
    rule: Rule,
) -> Option<String> {
    let actual_floats = float_literals(actual);
    if actual_floats.is_empty() || comparison.decided_by == Decision::Crashed {
        return None;
    }
    if comparison.matched {
        // The same values with their last digit moved, as another machine might print them.
        let nudged = replace_floats(actual, &actual_floats, |x| {
            if x == 0.0 || !x.is_finite() {
                None
            } else {
                Some(pyvalue::float_repr(x.next_up()))
            }
        });
        if nudged == actual || compare_pieces(expected, &nudged, rule).matched {
            return None;
        }
        return Some(
            "matched only because the floating-point digits printed identically (compared as text); a machine whose BLAS/LAPACK prints other last digits gets result_error"
                .to_owned(),
        );
    }
    let expected_floats = float_literals(expected);
    if expected_floats.len() != actual_floats.len()
        || without_floats(expected, &expected_floats) != without_floats(actual, &actual_floats)
    {
        return None;
    }
    let close = expected_floats.iter().zip(&actual_floats).all(|(e, a)| {
        let (x, y) = (e.value, a.value);
        x == y || (x - y).abs() <= HAIR * TOLERANCE * x.abs().max(y.abs()).max(1.0)
    });
    (close && expected_floats != actual_floats).then(|| {
        "differs from the expected text only in the last floating-point digits (compared as text); a machine whose BLAS/LAPACK prints those digits as expected gets right"
            .to_owned()
    })
}

/// One float literal in printed text: its byte range and value.
#[derive(Debug, Clone, PartialEq)]
struct FloatLiteral {
    start: usize,
    end: usize,
    value: f64,
}

/// Float literals (`1.5`, `-0.25`, `2e-16`, `3.`) that stand alone, not inside a word.
fn float_literals(text: &str) -> Vec<FloatLiteral> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_number = bytes[i].is_ascii_digit()
            || (bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if !starts_number || after_word {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let mut is_float = false;
        if i < bytes.len() && bytes[i] == b'.' {
            is_float = true;
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            let mut j = i + 1;
            if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                j += 1;
            }
            if j < bytes.len() && bytes[j].is_ascii_digit() {
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
                is_float = true;
                i = j;
            }
        }
        let in_word = i < bytes.len() && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_');
        if is_float && !in_word {
            let negative = start > 0 && bytes[start - 1] == b'-';
            if let Ok(magnitude) = text[start..i].parse::<f64>() {
                out.push(FloatLiteral {
                    start: if negative { start - 1 } else { start },
                    end: i,
                    value: if negative { -magnitude } else { magnitude },
                });
            }
        }
    }
    out
}

/// `text` with each float literal replaced by `with(value)` (kept where it gives `None`).
fn replace_floats(
    text: &str,
    floats: &[FloatLiteral],
    with: impl Fn(f64) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len() + 8 * floats.len());
    let mut last = 0;
    for f in floats {
        out.push_str(&text[last..f.start]);
        match with(f.value) {
            Some(new) => out.push_str(&new),
            None => out.push_str(&text[f.start..f.end]),
        }
        last = f.end;
    }
    out.push_str(&text[last..]);
    out
}

/// `text` with every float literal replaced by one placeholder.
fn without_floats(text: &str, floats: &[FloatLiteral]) -> String {
    replace_floats(text, floats, |_| Some("\u{0}".to_owned()))
}

/// [`compare_printed_by`] without the fragility check. Under [`Rule::Judge`], the official
/// `judge`: a piece matches when `actual == expected` as strings (the actual piece is
/// stripped, the expected one is not), otherwise when the tolerant comparison says so.
/// Under [`Rule::Reward`], the RL reward's `compare_stdout_outputs(expected, actual)`: the
/// tolerant comparison alone, expected side first. `float()` of an integer beyond the float
/// range raises OverflowError in Python: outside the string re-parse branch that aborts the
/// comparison, and the two texts are compared with whitespace runs folded.
fn compare_pieces(expected: &str, actual: &str, rule: Rule) -> Comparison {
    let mut notes = Vec::new();
    let (actual_parsed, expected_parsed) = if rule == Rule::Reward {
        let expected_parsed = parse_printed_noted(expected, "expected", &mut notes);
        (
            parse_printed_noted(actual, "actual", &mut notes),
            expected_parsed,
        )
    } else {
        let actual_parsed = parse_printed_noted(actual, "actual", &mut notes);
        (
            actual_parsed,
            parse_printed_noted(expected, "expected", &mut notes),
        )
    };
    let actual_value = normalize(actual_parsed.clone());
    let expected_value = normalize(expected_parsed.clone());
    let rendered_expected = expected_value
        .as_ref()
        .map_or_else(|_| repr(&expected_parsed), repr);
    let rendered_actual = actual_value
        .as_ref()
        .map_or_else(|_| repr(&actual_parsed), repr);
    let comparison = |matched, mismatch, decided_by, notes| Comparison {
        matched,
        expected_value: rendered_expected.clone(),
        actual_value: rendered_actual.clone(),
        mismatch,
        decided_by,
        notes,
        fragile: None,
        needs_python: false,
    };
    if rule == Rule::Judge && actual == expected {
        return comparison(true, None, Decision::ExactText, Vec::new());
    }
    let (Ok(actual_value), Ok(expected_value)) = (actual_value, expected_value) else {
        let reason = "the official normalisation recurses forever on a NumPy longdouble \
                      (its .tolist() returns itself); the grader catches the crash and \
                      judges the rollout wrong"
            .to_owned();
        notes.push(reason.clone());
        let mismatch = Mismatch {
            path: String::new(),
            expected: rendered_expected.clone(),
            actual: rendered_actual.clone(),
            difference: None,
            reason,
        };
        return comparison(false, Some(mismatch), Decision::Crashed, notes);
    };
    let ctx = rule.ctx();
    let (a, b) = if ctx.expected_first {
        (&expected_value, &actual_value)
    } else {
        (&actual_value, &expected_value)
    };
    match deep_compare(a, b, "", 0, ctx) {
        Ok(Deep::Same) => comparison(true, None, Decision::Tolerant, notes),
        Ok(Deep::Differ(mismatch)) => comparison(false, Some(mismatch), Decision::Tolerant, notes),
        Err(Raised) => {
            let matched = fold_whitespace(actual) == fold_whitespace(expected);
            let mismatch = (!matched).then(|| Mismatch {
                path: String::new(),
                expected: fold_whitespace(expected),
                actual: fold_whitespace(actual),
                difference: None,
                reason: "the comparison raised (an integer too large for a float); the \
                         whitespace-folded texts differ"
                    .to_owned(),
            });
            notes.push(
                "the comparison raised (an integer too large for a float), so the texts \
                 were compared with whitespace folded"
                    .to_owned(),
            );
            comparison(matched, mismatch, Decision::TextFallback, notes)
        }
    }
}

/// `re.sub(r"\s+", " ", text.strip())`.
fn fold_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in py_strip(text).chars() {
        if py_isspace(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// The official `parse_stdout_output` of one side, noting for the user what the cleaning
/// dropped and why a text was compared as text.
fn parse_printed_noted(output: &str, side: &str, notes: &mut Vec<String>) -> PyValue {
    let Some(cleaned) = clean_printed(output) else {
        return PyValue::None;
    };
    if let Some(label) = &cleaned.dropped_label {
        notes.push(format!(
            "{side}: everything up to the first ':' was dropped ({})",
            pyvalue::str_repr(label.trim())
        ));
    }
    match eval_cleaned(&cleaned.text) {
        Ok(value) => value,
        Err(_) => {
            if failure_needs_python(&cleaned.text) {
                notes.push(format!(
                    "{side}: the official grader evaluates this printed text as Python code ({}); sebx's own comparison reads it as text",
                    pyvalue::str_repr(&cleaned.text)
                ));
            } else {
                notes.push(format!(
                    "{side}: not a Python value after cleaning; compared as the text {}",
                    pyvalue::str_repr(&cleaned.text)
                ));
            }
            PyValue::Str(cleaned.text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(expected: &str, actual: &str) -> bool {
        compare_printed(expected, actual).matched
    }

    fn mismatch(expected: &str, actual: &str) -> Mismatch {
        compare_printed(expected, actual)
            .mismatch
            .expect("the pieces should differ")
    }

    #[test]
    fn splits_actual_after_last_separator() {
        let stdout =
            "noise\n====================\nold\n#\n====================\n[1 2]\n#\n 3 \n#\n";
        assert_eq!(split_actual(stdout), vec!["[1 2]", "3"]);
        // No separator: the whole text is taken, as `split(SEP)[-1]` does.
        assert_eq!(split_actual("debug: called\n"), Vec::<String>::new());
        assert_eq!(split_actual("a#b#"), vec!["a", "b"]);
        // A printed '#' shifts the pieces.
        assert_eq!(
            split_actual("====================\nx#y\n#\n"),
            vec!["x", "y"]
        );
        assert_eq!(split_actual(""), Vec::<String>::new());
    }

    #[test]
    fn splits_expected_without_stripping() {
        assert_eq!(split_expected("[1, 2]# 3 #x"), vec!["[1, 2]", " 3 ", "x"]);
        assert_eq!(split_expected(""), vec![""]);
    }

    #[test]
    fn compare_outputs_requires_every_expected_piece() {
        let right = compare_outputs("[1, 2]#3", "====================\n[1 2]\n#\n3.001\n#\n");
        assert!(right.all_matched);
        let missing = compare_outputs("[1, 2]#3", "====================\n[1 2]\n#\n");
        assert!(!missing.all_matched);
        assert!(missing.cases[1].is_none());
        // Extra actual pieces are ignored.
        let extra = compare_outputs("5", "====================\n5\n#\n6\n#\n");
        assert!(extra.all_matched);
    }

    #[test]
    fn exact_text_is_decided_first() {
        let comparison = compare_printed("hello world", "hello world");
        assert!(comparison.matched);
        assert_eq!(comparison.decided_by, Decision::ExactText);
        // The expected piece is not stripped, so surrounding whitespace goes to the
        // tolerant path, which strips.
        let comparison = compare_printed("\nhello\n", "hello");
        assert!(comparison.matched);
        assert_eq!(comparison.decided_by, Decision::Tolerant);
    }

    #[test]
    fn tolerance_is_absolute_one_hundredth() {
        assert!(matches("3.567", "3.568"));
        assert!(matches("[1.0, 2.0]", "[1.005 2.0]"));
        // 1.01 - 1.0 is 0.010000000000000009 in floating point: just over.
        assert!(!matches("[1.0, 2.0]", "[1.01 2.0]"));
        assert!(!matches("[1.0, 2.0]", "[1.02 2.0]"));
        assert!(matches("1000000", "1000000.005"));
        assert!(!matches("0.001", "0.02"));
    }

    #[test]
    fn numpy_prints_become_lists() {
        assert!(matches("[12, 14, 120, 16]", "[ 12  14 120  16]"));
        assert!(matches("[150.0, 110.00000000000001]", "[150. 110.]"));
        assert!(matches("[[1, 2], [3, 4]]", "[[1 2]\n [3 4]]"));
        assert!(matches("[1, 2, 3]", "array([1, 2, 3])"));
        assert!(matches("[1, 2, 3]", "ZWCArray([1, 2, 3])"));
        assert!(matches("[[1], [2], [3]]", "[[1]\n [2]\n [3]]"));
        assert!(matches("[True, False, True]", "[ True False  True]"));
        assert!(matches("[1.0, 2.5, 4.0]", "array([1. , 2.5, 4. ])"));
        assert!(matches(
            "[[1, 2], [3, 4]]",
            "array([[1, 2],\n       [3, 4]])"
        ));
    }

    #[test]
    fn empty_array_forms_are_empty_lists() {
        assert!(matches("[]", "array([], dtype=float64)"));
        assert!(matches("[]", "array([], shape=(0, 3), dtype=int64)"));
        assert!(matches("[]", "ZWCArray([])"));
        assert!(matches("[]", "MyArray([ ])"));
        assert!(!matches("[]", "[0]"));
    }

    #[test]
    fn first_colon_drops_labels_and_mangles_dicts() {
        assert!(matches(
            "Frequencies: [3 3 1]",
            "Frequencies: array([3, 3, 1])"
        ));
        // The label itself is never compared.
        assert!(matches("Mean: 2.5", "Average: 2.5"));
        // A dict keeps only what follows its first ':' and is compared as text: the first
        // value is dropped, so a wrong first value still matches ...
        assert!(matches("{'a': 1, 'b': 2}", "{'a': 100, 'b': 2}"));
        // ... and the string re-parse drops one more ':' per round, so finally only the
        // text after the last ':' is compared, exactly (the '}' keeps it from evaluating).
        assert!(!matches("{'a': 1, 'b': 2.0}", "{'a': 1, 'b': 2.001}"));
        assert!(!matches("{'a': 1, 'b': 2}", "{'a': 1, 'b': 3}"));
        let comparison = compare_printed("Total: 5", "Total: 6");
        assert!(comparison.notes.iter().any(|n| n.contains("'Total:'")));
    }

    #[test]
    fn labelled_dict_survives_as_a_dict() {
        // With a label before it, the dict's own colons survive and it evaluates.
        assert!(matches("r: {'a': 1, 'b': 2}", "r: {'b': 2.001, 'a': 1}"));
        let found = mismatch("r: {'a': 1, 'b': 2}", "r: {'a': 1, 'b': 2.5}");
        assert_eq!(found.path, "['b']");
        assert_eq!(found.difference, Some(0.5));
        let keys = mismatch("r: {'a': 1, 'b': 2}", "r: {'a': 1, 'c': 2}");
        assert!(keys.reason.contains("missing 'b'"), "{}", keys.reason);
        assert!(keys.reason.contains("unexpected 'c'"), "{}", keys.reason);
    }

    #[test]
    fn literals_of_every_kind() {
        assert!(matches("None", "None"));
        assert!(matches("'abc'", "'abc'"));
        assert!(matches("(1, 2)", "[1, 2]"));
        assert!(matches("{1, 2}", "{2, 1}"));
        assert!(!matches("{1, 2}", "{1, 3}"));
        assert!(matches("(1+2j)", "(1+2j)"));
        // Complex numbers are not "numbers" for the tolerance: only exact equality.
        assert!(!matches("(1+2j)", "(1.001+2j)"));
        assert!(matches("b'ab'", "b'ab'"));
        assert!(matches("1e-09", "0.0"));
    }

    #[test]
    fn numpy_scalar_reprs_are_numbers() {
        assert!(matches("3.5", "np.float64(3.5)"));
        assert!(matches(
            "[3.33, 3.33]",
            "[np.float64(3.33), np.float64(3.331)]"
        ));
        assert!(matches("3", "np.int64(3)"));
        assert!(matches("True", "np.True_"));
        assert!(matches("1", "np.True_"));
        assert!(matches("nan", "np.float64(nan)"));
        // A np.str_ whose text is not a literal stays np.str_ and differs in type.
        let found = mismatch("'x'", "np.str_('x')");
        assert!(found.reason.contains("numpy.str_"), "{}", found.reason);
        // ... but one holding a number literal is re-read as that number.
        assert!(matches("5", "np.str_('5')"));
    }

    #[test]
    fn strings_holding_literals_are_reread() {
        // normalize re-reads strings with literal_eval: '5' is the number 5.
        assert!(matches("5", "'5'"));
        assert!(matches("[1, 2]", "['1', '2.001']"));
        assert!(matches("[1, 2]", "'[1 2]'"));
        assert!(!matches("'abc'", "'abd'"));
    }

    #[test]
    fn singleton_lists_unwrap_repeatedly() {
        assert!(matches("5", "[[5]]"));
        assert!(matches("[[[5.0]]]", "5.001"));
        assert!(matches("(7,)", "7"));
        assert!(!matches("[5, 5]", "5"));
    }

    #[test]
    fn bools_count_as_zero_and_one() {
        assert!(matches("True", "1"));
        assert!(matches("[False, True]", "[0, 1.0]"));
        assert!(!matches("True", "0"));
    }

    #[test]
    fn infinities_and_nan() {
        assert!(matches("inf", "inf"));
        assert!(matches("[inf, -inf, nan]", "[ inf -inf  nan]"));
        assert!(!matches("inf", "-inf"));
        assert!(!matches("inf", "1e308"));
        assert!(matches("nan", "nan"));
        assert!(!matches("nan", "0.0"));
        let found = mismatch("nan", "1.5");
        assert!(found.reason.contains("NaN"), "{}", found.reason);
        let found = mismatch("inf", "2.0");
        assert!(found.reason.contains("infinity"), "{}", found.reason);
    }

    #[test]
    fn type_mismatches() {
        let found = mismatch("[1, 2]", "3");
        assert_eq!(found.reason, "list vs number");
        let found = mismatch("abc", "3");
        assert_eq!(found.reason, "text vs number");
        let found = mismatch("", "3");
        assert_eq!(found.reason, "no value vs number");
        assert!(matches("", "  "));
        // Unreadable text compares as cleaned text.
        assert!(matches("hello world", "hello  world"));
        assert!(!matches("hello", "world"));
    }

    #[test]
    fn mismatch_reports_path_and_difference() {
        let found = mismatch("[1.0, 2.0, 7.0]", "[1.0 2.0 7.14]");
        assert_eq!(found.path, "[2]");
        assert_eq!(found.expected, "7.0");
        assert_eq!(found.actual, "7.14");
        let difference = found.difference.expect("numbers have a difference");
        assert!((difference - 0.14).abs() < 1e-9);
        assert_eq!(found.reason, "|7 - 7.14| = 0.14 > tolerance 0.01");

        let nested = mismatch("[[1, 2], [3, 4]]", "[[1 2]\n [3.5 4]]");
        assert_eq!(nested.path, "[1][0]");
        assert_eq!(nested.expected, "3");
        assert_eq!(nested.actual, "3.5");

        let length = mismatch("[1, 2, 3]", "[1 2 3 4]");
        assert_eq!(length.path, "");
        assert_eq!(length.reason, "length 3 vs 4");

        let comparison = compare_printed("[1, 2]", "[1 3]");
        assert_eq!(comparison.expected_value, "[1, 2]");
        assert_eq!(comparison.actual_value, "[1, 3]");
    }

    #[test]
    fn huge_integers_fall_back_to_folded_text() {
        let huge = "1".repeat(400);
        // float(huge) overflows: the comparison raises and the texts decide.
        let same = compare_printed(&format!("[{huge}]"), &format!("[ {huge} ]"));
        assert_eq!(same.decided_by, Decision::TextFallback);
        // Whitespace-folded texts differ ('[1' vs '[ 1'), so no match.
        assert!(!same.matched);
        let folded = compare_printed(&format!("{huge}\n"), &format!(" {huge}"));
        assert_eq!(folded.decided_by, Decision::TextFallback);
        assert!(folded.matched);
        // Big ints that fit a float compare with tolerance as usual.
        assert!(matches(
            "123456789012345678901234567890123456789012",
            "123456789012345678901234567890123456789012.0"
        ));
    }

    #[test]
    fn colon_chains_are_followed_to_the_recursion_limit() {
        // Each string re-parse drops one more ':'; texts that differ only before the last
        // colon become equal after enough rounds, if Python's recursion limit allows.
        let chain = |prefix: &str, colons: usize| {
            let mut text = String::new();
            for i in 0..colons {
                text.push_str(&format!("{prefix}{i}:"));
            }
            text.push_str("end");
            text
        };
        assert!(matches(&chain("a", 20), &chain("b", 20)));
        assert!(matches(&chain("a", 991), &chain("b", 991)));
        assert!(!matches(&chain("a", 992), &chain("b", 992)));
    }

    #[test]
    fn strings_with_inf_recurse_until_the_limit() {
        // 'info' never settles under the rewrite; equal texts still match, different don't.
        assert!(matches("['information']", "['information']  "));
        assert!(!matches("'info'", "'infx'"));
        assert!(matches("infinity", "infinity"));
    }

    #[test]
    fn whitespace_is_python_whitespace() {
        assert!(py_isspace('\x1c'));
        assert!(py_isspace('\u{a0}'));
        assert_eq!(py_strip("\x1f 5 \u{3000}"), "5");
        assert_eq!(fold_whitespace("  a \n\t b  "), "a b");
    }
}
