//! JSON as Python's `json.dumps` writes it: by default (`allow_nan=True`) a float that is not
//! finite is written bare, as `NaN`, `Infinity` or `-Infinity`, which JSON (and serde_json)
//! does not accept. Every RL framework's dump is written that way, so one `"acc": NaN` would
//! cost its line. [`finite_json`] rewrites those tokens outside strings as the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"` (a reader takes them back with [`non_finite`]);
//! a line without them is never copied.

use std::borrow::Cow;

/// The three bare tokens, as written and as the string each becomes.
const TOKENS: [(&[u8], &str); 3] = [
    (b"NaN", "\"NaN\""),
    (b"Infinity", "\"Infinity\""),
    (b"-Infinity", "\"-Infinity\""),
];

/// `text` with every bare `NaN`, `Infinity` and `-Infinity` outside strings written as a
/// string; borrowed (no copy) when it has none.
pub fn finite_json(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    // The common line has neither: one quick scan and no copy.
    if memchr::memmem::find(bytes, b"NaN").is_none()
        && memchr::memmem::find(bytes, b"Infinity").is_none()
    {
        return Cow::Borrowed(text);
    }
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        // Outside strings JSON has no letters but `true`, `false`, `null` and an
        // exponent's `e`: an `N`, `I` or `-I` can only start one of the tokens.
        let token = TOKENS.iter().find(|(t, _)| {
            bytes[i..].starts_with(t)
                && !bytes
                    .get(i + t.len())
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        });
        match token {
            Some((t, quoted)) => {
                let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
                o.push_str(&text[copied..i]);
                o.push_str(quoted);
                i += t.len();
                copied = i;
            }
            None => i += 1,
        }
    }
    match out {
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(text),
    }
}

/// The float a string written by [`finite_json`] stands for (`"NaN"`, `"Infinity"`,
/// `"-Infinity"`), and Python's `str()` of them (`"nan"`, `"inf"`, `"-inf"`), which verl
/// 0.8 writes for values JSON cannot hold.
pub fn non_finite(text: &str) -> Option<f64> {
    match text.trim() {
        "NaN" | "nan" => Some(f64::NAN),
        "Infinity" | "inf" => Some(f64::INFINITY),
        "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn bare_tokens_become_strings_and_strings_stay() {
        let line = r#"{"score": NaN, "acc": [Infinity, -Infinity, 1e-5], "s": "NaN and \"Infinity\"", "n": null}"#;
        let fixed = finite_json(line);
        let v: Value = serde_json::from_str(&fixed).expect("valid JSON after the pre-pass");
        assert_eq!(v["score"], "NaN");
        assert_eq!(v["acc"][0], "Infinity");
        assert_eq!(v["acc"][1], "-Infinity");
        assert_eq!(v["acc"][2], 1e-5);
        assert_eq!(
            v["s"], "NaN and \"Infinity\"",
            "a string's text is not touched"
        );
        assert!(v["n"].is_null());
        assert!(non_finite(v["score"].as_str().expect("a string")).is_some_and(f64::is_nan));
        assert_eq!(
            non_finite(v["acc"][1].as_str().expect("a string")),
            Some(f64::NEG_INFINITY)
        );
    }

    #[test]
    fn a_line_without_them_is_not_copied() {
        let line = r#"{"input": "NaN in a string", "score": 1.0}"#;
        assert!(matches!(finite_json(line), Cow::Borrowed(_)));
        assert!(matches!(finite_json(r#"{"a": 1}"#), Cow::Borrowed(_)));
    }

    #[test]
    fn a_key_named_like_a_token_is_a_string() {
        let line = r#"{"NaN": NaN}"#;
        let v: Value = serde_json::from_str(&finite_json(line)).expect("valid");
        assert_eq!(v["NaN"], "NaN");
    }
}
