//! Steps 2 and 3 of GRADER.md: rewriting test inputs and assembling the test program.

use std::fmt::Write;

use crate::model::TestCase;

/// The separator line the harness prints before the results.
pub const RESULTS_SEPARATOR: &str = "====================";

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Replaces each whole-word `np.array` (regex `\bnp\.array\b`) with `zwc.yitaf`.
/// `np.array_equal` and `xnp.array` are untouched.
pub fn rewrite_input(input: &str) -> String {
    const NEEDLE: &str = "np.array";
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    let mut prev: Option<char> = None;
    while let Some(at) = rest.find(NEEDLE) {
        let before = rest[..at].chars().next_back().or(prev);
        let after = rest[at + NEEDLE.len()..].chars().next();
        let boundary_before = before.is_none_or(|c| !is_word_char(c));
        let boundary_after = after.is_none_or(|c| !is_word_char(c));
        out.push_str(&rest[..at]);
        if boundary_before && boundary_after {
            out.push_str("zwc.yitaf");
        } else {
            out.push_str(NEEDLE);
        }
        prev = Some('y');
        rest = &rest[at + NEEDLE.len()..];
    }
    out.push_str(rest);
    out
}

/// Test cases with their inputs rewritten.
pub fn rewrite_cases(cases: &[TestCase]) -> Vec<TestCase> {
    cases
        .iter()
        .map(|c| TestCase {
            input: rewrite_input(&c.input),
            output: c.output.clone(),
        })
        .collect()
}

/// Python's `repr` of a `str`.
pub fn python_str_repr(s: &str) -> String {
    str_repr(s)
}

/// Python's `repr(str)`: single quotes unless the text has a `'` and no `"`;
/// characters `str.isprintable` rejects are escaped.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_python_printable(c) => {
                let n = c as u32;
                let _ = if n < 0x100 {
                    write!(out, "\\x{n:02x}")
                } else if n < 0x10000 {
                    write!(out, "\\u{n:04x}")
                } else {
                    write!(out, "\\U{n:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Approximates `str.isprintable` for one character: control, format and
/// separator characters other than the ASCII space are not printable.
fn is_python_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{feff}'
            | '\u{e000}'..='\u{f8ff}'
    )
}

/// Python's `repr` of the rewritten test-case list (a list of `{'input': ..., 'output': ...}`).
pub fn python_cases_repr(cases: &[TestCase]) -> String {
    let items: Vec<String> = cases
        .iter()
        .map(|c| {
            format!(
                "{{'input': {}, 'output': {}}}",
                python_str_repr(&c.input),
                python_str_repr(&c.output)
            )
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// The program the official harness runs: the code, immediately followed (no newline
/// added) by the harness that calls `entry` on every rewritten case and prints results.
pub fn assemble_program(code: &str, entry: &str, rewritten_cases: &[TestCase]) -> String {
    let mut p = String::with_capacity(code.len() + 256 + rewritten_cases.len() * 64);
    p.push_str(code);
    push_harness(
        &mut p,
        entry,
        rewritten_cases,
        &python_cases_repr(rewritten_cases),
    );
    p
}

/// How every official harness begins, after the code (the official spacing kept).
pub const HARNESS_HEAD: &str = "import zwc\nif __name__== \"__main__\":\n";

/// Appends the harness of [`assemble_program`] to `p`, with `cases_repr` the
/// [`python_cases_repr`] of `rewritten_cases` (callers that see the same cases under many
/// entry names compute it once).
pub fn push_harness(p: &mut String, entry: &str, rewritten_cases: &[TestCase], cases_repr: &str) {
    p.push_str(HARNESS_HEAD);
    p.push_str("    test_cases = ");
    p.push_str(cases_repr);
    p.push('\n');
    push_calls(p, entry, rewritten_cases);
}

/// The program the official RL reward runs: the code, then the same harness without its
/// `test_cases = [...]` line, calling `entry` on the cases as given (`np.array` is not
/// rewritten).
pub fn assemble_reward_program(code: &str, entry: &str, cases: &[TestCase]) -> String {
    let mut p = String::with_capacity(code.len() + 256 + cases.len() * 48);
    p.push_str(code);
    push_reward_harness(&mut p, entry, cases);
    p
}

/// Appends the harness of [`assemble_reward_program`] to `p`.
pub fn push_reward_harness(p: &mut String, entry: &str, cases: &[TestCase]) {
    p.push_str(HARNESS_HEAD);
    push_calls(p, entry, cases);
}

/// The harness from `result_list = []` on: one call per case, then the printing loop.
fn push_calls(p: &mut String, entry: &str, rewritten_cases: &[TestCase]) {
    p.push_str("    result_list = []\n");
    for case in rewritten_cases {
        p.push_str("    result_list.append(");
        p.push_str(entry);
        p.push('(');
        p.push_str(&case.input);
        p.push_str("))\n");
    }
    p.push_str("    print(\"");
    p.push_str(RESULTS_SEPARATOR);
    p.push_str("\")\n    for i in range(len(result_list)):\n        print(result_list[i])\n        print(\"#\")");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_whole_word_only() {
        assert_eq!(
            rewrite_input("a=np.array([1, 2]), b=np.array_equal, c=xnp.array(1), d=np.arrays"),
            "a=zwc.yitaf([1, 2]), b=np.array_equal, c=xnp.array(1), d=np.arrays"
        );
        assert_eq!(rewrite_input("np.array"), "zwc.yitaf");
        assert_eq!(
            rewrite_input("(np.array(np.array([1])))"),
            "(zwc.yitaf(zwc.yitaf([1])))"
        );
        assert_eq!(rewrite_input("énp.array(1)"), "énp.array(1)");
    }

    #[test]
    fn str_repr_matches_python() {
        assert_eq!(python_str_repr("a=[1, 2]"), "'a=[1, 2]'");
        assert_eq!(python_str_repr("it's"), "\"it's\"");
        assert_eq!(python_str_repr("'\""), "'\\'\"'");
        assert_eq!(python_str_repr("a\nb\\c\x01é"), "'a\\nb\\\\c\\x01é'");
    }

    #[test]
    fn program_shape_is_exact() {
        let cases = vec![
            TestCase {
                input: "x=[1, 2]".into(),
                output: "[1 2]".into(),
            },
            TestCase {
                input: "x=zwc.yitaf([3])".into(),
                output: "[3]".into(),
            },
        ];
        let p = assemble_program("def f(x):\n    return x", "f", &cases);
        let expected = "def f(x):\n    return ximport zwc\nif __name__== \"__main__\":\n    test_cases = [{'input': 'x=[1, 2]', 'output': '[1 2]'}, {'input': 'x=zwc.yitaf([3])', 'output': '[3]'}]\n    result_list = []\n    result_list.append(f(x=[1, 2]))\n    result_list.append(f(x=zwc.yitaf([3])))\n    print(\"====================\")\n    for i in range(len(result_list)):\n        print(result_list[i])\n        print(\"#\")";
        assert_eq!(p, expected);
        // The reward's harness: the same, without the `test_cases = ...` line.
        let reward = assemble_reward_program("def f(x):\n    return x", "f", &cases);
        let without_line: String = expected
            .lines()
            .filter(|l| !l.starts_with("    test_cases = "))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(reward, without_line);
    }
}
