//! What the Code and Graph panes and the findings column show about a rollout's code:
//! zwc calls with their NumPy names, findings (hallucinated names and NumPy habits), and
//! a call graph. A fast lexical pass of its own, so 100,000 rollouts analyse in about a second;
//! its shapes are small so that `crate::analysis` results can be converted into them.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::model::ApiMap;

/// The kinds of findings, in the order the finding filter cycles through them.
/// Names match `crate::analysis` findings (serde snake_case) so theirs convert one to one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// `zwc.<name>` that the API does not define and that is not a NumPy name either.
    UnknownZwcName,
    /// A NumPy name used on zwc (`zwc.mean`): zwc renamed it.
    NumpyNameOnZwc,
    /// A NumPy array method called on what is likely a ZWCArray (`.tolist()`, `.mean()`).
    ArrayMethod,
    /// `import numpy` / `from numpy import ...`.
    NumpyImport,
    /// `np.<name>` used.
    NumpyAttribute,
    /// A zwc function other than the task's selected ones (`zwc.yitaf` not counted).
    OffTaskFunction,
    /// The response has no ```` ```python ```` block.
    NoCode,
}

impl FindingKind {
    pub const ALL: [FindingKind; 7] = [
        FindingKind::UnknownZwcName,
        FindingKind::NumpyNameOnZwc,
        FindingKind::ArrayMethod,
        FindingKind::NumpyImport,
        FindingKind::NumpyAttribute,
        FindingKind::OffTaskFunction,
        FindingKind::NoCode,
    ];

    /// Short label for the status bar and the Code pane.
    pub fn label(self) -> &'static str {
        match self {
            FindingKind::UnknownZwcName => "unknown zwc name",
            FindingKind::NumpyNameOnZwc => "NumPy name on zwc",
            FindingKind::ArrayMethod => "array method",
            FindingKind::NumpyImport => "numpy import",
            FindingKind::NumpyAttribute => "numpy attribute",
            FindingKind::OffTaskFunction => "off-task function",
            FindingKind::NoCode => "no code block",
        }
    }

    /// Whether it can only be judged against the zwc API (without one it would be noise).
    pub fn needs_api(self) -> bool {
        matches!(
            self,
            FindingKind::UnknownZwcName
                | FindingKind::NumpyNameOnZwc
                | FindingKind::OffTaskFunction
        )
    }

    /// Whether it names something that will fail (an error) rather than a smell.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            FindingKind::UnknownZwcName | FindingKind::NumpyNameOnZwc | FindingKind::ArrayMethod
        )
    }
}

/// One thing worth pointing at in the code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// The name as written (`zwc.kocitoo`, `tolist`, `numpy`).
    pub name: String,
    /// 1-based line and character column in the extracted code (0 when not tied to a place).
    pub line: usize,
    pub col: usize,
    /// What to write instead, when known.
    pub suggestion: Option<String>,
}

impl From<crate::analysis::FindingKind> for FindingKind {
    fn from(k: crate::analysis::FindingKind) -> FindingKind {
        use crate::analysis::FindingKind as A;
        match k {
            A::NumpyImport => FindingKind::NumpyImport,
            A::NumpyAttribute => FindingKind::NumpyAttribute,
            A::NumpyNameOnZwc => FindingKind::NumpyNameOnZwc,
            A::UnknownZwcName => FindingKind::UnknownZwcName,
            A::ArrayMethod => FindingKind::ArrayMethod,
            A::OffTaskFunction => FindingKind::OffTaskFunction,
        }
    }
}

impl From<&crate::analysis::Finding> for Finding {
    fn from(f: &crate::analysis::Finding) -> Finding {
        Finding {
            kind: f.kind.into(),
            name: f.name.clone(),
            line: f.line,
            col: f.col,
            suggestion: Some(f.message.clone()),
        }
    }
}

/// The findings of the full analysis (`crate::analysis`), plus "no code" which it leaves implicit.
pub fn findings_of(a: &crate::analysis::Analysis) -> Vec<Finding> {
    let mut out: Vec<Finding> = a.code.findings.iter().map(Finding::from).collect();
    if !a.code_found {
        out.push(Finding {
            kind: FindingKind::NoCode,
            name: String::new(),
            line: 0,
            col: 0,
            suggestion: Some(
                "the grader found no ```python block; the verdict is without_zwc".into(),
            ),
        });
    }
    out
}

/// One call of a zwc function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZwcCall {
    /// Qualified name as the API spells it (`zwc.kocito`), even when called through an alias.
    pub name: String,
    /// NumPy meaning without `np.` (`mean`, `linalg.inv`); `None` when the name is unknown.
    pub numpy: Option<String>,
    /// 1-based line and character column of the name's first character.
    pub line: usize,
    pub col: usize,
    /// Character length of the name as written.
    pub len: usize,
    /// Character column just after the call's closing parenthesis, when it is on the same line.
    pub end_col: Option<usize>,
}

/// One function defined in the code, with what it calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefinedFunction {
    pub name: String,
    pub line: usize,
    /// Functions of the code it calls, in first-call order.
    pub calls_local: Vec<String>,
    /// zwc functions it calls (qualified), in first-call order.
    pub calls_zwc: Vec<String>,
}

/// Everything the explorer shows about one rollout's code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeInsight {
    pub findings: Vec<Finding>,
    pub calls: Vec<ZwcCall>,
    pub functions: Vec<DefinedFunction>,
    /// The entry function (first `def`), as the grader picks it.
    pub entry: String,
}

impl CodeInsight {
    /// The NumPy names (or zwc names when unknown) of the distinct functions called, sorted.
    pub fn function_names(&self) -> Vec<String> {
        let set: BTreeSet<String> = self
            .calls
            .iter()
            .map(|c| c.numpy.clone().unwrap_or_else(|| c.name.clone()))
            .collect();
        set.into_iter().collect()
    }

    /// Distinct finding kinds present.
    pub fn kinds(&self) -> BTreeSet<FindingKind> {
        self.findings.iter().map(|f| f.kind).collect()
    }

    /// The dependency graph as text lines, entry function first.
    pub fn graph_lines(&self, api: &ApiMap) -> Vec<String> {
        let mut out = Vec::new();
        if self.functions.is_empty() {
            for c in &self.calls {
                out.push(call_label(&c.name, api));
            }
            return out;
        }
        let mut roots: Vec<&DefinedFunction> = Vec::new();
        if let Some(entry) = self.functions.iter().find(|f| f.name == self.entry) {
            roots.push(entry);
        }
        let called: BTreeSet<&str> = self
            .functions
            .iter()
            .flat_map(|f| f.calls_local.iter().map(String::as_str))
            .collect();
        for f in &self.functions {
            if f.name != self.entry && !called.contains(f.name.as_str()) {
                roots.push(f);
            }
        }
        for root in roots {
            let tag = if root.name == self.entry {
                " (entry)"
            } else {
                " (not called by the entry)"
            };
            out.push(format!("{}{tag}", root.name));
            let mut stack = vec![root.name.clone()];
            self.graph_children(root, "", api, &mut stack, &mut out);
        }
        out
    }

    fn graph_children(
        &self,
        f: &DefinedFunction,
        prefix: &str,
        api: &ApiMap,
        stack: &mut Vec<String>,
        out: &mut Vec<String>,
    ) {
        let children: Vec<(bool, &String)> = f
            .calls_local
            .iter()
            .map(|c| (true, c))
            .chain(f.calls_zwc.iter().map(|c| (false, c)))
            .collect();
        for (i, (local, name)) in children.iter().enumerate() {
            let last = i + 1 == children.len();
            let (branch, indent) = if last {
                ("└─ ", "   ")
            } else {
                ("├─ ", "│  ")
            };
            if *local {
                if stack.contains(name) {
                    out.push(format!("{prefix}{branch}{name} (recursive)"));
                    continue;
                }
                out.push(format!("{prefix}{branch}{name}"));
                if let Some(def) = self.functions.iter().find(|d| &d.name == *name) {
                    stack.push((*name).clone());
                    self.graph_children(def, &format!("{prefix}{indent}"), api, stack, out);
                    stack.pop();
                }
            } else {
                out.push(format!("{prefix}{branch}{}", call_label(name, api)));
            }
        }
    }
}

fn call_label(name: &str, api: &ApiMap) -> String {
    if api.is_empty() {
        return name.to_string();
    }
    match api.numpy_short(name) {
        Some(np) => format!("{name} ‹{np}›"),
        None => format!("{name} ‹unknown›"),
    }
}

/// NumPy array methods a ZWCArray refuses (ZWC_RUNTIME.md), minus common list/str methods.
const NUMPY_METHODS: &[&str] = &[
    "tolist",
    "astype",
    "reshape",
    "flatten",
    "ravel",
    "mean",
    "std",
    "var",
    "sum",
    "argmin",
    "argmax",
    "argsort",
    "cumsum",
    "cumprod",
    "transpose",
    "dot",
    "clip",
    "nonzero",
    "diagonal",
    "trace",
    "squeeze",
    "min",
    "max",
    "prod",
    "any",
    "all",
];

/// One word of a dotted name chain, with its 1-based line and character column.
#[derive(Debug, Clone, PartialEq)]
struct NamePart {
    text: String,
    line: usize,
    col: usize,
    len: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A dotted name chain (`zwc.rfx.quvohe`).
    Name(Vec<NamePart>),
    Punct(char, usize, usize),
    Newline,
}

/// Splits Python source into name chains and punctuation, skipping strings and comments.
fn tokenize(code: &str) -> Vec<Tok> {
    let chars: Vec<char> = code.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    let advance = |i: &mut usize, line: &mut usize, col: &mut usize, c: char| {
        *i += 1;
        if c == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                {
                    let ch = chars[i];
                    advance(&mut i, &mut line, &mut col, ch);
                }
            }
            continue;
        }
        if c == '\'' || c == '"' {
            let triple = i + 2 < chars.len() && chars[i + 1] == c && chars[i + 2] == c;
            let n = if triple { 3 } else { 1 };
            for _ in 0..n {
                advance(&mut i, &mut line, &mut col, c);
            }
            while i < chars.len() {
                let d = chars[i];
                if d == '\\' {
                    advance(&mut i, &mut line, &mut col, d);
                    if i < chars.len() {
                        {
                            let ch = chars[i];
                            advance(&mut i, &mut line, &mut col, ch);
                        }
                    }
                    continue;
                }
                if !triple && d == '\n' {
                    break;
                }
                if d == c
                    && (!triple || (i + 2 < chars.len() && chars[i + 1] == c && chars[i + 2] == c))
                {
                    for _ in 0..n {
                        advance(&mut i, &mut line, &mut col, c);
                    }
                    break;
                }
                advance(&mut i, &mut line, &mut col, d);
            }
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut parts = Vec::new();
            loop {
                let (start_line, start_col) = (line, col);
                let mut word = String::new();
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    word.push(chars[i]);
                    {
                        let ch = chars[i];
                        advance(&mut i, &mut line, &mut col, ch);
                    }
                }
                // String prefixes (r"", f'', b"") are not names.
                if i < chars.len()
                    && (chars[i] == '"' || chars[i] == '\'')
                    && parts.is_empty()
                    && word.len() <= 2
                    && word.chars().all(|ch| "rRbBfFuU".contains(ch))
                {
                    break;
                }
                let len = word.chars().count();
                parts.push(NamePart {
                    text: word,
                    line: start_line,
                    col: start_col,
                    len,
                });
                if i + 1 < chars.len()
                    && chars[i] == '.'
                    && (chars[i + 1].is_alphabetic() || chars[i + 1] == '_')
                {
                    advance(&mut i, &mut line, &mut col, '.');
                    continue;
                }
                break;
            }
            if !parts.is_empty() {
                toks.push(Tok::Name(parts));
            }
            continue;
        }
        if c == '\n' {
            toks.push(Tok::Newline);
        } else if !c.is_whitespace() {
            toks.push(Tok::Punct(c, line, col));
        }
        advance(&mut i, &mut line, &mut col, c);
    }
    toks
}

/// Analyses extracted code (`None` when the response had no python block).
/// `selected` are the task's NumPy function names (`mean`, `linalg.inv`), for off-task calls.
pub fn analyze(code: Option<&str>, api: &ApiMap, selected: &[String]) -> CodeInsight {
    let mut insight = CodeInsight::default();
    let Some(code) = code else {
        insight.findings.push(Finding {
            kind: FindingKind::NoCode,
            name: String::new(),
            line: 0,
            col: 0,
            suggestion: Some(
                "the grader found no ```python block; the verdict is without_zwc".into(),
            ),
        });
        return insight;
    };
    insight.entry = crate::analysis::entry_function_name(code);
    let toks = tokenize(code);
    let mut aliases: BTreeSet<String> = BTreeSet::from(["zwc".to_string()]);
    let mut numpy_aliases: BTreeSet<String> =
        BTreeSet::from(["np".to_string(), "numpy".to_string()]);
    // Function imports: local name -> qualified zwc name.
    let mut imported_fns: Vec<(String, String)> = Vec::new();
    let mut indent_stack: Vec<(usize, usize)> = Vec::new(); // (indent, index into functions)
    let mut at_line_start = true;
    let mut line_indent = 0usize;

    let mut idx = 0;
    while idx < toks.len() {
        let tok = &toks[idx];
        match tok {
            Tok::Newline => {
                at_line_start = true;
            }
            Tok::Punct(..) => at_line_start = false,
            Tok::Name(parts) => {
                let first = &parts[0];
                let first_col = first.col;
                if at_line_start {
                    line_indent = first_col - 1;
                    while indent_stack
                        .last()
                        .is_some_and(|(ind, _)| *ind >= line_indent)
                    {
                        indent_stack.pop();
                    }
                }
                let starts_statement = at_line_start;
                at_line_start = false;
                let word = first.text.as_str();
                // import statements
                if starts_statement && (word == "import" || word == "from") {
                    idx = scan_import(
                        &toks,
                        idx,
                        &mut aliases,
                        &mut numpy_aliases,
                        &mut imported_fns,
                        &mut insight,
                    );
                    continue;
                }
                if word == "def"
                    && parts.len() == 1
                    && let Some(Tok::Name(name)) = toks.get(idx + 1)
                {
                    insight.functions.push(DefinedFunction {
                        name: name[0].text.clone(),
                        line: first.line,
                        calls_local: Vec::new(),
                        calls_zwc: Vec::new(),
                    });
                    indent_stack.push((line_indent, insight.functions.len() - 1));
                    idx += 2;
                    continue;
                }
                let called = matches!(toks.get(idx + 1), Some(Tok::Punct('(', _, _)));
                let current_fn = indent_stack.last().map(|(_, f)| *f);
                let preceded_by_dot = idx > 0 && matches!(toks[idx - 1], Tok::Punct('.', _, _));
                if aliases.contains(word) && parts.len() >= 2 && !preceded_by_dot {
                    let mut rest: Vec<&str> = parts[1..].iter().map(|p| p.text.as_str()).collect();
                    let is_rfx_module = rest.first() == Some(&"rfx");
                    if is_rfx_module && rest.len() == 1 {
                        idx += 1;
                        continue;
                    }
                    // Attribute access past the function (`zwc.kocito.__doc__`) names the function.
                    let fn_parts = if is_rfx_module { 2 } else { 1 };
                    rest.truncate(fn_parts);
                    let qualified = format!("zwc.{}", rest.join("."));
                    let last = &parts[fn_parts];
                    let start_col = first.col;
                    let name_len = last.col + last.len - start_col;
                    record_zwc_use(
                        &mut insight,
                        api,
                        &qualified,
                        (first.line, start_col, name_len),
                        called,
                        end_of_call(&toks, idx + 1, first.line),
                        current_fn,
                    );
                } else if numpy_aliases.contains(word) && parts.len() >= 2 && !preceded_by_dot {
                    let attr: Vec<&str> = parts[1..].iter().map(|p| p.text.as_str()).collect();
                    let np_name = format!("np.{}", attr.join("."));
                    let zwc = api.zwc_name(&np_name).map(str::to_string);
                    insight.findings.push(Finding {
                        kind: FindingKind::NumpyAttribute,
                        name: format!("{word}.{}", attr.join(".")),
                        line: first.line,
                        col: first.col,
                        suggestion: Some(match zwc {
                            Some(z) => format!("NumPy is not available: use {z}"),
                            None => "NumPy is not available to the solution".to_string(),
                        }),
                    });
                } else if parts.len() == 1 && !preceded_by_dot {
                    if let Some((_, q)) = imported_fns.iter().find(|(local, _)| local == word) {
                        if called {
                            let q = q.clone();
                            record_zwc_use(
                                &mut insight,
                                api,
                                &q,
                                (first.line, first.col, first.len),
                                true,
                                end_of_call(&toks, idx + 1, first.line),
                                current_fn,
                            );
                        }
                    } else if called && let Some(f) = current_fn {
                        let name = word.to_string();
                        let calls = &mut insight.functions[f].calls_local;
                        if !calls.contains(&name) {
                            calls.push(name);
                        }
                    }
                }
                // Method calls: `.tolist()` after anything but a module name.
                if called && (parts.len() >= 2 || preceded_by_dot) {
                    let method = &parts[parts.len() - 1];
                    let receiver_is_module = parts.len() >= 2
                        && (aliases.contains(word)
                            || numpy_aliases.contains(word)
                            || [
                                "np",
                                "numpy",
                                "math",
                                "os",
                                "sys",
                                "random",
                                "itertools",
                                "functools",
                                "collections",
                                "re",
                                "json",
                                "statistics",
                                "operator",
                            ]
                            .contains(&word));
                    if !receiver_is_module && NUMPY_METHODS.contains(&method.text.as_str()) {
                        let zwc = api
                            .zwc_name(&format!("np.{}", method.text))
                            .map(str::to_string);
                        insight.findings.push(Finding {
                            kind: FindingKind::ArrayMethod,
                            name: method.text.clone(),
                            line: method.line,
                            col: method.col,
                            suggestion: Some(match zwc {
                                Some(z) => {
                                    format!("ZWCArray has no .{}(); use {z}(...)", method.text)
                                }
                                None => format!("ZWCArray has no .{}()", method.text),
                            }),
                        });
                    }
                }
            }
        }
        idx += 1;
    }
    off_task_findings(&mut insight, selected);
    // Remove entry-less local-call names that are not defined in the code (builtins).
    let defined: BTreeSet<String> = insight.functions.iter().map(|f| f.name.clone()).collect();
    for f in &mut insight.functions {
        f.calls_local.retain(|c| defined.contains(c));
    }
    insight
}

/// Calls of zwc functions the task did not select (array construction is always fine).
fn off_task_findings(insight: &mut CodeInsight, selected: &[String]) {
    if selected.is_empty() {
        return;
    }
    let wanted: BTreeSet<&str> = selected
        .iter()
        .map(|s| s.trim_start_matches("numpy.").trim_start_matches("np."))
        .collect();
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for c in &insight.calls {
        let Some(np) = c.numpy.as_deref() else {
            continue;
        };
        let last = np.rsplit('.').next().unwrap_or(np);
        if np == "array" || wanted.contains(np) || wanted.contains(last) || !seen.insert(np) {
            continue;
        }
        found.push(Finding {
            kind: FindingKind::OffTaskFunction,
            name: c.name.clone(),
            line: c.line,
            col: c.col,
            suggestion: Some(format!(
                "the task is built on {}; {} is {np}",
                wanted.iter().copied().collect::<Vec<_>>().join(", "),
                c.name
            )),
        });
    }
    insight.findings.extend(found);
}

/// Column after the `)` closing the call whose `(` is at `toks[open]`, if on `line`.
fn end_of_call(toks: &[Tok], open: usize, line: usize) -> Option<usize> {
    if !matches!(toks.get(open), Some(Tok::Punct('(', _, _))) {
        return None;
    }
    let mut depth = 0i32;
    for t in &toks[open..] {
        match t {
            Tok::Punct('(' | '[' | '{', _, _) => depth += 1,
            Tok::Punct(')' | ']' | '}', l, c) => {
                depth -= 1;
                if depth == 0 {
                    return (*l == line).then_some(c + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn record_zwc_use(
    insight: &mut CodeInsight,
    api: &ApiMap,
    qualified: &str,
    (line, col, len): (usize, usize, usize),
    called: bool,
    end_col: Option<usize>,
    current_fn: Option<usize>,
) {
    let numpy = api.numpy_short(qualified).map(str::to_string);
    if numpy.is_none() && !api.is_empty() {
        let np_name = format!(
            "np.{}",
            qualified
                .trim_start_matches("zwc.")
                .replace("rfx.", "linalg.")
        );
        if let Some(zwc) = api.zwc_name(&np_name) {
            insight.findings.push(Finding {
                kind: FindingKind::NumpyNameOnZwc,
                name: qualified.to_string(),
                line,
                col,
                suggestion: Some(format!("zwc renames {np_name}: use {zwc}")),
            });
        } else {
            insight.findings.push(Finding {
                kind: FindingKind::UnknownZwcName,
                name: qualified.to_string(),
                line,
                col,
                suggestion: closest_name(qualified, api).map(|n| {
                    let np = api.numpy_short(n).unwrap_or("?");
                    format!("did you mean {n} ‹{np}›?")
                }),
            });
        }
    }
    if called {
        if let Some(f) = current_fn {
            let calls = &mut insight.functions[f].calls_zwc;
            if !calls.iter().any(|c| c == qualified) {
                calls.push(qualified.to_string());
            }
        }
        insight.calls.push(ZwcCall {
            name: qualified.to_string(),
            numpy,
            line,
            col,
            len,
            end_col,
        });
    }
}

/// Handles an `import`/`from` statement starting at `toks[idx]`; returns the index after it.
fn scan_import(
    toks: &[Tok],
    idx: usize,
    aliases: &mut BTreeSet<String>,
    numpy_aliases: &mut BTreeSet<String>,
    imported_fns: &mut Vec<(String, String)>,
    insight: &mut CodeInsight,
) -> usize {
    let mut end = idx;
    while end < toks.len() && toks[end] != Tok::Newline {
        end += 1;
    }
    let stmt = &toks[idx..end];
    let names: Vec<(String, usize, usize)> = stmt
        .iter()
        .filter_map(|t| match t {
            Tok::Name(parts) => Some((
                parts
                    .iter()
                    .map(|p| p.text.as_str())
                    .collect::<Vec<_>>()
                    .join("."),
                parts[0].line,
                parts[0].col,
            )),
            _ => None,
        })
        .collect();
    let words: Vec<&str> = names.iter().map(|n| n.0.as_str()).collect();
    let numpy_at = names
        .iter()
        .find(|n| n.0 == "numpy" || n.0.starts_with("numpy."));
    if let Some((name, line, col)) = numpy_at {
        insight.findings.push(Finding {
            kind: FindingKind::NumpyImport,
            name: name.clone(),
            line: *line,
            col: *col,
            suggestion: Some("any numpy import makes the verdict use_numpy".into()),
        });
    }
    match words.first() {
        Some(&"import") => {
            // import zwc as z, x
            let mut i = 1;
            while i < words.len() {
                if words[i] == "numpy"
                    && words.get(i + 1) == Some(&"as")
                    && let Some(alias) = words.get(i + 2)
                {
                    numpy_aliases.insert((*alias).to_string());
                }
                if words[i] == "zwc" {
                    if words.get(i + 1) == Some(&"as") {
                        if let Some(alias) = words.get(i + 2) {
                            aliases.insert((*alias).to_string());
                        }
                        i += 3;
                        continue;
                    }
                    aliases.insert("zwc".to_string());
                }
                i += 1;
            }
        }
        Some(&"from") if words.get(1).is_some_and(|m| *m == "zwc" || *m == "zwc.rfx") => {
            let module = words[1];
            let mut i = 3; // after `from zwc import`
            while i < words.len() {
                let name = words[i];
                let local = if words.get(i + 1) == Some(&"as") {
                    let l = words.get(i + 2).copied().unwrap_or(name);
                    i += 3;
                    l
                } else {
                    i += 1;
                    name
                };
                if module == "zwc" && name == "rfx" {
                    aliases.insert(local.to_string());
                    continue;
                }
                imported_fns.push((local.to_string(), format!("{module}.{name}")));
            }
        }
        _ => {}
    }
    end
}

/// The known zwc name closest to `name` by edit distance (at most a third of its length).
fn closest_name<'a>(name: &str, api: &'a ApiMap) -> Option<&'a str> {
    let best = api
        .zwc_to_numpy
        .keys()
        .map(|k| (edit_distance(name, k), k.as_str()))
        .min()?;
    (best.0 <= name.len().div_ceil(3).max(2)).then_some(best.1)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api() -> ApiMap {
        ApiMap::from_api_doc_jsonl(
            r#"{"func_mapping": {"np.mean": "zwc.kocito", "np.array": "zwc.yitaf", "np.linalg.inv": "zwc.rfx.quvohe", "np.sum": "zwc.bapu"}}"#,
        )
        .expect("api")
    }

    #[test]
    fn finds_calls_hints_and_every_kind() {
        let code = "import numpy as np\nimport zwc as z\n\ndef helper(a):\n    return z.kocito(a).tolist()\n\ndef solve(x):\n    s = \"zwc.fake(1)\"  # zwc.fake()\n    m = zwc.rfx.quvohe(zwc.yitaf(x))\n    q = zwc.kocitoo(x) + zwc.mean(x)\n    return helper(m) + q\n";
        let ins = analyze(
            Some(code),
            &api(),
            &["linalg.inv".to_string(), "mean".to_string()],
        );
        type CallRow<'a> = (&'a str, Option<&'a str>, usize, usize, Option<usize>);
        let names: Vec<CallRow> = ins
            .calls
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.numpy.as_deref(),
                    c.line,
                    c.col,
                    c.end_col,
                )
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("zwc.kocito", Some("mean"), 5, 12, Some(23)),
                ("zwc.rfx.quvohe", Some("linalg.inv"), 9, 9, Some(37)),
                ("zwc.yitaf", Some("array"), 9, 24, Some(36)),
                ("zwc.kocitoo", None, 10, 9, Some(23)),
                ("zwc.mean", None, 10, 26, Some(37)),
            ]
        );
        let kinds: Vec<(FindingKind, &str)> = ins
            .findings
            .iter()
            .map(|f| (f.kind, f.name.as_str()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (FindingKind::NumpyImport, "numpy"),
                (FindingKind::ArrayMethod, "tolist"),
                (FindingKind::UnknownZwcName, "zwc.kocitoo"),
                (FindingKind::NumpyNameOnZwc, "zwc.mean"),
            ]
        );
        assert_eq!(
            ins.findings[2].suggestion.as_deref(),
            Some("did you mean zwc.kocito ‹mean›?")
        );
        assert_eq!(ins.entry, "helper");
        assert_eq!(
            ins.function_names(),
            vec!["array", "linalg.inv", "mean", "zwc.kocitoo", "zwc.mean"]
        );
        let graph = ins.graph_lines(&api());
        assert_eq!(graph[0], "helper (entry)");
        assert_eq!(graph[1], "└─ zwc.kocito ‹mean›");
        assert_eq!(graph[2], "solve (not called by the entry)");
        assert!(graph.contains(&"├─ helper".to_string()), "{graph:?}");
        assert!(
            graph.contains(&"│  └─ zwc.kocito ‹mean›".to_string()),
            "{graph:?}"
        );
    }

    #[test]
    fn no_code_and_from_imports() {
        let ins = analyze(None, &api(), &[]);
        assert_eq!(ins.findings[0].kind, FindingKind::NoCode);
        let ins = analyze(
            Some("from zwc import kocito as k\ndef f(x):\n    return k(x)\n"),
            &api(),
            &["mean".to_string()],
        );
        assert_eq!(ins.calls.len(), 1);
        assert_eq!(ins.calls[0].name, "zwc.kocito");
        assert!(ins.findings.is_empty());
        let ins = analyze(
            Some("import numpy as nx\ndef f(x):\n    return zwc.bapu(x) + nx.mean(x)\n"),
            &api(),
            &["mean".to_string()],
        );
        let kinds: Vec<(FindingKind, &str)> = ins
            .findings
            .iter()
            .map(|f| (f.kind, f.name.as_str()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (FindingKind::NumpyImport, "numpy"),
                (FindingKind::NumpyAttribute, "nx.mean"),
                (FindingKind::OffTaskFunction, "zwc.bapu"),
            ]
        );
    }
}
