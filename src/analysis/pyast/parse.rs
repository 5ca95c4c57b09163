//! [`parse_suite`]: the source parsed as CPython 3.11 parses it. What CPython's tokenizer
//! refuses before parsing (too many nested brackets, inconsistent tabs) and what only 3.12
//! accepts (PEP 695 type parameters, backslashes in f-string expressions) fail here too,
//! trees nested deeper than CPython builds fail as its RecursionError, and large sources
//! parse on a thread with a stack sized to them.

use rustpython_parser::{Parse, ParseErrorType};

use super::ast;
use super::positions::{LineIndex, end_of, start_of};
use super::recursion::{PY_RECURSION_LIMIT, depth_of};
use super::suite::Suite;
use super::tokens::{MAX_BRACKET_NESTING, TAB_ERROR, TOO_MANY_BRACKETS, scan_tokens};
use super::walk::{Node, walk_suite};

/// Why the parser rejected the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFailure {
    /// The parser's own message.
    pub message: String,
    /// The token the parser did not expect, as it prints it (`'='`, `Newline`, `Indent`).
    pub unexpected_token: Option<String>,
    /// The parser expected an indented block here.
    pub expected_indent: bool,
    /// The input ended in the middle of a statement.
    pub unexpected_eof: bool,
    /// Byte offset of the error in the source.
    pub offset: usize,
    /// The error is in an f-string that Python 3.12 (PEP 701) would accept,
    /// so CPython may disagree with this parser here.
    pub maybe_py312_fstring: bool,
    /// CPython 3.11's own message, when this failure is one it is known to give
    /// (Python 3.12-only syntax that this parser accepts but 3.11 rejects).
    pub cpython_message: Option<String>,
    /// The tree parsed but is nested deeper than CPython builds (its depth in nodes):
    /// a RecursionError, not a syntax error.
    pub too_deep: Option<usize>,
}

/// Parses `source` as a Python 3.11 module (the grader's Python): syntax this parser
/// accepts but 3.11 rejects (PEP 695 type parameters and `type` statements, backslashes
/// inside f-string expressions) fails too.
pub fn parse_suite(source: &str) -> Result<Suite, ParseFailure> {
    if let Some((offset, message)) = tokenizer_refusal(source) {
        return Err(ParseFailure {
            message: message.to_string(),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset,
            maybe_py312_fstring: false,
            cpython_message: None,
            too_deep: None,
        });
    }
    let stmts = parse_suite_any(source)?;
    let depth = depth_of(&stmts);
    let suite = Suite { stmts, depth };
    if depth > AST_DEPTH_CEILING {
        // Dropped without recursion (see `Suite`'s `Drop`).
        drop(suite);
        return Err(ParseFailure {
            message: RECURSION_IN_AST_CONSTRUCTION.to_string(),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset: 0,
            maybe_py312_fstring: false,
            cpython_message: None,
            too_deep: Some(depth),
        });
    }
    match py312_only_syntax(source, &suite) {
        Some((offset, message)) => Err(ParseFailure {
            message: format!("{message} (accepted from Python 3.12 on)"),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset,
            maybe_py312_fstring: false,
            cpython_message: Some(message.to_string()),
            too_deep: None,
        }),
        None => Ok(suite),
    }
}

/// CPython's message when building the `ast` objects of a too deeply nested tree fails.
pub const RECURSION_IN_AST_CONSTRUCTION: &str =
    "maximum recursion depth exceeded during ast construction";

/// Nesting of AST nodes that CPython 3.11 refuses to build at any call depth (three times
/// the default recursion limit); deeper trees are refused before any analysis walks them,
/// and CPython rejects a little less deep ones depending on where `ast.parse` is called
/// from (see `static_check`).
pub const AST_DEPTH_CEILING: usize = 3 * PY_RECURSION_LIMIT;

/// Errors CPython's tokenizer raises that this parser may not: brackets nested past
/// [`MAX_BRACKET_NESTING`], and tabs and spaces mixed inconsistently (TabError). Scanned
/// only when the source could have them.
fn tokenizer_refusal(source: &str) -> Option<(usize, &'static str)> {
    let opening = source
        .bytes()
        .filter(|b| matches!(b, b'(' | b'[' | b'{'))
        .count();
    if opening < MAX_BRACKET_NESTING && !source.contains('\t') {
        return None;
    }
    let (line, message) = scan_tokens(source).error?;
    let known = [TOO_MANY_BRACKETS, TAB_ERROR]
        .into_iter()
        .find(|m| *m == message)?;
    let offset = LineIndex::new(source).line_start(line).unwrap_or(0);
    Some((offset, known))
}

/// The first 3.12-only construct (by position) and CPython 3.11's message for it.
fn py312_only_syntax(source: &str, suite: &Suite) -> Option<(usize, &'static str)> {
    if !may_have_py312_only_syntax(source) {
        return None;
    }
    walk_suite(suite)
        .into_iter()
        .filter_map(|n| match n {
            Node::Expr(ast::Expr::FormattedValue(f)) => {
                let expr = source.get(start_of(&*f.value)..end_of(&*f.value))?;
                expr.contains('\\').then(|| {
                    (
                        start_of(&*f.value),
                        "f-string expression part cannot include a backslash",
                    )
                })
            }
            // 3.11 expects the parameter list right after the name.
            Node::Stmt(ast::Stmt::FunctionDef(f)) if !f.type_params.is_empty() => {
                Some((start_of(&f.type_params[0]), "expected '('"))
            }
            Node::Stmt(ast::Stmt::AsyncFunctionDef(f)) if !f.type_params.is_empty() => {
                Some((start_of(&f.type_params[0]), "expected '('"))
            }
            Node::Stmt(ast::Stmt::ClassDef(c)) if !c.type_params.is_empty() => {
                Some((start_of(&c.type_params[0]), "invalid syntax"))
            }
            Node::Stmt(s @ ast::Stmt::TypeAlias(_)) => Some((start_of(s), "invalid syntax")),
            _ => None,
        })
        .min_by_key(|(offset, _)| *offset)
}

/// What follows `word` at the start of `text` when whitespace (tabs too) comes after it.
fn after_keyword<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(word)?;
    rest.starts_with(char::is_whitespace).then_some(rest)
}

/// Whether `source` can hold what [`py312_only_syntax`] looks for, read from the text: a
/// backslash (inside an f-string), a `def`/`class` name followed by `[`, or the word
/// `type` followed by whitespace. False means it surely holds none (most code), and the
/// tree need not be walked.
fn may_have_py312_only_syntax(source: &str) -> bool {
    if source.contains('\\') {
        return true;
    }
    source.lines().any(|line| {
        // `type` as a word followed by whitespace (`type X = int`, after `;` or `:` too).
        let alias = line.match_indices("type").any(|(i, _)| {
            let before = line[..i].chars().next_back();
            let after = line[i + 4..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && after.is_some_and(char::is_whitespace)
        });
        if alias {
            return true;
        }
        let t = line.trim_start();
        let t = after_keyword(t, "async").map_or(t, str::trim_start);
        let rest = after_keyword(t, "def").or_else(|| after_keyword(t, "class"));
        rest.is_some_and(|r| {
            let after_name = r
                .trim_start()
                .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
            after_name.trim_start().starts_with('[')
        })
    })
}

/// Sources up to this size parse on the caller's thread: the parser's stack use grows with
/// the nesting of the source, which cannot exceed its length (about 128 bytes of stack per
/// byte of source, measured on a debug build: `-` chains, `a.b.c` chains, `[[[`, failed
/// parses dropping half-built trees), and 4 KiB of source stays well inside a 2 MiB thread.
const INLINE_PARSE_BYTES: usize = 4 * 1024;

/// Parses with everything this parser accepts. Larger sources parse on a thread of their
/// own with a stack sized to the source (twice the measured need; 1 GiB for the longest
/// line a rollout file may hold), so no input overflows the caller's stack.
fn parse_suite_any(source: &str) -> Result<Vec<ast::Stmt>, ParseFailure> {
    if source.len() <= INLINE_PARSE_BYTES {
        return parse_suite_here(source);
    }
    let stack = (1 << 20) + source.len().saturating_mul(256).min(1 << 30);
    let owned = source.to_owned();
    let joined = std::thread::Builder::new()
        .name("sebx-parse".to_owned())
        .stack_size(stack)
        .spawn(move || parse_suite_here(&owned))
        .map(|handle| handle.join());
    match joined {
        Ok(Ok(result)) => result,
        // The parser panicked, or no thread could be made: say so as a parse failure.
        Ok(Err(_)) | Err(_) => Err(ParseFailure {
            message: "the parser could not handle this program (too large or too deeply nested)"
                .to_owned(),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset: 0,
            maybe_py312_fstring: false,
            cpython_message: None,
            too_deep: None,
        }),
    }
}

fn parse_suite_here(source: &str) -> Result<Vec<ast::Stmt>, ParseFailure> {
    ast::Suite::parse(source, "<unknown>").map_err(|e| {
        let offset = usize::from(e.offset).min(source.len());
        let maybe_py312_fstring = matches!(
            &e.error,
            ParseErrorType::Lexical(rustpython_parser::lexer::LexicalErrorType::FStringError(_))
        ) || line_has_fstring_at(source, offset);
        let (unexpected_token, expected_indent) = match &e.error {
            ParseErrorType::UnrecognizedToken(tok, expected) => {
                (Some(tok.to_string()), expected.as_deref() == Some("Indent"))
            }
            ParseErrorType::ExtraToken(tok) => (Some(tok.to_string()), false),
            _ => (None, false),
        };
        ParseFailure {
            message: e.error.to_string(),
            cpython_message: None,
            unexpected_token,
            expected_indent,
            unexpected_eof: matches!(
                e.error,
                ParseErrorType::Eof
                    | ParseErrorType::Lexical(rustpython_parser::lexer::LexicalErrorType::Eof)
            ),
            offset,
            maybe_py312_fstring,
            too_deep: None,
        }
    })
}

/// Whether the line holding `offset` contains an f-string prefix (`f"`, `rf'`…).
fn line_has_fstring_at(source: &str, offset: usize) -> bool {
    let start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = source[offset..]
        .find('\n')
        .map_or(source.len(), |i| offset + i);
    let line = source[start..end].to_ascii_lowercase();
    let bytes = line.as_bytes();
    bytes.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'f'
            && (w[1] == b'"' || w[1] == b'\'')
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'r')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::pyast::suite::RECURSIVE_DROP_DEPTH;

    /// CPython 3.11's tokenizer compares indentation with tabs as 8 columns and as 1; each
    /// case's message and line were checked against `ast.parse` in the grading runtime.
    #[test]
    fn indentation_errors_follow_cpython() {
        let cases = [
            (
                "def f(a):\n\tx = 1\n return x\n",
                Some((3, "unindent does not match any outer indentation level")),
            ),
            (
                "def f(a):\n        x = 1\n\treturn x\n",
                Some((3, TAB_ERROR)),
            ),
            ("def f(a):\n  \tx = 1\n\treturn x\n", Some((3, TAB_ERROR))),
            (
                "if 1:\n\tif 1:\n\t\tx=1\n\t        y=2\n",
                Some((4, TAB_ERROR)),
            ),
            ("def f(a):\n\tx = 1\n\treturn x\n", None),
            (
                "def f(a):\n\tx = (1,\n  2)\n\t# comment\n\n\treturn x\n",
                None,
            ),
        ];
        for (src, want) in cases {
            let got = scan_tokens(src).error;
            assert_eq!(got.as_ref().map(|(l, m)| (*l, m.as_str())), want, "{src:?}");
            if let Some((_, msg)) = want.filter(|(_, m)| *m == TAB_ERROR) {
                assert_eq!(parse_suite(src).expect_err("TabError").message, msg);
            }
        }
    }

    #[test]
    fn trees_dropped_recursively_fit_a_small_stack() {
        // Just under the depth that is still dropped recursively, on a 256 KiB stack (a
        // quarter of the smallest thread stack sebx runs analysis on): the drop fits.
        let unary = format!("x = {}1\n", "-".repeat(RECURSIVE_DROP_DEPTH - 4));
        let chain = format!("x = a{}\n", ".b".repeat(RECURSIVE_DROP_DEPTH - 4));
        let dropped = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                for src in [unary, chain] {
                    let suite = parse_suite(&src).expect("parses");
                    assert!(suite.depth <= RECURSIVE_DROP_DEPTH, "{}", suite.depth);
                    assert!(suite.depth > RECURSIVE_DROP_DEPTH - 10, "{}", suite.depth);
                    drop(suite);
                }
            })
            .expect("thread")
            .join();
        assert!(dropped.is_ok());
    }

    #[test]
    fn the_text_filter_lets_every_312_only_form_through() {
        for src in [
            "def f[T](x):\n    return x\n",
            "async def f[T](x):\n    return x\n",
            "class A[T]:\n    pass\n",
            "type X = int\n",
            "x = 1; type X = int\n",
            "if True: type X = int\n",
            "y = f\"{'\\n'.join(a)}\"\n",
            "if 1:\n    def  g [T](x): pass\n",
            "def\tf[T](x):\n    return x\n",
        ] {
            assert!(may_have_py312_only_syntax(src), "{src}");
        }
        for src in [
            "def f(x):\n    return zwc.yitaf(x, dtype=int)[0]\n",
            "class A:\n    xs = [1]\n",
            "t = type(x) if isinstance(x, type) else x.dtype\n",
        ] {
            assert!(!may_have_py312_only_syntax(src), "{src}");
        }
    }

    #[test]
    fn python_312_only_syntax_is_rejected_as_311_does() {
        let err = parse_suite("x = 1\ndef f[T](x):\n    return x\n").expect_err("3.11 rejects");
        assert_eq!(err.cpython_message.as_deref(), Some("expected '('"));
        assert_eq!(err.offset, "x = 1\ndef f[".len());
        let err = parse_suite("type X = int\n").expect_err("3.11 rejects");
        assert_eq!(err.cpython_message.as_deref(), Some("invalid syntax"));
        let err = parse_suite("class A[T]:\n    pass\n").expect_err("3.11 rejects");
        assert_eq!(err.cpython_message.as_deref(), Some("invalid syntax"));
        // `type` as a plain name is fine.
        assert!(parse_suite("type = 3\nprint(type)\n").is_ok());
    }

    #[test]
    fn fstring_expressions_with_backslash_or_hash_fail_as_on_311() {
        let err = parse_suite("x = 1\ny = f\"{'\\n'.join(a)}\"\n").expect_err("3.11 rejects");
        assert_eq!(
            err.cpython_message.as_deref(),
            Some("f-string expression part cannot include a backslash")
        );
        assert_eq!(err.offset, "x = 1\ny = f\"{".len());
        // Backslashes in the literal part, `#` in a string, format specs and conversions are fine.
        for ok in [
            "y = f'{\"#\"}'\n",
            "y = f'a\\n{b}#'\n",
            "y = f\"{a:{w}.{p}f}\"\n",
            "y = f'{x=}' + f'{x!r}'\n",
            "y = f'{a}\\t{b}'\n",
        ] {
            assert!(parse_suite(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn fstring_312_failure_is_flagged() {
        let err = parse_suite("x = f\"{d[\"a\"]}\"\n").expect_err("3.11 grammar rejects it");
        assert!(err.maybe_py312_fstring, "{err:?}");
        let err = parse_suite("x = (1 +\n").expect_err("unclosed");
        assert!(!err.maybe_py312_fstring);
    }
}
