//! The official `deep_compare`: two normalised values compared with the tolerance, Python's
//! quirks included (singletons unwrapped, exact types checked, strings re-parsed with the
//! whole cleaning pipeline), and where they differ, a [`Mismatch`] for the user.

use serde::{Deserialize, Serialize};

use super::cleaning::{parse_printed, rewrite_inf_nan};
use crate::grade::pyvalue::{self, PyType, PyValue, dict_get, py_eq, repr};

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

/// What the deep comparison carries down: the tolerance, and whether the official call
/// passed the expected value first (`a`) or second (`b`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Ctx {
    pub(super) tolerance: f64,
    pub(super) expected_first: bool,
}

impl Ctx {
    /// `(expected, actual)` of the official `deep_compare(a, b)`'s two sides.
    fn sides<'v>(self, a: &'v PyValue, b: &'v PyValue) -> (&'v PyValue, &'v PyValue) {
        if self.expected_first { (a, b) } else { (b, a) }
    }
}

thread_local! {
    /// Set by [`compare_numbers`] when a compared difference was within a hair of the
    /// tolerance (read and reset by the judge).
    pub(super) static NEAR_TOLERANCE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How close to the tolerance a difference must be for the last printed digits to decide
/// it, relative to the tolerance and to the numbers compared: far wider than any BLAS's
/// rounding and far narrower than a real error (1e-9 at the judge's 1e-2); never narrower
/// than a few units in the last place of the numbers.
pub(super) const HAIR: f64 = 1e-7;

pub(super) fn within_hair_of_tolerance(difference: f64, scale: f64, tolerance: f64) -> bool {
    let hair = (HAIR * tolerance).max(64.0 * f64::EPSILON);
    (difference - tolerance).abs() <= hair * scale.max(1.0)
}

/// An exception escaped the comparison (Python's OverflowError on `float(huge_int)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Raised;

pub(super) enum Deep {
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
pub(super) fn short_number(x: f64) -> String {
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
pub(super) fn deep_compare(
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
