//! Property tests of extraction, the static checks and the dependency graph: random
//! responses against a regex oracle of the official extraction, parity-corpus programs
//! (read by path) with tokens deleted, duplicated and swapped, random token soup, and deep
//! inputs (100,000-term chains, 10,000-part attribute chains, deep brackets, long `elif`
//! chains) analysed on an ordinary test thread (2 MiB stack), as production threads are.

use crate::prop as knobs;

use std::sync::OnceLock;

use crate::shared_data;
use proptest::prelude::*;
use sebx::analysis::static_check::check_zwc_usage;
use sebx::analysis::{CodeAnalysis, analyze_code, extract_last_python_block};
use sebx::model::rollout::load_rollout_file;
use sebx::model::{ApiMap, TestCase};

fn api() -> &'static ApiMap {
    static API: OnceLock<ApiMap> = OnceLock::new();
    API.get_or_init(|| {
        ApiMap::load(&shared_data::shared_data().join("se-bench/api_doc.jsonl")).expect("api doc")
    })
}

/// The extracted code of every parity rollout that has a block.
fn corpus() -> &'static Vec<String> {
    static CODE: OnceLock<Vec<String>> = OnceLock::new();
    CODE.get_or_init(|| {
        let loaded = load_rollout_file(&shared_data::shared_data().join("parity/rollouts.jsonl"))
            .expect("parity rollouts");
        let code: Vec<String> = loaded
            .rollouts
            .iter()
            .filter_map(|r| extract_last_python_block(&r.response).map(|b| b.code))
            .collect();
        assert!(code.len() > 1000, "parity corpus too small: {}", code.len());
        code
    })
}

fn cases() -> Vec<TestCase> {
    vec![TestCase {
        input: "a=[1, 2]".into(),
        output: "1.5".into(),
    }]
}

/// Invariants every analysis keeps, whatever the input.
fn check_analysis(code: &str, first_line: usize) -> CodeAnalysis {
    let a = analyze_code(code, api(), None, Some(&cases()), first_line);
    let lines = code.split('\n').count();
    for f in &a.findings {
        assert!(
            f.line >= 1 && f.line <= lines && f.col >= 1,
            "finding outside the code: {f:?}"
        );
        assert_eq!(f.response_line, f.line + first_line - 1, "{f:?}");
    }
    for (i, n) in a.graph.nodes.iter().enumerate() {
        assert_eq!(n.id, i);
        assert!(
            n.line >= 1 && n.line <= lines,
            "node outside the code: {n:?}"
        );
    }
    for e in &a.graph.edges {
        assert!(
            e.from < a.graph.nodes.len() && e.to < a.graph.nodes.len(),
            "{e:?}"
        );
    }
    if a.parse_error.is_some() {
        assert!(a.findings.is_empty() && a.graph.nodes.is_empty());
    }
    if let Some(check) = &a.static_check {
        assert_eq!(check.passed, check.failures().is_empty(), "{check:?}");
        assert_eq!(check.passed, check.official_error().is_none(), "{check:?}");
    }
    // One analysis serves every view: it must not depend on anything but its input.
    let again = analyze_code(code, api(), None, Some(&cases()), first_line);
    assert_eq!(a, again, "analysis is not deterministic");
    a
}

/// Python-ish tokens of `code`: identifiers/numbers, single punctuation, whitespace runs.
fn tokens(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c == ' ' {
            1
        } else {
            2
        }
    };
    for w in chars.windows(2) {
        let (i, a) = w[0];
        let (j, b) = w[1];
        let _ = i;
        if class(a) != class(b) || class(a) == 2 {
            out.push(&code[start..j]);
            start = j;
        }
    }
    if start < code.len() {
        out.push(&code[start..]);
    }
    out
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Insert(usize, &'static str),
}

const INSERTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    "\n",
    "\n    ",
    "    ",
    "zwc.",
    "np.",
    "import numpy as np\n",
    "return ",
    "def f(",
    "lambda: ",
    "'",
    "\"\"\"",
    "#",
    "\\",
    "\t",
    "é",
    "\r\n",
    "yield ",
    "async ",
    "await ",
    "match x:\n    case [a, *b]:\n        pass\n",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), prop::sample::select(INSERTS)).prop_map(|(a, s)| Mutation::Insert(a, s)),
    ]
}

fn mutate(code: &str, mutations: &[Mutation]) -> String {
    let mut toks: Vec<String> = tokens(code).into_iter().map(str::to_owned).collect();
    for m in mutations {
        if toks.is_empty() {
            break;
        }
        let n = toks.len();
        match m {
            Mutation::Delete(i) => {
                toks.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let t = toks[i % n].clone();
                toks.insert(i % n, t);
            }
            Mutation::Swap(a, b) => toks.swap(a % n, b % n),
            Mutation::Insert(i, s) => toks.insert(i % n, (*s).to_owned()),
        }
    }
    toks.concat()
}

proptest! {
    #![proptest_config(knobs::config(64, 16))]

    /// Parity programs with tokens deleted, duplicated, swapped or inserted: analysis and the
    /// official static check on the assembled program never panic and keep their invariants.
    #[test]
    fn mutated_parity_programs(
        pick in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..8),
        first_line in 1usize..50,
    ) {
        let code = pick.get(corpus());
        let mutated = mutate(code, &mutations);
        let a = check_analysis(&mutated, first_line);
        let check = check_zwc_usage(&format!("{mutated}\nimport zwc\nprint(f(1))\n"), &a.entry);
        prop_assert_eq!(check.passed, check.failures().is_empty());
    }

    /// Unchanged parity programs all parse (they are what the corpus ran) and keep the invariants.
    #[test]
    fn parity_programs_unchanged(pick in any::<prop::sample::Index>()) {
        let code = pick.get(corpus());
        check_analysis(code, 1);
    }

    /// Token soup: arbitrary sequences of Python fragments.
    #[test]
    fn token_soup(parts in prop::collection::vec(prop::sample::select(SOUP), 0..80)) {
        check_analysis(&parts.concat(), 3);
    }

    /// Arbitrary text (any Unicode) never panics the analysis.
    #[test]
    fn any_text(code in "\\PC{0,300}") {
        check_analysis(&code, 1);
    }

    /// Extraction is exactly the official regex: last non-overlapping match of
    /// ```` ```python\n([\s\S]*?)``` ````, with its span and the number of blocks.
    #[test]
    fn extraction_matches_the_official_regex(parts in prop::collection::vec(prop::sample::select(FENCE_PARTS), 0..40)) {
        let response = parts.concat();
        let re = regex::Regex::new(r"```python\n([\s\S]*?)```").expect("regex");
        let matches: Vec<_> = re.captures_iter(&response).map(|c| c.get(1).expect("group")).collect();
        let got = extract_last_python_block(&response);
        match matches.last() {
            None => prop_assert!(got.is_none(), "{:?}", got),
            Some(m) => {
                let got = got.expect("a block");
                prop_assert_eq!(&got.code, m.as_str());
                prop_assert_eq!(got.span.clone(), m.range());
                prop_assert_eq!(got.blocks_found, matches.len());
                prop_assert_eq!(got.first_response_line(&response), response[..m.start()].matches('\n').count() + 1);
            }
        }
    }
}

const SOUP: &[&str] = &[
    "import zwc\n",
    "import numpy as np\n",
    "from zwc import rfx\n",
    "def solve(a):\n",
    "    ",
    "return ",
    "zwc.kocito(",
    "zwc.rfx.quvohe(",
    "np.mean(",
    "a",
    "b",
    ")",
    "(",
    "[",
    "]",
    ",",
    " + ",
    " - ",
    "-",
    " * ",
    " @ ",
    ".tolist()",
    ".mean()",
    "\n",
    ":",
    "lambda x: ",
    "x",
    "1",
    "2.5",
    "'s'",
    "if a:\n",
    "else:\n",
    "for i in a:\n",
    "while a:\n",
    "with a as b:\n",
    "try:\n",
    "except Exception:\n",
    "class C:\n",
    "yield ",
    "global a\n",
    "a = ",
    "del a\n",
    "[i for i in a]",
    "{k: v for k, v in a}",
    "*a",
    "**a",
    "f'{a}'",
    "async def g():\n",
    "await ",
    "zwc.yitaf(",
    "getattr(zwc, 'kocito')",
    "__import__('numpy')",
    "#",
    "\"\"\"",
];

const FENCE_PARTS: &[&str] = &[
    "```python\n",
    "```python\r\n",
    "```python",
    "```",
    "``",
    "`",
    "```py\n",
    "```Python\n",
    "\n",
    "\r\n",
    "x = 1",
    "def f():\n    return 1\n",
    "é",
    "python",
    " ",
    "````python\n",
    "'```'",
    "text ",
];

/// Deep inputs analyse on this (2 MiB) test thread without overflowing, as in production.
/// Trees this deep are more than CPython builds (RecursionError, or its tokenizer's bracket
/// limit), so sebx reports them as the official parse does, without walking them.
#[test]
fn deep_inputs_do_not_overflow_the_stack() {
    let attr: Vec<String> = (0..10_000).map(|i| format!("a{i}")).collect();
    let plus: Vec<String> = (0..100_000).map(|i| format!("x{i}")).collect();
    // 1,000 branches: deep, and still a tree CPython builds.
    let mut elif = String::from("import zwc\ndef solve(a):\n    if a:\n        pass\n");
    for _ in 0..1_000 {
        elif.push_str("    elif a:\n        pass\n");
    }
    elif.push_str("    return zwc.kocito(a)\n");
    let bodies = [
        format!("zwc.{}", attr.join(".")),
        format!("zwc.kocito({})", plus.join(" + ")),
        format!("zwc.kocito({})", plus.join(" ** ")),
        format!("zwc.kocito({}a)", "-".repeat(100_000)),
        format!("zwc.kocito({}a)", "not ".repeat(50_000)),
        format!("zwc.kocito({}a{})", "[".repeat(50_000), "]".repeat(50_000)),
        format!("{}a{}", "zwc.kocito(".repeat(20_000), ")".repeat(20_000)),
        format!("zwc.kocito(a{})", "[0]".repeat(30_000)),
        format!("zwc.kocito(a{})", "()".repeat(30_000)),
        format!("zwc.kocito({}a)", "lambda: ".repeat(20_000)),
        format!("zwc.kocito({}a)", "a if a else ".repeat(20_000)),
    ];
    for body in &bodies {
        let good = format!("import zwc\ndef solve(a):\n    return {body}\n");
        let a = check_analysis(&good, 1);
        let refused = a.parse_error.as_ref().is_some_and(|e| {
            e.message.contains("RecursionError") || e.message == "too many nested parentheses"
        });
        assert!(refused, "{}: {:?}", &body[..40], a.parse_error);
        // The same with a syntax error at the end: the parser drops a half-built deep tree.
        let bad = format!("import zwc\ndef solve(a):\n    return {body} +)\n");
        let a = check_analysis(&bad, 1);
        assert!(a.parse_error.is_some(), "{}", &body[..40]);
    }
    let a = check_analysis(&elif, 1);
    assert!(a.parse_error.is_none());
    assert!(
        a.graph.nodes.iter().any(|n| n.label.contains("kocito")),
        "the call after a 1,000-branch elif chain is in the graph"
    );
    // A 2,000-part chain on zwc (CPython still builds it) is one unknown name, reported once.
    let a = check_analysis(
        &format!(
            "import zwc\ndef solve(a):\n    return zwc.{}\n",
            attr[..2_000].join(".")
        ),
        1,
    );
    assert_eq!(a.findings.len(), 1, "{:?}", a.findings.len());
}
