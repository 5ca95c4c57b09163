//! [`scan_tokens`]: what CPython's tokenizer objects to, which it reports in preference to
//! most parser errors (unmatched or too deeply nested brackets, unterminated strings,
//! inconsistent indentation), and the bracket left open at the end; found by a light scan
//! of brackets, strings, comments and indentation.

/// CPython's tokenizer refuses more than this many open brackets (its `MAXLEVEL`).
pub const MAX_BRACKET_NESTING: usize = 200;

pub(super) const TAB_ERROR: &str = "inconsistent use of tabs and spaces in indentation";
pub(super) const TOO_MANY_BRACKETS: &str = "too many nested parentheses";

/// What CPython's tokenizer would object to in a source, found by a light scan of
/// brackets, strings and comments (CPython reports these in preference to most parser errors).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenizerScan {
    /// The first error the tokenizer raises: 1-based line and CPython's message.
    pub error: Option<(usize, String)>,
    /// The innermost bracket still open at the end: its line and character.
    pub unclosed: Option<(usize, char)>,
}

/// CPython's tokenizer's indentation stacks: columns with tabs to the next multiple of 8,
/// and with tabs as one column; the two must order lines the same way (else TabError).
struct Indents {
    cols: Vec<usize>,
    alt_cols: Vec<usize>,
}

impl Default for Indents {
    fn default() -> Self {
        Indents {
            cols: vec![0],
            alt_cols: vec![0],
        }
    }
}

impl Indents {
    /// Checks the indentation of the line starting at `start` (blank and comment-only
    /// lines do not count), as CPython 3.11's tokenizer does.
    fn line(&mut self, chars: &[char], start: usize) -> Result<(), &'static str> {
        let (mut col, mut alt) = (0usize, 0usize);
        let mut i = start;
        while let Some(&c) = chars.get(i) {
            match c {
                ' ' => {
                    col += 1;
                    alt += 1;
                }
                '\t' => {
                    col = (col / 8 + 1) * 8;
                    alt += 1;
                }
                '\x0c' => {
                    col = 0;
                    alt = 0;
                }
                _ => break,
            }
            i += 1;
        }
        if matches!(chars.get(i), None | Some('#' | '\n' | '\r')) {
            return Ok(());
        }
        let (top, alt_top) = (
            *self.cols.last().unwrap_or(&0),
            *self.alt_cols.last().unwrap_or(&0),
        );
        if col == top {
            if alt != alt_top {
                return Err(TAB_ERROR);
            }
        } else if col > top {
            if alt <= alt_top {
                return Err(TAB_ERROR);
            }
            self.cols.push(col);
            self.alt_cols.push(alt);
        } else {
            while self.cols.len() > 1 && col < *self.cols.last().unwrap_or(&0) {
                self.cols.pop();
                self.alt_cols.pop();
            }
            if col != *self.cols.last().unwrap_or(&0) {
                return Err("unindent does not match any outer indentation level");
            }
            if alt != *self.alt_cols.last().unwrap_or(&0) {
                return Err(TAB_ERROR);
            }
        }
        Ok(())
    }
}

/// Scans `source` like CPython's tokenizer does for bracket, string and indentation errors.
pub fn scan_tokens(source: &str) -> TokenizerScan {
    let chars: Vec<char> = source.chars().collect();
    let last_line = source.trim_end_matches('\n').matches('\n').count() + 1;
    let mut line = 1;
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut indents = Indents::default();
    let mut i = 0;
    let error = |line: usize, msg: String| TokenizerScan {
        error: Some((line, msg)),
        unclosed: None,
    };
    if let Err(msg) = indents.line(&chars, 0) {
        return error(line, msg.to_string());
    }
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                line += 1;
                // A new logical line starts only outside brackets.
                if stack.is_empty()
                    && let Err(msg) = indents.line(&chars, i + 1)
                {
                    return error(line, msg.to_string());
                }
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '\\' if chars.get(i + 1) == Some(&'\n') => {
                line += 1;
                i += 2;
                continue;
            }
            '(' | '[' | '{' => {
                if stack.len() >= MAX_BRACKET_NESTING {
                    return error(line, TOO_MANY_BRACKETS.to_string());
                }
                stack.push((c, line));
            }
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                match stack.pop() {
                    None => return error(line, format!("unmatched '{c}'")),
                    Some((open, _)) if open == want => {}
                    Some((open, open_line)) => {
                        let msg = if open_line == line {
                            format!(
                                "closing parenthesis '{c}' does not match opening parenthesis '{open}'"
                            )
                        } else {
                            format!(
                                "closing parenthesis '{c}' does not match opening parenthesis '{open}' on line {open_line}"
                            )
                        };
                        return error(line, msg);
                    }
                }
            }
            '\'' | '"' => {
                let start_line = line;
                let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
                i += if triple { 3 } else { 1 };
                let mut closed = false;
                while i < chars.len() {
                    let d = chars[i];
                    if d == '\\' {
                        if chars.get(i + 1) == Some(&'\n') {
                            line += 1;
                        }
                        i += 2;
                        continue;
                    }
                    if d == '\n' {
                        if !triple {
                            break;
                        }
                        line += 1;
                    }
                    if d == c
                        && (!triple
                            || (chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c)))
                    {
                        i += if triple { 3 } else { 1 };
                        closed = true;
                        break;
                    }
                    i += 1;
                }
                if !closed {
                    return if triple {
                        error(
                            start_line,
                            format!(
                                "unterminated triple-quoted string literal (detected at line {last_line})"
                            ),
                        )
                    } else {
                        error(
                            start_line,
                            format!("unterminated string literal (detected at line {start_line})"),
                        )
                    };
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    TokenizerScan {
        error: None,
        unclosed: stack.last().map(|(c, l)| (*l, *c)),
    }
}
