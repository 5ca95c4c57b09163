//! The dependency graph of a solution: which value is computed from which, for the
//! entry function and the helpers next to it, with what kind of value each one is
//! (ZWCArray, NumPy ndarray from `zwc.rfx`, plain Python). The same walk finds the
//! `array_method` misuses, since those need the value kinds.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::names::{Binding, Bindings, FindingKind, RawFinding, Severity, ZwcRef, classify_zwc};
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use super::assemble::rewrite_input;
use super::pyast::{self, ast};
use super::static_check::{PerTextCache, remembered};
use crate::model::ApiMap;
use crate::model::TestCase;
use crate::model::bounded::Bounded;

/// What a value is at run time, as far as the code tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// A `zwc.ZWCArray` (refuses NumPy methods).
    ZwcArray,
    /// A plain NumPy ndarray (from `zwc.rfx`, or `.T`).
    NumpyArray,
    /// A plain Python value (list, string, dict…).
    Python,
    /// A single number (Python or NumPy scalar; zwc leaves NumPy scalars unwrapped).
    Scalar,
    /// A tuple or list of ZWCArrays (`zwc.meshgrid`, `zwc.unique(..., return_counts=True)`).
    ZwcTuple,
    /// A tuple of NumPy arrays (`zwc.rfx.eig`…).
    NumpyTuple,
    Unknown,
}

impl ValueKind {
    fn join(a: ValueKind, b: ValueKind) -> ValueKind {
        if a == b { a } else { ValueKind::Unknown }
    }

    /// Kind of one element when unpacking or indexing a value of this kind.
    fn element(self) -> ValueKind {
        match self {
            ValueKind::ZwcTuple => ValueKind::ZwcArray,
            ValueKind::NumpyTuple => ValueKind::NumpyArray,
            _ => ValueKind::Unknown,
        }
    }

    fn is_array(self) -> bool {
        matches!(self, ValueKind::ZwcArray | ValueKind::NumpyArray)
    }

    fn join_all(kinds: impl IntoIterator<Item = ValueKind>) -> ValueKind {
        kinds
            .into_iter()
            .reduce(ValueKind::join)
            .unwrap_or(ValueKind::Unknown)
    }

    /// Short label for text output.
    pub fn label(self) -> &'static str {
        match self {
            ValueKind::ZwcArray => "ZWCArray",
            ValueKind::NumpyArray => "ndarray",
            ValueKind::Python => "python",
            ValueKind::Scalar => "number",
            ValueKind::ZwcTuple => "(ZWCArr)",
            ValueKind::NumpyTuple => "(ndarr)",
            ValueKind::Unknown => "?",
        }
    }
}

/// What a graph node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Param,
    /// An assignment target (plain, augmented, unpacking, loop or comprehension target).
    Assign,
    /// A call of a zwc function (real or not).
    ZwcCall,
    /// A call of a helper function defined in the code.
    HelperCall,
    /// Any other call.
    Call,
    Return,
}

impl NodeKind {
    pub fn label(self) -> &'static str {
        match self {
            NodeKind::Param => "param",
            NodeKind::Assign => "assign",
            NodeKind::ZwcCall => "zwc call",
            NodeKind::HelperCall => "helper",
            NodeKind::Call => "call",
            NodeKind::Return => "return",
        }
    }
}

/// One node of the dependency graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphNode {
    pub id: usize,
    /// The function (subgraph) it belongs to.
    pub function: String,
    pub kind: NodeKind,
    /// `x`, `zwc.kocito ‹mean›`, `len()`, `return`…
    pub label: String,
    /// 1-based line and column in the extracted code.
    pub line: usize,
    pub col: usize,
    /// 1-based line in the response.
    pub response_line: usize,
    pub value: ValueKind,
    /// A zwc call whose value flows into a `return` of its function.
    pub reaches_return: bool,
    /// A zwc call whose result nothing uses.
    pub unused: bool,
    /// The entry's only library call: the static check's verdict hinges on it.
    pub hinge: bool,
    /// A zwc call: the zwc name it calls, qualified (`zwc.kocito`, also through an alias).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zwc: Option<String>,
    /// A call of a real zwc function: its NumPy meaning (`mean`, `linalg.inv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numpy: Option<String>,
    #[serde(skip)]
    pub offset: usize,
}

/// "`to` is computed from `from`".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphEdge {
    pub from: usize,
    pub to: usize,
    /// A helper's return flowing into the call of that helper.
    pub link: bool,
}

/// One function's subgraph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionInfo {
    pub name: String,
    pub params: Vec<String>,
    /// 1-based line of the `def` in the extracted code.
    pub line: usize,
    pub is_entry: bool,
    #[serde(skip)]
    pub offset: usize,
}

/// The dependency graph of a solution.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepGraph {
    pub functions: Vec<FunctionInfo>,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

/// A value during the walk: the nodes it depends on and its kind.
#[derive(Debug, Clone)]
struct Val {
    deps: Vec<usize>,
    kind: ValueKind,
    /// The kind is known, not guessed: an array-method finding on it is an error, not
    /// just possible (a zwc call on arguments that may be numbers may return a scalar).
    sure: bool,
    /// Known nesting depth of a list, or dimensions of an array (0: not known).
    dims: u8,
}

impl Val {
    /// A value nothing is known of.
    fn unknown(deps: Vec<usize>) -> Val {
        Val {
            deps,
            kind: ValueKind::Unknown,
            sure: false,
            dims: 0,
        }
    }

    fn of(kind: ValueKind) -> Val {
        Val {
            deps: Vec::new(),
            kind,
            sure: true,
            dims: 0,
        }
    }

    /// Surely a plain Python value (not an array), computed from `deps`.
    fn python(deps: Vec<usize>) -> Val {
        Val {
            deps,
            ..Val::of(ValueKind::Python)
        }
    }
}

/// What each name holds.
type Env = HashMap<String, Val>;

/// NumPy functions that return a scalar when called without `axis` (or `keepdims`).
const REDUCTIONS: &[&str] = &[
    "mean",
    "average",
    "sum",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "ptp",
    "std",
    "var",
    "median",
    "percentile",
    "quantile",
    "argmax",
    "argmin",
    "all",
    "any",
    "count_nonzero",
    "trace",
    "vdot",
    "array_equal",
    "array_equiv",
    "allclose",
    "ndim",
    "size",
    "shape",
    "linalg.det",
    "linalg.norm",
    "linalg.matrix_rank",
    "linalg.cond",
    "linalg.slogdet",
    "linalg.trace",
    "isreal",
    "isclose",
];

/// NumPy functions that return a tuple or list of arrays.
const TUPLE_RESULTS: &[&str] = &[
    "meshgrid",
    "broadcast_arrays",
    "histogram",
    "divmod",
    "modf",
    "frexp",
    "nonzero",
    "split",
    "array_split",
    "hsplit",
    "vsplit",
    "linalg.eig",
    "linalg.eigh",
    "linalg.svd",
    "linalg.qr",
    "linalg.slogdet",
    "linalg.lstsq",
];

/// NumPy functions that build an array from any input, scalars included.
const CONSTRUCTORS: &[&str] = &[
    "array",
    "asarray",
    "asanyarray",
    "zeros",
    "ones",
    "empty",
    "full",
    "arange",
    "linspace",
    "logspace",
    "geomspace",
    "eye",
    "identity",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "tri",
    "diag",
    "copy",
];

/// Attributes a ZWCArray has.
const ZWC_ATTRIBUTES: &[&str] = &["shape", "dtype", "size", "ndim", "T"];

/// Methods that change their receiver in place (the receiver then depends on the call).
const MUTATORS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "update",
    "add",
    "setdefault",
    "sort",
    "reverse",
    "fill",
    "remove",
    "pop",
    "discard",
    "put",
    "itemset",
    "resize",
    "clear",
];

/// Builtins whose result is a plain Python value.
const PYTHON_BUILTINS: &[&str] = &[
    "len",
    "list",
    "tuple",
    "dict",
    "set",
    "sorted",
    "sum",
    "max",
    "min",
    "str",
    "range",
    "enumerate",
    "zip",
    "bool",
    "repr",
    "any",
    "all",
    "map",
    "filter",
    "reversed",
    "frozenset",
    "isinstance",
    "print",
    "complex",
];

/// Walks a parsed solution and builds its graph and `array_method` findings.
pub struct GraphBuilder<'a> {
    api: &'a ApiMap,
    bindings: &'a Bindings,
    /// Names of functions defined anywhere in the code.
    helpers: HashSet<String>,
    graph: DepGraph,
    findings: Vec<RawFinding>,
    /// Return nodes of each function, for linking helper calls.
    returns: HashMap<String, Vec<usize>>,
    /// Helper call nodes waiting for the helper's returns: (call node, helper name).
    pending_links: Vec<(usize, String)>,
    func: String,
    /// Current expression nesting, bounded so pathological code cannot overflow the stack.
    depth: usize,
    /// Current block nesting (an `elif` chain nests one level per `elif`), bounded likewise.
    block_depth: usize,
    /// The joined kind of each function's returns (and whether sure), for helper calls.
    return_kinds: HashMap<String, (ValueKind, bool)>,
    /// `try` bodies being walked whose handlers catch what a misuse raises.
    catching: usize,
    /// Guards in force: `hasattr(name, "attr")` (name, Some(attr)), `isinstance(name, …)`
    /// (name, None). A guarded misuse cannot be called certain.
    guards: Vec<(String, Option<String>)>,
    /// What the test cases pass to the entry function: per parameter (by name and by
    /// position), the kind every case agrees on.
    entry_args: EntryArgs,
}

/// The kinds of the arguments the test cases pass to the entry function.
#[derive(Debug, Clone, Default)]
pub struct EntryArgs {
    keyword: HashMap<String, (ValueKind, u8)>,
    positional: Vec<(ValueKind, u8)>,
}

impl EntryArgs {
    /// [`EntryArgs::from_inputs`] of the cases' inputs (as the harness rewrites them),
    /// remembered per distinct set of inputs: every rollout of a task shares them.
    pub fn of_cases(cases: &[TestCase]) -> EntryArgs {
        static CACHE: PerTextCache<u64, EntryArgs> =
            LazyLock::new(|| std::sync::Mutex::new(Bounded::new(20_000)));
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for c in cases {
            c.input.hash(&mut hasher);
        }
        remembered(&CACHE, hasher.finish(), || {
            let rewritten: Vec<String> = cases.iter().map(|c| rewrite_input(&c.input)).collect();
            EntryArgs::from_inputs(rewritten.iter().map(String::as_str))
        })
    }

    /// Reads each case's input (`a=[1, 2], k=3`, as the harness passes it) as call
    /// arguments; a parameter gets a kind only when every case passes the same kind.
    pub fn from_inputs<'i>(inputs: impl IntoIterator<Item = &'i str>) -> EntryArgs {
        let mut out: Option<EntryArgs> = None;
        for input in inputs {
            let Ok(suite) = pyast::parse_suite(&format!("_({input})\n")) else {
                return EntryArgs::default();
            };
            let [ast::Stmt::Expr(e)] = suite.as_slice() else {
                return EntryArgs::default();
            };
            let ast::Expr::Call(call) = e.value.as_ref() else {
                return EntryArgs::default();
            };
            let mut this = EntryArgs {
                positional: call.args.iter().map(literal_kind).collect(),
                ..EntryArgs::default()
            };
            for k in &call.keywords {
                if let Some(name) = &k.arg {
                    this.keyword
                        .insert(name.to_string(), literal_kind(&k.value));
                }
            }
            out = Some(match out {
                None => this,
                Some(mut acc) => {
                    // Same kind in every case; the depth only where every case agrees.
                    let meet = |a: &mut (ValueKind, u8), b: (ValueKind, u8)| {
                        if a.1 != b.1 {
                            a.1 = 0;
                        }
                        a.0 == b.0
                    };
                    acc.keyword.retain(|name, kd| {
                        this.keyword.get(name).is_some_and(|other| meet(kd, *other))
                    });
                    let mut agree = 0;
                    for (a, b) in acc.positional.iter_mut().zip(&this.positional) {
                        if !meet(a, *b) {
                            break;
                        }
                        agree += 1;
                    }
                    acc.positional.truncate(agree);
                    acc
                }
            });
        }
        out.unwrap_or_default()
    }

    fn kind_of(&self, name: &str, position: Option<usize>) -> Option<(ValueKind, u8)> {
        self.keyword
            .get(name)
            .or_else(|| self.positional.get(position?))
            .copied()
            .filter(|(k, _)| *k != ValueKind::Unknown)
    }
}

/// The kind and depth of a test input's literal: a list or tuple is a Python value (its
/// depth: 1 for numbers, 2 for rows of numbers…), a number (maybe negative) a scalar,
/// `zwc.yitaf(...)` (the harness's `np.array`) a ZWCArray, a string a Python value.
fn literal_kind(e: &ast::Expr) -> (ValueKind, u8) {
    match e {
        ast::Expr::List(ast::ExprList { elts, .. })
        | ast::Expr::Tuple(ast::ExprTuple { elts, .. }) => (
            ValueKind::Python,
            nested_depth(elts.iter().map(literal_kind)),
        ),
        ast::Expr::Constant(c) => match c.value {
            ast::Constant::Int(_) | ast::Constant::Float(_) | ast::Constant::Complex { .. } => {
                (ValueKind::Scalar, 0)
            }
            ast::Constant::Bool(_) | ast::Constant::None | ast::Constant::Ellipsis => {
                (ValueKind::Unknown, 0)
            }
            _ => (ValueKind::Python, 0),
        },
        ast::Expr::UnaryOp(u) => match literal_kind(&u.operand) {
            (ValueKind::Scalar, _) => (ValueKind::Scalar, 0),
            _ => (ValueKind::Unknown, 0),
        },
        ast::Expr::Call(c) if pyast::dotted_name(&c.func).as_deref() == Some("zwc.yitaf") => {
            let dims = c.args.first().map_or(0, |a| literal_kind(a).1);
            (ValueKind::ZwcArray, dims)
        }
        _ => (ValueKind::Unknown, 0),
    }
}

/// The depth of a list whose elements have these kinds and depths: 1 when all are
/// numbers, one more than theirs when all are lists or arrays of one depth, else unknown (0).
fn nested_depth(elements: impl IntoIterator<Item = (ValueKind, u8)>) -> u8 {
    let mut depth = None;
    for (kind, dims) in elements {
        let d = match kind {
            ValueKind::Scalar => 1,
            ValueKind::Python | ValueKind::ZwcArray | ValueKind::NumpyArray if dims > 0 => {
                dims.saturating_add(1)
            }
            _ => return 0,
        };
        if depth.is_some_and(|x| x != d) {
            return 0;
        }
        depth = Some(d);
    }
    depth.unwrap_or(0)
}

/// Deeper expressions are not followed (their value is unknown and has no sources).
const MAX_EXPR_DEPTH: usize = 100;

/// Deeper blocks are not followed (CPython allows 100 levels of indentation; a long `elif`
/// chain is the usual way past it, and its far end adds nothing to the graph).
const MAX_BLOCK_DEPTH: usize = 100;

impl<'a> GraphBuilder<'a> {
    pub fn new(api: &'a ApiMap, bindings: &'a Bindings) -> GraphBuilder<'a> {
        GraphBuilder {
            api,
            bindings,
            helpers: HashSet::new(),
            graph: DepGraph::default(),
            findings: Vec::new(),
            returns: HashMap::new(),
            pending_links: Vec::new(),
            func: String::new(),
            depth: 0,
            block_depth: 0,
            return_kinds: HashMap::new(),
            catching: 0,
            guards: Vec::new(),
            entry_args: EntryArgs::default(),
        }
    }

    /// Gives the entry function's parameters the kinds the test cases pass.
    pub fn with_entry_args(mut self, args: EntryArgs) -> GraphBuilder<'a> {
        self.entry_args = args;
        self
    }

    /// Builds the graph of every function in `suite`; `entry_offset` is the start of
    /// the entry `def` (the one the official check picks), if any.
    pub fn build(
        mut self,
        suite: &pyast::Suite,
        entry_offset: Option<usize>,
    ) -> (DepGraph, Vec<RawFinding>) {
        for n in pyast::walk_suite(suite) {
            if let pyast::Node::Stmt(ast::Stmt::FunctionDef(f)) = n {
                self.helpers.insert(f.name.to_string());
            }
        }
        // Module-level code runs in its own scope; functions see its bindings only by name.
        let mut module_env = Env::new();
        self.func = "<module>".to_string();
        self.block(suite, &mut module_env, entry_offset, true);
        for (call, helper) in std::mem::take(&mut self.pending_links) {
            for r in self.returns.get(&helper).cloned().unwrap_or_default() {
                self.graph.edges.push(GraphEdge {
                    from: r,
                    to: call,
                    link: true,
                });
            }
        }
        // Module-level nodes are not part of any function's story.
        let module_nodes: HashSet<usize> = self
            .graph
            .nodes
            .iter()
            .filter(|n| n.function == "<module>")
            .map(|n| n.id)
            .collect();
        if !module_nodes.is_empty() {
            self.graph.nodes.retain(|n| !module_nodes.contains(&n.id));
            self.graph
                .edges
                .retain(|e| !module_nodes.contains(&e.from) && !module_nodes.contains(&e.to));
            let remap: HashMap<usize, usize> = self
                .graph
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.id, i))
                .collect();
            for n in &mut self.graph.nodes {
                n.id = remap[&n.id];
            }
            for e in &mut self.graph.edges {
                e.from = remap[&e.from];
                e.to = remap[&e.to];
            }
        }
        self.graph.edges.sort_by_key(|e| (e.from, e.to));
        self.graph.edges.dedup();
        mark_flow(&mut self.graph);
        (self.graph, self.findings)
    }

    fn node(&mut self, kind: NodeKind, label: String, offset: usize, value: ValueKind) -> usize {
        let id = self.graph.nodes.len();
        self.graph.nodes.push(GraphNode {
            id,
            function: self.func.clone(),
            kind,
            label,
            line: 0,
            col: 0,
            response_line: 0,
            value,
            reaches_return: false,
            unused: false,
            hinge: false,
            zwc: None,
            numpy: None,
            offset,
        });
        id
    }

    fn edges_into(&mut self, deps: &[usize], to: usize) {
        for &from in deps {
            if from != to {
                self.graph.edges.push(GraphEdge {
                    from,
                    to,
                    link: false,
                });
            }
        }
    }

    /// An `array_method` finding: an error when the value is surely a ZWCArray and nothing
    /// catches the failure (a `try` with a matching handler, a `hasattr` guard), else possible.
    fn finding(
        &mut self,
        sure: bool,
        name: String,
        offset: usize,
        suggestion: Option<String>,
        message: String,
    ) {
        let severity = if sure && self.catching == 0 {
            Severity::Error
        } else {
            Severity::Possible
        };
        self.findings.push(RawFinding {
            kind: FindingKind::ArrayMethod,
            severity,
            name,
            offset,
            suggestion,
            message,
        });
    }

    fn function(
        &mut self,
        f: &ast::StmtFunctionDef,
        name: String,
        closure: &Env,
        entry_offset: Option<usize>,
    ) {
        let saved = std::mem::replace(&mut self.func, name.clone());
        let mut env = closure.clone();
        let mut params = Vec::new();
        let args = &f.args;
        let all = args
            .posonlyargs
            .iter()
            .chain(&args.args)
            .map(|a| &a.def)
            .chain(args.vararg.as_deref())
            .chain(args.kwonlyargs.iter().map(|a| &a.def))
            .chain(args.kwarg.as_deref());
        let defaults: Vec<&ast::Expr> = args
            .posonlyargs
            .iter()
            .chain(&args.args)
            .chain(&args.kwonlyargs)
            .filter_map(|a| a.default.as_deref())
            .collect();
        for d in defaults {
            // Defaults are evaluated where the def runs; their calls still belong here.
            self.expr(d, &mut env.clone());
        }
        let is_entry = entry_offset == Some(pyast::start_of(f));
        let positional = args.posonlyargs.len() + args.args.len();
        let keyword_only = positional + usize::from(args.vararg.is_some());
        for (position, a) in all.enumerate() {
            // Only named parameters take a case's argument (`*args`, `**kw` collect them).
            let known = if !is_entry {
                None
            } else if position < positional {
                self.entry_args.kind_of(a.arg.as_str(), Some(position))
            } else if position >= keyword_only
                && args.kwarg.as_deref().is_none_or(|k| k.arg != a.arg)
            {
                self.entry_args.kind_of(a.arg.as_str(), None)
            } else {
                None
            };
            let (kind, dims) = known.unwrap_or((ValueKind::Unknown, 0));
            let id = self.node(NodeKind::Param, a.arg.to_string(), pyast::start_of(a), kind);
            params.push(a.arg.to_string());
            let v = Val {
                deps: vec![id],
                kind,
                sure: known.is_some(),
                dims,
            };
            env.insert(a.arg.to_string(), v);
        }
        self.graph.functions.push(FunctionInfo {
            name: name.clone(),
            params,
            line: 0,
            is_entry,
            offset: pyast::start_of(f),
        });
        self.block(&f.body, &mut env, entry_offset, false);
        self.func = saved;
    }

    fn block(&mut self, body: &[ast::Stmt], env: &mut Env, entry: Option<usize>, module: bool) {
        if self.block_depth >= MAX_BLOCK_DEPTH {
            return;
        }
        self.block_depth += 1;
        for s in body {
            self.stmt(s, env, entry, module);
        }
        self.block_depth -= 1;
    }

    fn stmt(&mut self, s: &ast::Stmt, env: &mut Env, entry: Option<usize>, module: bool) {
        use ast::Stmt as S;
        match s {
            S::FunctionDef(f) => {
                let name = if module || self.func == "<module>" {
                    f.name.to_string()
                } else {
                    format!("{}.{}", self.func, f.name)
                };
                let closure = if module { Env::new() } else { env.clone() };
                self.function(f, name, &closure, entry);
                env.remove(f.name.as_str());
            }
            S::AsyncFunctionDef(_) => {}
            S::ClassDef(c) => {
                for inner in &c.body {
                    if let S::FunctionDef(f) = inner {
                        self.function(f, format!("{}.{}", c.name, f.name), &Env::new(), entry);
                    }
                }
            }
            S::Return(r) => {
                let v = match &r.value {
                    Some(e) => self.expr(e, env),
                    None => Val::of(ValueKind::Python),
                };
                let label = if r.value.is_some() {
                    "return"
                } else {
                    "return (bare)"
                };
                let id = self.node(
                    NodeKind::Return,
                    label.to_string(),
                    pyast::start_of(s),
                    v.kind,
                );
                self.edges_into(&v.deps, id);
                self.returns.entry(self.func.clone()).or_default().push(id);
                self.note_return_kind(self.func.clone(), &v);
                // Helpers are also called by their short name.
                if let Some(short) = self.func.rsplit('.').next()
                    && short != self.func
                {
                    self.returns.entry(short.to_string()).or_default().push(id);
                    self.note_return_kind(short.to_string(), &v);
                }
            }
            S::Assign(a) => {
                // `x, y = 0, len(a)`: pair targets with values one by one.
                if let ([target], Some(values)) = (a.targets.as_slice(), sequence_elts(&a.value))
                    && let Some(targets) = sequence_elts(target)
                    && targets.len() == values.len()
                    && !targets
                        .iter()
                        .chain(values)
                        .any(|e| matches!(e, ast::Expr::Starred(_)))
                {
                    let vals = self.exprs(values, env);
                    for (t, v) in targets.iter().zip(&vals) {
                        self.bind(t, v, env, pyast::start_of(t));
                    }
                    return;
                }
                let v = self.expr(&a.value, env);
                for t in &a.targets {
                    self.bind(t, &v, env, pyast::start_of(t));
                }
            }
            S::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    let v = self.expr(value, env);
                    self.bind(&a.target, &v, env, pyast::start_of(&*a.target));
                }
            }
            S::AugAssign(a) => {
                let right = self.expr(&a.value, env);
                let left = self.expr(&a.target, env);
                let (kind, sure) = self.binop_kind(&a.op, &left, &right, pyast::start_of(s));
                let deps: Vec<usize> = left.deps.iter().chain(&right.deps).copied().collect();
                self.bind(
                    &a.target,
                    &Val {
                        deps,
                        kind,
                        sure,
                        dims: 0,
                    },
                    env,
                    pyast::start_of(&*a.target),
                );
            }
            S::For(f) => {
                let it = self.expr(&f.iter, env);
                let before = env.clone();
                self.bind(
                    &f.target,
                    &element_of(it, &f.iter),
                    env,
                    pyast::start_of(&*f.target),
                );
                self.block(&f.body, env, entry, module);
                self.block(&f.orelse, env, entry, module);
                merge_into(env, &before);
            }
            S::While(w) => {
                self.expr(&w.test, env);
                let before = env.clone();
                self.block(&w.body, env, entry, module);
                self.block(&w.orelse, env, entry, module);
                merge_into(env, &before);
            }
            S::If(i) => {
                self.expr(&i.test, env);
                let guards = guards_in(&i.test);
                let n = guards.len();
                self.guards.extend(guards);
                let mut other = env.clone();
                self.block(&i.body, env, entry, module);
                self.block(&i.orelse, &mut other, entry, module);
                merge_into(env, &other);
                self.guards.truncate(self.guards.len() - n);
            }
            S::With(w) => {
                for item in &w.items {
                    let v = self.expr(&item.context_expr, env);
                    if let Some(t) = &item.optional_vars {
                        self.bind(
                            t,
                            &Val {
                                deps: v.deps,
                                kind: ValueKind::Unknown,
                                sure: true,
                                dims: 0,
                            },
                            env,
                            pyast::start_of(&**t),
                        );
                    }
                }
                self.block(&w.body, env, entry, module);
            }
            S::Match(m) => {
                self.expr(&m.subject, env);
                let before = env.clone();
                let mut merged = env.clone();
                for case in &m.cases {
                    let mut branch = before.clone();
                    if let Some(g) = &case.guard {
                        self.expr(g, &mut branch);
                    }
                    self.block(&case.body, &mut branch, entry, module);
                    merge_into(&mut merged, &branch);
                }
                *env = merged;
            }
            S::Try(t) => self.try_block(
                &t.body,
                &t.handlers,
                &t.orelse,
                &t.finalbody,
                env,
                entry,
                module,
            ),
            S::TryStar(t) => self.try_block(
                &t.body,
                &t.handlers,
                &t.orelse,
                &t.finalbody,
                env,
                entry,
                module,
            ),
            S::Expr(e) => {
                self.expr(&e.value, env);
            }
            S::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.expr(e, env);
                }
            }
            S::Assert(a) => {
                self.expr(&a.test, env);
            }
            S::Delete(d) => {
                for t in &d.targets {
                    if let ast::Expr::Name(n) = t {
                        env.remove(n.id.as_str());
                    }
                }
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn try_block(
        &mut self,
        body: &[ast::Stmt],
        handlers: &[ast::ExceptHandler],
        orelse: &[ast::Stmt],
        finalbody: &[ast::Stmt],
        env: &mut Env,
        entry: Option<usize>,
        module: bool,
    ) {
        let before = env.clone();
        let catches = handlers.iter().any(|h| {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            h.type_.as_deref().is_none_or(catches_misuse)
        });
        self.catching += usize::from(catches);
        self.block(body, env, entry, module);
        self.catching -= usize::from(catches);
        merge_into(env, &before);
        let after_body = env.clone();
        for h in handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            let mut branch = after_body.clone();
            if let Some(ty) = &h.type_ {
                self.expr(ty, &mut branch);
            }
            self.block(&h.body, &mut branch, entry, module);
            merge_into(env, &branch);
        }
        self.block(orelse, env, entry, module);
        self.block(finalbody, env, entry, module);
    }

    /// Binds an assignment target to a value.
    fn bind(&mut self, target: &ast::Expr, v: &Val, env: &mut Env, offset: usize) {
        match target {
            ast::Expr::Name(n) => {
                let id = self.node(NodeKind::Assign, n.id.to_string(), offset, v.kind);
                self.edges_into(&v.deps, id);
                let bound = Val {
                    deps: vec![id],
                    ..v.clone()
                };
                env.insert(n.id.to_string(), bound);
            }
            ast::Expr::Tuple(ast::ExprTuple { elts, .. })
            | ast::Expr::List(ast::ExprList { elts, .. }) => {
                for e in elts {
                    let kind = if matches!(e, ast::Expr::Starred(_)) {
                        ValueKind::Python
                    } else {
                        v.kind.element()
                    };
                    self.bind(
                        e,
                        &Val {
                            deps: v.deps.clone(),
                            kind,
                            sure: v.sure,
                            dims: 0,
                        },
                        env,
                        pyast::start_of(e),
                    );
                }
            }
            ast::Expr::Starred(s) => self.bind(&s.value, v, env, offset),
            // `a[i] = v` / `a.x = v`: `a` now also depends on `v`.
            ast::Expr::Subscript(_) | ast::Expr::Attribute(_) => {
                let (root, extra) = self.target_root(target, env);
                let Some(root) = root else { return };
                let old = env
                    .get(&root)
                    .cloned()
                    .unwrap_or_else(|| Val::unknown(Vec::new()));
                let label = format!("{root}[…]");
                let id = self.node(NodeKind::Assign, label, offset, old.kind);
                let deps: Vec<usize> = old
                    .deps
                    .iter()
                    .chain(&v.deps)
                    .chain(&extra)
                    .copied()
                    .collect();
                self.edges_into(&deps, id);
                env.insert(
                    root,
                    Val {
                        deps: vec![id],
                        ..old
                    },
                );
            }
            _ => {}
        }
    }

    /// The root name of `a[i].x[j]` and the dependencies of the index expressions.
    fn target_root(&mut self, e: &ast::Expr, env: &mut Env) -> (Option<String>, Vec<usize>) {
        match e {
            ast::Expr::Name(n) => (Some(n.id.to_string()), Vec::new()),
            ast::Expr::Subscript(s) => {
                let idx = self.expr(&s.slice, env);
                let (root, mut deps) = self.target_root(&s.value, env);
                deps.extend(idx.deps);
                (root, deps)
            }
            ast::Expr::Attribute(a) => self.target_root(&a.value, env),
            _ => (None, Vec::new()),
        }
    }

    fn exprs(&mut self, es: &[ast::Expr], env: &mut Env) -> Vec<Val> {
        es.iter().map(|e| self.expr(e, env)).collect()
    }

    fn union(vals: &[Val]) -> Vec<usize> {
        vals.iter().flat_map(|v| v.deps.iter().copied()).collect()
    }

    fn expr(&mut self, e: &ast::Expr, env: &mut Env) -> Val {
        if self.depth >= MAX_EXPR_DEPTH {
            return Val::of(ValueKind::Unknown);
        }
        self.depth += 1;
        let v = self.expr_inner(e, env);
        self.depth -= 1;
        v
    }

    fn expr_inner(&mut self, e: &ast::Expr, env: &mut Env) -> Val {
        use ast::Expr as E;
        match e {
            E::Name(n) => match env.get(n.id.as_str()) {
                Some(v) => v.clone(),
                None => Val::of(ValueKind::Unknown),
            },
            E::Constant(c) => Val::of(match c.value {
                ast::Constant::Int(_) | ast::Constant::Float(_) | ast::Constant::Complex { .. } => {
                    ValueKind::Scalar
                }
                _ => ValueKind::Python,
            }),
            E::List(ast::ExprList { elts, .. })
            | E::Tuple(ast::ExprTuple { elts, .. })
            | E::Set(ast::ExprSet { elts, .. }) => {
                let vals = self.exprs(elts, env);
                let dims = if matches!(e, E::Set(_)) {
                    0
                } else {
                    nested_depth(
                        vals.iter()
                            .map(|v| (v.kind, if v.sure { v.dims } else { 0 })),
                    )
                };
                Val {
                    deps: Self::union(&vals),
                    kind: ValueKind::Python,
                    sure: true,
                    dims,
                }
            }
            E::Dict(d) => {
                let mut vals = Vec::new();
                for k in d.keys.iter().flatten() {
                    vals.push(self.expr(k, env));
                }
                vals.extend(self.exprs(&d.values, env));
                Val::python(Self::union(&vals))
            }
            E::JoinedStr(j) => {
                let vals = self.exprs(&j.values, env);
                Val::python(Self::union(&vals))
            }
            E::FormattedValue(f) => {
                let v = self.expr(&f.value, env);
                Val::python(v.deps)
            }
            E::Attribute(a) => self.attribute(e, a, env),
            E::Subscript(s) => {
                let v = self.expr(&s.value, env);
                let idx = self.expr(&s.slice, env);
                let has_slice = matches!(s.slice.as_ref(), E::Slice(_))
                    || matches!(s.slice.as_ref(), E::Tuple(t) if t.elts.iter().any(|x| matches!(x, E::Slice(_))));
                // Indexing with an array (a mask, `zwc.argsort(...)`) or a list selects
                // elements: the result keeps its dimensions, so it is a ZWCArray too.
                let fancy =
                    idx.kind == ValueKind::ZwcArray || matches!(s.slice.as_ref(), E::List(_));
                // How many axes a plain index takes away (`a[i]`: one, `a[i, j]`: two).
                let taken = match s.slice.as_ref() {
                    E::Tuple(t) if t.elts.iter().all(|x| scalarish(x, ValueKind::Unknown)) => {
                        t.elts.len()
                    }
                    E::Tuple(_) => 0,
                    x if !has_slice && !fancy && scalarish(x, idx.kind) => 1,
                    // Only integers index a list.
                    _ if !has_slice && !fancy && v.kind == ValueKind::Python => 1,
                    _ => 0,
                };
                let (kind, sure, dims) = match v.kind {
                    ValueKind::ZwcArray | ValueKind::Python
                        if matches!(s.slice.as_ref(), E::Slice(_)) =>
                    {
                        (v.kind, v.sure, v.dims)
                    }
                    ValueKind::ZwcArray if has_slice => (ValueKind::ZwcArray, v.sure, 0),
                    ValueKind::ZwcArray if fancy => (ValueKind::ZwcArray, v.sure && idx.sure, 0),
                    ValueKind::ZwcTuple | ValueKind::NumpyTuple if !has_slice => {
                        (v.kind.element(), v.sure, 0)
                    }
                    // An element of a list or array whose depth is known.
                    ValueKind::ZwcArray | ValueKind::Python | ValueKind::NumpyArray
                        if taken > 0 && usize::from(v.dims) >= taken =>
                    {
                        match usize::from(v.dims) - taken {
                            0 => (ValueKind::Scalar, v.sure, 0),
                            d => (v.kind, v.sure, d as u8),
                        }
                    }
                    _ => (ValueKind::Unknown, false, 0),
                };
                Val {
                    deps: v.deps.into_iter().chain(idx.deps).collect(),
                    kind,
                    sure,
                    dims,
                }
            }
            E::BinOp(b) => {
                let l = self.expr(&b.left, env);
                let r = self.expr(&b.right, env);
                let (kind, sure) = self.binop_kind(&b.op, &l, &r, pyast::start_of(e));
                Val {
                    deps: l.deps.into_iter().chain(r.deps).collect(),
                    kind,
                    sure,
                    dims: 0,
                }
            }
            E::UnaryOp(u) => {
                let v = self.expr(&u.operand, env);
                match u.op {
                    ast::UnaryOp::Not => Val::python(v.deps),
                    op => {
                        if v.kind == ValueKind::ZwcArray {
                            let sym = match op {
                                ast::UnaryOp::USub => "-",
                                ast::UnaryOp::UAdd => "+",
                                _ => "~",
                            };
                            let sugg = match op {
                                ast::UnaryOp::USub => self.zwc_for("negative"),
                                ast::UnaryOp::Invert => self.zwc_for("invert"),
                                _ => self.zwc_for("positive"),
                            };
                            self.finding(
                                v.sure,
                                format!("unary {sym}"),
                                pyast::start_of(e),
                                sugg,
                                format!("ZWCArray has no unary {sym} (TypeError)"),
                            );
                        }
                        v
                    }
                }
            }
            E::Compare(c) => {
                let mut vals = vec![self.expr(&c.left, env)];
                vals.extend(self.exprs(&c.comparators, env));
                let kind = if vals[0].kind == ValueKind::ZwcArray
                    && c.ops.iter().all(|o| {
                        !matches!(
                            o,
                            ast::CmpOp::In | ast::CmpOp::NotIn | ast::CmpOp::Is | ast::CmpOp::IsNot
                        )
                    }) {
                    ValueKind::ZwcArray
                } else {
                    ValueKind::Unknown
                };
                Val {
                    deps: Self::union(&vals),
                    kind,
                    sure: vals[0].sure,
                    dims: 0,
                }
            }
            E::BoolOp(b) => {
                // `hasattr(x, "tolist") and x.tolist()`: earlier operands guard later ones.
                let n = self.guards.len();
                let mut vals = Vec::new();
                for v in &b.values {
                    vals.push(self.expr(v, env));
                    let guards = guards_in(v);
                    self.guards.extend(guards);
                }
                self.guards.truncate(n);
                Val {
                    deps: Self::union(&vals),
                    kind: ValueKind::join_all(vals.iter().map(|v| v.kind)),
                    sure: vals.iter().all(|v| v.sure),
                    dims: 0,
                }
            }
            E::IfExp(i) => {
                let t = self.expr(&i.test, env);
                let guards = guards_in(&i.test);
                let n = guards.len();
                self.guards.extend(guards);
                let a = self.expr(&i.body, env);
                let b = self.expr(&i.orelse, env);
                self.guards.truncate(self.guards.len() - n);
                Val {
                    kind: ValueKind::join(a.kind, b.kind),
                    sure: a.sure && b.sure,
                    dims: 0,
                    deps: t.deps.into_iter().chain(a.deps).chain(b.deps).collect(),
                }
            }
            E::NamedExpr(n) => {
                let v = self.expr(&n.value, env);
                self.bind(&n.target, &v, env, pyast::start_of(&*n.target));
                self.expr(&n.target, env)
            }
            E::Lambda(l) => {
                let mut inner = env.clone();
                for a in l
                    .args
                    .args
                    .iter()
                    .chain(&l.args.posonlyargs)
                    .chain(&l.args.kwonlyargs)
                {
                    inner.remove(a.def.arg.as_str());
                }
                let v = self.expr(&l.body, &mut inner);
                Val::python(v.deps)
            }
            E::ListComp(c) => self.comprehension(&[&c.elt], &c.generators, env, ValueKind::Python),
            E::SetComp(c) => self.comprehension(&[&c.elt], &c.generators, env, ValueKind::Python),
            E::GeneratorExp(c) => {
                self.comprehension(&[&c.elt], &c.generators, env, ValueKind::Python)
            }
            E::DictComp(c) => {
                self.comprehension(&[&c.key, &c.value], &c.generators, env, ValueKind::Python)
            }
            E::Call(c) => self.call(e, c, env),
            E::Starred(s) => self.expr(&s.value, env),
            E::Await(a) => self.expr(&a.value, env),
            E::YieldFrom(y) => self.expr(&y.value, env),
            E::Yield(y) => match &y.value {
                Some(v) => self.expr(v, env),
                None => Val::of(ValueKind::Python),
            },
            E::Slice(s) => {
                let mut deps = Vec::new();
                for part in [&s.lower, &s.upper, &s.step].into_iter().flatten() {
                    deps.extend(self.expr(part, env).deps);
                }
                Val {
                    deps,
                    kind: ValueKind::Python,
                    sure: true,
                    dims: 0,
                }
            }
        }
    }

    fn comprehension(
        &mut self,
        elts: &[&ast::Expr],
        generators: &[ast::Comprehension],
        env: &mut Env,
        kind: ValueKind,
    ) -> Val {
        let mut inner = env.clone();
        let mut deps = Vec::new();
        for g in generators {
            let it = self.expr(&g.iter, &mut inner);
            self.bind(
                &g.target,
                &element_of(it, &g.iter),
                &mut inner,
                pyast::start_of(&g.target),
            );
            for cond in &g.ifs {
                deps.extend(self.expr(cond, &mut inner).deps);
            }
        }
        for e in elts {
            deps.extend(self.expr(e, &mut inner).deps);
        }
        Val {
            deps,
            kind,
            sure: true,
            dims: 0,
        }
    }

    /// `x.attr` as a value (not as a callee of a module function).
    fn attribute(&mut self, e: &ast::Expr, a: &ast::ExprAttribute, env: &mut Env) -> Val {
        if self.module_path(e).is_some() {
            return Val::of(ValueKind::Unknown);
        }
        let recv = self.expr(&a.value, env);
        let attr = a.attr.as_str();
        let kind = match recv.kind {
            ValueKind::ZwcArray if ZWC_ATTRIBUTES.contains(&attr) => {
                if attr == "T" {
                    ValueKind::NumpyArray
                } else {
                    ValueKind::Python
                }
            }
            ValueKind::ZwcArray if self.guarded(&a.value, attr) => ValueKind::Unknown,
            ValueKind::ZwcArray => {
                let sure = recv.sure && !self.type_guarded(&a.value);
                let suggestion = self.method_suggestion(attr);
                let message = match &suggestion {
                    Some(z) => format!("ZWCArray has no attribute '{attr}': use {z}"),
                    None if attr == "tolist" => "ZWCArray has no attribute 'tolist': return the ZWCArray itself (it prints like a list), or use list(...)".to_string(),
                    None => format!("ZWCArray has no attribute '{attr}'"),
                };
                // At the attribute's name (the end of the expression), where it is written.
                let at = pyast::end_of(e).saturating_sub(attr.len());
                self.finding(sure, attr.to_string(), at, suggestion, message);
                ValueKind::Unknown
            }
            _ => ValueKind::Unknown,
        };
        Val {
            deps: recv.deps,
            kind,
            sure: recv.sure,
            dims: 0,
        }
    }

    /// Whether `recv.attr` sits under `hasattr(recv, "attr")`.
    fn guarded(&self, recv: &ast::Expr, attr: &str) -> bool {
        let ast::Expr::Name(n) = recv else {
            return false;
        };
        self.guards
            .iter()
            .any(|(name, a)| name == n.id.as_str() && a.as_deref() == Some(attr))
    }

    /// Whether `e` is a name whose type the code tests (`isinstance`, `hasattr`) around here.
    fn type_guarded(&self, e: &ast::Expr) -> bool {
        let ast::Expr::Name(n) = e else {
            return false;
        };
        self.guards.iter().any(|(name, _)| name == n.id.as_str())
    }

    fn note_return_kind(&mut self, func: String, v: &Val) {
        self.return_kinds
            .entry(func)
            .and_modify(|(k, s)| {
                *k = ValueKind::join(*k, v.kind);
                *s = *s && v.sure;
            })
            .or_insert((v.kind, v.sure));
    }

    /// The zwc function that does what NumPy method `m` does, where one exists.
    fn method_suggestion(&self, m: &str) -> Option<String> {
        let np = match m {
            "flatten" => "ravel",
            "tolist" | "item" | "fill" => return None,
            other => other,
        };
        self.zwc_for(np)
    }

    fn zwc_for(&self, numpy_short: &str) -> Option<String> {
        self.api
            .zwc_name(&format!("np.{numpy_short}"))
            .map(str::to_string)
    }

    /// The resolved module path of an expression that names zwc/NumPy things, if it does.
    fn module_path(&self, e: &ast::Expr) -> Option<Binding> {
        let root = pyast::chain_root(e)?;
        self.bindings.names.get(root)?;
        self.bindings.resolve(e)
    }

    /// The kind of `l op r` and whether it is sure (reports unsupported operators on a ZWCArray).
    fn binop_kind(
        &mut self,
        op: &ast::Operator,
        l: &Val,
        r: &Val,
        offset: usize,
    ) -> (ValueKind, bool) {
        use ast::Operator as O;
        let supported = matches!(op, O::Add | O::Sub | O::Mult | O::Div | O::Pow);
        let zwc_left = l.kind == ValueKind::ZwcArray;
        let zwc_right = r.kind == ValueKind::ZwcArray && l.kind == ValueKind::Python;
        if !supported && (zwc_left || zwc_right) {
            let (sym, np) = match op {
                O::Mod => ("%", "mod"),
                O::FloorDiv => ("//", "floor_divide"),
                O::MatMult => ("@", "matmul"),
                O::BitAnd => ("&", "bitwise_and"),
                O::BitOr => ("|", "bitwise_or"),
                O::BitXor => ("^", "bitwise_xor"),
                O::LShift => ("<<", "left_shift"),
                O::RShift => (">>", "right_shift"),
                _ => ("?", ""),
            };
            let suggestion = self.zwc_for(np);
            let sure = if zwc_left { l.sure } else { r.sure };
            self.finding(
                sure,
                sym.to_string(),
                offset,
                suggestion,
                format!("ZWCArray does not support `{sym}` (TypeError)"),
            );
            return (ValueKind::Unknown, false);
        }
        // Inputs are Python values or ZWCArrays, never ndarrays, so an unknown operand
        // next to a ZWCArray is not one either.
        if supported && zwc_left && r.kind != ValueKind::NumpyArray {
            return (ValueKind::ZwcArray, l.sure);
        }
        if supported && r.kind == ValueKind::ZwcArray && l.kind != ValueKind::NumpyArray {
            return (ValueKind::ZwcArray, r.sure);
        }
        let kind = match (l.kind, r.kind) {
            (ValueKind::NumpyArray, _) | (_, ValueKind::NumpyArray) => ValueKind::NumpyArray,
            (ValueKind::Python, ValueKind::Python) => ValueKind::Python,
            // Arithmetic on values not known to be arrays or containers: most likely numbers.
            (ValueKind::Scalar | ValueKind::Unknown, ValueKind::Scalar | ValueKind::Unknown) => {
                ValueKind::Scalar
            }
            _ => ValueKind::Unknown,
        };
        (kind, l.sure && r.sure)
    }

    fn call(&mut self, e: &ast::Expr, c: &ast::ExprCall, env: &mut Env) -> Val {
        let offset = pyast::start_of(e);
        let mut args = self.exprs(&c.args, env);
        for k in &c.keywords {
            args.push(self.expr(&k.value, env));
        }
        let mut deps = Self::union(&args);
        let has_axis = c.keywords.iter().any(|k| {
            k.arg
                .as_ref()
                .is_some_and(|a| matches!(a.as_str(), "axis" | "keepdims" | "axis1" | "axis2"))
        });

        // zwc / NumPy functions.
        if let Some(binding) = self.module_path(&c.func) {
            let written = pyast::dotted_name(&c.func).unwrap_or_default();
            // Whether some argument is surely an array or a container of numbers: the
            // result is then an array (unless the function reduces), not a scalar.
            let array_arg = c
                .args
                .iter()
                .chain(c.keywords.iter().map(|k| &k.value))
                .zip(&args)
                .any(|(a, v)| array_like(a, v));
            let mut sure = true;
            let mut dims = 0;
            let mut callee: (Option<String>, Option<String>) = (None, None);
            let (kind, label, value) = match &binding {
                Binding::Zwc(path) => match classify_zwc(self.api, path) {
                    ZwcRef::Function(q) => {
                        let meaning = self.api.numpy_short(&q).unwrap_or("?").to_string();
                        let m = meaning.as_str();
                        let rfx = q.starts_with("zwc.rfx.");
                        let returns_counts = c.keywords.iter().any(|k| {
                            k.arg
                                .as_ref()
                                .is_some_and(|a| a.as_str().starts_with("return_"))
                        });
                        let value =
                            if TUPLE_RESULTS.contains(&m) || (m == "unique" && returns_counts) {
                                if rfx {
                                    ValueKind::NumpyTuple
                                } else {
                                    ValueKind::ZwcTuple
                                }
                            } else if REDUCTIONS.contains(&m) && !has_axis {
                                ValueKind::Scalar
                            } else if rfx {
                                ValueKind::NumpyArray
                            } else if !CONSTRUCTORS.contains(&m)
                                && !c.args.is_empty()
                                && c.args.iter().zip(&args).all(|(a, v)| scalarish(a, v.kind))
                            {
                                // A ufunc on scalars returns a NumPy scalar, which zwc leaves unwrapped.
                                ValueKind::Scalar
                            } else {
                                // Constructors always give an array (a 0-d one for a number);
                                // other functions only when an argument surely is one.
                                sure = CONSTRUCTORS.contains(&m) || array_arg;
                                if matches!(m, "array" | "asarray")
                                    && let Some(first) = args.first()
                                    && first.sure
                                {
                                    dims = first.dims;
                                }
                                ValueKind::ZwcArray
                            };
                        callee = (
                            Some(q.clone()),
                            self.api.numpy_short(&q).map(str::to_string),
                        );
                        (NodeKind::ZwcCall, format!("{written} ‹{meaning}›"), value)
                    }
                    ZwcRef::Module | ZwcRef::Rfx => {
                        (NodeKind::ZwcCall, written.clone(), ValueKind::Unknown)
                    }
                    ZwcRef::NumpyName { .. } | ZwcRef::Unknown { .. } => {
                        callee.0 = Some(path.clone());
                        (
                            NodeKind::ZwcCall,
                            format!("{written} ‹?›"),
                            ValueKind::Unknown,
                        )
                    }
                },
                Binding::Numpy(_) => (NodeKind::Call, written.clone(), ValueKind::NumpyArray),
            };
            let id = self.node(kind, label, offset, value);
            (self.graph.nodes[id].zwc, self.graph.nodes[id].numpy) = callee;
            self.edges_into(&deps, id);
            return Val {
                deps: vec![id],
                kind: value,
                sure,
                dims,
            };
        }

        match c.func.as_ref() {
            ast::Expr::Name(n) => {
                let name = n.id.as_str();
                if self.helpers.contains(name) && !env.contains_key(name) {
                    let id = self.node(
                        NodeKind::HelperCall,
                        format!("{name}()"),
                        offset,
                        ValueKind::Unknown,
                    );
                    self.edges_into(&deps, id);
                    self.pending_links.push((id, name.to_string()));
                    // A helper walked before this call returns what its returns return.
                    let (kind, sure) = self
                        .return_kinds
                        .get(name)
                        .copied()
                        .unwrap_or((ValueKind::Unknown, false));
                    self.graph.nodes[id].value = kind;
                    return Val {
                        deps: vec![id],
                        kind,
                        sure,
                        dims: 0,
                    };
                }
                if let Some(f) = env.get(name) {
                    deps.extend(f.deps.clone());
                }
                let first_kind = args.first().map(|a| a.kind);
                let first_sure = args.first().is_some_and(|a| a.sure)
                    && c.args.first().is_some_and(|a| !self.type_guarded(a));
                if matches!(name, "abs" | "round" | "float" | "int")
                    && first_kind == Some(ValueKind::ZwcArray)
                {
                    let np = match name {
                        "abs" => "abs",
                        "round" => "round",
                        _ => "astype",
                    };
                    let suggestion = self.zwc_for(np);
                    self.finding(
                        first_sure,
                        format!("{name}()"),
                        offset,
                        suggestion,
                        format!("{name}() does not work on a ZWCArray (TypeError)"),
                    );
                }
                let kind = if matches!(name, "float" | "int" | "abs" | "round" | "len" | "sum") {
                    ValueKind::Scalar
                } else if PYTHON_BUILTINS.contains(&name) {
                    ValueKind::Python
                } else {
                    ValueKind::Unknown
                };
                let id = self.node(NodeKind::Call, format!("{name}()"), offset, kind);
                self.edges_into(&deps, id);
                Val {
                    deps: vec![id],
                    kind,
                    sure: true,
                    dims: 0,
                }
            }
            ast::Expr::Attribute(a) => {
                let recv = self.attribute(&c.func, a, env);
                deps.extend(recv.deps.iter().copied());
                let method = a.attr.as_str();
                let (recv_kind, recv_sure) = match a.value.as_ref() {
                    ast::Expr::Name(n) => match env.get(n.id.as_str()) {
                        Some(v) => (Some(v.kind), v.sure),
                        None => (None, false),
                    },
                    _ => (None, false),
                };
                let mut sure = true;
                let kind = match (recv_kind, method) {
                    (Some(ValueKind::NumpyArray), "tolist") => ValueKind::Python,
                    (_, "copy") => {
                        sure = recv_sure;
                        recv_kind.unwrap_or(ValueKind::Unknown)
                    }
                    (_, "join" | "split" | "keys" | "values" | "items" | "count" | "index") => {
                        ValueKind::Python
                    }
                    _ => ValueKind::Unknown,
                };
                let label = match a.value.as_ref() {
                    ast::Expr::Name(n) => format!("{}.{method}()", n.id),
                    _ => format!(".{method}()"),
                };
                let id = self.node(NodeKind::Call, label, offset, kind);
                self.edges_into(&deps, id);
                // In-place methods: the receiver now depends on this call.
                if MUTATORS.contains(&method)
                    && let ast::Expr::Name(n) = a.value.as_ref()
                    && let Some(old) = env.get(n.id.as_str()).cloned()
                {
                    let mid = self.node(NodeKind::Assign, n.id.to_string(), offset, old.kind);
                    let mut from = old.deps.clone();
                    from.push(id);
                    self.edges_into(&from, mid);
                    env.insert(
                        n.id.to_string(),
                        Val {
                            deps: vec![mid],
                            ..old
                        },
                    );
                }
                Val {
                    deps: vec![id],
                    kind,
                    sure,
                    dims: 0,
                }
            }
            other => {
                let f = self.expr(other, env);
                deps.extend(f.deps);
                let id = self.node(
                    NodeKind::Call,
                    "(…)()".to_string(),
                    offset,
                    ValueKind::Unknown,
                );
                self.edges_into(&deps, id);
                Val {
                    deps: vec![id],
                    kind: ValueKind::Unknown,
                    sure: true,
                    dims: 0,
                }
            }
        }
    }
}

/// The elements of a tuple or list display.
fn sequence_elts(e: &ast::Expr) -> Option<&[ast::Expr]> {
    match e {
        ast::Expr::Tuple(t) => Some(&t.elts),
        ast::Expr::List(l) => Some(&l.elts),
        _ => None,
    }
}

/// An argument that is surely an array or a container (of numbers, as zwc takes them).
fn array_like(e: &ast::Expr, v: &Val) -> bool {
    if v.sure
        && matches!(
            v.kind,
            ValueKind::ZwcArray
                | ValueKind::NumpyArray
                | ValueKind::ZwcTuple
                | ValueKind::NumpyTuple
        )
    {
        return true;
    }
    match e {
        ast::Expr::List(_) | ast::Expr::Tuple(_) | ast::Expr::ListComp(_) => true,
        ast::Expr::Call(c) => matches!(
            pyast::dotted_name(&c.func).as_deref(),
            Some("list" | "tuple" | "sorted" | "range")
        ),
        // A name bound to a list display or comprehension (strings are Python values
        // too, but no zwc function takes one).
        ast::Expr::Name(_) => v.sure && v.kind == ValueKind::Python,
        _ => false,
    }
}

/// Whether an `except` clause's type catches what a ZWCArray misuse raises
/// (`AttributeError`, `TypeError`, or anything broader).
fn catches_misuse(ty: &ast::Expr) -> bool {
    match ty {
        ast::Expr::Tuple(t) => t.elts.iter().any(catches_misuse),
        other => matches!(
            pyast::dotted_name(other).as_deref(),
            Some("AttributeError" | "TypeError" | "Exception" | "BaseException")
        ),
    }
}

/// The guards a condition sets up: `hasattr(x, "a")` → (x, Some(a)), `isinstance(x, …)`
/// → (x, None), wherever they appear in it (under `not`, `and`, `or`).
fn guards_in(test: &ast::Expr) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut stack = vec![test];
    while let Some(e) = stack.pop() {
        match e {
            ast::Expr::BoolOp(b) => stack.extend(b.values.iter()),
            ast::Expr::UnaryOp(u) => stack.push(&u.operand),
            ast::Expr::Call(c) => {
                let callee = pyast::dotted_name(&c.func);
                let Some(ast::Expr::Name(n)) = c.args.first() else {
                    continue;
                };
                match callee.as_deref() {
                    Some("hasattr") => {
                        let attr = match c.args.get(1) {
                            Some(ast::Expr::Constant(k)) => match &k.value {
                                ast::Constant::Str(s) => Some(s.to_string()),
                                _ => None,
                            },
                            _ => None,
                        };
                        out.push((n.id.to_string(), attr));
                    }
                    Some("isinstance") => out.push((n.id.to_string(), None)),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out
}

/// An argument that is most likely a single number: a number literal, arithmetic on
/// values not known to be arrays, an indexed element, or a numeric builtin's result.
fn scalarish(e: &ast::Expr, kind: ValueKind) -> bool {
    if kind.is_array() || matches!(kind, ValueKind::ZwcTuple | ValueKind::NumpyTuple) {
        return false;
    }
    if kind == ValueKind::Scalar {
        return true;
    }
    match e {
        ast::Expr::Constant(c) => !matches!(
            c.value,
            ast::Constant::Str(_) | ast::Constant::Bytes(_) | ast::Constant::Tuple(_)
        ),
        ast::Expr::BinOp(_) | ast::Expr::UnaryOp(_) => true,
        ast::Expr::Subscript(s) => !matches!(s.slice.as_ref(), ast::Expr::Slice(_)),
        ast::Expr::Call(c) => matches!(
            pyast::dotted_name(&c.func).as_deref(),
            Some("float" | "int" | "len" | "abs" | "round" | "sum" | "max" | "min")
        ),
        _ => false,
    }
}

/// One element when iterating over `it`, the value of `iter`: a number from a 1-D list or
/// array (a ZWCArray yields Python scalars) or from `range`, a row from a deeper one, an
/// array from a tuple of arrays; unknown when the depth is not known.
fn element_of(it: Val, iter: &ast::Expr) -> Val {
    let (kind, sure, dims) = match (it.kind, it.dims) {
        (ValueKind::ZwcTuple | ValueKind::NumpyTuple, _) => (it.kind.element(), it.sure, 0),
        (ValueKind::Python | ValueKind::ZwcArray | ValueKind::NumpyArray, 1) => {
            (ValueKind::Scalar, it.sure, 0)
        }
        (k @ (ValueKind::Python | ValueKind::ZwcArray | ValueKind::NumpyArray), d) if d > 1 => {
            (k, it.sure, d - 1)
        }
        _ if matches!(iter, ast::Expr::Call(c) if pyast::dotted_name(&c.func).as_deref() == Some("range")) => {
            (ValueKind::Scalar, true, 0)
        }
        _ => (ValueKind::Unknown, false, 0),
    };
    Val {
        deps: it.deps,
        kind,
        sure,
        dims,
    }
}

/// `env` becomes the union of itself and `other` (both branches may have run).
fn merge_into(env: &mut Env, other: &Env) {
    for (name, o) in other {
        match env.get_mut(name) {
            Some(v) => {
                for x in &o.deps {
                    if !v.deps.contains(x) {
                        v.deps.push(*x);
                    }
                }
                v.kind = ValueKind::join(v.kind, o.kind);
                v.sure = v.sure && o.sure;
                if v.dims != o.dims {
                    v.dims = 0;
                }
            }
            None => {
                env.insert(name.clone(), Val::unknown(o.deps.clone()));
            }
        }
    }
}

/// Marks zwc calls that reach a return of their own function and zwc calls nobody uses.
/// One backward walk from each function's returns (linear per function), not a forward
/// walk from every call: a chain of thousands of calls stays fast.
fn mark_flow(g: &mut DepGraph) {
    let n = g.nodes.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut has_out = vec![false; n];
    for e in &g.edges {
        preds[e.to].push(e.from);
        has_out[e.from] = true;
    }
    // Per function: its returns and its zwc calls (node ids).
    let mut per_function: HashMap<&str, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (i, node) in g.nodes.iter().enumerate() {
        match node.kind {
            NodeKind::Return => per_function.entry(&node.function).or_default().0.push(i),
            NodeKind::ZwcCall => per_function.entry(&node.function).or_default().1.push(i),
            _ => {}
        }
    }
    // `seen[x] == stamp`: reached in the current function's walk (no clearing between walks).
    let mut seen = vec![0usize; n];
    let mut reaches = vec![false; n];
    for (stamp, (returns, calls)) in per_function.values().enumerate() {
        let stamp = stamp + 1;
        if calls.is_empty() {
            continue;
        }
        let mut stack = returns.clone();
        for &r in returns {
            seen[r] = stamp;
        }
        while let Some(x) = stack.pop() {
            for &p in &preds[x] {
                if seen[p] != stamp {
                    seen[p] = stamp;
                    stack.push(p);
                }
            }
        }
        for &c in calls {
            reaches[c] = seen[c] == stamp;
        }
    }
    for (i, node) in g.nodes.iter_mut().enumerate() {
        if node.kind == NodeKind::ZwcCall {
            node.reaches_return = reaches[i];
        }
    }
    for (i, node) in g.nodes.iter_mut().enumerate() {
        if node.kind == NodeKind::ZwcCall {
            node.unused = !has_out[i];
        }
    }
}
