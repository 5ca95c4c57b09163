//! The official `normalize_data_structure`: parsed values brought to the form the deep
//! comparison expects (strings re-read as literals, tuples and NumPy values to Python ones).

use super::cleaning::{join_multiline, rewrite_numpy_arrays};
use crate::grade::pyvalue::{self, EvalMode, NpFloatKind, PyValue};

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
