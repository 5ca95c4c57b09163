//! The expression walk: the value (kind and sources) of each expression, the graph nodes
//! that calls and bindings make, and the findings the kinds reveal. The statement walk
//! drives it; kind rules come from `kinds`, severities from `findings`.
//!
//! Parts: this file walks expressions, bindings and loop targets; `calls` walks calls.

use std::collections::{HashMap, HashSet};

use super::dep_graph::{DepGraph, GraphEdge, GraphNode, NodeKind, ValueKind};
use super::findings::Findings;
use super::kinds::{self, Env, Items, Val, element_of, union};
use super::truth;
use crate::analysis::names::{Binding, Bindings};
use crate::analysis::pyast::{self, ast};
use crate::model::ApiMap;

mod calls;

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

/// Deeper expressions are not followed (their value is unknown and has no sources).
const MAX_EXPR_DEPTH: usize = 100;

/// Walks expressions, adding the nodes and edges they make to the graph.
#[derive(Clone)]
pub(super) struct ExprWalker<'a> {
    api: &'a ApiMap,
    bindings: &'a Bindings,
    /// Names of functions defined anywhere in the code.
    pub(super) helpers: HashSet<String>,
    pub(super) graph: DepGraph,
    pub(super) findings: Findings<'a>,
    /// Helper call nodes waiting for the helper's returns: (call node, helper name).
    pub(super) pending_links: Vec<(usize, String)>,
    /// The function being walked (`<module>` at module level): it owns the new nodes.
    pub(super) func: String,
    /// Current expression nesting, bounded so pathological code cannot overflow the stack.
    depth: usize,
    /// The joined kind of each function's returns (and whether sure), for helper calls.
    return_kinds: HashMap<String, (ValueKind, bool)>,
    /// What each helper's calls pass, position by position (`None`: a call the kinds
    /// cannot be paired with, keywords or `*args`), and helpers used other than by a call.
    pub(super) helper_args: HashMap<String, Option<Vec<ArgKind>>>,
    pub(super) helper_refs: HashSet<String>,
    /// What an earlier walk of the code found each helper returns, for calls of helpers
    /// defined after them.
    pub(super) prior_returns: HashMap<String, (ValueKind, bool)>,
    /// A helper was called before its returns were walked (it is defined after the call).
    pub(super) late_helper_calls: bool,
    /// While a loop's first iteration is walked (`for i in range(len(l))`): the index,
    /// the list and its first element, which `l[i]` is until either is rebound.
    pub(super) first_index: Option<(String, String, Val)>,
}

/// What a call passes at one position: kind, sure, dimensions.
pub(super) type ArgKind = (ValueKind, bool, u8);

impl<'a> ExprWalker<'a> {
    pub(super) fn new(api: &'a ApiMap, bindings: &'a Bindings) -> ExprWalker<'a> {
        ExprWalker {
            api,
            bindings,
            helpers: HashSet::new(),
            graph: DepGraph::default(),
            findings: Findings::new(api),
            pending_links: Vec::new(),
            func: String::new(),
            depth: 0,
            return_kinds: HashMap::new(),
            helper_args: HashMap::new(),
            helper_refs: HashSet::new(),
            prior_returns: HashMap::new(),
            late_helper_calls: false,
            first_index: None,
        }
    }

    pub(super) fn node(
        &mut self,
        kind: NodeKind,
        label: String,
        offset: usize,
        value: ValueKind,
    ) -> usize {
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

    pub(super) fn edges_into(&mut self, deps: &[usize], to: usize) {
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

    /// Joins `v` into the kind `func` returns, for calls of it walked later.
    pub(super) fn note_return_kind(&mut self, func: String, v: &Val) {
        self.return_kinds
            .entry(func)
            .and_modify(|(k, s)| {
                *k = ValueKind::join(*k, v.kind);
                *s = *s && v.sure;
            })
            .or_insert((v.kind, v.sure));
    }

    /// Binds an assignment target to a value.
    pub(super) fn bind(&mut self, target: &ast::Expr, v: &Val, env: &mut Env, offset: usize) {
        match target {
            ast::Expr::Name(n) => {
                self.findings.rebound(n.id.as_str());
                self.forget_first_index(n.id.as_str());
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
                            items: None,
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
                // `L[i] = v`: `L` may now hold `v`; deeper stores change what it holds too.
                let items = match target {
                    ast::Expr::Subscript(s) if matches!(s.value.as_ref(), ast::Expr::Name(_)) => {
                        Items::join(old.items, Some(Items::of(v)))
                    }
                    _ => None,
                };
                env.insert(
                    root,
                    Val {
                        deps: vec![id],
                        items,
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

    pub(super) fn exprs(&mut self, es: &[ast::Expr], env: &mut Env) -> Vec<Val> {
        es.iter().map(|e| self.expr(e, env)).collect()
    }

    pub(super) fn expr(&mut self, e: &ast::Expr, env: &mut Env) -> Val {
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
                None => {
                    // A helper passed around as a value: its callers are not all known.
                    if self.helpers.contains(n.id.as_str()) {
                        self.helper_refs.insert(n.id.to_string());
                    }
                    Val::of(ValueKind::Unknown)
                }
            },
            E::Constant(c) => Val::of(kinds::constant(&c.value)),
            E::List(ast::ExprList { elts, .. })
            | E::Tuple(ast::ExprTuple { elts, .. })
            | E::Set(ast::ExprSet { elts, .. }) => {
                let vals = self.exprs(elts, env);
                let starred = elts.iter().any(|x| matches!(x, E::Starred(_)));
                kinds::display(&vals, matches!(e, E::Set(_)), starred)
            }
            E::Dict(d) => {
                let mut vals = Vec::new();
                for k in d.keys.iter().flatten() {
                    vals.push(self.expr(k, env));
                }
                vals.extend(self.exprs(&d.values, env));
                Val::python(union(&vals))
            }
            E::JoinedStr(j) => {
                let vals = self.exprs(&j.values, env);
                Val::python(union(&vals))
            }
            E::FormattedValue(f) => {
                let v = self.expr(&f.value, env);
                Val::python(v.deps)
            }
            E::Attribute(a) => self.attribute(e, a, env),
            E::Subscript(s) => {
                let v = self.expr(&s.value, env);
                let idx = self.expr(&s.slice, env);
                // `l[i]` in the first iteration of `for i in range(len(l))`: `l[0]`.
                if let (E::Name(list), E::Name(index), Some((i, l, first))) =
                    (s.value.as_ref(), s.slice.as_ref(), &self.first_index)
                    && index.id.as_str() == i
                    && list.id.as_str() == l
                {
                    let mut first = first.clone();
                    first.deps = v.deps.into_iter().chain(idx.deps).collect();
                    return first;
                }
                kinds::subscript(&s.slice, v, idx)
            }
            E::BinOp(b) => {
                let l = self.expr(&b.left, env);
                let r = self.expr(&b.right, env);
                let (kind, sure) = self.binop_kind(&b.op, &l, &r, pyast::start_of(e));
                let dims = kinds::binop_dims(kind, &l, &r);
                Val {
                    deps: l.deps.into_iter().chain(r.deps).collect(),
                    kind,
                    sure,
                    dims,
                    items: None,
                }
            }
            E::UnaryOp(u) => {
                let v = self.expr(&u.operand, env);
                match u.op {
                    ast::UnaryOp::Not => Val::python(v.deps),
                    op => {
                        self.findings.unary(op, &v, pyast::start_of(e));
                        v
                    }
                }
            }
            E::Compare(c) => {
                let mut vals = vec![self.expr(&c.left, env)];
                vals.extend(self.exprs(&c.comparators, env));
                kinds::compare(&vals, &c.ops)
            }
            E::BoolOp(b) => self.bool_op(b, env),
            E::IfExp(i) => self.if_exp(i, env),
            E::NamedExpr(n) => {
                let v = self.expr(&n.value, env);
                self.bind(&n.target, &v, env, pyast::start_of(&*n.target));
                self.expr(&n.target, env)
            }
            E::Lambda(l) => self.lambda(l, env),
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
                    items: None,
                }
            }
        }
    }

    /// A boolean operation (`and`, `or`) of its operands.
    fn bool_op(&mut self, b: &ast::ExprBoolOp, env: &mut Env) -> Val {
        // `hasattr(x, "tolist") and x.tolist()`: earlier operands guard later ones.
        let mut guards = 0;
        let mut vals = Vec::new();
        // A later operand runs only while the earlier ones are true (`and`) or false (`or`).
        let runs_on = matches!(b.op, ast::BoolOp::And);
        let mut dead = false;
        for v in &b.values {
            let truth = truth::condition_truth(v, env);
            vals.push(self.expr(v, env));
            match truth {
                Some(t) if t != runs_on && !dead => {
                    dead = true;
                    self.findings.dead_branch(true);
                    guards += self.findings.add_guards(v, runs_on);
                }
                Some(_) => {}
                None => guards += self.findings.add_guards(v, runs_on),
            }
        }
        if dead {
            self.findings.dead_branch(false);
        }
        self.findings.drop_guards(guards);
        Val {
            deps: union(&vals),
            kind: ValueKind::join_all(vals.iter().map(|v| v.kind)),
            sure: vals.iter().all(|v| v.sure),
            dims: 0,
            items: None,
        }
    }

    /// `a if test else b`: the test guards both branches.
    fn if_exp(&mut self, i: &ast::ExprIfExp, env: &mut Env) -> Val {
        let truth = truth::condition_truth(&i.test, env);
        let t = self.expr(&i.test, env);
        let (a, b) = match truth {
            // The other branch never runs: its findings are not certain, the value is the live one's.
            Some(held) => {
                // The branch that cannot run keeps its guards, should the kinds be wrong.
                let a = self.dead_if(!held, |w| {
                    let guards = if held {
                        0
                    } else {
                        w.findings.add_guards(&i.test, true)
                    };
                    let v = w.expr(&i.body, env);
                    w.findings.drop_guards(guards);
                    v
                });
                let b = self.dead_if(held, |w| {
                    let guards = if held {
                        w.findings.add_guards(&i.test, false)
                    } else {
                        0
                    };
                    let v = w.expr(&i.orelse, env);
                    w.findings.drop_guards(guards);
                    v
                });
                let live = if held { a.clone() } else { b.clone() };
                let deps = t.deps.into_iter().chain(a.deps).chain(b.deps).collect();
                return Val { deps, ..live };
            }
            None => {
                let guards = self.findings.add_guards(&i.test, true);
                let a = self.expr(&i.body, env);
                self.findings.drop_guards(guards);
                let guards = self.findings.add_guards(&i.test, false);
                let b = self.expr(&i.orelse, env);
                self.findings.drop_guards(guards);
                (a, b)
            }
        };
        Val {
            kind: ValueKind::join(a.kind, b.kind),
            sure: a.sure && b.sure,
            dims: 0,
            deps: t.deps.into_iter().chain(a.deps).chain(b.deps).collect(),
            items: None,
        }
    }

    /// Runs `walk` in a branch that cannot run, when `dead`.
    fn dead_if<T>(&mut self, dead: bool, walk: impl FnOnce(&mut Self) -> T) -> T {
        if dead {
            self.findings.dead_branch(true);
        }
        let out = walk(self);
        if dead {
            self.findings.dead_branch(false);
        }
        out
    }

    /// A lambda's body, where its parameters hide the names outside.
    fn lambda(&mut self, l: &ast::ExprLambda, env: &mut Env) -> Val {
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

    fn comprehension(
        &mut self,
        elts: &[&ast::Expr],
        generators: &[ast::Comprehension],
        env: &mut Env,
        kind: ValueKind,
    ) -> Val {
        let mut upgrades = Vec::new();
        let mut inner = env.clone();
        let mut deps = Vec::new();
        for g in generators {
            let it = self.expr(&g.iter, &mut inner);
            // One generator without filters over a list whose first element surely is an
            // array: what the element does to it, it does first.
            if let ([_], [elt]) = (generators, elts)
                && g.ifs.is_empty()
                && matches!(g.target, ast::Expr::Name(_))
                && let Some(first) = kinds::first_array(&it)
            {
                let mut trial = inner.clone();
                upgrades = self.first_run_errors(&[*elt], |w| {
                    w.bind(&g.target, &first, &mut trial, pyast::start_of(&g.target));
                    w.expr(elt, &mut trial);
                });
            }
            self.bind_loop_target(&g.target, it, &g.iter, &mut inner);
            for cond in &g.ifs {
                deps.extend(self.expr(cond, &mut inner).deps);
            }
        }
        let mut last = None;
        for e in elts {
            let v = self.expr(e, &mut inner);
            deps.extend(v.deps.iter().copied());
            last = Some(v);
        }
        self.findings.upgrade(upgrades);
        // A list (or generator) of what its one element expression gives, every time.
        let items = match (elts.len(), &last) {
            (1, Some(v)) if kind == ValueKind::Python => Some(Items::of(v)),
            _ => None,
        };
        Val {
            deps,
            kind,
            sure: true,
            dims: 0,
            items,
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
            ValueKind::ZwcArray => match kinds::zwc_attribute(attr) {
                Some(kind) => kind,
                None => {
                    let end = pyast::end_of(e);
                    self.findings.missing_attribute(
                        &a.value,
                        attr,
                        recv.sure,
                        kinds::never_scalar(&recv),
                        end,
                    );
                    ValueKind::Unknown
                }
            },
            _ => ValueKind::Unknown,
        };
        Val {
            deps: recv.deps,
            kind,
            sure: recv.sure,
            dims: 0,
            items: None,
        }
    }

    /// The resolved module path of an expression that names zwc/NumPy things, if it does.
    fn module_path(&self, e: &ast::Expr) -> Option<Binding> {
        let root = pyast::chain_root(e)?;
        self.bindings.names.get(root)?;
        self.bindings.resolve(e)
    }

    /// The kind of `l op r` and whether it is sure (reports unsupported operators on a ZWCArray).
    pub(super) fn binop_kind(
        &mut self,
        op: &ast::Operator,
        l: &Val,
        r: &Val,
        offset: usize,
    ) -> (ValueKind, bool) {
        if self.findings.binop(op, l, r, offset) {
            return (ValueKind::Unknown, false);
        }
        kinds::binop(op, l, r)
    }

    /// Binds a loop's (or a comprehension's) target to what iterating `iter` (whose value is
    /// `it`) gives; `for i, x in enumerate(l)` binds `x` to an element of `l`.
    pub(super) fn bind_loop_target(
        &mut self,
        target: &ast::Expr,
        it: Val,
        iter: &ast::Expr,
        env: &mut Env,
    ) {
        if let (ast::Expr::Tuple(t), ast::Expr::Call(c)) = (target, iter)
            && let ([index, item], [ast::Expr::Name(l)]) = (t.elts.as_slice(), c.args.as_slice())
            && pyast::dotted_name(&c.func).as_deref() == Some("enumerate")
            && c.keywords.is_empty()
            && !env.contains_key("enumerate")
            && let Some(inner) = env.get(l.id.as_str()).cloned()
        {
            let mut number = Val::of(ValueKind::Scalar);
            number.deps = it.deps.clone();
            self.bind(index, &number, env, pyast::start_of(index));
            let element = element_of(inner, &c.args[0]);
            self.bind(item, &element, env, pyast::start_of(item));
            return;
        }
        let element = element_of(it, iter);
        self.bind(target, &element, env, pyast::start_of(target));
    }

    /// `name` was rebound or changed: `l[i]` is no longer known to be `l`'s first element.
    fn forget_first_index(&mut self, name: &str) {
        if self
            .first_index
            .as_ref()
            .is_some_and(|(i, l, _)| i == name || l == name)
        {
            self.first_index = None;
        }
    }

    /// Error-level findings at sites that run first on the first element of a list whose
    /// first element is surely an array while the others may not be
    /// (`[float(x) for x in [a, 1]]`): the first run raises, which ends the iteration, so
    /// every run raises. `walk` walks what runs first (with the loop target bound to the
    /// first element) in a copy of the walk, which is then dropped: only these findings
    /// stay, for [`Findings::upgrade`] after the usual walk. Sites in parts that may not
    /// run (`c and f(x)`, `a if c else b`, comprehensions, lambdas) are left out.
    pub(super) fn first_run_errors(
        &mut self,
        runs_first: &[&ast::Expr],
        walk: impl FnOnce(&mut Self),
    ) -> Vec<crate::analysis::names::RawFinding> {
        let saved = self.clone();
        let mark = self.findings.count();
        walk(self);
        let mut errors = self.findings.errors_since(mark);
        *self = saved;
        let maybe_skipped = maybe_skipped_ranges(runs_first);
        errors.retain(|f| {
            !maybe_skipped
                .iter()
                .any(|(a, b)| (*a..*b).contains(&f.offset))
        });
        errors
    }

    /// The kind each helper returns, as this walk found it.
    pub(super) fn return_kinds(&self) -> &HashMap<String, (ValueKind, bool)> {
        &self.return_kinds
    }
}

/// The byte ranges of the parts of `exprs` that may not run when the rest does: the
/// operands of `and`/`or` after the first, the branches of `a if c else b`, comprehensions
/// and lambdas.
pub(super) fn maybe_skipped_ranges(exprs: &[&ast::Expr]) -> Vec<(usize, usize)> {
    use ast::Expr as E;
    let mut out = Vec::new();
    for n in pyast::walk_bfs(exprs.iter().map(|e| pyast::Node::Expr(e))) {
        let pyast::Node::Expr(e) = n else { continue };
        match e {
            E::BoolOp(b) => out.extend(
                b.values
                    .iter()
                    .skip(1)
                    .map(|v| (pyast::start_of(v), pyast::end_of(v))),
            ),
            E::IfExp(i) => {
                for part in [&i.body, &i.orelse] {
                    out.push((pyast::start_of(&**part), pyast::end_of(&**part)));
                }
            }
            E::ListComp(_) | E::SetComp(_) | E::DictComp(_) | E::GeneratorExp(_) | E::Lambda(_) => {
                out.push((pyast::start_of(e), pyast::end_of(e)))
            }
            _ => {}
        }
    }
    out
}
