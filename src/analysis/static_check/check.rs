//! The check itself on a whole program ([`check_zwc_usage`]), as the official check goes:
//! parse, find the zwc imports and the bound names, find the entry `def` (first in
//! breadth-first order), then walk it for library calls and valued `return`s.

use super::outcome::{LIB, LibraryCall, RecursionLimit, StaticCheck};
use super::syntax::describe_parse_failure;
use crate::analysis::pyast::{self, LineIndex, Node, ParseFailure, ast};

/// Runs the check on the whole assembled program for entry function `entry`.
pub fn check_zwc_usage(program: &str, entry: &str) -> StaticCheck {
    check_zwc_usage_parsed(program, &pyast::parse_suite(program), entry)
}

/// [`check_zwc_usage`] with the program's parse result, for callers that use the tree too.
pub fn check_zwc_usage_parsed(
    program: &str,
    parsed: &Result<pyast::Suite, ParseFailure>,
    entry: &str,
) -> StaticCheck {
    let mut check = StaticCheck::empty(entry);
    let index = LineIndex::new(program);
    let suite = match parsed {
        Ok(s) => s,
        Err(failure) => {
            check.fail_parse(program, &index, failure);
            return check;
        }
    };
    if check.too_deep_to_build(suite) {
        return check;
    }
    let all_nodes = pyast::walk_suite(suite);
    let (imported, names) = zwc_import_names(&all_nodes);
    check.zwc_imported = imported;
    check.imported_names = names;
    check.finish(program, &index, &all_nodes);
    check
}

impl StaticCheck {
    pub(super) fn empty(entry: &str) -> StaticCheck {
        StaticCheck {
            syntax_error: None,
            entry: entry.to_string(),
            zwc_imported: false,
            imported_names: Vec::new(),
            entry_found: false,
            entry_line: None,
            library_calls: Vec::new(),
            returns_value: false,
            meaningful: true,
            passed: false,
            recursion: None,
        }
    }

    /// A parse failure: a syntax error, or a tree too deep for CPython to build.
    pub(super) fn fail_parse(&mut self, source: &str, index: &LineIndex, failure: &ParseFailure) {
        match failure.too_deep {
            Some(depth) => self.recursion = RecursionLimit::construction(depth),
            None => self.syntax_error = Some(describe_parse_failure(source, index, failure)),
        }
    }

    /// Whether the official `ast.parse` raises RecursionError on this tree (noted either
    /// way when it comes close).
    pub(super) fn too_deep_to_build(&mut self, suite: &pyast::Suite) -> bool {
        self.recursion = RecursionLimit::construction(suite.depth());
        self.recursion.as_ref().is_some_and(|r| r.exceeded)
    }

    /// Steps 2–5 once the imported names are known; positions are in `source`.
    pub(super) fn finish(&mut self, source: &str, index: &LineIndex, all_nodes: &[Node<'_>]) {
        if !self.zwc_imported {
            return;
        }
        let Some(def) = find_entry_def(all_nodes, &self.entry) else {
            return;
        };
        self.entry_found = true;
        self.entry_line = Some(index.position(source, pyast::start_of(def)).0);
        // The official check walks the entry function with recursive visitors.
        let frames = pyast::visitor_frames([Node::Stmt(def)], 0, pyast::official_visitor_cost);
        if let Some(walk) = RecursionLimit::walk("zwc-usage walk", frames) {
            let exceeded = walk.exceeded;
            if self.recursion.is_none() || exceeded {
                self.recursion = Some(walk);
            }
            if exceeded {
                return;
            }
        }
        for node in pyast::walk_bfs([Node::Stmt(def)]) {
            match node {
                Node::Expr(ast::Expr::Call(call)) => {
                    if let Some(name) = library_callee(&call.func, &self.imported_names) {
                        let (line, col) = index.position(source, pyast::start_of(call));
                        self.library_calls.push(LibraryCall { name, line, col });
                    }
                }
                Node::Stmt(ast::Stmt::Return(r)) if r.value.is_some() => self.returns_value = true,
                _ => {}
            }
        }
        self.meaningful = !(self.library_calls.len() == 1
            && self.library_calls[0].name.to_lowercase().contains("yitaf"));
        self.passed = !self.library_calls.is_empty() && self.returns_value && self.meaningful;
    }
}

/// Whether any import names zwc, and the names it is bound to (sorted, deduplicated).
/// `import zwc.rfx` binds nothing here, as officially; `from zwc import a as b` binds `b`.
pub fn zwc_import_names(nodes: &[Node<'_>]) -> (bool, Vec<String>) {
    let mut imported = false;
    let mut names = Vec::new();
    for node in nodes {
        match node {
            Node::Stmt(ast::Stmt::Import(i)) => {
                for alias in &i.names {
                    if alias.name.as_str() == LIB {
                        imported = true;
                        names.push(alias.asname.as_ref().unwrap_or(&alias.name).to_string());
                    }
                }
            }
            // Officially only the module text is compared, so a relative `from .zwc import` counts.
            Node::Stmt(ast::Stmt::ImportFrom(i))
                if i.module.as_ref().is_some_and(|m| m.as_str() == LIB) =>
            {
                imported = true;
                for alias in &i.names {
                    names.push(alias.asname.as_ref().unwrap_or(&alias.name).to_string());
                }
            }
            _ => {}
        }
    }
    names.sort();
    names.dedup();
    (imported, names)
}

/// The first non-async `def` named `entry` in breadth-first order.
pub fn find_entry_def<'a>(nodes: &[Node<'a>], entry: &str) -> Option<&'a ast::Stmt> {
    nodes.iter().find_map(|n| match n {
        Node::Stmt(s @ ast::Stmt::FunctionDef(f)) if f.name.as_str() == entry => Some(*s),
        _ => None,
    })
}

/// The dotted name of a call's callee when it is a library call: a bound zwc name, or an
/// attribute chain rooted at one. `zwc.yitaf(x).foo()` is not (its root is a call).
pub fn library_callee(func: &ast::Expr, imported: &[String]) -> Option<String> {
    let root = pyast::chain_root(func)?;
    imported
        .iter()
        .any(|n| n == root)
        .then(|| pyast::dotted_name(func))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::static_check::StaticFailure;

    /// Appends the harness's `import zwc` the way the assembled program has it.
    fn program(code: &str) -> String {
        format!("{code}import zwc\nif __name__== \"__main__\":\n    print(1)")
    }

    fn check(code: &str) -> StaticCheck {
        check_zwc_usage(&program(code), "solve")
    }

    #[test]
    fn plain_zwc_call_with_return_passes() {
        let c = check("def solve(a):\n    return zwc.kocito(a)\n");
        assert!(c.passed, "{c:?}");
        assert_eq!(c.official_error(), None);
        assert_eq!(c.library_calls.len(), 1);
        assert_eq!(c.library_calls[0].name, "zwc.kocito");
        assert_eq!((c.library_calls[0].line, c.library_calls[0].col), (2, 12));
        assert_eq!(c.entry_line, Some(1));
    }

    #[test]
    fn no_library_call_reports_all_three_reasons() {
        let c = check("def solve(a):\n    return sum(a)\n");
        assert!(!c.passed);
        assert_eq!(
            c.official_error().as_deref(),
            Some(
                "Failed: Do not contain library calls, Return value independent of target liarary, Meaningless calls"
            )
        );
        assert_eq!(
            c.failures(),
            vec![
                StaticFailure::NoLibraryCall,
                StaticFailure::ReturnIndependent,
                StaticFailure::MeaninglessCalls
            ]
        );
    }

    #[test]
    fn single_yitaf_call_is_meaningless() {
        let c = check("def solve(a):\n    return zwc.yitaf(a)\n");
        assert!(!c.passed);
        assert!(!c.meaningful);
        assert_eq!(
            c.official_error().as_deref(),
            Some("Failed: Meaningless calls")
        );
        // Case-insensitive, and two calls are meaningful even if both are yitaf.
        assert!(!check("def solve(a):\n    return zwc.YITAF(a)\n").passed);
        assert!(check("def solve(a):\n    b = zwc.yitaf(a)\n    return zwc.yitaf(b)\n").passed);
        // A yitaf call plus a method call on its result: still one library call.
        assert!(!check("def solve(a):\n    return zwc.yitaf(a).sum()\n").passed);
    }

    #[test]
    fn bare_return_or_no_return_fails_the_return_check() {
        for code in [
            "def solve(a):\n    zwc.kocito(a)\n",
            "def solve(a):\n    zwc.kocito(a)\n    return\n",
        ] {
            let c = check(code);
            assert!(!c.passed, "{code}");
            assert_eq!(
                c.official_error().as_deref(),
                Some("Failed: Return value independent of target liarary"),
                "{code}"
            );
        }
        // Any value counts, even a constant; a return in a nested function counts too.
        assert!(check("def solve(a):\n    zwc.kocito(a)\n    return 0\n").passed);
        assert!(
            check("def solve(a):\n    def inner():\n        return 1\n    zwc.kocito(a)\n").passed
        );
    }

    #[test]
    fn entry_not_found_and_async_defs() {
        let c = check("async def solve(a):\n    return zwc.kocito(a)\n");
        assert!(!c.entry_found);
        assert_eq!(
            c.official_error().as_deref(),
            Some("Unfound function 'solve'")
        );
        let c = check_zwc_usage(&program("def f():\n    return zwc.a()\n"), "");
        assert_eq!(c.official_error().as_deref(), Some("Unfound function ''"));
    }

    #[test]
    fn entry_is_first_def_in_breadth_first_order() {
        // The nested `solve` has no zwc call; the top-level one (found first in BFS) does.
        let code = "def outer():\n    def solve(a):\n        return 1\n    return 2\ndef solve(a):\n    return zwc.kocito(a)\n";
        let c = check(code);
        assert_eq!(c.entry_line, Some(5));
        assert!(c.passed);
        // Methods are found too.
        let c = check("class K:\n    def solve(self):\n        return zwc.kocito(1)\n");
        assert!(c.passed);
    }

    #[test]
    fn alias_forms_bind_the_right_names() {
        let c = check("import zwc as z\ndef solve(a):\n    return z.kocito(a)\n");
        assert_eq!(c.imported_names, vec!["z", "zwc"]);
        assert!(c.passed);
        let c = check("from zwc import kocito\ndef solve(a):\n    return kocito(a)\n");
        assert!(c.imported_names.contains(&"kocito".to_string()));
        assert!(c.passed);
        let c = check("from zwc import kocito as mean\ndef solve(a):\n    return mean(a)\n");
        assert_eq!(c.imported_names, vec!["mean", "zwc"]);
        assert!(c.passed);
        // `import zwc.rfx` binds nothing officially, so `zwc.rfx` calls count only via `zwc`.
        let c = check("import zwc.rfx as r\ndef solve(a):\n    return r.quvohe(a)\n");
        assert_eq!(c.imported_names, vec!["zwc"]);
        assert!(!c.passed);
        // `from zwc import rfx` binds `rfx`, and calls on it are library calls.
        let c = check("from zwc import rfx\ndef solve(a):\n    return rfx.quvohe(a)\n");
        assert!(c.passed);
        assert_eq!(c.library_calls[0].name, "rfx.quvohe");
        // Imports inside functions count.
        let c = check("def solve(a):\n    import zwc as q\n    return q.kocito(a)\n");
        assert!(c.imported_names.contains(&"q".to_string()));
        assert!(c.passed);
    }

    #[test]
    fn calls_on_call_results_and_subscripts_are_not_library_calls() {
        for code in [
            "def solve(a):\n    return np.mean(a)\n",
            "def solve(a):\n    return [zwc][0].kocito(a)\n",
            "def solve(a):\n    return (zwc).kocito(a)\n",
        ] {
            let c = check(code);
            let expect_pass = code.contains("(zwc).");
            assert_eq!(c.passed, expect_pass, "{code}: {c:?}");
        }
    }

    #[test]
    fn calls_anywhere_in_the_entry_are_found() {
        let cases = [
            "def solve(a):\n    return sorted(a, key=zwc.kocito)\n",
            "def solve(a):\n    return max(a, key=lambda v: zwc.kocito(v))\n",
            "def solve(a):\n    return [zwc.kocito(v) for v in a]\n",
            "def solve(a):\n    with open(zwc.kocito(a)) as f:\n        return 1\n",
            "def solve(a, b=zwc.kocito([1])):\n    return b\n",
            "def solve(a):\n    match a:\n        case 1:\n            zwc.kocito(a)\n    return a\n",
            "def solve(a):\n    def inner(x):\n        return zwc.kocito(x)\n    return inner(a)\n",
            "@functools.cache\ndef solve(a):\n    return f(x=zwc.kocito(a))\n",
            "def solve(a):\n    return {k: zwc.kocito(v) for k, v in a}\n",
        ];
        for code in cases {
            let c = check(code);
            // `sorted(a, key=zwc.kocito)` passes the function without calling it: no call.
            let expect = !code.contains("key=zwc.kocito)");
            assert_eq!(c.passed, expect, "{code}: {c:?}");
        }
        // Calls outside the entry do not count.
        assert!(!check("X = zwc.kocito([1])\ndef solve(a):\n    return X\n").passed);
    }

    #[test]
    fn syntax_errors_use_cpython_wording() {
        let c = check("def solve(a)\n    return zwc.kocito(a)\n");
        assert_eq!(
            c.official_error().as_deref(),
            Some("Code syntax error: expected ':' (<unknown>, line 1)")
        );
        let c = check_zwc_usage("x = 1\nf((a=[1], k=3))\n", "f");
        assert_eq!(
            c.official_error().as_deref(),
            Some(
                "Code syntax error: invalid syntax. Maybe you meant '==' or ':=' instead of '='? (<unknown>, line 2)"
            )
        );
        let c = check_zwc_usage("def f():\nreturn 1\n", "f");
        assert_eq!(
            c.syntax_error.as_ref().map(|e| e.message.as_str()),
            Some("expected an indented block after function definition on line 1")
        );
        let c = check_zwc_usage("x = 1\n    y = 2\n", "f");
        assert_eq!(
            c.syntax_error.as_ref().map(|e| e.message.as_str()),
            Some("unexpected indent")
        );
        assert!(!c.passed);
    }

    /// Messages checked against CPython 3.11's `ast.parse` on the same sources.
    #[test]
    fn syntax_error_messages_match_cpython_311() {
        let cases = [
            (
                "x = (1,\ny = 2\n",
                "Code syntax error: '(' was never closed (<unknown>, line 1)",
            ),
            (
                "x = 'abc\ny = 2\n",
                "Code syntax error: unterminated string literal (detected at line 1) (<unknown>, line 1)",
            ),
            (
                "if x:\n        a = 1\n    b = 2\n",
                "Code syntax error: unindent does not match any outer indentation level (<unknown>, line 3)",
            ),
            (
                "x = 1)\n",
                "Code syntax error: unmatched ')' (<unknown>, line 1)",
            ),
            (
                "x = [1, 2\n",
                "Code syntax error: '[' was never closed (<unknown>, line 1)",
            ),
            (
                "x = 1\ndef f(:\n  pass\n",
                "Code syntax error: invalid syntax (<unknown>, line 2)",
            ),
            (
                "x = \"\"\"abc\n",
                "Code syntax error: unterminated triple-quoted string literal (detected at line 1) (<unknown>, line 1)",
            ),
            (
                "for x in y\n    pass\n",
                "Code syntax error: expected ':' (<unknown>, line 1)",
            ),
            (
                "return x +\n",
                "Code syntax error: invalid syntax (<unknown>, line 1)",
            ),
            (
                "a b\n",
                "Code syntax error: invalid syntax (<unknown>, line 1)",
            ),
            (
                "x = (1, 2]\n",
                "Code syntax error: closing parenthesis ']' does not match opening parenthesis '(' (<unknown>, line 1)",
            ),
            (
                "x = (1,\n 2]\n",
                "Code syntax error: closing parenthesis ']' does not match opening parenthesis '(' on line 1 (<unknown>, line 2)",
            ),
            (
                "def f(a):\n    return [a,\n\ndef g():\n    pass\n",
                "Code syntax error: '[' was never closed (<unknown>, line 2)",
            ),
            (
                "s = 'it\\'s'\nx = (\n",
                "Code syntax error: '(' was never closed (<unknown>, line 2)",
            ),
            (
                "x = \"a\" # (\ny = )\n",
                "Code syntax error: unmatched ')' (<unknown>, line 2)",
            ),
            (
                "x = r\"\\\"\" + (\n",
                "Code syntax error: '(' was never closed (<unknown>, line 1)",
            ),
            (
                "def f(a):\n    x = a\n  y = 1\n",
                "Code syntax error: unindent does not match any outer indentation level (<unknown>, line 3)",
            ),
            (
                "def f(a)\n    return (a\n",
                "Code syntax error: expected ':' (<unknown>, line 1)",
            ),
            (
                "x = {1: 2\ny = 3\n",
                "Code syntax error: '{' was never closed (<unknown>, line 1)",
            ),
            (
                "print(\"a\" \"b\"\nz = 1\n",
                "Code syntax error: '(' was never closed (<unknown>, line 1)",
            ),
            (
                "x = 1\ny = f\"{'\\n'.join(a)}\"\n",
                "Code syntax error: f-string expression part cannot include a backslash (<unknown>, line 2)",
            ),
            (
                "def f(a):\n    return f\"\"\"\n{a}\n{'\\t'.join(a)}\"\"\"\n",
                "Code syntax error: f-string expression part cannot include a backslash (<unknown>, line 4)",
            ),
        ];
        for (source, expected) in cases {
            let c = check_zwc_usage(source, "f");
            assert_eq!(c.official_error().as_deref(), Some(expected), "{source:?}");
        }
    }

    #[test]
    fn py312_fstring_parse_failure_is_flagged() {
        let c = check("def solve(d):\n    return f\"{d[\"a\"]}\" + zwc.kocito(d)\n");
        let e = c.syntax_error.expect("rustpython rejects 3.12 f-strings");
        assert!(e.maybe_py312_fstring);
    }
}
