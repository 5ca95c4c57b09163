//! CPython's wording and line for a parse failure ([`describe_parse_failure`]): the
//! official grader reports CPython 3.11's message, and this crate's parser words its
//! errors differently, so the common shapes are told apart here.

use super::outcome::SyntaxErrorInfo;
use crate::analysis::pyast::{self, LineIndex, ParseFailure};

/// CPython's wording and line for a parse failure, for the common shapes; otherwise
/// "invalid syntax" at the parser's position.
pub fn describe_parse_failure(
    program: &str,
    index: &LineIndex,
    f: &ParseFailure,
) -> SyntaxErrorInfo {
    let (line, col) = index.position(program, f.offset);
    let line_text = |n: usize| -> &str {
        index
            .line_start(n)
            .map(|s| program[s..].lines().next().unwrap_or(""))
            .unwrap_or("")
    };
    let mut out = SyntaxErrorInfo {
        message: "invalid syntax".to_string(),
        line,
        col,
        parser_message: f.message.clone(),
        maybe_py312_fstring: f.maybe_py312_fstring,
        python312_accepts: f.cpython_message.is_some(),
    };
    if f.too_deep.is_some() {
        // Not a syntax error: CPython raises RecursionError building the tree.
        out.message = format!("RecursionError: {}", pyast::RECURSION_IN_AST_CONSTRUCTION);
        return out;
    }
    let token = f.unexpected_token.as_deref();
    // CPython prefers tokenizer errors (strings, brackets) to parser errors.
    let scan = if f.cpython_message.is_none() && !f.message.contains("indentation level") {
        pyast::scan_tokens(program)
    } else {
        pyast::TokenizerScan::default()
    };
    if let Some(m) = &f.cpython_message {
        out.message = m.clone();
    } else if let Some((l, m)) = scan.error {
        out.message = m;
        out.line = l;
    } else if let Some((l, open)) = scan.unclosed
        && (f.unexpected_eof || line > l)
    {
        out.message = format!("'{open}' was never closed");
        out.line = l;
    } else if f.message.contains("indentation level") {
        out.message = "unindent does not match any outer indentation level".to_string();
    } else if token == Some("Indent") {
        out.message = "unexpected indent".to_string();
    } else if f.expected_indent {
        // The header is the last non-blank line before the error.
        let header = (1..line)
            .rev()
            .map(|n| (n, line_text(n).trim()))
            .find(|(_, t)| !t.is_empty() && !t.starts_with('#'));
        if let Some((n, text)) = header {
            let kw = first_word(text);
            let what = match kw {
                "def" | "async" => "function definition".to_string(),
                "class" => "class definition".to_string(),
                other => format!("'{other}' statement"),
            };
            out.message = format!("expected an indented block after {what} on line {n}");
        } else {
            out.message = "expected an indented block".to_string();
        }
    } else if token == Some("Newline") {
        let text = line_text(line).trim_start();
        if COMPOUND_KEYWORDS.contains(&first_word(text)) && !text.trim_end().ends_with(':') {
            out.message = "expected ':'".to_string();
        }
    } else if token == Some("'='") && preceded_by_plain_name(program, f.offset) {
        out.message = "invalid syntax. Maybe you meant '==' or ':=' instead of '='?".to_string();
    }
    out
}

const COMPOUND_KEYWORDS: &[&str] = &[
    "def", "class", "if", "elif", "else", "for", "while", "with", "try", "except", "finally",
    "async",
];

fn first_word(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// `name =` where `name` is a bare identifier (not `a.b` or `a[0]`), the shape CPython
/// reports as "Maybe you meant '=='".
fn preceded_by_plain_name(program: &str, offset: usize) -> bool {
    let before = program[..offset].trim_end();
    let ident_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map(|(i, _)| i);
    match ident_start {
        Some(i) => !before[..i].trim_end().ends_with('.'),
        None => false,
    }
}
