//! The value model: a Python value as printed text evaluates to, with Python's `==` and
//! exact types, for the official comparison's checks.

/// Which NumPy floating type a scalar repr named (`np.float32(0.1)`), for repr and rounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NpFloatKind {
    Float16,
    Float32,
    Float64,
    LongDouble,
}

/// Which NumPy integer type a scalar repr named (`np.int64(3)`), with its bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NpIntKind {
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    LongLong,
    ULongLong,
}

impl NpIntKind {
    pub(super) fn bounds(self) -> (i128, i128) {
        match self {
            Self::Int8 => (i8::MIN.into(), i8::MAX.into()),
            Self::Int16 => (i16::MIN.into(), i16::MAX.into()),
            Self::Int32 => (i32::MIN.into(), i32::MAX.into()),
            Self::Int64 | Self::LongLong => (i64::MIN.into(), i64::MAX.into()),
            Self::UInt8 => (0, u8::MAX.into()),
            Self::UInt16 => (0, u16::MAX.into()),
            Self::UInt32 => (0, u32::MAX.into()),
            Self::UInt64 | Self::ULongLong => (0, u64::MAX.into()),
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Int8 => "int8",
            Self::Int16 => "int16",
            Self::Int32 => "int32",
            Self::Int64 => "int64",
            Self::UInt8 => "uint8",
            Self::UInt16 => "uint16",
            Self::UInt32 => "uint32",
            Self::UInt64 => "uint64",
            Self::LongLong => "longlong",
            Self::ULongLong => "ulonglong",
        }
    }
}

impl NpFloatKind {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Float16 => "float16",
            Self::Float32 => "float32",
            Self::Float64 => "float64",
            Self::LongDouble => "longdouble",
        }
    }

    /// Rounds an `f64` to this type's precision (what `np.float32(x).tolist()` gives back).
    pub(super) fn round(self, x: f64) -> f64 {
        match self {
            // `as f32` rounds to nearest, ties to even, like NumPy's cast.
            Self::Float32 => f64::from(x as f32),
            Self::Float16 => round_to_f16(x),
            Self::Float64 | Self::LongDouble => x,
        }
    }
}

/// Rounds to the nearest IEEE half-precision value (ties to even); overflow gives infinity.
fn round_to_f16(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let magnitude = x.abs();
    // Unbiased binary exponent, read from the bits so powers of two are exact.
    let biased = ((magnitude.to_bits() >> 52) & 0x7ff) as i32;
    // Half precision: 10 fraction bits, normal exponents -14..=15, subnormal step 2^-24.
    let exponent = (biased - 1023).clamp(-14, 15);
    let step = 2f64.powi(exponent - 10);
    let scaled = magnitude / step;
    let floor = scaled.floor();
    let fraction = scaled - floor;
    let rounded = if fraction > 0.5 || (fraction == 0.5 && floor % 2.0 != 0.0) {
        floor + 1.0
    } else {
        floor
    };
    let value = rounded * step;
    if value > 65504.0 {
        return f64::INFINITY.copysign(x);
    }
    value.copysign(x)
}

/// A Python value produced by evaluating printed text.
///
/// NumPy scalars are kept distinct from Python numbers because the official normalisation
/// converts them (via `.tolist()`) only outside dicts and sets, and because `np.bool_` and
/// `np.str_` do not count as `bool`/`str` in its type checks.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    None,
    Ellipsis,
    Bool(bool),
    Int(i128),
    /// An integer literal outside the `i128` range, kept as its decimal digits (no leading
    /// zeros). Converting it to a float can overflow, as Python's `float(int)` does.
    BigInt {
        negative: bool,
        digits: String,
    },
    Float(f64),
    Complex(f64, f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<PyValue>),
    Tuple(Vec<PyValue>),
    /// Insertion order kept; later duplicate keys replace the value, as in Python.
    Dict(Vec<(PyValue, PyValue)>),
    Set(Vec<PyValue>),
    NpFloat(NpFloatKind, f64),
    NpInt(NpIntKind, i128),
    NpBool(bool),
    NpComplex(f64, f64),
    /// `np.clongdouble(...)`: like `np.longdouble`, its `.tolist()` returns itself, which
    /// sends the official normalisation into endless recursion.
    NpCLongDouble(f64, f64),
    NpStr(String),
    NpBytes(Vec<u8>),
    /// An `ndarray` made by a scalar type applied to a sequence (`np.float64([1, 2])`):
    /// rows are nested `NpArray`s, leaves NumPy scalars.
    NpArray(Vec<PyValue>),
    /// A builtin or module object reached by name (`max`, `np`); equal only to itself.
    Builtin(String),
}

/// Python's notion of a value's exact type, for the official `type(a) != type(b)` check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyType {
    None,
    Ellipsis,
    Bool,
    Int,
    Float,
    Complex,
    Str,
    Bytes,
    List,
    Tuple,
    Dict,
    Set,
    NpFloat(NpFloatKind),
    NpInt(NpIntKind),
    NpBool,
    NpComplex,
    NpCLongDouble,
    NpStr,
    NpBytes,
    NpArray,
    Builtin,
}

impl PyValue {
    /// The exact Python type.
    pub fn py_type(&self) -> PyType {
        match self {
            Self::None => PyType::None,
            Self::Ellipsis => PyType::Ellipsis,
            Self::Bool(_) => PyType::Bool,
            Self::Int(_) | Self::BigInt { .. } => PyType::Int,
            Self::Float(_) => PyType::Float,
            Self::Complex(..) => PyType::Complex,
            Self::Str(_) => PyType::Str,
            Self::Bytes(_) => PyType::Bytes,
            Self::List(_) => PyType::List,
            Self::Tuple(_) => PyType::Tuple,
            Self::Dict(_) => PyType::Dict,
            Self::Set(_) => PyType::Set,
            Self::NpFloat(kind, _) => PyType::NpFloat(*kind),
            Self::NpInt(kind, _) => PyType::NpInt(*kind),
            Self::NpBool(_) => PyType::NpBool,
            Self::NpComplex(..) => PyType::NpComplex,
            Self::NpCLongDouble(..) => PyType::NpCLongDouble,
            Self::NpStr(_) => PyType::NpStr,
            Self::NpBytes(_) => PyType::NpBytes,
            Self::NpArray(_) => PyType::NpArray,
            Self::Builtin(_) => PyType::Builtin,
        }
    }

    /// `isinstance(v, (int, float, np.integer, np.floating))`: bools count, `np.bool_` and
    /// complex numbers do not.
    pub fn is_real_number(&self) -> bool {
        matches!(
            self,
            Self::Bool(_)
                | Self::Int(_)
                | Self::BigInt { .. }
                | Self::Float(_)
                | Self::NpFloat(..)
                | Self::NpInt(..)
        )
    }

    /// `isinstance(v, (list, tuple))`.
    pub fn as_sequence(&self) -> Option<&[PyValue]> {
        match self {
            Self::List(items) | Self::Tuple(items) => Some(items),
            _ => None,
        }
    }

    /// `isinstance(v, str)` (NumPy's `str_` is a `str` subclass).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) | Self::NpStr(s) => Some(s),
            _ => None,
        }
    }

    /// `float(v)` for a real number; `None` when Python would raise (a big integer that
    /// overflows a float, or a non-number).
    pub fn to_f64(&self) -> Option<f64> {
        match self {
            Self::Bool(b) | Self::NpBool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Self::Int(i) | Self::NpInt(_, i) => Some(*i as f64),
            Self::BigInt { negative, digits } => {
                let magnitude: f64 = digits.parse().ok()?;
                if magnitude.is_infinite() {
                    return None;
                }
                Some(if *negative { -magnitude } else { magnitude })
            }
            Self::Float(x) | Self::NpFloat(_, x) => Some(*x),
            _ => None,
        }
    }

    /// A short name of the value's kind for mismatch messages ("list", "number", "text").
    pub fn kind_name(&self) -> &'static str {
        match self {
            Self::None => "no value",
            Self::Ellipsis => "Ellipsis",
            Self::Bool(_) | Self::NpBool(_) => "bool",
            Self::Int(_) | Self::BigInt { .. } | Self::NpInt(..) => "number",
            Self::Float(_) | Self::NpFloat(..) => "number",
            Self::Complex(..) | Self::NpComplex(..) | Self::NpCLongDouble(..) => "complex number",
            Self::Str(_) | Self::NpStr(_) => "text",
            Self::Bytes(_) | Self::NpBytes(_) => "bytes",
            Self::List(_) | Self::Tuple(_) => "list",
            Self::Dict(_) => "dict",
            Self::Set(_) => "set",
            Self::NpArray(_) => "array",
            Self::Builtin(_) => "builtin",
        }
    }

    pub(super) fn is_hashable(&self) -> bool {
        match self {
            Self::List(_) | Self::Dict(_) | Self::Set(_) | Self::NpArray(_) => false,
            Self::Tuple(items) => items.iter().all(Self::is_hashable),
            _ => true,
        }
    }

    /// The value as a complex number, for cross-type numeric `==`.
    fn as_complex_exact(&self) -> Option<NumberKey<'_>> {
        match self {
            Self::Bool(b) | Self::NpBool(b) => Some(NumberKey::Int(i128::from(*b))),
            Self::Int(i) | Self::NpInt(_, i) => Some(NumberKey::Int(*i)),
            Self::BigInt { negative, digits } => Some(NumberKey::Big(*negative, digits)),
            Self::Float(x) | Self::NpFloat(_, x) => Some(NumberKey::Complex(*x, 0.0)),
            Self::Complex(re, im) | Self::NpComplex(re, im) | Self::NpCLongDouble(re, im) => {
                Some(NumberKey::Complex(*re, *im))
            }
            _ => None,
        }
    }
}

enum NumberKey<'a> {
    Int(i128),
    Big(bool, &'a str),
    Complex(f64, f64),
}

/// Exact comparison of an integer with a float, as Python does (no rounding of the int).
fn int_eq_float(i: i128, x: f64) -> bool {
    x.is_finite() && x.fract() == 0.0 && x.abs() < 1.8e38 && (x as i128) == i
}

fn number_eq(a: &NumberKey<'_>, b: &NumberKey<'_>) -> bool {
    match (a, b) {
        (NumberKey::Int(x), NumberKey::Int(y)) => x == y,
        (NumberKey::Big(n1, d1), NumberKey::Big(n2, d2)) => n1 == n2 && d1 == d2,
        (NumberKey::Int(_), NumberKey::Big(..)) | (NumberKey::Big(..), NumberKey::Int(_)) => false,
        (NumberKey::Int(i), NumberKey::Complex(re, im))
        | (NumberKey::Complex(re, im), NumberKey::Int(i)) => *im == 0.0 && int_eq_float(*i, *re),
        // A float equal to a >2^127 integer would need exact big arithmetic; such floats
        // are integral, so compare through the float value of the digits.
        (NumberKey::Big(neg, digits), NumberKey::Complex(re, im))
        | (NumberKey::Complex(re, im), NumberKey::Big(neg, digits)) => {
            let magnitude: f64 = digits.parse().unwrap_or(f64::INFINITY);
            let value = if *neg { -magnitude } else { magnitude };
            *im == 0.0 && value.is_finite() && value == *re
        }
        (NumberKey::Complex(r1, i1), NumberKey::Complex(r2, i2)) => r1 == r2 && i1 == i2,
    }
}

/// Python's `a == b` for the values this module produces (NaN is never equal, since every
/// `float("nan")` the grader evaluates is a distinct object).
pub fn py_eq(a: &PyValue, b: &PyValue) -> bool {
    if let (Some(x), Some(y)) = (a.as_complex_exact(), b.as_complex_exact()) {
        return number_eq(&x, &y);
    }
    match (a, b) {
        (PyValue::None, PyValue::None) | (PyValue::Ellipsis, PyValue::Ellipsis) => true,
        (PyValue::Str(x) | PyValue::NpStr(x), PyValue::Str(y) | PyValue::NpStr(y)) => x == y,
        (PyValue::Bytes(x) | PyValue::NpBytes(x), PyValue::Bytes(y) | PyValue::NpBytes(y)) => {
            x == y
        }
        (PyValue::List(x), PyValue::List(y)) | (PyValue::Tuple(x), PyValue::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (PyValue::Dict(x), PyValue::Dict(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| dict_get(y, key).is_some_and(|other| py_eq(value, other)))
        }
        (PyValue::Set(x), PyValue::Set(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|item| y.iter().any(|other| py_eq(item, other)))
        }
        (PyValue::Builtin(x), PyValue::Builtin(y)) => x == y,
        _ => false,
    }
}

/// `d[key]` by Python equality.
pub fn dict_get<'a>(entries: &'a [(PyValue, PyValue)], key: &PyValue) -> Option<&'a PyValue> {
    entries
        .iter()
        .find(|(k, _)| py_eq(k, key))
        .map(|(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_follows_python() {
        assert!(py_eq(&PyValue::Int(1), &PyValue::Float(1.0)));
        assert!(py_eq(&PyValue::Bool(true), &PyValue::Int(1)));
        assert!(py_eq(&PyValue::NpBool(true), &PyValue::Float(1.0)));
        assert!(py_eq(&PyValue::Complex(1.0, 0.0), &PyValue::Int(1)));
        assert!(!py_eq(&PyValue::Float(f64::NAN), &PyValue::Float(f64::NAN)));
        // Python compares int and float exactly: 2**53 + 1 != 2.0**53.
        assert!(!py_eq(
            &PyValue::Int((1 << 53) + 1),
            &PyValue::Float(9007199254740992.0)
        ));
        assert!(!py_eq(
            &PyValue::List(vec![PyValue::Int(1)]),
            &PyValue::Tuple(vec![PyValue::Int(1)])
        ));
        assert!(py_eq(
            &PyValue::NpStr("a".to_owned()),
            &PyValue::Str("a".to_owned())
        ));
    }

    #[test]
    fn half_precision_rounding() {
        assert_eq!(round_to_f16(0.1), 0.0999755859375);
        assert_eq!(round_to_f16(1000.3), 1000.5);
        assert_eq!(round_to_f16(70000.0), f64::INFINITY);
        assert_eq!(round_to_f16(-2.0), -2.0);
    }
}
