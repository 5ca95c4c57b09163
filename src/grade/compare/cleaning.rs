//! The official `parse_stdout_output`: printed text cleaned by its fixed rewrites (NumPy
//! array reprs to lists, labels before the first `:` dropped, `inf`/`nan` to floats) and
//! evaluated, or kept as text when it does not evaluate.

use super::code::eval_cleaned;
use crate::grade::pyvalue::PyValue;

/// Python's `str.isspace` for one character (also what `re`'s `\s` matches).
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

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
pub(super) fn rewrite_inf_nan(text: &str) -> String {
    text.replace("inf", "float(\"inf\")")
        .replace("nan", "float(\"nan\")")
}

/// The official `parse_stdout_output`: no value for blank text, else the evaluated cleaned
/// text, or the cleaned text itself when it does not evaluate.
pub fn parse_printed(output: &str) -> PyValue {
    match clean_printed(output) {
        None => PyValue::None,
        Some(cleaned) => eval_cleaned(&cleaned.text).unwrap_or(PyValue::Str(cleaned.text)),
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
pub(super) fn join_multiline(text: &str) -> String {
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
pub(super) fn rewrite_numpy_arrays(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
