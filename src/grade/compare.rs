//! Step 7 of GRADER.md: splitting the printed results and the official tolerant comparison,
//! quirks included: `judge` ([`compare_printed`]), `parse_stdout_output`
//! ([`clean_printed`], [`parse_printed`]), `normalize_data_structure` ([`normalize`]) and
//! `deep_compare`, each documented where it is reproduced. Checked against the official code
//! on the parity corpus (`tests/compare_parity.rs`) and, during development, on about 31,000
//! generated pairs (NumPy prints, nested Python values, random token soup): no disagreement.

use serde::{Deserialize, Serialize};

use super::pyvalue::{self, EvalMode, NpFloatKind, PyType, PyValue, dict_get, py_eq, repr};

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
}

/// What the deep comparison carries down: the tolerance, and whether the official call
/// passed the expected value first (`a`) or second (`b`).
#[derive(Debug, Clone, Copy)]
struct Ctx {
    tolerance: f64,
    expected_first: bool,
}

impl Ctx {
    fn of(rule: Rule) -> Ctx {
        Ctx {
            tolerance: rule.tolerance(),
            expected_first: rule == Rule::Reward,
        }
    }

    /// `(expected, actual)` of the official `deep_compare(a, b)`'s two sides.
    fn sides<'v>(self, a: &'v PyValue, b: &'v PyValue) -> (&'v PyValue, &'v PyValue) {
        if self.expected_first { (a, b) } else { (b, a) }
    }
}

/// The line the harness prints between the program's own output and the results.
pub const SEPARATOR: &str = "====================";

/// How many nested string re-parses Python's default recursion limit (1000) allows. Only
/// texts with more `:` than this (each round drops one) reach it; measured with the
/// official code under a shallow caller (991 colons still compare, 992 do not), so a
/// deeper official call stack could lower it by a few.
pub const STRING_REPARSE_LIMIT: usize = 990;

/// Where and why two printed values differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Path into the (normalised) value, e.g. `[1][0]` or `['key']` (empty for the whole
    /// value). Singleton lists are unwrapped on the way, as the comparison does.
    pub path: String,
    /// The differing parts, as Python reprs.
    pub expected: String,
    pub actual: String,
    /// Absolute difference, when both are numbers.
    pub difference: Option<f64>,
    /// A sentence for the user, expected side first, e.g.
    /// `|7.0 - 7.14| = 0.14 > tolerance 0.01` or `length 3 vs 4`.
    pub reason: String,
}

/// What decided a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// The two pieces are equal as strings.
    ExactText,
    /// The tolerant comparison of the parsed values.
    Tolerant,
    /// The comparison raised; the texts were compared with whitespace runs folded.
    TextFallback,
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
}

/// Per-case comparisons of a whole run: the verdict is `right` iff `all_matched`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputComparison {
    /// One entry per expected piece; `None` when the actual piece is missing.
    pub cases: Vec<Option<Comparison>>,
    pub all_matched: bool,
}

/// Python's `str.isspace` for one character (also what `re`'s `\s` matches).
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
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
    RAN_CODE.with(|ran| ran.set(false));
    let mut comparison = compare_pieces(expected, actual, rule);
    let near_tolerance = NEAR_TOLERANCE.with(|near| near.replace(false));
    if RAN_CODE.with(|ran| ran.replace(false)) && comparison.decided_by != Decision::ExactText {
        comparison.fragile = Some(
            "the official grader runs this printed text as Python code (eval); sebx does not, so the official outcome may differ"
                .to_owned(),
        );
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

thread_local! {
    /// Set by [`compare_numbers`] when a compared difference was within a hair of the
    /// tolerance (read and reset by [`compare_printed`]).
    static NEAR_TOLERANCE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set when the official `eval` would have run a printed text as code (read and reset
    /// by [`compare_printed`]).
    static RAN_CODE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How close to the tolerance a difference must be for the last printed digits to decide
/// it, relative to the tolerance and to the numbers compared: far wider than any BLAS's
/// rounding and far narrower than a real error (1e-9 at the judge's 1e-2); never narrower
/// than a few units in the last place of the numbers.
const HAIR: f64 = 1e-7;

fn within_hair_of_tolerance(difference: f64, scale: f64, tolerance: f64) -> bool {
    let hair = (HAIR * tolerance).max(64.0 * f64::EPSILON);
    (difference - tolerance).abs() <= hair * scale.max(1.0)
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
    let ctx = Ctx::of(rule);
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

// ---------------------------------------------------------------------------------------
// Text cleaning (parse_stdout_output)

/// The cleaned text of one printed value, before evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanedText {
    /// The text handed to `eval`.
    pub text: String,
    /// What the first-`:` rule dropped (including the `:`), if anything.
    pub dropped_label: Option<String>,
}

/// Cleans printed text exactly as the official `parse_stdout_output` does before `eval`;
/// `None` for blank text (no value). In order: strip; empty-array reprs → `[]`; multi-line
/// text joined with commas; every `array` → a space; spaces → commas inside innermost
/// brackets of number-like characters; every `ZWCArray` → a space; everything up to the
/// first `:` dropped; all whitespace removed and `,` → `, `; every `inf` / `nan` substring
/// (inside words and string literals too) → `float("inf")` / `float("nan")`.
pub fn clean_printed(output: &str) -> Option<CleanedText> {
    let stripped = py_strip(output);
    if stripped.is_empty() {
        return None;
    }
    let text = replace_empty_arrays(stripped);
    let text = join_multiline(&text);
    let text = rewrite_numpy_arrays(&text);
    let text = text.replace("ZWCArray", " ");
    let (text, dropped_label) = match text.find(':') {
        Some(index) => (
            py_strip(&text[index + 1..]).to_owned(),
            Some(text[..=index].to_owned()),
        ),
        None => (text, None),
    };
    let text: String = text.chars().filter(|c| !py_isspace(*c)).collect();
    let text = rewrite_inf_nan(&text.replace(',', ", "));
    Some(CleanedText {
        text,
        dropped_label,
    })
}

/// `.replace("inf", 'float("inf")').replace("nan", 'float("nan")')`
fn rewrite_inf_nan(text: &str) -> String {
    text.replace("inf", "float(\"inf\")")
        .replace("nan", "float(\"nan\")")
}

/// The official `parse_stdout_output`: no value for blank text, else the evaluated cleaned
/// text, or the cleaned text itself when it does not evaluate.
pub fn parse_printed(output: &str) -> PyValue {
    match clean_printed(output) {
        None => PyValue::None,
        Some(cleaned) => {
            pyvalue::evaluate(&cleaned.text, EvalMode::Eval).unwrap_or(PyValue::Str(cleaned.text))
        }
    }
}

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
    match pyvalue::evaluate(&cleaned.text, EvalMode::Eval) {
        Ok(value) => value,
        Err(_) => {
            if pyvalue::runs_code(&cleaned.text) {
                // Never run here; the official `eval` would have.
                notes.push(format!(
                    "{side}: the official grader evaluates this printed text as Python code ({}); sebx does not run code from a program's output and compared it as text",
                    pyvalue::str_repr(&cleaned.text)
                ));
                RAN_CODE.with(|ran| ran.set(true));
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

/// Python's `\w` for one character.
fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python's `\d` (Unicode decimal digits; non-ASCII numerics approximate category Nd).
fn is_decimal_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// A cursor for the few fixed regular expressions of the cleaning steps.
struct Cursor<'a> {
    chars: &'a [char],
    pos: usize,
}

impl Cursor<'_> {
    fn literal(&mut self, text: &str) -> Option<()> {
        for expected in text.chars() {
            if self.chars.get(self.pos) != Some(&expected) {
                return None;
            }
            self.pos += 1;
        }
        Some(())
    }

    /// `\s*`
    fn spaces(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| py_isspace(*c)) {
            self.pos += 1;
        }
    }

    /// `[\w']+`
    fn dtype_name(&mut self) -> Option<()> {
        let start = self.pos;
        while self
            .chars
            .get(self.pos)
            .is_some_and(|c| is_word_char(*c) || *c == '\'')
        {
            self.pos += 1;
        }
        (self.pos > start).then_some(())
    }

    /// `[^)]*`
    fn until_close_paren(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| *c != ')') {
            self.pos += 1;
        }
    }

    /// `\(\s*\[\s*\]` — the opening of an empty array repr.
    fn empty_brackets(&mut self) -> Option<()> {
        self.literal("(")?;
        self.spaces();
        self.literal("[")?;
        self.spaces();
        self.literal("]")
    }
}

/// `array\(\s*\[\s*\],\s*dtype=[\w\']+\s*\)`
fn match_empty_dtype(chars: &[char], start: usize) -> Option<usize> {
    let mut cursor = Cursor { chars, pos: start };
    cursor.literal("array")?;
    cursor.empty_brackets()?;
    cursor.literal(",")?;
    cursor.spaces();
    cursor.literal("dtype=")?;
    cursor.dtype_name()?;
    cursor.spaces();
    cursor.literal(")")?;
    Some(cursor.pos)
}

/// `array\(\s*\[\s*\],\s*shape=\([^)]*\),\s*dtype=[\w\']+\s*\)`
fn match_empty_shape(chars: &[char], start: usize) -> Option<usize> {
    let mut cursor = Cursor { chars, pos: start };
    cursor.literal("array")?;
    cursor.empty_brackets()?;
    cursor.literal(",")?;
    cursor.spaces();
    cursor.literal("shape=(")?;
    cursor.until_close_paren();
    cursor.literal("),")?;
    cursor.spaces();
    cursor.literal("dtype=")?;
    cursor.dtype_name()?;
    cursor.spaces();
    cursor.literal(")")?;
    Some(cursor.pos)
}

/// `ZWCArray\(\s*\[\s*\]\s*\)`
fn match_empty_zwc(chars: &[char], start: usize) -> Option<usize> {
    let mut cursor = Cursor { chars, pos: start };
    cursor.literal("ZWCArray")?;
    cursor.empty_brackets()?;
    cursor.spaces();
    cursor.literal(")")?;
    Some(cursor.pos)
}

/// `\w+Array\(\s*\[\s*\]\s*\)`. The `Array` must end the run of word characters (a `(`
/// follows it), so a match exists from a position iff the run from there to its end is
/// longer than `Array` and ends with it.
fn match_empty_any_array(chars: &[char], start: usize) -> Option<usize> {
    let mut run_end = start;
    while chars.get(run_end).is_some_and(|c| is_word_char(*c)) {
        run_end += 1;
    }
    if run_end < start + 6 {
        return None;
    }
    let mut cursor = Cursor {
        chars,
        pos: run_end - 5,
    };
    cursor.literal("Array")?;
    cursor.empty_brackets()?;
    cursor.spaces();
    cursor.literal(")")?;
    Some(cursor.pos)
}

/// `re.sub(pattern, replacement, text)` for a pattern given as a matcher.
fn substitute(
    text: &str,
    matcher: fn(&[char], usize) -> Option<usize>,
    first_char: char,
    replacement: &str,
) -> String {
    if !text.contains(first_char) && first_char != '\0' {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let candidate = first_char == '\0' || chars[i] == first_char;
        match candidate.then(|| matcher(&chars, i)).flatten() {
            Some(end) => {
                out.push_str(replacement);
                i = end;
            }
            None => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}

/// `process_empty_arrays`.
fn replace_empty_arrays(text: &str) -> String {
    if !text.contains("rray") {
        return text.to_owned();
    }
    let text = substitute(text, match_empty_dtype, 'a', "[]");
    let text = substitute(&text, match_empty_shape, 'a', "[]");
    let text = substitute(&text, match_empty_zwc, 'Z', "[]");
    // `\w+Array`: try only at word starts and skip whole runs that fail (see the matcher).
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if !is_word_char(chars[i]) {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        if let Some(end) = match_empty_any_array(&chars, i) {
            out.push_str("[]");
            i = end;
            continue;
        }
        while i < chars.len() && is_word_char(chars[i]) {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// `process_multiline_arrays`: non-empty stripped lines, each ending in a comma, joined by
/// spaces.
fn join_multiline(text: &str) -> String {
    if !text.contains('\n') {
        return text.to_owned();
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(py_strip)
        .filter(|line| !line.is_empty())
        .map(|line| {
            if line.ends_with(',') {
                line.to_owned()
            } else {
                format!("{line},")
            }
        })
        .collect();
    lines.join(" ")
}

/// The character class `[\d\s\.eE+\-infnanTrueFalsej\(\)]` of the bracket rewrite.
fn is_number_like(c: char) -> bool {
    is_decimal_digit(c)
        || py_isspace(c)
        || matches!(
            c,
            '.' | 'e'
                | 'E'
                | '+'
                | '-'
                | 'i'
                | 'n'
                | 'f'
                | 'a'
                | 'T'
                | 'r'
                | 'u'
                | 'F'
                | 'l'
                | 's'
                | 'j'
                | '('
                | ')'
        )
}

/// `process_numpy_arrays`: every `array` becomes a space, then inside innermost brackets
/// holding only number-like characters the whitespace-separated items are joined by `, `.
fn rewrite_numpy_arrays(text: &str) -> String {
    let text = text.replace("array", " ");
    if !text.contains('[') {
        return text;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '[' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while end < chars.len() && is_number_like(chars[end]) {
            end += 1;
        }
        if end > i + 1 && chars.get(end) == Some(&']') {
            let content: String = chars[i + 1..end].iter().collect();
            let items: Vec<&str> = content
                .split(py_isspace)
                .filter(|s| !s.is_empty())
                .collect();
            if items.is_empty() {
                out.push('[');
                out.push_str(&content);
                out.push(']');
            } else {
                out.push('[');
                out.push_str(&items.join(", "));
                out.push(']');
            }
            i = end + 1;
        } else {
            out.push('[');
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Normalisation (normalize_data_structure)

/// The official normalisation crashed (endless `.tolist()` recursion on a longdouble).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NormalizeCrash;

/// The official normalisation: strings re-read with `ast.literal_eval` after the array
/// rewrites (recursively normalised when that works: `'5'` becomes `5`), tuples → lists
/// (recursively), NumPy scalars and arrays → Python values; dicts, sets and everything else
/// unchanged, so their values keep tuples and NumPy scalars, and a `np.str_` whose text is
/// not a literal stays a `np.str_`. `np.longdouble`/`np.clongdouble` outside a dict: their
/// `.tolist()` returns themselves, the official code recurses until RecursionError and
/// `judge` fails the rollout ([`NormalizeCrash`]). `np.float64([1, 2])` is an `ndarray`:
/// normalised to a list, but inside a dict `array == array` has no truth value and the
/// comparison raises.
pub fn normalize(value: PyValue) -> Result<PyValue, NormalizeCrash> {
    Ok(match value {
        PyValue::Str(ref text) | PyValue::NpStr(ref text) => {
            let processed = join_multiline(text);
            let processed = rewrite_numpy_arrays(&processed);
            let processed = processed.replace("ZWCArray", " ");
            // literal_eval yields only builtin values, whose normalisation cannot crash.
            match pyvalue::evaluate(&processed, EvalMode::Literal) {
                Ok(reparsed) => normalize(reparsed).unwrap_or(value),
                Err(_) => value,
            }
        }
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::NpArray(items) => {
            PyValue::List(items.into_iter().map(normalize).collect::<Result<_, _>>()?)
        }
        PyValue::NpFloat(NpFloatKind::LongDouble, _) | PyValue::NpCLongDouble(..) => {
            return Err(NormalizeCrash);
        }
        PyValue::NpFloat(_, x) => PyValue::Float(x),
        PyValue::NpInt(_, i) => PyValue::Int(i),
        PyValue::NpBool(b) => PyValue::Bool(b),
        PyValue::NpComplex(re, im) => PyValue::Complex(re, im),
        PyValue::NpBytes(b) => PyValue::Bytes(b),
        other => other,
    })
}

// ---------------------------------------------------------------------------------------
// Deep comparison

/// An exception escaped the comparison (Python's OverflowError on `float(huge_int)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Raised;

enum Deep {
    Same,
    Differ(Mismatch),
}

/// `_unwrap_single_element`: lists, tuples and arrays of one element, repeatedly.
fn unwrap_single(mut value: &PyValue) -> &PyValue {
    loop {
        match value {
            PyValue::List(items) | PyValue::Tuple(items) | PyValue::NpArray(items)
                if items.len() == 1 =>
            {
                value = &items[0];
            }
            _ => return value,
        }
    }
}

fn type_name(value: &PyValue) -> String {
    match value.py_type() {
        PyType::None => "NoneType".to_owned(),
        PyType::Ellipsis => "ellipsis".to_owned(),
        PyType::Bool => "bool".to_owned(),
        PyType::Int => "int".to_owned(),
        PyType::Float => "float".to_owned(),
        PyType::Complex => "complex".to_owned(),
        PyType::Str => "str".to_owned(),
        PyType::Bytes => "bytes".to_owned(),
        PyType::List => "list".to_owned(),
        PyType::Tuple => "tuple".to_owned(),
        PyType::Dict => "dict".to_owned(),
        PyType::Set => "set".to_owned(),
        PyType::NpBool => "numpy.bool".to_owned(),
        PyType::NpStr => "numpy.str_".to_owned(),
        PyType::NpBytes => "numpy.bytes_".to_owned(),
        PyType::NpComplex => "numpy.complex128".to_owned(),
        PyType::NpCLongDouble => "numpy.clongdouble".to_owned(),
        PyType::NpArray => "numpy.ndarray".to_owned(),
        PyType::NpFloat(_) | PyType::NpInt(_) => {
            // The repr starts with `np.<type>(`.
            let rendered = repr(value);
            let name = rendered
                .trim_start_matches("np.")
                .split('(')
                .next()
                .unwrap_or("")
                .to_owned();
            format!("numpy.{name}")
        }
        PyType::Builtin => "builtin".to_owned(),
    }
}

/// A number for messages: up to 6 significant digits, scientific when tiny or huge.
fn short_number(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return pyvalue::float_repr(x);
    }
    let magnitude = x.abs();
    if (1e-4..1e9).contains(&magnitude) {
        let digits_before_point = magnitude.log10().floor() as i32 + 1;
        let decimals = (6 - digits_before_point).clamp(0, 10) as usize;
        let text = format!("{x:.decimals$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            text
        }
    } else {
        format!("{x:.4e}")
    }
}

/// A mismatch at `path` between the official `deep_compare`'s sides `a` and `b`; `reason`
/// gets the expected and the actual value, in that order.
fn differ(
    ctx: Ctx,
    path: &str,
    a: &PyValue,
    b: &PyValue,
    reason: impl FnOnce(&PyValue, &PyValue) -> String,
) -> Deep {
    let (expected, actual) = ctx.sides(a, b);
    let reason = reason(expected, actual);
    Deep::Differ(Mismatch {
        path: path.to_owned(),
        expected: repr(expected),
        actual: repr(actual),
        difference: None,
        reason,
    })
}

/// The official `deep_compare(a, b)`: for the judge `a` is the actual value and `b` the
/// expected one, for the RL reward the other way round ([`Ctx::sides`]). The sides matter
/// where Python's evaluation order does: which dict's keys are iterated, which string is
/// re-parsed first.
/// Singleton lists/tuples are unwrapped repeatedly; `None` equals only `None`; different
/// exact types match only when both are real numbers (int, float, bool, NumPy int/float;
/// not `np.bool_`, not complex) or both lists/tuples; numbers match when both are the same
/// infinity, both NaN, or `abs(float(a) - float(b)) <= 1e-2`; two strings are re-parsed
/// with the full pipeline and compared again if either changed, else exactly; lists by
/// length and items; dicts by key set and values; anything else by `==`.
///
/// A string whose re-parse never settles (`inf`/`nan`, which the rewrite grows every time)
/// recurses in Python until the recursion limit, which the string branch catches and
/// answers with `a == b` (an OverflowError there is caught too). Once a round only grows
/// the texts by that rewrite, every later round keeps equal texts equal and different ones
/// different, so the recursion is cut short with the same answer; `depth` counts nested
/// re-parses, and a chain of `:` drops is followed up to [`STRING_REPARSE_LIMIT`].
fn deep_compare(
    a: &PyValue,
    b: &PyValue,
    path: &str,
    depth: usize,
    ctx: Ctx,
) -> Result<Deep, Raised> {
    let a = unwrap_single(a);
    let b = unwrap_single(b);
    if matches!(a, PyValue::None) || matches!(b, PyValue::None) {
        return Ok(if py_eq(a, b) {
            Deep::Same
        } else {
            differ(ctx, path, a, b, |e, x| {
                format!("{} vs {}", e.kind_name(), x.kind_name())
            })
        });
    }
    if a.py_type() != b.py_type() {
        let both_numbers = a.is_real_number() && b.is_real_number();
        let both_sequences = a.as_sequence().is_some() && b.as_sequence().is_some();
        if !both_numbers && !both_sequences {
            return Ok(differ(ctx, path, a, b, |e, x| {
                if e.kind_name() == x.kind_name() {
                    format!(
                        "type {} vs {} (the official check requires the same type)",
                        type_name(e),
                        type_name(x)
                    )
                } else {
                    format!("{} vs {}", e.kind_name(), x.kind_name())
                }
            }));
        }
    }
    if a.is_real_number() && b.is_real_number() {
        return compare_numbers(a, b, path, ctx);
    }
    if let (Some(text_a), Some(text_b)) = (a.as_str(), b.as_str()) {
        return Ok(compare_strings(a, b, text_a, text_b, path, depth, ctx));
    }
    if let (Some(items_a), Some(items_b)) = (a.as_sequence(), b.as_sequence()) {
        if items_a.len() != items_b.len() {
            return Ok(differ(ctx, path, a, b, |e, x| {
                format!(
                    "length {} vs {}",
                    e.as_sequence().map_or(0, <[PyValue]>::len),
                    x.as_sequence().map_or(0, <[PyValue]>::len)
                )
            }));
        }
        for (i, (item_a, item_b)) in items_a.iter().zip(items_b).enumerate() {
            let item_path = format!("{path}[{i}]");
            if let Deep::Differ(mismatch) = deep_compare(item_a, item_b, &item_path, depth, ctx)? {
                return Ok(Deep::Differ(mismatch));
            }
        }
        return Ok(Deep::Same);
    }
    if let (PyValue::Dict(entries_a), PyValue::Dict(entries_b)) = (a, b) {
        return compare_dicts(a, b, entries_a, entries_b, path, depth, ctx);
    }
    // `array == array` is elementwise; its truth value raises for any size but one (and
    // one-element arrays were unwrapped).
    if matches!(a, PyValue::NpArray(_)) {
        return Err(Raised);
    }
    Ok(if py_eq(a, b) {
        Deep::Same
    } else {
        differ(ctx, path, a, b, |e, _| {
            format!("{} values differ", e.kind_name())
        })
    })
}

fn float_is(value: &PyValue, target: f64) -> bool {
    matches!(value, PyValue::Float(x) | PyValue::NpFloat(_, x) if *x == target)
}

fn compare_numbers(a: &PyValue, b: &PyValue, path: &str, ctx: Ctx) -> Result<Deep, Raised> {
    // Integers never equal an infinity; only floats can take these two exits.
    for infinity in [f64::INFINITY, f64::NEG_INFINITY] {
        if float_is(a, infinity) && float_is(b, infinity) {
            return Ok(Deep::Same);
        }
    }
    // math.isnan and float() both raise OverflowError for ints beyond the float range.
    let x = a.to_f64().ok_or(Raised)?;
    let y = b.to_f64().ok_or(Raised)?;
    if x.is_nan() && y.is_nan() {
        return Ok(Deep::Same);
    }
    let difference = (x - y).abs();
    if within_hair_of_tolerance(difference, x.abs().max(y.abs()), ctx.tolerance) {
        NEAR_TOLERANCE.with(|near| near.set(true));
    }
    if difference <= ctx.tolerance {
        return Ok(Deep::Same);
    }
    let (b, a) = ctx.sides(a, b);
    let (y, x) = if ctx.expected_first { (x, y) } else { (y, x) };
    let reason = if x.is_nan() || y.is_nan() {
        format!(
            "{} vs {}: NaN matches only NaN",
            short_number(y),
            short_number(x)
        )
    } else if x.is_infinite() || y.is_infinite() {
        format!(
            "{} vs {}: an infinity matches only the same infinity",
            short_number(y),
            short_number(x)
        )
    } else {
        format!(
            "|{} - {}| = {} > tolerance {}",
            short_number(y),
            short_number(x),
            short_number(difference),
            short_number(ctx.tolerance)
        )
    };
    Ok(Deep::Differ(Mismatch {
        path: path.to_owned(),
        expected: repr(b),
        actual: repr(a),
        difference: Some(difference),
        reason,
    }))
}

/// The string branch: re-parse both with the full pipeline; if either changed, compare the
/// results (an exception there, or Python's recursion limit, falls back to `a == b`).
fn compare_strings(
    a: &PyValue,
    b: &PyValue,
    text_a: &str,
    text_b: &str,
    path: &str,
    depth: usize,
    ctx: Ctx,
) -> Deep {
    // Python recurses once per round; rounds that give two strings again are a loop here
    // (a colon chain can take ~990 rounds, too deep for a thread's stack).
    let (mut a, mut b) = (a.clone(), b.clone());
    let (mut text_a, mut text_b) = (text_a.to_owned(), text_b.to_owned());
    let mut depth = depth;
    while depth < STRING_REPARSE_LIMIT {
        let reparsed_a = parse_printed(&text_a);
        let reparsed_b = parse_printed(&text_b);
        // Only the inf/nan rewrite changed them (or nothing did): Python's answer is
        // `a == b`, either at once or at its recursion limit.
        let only_grown = |reparsed: &PyValue, text: &str| matches!(reparsed, PyValue::Str(s) if *s == rewrite_inf_nan(text));
        if only_grown(&reparsed_a, &text_a) && only_grown(&reparsed_b, &text_b) {
            break;
        }
        // `parsed != text` on an array is elementwise and its truth value raises (caught
        // here) unless it has one element; `or` short-circuits.
        let changed = |reparsed: &PyValue, original: &PyValue| match reparsed {
            PyValue::NpArray(items) if items.len() != 1 => None,
            _ => Some(!py_eq(reparsed, original)),
        };
        let either_changed = match changed(&reparsed_a, &a) {
            Some(true) => Some(true),
            Some(false) => changed(&reparsed_b, &b),
            None => None,
        };
        if either_changed != Some(true) {
            break;
        }
        depth += 1;
        let same_string_type = reparsed_a.py_type() == reparsed_b.py_type();
        if let (true, Some(next_a), Some(next_b)) =
            (same_string_type, reparsed_a.as_str(), reparsed_b.as_str())
        {
            // deep_compare would come straight back to this branch.
            (text_a, text_b) = (next_a.to_owned(), next_b.to_owned());
            (a, b) = (reparsed_a.clone(), reparsed_b.clone());
            continue;
        }
        match deep_compare(&reparsed_a, &reparsed_b, path, depth, ctx) {
            Ok(result) => return result,
            Err(Raised) => break,
        }
    }
    text_equality(&a, &b, &text_a, &text_b, path, ctx)
}

fn text_equality(
    a: &PyValue,
    b: &PyValue,
    text_a: &str,
    text_b: &str,
    path: &str,
    ctx: Ctx,
) -> Deep {
    if text_a == text_b {
        Deep::Same
    } else {
        let position = text_a
            .chars()
            .zip(text_b.chars())
            .take_while(|(x, y)| x == y)
            .count();
        differ(ctx, path, a, b, |_, _| {
            format!("texts differ from character {}", position + 1)
        })
    }
}

fn compare_dicts(
    a: &PyValue,
    b: &PyValue,
    entries_a: &[(PyValue, PyValue)],
    entries_b: &[(PyValue, PyValue)],
    path: &str,
    depth: usize,
    ctx: Ctx,
) -> Result<Deep, Raised> {
    let (entries_expected, entries_actual) = if ctx.expected_first {
        (entries_a, entries_b)
    } else {
        (entries_b, entries_a)
    };
    let missing: Vec<String> = entries_expected
        .iter()
        .filter(|(key, _)| dict_get(entries_actual, key).is_none())
        .map(|(key, _)| repr(key))
        .collect();
    let unexpected: Vec<String> = entries_actual
        .iter()
        .filter(|(key, _)| dict_get(entries_expected, key).is_none())
        .map(|(key, _)| repr(key))
        .collect();
    if entries_a.len() != entries_b.len() || !missing.is_empty() || !unexpected.is_empty() {
        let mut reason = String::from("dict keys differ");
        if !missing.is_empty() {
            reason.push_str(&format!("; missing {}", missing.join(", ")));
        }
        if !unexpected.is_empty() {
            reason.push_str(&format!("; unexpected {}", unexpected.join(", ")));
        }
        return Ok(differ(ctx, path, a, b, |_, _| reason));
    }
    // Python iterates the keys of `a` (the judge's actual dict, the reward's expected one).
    for (key, value_a) in entries_a {
        let Some(value_b) = dict_get(entries_b, key) else {
            continue;
        };
        let key_path = format!("{path}[{}]", repr(key));
        if let Deep::Differ(mismatch) = deep_compare(value_a, value_b, &key_path, depth, ctx)? {
            return Ok(Deep::Differ(mismatch));
        }
    }
    Ok(Deep::Same)
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
    fn cleaning_steps_match_the_official_text() {
        let clean = |s: &str| clean_printed(s).map(|c| c.text);
        assert_eq!(clean("  "), None);
        assert_eq!(clean("[1 2 3]").as_deref(), Some("[1, 2, 3]"));
        // Every line gets a trailing comma, so a matrix evaluates as a 1-tuple.
        assert_eq!(
            clean("[[1 2]\n [3 4]]").as_deref(),
            Some("[[1, 2], [3, 4]], ")
        );
        assert_eq!(clean("Frequencies: [3 3 1]").as_deref(), Some("[3, 3, 1]"));
        assert_eq!(
            clean("[inf -inf nan]").as_deref(),
            Some("[float(\"inf\"), -float(\"inf\"), float(\"nan\")]")
        );
        // The inf/nan rewrite also hits words and string contents.
        assert_eq!(clean("'info'").as_deref(), Some("'float(\"inf\")o'"));
        // Only innermost brackets of number-like characters get commas.
        assert_eq!(clean("[a b]").as_deref(), Some("[ab]"));
        assert_eq!(clean("[safe fun]").as_deref(), Some("[safe, fun]"));
        assert_eq!(clean("[1 2] [3]").as_deref(), Some("[1, 2][3]"));
        // Whitespace inside strings is removed too.
        assert_eq!(clean("'a b'").as_deref(), Some("'ab'"));
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
