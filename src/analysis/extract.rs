//! Step 1 and the entry-name rule of the official grader (GRADER.md).

use memchr::memmem::Finder;
use std::ops::Range;
use std::sync::LazyLock;

/// The code the grader extracted from a response, and where it sits in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    pub code: String,
    /// Byte range of `code` inside the response.
    pub span: Range<usize>,
    /// How many ```` ```python ```` blocks the response had (the last one wins).
    pub blocks_found: usize,
}

impl CodeBlock {
    /// 1-based line in the response where the extracted code starts.
    pub fn first_response_line(&self, response: &str) -> usize {
        response[..self.span.start].matches('\n').count() + 1
    }
}

const OPEN: &str = "```python\n";
const CLOSE: &str = "```";

/// The last match of ```` ```python\n([\s\S]*?)``` ```` in `response`, as the
/// official grader does (non-overlapping matches, scanning left to right).
pub fn extract_last_python_block(response: &str) -> Option<CodeBlock> {
    let spans = python_block_spans(response);
    let count = spans.len();
    spans
        .last()
        .map(|span| block(response, span.clone(), count))
}

/// The first match of the same expression: the block the official RL reward scores.
pub fn extract_first_python_block(response: &str) -> Option<CodeBlock> {
    let spans = python_block_spans(response);
    let count = spans.len();
    spans
        .first()
        .map(|span| block(response, span.clone(), count))
}

fn block(response: &str, span: Range<usize>, blocks_found: usize) -> CodeBlock {
    CodeBlock {
        code: response[span.clone()].to_string(),
        span,
        blocks_found,
    }
}

/// Byte ranges of every match of ```` ```python\n([\s\S]*?)``` ````, in order.
/// (Searched with SIMD finders built once: every loaded row is searched.)
pub fn python_block_spans(response: &str) -> Vec<Range<usize>> {
    static FINDERS: LazyLock<(Finder<'static>, Finder<'static>)> =
        LazyLock::new(|| (Finder::new(OPEN), Finder::new(CLOSE)));
    let (open, close) = &*FINDERS;
    let bytes = response.as_bytes();
    let mut pos = 0;
    let mut spans = Vec::new();
    while let Some(rel) = open.find(&bytes[pos..]) {
        let body_start = pos + rel + OPEN.len();
        match close.find(&bytes[body_start..]) {
            Some(end_rel) => {
                let body_end = body_start + end_rel;
                spans.push(body_start..body_end);
                pos = body_end + CLOSE.len();
            }
            // No closing fence: the regex cannot match here, nor at any later opening.
            None => break,
        }
    }
    spans
}

/// 1-based first and last response lines of a byte range (the last line is the one
/// holding the range's last byte).
pub fn response_lines(response: &str, span: &Range<usize>) -> (usize, usize) {
    let line_of = |at: usize| response[..at].matches('\n').count() + 1;
    let first = line_of(span.start);
    (first, line_of(span.end.saturating_sub(1).max(span.start)))
}

/// The entry function name: the first match of `def\s+([a-zA-Z_]\w*)\s*\(` anywhere
/// in the code text (Python's Unicode-aware `\s` and `\w`). Empty when there is none.
pub fn entry_function_name(code: &str) -> String {
    let mut search = 0;
    while let Some(rel) = code[search..].find("def") {
        let at = search + rel;
        search = at + 3;
        if let Some(name) = match_def_at(&code[at + 3..]) {
            return name.to_string();
        }
    }
    String::new()
}

fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn is_py_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// After `def`: `\s+([a-zA-Z_]\w*)\s*\(`.
fn match_def_at(rest: &str) -> Option<&str> {
    let after_space = rest.trim_start_matches(is_py_space);
    if after_space.len() == rest.len() {
        return None;
    }
    let first = after_space.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let name_len: usize = after_space
        .char_indices()
        .find(|(_, c)| !is_py_word(*c))
        .map(|(i, _)| i)
        .unwrap_or(after_space.len());
    let name = &after_space[..name_len];
    let tail = after_space[name_len..].trim_start_matches(is_py_space);
    tail.starts_with('(').then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_block_wins_and_span_points_into_response() {
        let r = "text\n```python\nx = 1\n```\nmore\n```python\ndef f():\n    return 2\n```\n";
        let b = extract_last_python_block(r).expect("block");
        assert_eq!(b.code, "def f():\n    return 2\n");
        assert_eq!(&r[b.span.clone()], b.code);
        assert_eq!(b.blocks_found, 2);
        assert_eq!(b.first_response_line(r), 7);
    }

    #[test]
    fn first_block_is_the_rewards() {
        let r = "a\n```python\nx = 1\n```\nb\n```python\ndef f():\n    return 2\n```\n";
        let first = extract_first_python_block(r).expect("block");
        assert_eq!(first.code, "x = 1\n");
        assert_eq!(first.blocks_found, 2);
        assert_eq!(response_lines(r, &first.span), (3, 3));
        let last = extract_last_python_block(r).expect("block");
        assert_eq!(response_lines(r, &last.span), (7, 8));
        assert_eq!(extract_first_python_block("no code"), None);
    }

    #[test]
    fn other_tags_do_not_match() {
        for r in [
            "```python3\nx=1\n```",
            "```Python\nx=1\n```",
            "``` python\nx=1\n```",
            "```py\nx=1\n```",
            "```python x\n```",
            "```python\nno closing fence",
        ] {
            assert_eq!(extract_last_python_block(r), None, "{r}");
        }
    }

    #[test]
    fn lazy_match_stops_at_first_closing_fence() {
        let r = "```python\na = '```'\n```";
        assert_eq!(extract_last_python_block(r).expect("block").code, "a = '");
    }

    #[test]
    fn entry_name_quirks() {
        assert_eq!(
            entry_function_name("def helper(x):\n  pass\ndef solve(a):\n  pass"),
            "helper"
        );
        assert_eq!(
            entry_function_name("\"\"\"use def x( here\"\"\"\ndef solve():"),
            "x"
        );
        assert_eq!(
            entry_function_name("undefined(3)\ndef  solve  (a)"),
            "solve"
        );
        assert_eq!(entry_function_name("async def run(x): pass"), "run");
        assert_eq!(entry_function_name("def 1x(): pass"), "");
        assert_eq!(entry_function_name("x = 1"), "");
        assert_eq!(entry_function_name("defsolve(a)\ndef\tgo(b)"), "go");
    }
}
