//! The check on the code and the grader's harness apart ([`check_zwc_usage_split`]), with
//! the same result as on the assembled program: the harness, large test-case literals and
//! all, is parsed once per distinct text instead of once per rollout.

use std::sync::{LazyLock, Mutex};

use super::cache::{PerTextCache, remembered, text_hash};
use super::check::{check_zwc_usage, zwc_import_names};
use super::outcome::{LIB, StaticCheck};
use crate::analysis::pyast::{self, LineIndex, Node, ParseFailure};
use crate::model::bounded::Bounded;

/// The code's parse as a caller already has it: the result and, when it parsed, the line
/// index and every node breadth first ([`pyast::walk_suite`]), so they are not made twice.
#[derive(Clone, Copy)]
pub struct ParsedCode<'a> {
    pub parse: &'a Result<pyast::Suite, ParseFailure>,
    pub walked: Option<(&'a LineIndex, &'a [Node<'a>])>,
}

/// [`check_zwc_usage`] on `code` followed by the `harness` the grader appends (see
/// `grade::assemble`), giving the same result without parsing the harness's large
/// test-case literals for every rollout: when the code parses on its own and ends with a
/// newline, the harness is checked once per distinct text (it adds only `import zwc`).
/// `code_parse` is the code's parse, when the caller already has it.
pub fn check_zwc_usage_split(
    code: &str,
    code_parse: Option<ParsedCode<'_>>,
    harness: &str,
    entry: &str,
) -> StaticCheck {
    let full = || check_zwc_usage(&format!("{code}{harness}"), entry);
    // Without a final newline the harness's first line joins the code's last one.
    if !(code.is_empty() || code.ends_with('\n')) {
        return full();
    }
    if !harness_parses(harness, entry) {
        // Only the harness is there to fail; it is the same for every sample of a task.
        if code.is_empty() {
            return cached_harness_only_check(harness, entry);
        }
        return full();
    }
    let parsed;
    let (code_parse, walked) = match code_parse {
        Some(p) => (p.parse, p.walked),
        None => {
            parsed = pyast::parse_suite(code);
            (&parsed, None)
        }
    };
    let suite = match code_parse {
        Ok(s) => s,
        Err(f) => return code_error_or(code, f, entry, full),
    };
    let mut check = StaticCheck::empty(entry);
    if check.too_deep_to_build(suite) {
        return check;
    }
    let (index_here, nodes_here);
    let (index, all_nodes) = match walked {
        Some(w) => w,
        None => {
            index_here = LineIndex::new(code);
            nodes_here = pyast::walk_suite(suite);
            (&index_here, nodes_here.as_slice())
        }
    };
    let (_, mut names) = zwc_import_names(all_nodes);
    // The harness's `import zwc`.
    check.zwc_imported = true;
    names.push(LIB.to_string());
    names.sort();
    names.dedup();
    check.imported_names = names;
    check.finish(code, index, all_nodes);
    check
}

/// A parser error that is decided before the code's last line is decided the same way
/// whatever follows the code (the parser reads left to right and the tokens up to there
/// are the same), so the program fails there too; anything else needs the full program.
fn code_error_or(
    code: &str,
    failure: &ParseFailure,
    entry: &str,
    full: impl FnOnce() -> StaticCheck,
) -> StaticCheck {
    let last_line_start = code.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let parser_error = failure.unexpected_token.is_some() && !failure.unexpected_eof;
    if parser_error && failure.offset < last_line_start {
        let mut check = StaticCheck::empty(entry);
        check.fail_parse(code, &LineIndex::new(code), failure);
        return check;
    }
    full()
}

/// The check of a program that is the harness alone (no code), remembered per harness.
fn cached_harness_only_check(harness: &str, entry: &str) -> StaticCheck {
    static CACHE: PerTextCache<(u64, String), StaticCheck> =
        LazyLock::new(|| Mutex::new(Bounded::new(10_000)));
    remembered(&CACHE, (text_hash(harness), entry.to_string()), || {
        check_zwc_usage(harness, entry)
    })
}

/// Whether the harness text parses on its own (with its test-case literal, which is
/// generated and always valid, left out). Remembered per distinct harness; a plain entry
/// name is taken out of the calls first (any identifier parses alike there), so the samples
/// of a task share one answer even when their entry functions are named differently.
fn harness_parses(harness: &str, entry: &str) -> bool {
    static CACHE: PerTextCache<u64, bool> = LazyLock::new(|| Mutex::new(Bounded::new(50_000)));
    let call = format!("    result_list.append({entry}(");
    let plain_entry = is_plain_identifier(entry);
    let mut text = String::with_capacity(harness.len().min(4096));
    for line in harness.split_inclusive('\n') {
        if line.starts_with("    test_cases = [") {
            text.push_str("    test_cases = []\n");
        } else if plain_entry && let Some(rest) = line.strip_prefix(call.as_str()) {
            text.push_str("    result_list.append(_(");
            text.push_str(rest);
        } else {
            text.push_str(line);
        }
    }
    remembered(&CACHE, text_hash(&text), || {
        pyast::parse_suite(&text).is_ok()
    })
}

/// An ASCII identifier that is not a Python keyword: `_` can stand in for it as a callee.
fn is_plain_identifier(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield",
    ];
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends the harness's `import zwc` the way the assembled program has it.
    fn program(code: &str) -> String {
        format!("{code}import zwc\nif __name__== \"__main__\":\n    print(1)")
    }

    fn check(code: &str) -> StaticCheck {
        check_zwc_usage(&program(code), "solve")
    }

    #[test]
    fn harness_parse_answers_are_shared_across_entry_names_but_not_inputs() {
        let harness = |entry: &str, input: &str| {
            crate::analysis::assemble::assemble_program(
                "",
                entry,
                &[crate::model::TestCase {
                    input: input.to_string(),
                    output: "1".to_string(),
                }],
            )
        };
        assert!(harness_parses(&harness("solve", "a=[1, 2]"), "solve"));
        assert!(harness_parses(&harness("helper_7", "a=[1, 2]"), "helper_7"));
        // A broken input fails whatever the entry is called, cached answers or not.
        assert!(!harness_parses(&harness("solve", "a=[1, 2"), "solve"));
        assert!(!harness_parses(&harness("helper_7", "a=[1, 2"), "helper_7"));
        // A keyword is not a plain identifier: its calls are kept as written.
        assert!(!is_plain_identifier("else"));
        assert!(!harness_parses(&harness("else", "a=[1, 2]"), "else"));
    }

    #[test]
    fn split_check_equals_full_check() {
        let harness = "import zwc\nif __name__== \"__main__\":\n    test_cases = [{'input': 'a=[1]', 'output': '1'}]\n    result_list = []\n    result_list.append(solve(a=[1]))\n    print(1)";
        let bad_harness = harness.replace("solve(a=[1])", "(a=[1])");
        for code in [
            "def solve(a):\n    return zwc.kocito(a)\n",
            "import zwc as z\ndef solve(a):\n    return z.kocito(a)\n",
            // No final newline: the harness's `import zwc` joins the last line.
            "def solve(a):\n    return zwc.kocito(a)",
            // A final comment without newline swallows the harness's `import zwc`.
            "def solve(a):\n    return zwc.kocito(a)\n# done",
            "def solve(a)\n    return 1\n",
            "def solve(a):\n    x = (a,\n    return x\n",
            "def solve(a):\n    x = 'abc\n    return x\n",
            "def solve(a):\n    x = a]\n    return x\n",
            "def solve(a):\n    return [a,\n",
            "",
        ] {
            for h in [harness, bad_harness.as_str()] {
                let full = check_zwc_usage(&format!("{code}{h}"), "solve");
                assert_eq!(
                    check_zwc_usage_split(code, None, h, "solve"),
                    full,
                    "{code:?}"
                );
            }
        }
    }

    #[test]
    fn py312_only_syntax_fails_as_on_python_311() {
        let c = check("def solve[T](a):\n    return zwc.kocito(a)\n");
        assert_eq!(
            c.official_error().as_deref(),
            Some("Code syntax error: expected '(' (<unknown>, line 1)")
        );
        let harness = "import zwc\nif __name__== \"__main__\":\n    print(1)";
        let code = "import zwc\ntype V = list\ndef solve(a):\n    return zwc.kocito(a)\n";
        let split = check_zwc_usage_split(code, None, harness, "solve");
        assert_eq!(
            split.official_error().as_deref(),
            Some("Code syntax error: invalid syntax (<unknown>, line 2)")
        );
    }
}
