//! One rollout's full static analysis: the official checks, the dependency graph and
//! the findings, with positions in the extracted code and in the response.

use serde::{Deserialize, Serialize};

use super::extract::{entry_function_name, extract_last_python_block};
use super::graph::{DepGraph, EntryArgs, GraphBuilder, NodeKind};
use super::names::{Bindings, Finding, RawFinding, Severity, name_findings};
use super::numpy_check::{NumpyCheck, numpy_imports_in};
use super::pyast::{self, LineIndex};
use std::hash::{Hash, Hasher};

use super::static_check::{
    ParsedCode, PerTextCache, StaticCheck, StaticFailure, SyntaxErrorInfo, check_zwc_usage_split,
    describe_parse_failure, find_entry_def, remembered,
};
use crate::analysis::assemble::{push_harness, python_cases_repr, rewrite_cases};
use crate::model::bounded::Bounded;
use crate::model::{ApiMap, DatasetItem, Rollout, RolloutId, TestCase};

/// Static analysis of one piece of code (no rollout context).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeAnalysis {
    /// The entry name (first `def` match in the text).
    pub entry: String,
    /// The extracted code itself does not parse (positions in the code).
    pub parse_error: Option<SyntaxErrorInfo>,
    /// The official static check on the assembled program (when test cases are known).
    pub static_check: Option<StaticCheck>,
    /// NumPy imports in the code.
    pub numpy: NumpyCheck,
    /// Sorted by position.
    pub findings: Vec<Finding>,
    pub graph: DepGraph,
    /// Sentences explaining quirks that decided the static check (entry picked by the
    /// first `def`, harness joining the code, 3.12-only f-strings…).
    pub notes: Vec<String>,
}

impl CodeAnalysis {
    /// Findings that break the program or change the verdict.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
    }
}

/// Static analysis of one rollout, for JSON output and the explorer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// The rollout file.
    pub source: String,
    /// 1-based line in `source`.
    pub line: usize,
    pub id: RolloutId,
    /// A ```` ```python ```` block was found.
    pub code_found: bool,
    /// 1-based response line where the extracted code starts.
    pub code_start_line: usize,
    #[serde(flatten)]
    pub code: CodeAnalysis,
}

/// The task's selected functions: `item`'s when given, else the rollout's own.
pub fn selected_functions<'a>(
    rollout: &'a Rollout,
    item: Option<&'a DatasetItem>,
) -> Option<&'a [String]> {
    item.map(|i| i.selected_functions.as_slice())
        .filter(|s| !s.is_empty())
        .or_else(|| {
            (!rollout.selected_functions.is_empty()).then_some(&rollout.selected_functions[..])
        })
}

/// Analyzes a rollout: extraction (GRADER.md step 1), then [`analyze_code`]. The task's
/// selected functions come from `item` when given, else from the rollout itself.
pub fn analyze_rollout(rollout: &Rollout, api: &ApiMap, item: Option<&DatasetItem>) -> Analysis {
    let block = extract_last_python_block(&rollout.response);
    let (code, start_line) = match &block {
        Some(b) => (b.code.as_str(), b.first_response_line(&rollout.response)),
        None => ("", 1),
    };
    let selected = selected_functions(rollout, item);
    let cases = item
        .filter(|_| rollout.test_cases.is_empty())
        .map(|i| i.test_cases.as_slice())
        .unwrap_or(&rollout.test_cases);
    let mut code = analyze_code(code, api, selected, Some(cases), start_line);
    if block.is_none() {
        code.findings.insert(0, no_code_finding());
    }
    Analysis {
        source: rollout.source.display().to_string(),
        line: rollout.line,
        id: rollout.id.clone(),
        code_found: block.is_some(),
        code_start_line: start_line,
        code,
    }
}

/// The finding of a response without a python block (tied to no place: line and column 0).
fn no_code_finding() -> Finding {
    Finding {
        kind: super::names::FindingKind::NoCode,
        family: super::names::FindingKind::NoCode.family(),
        severity: Severity::Error,
        name: String::new(),
        line: 0,
        col: 0,
        response_line: 0,
        response_col: 0,
        suggestion: None,
        message: "the grader found no ```python block; the verdict is without_zwc".to_string(),
    }
}

/// What the grader appends to the code (GRADER.md step 3). The rewritten cases and their
/// repr (the costly part) are remembered per cases, which every sample of a task shares
/// whatever its entry function is called.
fn harness_for(entry: &str, cases: &[TestCase]) -> String {
    type Prepared = std::sync::Arc<(Vec<TestCase>, String)>;
    static CACHE: PerTextCache<u64, Prepared> =
        std::sync::LazyLock::new(|| std::sync::Mutex::new(Bounded::new(20_000)));
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    cases.hash(&mut hasher);
    let prepared = remembered(&CACHE, hasher.finish(), || {
        let rewritten = rewrite_cases(cases);
        let repr = python_cases_repr(&rewritten);
        std::sync::Arc::new((rewritten, repr))
    });
    let (rewritten, repr) = &*prepared;
    let mut harness = String::with_capacity(repr.len() + 256 + rewritten.len() * 64);
    push_harness(&mut harness, entry, rewritten, repr);
    harness
}

/// Analyzes extracted `code`. `cases` (test cases) enable the official static check on the
/// assembled program; `first_response_line` places positions in the response.
pub fn analyze_code(
    code: &str,
    api: &ApiMap,
    selected_functions: Option<&[String]>,
    cases: Option<&[TestCase]>,
    first_response_line: usize,
) -> CodeAnalysis {
    let entry = entry_function_name(code);
    let parsed = pyast::parse_suite(code);
    let index = LineIndex::new(code);
    // Every node, breadth first: walked once for the static check and this analysis.
    let nodes = parsed.as_ref().map(pyast::walk_suite).unwrap_or_default();
    // The harness alone is what the grader appends to the code (GRADER.md step 3).
    let static_check = cases.map(|cases| {
        let harness = harness_for(&entry, cases);
        let given = ParsedCode {
            parse: &parsed,
            walked: parsed.is_ok().then_some((&index, nodes.as_slice())),
        };
        check_zwc_usage_split(code, Some(given), &harness, &entry)
    });
    let mut analysis = CodeAnalysis {
        entry: entry.clone(),
        parse_error: None,
        static_check,
        numpy: NumpyCheck::default(),
        findings: Vec::new(),
        graph: DepGraph::default(),
        notes: Vec::new(),
    };
    let suite = match &parsed {
        Ok(s) => s,
        Err(f) => {
            let e = describe_parse_failure(code, &index, f);
            if e.python312_accepts {
                analysis.notes.push(format!(
                    "line {}: {} is accepted from Python 3.12 on, but the official grader runs Python 3.11",
                    e.line, e.message
                ));
            }
            if e.maybe_py312_fstring {
                analysis.notes.push(format!(
                    "line {}: the parse fails inside an f-string that Python 3.12 accepts (quote reuse, comments); the official grader may parse it",
                    e.line
                ));
            }
            analysis.parse_error = Some(e);
            return analysis;
        }
    };
    let bindings = Bindings::collect(&nodes);
    analysis.numpy = numpy_imports_in(code, suite);
    let numpy_with_offsets: Vec<_> = analysis
        .numpy
        .imports
        .iter()
        .map(|i| (i.clone(), offset_of(code, &index, i.line, i.col)))
        .collect();
    let mut raw = name_findings(
        api,
        &bindings,
        &nodes,
        &numpy_with_offsets,
        selected_functions,
    );

    let entry_offset = find_entry_def(&nodes, &entry).map(pyast::start_of);
    let entry_args = cases.map(EntryArgs::of_cases).unwrap_or_default();
    let (mut graph, graph_findings) = GraphBuilder::new(api, &bindings)
        .with_entry_args(entry_args)
        .build(suite, entry_offset);
    raw.extend(graph_findings);
    raw.extend(super::loopholes::loophole_findings(
        &nodes,
        &bindings,
        &graph,
        (analysis.static_check.as_ref(), &analysis.numpy),
        selected_functions,
        (entry_offset, cases),
    ));

    for n in &mut graph.nodes {
        let (line, col) = index.position(code, n.offset);
        n.line = line;
        n.col = col;
        n.response_line = line + first_response_line - 1;
    }
    for f in &mut graph.functions {
        f.line = index.position(code, f.offset).0;
    }
    // The hinge: the entry's only library call (the static check passes or fails on it).
    if let Some(sc) = &analysis.static_check
        && let [only] = sc.library_calls.as_slice()
        && let Some(entry_fn) = graph
            .functions
            .iter()
            .find(|f| f.is_entry)
            .map(|f| f.name.clone())
    {
        for n in &mut graph.nodes {
            if n.function == entry_fn && n.line == only.line && n.col == only.col {
                n.hinge = true;
            }
        }
    }
    analysis.notes = explain(&analysis, &graph, code);
    analysis.graph = graph;
    analysis.findings = finish_findings(code, &index, raw, first_response_line);
    analysis
}

/// Notes on what decided the static check, for a code that parses.
fn explain(a: &CodeAnalysis, graph: &DepGraph, code: &str) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(sc) = &a.static_check else {
        return notes;
    };
    if a.entry.is_empty() {
        notes.push(
            "no `def name(` in the code: the entry name is empty, so the harness line `(<inputs>)` is a syntax error"
                .to_string(),
        );
        return notes;
    }
    if let Some(e) = &sc.syntax_error {
        let why = if code.ends_with('\n') {
            "the test harness appended to it does not parse"
        } else {
            "the code has no final newline, so the harness's `import zwc` is glued to its last line"
        };
        notes.push(format!(
            "the code parses on its own, but {why} (program line {}: {})",
            e.line, e.message
        ));
        return notes;
    }
    let failures = sc.failures();
    if failures.contains(&StaticFailure::EntryNotFound) {
        notes.push(format!(
            "`{}` is the first `def` match in the text but no (non-async) function has that name",
            a.entry
        ));
    }
    if failures.contains(&StaticFailure::NoLibraryCall) {
        let elsewhere: Vec<&str> = graph
            .functions
            .iter()
            .filter(|f| !f.is_entry)
            .filter(|f| {
                graph
                    .function_nodes(&f.name)
                    .any(|n| n.kind == NodeKind::ZwcCall)
            })
            .map(|f| f.name.as_str())
            .collect();
        if !elsewhere.is_empty() {
            notes.push(format!(
                "the official entry is `{}` (the first `def` in the text); zwc calls in {} are not looked at",
                a.entry,
                elsewhere
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if !sc.meaningful
        && let [only] = sc.library_calls.as_slice()
    {
        notes.push(format!(
            "the only zwc call in `{}` is `{}` (line {}): array construction alone counts as meaningless",
            a.entry, only.name, only.line
        ));
    }
    notes
}

fn finish_findings(
    code: &str,
    index: &LineIndex,
    raw: Vec<RawFinding>,
    first_response_line: usize,
) -> Vec<Finding> {
    let mut out: Vec<Finding> = raw
        .into_iter()
        .map(|r| {
            let (line, col) = index.position(code, r.offset);
            Finding {
                kind: r.kind,
                family: r.kind.family(),
                severity: r.severity,
                name: r.name,
                line,
                col,
                // The code starts at column 1 of its first response line.
                response_line: line + first_response_line - 1,
                response_col: col,
                suggestion: r.suggestion,
                message: r.message,
            }
        })
        .collect();
    out.sort_by(|a, b| (a.line, a.col, a.kind, &a.name).cmp(&(b.line, b.col, b.kind, &b.name)));
    out.dedup_by(|a, b| a.line == b.line && a.col == b.col && a.kind == b.kind && a.name == b.name);
    out
}

/// Byte offset of a 1-based line and character column.
fn offset_of(code: &str, index: &LineIndex, line: usize, col: usize) -> usize {
    let start = index.line_start(line).unwrap_or(0);
    code[start..]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(code.len(), |(i, _)| start + i)
}
