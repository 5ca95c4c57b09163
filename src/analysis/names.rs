//! What the names in a solution refer to (zwc, zwc.rfx, NumPy, or a name zwc lacks),
//! and the findings about hallucinated and misused names.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::numpy_check::{NumpyImport, is_numpy_module};
use super::pyast::{self, Node, ast};
use crate::model::ApiMap;

pub use crate::model::finding_kinds::{Family, FindingKind, KindSet, Severity};

/// One finding about a name or operation, positioned in the extracted code and the response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// The kind's family (the kind table's), in JSON for readers of `sebx analyze`.
    #[serde(default = "Family::hint")]
    pub family: Family,
    pub severity: Severity,
    /// The name as written (`zwc.mean`, `np.sum`, `tolist`, `%`).
    pub name: String,
    /// 1-based line and character column in the extracted code (0 when tied to no place).
    pub line: usize,
    pub col: usize,
    /// 1-based line and column in the whole response.
    pub response_line: usize,
    pub response_col: usize,
    /// The correct zwc name(s), where one exists.
    pub suggestion: Option<String>,
    /// One sentence for the reader.
    pub message: String,
}

impl Finding {
    /// The one definition of a wrong name, for `sebx analyze`, `sebx stats` and the
    /// explorer alike: a finding of a [`FindingKind::WRONG_NAMES`] kind that the analysis
    /// is sure of (a `possible` one may be right: its value may not be a ZWCArray).
    pub fn is_wrong_name(&self) -> bool {
        FindingKind::WRONG_NAMES.contains(&self.kind) && self.severity != Severity::Possible
    }
}

/// Where an imported or well-known name points, as a qualified path
/// (`zwc`, `zwc.rfx`, `zwc.kocito`, `np`, `np.linalg`, `np.mean`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    Zwc(String),
    Numpy(String),
}

/// Module-level name bindings from every import in the code (flow-insensitive), plus
/// `zwc`, which the harness always imports.
#[derive(Debug, Clone, Default)]
pub struct Bindings {
    pub names: HashMap<String, Binding>,
    /// `np` / `numpy` are assigned somewhere (`np = zwc`), so unbound uses are not NumPy.
    np_assigned: bool,
}

impl Bindings {
    /// Collects bindings from every import statement among `nodes`.
    pub fn collect(nodes: &[Node<'_>]) -> Bindings {
        let mut names = HashMap::new();
        names.insert("zwc".to_string(), Binding::Zwc("zwc".to_string()));
        for node in nodes {
            match node {
                Node::Stmt(ast::Stmt::Import(i)) => {
                    for a in &i.names {
                        let full = a.name.as_str();
                        let top = full.split('.').next().unwrap_or(full);
                        let (bound, path) = match &a.asname {
                            Some(asname) => (asname.to_string(), full.to_string()),
                            None => (top.to_string(), top.to_string()),
                        };
                        if let Some(b) = binding_for_module(&path) {
                            names.insert(bound, b);
                        }
                    }
                }
                Node::Stmt(ast::Stmt::ImportFrom(i)) => {
                    let Some(module) = &i.module else { continue };
                    for a in &i.names {
                        if a.name.as_str() == "*" {
                            continue;
                        }
                        let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                        let path = format!("{}.{}", module.as_str(), a.name.as_str());
                        if let Some(b) = binding_for_module(&path) {
                            names.insert(bound, b);
                        }
                    }
                }
                // `np = __import__("numpy")` / `importlib.import_module("numpy")` binds like an import.
                Node::Stmt(ast::Stmt::Assign(a)) => {
                    if let Some(b) =
                        dynamic_import_module(&a.value).and_then(|m| binding_for_module(&m))
                    {
                        for t in &a.targets {
                            if let ast::Expr::Name(n) = t {
                                names.insert(n.id.to_string(), b.clone());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let np_assigned = nodes.iter().any(|n| {
            matches!(n, Node::Expr(ast::Expr::Name(name))
                if matches!(name.ctx, ast::ExprContext::Store)
                    && matches!(name.id.as_str(), "np" | "numpy"))
        });
        Bindings { names, np_assigned }
    }

    /// The qualified path of a name or attribute chain on a bound name
    /// (`z.rfx.quvohe` → `zwc.rfx.quvohe`), or `None` for anything else.
    pub fn resolve(&self, e: &ast::Expr) -> Option<Binding> {
        let dotted = pyast::dotted_name(e)?;
        let (root, rest) = match dotted.split_once('.') {
            Some((r, rest)) => (r, Some(rest)),
            None => (dotted.as_str(), None),
        };
        let join = |base: &str| match rest {
            Some(r) => format!("{base}.{r}"),
            None => base.to_string(),
        };
        match self.names.get(root) {
            Some(Binding::Zwc(p)) => Some(Binding::Zwc(join(p))),
            Some(Binding::Numpy(p)) => Some(Binding::Numpy(join(p))),
            // `np.x` / `numpy.x` without an import still means NumPy to the reader.
            None if rest.is_some() && !self.np_assigned && (root == "np" || root == "numpy") => {
                Some(Binding::Numpy(join("np")))
            }
            None => None,
        }
    }
}

/// The module named by `__import__("m")` or `importlib.import_module("m")`.
fn dynamic_import_module(e: &ast::Expr) -> Option<String> {
    let ast::Expr::Call(call) = e else {
        return None;
    };
    let callee = pyast::dotted_name(&call.func)?;
    if callee != "__import__" && callee != "importlib.import_module" {
        return None;
    }
    match call.args.first()? {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => Some(s.to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn binding_for_module(path: &str) -> Option<Binding> {
    if path == "zwc" || path.starts_with("zwc.") {
        Some(Binding::Zwc(path.to_string()))
    } else if is_numpy_module(path) {
        Some(Binding::Numpy(format!("np{}", &path["numpy".len()..])))
    } else {
        None
    }
}

/// NumPy names that are not functions in the zwc mapping but that solutions reach for.
const NUMPY_NON_FUNCTIONS: &[&str] = &[
    "pi",
    "e",
    "inf",
    "nan",
    "NaN",
    "Inf",
    "newaxis",
    "euler_gamma",
    "float64",
    "float32",
    "float16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool_",
    "complex128",
    "complex64",
    "ndarray",
    "dtype",
    "integer",
    "floating",
    "number",
    "random",
    "fft",
    "linalg",
    "ma",
    "char",
    "polynomial",
    "matrix",
    "float_",
    "int_",
    "iinfo",
    "finfo",
    "errstate",
    "seterr",
];

/// What a qualified zwc path refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZwcRef {
    Module,
    Rfx,
    /// A real zwc function (qualified zwc name).
    Function(String),
    /// A NumPy name used on zwc: the NumPy name and the real zwc name, if mapped.
    NumpyName {
        written: String,
        numpy: String,
        zwc: Option<String>,
    },
    /// Not a zwc nor a NumPy name: the closest real zwc names.
    Unknown {
        written: String,
        closest: Vec<String>,
    },
}

/// Classifies a qualified zwc path (`zwc.kocito`, `zwc.linalg.inv`, `zwc.rfx.mean`).
pub fn classify_zwc(api: &ApiMap, path: &str) -> ZwcRef {
    let segs: Vec<&str> = path.split('.').collect();
    match segs.as_slice() {
        ["zwc"] => ZwcRef::Module,
        ["zwc", "rfx"] => ZwcRef::Rfx,
        ["zwc", "rfx", y, ..] => {
            let q = format!("zwc.rfx.{y}");
            if api.numpy_name(&q).is_some() {
                return ZwcRef::Function(q);
            }
            for np in [format!("np.linalg.{y}"), format!("np.{y}")] {
                if let Some(z) = api.zwc_name(&np) {
                    return ZwcRef::NumpyName {
                        written: q,
                        numpy: np,
                        zwc: Some(z.to_string()),
                    };
                }
            }
            ZwcRef::Unknown {
                closest: closest_zwc_names(api, "zwc.rfx.", y),
                written: q,
            }
        }
        ["zwc", "linalg", rest @ ..] => {
            let written = match rest.first() {
                Some(y) => format!("zwc.linalg.{y}"),
                None => "zwc.linalg".to_string(),
            };
            let numpy = written.replacen("zwc", "np", 1);
            let zwc = match rest.first() {
                Some(_) => api.zwc_name(&numpy).map(str::to_string),
                None => Some("zwc.rfx".to_string()),
            };
            ZwcRef::NumpyName {
                written,
                numpy,
                zwc,
            }
        }
        // The wrapper's own class: real in every zwc package (`isinstance(r, zwc.ZWCArray)`).
        ["zwc", "ZWCArray", ..] => ZwcRef::Module,
        // The wrapper's private NumPy module: real too (a `numpy_backdoor` finding names it).
        ["zwc", "_np", ..] => ZwcRef::Module,
        ["zwc", x, ..] => {
            let q = format!("zwc.{x}");
            if api.numpy_name(&q).is_some() {
                return ZwcRef::Function(q);
            }
            let np = format!("np.{x}");
            if let Some(z) = api.zwc_name(&np) {
                return ZwcRef::NumpyName {
                    written: q,
                    numpy: np,
                    zwc: Some(z.to_string()),
                };
            }
            if NUMPY_NON_FUNCTIONS.contains(x) {
                return ZwcRef::NumpyName {
                    zwc: python_equivalent(&np).map(str::to_string),
                    written: q,
                    numpy: np,
                };
            }
            let mut closest = closest_zwc_names(api, "zwc.", x);
            // `zwc.inv`: the writer meant `np.linalg.inv`.
            if let Some(z) = api.zwc_name(&format!("np.linalg.{x}")) {
                closest.insert(0, z.to_string());
                closest.truncate(3);
            }
            ZwcRef::Unknown {
                closest,
                written: q,
            }
        }
        _ => ZwcRef::Module,
    }
}

/// One name for NumPy functions that are the same function under two names
/// (NumPy 2 aliases such as `bitwise_left_shift` = `left_shift`, `acos` = `arccos`).
pub fn numpy_canonical(name: &str) -> &str {
    match name {
        "bitwise_left_shift" => "left_shift",
        "bitwise_right_shift" => "right_shift",
        "bitwise_invert" | "bitwise_not" => "invert",
        "acos" => "arccos",
        "asin" => "arcsin",
        "atan" => "arctan",
        "atan2" => "arctan2",
        "acosh" => "arccosh",
        "asinh" => "arcsinh",
        "atanh" => "arctanh",
        "pow" => "power",
        "absolute" => "abs",
        "concat" => "concatenate",
        "permute_dims" => "transpose",
        "conj" => "conjugate",
        "around" => "round",
        "true_divide" => "divide",
        "remainder" => "mod",
        "amax" => "max",
        "amin" => "min",
        other => other,
    }
}

/// Up to three real zwc names (in the module of `prefix`) closest to `name` by edit distance.
pub fn closest_zwc_names(api: &ApiMap, prefix: &str, name: &str) -> Vec<String> {
    let mut scored: Vec<(usize, &str)> = api
        .zwc_to_numpy
        .keys()
        .filter_map(|q| {
            let short = q.strip_prefix(prefix)?;
            (!short.contains('.')).then_some((edit_distance(short, name), q.as_str()))
        })
        .collect();
    scored.sort();
    let limit = name.chars().count().div_ceil(2).max(2);
    scored
        .into_iter()
        .filter(|(d, _)| *d <= limit)
        .take(3)
        .map(|(_, q)| q.to_string())
        .collect()
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `zwc.kocito (mean)` for a list of qualified zwc names.
pub fn with_meanings(api: &ApiMap, names: &[String]) -> String {
    names
        .iter()
        .map(|q| match api.numpy_short(q) {
            Some(m) => format!("{q} ({m})"),
            None => q.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A finding before response positions are filled in; `offset` is a byte offset in the code.
#[derive(Debug, Clone)]
pub struct RawFinding {
    pub kind: FindingKind,
    pub severity: Severity,
    pub name: String,
    pub offset: usize,
    pub suggestion: Option<String>,
    pub message: String,
}

/// Findings about imports and names over the whole code: `numpy_import`,
/// `numpy_attribute`, `numpy_name_on_zwc`, `unknown_zwc_name`, `off_task_function`.
pub fn name_findings(
    api: &ApiMap,
    bindings: &Bindings,
    nodes: &[Node<'_>],
    numpy_imports: &[(NumpyImport, usize)],
    selected_functions: Option<&[String]>,
) -> Vec<RawFinding> {
    let mut out = Vec::new();
    for (imp, offset) in numpy_imports {
        // A dynamic import is a loophole: the official check does not see it.
        out.push(RawFinding {
            kind: if imp.dynamic {
                FindingKind::NumpyBackdoor
            } else {
                FindingKind::NumpyImport
            },
            severity: if imp.dynamic {
                Severity::Warning
            } else {
                Severity::Error
            },
            name: imp.text.clone(),
            offset: *offset,
            suggestion: Some("import zwc".to_string()),
            message: if imp.dynamic {
                "dynamic import of numpy: the official NumPy check does not see it, so the verdict stays and both scorers pay it as a zwc answer"
                    .to_string()
            } else {
                "imports numpy: the official verdict is use_numpy".to_string()
            },
        });
    }

    // Attribute chains that are the `.value` of a longer chain are handled with the longer
    // one, and names at the root of a chain with the chain.
    let mut inner: std::collections::HashSet<(usize, usize)> = Default::default();
    for n in nodes {
        if let Node::Expr(ast::Expr::Attribute(a)) = n
            && matches!(
                a.value.as_ref(),
                ast::Expr::Attribute(_) | ast::Expr::Name(_)
            )
        {
            inner.insert((
                pyast::start_of(a.value.as_ref()),
                pyast::end_of(a.value.as_ref()),
            ));
        }
    }
    let is_inner = |e: &ast::Expr| inner.contains(&(pyast::start_of(e), pyast::end_of(e)));
    let mut seen_off_task = std::collections::HashSet::new();
    for n in nodes {
        match n {
            Node::Expr(e @ ast::Expr::Attribute(_)) if !is_inner(e) => {
                let Some(binding) = bindings.resolve(e) else {
                    continue;
                };
                let written = pyast::dotted_name(e).unwrap_or_default();
                let offset = pyast::start_of(*e);
                match binding {
                    Binding::Numpy(path) => out.push(numpy_attribute(api, &written, &path, offset)),
                    Binding::Zwc(path) => {
                        let mut sink = ZwcSink {
                            api,
                            errors: true,
                            selected: selected_functions,
                            seen_off_task: &mut seen_off_task,
                            out: &mut out,
                        };
                        sink.path(&path, &written, offset);
                    }
                }
            }
            // A bare name bound by `from numpy import x` / `from zwc import x`.
            Node::Expr(e @ ast::Expr::Name(name))
                if !is_inner(e) && matches!(name.ctx, ast::ExprContext::Load) =>
            {
                let Some(binding) = bindings.names.get(name.id.as_str()) else {
                    continue;
                };
                let offset = pyast::start_of(*e);
                match binding {
                    Binding::Numpy(path) if path != "np" => {
                        out.push(numpy_attribute(api, name.id.as_str(), path, offset))
                    }
                    // Errors for a bad `from zwc import` are reported at the import.
                    Binding::Zwc(path) if path != "zwc" && path != "zwc.rfx" => {
                        let mut sink = ZwcSink {
                            api,
                            errors: false,
                            selected: selected_functions,
                            seen_off_task: &mut seen_off_task,
                            out: &mut out,
                        };
                        sink.path(path, name.id.as_str(), offset);
                    }
                    _ => {}
                }
            }
            // `from zwc import mean`: wrong at the import itself.
            Node::Stmt(s @ ast::Stmt::ImportFrom(i))
                if i.module
                    .as_ref()
                    .is_some_and(|m| m.as_str() == "zwc" || m.as_str().starts_with("zwc.")) =>
            {
                let module = i.module.as_ref().map(|m| m.as_str()).unwrap_or("zwc");
                for a in &i.names {
                    if a.name.as_str() == "*" {
                        continue;
                    }
                    let path = format!("{module}.{}", a.name.as_str());
                    let mut sink = ZwcSink {
                        api,
                        errors: true,
                        selected: None,
                        seen_off_task: &mut seen_off_task,
                        out: &mut out,
                    };
                    sink.path(&path, &path, pyast::start_of(*s));
                }
            }
            _ => {}
        }
    }
    out
}

/// Plain-Python replacements for NumPy constants that zwc does not have.
fn python_equivalent(numpy_path: &str) -> Option<&'static str> {
    Some(match numpy_path {
        "np.pi" => "math.pi",
        "np.e" => "math.e",
        "np.inf" | "np.Inf" => "float('inf')",
        "np.nan" | "np.NaN" => "float('nan')",
        _ => return None,
    })
}

/// The zwc name of a NumPy path, also trying `np.linalg.x` for `np.x`
/// (NumPy 2 has both `np.matrix_transpose` and `np.linalg.matrix_transpose`).
fn zwc_for_numpy(api: &ApiMap, path: &str) -> Option<String> {
    api.zwc_name(path)
        .or_else(|| {
            let rest = path.strip_prefix("np.")?;
            api.zwc_name(&format!("np.linalg.{rest}"))
        })
        .map(str::to_string)
}

fn numpy_attribute(api: &ApiMap, written: &str, path: &str, offset: usize) -> RawFinding {
    let zwc = zwc_for_numpy(api, path);
    let message = match (&zwc, python_equivalent(path)) {
        (Some(z), _) => format!("NumPy is not available: use {z}"),
        (None, Some(p)) => format!("NumPy is not available: use {p}"),
        (None, None) => "NumPy is not available, and zwc has no function for this name".to_string(),
    };
    let zwc = zwc.or_else(|| python_equivalent(path).map(str::to_string));
    RawFinding {
        kind: FindingKind::NumpyAttribute,
        severity: Severity::Error,
        name: written.to_string(),
        offset,
        suggestion: zwc,
        message,
    }
}

/// Turns zwc paths into findings: errors for wrong names (when `errors`), hints for
/// functions outside `selected` (when given).
struct ZwcSink<'a> {
    api: &'a ApiMap,
    errors: bool,
    selected: Option<&'a [String]>,
    seen_off_task: &'a mut std::collections::HashSet<String>,
    out: &'a mut Vec<RawFinding>,
}

impl ZwcSink<'_> {
    fn path(&mut self, path: &str, written: &str, offset: usize) {
        let api = self.api;
        let out = &mut *self.out;
        match classify_zwc(api, path) {
            ZwcRef::Module | ZwcRef::Rfx => {}
            ZwcRef::Function(q) => {
                let Some(selected) = self.selected else {
                    return;
                };
                let Some(meaning) = api.numpy_short(&q) else {
                    return;
                };
                // Building arrays is part of every solution, not a different task.
                if matches!(meaning, "array" | "asarray") || selected.is_empty() {
                    return;
                }
                // The datasets spell linalg functions bare (`det` for `linalg.det`).
                let canonical = numpy_canonical(meaning.strip_prefix("linalg.").unwrap_or(meaning));
                let on_task = selected.iter().any(|s| {
                    let s = s.strip_prefix("np.").unwrap_or(s);
                    numpy_canonical(s.strip_prefix("linalg.").unwrap_or(s)) == canonical
                });
                if !on_task && self.seen_off_task.insert(q.clone()) {
                    out.push(RawFinding {
                        kind: FindingKind::OffTaskFunction,
                        severity: Severity::Hint,
                        name: written.to_string(),
                        offset,
                        suggestion: None,
                        message: format!(
                            "{q} is np.{meaning}, not among the task's functions ({})",
                            selected.join(", ")
                        ),
                    });
                }
            }
            ZwcRef::NumpyName {
                written: _,
                numpy,
                zwc,
            } => {
                if !self.errors {
                    return;
                }
                let message = match &zwc {
                    Some(z) if z.starts_with("zwc.") => format!("{numpy} is called {z} in zwc"),
                    Some(z) => format!("zwc has no {numpy}: use {z}"),
                    None => format!("zwc has no {numpy}"),
                };
                out.push(RawFinding {
                    kind: FindingKind::NumpyNameOnZwc,
                    severity: Severity::Error,
                    name: written.to_string(),
                    offset,
                    suggestion: zwc,
                    message,
                });
            }
            ZwcRef::Unknown {
                written: _,
                closest,
            } => {
                if !self.errors {
                    return;
                }
                let suggestion = (!closest.is_empty()).then(|| with_meanings(api, &closest));
                out.push(RawFinding {
                    kind: FindingKind::UnknownZwcName,
                    severity: Severity::Error,
                    name: written.to_string(),
                    offset,
                    message: "zwc has no such name (neither a zwc nor a NumPy name)".to_string(),
                    suggestion,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("kocito", "kocito"), 0);
        assert_eq!(edit_distance("kocitoo", "kocito"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", "bca"), 2);
    }
}
