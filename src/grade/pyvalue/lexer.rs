//! The lexer: printed text to tokens, with Python's rules for number, string and bytes
//! literals and its tokenizer's bracket-nesting limit.

use super::value::PyValue;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    Number(PyValue),
    Str(String),
    Bytes(Vec<u8>),
    Name(String),
    Op(&'static str),
}

/// Bracket nesting Python's tokenizer accepts (its `MAXLEVEL`); also bounds recursion here.
pub(super) const MAX_NESTING: usize = 200;

const OPERATORS: [&str; 26] = [
    "**", "//", "==", "!=", "<=", ">=", "->", ":=", "(", ")", "[", "]", "{", "}", ",", ":", ".",
    "+", "-", "*", "/", "%", "~", "<", ">", "@",
];

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

/// Any failure: Python would raise (SyntaxError, NameError, ...) or this evaluator does not
/// support the construct. Both make the grader fall back to text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalError;

pub(super) type EvalResult<T> = Result<T, EvalError>;

/// The tokens of `src`; an error where Python's tokenizer fails (or this one does not
/// support the text).
pub(super) fn tokenize(src: &str) -> EvalResult<Vec<Token>> {
    Lexer::new(src).tokens()
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl Lexer {
    fn new(src: &str) -> Self {
        Self {
            chars: src.chars().collect(),
            pos: 0,
            depth: 0,
        }
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn tokens(mut self) -> EvalResult<Vec<Token>> {
        let mut tokens = Vec::new();
        loop {
            self.skip_blank()?;
            let Some(c) = self.peek_at(0) else {
                return Ok(tokens);
            };
            if c.is_ascii_digit()
                || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()))
            {
                tokens.push(Token::Number(self.number()?));
            } else if is_ident_start(c) {
                let start = self.pos;
                while self.peek_at(0).is_some_and(is_ident_char) {
                    self.pos += 1;
                }
                let word: String = self.chars[start..self.pos].iter().collect();
                if matches!(self.peek_at(0), Some('\'' | '"')) && is_string_prefix(&word) {
                    tokens.push(self.string(&word)?);
                } else {
                    tokens.push(Token::Name(word));
                }
            } else if c == '\'' || c == '"' {
                tokens.push(self.string("")?);
            } else if c == '.' && self.peek_at(1) == Some('.') && self.peek_at(2) == Some('.') {
                self.pos += 3;
                tokens.push(Token::Name("...".to_owned()));
            } else {
                let op = OPERATORS
                    .iter()
                    .find(|op| {
                        op.chars()
                            .enumerate()
                            .all(|(i, oc)| self.peek_at(i) == Some(oc))
                    })
                    .ok_or(EvalError)?;
                self.pos += op.chars().count();
                match *op {
                    // Python's tokenizer: "too many nested parentheses" beyond 200 levels.
                    "(" | "[" | "{" if self.depth >= MAX_NESTING => return Err(EvalError),
                    "(" | "[" | "{" => self.depth += 1,
                    ")" | "]" | "}" => self.depth = self.depth.checked_sub(1).ok_or(EvalError)?,
                    _ => {}
                }
                tokens.push(Token::Op(op));
            }
        }
    }

    /// Skips spaces, tabs, form feeds, comments, and line breaks inside brackets (or at the
    /// very end). A line break between tokens at depth 0 ends the expression: an error.
    fn skip_blank(&mut self) -> EvalResult<()> {
        while let Some(c) = self.peek_at(0) {
            match c {
                ' ' | '\t' | '\x0c' => self.pos += 1,
                '#' => {
                    while self.peek_at(0).is_some_and(|c| c != '\n' && c != '\r') {
                        self.pos += 1;
                    }
                }
                '\n' | '\r' => {
                    if self.depth == 0 {
                        let rest_blank = self.chars[self.pos..]
                            .iter()
                            .all(|c| matches!(c, ' ' | '\t' | '\x0c' | '\n' | '\r'));
                        if !rest_blank {
                            return Err(EvalError);
                        }
                    }
                    self.pos += 1;
                }
                _ => return Ok(()),
            }
        }
        Ok(())
    }

    fn digits(&mut self, radix: u32, out: &mut String) -> EvalResult<()> {
        // Python allows single underscores between digits only.
        let mut last_underscore = false;
        let mut any = false;
        while let Some(c) = self.peek_at(0) {
            if c.is_digit(radix) {
                out.push(c);
                last_underscore = false;
                any = true;
            } else if c == '_' && any && !last_underscore {
                last_underscore = true;
            } else {
                break;
            }
            self.pos += 1;
        }
        if last_underscore {
            return Err(EvalError);
        }
        Ok(())
    }

    fn number(&mut self) -> EvalResult<PyValue> {
        let c0 = self.peek_at(0).ok_or(EvalError)?;
        if c0 == '0'
            && let Some(prefix) = self.peek_at(1)
        {
            let radix = match prefix {
                'x' | 'X' => 16,
                'o' | 'O' => 8,
                'b' | 'B' => 2,
                _ => 0,
            };
            if radix != 0 {
                self.pos += 2;
                if self.peek_at(0) == Some('_') {
                    self.pos += 1;
                }
                let mut digits = String::new();
                self.digits(radix, &mut digits)?;
                if digits.is_empty() || self.peek_at(0).is_some_and(is_ident_char) {
                    return Err(EvalError);
                }
                return i128::from_str_radix(&digits, radix)
                    .map(PyValue::Int)
                    .map_err(|_| EvalError);
            }
        }
        let mut int_part = String::new();
        self.digits(10, &mut int_part)?;
        let mut text = int_part.clone();
        let mut is_float = false;
        if self.peek_at(0) == Some('.') {
            self.pos += 1;
            is_float = true;
            text.push('.');
            let mut frac = String::new();
            if self.peek_at(0).is_some_and(|c| c.is_ascii_digit()) {
                self.digits(10, &mut frac)?;
            }
            text.push_str(&frac);
        }
        if matches!(self.peek_at(0), Some('e' | 'E')) {
            let sign_len = usize::from(matches!(self.peek_at(1), Some('+' | '-')));
            if self
                .peek_at(1 + sign_len)
                .is_some_and(|c| c.is_ascii_digit())
            {
                is_float = true;
                text.push('e');
                if sign_len == 1 {
                    text.push(self.peek_at(1).ok_or(EvalError)?);
                }
                self.pos += 1 + sign_len;
                let mut exp = String::new();
                self.digits(10, &mut exp)?;
                text.push_str(&exp);
            } else {
                return Err(EvalError);
            }
        }
        let imaginary = matches!(self.peek_at(0), Some('j' | 'J'));
        if imaginary {
            self.pos += 1;
        }
        // `1abc` and `1.5.2` are syntax errors ("invalid decimal literal").
        if self
            .peek_at(0)
            .is_some_and(|c| is_ident_char(c) || c == '.')
        {
            return Err(EvalError);
        }
        if imaginary {
            let im: f64 = text.parse().map_err(|_| EvalError)?;
            return Ok(PyValue::Complex(0.0, im));
        }
        if is_float {
            return text.parse().map(PyValue::Float).map_err(|_| EvalError);
        }
        // Decimal integers with a leading zero are a syntax error unless all zeros.
        if int_part.len() > 1 && int_part.starts_with('0') {
            return if int_part.chars().all(|c| c == '0') {
                Ok(PyValue::Int(0))
            } else {
                Err(EvalError)
            };
        }
        Ok(match int_part.parse::<i128>() {
            Ok(i) => PyValue::Int(i),
            Err(_) => PyValue::BigInt {
                negative: false,
                digits: int_part,
            },
        })
    }

    fn string(&mut self, prefix: &str) -> EvalResult<Token> {
        let lower = prefix.to_ascii_lowercase();
        let raw = lower.contains('r');
        let bytes = lower.contains('b');
        if lower.contains('f') {
            return Err(EvalError);
        }
        let quote = self.peek_at(0).ok_or(EvalError)?;
        let triple = self.peek_at(1) == Some(quote) && self.peek_at(2) == Some(quote);
        self.pos += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let c = self.peek_at(0).ok_or(EvalError)?;
            if c == quote {
                if !triple {
                    self.pos += 1;
                    break;
                }
                if self.peek_at(1) == Some(quote) && self.peek_at(2) == Some(quote) {
                    self.pos += 3;
                    break;
                }
                out.push(c);
                self.pos += 1;
                continue;
            }
            if (c == '\n' || c == '\r') && !triple {
                return Err(EvalError);
            }
            if c != '\\' {
                if bytes && !c.is_ascii() {
                    return Err(EvalError);
                }
                out.push(c);
                self.pos += 1;
                continue;
            }
            let next = self.peek_at(1).ok_or(EvalError)?;
            if raw {
                // Raw strings keep the backslash; it only stops the quote from ending them.
                out.push('\\');
                out.push(next);
                self.pos += 2;
                continue;
            }
            self.pos += 2;
            match next {
                '\n' => {}
                '\\' | '\'' | '"' => out.push(next),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'v' => out.push('\x0b'),
                '0'..='7' => {
                    let mut value = next.to_digit(8).ok_or(EvalError)?;
                    for _ in 0..2 {
                        match self.peek_at(0).and_then(|d| d.to_digit(8)) {
                            Some(d) => {
                                value = value * 8 + d;
                                self.pos += 1;
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(value).ok_or(EvalError)?);
                }
                'x' => out.push(self.hex_escape(2)?),
                'u' if !bytes => out.push(self.hex_escape(4)?),
                'U' if !bytes => out.push(self.hex_escape(8)?),
                'N' if !bytes => return Err(EvalError),
                other => {
                    // Unknown escapes keep their backslash (a DeprecationWarning, not an error).
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        if bytes {
            // Escapes like \xff give bytes above 0x7f; chars here are all < 0x100.
            let data = out
                .chars()
                .map(|c| u8::try_from(u32::from(c)).map_err(|_| EvalError))
                .collect::<EvalResult<Vec<u8>>>()?;
            return Ok(Token::Bytes(data));
        }
        Ok(Token::Str(out))
    }

    fn hex_escape(&mut self, len: usize) -> EvalResult<char> {
        let mut value = 0u32;
        for _ in 0..len {
            let d = self
                .peek_at(0)
                .and_then(|c| c.to_digit(16))
                .ok_or(EvalError)?;
            value = value * 16 + d;
            self.pos += 1;
        }
        char::from_u32(value).ok_or(EvalError)
    }
}

fn is_string_prefix(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "br" | "rb" | "f" | "fr" | "rf"
    )
}
