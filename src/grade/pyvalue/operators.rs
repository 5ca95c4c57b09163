//! Python's operators on values: truth, subscripts, unary and binary arithmetic (NumPy
//! scalars read as their Python counterparts), `+` and `*` on sequences, and comparisons.

use super::lexer::{EvalError, EvalResult};
use super::parser::{BinOp, CmpOp, UnaryOp};
use super::value::{NpFloatKind, NpIntKind, PyValue, dict_get, py_eq};

pub(super) fn truthy(value: &PyValue) -> EvalResult<bool> {
    Ok(match value {
        PyValue::None => false,
        PyValue::Bool(b) | PyValue::NpBool(b) => *b,
        PyValue::Int(i) | PyValue::NpInt(_, i) => *i != 0,
        PyValue::BigInt { .. } => true,
        PyValue::Float(x) | PyValue::NpFloat(_, x) => *x != 0.0,
        PyValue::Complex(re, im) | PyValue::NpComplex(re, im) | PyValue::NpCLongDouble(re, im) => {
            *re != 0.0 || *im != 0.0
        }
        PyValue::Str(s) | PyValue::NpStr(s) => !s.is_empty(),
        PyValue::Bytes(b) | PyValue::NpBytes(b) => !b.is_empty(),
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => !items.is_empty(),
        PyValue::Dict(entries) => !entries.is_empty(),
        // An array's truth value is ambiguous (ValueError) unless it has one element.
        PyValue::NpArray(items) => match items.as_slice() {
            [only] => truthy(only)?,
            _ => return Err(EvalError),
        },
        PyValue::Ellipsis | PyValue::Builtin(_) => true,
    })
}

pub(super) fn subscript(base: &PyValue, index: &PyValue) -> EvalResult<PyValue> {
    if let PyValue::Dict(entries) = base {
        return dict_get(entries, index).cloned().ok_or(EvalError);
    }
    let position = match index {
        PyValue::Bool(b) | PyValue::NpBool(b) => i128::from(*b),
        PyValue::Int(i) | PyValue::NpInt(_, i) => *i,
        _ => return Err(EvalError),
    };
    let pick = |len: usize| -> EvalResult<usize> {
        let len = len as i128;
        let resolved = if position < 0 {
            position + len
        } else {
            position
        };
        if (0..len).contains(&resolved) {
            Ok(resolved as usize)
        } else {
            Err(EvalError)
        }
    };
    match base {
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::NpArray(items) => {
            Ok(items[pick(items.len())?].clone())
        }
        PyValue::Str(s) | PyValue::NpStr(s) => {
            let chars: Vec<char> = s.chars().collect();
            Ok(PyValue::Str(chars[pick(chars.len())?].to_string()))
        }
        PyValue::Bytes(b) | PyValue::NpBytes(b) => Ok(PyValue::Int(i128::from(b[pick(b.len())?]))),
        _ => Err(EvalError),
    }
}

/// A number on Python's tower (bool < int < float < complex), after NumPy scalars are read
/// as their Python counterparts.
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

fn as_num(value: &PyValue) -> EvalResult<Num> {
    match value {
        PyValue::Bool(b) | PyValue::NpBool(b) => Ok(Num::Int(i128::from(*b))),
        PyValue::Int(i) | PyValue::NpInt(_, i) => Ok(Num::Int(*i)),
        PyValue::Float(x) | PyValue::NpFloat(_, x) => Ok(Num::Float(*x)),
        PyValue::Complex(re, im) | PyValue::NpComplex(re, im) | PyValue::NpCLongDouble(re, im) => {
            Ok(Num::Complex(*re, *im))
        }
        _ => Err(EvalError),
    }
}

pub(super) fn unary(op: UnaryOp, value: PyValue) -> EvalResult<PyValue> {
    if let PyValue::BigInt { negative, digits } = &value {
        return match op {
            UnaryOp::Plus => Ok(value.clone()),
            UnaryOp::Minus => Ok(PyValue::BigInt {
                negative: !negative,
                digits: digits.clone(),
            }),
            UnaryOp::Invert => Err(EvalError),
        };
    }
    // `np.bool_` is not an integer to NumPy: `~` is logical not, `-` and `+` raise.
    if let PyValue::NpBool(b) = value {
        return match op {
            UnaryOp::Invert => Ok(PyValue::NpBool(!b)),
            UnaryOp::Plus | UnaryOp::Minus => Err(EvalError),
        };
    }
    // NumPy scalars keep their type under arithmetic; the grader converts them anyway, so
    // results are Python numbers (only their values matter for the comparison).
    match (op, as_num(&value)?) {
        (UnaryOp::Plus, Num::Int(i)) => Ok(PyValue::Int(i)),
        (UnaryOp::Plus, Num::Float(x)) => Ok(PyValue::Float(x)),
        (UnaryOp::Plus, Num::Complex(re, im)) => Ok(PyValue::Complex(re, im)),
        (UnaryOp::Minus, Num::Int(i)) => i.checked_neg().map(PyValue::Int).ok_or(EvalError),
        (UnaryOp::Minus, Num::Float(x)) => Ok(PyValue::Float(-x)),
        (UnaryOp::Minus, Num::Complex(re, im)) => Ok(PyValue::Complex(-re, -im)),
        (UnaryOp::Invert, Num::Int(i)) => Ok(PyValue::Int(!i)),
        (UnaryOp::Invert, _) => Err(EvalError),
    }
}

fn python_mod_float(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m != 0.0 && (m < 0.0) != (b < 0.0) {
        m + b
    } else if m == 0.0 {
        0.0f64.copysign(b)
    } else {
        m
    }
}

/// Python's float `//` (CPython's `_float_div_mod`): the quotient of `a - a % b` by `b`,
/// less one where the remainder was moved to `b`'s sign, snapped to the nearest integer
/// (a half down); a zero quotient takes the sign of `a / b`. So `-0.01 // inf` is `-1.0`.
fn python_floor_div_float(a: f64, b: f64) -> f64 {
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && (b < 0.0) != (m < 0.0) {
        div -= 1.0;
    }
    if div != 0.0 {
        let floor = div.floor();
        if div - floor > 0.5 {
            floor + 1.0
        } else {
            floor
        }
    } else {
        0.0f64.copysign(a / b)
    }
}

/// Python's `==`, `!=` and ordering for the values printed text can hold: numbers,
/// strings, and lists/tuples (lexicographically). Anything else raises TypeError.
pub(super) fn compare_values(op: CmpOp, left: &PyValue, right: &PyValue) -> EvalResult<bool> {
    use std::cmp::Ordering;
    match op {
        CmpOp::Eq => return Ok(py_eq(left, right)),
        CmpOp::NotEq => return Ok(!py_eq(left, right)),
        _ => {}
    }
    let ordering = order_values(left, right)?;
    Ok(match op {
        CmpOp::Lt => ordering == Some(Ordering::Less),
        CmpOp::LtE => matches!(ordering, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => ordering == Some(Ordering::Greater),
        CmpOp::GtE => matches!(ordering, Some(Ordering::Greater | Ordering::Equal)),
        CmpOp::Eq | CmpOp::NotEq => false,
    })
}

/// `None` for unordered (a NaN): every ordering comparison is then false.
fn order_values(left: &PyValue, right: &PyValue) -> EvalResult<Option<std::cmp::Ordering>> {
    if let (Some(a), Some(b)) = (left.as_str(), right.as_str())
        && std::mem::discriminant(left) == std::mem::discriminant(right)
    {
        return Ok(Some(a.cmp(b)));
    }
    let sequences = match (left, right) {
        (PyValue::List(a), PyValue::List(b)) | (PyValue::Tuple(a), PyValue::Tuple(b)) => {
            Some((a, b))
        }
        _ => None,
    };
    if let Some((a, b)) = sequences {
        for (x, y) in a.iter().zip(b) {
            if !py_eq(x, y) {
                return order_values(x, y);
            }
        }
        return Ok(Some(a.len().cmp(&b.len())));
    }
    match (as_num(left)?, as_num(right)?) {
        (Num::Int(x), Num::Int(y)) => Ok(Some(x.cmp(&y))),
        (Num::Complex(..), _) | (_, Num::Complex(..)) => Err(EvalError),
        (a, b) => Ok(real_part(a).partial_cmp(&real_part(b))),
    }
}

/// The most items a repeated sequence may have here (Python would build it; a text this
/// large is compared as text instead).
const MAX_REPEAT_ITEMS: usize = 1 << 20;

/// `+` and `*` on sequences: concatenation and repetition, as Python does them.
fn sequence_binary(op: BinOp, left: &PyValue, right: &PyValue) -> Option<EvalResult<PyValue>> {
    // NumPy's bool has no `__index__`: `'a' * np.True_` is a TypeError in Python, where
    // `'a' * True` and `'a' * np.int64(2)` repeat.
    let count = |v: &PyValue| match v {
        PyValue::Bool(b) => Some(i128::from(*b)),
        PyValue::Int(i) | PyValue::NpInt(_, i) => Some(*i),
        _ => None,
    };
    let repeat = |seq: &PyValue, n: i128| -> EvalResult<PyValue> {
        let n = usize::try_from(n.max(0)).map_err(|_| EvalError)?;
        let len = match seq {
            PyValue::List(items) | PyValue::Tuple(items) => items.len(),
            PyValue::Str(text) => text.chars().count(),
            PyValue::Bytes(bytes) => bytes.len(),
            _ => return Err(EvalError),
        };
        if len.saturating_mul(n) > MAX_REPEAT_ITEMS {
            return Err(EvalError);
        }
        Ok(match seq {
            PyValue::List(items) => PyValue::List(repeat_items(items, n)),
            PyValue::Tuple(items) => PyValue::Tuple(repeat_items(items, n)),
            PyValue::Str(text) => PyValue::Str(text.repeat(n)),
            PyValue::Bytes(bytes) => PyValue::Bytes(bytes.repeat(n)),
            _ => return Err(EvalError),
        })
    };
    let is_sequence = |v: &PyValue| {
        matches!(
            v,
            PyValue::List(_) | PyValue::Tuple(_) | PyValue::Str(_) | PyValue::Bytes(_)
        )
    };
    match (op, left, right) {
        (BinOp::Add, PyValue::List(a), PyValue::List(b)) => {
            Some(Ok(PyValue::List([a.as_slice(), b].concat())))
        }
        (BinOp::Add, PyValue::Tuple(a), PyValue::Tuple(b)) => {
            Some(Ok(PyValue::Tuple([a.as_slice(), b].concat())))
        }
        (BinOp::Add, PyValue::Str(a), PyValue::Str(b)) => Some(Ok(PyValue::Str(format!("{a}{b}")))),
        (BinOp::Add, PyValue::Bytes(a), PyValue::Bytes(b)) => {
            Some(Ok(PyValue::Bytes([a.as_slice(), b].concat())))
        }
        (BinOp::Mul, seq, n) if is_sequence(seq) => {
            Some(count(n).map_or(Err(EvalError), |n| repeat(seq, n)))
        }
        (BinOp::Mul, n, seq) if is_sequence(seq) => {
            Some(count(n).map_or(Err(EvalError), |n| repeat(seq, n)))
        }
        _ if is_sequence(left) || is_sequence(right) => Some(Err(EvalError)),
        _ => None,
    }
}

fn repeat_items(items: &[PyValue], n: usize) -> Vec<PyValue> {
    let mut out = Vec::with_capacity(items.len() * n);
    for _ in 0..n {
        out.extend_from_slice(items);
    }
    out
}

pub(super) fn binary(op: BinOp, left: PyValue, right: PyValue) -> EvalResult<PyValue> {
    // `np.bool_` with `np.bool_` or `bool`: `+` is logical or, `*` logical and, `-` raises
    // (NumPy 2).
    if let (PyValue::NpBool(x) | PyValue::Bool(x), PyValue::NpBool(y) | PyValue::Bool(y)) =
        (&left, &right)
        && (matches!(left, PyValue::NpBool(_)) || matches!(right, PyValue::NpBool(_)))
    {
        match op {
            BinOp::Add => return Ok(PyValue::NpBool(*x || *y)),
            BinOp::Mul => return Ok(PyValue::NpBool(*x && *y)),
            BinOp::Sub => return Err(EvalError),
            _ => {}
        }
    }
    if let Some(result) = sequence_binary(op, &left, &right) {
        return result;
    }
    // A float16 or float32 scalar keeps its precision with a Python number (converted to
    // it first, NumPy 2's weak scalars) or a narrower NumPy one: computed exactly and
    // rounded once, as NumPy's single-precision loops give.
    if let Some(kind) = narrow_float(&left, &right) {
        let (x, y) = (real_part(as_num(&left)?), real_part(as_num(&right)?));
        let z = float_binary(op, kind.round(x), kind.round(y))?;
        return Ok(PyValue::NpFloat(kind, kind.round(z)));
    }
    if let Some(kind) = narrow_int(&left, &right)
        && let (Num::Int(x), Num::Int(y)) = (as_num(&left)?, as_num(&right)?)
    {
        return np_int_binary(op, kind, x, y);
    }
    let (a, b) = (as_num(&left)?, as_num(&right)?);
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => int_binary(op, x, y),
        (Num::Complex(..), _) | (_, Num::Complex(..)) => {
            let (ar, ai) = complex_parts(a);
            let (br, bi) = complex_parts(b);
            complex_binary(op, (ar, ai), (br, bi))
        }
        _ => {
            let (x, y) = (real_part(a), real_part(b));
            float_binary(op, x, y).map(PyValue::Float)
        }
    }
}

/// The result type of arithmetic between two values when it is NumPy's float16 or
/// float32 (NumPy 2's promotion; a Python `int`, `float` or `bool` takes the NumPy
/// scalar's type).
fn narrow_float(left: &PyValue, right: &PyValue) -> Option<NpFloatKind> {
    let narrow = |v: &PyValue| match v {
        PyValue::NpFloat(k @ (NpFloatKind::Float16 | NpFloatKind::Float32), _) => Some(*k),
        _ => None,
    };
    let with = |kind: NpFloatKind, other: &PyValue| match other {
        PyValue::Int(_) | PyValue::Float(_) | PyValue::Bool(_) | PyValue::NpBool(_) => Some(kind),
        PyValue::NpFloat(k, _) => narrow(other).map(|_| {
            if *k == NpFloatKind::Float32 {
                NpFloatKind::Float32
            } else {
                kind
            }
        }),
        PyValue::NpInt(NpIntKind::Int8 | NpIntKind::UInt8, _) => Some(kind),
        PyValue::NpInt(NpIntKind::Int16 | NpIntKind::UInt16, _) => Some(NpFloatKind::Float32),
        _ => None,
    };
    match (narrow(left), narrow(right)) {
        (Some(k), _) => with(k, right),
        (None, Some(k)) => with(k, left),
        (None, None) => None,
    }
}

/// The type of arithmetic between a NumPy integer scalar and a Python `int` or `bool` (a
/// weak scalar, NumPy 2), or another scalar of its own type: that type.
fn narrow_int(left: &PyValue, right: &PyValue) -> Option<NpIntKind> {
    match (left, right) {
        (PyValue::NpInt(a, _), PyValue::NpInt(b, _)) if a == b => Some(*a),
        (PyValue::NpInt(k, _), PyValue::Int(_) | PyValue::Bool(_))
        | (PyValue::Int(_) | PyValue::Bool(_), PyValue::NpInt(k, _)) => Some(*k),
        _ => None,
    }
}

/// NumPy's integer arithmetic in `kind`: a Python int that does not fit raises
/// (OverflowError), results wrap around, `//` and `%` by zero give 0 (with a warning),
/// `/` is float64, and a negative power raises.
fn np_int_binary(op: BinOp, kind: NpIntKind, x: i128, y: i128) -> EvalResult<PyValue> {
    let (lo, hi) = kind.bounds();
    if !(lo..=hi).contains(&x) || !(lo..=hi).contains(&y) {
        return Err(EvalError);
    }
    let modulus = hi - lo + 1;
    let wrap = |v: i128| PyValue::NpInt(kind, (v - lo).rem_euclid(modulus) + lo);
    match op {
        BinOp::Div => int_binary(op, x, y),
        BinOp::Add => Ok(wrap(x + y)),
        BinOp::Sub => Ok(wrap(x - y)),
        BinOp::Mul => Ok(wrap(x.wrapping_mul(y))),
        BinOp::FloorDiv | BinOp::Mod if y == 0 => Ok(PyValue::NpInt(kind, 0)),
        BinOp::FloorDiv | BinOp::Mod => match int_binary(op, x, y)? {
            PyValue::Int(v) => Ok(wrap(v)),
            _ => Err(EvalError),
        },
        BinOp::Pow => {
            let exponent = u32::try_from(y).map_err(|_| EvalError)?;
            Ok(wrap(x.wrapping_pow(exponent)))
        }
    }
}

fn complex_parts(n: Num) -> (f64, f64) {
    match n {
        Num::Int(i) => (i as f64, 0.0),
        Num::Float(x) => (x, 0.0),
        Num::Complex(re, im) => (re, im),
    }
}

fn real_part(n: Num) -> f64 {
    complex_parts(n).0
}

fn int_binary(op: BinOp, x: i128, y: i128) -> EvalResult<PyValue> {
    let int = |v: Option<i128>| v.map(PyValue::Int).ok_or(EvalError);
    match op {
        BinOp::Add => int(x.checked_add(y)),
        BinOp::Sub => int(x.checked_sub(y)),
        BinOp::Mul => int(x.checked_mul(y)),
        BinOp::Div => {
            if y == 0 {
                return Err(EvalError);
            }
            Ok(PyValue::Float(x as f64 / y as f64))
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0 {
                return Err(EvalError);
            }
            let quotient = x.checked_div_euclid(y).ok_or(EvalError)?;
            let remainder = x.checked_rem_euclid(y).ok_or(EvalError)?;
            // Python floors toward negative infinity; rem_euclid is always non-negative, and
            // for a negative divisor the Euclidean quotient is the ceiling, one above.
            let (q, r) = if remainder != 0 && y < 0 {
                (quotient - 1, remainder + y)
            } else {
                (quotient, remainder)
            };
            int(Some(if op == BinOp::FloorDiv { q } else { r }))
        }
        BinOp::Pow => {
            if y < 0 {
                if x == 0 {
                    return Err(EvalError);
                }
                return Ok(PyValue::Float((x as f64).powf(y as f64)));
            }
            let exponent = u32::try_from(y).map_err(|_| EvalError)?;
            int(x.checked_pow(exponent))
        }
    }
}

fn float_binary(op: BinOp, x: f64, y: f64) -> EvalResult<f64> {
    match op {
        BinOp::Add => Ok(x + y),
        BinOp::Sub => Ok(x - y),
        BinOp::Mul => Ok(x * y),
        BinOp::Div => {
            if y == 0.0 {
                Err(EvalError)
            } else {
                Ok(x / y)
            }
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                Err(EvalError)
            } else {
                Ok(python_floor_div_float(x, y))
            }
        }
        BinOp::Mod => {
            if y == 0.0 {
                Err(EvalError)
            } else {
                Ok(python_mod_float(x, y))
            }
        }
        BinOp::Pow => {
            if x == 0.0 && y < 0.0 {
                return Err(EvalError);
            }
            if x < 0.0 && y.fract() != 0.0 && y.is_finite() {
                // Python returns a complex number here.
                return Err(EvalError);
            }
            let value = x.powf(y);
            if value.is_infinite() && x.is_finite() && y.is_finite() {
                // OverflowError: (34, 'Numerical result out of range')
                return Err(EvalError);
            }
            Ok(value)
        }
    }
}

fn complex_binary(op: BinOp, (ar, ai): (f64, f64), (br, bi): (f64, f64)) -> EvalResult<PyValue> {
    let (re, im) = match op {
        BinOp::Add => (ar + br, ai + bi),
        BinOp::Sub => (ar - br, ai - bi),
        BinOp::Mul => (ar * br - ai * bi, ar * bi + ai * br),
        // CPython's `_Py_c_quot` (Smith's method), so results round as Python's do.
        BinOp::Div => {
            if br.abs() >= bi.abs() {
                if br == 0.0 {
                    return Err(EvalError);
                }
                let ratio = bi / br;
                let denominator = br + bi * ratio;
                (
                    (ar + ai * ratio) / denominator,
                    (ai - ar * ratio) / denominator,
                )
            } else if bi.abs() >= br.abs() {
                let ratio = br / bi;
                let denominator = br * ratio + bi;
                (
                    (ar * ratio + ai) / denominator,
                    (ai * ratio - ar) / denominator,
                )
            } else {
                (f64::NAN, f64::NAN)
            }
        }
        BinOp::FloorDiv | BinOp::Mod | BinOp::Pow => return Err(EvalError),
    };
    Ok(PyValue::Complex(re, im))
}
