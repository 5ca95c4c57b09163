//! The statement walk, and the builder it belongs to: functions and their parameters (with
//! the kinds the test cases pass to the entry), bindings, returns, and control flow, whose
//! branches merge what each name may hold. Expressions go to the expression walk.

use std::collections::HashMap;

use super::dep_graph::{DepGraph, FunctionInfo, GraphEdge, NodeKind, ValueKind};
use super::expressions::{ArgKind, ExprWalker, maybe_skipped_ranges};
use super::finish::{drop_module_nodes, mark_flow};
use super::kinds::{self, EntryArgs, Env, MAYBE_0D, Val, element_of, merge_into};
use super::truth::condition_truth;
use crate::analysis::names::{Bindings, RawFinding};
use crate::analysis::pyast::{self, ast};
use crate::model::ApiMap;

/// Deeper blocks are not followed (CPython allows 100 levels of indentation; a long `elif`
/// chain is the usual way past it, and its far end adds nothing to the graph).
const MAX_BLOCK_DEPTH: usize = 100;

/// Walks a parsed solution and builds its graph and `array_method` findings.
pub struct GraphBuilder<'a> {
    walker: ExprWalker<'a>,
    /// Return nodes of each function, for linking helper calls.
    returns: HashMap<String, Vec<usize>>,
    /// Current block nesting (an `elif` chain nests one level per `elif`), bounded so
    /// pathological code cannot overflow the stack.
    block_depth: usize,
    /// What the test cases pass to the entry function: per parameter (by name and by
    /// position), the kind every case agrees on.
    entry_args: EntryArgs,
    api: &'a ApiMap,
    bindings: &'a Bindings,
    /// Module-level helpers whose every call passes these kinds (found by an earlier walk):
    /// their parameters take them.
    specialized: HashMap<String, Vec<ArgKind>>,
}

/// What one walk learnt about helpers, for the next: the kinds their parameters take and
/// what they return.
#[derive(Debug, Default, PartialEq)]
struct HelperFacts {
    params: HashMap<String, Vec<ArgKind>>,
    returns: HashMap<String, (ValueKind, bool)>,
}

/// Walks of the code at most: one, then again while what helpers take or return changes.
const MAX_WALKS: usize = 3;

impl<'a> GraphBuilder<'a> {
    pub fn new(api: &'a ApiMap, bindings: &'a Bindings) -> GraphBuilder<'a> {
        GraphBuilder {
            walker: ExprWalker::new(api, bindings),
            returns: HashMap::new(),
            block_depth: 0,
            entry_args: EntryArgs::default(),
            api,
            bindings,
            specialized: HashMap::new(),
        }
    }

    /// Gives the entry function's parameters the kinds the test cases pass.
    pub fn with_entry_args(mut self, args: EntryArgs) -> GraphBuilder<'a> {
        self.entry_args = args;
        self
    }

    /// Builds the graph of every function in `suite`; `entry_offset` is the start of
    /// the entry `def` (the one the official check picks), if any.
    ///
    /// A helper whose every call passes values of one kind is walked again with those
    /// kinds (sure or not) for its parameters (`return _h(zwc.f(x))` with `def _h(v): return v.tolist()`
    /// after the entry), and calls of helpers defined after them take what an earlier walk
    /// found they return.
    pub fn build(
        self,
        suite: &pyast::Suite,
        entry_offset: Option<usize>,
    ) -> (DepGraph, Vec<RawFinding>) {
        let (api, bindings, entry_args) = (self.api, self.bindings, self.entry_args.clone());
        let mut defs: HashMap<String, usize> = HashMap::new();
        for s in suite.iter() {
            if let ast::Stmt::FunctionDef(f) = s {
                *defs.entry(f.name.to_string()).or_default() += 1;
            }
        }
        let mut walked = self.walk(suite, entry_offset);
        let mut used = HelperFacts::default();
        for _ in 1..MAX_WALKS {
            // Nothing to learn (no helper with sure arguments, no call of a helper defined
            // after it): the usual case, walked once.
            if walked.walker.helper_args.is_empty() {
                break;
            }
            let facts = walked.helper_facts(&defs, entry_offset, suite);
            let late = walked.walker.late_helper_calls;
            if facts.params == used.params && (!late || facts.returns == used.returns) {
                break;
            }
            let mut next = GraphBuilder::new(api, bindings).with_entry_args(entry_args.clone());
            next.specialized = facts.params.clone();
            next.walker.prior_returns = facts.returns.clone();
            walked = next.walk(suite, entry_offset);
            used = facts;
        }
        walked.finish()
    }

    /// What this walk found helpers take and return; only module-level functions defined
    /// once, never the entry, never used other than by calls.
    fn helper_facts(
        &self,
        defs: &HashMap<String, usize>,
        entry_offset: Option<usize>,
        suite: &pyast::Suite,
    ) -> HelperFacts {
        let entry = suite.iter().find_map(|s| match s {
            ast::Stmt::FunctionDef(f) if Some(pyast::start_of(s)) == entry_offset => {
                Some(f.name.as_str())
            }
            _ => None,
        });
        let params = self
            .walker
            .helper_args
            .iter()
            .filter(|(name, _)| {
                defs.get(name.as_str()) == Some(&1)
                    && Some(name.as_str()) != entry
                    && !self.walker.helper_refs.contains(name.as_str())
            })
            .filter_map(|(name, args)| {
                let args = args.as_ref()?;
                // An unsure ZWCArray too: misuses on it are then `possible`.
                args.iter()
                    .any(|a| a.0 != ValueKind::Unknown && (a.1 || a.0 == ValueKind::ZwcArray))
                    .then(|| (name.clone(), args.clone()))
            })
            .collect();
        let returns = self
            .walker
            .return_kinds()
            .iter()
            .filter(|(name, _)| {
                defs.get(name.as_str()) == Some(&1) && self.walker.helper_args.contains_key(*name)
            })
            .map(|(n, k)| (n.clone(), *k))
            .collect();
        HelperFacts { params, returns }
    }

    /// One walk of the whole code.
    fn walk(mut self, suite: &pyast::Suite, entry_offset: Option<usize>) -> GraphBuilder<'a> {
        for n in pyast::walk_suite(suite) {
            if let pyast::Node::Stmt(ast::Stmt::FunctionDef(f)) = n {
                self.walker.helpers.insert(f.name.to_string());
            }
        }
        // Module-level code runs in its own scope; functions see its bindings only by name.
        let mut module_env = Env::new();
        self.walker.func = "<module>".to_string();
        self.block(suite, &mut module_env, entry_offset, true);
        self
    }

    /// The graph and findings of the last walk.
    fn finish(mut self) -> (DepGraph, Vec<RawFinding>) {
        for (call, helper) in std::mem::take(&mut self.walker.pending_links) {
            for r in self.returns.get(&helper).cloned().unwrap_or_default() {
                self.walker.graph.edges.push(GraphEdge {
                    from: r,
                    to: call,
                    link: true,
                });
            }
        }
        let mut graph = self.walker.graph;
        drop_module_nodes(&mut graph);
        graph.edges.sort_by_key(|e| (e.from, e.to));
        graph.edges.dedup();
        mark_flow(&mut graph);
        (graph, self.walker.findings.into_found())
    }

    fn function(
        &mut self,
        f: &ast::StmtFunctionDef,
        name: String,
        closure: &Env,
        entry_offset: Option<usize>,
    ) {
        let saved = std::mem::replace(&mut self.walker.func, name.clone());
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
            self.walker.expr(d, &mut env.clone());
        }
        let is_entry = entry_offset == Some(pyast::start_of(f));
        let positional = args.posonlyargs.len() + args.args.len();
        let keyword_only = positional + usize::from(args.vararg.is_some());
        for (position, a) in all.enumerate() {
            // Only named parameters take a case's argument (`*args`, `**kw` collect them).
            let known = if !is_entry {
                self.specialized
                    .get(&name)
                    .and_then(|kinds| kinds.get(position))
                    .filter(|k| {
                        k.0 != ValueKind::Unknown
                            && (k.1 || k.0 == ValueKind::ZwcArray)
                            && position < positional
                    })
                    .map(|k| (k.0, k.2, k.1))
            } else if position < positional {
                self.entry_args
                    .kind_of(a.arg.as_str(), Some(position))
                    .map(|(k, d)| (k, d, true))
            } else if position >= keyword_only
                && args.kwarg.as_deref().is_none_or(|k| k.arg != a.arg)
            {
                self.entry_args
                    .kind_of(a.arg.as_str(), None)
                    .map(|(k, d)| (k, d, true))
            } else {
                None
            };
            // A parameter the cases pass numbers and lists to: an array of it may be 0-d.
            let maybe_number = is_entry
                && known.is_none()
                && self
                    .entry_args
                    .may_be_number(a.arg.as_str(), (position < positional).then_some(position));
            let (kind, dims, sure) = known.unwrap_or((
                ValueKind::Unknown,
                if maybe_number { MAYBE_0D } else { 0 },
                false,
            ));
            let id = self
                .walker
                .node(NodeKind::Param, a.arg.to_string(), pyast::start_of(a), kind);
            params.push(a.arg.to_string());
            let v = Val {
                deps: vec![id],
                kind,
                sure,
                dims,
                items: None,
            };
            env.insert(a.arg.to_string(), v);
        }
        self.walker.graph.functions.push(FunctionInfo {
            name: name.clone(),
            params,
            line: 0,
            is_entry,
            offset: pyast::start_of(f),
        });
        self.block(&f.body, &mut env, entry_offset, false);
        self.walker.func = saved;
    }

    /// The first iteration of `for x in l` or `for i in range(len(l))` (with `x = l[i]`) over
    /// a list display whose first element surely is a ZWCArray, the others maybe not: sites
    /// of the body's first simple statements (before any branch, loop, `try` or jump) run
    /// first on that element, and a misuse there raises on the first run, ending the loop,
    /// so it raises every time. Their error-level findings, for after the usual walk.
    fn first_iteration_errors(
        &mut self,
        f: &ast::StmtFor,
        it: &Val,
        env: &Env,
        entry: Option<usize>,
        module: bool,
    ) -> Vec<RawFinding> {
        let ast::Expr::Name(target) = f.target.as_ref() else {
            return Vec::new();
        };
        // `range(len(l))`: the list, by name.
        let indexed = match f.iter.as_ref() {
            ast::Expr::Call(c)
                if pyast::dotted_name(&c.func).as_deref() == Some("range")
                    && c.keywords.is_empty() =>
            {
                match c.args.as_slice() {
                    [ast::Expr::Call(l)]
                        if pyast::dotted_name(&l.func).as_deref() == Some("len")
                            && l.keywords.is_empty() =>
                    {
                        match l.args.as_slice() {
                            [ast::Expr::Name(list)] => env
                                .get(list.id.as_str())
                                .and_then(kinds::first_array)
                                .map(|first| (list.id.to_string(), first)),
                            _ => return Vec::new(),
                        }
                    }
                    _ => return Vec::new(),
                }
            }
            _ => None,
        };
        let first = if indexed.is_some() {
            None
        } else {
            match kinds::first_array(it) {
                Some(v) => Some(v),
                None => return Vec::new(),
            }
        };
        let prefix: Vec<&ast::Stmt> = f
            .body
            .iter()
            .take_while(|s| {
                matches!(
                    s,
                    ast::Stmt::Assign(_)
                        | ast::Stmt::AugAssign(_)
                        | ast::Stmt::AnnAssign(_)
                        | ast::Stmt::Expr(_)
                )
            })
            .collect();
        if prefix.is_empty() {
            return Vec::new();
        }
        let runs_first: Vec<&ast::Expr> = prefix
            .iter()
            .flat_map(|s| match s {
                ast::Stmt::Assign(a) => a.targets.iter().chain([a.value.as_ref()]).collect(),
                ast::Stmt::AugAssign(a) => vec![a.target.as_ref(), a.value.as_ref()],
                ast::Stmt::AnnAssign(a) => a.value.iter().map(|v| v.as_ref()).collect(),
                ast::Stmt::Expr(e) => vec![e.value.as_ref()],
                _ => Vec::new(),
            })
            .collect();
        let mut trial = env.clone();
        let saved = self.walker.clone();
        let mark = self.walker.findings.count();
        let at = pyast::start_of(&*f.target);
        match (first, indexed) {
            (Some(first), _) => self.walker.bind(&f.target, &first, &mut trial, at),
            (None, Some((list, first))) => {
                let index = element_of(it.clone(), &f.iter);
                self.walker.bind(&f.target, &index, &mut trial, at);
                self.walker.first_index = Some((target.id.to_string(), list, first));
            }
            (None, None) => return Vec::new(),
        }
        for s in &prefix {
            self.stmt(s, &mut trial, entry, module);
        }
        let mut errors = self.walker.findings.errors_since(mark);
        self.walker = saved;
        let maybe_skipped = maybe_skipped_ranges(&runs_first);
        errors.retain(|f| {
            !maybe_skipped
                .iter()
                .any(|(a, b)| (*a..*b).contains(&f.offset))
        });
        errors
    }

    fn block(&mut self, body: &[ast::Stmt], env: &mut Env, entry: Option<usize>, module: bool) {
        if self.block_depth >= MAX_BLOCK_DEPTH {
            return;
        }
        self.block_depth += 1;
        // Guards an `if` leaves in force for the statements after it end with the block.
        let guards = self.walker.findings.guard_count();
        for s in body {
            self.stmt(s, env, entry, module);
        }
        self.walker.findings.truncate_guards(guards);
        self.block_depth -= 1;
    }

    fn stmt(&mut self, s: &ast::Stmt, env: &mut Env, entry: Option<usize>, module: bool) {
        use ast::Stmt as S;
        match s {
            S::FunctionDef(f) => {
                let name = if module || self.walker.func == "<module>" {
                    f.name.to_string()
                } else {
                    format!("{}.{}", self.walker.func, f.name)
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
            S::Return(r) => self.return_stmt(r, pyast::start_of(s), env),
            S::Assign(a) => self.assign(a, env),
            S::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    let v = self.walker.expr(value, env);
                    self.walker
                        .bind(&a.target, &v, env, pyast::start_of(&*a.target));
                }
            }
            S::AugAssign(a) => self.aug_assign(a, pyast::start_of(s), env),
            S::For(f) => {
                let it = self.walker.expr(&f.iter, env);
                let upgrades = self.first_iteration_errors(f, &it, env, entry, module);
                let before = env.clone();
                self.walker.bind_loop_target(&f.target, it, &f.iter, env);
                self.block(&f.body, env, entry, module);
                self.block(&f.orelse, env, entry, module);
                merge_into(env, &before);
                self.walker.findings.upgrade(upgrades);
            }
            S::While(w) => {
                self.walker.expr(&w.test, env);
                let before = env.clone();
                self.block(&w.body, env, entry, module);
                self.block(&w.orelse, env, entry, module);
                merge_into(env, &before);
            }
            S::If(i) => {
                let truth = condition_truth(&i.test, env);
                self.walker.expr(&i.test, env);
                let mut other = env.clone();
                match truth {
                    // A certain branch: the other one never runs, and nothing is in doubt.
                    Some(held) => {
                        let (live, dead) = if held {
                            (&i.body, &i.orelse)
                        } else {
                            (&i.orelse, &i.body)
                        };
                        // The branch that cannot run keeps its guards, should the kinds
                        // be wrong after all.
                        self.walker.findings.dead_branch(true);
                        let guards = self.walker.findings.add_guards(&i.test, !held);
                        self.block(dead, &mut other, entry, module);
                        self.walker.findings.drop_guards(guards);
                        self.walker.findings.dead_branch(false);
                        self.block(live, env, entry, module);
                    }
                    None => {
                        let guards = self.walker.findings.add_guards(&i.test, true);
                        self.block(&i.body, env, entry, module);
                        self.walker.findings.drop_guards(guards);
                        let guards = self.walker.findings.add_guards(&i.test, false);
                        self.block(&i.orelse, &mut other, entry, module);
                        self.walker.findings.drop_guards(guards);
                        // `if hasattr(r, "tolist"): return …`: what follows runs only where
                        // the test failed, and the body's bindings never reach it.
                        let body_ends = matches!(i.body.last(), Some(S::Return(_) | S::Raise(_)));
                        if body_ends && i.orelse.is_empty() {
                            self.walker.findings.add_guards(&i.test, false);
                            *env = other;
                        } else {
                            merge_into(env, &other);
                        }
                    }
                }
            }
            S::With(w) => self.with_block(w, env, entry, module),
            S::Match(m) => self.match_cases(m, env, entry, module),
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
                self.walker.expr(&e.value, env);
            }
            S::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.walker.expr(e, env);
                }
            }
            S::Assert(a) => {
                self.walker.expr(&a.test, env);
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

    /// A `return` at `offset`: a node its function's callers link to.
    fn return_stmt(&mut self, r: &ast::StmtReturn, offset: usize, env: &mut Env) {
        let v = match &r.value {
            Some(e) => self.walker.expr(e, env),
            None => Val::of(ValueKind::Python),
        };
        let label = if r.value.is_some() {
            "return"
        } else {
            "return (bare)"
        };
        let id = self
            .walker
            .node(NodeKind::Return, label.to_string(), offset, v.kind);
        self.walker.edges_into(&v.deps, id);
        let func = self.walker.func.clone();
        self.returns.entry(func.clone()).or_default().push(id);
        self.walker.note_return_kind(func.clone(), &v);
        // Helpers are also called by their short name.
        if let Some(short) = func.rsplit('.').next()
            && short != func
        {
            self.returns.entry(short.to_string()).or_default().push(id);
            self.walker.note_return_kind(short.to_string(), &v);
        }
    }

    fn assign(&mut self, a: &ast::StmtAssign, env: &mut Env) {
        // `x, y = 0, len(a)`: pair targets with values one by one.
        if let ([target], Some(values)) = (a.targets.as_slice(), sequence_elts(&a.value))
            && let Some(targets) = sequence_elts(target)
            && targets.len() == values.len()
            && !targets
                .iter()
                .chain(values)
                .any(|e| matches!(e, ast::Expr::Starred(_)))
        {
            let vals = self.walker.exprs(values, env);
            for (t, v) in targets.iter().zip(&vals) {
                self.walker.bind(t, v, env, pyast::start_of(t));
            }
            return;
        }
        let v = self.walker.expr(&a.value, env);
        for t in &a.targets {
            self.walker.bind(t, &v, env, pyast::start_of(t));
        }
    }

    /// `target op= value` at `offset`.
    fn aug_assign(&mut self, a: &ast::StmtAugAssign, offset: usize, env: &mut Env) {
        let right = self.walker.expr(&a.value, env);
        let left = self.walker.expr(&a.target, env);
        let (kind, sure) = self.walker.binop_kind(&a.op, &left, &right, offset);
        let deps: Vec<usize> = left.deps.iter().chain(&right.deps).copied().collect();
        self.walker.bind(
            &a.target,
            &Val {
                deps,
                kind,
                sure,
                dims: 0,
                items: None,
            },
            env,
            pyast::start_of(&*a.target),
        );
    }

    fn with_block(&mut self, w: &ast::StmtWith, env: &mut Env, entry: Option<usize>, module: bool) {
        for item in &w.items {
            let v = self.walker.expr(&item.context_expr, env);
            if let Some(t) = &item.optional_vars {
                self.walker.bind(
                    t,
                    &Val {
                        deps: v.deps,
                        kind: ValueKind::Unknown,
                        sure: true,
                        dims: 0,
                        items: None,
                    },
                    env,
                    pyast::start_of(&**t),
                );
            }
        }
        self.block(&w.body, env, entry, module);
    }

    fn match_cases(
        &mut self,
        m: &ast::StmtMatch,
        env: &mut Env,
        entry: Option<usize>,
        module: bool,
    ) {
        self.walker.expr(&m.subject, env);
        let before = env.clone();
        let mut merged = env.clone();
        for case in &m.cases {
            let mut branch = before.clone();
            if let Some(g) = &case.guard {
                self.walker.expr(g, &mut branch);
            }
            self.block(&case.body, &mut branch, entry, module);
            merge_into(&mut merged, &branch);
        }
        *env = merged;
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
        let catches = self.walker.findings.enter_try(handlers);
        self.block(body, env, entry, module);
        self.walker.findings.leave_try(catches);
        merge_into(env, &before);
        let after_body = env.clone();
        for h in handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            let mut branch = after_body.clone();
            if let Some(ty) = &h.type_ {
                self.walker.expr(ty, &mut branch);
            }
            self.block(&h.body, &mut branch, entry, module);
            merge_into(env, &branch);
        }
        self.block(orelse, env, entry, module);
        self.block(finalbody, env, entry, module);
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
