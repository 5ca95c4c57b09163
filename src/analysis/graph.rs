//! The dependency graph of a solution: which value is computed from which, for the
//! entry function and the helpers next to it, with what kind of value each one is
//! (ZWCArray, NumPy ndarray from `zwc.rfx`, plain Python). The same walk finds the
//! `array_method` misuses, since those need the value kinds.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::names::{Binding, Bindings, FindingKind, RawFinding, Severity, ZwcRef, classify_zwc};
use super::pyast::{self, ast};
use crate::model::ApiMap;

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
}

impl Val {
    fn of(kind: ValueKind) -> Val {
        Val {
            deps: Vec::new(),
            kind,
        }
    }
}

type Env = HashMap<String, (Vec<usize>, ValueKind)>;

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
        }
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

    fn finding(
        &mut self,
        name: String,
        offset: usize,
        suggestion: Option<String>,
        message: String,
    ) {
        self.findings.push(RawFinding {
            kind: FindingKind::ArrayMethod,
            severity: Severity::Error,
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
        for a in all {
            let id = self.node(
                NodeKind::Param,
                a.arg.to_string(),
                pyast::start_of(a),
                ValueKind::Unknown,
            );
            params.push(a.arg.to_string());
            env.insert(a.arg.to_string(), (vec![id], ValueKind::Unknown));
        }
        let is_entry = entry_offset == Some(pyast::start_of(f));
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
                // Helpers are also called by their short name.
                if let Some(short) = self.func.rsplit('.').next()
                    && short != self.func
                {
                    self.returns.entry(short.to_string()).or_default().push(id);
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
                let kind = self.binop_kind(&a.op, &left, &right, pyast::start_of(s));
                let deps: Vec<usize> = left.deps.iter().chain(&right.deps).copied().collect();
                self.bind(
                    &a.target,
                    &Val { deps, kind },
                    env,
                    pyast::start_of(&*a.target),
                );
            }
            S::For(f) => {
                let it = self.expr(&f.iter, env);
                let before = env.clone();
                self.bind(
                    &f.target,
                    &Val {
                        deps: it.deps,
                        kind: element_kind(it.kind),
                    },
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
                let mut other = env.clone();
                self.block(&i.body, env, entry, module);
                self.block(&i.orelse, &mut other, entry, module);
                merge_into(env, &other);
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
        self.block(body, env, entry, module);
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
                env.insert(n.id.to_string(), (vec![id], v.kind));
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
                    .unwrap_or((Vec::new(), ValueKind::Unknown));
                let label = format!("{root}[…]");
                let id = self.node(NodeKind::Assign, label, offset, old.1);
                let deps: Vec<usize> = old.0.iter().chain(&v.deps).chain(&extra).copied().collect();
                self.edges_into(&deps, id);
                env.insert(root, (vec![id], old.1));
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
                Some((deps, kind)) => Val {
                    deps: deps.clone(),
                    kind: *kind,
                },
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
                Val {
                    deps: Self::union(&vals),
                    kind: ValueKind::Python,
                }
            }
            E::Dict(d) => {
                let mut vals = Vec::new();
                for k in d.keys.iter().flatten() {
                    vals.push(self.expr(k, env));
                }
                vals.extend(self.exprs(&d.values, env));
                Val {
                    deps: Self::union(&vals),
                    kind: ValueKind::Python,
                }
            }
            E::JoinedStr(j) => {
                let vals = self.exprs(&j.values, env);
                Val {
                    deps: Self::union(&vals),
                    kind: ValueKind::Python,
                }
            }
            E::FormattedValue(f) => {
                let v = self.expr(&f.value, env);
                Val {
                    deps: v.deps,
                    kind: ValueKind::Python,
                }
            }
            E::Attribute(a) => self.attribute(e, a, env),
            E::Subscript(s) => {
                let v = self.expr(&s.value, env);
                let idx = self.expr(&s.slice, env);
                let has_slice = matches!(s.slice.as_ref(), E::Slice(_))
                    || matches!(s.slice.as_ref(), E::Tuple(t) if t.elts.iter().any(|x| matches!(x, E::Slice(_))));
                let kind = match v.kind {
                    ValueKind::ZwcArray if has_slice => ValueKind::ZwcArray,
                    ValueKind::ZwcTuple | ValueKind::NumpyTuple if !has_slice => v.kind.element(),
                    _ => ValueKind::Unknown,
                };
                Val {
                    deps: v.deps.into_iter().chain(idx.deps).collect(),
                    kind,
                }
            }
            E::BinOp(b) => {
                let l = self.expr(&b.left, env);
                let r = self.expr(&b.right, env);
                let kind = self.binop_kind(&b.op, &l, &r, pyast::start_of(e));
                Val {
                    deps: l.deps.into_iter().chain(r.deps).collect(),
                    kind,
                }
            }
            E::UnaryOp(u) => {
                let v = self.expr(&u.operand, env);
                match u.op {
                    ast::UnaryOp::Not => Val {
                        deps: v.deps,
                        kind: ValueKind::Python,
                    },
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
                }
            }
            E::BoolOp(b) => {
                let vals = self.exprs(&b.values, env);
                Val {
                    deps: Self::union(&vals),
                    kind: ValueKind::join_all(vals.iter().map(|v| v.kind)),
                }
            }
            E::IfExp(i) => {
                let t = self.expr(&i.test, env);
                let a = self.expr(&i.body, env);
                let b = self.expr(&i.orelse, env);
                Val {
                    kind: ValueKind::join(a.kind, b.kind),
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
                Val {
                    deps: v.deps,
                    kind: ValueKind::Python,
                }
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
                &Val {
                    deps: it.deps,
                    kind: element_kind(it.kind),
                },
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
        Val { deps, kind }
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
            ValueKind::ZwcArray => {
                let suggestion = self.method_suggestion(attr);
                let message = match &suggestion {
                    Some(z) => format!("ZWCArray has no attribute '{attr}': use {z}"),
                    None if attr == "tolist" => "ZWCArray has no attribute 'tolist': return the ZWCArray itself (it prints like a list), or use list(...)".to_string(),
                    None => format!("ZWCArray has no attribute '{attr}'"),
                };
                self.finding(attr.to_string(), pyast::start_of(e), suggestion, message);
                ValueKind::Unknown
            }
            _ => ValueKind::Unknown,
        };
        Val {
            deps: recv.deps,
            kind,
        }
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

    fn binop_kind(&mut self, op: &ast::Operator, l: &Val, r: &Val, offset: usize) -> ValueKind {
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
            self.finding(
                sym.to_string(),
                offset,
                suggestion,
                format!("ZWCArray does not support `{sym}` (TypeError)"),
            );
            return ValueKind::Unknown;
        }
        // Inputs are Python values or ZWCArrays, never ndarrays, so an unknown operand
        // next to a ZWCArray is not one either.
        if supported
            && ((zwc_left && r.kind != ValueKind::NumpyArray)
                || (r.kind == ValueKind::ZwcArray && l.kind != ValueKind::NumpyArray))
        {
            return ValueKind::ZwcArray;
        }
        match (l.kind, r.kind) {
            (ValueKind::NumpyArray, _) | (_, ValueKind::NumpyArray) => ValueKind::NumpyArray,
            (ValueKind::Python, ValueKind::Python) => ValueKind::Python,
            // Arithmetic on values not known to be arrays or containers: most likely numbers.
            (ValueKind::Scalar | ValueKind::Unknown, ValueKind::Scalar | ValueKind::Unknown) => {
                ValueKind::Scalar
            }
            _ => ValueKind::Unknown,
        }
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
                    return Val {
                        deps: vec![id],
                        kind: ValueKind::Unknown,
                    };
                }
                if let Some((fdeps, _)) = env.get(name) {
                    deps.extend(fdeps.clone());
                }
                let first_kind = args.first().map(|a| a.kind);
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
                }
            }
            ast::Expr::Attribute(a) => {
                let recv = self.attribute(&c.func, a, env);
                deps.extend(recv.deps.iter().copied());
                let method = a.attr.as_str();
                let recv_kind = match a.value.as_ref() {
                    ast::Expr::Name(n) => env.get(n.id.as_str()).map(|(_, k)| *k),
                    _ => None,
                };
                let kind = match (recv_kind, method) {
                    (Some(ValueKind::NumpyArray), "tolist") => ValueKind::Python,
                    (_, "copy") => recv_kind.unwrap_or(ValueKind::Unknown),
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
                    && let Some((_, k)) = env.get(n.id.as_str()).cloned()
                {
                    let mid = self.node(NodeKind::Assign, n.id.to_string(), offset, k);
                    let mut from = env
                        .get(n.id.as_str())
                        .map(|(d, _)| d.clone())
                        .unwrap_or_default();
                    from.push(id);
                    self.edges_into(&from, mid);
                    env.insert(n.id.to_string(), (vec![mid], k));
                }
                Val {
                    deps: vec![id],
                    kind,
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

/// Kind of an element when iterating over a value of kind `k`.
fn element_kind(k: ValueKind) -> ValueKind {
    // Rows of an array are arrays, elements of a 1-D one are scalars: unknown either way.
    match k {
        ValueKind::ZwcTuple | ValueKind::NumpyTuple => k.element(),
        _ => ValueKind::Unknown,
    }
}

/// `env` becomes the union of itself and `other` (both branches may have run).
fn merge_into(env: &mut Env, other: &Env) {
    for (name, (deps, kind)) in other {
        match env.get_mut(name) {
            Some((d, k)) => {
                for x in deps {
                    if !d.contains(x) {
                        d.push(*x);
                    }
                }
                *k = ValueKind::join(*k, *kind);
            }
            None => {
                env.insert(name.clone(), (deps.clone(), ValueKind::Unknown));
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
