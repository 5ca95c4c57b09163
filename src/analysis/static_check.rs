//! Step 4 of GRADER.md: the official static zwc-usage check, with each condition reported.

use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex};

use crate::model::bounded::Bounded;

use serde::{Deserialize, Serialize};

use super::pyast::{self, LineIndex, Node, ParseFailure, ast};

/// The library the check looks for.
const LIB: &str = "zwc";

/// Where a syntax error is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyntaxErrorInfo {
    /// CPython-style message (what the official grader reports), as far as it can be told
    /// without CPython; see `parser_message` for the parser's own words.
    pub message: String,
    /// 1-based line and column in the parsed program (CPython's line where known).
    pub line: usize,
    pub col: usize,
    /// The message of the parser this crate uses.
    pub parser_message: String,
    /// The failure is on a line with an f-string that Python 3.12 would accept
    /// (PEP 701 quote reuse, comments): the official grader may disagree here.
    pub maybe_py312_fstring: bool,
    /// Python 3.12 accepts this code (PEP 695 syntax, a backslash in an f-string
    /// expression); the error stands because the official grader runs Python 3.11.
    pub python312_accepts: bool,
}

/// Where an official check meets Python's recursion limit on a deeply nested program
/// (GRADER.md, "Recursion limits"), by sebx's model of the official checks: CPython builds
/// the tree recursively and the checks walk it with `ast.NodeVisitor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecursionLimit {
    /// `ast construction`, `the zwc-usage walk` or `the NumPy-import walk`.
    pub stage: String,
    /// What the program needs there: nested nodes (construction) or Python frames (walks).
    pub needed: usize,
    /// The most the official grader allows there, by the model.
    pub limit: usize,
    /// The check raises RecursionError.
    pub exceeded: bool,
    /// `needed` is within [`RECURSION_MARGIN_FRAMES`] frames of the limit, where the
    /// official grader's own call depth (not published) decides: a fragile verdict.
    pub near: bool,
}

/// Frames on the official grader's stack when its checks call `ast.parse` or start a walk
/// (its script, main loop, grading function, check function and method). Not published:
/// this is the model's assumption; see [`RECURSION_MARGIN_FRAMES`].
pub const OFFICIAL_CALL_DEPTH: usize = 6;

/// How far (in Python frames) the official call depth may be from the assumed one; a
/// program this close to a recursion limit gets a fragile verdict.
pub const RECURSION_MARGIN_FRAMES: usize = 6;

impl RecursionLimit {
    /// A walk by an official visitor that needs `visitor_frames` (see
    /// [`pyast::visitor_frames`]); `None` when it is far below the limit.
    pub fn walk(stage: &str, visitor_frames: usize) -> Option<RecursionLimit> {
        let needed = OFFICIAL_CALL_DEPTH + visitor_frames;
        Self::near_or_over(
            stage,
            needed,
            pyast::PY_FRAME_BUDGET,
            RECURSION_MARGIN_FRAMES,
        )
    }

    /// `ast.parse` of a tree `depth` nodes deep (see [`pyast::Suite::depth`]):
    /// CPython allows three levels per frame of the recursion limit, less three per frame
    /// already on the stack (`ast.parse`'s own included).
    pub fn construction(depth: usize) -> Option<RecursionLimit> {
        let limit = 3 * pyast::PY_RECURSION_LIMIT - 3 * (OFFICIAL_CALL_DEPTH + 1);
        Self::near_or_over(
            "ast construction",
            depth,
            limit,
            3 * RECURSION_MARGIN_FRAMES,
        )
    }

    fn near_or_over(
        stage: &str,
        needed: usize,
        limit: usize,
        margin: usize,
    ) -> Option<RecursionLimit> {
        let near = needed.abs_diff(limit) <= margin;
        let exceeded = needed > limit;
        (near || exceeded).then(|| RecursionLimit {
            stage: stage.to_string(),
            needed,
            limit,
            exceeded,
            near,
        })
    }

    /// A sentence for the user.
    pub fn describe(&self) -> String {
        let unit = if self.stage == "ast construction" {
            "nested nodes"
        } else {
            "Python frames"
        };
        let what = if self.exceeded {
            "hits Python's recursion limit"
        } else {
            "comes close to Python's recursion limit"
        };
        format!(
            "the official {} {what}: the program needs {} {unit}, the official grader allows about {}",
            self.stage, self.needed, self.limit
        )
    }

    /// Why a verdict decided near the limit is fragile.
    pub fn fragile_reason(&self) -> Option<String> {
        self.near.then(|| {
            format!(
                "{}; the official grader's exact call depth is not known, so its verdict could go either way",
                self.describe()
            )
        })
    }
}

/// One library call found inside the entry function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryCall {
    /// Dotted callee, e.g. `zwc.kocito` or `z.rfx.quvohe`.
    pub name: String,
    /// 1-based line and column in the parsed program.
    pub line: usize,
    pub col: usize,
}

/// One condition of the official check that failed, in the order the official check tests them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaticFailure {
    SyntaxError,
    /// The official check raised RecursionError on a deeply nested program.
    RecursionLimit,
    /// No `import zwc` / `from zwc import` anywhere (never happens on an assembled program).
    NoZwcImport,
    EntryNotFound,
    NoLibraryCall,
    /// Officially "Return value independent of target library": no library call, or no
    /// `return` with a value.
    ReturnIndependent,
    /// Officially "Meaningless calls": no library call, or a single `yitaf` call.
    MeaninglessCalls,
}

impl StaticFailure {
    /// A sentence for the user.
    pub fn describe(self) -> &'static str {
        match self {
            StaticFailure::SyntaxError => "the program does not parse",
            StaticFailure::RecursionLimit => {
                "the program is nested too deeply for the official check (RecursionError)"
            }
            StaticFailure::NoZwcImport => "zwc is never imported",
            StaticFailure::EntryNotFound => {
                "no `def` with the entry name (async defs do not count)"
            }
            StaticFailure::NoLibraryCall => "the entry function makes no zwc call",
            StaticFailure::ReturnIndependent => {
                "no `return` with a value in the entry function (or no zwc call)"
            }
            StaticFailure::MeaninglessCalls => {
                "the only zwc call is a `yitaf` conversion (or there is no zwc call)"
            }
        }
    }
}

/// Outcome of the static check, condition by condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StaticCheck {
    pub syntax_error: Option<SyntaxErrorInfo>,
    /// The entry name the check looked for.
    pub entry: String,
    /// Some `import zwc…` / `from zwc import` statement exists.
    pub zwc_imported: bool,
    /// Names under which zwc is imported (always contains `zwc` once parsed).
    pub imported_names: Vec<String>,
    pub entry_found: bool,
    /// 1-based line of the entry `def`, when found.
    pub entry_line: Option<usize>,
    pub library_calls: Vec<LibraryCall>,
    /// Some `return` inside the entry function has a value.
    pub returns_value: bool,
    /// False only when there is exactly one library call and it contains `yitaf`.
    pub meaningful: bool,
    pub passed: bool,
    /// Set when building or walking the tree officially meets (or nearly meets) Python's
    /// recursion limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recursion: Option<RecursionLimit>,
}

impl StaticCheck {
    /// The conditions that failed, as the official check decides them.
    pub fn failures(&self) -> Vec<StaticFailure> {
        if self.syntax_error.is_some() {
            return vec![StaticFailure::SyntaxError];
        }
        if self.recursion.as_ref().is_some_and(|r| r.exceeded) {
            return vec![StaticFailure::RecursionLimit];
        }
        if !self.zwc_imported {
            return vec![StaticFailure::NoZwcImport];
        }
        if !self.entry_found {
            return vec![StaticFailure::EntryNotFound];
        }
        let called = !self.library_calls.is_empty();
        let mut out = Vec::new();
        if !called {
            out.push(StaticFailure::NoLibraryCall);
        }
        // Officially the return and meaningfulness flags stay false when nothing is called.
        if !called || !self.returns_value {
            out.push(StaticFailure::ReturnIndependent);
        }
        if !called || !self.meaningful {
            out.push(StaticFailure::MeaninglessCalls);
        }
        out
    }

    /// The official `static_error` text for this outcome (`None` when the check passed),
    /// including its spelling ("liarary").
    pub fn official_error(&self) -> Option<String> {
        if let Some(e) = &self.syntax_error {
            return Some(format!(
                "Code syntax error: {} (<unknown>, line {})",
                e.message, e.line
            ));
        }
        if let Some(r) = self.recursion.as_ref().filter(|r| r.exceeded) {
            // The official wording for this case is not known; this is sebx's.
            return Some(format!(
                "RecursionError: maximum recursion depth exceeded ({})",
                r.stage
            ));
        }
        if !self.zwc_imported {
            return Some(format!("No {LIB} module"));
        }
        if !self.entry_found {
            return Some(format!("Unfound function '{}'", self.entry));
        }
        if self.passed {
            return None;
        }
        let reasons: Vec<&str> = self
            .failures()
            .into_iter()
            .filter_map(|f| match f {
                StaticFailure::NoLibraryCall => Some("Do not contain library calls"),
                StaticFailure::ReturnIndependent => {
                    Some("Return value independent of target liarary")
                }
                StaticFailure::MeaninglessCalls => Some("Meaningless calls"),
                _ => None,
            })
            .collect();
        Some(format!("Failed: {}", reasons.join(", ")))
    }
}

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

/// A process-wide cache of results computed from (a hash of) a text, bounded in size
/// (the least recently used go first).
pub(crate) type PerTextCache<K, V> = LazyLock<Mutex<Bounded<K, V>>>;

/// `cache[key]`, computed by `compute` the first time. A poisoned lock only loses the
/// caching.
pub(crate) fn remembered<K: Hash + Eq + Clone, V: Clone>(
    cache: &Mutex<Bounded<K, V>>,
    key: K,
    compute: impl FnOnce() -> V,
) -> V {
    if let Some(v) = cache.lock().ok().and_then(|mut c| c.get(&key).cloned()) {
        return v;
    }
    let value = compute();
    if let Ok(mut c) = cache.lock() {
        c.insert(key, value.clone());
    }
    value
}

pub(crate) fn text_hash(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
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

impl StaticCheck {
    fn empty(entry: &str) -> StaticCheck {
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
    fn fail_parse(&mut self, source: &str, index: &LineIndex, failure: &ParseFailure) {
        match failure.too_deep {
            Some(depth) => self.recursion = RecursionLimit::construction(depth),
            None => self.syntax_error = Some(describe_parse_failure(source, index, failure)),
        }
    }

    /// Whether the official `ast.parse` raises RecursionError on this tree (noted either
    /// way when it comes close).
    fn too_deep_to_build(&mut self, suite: &pyast::Suite) -> bool {
        self.recursion = RecursionLimit::construction(suite.depth());
        self.recursion.as_ref().is_some_and(|r| r.exceeded)
    }

    /// Steps 2–5 once the imported names are known; positions are in `source`.
    fn finish(&mut self, source: &str, index: &LineIndex, all_nodes: &[Node<'_>]) {
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

    #[test]
    fn py312_fstring_parse_failure_is_flagged() {
        let c = check("def solve(d):\n    return f\"{d[\"a\"]}\" + zwc.kocito(d)\n");
        let e = c.syntax_error.expect("rustpython rejects 3.12 f-strings");
        assert!(e.maybe_py312_fstring);
    }
}
