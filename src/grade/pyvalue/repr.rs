//! Python's `repr` of a [`PyValue`] (NumPy 2 style for NumPy scalars): what the official
//! grader compares when values are not equal, and what mismatch messages show.

use std::fmt::Write as _;

use super::value::{NpFloatKind, PyValue};
use crate::analysis::assemble::str_repr;

/// Python's `repr(float)`: shortest round-trip digits, fixed notation for decimal exponents
/// -4..16, otherwise `1e-05` style.
pub fn float_repr(x: f64) -> String {
    float_repr_impl(x, true)
}

fn float_repr_impl(x: f64, add_dot_zero: bool) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let shortest = format!("{:e}", x.abs());
    // Of the shortest digit strings that read back as `x`, Python prints the one nearest
    // the exact value, ties to even (`984152693598113.25` → `…113.2`); Rust's shortest
    // form may print the other one of a tie. The correctly rounded form of that length is
    // Python's.
    let length = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    let nearest = format!("{:.*e}", length.saturating_sub(1), x.abs());
    let sci = if nearest.parse::<f64>() == Ok(x.abs()) {
        nearest
    } else {
        shortest
    };
    laid_out(&sci, x.is_sign_negative(), add_dot_zero)
}

/// NumPy's repr of a float32 value (held as the `f64` it converts to): the shortest digits
/// that read back as the same float32, laid out as Python lays out a float's.
pub fn float32_repr(x: f64) -> String {
    if !x.is_finite() {
        return float_repr(x);
    }
    let single = x.abs() as f32;
    let shortest = format!("{single:e}");
    let length = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    let nearest = format!("{:.*e}", length.saturating_sub(1), single);
    let sci = if nearest.parse::<f32>() == Ok(single) {
        nearest
    } else {
        shortest
    };
    laid_out(&sci, x.is_sign_negative(), true)
}

/// `D.DDDe±X` digits laid out as Python's float repr: fixed notation for decimal exponents
/// -4..16, otherwise `1e-05` style.
fn laid_out(sci: &str, negative: bool, add_dot_zero: bool) -> String {
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    // Python's decpt: the value is 0.DIGITS * 10^decpt.
    let decpt = exponent + 1;
    let body = if (-3..=16).contains(&decpt) {
        let n = digits.len() as i32;
        if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            let zeros = "0".repeat((decpt - n) as usize);
            if add_dot_zero {
                format!("{digits}{zeros}.0")
            } else {
                format!("{digits}{zeros}")
            }
        } else {
            let (int_part, frac) = digits.split_at(decpt as usize);
            format!("{int_part}.{frac}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{exp_sign}{:02}", exponent.abs())
    };
    format!("{sign}{body}")
}

/// Python's `repr(complex)`: `2j`, `(1+2j)`, `(-0-1j)`.
pub fn complex_repr(re: f64, im: f64) -> String {
    let imag = float_repr_impl(im, false);
    if re == 0.0 && re.is_sign_positive() {
        return format!("{imag}j");
    }
    let real = float_repr_impl(re, false);
    let joiner = if imag.starts_with('-') { "" } else { "+" };
    format!("({real}{joiner}{imag}j)")
}

fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from("b");
    out.push(quote);
    for &byte in b {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            byte if char::from(byte) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(byte)),
            byte => {
                let _ = write!(out, "\\x{byte:02x}");
            }
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a value (NumPy 2 style for NumPy scalars).
pub fn repr(value: &PyValue) -> String {
    let mut out = String::new();
    write_repr(value, &mut out);
    out
}

fn write_items(items: &[PyValue], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(item, out);
    }
}

fn write_repr(value: &PyValue, out: &mut String) {
    match value {
        PyValue::None => out.push_str("None"),
        PyValue::Ellipsis => out.push_str("Ellipsis"),
        PyValue::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        PyValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        PyValue::BigInt { negative, digits } => {
            if *negative {
                out.push('-');
            }
            out.push_str(digits);
        }
        PyValue::Float(x) => out.push_str(&float_repr(*x)),
        PyValue::Complex(re, im) => out.push_str(&complex_repr(*re, *im)),
        PyValue::Str(s) => out.push_str(&str_repr(s)),
        PyValue::Bytes(b) => out.push_str(&bytes_repr(b)),
        PyValue::List(items) => {
            out.push('[');
            write_items(items, out);
            out.push(']');
        }
        PyValue::Tuple(items) => {
            out.push('(');
            write_items(items, out);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        PyValue::Dict(entries) => {
            out.push('{');
            for (i, (key, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(key, out);
                out.push_str(": ");
                write_repr(item, out);
            }
            out.push('}');
        }
        PyValue::Set(items) => {
            if items.is_empty() {
                out.push_str("set()");
            } else {
                out.push('{');
                write_items(items, out);
                out.push('}');
            }
        }
        PyValue::NpFloat(NpFloatKind::LongDouble, x) => {
            let _ = write!(out, "np.longdouble('{}')", float_repr(*x));
        }
        PyValue::NpFloat(NpFloatKind::Float32, x) => {
            let _ = write!(out, "np.float32({})", float32_repr(*x));
        }
        PyValue::NpFloat(kind, x) => {
            let _ = write!(out, "np.{}({})", kind.name(), float_repr(*x));
        }
        PyValue::NpInt(kind, i) => {
            let _ = write!(out, "np.{}({i})", kind.name());
        }
        PyValue::NpBool(b) => out.push_str(if *b { "np.True_" } else { "np.False_" }),
        PyValue::NpComplex(re, im) => {
            let _ = write!(out, "np.complex128({})", complex_repr(*re, *im));
        }
        PyValue::NpCLongDouble(re, im) => {
            let _ = write!(out, "np.clongdouble('{}')", complex_repr(*re, *im));
        }
        PyValue::NpStr(s) => {
            let _ = write!(out, "np.str_({})", str_repr(s));
        }
        PyValue::NpBytes(b) => {
            let _ = write!(out, "np.bytes_({})", bytes_repr(b));
        }
        PyValue::NpArray(items) => {
            out.push_str("array([");
            write_items(items, out);
            out.push_str("])");
        }
        PyValue::Builtin(name) => {
            let _ = write!(out, "<{name}>");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_match_python() {
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1e15), "1000000000000000.0");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(0.00001), "1e-05");
        assert_eq!(float_repr(-1.5e-7), "-1.5e-07");
        assert_eq!(float_repr(123.456), "123.456");
        assert_eq!(float_repr(-0.0), "-0.0");
        assert_eq!(complex_repr(0.0, 2.0), "2j");
        assert_eq!(complex_repr(1.0, -2.5), "(1-2.5j)");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(repr(&PyValue::Tuple(vec![PyValue::Int(1)])), "(1,)");
        assert_eq!(
            repr(&PyValue::Dict(vec![(
                PyValue::Str("a".to_owned()),
                PyValue::Float(1.5)
            )])),
            "{'a': 1.5}"
        );
    }
}
